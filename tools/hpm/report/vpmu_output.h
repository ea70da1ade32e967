/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpmu_output.h - read the output file of the virtual PMU (valgrind
 * --tool=hpm, format version 2) into memory.
 *
 * The file is written by a tool running inside another process, which may
 * die half-way or be a different build than this hpm, so the parser trusts
 * nothing: every number is range-checked, every event name is checked against
 * the catalog, a file that does not end in a newline or lacks a required
 * record is reported as truncated, and unknown record types are skipped (so a
 * newer tool can add records). Errors are "line N: message".
 *
 * The records are defined in src/vpmu_iface/vpmu_format.h, which the tool
 * writes with.
 * Region names may contain spaces: a region record is read from its end.
 */
#ifndef HPM_TOOL_VPMU_OUTPUT_H
#define HPM_TOOL_VPMU_OUTPUT_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "catalog.h"
#include "vpmu_format.h"
#include "vpmufile.h"

#define VPMU_OUTPUT_VERSION VPMU_FORMAT_VERSION
#define VPMU_OUTPUT_MAX_CORES 1024 /* the machine-file limit */

enum vpmu_exit_kind {
    VPMU_EXIT_NONE = 0, /* no exit record (file truncated) */
    VPMU_EXIT_STATUS,   /* exit_value = the status */
    VPMU_EXIT_SIGNAL,   /* exit_value = the signal, or -1 when unknown */
    VPMU_EXIT_EXEC,     /* a segment written before execve (FILE.execN) */
    VPMU_EXIT_SLOTS,    /* stopped at a thread's creation: exit_value = --max-threads */
};

/* Per-kind values with a presence flag (a value of 0 and "not written" differ). */
struct vpmu_kind_values {
    uint64_t v[HPM_K_COUNT];
    unsigned char have[HPM_K_COUNT];
};

struct vpmu_thread {
    unsigned serial; /* 1, 2, ... in creation order */
    int core;        /* -1 when no `thread T core C` record */
    struct vpmu_kind_values k;
};

struct vpmu_region {
    char *name;
    unsigned thread;
    int have_entries;
    uint64_t entries;
    struct vpmu_kind_values k;
};

struct vpmu_upc {
    unsigned upc;
    uint64_t counters, lost_carries, parity_errors;
};

/* A cache line the cores shared (the tool's shared_line records): the top
 * lines of a run, most coherence misses first. */
#define VPMU_OUTPUT_SHARED_TOP 16
#define VPMU_OUTPUT_HOST_CALLS 16 /* system calls named in host_timed, at most */
struct vpmu_shared_line {
    uint64_t pid; /* the process (0: the file has no pid) */
    uint64_t addr, coh_misses, invalidations;
    unsigned bytes, writers; /* the line's size, the cores that wrote it */
    int true_sharing;        /* the line's verdict: 1 true, 0 false sharing */
    char object[256];        /* its data object, in words */
};

#define VPMU_MPX_MAX_SETS 64 /* the tool's --hpm-mpx holds at most as many */
#define VPMU_MPX_EVERY 255   /* mpx_set_of: a spec of every set (the correlate) */

struct vpmu_output {
    unsigned version;
    char *command; /* the rest of the `command` line, verbatim; NULL if absent */
    int have_pid, have_ppid;
    uint64_t pid, ppid;
    uint64_t upc_writes; /* UPC register writes by the program (0: none) */
    uint64_t forks;      /* processes it started (fork, vfork, clone) */
    uint64_t interleave; /* threads took turns of this many instructions (0: Valgrind's slices) */
    uint64_t interleave_switches; /* turns that passed to another thread */
    /* waits for a thread the tool gave up (its return then came when the
     * host decided; the tool's interleave record's third value) */
    uint64_t interleave_host;
    /* the contended lines' accesses replayed in modeled time (the tool's
     * coherence_time): accesses logged, coherence misses the replay found,
     * returns from blocking calls the host timed */
    int coh_time;
    uint64_t coh_time_logged, coh_time_misses, coh_time_host;
    /* of the returns the host timed, those of each system call by name
     * ("wait": waits given up; "other": calls past the tool's list), the
     * tool's host_timed records, summed over a tree by name */
    struct vpmu_host_timed {
        char call[32];
        uint64_t n;
    } host_timed[VPMU_OUTPUT_HOST_CALLS];
    unsigned n_host_timed;
    /* Cache lines the cores shared (contended lines: a store took a line
     * another core held): kept by the model, not kept (its table was full),
     * kept ones that two or more cores wrote, and the top ones (summed
     * over a tree: the top of all its processes) */
    uint64_t shared_lines, shared_dropped, shared_written;
    struct vpmu_shared_line shared[VPMU_OUTPUT_SHARED_TOP];
    unsigned n_shared;
    char machine[64];
    unsigned cores;
    uint64_t frequency_hz;
    char level[8];   /* insn, core or full; "" if absent */
    char models[64]; /* "hier bpred tlb timing", "none"; "" if absent */
    unsigned upcs;
    enum vpmu_exit_kind exit_kind;
    int exit_value;
    int have_threads;
    unsigned threads;

    uint64_t count[HPM_CAT_SPECS]; /* by spec: a code + 1024 * its counting mode */
    unsigned char have_count[HPM_CAT_SPECS];
    unsigned n_counts;
    /* sums (vpmu_output_add) that exceeded 2^64 - 1 and stay at it: how
     * many codes, and the first one */
    unsigned saturated;
    unsigned saturated_code;

    struct vpmu_thread *thr; /* in order of first appearance */
    size_t n_thr, cap_thr;
    struct vpmu_region *reg; /* in order of first appearance */
    size_t n_reg, cap_reg;
    struct vpmu_upc *upc;
    size_t n_upc, cap_upc;

    /* Multiplexed (hpm count --multiplex, the tool's mpx records): mpx_sets
     * sets cycled every mpx_period events of mpx_kind, mpx_switches times;
     * per set, the intervals it was programmed and the correlate's count in
     * them; per spec, its set + 1 (0: in none, VPMU_MPX_EVERY: in all). */
    unsigned mpx_sets;
    uint64_t mpx_period, mpx_switches;
    unsigned mpx_kind;
    uint64_t mpx_intervals[VPMU_MPX_MAX_SETS], mpx_correlate[VPMU_MPX_MAX_SETS];
    unsigned char mpx_seen[VPMU_MPX_MAX_SETS];
    unsigned char mpx_set_of[HPM_CAT_SPECS];
};

/* The counts' handler of a session (vpmufile.h): one file's records into
 * an output, checked as vpmu_output_parse says. */
struct vpmu_output_reader {
    struct vpmu_output *o;
    unsigned long lineno;
    char *err;
    size_t errlen;
    /* singleton records seen, to reject a second one */
    int seen_command, seen_machine, seen_cores, seen_freq, seen_level, seen_models, seen_upcs,
        seen_exit, seen_upc_writes, seen_forks, seen_mpx, seen_interleave, seen_shared;
    size_t last_thr, last_reg; /* lookup caches: records come grouped */
};

/* Makes *tool the handler that reads one file into o (zeroed here): its
 * errors are "line N: message" in err. */
void vpmu_output_reader_init(struct vpmu_output_reader *r, struct vpmu_output *o, char *err,
                             size_t errlen, struct vpmu_tool *tool);

/* Parse len bytes (need not be NUL-terminated). Returns 0, or -1 with err
 * (if errlen > 0) holding "line N: message"; *o must be freed either way. */
int vpmu_output_parse(struct vpmu_output *o, const char *buf, size_t len, char *err,
                      size_t errlen);
/* Read and parse a file; a missing or empty file is an error with its own
 * message (the tool could not start the program). */
int vpmu_output_load(struct vpmu_output *o, const char *path, char *err, size_t errlen);
void vpmu_output_free(struct vpmu_output *o);

/* Add src's counts to dst (the same machine): node counts are summed; src's
 * threads and regions are appended, their serials moved past dst's threads;
 * UPC health is summed per unit. dst keeps its own command, pid and exit.
 * Used to sum a process's exec segments and a process tree. Returns 0, or -1
 * with a message in err. */
int vpmu_output_add(struct vpmu_output *dst, const struct vpmu_output *src, char *err,
                    size_t errlen);

/* Writes o in the tool's format (vpmu_output_parse reads it back): 0, or
 * -1 on a write error. */
int vpmu_output_write(const struct vpmu_output *o, FILE *f);
/* Adds to dst the counts src has and dst has not (another pass's). */
void vpmu_output_union(struct vpmu_output *dst, const struct vpmu_output *src);

/* The thread with serial `serial`, or NULL. */
const struct vpmu_thread *vpmu_output_thread(const struct vpmu_output *o, unsigned serial);

/* A note for a report whose sums saturated (vpmu_output_add): 1 and the
 * note in buf, or 0 when none did. */
int vpmu_output_saturated_note(const struct vpmu_output *o, char *buf, size_t len);

/* Whether spec belongs to a multiplexed set that never got an interval
 * (the run ended before its turn): it has no count, and no estimate. */
int vpmu_output_mpx_idle(const struct vpmu_output *o, unsigned spec);
/* The note naming those sets and their events (1, in buf), or 0 when
 * every set had an interval. */
int vpmu_output_mpx_idle_note(const struct vpmu_output *o, char *buf, size_t len);

#endif
