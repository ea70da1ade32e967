/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * modes_prog LINES [SPIN] - touches LINES cache lines once each, 64 bytes
 * apart, in a buffer far larger than every cache of the machines it runs
 * on: each touch is an L1 miss (a memory-stall episode), and the loop
 * between them keeps the episodes apart. Then SPIN iterations of an
 * integer loop that runs more instructions than cycles on bgp (ADD, DEC:
 * integer, half a cycle each; JNZ: a branch, one cycle). Exits 0.
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long lines = argc > 1 ? atol(argv[1]) : 0, i;
    unsigned long spin = argc > 2 ? strtoul(argv[2], NULL, 10) : 0, acc = 0;
    volatile char *buf;
    long sum = 0;
    if (lines <= 0 || lines > (1L << 24)) {
        fprintf(stderr, "usage: modes_prog LINES (1..16777216) [SPIN]\n");
        return 2;
    }
    buf = calloc((size_t)lines, 64);
    if (!buf)
        return 1;
    for (i = 0; i < lines; i++)
        sum += buf[i * 64];
    if (spin)
        __asm__ volatile("1: add %1, %0\n\t"
                         "dec %1\n\t"
                         "jnz 1b"
                         : "+r"(acc), "+r"(spin)
                         :
                         : "cc");
    return (int)((sum + acc) & 1);
}
