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
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

#include "hpm_internal.h"

__thread int hpm__in_handler __attribute__((tls_model("initial-exec")));

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
 * passed since the last check (k[i]); whether any did. Only the first
 * HPM_OVF_MAX_POS positions can have a threshold. */
static int by_count(struct hpm_set *s, int64_t *k)
{
    int64_t v[HPM_SET_MAX_EVENTS];
    int i, any = 0, n = s->n < HPM_OVF_MAX_POS ? s->n : HPM_OVF_MAX_POS;
    int by_native = (s->c->ci_flags & HPM_CI_OVF_BY_COUNT) != 0;
    if (s->c->read(s->cst, v) != HPM_OK)
        return 0;
    for (i = 0; i < n; i++) {
        struct hpm_ovf *o = &s->ovf[i];
        k[i] = 0;
        if (!o->threshold || (o->native && !by_native) || v[i] < o->deadline)
            continue;
        k[i] = (v[i] - o->deadline) / o->threshold + 1;
        o->deadline += o->threshold * k[i];
        any = 1;
    }
    return any;
}

/* Deliver what one running set of the interrupted thread is owed. */
static void dispatch(struct hpm_set *s, siginfo_t *si, void *pc, void *uc)
{
    int64_t k[HPM_OVF_MAX_POS];
    uint64_t mask = 0, where[HPM_OVERFLOW_WHERE_MAX];
    int i, n, n_where;
    int64_t calls, want, burst = HPM_OVERFLOW_BURST;
    if (s->state != HPM_SET_RUNNING || !s->n_ovf || !s->handler)
        return;
    if (!(s->c->ci_flags & HPM_CI_OVF_BY_COUNT))
        mask = s->c->overflow_dispatch(s->cst, si);
    if (mask)
        s->handler(s->handle, pc, mask, uc);
    if ((!s->n_sw && !s->n_by_count) || !by_count(s, k))
        return;
    n = s->n < HPM_OVF_MAX_POS ? s->n : HPM_OVF_MAX_POS;
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
    int i, n = s->n < HPM_OVF_MAX_POS ? s->n : HPM_OVF_MAX_POS;
    owed->n = 0;
    if (!(s->c->ci_flags & HPM_CI_OVF_FROZEN) || !s->n_by_count || !s->handler)
        return;
    for (i = 0; i < n; i++) {
        struct hpm_ovf *o = &s->ovf[i];
        owed->calls[i] = 0;
        if (!o->threshold || !o->native || final[i] < o->deadline)
            continue;
        owed->calls[i] = (final[i] - o->deadline) / o->threshold + 1;
        o->deadline += o->threshold * owed->calls[i];
    }
    owed->n = n;
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

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    int saved = errno, c;
    struct hpm_thread *t = hpm__self_if_any();
    void *pc = context_pc(uc);
    (void)sig;
    if (!t) {
        errno = saved;
        return;
    }
    hpm__in_handler++;
    for (c = 0; c < HPM_NCOMP; c++) {
        struct hpm_set *s = atomic_load(&t->running[c]);
        if (s)
            dispatch(s, si, pc, uc);
        /* the sets that share the thread's counters (sim): every one */
        for (s = atomic_load(&t->shared[c]); s;
             s = __atomic_load_n(&s->next_shared, __ATOMIC_ACQUIRE))
            dispatch(s, si, pc, uc);
    }
    hpm__in_handler--;
    errno = saved;
}

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
    sigemptyset(&s);
    sigaddset(&s, hpm_overflow_signal());
    pthread_sigmask(SIG_BLOCK, &s, old);
}

void hpm__ovf_unblock(const sigset_t *old)
{
    pthread_sigmask(SIG_SETMASK, old, NULL);
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
