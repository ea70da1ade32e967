/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_threads.c - threads and folding: the per-thread counts, the live
 * block folded into them (vpmu_fold), the UPC brought up to date and
 * credited to the running thread (vpmu_account), the run bit that the
 * program, the gates and frozen overflow handlers decide, and the resets
 * and reprogramming that restart every count.
 *
 * Per-thread counts. The UPC counts per core (as the hardware does); a
 * thread's count is what its core's counters advanced while it ran. The tool
 * feeds the UPC and reads it back whenever the running thread changes (and
 * at client requests), and credits the difference to the thread that ran,
 * as an OS virtualises counters at context switches; a program's read of
 * its own counts may credit the deltas and leave the batch for the next
 * feeding (vpmu_account_read). (As callgrind's
 * threads.c: the thread switch and its accounting in one file.)
 *
 * Copyright notice: this tool links Valgrind's coregrind and VEX (GPL-2.0).
 */
#include "pub_tool_basics.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_transtab.h"

#include "vpmu_profile.h"
#include "vpmu_sample.h"
#include "vpmu_tool.h"

/* per core: UPC values of its per-core kinds at the last accounting */
static ULong (*core_seen)[HPM_K_CORE_COUNT];

/* The event in each slot of the live block: vpmu_live_slot's inverse, for
 * the fold's walk by word */
static UChar live_event[2 * VPMU_LIVE_WORDS];
_Static_assert(2 * VPMU_LIVE_WORDS == VPMU_EV_COUNT, "live_event: every slot holds an event");

void vpmu_threads_init(void)
{
    Int e;
    VG_(memset)(live_event, 0xff, sizeof live_event);
    for (e = 0; e < VPMU_EV_COUNT; e++) { /* a slot of its own per event */
        tl_assert(live_event[vpmu_live_slot(e)] == 0xff);
        live_event[vpmu_live_slot(e)] = (UChar)e;
    }
    core_seen = VG_(calloc)("hpm.seen", vpmu_node_cores(), sizeof *core_seen);
}

/* ------------------------------------------------------------------------
 * Threads and folding
 * ---------------------------------------------------------------------- */

/* The live block goes to the running thread's core always (the UPC decides
 * whether it counts) and to the thread's raw counters while counting. It
 * is folded at every timeslice and every request, most of the time with
 * a few of its words moved: only those are read and added (moved, a bit
 * per event). */
_Static_assert(VPMU_EV_COUNT <= 64, "vpmu_fold: one bit per event");
void vpmu_fold(void)
{
    Int e, w;
    if (vpmu_state.live_owner != VG_INVALID_THREADID) {
        struct vpmu_thread *t = thread_get(vpmu_state.live_owner);
        ULong ev[VPMU_EV_COUNT], moved = 0, m;
        ev[VPMU_EV_BR_COND] = ev[VPMU_EV_BR_COND_TAKEN] = 0;
        for (w = 0; w < VPMU_LIVE_WORDS; w++) {
            ULong v = vpmu_state.live[w];
            Int lo = live_event[2 * w], hi = live_event[2 * w + 1];
            if (v == 0)
                continue;
            ev[lo] = v & 0xffffffffULL;
            ev[hi] = v >> 32;
            moved |= 1ULL << lo | 1ULL << hi;
        }
        /* not-taken has no lane of its own: it is the others' difference */
        moved &= ~(1ULL << VPMU_EV_BR_COND_NOT_TAKEN);
        if (moved & (1ULL << VPMU_EV_BR_COND | 1ULL << VPMU_EV_BR_COND_TAKEN)) {
            ev[VPMU_EV_BR_COND_NOT_TAKEN] = ev[VPMU_EV_BR_COND] - ev[VPMU_EV_BR_COND_TAKEN];
            moved |= 1ULL << VPMU_EV_BR_COND_NOT_TAKEN;
        }
        if (vpmu_state.on.profile)
            vpmu_prof_fold(); /* before the live block empties */
        vpmu_node_add_core_events(t->core, ev, moved);
        if (vpmu_state.running)
            for (m = moved; m; m &= m - 1) {
                e = __builtin_ctzll(m);
                t->c[e] += ev[e];
            }
    }
    /* the turns' clock runs on whether counting runs or not */
    vpmu_state.turn_instr += vpmu_state.live[0] & 0xffffffffULL;
    for (w = 0; w < VPMU_LIVE_WORDS; w++)
        vpmu_state.live[w] = 0;
    if (vpmu_state.on.sample_insn && vpmu_state.live_owner != VG_INVALID_THREADID)
        vpmu_sample_fold(vpmu_state.live_owner);
}

/* Bring the UPC up to date and credit what the running thread's core
 * counted since the last accounting to that thread; for a read of the
 * thread's own counts (read), the UPC's batch may wait, its sums credited
 * (vpmu_node_flush_read). */
static void account(Bool read)
{
    struct vpmu_thread *t;
    vpmu_fold();
    if (vpmu_state.live_owner == VG_INVALID_THREADID) {
        vpmu_node_flush();
        return;
    }
    t = thread_get(vpmu_state.live_owner);
    if (read && vpmu_node_flush_read(t->core, core_seen[t->core], t->u))
        return;
    vpmu_node_flush();
    vpmu_node_core_credit(t->core, core_seen[t->core], t->u);
}

void vpmu_account(void)
{
    account(False);
}

void vpmu_account_read(void)
{
    account(True);
}

/* vpmu_account for a live view: host time decides when those come, so
 * the counts that depend on where a flush falls wait (vpmu_node.h). */
void vpmu_account_view(void)
{
    vpmu_node_modes_hold(True);
    vpmu_account();
    vpmu_node_modes_hold(False);
}

/* libcoregrind, not in pub_tool: discarding is allowed while a client
 * request runs; between timeslices no translation is in use either */
extern Bool VG_(ok_to_discard_translations);

/* Every translation goes, from a client request: what is instrumented
 * changed. */
void vpmu_retranslate_all(const HChar *why)
{
    Bool ok = VG_(ok_to_discard_translations);
    VG_(ok_to_discard_translations) = True;
    VG_(discard_translations_safely)((Addr)0x1000, ~(SizeT)0xfff, why);
    VG_(ok_to_discard_translations) = ok;
}

/* Start the waiting models that needs asks for (--hpm-model=on-demand;
 * vpmu_node_models_on): 1 when one started. What ran so far is counted
 * without them. */
Int vpmu_models_start(UInt needs)
{
    vpmu_account();
    if (!vpmu_node_models_on(needs))
        return 0;
    vpmu_retranslate_all("hpm models"); /* hooks are chosen at translation */
    return 1;
}

void vpmu_ev_counted_widen(UInt events)
{
    if ((events & ~vpmu_state.ev_counted) == 0)
        return;
    vpmu_state.ev_counted |= events;
    /* the live block's lanes of the new events hold nothing yet: translations
     * made from now on add to them */
    vpmu_retranslate_all("hpm events");
}

Int vpmu_reprogram(const UInt *specs, UInt n)
{
    UInt i, d;
    vpmu_account();
    if (vpmu_node_select(specs, n) != 0)
        return -1;
    vpmu_ev_counted_widen(vpmu_node_events_needed());
    /* new programming: every per-thread and region count restarts */
    VG_(memset)(core_seen, 0, vpmu_node_cores() * sizeof *core_seen);
    for (i = 1; i < VG_N_THREADS; i++) {
        if (!vpmu_state.threads[i].used)
            continue;
        VG_(memset)(vpmu_state.threads[i].u, 0, sizeof vpmu_state.threads[i].u);
        for (d = 0; d < vpmu_state.threads[i].depth; d++)
            VG_(memset)(vpmu_state.threads[i].stack[d].snap, 0,
                        sizeof vpmu_state.threads[i].stack[d].snap);
    }
    return 0;
}

/* The UPC's run bit is what the program and the gates asked for
 * (vpmu_state.counting_wanted), except while the running thread is frozen in an
 * overflow handler. Valgrind runs one thread at a time and the tool
 * accounts at every switch, so stopping the unit while a frozen thread runs
 * freezes exactly that thread's counts, node-wide ones included. */

static Bool owner_frozen(void)
{
    const struct vpmu_thread *t;
    if (vpmu_state.live_owner == VG_INVALID_THREADID)
        return False;
    t = &vpmu_state.threads[vpmu_state.live_owner];
    return t->used && (t->frozen > 0 || t->upcall_frozen);
}

static void run_bit(Bool on)
{
    vpmu_account(); /* what ran while stopped reaches a stopped UPC: not counted */
    vpmu_state.running = on;
    if (on) {
        vpmu_node_start();
        vpmu_prof_start();
    } else {
        vpmu_node_stop();
        vpmu_prof_stop();
    }
}

/* After the running thread or its frozen state changed. */
void vpmu_run_state_apply(void)
{
    Bool on = vpmu_state.counting_wanted && !owner_frozen();
    if (on != vpmu_state.running)
        run_bit(on);
}

void vpmu_counting_start(void)
{
    vpmu_state.counting_wanted = True;
    run_bit(!owner_frozen());
}

void vpmu_counting_stop(void)
{
    vpmu_state.counting_wanted = False;
    run_bit(False);
}

/* A forked child's only thread is the one that forked, whichever it was in
 * the parent: it becomes thread 1 of the new process, on core 0 as every
 * process's first thread is (vpmu_node_core_of), and the parent's other
 * threads are gone. What the live block holds ran in the parent, on the
 * thread's core there. */
void vpmu_threads_fork_child(ThreadId tid)
{
    UInt i, core;
    struct vpmu_thread *t;
    vpmu_account();
    for (i = 1; i < VG_N_THREADS; i++) {
        if ((ThreadId)i == tid || !vpmu_state.threads[i].used)
            continue;
        if (vpmu_state.threads[i].ovf_upc_mem)
            VG_(free)(vpmu_state.threads[i].ovf_upc_mem);
        vpmu_state.threads[i].ovf_upc = NULL;
        vpmu_state.threads[i].ovf_upc_mem = NULL;
        vpmu_state.threads[i].used = False;
    }
    if (tid == 0 || tid >= VG_N_THREADS)
        return;
    t = thread_get(tid);
    vpmu_state.next_serial = 1;
    t->serial = vpmu_state.next_serial++;
    core = vpmu_node_core_of(t->serial);
    vpmu_state.live_owner = tid;
    if (core != t->core) {
        t->core = core;
        vpmu_node_set_core(core);
    }
}

void vpmu_reset_all(void)
{
    UInt i, d;
    struct vpmu_region_rec *r;
    vpmu_account();
    vpmu_node_reset();
    vpmu_prof_reset();
    VG_(memset)(core_seen, 0, vpmu_node_cores() * sizeof *core_seen);
    for (i = 1; i < VG_N_THREADS; i++) {
        if (!vpmu_state.threads[i].used)
            continue;
        VG_(memset)(vpmu_state.threads[i].c, 0, sizeof vpmu_state.threads[i].c);
        VG_(memset)(vpmu_state.threads[i].u, 0, sizeof vpmu_state.threads[i].u);
        for (d = 0; d < vpmu_state.threads[i].depth; d++)
            VG_(memset)(vpmu_state.threads[i].stack[d].snap, 0,
                        sizeof vpmu_state.threads[i].stack[d].snap);
    }
    while (vpmu_state.exited_threads) {
        struct vpmu_exited *x = vpmu_state.exited_threads;
        vpmu_state.exited_threads = x->next;
        VG_(free)(x);
    }
    for (r = vpmu_state.region_recs; r; r = r->next) {
        r->entries = 0;
        VG_(memset)(r->u, 0, sizeof r->u);
    }
}
