/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_presets.c - PAPI's preset events as data.
 *
 * Two tables:
 *   papi_preset_descs  every preset PAPI 7 defines: name, descriptions,
 *                      categories (index = PAPI_xxx_idx).
 *   papi_preset_defs   how hpm counts a preset: native event names, how they
 *                      combine, optional natives that must merely exist.
 *                      A preset may have several rows; at PAPI_library_init
 *                      the first row whose natives all resolve to one usable
 *                      component wins. A preset with no winning row is not
 *                      available here (PAPI_query_event: PAPI_ENOEVNT).
 *                      Since an unresolved row is skipped silently, a test
 *                      checks that every name of every row exists
 *                      (tests/papi_api/test_papi_presets.c).
 *
 * The mapping is meant to be honest: a preset appears only where hpm has
 * an event with PAPI's meaning (or a derivation of such events); where the
 * match is approximate the row's note says how (PAPI_get_event_info's
 * note field). Unmapped presets (snoops, idle units, issue widths, ...)
 * have no counterpart in hpm's models.
 */
#include <stdlib.h>
#include <string.h>

#include "formula.h"
#include "papi_internal.h"

#define MSC PAPI_PRESET_BIT_MSC
#define INS PAPI_PRESET_BIT_INS
#define IDL PAPI_PRESET_BIT_IDL
#define BR PAPI_PRESET_BIT_BR
#define CND PAPI_PRESET_BIT_CND
#define MEM PAPI_PRESET_BIT_MEM
#define CACH PAPI_PRESET_BIT_CACH
#define L1 PAPI_PRESET_BIT_L1
#define L2 PAPI_PRESET_BIT_L2
#define L3 PAPI_PRESET_BIT_L3
#define TLB PAPI_PRESET_BIT_TLB
#define FP PAPI_PRESET_BIT_FP

#define D(name, s, l, cat) [PAPI_##name##_idx] = { "PAPI_" #name, s, l, cat }

const struct papi_preset_desc papi_preset_descs[PAPI_END_idx] = {
    D(L1_DCM, "L1D cache misses", "Level 1 data cache misses", CACH | L1),
    D(L1_ICM, "L1I cache misses", "Level 1 instruction cache misses", CACH | L1),
    D(L2_DCM, "L2D cache misses", "Level 2 data cache misses", CACH | L2),
    D(L2_ICM, "L2I cache misses", "Level 2 instruction cache misses", CACH | L2),
    D(L3_DCM, "L3D cache misses", "Level 3 data cache misses", CACH | L3),
    D(L3_ICM, "L3I cache misses", "Level 3 instruction cache misses", CACH | L3),
    D(L1_TCM, "L1 cache misses", "Level 1 cache misses (instruction and data)", CACH | L1),
    D(L2_TCM, "L2 cache misses", "Level 2 cache misses (instruction and data)", CACH | L2),
    D(L3_TCM, "L3 cache misses", "Level 3 cache misses (instruction and data)", CACH | L3),
    D(CA_SNP, "Snoop Requests", "Requests for a snoop", CACH),
    D(CA_SHR, "Ex Acces shared CL", "Requests for exclusive access to a shared cache line", CACH),
    D(CA_CLN, "Ex Access clean CL", "Requests for exclusive access to a clean cache line", CACH),
    D(CA_INV, "Cache ln invalid", "Requests for cache line invalidation", CACH),
    D(CA_ITV, "Cache ln intervene", "Requests for cache line intervention", CACH),
    D(L3_LDM, "L3 load misses", "Level 3 load misses", CACH | L3),
    D(L3_STM, "L3 store misses", "Level 3 store misses", CACH | L3),
    D(BRU_IDL, "Branch idle cycles", "Cycles the branch units are idle", IDL),
    D(FXU_IDL, "IU idle cycles", "Cycles the integer units are idle", IDL),
    D(FPU_IDL, "FPU idle cycles", "Cycles the floating-point units are idle", IDL),
    D(LSU_IDL, "L/SU idle cycles", "Cycles the load/store units are idle", IDL),
    D(TLB_DM, "Data TLB misses", "Data translation lookaside buffer misses", TLB),
    D(TLB_IM, "Instr TLB misses", "Instruction translation lookaside buffer misses", TLB),
    D(TLB_TL, "Total TLB misses", "Translation lookaside buffer misses (instruction and data)", TLB),
    D(L1_LDM, "L1 load misses", "Level 1 load misses", CACH | L1),
    D(L1_STM, "L1 store misses", "Level 1 store misses", CACH | L1),
    D(L2_LDM, "L2 load misses", "Level 2 load misses", CACH | L2),
    D(L2_STM, "L2 store misses", "Level 2 store misses", CACH | L2),
    D(BTAC_M, "Br targt addr miss", "Branch target address cache misses", BR),
    D(PRF_DM, "Data prefetch miss", "Data prefetch cache misses", CACH),
    D(L3_DCH, "L3D cache hits", "Level 3 data cache hits", CACH | L3),
    D(TLB_SD, "TLB shootdowns", "Translation lookaside buffer shootdowns", TLB),
    D(CSR_FAL, "Failed store cond", "Failed store conditional instructions", INS),
    D(CSR_SUC, "Good store cond", "Successful store conditional instructions", INS),
    D(CSR_TOT, "Total store cond", "Store conditional instructions", INS),
    D(MEM_SCY, "Cyc Stalled Mem", "Cycles stalled waiting for memory accesses", MEM),
    D(MEM_RCY, "Cyc Stalled Mem Rd", "Cycles stalled waiting for memory reads", MEM),
    D(MEM_WCY, "Cyc Stalled Mem Wr", "Cycles stalled waiting for memory writes", MEM),
    D(STL_ICY, "No instr issue", "Cycles with no instruction issue", IDL),
    D(FUL_ICY, "Max instr issue", "Cycles with maximum instruction issue", IDL),
    D(STL_CCY, "No instr done", "Cycles with no instructions completed", IDL),
    D(FUL_CCY, "Max instr done", "Cycles with maximum instructions completed", IDL),
    D(HW_INT, "Hdw interrupts", "Hardware interrupts", MSC),
    D(BR_UCN, "Uncond branch", "Unconditional branch instructions", BR),
    D(BR_CN, "Cond branch", "Conditional branch instructions", BR | CND),
    D(BR_TKN, "Cond branch taken", "Conditional branch instructions taken", BR | CND),
    D(BR_NTK, "Cond br not taken", "Conditional branch instructions not taken", BR | CND),
    D(BR_MSP, "Cond br mspredictd", "Conditional branch instructions mispredicted", BR | CND),
    D(BR_PRC, "Cond br predicted", "Conditional branch instructions correctly predicted", BR | CND),
    D(FMA_INS, "FMAs completed", "FMA instructions completed", INS | FP),
    D(TOT_IIS, "Instr issued", "Instructions issued", INS),
    D(TOT_INS, "Instr completed", "Instructions completed", INS),
    D(INT_INS, "Int instructions", "Integer instructions", INS),
    D(FP_INS, "FP instructions", "Floating point instructions", INS | FP),
    D(LD_INS, "Loads", "Load instructions", INS | MEM),
    D(SR_INS, "Stores", "Store instructions", INS | MEM),
    D(BR_INS, "Branches", "Branch instructions", INS | BR),
    D(VEC_INS, "Vector/SIMD instr", "Vector/SIMD instructions (could include integer)", INS),
    D(RES_STL, "Stalled res cycles", "Cycles stalled on any resource", IDL),
    D(FP_STAL, "Stalled FPU cycles", "Cycles the FP units are stalled", IDL | FP),
    D(TOT_CYC, "Total cycles", "Total cycles", MSC),
    D(LST_INS, "L/S completed", "Load/store instructions completed", INS | MEM),
    D(SYC_INS, "Syncs completed", "Synchronization instructions completed", INS),
    D(L1_DCH, "L1D cache hits", "Level 1 data cache hits", CACH | L1),
    D(L2_DCH, "L2D cache hits", "Level 2 data cache hits", CACH | L2),
    D(L1_DCA, "L1D cache accesses", "Level 1 data cache accesses", CACH | L1),
    D(L2_DCA, "L2D cache accesses", "Level 2 data cache accesses", CACH | L2),
    D(L3_DCA, "L3D cache accesses", "Level 3 data cache accesses", CACH | L3),
    D(L1_DCR, "L1D cache reads", "Level 1 data cache reads", CACH | L1),
    D(L2_DCR, "L2D cache reads", "Level 2 data cache reads", CACH | L2),
    D(L3_DCR, "L3D cache reads", "Level 3 data cache reads", CACH | L3),
    D(L1_DCW, "L1D cache writes", "Level 1 data cache writes", CACH | L1),
    D(L2_DCW, "L2D cache writes", "Level 2 data cache writes", CACH | L2),
    D(L3_DCW, "L3D cache writes", "Level 3 data cache writes", CACH | L3),
    D(L1_ICH, "L1I cache hits", "Level 1 instruction cache hits", CACH | L1),
    D(L2_ICH, "L2I cache hits", "Level 2 instruction cache hits", CACH | L2),
    D(L3_ICH, "L3I cache hits", "Level 3 instruction cache hits", CACH | L3),
    D(L1_ICA, "L1I cache accesses", "Level 1 instruction cache accesses", CACH | L1),
    D(L2_ICA, "L2I cache accesses", "Level 2 instruction cache accesses", CACH | L2),
    D(L3_ICA, "L3I cache accesses", "Level 3 instruction cache accesses", CACH | L3),
    D(L1_ICR, "L1I cache reads", "Level 1 instruction cache reads", CACH | L1),
    D(L2_ICR, "L2I cache reads", "Level 2 instruction cache reads", CACH | L2),
    D(L3_ICR, "L3I cache reads", "Level 3 instruction cache reads", CACH | L3),
    D(L1_ICW, "L1I cache writes", "Level 1 instruction cache writes", CACH | L1),
    D(L2_ICW, "L2I cache writes", "Level 2 instruction cache writes", CACH | L2),
    D(L3_ICW, "L3I cache writes", "Level 3 instruction cache writes", CACH | L3),
    D(L1_TCH, "L1 cache hits", "Level 1 total cache hits", CACH | L1),
    D(L2_TCH, "L2 cache hits", "Level 2 total cache hits", CACH | L2),
    D(L3_TCH, "L3 cache hits", "Level 3 total cache hits", CACH | L3),
    D(L1_TCA, "L1 cache accesses", "Level 1 total cache accesses", CACH | L1),
    D(L2_TCA, "L2 cache accesses", "Level 2 total cache accesses", CACH | L2),
    D(L3_TCA, "L3 cache accesses", "Level 3 total cache accesses", CACH | L3),
    D(L1_TCR, "L1 cache reads", "Level 1 total cache reads", CACH | L1),
    D(L2_TCR, "L2 cache reads", "Level 2 total cache reads", CACH | L2),
    D(L3_TCR, "L3 cache reads", "Level 3 total cache reads", CACH | L3),
    D(L1_TCW, "L1 cache writes", "Level 1 total cache writes", CACH | L1),
    D(L2_TCW, "L2 cache writes", "Level 2 total cache writes", CACH | L2),
    D(L3_TCW, "L3 cache writes", "Level 3 total cache writes", CACH | L3),
    D(FML_INS, "FPU multiply", "Floating point multiply instructions", FP),
    D(FAD_INS, "FPU add", "Floating point add instructions", FP),
    D(FDV_INS, "FPU divide", "Floating point divide instructions", FP),
    D(FSQ_INS, "FPU square root", "Floating point square root instructions", FP),
    D(FNV_INS, "FPU inverse", "Floating point inverse instructions", FP),
    D(FP_OPS, "FP operations", "Floating point operations", FP),
    D(SP_OPS, "SP operations", "Floating point operations; single precision, vector lanes counted", FP),
    D(DP_OPS, "DP operations", "Floating point operations; double precision, vector lanes counted", FP),
    D(VEC_SP, "SP Vector/SIMD instr", "Single precision vector/SIMD operations", INS | FP),
    D(VEC_DP, "DP Vector/SIMD instr", "Double precision vector/SIMD operations", INS | FP),
    D(REF_CYC, "Reference cycles", "Reference clock cycles", MSC),
};

/* ------------------------------------------------------------ definitions */

#define ROW(p, kind, nat, pf, need, note) { PAPI_##p##_idx, kind, nat, pf, need, note }
#define ONE(p, nat) ROW(p, NOT_DERIVED, nat, NULL, NULL, NULL)
#define ONE_N(p, nat, note) ROW(p, NOT_DERIVED, nat, NULL, NULL, note)
#define ADD(p, nat) ROW(p, DERIVED_ADD, nat, NULL, NULL, NULL)
#define SUB(p, nat) ROW(p, DERIVED_SUB, nat, NULL, NULL, NULL)
#define PFX(p, nat, pf) ROW(p, DERIVED_POSTFIX, nat, pf, NULL, NULL)

/* hpm's virtual PMU (component sim), then hardware events through
 * perf_event where a PMU exists (exact meanings only). */
const struct papi_preset_def papi_preset_defs[] = {
    /* --- instructions and cycles */
    ONE(TOT_INS, "sim::INSTRUCTIONS"),
    ONE(TOT_CYC, "sim::CYCLES"),
    ONE_N(REF_CYC, "sim::CYCLES", "the modeled core runs at a constant clock: reference cycles = core cycles"),
    ONE_N(TOT_IIS, "sim::INSTRUCTIONS", "the modeled core does not speculate: issued = completed"),
    ONE(LD_INS, "sim::LOADS"),
    ONE(SR_INS, "sim::STORES"),
    ADD(LST_INS, "sim::LOADS,sim::STORES"),

    /* --- branches */
    ONE(BR_INS, "sim::BRANCHES"),
    ONE(BR_CN, "sim::BR_COND"),
    ONE(BR_TKN, "sim::BR_COND_TAKEN"),
    ONE(BR_NTK, "sim::BR_COND_NOT_TAKEN"),
    ONE(BR_MSP, "sim::BR_COND_MISPREDICTS"),
    SUB(BR_PRC, "sim::BR_COND,sim::BR_COND_MISPREDICTS"),
    SUB(BR_UCN, "sim::BRANCHES,sim::BR_COND"),
    ONE_N(BTAC_M, "sim::BR_INDIRECT_MISPREDICTS", "branch target buffer misses or wrong targets of indirect branches"),

    /* --- floating point: FP_OPS counts operations (FMA = 2), FP_INS instructions */
    ONE(FP_INS, "sim::FP_INSTRUCTIONS"),
    ONE(FP_OPS, "sim::FP_OPS"),
    ADD(SP_OPS, "sim::FP_SP_SCALAR,sim::FP_SP_128,sim::FP_SP_256"),
    ADD(DP_OPS, "sim::FP_DP_SCALAR,sim::FP_DP_128,sim::FP_DP_256"),
    ROW(VEC_SP, DERIVED_ADD, "sim::FP_SP_128,sim::FP_SP_256", NULL, NULL,
        "vector single-precision operations (lanes), as PAPI counts them on x86"),
    ROW(VEC_DP, DERIVED_ADD, "sim::FP_DP_128,sim::FP_DP_256", NULL, NULL,
        "vector double-precision operations (lanes), as PAPI counts them on x86"),
    ONE_N(FMA_INS, "sim::FP_FMA", "counts FMA lanes: a vector FMA counts once per element"),
    ONE_N(FDV_INS, "sim::FP_DIV", "counts division lanes: a vector divide counts once per element"),
    ONE_N(FSQ_INS, "sim::FP_SQRT", "counts square-root lanes: a vector square root counts once per element"),

    /* --- L1 */
    ONE(L1_DCM, "sim::L1D_MISSES"),
    ONE(L1_ICM, "sim::L1I_MISSES"),
    ADD(L1_TCM, "sim::L1I_MISSES,sim::L1D_MISSES"),
    ONE(L1_LDM, "sim::L1D_READ_MISSES"),
    ONE(L1_STM, "sim::L1D_WRITE_MISSES"),
    ADD(L1_DCA, "sim::LOADS,sim::STORES"),
    ONE(L1_DCR, "sim::LOADS"),
    ONE(L1_DCW, "sim::STORES"),
    PFX(L1_DCH, "sim::LOADS,sim::STORES,sim::L1D_MISSES", "N0|N1|+|N2|-|"),
    ONE(L1_ICA, "sim::L1I_ACCESSES"),
    ONE(L1_ICR, "sim::L1I_ACCESSES"),
    SUB(L1_ICH, "sim::L1I_ACCESSES,sim::L1I_MISSES"),
    ADD(L1_TCA, "sim::L1I_ACCESSES,sim::LOADS,sim::STORES"),
    PFX(L1_TCH, "sim::L1I_ACCESSES,sim::LOADS,sim::STORES,sim::L1I_MISSES,sim::L1D_MISSES",
        "N0|N1|+|N2|+|N3|-|N4|-|"),

    /* --- L2 (unified, reached by L1 misses: an L1D miss is an L2 data access) */
    ONE(L2_TCA, "sim::L2_ACCESSES"),
    ONE(L2_TCH, "sim::L2_HITS"),
    ONE(L2_TCM, "sim::L2_MISSES"),
    ROW(L2_DCA, NOT_DERIVED, "sim::L1D_MISSES", NULL, "sim::L2_ACCESSES", NULL),
    ROW(L2_DCR, NOT_DERIVED, "sim::L1D_READ_MISSES", NULL, "sim::L2_ACCESSES", NULL),
    ROW(L2_DCW, NOT_DERIVED, "sim::L1D_WRITE_MISSES", NULL, "sim::L2_ACCESSES",
        "store misses of the L1 fetch their line from the L2 (write-allocate)"),
    ROW(L2_ICA, NOT_DERIVED, "sim::L1I_MISSES", NULL, "sim::L2_ACCESSES", NULL),
    ROW(L2_ICR, NOT_DERIVED, "sim::L1I_MISSES", NULL, "sim::L2_ACCESSES", NULL),
    ROW(L2_TCR, DERIVED_ADD, "sim::L1I_MISSES,sim::L1D_READ_MISSES", NULL, "sim::L2_ACCESSES", NULL),
    ROW(L2_TCW, NOT_DERIVED, "sim::L1D_WRITE_MISSES", NULL, "sim::L2_ACCESSES", NULL),

    /* --- L3 (per core: this core's requests served by the L3 or by memory) */
    ROW(L3_TCM, NOT_DERIVED, "sim::MEM_ACCESSES", NULL, "sim::L3_HITS", NULL),
    ONE(L3_TCH, "sim::L3_HITS"),
    ADD(L3_TCA, "sim::L3_HITS,sim::MEM_ACCESSES"),

    /* --- TLB */
    ONE(TLB_DM, "sim::DTLB_MISSES"),
    ONE(TLB_IM, "sim::ITLB_MISSES"),
    ADD(TLB_TL, "sim::ITLB_MISSES,sim::DTLB_MISSES"),

    /* --- stalls (timing model) */
    ONE(MEM_SCY, "sim::STALL_MEM_CYCLES"),
    ADD(RES_STL, "sim::STALL_MEM_CYCLES,sim::STALL_TLB_CYCLES,sim::STALL_BRANCH_CYCLES"),

    /* --- a hardware PMU through perf_event, where there is one */
    ONE(TOT_INS, "perf::INSTRUCTIONS"),
    ONE(TOT_CYC, "perf::CPU-CYCLES"),
    ONE(REF_CYC, "perf::REF-CYCLES"),
    ONE(BR_INS, "perf::BRANCH-INSTRUCTIONS"),
    ONE(L1_ICM, "perf::L1-ICACHE-LOAD-MISSES"),
    ONE(L1_LDM, "perf::L1-DCACHE-LOAD-MISSES"),
    ONE(TLB_IM, "perf::ITLB-LOAD-MISSES"),
};

const size_t papi_preset_ndefs = sizeof papi_preset_defs / sizeof papi_preset_defs[0];

struct papi_preset papi_presets[PAPI_END_idx];

/* Split a comma list into resolved hpm events; -1 when any is missing or
 * when they span components. */
static int resolve_list(const char *list, hpm_event_t *out, int max, int *cidx)
{
    int n = 0;
    const char *p = list;
    while (p && *p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char name[HPM_NAME_MAX];
        if (len == 0 || len >= sizeof name || n == max)
            return -1;
        memcpy(name, p, len);
        name[len] = '\0';
        hpm_event_t e;
        if (hpm_event_find(name, &e) < 0)
            return -1;
        int c = HPM_EVENT_COMPONENT(e);
        if (!papi_component_usable(c) || (*cidx >= 0 && c != *cidx))
            return -1;
        *cidx = c;
        out[n++] = e;
        p = comma ? comma + 1 : NULL;
    }
    return n;
}

void papi_presets_resolve(void)
{
    memset(papi_presets, 0, sizeof papi_presets);
    for (size_t r = 0; r < papi_preset_ndefs; r++) {
        const struct papi_preset_def *d = &papi_preset_defs[r];
        struct papi_preset *p = &papi_presets[d->idx];
        if (p->available)
            continue; /* an earlier row won */
        int cidx = -1;
        hpm_event_t need[PAPI_MAX_INFO_TERMS];
        int n = resolve_list(d->natives, p->term, PAPI_MAX_INFO_TERMS, &cidx);
        if (n <= 0)
            continue;
        if (d->needs && resolve_list(d->needs, need, PAPI_MAX_INFO_TERMS, &cidx) <= 0)
            continue;
        p->available = 1;
        p->cidx = cidx;
        p->nterms = n;
        p->derived = d->derived;
        p->postfix = d->postfix;
        p->note = d->note;
    }
}

int papi_preset_count(int cidx)
{
    int n = 0;
    for (int i = 0; i < PAPI_END_idx; i++)
        if (papi_presets[i].available && papi_presets[i].cidx == cidx)
            n++;
    return n;
}

const char *const papi_derived_names[] = {
    [NOT_DERIVED] = "NOT_DERIVED",
    [DERIVED_ADD] = "DERIVED_ADD",
    [DERIVED_SUB] = "DERIVED_SUB",
    [DERIVED_POSTFIX] = "DERIVED_POSTFIX",
};

/* DERIVED_POSTFIX programs ("N0|N1|-|") are compiled by hpm's one formula
 * engine (src/formula) when their event is added to a set, and evaluated on
 * every read with PAPI's integer semantics: integer division, and x / 0 = 0
 * rather than a trap (a count of zero cycles is a possible read). A program
 * that does not compile gives 0. NULL: out of memory. */
struct hpm_formula *papi_postfix_compile(const char *postfix)
{
    struct hpm_formula *f = malloc(sizeof *f);
    if (f && hpm_formula_postfix(f, postfix ? postfix : "", NULL, 0) != 0)
        f->n = 0; /* the empty program: every read gives 0 */
    return f;
}

static long long eval_postfix(const struct hpm_formula *f, const long long *terms, int n)
{
    int64_t t[PAPI_MAX_INFO_TERMS];
    int i;
    if (!f || f->n == 0)
        return 0;
    if (n < 0)
        n = 0;
    if (n > PAPI_MAX_INFO_TERMS)
        n = PAPI_MAX_INFO_TERMS;
    for (i = 0; i < n; i++)
        t[i] = terms[i];
    return hpm_formula_eval_int(f, t, (unsigned)n);
}

long long papi_derive(enum papi_derived kind, const struct hpm_formula *formula,
                      const long long *terms, int n)
{
    long long v = n ? terms[0] : 0;
    switch (kind) {
    case NOT_DERIVED:
        break;
    case DERIVED_ADD:
        for (int i = 1; i < n; i++)
            v += terms[i];
        break;
    case DERIVED_SUB:
        for (int i = 1; i < n; i++)
            v -= terms[i];
        break;
    case DERIVED_POSTFIX:
        v = eval_postfix(formula, terms, n);
        break;
    }
    return v;
}

int papi_derive_linear(enum papi_derived kind, const struct hpm_formula *formula, int n,
                       int64_t *coef, int64_t *constant)
{
    if (n < 1 || n > PAPI_MAX_INFO_TERMS)
        return 0;
    if (kind == DERIVED_POSTFIX)
        return formula && hpm_formula_linear_int(formula, (unsigned)n, coef, constant) == 0;
    /* the first term, then each other added (ADD) or subtracted (SUB) */
    *constant = 0;
    coef[0] = 1;
    for (int k = 1; k < n; k++)
        coef[k] = kind == DERIVED_SUB ? -1 : 1;
    return kind != NOT_DERIVED || n == 1;
}
