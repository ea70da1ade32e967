/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * diff_model.c - the model of hpm diff OLD NEW: what changed between two
 * runs, from exact counts.
 *
 * Two count reports (hpm count --json): every event's old and new total,
 * delta and percent, the derived metrics old -> new, and the regions. Two
 * profiles (hpm profile, callgrind format; callgrind's own too): the same
 * totals, then the largest changes per function (self), per source line,
 * per call path (caller > callee, inclusive) and, when both profiles have
 * their data-object file beside them (PROFILE.data), per data object;
 * functions are matched by name (addresses move between builds), lines by
 * file and line, data objects by allocation site, and what appeared or
 * disappeared is listed as such. Text, JSON (jansson) or Markdown fit for
 * a pull-request comment.
 *
 *   hpm diff [--sort EVENT] [--top N] [--json | --markdown] [-o FILE] OLD NEW
 */
#define _GNU_SOURCE /* strdup, asprintf */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog.h"
#include "report/count_report_read.h"
#include "diff/diff.h"
#include "fileio.h"
#include "flame/flame.h"
#include "formula.h"
#include "report/metrics.h"
#include "profile.h"

#define DIFF_MAX_INPUT (1ull << 30) /* a profile of a large program is tens of MB */

/* ------------------------------------------------------------ the model */

/* The index of name among the kinds, added when new; -1 when full. */
static int kind_add(struct diff *d, const char *name)
{
    int k = diff_kind(d, name);
    if (k >= 0)
        return k;
    if (d->n_kinds == DIFF_MAX_KINDS || !(d->kinds[d->n_kinds] = strdup(name)))
        return -1;
    return (int)d->n_kinds++;
}

static size_t hash_of(const char *key)
{
    size_t h = 5381;
    for (; *key; key++)
        h = h * 33 + (unsigned char)*key;
    return h;
}

/* The row keyed key, made when new (its values zero, on neither side). */
static struct diff_row *table_row(struct diff_table *t, unsigned n_kinds, const char *key)
{
    size_t i;
    if (2 * (t->n + 1) > t->hash_cap) {
        size_t cap = t->hash_cap ? 2 * t->hash_cap : 1024, j;
        size_t *nh = calloc(cap, sizeof *nh);
        if (!nh)
            return NULL;
        for (i = 0; i < t->n; i++) {
            for (j = hash_of(t->rows[i].key) & (cap - 1); nh[j]; j = (j + 1) & (cap - 1))
                ;
            nh[j] = i + 1;
        }
        free(t->hash);
        t->hash = nh;
        t->hash_cap = cap;
    }
    for (i = hash_of(key) & (t->hash_cap - 1); t->hash[i]; i = (i + 1) & (t->hash_cap - 1))
        if (strcmp(t->rows[t->hash[i] - 1].key, key) == 0)
            return &t->rows[t->hash[i] - 1];
    if (t->n == t->cap) {
        size_t nc = t->cap ? 2 * t->cap : 256;
        struct diff_row *nr = realloc(t->rows, nc * sizeof *nr);
        if (!nr)
            return NULL;
        t->rows = nr;
        t->cap = nc;
    }
    memset(&t->rows[t->n], 0, sizeof t->rows[t->n]);
    t->rows[t->n].key = strdup(key);
    t->rows[t->n].v[0] = calloc(2 * (size_t)(n_kinds ? n_kinds : 1), sizeof(uint64_t));
    if (!t->rows[t->n].key || !t->rows[t->n].v[0]) {
        free(t->rows[t->n].key);
        free(t->rows[t->n].v[0]);
        return NULL;
    }
    t->rows[t->n].v[1] = t->rows[t->n].v[0] + n_kinds;
    t->hash[i] = t->n + 1;
    return &t->rows[t->n++];
}

/* Adds v to side s (0 old, 1 new) of kind k of the row keyed key. */
static int table_add(struct diff *d, unsigned table, const char *key, int s, unsigned k,
                     uint64_t v)
{
    struct diff_row *r = table_row(&d->tables[table], d->n_kinds, key);
    if (!r)
        return -1;
    r->present[s] = 1;
    r->v[s][k] += v;
    return 0;
}

static void table_free(struct diff_table *t)
{
    size_t i;
    for (i = 0; i < t->n; i++) {
        free(t->rows[i].key);
        free(t->rows[i].v[0]);
    }
    free(t->rows);
    free(t->hash);
    t->rows = NULL;
    t->hash = NULL;
    t->n = t->cap = t->hash_cap = 0;
}

void diff_free(struct diff *d)
{
    unsigned i;
    for (i = 0; i < DIFF_N_TABLES; i++)
        table_free(&d->tables[i]);
    for (i = 0; i < d->n_kinds; i++)
        free(d->kinds[i]);
    memset(d, 0, sizeof *d);
}

/* ------------------------------------------------------------ input */

enum diff_input { IN_UNKNOWN, IN_COUNT, IN_PROFILE, IN_SAMPLES };

static enum diff_input input_kind(const char *text, size_t len)
{
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r'))
        i++;
    if (i < len && text[i] == '{')
        return IN_COUNT;
    if (len >= 8 && memcmp(text, "PERFILE2", 8) == 0)
        return IN_SAMPLES;
    if (strncmp(text, "# callgrind format", 18) == 0 || strncmp(text, "version:", 8) == 0 ||
        strncmp(text, "events:", 7) == 0 || strstr(text, "\nevents:"))
        return IN_PROFILE;
    return IN_UNKNOWN;
}

/* The reader's check of a file's first bytes: one of the three inputs. */
static int input_head(const char *head, size_t n)
{
    return input_kind(head, n) != IN_UNKNOWN;
}

/* A regular file of at most DIFF_MAX_INPUT bytes, whole, NUL-terminated;
 * NULL with a message naming the file (a FIFO or a device is refused
 * before anything is read, a file of another kind after its head). */
static char *read_input(const char *path, size_t *len, char *err, size_t errlen)
{
    char *text;
    return hpm_file_read(path, DIFF_MAX_INPUT, input_head,
                         "a count report (hpm count --json), a profile (hpm profile) or a "
                         "recording (hpm record)",
                         &text, len, err, errlen) == 0
               ? text
               : NULL;
}

/* One side's input, parsed, before the two are put side by side. */
struct side {
    const char *path;
    enum diff_input kind;
    struct count_report_doc rep; /* a count report */
    struct hpm_profile p, dp; /* a profile, and its data objects */
    int have_data;
    struct report_stack *st; /* a recording's stacks (hpm record), events each */
    size_t n_st;
    char event[128];         /* the recording's event */
    int data_file; /* look for PROFILE.data beside a profile */
};

static int parse_count(struct side *x, const char *text, size_t len, char *err, size_t errlen)
{
    char why[512];
    int rc = count_report_read(&x->rep, text, len, why, sizeof why);
    if (rc == -1) {
        snprintf(err, errlen, "%s: not a count report (%s)", x->path, why);
        return -1;
    }
    if (rc != 0) {
        snprintf(err, errlen, "%s: %s", x->path, why);
        return -1;
    }
    if (!x->rep.have_events) {
        snprintf(err, errlen, "%s: not a count report of hpm (no \"events\" list)", x->path);
        return -1;
    }
    return 0;
}

static int parse_profile(struct side *x, const char *text, size_t len, char *err, size_t errlen)
{
    char why[512], *name = NULL, *dtext;
    size_t dlen = 0;
    struct stat st;
    if (hpm_prof_read_callgrind(&x->p, text, len, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s: %s", x->path, why);
        return -1;
    }
    hpm_profile_finish(&x->p);
    if (!x->data_file)
        return 0;
    /* its data objects, when hpm profile wrote them beside it */
    if (asprintf(&name, "%s.data", x->path) < 0)
        return -1;
    if (stat(name, &st) == 0) {
        if (!(dtext = read_input(name, &dlen, err, errlen))) {
            free(name);
            return -1;
        }
        if (hpm_prof_read_callgrind(&x->dp, dtext, dlen, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s: %s", name, why);
            free(dtext);
            free(name);
            return -1;
        }
        hpm_profile_finish(&x->dp);
        x->have_data = 1;
        free(dtext);
    }
    free(name);
    return 0;
}

void diff_machine_of(struct diff_machine *dm, const struct count_report_doc *rep)
{
    snprintf(dm->name, sizeof dm->name, "%s", rep->out.machine);
    snprintf(dm->hash, sizeof dm->hash, "%s", rep->machine_hash ? rep->machine_hash : "");
    dm->cores = rep->out.cores;
    dm->frequency_hz = rep->out.frequency_hz;
}

/* The events' names of a count report, in its order. */
static unsigned count_events(const struct side *x)
{
    return x->rep.r.measured ? x->rep.r.n_measured : x->rep.r.n_rows;
}

static int fill_count(struct diff *d, int s, struct side *x)
{
    const struct vpmu_output *o = &x->rep.out;
    unsigned i, k;
    for (i = 0; i < count_events(x); i++) {
        const struct count_read_event *e = &x->rep.events[i];
        int dk = *e->name ? diff_kind(d, e->name) : -1;
        if (dk < 0)
            continue;
        if (e->measured)
            d->measured[dk] = 1;
        if (table_add(d, DIFF_TOTALS, e->name, s, (unsigned)dk, e->count) != 0)
            return -1;
    }
    d->frequency_hz[s] = (double)o->frequency_hz;
    diff_machine_of(&d->machine[s], &x->rep);
    for (i = 0; i < o->n_reg; i++)
        for (k = 0; k < HPM_K_COUNT; k++) {
            int dk = o->reg[i].k.have[k] ? diff_kind(d, hpm_catalog_kind(k)->name) : -1;
            if (dk >= 0 &&
                table_add(d, DIFF_REGIONS, o->reg[i].name, s, (unsigned)dk, o->reg[i].k.v[k]) != 0)
                return -1;
        }
    return 0;
}

/* An object as two builds of one program share it: the program itself
 * (whatever the build calls it) is "the program", any other object its
 * file name (libc.so.6), never a path. */
static const char *obj_key(const struct hpm_profile *p, const char *obj)
{
    const char *base = strrchr(obj, '/'), *cmd = p->command ? p->command : "";
    size_t n = strcspn(cmd, " "), b;
    const char *prog = cmd;
    base = base ? base + 1 : obj;
    /* the command's first word is the program as it was run (./a.out) */
    for (b = 0; b < n; b++)
        if (cmd[b] == '/')
            prog = cmd + b + 1;
    b = (size_t)(cmd + n - prog);
    return b && strlen(base) == b && strncmp(base, prog, b) == 0 ? "the program" : base;
}

/* A function's name for matching across builds: its name, the program's
 * own PLT stubs as the program's (their name carries its file name); the
 * object only where the name says nothing ("???"). */
static const char *fn_key(const struct hpm_profile *p, const struct hpm_prof_fn *f, char *buf,
                          size_t len)
{
    static const char stubs[] = "(PLT stubs of ";
    const char *name = p->strs[f->name];
    if (strncmp(name, stubs, sizeof stubs - 1) == 0) {
        char obj[256];
        snprintf(obj, sizeof obj, "%.*s", (int)strcspn(name + sizeof stubs - 1, ")"),
                 name + sizeof stubs - 1);
        snprintf(buf, len, "%s%s)", stubs, obj_key(p, obj));
        return buf;
    }
    if (strcmp(name, "???") != 0)
        return name;
    snprintf(buf, len, "??? [%s]", obj_key(p, p->strs[f->obj]));
    return buf;
}

/* The row keyed key on side s (made when new). */
static struct diff_row *side_row(struct diff *d, unsigned table, const char *key, int s)
{
    struct diff_row *r = table_row(&d->tables[table], d->n_kinds, key);
    if (r)
        r->present[s] = 1;
    return r;
}

/* Adds a cost's or call's values (dense or sparse) to a row's side s. */
static void add_values(struct diff_row *r, int s, const int *map, unsigned n_kinds,
                       const uint64_t *v, const struct hpm_prof_kv *kv, unsigned n_kv)
{
    unsigned i;
    if (v) {
        for (i = 0; i < n_kinds; i++)
            r->v[s][map[i]] += v[i];
    } else {
        for (i = 0; i < n_kv; i++)
            if (kv[i].kind < n_kinds)
                r->v[s][map[kv[i].kind]] += kv[i].value;
    }
}

/* hpm profile names the machine model in its creator line ("..., machine
 * NAME (...)"): profiles of two models are told apart by name. */
static void machine_of_profile(struct diff_machine *dm, const char *creator)
{
    const char *m = creator ? strstr(creator, ", machine ") : NULL;
    if (m)
        snprintf(dm->name, sizeof dm->name, "%.*s", (int)strcspn(m + 10, " "), m + 10);
}

static int fill_profile(struct diff *d, int s, struct side *x)
{
    const struct hpm_profile *p = &x->p;
    uint64_t sum[HPM_PROF_KINDS_MAX];
    const uint64_t *tot;
    int map[HPM_PROF_KINDS_MAX];
    unsigned i;
    size_t f, c;
    char key[4096], fb[512], cb[512];
    for (i = 0; i < p->n_kinds; i++)
        map[i] = diff_kind(d, p->kinds[i]);
    machine_of_profile(&d->machine[s], p->creator);
    hpm_profile_sum(p, sum);
    tot = p->have_totals ? p->totals : sum;
    for (i = 0; i < p->n_kinds; i++)
        if (table_add(d, DIFF_TOTALS, p->kinds[i], s, (unsigned)map[i], tot[i]) != 0)
            return -1;
    for (f = 0; f < p->n_fns; f++) {
        const struct hpm_prof_fn *fn = &p->fns[f];
        const char *name = fn_key(p, fn, fb, sizeof fb);
        /* one look-up per function, line and call: the rows of one table
         * move only when that table grows */
        struct diff_row *fr = side_row(d, DIFF_FUNCTIONS, name, s), *lr;
        if (!fr)
            return -1;
        for (c = 0; c < fn->n_costs; c++) {
            const struct hpm_prof_cost *cost = &fn->costs[c];
            add_values(fr, s, map, p->n_kinds, cost->v, cost->kv, cost->n_kv);
            if (!cost->line)
                continue;
            snprintf(key, sizeof key, "%s:%u", p->strs[cost->file], cost->line);
            if (!(lr = side_row(d, DIFF_LINES, key, s)))
                return -1;
            add_values(lr, s, map, p->n_kinds, cost->v, cost->kv, cost->n_kv);
        }
        for (c = 0; c < fn->n_calls; c++) {
            const struct hpm_prof_call *call = &fn->calls[c];
            snprintf(key, sizeof key, "%s > %s", name,
                     fn_key(p, &p->fns[call->callee], cb, sizeof cb));
            if (!(lr = side_row(d, DIFF_CALLS, key, s)))
                return -1;
            add_values(lr, s, map, p->n_kinds, call->v, call->kv, call->n_kv);
        }
    }
    return 0;
}

/* Data objects by allocation site (heap) or symbol (globals). */
static int fill_data(struct diff *d, int s, struct side *x)
{
    const struct hpm_profile *p = &x->dp;
    char key[4096];
    size_t f, c;
    unsigned i;
    for (f = 0; f < p->n_fns; f++) {
        const struct hpm_prof_fn *fn = &p->fns[f];
        unsigned line = fn->n_costs ? fn->costs[0].line : 0;
        if (fn->file)
            snprintf(key, sizeof key, "%s (%s:%u)", p->strs[fn->name], p->strs[fn->file], line);
        else /* globals by their object: the program's under any name */
            snprintf(key, sizeof key, "%s (%s)", p->strs[fn->name], obj_key(p, p->strs[fn->obj]));
        if (table_add(d, DIFF_DATA, key, s, 0, 0) != 0)
            return -1;
        for (c = 0; c < fn->n_costs; c++)
            for (i = 0; i < p->n_kinds; i++) {
                uint64_t v = hpm_prof_value(fn->costs[c].v, fn->costs[c].kv, fn->costs[c].n_kv, i);
                int k = diff_kind(d, p->kinds[i]);
                if (k >= 0 && v && table_add(d, DIFF_DATA, key, s, (unsigned)k, v) != 0)
                    return -1;
            }
    }
    return 0;
}

/* A recording (perf.data of hpm record): its stacks weighed by events
 * (samples times their period). Totals: the event's; functions: the leaf
 * frame's self events; call paths: each caller > callee pair's inclusive
 * events (once per stack). */
static int fill_samples(struct diff *d, int s, struct side *x)
{
    int k = diff_kind(d, x->event);
    size_t i;
    char key[4096];
    if (k < 0)
        return -1;
    if (!side_row(d, DIFF_TOTALS, x->event, s))
        return -1;
    for (i = 0; i < x->n_st; i++) {
        const char *t = x->st[i].text, *leaf = strrchr(t, ';'), *p = t, *prev = NULL;
        size_t prev_len = 0;
        struct diff_row *r;
        uint64_t v = x->st[i].n;
        if (!(r = side_row(d, DIFF_TOTALS, x->event, s)))
            return -1;
        r->v[s][k] += v;
        if (!(r = side_row(d, DIFF_FUNCTIONS, leaf ? leaf + 1 : t, s)))
            return -1;
        r->v[s][k] += v;
        while (*p) {
            size_t l = strcspn(p, ";");
            /* every frame's function ran in this recording, leaf or not */
            snprintf(key, sizeof key, "%.*s", (int)l, p);
            if (!side_row(d, DIFF_FUNCTIONS, key, s))
                return -1;
            if (prev) {
                snprintf(key, sizeof key, "%.*s > %.*s", (int)prev_len, prev, (int)l, p);
                if (!(r = side_row(d, DIFF_CALLS, key, s)))
                    return -1;
                r->v[s][k] += v;
            }
            prev = p;
            prev_len = l;
            p += l + (p[l] == ';');
        }
    }
    return 0;
}

int diff_load_texts(struct diff *d, const char *const names[2], const char *const texts[2],
                    const size_t lens[2], int data_files, char *err, size_t errlen)
{
    static const char *const titles[DIFF_N_TABLES] = {
        "totals", "regions", "functions (self)", "source lines", "call paths (inclusive)",
        "data objects (accesses that missed the L1D)"};
    struct side x[2];
    int s, rc = 0;
    unsigned i;
    memset(d, 0, sizeof *d);
    memset(x, 0, sizeof x);
    for (i = 0; i < DIFF_N_TABLES; i++)
        d->tables[i].title = titles[i];
    d->old_name = names[0];
    d->new_name = names[1];
    for (s = 0; s < 2; s++) {
        x[s].path = names[s];
        x[s].data_file = data_files;
        hpm_profile_init(&x[s].p);
        hpm_profile_init(&x[s].dp);
    }
    for (s = 0; s < 2 && rc == 0; s++) {
        x[s].kind = input_kind(texts[s], lens[s]);
        if (x[s].kind == IN_UNKNOWN) {
            snprintf(err, errlen,
                     "%s: not a count report (hpm count --json), a profile (hpm profile) or a "
                     "recording (hpm record)",
                     x[s].path);
            rc = -1;
        } else if (s == 1 && x[1].kind != x[0].kind) {
            static const char *const kinds[] = {"?", "count report", "profile", "recording"};
            snprintf(err, errlen, "%s is a %s, %s a %s: compare two of a kind", x[0].path,
                     kinds[x[0].kind], x[1].path, kinds[x[1].kind]);
            rc = -1;
        } else if (x[s].kind == IN_SAMPLES) {
            /* hpm report's loader reads and symbolizes the recording */
            char title[600];
            if (!data_files) {
                snprintf(err, errlen, "%s: a recording is read from its file", x[s].path);
                rc = -1;
            } else if (report_load_stacks(x[s].path, NULL, 1, &x[s].st, &x[s].n_st, title,
                                          sizeof title) != 0) {
                snprintf(err, errlen, "%s: cannot read the recording", x[s].path);
                rc = -1;
            } else {
                /* "EVENT of PATH" */
                const char *of = strstr(title, " of "), *ev = title;
                /* hpm record names its events hpm:KIND: the catalog's KIND */
                if (strncmp(ev, "hpm:", 4) == 0)
                    ev += 4;
                snprintf(x[s].event, sizeof x[s].event, "%.*s",
                         of ? (int)(of - ev) : (int)strlen(ev), ev);
            }
        } else {
            rc = x[s].kind == IN_COUNT ? parse_count(&x[s], texts[s], lens[s], err, errlen)
                                       : parse_profile(&x[s], texts[s], lens[s], err, errlen);
        }
    }
    /* the kinds of both sides, old's first, before any row is made */
    for (s = 0; s < 2 && rc == 0; s++) {
        if (x[s].kind == IN_SAMPLES) {
            if (kind_add(d, x[s].event) < 0)
                rc = -1;
        } else if (x[s].kind == IN_COUNT) {
            for (i = 0; i < count_events(&x[s]); i++)
                if (*x[s].rep.events[i].name && kind_add(d, x[s].rep.events[i].name) < 0)
                    rc = -1;
        } else {
            for (i = 0; i < x[s].p.n_kinds; i++)
                if (kind_add(d, x[s].p.kinds[i]) < 0)
                    rc = -1;
            for (i = 0; i < x[s].dp.n_kinds; i++)
                if (kind_add(d, x[s].dp.kinds[i]) < 0)
                    rc = -1;
        }
        if (rc)
            snprintf(err, errlen, "%s: more than %d events", x[s].path, DIFF_MAX_KINDS);
    }
    d->profiles = rc == 0 && (x[0].kind == IN_PROFILE || x[0].kind == IN_SAMPLES);
    d->samples = rc == 0 && x[0].kind == IN_SAMPLES;
    d->have_data = d->profiles && x[0].have_data && x[1].have_data;
    for (s = 0; s < 2 && rc == 0; s++) {
        if (x[s].kind == IN_COUNT)
            rc = fill_count(d, s, &x[s]);
        else if (x[s].kind == IN_SAMPLES)
            rc = fill_samples(d, s, &x[s]);
        else
            rc = fill_profile(d, s, &x[s]) || (d->have_data && fill_data(d, s, &x[s]));
        if (rc)
            snprintf(err, errlen, "out of memory");
    }
    for (s = 0; s < 2; s++) {
        size_t j;
        for (j = 0; j < x[s].n_st; j++)
            free(x[s].st[j].text);
        free(x[s].st);
        count_report_doc_free(&x[s].rep);
        hpm_profile_free(&x[s].p);
        hpm_profile_free(&x[s].dp);
    }
    if (rc)
        diff_free(d);
    return rc;
}

int diff_load(struct diff *d, const char *old_path, const char *new_path, char *err,
              size_t errlen)
{
    const char *names[2] = {old_path, new_path};
    char *texts[2] = {NULL, NULL};
    size_t lens[2] = {0, 0};
    int s, rc;
    memset(d, 0, sizeof *d);
    for (s = 0; s < 2; s++)
        if (!(texts[s] = read_input(names[s], &lens[s], err, errlen))) {
            free(texts[0]);
            return -1;
        }
    rc = diff_load_texts(d, names, (const char *const *)texts, lens, 1, err, errlen);
    free(texts[0]);
    free(texts[1]);
    return rc;
}

/* ------------------------------------------------------------ views */

void diff_percent_text(char *buf, size_t len, uint64_t old, uint64_t new_)
{
    double p = diff_percent(old, new_);
    if (isinf(p))
        snprintf(buf, len, "from 0");
    else if (old != new_ && fabs(p) < 0.01)
        snprintf(buf, len, "%+.2g%%", p); /* a change too small for two decimals */
    else
        snprintf(buf, len, "%+.2f%%", p);
}

double diff_percent(uint64_t old, uint64_t new_)
{
    if (old == 0)
        return new_ ? INFINITY : 0.0;
    return 100.0 * ((double)new_ - (double)old) / (double)old;
}

int diff_kind(const struct diff *d, const char *name)
{
    unsigned i;
    for (i = 0; i < d->n_kinds; i++)
        if (hpm_catalog_name_eq(name, strlen(name), d->kinds[i]))
            return (int)i;
    return -1;
}

int diff_machine_same(const struct diff_machine *a, const struct diff_machine *b)
{
    if (!a->name[0] || !b->name[0])
        return -1;
    /* the hash says whether the models are the same; older reports have
     * only the name, the cores and the clock */
    if (a->hash[0] && b->hash[0])
        return strcmp(a->hash, b->hash) == 0;
    return strcmp(a->name, b->name) == 0 && a->cores == b->cores &&
           a->frequency_hz == b->frequency_hz;
}

void diff_machine_text(const struct diff_machine *m, char *buf, size_t len)
{
    if (!m->cores) /* a profile names its model only */
        snprintf(buf, len, "%s", m->name);
    else
        snprintf(buf, len, "%s (%" PRIu64 " cores, %" PRIu64 " Hz%s%s)", m->name, m->cores,
                 m->frequency_hz, m->hash[0] ? ", hash " : "", m->hash);
}

int diff_same_machine(const struct diff *d, char *why, size_t len)
{
    char a[160], b[160];
    int same = diff_machine_same(&d->machine[0], &d->machine[1]);
    if (same == 0) {
        diff_machine_text(&d->machine[0], a, sizeof a);
        diff_machine_text(&d->machine[1], b, sizeof b);
        snprintf(why, len, "%s was counted on machine model %s, %s on %s", d->old_name, a,
                 d->new_name, b);
    }
    return same;
}

int diff_default_sort(const struct diff *d)
{
    const struct diff_table *t = &d->tables[DIFF_TOTALS];
    double best = -1, floor = 1000;
    int kind = 0, ins = diff_kind(d, "INSTRUCTIONS");
    size_t r;
    unsigned k;
    /* the modeled event whose total changed most, relatively, among those
     * large enough to matter (at least 0.1% of the instructions, or 1000):
     * an event going from 0 to 50 divides is not what changed most */
    for (r = 0; r < t->n && ins >= 0; r++)
        if (strcmp(t->rows[r].key, d->kinds[ins]) == 0) {
            uint64_t m = t->rows[r].v[0][ins] > t->rows[r].v[1][ins] ? t->rows[r].v[0][ins]
                                                                     : t->rows[r].v[1][ins];
            if ((double)m / 1000 > floor)
                floor = (double)m / 1000;
        }
    for (r = 0; r < t->n; r++)
        for (k = 0; k < d->n_kinds; k++) {
            uint64_t a = t->rows[r].v[0][k], b = t->rows[r].v[1][k];
            double p;
            if (a == b || d->measured[k] || strcmp(t->rows[r].key, d->kinds[k]) != 0 ||
                (double)(a > b ? a : b) < floor)
                continue;
            p = fabs(diff_percent(a, b));
            if (p > best) {
                best = p;
                kind = (int)k;
            }
        }
    if (best < 0 && ins >= 0)
        kind = ins; /* nothing large changed: instructions, the usual measure */
    return kind;
}

int diff_table_has(const struct diff *d, unsigned table, unsigned kind)
{
    size_t r;
    for (r = 0; r < d->tables[table].n; r++)
        if (d->tables[table].rows[r].v[0][kind] || d->tables[table].rows[r].v[1][kind])
            return 1;
    return 0;
}

static unsigned sort_kind;

static int cmp_change(const void *a, const void *b)
{
    const struct diff_row *x = *(const struct diff_row *const *)a,
                          *y = *(const struct diff_row *const *)b;
    double dx = fabs((double)x->v[1][sort_kind] - (double)x->v[0][sort_kind]),
           dy = fabs((double)y->v[1][sort_kind] - (double)y->v[0][sort_kind]);
    if (dx != dy)
        return dx < dy ? 1 : -1;
    return strcmp(x->key, y->key);
}

size_t diff_changes(const struct diff *d, unsigned table, unsigned kind,
                    const struct diff_row ***out)
{
    const struct diff_table *t = &d->tables[table];
    const struct diff_row **v = malloc((t->n ? t->n : 1) * sizeof *v);
    size_t i, n = 0;
    if (!v) {
        *out = NULL;
        return 0;
    }
    /* a row new or gone with none of this kind on either side is no
     * change of it (0 -> 0 is not "gone") */
    for (i = 0; i < t->n; i++)
        if (t->rows[i].v[0][kind] != t->rows[i].v[1][kind])
            v[n++] = &t->rows[i];
    sort_kind = kind;
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_change);
    *out = v;
    return n;
}

/* A total of kind k on side s: 1 and *v, or 0 when that side lacks it. */
static int total_of(const struct diff *d, int s, unsigned k, double *v)
{
    const struct diff_table *t = &d->tables[DIFF_TOTALS];
    size_t r;
    for (r = 0; r < t->n; r++)
        if (strcmp(t->rows[r].key, d->kinds[k]) == 0 && t->rows[r].present[s]) {
            *v = (double)t->rows[r].v[s][k];
            return 1;
        }
    return 0;
}

int diff_metric(const struct diff *d, unsigned i, double out[2])
{
    struct hpm_formula f;
    double vars[HPM_FORMULA_MAX_VARS];
    unsigned var;
    int s;
    if (hpm_metric_compile(i, &f, NULL, 0) != 0)
        return -1;
    for (s = 0; s < 2; s++) {
        memset(vars, 0, sizeof vars);
        for (var = 0; var < HPM_K_COUNT; var++) {
            const struct hpm_cat_kind_info *info;
            int k;
            if (!hpm_formula_uses(&f, var))
                continue;
            info = hpm_catalog_kind(var);
            if (!info || (k = diff_kind(d, info->name)) < 0 ||
                !total_of(d, s, (unsigned)k, &vars[var]))
                return -1;
        }
        if (hpm_formula_uses(&f, HPM_METRIC_VAR_FREQUENCY)) {
            if (!d->frequency_hz[s])
                return -1;
            vars[HPM_METRIC_VAR_FREQUENCY] = d->frequency_hz[s];
        }
        if (hpm_formula_eval(&f, vars, HPM_FORMULA_MAX_VARS, &out[s]) != 0)
            return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ the gate */

int diff_limit_parse(const char *s, struct diff_limit *l, char *err, size_t errlen)
{
    const char *colon = strrchr(s, ':'), *at = strchr(s, '@');
    char *end;
    size_t kl;
    memset(l, 0, sizeof *l);
    l->text = s;
    if (!colon || colon == s) {
        snprintf(err, errlen, "limit '%s': give KIND[@SCOPE]:+P%%, :~P%% or :N", s);
        return -1;
    }
    if (at && at > colon)
        at = NULL;
    kl = (size_t)((at ? at : colon) - s);
    if (kl == 0 || kl >= sizeof l->kind || (at && (size_t)(colon - at - 1) >= sizeof l->scope) ||
        (at && colon == at + 1)) {
        snprintf(err, errlen, "limit '%s': an event name, then @SCOPE (optional), then ':'", s);
        return -1;
    }
    memcpy(l->kind, s, kl);
    if (at)
        memcpy(l->scope, at + 1, (size_t)(colon - at - 1));
    colon++;
    if ((*colon == '+' || *colon == '~') && colon[strlen(colon) - 1] == '%') {
        l->both_ways = *colon == '~';
        errno = 0;
        l->percent = strtod(colon + 1, &end);
        if (errno || end != colon + strlen(colon) - 1 || l->percent < 0 || isnan(l->percent)) {
            snprintf(err, errlen, "limit '%s': '%s' is not a percentage such as +1%%", s, colon);
            return -1;
        }
        return 0;
    }
    if (*colon == '+' || *colon == '~') {
        /* +1 is not 1: a soft limit is a percentage, a hard one unsigned */
        snprintf(err, errlen,
                 "limit '%s': '%s' has a sign but no '%%': give %s%s%% (a percentage of OLD) "
                 "or %s (a hard limit on NEW)",
                 s, colon, *colon == '+' ? "+" : "~", colon + 1, colon + 1);
        return -1;
    }
    errno = 0;
    l->max = strtoull(colon, &end, 10);
    if (errno || *end || !*colon || *colon == '-') {
        snprintf(err, errlen, "limit '%s': '%s' is neither +P%% nor a number", s, colon);
        return -1;
    }
    l->hard = 1;
    return 0;
}

static const struct diff_row *find_row(const struct diff *d, unsigned table, const char *key)
{
    const struct diff_table *t = &d->tables[table];
    size_t r;
    for (r = 0; r < t->n; r++)
        if (strcmp(t->rows[r].key, key) == 0)
            return &t->rows[r];
    return NULL;
}

static unsigned scope_table(const struct diff *d, const struct diff_limit *l)
{
    return !l->scope[0] ? DIFF_TOTALS : d->profiles ? DIFF_FUNCTIONS : DIFF_REGIONS;
}

static const char *side_name(const struct diff *d, int s)
{
    return s ? d->new_name : d->old_name;
}

int diff_counted(const struct diff *d, int s, unsigned k)
{
    const struct diff_row *r = find_row(d, DIFF_TOTALS, d->kinds[k]);
    return r && r->present[s];
}

int diff_has_scope(const struct diff *d, int s, const char *scope)
{
    const struct diff_row *r = find_row(d, d->profiles ? DIFF_FUNCTIONS : DIFF_REGIONS, scope);
    return r && r->present[s];
}

/* Whether limit l on kind k (row r, its scope's) can be judged: a soft
 * limit compares both sides, a hard one reads NEW's. NULL, or why not. */
static const char *why_not_comparable(const struct diff *d, const struct diff_limit *l, unsigned k,
                                      const struct diff_row *r, char *buf, size_t len)
{
    int s;
    for (s = l->hard ? 1 : 0; s < 2; s++)
        if (!diff_counted(d, s, k)) {
            if (diff_counted(d, !s, k))
                snprintf(buf, len, "%s did not count %s (%s did)", side_name(d, s), d->kinds[k],
                         side_name(d, !s));
            else
                snprintf(buf, len, "%s did not count %s", side_name(d, s), d->kinds[k]);
            return buf;
        } else if (l->scope[0] && !r->present[s]) {
            snprintf(buf, len, "%s has no %s '%s'", side_name(d, s),
                     d->profiles ? "function" : "region", l->scope);
            return buf;
        }
    return NULL;
}

/* The functions behind a profile's total exceeded: the largest increases
 * of kind k. */
static void say_functions(FILE *f, const struct diff *d, unsigned k)
{
    const struct diff_row **rows;
    size_t m = diff_changes(d, DIFF_FUNCTIONS, k, &rows), j, said = 0;
    for (j = 0; j < m && said < 5; j++)
        if (rows[j]->v[1][k] > rows[j]->v[0][k]) {
            fprintf(f, "hpm:   %s +%" PRIu64 "%s\n", rows[j]->key,
                    rows[j]->v[1][k] - rows[j]->v[0][k], !rows[j]->present[0] ? " (new)" : "");
            said++;
        }
    free(rows);
}

/* Limit l on kind k over row r, both sides comparable: 1 exceeded (said
 * to f), 0 held. */
static int judge(FILE *f, const struct diff *d, const struct diff_limit *l, unsigned k,
                 const struct diff_row *r)
{
    uint64_t a = r->v[0][k], b = r->v[1][k];
    int over = l->hard ? b > l->max
                       : (double)b > (double)a * (1 + l->percent / 100) ||
                             (l->both_ways && (double)b < (double)a * (1 - l->percent / 100));
    if (!over)
        return 0;
    if (l->hard) {
        fprintf(f, "hpm: regression: %s: %s%s%s is %" PRIu64 ", over the limit %" PRIu64 "\n",
                l->text, d->kinds[k], l->scope[0] ? " in " : "", l->scope, b, l->max);
    } else {
        char pct[32];
        diff_percent_text(pct, sizeof pct, a, b);
        fprintf(f,
                "hpm: %s: %s: %s%s%s went from %" PRIu64 " to %" PRIu64 " (%s), more than %s%g%%\n",
                b < a ? "changed" : "regression", l->text, d->kinds[k], l->scope[0] ? " in " : "",
                l->scope, a, b, pct, l->both_ways ? "±" : "+", l->percent);
    }
    if (d->profiles && !l->scope[0])
        say_functions(f, d, k);
    return 1;
}

/* Appends a kind's name to a list of at most 8 shown names. */
static void list_add(char *buf, size_t len, unsigned *n, const char *name)
{
    size_t at = strlen(buf);
    if ((*n)++ < 8 && at < len)
        snprintf(buf + at, len - at, " %s", name);
}

static void list_end(char *buf, size_t len, unsigned n)
{
    size_t at = strlen(buf);
    if (n > 8 && at < len)
        snprintf(buf + at, len - at, " and %u more", n - 8);
}

/* A '*' limit: every modeled event, each judged as a limit of its own;
 * events counted on one side only are not comparable, unstable ones not
 * gated, each group said in one line. 0, or -1 (no such scope). */
static int gate_every(FILE *f, const struct diff *d, const struct diff_limit *l,
                      struct diff_verdict *v, char *err, size_t errlen)
{
    const struct diff_row *scoped = NULL;
    char one_side[600] = "", unstable[600] = "", why[400];
    unsigned k, n_one = 0, n_unstable = 0;
    if (l->scope[0]) {
        if (!(scoped = find_row(d, scope_table(d, l), l->scope))) {
            snprintf(err, errlen, "limit '%s': no %s '%s' in either run", l->text,
                     d->profiles ? "function" : "region", l->scope);
            return -1;
        }
        if (!scoped->present[0] || !scoped->present[1]) {
            fprintf(f, "hpm: not comparable: %s: %s has no %s '%s'\n", l->text,
                    side_name(d, !scoped->present[1]), d->profiles ? "function" : "region",
                    l->scope);
            v->not_comparable++;
            return 0;
        }
    }
    for (k = 0; k < d->n_kinds; k++) {
        const struct diff_row *r = scoped ? scoped : find_row(d, DIFF_TOTALS, d->kinds[k]);
        if (d->measured[k] || !r)
            continue;
        if (d->unstable[k]) {
            list_add(unstable, sizeof unstable, &n_unstable, d->kinds[k]);
            v->not_gated++;
        } else if (why_not_comparable(d, l, k, r, why, sizeof why)) {
            list_add(one_side, sizeof one_side, &n_one, d->kinds[k]);
            v->not_comparable++;
        } else if (judge(f, d, l, k, r)) {
            v->exceeded++;
        } else {
            v->held++;
        }
    }
    list_end(unstable, sizeof unstable, n_unstable);
    list_end(one_side, sizeof one_side, n_one);
    if (n_unstable)
        fprintf(f, "hpm: %s not gated for %u event%s that differ between identical runs:%s\n",
                l->text, n_unstable, n_unstable == 1 ? "" : "s", unstable);
    if (n_one)
        fprintf(f, "hpm: not comparable: %s: %u event%s counted by one side only:%s\n", l->text,
                n_one, n_one == 1 ? "" : "s", one_side);
    return 0;
}

int diff_gate(FILE *f, const struct diff *d, const struct diff_limit *l, unsigned n,
              struct diff_verdict *v, char *err, size_t errlen)
{
    unsigned i;
    memset(v, 0, sizeof *v);
    for (i = 0; i < n; i++) {
        const struct diff_row *r;
        const char *why;
        char buf[400];
        int k;
        if (strcmp(l[i].kind, "*") == 0) {
            if (gate_every(f, d, &l[i], v, err, errlen) != 0)
                return -1;
            continue;
        }
        k = diff_kind(d, l[i].kind);
        if (k < 0 || (!diff_counted(d, 0, (unsigned)k) && !diff_counted(d, 1, (unsigned)k))) {
            snprintf(err, errlen, "limit '%s': neither run counted %s", l[i].text, l[i].kind);
            return -1;
        }
        r = find_row(d, scope_table(d, &l[i]), l[i].scope[0] ? l[i].scope : d->kinds[k]);
        if (!r) {
            snprintf(err, errlen, "limit '%s': no %s '%s' in either run", l[i].text,
                     d->profiles ? "function" : "region", l[i].scope);
            return -1;
        }
        if (d->unstable[k]) {
            fprintf(f, "hpm: %s not gated: %s differs between identical runs\n", l[i].text,
                    d->kinds[k]);
            v->not_gated++;
        } else if ((why = why_not_comparable(d, &l[i], (unsigned)k, r, buf, sizeof buf))) {
            fprintf(f, "hpm: not comparable: %s: %s\n", l[i].text, why);
            v->not_comparable++;
        } else if (judge(f, d, &l[i], (unsigned)k, r)) {
            v->exceeded++;
        } else {
            v->held++;
        }
    }
    return 0;
}

int diff_verdict_status(const struct diff_verdict *v)
{
    return v->exceeded ? GATE_REGRESSION : v->not_comparable ? GATE_NOT_COMPARABLE : GATE_PASS;
}
