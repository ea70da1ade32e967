/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm_loop.c - a libhpm program as a user writes it (<hpm/hpm.h>, linked
 * as hpm::hpm from find_package(hpm)): sim::INSTRUCTIONS around a loop of
 * known length, the count printed.
 */
#include <hpm/hpm.h>
#include <stdio.h>

#define LOOP_ITERATIONS 1000000L

int main(void)
{
    int set;
    hpm_event_t ins;
    int64_t count = 0;
    volatile long sum = 0;
    if (hpm_init() < 0 || hpm_event_find("sim::INSTRUCTIONS", &ins) != HPM_OK ||
        hpm_set_create(&set) != HPM_OK || hpm_set_add(set, ins) < 0) {
        fprintf(stderr, "hpm_loop: sim::INSTRUCTIONS cannot be counted here\n");
        return 1;
    }
    if (hpm_start(set) != HPM_OK)
        return 1;
    for (long i = 0; i < LOOP_ITERATIONS; i++)
        sum += i;
    if (hpm_stop(set, &count) != HPM_OK)
        return 1;
    printf("loop %ld sim::INSTRUCTIONS %lld\n", LOOP_ITERATIONS, (long long)count);
    hpm_shutdown();
    return 0;
}
