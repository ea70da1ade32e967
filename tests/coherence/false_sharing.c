/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * false_sharing.c - two threads increment counters N times each:
 *   false   adjacent counters in one cache line (false sharing)
 *   padded  counters 256 bytes apart (no sharing)
 *   true    one counter for both, under a lock-free atomic add (true sharing)
 *   heap    adjacent counters in one line of a heap block, freed before
 *           the program ends (hpm profile's c2c view names it by its
 *           allocation site)
 * The threads take turns through two pipes (a byte each way per
 * increment): the virtual PMU, which runs one thread at a time (docs/vpmu.md,
 * "Coherence"), then alternates between them at every increment, whatever
 * the host's scheduler does, and the hand-off itself touches no shared
 * memory of the program (the kernel moves the bytes). With a third argument
 * `free` they run without taking turns, as threads on a node's cores do
 * (what hpm's --interleave is for).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
    _Alignas(256) volatile long a;
    volatile long b;
    char pad[256];
    volatile long c;
} shared;

static long n_iter;
static int free_running;
static volatile long *slot[2];
static int turn[2][2]; /* turn[k]: the pipe on which thread k waits */

static void *worker(void *arg)
{
    long k = (long)arg, i;
    volatile long *p = slot[k];
    char b = 0;
    if (free_running) {
        for (i = 0; i < n_iter; i++) {
            if (slot[0] == slot[1])
                __atomic_fetch_add(p, 1, __ATOMIC_RELAXED);
            else
                *p += 1;
        }
        return NULL;
    }
    for (i = 0; i < n_iter; i++) {
        if ((k || i) && read(turn[k][0], &b, 1) != 1)
            abort();
        if (slot[0] == slot[1])
            __atomic_fetch_add(p, 1, __ATOMIC_RELAXED);
        else
            *p += 1;
        if (write(turn[1 - k][1], &b, 1) != 1)
            abort();
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t[2];
    long k, *block = NULL;
    if (argc != 3 && !(argc == 4 && !strcmp(argv[3], "free"))) {
        fprintf(stderr, "usage: %s false|padded|true|heap N [free]\n", argv[0]);
        return 2;
    }
    free_running = argc == 4;
    n_iter = atol(argv[2]);
    slot[0] = &shared.a;
    slot[1] = !strcmp(argv[1], "false")    ? &shared.b
              : !strcmp(argv[1], "padded") ? &shared.c
              : !strcmp(argv[1], "true")   ? &shared.a
                                           : NULL;
    if (!strcmp(argv[1], "heap")) {
        block = aligned_alloc(256, 256);
        if (!block)
            return 2;
        memset(block, 0, 256);
        slot[0] = &block[0];
        slot[1] = &block[1];
    }
    if (!slot[1] || pipe(turn[0]) || pipe(turn[1]))
        return 2;
    for (k = 0; k < 2; k++)
        pthread_create(&t[k], NULL, worker, (void *)k);
    for (k = 0; k < 2; k++)
        pthread_join(t[k], NULL);
    printf("%ld %ld %ld\n", *slot[0], *slot[1], shared.c);
    free(block);
    return 0;
}
