/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm roofline: the memory-level roofline of a program's loops and
 * functions from exact counts on the modeled machine (docs/roofline.md).
 *
 *   hpm roofline [--machine M] [--json | --csv] [-o FILE] [--svg FILE.svg]
 *                [--top N] (--profile PROFILE | -- PROGRAM [ARGS])
 *
 * This file is the command. With a program, hpm profile runs it first
 * (into a private folder, removed after). roofline/: the ceilings and the
 * items (roofline_analysis.c: per loop and per function, achieved FLOP/s
 * of modeled time against each level's arithmetic intensity), an item's
 * rates and bound (roofline_items.c), the model's own ceilings, which
 * classify each item too ("model"; roofline_measure.c), the table and the
 * picture (roofline_write.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "plot/plot.h"
#include "roofline/roofline.h"
#include "util/machine_arg.h"
#include "util/options.h"
#include "util/runner.h"

static const char roofline_synopsis[] =
    "usage: hpm roofline [--machine M] [--json | --csv] [-o FILE] [--svg FILE.svg] [--top N]\n"
    "                    (--profile PROFILE | -- PROGRAM [ARGS])\n"
    "\n"
    "The memory-level roofline of PROGRAM's loops and functions (or of a profile\n"
    "hpm profile wrote): achieved FLOP/s of modeled time and arithmetic intensity\n"
    "against the bytes of each level (L1, L2, L3, DDR), the ceilings of the\n"
    "machine file's [roofline] section, which ceiling bounds each and the\n"
    "headroom; --svg draws it (gnuplot).\n"
    "\n";

struct roofline_opts {
    const char *machine, *out, *svg, *profile;
    int json, csv, no_measure;
    long top;
};

#define ROOFLINE_OPTIONS 9
static void roofline_table(struct roofline_opts *o, struct hpm_opt *t)
{
    const struct hpm_opt rows[] = {
        {"--machine", NULL, "M", "the machine (its [roofline] ceilings) [bgp]", HPM_OPT_STRING,
         &o->machine, NULL, NULL, 0, 0},
        {"--output", "-o", "FILE",
         "write the table (text, --json or --csv) to FILE; a FILE.svg\n"
         "without --json or --csv is the picture, as --svg",
         HPM_OPT_STRING, &o->out, NULL, NULL, 0, 0},
        {"--svg", NULL, "FILE.svg", "draw the roofline (gnuplot) into FILE.svg", HPM_OPT_STRING,
         &o->svg, NULL, NULL, 0, 0},
        {"--json", NULL, NULL, "the table as JSON", HPM_OPT_FLAG, &o->json, NULL, NULL, 0, 0},
        {"--csv", NULL, NULL, "the table as CSV", HPM_OPT_FLAG, &o->csv, NULL, NULL, 0, 0},
        {"--top", NULL, "N", "the N top loops and N top functions by flops [10]", HPM_OPT_LONG,
         &o->top, NULL, NULL, 1, 10000},
        {"--profile", NULL, "PROFILE", "a profile hpm profile wrote (no program runs)",
         HPM_OPT_STRING, &o->profile, NULL, NULL, 0, 0},
        {"--no-measure", NULL, NULL, "do not measure the model's own ceilings (kernels)",
         HPM_OPT_FLAG, &o->no_measure, NULL, NULL, 0, 0},
        HPM_OPT_TABLE_END,
    };
    _Static_assert(sizeof rows / sizeof rows[0] == ROOFLINE_OPTIONS, "ROOFLINE_OPTIONS");
    memcpy(t, rows, sizeof rows);
}

static int is_svg(const char *path)
{
    size_t l = strlen(path);
    return l > 4 && strcmp(path + l - 4, ".svg") == 0;
}

/* The table in its format, for runner_write_output. */
struct table_out {
    const struct item *it, *all;
    size_t n;
    const struct ceilings *c;
    const struct hpm_machine *m;
    const struct measured *me;
    const char *where;
    char fmt; /* 't'ext, 'j'son, 'c'sv */
};

static int write_table(FILE *f, void *ctx)
{
    const struct table_out *t = ctx;
    if (t->fmt == 'j')
        return roofline_print_json(f, t->it, t->n, t->c, t->m, t->all, t->me);
    if (t->fmt == 'c')
        roofline_print_csv(f, t->it, t->n);
    else {
        roofline_print_text(f, t->it, t->n, t->c, t->m, t->where, t->me);
        if (t->n == 0)
            fprintf(f, "(no loop or function with floating-point operations)\n");
    }
    return ferror(f) ? -1 : 0;
}

int cmd_roofline(int argc, char **argv)
{
    struct roofline_opts o;
    struct hpm_opt t[ROOFLINE_OPTIONS];
    struct hpm_machine m;
    struct ceilings c;
    struct measured me;
    struct item *items = NULL, all;
    char note[256], dir[4096] = "", path[4200];
    struct table_out to;
    const char *prof;
    size_t n = 0;
    int first, rc;

    memset(&o, 0, sizeof o);
    o.top = 10;
    roofline_table(&o, t);
    rc = hpm_opt_parse("hpm roofline", t, roofline_synopsis, "", argc, argv, &first);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (o.json && o.csv)
        return hpm_opt_error("hpm roofline", t, roofline_synopsis, "", "%s",
                             "--json and --csv: choose one");
    if (!o.profile == (first >= argc))
        return hpm_opt_error("hpm roofline", t, roofline_synopsis, "", "%s",
                             "give a program after -- or --profile PROFILE (one of them)");
    if (o.out && !o.svg && !o.json && !o.csv && is_svg(o.out)) {
        o.svg = o.out; /* -o FILE.svg: the picture */
        o.out = NULL;
    }
    if (o.svg && (!gp_safe(o.svg) || !is_svg(o.svg)))
        return hpm_opt_error("hpm roofline", t, roofline_synopsis, "", "%s",
                             "--svg names an .svg file without control characters");
    if ((o.out && !runner_output_ok("hpm roofline", o.out)) ||
        (o.svg && !runner_output_ok("hpm roofline", o.svg)))
        return 2;
    if (machine_arg_load("roofline", o.machine, &m, note, sizeof note) != 0)
        return 2;
    rc = roofline_ceilings(&m, o.machine && strcmp(o.machine, "host") != 0
                             ? o.machine
                             : o.machine ? "host (assumed x86-64 ceilings)" : HPM_DEFAULT_MACHINE,
                     &c);
    if (rc)
        return rc;
    memset(&me, 0, sizeof me);
    if (!o.no_measure)
        (void)roofline_measure(o.machine, &m, &me);
    prof = o.profile;
    if (!prof) {
        if (runner_tmpdir("hpm-roofline", dir, sizeof dir) != 0) {
            fprintf(stderr, "hpm roofline: cannot make a temporary folder: %s\n", strerror(errno));
            dir[0] = 0;
            return 1;
        }
        snprintf(path, sizeof path, "%s/profile", dir);
        rc = roofline_run_profile(o.machine, path, argv + first, argc - first);
        if (rc != 0) {
            fprintf(stderr, "hpm roofline: hpm profile failed (status %d)\n", rc);
            goto out;
        }
        prof = path;
    }
    rc = roofline_analyse(prof, &m, &c, &me, o.top, &items, &n, &all);
    if (rc != 0)
        goto out;
    to.it = items;
    to.n = n;
    to.c = &c;
    to.m = &m;
    to.all = &all;
    to.me = &me;
    to.fmt = o.json ? 'j' : o.csv ? 'c' : 't';
    to.where = o.machine && strcmp(o.machine, "host") == 0
                   ? "ceilings assumed for a current x86-64 core"
                   : "ceilings from its machine file";
    rc = runner_write_output("hpm roofline", o.out, write_table, &to) == 0 ? 0 : 1;
    if (o.svg && rc == 0) {
        rc = roofline_draw(o.svg, o.profile ? o.profile : argv[first], items, n, &c, &m, &me);
        if (rc == 0)
            fprintf(stderr, "hpm roofline: drew %s\n", o.svg);
    }
    free(items);
out:
    if (dir[0])
        runner_rmdir(dir); /* the scratch profile and its data objects */
    return rc;
}
