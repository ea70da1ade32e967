/* SPDX-License-Identifier: BSD-3-Clause */
/* c2c_internal.h - the c2c records' parser (c2c.c), called by
 * hpm_prof_records_parse (profile.c) for each line. */
#ifndef HPM_PROFILE_C2C_INTERNAL_H
#define HPM_PROFILE_C2C_INTERNAL_H

#include <stddef.h>

#include "profile.h"

/* The record named rec (recn bytes), its fields in [q, eol): 1 when it was
 * a prof_c2c* record and is taken, 0 when it is another record, -1 when
 * malformed, -2 when out of memory. */
int hpm__c2c_record(struct hpm_prof_records *r, const char *rec, size_t recn, const char *q,
                    const char *eol);
/* A "thread T core C" record's fields after "thread" (other thread
 * records, and malformed ones, are the output parser's: ignored here).
 * -2 when out of memory, else 0. */
int hpm__c2c_thread(struct hpm_prof_c2c *c, const char *q, const char *eol);
void hpm__c2c_free(struct hpm_prof_c2c *c);

#endif
