/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * catalog.h - the event catalog of the hpm virtual node: every event the
 * virtual PMU can count, laid out over the UPC's 1024-input event space.
 *
 * Naming scheme (one for every unit; docs/events.md):
 *   PU<n>_<KIND>   a per-core event of core n, e.g. PU0_L1D_MISSES (one code)
 *   <KIND>         the same event on every core of the node, e.g. L1D_MISSES
 *                  (a group of codes; reports show the sum and the split)
 *   <NODE_KIND>    a node-wide event (shared L3, DDR), e.g. DDR_READ_BYTES
 * Names are matched case-insensitively and are upper case in output.
 *
 * Code layout (the UPC input space, seed 000): per-core events of core c
 * occupy the block [c*HPM_CAT_CORE_STRIDE, (c+1)*HPM_CAT_CORE_STRIDE); kind k
 * of core c has code c*HPM_CAT_CORE_STRIDE + k, as BG/P lays out PU0, PU1,
 * ... in consecutive blocks (seed 000 Table 1). Node-wide events occupy the
 * top block [HPM_CAT_NODE_BASE, 1024). A UPC counter c can count codes
 * c, c+256, c+512, c+768 (its four inputs), so two codes conflict when they
 * are equal modulo 256; with this layout all events of four cores plus the
 * node block fit one UPC (4*56 + 32 = 256 counters) and cores 4..7 reuse the
 * counters of cores 0..3 (a second UPC counts them).
 *
 * Freestanding: no libc, so the Valgrind tool links the same table.
 */
#ifndef HPM_CATALOG_H
#define HPM_CATALOG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HPM_CAT_CODES 1024       /* the UPC event space */
#define HPM_CAT_CORE_STRIDE 56   /* codes per core block */
#define HPM_CAT_NODE_BASE 992    /* first node-wide code */
#define HPM_CAT_MAX_CORES 16     /* 16 * 56 <= 992 */
#define HPM_CAT_NAME_MAX 48      /* longest event name, with NUL */

/* Model features an event needs (hpm_catalog_features of a machine). */
enum hpm_cat_need {
    HPM_NEED_NONE = 0,
    HPM_NEED_HIER = 1u << 0,     /* the cache hierarchy runs */
    HPM_NEED_BPRED = 1u << 1,    /* the branch predictor runs */
    HPM_NEED_TLB = 1u << 2,      /* the TLBs run */
    HPM_NEED_TIMING = 1u << 3,   /* cycles: needs every model above */
    HPM_NEED_L2 = 1u << 4,       /* the machine has an L2 */
    HPM_NEED_L3 = 1u << 5,       /* ... an L3 */
    HPM_NEED_PREFETCH = 1u << 6, /* ... a private L2 with a stream prefetcher */
    HPM_NEED_FULL = 1u << 7,     /* FP and integer op classification */
};
/* The need bits that name a model (the others name machine features). */
#define HPM_NEED_MODELS (HPM_NEED_HIER | HPM_NEED_BPRED | HPM_NEED_TLB | HPM_NEED_TIMING)

enum hpm_cat_unit {
    HPM_UNIT_CORE = 0, /* instruction mix, loads/stores, system calls */
    HPM_UNIT_FPU,
    HPM_UNIT_BRANCH,
    HPM_UNIT_L1I,
    HPM_UNIT_L1D,
    HPM_UNIT_L2,
    HPM_UNIT_TLB,
    HPM_UNIT_L3,
    HPM_UNIT_DDR,
    HPM_UNIT_TIMING,
    HPM_UNIT_COUNT
};

/* X(ENUM, UNIT, NEEDS, "description"). Per-core kinds first, in code order
 * (at most HPM_CAT_CORE_STRIDE), then node kinds (at most 32). The order is
 * ABI: codes are derived from it. Append only. */
#define HPM_CAT_CORE_KINDS(X)                                                                  \
    X(INSTRUCTIONS, CORE, NONE, "instructions completed")                                   \
    X(CYCLES, TIMING, TIMING, "modeled core cycles (timing model)")                         \
    X(LOADS, CORE, NONE, "memory read operations")                                          \
    X(STORES, CORE, NONE, "memory write operations")                                        \
    X(LOAD_BYTES, CORE, NONE, "bytes read by load operations")                              \
    X(STORE_BYTES, CORE, NONE, "bytes written by store operations")                         \
    X(INT_ADDSUB, CORE, FULL, "integer add/subtract operations (IR level)")                 \
    X(INT_MUL, CORE, FULL, "integer multiply operations")                                   \
    X(INT_DIV, CORE, FULL, "integer divide operations")                                     \
    X(INT_LOGIC, CORE, FULL, "integer logical operations (and, or, xor, not)")              \
    X(BRANCHES, BRANCH, NONE, "branch instructions of every kind")                          \
    X(BR_COND, BRANCH, NONE, "conditional branches")                                        \
    X(BR_COND_TAKEN, BRANCH, NONE, "conditional branches taken")                            \
    X(BR_COND_NOT_TAKEN, BRANCH, NONE, "conditional branches not taken")                    \
    X(BR_DIRECT, BRANCH, NONE, "unconditional direct jumps")                                \
    X(BR_INDIRECT, BRANCH, NONE, "indirect jumps (calls and returns excluded)")             \
    X(BR_CALLS, BRANCH, NONE, "calls, direct and indirect")                                 \
    X(BR_CALLS_INDIRECT, BRANCH, NONE, "indirect calls")                                    \
    X(BR_RETURNS, BRANCH, NONE, "returns")                                                  \
    X(BR_MISPREDICTS, BRANCH, BPRED, "mispredicted branches of every kind")                 \
    X(BR_COND_MISPREDICTS, BRANCH, BPRED, "mispredicted conditional branches (direction)")  \
    X(BR_INDIRECT_MISPREDICTS, BRANCH, BPRED, "mispredicted indirect jump/call targets (BTB)") \
    X(BR_RETURN_MISPREDICTS, BRANCH, BPRED, "mispredicted return targets (return stack)")   \
    X(SYSCALLS, CORE, NONE, "system calls")                                                 \
    X(FP_INSTRUCTIONS, FPU, FULL, "instructions with floating-point arithmetic")            \
    X(FP_OPS, FPU, FULL, "floating-point operations (flops; FMA = 2)")                      \
    X(FP_SP_SCALAR, FPU, FULL, "single-precision scalar flops")                             \
    X(FP_SP_128, FPU, FULL, "single-precision flops in 128-bit vectors")                    \
    X(FP_SP_256, FPU, FULL, "single-precision flops in 256-bit vectors")                    \
    X(FP_DP_SCALAR, FPU, FULL, "double-precision scalar flops")                             \
    X(FP_DP_128, FPU, FULL, "double-precision flops in 128-bit vectors")                    \
    X(FP_DP_256, FPU, FULL, "double-precision flops in 256-bit vectors")                    \
    X(FP_FMA, FPU, FULL, "fused multiply-add lanes (each also 2 flops)")                    \
    X(FP_DIV, FPU, FULL, "floating-point division lanes")                                   \
    X(FP_SQRT, FPU, FULL, "floating-point square-root lanes")                               \
    X(L1I_ACCESSES, L1I, HIER, "L1 instruction cache accesses (instruction fetches)")       \
    X(L1I_MISSES, L1I, HIER, "L1 instruction cache misses")                                 \
    X(L1D_READ_MISSES, L1D, HIER, "L1 data cache load misses")                              \
    X(L1D_WRITE_MISSES, L1D, HIER, "L1 data cache store misses")                            \
    X(L1D_MISSES, L1D, HIER, "L1 data cache misses")                                        \
    X(L1D_WRITEBACKS, L1D, HIER, "dirty lines evicted from the L1 data cache")              \
    X(L2_ACCESSES, L2, HIER | HPM_NEED_L2, "L2 requests from this core (L1 misses)")        \
    X(L2_HITS, L2, HIER | HPM_NEED_L2, "L2 requests served by the L2")                      \
    X(L2_MISSES, L2, HIER | HPM_NEED_L2, "L2 requests not served by the L2")                \
    X(L2_PREFETCHABLE_REQUESTS, L2, HIER | HPM_NEED_PREFETCH, "demand reads that advanced a prefetch stream") \
    X(L2_PREFETCH_HITS_IN_STREAM, L2, HIER | HPM_NEED_PREFETCH, "demand reads to a prefetched line") \
    X(L2_VALID_PREFETCHES, L2, HIER | HPM_NEED_PREFETCH, "prefetches fetched from below the L2") \
    X(L2_PREFETCH_ALREADY_IN_L2, L2, HIER | HPM_NEED_PREFETCH, "prefetches to a line already in the L2") \
    X(L2_CYCLES_PREFETCH_PENDING, L2, TIMING | HPM_NEED_PREFETCH, "cycles with a prefetch pending") \
    X(L3_HITS, L3, HIER | HPM_NEED_L3, "requests of this core served by the L3")            \
    X(MEM_ACCESSES, DDR, HIER, "requests of this core served by memory (last-level misses)") \
    X(ITLB_MISSES, TLB, TLB, "instruction TLB misses")                                      \
    X(DTLB_MISSES, TLB, TLB, "data TLB misses")                                             \
    X(STALL_MEM_CYCLES, TIMING, TIMING, "cycles stalled on the memory hierarchy")           \
    X(STALL_TLB_CYCLES, TIMING, TIMING, "cycles stalled on TLB refills")                    \
    X(STALL_BRANCH_CYCLES, TIMING, TIMING, "cycles lost to branch mispredictions")

#define HPM_CAT_NODE_KINDS(X)                                                                  \
    X(NODE_CYCLES, TIMING, TIMING, "modeled node cycles: the largest core's cycles")        \
    X(L3_READS, L3, HIER | HPM_NEED_L3, "L3 demand reads (fills asked for by the level above)") \
    X(L3_READ_MISSES, L3, HIER | HPM_NEED_L3, "L3 demand reads that missed")                \
    X(L3_WRITEBACKS_IN, L3, HIER | HPM_NEED_L3, "write-backs received by the L3")          \
    X(L3_WRITEBACKS, L3, HIER | HPM_NEED_L3, "dirty lines evicted from the L3")             \
    X(DDR_READ_BYTES, DDR, HIER, "bytes read from DDR (demand and prefetch fills)")         \
    X(DDR_WRITE_BYTES, DDR, HIER, "bytes written to DDR (write-backs)")                     \
    X(DDR_READS, DDR, HIER, "line reads from DDR (demand and prefetch fills)")              \
    X(DDR_WRITES, DDR, HIER, "line writes to DDR (write-backs)")

#define HPM_CAT_ENUM_(e, u, n, d) HPM_K_##e,
enum hpm_cat_kind {
    HPM_CAT_CORE_KINDS(HPM_CAT_ENUM_) HPM_K_CORE_COUNT,
    HPM_K_NODE_FIRST_ = HPM_K_CORE_COUNT - 1,
    HPM_CAT_NODE_KINDS(HPM_CAT_ENUM_) HPM_K_COUNT
};
#undef HPM_CAT_ENUM_
#define HPM_K_NODE_COUNT (HPM_K_COUNT - HPM_K_CORE_COUNT)

struct hpm_cat_kind_info {
    const char *name;        /* e.g. "L1D_MISSES" */
    const char *description;
    uint8_t unit;            /* enum hpm_cat_unit */
    uint8_t node;            /* 1 = node-wide, 0 = per core */
    uint16_t needs;          /* enum hpm_cat_need bits */
};

/* NULL when kind >= HPM_K_COUNT. */
const struct hpm_cat_kind_info *hpm_catalog_kind(unsigned kind);
const char *hpm_catalog_unit_name(unsigned unit); /* "core", "fpu", ... */

/* Codes. hpm_catalog_code returns -1 for a bad kind or core (core is ignored
 * for node kinds). hpm_catalog_decode returns 0 and fills kind and core
 * (core = -1 for node events) or -1 for a code no event uses. */
int hpm_catalog_code(unsigned kind, int core);
int hpm_catalog_decode(unsigned code, unsigned *kind, int *core);

/* Features a machine provides (enum hpm_cat_need bits, all of them when the
 * hierarchy has the level), and whether an event can be counted there. */
struct hpm_hier_params;
unsigned hpm_catalog_features(const struct hpm_hier_params *hier);
int hpm_catalog_provided(unsigned kind, int core, unsigned cores, unsigned features);

/* Write "PU<n>_<KIND>" or "<NODE_KIND>" into buf (HPM_CAT_NAME_MAX bytes
 * suffice). Returns the length, or -1 for an unused code. */
int hpm_catalog_code_name(unsigned code, char *buf, size_t len);

enum hpm_cat_error {
    HPM_CAT_EUNKNOWN = -1,     /* no such event name */
    HPM_CAT_ECORE = -2,        /* PU<n> with n >= the machine's cores */
    HPM_CAT_ENOTPROVIDED = -3, /* the machine model cannot provide it */
    HPM_CAT_ESPACE = -4,       /* codes[] too small */
};
const char *hpm_catalog_strerror(int err);

/* Resolve a name: PU<n>_<KIND> gives one code, <KIND> the kind on cores
 * 0..cores-1, <NODE_KIND> one code. Writes the codes to codes[max] in core
 * order and returns how many, or a negative enum hpm_cat_error. *kind_out
 * (may be NULL) receives the kind. */
int hpm_catalog_lookup(const char *name, unsigned cores, unsigned features, int *codes,
                       unsigned max, unsigned *kind_out);

#ifdef __cplusplus
}
#endif
#endif
