/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of the PAPI_profil/PAPI_sprofil bucket arithmetic
 * (src/papi_hl/papi_profil_map.h): which bucket an address lands in for
 * the documented scales, the ends of a region, the catch-all region of
 * PAPI_sprofil, saturation of full buckets and the COMPRESS rule.
 */
#include "hpm_check.h"
#include "papi_profil_map.h"

#include <string.h>

static size_t bucket_of(uintptr_t off, unsigned scale, size_t nbuckets, uintptr_t pc, int *hit)
{
    struct hpm_prof_range r = {off, scale, nbuckets};
    size_t idx = (size_t)-1;

    *hit = hpm_prof_bucket(&r, pc, &idx);
    return idx;
}

static void test_scales(void)
{
    const uintptr_t off = 0x400000;
    int hit;

    /* 0x10000: one bucket per two bytes (profil(3)'s 1:1 for 16-bit words). */
    CHECK_EQ(bucket_of(off, 0x10000, 100, off, &hit), 0);
    CHECK(hit);
    CHECK_EQ(bucket_of(off, 0x10000, 100, off + 1, &hit), 0);
    CHECK_EQ(bucket_of(off, 0x10000, 100, off + 2, &hit), 1);
    CHECK_EQ(bucket_of(off, 0x10000, 100, off + 199, &hit), 99);
    CHECK(hit);
    bucket_of(off, 0x10000, 100, off + 200, &hit);
    CHECK(!hit); /* one past the last bucket */
    bucket_of(off, 0x10000, 100, off - 1, &hit);
    CHECK(!hit); /* below the region */

    /* 0x20000: one bucket per byte. */
    CHECK_EQ(bucket_of(off, 0x20000, 100, off + 57, &hit), 57);
    /* 0x8000: four bytes per bucket; 0x4000: eight. */
    CHECK_EQ(bucket_of(off, 0x8000, 100, off + 7, &hit), 1);
    CHECK_EQ(bucket_of(off, 0x8000, 100, off + 8, &hit), 2);
    CHECK_EQ(bucket_of(off, 0x4000, 100, off + 15, &hit), 1);
    CHECK_EQ(bucket_of(off, 0x4000, 100, off + 16, &hit), 2);
    /* 0xffff: "approximately two addresses per bucket", always rounding down. */
    CHECK_EQ(bucket_of(off, 0xffff, 1000, off + 2, &hit), 0);
    CHECK_EQ(bucket_of(off, 0xffff, 1000, off + 4, &hit), 1);
    CHECK_EQ(bucket_of(off, 0xffff, 1000, off + 1000, &hit), 499);

    /* Far addresses must not wrap around into the buffer. */
    bucket_of(0, 0x20000, 16, (uintptr_t)1 << 60, &hit);
    CHECK(!hit);
    bucket_of(0, 0x20000, 16, UINTPTR_MAX, &hit);
    CHECK(!hit);
    /* A large distance split by the arithmetic: 2^17 + 5 bytes at 0x20000. */
    CHECK_EQ(bucket_of(0, 0x20000, 200000, ((uintptr_t)1 << 17) + 5, &hit), (1u << 17) + 5);
    CHECK(hit);

    /* An empty buffer holds nothing. */
    bucket_of(off, 0x10000, 0, off, &hit);
    CHECK(!hit);
}

static void test_find(void)
{
    /* Two regions and a catch-all listed first: the catch-all only gets
     * what both others miss. */
    struct hpm_prof_range r[3] = {
        {0, HPM_PROF_SCALE_ALL, 1},
        {0x1000, 0x10000, 16}, /* 0x1000 .. 0x101f */
        {0x2000, 0x20000, 8},  /* 0x2000 .. 0x2007 */
    };
    size_t idx;

    CHECK_EQ(hpm_prof_find(r, 3, 0x1004, &idx), 1);
    CHECK_EQ(idx, 2);
    CHECK_EQ(hpm_prof_find(r, 3, 0x2007, &idx), 2);
    CHECK_EQ(idx, 7);
    CHECK_EQ(hpm_prof_find(r, 3, 0x2008, &idx), 0);
    CHECK_EQ(idx, 0);
    CHECK_EQ(hpm_prof_find(r, 3, 0x10, &idx), 0);
    /* Without the catch-all the sample is lost. */
    CHECK_EQ(hpm_prof_find(r + 1, 2, 0x3000, &idx), -1);
    /* A catch-all above the pc does not take it. */
    struct hpm_prof_range high = {0x5000, HPM_PROF_SCALE_ALL, 1};
    CHECK_EQ(hpm_prof_find(&high, 1, 0x4fff, &idx), -1);
    CHECK_EQ(hpm_prof_find(&high, 1, 0x9999, &idx), 0);
}

/* Buckets are the whole ones in the buffer's bytes; a catch-all region
 * whose buffer is smaller than one bucket has none, and takes no sample. */
static void test_nbuckets(void)
{
    size_t idx = 99;
    CHECK_EQ(hpm_prof_nbuckets(1, 2), 0);
    CHECK_EQ(hpm_prof_nbuckets(2, 2), 1);
    CHECK_EQ(hpm_prof_nbuckets(7, 4), 1);
    CHECK_EQ(hpm_prof_nbuckets(7, 8), 0);
    CHECK_EQ(hpm_prof_nbuckets(64, 8), 8);
    struct hpm_prof_range tiny = {0, HPM_PROF_SCALE_ALL, hpm_prof_nbuckets(1, 2)};
    CHECK_EQ(hpm_prof_find(&tiny, 1, 0x1234, &idx), -1);
    CHECK_EQ(idx, 99);
}

static void test_buckets(void)
{
    unsigned short b16[4];
    unsigned int b32[4];
    unsigned long long b64[4];

    memset(b16, 0, sizeof b16);
    memset(b32, 0, sizeof b32);
    memset(b64, 0, sizeof b64);
    hpm_prof_add(b16, 1, 2, 1);
    hpm_prof_add(b16, 1, 2, 1);
    CHECK_EQ(b16[1], 2);
    CHECK_EQ(b16[0] | b16[2] | b16[3], 0);
    /* Full buckets stay full. */
    b16[2] = 65535;
    hpm_prof_add(b16, 2, 2, 1);
    CHECK_EQ(b16[2], 65535);
    b16[3] = 65530;
    hpm_prof_add(b16, 3, 2, 100);
    CHECK_EQ(b16[3], 65535);
    b32[0] = 0xfffffffeu;
    hpm_prof_add(b32, 0, 4, 1);
    CHECK_EQ(b32[0], 0xffffffffu);
    hpm_prof_add(b32, 0, 4, 1);
    CHECK_EQ(b32[0], 0xffffffffu);
    hpm_prof_add(b32, 3, 4, 7);
    CHECK_EQ(b32[3], 7);
    b64[1] = ~0ull - 1;
    hpm_prof_add(b64, 1, 8, 5);
    CHECK_EQ(b64[1], ~0ull);
    hpm_prof_add(b64, 0, 8, 1);
    CHECK_EQ(hpm_prof_get(b64, 0, 8), 1);
    CHECK_EQ(hpm_prof_max(2), 65535);
    CHECK_EQ(hpm_prof_max(4), 0xffffffffu);
}

static void test_compress(void)
{
    /* An empty bucket never drops; a full one always; half full about half
     * the time over uniform random numbers. */
    uint64_t x = 88172645463325252ull;
    int drops = 0;

    CHECK(!hpm_prof_compress_drops(0, 2, 0));
    CHECK(!hpm_prof_compress_drops(0, 8, 0));
    CHECK(hpm_prof_compress_drops(65535, 2, 65534));
    for (int i = 0; i < 10000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        drops += hpm_prof_compress_drops(32768, 2, x);
    }
    CHECK(drops > 4500 && drops < 5500);
}

int main(void)
{
    test_scales();
    test_find();
    test_nbuckets();
    test_buckets();
    test_compress();
    if (failures)
        fprintf(stderr, "%d check(s) failed\n", failures);
    return failures != 0;
}
