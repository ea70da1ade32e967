/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm validate: reproduce seed 001's Table 1 (BGLsim, section 4.1) on the
 * virtual PMU.
 *
 *   hpm validate [--machine NAME|FILE] [--only NAME[,NAME...]] [--uniform]
 *                [--kernels PATH] [--save-csv FILE] [--from-csv FILE] [-v]
 *
 * Runs hpm-validate-kernels (workloads/validate: the seven micro-benchmarks,
 * each in its own region) under hpm count --csv -- its plan executed in this
 * process (run.h), so that validate uses exactly the counting path
 * users get -- reads the region counts back, and prints, for every row of
 * Table 1, the expected count (validate_expect.c, derived from the machine's
 * parameters), the measured count and the error, for FP stores, L1 store
 * misses, FP loads, FX loads, L1 load misses, L2 misses and TLB misses.
 *
 * Exit status: 0 when every count is within its tolerance or at or below its
 * bound (validate_expect.h), 1 when one is not, 2 on a usage error or when
 * the run fails. docs/validation.md explains the table and every deviation.
 */
#define _GNU_SOURCE /* PATH_MAX */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "run/run.h"
#include "util/install_dirs.h"
#include "util/machine_arg.h"
#include "util/options.h"
#include "util/runner.h"
#include "validate/validate_expect.h"

#define CMD "hpm validate"
#define DEFAULT_MACHINE "bgl"
#define KERNELS_NAME "hpm-validate-kernels"

/* What hpm count counts: the catalog kinds the seven columns come from. */
static const char *const count_events =
    "LOADS,STORES,LOAD_BYTES,L1D_READ_MISSES,L1D_WRITE_MISSES,L2_MISSES,DTLB_MISSES,"
    "ITLB_MISSES";

enum { EV_LOADS, EV_STORES, EV_LOAD_BYTES, EV_L1R, EV_L1W, EV_L2, EV_DTLB, EV_ITLB, EV_N };
static const char *const ev_names[EV_N] = {"LOADS",           "STORES",           "LOAD_BYTES",
                                           "L1D_READ_MISSES", "L1D_WRITE_MISSES", "L2_MISSES",
                                           "DTLB_MISSES",     "ITLB_MISSES"};

struct measured {
    int present[EV_N];
    double ev[EV_N];
    double entries;
};

struct validate_opts {
    const char *machine;
    const char *only;
    const char *kernels;
    const char *save_csv;
    const char *from_csv;
    const char *output;
    int uniform, verbose;
};

static char validate_synopsis[1024];

static const struct hpm_opt *validate_table(struct validate_opts *o)
{
    static struct hpm_opt t[9];
    const struct hpm_opt rows[] = {
        {"--machine", NULL, "M", "machine name or file (default " DEFAULT_MACHINE ")",
         HPM_OPT_STRING, &o->machine, NULL, NULL, 0, 0},
        {"--only", NULL, "LIST",
         "only these rows (region names: seq_stores, seq_loads,\n"
         "seq_ldst, rnd_ld_D, rnd_ld_D2, mrnd_ld_D, mrnd_ld_D2,\n"
         "transpose, matmult)",
         HPM_OPT_STRING, &o->only, NULL, NULL, 0, 0},
        {"--uniform", NULL, NULL,
         "independent uniform random indices instead of the\n"
         "stratified sample (docs/validation.md)",
         HPM_OPT_FLAG, &o->uniform, NULL, NULL, 0, 0},
        {"--kernels", NULL, "PATH", "the benchmark program (default: hpm's " KERNELS_NAME ")",
         HPM_OPT_STRING, &o->kernels, NULL, NULL, 0, 0},
        {"--save-csv", NULL, "FILE", "keep hpm count's CSV report in FILE", HPM_OPT_STRING,
         &o->save_csv, NULL, NULL, 0, 0},
        {"--from-csv", NULL, "FILE", "judge a CSV report saved before; runs nothing",
         HPM_OPT_STRING, &o->from_csv, NULL, NULL, 0, 0},
        {"--verbose", "-v", NULL, "print the hpm count command line", HPM_OPT_FLAG, &o->verbose,
         NULL, NULL, 0, 0},
        {"--output", "-o", "FILE", "write the table to FILE [standard output]", HPM_OPT_STRING,
         &o->output, NULL, NULL, 0, 0},
        HPM_OPT_TABLE_END,
    };
    _Static_assert(sizeof rows == sizeof t, "validate_table size");
    memcpy(t, rows, sizeof rows);
    snprintf(validate_synopsis, sizeof validate_synopsis,
             "usage: hpm validate [--machine NAME|FILE] [--only NAME[,NAME...]] [--uniform]\n"
             "                    [--kernels PATH] [--save-csv FILE] [--from-csv FILE] [-v]\n"
             "                    [-o FILE]\n"
             "\n"
             "Run seed 001's seven micro-benchmarks (" KERNELS_NAME ") on the virtual PMU\n"
             "and print Table 1: expected (from the machine's parameters), measured and error\n"
             "for FP stores, L1 store misses, FP loads, FX loads, L1 load misses, L2 misses\n"
             "and TLB misses. Exit status 1 when a count is off by more than %.0f%% (or %.0f\n"
             "events) or above its bound.\n\n",
             VX_TOLERANCE * 100, VX_SLACK);
    return t;
}

static int usage_error(const char *msg, const char *arg)
{
    struct validate_opts dummy;
    return hpm_opt_error(CMD, validate_table(&dummy), validate_synopsis, NULL, msg, arg);
}

static int parse_opts(int argc, char **argv, struct validate_opts *o)
{
    int rc, first;
    memset(o, 0, sizeof *o);
    o->machine = DEFAULT_MACHINE;
    rc = hpm_opt_parse(CMD, validate_table(o), validate_synopsis, NULL, argc, argv, &first);
    if (rc)
        return rc;
    if (first < argc)
        return usage_error("unknown argument '%s'", argv[first]);
    if (o->from_csv && (o->save_csv || o->uniform || o->kernels))
        return usage_error("--from-csv runs nothing: it takes no --save-csv, --uniform or "
                           "--kernels%s",
                           "");
    return 0;
}

/* ------------------------------------------------------------ rows */

/* Whether region id is selected by --only (NULL: all). */
static int selected(const char *only, const char *id)
{
    if (!only) return 1;
    size_t n = strlen(id);
    for (const char *p = only; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, id, n)) return 1;
        p += len + (e ? 1 : 0);
    }
    return 0;
}

static int check_only(const char *only, const struct vx_row *rows, int n)
{
    for (const char *p = only; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        int found = 0;
        for (int i = 0; i < n && !found; i++)
            found = strlen(rows[i].id) == len && !strncmp(rows[i].id, p, len);
        if (!found) {
            fprintf(stderr, CMD ": --only: unknown row '%.*s'\n", (int)len, p);
            return -1;
        }
        p += len + (e ? 1 : 0);
    }
    return 0;
}

/* ------------------------------------------------------------ running */

/* The hpm binary this is (hpm count is run from it). */
static int self_path(char *buf, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    if (n <= 0 || (size_t)n >= len - 1) return -1;
    buf[n] = 0;
    return 0;
}

/* The kernels' command line: the kernels, --uniform, the selected rows. */
static int kernels_argv(const struct validate_opts *o, const char *kernels,
                        const struct vx_row *rows, int n_rows, char **args, int max)
{
    int na = 0;
    args[na++] = (char *)kernels;
    if (o->uniform)
        args[na++] = "--uniform";
    for (int i = 0; i < n_rows && na < max - 1; i++)
        if (selected(o->only, rows[i].id))
            args[na++] = (char *)rows[i].id;
    args[na] = NULL;
    return na;
}

/* hpm count --machine M -e EVENTS --csv -o csv_path -- KERNELS..., run in
 * this process (run.h): the counting path users get. The kernels'
 * checksums are not for the reader (their output goes to /dev/null, their
 * errors to dir/stderr, shown only if the run fails); the progress line
 * says "validate". 0, or 2 after a message. */
static int count_kernels(const struct validate_opts *o, char **args, int na,
                         const char *csv_path, const char *dir)
{
    char errfile[PATH_MAX];
    struct count_plan *p = malloc(sizeof *p);
    struct count_opts co;
    int rc;
    if (!p)
        return 2;
    count_opts_init(&co);
    co.machine = o->machine;
    co.events.v[co.events.n++] = count_events;
    co.fmt = FMT_CSV;
    co.csv = 1;
    co.output = csv_path;
    co.quiet = 1;
    co.prog = args;
    co.prog_argc = na;
    snprintf(errfile, sizeof errfile, "%s/stderr", dir);
    count_plan_init(p, MODE_COUNT, &co);
    p->program_stdout = "/dev/null";
    p->program_stderr = errfile;
    p->progress_name = "validate";
    p->progress_quiet_too = 1;
    rc = count_plan_settle(p);
    if (rc == COUNT_GO)
        rc = count_execute(p, NULL);
    free(p);
    if (rc != 0) {
        FILE *f = fopen(errfile, "r");
        fprintf(stderr, CMD ": hpm count failed (exit status %d); the kernels' messages:\n", rc);
        if (f) {
            char line[1024];
            while (fgets(line, sizeof line, f))
                fputs(line, stderr);
            fclose(f);
        }
        return 2;
    }
    return 0;
}

static int run_count(const struct validate_opts *o, const struct vx_row *rows, int n_rows,
                     const char *csv_path, const char *dir)
{
    char self[PATH_MAX], kernels[PATH_MAX + 32], *args[64];
    int na;
    if (self_path(self, sizeof self) != 0) {
        fprintf(stderr, CMD ": cannot find the hpm binary (/proc/self/exe): %s\n", strerror(errno));
        return 2;
    }
    if (o->kernels) {
        snprintf(kernels, sizeof kernels, "%s", o->kernels);
    } else {
        char progs[PATH_MAX];
        hpm_part_dir(HPM_PART_PROGRAMS, KERNELS_NAME, progs, sizeof progs);
        snprintf(kernels, sizeof kernels, "%s/%s", progs, KERNELS_NAME);
    }
    if (access(kernels, X_OK) != 0) {
        fprintf(stderr, CMD ": cannot run %s: %s (it is built with hpm: workloads/validate)\n",
                kernels, strerror(errno));
        return 2;
    }
    na = kernels_argv(o, kernels, rows, n_rows, args, 64);
    if (o->verbose) {
        fprintf(stderr, CMD ": hpm count --machine %s -e %s --csv -o %s --", o->machine,
                count_events, csv_path);
        for (int i = 0; i < na; i++)
            fprintf(stderr, " %s", args[i]);
        fprintf(stderr, "\n");
    }
    return count_kernels(o, args, na, csv_path, dir);
}

/* ------------------------------------------------------------ the CSV */

/* Region rows of hpm count --csv: region,EVENT,NAME,THREAD,,,VALUE,SOURCE.
 * Counts of every thread of a region are added (the kernels have one). */
static int read_csv(const char *path, const struct vx_row *rows, int n_rows, struct measured *meas)
{
    FILE *f = fopen(path, "r");
    char *line = NULL; /* getline: an info row holds the whole command line */
    size_t cap = 0;
    int rc = 0;
    if (!f) {
        fprintf(stderr, CMD ": cannot read %s: %s\n", path, strerror(errno));
        return -1;
    }
    memset(meas, 0, (size_t)n_rows * sizeof *meas);
    while (rc == 0 && getline(&line, &cap, f) >= 0) {
        char *field[9];
        int nf = 0;
        char *p = line;
        line[strcspn(line, "\r\n")] = 0;
        while (nf < 9) {
            field[nf++] = p;
            p = strchr(p, ',');
            if (!p) break;
            *p++ = 0;
        }
        if (nf < 8 || strcmp(field[0], "region") != 0) continue;
        int r = -1;
        for (int i = 0; i < n_rows && r < 0; i++)
            if (!strcmp(rows[i].id, field[2])) r = i;
        if (r < 0) continue;
        char *end;
        errno = 0;
        double v = strtod(field[6], &end);
        if (errno || end == field[6] || *end) {
            fprintf(stderr, CMD ": %s: bad count '%s' for %s in region %s\n", path, field[6],
                    field[1], field[2]);
            rc = -1;
            continue;
        }
        if (!strcmp(field[1], "entries")) {
            meas[r].entries += v;
            continue;
        }
        for (int e = 0; e < EV_N; e++)
            if (!strcmp(field[1], ev_names[e])) {
                meas[r].ev[e] += v;
                meas[r].present[e] = 1;
            }
    }
    free(line);
    fclose(f);
    return rc;
}

/* The seven columns from the catalog counts. The catalog has no FP/FX split
 * of loads; the kernels' loads are 8-byte doubles and 4-byte ints (I), so
 * LOAD_BYTES = 8 FP + 4 FX and LOADS = FP + FX give both. Stores are all
 * doubles. TLB misses: the seed's one TLB is bgl's ITLB and DTLB. */
static int columns(const struct measured *m, double *col, const char *row, const char *src)
{
    for (int e = 0; e < EV_N; e++)
        if (!m->present[e]) {
            fprintf(stderr, CMD ": %s: no %s count for region %s\n", src, ev_names[e], row);
            return -1;
        }
    const double loads = m->ev[EV_LOADS], bytes = m->ev[EV_LOAD_BYTES];
    if (bytes < 4 * loads || bytes > 8 * loads || fmod(bytes, 4.0) != 0) {
        fprintf(stderr,
                CMD ": %s: region %s: %.0f loads of %.0f bytes are not 4- and 8-byte loads; "
                    "cannot split them into FX and FP\n",
                src, row, loads, bytes);
        return -1;
    }
    col[VX_FP_STORES] = m->ev[EV_STORES];
    col[VX_L1_STORE_MISSES] = m->ev[EV_L1W];
    col[VX_FP_LOADS] = (bytes - 4 * loads) / 4;
    col[VX_FX_LOADS] = loads - col[VX_FP_LOADS];
    col[VX_L1_LOAD_MISSES] = m->ev[EV_L1R];
    col[VX_L2_MISSES] = m->ev[EV_L2];
    col[VX_TLB_MISSES] = m->ev[EV_DTLB] + m->ev[EV_ITLB];
    return 0;
}

/* ------------------------------------------------------------ the table */

#define W_LABEL 16
#define W_COL 11

static void print_machine(const struct hpm_machine *m)
{
    static const char *const pol[] = {"lru", "fifo", "random"};
    const struct hpm_cache_params *l1 = &m->hier.l1d, *l2 = &m->hier.l2;
    printf("  L1D %llu KB, %u-byte lines, %u-way %s; L2 %llu KB, %u-byte lines, %u-way %s; "
           "DTLB %u entries, %llu KB pages\n",
           (unsigned long long)(l1->size >> 10), l1->line, l1->assoc,
           l1->policy < 3 ? pol[l1->policy] : "?", (unsigned long long)(l2->size >> 10), l2->line,
           l2->assoc, l2->policy < 3 ? pol[l2->policy] : "?", m->dtlb.entries,
           (unsigned long long)(m->dtlb.page_size >> 10));
}

static void print_header(void)
{
    printf("\n%-*s %-*s%-*s%-*s%-*s\n", W_LABEL + 5, "", 2 * W_COL, "Stores", 4 * W_COL, "Loads",
           W_COL, "TLB", W_COL, "");
    printf("%-*s", W_LABEL + 6, "function");
    for (int c = 0; c < VX_COLS; c++)
        printf("%-*s", W_COL, vx_col_name(c));
    printf("\n");
}

static void cell_text(char *buf, size_t len, const struct vx_cell *c)
{
    if (c->kind == VX_NONE)
        snprintf(buf, len, "n/a");
    else
        snprintf(buf, len, "%s%.0f%s", c->kind == VX_BOUND ? "<=" : "", c->value,
                 c->refined ? "*" : "");
}

/* Print one row (exp, meas, err, err%); returns the number of failing cells. */
static int print_row(const struct vx_row *r, const double *meas)
{
    char buf[64];
    int fails = 0;
    printf("%-*s exp  ", W_LABEL, r->label);
    for (int c = 0; c < VX_COLS; c++) {
        cell_text(buf, sizeof buf, &r->cell[c]);
        printf("%-*s", W_COL, buf);
    }
    printf("\n%-*s meas ", W_LABEL, "");
    for (int c = 0; c < VX_COLS; c++)
        printf("%-*.0f", W_COL, meas[c]);
    printf("\n%-*s err  ", W_LABEL, "");
    for (int c = 0; c < VX_COLS; c++) {
        const double d = meas[c] - r->cell[c].value;
        const int ok = vx_cell_ok(&r->cell[c], meas[c]);
        fails += !ok;
        if (r->cell[c].kind == VX_NONE)
            snprintf(buf, sizeof buf, "-");
        else
            snprintf(buf, sizeof buf, "%+.0f%s", fabs(d) < 0.5 ? 0.0 : d, ok ? "" : "!");
        printf("%-*s", W_COL, buf);
    }
    printf("%s\n%-*s err%% ", fails ? "FAIL" : "ok", W_LABEL, "");
    for (int c = 0; c < VX_COLS; c++) {
        const double v = r->cell[c].value;
        if (v >= 0.5 && r->cell[c].kind != VX_NONE)
            snprintf(buf, sizeof buf, "%+.2f%%", 100.0 * (meas[c] - v) / v);
        else
            snprintf(buf, sizeof buf, "-");
        printf("%-*s", W_COL, buf);
    }
    printf("\n");
    return fails;
}

static int validate(const struct validate_opts o);

int cmd_validate(int argc, char **argv)
{
    struct validate_opts o;
    struct runner_redirect out;
    int rc = parse_opts(argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc;
    if (runner_stdout_to(CMD, o.output, &out) != 0) return 2;
    rc = validate(o);
    /* a table that judges counts off (1) is a table all the same */
    if (runner_stdout_restore(CMD, &out, rc == 0 || rc == 1) != 0 && rc == 0) rc = 2;
    return rc;
}

/* Runs the benchmarks (or reads --from-csv) and prints the table: 0 all
 * within, 1 some off, 2 an error. */
static int validate(const struct validate_opts o)
{
    struct hpm_machine m;
    struct vx_row rows[VX_MAX_ROWS];
    struct measured meas[VX_MAX_ROWS];
    /* dir is kept shorter than csv so that "dir/count.csv" always fits. */
    char note[160], err[256], dir[PATH_MAX - 32] = "", csv[PATH_MAX];
    int rc = 0;
    if (machine_arg_load("validate", o.machine, &m, note, sizeof note) != 0) return 2;
    int n = vx_expect_all(&m, rows, VX_MAX_ROWS, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, CMD ": %s\n", err);
        return 2;
    }
    if (check_only(o.only, rows, n) != 0) return 2;

    if (o.from_csv) {
        snprintf(csv, sizeof csv, "%s", o.from_csv);
    } else {
        if (runner_tmpdir("hpm-validate", dir, sizeof dir) != 0) {
            fprintf(stderr, CMD ": cannot make a temporary folder in %s: %s\n",
                    getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
                    strerror(errno));
            dir[0] = 0;
            return 2;
        }
        snprintf(csv, sizeof csv, "%s", o.save_csv ? o.save_csv : "");
        if (!o.save_csv) snprintf(csv, sizeof csv, "%s/count.csv", dir);
        rc = run_count(&o, rows, n, csv, dir);
    }
    if (rc == 0 && read_csv(csv, rows, n, meas) != 0) rc = 2;
    if (dir[0])
        runner_rmdir(dir);
    if (rc) return rc;

    printf("hpm validate: seed 001 Table 1 (section 4.1) on the virtual PMU, machine %s%s\n",
           m.name, o.uniform ? ", uniform random indices" : "");
    print_machine(&m);
    print_header();
    int fails = 0, cells = 0, shown = 0, refined = 0, unjudged = 0;
    for (int i = 0; i < n; i++) {
        double col[VX_COLS];
        if (!selected(o.only, rows[i].id)) continue;
        if (meas[i].entries != 1) {
            fprintf(stderr, CMD ": %s: region %s entered %.0f times (expected once)\n", csv,
                    rows[i].id, meas[i].entries);
            return 2;
        }
        if (columns(&meas[i], col, rows[i].id, csv) != 0) return 2;
        fails += print_row(&rows[i], col);
        cells += VX_COLS;
        shown++;
        for (int c = 0; c < VX_COLS; c++) {
            refined += rows[i].cell[c].refined;
            unjudged += rows[i].cell[c].kind == VX_NONE;
        }
    }
    printf("\n<=N  an upper bound (the seed's random loads): passes at or below N + %.0f\n",
           VX_SLACK);
    printf("     others pass within %.0f%% of exp or %.0f events, whichever is more "
           "(the region's own overhead)\n",
           VX_TOLERANCE * 100, VX_SLACK);
    if (refined) {
        const char *sep = "";
        printf("N*   the seed's reasoning completed for an LRU L2 (docs/validation.md); the "
               "seed's own figures:\n     ");
        for (int i = 0; i < n; i++)
            for (int c = 0; c < VX_COLS; c++)
                if (selected(o.only, rows[i].id) && rows[i].cell[c].refined) {
                    printf("%s%s %s %.0f", sep, rows[i].label, vx_col_name(c),
                           rows[i].cell[c].seed);
                    sep = ", ";
                }
        printf("\n");
    }
    if (unjudged) {
        printf("n/a  no analytic expectation on this machine (measured, not judged):\n");
        for (int i = 0; i < n; i++)
            for (int c = 0; c < VX_COLS; c++)
                if (selected(o.only, rows[i].id) && rows[i].cell[c].kind == VX_NONE)
                    printf("     %s %s: %s\n", rows[i].label, vx_col_name(c), rows[i].cell[c].why);
    }
    printf("FP and FX loads: LOADS split by LOAD_BYTES (8-byte doubles, 4-byte ints); TLB = "
           "DTLB + ITLB misses\n");
    cells -= unjudged;
    if (fails)
        printf("validate: FAIL: %d of %d counts in %d rows outside their tolerance or bound "
               "(marked !)\n",
               fails, cells, shown);
    else
        printf("validate: ok: all %d counts in %d rows within their tolerance or bound%s\n",
               cells, shown, unjudged ? " (and the n/a ones measured)" : "");
    return fails ? 1 : 0;
}
