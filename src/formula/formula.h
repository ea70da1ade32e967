/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * formula.h - the one formula engine of hpm: derived metrics (hpm count's
 * report, metric tables as data) and PAPI's derived presets are compiled to
 * the same small postfix program and evaluated here.
 *
 * Two front ends:
 *   infix     "INSTRUCTIONS / CYCLES", "(LOAD_BYTES + STORE_BYTES) / FP_OPS",
 *             "FP_OPS / (NODE_CYCLES / FREQUENCY_HZ) / 1e6": names, numbers
 *             (decimal, optional fraction and exponent), + - * /, parentheses;
 *             the caller resolves each name to a variable index.
 *   postfix   PAPI's DERIVED_POSTFIX: "N0|N1|-|" - tokens separated by '|',
 *             N<i> pushes variable i, a number pushes itself, + - * / pop two.
 * Two evaluators over the same program: in doubles (metrics; a division by
 * zero or a result that is not finite makes the value undefined) and in
 * 64-bit integers (PAPI's presets: integer division, x / 0 = 0, wrapping).
 */
#ifndef HPM_FORMULA_H
#define HPM_FORMULA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HPM_FORMULA_MAX_CODE 64 /* operations in one formula */
#define HPM_FORMULA_MAX_VARS 256 /* variable indices 0..255 (uint8_t var) */

enum hpm_formula_op { HPM_FOP_NUM, HPM_FOP_VAR, HPM_FOP_ADD, HPM_FOP_SUB, HPM_FOP_MUL, HPM_FOP_DIV };

struct hpm_formula {
    unsigned n;
    struct {
        uint8_t op;    /* enum hpm_formula_op */
        uint8_t var;   /* HPM_FOP_VAR */
        double num;    /* HPM_FOP_NUM */
        int64_t inum;  /* HPM_FOP_NUM, for the integer evaluator */
    } code[HPM_FORMULA_MAX_CODE];
    uint64_t vars[HPM_FORMULA_MAX_VARS / 64]; /* bit i: variable i is used */
};

/* Whether the formula reads variable i. */
static inline int hpm_formula_uses(const struct hpm_formula *f, unsigned i)
{
    return i < HPM_FORMULA_MAX_VARS && (f->vars[i / 64] >> (i % 64) & 1);
}

/* Resolves name[0..len) to a variable index (< HPM_FORMULA_MAX_VARS), or -1. */
typedef int (*hpm_formula_resolve_fn)(const char *name, size_t len, void *ctx);

/* Compile. 0, or -1 with "position N: message" in err (err may be NULL). */
int hpm_formula_infix(struct hpm_formula *f, const char *src, hpm_formula_resolve_fn resolve,
                      void *ctx, char *err, size_t errlen);
int hpm_formula_postfix(struct hpm_formula *f, const char *src, char *err, size_t errlen);

/* Evaluate in doubles: 0 and *out, or -1 when undefined (division by zero,
 * a result that is not finite, a variable index >= nvars). */
int hpm_formula_eval(const struct hpm_formula *f, const double *vars, unsigned nvars, double *out);
/* Evaluate in 64-bit integers as PAPI does: integer division, x / 0 = 0,
 * sums and products wrap; variables >= nvars read 0. */
int64_t hpm_formula_eval_int(const struct hpm_formula *f, const int64_t *vars, unsigned nvars);

/* Whether hpm_formula_eval_int(f, vars, nvars) is, for every vars,
 * *constant + the sum of coef[v] * vars[v] (v < nvars, all mod 2^64): a
 * program of numbers, variables, sums, differences and products with a
 * number (most of PAPI's derived presets), so that a caller evaluates it
 * as that sum. 0 and the coefficients if so; -1 for a division, a product
 * of two variables, nvars above HPM_FORMULA_MAX_LINEAR or a malformed
 * program. */
#define HPM_FORMULA_MAX_LINEAR 16
int hpm_formula_linear_int(const struct hpm_formula *f, unsigned nvars, int64_t *coef,
                           int64_t *constant);

#ifdef __cplusplus
}
#endif
#endif
