/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * recording.h - what flame/'s files share about a recording (recording.c):
 * reading it, picking its event, the symbolizer's state.
 */
#ifndef HPM_TOOL_FLAME_RECORDING_H
#define HPM_TOOL_FLAME_RECORDING_H

#include <stddef.h>
#include <stdint.h>

#include "perfdata.h"

struct hpm_symbols;

/* The symbols of a recording's mappings, found once each. */
struct name_cache {
    uint64_t *key; /* (mapping + 1) << 48 ^ addr, 0 = empty */
    const char **name;
    size_t cap, n;
};

struct symctx {
    const struct perfdata_file *pf;
    struct hpm_symbols *syms;
    struct name_cache cache;
    char **owned; /* names made here ("[libc.so.6]") */
    size_t n_owned, cap_owned;
    signed char *regular; /* per mapping: its object is a regular file 1, not -1, unknown 0 */
    size_t *by_pid;       /* the mappings' indices by pid, then file order (NULL: scan all) */
};

/* The perf.data file at path into pf: 0, or 1 after a message. */
int recording_read(const char *path, struct perfdata_file *pf);
/* The index of event (perf's "hpm:NAME" or NAME) among pf's events, 0 for
 * NULL; -1 after a message (naming the events there when list_events). */
int recording_event(const struct perfdata_file *pf, const char *path, const char *event,
                    int list_events);
/* sc over pf: 0, or -1 (out of memory; symctx_free it either way). */
int symctx_init(struct symctx *sc, const struct perfdata_file *pf);
void symctx_free(struct symctx *sc);
/* A sample's data object, named as hpm profile names it (malloc'd), or
 * NULL (out of memory). */
char *recording_dobj_name(struct symctx *s, const struct perfdata_sample *smp);
/* qsort's order of records that begin with their name (a char *). */
int recording_cmp_name(const void *a, const void *b);

#endif
