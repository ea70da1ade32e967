/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_node.h - the modeled node inside the hpm Valgrind tool: the machine's
 * cores, caches, TLBs and branch predictors (src/model), the event catalog
 * (src/catalog) and the UPC units (src/upc) that count the requested events.
 *
 * Data flow. Instrumented code adds exact core events to the live block
 * (vpmu_state.h); vpmu_fold() moves them into the running thread's raw
 * counters (while counting) and into its core's event totals (always). Memory
 * accesses, instruction fetches and branches call the dirty helpers below,
 * which drive the models of the running thread's core; the models keep
 * running while counting is stopped, as caches do. vpmu_node_flush() turns
 * every core's cumulative totals (core events, model statistics, the timing
 * model's cycles) into per-event deltas since the previous flush and feeds
 * them to the UPC units as one batch of cycles (hpm_upc_advance): every
 * count that hpm reports is read back from a UPC counter.
 *
 * Batches. A UPC input counts at most one event per cycle, and a batch is
 * front-packed (an input with k events is high in the first k cycles). A
 * batch spans max(modeled node cycles, largest event delta) UPC cycles, so
 * events that happen several times per modeled cycle (bytes, flops) still
 * fit: the UPC clock runs at least at the event rate. Flushes happen at
 * thread switches, client requests and exit.
 *
 * Threads map onto cores round robin in creation order: thread serial s runs
 * on core (s - 1) mod cores.
 *
 * Files: the helpers and the models (vpmu_node.c), the UPCs' programming
 * and flush (vpmu_node_upc.c), their control, registers and reads
 * (vpmu_node_mmio.c), a profile's snapshots (vpmu_node_prof.c); what they
 * share is vpmu_node_int.h.
 */
#ifndef HPM_VPMU_NODE_H
#define HPM_VPMU_NODE_H

#include "pub_tool_basics.h"
#include "vpmu_events.h"

struct hpm_machine;

/* Options (vpmu_clo.c parses them). */
Bool vpmu_node_option(const HChar *arg);
void vpmu_node_usage(void);

/* After option processing: builds the machine, models and UPC units. */
void vpmu_node_init(void);
/* --hpm-model=on-demand: start the waiting models that needs (HPM_NEED_*
 * bits; 0: all) asks for, cold: the caches with the TLBs, the predictor,
 * the timing model (cycles) with every model it reads. True when one
 * started: the caller must then retranslate, since the hooks are decided
 * at translation time. */
Bool vpmu_node_models_on(UInt needs);
/* Some model waits for vpmu_node_models_on (on demand, not yet asked). */
Bool vpmu_node_models_waiting(void);

/* Instrumentation level the requested events need (enum vpmu_level). */
Int vpmu_node_level(void);
/* The exact core events (bit e: VPMU_EV_e) that the programmed kinds are
 * made of, INSTRUCTIONS always among them: a kind's own event, both
 * conditional-branch lanes for the not-taken count, the instruction
 * classes the timing model charges. The instrumentation counts these only
 * (vpmu_state.ev_counted, vpmu_state.h). */
UInt vpmu_node_events_needed(void);
/* Which dirty helpers instrumentation must emit. */
Bool vpmu_node_want_mem(void);
Bool vpmu_node_want_ifetch(void);
Bool vpmu_node_want_branch(void);
/* L1I line size: instruction fetches within one line are grouped. */
UInt vpmu_node_ifetch_line(void);

/* Superblocks whose fetches are all hits skip them (vpmu_instrument.c).
 * In a FIFO or random L1I a hit changes nothing, nor does an ITLB hit on
 * the MRU page: a superblock whose lines were all hits when it last ran
 * through its last instruction, with no L1I fill since on this core, and
 * whose instructions lie in the ITLB's MRU page, would only hit again.
 * vpmu_if_gen changes at every L1I fill and every change of core (it is
 * never the same for two different states of the running core's L1I);
 * vpmu_if_page is the running core's MRU ITLB page (~0 when none; 0
 * without TLBs). The check is inline: gen == the superblock's stamp &&
 * page == its page. */
extern ULong vpmu_if_gen;
extern Addr vpmu_if_page;
/* -1: the skip does not apply (an LRU L1I, no cache model, the filter
 * off); 0: it does, without a page check (no TLB model); else log2 of the
 * ITLB page. (Profiles and samples skip too: a fetch hit adds nothing to
 * an instruction's kinds, nor makes a sample.) */
Int vpmu_node_ifetch_skip_bits(void);

/* A scanned LRU L1I: a fetch from a line that is way 0 (MRU) of its set
 * hits and changes nothing, so the translation compares way 0 itself and
 * calls only when it differs (vpmu_instrument.c). vpmu_l1i_tags is the
 * running core's tag array; *ways and *set_mask its geometry, *page_bits
 * log2 of the ITLB's page (0: no TLB; otherwise vpmu_if_page must be the
 * fetch's page too). False: does not apply. */
extern ULong *vpmu_l1i_tags;
Bool vpmu_node_ifetch_mru(UInt *ways, ULong *set_mask, Int *page_bits);

/* Core that thread serial `serial` runs on. */
UInt vpmu_node_core_of(UInt serial);
/* The running thread changes: later model calls go to `core`. */
void vpmu_node_set_core(UInt core);
/* Add a folded live block (already made consistent) to core's totals:
 * ev[e] for each event e whose bit is set in moved (the others are 0 and
 * not read). */
void vpmu_node_add_core_events(UInt core, const ULong *ev, ULong moved);

/* Feed everything since the last flush, and what reads gathered before
 * it (vpmu_node_flush_read), to the UPC units. */
void vpmu_node_flush(void);
/* The flush of a program's read of its thread's counts: when the units can
 * tell no two batches from their sum (hpm_upc_batch_sums_only) it gathers
 * the batch without feeding it (whatever reads or changes the units later
 * feeds it first) and credits core `core`'s programmed kinds by their
 * deltas, u[k] += d and seen[k] += d: what the units' values gain when the
 * batch is fed, as vpmu_node_core_credit would credit them (so seen stays
 * what it says). True when done; False when nothing was done and the
 * caller flushes and credits. --hpm-gather-reads=no: never (for checking). */
Bool vpmu_node_flush_read(UInt core, ULong *seen, ULong *u);
/* Flushes for a live view, which host time decides, hold the level-low
 * counts (vpmu_node_modes_hold(True) before, False after); the flush before
 * the counts are written gives each core's idle cycles after its last one
 * to the mode counters that count them (vpmu_modes.h). */
void vpmu_node_modes_hold(Bool held);
void vpmu_node_flush_final(void);

/* Programmed events: n specs (a code, + 1024 * its counting mode: the
 * catalog's hpm_catalog_spec), UPC-read values (flush first). */
UInt vpmu_node_n_events(void);
Int vpmu_node_event_code(UInt i);
ULong vpmu_node_event_value(UInt i);
/* The per-core kinds of core `core` that are programmed: fills kinds[] and
 * values[] (UPC-read), returns how many (at most HPM_K_CORE_COUNT). */
UInt vpmu_node_core_values(UInt core, UInt *kinds, ULong *values);
/* What vpmu_node_core_values gives, credited: for each programmed kind k of
 * core `core`, u[k] += its UPC value - seen[k] when that is positive, and
 * seen[k] = the value (the accounting at every flush of a thread's reads).
 * Only the kinds whose value may have moved since the last call are read
 * (fed since, or every kind after a register access or reprogramming): seen
 * must be this core's, changed by no one else but zeroed together with a
 * reset or reprogramming of the units. */
void vpmu_node_core_credit(UInt core, ULong *seen, ULong *u);

/* Global start/stop register of every UPC; reset of every counter. */
void vpmu_node_start(void);
void vpmu_node_stop(void);
void vpmu_node_reset(void);

/* Raw register access at the Figure 5 offsets of UPC unit `upc`. Returns 0
 * or a negative enum hpm_upc_error. */
Int vpmu_node_mmio_read(UInt upc, ULong offset, ULong *value);
Int vpmu_node_mmio_write(UInt upc, ULong offset, ULong value);

/* Replace the programmed events (codes must be provided by the machine).
 * Returns 0, or -1 for a bad or unprovided code. Counts restart at 0. */
Int vpmu_node_select(const UInt *codes, UInt n);

/* Output: header facts and per-UPC health. */
const HChar *vpmu_node_machine_name(void);
const struct hpm_machine *vpmu_node_machine(void);
/* The exact core event (VPMU_EV_*) that per-core kind `kind` counts, or -1
 * when a model produces it (caches, TLBs, predictor, timing). */
Int vpmu_node_kind_event(UInt kind);
Bool vpmu_node_programmed(UInt code); /* the code is on a UPC counter, level high */
UInt vpmu_node_cores(void);
ULong vpmu_node_frequency(void);
UInt vpmu_node_n_upcs(void);
const HChar *vpmu_node_models(void);
void vpmu_node_upc_health(UInt upc, UInt *counters, ULong *lost_carries, UInt *parity_errors);
/* Name of a code ("PU0_CYCLES"), static buffer per call site is the caller's. */
void vpmu_node_code_name(UInt code, HChar *buf, UInt len);
const HChar *vpmu_node_kind_name(UInt kind);
/* The node's cache hierarchy (NULL when it has none): its contended lines
 * for the profile's c2c records (vpmu_c2c.c). */
struct hpm_hier;
const struct hpm_hier *vpmu_node_hier(void);
/* Coherence in modeled time (--hpm-coherence=time): True when asked for,
 * with the contended lines' accesses logged so far and the coherence misses
 * their replay found (none where the caches are not modeled). */
Bool vpmu_node_coh_time(ULong *logged, ULong *misses);

/* Dirty helpers called from instrumented code. */
void vpmu_node_ifetch(Addr a, SizeT len);
void vpmu_node_load(Addr a, SizeT size);
void vpmu_node_store(Addr a, SizeT size);
/* A load and then a store of the same bytes (a read-modify-write: x86's
 * ADD to memory, INC, a LOCKed operation), as the two calls would be. */
void vpmu_node_modify(Addr a, SizeT size);
/* A conditional branch at pc (the most frequent kind: two arguments). */
void vpmu_node_cond(Addr pc, ULong taken);
/* kind: enum vpmu_branch_kind; taken only matters for VPMU_BR_COND. */
void vpmu_node_branch(Addr pc, Addr target, ULong taken, ULong kind);
/* A call at pc (direct or indirect) whose return address is ret. */
void vpmu_node_call(Addr pc, Addr target, Addr ret, ULong indirect);

/* The same in a profile, with the instruction's sink (vpmu_prof_sink). */
void vpmu_node_ifetch_p(Addr a, SizeT len, ULong *sink);
void vpmu_node_load_p(Addr a, SizeT size, ULong *sink);
void vpmu_node_store_p(Addr a, SizeT size, ULong *sink);
void vpmu_node_modify_p(Addr a, SizeT size, ULong *sink);
void vpmu_node_cond_p(Addr pc, ULong taken, ULong *sink);
void vpmu_node_branch_p(Addr pc, Addr target, ULong taken, ULong kind, ULong *sink);
void vpmu_node_call_p(Addr pc, Addr target, Addr ret, ULong indirect, ULong *sink);

enum vpmu_branch_kind {
    VPMU_BR_COND = 0,     /* conditional */
    VPMU_BR_INDIRECT = 1, /* indirect jump: target = destination */
    VPMU_BR_RET = 2       /* return: target = destination */
};

/* ------------------------------------------------ profiles (vpmu_profile.c)
 * The raw model statistics behind the modeled kinds, as one vector: a
 * core's part (accesses and where they were served per access kind, L1D
 * write-backs, prefetcher, TLB misses, mispredicts) and the node's (L3s,
 * memory). Every modeled kind is a function of it and the exact core events
 * (vpmu_node_prof_kinds), so an instruction's share of each kind comes from
 * its share of the vector. */
enum {
    VPMU_PR_ACC = 0,     /* accesses, per access kind (3) */
    VPMU_PR_BP = 3,      /* mispredicts: conditional, indirect, return (3) */
    VPMU_PR_SRV = 6,     /* served at L1, L2, L3, memory, per access kind (12:
                          * VPMU_PR_SRV_AT) */
    VPMU_PR_L1D_WB = 18, /* L1D write-backs */
    VPMU_PR_PF = 19,     /* prefetcher: prefetchable, hits in stream, valid, in L2 (4) */
    VPMU_PR_ITLB = 23,
    VPMU_PR_DTLB = 24,
    VPMU_PR_CORE_N = 25,
    VPMU_PR_L3 = 25,  /* reads, read misses, write-backs in, write-backs (4) */
    VPMU_PR_DDR = 29, /* bytes read, bytes written (2) */
    VPMU_PR_N = 31
};
/* Accesses of kind k (HPM_IFETCH, _LOAD, _STORE) served at level s (HPM_SERVED_*).
 * No kind is computed from the access counts or from served-at-L1 (the
 * kinds take misses from the levels below the L1, accesses from the exact
 * events), so a profile's vectors leave both at 0: an L1 hit changes
 * nothing in a cost center, a mispredict its first line of values
 * (vpmu_profile.c). */
#define VPMU_PR_SRV_AT(k, s) (VPMU_PR_SRV + 3 * (UInt)(s) + (UInt)(k))
/* Where the running instruction's model statistic changes go (NULL: no
 * profile); a profile's model calls (vpmu_node_*_p, vpmu_prof_*_bp) set it
 * from their argument. */
extern ULong *vpmu_prof_sink;
void vpmu_node_prof_init(void);
/* Every kind from a raw vector and exact core events (VPMU_EV_COUNT):
 * kv[HPM_K_CORE_COUNT], nv[HPM_K_NODE_COUNT]. */
void vpmu_node_prof_kinds(const ULong *raw, const ULong *ev, ULong *kv, ULong *nv);
/* A core's cumulative exact events (for the running core with the live
 * block not yet folded) and raw vector, counted or not: call-graph
 * snapshots. */
void vpmu_node_prof_snapshot(UInt core, ULong *ev, ULong *raw);
/* The same with the exact events in the live block's lane order:
 * ev_lanes[vpmu_live_slot(e)], 2 * VPMU_LIVE_WORDS of them (the slot of
 * br_cond_not_taken holds no count of its own): the call graph's
 * snapshots, taken at every call and return of a profile, need no
 * reordering. */
void vpmu_node_prof_snapshot_lanes(UInt core, ULong *ev_lanes, ULong *raw);
/* Its two halves: the lanes of the running core as they were when the
 * live block held live (base + live, lane by lane: a frame's packed
 * snapshot made whole, vpmu_profile.c), and the raw vector. */
void vpmu_node_prof_lanes_of(UInt core, const ULong *live, ULong *ev_lanes);
void vpmu_node_prof_snapshot_raw(UInt core, ULong *raw);
/* The raw vector's two parts as they are now, not stopped: core's
 * statistics, raw[0, VPMU_PR_CORE_N), and the node's, indexed as raw is
 * (raw[VPMU_PR_CORE_N, VPMU_PR_N); the entries below unused). A packed
 * call-graph snapshot (vpmu_profile.c) narrows them itself: their
 * differences within a fold interval are exact in 32 bits but for the
 * memory's bytes. */
const ULong *vpmu_node_prof_last_core(UInt core);
const ULong *vpmu_node_prof_last_node(void);
UInt vpmu_node_cur_core(void);
/* Exact core event ev (VPMU_EV_*) so far, over every core, counted or not
 * (the live block included). */
ULong vpmu_node_event_total(Int ev);
/* Kind and core (-1: node) of programmed event i; False for one counted in
 * another mode than level high (its count is not the kind's). */
Bool vpmu_node_event_kind(UInt i, UInt *kind, Int *core);

/* ------------------------------------------------ sinks
 * The node hands what its models decided to the parts that call it, through
 * functions they register at start, so that it calls none of them back (the
 * files of this folder call each other in no loop: tests/vpmu no_cycles):
 * - access: every data access and instruction fetch the models served, to
 *   the sampler (vpmu_sample_access; called while vpmu_state.on.sample or
 *   vpmu_state.on.sample_access or vpmu_state.on.latency, from vpmu_sample_init);
 * - data: the data object of an access that reaches the models, and its
 *   prefetch, to the profile (vpmu_prof_data_raw, vpmu_prof_data_prefetch;
 *   called while vpmu_prof_sink is set, from vpmu_prof_init);
 * - batch: every batch fed to the UPC, to the UPC trace
 *   (vpmu_upctrace_batch; called while vpmu_state.on.upctrace, from its option).
 * The calls are out of the helpers' common path (their noinline parts), so
 * an indirect call costs what the direct one did. */
typedef void (*vpmu_node_access_sink)(Int kind, Addr a, Int served, Bool tlb_miss,
                                      const ULong *raw);
typedef ULong *(*vpmu_node_data_raw_sink)(Addr a);
typedef void (*vpmu_node_data_prefetch_sink)(Addr a);
struct hpm_upc;
typedef void (*vpmu_node_batch_sink)(const struct hpm_upc *u, ULong cycles, UInt n,
                                     const UShort *evs, const UShort *codes, const ULong *deltas);
void vpmu_node_sink_access(vpmu_node_access_sink fn);
void vpmu_node_sink_data(vpmu_node_data_raw_sink raw, vpmu_node_data_prefetch_sink prefetch);
void vpmu_node_sink_batch(vpmu_node_batch_sink fn);

/* The network counters (src/net/torus.h, the catalog's network kinds in
 * order): n values added to the node's, fed to the UPC at the next flush. */
#define VPMU_NODE_NET_COUNTERS 22
void vpmu_node_net_add(const ULong *v, UInt n);

#endif /* HPM_VPMU_NODE_H */
