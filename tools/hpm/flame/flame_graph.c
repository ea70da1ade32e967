/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * flame_graph.c - collapsed stacks written as they are ("main;f;g N": the
 * input of flamegraph.pl and speedscope) or drawn as a self-contained SVG
 * flame graph; with --diff, a differential one (NEW's frames, coloured by
 * their change against OLD).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flame/flame.h"

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

/* The change that gets the deepest colour (flame_out's scale: --scale, or
 * the largest change of a frame drawn on both sides: a new or gone frame
 * would flatten every other to white). */
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
 * the change, full at scale and beyond. */
static void diff_colour(double scale, double change, unsigned *r, unsigned *g, unsigned *b)
{
    double k = change / scale;
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
static void diff_legend(FILE *f, const struct flame_out *o, double y)
{
    int i;
    const int steps = 9;
    double x0 = 10;
    fprintf(f, "<g class=\"legend\"><text x=\"%.1f\" y=\"%.1f\">%+.1f%%</text>\n", x0, y + 12,
            change_percent(-o->scale));
    for (i = 0; i < steps; i++) {
        unsigned r, g, b;
        double k = o->scale * (2.0 * i / (steps - 1) - 1);
        diff_colour(o->scale, k, &r, &g, &b);
        fprintf(f,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"24\" height=\"14\" fill=\"rgb(%u,%u,%u)\" "
                "stroke=\"#ccc\"><title>%+.1f%%</title></rect>\n",
                x0 + 60 + 24 * i, y, r, g, b, change_percent(k));
    }
    fprintf(f,
            "<text x=\"%.1f\" y=\"%.1f\">%+.1f%% or more (%s); frames new or gone: the "
            "deepest colour</text></g>\n",
            x0 + 64 + 24 * steps, y + 12, change_percent(o->scale),
            o->scale_given ? "--scale" : "the largest change of a frame on both sides");
}

static void draw(FILE *f, const struct flame_out *o, const struct node *n, double x,
                 unsigned depth, unsigned height, uint64_t total)
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
            if (o->diff) {
                unsigned r, g, b;
                diff_colour(o->scale, frame_change(n), &r, &g, &b);
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
            draw(f, o, n->child, x, depth + 1, height, total);
        }
        x += w;
    }
}

static int write_folded(FILE *f, const struct flame_out *o)
{
    size_t i;
    for (i = 0; i < o->n; i++)
        if (o->diff)
            fprintf(f, "%s %" PRIu64 " %" PRIu64 "\n", o->stacks[i].text, o->stacks[i].old,
                    o->stacks[i].n);
        else
            fprintf(f, "%s %" PRIu64 "\n", o->stacks[i].text, o->stacks[i].n);
    return ferror(f) ? -1 : 0;
}

static int write_svg(FILE *f, const struct flame_out *o)
{
    struct flame_out look = *o; /* with the scale found */
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
        if (o->diff && o->stacks[i].n == 0)
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
            FG_WIDTH + 20, FG_PAD + height * FG_FRAME + 10 + (o->diff ? FG_LEGEND : 0));
    xml_text(f, o->title, strlen(o->title));
    if (o->diff) {
        fprintf(f, " (%" PRIu64 " events, was %" PRIu64 "; red: more than before, blue: fewer)</text>\n",
                root.value, root.old);
        if (look.scale <= 0 && root.value)
            largest_change(root.child, root.value, &look.scale);
        if (look.scale <= 0)
            look.scale = 1; /* nothing changed: every frame white */
        diff_legend(f, &look, FG_PAD + height * FG_FRAME + 6);
    } else
        fprintf(f, " (%" PRIu64 " samples)</text>\n", root.value);
    if (root.value)
        draw(f, &look, root.child, 0, 0, height, root.value);
    fputs("</svg>\n", f);
    free_tree(root.child);
    return rc == 0 && !ferror(f) ? 0 : -1;
}

/* flame.h */
int flame_write(FILE *f, void *ctx)
{
    const struct flame_out *o = ctx;
    return o->svg ? write_svg(f, o) : write_folded(f, o);
}
