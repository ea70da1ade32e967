/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roofline_items.c - what hpm roofline's command and its measurement of the
 * model share (roofline.h): a profile's costs turned into an item's rates,
 * intensities and bound, the kinds a profile must have, and hpm profile's
 * plan executed for a program (a leaf: it calls neither of them).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"
#include "roofline/roofline.h"

const char *const roofline_level_name[LV_N] = {"L1", "L2", "L3", "DDR"};

/* The profile's kinds a roofline needs, by name (roofline.h's K_*). */
static const char *const k_names[K_N] = {
    "FP_OPS",      "CYCLES",       "FP_DP_SCALAR",   "FP_DP_128",        "FP_DP_256",
    "FP_SP_SCALAR", "FP_SP_128",   "FP_SP_256",      "LOAD_BYTES",       "STORE_BYTES",
    "L1D_MISSES",  "L1D_WRITEBACKS", "L3_READS",     "L3_WRITEBACKS_IN", "DDR_READ_BYTES",
    "DDR_WRITE_BYTES"};

void roofline_item_fill(struct item *it, const uint64_t *v, const int *kx,
                      const struct hpm_machine *m, const struct ceilings *c,
                      const struct measured *me)
{
#define V(k) (kx[k] >= 0 ? (double)v[kx[k]] : 0.0)
    unsigned w, l;
    int sp;
    double best;
    it->flops = V(K_FP_OPS);
    it->flops_dp = V(K_DP_S) + V(K_DP_128) + V(K_DP_256);
    it->flops_sp = V(K_SP_S) + V(K_SP_128) + V(K_SP_256);
    it->width[0] = V(K_DP_S) + V(K_SP_S);
    it->width[1] = V(K_DP_128) + V(K_SP_128);
    it->width[2] = V(K_DP_256) + V(K_SP_256);
    it->cycles = V(K_CYCLES);
    it->bytes[LV_L1] = V(K_LOAD_BYTES) + V(K_STORE_BYTES);
    it->bytes[LV_L2] = (V(K_L1D_MISSES) + V(K_L1D_WB)) * m->hier.l1d.line;
    it->bytes[LV_L3] = m->hier.l3.size ? (V(K_L3_READS) + V(K_L3_WB_IN)) * m->hier.l3.line : 0;
    it->bytes[LV_DDR] = V(K_DDR_R) + V(K_DDR_W);
#undef V
    it->gflops = it->cycles > 0 ? it->flops / (it->cycles / (double)m->frequency_hz) / 1e9 : 0;
    for (w = 0, l = 1; l < 3; l++)
        if (it->width[l] > it->width[w])
            w = l;
    sp = it->flops_sp > it->flops_dp;
    it->peak = c->peak[sp][w];
    it->bound = LV_N;
    best = it->peak;
    for (l = 0; l < LV_N; l++) {
        double roof;
        it->ai[l] = it->bytes[l] > 0 ? it->flops / it->bytes[l] : 0;
        if (c->bw[l] <= 0 || it->bytes[l] <= 0)
            continue;
        roof = it->ai[l] * c->bw[l];
        if (roof < best) {
            best = roof;
            it->bound = (int)l;
        }
    }
    it->roof = best;
    it->model_bound = -1;
    it->model_roof = 0;
    if (me && me->have && me->peak[w] > 0) {
        best = me->peak[w];
        it->model_bound = LV_N;
        for (l = 0; l < LV_N; l++)
            if (me->bw[l] > 0 && it->bytes[l] > 0 && it->ai[l] * me->bw[l] < best) {
                best = it->ai[l] * me->bw[l];
                it->model_bound = (int)l;
            }
        it->model_roof = best;
    }
}


/* roofline.h. hpm profile's plan, executed in this process: its report of
 * the counts goes to /dev/null (ours is the table) with the program's
 * output, and its notes are left out (--quiet: its file is a scratch
 * file); the progress line says "roofline". */
int roofline_run_profile(const char *machine, const char *out, char **argv, int argc)
{
    struct count_plan *p = malloc(sizeof *p);
    char **prog = calloc((size_t)argc + 1, sizeof *prog);
    const char *cmd = count_cmd_name;
    struct count_opts o;
    int rc = 1;
    if (!p || !prog)
        goto done;
    memcpy(prog, argv, (size_t)argc * sizeof *prog);
    count_opts_init(&o);
    o.machine = machine;
    o.quiet = 1;
    o.output = "/dev/null";
    o.prog = prog;
    o.prog_argc = argc;
    count_cmd_name = "hpm profile";
    count_plan_init(p, MODE_PROFILE, &o);
    p->profile_out = out;
    p->program_stdout = "/dev/null";
    p->progress_name = "roofline";
    p->progress_quiet_too = 1;
    rc = count_plan_settle(p);
    if (rc == COUNT_GO)
        rc = count_execute(p, NULL);
    count_cmd_name = cmd;
done:
    free(prog);
    free(p);
    return rc;
}


/* The kind indexes of p's kinds the roofline reads (-1: absent); 0, or -1
 * after naming the first one missing. */
int roofline_kinds_of(const struct hpm_profile *p, const char *what, int *kx)
{
    unsigned k, j;
    for (k = 0; k < K_N; k++) {
        kx[k] = -1;
        for (j = 0; j < p->n_kinds; j++)
            if (strcmp(p->kinds[j], k_names[k]) == 0)
                kx[k] = (int)j;
        if (kx[k] < 0 && k != K_L3_READS && k != K_L3_WB_IN) {
            fprintf(stderr,
                    "hpm roofline: %s has no %s (a roofline needs it: profile every event, "
                    "hpm profile's default)\n",
                    what, k_names[k]);
            return -1;
        }
    }
    return 0;
}

/* A function's self costs (n_kinds values, calloc'd), or NULL. */
uint64_t *roofline_fn_self(const struct hpm_profile *p, size_t f)
{
    uint64_t *v = calloc(p->n_kinds ? p->n_kinds : 1, sizeof *v);
    size_t j;
    unsigned k;
    if (!v)
        return NULL;
    for (j = 0; j < p->fns[f].n_costs; j++) {
        const struct hpm_prof_cost *cc = &p->fns[f].costs[j];
        for (k = 0; k < p->n_kinds; k++)
            v[k] += hpm_prof_value(cc->v, cc->kv, cc->n_kv, k);
    }
    return v;
}
