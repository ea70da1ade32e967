/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report.c - hpm report --folded|--flamegraph [--event NAME] [-o OUT] [FILE]
 *
 * Reads a perf.data file (hpm record's, or perf record's with the same
 * sample fields: src/perfdata), symbolizes every sample's call chain
 * against its process's mappings (src/profile, libdwfl) and writes either
 * collapsed stacks ("main;f;g N", root first, N samples: the input of
 * flamegraph.pl and speedscope) or a self-contained SVG flame graph.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "util/options.h"
#include "fileio.h"
#include "flame/report.h"
#include "perfdata.h"
#include "profile.h"
#include "util/runner.h"

static const char synopsis[] =
    "usage: hpm report (--folded | --flamegraph) [--event NAME] [-o OUT] [FILE]\n"
    "       hpm report --diff --flamegraph [--event NAME] [--scale PCT] [-o OUT] OLD NEW\n"
    "       hpm report --mem [--event NAME] [--top N] [-o OUT] [FILE]\n"
    "\n"
    "Reads FILE (perf.data format; default perf.data, as hpm record writes it) and\n"
    "writes its samples' call stacks, symbolized, as collapsed stacks (--folded:\n"
    "\"main;f;g N\", N samples) or as a self-contained SVG flame graph (--flamegraph),\n"
    "to OUT (default: standard output). With --diff, a differential flame graph of\n"
    "two recordings: NEW's stacks, each frame red where it has more events than in\n"
    "OLD (slower), blue where fewer (faster), the deeper the colour the larger the\n"
    "change: the deepest at the largest change of a frame found in both (or at\n"
    "--scale PCT), as the key below says; --folded --diff writes \"stack OLD NEW\"\n"
    "lines. --mem lists the data\n"
    "objects of the memory samples (globals by variable, heap blocks by allocation\n"
    "site, the stack, other memory) by total latency, with their samples, average\n"
    "latency, the levels that served them and their TLB misses.\n"
    "\n"
    "options:\n";

struct report_opts {
    int folded, flamegraph, diff, mem;
    long top;
    const char *event, *output, *scale;
};

#define REPORT_OPTIONS 9
static void report_table(struct report_opts *o, struct hpm_opt *t)
{
    const struct hpm_opt rows[] = {
        {"--folded", NULL, NULL, "collapsed stacks, one line per distinct stack", HPM_OPT_FLAG,
         &o->folded, NULL, NULL, 0, 0},
        {"--flamegraph", NULL, NULL, "an SVG flame graph", HPM_OPT_FLAG, &o->flamegraph, NULL,
         NULL, 0, 0},
        {"--event", NULL, "NAME",
         "the samples of this event only (hpm:L1D_MISSES or L1D_MISSES) [the first]",
         HPM_OPT_STRING, &o->event, NULL, NULL, 0, 0},
        {"--output", "-o", "OUT", "write to OUT [standard output]", HPM_OPT_STRING, &o->output,
         NULL, NULL, 0, 0},
        {"--mem", NULL, NULL,
         "data objects by total latency, the levels that served them (hpm record's\n"
         "memory samples)",
         HPM_OPT_FLAG, &o->mem, NULL, NULL, 0, 0},
        {"--top", NULL, "N", "--mem: the N objects of most latency [20]", HPM_OPT_LONG, &o->top,
         NULL, NULL, 1, 1000000},
        {"--diff", NULL, NULL, "two files, OLD and NEW: a differential flame graph (red\n"
                               "slower, blue faster)",
         HPM_OPT_FLAG, &o->diff, NULL, NULL, 0, 0},
        {"--scale", NULL, "PCT",
         "--diff: the change (in % of OLD) that gets the deepest colour\n"
         "[the largest change of a frame on both sides]",
         HPM_OPT_STRING, &o->scale, NULL, NULL, 0, 0},
        HPM_OPT_TABLE_END,
    };
    _Static_assert(sizeof rows / sizeof rows[0] == REPORT_OPTIONS, "REPORT_OPTIONS");
    memcpy(t, rows, sizeof rows);
}

/* A perf.data file begins with its magic. */
static int perfdata_head(const char *head, size_t n)
{
    return n >= 8 && memcmp(head, "PERFILE2", 8) == 0;
}

/* ------------------------------------------------------------ symbolizing */

struct name_cache {
    uint64_t *key; /* (mapping + 1) << 48 ^ addr, 0 = empty */
    const char **name;
    size_t cap, n;
};

struct symctx {
    const struct perfdata_file *pf;
    struct hpm_symbols *syms;
    struct name_cache cache;
    char **owned; /* names made here ("[libc.so.6]") */
    size_t n_owned, cap_owned;
    signed char *regular; /* per mapping: its object is a regular file 1, not -1, unknown 0 */
    size_t *by_pid;       /* the mappings' indices by pid, then file order (NULL: scan all) */
};

/* Whether mapping i's object may be opened for symbols: a recording names
 * its objects, and opening a FIFO there would block for good (a device
 * such as /dev/zero is no object either). Said once per object. */
static int object_regular(struct symctx *s, size_t i)
{
    const char *path = s->pf->mmaps[i].path;
    size_t j;
    int fd;
    if (!s->regular)
        return 1; /* no memory for the verdicts: the symbolizer decides */
    if (s->regular[i])
        return s->regular[i] > 0;
    for (j = 0; j < s->pf->n_mmaps; j++)
        if (s->regular[j] && strcmp(s->pf->mmaps[j].path, path) == 0) {
            s->regular[i] = s->regular[j];
            return s->regular[i] > 0;
        }
    /* opened without blocking; a missing file is the symbolizer's to name */
    fd = hpm_file_open_regular(path);
    if (fd >= 0)
        close(fd);
    s->regular[i] = fd < 0 && errno == EINVAL ? -1 : 1;
    if (s->regular[i] < 0)
        fprintf(stderr,
                "hpm report: %s: not a regular file; its frames are named by the object, "
                "without symbols\n",
                path);
    return s->regular[i] > 0;
}

static const char *own(struct symctx *s, char *name)
{
    if (!name)
        return "[unknown]";
    if (s->n_owned == s->cap_owned) {
        char **n = realloc(s->owned, (s->cap_owned = s->cap_owned ? 2 * s->cap_owned : 64) *
                                         sizeof *n);
        if (!n) {
            free(name);
            return "[unknown]";
        }
        s->owned = n;
    }
    s->owned[s->n_owned++] = name;
    return name;
}

/* The mapping of pid that held addr at time: the latest one mapped at or
 * before it (a library mapped after a dlclose where the closed one was
 * names only the later samples; files without times: the last one).
 * Its index, or -1. */
static long mapping_at(const struct symctx *s, uint32_t pid, uint64_t addr, uint64_t time)
{
    long best = -1;
    size_t i, lo = 0, hi = s->pf->n_mmaps, k;
    if (s->by_pid) {
        /* the pid's mappings only: a tree of many processes has many */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (s->pf->mmaps[s->by_pid[mid]].pid < pid)
                lo = mid + 1;
            else
                hi = mid;
        }
        hi = s->pf->n_mmaps;
    }
    for (k = lo; k < hi; k++) {
        const struct perfdata_mmap *c, *b;
        int c_ok, b_ok;
        i = s->by_pid ? s->by_pid[k] : k;
        c = &s->pf->mmaps[i];
        if (s->by_pid && c->pid != pid)
            break;
        if (c->pid != pid || addr < c->start || addr - c->start >= c->len)
            continue;
        if (best < 0) {
            best = (long)i;
            continue;
        }
        b = &s->pf->mmaps[best];
        c_ok = c->time <= time;
        b_ok = b->time <= time;
        /* mapped by then beats mapped later; among those mapped by then the
         * latest (in file order at equal times), else the earliest */
        if ((c_ok && !b_ok) || (c_ok && b_ok && c->time >= b->time) ||
            (!c_ok && !b_ok && c->time < b->time))
            best = (long)i;
    }
    return best;
}

static const struct perfdata_file *sort_pf; /* qsort's context: one sort at a time */

static int cmp_by_pid(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    uint32_t px = sort_pf->mmaps[x].pid, py = sort_pf->mmaps[y].pid;
    if (px != py)
        return px < py ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The index by pid (without memory: none, and mapping_at scans all). */
static void index_mappings(struct symctx *s)
{
    size_t i;
    s->by_pid = malloc((s->pf->n_mmaps ? s->pf->n_mmaps : 1) * sizeof *s->by_pid);
    if (!s->by_pid)
        return;
    for (i = 0; i < s->pf->n_mmaps; i++)
        s->by_pid[i] = i;
    sort_pf = s->pf;
    qsort(s->by_pid, s->pf->n_mmaps, sizeof *s->by_pid, cmp_by_pid);
}

static const char *symbolize(struct symctx *s, long mi, uint64_t addr)
{
    const struct perfdata_mmap *m;
    struct hpm_prof_object o;
    struct hpm_sym sym;
    size_t i = (size_t)mi;
    char *name = NULL;
    if (mi < 0)
        return "[unknown]";
    m = &s->pf->mmaps[i];
    o.start = m->start;
    o.end = m->start + m->len - 1;
    o.offset = m->pgoff;
    o.path = m->path;
    memset(&sym, 0, sizeof sym);
    if (object_regular(s, i) && hpm_symbols_lookup(s->syms, &o, addr, &sym) == 0 && sym.fn)
        return sym.fn;
    {
        /* no symbol: the object, and the function's first address where
         * the unwind table bounds it (a stripped program's functions stay
         * apart in a flame graph) */
        const char *base = strrchr(m->path, '/');
        base = base ? base + 1 : m->path;
        if ((sym.fn_addr ? asprintf(&name, "[%s]+0x%" PRIx64, base, sym.fn_addr)
                         : asprintf(&name, "[%s]", base)) < 0)
            name = NULL;
    }
    return own(s, name);
}

static const char *cached_name(struct symctx *s, uint32_t pid, uint64_t addr, uint64_t time)
{
    struct name_cache *c = &s->cache;
    long mi = mapping_at(s, pid, addr, time);
    /* by mapping, not process: one address may have held two objects */
    uint64_t key = ((uint64_t)(mi + 1) << 48 ^ addr) | 1ULL << 63;
    size_t h, i;
    if (c->n * 2 >= c->cap) {
        struct name_cache nc;
        nc.cap = c->cap ? 2 * c->cap : 1024;
        nc.n = 0;
        nc.key = calloc(nc.cap, sizeof *nc.key);
        nc.name = calloc(nc.cap, sizeof *nc.name);
        if (!nc.key || !nc.name) {
            free(nc.key);
            free(nc.name);
            return symbolize(s, mi, addr);
        }
        for (i = 0; i < c->cap; i++)
            if (c->key[i]) {
                h = (size_t)(c->key[i] * 0x9E3779B97F4A7C15ULL) & (nc.cap - 1);
                while (nc.key[h])
                    h = (h + 1) & (nc.cap - 1);
                nc.key[h] = c->key[i];
                nc.name[h] = c->name[i];
                nc.n++;
            }
        free(c->key);
        free(c->name);
        *c = nc;
    }
    h = (size_t)(key * 0x9E3779B97F4A7C15ULL) & (c->cap - 1);
    while (c->key[h] && c->key[h] != key)
        h = (h + 1) & (c->cap - 1);
    if (!c->key[h]) {
        c->key[h] = key;
        c->name[h] = symbolize(s, mi, addr);
        c->n++;
    }
    return c->name[h];
}

/* ------------------------------------------------------------ stacks */


static int cmp_stack_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_stack(const void *a, const void *b)
{
    return strcmp(((const struct report_stack *)a)->text, ((const struct report_stack *)b)->text);
}

/* One sample's stack, root first; frames of names without ';' (replaced). */
static char *stack_text(struct symctx *s, const struct perfdata_sample *smp)
{
    const char *names[PERFDATA_MAX_CHAIN + 1];
    unsigned n = 0, i;
    size_t len = 1, at = 0;
    char *t;
    if (smp->n_chain == 0) {
        names[n++] = cached_name(s, smp->pid, smp->ip, smp->time);
    } else {
        for (i = 0; i < smp->n_chain && n < PERFDATA_MAX_CHAIN; i++) {
            if (smp->chain[i] >= (uint64_t)PERF_CONTEXT_MAX)
                continue; /* a context marker */
            names[n++] = cached_name(s, smp->pid, smp->chain[i], smp->time);
        }
    }
    if (n == 0)
        names[n++] = "[unknown]";
    for (i = 0; i < n; i++)
        len += strlen(names[i]) + 1;
    t = malloc(len);
    if (!t)
        return NULL;
    for (i = n; i-- > 0;) {
        size_t l = strlen(names[i]), k;
        memcpy(t + at, names[i], l);
        for (k = 0; k < l; k++)
            if (t[at + k] == ';' || t[at + k] == '\n')
                t[at + k] = ':';
        at += l;
        t[at++] = i ? ';' : 0;
    }
    return t;
}

/* ------------------------------------------------------------ flame graph */

struct node {
    const char *name; /* into the stacks' text: not NUL-terminated */
    size_t name_len;
    uint64_t value;
    uint64_t old; /* --diff: OLD's value of the frame */
    struct node *child, *next;
};

static struct node *child_of(struct node *parent, const char *name, size_t len)
{
    struct node *c, *last = NULL;
    for (c = parent->child; c; last = c, c = c->next)
        if (c->name_len == len && !memcmp(c->name, name, len))
            return c;
    c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->name = name;
    c->name_len = len;
    if (last)
        last->next = c;
    else
        parent->child = c;
    return c;
}

static void free_tree(struct node *n)
{
    while (n) {
        struct node *next = n->next;
        free_tree(n->child);
        free(n);
        n = next;
    }
}

static void xml_text(FILE *f, const char *s, size_t len)
{
    size_t i;
    for (i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '&')
            fputs("&amp;", f);
        else if (ch == '<')
            fputs("&lt;", f);
        else if (ch == '>')
            fputs("&gt;", f);
        else if (ch == '"')
            fputs("&quot;", f);
        else if (ch < 0x20 || ch >= 0x7f)
            fputc('?', f); /* keeps the document well-formed whatever the symbol's bytes */
        else
            fputc(ch, f);
    }
}

#define FG_WIDTH 1200.0
#define FG_FRAME 16
#define FG_PAD 30

static unsigned tree_depth(const struct node *n)
{
    unsigned d = 0, c;
    for (; n; n = n->next) {
        c = 1 + tree_depth(n->child);
        if (c > d)
            d = c;
    }
    return d;
}

/* A frame's change as a share of its larger side: (NEW - OLD) / max(OLD,
 * NEW), in -1 (gone) .. 1 (new); +10% is 0.091, a doubling 0.5. */
static double frame_change(const struct node *n)
{
    double base = n->old > n->value ? (double)n->old : (double)n->value;
    return base > 0 ? ((double)n->value - (double)n->old) / base : 0;
}

/* The change that gets the deepest colour (--scale, or the largest change
 * of a frame drawn on both sides: a new or gone frame would flatten every
 * other to white). */
static double diff_scale;
static int scale_given;
static int diff_mode; /* write_svg for --diff: colours and titles by change */

static void largest_change(const struct node *n, uint64_t total, double *max)
{
    for (; n; n = n->next) {
        double k = fabs(frame_change(n));
        if (FG_WIDTH * (double)n->value / (double)total < 0.1)
            continue; /* not drawn */
        if (n->old && n->value && k > *max)
            *max = k;
        largest_change(n->child, total, max);
    }
}

/* A differential frame's colour: red where NEW has more than OLD (slower),
 * blue where fewer (faster), white where equal; the depth in proportion to
 * the change, full at diff_scale and beyond. */
static void diff_colour(double change, unsigned *r, unsigned *g, unsigned *b)
{
    double k = change / diff_scale;
    if (k > 1)
        k = 1;
    if (k < -1)
        k = -1;
    if (k >= 0) {
        *r = 255;
        *g = *b = (unsigned)(255 - 200 * k);
    } else {
        *b = 255;
        *r = *g = (unsigned)(255 + 200 * k);
    }
}

/* The change k as a percentage of OLD, as the frames' titles give it. */
static double change_percent(double k)
{
    return 100.0 * (k >= 0 ? k / (1 - k) : k);
}

/* The key below the frames (at y): the colours from -scale to +scale,
 * labelled as the titles are. */
#define FG_LEGEND 26
static void diff_legend(FILE *f, double y)
{
    int i;
    const int steps = 9;
    double x0 = 10;
    fprintf(f, "<g class=\"legend\"><text x=\"%.1f\" y=\"%.1f\">%+.1f%%</text>\n", x0, y + 12,
            change_percent(-diff_scale));
    for (i = 0; i < steps; i++) {
        unsigned r, g, b;
        double k = diff_scale * (2.0 * i / (steps - 1) - 1);
        diff_colour(k, &r, &g, &b);
        fprintf(f,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"24\" height=\"14\" fill=\"rgb(%u,%u,%u)\" "
                "stroke=\"#ccc\"><title>%+.1f%%</title></rect>\n",
                x0 + 60 + 24 * i, y, r, g, b, change_percent(k));
    }
    fprintf(f,
            "<text x=\"%.1f\" y=\"%.1f\">%+.1f%% or more (%s); frames new or gone: the "
            "deepest colour</text></g>\n",
            x0 + 64 + 24 * steps, y + 12, change_percent(diff_scale),
            scale_given ? "--scale" : "the largest change of a frame on both sides");
}

static void draw(FILE *f, const struct node *n, double x, unsigned depth, unsigned height,
                 uint64_t total)
{
    for (; n; n = n->next) {
        double w = FG_WIDTH * (double)n->value / (double)total;
        double y = FG_PAD + (double)(height - depth - 1) * FG_FRAME;
        unsigned hash = 0;
        size_t i;
        if (w >= 0.1) {
            for (i = 0; i < n->name_len; i++)
                hash = hash * 31 + (unsigned char)n->name[i];
            fprintf(f, "<g><title>");
            xml_text(f, n->name, n->name_len);
            if (diff_mode) {
                unsigned r, g, b;
                diff_colour(frame_change(n), &r, &g, &b);
                fprintf(f, " (%" PRIu64 " events, was %" PRIu64 ", %+.2f%%)</title>", n->value,
                        n->old,
                        n->old ? 100.0 * ((double)n->value - (double)n->old) / (double)n->old
                               : 100.0);
                fprintf(f,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" rx=\"2\" "
                        "fill=\"rgb(%u,%u,%u)\" stroke=\"#ccc\"/>",
                        10.0 + x, y, w, FG_FRAME - 1, r, g, b);
            } else {
                fprintf(f, " (%" PRIu64 " samples, %.2f%%)</title>", n->value,
                        100.0 * (double)n->value / (double)total);
                fprintf(f,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" rx=\"2\" "
                        "fill=\"rgb(%u,%u,%u)\"/>",
                        10.0 + x, y, w, FG_FRAME - 1, 205 + hash % 50, 80 + (hash >> 8) % 130,
                        (hash >> 16) % 60);
            }
            if (w > 30) {
                size_t fit = (size_t)((w - 6) / 7);
                fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", 13.0 + x, y + FG_FRAME - 4);
                if (n->name_len <= fit)
                    xml_text(f, n->name, n->name_len);
                else if (fit > 2) {
                    xml_text(f, n->name, fit - 2);
                    fputs("..", f);
                }
                fputs("</text>", f);
            }
            fputs("</g>\n", f);
            draw(f, n->child, x, depth + 1, height, total);
        }
        x += w;
    }
}

struct out_ctx {
    struct report_stack *stacks;
    size_t n;
    int svg;
    const char *title;
};

static int write_folded(FILE *f, const struct out_ctx *o)
{
    size_t i;
    for (i = 0; i < o->n; i++)
        if (diff_mode)
            fprintf(f, "%s %" PRIu64 " %" PRIu64 "\n", o->stacks[i].text, o->stacks[i].old,
                    o->stacks[i].n);
        else
            fprintf(f, "%s %" PRIu64 "\n", o->stacks[i].text, o->stacks[i].n);
    return ferror(f) ? -1 : 0;
}

static int write_svg(FILE *f, const struct out_ctx *o)
{
    struct node root;
    size_t i;
    unsigned height;
    int rc = 0;
    memset(&root, 0, sizeof root);
    for (i = 0; i < o->n && rc == 0; i++) {
        const char *p = o->stacks[i].text;
        struct node *cur = &root;
        root.value += o->stacks[i].n;
        root.old += o->stacks[i].old;
        if (diff_mode && o->stacks[i].n == 0)
            continue; /* gone in NEW: counted in OLD's total, not drawn */
        while (*p) {
            size_t l = strcspn(p, ";");
            cur = child_of(cur, p, l);
            if (!cur) {
                rc = -1;
                break;
            }
            cur->value += o->stacks[i].n;
            cur->old += o->stacks[i].old;
            p += l + (p[l] == ';');
        }
    }
    height = tree_depth(root.child);
    fprintf(f,
            "<?xml version=\"1.0\" standalone=\"no\"?>\n"
            "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
            "height=\"%u\" font-family=\"monospace\" font-size=\"12\">\n"
            "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n"
            "<text x=\"10\" y=\"20\" font-size=\"14\">",
            FG_WIDTH + 20, FG_PAD + height * FG_FRAME + 10 + (diff_mode ? FG_LEGEND : 0));
    xml_text(f, o->title, strlen(o->title));
    if (diff_mode) {
        fprintf(f, " (%" PRIu64 " events, was %" PRIu64 "; red: more than before, blue: fewer)</text>\n",
                root.value, root.old);
        if (diff_scale <= 0 && root.value)
            largest_change(root.child, root.value, &diff_scale);
        if (diff_scale <= 0)
            diff_scale = 1; /* nothing changed: every frame white */
        diff_legend(f, FG_PAD + height * FG_FRAME + 6);
    } else
        fprintf(f, " (%" PRIu64 " samples)</text>\n", root.value);
    if (root.value)
        draw(f, root.child, 0, 0, height, root.value);
    fputs("</svg>\n", f);
    free_tree(root.child);
    return rc == 0 && !ferror(f) ? 0 : -1;
}

static int write_out(FILE *f, void *ctx)
{
    const struct out_ctx *o = ctx;
    return o->svg ? write_svg(f, o) : write_folded(f, o);
}

/* report.h */
int report_load_stacks(const char *path, const char *event, int events,
                       struct report_stack **out, size_t *n_out, char *title, size_t title_len)
{
    struct perfdata_file pf;
    struct symctx sc;
    struct report_stack *st = NULL;
    char err[600], *text;
    size_t len, i, k, n = 0;
    int ev = 0, rc = 1;
    /* 16 GiB: more than any recording hpm writes */
    if (hpm_file_read(path, (size_t)1 << 34, perfdata_head, "a perf.data file", &text, &len, err,
                      sizeof err) != 0) {
        fprintf(stderr, "hpm report: cannot read %s\n", err);
        return 1;
    }
    if (perfdata_read((unsigned char *)text, len, &pf, err, sizeof err) != 0) {
        fprintf(stderr, "hpm report: %s: %s\n", path, err);
        free(text);
        return 1;
    }
    free(text);
    if (event) {
        for (ev = 0; ev < (int)pf.n_events; ev++) {
            const char *nm = pf.names[ev], *colon = strchr(nm, ':');
            if (!strcmp(nm, event) || (colon && !strcmp(colon + 1, event)))
                break;
        }
        if (ev == (int)pf.n_events) {
            fprintf(stderr, "hpm report: %s has no event %s; it has:", path, event);
            for (k = 0; k < pf.n_events; k++)
                fprintf(stderr, " %s", pf.names[k]);
            fprintf(stderr, "\n");
            perfdata_free(&pf);
            return 2;
        }
    }
    memset(&sc, 0, sizeof sc);
    sc.pf = &pf;
    sc.syms = hpm_symbols_new();
    sc.regular = calloc(pf.n_mmaps ? pf.n_mmaps : 1, 1);
    index_mappings(&sc);
    st = calloc(pf.n_samples ? pf.n_samples : 1, sizeof *st);
    if (!sc.syms || !st)
        goto oom;
    for (i = 0; i < pf.n_samples; i++) {
        if (pf.samples[i].event != (unsigned)ev)
            continue;
        st[n].text = stack_text(&sc, &pf.samples[i]);
        if (!st[n].text)
            goto oom;
        st[n++].n = events && pf.samples[i].period ? pf.samples[i].period : 1;
    }
    /* the same stacks together, in text order (as stackcollapse-perf.pl) */
    qsort(st, n, sizeof *st, cmp_stack);
    for (i = 0, k = 0; i < n; i++) {
        if (k && !strcmp(st[k - 1].text, st[i].text)) {
            st[k - 1].n += st[i].n;
            free(st[i].text);
        } else {
            st[k++] = st[i];
        }
    }
    n = k;
    snprintf(title, title_len, "%s of %s", pf.names[ev], path);
    *out = st;
    *n_out = n;
    st = NULL;
    n = 0;
    rc = 0;
    goto done;
oom:
    fprintf(stderr, "hpm report: out of memory\n");
done:
    if (st)
        for (i = 0; i < n; i++)
            free(st[i].text);
    free(st);
    for (i = 0; i < sc.n_owned; i++)
        free(sc.owned[i]);
    free(sc.owned);
    free(sc.regular);
    free(sc.by_pid);
    free(sc.cache.key);
    free(sc.cache.name);
    if (sc.syms)
        hpm_symbols_free(sc.syms);
    perfdata_free(&pf);
    return rc;
}

/* ------------------------------------------------------------ --mem */

struct mem_row {
    char *name;
    uint64_t samples, latency, tlb_miss;
    uint64_t level[5]; /* L1, L2 (or LFB), L3, RAM, other */
};

struct mem_ctx {
    struct mem_row *rows;
    size_t n;
    long top;
    char title[600];
    uint64_t samples, latency;
};

static int cmp_mem_row(const void *a, const void *b)
{
    const struct mem_row *x = a, *y = b;
    if (x->latency != y->latency)
        return x->latency > y->latency ? -1 : 1;
    if (x->samples != y->samples)
        return x->samples > y->samples ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* A code address's function and line, at the sample's time ("fn:line",
 * "fn" without line information). */
static char *code_where(struct symctx *s, uint32_t pid, uint64_t addr, uint64_t time)
{
    long mi = mapping_at(s, pid, addr, time);
    const char *fn = cached_name(s, pid, addr, time);
    struct hpm_sym sym;
    char *out;
    memset(&sym, 0, sizeof sym);
    if (mi >= 0 && object_regular(s, (size_t)mi)) {
        struct hpm_prof_object o;
        const struct perfdata_mmap *m = &s->pf->mmaps[mi];
        o.start = m->start;
        o.end = m->start + m->len - 1;
        o.offset = m->pgoff;
        o.path = m->path;
        (void)hpm_symbols_lookup(s->syms, &o, addr, &sym);
    }
    if ((sym.line ? asprintf(&out, "%s:%u", fn, sym.line) : asprintf(&out, "%s", fn)) < 0)
        return NULL;
    return out;
}

/* A sample's data object, named as hpm profile names it: "heap from
 * FN:LINE <- CALLER:LINE" (the allocating call, the call into its function), a global's variable "NAME (OBJECT)", "[stack]", "[other]". */
static char *dobj_name(struct symctx *s, const struct perfdata_sample *smp)
{
    const struct perfdata_dobj *d = &s->pf->dobjs[smp->dobj - 1];
    char *out = NULL;
    if (d->kind == PERFDATA_DOBJ_HEAP) {
        /* the allocating call's function and line: two allocation sites
         * of one function stay apart */
        char *at = code_where(s, smp->pid, d->where, smp->time), *by = NULL;
        if (!at)
            return NULL;
        if (d->from && !(by = code_where(s, smp->pid, d->from, smp->time))) {
            free(at);
            return NULL;
        }
        if ((by ? asprintf(&out, "heap from %s <- %s", at, by)
                : asprintf(&out, "heap from %s", at)) < 0)
            out = NULL;
        free(at);
        free(by);
    } else if (d->kind == PERFDATA_DOBJ_GLOBAL && d->path) {
        struct hpm_prof_object o;
        const char *sym = NULL, *base = strrchr(d->path, '/');
        uint64_t start = 0;
        o.start = d->start;
        o.end = d->end;
        o.offset = d->pgoff;
        o.path = d->path;
        base = base ? base + 1 : d->path;
        {
            /* a recording names the file: read only a regular one (a FIFO
             * there would block) */
            int fd = hpm_file_open_regular(d->path);
            if (fd >= 0) {
                close(fd);
                (void)hpm_symbols_data(s->syms, &o, smp->addr, &sym, &start);
            }
        }
        if (asprintf(&out, "%s (%s)", sym ? sym : "(data without a symbol)", base) < 0)
            out = NULL;
    } else {
        static const char *const k[] = {"[heap]", "[global]", "[stack]", "[other]"};
        out = strdup(k[d->kind & 3]);
    }
    return out;
}

static int mem_level(uint64_t data_src)
{
    const char *l = perfdata_data_src_level(data_src);
    return !strcmp(l, "L1") ? 0 : !strcmp(l, "L2") || !strcmp(l, "LFB") ? 1
         : !strcmp(l, "L3") ? 2 : !strcmp(l, "RAM") ? 3 : 4;
}

static int write_mem(FILE *f, void *ctx)
{
    const struct mem_ctx *m = ctx;
    size_t i;
    fprintf(f, "%s\n", m->title);
    fprintf(f, "%" PRIu64 " samples with a data object, %" PRIu64
               " cycles of modeled latency; by latency:\n",
            m->samples, m->latency);
    fprintf(f, "%10s %12s %6s %7s %8s %8s %8s %8s %8s  %s\n", "samples", "latency", "%lat",
            "avg", "L1", "L2", "L3", "RAM", "TLBmiss", "data object");
    for (i = 0; i < m->n && (long)i < m->top; i++) {
        const struct mem_row *r = &m->rows[i];
        fprintf(f, "%10" PRIu64 " %12" PRIu64 " %5.1f%% %7.1f %8" PRIu64 " %8" PRIu64 " %8" PRIu64
                   " %8" PRIu64 " %8" PRIu64 "  %s\n",
                r->samples, r->latency,
                m->latency ? 100.0 * (double)r->latency / (double)m->latency : 0.0,
                r->samples ? (double)r->latency / (double)r->samples : 0.0, r->level[0],
                r->level[1], r->level[2], r->level[3], r->tlb_miss, r->name);
    }
    return ferror(f) ? -1 : 0;
}

static int report_mem(const char *path, const char *event, long top, const char *output)
{
    struct perfdata_file pf;
    struct symctx sc;
    struct mem_ctx mc;
    char err[600], *text;
    size_t len, i, k;
    int ev = 0, rc = 1;
    if (hpm_file_read(path, (size_t)1 << 34, perfdata_head, "a perf.data file", &text, &len, err,
                      sizeof err) != 0) {
        fprintf(stderr, "hpm report: cannot read %s\n", err);
        return 1;
    }
    if (perfdata_read((unsigned char *)text, len, &pf, err, sizeof err) != 0) {
        fprintf(stderr, "hpm report: %s: %s\n", path, err);
        free(text);
        return 1;
    }
    free(text);
    if (!(pf.sample_type & PERF_SAMPLE_DATA_SRC) || !pf.dobjs) {
        fprintf(stderr,
                "hpm report: %s has no data objects (hpm record writes them with the samples' "
                "data sources; not with --no-data-src)\n",
                path);
        perfdata_free(&pf);
        return 2;
    }
    if (event) {
        for (ev = 0; ev < (int)pf.n_events; ev++) {
            const char *nm = pf.names[ev], *colon = strchr(nm, ':');
            if (!strcmp(nm, event) || (colon && !strcmp(colon + 1, event)))
                break;
        }
        if (ev == (int)pf.n_events) {
            fprintf(stderr, "hpm report: %s has no event %s\n", path, event);
            perfdata_free(&pf);
            return 2;
        }
    }
    memset(&sc, 0, sizeof sc);
    memset(&mc, 0, sizeof mc);
    sc.pf = &pf;
    sc.syms = hpm_symbols_new();
    sc.regular = calloc(pf.n_mmaps ? pf.n_mmaps : 1, 1);
    index_mappings(&sc);
    mc.rows = calloc(pf.n_samples ? pf.n_samples : 1, sizeof *mc.rows);
    if (!sc.syms || !mc.rows)
        goto oom;
    for (i = 0; i < pf.n_samples; i++) {
        const struct perfdata_sample *smp = &pf.samples[i];
        struct mem_row *r = &mc.rows[mc.n];
        if (smp->event != (unsigned)ev || !smp->dobj)
            continue;
        r->name = dobj_name(&sc, smp);
        if (!r->name)
            goto oom;
        r->samples = 1;
        r->latency = smp->weight;
        r->level[mem_level(smp->data_src)] = 1;
        r->tlb_miss = perfdata_data_src_tlb_miss(smp->data_src) == 1;
        mc.samples++;
        mc.latency += smp->weight;
        mc.n++;
    }
    /* one row per object name: sorted by name, added up */
    qsort(mc.rows, mc.n, sizeof *mc.rows, cmp_stack_name);
    for (i = 0, k = 0; i < mc.n; i++) {
        if (k && !strcmp(mc.rows[k - 1].name, mc.rows[i].name)) {
            struct mem_row *t = &mc.rows[k - 1];
            unsigned l;
            t->samples += mc.rows[i].samples;
            t->latency += mc.rows[i].latency;
            t->tlb_miss += mc.rows[i].tlb_miss;
            for (l = 0; l < 5; l++)
                t->level[l] += mc.rows[i].level[l];
            free(mc.rows[i].name);
        } else {
            mc.rows[k++] = mc.rows[i];
        }
    }
    mc.n = k;
    qsort(mc.rows, mc.n, sizeof *mc.rows, cmp_mem_row);
    mc.top = top;
    snprintf(mc.title, sizeof mc.title, "%s of %s: data objects (modeled latency in cycles)",
             pf.names[ev], path);
    rc = runner_write_output("hpm report", output, write_mem, &mc) == 0 ? 0 : 1;
    goto done;
oom:
    fprintf(stderr, "hpm report: out of memory\n");
done:
    for (i = 0; i < mc.n; i++)
        free(mc.rows[i].name);
    free(mc.rows);
    for (i = 0; i < sc.n_owned; i++)
        free(sc.owned[i]);
    free(sc.owned);
    free(sc.regular);
    free(sc.by_pid);
    free(sc.cache.key);
    free(sc.cache.name);
    if (sc.syms)
        hpm_symbols_free(sc.syms);
    perfdata_free(&pf);
    return rc;
}

/* --diff: OLD's and NEW's stacks side by side (both sorted by text), n
 * NEW's events and old OLD's, a stack of one side only with 0 on the
 * other. 0, or -1 (memory). */
static int merge_stacks(struct report_stack *a, size_t na, struct report_stack *b, size_t nb, struct report_stack **out,
                        size_t *n_out)
{
    struct report_stack *m = calloc(na + nb ? na + nb : 1, sizeof *m);
    size_t i = 0, j = 0, n = 0;
    if (!m)
        return -1;
    while (i < na || j < nb) {
        int c = i == na ? 1 : j == nb ? -1 : strcmp(a[i].text, b[j].text);
        if (c < 0) {
            m[n] = a[i++];
            m[n].old = m[n].n;
            m[n++].n = 0;
        } else if (c > 0) {
            m[n] = b[j++];
            m[n++].old = 0;
        } else {
            m[n] = b[j++];
            m[n++].old = a[i].n;
            free(a[i++].text);
        }
    }
    *out = m;
    *n_out = n;
    return 0;
}

static void free_stacks(struct report_stack *st, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        free(st[i].text);
    free(st);
}

/* --diff without --event: whether both recordings' stacks are of one
 * event (each file's first), from report_load_stacks' titles ("EVENT of
 * PATH"); says why not. Two events' counts are never set side by side. */
static int same_event(const char *title_a, const char *path_a, const char *title_b,
                      const char *path_b)
{
    size_t ta = strlen(title_a), tb = strlen(title_b), pa = strlen(path_a) + 4,
           pb = strlen(path_b) + 4;
    int ea = ta > pa ? (int)(ta - pa) : (int)ta, eb = tb > pb ? (int)(tb - pb) : (int)tb;
    if (ea == eb && strncmp(title_a, title_b, (size_t)ea) == 0)
        return 1;
    fprintf(stderr,
            "hpm report: %s's stacks are of %.*s, %s's of %.*s: two events are not compared; "
            "give --event NAME, an event both recorded\n",
            path_a, ea, title_a, path_b, eb, title_b);
    return 0;
}

int cmd_report(int argc, char **argv)
{
    struct report_opts o;
    struct hpm_opt table[REPORT_OPTIONS];
    struct out_ctx oc;
    const char *path = "perf.data";
    char title[900], t2[900];
    size_t i;
    int first, rc;

    memset(&o, 0, sizeof o);
    o.top = 20;
    report_table(&o, table);
    rc = hpm_opt_parse("hpm report", table, synopsis, "", argc, argv, &first);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (o.mem) {
        if (o.folded || o.flamegraph || o.diff)
            return hpm_opt_error("hpm report", table, synopsis, "",
                                 "--mem is a report of its own: not with --folded, "
                                 "--flamegraph or --diff%s",
                                 "");
        if (first < argc && !strcmp(argv[first], "--"))
            first++;
        if (first < argc)
            path = argv[first++];
        if (first < argc)
            return hpm_opt_error("hpm report", table, synopsis, "", "one FILE only: '%s'",
                                 argv[first]);
        if (o.output && !runner_output_ok("hpm report", o.output))
            return 2;
        return report_mem(path, o.event, o.top, o.output);
    }
    if (o.folded == o.flamegraph)
        return hpm_opt_error("hpm report", table, synopsis, "",
                             "name one of --folded and --flamegraph%s", "");
    if (first < argc && !strcmp(argv[first], "--"))
        first++;
    if (o.diff && argc - first != 2)
        return hpm_opt_error("hpm report", table, synopsis, "",
                             "--diff compares two files: OLD NEW%s", "");
    if (!o.diff && first < argc)
        path = argv[first++];
    if (!o.diff && first < argc)
        return hpm_opt_error("hpm report", table, synopsis, "", "one FILE only: '%s'",
                             argv[first]);
    if (o.scale) {
        char *end;
        double pct = strtod(o.scale, &end);
        if (end == o.scale || *end || !(pct > 0) || pct > 1e6 || !o.diff)
            return hpm_opt_error("hpm report", table, synopsis, "",
                                 "--scale takes a change in percent above 0, with --diff: '%s'",
                                 o.scale);
        diff_scale = pct / (100.0 + pct); /* the frames' measure of +pct% */
        scale_given = 1;
    }
    if (o.output && !runner_output_ok("hpm report", o.output))
        return 2;
    memset(&oc, 0, sizeof oc);
    if (o.diff) {
        struct report_stack *a = NULL, *b = NULL;
        size_t na = 0, nb = 0;
        /* events, not samples: two recordings may sample at other periods */
        if ((rc = report_load_stacks(argv[first], o.event, 1, &a, &na, t2, sizeof t2)) != 0)
            return rc;
        if ((rc = report_load_stacks(argv[first + 1], o.event, 1, &b, &nb, title, sizeof title)) != 0) {
            free_stacks(a, na);
            return rc;
        }
        if (!o.event && !same_event(t2, argv[first], title, argv[first + 1])) {
            free_stacks(a, na);
            free_stacks(b, nb);
            return 2;
        }
        if (merge_stacks(a, na, b, nb, &oc.stacks, &oc.n) != 0) {
            fprintf(stderr, "hpm report: out of memory\n");
            free_stacks(a, na);
            free_stacks(b, nb);
            return 1;
        }
        free(a);
        free(b);
        {
            size_t l = strlen(title);
            snprintf(title + l, sizeof title - l, " against %s", argv[first]);
        }
        diff_mode = 1;
    } else if ((rc = report_load_stacks(path, o.event, 0, &oc.stacks, &oc.n, title, sizeof title)) != 0) {
        return rc;
    }
    oc.svg = o.flamegraph;
    oc.title = title;
    rc = runner_write_output("hpm report", o.output, write_out, &oc) == 0 ? 0 : 1;
    for (i = 0; i < oc.n; i++)
        free(oc.stacks[i].text);
    free(oc.stacks);
    return rc;
}
