/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpm_mpi.h - what the parts of libhpm-mpi share (not installed: the
 * library's interface is MPI's own names). The bindings (bind_c.c, the C
 * names; bind_f.c, the Fortran names in every mangling and mpi_f08's) wrap
 * each routine between hpm_mpi_enter and one of the record calls, by the
 * routine's name as the MPI standard writes it, whatever the binding;
 * hpm_mpi.c keeps the rank's records and turns them into the node's network
 * counters at MPI_Finalize.
 */
#ifndef HPM_MPI_INTERNAL_H
#define HPM_MPI_INTERNAL_H

#include <mpi.h>
#include <stdint.h>

#include "catalog.h"

/* X(ENUM, "name as the MPI standard writes it"); the order is the report's */
#define HPM_MPI_ROUTINES(X)                                                               \
    X(INIT, "MPI_Init") X(INIT_THREAD, "MPI_Init_thread") X(FINALIZE, "MPI_Finalize")     \
    X(SEND, "MPI_Send") X(SSEND, "MPI_Ssend") X(BSEND, "MPI_Bsend") X(RSEND, "MPI_Rsend") \
    X(ISEND, "MPI_Isend") X(ISSEND, "MPI_Issend") X(IBSEND, "MPI_Ibsend")                 \
    X(IRSEND, "MPI_Irsend") X(SENDRECV, "MPI_Sendrecv")                                   \
    X(SENDRECV_REPLACE, "MPI_Sendrecv_replace") X(RECV, "MPI_Recv") X(IRECV, "MPI_Irecv") \
    X(WAIT, "MPI_Wait") X(WAITALL, "MPI_Waitall") X(WAITANY, "MPI_Waitany")               \
    X(WAITSOME, "MPI_Waitsome") X(TEST, "MPI_Test") X(TESTALL, "MPI_Testall")             \
    X(TESTANY, "MPI_Testany") X(PROBE, "MPI_Probe") X(IPROBE, "MPI_Iprobe")               \
    X(BARRIER, "MPI_Barrier") X(BCAST, "MPI_Bcast") X(REDUCE, "MPI_Reduce")               \
    X(ALLREDUCE, "MPI_Allreduce") X(GATHER, "MPI_Gather") X(GATHERV, "MPI_Gatherv")       \
    X(SCATTER, "MPI_Scatter") X(SCATTERV, "MPI_Scatterv") X(ALLGATHER, "MPI_Allgather")   \
    X(ALLGATHERV, "MPI_Allgatherv") X(ALLTOALL, "MPI_Alltoall")                           \
    X(ALLTOALLV, "MPI_Alltoallv") X(REDUCE_SCATTER, "MPI_Reduce_scatter")                 \
    X(SCAN, "MPI_Scan") X(EXSCAN, "MPI_Exscan") X(PCONTROL, "MPI_Pcontrol")

#define HPM_MPI_ENUM_(e, s) HPM_MPI_##e,
enum hpm_mpi_routine { HPM_MPI_ROUTINES(HPM_MPI_ENUM_) HPM_MPI_N_ROUTINES };
#undef HPM_MPI_ENUM_

/* Each routine's calls, bytes, modeled cycles (CYCLES of the calling
 * thread's core while in the call) and host nanoseconds (CLOCK_MONOTONIC,
 * measured: the simulation's own time included). */
enum hpm_mpi_metric { HPM_MPI_CALLS, HPM_MPI_BYTES, HPM_MPI_CYCLES, HPM_MPI_NS, HPM_MPI_METRICS };

#define HPM_MPI_MAX_REGIONS 16   /* MPI_Pcontrol regions of a job */
#define HPM_MPI_REGION_NAME 64   /* their names, with the NUL */
#define HPM_MPI_MAX_ROWS 512     /* report rows (HPM_MPI_ROWS) */
#define HPM_MPI_MATRIX_MAX 1024  /* the communication matrix up to this many ranks */

/* An MPI_Pcontrol region: the virtual PMU's region of that name, as the
 * tool holds it for the thread that last closed it (HPM_VPMU_REGION_READ:
 * its counts per core kind over its closed entries, the rank's report's). */
struct hpm_mpi_region {
    char name[HPM_MPI_REGION_NAME];
    uint64_t entries;
    uint64_t kinds[HPM_K_CORE_COUNT];
};

/* What a rank records, under the virtual PMU only (tool = 1). */
struct hpm_mpi_rank {
    int tool, size, rank;
    unsigned rpn;                 /* ranks per node */
    uint32_t *codes;              /* the programmed event specs */
    unsigned ncodes;
    uint64_t *at_init;            /* node counts at MPI_Init (per code) */
    unsigned nrows;               /* report rows: sums of codes (HPM_MPI_ROWS) */
    unsigned *row_start;          /* nrows + 1 offsets into row_code */
    unsigned *row_code;           /* indices into codes */
    int *row_kind;                /* the row's core kind (a region's count), or -1 */
    uint64_t prof[HPM_MPI_N_ROUTINES][HPM_MPI_METRICS];
    uint64_t *msgs, *bytes;       /* point-to-point sends per destination world rank */
    struct hpm_mpi_region reg[HPM_MPI_MAX_REGIONS];
    unsigned nreg, reg_dropped;   /* regions beyond the table are not kept */
    MPI_Group world;
    MPI_Comm comm;                /* the library's own copy of MPI_COMM_WORLD */
};
extern struct hpm_mpi_rank hpm_mpi_me;

/* combine.c: every rank's counts, profile, regions and sends combined at
 * rank 0 over MPI and written there (HPM_VPMU_MPI_RESULT); the other ranks
 * write that they took part. Called by hpm_mpi_finishing. */
void hpm_mpi_combine(void);

/* Where a call started: the calling thread's modeled cycles and the host's
 * monotonic clock (both 0 when the rank is not profiled). */
struct hpm_mpi_call {
    uint64_t cycles, ns;
};

void hpm_mpi_enter(struct hpm_mpi_call *c);
/* A call of routine r that moved `bytes` bytes and sent no message. */
void hpm_mpi_done(const struct hpm_mpi_call *c, enum hpm_mpi_routine r, uint64_t bytes);
/* A call that sent count x type to dest of comm (a point-to-point send). */
void hpm_mpi_sent(const struct hpm_mpi_call *c, enum hpm_mpi_routine r, int count,
                  MPI_Datatype type, int dest, MPI_Comm comm);
/* A collective operation to which this rank contributed `bytes` bytes. */
void hpm_mpi_collective(const struct hpm_mpi_call *c, enum hpm_mpi_routine r, uint64_t bytes);

/* count x type in bytes (0 for a negative count or an unknown type) */
uint64_t hpm_mpi_payload(int count, MPI_Datatype type);
/* The size of comm (0 when it has none). */
int hpm_mpi_comm_size(MPI_Comm comm);
/* The sum of counts[0..n-1] x type, n the size of comm. */
uint64_t hpm_mpi_payload_v(const int *counts, MPI_Datatype type, MPI_Comm comm);

/* After MPI_Init, MPI_Init_thread or their Fortran twins succeeded. */
void hpm_mpi_started(void);
/* Before MPI_Finalize (any binding) finalizes: the network counts. */
void hpm_mpi_finishing(void);
/* MPI_Pcontrol(level, name): 1 opens region name, -1 closes it (name NULL:
 * "pcontrol"); other levels only count as calls. The region is also the
 * virtual PMU's (HPM_VPMU_REGION_BEGIN/END). */
void hpm_mpi_pcontrol(int level, const char *name);

#endif
