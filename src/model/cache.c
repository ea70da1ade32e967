/* SPDX-License-Identifier: BSD-3-Clause */
/* cache.c - set-associative cache and TLB (a TLB is a cache of pages). */
#include "model_internal.h"

const char *hpm_model_strerror(int err)
{
    static const char *const msg[] = {
        "ok", "invalid parameters", "storage too small", "NULL pointer",
        "storage not 8-byte aligned", "index out of range",
    };
    unsigned i = (unsigned)(-err);
    if (err > 0 || i >= sizeof msg / sizeof msg[0])
        return "unknown error";
    return msg[i];
}

#define HPM__MAX_LINE (1u << 20)

/* Ways of a valid geometry (fully associative resolved). */
static uint64_t cache_ways(const struct hpm_cache_params *p)
{
    return p->assoc ? p->assoc : (p->line ? p->size / p->line : 0);
}

int hpm_cache_params_check(const struct hpm_cache_params *p)
{
    uint64_t lines, ways;
    if (!p)
        return HPM_MODEL_ENULL;
    if (p->line < 4 || p->line > HPM__MAX_LINE || !hpm__is_pow2_64(p->line))
        return HPM_MODEL_EPARAM;
    if (p->size == 0 || p->size % p->line != 0 || p->policy > HPM_REPL_RANDOM)
        return HPM_MODEL_EPARAM;
    lines = p->size / p->line;
    ways = cache_ways(p);
    if (ways == 0 || ways > 0xffffffffu || lines % ways != 0)
        return HPM_MODEL_EPARAM;
    if (!hpm__is_pow2_64(lines / ways))
        return HPM_MODEL_EPARAM;
    /* storage size must be representable */
    if (lines > ((uint64_t)1 << 40))
        return HPM_MODEL_EPARAM;
    return HPM_MODEL_OK;
}

size_t hpm__cache_storage_size_hints(const struct hpm_cache_params *p, uint64_t hint_max)
{
    if (hpm_cache_params_check(p) != HPM_MODEL_OK)
        return 0;
    return HPM__ALIGN8(sizeof(struct hpm_cache)) + (size_t)(p->size / p->line) * 8u +
           hpm__cache_extra_size(p->size / p->line / cache_ways(p), cache_ways(p), hint_max);
}

size_t hpm_cache_storage_size(const struct hpm_cache_params *p)
{
    return hpm__cache_storage_size_hints(p, HPM__HINTS);
}

/* Index entries of an indexed cache: a power of two >= 4 x lines, so that
 * linear probing stays short with the stale entries of evicted lines
 * (hpm__ix_rebuild: load factor 1/4 to 1/2). */
static uint64_t index_entries(uint64_t lines)
{
    uint64_t e = 1;
    while (e < 4 * lines)
        e <<= 1;
    return e;
}

/* Hints of an indexed cache (struct hpm_cache): a power of two, at most
 * hint_max (model_internal.h: HPM__HINTS, HPM__HINTS_L1I), at most half
 * the lines. */
static uint64_t hint_entries(uint64_t lines, uint64_t hint_max)
{
    uint64_t e = 1;
    while (e < hint_max && 2 * e <= lines)
        e <<= 1;
    return e;
}

size_t hpm__cache_extra_size(uint64_t sets, uint64_t ways, uint64_t hint_max)
{
    uint64_t lines = sets * ways;
    if (ways < HPM__INDEX_MIN_WAYS)
        return 0;
    /* index (uint32), stamps (uint64 per slot), ring heads (uint32 per set),
     * hints (uint64) */
    return HPM__ALIGN8((size_t)index_entries(lines) * 4u) + (size_t)lines * 8u +
           HPM__ALIGN8((size_t)sets * 4u) + (size_t)hint_entries(lines, hint_max) * 8u;
}

/* Empties c: every way, and the index, stamps and ring heads with it. */
static void cache_empty(struct hpm_cache *c)
{
    uint64_t i, sets = c->set_mask + 1, n = sets * c->ways;
    for (i = 0; i < n; i++)
        c->tags[i] = HPM__EMPTY;
    if (c->index) {
        for (i = 0; i <= c->index_mask; i++)
            c->index[i] = 0;
        c->ix_used = 0;
        for (i = 0; i < n; i++)
            c->stamp[i] = 0;
        for (i = 0; i < sets; i++)
            c->head[i] = 0;
        c->clock = 0;
        for (i = 0; i < (uint64_t)1 << (64 - c->hint_shift); i++)
            c->hint[i] = HPM__EMPTY;
    }
}

void hpm__cache_setup(struct hpm_cache *c, uint64_t sets, uint32_t ways, uint32_t line_bits,
                      uint32_t policy, uint32_t seed, uint64_t *tags, uint64_t hint_max)
{
    uint64_t n = sets * ways;
    hpm__zero(&c->st, sizeof c->st);
    c->ways = ways;
    c->line_bits = line_bits;
    c->set_mask = sets - 1;
    c->policy = policy;
    c->rng = seed ? seed : 0x9e3779b9u;
    c->tags = tags;
    c->index = 0;
    c->stamp = 0;
    c->head = 0;
    c->hint = 0;
    c->hint_shift = 0;
    if (hpm__cache_extra_size(sets, ways, hint_max)) {
        uint64_t e = index_entries(n);
        char *at = (char *)(tags + n);
        c->index = (uint32_t *)at;
        c->index_mask = e - 1;
        c->index_shift = 64u - hpm__log2_64(e);
        c->ix_limit = e / 2;
        at += HPM__ALIGN8((size_t)e * 4u);
        c->stamp = (uint64_t *)at;
        at += (size_t)n * 8u;
        c->head = (uint32_t *)at;
        at += HPM__ALIGN8((size_t)sets * 4u);
        c->hint = (uint64_t *)at;
        c->hint_shift = 64u - hpm__log2_64(hint_entries(n, hint_max));
    }
    cache_empty(c);
}

static int check_storage(const void *storage, size_t have, size_t need)
{
    if (!storage)
        return HPM_MODEL_ENULL;
    if (((uintptr_t)storage & 7u) != 0)
        return HPM_MODEL_EALIGN;
    if (need == 0)
        return HPM_MODEL_EPARAM;
    if (have < need)
        return HPM_MODEL_ENOMEM;
    return HPM_MODEL_OK;
}

int hpm__cache_init_hints(struct hpm_cache **out, const struct hpm_cache_params *p, void *storage,
                          size_t size, uint64_t hint_max)
{
    struct hpm_cache *c;
    uint64_t ways, sets;
    int err;
    if (!out || !p)
        return HPM_MODEL_ENULL;
    err = check_storage(storage, size, hpm__cache_storage_size_hints(p, hint_max));
    if (err)
        return err;
    c = (struct hpm_cache *)storage;
    HPM__COPY(&c->p, p);
    ways = cache_ways(p);
    sets = p->size / p->line / ways;
    hpm__cache_setup(c, sets, (uint32_t)ways, hpm__log2_64(p->line), p->policy, p->seed,
                     (uint64_t *)((char *)storage + HPM__ALIGN8(sizeof(struct hpm_cache))),
                     hint_max);
    *out = c;
    return HPM_MODEL_OK;
}

int hpm_cache_init(struct hpm_cache **out, const struct hpm_cache_params *p, void *storage,
                   size_t size)
{
    return hpm__cache_init_hints(out, p, storage, size, HPM__HINTS);
}

int hpm_cache_access(struct hpm_cache *c, uint64_t addr, uint32_t size, int write)
{
    uint64_t first, last, line, wb;
    unsigned w = write ? 1u : 0u, miss = 0;
    hpm__line_span(c->line_bits, addr, size, &first, &last);
    if (first == last) { /* the common case: one line */
        miss = hpm__line_ref(c, first, w, &wb);
    } else {
        for (line = first;; line++) {
            miss |= hpm__line_ref(c, line, w, &wb);
            if (line == last)
                break;
        }
    }
    miss &= 1;
    /* branch-free: reads and writes sit next to each other in st */
    (&c->st.read_accesses)[3 * w]++;
    (&c->st.read_misses)[3 * w] += miss;
    return (int)miss;
}

int hpm_cache_probe(const struct hpm_cache *c, uint64_t addr)
{
    return hpm__line_present(c, addr >> c->line_bits);
}

void hpm_cache_stats(const struct hpm_cache *c, struct hpm_cache_stats *s)
{
    HPM__STATS_COPY(s, &c->st);
    s->read_hits = s->read_accesses - s->read_misses;
    s->write_hits = s->write_accesses - s->write_misses;
}

void hpm_cache_reset_stats(struct hpm_cache *c) { hpm__zero(&c->st, sizeof c->st); }

void hpm_cache_flush(struct hpm_cache *c) { cache_empty(c); }

void hpm_cache_cachegrind_cold(struct hpm_cache *c)
{
    uint64_t i, n = (c->set_mask + 1) * c->ways;
    /* an indexed cache holds each line once: it cannot hold line 0 in
     * every way (cachegrind's geometries are far below its ways) */
    if (c->index)
        return;
    for (i = 0; i < n; i++)
        c->tags[i] = 0;
}

const struct hpm_cache_params *hpm_cache_params_of(const struct hpm_cache *c) { return &c->p; }

/* ---------------------------------------------------------------- TLB */

int hpm_tlb_params_check(const struct hpm_tlb_params *p)
{
    uint32_t ways;
    if (!p)
        return HPM_MODEL_ENULL;
    if (p->entries == 0 || p->entries > (1u << 24))
        return HPM_MODEL_EPARAM;
    if (p->page_size < 4 || !hpm__is_pow2_64(p->page_size) || p->page_size > ((uint64_t)1 << 40))
        return HPM_MODEL_EPARAM;
    ways = p->assoc ? p->assoc : p->entries;
    if (p->entries % ways != 0 || !hpm__is_pow2_64(p->entries / ways))
        return HPM_MODEL_EPARAM;
    return HPM_MODEL_OK;
}

size_t hpm_tlb_storage_size(const struct hpm_tlb_params *p)
{
    uint32_t ways;
    if (hpm_tlb_params_check(p) != HPM_MODEL_OK)
        return 0;
    ways = p->assoc ? p->assoc : p->entries;
    return HPM__ALIGN8(sizeof(struct hpm_tlb)) + (size_t)p->entries * 8u +
           hpm__cache_extra_size(p->entries / ways, ways, HPM__HINTS);
}

int hpm_tlb_init(struct hpm_tlb **out, const struct hpm_tlb_params *p, void *storage,
                 size_t size)
{
    struct hpm_tlb *t;
    uint32_t ways;
    int err;
    if (!out || !p)
        return HPM_MODEL_ENULL;
    err = check_storage(storage, size, hpm_tlb_storage_size(p));
    if (err)
        return err;
    t = (struct hpm_tlb *)storage;
    HPM__COPY(&t->p, p);
    hpm__zero(&t->st, sizeof t->st);
    ways = p->assoc ? p->assoc : p->entries;
    hpm__zero(&t->c.p, sizeof t->c.p);
    hpm__cache_setup(&t->c, p->entries / ways, ways, hpm__log2_64(p->page_size), HPM_REPL_LRU,
                     0, (uint64_t *)((char *)storage + HPM__ALIGN8(sizeof(struct hpm_tlb))),
                     HPM__HINTS);
    *out = t;
    return HPM_MODEL_OK;
}

int hpm_tlb_access(struct hpm_tlb *t, uint64_t addr, uint32_t size)
{
    uint64_t first, last, page, wb;
    unsigned miss = 0;
    hpm__line_span(t->c.line_bits, addr, size, &first, &last);
    for (page = first;; page++) {
        miss |= hpm__line_ref(&t->c, page, 0, &wb);
        if (page == last)
            break;
    }
    miss &= 1;
    t->st.accesses++;
    t->st.misses += miss;
    return (int)miss;
}

void hpm_tlb_stats(const struct hpm_tlb *t, struct hpm_tlb_stats *s)
{
    HPM__STATS_COPY(s, &t->st);
    s->hits = s->accesses - s->misses;
}
