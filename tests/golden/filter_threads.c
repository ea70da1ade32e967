/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * filter_threads.c N [bound] - two free-running threads, each incrementing
 * its own counter N times, the two counters adjacent in one cache line and
 * nothing else touched in the loop: a turn that passes to the other core
 * finds its counter's line still in the sure-hit filter, which the other
 * core's stores took from its L1D. For filter_equiv.sh: the filter must
 * forget it. With "bound" the loop reads its bound from a global in another
 * line at every increment (as false_sharing.c's loop does), so that the
 * filter's two lines (the contended counter and the bound's line) take
 * turns on one page.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    _Alignas(128) volatile long count[2]; /* adjacent: one line */
} line;

static long n_iter;
static volatile long bound; /* read at every increment with "bound" */

static void *worker(void *arg)
{
    volatile long *c = &line.count[(long)arg];
    long i, n = n_iter; /* a local: the loop touches the counter alone */
    if (bound) {
        for (i = 0; i < bound; i++)
            *c += 1;
        return NULL;
    }
    for (i = 0; i < n; i++)
        *c += 1;
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t[2];
    long k;
    if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "bound") != 0) ||
        (n_iter = atol(argv[1])) <= 0) {
        fprintf(stderr, "usage: %s N [bound]\n", argv[0]);
        return 2;
    }
    if (argc == 3)
        bound = n_iter;
    for (k = 0; k < 2; k++)
        if (pthread_create(&t[k], NULL, worker, (void *)k) != 0)
            return 1;
    for (k = 0; k < 2; k++)
        pthread_join(t[k], NULL);
    printf("%ld %ld\n", line.count[0], line.count[1]);
    return line.count[0] == n_iter && line.count[1] == n_iter ? 0 : 1;
}
