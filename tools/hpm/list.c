/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm list: the event catalog (src/catalog/catalog.h), and whether a machine
 * model provides each event.
 *
 *   hpm list [--machine NAME|FILE] [--markdown] [PATTERN]
 *   hpm list --machines
 *
 * PATTERN matches event names case-insensitively: as a glob when it holds
 * one of * ? [, else as a substring. A PU<n>_ prefix selects core n and shows
 * that core's code. --markdown prints the table docs/events.md holds.
 */
#define _GNU_SOURCE /* FNM_CASEFOLD */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "encode.h"
#include "commands.h"
#include "util/machine_arg.h"
#include "util/options.h"
#include "util/runner.h"
#include "util/suggest.h"

static const char list_synopsis[] =
    "usage: hpm list [--machine NAME|FILE] [--markdown] [PATTERN]\n"
    "       hpm list [--machine NAME|FILE] --encode EVENT[,EVENT...]\n"
    "       hpm list --machines\n"
    "List the event catalog: name, code(s), unit, whether machine NAME (default "
    HPM_DEFAULT_MACHINE ")\n"
    "provides the event, description. PATTERN: a case-insensitive substring or glob;\n"
    "PU<n>_PATTERN shows core n's codes. --encode places EVENTS on the machine's\n"
    "counter unit ([counters]): unit, counter and block of each, the events that\n"
    "cannot be placed together and why, the passes, the configuration decoded.\n"
    "With --machines, the names --machine takes, one a line.\n\n";

static int is_machine_file(const struct dirent *e)
{
    size_t n = strlen(e->d_name), ext = strlen(".machine");
    return n > ext && strcmp(e->d_name + n - ext, ".machine") == 0;
}

/* The machine names: host, and NAME for every NAME.machine of the machines
 * folder, in name order. */
static int list_machines(void)
{
    struct dirent **files;
    const char *dir = machine_arg_dir();
    int n = scandir(dir, &files, is_machine_file, alphasort), i;
    if (n < 0) {
        fprintf(stderr, "hpm list: cannot read the machines folder %s: %s\n", dir,
                strerror(errno));
        return 1;
    }
    printf("host\n");
    for (i = 0; i < n; i++) {
        printf("%.*s\n", (int)(strlen(files[i]->d_name) - strlen(".machine")), files[i]->d_name);
        free(files[i]);
    }
    free(files);
    return 0;
}

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

/* hpm list --encode EVENTS: the encoder's assignment of EVENTS (-e's
 * syntax; a bare per-core kind is every core's) to the machine's counter
 * unit ([counters]), the events it cannot place together and why, the
 * passes, and the configuration decoded back into events. 0 when every
 * event is placed, 1 when some are not (the passes say how many runs), 2
 * for a name that is not an event. */
static int list_encode(const struct hpm_machine *m, unsigned features, const char *list)
{
    unsigned codes[HPM_ENCODE_MAX_EVENTS], n = 0, i;
    const char *names[HPM_ENCODE_MAX_EVENTS];
    char buf[4096], *save = NULL, *tok;
    struct hpm_cu_codes mc;
    struct hpm_cu u;
    struct hpm_encoding e;
    int pass_of[HPM_ENCODE_MAX_EVENTS], passes;
    static char namebuf[HPM_ENCODE_MAX_EVENTS][HPM_CAT_NAME_MAX + 8];
    snprintf(buf, sizeof buf, "%s", list);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int c[HPM_CAT_MAX_CORES];
        unsigned j;
        /* specs: a code in a counting mode is the code's input, counted
         * in the mode (the encoder places it by its code) */
        int nc = hpm_catalog_lookup(tok, m->hier.cores, features, c, HPM_CAT_MAX_CORES, NULL);
        if (nc < 0) {
            fprintf(stderr, "hpm list: --encode: '%s' is not an event of machine %s (hpm list)\n",
                    tok, m->name);
            return 2;
        }
        for (j = 0; j < (unsigned)nc; j++) {
            unsigned d;
            for (d = 0; d < n && codes[d] != (unsigned)c[j]; d++)
                ;
            if (d < n)
                continue; /* asked twice: once */
            if (n == HPM_ENCODE_MAX_EVENTS - 1) {
                fprintf(stderr, "hpm list: --encode: at most %d events\n",
                        HPM_ENCODE_MAX_EVENTS - 1);
                return 2;
            }
            codes[n] = (unsigned)c[j];
            hpm_catalog_code_name(codes[n], namebuf[n], sizeof namebuf[n]);
            names[n] = namebuf[n];
            n++;
        }
    }
    mc.units = m->counter_unit.units ? m->counter_unit.units : 1;
    mc.counters = m->counter_unit.counters;
    mc.group = m->counter_unit.group;
    mc.codes = codes;
    mc.n_codes = n;
    if (!m->counter_unit.units)
        mc.units = hpm_cu_units_needed(codes, n, mc.counters);
    hpm_cu_from_codes(&u, &mc);
    if (hpm_encode(&u, n, &e) != 0) {
        fprintf(stderr, "hpm list: --encode: the counter unit is out of the encoder's bounds\n");
        return 2;
    }
    printf("counter unit of machine %s: %u unit%s (%s) x %u counters, %u counter%s per "
           "configuration group; counter c takes codes c + k x %u\n",
           m->name, mc.units, mc.units == 1 ? "" : "s",
           m->counter_unit.units ? "[counters] units" : "as many as these events need",
           mc.counters, mc.group, mc.group == 1 ? "" : "s", mc.counters);
    printf("%-34s %6s %5s %8s %6s  %s\n", "event", "code", "unit", "counter", "block",
           "decoded");
    for (i = 0; i < n; i++) {
        int c = e.counter[i];
        unsigned code = hpm_catalog_spec_code(codes[i]);
        if (c < 0) {
            uint64_t b = hpm_encode_blockers(&u, &e, i);
            unsigned j;
            printf("%-34s %6u %5s %8s %6s  not placed: it needs counter %u in block %u; held, "
                   "or its group set to another block, by",
                   names[i], code, "-", "-", "-", code % mc.counters, code / mc.counters);
            for (j = 0; j < n; j++)
                if (b >> j & 1)
                    printf(" %s", names[j]);
            printf("\n");
            continue;
        }
        printf("%-34s %6u %5u %8u %6d  %s\n", names[i], code, (unsigned)c / mc.counters,
               (unsigned)c % mc.counters, e.mode[(unsigned)c / mc.group],
               hpm_cu_decode(&mc, (unsigned)c, (unsigned)e.mode[(unsigned)c / mc.group]) == code
                   ? names[i]
                   : "MISMATCH");
    }
    if (e.complete) {
        printf("all %u events in one configuration\n", n);
        return 0;
    }
    passes = hpm_encode_passes(&mc, NULL, 0, pass_of);
    printf("%u of %u events in one configuration; ", e.placed, n);
    if (passes > 0)
        printf("all of them in %d passes (hpm count --passes=auto runs the program once per "
               "pass)\n", passes);
    else
        printf("some fit no configuration\n");
    return 1;
}

static int list(const char *machine, const char *pat, const char *encode, int md);

int cmd_list(int argc, char **argv)
{
    const char *machine = NULL, *encode = NULL, *output = NULL;
    struct runner_redirect out;
    int md_flag = 0, machines = 0, first, rc;
    const struct hpm_opt t[] = {
        {"--machine", NULL, "M", "machine name (machines/M.machine) or machine file",
         HPM_OPT_STRING, &machine, NULL, NULL, 0, 0},
        {"--markdown", NULL, NULL, "print the table as Markdown (docs/events.md)", HPM_OPT_FLAG,
         &md_flag, NULL, NULL, 0, 0},
        {"--encode", NULL, "EVENTS", "place EVENTS on the machine's counter unit ([counters])",
         HPM_OPT_STRING, &encode, NULL, NULL, 0, 0},
        {"--output", "-o", "FILE", "write to FILE [standard output]", HPM_OPT_STRING, &output,
         NULL, NULL, 0, 0},
        {"--machines", NULL, NULL, "list the machine names, one a line", HPM_OPT_FLAG, &machines,
         NULL, NULL, 0, 0},
        HPM_OPT_TABLE_END,
    };
    rc = hpm_opt_parse("hpm list", t, list_synopsis, NULL, argc, argv, &first);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (machines)
        return first < argc ? hpm_opt_error("hpm list", t, list_synopsis, NULL,
                                            "bad argument '%s'", argv[first])
                            : list_machines();
    if (argc - first > 1)
        return hpm_opt_error("hpm list", t, list_synopsis, NULL, "bad argument '%s'",
                             argv[first + 1]);
    if (runner_stdout_to("hpm list", output, &out) != 0)
        return 1;
    rc = list(machine, first < argc ? argv[first] : NULL, encode, md_flag);
    if (runner_stdout_restore("hpm list", &out, rc == 0) != 0 && rc == 0)
        rc = 1;
    return rc;
}

/* The catalog, or --encode's placement, on standard output. */
static int list(const char *machine, const char *pat, const char *encode, int md)
{
    struct hpm_machine m;
    char note[160], code[32], name[HPM_CAT_NAME_MAX + 8];
    unsigned k, features, shown = 0;
    int core = -1, rc;

    if ((rc = machine_arg_load("list", machine, &m, note, sizeof note)) != 0)
        return rc;
    features = hpm_catalog_features(&m.hier) | (m.torus.x ? HPM_NEED_NET : 0);
    if (encode)
        return list_encode(&m, features, encode);
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
        char near[HPM_CAT_NAME_MAX + 16];
        if (pat && suggest_event(pat, near, sizeof near) == 0)
            fprintf(stderr, "hpm list: no event matches '%s' (did you mean %s?)\n", pat, near);
        else
            fprintf(stderr, "hpm list: no event matches '%s'\n", pat ? pat : "");
        return 1;
    }
    if (!md)
        printf("each event counts in a mode too: NAME:level-low, NAME:edge-rise, NAME:edge-fall "
               "(docs/events.md, Counting modes)\n");
    return 0;
}
