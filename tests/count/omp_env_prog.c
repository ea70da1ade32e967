/* SPDX-License-Identifier: BSD-3-Clause */
/* An OpenMP program (linked with libgomp) that prints the wait policy its
 * environment gives it: count.fake_env checks that hpm sets a passive one
 * for OpenMP programs only, and keeps the user's. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    const char *p = getenv("OMP_WAIT_POLICY");
    int threads = 0;
#pragma omp parallel
#pragma omp atomic
    threads++;
    printf("policy=%s threads=%d\n", p ? p : "", threads > 0);
    return 0;
}
