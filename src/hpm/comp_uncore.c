/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comp_uncore.c - the perf_event_uncore component: the virtual node's
 * node-wide units (shared L3, DDR, torus and collective networks, I/O and
 * kernel units, the node's cycles) as an uncore, under the name PAPI's
 * uncore component has and PAPI programs look up. One event per node-wide
 * kind the tool programmed, named by the kind ("DDR_READ_BYTES",
 * "L3_READ_MISSES", "TORUS_HOPS"): its UPC count (HPM_VPMU_READ_EVENTS,
 * node scope), the same count sim's node-wide event of that name gives.
 *
 * What makes it a component of its own is what makes an uncore one on
 * hardware: its counts are the node's, not a thread's. A set is not bound
 * to its thread (any thread may read it), and it runs beside the thread's
 * sim set (PAPI's rule of one running set per component and thread would
 * otherwise keep a program from counting its core events and the node's at
 * once). Node counts take no user or kernel side (domains: both). A set
 * may be attached to a modeled CPU (PAPI_CPU_ATTACH, as PAPI's uncore
 * wants): every CPU sees the one node. Only under `hpm run` / `hpm count`;
 * natively it is disabled with that reason. Overflow is the core's
 * software check.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "catalog.h"
#include "hpm_client.h"
#include "hpm_internal.h"

static struct {
    int n_codes;
    uint32_t codes[HPM_CAT_CODES];
    int n;                           /* events: node kinds programmed */
    uint16_t kind[HPM_K_NODE_COUNT]; /* event index -> kind */
    int16_t pos[HPM_K_NODE_COUNT];   /* event index -> position in codes[] */
} U;

static int uncore_init(struct hpm_component_info *info, char *reason, size_t len)
{
    long n;
    int i;
    memset(&U, 0, sizeof U);
    info->description = "the virtual node's node-wide units (L3, DDR, networks, I/O, kernel) "
                        "as an uncore (under `hpm run`)";
    info->num_counters = 0;
    info->domains = info->default_domain = HPM_DOMAIN_ALL;
    info->flags = HPM_COMP_MODELED | HPM_COMP_CPU;
    if (!HPM_VPMU_IS_RUNNING()) {
        snprintf(reason, len, "reads the node-wide units of the hpm virtual PMU: the program "
                              "must run under `hpm run` or `hpm count`");
        return HPM_ENOCOMP;
    }
    n = HPM_VPMU_EVENTS(U.codes, HPM_CAT_CODES);
    if (n < 0 || n > HPM_CAT_CODES)
        n = 0;
    U.n_codes = (int)n;
    for (i = 0; i < U.n_codes && U.n < HPM_K_NODE_COUNT; i++) {
        unsigned kind;
        int core;
        if (hpm_catalog_decode(U.codes[i], &kind, &core) == 0 && core < 0) {
            U.kind[U.n] = (uint16_t)kind;
            U.pos[U.n++] = (int16_t)i;
        }
    }
    if (U.n == 0) {
        snprintf(reason, len, "the virtual PMU counts no node-wide event (hpm run -e ... left "
                              "them out)");
        return HPM_ENOCOMP;
    }
    info->num_events = U.n;
    return HPM_OK;
}

static int uncore_event_first(uint32_t *index)
{
    *index = 0;
    return U.n > 0 ? HPM_OK : HPM_ENOEVENT;
}

static int uncore_event_next(uint32_t *index)
{
    if (*index + 1 >= (uint32_t)U.n)
        return HPM_ENOEVENT;
    ++*index;
    return HPM_OK;
}

static int uncore_event_lookup(const char *name, uint32_t *index)
{
    int i;
    for (i = 0; i < U.n; i++)
        if (hpm_catalog_name_eq(name, strlen(name), hpm_catalog_kind(U.kind[i])->name)) {
            *index = (uint32_t)i;
            return HPM_OK;
        }
    return HPM_ENOEVENT;
}

static int uncore_event_describe(uint32_t index, struct hpm_event_info *info)
{
    const struct hpm_cat_kind_info *k;
    if (index >= (uint32_t)U.n)
        return HPM_ENOEVENT;
    k = hpm_catalog_kind(U.kind[index]);
    hpm__copy(info->name, sizeof info->name, k->name);
    snprintf(info->description, sizeof info->description, "%s (node-wide)", k->description);
    hpm__copy(info->units, sizeof info->units, k->units);
    /* the host-measured kinds are measurements, the others the model's */
    info->flags = HPM_EVENT_NODE_WIDE | (k->source == HPM_SRC_HOST ? 0 : HPM_EVENT_MODELED);
    return HPM_OK;
}

/* ------------------------------------------------------------ sets */

struct uncore_set {
    int n;
    uint32_t ev[HPM_COMP_MAX_EVENTS];
    uint64_t base[HPM_COMP_MAX_EVENTS];
};

static int uncore_set_init(void *st)
{
    memset(st, 0, sizeof(struct uncore_set));
    return HPM_OK;
}

static int uncore_set_update(void *st, const uint32_t *ev, int n, const struct hpm_set_opts *o)
{
    struct uncore_set *s = st;
    int i;
    if (o->attach || o->inherit)
        return HPM_ENOTSUP; /* this process's node only */
    for (i = 0; i < n; i++) {
        if (ev[i] >= (uint32_t)U.n)
            return HPM_EINVAL;
        s->ev[i] = ev[i];
    }
    s->n = n;
    return HPM_OK;
}

static int uncore_now(const struct uncore_set *s, uint64_t *v)
{
    uint64_t node[HPM_CAT_CODES];
    int i;
    if (HPM_VPMU_READ_EVENTS(node, U.n_codes, HPM_VPMU_SCOPE_NODE) != U.n_codes)
        return HPM_ESYS; /* never a made-up 0 */
    for (i = 0; i < s->n; i++)
        v[i] = node[U.pos[s->ev[i]]];
    return HPM_OK;
}

static int uncore_reset(void *st)
{
    struct uncore_set *s = st;
    return uncore_now(s, s->base);
}

static int uncore_start(void *st, uint64_t *native_failed)
{
    (void)native_failed; /* overflow is the core's software check */
    return uncore_reset(st);
}

static int uncore_read(void *st, int64_t *values)
{
    struct uncore_set *s = st;
    uint64_t now[HPM_COMP_MAX_EVENTS];
    int i, rc = uncore_now(s, now);
    if (rc != HPM_OK)
        return rc;
    for (i = 0; i < s->n; i++)
        values[i] = (int64_t)(now[i] - s->base[i]);
    return HPM_OK;
}

static int uncore_stop(void *st, int64_t *values)
{
    return uncore_read(st, values);
}

static void uncore_cleanup(void *st)
{
    (void)st;
}

const struct hpm_component hpm_comp_uncore = {
    .name = "perf_event_uncore",
    .ci_flags = HPM_CI_FORK_LOCAL, /* the tool of a forked child counts its node anew */
    .set_size = sizeof(struct uncore_set),
    .init = uncore_init,
    .shutdown = NULL,
    .event_first = uncore_event_first,
    .event_next = uncore_event_next,
    .event_lookup = uncore_event_lookup,
    .event_describe = uncore_event_describe,
    .set_init = uncore_set_init,
    .set_update = uncore_set_update,
    .set_overflow = NULL,
    .start = uncore_start,
    .stop = uncore_stop,
    .read = uncore_read,
    .reset = uncore_reset,
    .overflow_dispatch = NULL,
    .cleanup = uncore_cleanup,
};
