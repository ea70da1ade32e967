/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * baseline.h - named baselines of hpm count and hpm profile, and the gate
 * against them (hpm count|profile --save-baseline NAME, --baseline NAME,
 * --limit). A baseline is a folder: the run's count report (report.json,
 * hpm count --json's), its profile when one was taken (profile, and
 * profile.data), and meta.json, what makes two runs comparable: the
 * machine model's hash, hpm's version, the program's and its libraries'
 * build-ids, its arguments and the environment's size.
 *
 * NAME is a folder under the store (default .hpm/baselines, or
 * HPM_BASELINE_DIR), or a path when it holds a '/'.
 */
#ifndef HPM_TOOL_BASELINE_H
#define HPM_TOOL_BASELINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "diff.h"

#define BASELINE_STORE_DEFAULT ".hpm/baselines"
#define BASELINE_MAX_LIBS 64

struct baseline_meta {
    char machine[64];
    uint64_t machine_hash; /* FNV-1a of the machine model's canonical text */
    char hpm_version[32];
    char program[4096];
    char build_id[80]; /* hex, "" when the file has none */
    unsigned n_libs;
    struct {
        char path[512];
        char build_id[80];
    } libs[BASELINE_MAX_LIBS];
    char args[4096]; /* the arguments, space-separated */
    uint64_t env_bytes;
};

/* What makes this run comparable: machine_text is the machine model's
 * canonical text (machine_wire), program the file that runs. */
void baseline_meta_collect(struct baseline_meta *m, const char *machine_name,
                           const char *machine_text, const char *program, char *const *argv,
                           int argc);

/* Parses a baseline's meta.json text: 0, or -1 with a message. */
int baseline_meta_parse(const char *text, size_t len, struct baseline_meta *m, char *err,
                        size_t errlen);

/* The folder of baseline NAME. 0, or -1 (too long). */
int baseline_path(const char *name, char *buf, size_t len);

/* Saves a run as baseline NAME: its JSON count report, its profile (NULL
 * for none) and m. 0, or -1 with a message. */
int baseline_save(const char *name, const char *report_json, const char *profile,
                  const struct baseline_meta *m, char *err, size_t errlen);

/* Compares a run (its JSON count report, its profile or NULL) with
 * baseline NAME under the limits (none given: the defaults below). Prints
 * warnings and every limit exceeded to f. Returns 0 (within the limits), 3
 * (a regression), or 2 with a message (no such baseline, a corrupt one, a
 * different machine model: such runs are not comparable). */
int baseline_check(FILE *f, const char *name, const char *report_json, const char *profile,
                   const struct baseline_meta *m, const struct diff_limit *limits, unsigned n,
                   char *err, size_t errlen);

/* The limits used when none is given: INSTRUCTIONS and CYCLES may grow by
 * at most 1% (exact counts: a 1% change is a real one; the rest is
 * reported, not gated). */
extern const char *const baseline_default_limits[];

#endif

/* After a run (its JSON report written to report_json; profile NULL for
 * hpm count): --save-baseline save (NULL: none) and --baseline check (NULL:
 * none) with the limits as given (KIND[@SCOPE]:LIMIT). Messages go to
 * stderr prefixed with cmd. Returns 0, 3 (a regression) or 2 (refused, or
 * an error). */
int baseline_after_run(const char *cmd, const char *save, const char *check,
                       const char *const *limits, unsigned n_limits, const char *report_json,
                       const char *profile, const struct baseline_meta *m);
/* Events that differ between identical runs (hpm count --repeat): limits
 * on them are dropped from the gate, with a note. The names must live as
 * long as the process. */
void baseline_set_unstable(const char *const *kinds, unsigned n);
/* Checks the limits' syntax before a run: 0, or 2 with a message. */
int baseline_limits_ok(const char *cmd, const char *const *limits, unsigned n_limits);
