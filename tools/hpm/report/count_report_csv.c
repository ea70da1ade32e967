/* SPDX-License-Identifier: BSD-3-Clause */
/* count_report_csv.c - the CSV writer of hpm count's report
 * (count_report_writer.h), for modeled or measured counts: every row has
 * the eight columns section,name,region,thread,core,code,value,source. */
#define _POSIX_C_SOURCE 200809L
#include "report/count_report_writer.h"

#include "report/metrics.h"
#include "report/mpi_combined.h"
#include "report/mpi_job.h"

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

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
        case 0: snprintf(num, sizeof num, "%.6f", report_tv_seconds(r->ru.ru_utime)); break;
        case 1: snprintf(num, sizeof num, "%.6f", report_tv_seconds(r->ru.ru_stime)); break;
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
    unsigned order[HPM_K_COUNT], n = report_kind_order(r, k->have, order), i;
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
        report_proc_exit_text(p, num, sizeof num);
        csv_row(f, &x);
        for (j = 0; j < r->n_rows; j++) {
            x.name = r->rows[j].name;
            x.source = report_row_source(hpm_catalog_kind(r->rows[j].kind));
            snprintf(num, sizeof num, "%" PRIu64, report_row_value_in(&p->out, &r->rows[j]));
            csv_row(f, &x);
        }
    }
}

/* A statistic over the ranks as seven rows of section: the statistic
 * (after prefix) in the region column; unit 0 writes counts, another the
 * values divided by unit (seconds). */
static void csv_stat(FILE *f, const char *section, const char *name, const char *prefix,
                     const struct count_report_mpi_stat *st, double unit, const char *source)
{
    static const char *const stat[] = {"sum", "min", "min_rank", "avg",
                                       "max", "max_rank", "imbalance"};
    char num[64], what[96];
    unsigned s;
    for (s = 0; s < 7; s++) {
        struct csv_row x = {section, name, what, -1, -1, -1, num, source};
        snprintf(what, sizeof what, "%s%s", prefix, stat[s]);
        switch (s) {
        case 0:
        case 1:
        case 4: {
            uint64_t v = s == 0 ? st->sum : s == 1 ? st->min : st->max;
            if (unit > 0)
                snprintf(num, sizeof num, "%.9g", (double)v / unit);
            else
                snprintf(num, sizeof num, "%" PRIu64, v);
            break;
        }
        case 2: snprintf(num, sizeof num, "%u", st->min_rank); break;
        case 3:
            if (unit > 0)
                snprintf(num, sizeof num, "%.9g", st->avg / unit);
            else /* exact, whatever the counts' size */
                count_report_avg_text(st, -1, num, sizeof num);
            break;
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

/* A job combined at MPI_Finalize: the combine's cost at rank 0 (section
 * "mpi"), sections "mpi_window" (MPI_Init to
 * MPI_Finalize), "mpi_profile" (the metric and the statistic in the region
 * column), "mpi_region" (region:statistic), "mpi_matrix" (messages or
 * bytes; sender in the thread column, receiver in the core column). */
static void csv_combined(FILE *f, const struct count_report_model *m)
{
    static const char *const metric[MPI_M_COUNT] = {"calls:", "bytes:", "time_modeled_s:",
                                                    "time_host_s:"};
    const struct count_report *r = m->r;
    const struct mpi_combined *c = r->mpi->combined;
    double hz = r->out->frequency_hz ? (double)r->out->frequency_hz : 1;
    struct count_report_mpi_stat st;
    char num[32], prefix[80];
    unsigned i, k, g;
    {
        struct csv_row x = {"mpi", "combine_rank0_host_s", NULL, -1, -1, -1, num, "measured"};
        snprintf(num, sizeof num, "%.9g", (double)c->combine_ns / 1e9);
        csv_row(f, &x);
        x.name = "combine_rank0_bytes";
        snprintf(num, sizeof num, "%" PRIu64, c->combine_bytes);
        csv_row(f, &x);
    }
    for (i = 0; i < r->n_rows; i++)
        csv_stat(f, "mpi_window", r->rows[i].name, "", &m->mpi_window[i], 0, "modeled");
    for (i = 0; i < c->nroutines; i++)
        for (k = 0; k < MPI_M_COUNT; k++) {
            report_mpi_stat(&c->routines[i].m[k], c->size, &st);
            csv_stat(f, "mpi_profile", c->routines[i].name, metric[k], &st,
                     k == MPI_M_CYCLES ? hz : k == MPI_M_NS ? 1e9 : 0,
                     k == MPI_M_NS ? "measured" : "modeled");
        }
    for (g = 0; g < c->nregions; g++) {
        snprintf(prefix, sizeof prefix, "%s:", c->regions[g].name);
        report_mpi_stat(&c->regions[g].entries, c->size, &st);
        csv_stat(f, "mpi_region", "entries", prefix, &st, 0, "modeled");
        for (i = 0; i < r->n_rows; i++) {
            int row = report_combined_row(c, &r->rows[i]);
            if (row < 0)
                continue;
            report_mpi_stat(&c->regions[g].rows[row], c->size, &st);
            csv_stat(f, "mpi_region", r->rows[i].name, prefix, &st, 0, "modeled");
        }
    }
    for (g = 0; c->matrix[0] && g < 2; g++)
        for (i = 0; i < c->size; i++)
            for (k = 0; k < c->size; k++) {
                struct csv_row x = {"mpi_matrix", g ? "bytes" : "messages", NULL, i, k, -1, num,
                                    "modeled"};
                snprintf(num, sizeof num, "%" PRIu64, c->matrix[g][(size_t)i * c->size + k]);
                csv_row(f, &x);
            }
}

/* A combined job's per-rank profile: section "rank_profile", the routine
 * as the name, the metric in the region column, the rank in the thread
 * column (times in seconds). */
static void csv_rank_profile(FILE *f, const struct count_report_model *m)
{
    static const char *const metric[MPI_M_COUNT] = {"calls", "bytes", "time_modeled_s",
                                                    "time_host_s"};
    const struct mpi_combined *c = m->r->mpi->combined;
    double hz = m->r->out->frequency_hz ? (double)m->r->out->frequency_hz : 1;
    char num[32];
    unsigned k, i, q;
    for (k = 0; k < c->size; k++)
        for (i = 0; i < c->nroutines; i++)
            for (q = 0; q < MPI_M_COUNT; q++) {
                uint64_t v = c->rank_prof[((size_t)k * c->nroutines + i) * MPI_M_COUNT + q];
                struct csv_row x = {"rank_profile", c->routines[i].name, metric[q], k, -1, -1,
                                    num, q == MPI_M_NS ? "measured" : "modeled"};
                if (q == MPI_M_CYCLES || q == MPI_M_NS)
                    snprintf(num, sizeof num, "%.9g", (double)v / (q == MPI_M_NS ? 1e9 : hz));
                else
                    snprintf(num, sizeof num, "%" PRIu64, v);
                csv_row(f, &x);
            }
}

/* A combined job's nodes: section "node", the node in the thread column. */
static void csv_nodes(FILE *f, const struct count_report_model *m)
{
    const struct count_report *r = m->r;
    const struct mpi_job *j = r->mpi;
    unsigned rpn = j->combined->ranks_per_node, n, i;
    char num[32];
    for (n = 0; n * rpn < j->size; n++)
        for (i = 0; i < r->n_rows; i++) {
            struct csv_row x = {"node", r->rows[i].name, NULL, n, -1, -1, num, "modeled"};
            snprintf(num, sizeof num, "%" PRIu64, report_node_value(j, n, &r->rows[i]));
            csv_row(f, &x);
        }
}

/* section "mpi": the statistic in the region column; "mpi_missing": the
 * rank as the value, the reason in the region column; "rank": the rank in
 * the thread column */
static void csv_mpi(FILE *f, const struct count_report_model *m)
{
    const struct count_report *r = m->r;
    const struct mpi_job *j = r->mpi;
    unsigned i, k;
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
    for (i = 0; i < r->n_rows; i++)
        csv_stat(f, "mpi", r->rows[i].name, "", &m->mpi[i], 0, "modeled");
    if (j->combined)
        csv_combined(f, m);
    if (!j->per_rank)
        return;
    for (k = 0; k < j->size; k++) {
        struct report_rank_info ri;
        struct csv_row x = {"rank", "host", NULL, k, -1, -1, NULL, NULL};
        if (report_rank_info(j, k, &ri) != 0)
            continue;
        x.value = ri.host;
        csv_row(f, &x);
        x.name = "exit";
        x.value = ri.exit;
        csv_row(f, &x);
        for (i = 0; i < r->n_rows; i++) {
            uint64_t v;
            if (report_rank_value(j, k, &r->rows[i], &v) != 0)
                continue;
            x.name = r->rows[i].name;
            x.source = report_row_source(hpm_catalog_kind(r->rows[i].kind));
            snprintf(num, sizeof num, "%" PRIu64, v);
            csv_row(f, &x);
        }
    }
    if (j->combined && j->combined->rank_prof)
        csv_rank_profile(f, m);
    if (j->combined && j->combined->ranks_per_node > 1 && j->combined->rank_codes)
        csv_nodes(f, m);
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

static void csv_begin_measured(FILE *f, const struct count_report *r)
{
    csv_info(f, "perf", r->perf_source ? r->perf_source : "Linux perf_event");
    csv_info(f, "inherit", r->inherited ? "yes" : "no");
    csv_info(f, "kernel", r->kernel ? "yes" : "no");
    csv_info(f, "host_pmu", r->hw_pmu ? "present" : "absent");
    csv_info(f, "host_pmu_probe", r->pmu ? r->pmu : "");
}

static void csv_begin_modeled(FILE *f, const struct count_report *r)
{
    const struct vpmu_output *o = r->out;
    char num[64];
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
}

static void csv_begin(FILE *f, const struct count_report_model *m)
{
    fputs("section,name,region,thread,core,code,value,source\n", f);
    csv_info(f, "program", m->program);
    if (m->r->measured) {
        csv_info(f, "source", "measured");
        csv_info(f, "pmu", "perf");
        csv_begin_measured(f, m->r);
    } else {
        csv_begin_modeled(f, m->r);
    }
    csv_exit_notes(f, m->r);
}

static void csv_part(FILE *f, const struct count_report_model *m, enum count_report_part p)
{
    char num[32];
    if (p != COUNT_PART_HOST)
        return; /* the events and metrics need no heading */
    if (m->r->have_rusage)
        csv_rusage(f, m->r);
    if (m->have_syscalls) {
        struct csv_row x = {"host", "SYSCALLS", NULL, -1, -1, -1, num, "modeled"};
        snprintf(num, sizeof num, "%" PRIu64, m->syscalls);
        csv_row(f, &x);
    }
}

static void csv_event(FILE *f, const struct count_report_model *m, unsigned i)
{
    const struct count_report *r = m->r;
    char num[32];
    if (r->measured) {
        struct csv_row x = {"event", r->measured[i].name, NULL, -1, -1, -1, num, "measured"};
        snprintf(num, sizeof num, "%" PRIu64, r->measured[i].value);
        csv_row(f, &x);
        return;
    }
    const struct count_row *row = m->events[i].row;
    struct csv_row x = {"event", row->name, NULL, -1, -1, -1, num,
                        report_row_source(m->events[i].kind)};
    snprintf(num, sizeof num, "%" PRIu64, m->events[i].total);
    csv_row(f, &x);
    for (unsigned j = 0; j < row->n_codes; j++) {
        unsigned kk;
        int core;
        hpm_catalog_spec_decode((unsigned)row->codes[j], &kk, &core, NULL);
        x.core = core;
        x.code = row->codes[j];
        snprintf(num, sizeof num, "%" PRIu64, r->out->count[row->codes[j]]);
        csv_row(f, &x);
    }
}

static void csv_metric(FILE *f, const struct count_report_model *m, unsigned i)
{
    const struct count_report_metric *d = &m->metrics[i];
    char num[64];
    struct csv_row x = {"derived", d->metric->key, NULL, -1, -1, -1, num, m->source};
    if (d->defined)
        snprintf(num, sizeof num, "%.9g", d->value);
    else
        num[0] = 0; /* would divide by zero */
    csv_row(f, &x);
}

static void csv_upc(FILE *f, const struct vpmu_output *o)
{
    static const char *const names[] = {"counters", "lost_carries", "parity_errors"};
    char num[32], name[48];
    for (unsigned i = 0; i < o->n_upc; i++) {
        uint64_t v[3] = {o->upc[i].counters, o->upc[i].lost_carries, o->upc[i].parity_errors};
        for (unsigned j = 0; j < 3; j++) {
            struct csv_row x = {"upc", name, NULL, -1, -1, -1, num, "modeled"};
            snprintf(name, sizeof name, "upc%u_%s", o->upc[i].upc, names[j]);
            snprintf(num, sizeof num, "%" PRIu64, v[j]);
            csv_row(f, &x);
        }
    }
}

/* The modeled report's threads, regions, UPC units, processes and MPI job. */
static void csv_end(FILE *f, const struct count_report_model *m)
{
    const struct count_report *r = m->r;
    const struct vpmu_output *o = r->out;
    char num[32];
    if (r->measured)
        return;
    for (unsigned i = 0; i < o->n_thr; i++)
        csv_kinds(f, r, "thread", NULL, m->threads[i]->serial, m->threads[i]->core,
                  &m->threads[i]->k);
    for (unsigned i = 0; i < o->n_reg; i++) {
        const struct vpmu_region *g = &o->reg[i];
        if (g->have_entries) {
            struct csv_row x = {"region", "entries", g->name, g->thread, -1, -1, num, "modeled"};
            snprintf(num, sizeof num, "%" PRIu64, g->entries);
            csv_row(f, &x);
        }
        csv_kinds(f, r, "region", g->name, g->thread, -1, &g->k);
    }
    csv_upc(f, o);
    if (m->procs_shown)
        csv_procs(f, r);
    if (r->mpi)
        csv_mpi(f, m);
}

const struct count_report_writer count_report_csv_writer = {
    .begin = csv_begin,
    .part = csv_part,
    .event = csv_event,
    .metric = csv_metric,
    .end = csv_end,
};
