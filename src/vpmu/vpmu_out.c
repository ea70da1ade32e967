/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_out.c - the tool's buffered writer (vpmu_out.h): every part that
 * writes records to the output file (counts, profile, samples, processes,
 * multiplexing, c2c) writes through it. A leaf: it calls only Valgrind.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"

#include "vpmu_out.h"

void out_flush(Out *o)
{
    Int off = 0;
    while (off < o->used && !o->failed) {
        Int n = VG_(write)(o->fd, o->buf + off, o->used - off);
        if (n <= 0)
            o->failed = True;
        else
            off += n;
    }
    o->used = 0;
}

void out_printf(Out *o, const HChar *fmt, ...)
{
    HChar line[512];
    va_list ap;
    UInt n;
    va_start(ap, fmt);
    n = VG_(vsnprintf)(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n >= sizeof line)
        n = sizeof line - 1;
    if (o->used + (Int)n > (Int)sizeof o->buf)
        out_flush(o);
    VG_(memcpy)(o->buf + o->used, line, n);
    o->used += n;
}
