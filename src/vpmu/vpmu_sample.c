/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_sample.c - precise sampling for hpm record (vpmu_sample.h).
 *
 * Zero skid by construction: the node calls vpmu_sample_access from the
 * model call that decides the event (a load, a store, an instruction fetch
 * and where it was served, its TLB lookup), while the profile's sink names
 * the instruction that runs it. So a sample's instruction is the one that
 * caused the PERIOD-th event, and a data access's sample carries its data
 * address.
 *
 * The other per-core kinds are sampled per instruction (vpmu_sample_mark
 * at translation, vpmu_sample_insn when it runs): at the end of an
 * instruction the core's exact state is its folded totals, the live block
 * and the static counts of the segment not yet flushed (which the mark
 * carries), with the model statistics the profile follows; every kind is
 * computed from that state by the function that computes the totals
 * (vpmu_node_prof_kinds), so the instruction whose end first shows the
 * count at or past the next threshold is the one that crossed it. The
 * count of a kind is per core; what it advanced while a thread ran (and
 * the counters counted) is that thread's, as the UPC credits threads.
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_machine.h"
#include "pub_tool_threadstate.h"

#include "catalog.h"
#include "machine_wire.h"
#include "model.h"
#include "vpmu_format.h"
#include "vpmu_node.h"
#include "vpmu_profile.h"
#include "vpmu_sample.h"
#include "vpmu_state.h"
#include "vpmu_tool.h"

#define MAX_SPECS 8
#define MAX_FRAMES 32 /* call sites kept per sample */


static const HChar *clo_sample;
static ULong clo_limit = 100000; /* samples per modeled second per core */
/* Latency thresholds (seed 004's, Intel's ldlat): a load (store) counts for
 * the kinds sampled per access only when its modeled latency is at least
 * this many cycles; 0: every one. */
static ULong clo_ldlat, clo_stlat;
/* Each sample carries where its access was served and its latency (perf's
 * data source and weight); no: only the bench's peer run. */
static Bool clo_src = True;
/* The modeled latency of an access, in cycles, by the machine's [timing]:
 * the access kind's own issue cost (at least one cycle) plus what the
 * timing model adds for the level that served it and for a TLB miss. */
static ULong lat_base[HPM_ACCESS_KINDS], lat_served[4], lat_tlb;
/* Every load and store while counting, by level that served it and TLB
 * hit or miss (the eight latencies an access can have): the run's exact
 * latency histogram (sample_latency records). */
static ULong lat_hist[2][8];

/* The kinds a model call decides for one access (their samples carry the
 * data address); every other per-core kind is sampled per instruction. */
static const UInt by_access[] = {
    HPM_K_LOADS,           HPM_K_STORES,          HPM_K_L1D_MISSES, HPM_K_L1D_READ_MISSES,
    HPM_K_L1D_WRITE_MISSES, HPM_K_L1I_MISSES,     HPM_K_L2_HITS,    HPM_K_L2_MISSES,
    HPM_K_L3_HITS,         HPM_K_MEM_ACCESSES,    HPM_K_DTLB_MISSES, HPM_K_ITLB_MISSES,
};

static UInt n_specs;
static struct spec {
    UInt kind;
    ULong period;
    ULong seen;      /* events of this kind while counting, every thread */
    ULong taken;     /* samples written */
    ULong throttled; /* samples the rate limit dropped (counted, not lost) */
    Bool insn;       /* sampled per instruction (else per access) */
    Bool filtered;   /* an exact kind whose marks test fire[] inline */
    Int ev;          /* per instruction: its exact event (VPMU_EV_*), -1 modeled */
} specs[MAX_SPECS];

/* Per instruction: the exact events whose change a sampled kind sees (bit
 * per VPMU_EV_*), whether model calls change one, whether every
 * instruction does (the timing model's kinds), whether the kinds must be
 * computed from the state (modeled kinds). */
static UInt insn_ev_mask;
static Bool insn_all, insn_kinds;
static UInt insn_models; /* VPMU_SAMPLE_* model calls that change a sampled kind */
/* The exact events of kinds whose marks are filtered inline (below) and of
 * those that call the sampler at every mark. */
static UInt filtered_mask, always_mask;
/* Filtered exact kinds: the sampler is called at a mark only when the
 * event's live lane plus the mark's static count reaches fire[s] (what
 * they must reach for the running thread's next threshold, set by the
 * sampler; LLONG_MIN: call at the next mark, after a fold or a thread
 * switch; LLONG_MAX: not counting). Between calls the kind's advance is
 * found from the totals, so skipped marks lose nothing. */
static Long fire[MAX_SPECS];
static Addr last_ip; /* the last instruction end the sampler saw */
/* Per core and spec: the kind's count at the last instruction end seen. */
static ULong (*last)[MAX_SPECS];

/* What vpmu_sample_mark leaves for the helper: the instruction and the
 * segment's static counts not yet in the live block. */
struct sample_pt {
    Addr addr;
    UInt pend[VPMU_EV_COUNT];
};

/* Per thread (ThreadId): events since its last sample, per spec; its
 * kernel thread id, asked once. */
static ULong (*since)[MAX_SPECS];
static Int *lwp;
/* Per core: the modeled second of its current window and samples in it. */
static ULong *win_sec, *win_n;
static Bool timing_runs;

/* Samples as words: spec, ip, data, serial, lwp, core, time_ns, access
 * (ACC_WORD: kind, served, TLB miss), latency, the data object (kind |
 * mapping << 2, DOBJ_NONE without one; where, where2), n, sites. */
#define SAMPLE_WORDS 13
#define DOBJ_NONE 0xffffffffULL
#define ACC_NONE 3 /* a sample per instruction: no access */
#define ACC_WORD(kind, served, tlb) ((ULong)(kind) | (ULong)(served) << 2 | (ULong)(tlb) << 4)
static ULong *buf;
static SizeT buf_n, buf_cap;

/* Code mapped while sampling (a dlopen'd library), with its time: hpm
 * record writes its perf MMAP at that time, so a sample is symbolized by
 * what was mapped at its address when it was taken, not by a library
 * mapped there after a dlclose. */
static struct mapped {
    Addr start, end;
    ULong offset, ns;
    HChar *path;
} *maps;
static UInt n_maps, cap_maps;

static Bool parse_specs(const HChar *s)
{
    while (*s) {
        const HChar *colon = VG_(strchr)(s, ':'), *end;
        HChar *num_end;
        Int kind = -1;
        ULong period;
        UInt i;
        Bool ok = False;
        if (!colon || colon == s || n_specs == MAX_SPECS)
            return False;
        if (*s >= '0' && *s <= '9') {
            ULong code = VG_(strtoull10)(s, &num_end);
            if (num_end == colon && code < HPM_K_COUNT)
                kind = (Int)code;
        } else {
            kind = hpm_catalog_kind_by_name(s, (SizeT)(colon - s));
        }
        if (kind < 0 || kind >= HPM_K_CORE_COUNT)
            return False; /* a node-wide kind is no instruction's */
        for (i = 0; i < sizeof by_access / sizeof by_access[0]; i++)
            ok |= by_access[i] == (UInt)kind;
        period = VG_(strtoull10)(colon + 1, &num_end);
        end = num_end;
        if (end == colon + 1 || period == 0 || (*end && *end != ','))
            return False;
        for (i = 0; i < n_specs; i++)
            if (specs[i].kind == (UInt)kind)
                return False; /* one period per kind */
        specs[n_specs].kind = (UInt)kind;
        specs[n_specs].period = period;
        specs[n_specs].insn = !ok;
        n_specs++;
        s = *end ? end + 1 : end;
    }
    return n_specs > 0;
}

Bool vpmu_sample_option(const HChar *arg)
{
    Long v; /* Valgrind's bounded parse compares the variable with a Long */
    if VG_STR_CLO (arg, "--hpm-sample", clo_sample) {
        if (!parse_specs(clo_sample))
            VG_(fmsg_bad_option)(arg, "expected KIND:PERIOD,... with at most %d per-core kinds "
                                      "(hpm list; not node-wide ones), each once, "
                                      "PERIOD >= 1\n",
                                 MAX_SPECS);
        vpmu_state.on.sample = True;
        vpmu_state.on.sample_access = True;
    } else if VG_BOOL_CLO (arg, "--hpm-lat-hist", vpmu_state.on.latency) {
        vpmu_state.on.sample_access = vpmu_state.on.sample || vpmu_state.on.latency;
    } else if VG_BINT_CLO (arg, "--hpm-sample-limit", v, 1, 1000000000) {
        clo_limit = (ULong)v;
    } else if VG_BINT_CLO (arg, "--hpm-sample-ldlat", v, 0, 1000000000) {
        clo_ldlat = (ULong)v;
    } else if VG_BINT_CLO (arg, "--hpm-sample-stlat", v, 0, 1000000000) {
        clo_stlat = (ULong)v;
    } else if VG_BOOL_CLO (arg, "--hpm-sample-src", clo_src) {
    } else {
        return False;
    }
    return True;
}

void vpmu_sample_usage(void)
{
    VG_(printf)("    --hpm-sample=KIND:PERIOD,...  a precise sample at every PERIOD-th event\n"
                "                              of KIND per thread (hpm record; needs\n"
                "                              --hpm-profile=yes)\n"
                "    --hpm-sample-limit=N      at most N samples per modeled second per\n"
                "                              core; more are counted as throttled [100000]\n"
                "    --hpm-sample-ldlat=N      loads count for the kinds sampled per access\n"
                "                              only at a modeled latency >= N cycles [0]\n"
                "    --hpm-sample-stlat=N      the same for stores [0]\n"
                "    --hpm-sample-src=no|yes   samples carry the access's level, TLB and\n"
                "                              latency [yes]\n"
                "    --hpm-lat-hist=no|yes     the exact latency histogram of loads and stores\n"
                "                              (sample_latency records) [no]\n");
}

/* A kind sampled per instruction: which changes it sees; its models must
 * run in this run. */
static void insn_spec_init(struct spec *sp)
{
    const struct hpm_cat_kind_info *info = hpm_catalog_kind(sp->kind);
    const HChar *models = vpmu_node_models(), *missing = NULL;
    UInt needs = info->needs;
    Int e = vpmu_node_kind_event(sp->kind);
    if ((needs & HPM_NEED_HIER) && !VG_(strstr)(models, "hier"))
        missing = "the cache hierarchy";
    else if ((needs & HPM_NEED_BPRED) && !VG_(strstr)(models, "bpred"))
        missing = "the branch predictor";
    else if ((needs & HPM_NEED_TLB) && !VG_(strstr)(models, "tlb"))
        missing = "the TLBs";
    else if ((needs & HPM_NEED_TIMING) && !VG_(strstr)(models, "timing"))
        missing = "the timing model";
    else if ((needs & HPM_NEED_FULL) && vpmu_node_level() < VPMU_LEVEL_FULL)
        missing = "the FP and integer op classes";
    else if (e < 0 && !(needs & HPM_NEED_MODELS))
        missing = "a model";
    if (missing)
        VG_(fmsg_bad_option)("--hpm-sample",
                             "%s: %s does not run in this run (models: %s); count an event "
                             "that runs it (hpm record adds CYCLES)\n",
                             info->name, missing, models);
    vpmu_state.on.sample_insn = True;
    sp->ev = (needs & HPM_NEED_MODELS) ? -1 : e;
    if (needs & HPM_NEED_TIMING) {
        insn_all = True; /* cycles: every instruction has some */
    } else if (needs & HPM_NEED_MODELS) {
        if (needs & HPM_NEED_BPRED)
            insn_models |= VPMU_SAMPLE_BRANCH;
        if (needs & (HPM_NEED_HIER | HPM_NEED_TLB))
            insn_models |= VPMU_SAMPLE_MEM | VPMU_SAMPLE_IFETCH;
        if (e >= 0) /* L1I_ACCESSES: one per instruction */
            always_mask |= 1u << e;
    } else if (e == VPMU_EV_BR_COND_NOT_TAKEN) {
        always_mask |= 1u << VPMU_EV_BR_COND | 1u << VPMU_EV_BR_COND_TAKEN;
    } else {
        filtered_mask |= 1u << e;
        sp->filtered = True;
    }
    insn_ev_mask = filtered_mask | always_mask;
    if (sp->ev < 0)
        insn_kinds = True;
}

/* The latency the timing model charges an access: its cycles per access
 * of the level that served it (hpm_timing_eval's memory stall), per TLB
 * miss, and the load's or store's own cost. */
static void lat_init(void)
{
    const struct hpm_timing_params *t = &vpmu_node_machine()->timing;
    UInt i;
    lat_base[HPM_IFETCH] = 1; /* a fetch has no instruction class of its own */
    lat_base[HPM_LOAD] = (t->cpi_milli[HPM_IC_LOAD] + 999u) / 1000u;
    lat_base[HPM_STORE] = (t->cpi_milli[HPM_IC_STORE] + 999u) / 1000u;
    for (i = HPM_LOAD; i <= HPM_STORE; i++)
        if (lat_base[i] == 0)
            lat_base[i] = 1;
    lat_served[HPM_SERVED_L1] = 0;
    lat_served[HPM_SERVED_L2] = t->l2_latency;
    lat_served[HPM_SERVED_L3] = t->l3_latency;
    lat_served[HPM_SERVED_MEM] = t->memory_latency;
    lat_tlb = t->tlb_miss;
}

void vpmu_sample_init(void)
{
    UInt i, cores;
    vpmu_node_sink_access(vpmu_sample_access); /* the node's accesses */
    if (vpmu_state.on.sample_access)
        lat_init();
    if (!vpmu_state.on.sample)
        return;
    if (!vpmu_state.on.profile)
        VG_(fmsg_bad_option)("--hpm-sample", "needs --hpm-profile=yes (the instruction of "
                                             "each sample is the profile's)\n");
    for (i = 0; i < n_specs; i++) {
        UInt k = specs[i].kind;
        Bool need_tlb = k == HPM_K_DTLB_MISSES || k == HPM_K_ITLB_MISSES;
        if (specs[i].insn) {
            insn_spec_init(&specs[i]);
            continue;
        }
        Bool need_hier = !need_tlb && k != HPM_K_LOADS && k != HPM_K_STORES;
        const HChar *models = vpmu_node_models();
        if ((need_tlb && !VG_(strstr)(models, "tlb")) ||
            (need_hier && !VG_(strstr)(models, "hier")) || !vpmu_node_want_mem())
            VG_(fmsg_bad_option)("--hpm-sample",
                                 "%s: no model decides it in this run (models: %s); "
                                 "count an event that runs it (hpm record adds CYCLES)\n",
                                 vpmu_node_kind_name(k), models);
    }
    timing_runs = VG_(strstr)(vpmu_node_models(), "timing") != NULL;
    cores = vpmu_node_cores();
    last = VG_(calloc)("hpm.sample.last", cores, sizeof *last);
    for (i = 0; i < MAX_SPECS; i++)
        fire[i] = (Long)0x8000000000000000ULL; /* LLONG_MIN */
    since = VG_(calloc)("hpm.sample.since", VG_N_THREADS, sizeof *since);
    lwp = VG_(calloc)("hpm.sample.lwp", VG_N_THREADS, sizeof *lwp);
    win_sec = VG_(calloc)("hpm.sample.win", cores, sizeof *win_sec);
    win_n = VG_(calloc)("hpm.sample.winn", cores, sizeof *win_n);
}

/* The running core's modeled time: its cycles by the timing model (its
 * instructions at one per cycle when no timing model runs) at the machine's
 * frequency. */
static ULong cycles_ns(ULong cyc)
{
    ULong f = vpmu_node_frequency();
    if (f == 0)
        f = 1000000000ULL;
    return cyc / f * 1000000000ULL + (cyc % f) * 1000000000ULL / f;
}

static ULong modeled_ns(UInt core)
{
    ULong ev[VPMU_EV_COUNT], raw[VPMU_PR_N], kv[HPM_K_CORE_COUNT], nv[HPM_K_NODE_COUNT];
    ULong cyc;
    vpmu_node_prof_snapshot(core, ev, raw);
    if (timing_runs) {
        vpmu_node_prof_kinds(raw, ev, kv, nv);
        cyc = kv[HPM_K_CYCLES];
    } else {
        cyc = ev[VPMU_EV_INSTRUCTIONS];
    }
    return cycles_ns(cyc);
}

static void push(ULong w)
{
    if (buf_n == buf_cap) {
        buf_cap = buf_cap ? 2 * buf_cap : 4096;
        buf = VG_(realloc)("hpm.sample.buf", buf, buf_cap * sizeof *buf);
    }
    buf[buf_n++] = w;
}

/* A sample of spec s at instruction ip (data address a), modeled time ns of
 * the running core. */
static void take(UInt s, ThreadId tid, Addr ip, Addr a, ULong ns, ULong acc, ULong lat,
                 const ULong *data)
{
    UInt core = vpmu_node_cur_core(), n, i;
    ULong sec = ns / 1000000000ULL;
    Addr sites[MAX_FRAMES];
    if (sec != win_sec[core]) {
        win_sec[core] = sec;
        win_n[core] = 0;
    }
    if (win_n[core] >= clo_limit) {
        specs[s].throttled++;
        return;
    }
    win_n[core]++;
    specs[s].taken++;
    if (!lwp[tid])
        lwp[tid] = VG_(gettid)();
    n = vpmu_prof_callchain(sites, MAX_FRAMES);
    push(s);
    push(ip);
    push(a);
    push(vpmu_thread_serial(tid));
    push((ULong)(Long)lwp[tid]);
    push(core);
    push(ns);
    push(acc);
    push(lat);
    if ((acc & 3) == HPM_LOAD || (acc & 3) == HPM_STORE) {
        /* the data object as hpm profile names it: hpm report --mem */
        UInt dk, dobj;
        Addr w1, w2;
        vpmu_prof_data_object(a, data, &dk, &w1, &w2, &dobj);
        push((ULong)dk | (ULong)dobj << 2);
        push(w1);
        push(w2);
    } else {
        push(DOBJ_NONE);
        push(0);
        push(0);
    }
    push(n);
    for (i = 0; i < n; i++)
        push(sites[i]);
}

void vpmu_sample_access(Int kind, Addr a, Int served, Bool tlb_miss, const ULong *raw)
{
    ThreadId tid;
    UInt s;
    ULong lat;
    if (!vpmu_state.running)
        return;
    if (kind != HPM_IFETCH)
        lat_hist[kind - HPM_LOAD][(served & 3) * 2 + (tlb_miss != 0)]++;
    if (vpmu_prof_sink == NULL || !vpmu_state.on.sample)
        return;
    tid = VG_(get_running_tid)();
    if (tid == 0 || tid >= VG_N_THREADS)
        return;
    lat = lat_base[kind] + lat_served[served & 3] + (tlb_miss ? lat_tlb : 0);
    /* below its threshold, an access is none of the sampled kinds' */
    if ((kind == HPM_LOAD && lat < clo_ldlat) || (kind == HPM_STORE && lat < clo_stlat))
        return;
    for (s = 0; s < n_specs; s++) {
        Bool data = kind != HPM_IFETCH, l1miss = served != HPM_SERVED_L1, hit;
        switch (specs[s].kind) {
        case HPM_K_LOADS: hit = kind == HPM_LOAD; break;
        case HPM_K_STORES: hit = kind == HPM_STORE; break;
        case HPM_K_L1D_MISSES: hit = data && l1miss; break;
        case HPM_K_L1D_READ_MISSES: hit = kind == HPM_LOAD && l1miss; break;
        case HPM_K_L1D_WRITE_MISSES: hit = kind == HPM_STORE && l1miss; break;
        case HPM_K_L1I_MISSES: hit = !data && l1miss; break;
        case HPM_K_L2_HITS: hit = served == HPM_SERVED_L2; break;
        case HPM_K_L2_MISSES: hit = served == HPM_SERVED_L3 || served == HPM_SERVED_MEM; break;
        case HPM_K_L3_HITS: hit = served == HPM_SERVED_L3; break;
        case HPM_K_MEM_ACCESSES: hit = served == HPM_SERVED_MEM; break;
        case HPM_K_DTLB_MISSES: hit = data && tlb_miss; break;
        case HPM_K_ITLB_MISSES: hit = !data && tlb_miss; break;
        default: hit = False; break;
        }
        if (!hit || specs[s].insn)
            continue;
        specs[s].seen++;
        if (++since[tid][s] == specs[s].period) {
            since[tid][s] = 0;
            take(s, tid, vpmu_prof_sink_addr(vpmu_prof_sink), data ? a : 0,
                 modeled_ns(vpmu_node_cur_core()),
                 clo_src ? ACC_WORD(kind, served & 3, tlb_miss != 0) : ACC_NONE,
                 clo_src ? lat : 0, raw);
        }
    }
}

/* A filtered kind's next call: when its live lane plus a mark's static
 * count reaches the running thread's next threshold. */
static void set_fire(UInt s, ThreadId tid, const struct sample_pt *pt)
{
    Int e = specs[s].ev;
    ULong lane;
    if (!specs[s].filtered)
        return;
    if (!vpmu_state.running) {
        fire[s] = 0x7fffffffffffffffLL; /* the start's fold calls again */
        return;
    }
    lane = (vpmu_state.live[VPMU_LIVE_WORD(e)] >> VPMU_LIVE_SHIFT(e)) & 0xffffffffULL;
    fire[s] = (Long)(lane + pt->pend[e] + (specs[s].period - since[tid][s]));
}

void vpmu_sample_fold(ThreadId tid)
{
    ULong ev[VPMU_EV_COUNT], raw[VPMU_PR_N];
    UInt core, s;
    if (tid == 0 || tid >= VG_N_THREADS)
        return;
    core = vpmu_node_core_of(vpmu_thread_serial(tid));
    vpmu_node_prof_snapshot(core, ev, raw);
    for (s = 0; s < n_specs; s++) {
        struct spec *sp = &specs[s];
        ULong v;
        if (!sp->filtered)
            continue;
        fire[s] = (Long)0x8000000000000000ULL; /* the next mark calls the sampler */
        v = ev[sp->ev];
        if (v <= last[core][s])
            continue;
        if (vpmu_state.running) {
            /* a mark at every change saw each threshold; what is left is
             * below the next one (else it is taken at the last mark) */
            ULong d = v - last[core][s];
            sp->seen += d;
            since[tid][s] += d;
            while (since[tid][s] >= sp->period) {
                since[tid][s] -= sp->period;
                take(s, tid, last_ip, 0, modeled_ns(core), ACC_NONE, 0, NULL);
            }
        }
        last[core][s] = v;
    }
}

/* The end of an instruction (dirty helper): the core's state is its folded
 * totals, the live block and pt's static counts. Each kind's advance since
 * the last instruction end is the running thread's (while counting); every
 * threshold it passed is a sample of this instruction, at the time of the
 * crossing for the timing model's cycles, else at the instruction's end. */
static VG_REGPARM(1) void vpmu_sample_insn(const struct sample_pt *pt)
{
    ULong ev[VPMU_EV_COUNT], raw[VPMU_PR_N], kv[HPM_K_CORE_COUNT], nv[HPM_K_NODE_COUNT];
    UInt core = vpmu_node_cur_core(), s, e;
    ThreadId tid = VG_(get_running_tid)();
    Bool have_kv = False;
    if (tid == 0 || tid >= VG_N_THREADS)
        return;
    vpmu_node_prof_snapshot(core, ev, raw);
    for (e = 0; e < VPMU_EV_COUNT; e++)
        ev[e] += pt->pend[e];
    ev[VPMU_EV_BR_COND_NOT_TAKEN] = ev[VPMU_EV_BR_COND] - ev[VPMU_EV_BR_COND_TAKEN];
    if (insn_kinds) {
        vpmu_node_prof_kinds(raw, ev, kv, nv);
        have_kv = True;
    }
    for (s = 0; s < n_specs; s++) {
        struct spec *sp = &specs[s];
        ULong v, d, ns_end = 0;
        Bool have_end = False;
        if (!sp->insn)
            continue;
        v = sp->ev >= 0 ? ev[sp->ev] : have_kv ? kv[sp->kind] : 0;
        if (v <= last[core][s]) {
            /* nothing new (a modeled kind may also fall a little: the
             * timing model's integer class is a remainder) */
            set_fire(s, tid, pt);
            continue;
        }
        d = v - last[core][s];
        last[core][s] = v;
        if (!vpmu_state.running) {
            set_fire(s, tid, pt); /* not counted */
            continue;
        }
        sp->seen += d;
        while (d >= sp->period - since[tid][s]) {
            ULong ns;
            d -= sp->period - since[tid][s];
            since[tid][s] = 0;
            if (sp->kind == HPM_K_CYCLES) {
                ns = cycles_ns(v - d); /* the crossing cycle */
            } else {
                if (!have_end) {
                    if (!have_kv && timing_runs) {
                        vpmu_node_prof_kinds(raw, ev, kv, nv);
                        have_kv = True;
                    }
                    ns_end = cycles_ns(timing_runs ? kv[HPM_K_CYCLES] : ev[VPMU_EV_INSTRUCTIONS]);
                    have_end = True;
                }
                ns = ns_end;
            }
            take(s, tid, pt->addr, 0, ns, ACC_NONE, 0, NULL);
        }
        since[tid][s] += d;
        set_fire(s, tid, pt);
    }
    last_ip = pt->addr;
}

void vpmu_sample_mark(IRSB *sb, Addr insn, UInt ev, UInt models, const ULong *pend)
{
    struct sample_pt *pt;
    IRDirty *di;
    UInt e, s;
    Bool always = (insn_all && (ev || models)) || (models & insn_models) || (ev & always_mask);
    IRExpr *guard = NULL;
    if (!always && !(ev & filtered_mask))
        return;
    /* kept for as long as the translation may run */
    pt = VG_(malloc)("hpm.sample.pt", sizeof *pt);
    pt->addr = insn;
    for (e = 0; e < VPMU_EV_COUNT; e++)
        pt->pend[e] = (UInt)pend[e];
    for (s = 0; s < n_specs && !always; s++) {
        /* lane + pend >= fire[s], or-ed over the filtered kinds it added */
        Int ev_s = specs[s].ev;
        IRTemp w, l, f, g;
        if (!specs[s].filtered || !(ev & (1u << ev_s)))
            continue;
        w = newIRTemp(sb->tyenv, Ity_I64);
        l = newIRTemp(sb->tyenv, Ity_I64);
        f = newIRTemp(sb->tyenv, Ity_I64);
        g = newIRTemp(sb->tyenv, Ity_I64);
        addStmtToIRSB(sb, IRStmt_WrTmp(w, IRExpr_Load(Iend_LE, Ity_I64,
                                                      mkIRExpr_HWord((HWord)&vpmu_state.live
                                                                         [VPMU_LIVE_WORD(ev_s)]))));
        {
            /* flat IR: one operation per temporary */
            IRTemp sh = newIRTemp(sb->tyenv, Ity_I64), ma = newIRTemp(sb->tyenv, Ity_I64);
            addStmtToIRSB(sb, IRStmt_WrTmp(sh, IRExpr_Binop(Iop_Shr64, IRExpr_RdTmp(w),
                                                            IRExpr_Const(IRConst_U8(
                                                                VPMU_LIVE_SHIFT(ev_s))))));
            addStmtToIRSB(sb, IRStmt_WrTmp(ma, IRExpr_Binop(Iop_And64, IRExpr_RdTmp(sh),
                                                            IRExpr_Const(IRConst_U64(
                                                                0xffffffffULL)))));
            addStmtToIRSB(sb, IRStmt_WrTmp(l, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(ma),
                                                           IRExpr_Const(IRConst_U64(pend[ev_s])))));
        }
        addStmtToIRSB(sb, IRStmt_WrTmp(f, IRExpr_Load(Iend_LE, Ity_I64,
                                                      mkIRExpr_HWord((HWord)&fire[s]))));
        {
            IRTemp c1 = newIRTemp(sb->tyenv, Ity_I1);
            addStmtToIRSB(sb, IRStmt_WrTmp(c1, IRExpr_Binop(Iop_CmpLE64S, IRExpr_RdTmp(f),
                                                            IRExpr_RdTmp(l))));
            addStmtToIRSB(sb, IRStmt_WrTmp(g, IRExpr_Unop(Iop_1Uto64, IRExpr_RdTmp(c1))));
        }
        if (guard) {
            IRTemp o = newIRTemp(sb->tyenv, Ity_I64);
            addStmtToIRSB(sb, IRStmt_WrTmp(o, IRExpr_Binop(Iop_Or64, guard, IRExpr_RdTmp(g))));
            guard = IRExpr_RdTmp(o);
        } else {
            guard = IRExpr_RdTmp(g);
        }
    }
    di = unsafeIRDirty_0_N(1, "vpmu_sample_insn", VG_(fnptr_to_fnentry)((void *)&vpmu_sample_insn),
                           mkIRExprVec_1(mkIRExpr_HWord((HWord)pt)));
    if (guard) {
        IRTemp g1 = newIRTemp(sb->tyenv, Ity_I1);
        addStmtToIRSB(sb, IRStmt_WrTmp(g1, IRExpr_Binop(Iop_CmpNE64, guard,
                                                        IRExpr_Const(IRConst_U64(0)))));
        di->guard = IRExpr_RdTmp(g1);
    }
    addStmtToIRSB(sb, IRStmt_Dirty(di));
}

void vpmu_sample_thread_end(ThreadId tid)
{
    if (vpmu_state.on.sample && tid < VG_N_THREADS) {
        VG_(memset)(since[tid], 0, sizeof since[tid]);
        lwp[tid] = 0;
    }
}

void vpmu_sample_fork_child(void)
{
    UInt s;
    VG_(memset)(lat_hist, 0, sizeof lat_hist);
    if (!vpmu_state.on.sample)
        return;
    buf_n = 0;
    /* the parent's mappings are the child's too, but its MMAPs are written
     * from the profile's objects at time 0 */
    while (n_maps)
        VG_(free)(maps[--n_maps].path);
    for (s = 0; s < n_specs; s++) {
        specs[s].seen = specs[s].taken = specs[s].throttled = 0;
        fire[s] = (Long)0x8000000000000000ULL; /* fresh countdowns: ask again */
    }
    VG_(memset)(since, 0, VG_N_THREADS * sizeof *since);
    VG_(memset)(lwp, 0, VG_N_THREADS * sizeof *lwp);
    VG_(memset)(win_sec, 0, vpmu_node_cores() * sizeof *win_sec);
    VG_(memset)(win_n, 0, vpmu_node_cores() * sizeof *win_n);
}


void vpmu_sample_mmap(Addr a, SizeT len, Bool exec)
{
    const NSegment *seg;
    const HChar *path;
    struct mapped *m;
    if (!vpmu_state.on.sample || !exec || len == 0)
        return;
    seg = VG_(am_find_nsegment)(a);
    if (!seg || seg->kind != SkFileC || !(path = VG_(am_get_filename)(seg)))
        return;
    if (n_maps == cap_maps) {
        cap_maps = cap_maps ? 2 * cap_maps : 16;
        maps = VG_(realloc)("hpm.sample.maps", maps, cap_maps * sizeof *maps);
    }
    m = &maps[n_maps++];
    m->start = a;
    m->end = a + len - 1;
    m->offset = (ULong)seg->offset + (a - seg->start);
    m->ns = modeled_ns(vpmu_node_cur_core());
    m->path = VG_(strdup)("hpm.sample.path", path);
}

static const HChar *const acc_name[4] = {"fetch", "load", "store", "-"};
static const HChar *const served_name[4] = {"L1", "L2", "L3", "MEM"};
static const HChar *const dobj_name[4] = {"heap", "global", "stack", "other"};

void vpmu_sample_write(Out *o)
{
    SizeT at = 0;
    UInt s, i;
    if (!vpmu_state.on.sample_access)
        return;
    if (vpmu_state.on.sample)
        out_printf(o, VPMU_REC_SAMPLE_LIMIT " %llu\n", clo_limit);
    for (s = 0; s < n_specs; s++)
        out_printf(o, VPMU_REC_SAMPLE_KIND " %s %llu %llu %llu %llu\n",
                   vpmu_node_kind_name(specs[s].kind), specs[s].period, specs[s].seen,
                   specs[s].taken, specs[s].throttled);
    while (at < buf_n) {
        const ULong *w = &buf[at];
        /* ACC SERVED TLB LAT after the time ("- - - 0" for no access),
         * then the data object: KIND WHERE WHERE2 OBJ ("- 0 0 0": none) */
        if ((w[7] & 3) == ACC_NONE)
            out_printf(o, VPMU_REC_SAMPLE " %s %llx %llx %llu %lld %llu %llu - - - 0",
                       vpmu_node_kind_name(specs[w[0]].kind), w[1], w[2], w[3], (Long)w[4],
                       w[5], w[6]);
        else
            out_printf(o, VPMU_REC_SAMPLE " %s %llx %llx %llu %lld %llu %llu %s %s %s %llu",
                       vpmu_node_kind_name(specs[w[0]].kind), w[1], w[2], w[3], (Long)w[4],
                       w[5], w[6], acc_name[w[7] & 3], served_name[(w[7] >> 2) & 3],
                       (w[7] >> 4) & 1 ? "tlbmiss" : "tlbhit", w[8]);
        if (w[9] == DOBJ_NONE)
            out_printf(o, " - 0 0 0");
        else
            out_printf(o, " %s %lx %lx %llu", dobj_name[w[9] & 3], (Addr)w[10], (Addr)w[11],
                       w[9] >> 2);
        for (i = 0; i < w[12]; i++)
            out_printf(o, " %llx", w[SAMPLE_WORDS + i]);
        out_printf(o, "\n");
        at += SAMPLE_WORDS + w[12];
    }
    for (s = 0; s < 2; s++)
        for (i = 0; i < 8; i++)
            if (lat_hist[s][i])
                out_printf(o, VPMU_REC_SAMPLE "_latency %s %llu %s %s %llu\n",
                           s ? "store" : "load",
                           lat_base[HPM_LOAD + s] + lat_served[i / 2] + (i & 1 ? lat_tlb : 0),
                           served_name[i / 2], i & 1 ? "tlbmiss" : "tlbhit", lat_hist[s][i]);
    VG_(memset)(lat_hist, 0, sizeof lat_hist);
    for (i = 0; i < n_maps; i++) {
        out_printf(o, VPMU_REC_SAMPLE "_mmap %lx %lx %llx %llu %s\n", maps[i].start, maps[i].end,
                   maps[i].offset, maps[i].ns, maps[i].path);
        VG_(free)(maps[i].path);
    }
    n_maps = 0;
    /* what was written is this segment's: a process that goes on (a
     * failed exec) writes only what follows */
    buf_n = 0;
    for (s = 0; s < n_specs; s++)
        specs[s].seen = specs[s].taken = specs[s].throttled = 0;
}
