/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_modes.c - the counting modes' definitions (vpmu_modes.h; the table
 * of docs/events.md, "Counting modes").
 *
 * The clock a mode counts in is the timing model's: a core's input is seen
 * in that core's modeled cycles while the process runs (the cores run side
 * by side, each from cycle 0), and in the node's cycles once the process's
 * counts are written, when the cycles a core did not run after its last
 * one are known; a node input in the node's cycles. Per kind:
 *   - level low: the clock's cycles less the input's high cycles (its
 *     events, or its cycles for a cycles kind). A counter cannot go down:
 *     while the events run ahead of the clock (INSTRUCTIONS at a CPI below
 *     1, bytes, flops) the count stays at its highest so far;
 *   - rising and falling edges: one pulse per event of an event kind, per
 *     episode of a stall (an access served beyond the L1 by a level with a
 *     latency, a TLB refill, a mispredict, a prefetch fetched from below
 *     the L2: the additive timing model's terms, src/model/README.md), and
 *     one busy run of CYCLES and NODE_CYCLES from the first cycle, which
 *     falls when the process's counts are written.
 *
 * Copyright notice: this tool links Valgrind's coregrind and VEX (GPL-2.0).
 */
#include "catalog.h"
#include "vpmu_modes.h"

enum { SIG_EVENTS, SIG_BUSY, SIG_EPISODES };

static UInt signal_shape(UInt kind)
{
    switch (kind) {
    case HPM_K_CYCLES:
    case HPM_K_NODE_CYCLES: return SIG_BUSY;
    case HPM_K_STALL_MEM_CYCLES:
    case HPM_K_STALL_TLB_CYCLES:
    case HPM_K_STALL_BRANCH_CYCLES:
    case HPM_K_L2_CYCLES_PREFETCH_PENDING: return SIG_EPISODES;
    default: return SIG_EVENTS;
    }
}

/* A stall kind's episodes so far in core values kv. */
static ULong signal_episodes(const struct hpm_timing_params *t, UInt kind, const ULong *kv)
{
    switch (kind) {
    case HPM_K_STALL_MEM_CYCLES:
        return (t->l2_latency ? kv[HPM_K_L2_HITS] : 0) + (t->l3_latency ? kv[HPM_K_L3_HITS] : 0) +
               (t->memory_latency ? kv[HPM_K_MEM_ACCESSES] : 0);
    case HPM_K_STALL_TLB_CYCLES:
        return t->tlb_miss ? kv[HPM_K_ITLB_MISSES] + kv[HPM_K_DTLB_MISSES] : 0;
    case HPM_K_STALL_BRANCH_CYCLES: return t->mispredict ? kv[HPM_K_BR_MISPREDICTS] : 0;
    case HPM_K_L2_CYCLES_PREFETCH_PENDING:
        return t->prefetch_latency ? kv[HPM_K_L2_VALID_PREFETCHES] : 0;
    default: return 0;
    }
}

/* Counts as signed values: no modeled count comes near 2^62. */
static Long clamp(ULong v)
{
    return v > (1ULL << 62) ? (Long)(1ULL << 62) : (Long)v;
}

Long vpmu_mode_value(const struct hpm_timing_params *t, UInt kind, UInt mode, ULong x,
                     const ULong *kv, ULong node_cycles, Bool at_end)
{
    if (mode == HPM_CAT_LEVEL_LOW)
        return clamp(kv && !at_end ? kv[HPM_K_CYCLES] : node_cycles) - clamp(x);
    switch (signal_shape(kind)) {
    case SIG_BUSY: return x > 0 && (mode == HPM_CAT_EDGE_RISE || at_end);
    case SIG_EPISODES: return kv ? clamp(signal_episodes(t, kind, kv)) : 0;
    default: return clamp(x);
    }
}

/* An edge counter's pulses are one cycle each with a low cycle after: the
 * batch ends low, so no pulse continues into the next batch. */
ULong vpmu_mode_cycles_needed(UInt mode, ULong inc)
{
    return mode == HPM_CAT_LEVEL_LOW ? inc : 2 * inc;
}

void vpmu_mode_signal(UInt mode, ULong inc, ULong n, ULong *k, ULong *p)
{
    if (mode == HPM_CAT_LEVEL_LOW) {
        *k = n - inc; /* high first, low for the batch's last inc cycles */
        *p = *k != 0;
    } else {
        *k = *p = inc;
    }
}
