/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm serve: the live counters of every process running under hpm as an
 * OpenMetrics/Prometheus text endpoint, served by Debian's libmicrohttpd
 * (no hand-written HTTP). Prometheus, Grafana Agent, VictoriaMetrics or a
 * plain curl scrape GET /metrics.
 *
 *   hpm serve [--address A] [--port N] [--timeout S] [--deadline S]
 *             [--per-client N]   (default 127.0.0.1:9464; 0 = any free port)
 *
 * Connections (serve_conns.h): a connection that sends nothing for
 * --timeout seconds (default 10) is closed, and so is one whose request
 * has not arrived whole within --deadline seconds (default 10) however it
 * trickles; one address holds at most --per-client connections (default
 * 16) and all of them at most a cap under the descriptor limit, and at
 * either limit a new connection takes the place of the oldest one still
 * waiting for its request, so that idle, half-open or trickling
 * connections, many or from one client, never keep a scrape out. The
 * server polls with epoll where Linux has it (no select() limit of 1024
 * descriptors).
 *
 * Metrics (all counts modeled by the virtual PMU, read from the processes'
 * live views; each scrape takes consistent snapshots):
 *   hpm_events_total{pid,kind,core}      a catalog event's count (core="node"
 *                                        for node-wide events)
 *   hpm_process_info{pid,machine,command} 1 per process
 *   hpm_process_running{pid}             1 running, 0 ended
 *   hpm_process_publications_total{pid}  the view's updates so far
 *   hpm_processes                        processes under hpm
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog.h"
#include "commands.h"
#include "live.h"
#include "options.h"
#include "serve_conns.h"

static const char serve_synopsis[] =
    "usage: hpm serve [--address A] [--port N] [--timeout S] [--deadline S] [--per-client N]\n"
    "Serve the live counters of every process running under hpm as OpenMetrics\n"
    "text at http://A:N/metrics (default 127.0.0.1:9464; --port 0 picks a free\n"
    "port and prints it). Stops on SIGINT or SIGTERM.\n\n";

/* A label value: backslash, double quote and newline escaped. */
static void label(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            fputc('\\', f);
        if (*s == '\n')
            fputs("\\n", f);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

/* The whole exposition, into a malloc'd buffer. */
static char *exposition(size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    pid_t pids[1024];
    unsigned n = hpm_live_list(pids, 1024, 1), i, j;
    static struct hpm_live snaps[64];
    unsigned ns = 0;
    if (!f)
        return NULL;
    for (i = 0; i < n && ns < 64; i++) {
        struct hpm_live_reader lr;
        char err[256];
        if (hpm_live_open(&lr, pids[i], err, sizeof err) != 0)
            continue;
        if (hpm_live_snapshot(&lr, &snaps[ns]) == 0)
            ns++;
        hpm_live_close(&lr);
    }
    fputs("# HELP hpm_processes Processes running under hpm's virtual PMU.\n"
          "# TYPE hpm_processes gauge\n",
          f);
    fprintf(f, "hpm_processes %u\n", ns);
    fputs("# HELP hpm_process_info A process under hpm (value 1).\n"
          "# TYPE hpm_process_info gauge\n",
          f);
    for (i = 0; i < ns; i++) {
        fprintf(f, "hpm_process_info{pid=\"%u\",machine=", snaps[i].pid);
        label(f, snaps[i].machine);
        fputs(",command=", f);
        label(f, snaps[i].command);
        fputs("} 1\n", f);
    }
    fputs("# HELP hpm_process_running 1 while the process runs, 0 once it ended.\n"
          "# TYPE hpm_process_running gauge\n",
          f);
    for (i = 0; i < ns; i++)
        fprintf(f, "hpm_process_running{pid=\"%u\"} %d\n", snaps[i].pid,
                snaps[i].state == HPM_LIVE_RUNNING);
    fputs("# HELP hpm_process_publications The live view's updates so far.\n"
          "# TYPE hpm_process_publications counter\n",
          f);
    for (i = 0; i < ns; i++)
        fprintf(f, "hpm_process_publications_total{pid=\"%u\"} %" PRIu64 "\n", snaps[i].pid,
                snaps[i].updates);
    fputs("# HELP hpm_events Modeled event counts of the virtual PMU (catalog kinds).\n"
          "# TYPE hpm_events counter\n",
          f);
    for (i = 0; i < ns; i++)
        for (j = 0; j < snaps[i].n_events; j++) {
            unsigned kind;
            int core;
            if (hpm_catalog_decode(snaps[i].codes[j], &kind, &core) != 0)
                continue;
            fprintf(f, "hpm_events_total{pid=\"%u\",kind=\"%s\",core=", snaps[i].pid,
                    hpm_catalog_kind(kind)->name);
            if (core >= 0)
                fprintf(f, "\"%d\"", core);
            else
                fputs("\"node\"", f);
            fprintf(f, "} %" PRIu64 "\n", snaps[i].values[j]);
        }
    fputs("# EOF\n", f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **state)
{
    struct MHD_Response *r;
    enum MHD_Result ret;
    char *body;
    size_t len = 0;
    unsigned code = MHD_HTTP_OK;
    (void)cls;
    (void)version;
    (void)upload;
    (void)upload_size;
    (void)state;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        static const char msg[] = "only GET\n";
        r = MHD_create_response_from_buffer(sizeof msg - 1, (void *)msg, MHD_RESPMEM_PERSISTENT);
        code = MHD_HTTP_METHOD_NOT_ALLOWED;
    } else if (strcmp(url, "/metrics") != 0) {
        static const char msg[] = "hpm serve: the metrics are at /metrics\n";
        r = MHD_create_response_from_buffer(sizeof msg - 1, (void *)msg, MHD_RESPMEM_PERSISTENT);
        code = MHD_HTTP_NOT_FOUND;
    } else if ((body = exposition(&len)) != NULL) {
        r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
        if (r)
            MHD_add_response_header(r, "Content-Type",
                                    "application/openmetrics-text; version=1.0.0; charset=utf-8");
    } else {
        static const char msg[] = "out of memory\n";
        r = MHD_create_response_from_buffer(sizeof msg - 1, (void *)msg, MHD_RESPMEM_PERSISTENT);
        code = MHD_HTTP_INTERNAL_SERVER_ERROR;
    }
    if (!r)
        return MHD_NO;
    ret = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    return ret;
}

int cmd_serve(int argc, char **argv)
{
    const char *address = "127.0.0.1";
    long port = 9464, timeout = 10, deadline = 10, per_client = 16;
    int rc, sig;
    const struct hpm_opt t[] = {
        {"--address", NULL, "A", "the IPv4 address to listen on (default 127.0.0.1)",
         HPM_OPT_STRING, &address, NULL, NULL, 0, 0},
        {"--port", NULL, "N", "the TCP port (default 9464; 0 = any free port)", HPM_OPT_LONG,
         &port, NULL, NULL, 0, 65535},
        {"--timeout", NULL, "S",
         "close a connection idle for S seconds (default 10): half-open\n"
         "connections cannot hold the server",
         HPM_OPT_LONG, &timeout, NULL, NULL, 1, 3600},
        {"--deadline", NULL, "S",
         "close a connection whose request has not arrived whole S seconds\n"
         "after it opened or its last answer (default 10): bytes trickled\n"
         "slowly cannot hold the server",
         HPM_OPT_LONG, &deadline, NULL, NULL, 1, 3600},
        {"--per-client", NULL, "N",
         "connections one client address may hold at once (default 16; a new\n"
         "one takes the place of the oldest still waiting for its request)",
         HPM_OPT_LONG, &per_client, NULL, NULL, 1, 1000},
        HPM_OPT_TABLE_END,
    };
    struct sockaddr_in sa;
    struct MHD_Daemon *d;
    const union MHD_DaemonInfo *info;
    struct serve_conns *sc;
    struct timespec tick = {1, 0};
    sigset_t set;

    rc = hpm_opt_parse_all("hpm serve", t, serve_synopsis, NULL, argc, argv);
    if (rc)
        return rc < 0 ? 0 : rc;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, address, &sa.sin_addr) != 1)
        return hpm_opt_error("hpm serve", t, serve_synopsis, NULL, "bad IPv4 address '%s'",
                             address);
    /* signals are taken by sigwait below, not by the server's thread */
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    sc = serve_conns_new((unsigned)per_client, (unsigned)deadline, handle, NULL);
    if (!sc) {
        fprintf(stderr, "hpm serve: out of memory\n");
        return 1;
    }
    d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG, 0,
                         serve_conns_accept, sc, serve_conns_handle, sc,
                         MHD_OPTION_EXTERNAL_LOGGER, serve_conns_log, sc, MHD_OPTION_SOCK_ADDR,
                         (struct sockaddr *)&sa, MHD_OPTION_CONNECTION_TIMEOUT,
                         (unsigned int)timeout, MHD_OPTION_CONNECTION_LIMIT,
                         serve_conns_hard_limit(sc), MHD_OPTION_NOTIFY_CONNECTION,
                         serve_conns_notify, sc, MHD_OPTION_NOTIFY_COMPLETED,
                         serve_conns_completed, sc, MHD_OPTION_END);
    if (!d) {
        fprintf(stderr, "hpm serve: cannot listen on %s:%ld: %s\n", address, port,
                strerror(errno));
        serve_conns_free(sc);
        return 1;
    }
    info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    printf("hpm serve: http://%s:%u/metrics\n", address,
           info ? (unsigned)info->port : (unsigned)port);
    fflush(stdout);
    /* the deadlines are checked every second until a signal stops it */
    while ((sig = sigtimedwait(&set, NULL, &tick)) < 0 && (errno == EAGAIN || errno == EINTR))
        serve_conns_sweep(sc);
    MHD_stop_daemon(d);
    serve_conns_free(sc);
    return 0;
}
