/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * set.c - event sets: handles, events, options, start/stop/read/accum/reset,
 * and overflow configuration. The component does the counting (component.h);
 * this file enforces the rules of hpm.h:
 *   - a set holds events of one component (HPM_ECONFLICT otherwise);
 *   - it counts for the thread that starts it, and at most one set per
 *     component runs on a thread (hpm_thread.per[].running, HPM_ECONFLICT),
 *     except for a component whose counters the thread's sets share
 *     (HPM_CI_SHARED_COUNTERS, sim): its sets run side by side while their
 *     events fit in its num_counters (hpm_thread.per[].shared, HPM_ECOUNTERS);
 *   - a stopped set keeps the counts of its last run (hpm_read returns them,
 *     as PAPI_read does), hpm_reset zeroes them;
 *   - a running set whose counts belong to its thread (sim, os, or any set
 *     with overflow) is read, stopped, reset and accumulated on that thread
 *     only (HPM_EINVAL elsewhere);
 *   - a set attached to a process (hpm_set_attach) or to a CPU
 *     (hpm_set_cpu) counts no thread of ours: it takes no slot of the
 *     thread that starts it, any thread may read it, and it cannot
 *     overflow (the signal goes to the counting thread).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "hpm_internal.h"

/* ------------------------------------------------------------ the table */

static struct hpm_set **slot_of(int h)
{
    int c = h / HPM_SET_CHUNK;
    if (h < 0 || h >= HPM_MAX_SETS || c >= g_hpm.n_chunks || !g_hpm.chunks[c])
        return NULL;
    return &g_hpm.chunks[c][h % HPM_SET_CHUNK];
}

/* The slot of a live set, with g_hpm.lock held; NULL with *err (and the
 * lock released) when the library is not initialised or there is no such
 * set. */
static struct hpm_set **slot_locked(int h, int *err)
{
    struct hpm_set **p;
    pthread_mutex_lock(&g_hpm.lock);
    if (!g_hpm.initialized) {
        pthread_mutex_unlock(&g_hpm.lock);
        *err = HPM_ENOINIT;
        return NULL;
    }
    p = slot_of(h);
    if (!p || !*p) {
        pthread_mutex_unlock(&g_hpm.lock);
        *err = HPM_ENOSET;
        return NULL;
    }
    return p;
}

/* Look a handle up and lock the set; NULL with *err on failure. Inside the
 * overflow handler (hpm__tls.in_handler) no lock is taken: the interrupted code
 * may hold them, and the user's handler may call hpm_read. */
static struct hpm_set *set_get(int h, int *err)
{
    struct hpm_set **p, *s;
    if (hpm__tls.in_handler) {
        /* the user's overflow handler: the set is this thread's, running */
        p = (h >= 0 && h < HPM_MAX_SETS && h / HPM_SET_CHUNK < g_hpm.n_chunks &&
             g_hpm.chunks[h / HPM_SET_CHUNK])
                ? &g_hpm.chunks[h / HPM_SET_CHUNK][h % HPM_SET_CHUNK]
                : NULL;
        s = p ? __atomic_load_n(p, __ATOMIC_ACQUIRE) : NULL;
        if (!s)
            *err = HPM_ENOSET;
        return s;
    }
    p = slot_locked(h, err);
    if (!p)
        return NULL;
    s = *p;
    pthread_mutex_lock(&s->mu);
    pthread_mutex_unlock(&g_hpm.lock);
    return s;
}

static void set_put(struct hpm_set *s)
{
    if (!hpm__tls.in_handler)
        pthread_mutex_unlock(&s->mu);
}

struct hpm_set *hpm__set_new(int handle)
{
    /* 64-byte aligned: its first fields in two whole lines (hpm_internal.h) */
    size_t size = (sizeof(struct hpm_set) + 63) & ~(size_t)63;
    struct hpm_set *s = aligned_alloc(64, size);
    pthread_mutexattr_t a;
    if (!s)
        return NULL;
    memset(s, 0, size);
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&s->mu, &a);
    pthread_mutexattr_destroy(&a);
    s->handle = handle;
    s->comp = -1;
    s->state = HPM_SET_STOPPED;
    return s;
}

static void unfix(struct hpm_set *s)
{
    if (s->cst) {
        s->c->cleanup(s->cst);
        free(s->cst);
    }
    s->cst = NULL;
    s->c = NULL;
    s->comp = -1;
    s->comp_shared = s->comp_counters = 0;
    if (!s->domain_explicit)
        s->opts.domain = 0;
}

void hpm__set_free(struct hpm_set *s)
{
    if (!s)
        return;
    if (s->state == HPM_SET_RUNNING)
        hpm__set_stop(s, NULL);
    unfix(s);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

HPM_EXPORT int hpm_set_create(int *set)
{
    int h, c;
    struct hpm_set *s;
    if (!set)
        return HPM_EINVAL;
    pthread_mutex_lock(&g_hpm.lock);
    if (!g_hpm.initialized) {
        pthread_mutex_unlock(&g_hpm.lock);
        return HPM_ENOINIT;
    }
    for (h = 0; h < HPM_MAX_SETS; h++) {
        c = h / HPM_SET_CHUNK;
        if (c >= g_hpm.n_chunks || !g_hpm.chunks[c]) {
            g_hpm.chunks[c] = calloc(HPM_SET_CHUNK, sizeof(struct hpm_set *));
            if (!g_hpm.chunks[c])
                break;
            if (c >= g_hpm.n_chunks)
                g_hpm.n_chunks = c + 1;
        }
        if (!g_hpm.chunks[c][h % HPM_SET_CHUNK])
            break;
    }
    if (h == HPM_MAX_SETS || !g_hpm.chunks[h / HPM_SET_CHUNK]) {
        pthread_mutex_unlock(&g_hpm.lock);
        return HPM_ENOMEM;
    }
    s = hpm__set_new(h);
    if (!s) {
        pthread_mutex_unlock(&g_hpm.lock);
        return HPM_ENOMEM;
    }
    __atomic_store_n(&g_hpm.chunks[h / HPM_SET_CHUNK][h % HPM_SET_CHUNK], s, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&g_hpm.lock);
    *set = h;
    return HPM_OK;
}

HPM_EXPORT int hpm_set_destroy(int set)
{
    struct hpm_set **p, *s;
    int err;
    p = slot_locked(set, &err);
    if (!p)
        return err;
    s = *p;
    /* every user of s locks s->mu while holding g_hpm.lock: once we hold
     * both, nobody else can reach s */
    pthread_mutex_lock(&s->mu);
    if (s->state == HPM_SET_RUNNING) {
        pthread_mutex_unlock(&s->mu);
        pthread_mutex_unlock(&g_hpm.lock);
        return HPM_ERUNNING;
    }
    __atomic_store_n(p, NULL, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&s->mu);
    pthread_mutex_unlock(&g_hpm.lock);
    hpm__set_free(s);
    return HPM_OK;
}

void hpm__sets_destroy_all(void)
{
    int c, i;
    for (c = 0; c < g_hpm.n_chunks; c++) {
        struct hpm_set *s;
        if (!g_hpm.chunks[c])
            continue;
        for (i = 0; i < HPM_SET_CHUNK; i++) {
            pthread_mutex_lock(&g_hpm.lock);
            s = g_hpm.chunks[c][i];
            __atomic_store_n(&g_hpm.chunks[c][i], NULL, __ATOMIC_RELEASE);
            if (s)
                pthread_mutex_lock(&s->mu);
            pthread_mutex_unlock(&g_hpm.lock);
            if (s) {
                pthread_mutex_unlock(&s->mu);
                hpm__set_free(s);
            }
        }
    }
    pthread_mutex_lock(&g_hpm.lock);
    for (c = 0; c < g_hpm.n_chunks; c++) {
        free(g_hpm.chunks[c]);
        g_hpm.chunks[c] = NULL;
    }
    g_hpm.n_chunks = 0;
    pthread_mutex_unlock(&g_hpm.lock);
}

/* ------------------------------------------------------------ events */

static int find_pos(const struct hpm_set *s, hpm_event_t e)
{
    int i;
    for (i = 0; i < s->n; i++)
        if (s->events[i] == e)
            return i;
    return -1;
}

/* Does a position other than pos (skip: a position being removed, whose
 * successors move down one) that has a threshold share pos's overflow mask
 * bit (HPM_OVF_BIT)? pos and the others are positions after the removal. */
static int ovf_bit_taken(const struct hpm_set *s, int pos, int skip)
{
    int i, j;
    for (i = 0; i < s->n; i++) {
        if (i == skip || !s->ovf[i].threshold)
            continue;
        j = skip >= 0 && i > skip ? i - 1 : i;
        if (j != pos && HPM_OVF_BIT(j) == HPM_OVF_BIT(pos))
            return 1;
    }
    return 0;
}

/* Ask the component again for native overflow of every position that has a
 * threshold (set_update cleared them). */
static void reapply_overflow(struct hpm_set *s)
{
    int i;
    s->n_ovf = 0;
    for (i = 0; i < s->n; i++) {
        struct hpm_ovf *o = &s->ovf[i];
        o->native_cfg = o->native = 0;
        if (!o->threshold)
            continue;
        s->n_ovf++;
        if (!(o->flags & HPM_OVERFLOW_FORCE_SOFTWARE))
            o->native_cfg = s->c->set_overflow(s->cst, i, o->threshold) == HPM_OK;
    }
    if (!s->n_ovf)
        s->handler = NULL;
}

/* Let the component program list[n] with opts. */
static int update(struct hpm_set *s, const hpm_event_t *list, int n,
                  const struct hpm_set_opts *opts)
{
    uint32_t idx[HPM_SET_MAX_EVENTS];
    int i;
    for (i = 0; i < n; i++)
        idx[i] = HPM_EVENT_INDEX(list[i]);
    return s->c->set_update(s->cst, idx, n, opts);
}

/* Can the component honour opts at all? (The component may still refuse
 * in set_update, e.g. the kernel for a domain.) */
static int opts_supported(int comp, const struct hpm_set_opts *o)
{
    const struct hpm_component_info *ci = &g_hpm.comp[comp].info;
    if (o->domain & ~ci->domains)
        return HPM_ENOTSUP;
    if (o->attach && !(ci->flags & HPM_COMP_ATTACH))
        return HPM_ENOTSUP;
    /* a CPU's set counts neither another process nor children */
    if (o->cpu && (!(ci->flags & HPM_COMP_CPU) || o->attach || o->inherit))
        return HPM_ENOTSUP;
    if (o->inherit && !(ci->flags & HPM_COMP_INHERIT))
        return HPM_ENOTSUP;
    if (o->multiplex && !(ci->flags & HPM_COMP_MULTIPLEX) && ci->num_counters != 0)
        return HPM_ENOTSUP;
    return HPM_OK;
}

static int shares_counters(int comp)
{
    return (g_hpm.comp[comp].c->ci_flags & HPM_CI_SHARED_COUNTERS) &&
           g_hpm.comp[comp].info.num_counters > 0;
}

/* How many events a set of comp may hold. */
static int set_capacity(int comp)
{
    if (shares_counters(comp))
        return g_hpm.comp[comp].info.num_counters < HPM_SET_MAX_EVENTS
                   ? g_hpm.comp[comp].info.num_counters
                   : HPM_SET_MAX_EVENTS;
    return HPM_COMP_MAX_EVENTS;
}

int hpm__set_add(struct hpm_set *s, hpm_event_t e)
{
    int comp = HPM_EVENT_COMPONENT(e), rc, fixed_now = 0;
    struct hpm_event_info info;
    hpm_event_t list[HPM_SET_MAX_EVENTS];
    struct hpm_set_opts o;

    if (s->state == HPM_SET_RUNNING)
        return HPM_ERUNNING;
    if (comp >= HPM_NCOMP || !hpm__comp_enabled(comp))
        return HPM_ENOCOMP;
    memset(&info, 0, sizeof info);
    rc = g_hpm.comp[comp].c->event_describe(HPM_EVENT_INDEX(e), &info);
    if (rc != HPM_OK)
        return rc;
    if (s->comp >= 0 && s->comp != comp)
        return HPM_ECONFLICT;
    if (find_pos(s, e) >= 0)
        return HPM_EEXISTS;
    if (s->n >= set_capacity(comp))
        return HPM_ECOUNTERS;
    if (s->comp < 0) {
        const struct hpm_component *c = g_hpm.comp[comp].c;
        o = s->opts;
        if (!s->domain_explicit)
            o.domain = g_hpm.comp[comp].info.default_domain;
        rc = opts_supported(comp, &o);
        if (rc != HPM_OK)
            return rc;
        /* 64-byte aligned: a component's first fields in whole lines */
        size_t cst_size = ((c->set_size ? c->set_size : 1) + 63) & ~(size_t)63;
        s->cst = aligned_alloc(64, cst_size);
        if (!s->cst)
            return HPM_ENOMEM;
        memset(s->cst, 0, cst_size);
        s->c = c;
        s->comp = comp;
        rc = c->set_init(s->cst);
        if (rc != HPM_OK) {
            free(s->cst);
            s->cst = NULL;
            s->c = NULL;
            s->comp = -1;
            return rc;
        }
        s->comp_shared = shares_counters(comp) && g_hpm.comp[comp].info.enabled;
        s->comp_counters = g_hpm.comp[comp].info.num_counters;
        s->opts = o;
        s->foreign = o.attach || o.cpu;
        fixed_now = 1;
    }
    memcpy(list, s->events, sizeof(hpm_event_t) * (size_t)s->n);
    list[s->n] = e;
    rc = update(s, list, s->n + 1, &s->opts);
    if (rc != HPM_OK) {
        if (fixed_now)
            unfix(s);
        else
            (void)update(s, s->events, s->n, &s->opts);
        if (!fixed_now)
            reapply_overflow(s);
        return rc;
    }
    s->events[s->n] = e;
    s->ev_flags[s->n] = info.flags;
    s->frozen[s->n] = 0;
    memset(&s->ovf[s->n], 0, sizeof s->ovf[s->n]);
    s->n++;
    reapply_overflow(s);
    return s->n - 1;
}

HPM_EXPORT int hpm_set_add(int set, hpm_event_t event)
{
    int err, rc;
    struct hpm_set *s = set_get(set, &err);
    if (!s)
        return err;
    rc = hpm__set_add(s, event);
    set_put(s);
    return rc;
}

HPM_EXPORT int hpm_set_remove(int set, hpm_event_t event)
{
    int err, rc = HPM_OK, pos, i;
    hpm_event_t list[HPM_SET_MAX_EVENTS];
    struct hpm_set *s = set_get(set, &err);
    if (!s)
        return err;
    if (s->state == HPM_SET_RUNNING) {
        set_put(s);
        return HPM_ERUNNING;
    }
    pos = find_pos(s, event);
    if (pos < 0) {
        set_put(s);
        return HPM_ENOEVENT;
    }
    if (s->n == 1) {
        unfix(s);
        s->n = 0;
        s->n_ovf = 0;
        s->handler = NULL;
        set_put(s);
        return HPM_OK;
    }
    /* the positions after pos move down one: two thresholds must not come
     * to share an overflow mask bit */
    for (i = pos + 1; s->n_ovf > 1 && i < s->n; i++)
        if (s->ovf[i].threshold && ovf_bit_taken(s, i - 1, pos)) {
            set_put(s);
            return HPM_ECONFLICT;
        }
    for (i = 0; i < s->n; i++)
        list[i] = s->events[i];
    for (i = pos; i < s->n - 1; i++)
        list[i] = list[i + 1];
    rc = update(s, list, s->n - 1, &s->opts);
    if (rc != HPM_OK) {
        (void)update(s, s->events, s->n, &s->opts);
        reapply_overflow(s);
        set_put(s);
        return rc;
    }
    for (i = pos; i < s->n - 1; i++) {
        s->events[i] = s->events[i + 1];
        s->ev_flags[i] = s->ev_flags[i + 1];
        s->frozen[i] = s->frozen[i + 1];
        s->ovf[i] = s->ovf[i + 1];
    }
    s->n--;
    reapply_overflow(s);
    set_put(s);
    return HPM_OK;
}

HPM_EXPORT int hpm_set_size(int set)
{
    int err, n;
    struct hpm_set *s = set_get(set, &err);
    if (!s)
        return err;
    n = s->n;
    set_put(s);
    return n;
}

HPM_EXPORT int hpm_set_events(int set, hpm_event_t *events, int max)
{
    int err, i, n;
    struct hpm_set *s;
    if (max < 0 || (max > 0 && !events))
        return HPM_EINVAL;
    s = set_get(set, &err);
    if (!s)
        return err;
    n = s->n < max ? s->n : max;
    for (i = 0; i < n; i++)
        events[i] = s->events[i];
    set_put(s);
    return n;
}

HPM_EXPORT int hpm_set_component(int set)
{
    int err, c;
    struct hpm_set *s = set_get(set, &err);
    if (!s)
        return err;
    c = s->comp >= 0 ? s->comp : HPM_ENOEVENT;
    set_put(s);
    return c;
}

HPM_EXPORT int hpm_set_state(int set)
{
    int err, st;
    struct hpm_set *s = set_get(set, &err);
    if (!s)
        return err;
    st = s->state;
    set_put(s);
    return st;
}

/* ------------------------------------------------------------ options */

/* Apply changed options: validated by the component when the set has one. */
static int set_opts(int set, void (*change)(struct hpm_set_opts *, long), long arg,
                    int is_domain)
{
    int err, rc = HPM_OK;
    struct hpm_set_opts o;
    struct hpm_set *s = set_get(set, &err);
    if (!s)
        return err;
    if (s->state == HPM_SET_RUNNING) {
        set_put(s);
        return HPM_ERUNNING;
    }
    o = s->opts;
    change(&o, arg);
    if ((o.attach || o.inherit || o.cpu) && s->n_ovf) {
        set_put(s);
        return HPM_ENOTSUP; /* the overflow signal goes to the counting thread */
    }
    if (s->comp >= 0) {
        rc = opts_supported(s->comp, &o);
        if (rc == HPM_OK)
            rc = update(s, s->events, s->n, &o);
        if (rc != HPM_OK) {
            (void)update(s, s->events, s->n, &s->opts);
            reapply_overflow(s);
            set_put(s);
            return rc;
        }
        s->opts = o;
        s->foreign = o.attach || o.cpu;
        reapply_overflow(s);
    } else {
        s->opts = o;
        s->foreign = o.attach || o.cpu;
    }
    if (is_domain)
        s->domain_explicit = 1;
    set_put(s);
    return HPM_OK;
}

static void ch_domain(struct hpm_set_opts *o, long v)
{
    o->domain = (unsigned)v;
}
static void ch_attach(struct hpm_set_opts *o, long v)
{
    o->attach = (pid_t)v;
}
static void ch_cpu(struct hpm_set_opts *o, long v)
{
    o->cpu = (int)v + 1;
}
static void ch_inherit(struct hpm_set_opts *o, long v)
{
    o->inherit = v != 0;
}
static void ch_multiplex(struct hpm_set_opts *o, long v)
{
    o->multiplex = v != 0;
}

HPM_EXPORT int hpm_set_domain(int set, unsigned domain)
{
    if (domain == 0 || (domain & ~HPM_DOMAIN_ALL))
        return HPM_EINVAL;
    return set_opts(set, ch_domain, (long)domain, 1);
}

HPM_EXPORT int hpm_get_domain(int set, unsigned *domain)
{
    int err;
    struct hpm_set *s;
    if (!domain)
        return HPM_EINVAL;
    s = set_get(set, &err);
    if (!s)
        return err;
    /* an empty set without an explicit domain: PAPI's default, user */
    *domain = s->opts.domain ? s->opts.domain : HPM_DOMAIN_USER;
    set_put(s);
    return HPM_OK;
}

HPM_EXPORT int hpm_set_attach(int set, pid_t tid)
{
    if (tid < 0)
        return HPM_EINVAL;
    return set_opts(set, ch_attach, (long)tid, 0);
}

HPM_EXPORT int hpm_set_cpu(int set, int cpu)
{
    if (cpu < -1 || cpu >= INT_MAX - 1)
        return HPM_EINVAL;
    return set_opts(set, ch_cpu, cpu, 0);
}

HPM_EXPORT int hpm_set_inherit(int set, int on)
{
    return set_opts(set, ch_inherit, on, 0);
}

HPM_EXPORT int hpm_set_multiplex(int set, int on)
{
    return set_opts(set, ch_multiplex, on, 0);
}

/* ------------------------------------------------------------ counting */

/* Only the starting thread may touch a running set whose counts are its own. */
static int owner_ok(const struct hpm_set *s)
{
    if (s->state != HPM_SET_RUNNING || s->opts.attach || s->opts.cpu)
        return 1;
    if (!(s->c->ci_flags & HPM_CI_THREAD_BOUND) && !s->n_ovf)
        return 1;
    return hpm__self_if_any() == s->owner;
}

/* Take a set off its owner's shared list (at stop, or a failed start) and give its counters
 * back: one atomic store, so the owner's overflow handler (this thread) sees
 * the list with or without it, whole. */
static void shared_unlink(struct hpm_set *s)
{
    struct hpm_thread *t = s->owner;
    _Atomic(struct hpm_set *) *link = &t->per[s->comp].shared;
    struct hpm_set *p = atomic_load(link);
    if (p == s) {
        atomic_store(link, s->next_shared);
    } else {
        while (p && p->next_shared != s)
            p = p->next_shared;
        if (p)
            __atomic_store_n(&p->next_shared, s->next_shared, __ATOMIC_RELEASE);
    }
    t->per[s->comp].counters_used -= s->n;
    s->next_shared = NULL;
}

/* Does a running set of t's shared list have a natively armed threshold? */
static int shared_native_armed(struct hpm_thread *t, int comp)
{
    struct hpm_set *o;
    int i;
    for (o = atomic_load(&t->per[comp].shared); o; o = o->next_shared)
        for (i = 0; i < o->n; i++)
            if (o->ovf[i].threshold && o->ovf[i].native)
                return 1;
    return 0;
}

/* The counter source arms one threshold per event kind and thread (the
 * tool, HPM_VPMU_OVERFLOW): a second running set arming it would replace
 * the first one's, and its stop would disarm it. So while a set of the
 * thread holds native thresholds, another one starting beside it checks its
 * thresholds in software for that run (restored by restore_native). */
static void demote_overflow(struct hpm_set *s)
{
    int i;
    for (i = 0; i < s->n; i++)
        if (s->ovf[i].native_cfg) {
            (void)s->c->set_overflow(s->cst, i, 0);
            s->ovf[i].native_cfg = 0;
        }
    s->ovf_demoted = 1;
}

static void restore_native(struct hpm_set *s)
{
    if (!s->ovf_demoted)
        return;
    s->ovf_demoted = 0;
    reapply_overflow(s);
}

int hpm__set_start(struct hpm_set *s, struct hpm_thread *self, int take_slot)
{
    struct hpm_thread *t = NULL;
    struct hpm_set *expect = NULL;
    uint64_t failed = 0;
    sigset_t old;
    int rc, i, blocked = 0;

    if (s->state == HPM_SET_RUNNING)
        return HPM_ERUNNING;
    if (s->n == 0 || !s->c)
        return HPM_EINVAL;
    if (!hpm__comp_enabled(s->comp))
        return HPM_ENOCOMP;
    if (!s->opts.attach && !s->opts.cpu) {
        t = self;
        if (!t)
            return HPM_ENOMEM;
    } else {
        take_slot = 0;
    }
    if (take_slot && shares_counters(s->comp)) {
        /* the thread's running sets of this component share its counters */
        if (t->per[s->comp].counters_used + s->n > g_hpm.comp[s->comp].info.num_counters)
            return HPM_ECOUNTERS;
        if (s->n_ovf && shared_native_armed(t, s->comp))
            demote_overflow(s);
        /* on the list before the counting starts, so that none of this runs
         * inside the counted window; the overflow handler skips the set until
         * its state says running */
        s->owner = t;
        t->per[s->comp].counters_used += s->n;
        s->next_shared = atomic_load(&t->per[s->comp].shared);
        atomic_store(&t->per[s->comp].shared, s);
    } else if (take_slot &&
               !atomic_compare_exchange_strong(&t->per[s->comp].running, &expect, s)) {
        return HPM_ECONFLICT;
    }
    if (s->n_ovf) {
        rc = hpm__overflow_install();
        if (rc != HPM_OK)
            goto undo_slot;
        hpm__ovf_block(&old);
        blocked = 1;
    }
    rc = s->c->start(s->cst, &failed);
    if (rc != HPM_OK)
        goto undo;
    s->n_sw = s->n_by_count = 0;
    for (i = 0; s->n_ovf && i < s->n; i++) {
        struct hpm_ovf *o = &s->ovf[i];
        if (!o->threshold)
            continue;
        /* e.g. the tool refused to arm it now: check it in software */
        o->native = o->native_cfg && !(failed & (1ull << HPM_OVF_BIT(i)));
        o->deadline = o->threshold;
        if (!o->native)
            s->n_sw++;
        else if (s->c->ci_flags & HPM_CI_OVF_BY_COUNT)
            s->n_by_count++;
    }
    if (s->n_sw) {
        rc = hpm__sw_timer_get(t);
        if (rc != HPM_OK) {
            int64_t dummy[HPM_SET_MAX_EVENTS];
            s->c->stop(s->cst, dummy);
            goto undo;
        }
    }
    s->owner = t;
    s->holds_slot = take_slot;
    /* atomic: hpm_start_pinned reads it without the set's lock */
    __atomic_store_n(&s->state, HPM_SET_RUNNING, __ATOMIC_RELEASE);
    if (blocked)
        hpm__ovf_unblock(&old);
    return HPM_OK;
undo:
    if (blocked)
        hpm__ovf_unblock(&old);
undo_slot:
    if (take_slot && shares_counters(s->comp)) {
        shared_unlink(s);
        s->owner = NULL;
    } else if (take_slot) {
        expect = s;
        atomic_compare_exchange_strong(&t->per[s->comp].running, &expect, NULL);
    }
    restore_native(s);
    return rc;
}

HPM_EXPORT int hpm_start(int set)
{
    int err, rc;
    struct hpm_thread *self;
    struct hpm_set *s;
    /* The thread record first: making it takes g_hpm.lock, which must not be
     * taken while a set's lock is held (the lock order, hpm_internal.h). */
    if (hpm__check_init() != HPM_OK)
        return HPM_ENOINIT;
    self = hpm__self();
    s = set_get(set, &err);
    if (!s)
        return err;
    rc = hpm__set_start(s, self, 1);
    set_put(s);
    return rc;
}

HPM_EXPORT int hpm_thread_running(int component)
{
    struct hpm_thread *t;
    struct hpm_set *s;
    int n = 0;
    if (hpm__check_init() != HPM_OK)
        return HPM_ENOINIT;
    if (component < 0 || component >= HPM_NCOMP)
        return HPM_ENOCOMP;
    t = hpm__self_if_any();
    if (!t)
        return 0;
    /* the thread's own lists: only it changes its shared list */
    if (atomic_load(&t->per[component].running))
        n++;
    for (s = atomic_load(&t->per[component].shared); s;
         s = __atomic_load_n(&s->next_shared, __ATOMIC_ACQUIRE))
        n++;
    return n;
}

int hpm__set_stop_owed(struct hpm_set *s, int64_t *values, struct hpm_ovf_owed *owed)
{
    /* the counts go straight to the frozen values (no 8 KiB array of
     * HPM_SET_MAX_EVENTS counts on the stack) */
    int64_t *v = s->frozen;
    sigset_t old;
    int rc;
    if (s->state != HPM_SET_RUNNING)
        return HPM_ENOTRUNNING;
    if (s->n_ovf)
        hpm__ovf_block(&old);
    rc = s->c->stop(s->cst, v);
    if (rc == HPM_OK && owed)
        hpm__ovf_owed_collect(s, v, owed);
    if (s->n_sw && s->owner)
        hpm__sw_timer_put(s->owner);
    s->n_sw = s->n_by_count = 0;
    if (s->holds_slot && s->owner && shares_counters(s->comp)) {
        shared_unlink(s);
    } else if (s->holds_slot && s->owner) {
        struct hpm_set *expect = s;
        atomic_compare_exchange_strong(&s->owner->per[s->comp].running, &expect, NULL);
    }
    s->holds_slot = 0;
    s->owner = NULL;
    /* atomic: hpm_start_pinned reads it without the set's lock, and a
     * thread's exit stops its sets under that lock alone */
    __atomic_store_n(&s->state, HPM_SET_STOPPED, __ATOMIC_RELEASE);
    if (s->n_ovf)
        hpm__ovf_unblock(&old);
    /* values the component could not read are not kept as zeros: reading the
     * stopped set gives the error until a reset */
    if (rc != HPM_OK)
        memset(s->frozen, 0, sizeof(int64_t) * (size_t)s->n);
    s->frozen_rc = rc;
    restore_native(s);
    if (rc != HPM_OK)
        return rc;
    if (values)
        memcpy(values, v, sizeof(int64_t) * (size_t)s->n);
    return HPM_OK;
}

int hpm__set_stop(struct hpm_set *s, int64_t *values)
{
    return hpm__set_stop_owed(s, values, NULL);
}

HPM_EXPORT int hpm_stop(int set, int64_t *values)
{
    int err, rc;
    struct hpm_ovf_owed owed;
    struct hpm_set *s = set_get(set, &err);
    if (!s)
        return err;
    owed.n = 0;
    if (s->state == HPM_SET_RUNNING && !owner_ok(s))
        rc = HPM_EINVAL;
    else
        rc = hpm__set_stop_owed(s, values, &owed);
    set_put(s);
    /* after the set's lock: the handler may call the API on its set */
    hpm__ovf_owed_deliver(&owed);
    return rc;
}

/* ------------------------------------------------------------ pinned sets */

HPM_EXPORT int hpm_set_pin(int set, hpm_pin_t *pin)
{
    int err;
    struct hpm_set *s;
    if (!pin)
        return HPM_EINVAL;
    s = set_get(set, &err);
    if (!s)
        return err;
    *pin = s;
    set_put(s);
    return HPM_OK;
}

/* The common case of a pinned set, started and stopped by the calling
 * thread over and over (PAPI_start/PAPI_stop around a loop): a component
 * whose thread-bound sets share its counters (sim), no overflow, not
 * attached. hpm__set_start and hpm__set_stop_owed for that case only, with
 * nothing they would skip anyway: on the virtual PMU each instruction here
 * is added to the program's count, and costs host time in the models (the
 * set's fields it reads come first in struct hpm_set, in two lines, and
 * are read line by line). */
static inline int pinned_simple(const struct hpm_set *s)
{
    /* one branch for the three tests (each conditional branch of the
     * program is modeled on the virtual PMU) */
    return ((unsigned)s->n_ovf | s->foreign | (s->comp_shared ^ 1u)) == 0;
}

HPM_EXPORT int hpm_start_pinned(hpm_pin_t s, int alone)
{
    struct hpm_thread *t;
    struct hpm_thread_comp *tc;
    uint64_t failed = 0;
    int rc, comp, n;
    /* no check that the library is initialised: a pin is valid only while
     * its set exists, and hpm_shutdown destroys every set */
    if (!s)
        return HPM_EINVAL;
    if ((t = hpm__self_if_any()) == NULL)
        t = hpm__self(); /* the thread's first start: its record made */
    /* A stopped set is on no thread's lists, so only the caller (under its
     * own lock) reaches it: no lock of ours. A running one may be another
     * thread's, whose exit stops it under the set's lock: refused without
     * looking further, as hpm__set_start would. */
    if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == HPM_SET_RUNNING)
        return HPM_ERUNNING;
    comp = s->comp;
    n = s->n;
    if (((unsigned)(t == NULL) | (unsigned)(n == 0) | (unsigned)!pinned_simple(s)) != 0) {
        if (alone && t && comp >= 0 && !s->foreign &&
            (atomic_load_explicit(&t->per[comp].running, memory_order_relaxed) ||
             atomic_load_explicit(&t->per[comp].shared, memory_order_relaxed)))
            return HPM_ECONFLICT; /* PAPI: one running set per component and thread */
        return hpm__set_start(s, t, 1);
    }
    /* the same checks in the same order for the simple set (not foreign,
     * its component's number known) */
    tc = &t->per[comp];
    if (alone && ((uintptr_t)atomic_load_explicit(&tc->running, memory_order_relaxed) |
                  (uintptr_t)atomic_load_explicit(&tc->shared, memory_order_relaxed)))
        return HPM_ECONFLICT;
    if (tc->counters_used + n > s->comp_counters)
        return HPM_ECOUNTERS;
    /* on the thread's list before the counting starts (hpm__set_start);
     * n_sw and n_by_count are 0 (n_ovf is) */
    tc->counters_used += n;
    s->owner = t;
    s->next_shared = atomic_load_explicit(&tc->shared, memory_order_relaxed);
    atomic_store_explicit(&tc->shared, s, memory_order_release);
    rc = s->c->start(s->cst, &failed);
    if (rc != HPM_OK) {
        shared_unlink(s);
        s->owner = NULL;
        return rc;
    }
    s->holds_slot = 1;
    __atomic_store_n(&s->state, HPM_SET_RUNNING, __ATOMIC_RELEASE);
    return HPM_OK;
}

/* s runs on t's lists: started by t, which alone changes it while it runs.
 * Reads nothing of s that a thread's exit writes (s->comp is the caller's). */
static int on_lists(const struct hpm_thread *t, const struct hpm_set *s)
{
    const struct hpm_set *o;
    int comp = s->comp;
    if (comp < 0)
        return 0;
    for (o = atomic_load_explicit(&t->per[comp].shared, memory_order_relaxed); o;
         o = __atomic_load_n(&o->next_shared, __ATOMIC_RELAXED))
        if (o == s)
            return 1;
    return atomic_load_explicit(&t->per[comp].running, memory_order_relaxed) == s;
}

/* hpm_stop_pinned of any set but the simple own one: hpm_stop's body */
static __attribute__((noinline)) int stop_pinned_general(struct hpm_set *s, int64_t *values,
                                                         int locked)
{
    struct hpm_ovf_owed owed;
    int rc;
    owed.n = 0;
    if (locked)
        pthread_mutex_lock(&s->mu);
    if (s->state == HPM_SET_RUNNING && !owner_ok(s))
        rc = HPM_EINVAL;
    else
        rc = hpm__set_stop_owed(s, values, &owed);
    if (locked)
        pthread_mutex_unlock(&s->mu);
    /* after the set's lock: the handler may call the API on its set */
    hpm__ovf_owed_deliver(&owed);
    return rc;
}

/* The link of t's shared list that points at s, NULL when s is not on it
 * (read as on_lists reads). */
static _Atomic(struct hpm_set *) *shared_link(struct hpm_thread *t, const struct hpm_set *s)
{
    _Atomic(struct hpm_set *) *link = &t->per[s->comp].shared;
    struct hpm_set *o;
    while ((o = atomic_load_explicit(link, memory_order_relaxed)) != NULL) {
        if (o == s)
            return link;
        link = (_Atomic(struct hpm_set *) *)&o->next_shared;
    }
    return NULL;
}

HPM_EXPORT int hpm_stop_pinned(hpm_pin_t s, int64_t *values)
{
    struct hpm_thread *t;
    struct hpm_set *next;
    _Atomic(struct hpm_set *) *link;
    int rc, i, n, comp;
    if (!s)
        return HPM_EINVAL;
    /* The calling thread's own running set: nobody else changes it (its
     * exit runs on this thread), so no lock. Any other: the set's lock, as
     * hpm_stop takes it (another thread's exit may be stopping it). The
     * simple one is on the thread's shared list (checked here; its link is
     * found again after the component's stop). */
    t = hpm__self_if_any();
    if (((unsigned)hpm__tls.in_handler | (unsigned)(t == NULL) | (unsigned)!pinned_simple(s)) != 0 ||
        !shared_link(t, s))
        return stop_pinned_general(s, values, !hpm__tls.in_handler && !(t && on_lists(t, s)));
    /* hpm__set_stop_owed without overflow: nothing owed, no timer */
    rc = s->c->stop(s->cst, s->frozen);
    /* shared_unlink through the link, found again (the set is on the list,
     * most often first): fewer registers kept across the call. The set's
     * fields read line by line, then written line by line. */
    t = s->owner;
    link = &t->per[s->comp].shared;
    if (atomic_load_explicit(link, memory_order_relaxed) != s)
        link = shared_link(t, s);
    n = s->n;
    comp = s->comp;
    next = s->next_shared;
    atomic_store_explicit(link, next, memory_order_release);
    t->per[comp].counters_used -= n;
    s->next_shared = NULL;
    s->owner = NULL;
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* the compiler keeps the lines' order */
    s->holds_slot = 0;
    s->frozen_rc = rc;
    __atomic_store_n(&s->state, HPM_SET_STOPPED, __ATOMIC_RELEASE);
    if (rc != HPM_OK) {
        memset(s->frozen, 0, sizeof(int64_t) * (size_t)n);
        return rc;
    }
    if (values) {
        /* two at a time: one 16-byte load and store each, half the
         * accesses the models see */
        for (i = 0; i + 1 < n; i += 2)
            memcpy(values + i, s->frozen + i, 2 * sizeof *values);
        if (i < n)
            values[i] = s->frozen[i];
    }
    return HPM_OK;
}

/* op on a pinned set that the calling thread does not run: under the set's
 * lock (outside the overflow handler, which may have interrupted its
 * holder), for the owner only where the set is thread-bound */
static __attribute__((noinline)) int pinned_locked(struct hpm_set *s,
                                                   int (*op)(struct hpm_set *, int64_t *),
                                                   int64_t *values)
{
    int rc;
    if (!hpm__tls.in_handler)
        pthread_mutex_lock(&s->mu);
    rc = owner_ok(s) ? op(s, values) : HPM_EINVAL;
    if (!hpm__tls.in_handler)
        pthread_mutex_unlock(&s->mu);
    return rc;
}

/* Started by the calling thread: only it changes the set now (its exit
 * too), and the caller's lock keeps every other caller out. */
static int pinned_own(struct hpm_set *s)
{
    struct hpm_thread *t;
    return !hpm__tls.in_handler && (t = hpm__self_if_any()) != NULL && on_lists(t, s);
}

HPM_EXPORT int hpm_pinned_reader(hpm_pin_t s, hpm_reader_t *fn, hpm_reader_ll_t *fn_ll,
                                 void **ctx)
{
    if (!s || !fn || !fn_ll || !ctx)
        return HPM_EINVAL;
    /* what hpm_read_pinned does for such a set, resolved once */
    if (!pinned_own(s) || __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != HPM_SET_RUNNING)
        return HPM_EINVAL;
    *fn = s->c->read;
    *fn_ll = s->c->read_ll;
    *ctx = s->cst;
    return HPM_OK;
}

HPM_EXPORT int hpm_read_pinned(hpm_pin_t s, int64_t *values)
{
    if (!s || !values)
        return HPM_EINVAL;
    if (pinned_own(s))
        return s->c->read(s->cst, values);
    return pinned_locked(s, hpm__set_read, values);
}

int hpm__set_read(struct hpm_set *s, int64_t *values)
{
    if (s->state != HPM_SET_RUNNING) {
        if (s->frozen_rc != HPM_OK)
            return s->frozen_rc;
        memcpy(values, s->frozen, sizeof(int64_t) * (size_t)s->n);
        return HPM_OK;
    }
    return s->c->read(s->cst, values);
}

/* A running set of a thread-bound component that the calling thread started:
 * only this thread changes its thread's running lists, and no other thread
 * may stop, reset or destroy such a set while it runs, so it can be read
 * without a lock (as the overflow handler reads it). NULL if none. */
static struct hpm_set *own_running_set(struct hpm_thread *t, int handle)
{
    int c;
    for (c = 0; c < HPM_NCOMP; c++) {
        struct hpm_set *s = atomic_load(&t->per[c].running);
        if (s && s->handle == handle)
            return (s->c->ci_flags & HPM_CI_THREAD_BOUND) ? s : NULL;
        for (s = atomic_load(&t->per[c].shared); s;
             s = __atomic_load_n(&s->next_shared, __ATOMIC_ACQUIRE))
            if (s->handle == handle)
                return (s->c->ci_flags & HPM_CI_THREAD_BOUND) ? s : NULL;
    }
    return NULL;
}

HPM_EXPORT int hpm_read(int set, int64_t *values)
{
    int err, rc;
    struct hpm_set *s;
    struct hpm_thread *t;
    if (!values)
        return HPM_EINVAL;
    /* the common case, a program reading the set it runs: no lock (a read
     * of the virtual PMU adds its instructions to the program's count) */
    if (!hpm__tls.in_handler && (t = hpm__self_if_any()) != NULL &&
        (s = own_running_set(t, set)) != NULL)
        return s->c->read(s->cst, values);
    s = set_get(set, &err);
    if (!s)
        return err;
    if (!owner_ok(s))
        rc = HPM_EINVAL;
    else
        rc = hpm__set_read(s, values);
    set_put(s);
    return rc;
}

/* hpm_read's fast path, resolved once: the set the calling thread runs on
 * a thread-bound component, or NULL. */
static struct hpm_set *direct_set(int set)
{
    struct hpm_thread *t;
    if (hpm__tls.in_handler || (t = hpm__self_if_any()) == NULL)
        return NULL;
    return own_running_set(t, set);
}

HPM_EXPORT int hpm_read_direct(int set, hpm_reader_t *fn, void **ctx)
{
    struct hpm_set *s;
    if (!fn || !ctx || (s = direct_set(set)) == NULL)
        return HPM_EINVAL;
    *fn = s->c->read;
    *ctx = s->cst;
    return HPM_OK;
}

HPM_EXPORT int hpm_read_direct_ll(int set, hpm_reader_ll_t *fn, void **ctx)
{
    struct hpm_set *s;
    if (!fn || !ctx || (s = direct_set(set)) == NULL || !s->c->read_ll)
        return HPM_EINVAL;
    *fn = s->c->read_ll;
    *ctx = s->cst;
    return HPM_OK;
}

HPM_EXPORT int hpm_read_direct_sums_ll(int set, const struct hpm_sum_term *terms, int nterms,
                                      int nout, hpm_reader_ll_t *fn, void **ctx)
{
    struct hpm_set *s;
    uint8_t has_term[HPM_SUM_TERMS_MAX] = {0};
    int i, rc;
    if (!fn || !ctx || !terms || nterms <= 0 || nterms > HPM_SUM_TERMS_MAX || nout <= 0 ||
        nout > nterms || (s = direct_set(set)) == NULL)
        return HPM_EINVAL;
    for (i = 0; i < nterms; i++) {
        if (terms[i].pos < 0 || terms[i].pos >= s->n || terms[i].out < 0 || terms[i].out >= nout)
            return HPM_EINVAL;
        has_term[terms[i].out] = 1;
    }
    for (i = 0; i < nout; i++)
        if (!has_term[i])
            return HPM_EINVAL;
    if (!s->c->sums_set || !s->c->read_sums_ll)
        return HPM_ENOTSUP;
    if ((rc = s->c->sums_set(s->cst, terms, nterms, nout)) != HPM_OK)
        return rc;
    *fn = s->c->read_sums_ll;
    *ctx = s->cst;
    return HPM_OK;
}

static int reset_locked(struct hpm_set *s)
{
    int rc = HPM_OK, i;
    sigset_t old;
    if (s->state != HPM_SET_RUNNING) {
        memset(s->frozen, 0, sizeof(int64_t) * (size_t)s->n);
        s->frozen_rc = HPM_OK;
        return HPM_OK;
    }
    if (s->n_ovf)
        hpm__ovf_block(&old);
    /* the deadlines before the counts: after the component's reset every
     * instruction of the library is counted (the signal is blocked) */
    for (i = 0; s->n_ovf && i < s->n; i++)
        s->ovf[i].deadline = s->ovf[i].threshold;
    rc = s->c->reset(s->cst);
    if (s->n_ovf)
        hpm__ovf_unblock(&old);
    return rc;
}

/* The counts since the start or the last reset, and the counts start
 * again from that reading: one read where the component can (read_reset),
 * else a read and a reset (and always with overflow: the reset re-arms). */
static int read_reset_locked(struct hpm_set *s, int64_t *values)
{
    int rc;
    if (s->state == HPM_SET_RUNNING && !s->n_ovf && s->c->read_reset)
        return s->c->read_reset(s->cst, values);
    rc = hpm__set_read(s, values);
    return rc == HPM_OK ? reset_locked(s) : rc;
}

static int reset_op(struct hpm_set *s, int64_t *unused)
{
    (void)unused;
    return reset_locked(s);
}

HPM_EXPORT int hpm_reset(int set)
{
    int err, rc;
    struct hpm_set *s = set_get(set, &err);
    if (!s)
        return err;
    rc = owner_ok(s) ? reset_locked(s) : HPM_EINVAL;
    set_put(s);
    return rc;
}

HPM_EXPORT int hpm_reset_pinned(hpm_pin_t s)
{
    if (!s)
        return HPM_EINVAL;
    /* the caller's own running set without overflow: reset_locked has
     * nothing else to do */
    if (pinned_own(s))
        return s->n_ovf ? reset_locked(s) : s->c->reset(s->cst);
    return pinned_locked(s, reset_op, NULL);
}

HPM_EXPORT int hpm_read_reset_pinned(hpm_pin_t s, int64_t *values)
{
    if (!s || !values)
        return HPM_EINVAL;
    /* the caller's own running set (so without overflow where the
     * component reads and restarts at once): straight to the component */
    if (pinned_own(s))
        return !s->n_ovf && s->c->read_reset ? s->c->read_reset(s->cst, values)
                                             : read_reset_locked(s, values);
    return pinned_locked(s, read_reset_locked, values);
}

HPM_EXPORT int hpm_pinned_resetters(hpm_pin_t s, hpm_reader_t *read_reset,
                                    hpm_resetter_t *reset, void **ctx)
{
    if (!s || !read_reset || !reset || !ctx)
        return HPM_EINVAL;
    /* the two calls' own-set paths above, resolved once: only its owner
     * may reset a running set of a thread-bound component (owner_ok), and
     * without overflow there is no deadline to re-arm */
    if (!pinned_own(s) || __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != HPM_SET_RUNNING ||
        s->n_ovf || !(s->c->ci_flags & HPM_CI_THREAD_BOUND) || !s->c->read_reset)
        return HPM_EINVAL;
    *read_reset = s->c->read_reset;
    *reset = s->c->reset;
    *ctx = s->cst;
    return HPM_OK;
}

HPM_EXPORT int hpm_accum(int set, int64_t *values)
{
    int64_t v[HPM_SET_MAX_EVENTS];
    int err, rc, i;
    struct hpm_set *s;
    if (!values)
        return HPM_EINVAL;
    s = set_get(set, &err);
    if (!s)
        return err;
    rc = owner_ok(s) ? read_reset_locked(s, v) : HPM_EINVAL;
    for (i = 0; rc == HPM_OK && i < s->n; i++)
        /* a level (resident memory) is not a count: it is not summed */
        values[i] = (s->ev_flags[i] & HPM_EVENT_INSTANT) ? v[i] : values[i] + v[i];
    set_put(s);
    return rc;
}

static void stop_if_owned(struct hpm_thread *t, struct hpm_set *s)
{
    /* the set stays valid: destroying needs it stopped, and only this
     * thread (or hpm_shutdown) stops a set that holds its slot */
    pthread_mutex_lock(&s->mu);
    if (s->state == HPM_SET_RUNNING && s->owner == t)
        hpm__set_stop(s, NULL);
    pthread_mutex_unlock(&s->mu);
}

/* In the child of fork(), on the thread that forked (the only one there):
 * its running sets of components whose counts start over in the child
 * (HPM_CI_FORK_LOCAL) are reset, so that they count the child from the
 * fork on. Without it the parent's base was subtracted from the child's
 * own counts: negative values. No lock: the child has one thread, and a
 * lock another thread held at the fork would never be released. */
void hpm__sets_fork_child(struct hpm_thread *t)
{
    int c;
    for (c = 0; c < HPM_NCOMP; c++) {
        struct hpm_set *s = atomic_load(&t->per[c].running), *o;
        if (s && (s->c->ci_flags & HPM_CI_FORK_LOCAL))
            (void)reset_locked(s);
        for (o = atomic_load(&t->per[c].shared); o; o = o->next_shared)
            if (o->c->ci_flags & HPM_CI_FORK_LOCAL)
                (void)reset_locked(o);
    }
}

void hpm__cpu_sets_fork_child(void)
{
    int h, n = g_hpm.n_chunks * HPM_SET_CHUNK;
    /* the child's only thread walks the table without g_hpm.lock: a thread
     * of the parent may have held it at the fork, and none is left to
     * change the table */
    for (h = 0; h < n && h < HPM_MAX_SETS; h++) {
        struct hpm_set **p = slot_of(h), *s = p ? *p : NULL;
        if (s && s->opts.cpu && s->state == HPM_SET_RUNNING &&
            (s->c->ci_flags & HPM_CI_FORK_LOCAL))
            (void)reset_locked(s);
    }
}

void hpm__thread_stop_sets(struct hpm_thread *t)
{
    int c;
    for (c = 0; c < HPM_NCOMP; c++) {
        struct hpm_set *s;
        /* stopping a set takes it off the list */
        while ((s = atomic_load(&t->per[c].shared)) != NULL) {
            stop_if_owned(t, s);
            if (atomic_load(&t->per[c].shared) == s)
                break; /* not ours to stop after all: leave the rest */
        }
        s = atomic_load(&t->per[c].running);
        if (s)
            stop_if_owned(t, s);
    }
}

/* ------------------------------------------------------------ overflow */

HPM_EXPORT int hpm_set_overflow(int set, hpm_event_t event, int64_t threshold, unsigned flags,
                                hpm_overflow_handler handler)
{
    int err, pos, rc;
    struct hpm_set *s;
    if (threshold < 0 || (flags & ~HPM_OVERFLOW_FORCE_SOFTWARE) || (threshold > 0 && !handler))
        return HPM_EINVAL;
    s = set_get(set, &err);
    if (!s)
        return err;
    if (s->state == HPM_SET_RUNNING) {
        set_put(s);
        return HPM_ERUNNING;
    }
    pos = find_pos(s, event);
    if (pos < 0) {
        set_put(s);
        return HPM_ENOEVENT;
    }
    if (threshold > 0 && ovf_bit_taken(s, pos, -1)) {
        set_put(s);
        return HPM_ECONFLICT; /* another position has its mask bit */
    }
    if (threshold > 0) {
        if (s->ev_flags[pos] & HPM_EVENT_INSTANT) {
            set_put(s);
            return HPM_ENOTSUP; /* a level does not grow by a threshold */
        }
        if (s->opts.attach || s->opts.inherit || s->opts.cpu) {
            set_put(s);
            return HPM_ENOTSUP;
        }
        rc = hpm__overflow_install();
        if (rc != HPM_OK) {
            set_put(s);
            return rc;
        }
    }
    s->ovf[pos].threshold = threshold;
    s->ovf[pos].flags = threshold ? flags : 0;
    (void)s->c->set_overflow(s->cst, pos, 0);
    if (threshold)
        s->handler = handler; /* one handler per set, as in PAPI: the last one */
    reapply_overflow(s);
    set_put(s);
    return HPM_OK;
}
