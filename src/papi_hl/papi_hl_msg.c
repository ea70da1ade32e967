/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * papi_hl_msg.c - the high-level API's messages on stderr ("PAPI-HL
 * Warning: ..."), for papi_hl.c and its report writer (papi_hl_output.c).
 * A leaf: it calls nothing else of the folder, so both may use it without
 * calling each other in a loop (tests/common/no_cycles.sh).
 */
#include "papi.h"
#include "papi_hl_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void hpm_hl_msg(const char *kind, const char *fmt, ...)
{
    va_list ap;

    /* Errors always; the rest only when asked for, as PAPI does. */
    if (!hpm_hl.verbose && strcmp(kind, "Error") != 0)
        return;
    fprintf(stderr, "PAPI-HL %s: ", kind);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}
