/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_sample.h - precise sampling (hpm record; docs/vpmu.md, "Sampling").
 *
 * --hpm-sample=KIND:PERIOD,... counts the memory events of each kind per
 * thread as the node's models decide them (vpmu_node.c calls
 * vpmu_sample_access for every data access and every instruction fetch
 * that reaches the models) and takes a sample at every PERIOD-th one: the
 * exact instruction (the profile's cost center that runs the model call),
 * the data address, thread, core, modeled time and the call chain.
 *
 * Every other per-core kind (instructions, cycles and stalls, branches and
 * mispredicts, FP and integer classes, system calls, ...) is sampled at the
 * end of each instruction that can change it: the instrumentation adds a
 * call of vpmu_sample_insn there (only when such a kind is sampled), with
 * the static counts of the superblock segment not yet added to the live
 * block, so the helper sees the core's exact state after that instruction
 * and the instruction that made the kind's count cross the period.
 *
 * At most --hpm-sample-limit samples per modeled second per core are kept;
 * the others are counted per kind as throttled. Needs --hpm-profile=yes.
 */
#ifndef HPM_VPMU_SAMPLE_H
#define HPM_VPMU_SAMPLE_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "vpmu_events.h"
#include "vpmu_out.h"


Bool vpmu_sample_option(const HChar *arg);
void vpmu_sample_usage(void);
/* After the node and the profile are set up: checks the kinds against the
 * models that run (a kind no model decides is an error). */
void vpmu_sample_init(void);

/* One access of kind HPM_IFETCH/HPM_LOAD/HPM_STORE at data address a (0 for
 * a fetch), served at level served (HPM_SERVED_*), tlb_miss when its TLB
 * missed; raw: its data object's raw vector where the profile looked it
 * up (vpmu_prof_data_raw), else NULL. Sampled while vpmu_prof_sink names
 * the running instruction; counted in the latency histogram in any case. */
void vpmu_sample_access(Int kind, Addr a, Int served, Bool tlb_miss, const ULong *raw);

/* The model calls an instruction made (vpmu_sample_mark's models). */
enum { VPMU_SAMPLE_MEM = 1, VPMU_SAMPLE_IFETCH = 2, VPMU_SAMPLE_BRANCH = 4 };
/* At translation, the end of the instruction at insn (it retired when
 * control passes here): ev is the bit set (1 << VPMU_EV_*) of the exact
 * events it added, models the VPMU_SAMPLE_* bits of its model calls; pend
 * the static counts of the segment not yet added to the live block. Adds
 * the call of vpmu_sample_insn to sb when a sampled kind may have changed
 * (for exact kinds only when the live block says a threshold may be
 * reached: see vpmu_sample_fold). */
void vpmu_sample_mark(IRSB *sb, Addr insn, UInt ev, UInt models, const ULong *pend);
/* The live block was folded into the core's totals (vpmu_fold) for thread
 * tid: what the exact kinds advanced since the last instruction end goes
 * to tid, and the next marks call the sampler again. */
void vpmu_sample_fold(ThreadId tid);

/* A client mapping [a, a + len) was made (exec: executable): a file's
 * code is written with its modeled time (sample_mmap). */
void vpmu_sample_mmap(Addr a, SizeT len, Bool exec);

void vpmu_sample_thread_end(ThreadId tid);
/* A forked child starts with no samples and fresh countdowns. */
void vpmu_sample_fork_child(void);
/* The sample records (vpmu_format.h) since the last write; the buffer is
 * emptied (a segment written before an exec keeps its own). */
void vpmu_sample_write(Out *o);

#endif
