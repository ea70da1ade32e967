/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_latency [CALLS] - latency of PAPI_read, PAPI_start+PAPI_stop,
 * PAPI_accum and PAPI_reset on one event (perf::TASK-CLOCK, or
 * $BENCH_PAPI_EVENT), as the median over CALLS calls each (default 10^6, or
 * $BENCH_PAPI_CALLS).
 *
 * One source, compiled twice by bench/papi/CMakeLists.txt: against Debian's
 * libpapi (papi_latency_debian) and ours (papi_latency_ours).
 * bench_papi.sh runs both and prints the ratios.
 *
 * Each call is timed alone, between two fenced TSC reads (x86-64; elsewhere
 * clock_gettime), less the median cost of an empty timed region, and
 * converted to nanoseconds with the TSC rate measured against
 * CLOCK_MONOTONIC. Timing calls one by one rather than in batches is what
 * gives a median per call: a batch mean would let one preempted call (the
 * machine this runs on is shared) move the result.
 *
 * Output, one line each:
 *   library VERSION
 *   event NAME
 *   median_ns papi_read X p10 Y p90 Z
 *   ... papi_start_stop, papi_accum, papi_reset
 * Exit status 2 when the event cannot be counted (bench_papi.sh then says
 * why, or retries Debian's library with the libpfm4 shim), 1 on any other
 * PAPI error.
 */
#define _POSIX_C_SOURCE 200809L

#include <papi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_TSC 1
#endif

static uint64_t now_ticks(void)
{
#ifdef HAVE_TSC
    /* lfence on both sides: the call being timed can neither start before
     * the first read nor still be running at the second. */
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

static double mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Nanoseconds per tick: 1 without a TSC; else measured over 100 ms. */
static double ns_per_tick(void)
{
#ifdef HAVE_TSC
    double n0 = mono_ns();
    uint64_t t0 = now_ticks();
    while (mono_ns() - n0 < 1e8) {
    }
    double n1 = mono_ns();
    uint64_t t1 = now_ticks();
    return (n1 - n0) / (double)(t1 - t0);
#else
    return 1.0;
#endif
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t quantile(uint64_t *v, size_t n, double q)
{
    return v[(size_t)(q * (double)(n - 1))];
}

static void die(const char *what, int rc)
{
    fprintf(stderr, "papi_latency: %s: %s\n", what, PAPI_strerror(rc));
    exit(1);
}

enum op { OP_NONE, OP_READ, OP_START_STOP, OP_ACCUM, OP_RESET };

/* Times n calls of op into samples (ticks, sorted). */
static void time_op(enum op op, int es, long long *vals, uint64_t *samples, size_t n)
{
    int rc = PAPI_OK;
    for (size_t i = 0; i < n; i++) {
        uint64_t t0 = now_ticks();
        switch (op) {
        case OP_NONE:
            break;
        case OP_READ:
            rc = PAPI_read(es, vals);
            break;
        case OP_START_STOP:
            rc = PAPI_start(es);
            if (rc == PAPI_OK)
                rc = PAPI_stop(es, vals);
            break;
        case OP_ACCUM:
            rc = PAPI_accum(es, vals);
            break;
        case OP_RESET:
            rc = PAPI_reset(es);
            break;
        }
        uint64_t t1 = now_ticks();
        if (rc != PAPI_OK)
            die("timed call", rc);
        samples[i] = t1 - t0;
    }
    qsort(samples, n, sizeof samples[0], cmp_u64);
}

int main(int argc, char **argv)
{
    size_t n = 1000000;
    const char *env = getenv("BENCH_PAPI_CALLS");
    if (argc > 1)
        env = argv[1];
    if (env && atol(env) > 0)
        n = (size_t)atol(env);
    const char *event = getenv("BENCH_PAPI_EVENT");
    if (!event || !*event)
        event = "perf::TASK-CLOCK";

    int rc = PAPI_library_init(PAPI_VER_CURRENT);
    if (rc != PAPI_VER_CURRENT)
        die("PAPI_library_init", rc);
    int es = PAPI_NULL;
    if ((rc = PAPI_create_eventset(&es)) != PAPI_OK)
        die("PAPI_create_eventset", rc);
    if ((rc = PAPI_add_named_event(es, event)) != PAPI_OK) {
        printf("cannot_count %s: %s\n", event, PAPI_strerror(rc));
        return 2;
    }
    int v = PAPI_get_opt(PAPI_LIB_VERSION, NULL);
    printf("library %d.%d.%d.%d\n", PAPI_VERSION_MAJOR(v), PAPI_VERSION_MINOR(v),
           PAPI_VERSION_REVISION(v), PAPI_VERSION_INCREMENT(v));
    printf("event %s\ncalls %zu\n", event, n);

    uint64_t *samples = malloc(n * sizeof *samples);
    if (!samples) {
        fprintf(stderr, "papi_latency: out of memory\n");
        return 1;
    }
    long long vals[1] = {0};
    double tick_ns = ns_per_tick();

    /* The cost of the timing itself, taken off every median. */
    time_op(OP_NONE, es, vals, samples, n);
    uint64_t overhead = quantile(samples, n, 0.5);

    static const struct {
        enum op op;
        const char *name;
        int running; /* the event set is started around it */
    } ops[] = {
        {OP_READ, "papi_read", 1},
        {OP_START_STOP, "papi_start_stop", 0},
        {OP_ACCUM, "papi_accum", 1},
        {OP_RESET, "papi_reset", 1},
    };
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        if (ops[k].running && (rc = PAPI_start(es)) != PAPI_OK)
            die("PAPI_start", rc);
        time_op(ops[k].op, es, vals, samples, n);
        if (ops[k].running && (rc = PAPI_stop(es, vals)) != PAPI_OK)
            die("PAPI_stop", rc);
        double q[3] = {0.5, 0.1, 0.9};
        double ns[3];
        for (int j = 0; j < 3; j++) {
            uint64_t t = quantile(samples, n, q[j]);
            t = t > overhead ? t - overhead : 0;
            ns[j] = (double)t * tick_ns;
        }
        printf("median_ns %s %.1f p10 %.1f p90 %.1f\n", ops[k].name, ns[0], ns[1], ns[2]);
        fflush(stdout);
    }
    printf("timer_overhead_ns %.1f\n", (double)overhead * tick_ns);

    free(samples);
    PAPI_cleanup_eventset(es);
    PAPI_destroy_eventset(&es);
    PAPI_shutdown();
    return 0;
}
