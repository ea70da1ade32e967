/* SPDX-License-Identifier: BSD-3-Clause */
/* mpi_combined.c - the reader of libhpm-mpi's combined results
 * (mpi_combined.h). Every array is checked against the sizes the file
 * declares; every tuple's ranks against the job's size. */
#define _GNU_SOURCE
#include "report/mpi_combined.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "report/mpi_job.h"

/* An unsigned integer member or element in [0, max]: 0, or -1. */
static int uint_of(json_t *x, uint64_t max, uint64_t *v)
{
    if (!json_is_integer(x) || json_integer_value(x) < 0 ||
        (uint64_t)json_integer_value(x) > max)
        return -1;
    *v = (uint64_t)json_integer_value(x);
    return 0;
}

static int tuple_of(json_t *x, unsigned size, struct mpi_tuple *t)
{
    if (!json_is_array(x) || json_array_size(x) != 5 ||
        uint_of(json_array_get(x, 0), INT64_MAX, &t->sum) ||
        uint_of(json_array_get(x, 1), INT64_MAX, &t->min) ||
        uint_of(json_array_get(x, 2), size - 1, &t->min_rank) ||
        uint_of(json_array_get(x, 3), INT64_MAX, &t->max) ||
        uint_of(json_array_get(x, 4), size - 1, &t->max_rank) || t->min > t->max ||
        t->max > t->sum)
        return -1;
    return 0;
}

/* n tuples from array x into *out (allocated): 0, or -1. */
static int tuples_of(json_t *x, size_t n, unsigned size, struct mpi_tuple **out)
{
    size_t i;
    if (!json_is_array(x) || json_array_size(x) != n || !(*out = calloc(n + 1, sizeof **out)))
        return -1;
    for (i = 0; i < n; i++)
        if (tuple_of(json_array_get(x, i), size, &(*out)[i]))
            return -1;
    return 0;
}

static int counts_of(json_t *x, const struct mpi_combined *c, struct mpi_counts *k)
{
    return json_is_object(x) &&
                   !tuples_of(json_object_get(x, "codes"), c->ncodes, c->size, &k->codes) &&
                   !tuples_of(json_object_get(x, "rows"), c->nrows, c->size, &k->rows)
               ? 0
               : -1;
}

/* "codes" (distinct catalog specs) and "rows" (arrays of those specs). */
static int events_of(json_t *root, struct mpi_combined *c, char *err, size_t errlen)
{
    json_t *codes = json_object_get(root, "codes"), *rows = json_object_get(root, "rows");
    size_t i, j, n = 0;
    uint64_t v;
    if (!json_is_array(codes) || json_array_size(codes) > HPM_CAT_SPECS || !json_is_array(rows) ||
        json_array_size(rows) > 4096) {
        snprintf(err, errlen, "no \"codes\" or \"rows\" array of a size hpm counts");
        return -1;
    }
    c->nrows = (unsigned)json_array_size(rows);
    c->codes = calloc(json_array_size(codes) + 1, sizeof *c->codes);
    c->row_start = calloc(c->nrows + 1, sizeof *c->row_start);
    for (i = 0; i < c->nrows; i++)
        n += json_is_array(json_array_get(rows, i)) ? json_array_size(json_array_get(rows, i)) : 0;
    c->row_spec = calloc(n + 1, sizeof *c->row_spec);
    if (!c->codes || !c->row_start || !c->row_spec) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (c->ncodes = 0; c->ncodes < json_array_size(codes); c->ncodes++) {
        if (uint_of(json_array_get(codes, c->ncodes), HPM_CAT_SPECS - 1, &v) ||
            mpi_combined_code_index(c, (unsigned)v) >= 0) {
            snprintf(err, errlen, "code %u: not an event spec, or given twice", c->ncodes + 1);
            return -1;
        }
        c->codes[c->ncodes] = (unsigned)v;
    }
    for (i = n = 0; i < c->nrows; i++) {
        json_t *r = json_array_get(rows, i);
        for (j = 0; j < json_array_size(r); j++) {
            if (uint_of(json_array_get(r, j), HPM_CAT_SPECS - 1, &v) ||
                mpi_combined_code_index(c, (unsigned)v) < 0) {
                snprintf(err, errlen, "row %zu: %zu-th code is not one of \"codes\"", i + 1,
                         j + 1);
                return -1;
            }
            c->row_spec[n++] = (unsigned)v;
        }
        c->row_start[i + 1] = (unsigned)n;
    }
    return 0;
}

static int routines_of(json_t *x, struct mpi_combined *c)
{
    static const char *const metric[MPI_M_COUNT] = {"calls", "bytes", "cycles", "ns"};
    size_t i, m;
    if (!json_is_array(x) || json_array_size(x) > 256 ||
        !(c->routines = calloc(json_array_size(x) + 1, sizeof *c->routines)))
        return -1;
    for (i = 0; i < json_array_size(x); i++) {
        json_t *r = json_array_get(x, i), *name = json_object_get(r, "name");
        if (!json_is_string(name) || json_string_length(name) >= sizeof c->routines[i].name ||
            strncmp(json_string_value(name), "MPI_", 4) != 0)
            return -1;
        snprintf(c->routines[i].name, sizeof c->routines[i].name, "%s", json_string_value(name));
        for (m = 0; m < MPI_M_COUNT; m++)
            if (tuple_of(json_object_get(r, metric[m]), c->size, &c->routines[i].m[m]))
                return -1;
        c->nroutines++;
    }
    return 0;
}

static int regions_of(json_t *x, struct mpi_combined *c)
{
    size_t i;
    if (!json_is_array(x) || json_array_size(x) > 16 ||
        !(c->regions = calloc(json_array_size(x) + 1, sizeof *c->regions)))
        return -1;
    for (i = 0; i < json_array_size(x); i++) {
        json_t *r = json_array_get(x, i), *name = json_object_get(r, "name");
        struct mpi_region *g = &c->regions[i];
        c->nregions++;
        if (!json_is_string(name) || json_string_length(name) >= sizeof g->name ||
            strlen(json_string_value(name)) != json_string_length(name) ||
            tuple_of(json_object_get(r, "entries"), c->size, &g->entries) ||
            tuples_of(json_object_get(r, "rows"), c->nrows, c->size, &g->rows))
            return -1;
        snprintf(g->name, sizeof g->name, "%s", json_string_value(name));
    }
    return 0;
}

/* n counts from array x into out: 0, or -1. */
static int counts_into(json_t *x, size_t n, uint64_t *out)
{
    size_t i;
    if (!json_is_array(x) || json_array_size(x) != n)
        return -1;
    for (i = 0; i < n; i++)
        if (uint_of(json_array_get(x, i), INT64_MAX, &out[i]))
            return -1;
    return 0;
}

/* A rank's "profile": the job's routines in order, 4 counts each. */
static int rank_prof_of(json_t *x, const struct mpi_combined *c, uint64_t *out)
{
    size_t k;
    if (!json_is_array(x) || json_array_size(x) != c->nroutines)
        return -1;
    for (k = 0; k < c->nroutines; k++)
        if (counts_into(json_array_get(x, k), MPI_M_COUNT, out + k * MPI_M_COUNT))
            return -1;
    return 0;
}

/* "ranks" (optional): every rank once, in order, its host, codes and
 * profile. */
static int ranks_of(json_t *x, struct mpi_combined *c)
{
    size_t i, np = (size_t)c->nroutines * MPI_M_COUNT;
    uint64_t v;
    if (!x)
        return 0;
    if (!json_is_array(x) || json_array_size(x) != c->size ||
        !(c->rank_codes = calloc((size_t)c->size * c->ncodes + 1, sizeof *c->rank_codes)) ||
        !(c->rank_prof = calloc((size_t)c->size * np + 1, sizeof *c->rank_prof)) ||
        !(c->hosts = calloc(c->size, sizeof *c->hosts)))
        return -1;
    for (i = 0; i < c->size; i++) {
        json_t *r = json_array_get(x, i), *host = json_object_get(r, "host");
        if (uint_of(json_object_get(r, "rank"), c->size - 1, &v) || v != i ||
            !json_is_string(host) || json_string_length(host) >= 64 ||
            counts_into(json_object_get(r, "codes"), c->ncodes, c->rank_codes + i * c->ncodes) ||
            rank_prof_of(json_object_get(r, "profile"), c, c->rank_prof + i * np))
            return -1;
        snprintf(c->hosts[i], 64, "%s", json_string_value(host));
    }
    return 0;
}

/* "matrix_messages" and "matrix_bytes" (optional, both or neither). */
static int matrix_of(json_t *root, struct mpi_combined *c)
{
    static const char *const key[2] = {"matrix_messages", "matrix_bytes"};
    size_t g, i, n = c->size;
    if (!json_object_get(root, key[0]) && !json_object_get(root, key[1]))
        return 0;
    for (g = 0; g < 2; g++) {
        json_t *m = json_object_get(root, key[g]);
        if (!json_is_array(m) || json_array_size(m) != n ||
            !(c->matrix[g] = calloc(n * n, sizeof *c->matrix[g])))
            return -1;
        for (i = 0; i < n; i++)
            if (counts_into(json_array_get(m, i), n, c->matrix[g] + i * n))
                return -1;
    }
    return 0;
}

int mpi_combined_parse(struct mpi_combined *c, const char *buf, size_t len, char *err,
                       size_t errlen)
{
    json_error_t je;
    json_t *root, *w;
    uint64_t v;
    int rc = -1;
    memset(c, 0, sizeof *c);
    root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        snprintf(err, errlen, "line %d: %s", je.line, je.text);
        return -1;
    }
    w = json_object_get(root, "windows");
    if (!json_is_object(root) || uint_of(json_object_get(root, "hpm_mpi"), 1, &v) || v != 1) {
        snprintf(err, errlen, "not libhpm-mpi's combined results (no \"hpm_mpi\":1)");
        goto out;
    }
    if (uint_of(json_object_get(root, "size"), MPI_JOB_MAX_RANKS, &v) || v < 1) {
        snprintf(err, errlen, "\"size\" must be a number of ranks, 1 to %d", MPI_JOB_MAX_RANKS);
        goto out;
    }
    c->size = (unsigned)v;
    if (uint_of(json_object_get(root, "ranks_per_node"), c->size, &v) || v < 1) {
        snprintf(err, errlen, "\"ranks_per_node\" must be 1 to the job's size");
        goto out;
    }
    c->ranks_per_node = (unsigned)v;
    if (events_of(root, c, err, errlen))
        goto out;
    if (!json_is_object(w) || counts_of(json_object_get(w, "process"), c, &c->process) ||
        counts_of(json_object_get(w, "mpi"), c, &c->mpi))
        snprintf(err, errlen, "\"windows\": a window's tuples do not match its codes and rows");
    else if (routines_of(json_object_get(root, "routines"), c))
        snprintf(err, errlen, "\"routines\": not a list of MPI routines with four tuples");
    else if (regions_of(json_object_get(root, "regions"), c))
        snprintf(err, errlen, "\"regions\": not a list of at most 16 named regions");
    else if (uint_of(json_object_get(root, "regions_dropped"), UINT32_MAX, &v))
        snprintf(err, errlen, "\"regions_dropped\" must be a number");
    else if ((c->regions_dropped = (unsigned)v, ranks_of(json_object_get(root, "ranks"), c)))
        snprintf(err, errlen, "\"ranks\": not every rank once, in order, with its codes");
    else if (matrix_of(root, c))
        snprintf(err, errlen, "\"matrix_messages\", \"matrix_bytes\": not %u x %u", c->size,
                 c->size);
    else if (uint_of(json_object_get(json_object_get(root, "combine"), "ns"), INT64_MAX,
                     &c->combine_ns) ||
             uint_of(json_object_get(json_object_get(root, "combine"), "bytes"), INT64_MAX,
                     &c->combine_bytes))
        snprintf(err, errlen, "\"combine\": no {\"ns\":N,\"bytes\":N}");
    else
        rc = 0;
out:
    json_decref(root);
    return rc;
}

int mpi_combined_code_index(const struct mpi_combined *c, unsigned spec)
{
    unsigned i;
    for (i = 0; i < c->ncodes; i++)
        if (c->codes[i] == spec)
            return (int)i;
    return -1;
}

static void counts_free(struct mpi_counts *k)
{
    free(k->codes);
    free(k->rows);
}

void mpi_combined_free(struct mpi_combined *c)
{
    unsigned i;
    free(c->codes);
    free(c->row_start);
    free(c->row_spec);
    counts_free(&c->process);
    counts_free(&c->mpi);
    free(c->routines);
    for (i = 0; i < c->nregions; i++)
        free(c->regions[i].rows);
    free(c->regions);
    free(c->rank_codes);
    free(c->rank_prof);
    free(c->hosts);
    free(c->matrix[0]);
    free(c->matrix[1]);
    memset(c, 0, sizeof *c);
}
