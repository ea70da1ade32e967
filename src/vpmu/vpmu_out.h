/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_out.h - the tool's buffered writer of its output file (vpmu_out.c),
 * shared with the profile's records (vpmu_profile.c).
 */
#ifndef HPM_VPMU_OUT_H
#define HPM_VPMU_OUT_H

#include "pub_tool_basics.h"

typedef struct {
    Int fd;
    Int used;
    Bool failed;
    HChar buf[8192];
} Out;

void out_flush(Out *o);
/* one formatted piece of at most 511 bytes */
void out_printf(Out *o, const HChar *fmt, ...) PRINTF_CHECK(2, 3);

/* Numbers formatted straight into the buffer, as %llu and %lx write them:
 * a profile's records are millions of numbers, and through the format
 * string they were a third of the tool's time writing them. */
static inline void out_room(Out *o, Int n)
{
    if (o->used + n > (Int)sizeof o->buf)
        out_flush(o);
}

static inline void out_char(Out *o, HChar c)
{
    out_room(o, 1);
    o->buf[o->used++] = c;
}

static inline void out_str(Out *o, const HChar *s)
{
    while (*s)
        out_char(o, *s++);
}

static inline void out_dec(Out *o, ULong v)
{
    HChar tmp[20];
    Int n = 0;
    do {
        tmp[n++] = (HChar)('0' + v % 10);
        v /= 10;
    } while (v);
    out_room(o, n);
    while (n > 0)
        o->buf[o->used++] = tmp[--n];
}

static inline void out_hex(Out *o, ULong v)
{
    HChar tmp[16];
    Int n = 0;
    do {
        tmp[n++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    out_room(o, n);
    while (n > 0)
        o->buf[o->used++] = tmp[--n];
}

#endif
