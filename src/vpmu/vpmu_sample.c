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
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"

#include "catalog.h"
#include "model.h"
#include "vpmu_format.h"
#include "vpmu_node.h"
#include "vpmu_profile.h"
#include "vpmu_sample.h"
#include "vpmu_state.h"

#define MAX_SPECS 8
#define MAX_FRAMES 32 /* call sites kept per sample */

Bool vpmu_sample_on;

static const HChar *clo_sample;
static ULong clo_limit = 100000; /* samples per modeled second per core */

/* The kinds a sample can be taken on: each is decided by one model call. */
static const UInt sampleable[] = {
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
} specs[MAX_SPECS];

/* Per thread (ThreadId): events since its last sample, per spec; its
 * kernel thread id, asked once. */
static ULong (*since)[MAX_SPECS];
static Int *lwp;
/* Per core: the modeled second of its current window and samples in it. */
static ULong *win_sec, *win_n;
static Bool timing_runs;

/* Samples as words: spec, ip, data, serial, lwp, core, time_ns, n, sites. */
static ULong *buf;
static SizeT buf_n, buf_cap;

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
        if (kind < 0)
            return False;
        for (i = 0; i < sizeof sampleable / sizeof sampleable[0]; i++)
            ok |= sampleable[i] == (UInt)kind;
        if (!ok)
            return False;
        period = VG_(strtoull10)(colon + 1, &num_end);
        end = num_end;
        if (end == colon + 1 || period == 0 || (*end && *end != ','))
            return False;
        for (i = 0; i < n_specs; i++)
            if (specs[i].kind == (UInt)kind)
                return False; /* one period per kind */
        specs[n_specs].kind = (UInt)kind;
        specs[n_specs].period = period;
        n_specs++;
        s = *end ? end + 1 : end;
    }
    return n_specs > 0;
}

Bool vpmu_sample_option(const HChar *arg)
{
    if VG_STR_CLO (arg, "--hpm-sample", clo_sample) {
        if (!parse_specs(clo_sample))
            VG_(fmsg_bad_option)(arg, "expected KIND:PERIOD,... with at most %d kinds out of "
                                      "LOADS STORES L1D_MISSES L1D_READ_MISSES "
                                      "L1D_WRITE_MISSES L1I_MISSES L2_HITS L2_MISSES L3_HITS "
                                      "MEM_ACCESSES DTLB_MISSES ITLB_MISSES, each once, "
                                      "PERIOD >= 1\n",
                                 MAX_SPECS);
        vpmu_sample_on = True;
    } else if VG_BINT_CLO (arg, "--hpm-sample-limit", clo_limit, 1, 1000000000) {
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
                "                              core; more are counted as throttled [100000]\n");
}

void vpmu_sample_init(void)
{
    UInt i, cores;
    if (!vpmu_sample_on)
        return;
    if (!vpmu_prof_on)
        VG_(fmsg_bad_option)("--hpm-sample", "needs --hpm-profile=yes (the instruction of "
                                             "each sample is the profile's)\n");
    for (i = 0; i < n_specs; i++) {
        UInt k = specs[i].kind;
        Bool need_tlb = k == HPM_K_DTLB_MISSES || k == HPM_K_ITLB_MISSES;
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
    since = VG_(calloc)("hpm.sample.since", VG_N_THREADS, sizeof *since);
    lwp = VG_(calloc)("hpm.sample.lwp", VG_N_THREADS, sizeof *lwp);
    win_sec = VG_(calloc)("hpm.sample.win", cores, sizeof *win_sec);
    win_n = VG_(calloc)("hpm.sample.winn", cores, sizeof *win_n);
}

/* The running core's modeled time: its cycles by the timing model (its
 * instructions at one per cycle when no timing model runs) at the machine's
 * frequency. */
static ULong modeled_ns(UInt core)
{
    ULong ev[VPMU_EV_COUNT], raw[VPMU_PR_N], kv[HPM_K_CORE_COUNT], nv[HPM_K_NODE_COUNT];
    ULong cyc, f = vpmu_node_frequency();
    vpmu_node_prof_snapshot(core, ev, raw);
    if (timing_runs) {
        vpmu_node_prof_kinds(raw, ev, kv, nv);
        cyc = kv[HPM_K_CYCLES];
    } else {
        cyc = ev[VPMU_EV_INSTRUCTIONS];
    }
    if (f == 0)
        f = 1000000000ULL;
    return cyc / f * 1000000000ULL + (cyc % f) * 1000000000ULL / f;
}

static void push(ULong w)
{
    if (buf_n == buf_cap) {
        buf_cap = buf_cap ? 2 * buf_cap : 4096;
        buf = VG_(realloc)("hpm.sample.buf", buf, buf_cap * sizeof *buf);
    }
    buf[buf_n++] = w;
}

static void take(UInt s, ThreadId tid, Addr a)
{
    UInt core = vpmu_node_cur_core(), n, i;
    ULong ns = modeled_ns(core), sec = ns / 1000000000ULL;
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
    push(vpmu_prof_sink_addr(vpmu_prof_sink));
    push(a);
    push(vpmu_thread_serial(tid));
    push((ULong)(Long)lwp[tid]);
    push(core);
    push(ns);
    push(n);
    for (i = 0; i < n; i++)
        push(sites[i]);
}

void vpmu_sample_access(Int kind, Addr a, Int served, Bool tlb_miss)
{
    ThreadId tid;
    UInt s;
    if (!vpmu_running || vpmu_prof_sink == NULL)
        return;
    tid = VG_(get_running_tid)();
    if (tid == 0 || tid >= VG_N_THREADS)
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
        if (!hit)
            continue;
        specs[s].seen++;
        if (++since[tid][s] == specs[s].period) {
            since[tid][s] = 0;
            take(s, tid, data ? a : 0);
        }
    }
}

void vpmu_sample_thread_end(ThreadId tid)
{
    if (vpmu_sample_on && tid < VG_N_THREADS) {
        VG_(memset)(since[tid], 0, sizeof since[tid]);
        lwp[tid] = 0;
    }
}

void vpmu_sample_fork_child(void)
{
    UInt s;
    if (!vpmu_sample_on)
        return;
    buf_n = 0;
    for (s = 0; s < n_specs; s++)
        specs[s].seen = specs[s].taken = specs[s].throttled = 0;
    VG_(memset)(since, 0, VG_N_THREADS * sizeof *since);
    VG_(memset)(lwp, 0, VG_N_THREADS * sizeof *lwp);
    VG_(memset)(win_sec, 0, vpmu_node_cores() * sizeof *win_sec);
    VG_(memset)(win_n, 0, vpmu_node_cores() * sizeof *win_n);
}

void vpmu_sample_write(Out *o)
{
    SizeT at = 0;
    UInt s, i;
    if (!vpmu_sample_on)
        return;
    out_printf(o, VPMU_REC_SAMPLE_LIMIT " %llu\n", clo_limit);
    for (s = 0; s < n_specs; s++)
        out_printf(o, VPMU_REC_SAMPLE_KIND " %s %llu %llu %llu %llu\n",
                   vpmu_node_kind_name(specs[s].kind), specs[s].period, specs[s].seen,
                   specs[s].taken, specs[s].throttled);
    while (at < buf_n) {
        const ULong *w = &buf[at];
        out_printf(o, VPMU_REC_SAMPLE " %s %llx %llx %llu %lld %llu %llu",
                   vpmu_node_kind_name(specs[w[0]].kind), w[1], w[2], w[3], (Long)w[4], w[5],
                   w[6]);
        for (i = 0; i < w[7]; i++)
            out_printf(o, " %llx", w[8 + i]);
        out_printf(o, "\n");
        at += 8 + w[7];
    }
    /* what was written is this segment's: a process that goes on (a
     * failed exec) writes only what follows */
    buf_n = 0;
    for (s = 0; s < n_specs; s++)
        specs[s].seen = specs[s].taken = specs[s].throttled = 0;
}
