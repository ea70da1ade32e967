/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prof_prog - a program with known hot spots for the hpm profile tests
 * (profile_test.sh): a strided loop whose every load misses the L1D (the
 * line marked HOT_LOAD), an integer loop, calls counted exactly.
 *
 *   prof_prog [CALLS] [plain|gated|threads]
 * gated: the integer loop runs with the counters stopped (HPM_VPMU_STOP);
 * threads: a second thread runs the strided loop too;
 * only_req: HPM_VPMU_GATE(ONLY, stride_sum) first (as --only=stride_sum);
 * bad_gates: HPM_VPMU_GATE with bad arguments must answer EINVAL;
 * heap: a heap block of the same size is read the same way, once;
 * plt: main calls rand() 5 times, through the PLT;
 * anon: anonymous memory right after a file mapping, read the same way
 *       once (it is no variable of that file: [other]);
 * reuse: a 64 KiB block from one call site in main, read and freed, then
 *       one from another call site (the allocator gives the same address),
 *       read the same way: each block's misses are its own;
 * hpm_only: libhpm's hpm_gate(HPM_GATE_ONLY, stride_sum) first;
 * gaps: three 64 KiB blocks from the brk heap (the first aligned to 64
 *       bytes, the others malloc's), the middle one freed: the memory
 *       between the other two, up to the third's first byte, is [other].
 *       Each region is read once per 32-byte line, in two passes of the
 *       first, the middle one (top down the second time), the first again
 *       and the third.
 */
#define _GNU_SOURCE /* MAP_ANONYMOUS */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "catalog.h"
#include "hpm/hpm.h"
#include "hpm_client.h"

#define WORDS (1L << 19) /* 4 MiB of doubles: far beyond any L1D */
static double big[WORDS];

/* one load per 64-byte line: each one misses the L1D. (The empty asm is
 * a side effect: without it the compiler calls this loop once for all.) */
__attribute__((noinline)) double stride_sum(int passes)
{
    double s = 0;
    __asm__ volatile("" ::: "memory");
    for (int p = 0; p < passes; p++)
        for (long i = 0; i < WORDS; i += 8)
            s += big[i]; /* HOT_LOAD */
    return s;
}

__attribute__((noinline)) long int_loop(long n)
{
    long x = 0;
    __asm__ volatile("" ::: "memory");
    for (long i = 0; i < n; i++)
        x += i ^ (x >> 3); /* HOT_INT */
    return x;
}

/* recursion: its calls to itself are inside the outermost call's cost */
__attribute__((noinline)) long depth_sum(long n)
{
    __asm__ volatile("" ::: "memory");
    return n <= 0 ? 0 : n + depth_sum(n - 1) * 3 % 1000003;
}

/* the same over a heap block: its misses belong to the block's allocation */
__attribute__((noinline)) double heap_sum(const double *h)
{
    double s = 0;
    __asm__ volatile("" ::: "memory");
    for (long i = 0; i < WORDS; i += 8)
        s += h[i]; /* HEAP_LOAD */
    return s;
}

/* a block allocated here, read once per 32-byte line and freed: its
 * address (0: out of memory) */
__attribute__((noinline)) uintptr_t reuse_block(double *s)
{
    enum { N = 65536 / sizeof(double) };
    volatile double *h = malloc(N * sizeof *h);
    uintptr_t at = (uintptr_t)h;
    __asm__ volatile("" ::: "memory");
    if (!h)
        return 0;
    for (long i = 0; i < N; i += 4)
        h[i] = (double)i;
    for (long i = 0; i < N; i += 4)
        *s += h[i];
    free((void *)h);
    return at;
}

/* one load per 32 bytes of [p, p + n); down: from p[n - 1] down */
__attribute__((noinline)) double lines_sum(const volatile char *p, long n, int down)
{
    double s = 0;
    __asm__ volatile("" ::: "memory");
    for (long k = 0; k < n; k += 32)
        s += p[down ? n - 1 - k : k];
    return s;
}

/* the gaps mode's blocks, each its own heap object (one per function) */
__attribute__((noinline)) char *gaps_a(void)
{
    return aligned_alloc(64, 65536);
}

__attribute__((noinline)) char *gaps_b(void)
{
    return malloc(65536);
}

__attribute__((noinline)) char *gaps_c(void)
{
    return malloc(65536);
}

static void *thread_main(void *arg)
{
    static double r;
    (void)arg;
    r = stride_sum(1);
    return &r;
}

/* mode workers: two threads in leaf_work at once (their calls overlap in
 * modeled time), and one that is still inside wait_forever when the
 * program exits */
static __attribute__((noinline)) long leaf_work(long n)
{
    long s = 0;
    for (long i = 0; i < n; i++)
        s += i ^ (s >> 3);
    return s;
}

static void *worker_main(void *arg)
{
    return (void *)leaf_work((long)arg);
}

static pthread_mutex_t never_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never_cv = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t started_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t started_cv = PTHREAD_COND_INITIALIZER;
static int started;

static __attribute__((noinline)) void wait_forever(void)
{
    pthread_mutex_lock(&never_mu);
    pthread_mutex_lock(&started_mu);
    started = 1;
    pthread_cond_signal(&started_cv);
    pthread_mutex_unlock(&started_mu);
    for (;;)
        pthread_cond_wait(&never_cv, &never_mu);
}

static void *sleeper_main(void *arg)
{
    (void)arg;
    wait_forever();
    return NULL;
}

static int workers(void)
{
    pthread_t sleeper, w[2];
    int i;
    if (pthread_create(&sleeper, NULL, sleeper_main, NULL) != 0)
        return 1;
    pthread_mutex_lock(&started_mu);
    while (!started)
        pthread_cond_wait(&started_cv, &started_mu);
    pthread_mutex_unlock(&started_mu);
    for (i = 0; i < 2; i++)
        if (pthread_create(&w[i], NULL, worker_main, (void *)300000L) != 0)
            return 1;
    for (i = 0; i < 2; i++)
        if (pthread_join(w[i], NULL) != 0)
            return 1;
    return 0; /* the sleeper waits on: the exit ends it */
}

int main(int argc, char **argv)
{
    int calls = argc > 1 ? atoi(argv[1]) : 3;
    const char *mode = argc > 2 ? argv[2] : "plain";
    double s = 0;
    long a;
    if (strcmp(mode, "only_req") == 0 &&
        HPM_VPMU_GATE(HPM_VPMU_GATE_ONLY, (uintptr_t)&stride_sum, 0) != HPM_VPMU_OK)
        return 3;
    if (strcmp(mode, "hpm_only") == 0) {
        hpm_event_t ins;
        if (hpm_init() < 0 || hpm_gate(HPM_GATE_ONLY, (const void *)&stride_sum, 0, 0) != HPM_OK ||
            hpm_gate(HPM_GATE_START_AT, NULL, 0, 0) != HPM_EINVAL ||
            hpm_event_find("sim::INSTRUCTIONS", &ins) != HPM_OK ||
            hpm_gate(HPM_GATE_TRIGGER, NULL, ins, 0) != HPM_EINVAL || hpm_gate(9, NULL, 0, 0) != HPM_EINVAL)
            return 6;
    }
    if (strcmp(mode, "bad_gates") == 0) {
        if (HPM_VPMU_GATE(99, 0, 0) != HPM_VPMU_EINVAL ||
            HPM_VPMU_GATE(HPM_VPMU_GATE_ONLY, 0, 0) != HPM_VPMU_EINVAL ||
            HPM_VPMU_GATE(HPM_VPMU_GATE_TRIGGER, HPM_K_L1D_MISSES, 5) != HPM_VPMU_EINVAL ||
            HPM_VPMU_GATE(HPM_VPMU_GATE_TRIGGER, HPM_K_INSTRUCTIONS, 0) != HPM_VPMU_EINVAL ||
            HPM_VPMU_GATE(HPM_VPMU_GATE_TRIGGER, 100000, 5) != HPM_VPMU_EINVAL)
            return 4;
        /* a trigger 1000 instructions from now, then no gates at all */
        if (HPM_VPMU_GATE(HPM_VPMU_GATE_TRIGGER, HPM_K_INSTRUCTIONS, 1000) != HPM_VPMU_OK ||
            HPM_VPMU_GATE(HPM_VPMU_GATE_CLEAR, 0, 0) != HPM_VPMU_OK)
            return 5;
        HPM_VPMU_START();
    }
    for (long i = 0; i < WORDS; i += 8)
        big[i] = (double)(i & 7);
    for (int c = 0; c < calls; c++)
        s += stride_sum(2);
    if (strcmp(mode, "gated") == 0)
        HPM_VPMU_STOP();
    a = int_loop(100000) + depth_sum(50);
    if (strcmp(mode, "gated") == 0)
        HPM_VPMU_START();
    if (strcmp(mode, "heap") == 0) {
        double *h = malloc(WORDS * sizeof *h); /* HEAP_ALLOC */
        if (!h)
            return 1;
        memset(h, 0, WORDS * sizeof *h);
        s += heap_sum(h);
        free(h);
    }
    if (strcmp(mode, "reuse") == 0) {
        uintptr_t first = reuse_block(&s); /* REUSE_FIRST */
        uintptr_t second = reuse_block(&s); /* REUSE_SECOND */
        if (!first || first != second)
            return 7; /* not the case under test */
    }
    if (strcmp(mode, "gaps") == 0) {
        char *a = gaps_a(), *b = gaps_b(), *c = gaps_c();
        if (!a || !b || !c || !(a < b && b < c))
            return 1;
        uintptr_t freed = (uintptr_t)b;
        long freed_len = c - b;
        __asm__("" : "+r"(freed)); /* (the compiler's use-after-free check) */
        free(b); /* still mapped, between a and c: no block's */
        for (int pass = 0; pass < 2; pass++) {
            s += lines_sum(a, 65536, 0);
            s += lines_sum((const char *)freed, freed_len, pass);
            s += lines_sum(a, 65536, 0); /* (the third's first line out of the L1) */
            s += lines_sum(c, 65536, 0);
        }
        free(a);
        free(c);
    }
    if (strcmp(mode, "plt") == 0)
        for (int i = 0; i < 5; i++)
            s += (double)rand(); /* call rand@plt: the stub jumps to libc's */
    if (strcmp(mode, "anon") == 0) {
        /* a page of our own file, then 4 MiB of anonymous memory right
         * after it: mapped over one reservation, so they are adjacent */
        size_t page = (size_t)sysconf(_SC_PAGESIZE), len = WORDS * sizeof(double);
        int fd = open("/proc/self/exe", O_RDONLY);
        char *r = mmap(NULL, page + len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (fd < 0 || r == MAP_FAILED ||
            mmap(r, page, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED ||
            mmap(r + page, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                 -1, 0) == MAP_FAILED)
            return 1;
        close(fd);
        s += heap_sum((const double *)(r + page));
        munmap(r, page + len);
    }
    if (strcmp(mode, "threads") == 0) {
        pthread_t t;
        void *r;
        if (pthread_create(&t, NULL, thread_main, NULL) != 0 || pthread_join(t, &r) != 0)
            return 1;
        s += *(double *)r;
    }
    if (strcmp(mode, "workers") == 0 && workers() != 0)
        return 1;
    fprintf(stderr, "%g %ld\n", s, a); /* stdout is the report's */
    return 0;
}
