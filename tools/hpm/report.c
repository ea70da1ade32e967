/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report.c - hpm report --folded|--flamegraph [--event NAME] [-o OUT] [FILE]
 *
 * Reads a perf.data file (hpm record's, or perf record's with the same
 * sample fields: src/perfdata), symbolizes every sample's call chain
 * against its process's mappings (src/profile, libdwfl) and writes either
 * collapsed stacks ("main;f;g N", root first, N samples: the input of
 * flamegraph.pl and speedscope) or a self-contained SVG flame graph; --diff
 * sets two recordings' stacks side by side, --mem lists data objects
 * (flame/).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "flame/flame.h"
#include "util/options.h"
#include "util/runner.h"

static const char synopsis[] =
    "usage: hpm report (--folded | --flamegraph) [--event NAME] [-o OUT] [FILE]\n"
    "       hpm report --diff --flamegraph [--event NAME] [--scale PCT] [-o OUT] OLD NEW\n"
    "       hpm report --mem [--event NAME] [--top N] [-o OUT] [FILE]\n"
    "\n"
    "Reads FILE (perf.data format; default perf.data, as hpm record writes it) and\n"
    "writes its samples' call stacks, symbolized, as collapsed stacks (--folded:\n"
    "\"main;f;g N\", N samples) or as a self-contained SVG flame graph (--flamegraph),\n"
    "to OUT (default: standard output). With --diff, a differential flame graph of\n"
    "two recordings: NEW's stacks, each frame red where it has more events than in\n"
    "OLD (slower), blue where fewer (faster), the deeper the colour the larger the\n"
    "change: the deepest at the largest change of a frame found in both (or at\n"
    "--scale PCT), as the key below says; --folded --diff writes \"stack OLD NEW\"\n"
    "lines. --mem lists the data\n"
    "objects of the memory samples (globals by variable, heap blocks by allocation\n"
    "site, the stack, other memory) by total latency, with their samples, average\n"
    "latency, the levels that served them and their TLB misses.\n"
    "\n"
    "options:\n";

struct report_opts {
    int folded, flamegraph, diff, mem;
    long top;
    const char *event, *output, *scale;
};

#define REPORT_OPTIONS 9
static void report_table(struct report_opts *o, struct hpm_opt *t)
{
    const struct hpm_opt rows[] = {
        {"--folded", NULL, NULL, "collapsed stacks, one line per distinct stack", HPM_OPT_FLAG,
         &o->folded, NULL, NULL, 0, 0},
        {"--flamegraph", NULL, NULL, "an SVG flame graph", HPM_OPT_FLAG, &o->flamegraph, NULL,
         NULL, 0, 0},
        {"--event", NULL, "NAME",
         "the samples of this event only (hpm:L1D_MISSES or L1D_MISSES) [the first]",
         HPM_OPT_STRING, &o->event, NULL, NULL, 0, 0},
        {"--output", "-o", "OUT", "write to OUT [standard output]", HPM_OPT_STRING, &o->output,
         NULL, NULL, 0, 0},
        {"--mem", NULL, NULL,
         "data objects by total latency, the levels that served them (hpm record's\n"
         "memory samples)",
         HPM_OPT_FLAG, &o->mem, NULL, NULL, 0, 0},
        {"--top", NULL, "N", "--mem: the N objects of most latency [20]", HPM_OPT_LONG, &o->top,
         NULL, NULL, 1, 1000000},
        {"--diff", NULL, NULL, "two files, OLD and NEW: a differential flame graph (red\n"
                               "slower, blue faster)",
         HPM_OPT_FLAG, &o->diff, NULL, NULL, 0, 0},
        {"--scale", NULL, "PCT",
         "--diff: the change (in % of OLD) that gets the deepest colour\n"
         "[the largest change of a frame on both sides]",
         HPM_OPT_STRING, &o->scale, NULL, NULL, 0, 0},
        HPM_OPT_TABLE_END,
    };
    _Static_assert(sizeof rows / sizeof rows[0] == REPORT_OPTIONS, "REPORT_OPTIONS");
    memcpy(t, rows, sizeof rows);
}

/* --diff: OLD's and NEW's stacks side by side (both sorted by text), n
 * NEW's events and old OLD's, a stack of one side only with 0 on the
 * other. 0, or -1 (memory). */
static int merge_stacks(struct report_stack *a, size_t na, struct report_stack *b, size_t nb, struct report_stack **out,
                        size_t *n_out)
{
    struct report_stack *m = calloc(na + nb ? na + nb : 1, sizeof *m);
    size_t i = 0, j = 0, n = 0;
    if (!m)
        return -1;
    while (i < na || j < nb) {
        int c = i == na ? 1 : j == nb ? -1 : strcmp(a[i].text, b[j].text);
        if (c < 0) {
            m[n] = a[i++];
            m[n].old = m[n].n;
            m[n++].n = 0;
        } else if (c > 0) {
            m[n] = b[j++];
            m[n++].old = 0;
        } else {
            m[n] = b[j++];
            m[n++].old = a[i].n;
            free(a[i++].text);
        }
    }
    *out = m;
    *n_out = n;
    return 0;
}

static void free_stacks(struct report_stack *st, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        free(st[i].text);
    free(st);
}

/* --diff without --event: whether both recordings' stacks are of one
 * event (each file's first), from report_load_stacks' titles ("EVENT of
 * PATH"); says why not. Two events' counts are never set side by side. */
static int same_event(const char *title_a, const char *path_a, const char *title_b,
                      const char *path_b)
{
    size_t ta = strlen(title_a), tb = strlen(title_b), pa = strlen(path_a) + 4,
           pb = strlen(path_b) + 4;
    int ea = ta > pa ? (int)(ta - pa) : (int)ta, eb = tb > pb ? (int)(tb - pb) : (int)tb;
    if (ea == eb && strncmp(title_a, title_b, (size_t)ea) == 0)
        return 1;
    fprintf(stderr,
            "hpm report: %s's stacks are of %.*s, %s's of %.*s: two events are not compared; "
            "give --event NAME, an event both recorded\n",
            path_a, ea, title_a, path_b, eb, title_b);
    return 0;
}

int cmd_report(int argc, char **argv)
{
    struct report_opts o;
    struct hpm_opt table[REPORT_OPTIONS];
    struct flame_out oc;
    const char *path = "perf.data";
    char title[900], t2[900];
    size_t i;
    double scale = 0;
    int first, rc;

    memset(&o, 0, sizeof o);
    o.top = 20;
    report_table(&o, table);
    rc = hpm_opt_parse("hpm report", table, synopsis, "", argc, argv, &first);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (o.mem) {
        if (o.folded || o.flamegraph || o.diff)
            return hpm_opt_error("hpm report", table, synopsis, "",
                                 "--mem is a report of its own: not with --folded, "
                                 "--flamegraph or --diff%s",
                                 "");
        if (first < argc && !strcmp(argv[first], "--"))
            first++;
        if (first < argc)
            path = argv[first++];
        if (first < argc)
            return hpm_opt_error("hpm report", table, synopsis, "", "one FILE only: '%s'",
                                 argv[first]);
        if (o.output && !runner_output_ok("hpm report", o.output))
            return 2;
        return report_mem(path, o.event, o.top, o.output);
    }
    if (o.folded == o.flamegraph)
        return hpm_opt_error("hpm report", table, synopsis, "",
                             "name one of --folded and --flamegraph%s", "");
    if (first < argc && !strcmp(argv[first], "--"))
        first++;
    if (o.diff && argc - first != 2)
        return hpm_opt_error("hpm report", table, synopsis, "",
                             "--diff compares two files: OLD NEW%s", "");
    if (!o.diff && first < argc)
        path = argv[first++];
    if (!o.diff && first < argc)
        return hpm_opt_error("hpm report", table, synopsis, "", "one FILE only: '%s'",
                             argv[first]);
    if (o.scale) {
        char *end;
        double pct = strtod(o.scale, &end);
        if (end == o.scale || *end || !(pct > 0) || pct > 1e6 || !o.diff)
            return hpm_opt_error("hpm report", table, synopsis, "",
                                 "--scale takes a change in percent above 0, with --diff: '%s'",
                                 o.scale);
        scale = pct / (100.0 + pct); /* the frames' measure of +pct% */
    }
    if (o.output && !runner_output_ok("hpm report", o.output))
        return 2;
    memset(&oc, 0, sizeof oc);
    oc.scale = scale;
    oc.scale_given = scale > 0;
    if (o.diff) {
        struct report_stack *a = NULL, *b = NULL;
        size_t na = 0, nb = 0;
        /* events, not samples: two recordings may sample at other periods */
        if ((rc = report_load_stacks(argv[first], o.event, 1, &a, &na, t2, sizeof t2)) != 0)
            return rc;
        if ((rc = report_load_stacks(argv[first + 1], o.event, 1, &b, &nb, title, sizeof title)) != 0) {
            free_stacks(a, na);
            return rc;
        }
        if (!o.event && !same_event(t2, argv[first], title, argv[first + 1])) {
            free_stacks(a, na);
            free_stacks(b, nb);
            return 2;
        }
        if (merge_stacks(a, na, b, nb, &oc.stacks, &oc.n) != 0) {
            fprintf(stderr, "hpm report: out of memory\n");
            free_stacks(a, na);
            free_stacks(b, nb);
            return 1;
        }
        free(a);
        free(b);
        {
            size_t l = strlen(title);
            snprintf(title + l, sizeof title - l, " against %s", argv[first]);
        }
        oc.diff = 1;
    } else if ((rc = report_load_stacks(path, o.event, 0, &oc.stacks, &oc.n, title, sizeof title)) != 0) {
        return rc;
    }
    oc.svg = o.flamegraph;
    oc.title = title;
    rc = runner_write_output("hpm report", o.output, flame_write, &oc) == 0 ? 0 : 1;
    for (i = 0; i < oc.n; i++)
        free(oc.stacks[i].text);
    free(oc.stacks);
    return rc;
}
