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
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "catalog.h"
#include "run/run_internal.h"
#include "encode.h"
#include "run/passes.h"
#include "report/vpmu_output.h"

#define PASSES_MAX 32

/* The name a code is counted by: PU<n>_KIND or a node kind. */
static void code_name(unsigned code, char *buf, size_t len)
{
    if (hpm_catalog_code_name(code, buf, len) < 0)
        snprintf(buf, len, "code%u", code);
}

/* One run of the program (a pass, or the multiplexed run), in this
 * process: the plan p with the user's options but the events, report and
 * planning ones, the events of list, the tool's --hpm-mpx plan (or NULL)
 * and the progress line's name; its counts into *out. The run's exit
 * status in *status; 0, or -1 when it left no counts. */
static int run_once(const struct count_plan *p, const char *list, const char *mpx_plan,
                    const char *progress, struct vpmu_output *out, int *status)
{
    struct count_plan *q = malloc(sizeof *q);
    struct count_outcome res;
    int rc;
    memset(out, 0, sizeof *out);
    *status = 1;
    if (!q)
        return -1;
    *q = *p;
    q->o.events.v[0] = list;
    q->o.events.n = 1;
    q->o.fmt = FMT_TEXT;
    q->o.json = q->o.csv = q->o.per_core = q->o.per_thread = 0;
    q->o.output = NULL;
    q->o.passes = q->o.correlate = NULL;
    q->o.multiplex = 0;
    q->o.mpx_plan = mpx_plan;
    q->progress_name = progress;
    q->capture = 1;
    rc = count_build_rows(&q->o, q->m.name, q->m.hier.cores, q->features, q->rows, &q->n_rows,
                          &q->lat);
    if (rc == 0) {
        count_execute(q, &res);
        rc = res.status;
        if (res.have_counts) {
            *out = res.out;
            *status = rc;
            free(q);
            return 0;
        }
    }
    *status = rc;
    free(q);
    return -1;
}

/* The report of the merged counts: the user's events, format, output and
 * notes, then the passes' notes. Its exit status; 3 for a program that is
 * not repeatable (its report stands, with the note, and the status says
 * it when the program itself succeeded). */
static int report_merged(const struct count_plan *p, const struct vpmu_output *merged,
                         char (*notes)[1024], unsigned n_notes, int not_repeatable)
{
    struct count_opts o = p->o;
    unsigned i;
    int rc;
    for (i = 0; i < n_notes && o.notes.n < HPM_OPT_LIST_MAX; i++)
        o.notes.v[o.notes.n++] = notes[i];
    rc = count_report_output(&o, merged, "the passes' merged counts");
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
static int multiplex_run(const struct count_plan *q, const unsigned *codes,
                         unsigned n, const int *pass_of, int n_pass, const unsigned *corr,
                         unsigned n_corr, const char *cname, const struct hpm_cu_codes *mc)
{
    char *list = set_list(codes, n, pass_of, -1, corr, n_corr);
    char *plan = malloc((size_t)(n + n_corr * (unsigned)n_pass) * 12 + 256);
    char notes[4][1024], names[600];
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
    at = (size_t)sprintf(plan, "%ld:%s:", q->o.multiplex,
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
    fprintf(stderr, "hpm count: %d sets of events cycled in one run every %ld %s\n", n_pass,
            q->o.multiplex, cname);
    if (run_once(q, list, plan, NULL, &out, &status) != 0) {
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
             n_pass, q->m.name, mc->units, mc->units == 1 ? "" : "s", mc->counters,
             q->o.multiplex, cname, out.mpx_switches, cname);
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
    rc = report_merged(q, &out, notes, n_notes, 0);
    if (rc == 0 && status != 0)
        rc = status;
done:
    vpmu_output_free(&out);
    free(list);
    free(plan);
    return rc;
}

/* The events in sets: every code of the rows once, the correlate's codes
 * on every pass. */
struct pass_sets {
    unsigned codes[HPM_ENCODE_MAX_EVENTS], corr[HPM_CAT_MAX_CORES], n, n_corr;
    int pass_of[HPM_ENCODE_MAX_EVENTS], n_pass;
    struct hpm_cu_codes mc;
    const char *cname; /* the correlate's name */
};

/* --passes=auto|N: 0 (auto) or N, or -1 after a message. */
static int max_passes(const char *passes)
{
    char *end;
    long v;
    if (!passes || strcmp(passes, "auto") == 0)
        return 0;
    v = strtol(passes, &end, 10);
    if (*end || v < 1 || v > PASSES_MAX) {
        fprintf(stderr, "hpm count: --passes=%s: auto or a number of passes, 1..%d\n", passes,
                PASSES_MAX);
        return -1;
    }
    return (int)v;
}

/* The rows' codes and the correlate's: 0, or 2 after a message. */
static int set_codes(const struct count_plan *q, struct pass_sets *ps)
{
    unsigned i, j, d;
    int c[HPM_CAT_MAX_CORES], nc, k;
    for (i = 0; i < q->n_rows; i++)
        for (j = 0; j < q->rows[i].n_codes; j++) {
            unsigned code = (unsigned)q->rows[i].codes[j];
            for (d = 0; d < ps->n && ps->codes[d] != code; d++)
                ;
            if (d < ps->n)
                continue;
            if (ps->n == HPM_ENCODE_MAX_EVENTS - HPM_CAT_MAX_CORES) {
                fprintf(stderr, "hpm count: at most %d codes can be planned in passes\n",
                        HPM_ENCODE_MAX_EVENTS - HPM_CAT_MAX_CORES);
                return 2;
            }
            ps->codes[ps->n++] = code;
        }
    nc = hpm_catalog_lookup(ps->cname, q->m.hier.cores, q->features, c, HPM_CAT_MAX_CORES,
                            NULL);
    if (nc <= 0) {
        fprintf(stderr, "hpm count: --correlate=%s is not an event of machine %s\n", ps->cname,
                q->m.name);
        return 2;
    }
    for (k = 0; k < nc; k++)
        ps->corr[ps->n_corr++] = (unsigned)c[k];
    return 0;
}

/* Whether the events fit one configuration as they are (PASSES_NOT_NEEDED
 * without --passes), else what to do: 0 to plan passes (asked for), or 2
 * after saying how many they would take. */
static int fit_or_say(const struct count_plan *q, struct pass_sets *ps)
{
    struct hpm_cu u;
    struct hpm_encoding e;
    struct hpm_cu_codes *mc = &ps->mc;
    int need;
    hpm_cu_from_codes(&u, mc);
    if (hpm_encode(&u, ps->n, &e) == 0 && e.complete && !q->o.passes)
        return PASSES_NOT_NEEDED; /* --multiplex too: one set, nothing to cycle */
    if (q->o.passes || q->o.multiplex)
        return 0;
    need = hpm_encode_passes(mc, ps->corr, ps->n_corr, ps->pass_of);
    fprintf(stderr,
            "hpm count: machine %s's counter unit ([counters]: %u unit%s of %u counters) "
            "holds %u of these %u event codes at once; ",
            q->m.name, mc->units, mc->units == 1 ? "" : "s", mc->counters, e.placed, ps->n);
    if (need > 0)
        fprintf(stderr, "they take %d passes: --passes=auto runs the program once "
                        "per pass, --multiplex=N cycles them in one run (hpm list "
                        "--encode shows why)\n", need);
    else
        fprintf(stderr, "some fit no configuration beside %s (hpm list --encode)\n", ps->cname);
    return 2;
}

/* The sets, or why there are none: 0, PASSES_NOT_NEEDED or an exit status. */
static int plan_sets(const struct count_plan *q, struct pass_sets *ps)
{
    const char *passes = q->o.passes;
    long multiplex = q->o.multiplex;
    int max_pass = max_passes(passes), rc;
    if (max_pass < 0)
        return 2;
    if (passes && multiplex) {
        fprintf(stderr, "hpm count: --passes runs the program once per set, --multiplex once: "
                        "one of them\n");
        return 2;
    }
    if (!q->m.counter_unit.units) {
        if (!passes && !multiplex)
            return PASSES_NOT_NEEDED;
        fprintf(stderr, "hpm count: %s: machine %s has as many counter units as its events "
                        "need (no [counters] units): every event fits one run\n",
                passes ? "--passes" : "--multiplex", q->m.name);
        return PASSES_NOT_NEEDED;
    }
    if ((rc = set_codes(q, ps)) != 0)
        return rc;
    ps->mc.units = q->m.counter_unit.units;
    ps->mc.counters = q->m.counter_unit.counters;
    ps->mc.group = q->m.counter_unit.group;
    ps->mc.codes = ps->codes;
    ps->mc.n_codes = ps->n;
    if ((rc = fit_or_say(q, ps)) != 0)
        return rc;
    ps->n_pass = hpm_encode_passes(&ps->mc, ps->corr, ps->n_corr, ps->pass_of);
    if (ps->n_pass < 0) {
        fprintf(stderr, "hpm count: --passes: some events fit no configuration of machine %s's "
                        "counter unit beside the correlate %s (hpm list --encode)\n",
                q->m.name, ps->cname);
        return 2;
    }
    if (max_pass && ps->n_pass > max_pass) {
        fprintf(stderr, "hpm count: --passes=%d: these events take %d passes on machine %s\n",
                max_pass, ps->n_pass, q->m.name);
        return 2;
    }
    return 0;
}

/* Pass p's correlate against pass 1's: a difference counted in *n_differ,
 * the first one said in note. */
static void correlate_check(const struct pass_sets *ps, int p, const struct vpmu_output *po,
                            uint64_t *corr0, unsigned *n_differ, char *note, size_t len)
{
    char name[HPM_CAT_NAME_MAX];
    unsigned j;
    for (j = 0; j < ps->n_corr; j++) {
        uint64_t v = po->have_count[ps->corr[j]] ? po->count[ps->corr[j]] : 0;
        if (p == 0)
            corr0[j] = v;
        else if (v != corr0[j] && (*n_differ)++ == 0) {
            char why[400];
            code_name(ps->corr[j], name, sizeof name);
            not_repeatable_why(why, sizeof why);
            snprintf(note, len,
                     "NOT REPEATABLE: the correlate differs between passes (%s: %" PRIu64
                     " in pass 1, %" PRIu64 " in pass %d): the passes' counts do not describe "
                     "one run; %s",
                     name, corr0[j], v, p + 1, why);
        }
    }
}

/* Every pass, its counts merged into *merged: 0, or the exit status of
 * the pass that left none. */
static int run_passes(const struct count_plan *q, const struct pass_sets *ps,
                      struct vpmu_output *merged, unsigned *n_differ, char *note, size_t len)
{
    uint64_t corr0[HPM_CAT_MAX_CORES] = {0};
    off_t in_at = stdin_start();
    int p;
    for (p = 0; p < ps->n_pass; p++) {
        struct vpmu_output po;
        int status, got;
        char progress[48];
        char *list = set_list(ps->codes, ps->n, ps->pass_of, p, ps->corr, ps->n_corr);
        if (!list)
            return 1;
        if (in_at >= 0 && lseek(0, in_at, SEEK_SET) < 0)
            in_at = -1; /* the passes read on where the last one stopped */
        fprintf(stderr, "hpm count: pass %d of %d: %s\n", p + 1, ps->n_pass, list);
        /* the pass's progress line says which */
        snprintf(progress, sizeof progress, "pass %d of %d", p + 1, ps->n_pass);
        got = run_once(q, list, NULL, progress, &po, &status);
        free(list);
        if (got != 0) {
            fprintf(stderr, "hpm count: pass %d of %d left no counts (status %d)\n", p + 1,
                    ps->n_pass, status);
            vpmu_output_free(&po);
            return status ? status : 1;
        }
        correlate_check(ps, p, &po, corr0, n_differ, note, len);
        if (p == 0) {
            *merged = po;
        } else {
            vpmu_output_union(merged, &po);
            vpmu_output_free(&po);
        }
    }
    return 0;
}

int passes_maybe_run(const struct count_plan *q)
{
    struct pass_sets ps;
    const struct hpm_cu_codes *mc = &ps.mc;
    struct vpmu_output merged;
    char notes[3][1024];
    unsigned n_notes = 0, n_differ = 0;
    int rc;
    memset(&ps, 0, sizeof ps);
    memset(&merged, 0, sizeof merged);
    ps.cname = q->o.correlate ? q->o.correlate : "INSTRUCTIONS";
    if ((rc = plan_sets(q, &ps)) != 0)
        return rc;
    if (q->o.multiplex)
        return multiplex_run(q, ps.codes, ps.n, ps.pass_of, ps.n_pass, ps.corr, ps.n_corr,
                             ps.cname, &ps.mc);
    fprintf(stderr, "hpm count: %d passes (machine %s's counter unit holds %u unit%s of %u "
                    "counters); %s on every pass\n",
            ps.n_pass, q->m.name, mc->units, mc->units == 1 ? "" : "s", mc->counters, ps.cname);
    rc = run_passes(q, &ps, &merged, &n_differ, notes[2], sizeof notes[2]);
    if (rc == 0) {
        snprintf(notes[n_notes++], sizeof notes[0],
                 "counted in %d passes: the program ran %d times, each with the events one "
                 "configuration of machine %s's counter unit holds (%u unit%s of %u counters)",
                 ps.n_pass, ps.n_pass, q->m.name, mc->units, mc->units == 1 ? "" : "s",
                 mc->counters);
        if (n_differ)
            memcpy(notes[n_notes++], notes[2], sizeof notes[1]);
        else
            snprintf(notes[n_notes++], sizeof notes[1],
                     "the correlate %s counted on every pass is the same in each: the passes "
                     "describe one run",
                     ps.cname);
        rc = report_merged(q, &merged, notes, n_notes, n_differ != 0);
    }
    vpmu_output_free(&merged);
    return rc;
}
