/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_io.h - the I/O and kernel units of the hpm virtual node (catalog
 * units "io" and "kernel"; BG/P's I/O node and CNK counters), counted by
 * the tool from the program's system calls (Valgrind's syscall wrappers):
 * what the kernel did, from each call's result; and the host's own
 * measurements of the program's kernel work (wall clock around the calls,
 * getrusage), which the catalog labels HOST ("measured").
 *
 * Data flow: vpmu_main.c's syscall wrappers and signal tracker call the
 * hooks below; vpmu_node.c's node values take the cumulative counts
 * (vpmu_io_node_values) and feed their deltas to the UPC at every flush,
 * as the network's counts reach it, so every I/O and kernel count that hpm
 * reports is read back from a UPC counter like the others.
 */
#ifndef HPM_VPMU_IO_H
#define HPM_VPMU_IO_H

#include "pub_tool_basics.h"

#include "catalog.h"

/* Before and after every system call of the program (sysno, its arguments,
 * and the kernel's result). */
void vpmu_io_pre_syscall(ThreadId tid, UInt sysno, const UWord *args, UInt nArgs);
void vpmu_io_post_syscall(ThreadId tid, UInt sysno, const UWord *args, UInt nArgs, SysRes res);
/* A signal is being delivered to a handler of the program. */
void vpmu_io_signal(ThreadId tid, Int signo);

/* The cumulative value of every I/O and kernel kind, written to
 * nv[kind - HPM_K_CORE_COUNT] (nv has HPM_K_NODE_COUNT entries; other
 * entries are left alone). The host's measurements are system calls:
 * getrusage is asked only with ask_host (one of its kinds is programmed),
 * and both it and the TSC's rate at most every ~5 ms of host time unless
 * vpmu_io_host_sync asked for the next values to be current (before the
 * counts are written); in between they keep the values of the last asking. */
void vpmu_io_node_values(ULong *nv, Bool ask_host);
/* The I/O and kernel units' kinds, IO_READS onwards in catalog order. */
#define VPMU_IO_KINDS (HPM_K_KERNEL_HOST_INVOL_CSWITCHES - HPM_K_IO_READS + 1)
/* Their exact counts so far (c[kind - HPM_K_IO_READS]), the host-measured
 * ones 0: what a profile gives the system call that made them (the
 * difference around each wrapper). */
void vpmu_io_exact_counts(ULong *c);
/* Whether the values vpmu_io_node_values gives may differ from those of its
 * last call: a system call or signal since, or a host refresh due. */
Bool vpmu_io_node_moved(void);
void vpmu_io_host_sync(void);

/* The program's real-time clock on the TSC (HPM_VPMU_CLOCK_SYNC): out[0]
 * the TSC and out[1] CLOCK_MONOTONIC's nanoseconds read together, out[2]
 * the nanoseconds per TSC tick (32.32 fixed point) measured since the
 * first host stamp, out[3] the ticks of VPMU_CLOCK_SYNC_NS, after which
 * the program asks again. 0, or -1 where the host's CLOCK_MONOTONIC is not
 * kept on an invariant TSC (the program then asks HPM_VPMU_CLOCK). */
#define VPMU_CLOCK_SYNC_WORDS 4
#define VPMU_CLOCK_SYNC_NS 1000000ULL
Long vpmu_io_clock_sync(ULong out[VPMU_CLOCK_SYNC_WORDS]);
/* At the tool's start: the first stamp, the rate's baseline. */
void vpmu_io_clock_init(void);

#endif /* HPM_VPMU_IO_H */
