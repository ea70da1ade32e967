/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target for a baseline's meta.json (tools/hpm/baseline/baseline.c): any
 * input parses or is refused with a message; a parsed one's strings are
 * terminated within their fields. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "baseline/baseline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct baseline_meta m;
    char err[512];
    unsigned i;
    if (baseline_meta_parse((const char *)data, size, &m, err, sizeof err) != 0) {
        if (!memchr(err, 0, sizeof err))
            abort();
        return 0;
    }
    if (!memchr(m.machine, 0, sizeof m.machine) || !memchr(m.args, 0, sizeof m.args) ||
        m.n_libs > BASELINE_MAX_LIBS)
        abort();
    for (i = 0; i < m.n_libs; i++)
        if (!memchr(m.libs[i].path, 0, sizeof m.libs[i].path))
            abort();
    return 0;
}
