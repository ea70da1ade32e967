/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_turns.c - threads interleaved in modeled time (vpmu_turns.h,
 * docs/vpmu.md "Interleaving").
 *
 * Valgrind runs one thread at a time, each for a slice of 100,000
 * superblocks or until it blocks, and which thread gets its lock next is
 * the host's choice. Left so, two threads that share a cache line without
 * blocking meet once per slice. With --hpm-interleave=N the tool decides:
 *
 * - a turn is N instructions (with --hpm-interleave-from=M a thread's
 *   turns grow from M to N, doubling, and restart at a thread's creation).
 *   The turn goes to the thread with the fewest instructions run in turns
 *   so far (its clock) among the threads able to run, ties to the lowest
 *   thread id: the thread that is behind in modeled time runs next, as the
 *   cores of a node run side by side;
 * - the translations carry nothing for it: Valgrind's own event counter,
 *   which a translation entered from the dispatcher or by a backward jump
 *   decrements at its entry, ends the holder's rounds (evc_set lowers it
 *   at each of its runs' starts). A round is as many event checks as the
 *   thread's instructions per check so far say make what is left of its
 *   turn; at a round's end (stop_client_code) the live block's instruction
 *   lane says what ran, and the turn ends when none is left (turn_check),
 *   else another round takes the rest. What a turn ran over is taken from
 *   the thread's next turn (carry), so that its turns end every N
 *   instructions on average, at varying points of its code. A thread that
 *   does not hold the turn starts with its counter at 0, leaves at its
 *   first translation's entry, gives up Valgrind's lock and sleeps on a
 *   word of its own until the turn is its (the pick that gives it the turn
 *   wakes it), so that each turn costs one hand-over, not one per waiting
 *   thread;
 * - a thread in a system call cannot run: its turn passes on at the call.
 *   A call that returns at once (most: mmap, madvise, sigprocmask, ...)
 *   keeps it in the running, and when its turn comes before it is back the
 *   others wait for it. A call that may wait for long (a futex wait, I/O on
 *   pipes and sockets, poll, sleep, wait4, ...: long_call) takes it out of
 *   the running until it is back; if others ran meanwhile its clock moves up
 *   to the least clock of the others (its core was idle, not behind);
 * - a new thread starts with its parent's clock;
 * - until a process creates its first thread there are no rounds (one
 *   thread has no one to hand a turn to): the clocks start at that creation
 *   (turns_begun);
 * - the clocks are coherence in modeled time's too (vpmu_cohtime.h): the
 *   running thread's modeled time stamps its accesses, and the frontier
 *   (the least clock of the threads able to run, below which none of them
 *   can log again) says what the replay may take;
 * - wakes the tool sees are kept in modeled time: a thread waiting in a
 *   futex is able to run again from the futex wake that wakes it (when the
 *   wake's count covers every thread the tool knows to wait on the word),
 *   or from the exit of the thread whose exit wakes it (the word a clone
 *   with CLONE_CHILD_CLEARTID or set_tid_address gave: pthread_join), or
 *   from a write to the pipe it reads (fifo_call), with the waker's clock.
 *   When its turn comes before it is back from the call, the others wait
 *   for it. Waits for a thread not back are bounded
 *   by a second of host time while /proc shows it still in its call (a
 *   call that did block, or a wake the kernel did not deliver, then costs
 *   only the order, never the progress), by 30 s while it is on its way
 *   (a loaded host delays it, the order stays); each wait given up is
 *   counted and reported (vpmu_turns_host_timed);
 * - a thread that goes into a futex wait is asleep in the kernel before
 *   another thread runs client code (settle), so the kernel queues a word's
 *   waiters in the order they began to wait, and a wake of n makes able
 *   the n that began first: those the kernel wakes.
 *
 * Whether a thread is able to run changes only while it, or the thread that
 * wakes it, holds Valgrind's lock, and the turns are decided from
 * instruction counts alone, so threads that do not block, or that block in
 * futexes (mutexes, condition variables, joins) or on pipes between them
 * (fifo_call), interleave the same way on every run. A thread that
 * returns from another blocking call (a socket, poll, a sleep) comes back
 * at a time the host decides, as without turns.
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_guest.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

#include "vpmu_cohtime.h"
#include "vpmu_tool.h"
#include "vpmu_turns.h"

/* libcoregrind, not in pub_tool (pub_core_scheduler.h): Valgrind's lock
 * given up and taken back, as the scheduler does at a time slice's end.
 * The state a yielding thread is in is ThreadStatus's VgTs_Yielding
 * (pub_core_threadstate.h: Empty, Init, Runnable, WaitSys, Yielding, Zombie,
 * in that order since Valgrind 3.0; release_BigLock asserts it). */
extern void VG_(release_BigLock)(ThreadId tid, UInt sleepstate, const HChar *who);
extern void VG_(acquire_BigLock)(ThreadId tid, const HChar *who);
/* VG_(do_syscall): vpmu_tool.h */
#define VGTS_YIELDING 4u
/* a waiting thread looks again at least this often (a safety net: the pick
 * that gives it the turn wakes it). Each look takes Valgrind's lock twice
 * (the scheduler's slice ends where the thread left at its first event
 * check), which the holder then waits for at its rounds' ends: a thousand
 * threads looking every 100 ms took a loaded host 90 s where one second
 * takes 7 (count_prog threads 1000 100) */
#define TURN_WAIT_NS 1000000000L

/* a thread was created: the turns and the clocks run */
static Bool turns_begun;
ThreadId vpmu_turn_holder = VG_INVALID_THREADID;
ULong vpmu_turn_end;
ULong vpmu_turn_stamp_base;

static ULong quantum;       /* N */
/* --hpm-interleave-from=M: a thread's turns start at M instructions and
 * double up to N (a new thread restarts its creator's too), so that a
 * thread that comes to share a line with another can be at most M ahead of
 * it when it does (coherence in modeled time), while long-running threads
 * hand over every N; 0: every turn is N */
static ULong first_turn;
static ULong turn_len;      /* the holder's turn */
/* Per ThreadId (VG_N_THREADS of them) */
static struct turn_thread {
    Bool able;         /* able to run (not in a system call) */
    Bool woken;        /* a wake made it able; not back yet */
    Bool prompt;       /* in a call that returns at once */
    Int go;            /* 1 once the turn is its (a futex word) */
    ULong clock;       /* instructions run in its turns */
    ULong ran_at_call; /* all turns' instructions when its call began */
    ULong next_turn;   /* its next turn's length (0: the first) */
    Addr waits_on;     /* the futex word it waits on, 0 none */
    ULong wait_seq;    /* when it began to wait there (the kernel's queue order) */
    Addr clear_tid;    /* the word its exit wakes, 0 none */
    UInt call;         /* the system call it is in (its number) */
    UWord call_arg0;   /* and that call's first argument */
    Int lwp;           /* its kernel thread id, 0 not asked yet */
    Bool fifo_waits;   /* in a read of a FIFO that found it empty */
    Bool fifo_prompt;  /* in a read or write of a FIFO that returns at once */
    Bool fifo_landed;  /* and done in the kernel (fifo_settle saw it) */
    Bool fifo_out;     /* in a write of bytes to a FIFO */
    ULong fifo_dev, fifo_ino; /* that FIFO */
    /* the event checks it passed in its rounds and the instructions they
     * ran (its instructions per check size its rounds) */
    ULong checks, checked_instr;
    Long carry; /* what its last turn ran over its length (<= 0) */
} *tt;
static ThreadId holder = VG_INVALID_THREADID;
static Long holder_left;    /* the holder's budget (while it runs: at its run's start) */
/* The holder runs client code (vpmu_turns_start to vpmu_turns_stop), from
 * vpmu_instr_run() = run_base, with Valgrind's event counter at run_checks;
 * round_left: the event checks left of its round. A round may take
 * several runs: Valgrind's slice, system calls and client requests stop
 * one too, at points that are not all the same from run to run (a slice's
 * end is where the counter the scheduler keeps, which idle threads reset,
 * ran out), so the turn's end is decided only at a round's end. */
static Bool holder_running;
static ULong run_base;
static Int run_checks;
static Long round_left;
static ThreadId yielding = VG_INVALID_THREADID;
static Addr clone_ctid;     /* the running clone's CLONE_CHILD_CLEARTID word */
static UInt wait_since_ms;  /* when the others began to wait for a woken holder */
/* The exit words of threads gone before anyone waited on them, with their
 * clocks: a join that waits on one later returns at once (the kernel
 * cleared it, or is about to). A new thread given the word takes it off. */
#define GONE_N 64u
static struct gone {
    Addr word;
    ULong clock;
} gone[GONE_N];
static UInt gone_next;
/* A thread that went into a futex wait: no other thread runs client code
 * until the kernel has it asleep (settle), so the kernel queues a word's
 * waiters in the order they began to wait, the order the tool keeps. */
static ThreadId settling = VG_INVALID_THREADID;
/* A thread that exited with a word for the kernel to clear (its
 * CLONE_CHILD_CLEARTID: pthread_join's): no other thread runs client code
 * until the kernel has cleared it, so a join reads the word after the exit
 * in every run (whether it calls futex at all is the host's timing
 * otherwise: instructions and system calls that differ from run to run). */
static Addr exiting_word;
static ULong wait_seq_next;
static Bool waiting_woken;
static UInt top_tid;        /* no thread id above this one is used */
static ULong floor_clock;   /* the latest frontier given (vpmu_turns_frontier) */
static ULong ran_total;     /* instructions of all turns ended */
static ULong switches;      /* turns that passed to another thread */
static ULong host_timed;    /* returns the host timed that others ran around */
/* of those, per system call (by number) that came back at a point the
 * host chose; the rest are waits given up */
#define HOST_TIMED_CALLS 512u
static ULong host_timed_call[HOST_TIMED_CALLS];

Bool vpmu_turns_option(const HChar *arg)
{
    /* not named n: VG_BINT_CLO declares an n of its own */
    Long turn = 0;
    if VG_BINT_CLO (arg, "--hpm-interleave", turn, 0, 1000000000) {
        quantum = (ULong)turn;
        vpmu_state.on.turns = turn > 0;
        return True;
    }
    if VG_BINT_CLO (arg, "--hpm-interleave-from", turn, 0, 1000000000) {
        first_turn = (ULong)turn;
        return True;
    }
    return False;
}

void vpmu_turns_usage(void)
{
    VG_(printf)("    --hpm-interleave=N        threads take turns of N instructions, the one\n"
                "                              behind in modeled time first [0: Valgrind's\n"
                "                              own slices]; use with --fair-sched=yes\n"
                "    --hpm-interleave-from=M   a thread's turns start at M instructions and\n"
                "                              double up to N (a new thread restarts its\n"
                "                              creator's) [0: every turn N]\n");
}

static void tables(void)
{
    if (!tt)
        tt = VG_(calloc)("hpm.turns", VG_N_THREADS, sizeof *tt);
}

/* Able to run, or woken and on its way back. */
static Bool may_hold(ThreadId t)
{
    return tt[t].able || tt[t].woken || tt[t].prompt;
}

static Bool waits_there(ThreadId t, Addr word)
{
    return !tt[t].able && !tt[t].woken && tt[t].waits_on == word;
}

/* A wake of up to n threads waiting on word at modeled time `clock`: the
 * waiters are able from now, at that clock, all of them for a broadcast,
 * else the n that began to wait first, as the kernel's queue has them
 * (settle). Made before the waker's call gives up Valgrind's lock (the
 * woken take it at once). */
static ULong wake(Addr word, ULong n, Bool broadcast, ULong clock)
{
    ThreadId t, first;
    ULong woken;
    if (!word)
        return 0;
    for (woken = 0; woken < n || broadcast; woken++) {
        first = VG_INVALID_THREADID;
        for (t = 1; t <= top_tid; t++)
            if (waits_there(t, word) &&
                (first == VG_INVALID_THREADID || tt[t].wait_seq < tt[first].wait_seq))
                first = t;
        if (first == VG_INVALID_THREADID)
            break;
        tt[first].woken = True;
        if (tt[first].clock < clock)
            tt[first].clock = clock;
    }
    return woken;
}

/* Thread t's line of /proc/self/task/LWP/FILE, NUL-terminated in buf;
 * False when it cannot be read (the thread is gone). */
static Bool task_file(ThreadId t, const HChar *file, HChar *buf, Int size)
{
    HChar path[64];
    SysRes sr;
    Int fd, n;
    VG_(snprintf)(path, sizeof path, "/proc/self/task/%d/%s", tt[t].lwp, file);
    sr = VG_(open)(path, VKI_O_RDONLY, 0);
    if (sr_isError(sr))
        return False;
    fd = (Int)sr_Res(sr);
    n = VG_(read)(fd, buf, size - 1);
    VG_(close)(fd);
    if (n <= 0)
        return False;
    buf[n] = 0;
    return True;
}

/* Thread t's scheduling state as /proc says it (R running or able to run,
 * S and D asleep, ...); 0 when it is gone. */
static HChar task_state(ThreadId t)
{
    HChar buf[256];
    const HChar *p;
    if (!task_file(t, "stat", buf, sizeof buf))
        return 0;
    p = VG_(strrchr)(buf, ')'); /* after the command, which may hold anything */
    return p && p[1] == ' ' ? p[2] : 0;
}

/* What /proc's syscall file says thread t does: gone (unreadable),
 * running, or in a call, with its number and first argument (0 when the
 * file gives none) */
enum task_doing { TASK_GONE, TASK_RUNNING, TASK_IN_CALL };
static enum task_doing task_call(ThreadId t, Long *nr, UWord *arg0)
{
    HChar buf[256];
    HChar *end;
    if (!task_file(t, "syscall", buf, sizeof buf))
        return TASK_GONE;
    if (buf[0] < '0' || buf[0] > '9')
        return TASK_RUNNING; /* "running" */
    *nr = VG_(strtoll10)(buf, &end);
    *arg0 = *end == ' ' ? (UWord)VG_(strtoll16)(end + 1, NULL) : 0;
    return TASK_IN_CALL;
}

/* Thread t is still inside the system call it began (vpmu_turns_syscall):
 * /proc's syscall file names that call and, for a futex, that word. A
 * thread back from its call waits for Valgrind's lock in a futex on
 * another word, or runs. True when it cannot be told. */
static Bool in_its_call(ThreadId t)
{
    Long nr;
    UWord arg0;
    switch (task_call(t, &nr, &arg0)) {
    case TASK_GONE:
        return True;
    case TASK_RUNNING:
        return False;
    default:
        return nr == (Long)tt[t].call && (nr != __NR_futex || arg0 == tt[t].call_arg0);
    }
}

/* Waits for a thread are bounded in host time: a second while the thread
 * could be blocked (a call that was thought prompt, a wake the kernel did
 * not deliver), longer while /proc shows it on its way (able to run, or
 * back from its call): a loaded host delays it but does not change the
 * order. */
#define WAIT_BLOCKED_MS 1000u
#define WAIT_ON_ITS_WAY_MS 30000u

/* 20 microseconds of host time, for the waits below */
static void nap(void)
{
    struct vki_timespec ts = {0, 20000};
    (void)VG_(do_syscall)(__NR_nanosleep, (RegWord)&ts, 0, 0, 0, 0, 0, 0, 0);
}

/* Before another thread runs client code: the thread that exited is gone
 * from the kernel (its exit word cleared), and the thread that went into a
 * futex wait is asleep in the kernel (S or D; a wait the kernel returned
 * from at once sleeps on Valgrind's lock and comes back as any call does). */
static void settle(ThreadId runner)
{
    UInt since, waited;
    HChar st;
    ThreadId t = settling;
    if (exiting_word) {
        Addr w = exiting_word;
        exiting_word = 0;
        since = VG_(read_millisecond_timer)();
        while (VG_(am_is_valid_for_client)(w, 4, VKI_PROT_READ) &&
               *(const volatile UInt *)w != 0) {
            if (VG_(read_millisecond_timer)() - since > WAIT_ON_ITS_WAY_MS) {
                host_timed++;
                break;
            }
            nap();
        }
    }
    if (t == VG_INVALID_THREADID || t == runner)
        return;
    settling = VG_INVALID_THREADID;
    since = VG_(read_millisecond_timer)();
    while (!tt[t].able && tt[t].lwp && (st = task_state(t)) != 0 && st != 'S' && st != 'D') {
        waited = VG_(read_millisecond_timer)() - since;
        if (waited > WAIT_ON_ITS_WAY_MS || (st != 'R' && waited > WAIT_BLOCKED_MS)) {
            host_timed++; /* the order of its wait is the host's */
            break;
        }
        nap();
    }
}

/* The gone entry of word, or NULL. */
static struct gone *gone_of(Addr word)
{
    UInt i;
    for (i = 0; i < GONE_N; i++)
        if (word && gone[i].word == word)
            return &gone[i];
    return NULL;
}

static void note_tid(ThreadId tid)
{
    if (tid > top_tid)
        top_tid = tid;
}

/* The holder's turn ends after `used` instructions. */
static void turn_end(Long used)
{
    if (holder == VG_INVALID_THREADID || used <= 0)
        return;
    tt[holder].clock += (ULong)used;
    ran_total += (ULong)used;
}

/* What vpmu_turns_stamp reads: the holder and its clock at its turn's end. */
static void turn_stamp_sync(void)
{
    vpmu_turn_holder = holder;
    vpmu_turn_end = holder == VG_INVALID_THREADID ? floor_clock : tt[holder].clock + turn_len;
}

/* The next holder: the able thread with the least clock, ties to the
 * lowest id; none when no thread is able to run. */
static void pick(void)
{
    ThreadId t, best = VG_INVALID_THREADID, before = holder;
    for (t = 1; t <= top_tid; t++)
        if (may_hold(t) && (best == VG_INVALID_THREADID || tt[t].clock < tt[best].clock))
            best = t;
    holder = best;
    turn_len = quantum;
    if (best != VG_INVALID_THREADID && first_turn && first_turn < quantum) {
        turn_len = tt[best].next_turn ? tt[best].next_turn : first_turn;
        tt[best].next_turn = 2 * turn_len < quantum ? 2 * turn_len : quantum;
    }
    if (best != VG_INVALID_THREADID) {
        /* less what its last turn ran over (at most half a turn) */
        Long c = tt[best].carry < -(Long)(turn_len / 2) ? -(Long)(turn_len / 2) : tt[best].carry;
        turn_len = (ULong)((Long)turn_len + c);
        tt[best].carry = 0;
    }
    holder_left = (Long)turn_len;
    round_left = 0;
    turn_stamp_sync();
    waiting_woken = False; /* a wait is for one holder */
    if (best != VG_INVALID_THREADID && best != before) {
        if (before != VG_INVALID_THREADID)
            switches++; /* from one thread to another (not: after none could run) */
        /* wake it if it sleeps waiting for its turn */
        __atomic_store_n(&tt[best].go, 1, __ATOMIC_RELEASE);
        (void)VG_(do_syscall)(__NR_futex, (RegWord)&tt[best].go,
                              VKI_FUTEX_WAKE | VKI_FUTEX_PRIVATE_FLAG, 1, 0, 0, 0, 0, 0);
    }
}

/* Valgrind's event counter of thread tid (the guest state's
 * host_EvC_COUNTER): a translation entered from the dispatcher or by a
 * backward jump (every loop has one: VEX's chained forward jumps skip it)
 * decrements it at its entry and, below 0, leaves for the scheduler before
 * it runs anything (VG_TRC_INNER_COUNTERZERO). The scheduler sets it to
 * what is left of its slice before the tool's start_client_code, which may
 * only lower it. */
#define EVC_OFFSET ((PtrdiffT)offsetof(VexGuestArchState, host_EvC_COUNTER))
static Int evc_get(ThreadId tid)
{
    Int v;
    VG_(get_shadow_regs_area)(tid, (UChar *)&v, 0, EVC_OFFSET, sizeof v);
    return v;
}
static void evc_set(ThreadId tid, Int v)
{
    VG_(set_shadow_regs_area)(tid, 0, EVC_OFFSET, sizeof v, (const UChar *)&v);
}

/* The holder starts a round: as many event checks as its instructions
 * per event check so far say make what is left of its turn (at least one).
 * Valgrind's slice may end a round first. A round runs past the turn's
 * end or stops short of it by what its stretch of code differs from the
 * thread's average: the next round takes the rest, the next turn what it
 * ran over (tt[].carry), so that a thread's turns end, on average, every
 * N instructions of its own, at varying points of its code. */
static void run_begin(ThreadId tid)
{
    Int now = evc_get(tid);
    if (round_left <= 0 && holder_left > 0) {
        ULong per_check = tt[tid].checks ? tt[tid].checked_instr / tt[tid].checks : 8;
        round_left = holder_left / (Long)(per_check ? per_check : 1);
        if (round_left < 1)
            round_left = 1;
    }
    /* a round spent with its turn (its last run stopped short of the
     * next check): it leaves at that check, where the turn ends */
    run_checks = round_left <= 0 ? 0 : round_left < (Long)now ? (Int)round_left : now;
    evc_set(tid, run_checks);
    run_base = vpmu_instr_run();
    /* vpmu_turns_stamp: its clock at the turn's end, less what was left
     * of the turn at the run's start, plus what the run ran */
    vpmu_turn_stamp_base = vpmu_turn_end - (ULong)holder_left - run_base;
    holder_running = True;
}

/* Thread tid stopped at its round's end with its turn spent, or left at
 * its first translation's entry, the turn not its own: the turn ends and
 * the next is picked. */
static void turn_check(ThreadId tid)
{
    Bool held = tid == holder; /* since it started: it is the live block's owner */
    if (held) {
        turn_end((Long)turn_len - holder_left);
        tt[tid].carry = holder_left;
        pick();
    } else if (holder == VG_INVALID_THREADID || !may_hold(holder)) {
        pick();
    } else if (!tt[holder].able) {
        /* woken, or in a prompt call, not back yet: wait, but not for ever */
        UInt now = VG_(read_millisecond_timer)();
        if (!waiting_woken) {
            waiting_woken = True;
            wait_since_ms = now;
        } else if (now - wait_since_ms > WAIT_ON_ITS_WAY_MS ||
                   (now - wait_since_ms > WAIT_BLOCKED_MS && in_its_call(holder))) {
            host_timed++; /* it did block: the others go on without it */
            tt[holder].woken = tt[holder].prompt = False;
            waiting_woken = False;
            pick();
        }
    }
    if (tid != holder)
        yielding = tid;
    /* else its next turn, or the turn just became its own: it starts again
     * as the holder (vpmu_turns_start makes it the live block's owner;
     * until then it counts for another) */
}

Bool vpmu_turns_start(ThreadId tid)
{
    if (!vpmu_state.on.turns)
        return True;
    tables();
    note_tid(tid);
    settle(tid);
    tt[tid].able = True; /* it runs client code */
    tt[tid].woken = tt[tid].prompt = False;
    if (holder == VG_INVALID_THREADID || !may_hold(holder))
        pick();
    if (tid == holder) {
        /* one thread so far: no turns to end, and no clock yet */
        if (turns_begun)
            run_begin(tid);
        return True;
    }
    evc_set(tid, 0); /* it leaves at its first translation's entry */
    return False;
}

void vpmu_turns_stop(ThreadId tid)
{
    if (!vpmu_state.on.turns)
        return;
    /* after below 0: the run left at an event check, where nothing is
     * pending (the turn may pass there: the thread sleeps below, and
     * another runs; at the other stops the scheduler still has to chain a
     * jump, look up a translation, make a call). Read only where a turn can
     * pass: not at every client request of a single thread. */
    Int after;
    if (holder_running) {
        /* the holder's run: the event checks it passed and their
         * instructions */
        ULong ran = vpmu_instr_run() - run_base, checks;
        after = evc_get(tid);
        checks = (ULong)(after < 0 ? run_checks : run_checks - after);
        holder_running = False;
        tt[tid].checks += checks;
        tt[tid].checked_instr += ran;
        round_left -= (Long)checks;
        holder_left -= (Long)ran;
        if (after < 0 && round_left <= 0 && holder_left <= 0)
            turn_check(tid);
    } else if (tid != holder && evc_get(tid) < 0) {
        turn_check(tid); /* it left at its first translation's entry */
    }
    if (yielding == tid) {
        yielding = VG_INVALID_THREADID;
        tt[tid].go = 0; /* under the lock: a pick from now on sets it */
        VG_(release_BigLock)(tid, VGTS_YIELDING, "hpm turn");
        if (__atomic_load_n(&tt[tid].go, __ATOMIC_ACQUIRE) == 0) {
            struct vki_timespec ts = {TURN_WAIT_NS / 1000000000L, TURN_WAIT_NS % 1000000000L};
            (void)VG_(do_syscall)(__NR_futex, (RegWord)&tt[tid].go,
                                  VKI_FUTEX_WAIT | VKI_FUTEX_PRIVATE_FLAG, 0, (RegWord)&ts, 0,
                                  0, 0, 0);
        }
        VG_(acquire_BigLock)(tid, "hpm turn");
    }
}

/* a futex operation without its PRIVATE and CLOCK_REALTIME flags */
static UWord futex_op(UWord op)
{
    return op & ~(UWord)(VKI_FUTEX_PRIVATE_FLAG | VKI_FUTEX_CLOCK_REALTIME);
}

/* The calls that may wait for long, or never return, besides futex waits
 * and fcntl's waiting locks: the rest return at once (a call that is not
 * listed and blocks costs a second of the others' host time, not their
 * progress). Named for the report (host_timed records). */
static const struct long_call_name {
    UInt sysno;
    const HChar *name;
} long_calls[] = {
    {__NR_read, "read"}, {__NR_write, "write"}, {__NR_readv, "readv"}, {__NR_writev, "writev"},
    {__NR_pread64, "pread64"}, {__NR_pwrite64, "pwrite64"}, {__NR_preadv, "preadv"},
    {__NR_pwritev, "pwritev"}, {__NR_recvfrom, "recvfrom"}, {__NR_recvmsg, "recvmsg"},
    {__NR_recvmmsg, "recvmmsg"}, {__NR_sendto, "sendto"}, {__NR_sendmsg, "sendmsg"},
    {__NR_sendmmsg, "sendmmsg"}, {__NR_accept, "accept"}, {__NR_accept4, "accept4"},
    {__NR_connect, "connect"}, {__NR_poll, "poll"}, {__NR_ppoll, "ppoll"},
    {__NR_select, "select"}, {__NR_pselect6, "pselect6"}, {__NR_epoll_wait, "epoll_wait"},
    {__NR_epoll_pwait, "epoll_pwait"}, {__NR_nanosleep, "nanosleep"},
    {__NR_clock_nanosleep, "clock_nanosleep"}, {__NR_pause, "pause"}, {__NR_wait4, "wait4"},
    {__NR_waitid, "waitid"}, {__NR_rt_sigsuspend, "rt_sigsuspend"},
    {__NR_rt_sigtimedwait, "rt_sigtimedwait"}, {__NR_msgrcv, "msgrcv"}, {__NR_msgsnd, "msgsnd"},
    {__NR_semop, "semop"}, {__NR_semtimedop, "semtimedop"},
    {__NR_mq_timedreceive, "mq_timedreceive"}, {__NR_mq_timedsend, "mq_timedsend"},
    {__NR_io_getevents, "io_getevents"}, {__NR_flock, "flock"}, {__NR_open, "open"},
    {__NR_openat, "openat"}, {__NR_ioctl, "ioctl"}, {__NR_exit, "exit"},
    {__NR_exit_group, "exit_group"}, {__NR_execve, "execve"}, {__NR_execveat, "execveat"},
    {__NR_vfork, "vfork"}, {__NR_futex, "futex"}, {__NR_fcntl, "fcntl"},
};

static const HChar *long_call_name(UInt sysno)
{
    UInt i;
    for (i = 0; i < sizeof long_calls / sizeof long_calls[0]; i++)
        if (long_calls[i].sysno == sysno)
            return long_calls[i].name;
    return NULL;
}

const HChar *vpmu_turns_call_name(UInt sysno, HChar *buf, Int size)
{
    const HChar *name = long_call_name(sysno);
    if (name)
        return name;
    VG_(snprintf)(buf, size, "syscall_%u", sysno);
    return buf;
}

static Bool long_call(UInt sysno, const UWord *args, UInt nargs)
{
    switch (sysno) {
    case __NR_futex: {
        UWord op = nargs >= 2 ? futex_op(args[1]) : VKI_FUTEX_WAIT;
        return op != VKI_FUTEX_WAKE && op != VKI_FUTEX_WAKE_BITSET && op != VKI_FUTEX_WAKE_OP &&
               op != VKI_FUTEX_REQUEUE && op != VKI_FUTEX_CMP_REQUEUE &&
               op != VKI_FUTEX_UNLOCK_PI;
    }
    case __NR_fcntl:
        return nargs >= 2 && (args[1] == VKI_F_SETLKW || args[1] == 38 /* F_OFD_SETLKW */);
    default:
        return long_call_name(sysno) != NULL;
    }
}

/* I/O on a FIFO (a pipe) between a process's threads, kept in modeled time
 * as futexes are. Before a thread's read or write of a FIFO is judged, the
 * other threads' calls on it that return at once are done in the kernel
 * (fifo_settle: each was made before in the turns' order, but may not have
 * reached the kernel yet), so what the FIFO holds is what the calls before
 * it in the turns' order left there. Then a read returns at once (prompt:
 * the thread stays in the running) when the FIFO holds bytes and no other
 * thread waits to read it, when its writers are gone, or when the
 * descriptor does not block; a write of at most PIPE_BUF bytes to a FIFO
 * with a free slot returns at once. A read that finds the FIFO empty waits
 * for a write: a write of a thread of the process to that FIFO makes the
 * reader able at the writer's clock, as a futex wake does, when it is the
 * one thread waiting there (with several, the kernel chooses which one
 * reads: their returns stay the host's). What may block is taken as a long
 * call, never as a prompt one (the others would wait for it for a second
 * of host time). A FIFO is its inode; a socket's two ends are two inodes,
 * so sockets stay the host's. */
#define FIFO_POLLOUT 0x004
#define FIFO_POLLHUP 0x010
#define FIFO_ATOMIC_BYTES 4096 /* PIPE_BUF: a write of up to this fits a free slot */
#define FIFO_FIONREAD 0x541B   /* the bytes a FIFO holds (ioctl) */

/* +1 a read, -1 a write of a descriptor (args[0]), 0 another call */
static Int fifo_direction(UInt sysno)
{
    switch (sysno) {
    case __NR_read: case __NR_readv:
        return 1;
    case __NR_write: case __NR_writev:
        return -1;
    default:
        return 0;
    }
}

/* The bytes a write or writev asks to write; ~0 when they cannot be read */
static ULong fifo_write_bytes(UInt sysno, const UWord *args)
{
    const struct vki_iovec *iov = (const struct vki_iovec *)args[1];
    ULong sum = 0;
    UWord i;
    if (sysno == __NR_write)
        return args[2];
    if (args[2] > 1024 || !VG_(am_is_valid_for_client)((Addr)iov, args[2] * sizeof *iov,
                                                         VKI_PROT_READ))
        return ~0ULL;
    for (i = 0; i < args[2] && sum <= FIFO_ATOMIC_BYTES; i++)
        sum += iov[i].iov_len;
    return sum;
}

/* The readiness poll(2) gives the descriptor now (0 none) */
static UInt fifo_ready(Int fd, Short events)
{
    struct vki_pollfd p;
    SysRes sr;
    p.fd = fd;
    p.events = events;
    p.revents = 0;
    sr = VG_(poll)(&p, 1, 0);
    return sr_isError(sr) || sr_Res(sr) != 1 ? 0 : (UInt)(UShort)p.revents;
}

static Bool same_fifo(ThreadId t, const struct vg_stat *st)
{
    return tt[t].fifo_dev == st->dev && tt[t].fifo_ino == st->ino;
}

/* Thread t, whose call on a FIFO returns at once, is past it in the
 * kernel: /proc shows it in another system call (the wait for Valgrind's
 * lock, which the caller holds), neither in its own nor running towards
 * it. */
static Bool call_done(ThreadId t)
{
    Long nr;
    UWord arg0;
    switch (task_call(t, &nr, &arg0)) {
    case TASK_GONE:
        return True;
    case TASK_RUNNING:
        return False;
    default:
        return nr != (Long)tt[t].call || arg0 != tt[t].call_arg0;
    }
}

/* The other threads' prompt calls on the FIFO are done in the kernel */
static void fifo_settle(ThreadId tid, const struct vg_stat *st)
{
    ThreadId t;
    UInt since;
    for (t = 1; t <= top_tid; t++) {
        if (t == tid || !tt[t].fifo_prompt || tt[t].fifo_landed || !same_fifo(t, st))
            continue;
        since = VG_(read_millisecond_timer)();
        while (tt[t].lwp && !call_done(t)) {
            if (VG_(read_millisecond_timer)() - since > WAIT_BLOCKED_MS) {
                host_timed++; /* it did not return at once after all */
                break;
            }
            nap();
        }
        tt[t].fifo_landed = True;
    }
}

/* Thread tid's call of sysno on a FIFO, if it is one: notes the FIFO,
 * and for a write wakes its one waiting reader at `now`; True when the call
 * returns at once. */
static Bool fifo_call(ThreadId tid, UInt sysno, const UWord *args, UInt nargs, ULong now)
{
    Int dir = fifo_direction(sysno), fd, held = 0;
    struct vg_stat st;
    ThreadId t, reader = VG_INVALID_THREADID;
    UInt readers = 0;
    Bool writing = False;
    ULong bytes;
    SysRes sr;
    if (dir == 0 || nargs < 3 || !turns_begun)
        return False; /* (one thread so far: no one to wake or to wait) */
    fd = (Int)args[0];
    if (VG_(fstat)(fd, &st) != 0 || !VKI_S_ISFIFO(st.mode))
        return False;
    tt[tid].fifo_dev = st.dev;
    tt[tid].fifo_ino = st.ino;
    fifo_settle(tid, &st);
    /* the other threads in a read of it that found it empty (woken or
     * not: the kernel has yet to give them bytes), and writes to it that
     * may block */
    for (t = 1; t <= top_tid; t++)
        if (t != tid && same_fifo(t, &st)) {
            if (tt[t].fifo_waits) {
                reader = t;
                readers++;
            }
            writing |= tt[t].fifo_out && !tt[t].fifo_prompt;
        }
    if (dir > 0) {
        sr = VG_(do_syscall)(__NR_ioctl, (RegWord)fd, FIFO_FIONREAD, (RegWord)&held, 0, 0, 0, 0, 0);
        if (!sr_isError(sr) && readers == 0 && !writing &&
            (held > 0 || (fifo_ready(fd, 0) & FIFO_POLLHUP)))
            return True; /* bytes there, or the end of the file */
        sr = VG_(do_syscall)(__NR_fcntl, (RegWord)fd, VKI_F_GETFL, 0, 0, 0, 0, 0, 0);
        if (!sr_isError(sr) && (sr_Res(sr) & VKI_O_NONBLOCK))
            return True; /* EAGAIN at once */
        tt[tid].fifo_waits = True;
        return False;
    }
    bytes = fifo_write_bytes(sysno, args);
    if (bytes == 0)
        return False;
    tt[tid].fifo_out = True;
    if (readers == 1 && !tt[reader].woken) {
        tt[reader].woken = True;
        if (tt[reader].clock < now)
            tt[reader].clock = now;
    }
    return !writing && bytes <= FIFO_ATOMIC_BYTES && (fifo_ready(fd, FIFO_POLLOUT) & FIFO_POLLOUT);
}

/* Thread tid's modeled time at its call: its clock, and the holder's turn
 * so far (its turn ends at the call) */
static ULong call_clock(ThreadId tid)
{
    return tt[tid].clock + (tid == holder ? turn_len - (ULong)holder_left : 0);
}

void vpmu_turns_syscall(ThreadId tid, UInt sysno, const UWord *args, UInt nargs)
{
    if (!vpmu_state.on.turns)
        return;
    tables();
    note_tid(tid);
    if (!tt[tid].lwp)
        tt[tid].lwp = VG_(gettid)();
    tt[tid].waits_on = 0;
    tt[tid].call = sysno;
    tt[tid].call_arg0 = nargs >= 1 ? args[0] : 0;
    if (sysno == __NR_futex && nargs >= 2 &&
        (futex_op(args[1]) == VKI_FUTEX_WAIT || futex_op(args[1]) == VKI_FUTEX_WAIT_BITSET))
        tt[tid].waits_on = args[0];
    if (sysno == __NR_clone && nargs >= 4)
        clone_ctid = (args[0] & VKI_CLONE_CHILD_CLEARTID) ? args[3] : 0;
    if (sysno == __NR_set_tid_address && nargs >= 1) {
        struct gone *g = gone_of(args[0]);
        tt[tid].clear_tid = args[0];
        if (g)
            g->word = 0;
    }
    if (sysno == __NR_futex && nargs >= 3 &&
        (futex_op(args[1]) == VKI_FUTEX_WAKE || futex_op(args[1]) == VKI_FUTEX_WAKE_BITSET)) {
        /* its turn ends below: the clock is its own so far */
        wake(args[0], args[2], args[2] >= 0x7fffffff, call_clock(tid));
    }
    tt[tid].able = False;
    tt[tid].prompt = !long_call(sysno, args, nargs);
    tt[tid].fifo_waits = tt[tid].fifo_prompt = tt[tid].fifo_landed = tt[tid].fifo_out = False;
    if (fifo_call(tid, sysno, args, nargs, call_clock(tid)))
        tt[tid].prompt = tt[tid].fifo_prompt = True;
    if (tt[tid].waits_on) {
        struct gone *g = gone_of(tt[tid].waits_on);
        if (g) {
            /* a join of a thread gone: it returns when the kernel has
             * cleared the word, at the later of the two clocks */
            tt[tid].woken = True;
            if (tt[tid].clock < g->clock)
                tt[tid].clock = g->clock;
            g->word = 0;
        } else if (nargs >= 3 && VG_(am_is_valid_for_client)(tt[tid].waits_on, 4, VKI_PROT_READ) &&
                   *(const volatile UInt *)tt[tid].waits_on != (UInt)args[2]) {
            tt[tid].prompt = True; /* the word changed: EAGAIN at once */
        } else {
            tt[tid].wait_seq = ++wait_seq_next;
            settling = tid;
        }
    }
    if (tid == holder) {
        turn_end((Long)turn_len - holder_left);
        pick(); /* none able: the next thread to run picks */
    }
    tt[tid].ran_at_call = ran_total; /* its own turn counted: what others run from now */
}

void vpmu_turns_syscall_done(ThreadId tid)
{
    ThreadId t;
    Bool any = False;
    ULong least = 0;
    if (!vpmu_state.on.turns)
        return;
    tables();
    note_tid(tid);
    tt[tid].waits_on = 0;
    tt[tid].fifo_waits = tt[tid].fifo_prompt = tt[tid].fifo_landed = tt[tid].fifo_out = False;
    if (tt[tid].woken || tt[tid].prompt) {
        /* back from a wake the tool saw (its clock is the waker's), or
         * from a prompt call (the others waited for it) */
        tt[tid].woken = tt[tid].prompt = False;
        waiting_woken = False;
    } else if (ran_total != tt[tid].ran_at_call) {
        /* others ran while it was in the call: its core was idle, up to
         * where the least of them is now (a point the host chose) */
        host_timed++;
        if (tt[tid].call < HOST_TIMED_CALLS)
            host_timed_call[tt[tid].call]++;
        for (t = 1; t <= top_tid; t++)
            if (t != tid && tt[t].able && (!any || tt[t].clock < least)) {
                least = tt[t].clock;
                any = True;
            }
        if (any && tt[tid].clock < least)
            tt[tid].clock = least;
    }
    if (tt[tid].clock < floor_clock)
        tt[tid].clock = floor_clock; /* accesses before it are replayed */
    if (tid == holder)
        turn_stamp_sync();
    tt[tid].able = True;
}

void vpmu_turns_thread_new(ThreadId parent, ThreadId child)
{
    if (!vpmu_state.on.turns || child == 0 || child >= VG_N_THREADS)
        return;
    tables();
    note_tid(child);
    tt[child].clock = parent > 0 && parent < VG_N_THREADS ? tt[parent].clock : 0;
    tt[child].clear_tid = clone_ctid;
    {
        struct gone *g = gone_of(clone_ctid);
        if (g)
            g->word = 0; /* the word is the new thread's now */
    }
    tt[child].waits_on = 0;
    tt[child].woken = tt[child].prompt = False;
    tt[child].fifo_waits = tt[child].fifo_prompt = tt[child].fifo_landed = tt[child].fifo_out = False;
    /* a ThreadId is used again after its thread exits: the kernel's id is
     * the new thread's, read at its first call (a stale one made settle
     * read a gone thread's /proc files and wait for nothing) */
    tt[child].lwp = 0;
    if (parent == holder && (Long)turn_len > holder_left)
        tt[child].clock += (ULong)((Long)turn_len - holder_left);
    /* the two may come to share lines: short turns again (--hpm-interleave-from) */
    tt[child].next_turn = 0;
    if (parent > 0 && parent < VG_N_THREADS)
        tt[parent].next_turn = 0;
    tt[child].able = True;
    if (parent == VG_INVALID_THREADID)
        return; /* the main thread, at the start (Valgrind's own creation) */
    /* the parent ran without rounds so far: its clock starts here, as does
     * the budget of its turn */
    turns_begun = True;
}

void vpmu_turns_thread_end(ThreadId tid)
{
    if (!vpmu_state.on.turns || tid == 0 || tid >= VG_N_THREADS)
        return;
    tables();
    tt[tid].able = False;
    tt[tid].woken = tt[tid].prompt = False;
    tt[tid].fifo_waits = tt[tid].fifo_prompt = tt[tid].fifo_landed = tt[tid].fifo_out = False;
    if (tid == holder)
        turn_end((Long)turn_len - holder_left);
    /* the kernel wakes one waiter of the word when the thread is gone */
    if (tt[tid].clear_tid && wake(tt[tid].clear_tid, 1, False, tt[tid].clock) == 0) {
        gone[gone_next].word = tt[tid].clear_tid;
        gone[gone_next].clock = tt[tid].clock;
        gone_next = (gone_next + 1) % GONE_N;
    }
    exiting_word = tt[tid].clear_tid;
    tt[tid].clear_tid = 0;
    if (tid == holder)
        pick();
}

void vpmu_turns_fork_child(ThreadId tid)
{
    ThreadId t;
    if (!vpmu_state.on.turns)
        return;
    vpmu_cohtime_fork_child(); /* the logs are the parent's threads' */
    tables();
    for (t = 1; t <= top_tid; t++) {
        tt[t].able = tt[t].woken = tt[t].prompt = False;
        tt[t].fifo_waits = tt[t].fifo_prompt = tt[t].fifo_landed = tt[t].fifo_out = False;
        tt[t].lwp = 0; /* a new process: new kernel thread ids */
    }
    note_tid(tid);
    settling = VG_INVALID_THREADID;
    exiting_word = 0; /* the parent's thread: no kernel clears it here */
    waiting_woken = False;
    tt[tid].able = True;
    holder = tid;
    turn_len = quantum;
    holder_left = (Long)quantum;
    holder_running = False;
    round_left = 0;
    turn_stamp_sync();
    yielding = VG_INVALID_THREADID;
}

ULong vpmu_turns_frontier(Bool *final)
{
    ThreadId t;
    ULong least = ~0ULL, most = floor_clock;
    *final = tt == NULL;
    if (!tt)
        return floor_clock;
    for (t = 1; t <= top_tid; t++) {
        if (may_hold(t) && tt[t].clock < least)
            least = tt[t].clock;
        if (tt[t].clock > most)
            most = tt[t].clock;
    }
    if (least == ~0ULL) {
        least = most; /* no thread can run: all it logged is final */
        *final = True;
    }
    if (least > floor_clock)
        floor_clock = least;
    return floor_clock;
}

ULong vpmu_turns_quantum(void)
{
    return vpmu_state.on.turns ? quantum : 0;
}

ULong vpmu_turns_switches(void)
{
    return switches;
}

UInt vpmu_turns_host_timed_calls(UInt *sysno, ULong *n, UInt max, ULong *calls)
{
    UInt k, i, j, m = 0;
    *calls = 0;
    for (k = 0; k < HOST_TIMED_CALLS; k++) {
        if (!host_timed_call[k])
            continue;
        *calls += host_timed_call[k];
        /* insertion into the top max, most first (ties: the lower number) */
        for (i = 0; i < m && n[i] >= host_timed_call[k]; i++)
            ;
        if (i >= max)
            continue;
        for (j = m < max ? m : max - 1; j > i; j--) {
            sysno[j] = sysno[j - 1];
            n[j] = n[j - 1];
        }
        sysno[i] = k;
        n[i] = host_timed_call[k];
        if (m < max)
            m++;
    }
    return m;
}

ULong vpmu_turns_host_timed(void)
{
    return host_timed;
}
