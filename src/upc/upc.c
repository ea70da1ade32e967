/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UPC model. Freestanding on purpose: it is linked into the Valgrind tool,
 * which has no libc, so nothing here may call one (no malloc, no memset; the
 * zeroing loops below are written out).
 *
 * State mirrors the hardware of seed 000 figure 3/4: per counter a low-order
 * register (`low`), a carry latch, an SRAM word (`high`) with its parity bit,
 * an arm bit and an interrupt status bit; per group a configuration register;
 * one start/stop register; one global threshold register. hpm adds per-counter
 * threshold registers (PAPI wants a threshold per event), status bitmaps and
 * lost-carry counts (so a designer sees every carry the chosen parameters lose).
 */
#include "upc_internal.h"

/* ---- small helpers -------------------------------------------------------- */

static uint32_t parity64(uint64_t x)
{
    /* Written out: __builtin_parityll may become a libgcc call, and the
     * Valgrind tool links no libgcc. */
    x ^= x >> 32;
    x ^= x >> 16;
    x ^= x >> 8;
    x ^= x >> 4;
    x ^= x >> 2;
    x ^= x >> 1;
    return (uint32_t)(x & 1u);
}

/* Single even parity over the word and its parity bit: an odd number of
 * flipped bits is detected, an even number is not (as in the hardware). */
static int word_parity_bad(const struct hpm_upc *u, uint32_t c)
{
    /* an unfaulted word (all of them but injected ones) needs no parity */
    return (u->fault[c] | u->pfault[c]) != 0 && (parity64(u->fault[c]) ^ u->pfault[c]) != 0;
}

/* The SRAM word as the hardware would read it. */
static uint64_t sram_word(const struct hpm_upc *u, uint32_t c)
{
    return u->sram[c] ^ u->fault[c];
}

static uint64_t compare_value(const struct hpm_upc *u, uint32_t c)
{
    return u->per_counter_threshold ? u->thr[c] : u->thr_global;
}

static void queue_notify(struct hpm_upc *u, enum hpm_upc_notify_kind kind, uint32_t c,
                         uint64_t cycle);

/* ---- parameters and layout ------------------------------------------------ */

void hpm_upc_params_default(struct hpm_upc_params *p)
{
    if (!p) return;
    p->n_counters = 256;
    p->n_inputs = 1024;
    p->low_bits = 12;
    p->high_bits = 52;
    p->cycles_per_slot = 16;
    p->group_size = 8;
}

int hpm_upc_params_check(const struct hpm_upc_params *p)
{
    if (!p) return HPM_UPC_ENULL;
    if (p->n_counters < 1 || p->n_counters > 65536) return HPM_UPC_EPARAM;
    if (p->n_inputs < 1 || p->n_inputs > (1u << 20)) return HPM_UPC_EPARAM;
    /* low_bits <= 31 keeps low-order arithmetic in 32 bits with room for a carry. */
    if (p->low_bits < 1 || p->low_bits > 31) return HPM_UPC_EPARAM;
    if (p->high_bits < 1 || p->low_bits + p->high_bits > 64) return HPM_UPC_EPARAM;
    if (p->cycles_per_slot < 1 || p->cycles_per_slot > (1u << 20)) return HPM_UPC_EPARAM;
    /* A counter's field needs 5 bits: 2 input select, 2 mode, 1 interrupt enable. */
    if (p->group_size < 1 || p->group_size > 12) return HPM_UPC_EPARAM;
    if (p->n_counters % p->group_size != 0) return HPM_UPC_EPARAM;
    return HPM_UPC_OK;
}

int hpm_upc_service_time_ok(const struct hpm_upc_params *p)
{
    if (hpm_upc_params_check(p) != HPM_UPC_OK) return 0;
    /* Counting precedes maintenance within a cycle, so a carry set just after
     * its entry's visit waits n*S cycles; a second rollover needs 2^w more
     * events. Lost iff n*S > 2^w. */
    return (uint64_t)p->n_counters * p->cycles_per_slot <= ((uint64_t)1 << p->low_bits);
}

static uint32_t align_up(uint32_t x, uint32_t a)
{
    return (x + a - 1) / a * a;
}

static void compute_layout(const struct hpm_upc_params *p, struct hpm_upc_layout *l)
{
    uint32_t n = p->n_counters, groups = n / p->group_size;
    l->counters = 0;
    l->config = 8 * n;
    l->start_stop = align_up(l->config + 8 * groups, 0x100);
    l->threshold = l->start_stop + 0x10;
    l->control = l->start_stop + 0x18;
    l->status = l->start_stop + 0x20;
    l->cycle = l->start_stop + 0x28;
    l->bitmap_words = (n + 63) / 64;
    uint32_t stride = align_up(8 * l->bitmap_words, 0x20);
    l->irq_status = l->start_stop + 0x100;
    l->armed = l->irq_status + stride;
    l->parity_error = l->armed + stride;
    l->lost_carry = l->parity_error + stride;
    l->carry = l->lost_carry + stride;
    l->counter_threshold = align_up(l->carry + stride, 0x1000);
    l->size = l->counter_threshold + 8 * n;
}

/* ---- storage ---------------------------------------------------------------- */

/* Arrays live after the struct, each 8-byte aligned. */
static size_t carve(size_t *off, size_t bytes)
{
    size_t at = *off;
    *off += (bytes + 7) & ~(size_t)7;
    return at;
}

static size_t layout_storage(const struct hpm_upc_params *p, struct hpm_upc *u, char *base)
{
    size_t n = p->n_counters, groups = n / p->group_size;
    size_t off = (sizeof(struct hpm_upc) + 7) & ~(size_t)7;
    size_t o_acc = carve(&off, 8 * n), o_sram = carve(&off, 8 * n);
    size_t o_fault = carve(&off, 8 * n), o_pfault = carve(&off, n);
    size_t o_prev = carve(&off, n), o_ctl = carve(&off, 8 * n), o_edge = carve(&off, 4 * n);
    size_t o_ewas = carve(&off, n), o_exact = carve(&off, 4 * n);
    size_t o_armed = carve(&off, n), o_irq = carve(&off, n);
    size_t o_perr = carve(&off, n), o_slow = carve(&off, n);
    size_t o_lost = carve(&off, 8 * n), o_thr = carve(&off, 8 * n);
    size_t o_cfg = carve(&off, 8 * groups);
    size_t o_ev = carve(&off, 4 * n), o_mode = carve(&off, n), o_irqen = carve(&off, n);
    size_t o_slowlist = carve(&off, 4 * n);
    size_t o_byin = carve(&off, 4 * (size_t)p->n_inputs), o_bynext = carve(&off, 4 * n);
    size_t o_pending = carve(&off, sizeof(struct hpm_upc_notify) * HPM_UPC_PENDING_PER_COUNTER * n);
    if (u) {
        u->acc = (uint64_t *)(base + o_acc);
        u->sram = (uint64_t *)(base + o_sram);
        u->fault = (uint64_t *)(base + o_fault);
        u->pfault = (uint8_t *)(base + o_pfault);
        u->prev = (uint8_t *)(base + o_prev);
        u->ctl = (uint64_t *)(base + o_ctl);
        u->edge_list = (uint32_t *)(base + o_edge);
        u->edge_was = (uint8_t *)(base + o_ewas);
        u->exact_list = (uint32_t *)(base + o_exact);
        u->armed = (uint8_t *)(base + o_armed);
        u->irq = (uint8_t *)(base + o_irq);
        u->perr = (uint8_t *)(base + o_perr);
        u->slow = (uint8_t *)(base + o_slow);
        u->lost = (uint64_t *)(base + o_lost);
        u->thr = (uint64_t *)(base + o_thr);
        u->cfg = (uint64_t *)(base + o_cfg);
        u->event = (uint32_t *)(base + o_ev);
        u->mode = (uint8_t *)(base + o_mode);
        u->irq_en = (uint8_t *)(base + o_irqen);
        u->slow_list = (uint32_t *)(base + o_slowlist);
        u->by_input = (uint32_t *)(base + o_byin);
        u->by_input_next = (uint32_t *)(base + o_bynext);
        u->pending = (struct hpm_upc_notify *)(base + o_pending);
        u->pending_cap = HPM_UPC_PENDING_PER_COUNTER * (uint32_t)n;
    }
    return off;
}

size_t hpm_upc_storage_size(const struct hpm_upc_params *p)
{
    if (hpm_upc_params_check(p) != HPM_UPC_OK) return 0;
    return layout_storage(p, 0, 0);
}

static void zero_bytes(void *ptr, size_t n)
{
    volatile unsigned char *b = ptr; /* volatile: keep this a loop, not a memset call */
    for (size_t i = 0; i < n; i++) b[i] = 0;
}

static uint32_t wired_event(const struct hpm_upc_params *p, uint32_t counter, uint32_t input)
{
    return (uint32_t)(((uint64_t)counter + (uint64_t)input * p->n_counters) % p->n_inputs);
}

/* Re-derive the per-counter selection caches from a group register. */
static void apply_config(struct hpm_upc *u, uint32_t group)
{
    uint64_t reg = u->cfg[group];
    for (uint32_t i = 0; i < u->p.group_size; i++) {
        uint32_t c = group * u->p.group_size + i;
        uint32_t f = (uint32_t)(reg >> (i * u->field_bits)) & 0x1fu;
        uint32_t event = wired_event(&u->p, c, f & HPM_UPC_CFG_INPUT_MASK);
        uint8_t mode = (uint8_t)((f & HPM_UPC_CFG_MODE_MASK) >> HPM_UPC_CFG_MODE_SHIFT);
        /* A (re)configured counter's edge detector starts low. */
        if (event != u->event[c] || mode != u->mode[c]) u->prev[c] = 0;
        u->event[c] = event;
        u->mode[c] = mode;
        u->irq_en[c] = (f & HPM_UPC_CFG_IRQ_ENABLE) ? 1 : 0;
        /* Batch control word: low half XORed into the count (all ones makes
         * k into cycles-k, level-low), high half ANDed (0 for edge modes,
         * which a separate loop counts). */
        uint64_t inv = mode == HPM_UPC_LEVEL_LOW ? 0xffffffffu : 0u;
        uint64_t lvl = mode <= HPM_UPC_LEVEL_LOW ? 0xffffffffu : 0u;
        u->ctl[c] = inv | (lvl << 32);
    }
    u->edge_list_dirty = 1;
}

int hpm_upc_init(struct hpm_upc **out, const struct hpm_upc_params *p, void *storage,
                 size_t size)
{
    if (!out || !p || !storage) return HPM_UPC_ENULL;
    int rc = hpm_upc_params_check(p);
    if (rc != HPM_UPC_OK) return rc;
    if ((uintptr_t)storage % 8 != 0) return HPM_UPC_ENOMEM;
    size_t need = layout_storage(p, 0, 0);
    if (size < need) return HPM_UPC_ENOMEM;
    zero_bytes(storage, need);
    struct hpm_upc *u = storage;
    u->p = *p;
    compute_layout(p, &u->map);
    layout_storage(p, u, storage);
    u->low_mask = (1u << p->low_bits) - 1u;
    u->total_mask = p->low_bits + p->high_bits >= 64
                        ? ~(uint64_t)0
                        : (((uint64_t)1 << (p->low_bits + p->high_bits)) - 1u);
    u->high_mask = p->high_bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << p->high_bits) - 1u);
    u->field_bits = 64 / p->group_size;
    u->n_groups = p->n_counters / p->group_size;
    u->service_unsafe = !hpm_upc_service_time_ok(p);
    for (uint32_t c = 0; c < p->n_counters; c++) u->mode[c] = 0xff; /* force decode */
    for (uint32_t g = 0; g < u->n_groups; g++) apply_config(u, g);
    *out = u;
    return HPM_UPC_OK;
}

const struct hpm_upc_params *hpm_upc_params_of(const struct hpm_upc *u)
{
    return &u->p;
}

void hpm_upc_layout_of(const struct hpm_upc *u, struct hpm_upc_layout *l)
{
    *l = u->map;
}

/* ---- strings ---------------------------------------------------------------- */

static const char *const error_text[] = {
    [0] = "success",
    [1] = "invalid unit parameters",
    [2] = "counter index out of range",
    [3] = "event index out of range",
    [4] = "unknown counting mode",
    [5] = "input select out of range, or event not wired to this counter",
    [6] = "register access not 8-byte aligned",
    [7] = "register address not mapped",
    [8] = "register is read-only",
    [9] = "value out of range",
    [10] = "SRAM parity error: counter value not trustworthy",
    [11] = "carries were lost: counter value is short (service time exceeded)",
    [12] = "not enough storage",
    [13] = "reserved register bits set",
    [14] = "required pointer is NULL",
};

const char *hpm_upc_strerror(int err)
{
    int i = -err;
    if (i < 0 || i >= (int)(sizeof error_text / sizeof error_text[0])) return "unknown error";
    return error_text[i];
}

static const char *const mode_names[] = {"level-high", "level-low", "edge-rise", "edge-fall"};

const char *hpm_upc_mode_name(int mode)
{
    if (mode < 0 || mode > 3) return "invalid";
    return mode_names[mode];
}

/* ---- wiring and configuration ---------------------------------------------- */

int hpm_upc_input_event(const struct hpm_upc *u, uint32_t counter, uint32_t input,
                        uint32_t *event)
{
    if (!event) return HPM_UPC_ENULL;
    if (counter >= u->p.n_counters) return HPM_UPC_ECOUNTER;
    if (input >= HPM_UPC_INPUTS_PER_COUNTER) return HPM_UPC_EINPUT;
    *event = wired_event(&u->p, counter, input);
    return HPM_UPC_OK;
}

int hpm_upc_event_counters(const struct hpm_upc *u, uint32_t event,
                           uint32_t out[HPM_UPC_INPUTS_PER_COUNTER])
{
    if (!out) return HPM_UPC_ENULL;
    if (event >= u->p.n_inputs) return HPM_UPC_EEVENT;
    int found = 0;
    /* Only counters c == event (mod n_inputs) minus multiples of n can match;
     * with few inputs per counter a scan of the 4 inputs of each candidate is
     * cheap enough, and this is not a hot path. */
    for (uint32_t c = 0; c < u->p.n_counters && found < HPM_UPC_INPUTS_PER_COUNTER; c++)
        for (uint32_t i = 0; i < HPM_UPC_INPUTS_PER_COUNTER; i++)
            if (wired_event(&u->p, c, i) == event) {
                out[found++] = c;
                break;
            }
    return found;
}

static void set_field(struct hpm_upc *u, uint32_t c, uint32_t field)
{
    uint32_t g = c / u->p.group_size, i = c % u->p.group_size;
    uint64_t mask = (uint64_t)0x1f << (i * u->field_bits);
    u->cfg[g] = (u->cfg[g] & ~mask) | ((uint64_t)field << (i * u->field_bits));
    apply_config(u, g);
}

int hpm_upc_configure(struct hpm_upc *u, uint32_t counter, uint32_t input, int mode,
                      int irq_enable)
{
    if (counter >= u->p.n_counters) return HPM_UPC_ECOUNTER;
    if (input >= HPM_UPC_INPUTS_PER_COUNTER) return HPM_UPC_EINPUT;
    if (mode < 0 || mode > 3) return HPM_UPC_EMODE;
    uint32_t field = input | ((uint32_t)mode << HPM_UPC_CFG_MODE_SHIFT) |
                     (irq_enable ? HPM_UPC_CFG_IRQ_ENABLE : 0u);
    set_field(u, counter, field);
    return HPM_UPC_OK;
}

int hpm_upc_select_event(struct hpm_upc *u, uint32_t counter, uint32_t event, int mode,
                         int irq_enable)
{
    if (counter >= u->p.n_counters) return HPM_UPC_ECOUNTER;
    if (event >= u->p.n_inputs) return HPM_UPC_EEVENT;
    if (mode < 0 || mode > 3) return HPM_UPC_EMODE;
    for (uint32_t i = 0; i < HPM_UPC_INPUTS_PER_COUNTER; i++)
        if (wired_event(&u->p, counter, i) == event)
            return hpm_upc_configure(u, counter, i, mode, irq_enable);
    return HPM_UPC_EINPUT;
}

void hpm_upc_start(struct hpm_upc *u)
{
    u->running = 1;
}

void hpm_upc_stop(struct hpm_upc *u)
{
    u->running = 0;
}

int hpm_upc_running(const struct hpm_upc *u)
{
    return u->running;
}

static void rebuild_lists(struct hpm_upc *u);

int hpm_upc_batch_sums_only(struct hpm_upc *u)
{
    /* the lists say which counters a batch's timing reaches (exact_list:
     * interrupts enabled or service unsafe; edge_list: edge modes) */
    if (u->edge_list_dirty) rebuild_lists(u);
    return u->running && u->all_level_high && u->n_exact == 0;
}

/* ---- counter values --------------------------------------------------------- */

/* Pending carry latch of counter c when its folded value is a. */
static inline uint64_t carry_of(uint64_t a, uint32_t low_bits, uint64_t sram_word,
                                uint64_t high_mask)
{
    return ((a >> low_bits) - sram_word) & high_mask;
}

static uint64_t pending_carry(const struct hpm_upc *u, uint32_t c, uint64_t a)
{
    return carry_of(a, u->p.low_bits, u->sram[c], u->high_mask);
}

static uint64_t raw_value(const struct hpm_upc *u, uint32_t c)
{
    return (u->acc[c] & u->total_mask) ^ (u->fault[c] << u->p.low_bits);
}

static int check_parity_on_read(struct hpm_upc *u, uint32_t c)
{
    if (!word_parity_bad(u, c)) return HPM_UPC_OK;
    if (!u->perr[c]) {
        u->perr[c] = 1;
        queue_notify(u, HPM_UPC_NOTIFY_PARITY, c, u->cycle);
    }
    return HPM_UPC_EPARITY;
}

static void deliver_pending(struct hpm_upc *u);

int hpm_upc_read(struct hpm_upc *u, uint32_t counter, uint64_t *value)
{
    if (!value) return HPM_UPC_ENULL;
    if (counter >= u->p.n_counters) return HPM_UPC_ECOUNTER;
    /* An unfaulted word with no notification queued, nearly every read (a
     * program's PAPI_read reads a few dozen of them): no parity to check,
     * nothing to deliver, the value as stored. */
    if ((u->fault[counter] | u->pfault[counter]) == 0 && u->n_pending == 0) {
        *value = u->acc[counter] & u->total_mask;
        return u->lost[counter] ? HPM_UPC_ELOSTCARRY : HPM_UPC_OK;
    }
    int rc = check_parity_on_read(u, counter);
    deliver_pending(u);
    if (rc != HPM_UPC_OK) return rc;
    *value = raw_value(u, counter);
    return u->lost[counter] ? HPM_UPC_ELOSTCARRY : HPM_UPC_OK;
}

int hpm_upc_carry_pending(const struct hpm_upc *u, uint32_t counter)
{
    return counter < u->p.n_counters && pending_carry(u, counter, u->acc[counter]) != 0;
}

static int value_fits(const struct hpm_upc *u, uint64_t v)
{
    return (v & ~u->total_mask) == 0;
}

static void store_value(struct hpm_upc *u, uint32_t c, uint64_t v)
{
    u->acc[c] = v;
    u->sram[c] = (v >> u->p.low_bits) & u->high_mask;
    u->fault[c] = 0;
    u->pfault[c] = 0;
    u->perr[c] = 0;
    u->lost[c] = 0;
}

int hpm_upc_write(struct hpm_upc *u, uint32_t counter, uint64_t value)
{
    if (counter >= u->p.n_counters) return HPM_UPC_ECOUNTER;
    if (!value_fits(u, value)) return HPM_UPC_ERANGE;
    store_value(u, counter, value);
    return HPM_UPC_OK;
}

void hpm_upc_reset_counters(struct hpm_upc *u)
{
    for (uint32_t c = 0; c < u->p.n_counters; c++) {
        store_value(u, c, 0);
        u->armed[c] = 0;
        u->irq[c] = 0;
    }
}

uint64_t hpm_upc_lost_carries(const struct hpm_upc *u, uint32_t counter)
{
    return counter < u->p.n_counters ? u->lost[counter] : 0;
}

uint64_t hpm_upc_cycle(const struct hpm_upc *u)
{
    return u->cycle;
}

uint32_t hpm_upc_status(const struct hpm_upc *u)
{
    uint32_t s = u->service_unsafe ? HPM_UPC_STATUS_SERVICE_UNSAFE : 0u;
    for (uint32_t c = 0; c < u->p.n_counters; c++) {
        if (u->irq[c]) s |= HPM_UPC_STATUS_IRQ;
        if (u->perr[c]) s |= HPM_UPC_STATUS_PARITY;
        if (u->lost[c]) s |= HPM_UPC_STATUS_LOST_CARRY;
    }
    return s;
}

int hpm_upc_inject_parity_fault(struct hpm_upc *u, uint32_t counter, uint32_t bit)
{
    if (counter >= u->p.n_counters) return HPM_UPC_ECOUNTER;
    if (bit > u->p.high_bits) return HPM_UPC_ERANGE;
    /* The flip stays at its bit position until software rewrites the word;
     * the state machine's increments do not heal it. */
    if (bit == u->p.high_bits)
        u->pfault[counter] ^= 1u;
    else
        u->fault[counter] ^= (uint64_t)1 << bit;
    return HPM_UPC_OK;
}

/* ---- thresholds -------------------------------------------------------------- */

int hpm_upc_set_threshold(struct hpm_upc *u, uint64_t high)
{
    if (high > u->high_mask) return HPM_UPC_ERANGE;
    u->thr_global = high;
    return HPM_UPC_OK;
}

int hpm_upc_set_counter_threshold(struct hpm_upc *u, uint32_t counter, uint64_t high)
{
    if (counter >= u->p.n_counters) return HPM_UPC_ECOUNTER;
    if (high > u->high_mask) return HPM_UPC_ERANGE;
    u->thr[counter] = high;
    return HPM_UPC_OK;
}

void hpm_upc_set_threshold_mode(struct hpm_upc *u, int per_counter)
{
    u->per_counter_threshold = per_counter ? 1 : 0;
}

int hpm_upc_program_threshold(struct hpm_upc *u, uint32_t counter, uint64_t events,
                              uint64_t *preload)
{
    if (!preload) return HPM_UPC_ENULL;
    if (counter >= u->p.n_counters) return HPM_UPC_ECOUNTER;
    if (events == 0) return HPM_UPC_ERANGE;
    uint32_t w = u->p.low_bits;
    uint64_t start, high;
    if (u->per_counter_threshold) {
        /* events = 2^w * n + m with 1 <= m <= 2^w: compare n, preload 2^w - m. */
        uint64_t n = (events - 1) >> w;
        uint64_t m = events - (n << w);
        if (n > u->high_mask) return HPM_UPC_ERANGE;
        start = ((uint64_t)1 << w) - m;
        high = n;
    } else {
        /* One shared compare value H: the interrupt comes at raw value
         * (H+1)*2^w, so preload the whole counter with (H+1)*2^w - events. */
        high = u->thr_global;
        uint64_t reach_hi = high + 1; /* reach = reach_hi << w, may need 65 bits */
        if (reach_hi > (~(uint64_t)0 >> w)) {
            /* reach is 2^64 or more: any events fits, preload wraps in 64 bits. */
        } else if (events > (reach_hi << w)) {
            return HPM_UPC_ERANGE;
        }
        start = (reach_hi << w) - events;
        if (!value_fits(u, start)) return HPM_UPC_ERANGE;
    }
    store_value(u, counter, start);
    if (u->per_counter_threshold) u->thr[counter] = high;
    u->irq[counter] = 0;
    /* Pre-arm: the state machine would arm at its next visit, but the carry-out
     * may come before that visit. Software writes the arm bit instead. */
    u->armed[counter] = (u->sram[counter] == high) ? 1 : 0;
    uint32_t g = counter / u->p.group_size, i = counter % u->p.group_size;
    uint32_t f = (uint32_t)(u->cfg[g] >> (i * u->field_bits)) & 0x1fu;
    set_field(u, counter, f | HPM_UPC_CFG_IRQ_ENABLE);
    *preload = start;
    return HPM_UPC_OK;
}

int hpm_upc_irq_pending(const struct hpm_upc *u, uint32_t counter)
{
    return counter < u->p.n_counters ? u->irq[counter] : 0;
}

int hpm_upc_armed(const struct hpm_upc *u, uint32_t counter)
{
    return counter < u->p.n_counters ? u->armed[counter] : 0;
}

void hpm_upc_set_notify(struct hpm_upc *u, hpm_upc_notify_fn fn, void *ctx)
{
    u->notify = fn;
    u->notify_ctx = ctx;
}

/* ---- notifications ---------------------------------------------------------- */

static int notify_before(const struct hpm_upc_notify *a, const struct hpm_upc_notify *b)
{
    if (a->cycle != b->cycle) return a->cycle < b->cycle;
    if (a->counter != b->counter) return a->counter < b->counter;
    return a->kind < b->kind;
}

static void deliver_pending(struct hpm_upc *u)
{
    uint32_t n = u->n_pending;
    if (n == 0) return;
    struct hpm_upc_notify *q = u->pending;
    /* Insertion sort: the queue is short and nearly sorted. */
    for (uint32_t i = 1; i < n; i++) {
        struct hpm_upc_notify x = q[i];
        uint32_t j = i;
        while (j > 0 && notify_before(&x, &q[j - 1])) {
            q[j] = q[j - 1];
            j--;
        }
        q[j] = x;
    }
    u->n_pending = 0;
    if (u->notify)
        for (uint32_t i = 0; i < n; i++) u->notify(u->notify_ctx, &q[i]);
}

static void queue_notify(struct hpm_upc *u, enum hpm_upc_notify_kind kind, uint32_t c,
                         uint64_t cycle)
{
    if (!u->notify) return;
    /* A full queue is delivered early; cycle order then holds per batch part. */
    if (u->n_pending == u->pending_cap) deliver_pending(u);
    struct hpm_upc_notify *n = &u->pending[u->n_pending++];
    n->kind = kind;
    n->counter = c;
    n->cycle = cycle;
}

/* ---- the two hardware actions ----------------------------------------------- */

/* Counter c's low-order bits carried out in cycle t; a_before is its folded
 * value just before the increment. Returns the folded value after it. */
static uint64_t carry_out(struct hpm_upc *u, uint32_t c, uint64_t t, uint64_t a_before)
{
    if (u->armed[c] && u->irq_en[c]) {
        u->armed[c] = 0;
        u->irq[c] = 1;
        queue_notify(u, HPM_UPC_NOTIFY_IRQ, c, t);
    }
    uint64_t a = a_before + 1;
    if (pending_carry(u, c, a_before)) {
        /* The latch still holds the previous carry: this one is lost, and the
         * hardware value stays 2^low_bits short. */
        u->lost[c]++;
        queue_notify(u, HPM_UPC_NOTIFY_LOST_CARRY, c, t);
        a -= (uint64_t)u->low_mask + 1;
    }
    return a;
}

/* The maintenance state machine visits entry c in cycle t, when the counter's
 * folded value is a. It reads the SRAM word when it has a carry to add or a
 * threshold to compare. */
static void service(struct hpm_upc *u, uint32_t c, uint64_t t, uint64_t a)
{
    uint64_t carry = pending_carry(u, c, a);
    if (!carry && !u->irq_en[c]) return;
    int bad = word_parity_bad(u, c);
    if (bad && !u->perr[c]) {
        u->perr[c] = 1;
        queue_notify(u, HPM_UPC_NOTIFY_PARITY, c, t);
    }
    if (carry) u->sram[c] = (u->sram[c] + 1) & u->high_mask;
    if (u->irq_en[c] && !bad && sram_word(u, c) == compare_value(u, c)) u->armed[c] = 1;
}

/* The state machine's position: it visits entry visit_entry in cycle
 * visit_cycle, then moves one slot on (kept incrementally: no divisions on
 * the per-batch path). */
static inline void advance_visit(struct hpm_upc *u)
{
    u->visit_cycle += u->p.cycles_per_slot;
    if (++u->visit_entry == u->p.n_counters) u->visit_entry = 0;
}

/* ---- time: one cycle -------------------------------------------------------- */

int hpm_upc_step(struct hpm_upc *u, const uint64_t *signals)
{
    if (!signals) return HPM_UPC_ENULL;
    uint64_t t = u->cycle;
    for (uint32_t c = 0; c < u->p.n_counters; c++) {
        uint32_t e = u->event[c];
        uint8_t s = (uint8_t)((signals[e >> 6] >> (e & 63)) & 1u);
        uint8_t was = u->prev[c];
        uint32_t inc;
        switch (u->mode[c]) {
        case HPM_UPC_LEVEL_HIGH: inc = s; break;
        case HPM_UPC_LEVEL_LOW: inc = !s; break;
        case HPM_UPC_EDGE_RISE: inc = s && !was; u->prev[c] = s; break;
        default: inc = !s && was; u->prev[c] = s; break;
        }
        if (!u->running || !inc) continue;
        uint64_t a = u->acc[c];
        if (((a + 1) & u->low_mask) == 0)
            u->acc[c] = carry_out(u, c, t, a);
        else
            u->acc[c] = a + 1;
    }
    if (t == u->visit_cycle) {
        service(u, u->visit_entry, t, u->acc[u->visit_entry]);
        advance_visit(u);
    }
    u->cycle = t + 1;
    deliver_pending(u);
    return HPM_UPC_OK;
}

/* ---- time: a batch ----------------------------------------------------------- */

/* The signal of one input in a batch of n cycles (docs/upc.md, "Signals"):
 * k high cycles in p pulses (1 <= p <= k and k + p - 1 <= n when k > 0;
 * p = 0 when k = 0). Pulse i starts at s_i = i*(q+1) + min(i, m) and lasts
 * q + (i < m) cycles (q = k / p, m = k % p), one low cycle after each, the
 * rest of the batch low from t_end = k + p - 1: the pulses front-packed and
 * as even as they can be. p = 1 is the front-packed batch (high in the first
 * k cycles). */
struct wave {
    uint64_t k, p, n, q, m;
    uint64_t mq2;   /* m * (q + 2): where the pulses of length q begin */
    uint64_t t_end; /* first cycle of the low tail */
};

static inline void wave_of(struct wave *w, uint32_t k, uint32_t p, uint32_t n)
{
    w->k = k;
    w->n = n;
    w->p = k ? p : 0;
    w->q = k ? k / p : 0;
    w->m = k ? k % p : 0;
    w->mq2 = w->m * (w->q + 2);
    w->t_end = k ? (uint64_t)k + p - 1 : 0;
}

static inline uint64_t wave_start(const struct wave *w, uint64_t i)
{
    return i * (w->q + 1) + (i < w->m ? i : w->m);
}

/* Pulses that start in cycles [0, t]. */
static inline uint64_t wave_starts_upto(const struct wave *w, uint64_t t)
{
    if (!w->p) return 0;
    if (t < w->mq2) return t / (w->q + 2) + 1;
    uint64_t i = w->m + (t - w->mq2) / (w->q + 1) + 1;
    return i < w->p ? i : w->p;
}

/* High cycles in [0, t]. */
static inline uint64_t wave_high_upto(const struct wave *w, uint64_t t)
{
    const uint64_t q = w->q, m = w->m;
    if (!w->p) return 0;
    if (w->p == 1) return t < w->k ? t + 1 : w->k;
    if (t < w->mq2) {
        uint64_t off = t % (q + 2);
        return t / (q + 2) * (q + 1) + (off < q + 1 ? off + 1 : q + 1);
    }
    uint64_t t2 = t - w->mq2, i = m + t2 / (q + 1), off = t2 % (q + 1);
    if (i >= w->p) return w->k;
    return m * (q + 1) + (i - m) * q + (off < q ? off + 1 : q);
}

/* The cycle of high cycle j (0-based, j < k). */
static inline uint64_t wave_high_cycle(const struct wave *w, uint64_t j)
{
    const uint64_t q = w->q, m = w->m;
    if (j < m * (q + 1)) return j / (q + 1) * (q + 2) + j % (q + 1);
    uint64_t j2 = j - m * (q + 1);
    return wave_start(w, m + j2 / q) + j2 % q;
}

/* One counter's increments in a batch: its mode on its input's wave, `was`
 * the input's level before the batch (edge modes). */
struct incs {
    struct wave w;
    uint32_t mode;
    uint8_t was;
};

/* Skipped first pulse: a rising edge at cycle 0 is no edge when the input
 * was already high. */
static inline uint64_t rise_skip(const struct incs *s)
{
    return s->was && s->w.k;
}

static inline uint64_t incs_total(const struct incs *s)
{
    const struct wave *w = &s->w;
    switch (s->mode) {
    case HPM_UPC_LEVEL_HIGH: return w->k;
    case HPM_UPC_LEVEL_LOW: return w->n - w->k;
    case HPM_UPC_EDGE_RISE: return w->p - rise_skip(s);
    default:
        if (!w->k) return s->was;
        return w->p - (w->t_end == w->n);
    }
}

/* Increments in batch cycles [0, t] (t < n). */
static inline uint64_t incs_upto(const struct incs *s, uint64_t t)
{
    const struct wave *w = &s->w;
    switch (s->mode) {
    case HPM_UPC_LEVEL_HIGH: return wave_high_upto(w, t);
    case HPM_UPC_LEVEL_LOW: return t + 1 - wave_high_upto(w, t);
    case HPM_UPC_EDGE_RISE: return w->p ? wave_starts_upto(w, t) - rise_skip(s) : 0;
    default: {
        if (!w->k) return s->was;
        /* pulse i < p - 1 falls at s_{i+1} - 1, the last one at t_end */
        uint64_t f = wave_starts_upto(w, t + 1) - 1;
        if (f > w->p - 1) f = w->p - 1;
        return f + (w->t_end <= t);
    }
    }
}

/* The batch cycle of increment j (0-based, j < incs_total). */
static inline uint64_t incs_cycle(const struct incs *s, uint64_t j)
{
    const struct wave *w = &s->w;
    switch (s->mode) {
    case HPM_UPC_LEVEL_HIGH: return wave_high_cycle(w, j);
    case HPM_UPC_LEVEL_LOW:
        if (!w->k) return j;
        return j + 1 < w->p ? wave_start(w, j + 1) - 1 : w->t_end + (j - (w->p - 1));
    case HPM_UPC_EDGE_RISE: return wave_start(w, j + rise_skip(s));
    default:
        if (!w->k) return 0;
        return j + 1 < w->p ? wave_start(w, j + 1) - 1 : w->t_end;
    }
}

/* Exact interleaving of rollovers and visits for a counter that rolls over
 * within [t0, t0+n); a0 is the folded value before the batch, inc its
 * increments in it. Returns the value after it. */
static uint64_t slow_counter(struct hpm_upc *u, uint32_t c, uint64_t t0, uint32_t n,
                             uint64_t a0, uint64_t inc, const struct incs *s)
{
    const uint64_t S = u->p.cycles_per_slot, N = u->p.n_counters, P = S * N;
    const uint64_t span = (uint64_t)u->low_mask + 1;
    uint64_t end = t0 + n;
    uint64_t done = 0;                     /* increments applied so far */
    uint64_t a = a0;                       /* folded value after them */
    uint64_t r = span - (a0 & u->low_mask); /* increment number of the next rollover */
    uint64_t q0 = (t0 + S - 1) / S;
    uint64_t tv = (q0 + (c + N - q0 % N) % N) * S;
    for (;;) {
        uint64_t tr = r <= inc ? t0 + incs_cycle(s, r - 1) : end;
        if (tr >= end && tv >= end) break;
        if (tr <= tv) { /* counting precedes maintenance in a cycle */
            a = carry_out(u, c, tr, a + (r - 1 - done));
            done = r;
            r += span;
        } else {
            /* increments done by the end of cycle tv */
            uint64_t upto = inc ? incs_upto(s, tv - t0) : 0;
            if (upto > inc) upto = inc;
            service(u, c, tv, a + (upto - done));
            tv += P;
        }
    }
    return a + (inc - done);
}

#define HPM_UPC_NO_COUNTER 0xffffffffu

static void rebuild_lists(struct hpm_upc *u)
{
    uint32_t k = 0, x = 0, high = 0;
    for (uint32_t e = 0; e < u->p.n_inputs; e++) u->by_input[e] = HPM_UPC_NO_COUNTER;
    for (uint32_t c = u->p.n_counters; c-- > 0;) {
        u->by_input_next[c] = u->by_input[u->event[c]];
        u->by_input[u->event[c]] = c;
    }
    for (uint32_t c = 0; c < u->p.n_counters; c++) {
        if (u->mode[c] >= HPM_UPC_EDGE_RISE) u->edge_list[k++] = c;
        if (u->irq_en[c] || u->service_unsafe) u->exact_list[x++] = c;
        high += u->mode[c] == HPM_UPC_LEVEL_HIGH;
    }
    u->n_edge = k;
    u->n_exact = x;
    u->all_level_high = high == u->p.n_counters;
    u->edge_list_dirty = 0;
}

/* Pulses of input e in this batch: given, or the front-packed one. */
static inline uint32_t pulses_of(const uint32_t *pulses, const uint32_t *counts, uint32_t e)
{
    return pulses ? pulses[e] : counts[e] != 0;
}

/* Counter c's increments in this batch (its edge detector's level before the
 * batch is edge_was, set by the edge pass). */
static inline void incs_of(const struct hpm_upc *u, uint32_t c, const uint32_t *counts,
                           const uint32_t *pulses, uint32_t n, struct incs *s)
{
    uint32_t e = u->event[c];
    wave_of(&s->w, counts[e], pulses_of(pulses, counts, e), n);
    s->mode = u->mode[c];
    s->was = u->mode[c] >= HPM_UPC_EDGE_RISE ? u->edge_was[c] : 0;
}

/* Increments of counter c in this batch after batch-relative cycle r: the
 * general case (a mode other than level high, or pulses), out of line so
 * that the front-packed level-high case below stays small enough to inline
 * into the visits' loops. */
static __attribute__((noinline)) uint64_t
increments_after_wave(const struct hpm_upc *u, uint32_t c, const uint32_t *counts,
                      const uint32_t *pulses, uint32_t n, uint64_t r)
{
    struct incs s;
    incs_of(u, c, counts, pulses, n, &s);
    return incs_total(&s) - incs_upto(&s, r);
}

static inline uint64_t increments_after(const struct hpm_upc *u, uint32_t c, const uint32_t *counts,
                                        const uint32_t *pulses, uint32_t n, uint64_t r)
{
    if (!u->running) return 0;
    uint32_t k = counts[u->event[c]];
    if (u->mode[c] == HPM_UPC_LEVEL_HIGH && (!pulses || pulses[u->event[c]] <= 1))
        return k > r + 1 ? k - (r + 1) : 0; /* the front-packed batch: no division */
    return increments_after_wave(u, c, counts, pulses, n, r);
}

static uint32_t level_increment(uint64_t ctl, uint32_t k, uint32_t full, uint32_t run)
{
    uint32_t inv = (uint32_t)ctl, lvl = (uint32_t)(ctl >> 32);
    return ((k ^ inv) + (inv & full)) & lvl & run;
}

static void advance_rest(struct hpm_upc *u, uint32_t cycles, const uint32_t *counts,
                         const uint32_t *pulses);

/* Pass 1 of a batch in the common configuration (every counter level high,
 * counting): acc[c] += counts[ev[c]], and the range check (a count above
 * `cycles` makes cycles - k wrap in 64 bits: the top bit of the result is
 * set). Two counters per 16-byte vector (GCC's and clang's vector
 * extensions, SSE2 on x86-64): -O2 leaves a loop with a run-time trip count
 * scalar, and the check's sub and or then cost as much as the add. The same
 * additions as the scalar loop, so the same values. */
typedef uint64_t upc_u64x2 __attribute__((vector_size(16)));
/* acc is 8-byte aligned only: its vectors are loaded and stored unaligned
 * (no memcpy: this file is freestanding). */
typedef uint64_t upc_u64x2_in_acc __attribute__((vector_size(16), aligned(8), may_alias));

static uint64_t add_level_high(uint64_t *restrict acc, const uint32_t *restrict ev,
                               const uint32_t *restrict counts, uint32_t n, uint32_t cycles)
{
    const upc_u64x2 cyc = {cycles, cycles};
    upc_u64x2 bad0 = {0, 0}, bad1 = {0, 0};
    const size_t end4 = n & ~(size_t)3;
    size_t c = 0;
    for (; c < end4; c += 4) {
        upc_u64x2 k0 = {counts[ev[c]], counts[ev[c + 1]]};
        upc_u64x2 k1 = {counts[ev[c + 2]], counts[ev[c + 3]]};
        *(upc_u64x2_in_acc *)(acc + c) += k0;
        *(upc_u64x2_in_acc *)(acc + c + 2) += k1;
        bad0 |= cyc - k0;
        bad1 |= cyc - k1;
    }
    bad0 |= bad1;
    uint64_t bad = bad0[0] | bad0[1];
    for (; c < n; c++) {
        uint32_t k = counts[ev[c]];
        bad |= (uint64_t)cycles - k;
        acc[c] += k;
    }
    return bad;
}

int hpm_upc_advance(struct hpm_upc *u, uint32_t cycles, const uint32_t *counts)
{
    if (!counts) return HPM_UPC_ENULL;
    if (cycles == 0) return HPM_UPC_OK;
    if (u->edge_list_dirty) rebuild_lists(u);
    const uint32_t n = u->p.n_counters;
    const uint32_t *ev = u->event;
    const uint64_t *ctl = u->ctl;
    const uint32_t run = u->running ? 0xffffffffu : 0u;
    const uint32_t full = cycles + 1u; /* (k ^ ~0) + cycles + 1 == cycles - k */
    uint64_t *acc = u->acc;
    /* A count above `cycles` makes cycles - k wrap in 64 bits: the top bit of
     * `bad` is set (two instructions per counter instead of a compare). */
    uint64_t bad = 0;

    /* Pass 1, the hot loop: every level-mode counter's whole batch, one add
     * each. The common configuration (all level-high, counting) gets a loop of
     * its own. A bad count is undone below, so a failing call changes nothing. */
    if (!run) {
        /* stopped: no counter moves (every increment is masked by run), the
         * counts are only checked; the visits below still take their time */
        for (uint32_t c = 0; c < n; c++)
            bad |= (uint64_t)cycles - counts[ev[c]];
        if (bad >> 63) return HPM_UPC_ERANGE;
    } else if (u->all_level_high) {
        bad = add_level_high(acc, ev, counts, n, cycles);
    } else {
        for (uint32_t c = 0; c < n; c++) {
            uint32_t k = counts[ev[c]];
            bad |= (uint64_t)cycles - k;
            acc[c] += level_increment(ctl[c], k, full, run);
        }
    }
    if (bad >> 63) {
        for (uint32_t c = 0; c < n; c++)
            acc[c] -= level_increment(ctl[c], counts[ev[c]], full, run);
        return HPM_UPC_ERANGE;
    }
    advance_rest(u, cycles, counts, NULL);
    return HPM_UPC_OK;
}

/* A listed input's signal fits the batch (docs/upc.md, "Signals"). */
static int pulses_fit(uint32_t cycles, uint32_t k, uint32_t p)
{
    if (k == 0) return p == 0;
    return p >= 1 && p <= k && (uint64_t)k + p - 1 <= cycles;
}

static int advance_listed(struct hpm_upc *u, uint32_t cycles, const uint32_t *counts,
                          const uint32_t *pulses, const uint32_t *inputs, uint32_t n_inputs)
{
    if (!counts || (!inputs && n_inputs)) return HPM_UPC_ENULL;
    if (cycles == 0) return HPM_UPC_OK;
    if (u->edge_list_dirty) rebuild_lists(u);
    for (uint32_t j = 0; j < n_inputs; j++)
        if (inputs[j] >= u->p.n_inputs) return HPM_UPC_EEVENT;
    const uint32_t *head = u->by_input, *next = u->by_input_next;
    if (pulses)
        for (uint32_t j = 0; j < n_inputs; j++) {
            uint32_t e = inputs[j];
            if (head[e] != HPM_UPC_NO_COUNTER && !pulses_fit(cycles, counts[e], pulses[e]))
                return HPM_UPC_ERANGE;
        }
    /* Level-low counters count the inputs that are quiet: every counter
     * moves, the dense loop is the one to take. */
    if (!u->all_level_high && u->running) {
        if (!pulses) return hpm_upc_advance(u, cycles, counts);
        /* the pulses were checked above; the dense pass checks the counts */
        const uint32_t n = u->p.n_counters, *ev = u->event, full = cycles + 1u;
        uint64_t *acc = u->acc, bad = 0;
        for (uint32_t c = 0; c < n; c++) {
            uint32_t k = counts[ev[c]];
            bad |= (uint64_t)cycles - k;
            acc[c] += level_increment(u->ctl[c], k, full, 0xffffffffu);
        }
        if (bad >> 63) {
            for (uint32_t c = 0; c < n; c++)
                acc[c] -= level_increment(u->ctl[c], counts[ev[c]], full, 0xffffffffu);
            return HPM_UPC_ERANGE;
        }
        advance_rest(u, cycles, counts, pulses);
        return HPM_UPC_OK;
    }
    uint64_t *acc = u->acc, bad = 0;
    /* Pass 1 over the counters of the listed inputs only: the others add 0.
     * As in hpm_upc_advance, only inputs some counter selects are checked.
     * Stopped, no counter moves whatever its mode: the counts are only
     * checked (the visits below still take their time). */
    const uint32_t run = u->running ? 0xffffffffu : 0u;
    for (uint32_t j = 0; j < n_inputs; j++) {
        uint32_t e = inputs[j], k = counts[e];
        if (k == 0 || head[e] == HPM_UPC_NO_COUNTER) continue;
        bad |= (uint64_t)cycles - k;
        for (uint32_t c = head[e]; c != HPM_UPC_NO_COUNTER; c = next[c]) acc[c] += k & run;
    }
    if (bad >> 63) {
        for (uint32_t j = 0; j < n_inputs; j++)
            for (uint32_t c = head[inputs[j]]; c != HPM_UPC_NO_COUNTER; c = next[c])
                acc[c] -= counts[inputs[j]] & run;
        return HPM_UPC_ERANGE;
    }
    advance_rest(u, cycles, counts, pulses);
    return HPM_UPC_OK;
}

int hpm_upc_advance_sparse(struct hpm_upc *u, uint32_t cycles, const uint32_t *counts,
                           const uint32_t *inputs, uint32_t n_inputs)
{
    return advance_listed(u, cycles, counts, NULL, inputs, n_inputs);
}

int hpm_upc_advance_signals(struct hpm_upc *u, uint32_t cycles, const uint32_t *counts,
                            const uint32_t *pulses, const uint32_t *inputs, uint32_t n_inputs)
{
    if (!pulses) return HPM_UPC_ENULL;
    return advance_listed(u, cycles, counts, pulses, inputs, n_inputs);
}

/* What follows pass 1 of a batch, for both: edge counters, exact counters
 * that rolled over, the maintenance visits, the notifications. */
static void advance_rest(struct hpm_upc *u, uint32_t cycles, const uint32_t *counts,
                         const uint32_t *pulses)
{
    const uint32_t n = u->p.n_counters;
    const uint32_t *ev = u->event;
    const uint32_t run = u->running ? 0xffffffffu : 0u;
    uint64_t *acc = u->acc;

    /* Edge-mode counters: one increment per rising (falling) edge of the
     * input's wave; the detector keeps the level of the batch's last cycle. */
    for (uint32_t i = 0; i < u->n_edge; i++) {
        uint32_t c = u->edge_list[i], k = counts[ev[c]];
        struct incs s;
        u->edge_was[c] = u->prev[c];
        incs_of(u, c, counts, pulses, cycles, &s);
        u->prev[c] = (uint8_t)(k && s.w.t_end == cycles);
        if (run) acc[c] += incs_total(&s);
    }

    /* Exact counters that rolled over: place each rollover at its cycle. */
    uint64_t t0 = u->cycle;
    uint32_t nslow = 0;
    for (uint32_t i = 0; i < u->n_exact; i++) {
        uint32_t c = u->exact_list[i];
        struct incs s;
        incs_of(u, c, counts, pulses, cycles, &s);
        uint64_t inc = run ? incs_total(&s) : 0;
        uint64_t a0 = acc[c] - inc;
        if ((a0 >> u->p.low_bits) == (acc[c] >> u->p.low_bits)) continue;
        u->slow[c] = 1;
        u->slow_list[nslow++] = c;
        acc[c] = slow_counter(u, c, t0, cycles, a0, inc, &s);
    }

    /* Visits to the other counters, each taken with the value the counter had
     * in the visit's cycle (service time is safe for them: at most one carry
     * is pending at any visit). */
    const uint64_t end = t0 + cycles;
    const uint64_t S = u->p.cycles_per_slot, N = n;
    /* ceil(span / S) visits; at most 2N of them exactly when span <= 2N*S,
     * which the short batches (most of them) learn without a division. */
    const uint64_t span = u->visit_cycle < end ? end - u->visit_cycle : 0;
    if (span <= 2 * N * S) {
        /* The position in locals, the arrays through local pointers: the
         * unit's byte arrays may alias any of its fields, which otherwise
         * are loaded again at every visit (service() changes neither). */
        const uint8_t *slow = u->slow, *irq_en = u->irq_en;
        const uint64_t *sram = u->sram;
        const uint64_t high_mask = u->high_mask;
        const uint32_t low_bits = u->p.low_bits;
        uint64_t tv = u->visit_cycle;
        uint32_t c = u->visit_entry;
        for (; tv < end; tv += S, c = c + 1 == n ? 0 : c + 1) {
            if (slow[c]) continue;
            uint64_t a = acc[c];
            if (run) a -= increments_after(u, c, counts, pulses, cycles, tv - t0);
            /* Most visits find nothing to do: no threshold, no carry. */
            if (!irq_en[c] && carry_of(a, low_bits, sram[c], high_mask) == 0) continue;
            service(u, c, tv, a);
        }
        u->visit_cycle = tv;
        u->visit_entry = c;
    } else {
        /* A long batch visits every entry many times (one visit per 16
         * cycles: walking them was most of a long run's cost). A visit
         * touches only its own counter, so the visits are taken counter by
         * counter (notifications are sorted by cycle when delivered). For a
         * counter with no threshold enabled and no parity error to report,
         * they collapse: service time is safe for it (at most one carry
         * pending at any visit), so each visit leaves the SRAM word equal to
         * the high bits of the value at that visit, and after the last one
         * it holds those of the value then. The others walk their visits. */
        const uint64_t P = S * N, nvis = (span + S - 1) / S;
        for (uint32_t c = 0; c < n; c++) {
            if (u->slow[c]) continue;
            uint64_t tv = u->visit_cycle + (uint64_t)((c + n - u->visit_entry) % n) * S;
            if (tv >= end) continue;
            if (!u->irq_en[c] && !(word_parity_bad(u, c) && !u->perr[c])) {
                uint64_t last = tv + (end - 1 - tv) / P * P;
                uint64_t a = acc[c] - increments_after(u, c, counts, pulses, cycles, last - t0);
                u->sram[c] = (a >> u->p.low_bits) & u->high_mask;
                continue;
            }
            for (; tv < end; tv += P) {
                uint64_t a = acc[c] - increments_after(u, c, counts, pulses, cycles, tv - t0);
                if (!u->irq_en[c] && pending_carry(u, c, a) == 0) continue;
                service(u, c, tv, a);
            }
        }
        u->visit_cycle += nvis * S;
        u->visit_entry = (uint32_t)((u->visit_entry + nvis) % N);
    }
    for (uint32_t i = 0; i < nslow; i++) u->slow[u->slow_list[i]] = 0;

    u->cycle = t0 + cycles;
    deliver_pending(u);
}
