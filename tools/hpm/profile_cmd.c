/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * profile_cmd.c - hpm profile after the run (profile_cmd.h): every output
 * file of the process tree holds its process's profile records (the tool
 * writes them with --hpm-profile=yes, also in the segment written before an
 * exec); each is symbolized against its own mappings and added to one
 * profile, written atomically in callgrind's format.
 */
#define _GNU_SOURCE
#include "profile_cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "profile.h"
#include "runner.h"
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

int profile_write(const char *cmd, const char *dir, uint64_t main_pid, int children,
                  char *const *argv, int argc, const char *machine, const char *path,
                  int quiet)
{
    struct hpm_profile p, dp;
    struct hpm_symbols *syms;
    struct hpm_c2c_report *c2c;
    char *data_path = NULL, *c2c_path = NULL;
    struct vpmu_file *files = NULL;
    char err[512], creator[256];
    size_t n = 0, i, ninsn = 0, cmdlen = 1;
    unsigned procs = 0, k;
    int rc = -1, a;

    hpm_profile_init(&p);
    hpm_profile_init(&dp);
    syms = hpm_symbols_new();
    c2c = hpm_c2c_report_new();
    if (!syms || !c2c || vpmu_files_list(dir, &files, &n) != 0) {
        fprintf(stderr, "%s: cannot read the tool's output in %s: %s\n", cmd, dir,
                strerror(errno));
        goto done;
    }
    /* in the folder scan's order, so the profile does not depend on the
     * directory's */
    for (i = 0; i < n; i++) {
        struct hpm_prof_records r;
        struct hpm_file_map m;
        int parsed;
        if (!children && files[i].pid != main_pid)
            continue;
        /* far beyond any output file (a Python profile's records are 17 MB) */
        if (hpm_file_map(files[i].path, (size_t)1 << 34, NULL, NULL, &m, err, sizeof err) != 0) {
            fprintf(stderr, "%s: cannot read %s\n", cmd, err);
            goto done;
        }
        parsed = hpm_prof_records_parse(m.data, m.len, &r, err, sizeof err);
        hpm_file_unmap(&m);
        if (parsed != 0) {
            fprintf(stderr, "%s: %s: %s\n", cmd, files[i].path, err);
            goto done;
        }
        /* the data objects first: the instructions' take the values over */
        if (hpm_prof_add_data(&dp, &r, syms, err, sizeof err) != 0 ||
            hpm_prof_take_records(&p, &r, syms, err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s: %s\n", cmd, files[i].path, err);
            hpm_prof_records_free(&r);
            goto done;
        }
        ninsn += r.n_insns;
        procs += r.n_kinds > 0;
        if (hpm_c2c_report_add(c2c, &r, syms, files[i].pid) != 0) {
            hpm_prof_records_free(&r);
            goto oom;
        }
        hpm_prof_records_free(&r);
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
    vpmu_files_free(files, n);
    hpm_symbols_free(syms);
    hpm_c2c_report_free(c2c);
    free(c2c_path);
    hpm_profile_free(&p);
    hpm_profile_free(&dp);
    free(data_path);
    return rc;
}
