/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * profile.c - the profile model (profile.h): the tool's records parsed,
 * symbolized and aggregated per function, cost line and call arc.
 */
#define _GNU_SOURCE /* strdup, strndup, O_CLOEXEC */
#include "profile.h"
#include "c2c_internal.h"
#include "profile_util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "vpmu_format.h"
#include "vpmufile.h"

/* --------------------------------------------------------------- records */

/* A kind's name is a catalog name: one word of letters, digits and _ :
 * (it becomes a word of callgrind's events: line) */
static int kind_name_ok(const char *s, size_t n)
{
    size_t i;
    if (n == 0 || n > 64)
        return 0;
    for (i = 0; i < n; i++)
        if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == ':'))
            return 0;
    return 1;
}

/* "K:V" pairs (the kinds' values that are not 0), each kind once, appended
 * to r->kvs: their count, or -1 when malformed or out of memory. seen[k]
 * is the line where kind k was last given (a duplicate on the same line is
 * malformed). A pair is read in one pass (a field, its colon, then two
 * numbers, were three: millions of pairs in a profile). */
static long values(const char **p, const char *end, struct hpm_prof_records *r, size_t *cap,
                   unsigned *seen, unsigned lineno)
{
    const char *s = *p;
    long count = 0;
    for (;;) {
        uint64_t k, x;
        while (s < end && *s == ' ')
            s++;
        if (s >= end)
            break;
        if (vpmu_decimal(&s, end, &k) != 0 || s >= end || *s++ != ':' ||
            vpmu_decimal(&s, end, &x) != 0 || (s < end && *s != ' ') || k >= r->n_kinds || x == 0 ||
            seen[k] == lineno)
            return -1;
        seen[k] = lineno;
        if (r->n_kvs == *cap) {
            struct hpm_prof_kv *nk = hpm__grow(r->kvs, cap, r->n_kvs + 1, sizeof *nk);
            if (!nk)
                return -1;
            r->kvs = nk;
        }
        r->kvs[r->n_kvs].kind = (unsigned)k;
        r->kvs[r->n_kvs].value = x;
        r->n_kvs++;
        count++;
    }
    *p = s;
    return count;
}

uint64_t hpm_prof_records_value(const struct hpm_prof_records *r, size_t kv, unsigned n_kv,
                                unsigned k)
{
    unsigned i;
    for (i = 0; i < n_kv; i++)
        if (r->kvs[kv + i].kind == k)
            return r->kvs[kv + i].value;
    return 0;
}

/* An object id of a record: 0 (none) or one a prof_object named. */
static int obj_ok(const struct hpm_prof_records *r, uint64_t obj)
{
    return obj == 0 || (obj < r->n_objects && r->objects[obj].path);
}

/* Each record reader: 0, 1 malformed, -1 out of memory (or an error it
 * said itself, rd->said). */
static int rec_kind(struct hpm_prof_reader *rd, const char *q, const char *eol)
{
    struct hpm_prof_records *r = rd->r;
    const char *name, *f;
    size_t nn, n;
    if (r->n_insns || r->n_arcs) {
        hpm__set_err(rd->err, rd->errlen, "line %u: a kind after the costs", rd->lineno);
        return rd->said = -1;
    }
    if (r->n_kinds == HPM_PROF_KINDS_MAX) {
        hpm__set_err(rd->err, rd->errlen, "line %u: more than %d kinds", rd->lineno,
                     HPM_PROF_KINDS_MAX);
        return rd->said = -1;
    }
    if (!vpmu_field(&q, eol, &name, &nn) || !kind_name_ok(name, nn) ||
        !vpmu_field(&q, eol, &f, &n) || vpmu_number(f, n, 10, &r->totals[r->n_kinds]) != 0)
        return 1;
    if (!(r->kinds[r->n_kinds] = strndup(name, nn)))
        return 1;
    r->n_kinds++;
    return 0;
}

/* prof_object ID START END OFFSET PATH (the path the rest of the line: it
 * may hold spaces). */
static int rec_object(struct hpm_prof_reader *rd, const char *q, const char *eol)
{
    struct hpm_prof_records *r = rd->r;
    struct hpm_prof_object o;
    const char *f;
    size_t n;
    uint64_t id;
    memset(&o, 0, sizeof o);
    if (!vpmu_field(&q, eol, &f, &n) || vpmu_number(f, n, 10, &id) != 0 || id == 0 ||
        id > 1u << 20 || !vpmu_field(&q, eol, &f, &n) || vpmu_number(f, n, 16, &o.start) != 0 ||
        !vpmu_field(&q, eol, &f, &n) || vpmu_number(f, n, 16, &o.end) != 0 ||
        !vpmu_field(&q, eol, &f, &n) || vpmu_number(f, n, 16, &o.offset) != 0 || o.end < o.start)
        return 1;
    while (q < eol && *q == ' ')
        q++;
    if (q >= eol)
        return 1;
    if (id >= r->n_objects) {
        struct hpm_prof_object *no =
            hpm__grow(r->objects, &rd->cap_obj, (size_t)id + 1, sizeof *no);
        if (!no)
            return -1;
        r->objects = no;
        memset(no + r->n_objects, 0, ((size_t)id + 1 - r->n_objects) * sizeof *no);
        r->n_objects = (unsigned)id + 1;
    }
    if (r->objects[id].path) {
        hpm__set_err(rd->err, rd->errlen, "line %u: object %" PRIu64 " twice", rd->lineno, id);
        return rd->said = -1;
    }
    if (!(o.path = strndup(q, (size_t)(eol - q))))
        return -1;
    r->objects[id] = o;
    return 0;
}

/* The K:V values ending a record: where they begin in r->kvs, how many. */
static int rec_values(struct hpm_prof_reader *rd, const char **q, const char *eol, size_t *kv,
                      unsigned *n_kv)
{
    long nv;
    *kv = rd->r->n_kvs;
    nv = values(q, eol, rd->r, &rd->cap_kv, rd->seen, rd->lineno);
    *n_kv = nv < 0 ? 0 : (unsigned)nv;
    return nv < 0;
}

/* prof_insn ADDR OBJ K:V... */
static int rec_insn(struct hpm_prof_reader *rd, const char *q, const char *eol)
{
    struct hpm_prof_records *r = rd->r;
    struct hpm_prof_insn in, *ni;
    const char *f;
    size_t n;
    uint64_t obj;
    int bad;
    memset(&in, 0, sizeof in);
    if (!vpmu_field(&q, eol, &f, &n) || vpmu_number(f, n, 16, &in.addr) != 0 ||
        !vpmu_field(&q, eol, &f, &n) || vpmu_number(f, n, 10, &obj) != 0 || !obj_ok(r, obj))
        return 1;
    in.obj = (unsigned)obj;
    bad = rec_values(rd, &q, eol, &in.kv, &in.n_kv);
    if (!(ni = hpm__grow(r->insns, &rd->cap_insn, r->n_insns + 1, sizeof *ni)))
        return -1;
    r->insns = ni;
    r->insns[r->n_insns++] = in;
    return bad;
}

/* prof_call SITE TARGET CALLS K:V..., prof_call_in SOBJ TOBJ SITE TARGET
 * CALLS K:V... (the objects first: a dlclose'd library's code and the
 * next one's share addresses) */
static int rec_call(struct hpm_prof_reader *rd, const char *q, const char *eol, int in)
{
    struct hpm_prof_records *r = rd->r;
    struct hpm_prof_arc a, *na;
    const char *f;
    size_t n;
    uint64_t so = 0, to = 0;
    int bad;
    memset(&a, 0, sizeof a);
    if ((in && (!vpmu_field(&q, eol, &f, &n) || vpmu_number(f, n, 10, &so) != 0 ||
                !obj_ok(r, so) || !vpmu_field(&q, eol, &f, &n) ||
                vpmu_number(f, n, 10, &to) != 0 || !obj_ok(r, to))) ||
        !vpmu_field(&q, eol, &f, &n) || vpmu_number(f, n, 16, &a.site) != 0 ||
        !vpmu_field(&q, eol, &f, &n) || vpmu_number(f, n, 16, &a.target) != 0 ||
        !vpmu_field(&q, eol, &f, &n) || vpmu_number(f, n, 10, &a.calls) != 0)
        return 1;
    a.site_obj = (unsigned)so;
    a.target_obj = (unsigned)to;
    bad = rec_values(rd, &q, eol, &a.kv, &a.n_kv);
    if (!(na = hpm__grow(r->arcs, &rd->cap_arc, r->n_arcs + 1, sizeof *na)))
        return -1;
    r->arcs = na;
    r->arcs[r->n_arcs++] = a;
    return bad;
}

/* prof_data KIND WHERE FROM OBJ BLOCKS BYTES K:V... */
static int rec_data(struct hpm_prof_reader *rd, const char *q, const char *eol)
{
    struct hpm_prof_records *r = rd->r;
    struct hpm_prof_data d, *nd;
    const char *f, *k;
    size_t n, kn;
    uint64_t obj;
    int bad;
    memset(&d, 0, sizeof d);
    if (!vpmu_field(&q, eol, &k, &kn) || kn >= sizeof d.kind || !vpmu_field(&q, eol, &f, &n) ||
        vpmu_number(f, n, 16, &d.where) != 0 || !vpmu_field(&q, eol, &f, &n) ||
        vpmu_number(f, n, 16, &d.from) != 0 || !vpmu_field(&q, eol, &f, &n) ||
        vpmu_number(f, n, 10, &obj) != 0 || !obj_ok(r, obj) || !vpmu_field(&q, eol, &f, &n) ||
        vpmu_number(f, n, 10, &d.blocks) != 0 || !vpmu_field(&q, eol, &f, &n) ||
        vpmu_number(f, n, 10, &d.bytes) != 0)
        return 1;
    memcpy(d.kind, k, kn);
    d.obj = (unsigned)obj;
    bad = rec_values(rd, &q, eol, &d.kv, &d.n_kv);
    if (!(nd = hpm__grow(r->data, &rd->cap_data, r->n_data + 1, sizeof *nd)))
        return -1;
    r->data = nd;
    r->data[r->n_data++] = d;
    return bad;
}

/* prof_jump SITE OBJ TARGET EXECUTED TAKEN */
static int rec_jump(struct hpm_prof_reader *rd, const char *q, const char *eol)
{
    struct hpm_prof_records *r = rd->r;
    struct hpm_prof_back b, *nb;
    const char *f;
    size_t n;
    uint64_t obj;
    memset(&b, 0, sizeof b);
    if (!vpmu_field(&q, eol, &f, &n) || vpmu_number(f, n, 16, &b.site) != 0 ||
        !vpmu_field(&q, eol, &f, &n) || vpmu_number(f, n, 10, &obj) != 0 || !obj_ok(r, obj) ||
        !vpmu_field(&q, eol, &f, &n) || vpmu_number(f, n, 16, &b.target) != 0 ||
        !vpmu_field(&q, eol, &f, &n) || vpmu_number(f, n, 10, &b.executed) != 0 ||
        !vpmu_field(&q, eol, &f, &n) || vpmu_number(f, n, 10, &b.taken) != 0 ||
        b.taken > b.executed)
        return 1;
    if (!(nb = hpm__grow(r->backs, &rd->cap_back, r->n_backs + 1, sizeof *nb)))
        return -1;
    b.obj = (unsigned)obj;
    r->backs = nb;
    r->backs[r->n_backs++] = b;
    return 0;
}

/* A prof_ record by its name; other prof_ records are a newer tool's,
 * skipped. */
static int rec_prof(struct hpm_prof_reader *rd, const struct vpmu_rec *l)
{
    const char *q = l->rest, *eol = l->end, *f = l->name;
    size_t n = l->name_len;
    int c;
    if (vpmu_word_is(f, n, VPMU_REC_PROF_KIND))
        return rec_kind(rd, q, eol);
    if (vpmu_word_is(f, n, VPMU_REC_PROF_OBJECT))
        return rec_object(rd, q, eol);
    if (vpmu_word_is(f, n, VPMU_REC_PROF_INSN))
        return rec_insn(rd, q, eol);
    if (vpmu_word_is(f, n, VPMU_REC_PROF_CALL) || vpmu_word_is(f, n, VPMU_REC_PROF_CALL_IN))
        return rec_call(rd, q, eol, vpmu_word_is(f, n, VPMU_REC_PROF_CALL_IN));
    if (vpmu_word_is(f, n, VPMU_REC_PROF_DATA))
        return rec_data(rd, q, eol);
    if (vpmu_word_is(f, n, VPMU_REC_PROF_JUMP))
        return rec_jump(rd, q, eol);
    /* the contended lines (c2c.c) */
    c = hpm__c2c_record(rd->r, f, n, q, eol);
    return c == -2 ? -1 : c < 0;
}

static int prof_record(void *ctx, const struct vpmu_file *file, const struct vpmu_rec *l)
{
    struct hpm_prof_reader *rd = ctx;
    int rc;
    (void)file;
    rd->lineno = (unsigned)l->lineno;
    if (l->has_nul) {
        hpm__set_err(rd->err, rd->errlen, "line %u: a NUL byte", rd->lineno);
        return -1;
    }
    if (vpmu_rec_is(l, VPMU_REC_THREAD)) {
        /* the threads' cores, for the c2c view (c2c.c) */
        if (hpm__c2c_thread(&rd->r->c2c, l->rest, l->end) == 0)
            return 0;
        hpm__set_err(rd->err, rd->errlen, "out of memory");
        return -1;
    }
    if (l->name_len < 5 || memcmp(l->name, "prof_", 5) != 0)
        return 0;
    rd->said = 0;
    rc = rec_prof(rd, l);
    if (rc > 0)
        hpm__set_err(rd->err, rd->errlen, "line %u: a malformed %.*s record", rd->lineno,
                     (int)l->name_len, l->name);
    else if (rc < 0 && !rd->said)
        hpm__set_err(rd->err, rd->errlen, "out of memory");
    return rc ? -1 : 0;
}

void hpm_prof_reader_init(struct hpm_prof_reader *rd, struct hpm_prof_records *r, char *err,
                          size_t errlen, struct vpmu_tool *t)
{
    memset(rd, 0, sizeof *rd);
    memset(r, 0, sizeof *r);
    rd->r = r;
    rd->err = err;
    rd->errlen = errlen;
    memset(t, 0, sizeof *t);
    t->record = prof_record;
    t->ctx = rd;
}

int hpm_prof_records_parse(const char *text, size_t len, struct hpm_prof_records *r, char *err,
                           size_t errlen)
{
    struct hpm_prof_reader rd;
    struct vpmu_tool t;
    const struct vpmu_tool *tools[1] = {&t};
    hpm_prof_reader_init(&rd, r, err, errlen, &t);
    if (vpmu_tools_walk(NULL, text, len, tools, 1) == 0)
        return 0;
    hpm_prof_records_free(r);
    return -1;
}

void hpm_prof_records_free(struct hpm_prof_records *r)
{
    size_t i;
    for (i = 0; i < r->n_kinds; i++)
        free(r->kinds[i]);
    for (i = 0; i < r->n_objects; i++)
        free(r->objects[i].path);
    free(r->kvs);
    free(r->data);
    free(r->objects);
    free(r->insns);
    free(r->arcs);
    free(r->backs);
    hpm__c2c_free(&r->c2c);
    memset(r, 0, sizeof *r);
}

/* ----------------------------------------------------------------- model */

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
    return h;
}

void hpm_profile_init(struct hpm_profile *p)
{
    memset(p, 0, sizeof *p);
    (void)hpm_profile_str(p, "???");
}

static int str_rehash(struct hpm_profile *p)
{
    unsigned cap = p->str_hash_cap ? 2 * p->str_hash_cap : 1024, i;
    unsigned *h = calloc(cap, sizeof *h);
    if (!h)
        return -1;
    for (i = 0; i < p->n_strs; i++) {
        size_t j = hash_str(p->strs[i]) & (cap - 1);
        while (h[j])
            j = (j + 1) & (cap - 1);
        h[j] = i + 1;
    }
    free(p->str_hash);
    p->str_hash = h;
    p->str_hash_cap = cap;
    return 0;
}

/* String id of s (interned). Out of memory: aborts, as there is no
 * sensible profile to go on with. */
unsigned hpm_profile_str(struct hpm_profile *p, const char *s)
{
    size_t j;
    size_t cap = p->cap_strs;
    char **ns;
    if (2 * (p->n_strs + 1) > p->str_hash_cap && str_rehash(p) != 0)
        abort();
    j = hash_str(s) & (p->str_hash_cap - 1);
    while (p->str_hash[j]) {
        if (strcmp(p->strs[p->str_hash[j] - 1], s) == 0)
            return p->str_hash[j] - 1;
        j = (j + 1) & (p->str_hash_cap - 1);
    }
    ns = hpm__grow(p->strs, &cap, (size_t)p->n_strs + 1, sizeof *ns);
    if (!ns)
        abort();
    p->strs = ns;
    p->cap_strs = (unsigned)cap;
    p->strs[p->n_strs] = strdup(s);
    if (!p->strs[p->n_strs])
        abort();
    p->str_hash[j] = p->n_strs + 1;
    return p->n_strs++;
}

static uint64_t fn_key(unsigned obj, unsigned name)
{
    return ((uint64_t)obj * 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)name * 0xC2B2AE3D27D4EB4FULL);
}

static void fn_rehash(struct hpm_profile *p)
{
    size_t cap = p->fn_hash_cap ? 2 * p->fn_hash_cap : 1024, i;
    unsigned *h = calloc(cap, sizeof *h);
    if (!h)
        abort();
    for (i = 0; i < p->n_fns; i++) {
        size_t j = fn_key(p->fns[i].obj, p->fns[i].name) & (cap - 1);
        while (h[j])
            j = (j + 1) & (cap - 1);
        h[j] = (unsigned)i + 1;
    }
    free(p->fn_hash);
    p->fn_hash = h;
    p->fn_hash_cap = cap;
}

/* A function is its object and name (callgrind's identity); file is where
 * it was first seen. */
unsigned hpm_profile_fn(struct hpm_profile *p, unsigned obj, unsigned file, unsigned name)
{
    size_t j;
    struct hpm_prof_fn *nf;
    if (2 * (p->n_fns + 1) > p->fn_hash_cap)
        fn_rehash(p);
    j = fn_key(obj, name) & (p->fn_hash_cap - 1);
    while (p->fn_hash[j]) {
        struct hpm_prof_fn *f = &p->fns[p->fn_hash[j] - 1];
        if (f->obj == obj && f->name == name)
            return p->fn_hash[j] - 1;
        j = (j + 1) & (p->fn_hash_cap - 1);
    }
    nf = hpm__grow(p->fns, &p->cap_fns, p->n_fns + 1, sizeof *nf);
    if (!nf)
        abort();
    p->fns = nf;
    memset(&p->fns[p->n_fns], 0, sizeof p->fns[0]);
    p->fns[p->n_fns].obj = obj;
    p->fns[p->n_fns].file = file;
    p->fns[p->n_fns].name = name;
    p->fn_hash[j] = (unsigned)p->n_fns + 1;
    return (unsigned)p->n_fns++;
}

/* The values of a profile's costs and calls, in chunks that are freed
 * together: one malloc per cost line had been most of the front end's
 * time (and a page fault per few lines). */
struct hpm_prof_vals {
    struct hpm_prof_vals *next;
    size_t used, cap;
    uint64_t v[];
};

#define VALS_CHUNK ((size_t)1 << 16) /* values: 512 KiB */

uint64_t *hpm_profile_values(struct hpm_profile *p, size_t n)
{
    struct hpm_prof_vals *c = p->vals;
    if (n == 0)
        n = 1;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > VALS_CHUNK ? n : VALS_CHUNK;
        if (cap > (SIZE_MAX - sizeof *c) / sizeof c->v[0])
            return NULL;
        c = calloc(1, sizeof *c + cap * sizeof c->v[0]); /* zeroed pages */
        if (!c)
            return NULL;
        c->cap = cap;
        c->next = p->vals;
        p->vals = c;
    }
    c->used += n;
    return &c->v[c->used - n];
}

void hpm_profile_free(struct hpm_profile *p)
{
    size_t i;
    for (i = 0; i < p->n_kinds; i++)
        free(p->kinds[i]);
    for (i = 0; i < p->n_strs; i++)
        free(p->strs[i]);
    for (i = 0; i < p->n_fns; i++) {
        free(p->fns[i].costs);
        free(p->fns[i].calls);
        free(p->fns[i].jumps);
    }
    while (p->vals) {
        struct hpm_prof_vals *next = p->vals->next;
        free(p->vals);
        p->vals = next;
    }
    for (i = 0; i < p->n_taken; i++)
        free(p->taken[i]);
    free(p->taken);
    free(p->strs);
    free(p->str_hash);
    free(p->fns);
    free(p->fn_hash);
    free(p->command);
    free(p->creator);
    memset(p, 0, sizeof *p);
}

/* A record's values, sparse, in the profile (the values' chunks hold
 * them: two words a pair), in kind order; or where they are (own: the
 * records' values, taken over) when they are in kind order already, as
 * the tool writes them. */
static struct hpm_prof_kv *sparse_values(struct hpm_profile *p, const struct hpm_prof_records *r,
                                         struct hpm_prof_kv *own, size_t kv, unsigned n_kv)
{
    struct hpm_prof_kv *d;
    unsigned i, j;
    if (own) {
        for (i = 1; i < n_kv && own[kv + i - 1].kind < own[kv + i].kind; i++)
            ;
        if (i >= n_kv)
            return &own[kv];
    }
    d = (struct hpm_prof_kv *)hpm_profile_values(p, 2 * (size_t)n_kv);
    if (!d)
        abort();
    for (i = 0; i < n_kv; i++) {
        /* the tool writes them in order: this is one comparison each */
        struct hpm_prof_kv x = r->kvs[kv + i];
        for (j = i; j > 0 && d[j - 1].kind > x.kind; j--)
            d[j] = d[j - 1];
        d[j] = x;
    }
    return d;
}

static void add_cost(struct hpm_prof_fn *f, uint64_t addr, unsigned file, unsigned line,
                     uint64_t *v, struct hpm_prof_kv *kv, unsigned n_kv)
{
    struct hpm_prof_cost *nc = hpm__grow(f->costs, &f->cap_costs, f->n_costs + 1, sizeof *nc);
    if (!nc)
        abort();
    f->costs = nc;
    nc[f->n_costs].addr = addr;
    nc[f->n_costs].file = file;
    nc[f->n_costs].line = line;
    nc[f->n_costs].v = v;
    nc[f->n_costs].kv = kv;
    nc[f->n_costs].n_kv = n_kv;
    f->n_costs++;
}

/* Values made dense (v), in place: *kv, *n_kv are cleared. */
static void densify(struct hpm_profile *p, uint64_t **v, struct hpm_prof_kv **kv, unsigned *n_kv)
{
    unsigned i;
    if (*v)
        return;
    *v = hpm_profile_values(p, p->n_kinds);
    if (!*v)
        abort();
    for (i = 0; i < *n_kv; i++)
        (*v)[(*kv)[i].kind] = (*kv)[i].value;
    *kv = NULL;
    *n_kv = 0;
}

void hpm_prof_add_values(uint64_t *to, const uint64_t *v, const struct hpm_prof_kv *kv,
                         unsigned n_kv, unsigned n_kinds)
{
    unsigned k;
    if (v)
        for (k = 0; k < n_kinds; k++)
            to[k] += v[k];
    else
        for (k = 0; k < n_kv; k++)
            to[kv[k].kind] += kv[k].value;
}

static void add_call(struct hpm_prof_fn *f, const struct hpm_prof_call *c)
{
    struct hpm_prof_call *nc = hpm__grow(f->calls, &f->cap_calls, f->n_calls + 1, sizeof *nc);
    if (!nc)
        abort();
    f->calls = nc;
    nc[f->n_calls++] = *c;
}

/* Where addr is: function, file and line, as string ids. */
struct where {
    unsigned obj, fn, file, line;
};

/* The string ids locate found last (instructions come in address order:
 * most share their neighbour's object, function and file, whose strings
 * the symbol table keeps at one address). */
struct locate_memo {
    int valid;
    unsigned obj, obj_id;
    const char *fn;   /* the symbol's name, or NULL: */
    uint64_t fn_addr; /* the nameless function's first address */
    unsigned fn_id;
    const char *file;
    unsigned file_id;
};

static void locate(struct hpm_profile *p, const struct hpm_prof_records *r,
                   struct hpm_symbols *syms, unsigned obj, uint64_t addr, struct where *w,
                   struct locate_memo *m)
{
    struct hpm_sym s;
    char buf[64];
    int known = obj && obj < r->n_objects && r->objects[obj].path;
    memset(&s, 0, sizeof s);
    if (m && m->valid && m->obj == obj) {
        w->obj = m->obj_id;
    } else {
        w->obj = known ? hpm_profile_str(p, r->objects[obj].path) : 0;
        if (m) {
            m->valid = 1;
            m->obj = obj;
            m->obj_id = w->obj;
            m->fn = m->file = NULL;
            m->fn_addr = 0;
            m->fn_id = m->file_id = 0;
        }
    }
    if (known && syms)
        (void)hpm_symbols_lookup(syms, &r->objects[obj], addr, &s);
    if (s.fn) {
        if (m && m->fn == s.fn) {
            w->fn = m->fn_id;
        } else {
            w->fn = hpm_profile_str(p, s.fn);
            if (m) {
                m->fn = s.fn;
                m->fn_addr = 0;
                m->fn_id = w->fn;
            }
        }
    } else if (m && s.fn_addr && !m->fn && m->fn_addr == s.fn_addr) {
        w->fn = m->fn_id;
    } else {
        /* callgrind's name for code without a symbol is its address; the
         * function's first address where the unwind table bounds it, so
         * that a stripped program's function is one function, not one per
         * instruction */
        snprintf(buf, sizeof buf, "0x%016" PRIx64, s.fn_addr ? s.fn_addr : addr);
        w->fn = hpm_profile_str(p, buf);
        if (m) {
            m->fn = NULL;
            m->fn_addr = s.fn_addr;
            m->fn_id = w->fn;
        }
    }
    if (!s.file)
        w->file = 0;
    else if (m && m->file == s.file)
        w->file = m->file_id;
    else {
        w->file = hpm_profile_str(p, s.file);
        if (m) {
            m->file = s.file;
            m->file_id = w->file;
        }
    }
    w->line = s.line;
}

/* The object holding addr in r (for call targets, which carry none). */
static unsigned object_of(const struct hpm_prof_records *r, uint64_t addr)
{
    unsigned i;
    for (i = 1; i < r->n_objects; i++)
        if (r->objects[i].path && addr >= r->objects[i].start && addr <= r->objects[i].end)
            return i;
    return 0;
}

struct share {
    uint64_t rem; /* the remainder's fraction, scaled to 64 bits */
    size_t i;
};

static int cmp_share(const void *a, const void *b)
{
    const struct share *x = a, *y = b;
    if (x->rem != y->rem)
        return x->rem > y->rem ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i; /* ties: the earlier row, for determinism */
}

static void share_swap(struct share *a, size_t x, size_t y)
{
    struct share t = a[x];
    a[x] = a[y];
    a[y] = t;
}

/* The k shares that come first in cmp_share's order moved to a[0..k), in
 * no order (quickselect: the remainders' full sort was a tenth of the
 * front end; all shares differ, their rows do). */
static void share_select(struct share *a, size_t n, size_t k)
{
    size_t lo = 0, hi = n;
    unsigned rounds = 0;
    while (hi - lo > 16 && k > lo && k < hi) {
        size_t mid = lo + (hi - lo) / 2, i, p;
        if (++rounds > 100)
            break; /* a bad run of pivots: the sort below ends it */
        /* median of three to a[hi - 1], the pivot */
        if (cmp_share(&a[mid], &a[lo]) < 0)
            share_swap(a, mid, lo);
        if (cmp_share(&a[hi - 1], &a[lo]) < 0)
            share_swap(a, hi - 1, lo);
        if (cmp_share(&a[mid], &a[hi - 1]) < 0)
            share_swap(a, mid, hi - 1);
        for (i = p = lo; i < hi - 1; i++)
            if (cmp_share(&a[i], &a[hi - 1]) < 0)
                share_swap(a, i, p++);
        share_swap(a, p, hi - 1);
        if (k <= p)
            hi = p;
        else
            lo = p + 1;
    }
    if (k > lo && k < hi && hi - lo > 1)
        qsort(a + lo, hi - lo, sizeof *a, cmp_share);
}

/* Largest-remainder shares of total in proportion to *w[0..n), in place.
 * The weights that are 0 are left out by the caller: they get nothing
 * (the units left over are fewer than the shares with a remainder, and
 * those sort first), so the shares are those of every instruction. */
static void apportion(uint64_t **w, size_t n, uint64_t total)
{
    unsigned __int128 sum = 0, given = 0;
    size_t i;
    struct share *sh;
    if (n == 0)
        return;
    for (i = 0; i < n; i++)
        sum += *w[i];
    if (sum == 0)
        return;
    sh = malloc(n * sizeof *sh);
    if (!sh)
        abort();
    for (i = 0; i < n; i++) {
        unsigned __int128 x = (unsigned __int128)*w[i] * total;
        uint64_t q = (uint64_t)(x / sum);
        sh[i].rem = (uint64_t)(((x % sum) << 32) / sum);
        sh[i].i = i;
        *w[i] = q;
        given += q;
    }
    /* fewer than n units are left: one each to the largest remainders */
    if (given < total) {
        size_t left = total - given < n ? (size_t)(total - given) : n;
        share_select(sh, n, left);
        for (i = 0; i < left; i++)
            (*w[sh[i].i])++;
    }
    free(sh);
}

/* An instruction record's address and index: sorted by both (the
 * address in the element, not behind an index: the sort's comparisons
 * were a twentieth of the front end) */
struct insn_at {
    uint64_t addr;
    size_t i;
};

static int cmp_insn_at(const void *a, const void *b)
{
    const struct insn_at *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* hpm_prof_add_records, or with own (r's values, which the profile then
 * owns) hpm_prof_take_records */
static int add_records(struct hpm_profile *p, const struct hpm_prof_records *r,
                       struct hpm_prof_kv *own, struct hpm_symbols *syms, char *err,
                       size_t errlen)
{
    unsigned k;
    size_t i, j, nonzero[HPM_PROF_KINDS_MAX];
    struct insn_at *order;
    uint64_t sum[HPM_PROF_KINDS_MAX];
    struct hpm_prof_kv **w;
    struct locate_memo memo;
    if (r->n_kinds == 0)
        return 0; /* a process without a profile (it ran nothing) */
    if (p->n_kinds == 0) {
        for (k = 0; k < r->n_kinds; k++) {
            p->kinds[k] = strdup(r->kinds[k]);
            if (!p->kinds[k])
                abort();
        }
        p->n_kinds = r->n_kinds;
        p->have_totals = 1;
    } else {
        if (p->n_kinds != r->n_kinds) {
            hpm__set_err(err, errlen, "profiles of different events cannot be merged");
            return -1;
        }
        for (k = 0; k < r->n_kinds; k++)
            if (strcmp(p->kinds[k], r->kinds[k]) != 0) {
                hpm__set_err(err, errlen, "profiles of different events cannot be merged (%s, %s)",
                             p->kinds[k], r->kinds[k]);
                return -1;
            }
    }
    p->has_addr = 1;
    /* per-instruction shares, apportioned where they do not add up */
    w = malloc((r->n_insns + 1) * sizeof *w);
    if (!w)
        abort();
    memset(sum, 0, sizeof sum);
    memset(nonzero, 0, sizeof nonzero);
    for (i = 0; i < r->n_insns; i++) {
        w[i] = sparse_values(p, r, own, r->insns[i].kv, r->insns[i].n_kv);
        for (j = 0; j < r->insns[i].n_kv; j++) {
            sum[w[i][j].kind] += w[i][j].value;
            nonzero[w[i][j].kind]++;
        }
    }
    {
        /* the values of each kind to apportion, in the instructions'
         * order: one pass for all of them */
        uint64_t **shares[HPM_PROF_KINDS_MAX];
        size_t m[HPM_PROF_KINDS_MAX];
        int any = 0;
        for (k = 0; k < r->n_kinds; k++) {
            p->totals[k] += r->totals[k];
            shares[k] = NULL;
            m[k] = 0;
            if (sum[k] == r->totals[k])
                continue;
            if (sum[k] == 0) {
                p->apportioned[k] |= HPM_PROF_UNATTRIBUTED;
                continue;
            }
            p->apportioned[k] |= HPM_PROF_SCALED;
            shares[k] = malloc(nonzero[k] * sizeof *shares[k]);
            if (!shares[k])
                abort();
            any = 1;
        }
        for (i = 0; any && i < r->n_insns; i++)
            for (j = 0; j < r->insns[i].n_kv; j++)
                if (shares[w[i][j].kind])
                    shares[w[i][j].kind][m[w[i][j].kind]++] = &w[i][j].value;
        for (k = 0; k < r->n_kinds; k++)
            if (shares[k]) {
                apportion(shares[k], m[k], r->totals[k]);
                free(shares[k]);
            }
    }
    /* in address order: neighbours share their function's symbol */
    memset(&memo, 0, sizeof memo);
    order = malloc((r->n_insns + 1) * sizeof *order);
    if (!order)
        abort();
    for (i = 0; i < r->n_insns; i++) {
        order[i].addr = r->insns[i].addr;
        order[i].i = i;
    }
    if (r->n_insns > 1)
        qsort(order, r->n_insns, sizeof *order, cmp_insn_at);
    for (j = 0; j < r->n_insns; j++) {
        struct where at;
        unsigned fi;
        i = order[j].i;
        locate(p, r, syms, r->insns[i].obj, r->insns[i].addr, &at, &memo);
        fi = hpm_profile_fn(p, at.obj, at.file, at.fn);
        add_cost(&p->fns[fi], r->insns[i].addr, at.file, at.line, NULL, w[i], r->insns[i].n_kv);
    }
    free(order);
    /* a kind counted where no instruction was (the I/O and kernel units'
     * kinds, counted in the tool's system call wrappers): one place */
    for (k = 0; k < r->n_kinds; k++) {
        if (sum[k] == 0 && r->totals[k] > 0) {
            unsigned fi = hpm_profile_fn(p, 0, 0, hpm_profile_str(p, "(unattributed)"));
            uint64_t *v = hpm_profile_values(p, r->n_kinds);
            if (!v)
                abort();
            v[k] = r->totals[k];
            add_cost(&p->fns[fi], 0, 0, 0, v, NULL, 0);
        }
    }
    free(w);
    for (i = 0; i < r->n_arcs; i++) {
        struct where from, to;
        struct hpm_prof_call c;
        unsigned fi;
        const struct hpm_prof_arc *ra = &r->arcs[i];
        locate(p, r, syms, ra->site_obj ? ra->site_obj : object_of(r, ra->site), ra->site, &from,
               NULL);
        locate(p, r, syms, ra->target_obj ? ra->target_obj : object_of(r, ra->target), ra->target,
               &to, NULL);
        fi = hpm_profile_fn(p, from.obj, from.file, from.fn);
        memset(&c, 0, sizeof c);
        c.site_addr = r->arcs[i].site;
        c.site_file = from.file;
        c.site_line = from.line;
        c.callee = hpm_profile_fn(p, to.obj, to.file, to.fn);
        c.target_addr = r->arcs[i].target;
        c.target_line = to.line;
        c.count = r->arcs[i].calls;
        c.kv = sparse_values(p, r, own, r->arcs[i].kv, r->arcs[i].n_kv);
        c.n_kv = r->arcs[i].n_kv;
        add_call(&p->fns[fi], &c);
    }
    for (i = 0; i < r->n_backs; i++) {
        /* a jump to another function (a tail call, foo.cold and foo) is
         * kept too: what it takes does not fall through */
        const struct hpm_prof_back *b = &r->backs[i];
        struct where from, to;
        struct hpm_prof_jump jp;
        locate(p, r, syms, b->obj, b->site, &from, NULL);
        locate(p, r, syms, object_of(r, b->target), b->target, &to, NULL);
        memset(&jp, 0, sizeof jp);
        jp.target_fn = hpm_profile_fn(p, to.obj, to.file, to.fn);
        jp.site_addr = b->site;
        jp.site_file = from.file;
        jp.site_line = from.line;
        jp.target_addr = b->target;
        jp.target_file = to.file;
        jp.target_line = to.line;
        jp.executed = b->executed;
        jp.taken = b->taken;
        jp.cond = b->executed != b->taken; /* an always taken one is a jump= */
        hpm_profile_add_jump(p, hpm_profile_fn(p, from.obj, from.file, from.fn), &jp);
    }
    return 0;
}

void hpm_profile_add_jump(struct hpm_profile *p, unsigned f, const struct hpm_prof_jump *j)
{
    struct hpm_prof_fn *fn = &p->fns[f];
    struct hpm_prof_jump *nj = hpm__grow(fn->jumps, &fn->cap_jumps, fn->n_jumps + 1, sizeof *nj);
    if (!nj)
        abort();
    fn->jumps = nj;
    nj[fn->n_jumps++] = *j;
}

int hpm_prof_add_records(struct hpm_profile *p, const struct hpm_prof_records *r,
                         struct hpm_symbols *syms, char *err, size_t errlen)
{
    return add_records(p, r, NULL, syms, err, errlen);
}

int hpm_prof_take_records(struct hpm_profile *p, struct hpm_prof_records *r,
                          struct hpm_symbols *syms, char *err, size_t errlen)
{
    struct hpm_prof_kv **t;
    if (!r->kvs)
        return add_records(p, r, NULL, syms, err, errlen);
    t = hpm__grow(p->taken, &p->cap_taken, p->n_taken + 1, sizeof *t);
    if (!t)
        abort();
    p->taken = t;
    if (add_records(p, r, r->kvs, syms, err, errlen) != 0)
        return -1;
    /* the costs point into them now: the profile's */
    p->taken[p->n_taken++] = r->kvs;
    r->kvs = NULL;
    r->n_kvs = 0;
    return 0;
}

int hpm_prof_add_data(struct hpm_profile *d, const struct hpm_prof_records *r,
                      struct hpm_symbols *syms, char *err, size_t errlen)
{
    size_t i;
    unsigned k;
    if (r->n_kinds == 0)
        return 0;
    if (d->n_kinds == 0) {
        d->kinds[0] = strdup("BLOCKS");
        d->kinds[1] = strdup("BYTES");
        if (!d->kinds[0] || !d->kinds[1])
            abort();
        for (k = 0; k < r->n_kinds && k + 2 < HPM_PROF_KINDS_MAX; k++) {
            d->kinds[k + 2] = strdup(r->kinds[k]);
            if (!d->kinds[k + 2])
                abort();
        }
        d->n_kinds = k + 2;
    } else if (d->n_kinds != r->n_kinds + 2) {
        hpm__set_err(err, errlen, "profiles of different events cannot be merged");
        return -1;
    }
    d->has_addr = 1;
    for (i = 0; i < r->n_data; i++) {
        const struct hpm_prof_data *x = &r->data[i];
        /* sparse, as an instruction's: blocks and bytes, then the record's
         * values (a data object has few of a hundred kinds; dense, a
         * Python profile's were 19 MB) */
        struct hpm_prof_kv *kv = (struct hpm_prof_kv *)hpm_profile_values(d, 2 * ((size_t)x->n_kv + 2));
        uint64_t addr = 0;
        unsigned obj = 0, file = 0, line = 0, name, n_kv = 0, j;
        char buf[160];
        if (!kv)
            abort();
        if (x->blocks)
            kv[n_kv++] = (struct hpm_prof_kv){0, x->blocks};
        if (x->bytes)
            kv[n_kv++] = (struct hpm_prof_kv){1, x->bytes};
        for (k = 0; k < x->n_kv; k++) {
            struct hpm_prof_kv y = r->kvs[x->kv + k];
            if (y.kind + 2 >= d->n_kinds)
                continue;
            y.kind += 2;
            /* in kind order (the tool's already: one comparison each) */
            for (j = n_kv; j > 0 && kv[j - 1].kind > y.kind; j--)
                kv[j] = kv[j - 1];
            kv[j] = y;
            n_kv++;
        }
        if (strcmp(x->kind, "heap") == 0) {
            /* named by where it was allocated */
            struct where at, by;
            locate(d, r, syms, object_of(r, x->where), x->where, &at, NULL);
            if (x->from) {
                /* "heap from wl_alloc <- main:52": a wrapper's blocks apart
                 * by their callers */
                locate(d, r, syms, object_of(r, x->from), x->from, &by, NULL);
                snprintf(buf, sizeof buf, "heap from %.40s <- %.40s:%u", d->strs[at.fn],
                         d->strs[by.fn], by.line);
            } else {
                snprintf(buf, sizeof buf, "heap from %.80s", d->strs[at.fn]);
            }
            obj = hpm_profile_str(d, "[heap]");
            name = hpm_profile_str(d, buf);
            file = at.file;
            line = at.line;
            addr = x->where;
        } else if (strcmp(x->kind, "global") == 0) {
            const char *sym = NULL;
            uint64_t start = x->where;
            if (x->obj && syms)
                (void)hpm_symbols_data(syms, &r->objects[x->obj], x->where, &sym, &start);
            obj = x->obj ? hpm_profile_str(d, r->objects[x->obj].path) : 0;
            /* one cost line per variable: its lines add up; the object's
             * data no symbol covers, together */
            name = hpm_profile_str(d, sym ? sym : "(data without a symbol)");
            addr = sym ? start : 0;
        } else {
            snprintf(buf, sizeof buf, "[%s]", x->kind);
            obj = hpm_profile_str(d, buf);
            name = obj;
        }
        {
            unsigned fi = hpm_profile_fn(d, obj, file, name); /* may move d->fns */
            add_cost(&d->fns[fi], addr, file, line, NULL, kv, n_kv);
        }
        for (k = 0; k < n_kv; k++)
            d->totals[kv[k].kind] += kv[k].value;
    }
    d->have_totals = 1;
    return 0;
}

static int cmp_cost(const void *a, const void *b)
{
    const struct hpm_prof_cost *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

static int cmp_call(const void *a, const void *b)
{
    const struct hpm_prof_call *x = a, *y = b;
    if (x->site_addr != y->site_addr)
        return x->site_addr < y->site_addr ? -1 : 1;
    if (x->site_line != y->site_line)
        return x->site_line < y->site_line ? -1 : 1;
    if (x->callee != y->callee)
        return x->callee < y->callee ? -1 : 1;
    return x->target_addr < y->target_addr ? -1 : x->target_addr > y->target_addr;
}

static int cmp_jump(const void *a, const void *b)
{
    const struct hpm_prof_jump *x = a, *y = b;
    if (x->site_addr != y->site_addr)
        return x->site_addr < y->site_addr ? -1 : 1;
    if (x->site_line != y->site_line)
        return x->site_line < y->site_line ? -1 : 1;
    if (x->target_addr != y->target_addr)
        return x->target_addr < y->target_addr ? -1 : 1;
    if (x->target_line != y->target_line)
        return x->target_line < y->target_line ? -1 : 1;
    return x->cond - y->cond;
}

void hpm_profile_finish(struct hpm_profile *p)
{
    size_t i, j, o;
    for (i = 0; i < p->n_fns; i++) {
        struct hpm_prof_fn *f = &p->fns[i];
        if (f->n_costs > 1)
            qsort(f->costs, f->n_costs, sizeof *f->costs, cmp_cost);
        for (j = 0, o = 0; j < f->n_costs; j++) {
            if (o > 0 && cmp_cost(&f->costs[o - 1], &f->costs[j]) == 0) {
                struct hpm_prof_cost *to = &f->costs[o - 1];
                densify(p, &to->v, &to->kv, &to->n_kv);
                hpm_prof_add_values(to->v, f->costs[j].v, f->costs[j].kv, f->costs[j].n_kv, p->n_kinds);
            } else {
                f->costs[o++] = f->costs[j];
            }
        }
        f->n_costs = o;
        if (f->n_calls > 1)
            qsort(f->calls, f->n_calls, sizeof *f->calls, cmp_call);
        for (j = 0, o = 0; j < f->n_calls; j++) {
            if (o > 0 && cmp_call(&f->calls[o - 1], &f->calls[j]) == 0) {
                struct hpm_prof_call *to = &f->calls[o - 1];
                densify(p, &to->v, &to->kv, &to->n_kv);
                hpm_prof_add_values(to->v, f->calls[j].v, f->calls[j].kv, f->calls[j].n_kv, p->n_kinds);
                to->count += f->calls[j].count;
            } else {
                f->calls[o++] = f->calls[j];
            }
        }
        f->n_calls = o;
        if (f->n_jumps > 1)
            qsort(f->jumps, f->n_jumps, sizeof *f->jumps, cmp_jump);
        for (j = 0, o = 0; j < f->n_jumps; j++) {
            if (o > 0 && cmp_jump(&f->jumps[o - 1], &f->jumps[j]) == 0) {
                f->jumps[o - 1].executed += f->jumps[j].executed;
                f->jumps[o - 1].taken += f->jumps[j].taken;
            } else {
                f->jumps[o++] = f->jumps[j];
            }
        }
        f->n_jumps = o;
    }
}

void hpm_profile_sum(const struct hpm_profile *p, uint64_t *sum)
{
    size_t i, j;
    memset(sum, 0, p->n_kinds * sizeof *sum);
    for (i = 0; i < p->n_fns; i++)
        for (j = 0; j < p->fns[i].n_costs; j++) {
            const struct hpm_prof_cost *c = &p->fns[i].costs[j];
            hpm_prof_add_values(sum, c->v, c->kv, c->n_kv, p->n_kinds);
        }
}
