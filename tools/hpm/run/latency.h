/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latency.h - hpm count's latency thresholds (docs/vpmu.md, Sampling):
 * LOADS:ldlat=N and STORES:stlat=N count the loads (stores) whose modeled
 * latency is at least N cycles, exactly, from the tool's latency histogram
 * (--hpm-lat-hist=yes, sample_latency records). Implemented in latency.c,
 * a leaf file (hpm record's --ldlat and the histogram it prints are
 * record.c's).
 */
#ifndef HPM_TOOL_LATENCY_H
#define HPM_TOOL_LATENCY_H

#include <stddef.h>
#include <stdint.h>

#define COUNT_LAT_MAX 8

/* A run's latency thresholds, and after its run each one's count (the
 * plan owns them: run.h). */
struct count_lat {
    struct count_lat_event {
        char name[48]; /* as written: LOADS:ldlat=51 */
        int store;
        uint64_t thr, count;
    } ev[COUNT_LAT_MAX];
    unsigned n; /* thresholds kept: the tool runs with --hpm-lat-hist=yes */
    int seen;   /* a histogram was read */
    char note[COUNT_LAT_MAX * 80 + 128];
};

/* name: 1 when it is a latency threshold (kept in l; kind gets "LOADS" or
 * "STORES", the row it adds to), 0 when not one, -1 when malformed (the
 * reason printed, prefixed with cmd). */
int count_lat_parse(struct count_lat *l, const char *cmd, const char *name, char *kind,
                    size_t kind_len);
/* The thresholds' handler of the session over the run's output
 * (vpmufile.h): each threshold's count over the files read, from zero. */
struct vpmu_tool;
void count_lat_tool(struct count_lat *l, struct vpmu_tool *t);
/* After the session: the counts as one note (in l); NULL when no
 * histogram was read. */
const char *count_lat_note(struct count_lat *l);

#endif
