/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_instrument.c - VEX IR instrumentation of the hpm virtual PMU.
 *
 * Exactness. Every event is counted from the IR of the superblock (SB), so
 * the counts are exact functions of the executed code, with these rules:
 *
 * 1. Static counts are accumulated per SB segment at instrumentation time
 *    and added to the live counter block by inline IR ("flush"): before each
 *    side exit that leaves the SB after the current instruction retired, and
 *    at the end of the SB. Two pending sets are kept: "committed" (previous
 *    instructions) and "current" (the instruction being scanned). A side exit
 *    that abandons the current instruction (a fault: SIGSEGV on misaligned
 *    SSE access, CAS retry, ...) flushes the committed set only, so the
 *    abandoned instruction is counted only when it completes. A non-branch
 *    side exit to the next instruction (an emulation warning after fldcw,
 *    int3) leaves after the instruction retired: it flushes both sets.
 *    Known gap: a *host* fault inside a SB (e.g. a NULL load) unwinds out of
 *    the SB, losing the counts of the SB segment since its last flush (at
 *    most one SB, <= ~60 instructions, typically the faulting basic block).
 *
 * 2. instructions = number of Ist_IMark executed, except for REP-prefixed
 *    string instructions: VEX runs one SB per iteration (with an exit to the
 *    next instruction when done), so for them the instruction is counted once,
 *    when one of its exits to the fall-through address is taken. Their loads
 *    and stores are counted per iteration (as the hardware performs them).
 *
 * 3. Branches. VEX's guest chasing is disabled (guest_chase = False), so each
 *    control transfer ends a SB or is a side exit:
 *       instruction opcode            IR                       event
 *       Jcc, LOOPcc, JrCXZ            Ist_Exit, Ijk_Boring     br_cond (+taken)
 *       JMP rel8/rel32 (EB, E9)       SB end, Boring, const    br_direct
 *       JMP r/m and others            SB end, Boring, non-const br_indirect
 *       CALL (any)                    SB end, Ijk_Call         br_call
 *       CALL r/m                      ... next non-constant    br_call_indirect
 *       RET                           SB end, Ijk_Ret          br_ret
 *       SYSCALL, INT $0x80, SYSENTER  SB end, Ijk_Sys_*        syscalls
 *    The conditional exit may be the taken path (dst != fall-through) or, as
 *    VEX emits for "negated" condition codes, the not-taken path (dst ==
 *    fall-through). br_cond_taken is incremented inline by the (possibly
 *    negated) guard, widened to 64 bits (a profile's per instruction from
 *    its segments' counts, do_exit); br_cond_not_taken is derived as
 *    br_cond - br_cond_taken when the live block is folded. Other Boring side
 *    exits (REP loop control, LOCK CAS retry) are not branches.
 *
 * 4. Memory: one access per IR memory operation, with the IR access size:
 *       IR statement                    loads / bytes        stores / bytes
 *       WrTmp(Load ty)                  1 / sizeof(ty)       -
 *       Store(data)                     -                    1 / sizeof(data)
 *       LoadG (guarded)                 guard / sizeof(arg)  -
 *       StoreG (guarded)                -                    guard / sizeof
 *       CAS (single or double)          1 / n*sizeof(lo)     1 / n*sizeof(lo)
 *       LLSC load-linked / store-cond.  1 / sizeof           1 / sizeof
 *       Dirty mFx Read / Write / Modify  1 / mSize (R, M)     1 / mSize (W, M)
 *    (a locked RMW, e.g. LOCK ADD, is one load + one store; a vector access
 *    is one access of 16 or 32 bytes.) The models get each access by a call,
 *    but a load and a store of the same bytes in one instruction with only
 *    register and temporary writes between them (ADD to memory, INC, a
 *    CAS) are one call (vpmu_node_modify, at the load's place), as
 *    cachegrind makes its "modify" events.
 *
 * 5. Floating point, from the IR arithmetic ops, by table (fp_rules below).
 *    flops per op = lanes (x2 for FMA); bucket = precision x width.
 *    Counted: add, sub, mul, div, sqrt, min, max, reciprocal / rsqrt
 *    estimates, FMA. Not counted: compares, negation/abs (bit ops),
 *    conversions, rounding, moves, x87 transcendentals (fsin, fyl2x, ...).
 *    SSE scalar forms (Iop_Add64F0x2 etc.) are scalar. x87 arithmetic
 *    (AddF64 ...) counts as scalar double. VEX splits FMA instructions into
 *    one scalar Iop_MAddF32/F64 per lane, so the k MAdd/MSub ops of one
 *    instruction are counted as one FMA of width k*32 or k*64 bits.
 *    Instructions that VEX expresses with several ops (ADDSUBPD = add + sub
 *    over both lanes) are counted per op.
 *    fp_instructions counts instructions with at least one counted FP op.
 *
 * 6. Integer: scalar IR ops Add/Sub -> int_addsub, Mul/MullS/MullU -> int_mul,
 *    Div/DivMod -> int_div, And/Or/Xor/Not -> int_logic (8..64 bit). These
 *    include the address arithmetic VEX generates (PUSH = Sub64 on RSP, LEA,
 *    effective addresses with displacement), so they are IR-level counts.
 */
#include "pub_tool_basics.h"
#include "libvex_guest_offsets.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_machine.h"
#include "pub_tool_options.h"

#include "vpmu_events.h"
#include "vpmu_gate.h"
#include "vpmu_mpx.h"
#include "vpmu_node.h"
#include "vpmu_profile.h"
#include "vpmu_sample.h"
#include "vpmu_state.h"

/* ------------------------------------------------------------------------
 * Op classification tables
 * ---------------------------------------------------------------------- */

enum { OPF_FMA = 1, OPF_DIV = 2, OPF_SQRT = 4 };
enum { PREC_SP = 0, PREC_DP = 1 };

struct op_rule {
    IROp op;
    UChar ev;    /* bucket event (FP_*), or INT_* event */
    UChar lanes; /* FP lanes (flops per op, before FMA doubling); 1 for int */
    UChar flags; /* OPF_* */
};

#define SPS VPMU_EV_FP_SP_SCALAR
#define SP4 VPMU_EV_FP_SP_128
#define SP8 VPMU_EV_FP_SP_256
#define DPS VPMU_EV_FP_DP_SCALAR
#define DP2 VPMU_EV_FP_DP_128
#define DP4 VPMU_EV_FP_DP_256

/*  IR op               bucket  lanes flags     (x87 / SSE / AVX source) */
static const struct op_rule fp_rules[] = {
    /* single precision, scalar */
    {Iop_AddF32, SPS, 1, 0},          {Iop_SubF32, SPS, 1, 0},
    {Iop_MulF32, SPS, 1, 0},          {Iop_DivF32, SPS, 1, OPF_DIV},
    {Iop_SqrtF32, SPS, 1, OPF_SQRT},  {Iop_MAddF32, SPS, 1, OPF_FMA},
    {Iop_MSubF32, SPS, 1, OPF_FMA},   {Iop_MinNumF32, SPS, 1, 0},
    {Iop_MaxNumF32, SPS, 1, 0},
    {Iop_Add32F0x4, SPS, 1, 0},       {Iop_Sub32F0x4, SPS, 1, 0},
    {Iop_Mul32F0x4, SPS, 1, 0},       {Iop_Div32F0x4, SPS, 1, OPF_DIV},
    {Iop_Sqrt32F0x4, SPS, 1, OPF_SQRT}, {Iop_Min32F0x4, SPS, 1, 0},
    {Iop_Max32F0x4, SPS, 1, 0},       {Iop_RecipEst32F0x4, SPS, 1, 0},
    {Iop_RSqrtEst32F0x4, SPS, 1, 0},
    /* single precision, 128-bit packed */
    {Iop_Add32Fx4, SP4, 4, 0},        {Iop_Sub32Fx4, SP4, 4, 0},
    {Iop_Mul32Fx4, SP4, 4, 0},        {Iop_Div32Fx4, SP4, 4, OPF_DIV},
    {Iop_Sqrt32Fx4, SP4, 4, OPF_SQRT}, {Iop_Min32Fx4, SP4, 4, 0},
    {Iop_Max32Fx4, SP4, 4, 0},        {Iop_RecipEst32Fx4, SP4, 4, 0},
    {Iop_RSqrtEst32Fx4, SP4, 4, 0},
    /* single precision, 256-bit packed */
    {Iop_Add32Fx8, SP8, 8, 0},        {Iop_Sub32Fx8, SP8, 8, 0},
    {Iop_Mul32Fx8, SP8, 8, 0},        {Iop_Div32Fx8, SP8, 8, OPF_DIV},
    {Iop_Sqrt32Fx8, SP8, 8, OPF_SQRT}, {Iop_Min32Fx8, SP8, 8, 0},
    {Iop_Max32Fx8, SP8, 8, 0},        {Iop_RecipEst32Fx8, SP8, 8, 0},
    {Iop_RSqrtEst32Fx8, SP8, 8, 0},
    /* double precision, scalar (x87 ops are F64) */
    {Iop_AddF64, DPS, 1, 0},          {Iop_SubF64, DPS, 1, 0},
    {Iop_MulF64, DPS, 1, 0},          {Iop_DivF64, DPS, 1, OPF_DIV},
    {Iop_SqrtF64, DPS, 1, OPF_SQRT},  {Iop_MAddF64, DPS, 1, OPF_FMA},
    {Iop_MSubF64, DPS, 1, OPF_FMA},   {Iop_MinNumF64, DPS, 1, 0},
    {Iop_MaxNumF64, DPS, 1, 0},
    {Iop_Add64F0x2, DPS, 1, 0},       {Iop_Sub64F0x2, DPS, 1, 0},
    {Iop_Mul64F0x2, DPS, 1, 0},       {Iop_Div64F0x2, DPS, 1, OPF_DIV},
    {Iop_Sqrt64F0x2, DPS, 1, OPF_SQRT}, {Iop_Min64F0x2, DPS, 1, 0},
    {Iop_Max64F0x2, DPS, 1, 0},
    /* double precision, 128-bit packed */
    {Iop_Add64Fx2, DP2, 2, 0},        {Iop_Sub64Fx2, DP2, 2, 0},
    {Iop_Mul64Fx2, DP2, 2, 0},        {Iop_Div64Fx2, DP2, 2, OPF_DIV},
    {Iop_Sqrt64Fx2, DP2, 2, OPF_SQRT}, {Iop_Min64Fx2, DP2, 2, 0},
    {Iop_Max64Fx2, DP2, 2, 0},
    /* double precision, 256-bit packed */
    {Iop_Add64Fx4, DP4, 4, 0},        {Iop_Sub64Fx4, DP4, 4, 0},
    {Iop_Mul64Fx4, DP4, 4, 0},        {Iop_Div64Fx4, DP4, 4, OPF_DIV},
    {Iop_Sqrt64Fx4, DP4, 4, OPF_SQRT}, {Iop_Min64Fx4, DP4, 4, 0},
    {Iop_Max64Fx4, DP4, 4, 0},
};

#define ADD VPMU_EV_INT_ADDSUB
#define MUL VPMU_EV_INT_MUL
#define DIV VPMU_EV_INT_DIV
#define LOG VPMU_EV_INT_LOGIC

static const struct op_rule int_rules[] = {
    {Iop_Add8, ADD, 1, 0},  {Iop_Add16, ADD, 1, 0}, {Iop_Add32, ADD, 1, 0},
    {Iop_Add64, ADD, 1, 0}, {Iop_Sub8, ADD, 1, 0},  {Iop_Sub16, ADD, 1, 0},
    {Iop_Sub32, ADD, 1, 0}, {Iop_Sub64, ADD, 1, 0},
    {Iop_Mul8, MUL, 1, 0},  {Iop_Mul16, MUL, 1, 0}, {Iop_Mul32, MUL, 1, 0},
    {Iop_Mul64, MUL, 1, 0}, {Iop_MullS8, MUL, 1, 0}, {Iop_MullS16, MUL, 1, 0},
    {Iop_MullS32, MUL, 1, 0}, {Iop_MullS64, MUL, 1, 0},
    {Iop_MullU8, MUL, 1, 0}, {Iop_MullU16, MUL, 1, 0},
    {Iop_MullU32, MUL, 1, 0}, {Iop_MullU64, MUL, 1, 0},
    {Iop_DivU32, DIV, 1, 0}, {Iop_DivS32, DIV, 1, 0},
    {Iop_DivU64, DIV, 1, 0}, {Iop_DivS64, DIV, 1, 0},
    {Iop_DivU32E, DIV, 1, 0}, {Iop_DivS32E, DIV, 1, 0},
    {Iop_DivU64E, DIV, 1, 0}, {Iop_DivS64E, DIV, 1, 0},
    {Iop_DivModU64to32, DIV, 1, 0}, {Iop_DivModS64to32, DIV, 1, 0},
    {Iop_DivModU32to32, DIV, 1, 0}, {Iop_DivModS32to32, DIV, 1, 0},
    {Iop_DivModU64to64, DIV, 1, 0}, {Iop_DivModS64to64, DIV, 1, 0},
    {Iop_DivModU128to64, DIV, 1, 0}, {Iop_DivModS128to64, DIV, 1, 0},
    {Iop_And8, LOG, 1, 0},  {Iop_And16, LOG, 1, 0}, {Iop_And32, LOG, 1, 0},
    {Iop_And64, LOG, 1, 0}, {Iop_Or8, LOG, 1, 0},   {Iop_Or16, LOG, 1, 0},
    {Iop_Or32, LOG, 1, 0},  {Iop_Or64, LOG, 1, 0},  {Iop_Xor8, LOG, 1, 0},
    {Iop_Xor16, LOG, 1, 0}, {Iop_Xor32, LOG, 1, 0}, {Iop_Xor64, LOG, 1, 0},
    {Iop_Not8, LOG, 1, 0},  {Iop_Not16, LOG, 1, 0}, {Iop_Not32, LOG, 1, 0},
    {Iop_Not64, LOG, 1, 0},
};

/* op_info[op - Iop_INVALID] = 1 + index into all rules (fp first), 0 = none */
#define N_OPS ((Int)(Iop_LAST - Iop_INVALID) + 1)
#define N_FP_RULES ((Int)(sizeof fp_rules / sizeof fp_rules[0]))
#define N_INT_RULES ((Int)(sizeof int_rules / sizeof int_rules[0]))
static UChar op_info[N_OPS];

static const struct op_rule *rule_of(IROp op)
{
    Int i = (Int)(op - Iop_INVALID);
    if (i < 0 || i >= N_OPS || op_info[i] == 0)
        return NULL;
    i = op_info[i] - 1;
    return i < N_FP_RULES ? &fp_rules[i] : &int_rules[i - N_FP_RULES];
}

static Bool rule_is_fp(const struct op_rule *r)
{
    return r >= &fp_rules[0] && r < &fp_rules[N_FP_RULES];
}

static Int fp_prec(UChar ev)
{
    return (ev == SPS || ev == SP4 || ev == SP8) ? PREC_SP : PREC_DP;
}

void vpmu_instrument_init(void)
{
    Int i;
    tl_assert(N_FP_RULES + N_INT_RULES < 255);
    {
        /* the live slots (vpmu_state.h) are a permutation: no two events
         * share a lane */
        UInt used = 0;
        tl_assert(VPMU_EV_COUNT <= 32);
        for (i = 0; i < VPMU_EV_COUNT; i++) {
            Int s = vpmu_live_slot(i);
            tl_assert(s >= 0 && s < 2 * VPMU_LIVE_WORDS && !(used >> s & 1));
            used |= 1u << s;
        }
    }
    for (i = 0; i < N_FP_RULES + N_INT_RULES; i++) {
        IROp op = i < N_FP_RULES ? fp_rules[i].op : int_rules[i - N_FP_RULES].op;
        Int k = (Int)(op - Iop_INVALID);
        tl_assert(k > 0 && k < N_OPS);
        tl_assert(op_info[k] == 0); /* no duplicates in the tables */
        op_info[k] = (UChar)(i + 1);
    }
}

/* ------------------------------------------------------------------------
 * Guest instruction decoding (only what the IR does not tell us)
 * ---------------------------------------------------------------------- */

enum insn_kind {
    INSN_OTHER = 0,
    INSN_JCC,     /* Jcc, LOOPcc, JrCXZ */
    INSN_JMP_REL, /* JMP rel8 / rel32 */
    INSN_REP_STR  /* REP/REPE/REPNE-prefixed string instruction */
};

static enum insn_kind decode_insn(Addr a, UInt len)
{
    const UChar *p = (const UChar *)a;
    UInt i = 0;
    Bool rep = False;
    UChar op;

    if (len == 0 || len > 15)
        return INSN_OTHER;
    /* legacy prefixes, then REX */
    while (i < len) {
        UChar b = p[i];
        if (b == 0xF2 || b == 0xF3) {
            rep = True;
        } else if (!(b == 0x66 || b == 0x67 || b == 0x2E || b == 0x36 ||
                     b == 0x3E || b == 0x26 || b == 0x64 || b == 0x65 ||
                     b == 0xF0)) {
            break;
        }
        i++;
    }
    if (i < len && (p[i] & 0xF0) == 0x40)
        i++;
    if (i >= len)
        return INSN_OTHER;
    op = p[i];
    if ((op >= 0x70 && op <= 0x7F) || (op >= 0xE0 && op <= 0xE3))
        return INSN_JCC;
    if (op == 0x0F && i + 1 < len && p[i + 1] >= 0x80 && p[i + 1] <= 0x8F)
        return INSN_JCC;
    if (op == 0xE9 || op == 0xEB)
        return INSN_JMP_REL;
    if (rep && ((op >= 0x6C && op <= 0x6F) || (op >= 0xA4 && op <= 0xA7) ||
                (op >= 0xAA && op <= 0xAF)))
        return INSN_REP_STR;
    return INSN_OTHER;
}

/* The target of a direct branch (INSN_JCC, INSN_JMP_REL) of length len
 * at a: its displacement is the instruction's last byte (rel8) or four
 * (rel32). 0 for an operand-size prefix (rel16, not in 64-bit code). */
static Addr branch_target(Addr a, UInt len)
{
    const UChar *p = (const UChar *)a;
    UInt i;
    for (i = 0; i < len && (p[i] == 0x66 || p[i] == 0x67 || p[i] == 0x2E || p[i] == 0x3E ||
                            p[i] == 0xF2 || p[i] == 0xF3);
         i++)
        if (p[i] == 0x66)
            return 0;
    if (i < len && ((p[i] >= 0x70 && p[i] <= 0x7F) || (p[i] >= 0xE0 && p[i] <= 0xE3) ||
                    p[i] == 0xEB))
        return a + len + (Long)(Char)p[len - 1];
    if (len >= 5) {
        Int d = (Int)((UInt)p[len - 4] | (UInt)p[len - 3] << 8 | (UInt)p[len - 2] << 16 |
                      (UInt)p[len - 1] << 24);
        return a + len + (Long)d;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * IR emission helpers
 * ---------------------------------------------------------------------- */

#define PROF_ITEMS_MAX 1024

typedef struct {
    IRSB *sb;
    ULong pend[VPMU_EV_COUNT]; /* committed: instructions already scanned */
    ULong cur[VPMU_EV_COUNT];  /* the instruction being scanned */
    Addr insn_addr;
    UInt insn_len;
    enum insn_kind insn_kind;
    Bool insn_has_fp;
    Bool insn_cond_done; /* its conditional exit was seen */
    UInt fma_lanes[2];   /* per precision, MAdd/MSub ops in this insn */
    Bool in_insn;
    Bool do_mem, do_br, do_fp, do_int, hook_mem, hook_br, hook_if;
    UInt counted; /* vpmu_state.ev_counted when the translation began */
    /* Instruction fetches into [if_lo, if_hi) are L1I and ITLB hits that
     * change no replacement state (the lines were just fetched and are MRU),
     * so only the first fetch of each line-run in a SB calls the model. */
    Addr if_lo, if_hi;
    UInt if_line;
    /* Skipping the fetches of a superblock whose lines are sure hits
     * (vpmu_node.h): the ITLB page bits (-1: no skip), the superblock's
     * page, the stamp of its last complete run with only hits, the gen
     * read at its start and the guards of its fetch calls (1: fetch): the
     * first fetch's (if_need: an L1I fill since, or its page is not the
     * ITLB's MRU page) and the later ones' (if_need_lines: a fill since;
     * after the first fetch the page is the MRU page). */
    Int if_skip_bits;
    Addr if_page;
    /* vpmu_node_ifetch_mru: each fetch call guarded by way 0 of its set */
    Bool if_mru;
    UInt if_mru_ways;
    ULong if_mru_set_mask;
    Int if_mru_page_bits;
    IRTemp if_mru_tags; /* vpmu_l1i_tags, loaded at the first guard */
    ULong *if_stamp;
    IRTemp if_gen, if_need, if_need_lines;
    Bool if_fetched; /* the superblock's first fetch call is made */
    /* the last instruction's IMark: the stamp is stored after its fetch */
    const IRStmt *if_last_imark;
    /* Profile (vpmu_profile.h): the cost center of the instruction being
     * scanned and the per-instruction items of the committed set. */
    Bool prof;
    struct vpmu_cc *cc;
    UInt n_items;
    Int offset_sp, offset_ip;
    /* Precise samples per instruction (vpmu_sample.h): the exact events
     * (bits) the instruction added and whether it called a model. */
    UInt samp_ev;
    UInt samp_model; /* VPMU_SAMPLE_* */
    /* The last load's model call (its index in sb, -1: none) while only
     * register and temporary writes of its instruction followed it: a
     * store of the same bytes makes it one call (vpmu_node_modify). */
    Int ld_call;
    IRExpr *ld_addr;
    UInt ld_size;
    /* last, and not cleared per superblock (VG_(memset) of its 16 KB for
     * every translation was 3% of a run): items[0..n_items) are valid */
    struct vpmu_prof_item items[PROF_ITEMS_MAX];
} Ctx;

/* the 64-bit word loaded from a_ld and stored to a_st (atoms naming the
 * same address) += e, an I64 atom */
static void emit_rmw(IRSB *sb, IRExpr *a_ld, IRExpr *a_st, IRExpr *e)
{
    IRTemp t1 = newIRTemp(sb->tyenv, Ity_I64);
    IRTemp t2 = newIRTemp(sb->tyenv, Ity_I64);
    addStmtToIRSB(sb, IRStmt_WrTmp(t1, IRExpr_Load(Iend_LE, Ity_I64, a_ld)));
    addStmtToIRSB(sb, IRStmt_WrTmp(t2, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(t1), e)));
    addStmtToIRSB(sb, IRStmt_Store(Iend_LE, a_st, IRExpr_RdTmp(t2)));
}

/* the 64-bit word at addr += e, an I64 atom */
static void emit_add_at(IRSB *sb, ULong *addr, IRExpr *e)
{
    emit_rmw(sb, mkIRExpr_HWord((HWord)addr), mkIRExpr_HWord((HWord)addr), e);
}

/* The live block's base for this superblock (vpmu_state.h), read from the
 * shadow guest state at its first use. */
static IRTemp live_base_tmp = IRTemp_INVALID;
static Int live_base_offset;

/* live_base_tmp, read at its first use in the superblock */
static void live_base_read(IRSB *sb)
{
    if (live_base_tmp == IRTemp_INVALID) {
        live_base_tmp = newIRTemp(sb->tyenv, Ity_I64);
        addStmtToIRSB(sb, IRStmt_WrTmp(live_base_tmp, IRExpr_Get(live_base_offset, Ity_I64)));
    }
}

/* A temp holding the address disp bytes from the live block's base (one
 * per use: each is then folded into its access's addressing mode, where a
 * shared one costs a register and an lea). */
static IRTemp live_addr(IRSB *sb, Long disp)
{
    IRTemp a;
    live_base_read(sb);
    a = newIRTemp(sb->tyenv, Ity_I64);
    addStmtToIRSB(sb, IRStmt_WrTmp(a, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(live_base_tmp),
                                                   IRExpr_Const(IRConst_U64((ULong)disp)))));
    return a;
}

/* the live word of ev += e, with e an I64 atom already shifted to ev's lane */
static void emit_add(IRSB *sb, Int ev, IRExpr *e)
{
    IRTemp a[2];
    Int i;
    for (i = 0; i < 2; i++)
        a[i] = live_addr(sb, 8 * (Long)VPMU_LIVE_WORD(ev));
    emit_rmw(sb, IRExpr_RdTmp(a[0]), IRExpr_RdTmp(a[1]), e);
}

/* an I64 atom: guard ? n : 0 (guard is an I1 atom) */
static IRExpr *guarded_n(IRSB *sb, IRExpr *guard, ULong n)
{
    IRTemp t = newIRTemp(sb->tyenv, Ity_I64);
    if (n == 1)
        addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Unop(Iop_1Uto64, guard)));
    else
        addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_ITE(guard, IRExpr_Const(IRConst_U64(n)),
                                                    IRExpr_Const(IRConst_U64(0)))));
    return IRExpr_RdTmp(t);
}

static Bool guard_is_true(IRExpr *g)
{
    return g == NULL || (g->tag == Iex_Const && g->Iex.Const.con->tag == Ico_U1 &&
                         g->Iex.Const.con->Ico.U1);
}

/* Static counts of one segment are far below 2^32: both lanes in one add. */
static void flush_set(Ctx *c, ULong *set)
{
    ULong word[VPMU_LIVE_WORDS];
    Int e, first[VPMU_LIVE_WORDS];
    VG_(memset)(word, 0, sizeof word);
    for (e = 0; e < VPMU_LIVE_WORDS; e++)
        first[e] = -1;
    for (e = 0; e < VPMU_EV_COUNT; e++) {
        if (!(c->counted >> e & 1)) { /* no programmed kind reads it */
            set[e] = 0;
            continue;
        }
        word[VPMU_LIVE_WORD(e)] |= set[e] << VPMU_LIVE_SHIFT(e);
        if (first[VPMU_LIVE_WORD(e)] < 0)
            first[VPMU_LIVE_WORD(e)] = e;
        set[e] = 0;
    }
    for (e = 0; e < VPMU_LIVE_WORDS; e++)
        if (word[e])
            emit_add(c->sb, first[e], IRExpr_Const(IRConst_U64(word[e])));
    if (c->prof && c->n_items > 0) {
        /* the set's items were counted once more when control gets here */
        tl_assert(set == c->pend);
        emit_add_at(c->sb, vpmu_prof_segment(c->items, c->n_items),
                    IRExpr_Const(IRConst_U64(1)));
        c->n_items = 0;
    }
}

/* Profile: n of event ev of the instruction being scanned joins the
 * committed set. */
static void prof_item(Ctx *c, Int ev, Long n)
{
    struct vpmu_prof_item *it;
    if (!c->prof || n == 0)
        return;
    if (c->n_items > 0 && c->items[c->n_items - 1].cc == c->cc &&
        c->items[c->n_items - 1].ev == (UInt)ev) {
        c->items[c->n_items - 1].n += (Int)n;
        return;
    }
    tl_assert(c->n_items < PROF_ITEMS_MAX);
    it = &c->items[c->n_items++];
    it->cc = c->cc;
    it->ev = (UInt)ev;
    it->n = (Int)n;
}

/* pend[ev] += n for the instruction last scanned (end of SB events) */
static void pend_add(Ctx *c, Int ev, ULong n)
{
    c->pend[ev] += n;
    c->samp_ev |= 1u << ev;
    prof_item(c, ev, n);
}

/* the live word of ev += (guard ? n : 0) */
static void emit_add_guarded(Ctx *c, Int ev, IRExpr *guard, ULong n)
{
    if (!(c->counted >> ev & 1))
        return;
    emit_add(c->sb, ev, guarded_n(c->sb, guard, n << VPMU_LIVE_SHIFT(ev)));
    c->samp_ev |= 1u << ev;
    if (c->prof) {
        ULong *slot = vpmu_prof_dyn_slot(c->cc, ev);
        tl_assert(slot);
        emit_add_at(c->sb, slot, guarded_n(c->sb, guard, n));
    }
}

static void merge_cur(Ctx *c)
{
    Int e;
    if (c->prof && c->n_items + VPMU_EV_COUNT > PROF_ITEMS_MAX)
        flush_set(c, c->pend); /* the committed instructions have run here */
    for (e = 0; e < VPMU_EV_COUNT; e++) {
        c->pend[e] += c->cur[e];
        if (c->cur[e])
            c->samp_ev |= 1u << e;
        prof_item(c, e, c->cur[e]);
        c->cur[e] = 0;
    }
}

static void flush_all(Ctx *c)
{
    merge_cur(c);
    flush_set(c, c->pend);
}

/* The instruction being scanned has retired when control gets here: a
 * precise sample of a kind it changed is taken here (vpmu_sample_mark). */
static void sample_point(Ctx *c)
{
    if (vpmu_state.on.sample_insn)
        vpmu_sample_mark(c->sb, c->insn_addr, c->samp_ev, c->samp_model, c->pend);
    c->samp_ev = 0;
    c->samp_model = 0;
}

/* Finish the instruction being scanned: per-instruction FP accounting. */
static void end_insn(Ctx *c)
{
    Int p;
    if (!c->in_insn)
        return;
    for (p = 0; p < 2; p++) {
        UInt k = c->fma_lanes[p];
        UInt bits = k * (p == PREC_SP ? 32 : 64);
        Int ev;
        if (k == 0)
            continue;
        if (p == PREC_SP)
            ev = k == 1 ? SPS : bits == 128 ? SP4 : bits == 256 ? SP8 : SPS;
        else
            ev = k == 1 ? DPS : bits == 128 ? DP2 : bits == 256 ? DP4 : DPS;
        c->cur[ev] += 2 * (ULong)k;
        c->cur[VPMU_EV_FP_OPS] += 2 * (ULong)k;
        c->cur[VPMU_EV_FP_FMA] += k;
        c->fma_lanes[p] = 0;
    }
    if (c->insn_has_fp)
        c->cur[VPMU_EV_FP_INSTRUCTIONS] += 1;
    merge_cur(c);
    c->in_insn = False;
}

static void count_op(Ctx *c, IROp op)
{
    const struct op_rule *r = rule_of(op);
    if (!r)
        return;
    if (rule_is_fp(r)) {
        if (!c->do_fp)
            return;
        c->insn_has_fp = True;
        if (r->flags & OPF_FMA) {
            c->fma_lanes[fp_prec(r->ev)] += 1;
            return;
        }
        c->cur[r->ev] += r->lanes;
        c->cur[VPMU_EV_FP_OPS] += r->lanes;
        if (r->flags & OPF_DIV)
            c->cur[VPMU_EV_FP_DIV] += r->lanes;
        if (r->flags & OPF_SQRT)
            c->cur[VPMU_EV_FP_SQRT] += r->lanes;
    } else if (c->do_int) {
        c->cur[r->ev] += 1;
    }
}

/* Profile: the instruction's model calls credit its cost center through
 * vpmu_prof_sink, which the profile's helpers (vpmu_node_*_p) take as
 * their last argument: this one. */
static IRExpr *prof_sink_arg(Ctx *c)
{
    return mkIRExpr_HWord((HWord)vpmu_prof_raw_slot(c->cc));
}

/* A model call of fn with its n arguments (2 to 4), or in a profile of
 * fn_p, the same with the instruction's sink after them (MODEL_CALL). */
static IRDirty *model_call(Ctx *c, const HChar *name, void *fn, const HChar *name_p, void *fn_p,
                           Int n, IRExpr *a0, IRExpr *a1, IRExpr *a2, IRExpr *a3)
{
    IRExpr *a[5] = {a0, a1, a2, a3, NULL};
    IRExpr **args;
    if (c->prof) {
        a[n++] = prof_sink_arg(c);
        name = name_p;
        fn = fn_p;
    }
    switch (n) {
    case 2:
        args = mkIRExprVec_2(a[0], a[1]);
        break;
    case 3:
        args = mkIRExprVec_3(a[0], a[1], a[2]);
        break;
    case 4:
        args = mkIRExprVec_4(a[0], a[1], a[2], a[3]);
        break;
    default:
        tl_assert(n == 5);
        args = mkIRExprVec_5(a[0], a[1], a[2], a[3], a[4]);
        break;
    }
    return unsafeIRDirty_0_N(0, name, VG_(fnptr_to_fnentry)(fn), args);
}
#define MODEL_CALL(c, fn, n, a0, a1, a2, a3) \
    model_call((c), #fn, (void *)&fn, #fn "_p", (void *)&fn##_p, (n), (a0), (a1), (a2), (a3))

/* One memory access: counts (static if unguarded) and the optional hook. */
static void mem_access(Ctx *c, IRExpr *addr, UInt size, Bool is_write, IRExpr *guard)
{
    Int ev_n = is_write ? VPMU_EV_STORES : VPMU_EV_LOADS;
    Int ev_b = is_write ? VPMU_EV_STORE_BYTES : VPMU_EV_LOAD_BYTES;

    if (!c->do_mem)
        return;
    if (guard_is_true(guard)) {
        c->cur[ev_n] += 1;
        c->cur[ev_b] += size;
    } else {
        emit_add_guarded(c, ev_n, guard, 1);
        emit_add_guarded(c, ev_b, guard, size);
    }
    if (c->hook_mem) {
        IRDirty *di;
        if (is_write && c->ld_call >= 0 && guard_is_true(guard) && size == c->ld_size &&
            eqIRAtom(addr, c->ld_addr)) {
            /* A read-modify-write: the load's call becomes one call for
             * both, in its place. The model sees the same two accesses in
             * the same order; nothing between them (this instruction's
             * register and temporary writes) reads or moves the models,
             * and no exit lies between them. One difference: a load that
             * faults (a program that catches SIGSEGV goes on) had its
             * call made before it, as every access has, and now its
             * store's with it. */
            di = MODEL_CALL(c, vpmu_node_modify, 2, addr, mkIRExpr_HWord(size), NULL, NULL);
            c->sb->stmts[c->ld_call] = IRStmt_Dirty(di);
            c->ld_call = -1;
            return;
        }
        di = is_write ? MODEL_CALL(c, vpmu_node_store, 2, addr, mkIRExpr_HWord(size), NULL, NULL)
                      : MODEL_CALL(c, vpmu_node_load, 2, addr, mkIRExpr_HWord(size), NULL, NULL);
        if (!guard_is_true(guard))
            di->guard = guard;
        c->samp_model |= VPMU_SAMPLE_MEM;
        addStmtToIRSB(c->sb, IRStmt_Dirty(di));
        c->ld_call = -1;
        if (!is_write && guard_is_true(guard)) {
            c->ld_call = c->sb->stmts_used - 1;
            c->ld_addr = addr;
            c->ld_size = size;
        }
    }
}

static void branch_hook(Ctx *c, Addr pc, IRExpr *target, IRExpr *taken64, ULong kind)
{
    IRDirty *di = MODEL_CALL(c, vpmu_node_branch, 4, mkIRExpr_HWord(pc), target, taken64,
                             IRExpr_Const(IRConst_U64(kind)));
    addStmtToIRSB(c->sb, IRStmt_Dirty(di));
    c->samp_model |= VPMU_SAMPLE_BRANCH;
}

/* A call pushes the predictor's return stack (and predicts the target of an
 * indirect call). */
static void call_hook(Ctx *c, Addr pc, IRExpr *target, Addr ret, Bool indirect)
{
    IRDirty *di = MODEL_CALL(c, vpmu_node_call, 4, mkIRExpr_HWord(pc), target, mkIRExpr_HWord(ret),
                             IRExpr_Const(IRConst_U64(indirect ? 1 : 0)));
    addStmtToIRSB(c->sb, IRStmt_Dirty(di));
    c->samp_model |= VPMU_SAMPLE_BRANCH;
}

/* IR: whether the ITLB's MRU page (vpmu_if_page) is other than page. */
static IRTemp if_page_differs(IRSB *sb, Addr page)
{
    IRTemp p = newIRTemp(sb->tyenv, Ity_I64), d = newIRTemp(sb->tyenv, Ity_I1);
    addStmtToIRSB(sb, IRStmt_WrTmp(p, IRExpr_Load(Iend_LE, Ity_I64,
                                                  mkIRExpr_HWord((HWord)&vpmu_if_page))));
    addStmtToIRSB(sb, IRStmt_WrTmp(d, IRExpr_Binop(Iop_CmpNE64, IRExpr_RdTmp(p),
                                                   IRExpr_Const(IRConst_U64(page)))));
    return d;
}

/* The guard of the fetch call of a's line (vpmu_node_ifetch_mru): needed
 * unless the line is way 0 of its set in the running core's L1I (and its
 * page the ITLB's MRU page), where the call would change nothing. In
 * cachegrind's geometry two thirds of the fetch calls reached the L1 probe,
 * nearly all of them such hits. */
static IRExpr *if_mru_guard(Ctx *c, Addr a, UInt line)
{
    IRSB *sb = c->sb;
    ULong ln = a / line, key = (ULong)ln << 1;
    ULong off = (ln & c->if_mru_set_mask) * c->if_mru_ways * sizeof(ULong);
    IRTemp at = newIRTemp(sb->tyenv, Ity_I64), w = newIRTemp(sb->tyenv, Ity_I64);
    IRTemp g = newIRTemp(sb->tyenv, Ity_I1);
    /* the running core's tags, once per superblock (cores change only
     * between superblocks); each way 0 is loaded right before its own
     * call, after any earlier call that may have moved it */
    if (c->if_mru_tags == IRTemp_INVALID) {
        c->if_mru_tags = newIRTemp(sb->tyenv, Ity_I64);
        addStmtToIRSB(sb, IRStmt_WrTmp(c->if_mru_tags,
                                       IRExpr_Load(Iend_LE, Ity_I64,
                                                   mkIRExpr_HWord((HWord)&vpmu_l1i_tags))));
    }
    addStmtToIRSB(sb, IRStmt_WrTmp(at, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(c->if_mru_tags),
                                                    IRExpr_Const(IRConst_U64(off)))));
    addStmtToIRSB(sb, IRStmt_WrTmp(w, IRExpr_Load(Iend_LE, Ity_I64, IRExpr_RdTmp(at))));
    addStmtToIRSB(sb, IRStmt_WrTmp(g, IRExpr_Binop(Iop_CmpNE64, IRExpr_RdTmp(w),
                                                    IRExpr_Const(IRConst_U64(key)))));
    if (c->if_mru_page_bits > 0) {
        IRTemp gp = if_page_differs(sb, a >> c->if_mru_page_bits);
        IRTemp both = newIRTemp(sb->tyenv, Ity_I1);
        addStmtToIRSB(sb, IRStmt_WrTmp(both, IRExpr_Binop(Iop_Or1, IRExpr_RdTmp(g),
                                                           IRExpr_RdTmp(gp))));
        g = both;
    }
    return IRExpr_RdTmp(g);
}

/* Instruction fetch of [a, a+len): a model call unless it is a sure hit. */
static void ifetch(Ctx *c, Addr a, UInt len)
{
    IRDirty *di;
    Addr line = c->if_line;
    if (len == 0)
        len = 1;
    if (a >= c->if_lo && a + len <= c->if_hi)
        return;
    di = MODEL_CALL(c, vpmu_node_ifetch, 2, mkIRExpr_HWord(a), mkIRExpr_HWord(len), NULL, NULL);
    if (c->if_need != IRTemp_INVALID) {
        di->guard = IRExpr_RdTmp(c->if_fetched ? c->if_need_lines : c->if_need);
        c->if_fetched = True;
    } else if (c->if_mru && (a & ~(Addr)(line - 1)) == ((a + len - 1) & ~(Addr)(line - 1))) {
        di->guard = if_mru_guard(c, a, line);
    }
    addStmtToIRSB(c->sb, IRStmt_Dirty(di));
    c->samp_model |= VPMU_SAMPLE_IFETCH;
    c->if_lo = a & ~(line - 1);
    c->if_hi = ((a + len - 1) & ~(line - 1)) + line;
}

static Bool jk_is_fault(IRJumpKind jk)
{
    switch (jk) {
    case Ijk_Boring:
    case Ijk_Call:
    case Ijk_Ret:
        return False;
    default:
        return True; /* signals, emulation warnings/failures, SMC, yields */
    }
}

static void do_exit(Ctx *c, IRStmt *st)
{
    IRExpr *guard = st->Ist.Exit.guard;
    IRJumpKind jk = st->Ist.Exit.jk;
    IRConst *dst = st->Ist.Exit.dst;
    Addr fall = c->insn_addr + c->insn_len;
    Addr d = dst->tag == Ico_U64 ? (Addr)dst->Ico.U64 : 0;

    if (c->in_insn && jk == Ijk_Boring && c->insn_kind == INSN_JCC) {
        /* conditional branch: the instruction retires either way */
        Bool side_is_taken = d != fall;
        IRExpr *taken = guard;
        IRExpr *taken64;
        if (!c->do_br) {
            flush_all(c);
            return;
        }
        c->cur[VPMU_EV_BRANCHES] += 1;
        c->insn_cond_done = True;
        /* the profile's br_cond: a static item of the segment that ends
         * here (the live word's add below counts the totals). Its
         * br_cond_taken is static items too: the segment that ends here
         * counts the runs that reach the exit, the next one (which ends
         * before any other exit can leave: every exit flushes, and it has
         * an item) those that pass it, so taken is the difference of the
         * two (the exit is the taken path) or the second (the exit is the
         * fall-through). No run-time add, where one to the cost center's
         * line had been a host cache miss per branch in code as large as
         * sqlite3's; a superblock that ends with the branch has one more
         * segment counter to add, on a line its others share. */
        if (c->prof && c->n_items + 2 > PROF_ITEMS_MAX)
            flush_set(c, c->pend); /* as merge_cur would: the room for them */
        prof_item(c, VPMU_EV_BR_COND, 1);
        if (side_is_taken)
            prof_item(c, VPMU_EV_BR_COND_TAKEN, 1);
        flush_all(c);
        prof_item(c, VPMU_EV_BR_COND_TAKEN, side_is_taken ? -1 : 1);
        if (!side_is_taken) {
            IRTemp t = newIRTemp(c->sb->tyenv, Ity_I1);
            addStmtToIRSB(c->sb, IRStmt_WrTmp(t, IRExpr_Unop(Iop_Not1, guard)));
            taken = IRExpr_RdTmp(t);
        }
        taken64 = guarded_n(c->sb, taken, 1);
        if (c->counted & (1u << VPMU_EV_BR_COND | 1u << VPMU_EV_BR_COND_TAKEN)) {
            /* BR_COND (+1, lane 1) and BR_COND_TAKEN (the taken bit, lane 0)
             * share a live word: one add for both */
            IRTemp both = newIRTemp(c->sb->tyenv, Ity_I64);
            tl_assert(VPMU_LIVE_WORD(VPMU_EV_BR_COND) == VPMU_LIVE_WORD(VPMU_EV_BR_COND_TAKEN) &&
                      VPMU_LIVE_SHIFT(VPMU_EV_BR_COND_TAKEN) == 0);
            addStmtToIRSB(c->sb,
                          IRStmt_WrTmp(both, IRExpr_Binop(Iop_Add64, taken64,
                                                          IRExpr_Const(IRConst_U64(
                                                              1ULL << VPMU_LIVE_SHIFT(
                                                                  VPMU_EV_BR_COND))))));
            emit_add(c->sb, VPMU_EV_BR_COND_TAKEN, IRExpr_RdTmp(both));
            c->samp_ev |= 1u << VPMU_EV_BR_COND | 1u << VPMU_EV_BR_COND_TAKEN;
        }
        if (c->hook_br) {
            /* the predictor needs the pc and the direction only */
            IRDirty *di =
                MODEL_CALL(c, vpmu_node_cond, 2, mkIRExpr_HWord(c->insn_addr), taken64, NULL, NULL);
            addStmtToIRSB(c->sb, IRStmt_Dirty(di));
            c->samp_model |= VPMU_SAMPLE_BRANCH;
        }
        sample_point(c);
        return;
    }
    if (c->in_insn && jk == Ijk_Boring && c->insn_kind == INSN_REP_STR && d == fall) {
        /* a REP instruction finishes: count it once, now */
        flush_all(c);
        emit_add_guarded(c, VPMU_EV_INSTRUCTIONS, guard, 1);
        sample_point(c);
        return;
    }
    if (c->in_insn && jk_is_fault(jk) && d == fall) {
        /* an exit to the next instruction leaves after this one has done
         * its work: it retired (an emulation warning, e.g. fldcw selecting
         * an x87 precision VEX does not model, or int3) */
        flush_all(c);
        sample_point(c);
        return;
    }
    if (jk_is_fault(jk) || jk == Ijk_Boring) {
        /* the current instruction is abandoned (or restarted) if taken */
        flush_set(c, c->pend);
        return;
    }
    /* Ijk_Call / Ijk_Ret side exits do not occur on amd64; be safe */
    flush_all(c);
    sample_point(c);
}

/* a guest register now, as an I64 atom */
static IRExpr *guest_reg(Ctx *c, Int offset)
{
    IRTemp t = newIRTemp(c->sb->tyenv, Ity_I64);
    addStmtToIRSB(c->sb, IRStmt_WrTmp(t, IRExpr_Get(offset, Ity_I64)));
    return IRExpr_RdTmp(t);
}

static IRExpr *guest_sp(Ctx *c)
{
    return guest_reg(c, c->offset_sp);
}

/* Profile: the call graph's shadow stack follows calls and returns (and
 * jumps that are tail calls). */
/* with_bp: the predictor's part of the instruction too (its branch hook
 * was left out: vpmu_prof_*_bp); ret_ind: a call's return address, the top
 * bit set for an indirect one */
static void prof_call_hook(Ctx *c, IRExpr *target, Bool jump, Bool with_bp, ULong ret_ind)
{
    IRDirty *di;
    if (with_bp && !jump)
        di = unsafeIRDirty_0_N(0, "vpmu_prof_call_bp",
                               VG_(fnptr_to_fnentry)((void *)&vpmu_prof_call_bp),
                               mkIRExprVec_6(mkIRExpr_HWord((HWord)c->cc), target, guest_sp(c),
                                             guest_reg(c, OFFSET_amd64_RDI),
                                             guest_reg(c, OFFSET_amd64_RSI),
                                             IRExpr_Const(IRConst_U64(ret_ind))));
    else
        di = unsafeIRDirty_0_N(
            0,
            jump ? (with_bp ? "vpmu_prof_jump_bp" : "vpmu_prof_jump") : "vpmu_prof_call",
            VG_(fnptr_to_fnentry)(jump ? (with_bp ? (void *)&vpmu_prof_jump_bp
                                                  : (void *)&vpmu_prof_jump)
                                       : (void *)&vpmu_prof_call),
            /* an allocator's arguments, for the data objects */
            mkIRExprVec_5(mkIRExpr_HWord((HWord)c->cc), target, guest_sp(c),
                          guest_reg(c, OFFSET_amd64_RDI), guest_reg(c, OFFSET_amd64_RSI)));
    addStmtToIRSB(c->sb, IRStmt_Dirty(di));
}

static void prof_ret_hook(Ctx *c, IRExpr *target, Bool with_bp)
{
    IRDirty *di;
    if (with_bp)
        di = unsafeIRDirty_0_N(0, "vpmu_prof_ret_bp",
                               VG_(fnptr_to_fnentry)((void *)&vpmu_prof_ret_bp),
                               mkIRExprVec_4(mkIRExpr_HWord((HWord)c->cc), target, guest_sp(c),
                                             guest_reg(c, OFFSET_amd64_RAX)));
    else
        di = unsafeIRDirty_0_N(0, "vpmu_prof_ret", VG_(fnptr_to_fnentry)((void *)&vpmu_prof_ret),
                               mkIRExprVec_2(guest_sp(c), guest_reg(c, OFFSET_amd64_RAX)));
    addStmtToIRSB(c->sb, IRStmt_Dirty(di));
}

static void do_sb_end(Ctx *c, IRSB *sbIn)
{
    IRJumpKind jk = sbIn->jumpkind;
    IRExpr *next = sbIn->next;
    Bool next_const = next->tag == Iex_Const;
    Addr pc = c->insn_addr;
    Int prof_after = 0; /* 1: a call, 2: a return, 3: a jump, for the call graph */
    /* a profile's call, return or indirect jump makes its predictor call in
     * the call graph's helper (after the flush: the predictor reads no
     * counter), unless the sampler wants the model calls at their place */
    Bool bp_in_prof = c->prof && c->hook_br && !vpmu_state.on.sample && !vpmu_state.on.sample_insn;
    Bool bp_deferred = False;

    end_insn(c);
    if (c->do_br && c->insn_len != 0) {
        switch (jk) {
        case Ijk_Boring:
            if (c->insn_cond_done || c->insn_kind == INSN_REP_STR)
                break;
            if (c->prof && (!next_const || (c->insn_kind == INSN_JMP_REL &&
                                            vpmu_prof_is_entry((Addr)next->Iex.Const.con->Ico.U64))))
                prof_after = 3; /* maybe a tail call: checked at run time if indirect */
            if (!next_const) {
                pend_add(c, VPMU_EV_BR_INDIRECT, 1);
                pend_add(c, VPMU_EV_BRANCHES, 1);
                if (bp_in_prof && prof_after == 3)
                    bp_deferred = True;
                else if (c->hook_br)
                    branch_hook(c, pc, next, IRExpr_Const(IRConst_U64(1)), VPMU_BR_INDIRECT);
            } else if (c->insn_kind == INSN_JMP_REL) {
                pend_add(c, VPMU_EV_BR_DIRECT, 1);
                pend_add(c, VPMU_EV_BRANCHES, 1);
            }
            break;
        case Ijk_Call:
            pend_add(c, VPMU_EV_BR_CALL, 1);
            pend_add(c, VPMU_EV_BRANCHES, 1);
            if (!next_const)
                pend_add(c, VPMU_EV_BR_CALL_INDIRECT, 1);
            if (bp_in_prof)
                bp_deferred = True;
            else if (c->hook_br)
                call_hook(c, pc, next, pc + c->insn_len, !next_const);
            prof_after = 1;
            break;
        case Ijk_Ret:
            pend_add(c, VPMU_EV_BR_RET, 1);
            pend_add(c, VPMU_EV_BRANCHES, 1);
            if (bp_in_prof)
                bp_deferred = True;
            else if (c->hook_br)
                branch_hook(c, pc, next, IRExpr_Const(IRConst_U64(1)), VPMU_BR_RET);
            prof_after = 2;
            break;
        case Ijk_Sys_syscall:
        case Ijk_Sys_int128:
        case Ijk_Sys_sysenter:
            pend_add(c, VPMU_EV_SYSCALLS, 1);
            break;
        default:
            break;
        }
    }
    merge_cur(c);
    sample_point(c);
    flush_all(c);
    /* after the flush: a call's inclusive cost starts after the call
     * instruction (the caller's) and ends after the return (the callee's) */
    if (c->prof && prof_after == 1)
        prof_call_hook(c, next, False, bp_deferred,
                       (pc + c->insn_len) | (next_const ? 0 : 1ULL << 63));
    else if (c->prof && prof_after == 2)
        prof_ret_hook(c, next, bp_deferred);
    else if (c->prof && prof_after == 3)
        prof_call_hook(c, next, True, bp_deferred, 0);
    if (jk == Ijk_ClientReq && next_const) {
        /* vpmu_state.h: a read is answered here, any other request leaves
         * for the scheduler as the instruction asked */
        IRTemp done = newIRTemp(c->sb->tyenv, Ity_I64);
        IRTemp slow = newIRTemp(c->sb->tyenv, Ity_I1);
        IRDirty *di = unsafeIRDirty_1_N(done, 0, "vpmu_fast_request",
                                        VG_(fnptr_to_fnentry)((void *)&vpmu_fast_request),
                                        mkIRExprVec_1(guest_reg(c, OFFSET_amd64_RAX)));
        addStmtToIRSB(c->sb, IRStmt_Dirty(di));
        addStmtToIRSB(c->sb, IRStmt_WrTmp(slow, IRExpr_Binop(Iop_CmpEQ64, IRExpr_RdTmp(done),
                                                              IRExpr_Const(IRConst_U64(0)))));
        addStmtToIRSB(c->sb, IRStmt_Exit(IRExpr_RdTmp(slow), Ijk_ClientReq, next->Iex.Const.con,
                                         c->offset_ip));
        {
            IRTemp reply = newIRTemp(c->sb->tyenv, Ity_I64);
            addStmtToIRSB(c->sb, IRStmt_WrTmp(reply, IRExpr_Load(Iend_LE, Ity_I64,
                                                                 mkIRExpr_HWord(
                                                                     (HWord)&vpmu_fast_reply))));
            addStmtToIRSB(c->sb, IRStmt_Put(OFFSET_amd64_RDX, IRExpr_RdTmp(reply)));
        }
        c->sb->jumpkind = Ijk_Boring;
    }
    if (jk == Ijk_Ret && vpmu_gate_follows_returns()) {
        IRDirty *di = unsafeIRDirty_0_N(0, "vpmu_gate_ret",
                                        VG_(fnptr_to_fnentry)((void *)&vpmu_gate_ret),
                                        mkIRExprVec_1(guest_sp(c)));
        addStmtToIRSB(c->sb, IRStmt_Dirty(di));
    }
}

/* ------------------------------------------------------------------------
 * Skipping sure-hit fetches (vpmu_node.h)
 * ---------------------------------------------------------------------- */

/* Stamps, one per translation that skips, from chunks never freed (a
 * discarded translation's 8 bytes are not reclaimed, as the overflow
 * check's descriptions are not). 0 is never a gen: a new stamp does not
 * match. */
static ULong *if_stamp_new(void)
{
    enum { CHUNK = 4096 };
    static ULong *chunk;
    static UInt used = CHUNK;
    if (used == CHUNK) {
        chunk = VG_(calloc)("hpm.ifskip", CHUNK, sizeof *chunk);
        used = 0;
    }
    return &chunk[used++];
}

/* Whether sbIn's fetches may be skipped: every instruction in one ITLB
 * page (its page in c->if_page). */
static Bool if_skip_applies(Ctx *c, IRSB *sbIn)
{
    Int i, bits = c->if_skip_bits;
    Bool first = True;
    if (bits < 0)
        return False;
    for (i = 0; i < sbIn->stmts_used; i++) {
        IRStmt *st = sbIn->stmts[i];
        Addr a, z;
        if (!st || st->tag != Ist_IMark)
            continue;
        a = (Addr)st->Ist.IMark.addr;
        z = a + (st->Ist.IMark.len ? st->Ist.IMark.len : 1) - 1;
        if (bits == 0)
            return True;
        if (first) {
            c->if_page = a >> bits;
            first = False;
        }
        if (a >> bits != c->if_page || z >> bits != c->if_page)
            return False;
    }
    return !first || bits == 0;
}

/* At the superblock's start: fetch unless the gen is its stamp and its page
 * the MRU page. Only the gen decides for the fetches after the first: with
 * the gen the stamp, every line is resident and a hit, and the first fetch
 * (a hit too, an ITLB miss at most) makes the page the MRU page, so the
 * later ones would change nothing. Code that calls between pages (sqlite3,
 * Python) then costs one fetch call per superblock, not one per line. */
static void if_skip_begin(Ctx *c)
{
    IRSB *sb = c->sb;
    IRTemp st = newIRTemp(sb->tyenv, Ity_I64), d = newIRTemp(sb->tyenv, Ity_I64);
    c->if_stamp = if_stamp_new();
    c->if_gen = newIRTemp(sb->tyenv, Ity_I64);
    addStmtToIRSB(sb, IRStmt_WrTmp(c->if_gen, IRExpr_Load(Iend_LE, Ity_I64,
                                                          mkIRExpr_HWord((HWord)&vpmu_if_gen))));
    addStmtToIRSB(sb, IRStmt_WrTmp(st, IRExpr_Load(Iend_LE, Ity_I64,
                                                   mkIRExpr_HWord((HWord)c->if_stamp))));
    addStmtToIRSB(sb, IRStmt_WrTmp(d, IRExpr_Binop(Iop_Xor64, IRExpr_RdTmp(c->if_gen),
                                                   IRExpr_RdTmp(st))));
    c->if_need_lines = newIRTemp(sb->tyenv, Ity_I1);
    addStmtToIRSB(sb, IRStmt_WrTmp(c->if_need_lines,
                                   IRExpr_Binop(Iop_CmpNE64, IRExpr_RdTmp(d),
                                                IRExpr_Const(IRConst_U64(0)))));
    if (c->if_skip_bits > 0) {
        IRTemp dp = if_page_differs(sb, c->if_page);
        c->if_need = newIRTemp(sb->tyenv, Ity_I1);
        addStmtToIRSB(sb, IRStmt_WrTmp(c->if_need, IRExpr_Binop(Iop_Or1,
                                                                IRExpr_RdTmp(c->if_need_lines),
                                                                IRExpr_RdTmp(dp))));
    } else {
        c->if_need = c->if_need_lines; /* no TLB: the gen alone decides */
    }
}

/* Once the last instruction's fetch is made (or skipped): the superblock's
 * stamp is the gen it started with. If no L1I fill happened while it ran,
 * that is the gen now and every line it fetched (or skipped) is resident:
 * the next run may skip. Otherwise the stamp is an old gen and the next run
 * fetches. An exit of the last instruction leaves after the store, which
 * matters: without chasing a superblock ends at its conditional branch,
 * whose taken or fall-through path is that instruction's exit, and a loop
 * whose back edge is the exit never stored its stamp, so it fetched every
 * iteration. An exit before the last instruction leaves the stamp alone:
 * lines after it were not fetched. */
static void if_skip_stamp(Ctx *c)
{
    addStmtToIRSB(c->sb, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)c->if_stamp),
                                      IRExpr_RdTmp(c->if_gen)));
}

/* The translation's context: what this superblock counts and calls. */
static void ctx_init(Ctx *cp, IRSB *sbIn, const VexGuestLayout *layout)
{
    Int i;
    VG_(memset)(cp, 0, offsetof(Ctx, items));
    cp->sb = deepCopyIRSBExceptStmts(sbIn);
    live_base_tmp = IRTemp_INVALID;
    live_base_offset = layout->total_sizeB + VPMU_LIVE_BASE_GUEST_OFFSET;
    cp->do_mem = vpmu_state.clo.level >= VPMU_LEVEL_CORE;
    cp->do_br = vpmu_state.clo.level >= VPMU_LEVEL_CORE;
    cp->do_fp = vpmu_state.clo.level >= VPMU_LEVEL_FULL;
    cp->do_int = vpmu_state.clo.level >= VPMU_LEVEL_FULL;
    cp->hook_mem = cp->do_mem && vpmu_node_want_mem();
    cp->hook_br = cp->do_br && vpmu_node_want_branch();
    cp->hook_if = vpmu_node_want_ifetch();
    cp->if_line = vpmu_node_ifetch_line();
    cp->prof = vpmu_state.on.profile;
    cp->counted = vpmu_state.ev_counted;
    cp->if_gen = cp->if_need = cp->if_need_lines = IRTemp_INVALID;
    cp->if_fetched = False;
    cp->if_last_imark = NULL;
    cp->ld_call = -1;
    cp->if_skip_bits = cp->hook_if ? vpmu_node_ifetch_skip_bits() : -1;
    cp->if_mru = cp->hook_if && vpmu_node_ifetch_mru(&cp->if_mru_ways, &cp->if_mru_set_mask,
                                                     &cp->if_mru_page_bits);
    cp->if_mru_tags = IRTemp_INVALID;
    if (!if_skip_applies(cp, sbIn)) cp->if_skip_bits = -1;
    for (i = sbIn->stmts_used - 1; i >= 0 && cp->if_skip_bits >= 0; i--)
        if (sbIn->stmts[i] && sbIn->stmts[i]->tag == Ist_IMark) {
            cp->if_last_imark = sbIn->stmts[i];
            break;
        }
    cp->offset_sp = layout->offset_SP;
    cp->offset_ip = layout->offset_IP;
    /* a profile's call graph needs the control transfers classified (the
     * extra branch counts reach no programmed counter) */
    cp->do_br = cp->do_br || cp->prof;
}

static UInt sb_n_insn(const IRSB *sbIn)
{
    UInt n_insn = 0, k;
    for (k = 0; k < (UInt)sbIn->stmts_used; k++)
        if (sbIn->stmts[k] && sbIn->stmts[k]->tag == Ist_IMark)
            n_insn++;
    return n_insn;
}

/* The overflow check first: if it signalled, leave for the scheduler
 * (Ijk_Yield) before this superblock counts anything; the signal is
 * delivered there and the superblock runs from its start after the
 * handler. */
static void sb_ovf_check(IRSB *sb, IRSB *sbIn, Addr nraddr, const VexGuestLayout *layout)
{
    IRTemp fired = newIRTemp(sb->tyenv, Ity_I64);
    struct vpmu_sb_desc *desc;
    UInt n_insn = sb_n_insn(sbIn), k;
    IRDirty *d;
    /* kept for as long as the translation may run (a discarded one's
     * few bytes are not reclaimed) */
    desc = VG_(malloc)("hpm.ovf.sb", sizeof *desc + n_insn * sizeof(Addr));
    desc->start = nraddr;
    desc->upcall = vpmu_upcall_entry;
    desc->n = 0;
    for (k = 0; k < (UInt)sbIn->stmts_used; k++)
        if (sbIn->stmts[k] && sbIn->stmts[k]->tag == Ist_IMark)
            desc->insn[desc->n++] = (Addr)sbIn->stmts[k]->Ist.IMark.addr;
    IRType word = sizeof(HWord) == 8 ? Ity_I64 : Ity_I32; /* guest = host */
    IRTemp sp = newIRTemp(sb->tyenv, word);
    addStmtToIRSB(sb, IRStmt_WrTmp(sp, IRExpr_Get(layout->offset_SP, word)));
    d = unsafeIRDirty_1_N(fired, 2, "vpmu_ovf_check", VG_(fnptr_to_fnentry)(&vpmu_ovf_check),
                          mkIRExprVec_2(mkIRExpr_HWord((HWord)desc), IRExpr_RdTmp(sp)));
    /* an upcall moves the stack pointer */
    d->nFxState = 1;
    d->fxState[0].fx = Ifx_Modify;
    d->fxState[0].offset = layout->offset_SP;
    d->fxState[0].size = layout->sizeof_SP;
    d->fxState[0].nRepeats = 0;
    d->fxState[0].repeatLen = 0;
    IRTemp go = newIRTemp(sb->tyenv, Ity_I1);
    addStmtToIRSB(sb, IRStmt_Dirty(d));
    if (vpmu_upcall_entry) {
        /* straight to the program's entry, chained like any jump: no
         * scheduler, no system call */
        IRTemp up = newIRTemp(sb->tyenv, Ity_I1);
        addStmtToIRSB(sb,
                      IRStmt_WrTmp(up, IRExpr_Binop(Iop_CmpEQ64, IRExpr_RdTmp(fired),
                                                    IRExpr_Const(IRConst_U64(VPMU_OVF_UPCALL)))));
        addStmtToIRSB(sb, IRStmt_Exit(IRExpr_RdTmp(up), Ijk_Boring,
                                      IRConst_U64((ULong)vpmu_upcall_entry), layout->offset_IP));
    }
    addStmtToIRSB(sb, IRStmt_WrTmp(go, IRExpr_Binop(Iop_CmpNE64, IRExpr_RdTmp(fired),
                                                    IRExpr_Const(IRConst_U64(0)))));
    addStmtToIRSB(sb, IRStmt_Exit(IRExpr_RdTmp(go), Ijk_Yield, IRConst_U64((ULong)nraddr),
                                  layout->offset_IP));
}

/* An instruction's start: the one before ends, its counts and calls
 * begin. */
static void do_imark(Ctx *c, IRStmt *st)
{
    end_insn(c);
    sample_point(c);
    if (vpmu_state.on.gate) {
        UInt g = vpmu_gate_at((Addr)st->Ist.IMark.addr);
        if (g) {
            /* the instructions before this one are counted (or
             * not) as the gate finds them: flushed first */
            IRDirty *di;
            flush_all(c);
            di = unsafeIRDirty_0_N(0, "vpmu_gate_hit",
                                   VG_(fnptr_to_fnentry)((void *)&vpmu_gate_hit),
                                   mkIRExprVec_2(mkIRExpr_HWord(g), guest_sp(c)));
            addStmtToIRSB(c->sb, IRStmt_Dirty(di));
        }
    }
    c->in_insn = True;
    c->ld_call = -1; /* merges stay within an instruction */
    c->insn_addr = (Addr)st->Ist.IMark.addr;
    c->insn_len = st->Ist.IMark.len;
    c->insn_kind = decode_insn(c->insn_addr, c->insn_len);
    c->insn_has_fp = False;
    c->insn_cond_done = False;
    if (c->insn_kind != INSN_REP_STR)
        c->cur[VPMU_EV_INSTRUCTIONS] += 1;
    addStmtToIRSB(c->sb, st);
    if (c->prof) {
        c->cc = vpmu_prof_cc(c->insn_addr);
        if (c->insn_kind == INSN_JCC || c->insn_kind == INSN_JMP_REL) {
            /* the control-flow graph's edges: the profile's loops */
            Addr t = branch_target(c->insn_addr, c->insn_len);
            if (t != 0)
                vpmu_prof_branch(c->cc, t, c->insn_kind == INSN_JCC);
        }
    }
    if (c->if_skip_bits >= 0 && c->if_need == IRTemp_INVALID)
        if_skip_begin(c);
    if (c->hook_if)
        ifetch(c, c->insn_addr, c->insn_len);
    if (st == c->if_last_imark && c->if_need != IRTemp_INVALID)
        if_skip_stamp(c);
}

/* Every statement but an IMark: its memory accesses and operations are
 * counted, then it is copied. */
static void do_stmt(Ctx *c, IRStmt *st, IRTypeEnv *tyenv)
{
    /* a load's call and a store of the same bytes merge only across
     * register and temporary writes (mem_access) */
    if (st->tag != Ist_WrTmp && st->tag != Ist_Put && st->tag != Ist_PutI &&
        st->tag != Ist_Store && st->tag != Ist_CAS)
        c->ld_call = -1;
    switch (st->tag) {
    case Ist_WrTmp: {
        IRExpr *e = st->Ist.WrTmp.data;
        switch (e->tag) {
        case Iex_Load:
            mem_access(c, e->Iex.Load.addr, sizeofIRType(e->Iex.Load.ty), False, NULL);
            break;
        case Iex_Unop:
            count_op(c, e->Iex.Unop.op);
            break;
        case Iex_Binop:
            count_op(c, e->Iex.Binop.op);
            break;
        case Iex_Triop:
            count_op(c, e->Iex.Triop.details->op);
            break;
        case Iex_Qop:
            count_op(c, e->Iex.Qop.details->op);
            break;
        default:
            break;
        }
        addStmtToIRSB(c->sb, st);
        break;
    }
    case Ist_Store:
        mem_access(c, st->Ist.Store.addr, sizeofIRType(typeOfIRExpr(tyenv, st->Ist.Store.data)),
                   True, NULL);
        addStmtToIRSB(c->sb, st);
        break;
    case Ist_StoreG: {
        IRStoreG *sg = st->Ist.StoreG.details;
        mem_access(c, sg->addr, sizeofIRType(typeOfIRExpr(tyenv, sg->data)), True, sg->guard);
        addStmtToIRSB(c->sb, st);
        break;
    }
    case Ist_LoadG: {
        IRLoadG *lg = st->Ist.LoadG.details;
        IRType tres = Ity_INVALID, targ = Ity_INVALID;
        typeOfIRLoadGOp(lg->cvt, &tres, &targ);
        mem_access(c, lg->addr, sizeofIRType(targ), False, lg->guard);
        addStmtToIRSB(c->sb, st);
        break;
    }
    case Ist_CAS: {
        IRCAS *cas = st->Ist.CAS.details;
        UInt sz = sizeofIRType(typeOfIRExpr(tyenv, cas->dataLo));
        if (cas->dataHi)
            sz *= 2;
        mem_access(c, cas->addr, sz, False, NULL);
        mem_access(c, cas->addr, sz, True, NULL);
        addStmtToIRSB(c->sb, st);
        break;
    }
    case Ist_LLSC: {
        if (st->Ist.LLSC.storedata == NULL)
            mem_access(c, st->Ist.LLSC.addr, sizeofIRType(typeOfIRTemp(tyenv, st->Ist.LLSC.result)),
                       False, NULL);
        else
            mem_access(c, st->Ist.LLSC.addr,
                       sizeofIRType(typeOfIRExpr(tyenv, st->Ist.LLSC.storedata)), True, NULL);
        addStmtToIRSB(c->sb, st);
        break;
    }
    case Ist_Dirty: {
        IRDirty *d = st->Ist.Dirty.details;
        if (d->mFx != Ifx_None && d->mSize > 0) {
            if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
                mem_access(c, d->mAddr, (UInt)d->mSize, False, d->guard);
            if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
                mem_access(c, d->mAddr, (UInt)d->mSize, True, d->guard);
        }
        addStmtToIRSB(c->sb, st);
        break;
    }
    case Ist_Exit:
        do_exit(c, st);
        addStmtToIRSB(c->sb, st);
        break;
    default:
        addStmtToIRSB(c->sb, st);
        break;
    }
}

IRSB *vpmu_instrument(VgCallbackClosure *closure, IRSB *sbIn,
                      const VexGuestLayout *layout, const VexGuestExtents *vge,
                      const VexArchInfo *archinfo_host, IRType gWordTy,
                      IRType hWordTy)
{
    Ctx c;
    Int i;

    (void)archinfo_host;
    if (gWordTy != Ity_I64 || hWordTy != Ity_I64)
        VG_(tool_panic)("hpm: only amd64 guests on amd64 hosts are supported");

    ctx_init(&c, sbIn, layout);
    if (vpmu_gate_trigger_armed && vge->n_used > 0) {
        /* the trigger: counting starts at the first superblock boundary
         * after its N-th event */
        IRDirty *d = unsafeIRDirty_0_N(0, "vpmu_gate_check",
                                       VG_(fnptr_to_fnentry)((void *)&vpmu_gate_check),
                                       mkIRExprVec_0());
        addStmtToIRSB(c.sb, IRStmt_Dirty(d));
    }
    if (vpmu_mpx_armed && vge->n_used > 0) {
        /* multiplexing: the next set at the first superblock boundary
         * after each period of the correlate */
        IRDirty *d = unsafeIRDirty_0_N(0, "vpmu_mpx_check",
                                       VG_(fnptr_to_fnentry)((void *)&vpmu_mpx_check),
                                       mkIRExprVec_0());
        addStmtToIRSB(c.sb, IRStmt_Dirty(d));
    }
    if (vpmu_ovf_instrumented && vge->n_used > 0)
        sb_ovf_check(c.sb, sbIn, (Addr)closure->nraddr, layout);

    for (i = 0; i < sbIn->stmts_used; i++) {
        IRStmt *st = sbIn->stmts[i];
        if (!st || st->tag == Ist_NoOp)
            continue;
        if (st->tag == Ist_IMark)
            do_imark(&c, st);
        else
            do_stmt(&c, st, sbIn->tyenv);
    }
    do_sb_end(&c, sbIn);
    return c.sb;
}
