/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roofline.h - what the parts of hpm roofline share: the levels, the
 * ceilings (the machine file's and those measured on the model), the items
 * (loops and functions) and the functions across roofline.c (the
 * command), roofline_items.c (costs to rates and bounds, hpm profile run
 * for a program: a leaf), roofline_measure.c (the model's own ceilings,
 * cached) and roofline_write.c (text, CSV, JSON and the picture).
 */
#ifndef HPM_TOOL_ROOFLINE_H
#define HPM_TOOL_ROOFLINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "machine.h"
#include "profile.h"

enum { LV_L1, LV_L2, LV_L3, LV_DDR, LV_N };
extern const char *const roofline_level_name[LV_N];

struct ceilings {
    double peak[2][3]; /* [dp, sp][scalar, 128, 256] flop/s of one core */
    double bw[LV_N];   /* bytes/s one core can move from the level; 0: no such level */
    double bw_file[LV_N]; /* the machine file's (DDR: the node's) */
};

/* Measured on the model: double precision only (the kernels'); 0: not
 * measured (no AVX on this CPU: no 256-bit kernel). */
struct measured {
    int have;
    double peak[3];
    double bw[LV_N];
};

struct item {
    int is_loop;
    char name[512];
    char object[256];
    double flops, flops_dp, flops_sp, width[3], cycles, bytes[LV_N];
    double gflops, ai[LV_N], roof, peak;
    int bound;         /* LV_*, or LV_N: the peak */
    int model_bound;   /* the same against the measured ceilings, -1: none */
    double model_roof;
    uint64_t entries;
    double trip;
};

/* The profile's kinds a roofline needs, by name (roofline_kinds_of). */
enum {
    K_FP_OPS, K_CYCLES, K_DP_S, K_DP_128, K_DP_256, K_SP_S, K_SP_128, K_SP_256, K_LOAD_BYTES,
    K_STORE_BYTES, K_L1D_MISSES, K_L1D_WB, K_L3_READS, K_L3_WB_IN, K_DDR_R, K_DDR_W, K_N
};

/* roofline_items.c: an item from its costs v (kx: the profile's index of each
 * K_*), classified against c and, when measured, me. */
/* roofline_analysis.c: the machine's ceilings (where names its file in
 * messages): 0, or 2 naming the file and the first key missing. */
int roofline_ceilings(const struct hpm_machine *m, const char *where, struct ceilings *c);
/* The profile at prof as items: its loops, then its functions, each the
 * top of those with flops by achieved rate (*items_out, malloc'd, *n_out of
 * them), and the whole program as all. 0, or 1 after a message. */
int roofline_analyse(const char *prof, const struct hpm_machine *m, const struct ceilings *c,
                     const struct measured *me, long top, struct item **items_out,
                     size_t *n_out, struct item *all);

void roofline_item_fill(struct item *it, const uint64_t *v, const int *kx,
                        const struct hpm_machine *m, const struct ceilings *c,
                        const struct measured *me);
/* The kind indexes of p's kinds (-1: absent); 0, or -1 after naming the
 * first one missing. */
int roofline_kinds_of(const struct hpm_profile *p, const char *what, int *kx);
/* A function's self costs (n_kinds values, calloc'd), or NULL. */
uint64_t *roofline_fn_self(const struct hpm_profile *p, size_t f);
/* hpm profile -o out -- argv... under machine, run in this process (its
 * report and notes left out): its exit status. */
int roofline_run_profile(const char *machine, const char *out, char **argv, int argc);

/* roofline_measure.c: the model's ceilings, from hpm-roofline-kernels
 * (beside hpm) under hpm profile on the machine, or from the cache. 0, or
 * 1 after a message (the roofline goes on with the file's ceilings). */
int roofline_measure(const char *machine, const struct hpm_machine *m, struct measured *me);

/* roofline_write.c: the table (text, CSV, JSON) and the picture. */
const char *roofline_bound_name(int b);
void roofline_print_text(FILE *f, const struct item *it, size_t n, const struct ceilings *c,
                         const struct hpm_machine *m, const char *where,
                         const struct measured *me);
void roofline_print_csv(FILE *f, const struct item *it, size_t n);
int roofline_print_json(FILE *f, const struct item *it, size_t n, const struct ceilings *c,
                        const struct hpm_machine *m, const struct item *all,
                        const struct measured *me);
/* The picture into out (SVG, gnuplot); what: the program or profile. */
int roofline_draw(const char *out, const char *what, const struct item *it, size_t n,
                  const struct ceilings *c, const struct hpm_machine *m,
                  const struct measured *me);

#endif
