/* SPDX-License-Identifier: BSD-3-Clause */
/* report.h - the call stacks of a recording (hpm record's perf.data), as
 * hpm report collapses them, for hpm diff. */
#ifndef HPM_TOOL_REPORT_H
#define HPM_TOOL_REPORT_H

#include <stddef.h>
#include <stdint.h>

struct report_stack {
    char *text;   /* "root;...;leaf", symbolized */
    uint64_t n;   /* samples, or events (their periods) */
    uint64_t old; /* hpm report --diff: OLD's value of this stack */
};

/* One recording's stacks of one event (NULL: the first), collapsed and
 * sorted by text; each sample weighs 1, or its period when `events`.
 * title gets "EVENT of PATH". 0, or 1 or 2 after a message on stderr. */
int report_load_stacks(const char *path, const char *event, int events,
                       struct report_stack **out, size_t *n_out, char *title, size_t title_len);

#endif
