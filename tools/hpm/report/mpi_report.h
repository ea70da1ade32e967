/* SPDX-License-Identifier: BSD-3-Clause */
/* mpi_report.h - an MPI job's aggregate report (mpi_report.c). */
#ifndef HPM_TOOL_MPI_REPORT_H
#define HPM_TOOL_MPI_REPORT_H

/* The aggregate report of an MPI job, written by hpm merge and by
 * the rank of `mpirun ... hpm count` that completes the job's results.
 * fmt: 0 text, 1 JSON, 2 CSV; output NULL = stdout. 0, or -1 (said why). */
struct mpi_job;
int mpi_job_report(const char *cmd, struct mpi_job *job, int fmt, const char *output);
/* The aggregate of a job that libhpm-mpi combined at MPI_Finalize
 * (mpi_combined.h), written by rank 0's hpm count: the rows it counted
 * (those it passed as HPM_MPI_ROWS), rank 0's machine and exit. 0, or -1
 * (said why). */
struct mpi_combined;
struct vpmu_output;
struct count_row;
int mpi_combined_report(const char *cmd, const struct mpi_combined *c,
                        const struct vpmu_output *rank0, int exit_signal, int exit_status,
                        struct count_row *rows, unsigned n_rows, int fmt, const char *output,
                        int per_rank);
/* A rank of `mpirun ... hpm count` after writing its result into dir: when
 * it completes the job's results (every rank's file is there) and wins the
 * election, it writes the aggregate. 0 (written or not its turn), or -1. */
struct mpi_rank_env;
int mpi_rank_aggregate(const char *cmd, const struct mpi_rank_env *e, const char *dir, int fmt,
                       const char *output, int per_rank);

#endif
