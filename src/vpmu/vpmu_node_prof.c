/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_node_prof.c - the node's side of a profile (vpmu_profile.c): the
 * snapshots its deltas are taken between, each core's exact events (the
 * live block's lanes included) and the models' statistics as the access
 * helpers left them (prof_delta, vpmu_node.c, follows every change into
 * node.prof_last_core and node.prof_last_node), and the kinds of a share.
 *
 * Apart from the access helpers because a profile reads these at calls and
 * returns, not per access; the helpers call nothing here.
 *
 * Copyright notice: this tool links Valgrind's coregrind and VEX (GPL-2.0).
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"

#include "vpmu_cohtime.h"
#include "vpmu_node_int.h"

void vpmu_node_prof_init(void)
{
    UInt c, e;
    node.prof_last_core = node_zalloc("hpm.prof.last", node.n_cores * sizeof *node.prof_last_core);
    node.prof_base_lane = node_zalloc("hpm.prof.lanes", node.n_cores * sizeof *node.prof_base_lane);
    for (c = 0; c < node.n_cores; c++)
        for (e = 0; e < VPMU_EV_COUNT; e++)
            node.prof_base_lane[c][vpmu_live_slot((Int)e)] = node.cores[c].ev[e];
    for (c = 0; c < node.n_cores; c++) {
        ULong raw[VPMU_PR_N];
        node_raw_core(c, raw);
        VG_(memcpy)(node.prof_last_core[c], raw, sizeof node.prof_last_core[c]);
    }
    node_raw_node(node.prof_last_node);
}

void vpmu_node_prof_kinds(const ULong *raw, const ULong *ev, ULong *kv, ULong *nv)
{
    core_kinds_from_raw(raw, ev, kv);
    VG_(memset)(nv, 0, HPM_K_NODE_COUNT * sizeof *nv); /* the network's, I/O's and kernel's */
    node_kinds_from_raw(raw, nv);
    /* the node's cycles are its busiest core's: an instruction's share is
     * its own cycles */
    nv[HPM_K_NODE_CYCLES - HPM_K_CORE_COUNT] = kv[HPM_K_CYCLES];
}

Bool vpmu_node_coh_time(ULong *logged, ULong *misses)
{
    *logged = vpmu_cohtime_logged();
    *misses = node.coh_replayed_misses;
    return node.clo_coh_time; /* asked for: none logged where no model keeps the lines */
}

UInt vpmu_node_cur_core(void)
{
    return node.cur_core;
}

void vpmu_node_prof_snapshot(UInt core, ULong *ev, ULong *raw)
{
    const ULong *base = node.cores[core].ev;
    UInt w, i;
    /* word by word, both lanes at constant shifts: a snapshot is taken at
     * every call and return of a profile */
    if (core == node.cur_core) {
        for (w = 0; w < VPMU_LIVE_WORDS; w++) {
            ULong v = vpmu_state.live[w];
            UInt lo = node.live_event[2 * w], hi = node.live_event[2 * w + 1];
            ev[lo] = base[lo] + (v & 0xffffffffULL);
            ev[hi] = base[hi] + (v >> 32);
        }
    } else {
        for (i = 0; i < VPMU_EV_COUNT; i++)
            ev[i] = base[i];
    }
    ev[VPMU_EV_BR_COND_NOT_TAKEN] = ev[VPMU_EV_BR_COND] - ev[VPMU_EV_BR_COND_TAKEN];
    vpmu_node_prof_snapshot_raw(core, raw);
}

void vpmu_node_prof_lanes_of(UInt core, const ULong *live, ULong *ev_lanes)
{
    const ULong *base = node.prof_base_lane[core];
    UInt w;
    for (w = 0; w < VPMU_LIVE_WORDS; w++) {
        ULong v = live[w];
        ev_lanes[2 * w] = base[2 * w] + (v & 0xffffffffULL);
        ev_lanes[2 * w + 1] = base[2 * w + 1] + (v >> 32);
    }
}

void vpmu_node_prof_snapshot_raw(UInt core, ULong *raw)
{
    UInt i;
    /* every change of the statistics has been followed into these (the
     * profile's deltas): no need to read the models */
    for (i = 0; i < VPMU_PR_CORE_N; i++)
        raw[i] = node.prof_last_core[core][i];
    for (; i < VPMU_PR_N; i++)
        raw[i] = node.prof_last_node[i];
}

const ULong *vpmu_node_prof_last_core(UInt core)
{
    return node.prof_last_core[core];
}

const ULong *vpmu_node_prof_last_node(void)
{
    return node.prof_last_node;
}

void vpmu_node_prof_snapshot_lanes(UInt core, ULong *ev_lanes, ULong *raw)
{
    if (core == node.cur_core)
        vpmu_node_prof_lanes_of(core, vpmu_state.live, ev_lanes);
    else
        VG_(memcpy)(ev_lanes, node.prof_base_lane[core], sizeof node.prof_base_lane[0]);
    vpmu_node_prof_snapshot_raw(core, raw);
}
