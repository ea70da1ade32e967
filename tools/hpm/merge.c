/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm merge: the aggregate of an MPI job's rank results, after the fact.
 *
 *   hpm merge [--json | --csv] [-o FILE] [--per-rank] RESULT|DIR...
 *
 * Each RESULT is a rank's JSON result as `mpirun ... hpm count` writes it
 * (DIR/rank.R.json; a folder stands for every rank.*.json in it). The
 * report is hpm count's (count_report.h) over the sum of the ranks, with
 * per event the sum, min, average, max, the max's rank and the imbalance,
 * and the ranks that are missing (no file, or a result without counts).
 */
#define _GNU_SOURCE /* strdup */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "report/mpi_job.h"
#include "report/mpi_report.h"
#include "util/options.h"
#include "util/runner.h"

struct merge_opts {
    int json, csv, per_rank;
    const char *output;
};

static const char merge_synopsis[] =
    "usage: hpm merge [--json | --csv] [-o FILE] [--per-rank] RESULT|DIR...\n"
    "\n"
    "Aggregates the results of the ranks of an MPI job (the rank.R.json files that\n"
    "`mpirun -np N hpm count [--mpi-dir DIR] -- PROGRAM` writes; a folder stands for\n"
    "all of them): the counts summed over the ranks, and per event the sum, min,\n"
    "average, max, the rank of the max and the imbalance (max / average). Ranks\n"
    "without a result, or whose program left no counts, are named as missing.\n"
    "\n";
static const char merge_footer[] =
    "\nExit status 0 when the report was written (missing ranks included), 1 when the\n"
    "results cannot be read, 2 for a usage error.\n";

static void merge_table(struct merge_opts *o, struct hpm_opt *t)
{
    const struct hpm_opt rows[] = {
        HPM_OPT_REPORT_ROWS(&o->json, &o->csv, &o->output),
        {"--per-rank", NULL, NULL, "add each rank's counts (a table of ranks)", HPM_OPT_FLAG,
         &o->per_rank, NULL, NULL, 0, 0},
        HPM_OPT_TABLE_END,
    };
    memcpy(t, rows, sizeof rows);
}

int cmd_merge(int argc, char **argv)
{
    struct merge_opts o;
    struct hpm_opt t[5];
    struct mpi_job job;
    char err[600];
    int rc, first;
    memset(&o, 0, sizeof o);
    merge_table(&o, t);
    rc = hpm_opt_parse("hpm merge", t, merge_synopsis, merge_footer, argc, argv, &first);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (o.json && o.csv)
        return hpm_opt_error("hpm merge", t, merge_synopsis, merge_footer,
                             "--json and --csv exclude each other%s", "");
    if (first >= argc)
        return hpm_opt_error("hpm merge", t, merge_synopsis, merge_footer,
                             "no result files (hpm merge RESULT|DIR...)%s", "");
    if (o.output && !runner_output_ok("hpm merge", o.output))
        return 2;
    if (mpi_job_load(&job, argv + first, (unsigned)(argc - first), err, sizeof err) != 0) {
        fprintf(stderr, "hpm merge: %s\n", err);
        mpi_job_free(&job);
        return 1;
    }
    job.per_rank = o.per_rank;
    rc = mpi_job_report("hpm merge", &job, o.json ? 1 : o.csv ? 2 : 0, o.output) == 0 ? 0 : 1;
    mpi_job_free(&job);
    return rc;
}
