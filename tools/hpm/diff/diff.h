/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * diff.h - two runs side by side (hpm diff): the model diff.c builds from
 * two count reports or two profiles, and the one walk over it that
 * diff_write.c's writers (text, JSON, Markdown) share.
 */
#ifndef HPM_TOOL_DIFF_H
#define HPM_TOOL_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define DIFF_MAX_KINDS 128

enum diff_table_id {
    DIFF_TOTALS,    /* one row per event: its total */
    DIFF_REGIONS,   /* count reports: client and PAPI high-level regions */
    DIFF_FUNCTIONS, /* profiles: self cost per function, by name */
    DIFF_LINES,     /* profiles: per file:line */
    DIFF_CALLS,     /* profiles: inclusive cost per caller > callee */
    DIFF_DATA,      /* profiles with PROFILE.data: per data object */
    DIFF_N_TABLES
};

/* A row's values per kind on each side (v[0] old, v[1] new); present[s]:
 * the row exists on side s (a function that ran), even with zero costs. */
struct diff_row {
    char *key;
    uint64_t *v[2];
    unsigned char present[2];
};

struct diff_table {
    const char *title;
    struct diff_row *rows;
    size_t n, cap;
    size_t *hash, hash_cap; /* open addressing: row index + 1 */
};

/* What identifies a count report's machine model: two reports of
 * different models are not comparable (counts of another machine). */
struct diff_machine {
    char name[64];   /* "" when the input does not say (profiles, recordings) */
    char hash[24];   /* the model's hash (baseline.h), "" in older reports */
    uint64_t cores, frequency_hz;
};

struct diff {
    const char *old_name, *new_name;
    int profiles;  /* 1: two profiles, 0: two count reports */
    int have_data; /* both profiles had their data objects */
    int samples;   /* two recordings (hpm record): sampled, not exact */
    unsigned n_kinds;
    char *kinds[DIFF_MAX_KINDS]; /* the union of both sides' events */
    double frequency_hz[2];      /* count reports: the machines' clocks */
    /* kinds measured on the host (not exact: never the default sort) */
    unsigned char measured[DIFF_MAX_KINDS];
    /* kinds that differ between identical runs (hpm count --repeat): the
     * gate leaves them out, and says so */
    unsigned char unstable[DIFF_MAX_KINDS];
    struct diff_machine machine[2];
    struct diff_table tables[DIFF_N_TABLES];
};

/* Loads two inputs of one kind: 0, or -1 with a message naming the file. */
int diff_load(struct diff *d, const char *old_path, const char *new_path, char *err,
              size_t errlen);
/* The same from two texts in memory (NUL-terminated at lens[s]), named
 * names[s] in messages; data_files: also read NAME.data beside a profile. */
int diff_load_texts(struct diff *d, const char *const names[2], const char *const texts[2],
                    const size_t lens[2], int data_files, char *err, size_t errlen);
void diff_free(struct diff *d);

/* A count report's machine (count_report_read.h) into m. */
struct count_report_doc;
void diff_machine_of(struct diff_machine *m, const struct count_report_doc *rep);
/* Whether two machine objects are of one model: 1 yes, 0 no, -1 when one
 * does not say. */
int diff_machine_same(const struct diff_machine *a, const struct diff_machine *b);
/* "bgp (4 cores, 850000000 Hz, hash ...)" */
void diff_machine_text(const struct diff_machine *m, char *buf, size_t len);
/* Whether the two sides are counts of one machine model: 1 yes, 0 no
 * (why says how they differ), -1 when an input does not say. */
int diff_same_machine(const struct diff *d, char *why, size_t len);

/* Whether side s (0 old, 1 new) counted kind k: its totals have it. */
int diff_counted(const struct diff *d, int s, unsigned k);
/* Whether side s has a region (count reports) or function (profiles). */
int diff_has_scope(const struct diff *d, int s, const char *scope);

/* The index of an event (case-insensitive), or -1. */
int diff_kind(const struct diff *d, const char *name);
/* The event whose total changed most, relatively (the default sort). */
int diff_default_sort(const struct diff *d);
/* Percent change; +inf from 0 to something. */
double diff_percent(uint64_t old, uint64_t new_);
/* The same as text: "+1.25%", "-2.1e-05%" (too small for two decimals),
 * "from 0". */
void diff_percent_text(char *buf, size_t len, uint64_t old, uint64_t new_);
/* The rows of a table whose value of kind changed (those that appeared or
 * vanished included, but not one with none of kind on either side),
 * largest absolute change first; *out is malloc'd. */
size_t diff_changes(const struct diff *d, unsigned table, unsigned kind,
                    const struct diff_row ***out);
/* Whether any row of a table has a value of kind on either side. */
int diff_table_has(const struct diff *d, unsigned table, unsigned kind);
/* Metric i of metrics.h on both sides: 0, or -1 when a side lacks one of
 * its events (or the clock). */
int diff_metric(const struct diff *d, unsigned i, double out[2]);

/* ------------------------------------------------------------ the walk */

/* What the limits found: each limit (each event of a '*' limit) held, was
 * exceeded, was not comparable (a soft limit needs the event, and the
 * scope, on both sides; a hard one on NEW's) or was not gated (unstable). */
struct diff_verdict {
    unsigned held, exceeded, not_comparable, not_gated;
};

/* What a gate found, for a writer that shows it (Markdown leads with it). */
struct diff_gate_result {
    unsigned n_limits;
    struct diff_verdict verdict;
    int status;          /* enum gate_status */
    const char *lines;   /* the gate's messages, one per line ("hpm: ..."), or "" */
};

struct diff_view {
    unsigned sort;  /* the kind tables are sorted by */
    long top;       /* rows per table */
    int no_measured; /* leave the host-measured events out (they are marked otherwise) */
    const struct diff_gate_result *gate; /* NULL: no limits were checked */
};

/* One writer per format: the walk calls these in order. */
struct diff_writer {
    void (*begin)(FILE *f, const struct diff *d, const struct diff_view *v, void *ctx);
    /* the totals: every event, changed or not */
    void (*total)(FILE *f, const struct diff *d, unsigned k, uint64_t old, uint64_t new_,
                  int in_old, int in_new, void *ctx);
    void (*metric)(FILE *f, const char *label, const char *formula, double old, double new_,
                   void *ctx);
    /* a table of changes: begin, its rows (top ones), end with how many
     * rows changed in all */
    void (*table_begin)(FILE *f, const struct diff *d, unsigned table, unsigned kind, void *ctx);
    void (*row)(FILE *f, const struct diff *d, unsigned table, unsigned kind,
                const struct diff_row *r, void *ctx);
    void (*table_end)(FILE *f, const struct diff *d, unsigned table, size_t changed, size_t shown,
                      void *ctx);
    int (*end)(FILE *f, const struct diff *d, void *ctx); /* 0, or -1 */
    size_t ctx_size; /* the writer's state: ctx points to this many bytes, zeroed */
};

extern const struct diff_writer diff_text_writer, diff_json_writer, diff_markdown_writer;

/* Walks the model through one writer: 0, or -1. */
int diff_write(FILE *f, const struct diff *d, const struct diff_view *v,
               const struct diff_writer *w, void *ctx);

/* ------------------------------------------------------------ the gate */

/* The exit statuses of a gate (hpm diff --limit, hpm count|profile
 * --baseline; docs/ci.md): in a gated run the program's own status is
 * never hpm's, so that no program can pass for a verdict. */
enum gate_status {
    GATE_PASS = 0,           /* every limit held */
    GATE_ERROR = 1,          /* hpm could not run, count or write */
    GATE_NOT_COMPARABLE = 2, /* refused: another machine model, no or a bad baseline,
                              * a limit on what one side did not count, bad usage */
    GATE_REGRESSION = 3,     /* a limit exceeded */
    GATE_PROGRAM_FAILED = 4, /* the program exited non-zero or was killed */
};

/* A limit on one event, over the whole run or one region (count reports)
 * or function (profiles): soft, an increase of at most `percent` over the
 * old value; hard, a new value of at most `max`. */
struct diff_limit {
    char kind[64];   /* "*": every modeled event */
    char scope[256]; /* "" = the totals */
    int hard;
    int both_ways;   /* ~P%: a decrease beyond P% fails too (~0%: exact) */
    double percent;
    uint64_t max;
    const char *text; /* as given */
};

/* Parses KIND[@SCOPE]:+P%, KIND[@SCOPE]:~P% (either way) or
 * KIND[@SCOPE]:N; KIND "*" is every modeled event. A sign without '%'
 * (+1) is refused: a hard limit has no sign. 0, or -1 with a message. */
int diff_limit_parse(const char *s, struct diff_limit *l, char *err, size_t errlen);


/* Checks every limit; prints each one exceeded or not comparable to f
 * (with, for a totals limit on profiles, the functions whose change makes
 * it up) and counts them in *v. 0, or -1 when a limit names an event or
 * scope neither run has (message in err). */
int diff_gate(FILE *f, const struct diff *d, const struct diff_limit *l, unsigned n,
              struct diff_verdict *v, char *err, size_t errlen);
/* The verdict's status: GATE_REGRESSION when a limit was exceeded (a fact
 * whatever the others say), else GATE_NOT_COMPARABLE when one could not
 * be judged, else GATE_PASS. */
int diff_verdict_status(const struct diff_verdict *v);

#endif
