/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpi_job.h - hpm count as one rank of an MPI job, and the job's results.
 *
 * `mpirun -np N hpm count [options] -- PROGRAM` starts one hpm count per
 * rank (Open MPI's mpirun, or any launcher that sets the rank in the
 * environment: srun, MPICH's hydra). Each rank counts its own process as
 * hpm count always does and writes its report as a JSON result file,
 * DIR/rank.R.json, into the job's folder (--mpi-dir, default
 * hpm-mpi.JOBID in the current folder). The rank that completes the set
 * (the last one to finish) writes the aggregate: per event the sum, min,
 * average, max, the rank of the max and the imbalance (max / average),
 * through the one report model (count_report.h). `hpm merge FILES|DIR`
 * aggregates result files after the fact: also when a rank is missing,
 * which the aggregate then names.
 *
 * A rank whose program was killed before the virtual PMU could write
 * anything still writes a result, without counts, saying why; a rank whose
 * hpm itself was killed leaves no file. Either way the aggregate keeps the
 * other ranks' counts and lists the rank as missing.
 */
#ifndef HPM_TOOL_MPI_JOB_H
#define HPM_TOOL_MPI_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "report/vpmu_output.h"

#define MPI_JOB_MAX_RANKS 65536

/* Where this process stands in an MPI job, from the launcher's environment. */
struct mpi_rank_env {
    int rank, size;      /* -1 when not in a job */
    char job[128];       /* the job's id ("" when the launcher gives none) */
    char host[256];
    const char *rank_var; /* the variable the rank came from */
};

/* Fills e from OMPI_COMM_WORLD_RANK/_SIZE (Open MPI), PMI_RANK/PMI_SIZE
 * (MPICH, Intel MPI) or SLURM_PROCID/SLURM_NTASKS (srun). Returns 1 in a
 * job, 0 not, -1 with a message in err when the variables disagree with
 * each other or are not numbers. */
int mpi_rank_env_get(struct mpi_rank_env *e, char *err, size_t errlen);

/* Whether the ELF file at path needs an MPI library (a DT_NEEDED entry
 * naming libmpi). 1 yes, 0 no, -1 unreadable (err says why). */
int mpi_program_links_mpi(const char *path, char *err, size_t errlen);

/* One rank's result as read from its file. */
struct mpi_rank_result {
    int rank, size;
    char job[128];
    char host[256];
    char *path;          /* the file it came from */
    int have_counts;     /* 0: the rank ended without counts (why) */
    char why[200];
    int exit_signal;     /* > 0: killed by it; -1 unknown signal */
    int exit_status;
    struct vpmu_output out; /* the rank's counts (have_counts) */
};

struct mpi_combined;

/* A job's results: ranks 0..size-1, each with a result or missing; or,
 * combined over MPI at MPI_Finalize (combined != NULL), every rank's
 * statistics without results (by_rank NULL). */
struct mpi_job {
    unsigned size;
    struct mpi_rank_result **by_rank; /* size entries; NULL = no file */
    struct mpi_rank_result *res;      /* the files read */
    unsigned n_res;
    unsigned counted;                 /* ranks with counts */
    struct vpmu_output total;         /* sum over the ranks with counts */
    int per_rank;                     /* show the per-rank table */
    const struct mpi_combined *combined;
    int rank0_exit_signal, rank0_exit_status; /* combined: rank 0's own exit */
};

/* Parses one result file's bytes. Returns 0, or -1 with err ("what is
 * wrong"); *r must be freed with mpi_rank_result_free either way. */
int mpi_rank_result_parse(struct mpi_rank_result *r, const char *buf, size_t len, char *err,
                          size_t errlen);
void mpi_rank_result_free(struct mpi_rank_result *r);

/* Reads the result files (a folder stands for its rank.*.json files) into
 * a job: every file of one job, no rank twice, one world size. Returns 0,
 * or -1 with a message naming the file. */
int mpi_job_load(struct mpi_job *j, char *const *paths, unsigned n, char *err, size_t errlen);
void mpi_job_free(struct mpi_job *j);

/* Why rank r has no counts (NULL when it has them). Inline, so that the
 * report (count_report_*.c) needs no JSON reader to show a job. */
static inline const char *mpi_job_missing_reason(const struct mpi_job *j, unsigned r)
{
    if (r >= j->size || j->combined)
        return NULL; /* combined: every rank reached MPI_Finalize */
    if (!j->by_rank[r])
        return "no result file (its hpm was killed, or it never ran)";
    if (!j->by_rank[r]->have_counts)
        return j->by_rank[r]->why[0] ? j->by_rank[r]->why : "no counts";
    return NULL;
}

/* The result file of rank in dir (DIR/rank.R.json). */
int mpi_rank_path(const char *dir, int rank, char *buf, size_t len);

/* After this rank wrote its result: marks it done (DIR/.done.JOB.R); 1
 * when every rank of this job is done and this process won the right to
 * write the aggregate (an exclusive file, DIR/.aggregate.JOB; the done
 * marks are then removed), 0 when not (a rank is still running, or another
 * rank writes it). */
int mpi_job_elect_aggregator(const struct mpi_rank_env *e, const char *dir);

/* Writes a result without counts for a rank whose program left none. */
int mpi_rank_write_lost(const char *cmd, const char *dir, const struct mpi_rank_env *e,
                        int exit_signal, int exit_status, const char *why);

#endif
