/* SPDX-License-Identifier: BSD-3-Clause */
/* Two builds of one program for hpm diff's tests: with HPM_DIFF_EXTRA=N,
 * hot() runs an extra loop whose instruction count is exact (a mov, then
 * N times dec and jnz: 1 + 2N instructions); nothing else differs.
 * `diff_prog clock` spins as long as the clock's nanoseconds say. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <time.h>

#ifndef HPM_DIFF_EXTRA
#define HPM_DIFF_EXTRA 0
#endif

__attribute__((noinline)) static void spin(unsigned long n)
{
    __asm__ volatile("1: dec %0\n\t"
                     "jnz 1b"
                     : "+r"(n)
                     :
                     : "cc");
}

__attribute__((noinline)) void hot(void)
{
    spin(200000);
#if HPM_DIFF_EXTRA > 0
    __asm__ volatile("mov %0, %%ecx\n\t"
                     "2: dec %%ecx\n\t"
                     "jnz 2b"
                     :
                     : "i"(HPM_DIFF_EXTRA)
                     : "ecx", "cc");
#endif
}

__attribute__((noinline)) void cold(void)
{
    spin(1000);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "clock") == 0) {
        /* a program that depends on the time: its counts differ run to run */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        spin(1000 + (unsigned long)ts.tv_nsec % 100000);
        return 0;
    }
    hot();
    cold();
    return 0;
}
