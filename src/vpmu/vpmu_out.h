/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_out.h - the tool's buffered writer of its output file (vpmu_main.c),
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

#endif
