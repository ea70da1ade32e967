/* SPDX-License-Identifier: BSD-3-Clause */
/* metrics.c - the derived metrics table (metrics.h). */
#include "report/metrics.h"

#include "catalog.h"

/* Order is the report's order. */
const struct hpm_metric hpm_metrics[] = {
    {"ipc", "IPC", "INSTRUCTIONS / CYCLES", NULL},
    {"modeled_time_s", "modeled time (s)", "NODE_CYCLES / FREQUENCY_HZ",
     "NODE_CYCLES / frequency"},
    {"mflops", "MFLOP/s of modeled time", "FP_OPS / (NODE_CYCLES / FREQUENCY_HZ) / 1e6",
     "FP_OPS / modeled time / 1e6"},
    {"l1i_miss_ratio", "L1I miss ratio", "L1I_MISSES / L1I_ACCESSES", NULL},
    {"l1d_miss_ratio", "L1D miss ratio", "L1D_MISSES / (LOADS + STORES)", NULL},
    {"l2_miss_ratio", "L2 miss ratio", "L2_MISSES / L2_ACCESSES", NULL},
    {"l3_miss_ratio", "L3 miss ratio", "L3_READ_MISSES / L3_READS", NULL},
    {"mispredict_ratio", "mispredict ratio",
     "BR_MISPREDICTS / (BR_COND + BR_INDIRECT + BR_CALLS_INDIRECT + BR_RETURNS)", NULL},
    {"bytes_per_flop_core", "bytes per flop (loads+stores)",
     "(LOAD_BYTES + STORE_BYTES) / FP_OPS", NULL},
    {"bytes_per_flop_ddr", "bytes per flop (DDR)", "(DDR_READ_BYTES + DDR_WRITE_BYTES) / FP_OPS",
     NULL},
};
const unsigned hpm_n_metrics = sizeof hpm_metrics / sizeof hpm_metrics[0];

_Static_assert(HPM_K_COUNT < HPM_METRIC_VAR_FREQUENCY, "kinds reach the frequency variable");

int hpm_metric_resolve(const char *name, size_t len, void *ctx)
{
    (void)ctx;
    if (hpm_catalog_name_eq(name, len, "FREQUENCY_HZ"))
        return HPM_METRIC_VAR_FREQUENCY;
    return hpm_catalog_kind_by_name(name, len);
}

int hpm_metric_compile(unsigned i, struct hpm_formula *f, char *err, size_t errlen)
{
    return hpm_formula_infix(f, hpm_metrics[i].formula, hpm_metric_resolve, NULL, err, errlen);
}
