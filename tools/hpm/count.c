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
#include "profile_cmd.h"
#include "count_hook.h"
#include "latency.h"
#include "runner.h"
#include "vpmu_output.h"
#include "count_internal.h"

const char *count_cmd_name = "hpm count";





/* ------------------------------------------------------------ running */

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




enum count_mode { MODE_COUNT, MODE_RUN, MODE_PROFILE, MODE_RECORD };

/* hpm record's additions to a profile run (count_hook.h) */
static const struct count_hook *record_hook;


/* The note on what the live views of the killed processes showed last
 * (count_tree_take_views): each row's value at the view's last
 * publication. Not added to any total: the process counted on after it,
 * up to the signal. 1 when written, 0 when no killed process left a view. */
static int count_killed_views_note(const struct count_tree *t, const struct count_row *rows,
                                   unsigned n_rows, char *buf, size_t len)
{
    size_t at = 0;
    unsigned k, i, j, n = 0;
    uint64_t every = 0;
    for (k = 0; k < t->n; k++)
        if (t->procs[k].view) {
            every = t->procs[k].view->interval_ms; /* the run's --hpm-live-ms */
            n++;
        }
    if (!n)
        return 0;
    at += (size_t)snprintf(buf, len,
                           "what the live view%s of the killed process%s showed last (counts "
                           "up to %s last publication, made every %" PRIu64 " ms of host "
                           "time; not in the totals):",
                           n == 1 ? "" : "s", n == 1 ? "" : "es", n == 1 ? "its" : "their",
                           every);
    for (k = 0; k < t->n && at < len; k++) {
        const struct hpm_live *v = t->procs[k].view;
        if (!v)
            continue;
        at += (size_t)snprintf(buf + at, len - at, " pid %" PRIu64, t->procs[k].pid);
        for (i = 0; i < n_rows && at < len; i++) {
            uint64_t sum = 0;
            int have = 1, h;
            for (j = 0; j < rows[i].n_codes; j++) {
                sum += hpm_live_value(v, (unsigned)rows[i].codes[j], &h);
                have &= h;
            }
            if (have)
                at += (size_t)snprintf(buf + at, len - at, " %s %" PRIu64, rows[i].name, sum);
            else
                at += (size_t)snprintf(buf + at, len - at, " %s -", rows[i].name);
        }
        if (at < len && --n)
            at += (size_t)snprintf(buf + at, len - at, ";");
    }
    if (at >= len && len > 4)
        memcpy(buf + len - 4, "...", 4);
    return 1;
}

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

static int count_or_run(int argc, char **argv, enum count_mode mode)
{
    int run_only = mode == MODE_RUN, profile = mode == MODE_PROFILE || mode == MODE_RECORD;
    const char *profile_out = NULL;
    char profile_default[64];
    struct interval_watch watch;
    struct count_opts o;
    struct hpm_machine m;
    static struct count_row rows[MAX_ROWS];
    unsigned n_rows = 0, features;
    char clamp_note[160], pmu[256], dir[4096], sig_note[160], fork_note[200], core_note[160],
        exit_note[160], exec_note[600], lost_note[4200], left_note[160], upc_note[200],
        sat_note[200], killed_note[400], view_note[1000], native_note[1200],
        msrc[4200], err[512];
    const char *vg, *lib;
    char *codes = NULL, *wire = NULL, *out_arg = NULL, *machine_arg = NULL, *events_arg = NULL,
         **args = NULL, *gate_args[5] = {NULL, NULL, NULL, NULL, NULL}, *skip_arg = NULL;
    struct runner_spec spec = {0};
    struct runner_result res = {0};
    struct reap_views early = {0, NULL, 0};
    struct runner_killed *taken = NULL;
    /* zeroed: every error path frees them, loaded or not */
    struct vpmu_output out = {0};
    struct count_report r;
    struct count_tree tree = {0};
    int rc, hw, i, na = 0;
    long interval_ms = 0;
    char live_arg[48];
    unsigned execs;
    struct mpi_rank_env rank_env;
    int in_job = 0;
    char job_dir[4096] = "";

    cmd_name = run_only                ? "hpm run"
               : mode == MODE_RECORD ? "hpm record"
               : profile             ? "hpm profile"
                                     : "hpm count";
    rc = count_front(argc, argv, run_only, profile, &o, &profile_out, rows);
    if (rc != COUNT_GO)
        return rc;
    interval_ms = o.interval_ms;
    rc = count_prepare(mode == MODE_COUNT, run_only, profile, argc, argv, &o, &m, &features,
                       &rank_env, &in_job, job_dir, sizeof job_dir, clamp_note,
                       sizeof clamp_note, rows, &n_rows, &vg, &lib);
    if (rc != COUNT_GO)
        return rc;
    /* live views whose tool was killed (SIGKILL leaves it no time to remove
     * its view) go now, as the folders of a killed hpm do */
    (void)hpm_live_list(NULL, 0, 1);

    hw = count_probe_pmu(pmu, sizeof pmu);
    if (o.machine && strchr(o.machine, '/'))
        snprintf(msrc, sizeof msrc, "%s", o.machine);
    else if (strcmp(m.name, "host") == 0 || (o.machine && strcmp(o.machine, "host") == 0))
        snprintf(msrc, sizeof msrc, "this host, from sysfs");
    else if (o.machine && strstr(o.machine, ".machine"))
        snprintf(msrc, sizeof msrc, "%s", o.machine);
    else
        snprintf(msrc, sizeof msrc, "%s/%s.machine", machine_arg_dir(),
                 o.machine ? o.machine : HPM_DEFAULT_MACHINE);
    if ((!run_only || getenv("HPM_RUN_VERBOSE")) && (!in_job || rank_env.rank == 0))
        fprintf(stderr, "hpm: %s; %s the virtual PMU, machine %s (modeled)\n", pmu,
                hw ? "hpm count uses" : "counting on", m.name);
    if (clamp_note[0])
        fprintf(stderr, "hpm: note: %s\n", clamp_note);

    /* the tool's command line */
    wire = malloc(hpm_machine_wire_size());
    codes = count_codes_arg(&o, rows, n_rows);
    if (!wire || !codes || hpm_machine_wire_encode(&m, wire, hpm_machine_wire_size()) == 0) {
        fprintf(stderr, "%s: out of memory\n", cmd_name);
        rc = 1;
        goto done;
    }
    if (runner_tmpdir("hpm-count", dir, sizeof dir) != 0) {
        fprintf(stderr, "%s: cannot create a temporary directory in %s: %s\n", cmd_name,
                getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
                strerror(errno));
        rc = 1;
        goto done;
    }
    if (o.repeat > 1 && !run_only && mode != MODE_RECORD && count_repeat_runs(&o, dir) != 0) {
        rc = 1;
        goto done_dir;
    }
    {
        char *pat = escape_percent(dir, "/vpmu.%p.out");
        size_t l1 = strlen(wire) + 32, l2 = strlen(codes) + 32;
        machine_arg = malloc(l1);
        events_arg = malloc(l2);
        args = calloc((size_t)o.prog_argc + 24 + COUNT_HOOK_ARGS_MAX, sizeof *args);
        if (pat)
            out_arg = malloc(strlen(pat) + 16);
        if (!pat || !machine_arg || !events_arg || !args || !out_arg) {
            free(pat);
            fprintf(stderr, "%s: out of memory\n", cmd_name);
            rc = 1;
            goto done_dir;
        }
        sprintf(out_arg, "--hpm-out=%s", pat);
        free(pat);
        snprintf(machine_arg, l1, "--hpm-machine=%s", wire);
        snprintf(events_arg, l2, "--hpm-events=%s", codes);
    }
    args[na++] = (char *)vg;
    args[na++] = "-q";
    /* no gdbserver: its FIFOs (TMPDIR/vgdb-pipe-*) outlive a killed
     * simulator, and nothing of hpm's attaches a debugger */
    args[na++] = "--vgdb=no";
    args[na++] = "--tool=hpm";
    /* Valgrind's default of 500 threads panics programs that natively run
     * a thousand; 4096 slots cost about 30 MB more of the simulator's
     * memory and no time (docs/vpmu.md) */
    args[na++] = "--max-threads=" HPM_MAX_THREADS_STR;
    args[na++] = out_arg;
    args[na++] = machine_arg;
    args[na++] = events_arg;
    if (!o.start)
        args[na++] = "--hpm-start=no";
    {
        /* the gates and --multiplex's sets, as the tool's options */
        static const char *const gate_opt[] = {"--hpm-start-at=", "--hpm-stop-at=",
                                               "--hpm-only=", "--hpm-trigger=", "--hpm-mpx="};
        const char *gate_val[] = {o.start_at, o.stop_at, o.only, o.trigger, o.mpx_plan};
        unsigned g;
        for (g = 0; g < 5; g++) {
            if (!gate_val[g])
                continue;
            gate_args[g] = malloc(strlen(gate_opt[g]) + strlen(gate_val[g]) + 1);
            if (!gate_args[g]) {
                fprintf(stderr, "%s: out of memory\n", cmd_name);
                rc = 1;
                goto done_dir;
            }
            sprintf(gate_args[g], "%s%s", gate_opt[g], gate_val[g]);
            args[na++] = gate_args[g];
        }
    }
    if (interval_ms > 0) {
        /* the tool publishes at least twice per interval */
        snprintf(live_arg, sizeof live_arg, "--hpm-live-ms=%ld",
                 interval_ms / 2 > 1 ? interval_ms / 2 : 1);
        args[na++] = live_arg;
    }
    /* children and exec'd images run under the tool too: hpm count sums them
     * (count_procs.h) unless --no-children, hpm run lets them count */
    args[na++] = "--trace-children=yes";
    if (o.trace_skip) {
        /* Valgrind's own option: a matching exec'd program runs natively;
         * the tool names it in its segment (count_procs.h) */
        skip_arg = malloc(strlen(o.trace_skip) + 32);
        if (!skip_arg) {
            fprintf(stderr, "%s: out of memory\n", cmd_name);
            rc = 1;
            goto done_dir;
        }
        sprintf(skip_arg, "--trace-children-skip=%s", o.trace_skip);
        args[na++] = skip_arg;
    }
    /* --no-children: what the program's children exec runs natively (their
     * counts are left out anyway); the program's own execs are followed */
    if (o.no_children)
        args[na++] = "--hpm-children=no";
    if (profile)
        args[na++] = "--hpm-profile=yes";
    if (count_lat_n())
        args[na++] = "--hpm-lat-hist=yes"; /* LOADS:ldlat=N */
    if (mode == MODE_RECORD)
        for (i = 0; record_hook->tool_args[i] && i < COUNT_HOOK_ARGS_MAX; i++)
            args[na++] = (char *)record_hook->tool_args[i];
    if (run_only && !o.model_always)
        args[na++] = "--hpm-model=on-demand"; /* libhpm asks when it needs them */
    for (i = 0; i < o.prog_argc; i++)
        args[na++] = o.prog[i];
    args[na] = NULL;

    spec.argv = args;
    spec.env_name = "VALGRIND_LIB";
    spec.env_value = lib;
    spec.forward_signals = 1;
    spec.wait_tree = !run_only && !o.no_children;
    spec.take_view = take_killed_view;
    if (spec.wait_tree) {
        spec.before_reap = take_children_views;
        spec.reap_ctx = &early;
    }
    memset(&watch, 0, sizeof watch);
    watch.o = &o;
    if (interval_ms > 0) {
        spec.interval_ms = interval_ms;
        spec.on_interval = count_interval_tick;
        spec.ctx = &watch;
    }
    /* a killed process's live view is one of this run when made since (a
     * second early: tmpfs stamps files with a coarse clock) */
    early.since = (long long)time(NULL) - 1;
    rc = runner_run(cmd_name, &spec, &res);
    /* the final views the tree's children kept for their parents (for
     * PAPI_INHERIT) go once those parents have ended */
    hpm_live_reap_exited();
    if (watch.lr.open) {
        /* the view's last publication holds the final counts: the series'
         * deltas sum to the report's totals */
        if (rc == 0)
            count_interval_tick(&watch, res.pid);
        hpm_live_close(&watch.lr);
    }
    if (rc != 0) {
        rc = 1;
        goto done_dir;
    }
    if (run_only) {
        /* the program's own status is all hpm run reports */
        rc = WIFSIGNALED(res.status) ? 128 + WTERMSIG(res.status) : WEXITSTATUS(res.status);
        goto done_dir;
    }
    rc = count_tree_load(&tree, dir, (uint64_t)res.pid, !o.no_children, res.killed,
                         res.n_killed, err, sizeof err);
    /* what the killed processes' live views showed last (and the views
     * they left in /dev/shm go) */
    if (rc == 0) {
        /* the views hpm took as it reaped: the program's children's and
         * the orphans' */
        unsigned n_taken = res.n_killed + early.n;
        if (n_taken && (taken = malloc(n_taken * sizeof *taken))) {
            if (res.n_killed)
                memcpy(taken, res.killed, res.n_killed * sizeof *taken);
            if (early.n)
                memcpy(taken + res.n_killed, early.v, early.n * sizeof *taken);
        } else
            n_taken = 0;
        count_tree_take_views(&tree, early.since, taken, n_taken);
    }
    if (rc == 1) {
        if (WIFSIGNALED(res.status))
            fprintf(stderr,
                    "hpm count: the virtual PMU wrote no output: valgrind was killed by signal "
                    "%d (%s) before it could\n",
                    WTERMSIG(res.status), strsignal(WTERMSIG(res.status)));
        else
            fprintf(stderr,
                    "hpm count: the virtual PMU wrote no output (valgrind exited with status "
                    "%d): it could not run %s (see valgrind's message above)\n",
                    WEXITSTATUS(res.status), o.prog[0]);
        /* killed from outside (SIGKILL leaves the tool no time to write):
         * still exit as the shell would have seen it; valgrind's own 126/127
         * (it could not execute the program) are a shell's too */
        rc = WIFSIGNALED(res.status)                                        ? 128 + WTERMSIG(res.status)
             : WEXITSTATUS(res.status) == 126 || WEXITSTATUS(res.status) == 127 ? WEXITSTATUS(res.status)
                                                                            : 1;
        if (in_job) {
            /* the job's aggregate names this rank as missing, and why */
            char why[160];
            if (WIFSIGNALED(res.status))
                snprintf(why, sizeof why, "killed by signal %d (%s) before the virtual PMU "
                         "wrote its counts", WTERMSIG(res.status), strsignal(WTERMSIG(res.status)));
            else
                snprintf(why, sizeof why, "the virtual PMU wrote no counts (valgrind exited "
                         "with status %d)", WEXITSTATUS(res.status));
            if (mpi_rank_write_lost(cmd_name, job_dir, &rank_env,
                                    WIFSIGNALED(res.status) ? WTERMSIG(res.status) : 0,
                                    WIFSIGNALED(res.status) ? 0 : WEXITSTATUS(res.status),
                                    why) == 0)
                mpi_rank_aggregate(cmd_name, &rank_env, job_dir, o.fmt, o.output, o.per_rank);
        }
        goto done_dir;
    }
    if (rc != 0 || count_tree_total(&tree, &out, err, sizeof err) != 0) {
        fprintf(stderr, "%s: the virtual PMU's output is unusable: %s\n", cmd_name, err);
        count_tree_free(&tree);
        vpmu_output_free(&out);
        rc = 1;
        goto done_dir;
    }
    if (count_check_counts(&out, rows, n_rows, "the virtual PMU's output") != 0) {
        count_tree_free(&tree);
        vpmu_output_free(&out);
        rc = 1;
        goto done_dir;
    }
    if (o.keep_output && runner_write_output(cmd_name, o.keep_output, count_keep_output_to, &out)) {
        count_tree_free(&tree);
        vpmu_output_free(&out);
        rc = 1;
        goto done_dir;
    }

    memset(&r, 0, sizeof r);
    r.argv = o.prog;
    r.argc = o.prog_argc;
    r.machine_source = msrc;
    r.pmu = pmu;
    r.hw_pmu = hw;
    r.out = &out;
    r.rows = rows;
    r.n_rows = n_rows;
    r.have_rusage = 1;
    r.ru = res.ru;
    r.per_core = o.per_core;
    r.per_thread = o.per_thread;
    r.procs = tree.procs;
    r.n_procs = tree.n;
    if (clamp_note[0])
        r.notes[r.n_notes++] = clamp_note;
    /* valgrind re-raises the program's fatal signal on itself */
    if (!count_report_exit(&r, res.status, sig_note, sizeof sig_note)) {
        if (out.exit_kind == VPMU_EXIT_STATUS && (out.exit_value & 0xff) != r.exit_status) {
            snprintf(exit_note, sizeof exit_note,
                     "valgrind exited with status %d, the program with %d", r.exit_status,
                     out.exit_value);
            r.notes[r.n_notes++] = exit_note;
        }
    }
    if (out.cores != m.hier.cores) {
        snprintf(core_note, sizeof core_note, "the tool modeled %u cores, the machine has %u",
                 out.cores, (unsigned)m.hier.cores);
        r.notes[r.n_notes++] = core_note;
    }
    execs = count_proc_execs(&tree.procs[0]);
    if (execs) {
        /* the chain of images of the program's own process */
        size_t at = 0;
        unsigned k;
        at += (size_t)snprintf(exec_note + at, sizeof exec_note - at,
                               "the program exec'd %u time%s (", execs, execs == 1 ? "" : "s");
        for (k = 0; k < tree.procs[0].n_commands && at < sizeof exec_note; k++)
            at += (size_t)snprintf(exec_note + at, sizeof exec_note - at, "%s%s",
                                   k ? " -> " : "", tree.procs[0].commands[k]);
        if (at < sizeof exec_note)
            snprintf(exec_note + at, sizeof exec_note - at,
                     "); the counts before and after each exec are summed");
        r.notes[r.n_notes++] = exec_note;
    }
    if (!tree.procs[0].complete) {
        if (tree.procs[0].native)
            snprintf(lost_note, sizeof lost_note,
                     "the program exec'd %s, which ran natively (--trace-children-skip): counts "
                     "up to the exec",
                     tree.procs[0].native);
        else
            snprintf(lost_note, sizeof lost_note,
                     "the program's last image (after its exec) wrote no counts; counts up to "
                     "the exec");
        r.notes[r.n_notes++] = lost_note;
    }
    /* --no-children: the program's own forks, also of children still
     * running (which have no file yet) */
    if (tree.procs[0].out.forks > tree.skipped)
        tree.skipped = (unsigned)(tree.procs[0].out.forks > UINT_MAX ? UINT_MAX
                                                                   : tree.procs[0].out.forks);
    if (tree.n > 1 || (o.no_children && tree.skipped)) {
        unsigned missing = 0, k;
        for (k = 1; k < tree.n; k++)
            missing += !tree.procs[k].complete;
        if (o.no_children)
            snprintf(fork_note, sizeof fork_note,
                     "the program started %u more process%s; --no-children: their counts are "
                     "not included",
                     tree.skipped, tree.skipped == 1 ? "" : "es");
        else
            snprintf(fork_note, sizeof fork_note,
                     "counts are the sum over %u processes, the program and the %u it started "
                     "(table below; --no-children counts the program alone)%s",
                     tree.n, tree.n - 1,
                     missing ? "; some ended without writing their final counts" : "");
        r.notes[r.n_notes++] = fork_note;
    }
    if (tree.killed || res.killed_unlisted) {
        /* SIGKILL leaves a process's tool no time to write: its parent's
         * wait, or hpm's for an orphan, saw it (count_procs.h) */
        size_t at = 0;
        unsigned k, named = 0;
        at += (size_t)snprintf(killed_note + at, sizeof killed_note - at,
                               "%u process%s killed before writing %s counts (",
                               tree.killed, tree.killed == 1 ? " was" : "es were",
                               tree.killed == 1 ? "its" : "their");
        for (k = 0; k < tree.n && at < sizeof killed_note; k++)
            if (tree.procs[k].killed_signal)
                at += (size_t)snprintf(killed_note + at, sizeof killed_note - at,
                                       "%spid %" PRIu64 " by signal %d (%s)", named++ ? ", " : "",
                                       tree.procs[k].pid, tree.procs[k].killed_signal,
                                       strsignal(tree.procs[k].killed_signal));
        if (res.killed_unlisted && at < sizeof killed_note)
            at += (size_t)snprintf(killed_note + at, sizeof killed_note - at,
                                   "%s%u more not in the table (out of memory)",
                                   named ? ", " : "", res.killed_unlisted);
        if (at < sizeof killed_note)
            snprintf(killed_note + at, sizeof killed_note - at,
                     "): %s counts are lost, the totals are without them",
                     tree.killed == 1 ? "its" : "their");
        r.notes[r.n_notes++] = killed_note;
        if (count_killed_views_note(&tree, rows, n_rows, view_note, sizeof view_note) &&
            r.n_notes < COUNT_MAX_NOTES)
            r.notes[r.n_notes++] = view_note;
    }
    if (tree.native_procs) {
        size_t at = 0;
        unsigned k;
        at += (size_t)snprintf(native_note + at, sizeof native_note - at,
                               "--trace-children-skip: %u program%s ran natively, not counted "
                               "and not in the process table (",
                               tree.native_procs, tree.native_procs == 1 ? "" : "s");
        for (k = 0; k < tree.n_native && at < sizeof native_note; k++)
            at += (size_t)snprintf(native_note + at, sizeof native_note - at, "%s%s x%u",
                                   k ? ", " : "", tree.native[k].path, tree.native[k].n);
        if (at < sizeof native_note)
            snprintf(native_note + at, sizeof native_note - at, ")");
        r.notes[r.n_notes++] = native_note;
    }
    if (count_upc_write_note(&out, upc_note, sizeof upc_note))
        r.notes[r.n_notes++] = upc_note;
    if (vpmu_output_saturated_note(&out, sat_note, sizeof sat_note))
        r.notes[r.n_notes++] = sat_note;
    if (res.tree_left) {
        snprintf(left_note, sizeof left_note,
                 "hpm stopped waiting for the program's children (a signal); those still "
                 "running are not counted");
        r.notes[r.n_notes++] = left_note;
    }
    if (count_lat_n() && r.n_notes < COUNT_MAX_NOTES) {
        const char *ln = count_lat_note(dir, (uint64_t)res.pid, !o.no_children);
        if (ln)
            r.notes[r.n_notes++] = ln;
    }
    if (in_job) {
        /* a rank: its result (the JSON report) into the job's folder; the
         * rank that completes the job writes the aggregate */
        char path[4200];
        struct count_opts ro = o;
        ro.fmt = FMT_JSON;
        ro.output = path;
        r.rank = &rank_env;
        if (mpi_rank_path(job_dir, rank_env.rank, path, sizeof path) != 0 ||
            count_write_report(&ro, &r) != 0)
            rc = 1;
        else if (mpi_rank_aggregate(cmd_name, &rank_env, job_dir, o.fmt, o.output,
                                    o.per_rank) != 0)
            rc = 1;
        else
            rc = r.exit_code;
    } else
        rc = count_write_report(&o, &r) == 0 ? r.exit_code : 1;
    if (mode == MODE_RECORD) {
        if (record_hook->after(dir, (uint64_t)res.pid, !o.no_children, record_hook->ctx) != 0)
            rc = 1;
    } else if (profile) {
        if (!profile_out) {
            snprintf(profile_default, sizeof profile_default, "callgrind.out.hpm.%ld",
                     (long)res.pid);
            profile_out = profile_default;
        }
        if (profile_write(cmd_name, dir, (uint64_t)res.pid, !o.no_children, o.prog,
                          o.prog_argc, m.name, profile_out) != 0)
            rc = 1;
    }
    if (!in_job && (o.save_baseline || o.baseline)) {
        int g = count_baseline_step(&o, &r, dir, profile ? profile_out : NULL, m.name, wire);
        /* the program's own failure keeps its status */
        if (g && rc == 0)
            rc = g;
    }
    count_tree_free(&tree);
    vpmu_output_free(&out);
done_dir:
    if (dir[0])
        runner_rmdir(dir);
done:
    runner_result_free(&res);
    free(taken);
    while (early.n)
        free(early.v[--early.n].view);
    free(early.v);
    free(wire);
    free(codes);
    free(out_arg);
    free(machine_arg);
    free(events_arg);
    free(args);
    free(skip_arg);
    for (i = 0; i < 5; i++)
        free(gate_args[i]);
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
