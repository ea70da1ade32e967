/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * count_procs.h - the process tree of one hpm count run, read from the
 * tool's output folder.
 *
 * Under --trace-children=yes every process of the program's tree runs under
 * the tool and writes its own file, vpmu.PID.out, at its end. A process that
 * replaces its image (execve) first writes what it counted so far to
 * vpmu.PID.out.exec1, .exec2, ... (vpmu_main.c), because the new image
 * starts a new tool instance that counts from zero. A process's counts are
 * its segments and its final file summed; the run's counts are the sum over
 * the processes that are included (the program only, or its whole tree).
 */
#ifndef HPM_TOOL_COUNT_PROCS_H
#define HPM_TOOL_COUNT_PROCS_H

#include <stddef.h>
#include <stdint.h>

#include "util/runner.h"
#include "vpmu_live.h"
#include "report/vpmu_output.h"
#include "vpmufile.h"

struct count_proc {
    uint64_t pid;
    uint64_t ppid;            /* 0 when the file did not say */
    char **commands;          /* the image before each exec, then the last one (when
                               * known: complete, or command_from_view) */
    unsigned n_commands;      /* execs + 1 */
    int complete;             /* its final file was there (else: killed, or still running) */
    int killed_signal;        /* > 0: its parent (or hpm, the subreaper of orphans) reaped
                               * it killed by this signal before it wrote its counts
                               * (SIGKILL): they are lost */
    /* killed_signal: the last publication of its live view, when the view
     * was left behind and could be read (count_tree_take_views), else NULL:
     * counts up to that moment, never added to out or the totals */
    struct hpm_live *view;
    int command_from_view;    /* the last of commands is the view's: the image it was
                               * killed in */
    char *native;             /* its last exec runs this program natively
                               * (--trace-children-skip), or NULL */
    struct vpmu_output out;   /* this process's counts, its exec segments summed */
};

/* A program that ran natively (--trace-children-skip), and how often. */
struct count_native {
    char *path;
    unsigned n;
};

struct count_tree {
    struct count_proc *procs; /* the program first, then the rest by pid */
    unsigned n;
    unsigned skipped;         /* processes left out (--no-children) */
    /* processes other than the program whose exec'd program ran natively:
     * left out of procs (what they counted before the exec too) */
    struct count_native *native;
    unsigned n_native;        /* distinct programs */
    unsigned native_procs;    /* processes */
    unsigned killed;          /* procs killed before they wrote counts */
};

/* The tree's handler of a session over the run's folder (vpmufile.h):
 * each file's counts (vpmu_output.h) and the tool's process-tree records
 * (reaped, exec_native), a process put into the tree when its last file
 * is read. */
struct count_tree_part {
    const struct vpmu_file *f;
    struct vpmu_output out;
    char *native; /* its exec_native record's program, or NULL */
};
struct count_reaped;
struct count_tree_reader {
    struct vpmu_tool tool; /* what the session calls */
    struct count_tree *t;
    uint64_t main_pid;
    int children;
    struct count_tree_part *parts; /* the files of the process being read */
    size_t n_parts;
    struct count_reaped *reaped;   /* the reaped records */
    size_t n_reaped;
    struct vpmu_output_reader rd;  /* the file being read */
    struct vpmu_tool rtool;
    int failed;
    char perr[512], err[640];
};

/* Makes x the handler that builds t. main_pid is the program's process;
 * children = 0 keeps only it (the session reads only its files; the
 * others are counted in `skipped`). */
void count_tree_reader_init(struct count_tree_reader *x, struct count_tree *t, uint64_t main_pid,
                            int children);
/* After the session: the tree complete. With children, a child that its
 * parent reaped killed by a signal, or that hpm reaped so
 * (reaped[0..n_reaped): orphans, whose parents' tools did not see them
 * end; runner.h), and that left no final file is a process of its own
 * (killed_signal, no counts), and a child whose exec'd program ran
 * natively is left out (native, native_procs). 0, or -1 with a message
 * in err when a file is unusable ("PATH: line N: why"). */
int count_tree_finish(struct count_tree_reader *x, const struct vpmu_session *s,
                      const struct runner_killed *reaped, unsigned n_reaped, char *err,
                      size_t errlen);
void count_tree_reader_free(struct count_tree_reader *x);
/* The same in a session of its own over dir: 0; 1 when the program itself
 * left no file at all (err says nothing); -1 with a message in err. */
int count_tree_load(struct count_tree *t, const char *dir, uint64_t main_pid, int children,
                    const struct runner_killed *reaped, unsigned n_reaped, char *err,
                    size_t errlen);

/* For every killed process of the tree: the live view its tool left
 * behind in /dev/shm, which hpm took when it reaped the process
 * (reaped[i].view, copied) or takes now (hpm_live_take_stale: one of this
 * run, created at or after `since`, seconds of CLOCK_REALTIME, then
 * removed); keeps its last publication (view) and gives the process its
 * command (the image it was killed in) and ppid when its files did not.
 * Returns how many views there were; a view that is gone or unreadable
 * leaves view NULL. */
unsigned count_tree_take_views(struct count_tree *t, long long since,
                               const struct runner_killed *reaped, unsigned n_reaped);

/* total = the sum over the tree, with the program's command, pid and exit.
 * For a tree of one process without exec, total equals that process's own
 * output. Returns 0, or -1 with a message. */
int count_tree_total(const struct count_tree *t, struct vpmu_output *total, char *err,
                     size_t errlen);

/* The execs of one process: its segments (the last command is the image it
 * ended in only when its final file was there). */
static inline unsigned count_proc_execs(const struct count_proc *p)
{
    return p->n_commands - (p->complete || p->command_from_view ? 1u : 0u);
}

/* Execs summed over the tree. */
unsigned count_tree_execs(const struct count_tree *t);

void count_tree_free(struct count_tree *t);

#endif
