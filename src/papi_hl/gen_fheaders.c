/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen_fheaders.c - writes include/papi/fpapi.h and include/papi/f90papi.h,
 * the Fortran views of papi.h's constants, from the values papi.h itself
 * gives them, so that the two languages cannot disagree.
 *
 *   papi_gen_fheaders fpapi   > include/papi/fpapi.h    (cpp #defines, for .F)
 *   papi_gen_fheaders f90papi > include/papi/f90papi.h  (INTEGER, PARAMETER)
 *
 * The names are those PAPI's Fortran headers have always offered; programs
 * rely on that set (an extra name could clash with a variable of theirs,
 * a missing one would be read as an implicit variable). The test
 * papi_hl.fheaders regenerates both files and compares them with the
 * checked-in copies.
 */
#include "papi.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

struct fconst {
    const char *name;
    long long value;
};

#define C(n) {#n, (long long)(int)(n)}

static const struct fconst general[] = {
    C(PAPI_NULL), C(PAPI_VER_CURRENT), C(PAPI_VERSION), C(PAPI_MAX_PRESET_EVENTS),
    C(PAPI_NOT_INITED), C(PAPI_LOW_LEVEL_INITED), C(PAPI_HIGH_LEVEL_INITED),
    C(PAPI_THREAD_LEVEL_INITED),
    /* domains */
    C(PAPI_DOM_USER), C(PAPI_DOM_KERNEL), C(PAPI_DOM_OTHER), C(PAPI_DOM_SUPERVISOR),
    C(PAPI_DOM_ALL), C(PAPI_DOM_MIN), C(PAPI_DOM_MAX), C(PAPI_DOM_HWSPEC),
    /* event-set states */
    C(PAPI_STOPPED), C(PAPI_RUNNING), C(PAPI_PAUSED), C(PAPI_NOT_INIT), C(PAPI_OVERFLOWING),
    C(PAPI_PROFILING), C(PAPI_MULTIPLEXING), C(PAPI_ATTACHED), C(PAPI_CPU_ATTACHED),
    /* error reporting, sizes */
    C(PAPI_QUIET), C(PAPI_VERB_ECONT), C(PAPI_VERB_ESTOP), C(PAPI_MIN_STR_LEN),
    C(PAPI_HUGE_STR_LEN), C(PAPI_MAX_STR_LEN), C(PAPI_NUM_ERRORS),
    /* multiplexing, options */
    C(PAPI_MULTIPLEX_DEFAULT), C(PAPI_MULTIPLEX_FORCE_SW), C(PAPI_DEBUG), C(PAPI_MULTIPLEX),
    C(PAPI_DEFDOM), C(PAPI_DOMAIN), C(PAPI_DEFGRN), C(PAPI_GRANUL), C(PAPI_DEF_MPX_NS),
    C(PAPI_MAX_MPX_CTRS), C(PAPI_PROFIL), C(PAPI_PRELOAD), C(PAPI_CLOCKRATE),
    C(PAPI_MAX_HWCTRS), C(PAPI_HWINFO), C(PAPI_EXEINFO), C(PAPI_MAX_CPUS), C(PAPI_ATTACH),
    C(PAPI_SHLIBINFO), C(PAPI_LIB_VERSION), C(PAPI_COMPONENTINFO), C(PAPI_DETACH),
    /* granularities */
    C(PAPI_GRN_THR), C(PAPI_GRN_MIN), C(PAPI_GRN_PROC), C(PAPI_GRN_PROCG), C(PAPI_GRN_SYS),
    C(PAPI_GRN_SYS_CPU), C(PAPI_GRN_MAX), C(PAPI_DERIVED),
    /* profiling */
    C(PAPI_PROFIL_POSIX), C(PAPI_PROFIL_RANDOM), C(PAPI_PROFIL_WEIGHTED),
    C(PAPI_PROFIL_COMPRESS), C(PAPI_PROFIL_BUCKET_16), C(PAPI_PROFIL_BUCKET_32),
    C(PAPI_PROFIL_BUCKET_64),
    /* locks, thread storage, memory hierarchy */
    C(PAPI_USR1_LOCK), C(PAPI_USR2_LOCK), C(PAPI_LOCK_USR1), C(PAPI_LOCK_USR2),
    C(PAPI_LOCK_NUM), C(PAPI_MH_MAX_LEVELS), C(PAPI_USR1_TLS), C(PAPI_USR2_TLS),
    C(PAPI_TLS_USR1), C(PAPI_TLS_USR2), C(PAPI_TLS_HIGH_LEVEL), C(PAPI_TLS_NUM),
    /* device queries */
    C(PAPI_DEV_TYPE_ATTR__INT_PAPI_ID), C(PAPI_DEV_TYPE_ATTR__INT_VENDOR_ID),
    C(PAPI_DEV_TYPE_ATTR__CHAR_NAME), C(PAPI_DEV_TYPE_ATTR__INT_COUNT),
    C(PAPI_DEV_TYPE_ATTR__CHAR_STATUS), C(PAPI_DEV_TYPE_ENUM__FIRST),
    C(PAPI_DEV_TYPE_ENUM__CPU), C(PAPI_DEV_TYPE_ENUM__CUDA), C(PAPI_DEV_TYPE_ENUM__ROCM),
    C(PAPI_DEV_TYPE_ENUM__ALL), C(PAPI_DEV_TYPE_ID__CPU), C(PAPI_DEV_TYPE_ID__CUDA),
    C(PAPI_DEV_TYPE_ID__ROCM), C(PAPI_DEV_ATTR__CPU_CHAR_NAME),
    C(PAPI_DEV_ATTR__CPU_UINT_L1I_CACHE_SIZE), C(PAPI_DEV_ATTR__CPU_UINT_L1D_CACHE_SIZE),
    C(PAPI_DEV_ATTR__CPU_UINT_L2U_CACHE_SIZE), C(PAPI_DEV_ATTR__CPU_UINT_L3U_CACHE_SIZE),
    C(PAPI_DEV_ATTR__CPU_UINT_L1I_CACHE_LINE_SIZE),
    C(PAPI_DEV_ATTR__CPU_UINT_L1D_CACHE_LINE_SIZE),
    C(PAPI_DEV_ATTR__CPU_UINT_L2U_CACHE_LINE_SIZE),
    C(PAPI_DEV_ATTR__CPU_UINT_L3U_CACHE_LINE_SIZE),
    C(PAPI_DEV_ATTR__CPU_UINT_L1I_CACHE_LINE_COUNT),
    C(PAPI_DEV_ATTR__CPU_UINT_L1D_CACHE_LINE_COUNT),
    C(PAPI_DEV_ATTR__CPU_UINT_L2U_CACHE_LINE_COUNT),
    C(PAPI_DEV_ATTR__CPU_UINT_L3U_CACHE_LINE_COUNT),
    C(PAPI_DEV_ATTR__CPU_UINT_L1I_CACHE_ASSOC), C(PAPI_DEV_ATTR__CPU_UINT_L1D_CACHE_ASSOC),
    C(PAPI_DEV_ATTR__CPU_UINT_L2U_CACHE_ASSOC), C(PAPI_DEV_ATTR__CPU_UINT_L3U_CACHE_ASSOC),
    C(PAPI_DEV_ATTR__CPU_UINT_SOCKET_COUNT), C(PAPI_DEV_ATTR__CPU_UINT_NUMA_COUNT),
    C(PAPI_DEV_ATTR__CPU_UINT_CORE_COUNT), C(PAPI_DEV_ATTR__CPU_UINT_THREAD_COUNT),
    C(PAPI_DEV_ATTR__CPU_UINT_FAMILY), C(PAPI_DEV_ATTR__CPU_UINT_MODEL),
    C(PAPI_DEV_ATTR__CPU_UINT_STEPPING), C(PAPI_DEV_ATTR__CPU_UINT_NUMA_MEM_SIZE),
    C(PAPI_DEV_ATTR__CPU_UINT_THR_NUMA_AFFINITY), C(PAPI_DEV_ATTR__CPU_UINT_THR_PER_NUMA),
    C(PAPI_DEV_ATTR__CUDA_ULONG_UID), C(PAPI_DEV_ATTR__CUDA_CHAR_DEVICE_NAME),
    C(PAPI_DEV_ATTR__CUDA_UINT_WARP_SIZE), C(PAPI_DEV_ATTR__CUDA_UINT_SHM_PER_BLK),
    C(PAPI_DEV_ATTR__CUDA_UINT_SHM_PER_SM), C(PAPI_DEV_ATTR__CUDA_UINT_BLK_DIM_X),
    C(PAPI_DEV_ATTR__CUDA_UINT_BLK_DIM_Y), C(PAPI_DEV_ATTR__CUDA_UINT_BLK_DIM_Z),
    C(PAPI_DEV_ATTR__CUDA_UINT_GRD_DIM_X), C(PAPI_DEV_ATTR__CUDA_UINT_GRD_DIM_Y),
    C(PAPI_DEV_ATTR__CUDA_UINT_GRD_DIM_Z), C(PAPI_DEV_ATTR__CUDA_UINT_THR_PER_BLK),
    C(PAPI_DEV_ATTR__CUDA_UINT_SM_COUNT), C(PAPI_DEV_ATTR__CUDA_UINT_MULTI_KERNEL),
    C(PAPI_DEV_ATTR__CUDA_UINT_MAP_HOST_MEM), C(PAPI_DEV_ATTR__CUDA_UINT_MEMCPY_OVERLAP),
    C(PAPI_DEV_ATTR__CUDA_UINT_UNIFIED_ADDR), C(PAPI_DEV_ATTR__CUDA_UINT_MANAGED_MEM),
    C(PAPI_DEV_ATTR__CUDA_UINT_COMP_CAP_MAJOR), C(PAPI_DEV_ATTR__CUDA_UINT_COMP_CAP_MINOR),
    C(PAPI_DEV_ATTR__CUDA_UINT_BLK_PER_SM), C(PAPI_DEV_ATTR__ROCM_ULONG_UID),
    C(PAPI_DEV_ATTR__ROCM_CHAR_DEVICE_NAME), C(PAPI_DEV_ATTR__ROCM_UINT_WAVEFRONT_SIZE),
    C(PAPI_DEV_ATTR__ROCM_UINT_WORKGROUP_SIZE), C(PAPI_DEV_ATTR__ROCM_UINT_WAVE_PER_CU),
    C(PAPI_DEV_ATTR__ROCM_UINT_SHM_PER_WG), C(PAPI_DEV_ATTR__ROCM_UINT_WG_DIM_X),
    C(PAPI_DEV_ATTR__ROCM_UINT_WG_DIM_Y), C(PAPI_DEV_ATTR__ROCM_UINT_WG_DIM_Z),
    C(PAPI_DEV_ATTR__ROCM_UINT_GRD_DIM_X), C(PAPI_DEV_ATTR__ROCM_UINT_GRD_DIM_Y),
    C(PAPI_DEV_ATTR__ROCM_UINT_GRD_DIM_Z), C(PAPI_DEV_ATTR__ROCM_UINT_CU_COUNT),
    C(PAPI_DEV_ATTR__ROCM_UINT_SIMD_PER_CU), C(PAPI_DEV_ATTR__ROCM_UINT_COMP_CAP_MAJOR),
    C(PAPI_DEV_ATTR__ROCM_UINT_COMP_CAP_MINOR),
    /* indices into PAPIF_get_dmem_info's array */
    C(PAPIF_DMEM_VMSIZE), C(PAPIF_DMEM_RESIDENT), C(PAPIF_DMEM_HIGH_WATER),
    C(PAPIF_DMEM_SHARED), C(PAPIF_DMEM_TEXT), C(PAPIF_DMEM_LIBRARY), C(PAPIF_DMEM_HEAP),
    C(PAPIF_DMEM_LOCKED), C(PAPIF_DMEM_STACK), C(PAPIF_DMEM_PAGESIZE), C(PAPIF_DMEM_MAXVAL),
};

static const struct fconst status[] = {
    C(PAPI_OK), C(PAPI_EINVAL), C(PAPI_ENOMEM), C(PAPI_ESYS), C(PAPI_ECMP), C(PAPI_ECLOST),
    C(PAPI_EBUG), C(PAPI_ENOEVNT), C(PAPI_ECNFLCT), C(PAPI_ENOTRUN), C(PAPI_EISRUN),
    C(PAPI_ENOEVST), C(PAPI_ENOTPRESET), C(PAPI_ENOCNTR), C(PAPI_EMISC), C(PAPI_EPERM),
    C(PAPI_ENOINIT), C(PAPI_ENOCMP), C(PAPI_ENOSUPP), C(PAPI_ENOIMPL), C(PAPI_EBUF),
    C(PAPI_EINVAL_DOM), C(PAPI_EATTR), C(PAPI_ECOUNT), C(PAPI_ECOMBO), C(PAPI_ECMP_DISABLED),
    C(PAPI_EDELAY_INIT), C(PAPI_EMULPASS),
};

/* Every preset, in index order (checked against PAPI_END_idx below). */
static const struct fconst presets[] = {
    C(PAPI_L1_DCM), C(PAPI_L1_ICM), C(PAPI_L2_DCM), C(PAPI_L2_ICM), C(PAPI_L3_DCM),
    C(PAPI_L3_ICM), C(PAPI_L1_TCM), C(PAPI_L2_TCM), C(PAPI_L3_TCM), C(PAPI_CA_SNP),
    C(PAPI_CA_SHR), C(PAPI_CA_CLN), C(PAPI_CA_INV), C(PAPI_CA_ITV), C(PAPI_L3_LDM),
    C(PAPI_L3_STM), C(PAPI_BRU_IDL), C(PAPI_FXU_IDL), C(PAPI_FPU_IDL), C(PAPI_LSU_IDL),
    C(PAPI_TLB_DM), C(PAPI_TLB_IM), C(PAPI_TLB_TL), C(PAPI_L1_LDM), C(PAPI_L1_STM),
    C(PAPI_L2_LDM), C(PAPI_L2_STM), C(PAPI_BTAC_M), C(PAPI_PRF_DM), C(PAPI_L3_DCH),
    C(PAPI_TLB_SD), C(PAPI_CSR_FAL), C(PAPI_CSR_SUC), C(PAPI_CSR_TOT), C(PAPI_MEM_SCY),
    C(PAPI_MEM_RCY), C(PAPI_MEM_WCY), C(PAPI_STL_ICY), C(PAPI_FUL_ICY), C(PAPI_STL_CCY),
    C(PAPI_FUL_CCY), C(PAPI_HW_INT), C(PAPI_BR_UCN), C(PAPI_BR_CN), C(PAPI_BR_TKN),
    C(PAPI_BR_NTK), C(PAPI_BR_MSP), C(PAPI_BR_PRC), C(PAPI_FMA_INS), C(PAPI_TOT_IIS),
    C(PAPI_TOT_INS), C(PAPI_INT_INS), C(PAPI_FP_INS), C(PAPI_LD_INS), C(PAPI_SR_INS),
    C(PAPI_BR_INS), C(PAPI_VEC_INS), C(PAPI_RES_STL), C(PAPI_FP_STAL), C(PAPI_TOT_CYC),
    C(PAPI_LST_INS), C(PAPI_SYC_INS), C(PAPI_L1_DCH), C(PAPI_L2_DCH), C(PAPI_L1_DCA),
    C(PAPI_L2_DCA), C(PAPI_L3_DCA), C(PAPI_L1_DCR), C(PAPI_L2_DCR), C(PAPI_L3_DCR),
    C(PAPI_L1_DCW), C(PAPI_L2_DCW), C(PAPI_L3_DCW), C(PAPI_L1_ICH), C(PAPI_L2_ICH),
    C(PAPI_L3_ICH), C(PAPI_L1_ICA), C(PAPI_L2_ICA), C(PAPI_L3_ICA), C(PAPI_L1_ICR),
    C(PAPI_L2_ICR), C(PAPI_L3_ICR), C(PAPI_L1_ICW), C(PAPI_L2_ICW), C(PAPI_L3_ICW),
    C(PAPI_L1_TCH), C(PAPI_L2_TCH), C(PAPI_L3_TCH), C(PAPI_L1_TCA), C(PAPI_L2_TCA),
    C(PAPI_L3_TCA), C(PAPI_L1_TCR), C(PAPI_L2_TCR), C(PAPI_L3_TCR), C(PAPI_L1_TCW),
    C(PAPI_L2_TCW), C(PAPI_L3_TCW), C(PAPI_FML_INS), C(PAPI_FAD_INS), C(PAPI_FDV_INS),
    C(PAPI_FSQ_INS), C(PAPI_FNV_INS), C(PAPI_FP_OPS), C(PAPI_SP_OPS), C(PAPI_DP_OPS),
    C(PAPI_VEC_SP), C(PAPI_VEC_DP), C(PAPI_REF_CYC),
};

_Static_assert(sizeof presets / sizeof *presets == PAPI_END_idx,
               "the preset list must name every preset of papiStdEventDefs.h");

enum style { FIXED, FREE };

/* Fortran has no literal for INT_MIN (2147483648 overflows before the
 * minus applies), so that one value is written as an expression. */
static void value(char *buf, size_t n, long long v)
{
    if (v == INT_MIN)
        snprintf(buf, n, "((-2147483647) - 1)");
    else
        snprintf(buf, n, "%lld", v);
}

static void section(enum style st, const char *title, const struct fconst *c, size_t n)
{
    const char *cm = st == FIXED ? "C" : "!";

    printf("%s\n%s  %s\n%s\n\n", cm, cm, title, cm);
    for (size_t i = 0; i < n; i++) {
        char v[32];
        value(v, sizeof v, c[i].value);
        if (st == FIXED)
            printf("#define %-32s %s\n", c[i].name, v);
        else
            printf("      INTEGER, PARAMETER :: %-32s = %s\n", c[i].name, v);
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    enum style st;

    if (argc != 2 || (strcmp(argv[1], "fpapi") != 0 && strcmp(argv[1], "f90papi") != 0)) {
        fprintf(stderr, "usage: %s fpapi|f90papi\n", argv[0]);
        return 2;
    }
    st = strcmp(argv[1], "fpapi") == 0 ? FIXED : FREE;
    if (st == FIXED) {
        printf("C     fpapi.h - PAPI's constants for fixed-form Fortran sources that go\n"
               "C     through the C preprocessor (.F): #include \"fpapi.h\".\n"
               "C     hpm's libpapi (BSD-3-Clause). Generated from papi.h by\n"
               "C     src/papi_hl/gen_fheaders.c; edit that, not this.\n");
    } else {
        printf("!     f90papi.h - PAPI's constants as Fortran 90 named constants:\n"
               "!     include 'f90papi.h' in free-form sources.\n"
               "!     hpm's libpapi (BSD-3-Clause). Generated from papi.h by\n"
               "!     src/papi_hl/gen_fheaders.c; edit that, not this.\n");
    }
    printf("\n");
    section(st, "Library, options and flags", general, sizeof general / sizeof *general);
    section(st, "Status codes", status, sizeof status / sizeof *status);
    section(st, "Preset events", presets, sizeof presets / sizeof *presets);
    return 0;
}
