/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * diff_write.c - hpm diff's writers: one walk over the model (diff.h), a
 * writer per format: text, JSON (built with jansson) and
 * Markdown (CommonMark with GitHub's tables, fit for a pull-request
 * comment).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"
#include "report/metrics.h"

/* ------------------------------------------------------------ the walk */

int diff_write(FILE *f, const struct diff *d, const struct diff_view *v,
               const struct diff_writer *w, void *ctx)
{
    const struct diff_table *t = &d->tables[DIFF_TOTALS];
    unsigned i, table;
    size_t r;
    w->begin(f, d, v, ctx);
    for (i = 0; i < d->n_kinds; i++)
        for (r = 0; r < t->n; r++)
            if (strcmp(t->rows[r].key, d->kinds[i]) == 0 && !(v->no_measured && d->measured[i]))
                w->total(f, d, i, t->rows[r].v[0][i], t->rows[r].v[1][i], t->rows[r].present[0],
                         t->rows[r].present[1], ctx);
    for (i = 0; i < hpm_n_metrics; i++) {
        double m[2];
        if (diff_metric(d, i, m) == 0)
            w->metric(f, hpm_metrics[i].label,
                      hpm_metrics[i].shown ? hpm_metrics[i].shown : hpm_metrics[i].formula, m[0],
                      m[1], ctx);
    }
    for (table = DIFF_REGIONS; table < DIFF_N_TABLES; table++) {
        const struct diff_row **rows;
        size_t n, shown;
        unsigned kind = v->sort;
        if (d->tables[table].n == 0)
            continue;
        if (table == DIFF_DATA && !diff_table_has(d, table, kind)) {
            /* the data objects' file has its own events: their misses */
            int m = diff_kind(d, "L1D_MISSES");
            if (m >= 0)
                kind = (unsigned)m;
        }
        n = diff_changes(d, table, kind, &rows);
        shown = n < (size_t)v->top ? n : (size_t)v->top;
        w->table_begin(f, d, table, kind, ctx);
        for (r = 0; r < shown; r++)
            w->row(f, d, table, kind, rows[r], ctx);
        w->table_end(f, d, table, n, shown, ctx);
        free(rows);
    }
    return w->end(f, d, ctx);
}

static const char *state_of(const struct diff_row *r)
{
    return !r->present[0] ? "new" : !r->present[1] ? "gone" : "";
}

static void fmt_pct(char *buf, size_t len, uint64_t a, uint64_t b)
{
    diff_percent_text(buf, len, a, b);
}

static void fmt_delta(char *buf, size_t len, uint64_t a, uint64_t b)
{
    if (b >= a)
        snprintf(buf, len, "+%" PRIu64, b - a);
    else
        snprintf(buf, len, "-%" PRIu64, a - b);
}

/* ------------------------------------------------------------ text */

struct text_ctx {
    size_t unchanged;
    int metrics_said;
};

static void text_begin(FILE *f, const struct diff *d, const struct diff_view *v, void *ctx)
{
    char why[1024];
    (void)ctx;
    fprintf(f, "hpm diff: %s -> %s (%s; sorted by %s)\n\n", d->old_name, d->new_name,
            d->samples    ? "recordings: sampled events, each stack within a period"
            : d->profiles ? "profiles"
                          : "count reports",
            d->kinds[v->sort]);
    if (diff_same_machine(d, why, sizeof why) == 0)
        fprintf(f, "warning: not comparable: %s\n\n", why);
    fprintf(f, " %-28s %16s %16s %16s %10s\n", "event", "old", "new", "delta", "change");
}

static void text_total(FILE *f, const struct diff *d, unsigned k, uint64_t a, uint64_t b,
                       int in_a, int in_b, void *ctx)
{
    struct text_ctx *c = ctx;
    char delta[32], pct[32], old[24], new_[24];
    if (a == b && in_a && in_b) {
        c->unchanged++;
        return;
    }
    fmt_delta(delta, sizeof delta, a, b);
    fmt_pct(pct, sizeof pct, a, b);
    snprintf(old, sizeof old, "%" PRIu64, a);
    snprintf(new_, sizeof new_, "%" PRIu64, b);
    fprintf(f, " %-28s %16s %16s %16s %10s%s\n", d->kinds[k], in_a ? old : "-", in_b ? new_ : "-",
            delta, !in_b ? "gone" : !in_a ? "new" : pct,
            d->measured[k] ? "  (measured on the host)" : "");
}

static void text_metric(FILE *f, const char *label, const char *formula, double a, double b,
                        void *ctx)
{
    struct text_ctx *c = ctx;
    if (!c->metrics_said++)
        fprintf(f, "\n derived metrics\n");
    if (a == b)
        fprintf(f, " %-28s %16.6g %16s %16s %10s  %s\n", label, a, "=", "", "", formula);
    else
        fprintf(f, " %-28s %16.6g %16.6g %16s %+9.2f%%  %s\n", label, a, b, "",
                a ? 100.0 * (b - a) / fabs(a) : 0.0, formula);
}

static void text_table_begin(FILE *f, const struct diff *d, unsigned table, unsigned kind,
                             void *ctx)
{
    (void)ctx;
    fprintf(f, "\n -- %s: largest changes of %s\n", d->tables[table].title, d->kinds[kind]);
    fprintf(f, " %16s %16s %16s %10s  %s\n", "old", "new", "delta", "change", "where");
}

/* A row's delta and change as the writers print them; returns its state
 * (state_of). */
struct row_text {
    char delta[32], pct[32];
};

static const char *row_text(struct row_text *t, const struct diff_row *r, unsigned kind)
{
    fmt_delta(t->delta, sizeof t->delta, r->v[0][kind], r->v[1][kind]);
    fmt_pct(t->pct, sizeof t->pct, r->v[0][kind], r->v[1][kind]);
    return state_of(r);
}

static void text_row(FILE *f, const struct diff *d, unsigned table, unsigned kind,
                     const struct diff_row *r, void *ctx)
{
    struct row_text t;
    const char *st = row_text(&t, r, kind);
    (void)d;
    (void)table;
    (void)ctx;
    fprintf(f, " %16" PRIu64 " %16" PRIu64 " %16s %10s  %s%s%s%s\n", r->v[0][kind], r->v[1][kind],
            t.delta, *st == 'g' ? "gone" : t.pct, r->key, *st ? " (" : "", st, *st ? ")" : "");
}

/* A table's last line in a writer's words: none (a format of the table's
 * title) when nothing changed, more (of how many) when rows were left out. */
static void table_end_line(FILE *f, const struct diff *d, unsigned table, size_t changed,
                           size_t shown, const char *none, const char *more)
{
    if (changed == 0)
        fprintf(f, none, d->tables[table].title);
    else if (changed > shown)
        fprintf(f, more, changed - shown);
}

/* How many events did not change, in a writer's words (fmt: of the count
 * and the plural's "s"). */
static void unchanged_line(FILE *f, size_t unchanged, const char *fmt)
{
    if (unchanged)
        fprintf(f, fmt, unchanged, unchanged == 1 ? "" : "s");
}

static void text_table_end(FILE *f, const struct diff *d, unsigned table, size_t changed,
                           size_t shown, void *ctx)
{
    (void)ctx;
    table_end_line(f, d, table, changed, shown, " (no %s changed)\n", " (%zu more changed)\n");
}

static int text_end(FILE *f, const struct diff *d, void *ctx)
{
    struct text_ctx *c = ctx;
    (void)d;
    unchanged_line(f, c->unchanged, "\n %zu event%s unchanged\n");
    return ferror(f) ? -1 : 0;
}

const struct diff_writer diff_text_writer = {text_begin,       text_total, text_metric,
                                             text_table_begin, text_row,   text_table_end,
                                             text_end,         sizeof(struct text_ctx)};

/* ------------------------------------------------------------ JSON */

struct json_ctx {
    json_t *root, *events, *metrics, *tables, *table;
};

static json_t *num_pct(uint64_t a, uint64_t b)
{
    double p = diff_percent(a, b);
    return isinf(p) ? json_null() : json_real(p);
}

static void json_begin(FILE *f, const struct diff *d, const struct diff_view *v, void *ctx)
{
    struct json_ctx *c = ctx;
    char why[1024];
    (void)f;
    c->root = json_object();
    json_object_set_new(c->root, "old", json_string(d->old_name));
    json_object_set_new(c->root, "new", json_string(d->new_name));
    json_object_set_new(c->root, "inputs",
                        json_string(d->samples    ? "recordings"
                                    : d->profiles ? "profiles"
                                                  : "count reports"));
    json_object_set_new(c->root, "sort", json_string(d->kinds[v->sort]));
    json_object_set_new(c->root, "not_comparable",
                        diff_same_machine(d, why, sizeof why) == 0 ? json_string(why)
                                                                    : json_null());
    json_object_set_new(c->root, "events", c->events = json_array());
    json_object_set_new(c->root, "derived", c->metrics = json_array());
    json_object_set_new(c->root, "changes", c->tables = json_object());
}

static void json_total(FILE *f, const struct diff *d, unsigned k, uint64_t a, uint64_t b,
                       int in_a, int in_b, void *ctx)
{
    struct json_ctx *c = ctx;
    json_t *e = json_object();
    (void)f;
    json_object_set_new(e, "name", json_string(d->kinds[k]));
    json_object_set_new(e, "old", in_a ? json_integer((json_int_t)a) : json_null());
    json_object_set_new(e, "new", in_b ? json_integer((json_int_t)b) : json_null());
    json_object_set_new(e, "delta", json_integer((json_int_t)b - (json_int_t)a));
    json_object_set_new(e, "percent", num_pct(a, b));
    json_object_set_new(e, "source", json_string(d->measured[k] ? "measured" : "modeled"));
    json_array_append_new(c->events, e);
}

static void json_metric(FILE *f, const char *label, const char *formula, double a, double b,
                        void *ctx)
{
    struct json_ctx *c = ctx;
    json_t *m = json_object();
    (void)f;
    json_object_set_new(m, "label", json_string(label));
    json_object_set_new(m, "formula", json_string(formula));
    json_object_set_new(m, "old", json_real(a));
    json_object_set_new(m, "new", json_real(b));
    json_array_append_new(c->metrics, m);
}

static const char *const table_keys[DIFF_N_TABLES] = {"totals", "regions", "functions",
                                                      "lines", "call_paths", "data_objects"};

static void json_table_begin(FILE *f, const struct diff *d, unsigned table, unsigned kind,
                             void *ctx)
{
    struct json_ctx *c = ctx;
    json_t *t = json_object();
    (void)f;
    json_object_set_new(t, "event", json_string(d->kinds[kind]));
    json_object_set_new(t, "rows", c->table = json_array());
    json_object_set_new(c->tables, table_keys[table], t);
}

static void json_row(FILE *f, const struct diff *d, unsigned table, unsigned kind,
                     const struct diff_row *r, void *ctx)
{
    struct json_ctx *c = ctx;
    json_t *o = json_object();
    uint64_t a = r->v[0][kind], b = r->v[1][kind];
    (void)f;
    (void)d;
    (void)table;
    json_object_set_new(o, "name", json_string(r->key));
    json_object_set_new(o, "state",
                        json_string(!r->present[0] ? "new" : !r->present[1] ? "gone" : "changed"));
    json_object_set_new(o, "old", json_integer((json_int_t)a));
    json_object_set_new(o, "new", json_integer((json_int_t)b));
    json_object_set_new(o, "delta", json_integer((json_int_t)b - (json_int_t)a));
    json_object_set_new(o, "percent", num_pct(a, b));
    json_array_append_new(c->table, o);
}

static void json_table_end(FILE *f, const struct diff *d, unsigned table, size_t changed,
                           size_t shown, void *ctx)
{
    struct json_ctx *c = ctx;
    json_t *t = json_object_get(c->tables, table_keys[table]);
    (void)f;
    (void)d;
    (void)shown;
    json_object_set_new(t, "changed", json_integer((json_int_t)changed));
}

static int json_end(FILE *f, const struct diff *d, void *ctx)
{
    struct json_ctx *c = ctx;
    int rc;
    (void)d;
    rc = json_dumpf(c->root, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) == 0 &&
                 fputc('\n', f) != EOF
             ? 0
             : -1;
    json_decref(c->root);
    return rc;
}

const struct diff_writer diff_json_writer = {json_begin,       json_total, json_metric,
                                             json_table_begin, json_row,   json_table_end,
                                             json_end,         sizeof(struct json_ctx)};

/* ------------------------------------------------------------ Markdown */

/* Text in a table cell: the characters Markdown gives a meaning escaped
 * (a function name like operator| or a path with _ stays literal). */
static void md_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (strchr("\\`*_{}[]()<>#+-.!|~", *s))
            fputc('\\', f);
        if (*s == '\n' || *s == '\r')
            fputc(' ', f);
        else
            fputc(*s, f);
    }
}

/* A changed total, kept until the table is written: the largest
 * changes come first, and host-measured events go in a table of their own. */
struct md_total_row {
    unsigned k;
    uint64_t a, b;
    int in_a, in_b;
};

struct md_ctx {
    const struct diff *d;
    size_t unchanged;
    int metrics_said, totals_said;
    long top;
    struct md_total_row rows[DIFF_MAX_KINDS];
    unsigned n_rows;
};

/* The gate's verdict first, in words, with each limit that failed or
 * could not be judged as the gate said it. */
static void md_verdict(FILE *f, const struct diff_gate_result *g)
{
    const struct diff_verdict *v = &g->verdict;
    const char *line = g->lines;
    unsigned judged = v->held + v->exceeded + v->not_comparable;
    fprintf(f, "**Gate: %s**: %u of %u limit%s exceeded",
            g->status == GATE_REGRESSION       ? "regression"
            : g->status == GATE_NOT_COMPARABLE ? "not comparable"
                                               : "passed",
            v->exceeded, judged, judged == 1 ? "" : "s");
    if (v->not_comparable)
        fprintf(f, ", %u not comparable", v->not_comparable);
    if (v->not_gated)
        fprintf(f, ", %u not gated (unstable)", v->not_gated);
    fputs(".\n\n", f);
    while (line && *line) {
        size_t n = strcspn(line, "\n"), skip = strncmp(line, "hpm: ", 5) == 0 ? 5 : 0;
        char buf[2048];
        snprintf(buf, sizeof buf, "%.*s", (int)(n - skip), line + skip);
        if (n > skip) {
            /* as a code span: the gate's words as it printed them */
            fputs("- `", f);
            for (const char *c = buf; *c; c++)
                fputc(*c == '`' ? '\'' : *c, f);
            fputs("`\n", f);
        }
        line += n + (line[n] == '\n');
    }
    if (g->lines && *g->lines)
        fputc('\n', f);
}

static void md_begin(FILE *f, const struct diff *d, const struct diff_view *v, void *ctx)
{
    struct md_ctx *c = ctx;
    char why[1024];
    c->d = d;
    c->top = v->top;
    fputs("### hpm diff: ", f);
    md_text(f, d->old_name);
    fputs(" → ", f);
    md_text(f, d->new_name);
    fputs("\n\n", f);
    if (v->gate)
        md_verdict(f, v->gate);
    fprintf(f, "%s; largest changes sorted by **%s**.\n\n",
            d->samples    ? "Two recordings (sampled)"
            : d->profiles ? "Two profiles"
                          : "Two count reports",
            d->kinds[v->sort]);
    if (diff_same_machine(d, why, sizeof why) == 0) {
        fputs("**Not comparable:** ", f);
        md_text(f, why);
        fputs("\n\n", f);
    }
}

static void md_total(FILE *f, const struct diff *d, unsigned k, uint64_t a, uint64_t b, int in_a,
                     int in_b, void *ctx)
{
    struct md_ctx *c = ctx;
    (void)f;
    (void)d;
    if (a == b && in_a && in_b) {
        c->unchanged++;
        return;
    }
    if (c->n_rows < DIFF_MAX_KINDS)
        c->rows[c->n_rows++] = (struct md_total_row){k, a, b, in_a, in_b};
}

/* How large a change reads: gone and new first, then by relative size. */
static double md_size(const struct md_total_row *r)
{
    if (!r->in_a || !r->in_b)
        return INFINITY;
    return fabs(diff_percent(r->a, r->b));
}

static int md_cmp(const void *x, const void *y)
{
    double a = md_size(x), b = md_size(y);
    return a < b ? 1 : a > b ? -1 : 0;
}

static void md_total_line(FILE *f, const struct diff *d, const struct md_total_row *r)
{
    char delta[32], pct[32];
    fmt_delta(delta, sizeof delta, r->a, r->b);
    fmt_pct(pct, sizeof pct, r->a, r->b);
    fputs("| ", f);
    md_text(f, d->kinds[r->k]);
    fprintf(f, " | %s%" PRIu64 " | %s%" PRIu64 " | %s | %s |\n", r->in_a ? "" : "(none) ", r->a,
            r->in_b ? "" : "(none) ", r->b, delta, !r->in_b ? "gone" : !r->in_a ? "new" : pct);
}

/* The events' table: the --top largest changes of the exact and modeled
 * events, the rest counted; then the host-measured ones apart, marked as
 * such (they change from run to run: not a change of the program). */
static void md_totals(FILE *f, const struct diff *d, struct md_ctx *c)
{
    unsigned i, shown = 0, more = 0, measured = 0;
    if (c->totals_said++)
        return;
    qsort(c->rows, c->n_rows, sizeof c->rows[0], md_cmp);
    fputs("| event | old | new | delta | change |\n|---|---:|---:|---:|---:|\n", f);
    for (i = 0; i < c->n_rows; i++) {
        if (d->measured[c->rows[i].k])
            measured++;
        else if ((long)shown < c->top) {
            md_total_line(f, d, &c->rows[i]);
            shown++;
        } else
            more++;
    }
    if (!shown)
        fputs("| (no event changed) | | | | |\n", f);
    if (more)
        fprintf(f, "\n%u more event%s changed, less (`hpm diff` lists them all).\n", more,
                more == 1 ? "" : "s");
    if (!measured)
        return;
    fputs("\nMeasured on the host, not exact (they vary from run to run; left out of the "
          "ranking):\n\n| event | old | new | delta | change |\n|---|---:|---:|---:|---:|\n", f);
    for (i = 0; i < c->n_rows; i++)
        if (d->measured[c->rows[i].k])
            md_total_line(f, d, &c->rows[i]);
}

static void md_metric(FILE *f, const char *label, const char *formula, double a, double b,
                      void *ctx)
{
    struct md_ctx *c = ctx;
    if (!c->metrics_said++) {
        md_totals(f, c->d, c);
        fputs("\n| derived metric | old | new | change |\n|---|---:|---:|---:|\n", f);
    }
    fputs("| ", f);
    md_text(f, label);
    fputs(" (", f);
    md_text(f, formula);
    fprintf(f, ") | %.6g | %.6g | %+.2f%% |\n", a, b, a ? 100.0 * (b - a) / fabs(a) : 0.0);
}

static void md_table_begin(FILE *f, const struct diff *d, unsigned table, unsigned kind, void *ctx)
{
    md_totals(f, d, ctx);
    fprintf(f, "\n#### %s: %s\n\n", d->tables[table].title, d->kinds[kind]);
    fputs("| where | old | new | delta | change |\n|---|---:|---:|---:|---:|\n", f);
}

static void md_row(FILE *f, const struct diff *d, unsigned table, unsigned kind,
                   const struct diff_row *r, void *ctx)
{
    struct row_text t;
    const char *st = row_text(&t, r, kind);
    fputs("| `", f);
    /* a code span: only backticks need care (none in symbol names) */
    for (const char *s = r->key; *s; s++)
        fputc(*s == '`' ? '\'' : *s == '|' ? '/' : *s, f);
    fprintf(f, "`%s%s | %" PRIu64 " | %" PRIu64 " | %s | %s |\n", *st ? " " : "",
            *st == 'n' ? "*(new)*" : *st == 'g' ? "*(gone)*" : "", r->v[0][kind], r->v[1][kind],
            t.delta, *st == 'g' ? "gone" : t.pct);
    (void)d;
    (void)table;
    (void)ctx;
}

static void md_table_end(FILE *f, const struct diff *d, unsigned table, size_t changed,
                         size_t shown, void *ctx)
{
    (void)ctx;
    table_end_line(f, d, table, changed, shown, "| (no %s changed) | | | | |\n",
                   "\n%zu more changed.\n");
}

static int md_end(FILE *f, const struct diff *d, void *ctx)
{
    struct md_ctx *c = ctx;
    md_totals(f, d, c);
    unchanged_line(f, c->unchanged, "\n%zu event%s unchanged.\n");
    return ferror(f) ? -1 : 0;
}

const struct diff_writer diff_markdown_writer = {md_begin,       md_total, md_metric,
                                                 md_table_begin, md_row,   md_table_end,
                                                 md_end,         sizeof(struct md_ctx)};
