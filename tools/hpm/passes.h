/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * passes.h - hpm count --passes: more events than the machine's counter
 * unit holds at once ([counters], src/encode), counted by running the
 * program once per set of events, as seed 004's PM API does for repeatable
 * jobs.
 */
#ifndef HPM_TOOL_PASSES_H
#define HPM_TOOL_PASSES_H

#include "count_report.h"
#include "machine.h"

#define PASSES_NOT_NEEDED (-1000)

struct passes_req {
    const struct hpm_machine *m;
    unsigned features;
    const struct count_row *rows;
    unsigned n_rows;
    const char *passes;    /* --passes: "auto", "N", or NULL */
    const char *correlate; /* --correlate, or NULL: INSTRUCTIONS */
    long multiplex;        /* --multiplex=N: one run, the sets cycled every N correlate
                              events; 0: passes */
    int argc;              /* hpm count's arguments (argv[0] "count") */
    char **argv;
};

/* Whether the request needs passes and, if so, runs them: each pass is
 * this hpm count again with its set of events and the correlate
 * (--keep-output), the passes' counts merged into one output file, and the
 * report written from it (--from-output, the passes and the correlate's
 * verdict as notes). With --multiplex, one run cycles the sets instead
 * (--mpx-plan: the tool's --hpm-mpx) and the report scales each event by
 * the correlate, labelled estimated. Returns PASSES_NOT_NEEDED when the
 * events fit one configuration and neither was given, else the exit
 * status. */
int passes_maybe_run(const struct passes_req *q);

#endif
