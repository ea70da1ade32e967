/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_profile.h - exact attribution of every counted event to the
 * instruction that caused it (hpm profile; docs/vpmu.md, "Profiles").
 *
 * Each guest instruction has a cost center. Its share of an event comes
 * from the same places as the totals, so the shares add up to the totals:
 *   - static counts (instructions, loads, FP ops, ...) are counted per SB
 *     segment by the instrumentation; a profile adds one counter per segment
 *     (vpmu_prof_segment) that says how often it ran, and at the end each
 *     item (instruction, event, n) of the segment gets count * n (a
 *     conditional branch's taken count too: the runs reaching its exit
 *     less, or only, those passing it, n = +1 and -1);
 *   - counts added by guarded IR (guarded loads and stores, a REP
 *     instruction's one count) are added to the instruction's own slot by
 *     the same guard;
 *   - model statistics (cache, TLB, predictor) are what the instruction's
 *     model calls changed (vpmu_node.c, prof_delta).
 * Modeled kinds are then computed per instruction from these by the same
 * function as the totals (vpmu_node_prof_kinds).
 */
#ifndef HPM_VPMU_PROFILE_H
#define HPM_VPMU_PROFILE_H

#include "pub_tool_basics.h"
#include "vpmu_out.h"


Bool vpmu_prof_option(const HChar *arg);
void vpmu_prof_usage(void);
/* After the node is set up. */
void vpmu_prof_init(void);

struct vpmu_cc;
/* The cost center of the instruction at a (made on first use). */
struct vpmu_cc *vpmu_prof_cc(Addr a);
/* The slot of a dynamically added event (guarded adds), or NULL. */
ULong *vpmu_prof_dyn_slot(struct vpmu_cc *cc, Int ev);
/* Where its model calls' statistic changes go (vpmu_prof_sink). */
ULong *vpmu_prof_raw_slot(struct vpmu_cc *cc);

/* The instruction whose cost center's raw slot is sink (vpmu_prof_sink):
 * the instruction running a model call (precise samples, vpmu_sample.c). */
Addr vpmu_prof_sink_addr(const ULong *sink);
/* The running thread's open calls, innermost first: the call instructions'
 * addresses (at most max). */
UInt vpmu_prof_callchain(Addr *sites, UInt max);

/* One static item of a segment: instruction cc counted n of event ev each
 * time the segment ran (n < 0: a conditional branch's taken count is one
 * segment's runs less the next one's). */
struct vpmu_prof_item {
    struct vpmu_cc *cc;
    UInt ev;
    Int n;
};
/* A new segment of these items; returns the address of its execution
 * counter, which the instrumented code increments. */
ULong *vpmu_prof_segment(const struct vpmu_prof_item *items, UInt n);

/* Call graph (dirty helpers): a call at site to target, leaving the stack
 * pointer at sp; a return leaving it at sp; a thread ends. */
void vpmu_prof_call(struct vpmu_cc *site, Addr target, Addr sp, ULong rdi, ULong rsi);
void vpmu_prof_ret(Addr sp, ULong rax);
/* A jump to target: a call when target is a function's entry (a tail
 * call); vpmu_prof_is_entry answers at translation for a constant one. */
void vpmu_prof_jump(struct vpmu_cc *site, Addr target, Addr sp, ULong rdi, ULong rsi);
Bool vpmu_prof_is_entry(Addr a);
/* At translation: the instruction of cc is a direct branch (cond: a
 * conditional one) to target: an edge of the control-flow graph, whose
 * loops hpm finds (written as prof_jump with its exact counts). */
void vpmu_prof_branch(struct vpmu_cc *cc, Addr target, Bool cond);
/* The same with the branch predictor's part of the instruction at site
 * first (vpmu_node_call, vpmu_node_branch), in one helper call: a
 * profile's calls, returns and indirect jumps were two each. ret_ind: the
 * return address, the top bit set for an indirect call. */
void vpmu_prof_call_bp(struct vpmu_cc *site, Addr target, Addr sp, ULong rdi, ULong rsi,
                       ULong ret_ind);
void vpmu_prof_ret_bp(struct vpmu_cc *site, Addr target, Addr sp, ULong rax);
void vpmu_prof_jump_bp(struct vpmu_cc *site, Addr target, Addr sp, ULong rdi, ULong rsi);
void vpmu_prof_thread_end(ThreadId tid);
/* What the I/O and kernel units counted (exact counts, VPMU_IO_KINDS of
 * them, vpmu_io.h) in a system call wrapper of thread tid whose system
 * call instruction is at site: the instruction's, and its open calls'. */
void vpmu_prof_io(ThreadId tid, Addr site, const ULong *counted);
/* The live block is about to be folded into the core's totals (or the
 * running core to change): the call graph's packed snapshots are made
 * whole first. */
void vpmu_prof_fold(void);

/* Data objects (vpmu_dataobj.c): where the statistic changes of a data
 * access to a go (the heap block's allocation site, a global's line, the
 * stack, other). The
 * allocator calls (malloc, free, ...) are followed through the call graph:
 * observed, never replaced, so the program runs as under hpm count. */
ULong *vpmu_prof_data_raw(Addr a);
/* The data object holding a (vpmu_prof_data_raw's; raw: its answer for a
 * when the caller has it, else NULL): its kind (0 heap, 1 global, 2 stack,
 * 3 other), where and where2 as prof_data writes them, its mapping
 * (globals). For a sample's data address (vpmu_sample.c). */
void vpmu_prof_data_object(Addr a, const ULong *raw, UInt *kind, Addr *where, Addr *where2,
                           UInt *obj);
/* The heap block holding a, if any: its first byte and its object's
 * where and where2 (the contended lines' objects, vpmu_c2c.c). */
Bool vpmu_prof_heap_block(Addr a, Addr *start, Addr *where, Addr *where2);
/* The data object holding a, as vpmu_prof_data_object answers, when no
 * thread may be running (the end): a stack is any live thread's. */
void vpmu_prof_data_object_any(Addr a, UInt *kind, Addr *where, Addr *where2, UInt *obj);
/* A data access to a goes to the models: vpmu_prof_data_raw's first
 * memory (its line's remembered answer) asked for before they run. */
void vpmu_prof_data_prefetch(Addr a);
/* Valgrind read a file's debug information (where a .bss ends). */
void vpmu_prof_debuginfo_read(void);
/* The client's address space changed (a mapping came, went, moved or
 * changed its protection; the brk moved): which mapping holds a line. */
void vpmu_prof_memory_changed(void);
/* [a, a + len) was unmapped, or mapped anew over what was there: the code
 * that ran there (a dlclose'd library) keeps its cost centers, call arcs
 * and object, and code that runs there later (the library the loader maps
 * at the same address) gets new ones, of the object mapped then. */
void vpmu_prof_unmapped(Addr a, SizeT len);

/* The global start/stop and reset of the counters: what runs while the
 * counters are stopped is not in the profile, as it is not in the totals. */
void vpmu_prof_stop(void);
void vpmu_prof_start(void);
void vpmu_prof_reset(void);

/* The profile records (vpmu_format.h) of everything so far. */
void vpmu_prof_write(Out *o);
/* The contended lines (vpmu_c2c.c) take part through functions they
 * register at start (vpmu_c2c_init), as the node's sinks do: told of every
 * heap block freed, and writing their records at the end of the profile's.
 * They ask the profile for data objects; through these the profile does not
 * call them back (tests/vpmu: vpmu.no_cycles). */
typedef void (*vpmu_prof_heap_freed_sink)(Addr start, SizeT size, Addr where, Addr where2);
typedef void (*vpmu_prof_records_sink)(Out *o);
void vpmu_prof_sink_c2c(vpmu_prof_heap_freed_sink freed, vpmu_prof_records_sink write);

#endif
