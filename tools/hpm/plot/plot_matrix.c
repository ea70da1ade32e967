/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plot_matrix.c - hpm plot --matrix: an MPI job's communication matrix
 * (rank by rank, the messages or bytes each rank sent each other) as a
 * heatmap drawn by gnuplot, from the aggregate that rank 0's hpm count
 * wrote with --json ("mpi": {"matrix": {"messages": [[...]], "bytes": [[...]]}};
 * docs/mpi.md). Row = sender, column = receiver, sender 0 at the top.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "plot/plot.h"

#define MATRIX_MAX_RANKS 1024

/* The matrix of the aggregate's bytes: its size, or 0 after a message. */
static size_t matrix_of(json_t *root, const char *path, const char *which, json_t **m)
{
    size_t n, i, j;
    *m = json_object_get(json_object_get(json_object_get(root, "mpi"), "matrix"), which);
    n = json_array_size(*m);
    if (!json_is_array(*m) || n == 0 || n > MATRIX_MAX_RANKS) {
        fprintf(stderr, "hpm plot: %s: no communication matrix (\"mpi\": {\"matrix\": {\"%s\": "
                        "[[...]]}}, the aggregate of an MPI job, hpm count --json)\n", path,
                which);
        return 0;
    }
    for (i = 0; i < n; i++) {
        json_t *row = json_array_get(*m, i);
        if (!json_is_array(row) || json_array_size(row) != n)
            goto bad;
        for (j = 0; j < n; j++)
            if (!json_is_integer(json_array_get(row, j)) ||
                json_integer_value(json_array_get(row, j)) < 0)
                goto bad;
    }
    return n;
bad:
    fprintf(stderr, "hpm plot: %s: \"mpi\".\"matrix\".\"%s\" is not %zu rows of %zu counts\n", path,
            which, n, n);
    return 0;
}

int plot_matrix(const char *json, const char *out, int bytes)
{
    const char *which = bytes ? "bytes" : "messages";
    char *buf = NULL, err[300];
    size_t len = 0, n, i, j;
    json_error_t je;
    json_t *root, *m;
    pid_t pid;
    FILE *g;
    int rc = 1;
    if (hpm_file_read(json, (size_t)256 << 20, NULL, "an MPI job's aggregate (JSON)", &buf, &len,
                      err, sizeof err) != 0) {
        fprintf(stderr, "hpm plot: %s\n", err);
        return 1;
    }
    root = json_loadb(buf, len, 0, &je);
    free(buf);
    if (!root) {
        fprintf(stderr, "hpm plot: %s:%d: %s\n", json, je.line, je.text);
        return 1;
    }
    if (!(n = matrix_of(root, json, which, &m)) || !(g = gp_open(out, &pid))) {
        json_decref(root);
        return 1;
    }
    fprintf(g, "set title ");
    gp_string(g, bytes ? "MPI communication matrix, bytes sent: " :
                         "MPI communication matrix, messages sent: ", json);
    fprintf(g, " noenhanced\nset xlabel 'receiver rank'\nset ylabel 'sender rank'\n"
               "set cblabel '%s sent (libhpm-mpi counted each call)'\nset xrange [-0.5:%zu.5]\n"
               "set yrange [%zu.5:-0.5]\nset xtics 0,%zu\nset ytics 0,%zu\nset tics out\n"
               "set palette rgb 33,13,10\n$m << EOD\n",
            which, n - 1, n - 1, n > 16 ? n / 16 : 1, n > 16 ? n / 16 : 1);
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++)
            fprintf(g, "%s%" JSON_INTEGER_FORMAT, j ? " " : "",
                    json_integer_value(json_array_get(json_array_get(m, i), j)));
        fputc('\n', g);
    }
    fprintf(g, "EOD\nplot $m matrix with image notitle\n");
    rc = gp_close(g, pid);
    json_decref(root);
    if (rc == 0)
        printf("hpm plot: wrote %s (%zu x %zu ranks, %s)\n", out, n, n, which);
    return rc;
}
