/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dl_lib.c - a library that dl_prog dlopens: one function, DL_NAME, of a
 * known instruction count (assembly, so no compiler changes it): a mov,
 * DL_LOOPS times dec and jnz, an xor and a ret, 2 * DL_LOOPS + 3 in all.
 * Built twice (liba: fa, libb: fb) with the same layout, so that the loader
 * maps the second where the first was.
 */
#ifndef DL_NAME
#error "DL_NAME and DL_LOOPS are set by tests/profile/CMakeLists.txt"
#endif
#define STR2(x) #x
#define STR(x) STR2(x)

__asm__(".text\n"
        ".globl " STR(DL_NAME) "\n"
        ".type " STR(DL_NAME) ", @function\n"
        STR(DL_NAME) ":\n"
        "    mov $" STR(DL_LOOPS) ", %ecx\n"
        "1:  dec %ecx\n"
        "    jnz 1b\n"
        "    xor %eax, %eax\n"
        "    ret\n"
        ".size " STR(DL_NAME) ", .-" STR(DL_NAME) "\n");
