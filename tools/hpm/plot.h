/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plot.h - what hpm plot and hpm roofline share to talk to gnuplot: names
 * given safely, and the gnuplot process.
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

#endif
