/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * core.c - libhpm's life cycle and threads: hpm_init (the component table,
 * its empty slots filled with defaults), hpm_shutdown, the thread calls and
 * the thread-exit destructor.
 *
 * The top of the library's call graph: it calls sets, overflow and regions
 * when a thread or the library goes away, and no file of libhpm calls it
 * (tests/common/no_cycles.sh). The state it shares with them is state.c's.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hpm_internal.h"

/* The table, from the one list in component.h: hpm_component_info order,
 * sim first, so that a bare name ("INSTRUCTIONS") means the virtual PMU's
 * event when the program runs under it. */
#define HPM_COMP_ADDR(c) &c,
static const struct hpm_component *const comps[] = {HPM_COMPONENTS(HPM_COMP_ADDR)};
_Static_assert(sizeof comps / sizeof comps[0] == HPM_NCOMP, "HPM_NCOMP counts the table");

static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* ------------------------------------------------------------ defaults */

/* What a component without an optional slot gets, as PAPI fills the empty
 * entries of a component vector at init: "not supported" or nothing. */
static void dflt_shutdown(void)
{
}

static int dflt_set_overflow(void *st, int pos, int64_t threshold)
{
    (void)st;
    (void)pos;
    (void)threshold;
    return HPM_ENOTSUP; /* the core checks the threshold in software */
}

static uint64_t dflt_overflow_dispatch(void *st, const siginfo_t *si)
{
    (void)st;
    (void)si;
    return 0;
}

static int dflt_overflow_where(void *st, const siginfo_t *si, uint64_t *addrs, int want)
{
    (void)st;
    (void)si;
    (void)addrs;
    (void)want;
    return 0; /* the handler gets the interrupted PC */
}

static int dflt_region(const char *name, int begin)
{
    (void)name;
    (void)begin;
    return HPM_ENOTSUP; /* the component keeps no regions of its own */
}

static int dflt_gate(int which, const void *code, uint32_t index, uint64_t n)
{
    (void)which;
    (void)code;
    (void)index;
    (void)n;
    return HPM_ENOTSUP; /* counting cannot be gated by the program's position */
}

static int dflt_machine_info(struct hpm_machine_info *info)
{
    (void)info;
    return HPM_ENOTSUP; /* it counts on this host */
}

static void fill_defaults(struct hpm_component *c)
{
    if (!c->shutdown)
        c->shutdown = dflt_shutdown;
    if (!c->set_overflow)
        c->set_overflow = dflt_set_overflow;
    if (!c->overflow_dispatch)
        c->overflow_dispatch = dflt_overflow_dispatch;
    if (!c->overflow_where)
        c->overflow_where = dflt_overflow_where;
    if (!c->region)
        c->region = dflt_region;
    if (!c->machine_info)
        c->machine_info = dflt_machine_info;
    if (!c->gate)
        c->gate = dflt_gate;
}

/* ------------------------------------------------------------ threads */

/* The thread leaves (hpm_thread_unregister, or its exit): freeze what it
 * counts, since its counts cannot be read once it is gone. */
static void thread_leave(struct hpm_thread *t)
{
    hpm__thread_stop_sets(t);
    hpm__regions_thread_exit(t);
    hpm__timer_delete(t);
    pthread_mutex_lock(&g_hpm.lock);
    t->alive = 0;
    pthread_mutex_unlock(&g_hpm.lock);
    hpm__self_forget();
}

static void thread_exit(void *unused)
{
    struct hpm_thread *t;
    (void)unused;
    pthread_mutex_lock(&g_hpm.lock);
    t = g_hpm.initialized ? hpm__self_if_any() : NULL;
    pthread_mutex_unlock(&g_hpm.lock);
    if (t)
        thread_leave(t);
}

/* In the child of fork(): the thread that forked is the child's only one,
 * and the sets it runs count the child from here (set.c). Its kernel
 * thread id is the child's. */
static void fork_child(void)
{
    struct hpm_thread *t;
    if (!__atomic_load_n(&g_hpm.initialized, __ATOMIC_ACQUIRE))
        return;
    /* a CPU's set counts the core, the child's own in the child */
    hpm__cpu_sets_fork_child();
    if (!(t = hpm__self_if_any()))
        return;
    t->tid = hpm__gettid();
    hpm__sets_fork_child(t);
}

static void make_key(void)
{
    if (pthread_key_create(&hpm__exit_key, thread_exit) != 0)
        hpm__exit_key = (pthread_key_t)-1;
    (void)pthread_atfork(NULL, NULL, fork_child);
}

HPM_EXPORT int hpm_thread_init(unsigned long (*id_fn)(void))
{
    struct hpm_thread *t;
    if (!id_fn)
        return HPM_EINVAL;
    pthread_mutex_lock(&g_hpm.lock);
    if (!g_hpm.initialized) {
        pthread_mutex_unlock(&g_hpm.lock);
        return HPM_ENOINIT;
    }
    g_hpm.id_fn = id_fn;
    /* threads registered before keep their gettid() id, except the caller */
    t = hpm__self_if_any();
    pthread_mutex_unlock(&g_hpm.lock);
    if (t)
        t->id = id_fn();
    return HPM_OK;
}

HPM_EXPORT unsigned long hpm_thread_id(void)
{
    unsigned long (*fn)(void);
    pthread_mutex_lock(&g_hpm.lock);
    fn = g_hpm.initialized ? g_hpm.id_fn : NULL;
    pthread_mutex_unlock(&g_hpm.lock);
    return fn ? fn() : (unsigned long)hpm__gettid();
}

HPM_EXPORT int hpm_thread_register(void)
{
    if (hpm__check_init() != HPM_OK)
        return HPM_ENOINIT;
    return hpm__self() ? HPM_OK : HPM_ENOMEM;
}

HPM_EXPORT int hpm_thread_unregister(void)
{
    struct hpm_thread *t;
    if (hpm__check_init() != HPM_OK)
        return HPM_ENOINIT;
    t = hpm__self_if_any();
    if (!t)
        return HPM_OK;
    /* the record stays (hpm_region_report); a later call makes a new one */
    thread_leave(t);
    return HPM_OK;
}

/* ------------------------------------------------------------ life cycle */

HPM_EXPORT int hpm_init(void)
{
    int i, n = 0;
    pthread_once(&key_once, make_key);
    pthread_mutex_lock(&g_hpm.lock);
    if (!g_hpm.initialized) {
        for (i = 0; i < HPM_NCOMP; i++) {
            struct hpm_comp_slot *cs = &g_hpm.comp[i];
            int rc;
            memset(cs, 0, sizeof *cs);
            cs->vec = *comps[i];
            fill_defaults(&cs->vec);
            cs->c = &cs->vec;
            cs->info.id = i;
            cs->info.name = comps[i]->name;
            rc = comps[i]->init(&cs->info, cs->reason, sizeof cs->reason);
            cs->info.id = i;
            cs->info.name = comps[i]->name;
            if (comps[i]->ci_flags & HPM_CI_THREAD_BOUND)
                cs->info.flags |= HPM_COMP_THREAD_BOUND;
            cs->info.enabled = rc == HPM_OK;
            if (rc != HPM_OK) {
                if (!cs->reason[0])
                    hpm__copy(cs->reason, sizeof cs->reason, hpm_strerror(rc));
                cs->info.disabled_reason = cs->reason;
                cs->info.num_events = 0;
            } else {
                cs->info.disabled_reason = NULL;
            }
        }
        g_hpm.region_started = 0;
        g_hpm.region_configured = 0;
        g_hpm.id_fn = NULL;
        __atomic_store_n(&g_hpm.initialized, 1, __ATOMIC_RELEASE);
    }
    for (i = 0; i < HPM_NCOMP; i++)
        n += g_hpm.comp[i].info.enabled;
    pthread_mutex_unlock(&g_hpm.lock);
    return n;
}

HPM_EXPORT int hpm_is_initialized(void)
{
    return hpm__check_init() == HPM_OK;
}

HPM_EXPORT void hpm_shutdown(void)
{
    struct hpm_thread *t, *next;
    int i;
    if (hpm__check_init() != HPM_OK)
        return;
    /* sets first: they hold component resources and thread slots */
    hpm__sets_destroy_all();
    pthread_mutex_lock(&g_hpm.lock);
    t = g_hpm.threads;
    g_hpm.threads = NULL;
    pthread_mutex_unlock(&g_hpm.lock);
    for (; t; t = next) {
        next = t->next;
        hpm__timer_delete(t);
        hpm__regions_free_thread(t);
        pthread_mutex_destroy(&t->rmu);
        free(t);
    }
    pthread_mutex_lock(&g_hpm.lock);
    for (i = HPM_NCOMP - 1; i >= 0; i--)
        if (g_hpm.comp[i].c)
            g_hpm.comp[i].c->shutdown();
    hpm__regions_reset();
    __atomic_store_n(&g_hpm.initialized, 0, __ATOMIC_RELEASE);
    __atomic_add_fetch(&g_hpm.epoch, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&g_hpm.lock);
}

