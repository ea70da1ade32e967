/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_main.c - the hpm virtual PMU, a Valgrind tool (valgrind --tool=hpm).
 *
 * Counts, per thread and exactly, the events of vpmu_events.h by
 * instrumenting VEX IR (vpmu_instrument.c); serves the client requests of
 * hpm_client.h; writes all counts at exit (also after a fatal signal) to the
 * file named by --hpm-out.
 *
 * The output format is defined in vpmu_format.h (the reader, tools/hpm/
 * vpmu_output.c, includes it too).
 *
 * Per-thread counts. The UPC counts per core (as the hardware does); a
 * thread's count is what its core's counters advanced while it ran. The tool
 * feeds the UPC and reads it back whenever the running thread changes (and
 * at every client request), and credits the difference to the thread that
 * ran, as an OS virtualises counters at context switches.
 *
 * Copyright notice: this tool links Valgrind's coregrind and VEX (GPL-2.0).
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_libcsetjmp.h"
#include "pub_tool_libcsignal.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_signals.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_transtab.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "pub_tool_xarray.h"
#include "libvex_guest_offsets.h"

#include "hpm_client.h"
#include "vpmu_format.h"
#include "vpmu_live.h"
#include "vpmu_events.h"
#include "vpmu_gate.h"
#include "vpmu_mpx.h"
#include "vpmu_io.h"
#include "catalog.h"
#include "hpm/upc.h"
#include "machine.h"
#include "vpmu_node.h"
#include "vpmu_out.h"
#include "vpmu_profile.h"
#include "vpmu_sample.h"
#include "vpmu_procs.h"
#include "vpmu_state.h"
#include "vpmu_upctrace.h"

/* ------------------------------------------------------------------------
 * State
 * ---------------------------------------------------------------------- */

/* libcoregrind, not in pub_tool: a raw system call (pub_core_syscall.h) */
extern SysRes VG_(do_syscall)(UWord sysno, RegWord a1, RegWord a2, RegWord a3, RegWord a4,
                              RegWord a5, RegWord a6, RegWord a7, RegWord a8);
/* libcoregrind, not in pub_tool: grow a thread's client stack down to addr
 * (pub_core_signals.h; False past the stack's limit) */
extern Bool VG_(extend_stack)(ThreadId tid, Addr addr);

ULong vpmu_live[VPMU_LIVE_WORDS];
Bool vpmu_running = True;
Int vpmu_clo_level = VPMU_LEVEL_INSN; /* raised to what the events need */
static Bool clo_level_given;
UInt vpmu_ev_counted = ~0u;

static const HChar *clo_out = "hpm-vpmu.%p.out";
static Bool clo_start = True;

static const HChar *const event_names[VPMU_EV_COUNT] = VPMU_EVENT_NAME_INIT;

#define REGION_DEPTH 16
#define REGION_NAMES_MAX 256

struct region_frame {
    UInt region;
    ULong snap[HPM_K_CORE_COUNT];
};

struct vpmu_thread {
    Bool used;
    UInt serial;
    UInt core;
    Addr syscall_site; /* its current system call's instruction (a profile's) */
    ULong c[VPMU_EV_COUNT];   /* raw, exact tool counters */
    ULong u[HPM_K_CORE_COUNT]; /* UPC-read counts of its core while it ran */
    UInt depth;
    /* REGION_DEPTH frames, allocated at the thread's first region: inline,
     * they made the table of VG_N_THREADS threads 4.3 MB to zero at start */
    struct region_frame *stack;
    /* armed overflow interrupts (HPM_VPMU_OVERFLOW) */
    UInt n_ovf;
    UInt ovf_skip; /* model kinds are checked every OVF_MODEL_STRIDE-th SB */
    struct vpmu_ovf {
        UInt kind;
        Int ev; /* its exact core event; -1: a model's kind (ovf_event) */
        Int signo;
        ULong threshold, next; /* fire when the count reaches next */
        ULong seen;            /* the count at the last check (exact kinds) */
        ULong fed;             /* the count the thread's overflow unit has seen */
        UInt input;            /* the unit's input its counter selects */
    } ovf[HPM_VPMU_OVERFLOW_MAX];
    struct hpm_upc *ovf_upc; /* counter i: ovf[i]'s threshold (see Overflow) */
    void *ovf_upc_mem;
    Long ovf_irq_at;         /* the event of the batch that raised the IRQ, -1 none */
    ULong ovf_batch_cycle;   /* the unit's cycle at the batch's start */
    const struct vpmu_sb_desc *last_sb; /* entered at the last check */
    Int lwpid;                          /* the kernel's thread id, 0: not asked yet */
    Addr where[HPM_VPMU_WHERE_MAX];     /* the last signal's thresholds */
    UInt n_where;
    /* fast overflow (seed 002): the thread's counting is frozen from the
     * delivery of an overflow signal the tool sent to its sigreturn */
    UInt ovf_sent;     /* overflow signals sent and not yet delivered */
    UInt frozen;       /* delivered ones whose handler still runs */
    UInt sigdepth;     /* signal frames open on the thread */
    ULong frame_froze; /* bit d: frame d (of the first 64) froze counting */
    Addr frozen_sp;    /* stack pointer interrupted by the outermost frozen frame */
    Bool frozen_alt;   /* ... whose handler runs on the alternate stack */
    /* overflow upcalls (HPM_VPMU_OVERFLOW_UPCALL): no signal, the thread is
     * sent to the library's entry as an interrupt vector would send it */
    Addr upcall_entry;  /* 0: signals */
    Addr upcall_mask;   /* the thread's int: the interrupt waits while not 0 */
    Bool upcall_frozen; /* its handler runs: counting frozen */
    Addr upcall_sp;     /* the interrupted stack pointer: thawed back at it */
};

/* counts of a thread that has exited */
struct vpmu_exited {
    struct vpmu_exited *next;
    UInt serial;
    UInt core;
    ULong c[VPMU_EV_COUNT];
    ULong u[HPM_K_CORE_COUNT];
};

/* accumulated counts of one region on one thread */
struct vpmu_region_rec {
    struct vpmu_region_rec *next;
    UInt region;
    UInt serial;
    UInt core;
    ULong entries;
    ULong u[HPM_K_CORE_COUNT];
};

static struct vpmu_thread *threads; /* indexed by ThreadId, VG_N_THREADS */
static ThreadId live_owner = VG_INVALID_THREADID;
static UInt next_serial = 1;
static struct vpmu_exited *exited;
static struct vpmu_region_rec *region_recs;
static HChar *region_names[REGION_NAMES_MAX];
static UInt n_region_names;
static Bool exit_seen;
static Long exit_code;
/* The process's ids, asked once (and again in a forked child): a system
 * call costs microseconds on a virtual machine, an interrupt a few of them. */
static Int ovf_pid, ovf_euid;
/* per core: UPC values of its per-core kinds at the last accounting */
static ULong (*core_seen)[HPM_K_CORE_COUNT];

/* ------------------------------------------------------------------------
 * The live view (vpmu_live.h)
 *
 * A shared mapping of /dev/shm/hpm-live.NS.PID that other processes read
 * with the sequence-lock protocol. Published at each scheduler timeslice
 * once --hpm-live-ms of host time have passed since the last publication,
 * and at exit and exec. Counting does not depend on it: a publication
 * brings the UPC up to date (account), which the tool does at any thread
 * switch or client request anyway, and the counts are exact at every such
 * point.
 *
 * /dev/shm is shared by every user, container and hpm run, so the view is
 * created exclusively and never through a link, and it is owned by an
 * open-file-description lock held on a descriptor of its own (vpmu_live.h,
 * "Ownership"); a truncation of the file under the mapping is caught
 * (SIGBUS) and repaired, never fatal.
 * ---------------------------------------------------------------------- */

static Bool clo_live = True;
static Long clo_live_ms = 100;
static struct hpm_live *live;
static HChar live_path[96];
static Int live_fd = -1; /* holds the ownership lock; Valgrind's fd range, close-on-exec */
static UInt live_last_ms;

/* libcoregrind, not in pub_tool: a shared file mapping in Valgrind's own
 * address space (the one vgdb's shared memory uses), and a descriptor moved
 * to Valgrind's reserved range, out of the client's reach (close-on-exec) */
extern SysRes VG_(am_shared_mmap_file_float_valgrind)(SizeT length, UInt prot, Int fd,
                                                       Off64T offset);
extern Int VG_(safe_fd)(Int oldfd);

/* amd64 Linux values that vki does not name */
#define LIVE_O_NOFOLLOW 0400000
#define LIVE_O_CLOEXEC 02000000
#define LIVE_F_OFD_GETLK 36
#define LIVE_F_OFD_SETLK 37
#define LIVE_F_OFD_SETLKW 38
#define LIVE_F_WRLCK 1

/* The inode of this process's pid namespace: views of processes in other
 * namespaces (containers sharing /dev/shm) never share a name with ours. */
static ULong live_pidns(void)
{
    HChar buf[64], *p;
    SSizeT n = VG_(readlink)("/proc/self/ns/pid", buf, sizeof buf - 1);
    if (n <= 0)
        return 0;
    buf[n] = 0; /* "pid:[4026531836]" */
    p = VG_(strchr)(buf, '[');
    return p ? VG_(strtoull10)(p + 1, NULL) : 0;
}

static void live_name(HChar *buf, SizeT len, Int pid, const HChar *suffix)
{
    VG_(snprintf)(buf, len, "%s/%s%llu.%d%s", HPM_LIVE_SHM_DIR, HPM_LIVE_PREFIX,
                  live_pidns(), pid, suffix);
}

/* An open-file-description write lock on the whole file (fcntl(2)): held
 * while the descriptor stays open, by this process only (a forked child
 * closes its copy), released by the kernel when the process dies. */
static Bool live_lock(Int fd, Bool wait)
{
    struct vki_flock fl;
    VG_(memset)(&fl, 0, sizeof fl);
    fl.l_type = LIVE_F_WRLCK;
    return !sr_isError(VG_(do_syscall)(__NR_fcntl, (RegWord)fd,
                                       wait ? LIVE_F_OFD_SETLKW : LIVE_F_OFD_SETLK,
                                       (RegWord)&fl, 0, 0, 0, 0, 0));
}

/* The name is taken: a view left by an earlier process of this pid in this
 * namespace that was killed (nobody holds its lock) is removed; True when
 * the name is free again. A live owner, a link, a FIFO or another user's
 * file are left alone (no view for this run). */
static Bool live_reclaim(const HChar *path)
{
    struct vg_stat st, now;
    Bool freed = False;
    SysRes sr = VG_(do_syscall)(__NR_open, (RegWord)path,
                                VKI_O_RDWR | VKI_O_NONBLOCK | LIVE_O_NOFOLLOW | LIVE_O_CLOEXEC,
                                0, 0, 0, 0, 0, 0);
    Int fd;
    if (sr_isError(sr))
        return False;
    fd = (Int)sr_Res(sr);
    if (VG_(fstat)(fd, &st) == 0 && VKI_S_ISREG(st.mode) && st.uid == (UInt)VG_(geteuid)() &&
        live_lock(fd, False) && !sr_isError(VG_(stat)(path, &now)) && now.ino == st.ino &&
        now.dev == st.dev)
        freed = VG_(unlink)(path) == 0;
    VG_(close)(fd);
    return freed;
}

static void live_open(void)
{
    HChar self[48];
    struct vg_stat st;
    SysRes sr;
    Int fd = -1, tries;
    if (!clo_live)
        return;
    live_name(live_path, sizeof live_path, VG_(getpid)(), "");
    for (tries = 0; tries < 8 && fd < 0; tries++) {
        sr = VG_(do_syscall)(__NR_open, (RegWord)live_path,
                             VKI_O_CREAT | VKI_O_EXCL | VKI_O_RDWR | LIVE_O_NOFOLLOW |
                                 LIVE_O_CLOEXEC,
                             VKI_S_IRUSR | VKI_S_IWUSR, 0, 0, 0, 0, 0);
        if (sr_isError(sr)) {
            if (sr_Err(sr) == VKI_EEXIST && live_reclaim(live_path))
                continue;
            live_path[0] = 0;
            return; /* no /dev/shm, or the name is not ours: no live view */
        }
        fd = VG_(safe_fd)((Int)sr_Res(sr)); /* before the lock: closing an fd keeps it */
        /* a reader that found the file before the lock may have removed it
         * as stale: then make another */
        if (fd < 0 || !live_lock(fd, True) || VG_(fstat)(fd, &st) != 0 || st.nlink == 0) {
            if (fd >= 0)
                VG_(close)(fd);
            fd = -1;
        }
    }
    if (fd < 0) {
        live_path[0] = 0;
        return;
    }
    if (!sr_isError(VG_(do_syscall)(__NR_ftruncate, (RegWord)fd, sizeof(struct hpm_live), 0, 0,
                                    0, 0, 0, 0))) {
        /* mapped through a second open file description, so that the
         * mapping a forked child inherits does not keep the lock alive */
        VG_(snprintf)(self, sizeof self, "/proc/self/fd/%d", fd);
        sr = VG_(open)(self, VKI_O_RDWR, 0);
        if (!sr_isError(sr)) {
            Int mfd = (Int)sr_Res(sr);
            sr = VG_(am_shared_mmap_file_float_valgrind)(sizeof(struct hpm_live),
                                                         VKI_PROT_READ | VKI_PROT_WRITE, mfd, 0);
            if (!sr_isError(sr))
                live = (struct hpm_live *)sr_Res(sr);
            VG_(close)(mfd);
        }
    }
    if (!live) {
        VG_(unlink)(live_path);
        VG_(close)(fd);
        live_path[0] = 0;
        return;
    }
    live_fd = fd;
    live->magic = HPM_LIVE_MAGIC;
    live->version = HPM_LIVE_VERSION;
    live->size = sizeof(struct hpm_live);
    live->pid = (UInt)VG_(getpid)();
    live->interval_ms = (ULong)clo_live_ms;
    live_last_ms = VG_(read_millisecond_timer)();
}

/* One publication's stores; the UPC must be up to date (after account). */
static void live_write(UInt state, Int exit_status)
{
    UInt i, n, t;
    SizeT at = 0;
    __atomic_store_n(&live->seq, live->seq + 1, __ATOMIC_RELAXED); /* odd: writing */
    __atomic_thread_fence(__ATOMIC_RELEASE);
    live->ppid = (UInt)VG_(getppid)();
    live->state = state;
    live->exit_status = exit_status;
    n = vpmu_node_n_events();
    if (n > HPM_LIVE_MAX_EVENTS)
        n = HPM_LIVE_MAX_EVENTS;
    for (i = 0; i < n; i++) {
        live->codes[i] = (UInt)vpmu_node_event_code(i);
        live->values[i] = vpmu_node_event_value(i);
    }
    live->n_events = n;
    live->cores = vpmu_node_cores();
    live->frequency_hz = vpmu_node_frequency();
    VG_(memset)(live->raw, 0, sizeof live->raw);
    live->n_raw = VPMU_EV_COUNT < HPM_LIVE_RAW ? VPMU_EV_COUNT : HPM_LIVE_RAW;
    for (t = 1; t < VG_N_THREADS; t++)
        if (threads[t].used)
            for (i = 0; i < live->n_raw; i++)
                live->raw[i] += threads[t].c[i];
    for (struct vpmu_exited *x = exited; x; x = x->next)
        for (i = 0; i < live->n_raw; i++)
            live->raw[i] += x->c[i];
    live->threads = next_serial - 1;
    live->models_waiting = vpmu_node_models_waiting() ? 1 : 0;
    if (!live->machine[0]) {
        /* also after a truncation was repaired: the header comes back */
        const HChar *m = vpmu_node_machine_name();
        live->magic = HPM_LIVE_MAGIC;
        live->version = HPM_LIVE_VERSION;
        live->size = sizeof(struct hpm_live);
        live->pid = (UInt)VG_(getpid)();
        live->interval_ms = (ULong)clo_live_ms;
        VG_(strncpy)(live->machine, m, sizeof live->machine - 1);
        at = 0;
        if (VG_(args_the_exename))
            at += VG_(snprintf)(live->command, sizeof live->command, "%s", VG_(args_the_exename));
        for (i = 0; i < (UInt)VG_(sizeXA)(VG_(args_for_client)) && at < sizeof live->command;
             i++)
            at += VG_(snprintf)(live->command + at, sizeof live->command - at, " %s",
                                *(HChar **)VG_(indexXA)(VG_(args_for_client), i));
    }
    live->updates++;
    live->host_ms = VG_(read_millisecond_timer)();
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __atomic_store_n(&live->seq, live->seq + 1, __ATOMIC_RELAXED); /* even: done */
    live_last_ms = (UInt)live->host_ms;
}

/* Whoever may write the file (its owner) can truncate it under the
 * mapping; the next store into a lost page raises SIGBUS in the tool's own
 * code. Valgrind's fault catcher (the one memcheck's leak check uses) turns
 * that into a jump back here: the file gets its size back and the view is
 * written again whole; a second fault gives the view up, never the run. */
static VG_MINIMAL_JMP_BUF(live_fault_jmp);

static void live_fault(Int sig, Addr addr)
{
    if ((sig == VKI_SIGBUS || sig == VKI_SIGSEGV) && live && addr >= (Addr)live &&
        addr < (Addr)live + sizeof *live)
        VG_MINIMAL_LONGJMP(live_fault_jmp);
    /* any other fault: Valgrind's own handling goes on */
}

static void live_publish(UInt state, Int exit_status)
{
    vki_sigset_t mask;
    fault_catcher_t prev;
    volatile Int faults = 0;
    if (!live)
        return;
    VG_(sigprocmask)(VKI_SIG_SETMASK, NULL, &mask);
    prev = VG_(set_fault_catcher)(live_fault);
    for (;;) {
        if (VG_MINIMAL_SETJMP(live_fault_jmp) == 0) {
            live_write(state, exit_status);
            break;
        }
        /* the handler did not return: the signal is still blocked */
        VG_(sigprocmask)(VKI_SIG_SETMASK, &mask, NULL);
        if (faults++ > 0 || sr_isError(VG_(do_syscall)(__NR_ftruncate, (RegWord)live_fd, 0, 0,
                                                         0, 0, 0, 0, 0)) ||
            sr_isError(VG_(do_syscall)(__NR_ftruncate, (RegWord)live_fd,
                                       sizeof(struct hpm_live), 0, 0, 0, 0, 0, 0))) {
            live = NULL; /* the mapping stays, unused */
            break;
        }
    }
    VG_(set_fault_catcher)(prev);
}

/* The readers' word (want_models), read with pread: a truncated file
 * reads short instead of faulting. */
static Bool live_wants_models(void)
{
    UInt want = 0;
    SysRes sr;
    if (!live)
        return False;
    sr = VG_(do_syscall)(__NR_pread64, (RegWord)live_fd, (RegWord)&want, sizeof want,
                         offsetof(struct hpm_live, want_models), 0, 0, 0, 0);
    return !sr_isError(sr) && sr_Res(sr) == sizeof want && want != 0;
}

/* The process ends or replaces its image: a last publication, then the
 * name goes (readers that have it open keep the final state) and, with
 * the descriptor, the ownership lock. */
static void live_close(UInt state, Int exit_status)
{
    if (!live)
        return;
    live_publish(state, exit_status);
    if (state == HPM_LIVE_EXITED && live) {
        /* a child of a process under hpm leaves its final counts to the
         * parent's inheriting sets (PAPI_INHERIT): the view stays as
         * hpm-live.NS.PID.exited until the parent's view is gone */
        HChar parent[96], kept[112];
        struct vg_stat st;
        live_name(parent, sizeof parent, VG_(getppid)(), "");
        VG_(snprintf)(kept, sizeof kept, "%s" HPM_LIVE_EXITED_SUFFIX, live_path);
        if (!sr_isError(VG_(stat)(parent, &st)) && VG_(rename)(live_path, kept) == 0)
            live_path[0] = 0;
    }
    if (live_path[0])
        VG_(unlink)(live_path);
    if (live_fd >= 0)
        VG_(close)(live_fd);
    live_fd = -1;
    live = NULL; /* the mapping stays: nothing reads it here again */
}

/* ------------------------------------------------------------------------
 * The lease: the process tree ends with its hpm
 *
 * hpm's folder (the one --hpm-out names) holds an `owner` file that hpm
 * keeps locked for as long as it lives (tools/hpm/runner.c), and into
 * which it writes "ended" before it removes the folder at its normal end.
 * hpm's own child dies with it (PR_SET_PDEATHSIG); the processes that
 * child started keep the owner file open and check its lock every
 * LEASE_CHECK_MS of host time while they run. A process whose hpm was
 * killed (nobody holds the lock, and the file does not say "ended":
 * nobody is left to read its counts) ends itself the same way, so that a
 * killed hpm leaves nothing running, whether or not another hpm has
 * removed its folder since. Processes that outlive an hpm that ended
 * normally (a daemon, a child under --no-children or hpm run) run on, as
 * they would natively. A folder that was not locked when the tool
 * started (a hand-made one, an older hpm) gives no lease.
 * ---------------------------------------------------------------------- */

#define LEASE_CHECK_MS 100
static Int lease_fd = -1; /* the owner file; Valgrind's fd range, close-on-exec */
static UInt lease_last_ms;

/* Whether somebody holds the owner file's lock: 1 yes, 0 no, -1 unknown. */
static Int lease_held(void)
{
    struct vki_flock fl;
    SysRes sr;
    VG_(memset)(&fl, 0, sizeof fl);
    fl.l_type = LIVE_F_WRLCK;
    sr = VG_(do_syscall)(__NR_fcntl, (RegWord)lease_fd, LIVE_F_OFD_GETLK, (RegWord)&fl, 0, 0,
                         0, 0, 0);
    return sr_isError(sr) ? -1 : fl.l_type != 2 /* F_UNLCK */;
}

static void lease_init(void)
{
    HChar *out = VG_(expand_file_name)("--hpm-out", clo_out);
    HChar path[4200];
    SysRes sr;
    VG_(snprintf)(path, sizeof path, "%s/owner", VG_(dirname)(out));
    VG_(free)(out);
    lease_fd = -1; /* an exec'd image: the old descriptor closed on exec */
    sr = VG_(do_syscall)(__NR_open, (RegWord)path,
                         VKI_O_RDONLY | VKI_O_NONBLOCK | LIVE_O_NOFOLLOW | LIVE_O_CLOEXEC, 0, 0, 0,
                         0, 0, 0);
    if (sr_isError(sr))
        return;
    lease_fd = VG_(safe_fd)((Int)sr_Res(sr));
    if (lease_fd >= 0 && lease_held() != 1) {
        VG_(close)(lease_fd);
        lease_fd = -1;
    }
    lease_last_ms = VG_(read_millisecond_timer)();
}

static void lease_check(void)
{
    HChar said[5];
    SysRes sr;
    lease_last_ms = VG_(read_millisecond_timer)();
    if (lease_held() != 0)
        return;
    sr = VG_(do_syscall)(__NR_pread64, (RegWord)lease_fd, (RegWord)said, sizeof said, 0, 0, 0, 0,
                         0);
    VG_(close)(lease_fd);
    lease_fd = -1;
    if (!sr_isError(sr) && sr_Res(sr) == sizeof said && VG_(memcmp)(said, "ended", 5) == 0)
        return; /* hpm ended normally: run on, without a lease */
    /* hpm was killed: end as its direct child did (SIGKILL), view removed */
    live_close(HPM_LIVE_EXITED, -VKI_SIGKILL);
    VG_(kill)(VG_(getpid)(), VKI_SIGKILL);
}

/* ------------------------------------------------------------------------
 * Threads and folding
 * ---------------------------------------------------------------------- */

static struct vpmu_thread *thread_get(ThreadId tid)
{
    struct vpmu_thread *t;
    tl_assert(tid > 0 && tid < VG_N_THREADS);
    t = &threads[tid];
    if (!t->used) {
        struct region_frame *stack = t->stack; /* kept for the slot's next thread */
        VG_(memset)(t, 0, sizeof *t);
        t->stack = stack;
        t->used = True;
        t->serial = next_serial++;
        t->core = vpmu_node_core_of(t->serial);
    }
    return t;
}

UInt vpmu_thread_serial(ThreadId tid)
{
    return thread_get(tid)->serial;
}

/* The live block goes to the running thread's core always (the UPC decides
 * whether it counts) and to the thread's raw counters while counting. */
void vpmu_fold(void)
{
    Int e;
    if (live_owner != VG_INVALID_THREADID) {
        struct vpmu_thread *t = thread_get(live_owner);
        ULong ev[VPMU_EV_COUNT];
        for (e = 0; e < VPMU_EV_COUNT; e++)
            ev[e] = (vpmu_live[VPMU_LIVE_WORD(e)] >> VPMU_LIVE_SHIFT(e)) & 0xffffffffULL;
        ev[VPMU_EV_BR_COND_NOT_TAKEN] = ev[VPMU_EV_BR_COND] - ev[VPMU_EV_BR_COND_TAKEN];
        if (vpmu_prof_on)
            vpmu_prof_fold(); /* before the live block empties */
        vpmu_node_add_core_events(t->core, ev);
        if (vpmu_running)
            for (e = 0; e < VPMU_EV_COUNT; e++)
                t->c[e] += ev[e];
    }
    VG_(memset)(vpmu_live, 0, sizeof vpmu_live);
    if (vpmu_sample_insn_on && live_owner != VG_INVALID_THREADID)
        vpmu_sample_fold(live_owner);
}

/* Bring the UPC up to date and credit what the running thread's core
 * counted since the last accounting to that thread. */
static void account(void)
{
    struct vpmu_thread *t;
    vpmu_fold();
    vpmu_node_flush();
    if (live_owner == VG_INVALID_THREADID)
        return;
    t = thread_get(live_owner);
    vpmu_node_core_credit(t->core, core_seen[t->core], t->u);
}

static void run_state_apply(void);

/* libcoregrind, not in pub_tool: discarding is allowed while a client
 * request runs; between timeslices no translation is in use either */
extern Bool VG_(ok_to_discard_translations);

/* Every translation goes, from a client request: what is instrumented
 * changed. */
static void retranslate_all(const HChar *why)
{
    Bool ok = VG_(ok_to_discard_translations);
    VG_(ok_to_discard_translations) = True;
    VG_(discard_translations_safely)((Addr)0x1000, ~(SizeT)0xfff, why);
    VG_(ok_to_discard_translations) = ok;
}

/* Start the models that wait for a request (--hpm-model=on-demand): 1 when
 * they were waiting. What ran so far is counted without them. */
static Int models_start(void)
{
    account();
    if (!vpmu_node_models_on())
        return 0;
    retranslate_all("hpm models"); /* hooks are chosen at translation */
    return 1;
}

void vpmu_ev_counted_widen(UInt events)
{
    if ((events & ~vpmu_ev_counted) == 0)
        return;
    vpmu_ev_counted |= events;
    /* the live block's lanes of the new events hold nothing yet: translations
     * made from now on add to them */
    retranslate_all("hpm events");
}

static void on_start_client_code(ThreadId tid, ULong blocks_done)
{
    {
        /* vpmu_state.h: where the translations find the live block */
        Addr base = (Addr)vpmu_live;
        VG_(set_shadow_regs_area)(tid, 1, VPMU_LIVE_BASE_GUEST_OFFSET, sizeof base,
                                  (const UChar *)&base);
    }
    /* the host clock is a system call under Valgrind: asked only when some
     * work ran since it was last asked (a program making client requests
     * in a loop comes here after each one) */
    static ULong blocks_at_check;
    static UInt calls_since_check;
    if (tid != live_owner) {
        account();
        live_owner = tid;
        vpmu_node_set_core(thread_get(tid)->core);
        run_state_apply(); /* the thread may be in a frozen overflow handler */
    } else {
        vpmu_fold(); /* every timeslice: the live block's 32-bit lanes stay small */
    }
    if ((!live && lease_fd < 0) ||
        (blocks_done - blocks_at_check < 4096 && ++calls_since_check < 64))
        return;
    blocks_at_check = blocks_done;
    calls_since_check = 0;
    if (lease_fd >= 0 && VG_(read_millisecond_timer)() - lease_last_ms >= LEASE_CHECK_MS)
        lease_check();
    if (!live)
        return;
    if (vpmu_node_models_waiting() && live_wants_models()) {
        /* a reader attached to this process needs modeled kinds */
        (void)models_start();
        live_publish(HPM_LIVE_RUNNING, 0);
    }
    if (VG_(read_millisecond_timer)() - live_last_ms >= (UInt)clo_live_ms) {
        account();
        live_publish(HPM_LIVE_RUNNING, 0);
    }
}

static void on_thread_create(ThreadId parent, ThreadId child)
{
    (void)parent;
    if (child > 0 && child < VG_N_THREADS) {
        threads[child].used = False;
        (void)thread_get(child);
    }
}

static void on_thread_exit(ThreadId tid)
{
    struct vpmu_thread *t;
    struct vpmu_exited *x;
    if (tid == live_owner) {
        account();
        live_owner = VG_INVALID_THREADID;
    }
    if (vpmu_prof_on)
        vpmu_prof_thread_end(tid);
    vpmu_sample_thread_end(tid);
    vpmu_gate_thread_end(tid);
    if (tid == 0 || tid >= VG_N_THREADS || !threads[tid].used)
        return;
    t = &threads[tid];
    x = VG_(malloc)("hpm.exited", sizeof *x);
    x->serial = t->serial;
    x->core = t->core;
    VG_(memcpy)(x->c, t->c, sizeof x->c);
    VG_(memcpy)(x->u, t->u, sizeof x->u);
    x->next = exited;
    exited = x;
    if (t->ovf_upc_mem)
        VG_(free)(t->ovf_upc_mem);
    t->ovf_upc = NULL;
    t->ovf_upc_mem = NULL;
    t->used = False;
}

static UInt live_threads(void)
{
    UInt i, n = 0;
    for (i = 1; i < VG_N_THREADS; i++)
        n += threads[i].used ? 1 : 0;
    return n;
}

static void write_output(const HChar *fname, Bool at_exec);

/* execve replaces the process image and this tool with it; under
 * --trace-children=yes a new instance counts the new program from zero and
 * writes the pid's output file at its end. What was counted before the exec
 * is written first to a segment file beside it, FILE.exec1, FILE.exec2, ...
 * (the first name not yet taken, so a chain of execs keeps its order), and
 * hpm count adds the segments to the final file. An execve that fails
 * returns to the program, which goes on counting: its segment is removed. */
static HChar *exec_segment;

/* libcoregrind's --trace-children, not in pub_tool: without it the new
 * program runs natively and nothing would collect a segment */
extern Bool VG_(clo_trace_children);

static HChar *exec_segment_name(void)
{
    HChar *base = VG_(expand_file_name)("--hpm-out", clo_out);
    SizeT len = VG_(strlen)(base) + 24;
    HChar *name = VG_(malloc)("hpm.execseg", len);
    UInt k;
    for (k = 1; k < 100000; k++) {
        SysRes sr;
        VG_(snprintf)(name, len, "%s" VPMU_EXEC_SUFFIX "%u", base, k);
        sr = VG_(open)(name, VKI_O_CREAT | VKI_O_EXCL | VKI_O_WRONLY, VKI_S_IRUSR | VKI_S_IWUSR);
        if (!sr_isError(sr)) {
            VG_(close)((Int)sr_Res(sr));
            VG_(free)(base);
            return name;
        }
        if (sr_Err(sr) != VKI_EEXIST)
            break;
    }
    VG_(free)(base);
    VG_(free)(name);
    return NULL;
}

/* kill, tkill or tgkill of this process with a stop signal */
static Bool stops_itself(UInt sysno, const UWord *args, UInt nArgs)
{
    Int pid = VG_(getpid)(), sig;
    if (sysno == __NR_kill && nArgs >= 2 && ((Int)args[0] == pid || (Int)args[0] == 0))
        sig = (Int)args[1];
    else if (sysno == __NR_tgkill && nArgs >= 3 && (Int)args[0] == pid)
        sig = (Int)args[2];
    else if (sysno == __NR_tkill && nArgs >= 2)
        sig = (Int)args[1]; /* a thread of this process (tids are process-wide) */
    else
        return False;
    return sig == VKI_SIGSTOP || sig == VKI_SIGTSTP || sig == VKI_SIGTTIN || sig == VKI_SIGTTOU;
}

/* Valgrind grows a client stack when the program faults below it: a
 * SIGSEGV its own handler catches. A traced process stops on every signal
 * it receives, so a tracer that continues only the stops it expects (PAPI's
 * attach_validate: a child that called PTRACE_TRACEME runs perror after
 * its loop) waits for ever on a stop it does not know. When a thread asks
 * to be traced, its stack is grown ahead by up to STACK_AHEAD bytes (less
 * where the stack's limit is nearer), so such a program does not see these
 * stops unless it uses more stack than that. */
#define STACK_AHEAD (1024 * 1024)

static void grow_stack_ahead(ThreadId tid)
{
    Addr sp = VG_(get_SP)(tid), want;
    const NSegment *stack = VG_(am_find_nsegment)(sp), *below;
    /* only a grow-down stack: mapped, with the reservation it grows into
     * right below (the main thread's; other threads' stacks are fixed) */
    if (!stack || stack->kind != SkAnonC || stack->start < VKI_PAGE_SIZE)
        return;
    below = VG_(am_find_nsegment)(stack->start - 1);
    if (!below || below->kind != SkResvn)
        return;
    want = sp > STACK_AHEAD ? VG_PGROUNDDN(sp - STACK_AHEAD) : 0;
    /* stay a page inside the reservation: Valgrind keeps it as the guard */
    if (want < below->start + VKI_PAGE_SIZE)
        want = below->start + VKI_PAGE_SIZE;
    if (want < stack->start)
        (void)VG_(extend_stack)(tid, want);
}

/* What the I/O and kernel units counted in one wrapper of tid's system
 * call goes to the call's instruction in a profile (no other thread runs
 * inside a wrapper; one may between the two, while the call blocks); a
 * signal delivered to a handler, to the instruction it arrived at. */
static void io_counted_before(ULong *c)
{
    if (vpmu_prof_on)
        vpmu_io_exact_counts(c);
}

static void io_counted_after(ThreadId tid, Addr site, const ULong *before)
{
    ULong after[VPMU_IO_KINDS];
    UInt k;
    if (!vpmu_prof_on)
        return;
    vpmu_io_exact_counts(after);
    for (k = 0; k < VPMU_IO_KINDS; k++)
        after[k] -= before[k];
    vpmu_prof_io(tid, site, after);
}

static void pre_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nArgs)
{
    ULong io_before[VPMU_IO_KINDS];
    /* the guest's IP is past the 2-byte syscall instruction (amd64 has no
     * IP_AT_SYSCALL; Valgrind's own restart takes 2 off too); kept for the
     * post wrapper, after which a signal frame may have moved it */
    if (vpmu_prof_on)
        thread_get(tid)->syscall_site = VG_(get_IP)(tid) - 2;
    io_counted_before(io_before);
    vpmu_io_pre_syscall(tid, sysno, args, nArgs);
    io_counted_after(tid, thread_get(tid)->syscall_site, io_before);
    vpmu_procs_pre_syscall(tid, sysno, args, nArgs); /* before an execve's segment */
    if (nArgs < 1)
        return;
    if (sysno == __NR_ptrace && args[0] == 0 /* PTRACE_TRACEME */)
        grow_stack_ahead(tid);
    if (sysno == __NR_exit_group || (sysno == __NR_exit && live_threads() <= 1)) {
        exit_seen = True;
        exit_code = (Long)(Int)args[0];
    }
    if (live && stops_itself(sysno, args, nArgs)) {
        /* stopped, it cannot publish: a reader attached to it (PAPI_attach
         * in a tracing parent) reads these counts while it waits */
        account();
        live_publish(HPM_LIVE_RUNNING, 0);
    }
    if ((sysno == __NR_execve || sysno == __NR_execveat) && VG_(clo_trace_children)) {
        vpmu_io_host_sync();
        account();
        exec_segment = exec_segment_name();
        if (exec_segment)
            write_output(exec_segment, True);
        /* the name goes now: the new image's tool makes a new one (a
         * truncated file would fault readers that have this one mapped) */
        live_close(HPM_LIVE_EXEC, 0);
    }
}

/* processes this one started (fork, vfork, clone without CLONE_THREAD):
 * hpm count says how many it left out under --no-children */
static ULong forks;

/* A forked child publishes its view first thing (on_fork_child); the parent
 * goes on only once it has, for at most a second of host time. Otherwise a
 * parent that stops its child at once (PTRACE_ATTACH, as PAPI's attach tests
 * do, or SIGSTOP) can stop it before the view exists, and a reader
 * attaching to it finds nothing for as long as it stays stopped. */
static void wait_child_view(Int pid)
{
    HChar path[96];
    UInt waited;
    live_name(path, sizeof path, pid, "");
    for (waited = 0; waited < 1000; waited++) {
        struct hpm_live head;
        const Int want = (Int)(offsetof(struct hpm_live, updates) + sizeof head.updates);
        /* non-blocking: a FIFO planted at the name must not stop the parent */
        SysRes sr = VG_(open)(path, VKI_O_RDONLY | VKI_O_NONBLOCK | LIVE_O_NOFOLLOW, 0);
        if (!sr_isError(sr)) {
            Int fd = (Int)sr_Res(sr);
            Int n = VG_(read)(fd, &head, want);
            VG_(close)(fd);
            if (n == want && head.magic == HPM_LIVE_MAGIC && head.updates > 0)
                return; /* published */
        }
        {
            struct vki_timespec ts = {0, 1000 * 1000};
            (void)VG_(do_syscall)(__NR_nanosleep, (RegWord)&ts, 0, 0, 0, 0, 0, 0, 0);
        }
    }
}

static void post_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nArgs, SysRes res)
{
    ULong io_before[VPMU_IO_KINDS];
    io_counted_before(io_before);
    vpmu_io_post_syscall(tid, sysno, args, nArgs, res);
    io_counted_after(tid, thread_get(tid)->syscall_site, io_before);
    vpmu_procs_post_syscall(tid, sysno, args, nArgs, res);
    if (!sr_isError(res) && sr_Res(res) > 0 &&
        (sysno == __NR_fork || sysno == __NR_vfork ||
         (sysno == __NR_clone && nArgs >= 1 && !(args[0] & VKI_CLONE_THREAD)))) {
        forks++;
        if (live && sysno != __NR_vfork && !(sysno == __NR_clone && (args[0] & VKI_CLONE_VFORK)))
            wait_child_view((Int)sr_Res(res));
    }
    /* reached only when the exec failed: the counts stay in this process */
    if ((sysno == __NR_execve || sysno == __NR_execveat) && !live) {
        live_open();
        live_publish(HPM_LIVE_RUNNING, 0);
    }
    if ((sysno == __NR_execve || sysno == __NR_execveat) && exec_segment) {
        VG_(unlink)(exec_segment);
        VG_(free)(exec_segment);
        exec_segment = NULL;
    }
}

static void reset_all(void)
{
    UInt i, d;
    struct vpmu_region_rec *r;
    account();
    vpmu_node_reset();
    vpmu_prof_reset();
    VG_(memset)(core_seen, 0, vpmu_node_cores() * sizeof *core_seen);
    for (i = 1; i < VG_N_THREADS; i++) {
        if (!threads[i].used)
            continue;
        VG_(memset)(threads[i].c, 0, sizeof threads[i].c);
        VG_(memset)(threads[i].u, 0, sizeof threads[i].u);
        for (d = 0; d < threads[i].depth; d++)
            VG_(memset)(threads[i].stack[d].snap, 0, sizeof threads[i].stack[d].snap);
    }
    while (exited) {
        struct vpmu_exited *x = exited;
        exited = x->next;
        VG_(free)(x);
    }
    for (r = region_recs; r; r = r->next) {
        r->entries = 0;
        VG_(memset)(r->u, 0, sizeof r->u);
    }
}

/* A forked child starts with zero counts and its own output file (%p). */
static void on_fork_child(ThreadId tid)
{
    UInt i;
    struct vpmu_region_rec *r;
    reset_all();
    vpmu_sample_fork_child();
    vpmu_procs_fork_child();
    for (i = 1; i < VG_N_THREADS; i++)
        if ((ThreadId)i != tid)
            threads[i].used = False;
    if (tid > 0 && tid < VG_N_THREADS) {
        struct vpmu_thread *t = &threads[tid];
        t->n_ovf = 0; /* like perf events, not inherited by fork */
        /* a child forked inside a handler counts from its start */
        t->ovf_sent = t->frozen = t->sigdepth = 0;
        t->frame_froze = 0;
        t->upcall_entry = 0;
        t->upcall_frozen = False;
        t->lwpid = 0;
        ovf_pid = 0;
        run_state_apply();
    }
    while (region_recs) {
        r = region_recs;
        region_recs = r->next;
        VG_(free)(r);
    }
    exit_seen = False;
    forks = 0;
    /* the parent's mapping is shared with the child after fork: never
     * write it again here; the child gets a view of its own, and closes
     * its copy of the parent's lock descriptor (the lock is the parent's
     * open file description: it stays with the parent) */
    live = NULL;
    if (live_fd >= 0)
        VG_(close)(live_fd);
    live_fd = -1;
    live_open();
    if (live) {
        account();
        live_publish(HPM_LIVE_RUNNING, 0);
    }
}

/* ------------------------------------------------------------------------
 * Overflow interrupts
 *
 * Once any thread arms one, every superblock starts with a call of
 * vpmu_ovf_check (translations made before are discarded so that they get
 * it too; programs that never arm pay nothing). The check compares the
 * running thread's armed counts with their next threshold: for kinds that
 * are exact core events the count is the thread's raw counter plus the
 * live block's lane (exact at the superblock boundary); kinds a model
 * produces (cycles, misses) need the models flushed, done every
 * OVF_MODEL_STRIDE-th superblock.
 *
 * Delivery as an upcall, where the thread registered an entry
 * (HPM_VPMU_OVERFLOW_UPCALL): the check pushes the interrupted PC and the
 * threshold's address below the red zone, moves the stack pointer, and the
 * superblock jumps to the entry (a chained exit: no scheduler, no system
 * call); counting is frozen until the stack pointer is back (upcall_enter).
 *
 * Delivery as a signal otherwise. When a threshold is passed the tool queues the signal to the
 * thread (rt_tgsigqueueinfo, si_code SI_QUEUE, si_value the address of the
 * superblock the count passed in) and the superblock exits to the scheduler
 * (Ijk_Yield) before it runs. Left alone, the scheduler would poll for the
 * signal only at the end of its timeslice, hundreds of superblocks later;
 * the tool's stop_client_code hook, which runs right after that exit and
 * before the scheduler picks the next code to run, delivers it at once
 * (VG_(poll_signals), as the scheduler itself does). The handler thus runs
 * at the instruction boundary where the superblock after the event starts:
 * the skid is what remained of one superblock.
 *
 * The thresholds are the UPC's (seed 000): each thread that arms one gets
 * an overflow unit of its own, a UPC with HPM_VPMU_OVERFLOW_MAX counters
 * (the thread's virtualised counter context), counter i counting ovf[i]'s
 * kind. Arming programs the counter's threshold (hpm_upc_program_threshold:
 * the 4096*n + m preload, the compare value, pre-arming); the state machine
 * arms on the high-order bits and the interrupt is raised at the low-order
 * carry-out. The per-superblock compare is only a filter: once it sees a
 * threshold passed, the thread's new events are fed to its unit, one per
 * cycle, and the cycle of the unit's interrupt says which event passed it.
 *
 * Fast overflow (seed 002). From the delivery of a signal the tool sent to
 * that handler's sigreturn the thread's counting is frozen (the UPC's run
 * bit is off while it runs): the handler's instructions are counted
 * nowhere, so they cannot re-trigger the overflow and any threshold >= 1
 * works. A handler that leaves by longjmp never returns through sigreturn:
 * the check sees the stack pointer back above the interrupted one and
 * thaws the thread.
 * ---------------------------------------------------------------------- */

#define OVF_MODEL_STRIDE 16

Bool vpmu_ovf_instrumented;

/* the thread whose superblock just left with an overflow signal queued */
static ThreadId ovf_deliver_tid = VG_INVALID_THREADID;

/* libcoregrind, not in pub_tool: the scheduler's own signal poll */
extern void VG_(poll_signals)(ThreadId tid);

/* The exact core event the check reads for kind, -1 for a kind a model
 * makes (L1I_ACCESSES, though one per instruction, is the fetch model's),
 * fixed per kind: found once, at arming. */
static Int ovf_event(UInt kind)
{
    return kind == HPM_K_L1I_ACCESSES ? -1 : vpmu_node_kind_event(kind);
}

static ULong ovf_count(struct vpmu_thread *t, UInt kind, Int e)
{
    ULong lane_t, lane_c;
    if (e < 0) {
        account();
        return t->u[kind];
    }
    if (e == VPMU_EV_BR_COND_NOT_TAKEN) {
        lane_c = (vpmu_live[VPMU_LIVE_WORD(VPMU_EV_BR_COND)] >>
                  VPMU_LIVE_SHIFT(VPMU_EV_BR_COND)) & 0xffffffffULL;
        lane_t = (vpmu_live[VPMU_LIVE_WORD(VPMU_EV_BR_COND_TAKEN)] >>
                  VPMU_LIVE_SHIFT(VPMU_EV_BR_COND_TAKEN)) & 0xffffffffULL;
        return t->c[e] + lane_c - lane_t;
    }
    return t->c[e] + ((vpmu_live[VPMU_LIVE_WORD(e)] >> VPMU_LIVE_SHIFT(e)) & 0xffffffffULL);
}



/* Queue signo to the running thread t, carrying addr (si_value). False when
 * the kernel refused (the user's queue of pending real-time signals is
 * full: RLIMIT_SIGPENDING): the check tries again at the next superblock,
 * and the library's stop makes the calls still owed. */
static Bool ovf_send(struct vpmu_thread *t, Int signo, Addr addr)
{
    vki_siginfo_t si;
    if (!ovf_pid) {
        ovf_pid = VG_(getpid)();
        ovf_euid = (Int)VG_(geteuid)();
    }
    if (!t->lwpid)
        t->lwpid = VG_(gettid)();
    VG_(memset)(&si, 0, sizeof si);
    si.si_signo = signo;
    si.si_code = -1; /* SI_QUEUE, which vki does not name */
    si._sifields._rt._pid = ovf_pid;
    si._sifields._rt._uid = (vki_uid_t)ovf_euid;
    si._sifields._rt._sigval.sival_ptr = (void *)addr;
    return !sr_isError(VG_(do_syscall)(__NR_rt_tgsigqueueinfo, (RegWord)ovf_pid,
                                       (RegWord)t->lwpid, (RegWord)signo, (RegWord)&si, 0, 0,
                                       0, 0));
}

static Long client_get(void *dst, Addr a, UWord n);
static Long client_put(Addr a, const void *src, UWord n);

/* The guest registers an upcall moves (amd64's; elsewhere the request is
 * refused, so no thread has an entry). */
#if defined(VGA_amd64)
#define UPCALL_RED_ZONE 128 /* the ABI's: the interrupted code may use it */
#define UPCALL_OFF_SP OFFSET_amd64_RSP
#define UPCALL_OFF_IP OFFSET_amd64_RIP
#endif

Addr vpmu_upcall_entry;

/* Enter the upcall on the running thread t, from the check at the start of
 * the superblock at pc (not one of its instructions ran): push its two
 * words under the red zone and move the stack pointer; the superblock then
 * jumps to the entry. False where the stack cannot take them. */
static Bool upcall_enter(ThreadId tid, struct vpmu_thread *t, Addr pc, Addr where)
{
#if defined(UPCALL_OFF_SP)
    Addr sp = VG_(get_SP)(tid);
    Addr frame[2];
    Addr nsp = sp - UPCALL_RED_ZONE - sizeof frame;
    frame[0] = where;
    frame[1] = pc;
    /* where the stack is not mapped yet: the signal, whose frame the core
     * knows how to grow the stack for */
    if (client_put(nsp, frame, sizeof frame) != HPM_VPMU_OK)
        return False;
    VG_(set_shadow_regs_area)(tid, 0, UPCALL_OFF_SP, sizeof nsp, (const UChar *)&nsp);
    t->upcall_sp = sp;
    t->upcall_frozen = True;
    run_state_apply();
    return True;
#else
    (void)tid;
    (void)t;
    (void)pc;
    (void)where;
    return False;
#endif
}

/* Raise the interrupt on the running thread t: as an upcall where it asked
 * for them, else as signal signo. VPMU_OVF_NONE when it must wait: the
 * thread's mask is set, or the kernel refused the signal (the user's queue
 * of pending real-time signals is full: RLIMIT_SIGPENDING). The check
 * tries again at the next superblock, and the library's stop makes the
 * calls still owed. */
static UWord ovf_raise(struct vpmu_thread *t, ThreadId tid, Int signo,
                       const struct vpmu_sb_desc *sb, Addr where)
{
    Addr pc = sb->start;
    /* only a translation that jumps to the thread's entry can take it */
    if (t->upcall_entry && t->upcall_entry == sb->upcall) {
        Int masked = 0;
        if (t->upcall_mask && client_get(&masked, t->upcall_mask, sizeof masked) != HPM_VPMU_OK)
            masked = 0; /* the thread's mask word is gone: not masked */
        if (masked)
            return VPMU_OVF_NONE;
        if (upcall_enter(tid, t, pc, where))
            return VPMU_OVF_UPCALL;
    }
    if (!ovf_send(t, signo, where))
        return VPMU_OVF_NONE;
    t->ovf_sent++;
    ovf_deliver_tid = tid;
    return VPMU_OVF_SIGNAL;
}

/* ---- the thread's overflow unit ---- */

static void ovf_upc_notify(void *ctx, const struct hpm_upc_notify *n)
{
    struct vpmu_thread *t = ctx;
    if (n->kind == HPM_UPC_NOTIFY_IRQ && t->ovf_irq_at < 0)
        t->ovf_irq_at = (Long)(n->cycle - t->ovf_batch_cycle);
}

static struct hpm_upc *ovf_upc_get(struct vpmu_thread *t)
{
    if (!t->ovf_upc) {
        struct hpm_upc_params p;
        SizeT sz;
        hpm_upc_params_default(&p);
        p.n_counters = HPM_VPMU_OVERFLOW_MAX;
        p.n_inputs = HPM_VPMU_OVERFLOW_MAX * HPM_UPC_INPUTS_PER_COUNTER;
        p.group_size = HPM_VPMU_OVERFLOW_MAX;
        sz = hpm_upc_storage_size(&p);
        t->ovf_upc_mem = VG_(malloc)("hpm.ovf.upc", sz);
        tl_assert(hpm_upc_init(&t->ovf_upc, &p, t->ovf_upc_mem, sz) == HPM_UPC_OK);
        hpm_upc_set_threshold_mode(t->ovf_upc, 1);
        hpm_upc_set_notify(t->ovf_upc, ovf_upc_notify, t);
        hpm_upc_start(t->ovf_upc);
    }
    return t->ovf_upc;
}

/* Counter i counts ovf[i]'s kind, with its interrupt after the events
 * that remain to its next threshold (at least 1). */
static void ovf_upc_program(struct vpmu_thread *t, UInt i)
{
    struct hpm_upc *u = ovf_upc_get(t);
    struct vpmu_ovf *o = &t->ovf[i];
    uint32_t ev;
    uint64_t preload;
    tl_assert(hpm_upc_input_event(u, i, 0, &ev) == HPM_UPC_OK);
    o->input = ev;
    tl_assert(hpm_upc_select_event(u, i, ev, HPM_UPC_LEVEL_HIGH, 1) == HPM_UPC_OK);
    tl_assert(hpm_upc_program_threshold(u, i, o->next > o->fed ? o->next - o->fed : 1,
                                        &preload) == HPM_UPC_OK);
}

/* Feed counter i the events up to count v, one per cycle; returns the count
 * at which its interrupt came, 0 if none. */
static ULong ovf_upc_feed(struct vpmu_thread *t, UInt i, ULong v)
{
    struct hpm_upc *u = ovf_upc_get(t);
    struct vpmu_ovf *o = &t->ovf[i];
    uint32_t counts[HPM_VPMU_OVERFLOW_MAX * HPM_UPC_INPUTS_PER_COUNTER];
    ULong at = 0;
    VG_(memset)(counts, 0, sizeof counts);
    while (o->fed < v) {
        ULong d = v - o->fed;
        uint32_t n = d > 0x40000000ULL ? 0x40000000u : (uint32_t)d;
        counts[o->input] = n;
        t->ovf_irq_at = -1;
        t->ovf_batch_cycle = hpm_upc_cycle(u);
        tl_assert(hpm_upc_advance(u, n, counts) == HPM_UPC_OK);
        if (t->ovf_irq_at >= 0 && !at)
            at = o->fed + (ULong)t->ovf_irq_at + 1;
        o->fed += n;
    }
    return at;
}

static void thaw_all(struct vpmu_thread *t)
{
    t->frozen = 0;
    t->sigdepth = 0;
    t->frame_froze = 0;
    run_state_apply();
}

/* Where the count of a kind reached `at`. INSTRUCTIONS pass one per
 * instruction, so the superblock that ran since the last check says which
 * of its instructions it was; the other exact kinds give that superblock's
 * start; a model's kinds the superblock about to run (the interrupted
 * instruction). */
static Addr ovf_where(const struct vpmu_thread *t, const struct vpmu_ovf *o, ULong at,
                      Addr fallback)
{
    const struct vpmu_sb_desc *sb = t->last_sb;
    if (!sb || at <= o->seen || o->ev < 0)
        return fallback; /* a model's kind, checked every few superblocks */
    if (o->kind == HPM_K_INSTRUCTIONS)
        return at - o->seen <= sb->n ? sb->insn[at - o->seen - 1] : fallback;
    return sb->start;
}

/* Called at every superblock entry once overflow is in use, with the
 * superblock and the guest's stack pointer; returns VPMU_OVF_SIGNAL when it
 * queued a signal (the superblock then exits to the scheduler, and
 * stop_client_code delivers it), VPMU_OVF_UPCALL when it entered an upcall
 * (the superblock jumps to the entry). */
UWord vpmu_ovf_check(const struct vpmu_sb_desc *sb, Addr sp)
{
    ThreadId tid = VG_(get_running_tid)();
    struct vpmu_thread *t;
    Bool model_turn;
    UWord fired = 0;
    UInt i;
    if (tid == VG_INVALID_THREADID || tid >= VG_N_THREADS || tid != live_owner)
        return 0;
    t = &threads[tid];
    if (t->used && t->upcall_frozen && sp >= t->upcall_sp) {
        /* the entry returned (its ret leaves the stack pointer where it
         * was interrupted; inside, it is below the red zone), or the
         * handler left by longjmp: this superblock counts */
        t->upcall_frozen = False;
        run_state_apply();
    }
    if (t->used && t->frozen && !t->frozen_alt && sp >= t->frozen_sp) {
        /* back above the interrupted code's stack without a sigreturn:
         * the handler left by longjmp */
        thaw_all(t);
    }
    if (!vpmu_running || !t->used || t->n_ovf == 0) {
        if (t->used)
            t->last_sb = NULL; /* what runs now is not counted */
        return 0;
    }
    model_turn = ++t->ovf_skip >= OVF_MODEL_STRIDE;
    if (model_turn)
        t->ovf_skip = 0;
    for (i = 0; i < t->n_ovf; i++) {
        struct vpmu_ovf *o = &t->ovf[i];
        ULong v;
        if (o->ev < 0 && !model_turn)
            continue;
        v = ovf_count(t, o->kind, o->ev);
        if (v < o->next) {
            o->seen = v;
            continue;
        }
        if (o->next <= o->fed) {
            /* passed before arming (a base read a while before): at once */
            (void)ovf_upc_feed(t, i, v);
        } else {
            /* the unit decides: its interrupt must come at the threshold */
            ULong at = ovf_upc_feed(t, i, v);
            if (at != o->next) {
                /* a fault of the unit's model: said on stderr (even with
                 * -q), once; the arithmetic's threshold is kept */
                static Bool told;
                if (!told)
                    VG_(printf)("hpm: the overflow unit interrupted at %llu, the threshold is "
                                "%llu\n",
                                at, o->next);
                told = True;
            }
        }
        if (!fired) {
            fired = ovf_raise(t, tid, o->signo, sb, ovf_where(t, o, o->next, sb->start));
            if (!fired) {
                o->seen = v;
                continue; /* not raised: this threshold is still to come */
            }
            t->n_where = 0;
        }
        {
            /* where each threshold passed, for the handler's calls */
            ULong at;
            for (at = o->next; at <= v && t->n_where < HPM_VPMU_WHERE_MAX; at += o->threshold)
                t->where[t->n_where++] = ovf_where(t, o, at, sb->start);
        }
        /* thresholds passed within one check give one signal (the
         * library's handler is owed one call per threshold, found from the
         * counts), as a hardware counter that wrapped twice between
         * interrupts would */
        o->next += o->threshold * ((v - o->next) / o->threshold + 1);
        o->seen = v;
        ovf_upc_program(t, i); /* the next threshold, from v */
    }
    t->last_sb = fired ? NULL : sb;
    return fired;
}

/* Right after the superblock left with the signal queued: deliver it now,
 * before the scheduler runs any more of the thread. */
static void on_stop_client_code(ThreadId tid, ULong blocks_done)
{
    (void)blocks_done;
    if (tid != ovf_deliver_tid)
        return;
    ovf_deliver_tid = VG_INVALID_THREADID;
    VG_(poll_signals)(tid);
}

/* A file mapping whose debug information Valgrind read (a handle): the
 * profile's data objects may learn where its .bss ends. Any change of the
 * client's mappings may change which mapping holds an address. */
static void on_mmap(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di_handle)
{
    (void)a, (void)len, (void)rr, (void)ww, (void)xx;
    if (!vpmu_prof_on)
        return;
    if (di_handle > 0)
        vpmu_prof_debuginfo_read();
    vpmu_prof_memory_changed();
    vpmu_prof_unmapped(a, len); /* a mapping over code (MAP_FIXED) ends its object */
    vpmu_sample_mmap(a, len, xx);
}

static void on_space_changed(Addr a, SizeT len)
{
    (void)a, (void)len;
    if (vpmu_prof_on)
        vpmu_prof_memory_changed();
}

/* code unmapped is an object's no more (a dlclose'd library) */
static void on_munmap(Addr a, SizeT len)
{
    on_space_changed(a, len);
    if (vpmu_prof_on)
        vpmu_prof_unmapped(a, len);
}

static void on_brk(Addr a, SizeT len, ThreadId tid)
{
    (void)tid;
    on_space_changed(a, len);
}

static void on_mremap(Addr from, Addr to, SizeT len)
{
    (void)from;
    on_space_changed(to, len);
}

static void on_mprotect(Addr a, SizeT len, Bool rr, Bool ww, Bool xx)
{
    (void)rr, (void)ww, (void)xx;
    on_space_changed(a, len); /* a mapping split in two: still its object's */
}

static Bool ovf_signo(const struct vpmu_thread *t, Int signo)
{
    UInt i;
    for (i = 0; i < t->n_ovf; i++)
        if (t->ovf[i].signo == signo)
            return True;
    return False;
}

static void on_pre_deliver_signal(ThreadId tid, Int signo, Bool alt_stack)
{
    struct vpmu_thread *t;
    Bool ours = False;
    UInt d;
    ULong io_before[VPMU_IO_KINDS];
    io_counted_before(io_before);
    vpmu_io_signal(tid, signo);
    if (tid > 0 && tid < VG_N_THREADS)
        io_counted_after(tid, VG_(get_IP)(tid), io_before);
    if (tid == 0 || tid >= VG_N_THREADS || !threads[tid].used)
        return;
    t = &threads[tid];
    if (t->ovf_sent > 0 && ovf_signo(t, signo)) {
        t->ovf_sent--;
        ours = True;
    }
    d = t->sigdepth++;
    if (d < 64) {
        if (ours)
            t->frame_froze |= 1ULL << d;
        else
            t->frame_froze &= ~(1ULL << d);
    }
    if (ours && t->frozen++ == 0) {
        t->frozen_sp = VG_(get_SP)(tid);
        t->frozen_alt = alt_stack;
        if (tid == live_owner)
            run_state_apply();
    }
}

static void on_post_deliver_signal(ThreadId tid, Int signo)
{
    struct vpmu_thread *t;
    UInt d;
    (void)signo;
    if (tid == 0 || tid >= VG_N_THREADS || !threads[tid].used)
        return;
    t = &threads[tid];
    if (t->sigdepth == 0)
        return;
    d = --t->sigdepth;
    if (d < 64 && (t->frame_froze & (1ULL << d)) && t->frozen > 0 && --t->frozen == 0 &&
        tid == live_owner)
        run_state_apply();
}

/* first: 0, the first threshold is `threshold` from now; else the count of
 * kind (as READ_KINDS reads it) at which it passes, so that a library's
 * thresholds, counted from a base it read a little before arming, are the
 * tool's exactly. */
static Long req_overflow(ThreadId tid, UWord kind, ULong threshold, UWord signo, ULong first)
{
    struct vpmu_thread *t = thread_get(tid);
    UInt i;
    if (kind >= HPM_K_CORE_COUNT || signo < 1 || signo > VKI_SIGRTMAX ||
        signo == VKI_SIGKILL || signo == VKI_SIGSTOP)
        return HPM_VPMU_EINVAL;
    if (threshold > 0 && !vpmu_node_programmed((UInt)hpm_catalog_code((UInt)kind, (Int)t->core)))
        return HPM_VPMU_EINVAL; /* not counted: it would never fire */
    account();
    for (i = 0; i < t->n_ovf; i++)
        if (t->ovf[i].kind == kind)
            break;
    if (threshold == 0) {
        if (i < t->n_ovf) {
            t->ovf[i] = t->ovf[--t->n_ovf];
            if (i < t->n_ovf)
                ovf_upc_program(t, i); /* it moved to counter i */
        }
        return HPM_VPMU_OK;
    }
    if (i == t->n_ovf) {
        if (t->n_ovf >= HPM_VPMU_OVERFLOW_MAX)
            return HPM_VPMU_ENOMEM;
        t->n_ovf++;
    }
    t->ovf[i].kind = (UInt)kind;
    t->ovf[i].signo = (Int)signo;
    t->ovf[i].threshold = threshold;
    t->ovf[i].ev = ovf_event((UInt)kind);
    t->ovf[i].seen = ovf_count(t, (UInt)kind, t->ovf[i].ev);
    t->ovf[i].next = t->ovf[i].seen + threshold;
    if (first) {
        ULong now = t->u[kind]; /* exact: accounted above */
        t->ovf[i].next = t->ovf[i].seen + (first > now ? first - now : 0);
    }
    t->ovf[i].fed = t->ovf[i].seen;
    ovf_upc_program(t, i);
    t->last_sb = NULL;
    if (!vpmu_ovf_instrumented) {
        /* from now on every superblock checks: retranslate what exists */
        vpmu_ovf_instrumented = True;
        VG_(discard_translations_safely)((Addr)0x1000, ~(SizeT)0xfff, "hpm overflow");
    }
    return HPM_VPMU_OK;
}

static Long req_overflow_upcall(ThreadId tid, Addr entry, Addr mask)
{
    struct vpmu_thread *t = thread_get(tid);
#if defined(UPCALL_OFF_SP)
    if (entry && !VG_(am_is_valid_for_client)(entry, 1, VKI_PROT_EXEC))
        return HPM_VPMU_EFAULT;
    if (entry && mask) {
        /* read once: mapped is not readable (a shared file's pages past
         * its end) */
        Int word;
        if (client_get(&word, mask, sizeof word) != HPM_VPMU_OK)
            return HPM_VPMU_EFAULT;
    }
    t->upcall_entry = entry;
    t->upcall_mask = entry ? mask : 0;
    if (entry && entry != vpmu_upcall_entry) {
        /* the translations jump to the process's entry: made again with
         * the new one (a library registers one, once) */
        vpmu_upcall_entry = entry;
        if (vpmu_ovf_instrumented)
            retranslate_all("hpm overflow upcall");
    }
    return HPM_VPMU_OK;
#else
    (void)t;
    (void)entry;
    (void)mask;
    return HPM_VPMU_EINVAL;
#endif
}

/* ------------------------------------------------------------------------
 * Client requests
 * ---------------------------------------------------------------------- */

/* Guest memory is touched only through client_copy. The address-space
 * manager's view (am_is_valid_for_client) says a page is mapped, not that it
 * can be read: a MAP_SHARED mapping that reaches past the end of its file
 * raises SIGBUS on the pages beyond it, and another thread may unmap a buffer
 * between the check and the copy. Valgrind turns such a fault inside the tool
 * into a fatal internal error, losing every count, unless a fault catcher is
 * installed: the catcher jumps back here and the request fails with
 * HPM_VPMU_EFAULT (memcheck's leak scan reads client memory the same way). */
static VG_MINIMAL_JMP_BUF(client_fault_jmp);

static void client_fault_catcher(Int sig, Addr addr)
{
    (void)sig;
    (void)addr;
    VG_MINIMAL_LONGJMP(client_fault_jmp);
}

/* memcpy(dst, src, n) where dst or src is guest memory; False when it
 * faulted (dst may then hold part of the data). */
static Bool client_copy(void *dst, const void *src, SizeT n)
{
    /* the tool runs with Valgrind's fixed host signal mask: asked once
     * (a system call per request otherwise) */
    static vki_sigset_t mask;
    static Bool have_mask;
    fault_catcher_t prev;
    if (!have_mask) {
        VG_(sigprocmask)(VKI_SIG_SETMASK, NULL, &mask);
        have_mask = True;
    }
    prev = VG_(set_fault_catcher)(client_fault_catcher);
    if (VG_MINIMAL_SETJMP(client_fault_jmp) != 0) {
        /* left the signal handler by longjmp: its mask is still in force */
        VG_(sigprocmask)(VKI_SIG_SETMASK, &mask, NULL);
        VG_(set_fault_catcher)(prev);
        return False;
    }
    VG_(memcpy)(dst, src, n);
    VG_(set_fault_catcher)(prev);
    return True;
}

/* The client buffer a request answered from generated code has already
 * checked (vpmu_fast_request: anonymous memory, readable and writable,
 * which cannot fault): [fast_ok_lo, fast_ok_hi) while it runs, else empty.
 * A read's copy within it needs neither the address space's look-ups nor
 * the fault catcher. */
static Addr fast_ok_lo, fast_ok_hi;

static Bool fast_ok(Addr a, UWord bytes)
{
    return fast_ok_hi != 0 && a >= fast_ok_lo && a + bytes >= a && a + bytes <= fast_ok_hi;
}

static Bool client_range_ok(Addr a, UWord bytes, UInt prot)
{
    if (fast_ok(a, bytes))
        return True;
    return a != 0 && a + bytes >= a && VG_(am_is_valid_for_client)(a, bytes, prot);
}

/* Copy n bytes out to the client at a: HPM_VPMU_OK or HPM_VPMU_EFAULT. */
static Long client_put(Addr a, const void *src, UWord n)
{
    if (fast_ok(a, n)) {
        VG_(memcpy)((void *)a, src, n);
        return HPM_VPMU_OK;
    }
    if (!client_range_ok(a, n, VKI_PROT_READ | VKI_PROT_WRITE))
        return HPM_VPMU_EFAULT;
    return client_copy((void *)a, src, n) ? HPM_VPMU_OK : HPM_VPMU_EFAULT;
}

/* Copy n bytes in from the client at a: HPM_VPMU_OK or HPM_VPMU_EFAULT. */
static Long client_get(void *dst, Addr a, UWord n)
{
    if (!client_range_ok(a, n, VKI_PROT_READ))
        return HPM_VPMU_EFAULT;
    return client_copy(dst, (const void *)a, n) ? HPM_VPMU_OK : HPM_VPMU_EFAULT;
}

/* Copy a NUL-terminated client string into out (HPM_VPMU_NAME_MAX bytes),
 * checking each page before touching it. Spaces and control characters are
 * replaced by '_' so that the output stays one record per line. */
static Long read_client_name(Addr a, HChar *out)
{
    UInt i;
    if (a == 0)
        return HPM_VPMU_EFAULT;
    for (i = 0; i < HPM_VPMU_NAME_MAX; i++) {
        Addr p = a + i;
        HChar ch;
        if (p < a)
            return HPM_VPMU_EFAULT;
        if (client_get(&ch, p, 1) != HPM_VPMU_OK)
            return HPM_VPMU_EFAULT;
        if (ch == 0) {
            out[i] = 0;
            return i == 0 ? HPM_VPMU_EINVAL : HPM_VPMU_OK;
        }
        out[i] = ((UChar)ch <= ' ' || (UChar)ch >= 0x7f) ? '_' : ch;
    }
    return HPM_VPMU_ENAMETOOLONG;
}

static Long region_id(const HChar *name)
{
    UInt i;
    for (i = 0; i < n_region_names; i++)
        if (VG_(strcmp)(region_names[i], name) == 0)
            return i;
    if (n_region_names == REGION_NAMES_MAX)
        return HPM_VPMU_ENOMEM;
    region_names[n_region_names] = VG_(strdup)("hpm.region", name);
    return n_region_names++;
}

static struct vpmu_region_rec *region_rec(UInt region, UInt serial, UInt core)
{
    struct vpmu_region_rec *r, **pp = &region_recs;
    for (r = region_recs; r; r = r->next) {
        if (r->region == region && r->serial == serial)
            return r;
        pp = &r->next;
    }
    r = VG_(calloc)("hpm.regionrec", 1, sizeof *r);
    r->region = region;
    r->serial = serial;
    r->core = core;
    *pp = r; /* append: output in order of first closing */
    return r;
}

static Long req_read(ThreadId tid, Addr buf, UWord n)
{
    struct vpmu_thread *t;
    UWord m, bytes;
    Long rc;
    if (n == 0)
        return VPMU_EV_COUNT;
    if (n > ((UWord)1 << 40))
        return HPM_VPMU_EINVAL;
    m = n < VPMU_EV_COUNT ? n : VPMU_EV_COUNT;
    bytes = m * sizeof(ULong);
    if (!client_range_ok(buf, bytes, VKI_PROT_READ | VKI_PROT_WRITE))
        return HPM_VPMU_EFAULT;
    if (vpmu_running)
        account(); /* stopped: as in req_read_kinds */
    t = thread_get(tid);
    rc = client_put(buf, t->c, bytes);
    return rc == HPM_VPMU_OK ? (Long)m : rc;
}

static Long req_region(ThreadId tid, Addr name_addr, Bool begin)
{
    HChar name[HPM_VPMU_NAME_MAX];
    struct vpmu_thread *t = thread_get(tid);
    Long rc = read_client_name(name_addr, name);
    Long id;
    Int e;
    if (rc != HPM_VPMU_OK)
        return rc;
    if (begin) {
        if (t->depth == REGION_DEPTH)
            return HPM_VPMU_ENESTING;
        id = region_id(name);
        if (id < 0)
            return id;
        if (!t->stack)
            t->stack = VG_(malloc)("hpm.regions", REGION_DEPTH * sizeof *t->stack);
        account();
        t->stack[t->depth].region = (UInt)id;
        VG_(memcpy)(t->stack[t->depth].snap, t->u, sizeof t->u);
        t->depth++;
    } else {
        struct region_frame *f;
        struct vpmu_region_rec *r;
        if (t->depth == 0)
            return HPM_VPMU_ENESTING;
        f = &t->stack[t->depth - 1];
        if (VG_(strcmp)(region_names[f->region], name) != 0)
            return HPM_VPMU_ENESTING;
        account();
        r = region_rec(f->region, t->serial, t->core);
        r->entries++;
        for (e = 0; e < HPM_K_CORE_COUNT; e++)
            r->u[e] += t->u[e] - f->snap[e];
        t->depth--;
    }
    return HPM_VPMU_OK;
}

/* Values handed to the client are built here first and copied out in one
 * client_put: the output can be as large as every programmed event. */
static ULong reply_u64[HPM_CAT_CODES > HPM_K_CORE_COUNT ? HPM_CAT_CODES : HPM_K_CORE_COUNT];
static UInt reply_u32[HPM_CAT_CODES];

/* buf[i] = value of programmed event i: node-wide (scope 0) or the calling
 * thread's share (scope 1; 0 for events of other cores and node events). */
static Long req_read_events(ThreadId tid, Addr buf, UWord n, UWord scope)
{
    UInt total = vpmu_node_n_events(), m, i;
    struct vpmu_thread *t;
    Long rc;
    if (n == 0)
        return total;
    if (n > ((UWord)1 << 40) || scope > HPM_VPMU_SCOPE_THREAD)
        return HPM_VPMU_EINVAL;
    m = n < total ? (UInt)n : total;
    if (!client_range_ok(buf, (UWord)m * sizeof(ULong), VKI_PROT_READ | VKI_PROT_WRITE))
        return HPM_VPMU_EFAULT;
    account();
    t = thread_get(tid);
    for (i = 0; i < m; i++) {
        UInt kind;
        Int core;
        if (scope == HPM_VPMU_SCOPE_NODE) {
            reply_u64[i] = vpmu_node_event_value(i);
            continue;
        }
        /* an event counted in another mode than level high has no
         * per-thread share (the threads' shares are of kinds) */
        if (hpm_catalog_decode((UInt)vpmu_node_event_code(i), &kind, &core) != 0)
            reply_u64[i] = 0;
        else
            reply_u64[i] = core == (Int)t->core ? t->u[kind] : 0;
    }
    rc = client_put(buf, reply_u64, (UWord)m * sizeof(ULong));
    return rc == HPM_VPMU_OK ? (Long)m : rc;
}

static Long req_read_kinds(ThreadId tid, Addr buf, UWord n)
{
    UWord m;
    Long rc;
    if (n == 0)
        return HPM_K_CORE_COUNT;
    if (n > ((UWord)1 << 40))
        return HPM_VPMU_EINVAL;
    m = n < HPM_K_CORE_COUNT ? n : HPM_K_CORE_COUNT;
    if (!client_range_ok(buf, m * sizeof(ULong), VKI_PROT_READ | VKI_PROT_WRITE))
        return HPM_VPMU_EFAULT;
    /* while the unit is stopped (an overflow handler's frozen thread, a
     * program's STOP) nothing can move its counts: they were accounted
     * when it stopped, and the flush is the read's whole cost */
    if (vpmu_running)
        account();
    rc = client_put(buf, thread_get(tid)->u, m * sizeof(ULong));
    return rc == HPM_VPMU_OK ? (Long)m : rc;
}

static Long req_machine(Addr buf, UWord size)
{
    Long rc;
    if (size == 0)
        return (Long)sizeof(struct hpm_machine);
    if (size != sizeof(struct hpm_machine))
        return HPM_VPMU_EINVAL;
    rc = client_put(buf, vpmu_node_machine(), size);
    return rc == HPM_VPMU_OK ? (Long)size : rc;
}

static Long req_events(Addr buf, UWord n)
{
    UInt total = vpmu_node_n_events(), m, i;
    Long rc;
    if (n == 0)
        return total;
    if (n > ((UWord)1 << 40))
        return HPM_VPMU_EINVAL;
    m = n < total ? (UInt)n : total;
    for (i = 0; i < m; i++)
        reply_u32[i] = (UInt)vpmu_node_event_code(i);
    rc = client_put(buf, reply_u32, (UWord)m * sizeof(UInt));
    return rc == HPM_VPMU_OK ? (Long)m : rc;
}

void vpmu_account(void)
{
    account();
}

Int vpmu_reprogram(const UInt *specs, UInt n)
{
    UInt i, d;
    account();
    if (vpmu_node_select(specs, n) != 0)
        return -1;
    vpmu_ev_counted_widen(vpmu_node_events_needed());
    /* new programming: every per-thread and region count restarts */
    VG_(memset)(core_seen, 0, vpmu_node_cores() * sizeof *core_seen);
    for (i = 1; i < VG_N_THREADS; i++) {
        if (!threads[i].used)
            continue;
        VG_(memset)(threads[i].u, 0, sizeof threads[i].u);
        for (d = 0; d < threads[i].depth; d++)
            VG_(memset)(threads[i].stack[d].snap, 0, sizeof threads[i].stack[d].snap);
    }
    return 0;
}

static Long req_select(Addr buf, UWord n)
{
    static UInt codes[HPM_CAT_CODES];
    if (n == 0 || n > HPM_CAT_CODES)
        return HPM_VPMU_EINVAL;
    if (client_get(codes, buf, n * sizeof(UInt)) != HPM_VPMU_OK)
        return HPM_VPMU_EFAULT;
    return vpmu_reprogram(codes, (UInt)n) == 0 ? HPM_VPMU_OK : HPM_VPMU_EINVAL;
}

/* Units are numbered by 32 bits, as UPC_WRITE takes them: a wider number is
 * invalid, never unit 0 of its low bits. */
static Long req_upc_read(UWord upc, UWord offset, Addr out)
{
    ULong v;
    if (upc > 0xffffffffUL)
        return HPM_VPMU_EINVAL;
    if (!client_range_ok(out, sizeof(ULong), VKI_PROT_READ | VKI_PROT_WRITE))
        return HPM_VPMU_EFAULT;
    account();
    if (vpmu_node_mmio_read((UInt)upc, offset, &v) != 0)
        return HPM_VPMU_EREGISTER;
    return client_put(out, &v, sizeof v);
}

/* A write the unit accepted reprograms it behind the tool's back: from then
 * on its counts are whatever the program made of them, and the report says
 * so (the `upc_writes` record). */
static ULong upc_writes;

static Long req_upc_write(UWord upc, UWord offset, ULong value)
{
    if (upc > 0xffffffffUL)
        return HPM_VPMU_EINVAL;
    account();
    if (vpmu_node_mmio_write((UInt)upc, offset, value) != 0)
        return HPM_VPMU_EREGISTER;
    upc_writes++;
    return HPM_VPMU_OK;
}

/* The UPC's run bit is what the program and the gates asked for
 * (counting_wanted), except while the running thread is frozen in an
 * overflow handler. Valgrind runs one thread at a time and the tool
 * accounts at every switch, so stopping the unit while a frozen thread runs
 * freezes exactly that thread's counts, node-wide ones included. */
static Bool counting_wanted = True;

static Bool owner_frozen(void)
{
    return live_owner != VG_INVALID_THREADID && threads[live_owner].used &&
           (threads[live_owner].frozen > 0 || threads[live_owner].upcall_frozen);
}

static void run_bit(Bool on)
{
    account(); /* what ran while stopped reaches a stopped UPC: not counted */
    vpmu_running = on;
    if (on) {
        vpmu_node_start();
        vpmu_prof_start();
    } else {
        vpmu_node_stop();
        vpmu_prof_stop();
    }
}

/* After the running thread or its frozen state changed. */
static void run_state_apply(void)
{
    Bool on = counting_wanted && !owner_frozen();
    if (on != vpmu_running)
        run_bit(on);
}

void vpmu_counting_start(void)
{
    counting_wanted = True;
    run_bit(!owner_frozen());
}

void vpmu_counting_stop(void)
{
    counting_wanted = False;
    run_bit(False);
}

static Long req_overflow_where(ThreadId tid, UWord buf, UWord n)
{
    struct vpmu_thread *t = thread_get(tid);
    ULong out[HPM_VPMU_WHERE_MAX];
    UInt i, k = t->n_where < n ? t->n_where : (UInt)n;
    if (k == 0)
        return 0;
    for (i = 0; i < k; i++)
        out[i] = t->where[i];
    return client_put(buf, out, k * sizeof(ULong)) == HPM_VPMU_OK ? (Long)k : HPM_VPMU_EFAULT;
}

/* HPM_VPMU_NET: network counts from libhpm-mpi, added to the node's */
static Long req_net(Addr buf, UWord n)
{
    ULong v[VPMU_NODE_NET_COUNTERS];
    if (n > VPMU_NODE_NET_COUNTERS)
        return HPM_VPMU_EINVAL;
    if (n == 0)
        return HPM_VPMU_OK;
    if (client_get(v, buf, n * sizeof v[0]) != HPM_VPMU_OK)
        return HPM_VPMU_EFAULT;
    vpmu_node_net_add(v, (UInt)n);
    return HPM_VPMU_OK;
}

/* HPM_VPMU_CLOCK: the host's clock in ns. The tool's clock_gettime is one
 * host system call; the program's goes through Valgrind's syscall path
 * (the kernel unit's wrappers, the signal mask around it). The four
 * clocks Linux always has (VG_(clock_gettime) asserts on an error). */
static Long req_clock(UWord clock)
{
    struct vki_timespec ts;
    if (clock > VKI_CLOCK_THREAD_CPUTIME_ID)
        return HPM_VPMU_EINVAL;
    VG_(clock_gettime)(&ts, (vki_clockid_t)clock);
    return (Long)ts.tv_sec * 1000000000LL + (Long)ts.tv_nsec;
}

static Bool handle_client_request(ThreadId tid, UWord *arg, UWord *ret)
{
    Long rc;
    if (!VG_IS_TOOL_USERREQ('H', 'P', arg[0]))
        return False;
    switch (arg[0]) {
    case HPM_VPMU_REQ_IS_RUNNING:
        rc = HPM_VPMU_INTERFACE_VERSION;
        break;
    case HPM_VPMU_REQ_RESET:
        reset_all();
        rc = HPM_VPMU_OK;
        break;
    case HPM_VPMU_REQ_START:
        vpmu_counting_start();
        rc = HPM_VPMU_OK;
        break;
    case HPM_VPMU_REQ_STOP:
        vpmu_counting_stop();
        rc = HPM_VPMU_OK;
        break;
    case HPM_VPMU_REQ_READ_EVENTS:
        rc = req_read_events(tid, (Addr)arg[1], arg[2], arg[3]);
        break;
    case HPM_VPMU_REQ_EVENTS:
        rc = req_events((Addr)arg[1], arg[2]);
        break;
    case HPM_VPMU_REQ_SELECT:
        rc = req_select((Addr)arg[1], arg[2]);
        break;
    case HPM_VPMU_REQ_UPC_READ:
        rc = req_upc_read(arg[1], arg[2], (Addr)arg[3]);
        break;
    case HPM_VPMU_REQ_UPC_WRITE:
        rc = req_upc_write(arg[1], arg[2], (ULong)arg[3]);
        break;
    case HPM_VPMU_REQ_READ:
        rc = req_read(tid, (Addr)arg[1], arg[2]);
        break;
    case HPM_VPMU_REQ_REGION_BEGIN:
        rc = req_region(tid, (Addr)arg[1], True);
        break;
    case HPM_VPMU_REQ_REGION_END:
        rc = req_region(tid, (Addr)arg[1], False);
        break;
    case HPM_VPMU_REQ_READ_KINDS:
        rc = req_read_kinds(tid, (Addr)arg[1], arg[2]);
        break;
    case HPM_VPMU_REQ_MACHINE:
        rc = req_machine((Addr)arg[1], arg[2]);
        break;
    case HPM_VPMU_REQ_OVERFLOW_WHERE:
        rc = req_overflow_where(tid, arg[1], arg[2]);
        break;
    case HPM_VPMU_REQ_OVERFLOW:
        rc = req_overflow(tid, arg[1], (ULong)arg[2], arg[3], (ULong)arg[4]);
        break;
    case HPM_VPMU_REQ_GATE:
        rc = vpmu_gate_request(arg[1], arg[2], (ULong)arg[3]);
        break;
    case HPM_VPMU_REQ_NET:
        rc = req_net((Addr)arg[1], arg[2]);
        break;
    case HPM_VPMU_REQ_OVERFLOW_UPCALL:
        rc = req_overflow_upcall(tid, (Addr)arg[1], (Addr)arg[2]);
        break;
    case HPM_VPMU_REQ_MODEL:
        rc = models_start();
        break;
    case HPM_VPMU_REQ_CLOCK:
        rc = req_clock(arg[1]);
        break;
    default:
        rc = HPM_VPMU_EINVAL;
        break;
    }
    *ret = (UWord)rc;
    return True;
}

ULong vpmu_fast_reply;

/* [a, a+n) lies in one anonymous client mapping, readable and writable.
 * The helper runs inside generated code, where the fault catcher of
 * client_copy cannot be used (a fault there is the tool's crash): only
 * memory that cannot fault is touched from here (a file mapping past its
 * end raises SIGBUS), everything else goes the scheduler's way. */
static Bool fast_range_ok(Addr a, UWord n)
{
    const NSegment *seg = VG_(am_find_nsegment)(a);
    return a != 0 && a + n > a && seg && seg->kind == SkAnonC && seg->hasR && seg->hasW &&
           a + n - 1 <= seg->end;
}

UWord vpmu_fast_request(UWord args)
{
    /* valgrind.h's request block: the request and five arguments */
    UWord arg[6], done;
    Addr out = 0;
    UWord bytes = 0;
    if (!fast_range_ok((Addr)args, sizeof arg))
        return 0; /* the scheduler's path reports it */
    VG_(memcpy)(arg, (const void *)args, sizeof arg);
    switch (arg[0]) {
    case HPM_VPMU_REQ_IS_RUNNING:
    case HPM_VPMU_REQ_CLOCK:
        break;
    case HPM_VPMU_REQ_READ:
    case HPM_VPMU_REQ_READ_EVENTS:
    case HPM_VPMU_REQ_READ_KINDS:
        /* the most any of them writes: arg2 words, at most one per code */
        out = (Addr)arg[1];
        bytes = (arg[2] < HPM_CAT_CODES ? arg[2] : HPM_CAT_CODES) * 8;
        break;
    case HPM_VPMU_REQ_UPC_READ:
        out = (Addr)arg[3];
        bytes = sizeof(ULong);
        break;
    default:
        return 0;
    }
    if (bytes && !fast_range_ok(out, bytes))
        return 0;
    fast_ok_lo = out;
    fast_ok_hi = out + bytes;
    done = handle_client_request(VG_(get_running_tid)(), arg, (UWord *)&vpmu_fast_reply);
    fast_ok_lo = fast_ok_hi = 0;
    return done;
}

/* ------------------------------------------------------------------------
 * Output
 * ---------------------------------------------------------------------- */

static void out_raw(Out *o, UInt serial, const ULong *c)
{
    Int e;
    for (e = 0; e < VPMU_EV_COUNT; e++)
        out_printf(o, VPMU_REC_RAW " " VPMU_REC_THREAD " %u %s %llu\n", serial, event_names[e], c[e]);
}

/* The per-core kinds programmed on core `core`, with the given values. */
static void out_kinds(Out *o, const HChar *prefix, UInt core, const ULong *u)
{
    UInt kinds[HPM_K_CORE_COUNT], n, i;
    ULong vals[HPM_K_CORE_COUNT];
    n = vpmu_node_core_values(core, kinds, vals);
    for (i = 0; i < n; i++)
        out_printf(o, "%s %s %llu\n", prefix, vpmu_node_kind_name(kinds[i]), u[kinds[i]]);
}

/* Writes every count to fname; at_exec: a segment written before execve
 * (its exit record says so). */
static void write_output(const HChar *fname, Bool at_exec)
{
    SysRes sr;
    Out *o;
    UInt s, i, nthreads = 0, maxserial = next_serial;
    ULong total[VPMU_EV_COUNT];
    struct vpmu_exited *x;
    struct vpmu_region_rec *r;
    Int e;
    HChar prefix[HPM_VPMU_NAME_MAX + 64];
    static const HChar *const level_names[] = {"insn", "core", "full"};

    vpmu_upctrace_close(); /* every batch of this image is fed by now */
    sr = VG_(open)(fname, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY,
                   VKI_S_IRUSR | VKI_S_IWUSR | VKI_S_IRGRP | VKI_S_IROTH);
    if (sr_isError(sr)) {
        /* ENOENT: the folder is gone, so hpm has finished and no one is
         * left to read the file (a child that outlived it): say nothing */
        if (sr_Err(sr) != VKI_ENOENT)
            VG_(umsg)("hpm: cannot open output file '%s'\n", fname);
        return;
    }
    o = VG_(malloc)("hpm.out", sizeof *o);
    o->fd = (Int)sr_Res(sr);
    o->used = 0;
    o->failed = False;

    out_printf(o, VPMU_FORMAT_MAGIC " %d\n", VPMU_FORMAT_VERSION);
    out_printf(o, VPMU_REC_COMMAND " %s", VG_(args_the_exename) ? VG_(args_the_exename) : "?");
    for (i = 0; i < (UInt)VG_(sizeXA)(VG_(args_for_client)); i++)
        out_printf(o, " %s", *(HChar **)VG_(indexXA)(VG_(args_for_client), i));
    out_printf(o, "\n");
    out_printf(o, VPMU_REC_PID " %d\n", VG_(getpid)());
    out_printf(o, VPMU_REC_PPID " %d\n", VG_(getppid)());
    out_printf(o, VPMU_REC_MACHINE " %s\n", vpmu_node_machine_name());
    out_printf(o, VPMU_REC_CORES " %u\n", vpmu_node_cores());
    out_printf(o, VPMU_REC_FREQUENCY " %llu\n", vpmu_node_frequency());
    out_printf(o, VPMU_REC_LEVEL " %s\n", level_names[vpmu_clo_level]);
    out_printf(o, VPMU_REC_MODELS " %s\n", vpmu_node_models());
    out_printf(o, VPMU_REC_UPCS " %u\n", vpmu_node_n_upcs());
    if (at_exec)
        out_printf(o, VPMU_REC_EXIT " " VPMU_EXIT_WORD_EXEC "\n");
    else if (exit_seen)
        out_printf(o, VPMU_REC_EXIT " " VPMU_EXIT_WORD_STATUS " %lld\n", exit_code);
    else
        out_printf(o, VPMU_REC_EXIT " " VPMU_EXIT_WORD_SIGNAL "\n");

    for (i = 1; i < VG_N_THREADS; i++)
        nthreads += threads[i].used ? 1 : 0;
    for (x = exited; x; x = x->next)
        nthreads++;
    out_printf(o, VPMU_REC_THREADS " %u\n", nthreads);

    /* node-wide counts, read from the UPC (multiplexed: over each set's
     * intervals) */
    vpmu_mpx_finish();
    if (vpmu_mpx_on())
        vpmu_mpx_write(o);
    else
        for (i = 0; i < vpmu_node_n_events(); i++) {
            HChar name[HPM_CAT_NAME_MAX];
            UInt code = (UInt)vpmu_node_event_code(i);
            vpmu_node_code_name(code, name, sizeof name);
            out_printf(o, VPMU_REC_COUNT " %u %s %llu\n", code, name, vpmu_node_event_value(i));
        }

    VG_(memset)(total, 0, sizeof total);
    /* threads in serial order: live ones and exited ones */
    for (s = 1; s < maxserial; s++) {
        const ULong *c = NULL, *u = NULL;
        UInt core = 0;
        for (i = 1; i < VG_N_THREADS && !c; i++)
            if (threads[i].used && threads[i].serial == s) {
                c = threads[i].c;
                u = threads[i].u;
                core = threads[i].core;
            }
        for (x = exited; x && !c; x = x->next)
            if (x->serial == s) {
                c = x->c;
                u = x->u;
                core = x->core;
            }
        if (!c)
            continue;
        out_printf(o, VPMU_REC_THREAD " %u " VPMU_THREAD_WORD_CORE " %u\n", s, core);
        VG_(snprintf)(prefix, sizeof prefix, VPMU_REC_THREAD " %u", s);
        out_kinds(o, prefix, core, u);
        out_raw(o, s, c);
        for (e = 0; e < VPMU_EV_COUNT; e++)
            total[e] += c[e];
    }
    for (e = 0; e < VPMU_EV_COUNT; e++)
        out_printf(o, VPMU_REC_RAW " total %s %llu\n", event_names[e], total[e]);
    for (r = region_recs; r; r = r->next) {
        out_printf(o, VPMU_REC_REGION " %s " VPMU_REC_THREAD " %u " VPMU_REGION_WORD_ENTRIES " %llu\n", region_names[r->region], r->serial,
                   r->entries);
        VG_(snprintf)(prefix, sizeof prefix, VPMU_REC_REGION " %s " VPMU_REC_THREAD " %u", region_names[r->region],
                      r->serial);
        out_kinds(o, prefix, r->core, r->u);
    }
    if (upc_writes)
        out_printf(o, VPMU_REC_UPC_WRITES " %llu\n", upc_writes);
    if (forks)
        out_printf(o, VPMU_REC_FORKS " %llu\n", forks);
    for (i = 0; i < vpmu_node_n_upcs(); i++) {
        UInt n, par;
        ULong lost;
        vpmu_node_upc_health(i, &n, &lost, &par);
        out_printf(o, VPMU_REC_UPC " %u " VPMU_UPC_WORD_COUNTERS " %u " VPMU_UPC_WORD_LOST " %llu " VPMU_UPC_WORD_PARITY " %u\n", i, n, lost, par);
    }
    vpmu_prof_write(o);
    vpmu_sample_write(o);
    vpmu_procs_write(o);
    out_flush(o);
    VG_(close)(o->fd);
    if (o->failed)
        VG_(umsg)("hpm: error writing '%s'\n", fname);
    else if (VG_(clo_verbosity) > 0 && !at_exec)
        VG_(umsg)("hpm: %llu instructions; counts written to %s\n",
                  total[VPMU_EV_INSTRUCTIONS], fname);
    VG_(free)(o);
}

/* ------------------------------------------------------------------------
 * Tool interface
 * ---------------------------------------------------------------------- */

static Bool process_cmd_line_option(const HChar *arg)
{
    const HChar *level = NULL;
    if VG_STR_CLO (arg, "--hpm-out", clo_out) {
    } else if VG_BOOL_CLO (arg, "--hpm-start", clo_start) {
    } else if VG_BOOL_CLO (arg, "--hpm-live", clo_live) {
    } else if VG_BINT_CLO (arg, "--hpm-live-ms", clo_live_ms, 1, 3600000) {
    } else if (vpmu_node_option(arg)) {
    } else if (vpmu_prof_option(arg)) {
    } else if (vpmu_sample_option(arg)) {
    } else if (vpmu_procs_option(arg)) {
    } else if (vpmu_gate_option(arg)) {
    } else if (vpmu_upctrace_option(arg)) {
    } else if (vpmu_mpx_option(arg)) {
    } else if VG_STR_CLO (arg, "--hpm-level", level) {
        clo_level_given = True;
        if (VG_(strcmp)(level, "insn") == 0)
            vpmu_clo_level = VPMU_LEVEL_INSN;
        else if (VG_(strcmp)(level, "core") == 0)
            vpmu_clo_level = VPMU_LEVEL_CORE;
        else if (VG_(strcmp)(level, "full") == 0)
            vpmu_clo_level = VPMU_LEVEL_FULL;
        else
            VG_(fmsg_bad_option)(arg, "expected insn, core or full\n");
    } else {
        return False;
    }
    return True;
}

static void print_usage(void)
{
    VG_(printf)(
        "    --hpm-out=FILE            write counts to FILE [hpm-vpmu.%%p.out]\n"
        "                              (%%p is the pid, %%q{VAR} an env variable)\n"
        "    --hpm-level=insn|core|full  instrument at least this much [insn]\n"
        "                              (the events asked for raise it as needed):\n"
        "                              insn = instructions; core = + loads/stores,\n"
        "                              branches, syscalls; full = + FP, integer ops\n"
        "    --hpm-start=yes|no        count from the start [yes]; else wait\n"
        "                              for HPM_VPMU_START()\n"
        "    --hpm-live=yes|no         publish the counts in /dev/shm/hpm-live.NS.PID [yes]\n"
        "    --hpm-live-ms=N           at least every N ms of host time [100]\n");
    vpmu_node_usage();
    vpmu_prof_usage();
    vpmu_sample_usage();
    vpmu_procs_usage();
    vpmu_gate_usage();
    vpmu_upctrace_usage();
    vpmu_mpx_usage();
}

static void print_debug_usage(void)
{
    VG_(printf)("    (none)\n");
}

static void post_clo_init(void)
{
    /* Exact branch counts need one control transfer per SB end: stop VEX
     * from following ("chasing") branches into the same superblock. */
    VG_(clo_vex_control).guest_chase = False;
    threads = VG_(calloc)("hpm.threads", VG_N_THREADS, sizeof *threads);
    vpmu_node_init();
    vpmu_ev_counted = clo_level_given ? ~0u : vpmu_node_events_needed();
    if (vpmu_gate_init())
        clo_start = False; /* a gate starts the counting */
    vpmu_mpx_init();
    vpmu_running = clo_start;
    counting_wanted = clo_start;
    if (clo_start)
        vpmu_node_start();
    else
        vpmu_node_stop();
    if (vpmu_node_level() > vpmu_clo_level)
        vpmu_clo_level = vpmu_node_level();
    core_seen = VG_(calloc)("hpm.seen", vpmu_node_cores(), sizeof *core_seen);
    vpmu_prof_init();
    vpmu_sample_init();
    if (vpmu_prof_on || vpmu_sample_on)
        vpmu_ev_counted = ~0u; /* per-instruction costs of every kind */
    vpmu_instrument_init();
    lease_init();
    live_open();
    if (live)
        live_publish(HPM_LIVE_RUNNING, 0);
}

static void fini(Int exitcode)
{
    (void)exitcode; /* the core passes 0; exit_group's status is recorded */
    HChar *fname = VG_(expand_file_name)("--hpm-out", clo_out);
    vpmu_io_host_sync(); /* the host's measurements as of the end */
    account();
    write_output(fname, False);
    VG_(free)(fname);
    live_close(HPM_LIVE_EXITED, exit_seen ? (Int)exit_code : -1);
}

static void pre_clo_init(void)
{
    VG_(details_name)("hpm");
    VG_(details_version)("0.1.0");
    VG_(details_description)("the hpm virtual performance monitoring unit");
    VG_(details_copyright_author)("Copyright (C) the hpm authors; GPL-2.0-or-later.");
    VG_(details_bug_reports_to)("the hpm maintainers");
    VG_(details_avg_translation_sizeB)(275);

    VG_(basic_tool_funcs)(post_clo_init, vpmu_instrument, fini);
    VG_(needs_command_line_options)(process_cmd_line_option, print_usage, print_debug_usage);
    VG_(needs_client_requests)(handle_client_request);
    VG_(needs_syscall_wrapper)(pre_syscall, post_syscall);
    VG_(track_start_client_code)(on_start_client_code);
    VG_(track_pre_thread_ll_create)(on_thread_create);
    VG_(track_pre_thread_ll_exit)(on_thread_exit);
    VG_(track_stop_client_code)(on_stop_client_code);
    VG_(track_pre_deliver_signal)(on_pre_deliver_signal);
    VG_(track_post_deliver_signal)(on_post_deliver_signal);
    VG_(track_new_mem_mmap)(on_mmap);
    VG_(track_die_mem_munmap)(on_munmap);
    VG_(track_new_mem_brk)(on_brk);
    VG_(track_die_mem_brk)(on_munmap);
    VG_(track_copy_mem_remap)(on_mremap);
    VG_(track_change_mem_mprotect)(on_mprotect);
    VG_(atfork)(NULL, NULL, on_fork_child);
}

VG_DETERMINE_INTERFACE_VERSION(pre_clo_init)
