/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roofline_analysis.c - hpm roofline's analysis: the machine's ceilings
 * from its [roofline] section, and a profile's loops and functions as
 * items. Per loop (src/profile/loops.h, inclusive) and per function
 * (self): achieved FLOP/s of modeled time (FP_OPS over CYCLES at the
 * machine's clock; double and single precision apart) and arithmetic
 * intensity against each level's traffic: L1 the loads' and stores' bytes,
 * L2 the L1 data misses and write-backs in L1 lines, L3 the L3's reads and
 * write-backs in L3 lines, DDR its read and written bytes. The ceilings
 * are the machine file's [roofline] section (per core: flops a cycle by
 * width, bytes a cycle per cache level; the node's memory bandwidth), a
 * level's held to those nearer the core. Each item's peak is that of the
 * width most of its flops use; the level that bounds it is the one whose
 * roof, min(peak, AI x bandwidth), is lowest; headroom is that roof over
 * the achieved rate (roofline_items.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "loops.h"
#include "profile.h"
#include "roofline/roofline.h"

/* roofline.h */
int roofline_ceilings(const struct hpm_machine *m, const char *where, struct ceilings *c)
{
    static const char *const fk[3] = {"flops_per_cycle_scalar", "flops_per_cycle_128",
                                       "flops_per_cycle_256"};
    double f = (double)m->frequency_hz;
    unsigned w;
    memset(c, 0, sizeof *c);
    for (w = 0; w < 3; w++) {
        if (!m->roofline.flops_milli[w])
            goto missing_flops;
        c->peak[0][w] = (double)m->roofline.flops_milli[w] / 1000.0 * f;
    }
    if (!m->roofline.sp_per_dp) {
        fprintf(stderr, "hpm roofline: %s: [roofline] sp_per_dp is missing\n", where);
        return 2;
    }
    for (w = 0; w < 3; w++)
        c->peak[1][w] = c->peak[0][w] * m->roofline.sp_per_dp;
#define NEED(cond, field, key)                                                               \
    if (cond) {                                                                              \
        if (!m->roofline.field) {                                                            \
            fprintf(stderr, "hpm roofline: %s: [roofline] %s is missing\n", where, key);     \
            return 2;                                                                        \
        }                                                                                    \
    }
    NEED(1, l1_milli, "l1_bytes_per_cycle")
    NEED(m->hier.l2.size, l2_milli, "l2_bytes_per_cycle")
    NEED(m->hier.l3.size, l3_milli, "l3_bytes_per_cycle")
    NEED(1, memory_bytes_per_s, "memory_bandwidth")
#undef NEED
    c->bw_file[LV_L1] = (double)m->roofline.l1_milli / 1000.0 * f;
    c->bw_file[LV_L2] = m->hier.l2.size ? (double)m->roofline.l2_milli / 1000.0 * f : 0;
    c->bw_file[LV_L3] = m->hier.l3.size ? (double)m->roofline.l3_milli / 1000.0 * f : 0;
    c->bw_file[LV_DDR] = (double)m->roofline.memory_bytes_per_s;
    /* a level's bytes reach the core through the levels nearer it: one
     * core's roof is the least of theirs (bgp's DDR, 13.6 GB/s for the
     * node, comes through a core's 6.8 GB/s L3 port) */
    for (w = 0; w < LV_N; w++) {
        unsigned near;
        c->bw[w] = c->bw_file[w];
        for (near = 0; near < w && c->bw[w] > 0; near++)
            if (c->bw_file[near] > 0 && c->bw_file[near] < c->bw[w])
                c->bw[w] = c->bw_file[near];
    }
    return 0;
missing_flops:
    fprintf(stderr, "hpm roofline: %s: [roofline] %s is missing\n", where, fk[w]);
    return 2;
}

static int cmp_item(const void *a, const void *b)
{
    const struct item *x = a, *y = b;
    if (x->flops != y->flops)
        return x->flops > y->flops ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* The profile at prof read into p, its kinds (kx) and its loops (ls): 0,
 * or 1 after a message (p and ls freed). */
static int read_profile(const char *prof, struct hpm_profile *p, struct hpm_loops *ls, int *kx)
{
    char *text = NULL, err[512];
    size_t len = 0;
    if (hpm_file_read(prof, (size_t)4 << 30, hpm_prof_callgrind_head,
                      "a profile in callgrind's format", &text, &len, err, sizeof err) != 0) {
        fprintf(stderr, "hpm roofline: cannot read %s\n", err);
        return 1;
    }
    hpm_profile_init(p);
    if (hpm_prof_read_callgrind(p, text, len, err, sizeof err) != 0) {
        fprintf(stderr, "hpm roofline: %s: %s\n", prof, err);
        free(text);
        hpm_profile_free(p);
        return 1;
    }
    free(text);
    hpm_profile_finish(p);
    if (roofline_kinds_of(p, prof, kx) != 0) {
        hpm_profile_free(p);
        return 1;
    }
    if (hpm_loops_find(p, ls, err, sizeof err) != 0) {
        fprintf(stderr, "hpm roofline: %s: %s\n", prof, err);
        hpm_profile_free(p);
        return 1;
    }
    return 0;
}

/* roofline.h */
int roofline_analyse(const char *prof, const struct hpm_machine *m, const struct ceilings *c,
                     const struct measured *me, long top, struct item **items_out,
                     size_t *n_out, struct item *all)
{
    struct hpm_profile p;
    struct hpm_loops ls;
    struct item *items;
    uint64_t *sum;
    size_t i, n = 0, nf = 0, nl = 0;
    int rc = 0, kx[K_N];
    unsigned k;
    *items_out = NULL;
    *n_out = 0;
    if (read_profile(prof, &p, &ls, kx) != 0)
        return 1;
    items = calloc(ls.n + p.n_fns + 1, sizeof *items);
    sum = calloc(p.n_kinds ? p.n_kinds : 1, sizeof *sum);
    if (!items || !sum) {
        fprintf(stderr, "hpm roofline: out of memory\n");
        rc = 1;
        goto done;
    }
    for (i = 0; i < ls.n; i++) {
        struct item *it = &items[n];
        it->is_loop = 1;
        hpm_loop_name(&p, &ls.loops[i], it->name, sizeof it->name);
        snprintf(it->object, sizeof it->object, "%s", p.strs[p.fns[ls.loops[i].fn].obj]);
        roofline_item_fill(it, ls.loops[i].incl, kx, m, c, me);
        it->entries = ls.loops[i].entries;
        it->trip = hpm_loop_trip(&ls.loops[i]);
        if (it->flops > 0)
            n++;
    }
    nl = n;
    qsort(items, nl, sizeof *items, cmp_item);
    if (nl > (size_t)top)
        nl = (size_t)top;
    n = nl;
    for (i = 0; i < p.n_fns; i++) {
        struct item *it = &items[n + nf];
        uint64_t *v = roofline_fn_self(&p, i);
        if (!v) {
            rc = 1;
            goto done;
        }
        for (k = 0; k < p.n_kinds; k++)
            sum[k] += v[k];
        memset(it, 0, sizeof *it);
        snprintf(it->name, sizeof it->name, "%s", p.strs[p.fns[i].name]);
        snprintf(it->object, sizeof it->object, "%s", p.strs[p.fns[i].obj]);
        roofline_item_fill(it, v, kx, m, c, me);
        free(v);
        if (it->flops > 0)
            nf++;
    }
    memset(all, 0, sizeof *all);
    roofline_item_fill(all, sum, kx, m, c, me);
    qsort(items + n, nf, sizeof *items, cmp_item);
    if (nf > (size_t)top)
        nf = (size_t)top;
    n += nf;
    *items_out = items;
    *n_out = n;
    items = NULL;
done:
    free(items);
    free(sum);
    hpm_loops_free(&ls);
    hpm_profile_free(&p);
    return rc;
}
