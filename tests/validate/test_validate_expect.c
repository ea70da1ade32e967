/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_validate_expect - the expectations of `hpm validate`
 * (tools/hpm/validate/validate_expect.c) against seed 001's Table 1.
 *
 *   test_validate_expect MACHINES_DIR
 *
 * On the bgl machine file every expected count must be the seed's own
 * figure (Table 1 and the text of section 4.1), the L2 misses of the random
 * rows apart, where the refinement for an LRU L2 adds to the seed's figure
 * (which stays in .seed). The expectations must follow the parameters: a
 * changed line, page or policy changes them as the seed's reasoning says.
 * The judging rule (tolerance, bound, slack) is checked on its edges.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hpm_check.h"
#include "machine.h"
#include "validate/validate_expect.h"

static const struct vx_row *find(const struct vx_row *rows, int n, const char *id)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(rows[i].id, id)) return &rows[i];
    fprintf(stderr, "no row %s\n", id);
    failures++;
    return &rows[0];
}

#define K 1024.0
#define M (1024.0 * 1024.0)

/* exp of row id, column col == v (values are whole numbers but for the
 * refined cells, which are checked apart) */
#define EXPECT(rows, n, id, col, v) CHECK_EQ(llround(find(rows, n, id)->cell[col].value), (v))
#define SEED(rows, n, id, col, v) CHECK_EQ(llround(find(rows, n, id)->cell[col].seed), (v))
#define KIND(rows, n, id, col, k) CHECK_EQ(find(rows, n, id)->cell[col].kind, (k))

static void test_bgl(const struct hpm_machine *m)
{
    struct vx_row r[VX_MAX_ROWS];
    char err[256];
    int n = vx_expect_all(m, r, VX_MAX_ROWS, err, sizeof err);
    CHECK_EQ(n, 9);
    if (n != 9) return;
    /* Table 1, seq rows: 1M stores, 256K L1 misses, 64K L2 misses, 2K TLB */
    EXPECT(r, n, "seq_stores", VX_FP_STORES, 1 * M);
    EXPECT(r, n, "seq_stores", VX_L1_STORE_MISSES, 256 * K);
    EXPECT(r, n, "seq_stores", VX_FP_LOADS, 0);
    EXPECT(r, n, "seq_stores", VX_L1_LOAD_MISSES, 0);
    EXPECT(r, n, "seq_stores", VX_L2_MISSES, 64 * K);
    EXPECT(r, n, "seq_stores", VX_TLB_MISSES, 2 * K);
    EXPECT(r, n, "seq_loads", VX_FP_LOADS, 1 * M);
    EXPECT(r, n, "seq_loads", VX_L1_LOAD_MISSES, 256 * K);
    EXPECT(r, n, "seq_loads", VX_L2_MISSES, 64 * K);
    EXPECT(r, n, "seq_loads", VX_TLB_MISSES, 2 * K);
    /* k = 2..n: one store and two loads fewer than 1M and 2M */
    EXPECT(r, n, "seq_ldst", VX_FP_STORES, 1 * M - 1);
    EXPECT(r, n, "seq_ldst", VX_FP_LOADS, 2 * M - 2);
    EXPECT(r, n, "seq_ldst", VX_L1_STORE_MISSES, 0);
    EXPECT(r, n, "seq_ldst", VX_L1_LOAD_MISSES, 256 * K);
    EXPECT(r, n, "seq_ldst", VX_L2_MISSES, 64 * K);
    /* random loads: 1K FP and FX loads, L1 1152 and TLB 1K + 2 (bounds);
     * L2 544 / 800 in the seed */
    EXPECT(r, n, "rnd_ld_D", VX_FP_LOADS, 1024);
    EXPECT(r, n, "rnd_ld_D", VX_FX_LOADS, 1024);
    EXPECT(r, n, "rnd_ld_D", VX_L1_LOAD_MISSES, 1152);
    KIND(r, n, "rnd_ld_D", VX_L1_LOAD_MISSES, VX_BOUND);
    EXPECT(r, n, "rnd_ld_D", VX_TLB_MISSES, 1026);
    KIND(r, n, "rnd_ld_D", VX_TLB_MISSES, VX_BOUND);
    SEED(r, n, "rnd_ld_D", VX_L2_MISSES, 544);
    SEED(r, n, "rnd_ld_D2", VX_L2_MISSES, 800);
    EXPECT(r, n, "rnd_ld_D2", VX_L1_LOAD_MISSES, 1152);
    /* multiple random loads: 32K FP, 1K FX, 32896 L1, 2K (+2) TLB;
     * L2 16416 / 24608 in the seed */
    EXPECT(r, n, "mrnd_ld_D", VX_FP_LOADS, 32 * K);
    EXPECT(r, n, "mrnd_ld_D", VX_FX_LOADS, 1024);
    EXPECT(r, n, "mrnd_ld_D", VX_L1_LOAD_MISSES, 32896);
    EXPECT(r, n, "mrnd_ld_D", VX_TLB_MISSES, 2050);
    SEED(r, n, "mrnd_ld_D", VX_L2_MISSES, 16416);
    SEED(r, n, "mrnd_ld_D2", VX_L2_MISSES, 24608);
    /* bgl's L2 is LRU: the refined values lie above the seed's (evicted
     * resident lines), by little for one access per entry, by a lot for 32 */
    for (int i = 0; i < n; i++) {
        const struct vx_cell *c = &r[i].cell[VX_L2_MISSES];
        if (strstr(r[i].id, "rnd_ld")) {
            CHECK(c->refined);
            CHECK(c->value > c->seed);
        } else {
            CHECK(!c->refined);
        }
    }
    CHECK(find(r, n, "rnd_ld_D")->cell[VX_L2_MISSES].value < 544 + 10);
    CHECK(find(r, n, "mrnd_ld_D")->cell[VX_L2_MISSES].value > 16416 * 1.2);
    CHECK(find(r, n, "mrnd_ld_D")->cell[VX_L2_MISSES].value < 16416 * 1.5);
    /* transpose: 8064 loads and stores, one miss per line of B, 9 pages */
    EXPECT(r, n, "transpose", VX_FP_STORES, 8064);
    EXPECT(r, n, "transpose", VX_FP_LOADS, 8064);
    EXPECT(r, n, "transpose", VX_L1_LOAD_MISSES, 1024);
    EXPECT(r, n, "transpose", VX_L2_MISSES, 256);
    EXPECT(r, n, "transpose", VX_TLB_MISSES, 9);
    /* matrix mult: 4K stores, 516K loads, 66K L1, 768 L2, 25 TLB */
    EXPECT(r, n, "matmult", VX_FP_STORES, 4 * K);
    EXPECT(r, n, "matmult", VX_FP_LOADS, 129 * 4 * K);
    EXPECT(r, n, "matmult", VX_L1_LOAD_MISSES, 66 * K);
    EXPECT(r, n, "matmult", VX_L2_MISSES, 768);
    EXPECT(r, n, "matmult", VX_TLB_MISSES, 25);
}

/* The expectations follow the parameters they come from. */
static void test_follows(const struct hpm_machine *bgl)
{
    struct vx_row r[VX_MAX_ROWS];
    char err[256];
    struct hpm_machine m = *bgl;
    int n;

    /* 64-byte L1 lines: half the L1 misses; the L2 (128) is unchanged */
    m.hier.l1d.line = 64;
    n = vx_expect_all(&m, r, VX_MAX_ROWS, err, sizeof err);
    EXPECT(r, n, "seq_stores", VX_L1_STORE_MISSES, 128 * K);
    EXPECT(r, n, "seq_loads", VX_L2_MISSES, 64 * K);
    EXPECT(r, n, "rnd_ld_D", VX_L1_LOAD_MISSES, 1024 + 64);
    EXPECT(r, n, "matmult", VX_L1_LOAD_MISSES, 33 * K);

    /* 8 KB pages: half the TLB misses; the three matrices at 2 KB into a
     * page span 13 pages; a span of 32 x 128 bytes still two */
    m = *bgl;
    m.dtlb.page_size = 8192;
    n = vx_expect_all(&m, r, VX_MAX_ROWS, err, sizeof err);
    EXPECT(r, n, "seq_loads", VX_TLB_MISSES, 1 * K);
    EXPECT(r, n, "transpose", VX_TLB_MISSES, 5);
    EXPECT(r, n, "matmult", VX_TLB_MISSES, 13);
    EXPECT(r, n, "mrnd_ld_D", VX_TLB_MISSES, 2048 + 1);

    /* an 8 MB L2 holds all of D: the random loads over D miss only on I */
    m = *bgl;
    m.hier.l2.size = 8u << 20;
    n = vx_expect_all(&m, r, VX_MAX_ROWS, err, sizeof err);
    EXPECT(r, n, "rnd_ld_D", VX_L2_MISSES, 32);
    EXPECT(r, n, "mrnd_ld_D", VX_L2_MISSES, 32);
    CHECK(!find(r, n, "mrnd_ld_D")->cell[VX_L2_MISSES].refined);
    SEED(r, n, "rnd_ld_D2", VX_L2_MISSES, 512 + 32);

    /* a FIFO L2: no LRU refinement; the seed's figures stand */
    m = *bgl;
    m.hier.l2.policy = HPM_REPL_FIFO;
    n = vx_expect_all(&m, r, VX_MAX_ROWS, err, sizeof err);
    EXPECT(r, n, "mrnd_ld_D", VX_L2_MISSES, 16416);
    CHECK(!find(r, n, "mrnd_ld_D")->cell[VX_L2_MISSES].refined);

    /* no L2: refused with a reason */
    m = *bgl;
    m.hier.l2.size = 0;
    err[0] = 0;
    CHECK_EQ(vx_expect_all(&m, r, VX_MAX_ROWS, err, sizeof err), -1);
    CHECK(strstr(err, "no L2") != NULL);
}

/* The random rows' bounds count I's lines and pages as often as the
 * entries' accesses between their uses can evict them. */
static void test_i_evicted(const struct hpm_machine *bgl)
{
    struct vx_row r[VX_MAX_ROWS];
    char err[256];
    struct hpm_machine m = *bgl;
    int n;

    /* 16 KB, 8-way FIFO, 64-byte lines: 32 sets; an entry's 32 lines two
     * apart put 2 in a set; I's 64 lines, 16 uses each, fetched up to
     * 1 + 15 x 2 / 8 = 4 times (one random load: 1 + 15 / 8 = 2) */
    m.hier.l1d.size = 16 * 1024;
    m.hier.l1d.assoc = 8;
    m.hier.l1d.line = 64;
    n = vx_expect_all(&m, r, VX_MAX_ROWS, err, sizeof err);
    EXPECT(r, n, "mrnd_ld_D", VX_L1_LOAD_MISSES, 32 * 1024 + 4 * 64);
    EXPECT(r, n, "rnd_ld_D", VX_L1_LOAD_MISSES, 1024 + 2 * 64);
    /* LRU keeps I's line: the 2 lines an entry puts in its set are fewer
     * than its 8 ways */
    m.hier.l1d.policy = HPM_REPL_LRU;
    n = vx_expect_all(&m, r, VX_MAX_ROWS, err, sizeof err);
    EXPECT(r, n, "mrnd_ld_D", VX_L1_LOAD_MISSES, 32 * 1024 + 64);
    /* a random victim may be I's line at any insertion: every load of I */
    m.hier.l1d.policy = HPM_REPL_RANDOM;
    n = vx_expect_all(&m, r, VX_MAX_ROWS, err, sizeof err);
    EXPECT(r, n, "mrnd_ld_D", VX_L1_LOAD_MISSES, 32 * 1024 + 1024);

    /* one DTLB entry: every entry's page evicts I's, a miss per load of I;
     * four entries: the transposed matrix's 9 pages do not stay (n/a), the
     * multiplication's 25 neither */
    m = *bgl;
    m.dtlb.entries = 1;
    n = vx_expect_all(&m, r, VX_MAX_ROWS, err, sizeof err);
    EXPECT(r, n, "rnd_ld_D", VX_TLB_MISSES, 1024 + 1024);
    EXPECT(r, n, "mrnd_ld_D", VX_TLB_MISSES, 2048 + 1024);
    m.dtlb.entries = 4;
    n = vx_expect_all(&m, r, VX_MAX_ROWS, err, sizeof err);
    KIND(r, n, "transpose", VX_TLB_MISSES, VX_NONE);
    KIND(r, n, "matmult", VX_TLB_MISSES, VX_NONE);
    EXPECT(r, n, "rnd_ld_D", VX_TLB_MISSES, 1024 + 2);
    /* 16 entries hold the 9 pages, not the 25 */
    m.dtlb.entries = 16;
    n = vx_expect_all(&m, r, VX_MAX_ROWS, err, sizeof err);
    KIND(r, n, "transpose", VX_TLB_MISSES, VX_EXPECT);
    KIND(r, n, "matmult", VX_TLB_MISSES, VX_NONE);
}

/* Where a machine does not keep what the seed's matrix counts keep, the
 * cell has no expectation (n/a, with why). */
static void test_matrices_unkept(const struct hpm_machine *bgl)
{
    struct vx_row r[VX_MAX_ROWS];
    char err[256];
    struct hpm_machine m = *bgl;
    int n;

    /* bgl keeps everything its counts assume */
    n = vx_expect_all(&m, r, VX_MAX_ROWS, err, sizeof err);
    for (int i = 0; i < n; i++)
        for (int c = 0; c < VX_COLS; c++)
            CHECK(r[i].cell[c].kind != VX_NONE);
    /* random victims: the matrices' L1 counts */
    m.hier.l1d.policy = HPM_REPL_RANDOM;
    n = vx_expect_all(&m, r, VX_MAX_ROWS, err, sizeof err);
    KIND(r, n, "transpose", VX_L1_LOAD_MISSES, VX_NONE);
    KIND(r, n, "transpose", VX_L1_STORE_MISSES, VX_NONE);
    KIND(r, n, "matmult", VX_L1_STORE_MISSES, VX_NONE);
    KIND(r, n, "seq_loads", VX_L1_LOAD_MISSES, VX_EXPECT);
    /* 64 KB, 2-way LRU (1024 sets): C's line, a line of A's row and one of
     * B's row can meet in one set; B's line beside them too */
    m = *bgl;
    m.hier.l1d.size = 64 * 1024;
    m.hier.l1d.assoc = 2;
    m.hier.l1d.policy = HPM_REPL_LRU;
    n = vx_expect_all(&m, r, VX_MAX_ROWS, err, sizeof err);
    KIND(r, n, "matmult", VX_L1_STORE_MISSES, VX_NONE);
    KIND(r, n, "matmult", VX_L1_LOAD_MISSES, VX_NONE);
    /* 8 ways (256 sets): B's 4 lines and the rows' 2 per set fit, B stays */
    m.hier.l1d.assoc = 8;
    n = vx_expect_all(&m, r, VX_MAX_ROWS, err, sizeof err);
    KIND(r, n, "matmult", VX_L1_LOAD_MISSES, VX_EXPECT);
    EXPECT(r, n, "matmult", VX_L1_LOAD_MISSES, 3 * 1024);
    /* ... but FIFO keeps B only if all three matrices fit (they do not) */
    m.hier.l1d.policy = HPM_REPL_FIFO;
    n = vx_expect_all(&m, r, VX_MAX_ROWS, err, sizeof err);
    KIND(r, n, "matmult", VX_L1_LOAD_MISSES, VX_NONE);
    /* L1D lines longer than the L2's: no L2 count is the seed's */
    m = *bgl;
    m.hier.l1d.line = 256;
    n = vx_expect_all(&m, r, VX_MAX_ROWS, err, sizeof err);
    for (int i = 0; i < n; i++)
        CHECK_EQ(r[i].cell[VX_L2_MISSES].kind, VX_NONE);
}

/* A stream prefetcher in front of the L2 (bgp's) hides the misses of the
 * loops it can follow; the single random loads stay judged. */
static void test_prefetcher(const char *dir)
{
    struct vx_row r[VX_MAX_ROWS];
    struct hpm_machine m;
    char err[512];
    if (hpm_machine_find(&m, dir, "bgp", err, sizeof err) != HPM_MACHINE_OK) {
        fprintf(stderr, "cannot load bgp: %s\n", err);
        failures++;
        return;
    }
    int n = vx_expect_all(&m, r, VX_MAX_ROWS, err, sizeof err);
    KIND(r, n, "seq_loads", VX_L2_MISSES, VX_NONE);
    KIND(r, n, "mrnd_ld_D", VX_L2_MISSES, VX_NONE);
    KIND(r, n, "matmult", VX_L2_MISSES, VX_NONE);
    KIND(r, n, "rnd_ld_D", VX_L2_MISSES, VX_EXPECT);
    /* bgp's 2 KB "L2" cannot hold the transposed matrix either */
    CHECK(strstr(find(r, n, "transpose")->cell[VX_L2_MISSES].why, "does not fit the L2"));
}

static void test_judging(void)
{
    struct vx_cell c = {1000.0, 1000.0, VX_EXPECT, 0, NULL};
    CHECK(vx_cell_ok(&c, 1020)); /* 2% */
    CHECK(vx_cell_ok(&c, 980));
    CHECK(!vx_cell_ok(&c, 1021));
    CHECK(!vx_cell_ok(&c, 979));
    c.value = 0; /* the slack where 2% is less */
    CHECK(vx_cell_ok(&c, 16));
    CHECK(!vx_cell_ok(&c, 17));
    c.value = 1152;
    c.kind = VX_BOUND; /* at or below, plus the slack; any amount below */
    CHECK(vx_cell_ok(&c, 1168));
    CHECK(!vx_cell_ok(&c, 1169));
    CHECK(vx_cell_ok(&c, 900));
}

static void test_lru(void)
{
    /* nothing new coming in: nothing is evicted */
    CHECK(vx_lru_eviction_misses(4096, 8, 8, 8, 0.0, 0.5) < 1e-9);
    /* more new lines, more evictions */
    const double a = vx_lru_eviction_misses(4096, 8, 8, 8, 0.25, 0.5);
    const double b = vx_lru_eviction_misses(4096, 8, 8, 8, 0.75, 0.5);
    CHECK(a > 0 && b > a);
    /* one resident line, accessed surely, and 7 new lines: never 8, so the
     * youngest line always stays */
    CHECK(vx_lru_eviction_misses(1, 8, 1, 7, 1.0, 1.0) < 1e-12);
    /* direct-mapped, one new line surely, both at uniform times: the
     * resident line misses iff the new one came first, half the time */
    CHECK(fabs(vx_lru_eviction_misses(1, 1, 1, 1, 1.0, 1.0) - 0.5) < 1e-6);
    /* ... and with two new lines, unless it came before both: 2/3 */
    CHECK(fabs(vx_lru_eviction_misses(1, 1, 1, 2, 1.0, 1.0) - 2.0 / 3.0) < 1e-6);
}

int main(int argc, char **argv)
{
    struct hpm_machine bgl;
    char err[512];
    if (argc != 2) {
        fprintf(stderr, "usage: %s MACHINES_DIR\n", argv[0]);
        return 2;
    }
    if (hpm_machine_find(&bgl, argv[1], "bgl", err, sizeof err) != HPM_MACHINE_OK) {
        fprintf(stderr, "cannot load bgl: %s\n", err);
        return 1;
    }
    test_bgl(&bgl);
    test_follows(&bgl);
    test_i_evicted(&bgl);
    test_matrices_unkept(&bgl);
    test_prefetcher(argv[1]);
    test_judging();
    test_lru();
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("validate.expect: ok\n");
    return 0;
}
