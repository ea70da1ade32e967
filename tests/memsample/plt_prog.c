/* SPDX-License-Identifier: BSD-3-Clause */
/* plt_prog.c - calls plt_a (libmemsample_plta) and plt_b (libmemsample_pltb). */
#include <stdio.h>

long plt_a(const char *s);
long plt_b(const char *s);

int main(int argc, char **argv)
{
    const char *s = argc > 1 ? argv[1] : "7";
    printf("%ld\n", plt_a(s) + plt_b(s));
    return 0;
}
