/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * torus.h - the network of a machine model: Blue Gene/P's 3D torus and its
 * collective network, as counters of a node (seed 002's NWUnit: packets and
 * bytes per link and direction, hops, collective operations and bytes).
 *
 * Node n sits at the coordinates its mapping gives (mapping "XYZ": X varies
 * fastest, as BG/P's default XYZT; libhpm-mpi puts ranks r to r + N - 1 on
 * one node at N ranks per node). A message goes
 * by dimension-ordered routing, X first, then Y, then Z, each dimension the
 * shorter way round its ring (the plus direction when both are as short);
 * it is cut into ceil(bytes / packet_bytes) packets, at least one, and every
 * packet crosses every link of the route. A node's counters count what its
 * links carry, the packets it forwards for others included: packets and
 * payload bytes sent on each outgoing link, packets received on each
 * incoming link (named by the direction they travel), payload bytes
 * received (all links), the hops of the packets it injected, and its
 * collective operations and their bytes.
 *
 * Freestanding (no libc): libhpm-mpi computes a node's counters with it,
 * the machine parser holds its parameters.
 */
#ifndef HPM_NET_TORUS_H
#define HPM_NET_TORUS_H

#include <stdint.h>

/* The [torus] section of a machine file; x = 0: the machine has no network. */
struct hpm_torus_params {
    uint32_t x, y, z;          /* nodes per dimension */
    char mapping[4];           /* "XYZ", "ZYX", ...: the first letter varies fastest */
    uint32_t packet_bytes;     /* payload per packet */
    uint64_t link_bytes_per_s; /* per link and direction (descriptive: not a timing model) */
    uint32_t line;             /* the machine file's line of [torus] x (0 = not from a file) */
    uint32_t job_shape;        /* [torus] gave no x, y, z: an MPI job's node count picks
                                * them (hpm_torus_shape); until then x = y = z = 0 */
};

#define HPM_TORUS_MAX_NODES (1u << 20)

enum hpm_torus_dir { HPM_TORUS_XP, HPM_TORUS_XM, HPM_TORUS_YP, HPM_TORUS_YM, HPM_TORUS_ZP,
                     HPM_TORUS_ZM, HPM_TORUS_DIRS };

/* A node's counters, in the catalog's order of the network kinds. */
enum hpm_net_counter {
    HPM_NET_PACKETS_SENT = 0,                       /* + dir */
    HPM_NET_PACKETS_RECV = HPM_TORUS_DIRS,          /* + dir */
    HPM_NET_BYTES_SENT = 2 * HPM_TORUS_DIRS,        /* + dir */
    HPM_NET_BYTES_RECV = 3 * HPM_TORUS_DIRS,
    HPM_NET_HOPS,
    HPM_NET_COLL_OPS,
    HPM_NET_COLL_BYTES,
    HPM_NET_COUNTERS
};

/* The shape of a torus of `nodes` nodes (at most 2^20), as Blue Gene/P's
 * partitions are cut: the most nearly cubic x*y*z = nodes with x >= y >= z
 * (the smallest largest dimension, then the largest smallest one): 2 nodes
 * 2x1x1, 4 2x2x1, 8 2x2x2, 32 4x4x2, 512 8x8x8, a prime p px1x1. Sets x,
 * y and z; 0, or -1 for 0 nodes or more than 2^20. */
int hpm_torus_shape(struct hpm_torus_params *t, uint32_t nodes);
/* Nodes of the torus (0 without one). */
uint32_t hpm_torus_nodes(const struct hpm_torus_params *t);
/* 0, or -1 when the parameters are not a torus (a zero dimension, a mapping
 * that is no permutation of X, Y, Z, a packet of 0 bytes, more than 2^20
 * nodes). */
int hpm_torus_check(const struct hpm_torus_params *t);
/* The coordinates of node `rank` (< nodes). */
void hpm_torus_coords(const struct hpm_torus_params *t, uint32_t rank, uint32_t c[3]);
/* The node at coordinates c. */
uint32_t hpm_torus_rank(const struct hpm_torus_params *t, const uint32_t c[3]);
/* Packets of a message of `bytes` bytes. */
uint64_t hpm_torus_packets(const struct hpm_torus_params *t, uint64_t bytes);
/* Adds `packets` packets carrying `bytes` bytes from node src to node dst
 * (both < nodes; src == dst adds nothing) to the counters of every node on
 * the route: counters[node * HPM_NET_COUNTERS + counter]. Returns the hops. */
uint32_t hpm_torus_route(const struct hpm_torus_params *t, uint32_t src, uint32_t dst,
                         uint64_t packets, uint64_t bytes, uint64_t *counters);

#endif
