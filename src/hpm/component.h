/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * component.h - the one interface every libhpm counter source implements.
 *
 * Modelled on PAPI's component vector (papi_vector_t): a table of function
 * pointers, probed once at hpm_init(), that knows its events and keeps a
 * per-set control state of set_size bytes which the core allocates. The
 * core (src/hpm/core.c, set.c, ...) owns everything a component need not know:
 * set handles, which thread runs what, the HPM_ECONFLICT rule, frozen values
 * of stopped sets, accumulation, the overflow signal and the software
 * overflow timer, regions.
 *
 * Life of a set, as the core drives it:
 *
 *   set_init(st)                       once, when the first event fixes the
 *                                      set's component
 *   set_update(st, events, n, opts)    after every add/remove/option change,
 *                                      on a stopped set: validate and program
 *                                      (HPM_ENOTSUP/HPM_EPERM/HPM_ECOUNTERS
 *                                      refuse the change; the core then
 *                                      restores the previous list). Clears
 *                                      every overflow threshold.
 *   set_overflow(st, pos, threshold)   native overflow of one position, on a
 *                                      stopped set (0 clears it). HPM_ENOTSUP:
 *                                      the core checks it in software instead.
 *   start(st, &native_failed)          count for the calling thread (or the
 *                                      attached one) from now; arm native
 *                                      overflow. Positions whose arming the
 *                                      counter source refused right now are
 *                                      set in native_failed: the core falls
 *                                      back to software for them.
 *   read(st, values)                   counts since start or the last reset
 *                                      (HPM_EVENT_INSTANT: the current level).
 *                                      Must be async-signal-safe: the overflow
 *                                      handler calls it.
 *   reset(st)                          counts start again from 0 (re-arms)
 *   read_reset(st, values)             read, and count again from that
 *                                      reading (optional)
 *   stop(st, values)                   read, then stop counting, disarm
 *   cleanup(st)                        release everything (fds, timers)
 *
 * A component never reports zeros for what it cannot count: read fails with
 * a negative HPM_E* code instead.
 */
#ifndef HPM_COMPONENT_H
#define HPM_COMPONENT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hpm/hpm.h"

/* The options of a set a component has to honour (hpm_set_domain, ...). */
struct hpm_set_opts {
    unsigned domain; /* HPM_DOMAIN_*, never 0 */
    pid_t attach;    /* 0: the thread that starts the set */
    int cpu;         /* 0: not a CPU's set; n > 0: CPU n - 1 (hpm_set_cpu) */
    int inherit;
    int multiplex;
};

/* ci_flags: how the core must treat a component's sets. */
#define HPM_CI_THREAD_BOUND 0x1u /* a running set reads the counts of the calling
                                    thread: only its starting thread may read,
                                    stop, reset or accumulate it */
#define HPM_CI_OVF_BY_COUNT 0x2u /* a native overflow signal does not say which
                                    event passed its threshold: the core finds out
                                    from the counts (sim); otherwise the component
                                    says, in overflow_dispatch (perf) */
#define HPM_CI_SHARED_COUNTERS 0x8u /* with HPM_CI_THREAD_BOUND: the component
                                    info's num_counters are the thread's, shared
                                    by its running sets, so several sets run at
                                    once on a thread while their events fit (sim:
                                    the UPC units' counters); a set holds up to
                                    num_counters events. Without it one set of
                                    the component runs per thread and a set
                                    holds up to HPM_COMP_MAX_EVENTS */
#define HPM_CI_OVF_FROZEN 0x10u /* the component's own overflow signal freezes
                                    the thread's counts until the handler returns
                                    (sim, seed 002's fast overflow): every
                                    threshold passed is owed its call */
#define HPM_CI_FORK_LOCAL 0x20u /* the counts are this process's own and a child
                                    of fork() starts its own over (sim: the
                                    tool's counts of the child; os: the
                                    child's rusage), and reset touches
                                    nothing the parent shares: in the child
                                    the forking thread's running sets are
                                    reset, so that they count the child from
                                    the fork on (hpm__sets_fork_child). Not
                                    perf: its descriptors still count the
                                    parent, and a reset would reset the
                                    parent's counts */
#define HPM_CI_NAMED_ONLY 0x4u   /* its events resolve only with its prefix
                                    ("sde::LIB::COUNTER"), never in a search of
                                    every component by a bare name (sde) */

struct hpm_component {
    const char *name; /* "sim", "perf", "os": the prefix of event names */
    unsigned ci_flags;
    size_t set_size; /* bytes of per-set control state */

    /* Probe. Fill info (all but id, name, enabled, disabled_reason) and return
     * HPM_OK when the component can count here; otherwise a negative code and
     * a sentence in reason. Never fails because another component failed. */
    int (*init)(struct hpm_component_info *info, char *reason, size_t reason_len);
    void (*shutdown)(void);

    /* Events, by the component's own index (HPM_EVENT_INDEX). */
    int (*event_first)(uint32_t *index);
    int (*event_next)(uint32_t *index); /* HPM_ENOEVENT after the last */
    /* name has no "COMPONENT::" prefix. HPM_ENOEVENT if unknown; HPM_ENOCOMP if
     * the component knows the name but cannot count it here (disabled, or the
     * part of it that has the event is). Called for disabled components too. */
    int (*event_lookup)(const char *name, uint32_t *index);
    /* Fill name (without prefix), description, units, flags. */
    int (*event_describe)(uint32_t index, struct hpm_event_info *info);

    /* Sets (see the life cycle above). */
    int (*set_init)(void *st);
    int (*set_update)(void *st, const uint32_t *events, int n, const struct hpm_set_opts *opts);
    int (*set_overflow)(void *st, int pos, int64_t threshold);
    int (*start)(void *st, uint64_t *native_failed);
    int (*stop)(void *st, int64_t *values);
    int (*read)(void *st, int64_t *values);
    /* read, written as long long (hpm_read_direct_ll: PAPI_read's values
     * without a copy). Optional: NULL where no caller needs it. */
    int (*read_ll)(void *st, long long *values);
    /* Optional (hpm_read_direct_sums_ll): keep the terms (checked by the
     * core: pos below the set's events, out below nout, every out with a
     * term), then read_sums_ll writes the sums as read_ll writes counts.
     * HPM_ENOTSUP where the component cannot sum these terms. */
    int (*sums_set)(void *st, const struct hpm_sum_term *terms, int nterms, int nout);
    int (*read_sums_ll)(void *st, long long *values);
    int (*reset)(void *st);
    /* read, then the counts start again from that same reading (the
     * accumulating calls: nothing counted between the read and the reset
     * is lost, and one read instead of two). Optional: NULL, and the core
     * reads, then resets. Not called for a set with overflow. */
    int (*read_reset)(void *st, int64_t *values);
    /* In signal context, for a running set with native overflow and without
     * HPM_CI_OVF_BY_COUNT: the positions this signal is for (0 if none). */
    uint64_t (*overflow_dispatch)(void *st, const siginfo_t *si);
    /* In signal context, for the component's own overflow signal, which is
     * owed `want` (>= 1) handler calls: the instruction addresses where
     * those thresholds passed, in call order (at most want); how many it
     * knows. 0: not its signal, or no address known (the handler gets the
     * interrupted PC). */
    int (*overflow_where)(void *st, const siginfo_t *si, uint64_t *addrs, int want);
    /* Outside any signal, on the thread that changed counter `index` of this
     * component to `value` (sde: libsde's call when a created counter
     * grows, hpm__ovf_changed): the positions of a running set with native
     * overflow whose threshold that passed (0 if none). Optional. */
    uint64_t (*overflow_changed)(void *st, uint32_t index, long long value);
    void (*cleanup)(void *st);

    /* What the core asks of a component beyond counting. */
    /* A region of the calling thread begins (begin = 1) or ends: pass it on
     * to a counter source that reports regions of its own (sim: the tool, so
     * that `hpm count` reports them). HPM_OK: taken, and the matching end
     * comes here too. Called for disabled components too, before the
     * region's first read and after its last. */
    int (*region)(const char *name, int begin);
    /* The machine this component's counts come from when it is not this
     * host (sim: the machine model): fill info, or HPM_ENOTSUP. Asked of
     * enabled components in table order; the first other answer is
     * hpm_machine_info's (an error included: then the host is not the
     * machine counted). */
    int (*machine_info)(struct hpm_machine_info *info);
    /* Gate the counting by where the program is (hpm_gate; enum hpm_gate):
     * code for START_AT, STOP_AT, ONLY; index (this component's) and n for
     * TRIGGER. HPM_ENOTSUP when the component cannot (the default). */
    int (*gate)(int which, const void *code, uint32_t index, uint64_t n);
};

/* Optional slots: shutdown, set_overflow, overflow_dispatch, overflow_where,
 * overflow_changed, region, machine_info and gate may be NULL. hpm_init fills them in its copy of the entry
 * (as PAPI fills a component vector) with defaults that do nothing or
 * answer HPM_ENOTSUP, so the core calls every slot without a check. */

/* The component table, in hpm_component_info order: the one list of
 * components. core.c makes the table from it and HPM_NCOMP
 * (hpm_internal.h) counts it; nothing else of the core names a component.
 * sim comes first, so that a bare name ("INSTRUCTIONS") means the virtual
 * PMU's event when the program runs under it. */
#define HPM_COMPONENTS(X) \
    X(hpm_comp_sim) X(hpm_comp_perf) X(hpm_comp_os) X(hpm_comp_sde) X(hpm_comp_appio) \
    X(hpm_comp_sysdetect) X(hpm_comp_uncore)

#define HPM_COMP_DECLARE(c) extern const struct hpm_component c;
HPM_COMPONENTS(HPM_COMP_DECLARE)
#undef HPM_COMP_DECLARE

#endif
