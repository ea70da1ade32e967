/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * validate_expect.h - the expected counts of seed 001's micro-benchmarks
 * (section 4.1, Table 1), derived from a machine model's parameters.
 *
 * `hpm validate` (validate.c) compares these with what the virtual PMU
 * counts in the regions of hpm-validate-kernels (workloads/validate). Each
 * expectation is the seed's reasoning written as a function of the cache,
 * line, page and TLB sizes, so that it follows a changed machine file; the
 * one place where the reasoning is completed rather than transcribed (the
 * L2 misses of the random loads under an LRU L2) is marked as refined and
 * keeps the seed's own figure beside it. docs/validation.md derives every
 * formula.
 *
 * No I/O: the derivations are pure functions, unit-tested in tests/validate.
 */
#ifndef HPM_TOOL_VALIDATE_EXPECT_H
#define HPM_TOOL_VALIDATE_EXPECT_H

#include "machine.h"

/* The columns of Table 1. */
enum vx_col {
    VX_FP_STORES,
    VX_L1_STORE_MISSES,
    VX_FP_LOADS,
    VX_FX_LOADS,
    VX_L1_LOAD_MISSES,
    VX_L2_MISSES,
    VX_TLB_MISSES,
    VX_COLS
};

enum vx_kind {
    VX_EXPECT = 0, /* the count should be within the tolerance of the value */
    VX_BOUND = 1,  /* an upper bound (the seed's random loads): at or below it */
    VX_NONE = 2,   /* no analytic expectation on this machine: `why` says why */
};

struct vx_cell {
    double value; /* the expectation the measurement is judged against */
    double seed;  /* the seed's own reasoning; == value unless refined */
    int kind;     /* enum vx_kind */
    int refined;  /* value completes the seed's reasoning (see the header) */
    const char *why; /* VX_NONE: the seed's assumption this machine breaks */
};

#define VX_MAX_ROWS 16

struct vx_row {
    const char *id;    /* region name in hpm-validate-kernels */
    const char *label; /* the row's name in seed 001 Table 1 */
    struct vx_cell cell[VX_COLS];
};

/* Judging: a count passes when |measured - value| <= max(tolerance * value,
 * slack) (VX_EXPECT), or measured <= value + slack (VX_BOUND). The slack
 * absorbs what every region counts besides its function (the END marker's
 * argument block, the call, the cold lines of the code and stack these
 * touch: docs/validation.md, "Region overhead"), which no percentage of an
 * expected 0 can. */
#define VX_TOLERANCE 0.02
#define VX_SLACK 16.0

/* Column headings (short) for a column. */
const char *vx_col_name(int col);

/* Fill rows[] with every benchmark of VK_BENCHMARKS, in Table 1's order, for
 * machine m. Returns the number of rows, or -1 with a message in err when
 * the machine lacks something the derivation needs (an L2). */
int vx_expect_all(const struct hpm_machine *m, struct vx_row *rows, int max_rows, char *err,
                  size_t errlen);

/* Whether measured passes cell c (see above); a VX_NONE cell always does
 * (it is reported, not judged). */
int vx_cell_ok(const struct vx_cell *c, double measured);

/* Extra misses an LRU cache suffers on accesses to lines it holds, when
 * accesses to lines it does not hold interleave with them at random
 * (docs/validation.md, "L2 misses of the random loads"): per set, R
 * resident lines, the youngest at depth 1, and new_lines lines not held;
 * during the phase each line, held or not, is accessed at most once, with
 * probability p_access (held) or p_new (not held), at a uniformly random
 * time (the stratified entries reach each line so). A resident line at
 * depth d, accessed at time t, still hits iff fewer than ways - d + 1
 * distinct other lines were referenced in its set since the traversal:
 * the new lines so far plus the older resident lines accessed so far (both
 * binomial). Returns the expected number of such misses over all sets. */
double vx_lru_eviction_misses(double sets, unsigned ways, unsigned resident, unsigned new_lines,
                              double p_new, double p_access);

#endif
