/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * perf::TASK-CLOCK on the virtual PMU (run under `hpm run --`): a set of
 * TASK-CLOCK alone is counted from the thread's CPU clock, read by the
 * tool, with no system call of the program (src/hpm/comp_perf.c), and
 * keeps a perf_event counter's rules. The program's own
 * clock_gettime(CLOCK_THREAD_CPUTIME_ID) reads the same clock, so every
 * value is bracketed exactly:
 *   - start, spin, read, spin, stop: the read and the stop lie between the
 *     clock's differences inside and outside the calls, and the stop is at
 *     least the read; reset restarts the count, a stopped set keeps its
 *     value, a second start counts from zero again;
 *   - none of it is a system call: a kernel-domain sim set on
 *     sim::KERNEL_SYSCALLS counts 0 over 1000 reads and 100 start/stop
 *     pairs (a read(2) of perf_event each before), with multiplexing too;
 *   - another thread's read counts the starting thread, not itself (the
 *     reader spins 4 times as long as the owner before it reads);
 *   - with an overflow threshold the set is perf_event's (it makes system
 *     calls) and still counts;
 *   - in a child of fork the set counts the child's thread from the fork:
 *     the child's own clock brackets its read (perf_event's counter gave
 *     the parent's count).
 * Exits 77 when not under the virtual PMU, or perf_event has no TASK-CLOCK.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hpm_check.h"
#include "papi.h"

#define SPIN_NS 20000000LL /* 20 ms of the thread's CPU time */

static long long thread_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static volatile unsigned long sink;

/* Burn at least ns of the calling thread's CPU time. */
static void spin(long long ns)
{
    long long end = thread_ns() + ns;
    while (thread_ns() < end)
        for (int i = 0; i < 10000; i++)
            sink += (unsigned long)i;
}

static int task_clock_set(int multiplex)
{
    int es = PAPI_NULL;
    CHECK_EQ(PAPI_create_eventset(&es), PAPI_OK);
    if (multiplex) {
        CHECK_EQ(PAPI_assign_eventset_component(es, PAPI_get_component_index("perf")), PAPI_OK);
        CHECK_EQ(PAPI_set_multiplex(es), PAPI_OK);
    }
    CHECK_EQ(PAPI_add_named_event(es, "perf::TASK-CLOCK"), PAPI_OK);
    return es;
}

/* The system calls the program makes, counted by the kernel unit: a sim
 * set of the kernel domain (the default domain while it is made). */
static int syscall_set(void)
{
    int es = PAPI_NULL;
    CHECK_EQ(PAPI_set_domain(PAPI_DOM_KERNEL), PAPI_OK);
    CHECK_EQ(PAPI_create_eventset(&es), PAPI_OK);
    CHECK_EQ(PAPI_add_named_event(es, "sim::KERNEL_SYSCALLS"), PAPI_OK);
    CHECK_EQ(PAPI_set_domain(PAPI_DOM_USER), PAPI_OK);
    return es;
}

static void bracketed(int es)
{
    long long v_read, v_stop, v_again, c0, c1, c2, c3, c4, c5;
    c0 = thread_ns();
    CHECK_EQ(PAPI_start(es), PAPI_OK);
    c1 = thread_ns();
    spin(SPIN_NS);
    c2 = thread_ns();
    CHECK_EQ(PAPI_read(es, &v_read), PAPI_OK);
    c3 = thread_ns();
    spin(SPIN_NS);
    c4 = thread_ns();
    CHECK_EQ(PAPI_stop(es, &v_stop), PAPI_OK);
    c5 = thread_ns();
    printf("TASK-CLOCK read %lld ns in [%lld, %lld], stop %lld in [%lld, %lld]\n", v_read,
           c2 - c1, c3 - c0, v_stop, c4 - c1, c5 - c0);
    CHECKF(v_read >= c2 - c1 && v_read <= c3 - c0, "read %lld", v_read);
    CHECKF(v_stop >= c4 - c1 && v_stop <= c5 - c0, "stop %lld", v_stop);
    CHECKF(v_stop - v_read >= c4 - c3, "stop %lld after read %lld", v_stop, v_read);
    /* stopped: the value stays */
    spin(SPIN_NS / 4);
    CHECK_EQ(PAPI_read(es, &v_again), PAPI_OK);
    CHECK_EQ(v_again, v_stop);
    /* a reset restarts the count from there */
    CHECK_EQ(PAPI_start(es), PAPI_OK);
    spin(SPIN_NS);
    c0 = thread_ns();
    CHECK_EQ(PAPI_reset(es), PAPI_OK);
    c1 = thread_ns();
    CHECK_EQ(PAPI_read(es, &v_read), PAPI_OK);
    c2 = thread_ns();
    CHECK_EQ(PAPI_stop(es, &v_stop), PAPI_OK);
    CHECKF(v_read >= 0 && v_read <= c2 - c0, "after reset %lld, at most %lld", v_read, c2 - c0);
    (void)c1;
}

/* 1000 reads and 100 start/stop pairs: how many system calls they made */
static long long syscalls_of_calls(int es, int sys)
{
    long long v, n;
    CHECK_EQ(PAPI_start(sys), PAPI_OK);
    CHECK_EQ(PAPI_start(es), PAPI_OK);
    for (int i = 0; i < 1000; i++)
        CHECK_EQ(PAPI_read(es, &v), PAPI_OK);
    CHECK_EQ(PAPI_stop(es, &v), PAPI_OK);
    for (int i = 0; i < 100; i++) {
        CHECK_EQ(PAPI_start(es), PAPI_OK);
        CHECK_EQ(PAPI_stop(es, &v), PAPI_OK);
    }
    CHECK_EQ(PAPI_stop(sys, &n), PAPI_OK);
    return n;
}

struct reader {
    int es;
    long long value;
    int rc;
};

static void *read_from_other(void *arg)
{
    struct reader *r = arg;
    spin(4 * SPIN_NS);
    r->rc = PAPI_read(r->es, &r->value);
    return NULL;
}

static void other_thread_reads(int es)
{
    struct reader r = {es, 0, PAPI_EMISC};
    pthread_t th;
    long long c0, c1, c2, v;
    c0 = thread_ns();
    CHECK_EQ(PAPI_start(es), PAPI_OK);
    c1 = thread_ns();
    spin(SPIN_NS);
    CHECK_EQ(pthread_create(&th, NULL, read_from_other, &r), 0);
    CHECK_EQ(pthread_join(th, NULL), 0);
    c2 = thread_ns();
    CHECK_EQ(PAPI_stop(es, &v), PAPI_OK);
    printf("TASK-CLOCK read by another thread %lld ns in [%lld, %lld]\n", r.value, SPIN_NS,
           c2 - c0);
    CHECK_EQ(r.rc, PAPI_OK);
    CHECKF(r.value >= SPIN_NS && r.value <= c2 - c0, "%lld", r.value);
    (void)c1;
}

static int overflows;

static void on_overflow(int set, void *pc, long long vector, void *ctx)
{
    (void)set, (void)pc, (void)vector, (void)ctx;
    overflows++;
}

/* An overflow threshold needs perf_event's own counter: the set makes
 * system calls again, and still counts its thread. */
static void overflow_uses_perf_event(int sys)
{
    int es = task_clock_set(0), code = 0;
    long long v, n, c0, c1;
    CHECK_EQ(PAPI_event_name_to_code("perf::TASK-CLOCK", &code), PAPI_OK);
    CHECK_EQ(PAPI_overflow(es, code, 1000000, 0, on_overflow), PAPI_OK);
    CHECK_EQ(PAPI_start(sys), PAPI_OK);
    c0 = thread_ns();
    CHECK_EQ(PAPI_start(es), PAPI_OK);
    spin(SPIN_NS);
    CHECK_EQ(PAPI_stop(es, &v), PAPI_OK);
    c1 = thread_ns();
    CHECK_EQ(PAPI_stop(sys, &n), PAPI_OK);
    printf("with overflow: %lld ns, %lld system calls, %d overflows\n", v, n, overflows);
    CHECK(n > 0);
    CHECKF(v > 0 && v <= c1 - c0 + 1000000, "%lld", v);
}

static void fork_child_counts_child(int es)
{
    long long v = -1, c0, c1;
    int status = 0;
    CHECK_EQ(PAPI_start(es), PAPI_OK);
    spin(3 * SPIN_NS);
    pid_t pid = fork();
    if (pid == 0) {
        /* the child's thread clock started at the fork (the tool's own work
         * for the child since is in it too) */
        c0 = thread_ns();
        int rc = PAPI_read(es, &v);
        c1 = thread_ns();
        printf("child of fork: TASK-CLOCK %lld ns in [%lld, %lld]\n", v, c0, c1);
        fflush(stdout);
        _exit(rc == PAPI_OK && v >= c0 && v <= c1 ? 0 : 1);
    }
    CHECK(pid > 0);
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_EQ(PAPI_stop(es, &v), PAPI_OK);
    CHECKF(v >= 3 * SPIN_NS, "parent %lld", v);
}

int main(void)
{
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
        fprintf(stderr, "PAPI_library_init failed\n");
        return 1;
    }
    const PAPI_component_info_t *ci = PAPI_get_component_info(0);
    int probe = PAPI_NULL;
    if (!ci || ci->disabled) {
        printf("SKIP: component 0 (sim) is disabled: not under hpm run\n");
        return 77;
    }
    if (PAPI_create_eventset(&probe) != PAPI_OK ||
        PAPI_add_named_event(probe, "perf::TASK-CLOCK") != PAPI_OK) {
        printf("SKIP: perf::TASK-CLOCK cannot be counted here\n");
        return 77;
    }
    CHECK_EQ(PAPI_thread_init(pthread_self), PAPI_OK);
    int es = task_clock_set(0), mpx = task_clock_set(1), sys = syscall_set();

    bracketed(es);
    bracketed(mpx);
    long long n = syscalls_of_calls(es, sys);
    printf("system calls of 1000 reads and 100 start/stop pairs: %lld\n", n);
    CHECK_EQ(n, 0);
    n = syscalls_of_calls(mpx, sys);
    printf("the same, multiplexed: %lld\n", n);
    CHECK_EQ(n, 0);
    other_thread_reads(es);

    overflow_uses_perf_event(sys);
    fork_child_counts_child(es);
    printf("%s\n", failures ? "FAILED" : "PASSED");
    return failures ? 1 : 0;
}
