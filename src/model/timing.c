/* SPDX-License-Identifier: BSD-3-Clause */
/* timing.c - the additive timing model (README.md, "Timing"). */
#include "model_internal.h"

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_add_overflow(a, b, &r) ? ~(uint64_t)0 : r;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? ~(uint64_t)0 : r;
}

/* sum of instr[c] * cpi_milli[c] / 1000, rounded up, saturated */
static uint64_t timing_base(const struct hpm_timing_params *p, const struct hpm_timing_counts *c)
{
    uint64_t whole = 0, frac = 0, total = 0, big = 0; /* base = whole + frac / 1000 */
    unsigned i, over = 0;
    /* the common case, every n * cpi and their sum within 64 bits: the sum
     * divided once (whole + ceil(frac / 1000) below is the same value; this
     * runs at every read of a modeled count) */
    for (i = 0; i < HPM_IC_COUNT; i++) {
        uint64_t n = c->instr[i];
        big |= n >> 32;
        over |= (unsigned)__builtin_add_overflow(total, n * p->cpi_milli[i], &total);
    }
    if ((big | over) == 0)
        return total / 1000u + (total % 1000u != 0);
    for (i = 0; i < HPM_IC_COUNT; i++) {
        /* split n so that n * cpi cannot overflow before the division */
        uint64_t n = c->instr[i], cpi = p->cpi_milli[i];
        whole = sat_add(whole, sat_mul(n / 1000u, cpi));
        frac += (n % 1000u) * cpi; /* < 1000 * 2^32 per class */
    }
    return sat_add(whole, (frac + 999u) / 1000u);
}

void hpm_timing_eval(const struct hpm_timing_params *p, const struct hpm_timing_counts *c,
                     struct hpm_timing_result *r)
{
    r->base = timing_base(p, c);
    r->memory_stall = sat_add(sat_add(sat_mul(c->served_l2, p->l2_latency),
                                      sat_mul(c->served_l3, p->l3_latency)),
                              sat_mul(c->served_mem, p->memory_latency));
    r->tlb_stall = sat_mul(c->tlb_misses, p->tlb_miss);
    r->branch_stall = sat_mul(c->mispredicts, p->mispredict);
    r->cycles = sat_add(sat_add(r->base, r->memory_stall), sat_add(r->tlb_stall, r->branch_stall));
    r->prefetch_pending = sat_mul(c->valid_prefetches, p->prefetch_latency);
    if (r->prefetch_pending > r->cycles)
        r->prefetch_pending = r->cycles;
}

void hpm_timing_counts_add_hier(struct hpm_timing_counts *c, const struct hpm_hier_core_stats *s)
{
    unsigned k;
    for (k = 0; k < HPM_ACCESS_KINDS; k++) {
        c->served_l2 += s->served[k][HPM_SERVED_L2];
        c->served_l3 += s->served[k][HPM_SERVED_L3];
        c->served_mem += s->served[k][HPM_SERVED_MEM];
    }
}
