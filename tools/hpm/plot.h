/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plot.h - what hpm plot and hpm roofline share to talk to gnuplot.
 */
#ifndef HPM_TOOL_PLOT_H
#define HPM_TOOL_PLOT_H

#include <stdio.h>

/* Whether s can reach gnuplot inside a single-quoted string (no control
 * characters: a newline would start a command of its own). */
int gp_safe(const char *s);
/* prefix and s as one gnuplot single-quoted string (gp_safe first). */
void gp_string(FILE *g, const char *prefix, const char *s);

#endif
