/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm-matmul - dense double-precision matrix multiply C = A * B, n x n.
 *
 *   hpm-matmul [n]        (default 300)
 *
 * The i-k-j loop order streams rows of B and C with unit stride, the usual
 * cache-friendly textbook form, so a report shows high L1 hit rates and
 * one flop pair (multiply + add) per inner iteration; at the default size
 * the three matrices (2.2 MB) overflow the L1 and L2 but fit an 8 MB L3.
 * The product is checked with a matrix-vector identity, C*x == A*(B*x),
 * which costs O(n^2) and would catch a wrong loop bound or index. Output:
 * one line with the checksum (sum of C) and the check's result; exit
 * status 1 if it fails.
 */
#include <math.h>

#include "workload.h"

static void matmul(long n, const double *a, const double *b, double *c)
{
    for (long i = 0; i < n; i++) {
        double *ci = c + i * n;
        for (long j = 0; j < n; j++)
            ci[j] = 0.0;
        for (long k = 0; k < n; k++) {
            const double aik = a[i * n + k];
            const double *bk = b + k * n;
            for (long j = 0; j < n; j++)
                ci[j] += aik * bk[j];
        }
    }
}

/* y = M * x */
static void matvec(long n, const double *m, const double *x, double *y)
{
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long j = 0; j < n; j++)
            s += m[i * n + j] * x[j];
        y[i] = s;
    }
}

int main(int argc, char **argv)
{
    const long n = wl_size_arg(argc, argv, 300, 1, 4096, "matrix order n");
    double *a = wl_alloc((size_t)(n * n), sizeof *a);
    double *b = wl_alloc((size_t)(n * n), sizeof *b);
    double *c = wl_alloc((size_t)(n * n), sizeof *c);
    double *x = wl_alloc((size_t)n, sizeof *x);
    double *t = wl_alloc((size_t)n, sizeof *t);
    double *y1 = wl_alloc((size_t)n, sizeof *y1);
    double *y2 = wl_alloc((size_t)n, sizeof *y2);

    uint64_t seed = 20240601;
    for (long i = 0; i < n * n; i++) {
        a[i] = wl_uniform(&seed) - 0.5;
        b[i] = wl_uniform(&seed) - 0.5;
    }
    for (long i = 0; i < n; i++)
        x[i] = wl_uniform(&seed);

    WL_REGION_BEGIN("matmul");
    matmul(n, a, b, c);
    WL_REGION_END("matmul");

    /* Check: C*x against A*(B*x). Entries of C are sums of n products of
     * values below 0.25 in magnitude, so the rounding error is of order
     * n * eps relative to the row norms; 1e-9 leaves a wide margin. */
    matvec(n, c, x, y1);
    matvec(n, b, x, t);
    matvec(n, a, t, y2);
    double err = 0.0, scale = 0.0;
    for (long i = 0; i < n; i++) {
        err = fmax(err, fabs(y1[i] - y2[i]));
        scale = fmax(scale, fabs(y2[i]));
    }
    const int ok = err <= 1e-9 * (scale > 1.0 ? scale : 1.0);

    double sum = 0.0;
    for (long i = 0; i < n * n; i++)
        sum += c[i];
    printf("hpm-matmul n=%ld flops=%.0f checksum=%.12e check=%s\n", n, 2.0 * n * n * n, sum,
           ok ? "ok" : "FAILED");

    free(a);
    free(b);
    free(c);
    free(x);
    free(t);
    free(y1);
    free(y2);
    return ok ? 0 : 1;
}
