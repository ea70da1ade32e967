/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_procs.h - what a process of the tree knows of the tree and hpm
 * cannot see (records in vpmu_format.h, read by tools/hpm/count_procs.c):
 *   - the children it reaped that a signal killed: a child killed by
 *     SIGKILL writes no output, and its parent, not hpm, waits for it;
 *   - an execve whose program runs natively (--trace-children-skip): the
 *     new image writes no output, so the segment written before the exec
 *     names the program instead;
 *   - --hpm-children=no (hpm's --no-children): the programs that forked
 *     children exec run natively, not under the tool, while the program's
 *     own process still follows its execs.
 */
#ifndef HPM_VPMU_PROCS_H
#define HPM_VPMU_PROCS_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "vpmu_out.h"

Bool vpmu_procs_option(const HChar *arg);
void vpmu_procs_usage(void);
/* The system call wrappers (before the tool's others: an execve's segment
 * is written after vpmu_procs_pre_syscall). */
void vpmu_procs_pre_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nArgs);
void vpmu_procs_post_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nArgs, SysRes res);
/* In a forked child: its own reaped children only. */
void vpmu_procs_fork_child(void);
/* The records, in every output file (segments too). */
void vpmu_procs_write(Out *o);

#endif
