/* SPDX-License-Identifier: BSD-3-Clause */
/* CHECK_RC: an hpm call returned the status expected (hpm_check.h counts
 * the failure; the message names both codes and hpm_strerror's text). */
#ifndef HPM_RC_CHECK_H
#define HPM_RC_CHECK_H

#include <stdio.h>

#include "hpm/hpm.h"
#include "hpm_check.h"

#define CHECK_RC(expr, want)                                                               \
    do {                                                                                   \
        int rc_ = (expr);                                                                  \
        if (rc_ != (want)) {                                                               \
            fprintf(stderr, "%s:%d: %s = %d (%s), expected %s = %d\n", __FILE__, __LINE__, \
                    #expr, rc_, hpm_strerror(rc_), #want, (int)(want));                    \
            failures++;                                                                    \
        }                                                                                  \
    } while (0)

#endif
