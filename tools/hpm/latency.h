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

/* Forgets the thresholds (before the -e lists are read). */
void count_lat_reset(void);
/* name: 1 when it is a latency threshold (kept; kind gets "LOADS" or
 * "STORES", the row it adds to), 0 when not one, -1 when malformed (the
 * reason printed, prefixed with cmd). */
int count_lat_parse(const char *cmd, const char *name, char *kind, size_t kind_len);
/* Thresholds kept: the tool runs with --hpm-lat-hist=yes. */
unsigned count_lat_n(void);
/* The thresholds' handler of the session over the run's output
 * (vpmufile.h): each threshold's count over the files read, from zero. */
struct vpmu_tool;
void count_lat_tool(struct vpmu_tool *t);
/* After the session: the counts as one note; NULL when no histogram was
 * read. */
const char *count_lat_note(void);

#endif
