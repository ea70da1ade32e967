/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_node_mmio.c - the node's UPCs as a program and the tool see them:
 * start, stop and reset, the memory-mapped registers (HPM_VPMU_UPC_READ
 * and _WRITE), the events' values read back, and the accounting's
 * per-core credit.
 *
 * Apart from the feeding (vpmu_node_upc.c) because it only reads the units
 * that the feeding advanced: a register access or a read between flushes
 * changes no input, and the feeding calls nothing here.
 *
 * Copyright notice: this tool links Valgrind's coregrind and VEX (GPL-2.0).
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"

#include "vpmu_node_int.h"

/* What the last read of each event's UPC counter gave (vpmu_node_core_values
 * reads back only the stale ones: a counter that no batch moved and no
 * register access touched reads the same, parity and lost carries
 * included). */
static ULong ev_read[HPM_CAT_CODES];

UInt vpmu_node_n_events(void)
{
    return prog.n_ev;
}

Int vpmu_node_event_code(UInt i)
{
    return i < prog.n_ev ? (Int)hpm_catalog_spec(prog.ev_code[i], prog.ev_mode[i]) : -1;
}

ULong vpmu_node_event_value(UInt i)
{
    uint64_t v = 0;
    node_feed_gathered();
    if (i >= prog.n_ev)
        return 0;
    /* EPARITY leaves v at 0; ELOSTCARRY gives what the hardware holds.
     * Both are reported per unit (vpmu_node_upc_health). */
    (void)hpm_upc_read(prog.upcs[prog.ev_upc[i]], prog.ev_counter[i], &v);
    return v;
}

/* Event i's UPC value, read again only when it may have changed. */
static ULong event_value_cached(UInt i)
{
    if (prog.ev_stale[i]) {
        ev_read[i] = vpmu_node_event_value(i);
        prog.ev_stale[i] = 0;
    }
    return ev_read[i];
}

UInt vpmu_node_core_values(UInt core, UInt *kinds, ULong *values)
{
    UInt k, n = 0;
    if (core >= HPM_CAT_MAX_CORES)
        return 0;
    node_feed_gathered();
    for (k = 0; k < HPM_K_CORE_COUNT; k++) {
        if (prog.core_kind_ev[core][k] == NOT_PROGRAMMED)
            continue;
        kinds[n] = k;
        values[n++] = event_value_cached(prog.core_kind_ev[core][k]);
    }
    return n;
}

void vpmu_node_core_credit(UInt core, ULong *seen, ULong *u)
{
    ULong due;
    if (core >= HPM_CAT_MAX_CORES)
        return;
    due = prog.credit_due[core];
    prog.credit_due[core] = 0;
    if (due)
        node_feed_gathered();
    while (due) {
        UInt k = (UInt)__builtin_ctzll(due), i = prog.core_kind_ev[core][k];
        ULong v;
        due &= due - 1;
        if (i == NOT_PROGRAMMED)
            continue;
        v = event_value_cached(i);
        u[k] += v > seen[k] ? v - seen[k] : 0;
        seen[k] = v;
    }
}

/* The run bit moves no counter: what was read stays valid (an overflow
 * handler's freeze and thaw, at every interrupt, read back nothing). */
void vpmu_node_start(void)
{
    UInt u;
    node_feed_gathered();
    for (u = 0; u < prog.n_upcs; u++)
        hpm_upc_start(prog.upcs[u]);
}

void vpmu_node_stop(void)
{
    UInt u;
    node_feed_gathered();
    for (u = 0; u < prog.n_upcs; u++)
        hpm_upc_stop(prog.upcs[u]);
}

void vpmu_node_reset(void)
{
    UInt u;
    node_feed_gathered();
    for (u = 0; u < prog.n_upcs; u++)
        hpm_upc_reset_counters(prog.upcs[u]);
    node_upc_touched();
    node_modes_rebase();
}

Int vpmu_node_mmio_read(UInt upc, ULong offset, ULong *value)
{
    uint64_t v = 0;
    Int rc;
    node_feed_gathered();
    if (upc >= prog.n_upcs)
        return HPM_UPC_EUNMAPPED;
    rc = hpm_upc_mmio_read(prog.upcs[upc], offset, &v);
    *value = v;
    node_upc_touched(); /* a status register read may clear what it reports */
    return rc;
}

Int vpmu_node_mmio_write(UInt upc, ULong offset, ULong value)
{
    node_feed_gathered();
    if (upc >= prog.n_upcs)
        return HPM_UPC_EUNMAPPED;
    node_upc_touched();
    return hpm_upc_mmio_write(prog.upcs[upc], offset, value);
}

Bool vpmu_node_programmed(UInt code)
{
    return code < HPM_CAT_CODES && prog.lh_index[code] >= 0;
}

UInt vpmu_node_n_upcs(void)
{
    return prog.n_upcs;
}

void vpmu_node_upc_health(UInt upc, UInt *counters, ULong *lost_carries, UInt *parity_errors)
{
    UInt i, n = 0, par = 0;
    ULong lost = 0;
    tl_assert(upc < prog.n_upcs);
    node_feed_gathered();
    for (i = 0; i < prog.n_ev; i++) {
        uint64_t v;
        if (prog.ev_upc[i] != upc)
            continue;
        n++;
        lost += hpm_upc_lost_carries(prog.upcs[upc], prog.ev_counter[i]);
        if (hpm_upc_read(prog.upcs[upc], prog.ev_counter[i], &v) == HPM_UPC_EPARITY)
            par++;
    }
    *counters = n;
    *lost_carries = lost;
    *parity_errors = par;
}
