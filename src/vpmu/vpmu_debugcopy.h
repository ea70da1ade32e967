/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_debugcopy.h - separate debug files read from hpm's decompressed
 * copies (vpmu_debugcopy.c).
 */
#ifndef VPMU_DEBUGCOPY_H
#define VPMU_DEBUGCOPY_H

#include "pub_tool_basics.h"

/* --hpm-debug-dir=DIR, --hpm-debug-copies=HEX,...: True when arg was one. */
Bool vpmu_debugcopy_option(const HChar *arg);
void vpmu_debugcopy_usage(void);

#endif
