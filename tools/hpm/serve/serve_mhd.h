/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * serve_mhd.h - libmicrohttpd, loaded by hpm serve alone.
 *
 * Linked into hpm, the library and GnuTLS's ten behind it were loaded,
 * relocated and initialized (GnuTLS builds its ASN.1 trees) at the start
 * of every hpm command, about 1.5 ms of each: hpm serve opens it with
 * dlopen and calls it through this table instead.
 */
#ifndef HPM_SERVE_MHD_H
#define HPM_SERVE_MHD_H

#include <stddef.h>

#include <microhttpd.h>

struct serve_mhd {
    __typeof__(MHD_start_daemon) *start_daemon;
    __typeof__(MHD_stop_daemon) *stop_daemon;
    __typeof__(MHD_get_daemon_info) *get_daemon_info;
    __typeof__(MHD_get_connection_info) *get_connection_info;
    __typeof__(MHD_lookup_connection_value) *lookup_connection_value;
    __typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
    __typeof__(MHD_add_response_header) *add_response_header;
    __typeof__(MHD_queue_response) *queue_response;
    __typeof__(MHD_destroy_response) *destroy_response;
};

/* The table, once serve_mhd_load has filled it. */
extern struct serve_mhd serve_mhd;

/* Opens the library (HPM_MHD_SONAME) and fills serve_mhd: 0, or -1 with
 * why in err. */
int serve_mhd_load(char *err, size_t len);

#endif
