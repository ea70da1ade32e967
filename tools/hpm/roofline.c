/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm roofline: the memory-level roofline of a program's loops and
 * functions from exact counts on the modeled machine.
 *
 *   hpm roofline [--machine M] [-o FILE.svg] [--json | --csv] [--top N]
 *                (--profile PROFILE | -- PROGRAM [ARGS])
 *
 * With a program, hpm profile runs it first (into a private folder, removed
 * after). Per loop (src/profile/loops.h, inclusive) and per function
 * (self): achieved FLOP/s of modeled time (FP_OPS over CYCLES at the
 * machine's clock; double and single precision apart) and arithmetic
 * intensity against each level's traffic: L1 the loads' and stores'
 * bytes, L2 the L1 data misses and write-backs in L1 lines, L3 the L3's
 * reads and write-backs in L3 lines, DDR its read and written bytes. The
 * ceilings are the machine file's [roofline] section (per core: flops a
 * cycle by width, bytes a cycle per cache level; the node's memory
 * bandwidth). Each item's peak is that of the width most of its flops
 * use; the level that bounds it is the one whose roof, min(peak, AI x
 * bandwidth), is lowest; headroom is that roof over the achieved rate.
 *
 * The model's own ceilings are measured too, as the Empirical Roofline
 * Toolkit measures a machine's: hpm profile runs hpm-roofline-kernels
 * (workloads/roofline) on the machine, whose functions peak_scalar,
 * peak_128 and peak_256 (independent multiply-adds) and bw_L1 ... bw_DDR
 * (a sum over an array sized for that level, read again and again) give
 * the achieved peak per width and bytes a second per level; each item is
 * classified against them too ("model"). The result is kept in
 * $XDG_CACHE_HOME/hpm/roofline (or ~/.cache/hpm/roofline; HPM_ROOFLINE_CACHE
 * names another folder, "off" none), keyed by the machine model, hpm's
 * version and the kernels' file.
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "fileio.h"
#include "install_dirs.h"
#include "loops.h"
#include "machine_arg.h"
#include "options.h"
#include "plot.h"
#include "profile.h"

static const char roofline_synopsis[] =
    "usage: hpm roofline [--machine M] [-o FILE.svg] [--json | --csv] [--top N]\n"
    "                    (--profile PROFILE | -- PROGRAM [ARGS])\n"
    "\n"
    "The memory-level roofline of PROGRAM's loops and functions (or of a profile\n"
    "hpm profile wrote): achieved FLOP/s of modeled time and arithmetic intensity\n"
    "against the bytes of each level (L1, L2, L3, DDR), the ceilings of the\n"
    "machine file's [roofline] section, which ceiling bounds each and the\n"
    "headroom; -o draws it (SVG, gnuplot).\n"
    "\n";

enum { LV_L1, LV_L2, LV_L3, LV_DDR, LV_N };
static const char *const lv_name[LV_N] = {"L1", "L2", "L3", "DDR"};

struct ceilings {
    double peak[2][3]; /* [dp, sp][scalar, 128, 256] flop/s of one core */
    double bw[LV_N];   /* bytes/s; 0: no such level */
};

/* Measured on the model: double precision only (the kernels'); 0: not
 * measured (no AVX on this CPU: no 256-bit kernel). */
struct measured {
    int have;
    double peak[3];
    double bw[LV_N];
};

struct item {
    int is_loop;
    char name[512];
    char object[256];
    double flops, flops_dp, flops_sp, width[3], cycles, bytes[LV_N];
    double gflops, ai[LV_N], roof, peak;
    int bound; /* LV_*, or LV_N: the peak */
    int model_bound;   /* the same against the measured ceilings, -1: none */
    double model_roof;
    uint64_t entries;
    double trip;
};

struct roofline_opts {
    const char *machine, *out, *profile;
    int json, csv, no_measure;
    long top;
};

#define ROOFLINE_OPTIONS 8
static void roofline_table(struct roofline_opts *o, struct hpm_opt *t)
{
    const struct hpm_opt rows[] = {
        {"--machine", NULL, "M", "the machine (its [roofline] ceilings) [bgp]", HPM_OPT_STRING,
         &o->machine, NULL, NULL, 0, 0},
        {"--output", "-o", "FILE.svg", "draw the roofline (gnuplot)", HPM_OPT_STRING, &o->out,
         NULL, NULL, 0, 0},
        {"--json", NULL, NULL, "the table as JSON", HPM_OPT_FLAG, &o->json, NULL, NULL, 0, 0},
        {"--csv", NULL, NULL, "the table as CSV", HPM_OPT_FLAG, &o->csv, NULL, NULL, 0, 0},
        {"--top", NULL, "N", "the N top loops and N top functions by flops [10]", HPM_OPT_LONG,
         &o->top, NULL, NULL, 1, 10000},
        {"--profile", NULL, "PROFILE", "a profile hpm profile wrote (no program runs)",
         HPM_OPT_STRING, &o->profile, NULL, NULL, 0, 0},
        {"--no-measure", NULL, NULL, "do not measure the model's own ceilings (kernels)",
         HPM_OPT_FLAG, &o->no_measure, NULL, NULL, 0, 0},
        HPM_OPT_TABLE_END,
    };
    _Static_assert(sizeof rows / sizeof rows[0] == ROOFLINE_OPTIONS, "ROOFLINE_OPTIONS");
    memcpy(t, rows, sizeof rows);
}

/* The ceilings, or 2 naming the file and the first key missing. */
static int ceilings_of(const struct hpm_machine *m, const char *where, struct ceilings *c)
{
    static const char *const fk[3] = {"flops_per_cycle_scalar", "flops_per_cycle_128",
                                       "flops_per_cycle_256"};
    double f = (double)m->frequency_hz;
    unsigned w;
    memset(c, 0, sizeof *c);
    for (w = 0; w < 3; w++) {
        if (!m->roofline.flops_milli[w])
            goto missing_flops;
        c->peak[0][w] = (double)m->roofline.flops_milli[w] / 1000.0 * f;
    }
    if (!m->roofline.sp_per_dp) {
        fprintf(stderr, "hpm roofline: %s: [roofline] sp_per_dp is missing\n", where);
        return 2;
    }
    for (w = 0; w < 3; w++)
        c->peak[1][w] = c->peak[0][w] * m->roofline.sp_per_dp;
#define NEED(cond, field, key)                                                               \
    if (cond) {                                                                              \
        if (!m->roofline.field) {                                                            \
            fprintf(stderr, "hpm roofline: %s: [roofline] %s is missing\n", where, key);     \
            return 2;                                                                        \
        }                                                                                    \
    }
    NEED(1, l1_milli, "l1_bytes_per_cycle")
    NEED(m->hier.l2.size, l2_milli, "l2_bytes_per_cycle")
    NEED(m->hier.l3.size, l3_milli, "l3_bytes_per_cycle")
    NEED(1, memory_bytes_per_s, "memory_bandwidth")
#undef NEED
    c->bw[LV_L1] = (double)m->roofline.l1_milli / 1000.0 * f;
    c->bw[LV_L2] = m->hier.l2.size ? (double)m->roofline.l2_milli / 1000.0 * f : 0;
    c->bw[LV_L3] = m->hier.l3.size ? (double)m->roofline.l3_milli / 1000.0 * f : 0;
    c->bw[LV_DDR] = (double)m->roofline.memory_bytes_per_s;
    return 0;
missing_flops:
    fprintf(stderr, "hpm roofline: %s: [roofline] %s is missing\n", where, fk[w]);
    return 2;
}

/* The profile's kinds a roofline needs, by name. */
enum {
    K_FP_OPS, K_CYCLES, K_DP_S, K_DP_128, K_DP_256, K_SP_S, K_SP_128, K_SP_256, K_LOAD_BYTES,
    K_STORE_BYTES, K_L1D_MISSES, K_L1D_WB, K_L3_READS, K_L3_WB_IN, K_DDR_R, K_DDR_W, K_N
};
static const char *const k_names[K_N] = {
    "FP_OPS",      "CYCLES",       "FP_DP_SCALAR",   "FP_DP_128",        "FP_DP_256",
    "FP_SP_SCALAR", "FP_SP_128",   "FP_SP_256",      "LOAD_BYTES",       "STORE_BYTES",
    "L1D_MISSES",  "L1D_WRITEBACKS", "L3_READS",     "L3_WRITEBACKS_IN", "DDR_READ_BYTES",
    "DDR_WRITE_BYTES"};

static void item_fill(struct item *it, const uint64_t *v, const int *kx,
                      const struct hpm_machine *m, const struct ceilings *c,
                      const struct measured *me)
{
#define V(k) (kx[k] >= 0 ? (double)v[kx[k]] : 0.0)
    unsigned w, l;
    int sp;
    double best;
    it->flops = V(K_FP_OPS);
    it->flops_dp = V(K_DP_S) + V(K_DP_128) + V(K_DP_256);
    it->flops_sp = V(K_SP_S) + V(K_SP_128) + V(K_SP_256);
    it->width[0] = V(K_DP_S) + V(K_SP_S);
    it->width[1] = V(K_DP_128) + V(K_SP_128);
    it->width[2] = V(K_DP_256) + V(K_SP_256);
    it->cycles = V(K_CYCLES);
    it->bytes[LV_L1] = V(K_LOAD_BYTES) + V(K_STORE_BYTES);
    it->bytes[LV_L2] = (V(K_L1D_MISSES) + V(K_L1D_WB)) * m->hier.l1d.line;
    it->bytes[LV_L3] = m->hier.l3.size ? (V(K_L3_READS) + V(K_L3_WB_IN)) * m->hier.l3.line : 0;
    it->bytes[LV_DDR] = V(K_DDR_R) + V(K_DDR_W);
#undef V
    it->gflops = it->cycles > 0 ? it->flops / (it->cycles / (double)m->frequency_hz) / 1e9 : 0;
    for (w = 0, l = 1; l < 3; l++)
        if (it->width[l] > it->width[w])
            w = l;
    sp = it->flops_sp > it->flops_dp;
    it->peak = c->peak[sp][w];
    it->bound = LV_N;
    best = it->peak;
    for (l = 0; l < LV_N; l++) {
        double roof;
        it->ai[l] = it->bytes[l] > 0 ? it->flops / it->bytes[l] : 0;
        if (c->bw[l] <= 0 || it->bytes[l] <= 0)
            continue;
        roof = it->ai[l] * c->bw[l];
        if (roof < best) {
            best = roof;
            it->bound = (int)l;
        }
    }
    it->roof = best;
    it->model_bound = -1;
    it->model_roof = 0;
    if (me && me->have && me->peak[w] > 0) {
        best = me->peak[w];
        it->model_bound = LV_N;
        for (l = 0; l < LV_N; l++)
            if (me->bw[l] > 0 && it->bytes[l] > 0 && it->ai[l] * me->bw[l] < best) {
                best = it->ai[l] * me->bw[l];
                it->model_bound = (int)l;
            }
        it->model_roof = best;
    }
}

static int cmp_item(const void *a, const void *b)
{
    const struct item *x = a, *y = b;
    if (x->flops != y->flops)
        return x->flops > y->flops ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Runs hpm profile -o out -- argv... under machine (its report to
 * /dev/null): its exit status. */
static int run_profile(const char *machine, const char *out, char **argv, int argc)
{
    char **args = calloc((size_t)argc + 8, sizeof *args);
    int n = 0, i, status;
    pid_t pid;
    if (!args)
        return 1;
    args[n++] = "hpm";
    args[n++] = "profile";
    if (machine) {
        args[n++] = "--machine";
        args[n++] = (char *)machine;
    }
    args[n++] = "-o";
    args[n++] = (char *)out;
    args[n++] = "--";
    for (i = 0; i < argc; i++)
        args[n++] = argv[i];
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        /* the profile's own report is not ours: ours is the table */
        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (null >= 0)
            (void)dup2(null, 1);
        execv("/proc/self/exe", args);
        fprintf(stderr, "hpm roofline: cannot run hpm profile: %s\n", strerror(errno));
        _exit(127);
    }
    free(args);
    if (pid < 0)
        return 1;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int callgrind_head(const char *head, size_t n)
{
    (void)n;
    return strncmp(head, "# callgrind format", 18) == 0 || strncmp(head, "version:", 8) == 0 ||
           strstr(head, "\nevents:") != NULL;
}

static const char *bound_name(int b)
{
    return b < 0 ? "-" : b == LV_N ? "peak" : lv_name[b];
}

static void print_text(const struct item *it, size_t n, const struct ceilings *c,
                       const struct hpm_machine *m, const char *where, const struct measured *me)
{
    size_t i;
    unsigned l;
    printf("machine %s (%s), one core, FLOP/s of modeled time:\n", m->name, where);
    printf("  peak GFLOP/s double precision: scalar %.3g, 128-bit %.3g, 256-bit %.3g; single: "
           "%.3g, %.3g, %.3g\n",
           c->peak[0][0] / 1e9, c->peak[0][1] / 1e9, c->peak[0][2] / 1e9, c->peak[1][0] / 1e9,
           c->peak[1][1] / 1e9, c->peak[1][2] / 1e9);
    printf("  bandwidth GB/s:");
    for (l = 0; l < LV_N; l++)
        if (c->bw[l] > 0)
            printf(" %s %.3g", lv_name[l], c->bw[l] / 1e9);
    printf("\n");
    if (me->have) {
        printf("  measured on the model (hpm-roofline-kernels): peak GFLOP/s double precision: "
               "scalar %.3g, 128-bit %.3g, 256-bit %.3g\n  measured bandwidth GB/s:",
               me->peak[0] / 1e9, me->peak[1] / 1e9, me->peak[2] / 1e9);
        for (l = 0; l < LV_N; l++)
            if (me->bw[l] > 0)
                printf(" %s %.3g", lv_name[l], me->bw[l] / 1e9);
        printf("\n");
    }
    printf("  bound: the roof that holds each (machine file); model: the same with the "
           "measured ceilings\n");
    printf("\n%-5s %10s %7s %9s %9s %9s %9s %-5s %8s %-5s  %s\n", "kind", "GFLOP/s", "%peak",
           "AI L1", "AI L2", "AI L3", "AI DDR", "bound", "headroom", "model", "name");
    for (i = 0; i < n; i++) {
        printf("%-5s %10.4g %6.1f%%", it[i].is_loop ? "loop" : "func", it[i].gflops,
               it[i].peak > 0 ? 100.0 * it[i].gflops * 1e9 / it[i].peak : 0.0);
        for (l = 0; l < LV_N; l++) {
            if (it[i].bytes[l] > 0)
                printf(" %9.4g", it[i].ai[l]);
            else
                printf(" %9s", "-");
        }
        printf(" %-5s %7.1fx %-5s  %s", bound_name(it[i].bound),
               it[i].gflops > 0 ? it[i].roof / (it[i].gflops * 1e9) : 0.0,
               bound_name(it[i].model_bound), it[i].name);
        if (it[i].is_loop)
            printf(" (%" PRIu64 " entries, trip %.4g)", it[i].entries, it[i].trip);
        printf("\n");
    }
}

static void print_csv(const struct item *it, size_t n)
{
    size_t i;
    unsigned l;
    printf("kind,name,object,flops,flops_dp,flops_sp,cycles,gflops,peak_gflops,bytes_l1,bytes_l2,"
           "bytes_l3,bytes_ddr,ai_l1,ai_l2,ai_l3,ai_ddr,bound,roof_gflops,model_bound,"
           "model_roof_gflops,entries,trip\n");
    for (i = 0; i < n; i++) {
        const char *s;
        printf("%s,\"", it[i].is_loop ? "loop" : "function");
        for (s = it[i].name; *s; s++)
            printf(*s == '"' ? "\"\"" : "%c", *s);
        printf("\",\"");
        for (s = it[i].object; *s; s++)
            printf(*s == '"' ? "\"\"" : "%c", *s);
        printf("\",%.0f,%.0f,%.0f,%.0f,%.6g,%.6g", it[i].flops, it[i].flops_dp, it[i].flops_sp,
               it[i].cycles, it[i].gflops, it[i].peak / 1e9);
        for (l = 0; l < LV_N; l++)
            printf(",%.0f", it[i].bytes[l]);
        for (l = 0; l < LV_N; l++)
            printf(",%.6g", it[i].ai[l]);
        printf(",%s,%.6g,%s,%.6g,%" PRIu64 ",%.6g\n", bound_name(it[i].bound), it[i].roof / 1e9,
               bound_name(it[i].model_bound), it[i].model_roof / 1e9, it[i].entries, it[i].trip);
    }
}

static int print_json(const struct item *it, size_t n, const struct ceilings *c,
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
    for (l = 0; l < LV_N; l++)
        if (c->bw[l] > 0)
            json_object_set_new(bw, lv_name[l], json_real(c->bw[l]));
    json_object_set_new(ceil, "peak_flops_per_s", peak);
    json_object_set_new(ceil, "bytes_per_s", bw);
    if (me->have) {
        json_t *mo = json_object(), *mp = json_object(), *mb = json_object();
        for (l = 0; l < 3; l++)
            if (me->peak[l] > 0)
                json_object_set_new(mp, wn[l], json_real(me->peak[l]));
        for (l = 0; l < LV_N; l++)
            if (me->bw[l] > 0)
                json_object_set_new(mb, lv_name[l], json_real(me->bw[l]));
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
        json_object_set_new(o, "kind", json_string(it[i].is_loop ? "loop" : "function"));
        json_object_set_new(o, "name", json_string(it[i].name));
        json_object_set_new(o, "object", json_string(it[i].object));
        json_object_set_new(o, "flops", json_real(it[i].flops));
        json_object_set_new(o, "flops_dp", json_real(it[i].flops_dp));
        json_object_set_new(o, "flops_sp", json_real(it[i].flops_sp));
        json_object_set_new(o, "cycles", json_real(it[i].cycles));
        json_object_set_new(o, "gflops", json_real(it[i].gflops));
        for (l = 0; l < LV_N; l++) {
            json_object_set_new(b, lv_name[l], json_real(it[i].bytes[l]));
            json_object_set_new(ai, lv_name[l], json_real(it[i].ai[l]));
        }
        json_object_set_new(o, "bytes", b);
        json_object_set_new(o, "intensity", ai);
        json_object_set_new(o, "bound", json_string(bound_name(it[i].bound)));
        if (it[i].model_bound >= 0) {
            json_object_set_new(o, "model_bound", json_string(bound_name(it[i].model_bound)));
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
            json_object_set_new(b, lv_name[l], json_real(all->bytes[l]));
        json_object_set_new(t, "bytes", b);
        json_object_set_new(root, "totals", t);
    }
    rc = json_dumpf(root, stdout, JSON_INDENT(1)) == 0 ? 0 : 1;
    putchar('\n');
    json_decref(root);
    return rc;
}

/* The picture: log-log, the roofs of every level and the peaks, each item
 * a point at its DDR (or, without DDR traffic, L1) intensity, numbered as
 * in the table. */
static int draw(const char *out, const struct item *it, size_t n, const struct ceilings *c,
                const struct hpm_machine *m, const struct measured *me)
{
    int pfd[2], status;
    size_t i;
    unsigned l;
    pid_t pid;
    FILE *g;
    if (pipe(pfd) != 0)
        return 1;
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        close(pfd[1]);
        if (dup2(pfd[0], 0) < 0)
            _exit(127);
        if (null >= 0)
            (void)dup2(null, 1);
        execlp("gnuplot", "gnuplot", (char *)NULL);
        fprintf(stderr, "hpm roofline: cannot run gnuplot: %s (Debian: gnuplot-nox)\n",
                strerror(errno));
        _exit(127);
    }
    close(pfd[0]);
    if (pid < 0 || !(g = fdopen(pfd[1], "w"))) {
        fprintf(stderr, "hpm roofline: cannot start gnuplot\n");
        return 1;
    }
    fprintf(g, "set terminal svg dynamic size 900,600\nset output ");
    gp_string(g, out[0] == '/' ? "" : "./", out);
    fprintf(g, "\nset title ");
    gp_string(g, "memory-level roofline, machine ", m->name);
    fprintf(g, " noenhanced\nset logscale xy\nset xlabel 'arithmetic intensity (flop/byte)'\n"
               "set ylabel 'GFLOP/s (modeled time)'\nset key outside right noenhanced\n"
               "set grid\nset xrange [0.001:1000]\nset samples 400\n");
    fprintf(g, "$pts << EOD\n");
    for (i = 0; i < n; i++) {
        int lv = it[i].bytes[LV_DDR] > 0 ? LV_DDR : LV_L1;
        if (it[i].gflops > 0 && it[i].ai[lv] > 0)
            fprintf(g, "%.9g %.9g %zu\n", it[i].ai[lv], it[i].gflops, i + 1);
    }
    fprintf(g, "EOD\nplot ");
    for (l = 0; l < LV_N; l++)
        if (c->bw[l] > 0)
            fprintf(g, "%s(x*%.9g < %.9g ? x*%.9g : %.9g) with lines title '%s roof (%.3g GB/s)', ",
                    "", c->bw[l] / 1e9, c->peak[0][2] / 1e9, c->bw[l] / 1e9, c->peak[0][2] / 1e9,
                    lv_name[l], c->bw[l] / 1e9);
    for (l = 0; l < 3; l++)
        fprintf(g, "%.9g with lines dashtype 2 title 'peak %s dp (%.3g GFLOP/s)', ",
                c->peak[0][l] / 1e9, l == 0 ? "scalar" : l == 1 ? "128-bit" : "256-bit",
                c->peak[0][l] / 1e9);
    for (l = 0; me->have && l < LV_N; l++)
        if (me->bw[l] > 0)
            fprintf(g, "(x*%.9g < %.9g ? x*%.9g : %.9g) with lines dashtype 3 title '%s measured "
                       "on the model (%.3g GB/s)', ",
                    me->bw[l] / 1e9, me->peak[1] / 1e9, me->bw[l] / 1e9, me->peak[1] / 1e9,
                    lv_name[l], me->bw[l] / 1e9);
    fprintf(g, "$pts using 1:2 with points pointtype 7 title 'loops and functions (DDR "
               "intensity)', $pts using 1:2:3 with labels offset 1,0.5 notitle\n");
    fclose(g);
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "hpm roofline: gnuplot failed (status %d)\n",
                WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
        return 1;
    }
    return 0;
}

/* The kind indexes of p's kinds the roofline reads (-1: absent); 0, or -1
 * after naming the first one missing. */
static int kinds_of(const struct hpm_profile *p, const char *what, int *kx)
{
    unsigned k, j;
    for (k = 0; k < K_N; k++) {
        kx[k] = -1;
        for (j = 0; j < p->n_kinds; j++)
            if (strcmp(p->kinds[j], k_names[k]) == 0)
                kx[k] = (int)j;
        if (kx[k] < 0 && k != K_L3_READS && k != K_L3_WB_IN) {
            fprintf(stderr,
                    "hpm roofline: %s has no %s (a roofline needs it: profile every event, "
                    "hpm profile's default)\n",
                    what, k_names[k]);
            return -1;
        }
    }
    return 0;
}

/* A function's self costs (n_kinds values, calloc'd), or NULL. */
static uint64_t *fn_self(const struct hpm_profile *p, size_t f)
{
    uint64_t *v = calloc(p->n_kinds ? p->n_kinds : 1, sizeof *v);
    size_t j;
    unsigned k;
    if (!v)
        return NULL;
    for (j = 0; j < p->fns[f].n_costs; j++) {
        const struct hpm_prof_cost *cc = &p->fns[f].costs[j];
        for (k = 0; k < p->n_kinds; k++)
            v[k] += hpm_prof_value(cc->v, cc->kv, cc->n_kv, k);
    }
    return v;
}

static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *b = data;
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* The cache file of the measured ceilings, or 0 when there is none. */
static int cache_path(const struct hpm_machine *m, const char *kernels, char *buf, size_t len)
{
    const char *env = getenv("HPM_ROOFLINE_CACHE"), *base;
    char dir[2048];
    struct stat st;
    uint64_t h = 0xcbf29ce484222325ull;
    if (env && strcmp(env, "off") == 0)
        return 0;
    if (stat(kernels, &st) != 0)
        return 0;
    h = fnv1a(h, m, sizeof *m);
    h = fnv1a(h, HPM_VERSION_STRING, strlen(HPM_VERSION_STRING));
    h = fnv1a(h, &st.st_size, sizeof st.st_size);
    h = fnv1a(h, &st.st_mtime, sizeof st.st_mtime);
    if (env && *env == '/')
        snprintf(dir, sizeof dir, "%s", env);
    else if ((base = getenv("XDG_CACHE_HOME")) && *base == '/')
        snprintf(dir, sizeof dir, "%s/hpm/roofline", base);
    else if ((base = getenv("HOME")) && *base == '/')
        snprintf(dir, sizeof dir, "%s/.cache/hpm/roofline", base);
    else
        return 0;
    snprintf(buf, len, "%s/%016" PRIx64, dir, h);
    return 1;
}

static void mkdirs(const char *path)
{
    char d[2300], *s;
    snprintf(d, sizeof d, "%s", path);
    for (s = d + 1; (s = strchr(s, '/')) != NULL; s++) {
        *s = 0;
        (void)mkdir(d, 0700);
        *s = '/';
    }
}

static const char *const me_keys[3 + LV_N] = {"peak_scalar", "peak_128", "peak_256",
                                               "bw_L1",       "bw_L2",    "bw_L3", "bw_DDR"};

static int cache_read(const char *path, struct measured *me)
{
    char line[128];
    unsigned got = 0, k;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    FILE *f;
    struct stat st;
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > 4096 ||
        !(f = fdopen(fd, "r"))) {
        close(fd);
        return -1;
    }
    memset(me, 0, sizeof *me);
    while (fgets(line, sizeof line, f)) {
        char name[32];
        double v;
        if (sscanf(line, "%31s %lf", name, &v) != 2 || !(v >= 0) || v > 1e18)
            continue;
        for (k = 0; k < 3 + LV_N; k++)
            if (strcmp(name, me_keys[k]) == 0) {
                if (k < 3)
                    me->peak[k] = v;
                else
                    me->bw[k - 3] = v;
                got |= 1u << k;
            }
    }
    fclose(f);
    me->have = got == (1u << (3 + LV_N)) - 1;
    return me->have ? 0 : -1;
}

static void cache_write(const char *path, const struct measured *me)
{
    char tmp[2300];
    unsigned k;
    FILE *f;
    int fd;
    mkdirs(path);
    snprintf(tmp, sizeof tmp, "%s.%ld", path, (long)getpid());
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 || !(f = fdopen(fd, "w"))) {
        if (fd >= 0)
            close(fd);
        return;
    }
    for (k = 0; k < 3 + LV_N; k++)
        fprintf(f, "%s %.9g\n", me_keys[k], k < 3 ? me->peak[k] : me->bw[k - 3]);
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        unlink(tmp);
}

/* The model's ceilings: hpm-roofline-kernels (install_dirs.h) under hpm
 * profile on the machine, or the cache. 0, or 1 after a message (the
 * roofline goes on with the file's ceilings). */
static int measure(const char *machine, const struct hpm_machine *m, struct measured *me)
{
    char progs[2048], kernels[2100], cache[2200], dir[] = "/tmp/hpm-roofline-kernels.XXXXXX";
    char path[64], err[256], sizes[LV_N][32], reps[LV_N][32], *args[4 + 3 * LV_N];
    char *text = NULL;
    size_t len = 0, f;
    uint64_t largest = m->hier.l1d.size, sz[LV_N] = {0};
    struct hpm_profile p;
    int na = 0, rc, kx[K_N];
    unsigned l;
    memset(me, 0, sizeof *me);
    hpm_part_dir(HPM_PART_PROGRAMS, "hpm-roofline-kernels", progs, sizeof progs);
    snprintf(kernels, sizeof kernels, "%s/hpm-roofline-kernels", progs);
    if (access(kernels, X_OK) != 0) {
        fprintf(stderr, "hpm roofline: note: no %s (built with hpm: workloads/roofline): the "
                        "model's ceilings are not measured\n", kernels);
        return 1;
    }
    if (cache_path(m, kernels, cache, sizeof cache) && cache_read(cache, me) == 0)
        return 0;
    /* working sets: half the L1; twice the L1 (the L2 streams it: a
     * prefetch buffer smaller than the L1 too); half the L3; four times
     * the largest cache. About 4 MiB read at each level. */
    sz[LV_L1] = m->hier.l1d.size / 2;
    if (m->hier.l2.size)
        sz[LV_L2] = m->hier.l2.size > 2 * m->hier.l1d.size ? m->hier.l2.size / 2
                                                           : 2 * m->hier.l1d.size;
    if (m->hier.l3.size)
        sz[LV_L3] = m->hier.l3.size / 2;
    if (m->hier.l2.size > largest)
        largest = m->hier.l2.size;
    if (m->hier.l3.size > largest)
        largest = m->hier.l3.size;
    sz[LV_DDR] = 4 * largest;
    args[na++] = kernels;
    args[na++] = "measure";
    args[na++] = "100000";
    for (l = 0; l < LV_N; l++) {
        uint64_t r = sz[l] ? ((uint64_t)4 << 20) / sz[l] : 0;
        if (!sz[l])
            continue;
        snprintf(sizes[l], sizeof sizes[l], "%" PRIu64, sz[l]);
        snprintf(reps[l], sizeof reps[l], "%" PRIu64, r ? r : 1);
        args[na++] = (char *)lv_name[l];
        args[na++] = sizes[l];
        args[na++] = reps[l];
    }
    if (!mkdtemp(dir))
        return 1;
    snprintf(path, sizeof path, "%s/kernels", dir);
    rc = run_profile(machine, path, args, na);
    if (rc == 0 && hpm_file_read(path, (size_t)1 << 30, callgrind_head, "a profile", &text, &len,
                                 err, sizeof err) == 0) {
        hpm_profile_init(&p);
        if (hpm_prof_read_callgrind(&p, text, len, err, sizeof err) == 0 &&
            kinds_of(&p, "the kernels' profile", kx) == 0) {
            hpm_profile_finish(&p);
            for (f = 0; f < p.n_fns; f++) {
                const char *name = p.strs[p.fns[f].name];
                struct item it;
                uint64_t *v;
                unsigned k;
                double t;
                for (k = 0; k < 3 + LV_N && strcmp(name, me_keys[k]) != 0; k++)
                    ;
                if (k == 3 + LV_N || !(v = fn_self(&p, f)))
                    continue;
                memset(&it, 0, sizeof it);
                item_fill(&it, v, kx, m, &(struct ceilings){0}, NULL);
                free(v);
                t = it.cycles / (double)m->frequency_hz;
                if (t <= 0)
                    continue;
                if (k < 3)
                    me->peak[k] = it.flops / t;
                else
                    me->bw[k - 3] = it.bytes[k - 3] / t;
            }
            me->have = me->peak[0] > 0 && me->peak[1] > 0 && me->bw[LV_L1] > 0;
        }
        hpm_profile_free(&p);
    }
    free(text);
    unlink(path);
    {
        char data[80];
        snprintf(data, sizeof data, "%s.data", path);
        unlink(data);
    }
    rmdir(dir);
    if (!me->have) {
        fprintf(stderr, "hpm roofline: note: the model's ceilings could not be measured\n");
        return 1;
    }
    if (cache[0])
        cache_write(cache, me);
    return 0;
}

int cmd_roofline(int argc, char **argv)
{
    struct roofline_opts o;
    struct hpm_opt t[ROOFLINE_OPTIONS];
    struct hpm_machine m;
    struct ceilings c;
    struct measured me;
    struct hpm_profile p;
    struct hpm_loops ls;
    struct item *items = NULL, all;
    uint64_t *sum = NULL;
    char note[256], err[512], dir[] = "/tmp/hpm-roofline.XXXXXX", path[64];
    const char *prof;
    char *text = NULL;
    size_t len = 0, i, n = 0, nf = 0, nl = 0;
    int first, rc, kx[K_N], made_dir = 0;
    unsigned k;

    memset(&o, 0, sizeof o);
    o.top = 10;
    roofline_table(&o, t);
    rc = hpm_opt_parse("hpm roofline", t, roofline_synopsis, "", argc, argv, &first);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (o.json && o.csv)
        return hpm_opt_error("hpm roofline", t, roofline_synopsis, "", "%s",
                             "--json and --csv: choose one");
    if (!o.profile == (first >= argc))
        return hpm_opt_error("hpm roofline", t, roofline_synopsis, "", "%s",
                             "give a program after -- or --profile PROFILE (one of them)");
    if (o.out && (!gp_safe(o.out) || !strstr(o.out, ".svg")))
        return hpm_opt_error("hpm roofline", t, roofline_synopsis, "", "%s",
                             "-o names an .svg file without control characters");
    if (machine_arg_load("roofline", o.machine, &m, note, sizeof note) != 0)
        return 2;
    rc = ceilings_of(&m, o.machine && strcmp(o.machine, "host") != 0
                             ? o.machine
                             : o.machine ? "host (assumed x86-64 ceilings)" : HPM_DEFAULT_MACHINE,
                     &c);
    if (rc)
        return rc;
    memset(&me, 0, sizeof me);
    if (!o.no_measure)
        (void)measure(o.machine, &m, &me);
    prof = o.profile;
    if (!prof) {
        if (!mkdtemp(dir)) {
            fprintf(stderr, "hpm roofline: cannot make a folder in /tmp: %s\n", strerror(errno));
            return 1;
        }
        made_dir = 1;
        snprintf(path, sizeof path, "%s/profile", dir);
        rc = run_profile(o.machine, path, argv + first, argc - first);
        if (rc != 0) {
            fprintf(stderr, "hpm roofline: hpm profile failed (status %d)\n", rc);
            goto out;
        }
        prof = path;
    }
    if (hpm_file_read(prof, (size_t)4 << 30, callgrind_head, "a profile in callgrind's format",
                      &text, &len, err, sizeof err) != 0) {
        fprintf(stderr, "hpm roofline: cannot read %s\n", err);
        rc = 1;
        goto out;
    }
    hpm_profile_init(&p);
    if (hpm_prof_read_callgrind(&p, text, len, err, sizeof err) != 0) {
        fprintf(stderr, "hpm roofline: %s: %s\n", prof, err);
        free(text);
        hpm_profile_free(&p);
        rc = 1;
        goto out;
    }
    free(text);
    hpm_profile_finish(&p);
    if (kinds_of(&p, prof, kx) != 0) {
        hpm_profile_free(&p);
        rc = 1;
        goto out;
    }
    if (hpm_loops_find(&p, &ls, err, sizeof err) != 0) {
        fprintf(stderr, "hpm roofline: %s: %s\n", prof, err);
        hpm_profile_free(&p);
        rc = 1;
        goto out;
    }
    items = calloc(ls.n + p.n_fns + 1, sizeof *items);
    sum = calloc(p.n_kinds ? p.n_kinds : 1, sizeof *sum);
    if (!items || !sum) {
        fprintf(stderr, "hpm roofline: out of memory\n");
        rc = 1;
        goto done;
    }
    for (i = 0; i < ls.n; i++) {
        struct item *it = &items[n];
        it->is_loop = 1;
        hpm_loop_name(&p, &ls.loops[i], it->name, sizeof it->name);
        snprintf(it->object, sizeof it->object, "%s", p.strs[p.fns[ls.loops[i].fn].obj]);
        item_fill(it, ls.loops[i].incl, kx, &m, &c, &me);
        it->entries = ls.loops[i].entries;
        it->trip = hpm_loop_trip(&ls.loops[i]);
        if (it->flops > 0)
            n++;
    }
    nl = n;
    qsort(items, nl, sizeof *items, cmp_item);
    if (nl > (size_t)o.top)
        nl = (size_t)o.top;
    n = nl;
    for (i = 0; i < p.n_fns; i++) {
        struct item *it = &items[n + nf];
        uint64_t *v = fn_self(&p, i);
        if (!v) {
            rc = 1;
            goto done;
        }
        for (k = 0; k < p.n_kinds; k++)
            sum[k] += v[k];
        memset(it, 0, sizeof *it);
        snprintf(it->name, sizeof it->name, "%s", p.strs[p.fns[i].name]);
        snprintf(it->object, sizeof it->object, "%s", p.strs[p.fns[i].obj]);
        item_fill(it, v, kx, &m, &c, &me);
        free(v);
        if (it->flops > 0)
            nf++;
    }
    memset(&all, 0, sizeof all);
    item_fill(&all, sum, kx, &m, &c, &me);
    qsort(items + n, nf, sizeof *items, cmp_item);
    if (nf > (size_t)o.top)
        nf = (size_t)o.top;
    n += nf;
    if (o.json)
        rc = print_json(items, n, &c, &m, &all, &me);
    else if (o.csv)
        print_csv(items, n);
    else
        print_text(items, n, &c, &m,
                   o.machine && strcmp(o.machine, "host") == 0
                       ? "ceilings assumed for a current x86-64 core"
                       : "ceilings from its machine file",
                   &me);
    if (n == 0 && !o.json && !o.csv)
        printf("(no loop or function with floating-point operations)\n");
    if (o.out && rc == 0) {
        rc = draw(o.out, items, n, &c, &m, &me);
        if (rc == 0)
            fprintf(stderr, "hpm roofline: drew %s\n", o.out);
    }
    if (rc == 0 && fflush(stdout) != 0)
        rc = 1;
done:
    free(items);
    free(sum);
    hpm_loops_free(&ls);
    hpm_profile_free(&p);
out:
    if (made_dir) {
        char data[80];
        snprintf(data, sizeof data, "%s.data", path);
        unlink(path);
        unlink(data);
        rmdir(dir);
    }
    return rc;
}
