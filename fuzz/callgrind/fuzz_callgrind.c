/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: the callgrind format reader (src/profile/callgrind.c,
 * what hpm annotate reads), then, for every file it accepts, the profile
 * written again and read back: the same events and the same sums; and the
 * loops of what it read (loops.h: any jumps make any control-flow graph,
 * irreducible ones too): outer loops before inner ones, depths that
 * follow the parents, nothing inside a loop that is not in its parent. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loops.h"
#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct hpm_profile p, q;
    char err[160], *buf = NULL;
    size_t len = 0;
    FILE *f;
    uint64_t a[HPM_PROF_KINDS_MAX], b[HPM_PROF_KINDS_MAX];
    memset(err, 'x', sizeof err);
    hpm_profile_init(&p);
    if (hpm_prof_read_callgrind(&p, (const char *)data, size, err, sizeof err) != 0) {
        if (memchr(err, 0, sizeof err) == NULL || err[0] == 0)
            abort();
        hpm_profile_free(&p);
        return 0;
    }
    hpm_profile_finish(&p);
    {
        struct hpm_loops ls;
        size_t i;
        if (hpm_loops_find(&p, &ls, err, sizeof err) == 0) {
            for (i = 0; i < ls.n; i++) {
                const struct hpm_loop *l = &ls.loops[i];
                if (l->parent >= (long)i || l->n_insns == 0 || l->lo > l->header ||
                    l->header > l->hi)
                    abort();
                if (l->parent >= 0 && (ls.loops[l->parent].depth + 1 != l->depth ||
                                       ls.loops[l->parent].fn != l->fn ||
                                       ls.loops[l->parent].n_insns < l->n_insns))
                    abort();
                if (l->parent < 0 && l->depth != 1)
                    abort();
            }
            hpm_loops_free(&ls);
        }
    }
    hpm_profile_sum(&p, a);
    f = open_memstream(&buf, &len);
    if (!f || hpm_prof_write_callgrind(&p, f) != 0)
        abort();
    fclose(f);
    hpm_profile_init(&q);
    if (hpm_prof_read_callgrind(&q, buf, len, err, sizeof err) != 0)
        abort();
    hpm_profile_finish(&q);
    hpm_profile_sum(&q, b);
    if (q.n_kinds != p.n_kinds || memcmp(a, b, p.n_kinds * sizeof *a) != 0)
        abort();
    free(buf);
    hpm_profile_free(&q);
    hpm_profile_free(&p);
    return 0;
}
