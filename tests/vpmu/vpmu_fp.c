/* SPDX-License-Identifier: GPL-2.0-or-later */
/* N double-precision scalar adds (ADDSD in an asm loop) must count exactly
 * N fp_dp_scalar operations, N fp_ops, N fp_instructions and nothing else
 * in the other FP buckets; packed adds count per lane. */
#include "vpmu_test.h"

#define N 100000

int main(void)
{
    uint64_t a[VPMU_EV_COUNT], b[VPMU_EV_COUNT], c[VPMU_EV_COUNT];
    double acc = 0.0, one = 1.0;
    long ra, rb, rc;
    unsigned long n = N;

    vpmu_test_require_tool();
    HPM_VPMU_REGION_BEGIN("fp_scalar");
    ra = HPM_VPMU_READ(a, VPMU_EV_COUNT);
    vpmu_test_scalar_adds(N);
    rb = HPM_VPMU_READ(b, VPMU_EV_COUNT);
    HPM_VPMU_REGION_END("fp_scalar");
    /* packed: ADDPD = 2 double ops per instruction */
    __asm__ volatile("1: addpd %2, %0\n\t"
                     "dec %1\n\t"
                     "jnz 1b"
                     : "+x"(acc), "+r"(n)
                     : "x"(one)
                     : "cc");
    rc = HPM_VPMU_READ(c, VPMU_EV_COUNT);

    VPMU_EXPECT(ra == VPMU_EV_COUNT && rb == VPMU_EV_COUNT && rc == VPMU_EV_COUNT,
                "read returned %ld %ld %ld", ra, rb, rc);
    VPMU_EXPECT(VPMU_D(a, b, FP_DP_SCALAR) == N, "%" PRIu64, VPMU_D(a, b, FP_DP_SCALAR));
    VPMU_EXPECT(VPMU_D(a, b, FP_OPS) == N, "%" PRIu64, VPMU_D(a, b, FP_OPS));
    VPMU_EXPECT(VPMU_D(a, b, FP_INSTRUCTIONS) == N, "%" PRIu64, VPMU_D(a, b, FP_INSTRUCTIONS));
    VPMU_EXPECT(VPMU_D(a, b, FP_DP_128) == 0 && VPMU_D(a, b, FP_SP_SCALAR) == 0 &&
                    VPMU_D(a, b, FP_FMA) == 0 && VPMU_D(a, b, FP_DIV) == 0,
                "unexpected FP classes");
    VPMU_EXPECT(VPMU_D(b, c, FP_DP_128) == 2 * N, "%" PRIu64, VPMU_D(b, c, FP_DP_128));
    VPMU_EXPECT(VPMU_D(b, c, FP_OPS) == 2 * N, "%" PRIu64, VPMU_D(b, c, FP_OPS));
    VPMU_EXPECT(VPMU_D(b, c, FP_INSTRUCTIONS) == N, "%" PRIu64, VPMU_D(b, c, FP_INSTRUCTIONS));
    VPMU_EXPECT(VPMU_D(b, c, FP_DP_SCALAR) == 0, "%" PRIu64, VPMU_D(b, c, FP_DP_SCALAR));
    printf("acc %g\n", acc);
    return vpmu_test_done("vpmu_fp");
}
