/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm roofline: the memory-level roofline of a program's loops and
 * functions from exact counts on the modeled machine (docs/roofline.md).
 *
 *   hpm roofline [--machine M] [--json | --csv] [-o FILE] [--svg FILE.svg]
 *                [--top N] (--profile PROFILE | -- PROGRAM [ARGS])
 *
 * This file: the command and the analysis. With a program, hpm profile
 * runs it first (into a private folder, removed after). Per loop
 * (src/profile/loops.h, inclusive) and per function (self): achieved
 * FLOP/s of modeled time (FP_OPS over CYCLES at the machine's clock;
 * double and single precision apart) and arithmetic intensity against each
 * level's traffic: L1 the loads' and stores' bytes, L2 the L1 data misses
 * and write-backs in L1 lines, L3 the L3's reads and write-backs in L3
 * lines, DDR its read and written bytes. The ceilings are the machine
 * file's [roofline] section (per core: flops a cycle by width, bytes a
 * cycle per cache level; the node's memory bandwidth), a level's held to
 * those nearer the core. Each item's peak is that of the width most of its
 * flops use; the level that bounds it is the one whose roof, min(peak, AI
 * x bandwidth), is lowest; headroom is that roof over the achieved rate.
 * The model's own ceilings (roofline_measure.c) classify each item too
 * ("model"); roofline_write.c writes the table and draws the picture.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "fileio.h"
#include "loops.h"
#include "util/machine_arg.h"
#include "util/options.h"
#include "plot/plot.h"
#include "profile.h"
#include "util/progress.h"
#include "roofline/roofline.h"
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

/* The ceilings, or 2 naming the file and the first key missing. */
static int ceilings_of(const struct hpm_machine *m, const char *where, struct ceilings *c)
{
    static const char *const fk[3] = {"flops_per_cycle_scalar", "flops_per_cycle_128",
                                       "flops_per_cycle_256"};
    double f = (double)m->frequency_hz;
    unsigned w;
    memset(c, 0, sizeof *c);
    for (w = 0; w < 3; w++) {
        if (!m->roofline.flops_milli[w])
            goto missing_flops;
        c->peak[0][w] = (double)m->roofline.flops_milli[w] / 1000.0 * f;
    }
    if (!m->roofline.sp_per_dp) {
        fprintf(stderr, "hpm roofline: %s: [roofline] sp_per_dp is missing\n", where);
        return 2;
    }
    for (w = 0; w < 3; w++)
        c->peak[1][w] = c->peak[0][w] * m->roofline.sp_per_dp;
#define NEED(cond, field, key)                                                               \
    if (cond) {                                                                              \
        if (!m->roofline.field) {                                                            \
            fprintf(stderr, "hpm roofline: %s: [roofline] %s is missing\n", where, key);     \
            return 2;                                                                        \
        }                                                                                    \
    }
    NEED(1, l1_milli, "l1_bytes_per_cycle")
    NEED(m->hier.l2.size, l2_milli, "l2_bytes_per_cycle")
    NEED(m->hier.l3.size, l3_milli, "l3_bytes_per_cycle")
    NEED(1, memory_bytes_per_s, "memory_bandwidth")
#undef NEED
    c->bw_file[LV_L1] = (double)m->roofline.l1_milli / 1000.0 * f;
    c->bw_file[LV_L2] = m->hier.l2.size ? (double)m->roofline.l2_milli / 1000.0 * f : 0;
    c->bw_file[LV_L3] = m->hier.l3.size ? (double)m->roofline.l3_milli / 1000.0 * f : 0;
    c->bw_file[LV_DDR] = (double)m->roofline.memory_bytes_per_s;
    /* a level's bytes reach the core through the levels nearer it: one
     * core's roof is the least of theirs (bgp's DDR, 13.6 GB/s for the
     * node, comes through a core's 6.8 GB/s L3 port) */
    for (w = 0; w < LV_N; w++) {
        unsigned near;
        c->bw[w] = c->bw_file[w];
        for (near = 0; near < w && c->bw[w] > 0; near++)
            if (c->bw_file[near] > 0 && c->bw_file[near] < c->bw[w])
                c->bw[w] = c->bw_file[near];
    }
    return 0;
missing_flops:
    fprintf(stderr, "hpm roofline: %s: [roofline] %s is missing\n", where, fk[w]);
    return 2;
}

static int cmp_item(const void *a, const void *b)
{
    const struct item *x = a, *y = b;
    if (x->flops != y->flops)
        return x->flops > y->flops ? -1 : 1;
    return strcmp(x->name, y->name);
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
    struct hpm_profile p;
    struct hpm_loops ls;
    struct item *items = NULL, all;
    uint64_t *sum = NULL;
    char note[256], err[512], dir[4096] = "", path[4200];
    struct table_out to;
    const char *prof;
    char *text = NULL;
    size_t len = 0, i, n = 0, nf = 0, nl = 0;
    int first, rc, kx[K_N];
    unsigned k;

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
    rc = ceilings_of(&m, o.machine && strcmp(o.machine, "host") != 0
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
    if (hpm_file_read(prof, (size_t)4 << 30, hpm_prof_callgrind_head, "a profile in callgrind's format",
                      &text, &len, err, sizeof err) != 0) {
        fprintf(stderr, "hpm roofline: cannot read %s\n", err);
        rc = 1;
        goto out;
    }
    hpm_profile_init(&p);
    if (hpm_prof_read_callgrind(&p, text, len, err, sizeof err) != 0) {
        fprintf(stderr, "hpm roofline: %s: %s\n", prof, err);
        free(text);
        hpm_profile_free(&p);
        rc = 1;
        goto out;
    }
    free(text);
    hpm_profile_finish(&p);
    if (roofline_kinds_of(&p, prof, kx) != 0) {
        hpm_profile_free(&p);
        rc = 1;
        goto out;
    }
    if (hpm_loops_find(&p, &ls, err, sizeof err) != 0) {
        fprintf(stderr, "hpm roofline: %s: %s\n", prof, err);
        hpm_profile_free(&p);
        rc = 1;
        goto out;
    }
    items = calloc(ls.n + p.n_fns + 1, sizeof *items);
    sum = calloc(p.n_kinds ? p.n_kinds : 1, sizeof *sum);
    if (!items || !sum) {
        fprintf(stderr, "hpm roofline: out of memory\n");
        rc = 1;
        goto done;
    }
    for (i = 0; i < ls.n; i++) {
        struct item *it = &items[n];
        it->is_loop = 1;
        hpm_loop_name(&p, &ls.loops[i], it->name, sizeof it->name);
        snprintf(it->object, sizeof it->object, "%s", p.strs[p.fns[ls.loops[i].fn].obj]);
        roofline_item_fill(it, ls.loops[i].incl, kx, &m, &c, &me);
        it->entries = ls.loops[i].entries;
        it->trip = hpm_loop_trip(&ls.loops[i]);
        if (it->flops > 0)
            n++;
    }
    nl = n;
    qsort(items, nl, sizeof *items, cmp_item);
    if (nl > (size_t)o.top)
        nl = (size_t)o.top;
    n = nl;
    for (i = 0; i < p.n_fns; i++) {
        struct item *it = &items[n + nf];
        uint64_t *v = roofline_fn_self(&p, i);
        if (!v) {
            rc = 1;
            goto done;
        }
        for (k = 0; k < p.n_kinds; k++)
            sum[k] += v[k];
        memset(it, 0, sizeof *it);
        snprintf(it->name, sizeof it->name, "%s", p.strs[p.fns[i].name]);
        snprintf(it->object, sizeof it->object, "%s", p.strs[p.fns[i].obj]);
        roofline_item_fill(it, v, kx, &m, &c, &me);
        free(v);
        if (it->flops > 0)
            nf++;
    }
    memset(&all, 0, sizeof all);
    roofline_item_fill(&all, sum, kx, &m, &c, &me);
    qsort(items + n, nf, sizeof *items, cmp_item);
    if (nf > (size_t)o.top)
        nf = (size_t)o.top;
    n += nf;
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
done:
    free(items);
    free(sum);
    hpm_loops_free(&ls);
    hpm_profile_free(&p);
out:
    if (dir[0])
        runner_rmdir(dir); /* the scratch profile and its data objects */
    return rc;
}
