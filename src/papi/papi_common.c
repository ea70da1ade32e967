/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_common.c - what every file of libpapi uses: the library's state
 * (papi_lib, papi_mutex), PAPI's error codes (PAPI_strerror, PAPI_perror,
 * PAPI_set_debug, papi_ret, the hpm -> PAPI table), papi_copy and
 * papi_component_usable, the slow paths of a set's lock.
 *
 * A leaf: it calls nothing else of libpapi, so every file may call it
 * without a call cycle (tests/common/no_cycles.sh checks the folder).
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "papi_internal.h"

struct papi_library papi_lib = { .debug = PAPI_QUIET, .default_mpx_ns = 10000000 };
pthread_mutex_t papi_mutex = PTHREAD_MUTEX_INITIALIZER;

/* papi_lock found the lock held: mark it contended (2) and sleep until a
 * release finds it free. */
void papi_lock_wait(papi_lock_t *l)
{
    while (__atomic_exchange_n(&l->w, 2, __ATOMIC_ACQUIRE) != 0)
        syscall(SYS_futex, &l->w, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
}

/* papi_unlock released a contended lock: wake one waiter (it marks the
 * lock contended again, so the next release wakes the others in turn). */
void papi_lock_wake(papi_lock_t *l)
{
    syscall(SYS_futex, &l->w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void papi_copy(char *dst, size_t size, const char *src)
{
    if (size == 0)
        return;
    if (!src)
        src = "";
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* ================================================================ errors */

/* PAPI_strerror's sentences, indexed by -code. */
static char *const error_text[PAPI_NUM_ERRORS] = {
    [0] = "No error",
    [-PAPI_EINVAL] = "Invalid argument",
    [-PAPI_ENOMEM] = "Insufficient memory",
    [-PAPI_ESYS] = "A system or C library call failed",
    [-PAPI_ECMP] = "Not supported by component",
    [-PAPI_ECLOST] = "Access to the counters was lost or interrupted",
    [-PAPI_EBUG] = "Internal error in the PAPI library",
    [-PAPI_ENOEVNT] = "Event does not exist",
    [-PAPI_ECNFLCT] = "Event exists, but cannot be counted due to counter resource limitations",
    [-PAPI_ENOTRUN] = "EventSet is currently not running",
    [-PAPI_EISRUN] = "EventSet is currently counting",
    [-PAPI_ENOEVST] = "No such EventSet available",
    [-PAPI_ENOTPRESET] = "Event in argument is not a valid preset",
    [-PAPI_ENOCNTR] = "Hardware does not support performance counters",
    [-PAPI_EMISC] = "Unknown error code",
    [-PAPI_EPERM] = "Permission level does not permit operation",
    [-PAPI_ENOINIT] = "PAPI has not been initialized",
    [-PAPI_ENOCMP] = "Component index is not set or is invalid",
    [-PAPI_ENOSUPP] = "Not supported",
    [-PAPI_ENOIMPL] = "Not implemented",
    [-PAPI_EBUF] = "Buffer size exceeded",
    [-PAPI_EINVAL_DOM] = "EventSet domain is not supported for the operation",
    [-PAPI_EATTR] = "Invalid or missing event attributes",
    [-PAPI_ECOUNT] = "Too many events or attributes",
    [-PAPI_ECOMBO] = "Bad combination of features",
    [-PAPI_ECMP_DISABLED] = "Component containing event is disabled",
    [-PAPI_EDELAY_INIT] = "Delayed initialization component",
    [-PAPI_EMULPASS] = "Event exists, but cannot be counted due to multiple passes required by hardware",
};

char *PAPI_strerror(int code)
{
    if (code > 0 || code <= -PAPI_NUM_ERRORS)
        return NULL;
    return error_text[-code];
}

static _Thread_local int last_error = PAPI_OK;

int papi_ret(int status)
{
    if (status < 0) {
        last_error = status;
        if (papi_lib.debug != PAPI_QUIET) {
            const char *s = PAPI_strerror(status);
            fprintf(stderr, "PAPI Error: %s\n", s ? s : "unknown error");
            if (papi_lib.debug == PAPI_VERB_ESTOP)
                exit(status);
        }
    }
    return status;
}

void PAPI_perror(const char *msg)
{
    const char *s = PAPI_strerror(last_error);
    if (!s)
        return;
    if (msg && *msg)
        fprintf(stderr, "%s: ", msg);
    fprintf(stderr, "%s\n", s);
}

int PAPI_set_debug(int level)
{
    if (level != PAPI_QUIET && level != PAPI_VERB_ECONT && level != PAPI_VERB_ESTOP)
        return papi_ret(PAPI_EINVAL);
    papi_lib.debug = level;
    return PAPI_OK;
}

/* hpm status -> PAPI status. Rows with a specific operation come first and
 * win; OP_ANY rows are the general meaning. */
static const struct {
    int hpm;
    enum papi_op op;
    int papi;
} error_map[] = {
    { HPM_ECONFLICT, OP_START, PAPI_EISRUN },   /* another set of the component runs here */
    { HPM_ERUNNING, OP_START, PAPI_EISRUN },
    { HPM_ENOTSUP, OP_OVERFLOW, PAPI_ENOSUPP },
    { HPM_ENOTSUP, OP_OPTION, PAPI_ECMP },
    { HPM_ENOEVENT, OP_START, PAPI_EINVAL },    /* empty set */
    { HPM_ENOCOMP, OP_NAME, PAPI_ENOEVNT },     /* only a disabled component has it */
    { HPM_ENOCOMP, OP_ADD, PAPI_ECMP_DISABLED },
    { HPM_OK, OP_ANY, PAPI_OK },
    { HPM_EINVAL, OP_ANY, PAPI_EINVAL },
    { HPM_ENOMEM, OP_ANY, PAPI_ENOMEM },
    { HPM_ESYS, OP_ANY, PAPI_ESYS },
    { HPM_ENOINIT, OP_ANY, PAPI_ENOINIT },
    { HPM_ENOEVENT, OP_ANY, PAPI_ENOEVNT },
    { HPM_ENOCOMP, OP_ANY, PAPI_ENOCMP },
    { HPM_ECONFLICT, OP_ANY, PAPI_ECNFLCT },
    { HPM_ECOUNTERS, OP_ANY, PAPI_ECNFLCT },
    { HPM_ENOSET, OP_ANY, PAPI_ENOEVST },
    { HPM_ERUNNING, OP_ANY, PAPI_EISRUN },
    { HPM_ENOTRUNNING, OP_ANY, PAPI_ENOTRUN },
    { HPM_EEXISTS, OP_ANY, PAPI_ECNFLCT },
    { HPM_ENOTSUP, OP_ANY, PAPI_ECMP },
    { HPM_EPERM, OP_ANY, PAPI_EPERM },
    { HPM_ENOREGION, OP_ANY, PAPI_EINVAL },
    { HPM_EBUG, OP_ANY, PAPI_EBUG },
};

int papi_from_hpm(int hpm_status, enum papi_op op)
{
    if (hpm_status >= 0)
        return PAPI_OK;
    for (size_t i = 0; i < sizeof error_map / sizeof error_map[0]; i++)
        if (error_map[i].hpm == hpm_status && error_map[i].op == op)
            return error_map[i].papi;
    for (size_t i = 0; i < sizeof error_map / sizeof error_map[0]; i++)
        if (error_map[i].hpm == hpm_status && error_map[i].op == OP_ANY)
            return error_map[i].papi;
    return PAPI_EMISC;
}

/* ================================================================ components */

int papi_component_usable(int cidx)
{
    if (cidx < 0 || cidx >= papi_lib.ncomp)
        return 0;
    return papi_lib.comp[cidx].hpm.enabled && !papi_lib.comp[cidx].user_disabled;
}

