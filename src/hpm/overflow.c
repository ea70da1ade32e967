/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * overflow.c - the overflow signal (hpm_overflow_signal()) and the software
 * overflow timer.
 *
 * One handler serves three senders, all aimed at the thread that counts:
 *   - perf: the kernel, for an event opened with sample_period and O_ASYNC
 *     (si_code POLL_IN/POLL_HUP, si_fd names the event); the component
 *     says which position it is (overflow_dispatch);
 *   - sim: the virtual PMU (HPM_VPMU_OVERFLOW), which does not say which
 *     kind passed its threshold: the positions are found from the counts;
 *   - the software timer: a POSIX timer per thread on its CPU-time clock
 *     (SIGEV_THREAD_ID), for HPM_OVERFLOW_FORCE_SOFTWARE, for components
 *     without an interrupt of their own and when the counter source refused
 *     to arm; each tick reads the counts and fires the positions that passed
 *     their next deadline.
 * Each check calls the handler once for every threshold passed since the
 * last one (up to HPM_OVERFLOW_BURST calls, with the PC of the interrupted
 * code): the kernel checks CPU-time timers at its tick, and a busy machine
 * stretches the time between ticks a thread sees, but the number of calls
 * stays count/threshold. A component that knows where each threshold
 * passed (overflow_where: sim) gives the handler that address instead of
 * the interrupted PC; one whose counts are frozen while the handler runs
 * (HPM_CI_OVF_FROZEN) gets every threshold passed its call.
 *
 * The virtual PMU's interrupts need no signal: a thread that arms one
 * registers hpm__ovf_upcall_entry (below) and the tool sends the thread
 * there itself, as an interrupt vector would, at the superblock boundary
 * where it would have delivered the signal. A signal costs eight system
 * calls under Valgrind (queue, poll, sigreturn); the upcall none. The entry
 * keeps every register, the flags and the x87/SSE/AVX state, and hands the
 * same dispatch a siginfo (si_code HPM_SI_UPCALL, si_ptr the first
 * threshold's address) and a ucontext made from what it saved, so handlers
 * see what a signal would have given them. hpm__ovf_block's mask is a
 * thread-local word the tool reads before it enters (the interrupt waits
 * while it is set, as a blocked signal would). HPM_OVERFLOW_UPCALL=0 keeps
 * the signals.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

#include "hpm_client.h"
#include "hpm_internal.h"

/* not 0: the virtual PMU's upcalls wait (hpm__ovf_block), read by the tool */
__thread int hpm__ovf_masked __attribute__((tls_model("initial-exec")));

/* The most handler calls one check makes (a tiny threshold must not turn
 * one tick into millions of calls). */
#define HPM_OVERFLOW_BURST 1024

/* The most addresses one signal brings (the later calls of a longer burst
 * get the interrupted PC). */
#define HPM_OVERFLOW_WHERE_MAX 64

static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;
static int installed;

/* PAPI's perf_event component uses SIGRTMIN+2 too: a program written for
 * PAPI already leaves it alone. */
HPM_EXPORT int hpm_overflow_signal(void)
{
    return SIGRTMIN + 2;
}

static void *context_pc(void *uc)
{
    ucontext_t *u = uc;
    if (!u)
        return NULL;
#if defined(__x86_64__)
    return (void *)u->uc_mcontext.gregs[REG_RIP];
#elif defined(__i386__)
    return (void *)u->uc_mcontext.gregs[REG_EIP];
#elif defined(__aarch64__)
    return (void *)u->uc_mcontext.pc;
#else
    return NULL;
#endif
}

/* How many thresholds each software or count-checked position of s has
 * passed since the last check, by its mask bit (k[HPM_OVF_BIT(i)]: one
 * position with a threshold per bit); whether any did. */
static int by_count(struct hpm_set *s, int64_t *k)
{
    int64_t v[HPM_SET_MAX_EVENTS];
    int i, any = 0;
    int by_native = (s->c->ci_flags & HPM_CI_OVF_BY_COUNT) != 0;
    if (s->c->read(s->cst, v) != HPM_OK)
        return 0;
    for (i = 0; i < HPM_OVF_BITS; i++)
        k[i] = 0;
    for (i = 0; i < s->n; i++) {
        struct hpm_ovf *o = &s->ovf[i];
        if (!o->threshold || (o->native && !by_native) || v[i] < o->deadline)
            continue;
        k[HPM_OVF_BIT(i)] = (v[i] - o->deadline) / o->threshold + 1;
        o->deadline += o->threshold * k[HPM_OVF_BIT(i)];
        any = 1;
    }
    return any;
}

/* Deliver what one running set of the interrupted thread is owed. */
static void dispatch(struct hpm_set *s, siginfo_t *si, void *pc, void *uc)
{
    int64_t k[HPM_OVF_BITS];
    uint64_t mask = 0, where[HPM_OVERFLOW_WHERE_MAX];
    int i, n = HPM_OVF_BITS, n_where;
    int64_t calls, want, burst = HPM_OVERFLOW_BURST;
    if (s->state != HPM_SET_RUNNING || !s->n_ovf || !s->handler)
        return;
    if (!(s->c->ci_flags & HPM_CI_OVF_BY_COUNT))
        mask = s->c->overflow_dispatch(s->cst, si);
    if (mask)
        s->handler(s->handle, pc, mask, uc);
    if ((!s->n_sw && !s->n_by_count) || !by_count(s, k))
        return;
    for (i = 0, want = 0; i < n; i++)
        want = k[i] > want ? k[i] : want;
    /* the component's own signal says where each threshold passed; one of
     * a component whose counts are frozen while the handler runs cannot
     * run away, and every threshold passed gets its call */
    n_where = s->c->overflow_where(
        s->cst, si, where, want < HPM_OVERFLOW_WHERE_MAX ? (int)want : HPM_OVERFLOW_WHERE_MAX);
    if (n_where > 0 && (s->c->ci_flags & HPM_CI_OVF_FROZEN))
        burst = INT64_MAX;
    /* one call per threshold passed: a timer tick (or a late signal)
     * may cover several, and the handler is owed each of them */
    for (calls = 0; calls < burst; calls++) {
        mask = 0;
        for (i = 0; i < n; i++)
            if (k[i] > 0) {
                mask |= 1ull << i;
                k[i]--;
            }
        if (!mask)
            break;
        s->handler(s->handle, calls < n_where ? (void *)(uintptr_t)where[calls] : pc, mask, uc);
    }
}

void hpm__ovf_owed_collect(struct hpm_set *s, const int64_t *final, struct hpm_ovf_owed *owed)
{
    int i;
    /* the component's frozen signal comes after the stop's read; a
     * software position's timer tick may not have come since its last
     * threshold: both are owed what the final counts passed. Not a native
     * position that a signal of its own reports (perf): a late signal
     * would count it twice. */
    int frozen = (s->c->ci_flags & HPM_CI_OVF_FROZEN) && s->n_by_count;
    owed->n = 0;
    if ((!frozen && !s->n_sw) || !s->handler)
        return;
    for (i = 0; i < HPM_OVF_BITS; i++)
        owed->calls[i] = 0;
    for (i = 0; i < s->n; i++) {
        struct hpm_ovf *o = &s->ovf[i];
        int64_t c;
        if (!o->threshold || (o->native && !frozen) || final[i] < o->deadline)
            continue;
        c = (final[i] - o->deadline) / o->threshold + 1;
        owed->calls[HPM_OVF_BIT(i)] = c;
        o->deadline += o->threshold * c;
    }
    owed->n = HPM_OVF_BITS;
    owed->handler = s->handler;
    owed->handle = s->handle;
}

/* The calls a stop was owed, made by the stopping thread outside any lock;
 * no instruction address is known for them (pc NULL). */
void hpm__ovf_owed_deliver(struct hpm_ovf_owed *owed)
{
    int i;
    for (;;) {
        uint64_t mask = 0;
        for (i = 0; i < owed->n; i++)
            if (owed->calls[i] > 0) {
                mask |= 1ull << i;
                owed->calls[i]--;
            }
        if (!mask)
            return;
        owed->handler(owed->handle, NULL, mask, NULL);
    }
}

void hpm__ovf_changed(const struct hpm_component *comp, uint32_t index, long long value)
{
    int saved = errno, c;
    struct hpm_thread *t = hpm__self_if_any();
    if (!t || !comp->overflow_changed)
        return;
    for (c = 0; c < HPM_NCOMP; c++) {
        struct hpm_set *s = atomic_load(&t->per[c].running);
        uint64_t mask;
        if (!s || s->c->overflow_changed != comp->overflow_changed || s->state != HPM_SET_RUNNING ||
            !s->n_ovf || !s->handler)
            continue;
        mask = s->c->overflow_changed(s->cst, index, value);
        if (!mask)
            continue;
        /* as from a signal: the handler may call the library on its set
         * (no locks); no instruction address is known (pc NULL) */
        hpm__tls.in_handler++;
        s->handler(s->handle, NULL, mask, NULL);
        hpm__tls.in_handler--;
    }
    errno = saved;
}

/* Every running set of the calling thread gets what it is owed. */
static void deliver(siginfo_t *si, void *pc, void *uc)
{
    int saved = errno, c;
    struct hpm_thread *t = hpm__self_if_any();
    if (!t) {
        errno = saved;
        return;
    }
    hpm__tls.in_handler++;
    for (c = 0; c < HPM_NCOMP; c++) {
        struct hpm_set *s = atomic_load(&t->per[c].running);
        if (s)
            dispatch(s, si, pc, uc);
        /* the sets that share the thread's counters (sim): every one */
        for (s = atomic_load(&t->per[c].shared); s;
             s = __atomic_load_n(&s->next_shared, __ATOMIC_ACQUIRE))
            dispatch(s, si, pc, uc);
    }
    hpm__tls.in_handler--;
    errno = saved;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
#if defined(__x86_64__) || defined(__i386__)
    /* the ABI wants the direction flag clear at every call, and the kernel
     * clears it for a handler; Valgrind's signal frames keep the
     * interrupted code's (tests/papi_api/papi_overflow_regs.c), and
     * glibc's string functions would run backwards. The sigreturn restores
     * it from the frame. */
    __asm__ volatile("cld" ::: "memory");
#endif
    deliver(si, context_pc(uc), uc);
}

#if defined(__x86_64__)
/* ---- the virtual PMU's upcall (HPM_VPMU_OVERFLOW_UPCALL) ----
 *
 * The tool enters hpm__ovf_upcall_entry with the interrupted PC and, below
 * it, the first threshold's address pushed under the interrupted code's
 * 128-byte red zone. The entry pushes the flags and every general register
 * (struct upcall_frame, lowest address first), saves the x87/SSE state
 * (fxsave64) and, where the CPU has AVX, the whole YMM registers (glibc's
 * string functions end in vzeroupper, which would clear the interrupted
 * code's upper halves), calls hpm__ovf_upcall with the direction flag
 * clear, restores it all and returns past the two words and the red zone:
 * `ret $128` leaves the stack pointer where it was interrupted, which is
 * where the tool thaws the counts. */
struct upcall_frame {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8, rdi, rsi, rbp, rbx, rdx, rcx, rax;
    uint64_t rflags, where, pc;
};

int hpm__ovf_upcall_avx __attribute__((visibility("hidden")));
void hpm__ovf_upcall_entry(void) __attribute__((visibility("hidden")));
void hpm__ovf_upcall(struct upcall_frame *f, void *fx) __attribute__((visibility("hidden")));

#define HPM_YMM_SAVE(n) "vmovdqu %ymm" #n ", 512+32*" #n "(%rsp)\n"
#define HPM_YMM_LOAD(n) "vmovdqu 512+32*" #n "(%rsp), %ymm" #n "\n"
#define HPM_YMM_ALL(m) m(0) m(1) m(2) m(3) m(4) m(5) m(6) m(7) \
    m(8) m(9) m(10) m(11) m(12) m(13) m(14) m(15)
__asm__(".text\n"
        ".globl hpm__ovf_upcall_entry\n"
        ".hidden hpm__ovf_upcall_entry\n"
        ".type hpm__ovf_upcall_entry, @function\n"
        "hpm__ovf_upcall_entry:\n"
        "pushfq\n"
        "pushq %rax\n pushq %rcx\n pushq %rdx\n pushq %rbx\n"
        "pushq %rbp\n pushq %rsi\n pushq %rdi\n pushq %r8\n"
        "pushq %r9\n pushq %r10\n pushq %r11\n pushq %r12\n"
        "pushq %r13\n pushq %r14\n pushq %r15\n"
        "movq %rsp, %rbx\n"
        "subq $1024, %rsp\n"
        "andq $-64, %rsp\n"
        "fxsave64 (%rsp)\n"
        "cmpl $0, hpm__ovf_upcall_avx(%rip)\n"
        "je 1f\n"
        HPM_YMM_ALL(HPM_YMM_SAVE)
        "1:\n"
        "cld\n"
        "movq %rbx, %rdi\n"
        "movq %rsp, %rsi\n"
        "call hpm__ovf_upcall\n"
        "fxrstor64 (%rsp)\n"
        "cmpl $0, hpm__ovf_upcall_avx(%rip)\n"
        "je 2f\n"
        HPM_YMM_ALL(HPM_YMM_LOAD)
        "2:\n"
        "movq %rbx, %rsp\n"
        "popq %r15\n popq %r14\n popq %r13\n popq %r12\n"
        "popq %r11\n popq %r10\n popq %r9\n popq %r8\n"
        "popq %rdi\n popq %rsi\n popq %rbp\n popq %rbx\n"
        "popq %rdx\n popq %rcx\n popq %rax\n"
        "popfq\n"
        "leaq 8(%rsp), %rsp\n"
        "ret $128\n"
        ".size hpm__ovf_upcall_entry, .-hpm__ovf_upcall_entry\n");

void hpm__ovf_upcall(struct upcall_frame *f, void *fx)
{
    ucontext_t uc;
    siginfo_t si;
    greg_t *g = uc.uc_mcontext.gregs;
    memset(&uc, 0, sizeof uc);
    g[REG_R8] = (greg_t)f->r8;
    g[REG_R9] = (greg_t)f->r9;
    g[REG_R10] = (greg_t)f->r10;
    g[REG_R11] = (greg_t)f->r11;
    g[REG_R12] = (greg_t)f->r12;
    g[REG_R13] = (greg_t)f->r13;
    g[REG_R14] = (greg_t)f->r14;
    g[REG_R15] = (greg_t)f->r15;
    g[REG_RDI] = (greg_t)f->rdi;
    g[REG_RSI] = (greg_t)f->rsi;
    g[REG_RBP] = (greg_t)f->rbp;
    g[REG_RBX] = (greg_t)f->rbx;
    g[REG_RDX] = (greg_t)f->rdx;
    g[REG_RAX] = (greg_t)f->rax;
    g[REG_RCX] = (greg_t)f->rcx;
    g[REG_RSP] = (greg_t)((uintptr_t)(f + 1) + 128); /* above the red zone */
    g[REG_RIP] = (greg_t)f->pc;
    g[REG_EFL] = (greg_t)f->rflags;
    uc.uc_mcontext.fpregs = fx; /* fxsave's layout is struct _libc_fpstate */
    memset(&si, 0, sizeof si);
    si.si_signo = hpm_overflow_signal();
    si.si_code = HPM_SI_UPCALL;
    si.si_ptr = (void *)(uintptr_t)f->where;
    deliver(&si, (void *)(uintptr_t)f->pc, &uc);
}

static pthread_once_t upcall_once = PTHREAD_ONCE_INIT;
static int upcall_wanted;

static void upcall_init(void)
{
    const char *e = getenv("HPM_OVERFLOW_UPCALL");
    hpm__ovf_upcall_avx = __builtin_cpu_supports("avx");
    upcall_wanted = !(e && strcmp(e, "0") == 0);
}

int hpm__ovf_upcall_register(void)
{
    /* threads arm at once: the environment and the CPU asked once */
    pthread_once(&upcall_once, upcall_init);
    if (!upcall_wanted)
        return 0;
    return HPM_VPMU_OVERFLOW_UPCALL(hpm__ovf_upcall_entry, &hpm__ovf_masked) == HPM_VPMU_OK;
}
#else
int hpm__ovf_upcall_register(void)
{
    return 0;
}
#endif

int hpm__overflow_install(void)
{
    struct sigaction sa;
    int rc = HPM_OK;
    pthread_mutex_lock(&install_lock);
    if (!installed) {
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_signal;
        /* SA_RESTART: the program's blocking calls must not see EINTR */
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        if (sigaction(hpm_overflow_signal(), &sa, NULL) != 0)
            rc = HPM_ESYS;
        else
            installed = 1; /* for good: a late signal must not kill the program */
    }
    pthread_mutex_unlock(&install_lock);
    return rc;
}

void hpm__ovf_block(sigset_t *old)
{
    sigset_t s;
    hpm__ovf_masked++;
    sigemptyset(&s);
    sigaddset(&s, hpm_overflow_signal());
    pthread_sigmask(SIG_BLOCK, &s, old);
}

void hpm__ovf_unblock(const sigset_t *old)
{
    pthread_sigmask(SIG_SETMASK, old, NULL);
    hpm__ovf_masked--;
}

long hpm__sw_period_us(void)
{
    /* 1 ms of the thread's CPU time: the kernel checks CPU-time timers at
     * its tick, so shorter periods only add jitter. HPM_OVERFLOW_PERIOD_US
     * overrides (tests, very slow code under the virtual PMU). */
    const char *e = getenv("HPM_OVERFLOW_PERIOD_US");
    long v = e ? strtol(e, NULL, 10) : 0;
    return v >= 10 && v <= 10000000 ? v : 1000;
}

static int timer_arm(struct hpm_thread *t, long us)
{
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    its.it_value.tv_sec = us / 1000000;
    its.it_value.tv_nsec = (us % 1000000) * 1000;
    its.it_interval = its.it_value;
    return timer_settime(t->timer, 0, &its, NULL) == 0 ? HPM_OK : HPM_ESYS;
}

int hpm__sw_timer_get(struct hpm_thread *t)
{
    int rc;
    if (!t)
        return HPM_EINVAL;
    if (!t->timer_made) {
        struct sigevent sev;
        memset(&sev, 0, sizeof sev);
        sev.sigev_notify = SIGEV_THREAD_ID;
        sev.sigev_signo = hpm_overflow_signal();
#ifdef sigev_notify_thread_id
        sev.sigev_notify_thread_id = t->tid;
#else
        sev._sigev_un._tid = t->tid;
#endif
        /* the thread's own CPU time: a thread that sleeps does not tick */
        if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &t->timer) != 0)
            return HPM_ESYS;
        t->timer_made = 1;
    }
    if (t->n_sw_sets++ == 0) {
        rc = timer_arm(t, hpm__sw_period_us());
        if (rc != HPM_OK) {
            t->n_sw_sets--;
            return rc;
        }
    }
    return HPM_OK;
}

void hpm__sw_timer_put(struct hpm_thread *t)
{
    if (!t || t->n_sw_sets <= 0)
        return;
    if (--t->n_sw_sets == 0 && t->timer_made)
        (void)timer_arm(t, 0);
}

void hpm__timer_delete(struct hpm_thread *t)
{
    if (t && t->timer_made) {
        timer_delete(t->timer);
        t->timer_made = 0;
        t->n_sw_sets = 0;
    }
}
