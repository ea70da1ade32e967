/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comp_sysdetect.c - the sysdetect component: PAPI 7's system detection
 * component, which counts nothing and answers PAPI's device queries
 * (PAPI_enum_dev_type, PAPI_get_dev_type_attr, PAPI_get_dev_attr: the
 * machine's CPUs, caches and NUMA nodes, in src/papi/papi_sysinfo.c).
 * PAPI programs look it up by name and refuse the device queries when it
 * is missing or disabled (Debian's papi_hardware_avail: "Sysdetect
 * component not enabled"). Always enabled, no events, so no set can hold
 * anything of it. Last in the table: the others keep their indices.
 */
#define _GNU_SOURCE
#include <signal.h>

#include "hpm_internal.h"

static int sysdetect_init(struct hpm_component_info *info, char *reason, size_t len)
{
    (void)reason;
    (void)len;
    info->description = "system detection: the machine's devices (PAPI_enum_dev_type), no events";
    info->domains = info->default_domain = HPM_DOMAIN_USER;
    info->num_events = 0;
    info->num_counters = 0;
    info->flags = 0;
    return HPM_OK;
}

static int sysdetect_event_first(uint32_t *index)
{
    (void)index;
    return HPM_ENOEVENT;
}

static int sysdetect_event_next(uint32_t *index)
{
    (void)index;
    return HPM_ENOEVENT;
}

static int sysdetect_event_lookup(const char *name, uint32_t *index)
{
    (void)name;
    (void)index;
    return HPM_ENOEVENT;
}

static int sysdetect_event_describe(uint32_t index, struct hpm_event_info *info)
{
    (void)index;
    (void)info;
    return HPM_ENOEVENT;
}

/* A set can hold none of its (no) events: these are never reached with
 * one; they answer as for an empty set. */
static int sysdetect_set_init(void *st)
{
    (void)st;
    return HPM_OK;
}

static int sysdetect_set_update(void *st, const uint32_t *events, int n,
                                const struct hpm_set_opts *o)
{
    (void)st;
    (void)events;
    (void)o;
    return n == 0 ? HPM_OK : HPM_ENOEVENT;
}

static int sysdetect_start(void *st, uint64_t *native_failed)
{
    (void)st;
    (void)native_failed;
    return HPM_OK;
}

static int sysdetect_read(void *st, int64_t *values)
{
    (void)st;
    (void)values;
    return HPM_OK;
}

static int sysdetect_reset(void *st)
{
    (void)st;
    return HPM_OK;
}

static void sysdetect_cleanup(void *st)
{
    (void)st;
}

const struct hpm_component hpm_comp_sysdetect = {
    .name = "sysdetect",
    .ci_flags = 0,
    .set_size = sizeof(int),
    .init = sysdetect_init,
    .event_first = sysdetect_event_first,
    .event_next = sysdetect_event_next,
    .event_lookup = sysdetect_event_lookup,
    .event_describe = sysdetect_event_describe,
    .set_init = sysdetect_set_init,
    .set_update = sysdetect_set_update,
    .start = sysdetect_start,
    .stop = sysdetect_read,
    .read = sysdetect_read,
    .reset = sysdetect_reset,
    .cleanup = sysdetect_cleanup,
};
