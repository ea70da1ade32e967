/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpmu_live.h - the live view of a process's counters: a shared-memory
 * page set the Valgrind tool publishes (writer, vpmu_main.c) and any other
 * process reads (hpm stat, hpm top, hpm count -I, hpm serve, libpapi's
 * attach). One writer per process; any number of readers, which never write
 * and so never disturb each other or the counts.
 *
 * Name: /dev/shm/hpm-live.NS.PID, NS the inode number of the writer's pid
 * namespace (/proc/self/ns/pid) and PID its pid there: processes of
 * different containers sharing /dev/shm never share a name. Created by the
 * tool when the program starts (exclusively, never through a link, mode
 * 0600), removed by it when the process exits (after a last publication
 * with state EXITED, which readers that have it open still see) or execs
 * (state EXEC; the new image's tool creates a new one and counts from
 * zero). A process whose parent runs under hpm too renames it at exit to
 * hpm-live.NS.PID.exited instead: the parent's inheriting sets
 * (PAPI_INHERIT) add the final counts of their children; such a view is
 * removed once its parent's view is gone or stale.
 *
 * Ownership: the writer holds an open-file-description write lock
 * (fcntl F_OFD_SETLK, whole file) on a descriptor of its own for as long
 * as the process runs its image; the kernel drops it when the process
 * dies, whatever kills it. A view nobody holds is stale: a reader may
 * remove it, while holding the same lock itself (so that a writer that has
 * just created the file, and not locked it yet, finds its file unlinked
 * once it gets the lock and makes another), once its parent's view is gone
 * or stale too and its parent no longer exists; until then the hpm count
 * of its tree may read what the killed process published last (src/live:
 * hpm_live_take_stale). At an exec the tool publishes state EXEC before
 * it writes the exec's segment (a process killed between the two leaves
 * the old image's counts in the segment, not again in a running view).
 * A pid never makes a view removable (only the lock does): a pid means
 * nothing in another pid namespace; a parent's pid of the reader's own
 * namespace only keeps a stale view longer.
 *
 * Readers copy the view with pread(2), never a mapping: a view truncated
 * under a reader reads short (an error), it cannot fault the reader; the
 * writer repairs a truncation of its mapping (vpmu_main.c).
 *
 * Sequence lock: the writer makes `seq` odd, writes, makes it even again
 * (release order); a reader copies the block between two reads of `seq`
 * and retries when they differ or are odd, so it never sees a torn or
 * half-updated set.
 *
 * The tool publishes at every client request that reads counters and at
 * least every --hpm-live-ms milliseconds of host time (default 100) while
 * the program runs (checked at each scheduler timeslice), at exit, and
 * just before the process stops itself (kill, tkill or tgkill of itself
 * with SIGSTOP, SIGTSTP, SIGTTIN or SIGTTOU), so that a process stopped
 * for an attached reader (PAPI_attach) shows its exact counts.
 *
 * One word is the readers' to write: `want_models`. Under `hpm run` the
 * cache, TLB, predictor and timing models wait until the program asks
 * (models_waiting = 1; the modeled kinds read 0 until then). A reader that
 * needs modeled kinds of another process (libhpm's attach) asks by writing
 * 1 there with pwrite(2) on the view's file (it never maps the view
 * writable); the tool starts the models, cold, at its next check (within a
 * timeslice of the process running) and publishes models_waiting = 0.
 */
#ifndef HPM_VPMU_LIVE_H
#define HPM_VPMU_LIVE_H

#include <stdint.h>

#define HPM_LIVE_MAGIC 0x316576696c6d7068ull /* "hpmlive1" */
#define HPM_LIVE_VERSION 3
#define HPM_LIVE_SHM_DIR "/dev/shm"
#define HPM_LIVE_PREFIX "hpm-live."
#define HPM_LIVE_EXITED_SUFFIX ".exited" /* a child's final view, kept for its parent */
#define HPM_LIVE_NAME_MAX 96 /* "/dev/shm/hpm-live." + two numbers + ".exited" */
#define HPM_LIVE_MAX_EVENTS 1024
#define HPM_LIVE_RAW 32 /* exact tool counters (vpmu_events.h order) */

enum hpm_live_state {
    HPM_LIVE_RUNNING = 1,
    HPM_LIVE_EXITED = 2, /* final counts */
    HPM_LIVE_EXEC = 3,   /* the image was replaced; reopen for the new one */
};

struct hpm_live {
    uint64_t magic;
    uint32_t version;
    uint32_t size;        /* sizeof(struct hpm_live) of the writer */
    volatile uint64_t seq; /* odd while an update is under way */
    uint32_t pid, ppid;
    uint32_t state;       /* enum hpm_live_state */
    uint32_t n_events;    /* programmed events: codes[] and values[] */
    uint32_t cores;
    uint32_t threads;     /* threads that ever ran */
    uint64_t frequency_hz;
    uint64_t updates;     /* publications so far */
    uint64_t host_ms;     /* the tool's millisecond timer at the update */
    uint64_t interval_ms; /* the periodic publication interval */
    int32_t exit_status;  /* EXITED: the status, or -signal */
    uint32_t n_raw;
    char machine[64];
    char command[256];    /* the program and its arguments, truncated */
    uint32_t codes[HPM_LIVE_MAX_EVENTS];
    uint64_t values[HPM_LIVE_MAX_EVENTS]; /* node-wide UPC counts */
    uint64_t raw[HPM_LIVE_RAW];           /* exact counters summed over threads */
    uint32_t models_waiting; /* the models wait for a request: modeled kinds read 0 */
    volatile uint32_t want_models; /* written by a reader: start the models */
};

#endif
