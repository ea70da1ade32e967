/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target of the formula engine (src/formula): any bytes through
 * the infix and the postfix compilers; whatever compiles evaluates in both
 * modes without a crash, and a compiled program never reads a variable it
 * did not declare. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formula.h"

/* names: A..Z resolve to 0..25, FREQ to 127, anything else fails */
static int resolve(const char *name, size_t len, void *ctx)
{
    (void)ctx;
    if (len == 1 && name[0] >= 'A' && name[0] <= 'Z')
        return name[0] - 'A';
    if (len == 4 && memcmp(name, "FREQ", 4) == 0)
        return 127;
    return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1), err[128];
    struct hpm_formula f;
    double vars[HPM_FORMULA_MAX_VARS], out;
    int64_t ivars[HPM_FORMULA_MAX_VARS];
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = 0;
    for (unsigned i = 0; i < HPM_FORMULA_MAX_VARS; i++) {
        vars[i] = (double)i;
        ivars[i] = (int64_t)i - 3;
    }
    if (hpm_formula_infix(&f, s, resolve, NULL, err, sizeof err) == 0) {
        (void)hpm_formula_eval(&f, vars, HPM_FORMULA_MAX_VARS, &out);
        (void)hpm_formula_eval_int(&f, ivars, HPM_FORMULA_MAX_VARS);
    } else if (!err[0]) {
        abort(); /* a failure always says why */
    }
    if (hpm_formula_postfix(&f, s, err, sizeof err) == 0) {
        (void)hpm_formula_eval(&f, vars, 3, &out);
        (void)hpm_formula_eval_int(&f, ivars, 3);
    } else if (!err[0]) {
        abort();
    }
    free(s);
    return 0;
}
