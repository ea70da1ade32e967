/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * suggest.h - "did you mean": the name of a set closest to a mistyped one
 * (events, machines, options, subcommands), as git and cargo suggest.
 * Candidates are offered one at a time, so that each caller enumerates its
 * own set (the catalog, a folder, an option table).
 */
#ifndef HPM_TOOL_SUGGEST_H
#define HPM_TOOL_SUGGEST_H

#include <stddef.h>

struct suggest {
    const char *word;
    char best[96];       /* the closest candidates so far, "A" or "A or B" ("" when none) */
    unsigned best_dist;  /* its edit distance */
};

void suggest_init(struct suggest *s, const char *word);
/* Considers one candidate (copied when it is the closest so far). */
void suggest_offer(struct suggest *s, const char *candidate);
/* The closest candidate when it is near enough to be a slip (edit distance,
 * case ignored, an adjacent swap counting one: at most 1 for words of up to
 * 4 characters, then one per 4 more, at most 3), else NULL. Candidates
 * at the same distance are all named: "bgl or bgp". */
const char *suggest_result(const struct suggest *s);
/* For an event name the catalog does not know: the closest catalog name,
 * with the PU<n>_ prefix and :mode suffix kept (each part mended on its
 * own), written to out; 0, or -1 when nothing is close. */
int suggest_event(const char *name, char *out, size_t outlen);
/* The optimal string alignment distance between a and b, case ignored. */
unsigned suggest_distance(const char *a, const char *b);

#endif
