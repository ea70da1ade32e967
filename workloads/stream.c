/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm-stream - the four STREAM kernels (McCalpin) over double arrays:
 *   copy  c = a          scale  b = s*c
 *   add   c = a + b      triad  a = b + s*c
 *
 *   hpm-stream [n]       elements per array (default 1000000: 8 MB each)
 *
 * The three arrays together (24 MB at the default size) are three times the
 * 8 MB L3 of the bundled machine models, so the kernels stream from memory: a report shows one L1 miss per line, the L2
 * prefetcher at work, and DDR traffic close to STREAM's byte counts. Each
 * kernel is its own region. Check (as STREAM's checkSTREAMresults): the
 * arrays hold the values the recurrences give in exact arithmetic, computed
 * on scalars. Output: one line with a checksum; exit status 1 on a mismatch.
 */
#include <math.h>

#include "workload.h"

#define STREAM_REPS 5
#define STREAM_SCALAR 3.0

/* Separate functions so that each kernel is a distinct symbol in profiles.
 * copy stays a loop rather than a memcpy call: the workloads are built with
 * -fno-tree-loop-distribute-patterns (workloads/CMakeLists.txt). */
static void copy(long n, const double *a, double *c)
{
    for (long j = 0; j < n; j++)
        c[j] = a[j];
}

static void scale(long n, double *b, const double *c, double s)
{
    for (long j = 0; j < n; j++)
        b[j] = s * c[j];
}

static void add(long n, const double *a, const double *b, double *c)
{
    for (long j = 0; j < n; j++)
        c[j] = a[j] + b[j];
}

static void triad(long n, double *a, const double *b, const double *c, double s)
{
    for (long j = 0; j < n; j++)
        a[j] = b[j] + s * c[j];
}

static int close_to(double got, double want)
{
    return fabs(got - want) <= 1e-13 * fabs(want);
}

int main(int argc, char **argv)
{
    const long n = wl_size_arg(argc, argv, 1000000, 1, 100000000, "elements per array");
    double *a = wl_alloc((size_t)n, sizeof *a);
    double *b = wl_alloc((size_t)n, sizeof *b);
    double *c = wl_alloc((size_t)n, sizeof *c);

    /* STREAM's start values, perturbed per element by a fixed-seed amount
     * so that the data are not all equal and the check below would see a
     * wrong index. The perturbation is a multiple of 2^-20 below 1, so
     * every value stays exact through the recurrences below. */
    uint64_t seed = 271828;
    for (long j = 0; j < n; j++) {
        const double d = (double)(wl_next(&seed) >> 44) * (1.0 / 1048576.0);
        a[j] = 1.0 + d;
        b[j] = 2.0;
        c[j] = 0.0;
    }
    const double s = STREAM_SCALAR;

    for (int k = 0; k < STREAM_REPS; k++) {
        WL_REGION_BEGIN("copy");
        copy(n, a, c);
        WL_REGION_END("copy");
        WL_REGION_BEGIN("scale");
        scale(n, b, c, s);
        WL_REGION_END("scale");
        WL_REGION_BEGIN("add");
        add(n, a, b, c);
        WL_REGION_END("add");
        WL_REGION_BEGIN("triad");
        triad(n, a, b, c, s);
        WL_REGION_END("triad");
    }

    /* Check as STREAM does: run the same recurrence on scalars. Per
     * repetition c = a, b = 3a, c = 4a, a = 3a + 12a = 15a: the values grow
     * by 15^5 < 2^20 over the run, so with 21-bit start values every result
     * is exact and the arrays must match to the last bit (close_to allows a
     * rounding anyway, should the size argument change the magnitudes). */
    seed = 271828;
    int ok = 1;
    double sum = 0.0;
    for (long j = 0; j < n; j++) {
        const double d = (double)(wl_next(&seed) >> 44) * (1.0 / 1048576.0);
        double aj = 1.0 + d, bj = 2.0, cj = 0.0;
        for (int k = 0; k < STREAM_REPS; k++) {
            cj = aj;
            bj = s * cj;
            cj = aj + bj;
            aj = bj + s * cj;
        }
        if (!close_to(a[j], aj) || !close_to(b[j], bj) || !close_to(c[j], cj))
            ok = 0;
        sum += a[j] + b[j] + c[j];
    }
    printf("hpm-stream n=%ld reps=%d bytes=%.0f checksum=%.12e check=%s\n", n, STREAM_REPS,
           (double)STREAM_REPS * 10.0 * (double)sizeof(double) * (double)n, sum,
           ok ? "ok" : "FAILED");

    free(a);
    free(b);
    free(c);
    return ok ? 0 : 1;
}
