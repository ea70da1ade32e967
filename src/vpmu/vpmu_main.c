/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_main.c - the hpm virtual PMU, a Valgrind tool (valgrind --tool=hpm):
 * its interface to Valgrind's core. It wires the core's callbacks to the
 * parts (vpmu_tool.h) and owns what only those callbacks touch: the thread
 * switch at each timeslice, thread creation and exit, the system call
 * wrappers (exec segments, forks, a stack grown ahead for a traced
 * program), the memory-map callbacks of a profile, the live view of
 * vpmu_live.h and the lease that ends the tool with its hpm.
 *
 * Counts, per thread and exactly, the events of vpmu_events.h by
 * instrumenting VEX IR (vpmu_instrument.c); the options are vpmu_clo.c's,
 * threads and folding vpmu_threads.c's, client requests vpmu_requests.c's
 * (guest memory through vpmu_client.c), overflow delivery vpmu_overflow.c's;
 * all counts are written at exit (also after a fatal signal) to the file
 * named by --hpm-out (vpmu_dump.c; the format is vpmu_format.h's).
 *
 * Copyright notice: this tool links Valgrind's coregrind and VEX (GPL-2.0).
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_libcsetjmp.h"
#include "pub_tool_libcsignal.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_signals.h"
#include "pub_tool_vkiscnums.h"

#include "vpmu_format.h"
#include "vpmu_live.h"
#include "vpmu_gate.h"
#include "vpmu_mpx.h"
#include "vpmu_io.h"
#include "vpmu_c2c.h"
#include "vpmu_profile.h"
#include "vpmu_sample.h"
#include "vpmu_procs.h"
#include "vpmu_tool.h"
#include "vpmu_turns.h"

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
    if (!vpmu_state.clo.live)
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
    live->interval_ms = (ULong)vpmu_state.clo.live_ms;
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
        if (vpmu_state.threads[t].used)
            for (i = 0; i < live->n_raw; i++)
                live->raw[i] += vpmu_state.threads[t].c[i];
    for (struct vpmu_exited *x = vpmu_state.exited_threads; x; x = x->next)
        for (i = 0; i < live->n_raw; i++)
            live->raw[i] += x->c[i];
    live->threads = vpmu_state.next_serial - 1;
    live->models_waiting = vpmu_node_models_waiting() ? 1 : 0;
    if (!live->machine[0]) {
        /* also after a truncation was repaired: the header comes back */
        const HChar *m = vpmu_node_machine_name();
        live->magic = HPM_LIVE_MAGIC;
        live->version = HPM_LIVE_VERSION;
        live->size = sizeof(struct hpm_live);
        live->pid = (UInt)VG_(getpid)();
        live->interval_ms = (ULong)vpmu_state.clo.live_ms;
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
 * they would natively. A folder without an owner file (a hand-made one)
 * gives no lease; an owner file nobody holds and that does not say
 * "ended" when a program starts or execs means its hpm is already dead.
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

static void lease_ended_or_end(void);

static void lease_init(void)
{
    HChar *out = VG_(expand_file_name)("--hpm-out", vpmu_state.clo.out);
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
    lease_last_ms = VG_(read_millisecond_timer)();
    if (lease_fd < 0)
        return;
    switch (lease_held()) {
    case 1:
        return;
    case 0:
        /* an image exec'd after its hpm was killed (the fork came before
         * the kill, the exec after): it ends as its siblings do, before
         * it counts or writes anything */
        lease_ended_or_end();
        return;
    default:
        VG_(close)(lease_fd);
        lease_fd = -1;
    }
}

static void lease_check(void)
{
    lease_last_ms = VG_(read_millisecond_timer)();
    if (lease_held() != 0)
        return;
    lease_ended_or_end();
}

/* Nobody holds the lease: runs on without one when hpm wrote "ended"
 * (it ended normally), or ends as hpm's direct child did when it was
 * killed. */
static void lease_ended_or_end(void)
{
    HChar said[5];
    SysRes sr;
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

static void on_start_client_code(ThreadId tid, ULong blocks_done)
{
    {
        /* vpmu_state.h: where the translations find the live block */
        Addr base = (Addr)vpmu_state.live;
        VG_(set_shadow_regs_area)(tid, 1, VPMU_LIVE_BASE_GUEST_OFFSET, sizeof base,
                                  (const UChar *)&base);
    }
    /* not its turn (--hpm-interleave): it leaves at its first superblock
     * before counting anything, so it does not become the live owner */
    if (!vpmu_turns_start(tid))
        return;
    /* the host clock is a system call under Valgrind: asked only when some
     * work ran since it was last asked (a program making client requests
     * in a loop comes here after each one) */
    static ULong blocks_at_check;
    static UInt calls_since_check;
    if (tid != vpmu_state.live_owner) {
        vpmu_account();
        vpmu_state.live_owner = tid;
        vpmu_node_set_core(thread_get(tid)->core);
        vpmu_run_state_apply(); /* the thread may be in a frozen overflow handler */
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
        (void)vpmu_models_start(0);
        live_publish(HPM_LIVE_RUNNING, 0);
    }
    if (VG_(read_millisecond_timer)() - live_last_ms >= (UInt)vpmu_state.clo.live_ms) {
        vpmu_account_view();
        live_publish(HPM_LIVE_RUNNING, 0);
    }
}

static void on_thread_create(ThreadId parent, ThreadId child)
{
    if (child > 0 && child < VG_N_THREADS) {
        vpmu_state.threads[child].used = False;
        (void)thread_get(child);
    }
    vpmu_turns_thread_new(parent, child);
}

static void on_stop_client_code(ThreadId tid, ULong blocks_done)
{
    vpmu_ovf_stop_client_code(tid, blocks_done);
    vpmu_turns_stop(tid); /* may give up Valgrind's lock: last */
}

static void on_thread_exit(ThreadId tid)
{
    struct vpmu_thread *t;
    struct vpmu_exited *x;
    if (tid == vpmu_state.live_owner) {
        vpmu_account();
        vpmu_state.live_owner = VG_INVALID_THREADID;
    }
    vpmu_turns_thread_end(tid);
    if (vpmu_state.on.profile)
        vpmu_prof_thread_end(tid);
    vpmu_sample_thread_end(tid);
    vpmu_gate_thread_end(tid);
    if (tid == 0 || tid >= VG_N_THREADS || !vpmu_state.threads[tid].used)
        return;
    t = &vpmu_state.threads[tid];
    x = VG_(malloc)("hpm.exited", sizeof *x);
    x->serial = t->serial;
    x->core = t->core;
    VG_(memcpy)(x->c, t->c, sizeof x->c);
    VG_(memcpy)(x->u, t->u, sizeof x->u);
    x->next = vpmu_state.exited_threads;
    vpmu_state.exited_threads = x;
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
        n += vpmu_state.threads[i].used ? 1 : 0;
    return n;
}

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
    HChar *base = VG_(expand_file_name)("--hpm-out", vpmu_state.clo.out);
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
    if (vpmu_state.on.profile)
        vpmu_io_exact_counts(c);
}

static void io_counted_after(ThreadId tid, Addr site, const ULong *before)
{
    ULong after[VPMU_IO_KINDS];
    UInt k;
    if (!vpmu_state.on.profile)
        return;
    vpmu_io_exact_counts(after);
    for (k = 0; k < VPMU_IO_KINDS; k++)
        after[k] -= before[k];
    vpmu_prof_io(tid, site, after);
}

static void fini(Int exitcode);

/* Whether a clone makes a thread, as Valgrind's wrapper decides (a thread
 * takes one of its slots; a fork does not). */
static Bool clone_makes_thread(UWord flags)
{
    const UWord which = VKI_CLONE_VM | VKI_CLONE_FS | VKI_CLONE_FILES | VKI_CLONE_VFORK;
    return (flags & which) == (VKI_CLONE_VM | VKI_CLONE_FS | VKI_CLONE_FILES);
}

static Bool thread_slot_free(void)
{
    ThreadId t;
    for (t = 1; t < VG_N_THREADS; t++)
        if (!VG_(is_valid_tid)(t))
            return True;
    return False;
}

/* A thread's creation with every slot taken (--max-threads): Valgrind's
 * wrapper would panic and the counts would be lost. They are written now,
 * their end says why (exit slots N), and the process ends with Valgrind's
 * status for a panic, 1, and this line instead of its dump. */
static void out_of_slots(void)
{
    vpmu_state.slots_out = True;
    fini(0);
    VG_(umsg)("hpm: the program started a thread while it ran %d, the most the simulator's "
              "--max-threads=%d holds (hpm's --max-threads=N for more): it was stopped "
              "there; the counts up to that point are kept\n",
              (Int)VG_N_THREADS - 1, (Int)VG_N_THREADS);
    VG_(exit)(1);
}

static void pre_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nArgs)
{
    ULong io_before[VPMU_IO_KINDS];
    vpmu_fast_segments_forget();
    if (sysno == __NR_clone && nArgs >= 1 && clone_makes_thread(args[0]) && !thread_slot_free())
        out_of_slots();
    /* the guest's IP is past the 2-byte syscall instruction (amd64 has no
     * IP_AT_SYSCALL; Valgrind's own restart takes 2 off too); kept for the
     * post wrapper, after which a signal frame may have moved it */
    if (vpmu_state.on.profile)
        thread_get(tid)->syscall_site = VG_(get_IP)(tid) - 2;
    io_counted_before(io_before);
    vpmu_io_pre_syscall(tid, sysno, args, nArgs);
    io_counted_after(tid, thread_get(tid)->syscall_site, io_before);
    vpmu_procs_pre_syscall(tid, sysno, args, nArgs); /* before an execve's segment */
    vpmu_turns_syscall(tid, sysno, args, nArgs); /* it may block: the turn passes on */
    if (nArgs < 1)
        return;
    if (sysno == __NR_ptrace && args[0] == 0 /* PTRACE_TRACEME */)
        grow_stack_ahead(tid);
    if (sysno == __NR_exit_group || (sysno == __NR_exit && live_threads() <= 1)) {
        vpmu_state.exit_seen = True;
        vpmu_state.exit_code = (Long)(Int)args[0];
    }
    if (live && stops_itself(sysno, args, nArgs)) {
        /* stopped, it cannot publish: a reader attached to it (PAPI_attach
         * in a tracing parent) reads these counts while it waits */
        vpmu_account();
        live_publish(HPM_LIVE_RUNNING, 0);
    }
    if ((sysno == __NR_execve || sysno == __NR_execveat) && VG_(clo_trace_children)) {
        vpmu_io_host_sync();
        vpmu_account();
        /* the view says EXEC before the segment holds these counts: a
         * SIGKILL between the two leaves a view that hpm count gives for
         * this image only where the segment was not written
         * (count_tree_take_views), never this image's counts twice */
        live_publish(HPM_LIVE_EXEC, 0);
        exec_segment = exec_segment_name();
        if (exec_segment)
            vpmu_write_output(exec_segment, True);
        /* the name goes now: the new image's tool makes a new one (a
         * truncated file would fault readers that have this one mapped) */
        live_close(HPM_LIVE_EXEC, 0);
    }
}

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
    vpmu_fast_segments_forget();
    io_counted_before(io_before);
    vpmu_io_post_syscall(tid, sysno, args, nArgs, res);
    io_counted_after(tid, thread_get(tid)->syscall_site, io_before);
    vpmu_procs_post_syscall(tid, sysno, args, nArgs, res);
    vpmu_turns_syscall_done(tid);
    if (!sr_isError(res) && sr_Res(res) > 0 &&
        (sysno == __NR_fork || sysno == __NR_vfork ||
         (sysno == __NR_clone && nArgs >= 1 && !(args[0] & VKI_CLONE_THREAD)))) {
        vpmu_state.forks++;
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

/* A forked child starts with zero counts and its own output file (%p).
 * Its one thread is the one that forked (any of the parent's): the others'
 * open calls and --hpm-only regions end here, as at their exit. */
static void on_fork_child(ThreadId tid)
{
    UInt i;
    struct vpmu_region_rec *r;
    for (i = 1; i < VG_N_THREADS; i++) {
        if ((ThreadId)i == tid || !vpmu_state.threads[i].used)
            continue;
        if (vpmu_state.on.profile)
            vpmu_prof_thread_end((ThreadId)i);
        vpmu_gate_thread_end((ThreadId)i);
    }
    vpmu_threads_fork_child(tid);
    vpmu_reset_all();
    vpmu_sample_fork_child();
    vpmu_procs_fork_child();
    vpmu_turns_fork_child(tid);
    if (tid > 0 && tid < VG_N_THREADS) {
        struct vpmu_thread *t = &vpmu_state.threads[tid];
        t->n_ovf = 0; /* like perf events, not inherited by fork */
        /* a child forked inside a handler counts from its start */
        t->ovf_sent = t->frozen = t->sigdepth = 0;
        t->frame_froze = 0;
        t->upcall_entry = 0;
        t->upcall_frozen = False;
        t->lwpid = 0;
        vpmu_state.pid = 0;
        vpmu_run_state_apply();
    }
    while (vpmu_state.region_recs) {
        r = vpmu_state.region_recs;
        vpmu_state.region_recs = r->next;
        VG_(free)(r);
    }
    vpmu_state.exit_seen = False;
    vpmu_state.forks = 0;
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
        vpmu_account();
        live_publish(HPM_LIVE_RUNNING, 0);
    }
}

/* A file mapping whose debug information Valgrind read (a handle): the
 * profile's data objects may learn where its .bss ends. Any change of the
 * client's mappings may change which mapping holds an address. */
static void on_mmap(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di_handle)
{
    (void)a, (void)len, (void)rr, (void)ww, (void)xx;
    if (!vpmu_state.on.profile)
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
    if (vpmu_state.on.profile)
        vpmu_prof_memory_changed();
}

/* code unmapped is an object's no more (a dlclose'd library) */
static void on_munmap(Addr a, SizeT len)
{
    on_space_changed(a, len);
    if (vpmu_state.on.profile)
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

static void on_pre_deliver_signal(ThreadId tid, Int signo, Bool alt_stack)
{
    ULong io_before[VPMU_IO_KINDS];
    io_counted_before(io_before);
    vpmu_io_signal(tid, signo);
    if (tid > 0 && tid < VG_N_THREADS)
        io_counted_after(tid, VG_(get_IP)(tid), io_before);
    vpmu_ovf_pre_deliver_signal(tid, signo, alt_stack);
}

/* ------------------------------------------------------------------------
 * Tool interface
 * ---------------------------------------------------------------------- */

static void post_clo_init(void)
{
    /* Exact branch counts need one control transfer per SB end: stop VEX
     * from following ("chasing") branches into the same superblock. */
    VG_(clo_vex_control).guest_chase = False;
    vpmu_state.threads = VG_(calloc)("hpm.threads", VG_N_THREADS, sizeof *vpmu_state.threads);
    vpmu_node_init();
    vpmu_state.ev_counted = vpmu_state.clo.level_given ? ~0u : vpmu_node_events_needed();
    if (vpmu_gate_init())
        vpmu_state.clo.start = False; /* a gate starts the counting */
    vpmu_mpx_init();
    vpmu_state.running = vpmu_state.clo.start;
    vpmu_state.counting_wanted = vpmu_state.clo.start;
    if (vpmu_state.clo.start)
        vpmu_node_start();
    else
        vpmu_node_stop();
    if (vpmu_node_level() > vpmu_state.clo.level)
        vpmu_state.clo.level = vpmu_node_level();
    vpmu_threads_init();
    vpmu_prof_init();
    vpmu_c2c_init();
    vpmu_sample_init();
    if (vpmu_state.on.profile || vpmu_state.on.sample)
        vpmu_state.ev_counted = ~0u; /* per-instruction costs of every kind */
    if (vpmu_state.on.turns)
        vpmu_state.ev_counted |= 1u << VPMU_EV_INSTRUCTIONS; /* the turns' clock */
    vpmu_instrument_init();
    vpmu_io_clock_init(); /* the TSC clock's baseline starts before the program */
    lease_init();
    live_open();
    if (live)
        live_publish(HPM_LIVE_RUNNING, 0);
}

static void fini(Int exitcode)
{
    (void)exitcode; /* the core passes 0; exit_group's status is recorded */
    HChar *fname = VG_(expand_file_name)("--hpm-out", vpmu_state.clo.out);
    vpmu_io_host_sync(); /* the host's measurements as of the end */
    vpmu_account();
    vpmu_write_output(fname, False);
    VG_(free)(fname);
    live_close(HPM_LIVE_EXITED, vpmu_state.exit_seen ? (Int)vpmu_state.exit_code : -1);
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
    VG_(needs_command_line_options)(vpmu_clo_option, vpmu_clo_usage, vpmu_clo_debug_usage);
    VG_(needs_client_requests)(vpmu_handle_client_request);
    VG_(needs_syscall_wrapper)(pre_syscall, post_syscall);
    VG_(track_start_client_code)(on_start_client_code);
    VG_(track_pre_thread_ll_create)(on_thread_create);
    VG_(track_pre_thread_ll_exit)(on_thread_exit);
    VG_(track_stop_client_code)(on_stop_client_code);
    VG_(track_pre_deliver_signal)(on_pre_deliver_signal);
    VG_(track_post_deliver_signal)(vpmu_ovf_post_deliver_signal);
    VG_(track_new_mem_mmap)(on_mmap);
    VG_(track_die_mem_munmap)(on_munmap);
    VG_(track_new_mem_brk)(on_brk);
    VG_(track_die_mem_brk)(on_munmap);
    VG_(track_copy_mem_remap)(on_mremap);
    VG_(track_change_mem_mprotect)(on_mprotect);
    VG_(atfork)(NULL, NULL, on_fork_child);
}

VG_DETERMINE_INTERFACE_VERSION(pre_clo_init)
