/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_upctrace.h - the UPC's input stream, written for hpm upc-explore
 * (docs/upc.md, "Design exploration").
 *
 * --hpm-upc-trace=FILE (%p: the pid) writes every batch the node feeds its
 * UPC units (vpmu_node_flush): the batch's cycles and each moved event's
 * code and delta, exactly what hpm_upc_advance_sparse is given, so that a
 * replay through the UPC library with other parameters sees the program's
 * own stream. Format (text, one record a line):
 *     hpm-upc-trace 1               at the start of every process image
 *     e CODE CODE ...               the programmed events
 *     b CYCLES RUN CODE:DELTA ...   a batch; RUN 0 when counting is stopped
 */
#ifndef HPM_VPMU_UPCTRACE_H
#define HPM_VPMU_UPCTRACE_H

#include "pub_tool_basics.h"

struct hpm_upc;


Bool vpmu_upctrace_option(const HChar *arg);
void vpmu_upctrace_usage(void);
/* One batch of `cycles` cycles: events evs[0..n) moved, event i by
 * deltas[i] on input codes[i]; u is a unit of the node (its run bit),
 * NULL when none. */
void vpmu_upctrace_batch(const struct hpm_upc *u, ULong cycles, UInt n, const UShort *evs,
                         const UShort *codes, const ULong *deltas);
/* Write what is buffered and close (before the output file, at exit and
 * exec). */
void vpmu_upctrace_close(void);

#endif
