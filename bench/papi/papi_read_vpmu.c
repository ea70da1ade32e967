/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_read_vpmu EVENT[,EVENT...] [CALLS] - what one PAPI_read costs a
 * program that runs on the virtual PMU (under `hpm run`): the instructions
 * it adds to the program's own count, and host time.
 *
 * One source, compiled against our libpapi and Debian's (bench/papi/
 * CMakeLists.txt); bench_papi_vpmu.sh runs both under hpm run. The
 * instructions are the tool's exact count of the calling thread
 * (HPM_VPMU_READ, a client request the program makes itself), around CALLS
 * reads, less the same loop without the read; host time is the time of the
 * loop over CALLS: wall time and the process's CPU time (the tool and the
 * program are one host process; CPU time leaves out what other work on the
 * machine took, which moves wall times on a shared VM by half). Both loops
 * come after CALLS / 10 untimed reads: the first reads translate the read's
 * code, and with a modeled event the models start at PAPI_start and every
 * translation is made again; that is paid once, not per read.
 *
 * EVENTS "request" times the floor instead: the client request a PAPI_read
 * of the virtual PMU needs at least (HPM_VPMU_READ_KINDS, every per-core
 * kind of the calling thread), without PAPI.
 *
 * The other calls a program makes around its work, timed the same way:
 *   papi_read_vpmu start_stop:EVENTS [CALLS]   PAPI_start + PAPI_stop
 *   papi_read_vpmu accum:EVENTS [CALLS]        PAPI_accum of the running set
 *   papi_read_vpmu reset:EVENTS [CALLS]        PAPI_reset of the running set
 *   papi_read_vpmu region [CALLS]              PAPI_hl_region_begin + end
 *                                              (the high-level API's own
 *                                              events: PAPI_EVENTS, else its
 *                                              defaults)
 *
 * Output: "OP_cost EVENTS instructions X host_ns Y cpu_ns Z" (OP read,
 * start_stop, accum, reset or region), or exit 2 when an event cannot be added (the
 * library has no such event here).
 */
#define _POSIX_C_SOURCE 200809L

#include <papi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hpm_client.h"

static double clock_ns(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

struct stamp {
    double wall, cpu;
};

static struct stamp now(void)
{
    struct stamp s = {clock_ns(CLOCK_MONOTONIC), clock_ns(CLOCK_PROCESS_CPUTIME_ID)};
    return s;
}

static void print_cost(const char *op, const char *events, double insns, struct stamp t0,
                       struct stamp t1, long calls)
{
    printf("%s_cost %s instructions %.1f host_ns %.0f cpu_ns %.0f\n", op, events, insns,
           (t1.wall - t0.wall) / (double)calls, (t1.cpu - t0.cpu) / (double)calls);
}

static uint64_t my_instructions(void)
{
    uint64_t c[1] = {0};
    return HPM_VPMU_READ(c, 1) == 1 ? c[0] : 0; /* VPMU_EV_INSTRUCTIONS is first */
}

/* The calls timed on a running set (accum, reset) or around one (a start
 * and a stop): PAPI_OK or not. */
typedef int (*set_call)(int set, long long *v);

static int start_stop(int set, long long *v)
{
    return PAPI_start(set) != PAPI_OK ? 1 : PAPI_stop(set, v);
}

static int accum(int set, long long *v)
{
    return PAPI_accum(set, v);
}

static int reset(int set, long long *v)
{
    (void)v;
    return PAPI_reset(set);
}

/* op on set CALLS times, after CALLS / 10 untimed calls (the first
 * translate the call's code); accum and reset on the running set. */
static int call_cost(const char *op, set_call call, int set, const char *events, long calls)
{
    long long v[8] = {0};
    uint64_t i0, i1, i2;
    struct stamp t0, t1;
    long i;
    int running = call != start_stop;
    if (running && PAPI_start(set) != PAPI_OK)
        return 1;
    for (i = 0; i < calls / 10; i++)
        if (call(set, v) != PAPI_OK)
            return 1;
    i0 = my_instructions();
    for (i = 0; i < calls; i++)
        __asm__ volatile("" ::: "memory");
    i1 = my_instructions();
    t0 = now();
    for (i = 0; i < calls; i++) {
        if (call(set, v) != PAPI_OK)
            return 1;
        __asm__ volatile("" ::: "memory");
    }
    t1 = now();
    i2 = my_instructions();
    print_cost(op, events, ((double)(i2 - i1) - (double)(i1 - i0)) / (double)calls, t0, t1, calls);
    return running && PAPI_stop(set, v) != PAPI_OK;
}

/* PAPI_hl_region_begin + PAPI_hl_region_end of one region, after CALLS /
 * 10 untimed pairs (the first also choose and start the events). */
static int region_cost(long calls)
{
    uint64_t i0, i1, i2;
    struct stamp t0, t1;
    long i;
    for (i = 0; i < calls / 10 + 1; i++)
        if (PAPI_hl_region_begin("bench") != PAPI_OK || PAPI_hl_region_end("bench") != PAPI_OK)
            return 1;
    i0 = my_instructions();
    for (i = 0; i < calls; i++)
        __asm__ volatile("" ::: "memory");
    i1 = my_instructions();
    t0 = now();
    for (i = 0; i < calls; i++) {
        if (PAPI_hl_region_begin("bench") != PAPI_OK || PAPI_hl_region_end("bench") != PAPI_OK)
            return 1;
        __asm__ volatile("" ::: "memory");
    }
    t1 = now();
    i2 = my_instructions();
    print_cost("region", getenv("PAPI_EVENTS") ? getenv("PAPI_EVENTS") : "default",
               ((double)(i2 - i1) - (double)(i1 - i0)) / (double)calls, t0, t1, calls);
    return 0;
}

int main(int argc, char **argv)
{
    const char *events = argc > 1 ? argv[1] : "PAPI_TOT_INS";
    long calls = argc > 2 ? atol(argv[2]) : 20000, i;
    static const struct {
        const char *name;
        set_call call;
    } ops[] = {{"start_stop", start_stop}, {"accum", accum}, {"reset", reset}};
    const __typeof__(ops[0]) *op = NULL;
    int set = PAPI_NULL, rc;
    long long v[8];
    char buf[256], *save = NULL, *name;
    uint64_t i0, i1, i2;
    struct stamp t0, t1;

    if (HPM_VPMU_IS_RUNNING() == 0) {
        fprintf(stderr, "papi_read_vpmu: run me under hpm run\n");
        return 1;
    }
    if (strcmp(events, "request") == 0) {
        static uint64_t kinds[256];
        for (i = 0; i < calls / 10; i++)
            if (HPM_VPMU_READ_KINDS(kinds, 256) < 0)
                return 1;
        i0 = my_instructions();
        for (i = 0; i < calls; i++)
            __asm__ volatile("" ::: "memory");
        i1 = my_instructions();
        t0 = now();
        for (i = 0; i < calls; i++) {
            if (HPM_VPMU_READ_KINDS(kinds, 256) < 0)
                return 1;
            __asm__ volatile("" ::: "memory");
        }
        t1 = now();
        i2 = my_instructions();
        print_cost("read", "request", ((double)(i2 - i1) - (double)(i1 - i0)) / (double)calls, t0, t1,
                   calls);
        return 0;
    }
    if (strcmp(events, "region") == 0)
        return region_cost(calls);
    for (i = 0; i < (long)(sizeof ops / sizeof *ops); i++)
        if (strncmp(events, ops[i].name, strlen(ops[i].name)) == 0 &&
            events[strlen(ops[i].name)] == ':') {
            op = &ops[i];
            events += strlen(ops[i].name) + 1;
        }
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT || PAPI_create_eventset(&set))
        return 1;
    snprintf(buf, sizeof buf, "%s", events);
    for (name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save))
        if ((rc = PAPI_add_named_event(set, name)) != PAPI_OK) {
            printf("cannot_count %s %s\n", name, PAPI_strerror(rc));
            return 2;
        }
    if (op)
        return call_cost(op->name, op->call, set, events, calls);
    if (PAPI_start(set) != PAPI_OK)
        return 1;
    for (i = 0; i < calls / 10; i++)
        if (PAPI_read(set, v) != PAPI_OK)
            return 1;
    /* the loop alone, then with the read: the difference is the read */
    i0 = my_instructions();
    for (i = 0; i < calls; i++)
        __asm__ volatile("" ::: "memory");
    i1 = my_instructions();
    t0 = now();
    for (i = 0; i < calls; i++) {
        if (PAPI_read(set, v) != PAPI_OK)
            return 1;
        __asm__ volatile("" ::: "memory");
    }
    t1 = now();
    i2 = my_instructions();
    print_cost("read", events, ((double)(i2 - i1) - (double)(i1 - i0)) / (double)calls, t0, t1, calls);
    return PAPI_stop(set, v) == PAPI_OK ? 0 : 1;
}
