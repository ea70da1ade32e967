/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libhpm's locks under two threads that use one set, natively: one thread
 * starts and stops the set while another asks for its state and reads it.
 * Every call takes the library lock and the set's lock; taken in different
 * orders by the two threads they deadlock, so a watchdog fails the test
 * when the loops have not finished in time. Also: a set started by a thread
 * that exits is stopped, readable and reusable from another thread.
 * Built natively and under ThreadSanitizer (label threads).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "hpm/hpm.h"
#include "hpm_check.h"

/* The start/stop loop runs this long: a lock-order inversion hangs it well
 * within it on a loaded 2-core machine (it did, before the fix). */
#define START_STOP_SECONDS 3
#define WATCHDOG_SECONDS 30

static int g_set;
static atomic_int g_done;
static atomic_long g_reads;

static void *watchdog(void *arg)
{
    (void)arg;
    for (int i = 0; i < WATCHDOG_SECONDS * 10; i++) {
        if (atomic_load(&g_done))
            return NULL;
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
    }
    fprintf(stderr, "the threads did not finish in %d s: deadlock\n", WATCHDOG_SECONDS);
    _exit(1);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *start_stop_loop(void *arg)
{
    int64_t v[1];
    double end = now_s() + START_STOP_SECONDS;
    (void)arg;
    while (now_s() < end) {
        int rc = hpm_start(g_set);
        CHECK_EQ(rc, HPM_OK);
        rc = hpm_stop(g_set, v);
        CHECK_EQ(rc, HPM_OK);
    }
    atomic_store(&g_done, 1);
    return NULL;
}

static void *state_read_loop(void *arg)
{
    int64_t v[1];
    (void)arg;
    while (!atomic_load(&g_done)) {
        int st = hpm_set_state(g_set);
        CHECK(st == HPM_SET_RUNNING || st == HPM_SET_STOPPED);
        /* perf sets may be read by any thread, running or stopped */
        CHECK_EQ(hpm_read(g_set, v), HPM_OK);
        atomic_fetch_add(&g_reads, 1);
    }
    return NULL;
}

static void test_start_stop_against_reads(void)
{
    hpm_event_t e;
    pthread_t a, b, w;
    g_set = -1;
    CHECK_EQ(hpm_set_create(&g_set), HPM_OK);
    CHECK_EQ(hpm_event_find("perf::TASK-CLOCK", &e), HPM_OK);
    CHECK_EQ(hpm_set_add(g_set, e), 0);
    atomic_store(&g_done, 0);
    pthread_create(&w, NULL, watchdog, NULL);
    pthread_create(&b, NULL, state_read_loop, NULL);
    pthread_create(&a, NULL, start_stop_loop, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    pthread_join(w, NULL);
    CHECK(atomic_load(&g_reads) > 0);
    CHECK_EQ(hpm_set_destroy(g_set), HPM_OK);
}

/* A thread starts a thread-bound set and exits with it running. */
static void *start_and_exit(void *arg)
{
    volatile double x = 1.0;
    CHECK_EQ(hpm_start(*(int *)arg), HPM_OK);
    for (long i = 0; i < 2000000; i++)
        x = x * 1.0000001 + 1e-9;
    return NULL;
}

static void test_owner_exits(void)
{
    hpm_event_t e;
    pthread_t t;
    int64_t v[1] = {-1};
    int set = -1;
    CHECK_EQ(hpm_set_create(&set), HPM_OK);
    CHECK_EQ(hpm_event_find("perf::TASK-CLOCK", &e), HPM_OK);
    CHECK_EQ(hpm_set_add(set, e), 0);
    pthread_create(&t, NULL, start_and_exit, &set);
    pthread_join(t, NULL);
    /* the exiting thread froze its counts */
    CHECK_EQ(hpm_set_state(set), HPM_SET_STOPPED);
    CHECK_EQ(hpm_read(set, v), HPM_OK);
    CHECK(v[0] > 0);
    CHECK_EQ(hpm_stop(set, v), HPM_ENOTRUNNING);
    CHECK_EQ(hpm_start(set), HPM_OK);
    CHECK_EQ(hpm_stop(set, v), HPM_OK);
    CHECK_EQ(hpm_set_destroy(set), HPM_OK);
}

int main(void)
{
    hpm_event_t e;
    if (hpm_init() < 1) {
        fprintf(stderr, "no component\n");
        return 1;
    }
    if (hpm_event_find("perf::TASK-CLOCK", &e) != HPM_OK) {
        printf("SKIP: perf::TASK-CLOCK cannot be counted here\n");
        hpm_shutdown();
        return 77;
    }
    test_start_stop_against_reads();
    test_owner_exits();
    hpm_shutdown();
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
