/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * count_events.c - the -e names resolved to report rows and the tool's event codes
 * (run_internal.h: what the parts of run/ share).
 */
#define _GNU_SOURCE /* wait4, syscall, mkdtemp */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "catalog.h"
#include "report/count_perf.h"
#include "report/count_report.h"
#include "machine_wire.h"
#include "live.h"
#include "run/run_internal.h"
#include "run/latency.h"
#include "util/suggest.h"
#include "report/vpmu_output.h"


/* ------------------------------------------------------------ events */

int count_add_row(struct count_row *rows, unsigned *n, const struct count_row *r)
{
    unsigned i;
    for (i = 0; i < *n; i++)
        if (strcmp(rows[i].name, r->name) == 0)
            return 0; /* asked twice: one row */
    if (*n >= MAX_ROWS)
        return -1;
    rows[(*n)++] = *r;
    return 0;
}

/* Resolve one name into a row; prints the reason and returns 2 on error. */
int count_resolve_event(const char *name, const char *machine, unsigned cores,
                         unsigned features, struct count_row *row)
{
    struct hpm_cat_name nm;
    int rc;
    memset(row, 0, sizeof *row);
    if (strlen(name) >= HPM_CAT_NAME_MAX) {
        fprintf(stderr, "%s: unknown event '%.60s...' (hpm list shows the catalog)\n", cmd_name,
                name);
        return 2;
    }
    rc = hpm_catalog_parse(name, &nm);
    if (rc == 0)
        rc = hpm_catalog_codes(&nm, cores, features, row->codes, HPM_CAT_MAX_CORES);
    if (rc == HPM_CAT_EUNKNOWN) {
        int avail;
        const char *colon = strchr(name, ':');
        char event[HPM_CAT_NAME_MAX];
        snprintf(event, sizeof event, "%.*s", colon ? (int)(colon - name) : 0, name);
        if (colon && colon[1] != ':' && hpm_catalog_parse(event, &nm) == 0) {
            fprintf(stderr,
                    "%s: unknown counting mode '%s' in '%s' (level-high, level-low, edge-rise, "
                    "edge-fall)\n",
                    cmd_name, colon + 1, name);
            return 2;
        }
        if (count_perf_is_perf_name(name, &avail))
            fprintf(stderr,
                    "%s: event '%s' is a perf_event event: the virtual PMU does not count it "
                    "(--pmu=perf or auto)\n",
                    cmd_name, name);
        else {
            char near[HPM_CAT_NAME_MAX + 16];
            if (suggest_event(name, near, sizeof near) == 0)
                fprintf(stderr, "%s: unknown event '%s' (did you mean %s? hpm list shows the "
                        "catalog)\n", cmd_name, name, near);
            else
                fprintf(stderr, "%s: unknown event '%s' (hpm list shows the catalog)\n",
                        cmd_name, name);
        }
        return 2;
    }
    if (rc == HPM_CAT_ECORE) {
        fprintf(stderr, "%s: event '%s': machine %s has %u core%s (PU0..PU%u)\n", cmd_name, name,
                machine, cores, cores == 1 ? "" : "s", cores - 1);
        return 2;
    }
    if (rc == HPM_CAT_ENOTPROVIDED) {
        fprintf(stderr, "%s: event '%s' is not provided by machine %s: %s\n", cmd_name, name,
                machine, hpm_catalog_missing_reason(nm.kind, features));
        return 2;
    }
    if (rc <= 0) {
        fprintf(stderr, "%s: event '%s': %s\n", cmd_name, name, hpm_catalog_strerror(rc));
        return 2;
    }
    row->kind = nm.kind;
    row->n_codes = (unsigned)rc;
    row->core = nm.core;
    snprintf(row->name, sizeof row->name, "%s", nm.canonical);
    return 0;
}

/* run_internal.h */
const char *count_event_field(const char *s, const char **b, const char **e)
{
    const char *end = s + strcspn(s, ",");
    *b = s;
    *e = end;
    while (*b < *e && isspace((unsigned char)**b))
        (*b)++;
    while (*e > *b && isspace((unsigned char)(*e)[-1]))
        (*e)--;
    return end;
}

/* Rows for the -e lists; without -e, every kind the machine provides. The
 * latency thresholds among them go to lat (NULL: none kept). */
int count_build_rows(const struct count_opts *o, const char *machine, unsigned cores,
                      unsigned features, struct count_row *rows, unsigned *n,
                      struct count_lat *lat)
{
    struct count_lat none;
    unsigned i, k;
    *n = 0;
    if (!lat)
        lat = &none; /* the thresholds of a report of counts: counted already */
    lat->n = 0;
    if (o->events.n == 0) {
        for (k = 0; k < HPM_K_COUNT; k++) {
            struct count_row r;
            const struct hpm_cat_kind_info *ki = hpm_catalog_kind(k);
            if (!hpm_catalog_provided(k, ki->node ? -1 : 0, cores, features))
                continue;
            if (count_resolve_event(ki->name, machine, cores, features, &r))
                return 2;
            count_add_row(rows, n, &r);
        }
        return 0;
    }
    for (i = 0; i < o->events.n; i++) {
        const char *s = o->events.v[i];
        /* every field between commas is an event: "A,", ",A" and "A,,B" all
         * hold an empty one */
        for (;;) {
            char name[128];
            struct count_row r;
            const char *b, *e, *end = count_event_field(s, &b, &e);
            if (b == e) {
                fprintf(stderr, "%s: empty event name in '%s'\n", cmd_name, o->events.v[i]);
                return 2;
            }
            snprintf(name, sizeof name, "%.*s", (int)(e - b), b);
            {
                /* LOADS:ldlat=N, STORES:stlat=N: the latency histogram's
                 * count at or above N (a note), beside the kind's row */
                char kind[16];
                int lr = count_lat_parse(lat, cmd_name, name, kind, sizeof kind);
                if (lr < 0)
                    return 2;
                if (lr > 0)
                    snprintf(name, sizeof name, "%s", kind);
            }
            if (count_resolve_event(name, machine, cores, features, &r))
                return 2;
            if (count_add_row(rows, n, &r)) {
                fprintf(stderr, "%s: too many events\n", cmd_name);
                return 2;
            }
            s = end;
            if (*s != ',')
                break;
            s++;
        }
    }
    return 0;
}

/* "--hpm-events=" value: the specs of every row, ascending, or "all". */
char *count_codes_arg(const struct count_opts *o, const struct count_row *rows, unsigned n)
{
    unsigned char want[HPM_CAT_SPECS] = {0};
    char *s;
    size_t at = 0;
    unsigned i, j;
    if (o->events.n == 0)
        return strdup("all");
    for (i = 0; i < n; i++)
        for (j = 0; j < rows[i].n_codes; j++)
            want[rows[i].codes[j]] = 1;
    s = malloc(HPM_CAT_SPECS * 5 + 1);
    if (!s)
        return NULL;
    s[0] = 0;
    for (i = 0; i < HPM_CAT_SPECS; i++)
        if (want[i])
            at += (size_t)sprintf(s + at, "%s%u", at ? "," : "", i);
    return s;
}

/* Every code a row needs must be in the tool's output, but those of a
 * multiplexed set that never got an interval: their rows leave the report
 * (vpmu_output_mpx_idle_note says why). */
int count_check_counts(const struct vpmu_output *out, struct count_row *rows, unsigned *n,
                       const char *what)
{
    unsigned i, j, kept = 0;
    for (i = 0; i < *n; i++) {
        int idle = 0;
        for (j = 0; j < rows[i].n_codes; j++) {
            unsigned code = (unsigned)rows[i].codes[j];
            char name[HPM_CAT_NAME_MAX];
            if (out->have_count[code])
                continue;
            if (vpmu_output_mpx_idle(out, code)) {
                idle = 1;
                continue;
            }
            hpm_catalog_code_name(code, name, sizeof name);
            fprintf(stderr, "%s: %s has no count for %s (code %u)\n", cmd_name, what, name, code);
            return -1;
        }
        if (!idle)
            rows[kept++] = rows[i];
    }
    *n = kept;
    return 0;
}
