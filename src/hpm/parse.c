/* SPDX-License-Identifier: BSD-3-Clause */
/* parse.c - the text parsers of libhpm (parse.h). */
#include "parse.h"

#include <string.h>

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Digits at buf[*i..], saturating checks: 0 on success, -1 if none or
 * overflow. */
static int digits(const char *buf, size_t len, size_t *i, uint64_t *out)
{
    uint64_t v = 0;
    size_t start = *i;
    while (*i < len && is_digit(buf[*i])) {
        unsigned d = (unsigned)(buf[*i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
        (*i)++;
    }
    if (*i == start)
        return -1;
    *out = v;
    return 0;
}

int hpm_parse_u64(const char *buf, size_t len, uint64_t *out)
{
    size_t i = 0;
    uint64_t v;
    while (i < len && is_blank(buf[i]))
        i++;
    if (digits(buf, len, &i, &v) != 0)
        return -1;
    while (i < len && is_blank(buf[i]))
        i++;
    if (i != len && buf[i] != '\0')
        return -1;
    *out = v;
    return 0;
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
            if (digits(buf, eol, &j, &v) != 0)
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
            if (digits(buf, i, &j, &v) != 0 || j != i)
                return -1;
            *out = v;
            return 0;
        }
    }
}

/* The value after "key<blanks>:" on a cpuinfo line, or NULL. */
static const char *cpuinfo_value(const char *line, size_t n, const char *key, size_t *vlen)
{
    size_t klen = strlen(key), j;
    if (n < klen || memcmp(line, key, klen) != 0)
        return NULL;
    j = klen;
    while (j < n && (line[j] == ' ' || line[j] == '\t'))
        j++;
    if (j >= n || line[j] != ':')
        return NULL;
    j++;
    while (j < n && (line[j] == ' ' || line[j] == '\t'))
        j++;
    *vlen = n - j;
    while (*vlen > 0 && is_blank(line[j + *vlen - 1]))
        (*vlen)--;
    return line + j;
}

static void copy_value(char *dst, size_t cap, const char *v, size_t n)
{
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, v, n);
    dst[n] = '\0';
}

static int small_int(const char *v, size_t n)
{
    uint64_t x;
    if (hpm_parse_u64(v, n, &x) != 0 || x > 1000000)
        return 0;
    return (int)x;
}

void hpm_parse_cpuinfo(const char *buf, size_t len, struct hpm_cpuinfo *ci)
{
    /* distinct physical ids: a small bitmap is enough for real machines */
    uint64_t seen[4] = {0, 0, 0, 0};
    size_t i = 0;
    int first_done = 0, s;
    memset(ci, 0, sizeof *ci);
    while (i < len) {
        size_t eol = i, vlen;
        const char *line = buf + i, *v;
        while (eol < len && buf[eol] != '\n')
            eol++;
        if ((v = cpuinfo_value(line, eol - i, "processor", &vlen))) {
            if (ci->processors > 0)
                first_done = 1;
            ci->processors++;
        } else if ((v = cpuinfo_value(line, eol - i, "physical id", &vlen))) {
            int id = small_int(v, vlen);
            if (id >= 0 && id < 256)
                seen[id / 64] |= 1ull << (id % 64);
        } else if (!first_done) {
            if ((v = cpuinfo_value(line, eol - i, "model name", &vlen)) ||
                (v = cpuinfo_value(line, eol - i, "cpu model", &vlen)))
                copy_value(ci->model, sizeof ci->model, v, vlen);
            else if ((v = cpuinfo_value(line, eol - i, "Model", &vlen)) && !ci->model[0])
                copy_value(ci->model, sizeof ci->model, v, vlen);
            else if ((v = cpuinfo_value(line, eol - i, "vendor_id", &vlen)) ||
                     (v = cpuinfo_value(line, eol - i, "CPU implementer", &vlen)))
                copy_value(ci->vendor, sizeof ci->vendor, v, vlen);
            else if ((v = cpuinfo_value(line, eol - i, "cpu MHz", &vlen))) {
                /* "2095.076": integer and fraction without strtod (locale) */
                size_t j = 0;
                uint64_t ip = 0, fp = 0;
                double scale = 1;
                if (digits(v, vlen, &j, &ip) == 0) {
                    ci->mhz = (double)ip;
                    if (j < vlen && v[j] == '.') {
                        j++;
                        while (j < vlen && is_digit(v[j]) && scale < 1e12) {
                            fp = fp * 10 + (uint64_t)(v[j] - '0');
                            scale *= 10;
                            j++;
                        }
                        ci->mhz += (double)fp / scale;
                    }
                }
            } else if ((v = cpuinfo_value(line, eol - i, "siblings", &vlen)))
                ci->siblings = small_int(v, vlen);
            else if ((v = cpuinfo_value(line, eol - i, "cpu cores", &vlen)))
                ci->cores = small_int(v, vlen);
        }
        i = eol + 1;
    }
    for (s = 0; s < 256; s++)
        if (seen[s / 64] & (1ull << (s % 64)))
            ci->sockets++;
}

int hpm_parse_cpulist(const char *buf, size_t len)
{
    size_t i = 0;
    uint64_t total = 0;
    while (i < len && is_blank(buf[i]))
        i++;
    if (i == len || buf[i] == '\0')
        return 0;
    for (;;) {
        uint64_t a, b;
        if (digits(buf, len, &i, &a) != 0)
            return -1;
        b = a;
        if (i < len && buf[i] == '-') {
            i++;
            if (digits(buf, len, &i, &b) != 0 || b < a)
                return -1;
        }
        if (b - a >= 1u << 20)
            return -1;
        total += b - a + 1;
        if (total > 1u << 20)
            return -1;
        if (i < len && buf[i] == ',') {
            i++;
            continue;
        }
        while (i < len && is_blank(buf[i]))
            i++;
        if (i != len && buf[i] != '\0')
            return -1;
        return (int)total;
    }
}

int hpm_parse_size(const char *buf, size_t len, uint64_t *out)
{
    size_t i = 0;
    uint64_t v, mul = 1;
    while (i < len && is_blank(buf[i]))
        i++;
    if (digits(buf, len, &i, &v) != 0)
        return -1;
    if (i < len) {
        switch (lower(buf[i])) { /* sysfs writes K; M and G for completeness */
        case 'k': mul = 1024; i++; break;
        case 'm': mul = 1024 * 1024; i++; break;
        case 'g': mul = 1024ull * 1024 * 1024; i++; break;
        default: break;
        }
    }
    while (i < len && is_blank(buf[i]))
        i++;
    if (i != len && buf[i] != '\0')
        return -1;
    if (v > UINT64_MAX / mul)
        return -1;
    *out = v * mul;
    return 0;
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
