/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target for the UPC model: random parameters, register writes,
 * configuration, thresholds, parity faults and event streams, applied to two
 * units, one fed cycle by cycle (hpm_upc_step) and one in batches
 * (hpm_upc_advance, hpm_upc_advance_sparse given the inputs that have
 * events, or hpm_upc_advance_signals given them as pulses). Invariants checked after every operation: the two units
 * agree on every register and notification; every counter without a parity
 * fault equals an ideal 64-bit counter (plus its reported lost carries).
 */
#include "upc_testlib.h"

struct fuzz_in {
    const uint8_t *p;
    size_t n;
};

static uint32_t take(struct fuzz_in *in, uint32_t below)
{
    uint32_t v = 0;
    for (int i = 0; i < 2 && in->n; i++, in->p++, in->n--) v = v << 8 | *in->p;
    return below ? v % below : v;
}

static void die(const char *what)
{
    fprintf(stderr, "fuzz_upc: invariant broken: %s\n", what);
    abort();
}

struct world {
    struct hpm_upc *a, *b;
    struct tl_ideal id;
    struct tl_log la, lb;
    uint8_t *faulted;
    uint32_t n, inputs;
    uint64_t mask; /* low_bits + high_bits */
};

static void snapshot_config(struct world *w, uint32_t *ev, int *mode)
{
    for (uint32_t c = 0; c < w->n; c++) tl_counter_config(w->a, c, &ev[c], &mode[c]);
}

/* After a configuration change, the ideal edge detector restarts low too. */
static void sync_config(struct world *w, const uint32_t *ev0, const int *mode0)
{
    for (uint32_t c = 0; c < w->n; c++) {
        uint32_t e;
        int m;
        tl_counter_config(w->a, c, &e, &m);
        if (e != ev0[c] || m != mode0[c]) w->id.prev[c] = 0;
    }
}

static void check(struct world *w)
{
    if (!tl_units_equal(w->a, w->b)) die("step and batch units differ");
    if (w->la.n != w->lb.n) die("notification counts differ");
    const struct hpm_upc_params *p = hpm_upc_params_of(w->a);
    for (uint32_t c = 0; c < w->n; c++) {
        if (w->faulted[c]) continue;
        uint64_t v = 0;
        int rc = hpm_upc_read(w->a, c, &v);
        if (rc != HPM_UPC_OK && rc != HPM_UPC_ELOSTCARRY) die("read failed");
        uint64_t lost = hpm_upc_lost_carries(w->a, c);
        if (((v + (lost << p->low_bits)) & w->mask) != (w->id.value[c] & w->mask))
            die("counter differs from the ideal counter");
    }
}

/* Unit b's batch: dense, sparse, or sparse with pulses (front-packed in
 * the first two: pulses[e] is then 1 for every input with events). */
static int batch(struct world *w, uint32_t how, uint32_t len, const uint32_t *counts,
                 const uint32_t *pulses, const uint32_t *list, uint32_t n_list)
{
    if (how == 0) return hpm_upc_advance(w->b, len, counts);
    if (how == 1) return hpm_upc_advance_sparse(w->b, len, counts, list, n_list);
    return hpm_upc_advance_signals(w->b, len, counts, pulses, list, n_list);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = {data, size};
    static const uint32_t groups[] = {1, 2, 4, 8};
    struct hpm_upc_params p;
    p.group_size = groups[take(&in, 4)];
    p.n_counters = p.group_size * (1 + take(&in, 8));
    p.n_inputs = 1 + take(&in, 4 * p.n_counters + 8);
    p.low_bits = 2 + take(&in, 8);
    p.high_bits = 1 + take(&in, 64 - p.low_bits);
    p.cycles_per_slot = 1 + take(&in, 6);
    if (hpm_upc_params_check(&p) != HPM_UPC_OK) return 0;

    struct world w = {0};
    if (hpm_upc_create(&w.a, &p) || hpm_upc_create(&w.b, &p)) abort();
    w.n = p.n_counters;
    w.inputs = p.n_inputs;
    w.mask = p.low_bits + p.high_bits >= 64 ? ~0ull : (1ull << (p.low_bits + p.high_bits)) - 1;
    tl_ideal_init(&w.id, w.n);
    w.faulted = calloc(w.n, 1);
    hpm_upc_set_notify(w.a, tl_log_fn, &w.la);
    hpm_upc_set_notify(w.b, tl_log_fn, &w.lb);
    uint32_t *counts = calloc(w.inputs, sizeof *counts);
    uint32_t *list = calloc(w.inputs, sizeof *list);
    uint32_t *pulses = calloc(w.inputs, sizeof *pulses);
    uint64_t *sig = calloc((w.inputs + 63) / 64, 8);
    uint32_t *ev0 = calloc(w.n, sizeof *ev0);
    int *mode0 = calloc(w.n, sizeof *mode0);
    struct hpm_upc_layout l;
    hpm_upc_layout_of(w.a, &l);

    const int trace = getenv("HPM_FUZZ_TRACE") != NULL;
    if (trace)
        fprintf(stderr, "params n=%u inputs=%u low=%u high=%u slot=%u group=%u\n", p.n_counters,
                p.n_inputs, p.low_bits, p.high_bits, p.cycles_per_slot, p.group_size);
    for (int ops = 0; in.n && ops < 200; ops++) {
        uint32_t op = take(&in, 7);
        uint32_t c = take(&in, w.n + 1); /* one past the end: out-of-range inputs too */
        if (trace) fprintf(stderr, "op %u counter %u cycle %llu\n", op, c,
                           (unsigned long long)hpm_upc_cycle(w.a));
        switch (op) {
        case 0: { /* configure */
            uint32_t input = take(&in, 5), irq = take(&in, 2);
            int mode = (int)take(&in, 5);
            snapshot_config(&w, ev0, mode0);
            int ra = hpm_upc_configure(w.a, c, input, mode, (int)irq);
            int rb = hpm_upc_configure(w.b, c, input, mode, (int)irq);
            if (ra != rb) die("configure results differ");
            sync_config(&w, ev0, mode0);
            break;
        }
        case 1: { /* register write anywhere, aligned or not */
            uint64_t off = take(&in, l.size + 64);
            if (take(&in, 4)) off &= ~7ull;
            uint64_t v = (uint64_t)take(&in, 0) << 48 | (uint64_t)take(&in, 0) << 16 | take(&in, 0);
            snapshot_config(&w, ev0, mode0);
            int ra = hpm_upc_mmio_write(w.a, off, v), rb = hpm_upc_mmio_write(w.b, off, v);
            if (ra != rb) die("register write results differ");
            sync_config(&w, ev0, mode0);
            if (ra == HPM_UPC_OK && off < l.config) {
                w.id.value[off / 8] = v;
                w.faulted[off / 8] = 0;
            }
            break;
        }
        case 2: { /* a batch of cycles */
            uint32_t len = 1 + take(&in, 70);
            /* sparse: most inputs quiet, the others listed (in input order,
             * with some quiet ones among them) */
            /* 0: dense, 1: sparse, 2: sparse with pulses (signals) */
            uint32_t sparse = take(&in, 3), n_list = 0;
            for (uint32_t e = 0; e < w.inputs; e++) {
                counts[e] = sparse && take(&in, 4) ? 0 : take(&in, len + 1);
                uint32_t most = tl_pulses_fit(counts[e], len);
                pulses[e] = sparse < 2 || most <= 1 ? most != 0 : 1 + take(&in, most);
                if (counts[e] || (sparse && take(&in, 8) == 0)) list[n_list++] = e;
            }
            if (take(&in, 16) == 0) { /* an invalid batch changes nothing */
                uint32_t e;     /* only inputs some counter selects are read */
                int m;
                tl_counter_config(w.a, take(&in, w.n), &e, &m);
                uint32_t j = 0;
                while (j < n_list && list[j] != e) j++;
                if (j == n_list) list[n_list++] = e;
                counts[e] = len + 1;
                if (sparse == 2 && take(&in, 2)) { /* or too many pulses */
                    counts[e] = len;
                    pulses[e] = 2;
                }
                if (batch(&w, sparse, len, counts, pulses, list, n_list) != HPM_UPC_ERANGE)
                    die("bad batch taken");
                break;
            }
            for (uint32_t j = 0; j < len; j++) {
                tl_expand_pulses(sig, w.inputs, counts, pulses, j);
                tl_ideal_cycle(&w.id, w.a, sig);
                hpm_upc_step(w.a, sig);
            }
            if (batch(&w, sparse, len, counts, pulses, list, n_list) != HPM_UPC_OK)
                die("advance failed");
            break;
        }
        case 3:
            if (hpm_upc_running(w.a)) { hpm_upc_stop(w.a); hpm_upc_stop(w.b); }
            else { hpm_upc_start(w.a); hpm_upc_start(w.b); }
            break;
        case 4: { /* threshold */
            uint64_t T = take(&in, 0) + 1, pa = 0, pb = 0;
            uint32_t per = take(&in, 2);
            hpm_upc_set_threshold_mode(w.a, (int)per);
            hpm_upc_set_threshold_mode(w.b, (int)per);
            snapshot_config(&w, ev0, mode0);
            int ra = hpm_upc_program_threshold(w.a, c, T, &pa);
            int rb = hpm_upc_program_threshold(w.b, c, T, &pb);
            if (ra != rb || pa != pb) die("threshold results differ");
            sync_config(&w, ev0, mode0);
            if (ra == HPM_UPC_OK) {
                w.id.value[c] = pa;
                w.faulted[c] = 0;
            }
            break;
        }
        case 5: { /* parity fault */
            uint32_t bit = take(&in, 70);
            int ra = hpm_upc_inject_parity_fault(w.a, c, bit);
            if (ra != hpm_upc_inject_parity_fault(w.b, c, bit)) die("fault results differ");
            if (ra == HPM_UPC_OK) w.faulted[c] = 1;
            break;
        }
        default: { /* a read of some register */
            uint64_t off = take(&in, l.size + 64) & ~7ull, va = 0, vb = 0;
            if (hpm_upc_mmio_read(w.a, off, &va) != hpm_upc_mmio_read(w.b, off, &vb) || va != vb)
                die("register reads differ");
            break;
        }
        }
        check(&w);
    }
    tl_ideal_free(&w.id);
    free(w.faulted);
    free(w.la.v);
    free(w.lb.v);
    free(counts);
    free(list);
    free(pulses);
    free(sig);
    free(ev0);
    free(mode0);
    hpm_upc_destroy(w.a);
    hpm_upc_destroy(w.b);
    return 0;
}
