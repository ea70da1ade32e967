/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * profile.h - hpm's profile model: costs per instruction, source line,
 * function and object, with call arcs and their inclusive costs.
 *
 * One model, several ends:
 *   - built from the virtual PMU's profile records (the prof_* records of
 *     src/vpmu_iface/vpmu_format.h) and symbols (elfutils libdw):
 *     hpm_prof_add_records;
 *   - written in callgrind's format (callgrind_annotate and KCachegrind
 *     read it): hpm_prof_write_callgrind;
 *   - read back from a callgrind file (ours or callgrind's own) for hpm
 *     annotate: hpm_prof_read_callgrind.
 *
 * Totals. A profile's kinds have the totals the UPC counted (what hpm count
 * reports). Each instruction's share is exact for every kind whose formula
 * is linear in the raw counts (all but the timing model's cycles); the
 * others are apportioned to add up to the total (largest remainders over
 * the per-instruction model values) and marked so; kinds that no
 * instruction has a share of go whole to "(unattributed)", marked so too.
 */
#ifndef HPM_PROFILE_H
#define HPM_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HPM_PROF_KINDS_MAX 128

/* ------------------------------------------------------------- records */

struct hpm_prof_object {
    uint64_t start, end, offset; /* mapping [start, end] at file offset */
    char *path;
};

/* A record's values are those that are not 0, as (kind, value) pairs in
 * the records' kvs: a cost is most often a few of a hundred kinds. */
struct hpm_prof_kv {
    unsigned kind;
    uint64_t value;
};

struct hpm_prof_insn {
    uint64_t addr;
    unsigned obj;  /* index into objects; 0 = none */
    unsigned n_kv; /* its values: kvs[kv .. kv + n_kv) */
    size_t kv;
};

struct hpm_prof_arc {
    uint64_t site, target, calls;
    /* the objects of site and target (prof_call_in), 0: the one holding
     * the address (prof_call) */
    unsigned site_obj, target_obj;
    unsigned n_kv; /* inclusive costs */
    size_t kv;
};

/* A direct branch (prof_jump) with its exact counts (an unconditional
 * one: executed == taken). */
struct hpm_prof_back {
    uint64_t site, target, executed, taken;
    unsigned obj; /* the site's object */
};

/* A data object's record: heap (where = the allocating call), global (a
 * 64-byte line in mapping obj), stack or other. */
struct hpm_prof_data {
    char kind[8];
    uint64_t where, from, blocks, bytes; /* from: heap, the call into the allocating function */
    unsigned obj;
    unsigned n_kv;
    size_t kv;
};

/* The contended cache lines of a coherent node (prof_c2c_lines, prof_c2c,
 * prof_c2c_core records; the threads' cores from the thread records): which
 * cores touched which bytes of each line, its coherence misses and
 * invalidations, its data object (c2c.c; hpm profile's c2c view). */
struct hpm_prof_c2c_core {
    unsigned core;
    uint64_t read, written; /* byte masks: bit i = the line's granule i */
    uint64_t coh_misses, true_misses, invalidations;
};
struct hpm_prof_c2c_line {
    uint64_t addr;
    unsigned bytes, granule;
    uint64_t coh_misses, invalidations;
    char kind[8];               /* its data object: heap, global, stack, other */
    uint64_t where, from, start; /* heap: the allocation's calls, the block's
                                  * first byte; global: the byte named */
    unsigned obj;               /* global: its mapping */
    size_t core;                /* its cores: cores[core .. core + n_cores) */
    unsigned n_cores;
};
struct hpm_prof_c2c_thread {
    unsigned serial, core;
};
struct hpm_prof_c2c {
    int present; /* the node keeps contended lines (prof_c2c_lines seen) */
    uint64_t kept, dropped;
    struct hpm_prof_c2c_line *lines;
    size_t n_lines, cap_lines;
    struct hpm_prof_c2c_core *cores;
    size_t n_cores, cap_cores;
    struct hpm_prof_c2c_thread *threads;
    size_t n_threads, cap_threads;
};

/* The profile records of one tool output file. */
struct hpm_prof_records {
    unsigned n_kinds;
    char *kinds[HPM_PROF_KINDS_MAX];
    uint64_t totals[HPM_PROF_KINDS_MAX];
    struct hpm_prof_object *objects; /* objects[0] is "none" */
    unsigned n_objects;
    struct hpm_prof_insn *insns;
    size_t n_insns;
    struct hpm_prof_arc *arcs;
    size_t n_arcs;
    struct hpm_prof_data *data;
    size_t n_data;
    struct hpm_prof_back *backs;
    size_t n_backs;
    struct hpm_prof_kv *kvs; /* every record's values */
    size_t n_kvs;
    struct hpm_prof_c2c c2c;
};

/* The records' handler of a session over the tool's output (vpmufile.h):
 * one file's prof_* records (and its threads' cores) into r, other
 * records skipped. */
struct vpmu_tool;
struct hpm_prof_reader {
    struct hpm_prof_records *r;
    size_t cap_obj, cap_insn, cap_arc, cap_data, cap_kv, cap_back;
    unsigned lineno, seen[HPM_PROF_KINDS_MAX];
    int said; /* the error is said (not out of memory, not malformed) */
    char *err;
    size_t errlen;
};
/* Makes *t the handler reading into r (zeroed here): a record that is
 * malformed stops it with a message naming the line in err; r is then
 * freed with hpm_prof_records_free. */
void hpm_prof_reader_init(struct hpm_prof_reader *rd, struct hpm_prof_records *r, char *err,
                          size_t errlen, struct vpmu_tool *t);

/* Parses the prof_* records of a tool output file (other records are
 * skipped). 0, or -1 with a message naming the line. */
int hpm_prof_records_parse(const char *text, size_t len, struct hpm_prof_records *r, char *err,
                           size_t errlen);
void hpm_prof_records_free(struct hpm_prof_records *r);
/* A record's value of kind k (its n_kv values from kv), 0 when absent. */
uint64_t hpm_prof_records_value(const struct hpm_prof_records *r, size_t kv, unsigned n_kv,
                                unsigned k);

/* ------------------------------------------------------------- symbols */

struct hpm_symbols;
struct hpm_sym {
    const char *fn;   /* function, or NULL when no symbol covers the address */
    const char *file; /* source file, or NULL without line information */
    unsigned line;
    uint64_t fn_addr; /* the function's first address (runtime); without a
                       * symbol, its unwind entry's (.eh_frame), or 0 */
};
/* A data symbol (a variable, a thread-local) holding addr in object o:
 * its name and first address, or -1. */
int hpm_symbols_data(struct hpm_symbols *t, const struct hpm_prof_object *o, uint64_t addr,
                     const char **name, uint64_t *start);
struct hpm_symbols *hpm_symbols_new(void);
/* Symbolizes addr, an address in object o (runtime). Returns 0, or -1 when
 * the object's file cannot be read (s is then all NULL/0). Strings live as
 * long as the table. */
int hpm_symbols_lookup(struct hpm_symbols *t, const struct hpm_prof_object *o, uint64_t addr,
                       struct hpm_sym *s);
void hpm_symbols_free(struct hpm_symbols *t);

/* --------------------------------------------------------------- model */

/* A cost's or call's values: dense (v, n_kinds of them) or, in a profile
 * built from records, sparse (v NULL; kv, n_kv pairs in kind order, kinds
 * absent are 0): an instruction's cost is most often ten values of a
 * hundred, and a Python profile's dense values were 180 MB. */
struct hpm_prof_cost {
    uint64_t addr; /* 0 when unknown (a callgrind file without instr) */
    unsigned file; /* string id */
    unsigned line;
    uint64_t *v;
    struct hpm_prof_kv *kv;
    unsigned n_kv;
};

struct hpm_prof_call {
    uint64_t site_addr;
    unsigned site_file, site_line;
    unsigned callee; /* function index */
    uint64_t target_addr;
    unsigned target_line;
    uint64_t count;
    uint64_t *v; /* inclusive (or sparse, as a cost's) */
    struct hpm_prof_kv *kv;
    unsigned n_kv;
};

/* Value of kind k of a cost's or call's values, dense or sparse. */
static inline uint64_t hpm_prof_value(const uint64_t *v, const struct hpm_prof_kv *kv,
                                      unsigned n_kv, unsigned k)
{
    unsigned i;
    if (v)
        return v[k];
    for (i = 0; i < n_kv && kv[i].kind <= k; i++)
        if (kv[i].kind == k)
            return kv[i].value;
    return 0;
}

/* A jump of a function (callgrind's jump= and jcnd= lines): hpm profile
 * writes its taken direct branches, the control-flow graph's edges besides
 * the fall-through ones (loops.h); callgrind --collect-jumps=yes writes
 * them too. */
struct hpm_prof_jump {
    uint64_t site_addr, target_addr;
    unsigned site_file, site_line, target_file, target_line;
    uint64_t executed, taken;
    int cond;          /* jcnd= (executed may exceed taken), else jump= */
    unsigned target_fn; /* the function jumped to (a tail call: another) */
};

struct hpm_prof_fn {
    unsigned obj, file, name; /* string ids */
    struct hpm_prof_cost *costs;
    size_t n_costs, cap_costs;
    struct hpm_prof_call *calls;
    size_t n_calls, cap_calls;
    struct hpm_prof_jump *jumps;
    size_t n_jumps, cap_jumps;
};

/* hpm_profile.apportioned: the model's per-instruction values scaled to
 * the total (the timing model's kinds); none at all, the whole total in
 * one "(unattributed)" function (the I/O and kernel units' kinds: the tool
 * counts them in its system call wrappers, not per instruction). */
enum { HPM_PROF_SCALED = 1, HPM_PROF_UNATTRIBUTED = 2 };

struct hpm_profile {
    unsigned n_kinds;
    char *kinds[HPM_PROF_KINDS_MAX];
    uint64_t totals[HPM_PROF_KINDS_MAX];
    /* how a kind's instruction shares differ from its total (bits) */
    unsigned char apportioned[HPM_PROF_KINDS_MAX];
    unsigned char hidden[HPM_PROF_KINDS_MAX];      /* columns the writer leaves out */
    int have_totals;
    char **strs; /* string table; id 0 is "???" */
    unsigned n_strs, cap_strs;
    unsigned *str_hash; /* open addressing: id + 1, 0 = empty */
    unsigned str_hash_cap;
    struct hpm_prof_fn *fns;
    size_t n_fns, cap_fns;
    unsigned *fn_hash;
    size_t fn_hash_cap;
    char *command; /* may be NULL */
    char *creator;
    int has_addr; /* positions include instr */
    struct hpm_prof_vals *vals; /* where every cost's and call's v lives */
    struct hpm_prof_kv **taken; /* records' values taken over (hpm_prof_take_records) */
    size_t n_taken, cap_taken;
};

void hpm_profile_init(struct hpm_profile *p);
void hpm_profile_free(struct hpm_profile *p);
unsigned hpm_profile_str(struct hpm_profile *p, const char *s);
unsigned hpm_profile_fn(struct hpm_profile *p, unsigned obj, unsigned file, unsigned name);
/* n values, all 0, owned by the profile (freed with it, never alone): the
 * v of a cost or call. NULL when out of memory. */
uint64_t *hpm_profile_values(struct hpm_profile *p, size_t n);

/* Adds one file's records, symbolized: kinds must match those already in
 * the profile (the first file sets them). Shares of a kind that do not add
 * up to its total are apportioned. 0, or -1 with a message. */
int hpm_prof_add_records(struct hpm_profile *p, const struct hpm_prof_records *r,
                         struct hpm_symbols *syms, char *err, size_t errlen);
/* The same, taking r's values over rather than copying them (a Python
 * profile's are 30 MB): afterwards r holds no values (r->kvs NULL), so a
 * data profile must be made of r first (hpm_prof_add_data). */
int hpm_prof_take_records(struct hpm_profile *p, struct hpm_prof_records *r,
                          struct hpm_symbols *syms, char *err, size_t errlen);

/* Adds one file's data objects to a data profile d: each object is a
 * "function" (heap: its allocation site's function, file and line, in
 * object "[heap]"; a global: its symbol in its object; "[stack]",
 * "[other]"), its costs those of the data accesses that missed; the first
 * two kinds are BLOCKS and BYTES allocated (heap). 0, or -1 with a
 * message. */
int hpm_prof_add_data(struct hpm_profile *d, const struct hpm_prof_records *r,
                      struct hpm_symbols *syms, char *err, size_t errlen);

/* Adds a jump to function f (merged with the same jump by
 * hpm_profile_finish). */
void hpm_profile_add_jump(struct hpm_profile *p, unsigned f, const struct hpm_prof_jump *j);

/* Sorts and merges each function's costs, calls and jumps (after adding). */
void hpm_profile_finish(struct hpm_profile *p);

/* to += a cost's or call's values (dense v, or sparse kv pairs); to is
 * n_kinds dense values. */
void hpm_prof_add_values(uint64_t *to, const uint64_t *v, const struct hpm_prof_kv *kv,
                         unsigned n_kv, unsigned n_kinds);

/* Self cost of every kind, summed over the profile. */
void hpm_profile_sum(const struct hpm_profile *p, uint64_t *sum);

/* ----------------------------------------------------------------- c2c */

/* The contended lines of several files (processes), symbolized: hpm
 * profile's c2c view, written as text or JSON (c2c.c). */
struct hpm_c2c_report;
struct hpm_c2c_report *hpm_c2c_report_new(void);
/* Adds one process's lines (r->c2c), naming their data objects with syms
 * (NULL: by address). 0, or -1 when out of memory. */
int hpm_c2c_report_add(struct hpm_c2c_report *c, const struct hpm_prof_records *r,
                       struct hpm_symbols *syms, uint64_t pid);
/* Lines listed; *present: some process's node kept contended lines;
 * *dropped: lines the tables could not keep. */
size_t hpm_c2c_report_lines(const struct hpm_c2c_report *c, int *present, uint64_t *dropped,
                            size_t *false_sharing);
int hpm_c2c_report_write_text(const struct hpm_c2c_report *c, FILE *f);
int hpm_c2c_report_write_json(const struct hpm_c2c_report *c, FILE *f);
void hpm_c2c_report_free(struct hpm_c2c_report *c);

/* ----------------------------------------------------------- callgrind */

int hpm_prof_write_callgrind(const struct hpm_profile *p, FILE *f);
/* Whether a file's first bytes are a profile in callgrind's format: it
 * names its format or its events early (src/fileio's check of a head). */
int hpm_prof_callgrind_head(const char *head, size_t n);
/* Reads a callgrind format file (version 1): 0, or -1 with a message. */
int hpm_prof_read_callgrind(struct hpm_profile *p, const char *text, size_t len, char *err,
                            size_t errlen);

#endif
