/* SPDX-License-Identifier: BSD-3-Clause */
/* threads4.c - the coherence benchmark's program: four pthreads, each
 * updating its quarter of two arrays (2 MiB each) ROUNDS times and adding
 * into its own slot of a shared array of sums (one cache line for all
 * four: some false sharing, as OpenMP reductions by hand have). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 18)
static double *x, *y;
static double sums[4];
static long rounds;

static void *work(void *arg)
{
    long k = (long)arg, i, r;
    for (r = 0; r < rounds; r++)
        for (i = k * (N / 4); i < (k + 1) * (N / 4); i++) {
            y[i] = 0.5 * y[i] + x[i];
            sums[k] += y[i];
        }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t[4];
    long k;
    rounds = argc > 1 ? atol(argv[1]) : 100;
    x = calloc(N, sizeof *x);
    y = calloc(N, sizeof *y);
    if (!x || !y)
        return 1;
    for (k = 0; k < N; k++)
        x[k] = (double)k;
    for (k = 0; k < 4; k++)
        pthread_create(&t[k], NULL, work, (void *)k);
    for (k = 0; k < 4; k++)
        pthread_join(t[k], NULL);
    printf("%g\n", sums[0] + sums[1] + sums[2] + sums[3]);
    return 0;
}
