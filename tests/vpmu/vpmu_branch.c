/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A loop of N iterations (ADD, DEC, JNZ in asm) executes exactly N
 * conditional branches, N-1 taken and 1 not taken, and 3N+1 instructions
 * (plus MOV of the trip count). The instruction delta between two READ
 * requests also contains the fixed cost of the request sequence; it is
 * measured with an empty pair of READs and subtracted. A REP STOSB of any
 * length counts as one instruction and as `len` stores. Calls and returns
 * of a noinline function count one each. */
#include "vpmu_test.h"

#define N 50000
#define LEN 1000

static unsigned char buf[LEN];

__attribute__((noinline)) static long callee(long x)
{
    __asm__ volatile("" : "+r"(x));
    return x + 1;
}

int main(void)
{
    uint64_t a[VPMU_EV_COUNT], b[VPMU_EV_COUNT], c[VPMU_EV_COUNT], d[VPMU_EV_COUNT];
    uint64_t e[VPMU_EV_COUNT], f[VPMU_EV_COUNT];
    long r = 0, x = 0;
    int64_t base, loop;

    vpmu_test_require_tool();
    /* fixed cost of the request sequence: back-to-back reads */
    r |= HPM_VPMU_READ(a, VPMU_EV_COUNT);
    r |= HPM_VPMU_READ(b, VPMU_EV_COUNT);
    /* the loop */
    __asm__ volatile("mov %1, %%ecx\n\t"
                     "1: add $1, %0\n\t"
                     "dec %%ecx\n\t"
                     "jnz 1b"
                     : "+r"(x)
                     : "i"(N)
                     : "ecx", "cc");
    r |= HPM_VPMU_READ(c, VPMU_EV_COUNT);
    /* REP STOSB */
    {
        void *p = buf;
        unsigned long cnt = LEN;
        __asm__ volatile("rep stosb" : "+D"(p), "+c"(cnt) : "a"(0) : "memory");
    }
    r |= HPM_VPMU_READ(d, VPMU_EV_COUNT);
    x = callee(x);
    r |= HPM_VPMU_READ(e, VPMU_EV_COUNT);
    (void)f;

    VPMU_EXPECT(r == VPMU_EV_COUNT, "read returned %ld", r);
    base = (int64_t)VPMU_D(a, b, INSTRUCTIONS);
    loop = (int64_t)VPMU_D(b, c, INSTRUCTIONS);
    printf("request overhead %" PRId64 " instructions; loop delta %" PRId64
           " = 3N+1 + %" PRId64 "\n", base, loop, loop - base - (3 * N + 1));
    /* the request sequences around the loop are the same code; the compiler
     * may schedule up to a few register moves differently */
    VPMU_EXPECT(loop - base >= 3 * N + 1 && loop - base <= 3 * N + 1 + 4,
                "loop instructions %" PRId64 " base %" PRId64, loop, base);
    VPMU_EXPECT(VPMU_D(a, b, BR_COND) == 0, "%" PRIu64, VPMU_D(a, b, BR_COND));
    VPMU_EXPECT(VPMU_D(b, c, BR_COND) == N, "%" PRIu64, VPMU_D(b, c, BR_COND));
    VPMU_EXPECT(VPMU_D(b, c, BR_COND_TAKEN) == N - 1, "%" PRIu64, VPMU_D(b, c, BR_COND_TAKEN));
    VPMU_EXPECT(VPMU_D(b, c, BR_COND_NOT_TAKEN) == 1, "%" PRIu64,
                VPMU_D(b, c, BR_COND_NOT_TAKEN));
    VPMU_EXPECT(VPMU_D(b, c, BRANCHES) == N, "%" PRIu64, VPMU_D(b, c, BRANCHES));
    /* REP STOSB: one instruction, LEN one-byte stores */
    VPMU_EXPECT(VPMU_D(c, d, STORES) - VPMU_D(a, b, STORES) == LEN, "%" PRIu64,
                VPMU_D(c, d, STORES));
    VPMU_EXPECT(VPMU_D(c, d, STORE_BYTES) - VPMU_D(a, b, STORE_BYTES) == LEN, "%" PRIu64,
                VPMU_D(c, d, STORE_BYTES));
    VPMU_EXPECT(VPMU_D(c, d, BR_COND) == 0, "rep is not a branch: %" PRIu64,
                VPMU_D(c, d, BR_COND));
    VPMU_EXPECT(VPMU_D(c, d, INSTRUCTIONS) - VPMU_D(a, b, INSTRUCTIONS) <= 8,
                "rep stosb counted %" PRIu64 " instructions", VPMU_D(c, d, INSTRUCTIONS));
    /* one call, one return */
    VPMU_EXPECT(VPMU_D(d, e, BR_CALL) == 1, "%" PRIu64, VPMU_D(d, e, BR_CALL));
    VPMU_EXPECT(VPMU_D(d, e, BR_RET) == 1, "%" PRIu64, VPMU_D(d, e, BR_RET));
    printf("x %ld\n", x);
    return vpmu_test_done("vpmu_branch");
}
