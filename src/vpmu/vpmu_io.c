/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_io.c - the I/O and kernel units (vpmu_io.h), counted from the
 * program's system calls; and the host's TSC against CLOCK_MONOTONIC,
 * which times those calls and lets the program read the clock from its
 * own TSC reads (vpmu_io_clock_sync).
 *
 * Rules (docs/events.md, "I/O and kernel units"):
 *  - Everything comes from what the kernel did: a read or write counts once
 *    with the bytes of its result; a call the kernel failed (a bad
 *    descriptor, a bad buffer, EAGAIN, EINTR) counts as an error and moves
 *    no bytes. The arguments are only used to know the descriptors.
 *  - The descriptor's kind (regular file, pipe/FIFO, socket, terminal,
 *    other) is asked of the kernel before the call (fstat; a character
 *    device is a terminal when TCGETS succeeds on it), so dup'ed, inherited
 *    and passed descriptors are known too. A descriptor fstat refuses has no
 *    kind: its call still counts in the totals (IO_READS, ...), which are
 *    the sum of the five kinds plus those.
 *  - sendfile, splice, tee and copy_file_range move bytes from one
 *    descriptor to another: one read of the source and one write of the
 *    destination, each with the call's result.
 *  - recvmmsg and sendmmsg: one call each, with the bytes the kernel stored
 *    in each message's msg_len (read from the program's memory only where
 *    it is mapped readable).
 *  - KERNEL_SYSCALLS counts every system call when it is made (before the
 *    call: exit and a successful execve never return), by class.
 *  - Host measurements: the wall clock from before to after each call
 *    (TSC stamps scaled to CLOCK_MONOTONIC; stamp() below), which includes Valgrind's own work around it and its
 *    wait for the big lock after a blocking call; getrusage of the whole
 *    process (Valgrind included), made monotonic across fork (a child's
 *    getrusage starts again from zero).
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

#include "catalog.h"
#include "vpmu_io.h"

/* libcoregrind, not in pub_tool: a raw system call (pub_core_syscall.h) */
extern SysRes VG_(do_syscall)(UWord sysno, RegWord a1, RegWord a2, RegWord a3, RegWord a4,
                              RegWord a5, RegWord a6, RegWord a7, RegWord a8);

enum fd_kind { FK_FILE, FK_PIPE, FK_SOCK, FK_TTY, FK_OTHER, FK_N, FK_NONE = FK_N };

/* syscall classes, in the catalog's KERNEL_SYSCALLS_* order */
enum sc_class { SC_IO, SC_MEMORY, SC_PROCESS, SC_SIGNAL, SC_TIME, SC_SYNC, SC_OTHER, SC_N };

#define N_IO_KINDS VPMU_IO_KINDS
static ULong cnt[N_IO_KINDS];
#define C(k) cnt[HPM_K_##k - HPM_K_IO_READS]

_Static_assert(HPM_K_IO_FILE_READS + 4 * FK_PIPE == HPM_K_IO_PIPE_READS, "per-kind rows");
_Static_assert(HPM_K_IO_FILE_READS + 4 * FK_OTHER == HPM_K_IO_OTHER_READS, "per-kind rows");
_Static_assert(HPM_K_KERNEL_SYSCALLS_IO + SC_OTHER == HPM_K_KERNEL_SYSCALLS_OTHER, "classes");

/* what pre saw, for post: per thread */
struct pending {
    ULong t0;       /* host time stamp (stamp()) */
    UChar kind_in;  /* the descriptor read from (enum fd_kind) */
    UChar kind_out; /* the descriptor written to */
};
static struct pending *pend; /* VG_N_THREADS entries, made at the first call */

static ULong now_ns(void)
{
    struct vki_timespec ts;
    VG_(clock_gettime)(&ts, VKI_CLOCK_MONOTONIC);
    return (ULong)ts.tv_sec * 1000000000ULL + (ULong)ts.tv_nsec;
}

/* Host time stamps around every system call. A clock_gettime is a system
 * call here (no vDSO inside Valgrind) and two of them doubled the tool's
 * cost of a cheap call (measured: 400,000 write+getppid calls, 2.7 s ->
 * 4.2 s), so on a CPU with an invariant TSC the stamps are TSC reads,
 * turned into nanoseconds when the counts are read, at the rate the TSC
 * ran against CLOCK_MONOTONIC since the first stamp. Without an invariant
 * TSC they are CLOCK_MONOTONIC nanoseconds. */
static Bool use_tsc, stamps_made;
static ULong tsc0, ns0;

static ULong rdtsc(void)
{
    UInt lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (ULong)hi << 32 | lo;
}

/* The TSC and CLOCK_MONOTONIC at one moment: the TSC at the middle of the
 * clock's system call, from the tightest of a few tries (a try whose call
 * the host preempted brackets the clock read loosely: one such pair put a
 * program's clock 29 us behind). */
static void tsc_ns_pair(ULong *tsc, ULong *ns)
{
    ULong best = ~0ULL;
    for (UInt i = 0; i < 8 && best > 4096; i++) {
        ULong before = rdtsc(), n = now_ns(), after = rdtsc();
        if (after >= before && after - before < best) {
            best = after - before;
            *tsc = before + (after - before) / 2;
            *ns = n;
        }
    }
    if (best == ~0ULL) { /* a TSC that went back each time: the last try */
        *ns = now_ns();
        *tsc = rdtsc();
    }
}

static void stamps_init(void)
{
    UInt a, b, c, d;
    if (stamps_made)
        return;
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000000u), "c"(0));
    if (a >= 0x80000007u) {
        __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000007u), "c"(0));
        use_tsc = (d >> 8) & 1; /* invariant TSC */
    }
    tsc_ns_pair(&tsc0, &ns0);
    stamps_made = True;
}

static ULong stamp(void)
{
    return use_tsc ? rdtsc() : now_ns();
}

/* stamp units -> ns */
/* The TSC's rate against CLOCK_MONOTONIC since the first stamp, measured
 * again at each host refresh (host_refresh below), not at every read. */
static ULong rate_num = 1, rate_den = 1;

static void rate_measure(void)
{
    ULong t = rdtsc() - tsc0, n = now_ns() - ns0;
    if (t > 1000000 && n > 0) { /* else the last rate */
        rate_num = n;
        rate_den = t;
    }
}

static ULong stamp_ns(ULong v)
{
    return use_tsc ? (ULong)((unsigned __int128)v * rate_num / rate_den) : v;
}

/* The program's real-time clock from its own TSC reads (vpmu_io.h,
 * HPM_VPMU_CLOCK_SYNC). Only where the kernel itself keeps CLOCK_MONOTONIC
 * on the TSC: an invariant TSC that the kernel also found synchronised
 * across CPUs (else it would have left the TSC as its clocksource), so a
 * thread that moves between CPUs reads one TSC. Decided at the first
 * asking: 1 yes, 2 no. */
static UInt tsc_clock;

static Bool kernel_clock_on_tsc(void)
{
    static const HChar path[] = "/sys/devices/system/clocksource/clocksource0/current_clocksource";
    HChar buf[16];
    Int n = 0;
    SysRes sr = VG_(open)(path, VKI_O_RDONLY, 0);
    if (sr_isError(sr))
        return False;
    n = VG_(read)((Int)sr_Res(sr), buf, (Int)sizeof buf - 1);
    VG_(close)((Int)sr_Res(sr));
    if (n < 0)
        return False;
    buf[n] = '\0';
    return VG_(strcmp)(buf, "tsc\n") == 0 || VG_(strcmp)(buf, "tsc") == 0;
}

void vpmu_io_clock_init(void)
{
    stamps_init();
}

Long vpmu_io_clock_sync(ULong out[VPMU_CLOCK_SYNC_WORDS])
{
    ULong ns, tsc, dt, dn, mult;
    if (tsc_clock == 0) /* the first stamp was made at the tool's start */
        tsc_clock = use_tsc && kernel_clock_on_tsc() ? 1 : 2;
    if (tsc_clock != 1)
        return -1;
    tsc_ns_pair(&tsc, &ns);
    dt = tsc - tsc0;
    dn = ns - ns0;
    if (dt == 0 || dn == 0 || tsc < tsc0 || ns < ns0)
        return -1;
    /* ns per tick since the first stamp, 32.32: the longer the run, the
     * closer to the clock's own rate; NTP's slewing (at most 500 ppm) is
     * what the sync window bounds */
    mult = (ULong)(((unsigned __int128)dn << 32) / dt);
    if (mult == 0 || mult >> 40)
        return -1; /* a TSC slower than 256 ns a tick: not one to read */
    out[0] = tsc;
    out[1] = ns;
    out[2] = mult;
    out[3] = (ULong)(((unsigned __int128)VPMU_CLOCK_SYNC_NS << 32) / mult);
    return 0;
}

/* Host refresh: getrusage and the TSC's rate are system calls (no vDSO in
 * Valgrind); asked at every read they were 7 of the 9 us a PAPI_read cost.
 * A read asks them again only when 2^24 TSC ticks (about 5 ms) passed since
 * the last asking, or every 64th read without a TSC, and always when the
 * counts are written (vpmu_io_host_sync): mid-run readers see the host's
 * measurements at most that old, the report sees them at the end. */
#define HOST_REFRESH_TICKS (1ULL << 24)
static Bool host_forced = True;
static ULong host_last_tsc;
static UInt host_reads;

void vpmu_io_host_sync(void)
{
    host_forced = True;
}

static Bool host_refresh_due(void)
{
    Bool due = host_forced;
    if (use_tsc) {
        ULong now = rdtsc();
        due |= now - host_last_tsc >= HOST_REFRESH_TICKS;
        if (due)
            host_last_tsc = now;
    } else {
        due |= ++host_reads % 64 == 0;
    }
    host_forced = False;
    return due;
}

static UChar fd_kind(UWord fd)
{
    struct vg_stat st;
    if ((Word)fd < 0 || (Word)fd > 0x7fffffff || VG_(fstat)((Int)fd, &st) != 0)
        return FK_NONE;
    switch (st.mode & VKI_S_IFMT) {
    case VKI_S_IFREG:
        return FK_FILE;
    case VKI_S_IFIFO:
        return FK_PIPE;
    case VKI_S_IFSOCK:
        return FK_SOCK;
    case VKI_S_IFCHR: {
        struct vki_termios t;
        SysRes r;
        /* major 1: /dev/null, zero, full, random, ...: never a terminal
         * (and the most written-to device: spare it the ioctl) */
        if (((st.rdev >> 8) & 0xfff) == 1 && (st.rdev >> 32) == 0)
            return FK_OTHER;
        r = VG_(do_syscall)(__NR_ioctl, (RegWord)fd, VKI_TCGETS, (RegWord)&t, 0, 0, 0, 0,
                                   0);
        return sr_isError(r) ? FK_OTHER : FK_TTY;
    }
    default:
        return FK_OTHER;
    }
}

/* ------------------------------------------------------------ classes */

/* amd64 numbers; the Valgrind headers lack a few recent ones */
#define NR_PIDFD_OPEN 434
#define NR_CLOSE_RANGE 436
#define NR_OPENAT2 437
#define NR_FACCESSAT2 439
#define NR_PROCESS_MADVISE 440
#define NR_EPOLL_PWAIT2 441
#define NR_FUTEX_WAITV 449
#define SC_TABLE 512

static UChar sc_class_of[SC_TABLE];
static Bool classes_made;

static void set_class(const UShort *nr, UInt n, UChar c)
{
    UInt i;
    for (i = 0; i < n; i++)
        if (nr[i] < SC_TABLE)
            sc_class_of[nr[i]] = c;
}

static void make_classes(void)
{
    static const UShort io[] = {
        __NR_read, __NR_write, __NR_open, __NR_close, __NR_stat, __NR_fstat, __NR_lstat,
        __NR_poll, __NR_lseek, __NR_ioctl, __NR_pread64, __NR_pwrite64, __NR_readv,
        __NR_writev, __NR_access, __NR_pipe, __NR_select, __NR_dup, __NR_dup2, __NR_sendfile,
        __NR_socket, __NR_connect, __NR_accept, __NR_sendto, __NR_recvfrom, __NR_sendmsg,
        __NR_recvmsg, __NR_shutdown, __NR_bind, __NR_listen, __NR_getsockname,
        __NR_getpeername, __NR_socketpair, __NR_setsockopt, __NR_getsockopt, __NR_fcntl,
        __NR_flock, __NR_fsync, __NR_fdatasync, __NR_truncate, __NR_ftruncate, __NR_getdents,
        __NR_getcwd, __NR_chdir, __NR_fchdir, __NR_rename, __NR_mkdir, __NR_rmdir, __NR_creat,
        __NR_link, __NR_unlink, __NR_symlink, __NR_readlink, __NR_chmod, __NR_fchmod,
        __NR_chown, __NR_fchown, __NR_lchown, __NR_umask, __NR_utime, __NR_mknod,
        __NR_statfs, __NR_fstatfs, __NR_sync, __NR_readahead, __NR_setxattr, __NR_lsetxattr,
        __NR_fsetxattr, __NR_getxattr, __NR_lgetxattr, __NR_fgetxattr, __NR_listxattr,
        __NR_llistxattr, __NR_flistxattr, __NR_removexattr, __NR_lremovexattr,
        __NR_fremovexattr, __NR_io_setup, __NR_io_destroy, __NR_io_getevents, __NR_io_submit,
        __NR_io_cancel, __NR_epoll_create, __NR_getdents64, __NR_fadvise64, __NR_epoll_wait,
        __NR_epoll_ctl, __NR_utimes, __NR_inotify_init, __NR_inotify_add_watch,
        __NR_inotify_rm_watch, __NR_openat, __NR_mkdirat, __NR_mknodat, __NR_fchownat,
        __NR_futimesat, __NR_newfstatat, __NR_unlinkat, __NR_renameat, __NR_linkat,
        __NR_symlinkat, __NR_readlinkat, __NR_fchmodat, __NR_faccessat, __NR_pselect6,
        __NR_ppoll, __NR_splice, __NR_tee, __NR_sync_file_range, __NR_vmsplice,
        __NR_utimensat, __NR_epoll_pwait, __NR_eventfd, __NR_fallocate, __NR_accept4,
        __NR_eventfd2, __NR_epoll_create1, __NR_dup3, __NR_pipe2, __NR_inotify_init1,
        __NR_preadv, __NR_pwritev, __NR_recvmmsg, __NR_name_to_handle_at,
        __NR_open_by_handle_at, __NR_syncfs, __NR_sendmmsg, __NR_renameat2,
        __NR_copy_file_range, __NR_preadv2, __NR_pwritev2, __NR_statx, NR_CLOSE_RANGE,
        NR_OPENAT2, NR_FACCESSAT2, NR_EPOLL_PWAIT2, 425, 426, 427 /* io_uring */};
    static const UShort memory[] = {
        __NR_mmap, __NR_mprotect, __NR_munmap, __NR_brk, __NR_mremap, __NR_msync,
        __NR_mincore, __NR_madvise, __NR_shmget, __NR_shmat, __NR_shmctl, __NR_shmdt,
        __NR_mlock, __NR_munlock, __NR_mlockall, __NR_munlockall, __NR_remap_file_pages,
        __NR_mbind, __NR_set_mempolicy, __NR_get_mempolicy, __NR_migrate_pages,
        __NR_move_pages, __NR_membarrier, __NR_mlock2, __NR_memfd_create,
        __NR_pkey_mprotect, __NR_pkey_alloc, __NR_pkey_free, NR_PROCESS_MADVISE};
    static const UShort signal[] = {
        __NR_rt_sigaction, __NR_rt_sigprocmask, __NR_rt_sigreturn, __NR_pause, __NR_kill,
        __NR_rt_sigpending, __NR_rt_sigtimedwait, __NR_rt_sigqueueinfo, __NR_rt_sigsuspend,
        __NR_sigaltstack, __NR_tkill, __NR_tgkill, __NR_signalfd, __NR_signalfd4,
        __NR_rt_tgsigqueueinfo, 424 /* pidfd_send_signal */};
    static const UShort time[] = {
        __NR_nanosleep, __NR_getitimer, __NR_alarm, __NR_setitimer, __NR_gettimeofday,
        __NR_times, __NR_settimeofday, __NR_adjtimex, __NR_time, __NR_timer_create,
        __NR_timer_settime, __NR_timer_gettime, __NR_timer_getoverrun, __NR_timer_delete,
        __NR_clock_settime, __NR_clock_gettime, __NR_clock_getres, __NR_clock_nanosleep,
        __NR_timerfd_create, __NR_timerfd_settime, __NR_timerfd_gettime, __NR_clock_adjtime};
    static const UShort sync[] = {
        __NR_futex, __NR_set_robust_list, __NR_get_robust_list, __NR_semget, __NR_semop,
        __NR_semctl, __NR_semtimedop, __NR_msgget, __NR_msgsnd, __NR_msgrcv, __NR_msgctl,
        NR_FUTEX_WAITV};
    static const UShort process[] = {
        __NR_sched_yield, __NR_getpid, __NR_clone, __NR_fork, __NR_vfork, __NR_execve,
        __NR_exit, __NR_wait4, __NR_uname, __NR_getrlimit, __NR_getrusage, __NR_sysinfo,
        __NR_ptrace, __NR_getuid, __NR_getgid, __NR_setuid, __NR_setgid, __NR_geteuid,
        __NR_getegid, __NR_setpgid, __NR_getppid, __NR_getpgrp, __NR_setsid, __NR_setreuid,
        __NR_setregid, __NR_getgroups, __NR_setgroups, __NR_setresuid, __NR_getresuid,
        __NR_setresgid, __NR_getresgid, __NR_getpgid, __NR_setfsuid, __NR_setfsgid,
        __NR_getsid, __NR_capget, __NR_capset, __NR_personality, __NR_getpriority,
        __NR_setpriority, __NR_sched_setparam, __NR_sched_getparam, __NR_sched_setscheduler,
        __NR_sched_getscheduler, __NR_sched_get_priority_max, __NR_sched_get_priority_min,
        __NR_sched_rr_get_interval, __NR_prctl, __NR_arch_prctl, __NR_setrlimit,
        __NR_gettid, __NR_sched_setaffinity, __NR_sched_getaffinity, __NR_set_tid_address,
        __NR_exit_group, __NR_waitid, __NR_unshare, __NR_prlimit64, __NR_getcpu,
        __NR_process_vm_readv, __NR_process_vm_writev, __NR_kcmp, __NR_sched_setattr,
        __NR_sched_getattr, __NR_seccomp, __NR_execveat, __NR_rseq, NR_PIDFD_OPEN,
        435 /* clone3 */};
    UInt i;
    for (i = 0; i < SC_TABLE; i++)
        sc_class_of[i] = SC_OTHER;
#define SET(a, c) set_class(a, sizeof a / sizeof a[0], c)
    SET(io, SC_IO);
    SET(memory, SC_MEMORY);
    SET(signal, SC_SIGNAL);
    SET(time, SC_TIME);
    SET(sync, SC_SYNC);
    SET(process, SC_PROCESS);
#undef SET
    classes_made = True;
}

/* ------------------------------------------------------------- wrappers */

enum io_op { OP_NONE, OP_READ, OP_WRITE, OP_MOVE, OP_OTHER_IO };

static enum io_op op_of(UInt sysno)
{
    switch (sysno) {
    case __NR_read: case __NR_pread64: case __NR_readv: case __NR_preadv: case __NR_preadv2:
    case __NR_recvfrom: case __NR_recvmsg: case __NR_recvmmsg:
        return OP_READ;
    case __NR_write: case __NR_pwrite64: case __NR_writev: case __NR_pwritev:
    case __NR_pwritev2: case __NR_sendto: case __NR_sendmsg: case __NR_sendmmsg:
        return OP_WRITE;
    case __NR_sendfile: case __NR_splice: case __NR_tee: case __NR_copy_file_range:
        return OP_MOVE;
    case __NR_open: case __NR_openat: case __NR_creat: case NR_OPENAT2: case __NR_close:
    case __NR_lseek: case __NR_fsync: case __NR_fdatasync: case __NR_sync: case __NR_syncfs:
    case __NR_sync_file_range: case __NR_msync: case __NR_mmap:
        return OP_OTHER_IO;
    default:
        return OP_NONE;
    }
}

/* Bumped at every change of the counts (system calls, signals), and
 * asked by vpmu_io_node_moved: a program's reads between system calls need
 * not copy the units' values again. */
static ULong io_gen, io_gen_written = ~0ULL;
static Bool refresh_pending;

void vpmu_io_pre_syscall(ThreadId tid, UInt sysno, const UWord *args, UInt nArgs)
{
    struct pending *p;
    io_gen++;
    if (!classes_made) {
        make_classes();
        stamps_init();
        pend = VG_(calloc)("hpm.io.pending", VG_N_THREADS, sizeof *pend);
    }
    C(KERNEL_SYSCALLS)++;
    cnt[HPM_K_KERNEL_SYSCALLS_IO - HPM_K_IO_READS +
        (sysno < SC_TABLE ? sc_class_of[sysno] : SC_OTHER)]++;
    if (tid >= VG_N_THREADS)
        return;
    p = &pend[tid];
    p->kind_in = p->kind_out = FK_NONE;
    switch (op_of(sysno)) {
    case OP_READ:
        if (nArgs >= 1)
            p->kind_in = fd_kind(args[0]);
        break;
    case OP_WRITE:
        if (nArgs >= 1)
            p->kind_out = fd_kind(args[0]);
        break;
    case OP_MOVE:
        /* sendfile(out, in, ...); splice/tee/copy_file_range(in, _, out, ...) */
        if (sysno == __NR_sendfile && nArgs >= 2) {
            p->kind_out = fd_kind(args[0]);
            p->kind_in = fd_kind(args[1]);
        } else if (nArgs >= 3) {
            p->kind_in = fd_kind(args[0]);
            p->kind_out = fd_kind(sysno == __NR_tee ? args[1] : args[2]);
        }
        break;
    case OP_OTHER_IO:
        if (sysno == __NR_mmap && nArgs >= 5 && !(args[3] & VKI_MAP_ANONYMOUS))
            p->kind_in = fd_kind(args[4]);
        break;
    case OP_NONE:
        break;
    }
    p->t0 = stamp(); /* last: the clock measures the call, not the fstat */
}

/* The bytes of recvmmsg/sendmmsg's n messages (struct mmsghdr: a 56-byte
 * msghdr, then the unsigned msg_len), read where the program's memory is
 * mapped readable. */
static ULong mmsg_bytes(UWord vec, UWord n)
{
    ULong sum = 0;
    UWord i;
    for (i = 0; i < n && i < 1024; i++) {
        Addr a = vec + i * 64 + 56;
        if (!VG_(am_is_valid_for_client)(a, 4, VKI_PROT_READ))
            break;
        sum += *(const UInt *)a;
    }
    return sum;
}

static void count_read(UChar kind, ULong bytes)
{
    C(IO_READS)++;
    C(IO_READ_BYTES) += bytes;
    if (kind < FK_N) {
        cnt[HPM_K_IO_FILE_READS - HPM_K_IO_READS + 4 * kind]++;
        cnt[HPM_K_IO_FILE_READ_BYTES - HPM_K_IO_READS + 4 * kind] += bytes;
    }
}

static void count_write(UChar kind, ULong bytes)
{
    C(IO_WRITES)++;
    C(IO_WRITE_BYTES) += bytes;
    if (kind < FK_N) {
        cnt[HPM_K_IO_FILE_WRITES - HPM_K_IO_READS + 4 * kind]++;
        cnt[HPM_K_IO_FILE_WRITE_BYTES - HPM_K_IO_READS + 4 * kind] += bytes;
    }
}

void vpmu_io_post_syscall(ThreadId tid, UInt sysno, const UWord *args, UInt nArgs, SysRes res)
{
    struct pending *p;
    enum io_op op = op_of(sysno);
    Bool ok = !sr_isError(res);
    UWord r = ok ? sr_Res(res) : 0;
    ULong dt;
    io_gen++;
    if (!pend || tid >= VG_N_THREADS)
        return;
    p = &pend[tid];
    /* a post without its pre (none known, but a thread's first return
     * from clone would be one) measures nothing */
    dt = p->t0 ? stamp() - p->t0 : 0;
    p->t0 = 0;
    C(KERNEL_HOST_SYSCALL_NS) += dt;
    if (op == OP_NONE)
        return;
    /* an mmap's time is mostly Valgrind's own (it reads the debug info of
     * a mapped object): no I/O wait of the program */
    if (sysno != __NR_mmap)
        C(IO_HOST_NS) += dt;
    switch (op) {
    case OP_READ:
        C(IO_READ_HOST_NS) += dt;
        if (!ok)
            C(IO_READ_ERRORS)++;
        else
            count_read(p->kind_in, sysno == __NR_recvmmsg && nArgs >= 2 ? mmsg_bytes(args[1], r)
                                                                       : (ULong)r);
        break;
    case OP_WRITE:
        C(IO_WRITE_HOST_NS) += dt;
        if (!ok)
            C(IO_WRITE_ERRORS)++;
        else
            count_write(p->kind_out, sysno == __NR_sendmmsg && nArgs >= 2
                                         ? mmsg_bytes(args[1], r)
                                         : (ULong)r);
        break;
    case OP_MOVE:
        C(IO_READ_HOST_NS) += dt;
        C(IO_WRITE_HOST_NS) += dt;
        if (!ok) {
            C(IO_READ_ERRORS)++;
            C(IO_WRITE_ERRORS)++;
        } else {
            count_read(p->kind_in, r);
            count_write(p->kind_out, r);
        }
        break;
    case OP_OTHER_IO:
        switch (sysno) {
        case __NR_open: case __NR_openat: case __NR_creat: case NR_OPENAT2:
            if (ok)
                C(IO_OPENS)++;
            else
                C(IO_OPEN_ERRORS)++;
            break;
        case __NR_close:
            C(IO_CLOSES) += ok;
            break;
        case __NR_lseek:
            C(IO_SEEKS) += ok;
            break;
        case __NR_mmap:
            C(IO_FILE_MMAPS) += ok && p->kind_in == FK_FILE;
            break;
        default: /* the syncs */
            C(IO_SYNCS) += ok;
            break;
        }
        break;
    case OP_NONE:
        break;
    }
}

void vpmu_io_signal(ThreadId tid, Int signo)
{
    (void)tid;
    (void)signo;
    io_gen++;
    C(KERNEL_SIGNALS)++;
}

/* ------------------------------------------------------------- reading */

/* getrusage made monotonic: a forked child's starts again from zero */
static ULong ru_last[5], ru_acc[5];

static void ru_add(UInt i, ULong v)
{
    ru_acc[i] += v >= ru_last[i] ? v - ru_last[i] : v;
    ru_last[i] = v;
}

Bool vpmu_io_node_moved(void)
{
    if (host_refresh_due())
        refresh_pending = True; /* done by the next vpmu_io_node_values */
    return refresh_pending || io_gen != io_gen_written;
}

void vpmu_io_exact_counts(ULong *c)
{
    UInt k;
    /* the catalog's host-measured kinds (the host's clock and getrusage:
     * in stamp units or read at flushes, not per call) are left out */
    for (k = 0; k < N_IO_KINDS; k++)
        c[k] = hpm_catalog_kind(HPM_K_IO_READS + k)->source == HPM_SRC_HOST ? 0 : cnt[k];
}

void vpmu_io_node_values(ULong *nv, Bool ask_host)
{
    struct vki_rusage ru;
    UInt k;
    Bool refresh = host_refresh_due() || refresh_pending;
    refresh_pending = False;
    io_gen_written = io_gen;
    if (refresh && stamps_made && use_tsc)
        rate_measure();
    if (refresh && ask_host &&
        !sr_isError(VG_(do_syscall)(__NR_getrusage, VKI_RUSAGE_SELF, (RegWord)&ru, 0, 0, 0, 0,
                                    0, 0))) {
        ru_add(0, (ULong)ru.ru_stime.tv_sec * 1000000000ULL + (ULong)ru.ru_stime.tv_usec * 1000);
        ru_add(1, (ULong)ru.ru_minflt);
        ru_add(2, (ULong)ru.ru_majflt);
        ru_add(3, (ULong)ru.ru_nvcsw);
        ru_add(4, (ULong)ru.ru_nivcsw);
    }
    C(KERNEL_HOST_SYSTEM_NS) = ru_acc[0];
    C(KERNEL_HOST_MINOR_FAULTS) = ru_acc[1];
    C(KERNEL_HOST_MAJOR_FAULTS) = ru_acc[2];
    C(KERNEL_HOST_VOL_CSWITCHES) = ru_acc[3];
    C(KERNEL_HOST_INVOL_CSWITCHES) = ru_acc[4];
    for (k = 0; k < N_IO_KINDS; k++)
        nv[HPM_K_IO_READS - HPM_K_CORE_COUNT + k] = cnt[k];
    /* the host times are kept in stamp units; converted again only when
     * they or the rate moved (a 128-bit division each: every flush comes
     * here, a program's reads included) */
    if (stamps_made) {
        static const UInt timed[] = {HPM_K_IO_HOST_NS, HPM_K_IO_READ_HOST_NS,
                                     HPM_K_IO_WRITE_HOST_NS, HPM_K_KERNEL_HOST_SYSCALL_NS};
        static ULong in[sizeof timed / sizeof timed[0]], out[sizeof timed / sizeof timed[0]];
        static ULong num, den;
        Bool rate_moved = num != rate_num || den != rate_den;
        num = rate_num;
        den = rate_den;
        for (k = 0; k < sizeof timed / sizeof timed[0]; k++) {
            ULong v = cnt[timed[k] - HPM_K_IO_READS];
            if (rate_moved || v != in[k]) {
                in[k] = v;
                out[k] = stamp_ns(v);
            }
            nv[timed[k] - HPM_K_CORE_COUNT] = out[k];
        }
    }
}
