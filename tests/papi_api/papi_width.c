/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpapi's width on the virtual PMU (run under `hpm run --`):
 *   - num_cntrs of component 0 is what the UPC units provide (256 a unit),
 *     and PAPI_num_cmp_hwctrs says the same;
 *   - a set may hold more than 64 events (100 natives) and counts the last
 *     one added (which cannot overflow: the overflow vector has 64 bits);
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

static void on_overflow(int set, void *pc, long long vector, void *uc)
{
    (void)set, (void)pc, (void)vector, (void)uc;
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
    /* the overflow vector has 64 bits: the 100th event cannot overflow */
    CHECK_EQ(PAPI_overflow(wide, br, 100000, 0, on_overflow), PAPI_ENOSUPP);

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
