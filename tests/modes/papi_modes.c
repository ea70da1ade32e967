/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_modes LINES - PAPI native events in a counting mode: a set of
 * sim::PU0_STALL_MEM_CYCLES:edge-rise, the stall cycles and the L1 misses
 * around a loop that misses LINES lines; prints "edges E stall S l1d D
 * l1i I units U". A bare kind in a mode (the calling thread's) is refused.
 */
#include <papi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    const char *names[4] = {"sim::PU0_STALL_MEM_CYCLES:edge-rise", "sim::PU0_STALL_MEM_CYCLES",
                            "sim::PU0_L1D_MISSES", "sim::PU0_L1I_MISSES"};
    long long v[4];
    long lines = argc > 1 ? atol(argv[1]) : 0, i, sum = 0;
    int es = PAPI_NULL, rc, code;
    PAPI_event_info_t info;
    volatile char *buf;
    if (lines <= 0 || lines > (1L << 24))
        return 2;
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT ||
        PAPI_create_eventset(&es) != PAPI_OK)
        return 1;
    for (i = 0; i < 4; i++)
        if ((rc = PAPI_add_named_event(es, names[i])) != PAPI_OK) {
            printf("add %s: %s\n", names[i], PAPI_strerror(rc));
            return 1;
        }
    rc = PAPI_event_name_to_code("sim::STALL_MEM_CYCLES:edge-rise", &code);
    printf("bare kind in a mode: %s\n", rc == PAPI_OK ? "accepted" : "refused");
    buf = calloc((size_t)lines, 64);
    if (!buf || PAPI_start(es) != PAPI_OK)
        return 1;
    for (i = 0; i < lines; i++)
        sum += buf[i * 64];
    if (PAPI_stop(es, v) != PAPI_OK ||
        PAPI_event_name_to_code(names[0], &code) != PAPI_OK ||
        PAPI_get_event_info(code, &info) != PAPI_OK)
        return 1;
    printf("edges %lld stall %lld l1d %lld l1i %lld units %s (%ld)\n", v[0], v[1], v[2], v[3],
           info.units, sum & 1);
    return 0;
}
