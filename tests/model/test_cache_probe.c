/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_cache_probe - the hit probes of src/model/cache_probe.h agree with
 * the models they mirror. Two copies of one cache (or TLB) take the same
 * random stream of line references: the reference copy through the
 * model's access (hpm_cache_access, hpm_tlb_access), the probed copy
 * through the probe first and the model only where the probe misses, as
 * the vpmu tool does. After every reference: the probe hit exactly where
 * the model hit, and the two copies hold the same lines in the same ways,
 * the same dirty bits, use stamps, clock, FIFO heads and random state, and
 * every hint of the probed copy is true. Scanned and indexed geometries, every policy; streams that mix
 * reuse (hits off way 0 included) with fresh lines.
 */
#include "model.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache_probe.h"
#include "hpm_check.h"
#include "model_internal.h"

static uint64_t rng_state = 88172645463325252ull;
static uint64_t next_rand(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* The replacement state that a hit may change or a probe must not:
 * everything but the statistics (and the hints, below). 0 when a (the
 * model's) and b (the probed) agree. */
static int state_differs(const struct hpm_cache *a, const struct hpm_cache *b)
{
    uint64_t sets = a->set_mask + 1, slots = sets * a->ways, i;
    if (a->rng != b->rng || (a->index && a->clock != b->clock))
        return 1;
    if (memcmp(a->tags, b->tags, slots * sizeof *a->tags) != 0)
        return 2;
    if (a->index && memcmp(a->stamp, b->stamp, slots * sizeof *a->stamp) != 0)
        return 3;
    if (a->index && memcmp(a->head, b->head, sets * sizeof *a->head) != 0)
        return 4;
    /* The hints of FIFO and RANDOM indexed caches: a probe's hit hints its
     * line, the model's does not (a hint may lag the tags), so the two
     * copies' hints may differ; each must be a resident line of its copy,
     * dirty only where the line is (the probe trusts them). */
    if (b->hint)
        for (i = 0; i < (1ull << (64 - b->hint_shift)); i++) {
            uint64_t h = b->hint[i];
            int64_t s;
            if (h == HPM__EMPTY)
                continue;
            s = hpm__ix_lookup(b, h & ~(uint64_t)1);
            if (s < 0 || (h & 1) > (b->tags[s] & 1))
                return 5;
        }
    return 0;
}

/* A line for the next reference: mostly one of the last few (hits, in
 * other ways than way 0 too), else one of a range twice the cache's size
 * (misses and evictions). */
static uint64_t pick_line(uint64_t *recent, unsigned nrecent, uint64_t lines)
{
    uint64_t x = next_rand(), line;
    if (x % 4 != 0)
        line = recent[(x >> 8) % nrecent];
    else
        line = (x >> 16) % (2 * lines);
    recent[(x >> 40) % nrecent] = line;
    return line;
}

/* The dirty bit of resident line l. */
static int line_dirty(const struct hpm_cache *c, uint64_t l)
{
    const uint64_t *set = c->tags + (size_t)(l & c->set_mask) * c->ways;
    uint32_t i;
    if (c->index) {
        int64_t s = hpm__ix_lookup(c, l << 1);
        return s >= 0 && (c->tags[s] & 1);
    }
    for (i = 0; i < c->ways; i++)
        if ((set[i] ^ (l << 1)) < 2)
            return (int)(set[i] & 1);
    return 0;
}

static struct hpm_cache *new_cache(const struct hpm_cache_params *p, void **mem)
{
    size_t n = hpm_cache_storage_size(p);
    struct hpm_cache *c = NULL;
    *mem = aligned_alloc(8, (n + 7) & ~(size_t)7);
    if (!*mem || hpm_cache_init(&c, p, *mem, n) != HPM_MODEL_OK)
        return NULL;
    return c;
}

static void check_cache(uint64_t size, uint32_t assoc, uint32_t line, uint32_t policy)
{
    struct hpm_cache_params p;
    void *ma, *mb;
    struct hpm_cache *ref, *probed;
    uint64_t recent[24], lines = size / line, n, hits = 0, off_way0 = 0, clean_stores = 0;
    unsigned i;
    memset(&p, 0, sizeof p);
    p.size = size;
    p.assoc = assoc;
    p.line = line;
    p.policy = policy;
    p.seed = 12345;
    ref = new_cache(&p, &ma);
    probed = new_cache(&p, &mb);
    CHECK(ref && probed);
    if (!ref || !probed)
        goto out;
    for (i = 0; i < 24; i++)
        recent[i] = next_rand() % lines;
    for (n = 0; n < 200000; n++) {
        uint64_t l = pick_line(recent, 24, lines), addr = l * line;
        unsigned write = (next_rand() >> 20) % 3 == 0, coherent = (n / 1000) % 2;
        int was_way0 = !probed->index &&
                       (probed->tags[(l & probed->set_mask) * probed->ways] ^ (l << 1)) < 2;
        int miss = hpm_cache_access(ref, addr, 1, (int)write);
        unsigned r = hpm_cache_probe_hit(probed, l, write, coherent);
        if (r == HPM_PROBE_CLEAN_STORE) {
            /* nothing changed yet; the coherence check passes here */
            CHECK(coherent && write);
            CHECK_EQ(miss, 0);
            clean_stores++;
            r = hpm_cache_probe_hit(probed, l, write, 0);
        }
        if (r == HPM_PROBE_MISS) {
            CHECK_EQ(miss, 1);
            hpm_cache_access(probed, addr, 1, (int)write);
        } else {
            CHECK_EQ(miss, 0);
            hits++;
            off_way0 += !was_way0;
            /* the line's dirty bit as the probe says */
            CHECK_EQ(r == HPM_PROBE_DIRTY, line_dirty(probed, l));
        }
        if (state_differs(ref, probed)) {
            fprintf(stderr, "probe: %llu-byte %u-way %u-byte lines policy %u: state differs (%d) "
                            "after reference %llu\n",
                    (unsigned long long)size, assoc, line, policy, state_differs(ref, probed),
                    (unsigned long long)n);
            failures++;
            break;
        }
    }
    /* the streams did what they are for: hits, hits off way 0, misses,
     * coherent clean stores */
    CHECK(hits > 1000 && hits < n);
    CHECK(probed->index || probed->ways == 1 || off_way0 > 100);
    CHECK(clean_stores > 10);
out:
    free(ma);
    free(mb);
}

static void check_tlb(uint32_t entries, uint32_t assoc)
{
    struct hpm_tlb_params p;
    struct hpm_tlb *ref = NULL, *probed = NULL;
    struct hpm_tlb_memo memo[HPM_TLB_MEMO_N];
    size_t sz;
    void *ma, *mb;
    uint64_t recent[12], n, hits = 0, memo_hits = 0;
    unsigned i;
    memset(&p, 0, sizeof p);
    p.entries = entries;
    p.assoc = assoc;
    p.page_size = 4096;
    sz = hpm_tlb_storage_size(&p);
    ma = aligned_alloc(8, (sz + 7) & ~(size_t)7);
    mb = aligned_alloc(8, (sz + 7) & ~(size_t)7);
    CHECK(ma && mb && hpm_tlb_init(&ref, &p, ma, sz) == HPM_MODEL_OK &&
          hpm_tlb_init(&probed, &p, mb, sz) == HPM_MODEL_OK);
    if (!ref || !probed)
        goto out;
    hpm_tlb_memo_clear(memo);
    for (i = 0; i < 12; i++)
        recent[i] = next_rand() % entries;
    for (n = 0; n < 100000; n++) {
        uint64_t page = pick_line(recent, 12, entries);
        int miss = hpm_tlb_access(ref, page * 4096, 1);
        /* every other reference asks the memo alone first (the vpmu
         * tool's probes without a frame): a 0 must have changed nothing,
         * or the probe after it would make the states differ */
        if (probed->c.index && (n & 1) && hpm_tlb_memo_hit(probed, memo, page)) {
            CHECK_EQ(miss, 0);
            hits++;
            memo_hits++;
        } else if (hpm_tlb_probe_hit(probed, memo, page)) {
            CHECK_EQ(miss, 0);
            hits++;
        } else {
            CHECK_EQ(miss, 1);
            if (hpm_tlb_access(probed, page * 4096, 1))
                hpm_tlb_memo_clear(memo); /* a fill moved a slot's page */
        }
        if (state_differs(&ref->c, &probed->c)) {
            fprintf(stderr, "probe: %u-entry %u-way TLB: state differs after reference %llu\n",
                    entries, assoc, (unsigned long long)n);
            failures++;
            break;
        }
    }
    CHECK(hits > 1000 && hits < n);
    CHECK(!probed->c.index || memo_hits > 1000);
out:
    free(ma);
    free(mb);
}

int main(void)
{
    static const struct {
        uint64_t size;
        uint32_t assoc, line;
    } geo[] = {
        {32768, 8, 64},  /* cachegrind's L1s: scanned */
        {4096, 4, 32},   /* small, many evictions */
        {2048, 1, 64},   /* direct-mapped */
        {32768, 64, 32}, /* BG/P's L1s: indexed */
        {2048, 0, 32},   /* fully associative: indexed */
    };
    uint32_t g, pol;
    for (g = 0; g < sizeof geo / sizeof geo[0]; g++)
        for (pol = HPM_REPL_LRU; pol <= HPM_REPL_RANDOM; pol++)
            check_cache(geo[g].size, geo[g].assoc, geo[g].line, pol);
    check_tlb(64, 0); /* BG/P's: indexed, with the memo */
    check_tlb(64, 4); /* scanned */
    check_tlb(16, 0);
    if (failures) {
        fprintf(stderr, "test_cache_probe: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_cache_probe: ok\n");
    return 0;
}
