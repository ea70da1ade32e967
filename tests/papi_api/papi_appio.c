/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PAPI's appio events on the virtual PMU (run under `hpm run --`):
 * appio:::READ_BYTES, WRITE_BYTES, READ_CALLS, WRITE_CALLS, READ_ERR and
 * OPEN_CALLS count exactly what the program's calls did between PAPI_start
 * and PAPI_stop: 3 writes of 4096 + 1000 + 1 bytes to a pipe, reads of all
 * of it back (5097 bytes), one failed read (bad descriptor), one open; a
 * PAPI_read in the middle sees the part done by then. Exits 77 when not
 * under the virtual PMU (appio is disabled natively).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "papi.h"

static const char *names[] = {"appio:::READ_BYTES", "appio:::WRITE_BYTES", "appio:::READ_CALLS",
                              "appio:::WRITE_CALLS", "appio:::READ_ERR", "appio:::OPEN_CALLS"};
#define N (int)(sizeof names / sizeof names[0])

static char buf[8192];
static int failures;

static void expect(const char *what, long long got, long long want)
{
    if (got != want) {
        fprintf(stderr, "FAIL %s: %lld, expected %lld\n", what, got, want);
        failures++;
    }
}

int main(void)
{
    int set = PAPI_NULL, i, p[2], cid, fd;
    long long v[N], mid[N];
    ssize_t got = 0, r;
    const PAPI_component_info_t *ci;
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
        fprintf(stderr, "PAPI_library_init failed\n");
        return 1;
    }
    cid = PAPI_get_component_index("appio");
    ci = cid >= 0 ? PAPI_get_component_info(cid) : NULL;
    if (!ci) {
        fprintf(stderr, "FAIL: no appio component\n");
        return 1;
    }
    if (ci->disabled) {
        printf("appio disabled (%s): not under hpm run\n", ci->disabled_reason);
        return 77;
    }
    if (PAPI_create_eventset(&set) != PAPI_OK)
        return 1;
    for (i = 0; i < N; i++)
        if (PAPI_add_named_event(set, names[i]) != PAPI_OK) {
            fprintf(stderr, "FAIL: PAPI_add_named_event %s\n", names[i]);
            return 1;
        }
    if (pipe(p) != 0)
        return 1;
    memset(buf, 'a', sizeof buf);
    if (PAPI_start(set) != PAPI_OK)
        return 1;
    if (write(p[1], buf, 4096) != 4096 || write(p[1], buf, 1000) != 1000)
        return 1;
    if (PAPI_read(set, mid) != PAPI_OK)
        return 1;
    if (write(p[1], buf, 1) != 1)
        return 1;
    while (got < 5097 && (r = read(p[0], buf, sizeof buf)) > 0)
        got += r;
    (void)!read(-1, buf, 1);
    fd = open("/dev/null", O_RDONLY);
    if (PAPI_stop(set, v) != PAPI_OK)
        return 1;
    if (fd >= 0)
        close(fd);
    expect("WRITE_BYTES at PAPI_read", mid[1], 5096);
    expect("WRITE_CALLS at PAPI_read", mid[3], 2);
    expect("READ_BYTES at PAPI_read", mid[0], 0);
    expect("READ_BYTES", v[0], 5097);
    expect("WRITE_BYTES", v[1], 5097);
    expect("WRITE_CALLS", v[3], 3);
    expect("READ_ERR", v[4], 1);
    /* the reads it took to drain the pipe, and the failed one */
    if (v[2] < 2 || v[2] > 4) {
        fprintf(stderr, "FAIL READ_CALLS: %lld, expected 2..4\n", v[2]);
        failures++;
    }
    expect("OPEN_CALLS", v[5], 1);
    for (i = 0; i < N; i++)
        printf("%s: %lld\n", names[i], v[i]);
    if (failures)
        return 1;
    printf("papi_appio: ok\n");
    return 0;
}
