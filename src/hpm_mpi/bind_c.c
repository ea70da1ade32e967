/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bind_c.c - libhpm-mpi's C bindings: each routine calls its PMPI_ entry
 * between hpm_mpi_enter and a record (hpm_mpi.h). What a call counts:
 * a send its payload to its destination, a receive the bytes its buffer
 * holds, a collective the bytes this rank contributes (a broadcast's and a
 * reduction's count, a gather's send count, a scatter's receive count, an
 * all-to-all's send counts over the communicator).
 */
#include "hpm_mpi.h"

#include <stdarg.h>

/* point-to-point sends: the call, then the message */
#define SEND_WRAP(Name, ID)                                                                  \
    int MPI_##Name(const void *buf, int count, MPI_Datatype type, int dest, int tag,       \
                   MPI_Comm comm)                                                          \
    {                                                                                      \
        struct hpm_mpi_call c;                                                             \
        int rc;                                                                            \
        hpm_mpi_enter(&c);                                                                 \
        rc = PMPI_##Name(buf, count, type, dest, tag, comm);                               \
        hpm_mpi_sent(&c, HPM_MPI_##ID, count, type, dest, comm);                           \
        return rc;                                                                         \
    }
#define ISEND_WRAP(Name, ID)                                                                 \
    int MPI_##Name(const void *buf, int count, MPI_Datatype type, int dest, int tag,       \
                   MPI_Comm comm, MPI_Request *req)                                        \
    {                                                                                      \
        struct hpm_mpi_call c;                                                             \
        int rc;                                                                            \
        hpm_mpi_enter(&c);                                                                 \
        rc = PMPI_##Name(buf, count, type, dest, tag, comm, req);                          \
        hpm_mpi_sent(&c, HPM_MPI_##ID, count, type, dest, comm);                           \
        return rc;                                                                         \
    }

SEND_WRAP(Send, SEND)
SEND_WRAP(Ssend, SSEND)
SEND_WRAP(Bsend, BSEND)
SEND_WRAP(Rsend, RSEND)
ISEND_WRAP(Isend, ISEND)
ISEND_WRAP(Issend, ISSEND)
ISEND_WRAP(Ibsend, IBSEND)
ISEND_WRAP(Irsend, IRSEND)

int MPI_Init(int *argc, char ***argv)
{
    struct hpm_mpi_call c;
    int rc;
    hpm_mpi_enter(&c);
    rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        hpm_mpi_started();
    hpm_mpi_done(&c, HPM_MPI_INIT, 0);
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    struct hpm_mpi_call c;
    int rc;
    hpm_mpi_enter(&c);
    rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        hpm_mpi_started();
    hpm_mpi_done(&c, HPM_MPI_INIT_THREAD, 0);
    return rc;
}

int MPI_Finalize(void)
{
    struct hpm_mpi_call c;
    hpm_mpi_enter(&c);
    hpm_mpi_done(&c, HPM_MPI_FINALIZE, 0);
    hpm_mpi_finishing();
    return PMPI_Finalize();
}

int MPI_Pcontrol(const int level, ...)
{
    struct hpm_mpi_call c;
    const char *name = NULL;
    int rc;
    if (level == 1 || level == -1) {
        /* IPM's convention: MPI_Pcontrol(1, "name") ... MPI_Pcontrol(-1, "name") */
        va_list ap;
        va_start(ap, level);
        name = va_arg(ap, const char *);
        va_end(ap);
    }
    hpm_mpi_enter(&c);
    rc = PMPI_Pcontrol(level);
    hpm_mpi_done(&c, HPM_MPI_PCONTROL, 0);
    hpm_mpi_pcontrol(level, name);
    return rc;
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                 void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
                 MPI_Status *status)
{
    struct hpm_mpi_call c;
    int rc;
    hpm_mpi_enter(&c);
    rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm,
                       status);
    hpm_mpi_sent(&c, HPM_MPI_SENDRECV, scount, stype, dest, comm);
    return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag, int source,
                         int rtag, MPI_Comm comm, MPI_Status *status)
{
    struct hpm_mpi_call c;
    int rc;
    hpm_mpi_enter(&c);
    rc = PMPI_Sendrecv_replace(buf, count, type, dest, stag, source, rtag, comm, status);
    hpm_mpi_sent(&c, HPM_MPI_SENDRECV_REPLACE, count, type, dest, comm);
    return rc;
}

/* ------------------------------------------------------------ receives, completion */

/* a call: the routine, its record (hpm_mpi_done or hpm_mpi_collective)
 * with the bytes it moved, its PMPI_ call */
#define WRAP_(record, ID, bytes, call)                                                        \
    {                                                                                         \
        struct hpm_mpi_call c;                                                                \
        int rc;                                                                               \
        hpm_mpi_enter(&c);                                                                    \
        rc = call;                                                                            \
        record(&c, HPM_MPI_##ID, bytes);                                                      \
        return rc;                                                                            \
    }
/* a call that moves no data of its own */
#define PLAIN_WRAP(ID, call) WRAP_(hpm_mpi_done, ID, 0, call)

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
    WRAP_(hpm_mpi_done, RECV, hpm_mpi_payload(count, type),
          PMPI_Recv(buf, count, type, source, tag, comm, status))
int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *req)
    WRAP_(hpm_mpi_done, IRECV, hpm_mpi_payload(count, type),
          PMPI_Irecv(buf, count, type, source, tag, comm, req))

int MPI_Wait(MPI_Request *req, MPI_Status *status) PLAIN_WRAP(WAIT, PMPI_Wait(req, status))
int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
    PLAIN_WRAP(WAITALL, PMPI_Waitall(n, reqs, statuses))
int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
    PLAIN_WRAP(WAITANY, PMPI_Waitany(n, reqs, index, status))
int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
    PLAIN_WRAP(WAITSOME, PMPI_Waitsome(n, reqs, outcount, indices, statuses))
int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
    PLAIN_WRAP(TEST, PMPI_Test(req, flag, status))
int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
    PLAIN_WRAP(TESTALL, PMPI_Testall(n, reqs, flag, statuses))
int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
    PLAIN_WRAP(TESTANY, PMPI_Testany(n, reqs, index, flag, status))
int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
    PLAIN_WRAP(PROBE, PMPI_Probe(source, tag, comm, status))
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
    PLAIN_WRAP(IPROBE, PMPI_Iprobe(source, tag, comm, flag, status))

/* ------------------------------------------------------------ collectives */

/* a collective: the routine, this rank's bytes, its PMPI_ call */
#define COLL_WRAP(ID, bytes, call) WRAP_(hpm_mpi_collective, ID, bytes, call)

int MPI_Barrier(MPI_Comm comm) COLL_WRAP(BARRIER, 0, PMPI_Barrier(comm))
int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
    COLL_WRAP(BCAST, hpm_mpi_payload(count, type), PMPI_Bcast(buf, count, type, root, comm))
int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm)
    COLL_WRAP(REDUCE, hpm_mpi_payload(count, type),
              PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm))
int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
    COLL_WRAP(ALLREDUCE, hpm_mpi_payload(count, type),
              PMPI_Allreduce(sbuf, rbuf, count, type, op, comm))
int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
               MPI_Datatype rtype, int root, MPI_Comm comm)
    COLL_WRAP(GATHER, hpm_mpi_payload(scount, stype),
              PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm))
int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                const int rcounts[], const int displs[], MPI_Datatype rtype, int root,
                MPI_Comm comm)
    COLL_WRAP(GATHERV, hpm_mpi_payload(scount, stype),
              PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm))
int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                MPI_Datatype rtype, int root, MPI_Comm comm)
    COLL_WRAP(SCATTER, hpm_mpi_payload(rcount, rtype),
              PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm))
int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype,
                 void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
    COLL_WRAP(SCATTERV, hpm_mpi_payload(rcount, rtype),
              PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm))
int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm)
    COLL_WRAP(ALLGATHER, hpm_mpi_payload(scount, stype),
              PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm))
int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                   const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm)
    COLL_WRAP(ALLGATHERV, hpm_mpi_payload(scount, stype),
              PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm))
int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm)
{
    struct hpm_mpi_call c;
    int rc;
    hpm_mpi_enter(&c);
    rc = PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    hpm_mpi_collective(&c, HPM_MPI_ALLTOALL,
                       hpm_mpi_payload(scount, stype) * (uint64_t)hpm_mpi_comm_size(comm));
    return rc;
}
int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                  void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
                  MPI_Comm comm)
    COLL_WRAP(ALLTOALLV, hpm_mpi_payload_v(scounts, stype, comm),
              PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype,
                             comm))
int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype type,
                       MPI_Op op, MPI_Comm comm)
    COLL_WRAP(REDUCE_SCATTER, hpm_mpi_payload_v(rcounts, type, comm),
              PMPI_Reduce_scatter(sbuf, rbuf, rcounts, type, op, comm))
int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
             MPI_Comm comm)
    COLL_WRAP(SCAN, hpm_mpi_payload(count, type), PMPI_Scan(sbuf, rbuf, count, type, op, comm))
int MPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm)
    COLL_WRAP(EXSCAN, hpm_mpi_payload(count, type),
              PMPI_Exscan(sbuf, rbuf, count, type, op, comm))
