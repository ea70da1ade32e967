/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * upc_trace.c - hpm upc-explore's event stream (upc_trace.h): the trace
 * format of src/vpmu/vpmu_upctrace.h, one record a line:
 *     hpm-upc-trace 1               at the start of every process image
 *     e CODE CODE ...               the programmed events
 *     b CYCLES RUN CODE:DELTA ...   a batch; RUN 0 when counting is stopped
 */
#include "upc/upc_trace.h"
#include "util/grow.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "vpmufile.h"

#define MAGIC "hpm-upc-trace "

void upc_stream_init(struct upc_stream *s)
{
    memset(s, 0, sizeof *s);
    memset(s->index, -1, sizeof s->index);
}

void upc_stream_free(struct upc_stream *s)
{
    free(s->b);
    free(s->ev);
    free(s->delta);
    s->b = NULL;
    s->ev = NULL;
    s->delta = NULL;
    s->nb = s->ne = s->cap_b = s->cap_e = s->cap_d = 0;
}

static int set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (err && errlen) {
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* The event of code (added when new), or -1 for a code past the unit's. */
static int add_event(struct upc_stream *s, uint64_t code)
{
    if (code >= UPC_TRACE_MAX_EVENTS)
        return -1;
    if (s->index[code] < 0) {
        s->index[code] = (int)s->n_ev;
        s->code[s->n_ev++] = (unsigned)code;
    }
    return s->index[code];
}

/* "e CODE CODE ...": 0, or -1 for a code that is not one. */
static int parse_events(struct upc_stream *s, const struct vpmu_rec *r)
{
    const char *p = r->rest, *f;
    size_t n;
    while (vpmu_field(&p, r->end, &f, &n)) {
        uint64_t c;
        const char *q = f;
        if (vpmu_decimal(&q, f + n, &c) != 0 || q != f + n || add_event(s, c) < 0)
            return -1;
    }
    return 0;
}

/* "b CYCLES RUN CODE:DELTA ...": 0, or -1 (malformed, or out of memory:
 * *oom set). Each delta is at most the batch's cycles. */
static int parse_batch(struct upc_stream *s, const struct vpmu_rec *r, int *oom)
{
    const char *p = r->rest, *f, *q;
    size_t n;
    uint64_t run;
    struct upc_batch b;
    memset(&b, 0, sizeof b);
    if (!vpmu_field(&p, r->end, &f, &n) || (q = f, vpmu_decimal(&q, f + n, &b.cycles)) != 0 ||
        q != f + n)
        return -1;
    if (!vpmu_field(&p, r->end, &f, &n) || (q = f, vpmu_decimal(&q, f + n, &run)) != 0 ||
        q != f + n || run > INT_MAX)
        return -1;
    b.run = (int)run;
    b.first = s->ne;
    while (vpmu_field(&p, r->end, &f, &n)) {
        uint64_t c, d;
        int k;
        q = f;
        if (vpmu_decimal(&q, f + n, &c) != 0 || q >= f + n || *q++ != ':' ||
            vpmu_decimal(&q, f + n, &d) != 0 || q != f + n || d > b.cycles ||
            (k = add_event(s, c)) < 0)
            return -1;
        if (hpm_grow((void **)&s->ev, &s->cap_e, s->ne + 1, sizeof *s->ev) ||
            hpm_grow((void **)&s->delta, &s->cap_d, s->ne + 1, sizeof *s->delta)) {
            *oom = 1;
            return -1;
        }
        s->ev[s->ne] = (unsigned)k;
        s->delta[s->ne++] = d;
        b.n++;
    }
    if (hpm_grow((void **)&s->b, &s->cap_b, s->nb + 1, sizeof *s->b)) {
        *oom = 1;
        return -1;
    }
    s->b[s->nb++] = b;
    return 0;
}

int upc_trace_parse(struct upc_stream *s, const char *buf, size_t len, char *err, size_t errlen)
{
    struct vpmu_recs it;
    struct vpmu_rec r;
    int got, header = 0;
    vpmu_recs_begin(&it, buf, len);
    while ((got = vpmu_recs_next(&it, &r)) == 1) {
        int oom = 0;
        if (vpmu_rec_is(&r, "hpm-upc-trace")) {
            const char *f, *p = r.rest;
            size_t n;
            if (!vpmu_field(&p, r.end, &f, &n) || !vpmu_word_is(f, n, "1"))
                return set_err(err, errlen, "line %lu: unknown trace version", r.lineno);
            header = 1;
            continue;
        }
        if (!header)
            return set_err(err, errlen, "not an hpm UPC trace (--hpm-upc-trace)");
        if (vpmu_rec_is(&r, "e") ? parse_events(s, &r) == 0
                                 : vpmu_rec_is(&r, "b") && parse_batch(s, &r, &oom) == 0)
            continue;
        return set_err(err, errlen, oom ? "out of memory" : "line %lu: malformed trace line",
                       r.lineno);
    }
    if (got < 0)
        return set_err(err, errlen, "line %lu: a NUL byte: not a text file", r.lineno);
    if (!header)
        return set_err(err, errlen, "not an hpm UPC trace (--hpm-upc-trace)");
    return 0;
}

static int trace_head(const char *head, size_t n)
{
    return n >= strlen(MAGIC) && memcmp(head, MAGIC, strlen(MAGIC)) == 0;
}

int upc_trace_read(struct upc_stream *s, const char *path, char *err, size_t errlen)
{
    struct hpm_file_map m;
    char why[512];
    int rc;
    if (hpm_file_map(path, UPC_TRACE_MAX_BYTES, trace_head, "an hpm UPC trace (--hpm-upc-trace)",
                     &m, err, errlen) != 0)
        return -1;
    rc = upc_trace_parse(s, m.data, m.len, why, sizeof why);
    hpm_file_unmap(&m);
    if (rc != 0)
        set_err(err, errlen, "%s: %s", path, why);
    return rc;
}
