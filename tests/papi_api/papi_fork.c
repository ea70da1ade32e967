/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A running set read in a child of fork() (run under `hpm run --`): the
 * child's counts start from zero at the fork, as a set counts its thread
 * from its start (docs/papi.md, Fork). The parent starts a PAPI set of
 * PAPI_TOT_INS and a libhpm set of sim::INSTRUCTIONS, runs a loop of
 * 3 * N1 instructions and forks; the child reads both at once, runs the
 * loop again and reads them again. Checked in the child:
 *   - the first reads are small and not negative (the instructions from
 *     the fork to the read: under LIBRARY_MAX; before the fix the parent's
 *     base was subtracted from the child's own counts: negative);
 *   - the loop adds exactly what it added in the parent (3 * N2 between
 *     two reads, the reads' own instructions the same each time);
 *   - PAPI_stop in the child gives a value at least the second read's;
 * and in the parent, after the child: its set still counts from its start.
 * Without the virtual PMU the test reports itself skipped (exit 77).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hpm/hpm.h"
#include "papi.h"
#include "nop_loop.h"

#define N1 100000ul
#define N2 40000ul
#define LIBRARY_MAX 20000 /* instructions from the fork to a read, at most */

static int failures;
#define EXPECT(cond, ...)                                                   \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond);      \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
            failures++;                                                     \
        }                                                                   \
    } while (0)


/* both sets read back to back: PAPI's, then libhpm's */
static void read_both(int set, int hset, long long *p, int64_t *h)
{
    int rc = PAPI_read(set, p);
    EXPECT(rc == PAPI_OK, "PAPI_read: %s", PAPI_strerror(rc));
    rc = hpm_read(hset, h);
    EXPECT(rc == HPM_OK, "hpm_read: %s", hpm_strerror(rc));
}

static int child(int set, int hset, long long loop_papi, int64_t loop_hpm)
{
    long long p1, p2, ps = 0;
    int64_t h1, h2;
    read_both(set, hset, &p1, &h1);
    loop(N2);
    read_both(set, hset, &p2, &h2);
    int rc = PAPI_stop(set, &ps);
    EXPECT(rc == PAPI_OK, "PAPI_stop in the child: %s", PAPI_strerror(rc));
    printf("child: PAPI_TOT_INS %lld then %lld (stop %lld), sim::INSTRUCTIONS %lld then %lld\n",
           p1, p2, ps, (long long)h1, (long long)h2);
    EXPECT(p1 >= 0 && p1 < LIBRARY_MAX, "the child's first PAPI_read %lld: not from the fork", p1);
    EXPECT(h1 >= 0 && h1 < LIBRARY_MAX, "the child's first hpm_read %lld: not from the fork",
           (long long)h1);
    /* the loop and one pair of reads, as in the parent */
    EXPECT(p2 - p1 == loop_papi, "the child's loop: %lld, the parent's %lld", p2 - p1, loop_papi);
    EXPECT(h2 - h1 == loop_hpm, "the child's loop (hpm): %lld, the parent's %lld",
           (long long)(h2 - h1), (long long)loop_hpm);
    EXPECT(ps >= p2, "PAPI_stop in the child %lld, before it %lld", ps, p2);
    return failures ? 1 : 0;
}

int main(void)
{
    int set = PAPI_NULL, hset, rc, status;
    long long p0, p1, p2, pend;
    int64_t h0, h1, h2;
    hpm_event_t ev;
    pid_t pid;

    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
        return 1;
    /* libhpm.so: libpapi keeps its own copy of libhpm inside (only PAPI's
     * names leave it), so this one is initialised too */
    if (PAPI_create_eventset(&set) != PAPI_OK ||
        PAPI_add_named_event(set, "PAPI_TOT_INS") != PAPI_OK || hpm_init() < 0 ||
        hpm_event_find("sim::INSTRUCTIONS", &ev) != HPM_OK) {
        printf("no virtual PMU here (run under hpm run): skipped\n");
        return 77;
    }
    if (hpm_set_create(&hset) != HPM_OK || hpm_set_add(hset, ev) < 0)
        return 1;
    if (PAPI_start(set) != PAPI_OK || hpm_start(hset) != HPM_OK)
        return 1;
    loop(N1);
    /* once first: the first calls resolve their PLT entries (the dynamic
     * linker's instructions), which the child's calls do not */
    read_both(set, hset, &p0, &h0);
    read_both(set, hset, &p0, &h0);
    loop(N2);
    read_both(set, hset, &p1, &h1);
    /* what the loop and a pair of reads add, the child's measure */
    EXPECT(p1 - p0 >= 3 * (long long)N2, "the parent's loop: %lld", p1 - p0);
    fflush(stdout);
    pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0)
        _exit(child(set, hset, p1 - p0, h1 - h0));
    EXPECT(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
           "the child failed (status %#x)", status);
    read_both(set, hset, &p2, &h2);
    EXPECT(p2 > p1 && p2 >= 3 * (long long)(N1 + N2), "the parent after the child: %lld", p2);
    EXPECT(h2 > h1, "the parent after the child (hpm): %lld", (long long)h2);
    rc = PAPI_stop(set, &pend);
    EXPECT(rc == PAPI_OK && pend >= p2, "the parent's PAPI_stop: %s, %lld", PAPI_strerror(rc),
           pend);
    printf("parent: PAPI_TOT_INS %lld, %lld, after the child %lld, stop %lld\n", p0, p1, p2,
           pend);
    if (failures)
        fprintf(stderr, "papi_fork: %d failures\n", failures);
    else
        printf("papi_fork: the child's counts start at the fork\n");
    return failures ? 1 : 0;
}
