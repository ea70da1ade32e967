/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * util.c - the small helpers every file of libhpm may use: bounded string
 * copy, the name compare, gettid, the status texts (hpm_strerror) and the
 * host's clocks (hpm_clock_ns).
 *
 * A leaf: it calls nothing else of libhpm, so any file can use it without
 * making a call cycle (tests/common/no_cycles.sh checks the folder).
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "catalog.h"
#include "hpm_client.h"
#include "hpm_internal.h"

void hpm__copy(char *dst, size_t len, const char *src)
{
    size_t n = strlen(src);
    if (len == 0)
        return;
    if (n >= len)
        n = len - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* The catalog's compare (the one case-insensitive compare of hpm), for the
 * names of every component */
int hpm__strcaseeq(const char *a, const char *b)
{
    return a && b && hpm_catalog_name_eq(a, strlen(a), b);
}

pid_t hpm__gettid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

/* Indexed by -status. */
static const char *const status_text[] = {
    [0] = "success",
    [-HPM_EINVAL] = "invalid argument",
    [-HPM_ENOMEM] = "out of memory",
    [-HPM_ESYS] = "a system call failed",
    [-HPM_ENOINIT] = "libhpm is not initialised (call hpm_init)",
    [-HPM_ENOEVENT] = "no such event",
    [-HPM_ENOCOMP] = "no such component, or it is disabled here",
    [-HPM_ECONFLICT] = "the events cannot be counted together (another component's event, "
                       "hardware constraints, or another set of this component already "
                       "running on this thread)",
    [-HPM_ECOUNTERS] = "no counter left for this event (try multiplexing)",
    [-HPM_ENOSET] = "no such event set",
    [-HPM_ERUNNING] = "the event set is running: stop it first",
    [-HPM_ENOTRUNNING] = "the event set is not running",
    [-HPM_EEXISTS] = "the event is already in the set",
    [-HPM_ENOTSUP] = "the component cannot do this (domain, attach, inherit or overflow)",
    [-HPM_EPERM] = "the kernel refused (perf_event_paranoid or ptrace permissions)",
    [-HPM_ENOREGION] = "region end without a matching begin",
    [-HPM_EBUG] = "internal error: a bug in libhpm",
};

HPM_EXPORT const char *hpm_strerror(int status)
{
    if (status > 0 || status < HPM_E_LAST)
        return "unknown error";
    return status_text[-status];
}

/* Whether the tool answers HPM_VPMU_CLOCK (interface 8): 0 not asked yet,
 * 1 yes, 2 no. Asked once: under an older tool the request would take
 * Valgrind's slow path at every call only to be refused. */
static int clock_by_tool;

HPM_EXPORT int64_t hpm_clock_ns(int clock)
{
    struct timespec ts;
    int by = __atomic_load_n(&clock_by_tool, __ATOMIC_RELAXED);
    if (by == 0) {
        by = HPM_VPMU_IS_RUNNING() >= 8 ? 1 : 2;
        __atomic_store_n(&clock_by_tool, by, __ATOMIC_RELAXED);
    }
    if (by == 1) {
        long ns = HPM_VPMU_CLOCK(clock);
        if (ns >= 0)
            return ns;
    }
    if (clock_gettime((clockid_t)clock, &ts) != 0)
        return 0;
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
