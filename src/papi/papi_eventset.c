/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_eventset.c - PAPI event sets over hpm sets.
 *
 * A PAPI set owns one hpm set. The hpm set holds each native event once;
 * the PAPI set lists what the caller added (presets or natives), each with
 * the positions of its native terms, so presets that share a native (BR_CN
 * and BR_PRC = BR_CN - BR_MSP) share a counter. Values are computed from
 * the native counts at every read, in the order the events were added.
 *
 * Options that hpm accepts only for a set with a component (domain,
 * multiplexing, attach, inherit) are remembered and pushed to the hpm set
 * when its first event arrives.
 */
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "papi_internal.h"
#include "papi_eventset.h"
#include "papi_own_reader.h"

/* ------------------------------------------------------------ handle table */

/* Sets live in fixed chunks that never move (nor are freed), so the
 * overflow handler can look a handle up with atomic loads alone. */
#define CHUNK 64
#define MAX_CHUNKS 1024
/* The first chunk is static: a look-up of its handles (most programs'
 * all) loads the slot alone, not the chunk's pointer first (on the
 * virtual PMU each load is a modeled data access of the program). */
static struct papi_eventset *first_chunk[CHUNK];
static struct papi_eventset **chunks[MAX_CHUNKS] = {first_chunk};
static int n_handles; /* handles 0 .. n_handles-1 have been issued */

#define OWN_RUNNING_MAX 8
/* The thread's state, one thread-local object (one TLS offset to load in
 * PAPI_read). initial-exec: a dynamic TLS access could allocate in signal
 * context.
 * in_overflow_handler: set while the user's overflow handler runs on this
 * thread (the trampoline): the interrupted code may hold papi_mutex or the
 * set's mutex, so PAPI calls made from the handler take neither (libhpm
 * does the same).
 * own_running: the sets this thread started on a thread-bound component
 * (below, "own_running"); generation: PAPI_shutdown frees every set,
 * running ones too: entries of an earlier generation are stale. */
static _Thread_local struct {
    int in_overflow_handler;
    struct {
        unsigned generation;
        int n;
        struct papi_eventset *set[OWN_RUNNING_MAX];
    } own_running;
} tls __attribute__((tls_model("initial-exec"), aligned(32))); /* one line: the
                                                                   flag, own_running's head */

static inline __attribute__((always_inline)) struct papi_eventset *slot_load(int handle)
{
    struct papi_eventset **c;
    if (handle < CHUNK)
        return __atomic_load_n(&first_chunk[handle], __ATOMIC_ACQUIRE);
    c = __atomic_load_n(&chunks[handle / CHUNK], __ATOMIC_ACQUIRE);
    return c ? __atomic_load_n(&c[handle % CHUNK], __ATOMIC_ACQUIRE) : NULL;
}

/* Sets destroyed, kept for reuse (papi_internal.h: never freed); papi_mutex. */
_Static_assert(offsetof(struct papi_eventset, mu) == 0, "the lock comes first");
static struct papi_eventset *free_sets;

/* Look a handle up and lock its set, without papi_mutex: set structures
 * are never freed, so the lock of whatever the slot held is safe to take,
 * and once it is held the set is the handle's exactly when the slot still
 * holds it (destroy takes it out of the table under the set's lock). NULL
 * when invalid. */
static __attribute__((noinline)) struct papi_eventset *eventset_get_slow(int handle)
{
    struct papi_eventset *es;
    if (tls.in_overflow_handler)
        return slot_load(handle);
    while ((es = slot_load(handle)) != NULL) {
        papi_lock(&es->mu);
        if (slot_load(handle) == es)
            return es;
        papi_unlock(&es->mu); /* destroyed meanwhile, maybe reused: again */
    }
    return NULL;
}

struct papi_eventset *papi_eventset_get(int handle)
{
    struct papi_eventset *es;
    int free_lock = 0;
    if (handle < 0 || handle >= CHUNK * MAX_CHUNKS)
        return NULL;
    if (tls.in_overflow_handler) /* first: the slot's look-up then follows the lock's */
        return eventset_get_slow(handle);
    /* the common case without a frame: a free lock, the slot unchanged */
    es = slot_load(handle);
    if (es && __atomic_compare_exchange_n(&es->mu.w, &free_lock, 1, 0, __ATOMIC_ACQUIRE,
                                          __ATOMIC_RELAXED)) {
        if (slot_load(handle) == es)
            return es;
        papi_unlock(&es->mu);
    }
    return eventset_get_slow(handle);
}

void papi_eventset_put(struct papi_eventset *es)
{
    if (es && !tls.in_overflow_handler)
        papi_unlock(&es->mu);
}

/* For __attribute__((cleanup)): every return of a public call unlocks. */
static void eventset_put_at_exit(struct papi_eventset **es)
{
    papi_eventset_put(*es);
}

/* Lowest free handle, as PAPI reuses handles. -1 when full. */
static int handle_alloc(struct papi_eventset *es)
{
    for (int h = 0; h < CHUNK * MAX_CHUNKS; h++) {
        struct papi_eventset ***c = &chunks[h / CHUNK];
        if (!*c) {
            struct papi_eventset **fresh = calloc(CHUNK, sizeof **c);
            if (!fresh)
                return -1;
            __atomic_store_n(c, fresh, __ATOMIC_RELEASE);
        }
        if (!(*c)[h % CHUNK]) {
            es->handle = h;
            __atomic_store_n(&(*c)[h % CHUNK], es, __ATOMIC_RELEASE);
            if (h >= n_handles)
                n_handles = h + 1;
            return h;
        }
    }
    return -1;
}

/* Called with papi_mutex held. */
static void handle_free(int h)
{
    __atomic_store_n(&chunks[h / CHUNK][h % CHUNK], NULL, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------ overflow registry */

/* The overflow handler runs in signal context and must find the PAPI set
 * of an hpm set without locks: a small fixed table of sets with overflow
 * enabled, read with relaxed atomics. */
#define MAX_OVERFLOW_SETS 64
static struct {
    int hpm_set;
    struct papi_eventset *es;
} overflow_sets[MAX_OVERFLOW_SETS];

static int overflow_register(struct papi_eventset *es)
{
    for (int i = 0; i < MAX_OVERFLOW_SETS; i++)
        if (__atomic_load_n(&overflow_sets[i].es, __ATOMIC_ACQUIRE) == es)
            return PAPI_OK;
    for (int i = 0; i < MAX_OVERFLOW_SETS; i++) {
        struct papi_eventset *none = NULL;
        overflow_sets[i].hpm_set = es->hpm_set;
        if (__atomic_compare_exchange_n(&overflow_sets[i].es, &none, es, 0, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED))
            return PAPI_OK;
    }
    return PAPI_ENOMEM;
}

static void overflow_unregister(struct papi_eventset *es)
{
    for (int i = 0; i < MAX_OVERFLOW_SETS; i++)
        if (__atomic_load_n(&overflow_sets[i].es, __ATOMIC_ACQUIRE) == es)
            __atomic_store_n(&overflow_sets[i].es, NULL, __ATOMIC_RELEASE);
}

/* hpm's handler -> the PAPI handler: hpm reports native positions, PAPI
 * programs expect one bit per event of their set. */
static void overflow_trampoline(int set, void *pc, uint64_t mask, void *ucontext)
{
    for (int i = 0; i < MAX_OVERFLOW_SETS; i++) {
        struct papi_eventset *es = __atomic_load_n(&overflow_sets[i].es, __ATOMIC_ACQUIRE);
        if (!es || es->hpm_set != set)
            continue;
        /* libhpm's bit of native position p is p % 64, PAPI's of event k
         * is k % 64; each layer lets one threshold have a bit */
        long long vector = 0;
        for (int k = 0; k < es->nev; k++)
            if (es->ev[k].threshold > 0 && (mask >> (es->ev[k].pos[0] % 64)) & 1)
                vector |= 1LL << (k % 64);
        PAPI_overflow_handler_t h = es->overflow_handler;
        if (h && vector) {
            /* the handler may call PAPI on its set: no locks (see above) */
            int nested = tls.in_overflow_handler;
            tls.in_overflow_handler = 1;
            h(es->handle, pc, vector, ucontext);
            tls.in_overflow_handler = nested;
        }
        return;
    }
}

/* ------------------------------------------------------------ helpers */

static int grow(void **arr, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return 0;
    int ncap = *cap ? *cap * 2 : 8;
    while (ncap < need)
        ncap *= 2;
    void *p = realloc(*arr, (size_t)ncap * elem);
    if (!p)
        return -1;
    *arr = p;
    *cap = ncap;
    return 0;
}

/* Native arrays are sized together: nat, nat_ref, stopped, scratch. */
static int grow_natives(struct papi_eventset *es, int need)
{
    if (need <= es->cap_nat)
        return 0;
    int ncap = es->cap_nat ? es->cap_nat * 2 : 8;
    while (ncap < need)
        ncap *= 2;
    hpm_event_t *nat = realloc(es->nat, (size_t)ncap * sizeof *nat);
    if (!nat)
        return -1;
    es->nat = nat;
    int *ref = realloc(es->nat_ref, (size_t)ncap * sizeof *ref);
    if (!ref)
        return -1;
    es->nat_ref = ref;
    int64_t *st = realloc(es->stopped, (size_t)ncap * sizeof *st);
    if (!st)
        return -1;
    es->stopped = st;
    int64_t *sc = realloc(es->scratch, (size_t)ncap * sizeof *sc);
    if (!sc)
        return -1;
    es->scratch = sc;
    es->cap_nat = ncap;
    return 0;
}

static int find_event(const struct papi_eventset *es, int code)
{
    for (int i = 0; i < es->nev; i++)
        if (es->ev[i].code == code)
            return i;
    return -1;
}

static int find_native(const struct papi_eventset *es, hpm_event_t e)
{
    for (int i = 0; i < es->nnat; i++)
        if (es->nat[i] == e)
            return i;
    return -1;
}

/* hpm domain bits for a PAPI domain on component cidx; 0 when none of the
 * requested contexts can be counted there. */
static unsigned hpm_domain_of(int domain, int cidx)
{
    unsigned want = 0;
    if (domain & PAPI_DOM_USER)
        want |= HPM_DOMAIN_USER;
    if (domain & PAPI_DOM_KERNEL)
        want |= HPM_DOMAIN_KERNEL;
    if (cidx >= 0 && cidx < papi_lib.ncomp)
        want &= papi_lib.comp[cidx].hpm.domains;
    return want;
}

static int comp_unlimited(int cidx)
{
    return cidx >= 0 && cidx < papi_lib.ncomp && papi_lib.comp[cidx].hpm.num_counters == 0;
}

/* Push the remembered options to the hpm set (it has a component now). */
static int es_apply(struct papi_eventset *es)
{
    if (es->nnat == 0)
        return PAPI_OK;
    int rc;
    unsigned dom = hpm_domain_of(es->domain, es->cidx);
    if (dom && (rc = hpm_set_domain(es->hpm_set, dom)) < 0)
        return papi_from_hpm(rc, OP_OPTION);
    if (es->multiplex && !comp_unlimited(es->cidx) &&
        (rc = hpm_set_multiplex(es->hpm_set, 1)) < 0)
        return papi_from_hpm(rc, OP_OPTION);
    if (es->attached && (rc = hpm_set_attach(es->hpm_set, (pid_t)es->attach_tid)) < 0)
        return papi_from_hpm(rc, OP_OPTION);
    if (es->cpu_attached && (rc = hpm_set_cpu(es->hpm_set, (int)es->cpu_num)) < 0)
        return papi_from_hpm(rc, OP_OPTION);
    if (es->inherit && (rc = hpm_set_inherit(es->hpm_set, 1)) < 0)
        return papi_from_hpm(rc, OP_OPTION);
    return PAPI_OK;
}

/* The value of a derived event that is not a sum: its program run on a
 * copy of its terms (papi_derive). */
static __attribute__((noinline)) long long compute_program(const struct papi_event *ev,
                                                          const int64_t *nat)
{
    long long t[PAPI_MAX_INFO_TERMS];
    for (int k = 0; k < ev->nterms; k++)
        t[k] = nat[ev->pos[k]];
    return papi_derive(ev->derived, ev->formula, t, ev->nterms);
}

/* Whether ev is one native's count as it is (no derivation) */
static inline __attribute__((always_inline)) int ev_native(const struct papi_event *ev)
{
    return ev->derived == NOT_DERIVED && ev->nterms == 1;
}

/* The value of a derived event that is a sum (ev->linear): papi_derive's
 * value, in its wrapping arithmetic */
static inline __attribute__((always_inline)) long long compute_linear(const struct papi_event *ev,
                                                                      const int64_t *nat)
{
    uint64_t v = (uint64_t)ev->constant;
    for (int k = 0; k < ev->nterms; k++)
        v += (uint64_t)ev->coef[k] * (uint64_t)nat[ev->pos[k]];
    return (long long)v;
}

/* compute of a set with an event that needs its program, from event i on */
static __attribute__((noinline)) void compute_from(const struct papi_eventset *es,
                                                   const int64_t *nat, long long *out, int i)
{
    for (; i < es->nev; i++) {
        const struct papi_event *ev = &es->ev[i];
        if (ev_native(ev))
            out[i] = nat[ev->pos[0]];
        else
            out[i] = ev->linear ? compute_linear(ev, nat) : compute_program(ev, nat);
    }
}

/* Values of every event from native counts. Without a call in its loop
 * (an event that needs its program goes on in compute_from, a tail call),
 * so that it keeps no register of the caller's: on the virtual PMU every
 * instruction of a read is added to the program's count. */
static void compute(const struct papi_eventset *es, const int64_t *nat, long long *out)
{
    for (int i = 0; i < es->nev; i++) {
        const struct papi_event *ev = &es->ev[i];
        if (ev_native(ev)) {
            out[i] = nat[ev->pos[0]]; /* the common case */
        } else if (ev->linear) {
            out[i] = compute_linear(ev, nat);
        } else {
            compute_from(es, nat, out, i);
            return;
        }
    }
}

static void compute_stopped(struct papi_eventset *es, long long *out)
{
    compute(es, es->stopped, out);
}

/* Zero the counts kept from the last stop. A set that never had an event
 * has no arrays yet (stopped is NULL, and memset may not be given NULL even
 * for 0 bytes). */
static void clear_stopped(struct papi_eventset *es)
{
    if (es->nnat > 0)
        memset(es->stopped, 0, (size_t)es->nnat * sizeof *es->stopped);
}

/* A set marked running whose hpm set is stopped was stopped by libhpm when
 * the thread that started it exited (the thread's counts are frozen there):
 * it is a stopped set now, which any thread may read, start or clean up. */
static __attribute__((noinline)) void sync_stopped_by_exit_slow(struct papi_eventset *es)
{
    if (tls.in_overflow_handler || hpm_set_state(es->hpm_set) != HPM_SET_STOPPED)
        return;
    es->running = 0;
    if (hpm_read(es->hpm_set, es->stopped) != HPM_OK)
        clear_stopped(es);
}

static inline void sync_stopped_by_exit(struct papi_eventset *es)
{
    if (es->running) /* a stopped set has nothing to sync: no call */
        sync_stopped_by_exit_slow(es);
}

/* Common prologue: initialised library, valid handle; the set is locked
 * until the function returns. GET_SET_NOSYNC is for the counting calls that
 * read or reset through libhpm, which answers for a set stopped at its
 * thread's exit itself (they skip the state query). */
#define GET_SET_NOSYNC(es, handle)                                                   \
    if (!papi_inited())                                                              \
        return papi_ret(PAPI_ENOINIT);                                               \
    struct papi_eventset *es __attribute__((cleanup(eventset_put_at_exit))) =        \
        papi_eventset_get(handle);                                                   \
    if (!es)                                                                         \
    return papi_ret(PAPI_ENOEVST)
#define GET_SET(es, handle)                                                          \
    GET_SET_NOSYNC(es, handle);                                                      \
    sync_stopped_by_exit(es)

/* ------------------------------------------------------------ create / destroy */

int PAPI_create_eventset(int *EventSet)
{
    if (!papi_inited())
        return papi_ret(PAPI_ENOINIT);
    if (!EventSet)
        return papi_ret(PAPI_EINVAL);
    /* PAPI insists that the handle variable was initialised to PAPI_NULL,
     * catching programs that create twice into the same variable. */
    if (*EventSet != PAPI_NULL)
        return papi_ret(PAPI_EINVAL);
    if (!papi_thread_self())
        return papi_ret(PAPI_ENOMEM);
    int hpm_set, rc = hpm_set_create(&hpm_set);
    if (rc < 0)
        return papi_ret(papi_from_hpm(rc, OP_ANY));
    pthread_mutex_lock(&papi_mutex);
    struct papi_eventset *es = free_sets;
    if (es) {
        free_sets = es->next_free;
    } else if ((es = aligned_alloc(64, (sizeof *es + 63) & ~(size_t)63)) == NULL) {
        pthread_mutex_unlock(&papi_mutex);
        hpm_set_destroy(hpm_set);
        return papi_ret(PAPI_ENOMEM);
    } else {
        es->mu.w = 0; /* a new set's lock is free; a kept set's stays as it is */
    }
    /* Every field but the lock is set before the set is in the table (the
     * release store of handle_alloc): a caller that took a kept set's lock
     * in papi_eventset_get reads nothing of it until the slot names it.
     * The lock is a plain one: no call on a set calls another on it while
     * it holds the lock (the overflow handler's calls take none). */
    memset((char *)es + sizeof es->mu, 0, sizeof *es - sizeof es->mu); /* not the lock */
    es->hpm_set = hpm_set;
    es->cidx = -1;
    es->domain = papi_lib.ncomp ? papi_lib.comp[0].default_domain : PAPI_DOM_USER;
    es->granularity = PAPI_GRN_THR;
    es->handle = -1;
    int h = handle_alloc(es);
    if (h < 0) {
        es->next_free = free_sets;
        free_sets = es;
        pthread_mutex_unlock(&papi_mutex);
        hpm_set_destroy(hpm_set);
        return papi_ret(PAPI_ENOMEM);
    }
    pthread_mutex_unlock(&papi_mutex);
    *EventSet = h;
    return PAPI_OK;
}

/* The events' compiled postfix programs, freed. */
static void free_formulas(struct papi_eventset *es)
{
    for (int i = 0; i < es->nev; i++) {
        free(es->ev[i].formula);
        es->ev[i].formula = NULL;
    }
}

/* A set no handle names any more: its arrays freed, the structure kept. */
static void es_free(struct papi_eventset *es)
{
    overflow_unregister(es);
    free_formulas(es);
    free(es->ev);
    free(es->nat);
    free(es->nat_ref);
    free(es->stopped);
    free(es->scratch);
    pthread_mutex_lock(&papi_mutex);
    es->next_free = free_sets;
    free_sets = es;
    pthread_mutex_unlock(&papi_mutex);
}

int PAPI_destroy_eventset(int *EventSet)
{
    if (!papi_inited())
        return papi_ret(PAPI_ENOINIT);
    if (!EventSet)
        return papi_ret(PAPI_EINVAL);
    int handle = *EventSet;
    if (handle < 0 || handle >= CHUNK * MAX_CHUNKS)
        return papi_ret(PAPI_ENOEVST);
    /* Both locks, as in papi_eventset_get: once the handle is gone from the
     * table with them held, nobody else can reach the set. */
    pthread_mutex_lock(&papi_mutex);
    struct papi_eventset *es = slot_load(handle);
    if (!es) {
        pthread_mutex_unlock(&papi_mutex);
        return papi_ret(PAPI_ENOEVST);
    }
    papi_lock(&es->mu);
    sync_stopped_by_exit(es);
    int rc = es->running ? PAPI_EISRUN : es->nev > 0 ? PAPI_EINVAL /* PAPI: clean it up first */
                                                     : PAPI_OK;
    if (rc == PAPI_OK)
        handle_free(handle);
    papi_unlock(&es->mu);
    pthread_mutex_unlock(&papi_mutex);
    if (rc != PAPI_OK)
        return papi_ret(rc);
    hpm_set_destroy(es->hpm_set);
    es_free(es);
    *EventSet = PAPI_NULL;
    return PAPI_OK;
}

/* Everything out, options back to their defaults; the component stays. */
int PAPI_cleanup_eventset(int EventSet)
{
    GET_SET(es, EventSet);
    if (es->running)
        return papi_ret(PAPI_EISRUN);
    int fresh;
    int rc = hpm_set_create(&fresh);
    if (rc < 0)
        return papi_ret(papi_from_hpm(rc, OP_ANY));
    overflow_unregister(es);
    hpm_set_destroy(es->hpm_set);
    es->hpm_set = fresh;
    es->pin = NULL;
    es->shape_known = 0;
    free_formulas(es);
    es->nev = 0;
    es->nnat = 0;
    es->multiplex = 0;
    es->attached = 0;
    es->attach_tid = 0;
    es->cpu_attached = 0;
    es->cpu_num = 0;
    es->inherit = 0;
    es->overflowing = 0;
    es->overflow_handler = NULL;
    return PAPI_OK;
}

void papi_eventsets_destroy_all(void)
{
    for (int h = 0; h < n_handles; h++) {
        pthread_mutex_lock(&papi_mutex);
        struct papi_eventset *es = slot_load(h);
        if (es) {
            /* wait for a caller still in the set, then take it away */
            papi_lock(&es->mu);
            handle_free(h);
            papi_unlock(&es->mu);
        }
        pthread_mutex_unlock(&papi_mutex);
        if (!es)
            continue;
        if (es->running)
            hpm_stop(es->hpm_set, NULL);
        hpm_set_destroy(es->hpm_set);
        es_free(es);
    }
    n_handles = 0;
}

/* ------------------------------------------------------------ components */

int PAPI_assign_eventset_component(int EventSet, int cidx)
{
    GET_SET(es, EventSet);
    if (cidx < 0 || cidx >= papi_lib.ncomp)
        return papi_ret(PAPI_ENOCMP);
    if (es->cidx == cidx)
        return PAPI_OK;
    if (es->nev > 0)
        return papi_ret(PAPI_EINVAL);
    es->cidx = cidx;
    es->shape_known = 0;
    if (!es->domain_set)
        es->domain = papi_lib.comp[cidx].default_domain;
    es->granularity = papi_lib.comp[cidx].default_granularity;
    return PAPI_OK;
}

int PAPI_get_eventset_component(int EventSet)
{
    GET_SET(es, EventSet);
    if (es->cidx < 0)
        return papi_ret(PAPI_ENOCMP);
    return es->cidx;
}

/* ------------------------------------------------------------ adding and removing */

/* What an event code counts: its native terms and derivation. */
struct resolved {
    int cidx;
    int nterms;
    hpm_event_t term[PAPI_MAX_INFO_TERMS];
    enum papi_derived derived;
    const char *postfix;
};

static int resolve_code(int code, struct resolved *r)
{
    if (IS_PRESET(code)) {
        if (!papi_code_is_preset(code))
            return PAPI_ENOTPRESET;
        const struct papi_preset *p = &papi_presets[code & PAPI_PRESET_AND_MASK];
        if (!p->available)
            return PAPI_ENOEVNT;
        r->cidx = p->cidx;
        r->nterms = p->nterms;
        memcpy(r->term, p->term, sizeof r->term);
        r->derived = p->derived;
        r->postfix = p->postfix;
        return PAPI_OK;
    }
    if (!IS_NATIVE(code))
        return PAPI_ENOEVNT;
    hpm_event_t e = papi_code_native(code);
    int cidx = HPM_EVENT_COMPONENT(e);
    if (cidx >= papi_lib.ncomp)
        return PAPI_ENOEVNT;
    struct hpm_event_info info;
    if (hpm_event_info(e, &info) != HPM_OK)
        return PAPI_ENOEVNT;
    if (!papi_component_usable(cidx))
        return PAPI_ECMP_DISABLED;
    r->cidx = cidx;
    r->nterms = 1;
    r->term[0] = e;
    r->derived = NOT_DERIVED;
    r->postfix = NULL;
    return PAPI_OK;
}

/* Drop one reference to native position p; remove it from the hpm set
 * when unused, moving later positions down as hpm does. */
static void native_unref(struct papi_eventset *es, int p)
{
    if (--es->nat_ref[p] > 0)
        return;
    hpm_set_remove(es->hpm_set, es->nat[p]);
    for (int i = p; i + 1 < es->nnat; i++) {
        es->nat[i] = es->nat[i + 1];
        es->nat_ref[i] = es->nat_ref[i + 1];
        es->stopped[i] = es->stopped[i + 1];
    }
    es->nnat--;
    for (int i = 0; i < es->nev; i++)
        for (int k = 0; k < es->ev[i].nterms; k++)
            if (es->ev[i].pos[k] > p)
                es->ev[i].pos[k]--;
}

static int add_event(struct papi_eventset *es, int code)
{
    if (es->running)
        return PAPI_EISRUN;
    es->shape_known = 0;
    struct resolved r;
    int rc = resolve_code(code, &r);
    if (rc != PAPI_OK)
        return rc;
    if (find_event(es, code) >= 0)
        return PAPI_ECNFLCT; /* the same event twice */
    if (es->cidx >= 0 && es->cidx != r.cidx)
        return PAPI_EINVAL; /* one component per set, as in PAPI */
    if (grow((void **)&es->ev, &es->cap_ev, es->nev + 1, sizeof *es->ev) ||
        grow_natives(es, es->nnat + r.nterms))
        return PAPI_ENOMEM;

    int was_empty = es->nnat == 0;
    struct papi_event *ev = &es->ev[es->nev];
    memset(ev, 0, sizeof *ev);
    ev->code = code;
    ev->derived = r.derived;
    /* compiled here, once, rather than on every PAPI_read */
    if (r.derived == DERIVED_POSTFIX && !(ev->formula = papi_postfix_compile(r.postfix)))
        return PAPI_ENOMEM;
    for (int k = 0; k < r.nterms; k++) {
        int p = find_native(es, r.term[k]);
        if (p < 0) {
            int pos = hpm_set_add(es->hpm_set, r.term[k]);
            if (pos < 0) {
                /* Undo this event's earlier terms, last first: new natives
                 * were appended, so removing them shifts nothing else. */
                for (int j = k - 1; j >= 0; j--)
                    native_unref(es, ev->pos[j]);
                free(ev->formula);
                ev->formula = NULL;
                return papi_from_hpm(pos, OP_ADD);
            }
            p = es->nnat++;
            es->nat[p] = r.term[k];
            es->nat_ref[p] = 0;
            es->stopped[p] = 0;
        }
        es->nat_ref[p]++;
        ev->pos[k] = p;
        ev->nterms = k + 1;
    }
    ev->linear = papi_derive_linear(ev->derived, ev->formula, ev->nterms, ev->coef, &ev->constant);
    if (es->cidx < 0 && !es->domain_set)
        es->domain = papi_lib.comp[r.cidx].default_domain; /* the component's default */
    es->cidx = r.cidx;
    es->nev++;
    if (was_empty && (rc = es_apply(es)) != PAPI_OK) {
        es->nev--;
        for (int j = ev->nterms - 1; j >= 0; j--)
            native_unref(es, ev->pos[j]);
        free(ev->formula);
        ev->formula = NULL;
        return rc;
    }
    return PAPI_OK;
}

int PAPI_add_event(int EventSet, int EventCode)
{
    GET_SET(es, EventSet);
    return papi_ret(add_event(es, EventCode));
}

/* The named and array forms of add and remove, over op. */
typedef int (*event_op)(struct papi_eventset *es, int code);

static int named_op(int EventSet, const char *EventName, event_op op)
{
    GET_SET(es, EventSet);
    if (!EventName)
        return papi_ret(PAPI_EINVAL);
    int code;
    int rc = PAPI_event_name_to_code(EventName, &code);
    if (rc != PAPI_OK)
        return rc;
    return papi_ret(op(es, code));
}

/* PAPI's convention for the array forms: on failure the return value is
 * the number of events processed before the failing one when positive,
 * else the error. */
static int array_op(int EventSet, const int *Events, int number, event_op op)
{
    GET_SET(es, EventSet);
    if (!Events || number <= 0)
        return papi_ret(PAPI_EINVAL);
    for (int i = 0; i < number; i++) {
        int rc = op(es, Events[i]);
        if (rc != PAPI_OK)
            return i > 0 ? i : papi_ret(rc);
    }
    return PAPI_OK;
}

int PAPI_add_named_event(int EventSet, const char *EventName)
{
    return named_op(EventSet, EventName, add_event);
}

int PAPI_add_events(int EventSet, int *Events, int number)
{
    return array_op(EventSet, Events, number, add_event);
}

static int remove_event(struct papi_eventset *es, int code)
{
    if (es->running)
        return PAPI_EISRUN;
    es->shape_known = 0;
    int i = find_event(es, code);
    if (i < 0)
        return PAPI_EINVAL;
    struct papi_event *ev = &es->ev[i];
    if (ev->threshold > 0) {
        hpm_set_overflow(es->hpm_set, es->nat[ev->pos[0]], 0, 0, NULL);
        ev->threshold = 0;
        if (--es->overflowing == 0)
            overflow_unregister(es);
    }
    struct papi_event gone = *ev;
    memmove(&es->ev[i], &es->ev[i + 1], (size_t)(es->nev - i - 1) * sizeof *ev);
    es->nev--;
    /* unref from the highest position down: positions shift on removal */
    for (int a = 0; a < gone.nterms; a++)
        for (int b = a + 1; b < gone.nterms; b++)
            if (gone.pos[b] > gone.pos[a]) {
                int t = gone.pos[a];
                gone.pos[a] = gone.pos[b];
                gone.pos[b] = t;
            }
    for (int k = 0; k < gone.nterms; k++)
        native_unref(es, gone.pos[k]);
    free(gone.formula);
    return PAPI_OK;
}

int PAPI_remove_event(int EventSet, int EventCode)
{
    GET_SET(es, EventSet);
    return papi_ret(remove_event(es, EventCode));
}

int PAPI_remove_named_event(int EventSet, const char *EventName)
{
    return named_op(EventSet, EventName, remove_event);
}

int PAPI_remove_events(int EventSet, int *Events, int number)
{
    return array_op(EventSet, Events, number, remove_event);
}

int PAPI_list_events(int EventSet, int *Events, int *number)
{
    GET_SET(es, EventSet);
    if (!number || *number < 0)
        return papi_ret(PAPI_EINVAL);
    if (!Events || *number == 0) {
        *number = es->nev;
        return PAPI_OK;
    }
    int n = *number < es->nev ? *number : es->nev;
    for (int i = 0; i < n; i++)
        Events[i] = es->ev[i].code;
    *number = n;
    return PAPI_OK;
}

int PAPI_num_events(int EventSet)
{
    GET_SET(es, EventSet);
    return es->nev;
}

int PAPI_state(int EventSet, int *status)
{
    GET_SET(es, EventSet);
    if (!status)
        return papi_ret(PAPI_EINVAL);
    int s = es->running ? PAPI_RUNNING : PAPI_STOPPED;
    if (es->multiplex)
        s |= PAPI_MULTIPLEXING;
    if (es->overflowing)
        s |= PAPI_OVERFLOWING;
    if (es->attached)
        s |= PAPI_ATTACHED;
    if (es->cpu_attached)
        s |= PAPI_CPU_ATTACHED;
    *status = s;
    return PAPI_OK;
}

/* ------------------------------------------------------------ counting */

/* Event i is native i, underived (papi_eventset.direct). */
static int direct_of(const struct papi_eventset *es)
{
    if (es->nnat != es->nev)
        return 0;
    for (int i = 0; i < es->nev; i++)
        if (!ev_native(&es->ev[i]) || es->ev[i].pos[0] != i)
            return 0;
    return 1;
}

/* tls.own_running: the sets this thread started on a thread-bound component
 * (sim: only the starting thread may read, stop or reset one while it
 * runs, and PAPI destroys no running set), so that PAPI_read of one's own
 * running set takes no lock: a read on the virtual PMU adds its
 * instructions to the program's own count. Set and cleared by the owning
 * thread only. */
static int own_ok_of(const struct papi_eventset *es)
{
    return !es->attached && !es->cpu_attached && es->cidx >= 0 && es->cidx < papi_lib.ncomp &&
           (papi_lib.comp[es->cidx].hpm.flags & HPM_COMP_THREAD_BOUND);
}

static void own_running_add(struct papi_eventset *es)
{
    unsigned g = __atomic_load_n(&papi_lib.generation, __ATOMIC_ACQUIRE);
    if (!es->own_ok)
        return;
    if (tls.own_running.generation != g) {
        tls.own_running.n = 0;
        tls.own_running.generation = g;
    }
    if (tls.own_running.n < OWN_RUNNING_MAX)
        tls.own_running.set[tls.own_running.n++] = es;
}

static void own_running_remove(struct papi_eventset *es)
{
    for (int i = 0; i < tls.own_running.n; i++)
        if (tls.own_running.set[i] == es) {
            tls.own_running.set[i] = tls.own_running.set[--tls.own_running.n];
            return;
        }
}

/* own_running_find past the first entry */
static __attribute__((noinline)) struct papi_eventset *own_running_find_rest(int handle)
{
    for (int i = 1; i < tls.own_running.n; i++)
        if (tls.own_running.set[i]->handle == handle)
            return tls.own_running.set[i];
    return NULL;
}

/* This thread's running set of that handle, or NULL; NULL too in the overflow
 * handler (the callers' own test, here in the same branch as the
 * generation's). The first entry is tested inline: the common case is a
 * thread with one running set, read in a loop. */
static inline __attribute__((always_inline)) struct papi_eventset *own_running_find(int handle)
{
    struct papi_eventset *first;
    if (((tls.own_running.generation ^ __atomic_load_n(&papi_lib.generation, __ATOMIC_ACQUIRE)) |
         (unsigned)tls.in_overflow_handler) != 0 ||
        tls.own_running.n <= 0)
        return NULL;
    if ((first = tls.own_running.set[0])->handle == handle)
        return first;
    return own_running_find_rest(handle);
}

/* PAPI_start's checks and one-time work (pin, shape) for a set that is
 * running, empty, or not yet pinned or shaped: PAPI_OK to go on */
static __attribute__((noinline)) int start_prepare(struct papi_eventset *es)
{
    int rc;
    if (es->running)
        return PAPI_EISRUN;
    if (es->nev == 0)
        return PAPI_EINVAL;
    if (!es->pin && (rc = hpm_set_pin(es->hpm_set, &es->pin)) < 0)
        return papi_from_hpm(rc, OP_START);
    /* before the start: once the counters run, every instruction of the
     * library until the stop's read is in the program's count */
    if (!es->shape_known) {
        es->direct = direct_of(es);
        es->own_ok = own_ok_of(es);
        es->shape_known = 1;
    }
    return PAPI_OK;
}

int PAPI_start(int EventSet)
{
    GET_SET(es, EventSet);
    int rc;
    /* a stopped set started before in one branch (each branch of the
     * program is modeled on the virtual PMU): a known shape means events
     * and a pin (start_prepare sets it last; whatever changes them
     * clears it) */
    if (((unsigned)es->running | (es->shape_known ^ 1u)) != 0 &&
        (rc = start_prepare(es)) != PAPI_OK)
        return papi_ret(rc);
    es->reader = NULL; /* resolved at the first read: not counted between start and stop */
    es->reader_ll = NULL;
    es->reader_tried = 0;
    es->read_reset = NULL; /* resolved at the first accum or reset, as the reader */
    es->reset = NULL;
    es->resetters_tried = 0;
    own_running_add(es);
    /* PAPI's rule, kept by libhpm here (alone): one running set per
     * component per thread (libhpm lets the virtual PMU's sets share its
     * counters). libhpm leaves a set attached to a thread or a CPU out of
     * it: such a set counts no thread of ours. */
    rc = hpm_start_pinned(es->pin, 1);
    if (rc < 0) {
        own_running_remove(es);
        return papi_ret(papi_from_hpm(rc, OP_START));
    }
    /* es->stopped is not cleared: every way a running set stops writes it
     * (stop_locked, sync_stopped_by_exit), and a running set reads the
     * counters, not it */
    es->running = 1;
    return PAPI_OK;
}

/* PAPI_stop of a set whose lock the caller holds (inline in both of
 * PAPI_stop's paths: no call, no registers saved twice). */
static inline __attribute__((always_inline)) int stop_locked(struct papi_eventset *es,
                                                             long long *values)
{
    if (!es->running)
        return papi_ret(PAPI_ENOTRUN);
    /* libhpm writes the kept counts only when it stopped the set */
    int rc = hpm_stop_pinned(es->pin, es->stopped);
    if (rc < 0) {
        if (rc == HPM_ENOTRUNNING) {
            /* its thread exited and libhpm stopped it: stopped, as PAPI says */
            sync_stopped_by_exit(es);
            return papi_ret(PAPI_ENOTRUN);
        }
        return papi_ret(papi_from_hpm(rc, OP_STOP));
    }
    /* its reader stays: only a running set on own_running is read through
     * it, and PAPI_start resolves it again */
    own_running_remove(es);
    es->running = 0;
    if (es->direct & (values != NULL)) { /* one branch */
        /* events are the natives in order; two at a time, one 16-byte
         * load and store each (half the accesses the models see) */
        int i, n = es->nnat;
        for (i = 0; i + 1 < n; i += 2)
            memcpy(values + i, es->stopped + i, 2 * sizeof *values);
        if (i < n)
            values[i] = es->stopped[i];
        return PAPI_OK;
    }
    if (values)
        compute(es, es->stopped, values);
    return PAPI_OK;
}

int PAPI_stop(int EventSet, long long *values)
{
    struct papi_eventset *own;
    /* This thread's own running set (own_running): it cannot be destroyed
     * while it runs, so its lock is taken without papi_mutex's look-up. */
    if ((own = own_running_find(EventSet)) != NULL) {
        papi_lock(&own->mu);
        int rc = stop_locked(own, values);
        papi_unlock(&own->mu);
        return rc;
    }
    GET_SET_NOSYNC(es, EventSet);
    return stop_locked(es, values);
}

/* PAPI_read of this thread's own running set (no lock: see own_running):
 * read_own, read_own_scratch, read_failed. */
static __attribute__((noinline, cold)) int read_failed(int rc)
{
    return papi_ret(papi_from_hpm(rc, OP_READ));
}

/* The reader of a set of natives and sums without a constant (most
 * derived presets) that writes the events' values itself: the component
 * sums them in its read (sim: the tool, in the read's request), where
 * compute would run 50 instructions more a read, each added to the
 * program's count. HPM_OK, or the set is read through scratch. */
static __attribute__((noinline)) int sums_reader(struct papi_eventset *es)
{
    struct hpm_sum_term t[HPM_SUM_TERMS_MAX];
    int i, k, n = 0;
    for (i = 0; i < es->nev; i++) {
        const struct papi_event *ev = &es->ev[i];
        int native = ev_native(ev);
        if (!native && (!ev->linear || ev->constant != 0))
            return HPM_ENOTSUP;
        if (n + ev->nterms > HPM_SUM_TERMS_MAX)
            return HPM_ENOTSUP;
        for (k = 0; k < ev->nterms; k++, n++) {
            t[n].pos = ev->pos[k];
            t[n].out = i;
            t[n].coef = native ? 1 : ev->coef[k];
        }
    }
    return hpm_read_direct_sums_ll(es->hpm_set, t, n, es->nev, &es->reader_ll, &es->reader_ctx);
}

/* read_own through scratch: the first read, sets that are not direct,
 * components that write int64_t only */
static __attribute__((noinline)) int read_own_scratch(struct papi_eventset *own,
                                                      long long *values)
{
    int rc;
    if (own->reader) {
        rc = own->reader(own->reader_ctx, own->scratch);
    } else {
        rc = hpm_read(own->hpm_set, own->scratch);
        if (!own->reader_tried) {
            own->reader_tried = 1;
            /* for the next reads: straight into values where the
             * component writes long long (a direct set's counts, or the
             * sums), else through scratch */
            if ((own->direct ? hpm_read_direct_ll(own->hpm_set, &own->reader_ll, &own->reader_ctx)
                             : sums_reader(own)) != HPM_OK &&
                hpm_read_direct(own->hpm_set, &own->reader, &own->reader_ctx) != HPM_OK)
                own->reader = NULL;
        }
    }
    if (rc < 0)
        return read_failed(rc);
    if (own->direct)
        for (int i = 0; i < own->nev; i++)
            values[i] = own->scratch[i];
    else
        compute(own, own->scratch, values);
    return PAPI_OK;
}

/* The common case on the virtual PMU (a direct set, hpm_read_direct_ll):
 * straight into values, nothing kept across the call, no register saved. */
static __attribute__((noinline)) int read_own(struct papi_eventset *own, long long *values)
{
    int rc;
    if (!own->reader_ll)
        return read_own_scratch(own, values);
    rc = own->reader_ll(own->reader_ctx, values);
    if (rc < 0)
        return read_failed(rc);
    return PAPI_OK;
}

static __attribute__((noinline)) int read_locked(int EventSet, long long *values)
{
    GET_SET_NOSYNC(es, EventSet);
    if (!values)
        return papi_ret(PAPI_EINVAL);
    if (!es->running) {
        /* a stopped set reads as it was when stopped */
        compute_stopped(es, values);
        return PAPI_OK;
    }
    /* pinned at its start: libhpm's look-up and lock skipped (perf sets of
     * the high-level API's regions, read at every begin and end) */
    int rc = es->pin ? hpm_read_pinned(es->pin, es->scratch) : hpm_read(es->hpm_set, es->scratch);
    if (rc < 0)
        return papi_ret(papi_from_hpm(rc, OP_READ));
    if (es->direct) /* known since the start: the natives in order */
        for (int i = 0; i < es->nev; i++)
            values[i] = es->scratch[i];
    else
        compute(es, es->scratch, values);
    return PAPI_OK;
}

int PAPI_read(int EventSet, long long *values)
{
    /* two tail calls, so that the common case (a program reading the set
     * it runs: on the virtual PMU every instruction here is added to its
     * count) saves no register first */
    struct papi_eventset *own;
    if (values && (own = own_running_find(EventSet)) != NULL)
        return read_own(own, values);
    return read_locked(EventSet, values);
}

int papi_own_reader(int EventSet, struct papi_own_reader *r)
{
    hpm_reader_t fn;
    hpm_reader_ll_t fn_ll;
    void *ctx;
    if (!r || tls.in_overflow_handler || !papi_inited())
        return PAPI_EINVAL;
    struct papi_eventset *es __attribute__((cleanup(eventset_put_at_exit))) =
        papi_eventset_get(EventSet);
    /* es->direct is known since the start; libhpm checks that this
     * thread runs the set */
    if (!es || !es->running || !es->pin || !es->shape_known || !es->direct ||
        hpm_pinned_reader(es->pin, &fn, &fn_ll, &ctx) != HPM_OK)
        return PAPI_EINVAL;
    r->read_ll = fn_ll;
    r->read = fn;
    r->ctx = ctx;
    r->gen = &papi_lib.generation;
    r->generation = __atomic_load_n(&papi_lib.generation, __ATOMIC_ACQUIRE);
    return PAPI_OK;
}

int PAPI_read_ts(int EventSet, long long *values, long long *cyc)
{
    if (!cyc)
        return papi_ret(PAPI_EINVAL);
    int rc = PAPI_read(EventSet, values);
    if (rc == PAPI_OK)
        *cyc = PAPI_get_real_cyc();
    return rc;
}

/* values[i] += the event values now[] of a set (its events' count) */
static __attribute__((noinline)) void accum_values(int nev, const long long *now,
                                                   long long *values)
{
    for (int i = 0; i < nev; i++)
        values[i] += now[i];
}

/* PAPI_accum of a stopped set: its kept counts as its events are now
 * (computed: es->direct may be older), then cleared */
static __attribute__((noinline)) void accum_stopped(struct papi_eventset *es, long long *values)
{
    long long now[es->nev ? es->nev : 1];
    compute_stopped(es, now);
    clear_stopped(es);
    accum_values(es->nev, now, values);
}

/* values[i] += event i of the native counts nat */
static __attribute__((noinline)) void accum_computed(const struct papi_eventset *es,
                                                     const int64_t *nat, long long *values)
{
    long long now[es->nev ? es->nev : 1];
    compute(es, nat, now);
    accum_values(es->nev, now, values);
}

/* The resetters of a running set pinned at its start, tried once after its
 * start: PAPI_accum and PAPI_reset of this thread's own running set then
 * skip the set's look-up and libhpm's checks. A refusal writes nothing:
 * they stay NULL, as PAPI_start left them. */
static void resolve_resetters(struct papi_eventset *es)
{
    es->resetters_tried = 1;
    (void)hpm_pinned_resetters(es->pin, &es->read_reset, &es->reset, &es->resetters_ctx);
}

static __attribute__((noinline)) int accum_locked(int EventSet, long long *values)
{
    GET_SET_NOSYNC(es, EventSet);
    if (!values)
        return papi_ret(PAPI_EINVAL);
    if (!es->running) {
        accum_stopped(es, values);
        return PAPI_OK;
    }
    /* one reading for both the values and the restart (pinned at its
     * start: libhpm's look-up and lock skipped); es->direct is known
     * since the start */
    int rc = hpm_read_reset_pinned(es->pin, es->scratch);
    if (rc < 0)
        return papi_ret(papi_from_hpm(rc, OP_READ));
    if (!es->resetters_tried)
        resolve_resetters(es);
    if (es->direct) /* the natives in order: no computing */
        for (int i = 0; i < es->nev; i++)
            values[i] += es->scratch[i];
    else
        accum_computed(es, es->scratch, values);
    return PAPI_OK;
}

/* PAPI_accum of this thread's own running set (no lock, as read_own: only
 * this thread may reset it) */
static __attribute__((noinline)) int accum_own(struct papi_eventset *own, long long *values)
{
    int rc = own->read_reset(own->resetters_ctx, own->scratch);
    if (rc < 0)
        return read_failed(rc);
    if (own->direct)
        for (int i = 0; i < own->nev; i++)
            values[i] += own->scratch[i];
    else
        accum_computed(own, own->scratch, values);
    return PAPI_OK;
}

int PAPI_accum(int EventSet, long long *values)
{
    struct papi_eventset *own;
    if (values && (own = own_running_find(EventSet)) != NULL &&
        own->read_reset)
        return accum_own(own, values);
    return accum_locked(EventSet, values);
}

static __attribute__((noinline)) int reset_locked(int EventSet)
{
    GET_SET_NOSYNC(es, EventSet);
    /* a running set's counts are the counters' (every way it stops
     * writes es->stopped, sync_stopped_by_exit from libhpm's reset
     * counts): only a stopped one's kept counts are cleared here */
    if (!es->running) {
        clear_stopped(es);
        return PAPI_OK;
    }
    int rc = hpm_reset_pinned(es->pin);
    if (rc < 0)
        return papi_ret(papi_from_hpm(rc, OP_READ));
    if (!es->resetters_tried)
        resolve_resetters(es);
    return PAPI_OK;
}

int PAPI_reset(int EventSet)
{
    struct papi_eventset *own;
    int rc;
    if ((own = own_running_find(EventSet)) != NULL && own->reset) {
        if ((rc = own->reset(own->resetters_ctx)) < 0)
            return read_failed(rc);
        return PAPI_OK;
    }
    return reset_locked(EventSet);
}

/* hpm counters cannot be loaded with a value: as on PAPI components
 * without a write operation. */
int PAPI_write(int EventSet, long long *values)
{
    GET_SET(es, EventSet);
    if (!values)
        return papi_ret(PAPI_EINVAL);
    return papi_ret(PAPI_ECMP);
}

/* ------------------------------------------------------------ options on a set */

int papi_es_set_domain(int EventSet, int domain)
{
    GET_SET(es, EventSet);
    if (domain < PAPI_DOM_MIN || (domain & ~PAPI_DOM_ALL))
        return PAPI_EINVAL;
    if (es->running)
        return PAPI_EISRUN;
    int cidx = es->cidx >= 0 ? es->cidx : 0;
    if (cidx < papi_lib.ncomp && papi_lib.comp[cidx].hpm.enabled && !hpm_domain_of(domain, cidx))
        return PAPI_EINVAL; /* nothing of it can be counted here */
    int old = es->domain;
    es->domain = domain;
    int rc = es_apply(es);
    if (rc != PAPI_OK)
        es->domain = old;
    else
        es->domain_set = 1;
    return rc;
}

int papi_es_get_domain(int EventSet)
{
    GET_SET(es, EventSet);
    return es->domain;
}

int papi_es_set_granularity(int EventSet, int granularity)
{
    GET_SET(es, EventSet);
    if (es->running)
        return PAPI_EISRUN;
    if (granularity != PAPI_GRN_THR)
        return PAPI_EINVAL; /* hpm counts threads (attach for others) */
    es->granularity = granularity;
    return PAPI_OK;
}

int papi_es_get_granularity(int EventSet)
{
    GET_SET(es, EventSet);
    return es->granularity;
}

int papi_es_set_multiplex(int EventSet)
{
    GET_SET(es, EventSet);
    if (es->running)
        return PAPI_EISRUN;
    if (es->multiplex)
        return PAPI_EINVAL;
    if (es->cidx < 0)
        return PAPI_ENOCMP;
    const struct papi_component *c = &papi_lib.comp[es->cidx];
    if (!(c->hpm.flags & HPM_COMP_MULTIPLEX) && c->hpm.num_counters != 0)
        return PAPI_ECMP;
    es->multiplex = 1;
    int rc = es_apply(es);
    if (rc != PAPI_OK)
        es->multiplex = 0;
    return rc;
}

int papi_es_get_multiplex(int EventSet)
{
    GET_SET(es, EventSet);
    return es->multiplex ? 1 : 0;
}

int papi_es_attach(int EventSet, unsigned long tid, int on)
{
    GET_SET(es, EventSet);
    if (es->running)
        return PAPI_EISRUN;
    if (on && (es->attached || es->cpu_attached))
        return PAPI_EINVAL;
    if (!on && !es->attached)
        return PAPI_EINVAL;
    int cidx = es->cidx >= 0 ? es->cidx : 0;
    if (cidx >= papi_lib.ncomp || !(papi_lib.comp[cidx].hpm.flags & HPM_COMP_ATTACH))
        return PAPI_ECMP;
    es->shape_known = 0;
    if (!on) {
        if (es->nnat) {
            int rc = hpm_set_attach(es->hpm_set, 0);
            if (rc < 0)
                return papi_from_hpm(rc, OP_OPTION);
        }
        es->attached = 0;
        es->attach_tid = 0;
        return PAPI_OK;
    }
    es->attached = 1;
    es->attach_tid = tid;
    int rc = es_apply(es);
    if (rc != PAPI_OK) {
        es->attached = 0;
        es->attach_tid = 0;
    }
    return rc;
}

/* PAPI_CPU_ATTACH: the set counts one CPU (on the virtual PMU a modeled
 * core: every thread while the core runs it) instead of the calling
 * thread. There is no CPU detach in PAPI: PAPI_cleanup_eventset clears it. */
int papi_es_cpu_attach(int EventSet, unsigned int cpu)
{
    GET_SET(es, EventSet);
    if (es->running)
        return PAPI_EISRUN;
    if (es->attached || es->inherit || cpu > (unsigned)INT_MAX - 2)
        return PAPI_EINVAL;
    int cidx = es->cidx >= 0 ? es->cidx : 0;
    if (cidx >= papi_lib.ncomp || !(papi_lib.comp[cidx].hpm.flags & HPM_COMP_CPU))
        return PAPI_ECMP;
    int was = es->cpu_attached;
    unsigned int old = es->cpu_num;
    es->shape_known = 0;
    es->cpu_attached = 1;
    es->cpu_num = cpu;
    int rc = es_apply(es);
    if (rc != PAPI_OK) {
        es->cpu_attached = was;
        es->cpu_num = old;
        if (es->nnat)
            (void)hpm_set_cpu(es->hpm_set, was ? (int)old : -1);
    }
    return rc;
}

int papi_es_get_cpu(int EventSet, unsigned int *cpu)
{
    GET_SET(es, EventSet);
    *cpu = es->cpu_attached ? es->cpu_num : 0;
    return es->cpu_attached;
}

int papi_es_get_attach(int EventSet, unsigned long *tid)
{
    GET_SET(es, EventSet);
    *tid = es->attached ? es->attach_tid : 0;
    return es->attached;
}

int papi_es_set_inherit(int EventSet, int on)
{
    GET_SET(es, EventSet);
    if (es->running)
        return PAPI_EISRUN;
    int cidx = es->cidx >= 0 ? es->cidx : 0;
    if (cidx >= papi_lib.ncomp || !(papi_lib.comp[cidx].hpm.flags & HPM_COMP_INHERIT))
        return PAPI_ECMP;
    int old = es->inherit;
    es->inherit = on ? 1 : 0;
    int rc = PAPI_OK;
    if (es->nnat) {
        int h = hpm_set_inherit(es->hpm_set, es->inherit);
        if (h < 0)
            rc = papi_from_hpm(h, OP_OPTION);
    }
    if (rc != PAPI_OK)
        es->inherit = old;
    return rc;
}

int papi_es_get_inherit(int EventSet)
{
    GET_SET(es, EventSet);
    return es->inherit;
}

/* ------------------------------------------------------------ multiplexing */

int PAPI_multiplex_init(void)
{
    if (!papi_inited())
        return papi_ret(PAPI_ENOINIT);
    return PAPI_OK; /* hpm multiplexes per set; nothing global to set up */
}

int PAPI_set_multiplex(int EventSet)
{
    return papi_ret(papi_es_set_multiplex(EventSet));
}

int PAPI_get_multiplex(int EventSet)
{
    return papi_ret(papi_es_get_multiplex(EventSet));
}

/* ------------------------------------------------------------ attach */

int PAPI_attach(int EventSet, unsigned long tid)
{
    return papi_ret(papi_es_attach(EventSet, tid, 1));
}

int PAPI_detach(int EventSet)
{
    return papi_ret(papi_es_attach(EventSet, 0, 0));
}

/* ------------------------------------------------------------ overflow */

int PAPI_overflow(int EventSet, int EventCode, int threshold, int flags,
                  PAPI_overflow_handler_t handler)
{
    GET_SET(es, EventSet);
    if (es->running)
        return papi_ret(PAPI_EISRUN);
    if (threshold < 0)
        return papi_ret(PAPI_EINVAL);
    int i = find_event(es, EventCode);
    if (i < 0)
        return papi_ret(PAPI_ENOEVNT);
    struct papi_event *ev = &es->ev[i];
    if (threshold == 0) {
        if (ev->threshold == 0)
            return papi_ret(PAPI_EINVAL); /* nothing to turn off */
        int rc = hpm_set_overflow(es->hpm_set, es->nat[ev->pos[0]], 0, 0, NULL);
        if (rc < 0)
            return papi_ret(papi_from_hpm(rc, OP_OVERFLOW));
        ev->threshold = 0;
        if (--es->overflowing == 0) {
            overflow_unregister(es);
            es->overflow_handler = NULL;
        }
        return PAPI_OK;
    }
    if (!handler)
        return papi_ret(PAPI_EINVAL);
    /* The overflow vector has 64 bits, one per counter as a PMU's status
     * register has: event i is bit i % 64, and of the events that share a
     * bit one at a time may overflow (libhpm keeps the same rule for its
     * native positions). */
    for (int k = i % 64; k < es->nev; k += 64)
        if (k != i && es->ev[k].threshold > 0)
            return papi_ret(PAPI_ECNFLCT);
    /* One counter overflows; a sum or difference of several cannot. */
    if (ev->nterms != 1 || ev->derived != NOT_DERIVED)
        return papi_ret(PAPI_EINVAL);
    /* Two events of the set on one native cannot overflow separately. */
    for (int k = 0; k < es->nev; k++)
        if (k != i && es->ev[k].threshold > 0 && es->ev[k].pos[0] == ev->pos[0])
            return papi_ret(PAPI_ECNFLCT);
    unsigned hflags = (flags & PAPI_OVERFLOW_FORCE_SW) ? HPM_OVERFLOW_FORCE_SOFTWARE : 0;
    int rc = overflow_register(es);
    if (rc != PAPI_OK)
        return papi_ret(rc);
    es->overflow_handler = handler;
    rc = hpm_set_overflow(es->hpm_set, es->nat[ev->pos[0]], threshold, hflags, overflow_trampoline);
    if (rc < 0) {
        if (es->overflowing == 0)
            overflow_unregister(es);
        return papi_ret(papi_from_hpm(rc, OP_OVERFLOW));
    }
    if (ev->threshold == 0)
        es->overflowing++;
    ev->threshold = threshold;
    return PAPI_OK;
}

int PAPI_get_overflow_event_index(int EventSet, long long overflow_vector, int *array, int *number)
{
    GET_SET(es, EventSet);
    if (!array || !number || *number <= 0 || overflow_vector == 0)
        return papi_ret(PAPI_EINVAL);
    /* bit b: the event whose index is b modulo 64 that has a threshold (at
     * most one has), else event b */
    int n = 0;
    for (int b = 0; b < 64 && n < *number; b++) {
        if (!((overflow_vector >> b) & 1))
            continue;
        int e = b < es->nev ? b : -1;
        for (int k = b; k < es->nev; k += 64)
            if (es->ev[k].threshold > 0) {
                e = k;
                break;
            }
        if (e >= 0)
            array[n++] = e;
    }
    *number = n;
    return PAPI_OK;
}
