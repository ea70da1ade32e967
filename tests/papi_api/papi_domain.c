/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counting domains on the virtual PMU (run under `hpm run --`): the kernel
 * domain is the kernel-mode kinds, the kernel unit's (system calls,
 * signals) and the host-measured ones.
 *   - PAPI_DOM_KERNEL: sim::KERNEL_SYSCALLS counts exactly the system
 *     calls made between start and stop; PAPI_TOT_INS (a user-mode kind:
 *     the kernel's instructions are not simulated) is refused, when added
 *     to a kernel set and when a set holding it is switched to the kernel
 *     domain (which leaves the set counting in its old domain);
 *   - PAPI_DOM_USER (the default): PAPI_TOT_INS counts, KERNEL_SYSCALLS
 *     reads 0 (system calls are kernel work);
 *   - PAPI_DOM_ALL: both count.
 * Exits 77 when not under the virtual PMU.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hpm_check.h"
#include "papi.h"

#define CALLS 100

/* CALLS system calls that the C library cannot answer from a cache */
__attribute__((noinline)) static void calls(void)
{
    for (int i = 0; i < CALLS; i++)
        (void)syscall(SYS_getppid);
}

static int make(int domain, const char *a, const char *b)
{
    int es = PAPI_NULL;
    PAPI_option_t o;
    CHECK_EQ(PAPI_create_eventset(&es), PAPI_OK);
    CHECK_EQ(PAPI_assign_eventset_component(es, 0), PAPI_OK);
    memset(&o, 0, sizeof o);
    o.domain.eventset = es;
    o.domain.domain = domain;
    CHECK_EQ(PAPI_set_opt(PAPI_DOMAIN, &o), PAPI_OK);
    CHECK_EQ(PAPI_add_named_event(es, a), PAPI_OK);
    if (b)
        CHECK_EQ(PAPI_add_named_event(es, b), PAPI_OK);
    return es;
}

static void run(int es, long long *v)
{
    CHECK_EQ(PAPI_start(es), PAPI_OK);
    calls();
    CHECK_EQ(PAPI_stop(es, v), PAPI_OK);
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
    CHECK_EQ(ci->available_domains & (PAPI_DOM_USER | PAPI_DOM_KERNEL),
             PAPI_DOM_USER | PAPI_DOM_KERNEL);
    CHECK_EQ(ci->default_domain, PAPI_DOM_USER);
    long long v[2];

    /* kernel: the system calls, exactly; no user-mode kind */
    int k = make(PAPI_DOM_KERNEL, "sim::KERNEL_SYSCALLS", NULL);
    run(k, v);
    printf("PAPI_DOM_KERNEL: KERNEL_SYSCALLS %lld\n", v[0]);
    CHECK_EQ(v[0], CALLS);
    CHECK(PAPI_add_event(k, PAPI_TOT_INS) != PAPI_OK);
    CHECK_EQ(PAPI_num_events(k), 1);
    run(k, v);
    CHECK_EQ(v[0], CALLS);

    /* user: instructions; system calls are not user-mode work */
    int u = make(PAPI_DOM_USER, "PAPI_TOT_INS", "sim::KERNEL_SYSCALLS");
    run(u, v);
    printf("PAPI_DOM_USER: PAPI_TOT_INS %lld, KERNEL_SYSCALLS %lld\n", v[0], v[1]);
    CHECK(v[0] > 3 * CALLS);
    CHECK_EQ(v[1], 0);
    /* switching it to the kernel domain is refused, and it counts on */
    PAPI_option_t o;
    memset(&o, 0, sizeof o);
    o.domain.eventset = u;
    o.domain.domain = PAPI_DOM_KERNEL;
    CHECK(PAPI_set_opt(PAPI_DOMAIN, &o) != PAPI_OK);
    memset(&o, 0, sizeof o);
    o.domain.eventset = u;
    CHECK(PAPI_get_opt(PAPI_DOMAIN, &o) >= PAPI_OK);
    CHECK_EQ(o.domain.domain, PAPI_DOM_USER);
    run(u, v);
    CHECK(v[0] > 3 * CALLS);
    CHECK_EQ(v[1], 0);

    /* user and kernel: both */
    int a = make(PAPI_DOM_ALL, "PAPI_TOT_INS", "sim::KERNEL_SYSCALLS");
    run(a, v);
    printf("PAPI_DOM_ALL: PAPI_TOT_INS %lld, KERNEL_SYSCALLS %lld\n", v[0], v[1]);
    CHECK(v[0] > 3 * CALLS);
    CHECK_EQ(v[1], CALLS);

    PAPI_shutdown();
    if (failures) {
        fprintf(stderr, "papi_domain: %d failures\n", failures);
        return 1;
    }
    printf("papi_domain: ok\n");
    return 0;
}
