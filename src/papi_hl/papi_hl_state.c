/* SPDX-License-Identifier: BSD-3-Clause */
/* papi_hl_state.c - the high-level API's one state (papi_hl_internal.h's
 * hpm_hl), in a file that calls nothing: papi_hl.c and papi_hl_msg.c both
 * read it, and each calls the other's functions. */
#include "papi_hl_internal.h"

struct hl_global hpm_hl = {.lock = PTHREAD_MUTEX_INITIALIZER};
