/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_hl.c - PAPI's high-level API, written over the public low-level API.
 *
 * A program marks regions with PAPI_hl_region_begin/PAPI_hl_region_end
 * (nestable, per thread) and may read inside one with PAPI_hl_read. The
 * first call initialises the library if the program has not, chooses the
 * events (PAPI_EVENTS, else a default list; only those this machine can
 * count together are kept) and each thread that marks regions starts one
 * event set per component, which keeps counting until PAPI_hl_stop or the
 * thread's end. Every region records how often it ran, the elapsed cycles
 * and nanoseconds and, per event, the difference between end and begin (or,
 * for "NAME=instant" events, the value itself). papi_hl_output.c writes the
 * report at exit.
 *
 * A machine where no requested or default event can be counted still gets a
 * report, of the times alone: the regions a program marks stay meaningful.
 *
 * Environment: PAPI_EVENTS ("EV1,EV2=instant,..."), PAPI_OUTPUT_DIRECTORY,
 * PAPI_REPORT, PAPI_MULTIPLEX, PAPI_HL_VERBOSE.
 *
 * One hook of libpapi's own (papi_own_reader.h) reads a thread's running
 * sets without PAPI_read's look-up and lock, and gives the cycles of a
 * nanosecond reading: only their thread ever calls on them.
 */
#include "papi.h"
#include "papi_hl_internal.h"
#include "papi_own_reader.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>


/* Read without the lock on every region call; written under it. */
static _Atomic int hl_state = HL_UNINIT;
static pthread_key_t hl_key; /* its destructor stops an ending thread's sets */
/* initial-exec: found at a fixed offset from the thread pointer, without
 * __tls_get_addr's call at every region (libpapi is loaded with the
 * program, never dlopen'ed late by a program that uses regions) */
static __thread struct hl_thread *hl_self __attribute__((tls_model("initial-exec")));

/* Recorded when PAPI_EVENTS is unset or names nothing that works here. */
static const char *const hl_default_events[] = {
    "perf::TASK-CLOCK", "PAPI_TOT_INS", "PAPI_TOT_CYC", "PAPI_FP_INS", "PAPI_FP_OPS",
};

/* ------------------------------------------------------------ choosing events */

struct hl_cand {
    char *name;
    int code;
    int cidx;
    int instant;
};

static void hl_cands_free(struct hl_cand *c, int n)
{
    for (int i = 0; i < n; i++)
        free(c[i].name);
    free(c);
}

/* Append one "NAME[=instant|=delta]" to *c unless PAPI cannot resolve it or
 * it is already there. Returns -1 only when out of memory. */
static int hl_cand_add(struct hl_cand **c, int *n, const char *spec, size_t len)
{
    char buf[PAPI_HUGE_STR_LEN];
    int instant = 0, code, cidx;
    char *eq;

    while (len && (*spec == ' ' || *spec == '\t'))
        spec++, len--;
    while (len && (spec[len - 1] == ' ' || spec[len - 1] == '\t'))
        len--;
    if (len == 0)
        return 0;
    if (len >= sizeof buf) {
        hpm_hl_msg("Warning", "event name too long: \"%.*s...\"", 40, spec);
        return 0;
    }
    memcpy(buf, spec, len);
    buf[len] = '\0';
    /* Event names may contain ':' and '=' belongs to qualifiers of some
     * native events, so only these two suffixes are ours. */
    if ((eq = strrchr(buf, '=')) != NULL) {
        if (strcmp(eq, "=instant") == 0)
            instant = 1, *eq = '\0';
        else if (strcmp(eq, "=delta") == 0)
            *eq = '\0';
    }
    if (PAPI_event_name_to_code(buf, &code) != PAPI_OK) {
        hpm_hl_msg("Warning", "\"%s\" does not exist or is not supported on this machine.", buf);
        return 0;
    }
    for (int i = 0; i < *n; i++)
        if ((*c)[i].code == code)
            return 0;
    cidx = PAPI_get_event_component(code);
    if (cidx < 0) {
        hpm_hl_msg("Warning", "\"%s\" belongs to no component.", buf);
        return 0;
    }
    struct hl_cand *nc = realloc(*c, (size_t)(*n + 1) * sizeof **c);
    if (!nc)
        return -1;
    *c = nc;
    nc[*n].name = strdup(buf);
    if (!nc[*n].name)
        return -1;
    nc[*n].code = code;
    nc[*n].cidx = cidx;
    nc[*n].instant = instant;
    if (instant)
        hpm_hl_msg("Info", "The event \"%s\" will be stored as instantaneous value.", buf);
    (*n)++;
    return 0;
}

static int hl_cands_from_list(const char *list, struct hl_cand **c, int *n)
{
    const char *p = list;

    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (hl_cand_add(c, n, p, len) < 0)
            return -1;
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

/* Keep those of component cidx's candidates that one event set can count
 * together: added one by one, then dropped from the end until the set
 * starts (adding can accept what the counters cannot count at once).
 * Marks keep[i]; returns how many were kept. */
static int hl_try_component(int cidx, const struct hl_cand *c, int n, int *keep)
{
    int es = PAPI_NULL, kept = 0;
    int *order = malloc((size_t)n * sizeof *order);
    long long *scratch = malloc((size_t)n * sizeof *scratch);

    if (!order || !scratch || PAPI_create_eventset(&es) != PAPI_OK) {
        free(order);
        free(scratch);
        return 0;
    }
    if (hpm_hl.multiplex && (PAPI_assign_eventset_component(es, cidx) != PAPI_OK ||
                             PAPI_set_multiplex(es) != PAPI_OK))
        hpm_hl_msg("Warning", "PAPI_set_multiplex failed for component %d.", cidx);
    for (int i = 0; i < n; i++) {
        if (c[i].cidx != cidx)
            continue;
        int r = PAPI_add_event(es, c[i].code);
        if (r == PAPI_OK) {
            keep[i] = 1;
            order[kept++] = i;
        } else {
            hpm_hl_msg("Warning", "Cannot add %s to component %d (%s).", c[i].name, cidx,
                       PAPI_strerror(r));
        }
    }
    while (kept > 0) {
        if (PAPI_start(es) == PAPI_OK) {
            PAPI_stop(es, scratch);
            break;
        }
        int last = order[--kept];
        hpm_hl_msg("Warning", "%s cannot be counted together with the events before it.",
                   c[last].name);
        keep[last] = 0;
        PAPI_remove_event(es, c[last].code);
    }
    PAPI_cleanup_eventset(es);
    PAPI_destroy_eventset(&es);
    free(order);
    free(scratch);
    return kept;
}

/* Turn the candidates into hpm_hl.events and hpm_hl.groups: components in
 * the order of their first event, values slotted component by component.
 * Returns the number of events kept, or -1 when out of memory. */
static int hl_settle_events(struct hl_cand *c, int n)
{
    int *keep = calloc((size_t)(n ? n : 1), sizeof *keep);
    int kept = 0;

    if (!keep)
        return -1;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < i; j++)
            if (c[j].cidx == c[i].cidx)
                seen = 1;
        if (!seen)
            kept += hl_try_component(c[i].cidx, c, n, keep);
    }
    if (kept == 0) {
        free(keep);
        return 0;
    }

    hpm_hl.events = calloc((size_t)kept, sizeof *hpm_hl.events);
    hpm_hl.groups = calloc((size_t)kept, sizeof *hpm_hl.groups);
    if (!hpm_hl.events || !hpm_hl.groups) {
        free(keep);
        return -1;
    }
    int ne = 0;
    for (int i = 0; i < n; i++) {
        if (!keep[i])
            continue;
        struct hl_event *e = &hpm_hl.events[ne++];
        e->name = c[i].name;
        c[i].name = NULL; /* moved */
        e->code = c[i].code;
        e->instant = c[i].instant;
        int g;
        for (g = 0; g < hpm_hl.ngroups; g++)
            if (hpm_hl.groups[g].cidx == c[i].cidx)
                break;
        if (g == hpm_hl.ngroups) {
            struct hl_group *gr = &hpm_hl.groups[hpm_hl.ngroups++];
            const PAPI_component_info_t *ci = PAPI_get_component_info(c[i].cidx);
            gr->cidx = c[i].cidx;
            snprintf(gr->cmp_name, sizeof gr->cmp_name, "%s", ci ? ci->name : "unknown");
            gr->codes = calloc((size_t)kept, sizeof *gr->codes);
            if (!gr->codes) {
                free(keep);
                return -1;
            }
        }
        e->group = g;
        hpm_hl.groups[g].nevents++;
    }
    hpm_hl.nevents = ne;
    int slot = 0;
    for (int g = 0; g < hpm_hl.ngroups; g++) {
        struct hl_group *gr = &hpm_hl.groups[g];
        gr->first_slot = slot;
        int k = 0;
        for (int i = 0; i < ne; i++) {
            if (hpm_hl.events[i].group != g)
                continue;
            hpm_hl.events[i].slot = slot + k;
            gr->codes[k++] = hpm_hl.events[i].code;
        }
        slot += gr->nevents;
    }
    hpm_hl.nslots = slot;
    free(keep);
    return ne;
}

static int hl_choose_events(void)
{
    struct hl_cand *c = NULL;
    int n = 0, r;
    const char *list = hpm_hl.requested ? hpm_hl.requested : getenv("PAPI_EVENTS");

    if (list && *list) {
        if (hl_cands_from_list(list, &c, &n) < 0) {
            hl_cands_free(c, n);
            return PAPI_ENOMEM;
        }
        r = hl_settle_events(c, n);
        hl_cands_free(c, n);
        if (r < 0)
            return PAPI_ENOMEM;
        if (r > 0)
            goto chosen;
        hpm_hl_msg("Warning", "All requested events do not work, using default.");
        c = NULL;
        n = 0;
    }
    {
        /* The defaults are tried quietly: most machines lack some. */
        int verbose = hpm_hl.verbose;
        hpm_hl.verbose = 0;
        for (size_t i = 0; i < sizeof hl_default_events / sizeof *hl_default_events; i++)
            if (hl_cand_add(&c, &n, hl_default_events[i], strlen(hl_default_events[i])) < 0) {
                hpm_hl.verbose = verbose;
                hl_cands_free(c, n);
                return PAPI_ENOMEM;
            }
        r = hl_settle_events(c, n);
        hpm_hl.verbose = verbose;
        hl_cands_free(c, n);
        if (r < 0)
            return PAPI_ENOMEM;
    }
chosen:
    if (hpm_hl.nevents == 0) {
        hpm_hl_msg("Warning", "No event can be counted here; recording times only.");
        return PAPI_OK;
    }
    hpm_hl_msg("Info", "Using the following events:");
    for (int i = 0; i < hpm_hl.nevents; i++)
        hpm_hl_msg("Info", "  %s (%s)", hpm_hl.events[i].name,
                   hpm_hl.groups[hpm_hl.events[i].group].cmp_name);
    return PAPI_OK;
}

/* ------------------------------------------------------------ initialisation */

/* For PAPI_thread_init when the program did not choose its own. */
static unsigned long hl_thread_id(void)
{
    return (unsigned long)pthread_self();
}

static void hl_thread_stop(struct hl_thread *t);

static void hl_thread_exit(void *p)
{
    struct hl_thread *t = p;

    /* The thread's regions stay for the report; its counters go. */
    hl_thread_stop(t);
    hl_self = NULL;
}

static void hl_at_exit(void)
{
    pthread_mutex_lock(&hpm_hl.lock);
    if (atomic_load(&hl_state) == HL_READY)
        hpm_hl_write_output();
    pthread_mutex_unlock(&hpm_hl.lock);
}

static int hl_init_locked(void)
{
    const char *v;
    int r;

    v = getenv("PAPI_HL_VERBOSE");
    hpm_hl.verbose = v && *v && strcmp(v, "0") != 0;
    clock_gettime(CLOCK_REALTIME, &hpm_hl.start);

    /* Before the library's own thread keys where we can: destructors run
     * in the order the keys were made, and ours must stop a thread's sets
     * while the library still knows the thread. */
    if (pthread_key_create(&hl_key, hl_thread_exit) != 0)
        return PAPI_ESYS;

    if (PAPI_is_initialized() == PAPI_NOT_INITED) {
        r = PAPI_library_init(PAPI_VER_CURRENT);
        if (r != PAPI_VER_CURRENT) {
            hpm_hl_msg("Error", "PAPI_library_init failed!");
            return r < 0 ? r : PAPI_EMISC;
        }
        hpm_hl_msg("Info", "PAPI has been initiated!");
    }
    /* Regions are per thread, so the library must tell threads apart. A
     * program that already chose an id function keeps it. */
    if (!(PAPI_is_initialized() & PAPI_THREAD_LEVEL_INITED) &&
        PAPI_thread_init(hl_thread_id) != PAPI_OK)
        hpm_hl_msg("Warning", "PAPI_thread_init failed; threads may share counters.");

    v = getenv("PAPI_MULTIPLEX");
    if (v && *v && strcmp(v, "0") != 0) {
        if (PAPI_multiplex_init() == PAPI_OK) {
            hpm_hl.multiplex = 1;
            hpm_hl_msg("Info", "Multiplex has been initiated!");
        } else {
            hpm_hl_msg("Warning", "Multiplex is not supported!");
        }
    }

    r = hl_choose_events();
    if (r != PAPI_OK)
        return r;

    const PAPI_hw_info_t *hw = PAPI_get_hardware_info();
    if (hw) {
        snprintf(hpm_hl.cpu_info, sizeof hpm_hl.cpu_info, "%s", hw->model_string);
        hpm_hl.max_mhz = hw->cpu_max_mhz;
        hpm_hl.min_mhz = hw->cpu_min_mhz;
    }
    hpm_hl.lib_version = PAPI_get_opt(PAPI_LIB_VERSION, NULL);
    if (hpm_hl.lib_version <= 0)
        hpm_hl.lib_version = PAPI_VERSION;

    atexit(hl_at_exit);
    return PAPI_OK;
}

static int hl_init(void)
{
    int r;

    pthread_mutex_lock(&hpm_hl.lock);
    switch (atomic_load(&hl_state)) {
    case HL_UNINIT:
        r = hl_init_locked();
        atomic_store_explicit(&hl_state, r == PAPI_OK ? HL_READY : HL_FAILED,
                              memory_order_release);
        break;
    case HL_READY:
        r = PAPI_OK;
        break;
    default:
        r = PAPI_EMISC; /* failed before, or finalised */
        break;
    }
    pthread_mutex_unlock(&hpm_hl.lock);
    return r;
}

/* ------------------------------------------------------------ threads */

static struct hl_thread *hl_thread_new(void)
{
    struct hl_thread *t = calloc(1, sizeof *t);

    if (!t)
        return NULL;
    t->es = malloc((size_t)(hpm_hl.ngroups ? hpm_hl.ngroups : 1) * sizeof *t->es);
    t->rd = calloc((size_t)(hpm_hl.ngroups ? hpm_hl.ngroups : 1), sizeof *t->rd);
    t->now = calloc((size_t)(hpm_hl.nslots ? hpm_hl.nslots : 1), sizeof *t->now);
    if (!t->es || !t->rd || !t->now) {
        free(t->es);
        free(t->rd);
        free(t->now);
        free(t);
        return NULL;
    }
    for (int g = 0; g < hpm_hl.ngroups; g++)
        t->es[g] = PAPI_NULL;
    t->tid = (unsigned long)syscall(SYS_gettid);

    pthread_mutex_lock(&hpm_hl.lock);
    t->next = hpm_hl.threads;
    hpm_hl.threads = t;
    pthread_mutex_unlock(&hpm_hl.lock);
    pthread_setspecific(hl_key, t);
    hl_self = t;
    return t;
}

static void hl_thread_stop(struct hl_thread *t)
{
    for (int g = 0; g < hpm_hl.ngroups; g++) {
        if (t->es[g] == PAPI_NULL)
            continue;
        memset(&t->rd[g], 0, sizeof t->rd[g]);
        if (t->counting)
            PAPI_stop(t->es[g], t->now + hpm_hl.groups[g].first_slot);
        PAPI_cleanup_eventset(t->es[g]);
        PAPI_destroy_eventset(&t->es[g]);
        t->es[g] = PAPI_NULL;
    }
    t->counting = 0;
}

static void hl_thread_start(struct hl_thread *t)
{
    int r = PAPI_OK;

    if ((pid_t)t->tid != getpid())
        PAPI_register_thread(); /* PAPI may do it itself; a second time is harmless */
    for (int g = 0; g < hpm_hl.ngroups && r == PAPI_OK; g++) {
        struct hl_group *gr = &hpm_hl.groups[g];
        r = PAPI_create_eventset(&t->es[g]);
        if (r == PAPI_OK && hpm_hl.multiplex) {
            PAPI_assign_eventset_component(t->es[g], gr->cidx);
            PAPI_set_multiplex(t->es[g]);
        }
        if (r == PAPI_OK)
            r = PAPI_add_events(t->es[g], gr->codes, gr->nevents);
        if (r == PAPI_OK)
            r = PAPI_start(t->es[g]);
        if (r == PAPI_OK) {
            t->counting = 1; /* so that a later failure stops this one */
            if (papi_own_reader(t->es[g], &t->rd[g]) != PAPI_OK)
                memset(&t->rd[g], 0, sizeof t->rd[g]);
        }
    }
    if (r != PAPI_OK) {
        hpm_hl_msg("Warning", "Cannot start the event sets of thread %lu (%s); "
                              "recording its times only.", t->tid, PAPI_strerror(r));
        hl_thread_stop(t);
    }
}

/* The calling thread's state, the library and its counters ready. */
static int hl_enter(struct hl_thread **tp)
{
    struct hl_thread *t;
    int st = atomic_load_explicit(&hl_state, memory_order_acquire);

    if (st != HL_READY) {
        int r = hl_init();
        if (r != PAPI_OK)
            return r;
    }
    t = hl_self;
    if (!t && !(t = hl_thread_new()))
        return PAPI_ENOMEM;
    if (!t->active) {
        if (hpm_hl.ngroups > 0)
            hl_thread_start(t);
        t->active = 1;
    }
    *tp = t;
    return PAPI_OK;
}

/* The most values read through an int64_t reader; larger sets: PAPI_read */
#define HL_READ_MAX 16

/* Group g's values through its reader (a failing one is read again with
 * PAPI_read, for PAPI's status), or PAPI_read where it has none. */
static int hl_read_group(const struct hl_thread *t, int g, long long *v)
{
    const struct papi_own_reader *rd = &t->rd[g];
    if (!papi_own_reader_ok(rd)) {
        /* none, or made before a PAPI_shutdown, which destroyed its set */
    } else if (rd->read_ll) {
        if (rd->read_ll(rd->ctx, v) >= 0)
            return PAPI_OK;
    } else if (rd->read && hpm_hl.groups[g].nevents <= HL_READ_MAX) {
        int64_t w[HL_READ_MAX];
        if (rd->read(rd->ctx, w) >= 0) {
            for (int i = 0; i < hpm_hl.groups[g].nevents; i++)
                v[i] = w[i];
            return PAPI_OK;
        }
    }
    return PAPI_read(t->es[g], v);
}

static int hl_read_counters(struct hl_thread *t, long long *v)
{
    if (!t->counting)
        return PAPI_OK;
    for (int g = 0; g < hpm_hl.ngroups; g++) {
        int r = hl_read_group(t, g, v + hpm_hl.groups[g].first_slot);
        if (r != PAPI_OK)
            return r;
    }
    return PAPI_OK;
}

/* ------------------------------------------------------------ regions */

static struct hl_region *hl_region_new(struct hl_thread *t, const char *name, int parent)
{
    size_t ne = (size_t)(hpm_hl.nevents ? hpm_hl.nevents : 1);
    struct hl_region *r = calloc(1, sizeof *r);

    if (!r)
        return NULL;
    r->name = strdup(name);
    r->value = calloc(ne, sizeof *r->value);
    r->vmin = calloc(ne, sizeof *r->vmin);
    r->vmax = calloc(ne, sizeof *r->vmax);
    if (!r->name || !r->value || !r->vmin || !r->vmax)
        goto fail;
    r->parent = parent;
    r->counted = 1;

    hl_lock(&t->lock);
    if (t->nregions == t->cap_regions) {
        int cap = t->cap_regions ? 2 * t->cap_regions : 16;
        struct hl_region **nr = realloc(t->regions, (size_t)cap * sizeof *nr);
        if (!nr) {
            hl_unlock(&t->lock);
            goto fail;
        }
        t->regions = nr;
        t->cap_regions = cap;
    }
    r->id = t->next_id++;
    t->regions[t->nregions++] = r;
    hl_unlock(&t->lock);
    return r;
fail:
    free(r->name);
    free(r->value);
    free(r->vmin);
    free(r->vmax);
    free(r);
    return NULL;
}

static struct hl_region *hl_region_get(struct hl_thread *t, const char *name, int parent)
{
    struct hl_region *r = t->last;

    if (r && r->parent == parent && strcmp(r->name, name) == 0)
        return r;
    for (int i = t->nregions - 1; i >= 0; i--) {
        r = t->regions[i];
        if (r->parent == parent && strcmp(r->name, name) == 0)
            return t->last = r;
    }
    r = hl_region_new(t, name, parent);
    if (r)
        t->last = r;
    return r;
}

static struct hl_frame *hl_push(struct hl_thread *t)
{
    if (t->depth == t->cap_stack) {
        int cap = t->cap_stack ? 2 * t->cap_stack : 8;
        struct hl_frame *ns = realloc(t->stack, (size_t)cap * sizeof *ns);
        if (!ns)
            return NULL;
        t->stack = ns;
        for (int i = t->cap_stack; i < cap; i++) {
            ns[i].v0 = calloc((size_t)(hpm_hl.nslots ? hpm_hl.nslots : 1), sizeof *ns[i].v0);
            if (!ns[i].v0) {
                t->cap_stack = i;
                return NULL;
            }
        }
        t->cap_stack = cap;
    }
    return &t->stack[t->depth++];
}

/* Remove frame i, keeping the buffers of all slots. */
static void hl_pop(struct hl_thread *t, int i)
{
    long long *v0 = t->stack[i].v0;

    if (i < t->depth - 1) /* the innermost, usually: nothing to move */
        memmove(&t->stack[i], &t->stack[i + 1], (size_t)(t->depth - i - 1) * sizeof *t->stack);
    t->depth--;
    t->stack[t->depth].v0 = v0;
}

/* The innermost open instance of the region called name, or -1. */
static int hl_find_frame(const struct hl_thread *t, const char *name)
{
    for (int i = t->depth - 1; i >= 0; i--)
        if (strcmp(t->stack[i].r->name, name) == 0)
            return i;
    return -1;
}

/* One event's value for an instance: the difference since the beginning,
 * or for instant events the value now. */
static long long hl_value(const struct hl_event *e, const struct hl_frame *f,
                          const long long *now)
{
    return e->instant ? now[e->slot] : now[e->slot] - f->v0[e->slot];
}

HL_EXPORT int PAPI_hl_region_begin(const char *region)
{
    struct hl_thread *t;
    struct hl_region *parent_r, *r;
    struct hl_frame *f;
    int ret;

    if (!region)
        return PAPI_EINVAL;
    if ((ret = hl_enter(&t)) != PAPI_OK)
        return ret;
    parent_r = t->depth ? t->stack[t->depth - 1].r : NULL;
    r = hl_region_get(t, region, parent_r ? (int)parent_r->id : -1);
    if (!r || !(f = hl_push(t)))
        return PAPI_ENOMEM;
    f->r = r;
    f->nreads = 0;
    f->counted = t->counting;
    /* Counters last, so that the least of this call is inside the region. */
    f->ns0 = PAPI_get_real_nsec();
    f->cyc0 = papi_real_cyc_at(f->ns0);
    if ((ret = hl_read_counters(t, f->v0)) != PAPI_OK) {
        t->depth--;
        hpm_hl_msg("Error", "Could not read counters for thread %lu.", t->tid);
        return ret;
    }
    return PAPI_OK;
}

/* Counters first at the end, for the same reason. Returns the frame of
 * region, or -1 with *ret set. */
static int hl_sample(const char *region, const char *caller, struct hl_thread **tp,
                     long long *cyc, long long *ns, int *ret)
{
    struct hl_thread *t = hl_self;
    int i;

    *ret = PAPI_OK;
    if (!region) {
        *ret = PAPI_EINVAL;
        return -1;
    }
    if (atomic_load_explicit(&hl_state, memory_order_acquire) != HL_READY) {
        *ret = atomic_load(&hl_state) == HL_UNINIT ? PAPI_ENOTRUN : PAPI_EMISC;
        return -1;
    }
    if (!t || (i = hl_find_frame(t, region)) < 0) {
        hpm_hl_msg("Warning", "Cannot find matching region for %s(\"%s\") for thread id=%lu.",
                   caller, region, t ? t->tid : (unsigned long)syscall(SYS_gettid));
        *ret = PAPI_ENOTRUN;
        return -1;
    }
    if ((*ret = hl_read_counters(t, t->now)) != PAPI_OK) {
        hpm_hl_msg("Error", "Could not read counters for thread %lu.", t->tid);
        return -1;
    }
    *ns = PAPI_get_real_nsec();
    *cyc = papi_real_cyc_at(*ns);
    *tp = t;
    return i;
}

HL_EXPORT int PAPI_hl_read(const char *region)
{
    struct hl_thread *t;
    long long cyc, ns;
    int ret, i = hl_sample(region, "PAPI_hl_read", &t, &cyc, &ns, &ret);

    if (i < 0)
        return ret;
    struct hl_frame *f = &t->stack[i];
    struct hl_region *r = f->r;
    int k = f->nreads++;

    hl_lock(&t->lock);
    if (k >= r->nreads) {
        struct hl_read *nr = realloc(r->reads, (size_t)(k + 1) * sizeof *nr);
        long long *v = calloc((size_t)(hpm_hl.nevents ? hpm_hl.nevents : 1), sizeof *v);
        if (!nr || !v) {
            if (nr)
                r->reads = nr;
            free(v);
            f->nreads--;
            hl_unlock(&t->lock);
            return PAPI_ENOMEM;
        }
        r->reads = nr;
        nr[k].cycles = nr[k].nsec = 0;
        nr[k].value = v;
        r->nreads = k + 1;
    }
    r->reads[k].cycles += cyc - f->cyc0;
    r->reads[k].nsec += ns - f->ns0;
    for (int e = 0; e < hpm_hl.nevents; e++)
        r->reads[k].value[e] += hl_value(&hpm_hl.events[e], f, t->now);
    hl_unlock(&t->lock);
    return PAPI_OK;
}

HL_EXPORT int PAPI_hl_region_end(const char *region)
{
    struct hl_thread *t;
    long long cyc, ns;
    int ret, i = hl_sample(region, "PAPI_hl_region_end", &t, &cyc, &ns, &ret);

    if (i < 0)
        return ret;
    struct hl_frame *f = &t->stack[i];
    struct hl_region *r = f->r;

    /* locals: the stores to the region's arrays could alias them for the
     * compiler, which would load each again per event */
    const struct hl_event *ev = hpm_hl.events;
    const long long *now = t->now, *v0 = f->v0;
    long long *value = r->value, count;
    int nevents = hpm_hl.nevents;

    hl_lock(&t->lock);
    count = ++r->count;
    r->cycles += cyc - f->cyc0;
    r->nsec += ns - f->ns0;
    r->counted &= f->counted && t->counting;
    for (int e = 0; e < nevents; e++) {
        int k = ev[e].slot;
        if (!ev[e].instant) {
            value[e] += now[k] - v0[k];
            continue;
        }
        /* the report gives an instant event's extremes (papi_hl_output.c) */
        long long v = now[k];
        value[e] += v;
        if (count == 1 || v < r->vmin[e])
            r->vmin[e] = v;
        if (count == 1 || v > r->vmax[e])
            r->vmax[e] = v;
    }
    hl_unlock(&t->lock);
    hl_pop(t, i);
    return PAPI_OK;
}

HL_EXPORT int PAPI_hl_stop(void)
{
    struct hl_thread *t = hl_self;

    if (!t || !t->active)
        return PAPI_ENOEVNT;
    if (t->depth) {
        hpm_hl_msg("Warning", "PAPI_hl_stop inside %d open region(s) of thread %lu; "
                              "they are dropped.", t->depth, t->tid);
        t->depth = 0;
    }
    hl_thread_stop(t);
    t->active = 0; /* the next region starts the sets again */
    return PAPI_OK;
}

/* ------------------------------------------------------------ PAPI 6's extra calls */

HL_EXPORT int PAPI_hl_init(void)
{
    return hl_init();
}

HL_EXPORT int PAPI_hl_set_events(const char *events)
{
    int r;

    if (!events)
        return PAPI_EINVAL;
    pthread_mutex_lock(&hpm_hl.lock);
    if (atomic_load(&hl_state) != HL_UNINIT) {
        /* The events are fixed once chosen: threads already count them. */
        pthread_mutex_unlock(&hpm_hl.lock);
        return PAPI_EISRUN;
    }
    free(hpm_hl.requested);
    hpm_hl.requested = strdup(events);
    pthread_mutex_unlock(&hpm_hl.lock);
    if (!hpm_hl.requested)
        return PAPI_ENOMEM;
    r = hl_init();
    return r;
}

HL_EXPORT int PAPI_hl_cleanup_thread(void)
{
    struct hl_thread *t = hl_self;

    if (t) {
        t->depth = 0;
        hl_thread_stop(t);
        t->active = 0;
    }
    return PAPI_OK;
}

HL_EXPORT void PAPI_hl_print_output(void)
{
    pthread_mutex_lock(&hpm_hl.lock);
    if (atomic_load(&hl_state) == HL_READY)
        hpm_hl_write_output();
    pthread_mutex_unlock(&hpm_hl.lock);
}

HL_EXPORT int PAPI_hl_finalize(void)
{
    struct hl_thread *t = hl_self;

    pthread_mutex_lock(&hpm_hl.lock);
    if (atomic_load(&hl_state) == HL_READY) {
        hpm_hl_write_output();
        atomic_store(&hl_state, HL_FINALIZED);
    }
    pthread_mutex_unlock(&hpm_hl.lock);
    if (t) {
        t->depth = 0;
        hl_thread_stop(t);
        t->active = 0;
    }
    return PAPI_OK;
}
