/* SPDX-License-Identifier: BSD-3-Clause */
/* grow.h - an array that grows by doubling, for the readers of hpm's files. */
#ifndef HPM_TOOL_GROW_H
#define HPM_TOOL_GROW_H

#include <stdint.h>
#include <stdlib.h>

/* *p (an array of *cap elements of size bytes) with room for need: 0, or
 * -1 (out of memory, or more than memory holds) with *p and *cap as they
 * were. */
static inline int hpm_grow(void **p, size_t *cap, size_t need, size_t size)
{
    size_t c = *cap ? *cap : 8;
    void *q;
    if (need <= *cap)
        return 0;
    while (c < need) {
        if (c > SIZE_MAX / 2)
            return -1;
        c *= 2;
    }
    if (c > SIZE_MAX / size || !(q = realloc(*p, c * size)))
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

#endif
