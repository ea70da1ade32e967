/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Client requests: is-running, regions (nested, repeated), start/stop,
 * reset, and error returns for bad pointers and names (the tool must not
 * crash). RESET zeroes counters and region totals. The output file is checked by vpmu_check (see CMakeLists.txt):
 *   region "work" thread 1: entries 3, fp_dp_scalar 9*N exactly
 *   region "inner" thread 1: entries 3, fp_dp_scalar 3*N exactly
 *   region "stopped": fp_dp_scalar 0 (counting stopped inside) */
#define _DEFAULT_SOURCE 1
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vpmu_test.h"

#define N 1000


int main(void)
{
    uint64_t a[VPMU_EV_COUNT], b[VPMU_EV_COUNT];
    char longname[300];
    long r;
    int i;

    vpmu_test_require_tool();
    /* reset zeroes all counters and region totals (so it comes first) */
    vpmu_test_scalar_adds(N);
    r = HPM_VPMU_RESET();
    VPMU_EXPECT(r == 0, "reset %ld", r);
    HPM_VPMU_READ(a, VPMU_EV_COUNT);
    VPMU_EXPECT(a[VPMU_EV_INSTRUCTIONS] < 100 && a[VPMU_EV_FP_DP_SCALAR] == 0,
                "after reset: %" PRIu64, a[VPMU_EV_INSTRUCTIONS]);

    for (i = 0; i < 3; i++) {
        VPMU_EXPECT(HPM_VPMU_REGION_BEGIN("work") == 0, "begin");
        VPMU_EXPECT(HPM_VPMU_REGION_BEGIN("inner") == 0, "begin inner");
        vpmu_test_scalar_adds(N);
        VPMU_EXPECT(HPM_VPMU_REGION_END("inner") == 0, "end inner");
        vpmu_test_scalar_adds(N);
        vpmu_test_scalar_adds(N);
        VPMU_EXPECT(HPM_VPMU_REGION_END("work") == 0, "end");
    }

    /* stop / start: nothing is counted while stopped */
    HPM_VPMU_READ(a, VPMU_EV_COUNT);
    VPMU_EXPECT(HPM_VPMU_REGION_BEGIN("stopped") == 0, "begin stopped");
    VPMU_EXPECT(HPM_VPMU_STOP() == 0, "stop");
    vpmu_test_scalar_adds(N);
    VPMU_EXPECT(HPM_VPMU_START() == 0, "start");
    VPMU_EXPECT(HPM_VPMU_REGION_END("stopped") == 0, "end stopped");
    HPM_VPMU_READ(b, VPMU_EV_COUNT);
    VPMU_EXPECT(VPMU_D(a, b, FP_DP_SCALAR) == 0, "counted while stopped: %" PRIu64,
                VPMU_D(a, b, FP_DP_SCALAR));
    VPMU_EXPECT(VPMU_D(a, b, INSTRUCTIONS) < 100, "instructions while stopped: %" PRIu64,
                VPMU_D(a, b, INSTRUCTIONS));

    /* errors, never crashes */
    VPMU_EXPECT(HPM_VPMU_READ(NULL, 4) == HPM_VPMU_EFAULT, "read NULL");
    VPMU_EXPECT(HPM_VPMU_READ((uint64_t *)16, 4) == HPM_VPMU_EFAULT, "read low address");
    VPMU_EXPECT(HPM_VPMU_READ((uint64_t *)(uintptr_t)main, 4) == HPM_VPMU_EFAULT,
                "read into text");
    VPMU_EXPECT(HPM_VPMU_READ(a, 0) == VPMU_EV_COUNT, "read 0 = count");
    VPMU_EXPECT(HPM_VPMU_READ(a, 3) == 3, "partial read");
    VPMU_EXPECT(HPM_VPMU_READ(a, 1000) == VPMU_EV_COUNT, "long buffer");
    VPMU_EXPECT(HPM_VPMU_REGION_BEGIN(NULL) == HPM_VPMU_EFAULT, "NULL name");
    VPMU_EXPECT(HPM_VPMU_REGION_BEGIN((char *)8) == HPM_VPMU_EFAULT, "bad name");
    VPMU_EXPECT(HPM_VPMU_REGION_BEGIN("") == HPM_VPMU_EINVAL, "empty name");
    memset(longname, 'x', sizeof longname);
    longname[sizeof longname - 1] = 0;
    VPMU_EXPECT(HPM_VPMU_REGION_BEGIN(longname) == HPM_VPMU_ENAMETOOLONG, "long name");
    VPMU_EXPECT(HPM_VPMU_REGION_END("nothing-open") == HPM_VPMU_ENESTING, "end w/o begin");
    VPMU_EXPECT(HPM_VPMU_REGION_BEGIN("x") == 0, "begin x");
    VPMU_EXPECT(HPM_VPMU_REGION_END("y") == HPM_VPMU_ENESTING, "end mismatch");
    VPMU_EXPECT(HPM_VPMU_REGION_END("x") == 0, "end x");
    {
        /* a name running into an unmapped page: EFAULT, not a crash */
        long pg = sysconf(_SC_PAGESIZE);
        char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        VPMU_EXPECT(m != MAP_FAILED, "mmap");
        if (m != MAP_FAILED) {
            munmap(m + pg, pg);
            memset(m + pg - 10, 'z', 10);
            VPMU_EXPECT(HPM_VPMU_REGION_BEGIN(m + pg - 10) == HPM_VPMU_EFAULT, "name over edge");
            /* read buffer straddling into the unmapped page */
            VPMU_EXPECT(HPM_VPMU_READ((uint64_t *)(m + pg - 16), 4) == HPM_VPMU_EFAULT,
                        "buffer over edge");
            mprotect(m, pg, PROT_READ);
            VPMU_EXPECT(HPM_VPMU_READ((uint64_t *)m, 4) == HPM_VPMU_EFAULT, "read-only buffer");
        }
    }
    return vpmu_test_done("vpmu_region");
}
