/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bind_f.c - libhpm-mpi's Fortran bindings. Open MPI's Fortran routines
 * call the PMPI_ C entries inside libmpi, so the C bindings never see a
 * Fortran program's calls: each routine is defined here under the names a
 * Fortran compiler calls for `include 'mpif.h'` and `use mpi` (mpi_send,
 * mpi_send_, mpi_send__, MPI_SEND: every mangling) and for `use mpi_f08`
 * (mpi_send_f08_), records what its C twin records and calls the library's
 * own Fortran entry of the same binding (pmpi_send_, pmpi_send_f08_).
 * Those are weak references, so that a C program does not load the Fortran
 * libraries: a Fortran program has them loaded already.
 *
 * Every argument is passed by reference; handles are integers (mpi_f08's
 * TYPE(MPI_Comm) and the like hold one integer, passed the same way), made
 * C handles with PMPI_*_f2c for the records. Buffers, statuses and the
 * optional ierror are passed on untouched. MPI_PCONTROL has only LEVEL in
 * Fortran (no name): MPI_PCONTROL(1) opens the region "pcontrol",
 * MPI_PCONTROL(-1) closes it.
 */
#include "hpm_mpi.h"

#include <stdio.h>
#include <stdlib.h>

typedef MPI_Fint F;

/* name: the routine called (mpi_send_); its entry is pname */
static void no_entry(const char *name)
{
    fprintf(stderr, "libhpm-mpi: %s was called but the MPI library's Fortran entry "
                    "p%s is not loaded\n", name, name);
    abort();
}

#define F_ALIAS_(name, fn) extern __typeof__(fn) name __attribute__((alias(#fn)));

/* The body of a wrapper: the binding's PMPI entry between hpm_mpi_enter
 * and `record` */
#define F_BODY_(entry, args, record)                                                       \
    {                                                                                      \
        struct hpm_mpi_call c;                                                             \
        if (!entry)                                                                        \
            no_entry(&(#entry)[1]);                                                        \
        hpm_mpi_enter(&c);                                                                 \
        entry args;                                                                        \
        record;                                                                            \
    }

/* One routine in both bindings: mpif.h's and use mpi's names call
 * pmpi_lower_, mpi_f08's calls pmpi_lower_f08_. */
#define F_WRAP(lower, UPPER, params, args, record)                                         \
    extern void pmpi_##lower##_ params __attribute__((weak));                              \
    extern void pmpi_##lower##_f08_ params __attribute__((weak));                          \
    __attribute__((visibility("hidden"))) void hpm_f_##lower params                        \
        F_BODY_(pmpi_##lower##_, args, record)                                             \
    F_ALIAS_(mpi_##lower, hpm_f_##lower)                                                   \
    F_ALIAS_(mpi_##lower##_, hpm_f_##lower)                                                \
    F_ALIAS_(mpi_##lower##__, hpm_f_##lower)                                               \
    F_ALIAS_(MPI_##UPPER, hpm_f_##lower)                                                   \
    void mpi_##lower##_f08_ params;                                                        \
    void mpi_##lower##_f08_ params F_BODY_(pmpi_##lower##_f08_, args, record)

#define TYPE_(t) PMPI_Type_f2c(*(t))
#define COMM_(c) PMPI_Comm_f2c(*(c))
#define SENT_(ID) hpm_mpi_sent(&c, HPM_MPI_##ID, *count, TYPE_(type), *dest, COMM_(comm))
#define COLL_(ID, bytes) hpm_mpi_collective(&c, HPM_MPI_##ID, bytes)
#define DONE_(ID, bytes) hpm_mpi_done(&c, HPM_MPI_##ID, bytes)

/* ------------------------------------------------------------ life cycle */

F_WRAP(init, INIT, (F *ierr), (ierr), (hpm_mpi_started(), DONE_(INIT, 0)))
F_WRAP(init_thread, INIT_THREAD, (F *required, F *provided, F *ierr),
       (required, provided, ierr), (hpm_mpi_started(), DONE_(INIT_THREAD, 0)))
F_WRAP(pcontrol, PCONTROL, (F *level), (level),
       (DONE_(PCONTROL, 0), hpm_mpi_pcontrol(*level, NULL)))

/* MPI_FINALIZE: the network counts before the library finalizes */
extern void pmpi_finalize_(F *ierr) __attribute__((weak));
extern void pmpi_finalize_f08_(F *ierr) __attribute__((weak));

static void finalize(void (*pmpi)(F *), const char *name, F *ierr)
{
    struct hpm_mpi_call c;
    if (!pmpi)
        no_entry(name);
    hpm_mpi_enter(&c);
    hpm_mpi_done(&c, HPM_MPI_FINALIZE, 0);
    hpm_mpi_finishing();
    pmpi(ierr);
}

__attribute__((visibility("hidden"))) void hpm_f_finalize(F *ierr)
{
    finalize(pmpi_finalize_, "mpi_finalize_", ierr);
}
F_ALIAS_(mpi_finalize, hpm_f_finalize)
F_ALIAS_(mpi_finalize_, hpm_f_finalize)
F_ALIAS_(mpi_finalize__, hpm_f_finalize)
F_ALIAS_(MPI_FINALIZE, hpm_f_finalize)
void mpi_finalize_f08_(F *ierr);
void mpi_finalize_f08_(F *ierr)
{
    finalize(pmpi_finalize_f08_, "mpi_finalize_f08_", ierr);
}

/* ------------------------------------------------------------ point to point */

#define SEND_PARAMS (void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *ierr)
#define SEND_ARGS (buf, count, type, dest, tag, comm, ierr)
F_WRAP(send, SEND, SEND_PARAMS, SEND_ARGS, SENT_(SEND))
F_WRAP(ssend, SSEND, SEND_PARAMS, SEND_ARGS, SENT_(SSEND))
F_WRAP(bsend, BSEND, SEND_PARAMS, SEND_ARGS, SENT_(BSEND))
F_WRAP(rsend, RSEND, SEND_PARAMS, SEND_ARGS, SENT_(RSEND))
#define ISEND_PARAMS (void *buf, F *count, F *type, F *dest, F *tag, F *comm, F *req, F *ierr)
#define ISEND_ARGS (buf, count, type, dest, tag, comm, req, ierr)
F_WRAP(isend, ISEND, ISEND_PARAMS, ISEND_ARGS, SENT_(ISEND))
F_WRAP(issend, ISSEND, ISEND_PARAMS, ISEND_ARGS, SENT_(ISSEND))
F_WRAP(ibsend, IBSEND, ISEND_PARAMS, ISEND_ARGS, SENT_(IBSEND))
F_WRAP(irsend, IRSEND, ISEND_PARAMS, ISEND_ARGS, SENT_(IRSEND))
F_WRAP(sendrecv, SENDRECV,
       (void *sbuf, F *count, F *type, F *dest, F *stag, void *rbuf, F *rcount, F *rtype,
        F *source, F *rtag, F *comm, F *status, F *ierr),
       (sbuf, count, type, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status, ierr),
       SENT_(SENDRECV))
F_WRAP(sendrecv_replace, SENDRECV_REPLACE,
       (void *buf, F *count, F *type, F *dest, F *stag, F *source, F *rtag, F *comm, F *status,
        F *ierr),
       (buf, count, type, dest, stag, source, rtag, comm, status, ierr), SENT_(SENDRECV_REPLACE))
F_WRAP(recv, RECV, (void *buf, F *count, F *type, F *source, F *tag, F *comm, F *status, F *ierr),
       (buf, count, type, source, tag, comm, status, ierr),
       DONE_(RECV, hpm_mpi_payload(*count, TYPE_(type))))
F_WRAP(irecv, IRECV, (void *buf, F *count, F *type, F *source, F *tag, F *comm, F *req, F *ierr),
       (buf, count, type, source, tag, comm, req, ierr),
       DONE_(IRECV, hpm_mpi_payload(*count, TYPE_(type))))

/* ------------------------------------------------------------ completion */

F_WRAP(wait, WAIT, (F *req, F *status, F *ierr), (req, status, ierr), DONE_(WAIT, 0))
F_WRAP(waitall, WAITALL, (F *n, F *reqs, F *statuses, F *ierr), (n, reqs, statuses, ierr),
       DONE_(WAITALL, 0))
F_WRAP(waitany, WAITANY, (F *n, F *reqs, F *index, F *status, F *ierr),
       (n, reqs, index, status, ierr), DONE_(WAITANY, 0))
F_WRAP(waitsome, WAITSOME, (F *n, F *reqs, F *outcount, F *indices, F *statuses, F *ierr),
       (n, reqs, outcount, indices, statuses, ierr), DONE_(WAITSOME, 0))
F_WRAP(test, TEST, (F *req, F *flag, F *status, F *ierr), (req, flag, status, ierr),
       DONE_(TEST, 0))
F_WRAP(testall, TESTALL, (F *n, F *reqs, F *flag, F *statuses, F *ierr),
       (n, reqs, flag, statuses, ierr), DONE_(TESTALL, 0))
F_WRAP(testany, TESTANY, (F *n, F *reqs, F *index, F *flag, F *status, F *ierr),
       (n, reqs, index, flag, status, ierr), DONE_(TESTANY, 0))
F_WRAP(probe, PROBE, (F *source, F *tag, F *comm, F *status, F *ierr),
       (source, tag, comm, status, ierr), DONE_(PROBE, 0))
F_WRAP(iprobe, IPROBE, (F *source, F *tag, F *comm, F *flag, F *status, F *ierr),
       (source, tag, comm, flag, status, ierr), DONE_(IPROBE, 0))

/* ------------------------------------------------------------ collectives */

F_WRAP(barrier, BARRIER, (F *comm, F *ierr), (comm, ierr), COLL_(BARRIER, 0))
F_WRAP(bcast, BCAST, (void *buf, F *count, F *type, F *root, F *comm, F *ierr),
       (buf, count, type, root, comm, ierr), COLL_(BCAST, hpm_mpi_payload(*count, TYPE_(type))))
#define RED_PARAMS (void *sbuf, void *rbuf, F *count, F *type, F *op, F *comm, F *ierr)
#define RED_ARGS (sbuf, rbuf, count, type, op, comm, ierr)
#define RED_BYTES hpm_mpi_payload(*count, TYPE_(type))
F_WRAP(reduce, REDUCE, (void *sbuf, void *rbuf, F *count, F *type, F *op, F *root, F *comm,
                        F *ierr),
       (sbuf, rbuf, count, type, op, root, comm, ierr), COLL_(REDUCE, RED_BYTES))
F_WRAP(allreduce, ALLREDUCE, RED_PARAMS, RED_ARGS, COLL_(ALLREDUCE, RED_BYTES))
F_WRAP(scan, SCAN, RED_PARAMS, RED_ARGS, COLL_(SCAN, RED_BYTES))
F_WRAP(exscan, EXSCAN, RED_PARAMS, RED_ARGS, COLL_(EXSCAN, RED_BYTES))
F_WRAP(reduce_scatter, REDUCE_SCATTER,
       (void *sbuf, void *rbuf, F *rcounts, F *type, F *op, F *comm, F *ierr),
       (sbuf, rbuf, rcounts, type, op, comm, ierr),
       COLL_(REDUCE_SCATTER, hpm_mpi_payload_v(rcounts, TYPE_(type), COMM_(comm))))
#define ROOTED_PARAMS                                                                        \
    (void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm, F *ierr)
#define ROOTED_ARGS (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr)
F_WRAP(gather, GATHER, ROOTED_PARAMS, ROOTED_ARGS,
       COLL_(GATHER, hpm_mpi_payload(*scount, TYPE_(stype))))
F_WRAP(scatter, SCATTER, ROOTED_PARAMS, ROOTED_ARGS,
       COLL_(SCATTER, hpm_mpi_payload(*rcount, TYPE_(rtype))))
F_WRAP(gatherv, GATHERV,
       (void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs, F *rtype, F *root,
        F *comm, F *ierr),
       (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, ierr),
       COLL_(GATHERV, hpm_mpi_payload(*scount, TYPE_(stype))))
F_WRAP(scatterv, SCATTERV,
       (void *sbuf, F *scounts, F *displs, F *stype, void *rbuf, F *rcount, F *rtype, F *root,
        F *comm, F *ierr),
       (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, ierr),
       COLL_(SCATTERV, hpm_mpi_payload(*rcount, TYPE_(rtype))))
#define ALL_PARAMS (void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *comm, F *ierr)
#define ALL_ARGS (sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr)
F_WRAP(allgather, ALLGATHER, ALL_PARAMS, ALL_ARGS,
       COLL_(ALLGATHER, hpm_mpi_payload(*scount, TYPE_(stype))))
F_WRAP(alltoall, ALLTOALL, ALL_PARAMS, ALL_ARGS,
       COLL_(ALLTOALL, hpm_mpi_payload(*scount, TYPE_(stype)) *
                           (uint64_t)hpm_mpi_comm_size(COMM_(comm))))
F_WRAP(allgatherv, ALLGATHERV,
       (void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs, F *rtype, F *comm,
        F *ierr),
       (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, ierr),
       COLL_(ALLGATHERV, hpm_mpi_payload(*scount, TYPE_(stype))))
F_WRAP(alltoallv, ALLTOALLV,
       (void *sbuf, F *scounts, F *sdispls, F *stype, void *rbuf, F *rcounts, F *rdispls,
        F *rtype, F *comm, F *ierr),
       (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, ierr),
       COLL_(ALLTOALLV, hpm_mpi_payload_v(scounts, TYPE_(stype), COMM_(comm))))
