/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * progress.h - the one line a long run shows on a terminal (as valgrind,
 * perf and cargo-style tools do): elapsed time, the program's instructions
 * so far and their rate, the processes and threads running, and where to
 * look inside. It updates in place on stderr, appears once a run has lasted
 * PROGRESS_AFTER_MS, and is erased before anything else is printed. It is
 * shown when stderr is a terminal, or always with --progress; --quiet
 * silences it. The figures come from the processes' live views
 * (src/live), the same ones hpm top reads.
 */
#ifndef HPM_TOOL_PROGRESS_H
#define HPM_TOOL_PROGRESS_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define PROGRESS_AFTER_MS 2000
#define PROGRESS_TICK_MS 500

enum progress_mode { PROGRESS_AUTO = 0, PROGRESS_ON, PROGRESS_OFF };

struct progress {
    int on;           /* the line may be shown */
    int tty;          /* stderr is a terminal: update in place */
    int shown;        /* a line is on the screen now */
    FILE *out;
    char prefix[64];  /* "pass 2 of 3: ", or "" */
    uint64_t t0_ms, last_ms, last_insn;
    double rate;      /* instructions per second of host time, last tick */
};

/* mode: PROGRESS_AUTO (on when stderr is a terminal), ON or OFF. The
 * prefix (may be NULL) opens the line: what part of a longer job this is
 * ("pass 2 of 3", "roofline": a plan's progress_name, run.h). */
void progress_init(struct progress *p, enum progress_mode mode, const char *prefix);
/* The runner's interval callback (runner_spec.on_interval; ctx: a struct
 * progress): reads child's live view and its children's, then redraws. */
void progress_tick(void *ctx, pid_t child);
/* Erases the line (before the report). */
void progress_clear(struct progress *p);
/* The line for these figures, as the tick draws it (tested on its own). */
void progress_format(char *buf, size_t len, const char *prefix, uint64_t elapsed_ms,
                     uint64_t insn, double rate, unsigned procs, unsigned threads, long pid);

#endif
