/* SPDX-License-Identifier: BSD-3-Clause */
/* formula.c - compile infix and postfix formulas, evaluate them (formula.h). */
#include "formula.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t errlen, const char *src, const char *at, const char *msg)
{
    if (err && errlen)
        snprintf(err, errlen, "position %d: %s", (int)(at - src) + 1, msg);
    return -1;
}

static int emit(struct hpm_formula *f, enum hpm_formula_op op, unsigned var, double num,
                int64_t inum)
{
    if (f->n >= HPM_FORMULA_MAX_CODE)
        return -1;
    f->code[f->n].op = (uint8_t)op;
    f->code[f->n].var = (uint8_t)var;
    f->code[f->n].num = num;
    f->code[f->n].inum = inum;
    f->n++;
    if (op == HPM_FOP_VAR)
        f->vars[var / 64] |= (uint64_t)1 << (var % 64);
    return 0;
}

/* ------------------------------------------------------------ infix */

struct infix {
    struct hpm_formula *f;
    const char *src, *p;
    hpm_formula_resolve_fn resolve;
    void *ctx;
    char *err;
    size_t errlen;
    int depth;
};

static void skip_space(struct infix *x)
{
    while (*x->p == ' ' || *x->p == '\t')
        x->p++;
}

static int is_name_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '_' || c == ':' || c == '.';
}

static int expr(struct infix *x);

/* primary: number | name | ( expr ) */
static int primary(struct infix *x)
{
    skip_space(x);
    if (*x->p == '(') {
        x->p++;
        if (++x->depth > 32)
            return fail(x->err, x->errlen, x->src, x->p, "parentheses nested too deep");
        if (expr(x))
            return -1;
        x->depth--;
        skip_space(x);
        if (*x->p != ')')
            return fail(x->err, x->errlen, x->src, x->p, "')' expected");
        x->p++;
        return 0;
    }
    if ((*x->p >= '0' && *x->p <= '9') || *x->p == '.') {
        char *end;
        double v = strtod(x->p, &end);
        if (end == x->p || !isfinite(v))
            return fail(x->err, x->errlen, x->src, x->p, "bad number");
        x->p = end;
        /* the integer evaluator's copy, saturated: a cast of a double out
         * of int64_t's range is undefined */
        if (emit(x->f, HPM_FOP_NUM, 0, v,
                 v >= 9.2233720368547758e18 ? INT64_MAX : v <= -9.2233720368547758e18 ? INT64_MIN
                                                                                     : (int64_t)v))
            return fail(x->err, x->errlen, x->src, x->p, "formula too long");
        return 0;
    }
    if (is_name_char(*x->p)) {
        const char *b = x->p;
        int var;
        while (is_name_char(*x->p))
            x->p++;
        var = x->resolve ? x->resolve(b, (size_t)(x->p - b), x->ctx) : -1;
        if (var < 0 || var >= HPM_FORMULA_MAX_VARS)
            return fail(x->err, x->errlen, x->src, b, "unknown name");
        if (emit(x->f, HPM_FOP_VAR, (unsigned)var, 0, 0))
            return fail(x->err, x->errlen, x->src, x->p, "formula too long");
        return 0;
    }
    return fail(x->err, x->errlen, x->src, x->p,
                *x->p ? "a number, a name or '(' expected" : "unexpected end");
}

/* term: primary { (*|/) primary } */
static int term(struct infix *x)
{
    if (primary(x))
        return -1;
    for (;;) {
        char op;
        skip_space(x);
        op = *x->p;
        if (op != '*' && op != '/')
            return 0;
        x->p++;
        if (primary(x))
            return -1;
        if (emit(x->f, op == '*' ? HPM_FOP_MUL : HPM_FOP_DIV, 0, 0, 0))
            return fail(x->err, x->errlen, x->src, x->p, "formula too long");
    }
}

/* expr: term { (+|-) term } */
static int expr(struct infix *x)
{
    if (term(x))
        return -1;
    for (;;) {
        char op;
        skip_space(x);
        op = *x->p;
        if (op != '+' && op != '-')
            return 0;
        x->p++;
        if (term(x))
            return -1;
        if (emit(x->f, op == '+' ? HPM_FOP_ADD : HPM_FOP_SUB, 0, 0, 0))
            return fail(x->err, x->errlen, x->src, x->p, "formula too long");
    }
}

int hpm_formula_infix(struct hpm_formula *f, const char *src, hpm_formula_resolve_fn resolve,
                      void *ctx, char *err, size_t errlen)
{
    struct infix x = {f, src, src, resolve, ctx, err, errlen, 0};
    memset(f, 0, sizeof *f);
    if (!src)
        return fail(err, errlen, "", "", "no formula");
    if (expr(&x))
        return -1;
    skip_space(&x);
    if (*x.p)
        return fail(err, errlen, src, x.p, "operator or end expected");
    return 0;
}

/* ------------------------------------------------------------ postfix */

int hpm_formula_postfix(struct hpm_formula *f, const char *src, char *err, size_t errlen)
{
    const char *p = src;
    int depth = 0;
    memset(f, 0, sizeof *f);
    if (!src)
        return fail(err, errlen, "", "", "no formula");
    while (*p) {
        const char *tok = p;
        int rc;
        if (*p == '|') {
            p++;
            continue;
        }
        if (*p == 'N' && p[1] >= '0' && p[1] <= '9') {
            char *end;
            long i = strtol(p + 1, &end, 10);
            if (i >= HPM_FORMULA_MAX_VARS)
                return fail(err, errlen, src, tok, "term index too large");
            rc = emit(f, HPM_FOP_VAR, (unsigned)i, 0, 0);
            p = end;
            depth++;
        } else if (*p >= '0' && *p <= '9') {
            char *end;
            long long v = strtoll(p, &end, 10);
            rc = emit(f, HPM_FOP_NUM, 0, (double)v, v);
            p = end;
            depth++;
        } else if (*p == '+' || *p == '-' || *p == '*' || *p == '/') {
            static const enum hpm_formula_op ops[] = {HPM_FOP_ADD, HPM_FOP_SUB, HPM_FOP_MUL,
                                                      HPM_FOP_DIV};
            if (depth < 2)
                return fail(err, errlen, src, tok, "operator needs two operands");
            rc = emit(f, ops[strchr("+-*/", *p) - "+-*/"], 0, 0, 0);
            p++;
            depth--;
        } else {
            return fail(err, errlen, src, tok, "unknown token");
        }
        if (rc)
            return fail(err, errlen, src, tok, "formula too long");
        if (*p && *p != '|')
            return fail(err, errlen, src, p, "'|' expected between tokens");
    }
    if (depth != 1)
        return fail(err, errlen, src, p, depth ? "operands left over" : "empty formula");
    return 0;
}

/* ------------------------------------------------------------ evaluation */

int hpm_formula_eval(const struct hpm_formula *f, const double *vars, unsigned nvars, double *out)
{
    double st[HPM_FORMULA_MAX_CODE];
    unsigned i, sp = 0;
    for (i = 0; i < f->n; i++) {
        double a, b;
        switch (f->code[i].op) {
        case HPM_FOP_NUM:
            st[sp++] = f->code[i].num;
            continue;
        case HPM_FOP_VAR:
            if (f->code[i].var >= nvars)
                return -1;
            st[sp++] = vars[f->code[i].var];
            continue;
        default:
            break;
        }
        if (sp < 2)
            return -1;
        b = st[--sp];
        a = st[--sp];
        switch (f->code[i].op) {
        case HPM_FOP_ADD: st[sp++] = a + b; break;
        case HPM_FOP_SUB: st[sp++] = a - b; break;
        case HPM_FOP_MUL: st[sp++] = a * b; break;
        default:
            if (b == 0)
                return -1;
            st[sp++] = a / b;
            break;
        }
    }
    if (sp != 1 || !isfinite(st[0]))
        return -1;
    *out = st[0];
    return 0;
}

int64_t hpm_formula_eval_int(const struct hpm_formula *f, const int64_t *vars, unsigned nvars)
{
    int64_t st[HPM_FORMULA_MAX_CODE];
    unsigned i, sp = 0;
    for (i = 0; i < f->n; i++) {
        uint64_t a, b;
        switch (f->code[i].op) {
        case HPM_FOP_NUM:
            st[sp++] = f->code[i].inum;
            continue;
        case HPM_FOP_VAR:
            st[sp++] = f->code[i].var < nvars ? vars[f->code[i].var] : 0;
            continue;
        default:
            break;
        }
        if (sp < 2)
            return 0;
        b = (uint64_t)st[--sp];
        a = (uint64_t)st[--sp];
        switch (f->code[i].op) {
        case HPM_FOP_ADD: st[sp++] = (int64_t)(a + b); break;
        case HPM_FOP_SUB: st[sp++] = (int64_t)(a - b); break;
        case HPM_FOP_MUL: st[sp++] = (int64_t)(a * b); break;
        default: {
            int64_t sa = (int64_t)a, sb = (int64_t)b;
            /* x / 0 = 0 (a count of zero cycles is a possible read);
             * INT64_MIN / -1 would trap */
            st[sp++] = sb == 0 ? 0 : (sb == -1 ? (int64_t)(0 - a) : sa / sb);
            break;
        }
        }
    }
    return sp ? st[sp - 1] : 0;
}

/* A linear form of hpm_formula_linear_int's stack: k + sum c[v] * vars[v],
 * mod 2^64; var_terms says whether any c[v] may be nonzero. */
struct linear_form {
    uint64_t k, c[HPM_FORMULA_MAX_LINEAR];
    int var_terms;
};

/* a = a op b for ADD, SUB, and MUL where one side is a number: -1 otherwise */
static int linear_combine(struct linear_form *a, const struct linear_form *b, int op,
                          unsigned nvars)
{
    unsigned v;
    if (op == HPM_FOP_ADD || op == HPM_FOP_SUB) {
        uint64_t sign = op == HPM_FOP_ADD ? 1 : (uint64_t)-1;
        a->k += sign * b->k;
        for (v = 0; v < nvars; v++)
            a->c[v] += sign * b->c[v];
        a->var_terms |= b->var_terms;
        return 0;
    }
    if (op != HPM_FOP_MUL || (a->var_terms && b->var_terms))
        return -1;
    if (a->var_terms) { /* the number on the right: scale a by it */
        uint64_t m = b->k;
        a->k *= m;
        for (v = 0; v < nvars; v++)
            a->c[v] *= m;
        return 0;
    }
    uint64_t m = a->k; /* the number on the left: a becomes b scaled */
    *a = *b;
    a->k *= m;
    for (v = 0; v < nvars; v++)
        a->c[v] *= m;
    return 0;
}

int hpm_formula_linear_int(const struct hpm_formula *f, unsigned nvars, int64_t *coef,
                           int64_t *constant)
{
    struct linear_form st[HPM_FORMULA_MAX_CODE];
    unsigned i, sp = 0, v;
    if (nvars > HPM_FORMULA_MAX_LINEAR || f->n == 0 || f->n > HPM_FORMULA_MAX_CODE)
        return -1;
    for (i = 0; i < f->n; i++) {
        int op = f->code[i].op;
        if (op == HPM_FOP_NUM || op == HPM_FOP_VAR) {
            struct linear_form *t = &st[sp++];
            memset(t, 0, sizeof *t);
            if (op == HPM_FOP_NUM)
                t->k = (uint64_t)f->code[i].inum;
            else if (f->code[i].var < nvars) /* a variable not given reads 0 */
                t->c[f->code[i].var] = 1, t->var_terms = 1;
            continue;
        }
        if (sp < 2 || linear_combine(&st[sp - 2], &st[sp - 1], op, nvars) != 0)
            return -1;
        sp--;
    }
    if (sp != 1)
        return -1;
    *constant = (int64_t)st[0].k;
    for (v = 0; v < nvars; v++)
        coef[v] = (int64_t)st[0].c[v];
    return 0;
}
