/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_node_int.h - what the node's files share (internal to vpmu_node*.c;
 * the rest of the tool sees vpmu_node.h). The node is cut in four, one
 * way, from the bottom up:
 *   vpmu_node.c       the access helpers with the models compiled in, the
 *                     models' state (struct vpmu_node_models, node) and
 *                     the event values made of it;
 *   vpmu_node_prof.c  the profile's snapshots of those values;
 *   vpmu_node_upc.c   the UPCs programmed (struct vpmu_node_prog, prog),
 *                     fed at every flush;
 *   vpmu_node_mmio.c  the UPCs' control, registers and reads.
 * A file reads the state and calls the functions of the files below it
 * only (vpmu.no_cycles counts data as it counts calls).
 */
#ifndef HPM_VPMU_NODE_INT_H
#define HPM_VPMU_NODE_INT_H

#include "pub_tool_basics.h"

#include "cache_probe.h"
#include "catalog.h"
#include "hpm/upc.h"
#include "machine_wire.h"
#include "model_internal.h"
#include "vpmu_node.h"
#include "vpmu_state.h"

#define MAX_UPCS (HPM_CAT_SPECS / 256) /* enough for every code in every mode at once */
#define NO_EV 0xFF
_Static_assert(HPM_CAT_CODES < 0xffff, "event indexes below NOT_PROGRAMMED");
#define NOT_PROGRAMMED 0xffff

#define COH_CLEAN_SLOTS 64u /* core_state.coh_clean, coh_clear: a power of two */

struct core_state {
    ULong ev[VPMU_EV_COUNT]; /* exact core events, cumulative */
    struct hpm_tlb *itlb, *dtlb;
    struct hpm_bpred *bp;
    ULong kv[HPM_K_CORE_COUNT]; /* kind values at the last flush */
    /* Sure-hit filters: the L1D line (and so the DTLB page) of the core's
     * last data access and the L1I line of its last fetch are the MRU
     * entries of their sets, and a hit on an MRU entry changes no state
     * under any replacement policy. Repeating it needs no model call. The
     * miss counts are unaffected; only hits go uncounted (and hpm reports
     * misses only). A store still calls the model unless the line is known
     * dirty, so write-backs stay exact. */
    Addr dline, iline;
    Bool dline_valid, dline_dirty, iline_valid;
    /* The same for the TLBs, per page: the page of the last DTLB (ITLB)
     * access is its MRU entry (TLBs are LRU), so a later access within it
     * is a hit that changes nothing. */
    Addr dpage, ipage;
    Bool dpage_valid, ipage_valid;
    Bool ran; /* ran since the last flush: its kind values may have changed */
    /* hpm_hier_coh_gen of the core when it last ran: another core's access
     * that changed this core's L1D (coherence) changes it, and the sure-hit
     * filter's line is then not known resident (or dirty) any more */
    ULong coh_gen;
    /* The L1 probe (l1_probe below): the core's L1s, NULL when the probe
     * does not apply (granule other than the line, filter off). */
    struct hpm_cache *l1d_probe, *l1i_probe;
    /* Their hints and the hints' hash shift (hpm__hint_of), copied here
     * where the probes hold hints (d_hint_on, i_hint_on): the probes
     * without a frame load the hint one load after the core's state, not
     * two after it through the cache. */
    const uint64_t *dhint, *ihint;
    UInt dhint_shift, ihint_shift;
    /* The TLB memos (tlb_probe, src/model/cache_probe.h): pages the probe
     * found in an indexed (LRU) TLB, and their slots. */
    struct hpm_tlb_memo dmemo[HPM_TLB_MEMO_N], imemo[HPM_TLB_MEMO_N];
    /* Coherence in modeled time: the contended line it logged last and its
     * slot in the model's table (~0: none yet). */
    Addr coh_line;
    Int coh_slot;
    /* The sure-hit filter's second line where an L1D hit changes nothing
     * (coh_side): when cline_valid, coh_line is known resident in the
     * core's L1D (dirty when cline_dirty) since its last access, while the
     * first filter keeps the line before it. Valid until the core's next
     * access that reaches the models (a fill may evict it) or another
     * core's request that changed its L1D (coh_gen). */
    Bool cline_valid, cline_dirty;
    /* Pages (4 KiB) that the pages' bits said hold no contended line, by
     * their number's low bits (~0: none), so that an access past the filter
     * within one asks no line's hash: a loop over two arrays (a dot
     * product's) moves between two pages, xz's match finder among many.
     * And lines of the other pages that the table's hash said are not
     * contended, by theirs: false_sharing.c's loop reads two beside its
     * counter, xz's threads share pages of their buffers. coh_shared_page:
     * the last page that the pages' bits said may hold a contended line
     * (coh_page_clean). */
    Addr coh_clean[COH_CLEAN_SLOTS], coh_clear[COH_CLEAN_SLOTS], coh_shared_page;
};

/* The models' state that the files above vpmu_node.c read (vpmu_node.c
 * owns it; its other state is static there). */
struct vpmu_node_models {
    struct hpm_machine machine;
    UInt n_cores;
    struct core_state *cores;
    UInt cur_core;
    Int level;                 /* the instrumentation level the events need */
    Bool run_timing;           /* the timing model runs */
    Bool wait_timing;          /* ... from the first model request (on demand) */
    Bool clo_coh_time;         /* --hpm-coherence=time */
    Bool clo_gather_reads;     /* --hpm-gather-reads (vpmu_node_flush_read) */
    Bool coh_time;             /* ... and a model keeps contended lines */
    ULong coh_replayed_misses; /* the coherence misses the replays found */
    /* Per-core kinds that are exact core events, by table (NO_EV: from a
     * model). */
    UChar kind_event[HPM_K_CORE_COUNT];
    /* The same for core_kinds_from_raw, without a branch per kind: the
     * event (0 where none) and a mask that keeps its value (0 where none). */
    UChar kind_event_ix[HPM_K_CORE_COUNT];
    ULong kind_event_keep[HPM_K_CORE_COUNT];
    /* The live block's lanes in event order: live_event[slot] is the event
     * of lane `slot` (word slot / 2, low half for even slots): the
     * profile's snapshot reads the block word by word. */
    UChar live_event[2 * VPMU_LIVE_WORDS];
    /* The profile's last statistics, per core and the node's, which its
     * deltas are taken against (vpmu_node.c's prof_delta) */
    ULong (*prof_last_core)[VPMU_PR_CORE_N];
    ULong prof_last_node[VPMU_PR_N];
    /* Each core's folded exact events in lane order (cores[].ev's mirror,
     * kept by a profile): vpmu_node_prof_snapshot_lanes. */
    ULong (*prof_base_lane)[2 * VPMU_LIVE_WORDS];
    /* a programmed event counts one of getrusage's kinds (vpmu_io.h) */
    Bool want_rusage;
    ULong net_gen; /* HPM_VPMU_NET reports so far: the network's generation */
    vpmu_node_batch_sink batch_sink; /* the UPC trace's (vpmu_node.h) */
};
extern struct vpmu_node_models node;

/* vpmu_node.c: start-up, and the event values */
/* The models and the instrumentation's needs; codes: the events asked for
 * (HPM_CAT_CODES), returns how many. */
UInt node_models_init(UInt *codes);
void *node_zalloc(const HChar *cc, SizeT n);
UInt node_running_models(void);
/* A spec (a code and its counting mode) the machine provides. */
Bool node_code_ok(UInt spec, UInt *kind, Int *core);
UInt node_spec_level(UInt spec);
/* a - b, 0 when b is larger (inline: a flush takes it for every kind that
 * moved) */
static inline ULong node_sub_sat(ULong a, ULong b)
{
    return a > b ? a - b : 0;
}
void node_raw_core(UInt c, ULong *raw);
void node_raw_node(ULong *raw);
void core_kinds_from_raw(const ULong *raw, const ULong *e, ULong *kv);
void node_kinds_from_raw(const ULong *raw, ULong *nv);
void node_core_values(UInt c, ULong *kv);
ULong node_cycles(void);
void node_values_from(const ULong *raw, ULong *nv);
void node_values(ULong *nv);
void node_coh_replay(void);
Bool node_coh_replay_final(void);

/* What is programmed on the UPCs (vpmu_node_upc.c owns it), read back by
 * vpmu_node_mmio.c. */
struct vpmu_node_prog {
    UInt n_ev; /* programmed events, in request order */
    UShort ev_code[HPM_CAT_CODES];
    UChar ev_mode[HPM_CAT_CODES]; /* enum hpm_cat_mode = enum hpm_upc_mode */
    UChar ev_upc[HPM_CAT_CODES];
    UShort ev_counter[HPM_CAT_CODES];
    /* Per code, its level-high event (-1: none). */
    Short lh_index[HPM_CAT_CODES];
    /* Per core and kind, its programmed level-high event (what an
     * accounting reads back), or NOT_PROGRAMMED. */
    UShort core_kind_ev[HPM_CAT_MAX_CORES][HPM_K_CORE_COUNT];
    struct hpm_upc *upcs[MAX_UPCS];
    UInt n_upcs;
    /* Whether each event's UPC counter may have changed since it was last
     * read (vpmu_node_mmio.c). */
    UChar ev_stale[HPM_CAT_CODES];
    /* Per core, the kinds whose UPC value may differ from what the last
     * accounting credited (vpmu_node_core_credit): those a flush fed,
     * every kind after a register access or a reprogramming. The others
     * read and credit nothing. */
    ULong credit_due[HPM_CAT_MAX_CORES];
};
_Static_assert(HPM_K_CORE_COUNT <= 64, "a core's kinds in one word");
extern struct vpmu_node_prog prog;

/* vpmu_node_upc.c */
/* Every counter may have changed (a register access, a reprogramming). */
void node_upc_touched(void);
/* The batch that reads gathered (vpmu_node_flush_read) to the units:
 * first in whatever reads or changes them. */
void node_feed_gathered(void);
/* The modes' definitions restart from their values now. */
void node_modes_rebase(void);

#endif /* HPM_VPMU_NODE_INT_H */
