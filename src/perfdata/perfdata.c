/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * perfdata.c - writing and reading the perf.data subset of perfdata.h.
 *
 * Layout written (all little endian, as perf's own files on x86):
 *   0                     struct file_header (104 bytes)
 *   104                   ids: one u64 per event (event i has id i + 1)
 *   104 + 8n              attrs: n x (struct perf_event_attr, section of its id)
 *   data_start            the records
 *   data_start + size     the feature sections' table (one section per
 *                         feature bit set, in bit order), then their contents
 * perf finds a sample's event by its PERF_SAMPLE_ID; every attr has the same
 * sample_type, so the id's position is the same for all (perf requires it).
 */
#define _POSIX_C_SOURCE 200809L
#include "perfdata.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#define PERF_MAGIC2 0x32454c4946524550ULL /* "PERFILE2" */

/* perf's header feature bits (tools/perf/util/header.h) */
enum { FEAT_NRCPUS = 7, FEAT_CMDLINE = 11, FEAT_EVENT_DESC = 12, FEAT_BITS = 256 };

struct file_section {
    uint64_t offset, size;
};

struct file_header {
    uint64_t magic, size, attr_size;
    struct file_section attrs, data, event_types;
    uint64_t features[FEAT_BITS / 64];
};

#define SAMPLE_TYPE                                                                          \
    (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | \
     PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
#define SAMPLE_TYPE_MEM (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC)
/* sample_id_all's fields of COMM and MMAP records: pid/tid, time, id, cpu */
#define ID_ALL_SIZE 32

/* ---------------------------------------------------------------- writer */

static void put(struct perfdata_writer *w, const void *p, size_t n)
{
    if (!w->failed && n && fwrite(p, 1, n, w->f) != n)
        w->failed = 1;
}

static void put64(struct perfdata_writer *w, uint64_t v)
{
    put(w, &v, 8);
}

static void put32(struct perfdata_writer *w, uint32_t v)
{
    put(w, &v, 4);
}

static void record_header(struct perfdata_writer *w, uint32_t type, uint16_t misc, size_t size)
{
    struct perf_event_header h = {type, misc, (uint16_t)size};
    put(w, &h, sizeof h);
    w->data_size += size;
}

/* A string of a record, NUL-terminated and padded to 8 bytes. */
static size_t padded8(const char *s)
{
    return (strlen(s) + 1 + 7) & ~(size_t)7;
}

static void put_padded(struct perfdata_writer *w, const char *s, size_t padded)
{
    static const char zero[64];
    size_t l = strlen(s), pad = padded - l;
    put(w, s, l);
    while (pad) {
        size_t k = pad > sizeof zero ? sizeof zero : pad;
        put(w, zero, k);
        pad -= k;
    }
}

static void fill_attr(struct perf_event_attr *a, const struct perfdata_event *e, int first,
                      unsigned flags)
{
    memset(a, 0, sizeof *a);
    a->type = PERF_TYPE_RAW;
    a->size = sizeof *a;
    a->config = e->config;
    a->sample_period = e->period;
    a->sample_type = SAMPLE_TYPE | (flags & PERFDATA_MEM ? SAMPLE_TYPE_MEM : 0);
    /* a library mapped after a dlclose at the same address: perf keeps
     * records without a time ahead of every sample, so the later MMAP
     * would name the earlier library's samples */
    a->sample_id_all = 1;
    a->exclude_kernel = 1;
    a->exclude_hv = 1;
    a->comm = first; /* the events of the run as perf record sets them */
    a->mmap = first;
    a->precise_ip = 3; /* zero skid: the sample's IP is the event's instruction */
}

int perfdata_write_begin(struct perfdata_writer *w, FILE *f, const struct perfdata_event *ev,
                         unsigned n_events, unsigned cpus, char *const *argv, int argc,
                         unsigned flags)
{
    struct file_header h;
    unsigned i;
    int k;
    size_t at = 0;
    memset(w, 0, sizeof *w);
    if (n_events == 0 || n_events > PERFDATA_MAX_EVENTS)
        return -1;
    w->f = f;
    w->n_events = n_events;
    w->flags = flags;
    memcpy(w->events, ev, n_events * sizeof *ev);
    w->cpus = cpus;
    for (k = 0; k < argc; k++)
        w->cmdline_len += strlen(argv[k]) + 1;
    w->cmdline = malloc(w->cmdline_len + 1);
    if (!w->cmdline)
        return -1;
    for (k = 0; k < argc; k++) {
        size_t l = strlen(argv[k]) + 1;
        memcpy(w->cmdline + at, argv[k], l);
        at += l;
    }
    w->cmdline_n = (unsigned)argc;
    memset(&h, 0, sizeof h);
    put(w, &h, sizeof h); /* rewritten at the end */
    for (i = 0; i < n_events; i++)
        put64(w, i + 1);
    for (i = 0; i < n_events; i++) {
        struct perf_event_attr a;
        struct file_section ids = {sizeof h + 8 * (uint64_t)i, 8};
        fill_attr(&a, &ev[i], i == 0, flags);
        put(w, &a, sizeof a);
        put(w, &ids, sizeof ids);
    }
    w->data_start = sizeof h + 8 * (uint64_t)n_events +
                    (uint64_t)n_events * (sizeof(struct perf_event_attr) + sizeof(struct file_section));
    return w->failed ? -1 : 0;
}

/* sample_id_all's trailer: the fields of SAMPLE_TYPE among TID, TIME, ID,
 * STREAM_ID, CPU, IDENTIFIER, in that order (the first event's id) */
static void put_id_all(struct perfdata_writer *w, uint32_t pid, uint32_t tid, uint64_t time)
{
    put32(w, pid);
    put32(w, tid);
    put64(w, time);
    put64(w, 1);
    put32(w, 0);
    put32(w, 0);
}

int perfdata_write_comm(struct perfdata_writer *w, uint32_t pid, uint32_t tid, uint64_t time,
                        const char *comm)
{
    size_t pl = padded8(comm), size = sizeof(struct perf_event_header) + 8 + pl + ID_ALL_SIZE;
    if (size > 65535)
        return -1;
    record_header(w, PERF_RECORD_COMM, 0, size);
    put32(w, pid);
    put32(w, tid);
    put_padded(w, comm, pl);
    put_id_all(w, pid, tid, time);
    return w->failed ? -1 : 0;
}

int perfdata_write_mmap(struct perfdata_writer *w, uint32_t pid, uint32_t tid, uint64_t time,
                        uint64_t start, uint64_t len, uint64_t pgoff, const char *path)
{
    size_t pl = padded8(path), size = sizeof(struct perf_event_header) + 32 + pl + ID_ALL_SIZE;
    if (size > 65535)
        return -1;
    record_header(w, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER, size);
    put32(w, pid);
    put32(w, tid);
    put64(w, start);
    put64(w, len);
    put64(w, pgoff);
    put_padded(w, path, pl);
    put_id_all(w, pid, tid, time);
    return w->failed ? -1 : 0;
}

int perfdata_write_sample(struct perfdata_writer *w, const struct perfdata_sample *s)
{
    unsigned n = s->n_chain > PERFDATA_MAX_CHAIN ? PERFDATA_MAX_CHAIN : s->n_chain, i;
    /* ip, pid/tid, time, addr, id, cpu/res, period, nr, USER, ip, chain
     * [, weight, data_src] */
    size_t size = sizeof(struct perf_event_header) + 8 * 8 + 8 * (2 + (size_t)n) +
                  (w->flags & PERFDATA_MEM ? 16 : 0);
    if (s->event >= w->n_events)
        return -1;
    record_header(w, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP,
                  size);
    put64(w, s->ip);
    put32(w, s->pid);
    put32(w, s->tid);
    put64(w, s->time);
    put64(w, s->addr);
    put64(w, s->event + 1);
    put32(w, s->cpu);
    put32(w, 0);
    put64(w, s->period);
    put64(w, 2 + (uint64_t)n);
    put64(w, PERF_CONTEXT_USER);
    put64(w, s->ip);
    for (i = 0; i < n; i++)
        put64(w, s->chain[i]);
    if (w->flags & PERFDATA_MEM) {
        put64(w, s->weight);
        put64(w, s->data_src);
        if (w->n_sample_dobj == w->cap_sample_dobj) {
            size_t cap = w->cap_sample_dobj ? 2 * w->cap_sample_dobj : 4096;
            uint32_t *n2 = realloc(w->sample_dobj, cap * sizeof *n2);
            if (!n2) {
                w->failed = 1;
                return -1;
            }
            w->sample_dobj = n2;
            w->cap_sample_dobj = cap;
        }
        w->sample_dobj[w->n_sample_dobj++] = s->dobj;
    }
    return w->failed ? -1 : 0;
}

uint64_t perfdata_data_src(int op, int level, int tlb_miss)
{
    static const uint64_t lvl[4] = {PERF_MEM_LVL_L1, PERF_MEM_LVL_L2, PERF_MEM_LVL_L3,
                                    PERF_MEM_LVL_LOC_RAM};
    static const uint64_t num[4] = {PERF_MEM_LVLNUM_L1, PERF_MEM_LVLNUM_L2, PERF_MEM_LVLNUM_L3,
                                    PERF_MEM_LVLNUM_RAM};
    static const uint64_t ops[4] = {PERF_MEM_OP_NA, PERF_MEM_OP_LOAD, PERF_MEM_OP_STORE,
                                    PERF_MEM_OP_EXEC};
    uint64_t v = PERF_MEM_S(SNOOP, NA) | PERF_MEM_S(LOCK, NA);
    v |= (op >= 0 && op < 4 ? ops[op] : PERF_MEM_OP_NA) << PERF_MEM_OP_SHIFT;
    if (op <= PERFDATA_OP_NA || op > PERFDATA_OP_EXEC || level < 0 || level > 3)
        return v | PERF_MEM_S(LVL, NA) | PERF_MEM_S(LVLNUM, NA) | PERF_MEM_S(TLB, NA);
    v |= (lvl[level] | PERF_MEM_LVL_HIT) << PERF_MEM_LVL_SHIFT;
    v |= num[level] << PERF_MEM_LVLNUM_SHIFT;
    v |= ((tlb_miss ? PERF_MEM_TLB_MISS : PERF_MEM_TLB_HIT) | PERF_MEM_TLB_L1) << PERF_MEM_TLB_SHIFT;
    return v;
}

const char *perfdata_data_src_level(uint64_t d)
{
    switch (d >> PERF_MEM_LVLNUM_SHIFT & 0xf) {
    case PERF_MEM_LVLNUM_L1: return "L1";
    case PERF_MEM_LVLNUM_L2: return "L2";
    case PERF_MEM_LVLNUM_L3: return "L3";
    case PERF_MEM_LVLNUM_LFB: return "LFB";
    case PERF_MEM_LVLNUM_RAM: return "RAM";
    default: break;
    }
    /* files of older kernels: mem_lvl alone */
    d >>= PERF_MEM_LVL_SHIFT;
    if (d & PERF_MEM_LVL_L1)
        return "L1";
    if (d & PERF_MEM_LVL_LFB)
        return "LFB";
    if (d & PERF_MEM_LVL_L2)
        return "L2";
    if (d & PERF_MEM_LVL_L3)
        return "L3";
    if (d & (PERF_MEM_LVL_LOC_RAM | PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2))
        return "RAM";
    return "-";
}

const char *perfdata_data_src_op(uint64_t d)
{
    d >>= PERF_MEM_OP_SHIFT;
    if (d & PERF_MEM_OP_LOAD)
        return "load";
    if (d & PERF_MEM_OP_STORE)
        return "store";
    if (d & PERF_MEM_OP_EXEC)
        return "exec";
    return "-";
}

int perfdata_data_src_tlb_miss(uint64_t d)
{
    d = d >> PERF_MEM_TLB_SHIFT & 0x7f;
    if (d & PERF_MEM_TLB_MISS)
        return 1;
    if (d & PERF_MEM_TLB_HIT)
        return 0;
    return -1;
}

/* perf's header string: u32 length (padded to 64), the string, NULs */
static size_t hstr_size(const char *s)
{
    return 4 + ((strlen(s) + 1 + 63) & ~(size_t)63);
}

static void put_hstr(struct perfdata_writer *w, const char *s)
{
    size_t l = hstr_size(s) - 4;
    put32(w, (uint32_t)l);
    put_padded(w, s, l);
}

void perfdata_write_dobjs(struct perfdata_writer *w, const struct perfdata_dobj *o, size_t n)
{
    w->dobjs = o;
    w->n_dobjs = n;
}

/* The hpm data section: "HPMD", u32 n, per object u32 kind, u32 0, u64
 * where, from, start, end, pgoff, u32 path size (padded to 8, with its
 * NUL), u32 0, the path; then u64 samples and a u32 per sample, padded to
 * 8 bytes. */
#define HPMD_MAGIC 0x444d5048u

static size_t dobjs_size(const struct perfdata_writer *w)
{
    size_t n = 8 + 8 + ((4 * w->n_sample_dobj + 7) & ~(size_t)7), i;
    for (i = 0; i < w->n_dobjs; i++)
        n += 8 + 40 + 8 + padded8(w->dobjs[i].path ? w->dobjs[i].path : "");
    return n;
}

static void put_dobjs(struct perfdata_writer *w)
{
    size_t i;
    put32(w, HPMD_MAGIC);
    put32(w, (uint32_t)w->n_dobjs);
    for (i = 0; i < w->n_dobjs; i++) {
        const struct perfdata_dobj *d = &w->dobjs[i];
        const char *path = d->path ? d->path : "";
        size_t pl = padded8(path);
        put32(w, d->kind);
        put32(w, 0);
        put64(w, d->where);
        put64(w, d->from);
        put64(w, d->start);
        put64(w, d->end);
        put64(w, d->pgoff);
        put32(w, (uint32_t)pl);
        put32(w, 0);
        put_padded(w, path, pl);
    }
    put64(w, w->n_sample_dobj);
    put(w, w->sample_dobj, 4 * w->n_sample_dobj);
    if (w->n_sample_dobj % 2)
        put32(w, 0);
}

int perfdata_write_end(struct perfdata_writer *w)
{
    struct file_header h;
    struct file_section sec[4];
    int mem = (w->flags & PERFDATA_MEM) != 0;
    uint64_t at = w->data_start + w->data_size + (3 + (uint64_t)mem) * sizeof sec[0];
    size_t desc = 8, cmd = 4;
    unsigned i;
    const char *p;
    for (i = 0; i < w->n_events; i++)
        desc += sizeof(struct perf_event_attr) + 4 + hstr_size(w->events[i].name) + 8;
    for (p = w->cmdline, i = 0; i < w->cmdline_n; i++, p += strlen(p) + 1)
        cmd += hstr_size(p);
    /* in bit order: NRCPUS, CMDLINE, EVENT_DESC */
    sec[0].offset = at;
    sec[0].size = 8;
    sec[1].offset = sec[0].offset + sec[0].size;
    sec[1].size = cmd;
    sec[2].offset = sec[1].offset + sec[1].size;
    sec[2].size = desc;
    sec[3].offset = sec[2].offset + sec[2].size;
    sec[3].size = mem ? dobjs_size(w) : 0;
    put(w, sec, (3 + (size_t)mem) * sizeof sec[0]);
    put32(w, w->cpus); /* online */
    put32(w, w->cpus); /* available */
    put32(w, w->cmdline_n);
    for (p = w->cmdline, i = 0; i < w->cmdline_n; i++, p += strlen(p) + 1)
        put_hstr(w, p);
    put32(w, w->n_events);
    put32(w, sizeof(struct perf_event_attr));
    for (i = 0; i < w->n_events; i++) {
        struct perf_event_attr a;
        fill_attr(&a, &w->events[i], i == 0, w->flags);
        put(w, &a, sizeof a);
        put32(w, 1);
        put_hstr(w, w->events[i].name);
        put64(w, i + 1);
    }
    if (mem)
        put_dobjs(w);
    memset(&h, 0, sizeof h);
    h.magic = PERF_MAGIC2;
    h.size = sizeof h;
    h.attr_size = sizeof(struct perf_event_attr) + sizeof(struct file_section);
    h.attrs.offset = sizeof h + 8 * (uint64_t)w->n_events;
    h.attrs.size = (uint64_t)w->n_events * h.attr_size;
    h.data.offset = w->data_start;
    h.data.size = w->data_size;
    h.features[0] = (1ULL << FEAT_NRCPUS) | (1ULL << FEAT_CMDLINE) | (1ULL << FEAT_EVENT_DESC);
    if (mem)
        h.features[PERFDATA_FEAT_HPM_DATA / 64] |= 1ULL << (PERFDATA_FEAT_HPM_DATA % 64);
    if (!w->failed && (fflush(w->f) != 0 || fseek(w->f, 0, SEEK_SET) != 0))
        w->failed = 1;
    put(w, &h, sizeof h);
    if (!w->failed && fflush(w->f) != 0)
        w->failed = 1;
    free(w->cmdline);
    w->cmdline = NULL;
    free(w->sample_dobj);
    w->sample_dobj = NULL;
    return w->failed ? -1 : 0;
}

/* ---------------------------------------------------------------- reader */

#define READ_TYPES                                                                     \
    (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |    \
     PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |      \
     PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC)

struct cursor {
    const unsigned char *p;
    size_t n, at;
};

static int get(struct cursor *c, void *out, size_t n)
{
    if (c->n - c->at < n)
        return -1;
    memcpy(out, c->p + c->at, n);
    c->at += n;
    return 0;
}

static int get64(struct cursor *c, uint64_t *v)
{
    return get(c, v, 8);
}

/* A NUL-terminated string within [at, end) of the buffer, copied. */
static char *dup_str(const unsigned char *p, size_t n)
{
    size_t l = strnlen((const char *)p, n);
    char *s = malloc(l + 1);
    if (s) {
        memcpy(s, p, l);
        s[l] = 0;
    }
    return s;
}

static int fail(char *err, size_t errlen, const char *why)
{
    snprintf(err, errlen, "%s", why);
    return -1;
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    void *n;
    size_t c = *cap ? *cap : 16;
    if (need <= *cap)
        return 0;
    while (c < need)
        c *= 2;
    n = realloc(*arr, c * elem);
    if (!n)
        return -1;
    *arr = n;
    *cap = c;
    return 0;
}

static int event_of_id(const struct perfdata_file *pf, uint64_t id)
{
    unsigned i;
    for (i = 0; i < pf->n_events; i++)
        if (pf->ids[i] == id)
            return (int)i;
    return pf->n_events == 1 ? 0 : -1;
}

static int read_sample(struct perfdata_file *pf, struct cursor *c, uint64_t type,
                       size_t *cap_s, size_t *cap_c)
{
    struct perfdata_sample s;
    uint64_t v, id = 0, nr = 0, k;
    uint32_t pt[2];
    int ev;
    memset(&s, 0, sizeof s);
    if ((type & PERF_SAMPLE_IDENTIFIER) && get64(c, &id))
        return -1;
    if ((type & PERF_SAMPLE_IP) && get64(c, &s.ip))
        return -1;
    if (type & PERF_SAMPLE_TID) {
        if (get(c, pt, 8))
            return -1;
        s.pid = pt[0];
        s.tid = pt[1];
    }
    if ((type & PERF_SAMPLE_TIME) && get64(c, &s.time))
        return -1;
    if ((type & PERF_SAMPLE_ADDR) && get64(c, &s.addr))
        return -1;
    if ((type & PERF_SAMPLE_ID) && get64(c, &id))
        return -1;
    if ((type & PERF_SAMPLE_STREAM_ID) && get64(c, &v))
        return -1;
    if (type & PERF_SAMPLE_CPU) {
        if (get(c, pt, 8))
            return -1;
        s.cpu = pt[0];
    }
    if ((type & PERF_SAMPLE_PERIOD) && get64(c, &s.period))
        return -1;
    if (type & PERF_SAMPLE_CALLCHAIN) {
        if (get64(c, &nr) || nr > (c->n - c->at) / 8)
            return -1;
        if (grow((void **)&pf->chain_store, cap_c, pf->n_chain_store + nr, 8))
            return -1;
        for (k = 0; k < nr; k++)
            (void)get64(c, &pf->chain_store[pf->n_chain_store + k]);
    }
    if ((type & PERF_SAMPLE_WEIGHT) && get64(c, &s.weight))
        return -1;
    if ((type & PERF_SAMPLE_DATA_SRC) && get64(c, &s.data_src))
        return -1;
    ev = event_of_id(pf, id);
    if (ev < 0)
        return -1;
    s.event = (unsigned)ev;
    s.n_chain = (unsigned)nr;
    /* chains are attached after reading: chain_store may move */
    s.chain = (const uint64_t *)(uintptr_t)pf->n_chain_store;
    pf->n_chain_store += nr;
    if (grow((void **)&pf->samples, cap_s, pf->n_samples + 1, sizeof s))
        return -1;
    pf->samples[pf->n_samples++] = s;
    return 0;
}

/* HEADER_EVENT_DESC: names for the events, matched by id. */
static void read_event_desc(struct perfdata_file *pf, struct cursor c)
{
    uint32_t nr, asz, i, nids, slen;
    uint64_t id;
    if (get(&c, &nr, 4) || get(&c, &asz, 4))
        return;
    for (i = 0; i < nr; i++) {
        size_t name_at;
        uint32_t k;
        int ev;
        if (c.n - c.at < asz)
            return;
        c.at += asz;
        if (get(&c, &nids, 4) || get(&c, &slen, 4) || c.n - c.at < slen)
            return;
        name_at = c.at;
        c.at += slen;
        for (k = 0; k < nids; k++) {
            if (get64(&c, &id))
                return;
            ev = event_of_id(pf, id);
            if (ev >= 0 && (pf->n_events == 1 || pf->ids[ev] == id)) {
                size_t l = strnlen((const char *)c.p + name_at, slen);
                if (l >= sizeof pf->names[0])
                    l = sizeof pf->names[0] - 1;
                memcpy(pf->names[ev], c.p + name_at, l);
                pf->names[ev][l] = 0;
            }
        }
    }
}

/* The hpm data section (put_dobjs); a malformed one is ignored (the
 * samples stay without objects). */
static void read_dobjs(struct perfdata_file *pf, struct cursor c)
{
    uint32_t magic, n, i, pl, pad;
    uint64_t ns, k;
    struct perfdata_dobj *t;
    if (get(&c, &magic, 4) || magic != HPMD_MAGIC || get(&c, &n, 4) || n > (c.n - c.at) / 56)
        return;
    t = calloc(n ? n : 1, sizeof *t);
    if (!t)
        return;
    for (i = 0; i < n; i++) {
        if (get(&c, &t[i].kind, 4) || get(&c, &pad, 4) || get64(&c, &t[i].where) ||
            get64(&c, &t[i].from) || get64(&c, &t[i].start) || get64(&c, &t[i].end) ||
            get64(&c, &t[i].pgoff) || get(&c, &pl, 4) || get(&c, &pad, 4) || pl > c.n - c.at)
            goto bad;
        if (pl) {
            t[i].path = dup_str(c.p + c.at, pl);
            if (!t[i].path)
                goto bad;
            if (!t[i].path[0]) {
                free(t[i].path);
                t[i].path = NULL;
            }
        }
        c.at += pl;
    }
    if (get64(&c, &ns) || ns != pf->n_samples || ns > (c.n - c.at) / 4)
        goto bad;
    for (k = 0; k < ns; k++) {
        uint32_t d = 0;
        (void)get(&c, &d, 4);
        pf->samples[k].dobj = d <= n ? d : 0;
    }
    pf->dobjs = t;
    pf->n_dobjs = n;
    return;
bad:
    for (i = 0; i < n; i++)
        free(t[i].path);
    free(t);
    for (k = 0; k < pf->n_samples; k++)
        pf->samples[k].dobj = 0;
}

int perfdata_read(const unsigned char *buf, size_t len, struct perfdata_file *pf, char *err,
                  size_t errlen)
{
    struct file_header h;
    struct cursor c = {buf, len, 0};
    size_t cap_s = 0, cap_c = 0, cap_m = 0, cap_cm = 0, i;
    uint64_t type = 0, at, end, flags0 = 0;
    unsigned bit, nfeat = 0;
    size_t id_all = 0, id_time = 0; /* sample_id_all: trailer size, time's offset in it */

    memset(pf, 0, sizeof *pf);
    if (get(&c, &h, sizeof h))
        return fail(err, errlen, "shorter than a perf.data header");
    if (h.magic != PERF_MAGIC2)
        return fail(err, errlen, "not a perf.data file (no PERFILE2 magic)");
    if (h.size != sizeof h || h.attr_size < PERF_ATTR_SIZE_VER0 + sizeof(struct file_section) ||
        h.attr_size > 4096)
        return fail(err, errlen, "perf.data header or attr size not supported");
    if (h.attrs.size % h.attr_size || h.attrs.offset > len || h.attrs.size > len - h.attrs.offset)
        return fail(err, errlen, "perf.data attrs section out of the file");
    pf->n_events = (unsigned)(h.attrs.size / h.attr_size);
    if (pf->n_events == 0 || pf->n_events > PERFDATA_MAX_EVENTS)
        return fail(err, errlen, "perf.data: no event, or too many");
    for (i = 0; i < pf->n_events; i++) {
        const unsigned char *a = buf + h.attrs.offset + i * h.attr_size;
        struct file_section ids;
        uint64_t st, config;
        memcpy(&st, a + offsetof(struct perf_event_attr, sample_type), 8);
        memcpy(&config, a + offsetof(struct perf_event_attr, config), 8);
        memcpy(&ids, a + h.attr_size - sizeof ids, sizeof ids);
        if (i == 0) {
            type = st;
            /* the flag bits follow read_format; sample_id_all is bit 18 */
            memcpy(&flags0, a + offsetof(struct perf_event_attr, read_format) + 8, 8);
        }
        if (st != type)
            return fail(err, errlen, "perf.data: events with different sample types");
        if (ids.size >= 8 && ids.offset <= len && len - ids.offset >= 8)
            memcpy(&pf->ids[i], buf + ids.offset, 8);
        snprintf(pf->names[i], sizeof pf->names[i], "raw 0x%llx", (unsigned long long)config);
    }
    if (type & ~(uint64_t)READ_TYPES)
        return fail(err, errlen, "perf.data: sample fields this reader does not know "
                                 "(only IP, TID, TIME, ADDR, ID, CPU, PERIOD, CALLCHAIN, WEIGHT, DATA_SRC)");
    pf->sample_type = type;
    if (flags0 >> 18 & 1) {
        id_time = type & PERF_SAMPLE_TID ? 8 : 0;
        id_all = 8 * (size_t)(!!(type & PERF_SAMPLE_TID) + !!(type & PERF_SAMPLE_TIME) +
                              !!(type & PERF_SAMPLE_ID) + !!(type & PERF_SAMPLE_STREAM_ID) +
                              !!(type & PERF_SAMPLE_CPU) + !!(type & PERF_SAMPLE_IDENTIFIER));
        if (!(type & PERF_SAMPLE_TIME))
            id_all = 0; /* no time to read */
    }
    if (h.data.offset > len || h.data.size > len - h.data.offset)
        return fail(err, errlen, "perf.data data section out of the file");
    at = h.data.offset;
    end = h.data.offset + h.data.size;
    while (at < end) {
        struct perf_event_header eh;
        struct cursor r;
        if (end - at < sizeof eh)
            goto bad;
        memcpy(&eh, buf + at, sizeof eh);
        if (eh.size < sizeof eh || eh.size > end - at)
            goto bad;
        r.p = buf + at + sizeof eh;
        r.n = eh.size - sizeof eh;
        r.at = 0;
        if (eh.type == PERF_RECORD_SAMPLE) {
            if (read_sample(pf, &r, type, &cap_s, &cap_c))
                goto bad;
        } else if (eh.type == PERF_RECORD_COMM) {
            uint32_t pt[2];
            if (get(&r, pt, 8) || grow((void **)&pf->comms, &cap_cm, pf->n_comms + 1,
                                       sizeof *pf->comms))
                goto bad;
            pf->comms[pf->n_comms].pid = pt[0];
            pf->comms[pf->n_comms].tid = pt[1];
            pf->comms[pf->n_comms].comm = dup_str(r.p + r.at, r.n - r.at);
            if (!pf->comms[pf->n_comms++].comm)
                goto bad;
        } else if (eh.type == PERF_RECORD_MMAP || eh.type == PERF_RECORD_MMAP2) {
            uint32_t pt[2];
            struct perfdata_mmap m;
            if (get(&r, pt, 8) || get64(&r, &m.start) || get64(&r, &m.len) ||
                get64(&r, &m.pgoff))
                goto bad;
            /* MMAP2: maj, min, ino, ino_generation (or a build id), prot, flags */
            if (eh.type == PERF_RECORD_MMAP2 && r.n - r.at < 32)
                goto bad;
            if (eh.type == PERF_RECORD_MMAP2)
                r.at += 32;
            m.pid = pt[0];
            m.time = 0;
            if (id_all && r.n - r.at >= id_all)
                memcpy(&m.time, r.p + r.n - id_all + id_time, 8);
            m.path = dup_str(r.p + r.at, r.n - r.at - (id_all && r.n - r.at >= id_all ? id_all : 0));
            if (!m.path || grow((void **)&pf->mmaps, &cap_m, pf->n_mmaps + 1, sizeof m)) {
                free(m.path);
                goto bad;
            }
            pf->mmaps[pf->n_mmaps++] = m;
        }
        at += eh.size;
    }
    for (i = 0; i < pf->n_samples; i++)
        pf->samples[i].chain =
            pf->chain_store ? pf->chain_store + (uintptr_t)pf->samples[i].chain : NULL;
    /* features: the table follows the data */
    for (bit = 0; bit < FEAT_BITS; bit++) {
        struct file_section s;
        if (!(h.features[bit / 64] >> (bit % 64) & 1))
            continue;
        at = end + (uint64_t)nfeat++ * sizeof s;
        if (at > len || len - at < sizeof s)
            break;
        memcpy(&s, buf + at, sizeof s);
        if (bit == FEAT_EVENT_DESC && s.offset <= len && s.size <= len - s.offset) {
            struct cursor d = {buf + s.offset, s.size, 0};
            read_event_desc(pf, d);
        }
        if (bit == PERFDATA_FEAT_HPM_DATA && s.offset <= len && s.size <= len - s.offset) {
            struct cursor d = {buf + s.offset, s.size, 0};
            read_dobjs(pf, d);
        }
    }
    return 0;
bad:
    {
        char why[120];
        snprintf(why, sizeof why, "perf.data: malformed record at offset %llu",
                 (unsigned long long)at);
        perfdata_free(pf);
        return fail(err, errlen, why);
    }
}

void perfdata_free(struct perfdata_file *pf)
{
    size_t i;
    for (i = 0; i < pf->n_mmaps; i++)
        free(pf->mmaps[i].path);
    for (i = 0; i < pf->n_comms; i++)
        free(pf->comms[i].comm);
    free(pf->mmaps);
    free(pf->comms);
    free(pf->samples);
    free(pf->chain_store);
    for (i = 0; i < pf->n_dobjs; i++)
        free(pf->dobjs[i].path);
    free(pf->dobjs);
    memset(pf, 0, sizeof *pf);
}
