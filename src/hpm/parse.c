/* SPDX-License-Identifier: BSD-3-Clause */
/* parse.c - the text parsers of libhpm (parse.h). */
#include "parse.h"

#include "fileio.h"

#include <string.h>

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

int hpm_parse_kv(const char *buf, size_t len, const char *key, uint64_t *out)
{
    size_t klen = strlen(key), i = 0;
    while (i < len) {
        size_t eol = i;
        while (eol < len && buf[eol] != '\n')
            eol++;
        if (eol - i > klen && memcmp(buf + i, key, klen) == 0 && buf[i + klen] == ':') {
            size_t j = i + klen + 1;
            uint64_t v;
            while (j < eol && (buf[j] == ' ' || buf[j] == '\t'))
                j++;
            if (hpm_text_digits(buf, eol, &j, &v) != 0)
                return -1;
            while (j < eol && (buf[j] == ' ' || buf[j] == '\t'))
                j++;
            if (eol - j >= 2 && lower(buf[j]) == 'k' && lower(buf[j + 1]) == 'b') {
                if (v > UINT64_MAX / 1024)
                    return -1;
                v *= 1024;
            }
            *out = v;
            return 0;
        }
        i = eol + 1;
    }
    return -1;
}

int hpm_parse_stat_field(const char *buf, size_t len, int field, uint64_t *out)
{
    size_t i, close = len;
    int f;
    if (field < 3)
        return -1;
    for (i = len; i > 0; i--)
        if (buf[i - 1] == ')') {
            close = i - 1;
            break;
        }
    if (close == len)
        return -1;
    i = close + 1;
    /* field 3 starts after the blank that follows ')' */
    for (f = 3;; f++) {
        size_t start;
        while (i < len && buf[i] == ' ')
            i++;
        if (i >= len || buf[i] == '\n')
            return -1;
        start = i;
        while (i < len && buf[i] != ' ' && buf[i] != '\n')
            i++;
        if (f == field) {
            size_t j = start;
            uint64_t v;
            if (buf[j] == '-') /* a negative field (e.g. priority): not a count */
                return -1;
            if (hpm_text_digits(buf, i, &j, &v) != 0 || j != i)
                return -1;
            *out = v;
            return 0;
        }
    }
}

int hpm_parse_name_list(const char *buf, size_t len, char *names, int max, size_t name_max)
{
    size_t i = 0;
    int n = 0;
    while (i < len && buf[i] != '\0') {
        size_t start, end;
        while (i < len && buf[i] != '\0' && buf[i] != ',' && is_blank(buf[i]))
            i++;
        start = i;
        while (i < len && buf[i] != '\0' && buf[i] != ',')
            i++;
        end = i;
        while (end > start && is_blank(buf[end - 1]))
            end--;
        if (i < len && buf[i] == ',')
            i++;
        if (end == start)
            continue;
        if (end - start + 1 > name_max)
            return -1;
        if (n >= max)
            return -2;
        memcpy(names + (size_t)n * name_max, buf + start, end - start);
        names[(size_t)n * name_max + (end - start)] = '\0';
        n++;
    }
    return n;
}
