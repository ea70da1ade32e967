/* SPDX-License-Identifier: BSD-3-Clause */
/* baseline.c - named baselines and the gate against them (baseline.h). */
#define _GNU_SOURCE /* asprintf */
#include "baseline/baseline.h"

#include "catalog.h"
#include "fileio.h"
#include "util/elf_facts.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

const char *const baseline_default_limits[] = {"INSTRUCTIONS:+1%", "CYCLES:+1%", NULL};

void baseline_meta_collect(struct baseline_meta *m, const char *machine_name,
                           const char *machine_text, const char *program, char *const *argv,
                           int argc)
{
    static const char *const dirs[] = {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
                                       "/lib64", "/usr/lib", "/lib", NULL};
    char *needed[BASELINE_MAX_LIBS];
    unsigned n = 0, i, j;
    size_t at = 0;
    char **e;
    memset(m, 0, sizeof *m);
    snprintf(m->machine, sizeof m->machine, "%s", machine_name);
    m->machine_hash = baseline_machine_hash(machine_text);
    snprintf(m->hpm_version, sizeof m->hpm_version, "%s", HPM_VERSION_STRING);
    snprintf(m->program, sizeof m->program, "%s", program);
    elf_facts(program, m->build_id, sizeof m->build_id, needed, &n, BASELINE_MAX_LIBS);
    /* the libraries it names, where the system keeps them (a library
     * found by RUNPATH is left out: its build-id is not compared) */
    for (i = 0; i < n; i++) {
        for (j = 0; dirs[j] && m->n_libs < BASELINE_MAX_LIBS; j++) {
            char path[512];
            snprintf(path, sizeof path, "%s/%s", dirs[j], needed[i]);
            if (access(path, R_OK) == 0) {
                snprintf(m->libs[m->n_libs].path, sizeof m->libs[m->n_libs].path, "%s", path);
                elf_facts(path, m->libs[m->n_libs].build_id, sizeof m->libs[m->n_libs].build_id,
                          NULL, NULL, 0);
                m->n_libs++;
                break;
            }
        }
        free(needed[i]);
    }
    for (i = 1; (int)i < argc && at < sizeof m->args; i++)
        at += (size_t)snprintf(m->args + at, sizeof m->args - at, "%s%s", i > 1 ? " " : "",
                               argv[i]);
    for (e = environ; e && *e; e++)
        m->env_bytes += strlen(*e) + 1;
}


int baseline_meta_parse(const char *text, size_t len, struct baseline_meta *m, char *err,
                        size_t errlen)
{
    json_error_t je;
    json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je), *libs, *l, *ex;
    const char *hash;
    char *end;
    size_t i;
    if (!o || !json_is_object(o) || json_integer_value(json_object_get(o, "hpm_baseline")) != 1 ||
        !(hash = json_string_value(json_object_get(o, "machine_hash")))) {
        snprintf(err, errlen, "%s", o ? "not an hpm baseline's meta" : je.text);
        json_decref(o);
        return -1;
    }
    memset(m, 0, sizeof *m);
    m->machine_hash = strtoull(hash, &end, 16);
    if (!*hash || *end) {
        snprintf(err, errlen, "machine_hash '%.32s' is not a hash", hash);
        json_decref(o);
        return -1;
    }
#define STR(field, key)                                                                           \
    snprintf(m->field, sizeof m->field, "%s",                                                     \
             json_string_value(json_object_get(o, key)) ? json_string_value(json_object_get(o, key)) \
                                                         : "")
    STR(machine, "machine");
    STR(hpm_version, "hpm_version");
    STR(program, "program");
    STR(build_id, "build_id");
    STR(args, "args");
#undef STR
    m->env_bytes = (uint64_t)json_integer_value(json_object_get(o, "env_bytes"));
    /* how the run ended (a baseline of an older hpm does not say: 0) */
    ex = json_object_get(o, "exit");
    m->exit_status = (int)json_integer_value(json_object_get(ex, "status"));
    m->exit_signal = (int)json_integer_value(json_object_get(ex, "signal"));
    libs = json_object_get(o, "libraries");
    json_array_foreach(libs, i, l)
    {
        const char *p = json_string_value(json_object_get(l, "path")),
                   *b = json_string_value(json_object_get(l, "build_id"));
        if (m->n_libs == BASELINE_MAX_LIBS || !p)
            break;
        snprintf(m->libs[m->n_libs].path, sizeof m->libs[0].path, "%s", p);
        snprintf(m->libs[m->n_libs].build_id, sizeof m->libs[0].build_id, "%s", b ? b : "");
        m->n_libs++;
    }
    json_decref(o);
    return 0;
}

int baseline_meta_read(const char *name, struct baseline_meta *m, char *err, size_t errlen)
{
    char dir[4096], path[4200], why[600], *text;
    struct stat st;
    size_t len;
    int rc;
    if (baseline_path(name, dir, sizeof dir, err, errlen) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/meta.json", dir);
    if (stat(dir, &st) != 0) {
        snprintf(err, errlen, "no baseline %s (%s: %s); save one with --save-baseline %s", name,
                 dir, strerror(errno), name);
        return -1;
    }
    /* a regular file, opened without blocking, of at most 1 MiB */
    if (hpm_file_read(path, (size_t)1 << 20, NULL, "a baseline's meta file", &text, &len, why,
                      sizeof why) != 0) {
        snprintf(err, errlen, "baseline %s: %s", name, why);
        return -1;
    }
    rc = baseline_meta_parse(text, len, m, why, sizeof why);
    free(text);
    if (rc)
        snprintf(err, errlen, "baseline %s: %s is corrupt (%s)", name, path, why);
    return rc;
}

/* Warnings for what differs but does not forbid the comparison. */
static void meta_warnings(FILE *f, const char *name, const struct baseline_meta *old,
                          const struct baseline_meta *now)
{
    unsigned i, j;
    if (old->exit_signal || old->exit_status)
        fprintf(f, "hpm: warning: baseline %s is of a failed run (%s %d)\n", name,
                old->exit_signal ? "killed by signal" : "exit status",
                old->exit_signal ? old->exit_signal : old->exit_status);
    if (strcmp(old->hpm_version, now->hpm_version) != 0)
        fprintf(f, "hpm: warning: baseline %s was made by hpm %s, this is %s\n", name,
                old->hpm_version, now->hpm_version);
    if (strcmp(old->build_id, now->build_id) != 0)
        fprintf(f, "hpm: warning: baseline %s: the program is another build (build-id %s, now %s)\n",
                name, old->build_id[0] ? old->build_id : "none",
                now->build_id[0] ? now->build_id : "none");
    for (i = 0; i < now->n_libs; i++)
        for (j = 0; j < old->n_libs; j++)
            if (strcmp(old->libs[j].path, now->libs[i].path) == 0 &&
                strcmp(old->libs[j].build_id, now->libs[i].build_id) != 0)
                fprintf(f, "hpm: warning: baseline %s: %s is another build\n", name,
                        now->libs[i].path);
    if (strcmp(old->args, now->args) != 0)
        fprintf(f, "hpm: warning: baseline %s ran with other arguments (%s)\n", name, old->args);
    if (old->env_bytes != now->env_bytes)
        fprintf(f,
                "hpm: warning: baseline %s ran with an environment of %" PRIu64
                " bytes, this run %" PRIu64 " (its size moves the start-up's counts)\n",
                name, old->env_bytes, now->env_bytes);
}

/* Baseline NAME's meta, checked against this run's machine model, and the
 * path of the counts this run is compared with (its profile when the run
 * takes one). 0, or -1 with a message. */
static int baseline_open(const char *name, uint64_t machine_hash, const char *machine_name,
                         int profile, struct baseline_meta *bm, char *old, size_t len, char *err,
                         size_t errlen)
{
    char dir[4096];
    if (baseline_meta_read(name, bm, err, errlen) != 0 ||
        baseline_path(name, dir, sizeof dir, err, errlen) != 0)
        return -1;
    if (bm->machine_hash != machine_hash) {
        snprintf(err, errlen,
                 "baseline %s was counted on another machine model (%s, hash %016" PRIx64
                 "; this run: %s, %016" PRIx64 "): the counts are not comparable",
                 name, bm->machine, bm->machine_hash, machine_name, machine_hash);
        return -1;
    }
    snprintf(old, len, "%s/%s", dir, profile ? "profile" : "report.json");
    if (profile && access(old, R_OK) != 0) {
        snprintf(err, errlen, "baseline %s has no profile (save it with hpm profile)", name);
        return -1;
    }
    return 0;
}

/* The baseline's counts loaded (as both sides): 0, or -1 with a message. */
static int baseline_load(const char *name, const char *old, const char *new_, struct diff *d,
                         char *err, size_t errlen)
{
    char why[900];
    if (diff_load(d, old, new_, why, sizeof why) != 0) {
        snprintf(err, errlen, "baseline %.100s: %s", name, why);
        return -1;
    }
    return 0;
}

static int in_events(const char *kind, const char *const *events, unsigned n)
{
    unsigned i;
    for (i = 0; i < n; i++)
        if (hpm_catalog_name_eq(kind, strlen(kind), events[i]))
            return 1;
    return 0;
}

/* One limit against the baseline (side 0 of d) and this run's events:
 * 0, or -1 with a message. */
static int limit_before(const char *name, const struct diff *d, const struct diff_limit *l,
                        const char *const *events, unsigned n_events, char *err, size_t errlen)
{
    const char *what = d->profiles ? "function" : "region";
    int k;
    if (l->scope[0] && !l->hard && !diff_has_scope(d, 0, l->scope)) {
        snprintf(err, errlen, "limit '%s': baseline %s has no %s '%s': not comparable", l->text,
                 name, what, l->scope);
        return -1;
    }
    if (strcmp(l->kind, "*") == 0) {
        unsigned j;
        for (j = 0; j < d->n_kinds; j++)
            if (!d->measured[j] && diff_counted(d, 0, j) &&
                !in_events(d->kinds[j], events, n_events)) {
                snprintf(err, errlen,
                         "limit '%s': baseline %s counted %s, this run does not (-e): not "
                         "comparable",
                         l->text, name, d->kinds[j]);
                return -1;
            }
        return 0;
    }
    if (!in_events(l->kind, events, n_events)) {
        snprintf(err, errlen, "limit '%s': this run does not count %s (add it to -e)", l->text,
                 l->kind);
        return -1;
    }
    k = diff_kind(d, l->kind);
    if (!l->hard && (k < 0 || !diff_counted(d, 0, (unsigned)k))) {
        snprintf(err, errlen, "limit '%s': baseline %s did not count %s: not comparable",
                 l->text, name, l->kind);
        return -1;
    }
    return 0;
}

/* The limits as given, or the defaults for the events this run counts
 * (events NULL: every default). How many, or -1 with a message. */
static int limits_parse(const char *const *given, unsigned n, const char *const *events,
                        unsigned n_events, struct diff_limit *out, unsigned max, char *err,
                        size_t errlen)
{
    unsigned i, m = 0;
    if (n > max)
        n = max;
    for (i = 0; i < n; i++)
        if (diff_limit_parse(given[i], &out[m++], err, errlen) != 0)
            return -1;
    for (i = 0; n == 0 && baseline_default_limits[i] && m < max; i++)
        if (diff_limit_parse(baseline_default_limits[i], &out[m], err, errlen) == 0 &&
            (!events || in_events(out[m].kind, events, n_events)))
            m++;
    return (int)m;
}

int baseline_check_before(const char *name, const char *machine_name, const char *machine_text,
                          int profile, const char *const *events, unsigned n_events,
                          const char *const *limits, unsigned n_limits, char *err, size_t errlen)
{
    static struct diff_limit l[256];
    struct baseline_meta bm;
    struct diff d;
    char old[4200];
    int n, i, rc = 0;
    n = limits_parse(limits, n_limits, events, n_events, l, 256, err, errlen);
    if (n < 0)
        return GATE_NOT_COMPARABLE;
    if (n == 0) {
        snprintf(err, errlen,
                 "baseline %s: no --limit given, and this run counts neither INSTRUCTIONS nor "
                 "CYCLES (the default limits): give --limit",
                 name);
        return GATE_NOT_COMPARABLE;
    }
    if (baseline_open(name, baseline_machine_hash(machine_text), machine_name, profile, &bm, old,
                      sizeof old, err, errlen) != 0 ||
        baseline_load(name, old, old, &d, err, errlen) != 0)
        return GATE_NOT_COMPARABLE;
    for (i = 0; i < n && rc == 0; i++)
        if (limit_before(name, &d, &l[i], events, n_events, err, errlen) != 0)
            rc = GATE_NOT_COMPARABLE;
    diff_free(&d);
    return rc;
}

/* Compares a run (its JSON count report, its profile or NULL) with
 * baseline NAME under the limits (none given: the defaults for the events
 * it counted). Prints warnings and the gate's findings to f. The gate's
 * status, with a message in err for GATE_NOT_COMPARABLE. */
static int baseline_check(FILE *f, const char *name, const char *report_json, const char *profile,
                          const struct baseline_meta *m, const char *const *limits, unsigned n,
                          const struct baseline_unstable *unstable, char *err, size_t errlen)
{
    static struct diff_limit l[256];
    char old[4200], label[300];
    struct baseline_meta bm;
    struct diff_verdict v;
    struct diff d;
    unsigned i;
    int nl, k, rc;
    if (baseline_open(name, m->machine_hash, m->machine, profile != NULL, &bm, old, sizeof old,
                      err, errlen) != 0)
        return GATE_NOT_COMPARABLE;
    meta_warnings(f, name, &bm, m);
    if (baseline_load(name, old, profile ? profile : report_json, &d, err, errlen) != 0)
        return GATE_NOT_COMPARABLE;
    snprintf(label, sizeof label, "baseline %s", name);
    d.old_name = label;
    d.new_name = "this run";
    for (i = 0; unstable && i < unstable->n; i++)
        if ((k = diff_kind(&d, unstable->kinds[i])) >= 0)
            d.unstable[k] = 1;
    nl = limits_parse(limits, n, NULL, 0, l, 256, err, errlen);
    if (n == 0) {
        /* the defaults, for the events this run counted */
        unsigned kept = 0;
        for (i = 0; i < (unsigned)nl; i++)
            if ((k = diff_kind(&d, l[i].kind)) >= 0 && diff_counted(&d, 1, (unsigned)k))
                l[kept++] = l[i];
        nl = (int)kept;
        fprintf(f, "hpm: baseline %s: no --limit given; gating on", name);
        for (i = 0; i < kept; i++)
            fprintf(f, " %s", l[i].text);
        fprintf(f, "\n");
    }
    if (nl <= 0 || diff_gate(f, &d, l, (unsigned)nl, &v, err, errlen) != 0) {
        if (nl == 0)
            snprintf(err, errlen, "baseline %s: no limit to gate on", name);
        diff_free(&d);
        return GATE_NOT_COMPARABLE;
    }
    diff_free(&d);
    rc = diff_verdict_status(&v);
    if (rc == GATE_PASS)
        fprintf(f, "hpm: baseline %s: within %u limit%s (%u event%s checked%s)\n", name, nl,
                nl == 1 ? "" : "s", v.held, v.held == 1 ? "" : "s",
                v.not_gated ? "; the unstable ones not gated, above" : "");
    else if (rc == GATE_NOT_COMPARABLE)
        snprintf(err, errlen, "baseline %s: %u limit%s could not be judged (not comparable, above)",
                 name, v.not_comparable, v.not_comparable == 1 ? "" : "s");
    return rc;
}

int baseline_limits_ok(const char *cmd, const char *const *limits, unsigned n_limits)
{
    struct diff_limit l;
    char err[512];
    unsigned i;
    for (i = 0; i < n_limits; i++)
        if (diff_limit_parse(limits[i], &l, err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", cmd, err);
            return 2;
        }
    return 0;
}

int baseline_after_run(const char *cmd, const char *save, const char *check,
                       const char *const *limits, unsigned n_limits, const char *report_json,
                       const char *profile, const struct baseline_meta *m,
                       const struct baseline_unstable *unstable)
{
    char err[1024];
    int rc = GATE_PASS;
    if (check) {
        rc = baseline_check(stderr, check, report_json, profile, m, limits, n_limits, unstable,
                            err, sizeof err);
        if (rc == GATE_NOT_COMPARABLE)
            fprintf(stderr, "%s: %s\n", cmd, err);
    }
    if (rc == GATE_NOT_COMPARABLE)
        return rc; /* a baseline is not replaced by counts it cannot be compared with */
    if (save && (m->exit_status || m->exit_signal))
        fprintf(stderr, "%s: warning: baseline %s is of a failed run (%s %d)\n", cmd, save,
                m->exit_signal ? "killed by signal" : "exit status",
                m->exit_signal ? m->exit_signal : m->exit_status);
    if (save) {
        if (baseline_save(save, report_json, profile, m, err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", cmd, err);
            return GATE_ERROR;
        }
        char dir[4096];
        baseline_path(save, dir, sizeof dir, err, sizeof err);
        fprintf(stderr, "%s: baseline %s saved in %s\n", cmd, save, dir);
    }
    return rc;
}
