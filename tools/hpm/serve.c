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
 * Processes (serve_views.c): every live view is opened when a poll (every
 * 100 ms) finds it and kept open, so that a process's last publication,
 * its final counts (hpm count's report), is read even after the view's
 * name is gone; an ended process stays published with
 * hpm_process_running 0 until a scrape took it and --keep seconds passed.
 *
 * Formats: OpenMetrics 1.0 (application/openmetrics-text), or Prometheus'
 * text format 0.0.4 when the request's Accept asks for text/plain and not
 * OpenMetrics; both have HELP and TYPE for every family.
 *
 * Metrics (the virtual PMU's counts, read from the processes' live views;
 * each scrape takes consistent snapshots):
 *   hpm_events_total{pid,source,kind,core} a catalog event's count (core="node"
 *                                        for node-wide events); source
 *                                        "modeled", or "measured" for the
 *                                        host's clocks and getrusage (the
 *                                        I/O and kernel units' *_HOST_*
 *                                        kinds), as the reports say
 *   hpm_process_info{pid,machine,command} 1 per process
 *   hpm_process_running{pid}             1 running, 0 ended
 *   hpm_process_publications_total{pid}  the view's updates so far
 *   hpm_processes                        processes running under hpm
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
#include "report/count_report_writer.h"
#include "util/options.h"
#include "serve/serve_conns.h"
#include "serve/serve_mhd.h"
#include "serve/serve_views.h"

#define SERVE_POLL_MS 100 /* how often new and ending processes are looked for */

static const char serve_synopsis[] =
    "usage: hpm serve [--address A] [--port N] [--timeout S] [--deadline S] [--per-client N]\n"
    "                 [--keep S]\n"
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

/* The two formats a scraper may ask for: OpenMetrics (a counter's TYPE
 * names its family, its samples end in _total, and the text ends with
 * "# EOF") and Prometheus' text format 0.0.4 (TYPE and HELP name the
 * sample itself, no end marker). */
enum expo_format { EXPO_OPENMETRICS, EXPO_PROMETHEUS };

/* HELP and TYPE of a metric family; name_total: its counter samples. */
static void family(FILE *f, enum expo_format fmt, const char *name, const char *type,
                   const char *help)
{
    const char *suffix = fmt == EXPO_PROMETHEUS && strcmp(type, "counter") == 0 ? "_total" : "";
    fprintf(f, "# HELP %s%s %s\n# TYPE %s%s %s\n", name, suffix, help, name, suffix, type);
}

/* The whole exposition, into a malloc'd buffer: every process that runs
 * or ended and was not yet taken by a scrape (serve_views.h). */
static char *exposition(enum expo_format fmt, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    struct hpm_live *snaps = malloc(SERVE_VIEWS_MAX * sizeof *snaps);
    size_t ns, i, running = 0;
    unsigned j;
    if (!f || !snaps) {
        if (f)
            fclose(f);
        free(buf);
        free(snaps);
        return NULL;
    }
    ns = serve_views_take(snaps, SERVE_VIEWS_MAX);
    for (i = 0; i < ns; i++)
        running += snaps[i].state == HPM_LIVE_RUNNING;
    family(f, fmt, "hpm_processes", "gauge", "Processes running under hpm's virtual PMU.");
    fprintf(f, "hpm_processes %zu\n", running);
    family(f, fmt, "hpm_process_info", "gauge",
           "A process under hpm, running or ended and not yet scraped (value 1).");
    for (i = 0; i < ns; i++) {
        fprintf(f, "hpm_process_info{pid=\"%u\",machine=", snaps[i].pid);
        label(f, snaps[i].machine);
        fputs(",command=", f);
        label(f, snaps[i].command);
        fputs("} 1\n", f);
    }
    family(f, fmt, "hpm_process_running", "gauge",
           "1 while the process runs, 0 once it ended (its counts are then final).");
    for (i = 0; i < ns; i++)
        fprintf(f, "hpm_process_running{pid=\"%u\"} %d\n", snaps[i].pid,
                snaps[i].state == HPM_LIVE_RUNNING);
    family(f, fmt, "hpm_process_publications", "counter", "The live view's updates so far.");
    for (i = 0; i < ns; i++)
        fprintf(f, "hpm_process_publications_total{pid=\"%u\"} %" PRIu64 "\n", snaps[i].pid,
                snaps[i].updates);
    family(f, fmt, "hpm_events", "counter",
           "Event counts of the virtual PMU (catalog kinds): modeled, or measured by the "
           "host (source).");
    for (i = 0; i < ns; i++)
        for (j = 0; j < snaps[i].n_events; j++) {
            unsigned kind;
            int core;
            if (hpm_catalog_decode(snaps[i].codes[j], &kind, &core) != 0)
                continue;
            fprintf(f, "hpm_events_total{pid=\"%u\",source=\"%s\",kind=\"%s\",core=",
                    snaps[i].pid,
                    report_row_source(hpm_catalog_kind(kind)),
                    hpm_catalog_kind(kind)->name);
            if (core >= 0)
                fprintf(f, "\"%d\"", core);
            else
                fputs("\"node\"", f);
            fprintf(f, "} %" PRIu64 "\n", snaps[i].values[j]);
        }
    if (fmt == EXPO_OPENMETRICS)
        fputs("# EOF\n", f);
    free(snaps);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* The format the request's Accept asks for: the Prometheus text format
 * when it names text/plain and not OpenMetrics, OpenMetrics otherwise. */
static enum expo_format negotiate(struct MHD_Connection *c)
{
    const char *accept = serve_mhd.lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
    if (accept && !strstr(accept, "application/openmetrics-text") && strstr(accept, "text/plain"))
        return EXPO_PROMETHEUS;
    return EXPO_OPENMETRICS;
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
    enum expo_format fmt;
    (void)cls;
    (void)version;
    (void)upload;
    (void)upload_size;
    (void)state;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        static const char msg[] = "only GET\n";
        r = serve_mhd.create_response_from_buffer(sizeof msg - 1, (void *)msg,
                                                  MHD_RESPMEM_PERSISTENT);
        code = MHD_HTTP_METHOD_NOT_ALLOWED;
    } else if (strcmp(url, "/metrics") != 0) {
        static const char msg[] = "hpm serve: the metrics are at /metrics\n";
        r = serve_mhd.create_response_from_buffer(sizeof msg - 1, (void *)msg,
                                                  MHD_RESPMEM_PERSISTENT);
        code = MHD_HTTP_NOT_FOUND;
    } else if ((body = exposition(fmt = negotiate(c), &len)) != NULL) {
        r = serve_mhd.create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
        if (r)
            serve_mhd.add_response_header(r, "Content-Type",
                                          fmt == EXPO_PROMETHEUS
                                              ? "text/plain; version=0.0.4; charset=utf-8"
                                              : "application/openmetrics-text; version=1.0.0; "
                                                "charset=utf-8");
    } else {
        static const char msg[] = "out of memory\n";
        r = serve_mhd.create_response_from_buffer(sizeof msg - 1, (void *)msg,
                                                  MHD_RESPMEM_PERSISTENT);
        code = MHD_HTTP_INTERNAL_SERVER_ERROR;
    }
    if (!r)
        return MHD_NO;
    ret = serve_mhd.queue_response(c, code, r);
    serve_mhd.destroy_response(r);
    return ret;
}

int cmd_serve(int argc, char **argv)
{
    const char *address = "127.0.0.1";
    long port = 9464, timeout = 10, deadline = 10, per_client = 16, keep = 0;
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
        {"--keep", NULL, "S",
         "an ended process's final counts stay published until a scrape\n"
         "took them and S seconds passed (default 0)",
         HPM_OPT_LONG, &keep, NULL, NULL, 0, 86400},
        HPM_OPT_TABLE_END,
    };
    struct sockaddr_in sa;
    struct MHD_Daemon *d;
    const union MHD_DaemonInfo *info;
    struct serve_conns *sc;
    struct timespec tick = {0, SERVE_POLL_MS * 1000000L};
    sigset_t set;
    char err[512];

    rc = hpm_opt_parse_all("hpm serve", t, serve_synopsis, NULL, argc, argv);
    if (rc)
        return rc < 0 ? 0 : rc;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, address, &sa.sin_addr) != 1)
        return hpm_opt_error("hpm serve", t, serve_synopsis, NULL, "bad IPv4 address '%s'",
                             address);
    if (serve_mhd_load(err, sizeof err) != 0) {
        fprintf(stderr, "hpm serve: %s\n", err);
        return 1;
    }
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
    serve_views_init((unsigned)keep);
    serve_views_poll();
    d = serve_mhd.start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG, 0, serve_conns_accept,
        sc, serve_conns_handle, sc, MHD_OPTION_EXTERNAL_LOGGER, serve_conns_log, sc,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned int)timeout, MHD_OPTION_CONNECTION_LIMIT, serve_conns_hard_limit(sc),
        MHD_OPTION_NOTIFY_CONNECTION, serve_conns_notify, sc, MHD_OPTION_NOTIFY_COMPLETED,
        serve_conns_completed, sc, MHD_OPTION_END);
    if (!d) {
        fprintf(stderr, "hpm serve: cannot listen on %s:%ld: %s\n", address, port, strerror(errno));
        serve_conns_free(sc);
        return 1;
    }
    info = serve_mhd.get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    printf("hpm serve: http://%s:%u/metrics\n", address,
           info ? (unsigned)info->port : (unsigned)port);
    fflush(stdout);
    /* every tick until a signal stops it: the views are polled (new
     * processes opened at once, every open one read, so that a process's
     * final counts are read from its last publication even after its name
     * is gone) and the connections' deadlines checked */
    while ((sig = sigtimedwait(&set, NULL, &tick)) < 0 && (errno == EAGAIN || errno == EINTR)) {
        serve_views_poll();
        serve_conns_sweep(sc);
    }
    serve_mhd.stop_daemon(d);
    serve_conns_free(sc);
    serve_views_free();
    return 0;
}
