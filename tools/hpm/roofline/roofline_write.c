/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roofline_write.c - hpm roofline's table as text, CSV and JSON, and its
 * picture (gnuplot's SVG), all numbered alike (roofline.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plot/plot.h"
#include "roofline/roofline.h"

static const char *const width_name[3] = {"scalar", "128-bit", "256-bit"};

/* A measured peak above the machine file's says why (the timing model
 * charges every FP instruction cpi_fp cycles, whatever its width). */
static void above_peak_notes(FILE *f, const struct ceilings *c, const struct hpm_machine *m,
                             const struct measured *me)
{
    unsigned w;
    for (w = 0; w < 3; w++)
        if (me->peak[w] > c->peak[0][w] * 1.001)
            fprintf(f,
                    "  note: the measured %s peak (%.3g GFLOP/s) is above machine %s's own "
                    "(%.3g): its timing model charges an FP instruction cpi_fp cycles whatever "
                    "its width, where the file's flops_per_cycle_%s is what the hardware "
                    "retires (docs/roofline.md)\n",
                    width_name[w], me->peak[w] / 1e9, m->name, c->peak[0][w] / 1e9,
                    w == 0 ? "scalar" : w == 1 ? "128" : "256");
}

const char *roofline_bound_name(int b)
{
    return b < 0 ? "-" : b == LV_N ? "peak" : roofline_level_name[b];
}

void roofline_print_text(FILE *f, const struct item *it, size_t n, const struct ceilings *c,
                       const struct hpm_machine *m, const char *where, const struct measured *me)
{
    size_t i;
    unsigned l;
    fprintf(f, "machine %s (%s), one core, FLOP/s of modeled time:\n", m->name, where);
    fprintf(f, "  peak GFLOP/s double precision: scalar %.3g, 128-bit %.3g, 256-bit %.3g; single: "
           "%.3g, %.3g, %.3g\n",
           c->peak[0][0] / 1e9, c->peak[0][1] / 1e9, c->peak[0][2] / 1e9, c->peak[1][0] / 1e9,
           c->peak[1][1] / 1e9, c->peak[1][2] / 1e9);
    fprintf(f, "  bandwidth GB/s:");
    for (l = 0; l < LV_N; l++)
        if (c->bw[l] > 0) {
            fprintf(f, " %s %.3g", roofline_level_name[l], c->bw[l] / 1e9);
            if (c->bw[l] < c->bw_file[l])
                fprintf(f, " (file: %.3g%s)", c->bw_file[l] / 1e9, l == LV_DDR ? ", the node's" : "");
        }
    fprintf(f, "\n");
    for (l = 0; l < LV_N; l++)
        if (c->bw[l] > 0 && c->bw[l] < c->bw_file[l]) {
            fprintf(f, "  one core moves a level's bytes at most at the rate of the levels nearer "
                       "it (they pass through them)\n");
            break;
        }
    if (me->have) {
        fprintf(f, "  measured on the model (hpm-roofline-kernels): peak GFLOP/s double precision: "
               "scalar %.3g, 128-bit %.3g, 256-bit %.3g\n  measured bandwidth GB/s:",
               me->peak[0] / 1e9, me->peak[1] / 1e9, me->peak[2] / 1e9);
        for (l = 0; l < LV_N; l++)
            if (me->bw[l] > 0)
                fprintf(f, " %s %.3g", roofline_level_name[l], me->bw[l] / 1e9);
        fprintf(f, "\n");
        above_peak_notes(f, c, m, me);
    }
    fprintf(f, "  bound: the roof that holds each (machine file); model: the same with the "
           "measured ceilings\n");
    fprintf(f, "\n%3s %-5s %10s %7s %9s %9s %9s %9s %-5s %8s %-5s  %s\n", "#", "kind", "GFLOP/s",
           "%peak", "AI L1", "AI L2", "AI L3", "AI DDR", "bound", "headroom", "model", "name");
    for (i = 0; i < n; i++) {
        fprintf(f, "%3zu %-5s %10.4g %6.1f%%", i + 1, it[i].is_loop ? "loop" : "func", it[i].gflops,
               it[i].peak > 0 ? 100.0 * it[i].gflops * 1e9 / it[i].peak : 0.0);
        for (l = 0; l < LV_N; l++) {
            if (it[i].bytes[l] > 0)
                fprintf(f, " %9.4g", it[i].ai[l]);
            else
                fprintf(f, " %9s", "-");
        }
        fprintf(f, " %-5s %7.1fx %-5s  %s", roofline_bound_name(it[i].bound),
               it[i].gflops > 0 ? it[i].roof / (it[i].gflops * 1e9) : 0.0,
               roofline_bound_name(it[i].model_bound), it[i].name);
        if (it[i].is_loop)
            fprintf(f, " (%" PRIu64 " entries, trip %.4g)", it[i].entries, it[i].trip);
        fprintf(f, "\n");
    }
}

void roofline_print_csv(FILE *f, const struct item *it, size_t n)
{
    size_t i;
    unsigned l;
    fprintf(f, "kind,name,object,flops,flops_dp,flops_sp,cycles,gflops,peak_gflops,bytes_l1,bytes_l2,"
           "bytes_l3,bytes_ddr,ai_l1,ai_l2,ai_l3,ai_ddr,bound,roof_gflops,model_bound,"
           "model_roof_gflops,entries,trip,number\n");
    for (i = 0; i < n; i++) {
        const char *s;
        fprintf(f, "%s,\"", it[i].is_loop ? "loop" : "function");
        for (s = it[i].name; *s; s++)
            fprintf(f, *s == '"' ? "\"\"" : "%c", *s);
        fprintf(f, "\",\"");
        for (s = it[i].object; *s; s++)
            fprintf(f, *s == '"' ? "\"\"" : "%c", *s);
        fprintf(f, "\",%.0f,%.0f,%.0f,%.0f,%.6g,%.6g", it[i].flops, it[i].flops_dp, it[i].flops_sp,
               it[i].cycles, it[i].gflops, it[i].peak / 1e9);
        for (l = 0; l < LV_N; l++)
            fprintf(f, ",%.0f", it[i].bytes[l]);
        for (l = 0; l < LV_N; l++)
            fprintf(f, ",%.6g", it[i].ai[l]);
        fprintf(f, ",%s,%.6g,%s,%.6g,%" PRIu64 ",%.6g,%zu\n", roofline_bound_name(it[i].bound),
                it[i].roof / 1e9, roofline_bound_name(it[i].model_bound), it[i].model_roof / 1e9,
                it[i].entries, it[i].trip, i + 1);
    }
}

int roofline_print_json(FILE *f, const struct item *it, size_t n, const struct ceilings *c,
                      const struct hpm_machine *m, const struct item *all,
                      const struct measured *me)
{
    json_t *root = json_object(), *items = json_array(), *ceil = json_object(), *bw = json_object();
    size_t i;
    unsigned l;
    int rc;
    static const char *const wn[3] = {"scalar", "128", "256"};
    json_t *peak = json_object();
    for (l = 0; l < 3; l++) {
        json_t *pw = json_object();
        json_object_set_new(pw, "dp", json_real(c->peak[0][l]));
        json_object_set_new(pw, "sp", json_real(c->peak[1][l]));
        json_object_set_new(peak, wn[l], pw);
    }
    json_t *bwf = json_object();
    for (l = 0; l < LV_N; l++)
        if (c->bw[l] > 0) {
            json_object_set_new(bw, roofline_level_name[l], json_real(c->bw[l]));
            json_object_set_new(bwf, roofline_level_name[l], json_real(c->bw_file[l]));
        }
    json_object_set_new(ceil, "bytes_per_s_machine_file", bwf);
    json_object_set_new(ceil, "peak_flops_per_s", peak);
    json_object_set_new(ceil, "bytes_per_s", bw);
    if (me->have) {
        json_t *mo = json_object(), *mp = json_object(), *mb = json_object();
        for (l = 0; l < 3; l++)
            if (me->peak[l] > 0)
                json_object_set_new(mp, wn[l], json_real(me->peak[l]));
        for (l = 0; l < LV_N; l++)
            if (me->bw[l] > 0)
                json_object_set_new(mb, roofline_level_name[l], json_real(me->bw[l]));
        json_object_set_new(mo, "peak_dp_flops_per_s", mp);
        json_object_set_new(mo, "bytes_per_s", mb);
        json_object_set_new(mo, "source", json_string("measured on the model: "
                                                      "hpm-roofline-kernels under hpm profile"));
        json_object_set_new(root, "measured", mo);
    }
    json_object_set_new(root, "machine", json_string(m->name));
    json_object_set_new(root, "frequency_hz", json_integer((json_int_t)m->frequency_hz));
    json_object_set_new(root, "ceilings", ceil);
    for (i = 0; i < n; i++) {
        json_t *o = json_object(), *b = json_object(), *ai = json_object();
        json_object_set_new(o, "number", json_integer((json_int_t)(i + 1))); /* the picture's */
        json_object_set_new(o, "kind", json_string(it[i].is_loop ? "loop" : "function"));
        json_object_set_new(o, "name", json_string(it[i].name));
        json_object_set_new(o, "object", json_string(it[i].object));
        json_object_set_new(o, "flops", json_real(it[i].flops));
        json_object_set_new(o, "flops_dp", json_real(it[i].flops_dp));
        json_object_set_new(o, "flops_sp", json_real(it[i].flops_sp));
        json_object_set_new(o, "cycles", json_real(it[i].cycles));
        json_object_set_new(o, "gflops", json_real(it[i].gflops));
        for (l = 0; l < LV_N; l++) {
            json_object_set_new(b, roofline_level_name[l], json_real(it[i].bytes[l]));
            json_object_set_new(ai, roofline_level_name[l], json_real(it[i].ai[l]));
        }
        json_object_set_new(o, "bytes", b);
        json_object_set_new(o, "intensity", ai);
        json_object_set_new(o, "bound", json_string(roofline_bound_name(it[i].bound)));
        if (it[i].model_bound >= 0) {
            json_object_set_new(o, "model_bound", json_string(roofline_bound_name(it[i].model_bound)));
            json_object_set_new(o, "model_roof_gflops", json_real(it[i].model_roof / 1e9));
        }
        json_object_set_new(o, "roof_gflops", json_real(it[i].roof / 1e9));
        json_object_set_new(o, "peak_gflops", json_real(it[i].peak / 1e9));
        if (it[i].is_loop) {
            json_object_set_new(o, "entries", json_integer((json_int_t)it[i].entries));
            json_object_set_new(o, "trip", json_real(it[i].trip));
        }
        json_array_append_new(items, o);
    }
    json_object_set_new(root, "items", items);
    {
        /* the whole program: every function's self costs (hpm count's totals) */
        json_t *t = json_object(), *b = json_object();
        json_object_set_new(t, "flops", json_real(all->flops));
        json_object_set_new(t, "flops_dp", json_real(all->flops_dp));
        json_object_set_new(t, "flops_sp", json_real(all->flops_sp));
        json_object_set_new(t, "cycles", json_real(all->cycles));
        for (l = 0; l < LV_N; l++)
            json_object_set_new(b, roofline_level_name[l], json_real(all->bytes[l]));
        json_object_set_new(t, "bytes", b);
        json_object_set_new(root, "totals", t);
    }
    rc = json_dumpf(root, f, JSON_INDENT(1)) == 0 ? 0 : 1;
    fputc('\n', f);
    json_decref(root);
    return rc;
}

/* ---------------------------------------------------------------- picture
 * gnuplot's SVG, log-log: every roof once (levels or widths with the same
 * ceiling share a line and name them all), every item a point numbered as
 * in the table with a key entry of its own, the axes fitted to the points
 * and the roofs' knees, and the numbers placed apart from each other and
 * from the points (the frame is fixed, so hpm knows where gnuplot puts
 * them). */

#define PIC_W 1200.0
#define PIC_H 640.0
#define FRAME_L 0.08 /* the plot's frame, as shares of the picture */
#define FRAME_R 0.55
#define FRAME_B 0.10
#define FRAME_T 0.92
#define CHAR_W 7.0   /* gnuplot's 12-pixel font: about 7 pixels a character */
#define LABEL_RGB "#202080"

struct pic_point {
    double x, y;   /* intensity, GFLOP/s */
    double px, py; /* where it is drawn, in the picture's pixels */
    size_t item;
    int no_bytes;  /* no memory traffic: drawn at the right edge */
    int label;     /* 1: it carries a label (the first of its cluster) */
    char text[48]; /* the label: its number, or those of the points on it */
    double lx, ly; /* the label's left end and vertical middle */
};

struct pic_axes {
    double xlo, xhi, ylo, yhi;
};

static double decade_below(double v) { return pow(10, floor(log10(v))); }
static double decade_above(double v) { return pow(10, ceil(log10(v))); }

static double max_peak(const struct ceilings *c)
{
    double p = 0;
    unsigned w;
    for (w = 0; w < 3; w++)
        if (c->peak[0][w] > p)
            p = c->peak[0][w];
    return p;
}

/* Axes that hold every point and every roof's knee, in whole decades. */
static void fit_axes(const struct pic_point *pt, size_t n, const struct ceilings *c,
                     struct pic_axes *a)
{
    double pk = max_peak(c) / 1e9, xlo = 1e300, xhi = 0, ylo = pk, yhi = pk;
    size_t i;
    unsigned l;
    int edge = 0;
    for (l = 0; l < LV_N; l++)
        if (c->bw[l] > 0) {
            double knee = pk / (c->bw[l] / 1e9);
            xlo = fmin(xlo, knee);
            xhi = fmax(xhi, knee);
        }
    for (i = 0; i < n; i++) {
        edge |= pt[i].no_bytes;
        if (!pt[i].no_bytes) {
            xlo = fmin(xlo, pt[i].x);
            xhi = fmax(xhi, pt[i].x);
        }
        ylo = fmin(ylo, pt[i].y);
        yhi = fmax(yhi, pt[i].y);
    }
    if (!(xhi > 0)) {
        xlo = 0.01;
        xhi = 100;
    }
    a->xlo = decade_below(xlo / 3);
    a->xhi = decade_above(xhi * 3) * (edge ? 10 : 1);
    a->ylo = decade_below(ylo / 3);
    a->yhi = decade_above(yhi * 2);
}

static void place_point(struct pic_point *p, const struct pic_axes *a)
{
    double fw = (FRAME_R - FRAME_L) * PIC_W, fh = (FRAME_T - FRAME_B) * PIC_H;
    double x = p->no_bytes ? a->xhi / 2 : p->x;
    p->px = FRAME_L * PIC_W + log10(x / a->xlo) / log10(a->xhi / a->xlo) * fw;
    p->py = (1 - FRAME_B) * PIC_H - log10(p->y / a->ylo) / log10(a->yhi / a->ylo) * fh;
}

struct box {
    double x0, y0, x1, y1;
};

static int overlaps(const struct box *a, const struct box *b)
{
    return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

static struct box label_box(double lx, double ly, const char *text)
{
    struct box b = {lx, ly - 9, lx + CHAR_W * (double)strlen(text), ly + 5};
    return b;
}

/* Points drawn within 6 pixels of each other share one label ("3,4");
 * every label then takes the first place near its point that keeps clear
 * of the other labels, of the points and of the frame's edges. */
static void place_labels(struct pic_point *pt, size_t n)
{
    static const double off[][2] = {{7, -7},  {7, 9},   {-1, -7},  {-1, 9},  {7, -19},
                                    {7, 21},  {-1, -19}, {-1, 21}, {18, 0},  {-12, 0},
                                    {7, -31}, {7, 33},  {-1, -31}, {-1, 33}, {30, -7},
                                    {30, 9}};
    struct box frame = {FRAME_L * PIC_W, (1 - FRAME_T) * PIC_H, FRAME_R * PIC_W,
                        (1 - FRAME_B) * PIC_H};
    size_t i, j, k;
    for (i = 0; i < n; i++) {
        pt[i].label = 1;
        snprintf(pt[i].text, sizeof pt[i].text, "%zu", pt[i].item + 1);
        for (j = 0; j < i; j++)
            if (pt[j].label && fabs(pt[j].px - pt[i].px) < 6 && fabs(pt[j].py - pt[i].py) < 6) {
                size_t l = strlen(pt[j].text);
                snprintf(pt[j].text + l, sizeof pt[j].text - l, ",%zu", pt[i].item + 1);
                pt[i].label = 0;
                break;
            }
    }
    for (i = 0; i < n; i++) {
        size_t best = 0;
        if (!pt[i].label)
            continue;
        for (k = 0; k < sizeof off / sizeof off[0]; k++) {
            double w = CHAR_W * (double)strlen(pt[i].text);
            double lx = pt[i].px + (off[k][0] < 0 ? off[k][0] - w : off[k][0]);
            struct box b = label_box(lx, pt[i].py + off[k][1], pt[i].text);
            int clear = b.x0 >= frame.x0 && b.x1 <= frame.x1 && b.y0 >= frame.y0 &&
                        b.y1 <= frame.y1;
            for (j = 0; clear && j < n; j++) {
                struct box mark = {pt[j].px - 5, pt[j].py - 5, pt[j].px + 5, pt[j].py + 5};
                struct box other;
                clear = !overlaps(&b, &mark);
                if (clear && j < i && pt[j].label) {
                    other = label_box(pt[j].lx, pt[j].ly, pt[j].text);
                    clear = !overlaps(&b, &other);
                }
            }
            if (clear) {
                best = k;
                break;
            }
        }
        pt[i].lx = pt[i].px + (off[best][0] < 0
                                   ? off[best][0] - CHAR_W * (double)strlen(pt[i].text)
                                   : off[best][0]);
        pt[i].ly = pt[i].py + off[best][1];
    }
}

/* One line per distinct ceiling: the levels (or widths) that have it named
 * together, "L1, L2". */
static void names_with(char *buf, size_t len, const double *v, unsigned n, unsigned at,
                       const char *const *name)
{
    unsigned j;
    size_t used = 0;
    buf[0] = 0;
    for (j = at; j < n; j++)
        if (v[j] > 0 && fabs(v[j] - v[at]) <= 1e-9 * v[at] && used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name[j]);
}

static int first_with(const double *v, unsigned at)
{
    unsigned j;
    for (j = 0; j < at; j++)
        if (v[j] > 0 && fabs(v[j] - v[at]) <= 1e-9 * v[at])
            return 0;
    return 1;
}

/* A name fit for a gnuplot string and a key line: printable, at most 48
 * characters (a key wider than the room right of the frame is not drawn:
 * gnuplot drops it). */
static void key_name(char *buf, size_t len, const char *s)
{
    size_t i;
    snprintf(buf, len, "%.48s%s", s, strlen(s) > 48 ? "..." : "");
    for (i = 0; buf[i]; i++)
        if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] >= 0x7f)
            buf[i] = '?';
}

static void plot_roofs(FILE *g, const struct ceilings *c, const struct measured *me)
{
    const double pk = max_peak(c) / 1e9;
    double dp[3];
    char names[64];
    unsigned l, w;
    for (l = 0; l < LV_N; l++) {
        if (c->bw[l] <= 0 || !first_with(c->bw, l))
            continue;
        names_with(names, sizeof names, c->bw, LV_N, l, roofline_level_name);
        fprintf(g, "(x*%.9g < %.9g ? x*%.9g : %.9g) with lines lw 2 title '%s roof (%.3g GB/s",
                c->bw[l] / 1e9, pk, c->bw[l] / 1e9, pk, names, c->bw[l] / 1e9);
        if (c->bw[LV_DDR] == c->bw[l] && c->bw[LV_DDR] < c->bw_file[LV_DDR])
            fprintf(g, "; the node''s DDR: %.3g", c->bw_file[LV_DDR] / 1e9);
        fprintf(g, ")', ");
    }
    for (w = 0; w < 3; w++)
        dp[w] = c->peak[0][w];
    for (w = 0; w < 3; w++) {
        if (!first_with(dp, w))
            continue;
        names_with(names, sizeof names, dp, 3, w, width_name);
        fprintf(g, "%.9g with lines dashtype 2 title 'peak %s dp (%.3g GFLOP/s)', ",
                dp[w] / 1e9, names, dp[w] / 1e9);
    }
    for (l = 0; me->have && l < LV_N; l++) {
        if (me->bw[l] <= 0 || !first_with(me->bw, l))
            continue;
        names_with(names, sizeof names, me->bw, LV_N, l, roofline_level_name);
        fprintf(g,
                "(x*%.9g < %.9g ? x*%.9g : %.9g) with lines dashtype 3 title '%s measured on "
                "the model (%.3g GB/s)', ",
                me->bw[l] / 1e9, me->peak[1] / 1e9, me->bw[l] / 1e9, me->peak[1] / 1e9, names,
                me->bw[l] / 1e9);
    }
}

static void plot_script(FILE *g, const char *out, const char *what, struct pic_point *pt,
                        size_t np, const struct item *it, const struct pic_axes *a,
                        const struct ceilings *c, const struct hpm_machine *m,
                        const struct measured *me)
{
    char name[80];
    size_t i;
    fprintf(g, "set terminal svg size %.0f,%.0f font 'Arial,12'\nset output ", PIC_W, PIC_H);
    gp_string(g, out[0] == '/' ? "" : "./", out);
    key_name(name, sizeof name, what);
    fprintf(g, "\nset title ");
    gp_string(g, "memory-level roofline of ", name);
    fprintf(g, " noenhanced\nset lmargin at screen %g\nset rmargin at screen %g\n"
               "set bmargin at screen %g\nset tmargin at screen %g\n",
            FRAME_L, FRAME_R, FRAME_B, FRAME_T);
    fprintf(g, "set logscale xy\nset xrange [%g:%g]\nset yrange [%g:%g]\n"
               "set xlabel 'arithmetic intensity (flop per byte of DDR traffic; of L1 traffic "
               "for items without)' noenhanced\n"
               "set ylabel 'GFLOP/s of modeled time, one core, machine %s' noenhanced\n"
               "set key at screen 0.57,0.92 left top Left reverse noenhanced\nset grid\n"
               "set samples 400\n",
            a->xlo, a->xhi, a->ylo, a->yhi, m->name);
    for (i = 0; i < np; i++)
        if (pt[i].label)
            fprintf(g, "set label '%s' at screen %.5f,%.5f left textcolor rgb '" LABEL_RGB
                       "' front\n",
                    pt[i].text, pt[i].lx / PIC_W, 1 - pt[i].ly / PIC_H);
    for (i = 0; i < np; i++)
        fprintf(g, "$p%zu << EOD\n%.9g %.9g\nEOD\n", i, pt[i].no_bytes ? a->xhi / 2 : pt[i].x,
                pt[i].y);
    fprintf(g, "plot ");
    plot_roofs(g, c, me);
    for (i = 0; i < np; i++) {
        const struct item *t = &it[pt[i].item];
        char title[128];
        key_name(name, sizeof name, t->name);
        snprintf(title, sizeof title, "%zu: %s %s%s", pt[i].item + 1, t->is_loop ? "loop" : "func",
                 name, pt[i].no_bytes ? " (no memory traffic: at the right edge)" : "");
        fprintf(g, "%s$p%zu using 1:2 with points pointtype 7 pointsize 0.9 title ",
                i ? ", " : "", i);
        gp_string(g, "", title);
    }
    if (!np)
        fprintf(g, "1/0 notitle");
    fputc('\n', g);
}

int roofline_draw(const char *out, const char *what, const struct item *it, size_t n,
                  const struct ceilings *c, const struct hpm_machine *m,
                  const struct measured *me)
{
    struct pic_point *pt = calloc(n ? n : 1, sizeof *pt);
    struct pic_axes a;
    size_t np = 0, i, skipped = 0;
    pid_t pid;
    FILE *g;
    if (!pt)
        return 1;
    for (i = 0; i < n; i++) {
        int lv = it[i].bytes[LV_DDR] > 0 ? LV_DDR : LV_L1;
        if (!(it[i].gflops > 0)) {
            skipped++; /* no modeled time: no rate to draw */
            continue;
        }
        pt[np].item = i;
        pt[np].y = it[i].gflops;
        pt[np].no_bytes = !(it[i].bytes[lv] > 0);
        pt[np].x = pt[np].no_bytes ? 0 : it[i].ai[lv];
        np++;
    }
    fit_axes(pt, np, c, &a);
    for (i = 0; i < np; i++)
        place_point(&pt[i], &a);
    place_labels(pt, np);
    if (!(g = gp_start("hpm roofline", &pid))) {
        free(pt);
        return 1;
    }
    plot_script(g, out, what, pt, np, it, &a, c, m, me);
    free(pt);
    if (skipped)
        fprintf(stderr, "hpm roofline: %zu item%s without modeled time (no cycles) not drawn\n",
                skipped, skipped == 1 ? "" : "s");
    return gp_finish("hpm roofline", g, pid);
}
