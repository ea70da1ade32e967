/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_rate.c - PAPI_flips_rate, PAPI_flops_rate, PAPI_ipc, PAPI_epc and
 * PAPI_rate_stop.
 *
 * Each thread has one hidden event set for these calls. The first call
 * creates and starts it and reports zeros; each later call reports what
 * happened since the call before (real time, process time, counts, rate)
 * and restarts the counts. Calling a different rate function (or the same
 * one with another event) replaces the set. Rates per second use cycles at
 * the hardware clock rate where PAPI_TOT_CYC exists (the modeled time
 * under the virtual PMU), else process time.
 *
 * A client of the library like papi_hl: it calls PAPI_library_init and the
 * event-set calls, and the library never calls it. PAPI_shutdown destroys
 * every set, the hidden ones too; a thread's rate state notices from the
 * library's generation (papi_lib.generation) and starts afresh.
 */
#include <string.h>

#include "papi_internal.h"

enum rate_kind { RATE_NONE, RATE_FLIPS, RATE_FLOPS, RATE_IPC, RATE_EPC };

struct rate_state {
    enum rate_kind kind;
    int event;
    int set;
    int nevents;
    int has_cycles; /* position of PAPI_TOT_CYC, or -1 */
    int has_ref;    /* position of PAPI_REF_CYC, or -1 */
    long long real_us, virt_us;
    unsigned generation; /* papi_lib.generation the set was made in */
};

static _Thread_local struct rate_state rate = { .set = PAPI_NULL };

static void rate_drop(void)
{
    if (rate.kind == RATE_NONE)
        return;
    long long dummy[4];
    PAPI_stop(rate.set, dummy);
    PAPI_cleanup_eventset(rate.set);
    PAPI_destroy_eventset(&rate.set);
    rate.kind = RATE_NONE;
    rate.set = PAPI_NULL;
}

/* The library was shut down since the set was made: the set is gone. */
static void rate_forget_if_stale(void)
{
    if (rate.kind != RATE_NONE &&
        rate.generation != __atomic_load_n(&papi_lib.generation, __ATOMIC_ACQUIRE)) {
        rate.kind = RATE_NONE;
        rate.set = PAPI_NULL;
    }
}

/* Start the hidden set with events[0] (required) then the optional cycle
 * counters. */
static int rate_begin(enum rate_kind kind, int event, int with_ref)
{
    int rc;
    if (!papi_inited() && (rc = PAPI_library_init(PAPI_VER_CURRENT)) != PAPI_VER_CURRENT)
        return rc < 0 ? rc : PAPI_EMISC;
    rate.set = PAPI_NULL;
    if ((rc = PAPI_create_eventset(&rate.set)) != PAPI_OK)
        return rc;
    if ((rc = PAPI_add_event(rate.set, event)) != PAPI_OK) {
        PAPI_destroy_eventset(&rate.set);
        return rc;
    }
    rate.nevents = 1;
    rate.has_cycles = rate.has_ref = -1;
    if (event == PAPI_TOT_CYC)
        rate.has_cycles = 0;
    else if (PAPI_add_event(rate.set, PAPI_TOT_CYC) == PAPI_OK)
        rate.has_cycles = rate.nevents++;
    if (with_ref && PAPI_add_event(rate.set, PAPI_REF_CYC) == PAPI_OK)
        rate.has_ref = rate.nevents++;
    if ((rc = PAPI_start(rate.set)) != PAPI_OK) {
        PAPI_cleanup_eventset(rate.set);
        PAPI_destroy_eventset(&rate.set);
        return rc == PAPI_EISRUN ? PAPI_EINVAL : rc; /* counters busy with other sets */
    }
    rate.kind = kind;
    rate.event = event;
    rate.generation = __atomic_load_n(&papi_lib.generation, __ATOMIC_ACQUIRE);
    rate.real_us = PAPI_get_real_usec();
    rate.virt_us = PAPI_get_virt_usec();
    return PAPI_OK;
}

/* One rate call: values[] receives the counts since the previous call
 * (zeros on the first), *rtime / *ptime the seconds. Returns 1 when these
 * are the first (zero) results. */
static int rate_step(enum rate_kind kind, int event, int with_ref, float *rtime, float *ptime,
                     long long values[4], int *rc_out)
{
    memset(values, 0, 4 * sizeof *values);
    rate_forget_if_stale();
    if (rate.kind != kind || rate.event != event)
        rate_drop();
    if (rate.kind == RATE_NONE) {
        int rc = rate_begin(kind, event, with_ref);
        *rc_out = rc;
        *rtime = *ptime = 0;
        return 1;
    }
    int rc = PAPI_stop(rate.set, values);
    if (rc != PAPI_OK) {
        *rc_out = rc;
        return 1;
    }
    long long now_real = PAPI_get_real_usec(), now_virt = PAPI_get_virt_usec();
    *rtime = (float)((now_real - rate.real_us) / 1e6);
    *ptime = (float)((now_virt - rate.virt_us) / 1e6);
    rate.real_us = now_real;
    rate.virt_us = now_virt;
    *rc_out = PAPI_start(rate.set);
    return 0;
}

/* Events per microsecond = millions per second, over modeled or process time. */
static float per_usec(long long count, long long cycles, float ptime)
{
    if (cycles > 0)
        return (float)((double)count * papi_mhz() / (double)cycles);
    return ptime > 0 ? (float)((double)count / (ptime * 1e6)) : 0.0f;
}

static int flxps(enum rate_kind kind, int event, float *rtime, float *ptime, long long *count,
                 float *rate_out)
{
    if (!rtime || !ptime || !count || !rate_out)
        return papi_ret(PAPI_EINVAL);
    long long v[4];
    int rc;
    int first = rate_step(kind, event, 0, rtime, ptime, v, &rc);
    if (rc != PAPI_OK)
        return papi_ret(rc);
    *count = v[0];
    *rate_out = first ? 0.0f : per_usec(v[0], rate.has_cycles >= 0 ? v[rate.has_cycles] : 0, *ptime);
    return PAPI_OK;
}

int PAPI_flips_rate(int event, float *rtime, float *ptime, long long *flpins, float *mflips)
{
    if (event != PAPI_FP_INS && event != PAPI_VEC_SP && event != PAPI_VEC_DP)
        return papi_ret(PAPI_EINVAL);
    return flxps(RATE_FLIPS, event, rtime, ptime, flpins, mflips);
}

int PAPI_flops_rate(int event, float *rtime, float *ptime, long long *flpops, float *mflops)
{
    if (event != PAPI_FP_OPS && event != PAPI_SP_OPS && event != PAPI_DP_OPS)
        return papi_ret(PAPI_EINVAL);
    return flxps(RATE_FLOPS, event, rtime, ptime, flpops, mflops);
}

int PAPI_ipc(float *rtime, float *ptime, long long *ins, float *ipc)
{
    if (!rtime || !ptime || !ins || !ipc)
        return papi_ret(PAPI_EINVAL);
    long long v[4];
    int rc;
    int first = rate_step(RATE_IPC, PAPI_TOT_INS, 0, rtime, ptime, v, &rc);
    if (rc != PAPI_OK)
        return papi_ret(rc);
    if (!first && rate.has_cycles < 0)
        return papi_ret(PAPI_ENOEVNT);
    *ins = v[0];
    long long cyc = first ? 0 : v[rate.has_cycles];
    *ipc = cyc > 0 ? (float)((double)v[0] / (double)cyc) : 0.0f;
    return PAPI_OK;
}

int PAPI_epc(int event, float *rtime, float *ptime, long long *ref, long long *core, long long *evt,
             float *epc)
{
    if (!rtime || !ptime || !ref || !core || !evt || !epc)
        return papi_ret(PAPI_EINVAL);
    if (event == 0)
        event = PAPI_TOT_INS; /* PAPI's default event */
    long long v[4];
    int rc;
    int first = rate_step(RATE_EPC, event, 1, rtime, ptime, v, &rc);
    if (rc != PAPI_OK)
        return papi_ret(rc);
    *evt = v[0];
    *core = (!first && rate.has_cycles >= 0) ? v[rate.has_cycles] : 0;
    *ref = (!first && rate.has_ref >= 0) ? v[rate.has_ref] : 0;
    *epc = *core > 0 ? (float)((double)*evt / (double)*core) : 0.0f;
    return PAPI_OK;
}

int PAPI_rate_stop(void)
{
    rate_forget_if_stale();
    if (rate.kind == RATE_NONE)
        return papi_ret(PAPI_ENOTRUN);
    rate_drop();
    return PAPI_OK;
}
