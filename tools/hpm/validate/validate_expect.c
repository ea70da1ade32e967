/* SPDX-License-Identifier: BSD-3-Clause */
/* validate_expect.c - seed 001's expected counts from machine parameters
 * (validate_expect.h; the derivations are in docs/validation.md). */
#include "validate/validate_expect.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "validate_kernels.h"

const char *vx_col_name(int col)
{
    static const char *const names[VX_COLS] = {"FP st",      "L1 st miss", "FP ld",   "FX ld",
                                               "L1 ld miss", "L2 miss",    "TLB miss"};
    return col >= 0 && col < VX_COLS ? names[col] : "?";
}

int vx_cell_ok(const struct vx_cell *c, double measured)
{
    if (c->kind == VX_NONE) return 1;
    if (c->kind == VX_BOUND) return measured <= c->value + VX_SLACK;
    double allowed = VX_TOLERANCE * c->value;
    if (allowed < VX_SLACK) allowed = VX_SLACK;
    return fabs(measured - c->value) <= allowed;
}

/* Lines (or pages) of size `unit` that bytes [off, off + size) touch. The
 * arrays of hpm-validate-kernels start `off` bytes past a VK_ALIGN boundary,
 * and VK_ALIGN is a multiple of every unit a machine file can give, so this
 * is exact for the real addresses. */
static double spanned(long off, long size, uint64_t unit)
{
    const uint64_t first = (uint64_t)off / unit, last = (uint64_t)(off + size - 1) / unit;
    return (double)(last - first + 1);
}

/* Distinct units of size `unit` that VK_MULT accesses VK_STRIDE doubles
 * apart touch, at most: one each while the stride is at least a unit, else
 * the span they cover plus a partial unit at each end. */
static double per_span(uint64_t unit)
{
    const uint64_t stride = VK_STRIDE * sizeof(double);
    if (unit <= stride) return VK_MULT;
    double n = (double)((VK_MULT - 1) * stride / unit + 2);
    return n < VK_MULT ? n : VK_MULT;
}

/* Where one entry's accesses go and what that does to I. A cache or TLB of
 * `sets` sets of `ways` ways under `policy`, holding units of `unit` bytes
 * (lines, pages). */
struct vx_store {
    uint64_t unit, sets;
    uint32_t ways, policy;
};

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The most units of one entry's accesses (VK_MULT of them VK_STRIDE
 * doubles apart, or one) that fall into one set: n units `step` apart
 * visit sets / gcd(step, sets) sets in turn. */
static double entry_units_per_set(const struct vx_store *st, int mult)
{
    const uint64_t stride = VK_STRIDE * sizeof(double);
    const uint64_t n = mult ? (uint64_t)per_span(st->unit) : 1;
    const uint64_t step = st->unit <= stride ? stride / st->unit : 1;
    uint64_t visited = st->sets / gcd(step, st->sets);
    if (visited > n) visited = n;
    return (double)((n + visited - 1) / visited);
}

/* How often each unit of I is brought in, at most. A unit holds `uses`
 * consecutive entries of I, and between two of them come one entry's
 * accesses, at most q units into the unit's set. LRU keeps the unit while
 * fewer than `ways` others come between its uses; FIFO evicts it after
 * `ways` insertions into its set however often it is used; a random victim
 * can be it at any insertion. Each eviction costs one more fetch at the
 * next use. */
static double fetches_of_i_unit(const struct vx_store *st, int mult)
{
    const double q = entry_units_per_set(st, mult);
    double uses = (double)(st->unit / sizeof(int));
    if (uses > VK_NIDX) uses = VK_NIDX;
    if (uses < 1) uses = 1;
    double f;
    switch (st->policy) {
    case HPM_REPL_LRU: f = q < st->ways ? 1 : uses; break;
    case HPM_REPL_FIFO: f = 1 + floor((uses - 1) * q / st->ways); break;
    default: f = uses; break;
    }
    return f < uses ? f : uses;
}

/* Misses on I during a random row, at most: each of I's units, as often as
 * fetches_of_i_unit brings it in (the seed: "128 Level 1 misses, and 2 TLB
 * misses, due to the sequential access to I", which stay where its lines
 * and pages survive the entries' accesses between their uses). */
static double i_misses(const struct vx_store *st, int mult)
{
    const long ibytes = VK_NIDX * (long)sizeof(int);
    const double n = spanned(VK_IDX_OFFSET, ibytes, st->unit) * fetches_of_i_unit(st, mult);
    return n < VK_NIDX ? n : VK_NIDX; /* at most one per load of I */
}

static struct vx_store l1d_store(const struct hpm_machine *m)
{
    const struct hpm_cache_params *c = &m->hier.l1d;
    const uint32_t ways = c->assoc ? c->assoc : (uint32_t)(c->size / c->line);
    struct vx_store st = {c->line, c->size / c->line / ways, ways, c->policy};
    return st;
}

/* The TLBs are LRU (src/model). */
static struct vx_store dtlb_store(const struct hpm_machine *m)
{
    const struct hpm_tlb_params *t = &m->dtlb;
    const uint32_t ways = t->assoc ? t->assoc : t->entries;
    struct vx_store st = {t->page_size, t->entries / ways, ways, HPM_REPL_LRU};
    return st;
}

/* Whether the pages of bytes [off, off + size) all fit the DTLB at once:
 * consecutive pages fill its sets in turn. */
static int fits_dtlb(const struct hpm_machine *m, long off, long size)
{
    const struct vx_store st = dtlb_store(m);
    const double pages = spanned(off, size, st.unit);
    return ceil(pages / (double)st.sets) <= st.ways;
}

/* Binomial probabilities for small k: a direct product (the counts here
 * are a handful per set). */
static double binom_pmf(unsigned n, double p, unsigned k)
{
    if (k > n) return 0.0;
    double c = 1.0;
    for (unsigned i = 0; i < k; i++)
        c = c * (double)(n - i) / (double)(i + 1);
    return c * pow(p, (double)k) * pow(1.0 - p, (double)(n - k));
}

double vx_lru_eviction_misses(double sets, unsigned ways, unsigned resident, unsigned new_lines,
                              double p_new, double p_access)
{
    /* Midpoint rule over the phase's normalised time; the integrand is a
     * smooth polynomial in t, so 1000 steps are exact far below the counts'
     * resolution. */
    const unsigned steps = 1000;
    double total = 0.0;
    if (resident > ways) resident = ways;
    if (p_access > 1.0) p_access = 1.0;
    if (p_new > 1.0) p_new = 1.0;
    for (unsigned d = 1; d <= resident; d++) {
        const unsigned older = resident - d, room = ways - d; /* hit iff X <= room */
        double miss = 0.0;
        for (unsigned s = 0; s < steps; s++) {
            const double t = (s + 0.5) / steps;
            double hit = 0.0;
            for (unsigned x = 0; x <= room; x++)
                for (unsigned u = 0; u <= x; u++)
                    hit += binom_pmf(new_lines, p_new * t, u) * binom_pmf(older, p_access * t, x - u);
            miss += (1.0 - hit) / steps;
        }
        total += p_access * miss;
    }
    return sets * total;
}

/* Units of `unit` bytes an entry's accesses touch, on average over where
 * the entry starts (uniform in a unit: 1 + the span / unit once a unit
 * holds more than one access). */
static double mean_per_span(uint64_t unit)
{
    const uint64_t stride = VK_STRIDE * sizeof(double);
    if (unit <= stride) return VK_MULT;
    return 1.0 + (double)((VK_MULT - 1) * stride) / (double)unit;
}

/* Units two entries share, on average, when the second starts d bytes
 * after the first (at a uniform place in a unit): each pair of accesses
 * |delta| < unit apart shares one with probability 1 - |delta| / unit
 * while a unit holds at most one access of each, else the units of the
 * overlap of their spans, with one at each end in part. */
static double shared_units(double d, uint64_t unit, int mult)
{
    const double u = (double)unit, stride = VK_STRIDE * sizeof(double);
    const int n = mult ? VK_MULT : 1;
    double sum = 0.0;
    if (!mult || unit <= VK_STRIDE * sizeof(double)) {
        for (int m = 1 - n; m < n; m++) {
            const double delta = fabs(d + stride * m);
            if (delta < u) sum += (double)(n - (m < 0 ? -m : m)) * (1.0 - delta / u);
        }
        return sum;
    }
    sum = 1.0 + ((VK_MULT - 1) * stride - d) / u;
    return sum > 0 ? sum : 0;
}

/* Units two entries of neighbouring slices share, on average: the slices
 * are (len - span) / VK_NIDX doubles wide and each entry is uniform in its
 * own, so the second starts a slice width plus a triangular difference
 * after the first (later slices are further than a span away). */
static double neighbour_shared(long len, uint64_t unit, int mult)
{
    const double w = (double)(len - (long)VK_STRIDE * (VK_MULT - 1)) / VK_NIDX;
    const unsigned steps = 2000;
    double e = 0.0;
    for (unsigned i = 0; i < steps; i++) {
        const double x = -w + (i + 0.5) * 2.0 * w / steps; /* u2 - u1, in doubles */
        const double density = (w - fabs(x)) / (w * w) * (2.0 * w / steps);
        e += density * shared_units((w + x) * sizeof(double), unit, mult);
    }
    return e;
}

/* The chance that a line brought in by one entry is still in an LRU set of
 * `ways` when the entry of the neighbouring slice comes: the two come at
 * independent uniform times of the phase (their distance g has density
 * 2 (1 - g)), and in between each of the set's other `lines` lines is
 * referenced with probability p g; it stays while fewer than `ways` are. */
static double lru_survival(unsigned lines, double p, unsigned ways)
{
    const unsigned steps = 1000;
    double stay_all = 0.0;
    for (unsigned i = 0; i < steps; i++) {
        const double g = (i + 0.5) / steps;
        double stay = 0.0;
        for (unsigned k = 0; k < ways; k++)
            stay += binom_pmf(lines, p * g, k);
        stay_all += 2.0 * (1.0 - g) * stay / steps;
    }
    return stay_all;
}

static void set(struct vx_row *r, int col, double v, int kind)
{
    r->cell[col].value = v;
    r->cell[col].seed = v;
    r->cell[col].kind = kind;
    r->cell[col].refined = 0;
    r->cell[col].why = NULL;
}

/* The seed's count for this cell rests on an assumption machine m breaks:
 * no expectation, and why. */
static void none(struct vx_row *r, int col, const char *why)
{
    r->cell[col].kind = VX_NONE;
    r->cell[col].why = why;
    r->cell[col].refined = 0;
}

/* Whether a stream prefetcher can hide the L2 misses the seed counts: the
 * seed's L2 is no prefetcher's (BG/L). A stream prefetcher in front of the
 * L2 fetches the lines of a sequential or strided loop ahead of its
 * demands, which then hit: even BG/P's 16-line buffer for 7 streams 2 deep
 * leaves the sequential loads 7 misses of the seed's 65536. */
static int prefetch_hides_l2(const struct hpm_machine *m)
{
    return m->hier.prefetch.streams > 0;
}

/* The four random-load rows: one access (rnd) or VK_MULT strided accesses
 * (mrnd) per entry of I, into a vector of len doubles just traversed. */
static void random_row(struct vx_row *r, const struct hpm_machine *m, long len, int mult)
{
    const struct hpm_cache_params *l1 = &m->hier.l1d, *l2 = &m->hier.l2;
    const uint64_t l2unit = l2->line > l1->line ? l2->line : l1->line;
    const uint64_t page = m->dtlb.page_size;
    const long ibytes = VK_NIDX * (long)sizeof(int);
    const double entries = VK_NIDX;
    const double loads = entries * (mult ? VK_MULT : 1);
    const double l1_per = mult ? per_span(l1->line) : 1.0;
    const double l2_per = mult ? per_span(l2unit) : 1.0;
    const double pg_per = mult ? per_span(page) : 1.0;

    set(r, VX_FP_LOADS, loads, VX_EXPECT);
    set(r, VX_FX_LOADS, entries, VX_EXPECT);
    /* "we expect approximately 1K TLB misses and 1K load misses at level 1
     * ... an additional 2 TLB misses, 128 Level 1 misses, and 32 Level 2
     * misses, due to the sequential access to I" -- upper bounds, I's as
     * often as the entries' accesses can evict its lines and pages */
    const struct vx_store l1s = l1d_store(m), tlbs = dtlb_store(m);
    set(r, VX_L1_LOAD_MISSES, entries * l1_per + i_misses(&l1s, mult), VX_BOUND);
    set(r, VX_TLB_MISSES, entries * pg_per + i_misses(&tlbs, mult), VX_BOUND);

    /* L2: the traversal left the last part of the vector in the L2 (each
     * set holds its `ways` most recent lines); accesses outside it miss. */
    const uint32_t ways = l2->assoc ? l2->assoc : (uint32_t)(l2->size / l2->line);
    const double sets = (double)(l2->size / l2->line / ways);
    const double vlines = (double)((uint64_t)len * sizeof(double) / l2unit);
    double per_set = vlines / sets;
    const unsigned resident = per_set >= ways ? ways : (unsigned)per_set;
    const double frac = resident * sets / vlines; /* share of the vector held */
    const double line_accesses = entries * l2_per;
    const double outside = line_accesses * (1.0 - frac);
    const double ilines = spanned(VK_IDX_OFFSET, ibytes, l2unit);
    const double seed = outside + ilines;
    double value = seed;
    if (l2->policy == HPM_REPL_LRU && resident > 0 && frac < 1.0) {
        /* The seed takes the held part to stay held. Under LRU each miss
         * pushes the held lines of its set one deeper, and a held line
         * reached after enough misses (and accesses to older held lines)
         * in its set has gone (vx_lru_eviction_misses). The entries touch
         * their mean number of lines (not the most), and a line that two
         * neighbouring entries share outside the held part misses once
         * while it survives between them. */
        const double mean = entries * (mult ? mean_per_span(l2unit) : 1.0);
        const double out = mean * (1.0 - frac);
        const unsigned lines = (unsigned)per_set, outside_lines = lines - resident;
        const double p_line = mean / vlines; /* each line's chance to be touched */
        const double shared = (entries - 1) * neighbour_shared(len, l2unit, mult) * (1.0 - frac);
        value = out + ilines +
                vx_lru_eviction_misses(sets, ways, resident, outside_lines, p_line, p_line) -
                shared * lru_survival(lines - 1, p_line, ways);
    }
    set(r, VX_L2_MISSES, value, VX_EXPECT);
    r->cell[VX_L2_MISSES].seed = seed;
    r->cell[VX_L2_MISSES].refined = value != seed;
}

/* The lines of a matrix row (VK_MAT doubles) in one L1D set, at most. */
static double row_lines_per_set(const struct vx_store *st)
{
    return ceil(spanned(0, VK_MAT * (long)sizeof(double), st->unit) / (double)st->sets);
}

/* Whether the L1D keeps B between the multiplication's outer iterations
 * (the seed's count when B fits): under LRU, B's lines and a row of A and
 * of C fit every set; under FIFO, which evicts in order of insertion
 * however often B is used, all three matrices do; a random victim may be
 * any line of B. */
static int l1_keeps_b(const struct hpm_machine *m)
{
    const struct vx_store st = l1d_store(m);
    const long mbytes = (long)VK_MAT * VK_MAT * (long)sizeof(double);
    const double b = ceil(spanned(VK_MAT_OFFSET + mbytes, mbytes, st.unit) / (double)st.sets);
    const double all = ceil(spanned(VK_MAT_OFFSET, 3 * mbytes, st.unit) / (double)st.sets);
    if (mbytes + 2 * VK_MAT * (long)sizeof(double) > (long)m->hier.l1d.size) return 0;
    if (st.policy == HPM_REPL_LRU) return b + 2 * row_lines_per_set(&st) <= st.ways;
    return st.policy == HPM_REPL_FIFO && all <= st.ways;
}

/* Whether C[i][j]'s line stays in the L1D from its load to its store,
 * the k loop between: under LRU, while it fits its set beside the lines of
 * a row of A and of B; under FIFO, while fewer than `ways` lines come into
 * its set during the j's it holds (a row of A once, and unless B stays the
 * rows of B of those j's, consecutive in memory). */
static int l1_keeps_c_line(const struct hpm_machine *m)
{
    const struct vx_store st = l1d_store(m);
    const double row = row_lines_per_set(&st);
    long uses = (long)(st.unit / sizeof(double));
    if (uses > VK_MAT) uses = VK_MAT;
    const double b_rows =
        ceil(spanned(0, uses * VK_MAT * (long)sizeof(double), st.unit) / (double)st.sets);
    if (st.policy == HPM_REPL_LRU) return 1 + 2 * row <= st.ways;
    if (st.policy != HPM_REPL_FIFO) return 0;
    return row + (l1_keeps_b(m) ? 0 : b_rows) < st.ways;
}

/* The seed's counts that rest on lines or pages staying where machine m
 * does not keep them: those cells of row r have no expectation, and say
 * why. */
static void assumptions(const struct hpm_machine *m, struct vx_row *r)
{
    const struct vx_store l1 = l1d_store(m);
    const long mbytes = (long)VK_MAT * VK_MAT * (long)sizeof(double);
    const int transpose = !strcmp(r->id, "transpose"), matmult = !strcmp(r->id, "matmult");
    const int random_l1 = l1.policy == HPM_REPL_RANDOM;
    if (transpose && (uint64_t)mbytes > m->hier.l1d.size)
        none(r, VX_L1_LOAD_MISSES,
             "the matrix does not fit the L1D (the seed's count has it fit: one miss per "
             "line)");
    if ((transpose || matmult) && random_l1) {
        none(r, VX_L1_LOAD_MISSES,
             "the L1D's victims are random: any line the seed's count keeps may go");
        none(r, VX_L1_STORE_MISSES,
             "the L1D's victims are random: a line loaded may go before its store");
    }
    if (transpose && (l1.ways < 2 || (l1.policy == HPM_REPL_FIFO &&
                                      (uint64_t)mbytes > m->hier.l1d.size)))
        none(r, VX_L1_STORE_MISSES,
             "the line an element is loaded from can go before its store: a direct-mapped "
             "L1D, or a FIFO one the matrix does not fit (its oldest line goes, however "
             "recently used)");
    if (matmult && !l1_keeps_b(m) && !random_l1) {
        if (m->hier.l1d.size < (uint64_t)mbytes)
            none(r, VX_L1_LOAD_MISSES,
                 "B is larger than the L1D: A's and C's rows are evicted as B streams "
                 "through (the seed's count keeps them)");
        else if (mbytes + 2 * VK_MAT * (long)sizeof(double) <= (long)m->hier.l1d.size)
            none(r, VX_L1_LOAD_MISSES,
                 "B fits the L1D, but its sets or its replacement do not keep it beside the "
                 "rows of A and C (the seed's count has it stay)");
    }
    if (matmult && !l1_keeps_c_line(m))
        none(r, VX_L1_STORE_MISSES,
             "C's line and a row of A and of B do not fit an L1D set: the line C[i][j] is "
             "loaded from can be gone at its store (the seed's count keeps it)");
    if (transpose && !fits_dtlb(m, VK_MAT_OFFSET, mbytes))
        none(r, VX_TLB_MISSES,
             "the matrix's pages do not fit the DTLB (the seed's count has them stay: one "
             "miss per page)");
    if (matmult && !fits_dtlb(m, VK_MAT_OFFSET, 3 * mbytes))
        none(r, VX_TLB_MISSES,
             "the three matrices' pages do not fit the DTLB (the seed's count has them "
             "stay: one miss per page)");
    if (transpose && (uint64_t)mbytes > m->hier.l2.size)
        none(r, VX_L2_MISSES,
             "the matrix does not fit the L2 (the seed's count has it fit: one miss per "
             "line)");
    else if (m->hier.l1d.line > m->hier.l2.line)
        none(r, VX_L2_MISSES,
             "the L1D's lines are longer than the L2's: an L1 miss asks the L2 for several "
             "lines (the seed's counts have one L2 line per L1 miss at most)");
    /* the random rows (one access per entry) give a stream nothing to
     * follow; the sequential, strided and matrix rows do */
    else if (prefetch_hides_l2(m) && r->cell[VX_L2_MISSES].value > 0 &&
             strcmp(r->id, "rnd_ld_D") != 0 && strcmp(r->id, "rnd_ld_D2") != 0)
        none(r, VX_L2_MISSES,
             "a stream prefetcher runs in front of the L2: it fetches the loop's lines "
             "ahead of their demands, which then hit (the seed's counts take them for "
             "misses)");
}

int vx_expect_all(const struct hpm_machine *m, struct vx_row *rows, int max_rows, char *err,
                  size_t errlen)
{
    const struct hpm_cache_params *l1 = &m->hier.l1d, *l2 = &m->hier.l2;
    if (l1->size == 0) {
        snprintf(err, errlen, "machine %s has no L1D; seed 001's Table 1 has L1 misses", m->name);
        return -1;
    }
    if (l2->size == 0) {
        snprintf(err, errlen,
                 "machine %s has no L2; seed 001's Table 1 has L2 misses (bgl's 4 MB cache)",
                 m->name);
        return -1;
    }
    const uint64_t l2unit = l2->line > l1->line ? l2->line : l1->line;
    const uint64_t page = m->dtlb.page_size;
    const long dbytes = VK_N * (long)sizeof(double);
    const long mbytes = (long)VK_MAT * VK_MAT * (long)sizeof(double);
    int n = 0;

#define VX_LABEL(id, label) {#id, label},
    static const struct {
        const char *id, *label;
    } names[] = {VK_BENCHMARKS(VX_LABEL)};
    const int count = (int)(sizeof names / sizeof names[0]);
    if (count > max_rows) {
        snprintf(err, errlen, "too many rows (%d)", count);
        return -1;
    }
    memset(rows, 0, (size_t)count * sizeof *rows);
    for (n = 0; n < count; n++) {
        struct vx_row *r = &rows[n];
        r->id = names[n].id;
        r->label = names[n].label;
        for (int c = 0; c < VX_COLS; c++)
            set(r, c, 0.0, VX_EXPECT);
        const char *id = r->id;
        if (!strcmp(id, "seq_stores") || !strcmp(id, "seq_loads") || !strcmp(id, "seq_ldst")) {
            /* "Each page has 128 Level 1 and 32 Level 2 lines": one miss per
             * line at each level, one TLB miss per page of D. */
            const double lines1 = spanned(0, dbytes, l1->line);
            const int stores = !strcmp(id, "seq_stores"), ldst = !strcmp(id, "seq_ldst");
            const double iters = ldst ? VK_N - 1 : VK_N; /* k = 2..n */
            set(r, VX_FP_STORES, stores || ldst ? iters : 0, VX_EXPECT);
            set(r, VX_FP_LOADS, stores ? 0 : ldst ? 2 * iters : iters, VX_EXPECT);
            /* seq ld & st: the load of D[k] brings in the line D[k] is
             * stored to, so "no store misses" */
            set(r, VX_L1_STORE_MISSES, stores ? lines1 : 0, VX_EXPECT);
            set(r, VX_L1_LOAD_MISSES, stores ? 0 : lines1, VX_EXPECT);
            set(r, VX_L2_MISSES, spanned(0, dbytes, l2unit), VX_EXPECT);
            set(r, VX_TLB_MISSES, spanned(0, dbytes, page), VX_EXPECT);
        } else if (!strcmp(id, "rnd_ld_D")) {
            random_row(r, m, VK_N, 0);
        } else if (!strcmp(id, "rnd_ld_D2")) {
            random_row(r, m, VK_N2, 0);
        } else if (!strcmp(id, "mrnd_ld_D")) {
            random_row(r, m, VK_N, 1);
        } else if (!strcmp(id, "mrnd_ld_D2")) {
            random_row(r, m, VK_N2, 1);
        } else if (!strcmp(id, "transpose")) {
            /* 2 * (64^2 - 64) loads and as many stores; B, cold, fits the L1:
             * one miss per line of B at each level, none on the stores,
             * one TLB miss per page ("we expect 9 TLB misses") */
            const double swaps = 2.0 * ((double)VK_MAT * VK_MAT - VK_MAT);
            set(r, VX_FP_STORES, swaps, VX_EXPECT);
            set(r, VX_FP_LOADS, swaps, VX_EXPECT);
            set(r, VX_L1_LOAD_MISSES, spanned(VK_MAT_OFFSET, mbytes, l1->line), VX_EXPECT);
            set(r, VX_L2_MISSES, spanned(VK_MAT_OFFSET, mbytes, l2unit), VX_EXPECT);
            set(r, VX_TLB_MISSES, spanned(VK_MAT_OFFSET, mbytes, page), VX_EXPECT);
        } else if (!strcmp(id, "matmult")) {
            /* "it performs 129 * 64^2 loads and 64^2 stores"; B (one L1
             * size) plus a row of A and of C do not fit the L1, so B misses
             * every line on each of the 64 outer iterations, A and C once:
             * (64 + 1 + 1) * 64^2 / 4 L1 misses; the three matrices fit the
             * L2: 3 * 64^2 / 16 L2 misses; 3 * 8 + 1 TLB misses */
            const double m2 = (double)VK_MAT * VK_MAT;
            const long a_off = VK_MAT_OFFSET, b_off = a_off + mbytes, c_off = b_off + mbytes;
            const double la = spanned(a_off, mbytes, l1->line),
                         lb = spanned(b_off, mbytes, l1->line),
                         lc = spanned(c_off, mbytes, l1->line);
            const int b_reused = l1_keeps_b(m);
            set(r, VX_FP_STORES, m2, VX_EXPECT);
            set(r, VX_FP_LOADS, (2.0 * VK_MAT + 1) * m2, VX_EXPECT);
            set(r, VX_L1_LOAD_MISSES, la + lc + (b_reused ? 1 : VK_MAT) * lb, VX_EXPECT);
            const int fit2 = (uint64_t)(3 * mbytes) <= l2->size;
            const double l2a = spanned(a_off, mbytes, l2unit), l2b = spanned(b_off, mbytes, l2unit),
                         l2c = spanned(c_off, mbytes, l2unit);
            set(r, VX_L2_MISSES, l2a + l2c + (fit2 ? 1 : VK_MAT) * l2b, VX_EXPECT);
            set(r, VX_TLB_MISSES, spanned(VK_MAT_OFFSET, 3 * mbytes, page), VX_EXPECT);
        }
        assumptions(m, r);
    }
    return n;
}
