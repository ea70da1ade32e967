/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: the perf.data reader (src/perfdata/perfdata.c). Every
 * input is refused with a terminated message or read into samples whose
 * events, chains and mappings stay within what was read. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct perfdata_file pf;
    char err[160];
    size_t i;
    unsigned k;
    memset(err, 'x', sizeof err);
    if (perfdata_read(data, size, &pf, err, sizeof err) != 0) {
        if (memchr(err, 0, sizeof err) == NULL || err[0] == 0)
            abort();
        return 0;
    }
    if (pf.n_events == 0 || pf.n_events > PERFDATA_MAX_EVENTS)
        abort();
    for (k = 0; k < pf.n_events; k++)
        if (memchr(pf.names[k], 0, sizeof pf.names[k]) == NULL)
            abort();
    for (i = 0; i < pf.n_samples; i++) {
        const struct perfdata_sample *s = &pf.samples[i];
        uint64_t sum = 0;
        if (s->event >= pf.n_events)
            abort();
        for (k = 0; k < s->n_chain; k++)
            sum += s->chain[k]; /* ASan: the chain is inside the store */
        (void)sum;
    }
    for (i = 0; i < pf.n_mmaps; i++)
        if (!pf.mmaps[i].path)
            abort();
    perfdata_free(&pf);
    return 0;
}
