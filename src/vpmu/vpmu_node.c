/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_node.c - the modeled node of the hpm virtual PMU (see vpmu_node.h):
 * the access helpers that instrumented code calls, with the models compiled
 * in, their state per core, and the event values per catalog kind made of
 * it. The UPCs' programming and feeding (vpmu_node_upc.c), their control
 * and reads (vpmu_node_mmio.c) and a profile's snapshots
 * (vpmu_node_prof.c) are files of their own above this one
 * (vpmu_node_int.h).
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"

/* The models are compiled into this file, as cachegrind includes cg_sim.c
 * into its instrumentation: the L1 hit path (hier_access_inline), the TLB
 * and the predictor then inline into the helpers that instrumented code
 * calls, instead of costing a chain of calls per access. CMakeLists.txt
 * leaves src/model's files out of the tool's sources for this. */
#include "cache.c"
#include "cache_probe.h"
#include "hier.c"
#include "bpred.c"
#include "timing.c"

#include "catalog.h"
#include "hpm/upc.h"
#include "machine_wire.h"
#include "vpmu_cohtime.h"
#include "vpmu_io.h"
#include "vpmu_modes.h"
#include "vpmu_node_int.h"
#include "vpmu_profile.h"
#include "vpmu_sample.h"
#include "vpmu_state.h"
#include "vpmu_turns.h"
#include "vpmu_upctrace.h"

/* ------------------------------------------------------------------ state */

struct vpmu_node_models node;

static Bool machine_given;
static const HChar *clo_events = "all";
static Bool clo_filter = True;
static Bool clo_gather_reads = True;
/* --hpm-model=on-demand (hpm run): the models the programmed events need
 * are set up at start but run only from the first HPM_VPMU_MODEL request,
 * so a node_program that never asks for a modeled event runs at the speed of
 * the exact core events. */
static Bool clo_model_on_demand = False;
static Bool models_waiting; /* on demand, some model not yet asked for */
static Bool wait_hier, wait_bpred, wait_tlb;
/* the cores this process's threads run on (--hpm-first-core,
 * --hpm-core-count): a rank of an MPI job sharing its node takes its share,
 * otherwise every core */
static Long clo_first_core, clo_core_count;
static UInt features;
static Bool run_hier, run_bpred, run_tlb;
static UInt ll_line; /* line size of the level that fills from DDR */
static UInt dline_bits, iline_bits; /* log2 of the L1D / L1I filter granules */
static UInt dpage_bits, ipage_bits; /* log2 of the DTLB / ITLB pages */
static Bool filter_d, filter_i; /* off without an L1: L2 hits move the prefetcher */
static Bool if_skip_on;         /* vpmu_node_ifetch_skip_bits() >= 0 */
static Bool if_mru_on;          /* vpmu_node_ifetch_mru() */
/* A scanned LRU L1D, no sampler: the helpers answer a hit on way 0 of its
 * set themselves (data_access), before the probe. Off while the models
 * wait, as a store's dirty bit would change the cache. */
static Bool d_mru_on, d_mru_when_run;
/* An indexed L1D whose hits change nothing (FIFO, RANDOM: BG/P's), its
 * hints, and an indexed DTLB, no sampler: the probe answers a hint hit
 * whose page the DTLB's memo holds in a function without a frame
 * (data_probe), before its body (data_probe_body). Off while the models
 * wait. */
static Bool d_hint_on, d_hint_when_run;
static Bool i_hint_on, i_hint_when_run; /* the same for the L1I and ITLB (ifetch_probe) */
/* The L1Ds are coherent (hpm_hier_params.coherence, more than one core): a
 * store to a line not held dirty is a coherence request, so the probes
 * answer a store only on a dirty line (dirty means exclusive), or on a
 * clean one that the model's sharers summary says no other core holds
 * (coh_store_private counts the request), and leave the others to the
 * models. */
static Bool coh_on;
/* The node's L1Ds are coherent; coh_on is set once a second core runs
 * (before that no other core holds a line: a single-threaded node_program
 * keeps every probe). The first core that ran. */
static Bool coh_node;
static Int coh_first_core = -1;
/* --hpm-coherence=time (with --hpm-interleave's turns, which give each
 * thread its modeled time): the contended lines' accesses take the private
 * path when they are made and are logged (vpmu_cohtime.c); node_coh_replay
 * replays what no thread can precede any more, in time order
 * (hpm_hier_coh_replay), and the coherence misses the replay finds are
 * counted then (docs/vpmu.md, "Coherence in modeled time"). coh_logging:
 * some line is contended, so the helpers look their lines up. */
static Bool coh_logging;
static UInt coh_lines_seen, coh_line_shift;
/* The pages (4 KiB) that hold a contended line: bits of their numbers'
 * hash, made again from the table whenever it grew (coh_lines_new).
 * coh_clean_ok: the filter's granule is the contended lines', at most a
 * page (coh_page_clean applies). */
#define COH_PAGE_SHIFT 12u
#define COH_PAGE_HASH_BITS 12u
static ULong coh_pages[(1u << COH_PAGE_HASH_BITS) / 64];
static Bool coh_clean_ok;
/* The contended line's accesses are answered by a filter of their own
 * (core_state.cline_valid): where an L1D hit changes nothing (FIFO, RANDOM:
 * `bgp`), with the filter on and the probe's granule the line. A line's
 * hits then leave the first filter's line in place, so that a loop over a
 * contended line and another line answers both without a probe. */
static Bool coh_side;

/* The bit of page (a page number) in coh_pages: its word's index, and the
 * bit in that word (*bit). */
static inline UInt coh_page_word(Addr page, UInt *bit)
{
    ULong hb = hpm__fib_hash(page, 64 - COH_PAGE_HASH_BITS);
    *bit = (UInt)(hb & 63);
    return (UInt)(hb >> 6);
}

static struct hpm_hier *hier;
static struct core_state *cur;
/* The running core's predictor: what the branch helpers read first, one
 * load away rather than two through cur. */
static struct hpm_bpred *cur_bp;

static void prof_delta(int kind, int served, ULong *data);
ULong *vpmu_prof_sink;

/* The sinks (vpmu_node.h): the only way the node reaches the profile, the
 * sampler and the UPC trace, which call the node; registered at start. */
static vpmu_node_access_sink access_sink;
static vpmu_node_data_raw_sink data_raw_sink;
static vpmu_node_data_prefetch_sink data_prefetch_sink;

void vpmu_node_sink_access(vpmu_node_access_sink fn)
{
    access_sink = fn;
}

void vpmu_node_sink_data(vpmu_node_data_raw_sink raw, vpmu_node_data_prefetch_sink prefetch)
{
    data_raw_sink = raw;
    data_prefetch_sink = prefetch;
}

void vpmu_node_sink_batch(vpmu_node_batch_sink fn)
{
    node.batch_sink = fn;
}


static void live_event_make(void)
{
    Int e;
    for (e = 0; e < VPMU_EV_COUNT; e++)
        node.live_event[vpmu_live_slot(e)] = (UChar)e;
}
_Static_assert(2 * VPMU_LIVE_WORDS == VPMU_EV_COUNT, "every lane holds an event");


static void init_kind_event(void)
{
    /* the catalog's tool-event column names the exact counter each exact
     * kind is (the catalog is the one per-event table; tests/catalog
     * checks that every name it gives is one of vpmu_events.h's) */
    static const HChar *const names[VPMU_EV_COUNT] = VPMU_EVENT_NAME_INIT;
    UInt k, e;
    for (k = 0; k < HPM_K_CORE_COUNT; k++) {
        const HChar *tool = hpm_catalog_kind(k)->tool_event;
        node.kind_event[k] = NO_EV;
        node.kind_event_ix[k] = 0;
        node.kind_event_keep[k] = 0;
        if (!tool[0])
            continue;
        for (e = 0; e < VPMU_EV_COUNT && VG_(strcmp)(names[e], tool) != 0; e++)
            ;
        tl_assert2(e < VPMU_EV_COUNT, "catalog kind %s: no tool event '%s'",
                   hpm_catalog_kind(k)->name, tool);
        node.kind_event[k] = (UChar)e;
        node.kind_event_ix[k] = (UChar)e;
        node.kind_event_keep[k] = ~0ULL;
    }
}

/* ---------------------------------------------------------------- options */

Bool vpmu_node_option(const HChar *arg)
{
    const HChar *wire = NULL;
    if VG_STR_CLO (arg, "--hpm-machine", wire) {
        if (hpm_machine_wire_decode(&node.machine, wire) != 0)
            VG_(fmsg_bad_option)(arg, "not a machine encoding of this hpm build "
                                      "(pass machines with hpm count --machine)\n");
        machine_given = True;
    } else if VG_STR_CLO (arg, "--hpm-events", clo_events) {
    } else if VG_BINT_CLO (arg, "--hpm-first-core", clo_first_core, 0, HPM_CAT_MAX_CORES - 1) {
    } else if VG_BINT_CLO (arg, "--hpm-core-count", clo_core_count, 1, HPM_CAT_MAX_CORES) {
    } else if (VG_(strcmp)(arg, "--hpm-coherence=time") == 0) {
        node.clo_coh_time = True;
    } else if (VG_(strcmp)(arg, "--hpm-coherence=slices") == 0) {
        node.clo_coh_time = False;
    } else if (VG_(strncmp)(arg, "--hpm-coherence=", 16) == 0) {
        VG_(fmsg_bad_option)(arg, "expected time or slices\n");
    } else if VG_BOOL_CLO (arg, "--hpm-sure-hit-filter", clo_filter) {
    } else if VG_BOOL_CLO (arg, "--hpm-gather-reads", clo_gather_reads) {
    } else if (VG_(strcmp)(arg, "--hpm-model=always") == 0) {
        clo_model_on_demand = False;
    } else if (VG_(strcmp)(arg, "--hpm-model=on-demand") == 0) {
        clo_model_on_demand = True;
    } else if (VG_(strncmp)(arg, "--hpm-model=", 12) == 0) {
        VG_(fmsg_bad_option)(arg, "expected always or on-demand\n");
    } else {
        return False;
    }
    return True;
}

void vpmu_node_usage(void)
{
    VG_(printf)(
        "    --hpm-machine=WIRE        the machine model, as encoded by hpm count\n"
        "                              [a generic one-core node]\n"
        "    --hpm-events=all|CODE,... catalog codes to count in the UPC [all]\n"
        "    --hpm-first-core=N --hpm-core-count=N  the cores the threads run on\n"
        "                              (a rank's share of a shared node) [all]\n"
        "    --hpm-sure-hit-filter=yes|no  skip model calls for repeated accesses\n"
        "                              to the last L1 line (exact; for checking) [yes]\n"
        "    --hpm-gather-reads=yes|no  a program's reads of its own counts (and the\n"
        "                              overflow check of a modeled kind) gather the\n"
        "                              UPC's batch instead of feeding it, where only\n"
        "                              its sums count (exact; for checking) [yes]\n"
        "    --hpm-coherence=time|slices  the contended lines' accesses in the\n"
        "                              threads' modeled time (with --hpm-interleave),\n"
        "                              or in the order the threads run [slices]\n"
        "    --hpm-model=always|on-demand  run the cache, TLB, predictor and timing\n"
        "                              models from the start, or only from the\n"
        "                              program's first HPM_VPMU_MODEL() [always]\n");
}

/* ------------------------------------------------------------------- init */

UInt node_running_models(void)
{
    return (run_hier ? HPM_NEED_HIER : 0) | (run_bpred ? HPM_NEED_BPRED : 0) |
           (run_tlb ? HPM_NEED_TLB : 0) | (node.run_timing ? HPM_NEED_TIMING : 0);
}

void *node_zalloc(const HChar *cc, SizeT n)
{
    return VG_(calloc)(cc, 1, n ? n : 1);
}

static void need_ok(int rc, const HChar *what)
{
    if (rc != 0) {
        VG_(fmsg_bad_option)("--hpm-machine", "invalid %s parameters in machine '%s'\n", what,
                             node.machine.name);
        VG_(exit)(1); /* after start-up, a bad option does not end the run */
    }
}

/* A spec (a code and its counting mode) the machine provides. */
Bool node_code_ok(UInt spec, UInt *kind, Int *core)
{
    return hpm_catalog_spec_decode(spec, kind, core, NULL) == 0 &&
           hpm_catalog_provided(*kind, *core, node.n_cores, features);
}

/* The instrumentation a spec needs (a mode: the timing model's). */
UInt node_spec_level(UInt spec)
{
    UInt kind;
    Int core;
    if (hpm_catalog_spec_needs(spec) & (HPM_NEED_FULL | HPM_NEED_TIMING))
        return VPMU_LEVEL_FULL;
    if (hpm_catalog_spec_decode(spec, &kind, &core, NULL) == 0 && kind == HPM_K_INSTRUCTIONS)
        return VPMU_LEVEL_INSN;
    return VPMU_LEVEL_CORE;
}

static UInt parse_codes(const HChar *s, UInt *codes)
{
    UInt n = 0, i, kind;
    Int core;
    if (VG_(strcmp)(s, "all") == 0) {
        for (i = 0; i < HPM_CAT_CODES; i++)
            if (node_code_ok(i, &kind, &core))
                codes[n++] = i;
        return n;
    }
    while (*s) {
        ULong v = 0;
        UInt digits = 0;
        while (*s >= '0' && *s <= '9' && v < 100000) {
            v = v * 10 + (ULong)(*s++ - '0');
            digits++;
        }
        if (digits == 0 || (*s && *s != ',') || v >= HPM_CAT_SPECS || n == HPM_CAT_CODES) {
            VG_(fmsg_bad_option)("--hpm-events", "expected 'all' or at most 1024 event specs "
                                                 "0..4095 (code + 1024 * mode) separated by "
                                                 "commas\n");
            VG_(exit)(1); /* after start-up, a bad option does not end the run */
        }
        if (!node_code_ok((UInt)v, &kind, &core)) {
            VG_(fmsg_bad_option)("--hpm-events", "event code %llu is not provided by machine "
                                                 "'%s' (%u cores)\n",
                                 v, node.machine.name, node.n_cores);
            VG_(exit)(1); /* after start-up, a bad option does not end the run */
        }
        for (i = 0; i < n; i++)
            if (codes[i] == v) {
                VG_(fmsg_bad_option)("--hpm-events", "event code %llu given twice\n", v);
                VG_(exit)(1); /* after start-up, a bad option does not end the run */
            }
        codes[n++] = (UInt)v;
        if (*s == ',')
            s++;
    }
    return n;
}

/* The machine's cores, and this process's share of them. */
static void init_cores_check(void)
{
    if (!machine_given)
        hpm_machine_defaults(&node.machine);
    node.n_cores = node.machine.hier.cores;
    if (node.n_cores < 1 || node.n_cores > HPM_CAT_MAX_CORES) {
        VG_(fmsg_bad_option)("--hpm-machine", "machine '%s' has %u cores; the virtual PMU "
                                              "models 1 to %d\n", node.machine.name, node.n_cores,
                             HPM_CAT_MAX_CORES);
        VG_(exit)(1); /* after start-up, a bad option does not end the run */
    }
    if (!clo_core_count)
        clo_core_count = node.n_cores - clo_first_core;
    if (clo_first_core + clo_core_count > node.n_cores) {
        VG_(fmsg_bad_option)("--hpm-first-core", "cores %lld to %lld of a %u-core machine\n",
                             clo_first_core, clo_first_core + clo_core_count - 1, node.n_cores);
        VG_(exit)(1);
    }
}

/* The models the n programmed codes need, and the level they are
 * instrumented at. */
static void init_models_needed(const UInt *codes, UInt n)
{
    UInt i, needs = 0;
    node.level = VPMU_LEVEL_INSN;
    for (i = 0; i < n; i++) {
        needs |= hpm_catalog_spec_needs(codes[i]);
        if ((Int)node_spec_level(codes[i]) > node.level)
            node.level = (Int)node_spec_level(codes[i]);
    }
    node.run_timing = (needs & HPM_NEED_TIMING) != 0;
    run_hier = node.run_timing || (needs & HPM_NEED_HIER);
    run_bpred = node.run_timing || (needs & HPM_NEED_BPRED);
    run_tlb = node.run_timing || (needs & HPM_NEED_TLB);
    if (vpmu_state.on.latency) {
        /* the latency histogram: the level that served each access and
         * its TLB lookup */
        run_hier = True;
        run_tlb = True;
    }
    if (run_hier || run_bpred || run_tlb)
        node.level = node.level > VPMU_LEVEL_CORE ? node.level : VPMU_LEVEL_CORE;
}

/* The core knows no clean page and no clear line. */
static void coh_clean_forget(struct core_state *s)
{
    UInt i;
    for (i = 0; i < COH_CLEAN_SLOTS; i++)
        s->coh_clean[i] = s->coh_clear[i] = ~(Addr)0;
}

/* A line entered the model's table (hpm_hier_coh_defer): no core's clean
 * page or clear line is known clean any more (coh_clean_known trusts them
 * alone). The rest of what a new line changes waits for data_model's end
 * (coh_lines_new), where coh_page_clean finds the table grew. */
static void coh_line_entered(void *arg)
{
    UInt c;
    (void)arg;
    for (c = 0; c < node.n_cores; c++)
        coh_clean_forget(&node.cores[c]);
}

/* The memory system the node shares, with coherence in modeled time. */
static void init_hier(void)
{
    SizeT sz;
    need_ok(hpm_hier_params_check(&node.machine.hier), "cache");
    sz = hpm_hier_storage_size(&node.machine.hier);
    need_ok(hpm_hier_init(&hier, &node.machine.hier, node_zalloc("hpm.hier", sz), sz), "cache");
    coh_node = hier->coh_on != 0;
    if (node.clo_coh_time && !vpmu_state.on.turns) {
        VG_(fmsg_bad_option)("--hpm-coherence=time", "needs --hpm-interleave=N (the "
                                                     "threads' modeled time)\n");
        VG_(exit)(1); /* after start-up, a bad option does not end the run */
    }
    if (node.clo_coh_time && hier->coh_lines) {
        hpm_hier_coh_defer(hier, coh_line_entered, NULL);
        node.coh_time = True;
    }
}

/* Each core's own models: its TLBs and its branch predictor. */
static void init_core_models(struct core_state *c)
{
    SizeT sz;
    if (run_tlb) {
        need_ok(hpm_tlb_params_check(&node.machine.itlb), "itlb");
        need_ok(hpm_tlb_params_check(&node.machine.dtlb), "dtlb");
        sz = hpm_tlb_storage_size(&node.machine.itlb);
        need_ok(hpm_tlb_init(&c->itlb, &node.machine.itlb, node_zalloc("hpm.tlb", sz), sz), "itlb");
        sz = hpm_tlb_storage_size(&node.machine.dtlb);
        need_ok(hpm_tlb_init(&c->dtlb, &node.machine.dtlb, node_zalloc("hpm.tlb", sz), sz), "dtlb");
        hpm_tlb_memo_clear(c->dmemo);
        hpm_tlb_memo_clear(c->imemo);
    }
    c->coh_line = ~(Addr)0; /* no line logged yet */
    c->coh_shared_page = ~(Addr)0; /* none known */
    coh_clean_forget(c);
    if (run_bpred) {
        need_ok(hpm_bpred_params_check(&node.machine.branch), "branch");
        sz = hpm_bpred_storage_size(&node.machine.branch);
        need_ok(hpm_bpred_init(&c->bp, &node.machine.branch, node_zalloc("hpm.bp", sz), sz),
                "branch");
    }
}

static UInt log2_floor(ULong v)
{
    UInt bits = 0;
    while (((ULong)1 << (bits + 1)) <= v)
        bits++;
    return bits;
}

/* The sure-hit filters' granules: the L1 line, but never larger than a TLB
 * page. */
static void init_filters(void)
{
    ULong d = node.machine.hier.l1d.line, ip = node.machine.hier.l1i.line;
    if (run_tlb && node.machine.dtlb.page_size < d)
        d = node.machine.dtlb.page_size;
    if (run_tlb && node.machine.itlb.page_size < ip)
        ip = node.machine.itlb.page_size;
    if (!run_hier) { /* TLB only: the page is the granule */
        d = node.machine.dtlb.page_size;
        ip = node.machine.itlb.page_size;
    }
    filter_d = clo_filter && (!run_hier || node.machine.hier.l1d.size != 0);
    filter_i = clo_filter && (!run_hier || node.machine.hier.l1i.size != 0);
    dline_bits = log2_floor(d);
    iline_bits = log2_floor(ip);
    dpage_bits = run_tlb ? log2_floor(node.machine.dtlb.page_size) : 0;
    ipage_bits = run_tlb ? log2_floor(node.machine.itlb.page_size) : 0;
}

/* The L1 probes, and the hits the helpers answer before them. */
static void init_probes(void)
{
    UInt i;
    if (run_hier && clo_filter) {
        /* the L1 probe looks lines up by the filter's granule: only where
         * the granule is the L1's line */
        for (i = 0; i < node.n_cores; i++) {
            struct hpm_cache *l1d = hier->cache[i][1], *l1i = hier->cache[i][0];
            if (l1d && filter_d && l1d->line_bits == dline_bits)
                node.cores[i].l1d_probe = l1d;
            if (l1i && filter_i && l1i->line_bits == iline_bits)
                node.cores[i].l1i_probe = l1i;
        }
    }
    /* (under LRU, hits off the MRU way change the L1I: in cachegrind's
     * geometry a fetch in five reaches the models, and skipping took 18%
     * of the fetch calls away for nothing measurable; there each fetch
     * call is guarded by its line's way 0 instead, if_mru_on) */
    if (run_hier && filter_i && node.n_cores > 0 && hier->cache[0][0] &&
        (node.machine.hier.l1i.policy == HPM_REPL_FIFO ||
         node.machine.hier.l1i.policy == HPM_REPL_RANDOM))
        if_skip_on = True; /* hits change nothing in these (vpmu_node.h) */
    if (run_hier && filter_i && !if_skip_on && node.n_cores > 0 && node.cores[0].l1i_probe &&
        !node.cores[0].l1i_probe->index && node.machine.hier.l1i.policy == HPM_REPL_LRU)
        if_mru_on = True; /* an MRU hit changes nothing (vpmu_node.h) */
    if (run_hier && filter_d && !vpmu_state.on.sample_access && node.n_cores > 0 &&
        node.cores[0].l1d_probe && !node.cores[0].l1d_probe->index &&
        node.machine.hier.l1d.policy == HPM_REPL_LRU)
        d_mru_on = d_mru_when_run = True;
    if (run_hier && run_tlb && filter_d && !vpmu_state.on.sample_access && node.n_cores > 0 &&
        node.cores[0].l1d_probe && hpm__hinted(node.cores[0].l1d_probe) &&
        node.cores[0].dtlb->c.index)
        d_hint_on = d_hint_when_run = True;
    if (run_hier && run_tlb && filter_i && node.n_cores > 0 && node.cores[0].l1i_probe &&
        hpm__hinted(node.cores[0].l1i_probe) && node.cores[0].itlb->c.index)
        i_hint_on = i_hint_when_run = True;
    for (i = 0; i < node.n_cores; i++) {
        struct core_state *s = &node.cores[i];
        if (d_hint_when_run) {
            s->dhint = s->l1d_probe->hint;
            s->dhint_shift = s->l1d_probe->hint_shift;
        }
        if (i_hint_when_run) {
            s->ihint = s->l1i_probe->hint;
            s->ihint_shift = s->l1i_probe->hint_shift;
        }
    }
}

/* --hpm-model=on-demand: everything is allocated and sized for the models;
 * they wait for the first request. */
static void init_models_wait(void)
{
    if (!clo_model_on_demand || !(run_hier || run_bpred || run_tlb || node.run_timing))
        return;
    models_waiting = True;
    wait_hier = run_hier;
    wait_bpred = run_bpred;
    wait_tlb = run_tlb;
    node.wait_timing = node.run_timing;
    run_hier = run_bpred = run_tlb = node.run_timing = False;
    d_mru_on = d_hint_on = i_hint_on = False;
}

UInt node_models_init(UInt *codes)
{
    UInt n, i;

#if defined(HPM_VPMU_FLOOR)
    VG_(umsg)("hpm: the floor build: the models do not run, modeled counts are not "
              "the models' (for bench/vpmu only)\n");
#endif
    node.clo_gather_reads = clo_gather_reads;
    init_kind_event();
    live_event_make();
    init_cores_check();
    features = hpm_catalog_features(&node.machine.hier) | (node.machine.torus.x ? HPM_NEED_NET : 0);
    n = parse_codes(clo_events, codes);
    init_models_needed(codes, n);
    node.cores = node_zalloc("hpm.cores", node.n_cores * sizeof *node.cores);
    if (run_hier)
        init_hier();
    ll_line = node.machine.hier.l3.size   ? node.machine.hier.l3.line
              : node.machine.hier.l2.size ? node.machine.hier.l2.line
                                     : node.machine.hier.l1d.line;
    for (i = 0; i < node.n_cores; i++)
        init_core_models(&node.cores[i]);
    init_filters();
    init_probes();
    init_models_wait();
    vpmu_node_set_core((UInt)clo_first_core);
    return n;
}

Bool vpmu_node_models_waiting(void)
{
    return models_waiting;
}

Bool vpmu_node_models_on(UInt needs)
{
    Bool mem, bpred, started = False;
    if (!models_waiting)
        return False;
    /* every model for the old request (no mask) and for cycles, which
     * the timing model computes from all of them */
    if (needs == 0 || (needs & HPM_NEED_TIMING))
        needs = HPM_NEED_MODELS;
    /* the caches and the TLBs start together: the probes and the filter's
     * granule were set up for both */
    mem = (needs & (HPM_NEED_HIER | HPM_NEED_TLB)) != 0 && (wait_hier || wait_tlb) &&
          !(run_hier || run_tlb);
    bpred = (needs & HPM_NEED_BPRED) != 0 && wait_bpred && !run_bpred;
    if (mem) {
        run_hier = wait_hier;
        run_tlb = wait_tlb;
        d_mru_on = d_mru_when_run;
        d_hint_on = d_hint_when_run;
        i_hint_on = i_hint_when_run;
        started = True;
    }
    if (bpred) {
        run_bpred = True;
        started = True;
    }
    /* asked for, every model it reads runs now */
    if ((needs & HPM_NEED_TIMING) && node.wait_timing && !node.run_timing) {
        node.run_timing = True;
        started = True;
    }
    models_waiting = run_hier != wait_hier || run_tlb != wait_tlb || run_bpred != wait_bpred ||
                     node.run_timing != node.wait_timing;
    return started;
}

/* ------------------------------------------------------ instrumentation info */

Int vpmu_node_level(void)
{
    return node.level;
}

Bool vpmu_node_want_mem(void)
{
    return run_hier || run_tlb;
}
Bool vpmu_node_want_ifetch(void)
{
    return run_hier || run_tlb;
}
Bool vpmu_node_want_branch(void)
{
    return run_bpred;
}
UInt vpmu_node_ifetch_line(void)
{
    /* grouping must not skip a page change either: the smaller of the two */
    UInt line = node.machine.hier.l1i.line ? node.machine.hier.l1i.line : 64;
    if (node.machine.itlb.page_size && node.machine.itlb.page_size < line)
        line = (UInt)node.machine.itlb.page_size;
    return line;
}

UInt vpmu_node_core_of(UInt serial)
{
    return (UInt)clo_first_core + (serial == 0 ? 0 : (serial - 1) % (UInt)clo_core_count);
}

/* ------------------------------------------------ skipping sure-hit fetches */

ULong vpmu_if_gen = 1;
Addr vpmu_if_page;
ULong *vpmu_l1i_tags;
Bool vpmu_node_ifetch_mru(UInt *ways, ULong *set_mask, Int *page_bits)
{
    const struct hpm_cache *c = node.cores[0].l1i_probe;
    if (!if_mru_on)
        return False;
    *ways = c->ways;
    *set_mask = c->set_mask;
    *page_bits = run_tlb ? (Int)ipage_bits : 0;
    return True;
}

Int vpmu_node_ifetch_skip_bits(void)
{
    return if_skip_on ? (run_tlb ? (Int)ipage_bits : 0) : -1;
}

/* The running core's L1I changed, or the running core did. */
static inline void if_gen_bump(void)
{
    vpmu_if_gen++;
}

/* The running core's MRU ITLB page, as the skip compares it. */
static inline void if_page_sync(const struct core_state *s)
{
    if ((if_skip_on || if_mru_on) && run_tlb)
        vpmu_if_page = s->ipage_valid ? s->ipage : ~(Addr)0;
}

void vpmu_node_set_core(UInt core)
{
    tl_assert(core < node.n_cores);
    if (node.coh_time)
        node_coh_replay(); /* a turn passed: the clocks moved */
    if (coh_node && !coh_on) {
        if (coh_first_core < 0)
            coh_first_core = (Int)core;
        else if ((Int)core != coh_first_core)
            coh_on = True;
    }
    if (coh_on) {
        ULong g = hpm_hier_coh_gen(hier, core);
        if (g != node.cores[core].coh_gen) {
            node.cores[core].coh_gen = g;
            node.cores[core].dline_valid = node.cores[core].cline_valid = False;
        }
    }
    if (cur != &node.cores[core])
        if_gen_bump();
    node.cur_core = core;
    cur = &node.cores[core];
    cur->ran = True;
    cur_bp = cur->bp;
    if (if_mru_on)
        vpmu_l1i_tags = (ULong *)cur->l1i_probe->tags;
    if_page_sync(cur);
}

void vpmu_node_add_core_events(UInt core, const ULong *ev, ULong moved)
{
    ULong m;
    Int e;
    tl_assert(core < node.n_cores);
    for (m = moved; m; m &= m - 1) {
        e = __builtin_ctzll(m);
        node.cores[core].ev[e] += ev[e];
    }
    if (node.prof_base_lane)
        for (m = moved; m; m &= m - 1) {
            e = __builtin_ctzll(m);
            node.prof_base_lane[core][vpmu_live_slot(e)] += ev[e];
        }
    node.cores[core].ran = True;
}

/* ----------------------------------------------------------- dirty helpers */

/* The floor build (HPM_VPMU_FLOOR, target hpm_vpmu_floor, for bench/vpmu):
 * every model helper returns at its entry. The translations and their calls
 * are the same, so a run's time less that of this build is what the models'
 * work costs. Its modeled counts are not the models' (vpmu_node_init says
 * so); nothing but the bench runs it. */
#if defined(HPM_VPMU_FLOOR)
#define FLOOR_RETURN() return
#else
#define FLOOR_RETURN() \
    do {               \
    } while (0)
#endif

/* ------------------------------------------- coherence in modeled time */

/* Lines became contended: the sure-hit filter forgets its lines (a
 * contended line's accesses must reach the log), and the helpers look
 * lines up from now on. */
static __attribute__((noinline)) void coh_lines_new(void)
{
    UInt c, i, bit;
    coh_lines_seen = hier->coh_nlines;
    coh_line_shift = hier->cache[0][1]->line_bits;
    coh_logging = True;
    coh_clean_ok = filter_d && coh_line_shift == dline_bits && coh_line_shift <= COH_PAGE_SHIFT;
    coh_side = coh_clean_ok && hier->cache[0][1]->policy != HPM_REPL_LRU;
    VG_(memset)(coh_pages, 0, sizeof coh_pages);
    for (i = 0; i < HPM__COH_LINES_CAP; i++)
        if (hier->coh_lines[i].addr)
            coh_pages[coh_page_word(hier->coh_lines[i].addr >> COH_PAGE_SHIFT, &bit)] |=
                (ULong)1 << bit;
    /* (the clean pages and clear lines were forgotten as each line
     * entered: coh_line_entered) */
    for (c = 0; c < node.n_cores; c++) {
        node.cores[c].dline_valid = node.cores[c].cline_valid = False;
        node.cores[c].coh_shared_page = ~(Addr)0;
    }
}

/* A TLB access unless it is within the page of the previous one; 1 = a
 * miss. */
static inline __attribute__((always_inline)) int tlb_access(struct hpm_tlb *t,
                                                            struct hpm_tlb_memo *memo, Addr *page,
                                                            Bool *valid, UInt bits, Addr a,
                                                            SizeT size)
{
    Addr first = a >> bits, last = (a + (size ? size : 1) - 1) >> bits;
    int miss;
    if (first == last && *valid && first == *page)
        return 0;
    miss = hpm_tlb_access(t, a, (uint32_t)size);
    if (UNLIKELY(miss))
        hpm_tlb_memo_clear(memo); /* a fill moved a slot's page */
    *page = last; /* touched last: the MRU entry */
    *valid = clo_filter;
    return miss;
}

/* Profile: n more of raw statistic i, caused by the running instruction
 * (the common cases, known from the models' return values; everything
 * else is found by prof_delta). */
static inline __attribute__((always_inline)) void prof_add(UInt i, ULong n)
{
    vpmu_prof_sink[i] += n;
    if (i < VPMU_PR_CORE_N)
        node.prof_last_core[node.cur_core][i] += n;
    else
        node.prof_last_node[i] += n;
}

/* Profile: the lines of the cost center that a miss adds to (served
 * below the L1, the prefetcher, the L3 and the memory: the raw vector's
 * second half), asked for before the models run. A model call that the
 * probe did not answer is nearly always a miss, and the cost center is
 * cold memory: the add waited for it after the models. */
static inline __attribute__((always_inline)) void prof_prefetch_sink(void)
{
    __builtin_prefetch(vpmu_prof_sink + VPMU_PR_SRV_AT(0, HPM_SERVED_L2), 1);
    __builtin_prefetch(vpmu_prof_sink + VPMU_PR_L1D_WB, 1);
    __builtin_prefetch(vpmu_prof_sink + VPMU_PR_L3, 1);
}

/* Profile: what one hierarchy access of the running instruction changed.
 * An access served by the L1 (every line it touches hit) changes only its
 * access and served counters: no fill, so no write-back, no prefetch,
 * nothing below. Anything else is diffed, into the cost center and data
 * (the access's data object's raw statistics; NULL for a fetch). */
static inline __attribute__((always_inline)) void prof_access(int kind, int served, ULong *data)
{
    /* Served at L1: nothing for a profile. No kind is computed from an
     * access count or an L1 hit count (core_kinds_from_raw takes the misses from
     * the levels below, the access kinds from the exact events), so a
     * profile's raw vectors leave VPMU_PR_ACC and served-at-L1 at 0: the
     * cost center's line was a cache miss per modeled hit. */
    if (served != HPM_SERVED_L1) /* a data access's miss also counts for its data object */
        prof_delta(kind, served, data);
}

/* The profile's (and sampler's) part of a fetch: kept out of line, so
 * that the common path of the helpers below needs few registers (their
 * prologues and epilogues were a tenth of their time). */
static __attribute__((noinline)) void ifetch_prof(struct core_state *s, Addr a, SizeT len)
{
    Bool tlb_miss = False;
    int served = HPM_SERVED_L1;
    if (run_tlb && tlb_access(s->itlb, s->imemo, &s->ipage, &s->ipage_valid, ipage_bits, a, len)) {
        prof_add(VPMU_PR_ITLB, 1);
        tlb_miss = True;
    }
    if (run_hier) {
        prof_prefetch_sink();
        served = hier_access_inline(hier, node.cur_core, HPM_IFETCH, a, (uint32_t)len);
        prof_access(HPM_IFETCH, served, NULL);
    }
    if (UNLIKELY(vpmu_state.on.sample))
        access_sink(HPM_IFETCH, 0, served, tlb_miss, NULL);
}

/* A fetch that the filter did not answer: the models. */
static __attribute__((noinline)) void ifetch_model(struct core_state *s, Addr a, SizeT len,
                                                   Addr first, Addr last)
{
    ULong fills = if_skip_on ? hier->cache[node.cur_core][0]->st.fills : 0;
    if (UNLIKELY(vpmu_prof_sink != NULL)) {
        ifetch_prof(s, a, len);
    } else {
        if (run_tlb)
            tlb_access(s->itlb, s->imemo, &s->ipage, &s->ipage_valid, ipage_bits, a, len);
        if (run_hier)
            hier_access_inline(hier, node.cur_core, HPM_IFETCH, a, (uint32_t)len);
    }
    s->iline = last;
    s->iline_valid = filter_i && first == last;
    if (if_skip_on) {
        /* only a fill changes a FIFO or random L1I */
        if (hier->cache[node.cur_core][0]->st.fills != fills)
            if_gen_bump();
        if_page_sync(s);
    }
}

/* The L1 probe: an L1 hit needs no model call, like the sure-hit filter's
 * repeats of the last line: the probe (hpm_cache_probe_hit,
 * src/model/cache_probe.h) does what the model's hit does and nothing
 * else happens on a hit. It widens the filter from the last line to the
 * whole L1. The TLB must be a sure hit too: the access's page is its MRU
 * page. Hits go uncounted as the filter's do (a hit adds to accesses and
 * to served-by-L1 alike, and every reported count is a difference of the
 * two), in a profile too: an instruction's L1 hits add 1 to both of its
 * statistics, nothing to any kind (core_kinds_from_raw), nor to a data object
 * (misses only). On coherent L1Ds a store to a clean line is answered only
 * when the model's sharers summary says no other core holds it
 * (coh_store_private counts the request). Returns the line's dirty bit + 1
 * on a hit, 0 to take the models' path. */
static inline __attribute__((always_inline)) UInt l1_probe(struct hpm_cache *c, Addr line,
                                                          Bool write)
{
    unsigned r = hpm_cache_probe_hit(c, line, write, coh_on);
    if (UNLIKELY(r == HPM_PROBE_CLEAN_STORE))
        r = coh_store_private(hier, node.cur_core, line) ? hpm_cache_probe_hit(c, line, write, 0)
                                                    : HPM_PROBE_MISS;
    return r;
}

/* The TLB's part of the probe: a hit on the MRU page (the filter's), or
 * any hit of its entries (hpm_tlb_probe_hit, with the memo of an indexed
 * TLB); the page is then the MRU page. False: a miss, nothing changed.
 * memo_only (an indexed TLB; the probes' paths without a frame,
 * data_probe and ifetch_probe): the MRU page or the memo alone
 * (hpm_tlb_memo_hit), False when the memo does not hold the page. */
static inline __attribute__((always_inline)) Bool tlb_probe(struct hpm_tlb *t,
                                                           struct hpm_tlb_memo *memo, Addr *page,
                                                           Bool *valid, UInt bits, Addr a,
                                                           Bool memo_only)
{
    Addr pg = a >> bits;
    if (*valid && pg == *page)
        return True;
    if (!(memo_only ? hpm_tlb_memo_hit(t, memo, pg) : hpm_tlb_probe_hit(t, memo, pg)))
        return False;
    *page = pg;
    *valid = True;
    return True;
}

/* An access over two lines may be probed line by line when it lies in one
 * page (one TLB probe). A probe that hits before one that misses changes
 * nothing the models' access would not do in the same order (a FIFO hit
 * nothing, an LRU hit the use stamp it takes again: relative ages are the
 * same). */
static inline __attribute__((always_inline)) Bool straddle_probe_ok(Addr a, SizeT len, UInt bits)
{
    return !run_tlb || ((a ^ (a + len - 1)) >> bits) == 0;
}

/* Way 0 of line's set in a scanned cache: its MRU line under LRU, the
 * tag word (line << 1 | dirty) that the way-0 paths compare. */
static inline __attribute__((always_inline)) uint64_t *way0_of(const struct hpm_cache *c,
                                                               Addr line)
{
    return c->tags + (size_t)(line & c->set_mask) * c->ways;
}

/* A fetch that the filter did not answer: the probe, then the models. */
static __attribute__((noinline)) void ifetch_probe_body(struct core_state *s, Addr a, SizeT len,
                                                        Addr first, Addr last)
{
    /* one line, or an instruction across two (on BG/P's 32-byte lines nearly
     * every fetch that reached the models was one, and hit in both) */
    if (s->l1i_probe && run_hier &&
        (first == last || (first + 1 == last && straddle_probe_ok(a, len, ipage_bits))) &&
        (!run_tlb ||
         tlb_probe(s->itlb, s->imemo, &s->ipage, &s->ipage_valid, ipage_bits, a, False)) &&
        (first == last || l1_probe(s->l1i_probe, first, False)) &&
        l1_probe(s->l1i_probe, last, False)) {
        s->iline = last;
        s->iline_valid = True;
        if_page_sync(s); /* the probe may have made another page MRU */
        return;
    }
    ifetch_model(s, a, len, first, last);
}

/* The word of line's hint in a core's copy of an L1's hints (hpm__hint_of
 * without the load of the cache's fields) */
static inline __attribute__((always_inline)) uint64_t core_hint(const uint64_t *hints, UInt shift,
                                                                Addr line)
{
    return hints[hpm__fib_hash(line, shift)];
}

/* ifetch_probe_body's answer for its most common case where i_hint_on, as
 * data_probe's: a fetch of one line that the L1I's hint holds, on a page
 * in the ITLB's memo, without the body's frame. */
static __attribute__((noinline)) void ifetch_probe(struct core_state *s, Addr a, SizeT len,
                                                   Addr first, Addr last)
{
    /* hpm__hint_hit of a fetch, through the core's copy of the hints */
    if (i_hint_on && first == last &&
        (core_hint(s->ihint, s->ihint_shift, first) ^ (first << 1)) < 2 &&
        tlb_probe(s->itlb, s->imemo, &s->ipage, &s->ipage_valid, ipage_bits, a, True)) {
        s->iline = first;
        s->iline_valid = True;
        if_page_sync(s);
        return;
    }
    ifetch_probe_body(s, a, len, first, last);
}

void vpmu_node_ifetch(Addr a, SizeT len)
{
    FLOOR_RETURN();
    Addr first = a >> iline_bits, last = (a + (len ? len : 1) - 1) >> iline_bits;
    struct core_state *s = cur;
    if (first == last && s->iline_valid && first == s->iline)
        return;
    if (if_mru_on && first + 1 == last) {
        /* an instruction across two lines, which the translation's guard
         * leaves to the helper (a third of the fetch calls left in
         * cachegrind's geometry): two hits on way 0 (and the ITLB's MRU
         * page) change nothing */
        if (*way0_of(s->l1i_probe, first) == (uint64_t)first << 1 &&
            *way0_of(s->l1i_probe, last) == (uint64_t)last << 1 &&
            (!run_tlb || (s->ipage_valid && a >> ipage_bits == s->ipage &&
                          (a + len - 1) >> ipage_bits == s->ipage))) {
            s->iline = last;
            s->iline_valid = True;
            return;
        }
    }
    ifetch_probe(s, a, len, first, last);
}

/* The profile's (and sampler's) part of a data access (see ifetch_prof). */
static __attribute__((noinline)) int data_prof(struct core_state *s, Addr a, SizeT size,
                                               Bool write)
{
    int kind = write ? HPM_STORE : HPM_LOAD, served = HPM_SERVED_L1;
    Bool tlb_miss = False;
    ULong *data = NULL;
    if (run_hier) {
        prof_prefetch_sink();
        data_prefetch_sink(a);
    }
    if (run_tlb && tlb_access(s->dtlb, s->dmemo, &s->dpage, &s->dpage_valid, dpage_bits, a, size)) {
        prof_add(VPMU_PR_DTLB, 1);
        data = data_raw_sink(a);
        data[VPMU_PR_DTLB]++;
        tlb_miss = True;
    }
    if (run_hier) {
        /* The data object before the models (an access that reaches them
         * is nearly always a miss; what it is does not depend on them),
         * and its lines that a miss adds to asked for: it was the add
         * that waited after them, as the cost center's had. */
        if (!data)
            data = data_raw_sink(a);
        __builtin_prefetch(data + VPMU_PR_SRV_AT(0, HPM_SERVED_L2), 1);
        __builtin_prefetch(data + VPMU_PR_L1D_WB, 1);
        __builtin_prefetch(data + VPMU_PR_L3, 1);
        served = hier_access_inline(hier, node.cur_core, kind, a, (uint32_t)size);
        prof_access(kind, served, data);
    }
    if (UNLIKELY(vpmu_state.on.sample_access))
        access_sink(kind, a, served, tlb_miss, data);
    return served;
}

static __attribute__((noinline)) void sample_sure_hit(Addr a, Bool write)
{
    access_sink(write ? HPM_STORE : HPM_LOAD, a, HPM_SERVED_L1, False, NULL);
}

/* A data access that the filter did not answer: the models. Returns the
 * level that served it. */
static __attribute__((noinline)) int data_model(struct core_state *s, Addr a, SizeT size,
                                                Bool write, Addr first, Addr last)
{
    int served = HPM_SERVED_L1;
    if (UNLIKELY(vpmu_prof_sink != NULL)) {
        served = data_prof(s, a, size, write);
    } else if (UNLIKELY(vpmu_state.on.latency)) {
        /* hpm count's latency histogram: where it was served, its TLB */
        Bool tlb_miss = run_tlb && tlb_access(s->dtlb, s->dmemo, &s->dpage, &s->dpage_valid,
                                              dpage_bits, a, size);
        served = run_hier ? hier_access_inline(hier, node.cur_core, write ? HPM_STORE : HPM_LOAD, a,
                                               (uint32_t)size)
                          : HPM_SERVED_L1;
        access_sink(write ? HPM_STORE : HPM_LOAD, a, served, tlb_miss, NULL);
    } else {
        if (run_tlb)
            tlb_access(s->dtlb, s->dmemo, &s->dpage, &s->dpage_valid, dpage_bits, a, size);
        if (run_hier)
            served = hier_access_inline(hier, node.cur_core, write ? HPM_STORE : HPM_LOAD, a,
                                        (uint32_t)size);
    }
    /* after a straddling access both lines are MRU; one suffices here */
    s->dline = last;
    s->dline_valid = filter_d && first == last;
    s->dline_dirty = write;
    s->cline_valid = False; /* a fill may have evicted it */
    if (UNLIKELY(node.coh_time) && hier->coh_nlines != coh_lines_seen)
        coh_lines_new();
    return served;
}

/* No thread can run: the replay at a flush takes everything. */
Bool node_coh_replay_final(void)
{
    Bool final;
    (void)vpmu_turns_frontier(&final);
    return final;
}

/* An access's bytes in the contended line in slot: their offset, and
 * their length (*len). */
static inline __attribute__((always_inline)) UInt coh_bytes(Int slot, Addr a, SizeT size,
                                                            UInt *len)
{
    Addr base = (Addr)hier->coh_lines[slot].addr, end = a + (size ? size - 1 : 0);
    Addr lo = a > base ? a : base, top = base + ((Addr)1 << coh_line_shift) - 1;
    *len = (UInt)((end < top ? end : top) - lo + 1);
    return (UInt)(lo - base);
}

/* The log entry of an access to the contended line in slot: its bytes in
 * that line (the replay notes them). */
static __attribute__((noinline)) void coh_log_entry(Int slot, Addr a, SizeT size, Bool write,
                                                    Bool hit)
{
    struct cohtime_entry e;
    struct cohtime_prof p;
    ThreadId tid;
    /* the stamp read again here: five arguments, so that coh_log's call of
     * this is a tail call (a seventh went on the stack) */
    ULong stamp = vpmu_turns_stamp(&tid);
    UInt len, off = coh_bytes(slot, a, size, &len);
    e.stamp = stamp;
    e.slot = (UShort)slot;
    e.off = (UShort)off;
    e.len = (UShort)len;
    e.core = (UChar)node.cur_core;
    e.kind = write ? HPM_STORE : HPM_LOAD;
    e.hit = hit;
    if (vpmu_prof_sink) {
        /* the data object found now: at the replay the address may be
         * another object's, or no thread may run to ask about its stack */
        p.sink = vpmu_prof_sink;
        p.data = data_raw_sink(a);
    }
    if (!vpmu_prof_sink && vpmu_cohtime_append(tid, e))
        return;
    if (vpmu_cohtime_log(tid, e, vpmu_prof_sink ? &p : NULL) >= VPMU_COHTIME_PENDING_MAX)
        node_coh_replay(); /* a point that depends only on the accesses */
}

/* Most accesses of a contended line repeat one that their superblock
 * logged already (one stamp), and merge into its entry here, as
 * vpmu_cohtime_log would: only the others build an entry and call. */
static inline __attribute__((always_inline)) void coh_log(Int slot, Addr a, SizeT size,
                                                          Bool write, Bool hit)
{
    ThreadId tid;
    ULong stamp = vpmu_turns_stamp(&tid);
    UInt off = 0, len = 0;
    if (vpmu_cohtime_same(tid, stamp, (UInt)slot, node.cur_core)) {
        if (write)
            off = coh_bytes(slot, a, size, &len);
        if (vpmu_cohtime_merge(write, off, len))
            return;
    }
    coh_log_entry(slot, a, size, write, hit);
}

/* Whether an access may touch a contended line: the bits of the table's
 * hash, asked inline (most accesses are of other lines). */
static inline __attribute__((always_inline)) Bool coh_access_maybe(Addr a, SizeT size)
{
    Addr l0 = a >> coh_line_shift, l1 = (a + (size ? size - 1 : 0)) >> coh_line_shift;
    return coh_line_maybe(hier, l0) || (l1 != l0 && coh_line_maybe(hier, l1));
}

/* The sure-hit filter's line when it is a contended one (data_access): it
 * is kept with this bit set, so that the filter's common test fails for it
 * and the access is logged, with the line's slot (core_state.coh_slot).
 * Line numbers are far below it. */
#define DLINE_CONTENDED ((Addr)1 << 63)

/* The common case, asked first (data_access): the access is of one line
 * on one of the core's clean pages, known to hold no contended line (one
 * is known only where coh_clean_ok), or of one of its clear lines. A line
 * that enters the table forgets every clean page and clear line at once
 * (coh_line_entered): lines can enter between two calls of data_model,
 * which makes the pages' bits again (without that the pipe mode of
 * coherence.c2c's two runs differed now and then). A line stays contended
 * once it is. */
static inline __attribute__((always_inline)) Bool coh_clean_known(const struct core_state *s,
                                                                  Addr a, Addr first, Addr last)
{
    Addr page = a >> COH_PAGE_SHIFT;
    return first == last && (s->coh_clean[page & (COH_CLEAN_SLOTS - 1)] == page ||
                             s->coh_clear[first & (COH_CLEAN_SLOTS - 1)] == first);
}

/* Otherwise, whether the access (of one line) is known not to touch a
 * contended line without asking its line's hash: the pages' bits say its
 * page holds none, and it becomes a clean page (one that may hold one
 * becomes the shared page, whose accesses ask their lines' hash without
 * asking the page's again). Most accesses past the filter stay within a
 * few pages. The bits are trusted as the clean pages are (coh_clean_known). */
static inline __attribute__((always_inline)) Bool coh_page_clean(struct core_state *s, Addr a,
                                                                 Addr first, Addr last)
{
    Addr page = a >> COH_PAGE_SHIFT;
    UInt bit;
    if (first != last || !coh_clean_ok || hier->coh_nlines != coh_lines_seen)
        return False;
    if (page == s->coh_shared_page)
        return False;
    if (coh_pages[coh_page_word(page, &bit)] >> bit & 1) {
        s->coh_shared_page = page;
        return False;
    }
    s->coh_clean[page & (COH_CLEAN_SLOTS - 1)] = page;
    return True;
}

/* An access to contended lines: the L1 probe (a hit, its core's copy
 * alone deciding: no coherence request) or the models (the private path),
 * and an entry per contended line it touches. False when it touches none.
 * An access of one contended line stays the filter's line, marked
 * (DLINE_CONTENDED): the next access of that line by the core is a sure
 * hit on the private path, as the probe would answer, and is only logged.
 * The private path of a contended line changes only with its own core's
 * accesses (the replay keeps the line's coherence apart), so the filter's
 * rule is the same as for any line. */
static __attribute__((noinline)) Bool data_contended(struct core_state *s, Addr a, SizeT size,
                                                      Bool write, Addr first, Addr last)
{
    Addr l0 = a >> coh_line_shift, l1 = (a + (size ? size - 1 : 0)) >> coh_line_shift;
    Int s0 = l0 == s->coh_line ? s->coh_slot : coh_line_index(hier, l0);
    Int s1 = l1 != l0 ? coh_line_index(hier, l1) : -1;
    Bool hit, dirty, keep = False;
    unsigned probe;
    Addr page = s->dpage;
    Bool page_known = s->dpage_valid;
    if (s0 < 0 && s1 < 0)
        return False;
    if (s0 >= 0) {
        s->coh_line = l0; /* lines stay in the table: its slot is its own */
        s->coh_slot = s0;
    }
    if (s->l1d_probe && first == last && l0 == l1 &&
        (!run_tlb ||
         tlb_probe(s->dtlb, s->dmemo, &s->dpage, &s->dpage_valid, dpage_bits, a, False)) &&
        (probe = hpm_cache_probe_hit(s->l1d_probe, l0, write, 0)) != HPM_PROBE_MISS) {
        hit = True;
        dirty = probe == HPM_PROBE_DIRTY;
        /* a hit that changed nothing but this line (and, for a store, its
         * dirty bit), on the page of the access before: the first filter's
         * line is as resident as it was, its page still the MRU page */
        keep = coh_side && (!run_tlb || (page_known && page == s->dpage));
        if (UNLIKELY(vpmu_state.on.sample_access))
            sample_sure_hit(a, write);
    } else {
        hit = data_model(s, a, size, write, first, last) == HPM_SERVED_L1;
        dirty = write;
    }
    if (coh_side) {
        /* the line to the second filter; the first keeps its line only
         * after a hit on its page */
        s->dline_valid = s->dline_valid && keep;
        /* coh_line is l0 when s0 >= 0 (set above) */
        s->cline_valid = s->l1d_probe && first == last && l0 == l1 && s0 >= 0;
        s->cline_dirty = dirty;
    } else {
        /* the filter's granule is the L1's line where there is a probe */
        s->dline_valid = s->l1d_probe && filter_d && first == last && l0 == l1 && s0 >= 0;
        s->dline = l0 | DLINE_CONTENDED;
        s->dline_dirty = dirty;
    }
    if (s0 >= 0)
        coh_log(s0, a, size, write, hit);
    if (s1 >= 0)
        coh_log(s1, a, size, write, hit);
    return True;
}

/* The logged accesses no thread can precede any more, replayed in time
 * order; a coherence miss found goes to its core (which is fed at the next
 * flush) and, in a profile, to its instruction and data object, as the
 * access's own miss would have. The replay's fills change shared levels
 * (the L2's prefetcher, the L3), so it runs only where the node_program is at
 * the same point on every run: when a turn passes to another thread
 * (vpmu_node_set_core), when the logs hold too much, and when no thread
 * can run any more (its exit; a flush at a host's time, the live view's,
 * replays nothing otherwise). */
void node_coh_replay(void)
{
    const struct cohtime_entry *e;
    const struct cohtime_prof *p;
    Bool final;
    ULong frontier = vpmu_turns_frontier(&final), *sink = vpmu_prof_sink;
    UInt core = node.cur_core;
    while ((e = vpmu_cohtime_next(frontier, &p)) != NULL) {
        UInt c = e->core;
        int kind = e->kind;
        int served = hpm_hier_coh_replay(hier, e->slot, c, kind,
                                         hier->coh_lines[e->slot].addr + e->off, e->len, e->hit);
        node.cores[c].ran = True; /* its counts may have moved */
        if (served == HPM_SERVED_L1)
            continue;
        node.coh_replayed_misses++;
        if (p && p->sink) {
            node.cur_core = c;
            vpmu_prof_sink = p->sink;
            prof_delta(kind == HPM_STORE ? HPM_STORE : HPM_LOAD, served, p->data);
        }
    }
    node.cur_core = core;
    vpmu_prof_sink = sink;
}

/* A data access that the filter did not answer: the L1 probe, then the
 * models. */
static __attribute__((noinline)) void data_probe_body(struct core_state *s, Addr a, SizeT size,
                                                      Bool write)
{
    /* the lines again: data_probe's registers are free for its own path */
    Addr first = a >> dline_bits, last = (a + (size ? size : 1) - 1) >> dline_bits;
    /* one line, or an unaligned access across two (memcpy's, say): hits */
    if (s->l1d_probe && run_hier &&
        (first == last || (first + 1 == last && straddle_probe_ok(a, size, dpage_bits))) &&
        (!run_tlb ||
         tlb_probe(s->dtlb, s->dmemo, &s->dpage, &s->dpage_valid, dpage_bits, a, False)) &&
        (first == last || l1_probe(s->l1d_probe, first, write))) {
        UInt hit = l1_probe(s->l1d_probe, last, write);
        if (hit) {
            s->dline = last;
            s->dline_valid = True;
            s->dline_dirty = hit == 2;
            if (UNLIKELY(vpmu_state.on.sample_access))
                sample_sure_hit(a, write);
            return;
        }
    }
    data_model(s, a, size, write, first, last);
}

/* data_probe_body's answer for its most common case where d_hint_on: an
 * access of one line that the L1D's hint holds (resident, and dirty for a
 * store: a hit that changes nothing, hpm_cache_probe_hit) on a page in the
 * DTLB's memo (a hit whose use stamp is the DTLB's only change,
 * hpm_tlb_probe_hit). The same changes in the same order, without the
 * body's frame: on BG/P most probes are these (a PAPI_start with its
 * PAPI_stop makes 112 probes, 106 of them hint hits). Anything else is
 * left to the body before anything changed. */
static __attribute__((noinline)) void data_probe(struct core_state *s, Addr a, SizeT size,
                                                 Bool write, Addr first, Addr last)
{
    if (d_hint_on && first == last) {
        /* hpm__hint_hit, through the core's copy of the hints, with the
         * hint's word kept for its dirty bit */
        uint64_t h = core_hint(s->dhint, s->dhint_shift, first);
        if ((h ^ (first << 1)) < 2 && (h & 1) >= write &&
            tlb_probe(s->dtlb, s->dmemo, &s->dpage, &s->dpage_valid, dpage_bits, a, True)) {
            s->dline = first;
            s->dline_valid = True;
            s->dline_dirty = (Bool)(h & 1);
            return;
        }
    }
    data_probe_body(s, a, size, write);
}

/* Past the filter: a hit on way 0 of a scanned LRU L1D (and the DTLB's
 * MRU page), else the probe. Nothing here calls out but the probe's tail
 * call, so that the helpers save no register at entry. */
static inline __attribute__((always_inline)) void data_past_filter(struct core_state *s, Addr a,
                                                                   SizeT size, Bool write,
                                                                   Addr first, Addr last)
{
    if (d_mru_on && first == last) {
        /* the probe's hit in place, the dirty bit of a store all it
         * changes; in cachegrind's geometry four in five accesses that
         * passed the filter. A store to a clean line of a coherent L1D is
         * the probe's (l1_probe: a request unless no other core holds the
         * line). */
        uint64_t *w = way0_of(s->l1d_probe, first), v = *w;
        if ((v ^ ((uint64_t)first << 1)) < 2 && !(write & coh_on & !(v & 1)) &&
            (!run_tlb || (s->dpage_valid && a >> dpage_bits == s->dpage))) {
            v |= write;
            if (write)
                *w = v;
            s->dline = first;
            s->dline_valid = True;
            s->dline_dirty = (Bool)(v & 1);
            return;
        }
    }
    data_probe(s, a, size, write, first, last);
}

/* data_coh_sure_hit with the sampler on. */
static __attribute__((noinline)) void sample_sure_hit_then_log(struct core_state *s, Addr a,
                                                               SizeT size, Bool write)
{
    sample_sure_hit(a, write);
    coh_log(s->coh_slot, a, size, write, True);
}

/* A sure hit on a contended line (data_access, coh_sure_hit): logged, as
 * it was made. */
static __attribute__((noinline)) void data_coh_sure_hit(struct core_state *s, Addr a, SizeT size,
                                                        Bool write)
{
    /* the sampler's call before the log would keep every argument in a
     * saved register: sample_sure_hit_then_log */
    if (UNLIKELY(vpmu_state.on.sample_access)) {
        sample_sure_hit_then_log(s, a, size, write);
        return;
    }
    coh_log(s->coh_slot, a, size, write, True);
}

/* An access that may touch a contended line (data_access_coh): logged
 * when it does, else past the filter as any other. */
static __attribute__((noinline)) void data_coh_maybe(struct core_state *s, Addr a, SizeT size,
                                                     Bool write, Addr first, Addr last)
{
    if (data_contended(s, a, size, write, first, last))
        return;
    data_past_filter(s, a, size, write, first, last);
}

/* A data access past the filter while contended lines are logged
 * (coherence in modeled time), but for a sure hit on a contended line
 * (data_access asks that): out of line, so that the helpers keep no
 * register across its calls (its own are tail calls). */
static __attribute__((noinline)) void data_access_coh(struct core_state *s, Addr a, SizeT size,
                                                      Bool write, Addr first, Addr last)
{
    /* data_access asked whether the page is one of the core's clean
     * pages; one the pages' bits find clean becomes one, and nothing on it
     * is logged */
    if (!coh_page_clean(s, a, first, last)) {
        if (coh_access_maybe(a, size)) {
            data_coh_maybe(s, a, size, write, first, last);
            return;
        }
        /* not contended: a clear line of the core, until a line enters
         * the table (this access may make its own line enter it, after
         * this) */
        if (first == last && coh_clean_ok && hier->coh_nlines == coh_lines_seen)
            s->coh_clear[first & (COH_CLEAN_SLOTS - 1)] = first;
    }
    data_past_filter(s, a, size, write, first, last);
}

/* While contended lines are logged: a sure hit on the contended line of
 * the second filter (on the MRU page: no TLB state changes either), or on
 * a contended line kept as the filter's (data_coh_sure_hit logs it). */
static inline __attribute__((always_inline)) Bool coh_sure_hit(const struct core_state *s, Addr a,
                                                               Bool write, Addr first, Addr last)
{
    return first == last &&
           ((s->cline_valid && first == s->coh_line && (!write || s->cline_dirty) &&
             (!run_tlb || (s->dpage_valid && a >> dpage_bits == s->dpage))) ||
            (s->dline_valid && (first | DLINE_CONTENDED) == s->dline &&
             (!write || s->dline_dirty)));
}

/* The data sure-hit filter: an access of the line of the core's previous
 * one (for a store, a line known dirty), an MRU hit that changes no state. */
static inline __attribute__((always_inline)) Bool filter_sure_hit(const struct core_state *s,
                                                                  Bool write, Addr first,
                                                                  Addr last)
{
    return first == last && s->dline_valid && first == s->dline && (!write || s->dline_dirty);
}

/* The sure-hit filter, then the rest in functions of their own, reached by
 * tail calls: the helpers save no register at entry (with the coherence
 * checks inline they saved two for loads and four for stores, and the
 * probe saved six: together about 8% of a full bgp run of bzip2). */
static inline __attribute__((always_inline)) void data_access(Addr a, SizeT size, Bool write)
{
    Addr first = a >> dline_bits, last = (a + (size ? size : 1) - 1) >> dline_bits;
    struct core_state *s = cur;
    if (filter_sure_hit(s, write, first, last)) {
        /* a sure L1 hit (the line of the previous access): still a load or
         * a store for the sampler */
        if (UNLIKELY(vpmu_state.on.sample_access))
            sample_sure_hit(a, write);
        return;
    }
    /* While contended lines are logged, an access on the core's clean
     * page (no contended line on it: none can be the filter's either)
     * takes the path of any access, in this helper: the padded counters
     * of false_sharing.c, 10^7 increments, spent a tenth of their run in
     * data_access_coh's call and tests before this test came first. */
    if (UNLIKELY(coh_logging) && !coh_clean_known(s, a, first, last)) {
        if (coh_sure_hit(s, a, write, first, last))
            data_coh_sure_hit(s, a, size, write);
        else
            data_access_coh(s, a, size, write, first, last);
        return;
    }
    data_past_filter(s, a, size, write, first, last);
}

void vpmu_node_load(Addr a, SizeT size)
{
    FLOOR_RETURN();
    data_access(a, size, False);
}

void vpmu_node_store(Addr a, SizeT size)
{
    FLOOR_RETURN();
    data_access(a, size, True);
}

/* A load and a store of the same bytes (an add to memory, say). */
static __attribute__((noinline)) void data_modify(Addr a, SizeT size)
{
    data_access(a, size, False);
    data_access(a, size, True);
}

void vpmu_node_modify(Addr a, SizeT size)
{
    Addr first, last;
    const struct core_state *s = cur;
    FLOOR_RETURN();
    first = a >> dline_bits;
    last = (a + (size ? size : 1) - 1) >> dline_bits;
    /* both sure hits on the filter's line, known dirty (the sampler sees
     * each access: data_modify), without the frame the two need */
    if (filter_sure_hit(s, True, first, last) && !vpmu_state.on.sample_access)
        return;
    data_modify(a, size);
}

void vpmu_node_cond(Addr pc, ULong taken)
{
    FLOOR_RETURN();
    int wrong = hpm_bpred_cond(cur_bp, pc, taken != 0);
    if (UNLIKELY(vpmu_prof_sink != NULL) && wrong)
        prof_add(VPMU_PR_BP + 0, 1);
}

void vpmu_node_branch(Addr pc, Addr target, ULong taken, ULong kind)
{
    int wrong;
    UInt which;
    FLOOR_RETURN();
    switch (kind) {
    case VPMU_BR_COND:
        wrong = hpm_bpred_cond(cur_bp, pc, taken != 0);
        which = 0;
        break;
    case VPMU_BR_INDIRECT:
        wrong = hpm_bpred_indirect(cur_bp, pc, target);
        which = 1;
        break;
    default:
        wrong = hpm_bpred_return(cur_bp, target);
        which = 2;
        break;
    }
    if (UNLIKELY(vpmu_prof_sink != NULL) && wrong)
        prof_add(VPMU_PR_BP + which, 1);
}

/* An indirect call: its target's prediction, then the return address. */
static __attribute__((noinline)) void call_indirect(Addr pc, Addr target, Addr ret)
{
    if (hpm_bpred_indirect(cur_bp, pc, target) && UNLIKELY(vpmu_prof_sink != NULL))
        prof_add(VPMU_PR_BP + 1, 1);
    hpm_bpred_call(cur_bp, ret);
}

void vpmu_node_call(Addr pc, Addr target, Addr ret, ULong indirect)
{
    FLOOR_RETURN();
    /* a direct call (most) saves no register: one tail call */
    if (indirect)
        call_indirect(pc, target, ret);
    else
        hpm_bpred_call(cur_bp, ret);
}

/* A profile's model calls: the same, with the instruction's sink
 * (vpmu_prof_sink) as the last argument. Passing it cost less than
 * storing it before the calls: two 64-bit constants and a store per
 * instruction were a fifth of a profile's extra translated code. */
void vpmu_node_ifetch_p(Addr a, SizeT len, ULong *sink)
{
    vpmu_prof_sink = sink;
    vpmu_node_ifetch(a, len);
}

void vpmu_node_load_p(Addr a, SizeT size, ULong *sink)
{
    vpmu_prof_sink = sink;
    data_access(a, size, False);
}

void vpmu_node_store_p(Addr a, SizeT size, ULong *sink)
{
    vpmu_prof_sink = sink;
    data_access(a, size, True);
}

void vpmu_node_modify_p(Addr a, SizeT size, ULong *sink)
{
    vpmu_prof_sink = sink;
    data_access(a, size, False);
    data_access(a, size, True);
}

void vpmu_node_cond_p(Addr pc, ULong taken, ULong *sink)
{
    vpmu_prof_sink = sink;
    vpmu_node_cond(pc, taken);
}

void vpmu_node_branch_p(Addr pc, Addr target, ULong taken, ULong kind, ULong *sink)
{
    vpmu_prof_sink = sink;
    vpmu_node_branch(pc, target, taken, kind);
}

void vpmu_node_call_p(Addr pc, Addr target, Addr ret, ULong indirect, ULong *sink)
{
    vpmu_prof_sink = sink;
    vpmu_node_call(pc, target, ret, indirect);
}

/* ------------------------------------------------------------ event values */

_Static_assert(HPM_ACCESS_KINDS == 3 && VPMU_PR_SRV_AT(HPM_STORE, HPM_SERVED_MEM) == VPMU_PR_L1D_WB - 1,
               "the served counts fill their twelve slots");

/* The raw model statistics behind the modeled kinds, as one vector: the
 * per-core part (a core's caches, prefetcher, TLBs, predictor) and the node
 * part (L3s, memory). The kinds are computed from it by one function
 * (core_kinds_from_raw), for a core's totals as for one instruction's share in a
 * profile (vpmu_profile.c), so both use the same formulas. */
void node_raw_core(UInt c, ULong *raw)
{
    /* Every slot written, each statistic read where its model keeps it
     * (the models are compiled into this file), not copied out through
     * the models' API (hpm_hier_core_stats and the others) into a cleared
     * vector first: every count request comes here for its core
     * (docs/vpmu.md, "Feeding the UPC"). */
    const struct core_state *s = &node.cores[c];
    UInt k, l;
    if (run_hier) {
        const struct hpm_hier_core_stats *hs = &hier->cs[c];
        const struct hpm_prefetch_stats *ps =
            (features & HPM_NEED_PREFETCH) && hier->pf[c] ? &hier->pf[c]->st : NULL;
        for (k = 0; k < HPM_ACCESS_KINDS; k++) {
            raw[VPMU_PR_ACC + k] = hs->accesses[k];
            for (l = 0; l < 4; l++)
                raw[VPMU_PR_SRV_AT(k, l)] = hs->served[k][l];
        }
        raw[VPMU_PR_L1D_WB] = hpm_hier_l1d(hier, c)->st.writebacks;
        raw[VPMU_PR_PF + 0] = ps ? ps->prefetchable_requests : 0;
        raw[VPMU_PR_PF + 1] = ps ? ps->hits_in_stream : 0;
        raw[VPMU_PR_PF + 2] = ps ? ps->valid_prefetches : 0;
        raw[VPMU_PR_PF + 3] = ps ? ps->already_in_l2 : 0;
    } else {
        for (k = VPMU_PR_ACC; k < VPMU_PR_ITLB; k++) /* the predictor's are written below */
            raw[k] = 0;
    }
    raw[VPMU_PR_ITLB] = run_tlb ? s->itlb->st.misses : 0;
    raw[VPMU_PR_DTLB] = run_tlb ? s->dtlb->st.misses : 0;
    raw[VPMU_PR_BP + 0] = run_bpred ? s->bp->st.cond_mispredicts : 0;
    raw[VPMU_PR_BP + 1] = run_bpred ? s->bp->st.indirect_mispredicts : 0;
    raw[VPMU_PR_BP + 2] = run_bpred ? s->bp->st.return_mispredicts : 0;
}
_Static_assert(VPMU_PR_ACC == 0 && VPMU_PR_PF + 4 == VPMU_PR_ITLB && VPMU_PR_DTLB + 1 == VPMU_PR_CORE_N,
               "node_raw_core writes every slot of a core's part");

void node_raw_node(ULong *raw)
{
    /* in place, as node_raw_core's (every read's gather compares it) */
    UInt c;
    for (c = VPMU_PR_CORE_N; c < VPMU_PR_N; c++)
        raw[c] = 0;
    if (!run_hier)
        return;
    if (features & HPM_NEED_L3) {
        UInt n = node.machine.hier.l3.shared ? 1 : node.n_cores;
        for (c = 0; c < n; c++) {
            const struct hpm_cache_stats *cs = &hpm_hier_l3(hier, c)->st;
            raw[VPMU_PR_L3 + 0] += cs->read_accesses;
            raw[VPMU_PR_L3 + 1] += cs->read_misses;
            raw[VPMU_PR_L3 + 2] += cs->write_accesses;
            raw[VPMU_PR_L3 + 3] += cs->writebacks;
        }
    }
    raw[VPMU_PR_DDR + 0] = hier->mem.ddr_bytes_read;
    raw[VPMU_PR_DDR + 1] = hier->mem.ddr_bytes_written;
}

/* Every per-core kind from the exact core events e and the per-core part of
 * raw (models that do not run leave their kinds at 0; such kinds are never
 * programmed). */
void core_kinds_from_raw(const ULong *raw, const ULong *e, ULong *kv)
{
    UInt k;
    /* no branch per kind: at every read, which kinds are events is the
     * same, but the host's predictor has forgotten it since the last */
    for (k = 0; k < HPM_K_CORE_COUNT; k++)
        kv[k] = e[node.kind_event_ix[k]] & node.kind_event_keep[k];
    if (run_hier) {
        /* an access's misses are where it was served below the L1 (every
         * access is served at exactly one level): a profile does not count
         * its L1 hits, one add fewer per modeled access */
        ULong l1miss = 0, miss[HPM_ACCESS_KINDS];
        for (k = 0; k < HPM_ACCESS_KINDS; k++) {
            miss[k] = raw[VPMU_PR_SRV_AT(k, HPM_SERVED_L2)] + raw[VPMU_PR_SRV_AT(k, HPM_SERVED_L3)] +
                      raw[VPMU_PR_SRV_AT(k, HPM_SERVED_MEM)];
            l1miss += miss[k];
            kv[HPM_K_L2_HITS] += raw[VPMU_PR_SRV_AT(k, HPM_SERVED_L2)];
            kv[HPM_K_L3_HITS] += raw[VPMU_PR_SRV_AT(k, HPM_SERVED_L3)];
            kv[HPM_K_MEM_ACCESSES] += raw[VPMU_PR_SRV_AT(k, HPM_SERVED_MEM)];
        }
        kv[HPM_K_L1I_MISSES] = miss[HPM_IFETCH];
        kv[HPM_K_L1D_READ_MISSES] = miss[HPM_LOAD];
        kv[HPM_K_L1D_WRITE_MISSES] = miss[HPM_STORE];
        kv[HPM_K_L1D_MISSES] = kv[HPM_K_L1D_READ_MISSES] + kv[HPM_K_L1D_WRITE_MISSES];
        kv[HPM_K_L1D_WRITEBACKS] = raw[VPMU_PR_L1D_WB];
        if (features & HPM_NEED_L2) {
            kv[HPM_K_L2_ACCESSES] = l1miss;
            kv[HPM_K_L2_MISSES] = l1miss - kv[HPM_K_L2_HITS];
        }
        if (features & HPM_NEED_PREFETCH) {
            kv[HPM_K_L2_PREFETCHABLE_REQUESTS] = raw[VPMU_PR_PF + 0];
            kv[HPM_K_L2_PREFETCH_HITS_IN_STREAM] = raw[VPMU_PR_PF + 1];
            kv[HPM_K_L2_VALID_PREFETCHES] = raw[VPMU_PR_PF + 2];
            kv[HPM_K_L2_PREFETCH_ALREADY_IN_L2] = raw[VPMU_PR_PF + 3];
        }
    }
    if (run_tlb) {
        kv[HPM_K_ITLB_MISSES] = raw[VPMU_PR_ITLB];
        kv[HPM_K_DTLB_MISSES] = raw[VPMU_PR_DTLB];
    }
    if (run_bpred) {
        kv[HPM_K_BR_COND_MISPREDICTS] = raw[VPMU_PR_BP + 0];
        kv[HPM_K_BR_INDIRECT_MISPREDICTS] = raw[VPMU_PR_BP + 1];
        kv[HPM_K_BR_RETURN_MISPREDICTS] = raw[VPMU_PR_BP + 2];
        kv[HPM_K_BR_MISPREDICTS] = raw[VPMU_PR_BP + 0] + raw[VPMU_PR_BP + 1] + raw[VPMU_PR_BP + 2];
    }
    if (node.run_timing) {
        /* Class counts: loads, stores, branches, FP instructions, divides and
         * multiplies are charged as counted; every other instruction is
         * integer (the remainder, never negative). */
        struct hpm_timing_counts tc;
        struct hpm_timing_result tr;
        ULong other;
        _Static_assert(HPM_IC_COUNT == 8 && sizeof tc == (HPM_IC_COUNT + 6) * sizeof(uint64_t),
                       "every field of tc is written below");
        tc.instr[HPM_IC_OTHER] = 0; /* no memset per flush */
        tc.instr[HPM_IC_LOAD] = e[VPMU_EV_LOADS];
        tc.instr[HPM_IC_STORE] = e[VPMU_EV_STORES];
        tc.instr[HPM_IC_BRANCH] = e[VPMU_EV_BRANCHES];
        tc.instr[HPM_IC_FPDIV] = e[VPMU_EV_FP_DIV] + e[VPMU_EV_FP_SQRT];
        tc.instr[HPM_IC_FP] = node_sub_sat(e[VPMU_EV_FP_INSTRUCTIONS], tc.instr[HPM_IC_FPDIV]);
        tc.instr[HPM_IC_MULDIV] = e[VPMU_EV_INT_MUL] + e[VPMU_EV_INT_DIV];
        other = tc.instr[HPM_IC_LOAD] + tc.instr[HPM_IC_STORE] + tc.instr[HPM_IC_BRANCH] +
                e[VPMU_EV_FP_INSTRUCTIONS] + tc.instr[HPM_IC_MULDIV];
        tc.instr[HPM_IC_INT] = node_sub_sat(e[VPMU_EV_INSTRUCTIONS], other);
        tc.served_l2 = kv[HPM_K_L2_HITS];
        tc.served_l3 = kv[HPM_K_L3_HITS];
        tc.served_mem = kv[HPM_K_MEM_ACCESSES];
        tc.tlb_misses = kv[HPM_K_ITLB_MISSES] + kv[HPM_K_DTLB_MISSES];
        tc.mispredicts = kv[HPM_K_BR_MISPREDICTS];
        tc.valid_prefetches = kv[HPM_K_L2_VALID_PREFETCHES];
        hpm_timing_eval(&node.machine.timing, &tc, &tr);
        kv[HPM_K_CYCLES] = tr.cycles;
        kv[HPM_K_STALL_MEM_CYCLES] = tr.memory_stall;
        kv[HPM_K_STALL_TLB_CYCLES] = tr.tlb_stall;
        kv[HPM_K_STALL_BRANCH_CYCLES] = tr.branch_stall;
        if (features & HPM_NEED_PREFETCH)
            kv[HPM_K_L2_CYCLES_PREFETCH_PENDING] = tr.prefetch_pending;
    }
}

/* The node kinds of the memory system from the node part of raw (0 where
 * its model does not run), and NODE_CYCLES 0. The other node kinds (the
 * network's, the I/O and kernel units') are left as they are: node_values
 * writes them all, and a flush comes here at every node_program's read. */
void node_kinds_from_raw(const ULong *raw, ULong *nv)
{
    Bool hier_on = run_hier, l3_on = run_hier && (features & HPM_NEED_L3);
    nv[HPM_K_NODE_CYCLES - HPM_K_CORE_COUNT] = 0;
    nv[HPM_K_L3_READS - HPM_K_CORE_COUNT] = l3_on ? raw[VPMU_PR_L3 + 0] : 0;
    nv[HPM_K_L3_READ_MISSES - HPM_K_CORE_COUNT] = l3_on ? raw[VPMU_PR_L3 + 1] : 0;
    nv[HPM_K_L3_WRITEBACKS_IN - HPM_K_CORE_COUNT] = l3_on ? raw[VPMU_PR_L3 + 2] : 0;
    nv[HPM_K_L3_WRITEBACKS - HPM_K_CORE_COUNT] = l3_on ? raw[VPMU_PR_L3 + 3] : 0;
    nv[HPM_K_DDR_READ_BYTES - HPM_K_CORE_COUNT] = hier_on ? raw[VPMU_PR_DDR + 0] : 0;
    nv[HPM_K_DDR_WRITE_BYTES - HPM_K_CORE_COUNT] = hier_on ? raw[VPMU_PR_DDR + 1] : 0;
    nv[HPM_K_DDR_READS - HPM_K_CORE_COUNT] = hier_on ? raw[VPMU_PR_DDR + 0] / ll_line : 0;
    nv[HPM_K_DDR_WRITES - HPM_K_CORE_COUNT] = hier_on ? raw[VPMU_PR_DDR + 1] / ll_line : 0;
}
_Static_assert(HPM_K_NODE_COUNT == 9 + VPMU_NODE_NET_COUNTERS +
                                       (HPM_K_KERNEL_HOST_INVOL_CSWITCHES - HPM_K_IO_READS + 1) + 5,
               "node_values writes every node kind");

/* Cumulative value of every per-core kind of core c. */
void node_core_values(UInt c, ULong *kv)
{
    ULong raw[VPMU_PR_N];
    node_raw_core(c, raw);
    core_kinds_from_raw(raw, node.cores[c].ev, kv);
}

/* What libhpm-mpi reported of the node's network (HPM_VPMU_NET). */
static ULong net_counts[VPMU_NODE_NET_COUNTERS];
_Static_assert(HPM_K_COLL_BYTES - HPM_K_TORUS_XP_PACKETS_SENT + 1 == VPMU_NODE_NET_COUNTERS,
               "network kinds and counters");

void vpmu_node_net_add(const ULong *v, UInt n)
{
    UInt i;
    node.net_gen++;
    for (i = 0; i < n && i < VPMU_NODE_NET_COUNTERS; i++)
        net_counts[i] = net_counts[i] + v[i] < net_counts[i] ? ~0ULL : net_counts[i] + v[i];
}

/* The node's cycles: its busiest core's. */
ULong node_cycles(void)
{
    ULong cyc = 0;
    UInt c;
    for (c = 0; c < node.n_cores; c++)
        if (node.cores[c].kv[HPM_K_CYCLES] > cyc)
            cyc = node.cores[c].kv[HPM_K_CYCLES];
    return cyc;
}

/* The coherence kinds: the node's sums of the cores' (the per-core code
 * blocks are full; hpm_hier_coh_stats has each core's). */
static void coh_node_values(ULong *nv)
{
    ULong sum[5] = {0, 0, 0, 0, 0};
    UInt c;
    if (run_hier && (features & HPM_NEED_COHERENT))
        for (c = 0; c < node.n_cores; c++) {
            struct hpm_coh_stats cs;
            if (hpm_hier_coh_stats(hier, c, &cs) != HPM_MODEL_OK)
                continue; /* never: c < n_cores, the hierarchy's cores */
            sum[0] += cs.coh_misses;
            sum[1] += cs.invalidations;
            sum[2] += cs.snoops;
            sum[3] += cs.interventions;
            sum[4] += cs.requests;
        }
    for (c = 0; c < 5; c++)
        nv[HPM_K_COH_L1D_MISSES - HPM_K_CORE_COUNT + c] = sum[c];
}
_Static_assert(HPM_K_COH_REQUESTS - HPM_K_COH_L1D_MISSES == 4, "the coherence kinds in order");

/* Every node kind, from raw's node part (node_raw_node) and the units'. */
void node_values_from(const ULong *raw, ULong *nv)
{
    UInt c;
    node_kinds_from_raw(raw, nv);
    for (c = 0; c < VPMU_NODE_NET_COUNTERS; c++)
        nv[HPM_K_TORUS_XP_PACKETS_SENT - HPM_K_CORE_COUNT + c] = net_counts[c];
    vpmu_io_node_values(nv, node.want_rusage); /* the I/O and kernel units (vpmu_io.c) */
    coh_node_values(nv);
    nv[HPM_K_NODE_CYCLES - HPM_K_CORE_COUNT] = node_cycles();
}

void node_values(ULong *nv)
{
    ULong raw[VPMU_PR_N];
    node_raw_node(raw);
    node_values_from(raw, nv);
}

/* ---------------------------------------------------------------- profile */

/* What the hierarchy access of the instruction being run changed, added to
 * its cost center (vpmu_prof_sink, which its model call set): only model
 * calls change model statistics, so the shares
 * of all instructions add up to the totals exactly. TLB and predictor
 * changes are known from their return values (prof_add); the hierarchy's
 * are read straight from its statistics (hier.c is included here), which
 * is what an access that did not hit the L1 costs a profile. */
static void prof_delta(int kind, int served, ULong *data)
{
    ULong *sink = vpmu_prof_sink, *last = node.prof_last_core[node.cur_core];
    static ULong no_data[VPMU_PR_N]; /* a fetch's: no data object */
    UInt k, srv = VPMU_PR_SRV_AT(kind, served);
    ULong core_d[5], node_d[6], core_any, node_any = 0;
    /* The differences without a branch per statistic (which of them moved
     * is data: an L2 hit or miss, a prefetch or none; those branches
     * mispredicted), then one branch per group: the cost center's and the
     * data object's lines of a group that did not move are not touched
     * (most misses move nothing below the L2: the cost center is cold
     * memory, and its untouched lines were a third of this function). */
#define PROF_DIFF(arr, i, val, dd)          \
    do {                                    \
        ULong v_ = (val);                   \
        (dd) = v_ - arr[i];                 \
        arr[i] = v_;                        \
    } while (0)
    /* the access itself: served where it says (hier_access_inline and
     * hpm_hier_access count exactly this and the access, which no kind
     * needs: prof_access; diffing all fifteen was a third of this
     * function's time) */
    if (!data)
        data = no_data;
    sink[srv]++;
    last[srv]++;
    data[srv]++;
    PROF_DIFF(last, VPMU_PR_L1D_WB, hier->cache[node.cur_core][1]->st.writebacks, core_d[0]);
    core_d[1] = core_d[2] = core_d[3] = core_d[4] = 0;
    if ((features & HPM_NEED_PREFETCH) && hier->pf[node.cur_core]) {
        const struct hpm_prefetch_stats *ps = &hier->pf[node.cur_core]->st;
        PROF_DIFF(last, VPMU_PR_PF + 0, ps->prefetchable_requests, core_d[1]);
        PROF_DIFF(last, VPMU_PR_PF + 1, ps->hits_in_stream, core_d[2]);
        PROF_DIFF(last, VPMU_PR_PF + 2, ps->valid_prefetches, core_d[3]);
        PROF_DIFF(last, VPMU_PR_PF + 3, ps->already_in_l2, core_d[4]);
    }
    core_any = core_d[0] | core_d[1] | core_d[2] | core_d[3] | core_d[4];
    if (core_any) {
        sink[VPMU_PR_L1D_WB] += core_d[0];
        data[VPMU_PR_L1D_WB] += core_d[0];
        for (k = 0; k < 4; k++) {
            sink[VPMU_PR_PF + k] += core_d[1 + k];
            data[VPMU_PR_PF + k] += core_d[1 + k];
        }
    }
    node_d[0] = node_d[1] = node_d[2] = node_d[3] = 0;
    if (features & HPM_NEED_L3) {
        ULong l3[4] = {0, 0, 0, 0};
        UInt c, n = node.machine.hier.l3.shared ? 1 : node.n_cores;
        for (c = 0; c < n; c++) {
            const struct hpm_cache_stats *st = &hier->cache[c][3]->st;
            l3[0] += st->read_accesses;
            l3[1] += st->read_misses;
            l3[2] += st->write_accesses;
            l3[3] += st->writebacks;
        }
        for (k = 0; k < 4; k++)
            PROF_DIFF(node.prof_last_node, VPMU_PR_L3 + k, l3[k], node_d[k]);
    }
    PROF_DIFF(node.prof_last_node, VPMU_PR_DDR + 0, hier->mem.ddr_bytes_read, node_d[4]);
    PROF_DIFF(node.prof_last_node, VPMU_PR_DDR + 1, hier->mem.ddr_bytes_written, node_d[5]);
    for (k = 0; k < 6; k++)
        node_any |= node_d[k];
    if (node_any) {
        for (k = 0; k < 4; k++) {
            sink[VPMU_PR_L3 + k] += node_d[k];
            data[VPMU_PR_L3 + k] += node_d[k];
        }
        for (k = 0; k < 2; k++) {
            sink[VPMU_PR_DDR + k] += node_d[4 + k];
            data[VPMU_PR_DDR + k] += node_d[4 + k];
        }
    }
#undef PROF_DIFF
}

ULong vpmu_node_event_total(Int ev)
{
    ULong v = (vpmu_state.live[VPMU_LIVE_WORD(ev)] >> VPMU_LIVE_SHIFT(ev)) & 0xffffffffULL;
    UInt c;
    for (c = 0; c < node.n_cores; c++)
        v += node.cores[c].ev[ev];
    return v;
}

/* ----------------------------------------------------------------- output */

const struct hpm_machine *vpmu_node_machine(void)
{
    return &node.machine;
}
Int vpmu_node_kind_event(UInt kind)
{
    return kind < HPM_K_CORE_COUNT && node.kind_event[kind] != NO_EV ? (Int)node.kind_event[kind]
                                                                     : -1;
}
const HChar *vpmu_node_machine_name(void)
{
    return node.machine.name;
}
UInt vpmu_node_cores(void)
{
    return node.n_cores;
}
ULong vpmu_node_frequency(void)
{
    return node.machine.frequency_hz;
}

const HChar *vpmu_node_models(void)
{
    static HChar buf[64];
    buf[0] = 0;
    if (run_hier)
        VG_(strcat)(buf, " hier");
    if (run_bpred)
        VG_(strcat)(buf, " bpred");
    if (run_tlb)
        VG_(strcat)(buf, " tlb");
    if (node.run_timing)
        VG_(strcat)(buf, " timing");
    return buf[0] ? buf + 1 : "none";
}

void vpmu_node_code_name(UInt code, HChar *buf, UInt len)
{
    if (hpm_catalog_code_name(code, buf, len) < 0 && len)
        buf[0] = 0;
}

const HChar *vpmu_node_kind_name(UInt kind)
{
    const struct hpm_cat_kind_info *k = hpm_catalog_kind(kind);
    return k ? k->name : "?";
}

const struct hpm_hier *vpmu_node_hier(void)
{
    return hier;
}
