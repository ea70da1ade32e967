/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_overflow_rate EVENT THRESHOLD SPAN [sw] - how many
 * overflow interrupts a program gets per second of host time, and what each
 * costs: PAPI_overflow on EVENT every THRESHOLD events around a loop, the
 * handler counting its calls.
 *
 * One source, compiled against our libpapi and Debian's (bench/papi/
 * CMakeLists.txt); bench_papi_overflow.sh runs ours under hpm run on
 * PAPI_TOT_INS and Debian's natively on a software event (perf::TASK-CLOCK,
 * whose overflow the kernel delivers), in the same run.
 *
 * SPAN: the loop runs that many iterations ("n1000000") or until that many
 * seconds of host time passed ("2"). "sw" asks for PAPI_OVERFLOW_FORCE_SW
 * (the library's timer instead of the counter's interrupt).
 * Output: "overflow_rate EVENT calls N host_s S per_s R".
 */
#define _POSIX_C_SOURCE 200809L

#include <papi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile long calls;
static volatile double sink;

static void handler(int set, void *address, long long vector, void *context)
{
    (void)set;
    (void)address;
    (void)vector;
    (void)context;
    calls++;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, int rc)
{
    fprintf(stderr, "papi_overflow_rate: %s: %s\n", what, PAPI_strerror(rc));
    exit(2);
}

int main(int argc, char **argv)
{
    const char *event = argc > 1 ? argv[1] : "PAPI_TOT_INS";
    int threshold = argc > 2 ? atoi(argv[2]) : 1000;
    const char *span = argc > 3 ? argv[3] : "n10000000";
    int flags = argc > 4 && strcmp(argv[4], "sw") == 0 ? PAPI_OVERFLOW_FORCE_SW : 0;
    int set = PAPI_NULL, rc, code;
    long long v;
    double t0, t1, x = 0;

    if ((rc = PAPI_library_init(PAPI_VER_CURRENT)) != PAPI_VER_CURRENT)
        die("PAPI_library_init", rc);
    if ((rc = PAPI_create_eventset(&set)) != PAPI_OK)
        die("PAPI_create_eventset", rc);
    if ((rc = PAPI_event_name_to_code(event, &code)) != PAPI_OK)
        die(event, rc);
    if ((rc = PAPI_add_event(set, code)) != PAPI_OK)
        die(event, rc);
    if ((rc = PAPI_overflow(set, code, threshold, flags, handler)) != PAPI_OK)
        die("PAPI_overflow", rc);
    if ((rc = PAPI_start(set)) != PAPI_OK)
        die("PAPI_start", rc);
    t0 = now_s();
    if (span[0] == 'n') {
        long n = atol(span + 1);
        for (long i = 0; i < n; i++)
            x += (double)i * 0.5;
    } else {
        double until = t0 + atof(span);
        while (now_s() < until)
            for (int i = 0; i < 1000; i++)
                x += (double)i * 0.5;
    }
    t1 = now_s();
    sink = x;
    if ((rc = PAPI_stop(set, &v)) != PAPI_OK)
        die("PAPI_stop", rc);
    printf("overflow_rate %s calls %ld host_s %.6f per_s %.0f count %lld\n", event, calls,
           t1 - t0, (double)calls / (t1 - t0), v);
    return 0;
}
