/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libhpm-mpi: an MPI rank's calls as the virtual PMU's network unit and the
 * MPI profile see them. A PMPI interposition library (the MPI standard's
 * profiling interface): bind_c.c and bind_f.c define MPI's routines under
 * their C and Fortran names, record each call here and call the PMPI entry
 * that does the work. hpm count and hpm run preload it into the ranks of an
 * MPI job (LD_PRELOAD under valgrind; docs/mpi.md), or a program links it
 * before libmpi. Natively (no virtual PMU) the calls are only passed on.
 *
 * What it records, per rank: each routine's calls, bytes, modeled cycles
 * and host time; per destination (a rank of MPI_COMM_WORLD) the messages
 * and payload bytes sent to it; the MPI_Pcontrol regions' counts; and, on
 * a machine with a network (HPM_MPI_TORUS), the packets sent to each
 * destination (the torus's packet size) and the collective operations and
 * the bytes the rank contributed. At MPI_Finalize each rank routes what it
 * sent with the torus model (src/net/torus.h: the packets every link
 * carries, forwarding included; a message between two ranks of one node
 * goes through memory, not the torus), a reduction (PMPI_Reduce_scatter,
 * not recorded) gives the first rank of each node its node's counters, and
 * it passes them, with the collective operations and bytes of its node's
 * collective network (its own: the ranks of a node combine through memory
 * first, and one of them takes part), to the virtual PMU (HPM_VPMU_NET),
 * which feeds them to the UPC as the node's network events. Then the ranks
 * combine everything at rank 0 (combine.c).
 *
 * HPM_MPI_TORUS="X,Y,Z,MAPPING,PACKET_BYTES,RANKS_PER_NODE" (set by hpm
 * from the job's torus; ranks r to r + RANKS_PER_NODE - 1 share node r /
 * RANKS_PER_NODE). HPM_MPI_ROWS="SPEC,SPEC;SPEC;...": the report's rows,
 * each a sum of programmed event specs, whose statistics the combine
 * computes.
 */
#define _GNU_SOURCE
#include "hpm_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hpm_client.h"
#include "torus.h"

#define me hpm_mpi_me

static struct {
    int ready;           /* after MPI_Init: size and rank known */
    int on;              /* a torus was given */
    struct hpm_torus_params t;
    uint64_t *packets;   /* per destination world rank */
    uint64_t coll_ops, coll_bytes;
} net;

/* Whether calls are recorded: under the virtual PMU (asked once, so that
 * MPI_Init's own time counts), until MPI_Finalize's combine. */
static int recording(void)
{
    static int asked;
    if (!asked) {
        asked = 1;
        me.tool = HPM_VPMU_IS_RUNNING() != 0;
    }
    return me.tool;
}

/* The core kind every code of row_code[from, to) counts, or -1 (a node
 * kind, or codes of more than one kind). */
static int row_kind(unsigned from, unsigned to)
{
    unsigned kind, k, first = 0;
    int core;
    for (k = from; k < to; k++) {
        if (hpm_catalog_spec_decode(me.codes[me.row_code[k]], &kind, &core, NULL) != 0 ||
            kind >= HPM_K_CORE_COUNT || (k > from && kind != first))
            return -1;
        first = kind;
    }
    return to > from ? (int)first : -1;
}

/* HPM_MPI_ROWS: each row's codes as indices into me.codes. 0, or -1 (no
 * rows: the combine gives no statistics). */
static int parse_rows(const char *e)
{
    unsigned n = 1, k = 0, r = 0;
    const char *p;
    char *end;
    if (!e || !*e)
        return -1;
    for (p = e; *p; p++)
        n += *p == ',' || *p == ';';
    if (!(me.row_code = calloc(n, sizeof *me.row_code)) ||
        !(me.row_start = calloc(n + 1, sizeof *me.row_start)) ||
        !(me.row_kind = calloc(n, sizeof *me.row_kind)))
        return -1;
    for (p = e;; p = end + 1) {
        unsigned long spec = strtoul(p, &end, 10), i;
        if (end == p || r >= HPM_MPI_MAX_ROWS)
            return -1;
        for (i = 0; i < me.ncodes && me.codes[i] != spec; i++)
            ;
        if (i == me.ncodes)
            return -1; /* not programmed */
        me.row_code[k++] = (unsigned)i;
        if (*end != ',')
            me.row_kind[r] = row_kind(me.row_start[r], k), me.row_start[++r] = k;
        if (!*end)
            break;
        if (*end != ',' && *end != ';')
            return -1;
    }
    me.nrows = r;
    return 0;
}

/* The programmed events and their counts at MPI_Init. */
static void setup_counts(void)
{
    long n = HPM_VPMU_EVENTS((uint32_t *)NULL, 0);
    if (n <= 0 || !(me.codes = calloc((size_t)n, sizeof *me.codes)) ||
        !(me.at_init = calloc((size_t)n, sizeof *me.at_init)))
        return;
    if (HPM_VPMU_EVENTS(me.codes, n) != n ||
        HPM_VPMU_READ_EVENTS(me.at_init, n, HPM_VPMU_SCOPE_NODE) != n)
        return;
    me.ncodes = (unsigned)n;
    if (parse_rows(getenv("HPM_MPI_ROWS")) != 0)
        me.nrows = 0;
}

static void setup_net(void)
{
    const char *e = getenv("HPM_MPI_TORUS");
    unsigned x, y, z, pkt, rpn = 1;
    char map[4];
    if (!e || sscanf(e, "%u,%u,%u,%3[XYZxyz],%u,%u", &x, &y, &z, map, &pkt, &rpn) < 5 ||
        rpn < 1)
        return;
    me.rpn = rpn;
    memset(&net.t, 0, sizeof net.t);
    net.t.x = x;
    net.t.y = y;
    net.t.z = z;
    memcpy(net.t.mapping, map, sizeof map);
    net.t.packet_bytes = pkt;
    if (hpm_torus_check(&net.t) != 0 ||
        hpm_torus_nodes(&net.t) != ((uint32_t)me.size + rpn - 1) / rpn) {
        /* hpm checked it against the job's size before starting the rank */
        fprintf(stderr, "libhpm-mpi: HPM_MPI_TORUS=%s does not fit a job of %d ranks: "
                        "no network counts\n", e, me.size);
        return;
    }
    if ((net.packets = calloc((size_t)me.size, sizeof *net.packets)))
        net.on = 1;
}

/* A rank that exits without MPI_Finalize (exit() after its work, as
 * PAPI's test_pass does; Open MPI allows it with
 * orte_allowed_exit_without_sync) still takes its part in the collectives
 * the other ranks' MPI_Finalize waits in: the network and the combine, on
 * the library's own communicator. */
static void at_exit(void)
{
    int init = 0, fin = 0;
    if (me.tool && PMPI_Initialized(&init) == MPI_SUCCESS && init &&
        PMPI_Finalized(&fin) == MPI_SUCCESS && !fin)
        hpm_mpi_finishing();
}

static void setup(void)
{
    if (net.ready)
        return;
    net.ready = 1;
    me.rpn = 1;
    if (!recording() || PMPI_Comm_size(MPI_COMM_WORLD, &me.size) != MPI_SUCCESS ||
        PMPI_Comm_rank(MPI_COMM_WORLD, &me.rank) != MPI_SUCCESS ||
        PMPI_Comm_group(MPI_COMM_WORLD, &me.world) != MPI_SUCCESS ||
        PMPI_Comm_dup(MPI_COMM_WORLD, &me.comm) != MPI_SUCCESS) {
        me.tool = 0;
        return;
    }
    atexit(at_exit);
    me.msgs = calloc((size_t)me.size, sizeof *me.msgs);
    me.bytes = calloc((size_t)me.size, sizeof *me.bytes);
    if (!me.msgs || !me.bytes) {
        me.tool = 0;
        return;
    }
    setup_counts();
    setup_net();
}

int hpm_mpi_comm_size(MPI_Comm comm)
{
    int n = 0;
    return PMPI_Comm_size(comm, &n) == MPI_SUCCESS && n > 0 ? n : 0;
}

uint64_t hpm_mpi_payload(int count, MPI_Datatype type)
{
    int size = 0;
    /* natively nothing is recorded: the call costs no more than a test */
    if (!me.tool || count <= 0 || PMPI_Type_size(type, &size) != MPI_SUCCESS || size <= 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

uint64_t hpm_mpi_payload_v(const int *counts, MPI_Datatype type, MPI_Comm comm)
{
    int n = counts && me.tool ? hpm_mpi_comm_size(comm) : 0, i;
    uint64_t b = 0;
    for (i = 0; i < n; i++)
        b += hpm_mpi_payload(counts[i], type);
    return b;
}

/* The calling thread's modeled cycles (0 when CYCLES is not counted). */
static uint64_t thread_cycles(void)
{
    uint64_t k[HPM_K_CYCLES + 1];
    return HPM_VPMU_READ_KINDS(k, HPM_K_CYCLES + 1) == HPM_K_CYCLES + 1 ? k[HPM_K_CYCLES] : 0;
}

void hpm_mpi_enter(struct hpm_mpi_call *c)
{
    long ns;
    c->cycles = c->ns = 0;
    if (!recording())
        return;
    c->cycles = thread_cycles();
    ns = HPM_VPMU_CLOCK(CLOCK_MONOTONIC);
    c->ns = ns > 0 ? (uint64_t)ns : 0;
}

void hpm_mpi_done(const struct hpm_mpi_call *c, enum hpm_mpi_routine r, uint64_t bytes)
{
    uint64_t *p = me.prof[r];
    long ns;
    if (!recording())
        return;
    ns = HPM_VPMU_CLOCK(CLOCK_MONOTONIC);
    p[HPM_MPI_CALLS]++;
    p[HPM_MPI_BYTES] += bytes;
    p[HPM_MPI_CYCLES] += thread_cycles() - c->cycles;
    p[HPM_MPI_NS] += ns > 0 && (uint64_t)ns > c->ns ? (uint64_t)ns - c->ns : 0;
}

/* dest of comm as a rank of MPI_COMM_WORLD, or -1 */
static int world_rank(int dest, MPI_Comm comm)
{
    int world = dest;
    MPI_Group g;
    if (dest < 0 || dest == MPI_PROC_NULL)
        return -1;
    if (comm != MPI_COMM_WORLD) {
        if (PMPI_Comm_group(comm, &g) != MPI_SUCCESS)
            return -1;
        if (PMPI_Group_translate_ranks(g, 1, &dest, me.world, &world) != MPI_SUCCESS)
            world = MPI_UNDEFINED;
        PMPI_Group_free(&g);
    }
    return world < 0 || world >= me.size || world == MPI_UNDEFINED ? -1 : world;
}

void hpm_mpi_sent(const struct hpm_mpi_call *c, enum hpm_mpi_routine r, int count,
                  MPI_Datatype type, int dest, MPI_Comm comm)
{
    uint64_t b;
    int world;
    if (!recording())
        return;
    b = hpm_mpi_payload(count, type);
    hpm_mpi_done(c, r, b);
    if ((world = world_rank(dest, comm)) < 0)
        return;
    me.msgs[world]++;
    me.bytes[world] += b;
    if (net.on)
        net.packets[world] += hpm_torus_packets(&net.t, b);
}

void hpm_mpi_collective(const struct hpm_mpi_call *c, enum hpm_mpi_routine r, uint64_t bytes)
{
    hpm_mpi_done(c, r, bytes);
    if (!net.on)
        return;
    net.coll_ops++;
    net.coll_bytes += bytes;
}

void hpm_mpi_started(void)
{
    setup();
}

/* ------------------------------------------------------------ regions */

static struct hpm_mpi_region *region(const char *name)
{
    unsigned i;
    for (i = 0; i < me.nreg; i++)
        if (strcmp(me.reg[i].name, name) == 0)
            return &me.reg[i];
    if (me.nreg == HPM_MPI_MAX_REGIONS || strlen(name) >= HPM_MPI_REGION_NAME) {
        me.reg_dropped++;
        return NULL;
    }
    snprintf(me.reg[me.nreg].name, HPM_MPI_REGION_NAME, "%s", name);
    return &me.reg[me.nreg++];
}

void hpm_mpi_pcontrol(int level, const char *name)
{
    struct hpm_mpi_region *g;
    long entries;
    if (!me.tool || (level != 1 && level != -1))
        return;
    if (!name || !*name)
        name = "pcontrol";
    if (level == 1) {
        (void)HPM_VPMU_REGION_BEGIN(name);
        return;
    }
    if (HPM_VPMU_REGION_END(name) != HPM_VPMU_OK || !(g = region(name)))
        return;
    entries = HPM_VPMU_REGION_READ(name, g->kinds, HPM_K_CORE_COUNT);
    if (entries >= 0)
        g->entries = (uint64_t)entries;
}

/* ------------------------------------------------------------ the end */

/* Each rank routes its own messages over the torus into every node's
 * counters; a reduction sums them, giving each node's first rank its node's
 * (O(nodes) words per rank), which it passes to the virtual PMU with its
 * collectives. */
static void report_net(void)
{
    uint32_t nodes = hpm_torus_nodes(&net.t), at = (uint32_t)me.rank / me.rpn;
    uint64_t *counters = calloc(nodes, HPM_NET_COUNTERS * sizeof *counters);
    uint64_t mine[HPM_NET_COUNTERS];
    int *share = calloc((size_t)me.size, sizeof *share), r,
        first = me.rank % (int)me.rpn == 0;
    if (counters && share) {
        for (r = 0; r < me.size; r++) {
            share[r] = r % (int)me.rpn == 0 ? HPM_NET_COUNTERS : 0;
            if (net.packets[r])
                hpm_torus_route(&net.t, at, (uint32_t)r / me.rpn, net.packets[r], me.bytes[r],
                                counters);
        }
        if (first) {
            counters[(size_t)at * HPM_NET_COUNTERS + HPM_NET_COLL_OPS] += net.coll_ops;
            counters[(size_t)at * HPM_NET_COUNTERS + HPM_NET_COLL_BYTES] += net.coll_bytes;
        }
        if (PMPI_Reduce_scatter(counters, mine, share, MPI_UINT64_T, MPI_SUM, me.comm) ==
                MPI_SUCCESS && first)
            (void)HPM_VPMU_NET(mine, HPM_NET_COUNTERS);
    }
    free(counters);
    free(share);
}

void hpm_mpi_finishing(void)
{
    if (!net.ready)
        setup();
    if (!me.tool)
        return;
    if (net.on)
        report_net();
    if (getenv("HPM_MPI_ROWS"))
        hpm_mpi_combine(); /* hpm count's report wants it (hpm run's does not) */
    PMPI_Group_free(&me.world);
    PMPI_Comm_free(&me.comm);
    free(net.packets);
    net.packets = NULL;
    net.on = 0;
    me.tool = 0; /* what MPI_Finalize does is no more the job's */
}
