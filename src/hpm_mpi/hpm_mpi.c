/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libhpm-mpi: an MPI rank's calls as the virtual PMU's network unit and the
 * MPI profile see them. A PMPI interposition library (the MPI standard's
 * profiling interface): bind_c.c and bind_f.c define MPI's routines under
 * their C and Fortran names, record each call here and call the PMPI entry
 * that does the work. hpm count and hpm run preload it into the ranks of an
 * MPI job whose machine has a network (LD_PRELOAD under valgrind;
 * docs/mpi.md), or a program links it before libmpi.
 *
 * What it records, per rank: per destination (a rank of MPI_COMM_WORLD)
 * the packets and payload bytes of the messages sent to it (the torus's
 * packet size, from HPM_MPI_TORUS), and the collective operations and the
 * bytes the rank contributed. At MPI_Finalize each rank routes what it
 * sent with the torus model (src/net/torus.h: the packets every link
 * carries, forwarding included; a message between two ranks of one node
 * goes through memory, not the torus), a reduction (PMPI_Reduce_scatter,
 * not recorded) gives the first rank of each node its node's counters, and
 * it passes them, with the collective operations and bytes of its node's
 * collective network (its own: the ranks of a node combine through memory
 * first, and one of them takes part), to the virtual PMU (HPM_VPMU_NET),
 * which feeds them to the UPC as the node's network events. Natively, or
 * without HPM_MPI_TORUS, the calls are only passed on.
 *
 * HPM_MPI_TORUS="X,Y,Z,MAPPING,PACKET_BYTES,RANKS_PER_NODE" (set by hpm
 * from the job's torus; ranks r to r + RANKS_PER_NODE - 1 share node r /
 * RANKS_PER_NODE).
 */
#define _GNU_SOURCE
#include "hpm_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpm_client.h"
#include "torus.h"

static struct {
    int ready;           /* after MPI_Init: size and rank known */
    int on;              /* a torus was given */
    int size, rank;
    unsigned rpn;        /* ranks per node */
    struct hpm_torus_params t;
    uint64_t *packets, *bytes; /* per destination world rank */
    uint64_t coll_ops, coll_bytes;
    MPI_Group world;
} st;

static void setup(void)
{
    const char *e = getenv("HPM_MPI_TORUS");
    unsigned x, y, z, pkt, rpn = 1;
    char map[4];
    if (st.ready)
        return;
    st.ready = 1;
    if (PMPI_Comm_size(MPI_COMM_WORLD, &st.size) != MPI_SUCCESS ||
        PMPI_Comm_rank(MPI_COMM_WORLD, &st.rank) != MPI_SUCCESS)
        return;
    if (!e || sscanf(e, "%u,%u,%u,%3[XYZxyz],%u,%u", &x, &y, &z, map, &pkt, &rpn) < 5 ||
        rpn < 1)
        return;
    st.rpn = rpn;
    memset(&st.t, 0, sizeof st.t);
    st.t.x = x;
    st.t.y = y;
    st.t.z = z;
    memcpy(st.t.mapping, map, sizeof map);
    st.t.packet_bytes = pkt;
    if (hpm_torus_check(&st.t) != 0 ||
        hpm_torus_nodes(&st.t) != ((uint32_t)st.size + rpn - 1) / rpn) {
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

uint64_t hpm_mpi_payload(int count, MPI_Datatype type)
{
    int size = 0;
    if (count <= 0 || PMPI_Type_size(type, &size) != MPI_SUCCESS || size <= 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

int hpm_mpi_comm_size(MPI_Comm comm)
{
    int n = 0;
    return PMPI_Comm_size(comm, &n) == MPI_SUCCESS && n > 0 ? n : 0;
}

uint64_t hpm_mpi_payload_v(const int *counts, MPI_Datatype type, MPI_Comm comm)
{
    int n = counts ? hpm_mpi_comm_size(comm) : 0, i;
    uint64_t b = 0;
    for (i = 0; i < n; i++)
        b += hpm_mpi_payload(counts[i], type);
    return b;
}

void hpm_mpi_enter(struct hpm_mpi_call *c)
{
    c->cycles = c->ns = 0;
}

void hpm_mpi_done(const struct hpm_mpi_call *c, enum hpm_mpi_routine r, uint64_t bytes)
{
    (void)c;
    (void)r;
    (void)bytes;
}

void hpm_mpi_sent(const struct hpm_mpi_call *c, enum hpm_mpi_routine r, int count,
                  MPI_Datatype type, int dest, MPI_Comm comm)
{
    int world = dest;
    uint64_t b = hpm_mpi_payload(count, type);
    hpm_mpi_done(c, r, b);
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
    st.packets[world] += hpm_torus_packets(&st.t, b);
    st.bytes[world] += b;
}

void hpm_mpi_collective(const struct hpm_mpi_call *c, enum hpm_mpi_routine r, uint64_t bytes)
{
    hpm_mpi_done(c, r, bytes);
    if (!st.ready)
        setup();
    if (!st.on)
        return;
    st.coll_ops++;
    st.coll_bytes += bytes;
}

void hpm_mpi_started(void)
{
    setup();
}

void hpm_mpi_pcontrol(int level, const char *name)
{
    (void)level;
    (void)name;
}

/* Each rank routes its own messages over the torus into every node's
 * counters; a reduction sums them, giving each node's first rank its node's
 * (O(nodes) words per rank), which it passes to the virtual PMU with its
 * collectives. */
static void report(void)
{
    uint32_t nodes = hpm_torus_nodes(&st.t), me = (uint32_t)st.rank / st.rpn;
    uint64_t *counters = calloc(nodes, HPM_NET_COUNTERS * sizeof *counters);
    uint64_t mine[HPM_NET_COUNTERS];
    int *share = calloc((size_t)st.size, sizeof *share), r, first = st.rank % (int)st.rpn == 0;
    if (counters && share) {
        for (r = 0; r < st.size; r++) {
            share[r] = r % (int)st.rpn == 0 ? HPM_NET_COUNTERS : 0;
            if (st.packets[r])
                hpm_torus_route(&st.t, me, (uint32_t)r / st.rpn, st.packets[r], st.bytes[r],
                                counters);
        }
        if (first) {
            counters[(size_t)me * HPM_NET_COUNTERS + HPM_NET_COLL_OPS] += st.coll_ops;
            counters[(size_t)me * HPM_NET_COUNTERS + HPM_NET_COLL_BYTES] += st.coll_bytes;
        }
        if (PMPI_Reduce_scatter(counters, mine, share, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD) ==
                MPI_SUCCESS && first)
            (void)HPM_VPMU_NET(mine, HPM_NET_COUNTERS);
    }
    free(counters);
    free(share);
}

void hpm_mpi_finishing(void)
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
}
