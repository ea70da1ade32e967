/* SPDX-License-Identifier: BSD-3-Clause */
/* torus.c - the 3D torus network model (torus.h). Freestanding. */
#include "torus.h"

static void dims_of(const struct hpm_torus_params *t, uint32_t d[3])
{
    d[0] = t->x;
    d[1] = t->y;
    d[2] = t->z;
}

int hpm_torus_shape(struct hpm_torus_params *t, uint32_t nodes)
{
    uint32_t x, y, z, best[3] = {0, 0, 0};
    if (nodes == 0 || nodes > HPM_TORUS_MAX_NODES)
        return -1;
    /* z <= y <= x: z up to the cube root, y up to the square root of the rest */
    for (z = 1; (uint64_t)z * z * z <= nodes; z++) {
        if (nodes % z)
            continue;
        for (y = z; (uint64_t)y * y <= nodes / z; y++) {
            if ((nodes / z) % y)
                continue;
            x = nodes / z / y;
            if (!best[0] || x < best[0] || (x == best[0] && z > best[2])) {
                best[0] = x;
                best[1] = y;
                best[2] = z;
            }
        }
    }
    t->x = best[0];
    t->y = best[1];
    t->z = best[2];
    return 0;
}

uint32_t hpm_torus_nodes(const struct hpm_torus_params *t)
{
    return t->x * t->y * t->z;
}

/* The dimension (0 X, 1 Y, 2 Z) of mapping letter i, or -1. */
static int map_dim(const struct hpm_torus_params *t, int i)
{
    char c = t->mapping[i];
    return c == 'X' || c == 'x' ? 0 : c == 'Y' || c == 'y' ? 1 : c == 'Z' || c == 'z' ? 2 : -1;
}

int hpm_torus_check(const struct hpm_torus_params *t)
{
    int seen = 0, i;
    if (!t->x || !t->y || !t->z || !t->packet_bytes ||
        (uint64_t)t->x * t->y * t->z > HPM_TORUS_MAX_NODES)
        return -1;
    for (i = 0; i < 3; i++) {
        int d = map_dim(t, i);
        if (d < 0 || (seen & (1 << d)))
            return -1;
        seen |= 1 << d;
    }
    return t->mapping[3] == 0 ? 0 : -1;
}

void hpm_torus_coords(const struct hpm_torus_params *t, uint32_t rank, uint32_t c[3])
{
    uint32_t d[3];
    int i;
    dims_of(t, d);
    for (i = 0; i < 3; i++) {
        int k = map_dim(t, i);
        c[k] = rank % d[k];
        rank /= d[k];
    }
}

uint32_t hpm_torus_rank(const struct hpm_torus_params *t, const uint32_t c[3])
{
    uint32_t d[3], r = 0;
    int i;
    dims_of(t, d);
    for (i = 2; i >= 0; i--) {
        int k = map_dim(t, i);
        r = r * d[k] + c[k];
    }
    return r;
}

uint64_t hpm_torus_packets(const struct hpm_torus_params *t, uint64_t bytes)
{
    return bytes == 0 ? 1 : (bytes + t->packet_bytes - 1) / t->packet_bytes;
}

uint32_t hpm_torus_route(const struct hpm_torus_params *t, uint32_t src, uint32_t dst,
                         uint64_t packets, uint64_t bytes, uint64_t *counters)
{
    uint32_t d[3], at[3], to[3], hops = 0, node = src;
    int k;
    if (src == dst || !packets)
        return 0;
    dims_of(t, d);
    hpm_torus_coords(t, src, at);
    hpm_torus_coords(t, dst, to);
    for (k = 0; k < 3; k++) {
        /* the shorter way round; plus when both are as short */
        uint32_t up = (to[k] + d[k] - at[k]) % d[k], down = (at[k] + d[k] - to[k]) % d[k];
        int plus = up <= down;
        uint32_t steps = plus ? up : down, s;
        enum hpm_torus_dir dir = (enum hpm_torus_dir)(2 * k + (plus ? 0 : 1));
        for (s = 0; s < steps; s++) {
            uint64_t *from = counters + (uint64_t)node * HPM_NET_COUNTERS, *next;
            from[HPM_NET_PACKETS_SENT + dir] += packets;
            from[HPM_NET_BYTES_SENT + dir] += bytes;
            at[k] = plus ? (at[k] + 1) % d[k] : (at[k] + d[k] - 1) % d[k];
            node = hpm_torus_rank(t, at);
            next = counters + (uint64_t)node * HPM_NET_COUNTERS;
            next[HPM_NET_PACKETS_RECV + dir] += packets;
            next[HPM_NET_BYTES_RECV] += bytes;
            hops++;
        }
    }
    counters[(uint64_t)src * HPM_NET_COUNTERS + HPM_NET_HOPS] += packets * hops;
    return hops;
}
