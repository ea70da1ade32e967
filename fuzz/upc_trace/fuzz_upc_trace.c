/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: hpm upc-explore's trace reader (tools/hpm/upc/upc_trace.c).
 * Whatever it accepts is a stream the replay can walk: every batch's moved
 * events inside the entries, each entry an event seen, no delta above its
 * batch's cycles, each event's code below the unit's and indexed back to
 * it; whatever it refuses says why. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "upc/upc_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct upc_stream *s = malloc(sizeof *s);
    char err[160];
    size_t b, e;
    unsigned k;
    if (!s)
        return 0;
    upc_stream_init(s);
    memset(err, 'x', sizeof err);
    if (upc_trace_parse(s, (const char *)data, size, err, sizeof err) != 0) {
        if (memchr(err, 0, sizeof err) == NULL || err[0] == 0)
            abort();
    } else {
        for (b = 0; b < s->nb; b++) {
            if (s->b[b].first + s->b[b].n > s->ne)
                abort();
            for (e = s->b[b].first; e < s->b[b].first + s->b[b].n; e++)
                if (s->ev[e] >= s->n_ev || s->delta[e] > s->b[b].cycles)
                    abort();
        }
        for (k = 0; k < s->n_ev; k++)
            if (s->code[k] >= UPC_TRACE_MAX_EVENTS || s->index[s->code[k]] != (int)k)
                abort();
    }
    upc_stream_free(s);
    free(s);
    return 0;
}
