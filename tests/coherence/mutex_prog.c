/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mutex_prog K N - K threads each add 1 to one counter N times under one
 * pthread mutex: a lock contended by several waiters at once, whose
 * hand-overs go through futex waits and wakes. Prints the counter (K * N).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 64

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter, n_iter;

static void *worker(void *arg)
{
    long i;
    (void)arg;
    for (i = 0; i < n_iter; i++) {
        pthread_mutex_lock(&lock);
        counter++;
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t[MAX_THREADS];
    long k, r, threads = argc == 3 || argc == 4 ? atol(argv[1]) : 0;
    /* ROUNDS: K threads created and joined ROUNDS times, so that the
     * threads of later rounds take the thread slots of earlier ones */
    long rounds = argc == 4 ? atol(argv[3]) : 1;
    if (threads < 1 || threads > MAX_THREADS || rounds < 1) {
        fprintf(stderr, "usage: %s K N [ROUNDS] (1 <= K <= %d)\n", argv[0], MAX_THREADS);
        return 2;
    }
    n_iter = atol(argv[2]);
    for (r = 0; r < rounds; r++) {
        for (k = 0; k < threads; k++)
            if (pthread_create(&t[k], NULL, worker, NULL) != 0)
                return 1;
        for (k = 0; k < threads; k++)
            pthread_join(t[k], NULL);
    }
    printf("%ld\n", counter);
    return counter == rounds * threads * n_iter ? 0 : 1;
}
