/* SPDX-License-Identifier: BSD-3-Clause */
/* count_perf.c - hpm count on perf_event, through libhpm (count_perf.h). */
#define _POSIX_C_SOURCE 200809L
#include "report/count_perf.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "hpm/hpm.h"

/* perf stat's default events, in its order (the kinds stand for cycles,
 * instructions, branches and branch-misses) */
static const char *const default_names[] = {
    "TASK-CLOCK", "CONTEXT-SWITCHES", "CPU-MIGRATIONS", "PAGE-FAULTS",
    "CYCLES",     "INSTRUCTIONS",     "BRANCHES",       "BR_MISPREDICTS",
};

static int perf_comp = -2; /* not looked up yet */
static char perf_descr[512];

static int perf_component(void)
{
    if (perf_comp == -2) {
        struct hpm_component_info ci;
        perf_comp = -1;
        snprintf(perf_descr, sizeof perf_descr, "Linux perf_event: not available");
        if (hpm_init() >= 0 && (perf_comp = hpm_component_find("perf")) >= 0 &&
            hpm_component_info(perf_comp, &ci) == HPM_OK) {
            if (ci.enabled)
                snprintf(perf_descr, sizeof perf_descr, "%s", ci.description);
            else {
                snprintf(perf_descr, sizeof perf_descr, "Linux perf_event: %s",
                         ci.disabled_reason ? ci.disabled_reason : "disabled");
                perf_comp = -1;
            }
        } else {
            perf_comp = -1;
        }
    }
    return perf_comp;
}

const char *count_perf_description(void)
{
    (void)perf_component();
    return perf_descr;
}

const char *count_perf_name_of_kind(unsigned kind)
{
    return hpm_catalog_perf_event(kind); /* the catalog's column */
}

/* "perf::NAME" or "NAME" -> NAME */
static const char *bare(const char *name)
{
    return strncasecmp(name, "perf::", 6) == 0 ? name + 6 : name;
}

/* Looks name (without prefix) up in the perf component: HPM_OK, HPM_ENOCOMP
 * (known, not countable here) or HPM_ENOEVENT. */
static int lookup(const char *name, hpm_event_t *ev)
{
    char full[HPM_NAME_MAX];
    if (perf_component() < 0)
        return HPM_ENOCOMP;
    if (snprintf(full, sizeof full, "perf::%s", name) >= (int)sizeof full)
        return HPM_ENOEVENT;
    return hpm_event_find(full, ev);
}

int count_perf_is_perf_name(const char *name, int *available)
{
    struct hpm_cat_name nm;
    hpm_event_t ev;
    int rc;
    if (strncasecmp(name, "perf::", 6) != 0 && hpm_catalog_parse(name, &nm) == 0)
        return 0; /* a catalog name */
    rc = lookup(bare(name), &ev);
    *available = rc == HPM_OK;
    return rc == HPM_OK || rc == HPM_ENOCOMP;
}

/* Fills m for one name; 0, or -1 with err (no perf meaning at all). */
static int plan_one(struct count_measured *m, const char *name, char *err, size_t errlen)
{
    struct hpm_cat_name nm;
    struct hpm_event_info info;
    hpm_event_t ev;
    const char *pname;
    int rc;
    memset(m, 0, sizeof *m);
    m->kind = -1;
    if (strncasecmp(name, "perf::", 6) != 0 && hpm_catalog_parse(name, &nm) == 0) {
        const struct hpm_cat_kind_info *k = hpm_catalog_kind(nm.kind);
        if (nm.scope != HPM_CAT_SCOPE_KIND || k->node) {
            snprintf(err, errlen,
                     "event '%s' belongs to the modeled machine (a per-core or node event): "
                     "perf_event has no equivalent",
                     nm.canonical);
            return -2;
        }
        pname = count_perf_name_of_kind(nm.kind);
        if (!pname) {
            snprintf(err, errlen, "event '%s' has no perf_event equivalent (it counts on the "
                                  "virtual PMU only)",
                     nm.canonical);
            return -2;
        }
        m->kind = (int)nm.kind;
        snprintf(m->name, sizeof m->name, "%s", k->name);
        snprintf(m->description, sizeof m->description, "%s", k->description);
        snprintf(m->units, sizeof m->units, "%s", k->units);
    } else {
        pname = bare(name);
        if (!*pname || strlen(pname) >= sizeof m->name) {
            snprintf(err, errlen, "unknown event '%s'", name);
            return -1;
        }
        snprintf(m->name, sizeof m->name, "%s", pname);
    }
    snprintf(m->perf_name, sizeof m->perf_name, "perf::%s", pname);
    rc = lookup(pname, &ev);
    if (rc == HPM_OK) {
        m->available = 1;
        if (hpm_event_info(ev, &info) == HPM_OK) {
            const char *b = bare(info.name);
            snprintf(m->perf_name, sizeof m->perf_name, "perf::%.120s", b);
            if (m->kind < 0) {
                size_t i;
                snprintf(m->name, sizeof m->name, "%.*s", (int)sizeof m->name - 1, b);
                for (i = 0; m->name[i]; i++)
                    if (m->name[i] >= 'a' && m->name[i] <= 'z')
                        m->name[i] = (char)(m->name[i] - 'a' + 'A');
                snprintf(m->description, sizeof m->description, "%s", info.description);
                snprintf(m->units, sizeof m->units, "%s", info.units);
            }
        }
        return 0;
    }
    if (m->kind < 0 && rc == HPM_ENOEVENT) {
        snprintf(err, errlen, "unknown event '%s' (hpm list shows the catalog; perf_event's "
                              "software events are TASK-CLOCK, PAGE-FAULTS, CONTEXT-SWITCHES, ...)",
                 name);
        return -1;
    }
    snprintf(m->why, sizeof m->why, "%s (%s) is not available here: %s", m->name,
             m->perf_name, count_perf_description());
    return 0;
}

int count_perf_plan(struct count_perf_plan *p, char *const *names, unsigned n, char *err,
                    size_t errlen)
{
    unsigned i, j;
    int defaults = n == 0;
    memset(p, 0, sizeof *p);
    p->set = -1;
    if (defaults) {
        names = (char *const *)default_names;
        n = sizeof default_names / sizeof default_names[0];
    }
    for (i = 0; i < n; i++) {
        struct count_measured m;
        int dup = 0, rc = plan_one(&m, names[i], err, errlen);
        if (rc != 0)
            return rc;
        if (defaults && !m.available)
            continue; /* perf stat leaves out what the machine lacks */
        for (j = 0; j < p->n; j++)
            dup |= strcmp(p->ev[j].perf_name, m.perf_name) == 0;
        if (dup)
            continue;
        if (p->n >= COUNT_PERF_MAX) {
            snprintf(err, errlen, "too many events");
            return -1;
        }
        p->ev[p->n++] = m;
    }
    p->all_available = p->n > 0;
    for (i = 0; i < p->n; i++)
        p->all_available &= p->ev[i].available;
    if (p->n == 0)
        snprintf(err, errlen, "no event to count");
    return p->n ? 0 : -1;
}

int count_perf_start(struct count_perf_plan *p, pid_t pid, int inherit, char *err,
                     size_t errlen)
{
    unsigned i;
    int rc, set;
    if (perf_component() < 0) {
        snprintf(err, errlen, "%s", perf_descr);
        return -1;
    }
    if ((rc = hpm_set_create(&set)) != HPM_OK) {
        snprintf(err, errlen, "cannot make an event set: %s", hpm_strerror(rc));
        return -1;
    }
    /* separate counters, time-sliced when the PMU has too few, as perf stat
     * does (multiplexed counts are scaled to the time enabled) */
    rc = hpm_set_multiplex(set, 1);
    /* user and kernel mode, as perf stat counts by default (a context
     * switch or most of a page fault happen in the kernel); user mode alone
     * where perf_event_paranoid does not allow the kernel */
    p->kernel = hpm_set_domain(set, HPM_DOMAIN_ALL) == HPM_OK;
    for (i = 0; i < p->n && rc == HPM_OK; i++) {
        hpm_event_t ev;
        rc = hpm_event_find(p->ev[i].perf_name, &ev);
        if (rc == HPM_OK)
            rc = hpm_set_add(set, ev) >= 0 ? HPM_OK : HPM_EINVAL;
        if (rc != HPM_OK)
            snprintf(err, errlen, "%s: %s", p->ev[i].perf_name, hpm_strerror(rc));
    }
    if (rc == HPM_OK && (rc = hpm_set_attach(set, pid)) != HPM_OK)
        snprintf(err, errlen, "attaching to process %ld: %s", (long)pid, hpm_strerror(rc));
    if (rc == HPM_OK && inherit && (rc = hpm_set_inherit(set, 1)) != HPM_OK)
        snprintf(err, errlen, "counting the processes it starts: %s", hpm_strerror(rc));
    if (rc == HPM_OK && (rc = hpm_start(set)) != HPM_OK)
        snprintf(err, errlen, "starting the counters: %s", hpm_strerror(rc));
    if (rc != HPM_OK) {
        hpm_set_destroy(set);
        return -1;
    }
    p->set = set;
    p->inherit = inherit;
    return 0;
}

int count_perf_stop(struct count_perf_plan *p, char *err, size_t errlen)
{
    int64_t v[COUNT_PERF_MAX];
    unsigned i;
    int rc;
    if (p->set < 0) {
        snprintf(err, errlen, "the counters never started");
        return -1;
    }
    rc = hpm_stop(p->set, v);
    hpm_set_destroy(p->set);
    p->set = -1;
    if (rc != HPM_OK) {
        snprintf(err, errlen, "reading the counters: %s", hpm_strerror(rc));
        return -1;
    }
    for (i = 0; i < p->n; i++)
        p->ev[i].value = v[i] < 0 ? 0 : (uint64_t)v[i];
    return 0;
}
