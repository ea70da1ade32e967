/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_profile.c - exact attribution of the counted events to instructions,
 * and inclusive costs along the call graph (vpmu_profile.h; the records are
 * defined in vpmu_format.h; hpm profile turns them into a callgrind file).
 */
#include "pub_tool_basics.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"

#include "vpmu_format.h"
#include "vpmu_io.h"
#include "vpmu_state.h"
#include "vpmu_dataobj.h"

/* ------------------------------------------------------------------------
 * Cost centers
 * ---------------------------------------------------------------------- */

/* Events the instrumentation adds under a guard, one slot each. */
static const Int dyn_events[] = {
    VPMU_EV_INSTRUCTIONS, VPMU_EV_LOADS,       VPMU_EV_LOAD_BYTES,
    VPMU_EV_STORES,       VPMU_EV_STORE_BYTES,
};
#define N_DYN ((Int)(sizeof dyn_events / sizeof dyn_events[0]))
#define N_VALS (N_DYN + VPMU_PR_N)
/* Where a cost center's values are (v): the raw statistics (RAW_AT), then
 * the dynamic slots (guarded loads and stores, REP instructions: rare).
 * An instruction's mispredicts are in raw's first six (its accesses, the
 * other three, stay 0: vpmu_node.h): one cache line, the first of v. (A
 * conditional branch's taken count comes from its segments, not a slot:
 * vpmu_instrument.c, do_exit.) */
#define RAW_AT 0
#define DYN_AT(d) (RAW_AT + VPMU_PR_N + (d))

/* A cost center is 64-byte aligned, its header one line: the values that
 * most runs of an instruction touch (a branch's mispredicts: RAW_AT) are
 * the next line; misses touch the ones after. Cost centers are never
 * freed: they come from chunks, in translation order, so that a
 * superblock's are neighbours. */
struct vpmu_cc {
    void *io_kept;        /* retired: its I/O counts (its io_site, out of io_sites) */
    UWord addr;           /* the instruction (cc_slot finds it) */
    struct vpmu_cc *all;  /* every cost center, newest first */
    UInt obj;             /* index into objs */
    UInt idx;             /* dense number, for the output's work arrays */
    ULong *saved;         /* values when the counters stopped (NULL: 0) */
    struct arc *arc;      /* a call site's last arc (most call one target) */
    Addr jump_target;     /* an indirect jump's last target, */
    Bool jump_entry;      /* and whether it is a function's entry */
    Bool plt;             /* in a PLT section: a stub's jump */
    Bool io;              /* a system call that counted: in io_sites */
    Bool retired;         /* its code was unmapped (vpmu_prof_unmapped) */
    Bool branch;          /* a direct branch: in branches */
    ULong v[N_VALS];      /* dyn slots and the raw model statistics (RAW_AT) */
} __attribute__((aligned(64)));
_Static_assert(__builtin_offsetof(struct vpmu_cc, v) == 64, "a cost center's header is one line");

struct seg {
    ULong count;
    ULong saved;
    struct seg *all;
    UInt n;
    struct vpmu_prof_item items[0];
};

/* A called function (a call target) and how many of its calls are open
 * now: a recursive call's cost is inside the outermost one's. */
struct callee {
    struct callee *next; /* hash chain */
    UWord key;           /* the target */
    UInt depth;
    UInt role;      /* enum alloc_role: an allocator followed for data objects */
    ULong io_stamp; /* vpmu_prof_io: an open frame of it seen already */
};

/* The C library's allocator entry points (and C++'s): their calls tell
 * which heap block an address belongs to and where it was allocated. */
enum alloc_role { ROLE_NONE, ROLE_MALLOC, ROLE_CALLOC, ROLE_REALLOC, ROLE_FREE, ROLE_MEMALIGN };
static const struct {
    const HChar *name;
    UInt role;
} allocators[] = {
    {"malloc", ROLE_MALLOC},     {"__libc_malloc", ROLE_MALLOC}, {"_Znwm", ROLE_MALLOC},
    {"_Znam", ROLE_MALLOC},      {"calloc", ROLE_CALLOC},        {"__libc_calloc", ROLE_CALLOC},
    {"realloc", ROLE_REALLOC},   {"__libc_realloc", ROLE_REALLOC}, {"free", ROLE_FREE},
    {"__libc_free", ROLE_FREE},  {"cfree", ROLE_FREE},           {"_ZdlPv", ROLE_FREE},
    {"_ZdaPv", ROLE_FREE},       {"_ZdlPvm", ROLE_FREE},         {"_ZdaPvm", ROLE_FREE},
    {"memalign", ROLE_MEMALIGN}, {"aligned_alloc", ROLE_MEMALIGN},
};

static UInt role_of(Addr target)
{
    const HChar *name;
    UInt i;
    if (!VG_(get_fnname_if_entry)(VG_(current_DiEpoch)(), target, &name))
        return ROLE_NONE;
    for (i = 0; i < sizeof allocators / sizeof allocators[0]; i++)
        if (VG_(strcmp)(name, allocators[i].name) == 0)
            return allocators[i].role;
    return ROLE_NONE;
}

/* A snapshot of the counted events and raw statistics, and an arc's sums
 * of their differences: the events in the live block's lane order
 * (vpmu_node_prof_snapshot_lanes; 2 * VPMU_LIVE_WORDS of them) and the
 * statistics (VPMU_PR_N) each padded to SNAP_HALF words, the pads 0, one
 * run of SNAP_N words that a return adds two at a time without a branch
 * (a branch per value, taken for the few that moved, mispredicted). */
#define SNAP_HALF 32
#define SNAP_N (2 * SNAP_HALF)
#define SNAP_LANES (2 * VPMU_LIVE_WORDS)
_Static_assert(SNAP_LANES <= SNAP_HALF && VPMU_PR_N <= SNAP_HALF, "a snapshot's halves");
typedef ULong snap_v2 __attribute__((vector_size(16), aligned(8)));

/* A packed snapshot (a frame's while the live block holds what ran since
 * its call, vpmu_prof_fold): 32-bit lanes, the live block's (SNAP_LANES)
 * then each raw statistic's low half up to the memory's bytes
 * (VPMU_PR_DDR), padded to a multiple of four, then the memory's bytes
 * whole (PK_WIDE words). Within a fold interval no lane moves by 2^32 or
 * more (the live block's argument: at most a timeslice of superblocks,
 * each a few accesses, mispredicts, misses), so a lane's difference is
 * exact modulo 2^32, and so is a sum of the differences of one arc's
 * returns (its callee's outermost calls do not overlap). The memory's
 * bytes are the exception (a line or more per access): kept whole. A
 * return adds one vector of lanes to its arc (pk), drained into the arc's
 * sums at the fold: 32 words a return, where the wide sums took 62. */
#define PK_LANES ((SNAP_LANES + VPMU_PR_DDR + 3) & ~3)
#define PK_WIDE (VPMU_PR_N - VPMU_PR_DDR)
#define PK_WORDS (PK_LANES / 2 + PK_WIDE)
_Static_assert(PK_WORDS <= SNAP_HALF, "a packed snapshot fits a frame's ev");
typedef UInt lane_v4 __attribute__((vector_size(16), aligned(8)));

/* A call arc: the call instruction and its target, with the callee's
 * inclusive cost (exact events and raw statistics, deltas), added when its
 * outermost open call returns, as callgrind does: costs of recursive calls
 * are not counted twice. */
struct arc {
    struct arc *next; /* hash chain */
    UWord key;        /* hash of (site, target) */
    struct arc *all;
    struct vpmu_cc *site;
    Addr target;
    struct callee *callee;
    ULong calls;
    struct arc *pk_next; /* on the list of arcs with packed sums (pk_dirty) */
    /* what packed frames' returns added since the last fold (arcs_drain):
     * lanes and wide words of a packed snapshot (PK_*) */
    UInt pk[PK_LANES] __attribute__((aligned(16)));
    ULong pk_wide[PK_WIDE];
    Bool pk_on; /* on pk_dirty */
    ULong ev[SNAP_HALF]; /* then raw: one snapshot's layout */
    ULong raw[SNAP_HALF];
    ULong *saved; /* calls, ev, raw when stopped */
    ULong *io;    /* the I/O and kernel units' counts inside (NULL: none) */
    Addr plt_target;     /* a call of a PLT stub: the stub's last target */
    struct arc *plt_arc; /* and the arc from the call site to it */
    Bool retired;        /* its target was unmapped: calls there make new arcs */
    UInt target_obj;     /* retired: the object its target was in */
};

static VgHashTable *arc_table, *callee_table;
static struct vpmu_cc *all_ccs;
static struct seg *all_segs;
static struct arc *all_arcs;
static UInt n_ccs;
static Int dyn_slot[VPMU_EV_COUNT];
static UInt n_dead_objs; /* objects unmapped while profiled (most runs: none) */
static Bool prof_stopped;
struct shadow;
static struct shadow *shadows; /* VG_N_THREADS of them (a variable) */

/* Inclusive costs leave out what ran while the counters were stopped: per
 * core, the snapshot at the last stop and everything excluded so far (the
 * snapshots are cumulative, counted or not). */
struct excluded {
    ULong stop_ev[SNAP_LANES], stop_raw[VPMU_PR_N]; /* events in lane order */
    ULong ev[SNAP_LANES], raw[VPMU_PR_N];
    Bool any; /* ev or raw not all 0: most runs never stop the counters */
};
static struct excluded *excl;

/* Core c's counted events and statistics so far (frozen while the
 * counters are stopped). */
static void counted_snapshot(UInt c, ULong *ev, ULong *raw)
{
    UInt i;
    for (i = SNAP_LANES; i < SNAP_HALF; i++)
        ev[i] = 0; /* the pads (ev and raw are SNAP_HALF long) */
    for (i = VPMU_PR_N; i < SNAP_HALF; i++)
        raw[i] = 0;
    if (prof_stopped) {
        VG_(memcpy)(ev, excl[c].stop_ev, sizeof excl[c].stop_ev);
        VG_(memcpy)(raw, excl[c].stop_raw, sizeof excl[c].stop_raw);
    } else {
        vpmu_node_prof_snapshot_lanes(c, ev, raw);
    }
    if (!excl[c].any)
        return;
    for (i = 0; i < SNAP_LANES; i++)
        ev[i] -= excl[c].ev[i];
    for (i = 0; i < VPMU_PR_N; i++)
        raw[i] -= excl[c].raw[i];
}

Bool vpmu_prof_option(const HChar *arg)
{
    if VG_BOOL_CLO (arg, "--hpm-profile", vpmu_state.on.profile) {
        return True;
    }
    return False;
}

void vpmu_prof_usage(void)
{
    VG_(printf)("    --hpm-profile=yes|no      attribute every event to its instruction\n"
                "                              and the call graph [no] (hpm profile)\n");
}

static void shadows_init(void);

void vpmu_prof_init(void)
{
    Int i;
    if (!vpmu_state.on.profile)
        return;
    for (i = 0; i < VPMU_EV_COUNT; i++)
        dyn_slot[i] = -1;
    for (i = 0; i < N_DYN; i++)
        dyn_slot[dyn_events[i]] = DYN_AT(i);
    shadows_init();
    excl = VG_(calloc)("hpm.prof.excl", vpmu_node_cores(), sizeof *excl);
    arc_table = VG_(HT_construct)("hpm.prof.arc");
    callee_table = VG_(HT_construct)("hpm.prof.callee");
    vpmu_dobjs_init();
    vpmu_node_sink_data(vpmu_prof_data_raw, vpmu_prof_data_prefetch); /* the node's misses */
    vpmu_node_prof_init();
    prof_stopped = !vpmu_state.running;
}

static struct vpmu_cc *cc_alloc(void)
{
    enum { PER_CHUNK = 256 };
    static struct vpmu_cc *next_cc;
    static UInt left;
    struct vpmu_cc *cc;
    if (left == 0) {
        /* never freed: cost centers live as long as the tool */
        HChar *m = VG_(malloc)("hpm.prof.cc", PER_CHUNK * sizeof *cc + 63);
        next_cc = (struct vpmu_cc *)(((Addr)m + 63) & ~(Addr)63);
        left = PER_CHUNK;
    }
    cc = next_cc++;
    left--;
    VG_(memset)(cc, 0, sizeof *cc);
    return cc;
}

/* Cost centers by address, for the instrumentation (every instruction of
 * every translation asks): blocks of 512 bytes of code, each a slot per
 * byte, found through a small open-addressed table of blocks, the last
 * one first (a superblock's instructions are neighbours). Valgrind's hash
 * table had cost a division and two host cache misses per look-up (the
 * chain's head, the cost center's header), most of them for an address
 * not seen before. */
#define CCB_BITS 9
struct cc_block {
    Addr base; /* address >> CCB_BITS */
    struct vpmu_cc *slot[1u << CCB_BITS];
};
static struct cc_block **ccb_table, *ccb_last;
static UInt ccb_cap, ccb_n;

static inline UInt ccb_hash(Addr base)
{
    return (UInt)((base * 0x9E3779B97F4A7C15ULL) >> 32);
}

static void ccb_insert(struct cc_block *b)
{
    UInt h = ccb_hash(b->base) & (ccb_cap - 1);
    while (ccb_table[h])
        h = (h + 1) & (ccb_cap - 1);
    ccb_table[h] = b;
}

static struct vpmu_cc **cc_slot(Addr a)
{
    Addr base = a >> CCB_BITS;
    struct cc_block *b = ccb_last;
    if (!b || b->base != base) {
        UInt h = ccb_cap ? ccb_hash(base) & (ccb_cap - 1) : 0;
        b = NULL;
        if (ccb_cap)
            while ((b = ccb_table[h]) != NULL && b->base != base)
                h = (h + 1) & (ccb_cap - 1);
        if (!b) {
            if (2 * (ccb_n + 1) > ccb_cap) { /* at most half full */
                struct cc_block **old = ccb_table;
                UInt i, old_cap = ccb_cap;
                ccb_cap = ccb_cap ? 2 * ccb_cap : 1024;
                ccb_table = VG_(calloc)("hpm.prof.ccb", ccb_cap, sizeof *ccb_table);
                for (i = 0; i < old_cap; i++)
                    if (old[i])
                        ccb_insert(old[i]);
                if (old)
                    VG_(free)(old);
            }
            b = VG_(calloc)("hpm.prof.ccb", 1, sizeof *b);
            b->base = base;
            ccb_insert(b);
            ccb_n++;
        }
        ccb_last = b;
    }
    return &b->slot[a & ((1u << CCB_BITS) - 1)];
}

struct vpmu_cc *vpmu_prof_cc(Addr a)
{
    struct vpmu_cc **slot = cc_slot(a), *cc = *slot;
    if (cc)
        return cc;
    cc = cc_alloc();
    cc->addr = (UWord)a;
    cc->obj = vpmu_obj_of(a);
    cc->idx = n_ccs++;
    cc->plt = VG_(DebugInfo_sect_kind)(NULL, a) == Vg_SectPLT;
    cc->all = all_ccs;
    all_ccs = cc;
    /* what runs while the counters are stopped is dropped at their start:
     * a cost center made then starts from its (zero) saved values */
    *slot = cc;
    return cc;
}

/* Direct branches, noted at translation (once per cost center): the
 * edges of the control-flow graph whose loops hpm profile finds (with the
 * fall-through edges the instructions' counts give). Their counts are
 * their instructions' own exact events (BR_COND, BR_COND_TAKEN,
 * BR_DIRECT), known at the end: nothing runs for them. */
struct branch {
    struct vpmu_cc *cc;
    Addr target;
    Bool cond;
};
static struct branch *branches;
static UInt n_branches, cap_branches;

void vpmu_prof_branch(struct vpmu_cc *cc, Addr target, Bool cond)
{
    if (cc->branch)
        return;
    if (n_branches == cap_branches) {
        cap_branches = cap_branches ? 2 * cap_branches : 256;
        branches = VG_(realloc)("hpm.prof.branches", branches, cap_branches * sizeof *branches);
    }
    branches[n_branches].cc = cc;
    branches[n_branches].target = target;
    branches[n_branches].cond = cond;
    n_branches++;
    cc->branch = True;
}

ULong *vpmu_prof_dyn_slot(struct vpmu_cc *cc, Int ev)
{
    tl_assert(ev >= 0 && ev < VPMU_EV_COUNT);
    return dyn_slot[ev] < 0 ? NULL : &cc->v[dyn_slot[ev]];
}

ULong *vpmu_prof_raw_slot(struct vpmu_cc *cc)
{
    return &cc->v[RAW_AT];
}

Addr vpmu_prof_sink_addr(const ULong *sink)
{
    /* the sink is &cc->v[RAW_AT] (vpmu_prof_raw_slot) */
    const struct vpmu_cc *cc;
    if (!sink)
        return 0;
    cc = (const struct vpmu_cc *)((const char *)(sink - RAW_AT) -
                                  __builtin_offsetof(struct vpmu_cc, v));
    return cc->addr;
}

ULong *vpmu_prof_segment(const struct vpmu_prof_item *items, UInt n)
{
    struct seg *s = VG_(malloc)("hpm.prof.seg", sizeof *s + n * sizeof items[0]);
    s->count = 0;
    s->saved = 0;
    s->n = n;
    VG_(memcpy)(s->items, items, n * sizeof items[0]);
    s->all = all_segs;
    all_segs = s;
    return &s->count;
}

/* ------------------------------------------------------------------------
 * Call graph: a shadow stack per thread
 * ---------------------------------------------------------------------- */

struct frame {
    Addr sp; /* the stack pointer after the call pushed its return address */
    struct arc *arc;
    ULong arg0, arg1; /* an allocator's arguments (RDI, RSI) */
    UWord packed;        /* ev holds the live block's words (frame_snapshot) */
    ULong ev[SNAP_HALF]; /* then raw: a snapshot */
    ULong raw[SNAP_HALF];
};
_Static_assert(offsetof(struct frame, raw) == offsetof(struct frame, ev) + SNAP_HALF * sizeof(ULong),
               "a frame's snapshot is one run");
_Static_assert(offsetof(struct arc, raw) == offsetof(struct arc, ev) + SNAP_HALF * sizeof(ULong),
               "an arc's sums are one run");

/* sum += now - then, over a snapshot's SNAP_N words */
static inline void snap_add_since(ULong *sum, const ULong *now, const ULong *then)
{
    UInt i;
    for (i = 0; i < SNAP_N; i += 2)
        *(snap_v2 *)(sum + i) += *(const snap_v2 *)(now + i) - *(const snap_v2 *)(then + i);
}

struct shadow {
    struct frame *f;
    UInt depth, cap;
    UInt packed_from; /* the frames below are not packed */
    /* the core its frames' snapshots are of (the one it ran on at its last
     * call): its calls still open when it exits, or at the end, close on
     * that core's counts, whichever core runs then */
    UInt core;
};

/* ------------------------------------------------------------------------
 * Packed snapshots
 *
 * A call's snapshot is most of a profile's call-graph cost, and most calls
 * return before anything folds the live block (vpmu_fold: a timeslice, a
 * thread switch, a client request) or starts or stops the counters. Such a
 * frame keeps the live block's words as they are (packed), not the lanes
 * (base + live, unpacked): a return subtracts the words, and each lane of
 * the difference is the lane's difference (a lane only grows between two
 * folds, so the low lane never borrows from the high one). Whatever would
 * change the base, empty the live block or change what is excluded first
 * makes the running thread's packed frames whole (vpmu_prof_fold); only
 * that thread's can be packed (a thread switch folds). The raw half is
 * taken whole as before.
 * ---------------------------------------------------------------------- */

static ThreadId packed_tid = VG_INVALID_THREADID;
static UInt packed_core;

/* The running core's raw statistics counted so far (not stopped). */
static inline void raw_snapshot(UInt c, ULong *raw)
{
    UInt i;
    vpmu_node_prof_snapshot_raw(c, raw);
    for (i = VPMU_PR_N; i < SNAP_HALF; i++)
        raw[i] = 0; /* the pad */
    if (UNLIKELY(excl[c].any))
        for (i = 0; i < VPMU_PR_N; i++)
            raw[i] -= excl[c].raw[i];
}

/* The low halves of x[0..4), in order */
static inline lane_v4 narrow4(const ULong *x)
{
    return __builtin_shufflevector((lane_v4) * (const snap_v2 *)x,
                                   (lane_v4) * (const snap_v2 *)(x + 2), 0, 2, 4, 6);
}

/* A packed snapshot of core c, the running one (PK_*), in pk[PK_WORDS]:
 * each four lanes by one 16-byte store, at the offsets the return's lane
 * loop loads from. (Made of the live block's 8-byte words and 4-byte
 * lanes, as it was, each of that loop's fifteen loads spanned two stores,
 * which holds a load until both reach the cache: sqlite3's call graph was
 * a few percent slower so.) */
static inline void pk_snapshot(UInt c, ULong *pk)
{
    const ULong *r = vpmu_node_prof_last_core(c), *n = vpmu_node_prof_last_node();
    UInt w;
    _Static_assert(VPMU_LIVE_WORDS == 15 && SNAP_LANES == 30 && VPMU_PR_CORE_N == 25 &&
                       VPMU_PR_DDR == 29 && PK_LANES == 60 && PK_WIDE == 2,
                   "the packed layout written below");
    for (w = 0; w < 14; w += 2) /* lanes 0-27: the live block's words 0-13 */
        *(snap_v2 *)(pk + w) = *(const snap_v2 *)(vpmu_state.live + w);
    /* lanes 28-31: live word 14, raw 0 and 1 */
    *(snap_v2 *)(pk + 14) = (snap_v2){vpmu_state.live[14], (r[0] & 0xffffffffULL) | r[1] << 32};
    for (w = 16; w <= 24; w += 2) /* lanes 32-51: raw 2-21 */
        *(lane_v4 *)(pk + w) = narrow4(r + 2 + 2 * (w - 16));
    *(lane_v4 *)(pk + 26) = (lane_v4){(UInt)r[22], (UInt)r[23], (UInt)r[24], (UInt)n[25]};
    *(lane_v4 *)(pk + 28) = (lane_v4){(UInt)n[26], (UInt)n[27], (UInt)n[28], 0}; /* and the pad */
    pk[30] = n[29]; /* the memory's bytes, whole */
    pk[31] = n[30];
}

/* Arcs whose pk holds sums (since the last fold) */
static struct arc *pk_dirty;

/* Every arc's packed sums into its sums (ev and raw, lanes in order) */
static void arcs_drain(void)
{
    struct arc *a, *next;
    UInt i;
    for (a = pk_dirty; a; a = next) {
        next = a->pk_next;
        for (i = 0; i < SNAP_LANES; i++)
            a->ev[i] += a->pk[i];
        for (i = 0; i < VPMU_PR_DDR; i++)
            a->raw[i] += a->pk[SNAP_LANES + i];
        for (i = 0; i < PK_WIDE; i++)
            a->raw[VPMU_PR_DDR + i] += a->pk_wide[i];
        VG_(memset)(a->pk, 0, sizeof a->pk);
        VG_(memset)(a->pk_wide, 0, sizeof a->pk_wide);
        a->pk_on = False;
        a->pk_next = NULL;
    }
    pk_dirty = NULL;
}

/* f's snapshot: packed while the counters run */
static void frame_snapshot(struct shadow *sh, ThreadId tid, struct frame *f)
{
    UInt c;
    if (UNLIKELY(prof_stopped)) {
        counted_snapshot(vpmu_node_cur_core(), f->ev, f->raw);
        f->packed = 0;
        return;
    }
    c = vpmu_node_cur_core();
    if (UNLIKELY(packed_tid != tid || packed_core != c)) {
        vpmu_prof_fold(); /* (a thread switch folded already: nothing packed) */
        packed_tid = tid;
        packed_core = c;
        sh->packed_from = (UInt)(f - sh->f);
    }
    pk_snapshot(c, f->ev);
    f->packed = 1;
}

void vpmu_prof_fold(void)
{
    struct shadow *sh;
    UInt d, i, c = packed_core;
    ULong now[PK_WORDS], raw[SNAP_HALF];
    arcs_drain();
    if (!shadows || packed_tid == VG_INVALID_THREADID || packed_tid >= VG_N_THREADS)
        return;
    sh = &shadows[packed_tid];
    /* the raw statistics now, whole (counted) and packed: a frame's whole
     * value is now's less its lane's difference */
    raw_snapshot(c, raw);
    pk_snapshot(c, now);
    for (d = sh->packed_from; d < sh->depth; d++) {
        struct frame *f = &sh->f[d];
        ULong pk[PK_WORDS];
        const UInt *then = (const UInt *)pk, *nl = (const UInt *)now;
        if (!f->packed)
            continue;
        VG_(memcpy)(pk, f->ev, sizeof pk);
        vpmu_node_prof_lanes_of(c, pk, f->ev);
        for (i = SNAP_LANES; i < SNAP_HALF; i++)
            f->ev[i] = 0;
        if (excl[c].any)
            for (i = 0; i < SNAP_LANES; i++)
                f->ev[i] -= excl[c].ev[i];
        for (i = 0; i < VPMU_PR_DDR; i++)
            f->raw[i] = raw[i] - (UInt)(nl[SNAP_LANES + i] - then[SNAP_LANES + i]);
        for (i = 0; i < PK_WIDE; i++)
            f->raw[VPMU_PR_DDR + i] =
                raw[VPMU_PR_DDR + i] - (now[PK_LANES / 2 + i] - pk[PK_LANES / 2 + i]);
        for (i = VPMU_PR_N; i < SNAP_HALF; i++)
            f->raw[i] = 0;
        f->packed = 0;
    }
    sh->packed_from = sh->depth;
    packed_tid = VG_INVALID_THREADID;
}

static void shadows_init(void)
{
    shadows = VG_(calloc)("hpm.prof.shadows", VG_N_THREADS, sizeof *shadows);
}

/* A callee's depth counts the open calls of one thread, as callgrind's
 * recursion depth does: a call is a callee's outermost when that thread
 * has no other open, whatever other threads run in it (counted across
 * threads, a thread's call inside another's open one took no snapshot,
 * and its return added a stale frame's difference: start_thread's call
 * of an OpenMP worker came out 2^32 short). The thread whose calls the
 * depths count; another's calls and returns first move the depths to its
 * own open calls. */
static ThreadId depth_tid = VG_INVALID_THREADID;

/* Thread tid's shadow stack, the callees' depths moved to its calls. */
static struct shadow *shadow_of(ThreadId tid)
{
    UInt d;
    if (LIKELY(tid == depth_tid))
        return &shadows[tid];
    if (depth_tid != VG_INVALID_THREADID && depth_tid < VG_N_THREADS)
        for (d = 0; d < shadows[depth_tid].depth; d++)
            shadows[depth_tid].f[d].arc->callee->depth--;
    for (d = 0; d < shadows[tid].depth; d++)
        shadows[tid].f[d].arc->callee->depth++;
    depth_tid = tid;
    return &shadows[tid];
}



/* The arc from site to target, made on first use. */
static struct arc *arc_find(struct vpmu_cc *site, Addr target)
{
    UWord key = (site->addr * 0x9E3779B97F4A7C15ULL) ^ target;
    struct arc *a = VG_(HT_lookup)(arc_table, key);
    while (a && (a->site != site || a->target != target || a->retired))
        a = a->next; /* a chain of equal keys: rare (or arcs to unmapped code) */
    if (a)
        return a;
    a = VG_(calloc)("hpm.prof.arc", 1, sizeof *a);
    a->key = key;
    a->site = site;
    a->target = target;
    a->callee = VG_(HT_lookup)(callee_table, (UWord)target);
    if (!a->callee) {
        a->callee = VG_(calloc)("hpm.prof.callee", 1, sizeof *a->callee);
        a->callee->key = (UWord)target;
        a->callee->role = role_of(target);
        VG_(HT_add_node)(callee_table, a->callee);
    }
    a->all = all_arcs;
    all_arcs = a;
    VG_(HT_add_node)(arc_table, a);
    return a;
}

/* Arcs by site and target, remembered (direct-mapped) for the sites
 * that call many targets, an interpreter's calls through function
 * pointers: the hash table's look-up was a quarter microsecond. */
#define ARC_CACHE_BITS 12
static struct arc *arc_cache[1u << ARC_CACHE_BITS];

/* arc_find, through the site's last arc and the cache */
static struct arc *arc_of(struct vpmu_cc *site, Addr target)
{
    struct arc *a = site->arc, **slot;
    UWord h;
    if (a && a->target == target)
        return a; /* the site's last target: no lookup (most sites call one) */
    h = (site->addr * 0x9E3779B97F4A7C15ULL) ^ target;
    slot = &arc_cache[(h ^ (h >> 29)) & ((1u << ARC_CACHE_BITS) - 1)];
    a = *slot;
    if (!a || a->site != site || a->target != target)
        *slot = a = arc_find(site, target);
    return site->arc = a;
}

/* A heap object: the call that allocated (through a PLT stub's jump, the
 * call below with the same stack pointer) and the call into the function
 * that made it, so that blocks a wrapper (xmalloc) allocates for different
 * callers are different objects. */
static struct dobj *heap_object(struct shadow *sh, UInt i)
{
    UInt j = i;
    while (j > 0 && sh->f[j - 1].sp == sh->f[i].sp)
        j--;
    return vpmu_dobj_get2(DOBJ_HEAP, sh->f[j].arc->site->addr, sh->f[j].arc->site->addr,
                     j > 0 ? sh->f[j - 1].arc->site->addr : 0, 0);
}

/* An allocator's call returned with rax: the block it made or moved. f is
 * its frame; the site is that of the call that reached it (through a PLT
 * stub's jump, the call below with the same stack pointer). */
static void allocator_returned(struct shadow *sh, UInt i, ULong rax)
{
    struct frame *f = &sh->f[i];
    SizeT size = 0;
    struct dobj *d;
    switch (f->arc->callee->role) {
    case ROLE_MALLOC:
        size = (SizeT)f->arg0;
        break;
    case ROLE_CALLOC:
        if (f->arg1 && f->arg0 > ~(ULong)0 / f->arg1)
            return;
        size = (SizeT)(f->arg0 * f->arg1);
        break;
    case ROLE_MEMALIGN:
        size = (SizeT)f->arg1;
        break;
    case ROLE_REALLOC: {
        /* the moved block stays the object it was */
        struct hblock *old = f->arg0 ? VG_(OSetGen_Lookup)(heap_blocks, &f->arg0) : NULL;
        d = old ? old->d : heap_object(sh, i);
        vpmu_heap_remove((Addr)f->arg0);
        if (rax && f->arg1)
            vpmu_heap_insert((Addr)rax, (SizeT)f->arg1, d);
        return;
    }
    default:
        return;
    }
    if (rax)
        vpmu_heap_insert((Addr)rax, size, heap_object(sh, i));
}

/* Leave every frame whose return address slot is below sp: returned from
 * (the normal case: one) or unwound past (longjmp, exceptions). */
static void pop_to(struct shadow *sh, Addr sp, Bool returned, ULong rax)
{
    ULong now[SNAP_N], pk[PK_WORDS];
    /* now: the lanes and raw (frames not packed); pk: packed (PK_*) */
    Bool have_pk = False, have_ev = False;
    while (sh->depth > 0 && sh->f[sh->depth - 1].sp < sp) {
        struct frame *f = &sh->f[--sh->depth];
        struct arc *a = f->arc;
        if (returned && a->callee->role != ROLE_NONE)
            allocator_returned(sh, sh->depth, rax);
        a->calls++;
        if (a->callee->depth > 0 && --a->callee->depth > 0)
            continue; /* a recursive call: inside an open one's cost */
        if (f->packed) {
            /* the counters ran since the call, on this core, nothing folded:
             * the difference of two packed snapshots, lane by lane */
            const UInt *nl = (const UInt *)pk, *fl = (const UInt *)f->ev;
            UInt i;
            if (!have_pk) {
                pk_snapshot(packed_core, pk);
                have_pk = True;
            }
            if (!a->pk_on) {
                a->pk_on = True;
                a->pk_next = pk_dirty;
                pk_dirty = a;
            }
            for (i = 0; i < PK_LANES; i += 4)
                *(lane_v4 *)(a->pk + i) += *(const lane_v4 *)(nl + i) - *(const lane_v4 *)(fl + i);
            for (i = 0; i < PK_WIDE; i++)
                a->pk_wide[i] += pk[PK_LANES / 2 + i] - f->ev[PK_LANES / 2 + i];
            continue;
        }
        if (!have_ev) {
            counted_snapshot(sh->core, now, now + SNAP_HALF);
            have_ev = True;
        }
        snap_add_since(a->ev, now, f->ev);
    }
    if (sh->packed_from > sh->depth)
        sh->packed_from = sh->depth;
}

void vpmu_prof_call(struct vpmu_cc *site, Addr target, Addr sp, ULong rdi, ULong rsi)
{
    ThreadId tid = VG_(get_running_tid)();
    struct shadow *sh;
    struct frame *f;
    if (tid >= VG_N_THREADS)
        return;
    sh = shadow_of(tid);
    pop_to(sh, sp, False, 0); /* frames left without a return (a longjmp) */
    if (sh->depth == sh->cap) {
        sh->cap = sh->cap ? 2 * sh->cap : 64;
        sh->f = VG_(realloc)("hpm.prof.stack", sh->f, sh->cap * sizeof *sh->f);
    }
    f = &sh->f[sh->depth++];
    sh->core = vpmu_node_cur_core();
    f->sp = sp;
    f->arc = arc_of(site, target);
    f->arg0 = rdi;
    f->arg1 = rsi;
    if (f->arc->callee->role == ROLE_FREE)
        vpmu_heap_remove((Addr)rdi);
    f->packed = 0;
    if (f->arc->callee->depth++ == 0) /* only the outermost call's cost counts */
        frame_snapshot(sh, tid, f);
}

UInt vpmu_prof_callchain(Addr *sites, UInt max)
{
    ThreadId tid = VG_(get_running_tid)();
    const struct shadow *sh;
    UInt n = 0, d;
    if (!shadows || tid >= VG_N_THREADS)
        return 0;
    sh = &shadows[tid];
    for (d = sh->depth; d > 0 && n < max; d--)
        sites[n++] = sh->f[d - 1].arc->site->addr;
    return n;
}

/* Whether a is the first instruction of a function (Valgrind's symbols),
 * remembered per address: a jump there is a tail call. */
struct entry_flag {
    struct entry_flag *next;
    UWord key;
    Bool is_entry;
};
static VgHashTable *entry_table;

/* The answers for the most recent targets, direct-mapped in front of the
 * table: an interpreter's dispatch jumps to a new target nearly every
 * time, among a few hundred handlers. The answer is in the slot itself
 * (a pointer to the table's node had been a second cache miss per jump:
 * sqlite3's opcode dispatch). key 0: empty (no code at address 0). */
#define ENTRY_CACHE_BITS 10
static struct {
    UWord key;
    UWord is_entry;
} entry_cache[1u << ENTRY_CACHE_BITS];

Bool vpmu_prof_is_entry(Addr a)
{
    struct entry_flag *e;
    const HChar *name;
    UInt slot = (a ^ (a >> ENTRY_CACHE_BITS)) & ((1u << ENTRY_CACHE_BITS) - 1);
    if (entry_cache[slot].key == (UWord)a && a != 0)
        return (Bool)entry_cache[slot].is_entry;
    if (!entry_table)
        entry_table = VG_(HT_construct)("hpm.prof.entry");
    e = VG_(HT_lookup)(entry_table, (UWord)a);
    if (!e) {
        e = VG_(malloc)("hpm.prof.entry", sizeof *e);
        e->key = (UWord)a;
        e->is_entry = VG_(get_fnname_if_entry)(VG_(current_DiEpoch)(), a, &name);
        VG_(HT_add_node)(entry_table, e);
    }
    entry_cache[slot].key = (UWord)a;
    entry_cache[slot].is_entry = e->is_entry;
    return e->is_entry;
}

/* A PLT stub's jump to the function it stands for, right after the call
 * that entered the stub (the top frame: same stack pointer, the call's
 * target the stub's entry, a 16-byte PLT entry): the call becomes a call
 * of the function, as callgrind shows it (its --skip-plt, the default),
 * and the stub is no frame of its own. Its instructions keep their own
 * cost; the call's inclusive cost counts from the call, as before. Half of
 * a program's calls can go through stubs (sqlite3's into libsqlite3 and
 * libc), and every frame is a snapshot of the counts and, at its return,
 * a difference added to its arc. False: not such a jump. */
static Bool plt_retarget(struct vpmu_cc *site, Addr target, Addr sp, ULong rdi)
{
    ThreadId tid = VG_(get_running_tid)();
    struct shadow *sh;
    struct frame *f;
    struct arc *a;
    Bool have;
    if (tid >= VG_N_THREADS)
        return False;
    sh = shadow_of(tid);
    if (sh->depth == 0)
        return False;
    f = &sh->f[sh->depth - 1];
    if (f->sp != sp || site->addr < f->arc->target || site->addr - f->arc->target >= 16)
        return False;
    /* the stub's call was the outermost open one of the stub (its snapshot
     * taken) unless another call of the stub is open below */
    have = --f->arc->callee->depth == 0;
    a = f->arc->plt_arc;
    if (!a || f->arc->plt_target != target) {
        /* not through the site's last arc: that stays the stub's */
        a = arc_find(f->arc->site, target);
        f->arc->plt_target = target;
        f->arc->plt_arc = a;
    }
    f->arc = a;
    if (a->callee->role == ROLE_FREE)
        vpmu_heap_remove((Addr)rdi);
    if (a->callee->depth++ == 0 && !have)
        frame_snapshot(sh, tid, f);
    return True;
}

void vpmu_prof_jump(struct vpmu_cc *site, Addr target, Addr sp, ULong rdi, ULong rsi)
{
    /* a tail call enters a function without a call: it is followed as one,
     * and the callee's return ends both */
    if (site->jump_target != target) { /* an interpreter's dispatch: one look-up per change */
        site->jump_target = target;
        site->jump_entry = vpmu_prof_is_entry(target);
    }
    if (!site->jump_entry)
        return;
    if (site->plt && plt_retarget(site, target, sp, rdi))
        return;
    vpmu_prof_call(site, target, sp, rdi, rsi);
}

void vpmu_prof_ret(Addr sp, ULong rax)
{
    ThreadId tid = VG_(get_running_tid)();
    if (tid < VG_N_THREADS)
        pop_to(shadow_of(tid), sp, True, rax);
}

void vpmu_prof_call_bp(struct vpmu_cc *site, Addr target, Addr sp, ULong rdi, ULong rsi,
                       ULong ret_ind)
{
    vpmu_prof_sink = vpmu_prof_raw_slot(site); /* a mispredict is the call's */
    vpmu_node_call(site->addr, target, ret_ind & ~(1ULL << 63), ret_ind >> 63);
    vpmu_prof_call(site, target, sp, rdi, rsi);
}

void vpmu_prof_ret_bp(struct vpmu_cc *site, Addr target, Addr sp, ULong rax)
{
    vpmu_prof_sink = vpmu_prof_raw_slot(site);
    vpmu_node_branch(site->addr, target, 1, VPMU_BR_RET);
    vpmu_prof_ret(sp, rax);
}

void vpmu_prof_jump_bp(struct vpmu_cc *site, Addr target, Addr sp, ULong rdi, ULong rsi)
{
    vpmu_prof_sink = vpmu_prof_raw_slot(site);
    vpmu_node_branch(site->addr, target, 1, VPMU_BR_INDIRECT);
    vpmu_prof_jump(site, target, sp, rdi, rsi);
}

void vpmu_prof_thread_end(ThreadId tid)
{
    if (tid < VG_N_THREADS)
        pop_to(shadow_of(tid), ~(Addr)0, False, 0); /* its open calls end with it */
}

/* ------------------------------------------------------------------------
 * The I/O and kernel units' kinds: per system call instruction
 *
 * The tool counts them in its system call wrappers (vpmu_io.c), not in an
 * instruction's model calls: what a wrapper counted is given to the
 * system call instruction (vpmu_main.c: the guest's IP at the call less
 * 2), a delivered signal to the instruction it arrived at, and to the open
 * calls' arcs as a return would add it (each callee's outermost open call
 * only). The host-measured kinds are not among them (vpmu_io_exact_counts):
 * they stay whole in the front end's "(unattributed)".
 * ---------------------------------------------------------------------- */

struct io_site {
    struct io_site *next; /* hash chain */
    UWord key;            /* the instruction */
    ULong c[VPMU_IO_KINDS];
};
static VgHashTable *io_sites;

static void io_add(ULong *to, const ULong *counted)
{
    UInt k;
    for (k = 0; k < VPMU_IO_KINDS; k++)
        to[k] += counted[k];
}

void vpmu_prof_io(ThreadId tid, Addr site, const ULong *counted)
{
    static ULong stamp;
    struct vpmu_cc *cc;
    struct io_site *s;
    UInt k, d;
    Bool any = False;
    if (!vpmu_state.on.profile || prof_stopped || tid >= VG_N_THREADS)
        return; /* stopped: the totals leave it out too */
    for (k = 0; k < VPMU_IO_KINDS && !any; k++)
        any = counted[k] != 0;
    if (!any)
        return;
    if (!io_sites)
        io_sites = VG_(HT_construct)("hpm.prof.io");
    cc = vpmu_prof_cc(site);
    s = cc->io ? VG_(HT_lookup)(io_sites, (UWord)site) : NULL;
    if (!s) {
        s = VG_(calloc)("hpm.prof.io", 1, sizeof *s);
        s->key = (UWord)site;
        VG_(HT_add_node)(io_sites, s);
        cc->io = True;
    }
    io_add(s->c, counted);
    /* the outermost open call of each callee, as pop_to adds */
    stamp++;
    for (d = 0; d < shadows[tid].depth; d++) {
        struct arc *a = shadows[tid].f[d].arc;
        if (a->callee->io_stamp == stamp)
            continue;
        a->callee->io_stamp = stamp;
        if (!a->io)
            a->io = VG_(calloc)("hpm.prof.io", VPMU_IO_KINDS, sizeof *a->io);
        io_add(a->io, counted);
    }
}

static const ULong *io_of(const struct vpmu_cc *cc)
{
    const struct io_site *s = cc->retired ? cc->io_kept
                              : cc->io    ? VG_(HT_lookup)(io_sites, cc->addr)
                                          : NULL;
    return s ? s->c : NULL;
}

/* ------------------------------------------------------------------------
 * Unmapped code
 *
 * Cost centers, arcs and callees are found by address, and a cost center
 * names its object once, when it is made. A library that is dlclose'd and
 * another that the loader then maps at the same addresses would share
 * them: the second's costs credited to the first's functions. So when an
 * object's code is unmapped (or mapped over), what is known of it leaves
 * the look-ups and keeps its counts and its object for the output; the
 * code that runs there later gets its own. Valgrind drops the range's
 * translations itself, so the next run of that code is instrumented anew.
 * ---------------------------------------------------------------------- */

static struct cc_block *ccb_find(Addr base)
{
    UInt h;
    struct cc_block *b;
    if (!ccb_cap)
        return NULL;
    h = ccb_hash(base) & (ccb_cap - 1);
    while ((b = ccb_table[h]) != NULL && b->base != base)
        h = (h + 1) & (ccb_cap - 1);
    return b;
}

static void cc_retire_block(struct cc_block *b, Addr lo, Addr hi)
{
    UInt i;
    for (i = 0; i < (1u << CCB_BITS); i++) {
        struct vpmu_cc *cc = b->slot[i];
        Addr a = (b->base << CCB_BITS) + i;
        if (!cc || a < lo || a > hi)
            continue;
        cc->retired = True;
        if (cc->io && io_sites)
            cc->io_kept = VG_(HT_remove)(io_sites, cc->addr);
        b->slot[i] = NULL;
    }
}

/* Object o's code in [lo, hi] leaves the look-ups. */
static void retire_range(Addr lo, Addr hi, UInt o)
{
    struct arc *a;
    struct vpmu_cc *cc;
    Addr first = lo >> CCB_BITS, last = hi >> CCB_BITS, base;
    UInt i;
    if (last - first + 1 > ccb_cap) {
        for (i = 0; i < ccb_cap; i++)
            if (ccb_table[i] && ccb_table[i]->base >= first && ccb_table[i]->base <= last)
                cc_retire_block(ccb_table[i], lo, hi);
    } else {
        for (base = first; base <= last; base++) {
            struct cc_block *b = ccb_find(base);
            if (b)
                cc_retire_block(b, lo, hi);
        }
    }
    /* calls into it: their arcs keep the object they went to */
    for (a = all_arcs; a; a = a->all) {
        if (a->retired || a->target < lo || a->target > hi)
            continue;
        a->retired = True;
        a->target_obj = o;
        if (a->site->arc == a)
            a->site->arc = NULL;
        if (VG_(HT_lookup)(callee_table, (UWord)a->target) == a->callee)
            (void)VG_(HT_remove)(callee_table, (UWord)a->target);
    }
    for (a = all_arcs; a; a = a->all)
        if (a->plt_arc && a->plt_arc->retired) {
            a->plt_arc = NULL;
            a->plt_target = 0;
        }
    VG_(memset)(arc_cache, 0, sizeof arc_cache);
    /* whether an address there is a function's entry is asked again */
    for (cc = all_ccs; cc; cc = cc->all)
        if (cc->jump_target >= lo && cc->jump_target <= hi) {
            cc->jump_target = 0;
            cc->jump_entry = False;
        }
    VG_(memset)(entry_cache, 0, sizeof entry_cache);
    if (entry_table) {
        struct entry_flag *e;
        VG_(HT_ResetIter)(entry_table);
        while ((e = VG_(HT_Next)(entry_table)) != NULL)
            if (e->key >= lo && e->key <= hi)
                VG_(HT_remove_at_Iter)(entry_table);
    }
}

void vpmu_prof_unmapped(Addr a, SizeT len)
{
    Addr end;
    UInt i;
    if (!vpmu_state.on.profile || len == 0)
        return;
    end = a + len - 1;
    /* a few objects: most calls (the brk, anonymous memory) end here */
    for (i = 1; i < n_objs; i++) {
        if (objs[i].dead || objs[i].end < a || objs[i].start > end)
            continue;
        objs[i].dead = True;
        n_dead_objs++;
        retire_range(objs[i].start > a ? objs[i].start : a, objs[i].end < end ? objs[i].end : end,
                     i);
    }
}

/* The object mapped at a now (not unmapped), 0 if none. */
static UInt live_obj_at(Addr a)
{
    UInt i;
    for (i = 1; i < n_objs; i++)
        if (!objs[i].dead && a >= objs[i].start && a <= objs[i].end)
            return i;
    return 0;
}

/* The object a reader finds for a by its address alone: the first. */
static UInt first_obj_at(Addr a)
{
    UInt i;
    for (i = 1; i < n_objs; i++)
        if (a >= objs[i].start && a <= objs[i].end)
            return i;
    return 0;
}

/* The contended lines' records (vpmu_prof_sink_c2c). */
static vpmu_prof_records_sink c2c_write;

void vpmu_prof_sink_c2c(vpmu_prof_heap_freed_sink freed, vpmu_prof_records_sink write)
{
    vpmu_dobj_sink_heap_freed(freed);
    c2c_write = write;
}

/* ------------------------------------------------------------------------
 * Start, stop, reset
 * ---------------------------------------------------------------------- */

#define ARC_VALS (1 + SNAP_N)

void vpmu_prof_stop(void)
{
    struct vpmu_cc *cc;
    struct seg *s;
    struct arc *a;
    struct dobj *d;
    if (!vpmu_state.on.profile || prof_stopped)
        return;
    vpmu_prof_fold(); /* the frames' snapshots as the counters stop */
    prof_stopped = True;
    {
        UInt c;
        for (c = 0; c < vpmu_node_cores(); c++)
            vpmu_node_prof_snapshot_lanes(c, excl[c].stop_ev, excl[c].stop_raw);
    }
    for (cc = all_ccs; cc; cc = cc->all) {
        if (!cc->saved)
            cc->saved = VG_(malloc)("hpm.prof.saved", sizeof cc->v);
        VG_(memcpy)(cc->saved, cc->v, sizeof cc->v);
    }
    for (s = all_segs; s; s = s->all)
        s->saved = s->count;
    for (d = all_dobjs; d; d = d->all) {
        if (!d->saved)
            d->saved = VG_(malloc)("hpm.prof.saved", sizeof d->raw);
        VG_(memcpy)(d->saved, d->raw, sizeof d->raw);
    }
    for (a = all_arcs; a; a = a->all) {
        if (!a->saved)
            a->saved = VG_(malloc)("hpm.prof.saved", ARC_VALS * sizeof(ULong));
        a->saved[0] = a->calls;
        VG_(memcpy)(a->saved + 1, a->ev, SNAP_N * sizeof(ULong)); /* ev, raw */
    }
}

void vpmu_prof_start(void)
{
    struct vpmu_cc *cc;
    struct seg *s;
    struct arc *a;
    struct dobj *d;
    if (!vpmu_state.on.profile || !prof_stopped)
        return;
    vpmu_prof_fold(); /* (nothing is packed while stopped) */
    prof_stopped = False;
    {
        UInt c, i;
        for (c = 0; c < vpmu_node_cores(); c++) {
            ULong ev[SNAP_LANES], raw[VPMU_PR_N];
            vpmu_node_prof_snapshot_lanes(c, ev, raw);
            for (i = 0; i < SNAP_LANES; i++) {
                excl[c].ev[i] += ev[i] - excl[c].stop_ev[i];
                excl[c].any |= excl[c].ev[i] != 0;
            }
            for (i = 0; i < VPMU_PR_N; i++) {
                excl[c].raw[i] += raw[i] - excl[c].stop_raw[i];
                excl[c].any |= excl[c].raw[i] != 0;
            }
        }
    }
    for (cc = all_ccs; cc; cc = cc->all) {
        if (cc->saved)
            VG_(memcpy)(cc->v, cc->saved, sizeof cc->v);
        else
            VG_(memset)(cc->v, 0, sizeof cc->v);
    }
    for (s = all_segs; s; s = s->all)
        s->count = s->saved;
    for (d = all_dobjs; d; d = d->all) {
        if (d->saved)
            VG_(memcpy)(d->raw, d->saved, sizeof d->raw);
        else
            VG_(memset)(d->raw, 0, sizeof d->raw);
    }
    for (a = all_arcs; a; a = a->all) {
        if (a->saved) {
            a->calls = a->saved[0];
            VG_(memcpy)(a->ev, a->saved + 1, SNAP_N * sizeof(ULong));
        } else {
            a->calls = 0;
            VG_(memset)(a->ev, 0, sizeof a->ev);
            VG_(memset)(a->raw, 0, sizeof a->raw);
        }
    }
}

void vpmu_prof_reset(void)
{
    struct vpmu_cc *cc;
    struct seg *s;
    struct arc *a;
    struct dobj *d;
    if (!vpmu_state.on.profile || !shadows)
        return;
    arcs_drain(); /* (then zeroed below) */
    for (cc = all_ccs; cc; cc = cc->all) {
        VG_(memset)(cc->v, 0, sizeof cc->v);
        if (cc->saved)
            VG_(memset)(cc->saved, 0, sizeof cc->v);
        if (cc->io_kept)
            VG_(memset)(((struct io_site *)cc->io_kept)->c, 0,
                        sizeof((struct io_site *)cc->io_kept)->c);
    }
    for (s = all_segs; s; s = s->all)
        s->count = s->saved = 0;
    for (d = all_dobjs; d; d = d->all) {
        VG_(memset)(d->raw, 0, sizeof d->raw);
        if (d->saved)
            VG_(memset)(d->saved, 0, sizeof d->raw);
        d->blocks = d->bytes = 0;
    }
    if (io_sites) {
        struct io_site *io;
        VG_(HT_ResetIter)(io_sites);
        while ((io = VG_(HT_Next)(io_sites)) != NULL)
            VG_(memset)(io->c, 0, sizeof io->c);
    }
    for (a = all_arcs; a; a = a->all) {
        if (a->io)
            VG_(memset)(a->io, 0, VPMU_IO_KINDS * sizeof *a->io);
        a->calls = 0;
        VG_(memset)(a->ev, 0, sizeof a->ev);
        VG_(memset)(a->raw, 0, sizeof a->raw);
        if (a->saved)
            VG_(memset)(a->saved, 0, ARC_VALS * sizeof(ULong));
    }
    /* frames open now would credit their callees with what ran before */
    {
        UInt t, d;
        vpmu_prof_fold();
        for (t = 0; t < VG_N_THREADS; t++) {
            /* the running thread's core may be new (a forked child's) */
            if (t == vpmu_state.live_owner)
                shadows[t].core = vpmu_node_cur_core();
            for (d = 0; d < shadows[t].depth; d++)
                counted_snapshot(shadows[t].core, shadows[t].f[d].ev, shadows[t].f[d].raw);
        }
    }
}

/* ------------------------------------------------------------------------
 * Output
 * ---------------------------------------------------------------------- */

/* The profiled kinds: those programmed, each once (a per-core kind sums
 * its cores, as hpm count's bare kind names do). */
static UInt profiled_kinds(UInt *kinds, ULong *totals)
{
    UInt i, n = 0;
    for (i = 0; i < vpmu_node_n_events(); i++) {
        UInt kind, j;
        Int core;
        if (!vpmu_node_event_kind(i, &kind, &core))
            continue;
        for (j = 0; j < n && kinds[j] != kind; j++)
            ;
        if (j == n) {
            kinds[n] = kind;
            totals[n] = 0;
            n++;
        }
        totals[j] += vpmu_node_event_value(i);
    }
    /* The I/O and kernel units' kinds last (stable): they are 0 but on
     * system call instructions, and a cost line ends at its last value
     * that is not 0 (callgrind's format), so every other line ends before
     * them. Between the node's cycles and traffic they made a Python
     * profile twice as large. */
    {
        UInt tail[HPM_K_COUNT], tail_v = 0, m = 0, t;
        ULong tail_tot[HPM_K_COUNT];
        for (i = 0; i < n; i++) {
            UInt unit = hpm_catalog_kind(kinds[i])->unit;
            if (unit == HPM_UNIT_IO || unit == HPM_UNIT_KERNEL) {
                tail[tail_v] = kinds[i];
                tail_tot[tail_v++] = totals[i];
            } else {
                kinds[m] = kinds[i];
                totals[m++] = totals[i];
            }
        }
        for (t = 0; t < tail_v; t++) {
            kinds[m] = tail[t];
            totals[m++] = tail_tot[t];
        }
    }
    return n;
}

static ULong kind_value(UInt kind, const ULong *kv, const ULong *nv)
{
    return kind < HPM_K_CORE_COUNT ? kv[kind] : nv[kind - HPM_K_CORE_COUNT];
}

/* The values that are not 0, as COLUMN:VALUE (most are 0: a profile of
 * every kind writes and reads a fraction of the dense numbers). */
static void out_values(Out *o, const UInt *kinds, UInt nk, const ULong *raw, const ULong *ev,
                       const ULong *io)
{
    ULong kv[HPM_K_CORE_COUNT], nv[HPM_K_NODE_COUNT];
    UInt k;
    vpmu_node_prof_kinds(raw, ev, kv, nv);
    if (io) /* (the models' kinds leave the I/O and kernel units' at 0) */
        for (k = 0; k < VPMU_IO_KINDS; k++)
            nv[HPM_K_IO_READS - HPM_K_CORE_COUNT + k] += io[k];
    for (k = 0; k < nk; k++) {
        ULong v = kind_value(kinds[k], kv, nv);
        if (v) {
            out_char(o, ' ');
            out_dec(o, k);
            out_char(o, ':');
            out_dec(o, v);
        }
    }
    out_char(o, '\n');
}

void vpmu_prof_write(Out *o)
{
    UInt kinds[HPM_K_COUNT], nk, k, i;
    Bool was_stopped = False;
    ULong totals[HPM_K_COUNT];
    ULong *ev; /* n_ccs x VPMU_EV_COUNT exact events */
    struct vpmu_cc *cc;
    struct seg *s;
    struct arc *a;

    if (!vpmu_state.on.profile)
        return;
    /* what ran since the counters stopped is not in the profile */
    if (prof_stopped) {
        vpmu_prof_start();
        was_stopped = True;
    }
    /* calls still open (exit() from inside main) end here, as in callgrind */
    for (i = 0; i < VG_N_THREADS; i++)
        pop_to(shadow_of(i), ~(Addr)0, False, 0);
    arcs_drain();
    nk = profiled_kinds(kinds, totals);
    for (k = 0; k < nk; k++)
        out_printf(o, VPMU_REC_PROF_KIND " %s %llu\n", vpmu_node_kind_name(kinds[k]),
                   totals[k]);
    for (i = 1; i < n_objs; i++)
        out_printf(o, VPMU_REC_PROF_OBJECT " %u %lx %lx %llx %s\n", i, objs[i].start, objs[i].end,
                   objs[i].offset, objs[i].path);

    ev = VG_(calloc)("hpm.prof.ev", n_ccs ? n_ccs : 1, VPMU_EV_COUNT * sizeof *ev);
    for (s = all_segs; s; s = s->all)
        if (s->count)
            for (i = 0; i < s->n; i++)
                ev[(ULong)s->items[i].cc->idx * VPMU_EV_COUNT + s->items[i].ev] +=
                    s->count * (ULong)(Long)s->items[i].n; /* mod 2^64: n < 0 subtracts */
    for (cc = all_ccs; cc; cc = cc->all) {
        ULong *e = &ev[(ULong)cc->idx * VPMU_EV_COUNT];
        Bool any = False;
        Int d;
        for (d = 0; d < N_DYN; d++)
            e[dyn_events[d]] += cc->v[DYN_AT(d)];
        e[VPMU_EV_BR_COND_NOT_TAKEN] = e[VPMU_EV_BR_COND] - e[VPMU_EV_BR_COND_TAKEN];
        for (d = 0; d < VPMU_EV_COUNT && !any; d++)
            any = e[d] != 0;
        for (d = 0; d < VPMU_PR_N && !any; d++)
            any = cc->v[RAW_AT + d] != 0;
        if (!any)
            continue;
        out_str(o, VPMU_REC_PROF_INSN " ");
        out_hex(o, cc->addr);
        out_char(o, ' ');
        out_dec(o, cc->obj);
        out_values(o, kinds, nk, &cc->v[RAW_AT], e, io_of(cc));
    }
    for (i = 0; i < n_branches; i++) {
        const struct branch *b = &branches[i];
        const ULong *e = &ev[(ULong)b->cc->idx * VPMU_EV_COUNT];
        ULong executed = b->cond ? e[VPMU_EV_BR_COND] : e[VPMU_EV_BR_DIRECT];
        ULong taken = b->cond ? e[VPMU_EV_BR_COND_TAKEN] : executed;
        if (taken)
            out_printf(o, VPMU_REC_PROF_JUMP " %lx %u %lx %llu %llu\n", b->cc->addr, b->cc->obj,
                       b->target, executed, taken);
    }
    VG_(free)(ev);
    for (a = all_arcs; a; a = a->all) {
        ULong ev_order[VPMU_EV_COUNT];
        Int e;
        if (!a->calls)
            continue;
        for (e = 0; e < VPMU_EV_COUNT; e++)
            ev_order[e] = a->ev[vpmu_live_slot(e)]; /* the sums are in lane order */
        ev_order[VPMU_EV_BR_COND_NOT_TAKEN] =
            ev_order[VPMU_EV_BR_COND] - ev_order[VPMU_EV_BR_COND_TAKEN];
        if (n_dead_objs) {
            /* code was unmapped: an address may have held two objects */
            UInt so = a->site->obj, to = a->retired ? a->target_obj : live_obj_at(a->target);
            if (so != first_obj_at(a->site->addr) || to != first_obj_at(a->target)) {
                out_str(o, VPMU_REC_PROF_CALL_IN " ");
                out_dec(o, so);
                out_char(o, ' ');
                out_dec(o, to);
                out_char(o, ' ');
            } else {
                out_str(o, VPMU_REC_PROF_CALL " ");
            }
        } else {
            out_str(o, VPMU_REC_PROF_CALL " ");
        }
        out_hex(o, a->site->addr);
        out_char(o, ' ');
        out_hex(o, a->target);
        out_char(o, ' ');
        out_dec(o, a->calls);
        out_values(o, kinds, nk, a->raw, ev_order, a->io);
    }
    {
        /* data objects: their statistics as kinds, with no exact events */
        ULong zero[VPMU_EV_COUNT];
        struct dobj *d;
        VG_(memset)(zero, 0, sizeof zero);
        for (d = all_dobjs; d; d = d->all) {
            Bool any = d->blocks != 0;
            for (i = 0; i < VPMU_PR_N && !any; i++)
                any = d->raw[i] != 0;
            if (!any)
                continue;
            out_printf(o, VPMU_REC_PROF_DATA " %s %lx %lx %u %llu %llu", dobj_names[d->kind],
                       d->where, d->where2, d->obj, d->blocks, d->bytes);
            out_values(o, kinds, nk, d->raw, zero, NULL);
        }
    }
    if (c2c_write)
        c2c_write(o);
    if (was_stopped)
        vpmu_prof_stop(); /* the process goes on (a failed exec): as it was */
}
