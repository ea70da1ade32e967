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
#include <sys/stat.h>
#include <sys/sysmacros.h>
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
    static const char *const with_value[] = {"-e",          "--events",   "-o",
                                             "--output",    "--passes",   "--correlate",
                                             "--multiplex", "--mpx-plan", NULL};
    static const char *const prefixed[] = {"--events=",    "--output=",    "--passes=",
                                           "--correlate=", "--multiplex=", "--mpx-plan=",
                                           NULL};
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


/* Runs this hpm count again for one run of the program (a pass, or the
 * multiplexed run): the user's options but the events, report and
 * planning ones, then -e LIST and extra[0..n_extra), the counts kept in
 * dir/NAME and loaded into *out. The run's exit status in *status; 0, or
 * -1 when it left no counts. */
static int run_once(const struct passes_req *q, const char *dir, const char *name,
                    const char *list, char **extra, int n_extra, struct vpmu_output *out,
                    int *status)
{
    char keep[4300], report[4300], path[4200], err[512];
    char **args = calloc((size_t)q->argc + 16 + (size_t)n_extra, sizeof *args);
    int na = 0, dd, k;
    if (!args)
        return -1;
    snprintf(keep, sizeof keep, "--keep-output=%s/%s", dir, name);
    snprintf(report, sizeof report, "%s/%s.report", dir, name);
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
    args[na++] = (char *)list;
    for (k = 0; k < n_extra; k++)
        args[na++] = extra[k];
    args[na++] = keep;
    args[na++] = "-o";
    args[na++] = report;
    for (; dd < q->argc; dd++)
        args[na++] = q->argv[dd];
    args[na] = NULL;
    *status = run_self(args);
    free(args);
    unlink(report);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    k = vpmu_output_load(out, path, err, sizeof err);
    unlink(path);
    return k;
}

/* The report: hpm count --from-output of the merged counts, with the
 * user's events and format and the notes. Its exit status; 3 for a
 * program that is not repeatable (its report stands, with the note, and the
 * status says it when the program itself succeeded). */
static int report_merged(const struct passes_req *q, const char *dir,
                         const struct vpmu_output *merged, char (*notes)[1024],
                         unsigned n_notes, int not_repeatable)
{
    FILE *f;
    char path[4200];
    char **args = calloc((size_t)q->argc + 16 + 2 * (size_t)n_notes, sizeof *args);
    int na = 0, dd, rc;
    unsigned i;
    pid_t pid;
    int status;
    snprintf(path, sizeof path, "%s/merged", dir);
    f = fopen(path, "w");
    if (!f || !args || vpmu_output_write(merged, f) != 0 || fclose(f) != 0) {
        fprintf(stderr, "hpm count: cannot write %s\n", path);
        free(args);
        return 1;
    }
    args[na++] = "hpm";
    args[na++] = "count";
    args[na++] = "--from-output";
    args[na++] = path;
    for (dd = 1; dd < q->argc && strcmp(q->argv[dd], "--") != 0; dd++) {
        const char *a = q->argv[dd];
        int keep_two = strcmp(a, "-e") == 0 || strcmp(a, "--events") == 0 ||
                       strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 ||
                       strcmp(a, "--note") == 0;
        if (keep_two && dd + 1 < q->argc) {
            args[na++] = q->argv[dd++];
            args[na++] = q->argv[dd];
        } else if (strcmp(a, "--json") == 0 || strcmp(a, "--csv") == 0 ||
                   strcmp(a, "--per-core") == 0 || strcmp(a, "--per-thread") == 0 ||
                   strncmp(a, "--events=", 9) == 0 || strncmp(a, "--output=", 9) == 0 ||
                   strncmp(a, "--note=", 7) == 0 ||
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
    if (not_repeatable && rc == 0)
        rc = 3;
    return rc;
}

/* Where every pass starts reading standard input: its offset when it is
 * a regular file (each pass is given the same input), else -1. */
static off_t stdin_start(void)
{
    struct stat st;
    return fstat(0, &st) == 0 && S_ISREG(st.st_mode) ? lseek(0, 0, SEEK_CUR) : -1;
}

/* Why passes may differ, for the NOT REPEATABLE note (into buf): standard
 * input that the passes cannot all read alike (a pipe, a socket, a
 * terminal, a device), else the usual reasons; and what to do. */
static void not_repeatable_why(char *buf, size_t len)
{
    struct stat st;
    const char *what = NULL, *reads = "different input on every pass";
    if (fstat(0, &st) == 0) {
        if (S_ISFIFO(st.st_mode)) {
            what = "a pipe";
            reads = "what the passes before left of it";
        } else if (S_ISSOCK(st.st_mode)) {
            what = "a socket";
        } else if (S_ISCHR(st.st_mode) && isatty(0)) {
            what = "a terminal";
            reads = "what is typed on each pass";
        } else if (S_ISCHR(st.st_mode) && st.st_rdev != makedev(1, 3)) {
            what = "a device"; /* not /dev/null, which is empty on every pass */
        }
    }
    if (what)
        snprintf(buf, len,
                 "standard input is %s: a program that reads it reads %s; give it a file "
                 "(< FILE: every pass starts at the same place in it) or count in one run "
                 "with --multiplex=N",
                 what, reads);
    else
        snprintf(buf, len,
                 "the program reads something that changes between runs (the time, random "
                 "numbers, its process id, files it writes); count it in one run with "
                 "--multiplex=N");
}

/* "NAME,NAME,...": the correlate's codes, then set p's others. */
static char *set_list(const unsigned *codes, unsigned n, const int *pass_of, int p,
                      const unsigned *corr, unsigned n_corr)
{
    char name[HPM_CAT_NAME_MAX], *list = malloc((size_t)(n + n_corr) * (HPM_CAT_NAME_MAX + 1) + 1);
    size_t at = 0;
    unsigned i, j;
    if (!list)
        return NULL;
    list[0] = 0;
    for (j = 0; j < n_corr; j++) {
        code_name(corr[j], name, sizeof name);
        at += (size_t)sprintf(list + at, "%s%s", at ? "," : "", name);
    }
    for (i = 0; i < n; i++)
        if (p < 0 || pass_of[i] == p) {
            for (j = 0; j < n_corr && corr[j] != codes[i]; j++)
                ;
            if (j < n_corr)
                continue; /* a correlate: already in */
            code_name(codes[i], name, sizeof name);
            at += (size_t)sprintf(list + at, ",%s", name);
        }
    return list;
}

/* --multiplex: one run of the union, the tool cycling the sets (its
 * --hpm-mpx), then each event scaled by the correlate: its count in its
 * set's intervals times the correlate's whole count over the correlate's
 * count in those intervals (the correlate itself is exact: counted
 * throughout). */
static int multiplex_run(const struct passes_req *q, const char *dir, const unsigned *codes,
                         unsigned n, const int *pass_of, int n_pass, const unsigned *corr,
                         unsigned n_corr, const char *cname, const struct hpm_cu_codes *mc)
{
    char *list = set_list(codes, n, pass_of, -1, corr, n_corr);
    char *plan = malloc((size_t)(n + n_corr * (unsigned)n_pass) * 12 + 256);
    char notes[4][1024], *extra[2], names[600];
    struct vpmu_output out = {0};
    unsigned i, j, n_notes = 0, scaled = 0;
    int p, status, rc = 1, corr_kind;
    uint64_t total = 0;
    size_t at;
    if (!list || !plan)
        goto done;
    {
        /* the correlate's kind, as the tool counts it (the name may be PU<n>_) */
        unsigned k = 0;
        int core;
        (void)hpm_catalog_decode(corr[0], &k, &core);
        corr_kind = (int)k;
    }
    at = (size_t)sprintf(plan, "--mpx-plan=%ld:%s:", q->multiplex,
                         hpm_catalog_kind((unsigned)corr_kind)->name);
    for (p = 0; p < n_pass; p++) {
        const char *sep = p ? "/" : "";
        for (j = 0; j < n_corr; j++, sep = ",")
            at += (size_t)sprintf(plan + at, "%s%u", sep, corr[j]);
        for (i = 0; i < n; i++)
            if (pass_of[i] == p) {
                for (j = 0; j < n_corr && corr[j] != codes[i]; j++)
                    ;
                if (j == n_corr)
                    at += (size_t)sprintf(plan + at, ",%u", codes[i]);
            }
    }
    extra[0] = plan;
    fprintf(stderr, "hpm count: %d sets of events cycled in one run every %ld %s\n", n_pass,
            q->multiplex, cname);
    if (run_once(q, dir, "mpx", list, extra, 1, &out, &status) != 0) {
        fprintf(stderr, "hpm count: the multiplexed run left no counts (status %d)\n", status);
        rc = status ? status : 1;
        goto done;
    }
    if (out.mpx_sets != (unsigned)n_pass) {
        fprintf(stderr, "hpm count: the multiplexed run's output has no sets (the tool and hpm "
                        "from different builds?)\n");
        goto done;
    }
    for (p = 0; p < n_pass; p++)
        total += out.mpx_correlate[p];
    /* a thread's and a region's counts restart at every switch: what the
     * output holds of them is the last interval's, no count of the run */
    for (i = 0; i < out.n_reg; i++)
        free(out.reg[i].name);
    out.n_reg = out.n_thr = 0;
    names[0] = 0;
    for (i = 0; i < HPM_CAT_SPECS; i++) {
        unsigned set = out.mpx_set_of[i];
        uint64_t c;
        if (!out.have_count[i] || set == 0 || set == VPMU_MPX_EVERY)
            continue;
        if (strlen(names) < sizeof names - HPM_CAT_NAME_MAX - 8) {
            char nm[HPM_CAT_NAME_MAX];
            code_name(i, nm, sizeof nm);
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                     names[0] ? ", " : "", nm);
        } else if (!strstr(names, ", ...")) {
            strcat(names, ", ...");
        }
        c = out.mpx_correlate[set - 1];
        /* the set never counted the correlate: nothing to scale by */
        out.count[i] = c ? (uint64_t)((long double)out.count[i] * (long double)total /
                                      (long double)c + 0.5L)
                         : 0;
        scaled++;
    }
    snprintf(notes[n_notes++], sizeof notes[0],
             "multiplexed (estimated): %d sets of events, the ones one configuration of machine "
             "%s's counter unit (%u unit%s of %u counters) holds, cycled in one run every %ld "
             "%s (%" PRIu64 " switches); %s is counted in every set and is exact",
             n_pass, q->m->name, mc->units, mc->units == 1 ? "" : "s", mc->counters,
             q->multiplex, cname, out.mpx_switches, cname);
    snprintf(notes[n_notes++], sizeof notes[0],
             "estimated (%u event codes: %s): each one's count in its set's intervals x "
             "%" PRIu64 " (%s in the whole run) / %s in those intervals; no per-thread or region "
             "counts (each switch restarts them)",
             scaled, names, total, cname, cname);
    {
        size_t k = 0;
        k += (size_t)snprintf(notes[n_notes], sizeof notes[0], "%s per set:", cname);
        for (p = 0; p < n_pass && k < sizeof notes[0]; p++)
            k += (size_t)snprintf(notes[n_notes] + k, sizeof notes[0] - k,
                                  " set %d %" PRIu64 " in %" PRIu64 " interval%s (%.1f%%)%s",
                                  p + 1, out.mpx_correlate[p], out.mpx_intervals[p],
                                  out.mpx_intervals[p] == 1 ? "" : "s",
                                  total ? 100.0 * (double)out.mpx_correlate[p] / (double)total
                                        : 0.0,
                                  p + 1 < n_pass ? ";" : "");
        n_notes++;
    }
    rc = report_merged(q, dir, &out, notes, n_notes, 0);
    if (rc == 0 && status != 0)
        rc = status;
done:
    vpmu_output_free(&out);
    free(list);
    free(plan);
    return rc;
}

int passes_maybe_run(const struct passes_req *q)
{
    unsigned codes[HPM_ENCODE_MAX_EVENTS], corr[HPM_CAT_MAX_CORES], n = 0, n_corr = 0, i, j;
    int pass_of[HPM_ENCODE_MAX_EVENTS], n_pass, max_pass = 0, rc = 1, c[HPM_CAT_MAX_CORES];
    struct hpm_cu_codes mc;
    const char *cname = q->correlate ? q->correlate : "INSTRUCTIONS";
    char dir[4096], name[HPM_CAT_NAME_MAX];
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
    if (q->passes && q->multiplex) {
        fprintf(stderr, "hpm count: --passes runs the program once per set, --multiplex once: "
                        "one of them\n");
        return 2;
    }
    if (!q->m->counter_unit.units) {
        if (!q->passes && !q->multiplex)
            return PASSES_NOT_NEEDED;
        fprintf(stderr, "hpm count: %s: machine %s has as many counter units as its events "
                        "need (no [counters] units): every event fits one run\n",
                q->passes ? "--passes" : "--multiplex", q->m->name);
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
            return PASSES_NOT_NEEDED; /* --multiplex too: one set, nothing to cycle */
        if (!q->passes && !q->multiplex) {
            int need = hpm_encode_passes(&mc, corr, n_corr, pass_of);
            fprintf(stderr,
                    "hpm count: machine %s's counter unit ([counters]: %u unit%s of %u counters) "
                    "holds %u of these %u event codes at once; ",
                    q->m->name, mc.units, mc.units == 1 ? "" : "s", mc.counters, e.placed, n);
            if (need > 0)
                fprintf(stderr, "they take %d passes: --passes=auto runs the program once "
                                "per pass, --multiplex=N cycles them in one run (hpm list "
                                "--encode shows why)\n", need);
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
    if (q->multiplex) {
        rc = multiplex_run(q, dir, codes, n, pass_of, n_pass, corr, n_corr, cname, &mc);
        goto out;
    }
    fprintf(stderr, "hpm count: %d passes (machine %s's counter unit holds %u unit%s of %u "
                    "counters); %s on every pass\n",
            n_pass, q->m->name, mc.units, mc.units == 1 ? "" : "s", mc.counters, cname);
    {
        int p;
        uint64_t corr0[HPM_CAT_MAX_CORES] = {0};
        off_t in_at = stdin_start();
        for (p = 0; p < n_pass; p++) {
            struct vpmu_output po = {0};
            int status, got;
            char pass_name[32], progress[48];
            char *list = set_list(codes, n, pass_of, p, corr, n_corr);
            if (!list)
                goto out;
            if (in_at >= 0 && lseek(0, in_at, SEEK_SET) < 0)
                in_at = -1; /* the passes read on where the last one stopped */
            snprintf(pass_name, sizeof pass_name, "pass.%d", p + 1);
            fprintf(stderr, "hpm count: pass %d of %d: %s\n", p + 1, n_pass, list);
            snprintf(progress, sizeof progress, "pass %d of %d", p + 1, n_pass);
            setenv("HPM_PROGRESS", progress, 1); /* the pass's progress line says which */
            got = run_once(q, dir, pass_name, list, NULL, 0, &po, &status);
            unsetenv("HPM_PROGRESS");
            free(list);
            if (got != 0) {
                fprintf(stderr, "hpm count: pass %d of %d left no counts (status %d)\n", p + 1,
                        n_pass, status);
                vpmu_output_free(&po);
                rc = status ? status : 1;
                goto out;
            }
            for (j = 0; j < n_corr; j++) {
                uint64_t v = po.have_count[corr[j]] ? po.count[corr[j]] : 0;
                if (p == 0)
                    corr0[j] = v;
                else if (v != corr0[j]) {
                    code_name(corr[j], name, sizeof name);
                    if (n_differ++ == 0) {
                        char why[400];
                        not_repeatable_why(why, sizeof why);
                        snprintf(notes[2], sizeof notes[2],
                                 "NOT REPEATABLE: the correlate differs between passes (%s: "
                                 "%" PRIu64 " in pass 1, %" PRIu64 " in pass %d): the passes' "
                                 "counts do not describe one run; %s",
                                 name, corr0[j], v, p + 1, why);
                    }
                }
            }
            if (p == 0)
                merged = po;
            else {
                vpmu_output_union(&merged, &po);
                vpmu_output_free(&po);
            }
        }
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
    rc = report_merged(q, dir, &merged, notes, n_notes, n_differ != 0);
out:
    vpmu_output_free(&merged);
    runner_rmdir(dir); /* its owner file too */
    return rc;
}
