/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the formula engine (src/formula): infix precedence and
 * parentheses, PAPI's postfix form, both evaluators, undefined values and
 * the errors of malformed formulas. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formula.h"
#include "hpm_check.h"

static int resolve(const char *name, size_t len, void *ctx)
{
    static const char *const names[] = {"A", "B", "C", "LONG_NAME"};
    (void)ctx;
    for (int i = 0; i < 4; i++)
        if (strlen(names[i]) == len && memcmp(names[i], name, len) == 0)
            return i;
    return -1;
}

static double infix(const char *src, const double *vars, int *defined)
{
    struct hpm_formula f;
    char err[128];
    double v = NAN;
    if (hpm_formula_infix(&f, src, resolve, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "did not compile: %s: %s\n", src, err);
        failures++;
        return NAN;
    }
    *defined = hpm_formula_eval(&f, vars, 4, &v) == 0;
    return v;
}

static void expect_infix(const char *src, double want)
{
    const double vars[4] = {6, 3, 0, 10};
    int defined = 0;
    double got = infix(src, vars, &defined);
    if (!defined || fabs(got - want) > 1e-12 * fabs(want)) {
        fprintf(stderr, "%s = %g (defined %d), want %g\n", src, got, defined, want);
        failures++;
    }
}

static void expect_undefined(const char *src)
{
    const double vars[4] = {6, 3, 0, 10};
    int defined = 1;
    (void)infix(src, vars, &defined);
    if (defined) {
        fprintf(stderr, "%s is defined, want undefined\n", src);
        failures++;
    }
}

static void expect_infix_error(const char *src, const char *want)
{
    struct hpm_formula f;
    char err[128] = "";
    if (hpm_formula_infix(&f, src, resolve, NULL, err, sizeof err) == 0 || !strstr(err, want)) {
        fprintf(stderr, "'%s': error '%s', want '%s'\n", src, err, want);
        failures++;
    }
}

static int64_t postfix(const char *src, const int64_t *terms, int n)
{
    struct hpm_formula f;
    char err[128];
    if (hpm_formula_postfix(&f, src, err, sizeof err) != 0) {
        fprintf(stderr, "postfix did not compile: %s: %s\n", src, err);
        failures++;
        return 0;
    }
    return hpm_formula_eval_int(&f, terms, (unsigned)n);
}

/* hpm_formula_linear_int of a postfix program over 3 terms: linear or
 * not as expected, and where it is, the same value as hpm_formula_eval_int
 * for terms of every size (wrapping sums and products included). */
static void expect_linear(const char *src, int linear, const int64_t *want_coef,
                          int64_t want_constant)
{
    struct hpm_formula f;
    int64_t coef[3] = {0}, constant = 0;
    uint64_t x = 0x9e3779b97f4a7c15u;
    char err[128];
    if (hpm_formula_postfix(&f, src, err, sizeof err) != 0) {
        fprintf(stderr, "postfix did not compile: %s: %s\n", src, err);
        failures++;
        return;
    }
    int got = hpm_formula_linear_int(&f, 3, coef, &constant) == 0;
    CHECKF(got == linear, "%s: linear %d, expected %d", src, got, linear);
    if (!got || !linear)
        return;
    for (int v = 0; v < 3; v++)
        CHECKF(coef[v] == want_coef[v], "%s: coefficient %d is %lld", src, v, (long long)coef[v]);
    CHECKF(constant == want_constant, "%s: constant %lld", src, (long long)constant);
    for (int trial = 0; trial < 1000; trial++) {
        int64_t t[3];
        uint64_t sum = (uint64_t)constant;
        for (int v = 0; v < 3; v++) {
            x = x * 6364136223846793005u + 1442695040888963407u;
            t[v] = (int64_t)(trial < 500 ? x >> (x & 63) : x); /* small and huge */
            sum += (uint64_t)coef[v] * (uint64_t)t[v];
        }
        CHECKF((int64_t)sum == hpm_formula_eval_int(&f, t, 3), "%s: trial %d", src, trial);
    }
}

int main(void)
{
    struct hpm_formula f;
    char err[128];
    const int64_t terms[3] = {100, 7, 0};

    expect_infix("A / B", 2);
    expect_infix("A + B * LONG_NAME", 36);        /* precedence */
    expect_infix("(A + B) * LONG_NAME", 90);      /* parentheses */
    expect_infix("A - B - B", 0);                 /* left to right */
    expect_infix("LONG_NAME / (A / B) / 1e6", 5e-6);
    expect_infix(" A/B ", 2);
    expect_infix("2.5e1 - A", 19);
    expect_undefined("A / C");
    expect_undefined("A / (B - B)");
    expect_infix_error("A +", "unexpected end");
    expect_infix_error("A B", "operator or end expected");
    expect_infix_error("(A", "')' expected");
    expect_infix_error("A / NOPE", "position 5: unknown name");
    expect_infix_error("", "unexpected end");
    CHECK(hpm_formula_infix(&f, "A + LONG_NAME", resolve, NULL, err, sizeof err) == 0);
    CHECK(hpm_formula_uses(&f, 0) && hpm_formula_uses(&f, 3) && !hpm_formula_uses(&f, 1));

    /* PAPI's postfix form, integer evaluation */
    CHECK_EQ(postfix("N0|N1|-|", terms, 3), 93);
    CHECK_EQ(postfix("N0|N1|/|", terms, 3), 14);   /* integer division */
    CHECK_EQ(postfix("N0|N2|/|", terms, 3), 0);    /* x / 0 = 0, as PAPI */
    CHECK_EQ(postfix("N0|2|*|N1|+|", terms, 3), 207);
    CHECK_EQ(postfix("N5|", terms, 3), 0);         /* a term not given reads 0 */
    CHECK(hpm_formula_postfix(&f, "N0|+|", err, sizeof err) == -1 && strstr(err, "two operands"));
    CHECK(hpm_formula_postfix(&f, "N0|N1|", err, sizeof err) == -1 && strstr(err, "left over"));
    CHECK(hpm_formula_postfix(&f, "N0|x|", err, sizeof err) == -1 && strstr(err, "unknown token"));
    CHECK(hpm_formula_postfix(&f, "", err, sizeof err) == -1);
    /* linear programs: PAPI's sums and differences, products with numbers */
    {
        static const int64_t dch[3] = {1, 1, -1}, scaled[3] = {2, -6, 0}, none[3] = {0};
        static const int64_t n1[3] = {0, 1, 0};
        expect_linear("N0|N1|+|N2|-|", 1, dch, 0);       /* PAPI_L1_DCH */
        expect_linear("N0|2|*|3|N1|*|2|*|-|", 1, scaled, 0);
        expect_linear("N0|N0|-|5|+|", 1, none, 5);
        expect_linear("N1|N5|+|", 1, n1, 0);             /* N5 is not given: 0 */
        expect_linear("N0|N1|*|", 0, NULL, 0);           /* a product of two */
        expect_linear("N0|2|/|", 0, NULL, 0);            /* a division */
    }
    /* the same program in doubles */
    {
        double v, dv[3] = {100, 7, 0};
        CHECK(hpm_formula_postfix(&f, "N0|N1|/|", err, sizeof err) == 0);
        CHECK(hpm_formula_eval(&f, dv, 3, &v) == 0 && fabs(v - 100.0 / 7) < 1e-12);
    }
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("formula: ok\n");
    return 0;
}
