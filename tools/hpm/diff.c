/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm diff OLD NEW: what changed between two runs (the model and its
 * writers in diff/), judged against --limit's limits (the gate, before
 * anything is written).
 */
#define _GNU_SOURCE /* open_memstream */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "diff/diff.h"
#include "util/options.h"

static const char diff_synopsis[] =
    "usage: hpm diff [--sort EVENT] [--top N] [--no-measured] [--json | --markdown] [-o FILE]\n"
    "                [--limit LIMIT]... OLD NEW\n"
    "\n"
    "What changed between two runs: two count reports (hpm count --json), two\n"
    "profiles (hpm profile; with PROFILE.data beside both, their data objects too) or\n"
    "two recordings (hpm record: sampled events per function and call path).\n"
    "Every event's total old -> new, the derived metrics, and the largest changes\n"
    "per region, or per function (matched by name), source line, call path and data\n"
    "object, sorted by one event (default: the one whose total changed most);\n"
    "what appeared or disappeared is marked new or gone.\n"
    "\n";
static const char diff_footer[] =
    "\nExit status: 0 within the limits, 3 a regression (a limit exceeded), 2 not\n"
    "comparable (a soft limit on an event or scope that one side lacks, a hard limit\n"
    "on one NEW lacks, two machine models, a bad input or usage), 1 when the output\n"
    "cannot be written (docs/ci.md).\n";

/* hpm diff's limits, judged before anything is written (the Markdown
 * comment leads with them): the counts of two machine models are not
 * compared, whatever the limits say. g->lines holds the gate's messages
 * (malloc'd; the caller frees it and prints it on stderr). */
static void gate(const struct diff *d, const struct diff_limit *lim, unsigned n,
                 struct diff_gate_result *g)
{
    char err[1024], *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    int same = diff_same_machine(d, err, sizeof err);
    memset(g, 0, sizeof *g);
    g->n_limits = n;
    g->status = GATE_PASS;
    if (!f) {
        g->status = GATE_ERROR;
        return;
    }
    if (same == 0)
        fprintf(f, "hpm diff: %snot comparable: %s\n", n ? "" : "warning: ", err);
    if (n && same == 0) {
        fprintf(f, "hpm diff: the limits are not applied to counts of two machine models\n");
        g->status = GATE_NOT_COMPARABLE;
    } else if (n && diff_gate(f, d, lim, n, &g->verdict, err, sizeof err) != 0) {
        fprintf(f, "hpm diff: %s\n", err);
        g->status = GATE_NOT_COMPARABLE;
    } else if (n)
        g->status = diff_verdict_status(&g->verdict);
    fclose(f);
    g->lines = text;
}

int cmd_diff(int argc, char **argv)
{
    const char *sort = NULL, *output = NULL;
    static struct hpm_opt_list limits;
    static struct diff_limit lim[HPM_OPT_LIST_MAX];
    unsigned i;
    long top = 10;
    int json = 0, md = 0, no_measured = 0, first, rc, k;
    struct diff d;
    struct diff_view v;
    struct diff_gate_result g;
    char err[1024];
    FILE *f = stdout;
    const struct hpm_opt t[] = {
        {"--sort", NULL, "EVENT", "rank the changes by this event (default: the event whose "
                                  "total changed most)",
         HPM_OPT_STRING, &sort, NULL, NULL, 0, 0},
        {"--top", NULL, "N", "rows per table of changes [10]", HPM_OPT_LONG, &top, NULL, NULL, 1,
         1000000},
        {"--rows", NULL, "N",
         "the same as --top; --markdown's events table shows the N largest\n"
         "changes too, the rest counted",
         HPM_OPT_LONG, &top, NULL, NULL, 1, 1000000},
        {"--no-measured", NULL, NULL,
         "leave out the events measured on the host (clocks, page faults: not\n"
         "exact, they vary from run to run); marked otherwise, apart in Markdown",
         HPM_OPT_FLAG, &no_measured, NULL, NULL, 0, 0},
        {"--json", NULL, NULL, "write JSON", HPM_OPT_FLAG, &json, NULL, NULL, 0, 0},
        {"--markdown", "--md", NULL, "write Markdown (GitHub tables), fit for a pull-request "
                                     "comment",
         HPM_OPT_FLAG, &md, NULL, NULL, 0, 0},
        {"--output", "-o", "FILE", "write to FILE instead of standard output", HPM_OPT_STRING,
         &output, NULL, NULL, 0, 0},
        {"--limit", NULL, "KIND[@SCOPE]:LIMIT",
         "fail (exit 3) when NEW exceeds a limit: +P% over OLD (soft), ~P% either way,\n"
         "or N (hard); SCOPE a region (count reports) or function (profiles); repeatable",
         HPM_OPT_LIST, &limits, NULL, NULL, 0, 0},
        HPM_OPT_TABLE_END,
    };
    rc = hpm_opt_parse("hpm diff", t, diff_synopsis, diff_footer, argc, argv, &first);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (argc - first != 2)
        return hpm_opt_error("hpm diff", t, diff_synopsis, diff_footer,
                             "give two files, OLD and NEW%s", "");
    if (json && md)
        return hpm_opt_error("hpm diff", t, diff_synopsis, diff_footer,
                             "--json or --markdown, not both%s", "");
    for (i = 0; i < limits.n; i++)
        if (diff_limit_parse(limits.v[i], &lim[i], err, sizeof err) != 0) {
            fprintf(stderr, "hpm diff: %s\n", err);
            return 2;
        }
    if (diff_load(&d, argv[first], argv[first + 1], err, sizeof err) != 0) {
        fprintf(stderr, "hpm diff: %s\n", err);
        return 2;
    }
    memset(&v, 0, sizeof v);
    v.top = top;
    v.sort = (unsigned)diff_default_sort(&d);
    if (sort) {
        if ((k = diff_kind(&d, sort)) < 0) {
            fprintf(stderr, "hpm diff: no event '%s' in %s or %s\n", sort, argv[first],
                    argv[first + 1]);
            diff_free(&d);
            return 2;
        }
        v.sort = (unsigned)k;
    }
    if (d.n_kinds == 0) {
        fprintf(stderr, "hpm diff: %s and %s have no events\n", argv[first], argv[first + 1]);
        diff_free(&d);
        return 2;
    }
    if (output && !(f = fopen(output, "w"))) {
        fprintf(stderr, "hpm diff: cannot write %s: %s\n", output, strerror(errno));
        diff_free(&d);
        return 1;
    }
    gate(&d, lim, limits.n, &g);
    v.gate = limits.n ? &g : NULL;
    v.no_measured = no_measured;
    {
        const struct diff_writer *w = json ? &diff_json_writer
                                      : md ? &diff_markdown_writer
                                           : &diff_text_writer;
        void *ctx = calloc(1, w->ctx_size);
        rc = ctx ? diff_write(f, &d, &v, w, ctx) : -1;
        free(ctx);
    }
    if (f != stdout && fclose(f) != 0)
        rc = -1;
    if (g.lines)
        fputs(g.lines, stderr);
    free((char *)g.lines);
    diff_free(&d);
    if (rc) {
        fprintf(stderr, "hpm diff: cannot write %s\n", output ? output : "standard output");
        return 1;
    }
    return g.status;
}
