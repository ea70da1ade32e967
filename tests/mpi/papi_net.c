/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/mpi: a PAPI program reads its node's network events (our libpapi,
 * the sim component) in an MPI job on a torus machine under `mpirun ... hpm
 * run`: the ring of mpi_ring.c (K = 5 messages of 1000 bytes to the next
 * rank), counted from before the first message to after MPI_Finalize (the
 * network counts arrive there). Prints "rank R SENT_XP HOPS".
 *
 * Before the ring, each rank also reports network counts of its own
 * (HPM_VPMU_NET: 3 X+ packets, 4 hops) between two reads, with nothing
 * else of the node moving in between: the second read must see them (a
 * read whose flush finds only the node's cycles moved still feeds what the
 * network's report changed, vpmu_node.c). They are taken off the line
 * printed, which stays the ring's. */
#include <mpi.h>
#include <papi.h>
#include <stdint.h>
#include <stdio.h>

#include "hpm_client.h"

#define OWN_XP 3
#define OWN_HOPS 4
#define NET_COUNTERS 22 /* TORUS_XP_PACKETS_SENT .. COLL_BYTES */
#define NET_HOPS 19     /* TORUS_HOPS */

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
    {
        long long r0[2], r1[2];
        uint64_t own[NET_COUNTERS] = {0};
        own[0] = OWN_XP;
        own[NET_HOPS] = OWN_HOPS;
        if (PAPI_read(set, r0) != PAPI_OK || HPM_VPMU_NET(own, NET_COUNTERS) != 0 ||
            PAPI_read(set, r1) != PAPI_OK) {
            fprintf(stderr, "rank %d: reading around a network report failed\n", rank);
            return 1;
        }
        if (r1[0] - r0[0] != OWN_XP || r1[1] - r0[1] != OWN_HOPS) {
            fprintf(stderr, "rank %d: a read after a network report saw +%lld packets, +%lld hops\n",
                    rank, r1[0] - r0[0], r1[1] - r0[1]);
            return 1;
        }
    }
    for (i = 0; i < 5; i++)
        MPI_Sendrecv_replace(buf, sizeof buf, MPI_CHAR, (rank + 1) % size, 0,
                             (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    if ((rc = PAPI_stop(set, v)) != PAPI_OK) {
        fprintf(stderr, "rank %d: %s\n", rank, PAPI_strerror(rc));
        return 1;
    }
    printf("rank %d %lld %lld\n", rank, v[0] - OWN_XP, v[1] - OWN_HOPS);
    return 0;
}
