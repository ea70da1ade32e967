/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm annotate: read a profile in callgrind's format (hpm profile's, or
 * callgrind's own) and print where the events are: the top functions by
 * self and inclusive cost with derived metrics per function (metrics.h:
 * IPC, miss ratios, FLOPs by width, ...), the top source lines, and the
 * source of the top functions annotated line by line.
 *
 *   hpm annotate [--sort=EVENT] [--top=N] [--source=yes|no] [--context=N] FILE
 *   hpm annotate --loops [--sort=EVENT] [--top=N] FILE
 *
 * --loops lists the top loops instead (src/profile/loops.h): inclusive
 * and self cost, entries, iterations (the header's executions) and trip
 * count, nested loops indented under the loop holding them.
 */
#define _GNU_SOURCE /* strdup, strndup, O_CLOEXEC */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog.h"
#include "fileio.h"
#include "commands.h"
#include "formula.h"
#include "live.h"
#include "report/metrics.h"
#include "util/options.h"
#include "util/runner.h"
#include "loops.h"
#include "profile.h"

static const char annotate_synopsis[] =
    "usage: hpm annotate [--sort=EVENT] [--top=N] [--source=yes|no] [--context=N] FILE\n"
    "       hpm annotate --loops [--sort=EVENT] [--top=N] FILE\n"
    "\n"
    "Prints the top functions (self and inclusive cost, derived metrics), the top\n"
    "source lines and the annotated source of a profile in callgrind's format\n"
    "(hpm profile writes one; callgrind's own files are read too). --loops lists the\n"
    "top loops: cost, entries, trip counts (callgrind's files need\n"
    "--collect-jumps=yes --dump-instr=yes).\n"
    "\n";

struct annotate_opts {
    const char *sort, *output;
    long top;
    int source;
    long context;
    int loops;
};

static const char *const yes_no[] = {"no", "yes", NULL};

#define ANNOTATE_OPTIONS 7
static void annotate_table(struct annotate_opts *o, struct hpm_opt *t)
{
    const struct hpm_opt rows[] = {
        {"--sort", NULL, "EVENT", "rank by this event (default: the first of the file)",
         HPM_OPT_STRING, &o->sort, NULL, NULL, 0, 0},
        {"--top", NULL, "N", "show the N top functions and lines [20]", HPM_OPT_LONG, &o->top,
         NULL, NULL, 1, 100000},
        {"--source", NULL, "yes|no", "annotate the source of the top functions [yes]",
         HPM_OPT_CHOICE, &o->source, yes_no, NULL, 0, 0},
        {"--context", NULL, "N", "source lines shown around each costly line [2]",
         HPM_OPT_LONG, &o->context, NULL, NULL, 0, 1000},
        {"--loops", NULL, NULL, "list the top loops (entries, trip counts, costs)", HPM_OPT_FLAG,
         &o->loops, NULL, NULL, 0, 0},
        {"--output", "-o", "FILE", "write to FILE [standard output]", HPM_OPT_STRING, &o->output,
         NULL, NULL, 0, 0},
        HPM_OPT_TABLE_END,
    };
    _Static_assert(sizeof rows / sizeof rows[0] == ANNOTATE_OPTIONS, "ANNOTATE_OPTIONS");
    memcpy(t, rows, sizeof rows);
}

/* Profiles are tens of MB for large programs: 4 GiB is none of ours. */
#define ANNOTATE_MAX_PROFILE ((size_t)4 << 30)
/* Source files shown beside the costs: larger ones are not source. */
#define ANNOTATE_MAX_SOURCE ((size_t)64 << 20)

struct fn_row {
    size_t fn;
    uint64_t *self, *incl;
};

struct line_row {
    unsigned file, line;
    uint64_t *v;
};

static unsigned sort_k;

static int cmp_fn(const void *a, const void *b)
{
    const struct fn_row *x = a, *y = b;
    if (x->self[sort_k] != y->self[sort_k])
        return x->self[sort_k] > y->self[sort_k] ? -1 : 1;
    return x->fn < y->fn ? -1 : x->fn > y->fn;
}

static int cmp_line_key(const void *a, const void *b)
{
    const struct line_row *x = a, *y = b;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

static int cmp_line_cost(const void *a, const void *b)
{
    const struct line_row *x = a, *y = b;
    if (x->v[sort_k] != y->v[sort_k])
        return x->v[sort_k] > y->v[sort_k] ? -1 : 1;
    return cmp_line_key(a, b);
}

static double pct(uint64_t v, uint64_t total)
{
    return total ? 100.0 * (double)v / (double)total : 0.0;
}

/* The derived metrics that apply to these costs (all their kinds are in
 * the profile and they need no clock frequency), as "label value" pairs. */
static void print_metrics(const struct hpm_profile *p, const int *kind_of, const uint64_t *v)
{
    double vars[HPM_FORMULA_MAX_VARS];
    unsigned i, k;
    int used = 0;
    memset(vars, 0, sizeof vars);
    for (k = 0; k < p->n_kinds; k++)
        if (kind_of[k] >= 0)
            vars[kind_of[k]] = (double)v[k];
    for (i = 0; i < hpm_n_metrics; i++) {
        struct hpm_formula f;
        double out;
        int ok = 1;
        unsigned var;
        if (hpm_metric_compile(i, &f, NULL, 0) != 0 ||
            hpm_formula_uses(&f, HPM_METRIC_VAR_FREQUENCY))
            continue;
        for (var = 0; var < HPM_K_COUNT && ok; var++) {
            if (!hpm_formula_uses(&f, var))
                continue;
            ok = 0;
            for (k = 0; k < p->n_kinds; k++)
                ok |= kind_of[k] == (int)var;
        }
        if (!ok || hpm_formula_eval(&f, vars, HPM_FORMULA_MAX_VARS, &out) != 0)
            continue;
        printf("%s%s %.3g", used++ ? ", " : "    ", hpm_metrics[i].label, out);
    }
    /* FLOPs by width: which vector widths the function's FP work used */
    {
        static const char *const widths[] = {"FP_SP_SCALAR", "FP_SP_128", "FP_SP_256",
                                             "FP_DP_SCALAR", "FP_DP_128", "FP_DP_256"};
        uint64_t tot = 0, w[6] = {0};
        for (i = 0; i < 6; i++)
            for (k = 0; k < p->n_kinds; k++)
                if (strcmp(p->kinds[k], widths[i]) == 0)
                    w[i] = v[k];
        for (i = 0; i < 6; i++)
            tot += w[i];
        if (tot) {
            printf("%sflops by width:", used++ ? "; " : "    ");
            for (i = 0; i < 6; i++)
                if (w[i])
                    printf(" %s %.0f%%", widths[i] + 3, pct(w[i], tot));
        }
    }
    if (used)
        putchar('\n');
}

/* The source of file with each line's costs (the sorted event and its
 * share), around the lines that have any. */
static void print_source(const struct hpm_profile *p, const struct line_row *lines, size_t n,
                         unsigned file, long context, uint64_t total)
{
    /* a profile names its source files (fl=): only a regular file of
     * bounded size is read, never a FIFO, a device or a huge sparse file */
    char buf[4096], why[512], *text = NULL, *at, *nl;
    unsigned lineno = 0;
    size_t i, first = n, tlen;
    if (hpm_file_read(p->strs[file], ANNOTATE_MAX_SOURCE, NULL, "a source file", &text, &tlen,
                      why, sizeof why) != 0) {
        printf("  (source not shown: %s)\n", why);
        return;
    }
    for (i = 0; i < n; i++)
        if (lines[i].file == file) {
            first = i;
            break;
        }
    printf("-- source: %s\n", p->strs[file]);
    i = first;
    for (at = text; *at; at = nl ? nl + 1 : at + strlen(at)) {
        int near = 0;
        size_t j;
        size_t len;
        nl = strchr(at, '\n');
        len = nl ? (size_t)(nl - at) + 1 : strlen(at);
        if (len >= sizeof buf)
            len = sizeof buf - 1;
        memcpy(buf, at, len);
        buf[len] = 0;
        lineno++;
        for (j = first; j < n && lines[j].file == file; j++) {
            long d = (long)lines[j].line - (long)lineno;
            if (d >= -context && d <= context && lines[j].v[sort_k]) {
                near = 1;
                break;
            }
        }
        if (!near)
            continue;
        while (i < n && lines[i].file == file && lines[i].line < lineno)
            i++;
        if (len && buf[len - 1] == '\n')
            buf[len - 1] = 0;
        if (i < n && lines[i].file == file && lines[i].line == lineno && lines[i].v[sort_k])
            printf("%14" PRIu64 " %5.1f%%  %5u  %s\n", lines[i].v[sort_k],
                   pct(lines[i].v[sort_k], total), lineno, buf);
        else
            printf("%14s %6s  %5u  %s\n", ".", "", lineno, buf);
    }
    free(text);
}

/* The profile's command (and creator) lines, as a terminal can show them:
 * the file may be someone else's. */
static void print_origin(const struct hpm_profile *p, int with_creator)
{
    if (p->command) {
        fputs("command:   ", stdout);
        hpm_live_fputs_printable(p->command, stdout);
        putchar('\n');
    }
    if (with_creator && p->creator) {
        fputs("creator:   ", stdout);
        hpm_live_fputs_printable(p->creator, stdout);
        putchar('\n');
    }
}

/* hpm profile's data objects (PROFILE.data, when it is there): the top
 * ones by the sorted event, or by L1D_MISSES when the data file lacks it. */
static const struct hpm_loops *loops_sorted;

static int cmp_loop_incl(const void *a, const void *b)
{
    const struct hpm_loop *x = &loops_sorted->loops[*(const size_t *)a],
                          *y = &loops_sorted->loops[*(const size_t *)b];
    if (x->incl[sort_k] != y->incl[sort_k])
        return x->incl[sort_k] > y->incl[sort_k] ? -1 : 1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* The top loops by inclusive cost of the sort kind, each followed by the
 * loops nested in it that are among the top too (indented). */
static int print_loops(const struct hpm_profile *p, const int *kind_of, long top, uint64_t total)
{
    struct hpm_loops ls;
    char err[256], name[512];
    size_t i, *order, shown = 0;
    if (hpm_loops_find(p, &ls, err, sizeof err) != 0) {
        fprintf(stderr, "hpm annotate: %s\n", err);
        return 1;
    }
    order = malloc((ls.n ? ls.n : 1) * sizeof *order);
    if (!order) {
        hpm_loops_free(&ls);
        fprintf(stderr, "hpm annotate: out of memory\n");
        return 1;
    }
    for (i = 0; i < ls.n; i++)
        order[i] = i;
    loops_sorted = &ls;
    if (ls.n > 1)
        qsort(order, ls.n, sizeof *order, cmp_loop_incl);
    printf("\n-- top loops by %s (%zu loops; inclusive: the body and its calls; self: less "
           "its inner loops)\n",
           p->kinds[sort_k], ls.n);
    printf("%14s %6s %14s %12s %14s %10s  %s\n", "inclusive", "", "self", "entries",
           "iterations", "trip", "loop (depth: function file:lines)");
    for (i = 0; i < ls.n && shown < (size_t)top; i++) {
        const struct hpm_loop *l = &ls.loops[order[i]];
        if (l->incl[sort_k] == 0)
            break;
        hpm_loop_name(p, l, name, sizeof name);
        printf("%14" PRIu64 " %5.1f%% %14" PRIu64 " %12" PRIu64 " %14" PRIu64 " %10.2f  %*s%u: %s"
               " [%s]\n",
               l->incl[sort_k], pct(l->incl[sort_k], total), l->self[sort_k], l->entries,
               l->header_execs, hpm_loop_trip(l), 2 * (int)(l->depth - 1), "", l->depth, name,
               p->strs[p->fns[l->fn].obj]);
        print_metrics(p, kind_of, l->incl);
        shown++;
    }
    if (ls.n == 0)
        printf("(none: no jump of the profile goes back to an instruction that dominates it)\n");
    free(order);
    hpm_loops_free(&ls);
    return 0;
}

static void print_data_objects(const char *path, const char *event, long top)
{
    char *name = NULL, *text, err[256];
    size_t len = 0, i, j;
    struct hpm_profile d;
    struct fn_row *rows;
    uint64_t sum[HPM_PROF_KINDS_MAX];
    unsigned k, by = 0, kb = 0;
    if (asprintf(&name, "%s.data", path) < 0)
        return;
    if (access(name, F_OK) != 0) {
        free(name);
        return; /* no data objects beside this profile */
    }
    if (hpm_file_read(name, ANNOTATE_MAX_PROFILE, hpm_prof_callgrind_head, "a profile in callgrind's format",
                      &text, &len, err, sizeof err) != 0) {
        printf("\n(data objects: %s)\n", err);
        free(name);
        return;
    }
    hpm_profile_init(&d);
    if (hpm_prof_read_callgrind(&d, text, len, err, sizeof err) != 0) {
        printf("\n(data objects: %s: %s)\n", name, err);
        goto out;
    }
    hpm_profile_finish(&d);
    for (k = 0; k < d.n_kinds; k++) {
        if (strcmp(d.kinds[k], event) == 0)
            break;
        if (strcmp(d.kinds[k], "L1D_MISSES") == 0)
            by = k;
        if (strcmp(d.kinds[k], "BYTES") == 0)
            kb = k;
    }
    if (k < d.n_kinds)
        by = k;
    hpm_profile_sum(&d, sum);
    rows = calloc(d.n_fns ? d.n_fns : 1, sizeof *rows);
    if (!rows)
        goto out;
    for (i = 0; i < d.n_fns; i++) {
        rows[i].fn = i;
        rows[i].self = calloc(d.n_kinds + 1, sizeof(uint64_t));
        if (!rows[i].self)
            goto out_rows;
        for (j = 0; j < d.fns[i].n_costs; j++)
            for (k = 0; k < d.n_kinds; k++)
                rows[i].self[k] += d.fns[i].costs[j].v[k];
    }
    sort_k = by;
    if (d.n_fns > 1)
        qsort(rows, d.n_fns, sizeof *rows, cmp_fn);
    printf("\n-- top data objects by %s (data accesses that missed the L1; %s)\n", d.kinds[by],
           name);
    printf("%14s %6s %12s  %s\n", d.kinds[by], "", "bytes", "object (where)");
    for (i = 0; i < d.n_fns && i < (size_t)top && rows[i].self[by]; i++) {
        const struct hpm_prof_fn *f = &d.fns[rows[i].fn];
        unsigned line = f->n_costs ? f->costs[0].line : 0;
        printf("%14" PRIu64 " %5.1f%% %12" PRIu64 "  %s (%s", rows[i].self[by],
               pct(rows[i].self[by], sum[by]), kb ? rows[i].self[kb] : 0, d.strs[f->name],
               d.strs[f->obj]);
        if (f->file)
            printf(", %s:%u", d.strs[f->file], line);
        printf(")\n");
    }
out_rows:
    for (i = 0; i < d.n_fns; i++)
        free(rows[i].self);
    free(rows);
out:
    hpm_profile_free(&d);
    free(text);
    free(name);
}

static int annotate(const struct annotate_opts o, const char *path);

int cmd_annotate(int argc, char **argv)
{
    struct annotate_opts o;
    struct hpm_opt t[ANNOTATE_OPTIONS];
    struct runner_redirect out;
    int first, rc;
    memset(&o, 0, sizeof o);
    o.top = 20;
    o.source = 1;
    o.context = 2;
    annotate_table(&o, t);
    rc = hpm_opt_parse("hpm annotate", t, annotate_synopsis, "", argc, argv, &first);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (argc - first != 1)
        return hpm_opt_error("hpm annotate", t, annotate_synopsis, "",
                             "give exactly one profile file%s", "");
    if (runner_stdout_to("hpm annotate", o.output, &out) != 0)
        return 1;
    rc = annotate(o, argv[first]);
    if (runner_stdout_restore("hpm annotate", &out, rc == 0) != 0 && rc == 0)
        rc = 1;
    return rc;
}

/* The annotation of the profile at path, on standard output. */
/* The profile at path read into p, and the event to sort by (sort_k):
 * 0, or the exit status after a message. */
static int load_profile(const struct annotate_opts *o, const char *path, struct hpm_profile *p)
{
    size_t len = 0;
    char *text, err[512];
    unsigned k;
    if (hpm_file_read(path, ANNOTATE_MAX_PROFILE, hpm_prof_callgrind_head,
                      "a profile in callgrind's format", &text, &len, err, sizeof err) != 0) {
        fprintf(stderr, "hpm annotate: cannot read %s\n", err);
        return 1;
    }
    hpm_profile_init(p);
    if (hpm_prof_read_callgrind(p, text, len, err, sizeof err) != 0) {
        fprintf(stderr, "hpm annotate: %s: %s\n", path, err);
        free(text);
        hpm_profile_free(p);
        return 1;
    }
    free(text);
    sort_k = 0;
    if (!o->sort)
        return 0;
    for (k = 0; k < p->n_kinds; k++)
        if (hpm_catalog_name_eq(o->sort, strlen(o->sort), p->kinds[k]))
            break;
    if (k == p->n_kinds) {
        fprintf(stderr, "hpm annotate: %s: no event '%s' in this profile (it has:", path, o->sort);
        for (k = 0; k < p->n_kinds; k++)
            fprintf(stderr, " %s", p->kinds[k]);
        fprintf(stderr, ")\n");
        hpm_profile_free(p);
        return 2;
    }
    sort_k = k;
    return 0;
}

/* Per function (*rows, p->n_fns of them): self, and inclusive: the cost of
 * its calls (each outermost call's, as callgrind and hpm record them, so
 * recursion is counted once), or, for a function no call reached (the
 * entry point), self + its calls to others. Per source line (*lines):
 * merged over functions and instructions. 0, or -1 (out of memory; what
 * was made is in *rows and *lines to free). */
static int cost_rows(struct hpm_profile *p, struct fn_row **rows_out, struct line_row **lines_out,
                     size_t *n_lines_out)
{
    struct fn_row *rows;
    struct line_row *lines = NULL;
    unsigned char *called;
    size_t i, j, n_lines = 0, cap_lines = 0;
    unsigned k;
    *rows_out = rows = calloc(p->n_fns ? p->n_fns : 1, sizeof *rows);
    *lines_out = NULL;
    *n_lines_out = 0;
    if (!rows)
        return -1;
    for (i = 0; i < p->n_fns; i++) {
        const struct hpm_prof_fn *f = &p->fns[i];
        rows[i].fn = i;
        rows[i].self = calloc(2 * (size_t)p->n_kinds + 1, sizeof(uint64_t));
        if (!rows[i].self)
            return -1;
        rows[i].incl = rows[i].self + p->n_kinds;
        for (j = 0; j < f->n_costs; j++) {
            for (k = 0; k < p->n_kinds; k++)
                rows[i].self[k] += f->costs[j].v[k];
            if (n_lines == cap_lines) {
                struct line_row *nl = realloc(lines, (cap_lines = cap_lines ? 2 * cap_lines : 256) *
                                                         sizeof *nl);
                if (!nl)
                    return -1;
                *lines_out = lines = nl;
            }
            lines[n_lines].file = f->costs[j].file;
            lines[n_lines].line = f->costs[j].line;
            lines[n_lines].v = f->costs[j].v;
            n_lines++;
        }
    }
    called = calloc(p->n_fns ? p->n_fns : 1, 1);
    if (!called)
        return -1;
    for (i = 0; i < p->n_fns; i++)
        for (j = 0; j < p->fns[i].n_calls; j++) {
            const struct hpm_prof_call *c = &p->fns[i].calls[j];
            called[c->callee] = 1;
            for (k = 0; k < p->n_kinds; k++)
                rows[c->callee].incl[k] += c->v[k];
        }
    for (i = 0; i < p->n_fns; i++) {
        const struct hpm_prof_fn *f = &p->fns[i];
        if (called[i])
            continue;
        for (k = 0; k < p->n_kinds; k++)
            rows[i].incl[k] = rows[i].self[k];
        for (j = 0; j < f->n_calls; j++)
            if (f->calls[j].callee != i)
                for (k = 0; k < p->n_kinds; k++)
                    rows[i].incl[k] += f->calls[j].v[k];
    }
    free(called);
    if (n_lines > 1)
        qsort(lines, n_lines, sizeof *lines, cmp_line_key);
    for (i = 0, j = 0; i < n_lines; i++) {
        if (j > 0 && cmp_line_key(&lines[j - 1], &lines[i]) == 0) {
            for (k = 0; k < p->n_kinds; k++)
                lines[j - 1].v[k] += lines[i].v[k]; /* the model's arrays: ours to change */
        } else {
            lines[j++] = lines[i];
        }
    }
    *n_lines_out = j;
    return 0;
}

/* The header (events, totals, the whole program's metrics) and the top
 * functions by the sorted event. */
static void print_functions(const struct hpm_profile *p, struct fn_row *rows,
                            const int *kind_of, const uint64_t *tot, long top)
{
    uint64_t total = tot[sort_k];
    size_t i, shown;
    unsigned k;
    print_origin(p, 1);
    printf("events:   ");
    for (k = 0; k < p->n_kinds; k++)
        printf(" %s", p->kinds[k]);
    printf("\ntotals:   ");
    for (k = 0; k < p->n_kinds; k++)
        printf(" %" PRIu64, tot[k]);
    printf("\nsorted by: %s (total %" PRIu64 ")\n", p->kinds[sort_k], total);
    printf("whole program:\n");
    print_metrics(p, kind_of, tot);

    if (p->n_fns > 1)
        qsort(rows, p->n_fns, sizeof *rows, cmp_fn);
    printf("\n-- top functions by %s (self; inclusive: while it ran, callees included)\n", p->kinds[sort_k]);
    printf("%14s %6s %14s %6s  %s\n", "self", "", "inclusive", "", "function (object)");
    for (i = 0, shown = 0; i < p->n_fns && shown < (size_t)top; i++) {
        const struct hpm_prof_fn *f = &p->fns[rows[i].fn];
        if (rows[i].self[sort_k] == 0)
            break;
        printf("%14" PRIu64 " %5.1f%% %14" PRIu64 " %5.1f%%  %s (%s)\n", rows[i].self[sort_k],
               pct(rows[i].self[sort_k], total), rows[i].incl[sort_k],
               pct(rows[i].incl[sort_k], total), p->strs[f->name], p->strs[f->obj]);
        print_metrics(p, kind_of, rows[i].self);
        shown++;
    }
}

/* The top source lines by the sorted event and, with --source, the files
 * of the top lines, each once, in rank order. 0, or -1 (out of memory). */
static int print_lines(const struct hpm_profile *p, const struct line_row *lines, size_t n_lines,
                       const struct annotate_opts *o, uint64_t total)
{
    struct line_row *by_cost = malloc((n_lines ? n_lines : 1) * sizeof *by_cost);
    unsigned done[8];
    size_t i, n_done = 0, d;
    if (!by_cost)
        return -1;
    memcpy(by_cost, lines, n_lines * sizeof *lines);
    if (n_lines > 1)
        qsort(by_cost, n_lines, sizeof *by_cost, cmp_line_cost);
    printf("\n-- top source lines by %s\n", p->kinds[sort_k]);
    for (i = 0; i < n_lines && i < (size_t)o->top && by_cost[i].v[sort_k]; i++)
        printf("%14" PRIu64 " %5.1f%%  %s:%u\n", by_cost[i].v[sort_k],
               pct(by_cost[i].v[sort_k], total),
               by_cost[i].file ? p->strs[by_cost[i].file] : "???", by_cost[i].line);
    for (i = 0; o->source && i < n_lines && i < (size_t)o->top && n_done < 8 &&
                by_cost[i].v[sort_k];
         i++) {
        if (!by_cost[i].file)
            continue;
        for (d = 0; d < n_done && done[d] != by_cost[i].file; d++)
            ;
        if (d < n_done)
            continue;
        done[n_done++] = by_cost[i].file;
        putchar('\n');
        print_source(p, lines, n_lines, by_cost[i].file, o->context, total);
    }
    free(by_cost);
    return 0;
}

static int annotate(const struct annotate_opts o, const char *path)
{
    struct hpm_profile p;
    struct fn_row *rows = NULL;
    struct line_row *lines = NULL;
    size_t i, n_lines = 0;
    int rc, kind_of[HPM_PROF_KINDS_MAX];
    unsigned k;
    uint64_t sum[HPM_PROF_KINDS_MAX], total;
    const uint64_t *tot;

    if ((rc = load_profile(&o, path, &p)) != 0)
        return rc;
    for (k = 0; k < p.n_kinds; k++)
        kind_of[k] = hpm_catalog_kind_by_name(p.kinds[k], strlen(p.kinds[k]));
    hpm_profile_sum(&p, sum);
    tot = p.have_totals ? p.totals : sum;
    total = tot[sort_k];
    if (o.loops) {
        hpm_profile_finish(&p); /* callgrind's own files: costs by address */
        print_origin(&p, 0);
        printf("sorted by: %s (total %" PRIu64 ")\n", p.kinds[sort_k], total);
        rc = print_loops(&p, kind_of, o.top, total);
        if (rc == 0 && fflush(stdout) != 0)
            rc = 1;
        hpm_profile_free(&p);
        return rc;
    }
    if (cost_rows(&p, &rows, &lines, &n_lines) != 0)
        goto oom;
    print_functions(&p, rows, kind_of, tot, o.top);
    if (print_lines(&p, lines, n_lines, &o, total) != 0)
        goto oom;
    print_data_objects(path, p.kinds[sort_k], o.top);
    rc = fflush(stdout) == 0 ? 0 : 1;
    goto done;
oom:
    fprintf(stderr, "hpm annotate: out of memory\n");
    rc = 1;
done:
    if (rows)
        for (i = 0; i < p.n_fns; i++)
            free(rows[i].self);
    free(rows);
    free(lines);
    hpm_profile_free(&p);
    return rc;
}
