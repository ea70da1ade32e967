/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PAPI_profil and PAPI_sprofil end to end: profile one event (argv[1],
 * overflowing every argv[2] counts) while two known functions run, and
 * check where the samples land.
 *   - each bucket size: samples exist, the hottest bucket is in work_a,
 *     and turning profiling off (threshold 0) stops the samples;
 *   - PAPI_sprofil with a region over work_a and a catch-all region: work_b's
 *     samples go to the catch-all, work_a's to the region;
 *   - the argument errors.
 * Exits 77 (ctest's skip) when the event cannot overflow here, 1 on failure.
 */
#include "papi.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed;

#define CHECK(cond, ...)                  \
    do {                                  \
        if (!(cond)) {                    \
            printf("FAIL: " __VA_ARGS__); \
            printf("\n");                 \
            failed = 1;                   \
        }                                 \
    } while (0)

static long iters = 4000000; /* about 0.15 s natively; argv[3] overrides */

__attribute__((noinline)) static double work_a(long n)
{
    volatile double x = 1.0;
    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

__attribute__((noinline)) static double work_b(long n)
{
    volatile double x = 2.0;
    for (long i = 0; i < n; i++)
        x = x * 0.9999999 + 2e-9;
    return x;
}

static int es = PAPI_NULL, code, threshold;

static void run(double (*fn)(long))
{
    int r = PAPI_start(es);
    long long v[1];

    CHECK(r == PAPI_OK, "PAPI_start: %s", PAPI_strerror(r));
    fn(iters);
    r = PAPI_stop(es, v);
    CHECK(r == PAPI_OK, "PAPI_stop: %s", PAPI_strerror(r));
}

static unsigned long long bucket(const void *buf, int bytes, size_t i)
{
    return bytes == 2   ? ((const unsigned short *)buf)[i]
           : bytes == 4 ? ((const unsigned int *)buf)[i]
                        : ((const unsigned long long *)buf)[i];
}

static void one_size(uintptr_t start, size_t len, int flag, int bytes)
{
    size_t n = len / 2; /* scale 0x10000: a bucket per two bytes */
    void *buf = calloc(n, (size_t)bytes), *copy = malloc(n * (size_t)bytes);
    unsigned long long sum = 0, best = 0;
    size_t besti = 0;

    int r = PAPI_profil(buf, (unsigned)(n * (size_t)bytes), (vptr_t)start, 0x10000, es, code,
                        threshold, PAPI_PROFIL_POSIX | flag);
    if (r == PAPI_ENOSUPP || r == PAPI_ECMP || r == PAPI_ENOEVNT) {
        printf("SKIP: %s cannot overflow here (%s)\n", "the event", PAPI_strerror(r));
        exit(77);
    }
    CHECK(r == PAPI_OK, "PAPI_profil(%d-bit): %s", bytes * 8, PAPI_strerror(r));
    run(work_a);
    r = PAPI_profil(buf, (unsigned)(n * (size_t)bytes), (vptr_t)start, 0x10000, es, code, 0,
                    PAPI_PROFIL_POSIX);
    CHECK(r == PAPI_OK, "PAPI_profil off: %s", PAPI_strerror(r));
    for (size_t i = 0; i < n; i++) {
        unsigned long long b = bucket(buf, bytes, i);
        sum += b;
        if (b > best)
            best = b, besti = i;
    }
    uintptr_t hot = start + 2 * besti, a = (uintptr_t)work_a;
    printf("%d-bit buckets: %llu samples, hottest %#lx (work_a at %#lx)\n", bytes * 8, sum,
           (unsigned long)hot, (unsigned long)a);
    CHECK(sum > 0, "no samples in %d-bit buckets", bytes * 8);
    CHECK(hot >= a && hot < a + 1024, "hottest bucket %#lx is not in work_a (%#lx)",
          (unsigned long)hot, (unsigned long)a);
    /* Off means off. */
    memcpy(copy, buf, n * (size_t)bytes);
    run(work_a);
    CHECK(memcmp(copy, buf, n * (size_t)bytes) == 0, "samples after profiling was turned off");
    free(buf);
    free(copy);
}

static void regions(void)
{
    uintptr_t a = (uintptr_t)work_a, b = (uintptr_t)work_b;
    /* Region 0 covers work_a and stops short of work_b. */
    size_t len = b > a && b - a < 4096 ? b - a : 4096;
    size_t n = len; /* scale 0x20000: a bucket per byte */
    unsigned int *ra = calloc(n, sizeof *ra), other = 0;
    PAPI_sprofil_t sp[2];

    sp[0].pr_base = ra;
    sp[0].pr_size = (unsigned)(n * sizeof *ra);
    sp[0].pr_off = (vptr_t)a;
    sp[0].pr_scale = 0x20000;
    sp[1].pr_base = &other;
    sp[1].pr_size = sizeof other;
    sp[1].pr_off = 0;
    sp[1].pr_scale = 2; /* every address not in region 0 */
    int r = PAPI_sprofil(sp, 2, es, code, threshold, PAPI_PROFIL_BUCKET_32);
    CHECK(r == PAPI_OK, "PAPI_sprofil: %s", PAPI_strerror(r));
    run(work_b);
    unsigned long long in_a = 0;
    for (size_t i = 0; i < n; i++)
        in_a += ra[i];
    printf("sprofil, work_b: %llu in work_a's region, %u elsewhere\n", in_a, other);
    CHECK(other > 0, "work_b's samples did not reach the catch-all region");
    CHECK(in_a <= other / 10, "work_b's samples landed in work_a's region");
    unsigned before = other;
    run(work_a);
    in_a = 0;
    for (size_t i = 0; i < n; i++)
        in_a += ra[i];
    printf("sprofil, work_a: %llu in work_a's region, %u more elsewhere\n", in_a,
           other - before);
    CHECK(in_a > 0, "work_a's samples did not reach its region");
    r = PAPI_sprofil(sp, 2, es, code, 0, PAPI_PROFIL_BUCKET_32);
    CHECK(r == PAPI_OK, "PAPI_sprofil off: %s", PAPI_strerror(r));
    free(ra);
}

static void errors(uintptr_t start)
{
    unsigned short buf[64];
    int other;

#define EXPECT_ERR(want, ...)                                                        \
    do {                                                                             \
        int r_ = PAPI_profil(__VA_ARGS__);                                           \
        CHECK(r_ == (want), "PAPI_profil(%s) = %s, expected %s", #__VA_ARGS__,       \
              PAPI_strerror(r_), PAPI_strerror(want));                               \
    } while (0)
    EXPECT_ERR(PAPI_EINVAL, buf, sizeof buf, (vptr_t)start, 0x10000, es, code, threshold,
               0x100000);
    EXPECT_ERR(PAPI_EINVAL, buf, sizeof buf, (vptr_t)start, 0x10000, es, code, threshold,
               PAPI_PROFIL_BUCKET_16 | PAPI_PROFIL_BUCKET_32);
    EXPECT_ERR(PAPI_EINVAL, buf, sizeof buf, (vptr_t)start, 0, es, code, threshold, 0);
    EXPECT_ERR(PAPI_EINVAL, buf, sizeof buf, (vptr_t)start, 0x30000, es, code, threshold, 0);
    EXPECT_ERR(PAPI_EINVAL, buf, sizeof buf, (vptr_t)start, 0x10000, es, code, -1, 0);
    /* Turning off what was never on. */
    EXPECT_ERR(PAPI_EINVAL, buf, sizeof buf, (vptr_t)start, 0x10000, es, code, 0, 0);
    /* An event that is not in the set. */
    other = code == PAPI_L1_DCM ? PAPI_L1_ICM : PAPI_L1_DCM;
    EXPECT_ERR(PAPI_ENOEVNT, buf, sizeof buf, (vptr_t)start, 0x10000, es, other, threshold, 0);
    EXPECT_ERR(PAPI_ENOEVST, buf, sizeof buf, (vptr_t)start, 0x10000, 12345, code, threshold,
               0);
    /* Not while counting. */
    CHECK(PAPI_start(es) == PAPI_OK, "PAPI_start");
    EXPECT_ERR(PAPI_EISRUN, buf, sizeof buf, (vptr_t)start, 0x10000, es, code, threshold, 0);
    long long v[1];
    CHECK(PAPI_stop(es, v) == PAPI_OK, "PAPI_stop");
    /* Event-address registers: no component here has them. */
    EXPECT_ERR(PAPI_ENOSUPP, buf, sizeof buf, (vptr_t)start, 0x10000, es, code, threshold,
               PAPI_PROFIL_DATA_EAR);
}

int main(int argc, char **argv)
{
    const char *event = argc > 1 ? argv[1] : "perf::TASK-CLOCK";
    const PAPI_exe_info_t *exe;
    int r;

    threshold = argc > 2 ? atoi(argv[2]) : 100000;
    if (argc > 3)
        iters = atol(argv[3]);
    if ((r = PAPI_library_init(PAPI_VER_CURRENT)) != PAPI_VER_CURRENT) {
        printf("FAIL: PAPI_library_init: %d\n", r);
        return 1;
    }
    if ((r = PAPI_event_name_to_code(event, &code)) != PAPI_OK ||
        (r = PAPI_create_eventset(&es)) != PAPI_OK || (r = PAPI_add_event(es, code)) != PAPI_OK) {
        printf("SKIP: %s cannot be counted here (%s)\n", event, PAPI_strerror(r));
        return 77;
    }
    if (!(exe = PAPI_get_executable_info())) {
        printf("FAIL: PAPI_get_executable_info\n");
        return 1;
    }
    uintptr_t start = (uintptr_t)exe->address_info.text_start;
    uintptr_t end = (uintptr_t)exe->address_info.text_end;
    uintptr_t a = (uintptr_t)work_a;
    if (!(start <= a && a < end)) {
        /* A text range that does not hold the program's own code (a PIE
         * the library did not relocate): profile around work_a instead. */
        printf("note: text %#lx-%#lx does not hold work_a %#lx\n", (unsigned long)start,
               (unsigned long)end, (unsigned long)a);
        start = a & ~(uintptr_t)0xfff;
        end = start + 0x10000;
    }
    one_size(start, end - start, PAPI_PROFIL_BUCKET_16, 2);
    one_size(start, end - start, PAPI_PROFIL_BUCKET_32, 4);
    one_size(start, end - start, PAPI_PROFIL_BUCKET_64, 8);
    regions();
    errors(start);
    if (!failed)
        printf("PASSED\n");
    return failed;
}
