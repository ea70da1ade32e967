/* SPDX-License-Identifier: BSD-3-Clause */
/* machine_wire.c - struct hpm_machine <-> command-line text (machine_wire.h). */
#include "machine_wire.h"

static const char hex[] = "0123456789abcdef";

static size_t put_dec(char *p, size_t v)
{
    char tmp[24];
    size_t n = 0, i;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (i = 0; i < n; i++)
        p[i] = tmp[n - 1 - i];
    return n;
}

size_t hpm_machine_wire_size(void)
{
    return 4 + 20 + 1 + 2 * sizeof(struct hpm_machine) + 1;
}

size_t hpm_machine_wire_encode(const struct hpm_machine *m, char *buf, size_t len)
{
    const unsigned char *b = (const unsigned char *)m;
    size_t n = 0, i;
    if (len < hpm_machine_wire_size())
        return 0;
    buf[n++] = 'h';
    buf[n++] = 'p';
    buf[n++] = 'm';
    buf[n++] = 'M';
    n += put_dec(buf + n, sizeof *m);
    buf[n++] = ':';
    for (i = 0; i < sizeof *m; i++) {
        buf[n++] = hex[b[i] >> 4];
        buf[n++] = hex[b[i] & 15];
    }
    buf[n] = 0;
    return n;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

int hpm_machine_wire_decode(struct hpm_machine *m, const char *s)
{
    unsigned char *b = (unsigned char *)m;
    size_t size = 0, i;
    if (!s || s[0] != 'h' || s[1] != 'p' || s[2] != 'm' || s[3] != 'M')
        return -1;
    s += 4;
    if (*s < '0' || *s > '9')
        return -1;
    while (*s >= '0' && *s <= '9' && size < 1000000)
        size = size * 10 + (size_t)(*s++ - '0');
    if (*s++ != ':' || size != sizeof *m)
        return -1;
    for (i = 0; i < sizeof *m; i++) {
        int hi = hexval(s[2 * i]), lo = hi < 0 ? -1 : hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        b[i] = (unsigned char)(hi << 4 | lo);
    }
    if (s[2 * sizeof *m] != 0)
        return -1;
    /* strings must be terminated inside their buffers */
    m->name[sizeof m->name - 1] = 0;
    m->memory_type[sizeof m->memory_type - 1] = 0;
    return 0;
}
