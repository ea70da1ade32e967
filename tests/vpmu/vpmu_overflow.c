/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_overflow - overflow interrupts (HPM_VPMU_OVERFLOW), per-thread kind
 * reads (HPM_VPMU_READ_KINDS) and the machine request (HPM_VPMU_MACHINE).
 *
 * The loop's instruction count is read back exactly, so the number of
 * overflow signals is known: one per threshold passed (the last one may
 * come after the read). The tool queues each signal from the process itself
 * (SI_QUEUE) with the address of the instruction that passed the threshold
 * (si_ptr) and delivers it at the next superblock boundary: both it and the
 * interrupted PC must lie in the loop. An armed interrupt is the process's:
 * a forked child's tool starts unarmed, and the child arms its own.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "catalog.h"
#include "machine.h"
#include "vpmu_test.h"

#define THRESHOLD 100000
static volatile long hits, not_queued;
static volatile uintptr_t pc_lo = UINTPTR_MAX, pc_hi, at_lo = UINTPTR_MAX, at_hi;

static void on_overflow(int sig, siginfo_t *si, void *uc)
{
    uintptr_t pc = (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
    uintptr_t at = (uintptr_t)si->si_ptr;
    (void)sig;
    hits++;
    if (si->si_code != SI_QUEUE || si->si_pid != getpid())
        not_queued++;
    if (pc < pc_lo)
        pc_lo = pc;
    if (pc > pc_hi)
        pc_hi = pc;
    if (at < at_lo)
        at_lo = at;
    if (at > at_hi)
        at_hi = at;
}

/* noipa: a pure function could be moved across the client requests
 * (clang has no noipa: optnone keeps it from learning that the function is
 * pure, noinline from taking it apart) */
#ifdef __clang__
#define NOIPA __attribute__((noinline, optnone))
#else
#define NOIPA __attribute__((noipa))
#endif
static volatile double sink;
NOIPA static void work(long n)
{
    double x = 0;
    for (long i = 0; i < n; i++)
        x += (double)i * 0.5;
    sink = x;
}
NOIPA static void work_end(void) {}

static uint64_t kind(int k)
{
    uint64_t v[HPM_K_CORE_COUNT];
    return HPM_VPMU_READ_KINDS(v, HPM_K_CORE_COUNT) == HPM_K_CORE_COUNT ? v[k] : ~0ull;
}

/* Arms instructions, runs work(300000) and disarms: the signals it got are
 * those its instructions passed, within one. */
static void expect_hits_of_work(int sig, const char *who)
{
    uint64_t i0, i1;
    long expect;
    hits = 0;
    VPMU_EXPECT(HPM_VPMU_OVERFLOW(HPM_K_INSTRUCTIONS, THRESHOLD, sig) == 0, "%s: arm", who);
    i0 = kind(HPM_K_INSTRUCTIONS);
    work(300000);
    i1 = kind(HPM_K_INSTRUCTIONS);
    VPMU_EXPECT(HPM_VPMU_OVERFLOW(HPM_K_INSTRUCTIONS, 0, sig) == 0, "%s: disarm", who);
    expect = (long)((i1 - i0) / THRESHOLD);
    VPMU_EXPECT(expect > 0 && hits >= expect - 1 && hits <= expect + 1,
                "%s: hits %ld, expected %ld (%" PRIu64 " instructions)", who, hits, expect,
                i1 - i0);
}

/* The parent forks while armed: the child gets no signal for its work
 * until it arms, then its own; the parent's arming goes on. */
static void fork_armed(int sig)
{
    int status = 0;
    pid_t pid;
    VPMU_EXPECT(HPM_VPMU_OVERFLOW(HPM_K_INSTRUCTIONS, THRESHOLD, sig) == 0, "arm before fork");
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        hits = 0;
        work(300000);
        VPMU_EXPECT(hits == 0, "the child inherited the arming: %ld signals", hits);
        expect_hits_of_work(sig, "child");
        fflush(NULL);
        _exit(vpmu_test_failures ? 1 : 0);
    }
    hits = 0;
    work(300000);
    VPMU_EXPECT(hits > 0, "the parent lost its arming at the fork");
    VPMU_EXPECT(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
                    WEXITSTATUS(status) == 0,
                "the child's checks failed (status %#x)", status);
    VPMU_EXPECT(HPM_VPMU_OVERFLOW(HPM_K_INSTRUCTIONS, 0, sig) == 0, "disarm after fork");
}

int main(void)
{
    struct sigaction sa;
    struct hpm_machine m;
    uint64_t i0, i1, c0, c1, v[HPM_K_CORE_COUNT];
    long expect, rc, before;
    int sig = SIGRTMIN + 2;

    vpmu_test_require_tool();
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_overflow;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(sig, &sa, NULL);

    /* READ_KINDS: size query, short read, bad pointer */
    VPMU_EXPECT(HPM_VPMU_READ_KINDS(NULL, 0) == HPM_K_CORE_COUNT, "%d", HPM_K_CORE_COUNT);
    VPMU_EXPECT(HPM_VPMU_READ_KINDS(v, 3) == 3, "short read");
    VPMU_EXPECT(HPM_VPMU_READ_KINDS((void *)8, 3) == HPM_VPMU_EFAULT, "bad pointer");

    /* MACHINE */
    VPMU_EXPECT(HPM_VPMU_MACHINE(NULL, 0) == (long)sizeof m, "%zu", sizeof m);
    VPMU_EXPECT(HPM_VPMU_MACHINE(&m, sizeof m - 1) == HPM_VPMU_EINVAL, "wrong size");
    VPMU_EXPECT(HPM_VPMU_MACHINE((void *)8, sizeof m) == HPM_VPMU_EFAULT, "bad pointer");
    memset(&m, 0, sizeof m);
    VPMU_EXPECT(HPM_VPMU_MACHINE(&m, sizeof m) == (long)sizeof m, "copy");
    VPMU_EXPECT(m.name[0] != 0 && m.hier.cores >= 1 && m.frequency_hz > 0, "name '%s' cores %u",
                m.name, (unsigned)m.hier.cores);

    /* OVERFLOW argument checks */
    VPMU_EXPECT(HPM_VPMU_OVERFLOW(HPM_K_CORE_COUNT, 10, sig) == HPM_VPMU_EINVAL, "bad kind");
    VPMU_EXPECT(HPM_VPMU_OVERFLOW(HPM_K_INSTRUCTIONS, 10, 0) == HPM_VPMU_EINVAL, "bad signal");
    VPMU_EXPECT(HPM_VPMU_OVERFLOW(HPM_K_INSTRUCTIONS, 10, SIGKILL) == HPM_VPMU_EINVAL, "SIGKILL");

    /* instructions: an exact core event */
    rc = HPM_VPMU_OVERFLOW(HPM_K_INSTRUCTIONS, THRESHOLD, sig);
    VPMU_EXPECT(rc == 0, "arm: %ld", rc);
    i0 = kind(HPM_K_INSTRUCTIONS);
    work(300000);
    i1 = kind(HPM_K_INSTRUCTIONS);
    VPMU_EXPECT(HPM_VPMU_OVERFLOW(HPM_K_INSTRUCTIONS, 0, sig) == 0, "disarm");
    expect = (long)((i1 - i0) / THRESHOLD);
    VPMU_EXPECT(hits >= expect - 1 && hits <= expect + 1, "hits %ld, expected %ld (%" PRIu64
                " instructions)", hits, expect, i1 - i0);
    VPMU_EXPECT(pc_lo >= (uintptr_t)&work && pc_hi < (uintptr_t)&work_end + 64,
                "PCs [%#lx, %#lx] outside work() at %p", (unsigned long)pc_lo,
                (unsigned long)pc_hi, (void *)&work);
    VPMU_EXPECT(at_lo >= (uintptr_t)&work && at_hi < (uintptr_t)&work_end + 64,
                "threshold addresses [%#lx, %#lx] outside work() at %p", (unsigned long)at_lo,
                (unsigned long)at_hi, (void *)&work);
    VPMU_EXPECT(not_queued == 0, "%ld signals not queued by the tool", not_queued);

    /* disarmed: no more signals */
    before = hits;
    work(300000);
    VPMU_EXPECT(hits <= before + 1, "signals after disarm: %ld", hits - before);

    fork_armed(sig);

    /* cycles: produced by the timing model, checked every few superblocks */
    hits = 0;
    VPMU_EXPECT(HPM_VPMU_OVERFLOW(HPM_K_CYCLES, THRESHOLD, sig) == 0, "arm cycles");
    c0 = kind(HPM_K_CYCLES);
    work(300000);
    c1 = kind(HPM_K_CYCLES);
    VPMU_EXPECT(HPM_VPMU_OVERFLOW(HPM_K_CYCLES, 0, sig) == 0, "disarm cycles");
    expect = (long)((c1 - c0) / THRESHOLD);
    VPMU_EXPECT(expect > 0 && hits >= expect - 1 && hits <= expect + 1,
                "cycle hits %ld, expected %ld (%" PRIu64 " cycles)", hits, expect, c1 - c0);
    return vpmu_test_done("vpmu_overflow");
}
