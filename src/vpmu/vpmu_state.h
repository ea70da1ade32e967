/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_state.h - state shared by the parts of the hpm virtual PMU tool.
 *
 * Counting scheme. Instrumented code adds to one "live" counter block at a
 * fixed address (vpmu_state.live), cachegrind-style: a load, an add of a constant
 * and a store per pair of events per flush point, no helper call. The live block
 * belongs to the thread that runs client code (vpmu_live_owner); whenever
 * another thread is scheduled, and before any counter is read, the live block
 * is folded into that thread's own block and cleared (vpmu_fold). While
 * counting is stopped, folding discards the live block instead.
 */
#ifndef HPM_VPMU_STATE_H
#define HPM_VPMU_STATE_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "libvex_guest_offsets.h"
#include "vpmu_events.h"

enum vpmu_level {
    VPMU_LEVEL_INSN = 0, /* instructions only */
    VPMU_LEVEL_CORE = 1, /* + loads/stores, branches, syscalls */
    VPMU_LEVEL_FULL = 2  /* + floating-point and integer op classes */
};

/* The live block packs two events per 64-bit word, in 32-bit lanes, so one
 * load-add-store serves two events. Event e sits in slot vpmu_live_slot(e):
 * word slot / 2, lane slot % 2. The pairs are the events one flush of a
 * basic block adds together, so that a typical block costs few adds: its
 * instructions and its branch, its loads and stores, their bytes, and a
 * conditional branch's static count (BR_COND, lane 1) with its taken bit
 * (lane 0); then the integer classes, the other branch kinds, FP. (With
 * the event order as slots a block ending in a conditional branch made 5
 * adds; paired like this it makes 4.)
 * A lane cannot overflow between folds: the block is folded at every
 * scheduler timeslice (at most 100000 superblocks), far below 2^32 of any
 * event, bytes included. */
#define VPMU_LIVE_WORDS ((VPMU_EV_COUNT + 1) / 2)
static inline Int vpmu_live_slot(Int ev)
{
    static const UChar slot[VPMU_EV_COUNT] = {
        [VPMU_EV_INSTRUCTIONS] = 0,      [VPMU_EV_BRANCHES] = 1,
        [VPMU_EV_LOADS] = 2,             [VPMU_EV_STORES] = 3,
        [VPMU_EV_LOAD_BYTES] = 4,        [VPMU_EV_STORE_BYTES] = 5,
        [VPMU_EV_BR_COND_TAKEN] = 6,     [VPMU_EV_BR_COND] = 7,
        [VPMU_EV_INT_ADDSUB] = 8,        [VPMU_EV_INT_LOGIC] = 9,
        [VPMU_EV_INT_MUL] = 10,          [VPMU_EV_INT_DIV] = 11,
        [VPMU_EV_BR_DIRECT] = 12,        [VPMU_EV_BR_INDIRECT] = 13,
        [VPMU_EV_BR_CALL] = 14,          [VPMU_EV_BR_CALL_INDIRECT] = 15,
        [VPMU_EV_BR_RET] = 16,           [VPMU_EV_SYSCALLS] = 17,
        [VPMU_EV_FP_INSTRUCTIONS] = 18,  [VPMU_EV_FP_OPS] = 19,
        [VPMU_EV_FP_SP_SCALAR] = 20,     [VPMU_EV_FP_DP_SCALAR] = 21,
        [VPMU_EV_FP_SP_128] = 22,        [VPMU_EV_FP_DP_128] = 23,
        [VPMU_EV_FP_SP_256] = 24,        [VPMU_EV_FP_DP_256] = 25,
        [VPMU_EV_FP_FMA] = 26,           [VPMU_EV_FP_DIV] = 27,
        [VPMU_EV_FP_SQRT] = 28,          [VPMU_EV_BR_COND_NOT_TAKEN] = 29,
    };
    return slot[ev];
}
#define VPMU_LIVE_WORD(ev) (vpmu_live_slot(ev) >> 1)
#define VPMU_LIVE_SHIFT(ev) ((vpmu_live_slot(ev) & 1) * 32)
/* The live block's address, kept in every thread's first shadow guest
 * state (the tool uses no shadow registers otherwise) at the shadow of
 * this guest offset: translations read it once per superblock and address
 * the words from it (an 8-bit displacement), where a constant address costs
 * two 10-byte moves per add. Set before every timeslice (vpmu_main.c). */
#define VPMU_LIVE_BASE_GUEST_OFFSET OFFSET_amd64_RAX

struct vpmu_thread;
struct vpmu_exited;
struct vpmu_region_rec;
#define REGION_NAMES_MAX 256

/* The run's state, owned by vpmu_state.c (a leaf: it defines this one
 * struct and calls nothing), as callgrind keeps CLG_(clo) and
 * CLG_(current_state): every file reads and writes the state it shares
 * with another here, so that no file depends on another for a global and
 * the files' dependencies run one way (vpmu.no_cycles counts data). */
struct vpmu_state {
    /* The options (vpmu_clo.c parses them; each part keeps its own). */
    struct {
        const HChar *out;     /* --hpm-out */
        const HChar *mpi_out; /* --hpm-mpi-out */
        Bool start;           /* --hpm-start (a gate turns it off) */
        Int level;            /* --hpm-level, raised to what the events need */
        Bool level_given;     /* --hpm-level was given */
        Bool live;            /* --hpm-live */
        Long live_ms;         /* --hpm-live-ms */
    } clo;
    /* The optional parts' switches, published once by their parts while
     * the options are parsed and at post_clo_init, before the first
     * translation, and read-only after: the node and the instrumentation
     * ask these, never the parts themselves. */
    struct {
        Bool profile;     /* --hpm-profile=yes (vpmu_profile.c) */
        Bool sample;      /* a --hpm-sample was given and parsed (vpmu_sample.c) */
        /* --hpm-lat-hist=yes (hpm count's LOADS:ldlat=N): the exact latency
         * histogram of loads and stores, without samples; the models run. */
        Bool latency;
        /* Sampling or the histogram: the node hands every data access to
         * vpmu_sample_access (its filtered hits too). */
        Bool sample_access;
        /* A kind sampled per instruction is requested: the instrumentation
         * calls vpmu_sample_mark at each instruction's end. */
        Bool sample_insn;
        Bool upctrace;    /* --hpm-upc-trace (vpmu_upctrace.c) */
        Bool turns;       /* --hpm-interleave=N, N > 0 (vpmu_turns.c) */
        Bool gate;        /* an address gate is set: IMarks are checked (vpmu_gate.c) */
    } on;
    /* Turns (vpmu_turns.c): the instructions of the live block's folded
     * lanes (vpmu_fold), whatever thread ran them and whether counting ran
     * or not. With the lane that has not been folded yet it is a clock of
     * the instructions run so far, which the turns read at the ends of
     * their rounds and the coherence logs at each access they stamp. */
    ULong turn_instr;
    ULong live[VPMU_LIVE_WORDS]; /* the live block (above) */
    Bool running;                /* the run bit (vpmu_threads.c) */
    /* The exact core events the instrumentation counts (bit e: VPMU_EV_e):
     * those the programmed kinds are made of (vpmu_node_events_needed) and
     * a trigger's, or every one for a profile, precise samples or an
     * explicit --hpm-level. An event no kind reads costs a live-word add per
     * basic block and IR to translate for nothing (the core events of
     * sqlite3 5% faster without the byte and branch-kind adds); its raw
     * counters stay 0, as those of a level not instrumented do. */
    UInt ev_counted;
    /* what the program and the gates asked for (the run bit: vpmu_threads.c) */
    Bool counting_wanted;
    /* The threads (vpmu_tool.h): indexed by ThreadId, VG_N_THREADS. */
    struct vpmu_thread *threads;
    ThreadId live_owner; /* the thread the live block belongs to */
    UInt next_serial;    /* the serial of the next thread made */
    struct vpmu_exited *exited_threads;
    /* The regions (vpmu_requests.c makes them, vpmu_threads.c accounts). */
    struct vpmu_region_rec *region_recs;
    HChar *region_names[REGION_NAMES_MAX];
    UInt n_region_names;
    Bool exit_seen;
    Long exit_code;
    /* the program started a thread with every thread slot taken: the tool
     * ended it there (vpmu_main.c, out_of_slots) */
    Bool slots_out;
    /* The process's ids, asked once (and again in a forked child): a system
     * call costs microseconds on a virtual machine, an interrupt a few of
     * them. */
    Int pid, euid;
    /* processes this one started (fork, vfork, clone without CLONE_THREAD):
     * hpm count says how many it left out under --no-children (vpmu_main.c) */
    ULong forks;
};
extern struct vpmu_state vpmu_state;
/* Instructions run so far by the threads that owned the live block
 * (turn_instr above): its folded lanes and the lane now. */
static inline ULong vpmu_instr_run(void)
{
    return vpmu_state.turn_instr + (vpmu_state.live[0] & 0xffffffffULL);
}
/* Count these events too from now on, from a client request: translations
 * made without them are discarded (the events start at 0, as a new
 * selection's counts do). */
void vpmu_ev_counted_widen(UInt events);

void vpmu_fold(void);

/* The global start and stop (HPM_VPMU_START/STOP, the gates): what ran so
 * far is accounted first. */
/* What ran so far folded, fed to the UPCs and credited to the running
 * thread (vpmu_threads.c), before a read of the node's counts. */
void vpmu_account(void);
/* ... before a read of the running thread's own counts only (its u): the
 * UPCs' batch may wait for the next accounting (vpmu_node_flush_read). */
void vpmu_account_read(void);
/* ... for a live view (host-timed): level-low counts wait (vpmu_node.h). */
void vpmu_account_view(void);
/* New programming (a client's HPM_VPMU_SELECT, a multiplexing switch):
 * what ran goes to the old one, every per-thread and region count restarts.
 * 0, or -1 (a spec the node cannot count now: nothing changed). */
Int vpmu_reprogram(const UInt *specs, UInt n);
void vpmu_counting_start(void);
void vpmu_counting_stop(void);

/* Overflow interrupts (vpmu_overflow.c): once armed, every new translation
 * starts with a call of vpmu_ovf_check, which returns VPMU_OVF_SIGNAL
 * after queueing a signal (the superblock leaves for the scheduler, which
 * delivers it) and VPMU_OVF_UPCALL after pushing an upcall's frame and
 * moving the guest's stack pointer (the superblock jumps to
 * vpmu_upcall_entry, the entry the program registered; 0: none). */
extern Bool vpmu_ovf_instrumented;
extern Addr vpmu_upcall_entry;
enum { VPMU_OVF_NONE = 0, VPMU_OVF_SIGNAL = 1, VPMU_OVF_UPCALL = 2 };
/* A superblock as the overflow check sees it: where it starts and its
 * instructions in order (made once per translation). */
struct vpmu_sb_desc {
    Addr start;
    Addr upcall; /* the entry this translation jumps to on an upcall; 0: none */
    UInt n;
    Addr insn[0];
};
/* sp: the guest's stack pointer at the superblock's start */
UWord vpmu_ovf_check(const struct vpmu_sb_desc *sb, Addr sp);

/* Client requests without the scheduler (vpmu_requests.c). A client request
 * leaves translated code for the scheduler and comes back (~1 us); the
 * reads a program makes in its loops (HPM_VPMU_READ*, UPC_READ,
 * IS_RUNNING) are answered instead by this helper, called from the request
 * instruction's own translation after its counts were flushed: it returns
 * 1 with the answer in vpmu_fast_reply (for RDX), or 0 for a request it
 * leaves to the scheduler (every other one: those may discard
 * translations, deliver signals or change what is instrumented). */
extern ULong vpmu_fast_reply;
UWord vpmu_fast_request(UWord args);

void vpmu_instrument_init(void);
IRSB *vpmu_instrument(VgCallbackClosure *closure, IRSB *sbIn,
                      const VexGuestLayout *layout,
                      const VexGuestExtents *vge,
                      const VexArchInfo *archinfo_host, IRType gWordTy,
                      IRType hWordTy);

#endif /* HPM_VPMU_STATE_H */
