/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * count_perf.h - hpm count's second counter source: the kernel's perf_event,
 * through libhpm's perf component (src/hpm/comp_perf.c; nothing of
 * perf_event_open is repeated here).
 *
 * Names. An event hpm count is asked for is either
 *   - a catalog kind that has a perf_event equivalent (a small table in
 *     count_perf.c: INSTRUCTIONS is the generic PERF_COUNT_HW_INSTRUCTIONS,
 *     CYCLES is PERF_COUNT_HW_CPU_CYCLES, ...): the same name counts on
 *     either source; or
 *   - a name of the perf component (perf's own software events TASK-CLOCK,
 *     PAGE-FAULTS, CONTEXT-SWITCHES, ... and their PERF_COUNT_SW_* names; the
 *     kernel's generic hardware events and libpfm4's names where the PMU
 *     has them), with or without "perf::"; these count only on perf_event.
 * Per-core (PU<n>_) and node names of the catalog belong to the modeled
 * machine and have no perf_event equivalent.
 *
 * A plan says, for each name, what perf_event would count and whether it
 * can here (and why not); hpm count decides from it which source counts.
 */
#ifndef HPM_TOOL_COUNT_PERF_H
#define HPM_TOOL_COUNT_PERF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "catalog.h"

#define COUNT_PERF_MAX 64

struct count_measured {
    char name[HPM_CAT_NAME_MAX]; /* as reported: the catalog kind, or perf's name */
    char perf_name[128];         /* libhpm's full name, "perf::TASK-CLOCK" */
    int kind;                    /* the catalog kind it stands for, or -1 */
    int available;               /* perf_event can count it here */
    char why[768];               /* when not: why (the perf component's reason) */
    char units[16];
    char description[256];
    uint64_t value;              /* after count_perf_stop */
};

struct count_perf_plan {
    struct count_measured ev[COUNT_PERF_MAX];
    unsigned n;
    int all_available;  /* every event can be counted by perf_event here */
    int set;            /* the libhpm set while counting, or -1 */
    int inherit;
    int kernel;         /* kernel mode counted too (else user mode only) */
};

/* The perf_event name of a catalog kind, or NULL when it has none. */
const char *count_perf_name_of_kind(unsigned kind);

/* Whether name (as given to -e) is a perf component event that is not a
 * catalog name: 1 yes (*available says whether it can count here), 0 no. */
int count_perf_is_perf_name(const char *name, int *available);

/* Plans names[0..n) (each one event; duplicates give one row). Returns 0;
 * -2 with the reason in err when a name is of the catalog but has no
 * perf_event equivalent (a PU<n>_ or node name, a kind not in the table);
 * -1 for a name neither knows (or too many). Without names, perf stat's
 * default events: those that can count here. */
int count_perf_plan(struct count_perf_plan *p, char *const *names, unsigned n, char *err,
                    size_t errlen);

/* Counting pid (not yet exec'd, waiting for it) and, with inherit, every
 * process it starts afterwards: 0, or -1 with err. */
int count_perf_start(struct count_perf_plan *p, pid_t pid, int inherit, char *err,
                     size_t errlen);
/* Final counts into p->ev[].value (after the process tree ended): 0 or -1. */
int count_perf_stop(struct count_perf_plan *p, char *err, size_t errlen);

/* A sentence about the perf component here ("Linux perf_event: software
 * events only; ..."), for the report. */
const char *count_perf_description(void);

#endif
