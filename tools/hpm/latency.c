/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latency.c - hpm count's latency thresholds (latency.h): LOADS:ldlat=N and
 * STORES:stlat=N parsed and kept, then counted from the tool's latency
 * histogram (sample_latency records) after the run. A leaf of tools/hpm:
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

#include "latency.h"
#include "vpmu_format.h"
#include "vpmufile.h"

#define MAX_LAT_EVENTS 8

static struct lat_event {
    char name[48]; /* as written: LOADS:ldlat=51 */
    int store;
    uint64_t thr, count;
} lat_events[MAX_LAT_EVENTS];
static unsigned n_lat_events;
static char lat_note[MAX_LAT_EVENTS * 80 + 128];

void count_lat_reset(void)
{
    n_lat_events = 0;
}

unsigned count_lat_n(void)
{
    return n_lat_events;
}

int count_lat_parse(const char *cmd, const char *name, char *kind, size_t kind_len)
{
    static const char *const forms[2] = {"LOADS:ldlat=", "STORES:stlat="};
    int st;
    for (st = 0; st < 2; st++) {
        size_t l = strlen(forms[st]);
        const char *num = name + l;
        char *end;
        unsigned long long thr;
        unsigned i;
        if (strncasecmp(name, forms[st], l) != 0)
            continue;
        errno = 0;
        thr = strtoull(num, &end, 10);
        if (*num < '0' || *num > '9' || *end || errno || thr > 1000000000) {
            fprintf(stderr, "%s: event '%s': %.*sN needs a whole number of cycles N\n", cmd,
                    name, (int)l, forms[st]);
            return -1;
        }
        for (i = 0; i < n_lat_events; i++)
            if (lat_events[i].store == st && lat_events[i].thr == thr)
                break;
        if (i == n_lat_events) {
            if (n_lat_events == MAX_LAT_EVENTS) {
                fprintf(stderr, "%s: at most %d latency thresholds\n", cmd, MAX_LAT_EVENTS);
                return -1;
            }
            snprintf(lat_events[i].name, sizeof lat_events[i].name, "%s%llu", forms[st], thr);
            lat_events[i].store = st;
            lat_events[i].thr = thr;
            n_lat_events++;
        }
        snprintf(kind, kind_len, "%s", st ? "STORES" : "LOADS");
        return 1;
    }
    return 0;
}

static unsigned lat_seen;

/* sample_latency load|store LAT LEVEL TLB COUNT: counted against every
 * threshold of its kind. */
static int lat_record(void *ctx, const struct vpmu_file *f, const struct vpmu_rec *r)
{
    const char *q = r->rest, *op, *w;
    size_t opn, wn;
    uint64_t lat, cnt;
    unsigned i;
    (void)ctx;
    (void)f;
    if (!vpmu_rec_is(r, VPMU_REC_SAMPLE "_latency") || !vpmu_field(&q, r->end, &op, &opn) ||
        !vpmu_field(&q, r->end, &w, &wn) || vpmu_number(w, wn, 10, &lat) != 0 ||
        !vpmu_field(&q, r->end, &w, &wn) || !vpmu_field(&q, r->end, &w, &wn) ||
        !vpmu_field(&q, r->end, &w, &wn) || vpmu_number(w, wn, 10, &cnt) != 0)
        return 0;
    lat_seen = 1;
    for (i = 0; i < n_lat_events; i++)
        if (lat_events[i].store == (op[0] == 's') && lat >= lat_events[i].thr)
            lat_events[i].count += cnt;
    return 0;
}

void count_lat_tool(struct vpmu_tool *t)
{
    unsigned i;
    for (i = 0; i < n_lat_events; i++)
        lat_events[i].count = 0;
    lat_seen = 0;
    memset(t, 0, sizeof *t);
    t->record = lat_record;
}

const char *count_lat_note(void)
{
    unsigned i;
    size_t at;
    if (!lat_seen)
        return NULL;
    at = (size_t)snprintf(lat_note, sizeof lat_note,
                          "accesses at or above a modeled latency (cycles; exact):");
    for (i = 0; i < n_lat_events && at < sizeof lat_note; i++)
        at += (size_t)snprintf(lat_note + at, sizeof lat_note - at, "%s %s %" PRIu64,
                               i ? "," : "", lat_events[i].name, lat_events[i].count);
    return lat_note;
}
