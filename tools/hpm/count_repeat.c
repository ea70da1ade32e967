/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * count_repeat.c - --repeat (identical runs first, unstable events) and the baseline step
 * (count_internal.h: what the parts of hpm count share).
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
#include "commands.h"
#include "count_perf.h"
#include "count_procs.h"
#include "baseline.h"
#include "count_report.h"
#include "machine_arg.h"
#include "machine_wire.h"
#include "interval.h"
#include "mpi_job.h"
#include "live.h"
#include "options.h"
#include "passes.h"
#include "profile_cmd.h"
#include "count_hook.h"
#include "latency.h"
#include "runner.h"
#include "vpmu_output.h"

#include "count_internal.h"

/* --repeat N: N runs of PROGRAM as given (this hpm, re-run with the
 * options that decide the counts, a JSON report each), then the events
 * whose totals differ between them: printed, and kept from the gate. 0,
 * or 1 (a run could not be made). */
int count_repeat_runs(const struct count_opts *o, const char *dir)
{
    static char *av[HPM_OPT_LIST_MAX + 64];
    static const char *unstable[DIFF_MAX_KINDS];
    char paths[2][4200], first[4200], err[1024], self[4096];
    static char buf[DIFF_MAX_KINDS][160];
    unsigned n_unstable = 0, k;
    long run;
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl <= 0)
        return 1;
    self[sl] = 0;
    snprintf(first, sizeof first, "%s/repeat.0.json", dir);
    for (run = 0; run < o->repeat; run++) {
        int na = 0, st;
        unsigned i;
        pid_t pid;
        char *out = run ? paths[1] : first;
        if (run)
            snprintf(paths[1], sizeof paths[1], "%s/repeat.%ld.json", dir, run);
        av[na++] = self;
        av[na++] = "count";
        av[na++] = "--pmu=virtual";
        av[na++] = "--json";
        av[na++] = "-o";
        av[na++] = out;
        if (o->machine) {
            av[na++] = "--machine";
            av[na++] = (char *)o->machine;
        }
        for (i = 0; i < o->events.n; i++) {
            av[na++] = "-e";
            av[na++] = (char *)o->events.v[i];
        }
        if (!o->start)
            av[na++] = "--start=no";
        if (o->no_children)
            av[na++] = "--no-children";
        if (o->trace_skip) {
            av[na++] = "--trace-children-skip";
            av[na++] = (char *)o->trace_skip;
        }
        av[na++] = "--";
        for (i = 0; i < (unsigned)o->prog_argc; i++)
            av[na++] = o->prog[i];
        av[na] = NULL;
        fflush(NULL);
        if ((pid = fork()) == 0) {
            int null = open("/dev/null", O_WRONLY);
            if (null >= 0) {
                dup2(null, 1);
                dup2(null, 2);
            }
            execv(self, av);
            _exit(127);
        }
        if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || access(out, R_OK) != 0) {
            fprintf(stderr, "%s: --repeat: run %ld of %ld gave no report\n", cmd_name, run + 1,
                    o->repeat);
            return 1;
        }
        if (run) {
            struct diff d;
            const struct diff_table *t;
            size_t r;
            if (diff_load(&d, first, paths[1], err, sizeof err) != 0) {
                fprintf(stderr, "%s: --repeat: %s\n", cmd_name, err);
                return 1;
            }
            t = &d.tables[DIFF_TOTALS];
            for (r = 0; r < t->n; r++) {
                int kk = diff_kind(&d, t->rows[r].key);
                unsigned j;
                if (kk < 0 || t->rows[r].v[0][kk] == t->rows[r].v[1][kk] || d.measured[kk])
                    continue;
                for (j = 0; j < n_unstable && strcmp(unstable[j], t->rows[r].key) != 0; j++)
                    ;
                if (j == n_unstable && n_unstable < DIFF_MAX_KINDS) {
                    snprintf(buf[n_unstable], sizeof buf[0], "%s", t->rows[r].key);
                    unstable[n_unstable] = buf[n_unstable];
                    n_unstable++;
                }
            }
            diff_free(&d);
            unlink(paths[1]);
        }
    }
    unlink(first);
    if (n_unstable == 0) {
        fprintf(stderr, "%s: --repeat %ld: every modeled count is the same in each run\n",
                cmd_name, o->repeat);
    } else {
        fprintf(stderr, "%s: --repeat %ld: %u event%s differ between identical runs (the "
                        "program is not deterministic; not gated):",
                cmd_name, o->repeat, n_unstable, n_unstable == 1 ? "" : "s");
        for (k = 0; k < n_unstable; k++)
            fprintf(stderr, " %s", unstable[k]);
        fputc('\n', stderr);
    }
    baseline_set_unstable(unstable, n_unstable);
    return 0;
}

/* --save-baseline's name and --baseline's checks, before the run (and
 * before --repeat): what can be refused without running the program is
 * refused now (docs/ci.md). 0, or GATE_NOT_COMPARABLE after a message. */
int count_baseline_before(const struct count_opts *o, const struct hpm_machine *m,
                          unsigned features, const struct count_row *rows, unsigned n_rows,
                          int profile, const char *wire)
{
    static const char *events[MAX_ROWS];
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
                        const char *wire, int rc, int hpm_failed)
{
    char path[4200], found[4096];
    struct count_opts ro = *o;
    static struct baseline_meta meta;
    int g;
    snprintf(path, sizeof path, "%s/report.json", dir);
    ro.fmt = FMT_JSON;
    ro.output = path;
    if (count_write_report(&ro, r) != 0)
        return GATE_ERROR;
    if (count_search_program(o->prog[0], found, sizeof found) != 0)
        snprintf(found, sizeof found, "%s", o->prog[0]);
    baseline_meta_collect(&meta, machine, wire, found, o->prog, o->prog_argc);
    meta.exit_status = r->exit_status;
    meta.exit_signal = r->exit_signal;
    g = baseline_after_run(cmd_name, o->save_baseline, o->baseline, o->limits.v, o->limits.n,
                           path, profile_path, &meta);
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
