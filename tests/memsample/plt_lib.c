/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plt_lib.c - a library that calls strtol through its own PLT PLT_CALLS
 * times from PLT_FN (built twice: libmemsample_plta and _pltb): the two
 * objects' strtol@plt stubs must stay apart in a profile.
 */
#include <stdlib.h>

#ifndef PLT_FN
#error "PLT_FN and PLT_CALLS are set by tests/memsample/CMakeLists.txt"
#endif

long PLT_FN(const char *s)
{
    long sum = 0;
    int i;
    for (i = 0; i < PLT_CALLS; i++)
        sum += strtol(s, NULL, 10);
    return sum;
}
