/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: the parser of the virtual PMU's profile records
 * (src/profile/profile.c), then, for every file it accepts, the profile
 * built from it (apportioning included), written in callgrind's format and
 * read back: the costs read back add up to what was written; and the
 * profile made by taking the records' values over (the front end's way)
 * is written the same, byte for byte; the contended cache lines (prof_c2c
 * records) make hpm profile's c2c view, in text and JSON. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct hpm_prof_records r;
    struct hpm_profile p, q;
    char err[160], *buf = NULL;
    size_t len = 0;
    FILE *f;
    uint64_t a[HPM_PROF_KINDS_MAX], b[HPM_PROF_KINDS_MAX];
    unsigned k;
    memset(err, 'x', sizeof err);
    if (hpm_prof_records_parse((const char *)data, size, &r, err, sizeof err) != 0) {
        if (memchr(err, 0, sizeof err) == NULL || err[0] == 0)
            abort(); /* every error is a terminated message */
        return 0;
    }
    hpm_profile_init(&p);
    if (hpm_prof_add_records(&p, &r, NULL, err, sizeof err) != 0)
        abort();
    hpm_profile_finish(&p);
    hpm_profile_sum(&p, a);
    for (k = 0; k < p.n_kinds; k++) /* apportioned or exact: they add up */
        if (a[k] != p.totals[k] && !(p.apportioned[k] && a[k] == 0))
            abort();
    f = open_memstream(&buf, &len);
    if (!f || hpm_prof_write_callgrind(&p, f) != 0)
        abort();
    fclose(f);
    hpm_profile_init(&q);
    if (p.n_kinds > 0) {
        if (hpm_prof_read_callgrind(&q, buf, len, err, sizeof err) != 0)
            abort(); /* what hpm writes, hpm reads */
        hpm_profile_finish(&q);
        hpm_profile_sum(&q, b);
        if (q.n_kinds != p.n_kinds || memcmp(a, b, p.n_kinds * sizeof *a) != 0)
            abort();
    }
    {
        struct hpm_prof_records r2;
        struct hpm_profile t;
        char *buf2 = NULL;
        size_t len2 = 0;
        if (hpm_prof_records_parse((const char *)data, size, &r2, err, sizeof err) != 0)
            abort();
        hpm_profile_init(&t);
        if (hpm_prof_take_records(&t, &r2, NULL, err, sizeof err) != 0 || r2.kvs != NULL)
            abort();
        hpm_profile_finish(&t);
        f = open_memstream(&buf2, &len2);
        if (!f || hpm_prof_write_callgrind(&t, f) != 0)
            abort();
        fclose(f);
        if (len2 != len || memcmp(buf, buf2, len) != 0)
            abort();
        free(buf2);
        hpm_profile_free(&t);
        hpm_prof_records_free(&r2);
    }
    {
        /* the contended lines' view (c2c.c), text and JSON: every line
         * with coherence misses listed, once */
        struct hpm_c2c_report *c = hpm_c2c_report_new();
        size_t i, want = 0, nf = 0, n;
        char *t = NULL;
        size_t tlen = 0;
        if (!c || hpm_c2c_report_add(c, &r, NULL, 1) != 0)
            abort();
        for (i = 0; i < r.c2c.n_lines; i++)
            want += r.c2c.lines[i].coh_misses != 0;
        n = hpm_c2c_report_lines(c, NULL, NULL, &nf);
        if (n != want || nf > n)
            abort();
        f = open_memstream(&t, &tlen);
        if (!f || hpm_c2c_report_write_text(c, f) != 0 || hpm_c2c_report_write_json(c, f) != 0)
            abort();
        fclose(f);
        free(t);
        hpm_c2c_report_free(c);
    }
    free(buf);
    hpm_profile_free(&q);
    hpm_profile_free(&p);
    hpm_prof_records_free(&r);
    return 0;
}
