/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LD_PRELOAD shim for Debian's libpapi on a CPU that libpfm4 does not know
 * (here AMD family 0x1a with libpfm4 4.13): libpfm4 then activates only its
 * OS-generic "perf" PMU, PAPI's perf_event component finds no "default core
 * PMU" and disables itself, and perf::TASK-CLOCK, a software event the
 * kernel counts on any machine, cannot be added. The shim reports the perf
 * PMU as a core PMU, so the component starts with the perf:: events.
 *
 * It changes PAPI's start-up enumeration only: PAPI_read, PAPI_start,
 * PAPI_stop, PAPI_accum and PAPI_reset, the calls bench_papi.sh times, run
 * Debian's code unchanged (read(2) and ioctl(2) on the perf_event fd).
 * bench_papi.sh preloads it only when the event cannot be added without it,
 * and says so.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <perfmon/pfmlib.h>
#include <string.h>

pfm_err_t pfm_get_pmu_info(pfm_pmu_t pmu, pfm_pmu_info_t *info)
{
    static pfm_err_t (*real)(pfm_pmu_t, pfm_pmu_info_t *);
    if (!real) {
        /* dlsym returns void *; the cast through a union keeps -Wpedantic
         * quiet about object-to-function pointer conversion. */
        union {
            void *p;
            pfm_err_t (*f)(pfm_pmu_t, pfm_pmu_info_t *);
        } u;
        u.p = dlsym(RTLD_NEXT, "pfm_get_pmu_info");
        if (!u.p)
            return PFM_ERR_NOTSUPP;
        real = u.f;
    }
    pfm_err_t r = real(pmu, info);
    if (r == PFM_SUCCESS && info && info->name && strcmp(info->name, "perf") == 0)
        info->type = PFM_PMU_TYPE_CORE;
    return r;
}
