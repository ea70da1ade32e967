/* SPDX-License-Identifier: BSD-3-Clause */
/* Property and unit tests of the UPC model. Run as `test_upc NAME`. */
#include "upc_testlib.h"

static struct hpm_upc *make_unit(uint32_t n, uint32_t inputs, uint32_t low, uint32_t high,
                                 uint32_t slot, uint32_t group)
{
    struct hpm_upc_params p = {n, inputs, low, high, slot, group};
    struct hpm_upc *u = NULL;
    int rc = hpm_upc_create(&u, &p);
    if (rc != HPM_UPC_OK) {
        fprintf(stderr, "hpm_upc_create: %s\n", hpm_upc_strerror(rc));
        exit(2);
    }
    return u;
}

static struct hpm_upc *default_unit(void)
{
    struct hpm_upc_params p;
    hpm_upc_params_default(&p);
    return make_unit(p.n_counters, p.n_inputs, p.low_bits, p.high_bits, p.cycles_per_slot,
                     p.group_size);
}

static void random_config(struct hpm_upc *u, int irq)
{
    const struct hpm_upc_params *p = hpm_upc_params_of(u);
    for (uint32_t c = 0; c < p->n_counters; c++)
        CHECK(hpm_upc_configure(u, c, tl_below(4), (int)tl_below(4), irq && tl_below(2)) ==
              HPM_UPC_OK);
}

/* Random signals, biased per input so level and edge modes both see work. */
static void random_signals(uint64_t *sig, uint32_t n_inputs, const uint8_t *bias)
{
    for (uint32_t e = 0; e < n_inputs; e++) {
        if (tl_below(256) < bias[e])
            sig[e / 64] |= 1ull << (e % 64);
        else
            sig[e / 64] &= ~(1ull << (e % 64));
    }
}

/* Long random streams in every mode, against ideal 64-bit counters. */
static void test_ideal(uint32_t low_bits, uint32_t cycles)
{
    struct hpm_upc *u = make_unit(64, 256, low_bits, 64 - low_bits, 1, 8);
    const struct hpm_upc_params *p = hpm_upc_params_of(u);
    /* With 64 counters and 1 cycle per slot, service time is safe for low >= 6. */
    random_config(u, 0);
    hpm_upc_start(u);
    struct tl_ideal id;
    tl_ideal_init(&id, p->n_counters);
    uint8_t bias[256];
    for (int e = 0; e < 256; e++) bias[e] = (uint8_t)tl_below(256);
    uint64_t sig[4] = {0};
    for (uint32_t t = 0; t < cycles; t++) {
        random_signals(sig, 256, bias);
        if (t == cycles / 3) hpm_upc_stop(u);
        if (t == cycles / 2) hpm_upc_start(u);
        tl_ideal_cycle(&id, u, sig);
        CHECK(hpm_upc_step(u, sig) == HPM_UPC_OK);
        if (tl_below(97) == 0) {
            uint32_t c = tl_below(p->n_counters);
            uint64_t v = 0;
            CHECK(hpm_upc_read(u, c, &v) == HPM_UPC_OK);
            CHECK_EQ_U64(v, id.value[c]);
        }
    }
    for (uint32_t c = 0; c < p->n_counters; c++) {
        uint64_t v = 0;
        CHECK(hpm_upc_read(u, c, &v) == HPM_UPC_OK);
        CHECK_EQ_U64(v, id.value[c]);
        CHECK(hpm_upc_lost_carries(u, c) == 0);
    }
    CHECK(hpm_upc_cycle(u) == cycles);
    tl_ideal_free(&id);
    hpm_upc_destroy(u);
}

static void t_ideal_small(void) { test_ideal(6, 200000); }
static void t_ideal_bgp(void)
{
    /* BG/P widths with the default unit: counters far past 2^12. */
    struct hpm_upc *u = default_unit();
    random_config(u, 0);
    hpm_upc_start(u);
    struct tl_ideal id;
    tl_ideal_init(&id, 256);
    uint8_t bias[1024];
    for (int e = 0; e < 1024; e++) bias[e] = (uint8_t)(tl_below(2) ? 255 : tl_below(256));
    uint64_t sig[16] = {0};
    for (uint32_t t = 0; t < 60000; t++) {
        random_signals(sig, 1024, bias);
        tl_ideal_cycle(&id, u, sig);
        hpm_upc_step(u, sig);
    }
    for (uint32_t c = 0; c < 256; c++) {
        uint64_t v = 0;
        CHECK(hpm_upc_read(u, c, &v) == HPM_UPC_OK);
        CHECK_EQ_U64(v, id.value[c]);
    }
    tl_ideal_free(&id);
    hpm_upc_destroy(u);
}

static int notify_cmp(const void *x, const void *y)
{
    const struct hpm_upc_notify *a = x, *b = y;
    if (a->cycle != b->cycle) return a->cycle < b->cycle ? -1 : 1;
    if (a->counter != b->counter) return a->counter < b->counter ? -1 : 1;
    return (int)a->kind - (int)b->kind;
}

/* The stepped and the batched unit's notifications are the same; returns
 * the interrupts among them. Delivery is in cycle order within a call while
 * at most 4 notifications per counter are queued; an unsafe unit losing
 * carries queues more, so the logs are compared as ordered sets. */
static size_t logs_agree(struct tl_log *la, struct tl_log *lb)
{
    size_t irqs = 0;
    CHECK(la->n == lb->n);
    qsort(la->v, la->n, sizeof *la->v, notify_cmp);
    qsort(lb->v, lb->n, sizeof *lb->v, notify_cmp);
    for (size_t i = 0; i < la->n && i < lb->n; i++) {
        CHECK(la->v[i].kind == lb->v[i].kind);
        CHECK(la->v[i].counter == lb->v[i].counter);
        CHECK_EQ_U64(la->v[i].cycle, lb->v[i].cycle);
        irqs += la->v[i].kind == HPM_UPC_NOTIFY_IRQ;
    }
    return irqs;
}

/* Step and batch interfaces: identical state and notifications on random
 * batches, with thresholds armed and firing, in a safe and an unsafe unit. */
static void test_equivalence(uint32_t n, uint32_t inputs, uint32_t low, uint32_t slot, int iters)
{
    struct hpm_upc *a = make_unit(n, inputs, low, 20, slot, 4);
    struct hpm_upc *b = make_unit(n, inputs, low, 20, slot, 4);
    struct tl_log la = {0}, lb = {0};
    hpm_upc_set_notify(a, tl_log_fn, &la);
    hpm_upc_set_notify(b, tl_log_fn, &lb);
    uint64_t seed = tl_rng_state;
    random_config(a, 1);
    tl_rng_state = seed;
    random_config(b, 1);
    hpm_upc_set_threshold(a, 3);
    hpm_upc_set_threshold(b, 3);
    for (uint32_t c = 0; c < n; c += 3) {
        hpm_upc_set_counter_threshold(a, c, c % 7);
        hpm_upc_set_counter_threshold(b, c, c % 7);
    }
    hpm_upc_start(a);
    hpm_upc_start(b);
    uint32_t *counts = calloc(inputs, sizeof *counts);
    uint64_t *sig = calloc((inputs + 63) / 64, 8);
    for (int it = 0; it < iters; it++) {
        uint32_t len = 1 + tl_below(tl_below(4) == 0 ? 3000 : 90);
        for (uint32_t e = 0; e < inputs; e++) {
            uint32_t r = tl_below(4);
            counts[e] = r == 0 ? 0 : r == 1 ? len : tl_below(len + 1);
        }
        if (tl_below(50) == 0) {
            hpm_upc_set_threshold_mode(a, it & 1);
            hpm_upc_set_threshold_mode(b, it & 1);
        }
        if (tl_below(80) == 0) {
            if (hpm_upc_running(a)) { hpm_upc_stop(a); hpm_upc_stop(b); }
            else { hpm_upc_start(a); hpm_upc_start(b); }
        }
        for (uint32_t j = 0; j < len; j++) {
            tl_expand(sig, inputs, counts, j);
            hpm_upc_step(a, sig);
        }
        CHECK(hpm_upc_advance(b, len, counts) == HPM_UPC_OK);
        if (!tl_units_equal(a, b)) {
            CHECK(!"units differ");
            break;
        }
    }
    size_t irqs = logs_agree(&la, &lb);
    CHECK(irqs > 0); /* the test must exercise interrupts to mean anything */
    printf("equivalence n=%u low=%u slot=%u: %zu notifications (%zu interrupts)\n", n, low,
           slot, la.n, irqs);
    free(la.v);
    free(lb.v);
    free(counts);
    free(sig);
    hpm_upc_destroy(a);
    hpm_upc_destroy(b);
}

static void t_equiv_safe(void) { test_equivalence(32, 128, 7, 4, 3000); }
static void t_equiv_unsafe(void) { test_equivalence(32, 128, 5, 4, 3000); }

/* Threshold T: interrupt in exactly the cycle of the T-th event. */
static void threshold_case(int per_counter, uint64_t global_high, uint64_t T, uint32_t every,
                           int batched)
{
    struct hpm_upc *u = default_unit();
    struct tl_log log = {0};
    hpm_upc_set_notify(u, tl_log_fn, &log);
    const uint32_t c = 77;
    uint32_t ev;
    hpm_upc_input_event(u, c, 2, &ev);
    CHECK(hpm_upc_select_event(u, c, ev, HPM_UPC_LEVEL_HIGH, 0) == HPM_UPC_OK);
    hpm_upc_set_threshold_mode(u, per_counter);
    CHECK(hpm_upc_set_threshold(u, global_high) == HPM_UPC_OK);
    /* Let some time pass so the state machine is mid-rotation. */
    uint32_t counts[1024] = {0};
    hpm_upc_advance(u, 1234, counts);
    uint64_t preload = 0;
    CHECK(hpm_upc_program_threshold(u, c, T, &preload) == HPM_UPC_OK);
    hpm_upc_start(u);
    uint64_t start = hpm_upc_cycle(u);
    /* The event arrives in the first of every `every` cycles; the T-th comes in
     * cycle start + (T-1)*every. */
    uint64_t expected = start + (T - 1) * every;
    uint64_t total = T * every + 3 * 4096;
    uint64_t sig[16] = {0};
    for (uint64_t t = 0; t < total;) {
        if (batched) {
            uint32_t len = every;
            counts[ev] = 1;
            /* one event per `every` cycles, front-packed: high in the batch's first cycle */
            hpm_upc_advance(u, len, counts);
            t += len;
        } else {
            sig[ev / 64] = ((t % every) == 0) ? (1ull << (ev % 64)) : 0;
            hpm_upc_step(u, sig);
            t++;
        }
    }
    size_t irqs = 0;
    for (size_t i = 0; i < log.n; i++)
        if (log.v[i].kind == HPM_UPC_NOTIFY_IRQ) {
            irqs++;
            CHECK(log.v[i].counter == c);
            CHECK_EQ_U64(log.v[i].cycle, expected);
        }
    CHECK(irqs == 1);
    CHECK(hpm_upc_irq_pending(u, c));
    uint64_t v = 0;
    CHECK(hpm_upc_read(u, c, &v) == HPM_UPC_OK);
    CHECK_EQ_U64(v - preload, total / every);
    free(log.v);
    hpm_upc_destroy(u);
}

static void t_threshold(void)
{
    const uint64_t Ts[] = {1, 2, 100, 4095, 4096, 4097, 8192, 10000, 3 * 4096 + 5, 50000};
    for (size_t i = 0; i < sizeof Ts / sizeof Ts[0]; i++) {
        threshold_case(1, 0, Ts[i], 1, 0);
        threshold_case(1, 0, Ts[i], 1, 1);
        threshold_case(1, 0, Ts[i], 3, 0);
        threshold_case(1, 0, Ts[i], 3, 1);
        /* Global register: one compare value for all counters; the preload
         * takes up the difference. 13 * 4096 reaches every T above. */
        threshold_case(0, 12, Ts[i], 1, 0);
        threshold_case(0, 12, Ts[i], 2, 1);
    }
}

/* The preload arithmetic of section 5: 4096 n + m. */
static void t_preload(void)
{
    struct hpm_upc *u = default_unit();
    uint64_t preload = 0;
    hpm_upc_set_threshold_mode(u, 1);
    CHECK(hpm_upc_program_threshold(u, 5, 3 * 4096 + 100, &preload) == HPM_UPC_OK);
    CHECK_EQ_U64(preload, 4096 - 100);
    uint64_t thr = 0;
    struct hpm_upc_layout l;
    hpm_upc_layout_of(u, &l);
    CHECK(hpm_upc_mmio_read(u, l.counter_threshold + 5 * 8, &thr) == HPM_UPC_OK);
    CHECK_EQ_U64(thr, 3);
    CHECK(!hpm_upc_armed(u, 5));
    CHECK(hpm_upc_program_threshold(u, 6, 4096, &preload) == HPM_UPC_OK);
    CHECK_EQ_U64(preload, 0);
    CHECK(hpm_upc_armed(u, 6)); /* high part already matches: pre-armed */
    /* Global mode: the shared register reaches (H+1)*4096. */
    hpm_upc_set_threshold_mode(u, 0);
    hpm_upc_set_threshold(u, 1);
    CHECK(hpm_upc_program_threshold(u, 7, 8192, &preload) == HPM_UPC_OK);
    CHECK_EQ_U64(preload, 0);
    CHECK(hpm_upc_program_threshold(u, 7, 8193, &preload) == HPM_UPC_ERANGE);
    CHECK(hpm_upc_program_threshold(u, 7, 0, &preload) == HPM_UPC_ERANGE);
    hpm_upc_destroy(u);
}

static void t_mmio(void)
{
    struct hpm_upc *u = default_unit();
    struct hpm_upc_layout l;
    hpm_upc_layout_of(u, &l);
    /* Figure 5 offsets with the BG/P parameters. */
    CHECK(l.counters == 0x000);
    CHECK(l.config == 0x800);
    CHECK(l.config + 8 * (256 / 8 - 1) == 0x8F8);
    CHECK(l.start_stop == 0x900);
    CHECK(l.threshold == 0x910);
    uint64_t v = 0;
    /* Round trips. */
    CHECK(hpm_upc_mmio_write(u, 0x7F8, 0x123456789abcdefull) == HPM_UPC_OK);
    CHECK(hpm_upc_mmio_read(u, 0x7F8, &v) == HPM_UPC_OK);
    CHECK_EQ_U64(v, 0x123456789abcdefull);
    CHECK(hpm_upc_mmio_write(u, 0x7F8, ~0ull) == HPM_UPC_OK); /* 52 + 12 = 64 bits */
    CHECK(hpm_upc_mmio_read(u, 0x7F8, &v) == HPM_UPC_OK);
    CHECK_EQ_U64(v, ~0ull);
    uint64_t cfg = 0x1312111003020100ull; /* 8 fields: inputs, modes, one irq enable */
    CHECK(hpm_upc_mmio_write(u, 0x808, cfg) == HPM_UPC_OK);
    CHECK(hpm_upc_mmio_read(u, 0x808, &v) == HPM_UPC_OK);
    CHECK_EQ_U64(v, cfg);
    /* Counter 8 + 1 selects input 1, mode 0: event 9 + 256. */
    uint32_t counters[4];
    CHECK(hpm_upc_event_counters(u, 9 + 256, counters) == 1 && counters[0] == 9);
    CHECK(hpm_upc_mmio_write(u, 0x900, 1) == HPM_UPC_OK && hpm_upc_running(u));
    CHECK(hpm_upc_mmio_write(u, 0x900, 0) == HPM_UPC_OK && !hpm_upc_running(u));
    CHECK(hpm_upc_mmio_write(u, 0x910, (1ull << 52) - 1) == HPM_UPC_OK);
    CHECK(hpm_upc_mmio_read(u, 0x910, &v) == HPM_UPC_OK && v == (1ull << 52) - 1);
    CHECK(hpm_upc_mmio_write(u, l.counter_threshold + 8, 42) == HPM_UPC_OK);
    CHECK(hpm_upc_mmio_read(u, l.counter_threshold + 8, &v) == HPM_UPC_OK && v == 42);
    CHECK(hpm_upc_mmio_write(u, l.armed, 0x5) == HPM_UPC_OK);
    CHECK(hpm_upc_armed(u, 0) && !hpm_upc_armed(u, 1) && hpm_upc_armed(u, 2));

    /* Errors change nothing. */
    CHECK(hpm_upc_mmio_read(u, 0x804, &v) == HPM_UPC_EALIGN);
    CHECK(hpm_upc_mmio_write(u, 0x3, 1) == HPM_UPC_EALIGN);
    CHECK(hpm_upc_mmio_read(u, 0x908, &v) == HPM_UPC_EUNMAPPED);
    CHECK(hpm_upc_mmio_write(u, l.size, 1) == HPM_UPC_EUNMAPPED);
    CHECK(hpm_upc_mmio_write(u, l.size + 0x10000000ull, 1) == HPM_UPC_EUNMAPPED);
    CHECK(hpm_upc_mmio_write(u, 0x910, 1ull << 52) == HPM_UPC_ERANGE);
    CHECK(hpm_upc_mmio_read(u, 0x910, &v) == HPM_UPC_OK && v == (1ull << 52) - 1);
    CHECK(hpm_upc_mmio_write(u, 0x808, cfg | 0x20) == HPM_UPC_ERESERVED);
    CHECK(hpm_upc_mmio_read(u, 0x808, &v) == HPM_UPC_OK && v == cfg);
    CHECK(hpm_upc_mmio_write(u, 0x900, 2) == HPM_UPC_ERESERVED && !hpm_upc_running(u));
    CHECK(hpm_upc_mmio_write(u, l.status, 0) == HPM_UPC_EREADONLY);
    CHECK(hpm_upc_mmio_write(u, l.cycle, 0) == HPM_UPC_EREADONLY);
    CHECK(hpm_upc_mmio_write(u, l.carry, 0) == HPM_UPC_EREADONLY);
    hpm_upc_destroy(u);

    /* A unit whose counters do not fill 64 bits rejects wide values. */
    u = make_unit(100, 400, 12, 20, 16, 4);
    hpm_upc_layout_of(u, &l);
    CHECK(hpm_upc_mmio_write(u, 8, 1ull << 32) == HPM_UPC_ERANGE);
    CHECK(hpm_upc_mmio_write(u, l.armed + 8, 1ull << 40) == HPM_UPC_ERESERVED); /* only 36 */
    hpm_upc_destroy(u);
}

static void t_parity(void)
{
    struct hpm_upc *u = default_unit();
    struct tl_log log = {0};
    hpm_upc_set_notify(u, tl_log_fn, &log);
    uint64_t v = 0;
    CHECK(hpm_upc_write(u, 3, 5 * 4096 + 7) == HPM_UPC_OK);
    CHECK(hpm_upc_read(u, 3, &v) == HPM_UPC_OK && v == 5 * 4096 + 7);
    CHECK(hpm_upc_inject_parity_fault(u, 3, 1) == HPM_UPC_OK);
    v = 99;
    CHECK(hpm_upc_read(u, 3, &v) == HPM_UPC_EPARITY);
    CHECK(v == 99); /* never a silently wrong value */
    CHECK(hpm_upc_status(u) & HPM_UPC_STATUS_PARITY);
    CHECK(log.n == 1 && log.v[0].kind == HPM_UPC_NOTIFY_PARITY && log.v[0].counter == 3);
    struct hpm_upc_layout l;
    hpm_upc_layout_of(u, &l);
    CHECK(hpm_upc_mmio_read(u, 3 * 8, &v) == HPM_UPC_EPARITY);
    /* The state machine keeps the word poisoned when it adds a carry. */
    hpm_upc_configure(u, 3, 0, HPM_UPC_LEVEL_HIGH, 0);
    hpm_upc_start(u);
    uint32_t counts[1024] = {0};
    counts[3] = 4096;
    CHECK(hpm_upc_advance(u, 4096, counts) == HPM_UPC_OK);
    counts[3] = 0;
    CHECK(hpm_upc_advance(u, 4096, counts) == HPM_UPC_OK);
    CHECK(hpm_upc_read(u, 3, &v) == HPM_UPC_EPARITY);
    /* Flipping the parity bit itself is detected too; rewriting heals. */
    CHECK(hpm_upc_write(u, 4, 1) == HPM_UPC_OK);
    CHECK(hpm_upc_inject_parity_fault(u, 4, 52) == HPM_UPC_OK);
    CHECK(hpm_upc_read(u, 4, &v) == HPM_UPC_EPARITY);
    CHECK(hpm_upc_write(u, 4, 10) == HPM_UPC_OK);
    CHECK(hpm_upc_read(u, 4, &v) == HPM_UPC_OK && v == 10);
    CHECK(hpm_upc_inject_parity_fault(u, 4, 53) == HPM_UPC_ERANGE);
    /* Clearing the status bitmap (write 1 to clear). */
    CHECK(hpm_upc_mmio_write(u, l.parity_error, 1ull << 3 | 1ull << 4) == HPM_UPC_OK);
    CHECK(hpm_upc_mmio_read(u, l.parity_error, &v) == HPM_UPC_OK && v == 0);
    free(log.v);
    hpm_upc_destroy(u);
}

/* 512 counters x 16 cycles with 12 low bits: the machine cannot keep up. */
static void t_lost_carry(void)
{
    struct hpm_upc_params p = {512, 2048, 12, 52, 16, 8};
    CHECK(!hpm_upc_service_time_ok(&p));
    struct hpm_upc_params d;
    hpm_upc_params_default(&d);
    CHECK(hpm_upc_service_time_ok(&d));
    struct hpm_upc *u = make_unit(512, 2048, 12, 52, 16, 8);
    CHECK(hpm_upc_status(u) & HPM_UPC_STATUS_SERVICE_UNSAFE);
    struct tl_log log = {0};
    hpm_upc_set_notify(u, tl_log_fn, &log);
    hpm_upc_start(u);
    uint32_t *counts = calloc(2048, sizeof *counts);
    for (uint32_t e = 0; e < 512; e++) counts[e] = 1000; /* every counter, 1000/1000 cycles */
    uint64_t total = 0;
    for (int i = 0; i < 100; i++) {
        CHECK(hpm_upc_advance(u, 1000, counts) == HPM_UPC_OK);
        total += 1000;
    }
    uint64_t lost_all = 0;
    for (uint32_t c = 0; c < 512; c++) {
        uint64_t v = 0;
        int rc = hpm_upc_read(u, c, &v);
        uint64_t lost = hpm_upc_lost_carries(u, c);
        lost_all += lost;
        CHECK(rc == (lost ? HPM_UPC_ELOSTCARRY : HPM_UPC_OK));
        /* Hardware value plus the reported loss is the true count. */
        CHECK_EQ_U64(v + (lost << 12), total);
    }
    CHECK(lost_all > 0);
    size_t notified = 0;
    for (size_t i = 0; i < log.n; i++) notified += log.v[i].kind == HPM_UPC_NOTIFY_LOST_CARRY;
    CHECK(notified == lost_all);
    CHECK(hpm_upc_status(u) & HPM_UPC_STATUS_LOST_CARRY);
    printf("lost carries: %llu over 512 counters\n", (unsigned long long)lost_all);
    free(counts);
    free(log.v);
    hpm_upc_destroy(u);
}

static void t_bad_input(void)
{
    struct hpm_upc *u = default_unit();
    uint64_t v = 0;
    CHECK(hpm_upc_configure(u, 256, 0, 0, 0) == HPM_UPC_ECOUNTER);
    CHECK(hpm_upc_configure(u, 0, 4, 0, 0) == HPM_UPC_EINPUT);
    CHECK(hpm_upc_configure(u, 0, 0, 4, 0) == HPM_UPC_EMODE);
    CHECK(hpm_upc_configure(u, 0, 0, -1, 0) == HPM_UPC_EMODE);
    CHECK(hpm_upc_select_event(u, 0, 1024, 0, 0) == HPM_UPC_EEVENT);
    CHECK(hpm_upc_select_event(u, 0, 1, 0, 0) == HPM_UPC_EINPUT); /* event 1 is counter 1's */
    CHECK(hpm_upc_select_event(u, 0, 768, 0, 0) == HPM_UPC_OK);   /* bank 3 */
    CHECK(hpm_upc_read(u, 256, &v) == HPM_UPC_ECOUNTER);
    CHECK(hpm_upc_write(u, 300, 1) == HPM_UPC_ECOUNTER);
    CHECK(hpm_upc_read(u, 0, NULL) == HPM_UPC_ENULL);
    uint32_t counts[1024] = {0};
    hpm_upc_start(u);
    counts[768] = 5;
    CHECK(hpm_upc_advance(u, 10, counts) == HPM_UPC_OK);
    counts[768] = 11; /* more events than cycles */
    CHECK(hpm_upc_advance(u, 10, counts) == HPM_UPC_ERANGE);
    CHECK(hpm_upc_cycle(u) == 10);
    CHECK(hpm_upc_read(u, 0, &v) == HPM_UPC_OK && v == 5);
    CHECK(hpm_upc_advance(u, 10, NULL) == HPM_UPC_ENULL);
    struct hpm_upc_params bad = {256, 1024, 12, 52, 16, 7}; /* 256 % 7 != 0 */
    CHECK(hpm_upc_params_check(&bad) == HPM_UPC_EPARAM);
    bad.group_size = 8;
    bad.low_bits = 40;
    CHECK(hpm_upc_params_check(&bad) == HPM_UPC_EPARAM);
    struct hpm_upc *w = NULL;
    CHECK(hpm_upc_create(&w, &bad) == HPM_UPC_EPARAM && w == NULL);
    char small[64];
    struct hpm_upc_params ok;
    hpm_upc_params_default(&ok);
    CHECK(hpm_upc_init(&w, &ok, small, sizeof small) == HPM_UPC_ENOMEM);
    CHECK(strcmp(hpm_upc_strerror(HPM_UPC_EPARITY), "unknown error") != 0);
    CHECK(strcmp(hpm_upc_strerror(-99), "unknown error") == 0);
    hpm_upc_destroy(u);
}

/* A sparse batch (only the listed inputs have events) ends where the dense
 * one does: same registers, same notifications. Counters 0..63 watch one of
 * their four inputs, a few with thresholds; the rest keep the reset
 * selection (input c), as the tool's unused counters do. */
static void t_sparse_batches(void)
{
    struct hpm_upc *d = default_unit(), *s = default_unit();
    struct tl_log ld = {0}, ls = {0};
    hpm_upc_set_notify(d, tl_log_fn, &ld);
    hpm_upc_set_notify(s, tl_log_fn, &ls);
    for (uint32_t c = 0; c < 64; c++) {
        uint32_t ev = c + 256 * (c % 4);
        CHECK(hpm_upc_select_event(d, c, ev, HPM_UPC_LEVEL_HIGH, 0) == HPM_UPC_OK);
        CHECK(hpm_upc_select_event(s, c, ev, HPM_UPC_LEVEL_HIGH, 0) == HPM_UPC_OK);
    }
    for (uint32_t c = 0; c < 64; c += 9) {
        uint64_t pd = 0, ps = 0;
        CHECK(hpm_upc_program_threshold(d, c, 3000 + c, &pd) == HPM_UPC_OK);
        CHECK(hpm_upc_program_threshold(s, c, 3000 + c, &ps) == HPM_UPC_OK && pd == ps);
    }
    hpm_upc_start(d);
    hpm_upc_start(s);
    static uint32_t counts[1024];
    uint32_t list[1024], seed = 12345;
    for (int batch = 0; batch < 2000; batch++) {
        uint32_t cycles = 1 + batch % 700, n = 0;
        memset(counts, 0, sizeof counts);
        for (uint32_t e = 0; e < 1024; e++) {
            seed = seed * 1103515245u + 12345u;
            if ((seed >> 16) % 16 == 0) {
                counts[e] = (seed >> 4) % (cycles + 1);
                list[n++] = e;
            }
        }
        CHECK(hpm_upc_advance(d, cycles, counts) == HPM_UPC_OK);
        CHECK(hpm_upc_advance_sparse(s, cycles, counts, list, n) == HPM_UPC_OK);
    }
    CHECK(tl_units_equal(d, s));
    CHECK(ld.n == ls.n && ld.n > 0 && memcmp(ld.v, ls.v, ld.n * sizeof *ld.v) == 0);
    /* a bad count changes nothing, as in the dense call (counter 4 selects
     * input 4) */
    memset(counts, 0, sizeof counts);
    counts[4] = 1000;
    list[0] = 4;
    CHECK(hpm_upc_advance_sparse(s, 10, counts, list, 1) == HPM_UPC_ERANGE);
    CHECK(hpm_upc_advance(d, 10, counts) == HPM_UPC_ERANGE);
    CHECK(tl_units_equal(d, s));
    list[0] = 1024;
    CHECK(hpm_upc_advance_sparse(s, 10, counts, list, 1) == HPM_UPC_EEVENT);
    CHECK(hpm_upc_advance_sparse(s, 10, counts, NULL, 1) == HPM_UPC_ENULL);
    hpm_upc_destroy(d);
    hpm_upc_destroy(s);
    free(ld.v);
    free(ls.v);
}

/* Sparse batches against the same signals stepped cycle by cycle, as the
 * tool feeds its units: a few counters programmed (level high, some with
 * thresholds), the rest idle, short batches (where the visits go to the
 * counters that moved or hold a carry only) mixed with long ones and dense
 * ones, and between them stores, preloads, parity faults and stops, which
 * change what a batch must visit. Identical registers after every batch,
 * the same notifications. */
static void t_sparse_step(void)
{
    const uint32_t n = 32, inputs = 128;
    struct hpm_upc *a = make_unit(n, inputs, 7, 20, 4, 4);
    struct hpm_upc *b = make_unit(n, inputs, 7, 20, 4, 4);
    struct tl_log la = {0}, lb = {0};
    hpm_upc_set_notify(a, tl_log_fn, &la);
    hpm_upc_set_notify(b, tl_log_fn, &lb);
    for (uint32_t c = 0; c < 12; c++) {
        uint32_t in = tl_below(4);
        int irq = c % 4 == 0;
        CHECK(hpm_upc_configure(a, c, in, HPM_UPC_LEVEL_HIGH, irq) == HPM_UPC_OK);
        CHECK(hpm_upc_configure(b, c, in, HPM_UPC_LEVEL_HIGH, irq) == HPM_UPC_OK);
    }
    hpm_upc_set_threshold(a, 5);
    hpm_upc_set_threshold(b, 5);
    hpm_upc_start(a);
    hpm_upc_start(b);
    uint32_t counts[128], list[128];
    uint64_t sig[2];
    uint32_t shorts = 0;
    for (int it = 0; it < 6000; it++) {
        uint32_t r = tl_below(20);
        uint32_t len = 1 + (r == 0 ? tl_below(3000) : tl_below(300)), nl = 0;
        memset(counts, 0, sizeof counts);
        for (uint32_t e = 0; e < inputs; e++) {
            if (tl_below(8) != 0) continue;
            uint32_t q = tl_below(3);
            counts[e] = q == 0 ? len : q == 1 ? tl_below(len + 1) : 0;
            list[nl++] = e; /* listed with no events too */
        }
        switch (tl_below(60)) {
        case 0: { /* a store: no carry pending after it */
            uint32_t c = tl_below(n);
            uint64_t v = tl_rand() & ((1ull << 27) - 1);
            CHECK(hpm_upc_write(a, c, v) == HPM_UPC_OK && hpm_upc_write(b, c, v) == HPM_UPC_OK);
            break;
        }
        case 1: { /* a preload with its threshold */
            uint32_t c = tl_below(n);
            uint64_t pa = 0, pb = 0, ev = 1 + tl_below(5000);
            int ra = hpm_upc_program_threshold(a, c, ev, &pa);
            CHECK(ra == hpm_upc_program_threshold(b, c, ev, &pb) && pa == pb);
            break;
        }
        case 2: {
            uint32_t c = tl_below(n), bit = tl_below(21);
            CHECK(hpm_upc_inject_parity_fault(a, c, bit) == HPM_UPC_OK);
            CHECK(hpm_upc_inject_parity_fault(b, c, bit) == HPM_UPC_OK);
            break;
        }
        case 3:
            if (hpm_upc_running(a)) { hpm_upc_stop(a); hpm_upc_stop(b); }
            else { hpm_upc_start(a); hpm_upc_start(b); }
            break;
        default:
            break;
        }
        for (uint32_t j = 0; j < len; j++) {
            tl_expand(sig, inputs, counts, j);
            hpm_upc_step(a, sig);
        }
        if (tl_below(30) == 0) {
            CHECK(hpm_upc_advance(b, len, counts) == HPM_UPC_OK);
        } else {
            CHECK(hpm_upc_advance_sparse(b, len, counts, list, nl) == HPM_UPC_OK);
            shorts += len <= 2 * n * 4;
        }
        if (!tl_units_equal(a, b)) {
            fprintf(stderr, "after batch %d (%u cycles)\n", it, len);
            CHECK(!"units differ");
            break;
        }
    }
    size_t irqs = logs_agree(&la, &lb);
    CHECK(irqs > 0);
    CHECK(shorts > 1000);
    printf("sparse against steps: %u short sparse batches, %zu notifications (%zu interrupts)\n",
           shorts, la.n, irqs);
    free(la.v);
    free(lb.v);
    hpm_upc_destroy(a);
    hpm_upc_destroy(b);
}

/* Modes on a hand-made signal: 0 1 1 0 1 0 0 1 1 1. */
static void t_modes(void)
{
    const int pattern[10] = {0, 1, 1, 0, 1, 0, 0, 1, 1, 1};
    const uint64_t expect[4] = {6, 4, 3, 2};
    struct hpm_upc *u = default_unit();
    for (uint32_t m = 0; m < 4; m++) CHECK(hpm_upc_select_event(u, m, m, (int)m, 0) == 0);
    hpm_upc_start(u);
    uint64_t sig[16] = {0};
    for (int t = 0; t < 10; t++) {
        sig[0] = pattern[t] ? 0xf : 0;
        hpm_upc_step(u, sig);
    }
    for (uint32_t m = 0; m < 4; m++) {
        uint64_t v = 0;
        CHECK(hpm_upc_read(u, m, &v) == HPM_UPC_OK);
        CHECK_EQ_U64(v, expect[m]);
    }
    hpm_upc_destroy(u);
}

/* Batches given as pulses (hpm_upc_advance_signals) against the same
 * signals stepped cycle by cycle: identical state and notifications, every
 * mode, thresholds firing, in a safe and an unsafe unit. */
static void test_signals_equivalence(uint32_t low, int iters)
{
    const uint32_t n = 32, inputs = 128;
    struct hpm_upc *a = make_unit(n, inputs, low, 20, 4, 4);
    struct hpm_upc *b = make_unit(n, inputs, low, 20, 4, 4);
    struct tl_log la = {0}, lb = {0};
    hpm_upc_set_notify(a, tl_log_fn, &la);
    hpm_upc_set_notify(b, tl_log_fn, &lb);
    uint64_t seed = tl_rng_state;
    random_config(a, 1);
    tl_rng_state = seed;
    random_config(b, 1);
    hpm_upc_set_threshold(a, 2);
    hpm_upc_set_threshold(b, 2);
    hpm_upc_start(a);
    hpm_upc_start(b);
    uint32_t counts[128], pulses[128], list[128];
    uint64_t sig[2];
    uint64_t edges = 0;
    for (int it = 0; it < iters; it++) {
        uint32_t len = 1 + tl_below(tl_below(4) == 0 ? 3000 : 90), nl = 0;
        for (uint32_t e = 0; e < inputs; e++) {
            uint32_t r = tl_below(5);
            counts[e] = r == 0 ? 0 : r == 1 ? len : tl_below(len + 1);
            uint32_t most = tl_pulses_fit(counts[e], len);
            pulses[e] = most <= 1 ? most : tl_below(3) == 0 ? most : 1 + tl_below(most);
            edges += pulses[e];
            if (counts[e] || tl_below(3) == 0) list[nl++] = e;
        }
        if (tl_below(80) == 0) {
            if (hpm_upc_running(a)) { hpm_upc_stop(a); hpm_upc_stop(b); }
            else { hpm_upc_start(a); hpm_upc_start(b); }
        }
        if (tl_below(200) == 0) { /* reconfiguring restarts edge detectors */
            uint32_t c = tl_below(n), in = tl_below(4);
            int m = (int)tl_below(4);
            CHECK(hpm_upc_configure(a, c, in, m, 1) == HPM_UPC_OK);
            CHECK(hpm_upc_configure(b, c, in, m, 1) == HPM_UPC_OK);
        }
        for (uint32_t j = 0; j < len; j++) {
            tl_expand_pulses(sig, inputs, counts, pulses, j);
            hpm_upc_step(a, sig);
        }
        CHECK(hpm_upc_advance_signals(b, len, counts, pulses, list, nl) == HPM_UPC_OK);
        if (!tl_units_equal(a, b)) {
            CHECK(!"units differ");
            break;
        }
    }
    size_t irqs = logs_agree(&la, &lb);
    CHECK(irqs > 0);
    printf("signals low=%u: %llu pulses, %zu notifications (%zu interrupts)\n", low,
           (unsigned long long)edges, la.n, irqs);
    free(la.v);
    free(lb.v);
    hpm_upc_destroy(a);
    hpm_upc_destroy(b);
}

static void t_signals_safe(void) { test_signals_equivalence(7, 3000); }
static void t_signals_unsafe(void) { test_signals_equivalence(5, 3000); }

/* One signal in all four modes: level-high + level-low is every cycle, a
 * rising edge per pulse (one pulse that goes on across batches is one),
 * a falling edge per pulse that ended. */
static void t_signals_modes(void)
{
    struct hpm_upc *u = default_unit();
    /* an input reaches one counter of a BG/P unit: the same signal is fed
     * on inputs 5 to 8, counted by counters 5 to 8 in the four modes */
    for (uint32_t m = 0; m < 4; m++) CHECK(hpm_upc_select_event(u, 5 + m, 5 + m, (int)m, 0) == 0);
    hpm_upc_start(u);
    static uint32_t counts[1024], pulses[1024];
    uint32_t list[4] = {5, 6, 7, 8};
    /* batch (cycles, high, pulses): 3 episodes; a batch wholly high that
     * continues the previous one's last pulse (no new edge); quiet; 5 */
    const uint32_t b[][3] = {{100, 30, 3}, {50, 50, 1}, {20, 0, 0}, {40, 10, 5}, {7, 4, 4}};
    uint64_t cycles = 0, high = 0;
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) {
        for (uint32_t e = 5; e < 9; e++) {
            counts[e] = b[i][1];
            pulses[e] = b[i][2];
        }
        CHECK(hpm_upc_advance_signals(u, b[i][0], counts, pulses, list, 4) == HPM_UPC_OK);
        cycles += b[i][0];
        high += b[i][1];
    }
    uint64_t v[4];
    for (uint32_t m = 0; m < 4; m++) CHECK(hpm_upc_read(u, 5 + m, &v[m]) == HPM_UPC_OK);
    CHECK_EQ_U64(v[HPM_UPC_LEVEL_HIGH], high);
    CHECK_EQ_U64(v[HPM_UPC_LEVEL_HIGH] + v[HPM_UPC_LEVEL_LOW], cycles);
    /* batch 1 ends low (30 + 3 - 1 < 100); batch 2 starts a pulse and ends
     * high; batch 3 falls at its cycle 0; batch 5 ends high (4+4-1 = 7) */
    CHECK_EQ_U64(v[HPM_UPC_EDGE_RISE], 3 + 1 + 5 + 4);
    CHECK_EQ_U64(v[HPM_UPC_EDGE_FALL], 3 + 1 + 5 + 3);
    /* a signal that does not fit changes nothing */
    uint64_t before = hpm_upc_cycle(u);
    counts[5] = 10;
    pulses[5] = 11; /* more pulses than high cycles */
    CHECK(hpm_upc_advance_signals(u, 30, counts, pulses, list, 1) == HPM_UPC_ERANGE);
    pulses[5] = 6; /* 10 + 6 - 1 > 12 cycles */
    CHECK(hpm_upc_advance_signals(u, 12, counts, pulses, list, 1) == HPM_UPC_ERANGE);
    counts[5] = 0;
    pulses[5] = 1; /* a pulse without a high cycle */
    CHECK(hpm_upc_advance_signals(u, 12, counts, pulses, list, 1) == HPM_UPC_ERANGE);
    CHECK(hpm_upc_advance_signals(u, 12, counts, NULL, list, 1) == HPM_UPC_ENULL);
    CHECK_EQ_U64(hpm_upc_cycle(u), before);
    uint64_t again;
    CHECK(hpm_upc_read(u, 7, &again) == HPM_UPC_OK);
    CHECK_EQ_U64(again, v[HPM_UPC_EDGE_RISE]);
    hpm_upc_destroy(u);
}

struct named_test {
    const char *name;
    void (*fn)(void);
};

/* hpm_upc_batch_sums_only: 1 exactly while the unit counts with every
 * counter level high, no interrupt enabled and the service time safe; then
 * batches fed one by one and one batch of their sums (counts and cycles)
 * leave every counter's value and the cycle equal. */
static void t_sums_only(void)
{
    struct hpm_upc *a = default_unit(), *b = default_unit();
    const struct hpm_upc_params params = *hpm_upc_params_of(a), *p = &params;
    uint32_t *counts = calloc(p->n_inputs, sizeof *counts);
    uint32_t *sum = calloc(p->n_inputs, sizeof *sum);
    uint32_t c;
    CHECK(counts && sum);
    for (c = 0; c < p->n_counters; c++) {
        CHECK(hpm_upc_configure(a, c, c % 4, HPM_UPC_LEVEL_HIGH, 0) == HPM_UPC_OK);
        CHECK(hpm_upc_configure(b, c, c % 4, HPM_UPC_LEVEL_HIGH, 0) == HPM_UPC_OK);
    }
    CHECK(hpm_upc_batch_sums_only(a) == 0); /* stopped */
    hpm_upc_start(a);
    hpm_upc_start(b);
    CHECK(hpm_upc_batch_sums_only(a) == 1);
    /* a: many short batches that roll the low-order counters over, with
     * carries pending across them; b: their sums at once */
    uint64_t cycles = 0;
    for (int k = 0; k < 200; k++) {
        uint32_t n = 50 + tl_below(400);
        for (uint32_t e = 0; e < p->n_inputs; e++) {
            counts[e] = tl_below(3) ? tl_below(n + 1) : 0;
            sum[e] += counts[e];
        }
        CHECK(hpm_upc_advance(a, n, counts) == HPM_UPC_OK);
        cycles += n;
    }
    CHECK(hpm_upc_advance(b, (uint32_t)cycles, sum) == HPM_UPC_OK);
    CHECK(hpm_upc_cycle(a) == hpm_upc_cycle(b));
    for (c = 0; c < p->n_counters; c++) {
        uint64_t va = 0, vb = 0;
        CHECK(hpm_upc_read(a, c, &va) == HPM_UPC_OK && hpm_upc_read(b, c, &vb) == HPM_UPC_OK);
        CHECK(va == vb && va > 0);
    }
    /* what a batch's timing reaches: an edge mode, an interrupt */
    CHECK(hpm_upc_configure(a, 5, 1, HPM_UPC_EDGE_RISE, 0) == HPM_UPC_OK);
    CHECK(hpm_upc_batch_sums_only(a) == 0);
    CHECK(hpm_upc_configure(a, 5, 1, HPM_UPC_LEVEL_HIGH, 1) == HPM_UPC_OK);
    CHECK(hpm_upc_batch_sums_only(a) == 0);
    CHECK(hpm_upc_configure(a, 5, 1, HPM_UPC_LEVEL_HIGH, 0) == HPM_UPC_OK);
    CHECK(hpm_upc_batch_sums_only(a) == 1);
    hpm_upc_destroy(a);
    hpm_upc_destroy(b);
    /* a design that cannot service every entry in time */
    a = make_unit(p->n_counters, p->n_inputs, 4, 60, 64, p->group_size);
    hpm_upc_start(a);
    CHECK(hpm_upc_batch_sums_only(a) == 0);
    hpm_upc_destroy(a);
    free(counts);
    free(sum);
}

static const struct named_test tests[] = {
    {"ideal_small", t_ideal_small}, {"ideal_bgp", t_ideal_bgp},
    {"equiv_safe", t_equiv_safe},   {"equiv_unsafe", t_equiv_unsafe},
    {"threshold", t_threshold},     {"preload", t_preload},
    {"mmio", t_mmio},               {"parity", t_parity},
    {"lost_carry", t_lost_carry},   {"bad_input", t_bad_input},
    {"modes", t_modes},             {"sparse", t_sparse_batches},
    {"sparse_step", t_sparse_step},
    {"signals_safe", t_signals_safe}, {"signals_unsafe", t_signals_unsafe},
    {"signals_modes", t_signals_modes}, {"sums_only", t_sums_only},
};

int main(int argc, char **argv)
{
    int ran = 0;
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        if (argc > 1 && strcmp(argv[1], tests[i].name) != 0) continue;
        tests[i].fn();
        ran++;
    }
    if (!ran) {
        fprintf(stderr, "unknown test '%s'\n", argc > 1 ? argv[1] : "");
        return 2;
    }
    if (tl_failures) fprintf(stderr, "%d check(s) failed\n", tl_failures);
    return tl_failures ? 1 : 0;
}
