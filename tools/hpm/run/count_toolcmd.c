/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * count_toolcmd.c - the tool's command line of a virtual-PMU run:
 * valgrind --tool=hpm with the machine, the events, the gates, what the
 * mode adds, then PROGRAM (run_internal.h).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run_internal.h"
#include "debugcache.h"
#include "machine_wire.h"

/* "%" means something to the tool's --hpm-out (%p = pid): double it. */
static char *escape_percent(const char *s, const char *suffix)
{
    size_t n = strlen(s), i, at = 0;
    char *r = malloc(2 * n + strlen(suffix) + 1);
    if (!r)
        return NULL;
    for (i = 0; i < n; i++) {
        r[at++] = s[i];
        if (s[i] == '%')
            r[at++] = '%';
    }
    strcpy(r + at, suffix);
    return r;
}

/* "PREFIXvalue" in a new string, or NULL. */
static char *joined(const char *prefix, const char *value)
{
    char *s = malloc(strlen(prefix) + strlen(value) + 1);
    if (s)
        sprintf(s, "%s%s", prefix, value);
    return s;
}

/* The options that say where and what: the output pattern, the machine,
 * the events, the gates and --multiplex's sets. 0, or -1 (out of memory). */
static int base_args(struct count_toolcmd *t, const struct count_opts *o, const char *dir,
                     unsigned *na)
{
    static const char *const gate_opt[] = {"--hpm-start-at=", "--hpm-stop-at=", "--hpm-only=",
                                           "--hpm-trigger=", "--hpm-mpx="};
    const char *gate_val[] = {o->start_at, o->stop_at, o->only, o->trigger, o->mpx_plan};
    char *pat = escape_percent(dir, "/vpmu.%p.out");
    unsigned g;
    if (!pat)
        return -1;
    t->out_arg = joined("--hpm-out=", pat);
    free(pat);
    t->machine_arg = joined("--hpm-machine=", t->wire);
    t->events_arg = joined("--hpm-events=", t->codes);
    if (!t->out_arg || !t->machine_arg || !t->events_arg)
        return -1;
    t->args[(*na)++] = (char *)t->vg;
    t->args[(*na)++] = "-q";
    /* no gdbserver: its FIFOs (TMPDIR/vgdb-pipe-*) outlive a killed
     * simulator, and nothing of hpm's attaches a debugger */
    t->args[(*na)++] = "--vgdb=no";
    t->args[(*na)++] = "--tool=hpm";
    /* the thread slots (HPM_MAX_THREADS_DEFAULT: what they cost) */
    snprintf(t->max_threads_arg, sizeof t->max_threads_arg, "--max-threads=%ld",
             o->max_threads > 0 ? o->max_threads : HPM_MAX_THREADS_DEFAULT);
    t->args[(*na)++] = t->max_threads_arg;
    t->args[(*na)++] = t->out_arg;
    t->args[(*na)++] = t->machine_arg;
    t->args[(*na)++] = t->events_arg;
    if (!o->start)
        t->args[(*na)++] = "--hpm-start=no";
    for (g = 0; g < 5; g++) {
        if (!gate_val[g])
            continue;
        if (!(t->gate_args[g] = joined(gate_opt[g], gate_val[g])))
            return -1;
        t->args[(*na)++] = t->gate_args[g];
    }
    return 0;
}

/* Valgrind reads Debian's separate debug files at every process's start
 * and inflates their compressed DWARF each time: the tool reads the good
 * decompressed copies instead (src/vpmu/vpmu_debugcopy.c) and asks for
 * those it lacks, which hpm makes after the run (count_execute.c). 0, or
 * -1 (out of memory). */
static int debug_copy_args(struct count_toolcmd *t, unsigned *na)
{
    const char *dir = hpm_debugcache_dir();
    char *copies;
    if (!dir || !(copies = hpm_debugcache_copies()))
        return 0; /* no cache: the originals */
    t->debug_dir_arg = joined("--hpm-debug-dir=", dir);
    t->debug_copies_arg = joined("--hpm-debug-copies=", copies);
    free(copies);
    if (!t->debug_dir_arg || !t->debug_copies_arg)
        return -1;
    t->args[(*na)++] = t->debug_dir_arg;
    t->args[(*na)++] = t->debug_copies_arg;
    return 0;
}

int count_toolcmd_build(struct count_toolcmd *t, const struct count_opts *o,
                        const struct hpm_machine *m, const struct count_row *rows,
                        unsigned n_rows, const char *dir, enum count_mode mode, int lat_hist,
                        const char *const *hook_args)
{
    unsigned na = 0;
    int i;
    t->wire = malloc(hpm_machine_wire_size());
    t->codes = count_codes_arg(o, rows, n_rows);
    t->args = calloc((size_t)o->prog_argc + 40 + COUNT_HOOK_ARGS_MAX, sizeof *t->args);
    if (!t->wire || !t->codes || !t->args ||
        hpm_machine_wire_encode(m, t->wire, hpm_machine_wire_size()) == 0 ||
        base_args(t, o, dir, &na) != 0 || debug_copy_args(t, &na) != 0)
        return -1;
    if (o->interval_ms > 0) {
        /* the tool publishes at least twice per interval */
        snprintf(t->live_arg, sizeof t->live_arg, "--hpm-live-ms=%ld",
                 o->interval_ms / 2 > 1 ? o->interval_ms / 2 : 1);
        t->args[na++] = t->live_arg;
    }
    /* children and exec'd images run under the tool too: hpm count sums them
     * (count_procs.h) unless --no-children, hpm run lets them count */
    t->args[na++] = "--trace-children=yes";
    if (o->trace_skip) {
        /* Valgrind's own option: a matching exec'd program runs natively;
         * the tool names it in its segment (count_procs.h) */
        if (!(t->skip_arg = joined("--trace-children-skip=", o->trace_skip)))
            return -1;
        t->args[na++] = t->skip_arg;
    }
    /* --no-children: what the program's children exec runs natively (their
     * counts are left out anyway); the program's own execs are followed */
    if (o->no_children)
        t->args[na++] = "--hpm-children=no";
    if (o->interleave > 0 || o->coherence) {
        /* the tool decides whose turn it is; Valgrind's ticket lock hands
         * the lock to a waiting thread at once (its default lets the one
         * that yields take it back, and the holder waits longer) */
        snprintf(t->interleave_arg, sizeof t->interleave_arg, "--hpm-interleave=%ld",
                 o->interleave > 0 ? o->interleave : COUNT_COHERENCE_TURN);
        t->args[na++] = "--fair-sched=yes";
        t->args[na++] = t->interleave_arg;
    }
    if (o->core_count) {
        /* a rank of a shared node runs on its own cores */
        snprintf(t->cores_arg[0], sizeof t->cores_arg[0], "--hpm-first-core=%u", o->first_core);
        snprintf(t->cores_arg[1], sizeof t->cores_arg[1], "--hpm-core-count=%u", o->core_count);
        t->args[na++] = t->cores_arg[0];
        t->args[na++] = t->cores_arg[1];
    }
    if (o->mpi_out) {
        /* libhpm-mpi's combined results (HPM_VPMU_MPI_RESULT) */
        if (!(t->mpi_out_arg = joined("--hpm-mpi-out=", o->mpi_out)))
            return -1;
        t->args[na++] = t->mpi_out_arg;
    }
    if (o->coherence) {
        long q = o->interleave > 0 ? o->interleave : COUNT_COHERENCE_TURN;
        snprintf(t->interleave_from_arg, sizeof t->interleave_from_arg,
                 "--hpm-interleave-from=%ld", q < COUNT_COHERENCE_FIRST_TURN ? q
                                                                            : COUNT_COHERENCE_FIRST_TURN);
        t->args[na++] = t->interleave_from_arg;
        t->args[na++] = "--hpm-coherence=time"; /* the turns give the threads' time */
    }
    if (mode == MODE_PROFILE || mode == MODE_RECORD)
        t->args[na++] = "--hpm-profile=yes";
    if (lat_hist)
        t->args[na++] = "--hpm-lat-hist=yes"; /* LOADS:ldlat=N */
    for (i = 0; hook_args && hook_args[i] && i < COUNT_HOOK_ARGS_MAX; i++)
        t->args[na++] = (char *)hook_args[i];
    if (mode == MODE_RUN && !o->model_always)
        t->args[na++] = "--hpm-model=on-demand"; /* libhpm asks when it needs them */
    for (i = 0; i < o->prog_argc; i++)
        t->args[na++] = o->prog[i];
    t->args[na] = NULL;
    return 0;
}

void count_toolcmd_free(struct count_toolcmd *t)
{
    unsigned g;
    free(t->args);
    free(t->wire);
    free(t->codes);
    free(t->out_arg);
    free(t->machine_arg);
    free(t->events_arg);
    free(t->skip_arg);
    free(t->mpi_out_arg);
    free(t->debug_dir_arg);
    free(t->debug_copies_arg);
    for (g = 0; g < 5; g++)
        free(t->gate_args[g]);
    memset(t, 0, sizeof *t);
}
