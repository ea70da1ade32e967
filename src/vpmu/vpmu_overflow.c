/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_overflow.c - overflow interrupts: the per-superblock check
 * (vpmu_ovf_check, called from the instrumentation), the thread's overflow
 * unit (a UPC of its own), delivery as a signal or an upcall, and the
 * freezing of a thread's counting while its handler runs.
 *
 * Copyright notice: this tool links Valgrind's coregrind and VEX (GPL-2.0).
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_transtab.h"
#include "pub_tool_vkiscnums.h"

#include "hpm/upc.h"
#include "vpmu_tool.h"

/* ------------------------------------------------------------------------
 * Overflow interrupts
 *
 * Once any thread arms one, every superblock starts with a call of
 * vpmu_ovf_check (translations made before are discarded so that they get
 * it too; programs that never arm pay nothing). The check compares the
 * running thread's armed counts with their next threshold: for kinds that
 * are exact core events the count is the thread's raw counter plus the
 * live block's lane (exact at the superblock boundary); kinds a model
 * produces (cycles, misses) need the models' counts brought up to date,
 * done every OVF_MODEL_STRIDE-th superblock as a program's read does it
 * (vpmu_account_read).
 *
 * Delivery as an upcall, where the thread registered an entry
 * (HPM_VPMU_OVERFLOW_UPCALL): the check pushes the interrupted PC and the
 * threshold's address below the red zone, moves the stack pointer, and the
 * superblock jumps to the entry (a chained exit: no scheduler, no system
 * call); counting is frozen until the stack pointer is back (upcall_enter).
 *
 * Delivery as a signal otherwise. When a threshold is passed the tool queues the signal to the
 * thread (rt_tgsigqueueinfo, si_code SI_QUEUE, si_value the address of the
 * superblock the count passed in) and the superblock exits to the scheduler
 * (Ijk_Yield) before it runs. Left alone, the scheduler would poll for the
 * signal only at the end of its timeslice, hundreds of superblocks later;
 * the tool's stop_client_code hook, which runs right after that exit and
 * before the scheduler picks the next code to run, delivers it at once
 * (VG_(poll_signals), as the scheduler itself does). The handler thus runs
 * at the instruction boundary where the superblock after the event starts:
 * the skid is what remained of one superblock.
 *
 * The thresholds are the UPC's (seed 000): each thread that arms one gets
 * an overflow unit of its own, a UPC with HPM_VPMU_OVERFLOW_MAX counters
 * (the thread's virtualised counter context), counter i counting ovf[i]'s
 * kind. Arming programs the counter's threshold (hpm_upc_program_threshold:
 * the 4096*n + m preload, the compare value, pre-arming); the state machine
 * arms on the high-order bits and the interrupt is raised at the low-order
 * carry-out. The per-superblock compare is only a filter: once it sees a
 * threshold passed, the thread's new events are fed to its unit, one per
 * cycle, and the cycle of the unit's interrupt says which event passed it.
 *
 * Fast overflow (seed 002). From the delivery of a signal the tool sent to
 * that handler's sigreturn the thread's counting is frozen (the UPC's run
 * bit is off while it runs): the handler's instructions are counted
 * nowhere, so they cannot re-trigger the overflow and any threshold >= 1
 * works. A handler that leaves by longjmp never returns through sigreturn:
 * the check sees the stack pointer back above the interrupted one and
 * thaws the thread.
 * ---------------------------------------------------------------------- */

#define OVF_MODEL_STRIDE 16

Bool vpmu_ovf_instrumented;

/* the thread whose superblock just left with an overflow signal queued */
static ThreadId ovf_deliver_tid = VG_INVALID_THREADID;

/* libcoregrind, not in pub_tool: the scheduler's own signal poll */
extern void VG_(poll_signals)(ThreadId tid);

/* The exact core event the check reads for kind, -1 for a kind a model
 * makes (L1I_ACCESSES, though one per instruction, is the fetch model's),
 * fixed per kind: found once, at arming. */
static Int ovf_event(UInt kind)
{
    return kind == HPM_K_L1I_ACCESSES ? -1 : vpmu_node_kind_event(kind);
}

static ULong ovf_count(struct vpmu_thread *t, UInt kind, Int e)
{
    ULong lane_t, lane_c;
    if (e < 0) {
        /* as a program's read: the UPCs' batch gathered, not fed, where
         * the units cannot tell it from its parts (vpmu_node_flush_read) */
        vpmu_account_read();
        return t->u[kind];
    }
    if (e == VPMU_EV_BR_COND_NOT_TAKEN) {
        lane_c = (vpmu_state.live[VPMU_LIVE_WORD(VPMU_EV_BR_COND)] >>
                  VPMU_LIVE_SHIFT(VPMU_EV_BR_COND)) & 0xffffffffULL;
        lane_t = (vpmu_state.live[VPMU_LIVE_WORD(VPMU_EV_BR_COND_TAKEN)] >>
                  VPMU_LIVE_SHIFT(VPMU_EV_BR_COND_TAKEN)) & 0xffffffffULL;
        return t->c[e] + lane_c - lane_t;
    }
    return t->c[e] + ((vpmu_state.live[VPMU_LIVE_WORD(e)] >> VPMU_LIVE_SHIFT(e)) & 0xffffffffULL);
}



/* Queue signo to the running thread t, carrying addr (si_value). False when
 * the kernel refused (the user's queue of pending real-time signals is
 * full: RLIMIT_SIGPENDING): the check tries again at the next superblock,
 * and the library's stop makes the calls still owed. */
static Bool ovf_send(struct vpmu_thread *t, Int signo, Addr addr)
{
    vki_siginfo_t si;
    if (!vpmu_state.pid) {
        vpmu_state.pid = VG_(getpid)();
        vpmu_state.euid = (Int)VG_(geteuid)();
    }
    if (!t->lwpid)
        t->lwpid = VG_(gettid)();
    VG_(memset)(&si, 0, sizeof si);
    si.si_signo = signo;
    si.si_code = -1; /* SI_QUEUE, which vki does not name */
    si._sifields._rt._pid = vpmu_state.pid;
    si._sifields._rt._uid = (vki_uid_t)vpmu_state.euid;
    si._sifields._rt._sigval.sival_ptr = (void *)addr;
    return !sr_isError(VG_(do_syscall)(__NR_rt_tgsigqueueinfo, (RegWord)vpmu_state.pid,
                                       (RegWord)t->lwpid, (RegWord)signo, (RegWord)&si, 0, 0,
                                       0, 0));
}


/* The guest registers an upcall moves (amd64's; elsewhere the request is
 * refused, so no thread has an entry). */
#if defined(VGA_amd64)
#define UPCALL_RED_ZONE 128 /* the ABI's: the interrupted code may use it */
#define UPCALL_OFF_SP OFFSET_amd64_RSP
#define UPCALL_OFF_IP OFFSET_amd64_RIP
#endif

Addr vpmu_upcall_entry;

/* Enter the upcall on the running thread t, from the check at the start of
 * the superblock at pc (not one of its instructions ran): push its two
 * words under the red zone and move the stack pointer; the superblock then
 * jumps to the entry. False where the stack cannot take them. */
static Bool upcall_enter(ThreadId tid, struct vpmu_thread *t, Addr pc, Addr where)
{
#if defined(UPCALL_OFF_SP)
    Addr sp = VG_(get_SP)(tid);
    Addr frame[2];
    Addr nsp = sp - UPCALL_RED_ZONE - sizeof frame;
    frame[0] = where;
    frame[1] = pc;
    /* where the stack is not mapped yet: the signal, whose frame the core
     * knows how to grow the stack for */
    if (client_put(nsp, frame, sizeof frame) != HPM_VPMU_OK)
        return False;
    VG_(set_shadow_regs_area)(tid, 0, UPCALL_OFF_SP, sizeof nsp, (const UChar *)&nsp);
    t->upcall_sp = sp;
    t->upcall_frozen = True;
    vpmu_run_state_apply();
    return True;
#else
    (void)tid;
    (void)t;
    (void)pc;
    (void)where;
    return False;
#endif
}

/* Raise the interrupt on the running thread t: as an upcall where it asked
 * for them, else as signal signo. VPMU_OVF_NONE when it must wait: the
 * thread's mask is set, or the kernel refused the signal (the user's queue
 * of pending real-time signals is full: RLIMIT_SIGPENDING). The check
 * tries again at the next superblock, and the library's stop makes the
 * calls still owed. */
static UWord ovf_raise(struct vpmu_thread *t, ThreadId tid, Int signo,
                       const struct vpmu_sb_desc *sb, Addr where)
{
    Addr pc = sb->start;
    /* only a translation that jumps to the thread's entry can take it */
    if (t->upcall_entry && t->upcall_entry == sb->upcall) {
        Int masked = 0;
        if (t->upcall_mask && client_get(&masked, t->upcall_mask, sizeof masked) != HPM_VPMU_OK)
            masked = 0; /* the thread's mask word is gone: not masked */
        if (masked)
            return VPMU_OVF_NONE;
        if (upcall_enter(tid, t, pc, where))
            return VPMU_OVF_UPCALL;
    }
    if (!ovf_send(t, signo, where))
        return VPMU_OVF_NONE;
    t->ovf_sent++;
    ovf_deliver_tid = tid;
    return VPMU_OVF_SIGNAL;
}

/* ---- the thread's overflow unit ---- */

static void ovf_upc_notify(void *ctx, const struct hpm_upc_notify *n)
{
    struct vpmu_thread *t = ctx;
    if (n->kind == HPM_UPC_NOTIFY_IRQ && t->ovf_irq_at < 0)
        t->ovf_irq_at = (Long)(n->cycle - t->ovf_batch_cycle);
}

static struct hpm_upc *ovf_upc_get(struct vpmu_thread *t)
{
    if (!t->ovf_upc) {
        struct hpm_upc_params p;
        SizeT sz;
        hpm_upc_params_default(&p);
        p.n_counters = HPM_VPMU_OVERFLOW_MAX;
        p.n_inputs = HPM_VPMU_OVERFLOW_MAX * HPM_UPC_INPUTS_PER_COUNTER;
        p.group_size = HPM_VPMU_OVERFLOW_MAX;
        sz = hpm_upc_storage_size(&p);
        t->ovf_upc_mem = VG_(malloc)("hpm.ovf.upc", sz);
        tl_assert(hpm_upc_init(&t->ovf_upc, &p, t->ovf_upc_mem, sz) == HPM_UPC_OK);
        hpm_upc_set_threshold_mode(t->ovf_upc, 1);
        hpm_upc_set_notify(t->ovf_upc, ovf_upc_notify, t);
        hpm_upc_start(t->ovf_upc);
    }
    return t->ovf_upc;
}

/* Counter i counts ovf[i]'s kind, with its interrupt after the events
 * that remain to its next threshold (at least 1). */
static void ovf_upc_program(struct vpmu_thread *t, UInt i)
{
    struct hpm_upc *u = ovf_upc_get(t);
    struct vpmu_ovf *o = &t->ovf[i];
    uint32_t ev;
    uint64_t preload;
    tl_assert(hpm_upc_input_event(u, i, 0, &ev) == HPM_UPC_OK);
    o->input = ev;
    tl_assert(hpm_upc_select_event(u, i, ev, HPM_UPC_LEVEL_HIGH, 1) == HPM_UPC_OK);
    tl_assert(hpm_upc_program_threshold(u, i, o->next > o->fed ? o->next - o->fed : 1,
                                        &preload) == HPM_UPC_OK);
}

/* Feed counter i the events up to count v, one per cycle; returns the count
 * at which its interrupt came, 0 if none. */
static ULong ovf_upc_feed(struct vpmu_thread *t, UInt i, ULong v)
{
    struct hpm_upc *u = ovf_upc_get(t);
    struct vpmu_ovf *o = &t->ovf[i];
    uint32_t counts[HPM_VPMU_OVERFLOW_MAX * HPM_UPC_INPUTS_PER_COUNTER];
    ULong at = 0;
    VG_(memset)(counts, 0, sizeof counts);
    while (o->fed < v) {
        ULong d = v - o->fed;
        uint32_t n = d > 0x40000000ULL ? 0x40000000u : (uint32_t)d;
        counts[o->input] = n;
        t->ovf_irq_at = -1;
        t->ovf_batch_cycle = hpm_upc_cycle(u);
        tl_assert(hpm_upc_advance(u, n, counts) == HPM_UPC_OK);
        if (t->ovf_irq_at >= 0 && !at)
            at = o->fed + (ULong)t->ovf_irq_at + 1;
        o->fed += n;
    }
    return at;
}

static void thaw_all(struct vpmu_thread *t)
{
    t->frozen = 0;
    t->sigdepth = 0;
    t->frame_froze = 0;
    vpmu_run_state_apply();
}

/* Where the count of a kind reached `at`. INSTRUCTIONS pass one per
 * instruction, so the superblock that ran since the last check says which
 * of its instructions it was; the other exact kinds give that superblock's
 * start; a model's kinds the superblock about to run (the interrupted
 * instruction). */
static Addr ovf_where(const struct vpmu_thread *t, const struct vpmu_ovf *o, ULong at,
                      Addr fallback)
{
    const struct vpmu_sb_desc *sb = t->last_sb;
    if (!sb || at <= o->seen || o->ev < 0)
        return fallback; /* a model's kind, checked every few superblocks */
    if (o->kind == HPM_K_INSTRUCTIONS)
        return at - o->seen <= sb->n ? sb->insn[at - o->seen - 1] : fallback;
    return sb->start;
}

/* Called at every superblock entry once overflow is in use, with the
 * superblock and the guest's stack pointer; returns VPMU_OVF_SIGNAL when it
 * queued a signal (the superblock then exits to the scheduler, and
 * stop_client_code delivers it), VPMU_OVF_UPCALL when it entered an upcall
 * (the superblock jumps to the entry). */
UWord vpmu_ovf_check(const struct vpmu_sb_desc *sb, Addr sp)
{
    ThreadId tid = VG_(get_running_tid)();
    struct vpmu_thread *t;
    Bool model_turn;
    UWord fired = 0;
    UInt i;
    if (tid == VG_INVALID_THREADID || tid >= VG_N_THREADS || tid != vpmu_state.live_owner)
        return 0;
    t = &vpmu_state.threads[tid];
    if (t->used && t->upcall_frozen && sp >= t->upcall_sp) {
        /* the entry returned (its ret leaves the stack pointer where it
         * was interrupted; inside, it is below the red zone), or the
         * handler left by longjmp: this superblock counts */
        t->upcall_frozen = False;
        vpmu_run_state_apply();
    }
    if (t->used && t->frozen && !t->frozen_alt && sp >= t->frozen_sp) {
        /* back above the interrupted code's stack without a sigreturn:
         * the handler left by longjmp */
        thaw_all(t);
    }
    if (!vpmu_state.running || !t->used || t->n_ovf == 0) {
        if (t->used)
            t->last_sb = NULL; /* what runs now is not counted */
        return 0;
    }
    model_turn = ++t->ovf_skip >= OVF_MODEL_STRIDE;
    if (model_turn)
        t->ovf_skip = 0;
    for (i = 0; i < t->n_ovf; i++) {
        struct vpmu_ovf *o = &t->ovf[i];
        ULong v;
        if (o->ev < 0 && !model_turn)
            continue;
        v = ovf_count(t, o->kind, o->ev);
        if (v < o->next) {
            o->seen = v;
            continue;
        }
        if (o->next <= o->fed) {
            /* passed before arming (a base read a while before): at once */
            (void)ovf_upc_feed(t, i, v);
        } else {
            /* the unit decides: its interrupt must come at the threshold */
            ULong at = ovf_upc_feed(t, i, v);
            if (at != o->next) {
                /* a fault of the unit's model: said on stderr (even with
                 * -q), once; the arithmetic's threshold is kept */
                static Bool told;
                if (!told)
                    VG_(printf)("hpm: the overflow unit interrupted at %llu, the threshold is "
                                "%llu\n",
                                at, o->next);
                told = True;
            }
        }
        if (!fired) {
            fired = ovf_raise(t, tid, o->signo, sb, ovf_where(t, o, o->next, sb->start));
            if (!fired) {
                o->seen = v;
                continue; /* not raised: this threshold is still to come */
            }
            t->n_where = 0;
        }
        {
            /* where each threshold passed, for the handler's calls */
            ULong at;
            for (at = o->next; at <= v && t->n_where < HPM_VPMU_WHERE_MAX; at += o->threshold)
                t->where[t->n_where++] = ovf_where(t, o, at, sb->start);
        }
        /* thresholds passed within one check give one signal (the
         * library's handler is owed one call per threshold, found from the
         * counts), as a hardware counter that wrapped twice between
         * interrupts would */
        o->next += o->threshold * ((v - o->next) / o->threshold + 1);
        o->seen = v;
        ovf_upc_program(t, i); /* the next threshold, from v */
    }
    t->last_sb = fired ? NULL : sb;
    return fired;
}

/* Right after the superblock left with the signal queued: deliver it now,
 * before the scheduler runs any more of the thread. */
void vpmu_ovf_stop_client_code(ThreadId tid, ULong blocks_done)
{
    (void)blocks_done;
    if (tid != ovf_deliver_tid)
        return;
    ovf_deliver_tid = VG_INVALID_THREADID;
    VG_(poll_signals)(tid);
}

static Bool ovf_signo(const struct vpmu_thread *t, Int signo)
{
    UInt i;
    for (i = 0; i < t->n_ovf; i++)
        if (t->ovf[i].signo == signo)
            return True;
    return False;
}

/* A signal goes to a handler of the program (after its I/O and kernel
 * counts, vpmu_main.c): one the tool sent freezes the thread's counting. */
void vpmu_ovf_pre_deliver_signal(ThreadId tid, Int signo, Bool alt_stack)
{
    struct vpmu_thread *t;
    Bool ours = False;
    UInt d;
    if (tid == 0 || tid >= VG_N_THREADS || !vpmu_state.threads[tid].used)
        return;
    t = &vpmu_state.threads[tid];
    if (t->ovf_sent > 0 && ovf_signo(t, signo)) {
        t->ovf_sent--;
        ours = True;
    }
    d = t->sigdepth++;
    if (d < 64) {
        if (ours)
            t->frame_froze |= 1ULL << d;
        else
            t->frame_froze &= ~(1ULL << d);
    }
    if (ours && t->frozen++ == 0) {
        t->frozen_sp = VG_(get_SP)(tid);
        t->frozen_alt = alt_stack;
        if (tid == vpmu_state.live_owner)
            vpmu_run_state_apply();
    }
}

void vpmu_ovf_post_deliver_signal(ThreadId tid, Int signo)
{
    struct vpmu_thread *t;
    UInt d;
    (void)signo;
    if (tid == 0 || tid >= VG_N_THREADS || !vpmu_state.threads[tid].used)
        return;
    t = &vpmu_state.threads[tid];
    if (t->sigdepth == 0)
        return;
    d = --t->sigdepth;
    if (d < 64 && (t->frame_froze & (1ULL << d)) && t->frozen > 0 && --t->frozen == 0 &&
        tid == vpmu_state.live_owner)
        vpmu_run_state_apply();
}

/* first: 0, the first threshold is `threshold` from now; else the count of
 * kind (as READ_KINDS reads it) at which it passes, so that a library's
 * thresholds, counted from a base it read a little before arming, are the
 * tool's exactly. */
Long vpmu_req_overflow(ThreadId tid, UWord kind, ULong threshold, UWord signo, ULong first)
{
    struct vpmu_thread *t = thread_get(tid);
    UInt i;
    if (kind >= HPM_K_CORE_COUNT || signo < 1 || signo > VKI_SIGRTMAX ||
        signo == VKI_SIGKILL || signo == VKI_SIGSTOP)
        return HPM_VPMU_EINVAL;
    if (threshold > 0 && !vpmu_node_programmed((UInt)hpm_catalog_code((UInt)kind, (Int)t->core)))
        return HPM_VPMU_EINVAL; /* not counted: it would never fire */
    vpmu_account();
    for (i = 0; i < t->n_ovf; i++)
        if (t->ovf[i].kind == kind)
            break;
    if (threshold == 0) {
        if (i < t->n_ovf) {
            t->ovf[i] = t->ovf[--t->n_ovf];
            if (i < t->n_ovf)
                ovf_upc_program(t, i); /* it moved to counter i */
        }
        return HPM_VPMU_OK;
    }
    if (i == t->n_ovf) {
        if (t->n_ovf >= HPM_VPMU_OVERFLOW_MAX)
            return HPM_VPMU_ENOMEM;
        t->n_ovf++;
    }
    t->ovf[i].kind = (UInt)kind;
    t->ovf[i].signo = (Int)signo;
    t->ovf[i].threshold = threshold;
    t->ovf[i].ev = ovf_event((UInt)kind);
    t->ovf[i].seen = ovf_count(t, (UInt)kind, t->ovf[i].ev);
    t->ovf[i].next = t->ovf[i].seen + threshold;
    if (first) {
        ULong now = t->u[kind]; /* exact: accounted above */
        t->ovf[i].next = t->ovf[i].seen + (first > now ? first - now : 0);
    }
    t->ovf[i].fed = t->ovf[i].seen;
    ovf_upc_program(t, i);
    t->last_sb = NULL;
    if (!vpmu_ovf_instrumented) {
        /* from now on every superblock checks: retranslate what exists */
        vpmu_ovf_instrumented = True;
        VG_(discard_translations_safely)((Addr)0x1000, ~(SizeT)0xfff, "hpm overflow");
    }
    return HPM_VPMU_OK;
}

Long vpmu_req_overflow_upcall(ThreadId tid, Addr entry, Addr mask)
{
    struct vpmu_thread *t = thread_get(tid);
#if defined(UPCALL_OFF_SP)
    if (entry && !VG_(am_is_valid_for_client)(entry, 1, VKI_PROT_EXEC))
        return HPM_VPMU_EFAULT;
    if (entry && mask) {
        /* read once: mapped is not readable (a shared file's pages past
         * its end) */
        Int word;
        if (client_get(&word, mask, sizeof word) != HPM_VPMU_OK)
            return HPM_VPMU_EFAULT;
    }
    t->upcall_entry = entry;
    t->upcall_mask = entry ? mask : 0;
    if (entry && entry != vpmu_upcall_entry) {
        /* the translations jump to the process's entry: made again with
         * the new one (a library registers one, once) */
        vpmu_upcall_entry = entry;
        if (vpmu_ovf_instrumented)
            vpmu_retranslate_all("hpm overflow upcall");
    }
    return HPM_VPMU_OK;
#else
    (void)t;
    (void)entry;
    (void)mask;
    return HPM_VPMU_EINVAL;
#endif
}
