/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * workload.h - what the demo workloads (hpm-matmul, hpm-cg, hpm-stream)
 * share: a fixed-seed generator, argument parsing, and the region markers.
 *
 * The workloads are ordinary programs: the virtual PMU runs them unmodified.
 * They mark their kernels as regions so that a report can show the kernel
 * apart from set-up and checking. Natively (or under another Valgrind tool)
 * the markers are a few no-op instructions. When the build has no hpm client
 * header (Valgrind not installed), the markers compile to nothing.
 */
#ifndef HPM_WORKLOAD_H
#define HPM_WORKLOAD_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef HPM_WORKLOAD_CLIENT
#include "hpm_client.h"
/* The return value is only an error code (-1 natively); the kernel runs the
 * same either way, so it is deliberately ignored. */
#define WL_REGION_BEGIN(name) ((void)HPM_VPMU_REGION_BEGIN(name))
#define WL_REGION_END(name) ((void)HPM_VPMU_REGION_END(name))
#else
#define WL_REGION_BEGIN(name) ((void)0)
#define WL_REGION_END(name) ((void)0)
#endif

/* 64-bit LCG (Knuth MMIX constants): the same inputs on every run and host,
 * so checksums can be compared across runs and against the simulator. */
static inline uint64_t wl_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s;
}

/* Uniform double in [0, 1) from the top 53 bits. */
static inline double wl_uniform(uint64_t *s)
{
    return (double)(wl_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* The optional size argument: argv[1] if present, else dflt. Exits with a
 * usage message on anything but an integer in [lo, hi], rather than running
 * a surprising problem size. */
static inline long wl_size_arg(int argc, char **argv, long dflt, long lo, long hi,
                               const char *what)
{
    if (argc < 2)
        return dflt;
    char *end;
    errno = 0;
    long v = strtol(argv[1], &end, 10);
    if (argc > 2 || errno != 0 || end == argv[1] || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "usage: %s [%s, %ld..%ld, default %ld]\n", argv[0], what, lo, hi, dflt);
        exit(2);
    }
    return v;
}

static inline void *wl_alloc(size_t count, size_t size)
{
    void *p = calloc(count, size);
    if (!p) {
        fprintf(stderr, "out of memory (%zu x %zu bytes)\n", count, size);
        exit(1);
    }
    return p;
}

#endif
