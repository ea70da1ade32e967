/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_node_upc.c - the node's UPCs: the events programmed on them and
 * their feeding, the flush that turns what the models and the exact
 * counters did since the last one into a batch of each unit's inputs
 * (hpm_upc_advance_sparse), the counting modes other than level high
 * included (vpmu_modes.c).
 *
 * Apart from the access helpers (vpmu_node.c) because it runs at a flush,
 * not per access, and reads the models only through their event values:
 * none of its state is on the helpers' path, and the helpers call nothing
 * here. vpmu_node_init is here as the node's start: the models first,
 * then the programming.
 *
 * Copyright notice: this tool links Valgrind's coregrind and VEX (GPL-2.0).
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"

#include "vpmu_io.h"
#include "vpmu_modes.h"
#include "vpmu_node_int.h"
#include "vpmu_upctrace.h"

struct vpmu_node_prog prog;

/* Per core, its kinds that have an event, in kind order: the event a flush
 * feeds the kind's input through (the first programmed with its code, in
 * whatever mode: every event of one code shares the input), and whether a
 * level-high event counts the kind (a read's credit); made when
 * programmed. */
struct kind_feed {
    UShort ev;
    UChar kind;
    Bool credit;
};
static struct kind_feed core_feed[HPM_CAT_MAX_CORES][HPM_K_CORE_COUNT];
static UChar core_feed_n[HPM_CAT_MAX_CORES];
_Static_assert(HPM_K_CORE_COUNT <= 255, "core_feed_n and kind_feed.kind fit a byte");
static UChar ev_kind[HPM_CAT_CODES];
static Char ev_core[HPM_CAT_CODES]; /* -1 = node */
static ULong ev_fed[HPM_CAT_CODES]; /* cumulative value fed so far */
static ULong ev_delta[HPM_CAT_CODES];
/* Per code, the event that feeds its input (the first programmed). */
static Short code_index[HPM_CAT_CODES];
static ULong node_cycles_fed;
/* The events in a mode other than level high (vpmu_modes.h): their
 * definition's value at programming or the last reset (mode_base), what
 * their counters were fed since (mode_fed), this flush's share (mode_inc)
 * and what of it the batch's chunks have not fed yet (mode_left); the
 * units that hold one. Their level-low counts wait while a flush is for a
 * live view (modes_held: host time decides when those come, and a level-low
 * count depends on where its increments are taken); at_end: the flush
 * before the counts are written. */
static UInt n_mode_ev;
static UShort mode_ev[HPM_CAT_CODES];
static Long mode_base[HPM_CAT_CODES];
static ULong mode_fed[HPM_CAT_CODES], mode_inc[HPM_CAT_CODES], mode_left[HPM_CAT_CODES];
static Bool unit_modes[MAX_UPCS];
static Bool modes_held, modes_at_end;
static uint32_t batch_pulses[HPM_CAT_CODES];

static UInt counter_used[MAX_UPCS][256 / 32];
static uint32_t batch_counts[HPM_CAT_CODES]; /* input e -> events this batch */
/* The node's events; the events a batch feeds (those of the cores that ran
 * and the node's that moved) and their inputs, for hpm_upc_advance_sparse. */
static UInt node_ev_n;
static UShort node_ev[HPM_CAT_CODES];
/* The node's events of NODE_CYCLES, and what the node's other values were
 * made of at the last flush that walked every node event (node_walk_all:
 * none since programming): the memory system's statistics, the network's
 * generation (net_gen), the I/O and kernel units' (vpmu_io_node_moved). A
 * program's reads flush between a few hundred instructions, in which only
 * the node's cycles move (the L3s, DDR, I/O, network and host-measured
 * kinds move at misses, system calls, messages and host refreshes): such
 * a flush computes and feeds the cycles' events only, the others would
 * feed 0. */
static UInt node_cyc_n;
static UShort node_cyc[HPM_CAT_CODES];
static ULong node_raw_walked[VPMU_PR_N - VPMU_PR_CORE_N];
static ULong net_gen_walked;
static Bool node_walk_all;
/* The batch the flushes gathered since the units were last fed: its
 * events and their inputs (batch_n of each), each event's delta in
 * ev_delta (0 for an event not in it), and its cycles, the sum of each
 * flush's. A flush feeds what it gathered at once, but for a program's
 * read of its own counts (vpmu_node_flush_read) where the units can tell
 * no two batches from their sum (hpm_upc_batch_sums_only); whatever reads
 * or changes the units feeds the gathered batch first
 * (node_feed_gathered). */
static UShort batch_ev[HPM_CAT_CODES];
static uint32_t batch_inputs[HPM_CAT_CODES];
static UInt batch_n;
static ULong batch_cycles;

void node_upc_touched(void)
{
    VG_(memset)(prog.ev_stale, 1, sizeof prog.ev_stale);
    VG_(memset)(prog.credit_due, 0xff, sizeof prog.credit_due);
}

#define CHUNK ((ULong)1 << 31)

_Static_assert((Int)HPM_CAT_EDGE_FALL == (Int)HPM_UPC_EDGE_FALL &&
                   (Int)HPM_CAT_LEVEL_LOW == (Int)HPM_UPC_LEVEL_LOW,
               "the catalog's modes are the UPC's");

static Bool counter_free(UInt u, UInt c)
{
    return !(counter_used[u][c / 32] & (1u << (c % 32)));
}

/* Put event i on a UPC counter wired to its code: the first unit with that
 * counter free (a new unit when none has). */
static void place_event(UInt i)
{
    UInt code = prog.ev_code[i], u;
    uint32_t ctr[HPM_UPC_INPUTS_PER_COUNTER];
    Int nctr, k;
    for (u = 0; u < MAX_UPCS; u++) {
        if (u == prog.n_upcs) {
            struct hpm_upc_params p;
            SizeT sz;
            hpm_upc_params_default(&p);
            sz = hpm_upc_storage_size(&p);
            tl_assert(hpm_upc_init(&prog.upcs[u], &p, VG_(malloc)("hpm.upc", sz), sz) ==
                      HPM_UPC_OK);
            if (vpmu_state.running)
                hpm_upc_start(prog.upcs[u]);
            prog.n_upcs++;
        }
        nctr = hpm_upc_event_counters(prog.upcs[u], code, ctr);
        for (k = 0; k < nctr; k++) {
            if (counter_free(u, ctr[k])) {
                tl_assert(hpm_upc_select_event(prog.upcs[u], ctr[k], code, prog.ev_mode[i], 0) ==
                          HPM_UPC_OK);
                counter_used[u][ctr[k] / 32] |= 1u << (ctr[k] % 32);
                prog.ev_upc[i] = (UChar)u;
                prog.ev_counter[i] = (UShort)ctr[k];
                return;
            }
        }
    }
    tl_assert(0); /* MAX_UPCS units hold every code */
}

/* Program specs codes[0..n): every one valid, no duplicates (checked by
 * caller). */
void node_program(const UInt *codes, UInt n)
{
    UInt i, u, c;
    for (u = 0; u < prog.n_upcs; u++) {
        hpm_upc_reset_counters(prog.upcs[u]);
        for (i = 0; i < 256; i++)
            hpm_upc_configure(prog.upcs[u], i, 0, HPM_UPC_LEVEL_HIGH, 0); /* the reset state */
        VG_(memset)(counter_used[u], 0, sizeof counter_used[u]);
    }
    for (i = 0; i < HPM_CAT_CODES; i++) {
        code_index[i] = prog.lh_index[i] = -1;
        batch_counts[i] = 0;
    }
    for (u = 0; u < MAX_UPCS; u++)
        unit_modes[u] = False;
    n_mode_ev = 0;
    prog.n_ev = n;
    node.want_rusage = False;
    for (i = 0; i < n; i++) {
        UInt kind;
        Int core;
        tl_assert(node_code_ok(codes[i], &kind, &core));
        node.want_rusage |=
            kind >= HPM_K_KERNEL_HOST_SYSTEM_NS && kind <= HPM_K_KERNEL_HOST_INVOL_CSWITCHES;
        prog.ev_code[i] = (UShort)hpm_catalog_spec_code(codes[i]);
        prog.ev_mode[i] = (UChar)hpm_catalog_spec_mode(codes[i]);
        ev_kind[i] = (UChar)kind;
        ev_core[i] = (Char)core;
        if (code_index[prog.ev_code[i]] < 0)
            code_index[prog.ev_code[i]] = (Short)i;
        if (prog.ev_mode[i] == HPM_CAT_LEVEL_HIGH)
            prog.lh_index[prog.ev_code[i]] = (Short)i;
        place_event(i);
        if (prog.ev_mode[i] != HPM_CAT_LEVEL_HIGH) {
            mode_ev[n_mode_ev++] = (UShort)i;
            unit_modes[prog.ev_upc[i]] = True;
        }
    }
    node_upc_touched();
    node_ev_n = node_cyc_n = 0;
    for (i = 0; i < n; i++) {
        if (ev_core[i] >= 0 || code_index[prog.ev_code[i]] != (Short)i)
            continue; /* a node event's input is fed once, through its first event */
        node_ev[node_ev_n++] = (UShort)i;
        if (ev_kind[i] == HPM_K_NODE_CYCLES)
            node_cyc[node_cyc_n++] = (UShort)i;
    }
    node_walk_all = True;
    for (c = 0; c < HPM_CAT_MAX_CORES; c++) {
        UInt k;
        core_feed_n[c] = 0;
        for (k = 0; k < HPM_K_CORE_COUNT; k++) {
            Int code = hpm_catalog_code(k, (Int)c);
            prog.core_kind_ev[c][k] =
                code < 0 || prog.lh_index[code] < 0 ? NOT_PROGRAMMED : (UShort)prog.lh_index[code];
            if (code >= 0 && code_index[code] >= 0) {
                struct kind_feed *f = &core_feed[c][core_feed_n[c]++];
                f->ev = (UShort)code_index[code];
                f->kind = (UChar)k;
                f->credit = prog.core_kind_ev[c][k] != NOT_PROGRAMMED;
            }
        }
    }
}

UInt vpmu_node_events_needed(void)
{
    UInt need = 1u << VPMU_EV_INSTRUCTIONS, i;
    for (i = 0; i < prog.n_ev; i++) {
        UInt k = ev_kind[i];
        if (k < HPM_K_CORE_COUNT && node.kind_event[k] != NO_EV)
            need |= 1u << node.kind_event[k];
    }
    if (need & (1u << VPMU_EV_BR_COND_NOT_TAKEN)) /* derived at the fold */
        need |= 1u << VPMU_EV_BR_COND | 1u << VPMU_EV_BR_COND_TAKEN;
    if (node.run_timing || node.wait_timing) /* core_kinds_from_raw's class counts */
        need |= 1u << VPMU_EV_LOADS | 1u << VPMU_EV_STORES | 1u << VPMU_EV_BRANCHES |
                1u << VPMU_EV_FP_DIV | 1u << VPMU_EV_FP_SQRT | 1u << VPMU_EV_FP_INSTRUCTIONS |
                1u << VPMU_EV_INT_MUL | 1u << VPMU_EV_INT_DIV;
    return need;
}

Bool vpmu_node_event_kind(UInt i, UInt *kind, Int *core)
{
    return i < prog.n_ev && prog.ev_mode[i] == HPM_CAT_LEVEL_HIGH &&
           hpm_catalog_decode(prog.ev_code[i], kind, core) == 0;
}

/* Event i's value now: an event that moved adds its delta since the last
 * flush to the gathered batch (joining it when it is not in it yet; *batch
 * the flush's largest delta). Returns the delta. */
static inline ULong feed_event(UInt i, ULong v, ULong *batch)
{
    ULong d;
    if (v == ev_fed[i])
        return 0;
    d = node_sub_sat(v, ev_fed[i]);
    ev_fed[i] = v; /* also a value that went back: later deltas start there */
    if (d == 0)
        return 0;
    if (ev_delta[i] == 0) {
        batch_ev[batch_n] = (UShort)i;
        batch_inputs[batch_n++] = prog.ev_code[i];
    }
    ev_delta[i] += d;
    if (d > *batch)
        *batch = d;
    return d;
}

/* Mode event i's definition now, from the values of the last flush. */
static Long mode_value(UInt i)
{
    Int c = ev_core[i];
    ULong x = c >= 0 ? node.cores[c].kv[ev_kind[i]] : ev_fed[code_index[prog.ev_code[i]]];
    return vpmu_mode_value(&node.machine.timing, ev_kind[i], prog.ev_mode[i], x,
                           c >= 0 ? node.cores[c].kv : NULL, node_cycles_fed, modes_at_end);
}

/* After programming or a reset: every mode counter counts from now. */
void node_modes_rebase(void)
{
    UInt j;
    for (j = 0; j < n_mode_ev; j++) {
        mode_base[mode_ev[j]] = mode_value(mode_ev[j]);
        mode_fed[mode_ev[j]] = 0;
    }
}

/* Each mode counter's share of this flush, what its definition moved
 * since the last (never less than 0: the count stays at its highest), and
 * the batch's cycles: at least n and what every share needs. */
static ULong modes_step(ULong n)
{
    UInt j;
    for (j = 0; j < n_mode_ev; j++) {
        UInt i = mode_ev[j];
        Long v = mode_value(i) - mode_base[i];
        ULong need;
        mode_inc[i] = 0;
        if (v > (Long)mode_fed[i] && !(modes_held && prog.ev_mode[i] == HPM_CAT_LEVEL_LOW)) {
            mode_inc[i] = (ULong)v - mode_fed[i];
            mode_fed[i] = (ULong)v;
        }
        mode_left[i] = mode_inc[i];
        need = vpmu_mode_cycles_needed(prog.ev_mode[i], mode_inc[i]);
        if (need > n)
            n = need;
    }
    return n;
}

static Bool listed(UInt code, UInt n_in)
{
    UInt j;
    for (j = 0; j < n_in; j++)
        if (batch_inputs[j] == code)
            return True;
    return False;
}

/* Unit u's chunk of `chunk` cycles when it holds mode counters: the
 * batch's inputs front-packed, each mode counter's input with the signal
 * that adds its share of the chunk (vpmu_modes.h), listed every chunk: a
 * level-low input left out would be low in all of it. */
static void advance_unit_modes(UInt u, ULong chunk, UInt n_in)
{
    uint32_t kept[HPM_CAT_CODES];
    UInt j, n = n_in, m = 0;
    for (j = 0; j < n_in; j++)
        batch_pulses[batch_inputs[j]] = 1;
    for (j = 0; j < n_mode_ev; j++) {
        UInt i = mode_ev[j], code = prog.ev_code[i];
        ULong share, k, p;
        if (prog.ev_upc[i] != u)
            continue;
        share = prog.ev_mode[i] == HPM_CAT_LEVEL_LOW ? chunk : chunk / 2;
        share = mode_left[i] < share ? mode_left[i] : share;
        mode_left[i] -= share;
        vpmu_mode_signal(prog.ev_mode[i], share, chunk, &k, &p);
        if (!listed(code, n_in))
            batch_inputs[n++] = code;
        kept[m++] = batch_counts[code];
        batch_counts[code] = (uint32_t)k;
        batch_pulses[code] = (uint32_t)p;
    }
    tl_assert(hpm_upc_advance_signals(prog.upcs[u], (uint32_t)chunk, batch_counts, batch_pulses,
                                      batch_inputs, n) == HPM_UPC_OK);
    for (j = m = 0; j < n_mode_ev; j++)
        if (prog.ev_upc[mode_ev[j]] == u)
            batch_counts[prog.ev_code[mode_ev[j]]] = kept[m++];
}

/* The gathered batch to every unit, in chunks of at most 2^31 cycles.
 * Front-packed batches compose: cutting one into chunks, each input taking
 * min(left, chunk) events per chunk, is the same signal. Its events' values
 * are read again after it (ev_stale). */
static void feed_units(void)
{
    UInt j, u, n_in = batch_n;
    ULong n = batch_cycles;
    while (n > 0) {
        ULong chunk = n < CHUNK ? n : CHUNK;
        for (j = 0; j < n_in; j++) {
            UInt i = batch_ev[j];
            ULong d = ev_delta[i] < chunk ? ev_delta[i] : chunk;
            batch_counts[prog.ev_code[i]] = (uint32_t)d;
            ev_delta[i] -= d;
        }
        for (u = 0; u < prog.n_upcs; u++) {
            if (unit_modes[u])
                advance_unit_modes(u, chunk, n_in);
            else
                tl_assert(hpm_upc_advance_sparse(prog.upcs[u], (uint32_t)chunk, batch_counts,
                                                 batch_inputs, n_in) == HPM_UPC_OK);
        }
        n -= chunk;
    }
    for (j = 0; j < n_in; j++) {
        batch_counts[batch_inputs[j]] = 0;
        prog.ev_stale[batch_ev[j]] = 1;
        ev_delta[batch_ev[j]] = 0; /* 0 already: each flush's cycles cover its deltas */
    }
    batch_n = 0;
    batch_cycles = 0;
}

void node_feed_gathered(void)
{
    if (batch_cycles)
        feed_units();
}

/* A program's read credits its thread directly (vpmu_node_flush_read): the
 * thread's core, its counts and the core's UPC values at its last
 * accounting (vpmu_node_core_credit's). */
struct read_credit {
    UInt core;
    ULong *seen, *u;
};

/* What every core that ran and the node did since the last flush, added to
 * the gathered batch with the flush's cycles. A kind of the credited core
 * (rc) is credited by its delta, which is what its level-high counter
 * gains when the batch is fed; any other core's kinds that moved are due
 * their credit (vpmu_node_core_credit). */
static void node_gather(const struct read_credit *rc)
{
    ULong nv[HPM_K_NODE_COUNT];
    ULong batch = 0, ncyc;
    UInt c, i, j;
    if (node.coh_time && node_coh_replay_final())
        node_coh_replay(); /* no thread can run: what they logged is final */

    /* A core's values change only while it runs (per-core models, core
     * events, its timing); the others keep the values of their last flush,
     * so their events have nothing to feed: a reader's flush walks the
     * running core's events and the node's, not every core's. */
    for (c = 0; c < node.n_cores; c++) {
        ULong *kv = node.cores[c].kv;
        Bool credit = rc && c == rc->core;
        if (!node.cores[c].ran)
            continue;
        node_core_values(c, kv);
        node.cores[c].ran = c == node.cur_core;
        /* The core's kinds that have an event, each against the value its
         * event was last fed (ev_fed: also the kind's value at the last
         * flush, or at programming): only a kind that moved has an event
         * to feed. A walk of every kind against a copy of the last
         * flush's values cost a request about 25 ns more (papi_read_vpmu
         * floor:4:0, every kind programmed: the copy's stores). */
        for (j = 0; j < core_feed_n[c]; j++) {
            const struct kind_feed *f = &core_feed[c][j];
            UInt k = f->kind;
            ULong d;
            i = f->ev;
            if (kv[k] == ev_fed[i])
                continue;
            d = feed_event(i, kv[k], &batch);
            if (!credit) {
                prog.credit_due[c] |= 1ULL << k;
            } else if (f->credit) {
                rc->u[k] += d;
                rc->seen[k] += d;
            }
        }
    }
    {
        /* every node event when what the node's values other than the
         * cycles are made of moved since the last such walk, else the
         * cycles' events only */
        ULong raw[VPMU_PR_N], moved = 0;
        node_raw_node(raw);
        for (j = VPMU_PR_CORE_N; j < VPMU_PR_N; j++) /* no branch per value */
            moved |= raw[j] ^ node_raw_walked[j - VPMU_PR_CORE_N];
        if (node_walk_all || moved || node.net_gen != net_gen_walked || vpmu_io_node_moved()) {
            node_values_from(raw, nv);
            for (j = 0; j < node_ev_n; j++) {
                i = node_ev[j];
                feed_event(i, nv[ev_kind[i] - HPM_K_CORE_COUNT], &batch);
            }
            for (j = VPMU_PR_CORE_N; j < VPMU_PR_N; j++)
                node_raw_walked[j - VPMU_PR_CORE_N] = raw[j];
            net_gen_walked = node.net_gen;
            node_walk_all = False;
        } else {
            nv[HPM_K_NODE_CYCLES - HPM_K_CORE_COUNT] = node_cycles();
            for (j = 0; j < node_cyc_n; j++)
                feed_event(node_cyc[j], nv[HPM_K_NODE_CYCLES - HPM_K_CORE_COUNT], &batch);
        }
    }
    ncyc = node_sub_sat(nv[HPM_K_NODE_CYCLES - HPM_K_CORE_COUNT], node_cycles_fed);
    node_cycles_fed = nv[HPM_K_NODE_CYCLES - HPM_K_CORE_COUNT];
    if (ncyc > batch)
        batch = ncyc;
    if (n_mode_ev)
        batch = modes_step(batch);
    batch_cycles += batch;
}

void vpmu_node_flush(void)
{
    node_gather(NULL);
    if (vpmu_state.on.upctrace) /* hpm upc-explore's stream: this batch, as fed below */
        node.batch_sink(prog.n_upcs ? prog.upcs[0] : NULL, batch_cycles, batch_n, batch_ev,
                        prog.ev_code, ev_delta);
    feed_units();
}

Bool vpmu_node_flush_read(UInt core, ULong *seen, ULong *u)
{
    struct read_credit rc;
    UInt k;
    /* a stream that shows each batch, counting modes whose signal is each
     * batch's, a core owed credit from before (read from its counters) */
    if (!node.clo_gather_reads || vpmu_state.on.upctrace || n_mode_ev ||
        core >= HPM_CAT_MAX_CORES || prog.credit_due[core])
        return False;
    for (k = 0; k < prog.n_upcs; k++)
        if (!hpm_upc_batch_sums_only(prog.upcs[k]))
            return False;
    rc.core = core;
    rc.seen = seen;
    rc.u = u;
    node_gather(&rc);
    return True;
}

void vpmu_node_modes_hold(Bool held)
{
    modes_held = held;
}

void vpmu_node_flush_final(void)
{
    if (n_mode_ev == 0)
        return;
    modes_at_end = True;
    vpmu_node_flush();
    modes_at_end = False;
}

Int vpmu_node_select(const UInt *codes, UInt n)
{
    UInt i, j, kind;
    Int core;
    if (n == 0 || n > HPM_CAT_CODES)
        return -1;
    for (i = 0; i < n; i++) {
        if (codes[i] >= HPM_CAT_SPECS || !node_code_ok(codes[i], &kind, &core))
            return -1;
        /* only events whose models already run: the instrumentation is fixed */
        if ((Int)node_spec_level(codes[i]) > node.level)
            return -1;
        if (hpm_catalog_spec_needs(codes[i]) & HPM_NEED_MODELS & ~node_running_models())
            return -1;
        for (j = 0; j < i; j++)
            if (codes[j] == codes[i])
                return -1;
    }
    vpmu_node_flush(); /* what happened so far is fed to the old programming */
    node_program(codes, n);
    /* new events start counting from now (flush brought kv up to date) */
    {
        ULong nv[HPM_K_NODE_COUNT];
        node_values(nv);
        for (i = 0; i < n; i++) {
            ev_fed[i] = ev_core[i] >= 0 ? node.cores[(UInt)ev_core[i]].kv[ev_kind[i]]
                                        : nv[ev_kind[i] - HPM_K_CORE_COUNT];
        }
    }
    node_modes_rebase();
    return 0;
}

void vpmu_node_init(void)
{
    static UInt codes[HPM_CAT_CODES];
    UInt n = node_models_init(codes);
    node_program(codes, n);
}
