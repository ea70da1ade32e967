/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * region.c - named, nestable regions per thread.
 *
 * The region events (hpm_region_events, else HPM_REGION_EVENTS, else a
 * default) are fixed at the first hpm_region_begin of the process. Each
 * thread counts them with internal sets, one per component, started at its
 * first begin and kept running: they are not in the set table and take no
 * thread slot, so the thread may still run sets of its own. A begin reads
 * them and pushes the values; the matching end reads again and adds the
 * difference to the (thread, region) record. Each component is told of the
 * region too (its region slot): under the virtual PMU sim passes it to the
 * tool (HPM_VPMU_REGION_BEGIN/END), so `hpm count` reports it as well. The
 * components' begins go before our read and their ends after, keeping our
 * counts tight around the region; the first component of the table is told
 * last at a begin and first at an end, so the tool's region holds as little
 * of ours as it can.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hpm_internal.h"
#include "json.h"
#include "parse.h"

#define REGION_NAME_MAX 128 /* with the NUL, as the tool's HPM_VPMU_NAME_MAX */
_Static_assert(HPM_NCOMP <= 32, "a frame's took has a bit per component");

struct hpm_region_rec {
    char name[REGION_NAME_MAX];
    uint64_t calls;
    int64_t values[HPM_REGION_MAX_EVENTS];
    struct hpm_region_rec *next;
};

struct hpm_region_frame {
    struct hpm_region_rec *rec;
    int64_t start[HPM_REGION_MAX_EVENTS];
    unsigned took; /* bit k: component k took the begin, so it gets the end */
};

/* Where region event p is counted: set of component comp, position pos.
 * Fixed with the event list (g_hpm.lock). */
static struct {
    int comp, pos;
} where[HPM_REGION_MAX_EVENTS];

/* The default list: the first of these that exist here. */
static const char *const default_sim[] = {
    "sim::INSTRUCTIONS", "sim::CYCLES",  "sim::FP_OPS",         "sim::LOADS",
    "sim::STORES",       "sim::BR_COND", "sim::BR_MISPREDICTS", "sim::L1D_MISSES",
};
static const char *const default_native[] = {
    "perf::TASK-CLOCK",
    "os::THREAD_USER_TIME",
    "os::THREAD_SYSTEM_TIME",
    "os::THREAD_MINOR_FAULTS",
    "os::THREAD_MAJOR_FAULTS",
    "os::THREAD_VOLUNTARY_CONTEXT_SWITCHES",
    "os::THREAD_INVOLUNTARY_CONTEXT_SWITCHES",
};

/* Resolve names into ev[]; the number, or an error. */
static int resolve(const char *list, hpm_event_t *ev)
{
    static char names[HPM_REGION_MAX_EVENTS][HPM_NAME_MAX]; /* under cfg_lock */
    int n = hpm_parse_name_list(list, strlen(list), &names[0][0], HPM_REGION_MAX_EVENTS,
                                HPM_NAME_MAX);
    int i, j, rc;
    if (n == -1)
        return HPM_ENOEVENT; /* a name longer than any event's */
    if (n < 0)
        return HPM_ECOUNTERS;
    if (n == 0)
        return HPM_EINVAL;
    for (i = 0; i < n; i++) {
        rc = hpm_event_find(names[i], &ev[i]);
        if (rc != HPM_OK)
            return rc;
        for (j = 0; j < i; j++)
            if (ev[j] == ev[i])
                return HPM_EEXISTS;
    }
    return n;
}

static int default_list(hpm_event_t *ev)
{
    hpm_event_t e;
    int n = 0, i;
    for (i = 0; i < (int)(sizeof default_sim / sizeof default_sim[0]); i++)
        if (hpm_event_find(default_sim[i], &e) == HPM_OK)
            ev[n++] = e;
    if (n)
        return n;
    for (i = 0; i < (int)(sizeof default_native / sizeof default_native[0]); i++)
        if (hpm_event_find(default_native[i], &e) == HPM_OK)
            ev[n++] = e;
    return n ? n : HPM_ENOEVENT;
}

/* Serialises configuration; hpm_event_find takes g_hpm.lock itself. */
static pthread_mutex_t cfg_lock = PTHREAD_MUTEX_INITIALIZER;

static void set_list(const hpm_event_t *ev, int n)
{
    int i, k, count[HPM_NCOMP] = {0};
    g_hpm.region_n = n;
    for (i = 0; i < n; i++) {
        g_hpm.region_events[i] = ev[i];
        k = HPM_EVENT_COMPONENT(ev[i]);
        where[i].comp = k;
        where[i].pos = count[k]++;
    }
    g_hpm.region_configured = 1;
}

HPM_EXPORT int hpm_region_events(const char *comma_separated_names)
{
    hpm_event_t ev[HPM_REGION_MAX_EVENTS];
    int n, rc = HPM_OK;
    if (hpm__check_init() != HPM_OK)
        return HPM_ENOINIT;
    if (!comma_separated_names)
        return HPM_EINVAL;
    pthread_mutex_lock(&cfg_lock);
    n = resolve(comma_separated_names, ev);
    if (n < 0) {
        pthread_mutex_unlock(&cfg_lock);
        return n;
    }
    pthread_mutex_lock(&g_hpm.lock);
    if (g_hpm.region_started) {
        /* counts already taken would no longer match the list */
        if (n != g_hpm.region_n || memcmp(ev, g_hpm.region_events, sizeof ev[0] * (size_t)n))
            rc = HPM_ERUNNING;
    } else {
        set_list(ev, n);
    }
    pthread_mutex_unlock(&g_hpm.lock);
    pthread_mutex_unlock(&cfg_lock);
    return rc;
}

/* Fix the list at the first begin. */
static int configure(void)
{
    hpm_event_t ev[HPM_REGION_MAX_EVENTS];
    int n, done;
    const char *env;
    pthread_mutex_lock(&g_hpm.lock);
    done = g_hpm.region_configured;
    if (done)
        g_hpm.region_started = 1;
    pthread_mutex_unlock(&g_hpm.lock);
    if (done)
        return HPM_OK;
    pthread_mutex_lock(&cfg_lock);
    env = getenv("HPM_REGION_EVENTS");
    n = env && env[0] ? resolve(env, ev) : default_list(ev);
    if (n < 0) {
        pthread_mutex_unlock(&cfg_lock);
        return n;
    }
    pthread_mutex_lock(&g_hpm.lock);
    if (!g_hpm.region_configured)
        set_list(ev, n);
    g_hpm.region_started = 1;
    pthread_mutex_unlock(&g_hpm.lock);
    pthread_mutex_unlock(&cfg_lock);
    return HPM_OK;
}

/* The calling thread's region sets, started on first use. */
static int thread_sets(struct hpm_thread *t)
{
    int i, rc, k;
    if (t->stack_cap)
        return HPM_OK;
    for (i = 0; i < g_hpm.region_n; i++) {
        k = where[i].comp;
        if (!t->rsets[k] && !(t->rsets[k] = hpm__set_new(-1))) {
            rc = HPM_ENOMEM;
            goto fail;
        }
        rc = hpm__set_add(t->rsets[k], g_hpm.region_events[i]);
        if (rc < 0)
            goto fail;
    }
    for (k = 0; k < HPM_NCOMP; k++)
        if (t->rsets[k] && (rc = hpm__set_start(t->rsets[k], t, 0)) != HPM_OK)
            goto fail;
    t->stack = calloc(4, sizeof *t->stack);
    if (!t->stack) {
        rc = HPM_ENOMEM;
        goto fail;
    }
    t->stack_cap = 4;
    return HPM_OK;
fail:
    for (k = 0; k < HPM_NCOMP; k++) {
        hpm__set_free(t->rsets[k]);
        t->rsets[k] = NULL;
    }
    return rc;
}

static int read_all(struct hpm_thread *t, int64_t *out)
{
    int64_t v[HPM_NCOMP][HPM_REGION_MAX_EVENTS];
    int k, i, rc;
    for (k = 0; k < HPM_NCOMP; k++)
        if (t->rsets[k] && (rc = hpm__set_read(t->rsets[k], v[k])) != HPM_OK)
            return rc;
    for (i = 0; i < g_hpm.region_n; i++)
        out[i] = v[where[i].comp][where[i].pos];
    return HPM_OK;
}

/* Tell the components a region begins: the mask of those that took it. */
static unsigned tell_begin(const char *name)
{
    unsigned took = 0;
    int k;
    for (k = HPM_NCOMP - 1; k >= 0; k--)
        if (g_hpm.comp[k].c->region(name, 1) == HPM_OK)
            took |= 1u << k;
    return took;
}

static void tell_end(const char *name, unsigned took)
{
    int k;
    for (k = 0; k < HPM_NCOMP; k++)
        if (took & (1u << k))
            (void)g_hpm.comp[k].c->region(name, 0);
}

static int name_ok(const char *name)
{
    return name && name[0] && strlen(name) < REGION_NAME_MAX;
}

HPM_EXPORT int hpm_region_begin(const char *name)
{
    struct hpm_thread *t;
    struct hpm_region_frame *f;
    struct hpm_region_rec *r;
    int rc;
    if (hpm__check_init() != HPM_OK)
        return HPM_ENOINIT;
    if (!name_ok(name))
        return HPM_EINVAL;
    rc = configure();
    if (rc != HPM_OK)
        return rc;
    t = hpm__self();
    if (!t)
        return HPM_ENOMEM;
    rc = thread_sets(t);
    if (rc != HPM_OK)
        return rc;
    if (t->depth == t->stack_cap) {
        struct hpm_region_frame *n = realloc(t->stack, sizeof *n * (size_t)t->stack_cap * 2);
        if (!n)
            return HPM_ENOMEM;
        t->stack = n;
        t->stack_cap *= 2;
    }
    pthread_mutex_lock(&t->rmu);
    for (r = t->recs; r && strcmp(r->name, name) != 0; r = r->next)
        ;
    if (!r) {
        r = calloc(1, sizeof *r);
        if (!r) {
            pthread_mutex_unlock(&t->rmu);
            return HPM_ENOMEM;
        }
        hpm__copy(r->name, sizeof r->name, name);
        r->next = t->recs;
        t->recs = r;
    }
    pthread_mutex_unlock(&t->rmu);
    f = &t->stack[t->depth];
    f->rec = r;
    f->took = tell_begin(name);
    rc = read_all(t, f->start);
    if (rc != HPM_OK) {
        tell_end(name, f->took);
        return rc;
    }
    t->depth++;
    return HPM_OK;
}

HPM_EXPORT int hpm_region_end(const char *name)
{
    struct hpm_thread *t;
    struct hpm_region_frame *f;
    int64_t v[HPM_REGION_MAX_EVENTS];
    int rc, i;
    if (hpm__check_init() != HPM_OK)
        return HPM_ENOINIT;
    if (!name)
        return HPM_EINVAL;
    t = hpm__self_if_any();
    if (!t || t->depth == 0)
        return HPM_ENOREGION;
    f = &t->stack[t->depth - 1];
    /* read first, name check after: what strcmp costs depends on where the
     * two strings lie (glibc checks for page crossings), and a region's
     * counts should hold only code that is the same for every region */
    rc = read_all(t, v);
    if (strcmp(f->rec->name, name) != 0)
        return HPM_ENOREGION;
    tell_end(name, f->took);
    t->depth--;
    if (rc != HPM_OK)
        return rc;
    pthread_mutex_lock(&t->rmu);
    for (i = 0; i < g_hpm.region_n; i++) {
        hpm_event_t e = g_hpm.region_events[i];
        struct hpm_set *s = t->rsets[HPM_EVENT_COMPONENT(e)];
        if (s->ev_flags[where[i].pos] & HPM_EVENT_INSTANT)
            f->rec->values[i] = v[i]; /* a level: the value at the last end */
        else
            f->rec->values[i] += v[i] - f->start[i];
    }
    f->rec->calls++;
    pthread_mutex_unlock(&t->rmu);
    return HPM_OK;
}

HPM_EXPORT int hpm_region_read(const char *name, int64_t *values, int max, uint64_t *calls)
{
    struct hpm_thread *t;
    struct hpm_region_rec *r;
    int n, i;
    if (hpm__check_init() != HPM_OK)
        return HPM_ENOINIT;
    if (!name || max < 0 || (max > 0 && !values))
        return HPM_EINVAL;
    t = hpm__self_if_any();
    if (!t)
        return HPM_ENOREGION;
    pthread_mutex_lock(&t->rmu);
    for (r = t->recs; r && strcmp(r->name, name) != 0; r = r->next)
        ;
    if (!r) {
        pthread_mutex_unlock(&t->rmu);
        return HPM_ENOREGION;
    }
    n = g_hpm.region_n < max ? g_hpm.region_n : max;
    for (i = 0; i < n; i++)
        values[i] = r->values[i];
    if (calls)
        *calls = r->calls;
    pthread_mutex_unlock(&t->rmu);
    /* max 0 asks how many values there are */
    return max == 0 ? g_hpm.region_n : n;
}

HPM_EXPORT int hpm_region_report(FILE *out)
{
    struct hpm_thread *t;
    char names[HPM_REGION_MAX_EVENTS][HPM_NAME_MAX];
    int i, n, first_thread = 1;
    if (hpm__check_init() != HPM_OK)
        return HPM_ENOINIT;
    if (!out)
        return HPM_EINVAL;
    pthread_mutex_lock(&g_hpm.lock);
    n = g_hpm.region_n;
    pthread_mutex_unlock(&g_hpm.lock);
    for (i = 0; i < n; i++) {
        struct hpm_event_info info;
        if (hpm_event_info(g_hpm.region_events[i], &info) != HPM_OK)
            snprintf(info.name, sizeof info.name, "event%d", i);
        memcpy(names[i], info.name, HPM_NAME_MAX);
    }
    fprintf(out, "{\"events\": [");
    for (i = 0; i < n; i++) {
        fprintf(out, "%s", i ? ", " : "");
        hpm_json_string(out, names[i]);
    }
    fprintf(out, "],\n \"threads\": [");
    pthread_mutex_lock(&g_hpm.lock);
    for (t = g_hpm.threads; t; t = t->next) {
        struct hpm_region_rec *r;
        int first = 1;
        pthread_mutex_lock(&t->rmu);
        if (!t->recs) {
            pthread_mutex_unlock(&t->rmu);
            continue;
        }
        fprintf(out, "%s\n  {\"thread\": %lu, \"tid\": %d, \"regions\": [", first_thread ? "" : ",",
                t->id, (int)t->tid);
        first_thread = 0;
        for (r = t->recs; r; r = r->next) {
            fprintf(out, "%s\n    {\"name\": ", first ? "" : ",");
            first = 0;
            hpm_json_string(out, r->name);
            fprintf(out, ", \"calls\": %" PRIu64 ", \"counts\": {", r->calls);
            for (i = 0; i < n; i++) {
                fprintf(out, "%s", i ? ", " : "");
                hpm_json_string(out, names[i]);
                fprintf(out, ": %" PRId64, r->values[i]);
            }
            fprintf(out, "}}");
        }
        fprintf(out, "]}");
        pthread_mutex_unlock(&t->rmu);
    }
    pthread_mutex_unlock(&g_hpm.lock);
    fprintf(out, "\n]}\n");
    fflush(out);
    return ferror(out) ? HPM_ESYS : HPM_OK;
}

void hpm__regions_thread_exit(struct hpm_thread *t)
{
    int k;
    for (k = 0; k < HPM_NCOMP; k++) {
        hpm__set_free(t->rsets[k]);
        t->rsets[k] = NULL;
    }
    free(t->stack); /* regions still open are not counted */
    t->stack = NULL;
    t->depth = t->stack_cap = 0;
}

void hpm__regions_free_thread(struct hpm_thread *t)
{
    struct hpm_region_rec *r, *next;
    hpm__regions_thread_exit(t);
    pthread_mutex_lock(&t->rmu);
    for (r = t->recs; r; r = next) {
        next = r->next;
        free(r);
    }
    t->recs = NULL;
    pthread_mutex_unlock(&t->rmu);
}

void hpm__regions_reset(void)
{
    g_hpm.region_n = 0;
    g_hpm.region_configured = 0;
    g_hpm.region_started = 0;
}
