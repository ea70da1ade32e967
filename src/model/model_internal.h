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
};

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
 * paths only (init, statistics). */
static inline void hpm__copy(void *dst, const void *src, size_t n)
{
    volatile unsigned char *d = (volatile unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    while (n--)
        *d++ = *s++;
}
#define HPM__COPY(dst, src) hpm__copy((dst), (src), sizeof *(dst) + 0 * sizeof(*(dst) = *(src)))

/* Sets up c over `tags` (sets * ways words), all ways empty. */
void hpm__cache_setup(struct hpm_cache *c, uint64_t sets, uint32_t ways, uint32_t line_bits,
                      uint32_t policy, uint32_t seed, uint64_t *tags);

/* One line reference: returns bit 0 = miss, bit 1 = a dirty line was evicted
 * (its line number stored in *wb). Updates replacement state, fills and
 * writebacks; access counters are the caller's. */
static inline unsigned hpm__line_ref(struct hpm_cache *c, uint64_t line, unsigned write,
                                     uint64_t *wb)
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
        uint32_t x = c->rng;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        c->rng = x;
        i = x % n;
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

/* Marks line dirty if present, without touching replacement order. */
static inline int hpm__mark_dirty(struct hpm_cache *c, uint64_t line)
{
    uint64_t *set = c->tags + (size_t)(line & c->set_mask) * c->ways;
    uint64_t key = line << 1;
    uint32_t i;
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
