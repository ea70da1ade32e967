/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpapi with threads: usage: test_papi_threads EVENT SCENARIO...
 *   lockorder   thread A starts and stops a set for 3 s while thread B reads
 *               it (an event any thread may read: perf::TASK-CLOCK); a
 *               lock-order inversion hangs both, and a watchdog fails it
 *   owner_exit  a thread starts a set and exits with it running: the set is
 *               stopped, keeps the thread's counts, and can be started,
 *               stopped, cleaned up and destroyed by another thread
 * Run natively and under `hpm run` (owner_exit with sim::INSTRUCTIONS), and
 * under ThreadSanitizer (label threads).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hpm_check.h"
#include "papi.h"

#define START_STOP_SECONDS 3
#define WATCHDOG_SECONDS 30

static const char *g_event;
static int g_set = PAPI_NULL;
static atomic_int g_done;
static atomic_long g_reads;
static volatile double sink;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void burn(long n)
{
    double x = 1.0;
    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

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

static void *start_stop_loop(void *arg)
{
    long long v[1];
    double end = now_s() + START_STOP_SECONDS;
    (void)arg;
    while (now_s() < end) {
        CHECK_EQ(PAPI_start(g_set), PAPI_OK);
        CHECK_EQ(PAPI_stop(g_set, v), PAPI_OK);
    }
    atomic_store(&g_done, 1);
    return NULL;
}

static void *read_loop(void *arg)
{
    long long v[1];
    (void)arg;
    while (!atomic_load(&g_done)) {
        CHECK_EQ(PAPI_read(g_set, v), PAPI_OK);
        atomic_fetch_add(&g_reads, 1);
    }
    return NULL;
}

static void scenario_lockorder(void)
{
    pthread_t a, b, w;
    g_set = PAPI_NULL;
    CHECK_EQ(PAPI_create_eventset(&g_set), PAPI_OK);
    CHECK_EQ(PAPI_add_named_event(g_set, g_event), PAPI_OK);
    atomic_store(&g_done, 0);
    pthread_create(&w, NULL, watchdog, NULL);
    pthread_create(&b, NULL, read_loop, NULL);
    pthread_create(&a, NULL, start_stop_loop, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    pthread_join(w, NULL);
    CHECK(atomic_load(&g_reads) > 0);
    CHECK_EQ(PAPI_cleanup_eventset(g_set), PAPI_OK);
    CHECK_EQ(PAPI_destroy_eventset(&g_set), PAPI_OK);
}

static void *start_and_exit(void *arg)
{
    (void)arg;
    CHECK_EQ(PAPI_register_thread(), PAPI_OK);
    CHECK_EQ(PAPI_start(g_set), PAPI_OK);
    burn(3000000);
    return NULL; /* exits with the set running */
}

static void scenario_owner_exit(void)
{
    pthread_t t;
    long long v[1] = {-1}, again[1] = {-1};
    int state = 0;
    g_set = PAPI_NULL;
    CHECK_EQ(PAPI_create_eventset(&g_set), PAPI_OK);
    CHECK_EQ(PAPI_add_named_event(g_set, g_event), PAPI_OK);
    pthread_create(&t, NULL, start_and_exit, NULL);
    pthread_join(t, NULL);
    /* the thread's exit stopped the set and kept what it counted */
    CHECK_EQ(PAPI_state(g_set, &state), PAPI_OK);
    CHECK_EQ(state, PAPI_STOPPED);
    CHECK_EQ(PAPI_read(g_set, v), PAPI_OK);
    CHECK(v[0] > 0);
    CHECK_EQ(PAPI_stop(g_set, again), PAPI_ENOTRUN);
    CHECK_EQ(PAPI_read(g_set, again), PAPI_OK);
    CHECK_EQ(again[0], v[0]);
    /* and it is this thread's to use now */
    CHECK_EQ(PAPI_start(g_set), PAPI_OK);
    burn(1000000);
    CHECK_EQ(PAPI_stop(g_set, v), PAPI_OK);
    CHECK(v[0] > 0);
    CHECK_EQ(PAPI_cleanup_eventset(g_set), PAPI_OK);
    CHECK_EQ(PAPI_destroy_eventset(&g_set), PAPI_OK);
    CHECK_EQ(g_set, PAPI_NULL);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s EVENT SCENARIO...\n", argv[0]);
        return 2;
    }
    g_event = argv[1];
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
        fprintf(stderr, "PAPI_library_init failed\n");
        return 1;
    }
    CHECK_EQ(PAPI_thread_init(pthread_self), PAPI_OK);
    int code;
    if (PAPI_event_name_to_code(g_event, &code) != PAPI_OK) {
        printf("SKIP: %s cannot be counted here\n", g_event);
        PAPI_shutdown();
        return 77;
    }
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "lockorder") == 0)
            scenario_lockorder();
        else if (strcmp(argv[i], "owner_exit") == 0)
            scenario_owner_exit();
        else {
            fprintf(stderr, "unknown scenario %s\n", argv[i]);
            return 2;
        }
    }
    PAPI_shutdown();
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
