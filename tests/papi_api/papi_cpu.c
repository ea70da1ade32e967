/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PAPI_CPU_ATTACH on the virtual PMU (run under `hpm run --`): a set
 * attached to a modeled core counts every thread of the process while that
 * core runs it.
 *   - one set per core and a set of the calling thread, all running at
 *     once: between two runs of a known loop the thread's core adds exactly
 *     what the thread's own set adds (the loop's instructions), every other
 *     core adds nothing;
 *   - a thread that runs the loop while the caller waits is counted by the
 *     CPU sets (by whichever core ran it) and not by the caller's set;
 *   - CPU sets running across fork() count the child from the fork in the
 *     child: a read there is small and not negative, and a loop adds at
 *     least its instructions;
 *   - PAPI_state says PAPI_CPU_ATTACHED, PAPI_get_opt gives the CPU back,
 *     a core the machine does not have is refused, and a set attached to
 *     a CPU cannot be attached to a thread too.
 * Exits 77 when not under the virtual PMU.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hpm_check.h"
#include "papi.h"

#define MAX_CPUS 64
#define N1 100000L
#define N2 300000L

/* n iterations of DEC, JNZ: 2n instructions */
__attribute__((noinline)) static void loop(unsigned long n)
{
    __asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
}

static void *thread_loop(void *arg)
{
    loop((unsigned long)(long)arg);
    return NULL;
}

static int ncpu;
static int cpu_set[MAX_CPUS], own;

/* start every CPU set and the thread's set, run the loop n times (in this
 * thread, or in a new one when threaded), stop them */
static void measure(unsigned long n, int threaded, long long *cpu, long long *mine)
{
    for (int c = 0; c < ncpu; c++)
        CHECK_EQ(PAPI_start(cpu_set[c]), PAPI_OK);
    CHECK_EQ(PAPI_start(own), PAPI_OK);
    if (threaded) {
        pthread_t t;
        CHECK_EQ(pthread_create(&t, NULL, thread_loop, (void *)(long)n), 0);
        CHECK_EQ(pthread_join(t, NULL), 0);
    } else {
        loop(n);
    }
    CHECK_EQ(PAPI_stop(own, mine), PAPI_OK);
    for (int c = 0; c < ncpu; c++)
        CHECK_EQ(PAPI_stop(cpu_set[c], &cpu[c]), PAPI_OK);
}

int main(void)
{
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
        fprintf(stderr, "PAPI_library_init failed\n");
        return 1;
    }
    const PAPI_component_info_t *ci = PAPI_get_component_info(0);
    if (!ci || ci->disabled) {
        printf("SKIP: component 0 (sim) is disabled: not under hpm run\n");
        return 77;
    }
    const PAPI_hw_info_t *hw = PAPI_get_hardware_info();
    CHECK(hw != NULL);
    ncpu = hw->totalcpus;
    printf("papi_cpu: %d modeled cores\n", ncpu);
    CHECK(ncpu >= 1 && ncpu <= MAX_CPUS);

    PAPI_option_t o;
    for (int c = 0; c < ncpu; c++) {
        cpu_set[c] = PAPI_NULL;
        CHECK_EQ(PAPI_create_eventset(&cpu_set[c]), PAPI_OK);
        CHECK_EQ(PAPI_assign_eventset_component(cpu_set[c], 0), PAPI_OK);
        memset(&o, 0, sizeof o);
        o.cpu.eventset = cpu_set[c];
        o.cpu.cpu_num = (unsigned)c;
        CHECK_EQ(PAPI_set_opt(PAPI_CPU_ATTACH, &o), PAPI_OK);
        CHECK_EQ(PAPI_add_event(cpu_set[c], PAPI_TOT_INS), PAPI_OK);
        int st = 0;
        CHECK_EQ(PAPI_state(cpu_set[c], &st), PAPI_OK);
        CHECK(st & PAPI_CPU_ATTACHED);
        memset(&o, 0, sizeof o);
        o.cpu.eventset = cpu_set[c];
        CHECK(PAPI_get_opt(PAPI_CPU_ATTACH, &o) == 1);
        CHECK_EQ((int)o.cpu.cpu_num, c);
    }
    own = PAPI_NULL;
    CHECK_EQ(PAPI_create_eventset(&own), PAPI_OK);
    CHECK_EQ(PAPI_add_event(own, PAPI_TOT_INS), PAPI_OK);

    /* a core the machine does not have; a CPU's set attached to a thread */
    int bad = PAPI_NULL;
    CHECK_EQ(PAPI_create_eventset(&bad), PAPI_OK);
    CHECK_EQ(PAPI_assign_eventset_component(bad, 0), PAPI_OK);
    memset(&o, 0, sizeof o);
    o.cpu.eventset = bad;
    o.cpu.cpu_num = (unsigned)ncpu;
    CHECK_EQ(PAPI_set_opt(PAPI_CPU_ATTACH, &o), PAPI_OK); /* empty: known at the add */
    CHECK(PAPI_add_event(bad, PAPI_TOT_INS) != PAPI_OK);
    CHECK_EQ(PAPI_attach(cpu_set[0], 1), PAPI_EINVAL);

    /* warm-up, then two loop lengths: their difference is the loop's */
    long long c1[MAX_CPUS], c2[MAX_CPUS], m1, m2;
    measure(N1, 0, c1, &m1);
    measure(N1, 0, c1, &m1);
    measure(N2, 0, c2, &m2);
    long long dn = 2 * (N2 - N1), dm = m2 - m1;
    printf("papi_cpu: own set %lld -> %lld (loop %lld)\n", m1, m2, dn);
    CHECK_EQ(dm, dn);
    int ran = -1;
    for (int c = 0; c < ncpu; c++) {
        printf("papi_cpu: cpu %d: %lld -> %lld\n", c, c1[c], c2[c]);
        if (c2[c] - c1[c] == dn) {
            CHECK(ran < 0);
            ran = c;
            CHECK(c1[c] >= m1); /* the thread's count and the calls around it */
        } else {
            CHECK_EQ(c1[c], 0);
            CHECK_EQ(c2[c], 0);
        }
    }
    CHECK(ran >= 0);

    /* another thread's loop: counted by the cores, not by the caller's set */
    long long ct[MAX_CPUS], mt, sum = 0;
    measure(N2, 1, ct, &mt);
    for (int c = 0; c < ncpu; c++)
        sum += ct[c];
    printf("papi_cpu: a thread's loop of %ld: cores %lld, own set %lld\n", 2 * N2, sum, mt);
    CHECK(mt < 2 * N2);
    CHECK(sum >= mt + 2 * N2);
    CHECK(sum < mt + 2 * N2 + 2000000); /* thread creation and exit besides */

    /* across fork: the child's CPU sets count the child from the fork */
    for (int c = 0; c < ncpu; c++)
        CHECK_EQ(PAPI_start(cpu_set[c]), PAPI_OK);
    loop(N2);
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        long long a[MAX_CPUS], b[MAX_CPUS], da = 0, db = 0;
        for (int c = 0; c < ncpu; c++)
            CHECK_EQ(PAPI_read(cpu_set[c], &a[c]), PAPI_OK);
        loop(N2);
        for (int c = 0; c < ncpu; c++) {
            CHECK_EQ(PAPI_read(cpu_set[c], &b[c]), PAPI_OK);
            CHECK(a[c] >= 0 && a[c] < 100000);
            da += a[c];
            db += b[c];
        }
        printf("papi_cpu: in the child after fork: cores %lld, after its loop %lld\n", da, db);
        CHECK(db - da >= 2 * N2 && db - da < 2 * N2 + 100000);
        fflush(stdout);
        _exit(failures ? 1 : 0);
    }
    int status = 0;
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    for (int c = 0; c < ncpu; c++)
        CHECK_EQ(PAPI_stop(cpu_set[c], &ct[c]), PAPI_OK);

    PAPI_shutdown();
    if (failures) {
        fprintf(stderr, "papi_cpu: %d failures\n", failures);
        return 1;
    }
    printf("papi_cpu: ok\n");
    return 0;
}
