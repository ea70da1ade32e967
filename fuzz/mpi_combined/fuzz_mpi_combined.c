/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: the reader of libhpm-mpi's combined results
 * (tools/hpm/report/mpi_combined.c, what rank 0's hpm count reads at the end of
 * an MPI job), then, for every file it accepts, the three aggregate reports
 * over its rows, so that no accepted file can crash or corrupt a report. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "report/count_report.h"
#include "report/mpi_combined.h"
#include "report/mpi_job.h"

static FILE *sink;

/* The report's rows: the file's rows, named by their first code. */
static unsigned rows_of(const struct mpi_combined *c, struct count_row *rows, unsigned max)
{
    unsigned i, k, n = 0;
    for (i = 0; i < c->nrows && n < max; i++) {
        struct count_row *r = &rows[n];
        int core;
        unsigned kind;
        memset(r, 0, sizeof *r);
        if (c->row_start[i + 1] - c->row_start[i] > HPM_CAT_MAX_CORES ||
            c->row_start[i + 1] == c->row_start[i] ||
            hpm_catalog_spec_decode(c->row_spec[c->row_start[i]], &kind, &core, NULL) != 0)
            continue;
        r->kind = kind;
        r->core = core;
        hpm_catalog_code_name(c->row_spec[c->row_start[i]], r->name, sizeof r->name);
        for (k = c->row_start[i]; k < c->row_start[i + 1]; k++)
            r->codes[r->n_codes++] = (int)c->row_spec[k];
        n++;
    }
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct count_row rows[64];
    struct mpi_combined c;
    char err[160];
    int rc;
    memset(err, 'x', sizeof err);
    rc = mpi_combined_parse(&c, (const char *)data, size, err, sizeof err);
    if (rc != 0 && (memchr(err, 0, sizeof err) == NULL || err[0] == 0))
        abort(); /* every error says, terminated, what is wrong */
    if (rc == 0) {
        struct mpi_job job;
        struct count_report r;
        unsigned i;
        if (!sink)
            sink = fopen("/dev/null", "w");
        memset(&job, 0, sizeof job);
        job.size = c.size;
        job.counted = c.size;
        job.per_rank = c.rank_codes != NULL;
        job.combined = &c;
        snprintf(job.total.machine, sizeof job.total.machine, "fuzz");
        job.total.cores = HPM_CAT_MAX_CORES;
        job.total.frequency_hz = 850000000;
        for (i = 0; i < c.ncodes; i++) {
            job.total.count[c.codes[i]] = c.process.codes[i].sum;
            job.total.have_count[c.codes[i]] = 1;
        }
        memset(&r, 0, sizeof r);
        r.out = &job.total;
        r.rows = rows;
        r.n_rows = rows_of(&c, rows, sizeof rows / sizeof rows[0]);
        r.mpi = &job;
        if (sink && (count_report_text(sink, &r) != 0 || count_report_json(sink, &r) != 0 ||
                     count_report_csv(sink, &r) != 0))
            abort();
        vpmu_output_free(&job.total);
    }
    mpi_combined_free(&c);
    return 0;
}
