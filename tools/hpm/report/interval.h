/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * interval.h - interval series of live counts (perf stat -I's form): for a
 * list of catalog events, each interval's delta, its rate per second of
 * host time and the running total, in text, CSV or JSON lines, and where
 * the process counts cycles, the modeled time and the rate per second of
 * it (the counts are modeled: host time only measures the simulator). The
 * first step names the program and machine ("hpm series: ..."). Used by
 * hpm stat -I (another process's live view) and hpm count -I (the
 * program's own). The deltas of a series that starts at zero sum to the
 * last total exactly.
 */
#ifndef HPM_TOOL_INTERVAL_H
#define HPM_TOOL_INTERVAL_H

#include <stdint.h>
#include <stdio.h>

#include "catalog.h"
#include "vpmu_live.h"

enum hpm_iv_format { HPM_IV_TEXT, HPM_IV_CSV, HPM_IV_JSON };

#define HPM_IV_MAX_EVENTS 64

struct hpm_iv_event {
    char name[HPM_CAT_NAME_MAX];
    int codes[HPM_CAT_MAX_CORES];
    unsigned n_codes;
    uint64_t last;
};

/* The modeled clock: NODE_CYCLES when the process counts it, else the
 * largest core's CYCLES; with neither, the series has host time only. */
struct hpm_iv_clock {
    int codes[HPM_CAT_MAX_CORES];
    unsigned n_codes;
    int node;          /* 1: codes[0] is NODE_CYCLES; 0: per-core CYCLES (the largest) */
    uint64_t hz, last; /* the machine's frequency; the clock at the last step */
};

struct hpm_interval {
    struct hpm_iv_event ev[HPM_IV_MAX_EVENTS];
    unsigned n;
    enum hpm_iv_format fmt;
    FILE *out;
    uint64_t t0_ms, last_ms;
    int started, titled;
    struct hpm_iv_clock clock;
};

/* Events by name (NULL/0: a default set), resolved on the snapshot's cores;
 * names must be programmed in it. 0, or 2 after printing why (cmd: ...). */
int hpm_interval_init(struct hpm_interval *iv, const struct hpm_live *s, const char *const *names,
                      unsigned n_names, enum hpm_iv_format fmt, FILE *out, const char *cmd);
/* One table of the counts so far (no deltas). */
void hpm_interval_totals(struct hpm_interval *iv, const struct hpm_live *s);
/* The series starts at s's counts (hpm stat) or, with s NULL, at zero and
 * the time of the first step's snapshot minus interval_ms (hpm count). */
void hpm_interval_start(struct hpm_interval *iv, const struct hpm_live *s);
/* One line per event: the delta since the last step, the rate, the total. */
void hpm_interval_step(struct hpm_interval *iv, const struct hpm_live *s);

#endif
