/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A program of the high-level API's tests (hl_test.py runs it and checks
 * the report it leaves). One scenario per run:
 *   nested    regions inside regions, reads, overlapping regions, and the
 *             return codes of misuse
 *   threads   four threads and the main thread mark regions
 *   stop      PAPI_hl_stop, then the low-level API on the same thread, then
 *             regions again
 *   finalize  PAPI 6's PAPI_hl_set_events/PAPI_hl_finalize: the report
 *             exists before exit, and regions fail afterwards
 *   shutdown  a region, PAPI_shutdown, then a region begin: it fails with
 *             PAPI's error (the sets it would read are gone)
 *   exact     regions "short" and "long" three times each around the same
 *             loop of 2 instructions per turn, 1000 and 101000 turns: on
 *             the virtual PMU their PAPI_TOT_INS differ by exactly 600000
 * Prints "FAIL: ..." and exits 1 on a wrong return code; the report's
 * contents are hl_test.py's to check.
 */
#include "papi.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PAPI 6's calls, which PAPI 7's papi.h no longer declares. */
int PAPI_hl_init(void);
int PAPI_hl_set_events(const char *events);
int PAPI_hl_finalize(void);

static int failed;

#define EXPECT(call, want)                                                            \
    do {                                                                              \
        int r_ = (call);                                                              \
        if (r_ != (want)) {                                                           \
            printf("FAIL: %s returned %d (%s), expected %d\n", #call, r_,             \
                   PAPI_strerror(r_), (want));                                        \
            failed = 1;                                                               \
        }                                                                             \
    } while (0)

/* CPU work whose length scales with n, which the compiler cannot drop. */
static double work(long n)
{
    volatile double x = 1.0;

    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

static long unit = 2000000; /* about a few ms natively; HL_TEST_UNIT overrides */

static void nested(void)
{
    EXPECT(PAPI_hl_region_begin(NULL), PAPI_EINVAL);
    for (int i = 0; i < 3; i++) {
        EXPECT(PAPI_hl_region_begin("outer"), PAPI_OK);
        work(unit);
        EXPECT(PAPI_hl_read("outer"), PAPI_OK);
        for (int j = 0; j < 2; j++) {
            EXPECT(PAPI_hl_region_begin("inner"), PAPI_OK);
            work(unit);
            EXPECT(PAPI_hl_region_end("inner"), PAPI_OK);
        }
        EXPECT(PAPI_hl_read("outer"), PAPI_OK);
        EXPECT(PAPI_hl_region_end("outer"), PAPI_OK);
    }
    /* "inner" at top level is another region than "inner" in "outer". */
    EXPECT(PAPI_hl_region_begin("inner"), PAPI_OK);
    work(unit);
    EXPECT(PAPI_hl_region_end("inner"), PAPI_OK);
    /* Overlapping rather than nested: b's parent is a, and both count. */
    EXPECT(PAPI_hl_region_begin("a"), PAPI_OK);
    EXPECT(PAPI_hl_region_begin("b"), PAPI_OK);
    work(unit);
    EXPECT(PAPI_hl_region_end("a"), PAPI_OK);
    EXPECT(PAPI_hl_region_end("b"), PAPI_OK);
    /* Ends and reads without a beginning. */
    EXPECT(PAPI_hl_region_end("never"), PAPI_ENOTRUN);
    EXPECT(PAPI_hl_read("never"), PAPI_ENOTRUN);
    EXPECT(PAPI_hl_region_end("outer"), PAPI_ENOTRUN);
    /* A name that needs escaping in JSON. */
    EXPECT(PAPI_hl_region_begin("quote\"back\\slash"), PAPI_OK);
    EXPECT(PAPI_hl_region_end("quote\"back\\slash"), PAPI_OK);
}

static void *thread_main(void *arg)
{
    (void)arg;
    for (int i = 0; i < 3; i++) {
        EXPECT(PAPI_hl_region_begin("work"), PAPI_OK);
        work(unit);
        EXPECT(PAPI_hl_region_end("work"), PAPI_OK);
    }
    return NULL;
}

static void threads(void)
{
    pthread_t t[4];

    EXPECT(PAPI_hl_region_begin("main"), PAPI_OK);
    for (int i = 0; i < 4; i++)
        if (pthread_create(&t[i], NULL, thread_main, NULL) != 0) {
            printf("FAIL: pthread_create\n");
            exit(1);
        }
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    EXPECT(PAPI_hl_region_end("main"), PAPI_OK);
}

static void stop(const char *event)
{
    int es = PAPI_NULL;
    long long v[1] = {0};

    EXPECT(PAPI_hl_stop(), PAPI_ENOEVNT); /* nothing started yet */
    EXPECT(PAPI_hl_region_begin("before"), PAPI_OK);
    work(unit);
    EXPECT(PAPI_hl_region_end("before"), PAPI_OK);
    EXPECT(PAPI_hl_stop(), PAPI_OK);
    EXPECT(PAPI_hl_stop(), PAPI_ENOEVNT);
    /* The counters are free for the low-level API now. */
    if (event) {
        EXPECT(PAPI_create_eventset(&es), PAPI_OK);
        EXPECT(PAPI_add_named_event(es, event), PAPI_OK);
        EXPECT(PAPI_start(es), PAPI_OK);
        work(unit);
        EXPECT(PAPI_stop(es, v), PAPI_OK);
        if (v[0] <= 0) {
            printf("FAIL: low-level %s counted %lld after PAPI_hl_stop\n", event, v[0]);
            failed = 1;
        }
        EXPECT(PAPI_cleanup_eventset(es), PAPI_OK);
        EXPECT(PAPI_destroy_eventset(&es), PAPI_OK);
    }
    /* And the high-level API starts again. */
    EXPECT(PAPI_hl_region_begin("after"), PAPI_OK);
    work(unit);
    EXPECT(PAPI_hl_region_end("after"), PAPI_OK);
}

static void finalize(const char *events)
{
    if (events)
        EXPECT(PAPI_hl_set_events(events), PAPI_OK);
    else
        EXPECT(PAPI_hl_init(), PAPI_OK);
    EXPECT(PAPI_hl_set_events("PAPI_TOT_INS"), PAPI_EISRUN); /* too late now */
    EXPECT(PAPI_hl_region_begin("only"), PAPI_OK);
    work(unit);
    EXPECT(PAPI_hl_region_end("only"), PAPI_OK);
    EXPECT(PAPI_hl_finalize(), PAPI_OK);
    EXPECT(PAPI_hl_region_begin("late"), PAPI_EMISC);
    /* hl_test.py sees the report of "only" and nothing of "late"; this
     * marks that the report came from PAPI_hl_finalize, before exit. */
    printf("finalized\n");
    fflush(stdout);
}

static void shutdown_then_region(void)
{
    int r;
    EXPECT(PAPI_hl_region_begin("before"), PAPI_OK);
    work(unit);
    EXPECT(PAPI_hl_region_end("before"), PAPI_OK);
    PAPI_shutdown();
    r = PAPI_hl_region_begin("after");
    if (r == PAPI_OK) {
        printf("FAIL: PAPI_hl_region_begin after PAPI_shutdown returned PAPI_OK\n");
        failed = 1;
    }
}

/* n turns of two instructions (dec, jnz), n >= 1 */
static __attribute__((noinline)) void spin(long n)
{
    __asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
}

static void exact(void)
{
    /* the first calls resolve their PLT entries (the dynamic linker's
     * instructions would count in the first region's end) */
    EXPECT(PAPI_hl_region_begin("warm"), PAPI_OK);
    spin(1);
    EXPECT(PAPI_hl_region_end("warm"), PAPI_OK);
    for (int i = 0; i < 3; i++) {
        EXPECT(PAPI_hl_region_begin("short"), PAPI_OK);
        spin(1000);
        EXPECT(PAPI_hl_region_end("short"), PAPI_OK);
        EXPECT(PAPI_hl_region_begin("long"), PAPI_OK);
        spin(101000);
        EXPECT(PAPI_hl_region_end("long"), PAPI_OK);
    }
}

/* A region named with bytes that are not UTF-8 (and a quote): the report
 * must still be JSON (hl_test.py loads it as UTF-8 text). */
static void utf8(void)
{
    static const char name[] = "bad\xff\xfe\"name";
    EXPECT(PAPI_hl_region_begin(name), PAPI_OK);
    work(unit);
    EXPECT(PAPI_hl_region_end(name), PAPI_OK);
}

int main(int argc, char **argv)
{
    const char *scenario = argc > 1 ? argv[1] : "nested";
    const char *arg = argc > 2 && argv[2][0] ? argv[2] : NULL;
    const char *u = getenv("HL_TEST_UNIT");

    if (u)
        unit = atol(u);
    if (!strcmp(scenario, "nested"))
        nested();
    else if (!strcmp(scenario, "threads"))
        threads();
    else if (!strcmp(scenario, "stop"))
        stop(arg);
    else if (!strcmp(scenario, "finalize"))
        finalize(arg);
    else if (!strcmp(scenario, "utf8"))
        utf8();
    else if (!strcmp(scenario, "exact"))
        exact();
    else if (!strcmp(scenario, "shutdown"))
        shutdown_then_region();
    else {
        fprintf(stderr,
                "usage: %s nested|threads|stop [EVENT]|finalize [EVENTS]|utf8|exact|shutdown\n",
                argv[0]);
        return 2;
    }
    if (!failed)
        printf("PASSED\n");
    return failed;
}
