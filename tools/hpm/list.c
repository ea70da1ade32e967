/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm list: the event catalog (src/catalog/catalog.h), and whether a machine
 * model provides each event.
 *
 *   hpm list [--machine NAME|FILE] [--markdown] [PATTERN]
 *
 * PATTERN matches event names case-insensitively: as a glob when it holds
 * one of * ? [, else as a substring. A PU<n>_ prefix selects core n and shows
 * that core's code. --markdown prints the table docs/events.md holds.
 */
#define _GNU_SOURCE /* FNM_CASEFOLD */
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "commands.h"
#include "machine_arg.h"
#include "options.h"

static const char list_synopsis[] =
    "usage: hpm list [--machine NAME|FILE] [--markdown] [PATTERN]\n"
    "List the event catalog: name, code(s), unit, whether machine NAME (default "
    HPM_DEFAULT_MACHINE ")\n"
    "provides the event, description. PATTERN: a case-insensitive substring or glob;\n"
    "PU<n>_PATTERN shows core n's codes.\n\n";

static int ci_contains(const char *hay, const char *needle)
{
    size_t n = strlen(needle), i, j;
    if (n == 0)
        return 1;
    for (i = 0; hay[i]; i++) {
        for (j = 0; j < n && hay[i + j]; j++)
            if (toupper((unsigned char)hay[i + j]) != toupper((unsigned char)needle[j]))
                break;
        if (j == n)
            return 1;
    }
    return 0;
}

static int matches(const char *name, const char *pat)
{
    if (!pat)
        return 1;
    if (strpbrk(pat, "*?["))
        return fnmatch(pat, name, FNM_CASEFOLD) == 0;
    return ci_contains(name, pat);
}

int cmd_list(int argc, char **argv)
{
    const char *machine = NULL, *pat = NULL;
    struct hpm_machine m;
    char note[160], code[32], name[HPM_CAT_NAME_MAX + 8];
    unsigned k, features, shown = 0;
    int core = -1, md = 0, rc;

    {
        int md_flag = 0, first;
        const struct hpm_opt t[] = {
            {"--machine", NULL, "M", "machine name (machines/M.machine) or machine file",
             HPM_OPT_STRING, &machine, NULL, NULL, 0, 0},
            {"--markdown", NULL, NULL, "print the table as Markdown (docs/events.md)",
             HPM_OPT_FLAG, &md_flag, NULL, NULL, 0, 0},
            HPM_OPT_TABLE_END,
        };
        rc = hpm_opt_parse("hpm list", t, list_synopsis, NULL, argc, argv, &first);
        if (rc)
            return rc < 0 ? 0 : rc;
        if (argc - first > 1)
            return hpm_opt_error("hpm list", t, list_synopsis, NULL, "bad argument '%s'",
                                 argv[first + 1]);
        pat = first < argc ? argv[first] : NULL;
        md = md_flag;
    }
    if ((rc = machine_arg_load("list", machine, &m, note, sizeof note)) != 0)
        return rc;
    features = hpm_catalog_features(&m.hier) | (m.torus.x ? HPM_NEED_NET : 0);
    /* PU<n>_PATTERN: the pattern applies to the kind, codes are core n's */
    if (pat && hpm_catalog_split_core(pat, &core, &pat) && core >= (int)m.hier.cores) {
        fprintf(stderr, "hpm list: machine %s has %u core%s (PU0..PU%u)\n", m.name,
                (unsigned)m.hier.cores, m.hier.cores == 1 ? "" : "s",
                (unsigned)m.hier.cores - 1);
        return 1;
    }

    for (k = 0; k < HPM_K_COUNT; k++) {
        const struct hpm_cat_kind_info *ki = hpm_catalog_kind(k);
        int prov;
        if (core >= 0 && ki->node)
            continue;
        if (!matches(ki->name, pat))
            continue;
        if (ki->node)
            snprintf(code, sizeof code, "%d", hpm_catalog_code(k, -1));
        else if (core >= 0)
            snprintf(code, sizeof code, "%d", hpm_catalog_code(k, core));
        else
            snprintf(code, sizeof code, "%d+%dn", hpm_catalog_code(k, 0), HPM_CAT_CORE_STRIDE);
        if (core >= 0)
            snprintf(name, sizeof name, "PU%d_%s", core, ki->name);
        else
            snprintf(name, sizeof name, "%s", ki->name);
        prov = hpm_catalog_provided(k, ki->node ? -1 : (core >= 0 ? core : 0), m.hier.cores,
                                    features);
        if (shown++ == 0) {
            if (md) {
                printf("| event | code | unit | source | %s | description |\n"
                       "|---|---|---|---|---|---|\n",
                       m.name);
            } else {
                printf("event catalog; 'provided' = machine %s (%u core%s) can count it; "
                       "per-core codes: PU0's code + %d n for core n\n",
                       m.name, (unsigned)m.hier.cores, m.hier.cores == 1 ? "" : "s",
                       HPM_CAT_CORE_STRIDE);
                printf("%-28s %-8s %-10s %-8s %-8s %s\n", "event", "code", "unit", "source",
                       "provided", "description");
            }
        }
        if (md)
            printf("| `%s` | %s | %s | %s | %s | %s |\n", name, code,
                   hpm_catalog_unit_name(ki->unit), hpm_catalog_source_name(ki->source),
                   prov ? "yes" : "no", ki->description);
        else
            printf("%-28s %-8s %-10s %-8s %-8s %s\n", name, code, hpm_catalog_unit_name(ki->unit),
                   hpm_catalog_source_name(ki->source), prov ? "yes" : "no", ki->description);
    }
    if (!shown) {
        fprintf(stderr, "hpm list: no event matches '%s'\n", pat ? pat : "");
        return 1;
    }
    return 0;
}
