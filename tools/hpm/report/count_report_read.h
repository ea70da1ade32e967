/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * count_report_read.h - the one reader of hpm count's JSON report, beside
 * its writer (count_report_json.c): the bytes back into the report
 * (count_report.h), so that hpm diff, hpm merge, an MPI job's aggregate,
 * hpm plot --baselines and --repeat read a report through one key list.
 *
 * Written, read and written again, a report is the same bytes
 * (tests/count's count.report_read), with three exceptions the format
 * cannot carry: a byte of a string that was not UTF-8 (written as its
 * Latin-1 character, read back as that character in UTF-8), a count above
 * 2^63-1 (JSON integers as jansson reads them end there: refused), and an
 * MPI job's "mpi" object (its statistics are read as the totals they sum;
 * the per-rank table is not read back). A process's counts are kept per
 * row: each row's value is put on its first code.
 *
 * Hand-written reports are read too: every object but "events" may be
 * absent; an event may give its "count" without "codes" (diff's inputs) or
 * its "codes" without "count" (a rank's result), and what is present is
 * checked (a count is a non-negative integer, a code an event of the
 * machine). The derived metrics (those of metrics.h) and the system
 * calls are kept as written: they were computed from counts the file need
 * not carry (r.given).
 */
#ifndef HPM_TOOL_COUNT_REPORT_READ_H
#define HPM_TOOL_COUNT_REPORT_READ_H

#include <stddef.h>
#include <stdint.h>

#include "report/count_report.h"
#include "report/mpi_job.h"

/* An event as the file gives it (rows or measured hold the rest). */
struct count_read_event {
    const char *name;  /* the row's or the measured event's; "" when none */
    int measured;      /* "source":"measured" (the host's, or perf_event's) */
    int have_codes;    /* a "codes" array (its counts are in out) */
    uint64_t count;    /* "count", else the sum of its codes */
};

struct count_report_doc {
    struct count_report r; /* points into what follows */
    struct vpmu_output out;
    int have_machine;      /* a "machine" object (out's machine, cores, clock) */
    int have_events;       /* an "events" array */
    int have_exit;         /* an "exit" object (else status 0) */
    struct count_read_event *events; /* r.n_rows (or r.n_measured) of them */
    struct count_row *rows;
    struct count_measured *measured;
    struct count_report_given given; /* r.given: the derived metrics and syscalls */
    struct count_proc *procs;
    char **argv;
    char *notes[COUNT_MAX_NOTES];
    char *machine_source, *machine_hash, *pmu, *perf_source;
    struct mpi_rank_env rank; /* r.rank points here when the report has "mpi_rank" */
    char why[200];            /* a rank's result without counts: why */
};

/* Reads len bytes of a report: 0; -1 when they are no JSON object (err:
 * "line N: ..." or "not a JSON object"); -2 when a member is not what the
 * report has there (err names it). *d is freed with count_report_doc_free
 * either way. */
int count_report_read(struct count_report_doc *d, const char *text, size_t len, char *err,
                      size_t errlen);
void count_report_doc_free(struct count_report_doc *d);

/* The file's event named name (case-insensitive), or NULL. */
const struct count_read_event *count_report_doc_event(const struct count_report_doc *d,
                                                      const char *name);

#endif
