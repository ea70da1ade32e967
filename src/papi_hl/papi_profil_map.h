/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_profil_map.h - the arithmetic of PAPI_profil/PAPI_sprofil histograms,
 * kept free of PAPI so that it can be tested alone (tests/papi_hl).
 *
 * A region of code starting at off is cut into buckets as profil(3) does:
 * scale is a fixed-point fraction with 16 bits after the point, applied to
 * half the distance from off, so
 *     bucket = ((pc - off) / 2) * scale / 65536 = (pc - off) * scale >> 17
 * 0x10000 gives one bucket per two bytes of code (for 16-bit buckets, a
 * buffer as long as the code: "1:1"), 0x20000 one per byte, 0x8000 one per
 * four bytes. Scale 2 is the special "every address in one bucket" of
 * profil(3); PAPI_sprofil uses such a region, usually at offset 0, to catch
 * the samples that fall outside all the others, so it is consulted only
 * after every other region has missed.
 */
#ifndef HPM_PAPI_PROFIL_MAP_H
#define HPM_PAPI_PROFIL_MAP_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#define HPM_PROF_SCALE_ALL 2u          /* one bucket for every address */
#define HPM_PROF_SCALE_MAX 0x20000u    /* one bucket per byte */

struct hpm_prof_range {
    uintptr_t off;   /* lowest address */
    unsigned scale;  /* HPM_PROF_SCALE_ALL .. HPM_PROF_SCALE_MAX */
    size_t nbuckets; /* buckets in the buffer */
};

/* The whole buckets of bucket_bytes in a buffer of size bytes: the only
 * ones a sample may be written to (the catch-all region's one bucket
 * included, which needs a buffer of at least bucket_bytes). */
static inline size_t hpm_prof_nbuckets(size_t size, int bucket_bytes)
{
    return bucket_bytes > 0 ? size / (size_t)bucket_bytes : 0;
}

/* The bucket of pc in one region; 0 when pc lies outside it. */
static inline int hpm_prof_bucket(const struct hpm_prof_range *r, uintptr_t pc, size_t *index)
{
    uint64_t d, hi, idx;

    if (pc < r->off || r->nbuckets == 0)
        return 0;
    if (r->scale == HPM_PROF_SCALE_ALL) {
        *index = 0;
        return 1;
    }
    d = (uint64_t)(pc - r->off);
    /* Split d so that d * scale cannot overflow: d = hi * 2^17 + lo. Every
     * bucket from hi on is at least hi * scale >= hi (scale >= 1). */
    hi = d >> 17;
    if (hi >= r->nbuckets)
        return 0;
    idx = hi * r->scale + (((d & 0x1ffff) * r->scale) >> 17);
    if (idx >= r->nbuckets)
        return 0;
    *index = (size_t)idx;
    return 1;
}

/* The region and bucket a sample at pc is credited to: the first ordinary
 * region that holds pc, else the first catch-all one. Returns the region's
 * position, or -1 when the sample is lost. */
static inline int hpm_prof_find(const struct hpm_prof_range *r, int n, uintptr_t pc,
                                size_t *index)
{
    for (int i = 0; i < n; i++)
        if (r[i].scale != HPM_PROF_SCALE_ALL && hpm_prof_bucket(&r[i], pc, index))
            return i;
    for (int i = 0; i < n; i++)
        if (r[i].scale == HPM_PROF_SCALE_ALL && hpm_prof_bucket(&r[i], pc, index))
            return i;
    return -1;
}

/* The largest value a bucket of bucket_bytes holds. */
static inline uint64_t hpm_prof_max(int bucket_bytes)
{
    return bucket_bytes == 2 ? USHRT_MAX : bucket_bytes == 4 ? UINT_MAX : ULLONG_MAX;
}

static inline uint64_t hpm_prof_get(const void *base, size_t index, int bucket_bytes)
{
    switch (bucket_bytes) {
    case 2:
        return ((const unsigned short *)base)[index];
    case 4:
        return ((const unsigned int *)base)[index];
    default:
        return ((const unsigned long long *)base)[index];
    }
}

/* Add weight to a bucket; a full bucket stays full rather than wrapping to
 * a small count that would hide the hottest code. */
static inline void hpm_prof_add(void *base, size_t index, int bucket_bytes, uint64_t weight)
{
    uint64_t v = hpm_prof_get(base, index, bucket_bytes), max = hpm_prof_max(bucket_bytes);

    v = weight > max - v ? max : v + weight;
    switch (bucket_bytes) {
    case 2:
        ((unsigned short *)base)[index] = (unsigned short)v;
        break;
    case 4:
        ((unsigned int *)base)[index] = (unsigned int)v;
        break;
    default:
        ((unsigned long long *)base)[index] = v;
        break;
    }
}

/* PAPI_PROFIL_COMPRESS: a sample for a bucket holding v of max is dropped
 * with probability v / max, so that buckets slow down as they fill. rnd is
 * uniform over 64 bits. */
static inline int hpm_prof_compress_drops(uint64_t v, int bucket_bytes, uint64_t rnd)
{
    switch (bucket_bytes) {
    case 2:
        return (rnd & USHRT_MAX) < v;
    case 4:
        return (rnd & UINT_MAX) < v;
    default:
        return rnd < v;
    }
}

#endif
