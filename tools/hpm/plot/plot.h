/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plot.h - what hpm plot and hpm roofline share to talk to gnuplot
 * (gnuplot.c: names given safely, the gnuplot process), and hpm plot's
 * matrix (plot_matrix.c).
 */
#ifndef HPM_TOOL_PLOT_H
#define HPM_TOOL_PLOT_H

#include <stdio.h>
#include <sys/types.h>

/* Whether s can reach gnuplot inside a single-quoted string (no control
 * characters: a newline would start a command of its own). */
int gp_safe(const char *s);
/* prefix and s as one gnuplot single-quoted string (gp_safe first). */
void gp_string(FILE *g, const char *prefix, const char *s);

/* gnuplot running with its standard input the returned stream (its
 * standard output /dev/null): write the script, then gp_finish. NULL after
 * a message (cmd: ...). */
FILE *gp_start(const char *cmd, pid_t *pid);
/* Ends the script and waits: 0, or 1 after a message (gnuplot failed). */
int gp_finish(const char *cmd, FILE *g, pid_t pid);
/* gp_start for hpm plot, with its terminal (out's extension: .svg, else
 * PNG) and its output set to out; NULL after a message. */
FILE *gp_open(const char *out, pid_t *pid);
/* gp_finish for hpm plot. */
int gp_close(FILE *g, pid_t pid);
/* hpm plot --matrix AGGREGATE.json: an MPI job's communication matrix as
 * a heatmap (plot_matrix.c); the exit status. */
int plot_matrix(const char *json, const char *out, int bytes);

#endif
