/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: every parser of src/hpm/parse.c and src/machine/host.c
 * on the same input (an exact-size heap copy, so that any read past the end
 * is caught), with the invariants callers rely on. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "parse.h"

static int blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const keys[] = {"VmRSS", "VmHWM", "rchar", "write_bytes", "Threads"};
    char *buf = malloc(size ? size : 1);
    char names[8][12];
    struct hpm_cpuinfo ci;
    uint64_t v;
    int i, n;
    if (!buf)
        return 0;
    memcpy(buf, data, size);

    for (i = 0; i < (int)(sizeof keys / sizeof keys[0]); i++)
        (void)hpm_parse_kv(buf, size, keys[i], &v);
    for (i = 1; i < 60; i++)
        if (hpm_parse_stat_field(buf, size, i, &v) == 0 && i < 3)
            abort(); /* pid and comm are not fields it reads */

    hpm_host_parse_cpuinfo(buf, size, &ci);
    if (!memchr(ci.model, 0, sizeof ci.model) || !memchr(ci.vendor, 0, sizeof ci.vendor))
        abort();
    if (ci.processors < 0 || ci.sockets < 0 || ci.sockets > 256 || ci.mhz < 0)
        abort();

    n = hpm_host_parse_cpulist(buf, size);
    if (n < -1 || n > (1 << 20))
        abort();
    if (hpm_host_parse_size(buf, size, &v) == 0 && size == 0)
        abort();
    (void)hpm_host_parse_u64(buf, size, &v);

    memset(names, 'x', sizeof names);
    n = hpm_parse_name_list(buf, size, &names[0][0], 8, sizeof names[0]);
    if (n < -2 || n > 8)
        abort();
    for (i = 0; i < n; i++) {
        size_t len;
        if (!memchr(names[i], 0, sizeof names[i]))
            abort();
        len = strlen(names[i]);
        /* a name: not empty, no comma, no blank at either end */
        if (len == 0 || strchr(names[i], ',') || blank(names[i][0]) || blank(names[i][len - 1]))
            abort();
    }
    free(buf);
    return 0;
}
