/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm/upc.h - a software model of the Blue Gene/P Universal Performance
 * Counter (UPC) unit (Salapura et al., seed 000, sections 4-7).
 *
 * The model is freestanding: the core (src/upc/upc.c) calls no libc function,
 * so the same code runs inside the Valgrind tool (which has no libc) and in
 * ordinary programs. Storage is supplied by the caller (hpm_upc_init); hosted
 * programs can use hpm_upc_create/hpm_upc_destroy instead.
 *
 * Wiring. Counter c has four inputs; input i of counter c is event
 *     (c + i * n_counters) mod n_inputs.
 * With the BG/P values (256 counters, 1024 events) every event is wired to
 * exactly one counter, and the event space reads as four banks of 256:
 * bank i = input-select value i. Two events conflict (cannot be counted at
 * once) exactly when they are wired to the same single counter.
 *
 * Time. hpm_upc_step advances one cycle given the cycle's event signals;
 * hpm_upc_advance advances N cycles given per-input event counts. In a batch,
 * an input with k events is taken to be high in the first k cycles of the
 * batch and low in the rest ("front-packed"); under that rule the two
 * interfaces give identical counters, carries, arm bits and interrupt cycles.
 *
 * Within a cycle, counting happens first, then the maintenance state machine.
 * The state machine services entry (t / cycles_per_slot) mod n_counters at
 * every cycle t that is a multiple of cycles_per_slot.
 */
#ifndef HPM_UPC_H
#define HPM_UPC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes. Every call that fails changes nothing. */
enum hpm_upc_error {
    HPM_UPC_OK = 0,
    HPM_UPC_EPARAM = -1,     /* unit parameters invalid */
    HPM_UPC_ECOUNTER = -2,   /* counter index out of range */
    HPM_UPC_EEVENT = -3,     /* event index out of range */
    HPM_UPC_EMODE = -4,      /* unknown counting mode */
    HPM_UPC_EINPUT = -5,     /* input select out of range, or event not wired to counter */
    HPM_UPC_EALIGN = -6,     /* register access not 8-byte aligned */
    HPM_UPC_EUNMAPPED = -7,  /* register address not mapped */
    HPM_UPC_EREADONLY = -8,  /* write to a read-only register */
    HPM_UPC_ERANGE = -9,     /* value does not fit (threshold, counter, counts > cycles) */
    HPM_UPC_EPARITY = -10,   /* SRAM word has bad parity: no value returned */
    HPM_UPC_ELOSTCARRY = -11, /* value returned, but carries were lost (service time) */
    HPM_UPC_ENOMEM = -12,    /* storage too small or allocation failed */
    HPM_UPC_ERESERVED = -13, /* reserved register bits set */
    HPM_UPC_ENULL = -14,     /* required pointer argument is NULL */
};

/* The four counting modes of section 6. */
enum hpm_upc_mode {
    HPM_UPC_LEVEL_HIGH = 0, /* count every cycle the signal is 1 */
    HPM_UPC_LEVEL_LOW = 1,  /* count every cycle the signal is 0 */
    HPM_UPC_EDGE_RISE = 2,  /* count 0 -> 1 transitions */
    HPM_UPC_EDGE_FALL = 3,  /* count 1 -> 0 transitions */
};

#define HPM_UPC_INPUTS_PER_COUNTER 4

/* Design parameters; hpm_upc_params_default gives the BG/P values. */
struct hpm_upc_params {
    uint32_t n_counters;      /* 256 */
    uint32_t n_inputs;        /* 1024 events */
    uint32_t low_bits;        /* 12: width of the low-order register counters */
    uint32_t high_bits;       /* 52: width of the SRAM high-order words (plus parity) */
    uint32_t cycles_per_slot; /* 16: maintenance cycles per SRAM entry */
    uint32_t group_size;      /* 8: counters sharing one configuration register */
};

/* Register map, derived from the parameters (byte offsets, 64-bit registers).
 * With the defaults: counters 0x000-0x7F8, configuration 0x800-0x8F8,
 * start/stop 0x900, threshold 0x910 (Figure 5), then hpm's additions. */
struct hpm_upc_layout {
    uint32_t counters;      /* n_counters registers: full 64-bit counter values */
    uint32_t config;        /* n_counters/group_size registers */
    uint32_t start_stop;    /* bit 0: 1 = counting */
    uint32_t threshold;     /* global high-order threshold compare value */
    uint32_t control;       /* bit 0: 1 = per-counter thresholds */
    uint32_t status;        /* read-only summary, HPM_UPC_STATUS_* */
    uint32_t cycle;         /* read-only cycle counter */
    uint32_t irq_status;    /* bitmap, write 1 to clear */
    uint32_t armed;         /* bitmap, read/write */
    uint32_t parity_error;  /* bitmap, write 1 to clear */
    uint32_t lost_carry;    /* bitmap, write 1 to clear (also clears the counts) */
    uint32_t carry;         /* bitmap, read-only: pending carry latches */
    uint32_t bitmap_words;  /* 64-bit words per bitmap */
    uint32_t counter_threshold; /* n_counters registers: per-counter thresholds */
    uint32_t size;          /* bytes mapped in all */
};

#define HPM_UPC_STATUS_IRQ (1u << 0)          /* some counter interrupt pending */
#define HPM_UPC_STATUS_PARITY (1u << 1)       /* some SRAM word failed parity */
#define HPM_UPC_STATUS_LOST_CARRY (1u << 2)   /* some carry was lost */
#define HPM_UPC_STATUS_SERVICE_UNSAFE (1u << 3) /* parameters cannot guarantee service */

/* Configuration field of one counter inside its group's register. */
#define HPM_UPC_CFG_INPUT_MASK 0x3u
#define HPM_UPC_CFG_MODE_SHIFT 2
#define HPM_UPC_CFG_MODE_MASK (0x3u << HPM_UPC_CFG_MODE_SHIFT)
#define HPM_UPC_CFG_IRQ_ENABLE (1u << 4)

/* What the unit reports through its notification handler. */
enum hpm_upc_notify_kind {
    HPM_UPC_NOTIFY_IRQ = 0,        /* threshold interrupt raised */
    HPM_UPC_NOTIFY_LOST_CARRY = 1, /* low-order rollover while the carry latch was set */
    HPM_UPC_NOTIFY_PARITY = 2,     /* bad parity seen by the state machine or a read */
};

struct hpm_upc_notify {
    enum hpm_upc_notify_kind kind;
    uint32_t counter;
    uint64_t cycle;
};

/* Called for every notification; from hpm_upc_advance the calls come at the
 * end of the call, in cycle order (then counter order). */
typedef void (*hpm_upc_notify_fn)(void *ctx, const struct hpm_upc_notify *n);

struct hpm_upc;

void hpm_upc_params_default(struct hpm_upc_params *p);
int hpm_upc_params_check(const struct hpm_upc_params *p);
/* Bytes of storage hpm_upc_init needs (0 if the parameters are invalid). */
size_t hpm_upc_storage_size(const struct hpm_upc_params *p);
/* Build a unit in caller storage (8-byte aligned). Counters zero, stopped. */
int hpm_upc_init(struct hpm_upc **out, const struct hpm_upc_params *p, void *storage,
                 size_t size);
/* Hosted convenience (malloc/free). */
int hpm_upc_create(struct hpm_upc **out, const struct hpm_upc_params *p);
void hpm_upc_destroy(struct hpm_upc *u);

const struct hpm_upc_params *hpm_upc_params_of(const struct hpm_upc *u);
void hpm_upc_layout_of(const struct hpm_upc *u, struct hpm_upc_layout *l);
const char *hpm_upc_strerror(int err);
const char *hpm_upc_mode_name(int mode);

/* Wiring. */
int hpm_upc_input_event(const struct hpm_upc *u, uint32_t counter, uint32_t input,
                        uint32_t *event);
/* Counters that can see event; returns how many (0..4) or an error. */
int hpm_upc_event_counters(const struct hpm_upc *u, uint32_t event,
                           uint32_t out[HPM_UPC_INPUTS_PER_COUNTER]);

/* Configuration (the same fields the configuration registers hold). */
int hpm_upc_configure(struct hpm_upc *u, uint32_t counter, uint32_t input, int mode,
                      int irq_enable);
/* Select event on counter: finds the input select, or HPM_UPC_EINPUT. */
int hpm_upc_select_event(struct hpm_upc *u, uint32_t counter, uint32_t event, int mode,
                         int irq_enable);

/* Global start/stop. The state machine keeps servicing carries when stopped. */
void hpm_upc_start(struct hpm_upc *u);
void hpm_upc_stop(struct hpm_upc *u);
int hpm_upc_running(const struct hpm_upc *u);
/* 1 when the unit counts and only a batch's sums can matter: every counter
 * level high, none with its interrupt enabled, every entry serviced in time
 * (hpm_upc_service_time_ok). Then two batches fed one after the other and
 * one batch of their summed counts and cycles leave every counter's value
 * and the cycle the same (only where the carries were taken, and a parity
 * fault injected into a word, can tell them apart), so a feeder may gather
 * batches before feeding them. */
int hpm_upc_batch_sums_only(struct hpm_upc *u);

/* Exact 64-bit value, pending carry included. HPM_UPC_EPARITY: *value untouched.
 * HPM_UPC_ELOSTCARRY: *value is what the hardware holds; the true count is
 * larger by hpm_upc_lost_carries() << low_bits. */
int hpm_upc_read(struct hpm_upc *u, uint32_t counter, uint64_t *value);
int hpm_upc_write(struct hpm_upc *u, uint32_t counter, uint64_t value);
/* Clear all counters, carries, arm, interrupt, parity and lost-carry state. */
void hpm_upc_reset_counters(struct hpm_upc *u);
uint64_t hpm_upc_lost_carries(const struct hpm_upc *u, uint32_t counter);
/* 1 if the counter's carry latch is set (a carry waits for the state machine). */
int hpm_upc_carry_pending(const struct hpm_upc *u, uint32_t counter);
uint64_t hpm_upc_cycle(const struct hpm_upc *u);
uint32_t hpm_upc_status(const struct hpm_upc *u);
/* 1 if every entry is serviced before any low-order counter can roll over twice. */
int hpm_upc_service_time_ok(const struct hpm_upc_params *p);

/* Thresholds. hpm_upc_set_threshold writes the global register (Figure 5);
 * hpm_upc_set_counter_threshold a per-counter one; hpm_upc_set_threshold_mode
 * chooses which the state machine compares (0 = global, 1 = per counter). */
int hpm_upc_set_threshold(struct hpm_upc *u, uint64_t high);
int hpm_upc_set_counter_threshold(struct hpm_upc *u, uint32_t counter, uint64_t high);
void hpm_upc_set_threshold_mode(struct hpm_upc *u, int per_counter);
/* Interrupt after exactly `events` more events on counter (events >= 1): does
 * the 4096*n + m arithmetic, preloads the counter, sets its compare value and
 * pre-arms when the preloaded high-order bits already match. In global mode the
 * global register is used as it is (fails with HPM_UPC_ERANGE if `events` is
 * beyond reach of it). *preload receives the value the counter now starts at:
 * events counted = read value - *preload. Enables the counter's interrupt. */
int hpm_upc_program_threshold(struct hpm_upc *u, uint32_t counter, uint64_t events,
                              uint64_t *preload);
int hpm_upc_irq_pending(const struct hpm_upc *u, uint32_t counter);
int hpm_upc_armed(const struct hpm_upc *u, uint32_t counter);
void hpm_upc_set_notify(struct hpm_upc *u, hpm_upc_notify_fn fn, void *ctx);

/* Parity fault injection: flip bit `bit` of the counter's SRAM word; bit ==
 * high_bits flips the parity bit itself. */
int hpm_upc_inject_parity_fault(struct hpm_upc *u, uint32_t counter, uint32_t bit);

/* Memory-mapped registers (byte offsets). */
int hpm_upc_mmio_read(struct hpm_upc *u, uint64_t offset, uint64_t *value);
int hpm_upc_mmio_write(struct hpm_upc *u, uint64_t offset, uint64_t value);

/* Time. signals: bitmap of n_inputs bits (bit e of word e/64 = event e high). */
int hpm_upc_step(struct hpm_upc *u, const uint64_t *signals);
/* counts[e] events on input e during the next `cycles` cycles (counts[e] <= cycles,
 * else HPM_UPC_ERANGE; only inputs that some counter selects are read). */
int hpm_upc_advance(struct hpm_upc *u, uint32_t cycles, const uint32_t *counts);
/* The same batch when only the distinct inputs in inputs[0..n_inputs) can
 * have events (counts[e] == 0 for every other input e): the same result as
 * hpm_upc_advance, with pass 1 over the counters of those inputs only (a
 * reader of its counters feeds a few hundred of 1024 inputs at every read).
 * HPM_UPC_EEVENT for a listed input out of range. */
int hpm_upc_advance_sparse(struct hpm_upc *u, uint32_t cycles, const uint32_t *counts,
                           const uint32_t *inputs, uint32_t n_inputs);

/* The same batch with each listed input's signal given as k = counts[e]
 * high cycles in pulses[e] pulses (docs/upc.md, "Signals"): pulse i starts
 * at cycle i*(q+1) + min(i, m) and lasts q + (i < m) cycles (q = k / p,
 * m = k % p), a low cycle after each, the rest of the batch low. So edge
 * modes count pulses, where a front-packed batch has one (pulses[e] == 1 is
 * hpm_upc_advance_sparse's batch). HPM_UPC_ERANGE, and nothing changes,
 * unless for every listed input that some counter selects: k == 0 and
 * pulses[e] == 0, or 1 <= pulses[e] <= k and k + pulses[e] - 1 <= cycles. */
int hpm_upc_advance_signals(struct hpm_upc *u, uint32_t cycles, const uint32_t *counts,
                            const uint32_t *pulses, const uint32_t *inputs, uint32_t n_inputs);

#ifdef __cplusplus
}
#endif
#endif
