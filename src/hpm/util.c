/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * util.c - the small helpers every file of libhpm may use: bounded string
 * copy, the name compare, gettid, and the status texts (hpm_strerror).
 *
 * A leaf: it calls nothing else of libhpm, so any file can use it without
 * making a call cycle (tests/common/no_cycles.sh checks the folder).
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "catalog.h"
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
