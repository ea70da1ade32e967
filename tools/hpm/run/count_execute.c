/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * count_execute.c - count_execute (run.h): a plan, built once from the
 * options (count_plan.c), run to its report, with nothing kept between
 * runs, so that --passes, --repeat, hpm roofline and hpm validate execute
 * plans made from plans in this process.
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
#include <time.h>
#include <unistd.h>

#include "catalog.h"
#include "debugcache.h"
#include "report/mpi_report.h"
#include "report/count_procs.h"
#include "baseline/baseline.h"
#include "report/count_report.h"
#include "machine_wire.h"
#include "report/mpi_job.h"
#include "live.h"
#include "util/progress.h"
#include "run/profile_cmd.h"
#include "run/run_internal.h"
#include "run/latency.h"
#include "util/runner.h"
#include "report/vpmu_output.h"
#include "report/count_report_writer.h"






/* ------------------------------------------------------------ running */

/* runner_spec.take_view: the view an orphan killed by a signal left */
static struct hpm_live *take_killed_view(pid_t pid, long long since)
{
    struct hpm_live *v = malloc(sizeof *v);
    if (v && hpm_live_take_stale(pid, since, v) != 0) {
        free(v);
        v = NULL;
    }
    return v;
}

/* runner_spec.before_reap: the program has ended, not yet reaped. The
 * views its children killed by a signal left (they name it as their
 * parent) are taken now: once the program is reaped, other hpm commands
 * may remove them. */
struct reap_views {
    long long since;
    struct runner_killed *v; /* sig 0: known by pid only */
    unsigned n;
};

static void take_children_views(void *ctx, pid_t program)
{
    struct reap_views *rv = ctx;
    pid_t pids[256];
    int exited[256];
    unsigned n = hpm_live_children(program, pids, exited, 256), i, k;
    for (i = 0; i < n; i++) {
        struct runner_killed *nv;
        struct hpm_live *v;
        for (k = 0; k < rv->n && rv->v[k].pid != pids[i]; k++)
            ;
        if (exited[i] || k < rv->n || !(v = take_killed_view(pids[i], rv->since)))
            continue;
        if (!(nv = realloc(rv->v, (rv->n + 1) * sizeof *nv))) {
            free(v);
            return;
        }
        rv->v = nv;
        nv[rv->n].pid = pids[i];
        nv[rv->n].sig = 0;
        nv[rv->n++].view = v;
    }
}

/* One virtual-PMU run, start to end: its plan, the tool's command, what
 * hpm took as the tree ended, the counts and the report's inputs. */
struct count_run {
    const struct count_plan *p;
    enum count_mode mode;
    int run_only, profile, hw, in_job, counted;
    const char *profile_out, *vg, *lib;
    char profile_default[64];
    struct count_opts o;
    struct hpm_machine m;
    struct count_row rows[MAX_ROWS]; /* the plan's; the checks may drop some */
    unsigned n_rows, features;
    struct count_lat lat; /* the plan's thresholds, counted as the output is read */
    char clamp_note[160], pmu[256], dir[4096], msrc[4200], mhash[24], err[512], job_dir[4096];
    char mpi_out[4200];
    struct mpi_rank_env rank_env;
    struct count_toolcmd cmd;
    struct runner_result res;
    struct reap_views early;
    struct runner_killed *taken;
    struct vpmu_output out;
    struct vpmu_session session; /* the run's output, read once */
    struct count_tree_reader tree_rd;
    struct count_tree tree;
    struct profile_reader prof; /* hpm profile's handler (have_prof) */
    int have_prof;
    struct count_report r;
    struct count_notes nb;
    /* --repeat's events that differ between identical runs (not gated) */
    char unstable[DIFF_MAX_KINDS][160];
    const char *unstable_names[DIFF_MAX_KINDS];
    struct baseline_unstable unstable_set;
};

/* Runs the tool's command and waits for the program (its tree unless
 * --no-children), printing -I's series meanwhile: the runner's status. */
static int spawn(struct count_run *x)
{
    struct runner_spec spec = {0};
    struct interval_watch watch;
    struct progress bar;
    int rc;
    spec.argv = x->cmd.args;
    spec.stdout_path = x->p->program_stdout;
    spec.stderr_path = x->p->program_stderr;
    spec.env_name = "VALGRIND_LIB";
    spec.env_value = x->lib;
    spec.forward_signals = 1;
    spec.wait_tree = !x->run_only && !x->o.no_children;
    spec.take_view = take_killed_view;
    if (spec.wait_tree) {
        spec.before_reap = take_children_views;
        spec.reap_ctx = &x->early;
    }
    memset(&watch, 0, sizeof watch);
    watch.o = &x->o;
    progress_init(&bar,
                  (x->o.quiet && !x->p->progress_quiet_too) || x->run_only || x->in_job
                      ? PROGRESS_OFF
                  : x->o.progress ? PROGRESS_ON
                                  : PROGRESS_AUTO,
                  x->p->progress_name);
    if (x->o.interval_ms > 0) {
        spec.interval_ms = x->o.interval_ms;
        spec.on_interval = count_interval_tick;
        spec.ctx = &watch;
    } else if (bar.on) { /* -I's series is progress enough */
        spec.interval_ms = PROGRESS_TICK_MS;
        spec.on_interval = progress_tick;
        spec.ctx = &bar;
    }
    /* a killed process's live view is one of this run when made since (a
     * second early: tmpfs stamps files with a coarse clock) */
    x->early.since = (long long)time(NULL) - 1;
    rc = runner_run(cmd_name, &spec, &x->res);
    progress_clear(&bar);
    /* the final views the tree's children kept for their parents (for
     * PAPI_INHERIT) go once those parents have ended */
    hpm_live_reap_exited();
    if (watch.lr.open) {
        /* the view's last publication holds the final counts: the series'
         * deltas sum to the report's totals */
        if (rc == 0)
            count_interval_tick(&watch, x->res.pid);
        hpm_live_close(&watch.lr);
    }
    return rc;
}

/* The run's output read in one session (vpmufile.h), each file once, by
 * every handler the run has: the tree's counts, the latency thresholds,
 * hpm profile's records or hpm record's samples. 0, 1 (the program left
 * no output), or -1 with the reason in x->err. */
static int read_output(struct count_run *x)
{
    const struct vpmu_tool *tools[4];
    struct vpmu_tool lat;
    unsigned n = 0;
    uint64_t pid = (uint64_t)x->res.pid;
    int children = !x->o.no_children;
    if (vpmu_session_open(&x->session, x->dir) != 0) {
        snprintf(x->err, sizeof x->err, "%.400s: cannot read the folder", x->dir);
        return -1;
    }
    if (!vpmu_session_has_pid(&x->session, pid))
        return 1;
    count_tree_reader_init(&x->tree_rd, &x->tree, pid, children);
    tools[n++] = &x->tree_rd.tool;
    if (x->lat.n) {
        count_lat_tool(&x->lat, &lat);
        tools[n++] = &lat;
    }
    if (x->mode == MODE_RECORD) {
        if (x->p->hook->tool)
            tools[n++] = x->p->hook->tool;
    } else if (x->p->capture) {
        /* a pass or a repeat: the counts alone */
    } else if (x->profile) {
        x->have_prof = 1;
        if (profile_reader_init(&x->prof, cmd_name) != 0) {
            snprintf(x->err, sizeof x->err, "out of memory");
            return -1;
        }
        tools[n++] = &x->prof.tool;
    }
    if (vpmu_session_process(&x->session, pid, children, tools, n, x->err, sizeof x->err) != 0)
        return -1;
    return count_tree_finish(&x->tree_rd, &x->session, x->res.killed, x->res.n_killed, x->err,
                             sizeof x->err);
}

/* The tree's output read, with the views of its killed processes (those
 * hpm took as it reaped: the program's children's and the orphans'; the
 * views they left in /dev/shm go). 0, 1 (no output at all), or -1 with
 * the reason in x->err. */
static int load_tree(struct count_run *x)
{
    int rc = read_output(x);
    if (rc == 0) {
        unsigned n_taken = x->res.n_killed + x->early.n;
        if (n_taken && (x->taken = malloc(n_taken * sizeof *x->taken))) {
            if (x->res.n_killed)
                memcpy(x->taken, x->res.killed, x->res.n_killed * sizeof *x->taken);
            if (x->early.n)
                memcpy(x->taken + x->res.n_killed, x->early.v, x->early.n * sizeof *x->taken);
        } else
            n_taken = 0;
        count_tree_take_views(&x->tree, x->early.since, x->taken, n_taken);
    }
    return rc;
}

/* The tool wrote nothing: say why, exit as the shell would have seen it,
 * and in an MPI job name this rank as missing. */
static int no_output(struct count_run *x)
{
    int st = x->res.status, sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    if (sig)
        fprintf(stderr,
                "hpm count: the virtual PMU wrote no output: valgrind was killed by signal "
                "%d (%s) before it could\n",
                sig, strsignal(sig));
    else
        fprintf(stderr,
                "hpm count: the virtual PMU wrote no output (valgrind exited with status "
                "%d): it could not run %s (see valgrind's message above)\n",
                WEXITSTATUS(st), x->o.prog[0]);
    if (x->in_job) {
        /* the job's aggregate names this rank as missing, and why */
        char why[160];
        if (sig)
            snprintf(why, sizeof why, "killed by signal %d (%s) before the virtual PMU "
                     "wrote its counts", sig, strsignal(sig));
        else
            snprintf(why, sizeof why, "the virtual PMU wrote no counts (valgrind exited "
                     "with status %d)", WEXITSTATUS(st));
        if (mpi_rank_write_lost(cmd_name, x->job_dir, &x->rank_env, sig,
                                sig ? 0 : WEXITSTATUS(st), why) == 0)
            mpi_rank_aggregate(cmd_name, &x->rank_env, x->job_dir, x->o.fmt, x->o.output,
                               x->o.per_rank);
    }
    /* killed from outside (SIGKILL leaves the tool no time to write): still
     * exit as the shell would have; valgrind's own 126/127 (it could not
     * execute the program) are a shell's too */
    return sig                                                     ? 128 + sig
           : WEXITSTATUS(st) == 126 || WEXITSTATUS(st) == 127 ? WEXITSTATUS(st)
                                                                : 1;
}

/* The report model of the run's counts, with its notes. */
static void build_report(struct count_run *x)
{
    struct count_report *r = &x->r;
    memset(r, 0, sizeof *r);
    r->argv = x->o.prog;
    r->argc = x->o.prog_argc;
    r->machine_source = x->msrc;
    snprintf(x->mhash, sizeof x->mhash, "%016" PRIx64, baseline_machine_hash(x->cmd.wire));
    r->machine_hash = x->mhash;
    r->pmu = x->pmu;
    r->hw_pmu = x->hw;
    r->out = &x->out;
    r->rows = x->rows;
    r->n_rows = x->n_rows;
    r->have_rusage = 1;
    r->ru = x->res.ru;
    r->per_core = x->o.per_core;
    r->per_thread = x->o.per_thread;
    r->procs = x->tree.procs;
    r->n_procs = x->tree.n;
    if (x->clamp_note[0])
        r->notes[r->n_notes++] = x->clamp_note;
    count_add_notes(r, &x->nb, &x->o, (unsigned)x->m.hier.cores, &x->tree, &x->out, &x->res,
                    x->rows, x->n_rows, x->lat.n ? count_lat_note(&x->lat) : NULL);
}

/* The report written (a rank's result into its job's folder), then the
 * profile or hpm record's samples, then the baseline step: the exit
 * status. */
static int emit(struct count_run *x)
{
    int rc, hpm_failed;
    if (x->p->capture)
        return x->r.exit_code; /* the caller reports */
    if (x->in_job) {
        /* a rank: its result (the JSON report) into the job's folder; the
         * rank that completes the job writes the aggregate */
        char path[4200];
        struct count_opts ro = x->o;
        ro.fmt = FMT_JSON;
        ro.output = path;
        x->r.rank = &x->rank_env;
        int combined;
        if (mpi_rank_path(x->job_dir, x->rank_env.rank, path, sizeof path) != 0 ||
            count_write_report(&ro, &x->r) != 0)
            rc = 1;
        else if ((combined = count_mpi_combined(&x->o, &x->r, x->dir)) < 0)
            rc = 1;
        else if (!combined && mpi_rank_aggregate(cmd_name, &x->rank_env, x->job_dir, x->o.fmt,
                                                 x->o.output, x->o.per_rank) != 0)
            rc = 1;
        else
            rc = x->r.exit_code;
    } else
        rc = count_write_report(&x->o, &x->r) == 0 ? x->r.exit_code : 1;
    if (x->mode == MODE_RECORD) {
        if (x->p->hook->after((uint64_t)x->res.pid, x->p->hook->ctx) != 0)
            rc = 1;
    } else if (x->profile) {
        if (!x->profile_out) {
            snprintf(x->profile_default, sizeof x->profile_default, "callgrind.out.hpm.%ld",
                     (long)x->res.pid);
            x->profile_out = x->profile_default;
        }
        if (profile_write(&x->prof, x->o.prog, x->o.prog_argc, x->m.name, x->profile_out,
                          x->o.quiet) != 0)
            rc = 1;
    }
    /* a status other than the program's is hpm's own failure */
    hpm_failed = rc != x->r.exit_code;
    if (!x->in_job && (x->o.save_baseline || x->o.baseline))
        rc = count_baseline_step(&x->o, &x->r, x->dir,
                                 x->mode == MODE_PROFILE ? x->profile_out : NULL, x->m.name,
                                 x->cmd.wire, &x->unstable_set, rc, hpm_failed);
    return rc;
}

/* After the run: the tree's counts checked, kept (--keep-output) and
 * reported. The exit status. */
static int finish(struct count_run *x)
{
    int rc = load_tree(x);
    if (rc == 1) {
        rc = no_output(x);
        /* a gated run's statuses are the gate's (docs/ci.md): a program
         * killed before it wrote any count failed */
        if (x->o.baseline && !x->in_job && rc > 128) {
            fprintf(stderr, "%s: no counts to gate: exit status %d\n", cmd_name,
                    GATE_PROGRAM_FAILED);
            return GATE_PROGRAM_FAILED;
        }
        return rc;
    }
    if (rc != 0 || count_tree_total(&x->tree, &x->out, x->err, sizeof x->err) != 0) {
        fprintf(stderr, "%s: the virtual PMU's output is unusable: %s\n", cmd_name, x->err);
        return 1;
    }
    if (count_check_counts(&x->out, x->rows, &x->n_rows, "the virtual PMU's output") != 0)
        return 1;
    x->counted = 1;
    if (x->o.keep_output &&
        runner_write_output(cmd_name, x->o.keep_output, count_keep_output_to, &x->out))
        return 1;
    build_report(x);
    return emit(x);
}

/* The plan of one repeated run: PROGRAM as given, with the options that
 * decide the counts (machine, events, --start, --no-children,
 * --trace-children-skip), in this process, its output and hpm's messages
 * kept from the user, its counts back to the caller. */
static void repeat_plan(struct count_plan *q, const struct count_plan *p)
{
    *q = *p;
    count_opts_init(&q->o);
    q->o.machine = p->o.machine;
    q->o.events = p->o.events;
    q->o.start = p->o.start;
    q->o.no_children = p->o.no_children;
    q->o.trace_skip = p->o.trace_skip;
    q->o.prog = p->o.prog;
    q->o.prog_argc = p->o.prog_argc;
    q->o.quiet = 1;
    q->mode = MODE_COUNT;
    q->profile_out = NULL;
    q->hook = NULL;
    q->capture = 1;
    q->program_stdout = q->program_stderr = "/dev/null";
    q->clamp_note[0] = 0; /* the run's own says it */
}

/* The events whose totals differ between two runs' counts (modeled ones:
 * what the host measured differs anyway), each added to unstable once. */
static void unstable_add(const struct count_plan *q, const struct vpmu_output *a,
                         const struct vpmu_output *b, struct count_run *x)
{
    const char **unstable = x->unstable_names;
    unsigned *n = &x->unstable_set.n;
    char (*buf)[160] = x->unstable;
    unsigned i, j;
    for (i = 0; i < q->n_rows; i++) {
        const struct count_row *row = &q->rows[i];
        if (report_row_value_in(a, row) == report_row_value_in(b, row) ||
            strcmp(report_row_source(hpm_catalog_kind(row->kind)), "measured") == 0)
            continue;
        for (j = 0; j < *n && strcmp(unstable[j], row->name) != 0; j++)
            ;
        if (j == *n && *n < DIFF_MAX_KINDS) {
            snprintf(buf[*n], sizeof buf[0], "%s", row->name);
            unstable[*n] = buf[*n];
            (*n)++;
        }
    }
}

/* --repeat N: N runs of PROGRAM as given (repeat_plan), executed here,
 * then the events whose totals differ between them: printed, and kept
 * from the gate. 0, or 1 (a run could not be made). */
static int repeat_runs(struct count_run *x)
{
    const struct count_plan *p = x->p;
    struct count_plan *q = malloc(sizeof *q);
    struct count_outcome first, next;
    const unsigned *n_unstable = &x->unstable_set.n;
    unsigned k;
    long run;
    int rc = 1;
    memset(&first, 0, sizeof first);
    if (!q)
        return 1;
    repeat_plan(q, p);
    for (run = 0; run < p->o.repeat; run++) {
        struct count_outcome *o = run ? &next : &first;
        count_execute(q, o);
        if (!o->have_counts) {
            fprintf(stderr, "%s: --repeat: run %ld of %ld gave no report\n", cmd_name, run + 1,
                    p->o.repeat);
            goto out;
        }
        if (run) {
            unstable_add(q, &first.out, &next.out, x);
            vpmu_output_free(&next.out);
        }
    }
    if (*n_unstable == 0) {
        fprintf(stderr, "%s: --repeat %ld: every modeled count is the same in each run\n",
                cmd_name, p->o.repeat);
    } else {
        fprintf(stderr, "%s: --repeat %ld: %u event%s differ between identical runs (the "
                        "program is not deterministic; not gated):",
                cmd_name, p->o.repeat, *n_unstable, *n_unstable == 1 ? "" : "s");
        for (k = 0; k < *n_unstable; k++)
            fprintf(stderr, " %s", x->unstable_names[k]);
        fputc('\n', stderr);
    }
    rc = 0;
out:
    vpmu_output_free(&first.out);
    free(q);
    return rc;
}

/* The plan's program (found as a shell would) and the tool: COUNT_GO, or
 * the exit status after a message. */
static int find_program_and_tool(struct count_run *x)
{
    int said = 0, rc;
    char found[4096];
    rc = count_find_program(x->o.prog[0], &said, found, sizeof found);
    if (said)
        return rc;
    if (rc == 127) {
        fprintf(stderr, "%s: %s: command not found\n", cmd_name, x->o.prog[0]);
        return 127;
    }
    if (rc == 126) {
        fprintf(stderr, "%s: %s: not an executable file\n", cmd_name, x->o.prog[0]);
        return 126;
    }
    return runner_find_tool(cmd_name, &x->vg, &x->lib) != 0 ? 1 : COUNT_GO;
}

/* The run itself: the tool's command, the program, the report. */
static int run(struct count_run *x)
{
    int rc;
    /* live views whose tool was killed (SIGKILL leaves it no time to remove
     * its view) go now, as the folders of a killed hpm do */
    (void)hpm_live_list(NULL, 0, 1);
    x->hw = count_probe_pmu(x->pmu, sizeof x->pmu);
    if ((!x->run_only || getenv("HPM_RUN_VERBOSE")) && !x->o.quiet &&
        (!x->in_job || x->rank_env.rank == 0))
        /* why there is no hardware PMU is the report's "host PMU" line: said once */
        fprintf(stderr, "hpm: counting on the virtual PMU, machine %s (modeled)%s\n", x->m.name,
                x->hw ? "; the hardware PMU counts with --pmu=perf" : "");
    if (x->clamp_note[0])
        fprintf(stderr, "hpm: note: %s\n", x->clamp_note);
    if (runner_tmpdir("hpm-count", x->dir, sizeof x->dir) != 0) {
        fprintf(stderr, "%s: cannot create a temporary directory in %s: %s\n", cmd_name,
                getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
                strerror(errno));
        x->dir[0] = 0;
        return 1;
    }
    if (x->in_job && count_mpi_combine_setup(&x->o, x->rows, x->n_rows, x->dir, x->mpi_out,
                                             sizeof x->mpi_out) != 0) {
        fprintf(stderr, "%s: out of memory\n", cmd_name);
        return 1;
    }
    x->cmd.vg = x->vg;
    if (count_toolcmd_build(&x->cmd, &x->o, &x->m, x->rows, x->n_rows, x->dir, x->mode,
                            x->lat.n != 0,
                            x->mode == MODE_RECORD ? x->p->hook->tool_args : NULL) != 0) {
        fprintf(stderr, "%s: out of memory\n", cmd_name);
        return 1;
    }
    if (!x->in_job && (x->o.save_baseline || x->o.baseline) &&
        (rc = count_baseline_before(&x->o, &x->m, x->features, x->rows, x->n_rows,
                                    x->mode == MODE_PROFILE, x->cmd.wire)) != 0)
        return rc;
    if (x->o.repeat > 1 && !x->run_only && x->mode != MODE_RECORD &&
        repeat_runs(x) != 0)
        return 1;
    if (spawn(x) != 0)
        return 1;
    if (x->run_only) /* the program's own status is all hpm run reports */
        return WIFSIGNALED(x->res.status) ? 128 + WTERMSIG(x->res.status)
                                          : WEXITSTATUS(x->res.status);
    return finish(x);
}

/* What Valgrind left in $TMPDIR for the run's processes that a signal
 * killed as they started (runner.h): the program, the orphans hpm reaped,
 * and the children their parents reaped, as the tree names them. */
static void remove_valgrind_leftovers(const struct count_run *x)
{
    unsigned n = 0, i, cap = 1 + x->res.n_killed + x->early.n + x->tree.n;
    pid_t *pids = malloc(cap * sizeof *pids);
    if (!pids)
        return;
    if (x->res.pid > 0 && WIFSIGNALED(x->res.status))
        pids[n++] = x->res.pid;
    for (i = 0; i < x->res.n_killed; i++)
        pids[n++] = x->res.killed[i].pid;
    for (i = 0; i < x->early.n; i++)
        pids[n++] = x->early.v[i].pid;
    for (i = 0; i < x->tree.n; i++)
        if (x->tree.procs[i].killed_signal && x->tree.procs[i].pid <= INT32_MAX)
            pids[n++] = (pid_t)x->tree.procs[i].pid;
    runner_remove_valgrind_leftovers(pids, n);
    free(pids);
}

int count_execute(const struct count_plan *p, struct count_outcome *res)
{
    /* zeroed: every error path frees what it holds, made or not */
    struct count_run *x = calloc(1, sizeof *x);
    int rc;
    if (res)
        memset(res, 0, sizeof *res);
    if (!x) {
        fprintf(stderr, "hpm: out of memory\n");
        return 1;
    }
    x->p = p;
    x->unstable_set.kinds = x->unstable_names;
    x->mode = p->mode;
    x->run_only = p->mode == MODE_RUN;
    x->profile = p->mode == MODE_PROFILE || p->mode == MODE_RECORD;
    x->o = p->o;
    x->m = p->m;
    memcpy(x->rows, p->rows, p->n_rows * sizeof *p->rows);
    x->n_rows = p->n_rows;
    x->lat = p->lat;
    x->features = p->features;
    x->profile_out = p->profile_out;
    x->in_job = p->in_job;
    x->rank_env = p->rank_env;
    snprintf(x->job_dir, sizeof x->job_dir, "%s", p->job_dir);
    snprintf(x->clamp_note, sizeof x->clamp_note, "%s", p->clamp_note);
    snprintf(x->msrc, sizeof x->msrc, "%s", p->machine_source);
    rc = find_program_and_tool(x);
    if (rc == COUNT_GO) {
        rc = run(x);
        /* the decompressed debug files the tool asked for, made once for
         * the runs to come (count_toolcmd.c), after the report */
        (void)hpm_debugcache_make_wanted();
    }
    if (res) {
        res->status = rc;
        if (p->capture && x->counted) {
            res->out = x->out; /* the counts move to the caller */
            memset(&x->out, 0, sizeof x->out);
            res->have_counts = 1;
        }
    }
    remove_valgrind_leftovers(x);
    count_tree_free(&x->tree);
    count_tree_reader_free(&x->tree_rd);
    if (x->have_prof)
        profile_reader_free(&x->prof);
    vpmu_session_close(&x->session);
    vpmu_output_free(&x->out);
    if (x->dir[0])
        runner_rmdir(x->dir);
    runner_result_free(&x->res);
    free(x->taken);
    while (x->early.n)
        free(x->early.v[--x->early.n].view);
    free(x->early.v);
    count_toolcmd_free(&x->cmd);
    free(x);
    return rc;
}

