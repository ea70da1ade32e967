/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * serve_mhd.c - libmicrohttpd's functions for hpm serve (serve_mhd.h).
 */
#include "serve/serve_mhd.h"

#include <dlfcn.h>
#include <stdio.h>

#ifndef HPM_MHD_SONAME
#define HPM_MHD_SONAME "libmicrohttpd.so.12"
#endif

struct serve_mhd serve_mhd;

int serve_mhd_load(char *err, size_t len)
{
    static const struct {
        const char *name;
        size_t at;
    } fns[] = {
        {"MHD_start_daemon", offsetof(struct serve_mhd, start_daemon)},
        {"MHD_stop_daemon", offsetof(struct serve_mhd, stop_daemon)},
        {"MHD_get_daemon_info", offsetof(struct serve_mhd, get_daemon_info)},
        {"MHD_get_connection_info", offsetof(struct serve_mhd, get_connection_info)},
        {"MHD_lookup_connection_value", offsetof(struct serve_mhd, lookup_connection_value)},
        {"MHD_create_response_from_buffer",
         offsetof(struct serve_mhd, create_response_from_buffer)},
        {"MHD_add_response_header", offsetof(struct serve_mhd, add_response_header)},
        {"MHD_queue_response", offsetof(struct serve_mhd, queue_response)},
        {"MHD_destroy_response", offsetof(struct serve_mhd, destroy_response)},
    };
    void *lib = dlopen(HPM_MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
    size_t i;
    if (!lib) {
        snprintf(err, len,
                 "cannot load %s (%s): hpm serve needs libmicrohttpd (Debian's "
                 "libmicrohttpd12)",
                 HPM_MHD_SONAME, dlerror());
        return -1;
    }
    for (i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        void *f = dlsym(lib, fns[i].name);
        if (!f) {
            snprintf(err, len, "%s has no %s", HPM_MHD_SONAME, fns[i].name);
            dlclose(lib);
            return -1;
        }
        /* a function pointer stored as the object pointer dlsym gives
         * (POSIX: the two have one representation) */
        *(void **)((char *)&serve_mhd + fns[i].at) = f;
    }
    return 0; /* the library stays open for the process's life */
}
