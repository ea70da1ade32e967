/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm plot: render an interval series (hpm count -I MS --csv, hpm stat -I MS
 * --csv: time_s,event,delta,rate_per_s,total) with gnuplot, Debian's, into
 * an SVG or PNG file: one line per event, its rate per second over time.
 *
 *   hpm plot SERIES.csv [-o OUT.svg|OUT.png] [-e EVENT[,EVENT...]] [--total]
 *   hpm plot --baselines -e EVENT|METRIC[,...] -o OUT NAME...
 *
 * With --baselines, the points are baselines (docs/ci.md): NAME is a
 * baseline's name or folder, in the order given (a series of commits), and
 * each event's total or derived metric (its key or label: ipc, IPC) is
 * plotted across them.
 *
 * The data goes to gnuplot as inline data blocks on its standard input (no
 * temporary files); gnuplot writes the picture.
 */
#define _GNU_SOURCE /* strcasecmp */
#include <strings.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>


#include "baseline/baseline.h"
#include "catalog.h"
#include "commands.h"
#include "report/count_report_read.h"
#include "plot/plot.h"
#include "fileio.h"
#include "util/options.h"
#include "util/runner.h"

#define PLOT_MAX_EVENTS 32
#define PLOT_MAX_POINTS 200000

struct plot_series {
    char name[64];
    double *t, *v;
    double *mt, *mv; /* modeled time and rate per modeled second, when the series has them */
    size_t n, cap;
};

static const char plot_synopsis[] =
    "usage: hpm plot SERIES.csv [-o OUT.svg|OUT.png] [-e EVENT[,EVENT...]] [--total]\n"
    "Plot an interval series written by hpm count -I MS --csv or hpm stat -I MS --csv\n"
    "with gnuplot: each event's rate per second (or, with --total, its running total)\n"
    "over time. The output's extension picks SVG or PNG (default SERIES.svg).\n"
    "       hpm plot --baselines -e EVENT|METRIC[,...] -o OUT NAME...\n"
    "plots events' totals or derived metrics (ipc, IPC, ...) across baselines\n"
    "(hpm count --save-baseline NAME), in the order given.\n"
    "       hpm plot AGGREGATE.json --matrix [--bytes] [-o OUT.svg|OUT.png]\n"
    "draws an MPI job's communication matrix (the aggregate of mpirun ... hpm count\n"
    "--json) as a heatmap: messages (or bytes) each rank sent each other.\n\n";

static int wanted(const char *list, const char *name)
{
    const char *p = list;
    if (!list)
        return 1;
    while (*p) {
        size_t len = strcspn(p, ",");
        if (hpm_catalog_name_eq(p, len, name))
            return 1;
        p += len + (p[len] == ',');
    }
    return 0;
}

static struct plot_series *series_of(struct plot_series *s, unsigned *ns, const char *name)
{
    unsigned i;
    for (i = 0; i < *ns; i++)
        if (strcmp(s[i].name, name) == 0)
            return &s[i];
    if (*ns == PLOT_MAX_EVENTS)
        return NULL;
    memset(&s[*ns], 0, sizeof s[*ns]);
    snprintf(s[*ns].name, sizeof s[*ns].name, "%s", name);
    return &s[(*ns)++];
}

/* What a series file says of itself: the program its "hpm series:" line
 * names, and whether every line has modeled time (then it is the x axis
 * and rates are per modeled second). */
struct series_info {
    char program[256];
    int lines, modeled_lines;
};

/* Room for twice as many points in each of x's columns; 0, or -1. */
static int series_grow(struct plot_series *x)
{
    double **cols[4] = {&x->t, &x->v, &x->mt, &x->mv};
    size_t nc = x->cap ? x->cap * 2 : 64;
    unsigned c;
    for (c = 0; c < 4; c++) {
        double *p = realloc(*cols[c], nc * sizeof *p);
        if (!p)
            return -1;
        *cols[c] = p;
    }
    x->cap = nc;
    return 0;
}

/* Reads the CSV; 0, or 1 after printing file:line: why. */
static int read_series(const char *path, const char *events, int total, struct plot_series *s,
                       unsigned *ns, struct series_info *info)
{
    /* a regular file only: a FIFO named as the series must not block */
    int fd = hpm_file_open_regular(path);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    char line[512];
    unsigned long lineno = 0;
    size_t points = 0;
    if (!f) {
        fprintf(stderr, "hpm plot: %s: %s\n", path,
                errno == EINVAL ? "not a regular file" : strerror(errno));
        if (fd >= 0)
            close(fd);
        return 1;
    }
    memset(info, 0, sizeof *info);
    while (fgets(line, sizeof line, f)) {
        char ev[64], extra;
        double t, delta, rate, tot, mt, mrate;
        struct plot_series *x;
        int fields;
        lineno++;
        if (strncmp(line, "hpm series: ", 12) == 0 && !info->program[0]) {
            /* "hpm series: COMMAND (machine M; ...)": the program */
            size_t l = strcspn(line + 12, "\n");
            const char *paren = strstr(line + 12, " (machine ");
            if (paren && (size_t)(paren - (line + 12)) < l)
                l = (size_t)(paren - (line + 12));
            snprintf(info->program, sizeof info->program, "%.*s", (int)l, line + 12);
            continue;
        }
        /* the header, and hpm's own messages when the series was taken from
         * stderr (hpm count -I ... 2>series.csv), are not data */
        if (strncmp(line, "time_s,event,", 13) == 0 || strncmp(line, "hpm", 3) == 0 ||
            line[0] == '#' || line[0] == '\n')
            continue;
        fields = sscanf(line, "%lf,%63[^,],%lf,%lf,%lf,%lf,%lf%c", &t, ev, &delta, &rate, &tot,
                        &mt, &mrate, &extra);
        if (fields < 5) {
            fprintf(stderr,
                    "hpm plot: %s:%lu: not an interval series line "
                    "(time_s,event,delta,rate_per_s,total)\n",
                    path, lineno);
            fclose(f);
            return 1;
        }
        if (!wanted(events, ev))
            continue;
        if (!(x = series_of(s, ns, ev))) {
            fprintf(stderr, "hpm plot: %s: more than %d events; pick some with -e\n", path,
                    PLOT_MAX_EVENTS);
            fclose(f);
            return 1;
        }
        if (++points > PLOT_MAX_POINTS) {
            fprintf(stderr, "hpm plot: %s: more than %d points\n", path, PLOT_MAX_POINTS);
            fclose(f);
            return 1;
        }
        if (x->n == x->cap && series_grow(x) != 0) {
            fclose(f);
            return 1;
        }
        info->lines++;
        if (fields >= 7) {
            /* modeled time beside host time: kept apart until every line
             * is known to have it */
            info->modeled_lines++;
            x->mt[x->n] = mt;
            x->mv[x->n] = mrate;
        }
        x->t[x->n] = t;
        x->v[x->n++] = total ? tot : rate;
    }
    fclose(f);
    if (info->lines && info->modeled_lines == info->lines) {
        unsigned i;
        for (i = 0; i < *ns; i++) {
            size_t k;
            for (k = 0; k < s[i].n; k++) {
                s[i].t[k] = s[i].mt[k];
                if (!total)
                    s[i].v[k] = s[i].mv[k];
            }
        }
    } else
        info->modeled_lines = 0;
    if (*ns == 0) {
        fprintf(stderr, "hpm plot: %s: no data%s\n", path, events ? " for those events" : "");
        return 1;
    }
    return 0;
}


/* s as it can be printed in a message: control characters as \n, \r or
 * \xNN (the name itself would break the line it is named on) */
static const char *printable(const char *s, char *buf, size_t len)
{
    size_t n = 0;
    for (; *s && n + 5 < len; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\n' || c == '\r')
            n += (size_t)snprintf(buf + n, len - n, "\\%c", c == '\n' ? 'n' : 'r');
        else if (c < 0x20 || c == 0x7f)
            n += (size_t)snprintf(buf + n, len - n, "\\x%02x", c);
        else
            buf[n++] = (char)c;
    }
    buf[n] = 0;
    return buf;
}


/* Draws the series into out (.svg or .png) with gnuplot: 0, or 1 after a
 * message. xtics: names of the x positions 0, 1, ... (baselines), or NULL
 * for a time axis. */
static int draw_plot(const char *out, const char *title, const char *xlabel, const char *ylabel,
                     const struct plot_series *s, unsigned ns, const char *const *xtics,
                     unsigned n_xtics)
{
    unsigned i;
    pid_t pid;
    FILE *g = gp_open(out, &pid);
    if (!g)
        return 1;
    fprintf(g, "set title ");
    gp_string(g, "", title);
    fprintf(g, " noenhanced\nset xlabel '%s'\nset ylabel '%s'\nset key outside right "
               "noenhanced\nset grid\n",
            xlabel, ylabel);
    if (xtics) {
        /* the baselines' names under their points (gp_safe'd by the caller) */
        fprintf(g, "set xtics rotate by -30 (");
        for (i = 0; i < n_xtics; i++) {
            fprintf(g, "%s", i ? ", " : "");
            gp_string(g, "", xtics[i]);
            fprintf(g, " %u", i);
        }
        fprintf(g, ")\nset offsets 0.3, 0.3, 0, 0\n");
    }
    for (i = 0; i < ns; i++) {
        size_t k;
        fprintf(g, "$d%u << EOD\n", i);
        for (k = 0; k < s[i].n; k++)
            fprintf(g, "%.6f %.9g\n", s[i].t[k], s[i].v[k]);
        fprintf(g, "EOD\n");
    }
    fprintf(g, "plot ");
    for (i = 0; i < ns; i++) {
        fprintf(g, "%s$d%u using 1:2 with linespoints title ", i ? ", " : "", i);
        gp_string(g, "", s[i].name);
    }
    fprintf(g, "\n");
    return gp_close(g, pid);
}

/* A JSON report starts with '{' (after white space). */
static int json_head(const char *head, size_t n)
{
    size_t i = strspn(head, " \t\r\n");
    return i < n && head[i] == '{';
}

/* A baseline's value of an event (its total) or a derived metric (key or
 * label) in its report.json: 1 and *v, or 0 (none). */
static int report_value(const struct count_report_doc *rep, const char *name, double *v)
{
    const struct count_read_event *e = count_report_doc_event(rep, name);
    unsigned i;
    if (e) {
        *v = (double)e->count;
        return 1;
    }
    for (i = 0; i < rep->given.n_metrics; i++) {
        const struct count_report_metric *m = &rep->given.metrics[i];
        if ((strcasecmp(m->metric->key, name) == 0 || strcasecmp(m->metric->label, name) == 0) &&
            m->defined) {
            *v = m->value;
            return 1;
        }
    }
    return 0;
}

/* Baseline i's values of the series (s[k].v[i]), after checking that its
 * machine model is the first baseline's: 0, or -1 with *rc set and a
 * message printed. */
static int baseline_value(const char *name, const char *first, unsigned i,
                          struct diff_machine machine[2],
                          struct plot_series *s, unsigned ns, int *rc)
{
    struct count_report_doc rep;
    char dir[4096], path[4200], err[600], why[512], *text;
    size_t len;
    unsigned k;
    if (baseline_path(name, dir, sizeof dir, err, sizeof err) != 0) {
        fprintf(stderr, "hpm plot: %s\n", err);
        return -1;
    }
    snprintf(path, sizeof path, "%s/report.json", dir);
    if (hpm_file_read(path, (size_t)1 << 30, json_head, "a baseline's report (JSON)", &text, &len,
                      err, sizeof err) != 0) {
        fprintf(stderr, "hpm plot: baseline %s: %s\n", name, err);
        return -1;
    }
    if (count_report_read(&rep, text, len, why, sizeof why) != 0) {
        fprintf(stderr, "hpm plot: baseline %s: %s: %s\n", name, path, why);
        free(text);
        count_report_doc_free(&rep);
        return -1;
    }
    free(text);
    diff_machine_of(&machine[i ? 1 : 0], &rep);
    if (i && diff_machine_same(&machine[0], &machine[1]) == 0) {
        char a[160], b[160];
        diff_machine_text(&machine[0], a, sizeof a);
        diff_machine_text(&machine[1], b, sizeof b);
        fprintf(stderr,
                "hpm plot: baseline %s was counted on machine model %s, baseline %s on %s: "
                "not comparable (hpm diff compares two models)\n",
                name, b, first, a);
        count_report_doc_free(&rep);
        *rc = 2;
        return -1;
    }
    for (k = 0; k < ns; k++) {
        s[k].t[i] = i;
        if (!report_value(&rep, s[k].name, &s[k].v[i])) {
            fprintf(stderr, "hpm plot: baseline %s has no event or metric %s\n", name,
                    s[k].name);
            count_report_doc_free(&rep);
            return -1;
        }
        s[k].n = i + 1;
    }
    count_report_doc_free(&rep);
    return 0;
}

/* hpm plot --baselines: each event or metric across the baselines. */
static int plot_baselines(const char *out, const char *events, const char *const *names,
                          unsigned n)
{
    struct plot_series s[PLOT_MAX_EVENTS];
    struct diff_machine machine[2]; /* the first baseline's, this one's */
    unsigned ns = 0, i, k;
    const char *p = events, *ext = strrchr(out, '.');
    int rc = 1;
    if (!ext || (strcmp(ext, ".svg") != 0 && strcmp(ext, ".png") != 0)) {
        fprintf(stderr, "hpm plot: the output must end in .svg or .png: '%s'\n", out);
        return 2;
    }
    if (!gp_safe(out) || !gp_safe(events)) {
        char shown[600];
        fprintf(stderr, "hpm plot: '%s': a name with control characters cannot be given to "
                        "gnuplot\n",
                printable(gp_safe(out) ? events : out, shown, sizeof shown));
        return 2;
    }
    for (i = 0; i < n; i++)
        if (!gp_safe(names[i])) {
            char shown[600];
            fprintf(stderr, "hpm plot: '%s': a baseline name with control characters cannot be "
                            "given to gnuplot\n",
                    printable(names[i], shown, sizeof shown));
            return 2;
        }
    if (!runner_output_ok("hpm plot", out))
        return 2;
    memset(s, 0, sizeof s);
    while (*p && ns < PLOT_MAX_EVENTS) {
        size_t len = strcspn(p, ",");
        snprintf(s[ns].name, sizeof s[ns].name, "%.*s", (int)len, p);
        s[ns].t = calloc(n, sizeof(double));
        s[ns].v = calloc(n, sizeof(double));
        if (!s[ns].t || !s[ns].v)
            goto out;
        ns++;
        p += len + (p[len] == ',');
    }
    for (i = 0; i < n; i++) {
        if (baseline_value(names[i], names[0], i, machine, s, ns, &rc) != 0)
            goto out;
    }
    rc = draw_plot(out, "across baselines", "baseline", "total or metric (modeled)", s, ns, names,
                   n);
    if (rc == 0)
        printf("hpm plot: wrote %s (%u series over %u baselines)\n", out, ns, n);
out:
    for (k = 0; k < ns; k++) {
        free(s[k].t);
        free(s[k].v);
    }
    return rc;
}

static void free_series(struct plot_series *s, unsigned ns)
{
    unsigned i;
    for (i = 0; i < ns; i++) {
        free(s[i].t);
        free(s[i].v);
        free(s[i].mt);
        free(s[i].mv);
    }
}

/* "PROGRAM: EVENT, EVENT" (the file's name when the series names no
 * program); control characters left out, as gnuplot must not see them. */
static void series_title(char *buf, size_t len, const struct series_info *info,
                         const char *path, const struct plot_series *s, unsigned ns)
{
    size_t at, i;
    unsigned k;
    at = (size_t)snprintf(buf, len, "%s:", info->program[0] ? info->program : path);
    for (k = 0; k < ns && at < len; k++)
        at += (size_t)snprintf(buf + at, len - at, "%s %s", k ? "," : "", s[k].name);
    for (i = 0; buf[i]; i++)
        if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
            buf[i] = '?';
}

int cmd_plot(int argc, char **argv)
{
    const char *out = NULL, *events = NULL;
    int total = 0, baselines = 0, matrix = 0, bytes = 0, first, rc;
    const struct hpm_opt t[] = {
        {"--output", "-o", "FILE", "the picture: FILE.svg or FILE.png", HPM_OPT_STRING, &out, NULL,
         NULL, 0, 0},
        {"--events", "-e", "EVENTS", "only these events", HPM_OPT_STRING, &events, NULL, NULL, 0, 0},
        {"--total", NULL, NULL, "plot running totals instead of rates", HPM_OPT_FLAG, &total,
         NULL, NULL, 0, 0},
        {"--baselines", NULL, NULL,
         "the arguments are baselines (names or folders): plot the -e\n"
         "events' totals or derived metrics across them",
         HPM_OPT_FLAG, &baselines, NULL, NULL, 0, 0},
        {"--matrix", NULL, NULL,
         "the file is an MPI job's aggregate (hpm count --json): draw\n"
         "its communication matrix as a heatmap (messages; --bytes)",
         HPM_OPT_FLAG, &matrix, NULL, NULL, 0, 0},
        {"--bytes", NULL, NULL, "--matrix: the bytes sent instead of the messages", HPM_OPT_FLAG,
         &bytes, NULL, NULL, 0, 0},
        HPM_OPT_TABLE_END,
    };
    struct plot_series s[PLOT_MAX_EVENTS];
    struct series_info info;
    unsigned ns = 0, i;
    char outbuf[4096], title[512];
    const char *ext;

    /* the file may come first (hpm plot FILE -o OUT) or after the options */
    if (argc > 1 && argv[1][0] != '-' && !(argc > 2 && strcmp(argv[1], "--baselines") == 0)) {
        const char *file = argv[1];
        rc = hpm_opt_parse("hpm plot", t, plot_synopsis, NULL, argc - 1, argv + 1, &first);
        if (rc)
            return rc < 0 ? 0 : rc;
        if (first + 1 < argc)
            return hpm_opt_error("hpm plot", t, plot_synopsis, NULL, "unexpected argument '%s'",
                                 argv[first + 1]);
        argv[1] = (char *)file;
        first = 1;
        argc = 2;
    } else {
        rc = hpm_opt_parse("hpm plot", t, plot_synopsis, NULL, argc, argv, &first);
        if (rc)
            return rc < 0 ? 0 : rc;
    }
    if (baselines) {
        if (!events || !out || argc - first < 1)
            return hpm_opt_error("hpm plot", t, plot_synopsis, NULL,
                                 "--baselines needs -e EVENTS, -o OUT and baselines%s", "");
        return plot_baselines(out, events, (const char *const *)argv + first,
                              (unsigned)(argc - first));
    }
    if (argc - first != 1)
        return hpm_opt_error("hpm plot", t, plot_synopsis, NULL, "one series file is needed%s",
                             "");
    if (!out) {
        const char *in = argv[first], *dot = strrchr(in, '.');
        int n = dot && !strchr(dot, '/') ? (int)(dot - in) : (int)strlen(in);
        snprintf(outbuf, sizeof outbuf, "%.*s.svg", n, in);
        out = outbuf;
    }
    if (!gp_safe(out) || !gp_safe(argv[first])) {
        char shown[600];
        fprintf(stderr, "hpm plot: '%s': a file name with control characters (a newline, ...) "
                        "cannot be given to gnuplot; rename it\n",
                printable(gp_safe(out) ? argv[first] : out, shown, sizeof shown));
        return 2;
    }
    ext = strrchr(out, '.');
    if (!ext || (strcmp(ext, ".svg") != 0 && strcmp(ext, ".png") != 0))
        return hpm_opt_error("hpm plot", t, plot_synopsis, NULL,
                             "the output must end in .svg or .png: '%s'", out);
    if (!runner_output_ok("hpm plot", out))
        return 2;
    if (matrix || bytes)
        return plot_matrix(argv[first], out, bytes);
    if (read_series(argv[first], events, total, s, &ns, &info) != 0) {
        free_series(s, ns);
        return 1;
    }
    for (i = 0; i < ns; i++)
        if (!gp_safe(s[i].name)) {
            char shown[200];
            fprintf(stderr, "hpm plot: %s: '%s': an event name with control characters; not a "
                            "series of hpm's\n",
                    argv[first], printable(s[i].name, shown, sizeof shown));
            free_series(s, ns);
            return 2;
        }
    series_title(title, sizeof title, &info, argv[first], s, ns);
    rc = draw_plot(out, title,
                   info.modeled_lines ? "modeled time (s)" : "host time (s): the series has no cycles",
                   total ? "total (modeled)"
                   : info.modeled_lines ? "rate per modeled second"
                                        : "rate per second of host time (modeled counts)",
                   s, ns, NULL, 0);
    free_series(s, ns);
    if (rc == 0)
        printf("hpm plot: wrote %s (%u event%s)\n", out, ns, ns == 1 ? "" : "s");
    return rc;
}
