/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm_test_work.h - workloads whose counts the libhpm tests know exactly,
 * written in assembly so that no compiler can change them, each between
 * two global labels so that tests can tell whether an overflow PC lies in it.
 *
 *   hpm_work_branches(n)  n >= 1: exactly n conditional branches (n-1 taken),
 *                         2n + 1 instructions (DEC, JNZ per iteration; RET)
 *   hpm_work_adds(n)      n >= 1: exactly n double-precision scalar adds
 *                         (ADDSD), n conditional branches, 3n + 3 instructions
 * Include in one file of a program only (it defines the functions).
 */
#ifndef HPM_TEST_WORK_H
#define HPM_TEST_WORK_H

#include <stdint.h>

#if defined(__x86_64__)
__asm__(".text\n"
        ".p2align 4\n"
        ".globl hpm_work_branches\n"
        ".type hpm_work_branches, @function\n"
        "hpm_work_branches:\n"
        "1:  dec %rdi\n"
        "    jnz 1b\n"
        "    ret\n"
        ".size hpm_work_branches, .-hpm_work_branches\n"
        ".globl hpm_work_branches_end\n"
        "hpm_work_branches_end:\n"
        ".p2align 4\n"
        ".globl hpm_work_adds\n"
        ".type hpm_work_adds, @function\n"
        "hpm_work_adds:\n"
        "    xorpd %xmm0, %xmm0\n"
        "    movsd %xmm0, %xmm1\n"
        "2:  addsd %xmm1, %xmm0\n"
        "    dec %rdi\n"
        "    jnz 2b\n"
        "    ret\n"
        ".size hpm_work_adds, .-hpm_work_adds\n"
        ".globl hpm_work_adds_end\n"
        "hpm_work_adds_end:\n");
void hpm_work_branches(uint64_t n);
void hpm_work_adds(uint64_t n);
extern const char hpm_work_branches_end[], hpm_work_adds_end[];
#else
/* Elsewhere: the same work in C (the counts are then not exact; the exact
 * tests run under the virtual PMU, which is amd64 only). */
__attribute__((noinline)) static void hpm_work_branches(uint64_t n)
{
    for (; n > 1; n--)
        __asm__ volatile("" : "+r"(n));
}
static volatile double hpm_work_sink;
__attribute__((noinline)) static void hpm_work_adds(uint64_t n)
{
    double x = 0;
    for (; n > 0; n--)
        x += 1.0;
    hpm_work_sink = x;
}
static const char hpm_work_branches_end[1], hpm_work_adds_end[1];
#endif

/* Whether pc lies in hpm_work_branches. */
static inline int hpm_work_in_branches(const void *pc)
{
    uintptr_t p = (uintptr_t)pc;
    return p >= (uintptr_t)(void *)hpm_work_branches && p < (uintptr_t)(const void *)hpm_work_branches_end;
}

#endif
