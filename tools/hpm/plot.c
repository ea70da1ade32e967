/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm plot: render an interval series (hpm count -I MS --csv, hpm stat -I MS
 * --csv: time_s,event,delta,rate_per_s,total) with gnuplot, Debian's, into
 * an SVG or PNG file: one line per event, its rate per second over time.
 *
 *   hpm plot SERIES.csv [-o OUT.svg|OUT.png] [-e EVENT[,EVENT...]] [--total]
 *
 * The data goes to gnuplot as inline data blocks on its standard input (no
 * temporary files); gnuplot writes the picture.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "catalog.h"
#include "commands.h"
#include "fileio.h"
#include "options.h"

#define PLOT_MAX_EVENTS 32
#define PLOT_MAX_POINTS 200000

struct plot_series {
    char name[64];
    double *t, *v;
    size_t n, cap;
};

static const char plot_synopsis[] =
    "usage: hpm plot SERIES.csv [-o OUT.svg|OUT.png] [-e EVENT[,EVENT...]] [--total]\n"
    "Plot an interval series written by hpm count -I MS --csv or hpm stat -I MS --csv\n"
    "with gnuplot: each event's rate per second (or, with --total, its running total)\n"
    "over time. The output's extension picks SVG or PNG (default SERIES.svg).\n\n";

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

/* Reads the CSV; 0, or 1 after printing file:line: why. */
static int read_series(const char *path, const char *events, int total, struct plot_series *s,
                       unsigned *ns)
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
    while (fgets(line, sizeof line, f)) {
        char ev[64], extra;
        double t, delta, rate, tot;
        struct plot_series *x;
        lineno++;
        /* the header, and hpm's own messages when the series was taken from
         * stderr (hpm count -I ... 2>series.csv), are not data */
        if (strncmp(line, "time_s,event,", 13) == 0 || strncmp(line, "hpm", 3) == 0 ||
            line[0] == '#' || line[0] == '\n')
            continue;
        if (sscanf(line, "%lf,%63[^,],%lf,%lf,%lf%c", &t, ev, &delta, &rate, &tot, &extra) < 5) {
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
        if (x->n == x->cap) {
            size_t nc = x->cap ? x->cap * 2 : 64;
            double *nt = realloc(x->t, nc * sizeof *nt), *nv;
            if (!nt) {
                fclose(f);
                return 1;
            }
            x->t = nt;
            nv = realloc(x->v, nc * sizeof *nv);
            if (!nv) {
                fclose(f);
                return 1;
            }
            x->v = nv;
            x->cap = nc;
        }
        x->t[x->n] = t;
        x->v[x->n++] = total ? tot : rate;
    }
    fclose(f);
    if (*ns == 0) {
        fprintf(stderr, "hpm plot: %s: no data%s\n", path, events ? " for those events" : "");
        return 1;
    }
    return 0;
}

/* Whether s can reach gnuplot inside a single-quoted string: no control
 * characters. A newline would end the command there and make the rest of
 * the name a command of its own (and gnuplot's `system` runs a shell);
 * single quotes keep backquotes and macros from being substituted. */
static int gp_safe(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 0;
    return 1;
}

/* gnuplot's string syntax: single quotes, doubled inside (gp_safe first) */
static void gp_string(FILE *g, const char *s)
{
    fputc('\'', g);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', g);
        fputc(*s, g);
    }
    fputc('\'', g);
}

int cmd_plot(int argc, char **argv)
{
    const char *out = NULL, *events = NULL;
    int total = 0, first, rc, pfd[2], status;
    const struct hpm_opt t[] = {
        {"--output", "-o", "FILE", "the picture: FILE.svg or FILE.png", HPM_OPT_STRING, &out, NULL,
         NULL, 0, 0},
        {"--events", "-e", "EVENTS", "only these events", HPM_OPT_STRING, &events, NULL, NULL, 0, 0},
        {"--total", NULL, NULL, "plot running totals instead of rates", HPM_OPT_FLAG, &total,
         NULL, NULL, 0, 0},
        HPM_OPT_TABLE_END,
    };
    struct plot_series s[PLOT_MAX_EVENTS];
    unsigned ns = 0, i;
    char outbuf[4096];
    const char *ext;
    pid_t pid;
    FILE *g;

    /* the file may come first (hpm plot FILE -o OUT) or after the options */
    if (argc > 1 && argv[1][0] != '-') {
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
    if (argc - first != 1)
        return hpm_opt_error("hpm plot", t, plot_synopsis, NULL, "one series file is needed%s",
                             "");
    if (!out) {
        const char *in = argv[first], *dot = strrchr(in, '.');
        int n = dot && !strchr(dot, '/') ? (int)(dot - in) : (int)strlen(in);
        snprintf(outbuf, sizeof outbuf, "%.*s.svg", n, in);
        out = outbuf;
    }
    ext = strrchr(out, '.');
    if (!ext || (strcmp(ext, ".svg") != 0 && strcmp(ext, ".png") != 0))
        return hpm_opt_error("hpm plot", t, plot_synopsis, NULL,
                             "the output must end in .svg or .png: '%s'", out);
    if (!gp_safe(out) || !gp_safe(argv[first])) {
        fprintf(stderr, "hpm plot: a file name with control characters (a newline, ...) cannot "
                        "be given to gnuplot; rename it\n");
        return 2;
    }
    if (read_series(argv[first], events, total, s, &ns) != 0)
        return 1;
    for (i = 0; i < ns; i++)
        if (!gp_safe(s[i].name)) {
            fprintf(stderr, "hpm plot: %s: an event name with control characters; not a "
                            "series of hpm's\n",
                    argv[first]);
            for (i = 0; i < ns; i++) {
                free(s[i].t);
                free(s[i].v);
            }
            return 2;
        }

    if (pipe(pfd) != 0) {
        fprintf(stderr, "hpm plot: pipe: %s\n", strerror(errno));
        return 1;
    }
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        close(pfd[1]);
        if (dup2(pfd[0], 0) < 0)
            _exit(127);
        execlp("gnuplot", "gnuplot", (char *)NULL);
        fprintf(stderr, "hpm plot: cannot run gnuplot: %s (Debian: gnuplot-nox)\n",
                strerror(errno));
        _exit(127);
    }
    close(pfd[0]);
    if (pid < 0 || !(g = fdopen(pfd[1], "w"))) {
        fprintf(stderr, "hpm plot: cannot start gnuplot\n");
        return 1;
    }
    fprintf(g, "set terminal %s size 900,500\nset output ",
            strcmp(ext, ".svg") == 0 ? "svg dynamic" : "pngcairo");
    gp_string(g, out);
    fprintf(g, "\nset title ");
    gp_string(g, argv[first]);
    fprintf(g, " noenhanced\nset xlabel 'time (s)'\nset ylabel '%s'\nset key outside right "
               "noenhanced\nset grid\n",
            total ? "total (modeled)" : "rate per second of host time (modeled counts)");
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
        gp_string(g, s[i].name);
    }
    fprintf(g, "\n");
    fclose(g);
    for (i = 0; i < ns; i++) {
        free(s[i].t);
        free(s[i].v);
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "hpm plot: gnuplot failed (status %d)\n",
                WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
        return 1;
    }
    printf("hpm plot: wrote %s (%u event%s)\n", out, ns, ns == 1 ? "" : "s");
    return 0;
}
