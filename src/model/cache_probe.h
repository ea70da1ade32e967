/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cache_probe.h - the hit path of a cache and of a TLB without their miss
 * path: what the vpmu tool's helpers ask first (its L1 and TLB probes), so
 * that an L1 hit costs no call into the models.
 *
 * A probe that hits does to the cache exactly what the model's access
 * (hpm__line_ref_scan, hpm__line_ref_ix in model_internal.h; hpm_tlb_access
 * in cache.c) does on a hit, and nothing else: in a scanned cache the
 * dirty bit of a store and, under LRU, the move of the line to way 0; in an
 * indexed one the dirty bit and, under LRU, the next use stamp. Its
 * statistics are not touched (a hit adds to accesses and to hits alike;
 * the caller counts what it reports). A probe that misses changes nothing.
 * THESE FUNCTIONS MUST AGREE WITH THOSE HIT PATHS: tests/model
 * (test_cache_probe.c) runs random access streams through a probe and
 * through the model side by side, for scanned and indexed geometries of
 * every policy, and compares the outcome and the whole replacement state
 * after every access.
 *
 * Freestanding and header-only (static inline), as model_internal.h.
 */
#ifndef HPM_CACHE_PROBE_H
#define HPM_CACHE_PROBE_H

#include "model_internal.h"

/* What hpm_cache_probe_hit answers. */
enum {
    HPM_PROBE_MISS = 0,    /* not resident: nothing changed, take the model */
    HPM_PROBE_CLEAN = 1,   /* a hit; the line is clean after it */
    HPM_PROBE_DIRTY = 2,   /* a hit; the line is dirty after it */
    HPM_PROBE_CLEAN_STORE = 3, /* coherent: a store hit a clean line; nothing
                                * changed (the caller's coherence decides:
                                * probe again not coherent, or the model) */
};

/* Line number `line` of c, a store when write is 1. coherent (0 or 1):
 * the cache is a coherent L1D, where a store to a clean line is a
 * coherence request the probe does not make (HPM_PROBE_CLEAN_STORE). */
static inline __attribute__((always_inline)) unsigned
hpm_cache_probe_hit(struct hpm_cache *c, uint64_t line, unsigned write, unsigned coherent)
{
    uint64_t key = line << 1, v, *w;
    if (!c->index) {
        uint64_t *set = c->tags + (size_t)(line & c->set_mask) * c->ways;
        uint32_t i, n = c->ways;
        w = set;
        if ((*w ^ key) >= 2) {
            /* a hit off way 0: LRU moves it to the front, as the model's
             * hit does */
            for (i = 1; i < n && (set[i] ^ key) >= 2; i++)
                ;
            if (i == n)
                return HPM_PROBE_MISS;
            if (write & coherent & !(set[i] & 1))
                return HPM_PROBE_CLEAN_STORE;
            v = set[i] | write;
            if (c->policy == HPM_REPL_LRU) {
                for (; i > 0; i--)
                    set[i] = set[i - 1];
                set[0] = v;
            } else {
                set[i] = v;
            }
            return 1 + (unsigned)(v & 1);
        }
    } else {
        int64_t slot;
        /* hints (FIFO, RANDOM): a hit that changes nothing */
        if (hpm__hinted(c) && hpm__hint_hit(c, key, write))
            return 1 + (unsigned)(*hpm__hint_of(c, line) & 1);
        slot = hpm__ix_lookup(c, key);
        if (slot < 0)
            return HPM_PROBE_MISS;
        if (write & coherent & !(c->tags[slot] & 1))
            return HPM_PROBE_CLEAN_STORE;
        w = &c->tags[slot];
        if (c->policy == HPM_REPL_LRU)
            c->stamp[slot] = ++c->clock;
    }
    if (write & coherent & !(*w & 1)) /* way 0 of a scanned cache, clean */
        return HPM_PROBE_CLEAN_STORE;
    v = *w | write;
    *w = v;
    if (hpm__hinted(c))
        hpm__hint_set(c, v); /* hinted from now on */
    return 1 + (unsigned)(v & 1);
}

/* A TLB memo: direct-mapped by a hash of the page number, the slot where
 * the probe last found a page in an indexed (LRU) TLB. Slots move only at
 * a fill, which happens only in a TLB miss: the caller empties the memo
 * whenever hpm_tlb_access returns a miss (and when the TLB is reset). */
#define HPM_TLB_MEMO_N 32u
#define HPM_TLB_MEMO_SHIFT (64u - 5u)
#define HPM_TLB_MEMO_EMPTY (~(uint64_t)0) /* no page number: pages are >= 4 bytes */
struct hpm_tlb_memo {
    uint64_t page;
    uint64_t slot;
};
_Static_assert(HPM_TLB_MEMO_N == 1u << (64u - HPM_TLB_MEMO_SHIFT), "memo hash");

static inline void hpm_tlb_memo_clear(struct hpm_tlb_memo *m)
{
    uint32_t i;
    for (i = 0; i < HPM_TLB_MEMO_N; i++)
        m[i].page = HPM_TLB_MEMO_EMPTY;
}

/* An indexed TLB's hit when the memo holds the page: 1, with its use
 * stamp taken (all that hpm_tlb_access does on a hit); 0 when the memo
 * does not hold it, nothing changed (the page may still be in the TLB:
 * hpm_tlb_probe_hit asks the index). */
static inline __attribute__((always_inline)) int
hpm_tlb_memo_hit(struct hpm_tlb *t, const struct hpm_tlb_memo *memo, uint64_t page)
{
    const struct hpm_tlb_memo *m = &memo[hpm__fib_hash(page, HPM_TLB_MEMO_SHIFT)];
    if (m->page != page)
        return 0;
    t->c.stamp[m->slot] = ++t->c.clock;
    return 1;
}

/* Page number `page` of t: 1 = a hit, with all that hpm_tlb_access does
 * on a hit (the next use stamp, or the move to way 0; its access count
 * aside); 0 = a miss, nothing changed. An indexed TLB (BG/P's 64 entries)
 * finds the page's slot in the memo first: its hash, probe and tag loads
 * were a sixth of a run where nearly every data access probed the DTLB. */
static inline __attribute__((always_inline)) int
hpm_tlb_probe_hit(struct hpm_tlb *t, struct hpm_tlb_memo *memo, uint64_t page)
{
    struct hpm_cache *c = &t->c;
    if (c->index) { /* LRU, as every TLB */
        struct hpm_tlb_memo *m;
        int64_t slot;
        if (hpm_tlb_memo_hit(t, memo, page))
            return 1;
        slot = hpm__ix_lookup(c, page << 1);
        if (slot < 0)
            return 0;
        m = &memo[hpm__fib_hash(page, HPM_TLB_MEMO_SHIFT)];
        m->page = page;
        m->slot = (uint64_t)slot;
        c->stamp[slot] = ++c->clock;
        return 1;
    }
    return hpm_cache_probe_hit(c, page, 0, 0) != HPM_PROBE_MISS;
}

#endif
