/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * count_plan.c - the run of hpm count, run, profile and record: the
 * plan built once from the parsed options (run.h), then executed
 * (count_execute.c). Building it settles the options' combinations, the counter
 * source (perf_event's runs and --from-output end here), the program's
 * environment, an MPI rank's job, the machine and where it came from, the
 * rows, and the passes (passes.c: run here when the events need them).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog.h"
#include "run/run_internal.h"
#include "util/elf_facts.h"
#include "util/machine_arg.h"
#include "run/passes.h"

/* perf_event's run: the program found, the counters attached. */
static int run_on_perf(const struct count_opts *o, struct count_perf_plan *plan)
{
    int said = 0, rc, hw;
    char found[4096], pmu[256];
    rc = count_find_program(o->prog[0], &said, found, sizeof found);
    if (said)
        return rc;
    if (rc == 127 || rc == 126) {
        fprintf(stderr, "%s: %s: %s\n", cmd_name, o->prog[0],
                rc == 127 ? "command not found" : "not an executable file");
        return rc;
    }
    hw = count_probe_pmu(pmu, sizeof pmu);
    return count_on_perf(o, plan, found, pmu, hw);
}

/* The options' combinations and the counter source: COUNT_GO for the
 * virtual PMU, else the exit status (perf_event's runs and --from-output
 * end here). */
static int count_front(int argc, char **argv, int run_only, int profile, struct count_opts *o,
                       const char **profile_out)
{
    struct count_perf_plan *plan;
    int rc, use_perf;
    rc = count_parse_opts(argc, argv, o);
    if (rc)
        return rc < 0 ? 0 : rc;
    o->run_only = run_only;
    if (profile) {
        /* -o names the profile; the counts' report goes to stdout */
        if (o->from_output) {
            fprintf(stderr, "hpm profile: --from-output is an hpm count option\n");
            return 2;
        }
        *profile_out = o->output;
        o->output = NULL;
        if (*profile_out && !count_output_dir_ok(*profile_out))
            return 2;
    }
    if (run_only && (o->fmt != FMT_TEXT || o->output || o->from_output || o->per_core ||
                     o->per_thread)) {
        fprintf(stderr, "hpm run: prints no report; use hpm count for --json, --csv, -o, "
                        "--per-core, --per-thread, --from-output\n");
        return 2;
    }
    if (o->interval_ms && run_only)
        return count_usage_error("-I is an hpm count option%s", "");
    if (!run_only && o->model_given) {
        fprintf(stderr, "hpm count: --model is an hpm run option (hpm count runs every model "
                        "its events need from the start)\n");
        return 2;
    }
    if (o->output && !count_output_dir_ok(o->output))
        return 2;
    if ((run_only || profile) && o->pmu_given && o->pmu != PMU_VIRTUAL) {
        fprintf(stderr, "%s: counts on the virtual PMU only (--pmu is an hpm count option)\n",
                cmd_name);
        return 2;
    }
    if (!(plan = calloc(1, sizeof *plan))) {
        fprintf(stderr, "%s: out of memory\n", cmd_name);
        return 1;
    }
    use_perf = run_only || profile ? 0 : count_choose_source(o, plan);
    rc = use_perf == 2       ? 2
         : o->from_output ? count_from_output(o)
         : use_perf       ? run_on_perf(o, plan)
                          : COUNT_GO;
    free(plan);
    return rc;
}

/* The program's environment under the simulator. */
static void program_env(const struct count_opts *o)
{
    char err[512];
    /* The simulator runs a program's threads one at a time, so an OpenMP
     * thread that spins at a barrier (libgomp's default, active waiting)
     * spins for its whole time slice while the thread it waits for cannot
     * run: ten times the run time, and spin-loop counts that no native run
     * would have. A program linked with libgomp waits passively (sleeps on
     * a futex at once) unless the user chose a policy; the environment of
     * any other program stays as it is, since its size alone changes the
     * counts of the program's start-up (docs/vpmu.md). */
    {
        static const char *const gomp[] = {"libgomp.", NULL};
        char found[4096];
        if (count_search_program(o->prog[0], found, sizeof found) == 0 &&
            program_needs_library(found, gomp, err, sizeof err) == 1)
            setenv("OMP_WAIT_POLICY", "passive", 0);
    }
    {
        /* a rank of an MPI job: hwloc (Open MPI's topology) cannot use
         * CPUID under Valgrind and says so on every rank; its Linux backend
         * reads the same topology from sysfs */
        struct mpi_rank_env e;
        if (mpi_rank_env_get(&e, err, sizeof err) == 1)
            setenv("HWLOC_COMPONENTS", "-x86", 0);
    }
}

/* An MPI rank's job (hpm count only). COUNT_GO, or the exit status. */
static int job_setup(struct count_plan *p)
{
    const struct count_opts *o = &p->o;
    int rc;
    if (p->mode != MODE_COUNT) {
        if (o->mpi || o->mpi_dir || o->per_rank) {
            fprintf(stderr, "%s: --mpi, --mpi-dir and --per-rank are hpm count options\n",
                    cmd_name);
            return 2;
        }
        return COUNT_GO;
    }
    rc = count_mpi_rank_setup(o, &p->rank_env, p->job_dir, sizeof p->job_dir);
    if (rc < 0)
        return 2;
    p->in_job = rc;
    if (p->in_job && (o->baseline || o->save_baseline || o->repeat)) {
        /* a rank's counts are a part of the job's: the gate compares
         * whole runs (docs/ci.md) */
        rmdir(p->job_dir); /* made for this run; another rank's results keep it */
        return count_usage_error("--baseline, --save-baseline and --repeat gate a whole "
                                 "run, not a rank of an MPI job: gate the job's aggregate "
                                 "with hpm diff --limit%s",
                                 "");
    }
    return COUNT_GO;
}

/* The machine and the rows. COUNT_GO, or the exit status. */
static int machine_and_rows(struct count_plan *p)
{
    struct count_opts *o = &p->o;
    struct hpm_machine *m = &p->m;
    int coherent;
    int rc = machine_arg_load(p->mode == MODE_RUN       ? "run"
                              : p->mode == MODE_COUNT ? "count"
                                                      : "profile",
                              o->machine, m, p->clamp_note, sizeof p->clamp_note);
    if (rc != 0)
        return rc;
    coherent = (hpm_catalog_features(&m->hier) & HPM_NEED_COHERENT) != 0;
    if (o->coherence && !coherent) {
        fprintf(stderr, "%s: --coherence=time: machine %s shares no lines: its L1 data caches "
                        "are not coherent ([l1d] coherence, more than one core)\n",
                cmd_name, m->name);
        return 2;
    }
    /* Threads as on hardware by default: where the L1Ds are coherent, the
     * accesses to the lines threads share are ordered by the threads'
     * modeled time (docs/vpmu.md, Coherence in modeled time). The tool
     * adds the turn check to a process's code from its first thread on, so
     * a single-threaded program runs as without turns. --interleave alone
     * asks for turns only; hpm record samples in Valgrind's slices or turns. */
    if (!o->coherence_given && !o->interleave && p->mode != MODE_RECORD && coherent)
        o->coherence = 1;
    if ((rc = count_mpi_node_setup(o, m)) != 0) {
        if (p->in_job)
            rmdir(p->job_dir); /* made for this run; another rank's results keep it */
        return rc;
    }
    p->features = hpm_catalog_features(&m->hier) | (m->torus.x ? HPM_NEED_NET : 0);
    if ((rc = count_build_rows(o, m->name, m->hier.cores, p->features, p->rows, &p->n_rows,
                               &p->lat)) != 0)
        return rc;
    if ((o->passes || o->multiplex) && (o->baseline || o->save_baseline || o->repeat))
        /* a gate compares one run's exact counts (docs/ci.md) */
        return count_usage_error("--baseline, --save-baseline and --repeat take one run's "
                                 "exact counts: not with --passes or --multiplex%s",
                                 "");
    return COUNT_GO;
}

int count_plan_settle(struct count_plan *p)
{
    int rc;
    program_env(&p->o);
    if ((rc = job_setup(p)) != COUNT_GO || (rc = machine_and_rows(p)) != COUNT_GO)
        return rc;
    if (p->mode == MODE_COUNT && !p->in_job && !p->o.keep_output) {
        /* more events than the machine's counter unit holds: passes */
        rc = passes_maybe_run(p);
        if (rc != PASSES_NOT_NEEDED)
            return rc;
    } else if (p->o.passes || p->o.multiplex) {
        return count_usage_error("--passes and --multiplex are hpm count options (not with "
                                 "--mpi%s)", "");
    }
    machine_arg_source(p->o.machine, &p->m, p->machine_source, sizeof p->machine_source);
    return COUNT_GO;
}

int count_plan_build(struct count_plan *p, enum count_mode mode, int argc, char **argv,
                     const struct count_hook *hook)
{
    int rc;
    memset(p, 0, sizeof *p);
    p->mode = mode;
    p->hook = hook;
    rc = count_front(argc, argv, mode == MODE_RUN, mode == MODE_PROFILE || mode == MODE_RECORD,
                     &p->o, &p->profile_out);
    return rc == COUNT_GO ? count_plan_settle(p) : rc;
}

void count_plan_init(struct count_plan *p, enum count_mode mode, const struct count_opts *o)
{
    memset(p, 0, sizeof *p);
    p->mode = mode;
    p->o = *o;
}

/* run.h */
int count_command(int argc, char **argv, enum count_mode mode, const struct count_hook *hook)
{
    struct count_plan *p = calloc(1, sizeof *p);
    int rc;
    cmd_name = mode == MODE_RUN       ? "hpm run"
               : mode == MODE_RECORD  ? "hpm record"
               : mode == MODE_PROFILE ? "hpm profile"
                                      : "hpm count";
    if (!p) {
        fprintf(stderr, "hpm: out of memory\n");
        return 1;
    }
    rc = count_plan_build(p, mode, argc, argv, hook);
    if (rc == COUNT_GO)
        rc = count_execute(p, NULL);
    free(p);
    return rc;
}

/* run.h */
int count_record(int argc, char **argv, const struct count_hook *hook)
{
    return count_command(argc, argv, MODE_RECORD, hook);
}
