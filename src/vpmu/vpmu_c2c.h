/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_c2c.h - the profile's contended cache lines (hpm profile's c2c
 * view, docs/vpmu.md "Coherence"): the node model's per-line, per-core
 * bytes, coherence misses and invalidations, with each line's data object,
 * written as prof_c2c records (vpmu_format.h).
 */
#ifndef HPM_VPMU_C2C_H
#define HPM_VPMU_C2C_H

#include "pub_tool_basics.h"
#include "vpmu_out.h"

/* Register the two below with the profile (vpmu_prof_sink_c2c), after
 * vpmu_prof_init. */
void vpmu_c2c_init(void);
/* A heap block [start, start + size) of the object (where, where2) is
 * freed: the contended lines it holds keep its name. */
void vpmu_c2c_heap_freed(Addr start, SizeT size, Addr where, Addr where2);
/* The prof_c2c_lines, prof_c2c and prof_c2c_core records (nothing when the
 * node keeps no contended lines). */
void vpmu_c2c_write(Out *o);
/* The shared_lines and shared_line records of every run (hpm count's
 * report): nothing when no line was contended. */
void vpmu_c2c_write_shared(Out *o);

#endif
