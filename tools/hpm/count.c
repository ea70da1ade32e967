/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm count: run a program on the virtual PMU and report its event counts.
 *
 *   hpm count [--machine NAME|FILE] [-e EVENT[,EVENT...]]... [--json | --csv]
 *             [-o FILE] [--per-core] [--per-thread] [--start=no] -- PROGRAM [ARGS]
 *
 * The program runs unmodified under `valgrind --tool=hpm` (src/vpmu), which
 * models the chosen machine and counts the requested catalog events in its
 * UPC units; hpm passes it the parsed machine (machine_wire.h) and the event
 * codes, waits for it with wait4() (so the host's own rusage of the simulator
 * process can be shown beside the modeled counts), reads the tool's output
 * file (vpmu_output.h) and prints the report (count_report.h). hpm exits
 * with the program's status, or 128 + the signal that killed it.
 *
 * --pmu picks the counter source: `virtual` always the virtual PMU,
 * `perf` the kernel's perf_event (count_perf.h: measured counts of the host,
 * PROGRAM run natively, its process tree counted through inherited
 * counters), `auto` (the default) perf_event when it provides every event
 * asked for with -e, else the virtual PMU. The one line hpm prints on
 * stderr and the report say which source counted.
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
#include "progress.h"
#include "profile_cmd.h"
#include "count_hook.h"
#include "latency.h"
#include "runner.h"
#include "vpmu_output.h"
#include "count_internal.h"

const char *count_cmd_name = "hpm count";





/* ------------------------------------------------------------ running */

/* hpm record's additions to a profile run (count_hook.h) */
static const struct count_hook *record_hook;

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
    enum count_mode mode;
    int run_only, profile, hw, in_job;
    const char *profile_out, *vg, *lib;
    char profile_default[64];
    struct count_opts o;
    struct hpm_machine m;
    struct count_row *rows;
    unsigned n_rows, features;
    char clamp_note[160], pmu[256], dir[4096], msrc[4200], mhash[24], err[512], job_dir[4096];
    struct mpi_rank_env rank_env;
    struct count_toolcmd cmd;
    struct runner_result res;
    struct reap_views early;
    struct runner_killed *taken;
    struct vpmu_output out;
    struct count_tree tree;
    struct count_report r;
    struct count_notes nb;
};

/* Where the machine model came from, as the report says it. */
static void machine_source(struct count_run *x)
{
    const struct count_opts *o = &x->o;
    if (o->machine && strchr(o->machine, '/'))
        snprintf(x->msrc, sizeof x->msrc, "%s", o->machine);
    else if (strcmp(x->m.name, "host") == 0 || (o->machine && strcmp(o->machine, "host") == 0))
        snprintf(x->msrc, sizeof x->msrc, "this host, from sysfs");
    else if (o->machine && strstr(o->machine, ".machine"))
        snprintf(x->msrc, sizeof x->msrc, "%s", o->machine);
    else
        snprintf(x->msrc, sizeof x->msrc, "%s/%s.machine", machine_arg_dir(),
                 o->machine ? o->machine : HPM_DEFAULT_MACHINE);
}

/* Runs the tool's command and waits for the program (its tree unless
 * --no-children), printing -I's series meanwhile: the runner's status. */
static int spawn(struct count_run *x)
{
    struct runner_spec spec = {0};
    struct interval_watch watch;
    struct progress bar;
    int rc;
    spec.argv = x->cmd.args;
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
    progress_init(&bar, x->o.quiet || x->run_only || x->in_job ? PROGRESS_OFF
                        : x->o.progress           ? PROGRESS_ON
                                                  : PROGRESS_AUTO,
                  NULL);
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

/* The tree's output files loaded, with the views of its killed processes
 * (those hpm took as it reaped: the program's children's and the
 * orphans'; the views they left in /dev/shm go). 0, 1 (no output at
 * all), or -1 with the reason in x->err. */
static int load_tree(struct count_run *x)
{
    int rc = count_tree_load(&x->tree, x->dir, (uint64_t)x->res.pid, !x->o.no_children,
                             x->res.killed, x->res.n_killed, x->err, sizeof x->err);
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
                    x->rows, x->n_rows, x->dir);
}

/* The report written (a rank's result into its job's folder), then the
 * profile or hpm record's samples, then the baseline step: the exit
 * status. */
static int emit(struct count_run *x)
{
    int rc, hpm_failed;
    if (x->in_job) {
        /* a rank: its result (the JSON report) into the job's folder; the
         * rank that completes the job writes the aggregate */
        char path[4200];
        struct count_opts ro = x->o;
        ro.fmt = FMT_JSON;
        ro.output = path;
        x->r.rank = &x->rank_env;
        if (mpi_rank_path(x->job_dir, x->rank_env.rank, path, sizeof path) != 0 ||
            count_write_report(&ro, &x->r) != 0)
            rc = 1;
        else if (mpi_rank_aggregate(cmd_name, &x->rank_env, x->job_dir, x->o.fmt, x->o.output,
                                    x->o.per_rank) != 0)
            rc = 1;
        else
            rc = x->r.exit_code;
    } else
        rc = count_write_report(&x->o, &x->r) == 0 ? x->r.exit_code : 1;
    if (x->mode == MODE_RECORD) {
        if (record_hook->after(x->dir, (uint64_t)x->res.pid, !x->o.no_children,
                               record_hook->ctx) != 0)
            rc = 1;
    } else if (x->profile) {
        if (!x->profile_out) {
            snprintf(x->profile_default, sizeof x->profile_default, "callgrind.out.hpm.%ld",
                     (long)x->res.pid);
            x->profile_out = x->profile_default;
        }
        if (profile_write(cmd_name, x->dir, (uint64_t)x->res.pid, !x->o.no_children, x->o.prog,
                          x->o.prog_argc, x->m.name, x->profile_out, x->o.quiet) != 0)
            rc = 1;
    }
    /* a status other than the program's is hpm's own failure */
    hpm_failed = rc != x->r.exit_code;
    if (!x->in_job && (x->o.save_baseline || x->o.baseline))
        rc = count_baseline_step(&x->o, &x->r, x->dir,
                                 x->mode == MODE_PROFILE ? x->profile_out : NULL, x->m.name,
                                 x->cmd.wire, rc, hpm_failed);
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
    if (x->o.keep_output &&
        runner_write_output(cmd_name, x->o.keep_output, count_keep_output_to, &x->out))
        return 1;
    build_report(x);
    return emit(x);
}

/* Plan (count_front, count_prepare), the tool's command, the run, the
 * report. */
static int count_or_run(int argc, char **argv, enum count_mode mode)
{
    static struct count_row rows[MAX_ROWS];
    /* zeroed: every error path frees what it holds, made or not */
    struct count_run *x = calloc(1, sizeof *x);
    int rc;
    if (!x) {
        fprintf(stderr, "hpm: out of memory\n");
        return 1;
    }
    x->mode = mode;
    x->run_only = mode == MODE_RUN;
    x->profile = mode == MODE_PROFILE || mode == MODE_RECORD;
    x->rows = rows;
    cmd_name = x->run_only             ? "hpm run"
               : mode == MODE_RECORD ? "hpm record"
               : x->profile          ? "hpm profile"
                                     : "hpm count";
    rc = count_front(argc, argv, x->run_only, x->profile, &x->o, &x->profile_out, rows);
    if (rc == COUNT_GO)
        rc = count_prepare(mode == MODE_COUNT, x->run_only, x->profile, argc, argv, &x->o, &x->m,
                           &x->features, &x->rank_env, &x->in_job, x->job_dir,
                           sizeof x->job_dir, x->clamp_note, sizeof x->clamp_note, rows,
                           &x->n_rows, &x->vg, &x->lib);
    if (rc != COUNT_GO)
        goto done;
    /* live views whose tool was killed (SIGKILL leaves it no time to remove
     * its view) go now, as the folders of a killed hpm do */
    (void)hpm_live_list(NULL, 0, 1);
    x->hw = count_probe_pmu(x->pmu, sizeof x->pmu);
    machine_source(x);
    if ((!x->run_only || getenv("HPM_RUN_VERBOSE")) && !x->o.quiet &&
        (!x->in_job || x->rank_env.rank == 0))
        /* why there is no hardware PMU is the report's "host PMU" line: said once */
        fprintf(stderr, "hpm: counting on the virtual PMU, machine %s (modeled)%s\n", x->m.name,
                x->hw ? "; the hardware PMU counts with --pmu=perf" : "");
    if (x->clamp_note[0])
        fprintf(stderr, "hpm: note: %s\n", x->clamp_note);
    rc = 1;
    if (runner_tmpdir("hpm-count", x->dir, sizeof x->dir) != 0) {
        fprintf(stderr, "%s: cannot create a temporary directory in %s: %s\n", cmd_name,
                getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
                strerror(errno));
        x->dir[0] = 0;
        goto done;
    }
    x->cmd.vg = x->vg;
    if (count_toolcmd_build(&x->cmd, &x->o, &x->m, rows, x->n_rows, x->dir, mode,
                            mode == MODE_RECORD ? record_hook->tool_args : NULL) != 0) {
        fprintf(stderr, "%s: out of memory\n", cmd_name);
        goto done;
    }
    if (!x->in_job && (x->o.save_baseline || x->o.baseline) &&
        (rc = count_baseline_before(&x->o, &x->m, x->features, rows, x->n_rows,
                                    mode == MODE_PROFILE, x->cmd.wire)) != 0)
        goto done;
    rc = 1;
    if (x->o.repeat > 1 && !x->run_only && mode != MODE_RECORD &&
        count_repeat_runs(&x->o, x->dir) != 0)
        goto done;
    if (spawn(x) != 0)
        goto done;
    if (x->run_only) /* the program's own status is all hpm run reports */
        rc = WIFSIGNALED(x->res.status) ? 128 + WTERMSIG(x->res.status)
                                        : WEXITSTATUS(x->res.status);
    else
        rc = finish(x);
done:
    count_tree_free(&x->tree);
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

int cmd_count(int argc, char **argv)
{
    return count_or_run(argc, argv, MODE_COUNT);
}

/*
 * hpm profile [count's options] [-o FILE] -- PROGRAM [ARGS]
 * Runs PROGRAM as hpm count does, with every counted event attributed to the
 * instruction that caused it (profile_cmd.c): prints the counts' report and
 * writes the profile in callgrind's format to FILE
 * [callgrind.out.hpm.PID].
 */
int cmd_profile(int argc, char **argv)
{
    return count_or_run(argc, argv, MODE_PROFILE);
}

int count_record(int argc, char **argv, const struct count_hook *hook)
{
    int rc;
    record_hook = hook;
    rc = count_or_run(argc, argv, MODE_RECORD);
    record_hook = NULL;
    return rc;
}

/*
 * hpm run [--machine M] [-e EVENTS] [--start=no] -- PROGRAM [ARGS]
 * Runs PROGRAM (and every child it forks or execs) on the virtual PMU with
 * the events counting and prints nothing of its own: this is the
 * environment in which programs that read counters themselves (hpm.h,
 * libpapi) find the sim component. Exits with PROGRAM's status.
 */
int cmd_run(int argc, char **argv)
{
    return count_or_run(argc, argv, MODE_RUN);
}
