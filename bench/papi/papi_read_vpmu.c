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
 *   papi_read_vpmu read_ts:EVENTS [CALLS]      PAPI_read_ts of the running set
 *   papi_read_vpmu floor:READS:CLOCKS CALLS    no PAPI: CALLS times READS
 *                                              HPM_VPMU_READ_KINDS and CLOCKS
 *                                              clock reads (TSC reads where the
 *                                              tool offers HPM_VPMU_CLOCK_SYNC,
 *                                              else HPM_VPMU_CLOCK), models on
 *                                              (the floor of bench_papi_tools.sh)
 *   papi_read_vpmu region [CALLS]              PAPI_hl_region_begin + end
 *                                              (the high-level API's own
 *                                              events: PAPI_EVENTS, else its
 *                                              defaults)
 *
 * PAPI_READ_VPMU_MPX=kernel or =sw in the environment multiplexes the set
 * first, as papi_multiplex_cost does (PAPI_set_multiplex, or PAPI_set_opt
 * with PAPI_MULTIPLEX_FORCE_SW): its calls should cost what the same set's
 * cost without it.
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
#include <x86intrin.h>

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

/* CALL (an expression, PAPI_OK or not) CALLS times in a loop of its own,
 * after CALLS / 10 untimed calls (the first translate the call's code),
 * and the same loop without it: the difference is the call's. Written out
 * in each loop (no call through a pointer: its instructions would be
 * counted too). */
#define TIME_CALL(OP, EVENTS, CALLS, CALL)                                                         \
    do {                                                                                           \
        uint64_t i0_, i1_, i2_;                                                                    \
        struct stamp t0_, t1_;                                                                     \
        long i_;                                                                                   \
        for (i_ = 0; i_ < (CALLS) / 10; i_++)                                                      \
            if ((CALL) != PAPI_OK) return 1;                                                       \
        i0_ = my_instructions();                                                                   \
        for (i_ = 0; i_ < (CALLS); i_++)                                                           \
            __asm__ volatile("" ::: "memory");                                                     \
        i1_ = my_instructions();                                                                   \
        t0_ = now();                                                                               \
        for (i_ = 0; i_ < (CALLS); i_++) {                                                         \
            if ((CALL) != PAPI_OK) return 1;                                                       \
            __asm__ volatile("" ::: "memory");                                                     \
        }                                                                                          \
        t1_ = now();                                                                               \
        i2_ = my_instructions();                                                                   \
        print_cost(OP, EVENTS, ((double)(i2_ - i1_) - (double)(i1_ - i0_)) / (double)(CALLS), t0_, \
                   t1_, CALLS);                                                                    \
    } while (0)

/* PAPI_start + PAPI_stop of set */
static int start_stop_cost(int set, const char *events, long calls)
{
    long long v[8];
    TIME_CALL("start_stop", events, calls,
              PAPI_start(set) != PAPI_OK ? PAPI_EMISC : PAPI_stop(set, v));
    return 0;
}

/* PAPI_accum and PAPI_reset of the running set */
static int accum_cost(int set, const char *events, long calls)
{
    long long v[8] = {0};
    if (PAPI_start(set) != PAPI_OK) return 1;
    TIME_CALL("accum", events, calls, PAPI_accum(set, v));
    return PAPI_stop(set, v) != PAPI_OK;
}

static int read_ts_cost(int set, const char *events, long calls)
{
    long long v[8], ts;
    if (PAPI_start(set) != PAPI_OK) return 1;
    TIME_CALL("read_ts", events, calls, PAPI_read_ts(set, v, &ts));
    return PAPI_stop(set, v) != PAPI_OK;
}

static int reset_cost(int set, const char *events, long calls)
{
    long long v[8];
    if (PAPI_start(set) != PAPI_OK) return 1;
    TIME_CALL("reset", events, calls, PAPI_reset(set));
    return PAPI_stop(set, v) != PAPI_OK;
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

/* What a PAPI tool's calls need at least, made directly: CALLS times
 * READS requests of the thread's kinds and CLOCKS reads of the monotonic
 * clock, with the models running (the tools' sets hold modeled events).
 * A clock read is a TSC read where the tool syncs the program's clock to
 * its TSC (HPM_VPMU_CLOCK_SYNC, libhpm's hpm_clock_ns), else a request.
 * The peer of bench_papi_tools.sh, timed as a whole process. */
static int floor_cost(const char *spec, long calls)
{
    /* on the stack: the request's fast path answers into anonymous memory
     * only (a program's .bss may share a page with its file's data), where
     * a static buffer took Valgrind's scheduler path every time */
    uint64_t kinds[256];
    int reads = 0, clocks = 0;
    if (sscanf(spec, "%d:%d", &reads, &clocks) != 2 || reads < 0 || clocks < 0) return 2;
    uint64_t sync[4];
    int tsc = HPM_VPMU_CLOCK_SYNC(sync) == 0;
    volatile uint64_t sink = 0;
    (void)HPM_VPMU_MODEL();
    for (long i = 0; i < calls; i++) {
        for (int r = 0; r < reads; r++)
            if (HPM_VPMU_READ_KINDS(kinds, 256) < 0) return 1;
        for (int c = 0; c < clocks; c++)
            if (tsc)
                sink += __rdtsc();
            else if (HPM_VPMU_CLOCK(CLOCK_MONOTONIC) < 0)
                return 1;
    }
    printf("floor_cost %d reads %d clocks (%s), %ld times\n", reads, clocks,
           tsc ? "TSC reads" : "requests", calls);
    return 0;
}

/* the set multiplexed by the kernel's way ("kernel") or PAPI's own ("sw") */
static int multiplex(int set, const char *how)
{
    PAPI_option_t opt;
    int rc;
    if (strcmp(how, "kernel") != 0 && strcmp(how, "sw") != 0) return PAPI_EINVAL;
    if ((rc = PAPI_multiplex_init()) != PAPI_OK ||
        (rc = PAPI_assign_eventset_component(set, 0)) != PAPI_OK)
        return rc;
    if (strcmp(how, "kernel") == 0) return PAPI_set_multiplex(set);
    memset(&opt, 0, sizeof opt);
    opt.multiplex.eventset = set;
    opt.multiplex.flags = PAPI_MULTIPLEX_FORCE_SW;
    return PAPI_set_opt(PAPI_MULTIPLEX, &opt);
}

int main(int argc, char **argv)
{
    const char *events = argc > 1 ? argv[1] : "PAPI_TOT_INS";
    long calls = argc > 2 ? atol(argv[2]) : 20000, i;
    static const struct {
        const char *name;
        int (*cost)(int set, const char *events, long calls);
    } ops[] = {{"start_stop", start_stop_cost},
               {"accum", accum_cost},
               {"reset", reset_cost},
               {"read_ts", read_ts_cost}};
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
        uint64_t kinds[256]; /* on the stack, as floor_cost's */
        for (i = 0; i < calls / 10; i++)
            if (HPM_VPMU_READ_KINDS(kinds, 256) < 0) return 1;
        i0 = my_instructions();
        for (i = 0; i < calls; i++)
            __asm__ volatile("" ::: "memory");
        i1 = my_instructions();
        t0 = now();
        for (i = 0; i < calls; i++) {
            if (HPM_VPMU_READ_KINDS(kinds, 256) < 0) return 1;
            __asm__ volatile("" ::: "memory");
        }
        t1 = now();
        i2 = my_instructions();
        print_cost("read", "request", ((double)(i2 - i1) - (double)(i1 - i0)) / (double)calls, t0,
                   t1, calls);
        return 0;
    }
    if (strcmp(events, "region") == 0) return region_cost(calls);
    if (strncmp(events, "floor:", 6) == 0) return floor_cost(events + 6, calls);
    for (i = 0; i < (long)(sizeof ops / sizeof *ops); i++)
        if (strncmp(events, ops[i].name, strlen(ops[i].name)) == 0 &&
            events[strlen(ops[i].name)] == ':') {
            op = &ops[i];
            events += strlen(ops[i].name) + 1;
        }
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT || PAPI_create_eventset(&set))
        return 1;
    if (getenv("PAPI_READ_VPMU_MPX") && multiplex(set, getenv("PAPI_READ_VPMU_MPX")) != PAPI_OK)
        return 1;
    snprintf(buf, sizeof buf, "%s", events);
    for (name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save))
        if ((rc = PAPI_add_named_event(set, name)) != PAPI_OK) {
            printf("cannot_count %s %s\n", name, PAPI_strerror(rc));
            return 2;
        }
    if (op) return op->cost(set, events, calls);
    if (PAPI_start(set) != PAPI_OK) return 1;
    for (i = 0; i < calls / 10; i++)
        if (PAPI_read(set, v) != PAPI_OK) return 1;
    /* the loop alone, then with the read: the difference is the read */
    i0 = my_instructions();
    for (i = 0; i < calls; i++)
        __asm__ volatile("" ::: "memory");
    i1 = my_instructions();
    t0 = now();
    for (i = 0; i < calls; i++) {
        if (PAPI_read(set, v) != PAPI_OK) return 1;
        __asm__ volatile("" ::: "memory");
    }
    t1 = now();
    i2 = my_instructions();
    print_cost("read", events, ((double)(i2 - i1) - (double)(i1 - i0)) / (double)calls, t0, t1,
               calls);
    return PAPI_stop(set, v) == PAPI_OK ? 0 : 1;
}
