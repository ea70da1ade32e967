/* SPDX-License-Identifier: BSD-3-Clause */
/* count_report_json.c - the JSON writer of hpm count's report
 * (count_report_writer.h), for modeled or measured counts.
 *
 * Written with src/json's string writer rather than built with jansson:
 * the report's layout (top-level keys and array items on lines of their
 * own, everything inside an item on one line) is not one of json_dumps's
 * indentations; counts are unsigned 64-bit and jansson's integers are
 * signed (a saturated count, UINT64_MAX, would print as -1); doubles are
 * "%.9g" where jansson writes 2 as "2.0", and times "%.6f"; and jansson
 * refuses strings that are not UTF-8, which a program's arguments may be. */
#define _POSIX_C_SOURCE 200809L
#include "report/count_report_writer.h"

#include "json.h"
#include "report/metrics.h"
#include "report/mpi_combined.h"
#include "report/mpi_job.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <string.h>


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
    unsigned order[HPM_K_COUNT], n = report_kind_order(r, k->have, order), i;
    fputc('{', f);
    for (i = 0; i < n; i++) {
        if (i)
            fputc(',', f);
        json_key(f, hpm_catalog_kind(order[i])->name);
        fprintf(f, "%" PRIu64, k->v[order[i]]);
    }
    fputc('}', f);
}

/* ,"measured_counts":[NAMES]: the rows of an object of "source":"modeled"
 * counts that the host measured (the I/O and kernel units' host clocks,
 * getrusage), where there are any */
static void json_measured_rows(FILE *f, const struct count_report *r)
{
    unsigned i, n = 0;
    for (i = 0; i < r->n_rows; i++) {
        if (strcmp(report_row_source(hpm_catalog_kind(r->rows[i].kind)), "measured") != 0)
            continue;
        fputs(n++ ? "," : ",\"measured_counts\":[", f);
        hpm_json_string(f, r->rows[i].name);
    }
    if (n)
        fputc(']', f);
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
        else if (p->out.exit_kind == VPMU_EXIT_SLOTS)
            fprintf(f, "{\"thread_slots\":%d}", p->out.exit_value);
        else
            fprintf(f, "{\"status\":%d}", p->out.exit_value);
        fprintf(f, ",\"threads_count\":%u,\"source\":\"modeled\"", p->out.threads);
        json_measured_rows(f, r);
        fputs(",\"counts\":{", f);
        for (j = 0; j < r->n_rows; j++) {
            if (j)
                fputc(',', f);
            json_key(f, r->rows[j].name);
            fprintf(f, "%" PRIu64, report_row_value_in(&p->out, &r->rows[j]));
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

/* A statistic over the ranks: {"name":...,"sum":...,...}; unit 0 writes
 * counts, another the values divided by unit (seconds). */
static void json_stat(FILE *f, const char *name, const struct count_report_mpi_stat *s,
                      double unit)
{
    fputc('{', f);
    json_key(f, "name");
    hpm_json_string(f, name);
    if (unit > 0) {
        fputs(",\"sum\":", f);
        json_double(f, 1, (double)s->sum / unit);
        fputs(",\"min\":", f);
        json_double(f, 1, (double)s->min / unit);
        fprintf(f, ",\"min_rank\":%u,\"avg\":", s->min_rank);
        json_double(f, 1, s->avg / unit);
        fputs(",\"max\":", f);
        json_double(f, 1, (double)s->max / unit);
    } else {
        char avg[48];
        fprintf(f, ",\"sum\":%" PRIu64 ",\"min\":%" PRIu64 ",\"min_rank\":%u,\"avg\":",
                s->sum, s->min, s->min_rank);
        count_report_avg_text(s, -1, avg, sizeof avg); /* exact, whatever the counts' size */
        fputs(avg, f);
        fprintf(f, ",\"max\":%" PRIu64, s->max);
    }
    fprintf(f, ",\"max_rank\":%u,\"imbalance\":", s->max_rank);
    json_double(f, s->balanced_defined, s->imbalance);
    fputc('}', f);
}

/* The rows' statistics of a combined job's counts: "events":[...] */
static void json_combined_rows(FILE *f, const struct count_report *r,
                               const struct mpi_tuple *rows)
{
    const struct mpi_combined *c = r->mpi->combined;
    struct count_report_mpi_stat st;
    unsigned i, n = 0;
    fputs("\"events\":[", f);
    for (i = 0; i < r->n_rows; i++) {
        int k = report_combined_row(c, &r->rows[i]);
        if (k < 0)
            continue;
        report_mpi_stat(&rows[k], c->size, &st);
        fputs(n++ ? ",\n      " : "\n      ", f);
        json_stat(f, r->rows[i].name, &st, 0);
    }
    fputc(']', f);
}

/* Rank k's MPI profile in a combined job's per-rank table:
 * ,"profile":{"MPI_Send":{"calls":..,"bytes":..,"time_modeled_s":..,
 * "time_host_s":..},...} */
static void json_rank_profile(FILE *f, const struct mpi_combined *c, unsigned k, uint64_t hz)
{
    unsigned i;
    fputs(",\"profile\":{", f);
    for (i = 0; i < c->nroutines; i++) {
        const uint64_t *v = c->rank_prof + ((size_t)k * c->nroutines + i) * MPI_M_COUNT;
        if (i)
            fputc(',', f);
        json_key(f, c->routines[i].name);
        fprintf(f, "{\"calls\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"time_modeled_s\":",
                v[MPI_M_CALLS], v[MPI_M_BYTES]);
        json_double(f, 1, (double)v[MPI_M_CYCLES] / (double)(hz ? hz : 1));
        fputs(",\"time_host_s\":", f);
        json_double(f, 1, (double)v[MPI_M_NS] / 1e9);
        fputc('}', f);
    }
    fputc('}', f);
}

/* Each node's counts (the sum of its ranks'): "nodes":[...] */
static void json_nodes(FILE *f, const struct count_report_model *m)
{
    const struct count_report *r = m->r;
    const struct mpi_job *j = r->mpi;
    unsigned rpn = j->combined->ranks_per_node, n, i, k;
    fputs(",\n  \"nodes\":[", f);
    for (n = 0; n * rpn < j->size; n++) {
        fprintf(f, "%s{\"node\":%u,\"ranks\":[", n ? ",\n    " : "\n    ", n);
        for (k = n * rpn; k < j->size && k < (n + 1) * rpn; k++)
            fprintf(f, "%s%u", k > n * rpn ? "," : "", k);
        fputs("],\"counts\":{", f);
        for (i = 0; i < r->n_rows; i++) {
            if (i)
                fputc(',', f);
            json_key(f, r->rows[i].name);
            fprintf(f, "%" PRIu64, report_node_value(j, n, &r->rows[i]));
        }
        fputs("}}", f);
    }
    fputc(']', f);
}

/* A job combined at MPI_Finalize: the MPI_Init to MPI_Finalize window, the
 * MPI profile (time in seconds), the MPI_Pcontrol regions, the matrix and
 * the nodes. */
static void json_combined(FILE *f, const struct count_report_model *m)
{
    static const char *const metric[MPI_M_COUNT] = {"calls", "bytes", "time_modeled_s",
                                                    "time_host_s"};
    const struct count_report *r = m->r;
    const struct mpi_job *j = r->mpi;
    const struct mpi_combined *c = j->combined;
    double hz = r->out->frequency_hz ? (double)r->out->frequency_hz : 1;
    struct count_report_mpi_stat st;
    unsigned i, k, q;
    fprintf(f, ",\n  \"combined\":{\"over\":\"MPI at MPI_Finalize\",\"counts\":\"process start "
               "to MPI_Finalize\",\"ranks_per_node\":%u,\"rank0_host_s\":",
            c->ranks_per_node);
    json_double(f, 1, (double)c->combine_ns / 1e9);
    fprintf(f, ",\"rank0_bytes\":%" PRIu64 "},\n  \"mpi_window\":{", c->combine_bytes);
    json_combined_rows(f, r, c->mpi.rows);
    fputs("},\n  \"profile\":[", f);
    for (i = 0; i < c->nroutines; i++) {
        fputs(i ? ",\n    {" : "\n    {", f);
        json_key(f, "name");
        hpm_json_string(f, c->routines[i].name);
        for (k = 0; k < MPI_M_COUNT; k++) {
            fputc(',', f);
            json_key(f, metric[k]);
            report_mpi_stat(&c->routines[i].m[k], c->size, &st);
            json_stat(f, metric[k], &st, k == MPI_M_CYCLES ? hz : k == MPI_M_NS ? 1e9 : 0);
        }
        fputc('}', f);
    }
    fputs("],\n  \"regions\":[", f);
    for (i = 0; i < c->nregions; i++) {
        fputs(i ? ",\n    {" : "\n    {", f);
        json_key(f, "name");
        hpm_json_string(f, c->regions[i].name);
        fputs(",\"entries\":", f);
        report_mpi_stat(&c->regions[i].entries, c->size, &st);
        json_stat(f, "entries", &st, 0);
        fputc(',', f);
        json_combined_rows(f, r, c->regions[i].rows);
        fputc('}', f);
    }
    fputs("],\n  \"matrix\":", f);
    if (!c->matrix[0])
        fputs("null", f);
    for (q = 0; c->matrix[0] && q < 2; q++) {
        fputs(q ? ",\"bytes\":[" : "{\"messages\":[", f);
        for (i = 0; i < c->size; i++) {
            fputs(i ? ",[" : "[", f);
            for (k = 0; k < c->size; k++)
                fprintf(f, "%s%" PRIu64, k ? "," : "", c->matrix[q][(size_t)i * c->size + k]);
            fputc(']', f);
        }
        fputs(q ? "]}" : "]", f);
    }
    if (c->ranks_per_node > 1 && c->rank_codes)
        json_nodes(f, m);
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
        fputs(i ? ",\n    " : "\n    ", f);
        json_stat(f, r->rows[i].name, &m->mpi[i], 0);
    }
    fputs(r->n_rows ? "\n  ]" : "]", f);
    if (j->per_rank) {
        fputs(",\"ranks\":[", f);
        first = 1;
        for (k = 0; k < j->size; k++) {
            const struct mpi_rank_result *x;
            struct report_rank_info ri;
            if (report_rank_info(j, k, &ri) != 0)
                continue;
            x = ri.result;
            fprintf(f, "%s\n    {\"rank\":%u,\"host\":", first ? "" : ",", k);
            hpm_json_string(f, ri.host);
            if (!x)
                fputs(",\"exit\":null", f); /* combined at MPI_Finalize: still running */
            else if (x->exit_signal > 0)
                fprintf(f, ",\"exit\":{\"signal\":%d}", x->exit_signal);
            else if (x->exit_signal < 0)
                fputs(",\"exit\":{\"signal\":null}", f);
            else
                fprintf(f, ",\"exit\":{\"status\":%d}", x->exit_status);
            fputs(",\"counts\":", f);
            if (!ri.have_counts) {
                fputs("null", f);
            } else {
                fputc('{', f);
                for (i = 0; i < r->n_rows; i++) {
                    uint64_t v = 0;
                    report_rank_value(j, k, &r->rows[i], &v);
                    if (i)
                        fputc(',', f);
                    json_key(f, r->rows[i].name);
                    fprintf(f, "%" PRIu64, v);
                }
                fputc('}', f);
            }
            if (j->combined && j->combined->rank_prof)
                json_rank_profile(f, j->combined, k, r->out->frequency_hz);
            fputc('}', f);
            first = 0;
        }
        fputs("\n  ]", f);
    }
    if (j->combined)
        json_combined(f, m);
    fputc('}', f);
}

/* The program's end in JSON, for every source. */
static void json_exit(FILE *f, const struct count_report *r)
{
    fputs("{", f);
    if (r->exit_signal > 0) {
        fprintf(f, "\"signal\":%d,\"signal_name\":", r->exit_signal);
        hpm_json_string(f, report_signal_text(r->exit_signal));
    } else if (r->exit_signal < 0) {
        fputs("\"signal\":null", f);
    } else {
        fprintf(f, "\"status\":%d", r->exit_status);
    }
    fprintf(f, ",\"hpm_exit_code\":%d}", r->exit_code);
}

static void json_rusage(FILE *f, const struct count_report *r)
{
    fprintf(f,
            ",\"user_time_s\":%.6f,\"system_time_s\":%.6f,\"minor_faults\":%ld,"
            "\"major_faults\":%ld,\"voluntary_context_switches\":%ld,"
            "\"involuntary_context_switches\":%ld",
            report_tv_seconds(r->ru.ru_utime), report_tv_seconds(r->ru.ru_stime), r->ru.ru_minflt,
            r->ru.ru_majflt, r->ru.ru_nvcsw, r->ru.ru_nivcsw);
}

static void json_program(FILE *f, const struct count_report *r)
{
    fputs(",\n  \"program\":", f);
    if (!r->argv) {
        fputs("null", f); /* a report of a file: only the tool's command line is known */
        return;
    }
    fputc('[', f);
    for (int i = 0; i < r->argc; i++) {
        if (i)
            fputc(',', f);
        hpm_json_string(f, r->argv[i]);
    }
    fputc(']', f);
}

static void json_host_pmu(FILE *f, const struct count_report *r)
{
    fprintf(f, ",\n  \"host_pmu\":{\"present\":%s,\"probe\":", r->hw_pmu ? "true" : "false");
    if (r->pmu)
        hpm_json_string(f, r->pmu);
    else
        fputs("null", f);
    fputc('}', f);
}

static void json_begin_measured(FILE *f, const struct count_report *r)
{
    fputs(",\n  \"perf\":{\"description\":", f);
    hpm_json_string(f, r->perf_source ? r->perf_source : "Linux perf_event");
    fprintf(f, ",\"inherit\":%s,\"kernel\":%s}", r->inherited ? "true" : "false",
            r->kernel ? "true" : "false");
    json_host_pmu(f, r);
}

static void json_begin_modeled(FILE *f, const struct count_report *r)
{
    const struct vpmu_output *o = r->out;
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
    if (r->machine_hash) {
        /* what makes two reports' counts comparable (hpm diff) */
        fputs(",\"hash\":", f);
        hpm_json_string(f, r->machine_hash);
    }
    fputs("},\n  \"level\":", f);
    hpm_json_string(f, o->level);
    fputs(",\n  \"models\":", f);
    hpm_json_string(f, o->models);
    fprintf(f, ",\n  \"upcs\":%u,\n  \"threads_count\":", o->upcs);
    if (r->mpi && r->mpi->combined)
        fputs("null", f); /* combined at MPI_Finalize: each rank's result has its own */
    else
        fprintf(f, "%u", o->threads);
    json_host_pmu(f, r);
}

static void json_begin(FILE *f, const struct count_report_model *m)
{
    const struct count_report *r = m->r;
    fprintf(f, "{\n  \"source\":\"%s\",\n  \"pmu\":\"%s\"", m->source,
            r->measured ? "perf" : "virtual");
    json_program(f, r);
    if (r->measured)
        json_begin_measured(f, r);
    else
        json_begin_modeled(f, r);
    fputs(",\n  \"exit\":", f);
    json_exit(f, r);
    fputs(",\n  \"notes\":[", f);
    for (unsigned i = 0; i < r->n_notes; i++) {
        if (i)
            fputc(',', f);
        hpm_json_string(f, r->notes[i]);
    }
    fputc(']', f);
}

static void json_host(FILE *f, const struct count_report_model *m)
{
    const struct count_report *r = m->r;
    fputs("\n  ],\n  \"host\":{\"source\":\"measured\",\"scope\":", f);
    hpm_json_string(f, r->measured ? "the program's processes as wait4() reports them"
                                   : "the simulator process as wait4() reports it; includes "
                                     "Valgrind's own work");
    if (r->have_rusage)
        json_rusage(f, r);
    else
        fputs(",\"measured\":false", f);
    if (!r->measured) {
        fputs(",\"syscalls\":", f);
        if (m->have_syscalls)
            fprintf(f, "{\"source\":\"modeled\",\"user\":%" PRIu64 ",\"kernel\":null}",
                    m->syscalls);
        else
            fputs("null", f);
    }
    fputc('}', f);
}

static void json_part(FILE *f, const struct count_report_model *m, enum count_report_part p)
{
    switch (p) {
    case COUNT_PART_EVENTS:
        fputs(",\n  \"events\":[", f);
        break;
    case COUNT_PART_HOST:
        json_host(f, m);
        break;
    case COUNT_PART_METRICS:
        fputs(",\n  \"derived\":[", f);
        break;
    }
}

static void json_event_measured(FILE *f, const struct count_measured *e)
{
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
}

static void json_event_modeled(FILE *f, const struct count_report_model *m, unsigned i)
{
    const struct count_row *row = m->events[i].row;
    const struct hpm_cat_kind_info *k = m->events[i].kind;
    uint64_t v = m->events[i].total;
    char buf[128];
    json_key(f, "name");
    hpm_json_string(f, row->name);
    fputs(",\"kind\":", f);
    hpm_json_string(f, k->name);
    fputs(",\"unit\":", f);
    hpm_json_string(f, hpm_catalog_unit_name(k->unit));
    {
        /* a counting mode's row: its mode and what its count is in (a
         * level-high row, the event's own count, has neither) */
        unsigned spec = (unsigned)row->codes[0], mode = hpm_catalog_spec_mode(spec);
        if (mode != HPM_CAT_LEVEL_HIGH) {
            fputs(",\"mode\":", f);
            hpm_json_string(f, hpm_catalog_mode_name(mode));
            fputs(",\"units\":", f);
            hpm_json_string(f, hpm_catalog_spec_units(spec));
        }
    }
    fprintf(f, ",\"node\":%s,\"source\":\"%s\",\"count\":%" PRIu64, k->node ? "true" : "false",
            report_row_source(k), v);
    if (report_row_is_kernel(k))
        fprintf(f, ",\"user\":null,\"kernel\":%" PRIu64 ",\"codes\":[", v);
    else
        fprintf(f, ",\"user\":%" PRIu64 ",\"kernel\":null,\"codes\":[", v);
    for (unsigned j = 0; j < row->n_codes; j++) {
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
        fprintf(f, ",\"count\":%" PRIu64 "}", m->r->out->count[row->codes[j]]);
    }
    fputs("],\"description\":", f);
    hpm_json_string(f, k->description);
}

static void json_event(FILE *f, const struct count_report_model *m, unsigned i)
{
    fputs(i ? ",\n    {" : "\n    {", f);
    if (m->r->measured)
        json_event_measured(f, &m->r->measured[i]);
    else
        json_event_modeled(f, m, i);
    fputc('}', f);
}

/* A derived metric's array item (of modeled or measured counts). */
static void json_metric(FILE *f, const struct count_report_model *m, unsigned i)
{
    const struct count_report_metric *d = &m->metrics[i];
    fputs(i ? ",\n    {" : "\n    {", f);
    json_key(f, "name");
    hpm_json_string(f, d->metric->key);
    fputs(",\"label\":", f);
    hpm_json_string(f, d->metric->label);
    fputs(",\"formula\":", f);
    hpm_json_string(f, d->metric->shown ? d->metric->shown : d->metric->formula);
    fputs(",\"source\":", f);
    hpm_json_string(f, m->source);
    fputs(",\"value\":", f);
    json_double(f, d->defined, d->value);
    fputc('}', f);
}

/* The modeled report's threads, regions, UPC units, processes and MPI job. */
static void json_tables(FILE *f, const struct count_report_model *m)
{
    const struct count_report *r = m->r;
    const struct vpmu_output *o = r->out;
    const struct vpmu_thread *const *t = m->threads;
    unsigned i;
    fputs(",\n  \"threads\":[", f);
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
}

static void json_end(FILE *f, const struct count_report_model *m)
{
    fputs(m->n_metrics ? "\n  ]" : "]", f);
    if (!m->r->measured)
        json_tables(f, m);
    fputs("\n}\n", f);
}

const struct count_report_writer count_report_json_writer = {
    .begin = json_begin,
    .part = json_part,
    .event = json_event,
    .metric = json_metric,
    .end = json_end,
};
