/* SPDX-License-Identifier: BSD-3-Clause */
/* catalog.c - the event table and name/code resolution (catalog.h). */
#include "catalog.h"

#include "model.h"

#define HPM_NEED_NONE_ HPM_NEED_NONE
#define KIND_(e, u, n, d) {#e, d, HPM_UNIT_##u, 0, (uint16_t)(HPM_NEED_##n)},
#define NODE_KIND_(e, u, n, d) {#e, d, HPM_UNIT_##u, 1, (uint16_t)(HPM_NEED_##n)},
static const struct hpm_cat_kind_info kinds[HPM_K_COUNT] = {
    HPM_CAT_CORE_KINDS(KIND_) HPM_CAT_NODE_KINDS(NODE_KIND_)};
#undef KIND_
#undef NODE_KIND_

_Static_assert(HPM_K_CORE_COUNT <= HPM_CAT_CORE_STRIDE, "per-core kinds exceed their block");
_Static_assert(HPM_K_NODE_COUNT <= HPM_CAT_CODES - HPM_CAT_NODE_BASE, "node kinds exceed block");
_Static_assert(HPM_CAT_MAX_CORES * HPM_CAT_CORE_STRIDE <= HPM_CAT_NODE_BASE, "cores overlap node");
/* four cores and the node block use distinct counters of one 256-counter UPC */
_Static_assert(4 * HPM_CAT_CORE_STRIDE <= HPM_CAT_NODE_BASE % 256, "4 cores + node != 1 UPC");

static const char *const unit_names[HPM_UNIT_COUNT] = {
    "core", "fpu", "branch", "l1i", "l1d", "l2", "tlb", "l3", "ddr", "timing"};

const struct hpm_cat_kind_info *hpm_catalog_kind(unsigned kind)
{
    return kind < HPM_K_COUNT ? &kinds[kind] : 0;
}

const char *hpm_catalog_unit_name(unsigned unit)
{
    return unit < HPM_UNIT_COUNT ? unit_names[unit] : "?";
}

int hpm_catalog_code(unsigned kind, int core)
{
    if (kind >= HPM_K_COUNT)
        return -1;
    if (kind >= HPM_K_CORE_COUNT)
        return HPM_CAT_NODE_BASE + (int)(kind - HPM_K_CORE_COUNT);
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
    if (code >= HPM_CAT_NODE_BASE) {
        k = HPM_K_CORE_COUNT + (code - HPM_CAT_NODE_BASE);
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

static int name_eq(const char *a, const char *b)
{
    while (*a && *b && upper(*a) == upper(*b)) {
        a++;
        b++;
    }
    return *a == 0 && *b == 0;
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
    if (hpm_catalog_decode(code, &kind, &core) != 0)
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
    if (len)
        buf[n < len ? n : len - 1] = 0;
    return (int)n;
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

static int find_kind(const char *name)
{
    unsigned k;
    for (k = 0; k < HPM_K_COUNT; k++)
        if (name_eq(name, kinds[k].name))
            return (int)k;
    return -1;
}

int hpm_catalog_lookup(const char *name, unsigned cores, unsigned features, int *codes,
                       unsigned max, unsigned *kind_out)
{
    int kind, core = -1;
    unsigned n = 0, c;
    if (!name)
        return HPM_CAT_EUNKNOWN;
    if (upper(name[0]) == 'P' && upper(name[1]) == 'U' && name[2] >= '0' && name[2] <= '9') {
        const char *p = name + 2;
        int v = 0;
        while (*p >= '0' && *p <= '9' && v < 1000)
            v = v * 10 + (*p++ - '0');
        if (*p != '_')
            return HPM_CAT_EUNKNOWN;
        kind = find_kind(p + 1);
        if (kind < 0 || kind >= HPM_K_CORE_COUNT)
            return HPM_CAT_EUNKNOWN;
        if ((unsigned)v >= cores || v >= HPM_CAT_MAX_CORES)
            return HPM_CAT_ECORE;
        core = v;
    } else {
        kind = find_kind(name);
        if (kind < 0)
            return HPM_CAT_EUNKNOWN;
    }
    if (kind_out)
        *kind_out = (unsigned)kind;
    if (kinds[kind].node || core >= 0) {
        if (!hpm_catalog_provided((unsigned)kind, core, cores, features))
            return HPM_CAT_ENOTPROVIDED;
        if (max < 1)
            return HPM_CAT_ESPACE;
        codes[0] = hpm_catalog_code((unsigned)kind, core);
        return 1;
    }
    if (cores > HPM_CAT_MAX_CORES)
        cores = HPM_CAT_MAX_CORES;
    for (c = 0; c < cores; c++) {
        if (!hpm_catalog_provided((unsigned)kind, (int)c, cores, features))
            return HPM_CAT_ENOTPROVIDED;
        if (n >= max)
            return HPM_CAT_ESPACE;
        codes[n++] = hpm_catalog_code((unsigned)kind, (int)c);
    }
    return (int)n;
}
