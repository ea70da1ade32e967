/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpmu_events.h - the event list of the hpm virtual PMU (Valgrind tool "hpm").
 *
 * This header is shared by the tool (freestanding, built against Valgrind's
 * tool API) and by ordinary programs (through hpm_client.h). It therefore
 * uses no type and includes no header: only an X-macro list and an enum.
 *
 * Every thread owns one counter block: an array of VPMU_EV_COUNT 64-bit
 * counters indexed by enum vpmu_event. The index values are ABI: the
 * HPM_VPMU_READ client request fills a caller's uint64_t array in this order.
 * New events are appended before VPMU_EV_COUNT, never inserted.
 *
 * What each event counts (see vpmu_instrument.c for the classification rules):
 *
 *   instructions       guest instructions executed (one per VEX Ist_IMark)
 *   loads, load_bytes  memory reads and their bytes (Load, LoadG, CAS, LL,
 *                      Dirty helpers with a read/modify memory effect)
 *   stores, store_bytes memory writes and their bytes (Store, StoreG, CAS, SC,
 *                      Dirty helpers with a write/modify memory effect)
 *   fp_instructions    instructions whose IR holds at least one counted FP op
 *   fp_ops             floating-point operations (flops), all precisions and
 *                      widths: the sum of the six fp_{sp,dp}_* buckets
 *   fp_sp_scalar ...   flops by precision (sp = F32, dp = F64) and vector width
 *   fp_dp_256          (scalar, 128-bit, 256-bit). An FMA counts 2 flops per
 *                      lane. AVX-512 does not exist in amd64 VEX.
 *   fp_fma             FMA lanes (each also counted as 2 flops above)
 *   fp_div, fp_sqrt    division / square-root lanes (also counted above)
 *   int_addsub         integer add/sub IR ops (scalar; includes the address
 *                      arithmetic that VEX synthesises, e.g. for push/pop)
 *   int_mul, int_div   integer multiply / divide IR ops (scalar)
 *   int_logic          integer and/or/xor/not IR ops (scalar)
 *   branches           br_cond + br_direct + br_indirect + br_call + br_ret
 *   br_cond            conditional branches (Jcc, LOOPcc, JrCXZ) executed
 *   br_cond_taken      ... of which taken
 *   br_cond_not_taken  ... of which not taken
 *   br_direct          unconditional direct jumps (JMP rel)
 *   br_indirect        indirect jumps (JMP r/m), calls and returns excluded
 *   br_call            calls, direct and indirect
 *   br_call_indirect   ... of which indirect
 *   br_ret             returns
 *   syscalls           system calls (syscall, int $0x80, sysenter)
 */
#ifndef HPM_VPMU_EVENTS_H
#define HPM_VPMU_EVENTS_H

/* X(ENUM_SUFFIX, "output name") */
#define VPMU_EVENT_LIST(X)                        \
    X(INSTRUCTIONS, "instructions")               \
    X(LOADS, "loads")                             \
    X(LOAD_BYTES, "load_bytes")                   \
    X(STORES, "stores")                           \
    X(STORE_BYTES, "store_bytes")                 \
    X(FP_INSTRUCTIONS, "fp_instructions")         \
    X(FP_OPS, "fp_ops")                           \
    X(FP_SP_SCALAR, "fp_sp_scalar")               \
    X(FP_SP_128, "fp_sp_128")                     \
    X(FP_SP_256, "fp_sp_256")                     \
    X(FP_DP_SCALAR, "fp_dp_scalar")               \
    X(FP_DP_128, "fp_dp_128")                     \
    X(FP_DP_256, "fp_dp_256")                     \
    X(FP_FMA, "fp_fma")                           \
    X(FP_DIV, "fp_div")                           \
    X(FP_SQRT, "fp_sqrt")                         \
    X(INT_ADDSUB, "int_addsub")                   \
    X(INT_MUL, "int_mul")                         \
    X(INT_DIV, "int_div")                         \
    X(INT_LOGIC, "int_logic")                     \
    X(BRANCHES, "branches")                       \
    X(BR_COND, "br_cond")                         \
    X(BR_COND_TAKEN, "br_cond_taken")             \
    X(BR_COND_NOT_TAKEN, "br_cond_not_taken")     \
    X(BR_DIRECT, "br_direct")                     \
    X(BR_INDIRECT, "br_indirect")                 \
    X(BR_CALL, "br_call")                         \
    X(BR_CALL_INDIRECT, "br_call_indirect")       \
    X(BR_RET, "br_ret")                           \
    X(SYSCALLS, "syscalls")

#define VPMU_EV_ENUM_(e, s) VPMU_EV_##e,
enum vpmu_event {
    VPMU_EVENT_LIST(VPMU_EV_ENUM_)
    VPMU_EV_COUNT
};
#undef VPMU_EV_ENUM_

/* Output names, indexed by enum vpmu_event. Define VPMU_EVENT_NAMES_DEFINE in
 * exactly one translation unit that wants the table, or use the macro
 * VPMU_EVENT_NAME_INIT to build your own. */
#define VPMU_EV_NAME_(e, s) s,
#define VPMU_EVENT_NAME_INIT { VPMU_EVENT_LIST(VPMU_EV_NAME_) }

#endif /* HPM_VPMU_EVENTS_H */
