/* SPDX-License-Identifier: BSD-3-Clause */
/* nop_loop.h - an exact workload for the fork tests: loop(n) runs n >= 1
 * iterations of NOP; DEC; JNZ, 3n instructions; loop_end follows it, so
 * that [&loop, &loop_end) holds the loop's addresses (papi_fork_overflow
 * checks the interrupted addresses against it). */
#ifndef HPM_TEST_NOP_LOOP_H
#define HPM_TEST_NOP_LOOP_H

__attribute__((noinline)) static void loop(unsigned long n)
{
    __asm__ volatile("1: nop\n\t"
                     "dec %0\n\t"
                     "jnz 1b"
                     : "+r"(n)
                     :
                     : "cc");
}
__attribute__((noinline, unused)) static void loop_end(void) {}

#endif
