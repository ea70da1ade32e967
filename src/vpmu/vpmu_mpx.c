/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_mpx.c - multiplexing: more event sets than one configuration holds,
 * cycled in one run (seed 004's "next request on each interrupt", with a
 * correlate event counted throughout; vpmu_mpx.h, docs/events.md).
 *
 *   --hpm-mpx=PERIOD:KIND:SET/SET/...   SET = specs separated by commas
 *
 * Set 0 is programmed at start; whenever PERIOD more events of KIND (an
 * exact core event, summed over the cores, counted or not) happened, the
 * next set replaces it at the first superblock boundary after (the
 * trigger's check, vpmu_gate.c). At each switch the set's UPC counts are
 * added to their specs' totals and the correlate's count to the set's.
 * The output then holds each spec's count over the intervals its set was
 * programmed and, per set, its intervals and the correlate's count in
 * them: hpm count scales each event by the correlate (the whole run's over
 * its set's) and labels the result estimated.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"

#include "catalog.h"
#include "vpmu_format.h"
#include "vpmu_mpx.h"
#include "vpmu_node.h"
#include "vpmu_out.h"
#include "vpmu_state.h"

Bool vpmu_mpx_armed;

#define MPX_MAX_SETS 64

static const HChar *clo_mpx;
static ULong period;
static Int corr_ev = -1;  /* the exact core event the switches count */
static UInt corr_kind;    /* its catalog kind */
static UInt n_sets, cur;
static UInt *set_specs[MPX_MAX_SETS];
static UInt set_n[MPX_MAX_SETS];
static ULong set_intervals[MPX_MAX_SETS];
static ULong set_corr[MPX_MAX_SETS];
static ULong next_switch;
static ULong switches;
/* each spec's count over the intervals its set was programmed */
static ULong *total;
static UChar *have;

Bool vpmu_mpx_option(const HChar *arg)
{
    return VG_STR_CLO(arg, "--hpm-mpx", clo_mpx);
}

void vpmu_mpx_usage(void)
{
    VG_(printf)("    --hpm-mpx=PERIOD:KIND:SET/SET/...  cycle the event sets (specs separated\n"
                "                              by commas) every PERIOD events of KIND\n");
}

static void bad(const HChar *why)
{
    VG_(fmsg_bad_option)("--hpm-mpx", "%s (PERIOD:KIND:SPEC,SPEC/SPEC,...)\n", why);
    VG_(exit)(1); /* after start-up, a bad option does not end the run */
}

static ULong parse_ulong(const HChar **s)
{
    ULong v = 0;
    UInt digits = 0;
    while (**s >= '0' && **s <= '9' && v < (1ULL << 60)) {
        v = v * 10 + (ULong)(*(*s)++ - '0');
        digits++;
    }
    if (!digits)
        bad("a number expected");
    return v;
}

/* Every set's specs, and their union, must be events the tool was started
 * with (--hpm-events): the instrumentation and models are fixed then. */
static void parse_sets(const HChar *s)
{
    UInt cap = vpmu_node_n_events() + 1;
    while (*s) {
        UInt n = 0;
        if (n_sets == MPX_MAX_SETS)
            bad("too many sets");
        set_specs[n_sets] = VG_(malloc)("hpm.mpx.set", cap * sizeof(UInt));
        while (*s && *s != '/') {
            ULong v = parse_ulong(&s);
            UInt i;
            for (i = 0; i < vpmu_node_n_events() && (ULong)vpmu_node_event_code(i) != v; i++)
                ;
            if (i == vpmu_node_n_events())
                bad("a set holds an event that --hpm-events does not");
            if (n + 1 >= cap)
                bad("a set holds an event twice");
            set_specs[n_sets][n++] = (UInt)v;
            if (*s == ',')
                s++;
            else if (*s && *s != '/')
                bad("a spec is a number");
        }
        if (n == 0)
            bad("an empty set");
        set_n[n_sets++] = n;
        if (*s == '/')
            s++;
    }
    if (n_sets < 1)
        bad("no set");
}

/* At start (nothing ran yet) the node's own programming; at a switch the
 * tool's, which also restarts the per-thread counts. */
static void program_set(UInt s, Bool at_start)
{
    Int rc = at_start ? vpmu_node_select(set_specs[s], set_n[s])
                      : vpmu_reprogram(set_specs[s], set_n[s]);
    if (rc != 0) {
        if (at_start)
            bad("a set the machine cannot count");
        tl_assert(0); /* each set was counted at start: it still can be */
    }
    set_intervals[s]++;
}

void vpmu_mpx_init(void)
{
    const HChar *s = clo_mpx, *colon;
    Int kind;
    UInt i;
    if (!clo_mpx)
        return;
    period = parse_ulong(&s);
    if (*s++ != ':' || period == 0)
        bad("PERIOD must be a positive integer");
    colon = VG_(strchr)(s, ':');
    if (!colon)
        bad("KIND expected");
    kind = hpm_catalog_kind_by_name(s, (SizeT)(colon - s));
    corr_ev = kind >= 0 && kind < HPM_K_CORE_COUNT ? vpmu_node_kind_event((UInt)kind) : -1;
    if (corr_ev < 0)
        bad("KIND must be an exact core event (INSTRUCTIONS, LOADS, ...)");
    corr_kind = (UInt)kind;
    parse_sets(colon + 1);
    for (i = 0; i < n_sets; i++) {
        UInt j, has = 0, k;
        Int core;
        for (j = 0; j < set_n[i]; j++)
            has |= hpm_catalog_decode(set_specs[i][j], &k, &core) == 0 && k == corr_kind;
        if (!has)
            bad("every set holds the correlate KIND");
    }
    total = VG_(calloc)("hpm.mpx.total", HPM_CAT_SPECS, sizeof *total);
    have = VG_(calloc)("hpm.mpx.have", HPM_CAT_SPECS, 1);
    cur = 0;
    program_set(0, True);
    next_switch = vpmu_node_event_total(corr_ev) + period;
    vpmu_mpx_armed = True;
}

/* The programmed set's counts since it was programmed, into the totals,
 * and the correlate's (its codes' level-high counts) into the set's. */
static void take_counts(void)
{
    UInt i;
    vpmu_account();
    for (i = 0; i < vpmu_node_n_events(); i++) {
        UInt spec = (UInt)vpmu_node_event_code(i), kind;
        Int core;
        ULong v = vpmu_node_event_value(i);
        total[spec] = total[spec] + v < total[spec] ? ~0ULL : total[spec] + v;
        have[spec] = 1;
        if (hpm_catalog_decode(spec, &kind, &core) == 0 && kind == corr_kind)
            set_corr[cur] += v;
    }
}

UWord vpmu_mpx_check(void)
{
    ULong now;
    if (!vpmu_mpx_armed || n_sets < 2)
        return 0;
    now = vpmu_node_event_total(corr_ev);
    if (now < next_switch)
        return 0;
    take_counts();
    cur = cur + 1 == n_sets ? 0 : cur + 1;
    program_set(cur, False);
    switches++;
    /* the next switch PERIOD events after this one (never a burst of
     * switches to catch up: a superblock's skid is not a period) */
    next_switch = now + period;
    return 1;
}

void vpmu_mpx_finish(void)
{
    if (!vpmu_mpx_armed)
        return;
    take_counts();
    vpmu_mpx_armed = False;
}

Bool vpmu_mpx_on(void)
{
    return clo_mpx != NULL;
}

void vpmu_mpx_write(Out *o)
{
    UInt s, i, spec;
    HChar name[HPM_CAT_NAME_MAX];
    for (spec = 0; spec < HPM_CAT_SPECS; spec++) {
        if (!have[spec])
            continue;
        vpmu_node_code_name(spec, name, sizeof name);
        out_printf(o, VPMU_REC_COUNT " %u %s %llu\n", spec, name, total[spec]);
    }
    out_printf(o, VPMU_REC_MPX " %u %llu %s %llu\n", n_sets, period,
               hpm_catalog_kind(corr_kind)->name, switches);
    for (s = 0; s < n_sets; s++) {
        out_printf(o, VPMU_REC_MPX_SET " %u %llu %llu", s, set_intervals[s], set_corr[s]);
        for (i = 0; i < set_n[s]; i++)
            out_printf(o, "%s%u", i ? "," : " ", set_specs[s][i]);
        out_printf(o, "\n");
    }
}
