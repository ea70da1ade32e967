/* SPDX-License-Identifier: BSD-3-Clause */
/* The encoder (src/encode): on small random units the solver places as
 * many events as brute force over every configuration does, and its
 * assignment is a valid one; the machine's wiring (BG/P's UPC and smaller
 * units with shared modes); passes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpm_check.h"

#include "encode.h"


struct table {
    unsigned n_counters, group, n_modes, n_events;
    uint64_t can[8][4];
};

static uint64_t can_table(const struct hpm_cu *u, unsigned c, unsigned m)
{
    const struct table *t = u->ctx;
    return t->can[c][m];
}

/* The most events any configuration places: every mode per group, every
 * assignment of each event to a counter or to none. */
static unsigned brute(const struct table *t)
{
    unsigned groups = (t->n_counters + t->group - 1) / t->group, best = 0;
    unsigned long mv, n_mv = 1, a, n_a = 1;
    unsigned g, i;
    for (g = 0; g < groups; g++)
        n_mv *= t->n_modes;
    for (i = 0; i < t->n_events; i++)
        n_a *= t->n_counters + 1;
    for (mv = 0; mv < n_mv; mv++) {
        unsigned mode[8];
        unsigned long x = mv;
        for (g = 0; g < groups; g++) {
            mode[g] = (unsigned)(x % t->n_modes);
            x /= t->n_modes;
        }
        for (a = 0; a < n_a; a++) {
            unsigned used = 0, placed = 0, ok = 1;
            unsigned long y = a;
            for (i = 0; i < t->n_events && ok; i++) {
                unsigned c = (unsigned)(y % (t->n_counters + 1));
                y /= t->n_counters + 1;
                if (c == t->n_counters)
                    continue;
                if ((used >> c & 1) || !(t->can[c][mode[c / t->group]] >> i & 1))
                    ok = 0;
                used |= 1u << c;
                placed++;
            }
            if (ok && placed > best)
                best = placed;
        }
    }
    return best;
}

static void property(void)
{
    unsigned seed = 12345, trial, agree = 0;
    for (trial = 0; trial < 400; trial++) {
        struct table t;
        struct hpm_cu u;
        struct hpm_encoding e;
        unsigned c, m, i, want, used = 0;
        memset(&t, 0, sizeof t);
        seed = seed * 1103515245u + 12345u;
        t.n_counters = 1 + (seed >> 16) % 5;
        seed = seed * 1103515245u + 12345u;
        t.group = 1 + (seed >> 16) % 3;
        seed = seed * 1103515245u + 12345u;
        t.n_modes = 1 + (seed >> 16) % 3;
        seed = seed * 1103515245u + 12345u;
        t.n_events = 1 + (seed >> 16) % 5;
        for (c = 0; c < t.n_counters; c++)
            for (m = 0; m < t.n_modes; m++) {
                seed = seed * 1103515245u + 12345u;
                t.can[c][m] = (seed >> 8) & ((1u << t.n_events) - 1) & (seed >> 20);
            }
        u.n_counters = t.n_counters;
        u.group_size = t.group;
        u.n_modes = t.n_modes;
        u.can = can_table;
        u.ctx = &t;
        CHECKF(hpm_encode(&u, t.n_events, &e) == 0, "trial %u: encode failed", trial);
        want = brute(&t);
        CHECKF(e.placed == want, "trial %u: solver placed %u, brute force %u", trial, e.placed,
              want);
        agree += e.placed == want;
        CHECKF(e.complete == (want == t.n_events), "trial %u: complete", trial);
        /* the assignment is one: distinct counters, in their group's mode */
        for (i = 0; i < t.n_events; i++) {
            int k = e.counter[i];
            if (k < 0) {
                CHECKF(hpm_encode_blockers(&u, &e, i) != 0 || !e.complete,
                      "trial %u: event %u left out with no reason", trial, i);
                continue;
            }
            CHECKF(!(used >> k & 1), "trial %u: counter %d twice", trial, k);
            used |= 1u << k;
            CHECKF(e.mode[(unsigned)k / t.group] >= 0 &&
                      (t.can[k][e.mode[(unsigned)k / t.group]] >> i & 1),
                  "trial %u: event %u on counter %d it cannot count", trial, i, k);
        }
    }
    printf("ok property: the solver agrees with brute force on %u of 400 random units\n", agree);
}

static void machine_wiring(void)
{
    struct hpm_cu u;
    struct hpm_encoding e;
    /* BG/P's UPC: 256 counters, code c on counter c mod 256 */
    unsigned codes[3] = {0 /* PU0_INSTRUCTIONS */, 256 /* PU4_FP_FMA */, 992 /* NODE_CYCLES */};
    struct hpm_cu_codes mc = {1, 256, 1, codes, 3};
    int pass_of[3];
    hpm_cu_from_codes(&u, &mc);
    CHECKF(hpm_encode(&u, 3, &e) == 0 && e.placed == 2 && !e.complete, "one UPC: 2 of 3 placed");
    CHECKF(e.counter[2] == 224, "NODE_CYCLES on counter 224 (got %d)", e.counter[2]);
    CHECKF((e.counter[0] < 0) != (e.counter[1] < 0), "0 and 256 share counter 0");
    CHECKF(hpm_encode_blockers(&u, &e, e.counter[0] < 0 ? 0 : 1) ==
              (e.counter[0] < 0 ? 2u : 1u),
          "the event left out names the one on its counter");
    CHECKF(hpm_cu_decode(&mc, 224, 3) == 992, "decode counter 224 mode 3");
    mc.units = 2;
    hpm_cu_from_codes(&u, &mc);
    CHECKF(hpm_encode(&u, 3, &e) == 0 && e.complete, "two UPCs: all placed");
    CHECKF(e.counter[0] >= 0 && e.counter[1] >= 0 && e.counter[0] % 256 == 0 &&
              e.counter[1] % 256 == 0 && e.counter[0] != e.counter[1],
          "0 and 256 on counter 0 of each unit");
    /* a small unit: 8 counters in one group (one mode for all) */
    {
        unsigned small[3] = {0, 9, 16}; /* counter 0 block 0, counter 1 block 1, counter 0 block 2 */
        struct hpm_cu_codes sm = {1, 8, 8, small, 3};
        hpm_cu_from_codes(&u, &sm);
        CHECKF(hpm_encode(&u, 3, &e) == 0 && e.placed == 1, "one group, three blocks: 1 placed");
        sm.group = 1;
        hpm_cu_from_codes(&u, &sm);
        CHECKF(hpm_encode(&u, 3, &e) == 0 && e.placed == 2, "counters on their own: 2 placed");
        sm.units = 3;
        sm.group = 8;
        CHECKF(hpm_encode_passes(&sm, NULL, 0, pass_of) == 1, "three units: one pass");
        sm.units = 1;
        CHECKF(hpm_encode_passes(&sm, NULL, 0, pass_of) == 3, "one unit of one group: three passes");
        CHECKF(pass_of[0] != pass_of[1] && pass_of[1] != pass_of[2] && pass_of[0] != pass_of[2],
              "each in its own pass");
    }
    /* passes with a correlate: BG/P's unit, 0 256 512 768 all on counter 0 */
    {
        unsigned four[4] = {0, 256, 512, 768};
        struct hpm_cu_codes fm = {1, 256, 1, four, 4};
        int p4[4];
        unsigned c1 = 1, c0 = 0;
        CHECKF(hpm_encode_passes(&fm, &c1, 1, p4) == 4, "four events on one counter: four passes");
        CHECKF(hpm_encode_passes(&fm, &c0, 1, p4) == -1,
              "a correlate on the same counter as the others: no pass can hold both");
    }
    printf("ok machine wiring, decoding, passes\n");
}

int main(void)
{
    property();
    machine_wiring();
    return failures ? 1 : 0;
}
