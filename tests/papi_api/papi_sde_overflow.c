/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PAPI_overflow on a counter a library created with libsde (natively: the
 * sde component needs no virtual PMU). libsde reports every change of a
 * created counter to papi_sde_check_overflow_status, which libpapi exports;
 * as in PAPI's sde component, a change that takes the counter past its next
 * multiple of the threshold calls the handler once. Increments of 1 to 95
 * with threshold 10 pass 10, 20, ..., 90: 9 calls; one increment of 35 (to
 * 130) passes 100 and 120: 1 call more. Each call's vector names the event
 * (PAPI_get_overflow_event_index), and the counts stay exact.
 */
#include <stdio.h>
#include <string.h>

#include "hpm_check.h"
#include "papi.h"
#include "sde_lib.h"

static long long calls, bad_index;
static int the_set = PAPI_NULL;

static void handler(int set, void *pc, long long vector, void *uc)
{
    int idx[2], n = 2;
    (void)pc, (void)uc;
    calls++;
    if (set != the_set || PAPI_get_overflow_event_index(set, vector, idx, &n) != PAPI_OK ||
        n != 1 || idx[0] != 1)
        bad_index++;
}

int main(void)
{
    void *lib = papi_sde_init("HpmTest"), *cntr = NULL, *other = NULL;
    CHECK(lib != NULL);
    CHECK_EQ(papi_sde_create_counter(lib, "ticks", PAPI_SDE_DELTA, &cntr), 0);
    CHECK_EQ(papi_sde_create_counter(lib, "other", PAPI_SDE_DELTA, &other), 0);
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
        fprintf(stderr, "PAPI_library_init failed\n");
        return 1;
    }
    int cidx = PAPI_get_component_index("sde");
    const PAPI_component_info_t *ci = cidx >= 0 ? PAPI_get_component_info(cidx) : NULL;
    CHECK(ci != NULL && !ci->disabled);
    CHECK_EQ(PAPI_create_eventset(&the_set), PAPI_OK);
    CHECK_EQ(PAPI_add_named_event(the_set, "sde:::HpmTest::other"), PAPI_OK);
    CHECK_EQ(PAPI_add_named_event(the_set, "sde:::HpmTest::ticks"), PAPI_OK);
    int code = 0;
    CHECK_EQ(PAPI_event_name_to_code("sde:::HpmTest::ticks", &code), PAPI_OK);
    CHECK_EQ(PAPI_overflow(the_set, code, 10, PAPI_OVERFLOW_HARDWARE, handler), PAPI_OK);

    long long v[2];
    CHECK_EQ(PAPI_start(the_set), PAPI_OK);
    for (int i = 0; i < 95; i++) {
        papi_sde_inc_counter(cntr, 1);
        papi_sde_inc_counter(other, 100); /* never overflows: no threshold */
    }
    CHECK_EQ(calls, 9);
    papi_sde_inc_counter(cntr, 35);
    CHECK_EQ(PAPI_stop(the_set, v), PAPI_OK);
    printf("papi_sde_overflow: ticks %lld, other %lld, %lld handler calls\n", v[1], v[0], calls);
    CHECK_EQ(v[1], 130);
    CHECK_EQ(v[0], 9500);
    CHECK_EQ(calls, 10);
    CHECK_EQ(bad_index, 0);

    /* stopped: changes call nothing */
    papi_sde_inc_counter(cntr, 100);
    CHECK_EQ(calls, 10);
    /* overflow off: running, changes call nothing */
    CHECK_EQ(PAPI_overflow(the_set, code, 0, 0, handler), PAPI_OK);
    CHECK_EQ(PAPI_start(the_set), PAPI_OK);
    papi_sde_inc_counter(cntr, 100);
    CHECK_EQ(PAPI_stop(the_set, v), PAPI_OK);
    CHECK_EQ(v[1], 100);
    CHECK_EQ(calls, 10);

    PAPI_shutdown();
    if (failures) {
        fprintf(stderr, "papi_sde_overflow: %d failures\n", failures);
        return 1;
    }
    printf("papi_sde_overflow: ok\n");
    return 0;
}
