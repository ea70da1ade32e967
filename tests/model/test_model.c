/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of src/model with exact expectations. */
#include "model.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpm_check.h"
#include "model_internal.h"

/* Every model lives at the start of its storage; free it all at the end. */
static void *allocs[128];
static unsigned n_allocs;
static void *alloc8(size_t n)
{
    void *m = n ? aligned_alloc(8, (n + 7) & ~(size_t)7) : NULL;
    if (m && n_allocs < 128)
        allocs[n_allocs++] = m;
    return m;
}
static void free_all(void)
{
    while (n_allocs)
        free(allocs[--n_allocs]);
}

static struct hpm_cache *new_cache(uint64_t size, uint32_t assoc, uint32_t line, uint32_t policy)
{
    struct hpm_cache_params p = {size, assoc, line, policy, 0, 0};
    struct hpm_cache *c = NULL;
    size_t n = hpm_cache_storage_size(&p);
    void *mem = alloc8(n);
    if (!mem || hpm_cache_init(&c, &p, mem, n) != HPM_MODEL_OK) {
        fprintf(stderr, "cannot build cache\n");
        exit(1);
    }
    return c;
}

static struct hpm_hier *new_hier(const struct hpm_hier_params *p)
{
    struct hpm_hier *h = NULL;
    size_t n = hpm_hier_storage_size(p);
    void *mem = alloc8(n);
    if (!mem || hpm_hier_init(&h, p, mem, n) != HPM_MODEL_OK) {
        fprintf(stderr, "cannot build hierarchy\n");
        exit(1);
    }
    return h;
}

static void test_params(void)
{
    struct hpm_cache_params p = {32768, 8, 64, HPM_REPL_LRU, 0, 0};
    CHECK_EQ(hpm_cache_params_check(&p), HPM_MODEL_OK);
    p.line = 48;
    CHECK_EQ(hpm_cache_params_check(&p), HPM_MODEL_EPARAM);
    p.line = 64;
    p.size = 24576; /* 384 lines / 8 ways = 48 sets: not a power of two */
    CHECK_EQ(hpm_cache_params_check(&p), HPM_MODEL_EPARAM);
    p.size = 1920; /* 15 lines of 128, fully associative: one set, fine */
    p.line = 128;
    p.assoc = 0;
    CHECK_EQ(hpm_cache_params_check(&p), HPM_MODEL_OK);
    p.policy = 7;
    CHECK_EQ(hpm_cache_params_check(&p), HPM_MODEL_EPARAM);
    p.policy = 0;
    {
        struct hpm_cache *c;
        uint64_t small[4];
        CHECK_EQ(hpm_cache_init(&c, &p, small, sizeof small), HPM_MODEL_ENOMEM);
        CHECK_EQ(hpm_cache_init(&c, &p, (char *)small + 1, 1000), HPM_MODEL_EALIGN);
    }
    CHECK(strcmp(hpm_model_strerror(HPM_MODEL_ENOMEM), "storage too small") == 0);
}

static void test_cold_sequential(void)
{
    struct hpm_cache *c = new_cache(32768, 8, 64, HPM_REPL_LRU);
    struct hpm_cache_stats s;
    uint32_t i, n = 200;
    for (i = 0; i < n; i++)
        CHECK_EQ(hpm_cache_access(c, 0x100000 + 64u * i, 8, 0), 1);
    for (i = 0; i < n; i++) /* 200 lines < 512: all still there */
        CHECK_EQ(hpm_cache_access(c, 0x100000 + 64u * i + 8, 8, 0), 0);
    hpm_cache_stats(c, &s);
    CHECK_EQ(s.read_accesses, 2 * n);
    CHECK_EQ(s.read_misses, n);
    CHECK_EQ(s.read_hits, n);
    CHECK_EQ(s.fills, n);
    CHECK_EQ(s.writebacks, 0);
}

/* assoc + 1 lines of one set, cycled: LRU and FIFO miss on every access. */
static void test_thrash(uint32_t policy)
{
    const uint32_t assoc = 4, sets = 64, line = 64, rounds = 10;
    struct hpm_cache *c = new_cache((uint64_t)assoc * sets * line, assoc, line, policy);
    struct hpm_cache_stats s;
    uint32_t r, i;
    for (r = 0; r < rounds; r++)
        for (i = 0; i <= assoc; i++)
            hpm_cache_access(c, (uint64_t)i * sets * line, 4, 0);
    hpm_cache_stats(c, &s);
    CHECK_EQ(s.read_misses, rounds * (assoc + 1));
    CHECK_EQ(s.read_hits, 0);
}

static void test_warm_hits(void)
{
    const uint32_t assoc = 4, sets = 64, line = 64;
    struct hpm_cache *c = new_cache((uint64_t)assoc * sets * line, assoc, line, HPM_REPL_LRU);
    struct hpm_cache_stats s;
    uint32_t r, i;
    for (r = 0; r < 5; r++)
        for (i = 0; i < assoc; i++)
            hpm_cache_access(c, (uint64_t)i * sets * line, 4, 0);
    hpm_cache_stats(c, &s);
    CHECK_EQ(s.read_misses, assoc);
    CHECK_EQ(s.read_hits, 4 * assoc);
}

/* LRU vs FIFO differ exactly where expected: A B A C (2 ways) then A. */
static void test_lru_vs_fifo(void)
{
    struct hpm_cache *l = new_cache(128, 2, 64, HPM_REPL_LRU); /* 1 set, 2 ways */
    struct hpm_cache *f = new_cache(128, 2, 64, HPM_REPL_FIFO);
    uint64_t seq[] = {0, 64, 0, 128};
    unsigned i;
    for (i = 0; i < 4; i++) {
        hpm_cache_access(l, seq[i], 1, 0);
        hpm_cache_access(f, seq[i], 1, 0);
    }
    CHECK_EQ(hpm_cache_access(l, 0, 1, 0), 0); /* LRU evicted 64 */
    CHECK_EQ(hpm_cache_access(f, 0, 1, 0), 1); /* FIFO evicted 0, the oldest */
}

static void test_random_deterministic(void)
{
    struct hpm_cache *a = new_cache(4096, 4, 64, HPM_REPL_RANDOM);
    struct hpm_cache *b = new_cache(4096, 4, 64, HPM_REPL_RANDOM);
    uint32_t x = 12345, i, ma = 0, mb = 0;
    for (i = 0; i < 10000; i++) {
        x = x * 1103515245u + 12345u;
        ma += (uint32_t)hpm_cache_access(a, (x >> 8) & 0x7fff, 4, 0);
        mb += (uint32_t)hpm_cache_access(b, (x >> 8) & 0x7fff, 4, 0);
    }
    CHECK_EQ(ma, mb);
    CHECK(ma > 0 && ma < 10000);
}

static void test_writeback(void)
{
    /* 2 sets x 2 ways x 64 B; lines 0, 128, 256, 384 all map to set 0 */
    struct hpm_cache *c = new_cache(256, 2, 64, HPM_REPL_LRU);
    struct hpm_cache_stats s;
    hpm_cache_access(c, 0, 8, 1);   /* write miss, dirty */
    hpm_cache_access(c, 128, 8, 1); /* write miss, dirty */
    hpm_cache_access(c, 0, 8, 1);   /* write hit */
    hpm_cache_access(c, 256, 8, 0); /* evicts 128 (dirty) */
    hpm_cache_access(c, 384, 8, 0); /* evicts 0 (dirty) */
    hpm_cache_access(c, 0, 8, 0);   /* evicts 256 (clean) */
    hpm_cache_stats(c, &s);
    CHECK_EQ(s.write_accesses, 3);
    CHECK_EQ(s.write_misses, 2);
    CHECK_EQ(s.write_hits, 1);
    CHECK_EQ(s.read_accesses, 3);
    CHECK_EQ(s.read_misses, 3);
    CHECK_EQ(s.writebacks, 2);
    CHECK_EQ(s.fills, 5);
}

static void test_straddle(void)
{
    struct hpm_cache *c = new_cache(4096, 2, 64, HPM_REPL_LRU);
    struct hpm_cache_stats s;
    CHECK_EQ(hpm_cache_access(c, 62, 4, 0), 1); /* lines 0 and 1, one access, one miss */
    CHECK(hpm_cache_probe(c, 0) && hpm_cache_probe(c, 64));
    CHECK_EQ(hpm_cache_access(c, 64, 4, 0), 0);
    CHECK_EQ(hpm_cache_access(c, 120, 16, 0), 1); /* line 1 hits, line 2 misses: a miss */
    hpm_cache_stats(c, &s);
    CHECK_EQ(s.read_accesses, 3);
    CHECK_EQ(s.read_misses, 2);
    CHECK_EQ(s.fills, 3);
}

/* ---- an independent transcription of cachegrind's cg_sim.c algorithm ---- */
struct cg {
    uint64_t *tags;
    uint32_t assoc, sets_min_1, line_bits;
};
static void cg_init(struct cg *c, uint32_t size, uint32_t assoc, uint32_t line)
{
    uint32_t sets = size / line / assoc;
    c->tags = calloc((size_t)sets * assoc, 8); /* zeroed, as VG_(calloc) */
    c->assoc = assoc;
    c->sets_min_1 = sets - 1;
    c->line_bits = 0;
    while ((1u << c->line_bits) < line)
        c->line_bits++;
}
static int cg_setref(struct cg *c, uint32_t set_no, uint64_t tag)
{
    uint64_t *set = &c->tags[(size_t)set_no * c->assoc];
    uint32_t i, j;
    if (tag == set[0])
        return 0;
    for (i = 1; i < c->assoc; i++) {
        if (tag == set[i]) {
            for (j = i; j > 0; j--)
                set[j] = set[j - 1];
            set[0] = tag;
            return 0;
        }
    }
    for (j = c->assoc - 1; j > 0; j--)
        set[j] = set[j - 1];
    set[0] = tag;
    return 1;
}
static int cg_ref(struct cg *c, uint64_t a, uint32_t size)
{
    uint64_t b1 = a >> c->line_bits, b2 = (a + size - 1) >> c->line_bits;
    if (b1 == b2)
        return cg_setref(c, (uint32_t)(b1 & c->sets_min_1), b1);
    if (cg_setref(c, (uint32_t)(b1 & c->sets_min_1), b1)) {
        cg_setref(c, (uint32_t)(b2 & c->sets_min_1), b2);
        return 1;
    }
    return cg_setref(c, (uint32_t)(b2 & c->sets_min_1), b2);
}

/* I1/D1/LL with stores mixed in: hpm's served levels must equal cachegrind's
 * miss flags on every access, and write-backs must not perturb them. */
static void test_cachegrind_equivalence(void)
{
    struct hpm_hier_params p;
    struct hpm_hier *h;
    struct cg i1, d1, ll;
    struct hpm_hier_core_stats cs;
    struct hpm_hier_mem_stats ms;
    uint64_t x = 88172645463325252ull, n, m1 = 0, mL = 0, diff = 0;
    memset(&p, 0, sizeof p);
    p.cores = 1;
    p.l1i = (struct hpm_cache_params){32768, 8, 64, HPM_REPL_LRU, 0, 0};
    p.l1d = (struct hpm_cache_params){32768, 8, 64, HPM_REPL_LRU, 0, 0};
    p.l3 = (struct hpm_cache_params){262144, 16, 64, HPM_REPL_LRU, 0, 1};
    h = new_hier(&p);
    hpm_cache_cachegrind_cold(hpm_hier_l1i(h, 0));
    hpm_cache_cachegrind_cold(hpm_hier_l1d(h, 0));
    hpm_cache_cachegrind_cold(hpm_hier_l3(h, 0));
    cg_init(&i1, 32768, 8, 64);
    cg_init(&d1, 32768, 8, 64);
    cg_init(&ll, 262144, 16, 64);
    for (n = 0; n < 400000; n++) {
        uint64_t a;
        uint32_t size, kind;
        int want, got;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        kind = (uint32_t)(x % 3);
        size = 1u << ((x >> 8) % 4);     /* 1..8 bytes, straddles happen */
        a = (x >> 16) % (1u << 20);      /* 1 MiB footprint: LL misses too */
        if ((x >> 40) % 4 == 0)
            a = (x >> 16) % 4096 + 61;   /* hot region, low addresses included */
        {
            struct cg *l1 = kind == HPM_IFETCH ? &i1 : &d1;
            want = 0;
            if (cg_ref(l1, a, size)) {
                m1++;
                want = 1;
                want = HPM_SERVED_L3; /* the LL is hpm's L3 here */
                if (cg_ref(&ll, a, size)) {
                    mL++;
                    want = HPM_SERVED_MEM;
                }
            }
        }
        got = hpm_hier_access(h, 0, (int)kind, a, size);
        diff += (uint64_t)(got != want);
    }
    CHECK_EQ(diff, 0);
    hpm_hier_core_stats(h, 0, &cs);
    CHECK_EQ(cs.served[0][3] + cs.served[1][3] + cs.served[2][3], mL);
    CHECK_EQ(n - cs.served[0][0] - cs.served[1][0] - cs.served[2][0], m1);
    hpm_hier_mem_stats(h, &ms);
    CHECK(ms.ddr_bytes_written > 0); /* stores were there, and write-backs happened */
    free(i1.tags);
    free(d1.tags);
    free(ll.tags);
}

/* Seed 001 section 4.1, "Sequential stores": 1M doubles (8 MB) stored in order
 * on BG/L (L1 32 KB / 32 B lines, L2 4 MB / 128 B lines, 4 KB pages, 64-entry
 * fully associative TLB): 256K L1 misses, 64K L2 misses, 2K TLB misses. */
static void test_bgl_sequential_stores(void)
{
    struct hpm_hier_params p;
    struct hpm_tlb_params tp = {64, 0, 4096};
    struct hpm_tlb *t;
    struct hpm_hier *h;
    struct hpm_hier_core_stats cs;
    struct hpm_tlb_stats ts;
    void *tm;
    uint64_t k, base = 0x10000000;
    memset(&p, 0, sizeof p);
    p.cores = 2;
    p.l1i = (struct hpm_cache_params){32768, 64, 32, HPM_REPL_FIFO, 0, 0};
    p.l1d = p.l1i;
    p.l2 = (struct hpm_cache_params){4u << 20, 8, 128, HPM_REPL_LRU, 0, 1};
    h = new_hier(&p);
    tm = aligned_alloc(8, (hpm_tlb_storage_size(&tp) + 7) & ~(size_t)7);
    CHECK_EQ(hpm_tlb_init(&t, &tp, tm, hpm_tlb_storage_size(&tp)), HPM_MODEL_OK);
    for (k = 0; k < (1u << 20); k++) {
        hpm_tlb_access(t, base + 8 * k, 8);
        hpm_hier_access(h, 1, HPM_STORE, base + 8 * k, 8);
    }
    hpm_hier_core_stats(h, 1, &cs);
    hpm_tlb_stats(t, &ts);
    CHECK_EQ(cs.accesses[HPM_STORE], 1u << 20);
    CHECK_EQ(cs.served[HPM_STORE][1] + cs.served[HPM_STORE][3], 256u * 1024); /* L1 misses */
    CHECK_EQ(cs.served[HPM_STORE][3], 64u * 1024);                            /* L2 misses */
    CHECK_EQ(ts.misses, 2048);
    CHECK_EQ(ts.hits, (1u << 20) - 2048);
    free(tm);
}

static void test_tlb(void)
{
    struct hpm_tlb_params tp = {4, 2, 4096}; /* 2 sets x 2 ways */
    struct hpm_tlb *t;
    struct hpm_tlb_stats ts;
    uint64_t mem[64];
    CHECK_EQ(hpm_tlb_storage_size(&tp) <= sizeof mem, 1);
    CHECK_EQ(hpm_tlb_init(&t, &tp, mem, sizeof mem), HPM_MODEL_OK);
    CHECK_EQ(hpm_tlb_access(t, 0x0000, 8), 1);  /* page 0, set 0 */
    CHECK_EQ(hpm_tlb_access(t, 0x2000, 8), 1);  /* page 2, set 0 */
    CHECK_EQ(hpm_tlb_access(t, 0x0ff8, 8), 0);  /* page 0 */
    CHECK_EQ(hpm_tlb_access(t, 0x4000, 8), 1);  /* page 4 evicts page 2 (LRU) */
    CHECK_EQ(hpm_tlb_access(t, 0x0000, 8), 0);
    CHECK_EQ(hpm_tlb_access(t, 0x2000, 8), 1);
    CHECK_EQ(hpm_tlb_access(t, 0x1ffc, 8), 1);  /* pages 1 (miss) and 2 (hit) */
    hpm_tlb_stats(t, &ts);
    CHECK_EQ(ts.accesses, 7);
    CHECK_EQ(ts.misses, 5);
    tp.entries = 6;
    tp.assoc = 0;
    CHECK_EQ(hpm_tlb_params_check(&tp), HPM_MODEL_OK); /* fully associative: any count */
    tp.assoc = 4;
    CHECK_EQ(hpm_tlb_params_check(&tp), HPM_MODEL_EPARAM);
}

static struct hpm_bpred *new_bpred(uint32_t hist, uint32_t table, uint32_t btb, uint32_t btb_assoc,
                                   uint32_t ras)
{
    struct hpm_bpred_params p = {hist, table, btb, btb_assoc, ras};
    struct hpm_bpred *b;
    size_t n = hpm_bpred_storage_size(&p);
    void *mem = alloc8(n);
    if (!n || hpm_bpred_init(&b, &p, mem, n)) {
        fprintf(stderr, "cannot build predictor\n");
        exit(1);
    }
    return b;
}

static void test_gshare_loop(void)
{
    /* an 8-iteration loop run 200 times: taken 7 times, then not taken */
    struct hpm_bpred *g = new_bpred(12, 4096, 64, 4, 16);
    struct hpm_bpred *bimodal = new_bpred(0, 4096, 64, 4, 16);
    uint32_t r, i, late_g = 0, late_b = 0;
    for (r = 0; r < 200; r++) {
        for (i = 0; i < 8; i++) {
            int taken = i != 7;
            int mg = hpm_bpred_cond(g, 0x10000400, taken);
            int mb = hpm_bpred_cond(bimodal, 0x10000400, taken);
            if (r >= 100) {
                late_g += (uint32_t)mg;
                late_b += (uint32_t)mb;
            }
        }
    }
    CHECK_EQ(late_g, 0);   /* gshare learned the exit */
    CHECK_EQ(late_b, 100); /* a bimodal counter misses every exit */
}

static void test_ras(void)
{
    struct hpm_bpred *b = new_bpred(8, 256, 64, 4, 16);
    struct hpm_bpred_stats s;
    uint64_t d;
    for (d = 0; d < 16; d++)
        hpm_bpred_call(b, 0x1000 + 4 * d);
    for (d = 16; d-- > 0;)
        CHECK_EQ(hpm_bpred_return(b, 0x1000 + 4 * d), 0);
    /* 18 nested calls into 16 entries: the two oldest are lost */
    for (d = 0; d < 18; d++)
        hpm_bpred_call(b, 0x2000 + 4 * d);
    for (d = 18; d-- > 0;)
        hpm_bpred_return(b, 0x2000 + 4 * d);
    CHECK_EQ(hpm_bpred_return(b, 0x1234), 1); /* empty stack */
    hpm_bpred_stats(b, &s);
    CHECK_EQ(s.calls, 34);
    CHECK_EQ(s.returns, 35);
    CHECK_EQ(s.ras_overflows, 2);
    CHECK_EQ(s.return_mispredicts, 3);
}

static void test_btb(void)
{
    struct hpm_bpred *b = new_bpred(8, 256, 4, 2, 4); /* 2 sets x 2 ways */
    struct hpm_bpred_stats s;
    int i;
    CHECK_EQ(hpm_bpred_indirect(b, 0x400, 0x9000), 1); /* cold */
    for (i = 0; i < 10; i++)
        CHECK_EQ(hpm_bpred_indirect(b, 0x400, 0x9000), 0);
    CHECK_EQ(hpm_bpred_indirect(b, 0x400, 0xa000), 1); /* target changed */
    CHECK_EQ(hpm_bpred_indirect(b, 0x400, 0xa000), 0);
    hpm_bpred_stats(b, &s);
    CHECK_EQ(s.indirect, 13);
    CHECK_EQ(s.indirect_mispredicts, 2);
}

/* The BTB against an LRU list kept in order, most recent first, as the
 * README states it (a hit moves its entry to the front, a miss drops the
 * last entry of the set and puts the new one in front), on a random mix of
 * pcs where some repeat often, some rarely, and targets change, for several
 * geometries: whatever the BTB keeps to find an entry faster must give the
 * same predictions. */
static void test_btb_random(void)
{
    static const uint32_t geom[][2] = {{16, 0}, {4, 2}, {1, 0}, {64, 4}, {256, 0}};
    uint64_t r = 0x9e3779b97f4a7c15ull;
    uint32_t g;
    for (g = 0; g < sizeof geom / sizeof geom[0]; g++) {
        uint32_t entries = geom[g][0], ways = geom[g][1] ? geom[g][1] : entries;
        uint32_t sets = entries / ways, k, i;
        struct hpm_bpred *b = new_bpred(4, 256, entries, geom[g][1], 4);
        struct hpm_bpred_stats s;
        uint64_t *tag = malloc(entries * sizeof *tag), *tgt = malloc(entries * sizeof *tgt);
        uint64_t mispredicts = 0;
        CHECK(tag && tgt);
        for (i = 0; i < entries; i++)
            tag[i] = ~(uint64_t)0, tgt[i] = 0;
        for (k = 0; k < 200000; k++) {
            uint64_t pc, target, *st, *sg;
            int want = 1, got;
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            /* half the branches among 8 pcs, the rest among 600 */
            pc = 0x400000 + 5 * ((r & 1) ? (r >> 8) % 8 : (r >> 8) % 600);
            /* each pc's own target, one time in eight another */
            target = 0x800000 + 16 * (((r >> 40) & 7) ? pc % 7 : (r >> 44) % 3);
            st = tag + ((pc ^ (pc >> 2)) & (sets - 1)) * ways;
            sg = tgt + (st - tag);
            for (i = 0; i < ways && st[i] != pc; i++)
                ;
            if (i < ways)
                want = sg[i] != target;
            else
                i = ways - 1;
            for (; i > 0; i--)
                st[i] = st[i - 1], sg[i] = sg[i - 1];
            st[0] = pc, sg[0] = target;
            mispredicts += (uint64_t)want;
            got = hpm_bpred_indirect(b, pc, target);
            if (got != want) {
                CHECK_EQ(got, want);
                break;
            }
        }
        hpm_bpred_stats(b, &s);
        CHECK_EQ(s.indirect_mispredicts, mispredicts);
        /* both outcomes, plenty of each */
        CHECK(mispredicts > 5000 && mispredicts < 195000);
        free(tag);
        free(tgt);
    }
}

static void test_timing(void)
{
    struct hpm_timing_params p = {{500, 4000, 1000, 1000, 1000, 1000, 30000, 1000},
                                  12, 50, 104, 20, 6, 40};
    struct hpm_timing_counts c;
    struct hpm_timing_result r;
    memset(&c, 0, sizeof c);
    c.instr[HPM_IC_INT] = 1001;   /* 500.5 cycles */
    c.instr[HPM_IC_MULDIV] = 10;  /* 40 */
    c.instr[HPM_IC_LOAD] = 300;   /* 300 */
    c.instr[HPM_IC_FPDIV] = 2;    /* 60 */
    c.served_l2 = 10;             /* 120 */
    c.served_l3 = 3;              /* 150 */
    c.served_mem = 2;             /* 208 */
    c.tlb_misses = 4;             /* 80 */
    c.mispredicts = 5;            /* 30 */
    c.valid_prefetches = 7;       /* 280 */
    hpm_timing_eval(&p, &c, &r);
    CHECK_EQ(r.base, 901); /* 900.5 rounded up */
    CHECK_EQ(r.memory_stall, 478);
    CHECK_EQ(r.tlb_stall, 80);
    CHECK_EQ(r.branch_stall, 30);
    CHECK_EQ(r.cycles, 901 + 478 + 80 + 30);
    CHECK_EQ(r.prefetch_pending, 280);
    c.valid_prefetches = 1000;
    hpm_timing_eval(&p, &c, &r);
    CHECK_EQ(r.prefetch_pending, r.cycles); /* capped */
    c.instr[HPM_IC_MULDIV] = ~(uint64_t)0;
    hpm_timing_eval(&p, &c, &r);
    CHECK_EQ(r.cycles, ~(uint64_t)0); /* saturates */
    {
        struct hpm_hier_core_stats s;
        memset(&s, 0, sizeof s);
        memset(&c, 0, sizeof c);
        s.served[HPM_IFETCH][1] = 2;
        s.served[HPM_LOAD][1] = 3;
        s.served[HPM_STORE][2] = 4;
        s.served[HPM_LOAD][3] = 5;
        hpm_timing_counts_add_hier(&c, &s);
        CHECK_EQ(c.served_l2, 5);
        CHECK_EQ(c.served_l3, 4);
        CHECK_EQ(c.served_mem, 5);
    }
    {
        /* base against the sum in 128 bits, rounded up, saturated: counts
         * on both sides of 2^32 and sums near 2^64 (timing_base's two paths) */
        static const uint64_t ns[] = {0, 1, 999, 1000, 1001, 123456789, 0xffffffffu,
                                      0x100000000u, 0x2540be3ff, (uint64_t)1 << 50,
                                      ~(uint64_t)0 / 4000};
        uint32_t x = 2463534242u;
        unsigned t, i;
        for (t = 0; t < 20000; t++) {
            unsigned __int128 sum = 0, want;
            memset(&c, 0, sizeof c);
            for (i = 0; i < HPM_IC_COUNT; i++) {
                x ^= x << 13, x ^= x >> 17, x ^= x << 5;
                c.instr[i] = ns[x % (sizeof ns / sizeof ns[0])] + (x >> 20) * (t & 1);
                p.cpi_milli[i] = t & 2 ? x : 500u + (x & 0xffff);
                sum += (unsigned __int128)c.instr[i] * p.cpi_milli[i];
            }
            want = (sum + 999) / 1000;
            hpm_timing_eval(&p, &c, &r);
            CHECK_EQ(r.base, want > ~(uint64_t)0 ? ~(uint64_t)0 : (uint64_t)want);
        }
    }
}

/* Stream prefetcher on a sequential read of K L2 lines (README.md). */
static void test_prefetch(void)
{
    const uint64_t K = 100, base = 0x40000;
    struct hpm_hier_params p;
    struct hpm_hier *h;
    struct hpm_prefetch_stats ps;
    struct hpm_cache_stats l2;
    struct hpm_hier_mem_stats ms;
    uint64_t a;
    memset(&p, 0, sizeof p);
    p.cores = 4;
    p.l1i = (struct hpm_cache_params){32768, 64, 32, HPM_REPL_FIFO, 0, 0};
    p.l1d = p.l1i;
    p.l2 = (struct hpm_cache_params){2048, 0, 128, HPM_REPL_LRU, 0, 0};
    p.l3 = (struct hpm_cache_params){8u << 20, 8, 128, HPM_REPL_LRU, 0, 1};
    p.prefetch.streams = 4;
    p.prefetch.depth = 2;
    h = new_hier(&p);
    for (a = base; a < base + K * 128; a += 8)
        hpm_hier_access(h, 2, HPM_LOAD, a, 8);
    hpm_hier_prefetch_stats(h, 2, &ps);
    CHECK_EQ(ps.prefetchable_requests, K - 1);
    CHECK_EQ(ps.hits_in_stream, K - 2);
    CHECK_EQ(ps.prefetch_requests, K);
    CHECK_EQ(ps.valid_prefetches, K);
    CHECK_EQ(ps.already_in_l2, 0);
    hpm_cache_stats(hpm_hier_l2(h, 2), &l2);
    CHECK_EQ(l2.read_accesses, 4 * K); /* every 32 B L1 miss */
    CHECK_EQ(l2.read_misses, 2);       /* lines 0 and 1, before the stream started */
    hpm_hier_mem_stats(h, &ms);
    CHECK_EQ(ms.ddr_bytes_read, (K + 2) * 128);
    CHECK_EQ(ms.ddr_bytes_written, 0);
    hpm_hier_prefetch_stats(h, 0, &ps); /* core 0 has its own, idle, L2 */
    CHECK_EQ(ps.prefetch_requests, 0);
    CHECK(hpm_hier_l2(h, 0) != hpm_hier_l2(h, 2));
    CHECK(hpm_hier_l3(h, 0) == hpm_hier_l3(h, 2));
}

/* The prefetcher's demands, L2 lines in a random order where a line often
 * comes again and streams start, move and are replaced, against the
 * README's rules scanned at every demand (the model goes straight to the
 * stream where the previous demand of the same line ended). Every access
 * reaches the L2: the L1 holds one line, and two accesses in a row are
 * never of one L1 line. */
static void test_prefetch_streams_random(void)
{
    enum { STREAMS = 5, DEPTH = 2, N = 200000 };
    struct ref_stream {
        uint64_t last, pf_end, stamp;
    } rs[STREAMS];
    uint64_t clock = 0, prefetchable = 0, hits = 0, requests = 0, x = 64, prev = ~(uint64_t)0;
    uint64_t r = 88172645463325252ull;
    struct hpm_hier_params p;
    struct hpm_hier *h;
    struct hpm_prefetch_stats ps;
    uint32_t n, i;
    memset(&p, 0, sizeof p);
    memset(rs, 0, sizeof rs);
    p.cores = 1;
    p.l1i = (struct hpm_cache_params){32, 1, 32, HPM_REPL_LRU, 0, 0};
    p.l1d = p.l1i;
    p.l2 = (struct hpm_cache_params){2048, 0, 128, HPM_REPL_LRU, 0, 0};
    p.l3 = (struct hpm_cache_params){1u << 20, 8, 128, HPM_REPL_LRU, 0, 1};
    p.prefetch.streams = STREAMS;
    p.prefetch.depth = DEPTH;
    h = new_hier(&p);
    for (n = 0; n < N; n++) {
        uint64_t a, l1;
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        switch (r % 8) {
        case 0: case 1: case 2: break;            /* the same L2 line */
        case 3: case 4: x++; break;               /* the next */
        case 5: x += 1 + (r >> 8) % 3; break;     /* a jump ahead */
        case 6: x = 64 + (r >> 8) % 64; break;    /* somewhere else */
        default: x = x > 66 ? x - 2 : x + 5; break; /* back */
        }
        l1 = x * 4 + (r >> 16) % 4; /* an L1 line of it, not the last one */
        if (l1 == prev)
            l1 = x * 4 + (l1 + 1) % 4;
        prev = l1;
        a = l1 * 32;
        hpm_hier_access(h, 0, HPM_LOAD, a, 8);
        /* the README's rules, every stream in use asked in order: the
         * same line again, or the line in its reach; else the first unused
         * entry, or the least recently used, starts training */
        clock++;
        for (i = 0; i < STREAMS; i++) {
            struct ref_stream *s = &rs[i];
            uint64_t reach = s->pf_end > s->last + 1 ? s->pf_end : s->last + 1;
            if (s->stamp && (x == s->last || (x > s->last && x <= reach)))
                break;
        }
        if (i < STREAMS && x == rs[i].last) {
            rs[i].stamp = clock;
        } else if (i < STREAMS) {
            prefetchable++;
            hits += x <= rs[i].pf_end;
            rs[i].last = x;
            rs[i].stamp = clock;
            if (rs[i].pf_end < x)
                rs[i].pf_end = x;
            requests += x + DEPTH - rs[i].pf_end;
            rs[i].pf_end = x + DEPTH;
        } else {
            uint32_t v = 0;
            for (i = 1; i < STREAMS && rs[v].stamp; i++)
                if (!rs[i].stamp || rs[i].stamp < rs[v].stamp)
                    v = i;
            rs[v].last = rs[v].pf_end = x;
            rs[v].stamp = clock;
        }
    }
    hpm_hier_prefetch_stats(h, 0, &ps);
    CHECK(prefetchable > N / 10 && hits > N / 20);
    CHECK_EQ(ps.prefetchable_requests, prefetchable);
    CHECK_EQ(ps.hits_in_stream, hits);
    CHECK_EQ(ps.prefetch_requests, requests);
}

/* Write-backs travel down without allocating and reach DDR. */
static void test_hier_writeback(void)
{
    struct hpm_hier_params p;
    struct hpm_hier *h;
    struct hpm_hier_mem_stats ms;
    struct hpm_cache_stats l2;
    uint64_t i;
    memset(&p, 0, sizeof p);
    p.cores = 1;
    p.l1i = (struct hpm_cache_params){1024, 2, 64, HPM_REPL_LRU, 0, 0};
    p.l1d = p.l1i; /* 16 lines */
    p.l2 = (struct hpm_cache_params){2048, 4, 64, HPM_REPL_LRU, 0, 0}; /* 32 lines */
    h = new_hier(&p);
    for (i = 0; i < 64; i++) /* store 64 distinct lines */
        hpm_hier_access(h, 0, HPM_STORE, 64 * i, 8);
    hpm_hier_mem_stats(h, &ms);
    hpm_cache_stats(hpm_hier_l2(h, 0), &l2);
    /* L1 evicts line i-16 (dirty) when line i arrives; the L2 then holds
     * lines i-31..i, so all 48 write-backs hit and only mark L2 dirty. The L2
     * evicts line j-32 when line j arrives (j = 32..63), dirty by then: 32
     * write-backs reach DDR. */
    CHECK_EQ(l2.write_accesses, 48);
    CHECK_EQ(l2.write_hits, 48);
    CHECK_EQ(l2.writebacks, 32);
    CHECK_EQ(ms.ddr_bytes_written, 32 * 64);
    CHECK_EQ(ms.ddr_bytes_read, 64 * 64);
}

/* The scanned layout, as src/model kept every cache before indexed sets:
 * way 0 first, LRU moves a hit to way 0, a miss shifts the set and inserts
 * at way 0 (LRU, FIFO) or replaces an xorshift32-chosen way (RANDOM). */
struct scan_cache {
    uint64_t *tags, set_mask, writebacks;
    uint32_t ways, line_bits, policy, rng;
};
static unsigned scan_ref(struct scan_cache *c, uint64_t line, unsigned write)
{
    uint64_t *set = c->tags + (line & c->set_mask) * c->ways, key = line << 1, w;
    uint32_t n = c->ways, i, j;
    for (i = 0; i < n; i++) {
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
    if (w != ~(uint64_t)0 && (w & 1))
        c->writebacks++;
    return 1;
}

/* Indexed caches (64 ways, and fully associative) against the scanned
 * layout: the same miss on every access, the same write-backs, the same
 * lines present, for each policy, across a flush. */
static void test_indexed_equivalence(void)
{
    static const struct {
        uint64_t size;
        uint32_t assoc, line;
    } geo[] = {{32768, 64, 32}, {2048, 0, 32}, {65536, 32, 64}};
    uint32_t g, pol;
    for (g = 0; g < sizeof geo / sizeof geo[0]; g++) {
        for (pol = HPM_REPL_LRU; pol <= HPM_REPL_RANDOM; pol++) {
            struct hpm_cache *c = new_cache(geo[g].size, geo[g].assoc, geo[g].line, pol);
            struct hpm_cache_stats st;
            struct scan_cache r;
            uint64_t lines = geo[g].size / geo[g].line, x = 88172645463325252ull, n, i;
            uint64_t diff = 0, pdiff = 0, misses = 0, hseen = 0, hbad = 0;
            r.ways = geo[g].assoc ? geo[g].assoc : (uint32_t)lines;
            r.set_mask = lines / r.ways - 1;
            r.line_bits = (uint32_t)__builtin_ctz(geo[g].line);
            r.policy = pol;
            r.rng = 0x9e3779b9u; /* the model's default seed */
            r.writebacks = 0;
            r.tags = malloc(lines * 8);
            for (i = 0; i < lines; i++)
                r.tags[i] = ~(uint64_t)0;
            for (n = 0; n < 300000; n++) {
                uint64_t a, first, last, line;
                uint32_t size;
                unsigned w, want = 0;
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                size = 1u << ((x >> 8) % 4);
                /* a footprint of about 3 caches, with a hot quarter */
                a = (x >> 16) % (3 * geo[g].size);
                if ((x >> 40) % 2 == 0)
                    a = (x >> 16) % (geo[g].size / 2);
                w = (x >> 50) % 3 == 0;
                first = a >> r.line_bits;
                last = (a + size - 1) >> r.line_bits;
                for (line = first; line <= last; line++)
                    want |= scan_ref(&r, line, w);
                diff += (unsigned)hpm_cache_access(c, a, size, (int)w) != want;
                misses += want;
                if (n % 97 == 0) { /* presence of a line either may hold */
                    uint64_t q = (x >> 20) % (3 * geo[g].size), *set, k;
                    int in = 0;
                    set = r.tags + ((q >> r.line_bits) & r.set_mask) * r.ways;
                    for (k = 0; k < r.ways; k++)
                        in |= (set[k] ^ ((q >> r.line_bits) << 1)) < 2;
                    pdiff += hpm_cache_probe(c, q) != in;
                }
                if (n % 997 == 0 && hpm__hinted(c)) {
                    /* every hint (the vpmu probe's sure hits) is a resident
                     * line, dirty only if the line is */
                    uint64_t k, h, l, *set, nh = (uint64_t)1 << (64 - c->hint_shift);
                    for (i = 0; i < nh; i++) {
                        int ok = 0;
                        if ((h = c->hint[i]) == HPM__EMPTY)
                            continue;
                        l = h >> 1;
                        set = r.tags + (l & r.set_mask) * r.ways;
                        for (k = 0; k < r.ways; k++)
                            ok |= (set[k] ^ (l << 1)) < 2 && (set[k] & 1) >= (h & 1);
                        hbad += !ok;
                        hseen++;
                    }
                }
                if (n == 150000) {
                    hpm_cache_flush(c);
                    for (i = 0; i < lines; i++)
                        r.tags[i] = ~(uint64_t)0;
                }
            }
            hpm_cache_stats(c, &st);
            CHECK_EQ(diff, 0);
            CHECK_EQ(pdiff, 0);
            CHECK_EQ(hbad, 0);
            CHECK(hseen > 0 || !hpm__hinted(c));
            CHECK_EQ(st.writebacks, r.writebacks);
            CHECK(misses > 1000 && r.writebacks > 100);
            free(r.tags);
        }
    }
}

/* ------------------------------------------------------------- coherence */

static struct hpm_hier *coh_hier(uint32_t cores, uint32_t proto, struct hpm_cache_params l1d)
{
    struct hpm_hier_params p;
    memset(&p, 0, sizeof p);
    p.cores = cores;
    p.l1i = (struct hpm_cache_params){4096, 4, 32, HPM_REPL_LRU, 0, 0};
    p.l1d = l1d;
    p.l3 = (struct hpm_cache_params){1u << 20, 8, 128, HPM_REPL_LRU, 0, 1};
    p.coherence = proto;
    return new_hier(&p);
}

static struct hpm_coh_stats coh_of(struct hpm_hier *h, uint32_t core)
{
    struct hpm_coh_stats s;
    CHECK_EQ(hpm_hier_coh_stats(h, core, &s), HPM_MODEL_OK);
    return s;
}

/* Two cores store in turn to bytes 0 and 8 of one line (false sharing),
 * then to two lines (padded): every store after the first of each core
 * misses on a line the other invalidated. */
static void test_coherence_false_sharing(uint32_t proto, struct hpm_cache_params l1d)
{
    const uint64_t N = 1000, A = 0x10000;
    struct hpm_hier *h = coh_hier(2, proto, l1d);
    struct hpm_coh_stats s0, s1;
    struct hpm_cache_stats c0, c1;
    uint64_t i;
    for (i = 0; i < N; i++) {
        hpm_hier_access(h, 0, HPM_STORE, A, 8);
        hpm_hier_access(h, 1, HPM_STORE, A + 8, 8);
    }
    s0 = coh_of(h, 0);
    s1 = coh_of(h, 1);
    hpm_cache_stats(hpm_hier_l1d(h, 0), &c0);
    hpm_cache_stats(hpm_hier_l1d(h, 1), &c1);
    CHECK_EQ(c0.write_misses, N);
    CHECK_EQ(c1.write_misses, N);
    CHECK_EQ(s0.coh_misses, N - 1);
    CHECK_EQ(s1.coh_misses, N - 1);
    CHECK_EQ(s0.invalidations, N);     /* by each of core 1's stores */
    CHECK_EQ(s1.invalidations, N - 1); /* by core 0's stores after its first */
    CHECK_EQ(s0.requests, N - 1); /* the node's first access: no other core had any */
    CHECK_EQ(s1.requests, N);
    CHECK_EQ(s0.snoops, N);
    CHECK_EQ(s0.interventions, proto == HPM_COH_MESI ? N : 0);
    CHECK_EQ(s1.interventions, proto == HPM_COH_MESI ? N - 1 : 0);

    /* padded: one line each, nothing shared */
    h = coh_hier(2, proto, l1d);
    for (i = 0; i < N; i++) {
        hpm_hier_access(h, 0, HPM_STORE, A, 8);
        hpm_hier_access(h, 1, HPM_STORE, A + 64, 8);
    }
    s0 = coh_of(h, 0);
    s1 = coh_of(h, 1);
    hpm_cache_stats(hpm_hier_l1d(h, 0), &c0);
    CHECK_EQ(c0.write_misses, 1);
    CHECK_EQ(s0.coh_misses + s1.coh_misses, 0);
    CHECK_EQ(s0.invalidations + s1.invalidations, 0);
    CHECK_EQ(s0.snoops + s1.snoops, 0);
    CHECK_EQ(s0.requests, 0); /* the node's first access, then the line is held dirty */
    CHECK_EQ(s1.requests, 1); /* its first store */
    CHECK_EQ(hpm_hier_coh_gen(h, 0) + hpm_hier_coh_gen(h, 1), 0);
}

/* Reads share; a read of a modified line (MESI) is an intervention and
 * leaves the owner's copy clean, so its next store invalidates the
 * reader. */
static void test_coherence_reads(uint32_t proto, struct hpm_cache_params l1d)
{
    const uint64_t A = 0x20000;
    struct hpm_hier *h = coh_hier(4, proto, l1d);
    struct hpm_coh_stats s0, s1;
    struct hpm_hier_core_stats cs;
    struct hpm_cache_stats c1;
    uint32_t k, i;
    for (i = 0; i < 100; i++)
        for (k = 0; k < 4; k++)
            hpm_hier_access(h, k, HPM_LOAD, A + 8 * k, 8);
    for (k = 0; k < 4; k++) {
        struct hpm_coh_stats s = coh_of(h, k);
        CHECK_EQ(s.invalidations, 0);
        CHECK_EQ(s.coh_misses, 0);
        CHECK_EQ(s.interventions, 0);
        hpm_hier_core_stats(h, k, &cs);
        CHECK_EQ(cs.accesses[HPM_LOAD] - cs.served[HPM_LOAD][HPM_SERVED_L1], 1);
    }
    h = coh_hier(2, proto, l1d);
    hpm_hier_access(h, 0, HPM_STORE, A, 8);
    uint64_t gen = hpm_hier_coh_gen(h, 0);
    hpm_hier_access(h, 1, HPM_LOAD, A + 16, 8);
    s0 = coh_of(h, 0);
    CHECK_EQ(s0.interventions, proto == HPM_COH_MESI ? 1 : 0);
    CHECK_EQ(hpm_hier_coh_gen(h, 0), gen + 1); /* core 0's line is clean now */
    CHECK(hpm__line_present(hpm_hier_l1d(h, 0), A >> 5));
    hpm_hier_access(h, 0, HPM_STORE, A, 8); /* a hit, but a request */
    s0 = coh_of(h, 0);
    s1 = coh_of(h, 1);
    CHECK_EQ(s0.requests, 1);
    CHECK_EQ(s1.invalidations, 1);
    hpm_hier_access(h, 1, HPM_LOAD, A + 16, 8);
    s1 = coh_of(h, 1);
    CHECK_EQ(s1.coh_misses, 1); /* true sharing misses as well */
    hpm_cache_stats(hpm_hier_l1d(h, 1), &c1);
    CHECK_EQ(c1.read_misses, 2);
}

/* An invalidated line whose way a fill takes is gone: a later miss on it
 * is a capacity miss, not a coherence miss. */
static void test_coherence_marker_evicted(void)
{
    struct hpm_cache_params l1d = {128, 2, 32, HPM_REPL_LRU, 0, 0}; /* 2 sets of 2 ways */
    struct hpm_hier *h = coh_hier(2, HPM_COH_WTI, l1d);
    hpm_hier_access(h, 0, HPM_LOAD, 0, 8);
    hpm_hier_access(h, 1, HPM_STORE, 0, 8); /* invalidates core 0's line 0 */
    CHECK_EQ(coh_of(h, 0).invalidations, 1);
    hpm_hier_access(h, 0, HPM_LOAD, 64, 8);  /* set 0 */
    hpm_hier_access(h, 0, HPM_LOAD, 128, 8); /* set 0: evicts the marker */
    hpm_hier_access(h, 0, HPM_LOAD, 0, 8);
    CHECK_EQ(coh_of(h, 0).coh_misses, 0);
    hpm_hier_access(h, 1, HPM_STORE, 0, 8); /* core 1's line is clean: a request */
    hpm_hier_access(h, 0, HPM_LOAD, 0, 8);
    CHECK_EQ(coh_of(h, 0).coh_misses, 1);
}

/* Cores on disjoint data: a coherent node counts exactly what the
 * private one does (random mixed trace over four cores). */
static void test_coherence_disjoint_same(struct hpm_cache_params l1d)
{
    struct hpm_hier *h[3];
    uint32_t proto, k, x = 12345;
    int i;
    for (proto = 0; proto < 3; proto++)
        h[proto] = coh_hier(4, proto, l1d);
    for (i = 0; i < 200000; i++) {
        uint64_t a;
        int kind;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        k = x & 3;
        a = ((uint64_t)k << 24) + ((x >> 4) & 0x3ffff);
        kind = (x >> 30) & 1 ? HPM_STORE : HPM_LOAD;
        for (proto = 0; proto < 3; proto++)
            hpm_hier_access(h[proto], k, kind, a, 1u << ((x >> 2) & 3));
    }
    for (proto = 1; proto < 3; proto++) {
        struct hpm_hier_mem_stats m0, m1;
        for (k = 0; k < 4; k++) {
            struct hpm_hier_core_stats a0, a1;
            struct hpm_cache_stats l0, l1;
            hpm_hier_core_stats(h[0], k, &a0);
            hpm_hier_core_stats(h[proto], k, &a1);
            CHECK(memcmp(&a0, &a1, sizeof a0) == 0);
            hpm_cache_stats(hpm_hier_l1d(h[0], k), &l0);
            hpm_cache_stats(hpm_hier_l1d(h[proto], k), &l1);
            CHECK(memcmp(&l0, &l1, sizeof l0) == 0);
            CHECK_EQ(coh_of(h[proto], k).snoops, 0);
            CHECK_EQ(coh_of(h[proto], k).coh_misses, 0);
            CHECK(coh_of(h[proto], k).requests > 0);
            CHECK_EQ(coh_of(h[0], k).requests, 0);
        }
        hpm_hier_mem_stats(h[0], &m0);
        hpm_hier_mem_stats(h[proto], &m1);
        CHECK(memcmp(&m0, &m1, sizeof m0) == 0);
    }
}

/* The sharers summary (nodes of up to 64 cores) only spares lookups: four
 * cores sharing a small region count exactly what they count on a node of
 * 65 cores, which looks up every core at every request (the summary's
 * rebuilds are passed many times: 400,000 accesses). */
static void test_coherence_summary(uint32_t proto, struct hpm_cache_params l1d)
{
    struct hpm_hier *a = coh_hier(4, proto, l1d), *b = coh_hier(65, proto, l1d);
    uint32_t k, x = 777;
    int i;
    for (i = 0; i < 400000; i++) {
        uint64_t addr;
        int kind;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        k = x & 3;
        addr = (x >> 4) & ((x >> 29) ? 0x7fff : 0x3ffff); /* hot shared lines, and more */
        kind = (x >> 2) & 1 ? HPM_STORE : HPM_LOAD;
        hpm_hier_access(a, k, kind, addr, 8);
        hpm_hier_access(b, k, kind, addr, 8);
    }
    for (k = 0; k < 4; k++) {
        struct hpm_coh_stats sa = coh_of(a, k), sb = coh_of(b, k);
        struct hpm_hier_core_stats ca, cb;
        if (memcmp(&sa, &sb, sizeof sa))
            fprintf(stderr, "proto %u ways %u core %u: %llu/%llu %llu/%llu %llu/%llu %llu/%llu %llu/%llu\n",
                    proto, l1d.assoc, k, (unsigned long long)sa.requests, (unsigned long long)sb.requests,
                    (unsigned long long)sa.snoops, (unsigned long long)sb.snoops,
                    (unsigned long long)sa.invalidations, (unsigned long long)sb.invalidations,
                    (unsigned long long)sa.interventions, (unsigned long long)sb.interventions,
                    (unsigned long long)sa.coh_misses, (unsigned long long)sb.coh_misses);
        CHECK(memcmp(&sa, &sb, sizeof sa) == 0);
        CHECK(sa.coh_misses > 1000 && sa.invalidations > 1000);
        hpm_hier_core_stats(a, k, &ca);
        hpm_hier_core_stats(b, k, &cb);
        CHECK(memcmp(&ca, &cb, sizeof ca) == 0);
    }
}

/* The contended lines: false sharing (disjoint bytes) and true sharing
 * (one counter) told apart, with each core's bytes. */
static void test_coherence_lines(uint32_t proto, struct hpm_cache_params l1d)
{
    const uint64_t N = 100, A = 0x30000;
    struct hpm_hier *h = coh_hier(2, proto, l1d);
    struct hpm_coh_line e;
    uint64_t rd[2], wr[2], dropped = 1, i, g;
    for (i = 0; i < N; i++) {
        hpm_hier_access(h, 0, HPM_LOAD, A, 8); /* counter a, bytes 0..7 */
        hpm_hier_access(h, 0, HPM_STORE, A, 8);
        hpm_hier_access(h, 1, HPM_LOAD, A + 8, 8); /* counter b, bytes 8..15 */
        hpm_hier_access(h, 1, HPM_STORE, A + 8, 8);
    }
    hpm_hier_access(h, 0, HPM_STORE, A + 4096, 8); /* a private line: not listed */
    CHECK_EQ(hpm_hier_coh_line_count(h, &dropped), 1);
    CHECK_EQ(dropped, 0);
    CHECK_EQ(hpm_hier_coh_line(h, 0, &e, rd, wr), HPM_MODEL_OK);
    g = e.granule;
    CHECK_EQ(e.addr, A);
    CHECK_EQ(e.line_bytes, l1d.line);
    CHECK_EQ(g, l1d.line <= 64 ? 1 : l1d.line / 64);
    CHECK_EQ(e.coh_misses, 2 * N - 2); /* N - 1 each: the first of each is cold */
    CHECK_EQ(e.true_sharing, 0);
    CHECK_EQ(wr[0], (1ull << (8 / g)) - 1);
    CHECK_EQ(wr[1], ((1ull << (8 / g)) - 1) << (8 / g));
    CHECK_EQ(rd[0] & wr[1], 0);
    CHECK_EQ(hpm_hier_coh_line(h, 1, &e, rd, wr), HPM_MODEL_ERANGE);
    {
        /* per core: the same masks, and shares that add up to the line's */
        struct hpm_coh_line_core pc[2];
        CHECK_EQ(hpm_hier_coh_line_cores(h, 0, pc), HPM_MODEL_OK);
        CHECK_EQ(pc[0].written, wr[0]);
        CHECK_EQ(pc[1].written, wr[1]);
        CHECK_EQ(pc[0].coh_misses, N - 1);
        CHECK_EQ(pc[1].coh_misses, N - 1);
        CHECK_EQ(pc[0].true_misses, 0); /* every miss false sharing */
        CHECK_EQ(pc[1].true_misses, 0);
        CHECK_EQ(pc[0].invalidations + pc[1].invalidations, e.invalidations);
        CHECK(pc[0].invalidations >= N - 1 && pc[1].invalidations >= N - 1);
        CHECK_EQ(hpm_hier_coh_line_cores(h, 1, pc), HPM_MODEL_ERANGE);
    }

    /* one counter for both: true sharing */
    h = coh_hier(2, proto, l1d);
    for (i = 0; i < N; i++) {
        hpm_hier_access(h, 0, HPM_STORE, A + 16, 8);
        hpm_hier_access(h, 1, HPM_STORE, A + 16, 8);
    }
    CHECK_EQ(hpm_hier_coh_line_count(h, NULL), 1);
    CHECK_EQ(hpm_hier_coh_line(h, 0, &e, rd, wr), HPM_MODEL_OK);
    CHECK_EQ(e.true_sharing, 1);
    CHECK_EQ(e.coh_misses, 2 * N - 2); /* N - 1 each: the first of each is cold */
    CHECK_EQ(wr[0], wr[1]);
    {
        struct hpm_coh_line_core pc[2];
        CHECK_EQ(hpm_hier_coh_line_cores(h, 0, pc), HPM_MODEL_OK);
        CHECK_EQ(pc[0].true_misses, N - 1); /* every miss true sharing */
        CHECK_EQ(pc[1].true_misses, N - 1);
    }

    /* one core writes, the other reads other bytes of the line: false */
    h = coh_hier(2, proto, l1d);
    for (i = 0; i < N; i++) {
        hpm_hier_access(h, 0, HPM_STORE, A, 4);
        hpm_hier_access(h, 1, HPM_LOAD, A + 16, 4);
    }
    CHECK_EQ(hpm_hier_coh_line(h, 0, &e, rd, wr), HPM_MODEL_OK);
    CHECK_EQ(e.true_sharing, 0);
    CHECK(e.coh_misses >= N - 1);
    CHECK_EQ(wr[1], 0);
}

/* Coherence in modeled time: once the counters' line is kept, the cores'
 * accesses take the private path (core 0's N increments, then core 1's,
 * as Valgrind's slices make them: hits, nothing invalidated), and the
 * replay in the order given decides: alternating increments miss every
 * time, the slices' order once. */
static void test_coherence_replay(uint32_t proto, struct hpm_cache_params l1d, int alternate)
{
    enum { N = 200 };
    const uint64_t A = 0x40000;
    struct hpm_hier *h = coh_hier(2, proto, l1d);
    struct hpm_coh_stats s0, s1;
    struct hpm_coh_line e;
    struct hpm_coh_line_core pc[2];
    int hit[2][2 * N], i, k, c;
    int32_t slot;
    hpm_hier_access(h, 0, HPM_STORE, A, 8);
    hpm_hier_access(h, 1, HPM_STORE, A + 8, 8); /* core 0's copy invalidated: kept */
    slot = hpm_hier_coh_line_index(h, A + 20);
    CHECK(slot >= 0);
    CHECK_EQ(hpm_hier_coh_line_index(h, A + 4096), -1);
    hpm_hier_coh_defer(h, NULL, NULL);
    for (c = 0; c < 2; c++)
        for (i = 0; i < N; i++)
            for (k = 0; k < 2; k++)
                hit[c][2 * i + k] = hpm_hier_access(h, (uint32_t)c, k ? HPM_STORE : HPM_LOAD,
                                                    A + 8 * (uint64_t)c, 8) == HPM_SERVED_L1;
    s0 = coh_of(h, 0);
    s1 = coh_of(h, 1);
    CHECK_EQ(hit[0][0], 0); /* core 0's copy was invalidated before: a coherence miss */
    CHECK_EQ(hit[0][1] + hit[1][0] + hit[1][2 * N - 1], 3); /* then its own copy */
    CHECK_EQ(s0.coh_misses, 1);
    CHECK_EQ(s0.invalidations + s1.invalidations, 1); /* none while private */
    for (i = 0; i < 2 * N; i++)
        for (c = 0; c < 2; c++) {
            /* alternating: each core's load and store, in turn; else core
             * 0's all, then core 1's */
            int who = alternate ? c : i < N ? 0 : 1;
            int at = alternate ? i : 2 * (i % N) + c;
            hpm_hier_coh_replay(h, (uint32_t)slot, (uint32_t)who, at & 1 ? HPM_STORE : HPM_LOAD,
                                A + 8 * (uint64_t)who, 8, hit[who][at]);
        }
    s0 = coh_of(h, 0);
    s1 = coh_of(h, 1);
    CHECK_EQ(hpm_hier_coh_line(h, 0, &e, NULL, NULL), HPM_MODEL_OK); /* the one kept */
    CHECK_EQ(hpm_hier_coh_line_cores(h, 0, pc), HPM_MODEL_OK);
    if (alternate) {
        /* every load after the other core's store misses */
        CHECK_EQ(s0.coh_misses, N);
        CHECK_EQ(s1.coh_misses, N);
        CHECK_EQ(s0.invalidations, N + 1);
        CHECK_EQ(s1.invalidations, N);
        CHECK_EQ(e.coh_misses, 2 * N);
        CHECK_EQ(pc[0].coh_misses, N);
        CHECK_EQ(pc[1].true_misses, 0); /* other bytes: false sharing */
        CHECK_EQ(s1.interventions, proto == HPM_COH_MESI ? N : 0);
    } else {
        CHECK_EQ(s0.coh_misses + s1.coh_misses, 2);
        CHECK_EQ(s0.invalidations + s1.invalidations, 3);
    }
    CHECK_EQ(e.true_sharing, 0);
}

/* hpm_hier_coh_defer's line_new: called once as each line enters the
 * table, within the access that made it contended, and not for later
 * accesses of a kept line (the vpmu tool forgets its clean pages there). */
static unsigned coh_lines_entered;
static void count_line_new(void *arg)
{
    CHECK(arg == &coh_lines_entered);
    coh_lines_entered++;
}

static void test_coherence_line_new(uint32_t proto, struct hpm_cache_params l1d)
{
    const uint64_t A = 0x60000, B = 0x70000;
    struct hpm_hier *h = coh_hier(2, proto, l1d);
    coh_lines_entered = 0;
    hpm_hier_coh_defer(h, count_line_new, &coh_lines_entered);
    hpm_hier_access(h, 0, HPM_STORE, A, 8);
    CHECK_EQ(coh_lines_entered, 0); /* one core's line: not contended */
    hpm_hier_access(h, 1, HPM_STORE, A + 8, 8); /* invalidates core 0's copy */
    CHECK_EQ(coh_lines_entered, 1);
    CHECK(hpm_hier_coh_line_index(h, A) >= 0);
    hpm_hier_access(h, 1, HPM_LOAD, A, 8);
    hpm_hier_access(h, 0, HPM_STORE, A, 8); /* kept: the private path */
    CHECK_EQ(coh_lines_entered, 1);
    hpm_hier_access(h, 0, HPM_STORE, B, 8);
    hpm_hier_access(h, 1, HPM_STORE, B, 8);
    CHECK_EQ(coh_lines_entered, 2);
    CHECK_EQ(hpm_hier_coh_line_count(h, NULL), coh_lines_entered);
}

/* A load and the store of its bytes replayed as one (HPM_COH_LOAD_STORE):
 * alternating increments miss as the two accesses do, and under MESI each
 * store takes the other core's modified copy (an intervention). */
static void test_coherence_replay_rmw(uint32_t proto, struct hpm_cache_params l1d)
{
    enum { N = 100 };
    const uint64_t A = 0x50000;
    struct hpm_hier *h = coh_hier(2, proto, l1d);
    struct hpm_coh_stats s0, s1;
    int32_t slot;
    int i, c;
    hpm_hier_access(h, 0, HPM_STORE, A, 8);
    hpm_hier_access(h, 1, HPM_STORE, A + 8, 8);
    slot = hpm_hier_coh_line_index(h, A);
    CHECK(slot >= 0);
    hpm_hier_coh_defer(h, NULL, NULL);
    for (i = 0; i < N; i++)
        for (c = 0; c < 2; c++)
            hpm_hier_coh_replay(h, (uint32_t)slot, (uint32_t)c, HPM_COH_LOAD_STORE,
                                A + 8 * (uint64_t)c, 8, 1);
    s0 = coh_of(h, 0);
    s1 = coh_of(h, 1);
    /* each increment misses the other core's last store; core 0's copy
     * was taken once more before the replay (the line's onset) */
    CHECK_EQ(s0.coh_misses, N);
    CHECK_EQ(s1.coh_misses, N);
    CHECK_EQ(s1.invalidations, N);
    CHECK_EQ(s0.invalidations, N + 1);
    CHECK_EQ(s1.interventions, proto == HPM_COH_MESI ? N : 0);
    CHECK_EQ(s0.interventions, proto == HPM_COH_MESI ? N + 1 : 0);
}

static void test_coherence(void)
{
    /* BG/P's L1D (indexed, FIFO, hinted) and a scanned LRU one */
    struct hpm_cache_params bgp = {32768, 64, 32, HPM_REPL_FIFO, 0, 0};
    struct hpm_cache_params lru = {32768, 8, 32, HPM_REPL_LRU, 0, 0};
    struct hpm_hier_params p;
    uint32_t proto;
    for (proto = HPM_COH_WTI; proto <= HPM_COH_MESI; proto++) {
        test_coherence_false_sharing(proto, bgp);
        test_coherence_false_sharing(proto, lru);
        test_coherence_reads(proto, bgp);
        test_coherence_reads(proto, lru);
        test_coherence_summary(proto, bgp);
        test_coherence_summary(proto, lru);
        test_coherence_lines(proto, bgp);
        test_coherence_lines(proto, lru);
        test_coherence_lines(proto, (struct hpm_cache_params){32768, 8, 128, HPM_REPL_LRU, 0, 0});
        test_coherence_replay(proto, bgp, 1);
        test_coherence_replay(proto, lru, 1);
        test_coherence_replay(proto, lru, 0);
        test_coherence_replay_rmw(proto, bgp);
        test_coherence_line_new(proto, bgp);
        test_coherence_line_new(proto, lru);
    }
    test_coherence_marker_evicted();
    test_coherence_disjoint_same(bgp);
    test_coherence_disjoint_same(lru);
    memset(&p, 0, sizeof p);
    p.cores = 2;
    p.l1i = p.l1d = lru;
    p.coherence = HPM_COH_COUNT;
    CHECK_EQ(hpm_hier_params_check(&p), HPM_MODEL_EPARAM);
}

int main(void)
{
    test_params();
    test_cold_sequential();
    test_thrash(HPM_REPL_LRU);
    test_thrash(HPM_REPL_FIFO);
    test_warm_hits();
    test_lru_vs_fifo();
    test_random_deterministic();
    test_writeback();
    test_straddle();
    test_cachegrind_equivalence();
    test_bgl_sequential_stores();
    test_tlb();
    test_gshare_loop();
    test_ras();
    test_btb();
    test_btb_random();
    test_timing();
    test_prefetch();
    test_prefetch_streams_random();
    test_hier_writeback();
    test_indexed_equivalence();
    test_coherence();
    free_all();
    if (failures) {
        fprintf(stderr, "test_model: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_model: ok\n");
    return 0;
}
