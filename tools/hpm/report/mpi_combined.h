/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpi_combined.h - an MPI job's results as libhpm-mpi combined them at rank
 * 0 over MPI at MPI_Finalize (src/hpm_mpi/combine.c): the JSON file rank
 * 0's virtual PMU wrote for its hpm count (--hpm-mpi-out), read with
 * libjansson, trusting nothing but its shape.
 *
 * Every statistic is a tuple over the ranks: the sum (saturating), the
 * minimum and the lowest rank holding it, the maximum and the lowest rank
 * holding it. Two windows of counts: "process" (each rank's process from
 * its start to MPI_Finalize) and "mpi" (MPI_Init to MPI_Finalize), each
 * per event code and per report row (a row is a sum of codes, the rows hpm
 * count passed in HPM_MPI_ROWS, in its order). The MPI profile: per
 * routine calls, bytes, modeled cycles and host nanoseconds. MPI_Pcontrol
 * regions: entries and, per row, the count of its core kind (node kinds
 * count nothing in a region). With per-rank tables each rank's codes,
 * profile and host; up to 1024 ranks the communication matrix (messages and bytes,
 * row = sender).
 */
#ifndef HPM_TOOL_MPI_COMBINED_H
#define HPM_TOOL_MPI_COMBINED_H

#include <stddef.h>
#include <stdint.h>

struct mpi_tuple {
    uint64_t sum, min, min_rank, max, max_rank;
};

/* a window's (or a region's) counts: ncodes code tuples, nrows row tuples */
struct mpi_counts {
    struct mpi_tuple *codes, *rows;
};

enum mpi_metric { MPI_M_CALLS, MPI_M_BYTES, MPI_M_CYCLES, MPI_M_NS, MPI_M_COUNT };

struct mpi_routine {
    char name[32]; /* as the MPI standard writes it: "MPI_Sendrecv" */
    struct mpi_tuple m[MPI_M_COUNT];
};

struct mpi_region {
    char name[64];
    struct mpi_tuple entries;
    struct mpi_tuple *rows; /* the virtual PMU's region counts of each row's core kind */
};

struct mpi_combined {
    unsigned size, ranks_per_node;
    unsigned ncodes, *codes;       /* the programmed event specs */
    unsigned nrows, *row_start;    /* nrows + 1 offsets into row_spec */
    unsigned *row_spec;            /* each row's specs */
    struct mpi_counts process, mpi; /* the two windows */
    struct mpi_routine *routines;  /* those called at least once */
    unsigned nroutines;
    struct mpi_region *regions;
    unsigned nregions, regions_dropped;
    uint64_t *rank_codes;          /* size x ncodes; NULL: no per-rank tables */
    uint64_t *rank_prof;           /* size x nroutines x MPI_M_COUNT (with rank_codes) */
    char (*hosts)[64];
    uint64_t *matrix[2];           /* messages, bytes: size x size; NULL: none */
    uint64_t combine_ns;           /* the combine at rank 0: host time (measured) */
    uint64_t combine_bytes;        /* ... and the memory it took there */
};

/* Parses the file's bytes: 0, or -1 with err (what is wrong). c must be
 * freed with mpi_combined_free either way. */
int mpi_combined_parse(struct mpi_combined *c, const char *buf, size_t len, char *err,
                       size_t errlen);
void mpi_combined_free(struct mpi_combined *c);

/* Index of spec in c->codes, or -1. */
int mpi_combined_code_index(const struct mpi_combined *c, unsigned spec);

#endif
