/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * serve_conns.c - hpm serve's connections (serve_conns.h).
 *
 * A connection given up is shut down (shutdown(2), not closed): the
 * server's thread sees its end and closes it as any other, so that no
 * descriptor is closed under libmicrohttpd. The table is only touched
 * under its lock, and libmicrohttpd tells a connection's end
 * (MHD_CONNECTION_NOTIFY_CLOSED, which removes it from the table) before
 * it closes the descriptor: a descriptor shut down here is always still
 * the connection's.
 */
#define _GNU_SOURCE
#include "serve/serve_conns.h"
#include "serve/serve_mhd.h"

#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>

/* Descriptors kept for hpm serve's own (the listening socket, epoll,
 * libmicrohttpd's wake-up pipe, the live views a scrape reads one at a
 * time, standard streams): the cap is the limit less these, and less the
 * connections being given up. */
#define OWN_FDS 16
#define CLOSING_ROOM 16

struct conn {
    struct conn *prev, *next;
    MHD_socket fd;
    uint32_t addr;   /* IPv4, network order; 0 when not IPv4 */
    int64_t since_ns; /* its start, or the end of its last response */
    int busy;        /* its request arrived: being answered */
    int closing;     /* shut down: the server's thread closes it next */
};

struct serve_conns {
    pthread_mutex_t lock;
    struct conn *head, *tail;
    unsigned per_client, cap, hard;
    int64_t deadline_ns;
    MHD_AccessHandlerCallback handler;
    void *handler_cls;
    pthread_mutex_t log_lock;
    char last_msg[256];
    int64_t last_msg_ns;
};

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

struct serve_conns *serve_conns_new(unsigned per_client, unsigned deadline_s,
                                    MHD_AccessHandlerCallback handler, void *handler_cls)
{
    struct serve_conns *sc = calloc(1, sizeof *sc);
    struct rlimit rl;
    rlim_t fds = 1024;
    if (!sc)
        return NULL;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        fds = rl.rlim_cur;
    else if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
        fds = (rlim_t)1 << 20;
    if (fds > (rlim_t)1 << 20)
        fds = (rlim_t)1 << 20;
    /* a tiny limit still leaves one connection */
    sc->hard = fds > OWN_FDS + 1 ? (unsigned)fds - OWN_FDS : 1;
    sc->cap = sc->hard > CLOSING_ROOM + 1 ? sc->hard - CLOSING_ROOM : 1;
    sc->per_client = per_client;
    sc->deadline_ns = (int64_t)deadline_s * 1000000000;
    sc->handler = handler;
    sc->handler_cls = handler_cls;
    pthread_mutex_init(&sc->lock, NULL);
    pthread_mutex_init(&sc->log_lock, NULL);
    return sc;
}

void serve_conns_free(struct serve_conns *sc)
{
    struct conn *c, *next;
    if (!sc)
        return;
    for (c = sc->head; c; c = next) {
        next = c->next;
        free(c);
    }
    pthread_mutex_destroy(&sc->lock);
    pthread_mutex_destroy(&sc->log_lock);
    free(sc);
}

unsigned serve_conns_cap(const struct serve_conns *sc)
{
    return sc->cap;
}

unsigned serve_conns_hard_limit(const struct serve_conns *sc)
{
    return sc->hard;
}

static void give_up(struct conn *c)
{
    shutdown(c->fd, SHUT_RDWR);
    c->closing = 1;
}

/* The connection waiting longest for its request (of address addr, or of
 * any when all is set), or NULL. */
static struct conn *oldest_waiting(const struct serve_conns *sc, uint32_t addr, int all)
{
    struct conn *c, *best = NULL;
    for (c = sc->head; c; c = c->next)
        if (!c->busy && !c->closing && (all || c->addr == addr) &&
            (!best || c->since_ns < best->since_ns))
            best = c;
    return best;
}

enum MHD_Result serve_conns_accept(void *vsc, const struct sockaddr *addr, socklen_t len)
{
    struct serve_conns *sc = vsc;
    uint32_t a = 0;
    unsigned same = 0, total = 0;
    struct conn *c, *victim = NULL;
    enum MHD_Result ok = MHD_YES;
    if (addr->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in))
        a = ((const struct sockaddr_in *)(const void *)addr)->sin_addr.s_addr;
    pthread_mutex_lock(&sc->lock);
    for (c = sc->head; c; c = c->next)
        if (!c->closing) {
            total++;
            same += c->addr == a;
        }
    if (same >= sc->per_client)
        ok = (victim = oldest_waiting(sc, a, 0)) != NULL ? MHD_YES : MHD_NO;
    else if (total >= sc->cap)
        ok = (victim = oldest_waiting(sc, 0, 1)) != NULL ? MHD_YES : MHD_NO;
    if (victim)
        give_up(victim);
    pthread_mutex_unlock(&sc->lock);
    return ok;
}

void serve_conns_notify(void *vsc, struct MHD_Connection *mc, void **socket_context,
                        enum MHD_ConnectionNotificationCode toe)
{
    struct serve_conns *sc = vsc;
    struct conn *c;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *fd =
            serve_mhd.get_connection_info(mc, MHD_CONNECTION_INFO_CONNECTION_FD);
        const union MHD_ConnectionInfo *peer =
            serve_mhd.get_connection_info(mc, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        *socket_context = NULL;
        if (!fd || !(c = calloc(1, sizeof *c)))
            return; /* not in the table: never given up, never counted */
        c->fd = fd->connect_fd;
        if (peer && peer->client_addr && peer->client_addr->sa_family == AF_INET)
            c->addr =
                ((const struct sockaddr_in *)(const void *)peer->client_addr)->sin_addr.s_addr;
        c->since_ns = now_ns();
        pthread_mutex_lock(&sc->lock);
        c->prev = sc->tail;
        if (sc->tail)
            sc->tail->next = c;
        else
            sc->head = c;
        sc->tail = c;
        pthread_mutex_unlock(&sc->lock);
        *socket_context = c;
        return;
    }
    if (!(c = *socket_context)) return;
    pthread_mutex_lock(&sc->lock);
    if (c->prev)
        c->prev->next = c->next;
    else
        sc->head = c->next;
    if (c->next)
        c->next->prev = c->prev;
    else
        sc->tail = c->prev;
    pthread_mutex_unlock(&sc->lock);
    free(c);
    *socket_context = NULL;
}

static struct conn *conn_of(struct MHD_Connection *mc)
{
    const union MHD_ConnectionInfo *i =
        serve_mhd.get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return i ? i->socket_context : NULL;
}

void serve_conns_completed(void *vsc, struct MHD_Connection *mc, void **con_cls,
                           enum MHD_RequestTerminationCode toe)
{
    struct serve_conns *sc = vsc;
    struct conn *c = conn_of(mc);
    (void)con_cls;
    (void)toe;
    if (!c)
        return;
    /* the next request on it has the whole deadline */
    pthread_mutex_lock(&sc->lock);
    c->busy = 0;
    c->since_ns = now_ns();
    pthread_mutex_unlock(&sc->lock);
}

enum MHD_Result serve_conns_handle(void *vsc, struct MHD_Connection *mc, const char *url,
                                   const char *method, const char *version, const char *upload,
                                   size_t *upload_size, void **state)
{
    struct serve_conns *sc = vsc;
    struct conn *c = conn_of(mc);
    if (c) {
        pthread_mutex_lock(&sc->lock);
        c->busy = 1;
        pthread_mutex_unlock(&sc->lock);
    }
    return sc->handler(sc->handler_cls, mc, url, method, version, upload, upload_size, state);
}

void serve_conns_sweep(struct serve_conns *sc)
{
    int64_t now = now_ns();
    struct conn *c;
    pthread_mutex_lock(&sc->lock);
    for (c = sc->head; c; c = c->next)
        if (!c->busy && !c->closing && now - c->since_ns >= sc->deadline_ns)
            give_up(c);
    pthread_mutex_unlock(&sc->lock);
}

void serve_conns_log(void *vsc, const char *fmt, va_list ap)
{
    struct serve_conns *sc = vsc;
    char msg[sizeof sc->last_msg];
    int64_t now = now_ns();
    vsnprintf(msg, sizeof msg, fmt, ap);
    pthread_mutex_lock(&sc->log_lock);
    if (strcmp(msg, sc->last_msg) != 0 || now - sc->last_msg_ns >= (int64_t)60 * 1000000000) {
        fprintf(stderr, "hpm serve: %s%s", msg, msg[0] && msg[strlen(msg) - 1] == '\n' ? "" : "\n");
        memcpy(sc->last_msg, msg, sizeof msg);
        sc->last_msg_ns = now;
    }
    pthread_mutex_unlock(&sc->log_lock);
}
