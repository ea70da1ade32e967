/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * record.c - hpm record -e KIND:PERIOD[,...] | -F HZ [--machine M] [-o FILE] -- PROGRAM
 *
 * Precise sampling on the virtual PMU (docs/vpmu.md, "Sampling"): runs
 * PROGRAM as hpm profile does (run/count_execute.c, with the tool's
 * --hpm-sample), prints the counts' report, then turns every process's
 * sample records into one perf.data file (src/perfdata) that perf report
 * and perf script read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "catalog.h"
#include "commands.h"
#include "run/run.h"
#include "fileio.h"
#include "util/machine_arg.h"
#include "util/options.h"
#include "util/suggest.h"
#include "perfdata.h"
#include "util/runner.h"
#include "vpmu_format.h"
#include "vpmufile.h"

#define MAX_KINDS 8 /* the tool's limit (vpmu_sample.c) */

static const char synopsis[] =
    "usage: hpm record [-e KIND:PERIOD[,KIND:PERIOD...] | -F HZ] [--machine M] [-o FILE]\n"
    "                  [--ldlat N] [--stlat N] [--rate-limit N] -- PROGRAM [ARGS]\n"
    "\n"
    "Runs PROGRAM on the virtual PMU, prints its counts as hpm count does and takes a\n"
    "precise sample at every PERIOD-th event of each KIND per thread: the exact\n"
    "instruction that caused it (zero skid), its data address (memory kinds), thread,\n"
    "core, call chain and modeled time; an access's sample also where it was served\n"
    "(L1, L2, L3, DRAM), its TLB lookup and its modeled latency (perf's data source\n"
    "and weight: perf mem report reads them). -F HZ samples CYCLES HZ times per second of\n"
    "modeled time instead. Writes them to FILE in perf.data format for perf report\n"
    "and perf script (the counts and samples are modeled, not measured).\n"
    "\n"
    "options:\n";
static const char footer[] =
    "\n"
    "KIND: any per-core kind of the catalog (hpm list): INSTRUCTIONS, CYCLES,\n"
    "STALL_*_CYCLES, BRANCHES and BR_*, BR_*MISPREDICTS, FP_*, INT_*, SYSCALLS, loads,\n"
    "stores, cache and TLB misses; not the node-wide kinds (NODE_CYCLES, L3_READS,\n"
    "DDR_*, TORUS_*, ...). The timing model runs too (CYCLES is counted) for the\n"
    "samples' time. -F HZ is CYCLES:PERIOD with PERIOD = the machine's clock / HZ\n"
    "(rounded); it is not combined with -e (each -e period is exact, not adapted).\n"
    "--ldlat N: a load is an event of the kinds sampled per access (LOADS, L1D_MISSES,\n"
    "L2_HITS, MEM_ACCESSES, DTLB_MISSES, ...) only when its modeled latency is at least N\n"
    "cycles (the machine's [timing]: the load's cost plus its level's latency plus a TLB\n"
    "miss's); --stlat N the same for stores. hpm record prints the exact latency\n"
    "histogram of every load and store; hpm count -e LOADS:ldlat=N counts those at or\n"
    "above N without samples; hpm report --mem lists the samples' data objects.\n";

struct record_opts {
    struct hpm_opt_list events;
    const char *machine, *output;
    long rate_limit, freq, ldlat, stlat;
    long interleave; /* hpm count's --interleave */
    long max_threads; /* hpm count's --max-threads */
    int no_children, no_data_src;
    const char *trace_skip; /* hpm count's --trace-children-skip */
};

struct spec {
    char kind[HPM_CAT_NAME_MAX];
    unsigned code; /* catalog kind */
    uint64_t period;
    uint64_t seen, taken, throttled;
};

struct rec_file;

struct record_ctx {
    const char *output;
    struct spec specs[MAX_KINDS];
    unsigned n_specs;
    char *const *prog;
    int prog_argc;
    unsigned cores;
    int mem; /* samples carry data source and weight */
    /* the samples' data objects (hpm report --mem), one per distinct
     * object of the recording */
    struct perfdata_dobj *dobjs;
    size_t n_dobjs, cap_dobjs;
    /* the exact latency histogram of loads (0) and stores (1): every
     * access while counting, by latency, level and TLB */
    struct lat_bin {
        uint64_t lat, count;
        char level[8];
        int tlb_miss;
    } hist[2][8];
    unsigned n_hist[2];
    long ldlat, stlat;
    /* filled while the session reads the run's output (one per file) */
    struct vpmu_tool tool;
    struct rec_file *files;
    size_t n_files;
    int oom;
    uint64_t written;
    int bad;
};

#define RECORD_OPTIONS 13
static void record_table(struct record_opts *o, struct hpm_opt *t)
{
    const struct hpm_opt rows[] = {
        {"--event", "-e", "KIND:PERIOD,...", "sample every PERIOD-th event of KIND (repeatable)",
         HPM_OPT_LIST, &o->events, NULL, NULL, 0, 0},
        {"--freq", "-F", "HZ",
         "sample CYCLES HZ times per second of modeled time (the machine's clock / HZ "
         "cycles apart); without -e or -F, -F 4000 (perf record's default)",
         HPM_OPT_LONG, &o->freq, NULL, NULL, 1, 1000000000},
        {"--machine", NULL, "M", "machine model (hpm list --machines) [default]", HPM_OPT_STRING,
         &o->machine, NULL, NULL, 0, 0},
        {"--output", "-o", "FILE", "write the samples to FILE [perf.data]", HPM_OPT_STRING,
         &o->output, NULL, NULL, 0, 0},
        {"--ldlat", NULL, "N",
         "loads count for the kinds sampled per access only at a modeled latency >= N cycles",
         HPM_OPT_LONG, &o->ldlat, NULL, NULL, 0, 1000000000},
        {"--stlat", NULL, "N",
         "stores count for the kinds sampled per access only at a modeled latency >= N cycles",
         HPM_OPT_LONG, &o->stlat, NULL, NULL, 0, 1000000000},
        {"--no-data-src", NULL, NULL,
         "samples without data source and weight (perf mem cannot read the file)",
         HPM_OPT_FLAG, &o->no_data_src, NULL, NULL, 0, 0},
        {"--rate-limit", NULL, "N",
         "at most N samples per modeled second per core; more are counted as throttled "
         "[100000]",
         HPM_OPT_LONG, &o->rate_limit, NULL, NULL, 1, 1000000000},
        {"--no-children", NULL, NULL, "the program alone, not the processes it starts",
         HPM_OPT_FLAG, &o->no_children, NULL, NULL, 0, 0},
        {"--trace-children-skip", NULL, "PATTERNS",
         "exec'd programs matching one of PATTERNS (comma-separated globs) run natively",
         HPM_OPT_STRING, &o->trace_skip, NULL, NULL, 0, 0},
        {"--interleave", NULL, "N",
         "threads take turns of N instructions in modeled time (hpm count --interleave)",
         HPM_OPT_LONG, &o->interleave, NULL, NULL, 1, 1000000000L},
        {"--max-threads", NULL, "N",
         "the most threads the program runs at once (hpm count --max-threads)",
         HPM_OPT_LONG, &o->max_threads, NULL, NULL, 16, 100000},
        HPM_OPT_TABLE_END,
    };
    _Static_assert(sizeof rows / sizeof rows[0] == RECORD_OPTIONS, "RECORD_OPTIONS");
    memcpy(t, rows, sizeof rows);
}

/* The per-core kinds, for a message: "INSTRUCTIONS CYCLES ..." */
static void sampleable_list(char *buf, size_t len)
{
    size_t at = 0;
    unsigned k;
    buf[0] = 0;
    for (k = 0; k < HPM_K_CORE_COUNT && at + 1 < len; k++) {
        int n = snprintf(buf + at, len - at, "%s%s", k ? " " : "", hpm_catalog_kind(k)->name);
        if (n < 0 || (size_t)n >= len - at)
            break;
        at += (size_t)n;
    }
}

/* One KIND:PERIOD into specs; the message names what is wrong. */
static int parse_spec(struct record_ctx *c, const char *s, size_t len, char *why, size_t wl)
{
    const char *colon = memchr(s, ':', len);
    const struct hpm_cat_kind_info *info;
    char num[32], *end;
    int kind;
    unsigned i;
    uint64_t period;
    if (!colon || colon == s) {
        snprintf(why, wl, "'%.*s': expected KIND:PERIOD", (int)len, s);
        return -1;
    }
    kind = hpm_catalog_kind_by_name(s, (size_t)(colon - s));
    if (kind < 0) {
        char name[HPM_CAT_NAME_MAX], near[HPM_CAT_NAME_MAX + 16];
        snprintf(name, sizeof name, "%.*s", (int)(colon - s), s);
        if (suggest_event(name, near, sizeof near) == 0)
            snprintf(why, wl, "'%s': unknown event kind (did you mean %s? hpm list names them)",
                     name, near);
        else
            snprintf(why, wl, "'%s': unknown event kind (hpm list names them)", name);
        return -1;
    }
    info = hpm_catalog_kind((unsigned)kind);
    if (info->node) {
        char list[1024];
        sampleable_list(list, sizeof list);
        snprintf(why, wl,
                 "%s cannot be sampled precisely: it is a node-wide kind, no instruction's; "
                 "the per-core kinds can: %s",
                 info->name, list);
        return -1;
    }
    if ((size_t)(s + len - colon - 1) >= sizeof num || colon + 1 == s + len) {
        snprintf(why, wl, "%s: PERIOD missing or too long", info->name);
        return -1;
    }
    memcpy(num, colon + 1, (size_t)(s + len - colon - 1));
    num[s + len - colon - 1] = 0;
    errno = 0;
    period = strtoull(num, &end, 10);
    if (*end || num[0] < '0' || num[0] > '9' || errno || period == 0 ||
        period > (UINT64_C(1) << 62)) {
        snprintf(why, wl, "%s: PERIOD '%s' must be a whole number of at least 1", info->name,
                 num);
        return -1;
    }
    for (i = 0; i < c->n_specs; i++)
        if (c->specs[i].code == (unsigned)kind) {
            snprintf(why, wl, "%s is named twice", info->name);
            return -1;
        }
    if (c->n_specs == MAX_KINDS) {
        snprintf(why, wl, "at most %d kinds", MAX_KINDS);
        return -1;
    }
    snprintf(c->specs[c->n_specs].kind, sizeof c->specs[0].kind, "%s", info->name);
    c->specs[c->n_specs].code = (unsigned)kind;
    c->specs[c->n_specs].period = period;
    c->n_specs++;
    return 0;
}

static int spec_of(const struct record_ctx *c, const char *kind, size_t len)
{
    unsigned i;
    for (i = 0; i < c->n_specs; i++)
        if (strlen(c->specs[i].kind) == len && !memcmp(c->specs[i].kind, kind, len))
            return (int)i;
    return -1;
}

/* The next field of a record as a number of base: 0, or -1 for none. */
static int next_num(const char **q, const char *end, int base, uint64_t *v)
{
    const char *f;
    size_t n;
    return vpmu_field(q, end, &f, &n) && vpmu_number(f, n, base, v) == 0 ? 0 : -1;
}

/* The rest of a record after its fields so far and their spaces (a path,
 * which may hold spaces). */
static void rest(const char *q, const char *end, const char **s, size_t *n)
{
    while (q < end && *q == ' ')
        q++;
    *s = q;
    *n = (size_t)(end - q);
}

/* A sample's access word: PERFDATA_OP_*, -1 if unknown. */
static int access_op(const char *w, size_t l)
{
    static const char *const names[] = {"-", "load", "store", "fetch"};
    int i;
    for (i = 0; i < 4; i++)
        if (strlen(names[i]) == l && !memcmp(names[i], w, l))
            return i;
    return -1;
}

/* The level that served it (0 L1 .. 3 memory), -1 for none. */
static int served_level(const char *w, size_t l)
{
    static const char *const names[] = {"L1", "L2", "L3", "MEM"};
    int i;
    for (i = 0; i < 4; i++)
        if (strlen(names[i]) == l && !memcmp(names[i], w, l))
            return i;
    return -1;
}

/* Code the tool saw mapped while sampling (sample_mmap START END OFFSET NS
 * PATH): written at its time. */
struct timed_map {
    uint64_t start, end, off, ns;
    char path[4096];
};

/* A profile object of the file being read (prof_object ID START END OFF PATH). */
struct file_obj {
    uint64_t start, end, off;
    char *path;
};

/* The index + 1 of a data object in c's table, added if new; 0 without
 * memory. Globals are one object per mapping (hpm report names the
 * variable by the sample's data address), heap blocks per allocation
 * site and caller. */
static uint32_t dobj_index(struct record_ctx *c, uint32_t kind, uint64_t where, uint64_t from,
                           const struct file_obj *fo)
{
    size_t i;
    struct perfdata_dobj d;
    memset(&d, 0, sizeof d);
    d.kind = kind;
    if (kind == PERFDATA_DOBJ_HEAP) {
        d.where = where;
        d.from = from;
    } else if (kind == PERFDATA_DOBJ_GLOBAL && fo) {
        d.start = fo->start;
        d.end = fo->end;
        d.pgoff = fo->off;
        d.path = fo->path;
    }
    /* newest first: a run's samples come back to few objects */
    for (i = c->n_dobjs; i-- > 0;) {
        const struct perfdata_dobj *e = &c->dobjs[i];
        if (e->kind == d.kind && e->where == d.where && e->from == d.from &&
            e->start == d.start && e->pgoff == d.pgoff &&
            (e->path == d.path || (e->path && d.path && !strcmp(e->path, d.path))))
            return (uint32_t)i + 1;
    }
    if (c->n_dobjs == c->cap_dobjs) {
        size_t cap = c->cap_dobjs ? 2 * c->cap_dobjs : 64;
        struct perfdata_dobj *n = realloc(c->dobjs, cap * sizeof *n);
        if (!n)
            return 0;
        c->dobjs = n;
        c->cap_dobjs = cap;
    }
    if (d.path && !(d.path = strdup(d.path)))
        return 0;
    c->dobjs[c->n_dobjs++] = d;
    return (uint32_t)c->n_dobjs;
}

/* ------------------------------------------------------------ reading */

/* What the session read of one output file, for the writing: its
 * process, the code mapped while sampling, and its profile objects and
 * samples (the records, whose text stays mapped until the session ends). */
struct rec_file {
    const struct vpmu_file *f;
    uint32_t pid;
    char comm[16];
    struct timed_map *tm;
    size_t n_tm;
    struct vpmu_rec *objs, *samples;
    size_t n_objs, n_samples;
    struct vpmu_rec bad; /* the first malformed record, before the samples */
    int have_bad;
};

/* Appends one element of size sz to *arr (n of them): 0, or -1. */
static int append(void *arr, size_t *n, size_t sz, const void *e)
{
    char **a = arr, *na;
    if ((*n & (*n - 1)) == 0) { /* 0, 1, 2, 4, ...: full */
        if (!(na = realloc(*a, (*n ? 2 * *n : 1) * sz)))
            return -1;
        *a = na;
    }
    memcpy(*a + *n * sz, e, sz);
    (*n)++;
    return 0;
}

/* sample_latency load|store LAT LEVEL TLB COUNT: into the histogram.
 * 0, or 1 when malformed. */
static int rec_latency(struct record_ctx *c, const char *q, const char *end)
{
    const char *op, *lvl, *tlb;
    size_t opn, lvn, tln;
    uint64_t lat, cnt;
    unsigned b;
    int st;
    if (!vpmu_field(&q, end, &op, &opn) || (!vpmu_word_is(op, opn, "load") &&
                                            !vpmu_word_is(op, opn, "store")) ||
        next_num(&q, end, 10, &lat) || !vpmu_field(&q, end, &lvl, &lvn) || lvn > 7 ||
        served_level(lvl, lvn) < 0 || !vpmu_field(&q, end, &tlb, &tln) || tln > 7 ||
        next_num(&q, end, 10, &cnt))
        return 1;
    st = op[0] == 's';
    for (b = 0; b < c->n_hist[st]; b++)
        if (c->hist[st][b].lat == lat && vpmu_word_is(lvl, lvn, c->hist[st][b].level) &&
            c->hist[st][b].tlb_miss == vpmu_word_is(tlb, tln, "tlbmiss"))
            break;
    if (b == c->n_hist[st]) {
        if (b == 8)
            return 1; /* eight latencies an access can have */
        c->n_hist[st]++;
        c->hist[st][b].lat = lat;
        c->hist[st][b].count = 0;
        snprintf(c->hist[st][b].level, sizeof c->hist[st][b].level, "%.*s", (int)lvn, lvl);
        c->hist[st][b].tlb_miss = vpmu_word_is(tlb, tln, "tlbmiss");
    }
    c->hist[st][b].count += cnt;
    return 0;
}

/* sample_mmap START END OFFSET NS PATH: code mapped while sampling. 0, 1
 * when malformed, -1 out of memory. */
static int rec_mmap(struct rec_file *rf, const char *q, const char *end)
{
    struct timed_map m;
    const char *path;
    size_t n;
    if (next_num(&q, end, 16, &m.start) || next_num(&q, end, 16, &m.end) ||
        next_num(&q, end, 16, &m.off) || next_num(&q, end, 10, &m.ns) || m.end < m.start)
        return 1;
    rest(q, end, &path, &n);
    snprintf(m.path, sizeof m.path, "%.*s", (int)n, path);
    return append(&rf->tm, &rf->n_tm, sizeof m, &m);
}

/* sample_kind KIND PERIOD SEEN TAKEN THROTTLED: the kind's counts. */
static int rec_kind(struct record_ctx *c, const char *q, const char *end)
{
    const char *k;
    size_t kn;
    uint64_t period, seen, taken, thr;
    int s;
    if (!vpmu_field(&q, end, &k, &kn) || (s = spec_of(c, k, kn)) < 0 ||
        next_num(&q, end, 10, &period) || next_num(&q, end, 10, &seen) ||
        next_num(&q, end, 10, &taken) || next_num(&q, end, 10, &thr))
        return 1;
    c->specs[s].seen += seen;
    c->specs[s].taken += taken;
    c->specs[s].throttled += thr;
    return 0;
}

/* command PROG ARG...: the kernel's comm, the program's base name, 15 bytes. */
static void rec_command(struct rec_file *rf, const char *q, const char *end)
{
    const char *prog, *slash;
    size_t n;
    if (!vpmu_field(&q, end, &prog, &n))
        return;
    if ((slash = memrchr(prog, '/', n))) {
        n -= (size_t)(slash + 1 - prog);
        prog = slash + 1;
    }
    snprintf(rf->comm, sizeof rf->comm, "%.*s", (int)n, prog);
}

/* One record of the process: 0, 1 malformed, -1 out of memory. */
static int rec_one(struct record_ctx *c, struct rec_file *rf, const struct vpmu_rec *r)
{
    const char *q = r->rest, *end = r->end;
    uint64_t v;
    if (r->has_nul)
        return 1;
    if (vpmu_rec_is(r, VPMU_REC_PID)) {
        rf->pid = next_num(&q, end, 10, &v) == 0 ? (uint32_t)v : 0;
    } else if (vpmu_rec_is(r, VPMU_REC_CORES)) {
        if (next_num(&q, end, 10, &v) == 0 && v > c->cores && v < 1u << 20)
            c->cores = (unsigned)v;
    } else if (vpmu_rec_is(r, VPMU_REC_COMMAND)) {
        rec_command(rf, q, end);
    } else if (vpmu_rec_is(r, VPMU_REC_SAMPLE "_latency")) {
        return rec_latency(c, q, end);
    } else if (vpmu_rec_is(r, VPMU_REC_SAMPLE "_mmap")) {
        return rec_mmap(rf, q, end);
    } else if (vpmu_rec_is(r, VPMU_REC_SAMPLE_KIND)) {
        return rec_kind(c, q, end);
    } else if (vpmu_rec_is(r, VPMU_REC_PROF_OBJECT)) {
        return append(&rf->objs, &rf->n_objs, sizeof *r, r);
    } else if (vpmu_rec_is(r, VPMU_REC_SAMPLE)) {
        return append(&rf->samples, &rf->n_samples, sizeof *r, r);
    }
    return 0;
}

static int samples_begin(void *ctx, const struct vpmu_file *f, const char *buf, size_t len,
                         int nul)
{
    struct record_ctx *c = ctx;
    struct rec_file rf;
    (void)buf;
    (void)len;
    (void)nul;
    memset(&rf, 0, sizeof rf);
    rf.f = f;
    snprintf(rf.comm, sizeof rf.comm, "?");
    if (append(&c->files, &c->n_files, sizeof rf, &rf) != 0) {
        c->oom = 1;
        return -1;
    }
    return 0;
}

static int samples_record(void *ctx, const struct vpmu_file *f, const struct vpmu_rec *r)
{
    struct record_ctx *c = ctx;
    struct rec_file *rf = &c->files[c->n_files - 1];
    int rc;
    (void)f;
    if (rf->have_bad)
        return 0;
    rc = rec_one(c, rf, r);
    if (rc < 0)
        c->oom = 1;
    else if (rc > 0) {
        rf->bad = *r;
        rf->have_bad = 1;
    }
    return rc < 0 ? -1 : 0;
}

/* ------------------------------------------------------------ writing */

static int malformed(struct record_ctx *c, const struct rec_file *rf, const struct vpmu_rec *r)
{
    fprintf(stderr, "hpm record: %s: a malformed sample record: %.*s\n", rf->f->path,
            (int)(r->end - r->line), r->line);
    c->bad = 1;
    return -1;
}

/* The profile's objects, by id (a global's data object names its
 * mapping); those not mapped while sampling as mappings at time 0.
 * 0, or -1 (malformed: said). */
static int write_objects(struct record_ctx *c, struct perfdata_writer *w,
                         const struct rec_file *rf, struct file_obj **fobj, size_t *n_fobj)
{
    size_t i, t;
    for (i = 0; i < rf->n_objs; i++) {
        const struct vpmu_rec *r = &rf->objs[i];
        const char *q = r->rest, *path;
        uint64_t id, start, endp, off;
        char pathbuf[4096];
        size_t pl;
        if (next_num(&q, r->end, 10, &id) || next_num(&q, r->end, 16, &start) ||
            next_num(&q, r->end, 16, &endp) || next_num(&q, r->end, 16, &off) || endp < start ||
            id > UINT32_MAX)
            return malformed(c, rf, r);
        rest(q, r->end, &path, &pl);
        snprintf(pathbuf, sizeof pathbuf, "%.*s", (int)pl, path);
        if (id < 1u << 20 && id >= *n_fobj) {
            struct file_obj *nf = realloc(*fobj, ((size_t)id + 1) * sizeof *nf);
            if (!nf)
                return -1;
            memset(nf + *n_fobj, 0, ((size_t)id + 1 - *n_fobj) * sizeof *nf);
            *fobj = nf;
            *n_fobj = (size_t)id + 1;
        }
        if (id < *n_fobj && !(*fobj)[id].path) {
            (*fobj)[id].start = start;
            (*fobj)[id].end = endp;
            (*fobj)[id].off = off;
            if (!((*fobj)[id].path = strdup(pathbuf)))
                return -1;
        }
        /* mapped while sampling: written at its time */
        for (t = 0; t < rf->n_tm; t++)
            if (rf->tm[t].start == start && !strcmp(rf->tm[t].path, pathbuf))
                break;
        if (t == rf->n_tm && perfdata_write_mmap(w, rf->pid, rf->pid, 0, start, endp - start + 1,
                                                 off, pathbuf) != 0)
            return -1;
    }
    return 0;
}

/* A sample's data object: KIND WHERE WHERE2 OBJ ("- 0 0 0"): its index + 1
 * in the recording's table (0: none), or -1 (malformed), -2 (out of memory). */
static long sample_dobj(struct record_ctx *c, const char **q, const char *end,
                        const struct file_obj *fobj, size_t n_fobj)
{
    static const char *const dk[] = {"heap", "global", "stack", "other"};
    uint64_t w1, w2, ob;
    const char *kw;
    size_t kl;
    int kind = -1, j;
    uint32_t dobj;
    if (!vpmu_field(q, end, &kw, &kl) || next_num(q, end, 16, &w1) ||
        next_num(q, end, 16, &w2) || next_num(q, end, 10, &ob))
        return -1;
    for (j = 0; j < 4; j++)
        if (vpmu_word_is(kw, kl, dk[j]))
            kind = j;
    if (kind < 0)
        return kl == 1 && *kw == '-' ? 0 : -1;
    if (!c->mem)
        return 0;
    dobj = dobj_index(c, (uint32_t)kind, w1, w2, ob < n_fobj && fobj[ob].path ? &fobj[ob] : NULL);
    return dobj ? (long)dobj : -2;
}

/* The fields of a sample before its access: IP DATA T LWP CORE NS. */
static int sample_head(const char **q, const char *end, struct perfdata_sample *smp,
                       uint32_t pid)
{
    const char *f;
    size_t n;
    uint64_t serial, lwp, core;
    int neg;
    if (next_num(q, end, 16, &smp->ip) || next_num(q, end, 16, &smp->addr) ||
        next_num(q, end, 10, &serial) || !vpmu_field(q, end, &f, &n))
        return -1;
    neg = n > 1 && f[0] == '-';
    if (vpmu_number(f + neg, n - (size_t)neg, 10, &lwp) != 0 || next_num(q, end, 10, &core) ||
        next_num(q, end, 10, &smp->time))
        return -1;
    smp->tid = !neg && lwp > 0 ? (uint32_t)lwp : pid;
    smp->cpu = (uint32_t)core;
    return 0;
}

/* sample KIND IP DATA T LWP CORE NS ACC SERVED TLB LAT DKIND DWHERE DFROM
 * DOBJ SITE...: 0, 1 malformed, -1 out of memory. */
static int sample_parse(struct record_ctx *c, const struct rec_file *rf, const struct vpmu_rec *r,
                        struct perfdata_sample *smp, uint64_t *chain, size_t max_chain,
                        const struct file_obj *fobj, size_t n_fobj)
{
    const char *q = r->rest, *end = r->end, *k, *acc, *srv, *tl;
    size_t kn, al, sl, tll;
    int s, op, level;
    long dobj;
    memset(smp, 0, sizeof *smp);
    if (!vpmu_field(&q, end, &k, &kn) || (s = spec_of(c, k, kn)) < 0 ||
        sample_head(&q, end, smp, rf->pid) != 0 || !vpmu_field(&q, end, &acc, &al) ||
        !vpmu_field(&q, end, &srv, &sl) || !vpmu_field(&q, end, &tl, &tll) ||
        next_num(&q, end, 10, &smp->weight))
        return 1;
    if ((dobj = sample_dobj(c, &q, end, fobj, n_fobj)) < 0)
        return dobj == -2 ? -1 : 1;
    op = access_op(acc, al);
    level = served_level(srv, sl);
    if (op < 0 || (op != PERFDATA_OP_NA && level < 0))
        return 1;
    smp->data_src = perfdata_data_src(op, level, vpmu_word_is(tl, tll, "tlbmiss"));
    smp->dobj = (uint32_t)dobj;
    while (smp->n_chain < max_chain) {
        const char *f;
        size_t n;
        if (!vpmu_field(&q, end, &f, &n))
            break;
        if (vpmu_number(f, n, 16, &chain[smp->n_chain++]) != 0)
            return 1;
    }
    smp->event = (unsigned)s;
    smp->period = c->specs[s].period;
    smp->pid = rf->pid;
    smp->chain = chain;
    return 0;
}

/* The process's samples, each thread named before its first. 0, or -1. */
static int write_samples(struct record_ctx *c, struct perfdata_writer *w,
                         const struct rec_file *rf, const struct file_obj *fobj, size_t n_fobj)
{
    uint32_t comm_tids[64];
    unsigned n_comm_tids = 0, i;
    uint64_t chain[64];
    size_t k;
    for (k = 0; k < rf->n_samples; k++) {
        struct perfdata_sample smp;
        int rc = sample_parse(c, rf, &rf->samples[k], &smp, chain, 64, fobj, n_fobj);
        if (rc)
            return rc > 0 ? malformed(c, rf, &rf->samples[k]) : -1;
        for (i = 0; i < n_comm_tids && comm_tids[i] != smp.tid; i++)
            ;
        if (i == n_comm_tids && n_comm_tids < sizeof comm_tids / sizeof comm_tids[0]) {
            comm_tids[n_comm_tids++] = smp.tid;
            if (smp.tid != rf->pid && perfdata_write_comm(w, rf->pid, smp.tid, 0, rf->comm) != 0)
                return -1;
        }
        if (perfdata_write_sample(w, &smp) != 0)
            return -1;
        c->written++;
    }
    return 0;
}

/* One output file: its process's comm, mappings and samples. */
static int write_file(struct record_ctx *c, struct perfdata_writer *w, const struct rec_file *rf)
{
    struct file_obj *fobj = NULL;
    size_t n_fobj = 0, t;
    int rc = -1;
    if (rf->have_bad)
        return malformed(c, rf, &rf->bad);
    if (perfdata_write_comm(w, rf->pid, rf->pid, 0, rf->comm) != 0 ||
        write_objects(c, w, rf, &fobj, &n_fobj) != 0)
        goto out;
    for (t = 0; t < rf->n_tm; t++)
        if (perfdata_write_mmap(w, rf->pid, rf->pid, rf->tm[t].ns, rf->tm[t].start,
                                rf->tm[t].end - rf->tm[t].start + 1, rf->tm[t].off,
                                rf->tm[t].path) != 0)
            goto out;
    rc = write_samples(c, w, rf, fobj, n_fobj);
out:
    for (t = 0; t < n_fobj; t++)
        free(fobj[t].path);
    free(fobj);
    return rc;
}

static int write_perf(FILE *f, void *ctx)
{
    struct record_ctx *c = ctx;
    struct perfdata_writer w;
    struct perfdata_event ev[MAX_KINDS];
    unsigned i;
    size_t k;
    memset(ev, 0, sizeof ev);
    for (i = 0; i < c->n_specs; i++) {
        snprintf(ev[i].name, sizeof ev[i].name, "hpm:%s", c->specs[i].kind);
        ev[i].config = c->specs[i].code;
        ev[i].period = c->specs[i].period;
    }
    if (perfdata_write_begin(&w, f, ev, c->n_specs, c->cores, c->prog, c->prog_argc,
                             c->mem ? PERFDATA_MEM : 0) != 0)
        return -1;
    for (k = 0; k < c->n_files; k++)
        if (write_file(c, &w, &c->files[k]) != 0) {
            free(w.cmdline);
            free(w.sample_dobj);
            return -1;
        }
    w.cpus = c->cores ? c->cores : 1;
    perfdata_write_dobjs(&w, c->dobjs, c->n_dobjs);
    return perfdata_write_end(&w);
}

static int cmp_bin(const void *a, const void *b)
{
    const struct lat_bin *x = a, *y = b;
    if (x->lat != y->lat)
        return x->lat < y->lat ? -1 : 1;
    return strcmp(x->level, y->level);
}

/* The exact latency histogram (every load and store while counting, not
 * only the sampled), and the accesses at or above --ldlat / --stlat. */
static void print_histogram(struct record_ctx *c)
{
    static const char *const what[2] = {"load", "store"};
    static const char *const level[4] = {"L1", "L2", "L3", "DRAM"};
    unsigned st, b;
    for (st = 0; st < 2; st++) {
        long thr = st ? c->stlat : c->ldlat;
        uint64_t above = 0;
        if (!c->n_hist[st])
            continue;
        qsort(c->hist[st], c->n_hist[st], sizeof c->hist[st][0], cmp_bin);
        fprintf(stderr, "hpm: %s latency (modeled cycles; every %s while counting):\n", what[st],
                what[st]);
        for (b = 0; b < c->n_hist[st]; b++) {
            const struct lat_bin *x = &c->hist[st][b];
            int lv = served_level(x->level, strlen(x->level));
            fprintf(stderr, "hpm:   %6" PRIu64 " cycles %14" PRIu64 "  %s, TLB %s\n", x->lat,
                    x->count, lv >= 0 ? level[lv] : x->level, x->tlb_miss ? "miss" : "hit");
            if (x->lat >= (uint64_t)thr)
                above += x->count;
        }
        if (thr > 0)
            fprintf(stderr, "hpm:   %ss at or above %ld cycles: %" PRIu64 "\n", what[st], thr,
                    above);
    }
}

static void files_free(struct record_ctx *c)
{
    size_t i;
    for (i = 0; i < c->n_files; i++) {
        free(c->files[i].tm);
        free(c->files[i].objs);
        free(c->files[i].samples);
    }
    free(c->files);
    c->files = NULL;
    c->n_files = 0;
}

/* After the report: the samples the session read, as perf.data. */
static int after_run(uint64_t main_pid, void *ctx)
{
    struct record_ctx *c = ctx;
    size_t i;
    unsigned s;
    int rc = -1;
    (void)main_pid;
    if (c->oom) {
        fprintf(stderr, "hpm record: out of memory\n");
        goto done;
    }
    if (runner_write_output("hpm record", c->output, write_perf, c) != 0)
        goto done;
    fprintf(stderr, "hpm: %" PRIu64 " precise sample%s written to %s (modeled; perf report -i %s)\n",
            c->written, c->written == 1 ? "" : "s", c->output, c->output);
    for (s = 0; s < c->n_specs; s++)
        fprintf(stderr,
                "hpm:   %-18s period %-10" PRIu64 " events %-12" PRIu64 " samples %-10" PRIu64
                " throttled %" PRIu64 "\n",
                c->specs[s].kind, c->specs[s].period, c->specs[s].seen, c->specs[s].taken,
                c->specs[s].throttled);
    print_histogram(c);
    rc = 0;
done:
    for (i = 0; i < c->n_dobjs; i++)
        free(c->dobjs[i].path);
    free(c->dobjs);
    c->dobjs = NULL;
    c->n_dobjs = c->cap_dobjs = 0;
    files_free(c);
    return rc;
}

/* -F HZ: CYCLES every clock / HZ cycles (rounded) of the machine's timing
 * model; the message says what it became. */
static int freq_spec(struct record_ctx *c, const struct record_opts *o)
{
    struct hpm_machine m;
    char note[256];
    uint64_t f, period;
    unsigned i, any = 0;
    if (machine_arg_load("hpm record", o->machine, &m, note, sizeof note) != 0)
        return -1;
    for (i = 0; i < sizeof m.timing.cpi_milli / sizeof m.timing.cpi_milli[0]; i++)
        any |= m.timing.cpi_milli[i];
    any |= m.timing.l2_latency | m.timing.l3_latency | m.timing.memory_latency |
           m.timing.tlb_miss | m.timing.mispredict;
    f = m.frequency_hz;
    if (!any) {
        fprintf(stderr,
                "hpm record: -F needs a timing model: machine %s has none (every cpi_* and "
                "latency of its [timing] is 0, so modeled time does not advance); use -e "
                "KIND:PERIOD\n",
                m.name);
        return -1;
    }
    if ((uint64_t)o->freq > f) {
        fprintf(stderr,
                "hpm record: -F %ld: more than one sample per cycle of machine %s (clock %" PRIu64
                " Hz)\n",
                o->freq, m.name, f);
        return -1;
    }
    period = (f + (uint64_t)o->freq / 2) / (uint64_t)o->freq;
    snprintf(c->specs[0].kind, sizeof c->specs[0].kind, "CYCLES");
    c->specs[0].code = HPM_K_CYCLES;
    c->specs[0].period = period;
    c->n_specs = 1;
    fprintf(stderr,
            "hpm: -F %ld: a CYCLES sample every %" PRIu64 " modeled cycles (machine %s, clock %" PRIu64
            " Hz%s)\n",
            o->freq, period, m.name, f, f % (uint64_t)o->freq ? ", rounded" : "");
    return 0;
}

/* perf record's default frequency (-F 4000): the rate without -e or -F */
#define RECORD_DEFAULT_FREQ 4000

int cmd_record(int argc, char **argv)
{
    struct record_opts o;
    struct record_ctx c;
    struct count_hook hook;
    struct hpm_opt table[RECORD_OPTIONS];
    char why[1400], *sample_arg = NULL, *events_arg = NULL, limit_arg[64], ldlat_arg[64],
        stlat_arg[64];
    char **cargv = NULL;
    char interleave_arg[48], max_threads_arg[48];
    size_t at, ea;
    int first, rc, na = 0, i;
    unsigned s, k;

    memset(&o, 0, sizeof o);
    memset(&c, 0, sizeof c);
    o.rate_limit = 100000;
    record_table(&o, table);
    rc = hpm_opt_parse("hpm record", table, synopsis, footer, argc, argv, &first);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (first >= argc)
        return hpm_opt_error("hpm record", table, synopsis, footer, "no PROGRAM to run%s", "");
    if (o.events.n == 0 && !o.freq) {
        /* as perf record: cycles at its default frequency */
        o.freq = RECORD_DEFAULT_FREQ;
        fprintf(stderr, "hpm record: no -e or -F: sampling CYCLES %d times per modeled second "
                "(perf record's default)\n", RECORD_DEFAULT_FREQ);
    }
    if (o.events.n && o.freq)
        return hpm_opt_error("hpm record", table, synopsis, footer,
                             "-F HZ samples CYCLES at HZ of modeled time and is not combined "
                             "with -e (periods are exact, not adapted per event): use -F alone, "
                             "or -e CYCLES:PERIOD with PERIOD = the machine's clock / HZ "
                             "beside the other kinds%s",
                             "");
    if (o.freq && freq_spec(&c, &o) != 0)
        return 2;
    for (k = 0; k < o.events.n; k++) {
        const char *v = o.events.v[k];
        while (*v) {
            size_t l = strcspn(v, ",");
            if (l == 0 || parse_spec(&c, v, l, why, sizeof why) != 0) {
                if (l == 0)
                    snprintf(why, sizeof why, "an empty KIND:PERIOD in '%s'", o.events.v[k]);
                return hpm_opt_error("hpm record", table, synopsis, footer, "%s", why);
            }
            v += l + (v[l] == ',');
        }
    }
    c.output = o.output ? o.output : "perf.data";
    if (!runner_output_ok("hpm record", c.output))
        return 2;
    {
        /* a perf.data file's header is written last, at its start: only a
         * file that can be seeked holds one (a FIFO would block the end of
         * a whole run, and lose the file) */
        struct stat st;
        if (stat(c.output, &st) == 0 && !S_ISREG(st.st_mode)) {
            fprintf(stderr,
                    "hpm record: cannot write the recording to %s: not a regular file (a "
                    "perf.data file is rewritten at its end; name a file)\n",
                    c.output);
            return 2;
        }
    }
    c.prog = argv + first;
    c.prog_argc = argc - first;

    /* the tool's options and hpm count's arguments */
    sample_arg = malloc(32 + c.n_specs * (HPM_CAT_NAME_MAX + 24));
    events_arg = malloc(16 + c.n_specs * (HPM_CAT_NAME_MAX + 1));
    cargv = calloc((size_t)(argc - first) + 15, sizeof *cargv);
    if (!sample_arg || !events_arg || !cargv) {
        fprintf(stderr, "hpm record: out of memory\n");
        rc = 1;
        goto done;
    }
    at = (size_t)sprintf(sample_arg, "--hpm-sample=");
    ea = 0;
    for (s = 0; s < c.n_specs; s++) {
        at += (size_t)sprintf(sample_arg + at, "%s%s:%" PRIu64, s ? "," : "", c.specs[s].kind,
                              c.specs[s].period);
        ea += (size_t)sprintf(events_arg + ea, "%s,", c.specs[s].kind);
    }
    /* the timing model gives the samples their modeled time */
    sprintf(events_arg + ea, "CYCLES");
    snprintf(limit_arg, sizeof limit_arg, "--hpm-sample-limit=%ld", o.rate_limit);
    memset(&hook, 0, sizeof hook);
    hook.tool_args[0] = sample_arg;
    hook.tool_args[1] = limit_arg;
    c.mem = !o.no_data_src;
    c.ldlat = o.ldlat;
    c.stlat = o.stlat;
    snprintf(ldlat_arg, sizeof ldlat_arg, "--hpm-sample-ldlat=%ld", o.ldlat);
    snprintf(stlat_arg, sizeof stlat_arg, "--hpm-sample-stlat=%ld", o.stlat);
    hook.tool_args[2] = ldlat_arg;
    hook.tool_args[3] = stlat_arg;
    hook.tool_args[4] = c.mem ? "--hpm-sample-src=yes" : "--hpm-sample-src=no";
    c.tool.file_begin = samples_begin;
    c.tool.record = samples_record;
    c.tool.ctx = &c;
    hook.tool = &c.tool;
    hook.after = after_run;
    hook.ctx = &c;
    cargv[na++] = "record";
    cargv[na++] = "-e";
    cargv[na++] = events_arg;
    if (o.machine) {
        cargv[na++] = "--machine";
        cargv[na++] = (char *)o.machine;
    }
    if (o.no_children)
        cargv[na++] = "--no-children";
    if (o.trace_skip) {
        cargv[na++] = "--trace-children-skip";
        cargv[na++] = (char *)o.trace_skip;
    }
    if (o.interleave > 0) {
        snprintf(interleave_arg, sizeof interleave_arg, "--interleave=%ld", o.interleave);
        cargv[na++] = interleave_arg;
    }
    if (o.max_threads > 0) {
        snprintf(max_threads_arg, sizeof max_threads_arg, "--max-threads=%ld", o.max_threads);
        cargv[na++] = max_threads_arg;
    }
    cargv[na++] = "--";
    for (i = first; i < argc; i++)
        cargv[na++] = argv[i];
    cargv[na] = NULL;
    c.cores = 1;
    rc = count_record(na, cargv, &hook);
done:
    free(sample_arg);
    free(events_arg);
    free(cargv);
    return rc;
}
