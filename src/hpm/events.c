/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * events.c - components and events by name and id: hpm_num_components,
 * hpm_component_info/find, hpm_event_find/info/first/next. Every question
 * goes to a component through its slot of the table (g_hpm.comp[], filled
 * by hpm_init), never to a component by name.
 */
#define _GNU_SOURCE
#include <string.h>

#include "hpm_internal.h"

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
        if (hpm__strcaseeq(name, g_hpm.comp[i].c->name))
            return i;
    return HPM_ENOCOMP;
}

/* ------------------------------------------------------------ events */

/* The component whose name is prefix[0..len), or -1. */
static int comp_by_prefix(const char *prefix, size_t len)
{
    int i;
    for (i = 0; i < HPM_NCOMP; i++) {
        const char *n = g_hpm.comp[i].c->name;
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
            int rc = g_hpm.comp[c].c->event_lookup(sep + 2, &idx);
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
        if (g_hpm.comp[i].c->ci_flags & HPM_CI_NAMED_ONLY)
            continue;
        rc = g_hpm.comp[i].c->event_lookup(name, &idx);
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
    rc = g_hpm.comp[c].c->event_describe(HPM_EVENT_INDEX(event), &tmp);
    if (rc != HPM_OK)
        return rc;
    memset(info, 0, sizeof *info);
    info->event = event;
    info->component = c;
    {
        /* components keep their names short enough for the prefix */
        size_t k = strlen(g_hpm.comp[c].c->name);
        memcpy(info->name, g_hpm.comp[c].c->name, k);
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
    rc = g_hpm.comp[component].c->event_first(&idx);
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
    rc = g_hpm.comp[c].c->event_next(&idx);
    if (rc == HPM_OK)
        *event = HPM_EVENT_MAKE(c, idx);
    return rc;
}
