/* SPDX-License-Identifier: BSD-3-Clause */
/* omp_reduce.c - the coherence benchmark's OpenMP loop: a dot product of
 * two arrays (2 MiB each) ROUNDS times in four threads, reduction(+) (each
 * thread sums into its own partial, combined at the end of each loop: the
 * threads share no written line but the runtime's own). */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 18)

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 20, r, i;
    double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), total = 0;
    if (!x || !y)
        return 1;
    for (i = 0; i < N; i++) {
        x[i] = (double)i;
        y[i] = 1.0 / (double)(i + 1);
    }
    for (r = 0; r < rounds; r++) {
        double sum = 0;
#pragma omp parallel for num_threads(4) reduction(+ : sum)
        for (i = 0; i < N; i++)
            sum += x[i] * y[i];
        total += sum;
    }
    printf("%.1f\n", total);
    free(x);
    free(y);
    return 0;
}
