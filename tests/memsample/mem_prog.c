/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mem_prog.c - the memory samples' workloads (memsample_test.sh):
 *   mem_prog chase MIB STEPS   a pointer chase in a random cycle over a heap
 *                              buffer of MIB MiB (one 64-byte line a node),
 *                              STEPS loads that each depend on the last
 *   mem_prog stream REPS       REPS sums over a 16 KiB global array (L1-sized)
 * Each loop is a function of its own (chase_loop, stream_loop), so the
 * samples' symbols say which one took them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE 64

struct node {
    struct node *next;
    char pad[LINE - sizeof(struct node *)];
};

double stream_buf[2048]; /* 16 KiB: a global data object */

__attribute__((noinline)) static struct node *chase_loop(struct node *p, long steps)
{
    while (steps-- > 0)
        p = p->next;
    return p;
}

__attribute__((noinline)) static double stream_loop(long reps)
{
    double s = 0;
    long r;
    size_t i;
    for (r = 0; r < reps; r++)
        for (i = 0; i < sizeof stream_buf / sizeof stream_buf[0]; i++)
            s += stream_buf[i];
    return s;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "chase")) {
        size_t n = (size_t)atol(argv[2]) * 1024 * 1024 / LINE, i;
        long steps = atol(argv[3]);
        struct node *nodes = malloc(n * sizeof *nodes); /* NODES */
        size_t *perm = malloc(n * sizeof *perm);
        unsigned long long x = 88172645463325252ULL;
        if (!nodes || !perm)
            return 1;
        for (i = 0; i < n; i++)
            perm[i] = i;
        for (i = n - 1; i > 0; i--) {
            /* xorshift: the same cycle every run */
            size_t j, t;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            j = (size_t)(x % (i + 1));
            t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        for (i = 0; i < n; i++)
            nodes[perm[i]].next = &nodes[perm[(i + 1) % n]];
        printf("%p\n", (void *)chase_loop(&nodes[perm[0]], steps));
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "stream")) {
        size_t i;
        for (i = 0; i < sizeof stream_buf / sizeof stream_buf[0]; i++)
            stream_buf[i] = (double)i;
        printf("%g\n", stream_loop(atol(argv[2])));
        return 0;
    }
    fprintf(stderr, "usage: mem_prog chase MIB STEPS | stream REPS\n");
    return 2;
}
