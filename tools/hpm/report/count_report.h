/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * count_report.h - the report of hpm count: a libHPM-style text table (seed
 * 001, Fig. 2), JSON or CSV, all three carrying the same data.
 *
 * The counts come from the virtual PMU's output file (vpmu_output.h) and are
 * modeled; the host section holds only what wait4() measured for the
 * simulator process. Kept apart from the code that runs the program so that
 * a tool output file can be reported on its own (hpm count --from-output).
 */
#ifndef HPM_TOOL_COUNT_REPORT_H
#define HPM_TOOL_COUNT_REPORT_H

#include <stdio.h>
#include <sys/resource.h>

#include "catalog.h"
#include "report/count_perf.h"
#include "report/count_procs.h"
#include "report/metrics.h"
#include "report/vpmu_output.h"

/* One requested event: a kind on all cores (core -1), on one core, or a
 * node kind (core -1). */
struct count_row {
    char name[HPM_CAT_NAME_MAX]; /* as reported: upper case */
    unsigned kind;
    int core;
    int codes[HPM_CAT_MAX_CORES];
    unsigned n_codes;
};

#define COUNT_MAX_NOTES 16

struct mpi_job;
struct mpi_rank_env;
struct count_report_given;

struct count_report {
    /* the program as run; argv NULL = take the tool's `command` record */
    char *const *argv;
    int argc;
    const char *machine_source; /* "machines/bgp.machine", "host (sysfs)", ... or NULL */
    const char *machine_hash;   /* the model's hash (baseline_machine_hash), hex, or NULL */
    const char *pmu;            /* what the PMU probe found, or NULL */
    int hw_pmu;                 /* 1 = a hardware PMU answered */
    const struct count_row *rows;
    unsigned n_rows;
    const struct vpmu_output *out;
    int have_rusage;
    struct rusage ru;
    const char *notes[COUNT_MAX_NOTES];
    unsigned n_notes;
    int per_core, per_thread;
    /* the processes summed in out (count_procs.h), the program first; a
     * table of them is written when there is more than one or the program
     * exec'd (text: a "processes" section; JSON: "processes"; CSV: rows of
     * section "process" with the pid in the region column). NULL = none. */
    const struct count_proc *procs;
    unsigned n_procs;
    /* how the program ended: signal > 0, else status */
    int exit_signal, exit_status;
    int exit_code; /* what hpm exits with */
    /* Measured by perf_event instead of modeled (hpm count --pmu=perf, or
     * auto where perf_event has every event): these are the report's
     * events, rows and out's counts are not used (out still gives the
     * program's command line when argv is NULL); perf_source describes the
     * perf component, inherited says whether the program's children were
     * counted. NULL = a report of the virtual PMU. */
    const struct count_measured *measured;
    unsigned n_measured;
    const char *perf_source;
    int inherited;
    int kernel; /* kernel mode counted too */
    /* an MPI job's aggregate (mpi_job.h): out is the sum over the ranks
     * with counts; the report adds, per row, the sum, min, average, max,
     * the max's rank and the imbalance (max / average), the missing ranks,
     * and with per_rank each rank's counts (text: an "MPI ranks" section;
     * JSON: "mpi"; CSV: sections "mpi", "mpi_missing" and "rank"). NULL = none. */
    const struct mpi_job *mpi;
    /* this report is the result of one rank of a job: JSON gets an
     * "mpi_rank" object (what hpm merge reads). NULL = none. */
    const struct mpi_rank_env *rank;
    /* a report read back from its JSON (count_report_read.h): what the
     * model computed from counts the file does not carry (every core of
     * a kind that a row asked for on one core), as the file gives it.
     * NULL = the model computes it. */
    const struct count_report_given *given;
};

/* The report model: everything the three writers show, computed once from
 * a struct count_report (totals of the rows, derived metrics through the
 * formula engine, host figures, sorted threads, the program and exit texts),
 * for modeled and measured counts alike; one walk over it calls the text,
 * JSON or CSV writer (count_report_writer.h), which only formats it. */
struct count_report_event {
    const struct count_row *row;
    const struct hpm_cat_kind_info *kind;
    uint64_t total; /* over the row's codes (saturating) */
};

struct count_report_metric {
    const struct hpm_metric *metric;
    int defined; /* 0: it would divide by zero */
    double value;
};

#define COUNT_REPORT_MAX_METRICS 32

/* One row over the ranks of an MPI job that have counts. */
struct count_report_mpi_stat {
    uint64_t sum, min, max;
    unsigned min_rank, max_rank; /* the lowest rank with that value */
    double avg;
    /* the average exactly: avg_whole + avg_micro / 10^6, rounded to a
     * millionth from a 128-bit sum (never above max) */
    uint64_t avg_whole;
    uint32_t avg_micro;
    int balanced_defined;        /* avg > 0 */
    double imbalance;            /* max / avg */
};

struct count_report_model {
    const struct count_report *r;
    const char *source;  /* "modeled" (the virtual PMU) or "measured" (perf_event) */
    unsigned n_events;   /* the report's events: r->n_rows, or r->n_measured */
    char *program;       /* the command line as a shell would need it */
    char exit[128];      /* "status 0", "killed by signal 11 (...)" */
    char frequency[64];  /* "850 MHz" */
    struct count_report_event *events; /* one per row */
    int have_syscalls;   /* the SYSCALLS kind was counted on every core */
    uint64_t syscalls;
    struct count_report_metric metrics[COUNT_REPORT_MAX_METRICS];
    unsigned n_metrics;
    const struct vpmu_thread **threads; /* by serial */
    int procs_shown;     /* a process table is part of the report */
    struct count_report_mpi_stat *mpi; /* one per row when r->mpi, else NULL */
    /* a job combined at MPI_Finalize: each row from MPI_Init to MPI_Finalize
     * (mpi: from the processes' start to MPI_Finalize) */
    struct count_report_mpi_stat *mpi_window;
};

/* The derived metrics and the system calls a report showed. */
struct count_report_given {
    struct count_report_metric metrics[COUNT_REPORT_MAX_METRICS];
    unsigned n_metrics;
    int have_syscalls;
    uint64_t syscalls;
};

/* An MPI row's average as text with `decimals` decimals (2: the text
 * report's), or with up to 6 and no trailing zeros (decimals < 0: JSON's
 * and CSV's number), from its exact parts. */
void count_report_avg_text(const struct count_report_mpi_stat *s, int decimals, char *buf,
                           size_t len);

/* Builds the model of r: 0, or -1 (out of memory). */
int count_report_model_build(const struct count_report *r, struct count_report_model *m);
void count_report_model_free(struct count_report_model *m);

/* Rows for what an output file counted (a report without -e): a kind
 * counted on every core is one row, else one row per counted core. Returns
 * how many (at most max). */
unsigned count_rows_from_output(const struct vpmu_output *out, struct count_row *rows,
                                unsigned max);

/* Cores the report covers: the tool's, limited to the catalog. */
unsigned count_report_cores(const struct count_report *r);

int count_report_text(FILE *f, const struct count_report *r);
int count_report_json(FILE *f, const struct count_report *r);
int count_report_csv(FILE *f, const struct count_report *r);

/* Exposed for tests of the escaping (JSON strings: src/json/json.h). */
void count_csv_field(FILE *f, const char *s);

#endif
