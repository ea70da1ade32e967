/* SPDX-License-Identifier: BSD-3-Clause */
/* profile_util.h - the small helpers src/profile's files share, in one
 * place: a message into a caller's buffer, and an array grown to hold
 * more. Inline, so that every build of these files (the library, the fuzz
 * targets) has them without a file more. */
#ifndef HPM_PROFILE_UTIL_H
#define HPM_PROFILE_UTIL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* printf into err[0, errlen); nothing when there is no buffer. */
static inline void hpm__set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline void hpm__set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (!err || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* The array p of *cap elements of size bytes, grown (doubling, from 16)
 * to hold need of them: p itself when it does, the new array, or NULL
 * (out of memory, or too large; p is left as it was). */
static inline void *hpm__grow(void *p, size_t *cap, size_t need, size_t size)
{
    size_t n;
    void *q;
    if (need <= *cap)
        return p;
    n = *cap ? *cap : 16;
    while (n < need) {
        if (n > SIZE_MAX / 2 / size)
            return NULL;
        n *= 2;
    }
    q = realloc(p, n * size);
    if (q)
        *cap = n;
    return q;
}

#endif
