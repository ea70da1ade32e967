/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * machine_info.c - hpm_machine_info: the machine of the first enabled
 * component that counts on one of its own (its machine_info slot: sim's
 * machine model under the virtual PMU, modeled = 1), else this host as
 * src/machine's host reader read it once (hpm_host: /proc/cpuinfo,
 * sysconf and /sys/devices/system/cpu; modeled = 0). The host's caches are
 * reported as sysfs gives them, not rounded to what the models could
 * simulate (hpm_machine_from_sysfs does that for `--machine host`).
 */
#define _GNU_SOURCE
#include <string.h>

#include "hpm_internal.h"
#include "host.h"

static void host_caches(struct hpm_machine_info *mi, const struct hpm_host *h, int ncpu)
{
    unsigned i;
    for (i = 0; i < h->n_caches && mi->n_caches < HPM_MAX_CACHES; i++) {
        const struct hpm_host_cache *hc = &h->caches[i];
        struct hpm_cache_info *c;
        if (hc->index >= 16 || !(hc->has & HPM_HOST_CACHE_SIZE))
            continue;
        c = &mi->caches[mi->n_caches++];
        c->level = (int)hc->level;
        c->size = hc->size;
        c->line_size = hc->has & HPM_HOST_CACHE_LINE ? (int)hc->line : 0;
        c->associativity = hc->has & HPM_HOST_CACHE_WAYS ? (int)hc->ways : 0;
        c->type = hc->type;
        c->shared = (hc->has & HPM_HOST_CACHE_SHARED) && ncpu > 1 && hc->shared_cpus >= ncpu;
    }
}

static void from_host(struct hpm_machine_info *mi)
{
    const struct hpm_host *h = hpm_host();
    const struct hpm_cpuinfo *ci = &h->cpu;
    int ncpu = h->cpus > 0 ? (int)h->cpus : ci->processors > 0 ? ci->processors : 1;
    mi->modeled = 0;
    hpm__copy(mi->name, sizeof mi->name, ci->model[0] ? ci->model : "unknown CPU");
    hpm__copy(mi->vendor, sizeof mi->vendor, ci->vendor[0] ? ci->vendor : "unknown");
    mi->threads_per_core =
        ci->siblings > 0 && ci->cores > 0 && ci->siblings >= ci->cores ? ci->siblings / ci->cores : 1;
    mi->cores = ncpu / mi->threads_per_core;
    if (mi->cores < 1)
        mi->cores = 1;
    mi->sockets = ci->sockets > 0 ? ci->sockets : 1;
    mi->mhz = h->mhz;
    mi->memory_bytes = h->memory_bytes;
    host_caches(mi, h, ncpu);
    mi->itlb_entries = mi->dtlb_entries = 0; /* not in sysfs */
    mi->page_size = h->page_size;
}

HPM_EXPORT int hpm_machine_info(struct hpm_machine_info *info)
{
    int k, rc;
    if (hpm__check_init() != HPM_OK)
        return HPM_ENOINIT;
    if (!info)
        return HPM_EINVAL;
    for (k = 0; k < HPM_NCOMP; k++) {
        if (!hpm__comp_enabled(k))
            continue;
        memset(info, 0, sizeof *info);
        rc = g_hpm.comp[k].c->machine_info(info);
        if (rc != HPM_ENOTSUP)
            return rc; /* an error too: then the host is not the machine counted */
    }
    memset(info, 0, sizeof *info);
    from_host(info);
    return HPM_OK;
}

/* ------------------------------------------------------------------ gates */

HPM_EXPORT int hpm_gate(int which, const void *code, hpm_event_t event, uint64_t n)
{
    int k, rc;
    if (hpm__check_init() != HPM_OK)
        return HPM_ENOINIT;
    if (which < HPM_GATE_CLEAR || which > HPM_GATE_TRIGGER)
        return HPM_EINVAL;
    if (which == HPM_GATE_TRIGGER) {
        /* the trigger's event says which component counts it */
        k = HPM_EVENT_COMPONENT(event);
        if (k < 0 || k >= HPM_NCOMP || n == 0)
            return HPM_EINVAL;
        if (!hpm__comp_enabled(k))
            return HPM_ENOCOMP;
        return g_hpm.comp[k].c->gate(which, NULL, HPM_EVENT_INDEX(event), n);
    }
    if (which != HPM_GATE_CLEAR && !code)
        return HPM_EINVAL;
    for (k = 0; k < HPM_NCOMP; k++) {
        if (!hpm__comp_enabled(k))
            continue;
        rc = g_hpm.comp[k].c->gate(which, code, 0, 0);
        if (rc != HPM_ENOTSUP)
            return rc;
    }
    return HPM_ENOTSUP;
}
