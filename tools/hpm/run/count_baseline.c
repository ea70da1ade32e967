/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * count_baseline.c - the baseline steps of a run: before it (what can be
 * refused without running the program) and after it (the report saved or
 * gated) (run_internal.h: what the parts of run/ share).
 */
#define _GNU_SOURCE /* wait4, syscall, mkdtemp */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "catalog.h"
#include "baseline/baseline.h"
#include "report/count_report.h"
#include "machine_wire.h"
#include "live.h"
#include "run/run_internal.h"


/* --save-baseline's name and --baseline's checks, before the run (and
 * before --repeat): what can be refused without running the program is
 * refused now (docs/ci.md). 0, or GATE_NOT_COMPARABLE after a message. */
int count_baseline_before(const struct count_opts *o, const struct hpm_machine *m,
                          unsigned features, const struct count_row *rows, unsigned n_rows,
                          int profile, const char *wire)
{
    const char *events[MAX_ROWS];
    char dir[4096], err[1024];
    unsigned i;
    if (o->save_baseline && baseline_path(o->save_baseline, dir, sizeof dir, err, sizeof err)) {
        fprintf(stderr, "%s: --save-baseline: %s\n", cmd_name, err);
        return GATE_NOT_COMPARABLE;
    }
    if (!o->baseline)
        return 0;
    for (i = 0; i < o->limits.n; i++) {
        struct diff_limit l;
        struct count_row row;
        if (diff_limit_parse(o->limits.v[i], &l, err, sizeof err) == 0 &&
            strcmp(l.kind, "*") != 0 &&
            count_resolve_event(l.kind, m->name, (unsigned)m->hier.cores, features, &row) != 0) {
            fprintf(stderr, "%s: limit '%s' names no event of machine %s\n", cmd_name,
                    o->limits.v[i], m->name);
            return GATE_NOT_COMPARABLE;
        }
    }
    for (i = 0; i < n_rows; i++)
        events[i] = rows[i].name;
    if (baseline_check_before(o->baseline, m->name, wire, profile, events, n_rows, o->limits.v,
                              o->limits.n, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s (nothing was run)\n", cmd_name, err);
        return GATE_NOT_COMPARABLE;
    }
    return 0;
}

/* --save-baseline and --baseline after a run: the JSON report into the
 * run's folder, then baseline.h. rc is the run's status so far (the
 * program's, or GATE_ERROR when hpm failed: hpm_failed); the result is the
 * exit status: a gated run's is the gate's alone (a program cannot exit
 * with a status that passes for a verdict), a run that only saves keeps
 * the program's. */
int count_baseline_step(const struct count_opts *o, const struct count_report *r,
                        const char *dir, const char *profile_path, const char *machine,
                        const char *wire, const struct baseline_unstable *unstable, int rc,
                        int hpm_failed)
{
    char path[4200], found[4096];
    struct count_opts ro = *o;
    struct baseline_meta *meta = malloc(sizeof *meta);
    int g;
    if (!meta)
        return GATE_ERROR;
    snprintf(path, sizeof path, "%s/report.json", dir);
    ro.fmt = FMT_JSON;
    ro.output = path;
    if (count_write_report(&ro, r) != 0) {
        free(meta);
        return GATE_ERROR;
    }
    if (count_search_program(o->prog[0], found, sizeof found) != 0)
        snprintf(found, sizeof found, "%s", o->prog[0]);
    baseline_meta_collect(meta, machine, wire, found, o->prog, o->prog_argc);
    meta->exit_status = r->exit_status;
    meta->exit_signal = r->exit_signal;
    g = baseline_after_run(cmd_name, o->save_baseline, o->baseline, o->limits.v, o->limits.n,
                           path, profile_path, meta, unstable);
    free(meta);
    if (!o->baseline)
        return rc == 0 ? g : rc;
    if (hpm_failed || g == GATE_ERROR)
        return GATE_ERROR;
    if (r->exit_code != 0) {
        fprintf(stderr,
                "%s: the program failed (%s %d): exit status %d, whatever the gate found above\n",
                cmd_name, r->exit_signal ? "killed by signal" : "exit status",
                r->exit_signal ? r->exit_signal : r->exit_status, GATE_PROGRAM_FAILED);
        return GATE_PROGRAM_FAILED;
    }
    return g;
}
