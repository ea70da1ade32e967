/* SPDX-License-Identifier: BSD-3-Clause */
/* count_report_read.c - hpm count's JSON report read back into the report
 * (count_report_read.h), key for key what count_report_json.c writes.
 * jansson parses; every member is checked where it is read, so that a
 * corrupt report is an error naming the member, never a count of 0. */
#define _POSIX_C_SOURCE 200809L
#include "report/count_report_read.h"
#include "report/count_report_writer.h"
#include "report/metrics.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct rd {
    struct count_report_doc *d;
    char *err;
    size_t errlen;
};

static int oom(struct rd *x)
{
    snprintf(x->err, x->errlen, "out of memory");
    return -1;
}

/* ------------------------------------------------------------ members */

/* An integer member in [min, max]: 0, or -1 with err. */
static int get_int(struct rd *x, json_t *o, const char *key, long long min, long long max,
                   long long *v)
{
    json_t *j = json_object_get(o, key);
    if (!json_is_integer(j) || json_integer_value(j) < min || json_integer_value(j) > max) {
        snprintf(x->err, x->errlen, "\"%s\" must be an integer in [%lld, %lld]", key, min, max);
        return -1;
    }
    *v = json_integer_value(j);
    return 0;
}

/* The same, 0 when the member is absent. */
static int opt_int(struct rd *x, json_t *o, const char *key, long long min, long long max,
                   long long *v)
{
    *v = 0;
    return json_object_get(o, key) ? get_int(x, o, key, min, max, v) : 0;
}

/* A string without NUL bytes: its value, or NULL. */
static const char *str_of(json_t *j)
{
    return json_is_string(j) && strlen(json_string_value(j)) == json_string_length(j)
               ? json_string_value(j)
               : NULL;
}

/* A string member that fits buf (absent or null: "" when optional). */
static int get_str(struct rd *x, json_t *o, const char *key, char *buf, size_t len, int optional)
{
    json_t *j = json_object_get(o, key);
    const char *s = str_of(j);
    buf[0] = 0;
    if ((!j || json_is_null(j)) && optional)
        return 0;
    if (!s || strlen(s) >= len) {
        snprintf(x->err, x->errlen, "\"%s\" must be a string of at most %zu bytes", key,
                 len - 1);
        return -1;
    }
    memcpy(buf, s, strlen(s) + 1);
    return 0;
}

/* A string member copied (absent or null: NULL). */
static int dup_str(struct rd *x, json_t *o, const char *key, char **out)
{
    json_t *j = json_object_get(o, key);
    const char *s = str_of(j);
    *out = NULL;
    if (!j || json_is_null(j))
        return 0;
    if (!s) {
        snprintf(x->err, x->errlen, "\"%s\" must be a string", key);
        return -1;
    }
    return (*out = strdup(s)) ? 0 : oom(x);
}

static int get_bool(json_t *o, const char *key)
{
    return json_is_true(json_object_get(o, key));
}

/* A count: a non-negative integer. A count that is not one (a negative
 * number, a string, a fraction) is a corrupt report, not data: a negative
 * count would pass every limit of hpm diff and a string would read as 0. */
static int get_count(struct rd *x, json_t *v, const char *where, const char *name, uint64_t *out)
{
    char *shown;
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        *out = (uint64_t)json_integer_value(v);
        return 0;
    }
    shown = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    if (shown)
        snprintf(x->err, x->errlen,
                 "%s%s: %.40s is not a count (a non-negative integer): a corrupt report", where,
                 name, shown);
    else
        snprintf(x->err, x->errlen, "%s%s has no count: a corrupt report", where, name);
    free(shown);
    return -1;
}

/* Per-kind counts {"KIND":N,...}; keys that are no kind are left out. */
static int get_kinds(struct rd *x, json_t *o, const char *where, struct vpmu_kind_values *k)
{
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v)
    {
        uint64_t n;
        int kind;
        if (get_count(x, v, where, key, &n))
            return -1;
        kind = hpm_catalog_kind_by_name(key, strlen(key));
        if (kind >= 0) {
            k->v[kind] = n;
            k->have[kind] = 1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ the head */

static int read_machine(struct rd *x, json_t *root)
{
    struct count_report_doc *d = x->d;
    json_t *m = json_object_get(root, "machine");
    long long v;
    if (!json_is_object(m))
        return 0;
    d->have_machine = 1;
    if (get_str(x, m, "name", d->out.machine, sizeof d->out.machine, 1) ||
        opt_int(x, m, "cores", 1, VPMU_OUTPUT_MAX_CORES, &v))
        return -1;
    d->out.cores = (unsigned)v;
    if (opt_int(x, m, "frequency_hz", 0, LLONG_MAX, &v))
        return -1;
    d->out.frequency_hz = (uint64_t)v;
    if (dup_str(x, m, "file", &d->machine_source) || dup_str(x, m, "hash", &d->machine_hash))
        return -1;
    d->r.machine_source = d->machine_source;
    d->r.machine_hash = d->machine_hash;
    return 0;
}

/* What the tool said of the run: command, level, models, units, threads. */
static int read_tool(struct rd *x, json_t *root)
{
    struct vpmu_output *o = &x->d->out;
    long long v;
    if (dup_str(x, root, "command", &o->command) ||
        get_str(x, root, "level", o->level, sizeof o->level, 1) ||
        get_str(x, root, "models", o->models, sizeof o->models, 1) ||
        opt_int(x, root, "upcs", 0, 1024, &v))
        return -1;
    o->upcs = (unsigned)v;
    if (opt_int(x, root, "threads_count", 0, INT_MAX, &v))
        return -1;
    o->threads = (unsigned)v;
    o->have_threads = 1;
    o->exit_kind = VPMU_EXIT_STATUS;
    return 0;
}

static int read_program(struct rd *x, json_t *root)
{
    struct count_report_doc *d = x->d;
    json_t *p = json_object_get(root, "program");
    size_t i, n = json_array_size(p);
    if (!json_is_array(p))
        return 0;
    if (!(d->argv = calloc(n + 1, sizeof *d->argv)))
        return oom(x);
    for (i = 0; i < n; i++) {
        const char *s = str_of(json_array_get(p, i));
        if (!s) {
            snprintf(x->err, x->errlen, "\"program\": argument %zu is not a string", i + 1);
            return -1;
        }
        if (!(d->argv[i] = strdup(s)))
            return oom(x);
    }
    d->r.argv = d->argv;
    d->r.argc = (int)n;
    return 0;
}

/* {"status":S} or {"signal":N|null}, and hpm's exit code. */
static int read_exit(struct rd *x, json_t *root)
{
    struct count_report *r = &x->d->r;
    json_t *e = json_object_get(root, "exit"), *sig;
    long long v;
    if (!e)
        return 0;
    x->d->have_exit = 1;
    if (!json_is_object(e)) {
        snprintf(x->err, x->errlen, "\"exit\" is not an object");
        return -1;
    }
    if (opt_int(x, e, "hpm_exit_code", 0, 255, &v))
        return -1;
    r->exit_code = (int)v;
    sig = json_object_get(e, "signal");
    if (sig && json_is_null(sig)) {
        r->exit_signal = -1;
        return 0;
    }
    if (sig) {
        if (get_int(x, e, "signal", 1, 127, &v))
            return -1;
        r->exit_signal = (int)v;
        return 0;
    }
    if (get_int(x, e, "status", INT_MIN, INT_MAX, &v))
        return -1;
    r->exit_status = (int)v;
    return 0;
}

static int read_notes(struct rd *x, json_t *root)
{
    struct count_report_doc *d = x->d;
    json_t *n = json_object_get(root, "notes");
    size_t i;
    if (json_array_size(n) > COUNT_MAX_NOTES) {
        snprintf(x->err, x->errlen, "more than %d notes", COUNT_MAX_NOTES);
        return -1;
    }
    for (i = 0; i < json_array_size(n); i++) {
        const char *s = str_of(json_array_get(n, i));
        if (!s) {
            snprintf(x->err, x->errlen, "\"notes\": note %zu is not a string", i + 1);
            return -1;
        }
        if (!(d->notes[i] = strdup(s)))
            return oom(x);
        d->r.notes[d->r.n_notes++] = d->notes[i];
    }
    return 0;
}

/* "host_pmu", and "perf" of a report measured by perf_event. */
static int read_pmu(struct rd *x, json_t *root)
{
    struct count_report_doc *d = x->d;
    json_t *h = json_object_get(root, "host_pmu"), *p = json_object_get(root, "perf");
    d->r.hw_pmu = get_bool(h, "present");
    if (dup_str(x, h, "probe", &d->pmu))
        return -1;
    d->r.pmu = d->pmu;
    if (!json_is_object(p))
        return 0;
    if (dup_str(x, p, "description", &d->perf_source))
        return -1;
    d->r.perf_source = d->perf_source;
    d->r.inherited = get_bool(p, "inherit");
    d->r.kernel = get_bool(p, "kernel");
    return 0;
}

/* "mpi_rank": which rank of which job the report is. */
static int read_rank(struct rd *x, json_t *root)
{
    struct mpi_rank_env *e = &x->d->rank;
    json_t *mr = json_object_get(root, "mpi_rank");
    long long v;
    if (!json_is_object(mr))
        return 0;
    if (get_int(x, mr, "size", 1, MPI_JOB_MAX_RANKS, &v))
        return -1;
    e->size = (int)v;
    if (get_int(x, mr, "rank", 0, e->size - 1, &v))
        return -1;
    e->rank = (int)v;
    if (get_str(x, mr, "job", e->job, sizeof e->job, 1) ||
        get_str(x, mr, "host", e->host, sizeof e->host, 1) ||
        get_str(x, root, "why", x->d->why, sizeof x->d->why, 1))
        return -1;
    x->d->r.rank = e;
    return 0;
}

static int rusage_time(struct rd *x, json_t *h, const char *key, struct timeval *tv)
{
    json_t *j = json_object_get(h, key);
    double s = json_number_value(j), sec;
    long long us;
    if (!json_is_number(j) || !(s >= 0) || s > 1e12) {
        snprintf(x->err, x->errlen, "\"host\": \"%s\" must be seconds", key);
        return -1;
    }
    sec = floor(s);
    us = llround((s - sec) * 1e6);
    tv->tv_sec = (time_t)sec + (us >= 1000000);
    tv->tv_usec = us % 1000000;
    return 0;
}

/* "host": wait4's rusage (the syscalls the model computes again). */
static int read_host(struct rd *x, json_t *root)
{
    struct count_report *r = &x->d->r;
    json_t *h = json_object_get(root, "host");
    static const char *const faults[] = {"minor_faults", "major_faults",
                                         "voluntary_context_switches",
                                         "involuntary_context_switches"};
    long *to[] = {&r->ru.ru_minflt, &r->ru.ru_majflt, &r->ru.ru_nvcsw, &r->ru.ru_nivcsw};
    long long v;
    json_t *sys = json_object_get(h, "syscalls");
    if (json_is_object(sys)) {
        if (get_count(x, json_object_get(sys, "user"), "host, ", "syscalls",
                      &x->d->given.syscalls))
            return -1;
        x->d->given.have_syscalls = 1;
    }
    if (!json_is_object(h) || !json_object_get(h, "user_time_s"))
        return 0;
    if (rusage_time(x, h, "user_time_s", &r->ru.ru_utime) ||
        rusage_time(x, h, "system_time_s", &r->ru.ru_stime))
        return -1;
    for (unsigned i = 0; i < 4; i++) {
        if (get_int(x, h, faults[i], 0, LONG_MAX, &v))
            return -1;
        *to[i] = (long)v;
    }
    r->have_rusage = 1;
    return 0;
}

/* ------------------------------------------------------------ events */

/* One code of a row: its count into out (a code given twice must agree). */
static int read_code(struct rd *x, json_t *c, size_t i, size_t j, struct count_row *row)
{
    struct vpmu_output *o = &x->d->out;
    long long code, count;
    unsigned kind;
    int core;
    char e2[96];
    struct rd y = {x->d, e2, sizeof e2};
    if (!json_is_object(c) || get_int(&y, c, "code", 0, HPM_CAT_SPECS - 1, &code) ||
        get_int(&y, c, "count", 0, LLONG_MAX, &count)) {
        snprintf(x->err, x->errlen, "event %zu, code %zu: %s", i + 1, j + 1,
                 json_is_object(c) ? e2 : "not an object");
        return -1;
    }
    if (hpm_catalog_spec_decode((unsigned)code, &kind, &core, NULL) != 0 ||
        (core >= 0 && x->d->have_machine && (unsigned)core >= o->cores)) {
        snprintf(x->err, x->errlen, "event %zu: code %lld is no event of a %u-core machine",
                 i + 1, code, o->cores);
        return -1;
    }
    if (o->have_count[code] && o->count[code] != (uint64_t)count) {
        snprintf(x->err, x->errlen, "code %lld given twice with different counts", code);
        return -1;
    }
    if (!o->have_count[code])
        o->n_counts++;
    o->have_count[code] = 1;
    o->count[code] = (uint64_t)count;
    if (row->n_codes == 0)
        row->kind = kind;
    row->codes[row->n_codes++] = (int)code;
    return 0;
}

/* A row of the virtual PMU: its name, kind and codes. A row counts one
 * core when its one code is of a core and the machine has others. */
static int read_row(struct rd *x, json_t *ev, size_t i, struct count_row *row)
{
    json_t *codes = json_object_get(ev, "codes");
    const char *kind = str_of(json_object_get(ev, "kind"));
    size_t j;
    int k = kind ? hpm_catalog_kind_by_name(kind, strlen(kind)) : -1;
    row->kind = k >= 0 ? (unsigned)k : 0;
    row->core = -1;
    if (json_array_size(codes) > HPM_CAT_MAX_CORES) {
        snprintf(x->err, x->errlen, "event %zu: more than %d codes", i + 1, HPM_CAT_MAX_CORES);
        return -1;
    }
    for (j = 0; j < json_array_size(codes); j++)
        if (read_code(x, json_array_get(codes, j), i, j, row))
            return -1;
    if (row->n_codes == 1 && x->d->out.cores > 1) {
        unsigned kk;
        hpm_catalog_spec_decode((unsigned)row->codes[0], &kk, &row->core, NULL);
    }
    return 0;
}

/* An event measured by perf_event. */
static int read_measured(struct rd *x, json_t *ev, struct count_measured *m)
{
    const char *kind = str_of(json_object_get(ev, "kind"));
    m->kind = kind ? hpm_catalog_kind_by_name(kind, strlen(kind)) : -1;
    m->available = 1;
    if (get_str(x, ev, "perf_event", m->perf_name, sizeof m->perf_name, 1) ||
        get_str(x, ev, "units", m->units, sizeof m->units, 1) ||
        get_str(x, ev, "description", m->description, sizeof m->description, 1))
        return -1;
    return 0;
}

/* Event i: its name, source and count, then the rest by its source. */
static int read_event(struct rd *x, json_t *ev, size_t i, int perf)
{
    struct count_report_doc *d = x->d;
    struct count_read_event *e = &d->events[i];
    char *name = perf ? d->measured[i].name : d->rows[i].name;
    const char *src = str_of(json_object_get(ev, "source"));
    json_t *count = json_object_get(ev, "count");
    if (!json_is_object(ev)) {
        snprintf(x->err, x->errlen, "event %zu: not an object", i + 1);
        return -1;
    }
    if (get_str(x, ev, "name", name, HPM_CAT_NAME_MAX, 1))
        return -1;
    e->name = name;
    e->measured = src && strcmp(src, "measured") == 0;
    e->have_codes = json_is_array(json_object_get(ev, "codes"));
    /* a count is required, but a rank's result gives its codes alone */
    if ((count || perf || (!e->have_codes && *name)) &&
        get_count(x, count, "event ", name, &e->count))
        return -1;
    if (perf) {
        d->measured[i].value = e->count;
        return read_measured(x, ev, &d->measured[i]);
    }
    if (read_row(x, ev, i, &d->rows[i]))
        return -1;
    if (!count)
        e->count = report_row_value_in(&d->out, &d->rows[i]);
    return 0;
}

static int read_events(struct rd *x, json_t *root)
{
    struct count_report_doc *d = x->d;
    json_t *evs = json_object_get(root, "events");
    const char *pmu = str_of(json_object_get(root, "pmu"));
    size_t i, n = json_array_size(evs);
    int perf = pmu && strcmp(pmu, "perf") == 0;
    d->have_events = json_is_array(evs);
    d->events = calloc(n ? n : 1, sizeof *d->events);
    if (!d->events ||
        !(perf ? (void *)(d->measured = calloc(n ? n : 1, sizeof *d->measured))
               : (void *)(d->rows = calloc(n ? n : 1, sizeof *d->rows))))
        return oom(x);
    for (i = 0; i < n; i++)
        if (read_event(x, json_array_get(evs, i), i, perf))
            return -1;
    if (perf) {
        d->r.measured = d->measured;
        d->r.n_measured = (unsigned)n;
    } else {
        d->r.rows = d->rows;
        d->r.n_rows = (unsigned)n;
    }
    return 0;
}

/* The derived metrics of metrics.h, as written (others are left out). */
static int read_metrics(struct rd *x, json_t *root)
{
    struct count_report_given *g = &x->d->given;
    json_t *a = json_object_get(root, "derived"), *m;
    size_t i;
    json_array_foreach(a, i, m)
    {
        const char *key = str_of(json_object_get(m, "name"));
        json_t *v = json_object_get(m, "value");
        unsigned k;
        for (k = 0; key && k < hpm_n_metrics && strcmp(hpm_metrics[k].key, key) != 0; k++)
            ;
        if (!key || k == hpm_n_metrics || g->n_metrics == COUNT_REPORT_MAX_METRICS)
            continue;
        g->metrics[g->n_metrics].metric = &hpm_metrics[k];
        g->metrics[g->n_metrics].defined = json_is_number(v);
        g->metrics[g->n_metrics++].value = json_number_value(v);
    }
    return 0;
}

/* ------------------------------------------------------------ tables */

static int read_threads(struct rd *x, json_t *root)
{
    struct vpmu_output *o = &x->d->out;
    json_t *a = json_object_get(root, "threads");
    size_t i, n = json_array_size(a);
    if (!n)
        return 0;
    if (!(o->thr = calloc(n, sizeof *o->thr)))
        return oom(x);
    o->cap_thr = n;
    for (i = 0; i < n; i++) {
        json_t *t = json_array_get(a, i);
        struct vpmu_thread *th = &o->thr[o->n_thr++];
        long long v;
        if (get_int(x, t, "thread", 0, UINT_MAX, &v))
            return -1;
        th->serial = (unsigned)v;
        th->core = -1;
        if (json_is_integer(json_object_get(t, "core"))) {
            if (get_int(x, t, "core", 0, VPMU_OUTPUT_MAX_CORES - 1, &v))
                return -1;
            th->core = (int)v;
        }
        if (get_kinds(x, json_object_get(t, "counts"), "thread, event ", &th->k))
            return -1;
    }
    return 0;
}

static int read_region(struct rd *x, json_t *g, struct vpmu_region *r)
{
    const char *name = str_of(json_object_get(g, "name"));
    json_t *entries = json_object_get(g, "entries");
    char where[300];
    long long v;
    if (!name) {
        snprintf(x->err, x->errlen, "a region without a name");
        return -1;
    }
    if (!(r->name = strdup(name)))
        return oom(x);
    if (opt_int(x, g, "thread", 0, UINT_MAX, &v))
        return -1;
    r->thread = (unsigned)v;
    if (entries && !json_is_null(entries)) {
        snprintf(where, sizeof where, "region %.200s, ", name);
        if (get_count(x, entries, where, "entries", &r->entries))
            return -1;
        r->have_entries = 1;
    }
    snprintf(where, sizeof where, "region %.200s, event ", name);
    return get_kinds(x, json_object_get(g, "counts"), where, &r->k);
}

static int read_regions(struct rd *x, json_t *root)
{
    struct vpmu_output *o = &x->d->out;
    json_t *a = json_object_get(root, "regions");
    size_t i, n = json_array_size(a);
    if (!n)
        return 0;
    if (!(o->reg = calloc(n, sizeof *o->reg)))
        return oom(x);
    o->cap_reg = n;
    for (i = 0; i < n; i++)
        if (read_region(x, json_array_get(a, i), &o->reg[o->n_reg++]))
            return -1;
    return 0;
}

static int read_upcs(struct rd *x, json_t *root)
{
    struct vpmu_output *o = &x->d->out;
    json_t *a = json_object_get(root, "upc");
    size_t i, n = json_array_size(a);
    if (!n)
        return 0;
    if (!(o->upc = calloc(n, sizeof *o->upc)))
        return oom(x);
    o->cap_upc = n;
    for (i = 0; i < n; i++) {
        json_t *u = json_array_get(a, i);
        struct vpmu_upc *p = &o->upc[o->n_upc++];
        long long v;
        if (get_int(x, u, "unit", 0, UINT_MAX, &v) ||
            get_count(x, json_object_get(u, "counters"), "upc ", "counters", &p->counters) ||
            get_count(x, json_object_get(u, "lost_carries"), "upc ", "lost_carries",
                      &p->lost_carries) ||
            get_count(x, json_object_get(u, "parity_errors"), "upc ", "parity_errors",
                      &p->parity_errors))
            return -1;
        p->upc = (unsigned)v;
    }
    return 0;
}

/* A process's end: killed before its counts, no final file, a signal or a
 * status. */
static int read_proc_exit(struct rd *x, json_t *e, struct count_proc *p)
{
    json_t *sig = json_object_get(e, "signal"), *slots = json_object_get(e, "thread_slots");
    long long v;
    p->out.exit_kind = VPMU_EXIT_STATUS;
    if (json_is_null(e))
        return 0;
    if (slots) {
        if (get_int(x, e, "thread_slots", 1, INT_MAX, &v))
            return -1;
        p->out.exit_kind = VPMU_EXIT_SLOTS;
        p->out.exit_value = (int)v;
        return 0;
    }
    if (sig && json_is_null(sig)) {
        p->out.exit_kind = VPMU_EXIT_SIGNAL;
        p->out.exit_value = -1;
        return 0;
    }
    if (sig) {
        if (get_int(x, e, "signal", 1, 127, &v))
            return -1;
        if (get_bool(e, "counts_lost"))
            p->killed_signal = (int)v;
        p->out.exit_kind = VPMU_EXIT_SIGNAL;
        p->out.exit_value = (int)v;
        return 0;
    }
    if (get_int(x, e, "status", INT_MIN, INT_MAX, &v))
        return -1;
    p->out.exit_value = (int)v;
    return 0;
}

/* A process's counts per row: each row's value on its first code. */
static int read_proc_counts(struct rd *x, json_t *c, struct count_proc *p)
{
    const struct count_report *r = &x->d->r;
    for (unsigned j = 0; j < r->n_rows; j++) {
        const struct count_row *row = &r->rows[j];
        uint64_t v;
        if (!json_object_get(c, row->name) || !row->n_codes)
            continue;
        if (get_count(x, json_object_get(c, row->name), "process, event ", row->name, &v))
            return -1;
        p->out.count[row->codes[0]] = v;
        p->out.have_count[row->codes[0]] = 1;
    }
    return 0;
}

static int read_proc(struct rd *x, json_t *j, struct count_proc *p)
{
    json_t *cmds = json_object_get(j, "commands");
    long long v;
    size_t i;
    if (get_int(x, j, "pid", 0, LLONG_MAX, &v))
        return -1;
    p->pid = (uint64_t)v;
    if (json_is_integer(json_object_get(j, "ppid"))) {
        if (get_int(x, j, "ppid", 1, LLONG_MAX, &v))
            return -1;
        p->ppid = (uint64_t)v;
    }
    if (!(p->commands = calloc(json_array_size(cmds) + 1, sizeof *p->commands)))
        return oom(x);
    for (i = 0; i < json_array_size(cmds); i++) {
        const char *s = str_of(json_array_get(cmds, i));
        if (!s || !(p->commands[p->n_commands++] = strdup(s)))
            return s ? oom(x) : (snprintf(x->err, x->errlen, "a process's command is not a "
                                                             "string"),
                                 -1);
    }
    p->complete = get_bool(j, "complete");
    if (opt_int(x, j, "threads_count", 0, INT_MAX, &v))
        return -1;
    p->out.threads = (unsigned)v;
    return read_proc_exit(x, json_object_get(j, "exit"), p) ||
           read_proc_counts(x, json_object_get(j, "counts"), p);
}

static int read_procs(struct rd *x, json_t *root)
{
    struct count_report_doc *d = x->d;
    json_t *a = json_object_get(root, "processes");
    size_t i, n = json_array_size(a);
    if (!n)
        return 0;
    if (!(d->procs = calloc(n, sizeof *d->procs)))
        return oom(x);
    d->r.procs = d->procs;
    for (i = 0; i < n; i++) {
        d->r.n_procs++;
        if (read_proc(x, json_array_get(a, i), &d->procs[i]))
            return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ the report */

static int read_root(struct rd *x, json_t *root)
{
    struct count_report_doc *d = x->d;
    d->r.out = &d->out;
    d->r.given = &d->given;
    d->r.per_core = d->r.per_thread = 0;
    return read_machine(x, root) || read_tool(x, root) || read_program(x, root) ||
           read_exit(x, root) || read_notes(x, root) || read_pmu(x, root) ||
           read_rank(x, root) || read_host(x, root) || read_events(x, root) ||
           read_metrics(x, root) || read_threads(x, root) || read_regions(x, root) ||
           read_upcs(x, root) || read_procs(x, root)
               ? -1
               : 0;
}

int count_report_read(struct count_report_doc *d, const char *text, size_t len, char *err,
                      size_t errlen)
{
    struct rd x = {d, err, errlen};
    json_error_t je;
    json_t *root;
    int rc;
    memset(d, 0, sizeof *d);
    d->rank.rank = d->rank.size = -1;
    root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        snprintf(err, errlen, "line %d: %s", je.line, je.text);
        return -1;
    }
    if (!json_is_object(root)) {
        snprintf(err, errlen, "not a JSON object");
        json_decref(root);
        return -1;
    }
    rc = read_root(&x, root) ? -2 : 0;
    json_decref(root);
    return rc;
}

void count_report_doc_free(struct count_report_doc *d)
{
    unsigned i, j;
    vpmu_output_free(&d->out);
    for (i = 0; i < d->r.n_procs; i++) {
        for (j = 0; j < d->procs[i].n_commands; j++)
            free(d->procs[i].commands[j]);
        free(d->procs[i].commands);
    }
    free(d->procs);
    for (i = 0; d->argv && d->argv[i]; i++)
        free(d->argv[i]);
    free(d->argv);
    for (i = 0; i < COUNT_MAX_NOTES; i++)
        free(d->notes[i]);
    free(d->events);
    free(d->rows);
    free(d->measured);
    free(d->machine_source);
    free(d->machine_hash);
    free(d->pmu);
    free(d->perf_source);
    memset(d, 0, sizeof *d);
}

const struct count_read_event *count_report_doc_event(const struct count_report_doc *d,
                                                      const char *name)
{
    unsigned i, n = d->r.measured ? d->r.n_measured : d->r.n_rows;
    for (i = 0; i < n; i++)
        if (strcasecmp(d->events[i].name, name) == 0)
            return &d->events[i];
    return NULL;
}
