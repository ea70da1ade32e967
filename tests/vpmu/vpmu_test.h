/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vpmu_test.h - helpers for the hpm virtual PMU tests (run under Valgrind). */
#ifndef HPM_VPMU_TEST_H
#define HPM_VPMU_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "hpm_client.h"

static int vpmu_test_failures;

#define VPMU_EXPECT(cond, ...)                                        \
    do {                                                              \
        if (!(cond)) {                                                \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                             \
            fputc('\n', stderr);                                      \
            vpmu_test_failures++;                                     \
        }                                                             \
    } while (0)

/* delta of event e between two snapshots */
#define VPMU_D(a, b, e) ((b)[VPMU_EV_##e] - (a)[VPMU_EV_##e])

static inline void vpmu_test_require_tool(void)
{
    if (HPM_VPMU_IS_RUNNING() != HPM_VPMU_INTERFACE_VERSION) {
        fprintf(stderr, "not running under valgrind --tool=hpm\n");
        exit(77);
    }
}

static inline int vpmu_test_done(const char *name)
{
    const char *sc = getenv("VPMU_SELFCHECK");
    if (vpmu_test_failures && sc && sc[0] == '0') {
        printf("%s: %d self-check failure(s) ignored (VPMU_SELFCHECK=0)\n", name,
               vpmu_test_failures);
        return 0;
    }
    if (vpmu_test_failures) {
        fprintf(stderr, "%s: %d failure(s)\n", name, vpmu_test_failures);
        return 1;
    }
    printf("%s: ok\n", name);
    return 0;
}

/* n double-precision scalar adds (one ADDSD each) in an asm loop the compiler
 * cannot fold: the workload whose FP count the tests know exactly. */
__attribute__((noinline, unused)) static void vpmu_test_scalar_adds(unsigned long n)
{
    double acc = 0.0, one = 1.0;
    __asm__ volatile("1: addsd %2, %0\n\t"
                     "dec %1\n\t"
                     "jnz 1b"
                     : "+x"(acc), "+r"(n)
                     : "x"(one)
                     : "cc");
}

#endif
