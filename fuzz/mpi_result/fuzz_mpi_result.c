/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: the parser of an MPI rank's result file
 * (tools/hpm/report/mpi_job.c, what hpm merge reads), then, for every file it
 * accepts, the three aggregate reports of a job of that one rank, so that
 * no accepted file can crash or corrupt a report. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/count_report.h"
#include "report/mpi_job.h"

static FILE *sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mpi_rank_result res;
    char err[160];
    int rc;
    memset(err, 'x', sizeof err);
    rc = mpi_rank_result_parse(&res, (const char *)data, size, err, sizeof err);
    if (rc != 0 && memchr(err, 0, sizeof err) == NULL)
        abort(); /* the message must be terminated */
    if (rc != 0 && err[0] == 0)
        abort(); /* every error says what is wrong */
    if (rc == 0 && res.have_counts) {
        static struct count_row rows[HPM_K_COUNT * HPM_CAT_MAX_CORES];
        struct mpi_rank_result **by = calloc((size_t)res.size, sizeof *by);
        struct mpi_job job;
        struct count_report r;
        char e2[200];
        if (!by)
            abort();
        memset(&job, 0, sizeof job);
        job.size = (unsigned)res.size;
        job.by_rank = by;
        by[res.rank] = &res;
        job.counted = 1;
        job.per_rank = 1;
        snprintf(job.total.machine, sizeof job.total.machine, "%s", res.out.machine);
        job.total.cores = res.out.cores;
        if (vpmu_output_add(&job.total, &res.out, e2, sizeof e2) != 0)
            abort();
        if (!sink)
            sink = fopen("/dev/null", "w");
        memset(&r, 0, sizeof r);
        r.out = &job.total;
        r.rows = rows;
        r.n_rows = count_rows_from_output(&job.total, rows, sizeof rows / sizeof rows[0]);
        r.mpi = &job;
        if (sink && (count_report_text(sink, &r) != 0 || count_report_json(sink, &r) != 0 ||
                     count_report_csv(sink, &r) != 0))
            abort();
        vpmu_output_free(&job.total);
        free(by);
    }
    mpi_rank_result_free(&res);
    return 0;
}
