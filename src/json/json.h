/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * json.h - the one JSON string writer of hpm, used by every JSON output
 * (hpm count's report, libhpm's region files, PAPI's high-level output).
 *
 * Strings hpm writes come from programs and files it does not control
 * (arguments, region names, event names), so they are bytes, not text: a
 * valid UTF-8 sequence is copied, control characters are escaped, and a byte
 * that is not part of valid UTF-8 is written as the Latin-1 character of its
 * value (\u00XX). The output is always valid JSON.
 */
#ifndef HPM_JSON_H
#define HPM_JSON_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes s (NULL = "") as a quoted JSON string. */
void hpm_json_string(FILE *f, const char *s);

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when the bytes at s
 * are not one (overlong forms, surrogates, past U+10FFFF, truncated). */
size_t hpm_json_utf8_len(const unsigned char *s);

#ifdef __cplusplus
}
#endif
#endif
