/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_hpm_sde - libhpm's sde component against Debian's libsde: a library's
 * registered variables, read as delta and instant counters, by name with
 * the prefix only; a placeholder for a counter no library has registered.
 */
#include <sde_lib.h>
#include <stdint.h>
#include <string.h>

#include "hpm/hpm.h"
#include "hpm_check.h"

static long long iterations; /* delta: counted from start/reset */
static long long level;      /* instant: read as it is */

int main(void)
{
    struct hpm_component_info ci;
    hpm_event_t it, lv, ph;
    int64_t v[3];
    int set = -1, c;
    papi_handle_t h = papi_sde_init("Lib");
    CHECK(h != NULL);
    papi_sde_register_counter(h, "ITERATIONS", PAPI_SDE_RO | PAPI_SDE_DELTA, PAPI_SDE_long_long,
                              &iterations);
    papi_sde_register_counter(h, "LEVEL", PAPI_SDE_RO | PAPI_SDE_INSTANT, PAPI_SDE_long_long,
                              &level);
    iterations = 100; /* before the start: not counted */
    level = 7;

    CHECK(hpm_init() >= 2);
    c = hpm_component_find("sde");
    CHECK(c == 3);
    CHECK(hpm_component_info(c, &ci) == HPM_OK && ci.enabled && ci.disabled_reason == NULL);
    CHECK(hpm_event_find("sde::Lib::ITERATIONS", &it) == HPM_OK);
    CHECK(hpm_event_find("sde::Lib::LEVEL", &lv) == HPM_OK);
    /* bare names never reach libsde (it would make placeholders of them) */
    CHECK(hpm_event_find("Lib::ITERATIONS", &ph) != HPM_OK);
    /* a counter not registered (yet): a placeholder, which reads -1 */
    CHECK(hpm_event_find("sde::Lib::LATER", &ph) == HPM_OK);

    CHECK(hpm_set_create(&set) == HPM_OK);
    /* hpm_set_add returns the event's position */
    CHECK_EQ(hpm_set_add(set, it), 0);
    CHECK_EQ(hpm_set_add(set, lv), 1);
    CHECK_EQ(hpm_set_add(set, ph), 2);
    CHECK(hpm_start(set) == HPM_OK);
    iterations += 5;
    level = 42;
    CHECK(hpm_read(set, v) == HPM_OK);
    CHECK_EQ(v[0], 5);
    CHECK_EQ(v[1], 42);
    CHECK(v[2] == -1);
    CHECK(hpm_reset(set) == HPM_OK);
    iterations += 3;
    level = 1;
    CHECK(hpm_stop(set, v) == HPM_OK);
    CHECK_EQ(v[0], 3);
    CHECK_EQ(v[1], 1);
    CHECK(hpm_set_destroy(set) == HPM_OK);
    hpm_shutdown();
    return failures ? 1 : 0;
}
