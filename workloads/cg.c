/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm-cg - unpreconditioned conjugate gradient on a sparse matrix in CSR form,
 * a fixed number of iterations, in the manner of the NAS CG kernel.
 *
 *   hpm-cg [m]        grid side (default 300: 90000 rows, 448800 nonzeros)
 *
 * The matrix is the 2-D five-point Laplacian on an m x m grid with Dirichlet
 * boundaries (symmetric positive definite), stored row by row in CSR. The
 * sparse matrix-vector product reads the column index and value arrays once
 * per iteration and gathers x through the indices: the irregular, memory-bound
 * access pattern that makes CG interesting to count. At the default size the
 * iteration's working set (matrix 6 MB, four vectors 2.9 MB) exceeds the 8 MB
 * L3 of the bgp model, as NAS CG's classes exceed their machines' caches. The
 * right-hand side is A * x_true for a fixed pseudo-random x_true.
 *
 * Check: after the iterations, the residual the recurrence carries must agree
 * with the true residual b - A*x, and it must have decreased. Output: one
 * line with both residual norms and a checksum (sum of x); exit status 1 if
 * the check fails.
 */
#include <math.h>

#include "workload.h"

#define CG_ITERATIONS 25

struct csr {
    long rows;
    long *rowptr; /* rows + 1 */
    int *col;     /* int, as in NAS CG: halves the index traffic */
    double *val;
};

static void laplacian_2d(long m, struct csr *a)
{
    const long rows = m * m;
    a->rows = rows;
    a->rowptr = wl_alloc((size_t)rows + 1, sizeof *a->rowptr);
    a->col = wl_alloc((size_t)rows * 5, sizeof *a->col);
    a->val = wl_alloc((size_t)rows * 5, sizeof *a->val);
    long nz = 0;
    for (long i = 0; i < m; i++) {
        for (long j = 0; j < m; j++) {
            const long r = i * m + j;
            a->rowptr[r] = nz;
            /* columns in increasing order, as a CSR assembler would leave them */
            if (i > 0) {
                a->col[nz] = (int)(r - m);
                a->val[nz++] = -1.0;
            }
            if (j > 0) {
                a->col[nz] = (int)(r - 1);
                a->val[nz++] = -1.0;
            }
            a->col[nz] = (int)r;
            a->val[nz++] = 4.0;
            if (j < m - 1) {
                a->col[nz] = (int)(r + 1);
                a->val[nz++] = -1.0;
            }
            if (i < m - 1) {
                a->col[nz] = (int)(r + m);
                a->val[nz++] = -1.0;
            }
        }
    }
    a->rowptr[rows] = nz;
}

static void spmv(const struct csr *a, const double *x, double *y)
{
    for (long r = 0; r < a->rows; r++) {
        double s = 0.0;
        for (long k = a->rowptr[r]; k < a->rowptr[r + 1]; k++)
            s += a->val[k] * x[a->col[k]];
        y[r] = s;
    }
}

static double dot(long n, const double *x, const double *y)
{
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

int main(int argc, char **argv)
{
    /* m*m*5 must fit the int column indices and a size_t product. */
    const long m = wl_size_arg(argc, argv, 300, 2, 10000, "grid side m");
    struct csr a;
    laplacian_2d(m, &a);
    const long n = a.rows;
    double *xt = wl_alloc((size_t)n, sizeof *xt);
    double *b = wl_alloc((size_t)n, sizeof *b);
    double *x = wl_alloc((size_t)n, sizeof *x);
    double *r = wl_alloc((size_t)n, sizeof *r);
    double *p = wl_alloc((size_t)n, sizeof *p);
    double *q = wl_alloc((size_t)n, sizeof *q);

    uint64_t seed = 314159265;
    for (long i = 0; i < n; i++)
        xt[i] = wl_uniform(&seed);
    spmv(&a, xt, b);

    /* x0 = 0, so r0 = p0 = b */
    for (long i = 0; i < n; i++) {
        r[i] = b[i];
        p[i] = b[i];
    }
    double rho = dot(n, r, r);
    const double rnorm0 = sqrt(rho);

    int its = 0;
    WL_REGION_BEGIN("cg");
    /* rho == 0 only when the residual vanished exactly (tiny grids): stop
     * there, as the next alpha would be 0/0. */
    for (; its < CG_ITERATIONS && rho > 0.0; its++) {
        spmv(&a, p, q);
        const double alpha = rho / dot(n, p, q);
        for (long i = 0; i < n; i++) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
        }
        const double rho_new = dot(n, r, r);
        const double beta = rho_new / rho;
        rho = rho_new;
        for (long i = 0; i < n; i++)
            p[i] = r[i] + beta * p[i];
    }
    WL_REGION_END("cg");

    const double rnorm = sqrt(rho);
    /* true residual b - A x, reusing q */
    spmv(&a, x, q);
    double tr = 0.0;
    for (long i = 0; i < n; i++)
        tr += (b[i] - q[i]) * (b[i] - q[i]);
    const double tnorm = sqrt(tr);
    /* 25 iterations in double precision: the recurrence drifts from the true
     * residual by a few ulps of rnorm0 per iteration, far below 1e-8. */
    const int ok = rnorm < rnorm0 && fabs(tnorm - rnorm) <= 1e-8 * rnorm0;

    double sum = 0.0;
    for (long i = 0; i < n; i++)
        sum += x[i];
    printf("hpm-cg rows=%ld nnz=%ld iterations=%d rnorm0=%.6e rnorm=%.6e checksum=%.12e "
           "check=%s\n",
           n, a.rowptr[n], its, rnorm0, rnorm, sum, ok ? "ok" : "FAILED");

    free(a.rowptr);
    free(a.col);
    free(a.val);
    free(xt);
    free(b);
    free(x);
    free(r);
    free(p);
    free(q);
    return ok ? 0 : 1;
}
