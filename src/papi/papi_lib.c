/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_lib.c - library life cycle and components.
 *
 * Near the top of libpapi's call graph: init and shutdown call the other
 * files; only papi_options.c and papi_rate.c call in here (component info,
 * PAPI_library_init), and this file calls neither of them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "papi_internal.h"

/* ================================================================ components */

/* Disabling is asked for before PAPI_library_init, when the components are
 * not probed yet: remember the request and apply it at init. */
#define MAX_PENDING_DISABLE 16
static char pending_disable_name[MAX_PENDING_DISABLE][PAPI_MIN_STR_LEN];
static int pending_disable_idx[MAX_PENDING_DISABLE];
static int n_pending_name, n_pending_idx;

/* hpm domains <-> PAPI domains: the bits are the same for user and kernel;
 * PAPI's OTHER and SUPERVISOR have no hpm counterpart. */
static int papi_domains_of(unsigned hpm_domains)
{
    int d = 0;
    if (hpm_domains & HPM_DOMAIN_USER)
        d |= PAPI_DOM_USER;
    if (hpm_domains & HPM_DOMAIN_KERNEL)
        d |= PAPI_DOM_KERNEL;
    return d;
}

static void component_fill(struct papi_component *c, int cidx)
{
    PAPI_component_info_t *pi = &c->info;
    const struct hpm_component_info *h = &c->hpm;
    memset(pi, 0, sizeof *pi);
    papi_copy(pi->name, sizeof pi->name, h->name);
    papi_copy(pi->short_name, sizeof pi->short_name, h->name);
    papi_copy(pi->description, sizeof pi->description, h->description);
    papi_copy(pi->version, sizeof pi->version, "hpm 1");
    papi_copy(pi->support_version, sizeof pi->support_version, "libhpm");
    papi_copy(pi->kernel_version, sizeof pi->kernel_version, "");
    if (c->user_disabled) {
        pi->disabled = PAPI_ECMP_DISABLED;
        papi_copy(pi->disabled_reason, sizeof pi->disabled_reason, "disabled by the program");
    } else if (!h->enabled) {
        pi->disabled = PAPI_ECMP;
        papi_copy(pi->disabled_reason, sizeof pi->disabled_reason,
                  h->disabled_reason ? h->disabled_reason : "not available here");
    }
    pi->initialized = 1;
    pi->CmpIdx = cidx;
    /* hpm's counters: the virtual PMU's are those of its UPC units (256
     * each). 0 from hpm means "no limit" (os, sde): PAPI programs size
     * arrays from num_cntrs and some tests run their workload once per
     * counter, so report a finite width, that of a typical hardware PMU;
     * their sets may hold more events than this. */
    pi->num_cntrs = h->num_counters > 0 ? h->num_counters : 16;
    pi->num_mpx_cntrs = (h->flags & HPM_COMP_MULTIPLEX) || h->num_counters == 0
                            ? (pi->num_cntrs > 384 ? pi->num_cntrs : 384)
                            : pi->num_cntrs;
    if (pi->num_mpx_cntrs > 512 && pi->num_mpx_cntrs > pi->num_cntrs)
        pi->num_mpx_cntrs = pi->num_cntrs > 512 ? pi->num_cntrs : 512;
    pi->num_native_events = h->num_events;
    pi->default_domain = papi_domains_of(h->default_domain);
    pi->available_domains = papi_domains_of(h->domains);
    if (h->domains & HPM_DOMAIN_USER && h->domains & HPM_DOMAIN_KERNEL)
        pi->available_domains |= PAPI_DOM_ALL;
    pi->default_granularity = PAPI_GRN_THR;
    pi->available_granularities = PAPI_GRN_THR;
    pi->hardware_intr_sig = hpm_overflow_signal();
    pi->component_type = 0;
    pi->hardware_intr = (h->flags & HPM_COMP_OVERFLOW) ? 1 : 0;
    pi->precise_intr = (h->flags & HPM_COMP_MODELED) ? 1 : 0;
    pi->kernel_multiplex = (h->flags & HPM_COMP_MULTIPLEX) ? 1 : 0;
    pi->fast_real_timer = 1;
    pi->fast_virtual_timer = 1;
    pi->attach = (h->flags & HPM_COMP_ATTACH) ? 1 : 0;
    /* as PAPI's perf_event component says: the caller stops the target
     * with ptrace between attach and start (PAPI's attach tests stop their
     * child so; the virtual PMU's target publishes its counts as it stops) */
    pi->attach_must_ptrace = pi->attach;
    pi->inherit = (h->flags & HPM_COMP_INHERIT) ? 1 : 0;
    c->default_domain = pi->default_domain ? pi->default_domain : PAPI_DOM_USER;
    c->default_granularity = PAPI_GRN_THR;
}

static int components_probe(void)
{
    int n = hpm_num_components();
    if (n < 0)
        return papi_from_hpm(n, OP_ANY);
    struct papi_component *comp = calloc(n ? (size_t)n : 1, sizeof *comp);
    if (!comp)
        return PAPI_ENOMEM;
    for (int i = 0; i < n; i++) {
        int rc = hpm_component_info(i, &comp[i].hpm);
        if (rc < 0) {
            free(comp);
            return papi_from_hpm(rc, OP_ANY);
        }
        for (int k = 0; k < n_pending_idx; k++)
            if (pending_disable_idx[k] == i)
                comp[i].user_disabled = 1;
        for (int k = 0; k < n_pending_name; k++)
            if (comp[i].hpm.name && strcasecmp(pending_disable_name[k], comp[i].hpm.name) == 0)
                comp[i].user_disabled = 1;
    }
    papi_lib.comp = comp;
    papi_lib.ncomp = n;
    return PAPI_OK;
}

int PAPI_num_components(void)
{
    return papi_inited() ? papi_lib.ncomp : 0;
}

const PAPI_component_info_t *PAPI_get_component_info(int cidx)
{
    if (!papi_inited() || cidx < 0 || cidx >= papi_lib.ncomp)
        return NULL;
    struct papi_component *c = &papi_lib.comp[cidx];
    c->info.num_preset_events = papi_preset_count(cidx);
    return &c->info;
}

int PAPI_get_component_index(const char *name)
{
    if (!papi_inited())
        return papi_ret(PAPI_ENOINIT);
    if (!name)
        return papi_ret(PAPI_EINVAL);
    for (int i = 0; i < papi_lib.ncomp; i++)
        if (strcasecmp(papi_lib.comp[i].info.name, name) == 0)
            return i;
    return papi_ret(PAPI_ENOCMP);
}

int PAPI_disable_component(int cidx)
{
    if (papi_inited())
        return papi_ret(PAPI_ENOINIT); /* PAPI: only possible before init */
    if (cidx < 0)
        return papi_ret(PAPI_ENOCMP);
    /* The components are probed only at init; check the index against
     * libhpm now so that a bad one fails here, as PAPI's does. */
    int n = hpm_init() >= 0 ? hpm_num_components() : 0;
    if (cidx >= n)
        return papi_ret(PAPI_ENOCMP);
    if (n_pending_idx == MAX_PENDING_DISABLE)
        return papi_ret(PAPI_ENOMEM);
    pending_disable_idx[n_pending_idx++] = cidx;
    return PAPI_OK;
}

int PAPI_disable_component_by_name(const char *name)
{
    if (papi_inited())
        return papi_ret(PAPI_ENOINIT);
    if (!name)
        return papi_ret(PAPI_EINVAL);
    if (hpm_init() < 0 || hpm_component_find(name) < 0)
        return papi_ret(PAPI_ENOCMP);
    if (n_pending_name == MAX_PENDING_DISABLE)
        return papi_ret(PAPI_ENOMEM);
    papi_copy(pending_disable_name[n_pending_name++], PAPI_MIN_STR_LEN, name);
    return PAPI_OK;
}

int PAPI_num_cmp_hwctrs(int cidx)
{
    if (!papi_inited() || cidx < 0 || cidx >= papi_lib.ncomp)
        return 0; /* PAPI documents 0, not an error code, here */
    return papi_lib.comp[cidx].info.num_cntrs;
}

int PAPI_num_hwctrs(void)
{
    return PAPI_num_cmp_hwctrs(0);
}

/* ================================================================ life cycle */

int PAPI_library_init(int version)
{
    /* Only major and minor must agree: revision changes keep the ABI. */
    if ((version & 0xffff0000) != PAPI_VER_CURRENT)
        return PAPI_EINVAL;
    /* A child of fork() inherits an initialised library whose sets belong
     * to the parent: initialising again in the child starts afresh. */
    if (papi_inited() && papi_lib.pid != getpid())
        PAPI_shutdown();
    pthread_mutex_lock(&papi_mutex);
    if (papi_inited()) {
        pthread_mutex_unlock(&papi_mutex);
        return PAPI_VER_CURRENT;
    }
    const char *dbg = getenv("PAPI_DEBUG");
    if (dbg && *dbg)
        papi_lib.debug = PAPI_VERB_ECONT;
    int rc = hpm_init();
    if (rc < 0) {
        pthread_mutex_unlock(&papi_mutex);
        return papi_from_hpm(rc, OP_ANY);
    }
    rc = components_probe();
    if (rc != PAPI_OK) {
        pthread_mutex_unlock(&papi_mutex);
        return rc;
    }
    for (int i = 0; i < papi_lib.ncomp; i++)
        component_fill(&papi_lib.comp[i], i);
    papi_sysinfo_init();
    papi_presets_resolve();
    papi_lib.init_level |= PAPI_LOW_LEVEL_INITED;
    papi_lib.pid = getpid();
    if (papi_lib.thread_id_fn)
        papi_lib.init_level |= PAPI_THREAD_LEVEL_INITED;
    pthread_mutex_unlock(&papi_mutex);
    return PAPI_VER_CURRENT;
}

int PAPI_is_initialized(void)
{
    return papi_lib.init_level;
}

void PAPI_shutdown(void)
{
    if (!papi_inited())
        return;
    /* first: the sets are freed next, and a thread's cache of the sets it
     * runs (papi_eventset.c) must know them stale before */
    __atomic_add_fetch(&papi_lib.generation, 1, __ATOMIC_RELEASE);
    papi_eventsets_destroy_all();
    pthread_mutex_lock(&papi_mutex);
    papi_threads_shutdown();
    papi_sysinfo_shutdown();
    hpm_shutdown();
    free(papi_lib.comp);
    papi_lib.comp = NULL;
    papi_lib.ncomp = 0;
    papi_lib.init_level = 0;
    papi_lib.thread_id_fn = NULL;
    n_pending_idx = n_pending_name = 0;
    __atomic_add_fetch(&papi_lib.generation, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&papi_mutex);
}
