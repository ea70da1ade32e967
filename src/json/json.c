/* SPDX-License-Identifier: BSD-3-Clause */
/* json.c - the JSON string writer (json.h). */
#include "json.h"

#include <stdint.h>

size_t hpm_json_utf8_len(const unsigned char *s)
{
    size_t n, i;
    uint32_t cp;
    if (s[0] < 0x80)
        return 1;
    if ((s[0] & 0xe0) == 0xc0) {
        n = 2;
        cp = s[0] & 0x1f;
    } else if ((s[0] & 0xf0) == 0xe0) {
        n = 3;
        cp = s[0] & 0x0f;
    } else if ((s[0] & 0xf8) == 0xf0) {
        n = 4;
        cp = s[0] & 0x07;
    } else {
        return 0;
    }
    for (i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    /* overlong forms, surrogates and values past U+10FFFF are not UTF-8 */
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
        (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
        return 0;
    return n;
}

void hpm_json_string(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    fputc('"', f);
    while (*p) {
        size_t n;
        if (*p == '"' || *p == '\\') {
            fputc('\\', f);
            fputc(*p++, f);
        } else if (*p == '\n') {
            fputs("\\n", f);
            p++;
        } else if (*p == '\t') {
            fputs("\\t", f);
            p++;
        } else if (*p < 0x20 || *p == 0x7f) {
            fprintf(f, "\\u%04x", *p++);
        } else if ((n = hpm_json_utf8_len(p)) > 0) {
            fwrite(p, 1, n, f);
            p += n;
        } else {
            /* a byte that is not UTF-8 (arguments are bytes): keep it as
             * the Latin-1 character of that value, so the JSON stays valid */
            fprintf(f, "\\u%04x", *p++);
        }
    }
    fputc('"', f);
}
