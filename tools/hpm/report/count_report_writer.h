/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * count_report_writer.h - how hpm count's report is written: one walk over
 * the report model (count_report_walk.c) calls one writer per format (text,
 * JSON, CSV), as perf stat's display walks its counters once with a callback
 * per format. Each writer serves both sources: the virtual PMU's modeled
 * counts (m->r->measured NULL) and perf_event's measured ones.
 *
 * The walk, in order:
 *   begin                  the program, the source, the exit, the notes
 *   part(EVENTS)           then event(i) for each of m->n_events
 *   part(HOST)             the host's measurements (wait4's rusage)
 *   part(METRICS)          then metric(i) for each of m->n_metrics
 *   end                    the modeled report's tables (processes, threads,
 *                          regions, UPC units, MPI ranks) and the close
 */
#ifndef HPM_TOOL_COUNT_REPORT_WRITER_H
#define HPM_TOOL_COUNT_REPORT_WRITER_H

#include <stdio.h>

#include "report/count_report.h"

struct mpi_rank_result;

enum count_report_part { COUNT_PART_EVENTS, COUNT_PART_HOST, COUNT_PART_METRICS };

struct count_report_writer {
    void (*begin)(FILE *f, const struct count_report_model *m);
    void (*part)(FILE *f, const struct count_report_model *m, enum count_report_part p);
    void (*event)(FILE *f, const struct count_report_model *m, unsigned i);
    void (*metric)(FILE *f, const struct count_report_model *m, unsigned i);
    void (*end)(FILE *f, const struct count_report_model *m);
};

extern const struct count_report_writer count_report_text_writer;
extern const struct count_report_writer count_report_json_writer;
extern const struct count_report_writer count_report_csv_writer;

/* Values and texts the writers share (count_report_model.c). */
uint64_t report_add_sat(uint64_t a, uint64_t b);
uint64_t report_row_value_in(const struct vpmu_output *o, const struct count_row *row);
int report_row_core_value(const struct count_report *r, const struct count_row *row, unsigned c,
                          uint64_t *v);
/* The kinds present, in the report's order: how many, in order[]. */
unsigned report_kind_order(const struct count_report *r, const unsigned char *present,
                           unsigned *order);
void report_proc_exit_text(const struct count_proc *p, char *buf, size_t len);
const char *report_signal_text(int sig);
double report_tv_seconds(struct timeval tv);
/* Rank r's count of row in an MPI job: 0 and *v, or -1 (no counts). */
int report_rank_value(const struct mpi_job *j, unsigned r, const struct count_row *row,
                      uint64_t *v);
void report_rank_exit_text(const struct mpi_rank_result *x, char *buf, size_t len);
/* What the per-rank tables show of rank k: 0, or -1 (no result file; a
 * combined job without per-rank tables). */
struct report_rank_info {
    const char *host;
    int have_counts;
    char exit[96];                        /* "status 0", "(counted to MPI_Finalize)" */
    const struct mpi_rank_result *result; /* NULL: a job combined at MPI_Finalize */
};
int report_rank_info(const struct mpi_job *j, unsigned k, struct report_rank_info *x);
/* A job combined at MPI_Finalize (mpi_combined.h): a statistic over `ranks`
 * ranks from its tuple; the combined row holding row (the same codes), or
 * -1. */
struct mpi_tuple;
struct mpi_combined;
void report_mpi_stat(const struct mpi_tuple *t, unsigned ranks, struct count_report_mpi_stat *s);
int report_combined_row(const struct mpi_combined *c, const struct count_row *row);
/* Node n's value of row: the sum of its ranks' (ranks n*N to n*N+N-1 at N
 * ranks per node). */
uint64_t report_node_value(const struct mpi_job *j, unsigned node, const struct count_row *row);
/* "measured" for what the host measured, "modeled" for the virtual node's counts. */
const char *report_row_source(const struct hpm_cat_kind_info *k);
/* The kernel unit's counts and the host's measurements go in the kernel column. */
int report_row_is_kernel(const struct hpm_cat_kind_info *k);

#endif
