/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * record_prog - the load-miss loop of tests/record: one load per 64-byte
 * line of a 2 MiB global array, twice over. The load is one instruction at
 * the exported label rec_load_insn, so every precise sample of a load or a
 * miss in the loop must name exactly that address, and its data address
 * must fall inside the array. Prints the label's and the array's addresses
 * (the test compares them with perf script's fields).
 *
 * record_prog insn: a straight loop of REC_INSN_K instructions run
 * REC_INSN_ITERS times between the labels rec_insn_loop and rec_insn_end
 * (INSTRUCTIONS samples: each is REC_PERIOD instructions after the one
 * before, so its place in the loop is known from the disassembly).
 * record_prog branch: a loop whose conditional branch at rec_br_insn goes
 * either way at random (an LCG's bit 16), so the predictor misses it about
 * half the time; the loop's other branch is its back edge at rec_br_back.
 * record_prog fp: a loop of one packed and one scalar double operation
 * (rec_fp_vec, rec_fp_mul): every FP sample in it must name one of them.
 */
#include <stdio.h>
#include <string.h>

#define LINES (2 * 1024 * 1024 / 64)

static long array[LINES * 8];

extern const char rec_load_insn[];

__attribute__((noinline)) static long sweep(const long *p, long n)
{
    long s = 0;
    __asm__ volatile(".globl rec_load_insn\n"
                     "1:\n"
                     "rec_load_insn:\n\t"
                     "add (%[p]), %[s]\n\t"
                     "add $64, %[p]\n\t"
                     "dec %[n]\n\t"
                     "jnz 1b\n"
                     : [s] "+r"(s), [p] "+r"(p), [n] "+r"(n)
                     :
                     : "memory", "cc");
    return s;
}

__attribute__((noinline)) long rec_hot(void)
{
    return sweep(array, LINES) + sweep(array, LINES);
}

#define REC_INSN_ITERS 100000

extern const char rec_insn_loop[], rec_insn_end[];

/* 5 instructions per iteration: add, xor, rol, dec, jnz */
__attribute__((noinline)) static long insn_loop(long n)
{
    long a = 1;
    __asm__ volatile(".globl rec_insn_loop\n"
                     ".globl rec_insn_end\n"
                     "rec_insn_loop:\n\t"
                     "add %[n], %[a]\n\t"
                     "xor $0x5a, %[a]\n\t"
                     "rol $3, %[a]\n\t"
                     "dec %[n]\n\t"
                     "jnz rec_insn_loop\n"
                     "rec_insn_end:\n"
                     : [a] "+r"(a), [n] "+r"(n)
                     :
                     : "cc");
    return a;
}

#define REC_BR_ITERS 50000

extern const char rec_br_loop[], rec_br_insn[], rec_br_back[], rec_br_end[];

__attribute__((noinline)) static long branch_loop(long n)
{
    long taken = 0;
    unsigned x = 12345;
    __asm__ volatile(".globl rec_br_loop\n"
                     ".globl rec_br_insn\n"
                     ".globl rec_br_back\n"
                     ".globl rec_br_end\n"
                     "rec_br_loop:\n\t"
                     "imul $1103515245, %[x], %[x]\n\t"
                     "add $12345, %[x]\n\t"
                     "test $0x10000, %[x]\n"
                     "rec_br_insn:\n\t"
                     "jz 2f\n\t"
                     "inc %[t]\n"
                     "2:\n\t"
                     "dec %[n]\n"
                     "rec_br_back:\n\t"
                     "jnz rec_br_loop\n"
                     "rec_br_end:\n"
                     : [t] "+r"(taken), [x] "+r"(x), [n] "+r"(n)
                     :
                     : "cc");
    return taken;
}

#define REC_FP_ITERS 100000

extern const char rec_fp_loop[], rec_fp_vec[], rec_fp_mul[], rec_fp_end[];

/* Per iteration one packed double add (2 flops, FP_DP_128) at rec_fp_vec
 * and one scalar double multiply (1 flop, FP_DP_SCALAR) at rec_fp_mul; the
 * loop's other instructions do no floating point. */
__attribute__((noinline)) static double fp_loop(long n)
{
    double out[2];
    __asm__ volatile(".globl rec_fp_loop\n"
                     ".globl rec_fp_vec\n"
                     ".globl rec_fp_mul\n"
                     ".globl rec_fp_end\n\t"
                     "xorpd %%xmm0, %%xmm0\n\t"
                     "pcmpeqd %%xmm1, %%xmm1\n\t"
                     "psrlq $55, %%xmm1\n\t"  /* a small positive double per lane */
                     "movq %%xmm1, %%xmm2\n\t"
                     "movq %%xmm1, %%xmm3\n"
                     "rec_fp_loop:\n"
                     "rec_fp_vec:\n\t"
                     "addpd %%xmm1, %%xmm0\n"
                     "rec_fp_mul:\n\t"
                     "mulsd %%xmm3, %%xmm2\n\t"
                     "dec %[n]\n\t"
                     "jnz rec_fp_loop\n"
                     "rec_fp_end:\n\t"
                     "movupd %%xmm0, %[o]\n"
                     : [n] "+r"(n), [o] "=m"(out)
                     :
                     : "xmm0", "xmm1", "xmm2", "xmm3", "cc");
    return out[0] + out[1];
}

int main(int argc, char **argv)
{
    long s;
    if (argc > 1 && !strcmp(argv[1], "fp")) {
        double d = fp_loop(REC_FP_ITERS);
        printf("rec_fp %p %p %p %p %d\nsum %g\n", (const void *)rec_fp_loop,
               (const void *)rec_fp_vec, (const void *)rec_fp_mul, (const void *)rec_fp_end,
               REC_FP_ITERS, d);
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "insn")) {
        s = insn_loop(REC_INSN_ITERS);
        printf("rec_insn_loop %p %p %d\nsum %ld\n", (const void *)rec_insn_loop,
               (const void *)rec_insn_end, REC_INSN_ITERS, s);
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "branch")) {
        s = branch_loop(REC_BR_ITERS);
        printf("rec_br %p %p %p %p %d\ntaken %ld\n", (const void *)rec_br_loop,
               (const void *)rec_br_insn, (const void *)rec_br_back, (const void *)rec_br_end,
               REC_BR_ITERS, s);
        return 0;
    }
    s = rec_hot();
    printf("rec_load_insn %p\narray %p %p\nsum %ld\n", (const void *)rec_load_insn,
           (const void *)array, (const void *)(array + LINES * 8), s);
    return 0;
}
