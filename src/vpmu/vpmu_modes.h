/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_modes.h - what a counter in a counting mode other than level high
 * counts (vpmu_modes.c; docs/events.md, "Counting modes"), and the signal
 * that gives a batch's share of it. A leaf: the node (vpmu_node_upc.c) keeps
 * the values and feeds the units.
 *
 * A mode's count is defined on the modeled counts alone, cumulatively, so
 * that it does not depend on where flushes cut the run into batches nor on
 * the other events programmed: the node feeds each mode counter what its
 * definition moved since the last flush, through a signal of its own input
 * on its own unit (an input reaches one counter per unit, so no other
 * counter sees that signal).
 */
#ifndef HPM_VPMU_MODES_H
#define HPM_VPMU_MODES_H

#include "pub_tool_basics.h"
#include "model.h"

/* The count that kind `kind` in mode `mode` (not level high) has now, from
 * the kind's value x, its core's kind values kv (NULL for a node kind) and
 * the node's cycles; at_end: the process's counts are being written (a
 * core's idle cycles after its last one are known then). Negative while a
 * level-low input's events run ahead of its clock. */
Long vpmu_mode_value(const struct hpm_timing_params *t, UInt kind, UInt mode, ULong x,
                     const ULong *kv, ULong node_cycles, Bool at_end);

/* The cycles a batch needs to add inc to a counter in mode `mode`. */
ULong vpmu_mode_cycles_needed(UInt mode, ULong inc);

/* The signal that adds inc to a counter in mode `mode` in a batch of n
 * cycles (n >= vpmu_mode_cycles_needed): k high cycles in p pulses
 * (hpm_upc_advance_signals), ending low when an edge mode counts it. */
void vpmu_mode_signal(UInt mode, ULong inc, ULong n, ULong *k, ULong *p);

#endif /* HPM_VPMU_MODES_H */
