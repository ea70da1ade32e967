/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * passes.h - hpm count --passes: more events than the machine's counter
 * unit holds at once ([counters], src/encode), counted by running the
 * program once per set of events, as seed 004's PM API does for repeatable
 * jobs.
 */
#ifndef HPM_TOOL_PASSES_H
#define HPM_TOOL_PASSES_H

#include "report/count_report.h"
#include "machine.h"

#define PASSES_NOT_NEEDED (-1000)

struct count_plan;

/* Whether the plan's rows need passes and, if so, runs them in this
 * process: each pass a plan made from p (run.h) with its set of
 * events and the correlate, its counts kept, the passes' counts merged
 * and reported with the user's events, format and notes, the passes and
 * the correlate's verdict as notes. With --multiplex, one run cycles the
 * sets instead (the tool's --hpm-mpx) and the report scales each event by
 * the correlate, labelled estimated. Returns PASSES_NOT_NEEDED when the
 * events fit one configuration and neither was given, else the exit
 * status. */
int passes_maybe_run(const struct count_plan *p);

#endif
