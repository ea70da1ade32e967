/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gnuplot.c - talking to gnuplot (plot.h): the names it can be given, its
 * strings, and a gnuplot on a pipe with its picture's terminal and output;
 * hpm plot's series, baselines and matrix, and hpm roofline, draw through
 * it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plot/plot.h"

/* Whether s can reach gnuplot inside a single-quoted string: no control
 * characters. A newline would end the command there and make the rest of
 * the name a command of its own (and gnuplot's `system` runs a shell);
 * single quotes keep backquotes and macros from being substituted. */
int gp_safe(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 0;
    return 1;
}

/* gnuplot's string syntax: single quotes, doubled inside (gp_safe first);
 * the string is prefix and s one after the other */
void gp_string(FILE *g, const char *prefix, const char *s)
{
    const char *parts[2] = {prefix, s};
    unsigned i;
    fputc('\'', g);
    for (i = 0; i < 2; i++)
        for (s = parts[i]; *s; s++) {
            if (*s == '\'')
                fputc('\'', g);
            fputc(*s, g);
        }
    fputc('\'', g);
}

FILE *gp_start(const char *cmd, pid_t *pid)
{
    int pfd[2];
    FILE *g;
    if (pipe(pfd) != 0) {
        fprintf(stderr, "%s: pipe: %s\n", cmd, strerror(errno));
        return NULL;
    }
    fflush(NULL);
    *pid = fork();
    if (*pid == 0) {
        /* gnuplot draws onto its standard output when it cannot open the
         * output file: that drawing is not hpm's output */
        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        close(pfd[1]);
        if (dup2(pfd[0], 0) < 0)
            _exit(127);
        if (null >= 0)
            (void)dup2(null, 1);
        execlp("gnuplot", "gnuplot", (char *)NULL);
        fprintf(stderr, "%s: cannot run gnuplot: %s (Debian: gnuplot-nox)\n", cmd,
                strerror(errno));
        _exit(127);
    }
    close(pfd[0]);
    if (*pid < 0 || !(g = fdopen(pfd[1], "w"))) {
        fprintf(stderr, "%s: cannot start gnuplot\n", cmd);
        if (*pid < 0)
            close(pfd[1]);
        return NULL;
    }
    return g;
}

int gp_finish(const char *cmd, FILE *g, pid_t pid)
{
    int status;
    fclose(g);
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "%s: gnuplot failed (status %d)\n", cmd,
                WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
        return 1;
    }
    return 0;
}

FILE *gp_open(const char *out, pid_t *pid)
{
    const char *ext = strrchr(out, '.');
    FILE *g = gp_start("hpm plot", pid);
    if (!g)
        return NULL;
    fprintf(g, "set terminal %s size 900,500\nset output ",
            ext && strcmp(ext, ".svg") == 0 ? "svg dynamic" : "pngcairo");
    /* gnuplot opens an output named '|CMD' as a pipe to a shell running
     * CMD, and expands a leading '~/': a relative name is given as ./NAME,
     * so that it always names the file (hpm plot s.csv -o '|sh x #.svg') */
    gp_string(g, out[0] == '/' ? "" : "./", out);
    fputc('\n', g);
    return g;
}

int gp_close(FILE *g, pid_t pid)
{
    return gp_finish("hpm plot", g, pid);
}
