/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bpred.c - gshare direction predictor, a set-associative BTB for indirect
 * targets, and a return-address stack.
 *
 * gshare: index = (h(pc) XOR history) mod table_entries with
 * h(pc) = pc XOR (pc >> 2), so that PowerPC's word-aligned pcs and x86's
 * byte-aligned ones both spread over the table; 2-bit saturating counters
 * start weakly taken (2); history is the last history_bits outcomes, newest in
 * bit 0. The BTB is LRU, tagged with the full pc. The RAS is circular: a push
 * onto a full stack overwrites the oldest entry (counted as an overflow), a
 * return with an empty stack is a mispredict.
 */
#include "model_internal.h"

struct hpm_bpred {
    struct hpm_bpred_params p;
    uint32_t history, history_mask, table_mask;
    uint32_t btb_ways;
    uint64_t btb_set_mask;
    uint32_t ras_top, ras_count; /* ras_top: next slot to push */
    uint8_t *ctr;
    uint64_t *btb_pc, *btb_target, *ras;
    struct hpm_bpred_stats st;
};

int hpm_bpred_params_check(const struct hpm_bpred_params *p)
{
    uint32_t ways;
    if (!p)
        return HPM_MODEL_ENULL;
    if (p->history_bits > 32 || !hpm__is_pow2_64(p->table_entries) ||
        p->table_entries > (1u << 28))
        return HPM_MODEL_EPARAM;
    if (p->btb_entries == 0 || p->btb_entries > (1u << 24))
        return HPM_MODEL_EPARAM;
    ways = p->btb_assoc ? p->btb_assoc : p->btb_entries;
    if (p->btb_entries % ways != 0 || !hpm__is_pow2_64(p->btb_entries / ways))
        return HPM_MODEL_EPARAM;
    if (p->ras_depth == 0 || p->ras_depth > (1u << 16))
        return HPM_MODEL_EPARAM;
    return HPM_MODEL_OK;
}

size_t hpm_bpred_storage_size(const struct hpm_bpred_params *p)
{
    if (hpm_bpred_params_check(p))
        return 0;
    return HPM__ALIGN8(sizeof(struct hpm_bpred)) + 16u * (size_t)p->btb_entries +
           8u * (size_t)p->ras_depth + HPM__ALIGN8(p->table_entries);
}

int hpm_bpred_init(struct hpm_bpred **out, const struct hpm_bpred_params *p, void *storage,
                   size_t size)
{
    struct hpm_bpred *b;
    char *at;
    uint32_t i;
    if (!out || !p || !storage)
        return HPM_MODEL_ENULL;
    if (((uintptr_t)storage & 7u) != 0)
        return HPM_MODEL_EALIGN;
    if (hpm_bpred_params_check(p))
        return HPM_MODEL_EPARAM;
    if (size < hpm_bpred_storage_size(p))
        return HPM_MODEL_ENOMEM;
    b = (struct hpm_bpred *)storage;
    HPM__COPY(&b->p, p);
    b->history = 0;
    b->history_mask = p->history_bits >= 32 ? 0xffffffffu : (1u << p->history_bits) - 1u;
    b->table_mask = p->table_entries - 1u;
    b->btb_ways = p->btb_assoc ? p->btb_assoc : p->btb_entries;
    b->btb_set_mask = p->btb_entries / b->btb_ways - 1u;
    b->ras_top = b->ras_count = 0;
    hpm__zero(&b->st, sizeof b->st);
    at = (char *)storage + HPM__ALIGN8(sizeof(struct hpm_bpred));
    b->btb_pc = (uint64_t *)at;
    b->btb_target = b->btb_pc + p->btb_entries;
    b->ras = b->btb_target + p->btb_entries;
    b->ctr = (uint8_t *)(b->ras + p->ras_depth);
    for (i = 0; i < p->btb_entries; i++) {
        b->btb_pc[i] = ~(uint64_t)0;
        b->btb_target[i] = 0;
    }
    for (i = 0; i < p->ras_depth; i++)
        b->ras[i] = 0;
    for (i = 0; i < p->table_entries; i++)
        b->ctr[i] = 2;
    *out = b;
    return HPM_MODEL_OK;
}

static uint64_t pc_hash(uint64_t pc) { return pc ^ (pc >> 2); }

/* A 2-bit counter's next value, by outcome and value: a table rather than
 * branches, which follow the program's own branches and mispredict on the
 * host as often as the model does (the vpmu tool calls this for every
 * conditional branch). */
static const uint8_t ctr_next[2][4] = {{0, 0, 1, 2}, {1, 2, 3, 3}};

int hpm_bpred_cond(struct hpm_bpred *b, uint64_t pc, int taken)
{
    uint32_t h = b->history; /* once: the counter's store may alias it */
    uint32_t i = (uint32_t)(pc_hash(pc) ^ h) & b->table_mask;
    uint8_t c = b->ctr[i];
    int t = taken != 0, wrong = (c >= 2) != t;
    b->ctr[i] = ctr_next[t][c & 3];
    b->history = ((h << 1) | (uint32_t)t) & b->history_mask;
    b->st.cond++;
    b->st.cond_mispredicts += (uint64_t)wrong;
    return wrong;
}

int hpm_bpred_indirect(struct hpm_bpred *b, uint64_t pc, uint64_t target)
{
    uint32_t n = b->btb_ways, i, j;
    size_t base = (size_t)(pc_hash(pc) & b->btb_set_mask) * n;
    uint64_t *tag = b->btb_pc + base, *tgt = b->btb_target + base;
    int wrong = 1;
    b->st.indirect++;
    for (i = 0; i < n; i++)
        if (tag[i] == pc)
            break;
    if (i < n) {
        wrong = tgt[i] != target;
    } else {
        i = n - 1; /* replace the LRU way */
    }
    for (j = i; j > 0; j--) {
        tag[j] = tag[j - 1];
        tgt[j] = tgt[j - 1];
    }
    tag[0] = pc;
    tgt[0] = target;
    b->st.indirect_mispredicts += (uint64_t)wrong;
    return wrong;
}

void hpm_bpred_call(struct hpm_bpred *b, uint64_t return_addr)
{
    b->st.calls++;
    b->ras[b->ras_top] = return_addr;
    b->ras_top = b->ras_top + 1 == b->p.ras_depth ? 0 : b->ras_top + 1;
    if (b->ras_count == b->p.ras_depth)
        b->st.ras_overflows++;
    else
        b->ras_count++;
}

int hpm_bpred_return(struct hpm_bpred *b, uint64_t target)
{
    int wrong = 1;
    b->st.returns++;
    if (b->ras_count) {
        b->ras_top = b->ras_top == 0 ? b->p.ras_depth - 1 : b->ras_top - 1;
        b->ras_count--;
        wrong = b->ras[b->ras_top] != target;
    }
    b->st.return_mispredicts += (uint64_t)wrong;
    return wrong;
}

void hpm_bpred_stats(const struct hpm_bpred *b, struct hpm_bpred_stats *s) { HPM__STATS_COPY(s, &b->st); }
