/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_loop.c - a PAPI program as a user writes it: PAPI_TOT_INS around a
 * loop of known length, the count printed. tests/install builds it against
 * the installed tree (pkg-config --cflags --libs papi, and CMake's
 * find_package(hpm) as hpm::papi) and runs it under the installed hpm run,
 * and counts loop() with hpm count --only=loop (counts that no path or
 * environment of the run can change).
 */
#include <papi.h>
#include <stdio.h>

#define LOOP_ITERATIONS 1000000L

long loop(long n);

__attribute__((noinline)) long loop(long n)
{
    volatile long sum = 0;
    for (long i = 0; i < n; i++)
        sum += i;
    return sum;
}

int main(void)
{
    int set = PAPI_NULL;
    long long count = 0;
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
        fprintf(stderr, "papi_loop: PAPI_library_init failed\n");
        return 1;
    }
    if (PAPI_create_eventset(&set) != PAPI_OK || PAPI_add_event(set, PAPI_TOT_INS) != PAPI_OK) {
        fprintf(stderr, "papi_loop: PAPI_TOT_INS cannot be counted here\n");
        return 1;
    }
    if (PAPI_start(set) != PAPI_OK)
        return 1;
    loop(LOOP_ITERATIONS);
    if (PAPI_stop(set, &count) != PAPI_OK)
        return 1;
    printf("loop %ld PAPI_TOT_INS %lld\n", LOOP_ITERATIONS, count);
    return 0;
}
