/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * recording.c - a recording read for hpm report (a perf.data file: hpm
 * record's, or perf record's with the same sample fields; src/perfdata):
 * its event picked, every sample's call chain symbolized against its
 * process's mappings (src/profile, libdwfl) into collapsed stacks ("main;f;g
 * N", root first), and a sample's data object named.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "flame/flame.h"
#include "flame/recording.h"
#include "perfdata.h"
#include "profile.h"

/* A perf.data file begins with its magic. */
static int perfdata_head(const char *head, size_t n)
{
    return n >= 8 && memcmp(head, "PERFILE2", 8) == 0;
}

/* ------------------------------------------------------------ symbolizing */

/* Whether mapping i's object may be opened for symbols: a recording names
 * its objects, and opening a FIFO there would block for good (a device
 * such as /dev/zero is no object either). Said once per object. */
static int object_regular(struct symctx *s, size_t i)
{
    const char *path = s->pf->mmaps[i].path;
    size_t j;
    int fd;
    if (!s->regular)
        return 1; /* no memory for the verdicts: the symbolizer decides */
    if (s->regular[i])
        return s->regular[i] > 0;
    for (j = 0; j < s->pf->n_mmaps; j++)
        if (s->regular[j] && strcmp(s->pf->mmaps[j].path, path) == 0) {
            s->regular[i] = s->regular[j];
            return s->regular[i] > 0;
        }
    /* opened without blocking; a missing file is the symbolizer's to name */
    fd = hpm_file_open_regular(path);
    if (fd >= 0)
        close(fd);
    s->regular[i] = fd < 0 && errno == EINVAL ? -1 : 1;
    if (s->regular[i] < 0)
        fprintf(stderr,
                "hpm report: %s: not a regular file; its frames are named by the object, "
                "without symbols\n",
                path);
    return s->regular[i] > 0;
}

static const char *own(struct symctx *s, char *name)
{
    if (!name)
        return "[unknown]";
    if (s->n_owned == s->cap_owned) {
        char **n = realloc(s->owned, (s->cap_owned = s->cap_owned ? 2 * s->cap_owned : 64) *
                                         sizeof *n);
        if (!n) {
            free(name);
            return "[unknown]";
        }
        s->owned = n;
    }
    s->owned[s->n_owned++] = name;
    return name;
}

/* The mapping of pid that held addr at time: the latest one mapped at or
 * before it (a library mapped after a dlclose where the closed one was
 * names only the later samples; files without times: the last one).
 * Its index, or -1. */
static long mapping_at(const struct symctx *s, uint32_t pid, uint64_t addr, uint64_t time)
{
    long best = -1;
    size_t i, lo = 0, hi = s->pf->n_mmaps, k;
    if (s->by_pid) {
        /* the pid's mappings only: a tree of many processes has many */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (s->pf->mmaps[s->by_pid[mid]].pid < pid)
                lo = mid + 1;
            else
                hi = mid;
        }
        hi = s->pf->n_mmaps;
    }
    for (k = lo; k < hi; k++) {
        const struct perfdata_mmap *c, *b;
        int c_ok, b_ok;
        i = s->by_pid ? s->by_pid[k] : k;
        c = &s->pf->mmaps[i];
        if (s->by_pid && c->pid != pid)
            break;
        if (c->pid != pid || addr < c->start || addr - c->start >= c->len)
            continue;
        if (best < 0) {
            best = (long)i;
            continue;
        }
        b = &s->pf->mmaps[best];
        c_ok = c->time <= time;
        b_ok = b->time <= time;
        /* mapped by then beats mapped later; among those mapped by then the
         * latest (in file order at equal times), else the earliest */
        if ((c_ok && !b_ok) || (c_ok && b_ok && c->time >= b->time) ||
            (!c_ok && !b_ok && c->time < b->time))
            best = (long)i;
    }
    return best;
}

static const struct perfdata_file *sort_pf; /* qsort's context: one sort at a time */

static int cmp_by_pid(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    uint32_t px = sort_pf->mmaps[x].pid, py = sort_pf->mmaps[y].pid;
    if (px != py)
        return px < py ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The index by pid (without memory: none, and mapping_at scans all). */
static void index_mappings(struct symctx *s)
{
    size_t i;
    s->by_pid = malloc((s->pf->n_mmaps ? s->pf->n_mmaps : 1) * sizeof *s->by_pid);
    if (!s->by_pid)
        return;
    for (i = 0; i < s->pf->n_mmaps; i++)
        s->by_pid[i] = i;
    sort_pf = s->pf;
    qsort(s->by_pid, s->pf->n_mmaps, sizeof *s->by_pid, cmp_by_pid);
}

static const char *symbolize(struct symctx *s, long mi, uint64_t addr)
{
    const struct perfdata_mmap *m;
    struct hpm_prof_object o;
    struct hpm_sym sym;
    size_t i = (size_t)mi;
    char *name = NULL;
    if (mi < 0)
        return "[unknown]";
    m = &s->pf->mmaps[i];
    o.start = m->start;
    o.end = m->start + m->len - 1;
    o.offset = m->pgoff;
    o.path = m->path;
    memset(&sym, 0, sizeof sym);
    if (object_regular(s, i) && hpm_symbols_lookup(s->syms, &o, addr, &sym) == 0 && sym.fn)
        return sym.fn;
    {
        /* no symbol: the object, and the function's first address where
         * the unwind table bounds it (a stripped program's functions stay
         * apart in a flame graph) */
        const char *base = strrchr(m->path, '/');
        base = base ? base + 1 : m->path;
        if ((sym.fn_addr ? asprintf(&name, "[%s]+0x%" PRIx64, base, sym.fn_addr)
                         : asprintf(&name, "[%s]", base)) < 0)
            name = NULL;
    }
    return own(s, name);
}

static const char *cached_name(struct symctx *s, uint32_t pid, uint64_t addr, uint64_t time)
{
    struct name_cache *c = &s->cache;
    long mi = mapping_at(s, pid, addr, time);
    /* by mapping, not process: one address may have held two objects */
    uint64_t key = ((uint64_t)(mi + 1) << 48 ^ addr) | 1ULL << 63;
    size_t h, i;
    if (c->n * 2 >= c->cap) {
        struct name_cache nc;
        nc.cap = c->cap ? 2 * c->cap : 1024;
        nc.n = 0;
        nc.key = calloc(nc.cap, sizeof *nc.key);
        nc.name = calloc(nc.cap, sizeof *nc.name);
        if (!nc.key || !nc.name) {
            free(nc.key);
            free(nc.name);
            return symbolize(s, mi, addr);
        }
        for (i = 0; i < c->cap; i++)
            if (c->key[i]) {
                h = (size_t)(c->key[i] * 0x9E3779B97F4A7C15ULL) & (nc.cap - 1);
                while (nc.key[h])
                    h = (h + 1) & (nc.cap - 1);
                nc.key[h] = c->key[i];
                nc.name[h] = c->name[i];
                nc.n++;
            }
        free(c->key);
        free(c->name);
        *c = nc;
    }
    h = (size_t)(key * 0x9E3779B97F4A7C15ULL) & (c->cap - 1);
    while (c->key[h] && c->key[h] != key)
        h = (h + 1) & (c->cap - 1);
    if (!c->key[h]) {
        c->key[h] = key;
        c->name[h] = symbolize(s, mi, addr);
        c->n++;
    }
    return c->name[h];
}

/* ------------------------------------------------------------ stacks */

int recording_cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_stack(const void *a, const void *b)
{
    return strcmp(((const struct report_stack *)a)->text, ((const struct report_stack *)b)->text);
}

/* One sample's stack, root first; frames of names without ';' (replaced). */
static char *stack_text(struct symctx *s, const struct perfdata_sample *smp)
{
    const char *names[PERFDATA_MAX_CHAIN + 1];
    unsigned n = 0, i;
    size_t len = 1, at = 0;
    char *t;
    if (smp->n_chain == 0) {
        names[n++] = cached_name(s, smp->pid, smp->ip, smp->time);
    } else {
        for (i = 0; i < smp->n_chain && n < PERFDATA_MAX_CHAIN; i++) {
            if (smp->chain[i] >= (uint64_t)PERF_CONTEXT_MAX)
                continue; /* a context marker */
            names[n++] = cached_name(s, smp->pid, smp->chain[i], smp->time);
        }
    }
    if (n == 0)
        names[n++] = "[unknown]";
    for (i = 0; i < n; i++)
        len += strlen(names[i]) + 1;
    t = malloc(len);
    if (!t)
        return NULL;
    for (i = n; i-- > 0;) {
        size_t l = strlen(names[i]), k;
        memcpy(t + at, names[i], l);
        for (k = 0; k < l; k++)
            if (t[at + k] == ';' || t[at + k] == '\n')
                t[at + k] = ':';
        at += l;
        t[at++] = i ? ';' : 0;
    }
    return t;
}

/* recording.h */
int recording_read(const char *path, struct perfdata_file *pf)
{
    char err[600], *text;
    size_t len;
    /* 16 GiB: more than any recording hpm writes */
    if (hpm_file_read(path, (size_t)1 << 34, perfdata_head, "a perf.data file", &text, &len, err,
                      sizeof err) != 0) {
        fprintf(stderr, "hpm report: cannot read %s\n", err);
        return 1;
    }
    if (perfdata_read((unsigned char *)text, len, pf, err, sizeof err) != 0) {
        fprintf(stderr, "hpm report: %s: %s\n", path, err);
        free(text);
        return 1;
    }
    free(text);
    return 0;
}

/* recording.h */
int recording_event(const struct perfdata_file *pf, const char *path, const char *event,
                    int list_events)
{
    size_t k;
    int ev;
    if (!event)
        return 0;
    for (ev = 0; ev < (int)pf->n_events; ev++) {
        const char *nm = pf->names[ev], *colon = strchr(nm, ':');
        if (!strcmp(nm, event) || (colon && !strcmp(colon + 1, event)))
            return ev;
    }
    fprintf(stderr, "hpm report: %s has no event %s%s", path, event, list_events ? "; it has:" : "");
    for (k = 0; list_events && k < pf->n_events; k++)
        fprintf(stderr, " %s", pf->names[k]);
    fprintf(stderr, "\n");
    return -1;
}

/* recording.h */
int symctx_init(struct symctx *sc, const struct perfdata_file *pf)
{
    memset(sc, 0, sizeof *sc);
    sc->pf = pf;
    sc->syms = hpm_symbols_new();
    sc->regular = calloc(pf->n_mmaps ? pf->n_mmaps : 1, 1);
    index_mappings(sc);
    return sc->syms ? 0 : -1;
}

/* recording.h */
void symctx_free(struct symctx *sc)
{
    size_t i;
    for (i = 0; i < sc->n_owned; i++)
        free(sc->owned[i]);
    free(sc->owned);
    free(sc->regular);
    free(sc->by_pid);
    free(sc->cache.key);
    free(sc->cache.name);
    if (sc->syms)
        hpm_symbols_free(sc->syms);
}

/* flame.h */
int report_load_stacks(const char *path, const char *event, int events,
                       struct report_stack **out, size_t *n_out, char *title, size_t title_len)
{
    struct perfdata_file pf;
    struct symctx sc;
    struct report_stack *st = NULL;
    size_t i, k, n = 0;
    int ev, rc;
    if ((rc = recording_read(path, &pf)) != 0)
        return rc;
    if ((ev = recording_event(&pf, path, event, 1)) < 0) {
        perfdata_free(&pf);
        return 2;
    }
    rc = 1;
    st = calloc(pf.n_samples ? pf.n_samples : 1, sizeof *st);
    if (symctx_init(&sc, &pf) != 0 || !st)
        goto oom;
    for (i = 0; i < pf.n_samples; i++) {
        if (pf.samples[i].event != (unsigned)ev)
            continue;
        st[n].text = stack_text(&sc, &pf.samples[i]);
        if (!st[n].text)
            goto oom;
        st[n++].n = events && pf.samples[i].period ? pf.samples[i].period : 1;
    }
    /* the same stacks together, in text order (as stackcollapse-perf.pl) */
    qsort(st, n, sizeof *st, cmp_stack);
    for (i = 0, k = 0; i < n; i++) {
        if (k && !strcmp(st[k - 1].text, st[i].text)) {
            st[k - 1].n += st[i].n;
            free(st[i].text);
        } else {
            st[k++] = st[i];
        }
    }
    n = k;
    snprintf(title, title_len, "%s of %s", pf.names[ev], path);
    *out = st;
    *n_out = n;
    st = NULL;
    n = 0;
    rc = 0;
    goto done;
oom:
    fprintf(stderr, "hpm report: out of memory\n");
done:
    if (st)
        for (i = 0; i < n; i++)
            free(st[i].text);
    free(st);
    symctx_free(&sc);
    perfdata_free(&pf);
    return rc;
}

/* A code address's function and line, at the sample's time ("fn:line",
 * "fn" without line information). */
static char *code_where(struct symctx *s, uint32_t pid, uint64_t addr, uint64_t time)
{
    long mi = mapping_at(s, pid, addr, time);
    const char *fn = cached_name(s, pid, addr, time);
    struct hpm_sym sym;
    char *out;
    memset(&sym, 0, sizeof sym);
    if (mi >= 0 && object_regular(s, (size_t)mi)) {
        struct hpm_prof_object o;
        const struct perfdata_mmap *m = &s->pf->mmaps[mi];
        o.start = m->start;
        o.end = m->start + m->len - 1;
        o.offset = m->pgoff;
        o.path = m->path;
        (void)hpm_symbols_lookup(s->syms, &o, addr, &sym);
    }
    if ((sym.line ? asprintf(&out, "%s:%u", fn, sym.line) : asprintf(&out, "%s", fn)) < 0)
        return NULL;
    return out;
}

/* A sample's data object, named as hpm profile names it: "heap from
 * FN:LINE <- CALLER:LINE" (the allocating call, the call into its function), a global's variable "NAME (OBJECT)", "[stack]", "[other]". */
char *recording_dobj_name(struct symctx *s, const struct perfdata_sample *smp)
{
    const struct perfdata_dobj *d = &s->pf->dobjs[smp->dobj - 1];
    char *out = NULL;
    if (d->kind == PERFDATA_DOBJ_HEAP) {
        /* the allocating call's function and line: two allocation sites
         * of one function stay apart */
        char *at = code_where(s, smp->pid, d->where, smp->time), *by = NULL;
        if (!at)
            return NULL;
        if (d->from && !(by = code_where(s, smp->pid, d->from, smp->time))) {
            free(at);
            return NULL;
        }
        if ((by ? asprintf(&out, "heap from %s <- %s", at, by)
                : asprintf(&out, "heap from %s", at)) < 0)
            out = NULL;
        free(at);
        free(by);
    } else if (d->kind == PERFDATA_DOBJ_GLOBAL && d->path) {
        struct hpm_prof_object o;
        const char *sym = NULL, *base = strrchr(d->path, '/');
        uint64_t start = 0;
        o.start = d->start;
        o.end = d->end;
        o.offset = d->pgoff;
        o.path = d->path;
        base = base ? base + 1 : d->path;
        {
            /* a recording names the file: read only a regular one (a FIFO
             * there would block) */
            int fd = hpm_file_open_regular(d->path);
            if (fd >= 0) {
                close(fd);
                (void)hpm_symbols_data(s->syms, &o, smp->addr, &sym, &start);
            }
        }
        if (asprintf(&out, "%s (%s)", sym ? sym : "(data without a symbol)", base) < 0)
            out = NULL;
    } else {
        static const char *const k[] = {"[heap]", "[global]", "[stack]", "[other]"};
        out = strdup(k[d->kind & 3]);
    }
    return out;
}
