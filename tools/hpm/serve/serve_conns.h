/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * serve_conns.h - hpm serve's connections: who gets one, and for how long
 * (libmicrohttpd's connection callbacks around the request handler).
 *
 * A request must arrive whole within a deadline of its connection's start
 * (or of the end of the previous response on it), however slowly its bytes
 * trickle in: a connection past it is closed. One address holds at most
 * per_client connections, and all of them at most a cap under the
 * process's descriptor limit; at either limit a new connection takes the
 * place of the oldest one still waiting for its request, so that room is
 * kept for new connections: a scrape gets in beside any number of idle or
 * trickling ones, from its own address or from many.
 */
#ifndef HPM_SERVE_CONNS_H
#define HPM_SERVE_CONNS_H

#include <stdarg.h>

#include <microhttpd.h>

struct serve_conns;

/* The connection table for a server whose requests go to handler (with
 * handler_cls); the cap is taken from RLIMIT_NOFILE. NULL when out of
 * memory. */
struct serve_conns *serve_conns_new(unsigned per_client, unsigned deadline_s,
                                    MHD_AccessHandlerCallback handler, void *handler_cls);
void serve_conns_free(struct serve_conns *sc);

/* The most connections held at once (under the descriptor limit), and the
 * limit libmicrohttpd itself refuses beyond (a few above it: connections
 * given up are closed by the server's thread a moment later). */
unsigned serve_conns_cap(const struct serve_conns *sc);
unsigned serve_conns_hard_limit(const struct serve_conns *sc);

/* libmicrohttpd's callbacks, each with sc as its closure: the accept
 * policy, MHD_OPTION_NOTIFY_CONNECTION, MHD_OPTION_NOTIFY_COMPLETED, and
 * the request handler (which marks the request arrived, then calls
 * handler). */
enum MHD_Result serve_conns_accept(void *sc, const struct sockaddr *addr, socklen_t len);
void serve_conns_notify(void *sc, struct MHD_Connection *c, void **socket_context,
                        enum MHD_ConnectionNotificationCode toe);
void serve_conns_completed(void *sc, struct MHD_Connection *c, void **con_cls,
                           enum MHD_RequestTerminationCode toe);
enum MHD_Result serve_conns_handle(void *sc, struct MHD_Connection *c, const char *url,
                                   const char *method, const char *version, const char *upload,
                                   size_t *upload_size, void **state);

/* Closes the connections whose request missed the deadline (call it every
 * second). */
void serve_conns_sweep(struct serve_conns *sc);

/* libmicrohttpd's messages (MHD_OPTION_EXTERNAL_LOGGER, closure sc) on
 * stderr, each text at most once a minute: connections given up by the
 * hundred would print a line each. */
void serve_conns_log(void *sc, const char *fmt, va_list ap);

#endif
