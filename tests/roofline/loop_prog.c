/* SPDX-License-Identifier: BSD-3-Clause */
/* Loops with known bounds (tests/roofline): work(n, m) runs an outer loop
 * of n iterations around an inner one of m; a loop nest three deep (2 x 3
 * x 4) beside it. Bounds come from the command line so that the compiler
 * keeps the loops as they are written. */
#include <stdlib.h>

__attribute__((noinline)) static long work(long n, long m)
{
    long s = 0;
    for (long i = 0; i < n; i++)
        for (long j = 0; j < m; j++)
            s += i ^ j;
    return s;
}

__attribute__((noinline)) static double deep(long a, long b, long c)
{
    double x = 0;
    for (long i = 0; i < a; i++)
        for (long j = 0; j < b; j++)
            for (long k = 0; k < c; k++)
                x += (double)(i + j * k);
    return x;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 13, m = argc > 2 ? atol(argv[2]) : 7;
    volatile long sink = work(n, m) + (long)deep(n > 0 ? 2 : 0, 3, 4);
    (void)sink;
    return 0;
}
