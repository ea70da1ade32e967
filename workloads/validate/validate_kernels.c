/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm-validate-kernels - the seven ROSE micro-benchmarks with which seed 001
 * (BGLsim, section 4.1 and Table 1) validated its counters analytically.
 *
 *   hpm-validate-kernels [--uniform] NAME... | all
 *
 * NAME is one of the rows of Table 1 (validate_kernels.h): seq_stores,
 * seq_loads, seq_ldst, rnd_ld_D, rnd_ld_D2, mrnd_ld_D, mrnd_ld_D2,
 * transpose, matmult. Each benchmark prepares the state the seed's
 * reasoning assumes (outside any region), then runs its function inside an
 * hpm region of the same name, so that a report's region counts hold the
 * function's own work only. `hpm validate` runs this under the virtual PMU
 * and compares the region counts with the seed's analytical expectations.
 *
 * The functions, as seed 001 writes them (c a constant, s a double):
 *   seq_stores   D[k] = c                            k = 1..n
 *   seq_loads    s = s + c*D[k]                      k = 1..n
 *   seq_ldst     D[k] = D[k] + c*D[k-1]              k = 2..n
 *   rnd_ld_*     s = s + D[I[k]]                     k = 1..1024
 *   mrnd_ld_*    s = s + D[I[k] + 16*j]              j = 0..31, k = 1..1024
 *   transpose    Figure 3a: swap B[i][j], B[j][i] for every i != j
 *   matmult      Figure 3b: C[i][j] += A[i][k]*B[j][k] (B transposed)
 * over D (2^20 doubles), D2 (twice as many), an index vector I of 1024 ints
 * and 64 x 64 matrices. The random benchmarks use D or D2 as their name
 * says; I holds random indices into that vector.
 *
 * Set-up before each region, from the seed's reasoning:
 *   seq_*        evict: D is in no cache (the seed counts every line);
 *   rnd/mrnd     write I, then read the vector sequentially: "D ... was just
 *                traversed", so the L2 holds its last part and I is cold;
 *   transpose    write B, evict (the seed counts a miss per line of B);
 *   matmult      write A, B, C, evict ("We called a function to evict all
 *                matrix elements between the two calls").
 * Evicting reads a 16 MB buffer (VK_EVICT_BYTES) sequentially.
 *
 * Indices. By default I is a stratified random sample: the index range
 * (0 .. len - 16*31, so that D[I[k] + 16*31] is inside the vector) is cut
 * into 1024 equal slices, I[k] is uniform in slice k, and the 1024 indices
 * are then put in random order (Fisher-Yates). The order of the accesses is
 * as random as with independent draws, but the share of them that falls in
 * any part of the vector is exact: the seed's L2 expectation ("half of these
 * accesses would cause misses") is a fraction of the vector, which
 * independent draws only meet within a binomial spread (+-16 of 512
 * entries, +-512 loads for the multiple random loads); and the random
 * loads' entries, one per 8 KB slice, practically never share a line or a
 * page. --uniform uses independent uniform draws instead; docs/validation.md
 * compares the two.
 *
 * Output: one line per benchmark with a checksum of its result, which keeps
 * the compiler from dropping the loads. Exit status 2 on a usage error.
 *
 * Built with -O2 -fno-tree-vectorize -fno-tree-loop-distribute-patterns
 * -fno-predictive-commoning (CMakeLists.txt): one scalar load or store per
 * element access, as the seed's counts assume.
 */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../workload.h"
#include "validate_kernels.h"

#define C_CONST 1.000001

static double *vec_d, *vec_d2, *evict_buf;
static int *idx_d, *idx_d2;
static double *mat_t;   /* the transposed matrix */
static double *mat_abc; /* A, B, C of the multiplication, contiguous */
static int uniform_indices;

/* A checksum sink the compiler must assume is read. */
static volatile double sink;

/* VK_ALIGN-aligned storage of bytes + offset; returns the address offset
 * bytes in. Zeroed, so that the first pass over it is not a first touch of
 * fresh pages in the middle of a measurement (the model has no page faults,
 * but the host would spend the time at an odd moment). */
static void *alloc_at(size_t bytes, long offset)
{
    void *p = NULL;
    if (posix_memalign(&p, (size_t)VK_ALIGN, bytes + (size_t)offset) != 0) {
        fprintf(stderr, "hpm-validate-kernels: out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    memset(p, 0, bytes + (size_t)offset);
    return (char *)p + offset;
}

/* ------------------------------------------------------------ the kernels */
/* noinline: each is a function of its own, as in the seed, and the region
 * markers around a call cannot be scheduled into its loop. */

__attribute__((noinline)) static void seq_stores(double *d, long n, double c)
{
    for (long k = 0; k < n; k++)
        d[k] = c;
}

__attribute__((noinline)) static double seq_loads(const double *d, long n, double c)
{
    double s = 0.0;
    for (long k = 0; k < n; k++)
        s = s + c * d[k];
    return s;
}

__attribute__((noinline)) static void seq_ldst(double *d, long n, double c)
{
    for (long k = 1; k < n; k++)
        d[k] = d[k] + c * d[k - 1];
}

__attribute__((noinline)) static double rnd_ld(const double *d, const int *idx)
{
    double s = 0.0;
    for (long k = 0; k < VK_NIDX; k++)
        s = s + d[idx[k]];
    return s;
}

/* k outer, j inner: I[k] is loaded once per k (the seed's 1K fixed-point
 * loads) and its 32 accesses run one after another (its "only 2K TLB misses
 * overall": two pages per entry of I). */
__attribute__((noinline)) static double mrnd_ld(const double *d, const int *idx)
{
    double s = 0.0;
    for (long k = 0; k < VK_NIDX; k++) {
        const double *p = d + idx[k];
        for (long j = 0; j < VK_MULT; j++)
            s = s + p[VK_STRIDE * j];
    }
    return s;
}

/* Figure 3a, as printed: every pair is swapped twice, so B ends as it began,
 * and the loads and stores are 2 * (64^2 - 64) each. */
__attribute__((noinline)) static void transpose(double *b)
{
    for (long i = 0; i < VK_MAT; i++)
        for (long j = 0; j < VK_MAT; j++)
            if (i != j) {
                const double aux = b[i * VK_MAT + j];
                b[i * VK_MAT + j] = b[j * VK_MAT + i];
                b[j * VK_MAT + i] = aux;
            }
}

/* Figure 3b with B transposed. C[i][j] is read once and written once per
 * (i, j), the sum kept in a register across k: the seed's 64^2 stores and
 * 129 * 64^2 loads (A and B 64 times each, C once). Written out with a local
 * rather than left to the optimiser, which must assume C may alias A or B. */
__attribute__((noinline)) static void matmult(const double *a, const double *b, double *c)
{
    for (long i = 0; i < VK_MAT; i++)
        for (long j = 0; j < VK_MAT; j++) {
            double cij = c[i * VK_MAT + j];
            for (long k = 0; k < VK_MAT; k++)
                cij += a[i * VK_MAT + k] * b[j * VK_MAT + k];
            c[i * VK_MAT + j] = cij;
        }
}

/* ------------------------------------------------------------ set-up */

static void evict(void)
{
    sink = seq_loads(evict_buf, VK_EVICT_BYTES / (long)sizeof(double), 1.0);
}

/* Fill D with values that keep every sum finite and not constant. */
static void fill(double *d, long n)
{
    for (long k = 0; k < n; k++)
        d[k] = (double)(k & 1023) * (1.0 / 1024.0);
}

/* The index vector for a vector of len elements (see the header comment). */
static void make_indices(int *idx, long len)
{
    const long span = (long)VK_STRIDE * (VK_MULT - 1); /* D[I[k] + span] is read */
    uint64_t s = VK_SEED;
    if (uniform_indices) {
        for (long k = 0; k < VK_NIDX; k++)
            idx[k] = (int)((wl_next(&s) >> 11) % (uint64_t)(len - span));
        return;
    }
    for (long k = 0; k < VK_NIDX; k++) {
        const long lo = k * (len - span) / VK_NIDX, hi = (k + 1) * (len - span) / VK_NIDX;
        idx[k] = (int)(lo + (long)((wl_next(&s) >> 11) % (uint64_t)(hi - lo)));
    }
    for (long k = VK_NIDX - 1; k > 0; k--) {
        const long r = (long)((wl_next(&s) >> 11) % (uint64_t)(k + 1));
        const int t = idx[k];
        idx[k] = idx[r];
        idx[r] = t;
    }
}

static void fill_matrix(double *m, long count, double base)
{
    for (long i = 0; i < count; i++)
        m[i] = base + (double)(i % 97) * 0.01;
}

/* ------------------------------------------------------------ benchmarks */

static void run_seq_stores(void)
{
    evict();
    WL_REGION_BEGIN("seq_stores");
    seq_stores(vec_d, VK_N, C_CONST);
    WL_REGION_END("seq_stores");
    printf("seq_stores %.6e\n", vec_d[VK_N - 1]);
}

static void run_seq_loads(void)
{
    fill(vec_d, VK_N);
    evict();
    WL_REGION_BEGIN("seq_loads");
    const double s = seq_loads(vec_d, VK_N, C_CONST);
    WL_REGION_END("seq_loads");
    printf("seq_loads %.6e\n", s);
}

static void run_seq_ldst(void)
{
    /* with c = 0.5 the recurrence d[k] = 1 + d[k-1]/2 tends to 2: finite */
    for (long k = 0; k < VK_N; k++)
        vec_d[k] = 1.0;
    evict();
    WL_REGION_BEGIN("seq_ldst");
    seq_ldst(vec_d, VK_N, 0.5);
    WL_REGION_END("seq_ldst");
    printf("seq_ldst %.6e\n", vec_d[VK_N - 1]);
}

static void run_rnd(const char *name, double *d, int *idx, long len, int mult)
{
    fill(d, len);
    make_indices(idx, len);
    evict();
    sink = seq_loads(d, len, 1.0); /* "D ... was just traversed" */
    double s;
    WL_REGION_BEGIN(name);
    s = mult ? mrnd_ld(d, idx) : rnd_ld(d, idx);
    WL_REGION_END(name);
    printf("%s %.6e\n", name, s);
}

static void run_rnd_ld_D(void)
{
    run_rnd("rnd_ld_D", vec_d, idx_d, VK_N, 0);
}
static void run_rnd_ld_D2(void)
{
    run_rnd("rnd_ld_D2", vec_d2, idx_d2, VK_N2, 0);
}
static void run_mrnd_ld_D(void)
{
    run_rnd("mrnd_ld_D", vec_d, idx_d, VK_N, 1);
}
static void run_mrnd_ld_D2(void)
{
    run_rnd("mrnd_ld_D2", vec_d2, idx_d2, VK_N2, 1);
}

static void run_transpose(void)
{
    fill_matrix(mat_t, (long)VK_MAT * VK_MAT, 1.0);
    evict();
    WL_REGION_BEGIN("transpose");
    transpose(mat_t);
    WL_REGION_END("transpose");
    printf("transpose %.6e\n", mat_t[1]);
}

static void run_matmult(void)
{
    const long m2 = (long)VK_MAT * VK_MAT;
    fill_matrix(mat_abc, m2, 1.0);
    fill_matrix(mat_abc + m2, m2, 2.0);
    fill_matrix(mat_abc + 2 * m2, m2, 0.0);
    evict();
    WL_REGION_BEGIN("matmult");
    matmult(mat_abc, mat_abc + m2, mat_abc + 2 * m2);
    WL_REGION_END("matmult");
    double s = 0.0;
    for (long i = 0; i < m2; i++)
        s += mat_abc[2 * m2 + i];
    printf("matmult %.6e\n", s);
}

/* ------------------------------------------------------------ main */

struct bench {
    const char *name;
    void (*run)(void);
};

#define VK_ENTRY(id, label) {#id, run_##id},
static const struct bench benches[] = {VK_BENCHMARKS(VK_ENTRY)};
#define N_BENCHES (sizeof benches / sizeof benches[0])

static void usage(FILE *f, const char *argv0)
{
    fprintf(f, "usage: %s [--uniform] NAME... | all\nNAME:", argv0);
    for (size_t i = 0; i < N_BENCHES; i++)
        fprintf(f, " %s", benches[i].name);
    fprintf(f, "\n");
}

int main(int argc, char **argv)
{
    int first = 1;
    if (argc > 1 && strcmp(argv[1], "--uniform") == 0) {
        uniform_indices = 1;
        first = 2;
    }
    if (argc <= first) {
        usage(stderr, argv[0]);
        return 2;
    }
    /* Check every name before running anything. */
    for (int a = first; a < argc; a++) {
        int ok = strcmp(argv[a], "all") == 0;
        for (size_t i = 0; i < N_BENCHES && !ok; i++)
            ok = strcmp(argv[a], benches[i].name) == 0;
        if (!ok) {
            fprintf(stderr, "%s: unknown benchmark '%s'\n", argv[0], argv[a]);
            usage(stderr, argv[0]);
            return 2;
        }
    }
    vec_d = alloc_at((size_t)VK_N * sizeof(double), 0);
    vec_d2 = alloc_at((size_t)VK_N2 * sizeof(double), 0);
    evict_buf = alloc_at((size_t)VK_EVICT_BYTES, 0);
    idx_d = alloc_at(VK_NIDX * sizeof(int), VK_IDX_OFFSET);
    idx_d2 = alloc_at(VK_NIDX * sizeof(int), VK_IDX_OFFSET);
    mat_t = alloc_at((size_t)VK_MAT * VK_MAT * sizeof(double), VK_MAT_OFFSET);
    mat_abc = alloc_at(3 * (size_t)VK_MAT * VK_MAT * sizeof(double), VK_MAT_OFFSET);

    for (int a = first; a < argc; a++)
        for (size_t i = 0; i < N_BENCHES; i++)
            if (strcmp(argv[a], "all") == 0 || strcmp(argv[a], benches[i].name) == 0)
                benches[i].run();
    return 0;
}
