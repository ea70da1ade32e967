/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_counted - the instrumentation counts only the exact core events the
 * programmed kinds need (vpmu_ev_counted); a selection that needs more
 * widens it. Run with --hpm-events=PU0_INSTRUCTIONS,PU0_LOADS (level core,
 * no load bytes, stores or conditional branches counted), the program
 * selects kinds made of uncounted events and checks their counts exactly:
 * N more iterations of a loop of one 8-byte load, one 8-byte store and one
 * conditional branch add exactly 8N load bytes, N stores, N branches.
 */
#include "catalog.h"
#include "vpmu_test.h"

#define N 10000

static uint64_t cell[2];

/* n iterations: mov (p), rax; mov rax, 8(p); dec; jnz */
__attribute__((noinline)) static void load_store_loop(unsigned long n, uint64_t *p)
{
    __asm__ volatile("1: mov (%1), %%rax\n\t"
                     "mov %%rax, 8(%1)\n\t"
                     "dec %0\n\t"
                     "jnz 1b"
                     : "+r"(n)
                     : "r"(p)
                     : "rax", "memory", "cc");
}

int main(void)
{
    /* codes of core 0 are the kinds themselves */
    uint32_t sel[4] = {HPM_K_LOAD_BYTES, HPM_K_STORES, HPM_K_BR_COND, HPM_K_LOADS};
    uint64_t a[4], b[4], c[4];
    int i;

    vpmu_test_require_tool();
    VPMU_EXPECT(HPM_VPMU_EVENTS(NULL, 0) == 2, "programmed by the options: %ld",
                (long)HPM_VPMU_EVENTS(NULL, 0));
    VPMU_EXPECT(HPM_VPMU_SELECT(sel, 4) == 0, "select");
    HPM_VPMU_READ_EVENTS(a, 4, HPM_VPMU_SCOPE_NODE);
    load_store_loop(N, cell);
    HPM_VPMU_READ_EVENTS(b, 4, HPM_VPMU_SCOPE_NODE);
    load_store_loop(2 * N, cell);
    HPM_VPMU_READ_EVENTS(c, 4, HPM_VPMU_SCOPE_NODE);
    for (i = 0; i < 4; i++) {
        /* the reads and calls cost the same both times: N more iterations */
        uint64_t more = (c[i] - b[i]) - (b[i] - a[i]);
        uint64_t want = i == 0 ? 8 * (uint64_t)N : (uint64_t)N;
        VPMU_EXPECT(more == want, "selected event %d (code %u): %" PRIu64 " more, want %" PRIu64,
                    i, sel[i], more, want);
        VPMU_EXPECT(b[i] - a[i] >= want, "selected event %d counts the loop: %" PRIu64, i,
                    b[i] - a[i]);
    }
    return vpmu_test_done("vpmu_counted");
}
