/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_upc - the UPC call-through requests: the programmed events, node and
 * per-thread reads, run-time selection, raw register access at the Figure 5
 * offsets, and their error codes. Run under the default machine (one core).
 */
#include <string.h>

#include "catalog.h"
#include "vpmu_test.h"

#define CODE_FP_DP_SCALAR 29 /* PU0_FP_DP_SCALAR: kind 29 on core 0 */
#define CODE_INSTRUCTIONS 0
#define REG_START_STOP 0x900
#define REG_STATUS 0x920

static uint32_t codes[1024];
static uint64_t vals[1024];

static int index_of(uint32_t code, long n)
{
    for (long i = 0; i < n; i++)
        if (codes[i] == code)
            return (int)i;
    return -1;
}

static uint64_t fp_node(int i)
{
    long n = HPM_VPMU_READ_EVENTS(vals, 1024, HPM_VPMU_SCOPE_NODE);
    return n > i ? vals[i] : ~0ull;
}

/* Two buffers of the same size and alignment, never touched before: a
 * stream through either reads the same lines from DDR. */
#define STREAM_BYTES (1u << 20)
static unsigned char stream_a[STREAM_BYTES] __attribute__((aligned(4096)));
static unsigned char stream_b[STREAM_BYTES] __attribute__((aligned(4096)));

static volatile uint64_t stream_sum;

/* Streams through buf, reading node event i every `every` bytes (0: never);
 * what DDR_READ_BYTES (event i) moved. The loads' values are used: VEX
 * drops a load whose value is dead before any tool sees it (cachegrind
 * does not see such a load either), which `volatile` alone does not stop
 * when the compiler overwrites the loaded register. */
static uint64_t stream_ddr(const unsigned char *buf, size_t every, int i)
{
    uint64_t a = fp_node(i), sum = 0;
    for (size_t off = 0; off < STREAM_BYTES; off += 32) {
        sum += buf[off] + off;
        if (every && off % every == 0)
            (void)fp_node(i);
    }
    stream_sum = sum;
    return fp_node(i) - a;
}

int main(void)
{
    long n, rc;
    int i;
    uint64_t a, b, t0, t1, reg;
    uint32_t sel[2] = {CODE_FP_DP_SCALAR, CODE_INSTRUCTIONS};
    uint32_t bad_code = 991; /* unused: between the two node blocks */

    vpmu_test_require_tool();

    /* the programmed events: every event of the default machine */
    n = HPM_VPMU_EVENTS(NULL, 0);
    VPMU_EXPECT(n > 50 && n <= 1024, "EVENTS(0) = %ld", n);
    VPMU_EXPECT(HPM_VPMU_EVENTS(codes, 1024) == n, "EVENTS copy");
    i = index_of(CODE_FP_DP_SCALAR, n);
    VPMU_EXPECT(i >= 0, "PU0_FP_DP_SCALAR programmed");

    /* node-wide and per-thread reads from the UPC: exact deltas */
    a = fp_node(i);
    HPM_VPMU_READ_EVENTS(vals, 1024, HPM_VPMU_SCOPE_THREAD);
    t0 = vals[i];
    vpmu_test_scalar_adds(1000);
    b = fp_node(i);
    HPM_VPMU_READ_EVENTS(vals, 1024, HPM_VPMU_SCOPE_THREAD);
    t1 = vals[i];
    VPMU_EXPECT(b - a == 1000, "node delta %" PRIu64, b - a);
    VPMU_EXPECT(t1 - t0 == 1000, "thread delta %" PRIu64, t1 - t0);

    /* the raw counter register of that event holds the same value */
    rc = HPM_VPMU_UPC_READ(0, 8 * CODE_FP_DP_SCALAR, &reg);
    b = fp_node(i);
    VPMU_EXPECT(rc == 0 && reg == b, "counter register %" PRIu64 " vs read %" PRIu64, reg, b);
    rc = HPM_VPMU_UPC_READ(0, REG_START_STOP, &reg);
    VPMU_EXPECT(rc == 0 && (reg & 1) == 1, "start/stop register %" PRIu64, reg);

    /* the global start/stop register gates counting; caches keep running */
    VPMU_EXPECT(HPM_VPMU_UPC_WRITE(0, REG_START_STOP, 0) == 0, "stop via register");
    a = fp_node(i);
    vpmu_test_scalar_adds(700);
    b = fp_node(i);
    VPMU_EXPECT(b == a, "stopped by register: +%" PRIu64, b - a);
    VPMU_EXPECT(HPM_VPMU_UPC_WRITE(0, REG_START_STOP, 1) == 0, "start via register");
    vpmu_test_scalar_adds(300);
    b = fp_node(i);
    VPMU_EXPECT(b - a == 300, "restarted: +%" PRIu64, b - a);
    /* ... and the START/STOP requests write the same register */
    HPM_VPMU_STOP();
    rc = HPM_VPMU_UPC_READ(0, REG_START_STOP, &reg);
    VPMU_EXPECT(rc == 0 && (reg & 1) == 0, "STOP clears bit 0: %" PRIu64, reg);
    HPM_VPMU_START();

    /* a counter written through its register: the thread's count follows
     * at the next read (the read-back after an accounting must see the
     * write, not a value remembered from before it) */
    {
        uint64_t k0[64], k1[64], k2[64];
        VPMU_EXPECT(HPM_VPMU_READ_KINDS(k0, 64) > CODE_FP_DP_SCALAR, "READ_KINDS");
        rc = HPM_VPMU_UPC_READ(0, 8 * CODE_FP_DP_SCALAR, &reg);
        VPMU_EXPECT(rc == 0, "counter register read");
        VPMU_EXPECT(HPM_VPMU_UPC_WRITE(0, 8 * CODE_FP_DP_SCALAR, reg + 1000000) == 0,
                    "counter register write");
        HPM_VPMU_READ_KINDS(k1, 64);
        VPMU_EXPECT(k1[CODE_FP_DP_SCALAR] - k0[CODE_FP_DP_SCALAR] == 1000000,
                    "thread's FP_DP_SCALAR after a register write: +%" PRIu64,
                    k1[CODE_FP_DP_SCALAR] - k0[CODE_FP_DP_SCALAR]);
        vpmu_test_scalar_adds(200);
        HPM_VPMU_READ_KINDS(k2, 64);
        VPMU_EXPECT(k2[CODE_FP_DP_SCALAR] - k1[CODE_FP_DP_SCALAR] == 200,
                    "and counting on from it: +%" PRIu64,
                    k2[CODE_FP_DP_SCALAR] - k1[CODE_FP_DP_SCALAR]);
    }

    /* A node event that moves at misses, read between most of them: most
     * reads flush the node's cycles alone (nothing else of the node moved
     * since the last), the others every node event (vpmu_node.c,
     * node_walk_all). Whatever the reads, a stream over lines never touched
     * reads each from DDR once (give or take a line or two: the reads' own
     * stack and code lines). */
    {
        int d = index_of((uint32_t)hpm_catalog_code(HPM_K_DDR_READ_BYTES, -1), n);
        uint64_t quiet, busy;
        VPMU_EXPECT(d >= 0, "DDR_READ_BYTES programmed");
        quiet = stream_ddr(stream_a, 0, d);
        busy = stream_ddr(stream_b, 32, d);
        VPMU_EXPECT(quiet >= STREAM_BYTES && quiet <= STREAM_BYTES + 1024,
                    "DDR bytes read of a 1 MiB stream: %" PRIu64, quiet);
        VPMU_EXPECT(busy >= STREAM_BYTES && busy <= STREAM_BYTES + 1024,
                    "... read at every line: %" PRIu64, busy);
    }

    /* register errors */
    VPMU_EXPECT(HPM_VPMU_UPC_READ(1, REG_START_STOP, &reg) == HPM_VPMU_EREGISTER, "no unit 1");
    VPMU_EXPECT(HPM_VPMU_UPC_READ(0, 0x903, &reg) == HPM_VPMU_EREGISTER, "misaligned");
    VPMU_EXPECT(HPM_VPMU_UPC_READ(0, 0x100000, &reg) == HPM_VPMU_EREGISTER, "unmapped");
    VPMU_EXPECT(HPM_VPMU_UPC_WRITE(0, REG_STATUS, 1) == HPM_VPMU_EREGISTER, "read-only");
    VPMU_EXPECT(HPM_VPMU_UPC_READ(0, REG_START_STOP, (uint64_t *)16) == HPM_VPMU_EFAULT,
                "bad out pointer");

    /* bad reads */
    VPMU_EXPECT(HPM_VPMU_READ_EVENTS((uint64_t *)16, 4, HPM_VPMU_SCOPE_NODE) == HPM_VPMU_EFAULT,
                "bad buffer");
    VPMU_EXPECT(HPM_VPMU_READ_EVENTS(vals, 4, 7) == HPM_VPMU_EINVAL, "bad scope");
    VPMU_EXPECT(HPM_VPMU_EVENTS((uint32_t *)16, 4) == HPM_VPMU_EFAULT, "bad codes buffer");

    /* selection: bad input changes nothing */
    VPMU_EXPECT(HPM_VPMU_SELECT(&bad_code, 1) == HPM_VPMU_EINVAL, "unused code");
    VPMU_EXPECT(HPM_VPMU_SELECT(sel, 0) == HPM_VPMU_EINVAL, "no codes");
    VPMU_EXPECT(HPM_VPMU_SELECT((uint32_t *)16, 2) == HPM_VPMU_EFAULT, "bad pointer");
    {
        uint32_t dup[2] = {CODE_INSTRUCTIONS, CODE_INSTRUCTIONS};
        VPMU_EXPECT(HPM_VPMU_SELECT(dup, 2) == HPM_VPMU_EINVAL, "duplicate code");
    }
    VPMU_EXPECT(HPM_VPMU_EVENTS(NULL, 0) == n, "programming unchanged after errors");

    /* selection: two events, counts restart at zero */
    VPMU_EXPECT(HPM_VPMU_SELECT(sel, 2) == 0, "select 2");
    VPMU_EXPECT(HPM_VPMU_EVENTS(codes, 1024) == 2 && codes[0] == CODE_FP_DP_SCALAR &&
                    codes[1] == CODE_INSTRUCTIONS,
                "EVENTS after select");
    a = fp_node(0);
    vpmu_test_scalar_adds(500);
    b = fp_node(0);
    VPMU_EXPECT(a < 100 && b - a == 500, "after select: %" PRIu64 " then +%" PRIu64, a, b - a);
    HPM_VPMU_READ_EVENTS(vals, 2, HPM_VPMU_SCOPE_THREAD);
    VPMU_EXPECT(vals[0] == b, "thread share on a one-core node = node count");
    VPMU_EXPECT(vals[1] > 500, "instructions %" PRIu64, vals[1]);

    /* reset zeroes the UPC */
    HPM_VPMU_RESET();
    a = fp_node(0);
    VPMU_EXPECT(a == 0, "after reset %" PRIu64, a);
    return vpmu_test_done("vpmu_upc");
}
