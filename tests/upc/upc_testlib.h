/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the UPC tests and its fuzz target: a reference ("ideal") 64-bit
 * counter bank, the front-packed expansion of a batch into cycles, a
 * notification recorder, and a whole-unit comparison through the registers. */
#ifndef UPC_TESTLIB_H
#define UPC_TESTLIB_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpm/upc.h"

static int tl_failures;
#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            tl_failures++;                                                                 \
            if (tl_failures < 20) fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
        }                                                                                  \
    } while (0)
#define CHECK_EQ_U64(a, b)                                                                 \
    do {                                                                                   \
        uint64_t a_ = (a), b_ = (b);                                                       \
        if (a_ != b_) {                                                                    \
            tl_failures++;                                                                 \
            if (tl_failures < 20)                                                          \
                fprintf(stderr, "%s:%d: %s == %llu, expected %s == %llu\n", __FILE__,      \
                        __LINE__, #a, (unsigned long long)a_, #b, (unsigned long long)b_); \
        }                                                                                  \
    } while (0)

static uint64_t tl_rng_state = 0x9e3779b97f4a7c15ull;
static inline uint64_t tl_rand(void)
{
    uint64_t x = tl_rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    tl_rng_state = x;
    return x * 0x2545f4914f6cdd1dull;
}
static inline uint32_t tl_below(uint32_t n)
{
    return n ? (uint32_t)(tl_rand() % n) : 0;
}

/* Reference counters: plain 64-bit integers, fed the same cycles. */
struct tl_ideal {
    uint32_t n;
    uint64_t *value;
    uint8_t *prev;
};

static inline void tl_ideal_init(struct tl_ideal *id, uint32_t n)
{
    id->n = n;
    id->value = calloc(n, sizeof *id->value);
    id->prev = calloc(n, 1);
}
static inline void tl_ideal_free(struct tl_ideal *id)
{
    free(id->value);
    free(id->prev);
}

/* Decode a counter's selection from the unit's own configuration registers. */
static inline void tl_counter_config(struct hpm_upc *u, uint32_t c, uint32_t *event, int *mode)
{
    const struct hpm_upc_params *p = hpm_upc_params_of(u);
    struct hpm_upc_layout l;
    hpm_upc_layout_of(u, &l);
    uint64_t reg = 0;
    hpm_upc_mmio_read(u, l.config + 8u * (c / p->group_size), &reg);
    uint32_t f = (uint32_t)(reg >> ((c % p->group_size) * (64 / p->group_size))) & 0x1f;
    hpm_upc_input_event(u, c, f & 3u, event);
    *mode = (int)((f >> 2) & 3u);
}

static inline void tl_ideal_cycle(struct tl_ideal *id, struct hpm_upc *u, const uint64_t *sig)
{
    for (uint32_t c = 0; c < id->n; c++) {
        uint32_t e;
        int mode;
        tl_counter_config(u, c, &e, &mode);
        uint8_t s = (uint8_t)((sig[e / 64] >> (e % 64)) & 1u), was = id->prev[c];
        id->prev[c] = s;
        if (!hpm_upc_running(u)) continue;
        int inc = mode == 0 ? s : mode == 1 ? !s : mode == 2 ? (s && !was) : (!s && was);
        id->value[c] += (uint64_t)inc;
    }
}

/* Cycle j of a front-packed batch: input e is high iff j < counts[e]. */
static inline void tl_expand(uint64_t *sig, uint32_t n_inputs, const uint32_t *counts, uint32_t j)
{
    memset(sig, 0, ((n_inputs + 63) / 64) * 8);
    for (uint32_t e = 0; e < n_inputs; e++)
        if (j < counts[e]) sig[e / 64] |= 1ull << (e % 64);
}

/* Cycle j of a batch given as pulses (hpm_upc_advance_signals), written
 * the plain way, pulse after pulse: input e is high in j when j falls in
 * one of its pulses[e] pulses, the counts[e] high cycles shared out as
 * evenly as they go (the longer ones first), one low cycle after each. */
static inline void tl_expand_pulses(uint64_t *sig, uint32_t n_inputs, const uint32_t *counts,
                                    const uint32_t *pulses, uint32_t j)
{
    memset(sig, 0, ((n_inputs + 63) / 64) * 8);
    for (uint32_t e = 0; e < n_inputs; e++) {
        uint32_t k = counts[e], p = pulses[e], pos = 0;
        for (uint32_t i = 0; k && i < p && pos <= j; i++) {
            uint32_t len = k / p + (i < k % p);
            if (j < pos + len) {
                sig[e / 64] |= 1ull << (e % 64);
                break;
            }
            pos += len + 1;
        }
    }
}

/* Random pulses for counts[e] high cycles in a batch of len cycles: as many
 * as fit, one, or anything between. */
static inline uint32_t tl_pulses_fit(uint32_t k, uint32_t len)
{
    uint32_t most = len - k + 1;
    return k == 0 ? 0 : k < most ? k : most;
}

/* Notification recorder. */
struct tl_log {
    struct hpm_upc_notify *v;
    size_t n, cap;
};
static inline void tl_log_fn(void *ctx, const struct hpm_upc_notify *n)
{
    struct tl_log *log = ctx;
    if (log->n == log->cap) {
        log->cap = log->cap ? 2 * log->cap : 64;
        log->v = realloc(log->v, log->cap * sizeof *log->v);
    }
    log->v[log->n++] = *n;
}

/* 1 if every mapped register of the two units reads the same (same rc too). */
static inline int tl_units_equal(struct hpm_upc *a, struct hpm_upc *b)
{
    struct hpm_upc_layout l;
    hpm_upc_layout_of(a, &l);
    for (uint64_t off = 0; off < l.size; off += 8) {
        uint64_t va = 0, vb = 0;
        int ra = hpm_upc_mmio_read(a, off, &va), rb = hpm_upc_mmio_read(b, off, &vb);
        if (ra != rb || (ra == HPM_UPC_OK && va != vb)) {
            fprintf(stderr, "units differ at 0x%llx: rc %d/%d value %llu/%llu\n",
                    (unsigned long long)off, ra, rb, (unsigned long long)va,
                    (unsigned long long)vb);
            return 0;
        }
    }
    for (uint32_t c = 0; c < hpm_upc_params_of(a)->n_counters; c++)
        if (hpm_upc_lost_carries(a, c) != hpm_upc_lost_carries(b, c)) return 0;
    return 1;
}

#endif
