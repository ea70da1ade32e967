/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpapi's width on the virtual PMU (run under `hpm run --`):
 *   - num_cntrs of component 0 is what the UPC units provide (256 a unit),
 *     and PAPI_num_cmp_hwctrs says the same;
 *   - a set may hold more than 64 events (100 natives) and counts the last
 *     one added, which overflows exactly (count / threshold calls) with
 *     bit 99 % 64 of the overflow vector, while event 35, which shares
 *     the bit, cannot overflow beside it (PAPI_ECNFLCT); checked in
 *     software (PAPI_OVERFLOW_FORCE_SW) its calls are exact as well (the
 *     stop gives those the timer has not);
 *   - PAPI's rule stays: a second set of the same component does not start
 *     on a thread that runs one (PAPI_EISRUN), it starts once the first
 *     stopped, and a set of another component runs beside it.
 * Exits 77 when not under the virtual PMU.
 */
#include <stdio.h>
#include <string.h>

#include "hpm_check.h"
#include "papi.h"

#define WIDE 100

static volatile long sink;

/* n iterations of a loop: at least n conditional branches */
__attribute__((noinline)) static void loop(long n)
{
    for (long i = 0; i < n; i++)
        sink += i;
}

static volatile long long ovf_calls, ovf_vectors;

static void on_overflow(int set, void *pc, long long vector, void *uc)
{
    (void)set, (void)pc, (void)uc;
    ovf_calls++;
    ovf_vectors |= vector;
}

int main(void)
{
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
        fprintf(stderr, "PAPI_library_init failed\n");
        return 1;
    }
    const PAPI_component_info_t *ci = PAPI_get_component_info(0);
    if (!ci || ci->disabled) {
        printf("SKIP: component 0 (sim) is disabled: not under hpm run\n");
        return 77;
    }
    printf("sim: num_cntrs %d, num_mpx_cntrs %d, %d native events\n", ci->num_cntrs,
           ci->num_mpx_cntrs, ci->num_native_events);
    CHECK(ci->num_cntrs >= 256 && ci->num_cntrs % 256 == 0);
    CHECK_EQ(PAPI_num_cmp_hwctrs(0), ci->num_cntrs);
    CHECK(ci->num_mpx_cntrs >= ci->num_cntrs);

    /* WIDE natives, sim::BR_COND last */
    int wide = PAPI_NULL, br, code = PAPI_NATIVE_MASK, n = 0;
    CHECK_EQ(PAPI_create_eventset(&wide), PAPI_OK);
    CHECK_EQ(PAPI_event_name_to_code("sim::BR_COND", &br), PAPI_OK);
    CHECK_EQ(PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, 0), PAPI_OK);
    do {
        if (code != br && PAPI_add_event(wide, code) == PAPI_OK)
            n++;
    } while (n < WIDE - 1 && PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, 0) == PAPI_OK);
    CHECK_EQ(n, WIDE - 1);
    CHECK_EQ(PAPI_add_event(wide, br), PAPI_OK);
    CHECK_EQ(PAPI_num_events(wide), WIDE);
    long long v[WIDE];
    memset(v, 0xff, sizeof v);
    CHECK_EQ(PAPI_start(wide), PAPI_OK);
    loop(100000);
    CHECK_EQ(PAPI_stop(wide, v), PAPI_OK);
    printf("%d events: sim::BR_COND (the last) %lld\n", WIDE, v[WIDE - 1]);
    CHECK(v[WIDE - 1] >= 100000 && v[WIDE - 1] < 100000 + 5000);
    for (int i = 0; i < WIDE; i++)
        CHECK(v[i] >= 0);
    /* the 100th event overflows with bit 99 % 64 of the vector; the 36th,
     * which shares it, cannot overflow beside it */
    int evs[WIDE], nev = WIDE;
    CHECK_EQ(PAPI_list_events(wide, evs, &nev), PAPI_OK);
    CHECK_EQ(nev, WIDE);
    CHECK_EQ(PAPI_overflow(wide, br, 10000, 0, on_overflow), PAPI_OK);
    CHECK_EQ(PAPI_overflow(wide, evs[WIDE - 1 - 64], 10000, 0, on_overflow), PAPI_ECNFLCT);
    CHECK_EQ(PAPI_start(wide), PAPI_OK);
    loop(100000);
    CHECK_EQ(PAPI_stop(wide, v), PAPI_OK);
    printf("sim::BR_COND at event %d: %lld, %lld overflow calls, vector bits %#llx\n", WIDE - 1,
           v[WIDE - 1], ovf_calls, ovf_vectors);
    CHECK_EQ(ovf_calls, v[WIDE - 1] / 10000);
    CHECK_EQ(ovf_vectors, 1LL << ((WIDE - 1) % 64));
    int idx[4], nidx = 4;
    CHECK_EQ(PAPI_get_overflow_event_index(wide, ovf_vectors, idx, &nidx), PAPI_OK);
    CHECK_EQ(nidx, 1);
    CHECK_EQ(idx[0], WIDE - 1);
    CHECK_EQ(PAPI_overflow(wide, br, 0, 0, on_overflow), PAPI_OK);
    /* checked in software (PAPI_OVERFLOW_FORCE_SW): a timer samples the
     * counts now and then, and the stop gives the calls owed since its
     * last look, so the calls are exact too */
    ovf_calls = 0;
    CHECK_EQ(PAPI_overflow(wide, br, 10000, PAPI_OVERFLOW_FORCE_SW, on_overflow), PAPI_OK);
    CHECK_EQ(PAPI_start(wide), PAPI_OK);
    loop(100000);
    CHECK_EQ(PAPI_stop(wide, v), PAPI_OK);
    printf("software overflow: sim::BR_COND %lld, %lld calls\n", v[WIDE - 1], ovf_calls);
    CHECK_EQ(ovf_calls, v[WIDE - 1] / 10000);
    CHECK_EQ(PAPI_overflow(wide, br, 0, 0, on_overflow), PAPI_OK);

    /* one running set per component per thread, as in PAPI */
    int a = PAPI_NULL, b = PAPI_NULL, other = PAPI_NULL;
    CHECK_EQ(PAPI_create_eventset(&a), PAPI_OK);
    CHECK_EQ(PAPI_create_eventset(&b), PAPI_OK);
    CHECK_EQ(PAPI_add_named_event(a, "sim::INSTRUCTIONS"), PAPI_OK);
    CHECK_EQ(PAPI_add_named_event(b, "sim::CYCLES"), PAPI_OK);
    CHECK_EQ(PAPI_start(a), PAPI_OK);
    CHECK_EQ(PAPI_start(b), PAPI_EISRUN);
    CHECK_EQ(PAPI_start(wide), PAPI_EISRUN);
    int st = 0;
    CHECK_EQ(PAPI_state(b, &st), PAPI_OK);
    CHECK_EQ(st, PAPI_STOPPED);
    /* another component's set is no conflict */
    CHECK_EQ(PAPI_create_eventset(&other), PAPI_OK);
    if (PAPI_add_named_event(other, "os::THREAD_USER_TIME") == PAPI_OK) {
        CHECK_EQ(PAPI_start(other), PAPI_OK);
        CHECK_EQ(PAPI_stop(other, v), PAPI_OK);
    }
    CHECK_EQ(PAPI_stop(a, v), PAPI_OK);
    CHECK(v[0] > 0);
    CHECK_EQ(PAPI_start(b), PAPI_OK);
    loop(1000);
    CHECK_EQ(PAPI_stop(b, v), PAPI_OK);
    CHECK(v[0] > 0);

    PAPI_shutdown();
    if (failures) {
        fprintf(stderr, "papi_width: %d failure(s)\n", failures);
        return 1;
    }
    printf("papi_width: ok\n");
    return 0;
}
