/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * live.h - reading the live view of processes that run under the virtual
 * PMU (src/vpmu_iface/vpmu_live.h): find them, open one read-only, take
 * consistent snapshots with the sequence-lock protocol (copied with
 * pread: a view truncated or removed under a reader is an error, never a
 * fault). Readers never write the view, so any number of them can watch
 * one process without disturbing it. Views are found by pid as the caller
 * sees it: a process of another pid namespace that the caller can see in
 * /proc is found under its own namespace's name (NSpid).
 */
#ifndef HPM_LIVE_READ_H
#define HPM_LIVE_READ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "vpmu_live.h"

struct hpm_live_reader {
    int open; /* 0: not open (a zeroed reader is a closed one) */
    int fd;
    pid_t pid;
    char path[HPM_LIVE_NAME_MAX];
};

/* Opens the live view of pid: 0, or -1 with a message in err (no such
 * process under hpm, a view of another format, or not a regular file: a
 * FIFO or link at the name is refused without blocking). */
int hpm_live_open(struct hpm_live_reader *r, pid_t pid, char *err, size_t errlen);
void hpm_live_close(struct hpm_live_reader *r);

/* Copies a consistent snapshot (the writer was not in the middle of an
 * update): 0, or -1 when no consistent copy could be taken in a few
 * hundred tries (the writer died in mid-update) or the view was truncated.
 * The command and machine names come back with control characters
 * replaced by '?', fit for a terminal. */
int hpm_live_snapshot(const struct hpm_live_reader *r, struct hpm_live *out);

/* Control characters (below 0x20, and 0x7f) of a name the traced program
 * chose (its command line, a region's name; also read from a file that may
 * be someone else's) replaced by '?', so that they never reach a terminal
 * raw: in place, or as s is written to f. */
void hpm_live_printable(char *s);
void hpm_live_fputs_printable(const char *s, FILE *f);

/* The pids of this pid namespace that publish a live view now, ascending;
 * returns how many (at most max). Stale views (nobody holds their
 * ownership lock: a tool killed with SIGKILL), of any namespace, are
 * removed on the way when `reap` is set, unless the parent's view (its
 * ppid's, same namespace) is held or, for a view of this namespace, that
 * parent still exists (also ended and not yet reaped): the hpm count of
 * the tree reads a killed child's view for its report
 * (hpm_live_take_stale), at the latest when it reaps the program. */
unsigned hpm_live_list(pid_t *pids, unsigned max, int reap);

/* Whether pid runs the hpm tool (its /proc/PID/exe is the Valgrind tool
 * hpm-ARCH-linux) whether or not its view is published yet: 1 yes, 0 no,
 * -1 no such process. */
int hpm_live_is_tool_process(pid_t pid);

/* hpm_live_open, waiting up to wait_ms for the view of a process that runs
 * the tool but has not published yet (a child just forked or exec'd). */
int hpm_live_open_wait(struct hpm_live_reader *r, pid_t pid, unsigned wait_ms, char *err,
                       size_t errlen);

/* The last publication of the view of a process of this pid namespace
 * that died without removing it (SIGKILL leaves the tool no time to): the
 * view must be stale (nobody holds its ownership lock), a whole
 * publication of a running image (state RUNNING) or of one killed in its
 * exec (state EXEC: the tool publishes it before it writes the exec's
 * segment, so the caller tells whether that segment holds the image's
 * counts), of this pid (its pid field), and
 * created or changed at or after `since` (seconds of CLOCK_REALTIME; an
 * older file at the name was another process's). Copies it to *out (names
 * made printable as by hpm_live_snapshot) and removes the file, under the
 * lock: 0. -1 when there is no such view; a stale file of this pid made
 * since that holds no whole publication (its tool was killed before its
 * first, or in the middle of one) is removed all the same. */
int hpm_live_take_stale(pid_t pid, long long since, struct hpm_live *out);

/* The children of parent that publish a view, running or exited
 * (hpm-live.PID.exited, kept for the parent: vpmu_live.h), ascending by
 * pid; *exited[i] says which. Returns how many (at most max). */
unsigned hpm_live_children(pid_t parent, pid_t *pids, int *exited, unsigned max);

/* Opens a child's view as hpm_live_children found it. */
int hpm_live_open_child(struct hpm_live_reader *r, pid_t pid, int exited, char *err,
                        size_t errlen);

/* Removes the kept views of exited children whose parent's view is gone
 * or stale (it can no longer read them); hpm_live_list with reap does it
 * too. */
void hpm_live_reap_exited(void);

/* Ask the process of an open view to start its waiting models (the view's
 * one reader-written word, want_models; vpmu_live.h): 0, or -1 with errno. */
int hpm_live_request_models(const struct hpm_live_reader *r);

/* The node-wide value of a catalog code in a snapshot, or 0 with *have = 0
 * when that code is not programmed. */
uint64_t hpm_live_value(const struct hpm_live *s, unsigned code, int *have);

#endif
