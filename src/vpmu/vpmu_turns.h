/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_turns.h - threads interleaved in modeled time (--hpm-interleave=N;
 * vpmu_turns.c, docs/vpmu.md "Interleaving").
 *
 * The tool, not the host, decides which thread runs: turns of N
 * instructions, each given to the thread that has run the fewest
 * instructions among those able to run (not in a system call), ties to the
 * lowest thread id. Valgrind's own event counter, which a translation
 * entered from the dispatcher or by a backward jump decrements at its
 * entry, ends the holder's rounds; a thread whose turn it is not leaves at
 * its first translation's entry and gives up Valgrind's lock, so the cores' accesses reach the shared caches
 * in turns of N instructions, decided only by counts: the same on every
 * run.
 */
#ifndef HPM_VPMU_TURNS_H
#define HPM_VPMU_TURNS_H

#include "pub_tool_basics.h"

#include "vpmu_state.h"

Bool vpmu_turns_option(const HChar *arg);
void vpmu_turns_usage(void);

/* The thread starts running client code: False when it is not its turn
 * (it will leave at its first translation's entry, before counting
 * anything); the holder's run goes on with its round, or starts one. */
Bool vpmu_turns_start(ThreadId tid);
/* It stopped: the holder's run counted, and at a round's end with its turn
 * spent the turn ends and the next is picked (the translation it left at
 * runs when the thread runs again); a thread whose turn it is not gives up
 * Valgrind's lock until it is. */
void vpmu_turns_stop(ThreadId tid);
/* Before and after each of its system calls (one may block). */
void vpmu_turns_syscall(ThreadId tid, UInt sysno, const UWord *args, UInt nargs);
void vpmu_turns_syscall_done(ThreadId tid);
/* A thread's creation: the first one starts the turns (while a process has
 * one thread there is no one to hand a turn to: it runs as without turns,
 * and its clock starts at that creation). */
void vpmu_turns_thread_new(ThreadId parent, ThreadId child);
void vpmu_turns_thread_end(ThreadId tid);
/* In a forked child, tid is the only thread. */
void vpmu_turns_fork_child(ThreadId tid);

/* Coherence in modeled time (vpmu_cohtime.h). The running thread (the
 * holder) and its modeled time: the instructions it ran in turns, as far
 * as the live block's instruction lane has them (a superblock adds its
 * instructions before each side exit and at its end): the run's base
 * (vpmu_turn_stamp_base, its clock less the instructions run before the
 * run) plus the instructions run (vpmu_instr_run): a helper's three
 * loads. */
extern ThreadId vpmu_turn_holder;
extern ULong vpmu_turn_end, vpmu_turn_stamp_base;
static inline ULong vpmu_turns_stamp(ThreadId *tid)
{
    *tid = vpmu_turn_holder;
    return vpmu_turn_stamp_base + vpmu_instr_run();
}
/* No thread can log an access stamped at or below this any more: the least
 * clock of the threads able to run (a thread that comes back from a call
 * comes back at it at least); when none is, the largest clock, and *final
 * is True. */
ULong vpmu_turns_frontier(Bool *final);

/* What the output file says: the turn's length (0: off) and how many
 * turns passed from one thread to another. */
ULong vpmu_turns_quantum(void);
ULong vpmu_turns_switches(void);
/* How many times a thread came back from a blocking call at a point the
 * host chose (others ran meanwhile, or waited for it in vain): where the
 * turns still depend on the host. */
ULong vpmu_turns_host_timed(void);
/* Of those, the returns from system calls (the others were waits given
 * up): *calls of them in all, and up to max calls by number, the most
 * frequent first (sysno[], their counts n[]); returns how many listed. */
UInt vpmu_turns_host_timed_calls(UInt *sysno, ULong *n, UInt max, ULong *calls);
/* A system call's name (buf holds "syscall_N" for one the tool does not
 * name) */
const HChar *vpmu_turns_call_name(UInt sysno, HChar *buf, Int size);

#endif
