/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_mpx.h - event sets cycled in one run every PERIOD correlate events
 * (--hpm-mpx; vpmu_mpx.c, docs/events.md "Multiplexing").
 */
#ifndef HPM_VPMU_MPX_H
#define HPM_VPMU_MPX_H

#include "pub_tool_basics.h"
#include "vpmu_out.h"

extern Bool vpmu_mpx_armed; /* superblocks check for the next switch */

Bool vpmu_mpx_option(const HChar *arg);
void vpmu_mpx_usage(void);
/* After the node is set up with the union of the sets (--hpm-events):
 * programs set 0. */
void vpmu_mpx_init(void);
/* Dirty helper at a superblock's start: 1 when it switched sets. */
UWord vpmu_mpx_check(void);
/* --hpm-mpx was given: the output's counts come from vpmu_mpx_write. */
Bool vpmu_mpx_on(void);
/* At exit: the last interval's counts. */
void vpmu_mpx_finish(void);
/* The count records (each spec over its set's intervals) and the mpx ones. */
void vpmu_mpx_write(Out *o);

#endif
