/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * validate_kernels.h - what hpm-validate-kernels (the seven micro-benchmarks
 * of seed 001, section 4.1) and `hpm validate` (tools/hpm/validate.c, which
 * derives the expected counts) must agree on: the benchmark names, the data
 * sizes and the data layout.
 *
 * Both sides include this one header so that a size or an alignment changed
 * here changes the kernels and the expectations together.
 */
#ifndef HPM_VALIDATE_KERNELS_H
#define HPM_VALIDATE_KERNELS_H

/* Seed 001: "a vector D with n = 2^20 double precision elements (8 Mbytes)";
 * D2 "with twice the size of D". */
#define VK_N (1L << 20)
#define VK_N2 (2 * VK_N)
/* "a vector, I, of 1024 integers (4 Kbytes)" */
#define VK_NIDX 1024
/* "Multiple random loads: s = s + D[I[k] + 16*j], j = 0..31" */
#define VK_MULT 32
#define VK_STRIDE 16 /* elements */
/* "matrices of 64 x 64 double precision elements (32 Kbytes each)" */
#define VK_MAT 64

/* Layout. Every array starts VK_ALIGN-aligned plus an offset, VK_ALIGN being
 * larger than any page or line a machine file may give (2 MB), so that the
 * number of lines and pages an array spans follows from its size and offset
 * alone, whatever the machine model's page and line sizes:
 *   D, D2 and the eviction buffer at offset 0 (whole pages, as the seed's
 *     2K TLB misses for 8 MB assume);
 *   I at VK_IDX_OFFSET: not on a page boundary, so I spans two pages, the
 *     seed's "additional 2 TLB misses" for I;
 *   the transposed matrix, and the three matrices of the multiplication
 *     (contiguous, A then B then C), at VK_MAT_OFFSET: not on a page
 *     boundary either -- the seed's 9 TLB misses for one 32 KB matrix and
 *     "an extra TLB miss to compensate for not starting the arrays at a
 *     page boundary" (3 x 8 + 1 = 25) for three.
 * Both offsets are multiples of 128 bytes, so every array starts on an L1
 * and an L2 line boundary of the bgl model (32- and 128-byte lines). */
#define VK_ALIGN (1L << 21)
#define VK_IDX_OFFSET 2048L
#define VK_MAT_OFFSET 2048L

/* The eviction buffer read between set-up and measurement where the seed's
 * reasoning wants cold caches: 16 MB, four times bgl's 4 MB L2. */
#define VK_EVICT_BYTES (16L << 20)

/* Fixed seed of the index vectors: the same indices on every run. */
#define VK_SEED 0x5eed001ULL

/* The benchmarks, in the order "all" runs them and seed 001 Table 1 lists
 * them. Each is one region of the same name. */
#define VK_BENCHMARKS(X)                                                                           \
    X(seq_stores, "seq stores")                                                                    \
    X(seq_loads, "seq loads")                                                                      \
    X(seq_ldst, "seq ld & st")                                                                     \
    X(rnd_ld_D, "random ld D")                                                                     \
    X(rnd_ld_D2, "random ld D2")                                                                   \
    X(mrnd_ld_D, "mult rnd ld D")                                                                  \
    X(mrnd_ld_D2, "mult rnd ld D2")                                                                \
    X(transpose, "transpose")                                                                      \
    X(matmult, "matrix mult")

#endif
