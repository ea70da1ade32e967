/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PAPI_overflow on the virtual PMU (run under `hpm run --`): fast overflow.
 *
 * While a handler runs, the virtual PMU freezes the thread's counts (seed
 * 002's fast overflow), so the handler's own instructions are counted
 * nowhere. Hence, for every threshold T >= 1 on PAPI_TOT_INS:
 *   - the program ends (a threshold below the handler's cost used to hang);
 *   - the count PAPI_stop returns is the same for every threshold, and
 *     that of a run whose threshold is never reached, exactly;
 *   - the handler is called exactly count / T times (integer division):
 *     once per threshold passed, the last ones by PAPI_stop itself when the
 *     stop came before the signal could.
 * And the address the handler gets is the instruction that passed the
 * threshold: with T = 1000 (1 modulo the loop's 3 instructions) the
 * crossings walk over all three instructions of the loop, each about a
 * third of the time, while the interrupted PC (the skid) is the start of the
 * superblock after, the loop's first instruction.
 *
 * Without the virtual PMU the test reports itself skipped (exit 77).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "papi.h"

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

/* the loop: ADDPD; DEC; JNZ, with its three addresses known */
extern const char ovf_loop_insn0[], ovf_loop_insn1[], ovf_loop_insn2[], ovf_loop_end[];
static double acc;

__attribute__((noinline)) static void loop(unsigned long n)
{
    double one = 1.0;
    __asm__ volatile(".globl ovf_loop_insn0, ovf_loop_insn1, ovf_loop_insn2, ovf_loop_end\n"
                     "ovf_loop_insn0: addpd %2, %0\n\t"
                     "ovf_loop_insn1: dec %1\n\t"
                     "ovf_loop_insn2: jnz ovf_loop_insn0\n"
                     "ovf_loop_end:\n"
                     : "+x"(acc), "+r"(n)
                     : "x"(one)
                     : "cc");
}

static long calls, calls_no_address, at_insn[3], skid_pc_loop_start, in_loop;

static void handler(int set, void *address, long long vector, void *context)
{
    (void)set;
    (void)vector;
    calls++;
    if (!address) {
        calls_no_address++;
        return;
    }
    for (int i = 0; i < 3; i++) {
        const char *insn = i == 0 ? ovf_loop_insn0 : i == 1 ? ovf_loop_insn1 : ovf_loop_insn2;
        if (address == (const void *)insn) {
            at_insn[i]++;
            in_loop++;
            if (context) {
                ucontext_t *uc = context;
                uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
                if (pc == (uintptr_t)ovf_loop_insn0 || pc == (uintptr_t)ovf_loop_end)
                    skid_pc_loop_start++;
            }
        }
    }
}

static int make_set(void)
{
    int set = PAPI_NULL, rc;
    if ((rc = PAPI_create_eventset(&set)) != PAPI_OK ||
        (rc = PAPI_add_event(set, PAPI_TOT_INS)) != PAPI_OK) {
        fprintf(stderr, "set: %s\n", PAPI_strerror(rc));
        exit(1);
    }
    return set;
}

/* PAPI_TOT_INS of start; loop(n); stop, with overflow at threshold (0: none) */
static long long run(unsigned long n, int threshold)
{
    long long v = -1;
    int set = make_set(), rc;
    if (threshold > 0 &&
        (rc = PAPI_overflow(set, PAPI_TOT_INS, threshold, 0, handler)) != PAPI_OK) {
        fprintf(stderr, "PAPI_overflow(%d): %s\n", threshold, PAPI_strerror(rc));
        exit(1);
    }
    calls = calls_no_address = in_loop = skid_pc_loop_start = 0;
    memset(at_insn, 0, sizeof at_insn);
    if ((rc = PAPI_start(set)) != PAPI_OK) {
        fprintf(stderr, "PAPI_start: %s\n", PAPI_strerror(rc));
        exit(1);
    }
    loop(n);
    if ((rc = PAPI_stop(set, &v)) != PAPI_OK) {
        fprintf(stderr, "PAPI_stop: %s\n", PAPI_strerror(rc));
        exit(1);
    }
    if (threshold > 0)
        PAPI_overflow(set, PAPI_TOT_INS, 0, 0, NULL);
    PAPI_cleanup_eventset(set);
    PAPI_destroy_eventset(&set);
    return v;
}

int main(void)
{
    static const int thresholds[] = {1, 10, 100, 1000, 3000, 5000, 12345};
    const unsigned long n = 20000;
    long long base;
    int rc = PAPI_library_init(PAPI_VER_CURRENT);
    if (rc != PAPI_VER_CURRENT) {
        fprintf(stderr, "PAPI_library_init: %s\n", PAPI_strerror(rc));
        return 1;
    }
    {
        int cid = PAPI_get_component_index("sim");
        const PAPI_component_info_t *ci = cid >= 0 ? PAPI_get_component_info(cid) : NULL;
        if (!ci || ci->disabled) {
            printf("skipped: the sim component is disabled (run under hpm run)\n");
            return 77;
        }
    }
    (void)run(n, INT_MAX); /* warm: lazy binding and first translations */
    /* the same library path (a set with overflow) with no threshold passed */
    base = run(n, INT_MAX);
    EXPECT(base >= 3 * (long long)n && calls == 0, "base %lld, %ld calls", base, calls);
    for (size_t i = 0; i < sizeof thresholds / sizeof thresholds[0]; i++) {
        int t = thresholds[i];
        long long v = run(n, t);
        printf("threshold %5d: count %lld (threshold never reached: %lld), handler calls %ld "
               "(expected %lld; %ld at stop), at the loop's instructions %ld/%ld/%ld, "
               "interrupted at the next superblock's start %ld of %ld\n",
               t, v, base, calls, v / t, calls_no_address, at_insn[0], at_insn[1], at_insn[2],
               skid_pc_loop_start, in_loop);
        EXPECT(v == base, "threshold %d: count %lld, threshold never reached %lld", t, v, base);
        EXPECT(calls == v / t, "threshold %d: %ld handler calls, expected %lld", t, calls,
               v / t);
        /* the crossings inside the loop are attributed to the exact
         * instruction; nearly all of the calls are there */
        EXPECT(in_loop >= 3 * (long)n / t - 2, "threshold %d: %ld calls in the loop", t, in_loop);
        /* the interrupted PC is the start of the superblock after the one
         * that passed the threshold: the loop's first instruction (or its
         * exit) */
        EXPECT(skid_pc_loop_start == in_loop, "threshold %d: %ld of %ld interrupted elsewhere", t,
               in_loop - skid_pc_loop_start, in_loop);
        if (t == 1000) {
            /* 1000 = 1 (mod 3): each instruction of the loop in turn */
            for (int k = 0; k < 3; k++)
                EXPECT(at_insn[k] >= in_loop / 3 - 1 && at_insn[k] <= in_loop / 3 + 1,
                       "threshold 1000: instruction %d got %ld of %ld", k, at_insn[k], in_loop);
        }
        if (t == 3000) {
            /* 3000 = 0 (mod 3): always the same instruction */
            int same = (at_insn[0] == in_loop) + (at_insn[1] == in_loop) + (at_insn[2] == in_loop);
            EXPECT(same == 1, "threshold 3000: %ld/%ld/%ld", at_insn[0], at_insn[1], at_insn[2]);
        }
    }
    PAPI_shutdown();
    if (failures)
        fprintf(stderr, "papi_overflow_exact: %d failures\n", failures);
    else
        printf("papi_overflow_exact: ok\n");
    return failures ? 1 : 0;
}
