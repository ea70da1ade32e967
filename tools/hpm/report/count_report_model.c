/* SPDX-License-Identifier: BSD-3-Clause */
/* count_report_model.c - the model of hpm count's report (count_report.h):
 * the values, texts and derived metrics every writer shows, computed once. */
#define _POSIX_C_SOURCE 200809L
#include "report/count_report.h"
#include "report/count_report_writer.h"

#include "report/metrics.h"
#include "report/mpi_combined.h"
#include "report/mpi_job.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

unsigned count_report_cores(const struct count_report *r)
{
    unsigned c = r->out->cores;
    return c > HPM_CAT_MAX_CORES ? HPM_CAT_MAX_CORES : c;
}

/* ------------------------------------------------------------ values */

uint64_t report_add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

uint64_t report_row_value_in(const struct vpmu_output *o, const struct count_row *row)
{
    uint64_t v = 0;
    unsigned i;
    for (i = 0; i < row->n_codes; i++)
        v = report_add_sat(v, o->count[row->codes[i]]);
    return v;
}

static uint64_t row_value(const struct count_report *r, const struct count_row *row)
{
    return report_row_value_in(r->out, row);
}

/* Value of row on core c, or -1 when the row does not count that core. */
int report_row_core_value(const struct count_report *r, const struct count_row *row, unsigned c,
                          uint64_t *v)
{
    unsigned i;
    int code = hpm_catalog_code(row->kind, (int)c);
    if (hpm_catalog_kind(row->kind)->node || code < 0)
        return -1; /* a node event belongs to no core */
    /* a row's codes all count in its mode */
    code = (int)hpm_catalog_spec((unsigned)code, hpm_catalog_spec_mode((unsigned)row->codes[0]));
    for (i = 0; i < row->n_codes; i++)
        if (row->codes[i] == code) {
            *v = r->out->count[code];
            return 0;
        }
    return -1;
}

/* The node-wide total of kind, if every code of it was counted. */
static int kind_total(const struct count_report *r, unsigned kind, uint64_t *v)
{
    const struct hpm_cat_kind_info *k = hpm_catalog_kind(kind);
    unsigned c, cores = count_report_cores(r);
    *v = 0;
    if (k->node) {
        int code = hpm_catalog_code(kind, -1);
        if (!r->out->have_count[code])
            return 0;
        *v = r->out->count[code];
        return 1;
    }
    for (c = 0; c < cores; c++) {
        int code = hpm_catalog_code(kind, (int)c);
        if (!r->out->have_count[code])
            return 0;
        *v = report_add_sat(*v, r->out->count[code]);
    }
    return 1;
}

/* The measured count of a catalog kind (a perf_event report). */
static int measured_total(const struct count_report *r, unsigned kind, uint64_t *v)
{
    unsigned i;
    for (i = 0; i < r->n_measured; i++)
        if (r->measured[i].kind == (int)kind) {
            *v = r->measured[i].value;
            return 1;
        }
    return 0;
}

/* Rows for a report of an existing file without -e: what the file counted. */
/* The rows of one counting mode: a kind counted on every core is one row,
 * on some cores a row per core, a node kind one row. */
static unsigned rows_of_mode(const struct vpmu_output *out, unsigned mode, unsigned cores,
                             struct count_row *rows, unsigned n, unsigned max)
{
    unsigned k, c;
    for (k = 0; k < HPM_K_COUNT; k++) {
        const struct hpm_cat_kind_info *ki = hpm_catalog_kind(k);
        struct count_row r;
        unsigned have = 0;
        memset(&r, 0, sizeof r);
        r.kind = k;
        r.core = -1;
        if (mode == HPM_CAT_LEVEL_HIGH)
            snprintf(r.name, sizeof r.name, "%s", ki->name);
        else
            snprintf(r.name, sizeof r.name, "%s:%s", ki->name, hpm_catalog_mode_name(mode));
        if (ki->node) {
            r.codes[0] = (int)hpm_catalog_spec((unsigned)hpm_catalog_code(k, -1), mode);
            r.n_codes = 1;
            if (out->have_count[r.codes[0]] && n < max)
                rows[n++] = r;
            continue;
        }
        for (c = 0; c < cores; c++)
            have += out->have_count[hpm_catalog_spec((unsigned)hpm_catalog_code(k, (int)c), mode)];
        if (have == cores) {
            for (c = 0; c < cores; c++)
                r.codes[r.n_codes++] =
                    (int)hpm_catalog_spec((unsigned)hpm_catalog_code(k, (int)c), mode);
            if (n < max)
                rows[n++] = r;
            continue;
        }
        for (c = 0; c < cores; c++) {
            unsigned spec = hpm_catalog_spec((unsigned)hpm_catalog_code(k, (int)c), mode);
            if (!out->have_count[spec])
                continue;
            r.codes[0] = (int)spec;
            r.n_codes = 1;
            r.core = (int)c;
            hpm_catalog_code_name(spec, r.name, sizeof r.name);
            if (n < max)
                rows[n++] = r;
        }
    }
    return n;
}

/* Every count the output holds: the level-high rows first (the report of a
 * run without counting modes), then those of each mode. */
unsigned count_rows_from_output(const struct vpmu_output *out, struct count_row *rows,
                                unsigned max)
{
    unsigned mode, cores = out->cores > HPM_CAT_MAX_CORES ? HPM_CAT_MAX_CORES : out->cores;
    unsigned n = 0;
    for (mode = 0; mode < HPM_CAT_MODES; mode++)
        n = rows_of_mode(out, mode, cores, rows, n, max);
    return n;
}

/* ------------------------------------------------------------ derived metrics */

/* The metrics of metrics.c whose inputs were all counted, evaluated over
 * the node-wide totals by the formula engine. */
static unsigned compute_metrics(const struct count_report *r, struct count_report_metric *out)
{
    unsigned i, n = 0;
    for (i = 0; i < hpm_n_metrics && n < COUNT_REPORT_MAX_METRICS; i++) {
        struct hpm_formula f;
        double vars[HPM_FORMULA_MAX_VARS] = {0};
        unsigned v;
        int counted = 1;
        if (hpm_metric_compile(i, &f, NULL, 0) != 0)
            continue; /* a typo in the table: tests/count's metrics test fails */
        for (v = 0; v < HPM_FORMULA_MAX_VARS && counted; v++) {
            uint64_t x;
            if (!hpm_formula_uses(&f, v))
                continue;
            if (v == HPM_METRIC_VAR_FREQUENCY && r->measured)
                counted = 0; /* no modeled clock on perf_event */
            else if (v == HPM_METRIC_VAR_FREQUENCY)
                vars[v] = (double)r->out->frequency_hz;
            else if (r->measured ? measured_total(r, v, &x) : kind_total(r, v, &x))
                vars[v] = (double)x;
            else
                counted = 0;
        }
        if (!counted)
            continue;
        out[n].metric = &hpm_metrics[i];
        out[n].defined = hpm_formula_eval(&f, vars, HPM_FORMULA_MAX_VARS, &out[n].value) == 0;
        n++;
    }
    return n;
}

/* ------------------------------------------------------------ shared pieces */

/* The process table is written for a tree, or a program that exec'd. */
static int procs_shown(const struct count_report *r)
{
    return r->procs && (r->n_procs > 1 || (r->n_procs == 1 && count_proc_execs(&r->procs[0])));
}

void report_proc_exit_text(const struct count_proc *p, char *buf, size_t len)
{
    const struct vpmu_output *o = &p->out;
    if (p->killed_signal)
        snprintf(buf, len, "killed, signal %d", p->killed_signal);
    else if (!p->complete)
        snprintf(buf, len, "no final counts");
    else if (o->exit_kind == VPMU_EXIT_SIGNAL && o->exit_value > 0)
        snprintf(buf, len, "signal %d", o->exit_value);
    else if (o->exit_kind == VPMU_EXIT_SIGNAL)
        snprintf(buf, len, "signal");
    else if (o->exit_kind == VPMU_EXIT_SLOTS)
        snprintf(buf, len, "stopped, thread slots (%d)", o->exit_value);
    else
        snprintf(buf, len, "status %d", o->exit_value);
}

const char *report_signal_text(int sig)
{
    const char *s = sig > 0 ? strsignal(sig) : NULL;
    return s ? s : "unknown signal";
}

static void exit_text(const struct count_report *r, char *buf, size_t len)
{
    if (r->exit_signal > 0)
        snprintf(buf, len, "killed by signal %d (%s)", r->exit_signal,
                 report_signal_text(r->exit_signal));
    else if (r->exit_signal < 0)
        snprintf(buf, len, "killed by a signal (number unknown)");
    else
        snprintf(buf, len, "status %d", r->exit_status);
}

static void freq_text(uint64_t hz, char *buf, size_t len)
{
    if (hz && hz % 1000000000u == 0)
        snprintf(buf, len, "%" PRIu64 " GHz", hz / 1000000000u);
    else if (hz && hz % 1000000u == 0)
        snprintf(buf, len, "%" PRIu64 " MHz", hz / 1000000u);
    else
        snprintf(buf, len, "%" PRIu64 " Hz", hz);
}

double report_tv_seconds(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}


/* The kinds to show in per-thread and region tables: the requested rows'
 * kinds first (in their order), then any other kind present, catalog order. */
unsigned report_kind_order(const struct count_report *r, const unsigned char *present,
                           unsigned *order)
{
    unsigned char used[HPM_K_COUNT] = {0};
    unsigned i, n = 0;
    for (i = 0; i < r->n_rows; i++) {
        unsigned k = r->rows[i].kind;
        if (present[k] && !used[k]) {
            used[k] = 1;
            order[n++] = k;
        }
    }
    for (i = 0; i < HPM_K_COUNT; i++)
        if (present[i] && !used[i]) {
            used[i] = 1;
            order[n++] = i;
        }
    return n;
}

static int cmp_thread(const void *a, const void *b)
{
    const struct vpmu_thread *x = *(const struct vpmu_thread *const *)a,
                             *y = *(const struct vpmu_thread *const *)b;
    return x->serial < y->serial ? -1 : x->serial > y->serial;
}

/* Threads sorted by serial; caller frees. */
static const struct vpmu_thread **sorted_threads(const struct vpmu_output *o)
{
    const struct vpmu_thread **t = calloc(o->n_thr ? o->n_thr : 1, sizeof *t);
    size_t i;
    if (!t)
        return NULL;
    for (i = 0; i < o->n_thr; i++)
        t[i] = &o->thr[i];
    qsort(t, o->n_thr, sizeof *t, cmp_thread);
    return t;
}

/* An argument as a shell would need it, so the line can be pasted back. */
static void shell_word(FILE *f, const char *s)
{
    const char *p;
    if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                        "%+,-./:=@_") == strlen(s)) {
        fputs(s, f);
        return;
    }
    fputc('\'', f);
    for (p = s; *p; p++) {
        if (*p == '\'')
            fputs("'\\''", f);
        else
            fputc(*p, f);
    }
    fputc('\'', f);
}

static void program_text(FILE *f, const struct count_report *r)
{
    int i;
    if (!r->argv) {
        fputs(r->out->command ? r->out->command : "?", f);
        return;
    }
    for (i = 0; i < r->argc; i++) {
        if (i)
            fputc(' ', f);
        shell_word(f, r->argv[i]);
    }
}

/* ------------------------------------------------------------ MPI jobs */

/* A job combined at MPI_Finalize: rank r's value of row from the gathered
 * codes, 0, or -1 (not gathered, or a code the row has but the job not). */
static int combined_rank_value(const struct mpi_combined *c, unsigned r,
                               const struct count_row *row, uint64_t *v)
{
    unsigned k;
    *v = 0;
    if (!c->rank_codes)
        return -1;
    for (k = 0; k < row->n_codes; k++) {
        int i = mpi_combined_code_index(c, (unsigned)row->codes[k]);
        if (i < 0)
            return -1;
        *v = report_add_sat(*v, c->rank_codes[(size_t)r * c->ncodes + (unsigned)i]);
    }
    return 0;
}

/* Rank r's value of row, 0 when the rank has no counts. */
int report_rank_value(const struct mpi_job *j, unsigned r, const struct count_row *row,
                      uint64_t *v)
{
    const struct mpi_rank_result *x;
    if (j->combined)
        return combined_rank_value(j->combined, r, row, v);
    x = j->by_rank[r];
    if (!x || !x->have_counts)
        return -1;
    *v = report_row_value_in(&x->out, row);
    return 0;
}

void count_report_avg_text(const struct count_report_mpi_stat *s, int decimals, char *buf,
                           size_t len)
{
    uint32_t unit = 1, frac;
    uint64_t whole = s->avg_whole;
    int d, n;
    if (decimals < 0) {
        n = snprintf(buf, len, "%" PRIu64 ".%06u", whole, s->avg_micro);
        while (n > 0 && (size_t)n < len && (buf[n - 1] == '0' || buf[n - 1] == '.'))
            if (buf[--n] == '.') {
                buf[n] = 0;
                break;
            } else {
                buf[n] = 0;
            }
        return;
    }
    if (decimals > 6)
        decimals = 6;
    for (d = decimals; d < 6; d++)
        unit *= 10;
    frac = (s->avg_micro + unit / 2) / unit;
    if ((uint64_t)frac * unit >= 1000000) { /* rounded up to the next whole */
        whole++;
        frac = 0;
    }
    if (decimals)
        snprintf(buf, len, "%" PRIu64 ".%0*u", whole, decimals, frac);
    else
        snprintf(buf, len, "%" PRIu64, whole);
}

/* The exact average of n counts summing to exact, to a millionth (the
 * carry of a rounding reaches the next whole only below max). */
static void exact_avg(struct count_report_mpi_stat *s, unsigned __int128 exact, unsigned n)
{
    uint64_t micro = (uint64_t)((exact % n * 2000000 + n) / (2 * (uint64_t)n));
    s->avg_whole = (uint64_t)(exact / n) + (micro == 1000000);
    s->avg_micro = (uint32_t)(micro % 1000000);
}

int report_rank_info(const struct mpi_job *j, unsigned k, struct report_rank_info *x)
{
    memset(x, 0, sizeof *x);
    if (j->combined) {
        if (!j->combined->hosts)
            return -1;
        x->host = j->combined->hosts[k];
        x->have_counts = 1;
        snprintf(x->exit, sizeof x->exit, "(counted to MPI_Finalize)");
        return 0;
    }
    if (!(x->result = j->by_rank[k]))
        return -1;
    x->host = x->result->host;
    x->have_counts = x->result->have_counts;
    report_rank_exit_text(x->result, x->exit, sizeof x->exit);
    return 0;
}

uint64_t report_node_value(const struct mpi_job *j, unsigned node, const struct count_row *row)
{
    unsigned rpn = j->combined ? j->combined->ranks_per_node : 1, k;
    uint64_t sum = 0, v;
    for (k = node * rpn; k < j->size && k < (node + 1) * rpn; k++)
        if (report_rank_value(j, k, row, &v) == 0)
            sum = report_add_sat(sum, v);
    return sum;
}

void report_mpi_stat(const struct mpi_tuple *t, unsigned ranks, struct count_report_mpi_stat *s)
{
    memset(s, 0, sizeof *s);
    s->sum = t->sum;
    s->min = t->min;
    s->min_rank = (unsigned)t->min_rank;
    s->max = t->max;
    s->max_rank = (unsigned)t->max_rank;
    s->avg = ranks ? (double)t->sum / ranks : 0;
    if (ranks)
        exact_avg(s, t->sum, ranks);
    s->balanced_defined = s->avg > 0;
    s->imbalance = s->balanced_defined ? (double)t->max / s->avg : 0;
}

int report_combined_row(const struct mpi_combined *c, const struct count_row *row)
{
    unsigned i, k, n;
    for (i = 0; i < c->nrows; i++) {
        n = c->row_start[i + 1] - c->row_start[i];
        for (k = 0; k < row->n_codes && n == row->n_codes; k++) {
            unsigned q = c->row_start[i];
            while (q < c->row_start[i + 1] && c->row_spec[q] != (unsigned)row->codes[k])
                q++;
            if (q == c->row_start[i + 1])
                break;
        }
        if (n == row->n_codes && k == n)
            return (int)i;
    }
    return -1;
}

/* Per row, both windows of a job combined at MPI_Finalize. */
static void combined_stats(const struct count_report *r, struct count_report_model *m)
{
    const struct mpi_combined *c = r->mpi->combined;
    unsigned i;
    for (i = 0; i < r->n_rows; i++) {
        int k = report_combined_row(c, &r->rows[i]);
        if (k < 0)
            continue; /* a row libhpm-mpi was not given: no statistics */
        report_mpi_stat(&c->process.rows[k], c->size, &m->mpi[i]);
        report_mpi_stat(&c->mpi.rows[k], c->size, &m->mpi_window[i]);
    }
}

/* Per row, over the ranks with counts: sum, min, average, max (the lowest
 * rank holding the extreme), imbalance = max / average. */
static int mpi_stats(const struct count_report *r, struct count_report_model *m)
{
    const struct mpi_job *j = r->mpi;
    unsigned i, k;
    m->mpi = calloc(r->n_rows ? r->n_rows : 1, sizeof *m->mpi);
    m->mpi_window = calloc(r->n_rows ? r->n_rows : 1, sizeof *m->mpi_window);
    if (!m->mpi || !m->mpi_window)
        return -1;
    if (j->combined) {
        combined_stats(r, m);
        return 0;
    }
    for (i = 0; i < r->n_rows; i++) {
        struct count_report_mpi_stat *s = &m->mpi[i];
        unsigned seen = 0;
        long double sum = 0;
        unsigned __int128 exact = 0; /* ranks' counts of up to 2^64-1 each */
        for (k = 0; k < j->size; k++) {
            uint64_t v;
            if (report_rank_value(j, k, &r->rows[i], &v) != 0)
                continue;
            if (!seen || v < s->min) {
                s->min = v;
                s->min_rank = k;
            }
            if (!seen || v > s->max) {
                s->max = v;
                s->max_rank = k;
            }
            s->sum = report_add_sat(s->sum, v);
            sum += (long double)v;
            exact += v;
            seen++;
        }
        if (seen) {
            /* rounded to a millionth; a carry reaches the next whole only
             * below max (an average of max has no remainder) */
            exact_avg(s, exact, seen);
            s->avg = (double)(sum / seen);
            s->balanced_defined = s->avg > 0;
            s->imbalance = s->balanced_defined ? (double)((long double)s->max / (sum / seen)) : 0;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ the model */

int count_report_model_build(const struct count_report *r, struct count_report_model *m)
{
    unsigned i;
    size_t plen = 0;
    FILE *ps;
    memset(m, 0, sizeof *m);
    m->r = r;
    m->source = r->measured ? "measured" : "modeled";
    m->n_events = r->measured ? r->n_measured : r->n_rows;
    ps = open_memstream(&m->program, &plen);
    if (!ps)
        return -1;
    program_text(ps, r);
    if (fclose(ps) != 0 || !m->program)
        goto oom;
    exit_text(r, m->exit, sizeof m->exit);
    freq_text(r->out->frequency_hz, m->frequency, sizeof m->frequency);
    m->events = calloc(r->n_rows ? r->n_rows : 1, sizeof *m->events);
    m->threads = sorted_threads(r->out);
    if (!m->events || !m->threads)
        goto oom;
    for (i = 0; i < r->n_rows; i++) {
        m->events[i].row = &r->rows[i];
        m->events[i].kind = hpm_catalog_kind(r->rows[i].kind);
        m->events[i].total = row_value(r, &r->rows[i]);
    }
    if (r->given) {
        m->have_syscalls = r->given->have_syscalls;
        m->syscalls = r->given->syscalls;
        m->n_metrics = r->given->n_metrics;
        memcpy(m->metrics, r->given->metrics, sizeof m->metrics);
    } else {
        m->have_syscalls = !r->measured && kind_total(r, HPM_K_SYSCALLS, &m->syscalls);
        m->n_metrics = compute_metrics(r, m->metrics);
    }
    m->procs_shown = procs_shown(r);
    if (r->mpi && mpi_stats(r, m) != 0)
        goto oom;
    return 0;
oom:
    count_report_model_free(m);
    return -1;
}

void count_report_model_free(struct count_report_model *m)
{
    free(m->mpi);
    free(m->mpi_window);
    free(m->program);
    free(m->events);
    free(m->threads);
    memset(m, 0, sizeof *m);
}

void report_rank_exit_text(const struct mpi_rank_result *x, char *buf, size_t len)
{
    if (x->exit_signal > 0)
        snprintf(buf, len, "killed by signal %d (%s)", x->exit_signal, strsignal(x->exit_signal));
    else if (x->exit_signal < 0)
        snprintf(buf, len, "killed by a signal");
    else
        snprintf(buf, len, "status %d", x->exit_status);
}

/* A row's source as reports write it: "measured" for what the host measured
 * (the I/O and kernel units' host clocks and getrusage), "modeled" for every
 * count of the virtual node (exact or modeled). */
const char *report_row_source(const struct hpm_cat_kind_info *k)
{
    return k->source == HPM_SRC_HOST ? "measured" : "modeled";
}

/* The kernel unit's counts and the host's measurements (time in system
 * calls, faults, context switches) are the kernel's work for the program:
 * they go in the kernel column (every other virtual count is user mode). */
int report_row_is_kernel(const struct hpm_cat_kind_info *k)
{
    return k->unit == HPM_UNIT_KERNEL || k->source == HPM_SRC_HOST;
}

