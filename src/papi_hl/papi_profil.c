/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_profil.c - PAPI_profil and PAPI_sprofil over PAPI_overflow.
 *
 * Profiling an event of an event set registers it here and asks for an
 * overflow every `threshold` events, with prof_handler as the handler. The
 * handler learns which events overflowed (PAPI_get_overflow_event_index),
 * and credits each profiled one's histogram with the interrupted pc
 * (papi_profil_map.h has the bucket arithmetic). A threshold of 0 turns the
 * event's profiling off again.
 *
 * Flags, as PAPI documents them: the bucket size (PAPI_PROFIL_BUCKET_16,
 * the default, _32 or _64; at most one), PAPI_PROFIL_RANDOM (drop a random
 * quarter of the samples), PAPI_PROFIL_COMPRESS (drop samples more often as
 * their bucket fills), PAPI_PROFIL_FORCE_SW (software overflow).
 * PAPI_PROFIL_WEIGHTED weighs a sample by how far the counter overshot the
 * threshold; an overflow handler is not told that, so every sample weighs
 * one. The event-address-register flags (_DATA_EAR, _INST_EAR) need
 * hardware no component here has: PAPI_ENOSUPP.
 *
 * The handler runs in signal context: it takes no lock and allocates
 * nothing. A registration is published to it by a state word, and is only
 * changed while its event set is stopped (PAPI_overflow refuses otherwise),
 * so no handler can be using it then.
 */
#include "papi.h"
#include "papi_hl_internal.h"
#include "papi_profil_map.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define PROF_SLOTS 256 /* profiled (event set, event) pairs at a time */
#define PROF_KNOWN_FLAGS                                                                 \
    (PAPI_PROFIL_POSIX | PAPI_PROFIL_RANDOM | PAPI_PROFIL_WEIGHTED | PAPI_PROFIL_COMPRESS | \
     PAPI_PROFIL_BUCKETS | PAPI_PROFIL_FORCE_SW | PAPI_PROFIL_DATA_EAR | PAPI_PROFIL_INST_EAR)

enum { SLOT_FREE, SLOT_BUSY, SLOT_LIVE };

struct prof_entry {
    _Atomic int state;
    int eventset, code;
    int index; /* the event's position in its set */
    int flags;
    int bucket_bytes;
    int nranges;
    struct hpm_prof_range *ranges; /* [nranges] */
    void **bases;                  /* [nranges] histogram buffers */
    uint64_t rng;                  /* xorshift state for RANDOM and COMPRESS */
};

static struct prof_entry prof_slots[PROF_SLOTS];
static pthread_mutex_t prof_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t prof_random(struct prof_entry *e)
{
    uint64_t x = e->rng;

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return e->rng = x;
}

static void prof_credit(struct prof_entry *e, uintptr_t pc)
{
    size_t index;
    int r = hpm_prof_find(e->ranges, e->nranges, pc, &index);

    if (r < 0)
        return;
    if ((e->flags & PAPI_PROFIL_RANDOM) && (prof_random(e) & 3) == 0)
        return;
    if ((e->flags & PAPI_PROFIL_COMPRESS) &&
        hpm_prof_compress_drops(hpm_prof_get(e->bases[r], index, e->bucket_bytes),
                                e->bucket_bytes, prof_random(e)))
        return;
    hpm_prof_add(e->bases[r], index, e->bucket_bytes, 1);
}

static void prof_handler(int EventSet, void *address, long long overflow_vector, void *context)
{
    int idx[64], n = 64, known;

    (void)context;
    known = PAPI_get_overflow_event_index(EventSet, overflow_vector, idx, &n) == PAPI_OK;
    for (int s = 0; s < PROF_SLOTS; s++) {
        struct prof_entry *e = &prof_slots[s];
        int hit = !known; /* without the indices, credit every profile of the set */
        if (atomic_load_explicit(&e->state, memory_order_acquire) != SLOT_LIVE ||
            e->eventset != EventSet)
            continue;
        for (int i = 0; known && i < n && !hit; i++)
            hit = idx[i] == e->index;
        if (hit)
            prof_credit(e, (uintptr_t)address);
    }
}

static void prof_release(struct prof_entry *e)
{
    free(e->ranges);
    free(e->bases);
    e->ranges = NULL;
    e->bases = NULL;
    atomic_store_explicit(&e->state, SLOT_FREE, memory_order_release);
}

/* The live or free slot for (eventset, code), claimed as busy; NULL when
 * none is left. *was_live says whether it held a registration. */
static struct prof_entry *prof_claim(int eventset, int code, int *was_live)
{
    struct prof_entry *free_slot = NULL, *e = NULL;

    pthread_mutex_lock(&prof_lock);
    for (int s = 0; s < PROF_SLOTS && !e; s++) {
        struct prof_entry *p = &prof_slots[s];
        int st = atomic_load(&p->state);
        if (st == SLOT_LIVE && p->eventset == eventset && p->code == code)
            e = p;
        else if (st == SLOT_FREE && !free_slot)
            free_slot = p;
    }
    *was_live = e != NULL;
    if (!e)
        e = free_slot;
    if (e)
        atomic_store(&e->state, SLOT_BUSY);
    pthread_mutex_unlock(&prof_lock);
    return e;
}

static struct prof_entry *prof_lookup(int eventset, int code)
{
    struct prof_entry *e = NULL;

    pthread_mutex_lock(&prof_lock);
    for (int s = 0; s < PROF_SLOTS && !e; s++) {
        struct prof_entry *p = &prof_slots[s];
        if (atomic_load(&p->state) == SLOT_LIVE && p->eventset == eventset && p->code == code)
            e = p;
    }
    pthread_mutex_unlock(&prof_lock);
    return e;
}

/* The position of code in the set, or a PAPI error. */
static int prof_event_index(int eventset, int code)
{
    int n = PAPI_num_events(eventset), *codes, r;

    if (n < 0)
        return n;
    if (n == 0)
        return PAPI_ENOEVNT;
    if (!(codes = malloc((size_t)n * sizeof *codes)))
        return PAPI_ENOMEM;
    r = PAPI_list_events(eventset, codes, &n);
    if (r == PAPI_OK) {
        r = PAPI_ENOEVNT; /* the event must already be in the set */
        for (int i = 0; i < n; i++)
            if (codes[i] == code) {
                r = i;
                break;
            }
    }
    free(codes);
    return r;
}

static int prof_disable(int eventset, int code)
{
    struct prof_entry *e = prof_lookup(eventset, code);
    int r;

    /* Not profiled: leave alone an overflow the program set up itself. */
    if (!e)
        return PAPI_EINVAL;
    if ((r = PAPI_overflow(eventset, code, 0, 0, prof_handler)) == PAPI_OK)
        prof_release(e);
    return r;
}

static int prof_bucket_bytes(int flags)
{
    switch (flags & PAPI_PROFIL_BUCKETS) {
    case 0:
    case PAPI_PROFIL_BUCKET_16:
        return (int)sizeof(unsigned short);
    case PAPI_PROFIL_BUCKET_32:
        return (int)sizeof(unsigned int);
    case PAPI_PROFIL_BUCKET_64:
        return (int)sizeof(unsigned long long);
    default:
        return 0; /* more than one size */
    }
}

HL_EXPORT int PAPI_sprofil(PAPI_sprofil_t *prof, int profcnt, int EventSet, int EventCode,
                           int threshold, int flags)
{
    struct prof_entry *e;
    int bytes, index, state, was_live, r;

    if (threshold < 0)
        return PAPI_EINVAL;
    if (threshold == 0)
        return prof_disable(EventSet, EventCode);
    if (!prof || profcnt <= 0 || (flags & ~PROF_KNOWN_FLAGS))
        return PAPI_EINVAL;
    if (!(bytes = prof_bucket_bytes(flags)))
        return PAPI_EINVAL;
    if (flags & (PAPI_PROFIL_DATA_EAR | PAPI_PROFIL_INST_EAR))
        return PAPI_ENOSUPP;
    for (int i = 0; i < profcnt; i++) {
        if (prof[i].pr_scale < HPM_PROF_SCALE_ALL || prof[i].pr_scale > HPM_PROF_SCALE_MAX)
            return PAPI_EINVAL;
        if (!prof[i].pr_base && prof[i].pr_size > 0)
            return PAPI_EINVAL;
    }
    if ((r = PAPI_state(EventSet, &state)) != PAPI_OK)
        return r;
    if (state & PAPI_RUNNING)
        return PAPI_EISRUN;
    if ((index = prof_event_index(EventSet, EventCode)) < 0)
        return index;

    if (!(e = prof_claim(EventSet, EventCode, &was_live)))
        return PAPI_ENOMEM;
    free(e->ranges);
    free(e->bases);
    e->ranges = calloc((size_t)profcnt, sizeof *e->ranges);
    e->bases = calloc((size_t)profcnt, sizeof *e->bases);
    if (!e->ranges || !e->bases) {
        if (was_live)
            PAPI_overflow(EventSet, EventCode, 0, 0, prof_handler);
        prof_release(e);
        return PAPI_ENOMEM;
    }
    for (int i = 0; i < profcnt; i++) {
        e->ranges[i].off = (uintptr_t)prof[i].pr_off;
        e->ranges[i].scale = prof[i].pr_scale;
        /* pr_size is the buffer's size in bytes (PAPI_profil(3): "a buffer
         * of bufsiz bytes"): the buckets are the whole ones that fit, for a
         * catch-all region too. A buffer smaller than one bucket has none,
         * and its samples are lost rather than written past its end. That
         * is not an error: PAPI's own sprofile test passes 1 byte for its
         * catch-all region and checks only the other two. */
        e->ranges[i].nbuckets = hpm_prof_nbuckets(prof[i].pr_size, bytes);
        e->bases[i] = prof[i].pr_base;
    }
    e->nranges = profcnt;
    e->eventset = EventSet;
    e->code = EventCode;
    e->index = index;
    e->flags = flags;
    e->bucket_bytes = bytes;
    e->rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)e;

    r = PAPI_overflow(EventSet, EventCode, threshold,
                      (flags & PAPI_PROFIL_FORCE_SW) ? PAPI_OVERFLOW_FORCE_SW : 0, prof_handler);
    if (r != PAPI_OK) {
        if (was_live)
            PAPI_overflow(EventSet, EventCode, 0, 0, prof_handler);
        prof_release(e);
        return r;
    }
    atomic_store_explicit(&e->state, SLOT_LIVE, memory_order_release);
    return PAPI_OK;
}

HL_EXPORT int PAPI_profil(void *buf, unsigned bufsiz, vptr_t offset, unsigned scale, int EventSet,
                          int EventCode, int threshold, int flags)
{
    PAPI_sprofil_t one;

    one.pr_base = buf;
    one.pr_size = bufsiz;
    one.pr_off = offset;
    one.pr_scale = scale;
    return PAPI_sprofil(&one, 1, EventSet, EventCode, threshold, flags);
}
