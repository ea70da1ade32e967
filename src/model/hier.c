/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hier.c - the cache hierarchy of a node (L1I/L1D per core, L2 per core or
 * shared, L3 shared or per core, DDR) and the L2 stream prefetcher.
 * README.md describes the rules; model.h the cachegrind correspondence.
 */
#include "model_internal.h"

#define HPM__MAX_CORES 1024u
#define HPM__MAX_STREAMS 64u
#define HPM__MAX_DEPTH 64u
#define HPM__COH_LINES_CAP 1024u /* table slots, a power of two */
/* words per contended line and core (coh_mask): read mask, write mask,
 * coherence misses, copies its stores invalidated, the bytes other cores
 * stored since its last miss, its misses whose bytes were among them */
#define HPM__COH_CORE_WORDS 6u
#define COH_SOLE_NONE 0xffffffffu
#define COH_SOLE_MANY 0xfffffffeu

struct hpm_stream {
    uint64_t last;   /* last demanded line */
    uint64_t pf_end; /* last line prefetched (== last while training) */
    uint64_t stamp;  /* LRU among streams; 0 = entry unused */
};

struct hpm_pf {
    struct hpm_prefetch_params p;
    uint64_t clock;
    struct hpm_prefetch_stats st;
    struct hpm_stream s[HPM__MAX_STREAMS];
    /* The last demand left stream again - 1 (0: none yet) with its line
     * as the stream's last, and the streams before it as the demand's scan
     * found them (no match, and nothing of theirs moved): a demand of that
     * line next would scan to that stream and find its line there, so it
     * goes there at once. An L2 line serves several L1 lines in a row
     * (four on BG/P), and a line two cores pass back and forth misses in
     * one core's L1 again and again. */
    uint32_t again;
};

struct hpm_hier {
    struct hpm_hier_params p;
    /* per core: [0] L1I, [1] L1D, [2] L2, [3] L3 (NULL when absent) */
    struct hpm_cache *(*cache)[4];
    struct hpm_pf **pf; /* per core: prefetcher of its L2, or NULL */
    struct hpm_hier_core_stats *cs;
    struct hpm_hier_mem_stats mem;
    /* coherence (README.md, "Coherence"): on when the protocol is not
     * NONE and there is more than one core; per core its counts and the
     * generation of its L1D (hpm_hier_coh_gen) */
    uint32_t coh_on;
    /* The one core that has made data accesses so far (COH_SOLE_NONE:
     * none yet, COH_SOLE_MANY: more than one). While one core alone has,
     * no other L1D holds a line and its own holds no marker, so its
     * accesses need no coherence work: a single-threaded program costs
     * and counts what it does on a private node. */
    uint32_t coh_sole;
    struct hpm_coh_stats *coh;
    uint64_t *coh_gen;
    /* The sharers summary (nodes of up to 64 cores; NULL otherwise): per
     * hash of a line, the cores whose L1D may hold a line of that hash, a
     * superset (a bit is set at each access, cleared only by a rebuild from
     * the L1Ds' tags once coh_sum_new bits were set since the last). A
     * request looks up only the cores it names: most find none. */
    uint64_t *coh_sum;
    /* per core, an upper bound of the markers in its L1D (exact after a
     * rebuild; a fill that replaces one does not lower it): at 0 a miss
     * needs no marker lookup */
    uint64_t *coh_markers;
    uint32_t coh_sum_shift; /* 64 - log2(entries): Fibonacci hashing */
    /* The contended lines (hpm_hier_coh_line; with the summary only): a
     * line enters at its first invalidation or coherence miss, while fewer
     * than HPM__COH_LINES_MAX are in; from then on each access of it that
     * reaches the coherent path adds its bytes to its core's read or
     * write mask (coh_mask: per line, per core, HPM__COH_CORE_WORDS words:
     * read mask, write mask, its coherence misses, its invalidations). */
    struct hpm_coh_line *coh_lines;
    uint64_t *coh_mask;
    uint32_t coh_granule_bits; /* log2 of bytes per mask bit (every core's L1D alike) */
    uint32_t coh_nlines;
    uint64_t coh_lines_dropped;
    /* a bit per hash (12 bits) of the lines in the table: most accesses of
     * the coherent path are of other lines, and a word of 512 bytes that
     * stay in the host's L1 answers them instead of the table's slot */
    uint64_t coh_line_bits[64];
    /* Coherence in modeled time (hpm_hier_coh_defer): the contended lines'
     * accesses take the private path when they are made, and the caller
     * replays them in the cores' time order (hpm_hier_coh_replay). Per
     * table slot, the cores that hold the line and the one that holds it
     * modified, as the replay leaves them: side by side (two arrays 8 KiB
     * apart put the replay's load of the owner behind its store of the
     * holders, 4K aliasing: a sixth of the replay's samples). */
    uint32_t coh_defer;
    void (*coh_line_new)(void *arg); /* hpm_hier_coh_defer's */
    void *coh_line_new_arg;
    struct coh_holders {
        uint64_t held, owner;
    } *coh_hold;
    uint64_t coh_sum_mask, coh_sum_new, coh_sum_limit;
};

struct layout {
    size_t cache, pf, cs, coh, gen, sum, lines, masks, held, pfs, caches, total;
    uint64_t sum_entries; /* 0: no sharers summary */
    size_t l1i, l1d, l2, l3; /* bytes per instance */
    uint32_t n_l2, n_l3;
};

static int present(const struct hpm_cache_params *c) { return c->size != 0; }

int hpm_hier_params_check(const struct hpm_hier_params *p)
{
    if (!p)
        return HPM_MODEL_ENULL;
    if (p->cores == 0 || p->cores > HPM__MAX_CORES)
        return HPM_MODEL_EPARAM;
    if (hpm_cache_params_check(&p->l1i) || hpm_cache_params_check(&p->l1d))
        return HPM_MODEL_EPARAM;
    if (present(&p->l2) && hpm_cache_params_check(&p->l2))
        return HPM_MODEL_EPARAM;
    if (present(&p->l3) && hpm_cache_params_check(&p->l3))
        return HPM_MODEL_EPARAM;
    if (p->prefetch.streams > HPM__MAX_STREAMS)
        return HPM_MODEL_EPARAM;
    if (p->coherence >= HPM_COH_COUNT)
        return HPM_MODEL_EPARAM;
    if (p->prefetch.streams &&
        (!present(&p->l2) || p->prefetch.depth == 0 || p->prefetch.depth > HPM__MAX_DEPTH))
        return HPM_MODEL_EPARAM;
    return HPM_MODEL_OK;
}

static int layout_of(const struct hpm_hier_params *p, struct layout *l)
{
    size_t n = p->cores;
    if (hpm_hier_params_check(p))
        return HPM_MODEL_EPARAM;
    l->l1i = hpm__cache_storage_size_hints(&p->l1i, HPM__HINTS_L1I);
    l->l1d = hpm_cache_storage_size(&p->l1d);
    l->l2 = present(&p->l2) ? hpm_cache_storage_size(&p->l2) : 0;
    l->l3 = present(&p->l3) ? hpm_cache_storage_size(&p->l3) : 0;
    l->n_l2 = !present(&p->l2) ? 0 : p->l2.shared ? 1 : p->cores;
    l->n_l3 = !present(&p->l3) ? 0 : p->l3.shared ? 1 : p->cores;
    l->cache = HPM__ALIGN8(sizeof(struct hpm_hier));
    l->pf = l->cache + HPM__ALIGN8(n * sizeof(struct hpm_cache *[4]));
    l->cs = l->pf + HPM__ALIGN8(n * sizeof(struct hpm_pf *));
    l->coh = l->cs + HPM__ALIGN8(n * sizeof(struct hpm_hier_core_stats));
    l->gen = l->coh + HPM__ALIGN8(n * sizeof(struct hpm_coh_stats));
    l->sum = l->gen + 2 * HPM__ALIGN8(n * sizeof(uint64_t)); /* gen, markers */
    l->sum_entries = 0;
    if (p->coherence != HPM_COH_NONE && n > 1 && n <= 64) {
        /* four entries per L1D line of the node, 1024 .. 2^18 */
        uint64_t want = 4 * n * (p->l1d.size / p->l1d.line);
        l->sum_entries = 1024;
        while (l->sum_entries < want && l->sum_entries < ((uint64_t)1 << 18))
            l->sum_entries <<= 1;
    }
    l->lines = l->sum + l->sum_entries * sizeof(uint64_t);
    l->masks = l->lines + (l->sum_entries ? HPM__COH_LINES_CAP * sizeof(struct hpm_coh_line) : 0);
    l->held = l->masks + (l->sum_entries ? (size_t)HPM__COH_LINES_CAP * n * HPM__COH_CORE_WORDS * sizeof(uint64_t) : 0);
    l->pfs = l->held + (l->sum_entries ? HPM__COH_LINES_CAP * sizeof(struct coh_holders) : 0);
    l->caches = l->pfs + (p->prefetch.streams ? l->n_l2 * HPM__ALIGN8(sizeof(struct hpm_pf)) : 0);
    l->total = l->caches + n * (l->l1i + l->l1d) + l->n_l2 * l->l2 + l->n_l3 * l->l3;
    return HPM_MODEL_OK;
}

size_t hpm_hier_storage_size(const struct hpm_hier_params *p)
{
    struct layout l;
    return layout_of(p, &l) ? 0 : l.total;
}

int hpm_hier_init(struct hpm_hier **out, const struct hpm_hier_params *p, void *storage,
                  size_t size)
{
    struct layout l;
    struct hpm_hier *h;
    char *base = (char *)storage, *at;
    struct hpm_cache *l2 = 0, *l3 = 0;
    struct hpm_pf *pf = 0;
    uint32_t i;
    if (!out || !p || !storage)
        return HPM_MODEL_ENULL;
    if (((uintptr_t)storage & 7u) != 0)
        return HPM_MODEL_EALIGN;
    if (layout_of(p, &l))
        return HPM_MODEL_EPARAM;
    if (size < l.total)
        return HPM_MODEL_ENOMEM;
    h = (struct hpm_hier *)storage;
    HPM__COPY(&h->p, p);
    h->cache = (struct hpm_cache *(*)[4])(base + l.cache);
    h->pf = (struct hpm_pf **)(base + l.pf);
    h->cs = (struct hpm_hier_core_stats *)(base + l.cs);
    hpm__zero(h->cs, p->cores * sizeof(struct hpm_hier_core_stats));
    hpm__zero(&h->mem, sizeof h->mem);
    h->coh = (struct hpm_coh_stats *)(base + l.coh);
    h->coh_gen = (uint64_t *)(base + l.gen);
    hpm__zero(h->coh, p->cores * sizeof(struct hpm_coh_stats));
    hpm__zero(h->coh_gen, p->cores * sizeof(uint64_t));
    h->coh_markers = (uint64_t *)(base + l.gen + HPM__ALIGN8(p->cores * sizeof(uint64_t)));
    hpm__zero(h->coh_markers, p->cores * sizeof(uint64_t));
    h->coh_on = p->coherence != HPM_COH_NONE && p->cores > 1;
    h->coh_sole = COH_SOLE_NONE;
    h->coh_sum = 0;
    h->coh_lines = 0;
    h->coh_mask = 0;
    h->coh_hold = 0;
    if (l.sum_entries) {
        h->coh_sum = (uint64_t *)(base + l.sum);
        hpm__zero(h->coh_sum, l.sum_entries * sizeof(uint64_t));
        h->coh_sum_mask = l.sum_entries - 1;
        h->coh_sum_shift = 64 - hpm__log2_64(l.sum_entries);
        h->coh_sum_new = 0;
        h->coh_sum_limit = l.sum_entries / 4;
        h->coh_lines = (struct hpm_coh_line *)(base + l.lines);
        h->coh_mask = (uint64_t *)(base + l.masks);
        hpm__zero(h->coh_lines, HPM__COH_LINES_CAP * sizeof(struct hpm_coh_line));
        hpm__zero(h->coh_mask, (size_t)HPM__COH_LINES_CAP * p->cores * HPM__COH_CORE_WORDS *
                                   sizeof(uint64_t));
        h->coh_hold = (struct coh_holders *)(base + l.held);
    }
    h->coh_defer = 0;
    h->coh_line_new = 0;
    h->coh_line_new_arg = 0;
    {
        uint32_t bits = hpm__log2_64(p->l1d.line);
        h->coh_granule_bits = bits > 6 ? bits - 6 : 0;
    }
    h->coh_nlines = 0;
    h->coh_lines_dropped = 0;
    hpm__zero(h->coh_line_bits, sizeof h->coh_line_bits);
    at = base + l.caches;
    for (i = 0; i < p->cores; i++) {
        hpm__cache_init_hints(&h->cache[i][0], &p->l1i, at, l.l1i, HPM__HINTS_L1I);
        at += l.l1i;
        hpm_cache_init(&h->cache[i][1], &p->l1d, at, l.l1d);
        at += l.l1d;
        if (l.n_l2 && (i == 0 || !p->l2.shared)) {
            hpm_cache_init(&l2, &p->l2, at, l.l2);
            at += l.l2;
            if (p->prefetch.streams) {
                pf = (struct hpm_pf *)(base + l.pfs) + (p->l2.shared ? 0 : i);
                hpm__zero(pf, sizeof *pf);
                HPM__COPY(&pf->p, &p->prefetch);
            }
        }
        if (l.n_l3 && (i == 0 || !p->l3.shared)) {
            hpm_cache_init(&l3, &p->l3, at, l.l3);
            at += l.l3;
        }
        h->cache[i][2] = l2;
        h->cache[i][3] = l3;
        h->pf[i] = pf;
    }
    *out = h;
    return HPM_MODEL_OK;
}

/* A dirty range [addr, addr+len) leaves chain[lvl-1]: mark it dirty in the
 * first lower level holding it, without touching LRU order; what no level
 * holds is written to DDR. */
static void writeback(struct hpm_hier *h, struct hpm_cache *const *chain, unsigned lvl,
                      uint64_t addr, uint64_t len)
{
    struct hpm_cache *c = 0;
    uint64_t line, first, last;
    while (lvl < 3 && !(c = chain[lvl]))
        lvl++;
    if (!c) {
        h->mem.ddr_bytes_written += len;
        return;
    }
    first = addr >> c->line_bits;
    last = (addr + len - 1) >> c->line_bits;
    for (line = first; line <= last; line++) {
        c->st.write_accesses++;
        if (!hpm__mark_dirty(c, line)) {
            uint64_t lo = line << c->line_bits, hi = lo + ((uint64_t)1 << c->line_bits);
            if (lo < addr)
                lo = addr;
            if (hi > addr + len)
                hi = addr + len;
            c->st.write_misses++;
            writeback(h, chain, lvl + 1, lo, hi - lo);
        }
    }
}

/* Access chain[lvl] with (addr, size); returns the number of lines missed. */
static unsigned ref_level(struct hpm_hier *h, struct hpm_cache *const *chain, unsigned lvl,
                          uint64_t addr, uint32_t size, unsigned write)
{
    struct hpm_cache *c = chain[lvl];
    uint64_t first, last, line, wb;
    unsigned missed = 0, r;
    hpm__line_span(c->line_bits, addr, size, &first, &last);
    for (line = first;; line++) {
        r = hpm__line_ref(c, line, write, &wb);
        if (r & 2)
            writeback(h, chain, lvl + 1, wb << c->line_bits, (uint64_t)1 << c->line_bits);
        missed += r & 1;
        if (line == last)
            break;
    }
    if (write) {
        c->st.write_accesses++;
        c->st.write_misses += missed != 0;
    } else {
        c->st.read_accesses++;
        c->st.read_misses += missed != 0;
    }
    return missed;
}

/* Fetch what a level below chain[lvl-1] must supply: from the next present
 * level, else from DDR. Returns the level that served (enum hpm_level). */
static int fetch_below(struct hpm_hier *h, struct hpm_cache *const *chain, unsigned lvl,
                       uint64_t addr, uint32_t size, uint64_t missed_above,
                       uint32_t line_bits_above)
{
    for (; lvl < 3; lvl++) {
        if (chain[lvl]) {
            unsigned m = ref_level(h, chain, lvl, addr, size, 0);
            if (!m)
                return (int)lvl; /* chain index 1 is the L2 = HPM_SERVED_L2 */
            missed_above = m;
            line_bits_above = chain[lvl]->line_bits;
        }
    }
    h->mem.ddr_bytes_read += missed_above << line_bits_above;
    return HPM_SERVED_MEM;
}

static void prefetch_line(struct hpm_hier *h, struct hpm_cache *const *chain, struct hpm_pf *pf,
                          uint64_t line)
{
    struct hpm_cache *l2 = chain[1];
    uint64_t wb;
    pf->st.prefetch_requests++;
    if (hpm__line_present(l2, line)) {
        pf->st.already_in_l2++;
        return;
    }
    pf->st.valid_prefetches++;
    if (hpm__line_ref(l2, line, 0, &wb) & 2)
        writeback(h, chain, 2, wb << l2->line_bits, (uint64_t)1 << l2->line_bits);
    fetch_below(h, chain, 2, line << l2->line_bits, 1u << l2->line_bits, 1, l2->line_bits);
}

/* Stream detection on an L2 demand read of line x (README.md, "Prefetcher"):
 * the first stream in use whose line is x or whose reach holds it (one
 * unsigned compare: x - last wraps to a huge number below last), else the
 * least recently used entry, an unused one first (stamp 0: the first of
 * the least stamps), starts training. A random demand asks every stream,
 * and one branch per stream is what it mispredicts least. */
static void prefetch_demand(struct hpm_hier *h, struct hpm_cache *const *chain,
                            struct hpm_pf *pf, uint64_t x)
{
    struct hpm_stream *s = pf->s, *victim = pf->s;
    uint32_t i, n = pf->p.streams;
    pf->clock++;
    if (pf->again && x == pf->s[pf->again - 1].last) {
        pf->s[pf->again - 1].stamp = pf->clock;
        return;
    }
    for (i = 0; i < n; i++, s++) {
        uint64_t hi = s->pf_end > s->last + 1 ? s->pf_end : s->last + 1;
        if ((s->stamp != 0) & (x - s->last <= hi - s->last))
            break;
        victim = s->stamp < victim->stamp ? s : victim;
    }
    if (i == n) {
        /* no stream: start training one */
        pf->again = (uint32_t)(victim - pf->s) + 1;
        victim->last = x;
        victim->pf_end = x;
        victim->stamp = pf->clock;
        return;
    }
    pf->again = i + 1;
    s->stamp = pf->clock;
    if (x == s->last) /* same line again: the stream does not move */
        return;
    pf->st.prefetchable_requests++;
    if (x <= s->pf_end)
        pf->st.hits_in_stream++;
    s->last = x;
    if (s->pf_end < x)
        s->pf_end = x;
    while (s->pf_end < x + pf->p.depth)
        prefetch_line(h, chain, pf, ++s->pf_end);
}

/* Everything after the L1 of an access: a missed L1 (m lines) is filled
 * from below, the prefetcher sees the L2 demand, the serving level is
 * counted. l2_mru: first ask whether the L2's most recent line serves it
 * (a constant: where that is likely). */
static inline __attribute__((always_inline)) int hier_miss_body(struct hpm_hier *h, uint32_t core,
                                                                int kind, uint64_t addr,
                                                                uint32_t size, unsigned m,
                                                                struct hpm_cache *l1, int l2_mru)
{
    struct hpm_cache *const *chain = h->cache[core];
    struct hpm_cache *ch[3];
    struct hpm_cache *l2 = chain[2];
    int served = -1;
    ch[0] = l1;
    ch[1] = l2;
    ch[2] = chain[3];
    if (l2_mru && l2 && !l2->index) {
        uint64_t first, last;
        hpm__line_span(l2->line_bits, addr, size, &first, &last);
        if (first == last && (l2->tags[(first & l2->set_mask) * l2->ways] ^ first << 1) < 2) {
            /* ref_level's read of one line that is its set's most recent
             * (hpm__line_ref_scan's first test): nothing changes but the
             * count */
            l2->st.read_accesses++;
            served = HPM_SERVED_L2;
        }
    }
    if (served < 0)
        served = fetch_below(h, ch, 1, addr, size, m, l1->line_bits);
    if (h->pf[core])
        prefetch_demand(h, ch, h->pf[core], addr >> ch[1]->line_bits);
    h->cs[core].served[kind][served]++;
    return served;
}

/* hier_miss_body out of line, so that the L1 hit path stays small enough
 * to inline into the vpmu tool's helpers. */
static __attribute__((noinline)) int hier_miss(struct hpm_hier *h, uint32_t core, int kind,
                                               uint64_t addr, uint32_t size, unsigned m,
                                               struct hpm_cache *l1)
{
    return hier_miss_body(h, core, kind, addr, size, m, l1, 0);
}

/* A straddling access, or an L1 line reference that evicted a dirty line:
 * the general path of ref_level for the L1. */
static __attribute__((noinline)) int hier_general(struct hpm_hier *h, uint32_t core, int kind,
                                                  uint64_t addr, uint32_t size,
                                                  struct hpm_cache *l1)
{
    struct hpm_cache *const *chain = h->cache[core];
    struct hpm_cache *ch[3];
    unsigned m;
    ch[0] = l1;
    ch[1] = chain[2];
    ch[2] = chain[3];
    m = ref_level(h, ch, 0, addr, size, kind == HPM_STORE);
    if (!m) {
        h->cs[core].served[kind][HPM_SERVED_L1]++;
        return HPM_SERVED_L1;
    }
    return hier_miss(h, core, kind, addr, size, m, l1);
}

/* The per-access path, inlined where it is called in a hot loop (the vpmu
 * tool includes this file, as cachegrind includes cg_sim.c): an access
 * within one L1 line that hits or misses without a write-back is handled
 * here; anything else goes to hier_general. The counts are those of
 * ref_level + fetch_below, in the same order of model state changes. */
static inline __attribute__((always_inline)) int
hier_access_body(struct hpm_hier *h, uint32_t core, int kind, uint64_t addr, uint32_t size)
{
    struct hpm_cache *l1 = h->cache[core][kind == HPM_IFETCH ? 0 : 1];
    struct hpm_hier_core_stats *cs = &h->cs[core];
    uint64_t first, last, wb;
    unsigned write = kind == HPM_STORE, r;
    cs->accesses[kind]++;
    hpm__line_span(l1->line_bits, addr, size, &first, &last);
    if (__builtin_expect(first != last, 0))
        return hier_general(h, core, kind, addr, size, l1);
    /* the single-line case of ref_level: a scanned L1 inline (its MRU hit
     * first), an indexed one by call */
    if (!l1->index)
        r = hpm__line_ref_scan(l1, first, write, &wb);
    else
        r = hpm__line_ref(l1, first, write, &wb);
    (&l1->st.read_accesses)[3 * write]++;
    (&l1->st.read_misses)[3 * write] += r & 1;
    if (__builtin_expect(r & 2, 0)) {
        struct hpm_cache *ch[3];
        ch[0] = l1;
        ch[1] = h->cache[core][2];
        ch[2] = h->cache[core][3];
        writeback(h, ch, 1, wb << l1->line_bits, (uint64_t)1 << l1->line_bits);
    }
    if (!(r & 1)) {
        cs->served[kind][HPM_SERVED_L1]++;
        return HPM_SERVED_L1;
    }
    return hier_miss(h, core, kind, addr, size, 1, l1);
}

/* ------------------------------------------------------------- coherence */

/* An invalidated line keeps its way as a marker: its key with this bit set
 * (never dirty, never equal to HPM__EMPTY, whose bit 0 is set; line
 * numbers are below 2^62, so no key has it). No lookup of a line matches a
 * marker; a fill that picks its way replaces it like any line, so a marker
 * lives exactly as long as the line would have stayed. A miss that finds
 * its line's marker is a coherence miss. An indexed cache indexes the
 * marker under its own key, as its rebuild does. */
#define HPM__INV ((uint64_t)1 << 63)

/* The tag word of c equal to key (dirty bit aside), or NULL. */
static uint64_t *coh_find(struct hpm_cache *c, uint64_t key)
{
    uint64_t *set;
    uint32_t i;
    if (c->index) {
        int64_t s = hpm__ix_lookup(c, key);
        return s < 0 ? 0 : &c->tags[s];
    }
    set = c->tags + (size_t)((key >> 1) & c->set_mask) * c->ways;
    for (i = 0; i < c->ways; i++)
        if ((set[i] ^ key) < 2)
            return &set[i];
    return 0;
}

/* Core d's modified line leaves its L1D's ownership: the data goes to the
 * levels below, as an L1 write-back would, without a write-back counted
 * (nothing was evicted). */
static void coh_push_down(struct hpm_hier *h, uint32_t d, uint64_t line)
{
    struct hpm_cache *ch[3];
    ch[0] = h->cache[d][1];
    ch[1] = h->cache[d][2];
    ch[2] = h->cache[d][3];
    writeback(h, ch, 1, line << ch[0]->line_bits, (uint64_t)1 << ch[0]->line_bits);
}

static inline uint64_t *coh_sum_of(struct hpm_hier *h, uint64_t line)
{
    return &h->coh_sum[hpm__fib_hash(line, h->coh_sum_shift)];
}

/* The summary from the L1Ds' lines (markers and empty ways aside). */
static void coh_sum_rebuild(struct hpm_hier *h)
{
    uint32_t c;
    uint64_t i;
    for (i = 0; i <= h->coh_sum_mask; i++)
        h->coh_sum[i] = 0;
    for (c = 0; c < h->p.cores; c++) {
        const struct hpm_cache *l1 = h->cache[c][1];
        uint64_t n = (l1->set_mask + 1) * l1->ways, markers = 0;
        for (i = 0; i < n; i++)
            if (!(l1->tags[i] & HPM__INV)) /* HPM__EMPTY has the bit too */
                *coh_sum_of(h, l1->tags[i] >> 1) |= (uint64_t)1 << c;
            else
                markers += l1->tags[i] != HPM__EMPTY;
        h->coh_markers[c] = markers;
    }
    h->coh_sum_new = 0;
}

/* core's L1D holds line after this access. */
static inline void coh_sum_note(struct hpm_hier *h, uint32_t core, uint64_t line)
{
    uint64_t *e = coh_sum_of(h, line), bit = (uint64_t)1 << core;
    if (!(*e & bit)) {
        if (++h->coh_sum_new > h->coh_sum_limit)
            coh_sum_rebuild(h); /* from the tags: without this line, still to come */
        *e |= bit;
    }
}

/* The cores other than core that may hold line. */
static inline uint64_t coh_others(struct hpm_hier *h, uint32_t core, uint64_t line)
{
    if (!h->coh_sum)
        return ~(uint64_t)0; /* every core is looked up */
    return *coh_sum_of(h, line) & ~((uint64_t)1 << core);
}

/* A store of core to a clean line its L1D holds, when the summary names
 * no other core for the line: the request finds nothing to do, so only
 * its count is kept, and the caller sets the dirty bit as a hit does (the
 * vpmu tool's probes; the model's own path comes to the same). 0: the
 * caller takes the model's path. */
/* (unused here: the tool compiles this file into vpmu_node.c, which calls it) */
static inline __attribute__((unused)) int coh_store_private(struct hpm_hier *h, uint32_t core,
                                                             uint64_t line)
{
    if (!h->coh_sum || coh_others(h, core, line))
        return 0;
    h->coh[core].requests++;
    return 1;
}

/* Core `core` asks for `line` of its L1D, to write it (it does not hold it
 * modified) or, under MESI, to read it (a read miss). Every other core's
 * snoop filter sees the request and passes it to its L1D only where the
 * L1D holds the line (the filter is exact here). */
static unsigned coh_request(struct hpm_hier *h, uint32_t core, uint64_t line, unsigned write)
{
    uint32_t d, n = h->p.cores;
    unsigned inv = 0;
    uint64_t key = line << 1, others = coh_others(h, core, line);
    h->coh[core].requests++;
    for (d = 0; d < n && others; d++) {
        struct hpm_cache *c;
        uint64_t *w, old;
        if (d == core || (h->coh_sum && !(others >> d & 1)))
            continue;
        c = h->cache[d][1];
        w = coh_find(c, key);
        if (!w)
            continue;
        old = *w;
        h->coh[d].snoops++;
        if (!write && !(old & 1))
            continue; /* a clean copy stays, shared */
        h->coh_gen[d]++;
        if (write) {
            /* a modified copy: under MESI the writer takes the data (an
             * intervention, the line stays modified, now in the writer's
             * L1D); under WTI the L1s write through, so the data is below
             * already (the model's dirty bit is pushed down) */
            if (old & 1) {
                if (h->p.coherence == HPM_COH_MESI)
                    h->coh[d].interventions++;
                else
                    coh_push_down(h, d, line);
            }
            *w = HPM__INV | key;
            inv++;
            h->coh[d].invalidations++;
            h->coh_markers[d]++;
            if (hpm__hinted(c))
                hpm__hint_drop(c, old);
            if (c->index) {
                hpm__ix_insert(c, (HPM__INV | key) >> 1, (uint64_t)(w - c->tags));
                if (++c->ix_used > c->ix_limit)
                    hpm__ix_rebuild(c);
            }
        } else {
            /* a read of a line modified elsewhere: the owner supplies it
             * (MESI counts an intervention) and keeps a clean copy; the
             * data is written below */
            if (h->p.coherence == HPM_COH_MESI)
                h->coh[d].interventions++;
            *w = old & ~(uint64_t)1;
            if (hpm__hinted(c))
                hpm__hint_set(c, *w); /* a hint's dirty bit never leads */
            coh_push_down(h, d, line);
        }
    }
    return inv;
}

/* Under WTI a read miss is served below (the L1s write through, no snoop):
 * only the model's dirty bit of another core's copy is pushed down, so that
 * dirty still means exclusive. Nothing is counted. */
static void coh_clean_quiet(struct hpm_hier *h, uint32_t core, uint64_t line)
{
    uint32_t d;
    uint64_t others = coh_others(h, core, line);
    for (d = 0; d < h->p.cores && others; d++) {
        struct hpm_cache *c;
        uint64_t *w;
        if (d == core || (h->coh_sum && !(others >> d & 1)))
            continue;
        c = h->cache[d][1];
        w = coh_find(c, line << 1);
        if (!w || !(*w & 1))
            continue;
        *w &= ~(uint64_t)1;
        if (hpm__hinted(c))
            hpm__hint_set(c, *w);
        h->coh_gen[d]++;
        coh_push_down(h, d, line);
    }
}

/* Slot of line in the contended lines' table (open addressing; addr is
 * the line's address, never 0 for a line that can be shared: line 0 is
 * not tracked), or the empty slot where it would go. */
static struct hpm_coh_line *coh_line_slot(struct hpm_hier *h, uint64_t a)
{
    uint64_t i = hpm__fib_hash(a, 64 - 10) & (HPM__COH_LINES_CAP - 1);
    _Static_assert(HPM__COH_LINES_CAP == 1024u, "the hash's 10 bits");
    while (h->coh_lines[i].addr && h->coh_lines[i].addr != a)
        i = (i + 1) & (HPM__COH_LINES_CAP - 1);
    return &h->coh_lines[i];
}

/* A line enters the table (slot i) at an access of core (a store when
 * write), its requests made: the cores that hold it after the access, and
 * its owner, as a replay in modeled time starts from them. */
static void coh_line_holders(struct hpm_hier *h, uint32_t i, uint32_t core, uint64_t line,
                             unsigned write)
{
    uint32_t d;
    uint64_t held = (uint64_t)1 << core, owner = write ? held : 0;
    for (d = 0; d < h->p.cores; d++) {
        const uint64_t *w = d == core ? 0 : coh_find(h->cache[d][1], line << 1);
        if (w) {
            held |= (uint64_t)1 << d;
            if (*w & 1)
                owner |= (uint64_t)1 << d;
        }
    }
    h->coh_hold[i].held = held;
    h->coh_hold[i].owner = owner;
}

/* An access of core to bytes [addr, addr+size) reached line on the coherent
 * path; inv lines were invalidated by it, miss: it was a coherence miss on
 * it. */
static void coh_line_add(struct hpm_hier *h, uint32_t i, uint32_t core, uint64_t addr,
                         uint32_t size, unsigned rw, unsigned inv, unsigned miss);

static void coh_line_note(struct hpm_hier *h, uint32_t core, uint64_t line, uint64_t addr,
                          uint32_t size, unsigned write, unsigned inv, unsigned miss)
{
    uint32_t bits = h->cache[core][1]->line_bits;
    uint64_t a = line << bits;
    struct hpm_coh_line *e;
    uint64_t hb = hpm__fib_hash(line, 64 - 12);
    if (!a || (!inv && !miss && !(h->coh_line_bits[hb >> 6] >> (hb & 63) & 1)))
        return;
    e = coh_line_slot(h, a);
    if (!e->addr) {
        if (!inv && !miss)
            return;
        if (h->coh_nlines >= HPM__COH_LINES_CAP / 4 * 3) {
            h->coh_lines_dropped++;
            return;
        }
        e->addr = a;
        h->coh_line_bits[hb >> 6] |= (uint64_t)1 << (hb & 63);
        e->line_bytes = (uint32_t)1 << bits;
        e->granule = (uint32_t)1 << h->coh_granule_bits;
        h->coh_nlines++;
        coh_line_holders(h, (uint32_t)(e - h->coh_lines), core, line, write);
        if (h->coh_line_new)
            h->coh_line_new(h->coh_line_new_arg);
    }
    coh_line_add(h, (uint32_t)(e - h->coh_lines), core, addr, size, write ? 2u : 1u, inv, miss);
}

/* What an access of core to bytes [off, off+len) of the kept line in slot
 * i (len >= 1, within the line) adds to it: its misses and invalidations,
 * its bytes (rw: 1 read, 2 written, 3 both), the sharing of its miss.
 * Inline in the replay, which has the bytes already (a call with eight
 * arguments cost as much as the work). Each counter is added on its own,
 * under its own test: added as pairs they became 16-byte loads of words
 * the previous call had stored 8 bytes at a time, which the host cannot
 * forward (the replay's stall on every moved access). */
static inline __attribute__((always_inline)) void
coh_line_add_span(struct hpm_hier *h, uint32_t i, uint32_t core, uint32_t off, uint32_t len,
                  unsigned rw, unsigned inv, unsigned miss)
{
    struct hpm_coh_line *e = &h->coh_lines[i];
    uint32_t g = h->coh_granule_bits, cores = h->p.cores, c;
    uint64_t b0 = off >> g, b1 = (off + len - 1u) >> g;
    /* bits b0..b1 (b1 <= 63): no branch */
    uint64_t m = (~(uint64_t)0 >> (63u - b1)) & (~(uint64_t)0 << b0);
    uint64_t *row = h->coh_mask + (size_t)i * cores * HPM__COH_CORE_WORDS;
    uint64_t *w = row + (size_t)core * HPM__COH_CORE_WORDS;
    if (rw & 1)
        w[0] |= m;
    if (miss) {
        e->coh_misses += miss;
        w[2] += miss;
        /* true sharing when the bytes it wants are bytes another core
         * stored since this core last had the line */
        w[5] += (w[4] & m) != 0;
        w[4] = 0;
    }
    if (inv) {
        e->invalidations += inv;
        w[3] += inv;
    }
    if (rw & 2) {
        /* every core's word, then this core's own back: no test per core */
        uint64_t own = w[4];
        w[1] |= m;
        for (c = 0; c < cores; c++)
            row[(size_t)c * HPM__COH_CORE_WORDS + 4] |= m;
        w[4] = own;
    }
}

/* The same for an access of core to bytes [addr, addr+size) that reached
 * the kept line in slot i, clipped to the line. */
static void coh_line_add(struct hpm_hier *h, uint32_t i, uint32_t core, uint64_t addr,
                         uint32_t size, unsigned rw, unsigned inv, unsigned miss)
{
    uint64_t base = h->coh_lines[i].addr, top = base + h->coh_lines[i].line_bytes - 1u;
    uint64_t end = addr + (size ? size - 1u : 0u), lo = addr > base ? addr : base;
    uint64_t hi = end < top ? end : top;
    coh_line_add_span(h, i, core, (uint32_t)(lo - base), (uint32_t)(hi - lo + 1u), rw, inv, miss);
}

/* Whether line (a line number of the L1Ds) may be in the contended lines'
 * table: the bit of its hash (none set: no line is there). */
static inline int coh_line_maybe(const struct hpm_hier *h, uint64_t line)
{
    uint64_t hb = hpm__fib_hash(line, 64 - 12);
    return (int)(h->coh_line_bits[hb >> 6] >> (hb & 63) & 1);
}

/* The table slot of line (a line number of the L1Ds), or -1 when the line
 * is not kept: the bit of its hash answers most look-ups. */
static inline int32_t coh_line_index(struct hpm_hier *h, uint64_t line)
{
    const struct hpm_coh_line *e;
    if (!coh_line_maybe(h, line))
        return -1;
    e = coh_line_slot(h, line << h->cache[0][1]->line_bits);
    return e->addr ? (int32_t)(e - h->coh_lines) : -1;
}

/* A data access of a coherent node: per line of the L1D, first what the
 * other cores must do (a store to a line not held modified invalidates
 * their copies; a read miss under MESI takes a modified copy back), and
 * whether a missing line was invalidated here (its marker, removed now:
 * the fill brings the line back), then the access as without coherence.
 * Dirty means exclusive: every request that lets another core hold a
 * line makes this core's copy clean or invalid, so a store to a line held
 * dirty needs no request (the vpmu tool's sure-hit paths rely on it). */
static __attribute__((noinline)) int hier_coherent(struct hpm_hier *h, uint32_t core, int kind,
                                                   uint64_t addr, uint32_t size)
{
    struct hpm_cache *l1 = h->cache[core][1];
    unsigned write = kind == HPM_STORE, coh_miss = 0;
    uint64_t first, last, line;
    int served;
    if (h->coh_sole == COH_SOLE_NONE) {
        h->coh_sole = core; /* the first data access of the node */
        return hier_access_body(h, core, kind, addr, size);
    }
    if (h->coh_sole != COH_SOLE_MANY) {
        /* a second core: coherence from now on, the summary from the
         * first core's lines, which its private path did not note */
        h->coh_sole = COH_SOLE_MANY;
        if (h->coh_sum)
            coh_sum_rebuild(h);
    }
    hpm__line_span(l1->line_bits, addr, size, &first, &last);
    for (line = first;; line++) {
        uint64_t *w = coh_find(l1, line << 1);
        unsigned inv = 0, miss = 0;
        if (!w && h->coh_markers[core]) {
            uint64_t *m = coh_find(l1, HPM__INV | line << 1);
            if (m) {
                *m = HPM__EMPTY;
                h->coh_markers[core]--;
                coh_miss = miss = 1;
            }
        }
        if (h->coh_defer && coh_line_index(h, line) >= 0) {
            /* in modeled time: the replay makes its requests; a marker
             * left from before it was kept was a coherence miss here */
            if (miss)
                coh_line_note(h, core, line, addr, size, write, 0, miss);
            if (line == last)
                break;
            continue;
        }
        if (write) {
            if (!w || !(*w & 1))
                inv = coh_request(h, core, line, 1);
        } else if (!w) {
            if (h->p.coherence == HPM_COH_MESI)
                coh_request(h, core, line, 0);
            else
                coh_clean_quiet(h, core, line);
        }
        if (h->coh_lines && (h->coh_nlines || inv || miss))
            coh_line_note(h, core, line, addr, size, write, inv, miss);
        if (line == last)
            break;
    }
    h->coh[core].coh_misses += coh_miss;
    served = hier_access_body(h, core, kind, addr, size);
    /* noted once the lines are in the tags, which a rebuild reads */
    if (h->coh_sum)
        for (line = first; line <= last; line++)
            coh_sum_note(h, core, line);
    return served;
}

/* A coherence miss that the replay finds for an access that hit when it
 * was made: the L1 missed, the line comes from below (the L1's contents
 * stay as the access left them). Returns the level that served it. */
static int coh_replay_miss(struct hpm_hier *h, uint32_t core, int kind, uint64_t addr,
                           uint32_t size)
{
    struct hpm_cache *l1 = h->cache[core][1];
    (&l1->st.read_misses)[3 * (kind == HPM_STORE)]++;
    h->coh[core].coh_misses++;
    /* a line that two cores pass back and forth is most often the L2's
     * most recent: it came from there at its last miss */
    return hier_miss_body(h, core, kind, addr, size, 1, l1, 1);
}

int hpm_hier_coh_replay(struct hpm_hier *h, uint32_t slot, uint32_t core, int kind,
                        uint64_t addr, uint32_t size, int hit)
{
    struct hpm_coh_line *e = &h->coh_lines[slot];
    uint32_t d;
    uint64_t bit = (uint64_t)1 << core, *held = &h->coh_hold[slot].held,
             *owner = &h->coh_hold[slot].owner;
    uint64_t lo = addr > e->addr ? addr : e->addr, others;
    unsigned write = kind != HPM_LOAD, inv = 0, miss = 0, moved = 0;
    int served = HPM_SERVED_L1;
    if (!(*held & bit)) {
        /* it fetches the line: a coherence miss when its copy was there
         * when the access was made (another core's store invalidated it
         * since); a read leaves a modified copy clean (under MESI it takes
         * it from its owner), a store's request below takes it */
        moved = 1;
        if (hit) {
            miss = 1;
            served = coh_replay_miss(h, core, kind == HPM_STORE ? HPM_STORE : HPM_LOAD, lo, 1);
        }
        others = *held & ~bit;
        if (!write && h->p.coherence == HPM_COH_MESI) {
            h->coh[core].requests++;
            for (d = 0; others >> d; d++)
                if (others >> d & 1) {
                    h->coh[d].snoops++;
                    h->coh[d].interventions += *owner >> d & 1;
                }
        }
        if (!write)
            *owner = 0;
        *held |= bit;
    }
    if (write && !(*owner & bit)) {
        /* a store to a line not held modified: the other copies go */
        moved = 1;
        others = *held & ~bit;
        h->coh[core].requests++;
        for (d = 0; others >> d; d++)
            if (others >> d & 1) {
                h->coh[d].snoops++;
                h->coh[d].invalidations++;
                if (h->p.coherence == HPM_COH_MESI)
                    h->coh[d].interventions += *owner >> d & 1;
                inv++;
            }
        *held = *owner = bit;
    }
    if (moved)
        coh_line_add_span(h, slot, core, (uint32_t)(addr - e->addr), size,
                          (kind != HPM_STORE) | (write << 1), inv, miss);
    return served;
}

int32_t hpm_hier_coh_line_index(struct hpm_hier *h, uint64_t addr)
{
    if (!h->coh_lines)
        return -1;
    return coh_line_index(h, addr >> h->cache[0][1]->line_bits);
}

void hpm_hier_coh_defer(struct hpm_hier *h, void (*line_new)(void *arg), void *arg)
{
    h->coh_defer = h->coh_lines != 0;
    h->coh_line_new = line_new;
    h->coh_line_new_arg = arg;
}

static inline __attribute__((always_inline)) int
hier_access_inline(struct hpm_hier *h, uint32_t core, int kind, uint64_t addr, uint32_t size)
{
    if (__builtin_expect(h->coh_on != 0, 0) && kind != HPM_IFETCH && h->coh_sole != core)
        return hier_coherent(h, core, kind, addr, size);
    return hier_access_body(h, core, kind, addr, size);
}

int hpm_hier_access(struct hpm_hier *h, uint32_t core, int kind, uint64_t addr, uint32_t size)
{
    if (core >= h->p.cores || kind < 0 || kind >= HPM_ACCESS_KINDS)
        return HPM_MODEL_ERANGE;
    return hier_access_inline(h, core, kind, addr, size);
}

struct hpm_cache *hpm_hier_l1i(struct hpm_hier *h, uint32_t core)
{
    return core < h->p.cores ? h->cache[core][0] : 0;
}
struct hpm_cache *hpm_hier_l1d(struct hpm_hier *h, uint32_t core)
{
    return core < h->p.cores ? h->cache[core][1] : 0;
}
struct hpm_cache *hpm_hier_l2(struct hpm_hier *h, uint32_t core)
{
    return core < h->p.cores ? h->cache[core][2] : 0;
}
struct hpm_cache *hpm_hier_l3(struct hpm_hier *h, uint32_t core)
{
    return core < h->p.cores ? h->cache[core][3] : 0;
}

int hpm_hier_core_stats(const struct hpm_hier *h, uint32_t core, struct hpm_hier_core_stats *s)
{
    if (core >= h->p.cores)
        return HPM_MODEL_ERANGE;
    HPM__STATS_COPY(s, &h->cs[core]);
    return HPM_MODEL_OK;
}

int hpm_hier_prefetch_stats(const struct hpm_hier *h, uint32_t core,
                            struct hpm_prefetch_stats *s)
{
    if (core >= h->p.cores)
        return HPM_MODEL_ERANGE;
    if (h->pf[core])
        HPM__STATS_COPY(s, &h->pf[core]->st);
    else
        hpm__zero(s, sizeof *s);
    return HPM_MODEL_OK;
}

void hpm_hier_mem_stats(const struct hpm_hier *h, struct hpm_hier_mem_stats *s) { HPM__STATS_COPY(s, &h->mem); }

int hpm_hier_coh_stats(const struct hpm_hier *h, uint32_t core, struct hpm_coh_stats *s)
{
    if (core >= h->p.cores)
        return HPM_MODEL_ERANGE;
    HPM__STATS_COPY(s, &h->coh[core]);
    return HPM_MODEL_OK;
}

uint32_t hpm_hier_coh_line_count(const struct hpm_hier *h, uint64_t *dropped)
{
    if (dropped)
        *dropped = h->coh_lines_dropped;
    return h->coh_nlines;
}

int hpm_hier_coh_line(const struct hpm_hier *h, uint32_t i, struct hpm_coh_line *out,
                      uint64_t *rd, uint64_t *wr)
{
    uint32_t k, n = 0, c, d;
    if (!h->coh_lines)
        return HPM_MODEL_ERANGE;
    for (k = 0; k < HPM__COH_LINES_CAP; k++) {
        const struct hpm_coh_line *e = &h->coh_lines[k];
        const uint64_t *m = h->coh_mask + (size_t)k * h->p.cores * HPM__COH_CORE_WORDS;
        if (!e->addr || n++ != i)
            continue;
        HPM__COPY(out, e);
        /* true sharing: some core's bytes overlap bytes another wrote */
        out->true_sharing = 0;
        for (c = 0; c < h->p.cores; c++) {
            const uint64_t *mc = m + (size_t)c * HPM__COH_CORE_WORDS;
            if (rd)
                rd[c] = mc[0];
            if (wr)
                wr[c] = mc[1];
            for (d = 0; d < h->p.cores; d++)
                if (d != c && (m[(size_t)d * HPM__COH_CORE_WORDS + 1] & (mc[0] | mc[1])))
                    out->true_sharing = 1;
        }
        return HPM_MODEL_OK;
    }
    return HPM_MODEL_ERANGE;
}

uint32_t hpm_hier_coh_line_addrs(const struct hpm_hier *h, uint64_t *addrs)
{
    uint32_t k, n = 0;
    for (k = 0; h->coh_lines && k < HPM__COH_LINES_CAP; k++)
        if (h->coh_lines[k].addr)
            addrs[n++] = h->coh_lines[k].addr;
    return n;
}

int hpm_hier_coh_line_find(const struct hpm_hier *h, uint64_t addr)
{
    const struct hpm_cache *l1 = h->cache[0][1];
    uint64_t line = addr >> l1->line_bits, hb = hpm__fib_hash(line, 64 - 12);
    if (!h->coh_lines)
        return HPM_MODEL_ERANGE;
    if (!(h->coh_line_bits[hb >> 6] >> (hb & 63) & 1))
        return 0;
    return coh_line_slot((struct hpm_hier *)h, line << l1->line_bits)->addr != 0;
}

int hpm_hier_coh_line_cores(const struct hpm_hier *h, uint32_t i, struct hpm_coh_line_core *out)
{
    uint32_t k, n = 0, c;
    if (!h->coh_lines)
        return HPM_MODEL_ERANGE;
    for (k = 0; k < HPM__COH_LINES_CAP; k++) {
        const uint64_t *m = h->coh_mask + (size_t)k * h->p.cores * HPM__COH_CORE_WORDS;
        if (!h->coh_lines[k].addr || n++ != i)
            continue;
        for (c = 0; c < h->p.cores; c++, m += HPM__COH_CORE_WORDS) {
            out[c].read = m[0];
            out[c].written = m[1];
            out[c].coh_misses = m[2];
            out[c].invalidations = m[3];
            out[c].true_misses = m[5];
        }
        return HPM_MODEL_OK;
    }
    return HPM_MODEL_ERANGE;
}

uint64_t hpm_hier_coh_gen(const struct hpm_hier *h, uint32_t core)
{
    return core < h->p.cores ? h->coh_gen[core] : 0;
}
