/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PAPI_profil with histogram buffers smaller than one bucket: usage
 * profil_small_buffer EVENT THRESHOLD. PAPI documents bufsiz (pr_size) as
 * the buffer's size in bytes, so a buffer of fewer bytes than a bucket holds
 * no bucket, and its samples are lost rather than written past its end.
 * Each buffer ends where a PROT_NONE page begins: a write past it is a
 * SIGSEGV. A buffer of exactly one bucket, in the same place, collects the
 * samples (so the samples do arrive).
 * Exits 77 (ctest's skip) when the event cannot overflow here, 1 on failure.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "papi.h"

static int failed;

#define CHECK(cond, ...)                  \
    do {                                  \
        if (!(cond)) {                    \
            printf("FAIL: " __VA_ARGS__); \
            printf("\n");                 \
            failed = 1;                   \
        }                                 \
    } while (0)

static int es = PAPI_NULL, code, threshold;
static unsigned char *page_end; /* first byte of the guard page */

__attribute__((noinline)) static double work(long n)
{
    volatile double x = 1.0;
    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

/* Profile work() into the bufsiz bytes just below the guard page, with
 * scale (2: every address into bucket 0); returns the buffer. */
static unsigned char *profile(unsigned bufsiz, unsigned scale, int bucket_flag)
{
    unsigned char *buf = page_end - bufsiz;
    long long v[1];
    memset(page_end - 64, 0, 64);
    int r = PAPI_profil(buf, bufsiz, 0, scale, es, code, threshold,
                        PAPI_PROFIL_POSIX | bucket_flag);
    if (r == PAPI_ENOSUPP || r == PAPI_ECMP || r == PAPI_ENOEVNT) {
        printf("SKIP: the event cannot overflow here (%s)\n", PAPI_strerror(r));
        exit(77);
    }
    CHECK(r == PAPI_OK, "PAPI_profil(bufsiz %u, scale %#x): %s", bufsiz, scale,
          PAPI_strerror(r));
    CHECK(PAPI_start(es) == PAPI_OK, "PAPI_start");
    work(4000000);
    CHECK(PAPI_stop(es, v) == PAPI_OK, "PAPI_stop");
    r = PAPI_profil(buf, bufsiz, 0, scale, es, code, 0, PAPI_PROFIL_POSIX);
    CHECK(r == PAPI_OK, "PAPI_profil off: %s", PAPI_strerror(r));
    return buf;
}

static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s EVENT THRESHOLD\n", argv[0]);
        return 2;
    }
    threshold = atoi(argv[2]);
    long pg = sysconf(_SC_PAGESIZE);
    unsigned char *map = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED || mprotect(map + pg, (size_t)pg, PROT_NONE) != 0) {
        perror("mmap");
        return 1;
    }
    page_end = map + pg;
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT ||
        PAPI_create_eventset(&es) != PAPI_OK) {
        printf("FAIL: PAPI_library_init / PAPI_create_eventset\n");
        return 1;
    }
    if (PAPI_event_name_to_code(argv[1], &code) != PAPI_OK || PAPI_add_event(es, code) != PAPI_OK) {
        printf("SKIP: %s cannot be counted here\n", argv[1]);
        return 77;
    }

    /* one bucket's room: every sample lands in bucket 0 */
    unsigned short *one = (unsigned short *)profile(2, 2, PAPI_PROFIL_BUCKET_16);
    printf("catch-all, one 16-bit bucket: %u samples\n", (unsigned)*one);
    CHECK(*one > 0, "no samples in a catch-all buffer of one 16-bit bucket");

    /* less than one bucket: nothing is written, inside or past the buffer */
    static const struct {
        unsigned bufsiz, scale;
        int flag;
        const char *what;
    } small[] = {
        {1, 2, PAPI_PROFIL_BUCKET_16, "catch-all, 1 byte, 16-bit buckets"},
        {3, 2, PAPI_PROFIL_BUCKET_32, "catch-all, 3 bytes, 32-bit buckets"},
        {7, 2, PAPI_PROFIL_BUCKET_64, "catch-all, 7 bytes, 64-bit buckets"},
        {1, 0x10000, PAPI_PROFIL_BUCKET_16, "1:1 scale, 1 byte, 16-bit buckets"},
    };
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
        unsigned char *buf = profile(small[i].bufsiz, small[i].scale, small[i].flag);
        CHECK(all_zero(buf, small[i].bufsiz), "%s: the buffer was written", small[i].what);
        printf("%s: not written\n", small[i].what);
    }

    PAPI_cleanup_eventset(es);
    PAPI_destroy_eventset(&es);
    PAPI_shutdown();
    munmap(map, (size_t)pg * 2);
    if (failed)
        return 1;
    printf("ok\n");
    return 0;
}
