/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latency.c - hpm count's latency thresholds (latency.h): LOADS:ldlat=N and
 * STORES:stlat=N parsed into the run's struct count_lat, then counted from
 * the tool's latency histogram (sample_latency records) as the run's
 * output is read. A leaf of tools/hpm:
 * it calls nothing of the folder, so hpm count's files (count_events.c,
 * count_toolcmd.c, count_notes.c) reach it without a loop through hpm
 * record, which runs hpm count.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "run/latency.h"
#include "vpmu_format.h"
#include "vpmufile.h"

int count_lat_parse(struct count_lat *l, const char *cmd, const char *name, char *kind,
                    size_t kind_len)
{
    static const char *const forms[2] = {"LOADS:ldlat=", "STORES:stlat="};
    int st;
    for (st = 0; st < 2; st++) {
        size_t len = strlen(forms[st]);
        const char *num = name + len;
        char *end;
        unsigned long long thr;
        unsigned i;
        if (strncasecmp(name, forms[st], len) != 0)
            continue;
        errno = 0;
        thr = strtoull(num, &end, 10);
        if (*num < '0' || *num > '9' || *end || errno || thr > 1000000000) {
            fprintf(stderr, "%s: event '%s': %.*sN needs a whole number of cycles N\n", cmd,
                    name, (int)len, forms[st]);
            return -1;
        }
        for (i = 0; i < l->n; i++)
            if (l->ev[i].store == st && l->ev[i].thr == thr)
                break;
        if (i == l->n) {
            if (l->n == COUNT_LAT_MAX) {
                fprintf(stderr, "%s: at most %d latency thresholds\n", cmd, COUNT_LAT_MAX);
                return -1;
            }
            snprintf(l->ev[i].name, sizeof l->ev[i].name, "%s%llu", forms[st], thr);
            l->ev[i].store = st;
            l->ev[i].thr = thr;
            l->n++;
        }
        snprintf(kind, kind_len, "%s", st ? "STORES" : "LOADS");
        return 1;
    }
    return 0;
}

/* sample_latency load|store LAT LEVEL TLB COUNT: counted against every
 * threshold of its kind. */
static int lat_record(void *ctx, const struct vpmu_file *f, const struct vpmu_rec *r)
{
    struct count_lat *l = ctx;
    const char *q = r->rest, *op, *w;
    size_t opn, wn;
    uint64_t lat, cnt;
    unsigned i;
    (void)f;
    if (!vpmu_rec_is(r, VPMU_REC_SAMPLE "_latency") || !vpmu_field(&q, r->end, &op, &opn) ||
        !vpmu_field(&q, r->end, &w, &wn) || vpmu_number(w, wn, 10, &lat) != 0 ||
        !vpmu_field(&q, r->end, &w, &wn) || !vpmu_field(&q, r->end, &w, &wn) ||
        !vpmu_field(&q, r->end, &w, &wn) || vpmu_number(w, wn, 10, &cnt) != 0)
        return 0;
    l->seen = 1;
    for (i = 0; i < l->n; i++)
        if (l->ev[i].store == (op[0] == 's') && lat >= l->ev[i].thr)
            l->ev[i].count += cnt;
    return 0;
}

void count_lat_tool(struct count_lat *l, struct vpmu_tool *t)
{
    unsigned i;
    for (i = 0; i < l->n; i++)
        l->ev[i].count = 0;
    l->seen = 0;
    memset(t, 0, sizeof *t);
    t->record = lat_record;
    t->ctx = l;
}

const char *count_lat_note(struct count_lat *l)
{
    unsigned i;
    size_t at;
    if (!l->seen)
        return NULL;
    at = (size_t)snprintf(l->note, sizeof l->note,
                          "accesses at or above a modeled latency (cycles; exact):");
    for (i = 0; i < l->n && at < sizeof l->note; i++)
        at += (size_t)snprintf(l->note + at, sizeof l->note - at, "%s %s %" PRIu64,
                               i ? "," : "", l->ev[i].name, l->ev[i].count);
    return l->note;
}
