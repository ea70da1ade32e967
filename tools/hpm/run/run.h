/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run.h - what run/ offers the commands: a run of hpm count, run, profile
 * or record as a value: the options, the plan, built once from them
 * (count_plan.c: the machine and where it came from, the rows, the
 * program's words, the tool's arguments), and count_execute
 * (count_execute.c), which runs a plan and keeps nothing between runs.
 * --passes and --multiplex (passes.c), --repeat (count_execute.c), hpm
 * roofline and hpm validate make plans from plans and execute them in this
 * process: hpm never runs itself again. hpm record and upc-explore add to
 * a profile run through a count_hook.
 */
#ifndef HPM_TOOL_RUN_H
#define HPM_TOOL_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "machine.h"
#include "report/count_report.h"
#include "report/mpi_job.h"
#include "run/latency.h"
#include "util/options.h"

/* "hpm count", "hpm run", "hpm profile" or "hpm record": the prefix of every
 * message (count_command sets it) */
extern const char *count_cmd_name;

#define MAX_ROWS 512

enum out_format { FMT_TEXT, FMT_JSON, FMT_CSV };

struct count_opts {
    const char *machine;
    struct hpm_opt_list events;
    enum out_format fmt;
    int json, csv;
    const char *output;
    const char *from_output;
    int per_core, per_thread, start;
    int no_children; /* count only the program, not the processes it starts */
    const char *trace_skip; /* --trace-children-skip: programs that run natively */
    long interval_ms; /* -I MS: an interval series of the program's live counts */
    int run_only; /* hpm run: follow children, print no report */
    int model_always; /* hpm run --model=always: models run from the start */
    int model_given;
    int pmu, pmu_given; /* enum pmu_choice */
    const char *start_at, *stop_at, *only, *trigger; /* gates (docs/vpmu.md, Gating) */
    int mpi;            /* --mpi: must be a rank of an MPI job, PROGRAM an MPI program */
    const char *mpi_dir; /* where the ranks' results go (mpi_job.h) */
    int per_rank;       /* the aggregate shows each rank's counts */
    long ranks_per_node; /* --ranks-per-node N: the ranks of a node share its model */
    const char *torus;   /* --torus XxYxZ: the job's torus shape */
    unsigned first_core, core_count; /* a rank's share of its node (count_mpi_node_setup) */
    const char *mpi_out; /* the tool's --hpm-mpi-out (count_mpi_combine_setup) */
    const char *save_baseline, *baseline; /* baseline.h */
    struct hpm_opt_list limits;
    long repeat; /* --repeat N: N identical runs first, to find unstable events */
    const char *passes;    /* --passes=auto|N: once per event set (passes.h) */
    const char *correlate; /* --correlate=EVENT: counted on every pass */
    long multiplex;        /* --multiplex=N: the sets cycled in one run every N correlate events */
    const char *mpx_plan;  /* --mpx-plan: that run's sets, for the tool's --hpm-mpx (passes.c) */
    long interleave;       /* --interleave=N: threads take turns of N instructions */
    long max_threads;      /* --max-threads=N: the simulator's thread slots */
    int coherence, coherence_given; /* --coherence: 1 = time (COUNT_COHERENCE_TURN) */
    const char *keep_output; /* --keep-output=FILE: the counts as the tool's output file */
    struct hpm_opt_list notes; /* --note=TEXT: added to the report (passes.h) */
    int progress, quiet;   /* --progress, --quiet: the progress line (progress.h) */
    char **prog; /* PROGRAM ARGS..., NULL-terminated */
    int prog_argc;
};

enum pmu_choice { PMU_AUTO = 0, PMU_PERF, PMU_VIRTUAL };

/* The options as the parser leaves them before it reads any. */
void count_opts_init(struct count_opts *o);

enum count_mode { MODE_COUNT, MODE_RUN, MODE_PROFILE, MODE_RECORD };

/* count_plan_build and count_plan_settle: the plan is ready for
 * count_execute (else they return an exit status) */
#define COUNT_GO (-1000)

struct vpmu_tool;

#define COUNT_HOOK_ARGS_MAX 8

/* hpm record's and upc-explore's additions to a profile run. */
struct count_hook {
    /* more options for the tool, NULL-terminated (at most COUNT_HOOK_ARGS_MAX) */
    const char *tool_args[COUNT_HOOK_ARGS_MAX + 1];
    /* a handler of the session that reads the run's output files once
     * (vpmufile.h: the program's and, when children, every process's), or
     * NULL */
    const struct vpmu_tool *tool;
    /* after the counts' report (main_pid: the program's process): 0 or -1
     * (the reason printed) */
    int (*after)(uint64_t main_pid, void *ctx);
    void *ctx;
};

/* hpm profile's run of count's argv (options, "--", PROGRAM...), named "hpm
 * record" in messages, with hook's options and step. Returns the exit code. */
int count_record(int argc, char **argv, const struct count_hook *hook);

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
