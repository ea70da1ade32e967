/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * c2c.c - the contended cache lines of a profile (profile.h, "c2c"): the
 * parser of the tool's prof_c2c records (c2c_internal.h) and hpm profile's
 * c2c view, the view `perf c2c` gives from sampled HITM loads, here exact:
 * per line its coherence misses and invalidations, which cores (threads)
 * touched which bytes, and whether the sharing is true (a core's bytes
 * overlap bytes another core wrote) or false (the cores' bytes are
 * disjoint), with the line's data object.
 */
#define _GNU_SOURCE /* strndup */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c2c_internal.h"
#include "json.h"
#include "profile.h"
#include "profile_util.h"
#include "vpmu_format.h"
#include "vpmufile.h"

/* ------------------------------------------------------------- records */

/* The next field of [*q, eol) as a number of base 10 or 16 (vpmufile.h):
 * -1 when there is none or it is not one. */
static int number(const char **q, const char *eol, int base, uint64_t *v)
{
    const char *f;
    size_t n;
    return vpmu_field(q, eol, &f, &n) && vpmu_number(f, n, base, v) == 0 ? 0 : -1;
}

static int at_end(const char *q, const char *eol)
{
    while (q < eol && *q == ' ')
        q++;
    return q >= eol;
}

int hpm__c2c_record(struct hpm_prof_records *r, const char *rec, size_t recn, const char *q,
                    const char *eol)
{
    struct hpm_prof_c2c *c = &r->c2c;
    if (vpmu_word_is(rec, recn, VPMU_REC_PROF_C2C_LINES)) {
        if (c->present || number(&q, eol, 10, &c->kept) || number(&q, eol, 10, &c->dropped) ||
            !at_end(q, eol))
            return -1;
        c->present = 1;
        return 1;
    }
    if (vpmu_word_is(rec, recn, VPMU_REC_PROF_C2C)) {
        struct hpm_prof_c2c_line l, *nl;
        uint64_t bytes, granule, obj;
        const char *k;
        size_t kn;
        memset(&l, 0, sizeof l);
        /* after prof_c2c_lines, each line once, at most the lines kept */
        if (!c->present || c->n_lines >= c->kept || number(&q, eol, 16, &l.addr) ||
            number(&q, eol, 10, &bytes) || number(&q, eol, 10, &granule) ||
            number(&q, eol, 10, &l.coh_misses) || number(&q, eol, 10, &l.invalidations) ||
            !vpmu_field(&q, eol, &k, &kn) ||
            !(vpmu_word_is(k, kn, "heap") || vpmu_word_is(k, kn, "global") ||
              vpmu_word_is(k, kn, "stack") || vpmu_word_is(k, kn, "other")) ||
            number(&q, eol, 16, &l.where) || number(&q, eol, 16, &l.from) ||
            number(&q, eol, 10, &obj) || number(&q, eol, 16, &l.start) || !at_end(q, eol))
            return -1;
        /* a line of 1 to 2^16 bytes (a power of two), 64 granules at most
         * (the masks' bits), aligned */
        if (bytes == 0 || bytes > 65536 || (bytes & (bytes - 1)) || granule == 0 ||
            granule > bytes || (granule & (granule - 1)) || bytes / granule > 64 ||
            (l.addr & (bytes - 1)) || (obj != 0 && (obj >= r->n_objects || !r->objects[obj].path)))
            return -1;
        for (size_t i = 0; i < c->n_lines; i++)
            if (c->lines[i].addr == l.addr)
                return -1;
        memcpy(l.kind, k, kn);
        l.bytes = (unsigned)bytes;
        l.granule = (unsigned)granule;
        l.obj = (unsigned)obj;
        l.core = c->n_cores;
        nl = hpm__grow(c->lines, &c->cap_lines, c->n_lines + 1, sizeof *nl);
        if (!nl)
            return -2;
        c->lines = nl;
        c->lines[c->n_lines++] = l;
        return 1;
    }
    if (vpmu_word_is(rec, recn, VPMU_REC_PROF_C2C_CORE)) {
        struct hpm_prof_c2c_core x, *nc;
        struct hpm_prof_c2c_line *l;
        uint64_t addr, core, all;
        memset(&x, 0, sizeof x);
        /* the cores of the line just given, each once, in order */
        if (!c->n_lines || number(&q, eol, 16, &addr) || number(&q, eol, 10, &core) ||
            number(&q, eol, 16, &x.read) || number(&q, eol, 16, &x.written) ||
            number(&q, eol, 10, &x.coh_misses) || number(&q, eol, 10, &x.true_misses) ||
            number(&q, eol, 10, &x.invalidations) || !at_end(q, eol) ||
            x.true_misses > x.coh_misses)
            return -1;
        l = &c->lines[c->n_lines - 1];
        all = l->bytes / l->granule == 64 ? ~(uint64_t)0 : ((uint64_t)1 << (l->bytes / l->granule)) - 1;
        if (addr != l->addr || core >= 1u << 16 || ((x.read | x.written) & ~all) ||
            (l->n_cores && c->cores[c->n_cores - 1].core >= core))
            return -1;
        x.core = (unsigned)core;
        nc = hpm__grow(c->cores, &c->cap_cores, c->n_cores + 1, sizeof *nc);
        if (!nc)
            return -2;
        c->cores = nc;
        c->cores[c->n_cores++] = x;
        l->n_cores++;
        return 1;
    }
    return 0;
}

int hpm__c2c_thread(struct hpm_prof_c2c *c, const char *q, const char *eol)
{
    uint64_t t, core;
    const char *f;
    size_t n;
    struct hpm_prof_c2c_thread *nt;
    if (number(&q, eol, 10, &t) || !vpmu_field(&q, eol, &f, &n) ||
        !vpmu_word_is(f, n, VPMU_THREAD_WORD_CORE) || number(&q, eol, 10, &core) ||
        !at_end(q, eol) || t > UINT32_MAX || core > UINT32_MAX)
        return 0; /* not this kind of thread record: the output parser's */
    nt = hpm__grow(c->threads, &c->cap_threads, c->n_threads + 1, sizeof *nt);
    if (!nt)
        return -2;
    c->threads = nt;
    c->threads[c->n_threads++] = (struct hpm_prof_c2c_thread){(unsigned)t, (unsigned)core};
    return 0;
}

void hpm__c2c_free(struct hpm_prof_c2c *c)
{
    free(c->lines);
    free(c->cores);
    free(c->threads);
    memset(c, 0, sizeof *c);
}

/* -------------------------------------------------------------- report */

struct c2c_core {
    unsigned core;
    char *threads; /* "2" or "2,5", "" when no thread record names the core */
    uint64_t read, written, coh_misses, true_misses, invalidations;
};

struct c2c_entry {
    uint64_t pid, addr;
    unsigned bytes, granule;
    uint64_t coh_misses, invalidations;
    const char *kind;
    char *object; /* its name: a variable, a heap block's allocation site */
    char *file;   /* global: the object file holding it; heap: the site's source */
    int64_t offset; /* of the line's lowest touched byte in the object (has_offset) */
    int has_offset;
    uint64_t true_misses; /* of coh_misses: true sharing */
    int sharing; /* 1 true (most misses true sharing), 0 false */
    struct c2c_core *cores;
    unsigned n_cores;
};

struct hpm_c2c_report {
    struct c2c_entry *e;
    size_t n, cap;
    int present;
    uint64_t kept, dropped;
    uint64_t quiet; /* lines kept with invalidations but no coherence miss */
};

struct hpm_c2c_report *hpm_c2c_report_new(void)
{
    return calloc(1, sizeof(struct hpm_c2c_report));
}

static unsigned object_at(const struct hpm_prof_records *r, uint64_t a)
{
    unsigned i;
    for (i = 1; i < r->n_objects; i++)
        if (r->objects[i].path && a >= r->objects[i].start && a <= r->objects[i].end)
            return i;
    return 0;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* A function's name at addr (or its address in hex into buf). */
static const char *fn_at(const struct hpm_prof_records *r, struct hpm_symbols *syms, uint64_t a,
                         struct hpm_sym *s, char *buf, size_t len)
{
    unsigned o = object_at(r, a);
    memset(s, 0, sizeof *s);
    if (o && syms && hpm_symbols_lookup(syms, &r->objects[o], a, s) == 0 && s->fn)
        return s->fn;
    snprintf(buf, len, "0x%" PRIx64, a);
    return buf;
}

static void name_object(struct c2c_entry *e, const struct hpm_prof_c2c_line *l,
                        const struct hpm_prof_records *r, struct hpm_symbols *syms,
                        uint64_t low, char **name, char **file)
{
    char buf[64], buf2[64], *n = NULL, *f = NULL;
    if (strcmp(l->kind, "heap") == 0) {
        struct hpm_sym at, by;
        const char *fn = fn_at(r, syms, l->where, &at, buf, sizeof buf);
        if (l->from) {
            const char *caller = fn_at(r, syms, l->from, &by, buf2, sizeof buf2);
            if (asprintf(&n, "heap block from %s <- %s", fn, caller) < 0)
                n = NULL;
        } else if (asprintf(&n, "heap block from %s", fn) < 0) {
            n = NULL;
        }
        if (at.file && asprintf(&f, "%s:%u", at.file, at.line) < 0)
            f = NULL;
        if (l->start) {
            e->offset = (int64_t)(low - l->start);
            e->has_offset = 1;
        }
    } else if (strcmp(l->kind, "global") == 0) {
        const char *sym = NULL;
        uint64_t start = l->where;
        if (l->obj && syms &&
            hpm_symbols_data(syms, &r->objects[l->obj], l->where, &sym, &start) == 0 && sym) {
            n = strdup(sym);
            e->offset = (int64_t)(low - start);
            e->has_offset = 1;
        } else if (asprintf(&n, "(data without a symbol at 0x%" PRIx64 ")", l->where) < 0) {
            n = NULL;
        }
        if (l->obj)
            f = strdup(base_name(r->objects[l->obj].path));
    } else {
        n = strdup(strcmp(l->kind, "stack") == 0 ? "[stack]" : "[other]");
    }
    *name = n;
    *file = f;
}

/* Threads that ran on core, from the thread records: "2,5". */
static char *threads_of(const struct hpm_prof_c2c *c, unsigned core)
{
    char *s = NULL;
    size_t len = 0, i;
    FILE *m = open_memstream(&s, &len);
    int first = 1;
    if (!m)
        return NULL;
    for (i = 0; i < c->n_threads; i++)
        if (c->threads[i].core == core) {
            fprintf(m, "%s%u", first ? "" : ",", c->threads[i].serial);
            first = 0;
        }
    if (fclose(m) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

int hpm_c2c_report_add(struct hpm_c2c_report *c, const struct hpm_prof_records *r,
                       struct hpm_symbols *syms, uint64_t pid)
{
    const struct hpm_prof_c2c *x = &r->c2c;
    size_t i;
    unsigned k;
    if (!x->present)
        return 0;
    c->present = 1;
    c->kept += x->kept;
    c->dropped += x->dropped;
    for (i = 0; i < x->n_lines; i++) {
        const struct hpm_prof_c2c_line *l = &x->lines[i];
        struct c2c_entry *e, *ne;
        uint64_t touched = 0;
        unsigned low = 0;
        if (!l->coh_misses) {
            /* invalidated, never missed again: no traffic to show */
            c->quiet++;
            continue;
        }
        ne = hpm__grow(c->e, &c->cap, c->n + 1, sizeof *ne);
        if (!ne)
            return -1;
        c->e = ne;
        e = &c->e[c->n];
        memset(e, 0, sizeof *e);
        e->pid = pid;
        e->addr = l->addr;
        e->bytes = l->bytes;
        e->granule = l->granule;
        e->coh_misses = l->coh_misses;
        e->invalidations = l->invalidations;
        e->kind = strcmp(l->kind, "heap") == 0     ? "heap"
                  : strcmp(l->kind, "global") == 0 ? "global"
                  : strcmp(l->kind, "stack") == 0  ? "stack"
                                                   : "other";
        e->cores = calloc(l->n_cores ? l->n_cores : 1, sizeof *e->cores);
        if (!e->cores)
            return -1;
        c->n++; /* from here on freed with the report */
        e->n_cores = l->n_cores;
        for (k = 0; k < l->n_cores; k++) {
            const struct hpm_prof_c2c_core *pc = &x->cores[l->core + k];
            struct c2c_core *o = &e->cores[k];
            o->core = pc->core;
            o->read = pc->read;
            o->written = pc->written;
            o->coh_misses = pc->coh_misses;
            o->true_misses = pc->true_misses;
            o->invalidations = pc->invalidations;
            e->true_misses += pc->true_misses;
            o->threads = threads_of(x, pc->core);
            if (!o->threads)
                return -1;
            touched |= pc->read | pc->written;
        }
        /* the line's verdict: what most of its misses were (each miss
         * classified by the model when it happened) */
        e->sharing = e->true_misses * 2 > e->coh_misses;
        while (low < 63 && !(touched >> low & 1))
            low++;
        name_object(e, l, r, syms, l->addr + (uint64_t)low * l->granule, &e->object, &e->file);
        if (!e->object)
            return -1;
    }
    return 0;
}

static int cmp_entry(const void *a, const void *b)
{
    const struct c2c_entry *x = a, *y = b;
    if (x->coh_misses != y->coh_misses)
        return x->coh_misses > y->coh_misses ? -1 : 1;
    if (x->invalidations != y->invalidations)
        return x->invalidations > y->invalidations ? -1 : 1;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

size_t hpm_c2c_report_lines(const struct hpm_c2c_report *c, int *present, uint64_t *dropped,
                            size_t *false_sharing)
{
    size_t i, f = 0;
    for (i = 0; i < c->n; i++)
        f += c->e[i].sharing == 0;
    if (present)
        *present = c->present;
    if (dropped)
        *dropped = c->dropped;
    if (false_sharing)
        *false_sharing = f;
    return c->n;
}

static const char *sharing_word(int s)
{
    return s ? "true" : "false";
}

/* The granules set in m as byte ranges of the line: "0-7,16-23" ("-"
 * when none); json: as [[0,7],[16,23]]. */
static void ranges(FILE *f, uint64_t m, unsigned granule, unsigned bits, int json)
{
    unsigned i = 0, n = 0;
    if (json)
        fputc('[', f);
    while (i < bits) {
        unsigned j;
        if (!(m >> i & 1)) {
            i++;
            continue;
        }
        for (j = i; j + 1 < bits && (m >> (j + 1) & 1); j++)
            ;
        if (json)
            fprintf(f, "%s[%u,%u]", n ? "," : "", i * granule, (j + 1) * granule - 1);
        else
            fprintf(f, "%s%u-%u", n ? "," : "", i * granule, (j + 1) * granule - 1);
        n++;
        i = j + 1;
    }
    if (json)
        fputc(']', f);
    else if (!n)
        fputc('-', f);
}

static void sort_entries(const struct hpm_c2c_report *c)
{
    if (c->n > 1)
        qsort(c->e, c->n, sizeof *c->e, cmp_entry);
}

int hpm_c2c_report_write_text(const struct hpm_c2c_report *c, FILE *f)
{
    size_t i, nf = 0, nt = 0;
    unsigned k;
    sort_entries(c);
    for (i = 0; i < c->n; i++) {
        nf += c->e[i].sharing == 0;
        nt += c->e[i].sharing != 0;
    }
    fprintf(f, "# hpm profile: shared cache lines (c2c), exact: the node model's coherence misses "
               "and invalidations per L1D line (modeled)\n");
    fprintf(f, "# lines with coherence misses %zu (false sharing %zu, true sharing %zu); lines "
               "only invalidated %" PRIu64 "; lines the model could not keep %" PRIu64 "\n",
            c->n, nf, nt, c->quiet, c->dropped);
    fprintf(f, "# a coherence miss is true sharing when the bytes it accesses are bytes "
               "another core stored since this core's previous miss on the line, else false "
               "sharing; a line's verdict is what most of its misses were\n");
    fprintf(f, "# bytes: offsets in the line of the bytes each core's accesses that moved the "
               "line read and wrote\n");
    for (i = 0; i < c->n; i++) {
        const struct c2c_entry *e = &c->e[i];
        fprintf(f, "\nline 0x%" PRIx64 " (%u bytes, pid %" PRIu64 ")  %s sharing  coherence misses %" PRIu64
                   " (true sharing %" PRIu64 ")  invalidations %" PRIu64 "\n",
                e->addr, e->bytes, e->pid, e->sharing ? "TRUE" : "FALSE", e->coh_misses,
                e->true_misses, e->invalidations);
        fprintf(f, "  object %s: %s", e->kind, e->object);
        if (e->has_offset)
            fprintf(f, " %s %" PRId64, e->offset < 0 ? "-" : "+",
                    e->offset < 0 ? -e->offset : e->offset);
        if (e->file)
            fprintf(f, " (%s)", e->file);
        fputc('\n', f);
        for (k = 0; k < e->n_cores; k++) {
            const struct c2c_core *o = &e->cores[k];
            fprintf(f, "  core %u (thread%s %s)  read ", o->core,
                    strchr(o->threads, ',') ? "s" : "", o->threads[0] ? o->threads : "-");
            ranges(f, o->read, e->granule, e->bytes / e->granule, 0);
            fputs("  wrote ", f);
            ranges(f, o->written, e->granule, e->bytes / e->granule, 0);
            fprintf(f, "  coherence misses %" PRIu64 " (true sharing %" PRIu64
                       ")  invalidations %" PRIu64 "\n",
                    o->coh_misses, o->true_misses, o->invalidations);
        }
    }
    return ferror(f) ? -1 : 0;
}

int hpm_c2c_report_write_json(const struct hpm_c2c_report *c, FILE *f)
{
    size_t i, nf = 0;
    unsigned k;
    sort_entries(c);
    hpm_c2c_report_lines(c, NULL, NULL, &nf);
    fprintf(f, "{\"c2c\":{\"source\":\"modeled\",\"lines_listed\":%zu,\"false_sharing\":%zu,"
               "\"lines_only_invalidated\":%" PRIu64 ",\"lines_not_kept\":%" PRIu64 ",\"lines\":[",
            c->n, nf, c->quiet, c->dropped);
    for (i = 0; i < c->n; i++) {
        const struct c2c_entry *e = &c->e[i];
        fprintf(f, "%s\n{\"pid\":%" PRIu64 ",\"address\":\"0x%" PRIx64 "\",\"bytes\":%u,"
                   "\"coherence_misses\":%" PRIu64 ",\"true_sharing_misses\":%" PRIu64
                   ",\"invalidations\":%" PRIu64
                   ",\"sharing\":\"%s\",\"object\":{\"kind\":\"%s\",\"name\":",
                i ? "," : "", e->pid, e->addr, e->bytes, e->coh_misses, e->true_misses,
                e->invalidations, sharing_word(e->sharing), e->kind);
        hpm_json_string(f, e->object);
        if (e->has_offset)
            fprintf(f, ",\"offset\":%" PRId64, e->offset);
        if (e->file) {
            fputs(",\"file\":", f);
            hpm_json_string(f, e->file);
        }
        fputs("},\"cores\":[", f);
        for (k = 0; k < e->n_cores; k++) {
            const struct c2c_core *o = &e->cores[k];
            fprintf(f, "%s{\"core\":%u,\"threads\":[%s],\"read\":", k ? "," : "", o->core,
                    o->threads);
            ranges(f, o->read, e->granule, e->bytes / e->granule, 1);
            fputs(",\"written\":", f);
            ranges(f, o->written, e->granule, e->bytes / e->granule, 1);
            fprintf(f,
                    ",\"coherence_misses\":%" PRIu64 ",\"true_sharing_misses\":%" PRIu64
                    ",\"invalidations\":%" PRIu64 "}",
                    o->coh_misses, o->true_misses, o->invalidations);
        }
        fputs("]}", f);
    }
    fputs("\n]}}\n", f);
    return ferror(f) ? -1 : 0;
}

void hpm_c2c_report_free(struct hpm_c2c_report *c)
{
    size_t i;
    unsigned k;
    if (!c)
        return;
    for (i = 0; i < c->n; i++) {
        for (k = 0; k < c->e[i].n_cores; k++)
            free(c->e[i].cores[k].threads);
        free(c->e[i].cores);
        free(c->e[i].object);
        free(c->e[i].file);
    }
    free(c->e);
    free(c);
}
