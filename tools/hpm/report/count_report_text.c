
/* ------------------------------------------------------------ text */

/* SPDX-License-Identifier: BSD-3-Clause */
/* count_report_text.c - the text writer of hpm count's report
 * (count_report_writer.h): a libHPM-style table (seed 001, Fig. 2) of
 * modeled or measured counts. */
#define _POSIX_C_SOURCE 200809L
#include "report/count_report_writer.h"

#include "live.h"
#include "report/metrics.h"
#include "report/mpi_combined.h"
#include "report/mpi_job.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NAME_W 30
#define NUM_W 20

/* The host figures (wait4's rusage), for both sources. */
static void text_rusage(FILE *f, const struct count_report *r)
{
    fprintf(f, " %-*s %*.3f %*.3f\n", NAME_W, "CPU time (s)", NUM_W, report_tv_seconds(r->ru.ru_utime),
            NUM_W, report_tv_seconds(r->ru.ru_stime));
    fprintf(f, " %-*s %*s %*ld\n", NAME_W, "page faults, minor", NUM_W, "-", NUM_W,
            r->ru.ru_minflt);
    fprintf(f, " %-*s %*s %*ld\n", NAME_W, "page faults, major", NUM_W, "-", NUM_W,
            r->ru.ru_majflt);
    fprintf(f, " %-*s %*s %*ld\n", NAME_W, "context switches, voluntary", NUM_W, "-", NUM_W,
            r->ru.ru_nvcsw);
    fprintf(f, " %-*s %*s %*ld\n", NAME_W, "context switches, involuntary", NUM_W, "-", NUM_W,
            r->ru.ru_nivcsw);
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
    nk = report_kind_order(r, present, order);
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
                tot = report_add_sat(tot, cols[c].entries);
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
                    tot = report_add_sat(tot, cols[c].k->v[k]);
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
            fputs("\nregion ", f);
            hpm_live_fputs_printable(o->reg[i].name, f);
            fputs(" (modeled)\n", f);
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
        report_proc_exit_text(p, buf, sizeof buf);
        fprintf(f, " %10" PRIu64 " ", p->pid);
        if (p->ppid)
            fprintf(f, "%10" PRIu64, p->ppid);
        else
            fprintf(f, "%10s", "-");
        fprintf(f, "  %-16s", buf);
        for (j = 0; j < nr; j++)
            fprintf(f, " %20" PRIu64, report_row_value_in(&p->out, &r->rows[j]));
        fputs(" ", f);
        for (j = 0; j < p->n_commands; j++) {
            fputs(j ? " -> " : " ", f);
            hpm_live_fputs_printable(p->commands[j], f);
        }
        fputc('\n', f);
    }
}

/* A table of statistics over the ranks: its header, then one row per
 * statistic; unit 0 prints counts, another the values divided by unit
 * (seconds from cycles or nanoseconds). */
static void text_stat_header(FILE *f, const char *what)
{
    fprintf(f, " %-*s %*s %*s %*s %*s %8s %10s\n", NAME_W, what, NUM_W, "sum", 16, "min", 18,
            "avg", 16, "max", "max rank", "imbalance");
}

static void text_stat_row(FILE *f, const char *name, const struct count_report_mpi_stat *s,
                          double unit)
{
    char buf[64];
    if (s->balanced_defined)
        snprintf(buf, sizeof buf, "%.4f", s->imbalance);
    else
        snprintf(buf, sizeof buf, "-");
    if (unit > 0)
        fprintf(f, " %-*s %*.6f %16.6f %18.6f %16.6f %8u %10s\n", NAME_W, name, NUM_W,
                (double)s->sum / unit, (double)s->min / unit, s->avg / unit,
                (double)s->max / unit, s->max_rank, buf);
    else {
        char avg[48];
        count_report_avg_text(s, 2, avg, sizeof avg); /* exact, whatever the counts' size */
        fprintf(f, " %-*s %*" PRIu64 " %16" PRIu64 " %18s %16" PRIu64 " %8u %10s\n", NAME_W,
                name, NUM_W, s->sum, s->min, avg, s->max, s->max_rank, buf);
    }
}

/* A job combined at MPI_Finalize: the MPI_Init to MPI_Finalize window, the
 * nodes, the MPI profile, the MPI_Pcontrol regions, the matrix. */
static void text_combined(FILE *f, const struct count_report_model *m)
{
    const struct count_report *r = m->r;
    const struct mpi_combined *c = r->mpi->combined;
    double hz = r->out->frequency_hz ? (double)r->out->frequency_hz : 1;
    struct count_report_mpi_stat st;
    unsigned i, g, k, q;
    fprintf(f, "\n MPI_Init to MPI_Finalize (the same ranks; the table above counts each "
               "rank's process from its start to MPI_Finalize)\n");
    text_stat_header(f, "Counter");
    for (i = 0; i < r->n_rows; i++)
        text_stat_row(f, r->rows[i].name, &m->mpi_window[i], 0);
    fprintf(f, "\n MPI profile over the ranks: calls, bytes, time in each routine (modeled: "
               "the calling thread's CYCLES at %s; host: measured, the simulation's own time "
               "included)\n", m->frequency);
    text_stat_header(f, "Routine");
    for (i = 0; i < c->nroutines; i++) {
        static const char *const what[MPI_M_COUNT] = {"calls", "bytes", "s model", "s host"};
        for (k = 0; k < MPI_M_COUNT; k++) {
            char name[96];
            snprintf(name, sizeof name, "%s %s", c->routines[i].name, what[k]);
            report_mpi_stat(&c->routines[i].m[k], c->size, &st);
            text_stat_row(f, name, &st, k == MPI_M_CYCLES ? hz : k == MPI_M_NS ? 1e9 : 0);
        }
    }
    for (g = 0; g < c->nregions; g++) {
        const struct mpi_region *rg = &c->regions[g];
        fprintf(f, "\n MPI_Pcontrol region \"%s\": entered %" PRIu64 " times over the ranks "
                   "(the calling thread's counts inside it)\n", rg->name, rg->entries.sum);
        text_stat_header(f, "Counter");
        for (i = 0; i < r->n_rows; i++) {
            int row = report_combined_row(c, &r->rows[i]);
            if (row < 0)
                continue;
            report_mpi_stat(&rg->rows[row], c->size, &st);
            text_stat_row(f, r->rows[i].name, &st, 0);
        }
    }
    if (c->regions_dropped)
        fprintf(f, " (%u MPI_Pcontrol regions beyond the first 16 were not kept)\n",
                c->regions_dropped);
    if (!c->matrix[0] || c->size > 16) {
        fprintf(f, "\n communication matrix: %s\n",
                c->matrix[0] ? "in the JSON report (--json) and hpm plot --matrix (more than 16 "
                               "ranks)"
                             : "not gathered (more than 1024 ranks)");
        return;
    }
    for (q = 0; q < 2; q++) {
        fprintf(f, "\n communication matrix, %s sent (row: sender, column: receiver)\n %8s",
                q ? "bytes" : "messages", "");
        for (k = 0; k < c->size; k++)
            fprintf(f, " %12u", k);
        fputc('\n', f);
        for (i = 0; i < c->size; i++) {
            fprintf(f, " rank %-3u", i);
            for (k = 0; k < c->size; k++)
                fprintf(f, " %12" PRIu64, c->matrix[q][(size_t)i * c->size + k]);
            fputc('\n', f);
        }
    }
}

/* A job combined at MPI_Finalize with per-rank tables: each rank's MPI
 * profile, in blocks of ranks. */
static void text_rank_profile(FILE *f, const struct count_report_model *m)
{
    static const char *const what[MPI_M_COUNT] = {"calls", "bytes", "s model", "s host"};
    const struct mpi_combined *c = m->r->mpi->combined;
    double hz = m->r->out->frequency_hz ? (double)m->r->out->frequency_hz : 1;
    unsigned b, k, i, q;
    for (b = 0; b < c->size; b += COLS_PER_BLOCK) {
        unsigned e = b + COLS_PER_BLOCK < c->size ? b + COLS_PER_BLOCK : c->size;
        char buf[96];
        fprintf(f, "\n %-*s", NAME_W, "MPI profile");
        for (k = b; k < e; k++) {
            snprintf(buf, sizeof buf, "rank %u", k);
            fprintf(f, " %*s", NUM_W, buf);
        }
        fputc('\n', f);
        for (i = 0; i < c->nroutines; i++)
            for (q = 0; q < MPI_M_COUNT; q++) {
                snprintf(buf, sizeof buf, "%s %s", c->routines[i].name, what[q]);
                fprintf(f, " %-*s", NAME_W, buf);
                for (k = b; k < e; k++) {
                    uint64_t v = c->rank_prof[((size_t)k * c->nroutines + i) * MPI_M_COUNT + q];
                    if (q == MPI_M_CYCLES || q == MPI_M_NS)
                        fprintf(f, " %*.6f", NUM_W, (double)v / (q == MPI_M_NS ? 1e9 : hz));
                    else
                        fprintf(f, " %*" PRIu64, NUM_W, v);
                }
                fputc('\n', f);
            }
    }
}

/* A job with ranks per node and per-rank tables: each node's counts, the
 * sum of its ranks'. */
static void text_nodes(FILE *f, const struct count_report_model *m)
{
    const struct count_report *r = m->r;
    const struct mpi_job *j = r->mpi;
    unsigned rpn = j->combined->ranks_per_node, nodes = (j->size + rpn - 1) / rpn, n, i;
    fprintf(f, "\n per node (%u ranks a node; node n holds ranks %u*n to %u*n+%u)\n %-*s", rpn,
            rpn, rpn, rpn - 1, NAME_W, "Counter");
    for (n = 0; n < nodes; n++) {
        char buf[32];
        snprintf(buf, sizeof buf, "node %u", n);
        fprintf(f, " %*s", NUM_W, buf);
    }
    fputc('\n', f);
    for (i = 0; i < r->n_rows; i++) {
        fprintf(f, " %-*s", NAME_W, r->rows[i].name);
        for (n = 0; n < nodes; n++)
            fprintf(f, " %*" PRIu64, NUM_W, report_node_value(j, n, &r->rows[i]));
        fputc('\n', f);
    }
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
    if (j->combined)
        fprintf(f, " combined  over MPI at MPI_Finalize: each rank from its start to "
                   "MPI_Finalize (its whole process: its result file, hpm merge); at rank 0 in "
                   "%.6f s (host, measured) and %" PRIu64 " bytes\n",
                (double)j->combined->combine_ns / 1e9, j->combined->combine_bytes);
    for (k = 0; k < j->size; k++)
        if (mpi_job_missing_reason(j, k))
            fprintf(f, " missing   rank %u: %s\n", k, mpi_job_missing_reason(j, k));
    text_stat_header(f, "Counter");
    for (i = 0; i < r->n_rows; i++)
        text_stat_row(f, r->rows[i].name, &m->mpi[i], 0);
    if (j->combined)
        text_combined(f, m);
    if (!j->per_rank)
        return;
    fprintf(f, "\n per rank\n");
    for (k = 0; k < j->size; k++) {
        struct report_rank_info x;
        if (report_rank_info(j, k, &x) != 0)
            continue;
        fprintf(f, " rank %-6u host %s, exit %s%s\n", k, x.host[0] ? x.host : "?", x.exit,
                x.have_counts ? "" : ", no counts");
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
                if (report_rank_value(j, k, &r->rows[i], &v) == 0)
                    fprintf(f, " %*" PRIu64, NUM_W, v);
                else
                    fprintf(f, " %*s", NUM_W, "-");
            }
            fputc('\n', f);
        }
    }
    if (j->combined && j->combined->rank_prof)
        text_rank_profile(f, m);
    if (j->combined && j->combined->ranks_per_node > 1 && j->combined->rank_codes)
        text_nodes(f, m);
}

static const char *inherit_text(const struct count_report *r)
{
    return r->inherited ? "the program and the processes it started (inherited counters)"
                        : "the program alone (its own threads; --no-children)";
}

static void text_begin_measured(FILE *f, const struct count_report_model *m)
{
    const struct count_report *r = m->r;
    fprintf(f, "\n source    perf_event (measured): %s\n",
            r->perf_source ? r->perf_source : "Linux perf_event");
    fprintf(f, " counted   %s; %s\n", inherit_text(r),
            r->kernel ? "user and kernel mode" : "user mode only");
    if (r->pmu)
        fprintf(f, " host PMU  %s\n", r->pmu);
    fprintf(f, " exit      %s\n", m->exit);
}

static void text_begin_modeled(FILE *f, const struct count_report_model *m)
{
    const struct count_report *r = m->r;
    const struct vpmu_output *o = r->out;
    fprintf(f, "\n machine   %s: %u core%s, %s", o->machine, o->cores, o->cores == 1 ? "" : "s",
            m->frequency);
    if (r->machine_source)
        fprintf(f, " (%s)", r->machine_source);
    fprintf(f, "\n source    virtual PMU (modeled): level %s, models %s, %u UPC unit%s\n",
            o->level[0] ? o->level : "?", o->models[0] ? o->models : "?", o->upcs,
            o->upcs == 1 ? "" : "s");
    if (r->pmu)
        fprintf(f, " host PMU  %s\n", r->pmu);
    fprintf(f, " exit      %s\n", m->exit);
    if (r->mpi && r->mpi->combined)
        fprintf(f, " threads   (each rank's result has its own)\n");
    else
        fprintf(f, " threads   %u\n", o->threads);
}

static void text_begin(FILE *f, const struct count_report_model *m)
{
    /* the program's name and arguments, and notes that name the
     * commands of its processes, as a terminal can show them */
    fputs("hpm count: ", f);
    hpm_live_fputs_printable(m->program, f);
    if (m->r->measured)
        text_begin_measured(f, m);
    else
        text_begin_modeled(f, m);
    for (unsigned i = 0; i < m->r->n_notes; i++) {
        fputs(" note      ", f);
        hpm_live_fputs_printable(m->r->notes[i], f);
        fputc('\n', f);
    }
}

static void text_events_head(FILE *f, const struct count_report_model *m)
{
    const struct count_report *r = m->r;
    char buf[32];
    if (r->measured) {
        fprintf(f, "\n %-*s %*s %-8s %-28s %s\n", NAME_W, "Counter", NUM_W, "count", "units",
                "perf_event", "description");
        return;
    }
    fprintf(f, "\n %-*s %*s %*s %8s", NAME_W, "Counter", NUM_W, "count", NUM_W, "user",
            "kernel");
    if (r->per_core)
        for (unsigned c = 0; c < count_report_cores(r); c++) {
            snprintf(buf, sizeof buf, "PU%u", c);
            fprintf(f, " %16s", buf);
        }
    fprintf(f, "  description\n");
}

static void text_host(FILE *f, const struct count_report_model *m)
{
    const struct count_report *r = m->r;
    if (r->measured)
        fprintf(f, "\n host (measured, kernel): the program's processes as wait4() reports "
                   "them\n");
    else
        fprintf(f, "\n host (measured, kernel): the simulator process as wait4() reports it; "
                   "includes Valgrind's own work\n");
    fprintf(f, " %-*s %*s %*s\n", NAME_W, "", NUM_W, "user", NUM_W, "kernel");
    if (r->have_rusage)
        text_rusage(f, r);
    else if (r->measured)
        return; /* perf_event's counters only: no rusage, no modeled system calls */
    else if (r->mpi)
        fprintf(f, " (not summed over an MPI job: each rank's result file has its own)\n");
    else
        fprintf(f, " (not measured: report of an existing output file)\n");
    if (m->have_syscalls)
        fprintf(f, " %-*s %*" PRIu64 " %*s  (modeled: the program's system calls)\n", NAME_W,
                "SYSCALLS", NUM_W, m->syscalls, NUM_W, "-");
}

static void text_part(FILE *f, const struct count_report_model *m, enum count_report_part p)
{
    switch (p) {
    case COUNT_PART_EVENTS:
        text_events_head(f, m);
        break;
    case COUNT_PART_HOST:
        text_host(f, m);
        break;
    case COUNT_PART_METRICS:
        if (m->n_metrics)
            fprintf(f, "\n derived metrics (of the %s counts)\n", m->source);
        break;
    }
}

static void text_event(FILE *f, const struct count_report_model *m, unsigned i)
{
    const struct count_report *r = m->r;
    if (r->measured) {
        const struct count_measured *e = &r->measured[i];
        fprintf(f, " %-*s %*" PRIu64 " %-8s %-28s %s\n", NAME_W, e->name, NUM_W, e->value,
                e->units, e->perf_name, e->description);
        return;
    }
    const struct count_row *row = m->events[i].row;
    uint64_t v = m->events[i].total;
    if (report_row_is_kernel(m->events[i].kind))
        fprintf(f, " %-*s %*" PRIu64 " %*s %8" PRIu64, NAME_W, row->name, NUM_W, v, NUM_W, "-",
                v);
    else
        fprintf(f, " %-*s %*" PRIu64 " %*" PRIu64 " %8s", NAME_W, row->name, NUM_W, v, NUM_W, v,
                "-");
    if (r->per_core)
        for (unsigned c = 0; c < count_report_cores(r); c++) {
            uint64_t cv;
            if (report_row_core_value(r, row, c, &cv) == 0)
                fprintf(f, " %16" PRIu64, cv);
            else
                fprintf(f, " %16s", "-");
        }
    {
        /* a counting mode's row says what its count is */
        const char *meaning =
            hpm_catalog_mode_meaning(hpm_catalog_spec_mode((unsigned)row->codes[0]));
        if (meaning)
            fprintf(f, "  %s (%s)\n", m->events[i].kind->description, meaning);
        else
            fprintf(f, "  %s\n", m->events[i].kind->description);
    }
}

static void text_metric(FILE *f, const struct count_report_model *m, unsigned i)
{
    const struct count_report_metric *d = &m->metrics[i];
    char buf[64];
    if (d->defined)
        snprintf(buf, sizeof buf, "%.6g", d->value);
    else
        snprintf(buf, sizeof buf, "-");
    fprintf(f, " %-*s %*s  %s\n", NAME_W, d->metric->label, NUM_W, buf,
            d->metric->shown ? d->metric->shown : d->metric->formula);
}

/* The modeled report's tables; a measured report has none. */
static void text_end(FILE *f, const struct count_report_model *m)
{
    const struct count_report *r = m->r;
    if (r->measured)
        return;
    if (m->procs_shown)
        text_procs(f, r);
    if (r->per_thread && r->out->n_thr)
        text_threads(f, m);
    if (r->out->n_reg)
        text_regions(f, r);
    if (r->mpi)
        text_mpi(f, m);
}

const struct count_report_writer count_report_text_writer = {
    .begin = text_begin,
    .part = text_part,
    .event = text_event,
    .metric = text_metric,
    .end = text_end,
};
