/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * flame.h - what hpm report makes of a recording (hpm record's perf.data):
 * its call stacks collapsed (recording.c; hpm diff reads them too), written
 * as collapsed stacks or a flame graph (flame_graph.c), and its data
 * objects by latency (mem.c).
 */
#ifndef HPM_TOOL_FLAME_H
#define HPM_TOOL_FLAME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

/* What flame_write writes. */
struct flame_out {
    struct report_stack *stacks;
    size_t n;
    int svg;           /* a flame graph, else collapsed stacks */
    const char *title;
    int diff;          /* a differential one: each stack's old beside n */
    double scale;      /* --diff: the change of the deepest colour; 0: the largest found */
    int scale_given;   /* scale is --scale's (the key says so) */
};

/* Writes ctx (a struct flame_out) to f, as runner_write_output calls it:
 * 0, or -1. */
int flame_write(FILE *f, void *ctx);

/* hpm report --mem: path's data objects by latency (event NULL: the first
 * event), the top of them written to output (NULL: standard output). 0, or
 * 1 or 2 after a message. */
int report_mem(const char *path, const char *event, long top, const char *output);

#endif
