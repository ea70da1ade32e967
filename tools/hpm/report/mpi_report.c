/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpi_report.c - the aggregate report of an MPI job: hpm count's report
 * (count_report.h) over the sum of the ranks, with its notes (the ranks
 * counted, sums past 2^64-1, the job's exit), for hpm merge, for the rank
 * of `mpirun ... hpm count` that completes the job's results, and for a
 * job libhpm-mpi combined at MPI_Finalize.
 */
#define _GNU_SOURCE /* strdup */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report/count_report.h"
#include "report/mpi_combined.h"
#include "report/mpi_job.h"
#include "report/mpi_report.h"
#include "util/runner.h"

#define MERGE_MAX_ROWS (HPM_K_COUNT * HPM_CAT_MAX_CORES)

struct merge_job {
    int fmt; /* 0 text, 1 JSON, 2 CSV */
    const struct count_report *r;
};

/* A note for rows whose sum over their cores passes 2^64-1 while each
 * code fits (vpmu_output_saturated_note names codes whose sum over the
 * ranks did not): the row the report shows stops at 2^64-1. 1 and the note
 * naming the first, or 0. */
static int row_saturated_note(const struct count_report *r, char *buf, size_t len)
{
    unsigned i, k, n = 0;
    const char *first = NULL;
    for (i = 0; i < r->n_rows; i++) {
        uint64_t v = 0;
        int over = 0, saturated_code = 0;
        for (k = 0; k < r->rows[i].n_codes; k++) {
            uint64_t x = r->out->count[r->rows[i].codes[k]];
            saturated_code |= x == UINT64_MAX;
            over |= v > UINT64_MAX - x;
            v = over ? UINT64_MAX : v + x;
        }
        if (over && !saturated_code && !n++)
            first = r->rows[i].name;
    }
    if (!n)
        return 0;
    snprintf(buf, len,
             "the sum of %s over its cores%s exceeds 2^64-1: shown at 18446744073709551615, the "
             "largest count a report holds",
             first, n > 1 ? " (and of more events)" : "");
    return 1;
}

static int merge_write(FILE *f, void *ctx)
{
    const struct merge_job *m = ctx;
    return m->fmt == 1 ? count_report_json(f, m->r)
           : m->fmt == 2 ? count_report_csv(f, m->r)
                         : count_report_text(f, m->r);
}

/* The aggregate of job over rows, with its notes and its exit. */
static int job_report(const char *cmd, struct mpi_job *job, struct count_row *rows,
                      unsigned n_rows, int fmt, const char *output)
{
    struct count_report r;
    struct merge_job mj;
    char note[200], exit_note[200], sat_note[200], row_note[200];
    unsigned k;
    memset(&r, 0, sizeof r);
    r.out = &job->total;
    r.rows = rows;
    r.n_rows = n_rows;
    r.mpi = job;
    snprintf(note, sizeof note,
             "counts are the sum over the %u rank%s of an MPI job that have counts%s", job->counted,
             job->counted == 1 ? "" : "s",
             job->size > job->counted ? "; some ranks are missing (below)" : "");
    r.notes[r.n_notes++] = note;
    if (vpmu_output_saturated_note(&job->total, sat_note, sizeof sat_note))
        r.notes[r.n_notes++] = sat_note;
    if (row_saturated_note(&r, row_note, sizeof row_note))
        r.notes[r.n_notes++] = row_note;
    /* the job's exit: the first rank (in rank order) that did not exit 0 */
    for (k = 0; k < job->size && job->by_rank; k++) {
        const struct mpi_rank_result *x = job->by_rank[k];
        if (!x || (x->exit_signal == 0 && x->exit_status == 0))
            continue;
        if (x->exit_signal) {
            r.exit_signal = x->exit_signal;
            r.exit_code = 128 + (x->exit_signal > 0 ? x->exit_signal : 0);
        } else {
            r.exit_status = x->exit_status;
            r.exit_code = x->exit_status & 0xff;
        }
        snprintf(exit_note, sizeof exit_note, "the exit shown is rank %u's, the first rank that "
                                              "did not exit with status 0", k);
        r.notes[r.n_notes++] = exit_note;
        break;
    }
    if (job->combined) {
        r.exit_signal = job->rank0_exit_signal;
        r.exit_status = job->rank0_exit_status;
        r.notes[r.n_notes++] = "the exit shown is rank 0's; the other ranks were still "
                               "running (their exits are in their result files)";
    }
    mj.fmt = fmt;
    mj.r = &r;
    return runner_write_output(cmd, output, merge_write, &mj);
}

int mpi_job_report(const char *cmd, struct mpi_job *job, int fmt, const char *output)
{
    static struct count_row rows[MERGE_MAX_ROWS];
    return job_report(cmd, job, rows, count_rows_from_output(&job->total, rows, MERGE_MAX_ROWS),
                      fmt, output);
}

int mpi_combined_report(const char *cmd, const struct mpi_combined *c,
                        const struct vpmu_output *rank0, int exit_signal, int exit_status,
                        struct count_row *rows, unsigned n_rows, int fmt, const char *output,
                        int per_rank)
{
    struct mpi_job job;
    unsigned i;
    int rc;
    memset(&job, 0, sizeof job);
    job.size = c->size;
    job.counted = c->size;
    job.per_rank = per_rank && c->rank_codes;
    job.combined = c;
    job.rank0_exit_signal = exit_signal;
    job.rank0_exit_status = exit_status;
    /* rank 0's machine, the sum over the ranks of every code */
    snprintf(job.total.machine, sizeof job.total.machine, "%s", rank0->machine);
    job.total.cores = rank0->cores;
    job.total.frequency_hz = rank0->frequency_hz;
    memcpy(job.total.level, rank0->level, sizeof job.total.level);
    memcpy(job.total.models, rank0->models, sizeof job.total.models);
    job.total.upcs = rank0->upcs;
    job.total.have_threads = 1;
    job.total.exit_kind = VPMU_EXIT_STATUS;
    if (rank0->command && !(job.total.command = strdup(rank0->command))) {
        fprintf(stderr, "%s: out of memory\n", cmd);
        return -1;
    }
    for (i = 0; i < c->ncodes; i++) {
        job.total.count[c->codes[i]] = c->process.codes[i].sum;
        job.total.have_count[c->codes[i]] = 1;
        job.total.n_counts++;
    }
    rc = job_report(cmd, &job, rows, n_rows, fmt, output);
    vpmu_output_free(&job.total);
    return rc;
}

int mpi_rank_aggregate(const char *cmd, const struct mpi_rank_env *e, const char *dir, int fmt,
                       const char *output, int per_rank)
{
    struct mpi_job job;
    char err[600];
    char *paths[1];
    int rc;
    if (!mpi_job_elect_aggregator(e, dir))
        return 0; /* a rank is still running (or lost), or another rank writes it */
    paths[0] = (char *)dir;
    if (mpi_job_load(&job, paths, 1, err, sizeof err) != 0) {
        fprintf(stderr, "%s: the job's aggregate: %s\n", cmd, err);
        mpi_job_free(&job);
        return -1;
    }
    job.per_rank = per_rank;
    rc = mpi_job_report(cmd, &job, fmt, output);
    mpi_job_free(&job);
    return rc;
}
