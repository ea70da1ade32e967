/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * metrics.h - hpm's derived metrics as data: one row per metric with a
 * formula string over catalog kind names (LIKWID's performance-group metric
 * lines are the model), compiled and evaluated by the one formula engine
 * (src/formula, which PAPI's derived presets use too).
 *
 * Names in a formula: a catalog kind (its node-wide total: the sum over the
 * cores for a per-core kind) or FREQUENCY_HZ (the modeled clock). A metric
 * is shown when every kind it names was counted; its value is undefined
 * (shown as "-") when it would divide by zero.
 */
#ifndef HPM_TOOL_METRICS_H
#define HPM_TOOL_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "formula.h"

struct hpm_metric {
    const char *key;     /* JSON/CSV name, e.g. "ipc" */
    const char *label;   /* text report label, e.g. "IPC" */
    const char *formula; /* e.g. "INSTRUCTIONS / CYCLES" */
    const char *shown;   /* the formula as the text report writes it, NULL = formula */
};

#define HPM_METRIC_VAR_FREQUENCY 255 /* the variable FREQUENCY_HZ, after the kinds */

extern const struct hpm_metric hpm_metrics[];
extern const unsigned hpm_n_metrics;

/* The formula engine's names for metrics: a kind's index, or
 * HPM_METRIC_VAR_FREQUENCY for FREQUENCY_HZ (an hpm_formula_resolve_fn). */
int hpm_metric_resolve(const char *name, size_t len, void *ctx);

/* Compiles metric i: 0, or -1 with a message (a typo in the table). */
int hpm_metric_compile(unsigned i, struct hpm_formula *f, char *err, size_t errlen);

#endif
