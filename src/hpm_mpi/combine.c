/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * combine.c - at MPI_Finalize, every rank's records combined at rank 0 over
 * MPI itself (no shared folder), written there as JSON through the virtual
 * PMU (HPM_VPMU_MPI_RESULT: the tool writes the file hpm count named, so the
 * program's I/O units count nothing of it); every other rank writes
 * {"combined":RANK} the same way, so that its hpm count knows the job's
 * aggregate is rank 0's.
 *
 * Every collective goes over the library's own copy of MPI_COMM_WORLD
 * (me.comm), so that it never meets one of the program's. First the ranks
 * agree on the job's lists (an allreduce of the MPI_Pcontrol regions'
 * names and of the routines any rank called). Then one reduction
 * (PMPI_Reduce, a user operation over tuples: sum, minimum and its lowest
 * rank, maximum and its lowest rank; 32 bytes each) carries, per element:
 * every programmed code and report row from the start to MPI_Finalize and
 * from MPI_Init to MPI_Finalize, each routine called: its calls, bytes,
 * modeled cycles and host nanoseconds, and each region's entries and rows
 * (the virtual PMU's region counts of the row's core kind). Gathers only
 * for the per-rank tables (HPM_MPI_PER_RANK: each rank's codes, profile and
 * host) and the communication matrix (each rank's messages and bytes per
 * destination, up to HPM_MPI_MATRIX_MAX ranks). Rank 0's memory: the
 * tuples, O(events + routines + regions x events), plus O(ranks x events)
 * with per-rank tables and O(ranks^2) with the matrix.
 */
#define _GNU_SOURCE
#include "hpm_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hpm_client.h"

#define me hpm_mpi_me

struct tuple {
    uint64_t sum, min, max;
    uint32_t min_rank, max_rank;
};
_Static_assert(sizeof(struct tuple) == 4 * sizeof(uint64_t), "a tuple is 4 words");

/* What every rank must agree on before the reduction: the job's region
 * names (sorted; an empty name ends them) and the routines any rank called
 * (bit r: routine r), so that only those take elements. */
struct job_lists {
    char names[HPM_MPI_MAX_REGIONS][HPM_MPI_REGION_NAME];
    uint64_t called;
};
_Static_assert(HPM_MPI_N_ROUTINES <= 64, "a bit per routine");

/* A rank's row of the per-rank tables: its codes, then its profile. */
#define RANK_ROW (me.ncodes + HPM_MPI_N_ROUTINES * HPM_MPI_METRICS)

static void tuple_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    const struct tuple *a = in;
    struct tuple *b = inout;
    int i;
    (void)type;
    for (i = 0; i < *len; i++) {
        b[i].sum = b[i].sum > UINT64_MAX - a[i].sum ? UINT64_MAX : b[i].sum + a[i].sum;
        if (a[i].min < b[i].min || (a[i].min == b[i].min && a[i].min_rank < b[i].min_rank)) {
            b[i].min = a[i].min;
            b[i].min_rank = a[i].min_rank;
        }
        if (a[i].max > b[i].max || (a[i].max == b[i].max && a[i].max_rank < b[i].max_rank)) {
            b[i].max = a[i].max;
            b[i].max_rank = a[i].max_rank;
        }
    }
}

/* Whether list l has a name at i (an empty name ends a list). */
static int has_name(const char (*l)[HPM_MPI_REGION_NAME], int i)
{
    return i < HPM_MPI_MAX_REGIONS && l[i][0];
}

/* The union of two job lists: the region names', the routines'. */
static void lists_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    char out[HPM_MPI_MAX_REGIONS][HPM_MPI_REGION_NAME];
    const struct job_lists *a = in;
    struct job_lists *b = inout;
    int l;
    (void)type;
    for (l = 0; l < *len / (int)sizeof *a; l++, a++, b++) {
        int i = 0, j = 0, n = 0;
        memset(out, 0, sizeof out);
        while (n < HPM_MPI_MAX_REGIONS && (has_name(a->names, i) || has_name(b->names, j))) {
            int c = !has_name(a->names, i)   ? 1
                    : !has_name(b->names, j) ? -1
                                             : strcmp(a->names[i], b->names[j]);
            memcpy(out[n++], c <= 0 ? a->names[i] : b->names[j], HPM_MPI_REGION_NAME);
            i += c <= 0;
            j += c >= 0;
        }
        memcpy(b->names, out, sizeof out);
        b->called |= a->called;
    }
}

static int cmp_name(const void *x, const void *y)
{
    return strcmp(x, y);
}

/* The job's lists, the same on every rank; *nreg its regions. 0, or -1. */
static int job_lists(struct job_lists *all, unsigned *nreg)
{
    struct job_lists mine;
    MPI_Op op;
    unsigned i;
    int rc;
    memset(&mine, 0, sizeof mine);
    for (i = 0; i < me.nreg; i++)
        memcpy(mine.names[i], me.reg[i].name, HPM_MPI_REGION_NAME);
    qsort(mine.names, me.nreg, HPM_MPI_REGION_NAME, cmp_name);
    for (i = 0; i < HPM_MPI_N_ROUTINES; i++)
        mine.called |= (uint64_t)(me.prof[i][HPM_MPI_CALLS] != 0) << i;
    if (PMPI_Op_create(lists_op, 1, &op) != MPI_SUCCESS)
        return -1;
    rc = PMPI_Allreduce(&mine, all, (int)sizeof mine, MPI_BYTE, op, me.comm);
    PMPI_Op_free(&op);
    for (*nreg = 0; *nreg < HPM_MPI_MAX_REGIONS && all->names[*nreg][0]; (*nreg)++)
        ;
    return rc == MPI_SUCCESS ? 0 : -1;
}

/* Whether any rank called routine r. */
static int called(const struct job_lists *l, unsigned r)
{
    return (l->called >> r) & 1;
}

/* ------------------------------------------------------------ the elements */

static void put(struct tuple *t, uint64_t v)
{
    t->sum = t->min = t->max = v;
    t->min_rank = t->max_rank = (uint32_t)me.rank;
}

static uint64_t row_value(const uint64_t *codes, unsigned r)
{
    uint64_t v = 0;
    unsigned k;
    for (k = me.row_start[r]; k < me.row_start[r + 1]; k++)
        v += codes[me.row_code[k]];
    return v;
}

/* codes then rows of one set of counts; the next free element */
static struct tuple *put_counts(struct tuple *t, const uint64_t *codes)
{
    unsigned i;
    for (i = 0; i < me.ncodes; i++)
        put(t++, codes[i]);
    for (i = 0; i < me.nrows; i++)
        put(t++, row_value(codes, i));
    return t;
}

/* This rank's elements: windows, the routines called, regions (in the
 * job's lists). */
static void fill(struct tuple *t, const uint64_t *end, const struct job_lists *l, unsigned nreg)
{
    uint64_t *since = calloc(me.ncodes + 1, sizeof *since);
    unsigned i, m, g;
    for (i = 0; since && i < me.ncodes; i++)
        since[i] = end[i] - me.at_init[i];
    t = put_counts(t, end);
    t = put_counts(t, since ? since : end);
    for (i = 0; i < HPM_MPI_N_ROUTINES; i++)
        for (m = 0; m < HPM_MPI_METRICS && called(l, i); m++)
            put(t++, me.prof[i][m]);
    for (g = 0; g < nreg; g++) {
        const struct hpm_mpi_region *r = NULL;
        for (i = 0; i < me.nreg && !r; i++)
            if (strcmp(me.reg[i].name, l->names[g]) == 0)
                r = &me.reg[i];
        put(t++, r ? r->entries : 0);
        /* per row: its core kind's count (node kinds have none in a region) */
        for (i = 0; i < me.nrows; i++)
            put(t++, r && me.row_kind[i] >= 0 ? r->kinds[me.row_kind[i]] : 0);
    }
    free(since);
}

/* ------------------------------------------------------------ rank 0's JSON */

static void json_tuple(FILE *f, const struct tuple *t)
{
    fprintf(f, "[%llu,%llu,%u,%llu,%u]", (unsigned long long)t->sum,
            (unsigned long long)t->min, (unsigned)t->min_rank, (unsigned long long)t->max,
            (unsigned)t->max_rank);
}

/* n tuples as a JSON array; the next one */
static const struct tuple *json_tuples(FILE *f, const struct tuple *t, unsigned n)
{
    unsigned i;
    fputc('[', f);
    for (i = 0; i < n; i++) {
        if (i)
            fputc(',', f);
        json_tuple(f, t++);
    }
    fputc(']', f);
    return t;
}

/* {"codes":[...],"rows":[...]}; the next tuple */
static const struct tuple *json_counts(FILE *f, const struct tuple *t)
{
    fputs("{\"codes\":", f);
    t = json_tuples(f, t, me.ncodes);
    fputs(",\"rows\":", f);
    t = json_tuples(f, t, me.nrows);
    fputc('}', f);
    return t;
}

static void json_name(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++)
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
            fprintf(f, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, f);
    fputc('"', f);
}

static void json_head(FILE *f)
{
    unsigned i, k;
    fprintf(f, "{\"hpm_mpi\":1,\"size\":%d,\"ranks_per_node\":%u,\"codes\":[", me.size,
            me.rpn);
    for (i = 0; i < me.ncodes; i++)
        fprintf(f, "%s%u", i ? "," : "", me.codes[i]);
    fputs("],\"rows\":[", f);
    for (i = 0; i < me.nrows; i++) {
        fputs(i ? ",[" : "[", f);
        for (k = me.row_start[i]; k < me.row_start[i + 1]; k++)
            fprintf(f, "%s%u", k > me.row_start[i] ? "," : "", me.codes[me.row_code[k]]);
        fputc(']', f);
    }
    fputs("]", f);
}

/* "routines": those called, their tuples in order; the next tuple */
static const struct tuple *json_routines(FILE *f, const struct tuple *t,
                                         const struct job_lists *l)
{
    static const char *const names[] = {
#define HPM_MPI_NAME_(e, s) s,
        HPM_MPI_ROUTINES(HPM_MPI_NAME_)
#undef HPM_MPI_NAME_
    };
    static const char *const metric[] = {"calls", "bytes", "cycles", "ns"};
    unsigned i, m, first = 1;
    fputs(",\"routines\":[", f);
    for (i = 0; i < HPM_MPI_N_ROUTINES; i++) {
        if (!called(l, i))
            continue;
        fprintf(f, "%s{\"name\":\"%s\"", first ? "" : ",", names[i]);
        for (m = 0; m < HPM_MPI_METRICS; m++) {
            fprintf(f, ",\"%s\":", metric[m]);
            json_tuple(f, t++);
        }
        fputc('}', f);
        first = 0;
    }
    fputc(']', f);
    return t;
}

/* What the combine cost rank 0: its host time from the moment every rank
 * is in the combine to the JSON's hand-over (measured), and the bytes it
 * allocated for it. */
struct cost {
    uint64_t start_ns, bytes;
};

static uint64_t now_ns(void)
{
    long ns = HPM_VPMU_CLOCK(CLOCK_MONOTONIC);
    return ns > 0 ? (uint64_t)ns : 0;
}

/* "ranks": each rank's host, codes and profile (its calls, bytes, cycles
 * and ns of the routines the job called, in "routines"' order). */
static void json_ranks(FILE *f, const uint64_t *ranks, const char *hosts,
                       const struct job_lists *l)
{
    unsigned i, j, k, first;
    fputs(",\"ranks\":[", f);
    for (i = 0; i < (unsigned)me.size; i++) {
        const uint64_t *row = ranks + (size_t)i * RANK_ROW, *prof = row + me.ncodes;
        fprintf(f, "%s{\"rank\":%u,\"host\":", i ? "," : "", i);
        json_name(f, hosts + (size_t)i * 64);
        fputs(",\"codes\":[", f);
        for (j = 0; j < me.ncodes; j++)
            fprintf(f, "%s%llu", j ? "," : "", (unsigned long long)row[j]);
        fputs("],\"profile\":[", f);
        for (j = 0, first = 1; j < HPM_MPI_N_ROUTINES; j++) {
            if (!called(l, j))
                continue;
            fputs(first ? "[" : ",[", f);
            for (k = 0; k < HPM_MPI_METRICS; k++)
                fprintf(f, "%s%llu", k ? "," : "",
                        (unsigned long long)prof[j * HPM_MPI_METRICS + k]);
            fputc(']', f);
            first = 0;
        }
        fputs("]}", f);
    }
    fputc(']', f);
}

/* The reduced tuples (and gathered tables, NULL when not gathered) as rank
 * 0's JSON; 0, or -1 (out of memory). */
static int write_json(const struct tuple *t, const struct job_lists *l, unsigned nreg,
                      const uint64_t *ranks, const char *hosts, const uint64_t *matrix,
                      const struct cost *cost)
{
    char *buf = NULL;
    size_t len = 0, n = (size_t)me.size;
    unsigned g, i, j;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return -1;
    json_head(f);
    fputs(",\"windows\":{\"process\":", f);
    t = json_counts(f, t);
    fputs(",\"mpi\":", f);
    t = json_counts(f, t);
    fputc('}', f);
    t = json_routines(f, t, l);
    fputs(",\"regions\":[", f);
    for (g = 0; g < nreg; g++) {
        fputs(g ? ",{\"name\":" : "{\"name\":", f);
        json_name(f, l->names[g]);
        fputs(",\"entries\":", f);
        json_tuple(f, t++);
        fputs(",\"rows\":", f);
        t = json_tuples(f, t, me.nrows);
        fputc('}', f);
    }
    fputc(']', f);
    if (ranks)
        json_ranks(f, ranks, hosts, l);
    if (matrix) {
        /* row i: rank i's messages to each rank, then its bytes */
        for (g = 0; g < 2; g++) {
            fprintf(f, ",\"%s\":[", g ? "matrix_bytes" : "matrix_messages");
            for (i = 0; i < n; i++) {
                fputs(i ? ",[" : "[", f);
                for (j = 0; j < n; j++)
                    fprintf(f, "%s%llu", j ? "," : "",
                            (unsigned long long)matrix[i * 2 * n + g * n + j]);
                fputc(']', f);
            }
            fputc(']', f);
        }
    }
    fprintf(f, ",\"regions_dropped\":%u", me.reg_dropped);
    if (fflush(f) != 0)
        return -1;
    /* the JSON itself is part of the cost: its buffer, and its time so far */
    fprintf(f, ",\"combine\":{\"ns\":%llu,\"bytes\":%llu}}\n",
            (unsigned long long)(now_ns() - cost->start_ns),
            (unsigned long long)(cost->bytes + len));
    if (fclose(f) != 0 || !buf)
        return -1;
    (void)HPM_VPMU_MPI_RESULT(buf, len);
    free(buf);
    return 0;
}

/* ------------------------------------------------------------ the gathers */

/* Each rank's codes and host at rank 0 (HPM_MPI_PER_RANK): 0, or -1. */
/* Each rank's row and host at rank 0 (HPM_MPI_PER_RANK): 0, or -1. */
static int gather_ranks(const uint64_t *end, uint64_t **ranks, char **hosts)
{
    char host[64] = "";
    size_t n = me.rank == 0 ? (size_t)me.size : 1;
    uint64_t *row = malloc(RANK_ROW * sizeof *row);
    int rc;
    *ranks = calloc(n * RANK_ROW, sizeof **ranks);
    *hosts = calloc(n, 64);
    if (gethostname(host, sizeof host - 1) != 0)
        snprintf(host, sizeof host, "?");
    if (!row || !*ranks || !*hosts) {
        free(row);
        return -1;
    }
    memcpy(row, end, me.ncodes * sizeof *row);
    memcpy(row + me.ncodes, me.prof, sizeof me.prof);
    rc = PMPI_Gather(row, (int)RANK_ROW, MPI_UINT64_T, *ranks, (int)RANK_ROW, MPI_UINT64_T, 0,
                     me.comm) == MPI_SUCCESS &&
                 PMPI_Gather(host, 64, MPI_CHAR, *hosts, 64, MPI_CHAR, 0, me.comm) == MPI_SUCCESS
             ? 0
             : -1;
    free(row);
    return rc;
}

/* Each rank's messages and bytes per destination at rank 0: 0, or -1. */
static int gather_matrix(uint64_t **matrix)
{
    size_t n = (size_t)me.size;
    uint64_t *row = malloc(2 * n * sizeof *row);
    int rc;
    *matrix = calloc(me.rank == 0 ? 2 * n * n : 1, sizeof **matrix);
    if (!row || !*matrix) {
        free(row);
        return -1;
    }
    memcpy(row, me.msgs, n * sizeof *row);
    memcpy(row + n, me.bytes, n * sizeof *row);
    rc = PMPI_Gather(row, (int)(2 * n), MPI_UINT64_T, *matrix, (int)(2 * n), MPI_UINT64_T, 0,
                     me.comm);
    free(row);
    return rc == MPI_SUCCESS ? 0 : -1;
}

/* ------------------------------------------------------------ the combine */

void hpm_mpi_combine(void)
{
    struct job_lists lists;
    char done[64];
    unsigned nreg = 0, r;
    size_t n;
    struct cost cost = {0, 0};
    uint64_t *end = calloc(me.ncodes + 1, sizeof *end), *ranks = NULL, *matrix = NULL;
    char *hosts = NULL;
    struct tuple *mine = NULL, *all = NULL;
    MPI_Datatype tt;
    MPI_Op op;
    int ok, per_rank = getenv("HPM_MPI_PER_RANK") != NULL;
    /* the combine's own cost starts when every rank is in it: the wait for
     * the last rank to reach MPI_Finalize is the job's imbalance */
    if (PMPI_Barrier(me.comm) != MPI_SUCCESS)
        goto out;
    cost.start_ns = now_ns();
    if (!end || HPM_VPMU_READ_EVENTS(end, me.ncodes, HPM_VPMU_SCOPE_NODE) != (long)me.ncodes ||
        job_lists(&lists, &nreg) != 0)
        goto out;
    n = 2 * (me.ncodes + me.nrows) + nreg * (1 + me.nrows);
    for (r = 0; r < HPM_MPI_N_ROUTINES; r++)
        n += called(&lists, r) ? HPM_MPI_METRICS : 0;
    mine = calloc(n, sizeof *mine);
    all = calloc(me.rank == 0 ? n : 1, sizeof *all);
    if (!mine || !all || PMPI_Type_contiguous(4, MPI_UINT64_T, &tt) != MPI_SUCCESS)
        goto out;
    fill(mine, end, &lists, nreg);
    PMPI_Type_commit(&tt);
    ok = PMPI_Op_create(tuple_op, 1, &op) == MPI_SUCCESS;
    ok = ok && PMPI_Reduce(mine, all, (int)n, tt, op, 0, me.comm) == MPI_SUCCESS;
    if (ok)
        PMPI_Op_free(&op);
    PMPI_Type_free(&tt);
    if (ok && per_rank)
        ok = gather_ranks(end, &ranks, &hosts) == 0;
    if (ok && me.size <= HPM_MPI_MATRIX_MAX)
        ok = gather_matrix(&matrix) == 0;
    if (!ok)
        goto out;
    if (me.rank == 0) {
        cost.bytes = (me.ncodes + 1) * sizeof *end + 2 * n * sizeof *mine +
                     (per_rank ? (size_t)me.size * (RANK_ROW + 8) * sizeof *ranks : 0) +
                     (matrix ? 2 * (size_t)me.size * (size_t)me.size * sizeof *matrix : 0);
        write_json(all, &lists, nreg, per_rank ? ranks : NULL, hosts, matrix, &cost);
    }
    else {
        int len = snprintf(done, sizeof done, "{\"combined\":%d}\n", me.rank);
        (void)HPM_VPMU_MPI_RESULT(done, (size_t)len);
    }
out:
    free(end);
    free(mine);
    free(all);
    free(ranks);
    free(hosts);
    free(matrix);
}
