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
 * HPM_BASELINE_DIR), or a path when it holds a '/'. baseline.c reads
 * baselines and gates runs against them; baseline_store.c names their
 * folders and writes them.
 */
#ifndef HPM_TOOL_BASELINE_H
#define HPM_TOOL_BASELINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "diff/diff.h"

#define BASELINE_STORE_DEFAULT ".hpm/baselines"
#define BASELINE_MAX_LIBS 64

struct baseline_meta {
    char machine[64];
    uint64_t machine_hash; /* baseline_machine_hash of the model's canonical text */
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
    int exit_status, exit_signal; /* how the run ended (a signal: exit_signal != 0) */
};

/* FNV-1a of a machine model's canonical text (machine_wire): what makes
 * two runs' counts comparable. */
uint64_t baseline_machine_hash(const char *machine_text);

/* What makes this run comparable: machine_text is the machine model's
 * canonical text (machine_wire), program the file that runs. */
void baseline_meta_collect(struct baseline_meta *m, const char *machine_name,
                           const char *machine_text, const char *program, char *const *argv,
                           int argc);

/* Parses a baseline's meta.json text: 0, or -1 with a message. */
int baseline_meta_parse(const char *text, size_t len, struct baseline_meta *m, char *err,
                        size_t errlen);

/* The folder of baseline NAME. 0, or -1 with a message: too long, or a
 * name whose last part is "", "." or ".." (the store itself or above). */
int baseline_path(const char *name, char *buf, size_t len, char *err, size_t errlen);

/* Reads baseline NAME's meta.json: 0, or -1 with a message (no such
 * baseline, a corrupt one). */
int baseline_meta_read(const char *name, struct baseline_meta *m, char *err, size_t errlen);

/* Saves a run as baseline NAME: its JSON count report, its profile (NULL
 * for none) and m, in a new folder that replaces NAME's whole; on failure
 * NAME is as it was and nothing else is left. 0, or -1 with a message. */
int baseline_save(const char *name, const char *report_json, const char *profile,
                  const struct baseline_meta *m, char *err, size_t errlen);

/* The limits used when none is given: INSTRUCTIONS and CYCLES may grow by
 * at most 1% (exact counts: a 1% change is a real one; the rest is
 * reported, not gated). */
extern const char *const baseline_default_limits[];

/* Before a run: whether it can be gated against baseline NAME. The
 * baseline exists, is sound (its counts are counts) and was counted on this
 * run's machine model (machine_text); the run takes a profile (profile)
 * only against a baseline that has one; every limit names an event this
 * run counts (events, n_events: its report's names) and, for a soft limit,
 * the baseline counted too, over a scope the baseline has. 0, or
 * GATE_NOT_COMPARABLE with a message. */
int baseline_check_before(const char *name, const char *machine_name, const char *machine_text,
                          int profile, const char *const *events, unsigned n_events,
                          const char *const *limits, unsigned n_limits, char *err, size_t errlen);

/* Events that differ between identical runs (hpm count --repeat): limits
 * on them are dropped from the gate, with a note. */
struct baseline_unstable {
    const char *const *kinds;
    unsigned n;
};

/* After a run (its JSON report written to report_json; profile NULL for
 * hpm count): --save-baseline save (NULL: none) and --baseline check (NULL:
 * none) with the limits as given (KIND[@SCOPE]:LIMIT), the unstable events
 * (NULL: none) not gated. Messages go to stderr prefixed with cmd. Returns
 * the gate's status (GATE_PASS, GATE_REGRESSION, GATE_NOT_COMPARABLE;
 * GATE_PASS without check) or GATE_ERROR when the baseline could not be
 * saved. */
int baseline_after_run(const char *cmd, const char *save, const char *check,
                       const char *const *limits, unsigned n_limits, const char *report_json,
                       const char *profile, const struct baseline_meta *m,
                       const struct baseline_unstable *unstable);
/* Checks the limits' syntax before a run: 0, or 2 with a message. */
int baseline_limits_ok(const char *cmd, const char *const *limits, unsigned n_limits);

#endif
