/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libhpm-mpi: the network unit's source of traffic. A PMPI interposition
 * library (the MPI standard's profiling interface): it defines MPI's
 * point-to-point sends and collectives, records each call, and calls the
 * PMPI_ entry that does the work. hpm count and hpm run preload it into
 * the ranks of an MPI job whose machine has a network (LD_PRELOAD under
 * valgrind; docs/mpi.md), or a program links it before libmpi.
 *
 * What it records, per rank: per destination (a rank of MPI_COMM_WORLD)
 * the packets and payload bytes of the messages sent to it (the torus's
 * packet size, from HPM_MPI_TORUS), and the collective operations and the
 * bytes the rank contributed. At MPI_Finalize the ranks exchange what they
 * sent (PMPI_Allgather, not recorded), each computes its node's counters
 * with the torus model (src/net/torus.h: the packets its links carry,
 * forwarding for others included) and passes them to the virtual PMU
 * (HPM_VPMU_NET), which feeds them to the UPC as the node's network events.
 * Natively, or without HPM_MPI_TORUS, the calls are only passed on.
 *
 * HPM_MPI_TORUS="X,Y,Z,MAPPING,PACKET_BYTES" (set by hpm from the machine
 * file's [torus]).
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpm_client.h"
#include "torus.h"

static struct {
    int ready;           /* after MPI_Init: size and rank known */
    int on;              /* a torus was given */
    int size, rank;
    struct hpm_torus_params t;
    uint64_t *packets, *bytes; /* per destination world rank */
    uint64_t coll_ops, coll_bytes;
    MPI_Group world;
} st;

static void setup(void)
{
    const char *e = getenv("HPM_MPI_TORUS");
    unsigned x, y, z, pkt;
    char map[4];
    if (st.ready)
        return;
    st.ready = 1;
    if (PMPI_Comm_size(MPI_COMM_WORLD, &st.size) != MPI_SUCCESS ||
        PMPI_Comm_rank(MPI_COMM_WORLD, &st.rank) != MPI_SUCCESS)
        return;
    if (!e || sscanf(e, "%u,%u,%u,%3[XYZxyz],%u", &x, &y, &z, map, &pkt) != 5)
        return;
    memset(&st.t, 0, sizeof st.t);
    st.t.x = x;
    st.t.y = y;
    st.t.z = z;
    memcpy(st.t.mapping, map, sizeof map);
    st.t.packet_bytes = pkt;
    if (hpm_torus_check(&st.t) != 0 || hpm_torus_nodes(&st.t) != (uint32_t)st.size) {
        /* hpm checked it against the job's size before starting the rank */
        fprintf(stderr, "libhpm-mpi: HPM_MPI_TORUS=%s does not fit a job of %d ranks: "
                        "no network counts\n", e, st.size);
        return;
    }
    st.packets = calloc((size_t)st.size, sizeof *st.packets);
    st.bytes = calloc((size_t)st.size, sizeof *st.bytes);
    if (!st.packets || !st.bytes ||
        PMPI_Comm_group(MPI_COMM_WORLD, &st.world) != MPI_SUCCESS) {
        free(st.packets);
        free(st.bytes);
        st.packets = st.bytes = NULL;
        return;
    }
    st.on = 1;
}

static uint64_t payload(int count, MPI_Datatype type)
{
    int size = 0;
    if (count <= 0 || PMPI_Type_size(type, &size) != MPI_SUCCESS || size <= 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

/* A message of count x type to dest of comm. */
static void sent(int count, MPI_Datatype type, int dest, MPI_Comm comm)
{
    int world = dest;
    uint64_t b;
    if (!st.ready)
        setup();
    if (!st.on || dest < 0 || dest == MPI_PROC_NULL)
        return;
    if (comm != MPI_COMM_WORLD) {
        MPI_Group g;
        if (PMPI_Comm_group(comm, &g) != MPI_SUCCESS)
            return;
        if (PMPI_Group_translate_ranks(g, 1, &dest, st.world, &world) != MPI_SUCCESS)
            world = MPI_UNDEFINED;
        PMPI_Group_free(&g);
    }
    if (world < 0 || world >= st.size || world == MPI_UNDEFINED)
        return;
    b = payload(count, type);
    st.packets[world] += hpm_torus_packets(&st.t, b);
    st.bytes[world] += b;
}

static void collective(uint64_t bytes)
{
    if (!st.ready)
        setup();
    if (!st.on)
        return;
    st.coll_ops++;
    st.coll_bytes += bytes;
}

/* ------------------------------------------------------------ point to point */

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        setup();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        setup();
    return rc;
}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    sent(count, type, dest, comm);
    return PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    sent(count, type, dest, comm);
    return PMPI_Ssend(buf, count, type, dest, tag, comm);
}

int MPI_Bsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    sent(count, type, dest, comm);
    return PMPI_Bsend(buf, count, type, dest, tag, comm);
}

int MPI_Rsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    sent(count, type, dest, comm);
    return PMPI_Rsend(buf, count, type, dest, tag, comm);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    sent(count, type, dest, comm);
    return PMPI_Isend(buf, count, type, dest, tag, comm, req);
}

int MPI_Issend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *req)
{
    sent(count, type, dest, comm);
    return PMPI_Issend(buf, count, type, dest, tag, comm, req);
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                 void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
                 MPI_Status *status)
{
    sent(scount, stype, dest, comm);
    return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                         comm, status);
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag, int source,
                         int rtag, MPI_Comm comm, MPI_Status *status)
{
    sent(count, type, dest, comm);
    return PMPI_Sendrecv_replace(buf, count, type, dest, stag, source, rtag, comm, status);
}

/* ------------------------------------------------------------ collectives */

int MPI_Barrier(MPI_Comm comm)
{
    collective(0);
    return PMPI_Barrier(comm);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    collective(payload(count, type));
    return PMPI_Bcast(buf, count, type, root, comm);
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm)
{
    collective(payload(count, type));
    return PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    collective(payload(count, type));
    return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
               MPI_Datatype rtype, int root, MPI_Comm comm)
{
    collective(payload(scount, stype));
    return PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                MPI_Datatype rtype, int root, MPI_Comm comm)
{
    collective(payload(rcount, rtype));
    return PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm)
{
    collective(payload(scount, stype));
    return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm)
{
    int n = 0;
    PMPI_Comm_size(comm, &n);
    collective(payload(scount, stype) * (uint64_t)(n > 0 ? n : 0));
    return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

/* ------------------------------------------------------------ the end */

/* Every rank's sends, gathered; this node's counters to the virtual PMU. */
static void report(void)
{
    size_t n = (size_t)st.size, i, j;
    uint64_t *all = NULL, *counters = NULL, *mine;
    if (!st.on)
        return;
    all = malloc(2 * n * n * sizeof *all);
    counters = calloc(n, HPM_NET_COUNTERS * sizeof *counters);
    mine = malloc(2 * n * sizeof *mine);
    if (all && counters && mine) {
        memcpy(mine, st.packets, n * sizeof *mine);
        memcpy(mine + n, st.bytes, n * sizeof *mine);
        if (PMPI_Allgather(mine, (int)(2 * n), MPI_UINT64_T, all, (int)(2 * n), MPI_UINT64_T,
                           MPI_COMM_WORLD) == MPI_SUCCESS) {
            for (i = 0; i < n; i++)
                for (j = 0; j < n; j++)
                    if (all[i * 2 * n + j])
                        hpm_torus_route(&st.t, (uint32_t)i, (uint32_t)j, all[i * 2 * n + j],
                                        all[i * 2 * n + n + j], counters);
            counters[(size_t)st.rank * HPM_NET_COUNTERS + HPM_NET_COLL_OPS] = st.coll_ops;
            counters[(size_t)st.rank * HPM_NET_COUNTERS + HPM_NET_COLL_BYTES] = st.coll_bytes;
            (void)HPM_VPMU_NET(counters + (size_t)st.rank * HPM_NET_COUNTERS, HPM_NET_COUNTERS);
        }
    }
    free(all);
    free(counters);
    free(mine);
}

int MPI_Finalize(void)
{
    if (!st.ready)
        setup();
    report();
    if (st.on)
        PMPI_Group_free(&st.world);
    free(st.packets);
    free(st.bytes);
    st.packets = st.bytes = NULL;
    st.on = 0;
    return PMPI_Finalize();
}
