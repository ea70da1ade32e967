/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * model_bench.c - per-access cost of the L1D model (src/model) on a random
 * and a sequential stream, against a transcription of cachegrind's cg_sim.c
 * set lookup (the peer). Prints ns/access lines and
 * "ratio model_l1d_vs_cachegrind VALUE" (ours over the peer, random stream).
 * Build: cc -O2 -Isrc/model bench/model_bench.c src/model/cache.c (or link hpm_model)
 */
#define _POSIX_C_SOURCE 200809L
#include "model.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N (1u << 20)
#define REPS 20

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* cachegrind's algorithm, 64-byte lines, for the comparison */
struct cg {
    uint64_t *tags;
    uint32_t assoc, sets_min_1, bits;
};
static int cg_ref(struct cg *c, uint64_t a)
{
    uint64_t tag = a >> c->bits, *set = &c->tags[(tag & c->sets_min_1) * c->assoc];
    uint32_t i, j;
    if (tag == set[0])
        return 0;
    for (i = 1; i < c->assoc; i++)
        if (tag == set[i]) {
            for (j = i; j > 0; j--)
                set[j] = set[j - 1];
            set[0] = tag;
            return 0;
        }
    for (j = c->assoc - 1; j > 0; j--)
        set[j] = set[j - 1];
    set[0] = tag;
    return 1;
}

static double run_model(struct hpm_cache *c, const uint64_t *addr, uint64_t *misses)
{
    double best = 1e30;
    uint64_t m = 0;
    for (int r = 0; r < REPS; r++) {
        double t0 = now();
        for (uint32_t i = 0; i < N; i++)
            m += (uint64_t)hpm_cache_access(c, addr[i], 8, (int)(i & 1));
        double dt = (now() - t0) / N;
        if (dt < best)
            best = dt;
    }
    *misses = m;
    return best;
}

static double run_cg(struct cg *c, const uint64_t *addr, uint64_t *misses)
{
    double best = 1e30;
    uint64_t m = 0;
    for (int r = 0; r < REPS; r++) {
        double t0 = now();
        for (uint32_t i = 0; i < N; i++)
            m += (uint64_t)cg_ref(c, addr[i]);
        double dt = (now() - t0) / N;
        if (dt < best)
            best = dt;
    }
    *misses = m;
    return best;
}

static struct hpm_cache *make(uint32_t assoc, uint32_t line, uint32_t policy)
{
    struct hpm_cache_params p = {32768, assoc, line, policy, 0, 0};
    struct hpm_cache *c;
    size_t n = hpm_cache_storage_size(&p);
    if (hpm_cache_init(&c, &p, aligned_alloc(8, (n + 7) & ~(size_t)7), n))
        exit(1);
    return c;
}

int main(void)
{
    uint64_t *rnd = malloc(N * sizeof *rnd), *seq = malloc(N * sizeof *seq), x = 1, m;
    static struct cg cg;
    volatile uint32_t geometry[3] = {8, 63, 6}; /* keep the peer from constant-folding */
    double r_model, r_cg, s_model;
    for (uint32_t i = 0; i < N; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        rnd[i] = (x % (64u << 10)) & ~(uint64_t)7; /* 64 KB footprint: about half hit */
        seq[i] = 0x100000 + 8u * i;
    }
    r_model = run_model(make(8, 64, HPM_REPL_LRU), rnd, &m);
    printf("l1d 32K/8-way/64B LRU random 64K footprint: %.2f ns/access (%llu misses)\n",
           r_model, (unsigned long long)m);
    s_model = run_model(make(8, 64, HPM_REPL_LRU), seq, &m);
    printf("l1d 32K/8-way/64B LRU sequential 8 B stride: %.2f ns/access (%llu misses)\n",
           s_model, (unsigned long long)m);
    printf("l1d 32K/64-way/32B FIFO (BG/P) random: %.2f ns/access\n",
           run_model(make(64, 32, HPM_REPL_FIFO), rnd, &m));
    printf("l1d 32K/64-way/32B FIFO (BG/P) sequential: %.2f ns/access\n",
           run_model(make(64, 32, HPM_REPL_FIFO), seq, &m));
    printf("l1d 32K/64-way/32B LRU random: %.2f ns/access\n",
           run_model(make(64, 32, HPM_REPL_LRU), rnd, &m));
    cg.tags = calloc(512, 8);
    cg.assoc = geometry[0];
    cg.sets_min_1 = geometry[1];
    cg.bits = geometry[2];
    r_cg = run_cg(&cg, rnd, &m);
    printf("cachegrind-style 32K/8-way/64B random: %.2f ns/access\n", r_cg);
    printf("ratio model_l1d_vs_cachegrind %.3f\n", r_model / r_cg);
    return 0;
}
