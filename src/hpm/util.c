/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * util.c - the small helpers every file of libhpm may use: bounded string
 * copy, the name compare, gettid, the status texts (hpm_strerror) and the
 * host's clocks (hpm_clock_ns).
 *
 * A leaf: it calls nothing else of libhpm, so any file can use it without
 * making a call cycle (tests/common/no_cycles.sh checks the folder).
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "catalog.h"
#include "hpm_client.h"
#include "hpm_internal.h"

void hpm__copy(char *dst, size_t len, const char *src)
{
    size_t n = strlen(src);
    if (len == 0)
        return;
    if (n >= len)
        n = len - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* The catalog's compare (the one case-insensitive compare of hpm), for the
 * names of every component */
int hpm__strcaseeq(const char *a, const char *b)
{
    return a && b && hpm_catalog_name_eq(a, strlen(a), b);
}

pid_t hpm__gettid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

/* Indexed by -status. */
static const char *const status_text[] = {
    [0] = "success",
    [-HPM_EINVAL] = "invalid argument",
    [-HPM_ENOMEM] = "out of memory",
    [-HPM_ESYS] = "a system call failed",
    [-HPM_ENOINIT] = "libhpm is not initialised (call hpm_init)",
    [-HPM_ENOEVENT] = "no such event",
    [-HPM_ENOCOMP] = "no such component, or it is disabled here",
    [-HPM_ECONFLICT] = "the events cannot be counted together (another component's event, "
                       "hardware constraints, or another set of this component already "
                       "running on this thread)",
    [-HPM_ECOUNTERS] = "no counter left for this event (try multiplexing)",
    [-HPM_ENOSET] = "no such event set",
    [-HPM_ERUNNING] = "the event set is running: stop it first",
    [-HPM_ENOTRUNNING] = "the event set is not running",
    [-HPM_EEXISTS] = "the event is already in the set",
    [-HPM_ENOTSUP] = "the component cannot do this (domain, attach, inherit or overflow)",
    [-HPM_EPERM] = "the kernel refused (perf_event_paranoid or ptrace permissions)",
    [-HPM_ENOREGION] = "region end without a matching begin",
    [-HPM_EBUG] = "internal error: a bug in libhpm",
};

HPM_EXPORT const char *hpm_strerror(int status)
{
    if (status > 0 || status < HPM_E_LAST)
        return "unknown error";
    return status_text[-status];
}

/* How the host's clocks are read (clock_by): asked once, since under an
 * older tool a request would take Valgrind's slow path at every call only
 * to be refused. */
enum {
    CLOCK_BY_UNKNOWN,
    CLOCK_BY_REQUEST, /* the tool answers HPM_VPMU_CLOCK (interface 8) */
    CLOCK_BY_SYSCALL, /* no tool: clock_gettime (the vDSO) */
    CLOCK_BY_TSC      /* CLOCK_MONOTONIC from the program's own TSC reads,
                       * the other clocks by request (interface 10) */
};
static int clock_by;

/* CLOCK_MONOTONIC under the tool, per thread: the tool's sync
 * (HPM_VPMU_CLOCK_SYNC) gives a TSC read and the clock's nanoseconds read
 * together, the nanoseconds per tick and the ticks the pair is used for
 * (1 ms); in between the clock is interpolated from the program's rdtsc,
 * which Valgrind answers with the host's TSC from a helper: no request,
 * no system call. Within about a microsecond of CLOCK_MONOTONIC (the
 * pair's skew, and the rate's error over one window); never backwards in
 * a thread (last), as the clock itself. A signal handler's read in the
 * middle of its thread's sync can mix two syncs' fields for the rest of
 * that window: an error of the handler's duration, held monotonic. */
struct tsc_clock {
    uint64_t tsc, ns, mult, window, last;
    /* the same window in cycles of clock_mhz (hpm_clock_cycles): the
     * pair's reading, the cycles per tick (32.32), the ticks it holds for
     * (0: none, or the rate or the pair changed since it was made), the
     * last reading given and the rate's generation it was given at */
    int64_t cyc;
    uint64_t cmult, cwindow;
    int64_t clast;
    unsigned cgen;
};
static __thread struct tsc_clock tsc_clock __attribute__((tls_model("initial-exec")));

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_TSC 1
static inline uint64_t tsc_read(void)
{
    return __rdtsc();
}
#else
#define HAVE_TSC 0
static inline uint64_t tsc_read(void)
{
    return 0;
}
#endif

/* 1: the thread's next window is in c; 0: the tool gave none */
static __attribute__((noinline)) int tsc_clock_sync(struct tsc_clock *c)
{
    uint64_t b[4];
    if (HPM_VPMU_CLOCK_SYNC(b) != 0 || b[3] == 0)
        return 0;
    c->cwindow = 0; /* made again from the new pair (clock_cycles_other) */
    c->window = 0;  /* a handler's read until the fields agree: a sync of its own */
    c->tsc = b[0];
    c->ns = b[1];
    c->mult = b[2];
    c->window = b[3];
    return 1;
}

static __attribute__((noinline, cold)) int clock_by_ask(void)
{
    long v = HPM_VPMU_IS_RUNNING();
    int by = CLOCK_BY_SYSCALL;
    /* the asking thread's first window comes with the answer */
    if (v >= 10 && HAVE_TSC && tsc_clock_sync(&tsc_clock))
        by = CLOCK_BY_TSC;
    else if (v >= 8)
        by = CLOCK_BY_REQUEST;
    __atomic_store_n(&clock_by, by, __ATOMIC_RELAXED);
    return by;
}

/* The window's reading of d ticks past its pair, held monotonic. */
static inline int64_t tsc_window_ns(struct tsc_clock *c, uint64_t d)
{
    uint64_t ns = c->ns + (d * c->mult >> 32); /* d < 1 ms of ticks: no overflow */
    if (ns < c->last)
        ns = c->last;
    c->last = ns;
    return (int64_t)ns;
}

/* CLOCK_MONOTONIC past the thread's TSC window (the first read, a window
 * past, or a TSC behind the pair): a sync, then the window; -1 where the
 * tool gave none */
static __attribute__((noinline)) int64_t tsc_clock_ns_sync(struct tsc_clock *c)
{
    uint64_t d;
    if (!tsc_clock_sync(c))
        return -1;
    d = tsc_read() - c->tsc;
    if (d >= c->window)
        d = 0;
    return tsc_window_ns(c, d);
}

/* hpm_clock_ns but the TSC window's common case: the requests, the sync
 * and clock_gettime, with their stack frame */
static __attribute__((noinline)) int64_t clock_ns_other(int clock, int by)
{
    struct timespec ts;
    int64_t ns = -1;
    if (by == CLOCK_BY_UNKNOWN)
        by = clock_by_ask();
    if (by == CLOCK_BY_TSC && clock == CLOCK_MONOTONIC)
        ns = tsc_clock_ns_sync(&tsc_clock);
    if (ns < 0 && (by == CLOCK_BY_REQUEST || by == CLOCK_BY_TSC))
        ns = HPM_VPMU_CLOCK(clock);
    if (ns >= 0)
        return ns;
    if (clock_gettime((clockid_t)clock, &ts) != 0)
        return 0;
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* CLOCK_MONOTONIC within the thread's TSC window is the common case under
 * the tool (PAPI_get_real_cyc: twice per iteration of PAPI's cost tools'
 * timing loops, each instruction added to the program's count and run
 * through the models): no frame, no request, nothing else tested. */
HPM_EXPORT int64_t hpm_clock_ns(int clock)
{
    int by = __atomic_load_n(&clock_by, __ATOMIC_RELAXED);
    if (by == CLOCK_BY_TSC && clock == CLOCK_MONOTONIC) {
        struct tsc_clock *c = &tsc_clock;
        uint64_t d = tsc_read() - c->tsc;
        if (d < c->window)
            return tsc_window_ns(c, d);
    }
    return clock_ns_other(clock, by);
}

/* hpm_clock_cycles' rate in MHz, as the bits of a double (read and written
 * whole by any thread), and its generation: a thread's readings restart
 * their monotonic hold at a new rate */
static uint64_t clock_mhz_bits = 0x408f400000000000ull; /* 1000.0 */
static unsigned clock_mhz_gen;

static double clock_mhz(void)
{
    uint64_t b = __atomic_load_n(&clock_mhz_bits, __ATOMIC_RELAXED);
    double mhz;
    memcpy(&mhz, &b, sizeof mhz);
    return mhz;
}

HPM_EXPORT void hpm_clock_set_mhz(double mhz)
{
    uint64_t b;
    /* up to 1 THz: a window's 1 ms of ticks times its cycles per tick
     * stays within 64 bits */
    if (!(mhz > 0 && mhz <= 1e6))
        mhz = 1000.0;
    memcpy(&b, &mhz, sizeof b);
    __atomic_store_n(&clock_mhz_bits, b, __ATOMIC_RELAXED);
    __atomic_add_fetch(&clock_mhz_gen, 1, __ATOMIC_RELEASE);
    tsc_clock.cwindow = 0; /* this thread's next reading is at the new rate */
}

/* hpm_clock_cycles but within the thread's cycle window: the nanoseconds'
 * reading scaled as it always is (so the two clocks agree), and the
 * window made again from the thread's TSC pair where there is one */
static __attribute__((noinline)) int64_t clock_cycles_other(void)
{
    struct tsc_clock *c = &tsc_clock;
    unsigned gen = __atomic_load_n(&clock_mhz_gen, __ATOMIC_ACQUIRE);
    double mhz = clock_mhz();
    int64_t cyc = (int64_t)((double)hpm_clock_ns(CLOCK_MONOTONIC) * mhz / 1000.0);
    c->cwindow = 0;
    if (c->cgen != gen) {
        c->clast = 0;
        c->cgen = gen;
    }
    if (__atomic_load_n(&clock_by, __ATOMIC_RELAXED) == CLOCK_BY_TSC && c->window) {
        c->cyc = (int64_t)((double)c->ns * mhz / 1000.0);
        c->cmult = (uint64_t)((double)c->mult * mhz / 1000.0);
        __atomic_signal_fence(__ATOMIC_SEQ_CST); /* a handler sees the window last */
        c->cwindow = c->window;
    }
    if (cyc < c->clast)
        cyc = c->clast;
    c->clast = cyc;
    return cyc;
}

/* Within the thread's cycle window (the common case under the tool:
 * PAPI_get_real_cyc, twice per iteration of PAPI's cost tools' loops) the
 * TSC's ticks scaled to cycles at once: no frame, no call, no floating
 * point, nothing else tested. */
HPM_EXPORT int64_t hpm_clock_cycles(void)
{
    struct tsc_clock *c = &tsc_clock;
    uint64_t d = tsc_read() - c->tsc;
    if (d < c->cwindow) {
        int64_t cyc = c->cyc + (int64_t)(d * c->cmult >> 32); /* d < 1 ms of ticks */
        if (cyc < c->clast)
            cyc = c->clast;
        c->clast = cyc;
        return cyc;
    }
    return clock_cycles_other();
}
