/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/mpi: a PAPI program reads its node's network events (our libpapi,
 * the sim component) in an MPI job on a torus machine under `mpirun ... hpm
 * run`: the ring of mpi_ring.c (K = 5 messages of 1000 bytes to the next
 * rank), counted from before the first message to after MPI_Finalize (the
 * network counts arrive there). Prints "rank R SENT_XP HOPS". */
#include <mpi.h>
#include <papi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, set = PAPI_NULL, rc, i;
    long long v[2];
    static char buf[1000];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT ||
        PAPI_create_eventset(&set) != PAPI_OK)
        return 1;
    if ((rc = PAPI_add_named_event(set, "TORUS_XP_PACKETS_SENT")) != PAPI_OK ||
        (rc = PAPI_add_named_event(set, "TORUS_HOPS")) != PAPI_OK ||
        (rc = PAPI_start(set)) != PAPI_OK) {
        fprintf(stderr, "rank %d: %s\n", rank, PAPI_strerror(rc));
        return 1;
    }
    for (i = 0; i < 5; i++)
        MPI_Sendrecv_replace(buf, sizeof buf, MPI_CHAR, (rank + 1) % size, 0,
                             (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    if ((rc = PAPI_stop(set, v)) != PAPI_OK) {
        fprintf(stderr, "rank %d: %s\n", rank, PAPI_strerror(rc));
        return 1;
    }
    printf("rank %d %lld %lld\n", rank, v[0], v[1]);
    return 0;
}
