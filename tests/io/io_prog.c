/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * io_prog.c - a program whose I/O the virtual PMU's I/O and kernel units
 * must count exactly (tests/io). Run under `hpm count` (every event the
 * machine provides: the I/O unit's codes are programmed):
 *
 *   io_prog DIR [hostile]
 *
 * Each part does its I/O between two reads of the node's UPC counts (client
 * requests: no system call of their own) and tallies what the kernel
 * answered each of its calls; the counts' deltas must equal the tallies,
 * per descriptor kind: a regular file in DIR, a pipe, sockets (stream and
 * datagram socketpairs), a terminal (a pseudo-terminal from openpty; said
 * and skipped when the system has none), plus opens, closes, seeks, syncs,
 * file mmaps and delivered signals. Some parts also check absolute numbers
 * known in advance (bytes written to the file, ...), so a tally and a count
 * that were both wrong the same way would still fail.
 *
 * "hostile": bad descriptors, bad buffer pointers, a huge count over a
 * buffer followed by an inaccessible page, bad mmsg vectors: the tool must
 * not crash, failed calls count as errors with no bytes, and a partial
 * write counts the bytes the kernel took.
 *
 * Prints "io_prog: ok" and exits 0, or says what differs and exits 1;
 * exits 77 when not under the virtual PMU.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <termios.h>
#include <unistd.h>

#include "catalog.h"
#include "hpm_client.h"

static uint32_t codes[HPM_CAT_CODES];
static long n_codes;
static int pos_of[HPM_K_COUNT];
static int failures;

typedef uint64_t snap_t[HPM_K_COUNT];

static void snap(snap_t v)
{
    static uint64_t buf[HPM_CAT_CODES];
    unsigned k;
    if (HPM_VPMU_READ_EVENTS(buf, n_codes, HPM_VPMU_SCOPE_NODE) != n_codes) {
        fprintf(stderr, "io_prog: reading the counts failed\n");
        exit(1);
    }
    for (k = 0; k < HPM_K_COUNT; k++)
        v[k] = pos_of[k] >= 0 ? buf[pos_of[k]] : 0;
}

/* what the program saw the kernel do, per kind (HPM_K_* deltas) */
static int64_t want[HPM_K_COUNT];

enum dk { D_FILE, D_PIPE, D_SOCK, D_TTY };

static void rd(enum dk d, ssize_t r)
{
    if (r < 0) {
        want[HPM_K_IO_READ_ERRORS]++;
        return;
    }
    want[HPM_K_IO_READS]++;
    want[HPM_K_IO_READ_BYTES] += r;
    want[HPM_K_IO_FILE_READS + 4 * d]++;
    want[HPM_K_IO_FILE_READ_BYTES + 4 * d] += r;
}

static void wr(enum dk d, ssize_t r)
{
    if (r < 0) {
        want[HPM_K_IO_WRITE_ERRORS]++;
        return;
    }
    want[HPM_K_IO_WRITES]++;
    want[HPM_K_IO_WRITE_BYTES] += r;
    want[HPM_K_IO_FILE_WRITES + 4 * d]++;
    want[HPM_K_IO_FILE_WRITE_BYTES + 4 * d] += r;
}

/* Every exact I/O kind's delta must be what was tallied (0 for the rest). */
static void check(const char *part, const snap_t a, const snap_t b)
{
    unsigned k;
    for (k = HPM_K_IO_READS; k <= HPM_K_IO_FILE_MMAPS; k++) {
        int64_t got = (int64_t)(b[k] - a[k]);
        if (got != want[k]) {
            fprintf(stderr, "FAIL %s: %s = %lld, expected %lld\n", part,
                    hpm_catalog_kind(k)->name, (long long)got, (long long)want[k]);
            failures++;
        }
    }
    memset(want, 0, sizeof want);
}

static void expect_eq(const char *what, long long got, long long exp)
{
    if (got != exp) {
        fprintf(stderr, "FAIL %s: %lld, expected %lld\n", what, got, exp);
        failures++;
    }
}

static char buf[65536], big[65536];
/* a bad buffer address the compiler cannot see through */
static void *volatile bad_ptr = (void *)1;

static void part_file(const char *dir)
{
    snap_t a, b;
    char path[4096];
    struct iovec wv[2] = {{buf, 10}, {buf + 10, 20}}, rv[2] = {{big, 5}, {big + 5, 6}};
    int fd;
    ssize_t r, wbytes = 0, rbytes = 0;
    void *m;
    snprintf(path, sizeof path, "%s/io_prog.%d", dir, (int)getpid());
    snap(a);
    fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
    if (fd < 0) {
        perror(path);
        exit(1);
    }
    want[HPM_K_IO_OPENS]++;
    wr(D_FILE, r = write(fd, buf, 1000)), wbytes += r;
    wr(D_FILE, r = write(fd, buf, 2345)), wbytes += r;
    wr(D_FILE, r = pwrite(fd, buf, 100, 3345)), wbytes += r;
    wr(D_FILE, r = writev(fd, wv, 2)), wbytes += r;
    want[HPM_K_IO_SYNCS] += (fsync(fd) == 0) + (fdatasync(fd) == 0);
    want[HPM_K_IO_SEEKS] += lseek(fd, 0, SEEK_SET) == 0;
    rd(D_FILE, r = read(fd, big, sizeof big)), rbytes += r;
    rd(D_FILE, r = pread(fd, big, 100, 10)), rbytes += r;
    want[HPM_K_IO_SEEKS] += lseek(fd, 0, SEEK_SET) == 0;
    rd(D_FILE, r = readv(fd, rv, 2)), rbytes += r;
    m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
    want[HPM_K_IO_FILE_MMAPS] += m != MAP_FAILED;
    if (m != MAP_FAILED)
        munmap(m, 4096);
    want[HPM_K_IO_CLOSES] += close(fd) == 0;
    snap(b);
    unlink(path);
    expect_eq("file: bytes written", wbytes, 1000 + 2345 + 100 + 30);
    expect_eq("file: bytes read", rbytes, 3445 + 100 + 11);
    expect_eq("file: IO_FILE_WRITE_BYTES", (long long)(b[HPM_K_IO_FILE_WRITE_BYTES] -
                                                       a[HPM_K_IO_FILE_WRITE_BYTES]), 3475);
    check("file", a, b);
}

static void part_pipe(void)
{
    snap_t a, b;
    int p[2];
    struct iovec v = {buf, 3};
    snap(a);
    if (pipe(p) != 0) {
        perror("pipe");
        exit(1);
    }
    wr(D_PIPE, write(p[1], buf, 777));
    rd(D_PIPE, read(p[0], big, sizeof big));
    wr(D_PIPE, writev(p[1], &v, 1));
    rd(D_PIPE, read(p[0], big, sizeof big));
    want[HPM_K_IO_CLOSES] += (close(p[0]) == 0) + (close(p[1]) == 0);
    snap(b);
    expect_eq("pipe: IO_PIPE_READ_BYTES",
              (long long)(b[HPM_K_IO_PIPE_READ_BYTES] - a[HPM_K_IO_PIPE_READ_BYTES]), 780);
    check("pipe", a, b);
}

static void part_socket(void)
{
    snap_t a, b;
    int s[2], d[2];
    struct iovec v[2] = {{buf, 7}, {buf + 7, 8}}, rv = {big, sizeof big};
    struct msghdr mh = {0}, rh = {0};
    struct mmsghdr mm[2], rm[2];
    struct iovec mv[2] = {{buf, 11}, {buf, 22}}, mrv[2] = {{big, 100}, {big + 100, 100}};
    int n;
    mh.msg_iov = v;
    mh.msg_iovlen = 2;
    rh.msg_iov = &rv;
    rh.msg_iovlen = 1;
    memset(mm, 0, sizeof mm);
    memset(rm, 0, sizeof rm);
    mm[0].msg_hdr.msg_iov = &mv[0];
    mm[1].msg_hdr.msg_iov = &mv[1];
    rm[0].msg_hdr.msg_iov = &mrv[0];
    rm[1].msg_hdr.msg_iov = &mrv[1];
    mm[0].msg_hdr.msg_iovlen = mm[1].msg_hdr.msg_iovlen = 1;
    rm[0].msg_hdr.msg_iovlen = rm[1].msg_hdr.msg_iovlen = 1;
    snap(a);
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, s) != 0 ||
        socketpair(AF_UNIX, SOCK_DGRAM, 0, d) != 0) {
        perror("socketpair");
        exit(1);
    }
    wr(D_SOCK, send(s[0], buf, 500, 0));
    rd(D_SOCK, recv(s[1], big, sizeof big, 0));
    wr(D_SOCK, write(s[0], buf, 60));
    rd(D_SOCK, read(s[1], big, sizeof big));
    wr(D_SOCK, sendmsg(s[0], &mh, 0));
    rd(D_SOCK, recvmsg(s[1], &rh, 0));
    /* one call each, the bytes of every message */
    n = sendmmsg(d[0], mm, 2, 0);
    if (n < 0)
        want[HPM_K_IO_WRITE_ERRORS]++;
    else
        wr(D_SOCK, (ssize_t)(n >= 1 ? mm[0].msg_len : 0) + (n >= 2 ? mm[1].msg_len : 0));
    n = recvmmsg(d[1], rm, 2, 0, NULL);
    if (n < 0)
        want[HPM_K_IO_READ_ERRORS]++;
    else
        rd(D_SOCK, (ssize_t)(n >= 1 ? rm[0].msg_len : 0) + (n >= 2 ? rm[1].msg_len : 0));
    want[HPM_K_IO_CLOSES] += (close(s[0]) == 0) + (close(s[1]) == 0) + (close(d[0]) == 0) +
                             (close(d[1]) == 0);
    snap(b);
    expect_eq("socket: IO_SOCK_WRITE_BYTES",
              (long long)(b[HPM_K_IO_SOCK_WRITE_BYTES] - a[HPM_K_IO_SOCK_WRITE_BYTES]),
              500 + 60 + 15 + 33);
    check("socket", a, b);
}

/* A pseudo-terminal in raw mode: bytes written to one side are read from
 * the other (in as many reads as the line discipline hands them over). */
static int part_tty(void)
{
    snap_t a, b;
    struct termios t;
    int m, s;
    ssize_t r, got;
    if (openpty(&m, &s, NULL, NULL, NULL) != 0) {
        printf("io_prog: terminal part skipped: openpty: %s\n", strerror(errno));
        return 0;
    }
    cfmakeraw(&t);
    if (tcgetattr(s, &t) == 0) {
        cfmakeraw(&t);
        tcsetattr(s, TCSANOW, &t);
    }
    snap(a);
    wr(D_TTY, write(s, buf, 123));
    for (got = 0; got < 123; got += r) {
        rd(D_TTY, r = read(m, big, sizeof big));
        if (r <= 0)
            break;
    }
    wr(D_TTY, write(m, buf, 45));
    for (got = 0; got < 45; got += r) {
        rd(D_TTY, r = read(s, big, sizeof big));
        if (r <= 0)
            break;
    }
    want[HPM_K_IO_CLOSES] += (close(m) == 0) + (close(s) == 0);
    snap(b);
    expect_eq("tty: IO_TTY_WRITE_BYTES",
              (long long)(b[HPM_K_IO_TTY_WRITE_BYTES] - a[HPM_K_IO_TTY_WRITE_BYTES]), 168);
    expect_eq("tty: IO_TTY_READ_BYTES",
              (long long)(b[HPM_K_IO_TTY_READ_BYTES] - a[HPM_K_IO_TTY_READ_BYTES]), 168);
    check("tty", a, b);
    return 1;
}

static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
    (void)sig;
    handled++;
}

static void part_signals(void)
{
    snap_t a, b;
    int i;
    signal(SIGUSR1, on_usr1);
    snap(a);
    for (i = 0; i < 5; i++)
        raise(SIGUSR1);
    snap(b);
    expect_eq("signals: handled", handled, 5);
    expect_eq("signals: KERNEL_SIGNALS", (long long)(b[HPM_K_KERNEL_SIGNALS] -
                                                     a[HPM_K_KERNEL_SIGNALS]), 5);
}

/* One cheap system call between two reads, many times: nothing of the
 * node but its cycles and the kernel unit moves in between (no miss), so
 * a read that flushes the cycles alone must still see the call (the units'
 * generation, vpmu_node.c). Each pair of reads must differ by exactly one
 * system call; the second read of a pair, with no call before it, by none. */
static void part_quiet_syscalls(void)
{
    snap_t a, b, c;
    int i, bad = 0;
    for (i = 0; i < 200; i++) {
        snap(a);
        (void)getppid();
        snap(b);
        snap(c);
        bad += b[HPM_K_KERNEL_SYSCALLS] - a[HPM_K_KERNEL_SYSCALLS] != 1 ||
               b[HPM_K_KERNEL_SYSCALLS_PROCESS] - a[HPM_K_KERNEL_SYSCALLS_PROCESS] != 1 ||
               c[HPM_K_KERNEL_SYSCALLS] != b[HPM_K_KERNEL_SYSCALLS];
    }
    expect_eq("reads around one getppid that saw other than 1 call", bad, 0);
}

static void part_hostile(const char *dir)
{
    snap_t a, b;
    char path[4096];
    struct iovec bad = {bad_ptr, 10};
    int fd, p[2];
    long page = sysconf(_SC_PAGESIZE);
    char *two = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
    if (two == MAP_FAILED || mprotect(two + page, (size_t)page, PROT_NONE) != 0 ||
        pipe2(p, O_NONBLOCK) != 0) {
        perror("hostile set-up");
        exit(1);
    }
    snprintf(path, sizeof path, "%s/io_prog_h.%d", dir, (int)getpid());
    fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
    if (fd < 0) {
        perror(path);
        exit(1);
    }
    /* data to read, so that a bad buffer faults (at EOF nothing is copied) */
    if (write(fd, buf, 100) != 100 || lseek(fd, 0, SEEK_SET) != 0) {
        perror("hostile set-up");
        exit(1);
    }
    snap(a);
    rd(D_FILE, read(-1, big, 10));          /* EBADF */
    wr(D_FILE, write(99999, buf, 10));      /* EBADF */
    rd(D_FILE, read(fd, bad_ptr, 10));    /* EFAULT */
    wr(D_PIPE, write(p[1], bad_ptr, 10)); /* EFAULT */
    rd(D_PIPE, read(p[0], big, 10));        /* EAGAIN: empty */
    rd(D_FILE, readv(fd, &bad, 1));         /* EFAULT */
    /* a huge count over one accessible page: the kernel takes that page */
    wr(D_FILE, write(fd, two, (size_t)-1 >> 1));
    want[HPM_K_IO_READ_ERRORS]++;
    if (recvmmsg(p[0], bad_ptr, 2, MSG_DONTWAIT, NULL) >= 0)
        failures++, fprintf(stderr, "FAIL hostile: recvmmsg on a pipe succeeded\n");
    want[HPM_K_IO_OPEN_ERRORS]++;
    if (open((const char *)bad_ptr, O_RDONLY) >= 0)
        failures++, fprintf(stderr, "FAIL hostile: open of a bad pointer succeeded\n");
    want[HPM_K_IO_CLOSES] += close(-5) == 0;
    snap(b);
    close(fd);
    close(p[0]);
    close(p[1]);
    unlink(path);
    munmap(two, 2 * (size_t)page);
    check("hostile", a, b);
}

int main(int argc, char **argv)
{
    unsigned k;
    int i;
    if (argc < 2) {
        fprintf(stderr, "usage: io_prog DIR [hostile]\n");
        return 2;
    }
    if (HPM_VPMU_IS_RUNNING() <= 0) {
        fprintf(stderr, "io_prog: not under the hpm virtual PMU\n");
        return 77;
    }
    n_codes = HPM_VPMU_EVENTS(codes, HPM_CAT_CODES);
    for (k = 0; k < HPM_K_COUNT; k++)
        pos_of[k] = -1;
    for (i = 0; i < n_codes; i++) {
        unsigned kind;
        int core;
        if (hpm_catalog_decode(codes[i], &kind, &core) == 0 && core < 0)
            pos_of[kind] = i;
    }
    for (k = HPM_K_IO_READS; k <= HPM_K_KERNEL_SIGNALS; k++)
        if (pos_of[k] < 0) {
            fprintf(stderr, "io_prog: %s is not counted (run under hpm count without -e)\n",
                    hpm_catalog_kind(k)->name);
            return 1;
        }
    memset(buf, 'x', sizeof buf);
    if (argc > 2 && strcmp(argv[2], "hostile") == 0) {
        part_hostile(argv[1]);
    } else {
        part_file(argv[1]);
        part_pipe();
        part_socket();
        if (part_tty())
            printf("io_prog: terminal part counted\n");
        part_signals();
        part_quiet_syscalls();
    }
    if (failures) {
        fprintf(stderr, "io_prog: %d failure(s)\n", failures);
        return 1;
    }
    printf("io_prog: ok\n");
    return 0;
}
