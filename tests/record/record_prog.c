/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * record_prog - the load-miss loop of tests/record: one load per 64-byte
 * line of a 2 MiB global array, twice over. The load is one instruction at
 * the exported label rec_load_insn, so every precise sample of a load or a
 * miss in the loop must name exactly that address, and its data address
 * must fall inside the array. Prints the label's and the array's addresses
 * (the test compares them with perf script's fields).
 */
#include <stdio.h>

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

int main(void)
{
    long s = rec_hot();
    printf("rec_load_insn %p\narray %p %p\nsum %ld\n", (const void *)rec_load_insn,
           (const void *)array, (const void *)(array + LINES * 8), s);
    return 0;
}
