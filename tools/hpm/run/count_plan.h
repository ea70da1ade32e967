/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * count_plan.h - a run of hpm count, run, profile or record as a value: the
 * plan, built once from the parsed options (count_plan.c: the machine and
 * where it came from, the rows, the program's words, the tool's
 * arguments), and count_execute (count.c), which runs a plan and keeps
 * nothing between runs. --passes and --multiplex (passes.c), --repeat
 * (count.c), hpm roofline and hpm validate make plans from plans and
 * execute them in this process: hpm never runs itself again.
 */
#ifndef HPM_TOOL_COUNT_PLAN_H
#define HPM_TOOL_COUNT_PLAN_H

#include <stdio.h>

#include "run/count_internal.h"
#include "run/latency.h"

struct count_hook;

struct count_plan {
    enum count_mode mode;
    struct count_opts o;       /* as parsed (the program's words in o.prog) */
    struct hpm_machine m;
    char machine_source[4200]; /* where m came from, as the report says it */
    unsigned features;
    struct count_row rows[MAX_ROWS];
    unsigned n_rows;
    struct count_lat lat;      /* the latency thresholds among the events */
    const char *profile_out;   /* hpm profile's -o, or NULL */
    int in_job;                /* a rank of an MPI job (rank_env, job_dir) */
    struct mpi_rank_env rank_env;
    char job_dir[4096];
    char clamp_note[160];
    const struct count_hook *hook; /* hpm record's or upc-explore's additions, or NULL */
    /* A plan made from a plan: */
    const char *progress_name; /* the progress line's prefix ("pass 2 of 3"), or NULL */
    int progress_quiet_too;    /* the line is shown under --quiet too (roofline, validate) */
    const char *program_stdout, *program_stderr; /* the program's, redirected; or NULL */
    int capture;               /* no report: the counts go back to the caller */
};

/* What an execution gives back. */
struct count_outcome {
    int status;             /* the exit status hpm would have */
    int have_counts;        /* a capture's counts are in out */
    struct vpmu_output out; /* the run's counts (vpmu_output_free) */
};

/* Parses argv (options, "--", PROGRAM...) into p and settles it
 * (count_plan_settle). COUNT_GO when p is ready for count_execute; else
 * the exit status (usage errors; perf_event's runs, --from-output and
 * --passes end here). */
int count_plan_build(struct count_plan *p, enum count_mode mode, int argc, char **argv,
                     const struct count_hook *hook);

/* A plan from options a command set rather than parsed (hpm roofline's
 * profile, hpm validate's count: the virtual PMU counts), to be settled
 * once its caller has set the rest of it. */
void count_plan_init(struct count_plan *p, enum count_mode mode, const struct count_opts *o);

/* What the options settle: the program's environment, an MPI rank's job,
 * the machine and where it came from, the rows; the passes when hpm count's
 * events need them (run here: the exit status). COUNT_GO, or the exit
 * status after a message. */
int count_plan_settle(struct count_plan *p);

/* Runs the plan: the program found and the tool, the tool's run, the
 * report (unless p->capture), the profile or hpm record's step, the
 * baseline (and --repeat's runs first). Returns the exit status; res (may
 * be NULL) gets it and, with capture, the counts. */
int count_execute(const struct count_plan *p, struct count_outcome *res);

/* A command of the mode (hpm count, run, profile, record): its plan built
 * from argv (options, "--", PROGRAM...) and executed, messages named after
 * it. Returns the exit status. */
int count_command(int argc, char **argv, enum count_mode mode, const struct count_hook *hook);

#endif
