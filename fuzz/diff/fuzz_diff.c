/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target for hpm diff's inputs (tools/hpm/diff/diff_model.c): the input is
 * split at its first 0xff byte into OLD and NEW (count reports in JSON, or
 * profiles in callgrind's format), loaded, written through every writer
 * and gated by a few limits. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *cut = memchr(data, 0xff, size);
    size_t la = cut ? (size_t)(cut - data) : size, lb = cut ? size - la - 1 : 0;
    char *a = malloc(la + 1), *b = malloc(lb + 1), err[512];
    const char *names[2] = {"old", "new"}, *texts[2] = {a, b};
    size_t lens[2] = {la, lb};
    struct diff d;
    if (!a || !b) {
        free(a);
        free(b);
        return 0;
    }
    memcpy(a, data, la);
    a[la] = 0;
    if (lb)
        memcpy(b, cut + 1, lb);
    b[lb] = 0;
    if (diff_load_texts(&d, names, texts, lens, 0, err, sizeof err) == 0) {
        struct diff_view v = {(unsigned)diff_default_sort(&d), 5, 0, NULL};
        struct diff_limit l[2];
        FILE *f = fopen("/dev/null", "w");
        if (f) {
            const struct diff_writer *w[] = {&diff_text_writer, &diff_json_writer,
                                             &diff_markdown_writer};
            unsigned k;
            for (k = 0; k < 3; k++) {
                void *ctx = calloc(1, w[k]->ctx_size);
                if (ctx)
                    diff_write(f, &d, &v, w[k], ctx);
                free(ctx);
            }
            if (diff_limit_parse("INSTRUCTIONS:+1%", &l[0], err, sizeof err) == 0 &&
                diff_limit_parse("INSTRUCTIONS:1000", &l[1], err, sizeof err) == 0)
            {
                struct diff_verdict v;
                if (diff_gate(f, &d, l, 2, &v, err, sizeof err) == 0 &&
                    v.held + v.exceeded + v.not_comparable + v.not_gated != 2)
                    abort(); /* each named limit is judged once, one way */
            }
            fclose(f);
        }
        diff_free(&d);
    }
    free(a);
    free(b);
    return 0;
}
