/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * count_pmu.c - hpm count on a host's perf_event: the PMU probe, the source chosen, the run
 * (run_internal.h: what the parts of run/ share).
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
#include "report/count_perf.h"
#include "report/count_report.h"
#include "machine_wire.h"
#include "report/mpi_job.h"
#include "live.h"
#include "run/run_internal.h"
#include "util/runner.h"
#include "report/vpmu_output.h"


/* ------------------------------------------------------------ PMU, program, tool */

/* Whether this machine has a usable hardware PMU; why not in why. */
int count_probe_pmu(char *why, size_t len)
{
    struct perf_event_attr a;
    long fd;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_HARDWARE;
    a.size = sizeof a;
    a.config = PERF_COUNT_HW_INSTRUCTIONS;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    if (fd >= 0) {
        close((int)fd);
        snprintf(why, len, "hardware PMU present");
        return 1;
    }
    if (errno == EACCES || errno == EPERM)
        snprintf(why, len, "hardware PMU not accessible (perf_event_open: %s)", strerror(errno));
    else
        snprintf(why, len, "no hardware PMU here (perf_event_open: %s)", strerror(errno));
    return 0;
}

/* ------------------------------------------------------------ perf_event */

/* The -e names, one per event (fields between commas, trimmed), in a
 * malloc'd array; returns how many, or -1 (an empty name, out of memory). */
int count_event_names(const struct count_opts *o, char ***out, char **store)
{
    size_t total = 0;
    unsigned i;
    int n = 0;
    char *buf, *w;
    char **v;
    for (i = 0; i < o->events.n; i++)
        total += strlen(o->events.v[i]) + 1;
    buf = malloc(total + 1);
    v = calloc(total + 1, sizeof *v);
    if (!buf || !v) {
        free(buf);
        free(v);
        return -1;
    }
    w = buf;
    for (i = 0; i < o->events.n; i++) {
        const char *s = o->events.v[i];
        for (;;) {
            const char *b, *e, *end = count_event_field(s, &b, &e);
            if (b == e) {
                free(buf);
                free(v);
                return -1;
            }
            memcpy(w, b, (size_t)(e - b));
            w[e - b] = 0;
            v[n++] = w;
            w += e - b + 1;
            s = end;
            if (*s != ',')
                break;
            s++;
        }
    }
    *out = v;
    *store = buf;
    return n;
}

/* An option only the virtual PMU has, or NULL. */
const char *count_virtual_only_option(const struct count_opts *o)
{
    if (o->machine)
        return "--machine";
    if (o->per_core)
        return "--per-core";
    if (o->per_thread)
        return "--per-thread";
    if (!o->start)
        return "--start=no";
    if (o->start_at)
        return "--start-at";
    if (o->stop_at)
        return "--stop-at";
    if (o->only)
        return "--only";
    if (o->trigger)
        return "--trigger";
    if (o->interval_ms)
        return "-I";
    if (o->interleave)
        return "--interleave";
    if (o->coherence)
        return "--coherence=time";
    if (o->from_output)
        return "--from-output";
    if (o->mpi || o->mpi_dir || o->per_rank)
        return "--mpi";
    /* a gate compares exact counts: measured ones would pass or fail by
     * the host's noise (docs/ci.md) */
    if (o->baseline)
        return "--baseline";
    if (o->save_baseline)
        return "--save-baseline";
    if (o->repeat)
        return "--repeat";
    if (o->ranks_per_node)
        return "--ranks-per-node";
    if (o->torus)
        return "--torus";
    return NULL;
}

/* Which source counts (--pmu): 1 = perf_event (plan filled), 0 = the
 * virtual PMU, 2 after printing why neither can. auto keeps the virtual
 * PMU without -e (every kind of the machine model: perf_event has few of
 * them) and with its own options, so hpm count's reports stay what they
 * were wherever perf_event lacks an event. */
int count_choose_source(const struct count_opts *o, struct count_perf_plan *plan)
{
    char **names = NULL, *store = NULL, err[768];
    const char *vo = count_virtual_only_option(o);
    int n = 0, rc;
    unsigned i;
    struct mpi_rank_env rank;
    if (o->pmu == PMU_VIRTUAL || (o->pmu == PMU_AUTO && (o->events.n == 0 || vo)))
        return 0;
    if (o->pmu == PMU_AUTO && mpi_rank_env_get(&rank, err, sizeof err) == 1)
        return 0; /* a rank of an MPI job: the job's aggregate is the virtual PMU's */
    if (vo) {
        fprintf(stderr, "%s: --pmu=perf: %s is an option of the virtual PMU\n", cmd_name, vo);
        return 2;
    }
    if (o->events.n) {
        n = count_event_names(o, &names, &store);
        if (n < 0) {
            if (o->pmu == PMU_AUTO)
                return 0; /* build_rows says what is wrong */
            fprintf(stderr, "%s: --pmu=perf: an empty event name in -e\n", cmd_name);
            return 2;
        }
    }
    rc = count_perf_plan(plan, names, (unsigned)n, err, sizeof err);
    free(names);
    free(store);
    if (rc != 0) {
        char probe[256];
        if (o->pmu == PMU_AUTO && rc == -2 && count_probe_pmu(probe, sizeof probe))
            fprintf(stderr, "hpm: note: --pmu=auto: %s; counting on the virtual PMU\n", err);
        if (o->pmu == PMU_AUTO)
            return 0; /* unknown names: build_rows says */
        fprintf(stderr, "%s: --pmu=perf: %s\n", cmd_name, err);
        return 2;
    }
    if (plan->all_available)
        return 1;
    for (i = 0; i < plan->n && plan->ev[i].available; i++)
        ;
    if (o->pmu == PMU_PERF) {
        fprintf(stderr, "%s: --pmu=perf: %s\n", cmd_name, plan->ev[i].why);
        return 2;
    }
    for (unsigned j = 0; j < plan->n; j++)
        if (plan->ev[j].kind < 0) {
            fprintf(stderr,
                    "%s: event '%s' counts only on perf_event, and perf_event cannot count "
                    "them all here: %s\n",
                    cmd_name, plan->ev[j].name, plan->ev[i].why);
            return 2;
        }
    /* without a hardware PMU, falling back is no news (here and above): the
     * banner and the report's "host PMU" line say it once */
    if (count_probe_pmu(err, sizeof err))
        fprintf(stderr, "hpm: note: --pmu=auto: %s; counting on the virtual PMU instead\n",
                plan->ev[i].why);
    return 0;
}

struct perf_job {
    struct count_perf_plan *plan;
    int inherit, started;
};

int count_perf_before_exec(void *ctx, pid_t child)
{
    struct perf_job *j = ctx;
    char err[512];
    if (count_perf_start(j->plan, child, j->inherit, err, sizeof err) != 0) {
        fprintf(stderr, "%s: perf_event: %s\n", cmd_name, err);
        return -1;
    }
    j->started = 1;
    return 0;
}

/* hpm count on perf_event: PROGRAM runs natively (path: where PATH found
 * it); its counters are attached between fork and exec, inherited by the
 * processes it starts unless --no-children, and read once the tree has
 * ended. */

/* The program's end as the report says it: exit status or signal, and for a
 * signal a note (in note) and a line on stderr. 1 if it was a signal. */
int count_report_exit(struct count_report *r, int status, char *note, size_t len)
{
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        r->exit_signal = sig;
        r->exit_code = 128 + sig;
        snprintf(note, len, "program killed by signal %d (%s); counts up to that point", sig,
                 strsignal(sig));
        r->notes[r->n_notes++] = note;
        fprintf(stderr, "hpm: %s\n", note);
        return 1;
    }
    r->exit_status = WEXITSTATUS(status);
    r->exit_code = r->exit_status;
    return 0;
}

int count_on_perf(const struct count_opts *o, struct count_perf_plan *plan,
                         const char *path, const char *pmu, int hw)
{
    struct runner_spec spec = {0};
    struct runner_result res;
    struct perf_job job = {plan, !o->no_children, 0};
    struct count_report r;
    struct vpmu_output none;
    char err[512], sig_note[160], left_note[160], names[512];
    size_t at = 0;
    unsigned i;
    int rc;

    for (i = 0; i < plan->n && at < sizeof names; i++)
        at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", i ? "," : "",
                               plan->ev[i].name);
    /* the host's PMU is the report's "host PMU" line: said once */
    if (!o->quiet)
        fprintf(stderr, "hpm: counting %s on perf_event (measured), the program natively\n",
                names);
    spec.argv = o->prog;
    spec.path = path;
    spec.forward_signals = 1;
    spec.wait_tree = !o->no_children;
    spec.before_exec = count_perf_before_exec;
    spec.ctx = &job;
    rc = runner_run(cmd_name, &spec, &res);
    /* the orphans a signal killed need no note here: perf_event's
     * inherited counters add an ended child's counts to its parent's,
     * whatever ended it */
    runner_result_free(&res);
    if (rc != 0) {
        if (job.started && plan->set >= 0)
            (void)count_perf_stop(plan, err, sizeof err);
        return 1;
    }
    if (count_perf_stop(plan, err, sizeof err) != 0) {
        fprintf(stderr, "%s: perf_event: %s\n", cmd_name, err);
        return 1;
    }
    memset(&none, 0, sizeof none);
    memset(&r, 0, sizeof r);
    r.argv = o->prog;
    r.argc = o->prog_argc;
    r.pmu = pmu;
    r.hw_pmu = hw;
    r.out = &none;
    r.have_rusage = 1;
    r.ru = res.ru;
    r.measured = plan->ev;
    r.n_measured = plan->n;
    r.perf_source = count_perf_description();
    r.inherited = job.inherit;
    r.kernel = plan->kernel;
    count_report_exit(&r, res.status, sig_note, sizeof sig_note);
    if (res.tree_left) {
        snprintf(left_note, sizeof left_note,
                 "hpm stopped waiting for the program's children (a signal); those still "
                 "running are counted up to now");
        r.notes[r.n_notes++] = left_note;
    }
    count_add_user_notes(&r, o);
    return count_write_report(o, &r) == 0 ? r.exit_code : 1;
}
