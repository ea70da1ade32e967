/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_gate.c - counting gated by where the program is (seed 004's
 * start-at-address and trigger events; vpmu_gate.h):
 *   --hpm-start-at=SYM|ADDR   counting starts whenever execution reaches it
 *   --hpm-stop-at=SYM|ADDR    ... stops whenever execution reaches it
 *   --hpm-only=SYM|ADDR       counts only while that function (entered at
 *                             its first instruction) and its callees run
 *   --hpm-trigger=KIND:N      counting starts once N events of KIND (an
 *                             exact core event, summed over the cores)
 *                             happened, counted or not
 * The gates drive the same global start/stop as HPM_VPMU_START/STOP (the
 * UPC's run bit): what runs while stopped is counted nowhere, profiles
 * included. A start or stop at an address is exact: the instrumentation
 * flushes the counts of the instructions before it first, so the
 * instruction at the address is the first counted (start) or the first not
 * counted (stop). --hpm-only stops after the function's return instruction.
 * A trigger is checked at each superblock's start: counting starts at the
 * first superblock boundary after the N-th event (a skid of less than one
 * superblock).
 */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_transtab.h"

#include "catalog.h"
#include "hpm_client.h"
#include "vpmu_gate.h"
#include "vpmu_node.h"
#include "vpmu_state.h"

Bool vpmu_gate_trigger_armed;

/* a place: a symbol name (matched at a function's first instruction) or an
 * address */
struct place {
    const HChar *sym;
    Addr addr;
    Bool given;
};

static struct place start_at, stop_at, only;
static const HChar *clo_trigger;
static Int trigger_ev = -1; /* the exact core event (VPMU_EV_*) */
static ULong trigger_n;

/* --hpm-only: per thread, the stack pointers at the function's entries
 * still open (recursion nests) */
struct only_stack {
    Addr *sp;
    UInt depth, cap;
};
static struct only_stack *only_stacks;
static UInt only_open; /* open entries over all threads: counting while > 0 */

static void place_parse(const HChar *arg, const HChar *v, struct place *p)
{
    p->given = True;
    if (v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
        HChar *end;
        p->addr = (Addr)VG_(strtoull16)(v, &end);
        if (*end || p->addr == 0)
            VG_(fmsg_bad_option)(arg, "expected a symbol or a hexadecimal address 0x...\n");
        p->sym = NULL;
    } else {
        if (!*v)
            VG_(fmsg_bad_option)(arg, "expected a symbol or a hexadecimal address 0x...\n");
        p->sym = v;
    }
}

Bool vpmu_gate_option(const HChar *arg)
{
    const HChar *v;
    if VG_STR_CLO (arg, "--hpm-start-at", v) {
        place_parse(arg, v, &start_at);
    } else if VG_STR_CLO (arg, "--hpm-stop-at", v) {
        place_parse(arg, v, &stop_at);
    } else if VG_STR_CLO (arg, "--hpm-only", v) {
        place_parse(arg, v, &only);
    } else if VG_STR_CLO (arg, "--hpm-trigger", clo_trigger) {
    } else {
        return False;
    }
    return True;
}

void vpmu_gate_usage(void)
{
    VG_(printf)("    --hpm-start-at=SYM|0xADDR start counting whenever execution reaches it\n"
                "    --hpm-stop-at=SYM|0xADDR  stop counting whenever execution reaches it\n"
                "    --hpm-only=SYM|0xADDR     count only inside that function and its callees\n"
                "    --hpm-trigger=KIND:N      start counting after N events of KIND (an\n"
                "                              exact core event, e.g. INSTRUCTIONS:1000000)\n");
}

/* The trigger's event is counted whatever the programmed kinds need: its
 * level of instrumentation (a trigger on stores with only INSTRUCTIONS
 * programmed, level insn, had never fired) and its live lane. Translations
 * made before do not count it: at start-up there are none, and the
 * request discards them all (vpmu_gate_request). */
static void count_trigger_event(Int ev)
{
    Int lvl = ev == VPMU_EV_INSTRUCTIONS                                     ? VPMU_LEVEL_INSN
              : ev >= VPMU_EV_FP_INSTRUCTIONS && ev <= VPMU_EV_INT_LOGIC ? VPMU_LEVEL_FULL
                                                                            : VPMU_LEVEL_CORE;
    if (lvl > vpmu_state.clo.level)
        vpmu_state.clo.level = lvl;
    vpmu_state.ev_counted |= 1u << ev;
}

Bool vpmu_gate_init(void)
{
    Bool start_stopped = False;
    if (clo_trigger) {
        const HChar *colon = VG_(strchr)(clo_trigger, ':');
        HChar *end;
        Int kind;
        if (!colon) {
            VG_(fmsg_bad_option)("--hpm-trigger", "expected KIND:N, e.g. INSTRUCTIONS:1000000\n");
            VG_(exit)(1); /* after start-up, a bad option does not end the run */
        }
        kind = hpm_catalog_kind_by_name(clo_trigger, (SizeT)(colon - clo_trigger));
        trigger_ev = kind >= 0 && kind < HPM_K_CORE_COUNT ? vpmu_node_kind_event((UInt)kind) : -1;
        if (trigger_ev < 0) {
            VG_(fmsg_bad_option)("--hpm-trigger",
                                 "the trigger's kind must be an exact core event "
                                 "(INSTRUCTIONS, LOADS, BR_COND, FP_OPS, ...)\n");
            VG_(exit)(1); /* after start-up, a bad option does not end the run */
        }
        trigger_n = VG_(strtoull10)(colon + 1, &end);
        if (*end || colon[1] == 0 || trigger_n == 0) {
            VG_(fmsg_bad_option)("--hpm-trigger", "N must be a positive integer\n");
            VG_(exit)(1); /* after start-up, a bad option does not end the run */
        }
        vpmu_gate_trigger_armed = True;
        count_trigger_event(trigger_ev);
        start_stopped = True;
    }
    if (start_at.given)
        start_stopped = True;
    if (only.given) {
        only_stacks = VG_(calloc)("hpm.gate.only", VG_N_THREADS, sizeof *only_stacks);
        start_stopped = True;
    }
    vpmu_state.on.gate = start_at.given || stop_at.given || only.given;
    return start_stopped;
}

static Bool place_is(const struct place *p, Addr a)
{
    const HChar *name;
    if (!p->given)
        return False;
    if (!p->sym)
        return p->addr == a;
    return VG_(get_fnname_if_entry)(VG_(current_DiEpoch)(), a, &name) &&
           VG_(strcmp)(name, p->sym) == 0;
}

UInt vpmu_gate_at(Addr a)
{
    UInt g = 0;
    if (place_is(&start_at, a))
        g |= VPMU_GATE_START;
    if (place_is(&stop_at, a))
        g |= VPMU_GATE_STOP;
    if (place_is(&only, a))
        g |= VPMU_GATE_ENTER;
    return g;
}

Bool vpmu_gate_follows_returns(void)
{
    return only.given;
}

void vpmu_gate_hit(UWord gates, Addr sp)
{
    ThreadId tid = VG_(get_running_tid)();
    if (gates & VPMU_GATE_ENTER) {
        struct only_stack *s;
        if (tid < VG_N_THREADS) {
            s = &only_stacks[tid];
            if (s->depth == s->cap) {
                s->cap = s->cap ? 2 * s->cap : 16;
                s->sp = VG_(realloc)("hpm.gate.sp", s->sp, s->cap * sizeof *s->sp);
            }
            s->sp[s->depth++] = sp;
            if (only_open++ == 0)
                vpmu_counting_start();
        }
    }
    /* a stop at the same place as a start wins: nothing is counted from it */
    if ((gates & VPMU_GATE_START) && !(gates & VPMU_GATE_STOP))
        vpmu_counting_start();
    if (gates & VPMU_GATE_STOP)
        vpmu_counting_stop();
}

void vpmu_gate_ret(Addr sp)
{
    ThreadId tid = VG_(get_running_tid)();
    struct only_stack *s;
    Bool closed = False;
    if (!only_stacks || tid >= VG_N_THREADS)
        return;
    s = &only_stacks[tid];
    /* entries whose return address slot is now below the stack: returned
     * (or unwound past by a longjmp) */
    while (s->depth > 0 && s->sp[s->depth - 1] < sp) {
        s->depth--;
        only_open--;
        closed = True;
    }
    if (closed && only_open == 0)
        vpmu_counting_stop();
}

void vpmu_gate_thread_end(ThreadId tid)
{
    if (!only_stacks || tid >= VG_N_THREADS || only_stacks[tid].depth == 0)
        return;
    only_open -= only_stacks[tid].depth;
    only_stacks[tid].depth = 0;
    if (only_open == 0)
        vpmu_counting_stop();
}

Long vpmu_gate_request(UWord gate, UWord arg, ULong n)
{
    switch (gate) {
    case HPM_VPMU_GATE_CLEAR:
        start_at.given = stop_at.given = only.given = False;
        vpmu_gate_trigger_armed = False;
        break;
    case HPM_VPMU_GATE_START_AT:
    case HPM_VPMU_GATE_STOP_AT:
    case HPM_VPMU_GATE_ONLY: {
        struct place *p = gate == HPM_VPMU_GATE_START_AT  ? &start_at
                          : gate == HPM_VPMU_GATE_STOP_AT ? &stop_at
                                                          : &only;
        if (arg == 0)
            return HPM_VPMU_EINVAL;
        p->given = True;
        p->sym = NULL;
        p->addr = (Addr)arg;
        if (gate == HPM_VPMU_GATE_ONLY && !only_stacks)
            only_stacks = VG_(calloc)("hpm.gate.only", VG_N_THREADS, sizeof *only_stacks);
        if (gate != HPM_VPMU_GATE_STOP_AT && only_open == 0)
            vpmu_counting_stop();
        break;
    }
    case HPM_VPMU_GATE_TRIGGER: {
        Int ev = arg < HPM_K_CORE_COUNT ? vpmu_node_kind_event((UInt)arg) : -1;
        if (ev < 0 || n == 0)
            return HPM_VPMU_EINVAL;
        trigger_ev = ev;
        /* counted from the retranslation below on, if it was not */
        count_trigger_event(ev);
        trigger_n = vpmu_node_event_total(ev) + n; /* n more from now */
        vpmu_gate_trigger_armed = True;
        vpmu_counting_stop();
        break;
    }
    default:
        return HPM_VPMU_EINVAL;
    }
    vpmu_state.on.gate = start_at.given || stop_at.given || only.given;
    /* code translated before has no gate checks: translate it again */
    VG_(discard_translations_safely)((Addr)0x1000, ~(SizeT)0xfff, "hpm gates");
    return HPM_VPMU_OK;
}

UWord vpmu_gate_check(void)
{
    if (!vpmu_gate_trigger_armed || vpmu_node_event_total(trigger_ev) < trigger_n)
        return 0;
    vpmu_gate_trigger_armed = False;
    vpmu_counting_start();
    return 1;
}
