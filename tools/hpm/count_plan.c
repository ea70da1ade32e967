/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * count_plan.c - what hpm count, run, profile and record settle before the
 * tool runs: the options' combinations, the counter source (perf_event's
 * runs and --from-output end here), the program's environment, an MPI
 * rank's job, the machine, the rows, passes, the program and the tool
 * (count_internal.h).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog.h"
#include "count_internal.h"
#include "machine_arg.h"
#include "passes.h"
#include "runner.h"

int count_front(int argc, char **argv, int run_only, int profile, struct count_opts *o,
                const char **profile_out, struct count_row *rows)
{
    static struct count_perf_plan plan;
    char pmu[256];
    int rc, use_perf, hw;
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
    use_perf = run_only || profile ? 0 : count_choose_source(o, &plan);
    if (use_perf == 2)
        return 2;
    if (o->from_output)
        return count_from_output(o, rows);
    if (use_perf) {
        int said = 0;
        char found[4096];
        rc = count_find_program(o->prog[0], &said, found, sizeof found);
        if (said)
            return rc;
        if (rc == 127 || rc == 126) {
            fprintf(stderr, "%s: %s: %s\n", cmd_name, o->prog[0],
                    rc == 127 ? "command not found" : "not an executable file");
            return rc;
        }
        hw = count_probe_pmu(pmu, sizeof pmu);
        return count_on_perf(o, &plan, found, pmu, hw);
    }
    return COUNT_GO;
}

int count_prepare(int count_mode, int run_only, int profile, int argc, char **argv,
                  struct count_opts *o, struct hpm_machine *m, unsigned *features,
                  struct mpi_rank_env *rank_env, int *in_job, char *job_dir, size_t job_len,
                  char *clamp_note, size_t clamp_len, struct count_row *rows, unsigned *n_rows,
                  const char **vg, const char **lib)
{
    char err[512];
    int rc;
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
    if (count_mode) {
        rc = count_mpi_rank_setup(o, rank_env, job_dir, job_len);
        if (rc < 0)
            return 2;
        *in_job = rc;
        if (*in_job && (o->baseline || o->save_baseline || o->repeat)) {
            /* a rank's counts are a part of the job's: the gate compares
             * whole runs (docs/ci.md) */
            rmdir(job_dir); /* made for this run; another rank's results keep it */
            return count_usage_error("--baseline, --save-baseline and --repeat gate a whole "
                                     "run, not a rank of an MPI job: gate the job's aggregate "
                                     "with hpm diff --limit%s",
                                     "");
        }
    } else if (o->mpi || o->mpi_dir || o->per_rank) {
        fprintf(stderr, "%s: --mpi, --mpi-dir and --per-rank are hpm count options\n", cmd_name);
        return 2;
    }

    if ((rc = machine_arg_load(run_only ? "run" : profile ? "profile" : "count", o->machine, m, clamp_note, clamp_len)) != 0)
        return rc;
    if (o->coherence && !(hpm_catalog_features(&m->hier) & HPM_NEED_COHERENT)) {
        fprintf(stderr, "%s: --coherence=time: machine %s shares no lines: its L1 data caches "
                        "are not coherent ([l1d] coherence, more than one core)\n",
                cmd_name, m->name);
        return 2;
    }
    if ((rc = count_mpi_node_setup(o, m)) != 0) {
        if (*in_job)
            rmdir(job_dir); /* made for this run; another rank's results keep it */
        return rc;
    }
    *features = hpm_catalog_features(&m->hier) | (m->torus.x ? HPM_NEED_NET : 0);
    if ((rc = count_build_rows(o, m->name, m->hier.cores, *features, rows, n_rows)) != 0)
        return rc;
    if ((o->passes || o->multiplex) && (o->baseline || o->save_baseline || o->repeat))
        /* a gate compares one run's exact counts (docs/ci.md) */
        return count_usage_error("--baseline, --save-baseline and --repeat take one run's "
                                 "exact counts: not with --passes or --multiplex%s",
                                 "");
    if (count_mode && !*in_job && !o->keep_output) {
        /* more events than the machine's counter unit holds: passes */
        struct passes_req pq = {m,           *features,    rows, *n_rows, o->passes,
                                o->correlate, o->multiplex, argc, argv};
        rc = passes_maybe_run(&pq);
        if (rc != PASSES_NOT_NEEDED)
            return rc;
    } else if (o->passes || o->multiplex) {
        return count_usage_error("--passes and --multiplex are hpm count options (not with "
                                 "--mpi%s)", "");
    }
    {
        int said = 0;
        char found[4096];
        rc = count_find_program(o->prog[0], &said, found, sizeof found);
        if (said)
            return rc;
    }
    if (rc == 127) {
        fprintf(stderr, "%s: %s: command not found\n", cmd_name, o->prog[0]);
        return 127;
    }
    if (rc == 126) {
        fprintf(stderr, "%s: %s: not an executable file\n", cmd_name, o->prog[0]);
        return 126;
    }
    if (runner_find_tool(cmd_name, vg, lib) != 0)
        return 1;
    return COUNT_GO;
}
