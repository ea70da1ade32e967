/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * encode.h - the PM API's encoder and decoder (seed 004): a list of events
 * onto a constrained counter unit, and a unit's configuration back into
 * events.
 *
 * The unit: n_counters counters in groups of group_size that share one
 * configuration register, the group's mode (its input selection); counter
 * c in mode m can count the events can(c, m). Placing events is a matching
 * of events to counters under the groups' modes: the solver searches the
 * modes of the groups that matter (those with a counter some event can
 * use), bounds each branch with the matching of every mode a group could
 * take at once, and at each leaf finds a maximum matching (augmenting
 * paths). It places every event when some configuration does; otherwise
 * as many as any configuration can, and names for each event left out the
 * events on the counters it could have used.
 *
 * The machine's unit (src/machine, [counters]): `units` UPCs of `counters`
 * counters; counter c of a unit has one input per block of `counters`
 * codes, code c + k x counters (k < 1024 / counters), as BG/P's UPC wires
 * 256 counters to 1024 events; `group` counters share the block selected.
 */
#ifndef HPM_ENCODE_H
#define HPM_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#define HPM_ENCODE_MAX_EVENTS 64   /* per request (a bit each) */
#define HPM_ENCODE_MAX_COUNTERS 1024
#define HPM_ENCODE_MAX_MODES 1024
/* Search nodes before the solver keeps the best it has found (and says so). */
#define HPM_ENCODE_MAX_NODES 200000

struct hpm_cu {
    unsigned n_counters, group_size, n_modes;
    /* events counter c can count in mode m, a bit per event of the request */
    uint64_t (*can)(const struct hpm_cu *u, unsigned c, unsigned m);
    const void *ctx;
};

struct hpm_encoding {
    unsigned n_events;
    int counter[HPM_ENCODE_MAX_EVENTS]; /* -1: not placed */
    int mode[HPM_ENCODE_MAX_COUNTERS];  /* per group, -1: unused */
    unsigned placed;
    int complete;  /* every event placed */
    int limited;   /* the search stopped at HPM_ENCODE_MAX_NODES */
    unsigned long nodes;
};

/* Places n_events events (< HPM_ENCODE_MAX_EVENTS) on u. 0, or -1 for a
 * unit out of bounds. */
int hpm_encode(const struct hpm_cu *u, unsigned n_events, struct hpm_encoding *e);

/* Why event i was not placed: the placed events on the counters it could
 * use in the encoding's modes, or that its counters' groups are in other
 * modes; as event indexes in *blockers (a bit each). 0: it was placed. */
uint64_t hpm_encode_blockers(const struct hpm_cu *u, const struct hpm_encoding *e, unsigned i);

/* The event inputs of a counter unit: codes 0..1023. */
#define HPM_ENCODE_INPUTS 1024

/* The machine's unit for a request of catalog codes: units x counters (a
 * code's counter is code mod counters, its mode code / counters), groups
 * of group counters. A code may be a catalog spec, an input code plus
 * 1024 x the counting mode its counter counts in (catalog.h): the mode is
 * the counter's, the input the code's, so one code in two modes takes two
 * counters. */
struct hpm_cu_codes {
    unsigned units, counters, group;
    const unsigned *codes;
    unsigned n_codes;
};
void hpm_cu_from_codes(struct hpm_cu *u, const struct hpm_cu_codes *m);

/* The units a request of n codes needs on a machine with as many as its
 * events need ([counters] units = 0): the most codes on one counter. */
unsigned hpm_cu_units_needed(const unsigned *codes, unsigned n, unsigned counters);

/* Decoding: the code that counter c (of the whole, unit c / counters)
 * counts in mode m. */
static inline unsigned hpm_cu_decode(const struct hpm_cu_codes *m, unsigned c, unsigned mode)
{
    return mode * m->counters + c % m->counters;
}

/* Splits codes into passes, each placeable on the unit: every pass places
 * as many of the remaining codes as one configuration can, beside the
 * n_corr correlate codes, counted on every pass (a code among them is in
 * pass 0). pass_of[i] is code i's pass; returns the number of passes, or
 * -1 when a code cannot be placed even alone with the correlates. */
int hpm_encode_passes(const struct hpm_cu_codes *m, const unsigned *corr, unsigned n_corr,
                      int *pass_of);

#endif
