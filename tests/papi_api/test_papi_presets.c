/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_papi_presets.c - every row of libpapi's preset table
 * (papi_preset_defs, src/papi/papi_presets.c) names native events that
 * exist.
 *
 * PAPI_library_init skips a row whose natives do not resolve, silently (the
 * preset is then just "not available here"), so a typo in a native name
 * would only show as a missing preset. This test resolves each name of each
 * row the way the library does (hpm_event_find, then papi_component_usable)
 * and tells apart:
 *   - the name resolves to a usable component                      ok
 *   - a component knows the name but cannot count it here
 *     (HPM_ENOCOMP: perf's hardware events without a PMU, a sim
 *     kind this machine model does not have, sim outside the tool)  reported
 *   - perf answers HPM_ENOEVENT, not HPM_ENOCOMP, for the libpfm4
 *     names it resolves only with a hardware PMU
 *     ("perf::L1-ICACHE-LOAD-MISSES"): such a name is looked up in
 *     libpfm4, perf's vocabulary, and reported if libpfm4 knows it
 *   - no component knows the name (HPM_ENOEVENT)                   FAILS
 *   - a row whose names lie in two components, or with too many
 *     natives, or a postfix program that does not compile           FAILS
 * and, for a row whose names all resolve, that the preset is available
 * after papi_presets_resolve (the library agrees with the test).
 *
 * Built from papi_presets.c and papi_common.c (a leaf of libpapi) over
 * libhpm, since the table is internal to libpapi. Run natively and under
 * `hpm run` (with --sim: the sim component must be enabled, so that its
 * rows resolve as under the virtual PMU).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfmon/pfmlib.h>

#include "formula.h"
#include "papi_internal.h"

static const char *comp_name(int c)
{
    struct hpm_component_info ci;
    return hpm_component_info(c, &ci) == HPM_OK && ci.name ? ci.name : "?";
}

/* The reason the component named by name's prefix gives for not counting. */
static const char *why_not_here(const char *name)
{
    static char buf[320];
    const char *sep = strstr(name, "::");
    int c;
    struct hpm_component_info ci;
    if (!sep || (size_t)(sep - name) >= 64)
        return "its component cannot count it here";
    snprintf(buf, sizeof buf, "%.*s", (int)(sep - name), name);
    c = hpm_component_find(buf);
    if (c < 0 || hpm_component_info(c, &ci) != HPM_OK)
        return "its component cannot count it here";
    if (!ci.enabled && ci.disabled_reason)
        snprintf(buf, sizeof buf, "component %s is disabled: %s", ci.name, ci.disabled_reason);
    else
        snprintf(buf, sizeof buf, "component %s cannot count it here: %s", ci.name,
                 ci.description ? ci.description : "");
    return buf;
}

/* A perf name that libpfm4 knows ("perf::L1-ICACHE-LOAD-MISSES" is its
 * generic PMU's): the perf component resolves it only where the hardware
 * PMU works, and answers HPM_ENOEVENT elsewhere. */
static int pfm_inited = -1;

static int libpfm4_knows(const char *name)
{
    int inited = pfm_inited;
    if (strncmp(name, "perf::", 6) != 0)
        return 0;
    if (inited < 0)
        inited = pfm_inited = pfm_initialize() == PFM_SUCCESS;
    return inited && pfm_find_event(name) >= 0;
}

struct row_result {
    int failed;      /* a name no component knows, or a malformed row */
    int unusable;    /* some name cannot be counted here */
    int n;           /* natives */
};

/* Check the names of a comma list; n counts them. */
static void check_list(size_t r, const char *preset, const char *what, const char *list,
                       int *cidx, struct row_result *res, int *n)
{
    const char *p = list;
    *n = 0;
    while (p && *p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char name[HPM_NAME_MAX];
        hpm_event_t e;
        int rc, c;
        if (len == 0 || len >= sizeof name) {
            printf("FAIL row %zu %s: %s list \"%s\": an empty or too long name\n", r, preset,
                   what, list);
            res->failed = 1;
            return;
        }
        memcpy(name, p, len);
        name[len] = '\0';
        ++*n;
        p = comma ? comma + 1 : NULL;
        rc = hpm_event_find(name, &e);
        if (rc == HPM_ENOEVENT && libpfm4_knows(name)) {
            printf("     row %zu %s: %s \"%s\" a libpfm4 event, not countable here (%s)\n", r,
                   preset, what, name, why_not_here(name));
            res->unusable = 1;
            continue;
        }
        if (rc == HPM_ENOCOMP) {
            printf("     row %zu %s: %s \"%s\" not countable here (%s)\n", r, preset, what, name,
                   why_not_here(name));
            res->unusable = 1;
            continue;
        }
        if (rc != HPM_OK) {
            printf("FAIL row %zu %s: %s \"%s\": %s\n", r, preset, what, name,
                   rc == HPM_ENOEVENT ? "no component knows this name (a typo?)"
                                      : hpm_strerror(rc));
            res->failed = 1;
            continue;
        }
        c = HPM_EVENT_COMPONENT(e);
        if (*cidx >= 0 && c != *cidx) {
            printf("FAIL row %zu %s: %s \"%s\" is an event of %s, the row's others of %s\n", r,
                   preset, what, name, comp_name(c), comp_name(*cidx));
            res->failed = 1;
            continue;
        }
        *cidx = c;
        if (!papi_component_usable(c)) {
            printf("     row %zu %s: %s \"%s\": component %s not usable here\n", r, preset, what,
                   name, comp_name(c));
            res->unusable = 1;
        }
    }
}

int main(int argc, char **argv)
{
    int need_sim = argc > 1 && strcmp(argv[1], "--sim") == 0;
    int n, i, failed = 0, ok = 0, unusable = 0;
    struct hpm_component_info ci;

    if (hpm_init() < 0) {
        printf("hpm_init failed\n");
        return 1;
    }
    /* papi_component_usable reads libpapi's component list: make it as
     * PAPI_library_init does (no component disabled by the program) */
    n = hpm_num_components();
    papi_lib.comp = calloc((size_t)(n > 0 ? n : 1), sizeof *papi_lib.comp);
    if (n < 0 || !papi_lib.comp)
        return 1;
    for (i = 0; i < n; i++)
        if (hpm_component_info(i, &papi_lib.comp[i].hpm) != HPM_OK)
            return 1;
    papi_lib.ncomp = n;
    i = hpm_component_find("sim");
    if (need_sim && (i < 0 || hpm_component_info(i, &ci) != HPM_OK || !ci.enabled)) {
        printf("FAIL: the sim component is not enabled (run under `hpm run --`)\n");
        return 1;
    }
    papi_presets_resolve();

    for (size_t r = 0; r < papi_preset_ndefs; r++) {
        const struct papi_preset_def *d = &papi_preset_defs[r];
        const char *preset = d->idx >= 0 && d->idx < PAPI_END_idx
                                 ? papi_preset_descs[d->idx].symbol
                                 : "(bad index)";
        struct row_result res = {0, 0, 0};
        int cidx = -1, nn = 0;
        if (d->idx < 0 || d->idx >= PAPI_END_idx || !preset) {
            printf("FAIL row %zu: preset index %d\n", r, d->idx);
            failed++;
            continue;
        }
        if (!d->natives || !d->natives[0]) {
            printf("FAIL row %zu %s: no natives\n", r, preset);
            failed++;
            continue;
        }
        check_list(r, preset, "native", d->natives, &cidx, &res, &res.n);
        if (d->needs)
            check_list(r, preset, "needed", d->needs, &cidx, &res, &nn);
        if (res.n > PAPI_MAX_INFO_TERMS) {
            printf("FAIL row %zu %s: %d natives, PAPI has room for %d\n", r, preset, res.n,
                   PAPI_MAX_INFO_TERMS);
            res.failed = 1;
        }
        if ((d->derived == NOT_DERIVED && res.n != 1) ||
            ((d->derived == DERIVED_ADD || d->derived == DERIVED_SUB) && res.n < 2)) {
            printf("FAIL row %zu %s: %s of %d natives\n", r, preset,
                   papi_derived_names[d->derived], res.n);
            res.failed = 1;
        }
        if (d->derived == DERIVED_POSTFIX) {
            struct hpm_formula f;
            char err[128];
            if (!d->postfix || hpm_formula_postfix(&f, d->postfix, err, sizeof err) != 0) {
                printf("FAIL row %zu %s: postfix \"%s\" does not compile: %s\n", r, preset,
                       d->postfix ? d->postfix : "(none)", d->postfix ? err : "missing");
                res.failed = 1;
            } else {
                /* N<i> must name a native of the row, and each native be read */
                for (unsigned v = 0; v < HPM_FORMULA_MAX_VARS; v++)
                    if (hpm_formula_uses(&f, v) != (v < (unsigned)res.n)) {
                        printf("FAIL row %zu %s: postfix \"%s\" %s N%u (%d natives)\n", r,
                               preset, d->postfix, v < (unsigned)res.n ? "never reads" : "reads",
                               v, res.n);
                        res.failed = 1;
                    }
            }
        } else if (d->postfix) {
            printf("FAIL row %zu %s: a postfix program on a %s row\n", r, preset,
                   papi_derived_names[d->derived]);
            res.failed = 1;
        }
        if (res.failed) {
            failed++;
            continue;
        }
        if (res.unusable) {
            unusable++;
            continue;
        }
        /* every name resolves to one usable component: the library agrees */
        if (!papi_presets[d->idx].available) {
            printf("FAIL row %zu %s: its natives resolve (component %s) but the preset is not "
                   "available after papi_presets_resolve\n",
                   r, preset, comp_name(cidx));
            failed++;
            continue;
        }
        printf("  ok row %zu %s (%s)\n", r, preset, comp_name(cidx));
        ok++;
    }
    printf("%zu rows: %d resolve here, %d need a component not usable here, %d failed\n",
           papi_preset_ndefs, ok, unusable, failed);
    hpm_shutdown();
    if (pfm_inited > 0)
        pfm_terminate();
    free(papi_lib.comp);
    return failed ? 1 : 0;
}
