/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * profile_cmd.c - hpm profile after the run (profile_cmd.h): every output
 * file of the process tree holds its process's profile records (the tool
 * writes them with --hpm-profile=yes, also in the segment written before an
 * exec); each is symbolized against its own mappings and added to one
 * profile, written atomically in callgrind's format.
 */
#define _GNU_SOURCE
#include "run/profile_cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "util/runner.h"
#include "vpmufile.h"

static int write_cg(FILE *f, void *ctx)
{
    return hpm_prof_write_callgrind(ctx, f);
}

static int write_c2c_text(FILE *f, void *ctx)
{
    return hpm_c2c_report_write_text(ctx, f);
}

static int write_c2c_json(FILE *f, void *ctx)
{
    return hpm_c2c_report_write_json(ctx, f);
}

/* The contended cache lines (coherent nodes): PATH.c2c (text) and
 * PATH.c2c.json beside the profile, named on the summary line. */
static int c2c_write(const char *cmd, struct hpm_c2c_report *c, const char *path, char **c2c_path,
                     int quiet)
{
    int present = 0;
    uint64_t dropped = 0;
    size_t nf = 0, n = hpm_c2c_report_lines(c, &present, &dropped, &nf);
    char *json_path = NULL;
    int rc;
    if (!present)
        return 0;
    if (n == 0 && dropped == 0) {
        if (!quiet)
            fprintf(stderr, "; no cache line had coherence misses");
        return 0;
    }
    if (asprintf(c2c_path, "%s.c2c", path) < 0 || asprintf(&json_path, "%s.c2c.json", path) < 0) {
        *c2c_path = NULL;
        fprintf(stderr, "\n%s: out of memory\n", cmd);
        return -1;
    }
    rc = runner_write_output(cmd, *c2c_path, write_c2c_text, c) != 0 ||
                 runner_write_output(cmd, json_path, write_c2c_json, c) != 0
             ? -1
             : 0;
    if (rc == 0 && !quiet)
        fprintf(stderr, "; shared cache lines in %s (and .json): %zu, %zu of them false sharing",
                *c2c_path, n, nf);
    free(json_path);
    return rc;
}

/* ------------------------------------------------------------ the handler */

static int prof_failed(struct profile_reader *x, const struct vpmu_file *f)
{
    snprintf(x->err, sizeof x->err, "%s: %s", f->path, x->why);
    x->failed = 1;
    hpm_prof_records_free(&x->r);
    return -1;
}

static int prof_begin(void *ctx, const struct vpmu_file *f, const char *buf, size_t len, int nul)
{
    struct profile_reader *x = ctx;
    (void)f;
    (void)buf;
    (void)len;
    (void)nul;
    hpm_prof_reader_init(&x->rd, &x->r, x->why, sizeof x->why, &x->rtool);
    return 0;
}

static int prof_record(void *ctx, const struct vpmu_file *f, const struct vpmu_rec *r)
{
    struct profile_reader *x = ctx;
    return x->rtool.record(x->rtool.ctx, f, r) != 0 ? prof_failed(x, f) : 0;
}

/* The file read: its records into the profile (the data objects first:
 * the instructions' take the values over) and the contended lines. */
static int prof_end(void *ctx, const struct vpmu_file *f)
{
    struct profile_reader *x = ctx;
    if (hpm_prof_add_data(&x->dp, &x->r, x->syms, x->why, sizeof x->why) != 0 ||
        hpm_prof_take_records(&x->p, &x->r, x->syms, x->why, sizeof x->why) != 0)
        return prof_failed(x, f);
    x->ninsn += x->r.n_insns;
    x->procs += x->r.n_kinds > 0;
    if (hpm_c2c_report_add(x->c2c, &x->r, x->syms, f->pid) != 0) {
        snprintf(x->why, sizeof x->why, "out of memory");
        return prof_failed(x, f);
    }
    hpm_prof_records_free(&x->r);
    return 0;
}

int profile_reader_init(struct profile_reader *x, const char *cmd)
{
    memset(x, 0, sizeof *x);
    x->cmd = cmd;
    hpm_profile_init(&x->p);
    hpm_profile_init(&x->dp);
    x->syms = hpm_symbols_new();
    x->c2c = hpm_c2c_report_new();
    x->tool.file_begin = prof_begin;
    x->tool.record = prof_record;
    x->tool.file_end = prof_end;
    x->tool.ctx = x;
    return x->syms && x->c2c ? 0 : -1;
}

void profile_reader_free(struct profile_reader *x)
{
    if (x->syms)
        hpm_symbols_free(x->syms);
    if (x->c2c)
        hpm_c2c_report_free(x->c2c);
    hpm_profile_free(&x->p);
    hpm_profile_free(&x->dp);
    x->syms = NULL;
    x->c2c = NULL;
}

/* ------------------------------------------------------------ the writing */

int profile_write(struct profile_reader *x, char *const *argv, int argc, const char *machine,
                  const char *path, int quiet)
{
    struct hpm_profile p = x->p, dp = x->dp;
    struct hpm_c2c_report *c2c = x->c2c;
    const char *cmd = x->cmd;
    char *data_path = NULL, *c2c_path = NULL;
    char creator[256];
    size_t ninsn = x->ninsn, cmdlen = 1;
    unsigned procs = x->procs, k;
    int rc = -1, a;

    /* the profile is the writer's now */
    hpm_profile_init(&x->p);
    hpm_profile_init(&x->dp);
    if (x->failed) {
        fprintf(stderr, "%s: %s\n", cmd, x->err);
        goto done;
    }
    if (p.n_kinds == 0) {
        fprintf(stderr, "%s: the virtual PMU wrote no profile\n", cmd);
        goto done;
    }
    hpm_profile_finish(&p);
    for (a = 0; a < argc; a++)
        cmdlen += strlen(argv[a]) + 1;
    p.command = malloc(cmdlen);
    if (!p.command)
        goto oom;
    p.command[0] = 0;
    for (a = 0; a < argc; a++) {
        if (a)
            strcat(p.command, " ");
        strcat(p.command, argv[a]);
    }
    snprintf(creator, sizeof creator,
             "hpm profile: the virtual PMU, machine %s (counts modeled, not measured)", machine);
    p.creator = strdup(creator);
    if (!p.creator)
        goto oom;
    if (runner_write_output(cmd, path, write_cg, &p) != 0)
        goto done;
    if (dp.n_fns > 0) {
        /* the data objects: a profile of their own beside it, with the
         * columns that are not all 0 */
        uint64_t dsum[HPM_PROF_KINDS_MAX];
        hpm_profile_finish(&dp);
        hpm_profile_sum(&dp, dsum);
        for (k = 0; k < dp.n_kinds; k++)
            dp.hidden[k] = dsum[k] == 0;
        dp.command = strdup(p.command);
        dp.creator = strdup("hpm profile, data objects: the data accesses that missed the L1, by "
                            "heap block allocation site, variable, stack (counts modeled)");
        if (!dp.command || !dp.creator || asprintf(&data_path, "%s.data", path) < 0) {
            data_path = NULL;
            goto oom;
        }
        if (runner_write_output(cmd, data_path, write_cg, &dp) != 0)
            goto done;
    }
    if (quiet) {
        rc = c2c_write(cmd, c2c, path, &c2c_path, 1) != 0 ? -1 : 0;
        goto done;
    }
    /* distinct addresses, not instructions run: the totals are the counts */
    fprintf(stderr,
            "hpm: profile of %u process%s written to %s: %zu instruction addresses in %zu "
            "functions",
            procs, procs == 1 ? "" : "es", path, ninsn, p.n_fns);
    {
        /* the kinds whose instruction shares are not the tool's own */
        static const struct {
            unsigned char bit;
            const char *what;
        } how[] = {
            {HPM_PROF_SCALED, "apportioned to add up to their totals"},
            {HPM_PROF_UNATTRIBUTED, "not per instruction, in (unattributed)"},
        };
        size_t h;
        for (h = 0; h < sizeof how / sizeof how[0]; h++) {
            for (k = 0; k < p.n_kinds && !(p.apportioned[k] & how[h].bit); k++)
                ;
            if (k == p.n_kinds)
                continue;
            fprintf(stderr, "; %s:", how[h].what);
            for (k = 0; k < p.n_kinds; k++)
                if (p.apportioned[k] & how[h].bit)
                    fprintf(stderr, " %s", p.kinds[k]);
        }
    }
    if (data_path)
        fprintf(stderr, "; data objects in %s.data", path);
    if (c2c_write(cmd, c2c, path, &c2c_path, 0) != 0)
        goto done;
    fprintf(stderr, "\nhpm: read it with: hpm annotate %s (or callgrind_annotate, kcachegrind)\n",
            path);
    rc = 0;
    goto done;
oom:
    fprintf(stderr, "%s: out of memory\n", cmd);
done:
    free(c2c_path);
    hpm_profile_free(&p);
    hpm_profile_free(&dp);
    free(data_path);
    return rc;
}
