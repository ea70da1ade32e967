/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PAPI_overflow across fork() (run under `hpm run --`): the tool's arming
 * is not inherited by a forked child, but libhpm's fork handler resets the
 * forking thread's running sets there and so arms them again (docs/papi.md,
 * After fork()): the child's handler is called once per threshold of the
 * child's own count, from the fork on, and the parent's arming goes on.
 * The parent arms PAPI_TOT_INS every THRESHOLD instructions, runs a loop
 * and forks; the child reads, runs the loop, reads again: its handler calls
 * are the thresholds its count passed between the reads (within one: a
 * signal is delivered at the next superblock). Without the virtual PMU the
 * test reports itself skipped (exit 77).
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "papi.h"
#include "nop_loop.h"

#define THRESHOLD 100000
#define N 1000000ul /* loop iterations: 3N instructions */

static volatile long hits;
static volatile void *hit_lo = (void *)~0ul, *hit_hi;

static void on_overflow(int set, void *address, long long vector, void *context)
{
    (void)set;
    (void)vector;
    (void)context;
    hits++;
    if (address < hit_lo)
        hit_lo = address;
    if (address > hit_hi)
        hit_hi = address;
}


/* the child: 0 when its interrupts are those of its own count */
static int child(int set)
{
    long long v0 = 0, v1 = 0;
    long expect;
    hits = 0;
    hit_lo = (void *)~0ul;
    hit_hi = NULL;
    if (PAPI_read(set, &v0) != PAPI_OK)
        return 2;
    loop(N);
    if (PAPI_read(set, &v1) != PAPI_OK)
        return 2;
    expect = (long)(v1 / THRESHOLD - v0 / THRESHOLD);
    printf("child: PAPI_TOT_INS %lld then %lld, %ld interrupts, %ld expected\n", v0, v1, hits,
           expect);
    fflush(stdout);
    if (v0 < 0 || v0 >= THRESHOLD || v1 - v0 < 3 * (long long)N) {
        fprintf(stderr, "the child's count does not start at the fork: %lld, %lld\n", v0, v1);
        return 1;
    }
    if (hits < expect - 1 || hits > expect + 1) {
        fprintf(stderr, "the child's interrupts: %ld, its count passed %ld thresholds\n", hits,
                expect);
        return 1;
    }
    if ((void *)hit_lo < (void *)&loop || (void *)hit_hi > (void *)&loop_end + 64) {
        fprintf(stderr, "the child's interrupts at [%p, %p], outside the loop at %p\n",
                (void *)hit_lo, (void *)hit_hi, (void *)&loop);
        return 1;
    }
    return 0;
}

int main(void)
{
    int set = PAPI_NULL, status = 0, failed;
    long long v = 0;
    long before;
    pid_t pid;

    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT || PAPI_create_eventset(&set) ||
        PAPI_add_named_event(set, "PAPI_TOT_INS") != PAPI_OK) {
        printf("no virtual PMU here (run under hpm run): skipped\n");
        return 77;
    }
    if (PAPI_overflow(set, PAPI_TOT_INS, THRESHOLD, 0, on_overflow) != PAPI_OK ||
        PAPI_start(set) != PAPI_OK)
        return 1;
    loop(N);
    before = hits;
    fflush(stdout);
    pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0)
        _exit(child(set));
    failed = waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    loop(N);
    if (PAPI_stop(set, &v) != PAPI_OK)
        return 1;
    printf("parent: %ld interrupts before the fork, %ld in all, PAPI_TOT_INS %lld\n", before,
           hits, v);
    if (failed)
        fprintf(stderr, "the child failed (status %#x)\n", status);
    if (before < 3 * (long)N / THRESHOLD - 1 || hits < v / THRESHOLD - 1) {
        fprintf(stderr, "the parent's interrupts: %ld then %ld for %lld\n", before, hits, v);
        failed = 1;
    }
    if (!failed)
        printf("papi_fork_overflow: the child's interrupts are those of its own count\n");
    return failed;
}
