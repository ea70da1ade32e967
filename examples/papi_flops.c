/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_flops.c - the README's PAPI example: an unmodified PAPI program that
 * counts the instructions and floating-point operations of a loop. Natively
 * it counts what the machine's PMU has; under `hpm run` it counts on the
 * virtual PMU.
 *
 *   cc -Iinclude/papi examples/papi_flops.c -Lbuild/lib -lpapi -o papi_flops
 *   LD_LIBRARY_PATH=build/lib build/bin/hpm run -- ./papi_flops
 */
#include <stdio.h>
#include <stdlib.h>

#include "papi.h"

static void die(const char *what, int rc)
{
    fprintf(stderr, "papi_flops: %s: %s\n", what, PAPI_strerror(rc));
    exit(1);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000, i;
    int set = PAPI_NULL, rc;
    long long v[2];
    volatile double x = 0.0;
    if ((rc = PAPI_library_init(PAPI_VER_CURRENT)) != PAPI_VER_CURRENT)
        die("PAPI_library_init", rc < 0 ? rc : PAPI_EINVAL);
    if ((rc = PAPI_create_eventset(&set)) != PAPI_OK)
        die("PAPI_create_eventset", rc);
    if ((rc = PAPI_add_named_event(set, "PAPI_TOT_INS")) != PAPI_OK)
        die("PAPI_TOT_INS", rc);
    if ((rc = PAPI_add_named_event(set, "PAPI_FP_OPS")) != PAPI_OK)
        die("PAPI_FP_OPS", rc);
    if ((rc = PAPI_start(set)) != PAPI_OK)
        die("PAPI_start", rc);
    for (i = 0; i < n; i++)
        x = x + 0.5; /* one FP addition an iteration */
    if ((rc = PAPI_stop(set, v)) != PAPI_OK)
        die("PAPI_stop", rc);
    printf("%ld iterations: PAPI_TOT_INS %lld, PAPI_FP_OPS %lld (x = %g)\n", n, v[0], v[1], x);
    return 0;
}
