/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * upc_trace.h - the event stream hpm upc-explore replays: the batches the
 * virtual PMU's node fed its UPC units, as --hpm-upc-trace wrote them
 * (src/vpmu/vpmu_upctrace.h), or a synthetic stream (an event on every
 * counter in every cycle).
 */
#ifndef HPM_UPC_TRACE_H
#define HPM_UPC_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "catalog.h"

#define UPC_TRACE_MAX_EVENTS HPM_CAT_CODES
/* The largest trace read, as the tool's other output files (docs/robustness.md). */
#define UPC_TRACE_MAX_BYTES ((size_t)1 << 34)

struct upc_batch {
    uint64_t cycles;
    int run;      /* counting on (the unit's run bit) */
    size_t first; /* its moved events: ev[first..first+n), delta[...] */
    unsigned n;
};

struct upc_stream {
    unsigned n_ev;                         /* events, in the order first seen */
    unsigned code[UPC_TRACE_MAX_EVENTS];   /* catalog code of event k (stress: k) */
    int index[UPC_TRACE_MAX_EVENTS];       /* code -> event, -1 */
    struct upc_batch *b;
    size_t nb, cap_b;
    unsigned *ev;                          /* event of each moved entry */
    uint64_t *delta;
    size_t ne, cap_e, cap_d;
    int stress;                            /* synthetic: every counter, every cycle */
    uint64_t stress_cycles;
};

/* An empty stream (no events). */
void upc_stream_init(struct upc_stream *s);
void upc_stream_free(struct upc_stream *s);

/* Parses a trace's text buf[0, len) (need not be NUL-terminated) into s:
 * 0, or -1 with a message in err ("line N: ..."). */
int upc_trace_parse(struct upc_stream *s, const char *buf, size_t len, char *err, size_t errlen);

/* Reads the trace file path through hpm's one reader of named files
 * (src/fileio: a regular file, at most UPC_TRACE_MAX_BYTES, its head
 * checked first) and parses it: 0, or -1 with a message naming path. */
int upc_trace_read(struct upc_stream *s, const char *path, char *err, size_t errlen);

#endif
