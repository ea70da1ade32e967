/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory-mapped registers of the UPC (seed 000 Figure 5, plus hpm's status
 * registers; docs/upc.md has the map). Every failing access changes nothing.
 */
#include "upc_internal.h"

enum bitmap_kind { BM_IRQ, BM_ARMED, BM_PARITY, BM_LOST, BM_CARRY, BM_COUNT };

/* Which bitmap, and which 64-bit word of it, an offset names; -1 if none. */
static int bitmap_at(const struct hpm_upc *u, uint64_t off, uint32_t *word)
{
    const uint32_t base[BM_COUNT] = {u->map.irq_status, u->map.armed, u->map.parity_error,
                                     u->map.lost_carry, u->map.carry};
    for (int k = 0; k < BM_COUNT; k++) {
        if (off >= base[k] && off < base[k] + 8u * u->map.bitmap_words) {
            *word = (uint32_t)((off - base[k]) / 8);
            return k;
        }
    }
    return -1;
}

static uint8_t *bitmap_bytes(struct hpm_upc *u, int kind)
{
    switch (kind) {
    case BM_IRQ: return u->irq;
    case BM_ARMED: return u->armed;
    case BM_PARITY: return u->perr;
    default: return 0; /* lost carries and carry latches are derived, handled apart */
    }
}

static uint64_t bitmap_read(struct hpm_upc *u, int kind, uint32_t word)
{
    uint64_t v = 0;
    uint8_t *bytes = bitmap_bytes(u, kind);
    for (uint32_t b = 0; b < 64; b++) {
        uint32_t c = word * 64 + b;
        if (c >= u->p.n_counters) break;
        uint32_t set = kind == BM_LOST    ? (u->lost[c] != 0)
                       : kind == BM_CARRY ? (uint32_t)hpm_upc_carry_pending(u, c)
                                          : bytes[c];
        v |= (uint64_t)(set ? 1u : 0u) << b;
    }
    return v;
}

/* Bits naming counters beyond n_counters are reserved. */
static int bitmap_reserved(const struct hpm_upc *u, uint32_t word, uint64_t v)
{
    uint32_t first = word * 64;
    if (first + 64 <= u->p.n_counters) return 0;
    uint32_t valid = u->p.n_counters - first;
    return (v >> valid) != 0;
}

static int bitmap_write(struct hpm_upc *u, int kind, uint32_t word, uint64_t v)
{
    if (kind == BM_CARRY) return HPM_UPC_EREADONLY;
    if (bitmap_reserved(u, word, v)) return HPM_UPC_ERESERVED;
    for (uint32_t b = 0; b < 64; b++) {
        uint32_t c = word * 64 + b;
        if (c >= u->p.n_counters) break;
        uint32_t bit = (uint32_t)(v >> b) & 1u;
        switch (kind) {
        case BM_ARMED: u->armed[c] = (uint8_t)bit; break; /* read/write */
        case BM_IRQ: if (bit) u->irq[c] = 0; break;       /* write 1 to clear */
        case BM_PARITY: if (bit) u->perr[c] = 0; break;
        case BM_LOST: if (bit) u->lost[c] = 0; break;
        default: break;
        }
    }
    return HPM_UPC_OK;
}

/* Bits of a configuration register that belong to no counter field. */
static uint64_t config_reserved_mask(const struct hpm_upc *u)
{
    uint64_t used = 0;
    for (uint32_t i = 0; i < u->p.group_size; i++) used |= (uint64_t)0x1f << (i * u->field_bits);
    return ~used;
}

int hpm_upc_mmio_read(struct hpm_upc *u, uint64_t off, uint64_t *value)
{
    if (!value) return HPM_UPC_ENULL;
    if (off % 8) return HPM_UPC_EALIGN;
    const struct hpm_upc_layout *m = &u->map;
    const uint32_t n = u->p.n_counters;
    if (off < m->config) {
        uint64_t v;
        int rc = hpm_upc_read(u, (uint32_t)(off / 8), &v);
        if (rc == HPM_UPC_EPARITY) return rc;
        *value = v; /* lost carries are visible in the lost-carry bitmap */
        return HPM_UPC_OK;
    }
    if (off < m->config + 8u * u->n_groups) {
        *value = u->cfg[(off - m->config) / 8];
        return HPM_UPC_OK;
    }
    if (off == m->start_stop) { *value = (uint64_t)u->running; return HPM_UPC_OK; }
    if (off == m->threshold) { *value = u->thr_global; return HPM_UPC_OK; }
    if (off == m->control) { *value = (uint64_t)u->per_counter_threshold; return HPM_UPC_OK; }
    if (off == m->status) { *value = hpm_upc_status(u); return HPM_UPC_OK; }
    if (off == m->cycle) { *value = u->cycle; return HPM_UPC_OK; }
    uint32_t word;
    int kind = bitmap_at(u, off, &word);
    if (kind >= 0) {
        *value = bitmap_read(u, kind, word);
        return HPM_UPC_OK;
    }
    if (off >= m->counter_threshold && off < m->counter_threshold + 8u * n) {
        *value = u->thr[(off - m->counter_threshold) / 8];
        return HPM_UPC_OK;
    }
    return HPM_UPC_EUNMAPPED;
}

int hpm_upc_mmio_write(struct hpm_upc *u, uint64_t off, uint64_t v)
{
    if (off % 8) return HPM_UPC_EALIGN;
    const struct hpm_upc_layout *m = &u->map;
    const uint32_t n = u->p.n_counters;
    if (off < m->config) return hpm_upc_write(u, (uint32_t)(off / 8), v);
    if (off < m->config + 8u * u->n_groups) {
        if (v & config_reserved_mask(u)) return HPM_UPC_ERESERVED;
        uint32_t g = (uint32_t)((off - m->config) / 8);
        u->cfg[g] = v; /* every 2-bit mode and input value is valid */
        /* Decoding is done by the counting core; reuse it through configure. */
        for (uint32_t i = 0; i < u->p.group_size; i++) {
            uint32_t f = (uint32_t)(v >> (i * u->field_bits)) & 0x1fu;
            hpm_upc_configure(u, g * u->p.group_size + i, f & HPM_UPC_CFG_INPUT_MASK,
                              (int)((f & HPM_UPC_CFG_MODE_MASK) >> HPM_UPC_CFG_MODE_SHIFT),
                              (f & HPM_UPC_CFG_IRQ_ENABLE) != 0);
        }
        return HPM_UPC_OK;
    }
    if (off == m->start_stop || off == m->control) {
        if (v & ~(uint64_t)1) return HPM_UPC_ERESERVED;
        if (off == m->start_stop)
            u->running = (int)v;
        else
            u->per_counter_threshold = (int)v;
        return HPM_UPC_OK;
    }
    if (off == m->threshold) return hpm_upc_set_threshold(u, v);
    if (off == m->status || off == m->cycle) return HPM_UPC_EREADONLY;
    uint32_t word;
    int kind = bitmap_at(u, off, &word);
    if (kind >= 0) return bitmap_write(u, kind, word, v);
    if (off >= m->counter_threshold && off < m->counter_threshold + 8u * n)
        return hpm_upc_set_counter_threshold(u, (uint32_t)((off - m->counter_threshold) / 8), v);
    return HPM_UPC_EUNMAPPED;
}
