/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * core.c - libhpm's life cycle, the component table, event names and ids,
 * status texts and the thread registry.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "catalog.h"
#include "hpm_internal.h"

struct hpm_global g_hpm = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* hpm_component_info order: sim first, so that a bare name ("INSTRUCTIONS")
 * means the virtual PMU's event when the program runs under it. */
static const struct hpm_component *const comps[HPM_NCOMP] = {&hpm_comp_sim, &hpm_comp_perf,
                                                              &hpm_comp_os, &hpm_comp_sde};

/* The calling thread's record. initial-exec: the signal handler reads it,
 * and a dynamic TLS access could allocate there. tls_epoch tells a record
 * freed by hpm_shutdown from a live one. */
static __thread struct hpm_thread *tls_self __attribute__((tls_model("initial-exec")));
static __thread unsigned tls_epoch __attribute__((tls_model("initial-exec")));

static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t exit_key;

/* ------------------------------------------------------------ helpers */

void hpm__copy(char *dst, size_t len, const char *src)
{
    size_t n = strlen(src);
    if (len == 0)
        return;
    if (n >= len)
        n = len - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* The catalog's compare (the one case-insensitive compare of hpm), for the
 * names of every component */
int hpm__strcaseeq(const char *a, const char *b)
{
    return a && b && hpm_catalog_name_eq(a, strlen(a), b);
}

pid_t hpm__gettid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

int hpm__check_init(void)
{
    int ok;
    pthread_mutex_lock(&g_hpm.lock);
    ok = g_hpm.initialized;
    pthread_mutex_unlock(&g_hpm.lock);
    return ok ? HPM_OK : HPM_ENOINIT;
}

int hpm__comp_enabled(int comp)
{
    return comp >= 0 && comp < HPM_NCOMP && g_hpm.comp[comp].info.enabled;
}

/* ------------------------------------------------------------ errors */

/* Indexed by -status. */
static const char *const status_text[] = {
    [0] = "success",
    [-HPM_EINVAL] = "invalid argument",
    [-HPM_ENOMEM] = "out of memory",
    [-HPM_ESYS] = "a system call failed",
    [-HPM_ENOINIT] = "libhpm is not initialised (call hpm_init)",
    [-HPM_ENOEVENT] = "no such event",
    [-HPM_ENOCOMP] = "no such component, or it is disabled here",
    [-HPM_ECONFLICT] = "the events cannot be counted together (another component's event, "
                       "hardware constraints, or another set of this component already "
                       "running on this thread)",
    [-HPM_ECOUNTERS] = "no counter left for this event (try multiplexing)",
    [-HPM_ENOSET] = "no such event set",
    [-HPM_ERUNNING] = "the event set is running: stop it first",
    [-HPM_ENOTRUNNING] = "the event set is not running",
    [-HPM_EEXISTS] = "the event is already in the set",
    [-HPM_ENOTSUP] = "the component cannot do this (domain, attach, inherit or overflow)",
    [-HPM_EPERM] = "the kernel refused (perf_event_paranoid or ptrace permissions)",
    [-HPM_ENOREGION] = "region end without a matching begin",
    [-HPM_EBUG] = "internal error: a bug in libhpm",
};

HPM_EXPORT const char *hpm_strerror(int status)
{
    if (status > 0 || status < HPM_E_LAST)
        return "unknown error";
    return status_text[-status];
}

/* ------------------------------------------------------------ threads */

static void thread_exit(void *unused)
{
    struct hpm_thread *t;
    (void)unused;
    pthread_mutex_lock(&g_hpm.lock);
    t = (g_hpm.initialized && tls_epoch == g_hpm.epoch) ? tls_self : NULL;
    pthread_mutex_unlock(&g_hpm.lock);
    if (!t)
        return;
    /* the thread's counts cannot be read once it is gone: freeze them now */
    hpm__thread_stop_sets(t);
    hpm__timer_delete(t);
    pthread_mutex_lock(&g_hpm.lock);
    t->alive = 0;
    pthread_mutex_unlock(&g_hpm.lock);
    tls_self = NULL;
}

static void make_key(void)
{
    if (pthread_key_create(&exit_key, thread_exit) != 0)
        exit_key = (pthread_key_t)-1;
}

struct hpm_thread *hpm__self_if_any(void)
{
    /* signal context: no lock. An epoch mismatch means hpm_shutdown freed it. */
    if (tls_self && tls_epoch == __atomic_load_n(&g_hpm.epoch, __ATOMIC_ACQUIRE))
        return tls_self;
    return NULL;
}

struct hpm_thread *hpm__self(void)
{
    /* an existing record is the thread's own: no lock to find it */
    struct hpm_thread *t = hpm__self_if_any();
    if (t)
        return t;
    t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    pthread_mutex_lock(&g_hpm.lock);
    t->tid = hpm__gettid();
    t->id = g_hpm.id_fn ? g_hpm.id_fn() : (unsigned long)t->tid;
    t->alive = 1;
    pthread_mutex_init(&t->rmu, NULL);
    t->next = g_hpm.threads;
    g_hpm.threads = t;
    tls_self = t;
    tls_epoch = g_hpm.epoch;
    pthread_mutex_unlock(&g_hpm.lock);
    /* any non-NULL value makes the destructor run at thread exit */
    if (exit_key != (pthread_key_t)-1)
        pthread_setspecific(exit_key, (void *)1);
    return t;
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
    t = (tls_self && tls_epoch == g_hpm.epoch) ? tls_self : NULL;
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
    hpm__thread_stop_sets(t);
    hpm__timer_delete(t);
    pthread_mutex_lock(&g_hpm.lock);
    t->alive = 0;
    pthread_mutex_unlock(&g_hpm.lock);
    /* the record stays (hpm_region_report); a later call makes a new one */
    tls_self = NULL;
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
            cs->c = comps[i];
            cs->info.id = i;
            cs->info.name = comps[i]->name;
            rc = comps[i]->init(&cs->info, cs->reason, sizeof cs->reason);
            cs->info.id = i;
            cs->info.name = comps[i]->name;
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
        g_hpm.initialized = 1;
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
        if (g_hpm.comp[i].c && g_hpm.comp[i].c->shutdown)
            g_hpm.comp[i].c->shutdown();
    hpm__regions_reset();
    g_hpm.initialized = 0;
    __atomic_add_fetch(&g_hpm.epoch, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&g_hpm.lock);
}

/* ------------------------------------------------------------ components */

HPM_EXPORT int hpm_num_components(void)
{
    if (hpm__check_init() != HPM_OK)
        return HPM_ENOINIT;
    return HPM_NCOMP;
}

HPM_EXPORT int hpm_component_info(int component, struct hpm_component_info *info)
{
    if (hpm__check_init() != HPM_OK)
        return HPM_ENOINIT;
    if (!info)
        return HPM_EINVAL;
    if (component < 0 || component >= HPM_NCOMP)
        return HPM_ENOCOMP;
    *info = g_hpm.comp[component].info;
    return HPM_OK;
}

HPM_EXPORT int hpm_component_find(const char *name)
{
    int i;
    if (hpm__check_init() != HPM_OK)
        return HPM_ENOINIT;
    if (!name)
        return HPM_EINVAL;
    for (i = 0; i < HPM_NCOMP; i++)
        if (hpm__strcaseeq(name, comps[i]->name))
            return i;
    return HPM_ENOCOMP;
}

/* ------------------------------------------------------------ events */

/* The component whose name is prefix[0..len), or -1. */
static int comp_by_prefix(const char *prefix, size_t len)
{
    int i;
    for (i = 0; i < HPM_NCOMP; i++) {
        const char *n = comps[i]->name;
        size_t k;
        if (strlen(n) != len)
            continue;
        for (k = 0; k < len; k++) {
            char a = prefix[k], b = n[k];
            if (a >= 'A' && a <= 'Z')
                a = (char)(a - 'A' + 'a');
            if (a != b)
                break;
        }
        if (k == len)
            return i;
    }
    return -1;
}

HPM_EXPORT int hpm_event_find(const char *name, hpm_event_t *event)
{
    const char *sep;
    int i, any_disabled = 0;
    uint32_t idx;
    if (hpm__check_init() != HPM_OK)
        return HPM_ENOINIT;
    if (!name || !event || !name[0])
        return HPM_EINVAL;
    if (strlen(name) >= HPM_NAME_MAX)
        return HPM_ENOEVENT;
    sep = strstr(name, "::");
    if (sep) {
        int c = comp_by_prefix(name, (size_t)(sep - name));
        if (c >= 0) {
            int rc = comps[c]->event_lookup(sep + 2, &idx);
            if (rc == HPM_OK && !hpm__comp_enabled(c))
                rc = HPM_ENOCOMP;
            if (rc == HPM_OK)
                *event = HPM_EVENT_MAKE(c, idx);
            return rc;
        }
        /* "pmu::EVENT" of libpfm4: a name some component may know whole */
    }
    for (i = 0; i < HPM_NCOMP; i++) {
        int rc;
        if (comps[i]->ci_flags & HPM_CI_NAMED_ONLY)
            continue;
        rc = comps[i]->event_lookup(name, &idx);
        if (rc == HPM_OK && hpm__comp_enabled(i)) {
            *event = HPM_EVENT_MAKE(i, idx);
            return HPM_OK;
        }
        if (rc == HPM_OK || rc == HPM_ENOCOMP)
            any_disabled = 1;
    }
    return any_disabled ? HPM_ENOCOMP : HPM_ENOEVENT;
}

HPM_EXPORT int hpm_event_info(hpm_event_t event, struct hpm_event_info *info)
{
    int c = HPM_EVENT_COMPONENT(event), rc;
    struct hpm_event_info tmp;
    if (hpm__check_init() != HPM_OK)
        return HPM_ENOINIT;
    if (!info)
        return HPM_EINVAL;
    if (!hpm__comp_enabled(c))
        return HPM_ENOCOMP;
    memset(&tmp, 0, sizeof tmp);
    rc = comps[c]->event_describe(HPM_EVENT_INDEX(event), &tmp);
    if (rc != HPM_OK)
        return rc;
    memset(info, 0, sizeof *info);
    info->event = event;
    info->component = c;
    {
        /* components keep their names short enough for the prefix */
        size_t k = strlen(comps[c]->name);
        memcpy(info->name, comps[c]->name, k);
        memcpy(info->name + k, "::", 2);
        hpm__copy(info->name + k + 2, sizeof info->name - k - 2, tmp.name);
    }
    memcpy(info->description, tmp.description, sizeof info->description);
    memcpy(info->units, tmp.units, sizeof info->units);
    info->units[sizeof info->units - 1] = '\0';
    info->description[sizeof info->description - 1] = '\0';
    info->flags = tmp.flags;
    return HPM_OK;
}

HPM_EXPORT int hpm_event_first(int component, hpm_event_t *event)
{
    uint32_t idx;
    int rc;
    if (hpm__check_init() != HPM_OK)
        return HPM_ENOINIT;
    if (!event)
        return HPM_EINVAL;
    if (!hpm__comp_enabled(component))
        return HPM_ENOCOMP;
    rc = comps[component]->event_first(&idx);
    if (rc == HPM_OK)
        *event = HPM_EVENT_MAKE(component, idx);
    return rc;
}

HPM_EXPORT int hpm_event_next(hpm_event_t *event)
{
    uint32_t idx;
    int c, rc;
    if (hpm__check_init() != HPM_OK)
        return HPM_ENOINIT;
    if (!event)
        return HPM_EINVAL;
    c = HPM_EVENT_COMPONENT(*event);
    if (!hpm__comp_enabled(c))
        return HPM_ENOCOMP;
    idx = HPM_EVENT_INDEX(*event);
    rc = comps[c]->event_next(&idx);
    if (rc == HPM_OK)
        *event = HPM_EVENT_MAKE(c, idx);
    return rc;
}
