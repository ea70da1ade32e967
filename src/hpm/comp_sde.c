/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comp_sde.c - the sde component: software-defined events, the counters a
 * library exports through PAPI's SDE library (libsde, Debian's libsde1:
 * papi_sde_init, papi_sde_register_counter, papi_sde_create_counter, ...).
 *
 * libsde keeps the counters; a tool reads them through libsde's tool
 * interface (sde_lib_ti.h): sde_ti_name_to_code, sde_ti_read_counter,
 * sde_ti_reset_counter, ... We find those functions with dlsym in the
 * process: the component is enabled when the program (or a library it
 * loaded) links libsde, and disabled with that reason otherwise. We never
 * load libsde ourselves: a program without it has no software-defined
 * events to read.
 *
 * Semantics follow PAPI's own sde component: starting or resetting a set
 * resets each of its counters in libsde (sde_ti_reset_counter: a counter
 * libsde created is zeroed; for a registered variable, which belongs to the
 * library, libsde remembers the current value), and a read returns what
 * sde_ti_read_counter gives (libsde subtracts that remembered value for
 * delta counters and returns instant counters as they are). Counters are
 * process-wide, so any thread may read a set.
 *
 * Overflow: a counter libsde created (papi_sde_create_counter) tells us
 * every change: libsde calls papi_sde_check_overflow_status(id, value),
 * which it finds with dlsym in the process and which libhpm (and libpapi)
 * export, for a counter we armed with sde_ti_set_counter_overflow. As in
 * PAPI's sde component, the threshold applies to the counter's own value
 * (resets of a set do not move it): each change that passes the next
 * multiple of the threshold calls the handler once, and the deadline moves
 * past the value. Other counters (a registered variable: libsde cannot see
 * it change) are checked by the core's software timer.
 *
 * Names are "LIBRARY::COUNTER" and are resolved only when asked for with
 * the component's prefix ("sde::Lib::Counter", PAPI's "sde:::Lib::Counter"):
 * libsde answers an unknown name by creating a placeholder for a library
 * that may register it later, which a search of every component by a bare
 * name must not do.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "hpm_internal.h"

/* libsde's tool interface (PAPI 7, sde_lib_ti.h). */
static struct {
    int (*read_counter)(uint32_t id, long long *value);
    int (*reset_counter)(uint32_t id);
    int (*name_to_code)(const char *name, uint32_t *id);
    char *(*event_name)(int id);
    char *(*event_description)(int id);
    int (*num_events)(void);
    int (*set_counter_overflow)(uint32_t id, int threshold); /* optional */
} ti;

/* dlsym into a function pointer of any type: through a union, as POSIX
 * allows and -Wpedantic accepts. */
static void *sym(const char *name)
{
    return dlsym(RTLD_DEFAULT, name);
}
#define BIND(field, name)                                                                        \
    do {                                                                                         \
        union {                                                                                  \
            void *p;                                                                             \
            __typeof__(ti.field) f;                                                              \
        } u_;                                                                                    \
        u_.p = sym(name);                                                                        \
        ti.field = u_.f;                                                                         \
    } while (0)

static int sde_init(struct hpm_component_info *info, char *reason, size_t len)
{
    memset(&ti, 0, sizeof ti);
    BIND(read_counter, "sde_ti_read_counter");
    BIND(reset_counter, "sde_ti_reset_counter");
    BIND(name_to_code, "sde_ti_name_to_code");
    BIND(event_name, "sde_ti_get_event_name");
    BIND(event_description, "sde_ti_get_event_description");
    BIND(num_events, "sde_ti_get_num_reg_events");
    BIND(set_counter_overflow, "sde_ti_set_counter_overflow");
    info->description = "software-defined events of the libraries in this process (libsde)";
    info->num_counters = 0;
    info->domains = HPM_DOMAIN_ALL;
    info->default_domain = HPM_DOMAIN_ALL;
    info->flags = ti.set_counter_overflow ? HPM_COMP_OVERFLOW : 0;
    if (!ti.read_counter || !ti.reset_counter || !ti.name_to_code || !ti.event_name ||
        !ti.num_events) {
        snprintf(reason, len, "no library in this process exports software-defined events "
                              "(libsde's sde_ti_* functions not found)");
        memset(&ti, 0, sizeof ti);
        return HPM_ENOCOMP;
    }
    info->num_events = ti.num_events();
    return HPM_OK;
}

/* Codes are libsde's counter ids, 0 .. sde_ti_get_num_reg_events() - 1;
 * libraries register counters at any time, so the range is read each time. */
static int sde_event_first(uint32_t *index)
{
    if (!ti.num_events || ti.num_events() <= 0)
        return HPM_ENOEVENT;
    *index = 0;
    return HPM_OK;
}

static int sde_event_next(uint32_t *index)
{
    if (!ti.num_events || *index + 1 >= (uint32_t)ti.num_events())
        return HPM_ENOEVENT;
    ++*index;
    return HPM_OK;
}

static int sde_event_lookup(const char *name, uint32_t *index)
{
    uint32_t id;
    if (!ti.name_to_code)
        return HPM_ENOEVENT;
    /* every software-defined event is "LIBRARY::COUNTER" */
    if (!strstr(name, "::"))
        return HPM_ENOEVENT;
    if (ti.name_to_code(name, &id) != 0 || id > HPM_EVENT_INDEX(~0u))
        return HPM_ENOEVENT;
    *index = id;
    return HPM_OK;
}

static int sde_event_describe(uint32_t index, struct hpm_event_info *info)
{
    const char *name, *descr;
    if (!ti.event_name || index > 0x7fffffffu)
        return HPM_ENOEVENT;
    name = ti.event_name((int)index);
    if (!name)
        return HPM_ENOEVENT;
    descr = ti.event_description ? ti.event_description((int)index) : NULL;
    hpm__copy(info->name, sizeof info->name, name);
    hpm__copy(info->description, sizeof info->description,
              descr && *descr ? descr : "a software-defined event (libsde)");
    hpm__copy(info->units, sizeof info->units, "events");
    info->flags = 0;
    return HPM_OK;
}

/* ------------------------------------------------------------ sets */

struct sde_set {
    int n;
    uint32_t id[HPM_COMP_MAX_EVENTS];
    long long thr[HPM_COMP_MAX_EVENTS];      /* native threshold, 0: none */
    long long deadline[HPM_COMP_MAX_EVENTS]; /* the counter's value that fires next */
    int n_thr;
};

static int sde_set_init(void *st)
{
    memset(st, 0, sizeof(struct sde_set));
    return HPM_OK;
}

static int sde_set_update(void *st, const uint32_t *events, int n, const struct hpm_set_opts *o)
{
    struct sde_set *s = st;
    int i;
    if (o->attach || o->inherit)
        return HPM_ENOTSUP; /* counters of this process's libraries only */
    for (i = 0; i < s->n; i++)
        if (s->thr[i] > 0 && ti.set_counter_overflow)
            (void)ti.set_counter_overflow(s->id[i], 0);
    for (i = 0; i < n; i++) {
        s->id[i] = events[i];
        s->thr[i] = 0;
    }
    s->n = n;
    s->n_thr = 0;
    return HPM_OK;
}

/* libsde answers SDE_OK (0) for a created counter, which it will report
 * (papi_sde_check_overflow_status); 0xFF for one it cannot watch, which a
 * timer must poll: the core's software check. */
static int sde_set_overflow(void *st, int pos, int64_t threshold)
{
    struct sde_set *s = st;
    if (pos < 0 || pos >= s->n)
        return HPM_EINVAL;
    if (s->thr[pos] > 0) {
        (void)ti.set_counter_overflow(s->id[pos], 0);
        s->thr[pos] = 0;
        s->n_thr--;
    }
    if (threshold <= 0)
        return HPM_OK;
    if (!ti.set_counter_overflow || threshold > 0x7fffffff ||
        ti.set_counter_overflow(s->id[pos], (int)threshold) != 0)
        return HPM_ENOTSUP;
    s->thr[pos] = threshold;
    s->n_thr++;
    return HPM_OK;
}

static uint64_t sde_overflow_changed(void *st, uint32_t id, long long value)
{
    struct sde_set *s = st;
    uint64_t mask = 0;
    int i;
    for (i = 0; s->n_thr && i < s->n; i++)
        if (s->thr[i] > 0 && s->id[i] == id && value > s->deadline[i]) {
            /* the next multiple of the threshold past the value: one call
             * however many it passed, as PAPI's sde component does */
            s->deadline[i] = s->thr[i] * (value / s->thr[i]) + s->thr[i];
            mask |= 1ull << HPM_OVF_BIT(i);
        }
    return mask;
}

/* libsde's calls into PAPI (found with dlsym): a created counter changed;
 * a counter was registered while a set runs (its overflow is polled by
 * the core's timer already). */
HPM_EXPORT void papi_sde_check_overflow_status(uint32_t id, long long value)
{
    hpm__ovf_changed(&hpm_comp_sde, id, value);
}

HPM_EXPORT int papi_sde_set_timer_for_overflow(void)
{
    return 0;
}

static int sde_reset(void *st)
{
    struct sde_set *s = st;
    int i;
    for (i = 0; i < s->n; i++)
        if (ti.reset_counter(s->id[i]) != 0)
            return HPM_ESYS;
    return HPM_OK;
}

static int sde_start(void *st, uint64_t *native_failed)
{
    struct sde_set *s = st;
    int i;
    (void)native_failed;
    for (i = 0; s->n_thr && i < s->n; i++)
        s->deadline[i] = s->thr[i];
    return sde_reset(st);
}

static int sde_read(void *st, int64_t *values)
{
    struct sde_set *s = st;
    int i;
    for (i = 0; i < s->n; i++) {
        long long v;
        if (ti.read_counter(s->id[i], &v) != 0)
            return HPM_ESYS; /* never a made-up 0 */
        values[i] = (int64_t)v;
    }
    return HPM_OK;
}

static int sde_stop(void *st, int64_t *values)
{
    return sde_read(st, values);
}

static void sde_cleanup(void *st)
{
    struct sde_set *s = st;
    int i;
    for (i = 0; s->n_thr && i < s->n; i++)
        if (s->thr[i] > 0)
            (void)ti.set_counter_overflow(s->id[i], 0);
}

const struct hpm_component hpm_comp_sde = {
    .name = "sde",
    .ci_flags = HPM_CI_NAMED_ONLY,
    .set_size = sizeof(struct sde_set),
    .init = sde_init,
    .shutdown = NULL,
    .event_first = sde_event_first,
    .event_next = sde_event_next,
    .event_lookup = sde_event_lookup,
    .event_describe = sde_event_describe,
    .set_init = sde_set_init,
    .set_update = sde_set_update,
    .set_overflow = sde_set_overflow,
    .start = sde_start,
    .stop = sde_stop,
    .read = sde_read,
    .reset = sde_reset,
    .overflow_dispatch = NULL,
    .overflow_changed = sde_overflow_changed,
    .cleanup = sde_cleanup,
};
