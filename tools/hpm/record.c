/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * record.c - hpm record -e KIND:PERIOD[,...] | -F HZ [--machine M] [-o FILE] -- PROGRAM
 *
 * Precise sampling on the virtual PMU (docs/vpmu.md, "Sampling"): runs
 * PROGRAM as hpm profile does (count.c, with the tool's --hpm-sample), prints
 * the counts' report, then turns every process's sample records into one
 * perf.data file (src/perfdata) that perf report and perf script read.
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
#include "count_hook.h"
#include "fileio.h"
#include "machine_arg.h"
#include "options.h"
#include "suggest.h"
#include "perfdata.h"
#include "runner.h"
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
    int no_children, no_data_src;
    const char *trace_skip; /* hpm count's --trace-children-skip */
};

struct spec {
    char kind[HPM_CAT_NAME_MAX];
    unsigned code; /* catalog kind */
    uint64_t period;
    uint64_t seen, taken, throttled;
};

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
    /* filled while reading */
    struct vpmu_file *files;
    size_t n_files;
    uint64_t main_pid;
    int children;
    uint64_t written;
    int bad;
};

#define RECORD_OPTIONS 12
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

/* The next space-separated word of *p (within the line). */
static const char *word(const char **p, size_t *len)
{
    const char *s = *p, *e;
    while (*s == ' ')
        s++;
    e = s;
    while (*e && *e != ' ' && *e != '\n')
        e++;
    *len = (size_t)(e - s);
    *p = e;
    return *len ? s : NULL;
}

/* The next number of *p in base (spaces skipped): 0, or -1 for none
 * (strtoull: sscanf measures its whole input, a sample's line each time). */
static int next_num(const char **p, int base, unsigned long long *v)
{
    char *e;
    while (**p == ' ')
        (*p)++;
    if (!(**p >= '0' && **p <= '9') && !(base == 16 && ((**p | 32) >= 'a' && (**p | 32) <= 'f')))
        return -1;
    errno = 0;
    *v = strtoull(*p, &e, base);
    if (errno || e == *p)
        return -1;
    *p = e;
    return 0;
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

/* One output file: its process's comm, mappings and samples. */
static int write_file(struct record_ctx *c, struct perfdata_writer *w, const char *path,
                      const char *text, size_t len)
{
    const char *line = text, *comm = "?";
    size_t line_len = 0;
    struct vpmu_recs it;
    struct vpmu_rec r;
    int more;
    char comm_buf[16];
    uint32_t pid = 0, comm_tids[64];
    unsigned n_comm_tids = 0, pass;
    uint64_t chain[64];
    struct timed_map *tm = NULL;
    size_t n_tm = 0, cap_tm = 0, t;
    struct file_obj *fobj = NULL;
    size_t n_fobj = 0;
    /* pass 0: pid, command, code mapped while sampling; pass 1: the
     * profile's objects (at time 0, those not mapped while sampling);
     * pass 2: samples */
    for (pass = 0; pass < 3; pass++) {
        vpmu_recs_begin(&it, text, len);
        while ((more = vpmu_recs_next(&it, &r)) != 0) {
            /* one line at a time: sscanf measures its whole input string */
            char lb[8192];
            const char *p = lb, *wd;
            size_t wl = (size_t)(r.end - r.line);
            line = r.line;
            line_len = wl;
            if (more < 0 || wl >= sizeof lb)
                goto bad;
            memcpy(lb, line, wl);
            lb[wl] = 0;
            wd = word(&p, &wl);
            if (!wd)
                continue;
            if (pass == 0 && wl == strlen(VPMU_REC_PID) && !memcmp(wd, VPMU_REC_PID, wl)) {
                pid = (uint32_t)strtoul(p, NULL, 10);
            } else if (pass == 0 && wl == strlen(VPMU_REC_CORES) &&
                       !memcmp(wd, VPMU_REC_CORES, wl)) {
                unsigned long n = strtoul(p, NULL, 10);
                if (n > c->cores && n < 1u << 20)
                    c->cores = (unsigned)n;
            } else if (pass == 0 && wl == strlen(VPMU_REC_COMMAND) &&
                       !memcmp(wd, VPMU_REC_COMMAND, wl)) {
                const char *prog = word(&p, &wl), *slash;
                if (prog) {
                    /* the kernel's comm: the program's base name, 15 bytes */
                    slash = memrchr(prog, '/', wl);
                    if (slash) {
                        wl -= (size_t)(slash + 1 - prog);
                        prog = slash + 1;
                    }
                    snprintf(comm_buf, sizeof comm_buf, "%.*s", (int)wl, prog);
                    comm = comm_buf;
                }
            } else if (pass == 0 && wl == strlen(VPMU_REC_SAMPLE "_latency") &&
                       !memcmp(wd, VPMU_REC_SAMPLE "_latency", wl)) {
                unsigned long long lat, cnt;
                char op[8], lvl[8], tlb[8];
                int st, lv;
                unsigned b;
                if (sscanf(p, " %7s %llu %7s %7s %llu", op, &lat, lvl, tlb, &cnt) != 5 ||
                    (strcmp(op, "load") && strcmp(op, "store")) ||
                    (lv = served_level(lvl, strlen(lvl))) < 0)
                    goto bad;
                st = op[0] == 's';
                for (b = 0; b < c->n_hist[st]; b++)
                    if (c->hist[st][b].lat == lat && !strcmp(c->hist[st][b].level, lvl) &&
                        c->hist[st][b].tlb_miss == !strcmp(tlb, "tlbmiss"))
                        break;
                if (b == c->n_hist[st]) {
                    if (b == 8)
                        goto bad; /* eight latencies an access can have */
                    c->n_hist[st]++;
                    c->hist[st][b].lat = lat;
                    c->hist[st][b].count = 0;
                    snprintf(c->hist[st][b].level, sizeof c->hist[st][b].level, "%s", lvl);
                    c->hist[st][b].tlb_miss = !strcmp(tlb, "tlbmiss");
                }
                c->hist[st][b].count += cnt;
            } else if (pass == 0 && wl == strlen(VPMU_REC_SAMPLE "_mmap") &&
                       !memcmp(wd, VPMU_REC_SAMPLE "_mmap", wl)) {
                unsigned long long start, endp, off, ns;
                int n = 0;
                if (sscanf(p, " %llx %llx %llx %llu %n", &start, &endp, &off, &ns, &n) < 4 || !n ||
                    endp < start)
                    goto bad;
                if (n_tm == cap_tm) {
                    struct timed_map *nt = realloc(tm, (cap_tm = cap_tm ? 2 * cap_tm : 8) * sizeof *tm);
                    if (!nt) {
                        free(tm);
                        return -1;
                    }
                    tm = nt;
                }
                tm[n_tm].start = start;
                tm[n_tm].end = endp;
                tm[n_tm].off = off;
                tm[n_tm].ns = ns;
                snprintf(tm[n_tm].path, sizeof tm[n_tm].path, "%.*s", (int)strcspn(p + n, "\n"),
                         p + n);
                n_tm++;
            } else if (pass == 1 && wl == strlen(VPMU_REC_PROF_OBJECT) &&
                       !memcmp(wd, VPMU_REC_PROF_OBJECT, wl)) {
                unsigned long long start, endp, off;
                unsigned id;
                int n = 0;
                if (sscanf(p, " %u %llx %llx %llx %n", &id, &start, &endp, &off, &n) < 4 || !n ||
                    endp < start)
                    goto bad;
                {
                    char pathbuf[4096];
                    size_t pl = strcspn(p + n, "\n");
                    snprintf(pathbuf, sizeof pathbuf, "%.*s", (int)pl, p + n);
                    if (id < 1u << 20 && id >= n_fobj) {
                        /* by id: a global's data object names its mapping */
                        struct file_obj *nf = realloc(fobj, ((size_t)id + 1) * sizeof *nf);
                        if (!nf)
                            goto fail;
                        memset(nf + n_fobj, 0, ((size_t)id + 1 - n_fobj) * sizeof *nf);
                        fobj = nf;
                        n_fobj = (size_t)id + 1;
                    }
                    if (id < n_fobj && !fobj[id].path) {
                        fobj[id].start = start;
                        fobj[id].end = endp;
                        fobj[id].off = off;
                        if (!(fobj[id].path = strdup(pathbuf)))
                            goto fail;
                    }
                    /* mapped while sampling: written at its time below */
                    for (t = 0; t < n_tm; t++)
                        if (tm[t].start == start && !strcmp(tm[t].path, pathbuf))
                            break;
                    if (t == n_tm && perfdata_write_mmap(w, pid, pid, 0, start, endp - start + 1,
                                                         off, pathbuf) != 0)
                        goto fail;
                }
            } else if (pass == 0 && wl == strlen(VPMU_REC_SAMPLE_KIND) &&
                       !memcmp(wd, VPMU_REC_SAMPLE_KIND, wl)) {
                unsigned long long period, seen, taken, thr;
                const char *k = word(&p, &wl);
                int s = k ? spec_of(c, k, wl) : -1;
                if (s < 0 || sscanf(p, "%llu %llu %llu %llu", &period, &seen, &taken, &thr) != 4)
                    goto bad;
                c->specs[s].seen += seen;
                c->specs[s].taken += taken;
                c->specs[s].throttled += thr;
            } else if (pass == 2 && wl == strlen(VPMU_REC_SAMPLE) &&
                       !memcmp(wd, VPMU_REC_SAMPLE, wl)) {
                struct perfdata_sample smp;
                unsigned long long ip, addr, serial, core, ns, lat;
                long long lwp;
                int s, n = 0, op, level, tlb;
                uint32_t dobj;
                const char *k = word(&p, &wl), *acc, *srv, *tl;
                size_t al, sl, tll;
                unsigned i;
                s = k ? spec_of(c, k, wl) : -1;
                if (s < 0 || sscanf(p, "%llx %llx %llu %lld %llu %llu%n", &ip, &addr, &serial,
                                    &lwp, &core, &ns, &n) != 6)
                    goto bad;
                p += n;
                /* the access: ACC SERVED TLB LATENCY ("- - - 0": none) */
                acc = word(&p, &al);
                srv = word(&p, &sl);
                tl = word(&p, &tll);
                if (!acc || !srv || !tl || next_num(&p, 10, &lat) != 0)
                    goto bad;
                {
                    /* the data object: KIND WHERE WHERE2 OBJ ("- 0 0 0") */
                    static const char *const dk[] = {"heap", "global", "stack", "other"};
                    unsigned long long w1, w2, ob;
                    size_t kl;
                    const char *kw = word(&p, &kl);
                    int kind = -1, j;
                    if (!kw || next_num(&p, 16, &w1) || next_num(&p, 16, &w2) ||
                        next_num(&p, 10, &ob))
                        goto bad;
                    for (j = 0; j < 4; j++)
                        if (strlen(dk[j]) == kl && !memcmp(dk[j], kw, kl))
                            kind = j;
                    dobj = 0;
                    if (kind >= 0 && c->mem) {
                        dobj = dobj_index(c, (uint32_t)kind, w1, w2,
                                          ob < n_fobj && fobj[ob].path ? &fobj[ob] : NULL);
                        if (!dobj)
                            goto fail;
                    } else if (kind < 0 && (kl != 1 || *kw != '-')) {
                        goto bad;
                    }
                }
                op = access_op(acc, al);
                level = served_level(srv, sl);
                tlb = tll == 7 && !memcmp(tl, "tlbmiss", 7);
                if (op < 0 || (op != PERFDATA_OP_NA && level < 0))
                    goto bad;
                memset(&smp, 0, sizeof smp);
                smp.data_src = perfdata_data_src(op, level, tlb);
                smp.weight = lat;
                smp.dobj = dobj;
                smp.n_chain = 0;
                while (smp.n_chain < sizeof chain / sizeof chain[0]) {
                    char *e;
                    unsigned long long a;
                    while (*p == ' ')
                        p++;
                    if (!*p || *p == '\n')
                        break;
                    a = strtoull(p, &e, 16);
                    if (e == p)
                        goto bad;
                    chain[smp.n_chain++] = a;
                    p = e;
                }
                smp.event = (unsigned)s;
                smp.ip = ip;
                smp.addr = addr;
                smp.time = ns;
                smp.period = c->specs[s].period;
                smp.pid = pid;
                smp.tid = lwp > 0 ? (uint32_t)lwp : pid;
                smp.cpu = (uint32_t)core;
                smp.chain = chain;
                for (i = 0; i < n_comm_tids && comm_tids[i] != smp.tid; i++)
                    ;
                if (i == n_comm_tids && n_comm_tids < sizeof comm_tids / sizeof comm_tids[0]) {
                    /* a thread's name, before its first sample */
                    comm_tids[n_comm_tids++] = smp.tid;
                    if (smp.tid != pid && perfdata_write_comm(w, pid, smp.tid, 0, comm) != 0)
                        goto fail;
                }
                if (perfdata_write_sample(w, &smp) != 0)
                    goto fail;
                c->written++;
            }
        }
        if (pass == 0 && perfdata_write_comm(w, pid, pid, 0, comm) != 0)
            goto fail;
        for (t = 0; pass == 1 && t < n_tm; t++)
            if (perfdata_write_mmap(w, pid, pid, tm[t].ns, tm[t].start, tm[t].end - tm[t].start + 1,
                                    tm[t].off, tm[t].path) != 0)
                goto fail;
    }
    free(tm);
    for (t = 0; t < n_fobj; t++)
        free(fobj[t].path);
    free(fobj);
    return 0;
bad:
    fprintf(stderr, "hpm record: %s: a malformed sample record: %.*s\n", path, (int)line_len,
            line);
    c->bad = 1;
fail:
    free(tm);
    for (t = 0; t < n_fobj; t++)
        free(fobj[t].path);
    free(fobj);
    return -1;
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
    for (k = 0; k < c->n_files; k++) {
        struct hpm_file_map m;
        char err[512];
        int rc;
        if (!c->children && c->files[k].pid != c->main_pid)
            continue;
        if (hpm_file_map(c->files[k].path, (size_t)1 << 34, NULL, NULL, &m, err, sizeof err) !=
            0) {
            fprintf(stderr, "hpm record: cannot read %s\n", err);
            free(w.cmdline);
            free(w.sample_dobj);
            return -1;
        }
        rc = write_file(c, &w, c->files[k].path, m.data, m.len);
        hpm_file_unmap(&m);
        if (rc != 0) {
            free(w.cmdline);
            free(w.sample_dobj);
            return -1;
        }
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

static int after_run(const char *dir, uint64_t main_pid, int children, void *ctx)
{
    struct record_ctx *c = ctx;
    size_t i;
    unsigned s;
    int rc = -1;
    /* in the folder scan's order: the file does not depend on the
     * directory's */
    if (vpmu_files_list(dir, &c->files, &c->n_files) != 0) {
        fprintf(stderr, "hpm record: cannot read the tool's output in %s: %s\n", dir,
                strerror(errno));
        return -1;
    }
    c->main_pid = main_pid;
    c->children = children;
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
    vpmu_files_free(c->files, c->n_files);
    c->files = NULL;
    c->n_files = 0;
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
    char interleave_arg[48];
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
    cargv = calloc((size_t)(argc - first) + 14, sizeof *cargv);
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
