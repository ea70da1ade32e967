/* SPDX-License-Identifier: BSD-3-Clause */
/* The unit's state, shared by upc.c (counting) and upc_mmio.c (registers). */
#ifndef HPM_UPC_INTERNAL_H
#define HPM_UPC_INTERNAL_H

#include "hpm/upc.h"

/* Notifications queued per counter before an early delivery. */
#define HPM_UPC_PENDING_PER_COUNTER 4u

struct hpm_upc {
    struct hpm_upc_params p;
    struct hpm_upc_layout map;
    uint32_t low_mask;
    uint64_t total_mask; /* low_bits + high_bits ones */
    uint64_t high_mask;
    uint32_t field_bits; /* width of one counter's field in a configuration register */
    uint32_t n_groups;
    uint32_t service_unsafe;

    uint64_t cycle;
    uint64_t visit_cycle; /* next maintenance visit: cycle and entry */
    uint32_t visit_entry;
    int running;               /* the start/stop register */
    int per_counter_threshold; /* the control register */
    uint64_t thr_global;       /* the threshold register */
    hpm_upc_notify_fn notify;
    void *notify_ctx;

    /* Per counter. The low-order register and its carry latch are kept
     * folded into one 64-bit value, acc = (sram + carry) << low_bits | low,
     * so that counting is one add; the latch is recovered as
     * (acc >> low_bits) - sram (0 or 1: a lost carry is taken out of acc).
     * Counters that can raise interrupts, and all counters of a unit whose
     * service time is unsafe, are "exact": each rollover in a batch is placed
     * at its cycle. The others only need the SRAM word right at each visit. */
    uint64_t *acc;
    uint64_t *sram;   /* committed high-order word, high_bits wide */
    uint64_t *fault;  /* injected bit flips over the stored word (parity model) */
    uint8_t *pfault;  /* injected flip of the parity bit itself */
    uint8_t *prev;    /* edge detector: last level of the selected input (edge modes) */
    uint64_t *ctl;    /* batch control word, see apply_config */
    uint8_t *armed, *irq, *perr;
    uint8_t *slow;    /* scratch flag used inside hpm_upc_advance */
    uint64_t *lost;
    uint64_t *thr;
    /* Per group: the configuration registers, and their decoded form. */
    uint64_t *cfg;
    uint32_t *event;
    uint8_t *mode, *irq_en;

    uint32_t *slow_list;
    uint32_t *edge_list; /* edge-mode counters */
    uint8_t *edge_was;   /* their detector's level before the current batch */
    uint32_t *exact_list;
    /* The counters that select each input, for hpm_upc_advance_sparse: a
     * list per input, first counter in by_input[e], the next in
     * by_input_next[c] (HPM_UPC_NO_COUNTER ends it); rebuilt with the lists
     * above. */
    uint32_t *by_input, *by_input_next;
    uint32_t n_edge, n_exact;
    int edge_list_dirty;
    int all_level_high; /* every counter in level-high mode: the fastest batch loop */
    struct hpm_upc_notify *pending;
    uint32_t n_pending, pending_cap;
};

#endif
