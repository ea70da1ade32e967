/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm-roofline-kernels: the kernels with which hpm roofline measures the
 * modeled machine's own ceilings (as the Empirical Roofline Toolkit does
 * on hardware), each in a region of its name:
 *   peak_scalar, peak_128, peak_256  independent multiply-adds in eight
 *                                    chains, double precision (256: AVX,
 *                                    where the CPU has it);
 *   bw_L1, bw_L2, bw_L3, bw_DDR      STREAM's triad over three arrays of
 *                                    BYTES together, REPS times (the first
 *                                    pass outside the region: the level
 *                                    holds them, or not, when it starts).
 *   hpm-roofline-kernels measure N [LEVEL BYTES REPS]...
 * and matmul N B (naive ijk, then blocked with B x B tiles, regions
 * matmul_naive and matmul_blocked; tests/roofline works out their
 * intensities by hand).
 */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../workload.h"

static volatile double sink;

/* Eight independent chains of a multiply and an add, written out so that
 * they stay in registers: 16 flops per vector lane an iteration. */
#define CHAINS(OP)                                                         \
    a0 = OP(a0), a1 = OP(a1), a2 = OP(a2), a3 = OP(a3), a4 = OP(a4), a5 = OP(a5), \
    a6 = OP(a6), a7 = OP(a7)

__attribute__((noinline)) static void peak_scalar(long n)
{
    double a0 = 1, a1 = 2, a2 = 3, a3 = 4, a4 = 5, a5 = 6, a6 = 7, a7 = 8;
    const double m = 0.999999, c = 1e-9;
#define MA_SCALAR(x) ((x) * m + c)
    for (long i = 0; i < n; i++)
        CHAINS(MA_SCALAR);
    sink = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

__attribute__((noinline)) static void peak_128(long n)
{
    __m128d a0 = _mm_set1_pd(1), a1 = _mm_set1_pd(2), a2 = _mm_set1_pd(3), a3 = _mm_set1_pd(4);
    __m128d a4 = _mm_set1_pd(5), a5 = _mm_set1_pd(6), a6 = _mm_set1_pd(7), a7 = _mm_set1_pd(8);
    const __m128d m = _mm_set1_pd(0.999999), c = _mm_set1_pd(1e-9);
    double out[2];
#define MA_128(x) _mm_add_pd(_mm_mul_pd((x), m), c)
    for (long i = 0; i < n; i++)
        CHAINS(MA_128);
    a0 = _mm_add_pd(_mm_add_pd(_mm_add_pd(a0, a1), _mm_add_pd(a2, a3)),
                    _mm_add_pd(_mm_add_pd(a4, a5), _mm_add_pd(a6, a7)));
    _mm_storeu_pd(out, a0);
    sink = out[0] + out[1];
}

__attribute__((noinline, target("avx"))) static void peak_256(long n)
{
    __m256d a0 = _mm256_set1_pd(1), a1 = _mm256_set1_pd(2), a2 = _mm256_set1_pd(3);
    __m256d a3 = _mm256_set1_pd(4), a4 = _mm256_set1_pd(5), a5 = _mm256_set1_pd(6);
    __m256d a6 = _mm256_set1_pd(7), a7 = _mm256_set1_pd(8);
    const __m256d m = _mm256_set1_pd(0.999999), c = _mm256_set1_pd(1e-9);
    double out[4];
#define MA_256(x) _mm256_add_pd(_mm256_mul_pd((x), m), c)
    for (long i = 0; i < n; i++)
        CHAINS(MA_256);
    a0 = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(a0, a1), _mm256_add_pd(a2, a3)),
                       _mm256_add_pd(_mm256_add_pd(a4, a5), _mm256_add_pd(a6, a7)));
    _mm256_storeu_pd(out, a0);
    sink = out[0] + out[1] + out[2] + out[3];
}

/* STREAM's triad, a[j] = b[j] + s * c[j] (as the Empirical Roofline
 * Toolkit's kernel, a multiply-add per element over streams): one
 * function per level measured (a profile tells them apart: hpm roofline
 * reads each one's own costs), and one for the first pass that fills the
 * levels. */
#define TRIAD(fn)                                                                   \
    __attribute__((noinline)) static void fn(double *a, const double *b, const double *c, \
                                             long n)                                \
    {                                                                               \
        for (long j = 0; j < n; j++)                                                \
            a[j] = b[j] + 3.0 * c[j];                                               \
    }
TRIAD(bw_warm)
TRIAD(bw_L1)
TRIAD(bw_L2)
TRIAD(bw_L3)
TRIAD(bw_DDR)

__attribute__((noinline)) static void matmul_naive(long n, const double *a, const double *b,
                                                   double *c)
{
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            double s = c[i * n + j];
            for (long k = 0; k < n; k++)
                s += a[i * n + k] * b[k * n + j];
            c[i * n + j] = s;
        }
}

__attribute__((noinline)) static void matmul_blocked(long n, long bs, const double *a,
                                                     const double *b, double *c)
{
    for (long ii = 0; ii < n; ii += bs)
        for (long jj = 0; jj < n; jj += bs)
            for (long kk = 0; kk < n; kk += bs)
                for (long i = ii; i < ii + bs && i < n; i++)
                    for (long j = jj; j < jj + bs && j < n; j++) {
                        double s = c[i * n + j];
                        for (long k = kk; k < kk + bs && k < n; k++)
                            s += a[i * n + k] * b[k * n + j];
                        c[i * n + j] = s;
                    }
}

static long arg(const char *s, long lo, long hi)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || v < lo || v > hi) {
        fprintf(stderr, "hpm-roofline-kernels: '%s' is not in [%ld, %ld]\n", s, lo, hi);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && (argc - 3) % 3 == 0 && strcmp(argv[1], "measure") == 0) {
        long n = arg(argv[2], 1, 1L << 30);
        WL_REGION_BEGIN("peak_scalar");
        peak_scalar(n);
        WL_REGION_END("peak_scalar");
        WL_REGION_BEGIN("peak_128");
        peak_128(n);
        WL_REGION_END("peak_128");
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx")) {
            WL_REGION_BEGIN("peak_256");
            peak_256(n);
            WL_REGION_END("peak_256");
        }
        for (int i = 3; i + 2 < argc; i += 3) {
            static const char *const names[] = {"bw_L1", "bw_L2", "bw_L3", "bw_DDR"};
            void (*const fns[])(double *, const double *, const double *, long) = {
                bw_L1, bw_L2, bw_L3, bw_DDR};
            long bytes = arg(argv[i + 1], 64, 1L << 34), reps = arg(argv[i + 2], 1, 1L << 20);
            long n = bytes / 3 / (long)sizeof(double);
            double *p = wl_alloc((size_t)(3 * n), sizeof *p);
            const char *name = NULL;
            void (*fn)(double *, const double *, const double *, long) = NULL;
            for (int k = 0; k < 4; k++)
                if (strcmp(argv[i], names[k] + 3) == 0) {
                    name = names[k];
                    fn = fns[k];
                }
            if (!name) {
                fprintf(stderr, "hpm-roofline-kernels: no level '%s' (L1, L2, L3, DDR)\n", argv[i]);
                return 2;
            }
            for (long k = 0; k < 3 * n; k++)
                p[k] = (double)k;
            bw_warm(p, p + n, p + 2 * n, n); /* the levels hold what they can */
            WL_REGION_BEGIN(name);
            for (long r = 0; r < reps; r++)
                fn(p, p + n, p + 2 * n, n);
            WL_REGION_END(name);
            sink = p[n - 1];
            free(p);
        }
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "matmul") == 0) {
        long n = arg(argv[2], 1, 4096), bs = arg(argv[3], 1, 4096);
        double *a = wl_alloc((size_t)(n * n), sizeof *a), *b = wl_alloc((size_t)(n * n), sizeof *b);
        double *c = wl_alloc((size_t)(n * n), sizeof *c);
        for (long i = 0; i < n * n; i++) {
            a[i] = (double)(i % 7);
            b[i] = (double)(i % 5);
            c[i] = 0;
        }
        WL_REGION_BEGIN("matmul_naive");
        matmul_naive(n, a, b, c);
        WL_REGION_END("matmul_naive");
        WL_REGION_BEGIN("matmul_blocked");
        matmul_blocked(n, bs, a, b, c);
        WL_REGION_END("matmul_blocked");
        sink = c[n * n - 1];
        free(a);
        free(b);
        free(c);
        return 0;
    }
    fprintf(stderr, "usage: hpm-roofline-kernels measure N [LEVEL BYTES REPS]... | matmul N B\n");
    return 2;
}
