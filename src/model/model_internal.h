/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * model_internal.h - layouts and the inlined per-line step shared by the
 * model's files. Not installed; the vpmu tool uses model.h only.
 */
#ifndef HPM_MODEL_INTERNAL_H
#define HPM_MODEL_INTERNAL_H

#include "model.h"

/* A way holds (line number << 1) | dirty. Empty ways hold HPM__EMPTY, which
 * no line number can produce (lines are >= 4 bytes, so line numbers are
 * < 2^62). Comparing (way ^ key) < 2 ignores the dirty bit in one step. */
#define HPM__EMPTY (~(uint64_t)0)

struct hpm_cache {
    struct hpm_cache_params p;
    uint32_t ways;
    uint32_t line_bits;
    uint64_t set_mask;
    uint32_t policy;
    uint32_t rng;
    uint64_t *tags; /* sets * ways, set-major, way 0 = MRU (LRU) / newest (FIFO) */
    struct hpm_cache_stats st;
    /* Highly associative caches (>= HPM__INDEX_MIN_WAYS ways: BG/P's 64-way
     * L1s, 64-entry fully associative TLBs) are not scanned way by way: a
     * hash table from line number to slot finds a line in O(1), and the
     * replacement order is kept without moving tags: LRU by a use stamp per
     * slot (the victim is the smallest), FIFO by a per-set ring head (hits
     * do not reorder, so the oldest line is the next slot of the ring),
     * RANDOM by position as before. Outcomes are exactly those of the
     * scanned layout (tests/model: test_indexed_equivalence). NULL index =
     * scanned layout. */
    uint32_t *index;   /* index_mask + 1 entries: slot + 1, 0 = free */
    uint64_t index_mask;
    uint32_t index_shift; /* 64 - log2(entries): Fibonacci hashing */
    uint64_t ix_used;  /* index entries taken, stale ones included */
    uint64_t ix_limit; /* rebuilt beyond this (half the entries) */
    uint64_t *stamp;   /* LRU: per slot, the clock of its last use (0 = never) */
    uint32_t *head;    /* FIFO: per set, the way the next fill replaces */
    uint64_t clock;
    /* FIFO and RANDOM indexed caches: lines known resident, direct-mapped
     * by a hash of the line number, each entry the line's tag word (key | dirty) or
     * HPM__EMPTY. A hit there changes nothing (no reordering), so a hint
     * answers it without the index and tag loads, which the program's own
     * data keeps evicting from the host's caches. Kept true where lines
     * come and go (a fill sets the new line's, drops the victim's); a
     * hint's dirty bit may lag the tag's (a store then takes the index). */
    uint64_t *hint;
    uint32_t hint_shift; /* 64 - log2(hints): hashed, as arrays a power of
                          * two apart (three streams) would share slots */
};

/* A TLB is a cache of pages (line_bits = log2 of the page size), LRU. */
struct hpm_tlb {
    struct hpm_tlb_params p;
    struct hpm_tlb_stats st;
    struct hpm_cache c;
};

/* From this many ways on, a cache is indexed (see struct hpm_cache). Below
 * it, a scan of the set's ways is as fast. */
#define HPM__INDEX_MIN_WAYS 32u

#define HPM__ALIGN8(n) (((n) + 7u) & ~(size_t)7u)

static inline int hpm__is_pow2_64(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

static inline uint32_t hpm__log2_64(uint64_t v)
{
    uint32_t b = 0;
    while (v > 1) {
        v >>= 1;
        b++;
    }
    return b;
}

static inline void hpm__zero(void *p, size_t n)
{
    /* volatile keeps the compiler from turning this back into memset */
    volatile unsigned char *d = (volatile unsigned char *)p;
    while (n--)
        *d++ = 0;
}

/* Struct copies without the memcpy call compilers emit for them (clang
 * does even with -ffreestanding, and a Valgrind tool has no memcpy). Cold
 * paths only (init); statistics are copied by HPM__STATS_COPY. */
static inline void hpm__copy(void *dst, const void *src, size_t n)
{
    volatile unsigned char *d = (volatile unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    while (n--)
        *d++ = *s++;
}
#define HPM__COPY(dst, src) hpm__copy((dst), (src), sizeof *(dst) + 0 * sizeof(*(dst) = *(src)))

/* A statistics struct (64-bit counters only) copied word by word: the
 * virtual PMU reads every model's statistics at each flush, which a
 * program's PAPI_read makes, so this is on a read's path (bytewise it was
 * a tenth of a read's host time). */
static inline void hpm__copy_words(void *dst, const void *src, size_t words)
{
    volatile uint64_t *d = (volatile uint64_t *)dst;
    const uint64_t *s = (const uint64_t *)src;
    while (words--)
        *d++ = *s++;
}
#define HPM__STATS_COPY(dst, src)                                                                  \
    do {                                                                                           \
        _Static_assert(sizeof *(dst) % sizeof(uint64_t) == 0, "64-bit counters only");              \
        hpm__copy_words((dst), (src), sizeof *(dst) / sizeof(uint64_t) + 0 * sizeof(*(dst) = *(src))); \
    } while (0)

/* The hints of an indexed FIFO or random cache (struct hpm_cache): at
 * most HPM__HINTS (2 KiB, small enough to stay in the host's L1 beside
 * the program's data), an L1I at most HPM__HINTS_L1I: code calls between
 * many lines (a PAPI_start with its PAPI_stop fetches from about 80),
 * which collide in 256, and an L1I's hints are the only ones its fetches
 * touch. */
#define HPM__HINTS 256u
#define HPM__HINTS_L1I 1024u

/* Bytes a cache of sets x ways needs after its tags (the index of an
 * indexed cache, with at most hint_max hints; 0 for a scanned one). A
 * multiple of 8. */
size_t hpm__cache_extra_size(uint64_t sets, uint64_t ways, uint64_t hint_max);

/* Sets up c over `tags` (sets * ways words, followed by
 * hpm__cache_extra_size bytes), all ways empty. */
void hpm__cache_setup(struct hpm_cache *c, uint64_t sets, uint32_t ways, uint32_t line_bits,
                      uint32_t policy, uint32_t seed, uint64_t *tags, uint64_t hint_max);

/* hpm_cache_storage_size and hpm_cache_init with at most hint_max hints
 * (the public ones: HPM__HINTS). */
size_t hpm__cache_storage_size_hints(const struct hpm_cache_params *p, uint64_t hint_max);
int hpm__cache_init_hints(struct hpm_cache **out, const struct hpm_cache_params *p, void *storage,
                          size_t size, uint64_t hint_max);

/* ------------------------------------------------- the index (indexed caches) */

/* Fibonacci hashing: the top 64 - shift bits of x times 2^64 / phi (the
 * index, the hints, the vpmu tool's TLB memo). */
static inline uint64_t hpm__fib_hash(uint64_t x, uint32_t shift)
{
    return (x * 0x9E3779B97F4A7C15ull) >> shift;
}

static inline uint64_t hpm__ix_hash(const struct hpm_cache *c, uint64_t line)
{
    return hpm__fib_hash(line, c->index_shift);
}

/* Slot holding key (line << 1), or -1. */
static inline int64_t hpm__ix_lookup(const struct hpm_cache *c, uint64_t key)
{
    uint64_t h = hpm__ix_hash(c, key >> 1);
    for (;;) {
        uint32_t e = c->index[h];
        if (!e)
            return -1;
        if ((c->tags[e - 1] ^ key) < 2)
            return (int64_t)e - 1;
        h = (h + 1) & c->index_mask;
    }
}

static inline void hpm__ix_insert(struct hpm_cache *c, uint64_t line, uint64_t slot)
{
    uint64_t h = hpm__ix_hash(c, line);
    while (c->index[h])
        h = (h + 1) & c->index_mask;
    c->index[h] = (uint32_t)(slot + 1);
}

/* Evicted lines keep their index entries: a lookup takes an entry only
 * where its slot holds the key (any such slot is the line's: a line is in
 * at most one slot), so a stale entry is passed over like a colliding one.
 * That spares each fill the backward-shift deletion (a walk of the probe
 * cluster rehashing every entry, 11% of a BG/P run). Entries are never
 * freed one by one: once half the index is taken (stale ones included) it
 * is rebuilt from the resident lines, with four entries per line, every
 * `lines` fills at most, so probing stays as short as before (load factor
 * 1/4 to 1/2). */
static inline void hpm__ix_rebuild(struct hpm_cache *c)
{
    uint64_t i, n = (c->set_mask + 1) * c->ways, used = 0;
    for (i = 0; i <= c->index_mask; i++)
        c->index[i] = 0;
    for (i = 0; i < n; i++)
        if (c->tags[i] != HPM__EMPTY) {
            hpm__ix_insert(c, c->tags[i] >> 1, i);
            used++;
        }
    c->ix_used = used;
}

/* ------------------------------------------- hints (FIFO and RANDOM, indexed) */

static inline int hpm__hinted(const struct hpm_cache *c)
{
    return c->index && c->policy != HPM_REPL_LRU;
}

static inline uint64_t *hpm__hint_of(const struct hpm_cache *c, uint64_t line)
{
    return &c->hint[hpm__fib_hash(line, c->hint_shift)];
}

/* The line of key is hinted resident: a hit that changes nothing (a store
 * needs the line dirty already). Its tag word is *hpm__hint_of. */
static inline int hpm__hint_hit(const struct hpm_cache *c, uint64_t key, unsigned write)
{
    uint64_t h = *hpm__hint_of(c, key >> 1);
    return (h ^ key) < 2 && (h & 1) >= write;
}

static inline void hpm__hint_set(struct hpm_cache *c, uint64_t w)
{
    *hpm__hint_of(c, w >> 1) = w;
}

/* The line of tag word w left the cache. */
static inline void hpm__hint_drop(struct hpm_cache *c, uint64_t w)
{
    uint64_t *h = hpm__hint_of(c, w >> 1);
    if ((*h ^ w) < 2)
        *h = HPM__EMPTY;
}

/* RANDOM replacement's victim among n ways: the cache's xorshift32
 * generator, one step (seeded per cache, so runs repeat). */
static inline uint32_t hpm__random_way(struct hpm_cache *c, uint32_t n)
{
    uint32_t x = c->rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    c->rng = x;
    return x % n;
}

/* hpm__line_ref of an indexed cache. Its hit path is mirrored by
 * hpm_cache_probe_hit (cache_probe.h): a change here is a change there
 * (model.cache_probe compares them). */
static inline unsigned hpm__line_ref_ix(struct hpm_cache *c, uint64_t line, unsigned write,
                                        uint64_t *wb)
{
    uint64_t key = line << 1, base, slot, w;
    /* the hints are the probe's (the vpmu tool's L1 path asks them before
     * it comes here); the models keep them true */
    int64_t s = hpm__ix_lookup(c, key);
    uint32_t n = c->ways, i;
    if (s >= 0) {
        c->tags[s] |= write;
        if (c->policy == HPM_REPL_LRU)
            c->stamp[s] = ++c->clock;
        return 0;
    }
    base = (line & c->set_mask) * n;
    if (c->policy == HPM_REPL_RANDOM) {
        i = hpm__random_way(c, n);
    } else if (c->policy == HPM_REPL_FIFO) {
        uint32_t *hd = &c->head[line & c->set_mask];
        i = *hd;
        *hd = i + 1 == n ? 0 : i + 1;
    } else { /* LRU: the least recently used slot (an empty one first) */
        const uint64_t *st = c->stamp + base;
        uint64_t best = st[0];
        uint32_t k;
        i = 0;
        for (k = 1; k < n; k++)
            if (st[k] < best) {
                best = st[k];
                i = k;
            }
    }
    slot = base + i;
    w = c->tags[slot];
    c->tags[slot] = key | write; /* the evicted line's entry goes stale */
    if (hpm__hinted(c)) {
        if (w != HPM__EMPTY)
            hpm__hint_drop(c, w);
        hpm__hint_set(c, key | write);
    }
    hpm__ix_insert(c, line, slot);
    if (++c->ix_used > c->ix_limit)
        hpm__ix_rebuild(c);
    if (c->policy == HPM_REPL_LRU)
        c->stamp[slot] = ++c->clock;
    c->st.fills++;
    if (w != HPM__EMPTY && (w & 1)) {
        c->st.writebacks++;
        *wb = w >> 1;
        return 3;
    }
    return 1;
}

/* hpm__line_ref of a scanned cache (c->index == NULL); its hit path is
 * mirrored by hpm_cache_probe_hit (cache_probe.h). Always inlined: the
 * vpmu tool's L1 path (hier_access_inline) has it without a call, as
 * cachegrind's cachesim_*_doref are inlined into its helpers. */
static inline __attribute__((always_inline)) unsigned
hpm__line_ref_scan(struct hpm_cache *c, uint64_t line, unsigned write, uint64_t *wb)
{
    uint64_t *set = c->tags + (size_t)(line & c->set_mask) * c->ways;
    uint64_t key = line << 1;
    uint64_t w = set[0];
    uint32_t n = c->ways, i, j;

    if ((w ^ key) < 2) { /* MRU fast path */
        set[0] = w | write;
        return 0;
    }
    for (i = 1; i < n; i++) {
        w = set[i];
        if ((w ^ key) < 2) {
            if (c->policy == HPM_REPL_LRU) {
                for (j = i; j > 0; j--)
                    set[j] = set[j - 1];
                set[0] = w | write;
            } else {
                set[i] = w | write;
            }
            return 0;
        }
    }
    /* Miss: LRU and FIFO evict the last way and insert at way 0. */
    if (c->policy == HPM_REPL_RANDOM) {
        i = hpm__random_way(c, n);
        w = set[i];
        set[i] = key | write;
    } else {
        w = set[n - 1];
        for (j = n - 1; j > 0; j--)
            set[j] = set[j - 1];
        set[0] = key | write;
    }
    c->st.fills++;
    if (w != HPM__EMPTY && (w & 1)) {
        c->st.writebacks++;
        *wb = w >> 1;
        return 3;
    }
    return 1;
}

/* One line reference: returns bit 0 = miss, bit 1 = a dirty line was evicted
 * (its line number stored in *wb). Updates replacement state, fills and
 * writebacks; access counters are the caller's. */
static inline unsigned hpm__line_ref(struct hpm_cache *c, uint64_t line, unsigned write,
                                     uint64_t *wb)
{
    if (c->index)
        return hpm__line_ref_ix(c, line, write, wb);
    return hpm__line_ref_scan(c, line, write, wb);
}

/* Marks line dirty if present, without touching replacement order. */
static inline int hpm__mark_dirty(struct hpm_cache *c, uint64_t line)
{
    uint64_t *set = c->tags + (size_t)(line & c->set_mask) * c->ways;
    uint64_t key = line << 1;
    uint32_t i;
    if (c->index) {
        int64_t s = hpm__ix_lookup(c, key);
        if (s < 0)
            return 0;
        c->tags[s] |= 1;
        if (hpm__hinted(c))
            hpm__hint_set(c, c->tags[s]);
        return 1;
    }
    for (i = 0; i < c->ways; i++) {
        if ((set[i] ^ key) < 2) {
            set[i] |= 1;
            return 1;
        }
    }
    return 0;
}

static inline int hpm__line_present(const struct hpm_cache *c, uint64_t line)
{
    const uint64_t *set = c->tags + (size_t)(line & c->set_mask) * c->ways;
    uint64_t key = line << 1;
    uint32_t i;
    if (c->index)
        return hpm__ix_lookup(c, key) >= 0;
    for (i = 0; i < c->ways; i++)
        if ((set[i] ^ key) < 2)
            return 1;
    return 0;
}

/* First and last line an access covers (size 0 counts as 1; no wrap past 2^64). */
static inline void hpm__line_span(uint32_t line_bits, uint64_t addr, uint32_t size,
                                  uint64_t *first, uint64_t *last)
{
    uint64_t end = addr + (size ? size - 1u : 0u);
    if (end < addr)
        end = ~(uint64_t)0;
    *first = addr >> line_bits;
    *last = end >> line_bits;
}

#endif
