/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * passes.c - hpm count --passes (passes.h).
 *
 * Why passes give exact totals here: the virtual PMU's runs are
 * deterministic (docs/vpmu.md, Determinism), so every pass counts the same
 * execution. The correlate (INSTRUCTIONS by default) is counted on every
 * pass and compared: a program whose passes differ (it reads the time, or
 * its input changes) is named non-repeatable, and its merged counts do not
 * describe one run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "catalog.h"
#include "encode.h"
#include "passes.h"
#include "runner.h"
#include "vpmu_output.h"

#define PASSES_MAX 32

/* The name a code is counted by: PU<n>_KIND or a node kind. */
static void code_name(unsigned code, char *buf, size_t len)
{
    if (hpm_catalog_code_name(code, buf, len) < 0)
        snprintf(buf, len, "code%u", code);
}

/* Whether argv[i] is an option of hpm count that the passes set
 * themselves (with its value in the next word when it has one): 1 or 2
 * words to drop, 0 to keep. */
static int dropped(char **argv, int i, int argc)
{
    static const char *const with_value[] = {"-e", "--events", "-o", "--output", "--passes",
                                             "--correlate", NULL};
    static const char *const prefixed[] = {"--events=", "--output=", "--passes=",
                                           "--correlate=", NULL};
    const char *a = argv[i];
    unsigned k;
    if (strcmp(a, "--json") == 0 || strcmp(a, "--csv") == 0 || strcmp(a, "--per-core") == 0 ||
        strcmp(a, "--per-thread") == 0)
        return 1;
    for (k = 0; with_value[k]; k++)
        if (strcmp(a, with_value[k]) == 0)
            return i + 1 < argc ? 2 : 1;
    for (k = 0; prefixed[k]; k++)
        if (strncmp(a, prefixed[k], strlen(prefixed[k])) == 0)
            return 1;
    if (strncmp(a, "-e", 2) == 0 || strncmp(a, "-o", 2) == 0)
        return 1; /* -eNAMES, -oFILE */
    return 0;
}

/* Runs /proc/self/exe with args: the exit status. The program's standard
 * output and error are the user's on every pass (what they are changes
 * what a program does: its C library buffers a terminal, a pipe and
 * /dev/null differently, so a pass with another would count another run);
 * the pass's report goes to a file. */
static int run_self(char **args)
{
    pid_t pid;
    int status;
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        execv("/proc/self/exe", args);
        _exit(127);
    }
    if (pid < 0)
        return 1;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int passes_maybe_run(const struct passes_req *q)
{
    unsigned codes[HPM_ENCODE_MAX_EVENTS], corr[HPM_CAT_MAX_CORES], n = 0, n_corr = 0, i, j;
    int pass_of[HPM_ENCODE_MAX_EVENTS], n_pass, max_pass = 0, rc = 1, c[HPM_CAT_MAX_CORES];
    struct hpm_cu_codes mc;
    const char *cname = q->correlate ? q->correlate : "INSTRUCTIONS";
    char dir[4096], path[4200], name[HPM_CAT_NAME_MAX];
    struct vpmu_output merged = {0};
    char notes[3][1024];
    unsigned n_notes = 0, n_differ = 0;
    int nc, k;

    if (q->passes && strcmp(q->passes, "auto") != 0) {
        char *end;
        long v = strtol(q->passes, &end, 10);
        if (*end || v < 1 || v > PASSES_MAX) {
            fprintf(stderr, "hpm count: --passes=%s: auto or a number of passes, 1..%d\n",
                    q->passes, PASSES_MAX);
            return 2;
        }
        max_pass = (int)v;
    }
    if (!q->m->counter_unit.units) {
        if (!q->passes)
            return PASSES_NOT_NEEDED;
        fprintf(stderr, "hpm count: --passes: machine %s has as many counter units as its events "
                        "need (no [counters] units): every event fits one run\n",
                q->m->name);
        return PASSES_NOT_NEEDED;
    }
    for (i = 0; i < q->n_rows; i++)
        for (j = 0; j < q->rows[i].n_codes; j++) {
            unsigned d, code = (unsigned)q->rows[i].codes[j];
            for (d = 0; d < n && codes[d] != code; d++)
                ;
            if (d < n)
                continue;
            if (n == HPM_ENCODE_MAX_EVENTS - HPM_CAT_MAX_CORES) {
                fprintf(stderr, "hpm count: at most %d codes can be planned in passes\n",
                        HPM_ENCODE_MAX_EVENTS - HPM_CAT_MAX_CORES);
                return 2;
            }
            codes[n++] = code;
        }
    nc = hpm_catalog_lookup(cname, q->m->hier.cores, q->features, c, HPM_CAT_MAX_CORES, NULL);
    if (nc <= 0) {
        fprintf(stderr, "hpm count: --correlate=%s is not an event of machine %s\n", cname,
                q->m->name);
        return 2;
    }
    for (k = 0; k < nc; k++)
        corr[n_corr++] = (unsigned)c[k];
    mc.units = q->m->counter_unit.units;
    mc.counters = q->m->counter_unit.counters;
    mc.group = q->m->counter_unit.group;
    mc.codes = codes;
    mc.n_codes = n;
    {
        /* without passes: do they fit as they are? */
        struct hpm_cu u;
        struct hpm_encoding e;
        hpm_cu_from_codes(&u, &mc);
        if (hpm_encode(&u, n, &e) == 0 && e.complete && !q->passes)
            return PASSES_NOT_NEEDED;
        if (!q->passes) {
            int need = hpm_encode_passes(&mc, corr, n_corr, pass_of);
            fprintf(stderr,
                    "hpm count: machine %s's counter unit ([counters]: %u unit%s of %u counters) "
                    "holds %u of these %u event codes at once; ",
                    q->m->name, mc.units, mc.units == 1 ? "" : "s", mc.counters, e.placed, n);
            if (need > 0)
                fprintf(stderr, "they take %d passes: --passes=auto runs the program once "
                                "per pass (hpm list --encode shows why)\n", need);
            else
                fprintf(stderr, "some fit no configuration beside %s (hpm list --encode)\n",
                        cname);
            return 2;
        }
    }
    n_pass = hpm_encode_passes(&mc, corr, n_corr, pass_of);
    if (n_pass < 0) {
        fprintf(stderr, "hpm count: --passes: some events fit no configuration of machine %s's "
                        "counter unit beside the correlate %s (hpm list --encode)\n",
                q->m->name, cname);
        return 2;
    }
    if (max_pass && n_pass > max_pass) {
        fprintf(stderr, "hpm count: --passes=%d: these events take %d passes on machine %s\n",
                max_pass, n_pass, q->m->name);
        return 2;
    }
    if (runner_tmpdir("hpm-passes", dir, sizeof dir) != 0) {
        fprintf(stderr, "hpm count: cannot create a temporary directory: %s\n", strerror(errno));
        return 1;
    }
    fprintf(stderr, "hpm count: %d passes (machine %s's counter unit holds %u unit%s of %u "
                    "counters); %s on every pass\n",
            n_pass, q->m->name, mc.units, mc.units == 1 ? "" : "s", mc.counters, cname);
    {
        int p;
        char *list = malloc((size_t)(n + n_corr) * (HPM_CAT_NAME_MAX + 1) + 1);
        char **args = calloc((size_t)q->argc + 16, sizeof *args);
        char keep[4300], report[4300];
        uint64_t corr0[HPM_CAT_MAX_CORES] = {0};
        if (!list || !args) {
            free(list);
            free(args);
            goto out;
        }
        for (p = 0; p < n_pass; p++) {
            struct vpmu_output po = {0};
            int na = 0, dd, status;
            char err[512];
            size_t at = 0;
            list[0] = 0;
            for (j = 0; j < n_corr; j++) {
                code_name(corr[j], name, sizeof name);
                at += (size_t)sprintf(list + at, "%s%s", at ? "," : "", name);
            }
            for (i = 0; i < n; i++)
                if (pass_of[i] == p) {
                    for (j = 0; j < n_corr && corr[j] != codes[i]; j++)
                        ;
                    if (j < n_corr)
                        continue; /* a correlate: already in */
                    code_name(codes[i], name, sizeof name);
                    at += (size_t)sprintf(list + at, ",%s", name);
                }
            snprintf(keep, sizeof keep, "--keep-output=%s/pass.%d", dir, p + 1);
            snprintf(report, sizeof report, "%s/pass.%d.report", dir, p + 1);
            args[na++] = "hpm";
            args[na++] = "count";
            for (dd = 1; dd < q->argc && strcmp(q->argv[dd], "--") != 0;) {
                int drop = dropped(q->argv, dd, q->argc);
                if (drop) {
                    dd += drop;
                    continue;
                }
                args[na++] = q->argv[dd++];
            }
            args[na++] = "-e";
            args[na++] = list;
            args[na++] = keep;
            args[na++] = "-o";
            args[na++] = report;
            for (; dd < q->argc; dd++)
                args[na++] = q->argv[dd];
            args[na] = NULL;
            fprintf(stderr, "hpm count: pass %d of %d: %s\n", p + 1, n_pass, list);
            status = run_self(args);
            unlink(report);
            snprintf(path, sizeof path, "%s/pass.%d", dir, p + 1);
            if (vpmu_output_load(&po, path, err, sizeof err) != 0) {
                fprintf(stderr, "hpm count: pass %d of %d left no counts (status %d)\n", p + 1,
                        n_pass, status);
                vpmu_output_free(&po);
                unlink(path);
                free(list);
                free(args);
                rc = status ? status : 1;
                goto out;
            }
            unlink(path);
            for (j = 0; j < n_corr; j++) {
                uint64_t v = po.have_count[corr[j]] ? po.count[corr[j]] : 0;
                if (p == 0)
                    corr0[j] = v;
                else if (v != corr0[j]) {
                    code_name(corr[j], name, sizeof name);
                    if (n_differ++ == 0)
                        snprintf(notes[2], sizeof notes[2],
                                 "NOT REPEATABLE: the correlate differs between passes (%s: "
                                 "%" PRIu64 " in pass 1, %" PRIu64 " in pass %d): the passes' "
                                 "counts do not describe one run",
                                 name, corr0[j], v, p + 1);
                }
            }
            if (p == 0)
                merged = po;
            else {
                vpmu_output_union(&merged, &po);
                vpmu_output_free(&po);
            }
        }
        free(list);
        free(args);
    }
    snprintf(notes[n_notes++], sizeof notes[0],
             "counted in %d passes: the program ran %d times, each with the events one "
             "configuration of machine %s's counter unit holds (%u unit%s of %u counters)",
             n_pass, n_pass, q->m->name, mc.units, mc.units == 1 ? "" : "s", mc.counters);
    if (n_differ)
        n_notes++; /* notes[2] goes second: below */
    else
        snprintf(notes[n_notes++], sizeof notes[1],
                 "the correlate %s counted on every pass is the same in each: the passes "
                 "describe one run",
                 cname);
    if (n_differ)
        memcpy(notes[1], notes[2], sizeof notes[1]);
    {
        /* the report: hpm count --from-output of the merged counts, with the
         * user's events and format */
        FILE *f;
        char **args = calloc((size_t)q->argc + 16, sizeof *args);
        int na = 0, dd;
        pid_t pid;
        int status;
        snprintf(path, sizeof path, "%s/merged", dir);
        f = fopen(path, "w");
        if (!f || !args || vpmu_output_write(&merged, f) != 0 || fclose(f) != 0) {
            fprintf(stderr, "hpm count: cannot write %s\n", path);
            free(args);
            goto out;
        }
        args[na++] = "hpm";
        args[na++] = "count";
        args[na++] = "--from-output";
        args[na++] = path;
        for (dd = 1; dd < q->argc && strcmp(q->argv[dd], "--") != 0; dd++) {
            const char *a = q->argv[dd];
            int keep_two = strcmp(a, "-e") == 0 || strcmp(a, "--events") == 0 ||
                           strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0;
            if (keep_two && dd + 1 < q->argc) {
                args[na++] = q->argv[dd++];
                args[na++] = q->argv[dd];
            } else if (strcmp(a, "--json") == 0 || strcmp(a, "--csv") == 0 ||
                       strcmp(a, "--per-core") == 0 || strcmp(a, "--per-thread") == 0 ||
                       strncmp(a, "--events=", 9) == 0 || strncmp(a, "--output=", 9) == 0 ||
                       (strncmp(a, "-e", 2) == 0 && a[2]) || (strncmp(a, "-o", 2) == 0 && a[2])) {
                args[na++] = q->argv[dd];
            } else if (dropped(q->argv, dd, q->argc) == 2) {
                dd++;
            }
        }
        for (i = 0; i < n_notes; i++) {
            args[na++] = "--note";
            args[na++] = notes[i];
        }
        args[na] = NULL;
        fflush(NULL);
        pid = fork();
        if (pid == 0) {
            execv("/proc/self/exe", args);
            _exit(127);
        }
        free(args);
        status = 1;
        while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        rc = pid > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : 1;
        unlink(path);
        /* a program that is not repeatable: its report stands, with the note,
         * and the exit status says it (3 when the program itself succeeded) */
        if (n_differ && rc == 0)
            rc = 3;
    }
out:
    vpmu_output_free(&merged);
    runner_rmdir(dir); /* its owner file too */
    return rc;
}
