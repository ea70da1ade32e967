/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the one JSON string writer (src/json): escapes, UTF-8 kept,
 * bytes that are not UTF-8 written as their Latin-1 character, so that any
 * byte string gives valid JSON (checked exhaustively for short strings). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "hpm_check.h"
#include "json.h"

static char *capture(const char *arg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    hpm_json_string(f, arg);
    fclose(f);
    return buf;
}

static void expect(const char *in, const char *want)
{
    char *got = capture(in);
    if (!got || strcmp(got, want) != 0) {
        fprintf(stderr, "json: got [%s], want [%s]\n", got ? got : "(null)", want);
        failures++;
    }
    free(got);
}

/* A JSON string literal as RFC 8259 defines it: quotes, escapes, no raw
 * control characters, the rest valid UTF-8. */
static int valid_json_string(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    if (*p++ != '"')
        return 0;
    while (*p && *p != '"') {
        size_t n;
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
                        return 0;
                p += 5;
            } else if (*p && strchr("\"\\/bfnrt", *p)) {
                p++;
            } else {
                return 0;
            }
        } else if (*p < 0x20) {
            return 0;
        } else if ((n = hpm_json_utf8_len(p)) > 0) {
            p += n;
        } else {
            return 0;
        }
    }
    return p[0] == '"' && p[1] == 0;
}

int main(void)
{
    expect("plain", "\"plain\"");
    expect(NULL, "\"\"");
    expect("a\"b\\c", "\"a\\\"b\\\\c\"");
    expect("t\tn\nx\x01", "\"t\\tn\\nx\\u0001\"");
    expect("caf\xc3\xa9", "\"caf\xc3\xa9\"");                   /* UTF-8 kept */
    expect("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"");         /* 4-byte UTF-8 kept */
    expect("bad\xff\xc3", "\"bad\\u00ff\\u00c3\"");            /* not UTF-8 */
    expect("\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\"");       /* surrogate */
    expect("\xc0\xaf", "\"\\u00c0\\u00af\"");                  /* overlong */
    expect("\xf4\x90\x80\x80", "\"\\u00f4\\u0090\\u0080\\u0080\""); /* past U+10FFFF */
    expect("\x7f", "\"\\u007f\"");
    /* every string of up to 3 bytes from a set that covers every class of
     * lead and continuation byte comes out as a valid JSON string */
    {
        static const unsigned char bytes[] = {0x01, 0x1f, '"',  '\\', 'a',  0x7f, 0x80, 0xbf,
                                              0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4,
                                              0xf5, 0xff};
        const size_t nb = sizeof bytes;
        for (size_t a = 0; a < nb; a++)
            for (size_t b = 0; b <= nb; b++)
                for (size_t c = 0; c <= nb; c++) {
                    char in[4] = {(char)bytes[a], b < nb ? (char)bytes[b] : 0,
                                  b < nb && c < nb ? (char)bytes[c] : 0, 0};
                    char *got = capture(in);
                    if (!got || !valid_json_string(got)) {
                        fprintf(stderr, "json: invalid output for %02x %02x %02x: %s\n",
                                (unsigned char)in[0], (unsigned char)in[1],
                                (unsigned char)in[2], got ? got : "(null)");
                        failures++;
                    }
                    free(got);
                }
    }
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("json: ok\n");
    return 0;
}
