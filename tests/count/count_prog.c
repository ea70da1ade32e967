/* SPDX-License-Identifier: GPL-2.0-or-later (includes tests/vpmu/vpmu_test.h) */
/*
 * count_prog - workloads with exactly known counts for the hpm count tests,
 * run under the virtual PMU. Each workload sits in a region (hpm_client.h),
 * so the test can check the region's counts, which hold exactly the loop.
 *
 *   count_prog adds N          N ADDSD in region "adds" (FP_DP_SCALAR = N)
 *   count_prog cold N STRIDE   N loads of N never-touched lines STRIDE bytes
 *                              apart in region "cold" (L1D_READ_MISSES = N)
 *   count_prog branch N        a dec/jnz loop of N iterations in region
 *                              "branch" (BR_COND = N, BR_COND_TAKEN = N - 1)
 *   count_prog x87 N           N iterations of fldcw (to a precision VEX
 *                              warns about), fldcw, dec, jnz in region "x87"
 *                              (INSTRUCTIONS = 4 N + the region's overhead)
 *   count_prog threads K N     K pthreads, N ADDSD each in region "worker"
 *   count_prog crash N         N ADDSD, then a store through a null pointer
 *   count_prog exit N          exit(N)
 *   count_prog probe N         print whether the tool runs ("parent tool=V"); if
 *                              N > 0 fork and exec "probe 0" ("child tool=V");
 *                              exit N ("tool=yes": the tool speaks this
 *                              build's interface; "no": not under the tool)
 *   count_prog execadds N M    N ADDSD in region "adds", then exec itself as
 *                              "adds M" (FP_DP_SCALAR = N + M over the exec)
 *   count_prog orphan N M      fork a child that waits until its parent has
 *                              exited, then does M ADDSD in region "adds";
 *                              the parent does N ADDSD and exits at once
 *   count_prog slowadds K N    K rounds of N ADDSD, 50 ms apart (a program
 *                              that runs long enough to be watched)
 *   count_prog upcwrite        write UPC unit 0's start/stop register (the
 *                              program reprograms the unit itself)
 *   count_prog model N         N cold loads, HPM_VPMU_MODEL(), N more cold
 *                              loads; prints the thread's L1D read misses of
 *                              each half and the request's answer
 *                              ("before=A request=R after=B")
 *   count_prog model_parts N separate|together
 *                              the models one at a time: the caches (with
 *                              the TLBs; with "together" the predictor
 *                              too), then the predictor, then the timing
 *                              model, each asked for with
 *                              HPM_VPMU_MODEL_NEEDS before a round of N
 *                              cold loads and a loop of N branches; prints
 *                              each request's answer and the thread's L1D
 *                              read misses, mispredictions and cycles of
 *                              each round (the two words are as long: the
 *                              stack, and so the L1D's sets the program's
 *                              lines fall in, is laid out the same)
 * The loops are inline assembly so that the counts do not depend on the
 * compiler. (This file includes hpm_client.h and vpmu_test.h, which are
 * GPL-2.0-or-later; the test binary is therefore a GPL combined work.)
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "catalog.h"
#include "hpm_client.h"
#include "vpmu_test.h"

/* Never written by the program: every line is cold when first loaded. */
#define COLD_BYTES (8u << 20)
static unsigned char cold_buf[COLD_BYTES];

static unsigned long arg_ul(int argc, char **argv, int i)
{
    char *end;
    unsigned long v;
    if (i >= argc) {
        fprintf(stderr, "count_prog: missing argument\n");
        exit(2);
    }
    v = strtoul(argv[i], &end, 10);
    if (*end || !argv[i][0]) {
        fprintf(stderr, "count_prog: bad number '%s'\n", argv[i]);
        exit(2);
    }
    return v;
}

/* n loads, one per line: exactly n load operations in the loop. */
__attribute__((noinline)) static unsigned long cold_loads(const unsigned char *p,
                                                          unsigned long n, unsigned long stride)
{
    unsigned long sum = 0, tmp;
    __asm__ volatile("1: movzbq (%1), %3\n\t"
                     "add %3, %0\n\t"
                     "add %4, %1\n\t"
                     "dec %2\n\t"
                     "jnz 1b"
                     : "+r"(sum), "+r"(p), "+r"(n), "=&r"(tmp)
                     : "r"(stride)
                     : "cc", "memory");
    return sum;
}

/* n iterations of a loop whose only branch is the backward jnz. */
__attribute__((noinline)) static void branch_loop(unsigned long n)
{
    __asm__ volatile("1: dec %0\n\t"
                     "jnz 1b"
                     : "+r"(n)
                     :
                     : "cc");
}

/* n iterations of 4 instructions: fldcw to single precision (which VEX
 * does not model: it leaves the superblock with an emulation warning, to
 * the next instruction), fldcw back, dec, jnz. */
__attribute__((noinline)) static void x87_warn_loop(unsigned long n)
{
    unsigned short saved, single;
    __asm__ volatile("fnstcw %0" : "=m"(saved));
    single = (unsigned short)(saved & ~0x300u); /* precision control 00: single */
    __asm__ volatile("1: fldcw %1\n\t"
                     "fldcw %2\n\t"
                     "dec %0\n\t"
                     "jnz 1b"
                     : "+r"(n)
                     : "m"(single), "m"(saved)
                     : "cc");
}

static unsigned long worker_adds;
static pthread_barrier_t all_alive; /* more than 64 threads: all alive at once */
static int use_barrier;

static void *worker(void *arg)
{
    (void)arg;
    HPM_VPMU_REGION_BEGIN("worker");
    vpmu_test_scalar_adds(worker_adds);
    HPM_VPMU_REGION_END("worker");
    if (use_barrier)
        pthread_barrier_wait(&all_alive);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "adds") == 0) {
        unsigned long n = arg_ul(argc, argv, 2);
        HPM_VPMU_REGION_BEGIN("adds");
        vpmu_test_scalar_adds(n);
        HPM_VPMU_REGION_END("adds");
    } else if (strcmp(mode, "cold") == 0) {
        unsigned long n = arg_ul(argc, argv, 2), stride = arg_ul(argc, argv, 3), sum;
        if (n == 0 || stride == 0 || n > COLD_BYTES / stride) {
            fprintf(stderr, "count_prog: cold: N * STRIDE must be 1 .. %u\n", COLD_BYTES);
            return 2;
        }
        HPM_VPMU_REGION_BEGIN("cold");
        sum = cold_loads(cold_buf, n, stride);
        HPM_VPMU_REGION_END("cold");
        if (sum != 0)
            return 1; /* the buffer is zero; this keeps the loads live */
    } else if (strcmp(mode, "branch") == 0) {
        unsigned long n = arg_ul(argc, argv, 2);
        if (n == 0)
            return 2;
        HPM_VPMU_REGION_BEGIN("branch");
        branch_loop(n);
        HPM_VPMU_REGION_END("branch");
    } else if (strcmp(mode, "x87") == 0) {
        unsigned long n = arg_ul(argc, argv, 2);
        if (n == 0)
            return 2;
        HPM_VPMU_REGION_BEGIN("x87");
        x87_warn_loop(n);
        HPM_VPMU_REGION_END("x87");
    } else if (strcmp(mode, "threads") == 0) {
        /* all k alive at once: more than Valgrind's default 500 slots */
        unsigned long k = arg_ul(argc, argv, 2), i;
        static pthread_t t[2048];
        worker_adds = arg_ul(argc, argv, 3);
        if (k == 0 || k > 2048)
            return 2;
        if (k > 64) {
            use_barrier = 1;
            pthread_barrier_init(&all_alive, NULL, (unsigned)k + 1);
        }
        for (i = 0; i < k; i++)
            if (pthread_create(&t[i], NULL, worker, NULL) != 0)
                return 1;
        if (use_barrier)
            pthread_barrier_wait(&all_alive);
        for (i = 0; i < k; i++)
            pthread_join(t[i], NULL);
    } else if (strcmp(mode, "crash") == 0) {
        /* a volatile pointer, so that the compiler cannot see the null and
         * turn the store into a trap instruction (SIGILL, not SIGSEGV), to
         * volatile memory, so that it cannot drop the store as dead */
        volatile int *volatile bad = NULL;
        vpmu_test_scalar_adds(arg_ul(argc, argv, 2));
        fflush(stdout);
        *bad = 1;
        return 0;
    } else if (strcmp(mode, "exit") == 0) {
        return (int)arg_ul(argc, argv, 2);
    } else if (strcmp(mode, "execadds") == 0) {
        HPM_VPMU_REGION_BEGIN("adds");
        vpmu_test_scalar_adds(arg_ul(argc, argv, 2));
        HPM_VPMU_REGION_END("adds");
        fflush(stdout);
        execl(argv[0], argv[0], "adds", argc > 3 ? argv[3] : "0", (char *)NULL);
        return 126;
    } else if (strcmp(mode, "orphan") == 0) {
        pid_t parent = getpid(), pid = fork();
        if (pid == 0) {
            /* outlive the parent: hpm count must wait for this process */
            while (getppid() == parent)
                sleep(1);
            HPM_VPMU_REGION_BEGIN("adds");
            vpmu_test_scalar_adds(arg_ul(argc, argv, 3));
            HPM_VPMU_REGION_END("adds");
            return 0;
        }
        if (pid < 0)
            return 100;
        HPM_VPMU_REGION_BEGIN("adds");
        vpmu_test_scalar_adds(arg_ul(argc, argv, 2));
        HPM_VPMU_REGION_END("adds");
        return 0;
    } else if (strcmp(mode, "slowadds") == 0) {
        unsigned long k = arg_ul(argc, argv, 2), i;
        for (i = 0; i < k; i++) {
            struct timespec ts = {0, 50000000L};
            vpmu_test_scalar_adds(arg_ul(argc, argv, 3));
            nanosleep(&ts, NULL);
        }
    } else if (strcmp(mode, "upcwrite") == 0) {
        return HPM_VPMU_UPC_WRITE(0, 0x900, 1) == 0 ? 0 : 1;
    } else if (strcmp(mode, "probe") == 0) {
        /* probe N: report whether the tool runs here, fork+exec "probe 0"
         * when N > 0 (the child must run under the tool too), exit N */
        unsigned long n = arg_ul(argc, argv, 2);
        long v = HPM_VPMU_IS_RUNNING();
        if (v == HPM_VPMU_INTERFACE_VERSION)
            printf("%s tool=yes\n", n ? "parent" : "child");
        else if (v == 0)
            printf("%s tool=no\n", n ? "parent" : "child");
        else
            printf("%s tool=version %ld\n", n ? "parent" : "child", v);
        fflush(stdout);
        if (n) {
            pid_t pid = fork();
            int st = 0;
            if (pid == 0) {
                execl(argv[0], argv[0], "probe", "0", (char *)NULL);
                _exit(127);
            }
            if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
                return 100;
        }
        return (int)n;
    } else if (strcmp(mode, "model") == 0) {
        /* the models start at the request under hpm run, from the start
         * under hpm count or hpm run --model=always */
        /* a page and a line apart: the lines spread over the L1's sets.
         * At 4096 they all fell into one set, and 200 of them evicted
         * whatever else the set held: the stack line of cold_loads' return
         * address when the stack happened to map there (the environment's
         * size moves it), one more miss */
        unsigned long n = arg_ul(argc, argv, 2), stride = 4096 + 64;
        uint64_t k0[HPM_K_CORE_COUNT], k1[HPM_K_CORE_COUNT], k2[HPM_K_CORE_COUNT];
        long req;
        if (n == 0 || 2 * n * stride > COLD_BYTES) {
            fprintf(stderr, "count_prog: model N needs 0 < N <= %lu\n",
                    (unsigned long)COLD_BYTES / 2 / stride);
            return 2;
        }
        HPM_VPMU_READ_KINDS(k0, HPM_K_CORE_COUNT);
        cold_loads(cold_buf, n, stride);
        HPM_VPMU_READ_KINDS(k1, HPM_K_CORE_COUNT);
        req = HPM_VPMU_MODEL();
        cold_loads(cold_buf + n * stride, n, stride);
        HPM_VPMU_READ_KINDS(k2, HPM_K_CORE_COUNT);
        printf("before=%llu request=%ld after=%llu\n",
               (unsigned long long)(k1[HPM_K_L1D_READ_MISSES] - k0[HPM_K_L1D_READ_MISSES]), req,
               (unsigned long long)(k2[HPM_K_L1D_READ_MISSES] - k1[HPM_K_L1D_READ_MISSES]));
    } else if (strcmp(mode, "model_parts") == 0) {
        /* each round: the requests' answers, then N cold loads (fresh
         * lines) and N branches, their misses, mispredictions and cycles,
         * printed after the last round: the program runs the same code
         * whatever the models count (a printf of other digits would touch
         * other lines, and the L1D's FIFO would evict others later) */
        unsigned ask[4] = {HPM_VPMU_MODEL_HIER, HPM_VPMU_MODEL_HIER, HPM_VPMU_MODEL_BPRED,
                           HPM_VPMU_MODEL_TIMING};
        unsigned long n = arg_ul(argc, argv, 2), stride = 4096 + 64;
        uint64_t k0[HPM_K_CORE_COUNT], k1[HPM_K_CORE_COUNT], got[5][3];
        long req[5];
        int r;
        if (n == 0 || 5 * n * stride > COLD_BYTES) {
            fprintf(stderr, "count_prog: model_parts N needs 0 < N <= %lu\n",
                    (unsigned long)COLD_BYTES / 5 / stride);
            return 2;
        }
        if (argc != 4 || (strcmp(argv[3], "separate") && strcmp(argv[3], "together"))) {
            fprintf(stderr, "count_prog: model_parts N separate|together\n");
            return 2;
        }
        if (strcmp(argv[3], "together") == 0)
            ask[0] |= HPM_VPMU_MODEL_BPRED;
        printf("bad=%ld\n", HPM_VPMU_MODEL_NEEDS(64u));
        for (r = 0; r < 5; r++) {
            req[r] = r ? HPM_VPMU_MODEL_NEEDS(ask[r - 1]) : 0;
            HPM_VPMU_READ_KINDS(k0, HPM_K_CORE_COUNT);
            cold_loads(cold_buf + (unsigned long)r * n * stride, n, stride);
            branch_loop(n);
            HPM_VPMU_READ_KINDS(k1, HPM_K_CORE_COUNT);
            got[r][0] = k1[HPM_K_L1D_READ_MISSES] - k0[HPM_K_L1D_READ_MISSES];
            got[r][1] = k1[HPM_K_BR_MISPREDICTS] - k0[HPM_K_BR_MISPREDICTS];
            got[r][2] = k1[HPM_K_CYCLES] - k0[HPM_K_CYCLES];
        }
        for (r = 0; r < 5; r++)
            printf("round=%d request=%ld misses=%llu mispredicts=%llu cycles=%llu\n", r, req[r],
                   (unsigned long long)got[r][0], (unsigned long long)got[r][1],
                   (unsigned long long)got[r][2]);
    } else {
        fprintf(stderr, "usage: count_prog adds N | cold N STRIDE | branch N | threads K N | "
                        "crash N | exit N | probe N | model N | model_parts N separate|together | "
                        "x87 N\n");
        return 2;
    }
    return 0;
}
