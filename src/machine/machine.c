/* SPDX-License-Identifier: BSD-3-Clause */
/* machine.c - machine file parser, host detection, lookup by name. */
#define _POSIX_C_SOURCE 200809L
#include "machine.h"

#include "fileio.h"
#include "host.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *hpm_machine_strerror(int err)
{
    static const char *const msg[] = {
        "ok", "syntax error", "unknown key or section", "bad value", "duplicate key",
        "value out of range", "inconsistent values", "cannot read file", "no such machine",
        "bad machine name",
    };
    unsigned i = (unsigned)(-err);
    if (err > 0 || i >= sizeof msg / sizeof msg[0])
        return "unknown error";
    return msg[i];
}

/* ------------------------------------------------------------ the key table */

enum vtype { T_U32, T_POW2, T_SIZE, T_FREQ, T_MILLI, T_POLICY, T_BOOL, T_STR, T_COHERENCE };

struct key {
    const char *section; /* "" = top level */
    const char *name;
    enum vtype type;
    size_t off;  /* into struct hpm_machine */
    size_t len;  /* T_STR: buffer size; else field width (4 or 8) */
    uint64_t min, max;
};

#define F(fld) offsetof(struct hpm_machine, fld), sizeof(((struct hpm_machine *)0)->fld)
#define CACHE(sec, lvl, minsize)                                                        \
    {sec, "size", T_SIZE, F(hier.lvl.size), minsize, (uint64_t)1 << 40},                \
    {sec, "assoc", T_U32, F(hier.lvl.assoc), 0, 1u << 20},                              \
    {sec, "line", T_POW2, F(hier.lvl.line), 4, 1u << 20},                               \
    {sec, "policy", T_POLICY, F(hier.lvl.policy), 0, 2},                                \
    {sec, "seed", T_U32, F(hier.lvl.seed), 0, 0xffffffffu},                             \
    {sec, "shared", T_BOOL, F(hier.lvl.shared), 0, 1}
#define TLB(sec, t)                                                                     \
    {sec, "entries", T_U32, F(t.entries), 1, 1u << 24},                                 \
    {sec, "assoc", T_U32, F(t.assoc), 0, 1u << 24},                                     \
    {sec, "page_size", T_SIZE, F(t.page_size), 4, (uint64_t)1 << 40}
#define CPI(n, i) {"timing", n, T_MILLI, F(timing.cpi_milli[i]), 0, 1000000}
#define LAT(n, f) {"timing", n, T_U32, F(timing.f), 0, 1000000}

static const struct key keys[] = {
    {"", "name", T_STR, F(name), 0, 0},
    {"", "cores", T_U32, F(hier.cores), 1, 1024},
    {"", "frequency_hz", T_FREQ, F(frequency_hz), 1000, (uint64_t)1 << 40},
    CACHE("l1i", l1i, 1),
    CACHE("l1d", l1d, 1),
    {"l1d", "coherence", T_COHERENCE, F(hier.coherence), 0, 2},
    CACHE("l2", l2, 0),
    CACHE("l3", l3, 0),
    {"prefetch", "streams", T_U32, F(hier.prefetch.streams), 0, 64},
    {"prefetch", "depth", T_U32, F(hier.prefetch.depth), 1, 64},
    TLB("itlb", itlb),
    TLB("dtlb", dtlb),
    {"branch", "history_bits", T_U32, F(branch.history_bits), 0, 32},
    {"branch", "table_entries", T_POW2, F(branch.table_entries), 1, 1u << 28},
    {"branch", "btb_entries", T_U32, F(branch.btb_entries), 1, 1u << 24},
    {"branch", "btb_assoc", T_U32, F(branch.btb_assoc), 0, 1u << 24},
    {"branch", "ras_depth", T_U32, F(branch.ras_depth), 1, 1u << 16},
    CPI("cpi_int", HPM_IC_INT),
    CPI("cpi_muldiv", HPM_IC_MULDIV),
    CPI("cpi_load", HPM_IC_LOAD),
    CPI("cpi_store", HPM_IC_STORE),
    CPI("cpi_branch", HPM_IC_BRANCH),
    CPI("cpi_fp", HPM_IC_FP),
    CPI("cpi_fpdiv", HPM_IC_FPDIV),
    CPI("cpi_other", HPM_IC_OTHER),
    LAT("l2_latency", l2_latency),
    LAT("l3_latency", l3_latency),
    LAT("memory_latency", memory_latency),
    LAT("tlb_miss", tlb_miss),
    LAT("mispredict", mispredict),
    LAT("prefetch_latency", prefetch_latency),
    {"memory", "size", T_SIZE, F(memory_bytes), 0, (uint64_t)1 << 50},
    {"memory", "type", T_STR, F(memory_type), 0, 0},
    {"torus", "x", T_U32, F(torus.x), 1, 4096},
    {"torus", "y", T_U32, F(torus.y), 1, 4096},
    {"torus", "z", T_U32, F(torus.z), 1, 4096},
    {"torus", "mapping", T_STR, F(torus.mapping), 0, 0},
    {"torus", "packet_size", T_SIZE, F(torus.packet_bytes), 1, 65536},
    {"torus", "link_bandwidth", T_FREQ, F(torus.link_bytes_per_s), 1, (uint64_t)1 << 50},
    {"roofline", "flops_per_cycle_scalar", T_MILLI, F(roofline.flops_milli[0]), 1, 1000000},
    {"roofline", "flops_per_cycle_128", T_MILLI, F(roofline.flops_milli[1]), 1, 1000000},
    {"roofline", "flops_per_cycle_256", T_MILLI, F(roofline.flops_milli[2]), 1, 1000000},
    {"roofline", "sp_per_dp", T_U32, F(roofline.sp_per_dp), 1, 16},
    {"roofline", "l1_bytes_per_cycle", T_MILLI, F(roofline.l1_milli), 1, 100000000},
    {"roofline", "l2_bytes_per_cycle", T_MILLI, F(roofline.l2_milli), 1, 100000000},
    {"roofline", "l3_bytes_per_cycle", T_MILLI, F(roofline.l3_milli), 1, 100000000},
    {"roofline", "memory_bandwidth", T_FREQ, F(roofline.memory_bytes_per_s), 1,
     (uint64_t)1 << 50},
    {"counters", "units", T_U32, F(counter_unit.units), 0, 64},
    {"counters", "counters", T_POW2, F(counter_unit.counters), 1, 256},
    {"counters", "group", T_POW2, F(counter_unit.group), 1, 256},
};
#define NKEYS (sizeof keys / sizeof keys[0])

static const char *const sections[] = {"",     "l1i",  "l1d",    "l2",     "l3",     "prefetch",
                                       "itlb", "dtlb", "branch", "timing", "memory", "torus",
                                       "roofline", "counters"};
#define NSECTIONS (sizeof sections / sizeof sections[0])
#define SECTION_TORUS 11 /* sections[SECTION_TORUS] */
_Static_assert(SECTION_TORUS < NSECTIONS, "SECTION_TORUS");

/* ------------------------------------------------------------ the parser */

struct parser {
    const char *file;
    unsigned line;
    char *err;
    size_t errlen;
    unsigned key_line[NKEYS];      /* 0 = not set */
    unsigned section_line[NSECTIONS];
};

static int fail(struct parser *ps, unsigned line, int code, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (ps->err && ps->errlen) {
        n = snprintf(ps->err, ps->errlen, "%s:%u: ", ps->file, line);
        if (n >= 0 && (size_t)n < ps->errlen) {
            va_start(ap, fmt);
            vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return code;
}

/* Printable, bounded copy of input text for messages. */
static const char *show(char *out, size_t outlen, const char *s, size_t n)
{
    size_t i, k = 0;
    for (i = 0; i < n && k + 4 < outlen; i++)
        out[k++] = (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\'') ? s[i] : '?';
    if (i < n) {
        out[k++] = '.';
        out[k++] = '.';
        out[k++] = '.';
    }
    out[k] = 0;
    return out;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

static void trim(const char **s, size_t *n)
{
    while (*n && is_space(**s)) {
        (*s)++;
        (*n)--;
    }
    while (*n && is_space((*s)[*n - 1]))
        (*n)--;
}

static int span_eq(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

static int span_eq_nocase(const char *s, size_t n, const char *lit)
{
    size_t i;
    if (strlen(lit) != n)
        return 0;
    for (i = 0; i < n; i++) {
        char c = s[i], d = lit[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (d >= 'A' && d <= 'Z')
            d = (char)(d - 'A' + 'a');
        if (c != d)
            return 0;
    }
    return 1;
}

/* Leading decimal digits; returns digits consumed (0 = none) or -1 on overflow. */
static int digits(const char *s, size_t n, uint64_t *v)
{
    size_t i = 0;
    uint64_t x = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        if (x > (UINT64_MAX - 9) / 10)
            return -1;
        x = x * 10 + (uint64_t)(s[i] - '0');
    }
    *v = x;
    return i > (1u << 30) ? -1 : (int)i;
}

/* Parses a number with an optional multiplier suffix. base: 1024 or 1000.
 * unit: optional trailing unit ("B" or "Hz"). 0 = ok, 1 = bad, 2 = overflow. */
static int parse_scaled(const char *s, size_t n, uint64_t base, const char *unit, uint64_t *out)
{
    uint64_t v, mul = 1;
    int d = digits(s, n, &v);
    size_t i;
    if (d < 0)
        return 2;
    if (d == 0)
        return 1;
    i = (size_t)d;
    while (i < n && is_space(s[i]))
        i++;
    if (i < n) {
        char c = s[i];
        if (c == 'K' || c == 'k')
            mul = base, i++;
        else if (c == 'M')
            mul = base * base, i++;
        else if (c == 'G')
            mul = base * base * base, i++;
    }
    if (i < n && !span_eq_nocase(s + i, n - i, unit))
        return 1;
    if (v > UINT64_MAX / mul)
        return 2;
    *out = v * mul;
    return 0;
}

static int set_value(struct parser *ps, struct hpm_machine *m, const struct key *k, const char *v,
                     size_t n)
{
    char shown[48], *field = (char *)m + k->off;
    uint64_t x = 0;
    int r = 0;
    const char *sec = k->section[0] ? k->section : "top level";
    const char *lb = k->section[0] ? "[" : "", *rb = k->section[0] ? "]" : "";
    switch (k->type) {
    case T_STR: {
        size_t i;
        if (n == 0 || n >= k->len)
            return fail(ps, ps->line, HPM_MACHINE_EVALUE,
                        "bad value '%s' for '%s' in %s%s%s: expected 1 to %zu characters",
                        show(shown, sizeof shown, v, n), k->name, lb, sec, rb, k->len - 1);
        for (i = 0; i < n; i++)
            if (!((v[i] >= 'a' && v[i] <= 'z') || (v[i] >= 'A' && v[i] <= 'Z') ||
                  (v[i] >= '0' && v[i] <= '9') || v[i] == '_' || v[i] == '-' || v[i] == '.'))
                return fail(ps, ps->line, HPM_MACHINE_EVALUE,
                            "bad value '%s' for '%s' in %s%s%s: expected letters, digits, _ - .",
                            show(shown, sizeof shown, v, n), k->name, lb, sec, rb);
        memcpy(field, v, n);
        field[n] = 0;
        return HPM_MACHINE_OK;
    }
    case T_POLICY:
        if (span_eq_nocase(v, n, "lru"))
            x = HPM_REPL_LRU;
        else if (span_eq_nocase(v, n, "fifo") || span_eq_nocase(v, n, "round-robin"))
            x = HPM_REPL_FIFO;
        else if (span_eq_nocase(v, n, "random"))
            x = HPM_REPL_RANDOM;
        else
            return fail(ps, ps->line, HPM_MACHINE_EVALUE,
                        "bad value '%s' for '%s' in %s%s%s: expected lru, fifo or random",
                        show(shown, sizeof shown, v, n), k->name, lb, sec, rb);
        break;
    case T_COHERENCE:
        if (span_eq_nocase(v, n, "none"))
            x = HPM_COH_NONE;
        else if (span_eq_nocase(v, n, "wti"))
            x = HPM_COH_WTI;
        else if (span_eq_nocase(v, n, "mesi"))
            x = HPM_COH_MESI;
        else
            return fail(ps, ps->line, HPM_MACHINE_EVALUE,
                        "bad value '%s' for '%s' in %s%s%s: expected none, wti or mesi",
                        show(shown, sizeof shown, v, n), k->name, lb, sec, rb);
        break;
    case T_BOOL:
        if (span_eq_nocase(v, n, "yes") || span_eq_nocase(v, n, "true") || span_eq(v, n, "1"))
            x = 1;
        else if (span_eq_nocase(v, n, "no") || span_eq_nocase(v, n, "false") ||
                 span_eq(v, n, "0"))
            x = 0;
        else
            return fail(ps, ps->line, HPM_MACHINE_EVALUE,
                        "bad value '%s' for '%s' in %s%s%s: expected yes or no",
                        show(shown, sizeof shown, v, n), k->name, lb, sec, rb);
        break;
    case T_MILLI: {
        uint64_t whole, frac = 0;
        int d = digits(v, n, &whole), f = 0;
        size_t i = d > 0 ? (size_t)d : 0;
        if (d > 0 && i < n && v[i] == '.') {
            uint64_t t;
            f = digits(v + i + 1, n - i - 1, &t);
            if (f > 0 && f <= 3) {
                frac = t;
                for (int j = f; j < 3; j++)
                    frac *= 10;
                i += 1 + (size_t)f;
            } else {
                r = 1;
            }
        }
        if (d < 0 || r || d == 0 || i != n)
            return fail(ps, ps->line, HPM_MACHINE_EVALUE,
                        "bad value '%s' for '%s' in %s%s%s: expected a number with at most "
                        "3 decimals, such as 0.5",
                        show(shown, sizeof shown, v, n), k->name, lb, sec, rb);
        x = whole > UINT64_MAX / 1000 ? UINT64_MAX : whole * 1000 + frac;
        break;
    }
    default: { /* numbers */
        int bad;
        if (k->type == T_SIZE)
            bad = parse_scaled(v, n, 1024, "B", &x);
        else if (k->type == T_FREQ)
            bad = parse_scaled(v, n, 1000, "Hz", &x);
        else {
            int d = digits(v, n, &x);
            bad = d < 0 ? 2 : (d == 0 || (size_t)d != n) ? 1 : 0;
        }
        if (bad == 1)
            return fail(ps, ps->line, HPM_MACHINE_EVALUE,
                        "bad value '%s' for '%s' in %s%s%s: expected %s",
                        show(shown, sizeof shown, v, n), k->name, lb, sec, rb,
                        k->type == T_SIZE   ? "a size such as 32K"
                        : k->type == T_FREQ ? "a frequency such as 850M"
                                            : "an unsigned integer");
        if (bad == 2)
            x = UINT64_MAX;
        if (k->type == T_POW2 && x && (x & (x - 1)))
            return fail(ps, ps->line, HPM_MACHINE_ERANGE,
                        "value %s for '%s' in %s%s%s is not a power of two",
                        show(shown, sizeof shown, v, n), k->name, lb, sec, rb);
        break;
    }
    }
    if (x < k->min || x > k->max) {
        if (k->type == T_MILLI)
            return fail(ps, ps->line, HPM_MACHINE_ERANGE,
                        "value %s for '%s' in %s%s%s out of range (0 .. %llu)",
                        show(shown, sizeof shown, v, n), k->name, lb, sec, rb,
                        (unsigned long long)(k->max / 1000));
        return fail(ps, ps->line, HPM_MACHINE_ERANGE,
                    "value %s for '%s' in %s%s%s out of range (%llu .. %llu)",
                    show(shown, sizeof shown, v, n), k->name, lb, sec, rb,
                    (unsigned long long)k->min, (unsigned long long)k->max);
    }
    if (k->len == 8) {
        uint64_t y = x;
        memcpy(field, &y, 8);
    } else {
        uint32_t y = (uint32_t)x;
        memcpy(field, &y, 4);
    }
    return HPM_MACHINE_OK;
}

static unsigned key_index(const struct key *k) { return (unsigned)(k - keys); }

static unsigned line_of(const struct parser *ps, const char *sec, const char *name)
{
    unsigned i;
    for (i = 0; i < NKEYS; i++)
        if (strcmp(keys[i].section, sec) == 0 && strcmp(keys[i].name, name) == 0 &&
            ps->key_line[i])
            return ps->key_line[i];
    for (i = 0; i < NSECTIONS; i++)
        if (strcmp(sections[i], sec) == 0 && ps->section_line[i])
            return ps->section_line[i];
    return ps->line; /* nothing set: the end of the file */
}

/* Values that are valid alone but not together. */
static int check_all(struct parser *ps, struct hpm_machine *m)
{
    static const char *const lv[4] = {"l1i", "l1d", "l2", "l3"};
    const struct hpm_cache_params *c[4] = {&m->hier.l1i, &m->hier.l1d, &m->hier.l2, &m->hier.l3};
    const struct hpm_tlb_params *t[2] = {&m->itlb, &m->dtlb};
    unsigned i;
    if (m->counter_unit.group > m->counter_unit.counters)
        return fail(ps, line_of(ps, "counters", "group"), HPM_MACHINE_EGEOMETRY,
                    "[counters] group %u is larger than counters %u", m->counter_unit.group,
                    m->counter_unit.counters);
    for (i = 0; i < 4; i++) {
        uint64_t lines, ways;
        if (c[i]->size == 0)
            continue; /* l2/l3 absent (l1 sizes have min 1) */
        if (hpm_cache_params_check(c[i]) == HPM_MODEL_OK)
            continue;
        lines = c[i]->size / c[i]->line;
        ways = c[i]->assoc ? c[i]->assoc : lines;
        if (c[i]->size % c[i]->line)
            return fail(ps, line_of(ps, lv[i], "size"), HPM_MACHINE_EGEOMETRY,
                        "[%s] size %llu is not a multiple of line %u", lv[i],
                        (unsigned long long)c[i]->size, c[i]->line);
        return fail(ps, line_of(ps, lv[i], "size"), HPM_MACHINE_EGEOMETRY,
                    "[%s] size %llu / line %u / assoc %llu must give a power-of-two number "
                    "of sets",
                    lv[i], (unsigned long long)c[i]->size, c[i]->line,
                    (unsigned long long)ways);
    }
    for (i = 0; i < 2; i++)
        if (hpm_tlb_params_check(t[i]) != HPM_MODEL_OK)
            return fail(ps, line_of(ps, i ? "dtlb" : "itlb", "entries"), HPM_MACHINE_EGEOMETRY,
                        "[%s] entries %u / assoc %u must give a power-of-two number of sets",
                        i ? "dtlb" : "itlb", t[i]->entries, t[i]->assoc);
    if (hpm_bpred_params_check(&m->branch) != HPM_MODEL_OK)
        return fail(ps, line_of(ps, "branch", "btb_entries"), HPM_MACHINE_EGEOMETRY,
                    "[branch] btb_entries %u / btb_assoc %u must give a power-of-two number "
                    "of sets",
                    m->branch.btb_entries, m->branch.btb_assoc);
    if (ps->section_line[SECTION_TORUS]) {
        /* [torus]: all three dimensions or none (an MPI job's node count
         * picks them), a permutation of X, Y, Z */
        unsigned first = line_of(ps, "torus", "x");
        struct hpm_torus_params probe = m->torus;
        if (!m->torus.x && !m->torus.y && !m->torus.z) {
            m->torus.job_shape = 1;
            m->torus.line = ps->section_line[SECTION_TORUS];
            probe.x = probe.y = probe.z = 1;
        } else if (!m->torus.x || !m->torus.y || !m->torus.z)
            return fail(ps, first ? first : ps->section_line[SECTION_TORUS],
                        HPM_MACHINE_EGEOMETRY,
                        "[torus] needs x, y and z (nodes per dimension), or none of them "
                        "(the job's node count picks the shape)");
        if (hpm_torus_check(&probe) != 0)
            return fail(ps, line_of(ps, "torus", "mapping") ? line_of(ps, "torus", "mapping")
                                                            : first,
                        HPM_MACHINE_EGEOMETRY,
                        "[torus] mapping '%s' must order X, Y and Z (XYZ: X varies fastest), "
                        "and x*y*z at most 1048576 nodes", m->torus.mapping);
        if (!m->torus.job_shape)
            m->torus.line = first;
    }
    if (m->hier.prefetch.streams && m->hier.l2.size == 0)
        return fail(ps, line_of(ps, "prefetch", "streams"), HPM_MACHINE_EGEOMETRY,
                    "[prefetch] streams needs an [l2] (its size is 0)");
    if (hpm_hier_params_check(&m->hier) != HPM_MODEL_OK)
        return fail(ps, ps->line, HPM_MACHINE_EGEOMETRY, "cache hierarchy parameters invalid");
    {
        /* The models keep state per cache line, TLB entry and predictor
         * entry inside the Valgrind tool, whose heap cannot take terabytes:
         * a machine beyond HPM_MACHINE_MODEL_BYTES_MAX is refused here, with
         * the file and line, instead of crashing the tool at start-up. */
        uint64_t per_core = (uint64_t)hpm_tlb_storage_size(&m->itlb) +
                            hpm_tlb_storage_size(&m->dtlb) + hpm_bpred_storage_size(&m->branch);
        uint64_t bytes = (uint64_t)hpm_hier_storage_size(&m->hier) + per_core * m->hier.cores;
        if (bytes > HPM_MACHINE_MODEL_BYTES_MAX) {
            unsigned big = 0;
            for (i = 1; i < 4; i++)
                if (c[i]->size / c[i]->line > c[big]->size / c[big]->line)
                    big = i;
            return fail(ps, line_of(ps, lv[big], "size"), HPM_MACHINE_ERANGE,
                        "the node model would need %llu MiB of state (per cache line, "
                        "private levels per core; [%s] is the largest); the limit is %llu MiB",
                        (unsigned long long)(bytes >> 20), lv[big],
                        (unsigned long long)(HPM_MACHINE_MODEL_BYTES_MAX >> 20));
        }
    }
    return HPM_MACHINE_OK;
}

int hpm_machine_parse(struct hpm_machine *m, const char *buf, size_t len, const char *filename,
                      char *err, size_t errlen)
{
    struct parser ps;
    const char *p = buf, *end = buf + len;
    unsigned sec = 0; /* index into sections */
    char shown[48];
    int rc;
    memset(&ps, 0, sizeof ps);
    ps.file = filename ? filename : "<buffer>";
    ps.err = err;
    ps.errlen = errlen;
    if (err && errlen)
        err[0] = 0;
    if (!m || (!buf && len))
        return fail(&ps, 0, HPM_MACHINE_EVALUE, "NULL argument");
    hpm_machine_defaults(m);
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *s = p, *hash;
        size_t n = (size_t)((nl ? nl : end) - p);
        p = nl ? nl + 1 : end;
        ps.line++;
        hash = memchr(s, '#', n);
        if (hash)
            n = (size_t)(hash - s);
        trim(&s, &n);
        if (n == 0)
            continue;
        if (s[0] == '[') {
            const char *name = s + 1;
            size_t k, nn;
            if (s[n - 1] != ']')
                return fail(&ps, ps.line, HPM_MACHINE_ESYNTAX,
                            "syntax error: section header '%s' lacks ']'",
                            show(shown, sizeof shown, s, n));
            nn = n - 2;
            trim(&name, &nn);
            for (k = 1; k < NSECTIONS; k++)
                if (span_eq(name, nn, sections[k]))
                    break;
            if (k == NSECTIONS)
                return fail(&ps, ps.line, HPM_MACHINE_EKEY, "unknown section [%s]",
                            show(shown, sizeof shown, name, nn));
            sec = (unsigned)k;
            if (!ps.section_line[k])
                ps.section_line[k] = ps.line;
            continue;
        }
        {
            const char *eq = memchr(s, '=', n), *key = s, *val;
            size_t kn, vn, i;
            const struct key *k = NULL;
            if (!eq)
                return fail(&ps, ps.line, HPM_MACHINE_ESYNTAX,
                            "syntax error: expected 'key = value' or '[section]', got '%s'",
                            show(shown, sizeof shown, s, n));
            kn = (size_t)(eq - s);
            val = eq + 1;
            vn = n - kn - 1;
            trim(&key, &kn);
            trim(&val, &vn);
            if (kn == 0)
                return fail(&ps, ps.line, HPM_MACHINE_ESYNTAX, "syntax error: missing key");
            for (i = 0; i < NKEYS; i++)
                if (strcmp(keys[i].section, sections[sec]) == 0 &&
                    span_eq(key, kn, keys[i].name)) {
                    k = &keys[i];
                    break;
                }
            if (!k) {
                if (sec == 0)
                    return fail(&ps, ps.line, HPM_MACHINE_EKEY, "unknown key '%s' at top level",
                                show(shown, sizeof shown, key, kn));
                return fail(&ps, ps.line, HPM_MACHINE_EKEY, "unknown key '%s' in [%s]",
                            show(shown, sizeof shown, key, kn), sections[sec]);
            }
            if (ps.key_line[key_index(k)])
                return fail(&ps, ps.line, HPM_MACHINE_EDUP,
                            "duplicate key '%s' in %s%s%s (first set at line %u)", k->name,
                            sec ? "[" : "", sec ? sections[sec] : "top level", sec ? "]" : "",
                            ps.key_line[key_index(k)]);
            if (vn == 0)
                return fail(&ps, ps.line, HPM_MACHINE_EVALUE, "missing value for '%s'", k->name);
            rc = set_value(&ps, m, k, val, vn);
            if (rc)
                return rc;
            ps.key_line[key_index(k)] = ps.line;
        }
    }
    return check_all(&ps, m);
}

/* ------------------------------------------------------------ files */

/* Reads a whole machine file; on error a message naming the file in err.
 * Only regular files: a device (/dev/zero) or a FIFO would never end, or
 * end in something that is not a machine file. */
static int read_file(const char *path, char **out, size_t *len, char *err, size_t errlen)
{
    if (access(path, F_OK) != 0 && errno == ENOENT) {
        snprintf(err, errlen, "%s: %s", path, strerror(ENOENT));
        return HPM_MACHINE_ENOTFOUND;
    }
    /* no machine file is near 16 MiB */
    return hpm_file_read(path, 16u << 20, NULL, "a machine file (a text file)", out, len, err,
                         errlen) == 0
               ? 0
               : HPM_MACHINE_EIO;
}

int hpm_machine_load(struct hpm_machine *m, const char *path, char *err, size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;
    int rc;
    if (err && errlen)
        err[0] = 0;
    {
        char msg[512];
        rc = read_file(path, &buf, &len, msg, sizeof msg);
        if (rc) {
            if (err && errlen)
                snprintf(err, errlen, "%s", msg);
            return rc;
        }
    }
    rc = hpm_machine_parse(m, buf, len, path, err, errlen);
    free(buf);
    if (rc == HPM_MACHINE_OK && strcmp(m->name, "default") == 0) {
        /* no `name`: use the base name without extension, as the lookup does */
        const char *b = strrchr(path, '/'), *dot;
        size_t n;
        b = b ? b + 1 : path;
        dot = strrchr(b, '.');
        n = dot && dot != b ? (size_t)(dot - b) : strlen(b);
        if (n >= sizeof m->name)
            n = sizeof m->name - 1;
        memcpy(m->name, b, n);
        m->name[n] = 0;
    }
    return rc;
}

/* ------------------------------------------------------------ the host */

int hpm_machine_from_sysfs(struct hpm_machine *m, const char *cpu_root)
{
    struct hpm_host read;
    const struct hpm_host *host = cpu_root ? &read : hpm_host();
    unsigned i;
    if (cpu_root)
        hpm_host_read(&read, cpu_root);
    hpm_machine_defaults(m);
    strcpy(m->name, "host");
    /* the x86-64 hosts hpm runs on keep their L1Ds coherent with MESI (or
     * a variant of it: MESIF, MOESI) */
    m->hier.coherence = HPM_COH_MESI;
    /* hpm roofline's ceilings for a current x86-64 core (no file states
     * them, sysfs does not tell them): two 256-bit FMA ports (Intel since
     * Haswell, AMD since Zen 2), 4, 8 and 16 double-precision flops a
     * cycle by width, twice as many in single precision; two 32-byte
     * loads and a store a cycle from the L1 (64 bytes), 32 from the L2, 16
     * from the L3; dual-channel DDR4-3200, 51.2 GB/s. ASSUMED, not
     * measured: hpm roofline says so. */
    m->roofline.flops_milli[0] = 4000;
    m->roofline.flops_milli[1] = 8000;
    m->roofline.flops_milli[2] = 16000;
    m->roofline.sp_per_dp = 2;
    m->roofline.l1_milli = 64000;
    m->roofline.l2_milli = 32000;
    m->roofline.l3_milli = 16000;
    m->roofline.memory_bytes_per_s = 51200000000ull;
    m->hier.cores = host->cpus > 0 ? host->cpus : 1;
    if (m->hier.cores > 1024)
        m->hier.cores = 1024;
    for (i = 0; i < host->n_caches; i++) {
        const struct hpm_host_cache *hc = &host->caches[i];
        struct hpm_cache_params *c = NULL, t;
        uint64_t lines, sets;
        if (hc->level == 1 && hc->type == 'D')
            c = &m->hier.l1d;
        else if (hc->level == 1 && hc->type == 'I')
            c = &m->hier.l1i;
        else if (hc->level == 2 && hc->type != 'I')
            c = &m->hier.l2;
        else if (hc->level == 3 && hc->type != 'I')
            c = &m->hier.l3;
        if (!c)
            continue;
        t = *c;
        if ((hc->has & HPM_HOST_CACHE_SIZE) && hc->size)
            t.size = hc->size;
        if (hc->has & HPM_HOST_CACHE_WAYS)
            t.assoc = (uint32_t)hc->ways; /* 0 = fully associative, as here */
        if ((hc->has & HPM_HOST_CACHE_LINE) && hc->line >= 4 && hc->line <= (1u << 20) &&
            !(hc->line & (hc->line - 1)))
            t.line = (uint32_t)hc->line;
        /* Models need power-of-two sets: round the set count down. */
        lines = t.size / t.line;
        if (lines == 0)
            continue;
        if (t.assoc > lines)
            t.assoc = 0;
        sets = lines / (t.assoc ? t.assoc : lines);
        if (sets == 0)
            continue;
        while (sets & (sets - 1))
            sets &= sets - 1;
        t.size = sets * (t.assoc ? t.assoc : lines) * t.line;
        if (hpm_cache_params_check(&t) == HPM_MODEL_OK)
            *c = t;
    }
    return HPM_MACHINE_OK;
}

int hpm_machine_from_host(struct hpm_machine *m) { return hpm_machine_from_sysfs(m, NULL); }

int hpm_machine_find(struct hpm_machine *m, const char *dir, const char *name, char *err,
                     size_t errlen)
{
    char path[4096];
    size_t i, n;
    int rc;
    if (err && errlen)
        err[0] = 0;
    if (!name || !dir)
        return HPM_MACHINE_ENAME;
    if (strcmp(name, "host") == 0)
        return hpm_machine_from_host(m);
    n = strlen(name);
    for (i = 0; i < n; i++)
        if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
              (name[i] >= '0' && name[i] <= '9') || name[i] == '_' || name[i] == '-' ||
              name[i] == '.'))
            break;
    if (n == 0 || i < n || name[0] == '.' || n >= HPM_MACHINE_NAME_MAX) {
        if (err && errlen)
            snprintf(err, errlen, "bad machine name '%.64s'", name);
        return HPM_MACHINE_ENAME;
    }
    if ((size_t)snprintf(path, sizeof path, "%s/%s.machine", dir, name) >= sizeof path)
        return HPM_MACHINE_ENAME;
    rc = hpm_machine_load(m, path, err, errlen);
    if (rc == HPM_MACHINE_ENOTFOUND && err && errlen)
        snprintf(err, errlen, "no machine '%s' (no file %s)", name, path);
    return rc;
}
