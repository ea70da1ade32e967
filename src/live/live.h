/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * live.h - reading the live view of processes that run under the virtual
 * PMU (src/vpmu/vpmu_live.h): find them, map one read-only, take consistent
 * snapshots with the sequence-lock protocol. Readers never write the view,
 * so any number of them can watch one process without disturbing it.
 */
#ifndef HPM_LIVE_READ_H
#define HPM_LIVE_READ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "vpmu_live.h"

struct hpm_live_reader {
    const struct hpm_live *map; /* NULL when not open */
    pid_t pid;
};

/* Opens the live view of pid: 0, or -1 with a message in err (no such
 * process under hpm, or a view of another format). */
int hpm_live_open(struct hpm_live_reader *r, pid_t pid, char *err, size_t errlen);
void hpm_live_close(struct hpm_live_reader *r);

/* Copies a consistent snapshot (the writer was not in the middle of an
 * update): 0, or -1 when no consistent copy could be taken in a few
 * hundred tries (the writer died in mid-update). */
int hpm_live_snapshot(const struct hpm_live_reader *r, struct hpm_live *out);

/* The pids that publish a live view now, ascending; returns how many (at
 * most max). Views whose process is gone (a tool killed with SIGKILL) are
 * removed on the way when `reap` is set. */
unsigned hpm_live_list(pid_t *pids, unsigned max, int reap);

/* Whether pid runs the hpm tool (its /proc/PID/exe is the Valgrind tool
 * hpm-ARCH-linux) whether or not its view is published yet: 1 yes, 0 no,
 * -1 no such process. */
int hpm_live_is_tool_process(pid_t pid);

/* hpm_live_open, waiting up to wait_ms for the view of a process that runs
 * the tool but has not published yet (a child just forked or exec'd). */
int hpm_live_open_wait(struct hpm_live_reader *r, pid_t pid, unsigned wait_ms, char *err,
                       size_t errlen);

/* The children of parent that publish a view, running or exited
 * (hpm-live.PID.exited, kept for the parent: vpmu_live.h), ascending by
 * pid; *exited[i] says which. Returns how many (at most max). */
unsigned hpm_live_children(pid_t parent, pid_t *pids, int *exited, unsigned max);

/* Opens a child's view as hpm_live_children found it. */
int hpm_live_open_child(struct hpm_live_reader *r, pid_t pid, int exited, char *err,
                        size_t errlen);

/* Removes the kept views of exited children whose parent has ended (it
 * can no longer read them); hpm_live_list with reap does it too. */
void hpm_live_reap_exited(void);

/* Ask the process of an open view to start its waiting models (the view's
 * one reader-written word, want_models; vpmu_live.h): 0, or -1 with errno. */
int hpm_live_request_models(const struct hpm_live_reader *r);

/* The node-wide value of a catalog code in a snapshot, or 0 with *have = 0
 * when that code is not programmed. */
uint64_t hpm_live_value(const struct hpm_live *s, unsigned code, int *have);

#endif
