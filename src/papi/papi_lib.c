/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_lib.c - library life cycle, error codes and components.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "papi_internal.h"

struct papi_library papi_lib = { .debug = PAPI_QUIET, .default_mpx_ns = 10000000 };
pthread_mutex_t papi_mutex = PTHREAD_MUTEX_INITIALIZER;

void papi_copy(char *dst, size_t size, const char *src)
{
    if (size == 0)
        return;
    if (!src)
        src = "";
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* ================================================================ errors */

/* PAPI_strerror's sentences, indexed by -code. */
static char *const error_text[PAPI_NUM_ERRORS] = {
    [0] = "No error",
    [-PAPI_EINVAL] = "Invalid argument",
    [-PAPI_ENOMEM] = "Insufficient memory",
    [-PAPI_ESYS] = "A system or C library call failed",
    [-PAPI_ECMP] = "Not supported by component",
    [-PAPI_ECLOST] = "Access to the counters was lost or interrupted",
    [-PAPI_EBUG] = "Internal error in the PAPI library",
    [-PAPI_ENOEVNT] = "Event does not exist",
    [-PAPI_ECNFLCT] = "Event exists, but cannot be counted due to counter resource limitations",
    [-PAPI_ENOTRUN] = "EventSet is currently not running",
    [-PAPI_EISRUN] = "EventSet is currently counting",
    [-PAPI_ENOEVST] = "No such EventSet available",
    [-PAPI_ENOTPRESET] = "Event in argument is not a valid preset",
    [-PAPI_ENOCNTR] = "Hardware does not support performance counters",
    [-PAPI_EMISC] = "Unknown error code",
    [-PAPI_EPERM] = "Permission level does not permit operation",
    [-PAPI_ENOINIT] = "PAPI has not been initialized",
    [-PAPI_ENOCMP] = "Component index is not set or is invalid",
    [-PAPI_ENOSUPP] = "Not supported",
    [-PAPI_ENOIMPL] = "Not implemented",
    [-PAPI_EBUF] = "Buffer size exceeded",
    [-PAPI_EINVAL_DOM] = "EventSet domain is not supported for the operation",
    [-PAPI_EATTR] = "Invalid or missing event attributes",
    [-PAPI_ECOUNT] = "Too many events or attributes",
    [-PAPI_ECOMBO] = "Bad combination of features",
    [-PAPI_ECMP_DISABLED] = "Component containing event is disabled",
    [-PAPI_EDELAY_INIT] = "Delayed initialization component",
    [-PAPI_EMULPASS] = "Event exists, but cannot be counted due to multiple passes required by hardware",
};

char *PAPI_strerror(int code)
{
    if (code > 0 || code <= -PAPI_NUM_ERRORS)
        return NULL;
    return error_text[-code];
}

static _Thread_local int last_error = PAPI_OK;

int papi_ret(int status)
{
    if (status < 0) {
        last_error = status;
        if (papi_lib.debug != PAPI_QUIET) {
            const char *s = PAPI_strerror(status);
            fprintf(stderr, "PAPI Error: %s\n", s ? s : "unknown error");
            if (papi_lib.debug == PAPI_VERB_ESTOP)
                exit(status);
        }
    }
    return status;
}

void PAPI_perror(const char *msg)
{
    const char *s = PAPI_strerror(last_error);
    if (!s)
        return;
    if (msg && *msg)
        fprintf(stderr, "%s: ", msg);
    fprintf(stderr, "%s\n", s);
}

int PAPI_set_debug(int level)
{
    if (level != PAPI_QUIET && level != PAPI_VERB_ECONT && level != PAPI_VERB_ESTOP)
        return papi_ret(PAPI_EINVAL);
    papi_lib.debug = level;
    return PAPI_OK;
}

/* hpm status -> PAPI status. Rows with a specific operation come first and
 * win; OP_ANY rows are the general meaning. */
static const struct {
    int hpm;
    enum papi_op op;
    int papi;
} error_map[] = {
    { HPM_ECONFLICT, OP_START, PAPI_EISRUN },   /* another set of the component runs here */
    { HPM_ERUNNING, OP_START, PAPI_EISRUN },
    { HPM_ENOTSUP, OP_OVERFLOW, PAPI_ENOSUPP },
    { HPM_ENOTSUP, OP_OPTION, PAPI_ECMP },
    { HPM_ENOEVENT, OP_START, PAPI_EINVAL },    /* empty set */
    { HPM_ENOCOMP, OP_NAME, PAPI_ENOEVNT },     /* only a disabled component has it */
    { HPM_ENOCOMP, OP_ADD, PAPI_ECMP_DISABLED },
    { HPM_OK, OP_ANY, PAPI_OK },
    { HPM_EINVAL, OP_ANY, PAPI_EINVAL },
    { HPM_ENOMEM, OP_ANY, PAPI_ENOMEM },
    { HPM_ESYS, OP_ANY, PAPI_ESYS },
    { HPM_ENOINIT, OP_ANY, PAPI_ENOINIT },
    { HPM_ENOEVENT, OP_ANY, PAPI_ENOEVNT },
    { HPM_ENOCOMP, OP_ANY, PAPI_ENOCMP },
    { HPM_ECONFLICT, OP_ANY, PAPI_ECNFLCT },
    { HPM_ECOUNTERS, OP_ANY, PAPI_ECNFLCT },
    { HPM_ENOSET, OP_ANY, PAPI_ENOEVST },
    { HPM_ERUNNING, OP_ANY, PAPI_EISRUN },
    { HPM_ENOTRUNNING, OP_ANY, PAPI_ENOTRUN },
    { HPM_EEXISTS, OP_ANY, PAPI_ECNFLCT },
    { HPM_ENOTSUP, OP_ANY, PAPI_ECMP },
    { HPM_EPERM, OP_ANY, PAPI_EPERM },
    { HPM_ENOREGION, OP_ANY, PAPI_EINVAL },
    { HPM_EBUG, OP_ANY, PAPI_EBUG },
};

int papi_from_hpm(int hpm_status, enum papi_op op)
{
    if (hpm_status >= 0)
        return PAPI_OK;
    for (size_t i = 0; i < sizeof error_map / sizeof error_map[0]; i++)
        if (error_map[i].hpm == hpm_status && error_map[i].op == op)
            return error_map[i].papi;
    for (size_t i = 0; i < sizeof error_map / sizeof error_map[0]; i++)
        if (error_map[i].hpm == hpm_status && error_map[i].op == OP_ANY)
            return error_map[i].papi;
    return PAPI_EMISC;
}

/* ================================================================ components */

/* Disabling is asked for before PAPI_library_init, when the components are
 * not probed yet: remember the request and apply it at init. */
#define MAX_PENDING_DISABLE 16
static char pending_disable_name[MAX_PENDING_DISABLE][PAPI_MIN_STR_LEN];
static int pending_disable_idx[MAX_PENDING_DISABLE];
static int n_pending_name, n_pending_idx;

int papi_component_usable(int cidx)
{
    if (cidx < 0 || cidx >= papi_lib.ncomp)
        return 0;
    return papi_lib.comp[cidx].hpm.enabled && !papi_lib.comp[cidx].user_disabled;
}

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
    papi_rate_shutdown();
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
    pthread_mutex_unlock(&papi_mutex);
}
