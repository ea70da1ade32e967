/* SPDX-License-Identifier: BSD-3-Clause */
/* count_report.c - text, JSON and CSV reports of hpm count (count_report.h). */
#define _POSIX_C_SOURCE 200809L
#include "count_report.h"

#include "json.h"
#include "metrics.h"
#include "mpi_job.h"

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

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t row_value_in(const struct vpmu_output *o, const struct count_row *row)
{
    uint64_t v = 0;
    unsigned i;
    for (i = 0; i < row->n_codes; i++)
        v = add_sat(v, o->count[row->codes[i]]);
    return v;
}

static uint64_t row_value(const struct count_report *r, const struct count_row *row)
{
    return row_value_in(r->out, row);
}

/* Value of row on core c, or -1 when the row does not count that core. */
static int row_core_value(const struct count_report *r, const struct count_row *row, unsigned c,
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
        *v = add_sat(*v, r->out->count[code]);
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
unsigned count_rows_from_output(const struct vpmu_output *out, struct count_row *rows,
                                unsigned max)
{
    unsigned k, c, cores = out->cores > HPM_CAT_MAX_CORES ? HPM_CAT_MAX_CORES : out->cores;
    unsigned n = 0;
    for (k = 0; k < HPM_K_COUNT; k++) {
        const struct hpm_cat_kind_info *ki = hpm_catalog_kind(k);
        struct count_row r;
        unsigned have = 0;
        memset(&r, 0, sizeof r);
        r.kind = k;
        r.core = -1;
        snprintf(r.name, sizeof r.name, "%s", ki->name);
        if (ki->node) {
            r.codes[0] = hpm_catalog_code(k, -1);
            r.n_codes = 1;
            if (out->have_count[r.codes[0]] && n < max)
                rows[n++] = r;
            continue;
        }
        for (c = 0; c < cores; c++)
            have += out->have_count[hpm_catalog_code(k, (int)c)];
        if (have == cores) {
            for (c = 0; c < cores; c++)
                r.codes[r.n_codes++] = hpm_catalog_code(k, (int)c);
            if (n < max)
                rows[n++] = r;
            continue;
        }
        for (c = 0; c < cores; c++) {
            int code = hpm_catalog_code(k, (int)c);
            if (!out->have_count[code])
                continue;
            r.codes[0] = code;
            r.n_codes = 1;
            r.core = (int)c;
            hpm_catalog_code_name((unsigned)code, r.name, sizeof r.name);
            if (n < max)
                rows[n++] = r;
        }
    }
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

static void proc_exit_text(const struct count_proc *p, char *buf, size_t len)
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
    else
        snprintf(buf, len, "status %d", o->exit_value);
}

static const char *signal_text(int sig)
{
    const char *s = sig > 0 ? strsignal(sig) : NULL;
    return s ? s : "unknown signal";
}

static void exit_text(const struct count_report *r, char *buf, size_t len)
{
    if (r->exit_signal > 0)
        snprintf(buf, len, "killed by signal %d (%s)", r->exit_signal,
                 signal_text(r->exit_signal));
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

static double tv_seconds(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}


/* The kinds to show in per-thread and region tables: the requested rows'
 * kinds first (in their order), then any other kind present, catalog order. */
static unsigned kind_order(const struct count_report *r, const unsigned char *present,
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

/* Rank r's value of row, 0 when the rank has no counts. */
static int rank_value(const struct mpi_job *j, unsigned r, const struct count_row *row,
                      uint64_t *v)
{
    const struct mpi_rank_result *x = j->by_rank[r];
    if (!x || !x->have_counts)
        return -1;
    *v = row_value_in(&x->out, row);
    return 0;
}

/* Per row, over the ranks with counts: sum, min, average, max (the lowest
 * rank holding the extreme), imbalance = max / average. */
static int mpi_stats(const struct count_report *r, struct count_report_model *m)
{
    const struct mpi_job *j = r->mpi;
    unsigned i, k;
    m->mpi = calloc(r->n_rows ? r->n_rows : 1, sizeof *m->mpi);
    if (!m->mpi)
        return -1;
    for (i = 0; i < r->n_rows; i++) {
        struct count_report_mpi_stat *s = &m->mpi[i];
        unsigned seen = 0;
        long double sum = 0;
        for (k = 0; k < j->size; k++) {
            uint64_t v;
            if (rank_value(j, k, &r->rows[i], &v) != 0)
                continue;
            if (!seen || v < s->min) {
                s->min = v;
                s->min_rank = k;
            }
            if (!seen || v > s->max) {
                s->max = v;
                s->max_rank = k;
            }
            s->sum = add_sat(s->sum, v);
            sum += (long double)v;
            seen++;
        }
        if (seen) {
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
    m->have_syscalls = !r->measured && kind_total(r, HPM_K_SYSCALLS, &m->syscalls);
    m->n_metrics = compute_metrics(r, m->metrics);
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
    free(m->program);
    free(m->events);
    free(m->threads);
    memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------ text */

#define NAME_W 30
#define NUM_W 20

/* The host figures (wait4's rusage), one writer per format, shared by the
 * virtual PMU's reports and perf_event's. */
static void text_rusage(FILE *f, const struct count_report *r)
{
    fprintf(f, " %-*s %*.3f %*.3f\n", NAME_W, "CPU time (s)", NUM_W, tv_seconds(r->ru.ru_utime),
            NUM_W, tv_seconds(r->ru.ru_stime));
    fprintf(f, " %-*s %*s %*ld\n", NAME_W, "page faults, minor", NUM_W, "-", NUM_W,
            r->ru.ru_minflt);
    fprintf(f, " %-*s %*s %*ld\n", NAME_W, "page faults, major", NUM_W, "-", NUM_W,
            r->ru.ru_majflt);
    fprintf(f, " %-*s %*s %*ld\n", NAME_W, "context switches, voluntary", NUM_W, "-", NUM_W,
            r->ru.ru_nvcsw);
    fprintf(f, " %-*s %*s %*ld\n", NAME_W, "context switches, involuntary", NUM_W, "-", NUM_W,
            r->ru.ru_nivcsw);
}

static void json_rusage(FILE *f, const struct count_report *r)
{
    fprintf(f,
            ",\"user_time_s\":%.6f,\"system_time_s\":%.6f,\"minor_faults\":%ld,"
            "\"major_faults\":%ld,\"voluntary_context_switches\":%ld,"
            "\"involuntary_context_switches\":%ld",
            tv_seconds(r->ru.ru_utime), tv_seconds(r->ru.ru_stime), r->ru.ru_minflt,
            r->ru.ru_majflt, r->ru.ru_nvcsw, r->ru.ru_nivcsw);
}
#define COLS_PER_BLOCK 6

struct matrix_col {
    unsigned serial; /* thread, for the column order */
    const char *label;
    const struct vpmu_kind_values *k;
    int have_entries;
    uint64_t entries;
};

/* A table of kinds (rows) by columns, COLS_PER_BLOCK columns per block, with
 * a total column when there is more than one. */
static void text_matrix(FILE *f, const struct count_report *r, const struct matrix_col *cols,
                        size_t ncols, int entries_row)
{
    unsigned char present[HPM_K_COUNT] = {0};
    unsigned order[HPM_K_COUNT], nk, i;
    size_t c0, c;
    int with_total = ncols > 1;
    for (c = 0; c < ncols; c++)
        for (i = 0; i < HPM_K_COUNT; i++)
            present[i] |= cols[c].k->have[i];
    nk = kind_order(r, present, order);
    for (c0 = 0; c0 < ncols; c0 += COLS_PER_BLOCK) {
        size_t c1 = c0 + COLS_PER_BLOCK < ncols ? c0 + COLS_PER_BLOCK : ncols;
        int last = c1 == ncols;
        fprintf(f, " %-*s", NAME_W, "");
        for (c = c0; c < c1; c++)
            fprintf(f, " %16s", cols[c].label);
        if (with_total && last)
            fprintf(f, " %20s", "total");
        fputc('\n', f);
        if (entries_row) {
            uint64_t tot = 0;
            fprintf(f, " %-*s", NAME_W, "entries");
            for (c = c0; c < c1; c++) {
                if (cols[c].have_entries)
                    fprintf(f, " %16" PRIu64, cols[c].entries);
                else
                    fprintf(f, " %16s", "-");
            }
            for (c = 0; c < ncols; c++)
                tot = add_sat(tot, cols[c].entries);
            if (with_total && last)
                fprintf(f, " %20" PRIu64, tot);
            fputc('\n', f);
        }
        for (i = 0; i < nk; i++) {
            unsigned k = order[i];
            uint64_t tot = 0;
            fprintf(f, " %-*s", NAME_W, hpm_catalog_kind(k)->name);
            for (c = c0; c < c1; c++) {
                if (cols[c].k->have[k])
                    fprintf(f, " %16" PRIu64, cols[c].k->v[k]);
                else
                    fprintf(f, " %16s", "-");
            }
            for (c = 0; c < ncols; c++)
                if (cols[c].k->have[k])
                    tot = add_sat(tot, cols[c].k->v[k]);
            if (with_total && last)
                fprintf(f, " %20" PRIu64, tot);
            fputc('\n', f);
        }
        if (!last)
            fputc('\n', f);
    }
}

static void text_threads(FILE *f, const struct count_report_model *m)
{
    const struct count_report *r = m->r;
    const struct vpmu_output *o = r->out;
    const struct vpmu_thread *const *t = m->threads;
    struct matrix_col *cols = calloc(o->n_thr ? o->n_thr : 1, sizeof *cols);
    char(*labels)[32] = calloc(o->n_thr ? o->n_thr : 1, sizeof *labels);
    size_t i;
    if (t && cols && labels) {
        fprintf(f, "\nper thread (modeled; thread T ran on core PUc)\n");
        for (i = 0; i < o->n_thr; i++) {
            if (t[i]->core >= 0)
                snprintf(labels[i], sizeof labels[i], "T%u/PU%d", t[i]->serial, t[i]->core);
            else
                snprintf(labels[i], sizeof labels[i], "T%u", t[i]->serial);
            cols[i].label = labels[i];
            cols[i].k = &t[i]->k;
        }
        text_matrix(f, r, cols, o->n_thr, 0);
    }
    free(cols);
    free(labels);
}

static int cmp_col(const void *a, const void *b)
{
    const struct matrix_col *x = a, *y = b;
    return x->serial < y->serial ? -1 : x->serial > y->serial;
}

static void text_regions(FILE *f, const struct count_report *r)
{
    const struct vpmu_output *o = r->out;
    struct matrix_col *cols = calloc(o->n_reg, sizeof *cols);
    char(*labels)[32] = calloc(o->n_reg, sizeof *labels);
    unsigned char *done = calloc(o->n_reg, 1);
    size_t i, j;
    if (cols && labels && done) {
        for (i = 0; i < o->n_reg; i++) {
            size_t n = 0;
            if (done[i])
                continue;
            /* one table per region name, one column per thread */
            for (j = i; j < o->n_reg; j++) {
                const struct vpmu_region *g = &o->reg[j];
                const struct vpmu_thread *t;
                if (done[j] || strcmp(g->name, o->reg[i].name) != 0)
                    continue;
                done[j] = 1;
                t = vpmu_output_thread(o, g->thread);
                if (t && t->core >= 0)
                    snprintf(labels[n], sizeof labels[n], "T%u/PU%d", g->thread, t->core);
                else
                    snprintf(labels[n], sizeof labels[n], "T%u", g->thread);
                cols[n].serial = g->thread;
                cols[n].label = labels[n];
                cols[n].k = &g->k;
                cols[n].have_entries = g->have_entries;
                cols[n].entries = g->entries;
                n++;
            }
            qsort(cols, n, sizeof *cols, cmp_col);
            fprintf(f, "\nregion %s (modeled)\n", o->reg[i].name);
            text_matrix(f, r, cols, n, 1);
        }
    }
    free(cols);
    free(labels);
    free(done);
}

/* One line per process: pid, parent, how it ended, its share of the first
 * rows (all rows are in JSON and CSV), and the images it ran. */
#define PROC_TEXT_ROWS 3
static void text_procs(FILE *f, const struct count_report *r)
{
    unsigned i, j, nr = r->n_rows < PROC_TEXT_ROWS ? r->n_rows : PROC_TEXT_ROWS;
    char buf[64];
    fprintf(f, "\n processes (the counts above are their sum)\n %10s %10s  %-16s", "pid", "ppid",
            "exit");
    for (j = 0; j < nr; j++)
        fprintf(f, " %20s", r->rows[j].name);
    fprintf(f, "  command\n");
    for (i = 0; i < r->n_procs; i++) {
        const struct count_proc *p = &r->procs[i];
        proc_exit_text(p, buf, sizeof buf);
        fprintf(f, " %10" PRIu64 " ", p->pid);
        if (p->ppid)
            fprintf(f, "%10" PRIu64, p->ppid);
        else
            fprintf(f, "%10s", "-");
        fprintf(f, "  %-16s", buf);
        for (j = 0; j < nr; j++)
            fprintf(f, " %20" PRIu64, row_value_in(&p->out, &r->rows[j]));
        fputs(" ", f);
        for (j = 0; j < p->n_commands; j++)
            fprintf(f, "%s %s", j ? " ->" : "", p->commands[j]);
        fputc('\n', f);
    }
}

static void rank_exit_text(const struct mpi_rank_result *x, char *buf, size_t len)
{
    if (x->exit_signal > 0)
        snprintf(buf, len, "killed by signal %d (%s)", x->exit_signal, strsignal(x->exit_signal));
    else if (x->exit_signal < 0)
        snprintf(buf, len, "killed by a signal");
    else
        snprintf(buf, len, "status %d", x->exit_status);
}

static void text_mpi(FILE *f, const struct count_report_model *m)
{
    const struct count_report *r = m->r;
    const struct mpi_job *j = r->mpi;
    unsigned i, k, b;
    char buf[64];
    fprintf(f, "\n MPI job of %u rank%s: %u with counts", j->size, j->size == 1 ? "" : "s",
            j->counted);
    if (j->size > j->counted)
        fprintf(f, ", %u missing", j->size - j->counted);
    fprintf(f, " (sum over the ranks above; min, average, max over the ranks with counts)\n");
    for (k = 0; k < j->size; k++)
        if (mpi_job_missing_reason(j, k))
            fprintf(f, " missing   rank %u: %s\n", k, mpi_job_missing_reason(j, k));
    fprintf(f, " %-*s %*s %*s %*s %*s %8s %10s\n", NAME_W, "Counter", NUM_W, "sum", 16, "min",
            18, "avg", 16, "max", "max rank", "imbalance");
    for (i = 0; i < r->n_rows; i++) {
        const struct count_report_mpi_stat *s = &m->mpi[i];
        if (s->balanced_defined)
            snprintf(buf, sizeof buf, "%.4f", s->imbalance);
        else
            snprintf(buf, sizeof buf, "-");
        fprintf(f, " %-*s %*" PRIu64 " %16" PRIu64 " %18.2f %16" PRIu64 " %8u %10s\n", NAME_W,
                r->rows[i].name, NUM_W, s->sum, s->min, s->avg, s->max, s->max_rank, buf);
    }
    if (!j->per_rank)
        return;
    fprintf(f, "\n per rank\n");
    for (k = 0; k < j->size; k++) {
        const struct mpi_rank_result *x = j->by_rank[k];
        if (!x)
            continue;
        rank_exit_text(x, buf, sizeof buf);
        fprintf(f, " rank %-6u host %s, exit %s%s\n", k, x->host[0] ? x->host : "?", buf,
                x->have_counts ? "" : ", no counts");
    }
    for (b = 0; b < j->size; b += COLS_PER_BLOCK) {
        unsigned e = b + COLS_PER_BLOCK < j->size ? b + COLS_PER_BLOCK : j->size;
        fprintf(f, "\n %-*s", NAME_W, "Counter");
        for (k = b; k < e; k++) {
            snprintf(buf, sizeof buf, "rank %u", k);
            fprintf(f, " %*s", NUM_W, buf);
        }
        fputc('\n', f);
        for (i = 0; i < r->n_rows; i++) {
            fprintf(f, " %-*s", NAME_W, r->rows[i].name);
            for (k = b; k < e; k++) {
                uint64_t v;
                if (rank_value(j, k, &r->rows[i], &v) == 0)
                    fprintf(f, " %*" PRIu64, NUM_W, v);
                else
                    fprintf(f, " %*s", NUM_W, "-");
            }
            fputc('\n', f);
        }
    }
}

/* A row's source as reports write it: "measured" for what the host measured
 * (the I/O and kernel units' host clocks and getrusage), "modeled" for every
 * count of the virtual node (exact or modeled). */
static const char *row_source(const struct hpm_cat_kind_info *k)
{
    return k->source == HPM_SRC_HOST ? "measured" : "modeled";
}

/* The kernel unit's counts and the host's measurements (time in system
 * calls, faults, context switches) are the kernel's work for the program:
 * they go in the kernel column (every other virtual count is user mode). */
static int row_is_kernel(const struct hpm_cat_kind_info *k)
{
    return k->unit == HPM_UNIT_KERNEL || k->source == HPM_SRC_HOST;
}

static void write_text(FILE *f, const struct count_report_model *m)
{
    const struct count_report *r = m->r;
    const struct vpmu_output *o = r->out;
    unsigned cores = count_report_cores(r), i, c;
    char buf[128];

    fprintf(f, "hpm count: %s", m->program);
    fprintf(f, "\n machine   %s: %u core%s, %s", o->machine, o->cores, o->cores == 1 ? "" : "s",
            m->frequency);
    if (r->machine_source)
        fprintf(f, " (%s)", r->machine_source);
    fprintf(f, "\n source    virtual PMU (modeled): level %s, models %s, %u UPC unit%s\n",
            o->level[0] ? o->level : "?", o->models[0] ? o->models : "?", o->upcs,
            o->upcs == 1 ? "" : "s");
    if (r->pmu)
        fprintf(f, " host PMU  %s\n", r->pmu);
    fprintf(f, " exit      %s\n threads   %u\n", m->exit, o->threads);
    for (i = 0; i < r->n_notes; i++)
        fprintf(f, " note      %s\n", r->notes[i]);

    fprintf(f, "\n %-*s %*s %*s %8s", NAME_W, "Counter", NUM_W, "count", NUM_W, "user",
            "kernel");
    if (r->per_core)
        for (c = 0; c < cores; c++) {
            snprintf(buf, sizeof buf, "PU%u", c);
            fprintf(f, " %16s", buf);
        }
    fprintf(f, "  description\n");
    for (i = 0; i < r->n_rows; i++) {
        const struct count_row *row = m->events[i].row;
        uint64_t v = m->events[i].total;
        if (row_is_kernel(m->events[i].kind))
            fprintf(f, " %-*s %*" PRIu64 " %*s %8" PRIu64, NAME_W, row->name, NUM_W, v, NUM_W,
                    "-", v);
        else
            fprintf(f, " %-*s %*" PRIu64 " %*" PRIu64 " %8s", NAME_W, row->name, NUM_W, v, NUM_W,
                    v, "-");
        if (r->per_core)
            for (c = 0; c < cores; c++) {
                uint64_t cv;
                if (row_core_value(r, row, c, &cv) == 0)
                    fprintf(f, " %16" PRIu64, cv);
                else
                    fprintf(f, " %16s", "-");
            }
        fprintf(f, "  %s\n", m->events[i].kind->description);
    }

    fprintf(f, "\n host (measured, kernel): the simulator process as wait4() reports it; "
               "includes Valgrind's own work\n");
    fprintf(f, " %-*s %*s %*s\n", NAME_W, "", NUM_W, "user", NUM_W, "kernel");
    if (r->have_rusage) {
        text_rusage(f, r);
    } else if (r->mpi) {
        fprintf(f, " (not summed over an MPI job: each rank's result file has its own)\n");
    } else {
        fprintf(f, " (not measured: report of an existing output file)\n");
    }
    if (m->have_syscalls)
        fprintf(f, " %-*s %*" PRIu64 " %*s  (modeled: the program's system calls)\n", NAME_W,
                "SYSCALLS", NUM_W, m->syscalls, NUM_W, "-");

    if (m->n_metrics) {
        fprintf(f, "\n derived metrics (of the modeled counts)\n");
        for (i = 0; i < m->n_metrics; i++) {
            const struct count_report_metric *d = &m->metrics[i];
            if (d->defined)
                snprintf(buf, sizeof buf, "%.6g", d->value);
            else
                snprintf(buf, sizeof buf, "-");
            fprintf(f, " %-*s %*s  %s\n", NAME_W, d->metric->label, NUM_W, buf,
                    d->metric->shown ? d->metric->shown : d->metric->formula);
        }
    }
    if (m->procs_shown)
        text_procs(f, r);
    if (r->per_thread && o->n_thr)
        text_threads(f, m);
    if (o->n_reg)
        text_regions(f, r);
    if (r->mpi)
        text_mpi(f, m);
}

/* ------------------------------------------------------------ JSON */

static void json_key(FILE *f, const char *k)
{
    hpm_json_string(f, k);
    fputc(':', f);
}

static void json_double(FILE *f, int defined, double v)
{
    if (defined && isfinite(v))
        fprintf(f, "%.9g", v);
    else
        fputs("null", f);
}

static void json_kinds(FILE *f, const struct count_report *r, const struct vpmu_kind_values *k)
{
    unsigned order[HPM_K_COUNT], n = kind_order(r, k->have, order), i;
    fputc('{', f);
    for (i = 0; i < n; i++) {
        if (i)
            fputc(',', f);
        json_key(f, hpm_catalog_kind(order[i])->name);
        fprintf(f, "%" PRIu64, k->v[order[i]]);
    }
    fputc('}', f);
}

static void json_procs(FILE *f, const struct count_report *r)
{
    unsigned i, j;
    fputs("],\n  \"processes\":[", f);
    for (i = 0; i < r->n_procs; i++) {
        const struct count_proc *p = &r->procs[i];
        fprintf(f, "%s\n    {\"pid\":%" PRIu64 ",\"ppid\":", i ? "," : "", p->pid);
        if (p->ppid)
            fprintf(f, "%" PRIu64, p->ppid);
        else
            fputs("null", f);
        fputs(",\"commands\":[", f);
        for (j = 0; j < p->n_commands; j++) {
            if (j)
                fputc(',', f);
            hpm_json_string(f, p->commands[j]);
        }
        fprintf(f, "],\"complete\":%s,\"exit\":", p->complete ? "true" : "false");
        if (p->killed_signal)
            fprintf(f, "{\"signal\":%d,\"counts_lost\":true}", p->killed_signal);
        else if (!p->complete)
            fputs("null", f);
        else if (p->out.exit_kind == VPMU_EXIT_SIGNAL && p->out.exit_value > 0)
            fprintf(f, "{\"signal\":%d}", p->out.exit_value);
        else if (p->out.exit_kind == VPMU_EXIT_SIGNAL)
            fputs("{\"signal\":null}", f);
        else
            fprintf(f, "{\"status\":%d}", p->out.exit_value);
        fprintf(f, ",\"threads_count\":%u,\"source\":\"modeled\",\"counts\":{",
                p->out.threads);
        for (j = 0; j < r->n_rows; j++) {
            if (j)
                fputc(',', f);
            json_key(f, r->rows[j].name);
            fprintf(f, "%" PRIu64, row_value_in(&p->out, &r->rows[j]));
        }
        fputs("}}", f);
    }
    fputs("\n  ", f);
}

/* "mpi_rank": which rank of which job this report is (hpm merge reads it) */
static void json_rank(FILE *f, const struct mpi_rank_env *e)
{
    fprintf(f, ",\n  \"mpi_rank\":{\"rank\":%d,\"size\":%d,\"job\":", e->rank, e->size);
    hpm_json_string(f, e->job);
    fputs(",\"host\":", f);
    hpm_json_string(f, e->host);
    fputc('}', f);
}

static void json_mpi(FILE *f, const struct count_report_model *m)
{
    const struct count_report *r = m->r;
    const struct mpi_job *j = r->mpi;
    unsigned i, k, first = 1;
    fprintf(f, ",\n  \"mpi\":{\"size\":%u,\"ranks_counted\":%u,\"missing\":[", j->size,
            j->counted);
    for (k = 0; k < j->size; k++) {
        const char *why = mpi_job_missing_reason(j, k);
        if (!why)
            continue;
        fprintf(f, "%s{\"rank\":%u,\"reason\":", first ? "" : ",", k);
        hpm_json_string(f, why);
        fputc('}', f);
        first = 0;
    }
    fputs("],\"events\":[", f);
    for (i = 0; i < r->n_rows; i++) {
        const struct count_report_mpi_stat *s = &m->mpi[i];
        fputs(i ? ",\n    {" : "\n    {", f);
        json_key(f, "name");
        hpm_json_string(f, r->rows[i].name);
        fprintf(f, ",\"sum\":%" PRIu64 ",\"min\":%" PRIu64 ",\"min_rank\":%u,\"avg\":", s->sum,
                s->min, s->min_rank);
        json_double(f, 1, s->avg);
        fprintf(f, ",\"max\":%" PRIu64 ",\"max_rank\":%u,\"imbalance\":", s->max, s->max_rank);
        json_double(f, s->balanced_defined, s->imbalance);
        fputc('}', f);
    }
    fputs(r->n_rows ? "\n  ]" : "]", f);
    if (j->per_rank) {
        fputs(",\"ranks\":[", f);
        first = 1;
        for (k = 0; k < j->size; k++) {
            const struct mpi_rank_result *x = j->by_rank[k];
            if (!x)
                continue;
            fprintf(f, "%s\n    {\"rank\":%u,\"host\":", first ? "" : ",", k);
            hpm_json_string(f, x->host);
            if (x->exit_signal > 0)
                fprintf(f, ",\"exit\":{\"signal\":%d}", x->exit_signal);
            else if (x->exit_signal < 0)
                fputs(",\"exit\":{\"signal\":null}", f);
            else
                fprintf(f, ",\"exit\":{\"status\":%d}", x->exit_status);
            fputs(",\"counts\":", f);
            if (!x->have_counts) {
                fputs("null", f);
            } else {
                fputc('{', f);
                for (i = 0; i < r->n_rows; i++) {
                    uint64_t v = 0;
                    rank_value(j, k, &r->rows[i], &v);
                    if (i)
                        fputc(',', f);
                    json_key(f, r->rows[i].name);
                    fprintf(f, "%" PRIu64, v);
                }
                fputc('}', f);
            }
            fputc('}', f);
            first = 0;
        }
        fputs("\n  ]", f);
    }
    fputc('}', f);
}

/* The derived metrics' array items (modeled or measured counts). */
static void json_metrics(FILE *f, const struct count_report_model *m, const char *source)
{
    unsigned i;
    for (i = 0; i < m->n_metrics; i++) {
        const struct count_report_metric *d = &m->metrics[i];
        fputs(i ? ",\n    {" : "\n    {", f);
        json_key(f, "name");
        hpm_json_string(f, d->metric->key);
        fputs(",\"label\":", f);
        hpm_json_string(f, d->metric->label);
        fputs(",\"formula\":", f);
        hpm_json_string(f, d->metric->shown ? d->metric->shown : d->metric->formula);
        fputs(",\"source\":", f);
        hpm_json_string(f, source);
        fputs(",\"value\":", f);
        json_double(f, d->defined, d->value);
        fputc('}', f);
    }
}

/* The program's end in JSON, for every source. */
static void json_exit(FILE *f, const struct count_report *r)
{
    fputs("{", f);
    if (r->exit_signal > 0) {
        fprintf(f, "\"signal\":%d,\"signal_name\":", r->exit_signal);
        hpm_json_string(f, signal_text(r->exit_signal));
    } else if (r->exit_signal < 0) {
        fputs("\"signal\":null", f);
    } else {
        fprintf(f, "\"status\":%d", r->exit_status);
    }
    fprintf(f, ",\"hpm_exit_code\":%d}", r->exit_code);
}

static void write_json(FILE *f, const struct count_report_model *m)
{
    const struct count_report *r = m->r;
    const struct vpmu_output *o = r->out;
    const struct vpmu_thread *const *t = m->threads;
    unsigned i, j;
    char buf[128];

    fputs("{\n", f);
    fputs("  \"source\":\"modeled\",\n  \"pmu\":\"virtual\",\n  \"program\":", f);
    if (r->argv) {
        fputc('[', f);
        for (i = 0; i < (unsigned)r->argc; i++) {
            if (i)
                fputc(',', f);
            hpm_json_string(f, r->argv[i]);
        }
        fputc(']', f);
    } else {
        fputs("null", f); /* a report of a file: only the tool's command line is known */
    }
    fputs(",\n  \"command\":", f);
    if (o->command)
        hpm_json_string(f, o->command);
    else
        fputs("null", f);
    fputs(",\n  \"machine\":{", f);
    json_key(f, "name");
    hpm_json_string(f, o->machine);
    fprintf(f, ",\"cores\":%u,\"frequency_hz\":%" PRIu64 ",\"file\":", o->cores, o->frequency_hz);
    if (r->machine_source)
        hpm_json_string(f, r->machine_source);
    else
        fputs("null", f);
    fputs("},\n  \"level\":", f);
    hpm_json_string(f, o->level);
    fputs(",\n  \"models\":", f);
    hpm_json_string(f, o->models);
    fprintf(f, ",\n  \"upcs\":%u,\n  \"threads_count\":%u,\n  \"host_pmu\":{\"present\":%s,"
               "\"probe\":",
            o->upcs, o->threads, r->hw_pmu ? "true" : "false");
    if (r->pmu)
        hpm_json_string(f, r->pmu);
    else
        fputs("null", f);
    fputs("},\n  \"exit\":", f);
    json_exit(f, r);
    fputs(",\n  \"notes\":[", f);
    for (i = 0; i < r->n_notes; i++) {
        if (i)
            fputc(',', f);
        hpm_json_string(f, r->notes[i]);
    }
    fputs("],\n  \"events\":[", f);
    for (i = 0; i < r->n_rows; i++) {
        const struct count_row *row = m->events[i].row;
        const struct hpm_cat_kind_info *k = m->events[i].kind;
        uint64_t v = m->events[i].total;
        fputs(i ? ",\n    {" : "\n    {", f);
        json_key(f, "name");
        hpm_json_string(f, row->name);
        fputs(",\"kind\":", f);
        hpm_json_string(f, k->name);
        fputs(",\"unit\":", f);
        hpm_json_string(f, hpm_catalog_unit_name(k->unit));
        fprintf(f, ",\"node\":%s,\"source\":\"%s\",\"count\":%" PRIu64, k->node ? "true" : "false",
                row_source(k), v);
        if (row_is_kernel(k))
            fprintf(f, ",\"user\":null,\"kernel\":%" PRIu64 ",\"codes\":[", v);
        else
            fprintf(f, ",\"user\":%" PRIu64 ",\"kernel\":null,\"codes\":[", v);
        for (j = 0; j < row->n_codes; j++) {
            unsigned kk;
            int core;
            hpm_catalog_spec_decode((unsigned)row->codes[j], &kk, &core, NULL);
            hpm_catalog_code_name((unsigned)row->codes[j], buf, sizeof buf);
            fprintf(f, "%s{\"code\":%d,\"core\":", j ? "," : "", row->codes[j]);
            if (core >= 0)
                fprintf(f, "%d", core);
            else
                fputs("null", f);
            fputs(",\"name\":", f);
            hpm_json_string(f, buf);
            fprintf(f, ",\"count\":%" PRIu64 "}", o->count[row->codes[j]]);
        }
        fputs("],\"description\":", f);
        hpm_json_string(f, k->description);
        fputc('}', f);
    }
    fputs("\n  ],\n  \"host\":{\"source\":\"measured\",\"scope\":", f);
    hpm_json_string(f, "the simulator process as wait4() reports it; includes Valgrind's own "
                         "work");
    if (r->have_rusage)
        json_rusage(f, r);
    else
        fputs(",\"measured\":false", f);
    fputs(",\"syscalls\":", f);
    if (m->have_syscalls)
        fprintf(f, "{\"source\":\"modeled\",\"user\":%" PRIu64 ",\"kernel\":null}",
                m->syscalls);
    else
        fputs("null", f);
    fputs("},\n  \"derived\":[", f);
    json_metrics(f, m, "modeled");
    fputs(m->n_metrics ? "\n  ],\n  \"threads\":[" : "],\n  \"threads\":[", f);
    for (i = 0; i < o->n_thr; i++) {
        fprintf(f, "%s{\"thread\":%u,\"core\":", i ? ",\n    " : "\n    ", t[i]->serial);
        if (t[i]->core >= 0)
            fprintf(f, "%d", t[i]->core);
        else
            fputs("null", f);
        fputs(",\"source\":\"modeled\",\"counts\":", f);
        json_kinds(f, r, &t[i]->k);
        fputc('}', f);
    }
    fputs(o->n_thr ? "\n  ],\n  \"regions\":[" : "],\n  \"regions\":[", f);
    for (i = 0; i < o->n_reg; i++) {
        const struct vpmu_region *g = &o->reg[i];
        fputs(i ? ",\n    {" : "\n    {", f);
        json_key(f, "name");
        hpm_json_string(f, g->name);
        fprintf(f, ",\"thread\":%u,\"entries\":", g->thread);
        if (g->have_entries)
            fprintf(f, "%" PRIu64, g->entries);
        else
            fputs("null", f);
        fputs(",\"source\":\"modeled\",\"counts\":", f);
        json_kinds(f, r, &g->k);
        fputc('}', f);
    }
    fputs(o->n_reg ? "\n  ],\n  \"upc\":[" : "],\n  \"upc\":[", f);
    for (i = 0; i < o->n_upc; i++)
        fprintf(f,
                "%s{\"unit\":%u,\"counters\":%" PRIu64 ",\"lost_carries\":%" PRIu64
                ",\"parity_errors\":%" PRIu64 "}",
                i ? "," : "", o->upc[i].upc, o->upc[i].counters, o->upc[i].lost_carries,
                o->upc[i].parity_errors);
    if (m->procs_shown)
        json_procs(f, r);
    fputc(']', f);
    if (r->rank)
        json_rank(f, r->rank);
    if (r->mpi)
        json_mpi(f, m);
    fputs("\n}\n", f);
}

/* ------------------------------------------------------------ CSV */

void count_csv_field(FILE *f, const char *s)
{
    const char *p;
    if (!s)
        return;
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (p = s; *p; p++) {
        if (*p == '"')
            fputc('"', f);
        fputc(*p, f);
    }
    fputc('"', f);
}

/* section,name,region,thread,core,code,value,source: every row has all eight. */
struct csv_row {
    const char *section, *name, *region;
    long long thread, core, code; /* -1 = empty */
    const char *value;
    const char *source;
};

static void csv_row(FILE *f, const struct csv_row *x)
{
    count_csv_field(f, x->section);
    fputc(',', f);
    count_csv_field(f, x->name);
    fputc(',', f);
    count_csv_field(f, x->region);
    if (x->thread >= 0)
        fprintf(f, ",%lld", x->thread);
    else
        fputc(',', f);
    if (x->core >= 0)
        fprintf(f, ",%lld", x->core);
    else
        fputc(',', f);
    if (x->code >= 0)
        fprintf(f, ",%lld", x->code);
    else
        fputc(',', f);
    fputc(',', f);
    count_csv_field(f, x->value);
    fputc(',', f);
    count_csv_field(f, x->source);
    fputc('\n', f);
}

static void csv_rusage(FILE *f, const struct count_report *r)
{
    static const char *const names[] = {"user_time_s",       "system_time_s",
                                        "minor_faults",      "major_faults",
                                        "voluntary_context_switches",
                                        "involuntary_context_switches"};
    char num[64];
    int i;
    for (i = 0; i < 6; i++) {
        struct csv_row x = {"host", names[i], NULL, -1, -1, -1, num, "measured"};
        switch (i) {
        case 0: snprintf(num, sizeof num, "%.6f", tv_seconds(r->ru.ru_utime)); break;
        case 1: snprintf(num, sizeof num, "%.6f", tv_seconds(r->ru.ru_stime)); break;
        case 2: snprintf(num, sizeof num, "%ld", r->ru.ru_minflt); break;
        case 3: snprintf(num, sizeof num, "%ld", r->ru.ru_majflt); break;
        case 4: snprintf(num, sizeof num, "%ld", r->ru.ru_nvcsw); break;
        default: snprintf(num, sizeof num, "%ld", r->ru.ru_nivcsw); break;
        }
        csv_row(f, &x);
    }
}

static void csv_info(FILE *f, const char *name, const char *value)
{
    struct csv_row x = {"info", name, NULL, -1, -1, -1, value, NULL};
    csv_row(f, &x);
}

static void csv_kinds(FILE *f, const struct count_report *r, const char *section,
                      const char *region, long long thread, long long core,
                      const struct vpmu_kind_values *k)
{
    unsigned order[HPM_K_COUNT], n = kind_order(r, k->have, order), i;
    char num[32];
    for (i = 0; i < n; i++) {
        struct csv_row x = {section, hpm_catalog_kind(order[i])->name, region, thread, core, -1,
                            num, "modeled"};
        snprintf(num, sizeof num, "%" PRIu64, k->v[order[i]]);
        csv_row(f, &x);
    }
}

/* section "process": the pid in the region column, then the process's
 * facts and its value of every row */
static void csv_procs(FILE *f, const struct count_report *r)
{
    unsigned i, j;
    char pid[32], num[64];
    for (i = 0; i < r->n_procs; i++) {
        const struct count_proc *p = &r->procs[i];
        struct csv_row x = {"process", "ppid", pid, -1, -1, -1, num, NULL};
        snprintf(pid, sizeof pid, "%" PRIu64, p->pid);
        if (p->ppid)
            snprintf(num, sizeof num, "%" PRIu64, p->ppid);
        else
            num[0] = 0;
        csv_row(f, &x);
        for (j = 0; j < p->n_commands; j++) {
            x.name = "command";
            x.value = p->commands[j];
            csv_row(f, &x);
        }
        x.name = "exit";
        x.value = num;
        proc_exit_text(p, num, sizeof num);
        csv_row(f, &x);
        x.source = "modeled";
        for (j = 0; j < r->n_rows; j++) {
            x.name = r->rows[j].name;
            snprintf(num, sizeof num, "%" PRIu64, row_value_in(&p->out, &r->rows[j]));
            csv_row(f, &x);
        }
    }
}

/* section "mpi": the statistic in the region column; "mpi_missing": the
 * rank as the value, the reason in the region column; "rank": the rank in
 * the thread column */
static void csv_mpi(FILE *f, const struct count_report_model *m)
{
    const struct count_report *r = m->r;
    const struct mpi_job *j = r->mpi;
    unsigned i, k, s;
    char num[64];
    {
        struct csv_row x = {"mpi", "size", NULL, -1, -1, -1, num, NULL};
        snprintf(num, sizeof num, "%u", j->size);
        csv_row(f, &x);
        x.name = "ranks_counted";
        snprintf(num, sizeof num, "%u", j->counted);
        csv_row(f, &x);
    }
    for (k = 0; k < j->size; k++) {
        struct csv_row x = {"mpi_missing", "rank", mpi_job_missing_reason(j, k), -1, -1, -1,
                            num, NULL};
        if (!x.region)
            continue;
        snprintf(num, sizeof num, "%u", k);
        csv_row(f, &x);
    }
    for (i = 0; i < r->n_rows; i++) {
        static const char *const stat[] = {"sum", "min", "min_rank", "avg",
                                           "max", "max_rank", "imbalance"};
        const struct count_report_mpi_stat *st = &m->mpi[i];
        for (s = 0; s < 7; s++) {
            struct csv_row x = {"mpi", r->rows[i].name, stat[s], -1, -1, -1, num, "modeled"};
            switch (s) {
            case 0: snprintf(num, sizeof num, "%" PRIu64, st->sum); break;
            case 1: snprintf(num, sizeof num, "%" PRIu64, st->min); break;
            case 2: snprintf(num, sizeof num, "%u", st->min_rank); break;
            case 3: snprintf(num, sizeof num, "%.9g", st->avg); break;
            case 4: snprintf(num, sizeof num, "%" PRIu64, st->max); break;
            case 5: snprintf(num, sizeof num, "%u", st->max_rank); break;
            default:
                if (st->balanced_defined)
                    snprintf(num, sizeof num, "%.9g", st->imbalance);
                else
                    num[0] = 0;
                break;
            }
            csv_row(f, &x);
        }
    }
    if (!j->per_rank)
        return;
    for (k = 0; k < j->size; k++) {
        const struct mpi_rank_result *x0 = j->by_rank[k];
        struct csv_row x = {"rank", "host", NULL, k, -1, -1, NULL, NULL};
        if (!x0)
            continue;
        x.value = x0->host;
        csv_row(f, &x);
        x.name = "exit";
        x.value = num;
        rank_exit_text(x0, num, sizeof num);
        csv_row(f, &x);
        x.source = "modeled";
        for (i = 0; i < r->n_rows; i++) {
            uint64_t v;
            if (rank_value(j, k, &r->rows[i], &v) != 0)
                continue;
            x.name = r->rows[i].name;
            snprintf(num, sizeof num, "%" PRIu64, v);
            csv_row(f, &x);
        }
    }
}

/* The program's end and the report's notes in CSV, for every source. */
static void csv_exit_notes(FILE *f, const struct count_report *r)
{
    char num[32];
    unsigned i;
    if (r->exit_signal > 0) {
        snprintf(num, sizeof num, "%d", r->exit_signal);
        csv_info(f, "exit_signal", num);
    } else if (r->exit_signal < 0) {
        csv_info(f, "exit_signal", "");
    } else {
        snprintf(num, sizeof num, "%d", r->exit_status);
        csv_info(f, "exit_status", num);
    }
    snprintf(num, sizeof num, "%d", r->exit_code);
    csv_info(f, "hpm_exit_code", num);
    for (i = 0; i < r->n_notes; i++) {
        struct csv_row x = {"note", "", NULL, -1, -1, -1, r->notes[i], NULL};
        csv_row(f, &x);
    }
}

static void write_csv(FILE *f, const struct count_report_model *m)
{
    const struct count_report *r = m->r;
    const struct vpmu_output *o = r->out;
    const struct vpmu_thread *const *t = m->threads;
    unsigned i, j;
    char num[64];

    fputs("section,name,region,thread,core,code,value,source\n", f);
    csv_info(f, "program", m->program);
    csv_info(f, "command", o->command ? o->command : "");
    csv_info(f, "machine", o->machine);
    snprintf(num, sizeof num, "%u", o->cores);
    csv_info(f, "cores", num);
    snprintf(num, sizeof num, "%" PRIu64, o->frequency_hz);
    csv_info(f, "frequency_hz", num);
    csv_info(f, "machine_file", r->machine_source ? r->machine_source : "");
    csv_info(f, "source", "modeled");
    csv_info(f, "pmu", "virtual");
    csv_info(f, "host_pmu", r->hw_pmu ? "present" : "absent");
    csv_info(f, "host_pmu_probe", r->pmu ? r->pmu : "");
    csv_info(f, "level", o->level);
    csv_info(f, "models", o->models);
    snprintf(num, sizeof num, "%u", o->upcs);
    csv_info(f, "upcs", num);
    snprintf(num, sizeof num, "%u", o->threads);
    csv_info(f, "threads", num);
    csv_exit_notes(f, r);
    for (i = 0; i < r->n_rows; i++) {
        const struct count_row *row = &r->rows[i];
        struct csv_row x = {"event", row->name, NULL, -1, -1, -1, num,
                            row_source(m->events[i].kind)};
        snprintf(num, sizeof num, "%" PRIu64, m->events[i].total);
        csv_row(f, &x);
        for (j = 0; j < row->n_codes; j++) {
            unsigned kk;
            int core;
            hpm_catalog_spec_decode((unsigned)row->codes[j], &kk, &core, NULL);
            x.core = core;
            x.code = row->codes[j];
            snprintf(num, sizeof num, "%" PRIu64, o->count[row->codes[j]]);
            csv_row(f, &x);
        }
    }
    if (r->have_rusage)
        csv_rusage(f, r);
    if (m->have_syscalls) {
        struct csv_row x = {"host", "SYSCALLS", NULL, -1, -1, -1, num, "modeled"};
        snprintf(num, sizeof num, "%" PRIu64, m->syscalls);
        csv_row(f, &x);
    }
    for (i = 0; i < m->n_metrics; i++) {
        const struct count_report_metric *d = &m->metrics[i];
        struct csv_row x = {"derived", d->metric->key, NULL, -1, -1, -1, num, "modeled"};
        if (d->defined)
            snprintf(num, sizeof num, "%.9g", d->value);
        else
            num[0] = 0; /* would divide by zero */
        csv_row(f, &x);
    }
    for (i = 0; i < o->n_thr; i++)
        csv_kinds(f, r, "thread", NULL, t[i]->serial, t[i]->core, &t[i]->k);
    for (i = 0; i < o->n_reg; i++) {
        const struct vpmu_region *g = &o->reg[i];
        if (g->have_entries) {
            struct csv_row x = {"region", "entries", g->name, g->thread, -1, -1, num, "modeled"};
            snprintf(num, sizeof num, "%" PRIu64, g->entries);
            csv_row(f, &x);
        }
        csv_kinds(f, r, "region", g->name, g->thread, -1, &g->k);
    }
    for (i = 0; i < o->n_upc; i++) {
        static const char *const names[] = {"counters", "lost_carries", "parity_errors"};
        uint64_t v[3] = {o->upc[i].counters, o->upc[i].lost_carries, o->upc[i].parity_errors};
        for (j = 0; j < 3; j++) {
            char name[48];
            struct csv_row x = {"upc", name, NULL, -1, -1, -1, num, "modeled"};
            snprintf(name, sizeof name, "upc%u_%s", o->upc[i].upc, names[j]);
            snprintf(num, sizeof num, "%" PRIu64, v[j]);
            csv_row(f, &x);
        }
    }
    if (m->procs_shown)
        csv_procs(f, r);
    if (r->mpi)
        csv_mpi(f, m);
}

/* ------------------------------------------------------------ perf_event reports
 * The same report for counts perf_event measured: the program, its exit,
 * notes, the events (with the perf_event name each was counted as), the
 * host's rusage of the program (no simulator in between) and the derived
 * metrics whose kinds were measured. Everything is labelled "measured". */

static const char *inherit_text(const struct count_report *r)
{
    return r->inherited ? "the program and the processes it started (inherited counters)"
                        : "the program alone (its own threads; --no-children)";
}

static void write_text_measured(FILE *f, const struct count_report_model *m)
{
    const struct count_report *r = m->r;
    unsigned i;
    char buf[128];
    fprintf(f, "hpm count: %s", m->program);
    fprintf(f, "\n source    perf_event (measured): %s\n",
            r->perf_source ? r->perf_source : "Linux perf_event");
    fprintf(f, " counted   %s; %s\n", inherit_text(r),
            r->kernel ? "user and kernel mode" : "user mode only");
    if (r->pmu)
        fprintf(f, " host PMU  %s\n", r->pmu);
    fprintf(f, " exit      %s\n", m->exit);
    for (i = 0; i < r->n_notes; i++)
        fprintf(f, " note      %s\n", r->notes[i]);
    fprintf(f, "\n %-*s %*s %-8s %-28s %s\n", NAME_W, "Counter", NUM_W, "count", "units",
            "perf_event", "description");
    for (i = 0; i < r->n_measured; i++) {
        const struct count_measured *e = &r->measured[i];
        fprintf(f, " %-*s %*" PRIu64 " %-8s %-28s %s\n", NAME_W, e->name, NUM_W, e->value,
                e->units, e->perf_name, e->description);
    }
    fprintf(f, "\n host (measured, kernel): the program's processes as wait4() reports them\n");
    fprintf(f, " %-*s %*s %*s\n", NAME_W, "", NUM_W, "user", NUM_W, "kernel");
    if (r->have_rusage) {
        text_rusage(f, r);
    }
    if (m->n_metrics) {
        fprintf(f, "\n derived metrics (of the measured counts)\n");
        for (i = 0; i < m->n_metrics; i++) {
            const struct count_report_metric *d = &m->metrics[i];
            if (d->defined)
                snprintf(buf, sizeof buf, "%.6g", d->value);
            else
                snprintf(buf, sizeof buf, "-");
            fprintf(f, " %-*s %*s  %s\n", NAME_W, d->metric->label, NUM_W, buf,
                    d->metric->shown ? d->metric->shown : d->metric->formula);
        }
    }
}

static void write_json_measured(FILE *f, const struct count_report_model *m)
{
    const struct count_report *r = m->r;
    unsigned i;
    fputs("{\n  \"source\":\"measured\",\n  \"pmu\":\"perf\",\n  \"program\":", f);
    if (r->argv) {
        fputc('[', f);
        for (i = 0; i < (unsigned)r->argc; i++) {
            if (i)
                fputc(',', f);
            hpm_json_string(f, r->argv[i]);
        }
        fputc(']', f);
    } else {
        fputs("null", f);
    }
    fputs(",\n  \"perf\":{\"description\":", f);
    hpm_json_string(f, r->perf_source ? r->perf_source : "Linux perf_event");
    fprintf(f, ",\"inherit\":%s,\"kernel\":%s},\n  \"host_pmu\":{\"present\":%s,\"probe\":",
            r->inherited ? "true" : "false", r->kernel ? "true" : "false",
            r->hw_pmu ? "true" : "false");
    if (r->pmu)
        hpm_json_string(f, r->pmu);
    else
        fputs("null", f);
    fputs("},\n  \"exit\":", f);
    json_exit(f, r);
    fputs(",\n  \"notes\":[", f);
    for (i = 0; i < r->n_notes; i++) {
        if (i)
            fputc(',', f);
        hpm_json_string(f, r->notes[i]);
    }
    fputs("],\n  \"events\":[", f);
    for (i = 0; i < r->n_measured; i++) {
        const struct count_measured *e = &r->measured[i];
        fputs(i ? ",\n    {" : "\n    {", f);
        json_key(f, "name");
        hpm_json_string(f, e->name);
        fputs(",\"kind\":", f);
        if (e->kind >= 0)
            hpm_json_string(f, hpm_catalog_kind((unsigned)e->kind)->name);
        else
            fputs("null", f);
        fputs(",\"perf_event\":", f);
        hpm_json_string(f, e->perf_name);
        fputs(",\"units\":", f);
        hpm_json_string(f, e->units);
        fprintf(f, ",\"source\":\"measured\",\"count\":%" PRIu64 ",\"description\":", e->value);
        hpm_json_string(f, e->description);
        fputc('}', f);
    }
    fputs("\n  ],\n  \"host\":{\"source\":\"measured\",\"scope\":", f);
    hpm_json_string(f, "the program's processes as wait4() reports them");
    if (r->have_rusage)
        json_rusage(f, r);
    else
        fputs(",\"measured\":false", f);
    fputs("},\n  \"derived\":[", f);
    json_metrics(f, m, "measured");
    fputs(m->n_metrics ? "\n  ]\n}\n" : "]\n}\n", f);
}

static void write_csv_measured(FILE *f, const struct count_report_model *m)
{
    const struct count_report *r = m->r;
    unsigned i;
    char num[64];
    fputs("section,name,region,thread,core,code,value,source\n", f);
    csv_info(f, "program", m->program);
    csv_info(f, "source", "measured");
    csv_info(f, "pmu", "perf");
    csv_info(f, "perf", r->perf_source ? r->perf_source : "Linux perf_event");
    csv_info(f, "inherit", r->inherited ? "yes" : "no");
    csv_info(f, "kernel", r->kernel ? "yes" : "no");
    csv_info(f, "host_pmu", r->hw_pmu ? "present" : "absent");
    csv_info(f, "host_pmu_probe", r->pmu ? r->pmu : "");
    csv_exit_notes(f, r);
    for (i = 0; i < r->n_measured; i++) {
        struct csv_row x = {"event", r->measured[i].name, NULL, -1, -1, -1, num, "measured"};
        snprintf(num, sizeof num, "%" PRIu64, r->measured[i].value);
        csv_row(f, &x);
    }
    if (r->have_rusage)
        csv_rusage(f, r);
    for (i = 0; i < m->n_metrics; i++) {
        const struct count_report_metric *d = &m->metrics[i];
        struct csv_row x = {"derived", d->metric->key, NULL, -1, -1, -1, num, "measured"};
        if (d->defined)
            snprintf(num, sizeof num, "%.9g", d->value);
        else
            num[0] = 0;
        csv_row(f, &x);
    }
}

/* ------------------------------------------------------------ the writers */

static int write_with(FILE *f, const struct count_report *r,
                      void (*writer)(FILE *, const struct count_report_model *))
{
    struct count_report_model m;
    if (count_report_model_build(r, &m) != 0)
        return -1;
    writer(f, &m);
    count_report_model_free(&m);
    return ferror(f) ? -1 : 0;
}

int count_report_text(FILE *f, const struct count_report *r)
{
    return write_with(f, r, r->measured ? write_text_measured : write_text);
}

int count_report_json(FILE *f, const struct count_report *r)
{
    return write_with(f, r, r->measured ? write_json_measured : write_json);
}

int count_report_csv(FILE *f, const struct count_report *r)
{
    return write_with(f, r, r->measured ? write_csv_measured : write_csv);
}
