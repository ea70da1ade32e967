/* SPDX-License-Identifier: BSD-3-Clause */
/* catalog.c - the event table and name/code resolution (catalog.h). */
#include "catalog.h"

#include "model.h"

#define HPM_NEED_NONE_ HPM_NEED_NONE
#define KIND_(e, u, n, s, v, t, d) \
    {#e, d, v, t, HPM_UNIT_##u, 0, (uint16_t)(HPM_NEED_##n), HPM_SRC_##s},
#define NODE_KIND_(e, u, n, s, v, t, d) \
    {#e, d, v, t, HPM_UNIT_##u, 1, (uint16_t)(HPM_NEED_##n), HPM_SRC_##s},
static const struct hpm_cat_kind_info kinds[HPM_K_COUNT] = {
    HPM_CAT_CORE_KINDS(KIND_) HPM_CAT_NODE_KINDS(NODE_KIND_)};
#undef KIND_
#undef NODE_KIND_

_Static_assert(HPM_K_CORE_COUNT <= HPM_CAT_CORE_STRIDE, "per-core kinds exceed their block");
_Static_assert(HPM_CAT_NODE_SLOTS == HPM_CAT_CODES - HPM_CAT_NODE_BASE, "first node block");
_Static_assert(HPM_K_NODE_COUNT <= HPM_CAT_NODE_SLOTS + HPM_CAT_NODE_BASE - HPM_CAT_NODE2_BASE,
               "node kinds exceed both node blocks");
_Static_assert(HPM_CAT_MAX_CORES * HPM_CAT_CORE_STRIDE <= HPM_CAT_NODE2_BASE,
               "cores overlap the second node block");
_Static_assert(HPM_CAT_MAX_CORES * HPM_CAT_CORE_STRIDE <= HPM_CAT_NODE_BASE, "cores overlap node");
/* four cores and the node block use distinct counters of one 256-counter UPC */
_Static_assert(4 * HPM_CAT_CORE_STRIDE <= HPM_CAT_NODE_BASE % 256, "4 cores + node != 1 UPC");

static const char *const unit_names[HPM_UNIT_COUNT] = {
    "core", "fpu", "branch", "l1i", "l1d", "l2", "tlb", "l3", "ddr", "timing", "torus",
    "collective", "io", "kernel"};

const struct hpm_cat_kind_info *hpm_catalog_kind(unsigned kind)
{
    return kind < HPM_K_COUNT ? &kinds[kind] : 0;
}

/* Appends s to why (freestanding: no snprintf). */
static void say(char *why, size_t len, const char *a, const char *b)
{
    size_t n = 0;
    if (!why || !len)
        return;
    while (*a && n + 1 < len)
        why[n++] = *a++;
    while (b && *b && n + 1 < len)
        why[n++] = *b++;
    why[n] = 0;
}

static int streq(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

/* Catalog kinds with a perf_event event that counts the same thing on the
 * host's core: the kernel's generic hardware events, and libpfm4's
 * spelling of its generic cache events (PERF_COUNT_HW_CACHE_<CACHE>:<OP>:
 * <RESULT>). A kind whose meaning differs (DTLB_MISSES counts stores too,
 * perf's generic dTLB event loads only; L2/L3 events have no generic form
 * across CPUs) has none: it counts on the virtual PMU only. */
static const struct {
    unsigned kind;
    const char *perf;
} perf_events[] = {
    {HPM_K_INSTRUCTIONS, "INSTRUCTIONS"},
    {HPM_K_CYCLES, "CPU-CYCLES"},
    {HPM_K_BRANCHES, "BRANCH-INSTRUCTIONS"},
    {HPM_K_BR_MISPREDICTS, "BRANCH-MISSES"},
    {HPM_K_LOADS, "PERF_COUNT_HW_CACHE_L1D:READ:ACCESS"},
    {HPM_K_L1D_READ_MISSES, "PERF_COUNT_HW_CACHE_L1D:READ:MISS"},
    {HPM_K_L1I_MISSES, "PERF_COUNT_HW_CACHE_L1I:READ:MISS"},
    {HPM_K_ITLB_MISSES, "PERF_COUNT_HW_CACHE_ITLB:READ:MISS"},
};

const char *hpm_catalog_perf_event(unsigned kind)
{
    unsigned i;
    for (i = 0; i < sizeof perf_events / sizeof perf_events[0]; i++)
        if (perf_events[i].kind == kind)
            return perf_events[i].perf;
    return NULL;
}

int hpm_catalog_check(char *why, size_t len)
{
    unsigned k, j;
    for (k = 0; k < HPM_K_COUNT; k++) {
        const struct hpm_cat_kind_info *x = &kinds[k];
        const char *p;
        size_t n = 0;
        for (p = x->name; *p; p++, n++)
            if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_')) {
                say(why, len, "name not upper case [A-Z0-9_]: ", x->name);
                return -1;
            }
        /* "PU15_" + name + ":level-high" + NUL must fit */
        if (n == 0 || n + 6 + 11 > HPM_CAT_NAME_MAX) {
            say(why, len, "name empty or too long for PU<n>_: ", x->name);
            return -1;
        }
        if (!x->description[0]) {
            say(why, len, "no description: ", x->name);
            return -1;
        }
        if (!streq(x->units, "events") && !streq(x->units, "cycles") &&
            !streq(x->units, "bytes") && !streq(x->units, "ns")) {
            say(why, len, "units not events, cycles, bytes or ns: ", x->name);
            return -1;
        }
        if (x->unit >= HPM_UNIT_COUNT || (x->needs & ~0x3ffu) || x->source > HPM_SRC_HOST) {
            say(why, len, "bad unit or needs: ", x->name);
            return -1;
        }
        /* an exact tool counter is no model's product: a kind that needs
         * the predictor, the TLBs or the timing model has none */
        if (x->tool_event[0] &&
            (x->node || (x->needs & (HPM_NEED_BPRED | HPM_NEED_TLB | HPM_NEED_TIMING)))) {
            say(why, len, "a modeled kind names a tool event: ", x->name);
            return -1;
        }
        /* a tool event is an exact count; host measurements are the I/O
         * and kernel units' (node-wide), in ns or events, never modeled */
        if ((x->tool_event[0] && x->source != HPM_SRC_EXACT) ||
            (x->source == HPM_SRC_HOST &&
             (!x->node || (x->unit != HPM_UNIT_IO && x->unit != HPM_UNIT_KERNEL) || x->needs)) ||
            (streq(x->units, "ns") && x->source != HPM_SRC_HOST)) {
            say(why, len, "source out of place: ", x->name);
            return -1;
        }
        /* the I/O and kernel units are node-wide, counted from system
         * calls or measured, on every machine */
        if ((x->unit == HPM_UNIT_IO || x->unit == HPM_UNIT_KERNEL) &&
            (!x->node || x->needs || x->source == HPM_SRC_MODELED)) {
            say(why, len, "I/O or kernel kind out of place: ", x->name);
            return -1;
        }
        for (p = x->tool_event; *p; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_')) {
                say(why, len, "tool event not lower case: ", x->name);
                return -1;
            }
        /* cycles come from the timing model */
        if (streq(x->units, "cycles") != ((x->needs & HPM_NEED_TIMING) != 0)) {
            say(why, len, "cycles and the timing model disagree: ", x->name);
            return -1;
        }
        /* the network's kinds are the node's, and only the network's */
        if (((x->needs & HPM_NEED_NET) != 0) !=
                (x->unit == HPM_UNIT_TORUS || x->unit == HPM_UNIT_COLLECTIVE) ||
            ((x->needs & HPM_NEED_NET) && !x->node)) {
            say(why, len, "network kind out of place: ", x->name);
            return -1;
        }
        if (x->node != (k >= HPM_K_CORE_COUNT)) {
            say(why, len, "node flag out of place: ", x->name);
            return -1;
        }
        for (j = 0; j < k; j++)
            if (streq(kinds[j].name, x->name)) {
                say(why, len, "name twice: ", x->name);
                return -1;
            }
    }
    /* a perf event stands for a per-core kind of the core's own counting,
     * once; its name is the perf component's (upper case, - : _) */
    for (k = 0; k < sizeof perf_events / sizeof perf_events[0]; k++) {
        const char *p;
        if (perf_events[k].kind >= HPM_K_CORE_COUNT ||
            (kinds[perf_events[k].kind].source == HPM_SRC_HOST)) {
            say(why, len, "a perf event for a node or host kind: ", perf_events[k].perf);
            return -1;
        }
        for (p = perf_events[k].perf; *p; p++)
            if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
                  *p == '-' || *p == ':')) {
                say(why, len, "perf event name not upper case: ", perf_events[k].perf);
                return -1;
            }
        for (j = 0; j < k; j++)
            if (perf_events[j].kind == perf_events[k].kind) {
                say(why, len, "a kind with two perf events: ", perf_events[k].perf);
                return -1;
            }
    }
    if (why && len)
        why[0] = 0;
    return 0;
}

const char *hpm_catalog_unit_name(unsigned unit)
{
    return unit < HPM_UNIT_COUNT ? unit_names[unit] : "?";
}

const char *hpm_catalog_source_name(unsigned source)
{
    return source == HPM_SRC_EXACT ? "exact" : source == HPM_SRC_HOST ? "measured" : "modeled";
}

int hpm_catalog_code(unsigned kind, int core)
{
    if (kind >= HPM_K_COUNT)
        return -1;
    if (kind >= HPM_K_CORE_COUNT) {
        unsigned j = kind - HPM_K_CORE_COUNT;
        return j < HPM_CAT_NODE_SLOTS ? HPM_CAT_NODE_BASE + (int)j
                                      : HPM_CAT_NODE2_BASE + (int)(j - HPM_CAT_NODE_SLOTS);
    }
    if (core < 0 || core >= HPM_CAT_MAX_CORES)
        return -1;
    return core * HPM_CAT_CORE_STRIDE + (int)kind;
}

int hpm_catalog_decode(unsigned code, unsigned *kind, int *core)
{
    unsigned k;
    int c;
    if (code >= HPM_CAT_CODES)
        return -1;
    if (code >= HPM_CAT_NODE2_BASE) {
        k = HPM_K_CORE_COUNT + (code >= HPM_CAT_NODE_BASE
                                    ? code - HPM_CAT_NODE_BASE
                                    : HPM_CAT_NODE_SLOTS + code - HPM_CAT_NODE2_BASE);
        if (k >= HPM_K_COUNT)
            return -1;
        c = -1;
    } else {
        c = (int)(code / HPM_CAT_CORE_STRIDE);
        k = code % HPM_CAT_CORE_STRIDE;
        if (c >= HPM_CAT_MAX_CORES || k >= HPM_K_CORE_COUNT)
            return -1;
    }
    if (kind)
        *kind = k;
    if (core)
        *core = c;
    return 0;
}

unsigned hpm_catalog_features(const struct hpm_hier_params *h)
{
    unsigned f = HPM_NEED_HIER | HPM_NEED_BPRED | HPM_NEED_TLB | HPM_NEED_TIMING | HPM_NEED_FULL;
    if (h->l2.size)
        f |= HPM_NEED_L2;
    if (h->l3.size)
        f |= HPM_NEED_L3;
    /* per-core prefetch events need a private L2 (a shared one's streams
     * belong to no core) */
    if (h->l2.size && h->prefetch.streams && !h->l2.shared)
        f |= HPM_NEED_PREFETCH;
    if (h->coherence != HPM_COH_NONE && h->cores > 1)
        f |= HPM_NEED_COHERENT;
    return f;
}

int hpm_catalog_provided(unsigned kind, int core, unsigned cores, unsigned features)
{
    const struct hpm_cat_kind_info *k = hpm_catalog_kind(kind);
    if (!k)
        return 0;
    if (!k->node && (core < 0 || (unsigned)core >= cores || core >= HPM_CAT_MAX_CORES))
        return 0;
    return (k->needs & ~features) == 0;
}

/* ---------------------------------------------------------------- names */

static char upper(char c)
{
    return (c >= 'a' && c <= 'z') ? (char)(c - 'a' + 'A') : c;
}

int hpm_catalog_name_eq(const char *a, size_t alen, const char *b)
{
    size_t i;
    for (i = 0; i < alen; i++)
        if (b[i] == 0 || upper(a[i]) != upper(b[i]))
            return 0;
    return b[alen] == 0;
}

static size_t cstrlen(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

int hpm_catalog_kind_by_name(const char *s, size_t len)
{
    unsigned k;
    for (k = 0; k < HPM_K_COUNT; k++)
        if (hpm_catalog_name_eq(s, len, kinds[k].name))
            return (int)k;
    return -1;
}

int hpm_catalog_split_core(const char *s, int *core, const char **rest)
{
    const char *p = s + 2;
    int v = 0;
    *rest = s;
    if (upper(s[0]) != 'P' || upper(s[1]) != 'U' || *p < '0' || *p > '9')
        return 0;
    while (*p >= '0' && *p <= '9') {
        if (v < 100000)
            v = v * 10 + (*p - '0');
        p++;
    }
    if (*p != '_')
        return 0;
    *core = v;
    *rest = p + 1;
    return 1;
}

static size_t put(char *buf, size_t len, size_t at, const char *s)
{
    while (*s) {
        if (at + 1 < len)
            buf[at] = *s;
        at++;
        s++;
    }
    return at;
}

int hpm_catalog_code_name(unsigned code, char *buf, size_t len)
{
    unsigned kind;
    int core;
    size_t n = 0;
    if (code >= HPM_CAT_SPECS || hpm_catalog_decode(hpm_catalog_spec_code(code), &kind, &core) != 0)
        return -1;
    if (core >= 0) {
        char num[4];
        int i = 0;
        if (core >= 10)
            num[i++] = (char)('0' + core / 10);
        num[i++] = (char)('0' + core % 10);
        num[i] = 0;
        n = put(buf, len, n, "PU");
        n = put(buf, len, n, num);
        n = put(buf, len, n, "_");
    }
    n = put(buf, len, n, kinds[kind].name);
    if (hpm_catalog_spec_mode(code) != HPM_CAT_LEVEL_HIGH) {
        n = put(buf, len, n, ":");
        n = put(buf, len, n, hpm_catalog_mode_name(hpm_catalog_spec_mode(code)));
    }
    if (len)
        buf[n < len ? n : len - 1] = 0;
    return (int)n;
}

static const char *const mode_names[HPM_CAT_MODES] = {"level-high", "level-low", "edge-rise",
                                                      "edge-fall"};

const char *hpm_catalog_mode_name(unsigned mode)
{
    return mode < HPM_CAT_MODES ? mode_names[mode] : 0;
}

static const char *const mode_meanings[HPM_CAT_MODES] = {
    0, "cycles the signal is low", "rising edges: one per event or episode",
    "falling edges: one per event or episode end"};

const char *hpm_catalog_mode_meaning(unsigned mode)
{
    return mode < HPM_CAT_MODES ? mode_meanings[mode] : 0;
}

int hpm_catalog_mode_by_name(const char *s, size_t len)
{
    unsigned m;
    for (m = 0; m < HPM_CAT_MODES; m++)
        if (hpm_catalog_name_eq(s, len, mode_names[m]))
            return (int)m;
    return -1;
}

int hpm_catalog_spec_decode(unsigned spec, unsigned *kind, int *core, unsigned *mode)
{
    if (spec >= HPM_CAT_SPECS || hpm_catalog_decode(hpm_catalog_spec_code(spec), kind, core) != 0)
        return -1;
    if (mode)
        *mode = hpm_catalog_spec_mode(spec);
    return 0;
}

unsigned hpm_catalog_spec_needs(unsigned spec)
{
    unsigned kind, mode;
    int core;
    if (hpm_catalog_spec_decode(spec, &kind, &core, &mode) != 0)
        return 0;
    return kinds[kind].needs | (mode != HPM_CAT_LEVEL_HIGH ? HPM_NEED_TIMING : 0);
}

const char *hpm_catalog_spec_units(unsigned spec)
{
    unsigned kind;
    if (spec >= HPM_CAT_SPECS || hpm_catalog_decode(hpm_catalog_spec_code(spec), &kind, 0) != 0)
        return 0;
    switch (hpm_catalog_spec_mode(spec)) {
    case HPM_CAT_LEVEL_HIGH: return kinds[kind].units;
    case HPM_CAT_LEVEL_LOW: return "cycles";
    default: return "events";
    }
}

const char *hpm_catalog_strerror(int err)
{
    switch (err) {
    case HPM_CAT_EUNKNOWN:
        return "unknown event name (hpm list shows the catalog)";
    case HPM_CAT_ECORE:
        return "no such core on this machine model";
    case HPM_CAT_ENOTPROVIDED:
        return "the machine model cannot provide this event";
    case HPM_CAT_ESPACE:
        return "too many codes for the buffer";
    default:
        return err >= 0 ? "success" : "unknown catalog error";
    }
}

/* The length of name before a ":MODE" suffix, and the mode (-1: unknown). */
static size_t split_mode(const char *name, int *mode)
{
    size_t n = 0;
    while (name[n] && name[n] != ':')
        n++;
    *mode = name[n] ? hpm_catalog_mode_by_name(name + n + 1, cstrlen(name + n + 1))
                    : HPM_CAT_LEVEL_HIGH;
    return n;
}

int hpm_catalog_parse(const char *name, struct hpm_cat_name *out)
{
    const char *rest;
    int core = -1, kind, mode;
    size_t n;
    if (!name || !out)
        return HPM_CAT_EUNKNOWN;
    out->mode = HPM_CAT_LEVEL_HIGH;
    if (hpm_catalog_split_core(name, &core, &rest)) {
        n = split_mode(rest, &mode);
        kind = hpm_catalog_kind_by_name(rest, n);
        if (kind < 0 || mode < 0 || kinds[kind].node)
            return HPM_CAT_EUNKNOWN;
        if (core >= HPM_CAT_MAX_CORES)
            return HPM_CAT_ECORE;
        out->scope = HPM_CAT_SCOPE_CORE;
        out->core = core;
        out->kind = (unsigned)kind;
        out->mode = (unsigned)mode;
        hpm_catalog_code_name(hpm_catalog_spec((unsigned)hpm_catalog_code((unsigned)kind, core),
                                               (unsigned)mode),
                              out->canonical, sizeof out->canonical);
        return 0;
    }
    n = split_mode(name, &mode);
    kind = hpm_catalog_kind_by_name(name, n);
    if (kind < 0 || mode < 0)
        return HPM_CAT_EUNKNOWN;
    out->scope = kinds[kind].node ? HPM_CAT_SCOPE_NODE : HPM_CAT_SCOPE_KIND;
    out->core = -1;
    out->kind = (unsigned)kind;
    out->mode = (unsigned)mode;
    n = put(out->canonical, sizeof out->canonical, 0, kinds[kind].name);
    if (mode != HPM_CAT_LEVEL_HIGH) {
        n = put(out->canonical, sizeof out->canonical, n, ":");
        n = put(out->canonical, sizeof out->canonical, n, mode_names[mode]);
    }
    out->canonical[n < sizeof out->canonical ? n : sizeof out->canonical - 1] = 0;
    return 0;
}

const char *hpm_catalog_missing_reason(unsigned kind, unsigned features)
{
    unsigned miss;
    if (kind >= HPM_K_COUNT)
        return "no such event";
    miss = kinds[kind].needs & ~features;
    if (!miss)
        return 0;
    if (miss & HPM_NEED_L3)
        return "it has no L3";
    if (miss & HPM_NEED_PREFETCH)
        return "it has no L2 stream prefetcher";
    if (miss & HPM_NEED_L2)
        return "it has no L2";
    if (miss & HPM_NEED_NET)
        return "it has no network (a [torus] section of its machine file)";
    if (miss & HPM_NEED_COHERENT)
        return "its L1 data caches are not coherent ([l1d] coherence, more than one core)";
    return "the machine model cannot provide it";
}

int hpm_catalog_codes(const struct hpm_cat_name *nm, unsigned cores, unsigned features,
                      int *codes, unsigned max)
{
    unsigned n = 0, c;
    if (nm->scope == HPM_CAT_SCOPE_CORE && (unsigned)nm->core >= cores)
        return HPM_CAT_ECORE;
    if (nm->scope != HPM_CAT_SCOPE_KIND) {
        if (!hpm_catalog_provided(nm->kind, nm->core, cores, features))
            return HPM_CAT_ENOTPROVIDED;
        if (max < 1)
            return HPM_CAT_ESPACE;
        codes[0] = (int)hpm_catalog_spec((unsigned)hpm_catalog_code(nm->kind, nm->core), nm->mode);
        return 1;
    }
    if (cores > HPM_CAT_MAX_CORES)
        cores = HPM_CAT_MAX_CORES;
    for (c = 0; c < cores; c++) {
        if (!hpm_catalog_provided(nm->kind, (int)c, cores, features))
            return HPM_CAT_ENOTPROVIDED;
        if (n >= max)
            return HPM_CAT_ESPACE;
        codes[n++] = (int)hpm_catalog_spec((unsigned)hpm_catalog_code(nm->kind, (int)c), nm->mode);
    }
    return (int)n;
}

int hpm_catalog_lookup(const char *name, unsigned cores, unsigned features, int *codes,
                       unsigned max, unsigned *kind_out)
{
    struct hpm_cat_name nm;
    int rc = hpm_catalog_parse(name, &nm);
    if (rc != 0)
        return rc;
    if (kind_out)
        *kind_out = nm.kind;
    return hpm_catalog_codes(&nm, cores, features, codes, max);
}
