/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/net: the torus model (src/net/torus.h) against counts worked out by
 * hand: a ring exchange on 8 ranks of a 2x2x2 torus, and a longer ring. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "torus.h"

static int failures;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);           \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
            failures++;                                                    \
        }                                                                  \
    } while (0)

enum { XP = HPM_TORUS_XP, YP = HPM_TORUS_YP, ZP = HPM_TORUS_ZP, XM = HPM_TORUS_XM };

int main(void)
{
    struct hpm_torus_params t = {2, 2, 2, "XYZ", 256, 425000000u, 0, 0};
    static uint64_t c[8 * HPM_NET_COUNTERS];
    const uint64_t K = 5, B = 1000; /* 5 messages of 1000 bytes: 4 packets each */
    const uint64_t P = K * 4, BY = K * B;
    uint32_t xyz[3], r, i;

    CHECK(hpm_torus_check(&t) == 0, "2x2x2 XYZ is a torus");
    CHECK(hpm_torus_nodes(&t) == 8, "8 nodes");
    CHECK(hpm_torus_packets(&t, 1000) == 4 && hpm_torus_packets(&t, 0) == 1 &&
              hpm_torus_packets(&t, 256) == 1 && hpm_torus_packets(&t, 257) == 2,
          "packets of a message");
    /* XYZ: X fastest. Rank 5 = x 1, y 0, z 1; rank 6 = x 0, y 1, z 1. */
    hpm_torus_coords(&t, 5, xyz);
    CHECK(xyz[0] == 1 && xyz[1] == 0 && xyz[2] == 1, "rank 5 at (1,0,1)");
    hpm_torus_coords(&t, 6, xyz);
    CHECK(xyz[0] == 0 && xyz[1] == 1 && xyz[2] == 1, "rank 6 at (0,1,1)");
    for (r = 0; r < 8; r++) {
        hpm_torus_coords(&t, r, xyz);
        CHECK(hpm_torus_rank(&t, xyz) == r, "rank %u round trip", r);
    }

    /* Ring: rank r sends K messages of B bytes to r + 1 mod 8. By hand,
     * with X first, then Y, then Z, and + on a ring of 2 (a tie):
     *   0->1, 2->3, 4->5, 6->7: one X+ hop.
     *   1->2: 1 X+ 0, 0 Y+ 2 (two hops, node 0 forwards).
     *   5->6: 5 X+ 4, 4 Y+ 6 (two hops, node 4 forwards).
     *   3->4: 3 X+ 2, 2 Y+ 0, 0 Z+ 4 (three hops; 2 and 0 forward).
     *   7->0: 7 X+ 6, 6 Y+ 4, 4 Z+ 0 (three hops; 6 and 4 forward). */
    for (r = 0; r < 8; r++)
        hpm_torus_route(&t, r, (r + 1) % 8, P, BY, c);
    {
        /* per node: X+ sent, Y+ sent, Z+ sent, X+ recv, Y+ recv, Z+ recv, hops */
        static const uint64_t want[8][7] = {
            /* 0: 0->1 X+; fwd 1->2 Y+; fwd 3->4 Z+; recv 1->2 X+, 3->4 Y+, 7->0 Z+ */
            {1, 1, 1, 1, 1, 1, 1},
            /* 1: 1->2 X+; recv 0->1 X+ */
            {1, 0, 0, 1, 0, 0, 2},
            /* 2: 2->3 X+; fwd 3->4 Y+; recv 1->2 Y+, 3->4 X+ */
            {1, 1, 0, 1, 1, 0, 1},
            /* 3: 3->4 X+; recv 2->3 X+ */
            {1, 0, 0, 1, 0, 0, 3},
            /* 4: 4->5 X+; fwd 5->6 Y+; fwd 7->0 Z+; recv 5->6 X+, 7->0 Y+, 3->4 Z+ */
            {1, 1, 1, 1, 1, 1, 1},
            /* 5: 5->6 X+; recv 4->5 X+ */
            {1, 0, 0, 1, 0, 0, 2},
            /* 6: 6->7 X+; fwd 7->0 Y+; recv 5->6 Y+, 7->0 X+ */
            {1, 1, 0, 1, 1, 0, 1},
            /* 7: 7->0 X+; recv 6->7 X+ */
            {1, 0, 0, 1, 0, 0, 3},
        };
        for (r = 0; r < 8; r++) {
            const uint64_t *n = c + r * HPM_NET_COUNTERS;
            uint64_t recv_links = want[r][3] + want[r][4] + want[r][5];
            CHECK(n[HPM_NET_PACKETS_SENT + XP] == want[r][0] * P, "node %u X+ packets sent %llu",
                  r, (unsigned long long)n[HPM_NET_PACKETS_SENT + XP]);
            CHECK(n[HPM_NET_PACKETS_SENT + YP] == want[r][1] * P, "node %u Y+ packets sent", r);
            CHECK(n[HPM_NET_PACKETS_SENT + ZP] == want[r][2] * P, "node %u Z+ packets sent", r);
            CHECK(n[HPM_NET_PACKETS_RECV + XP] == want[r][3] * P, "node %u X+ packets recv", r);
            CHECK(n[HPM_NET_PACKETS_RECV + YP] == want[r][4] * P, "node %u Y+ packets recv", r);
            CHECK(n[HPM_NET_PACKETS_RECV + ZP] == want[r][5] * P, "node %u Z+ packets recv", r);
            CHECK(n[HPM_NET_BYTES_SENT + XP] == want[r][0] * BY &&
                      n[HPM_NET_BYTES_SENT + YP] == want[r][1] * BY &&
                      n[HPM_NET_BYTES_SENT + ZP] == want[r][2] * BY,
                  "node %u bytes sent", r);
            CHECK(n[HPM_NET_BYTES_RECV] == recv_links * BY, "node %u bytes recv", r);
            CHECK(n[HPM_NET_HOPS] == want[r][6] * P, "node %u hops %llu", r,
                  (unsigned long long)n[HPM_NET_HOPS]);
            /* nothing goes the minus way on rings of 2 */
            for (i = 0; i < HPM_TORUS_DIRS; i += 2)
                CHECK(n[HPM_NET_PACKETS_SENT + i + 1] == 0 && n[HPM_NET_PACKETS_RECV + i + 1] == 0,
                      "node %u minus links", r);
        }
    }

    /* A ring of 8 in X: 0 -> 6 goes two hops the minus way (6 = -2 mod 8),
     * 0 -> 4 (a tie) four hops the plus way. */
    {
        struct hpm_torus_params line = {8, 1, 1, "XYZ", 32, 1, 0, 0};
        static uint64_t d[8 * HPM_NET_COUNTERS];
        CHECK(hpm_torus_route(&line, 0, 6, 1, 10, d) == 2, "0->6: 2 hops");
        CHECK(d[0 * HPM_NET_COUNTERS + HPM_NET_PACKETS_SENT + XM] == 1 &&
                  d[7 * HPM_NET_COUNTERS + HPM_NET_PACKETS_RECV + XM] == 1 &&
                  d[7 * HPM_NET_COUNTERS + HPM_NET_PACKETS_SENT + XM] == 1 &&
                  d[6 * HPM_NET_COUNTERS + HPM_NET_PACKETS_RECV + XM] == 1,
              "0->6 goes X- through 7");
        CHECK(hpm_torus_route(&line, 0, 4, 1, 10, d) == 4, "0->4: a tie, 4 hops plus");
        CHECK(d[3 * HPM_NET_COUNTERS + HPM_NET_PACKETS_SENT + XP] == 1, "0->4 through 3 X+");
        CHECK(hpm_torus_route(&line, 3, 3, 1, 10, d) == 0, "to itself: no hop");
    }
    /* mappings */
    {
        struct hpm_torus_params zyx = {2, 3, 4, "ZYX", 256, 1, 0, 0},
                                bad = {2, 2, 2, "XYX", 256, 1, 0, 0};
        hpm_torus_coords(&zyx, 1, xyz);
        CHECK(xyz[0] == 0 && xyz[1] == 0 && xyz[2] == 1, "ZYX: Z fastest");
        hpm_torus_coords(&zyx, 4, xyz);
        CHECK(xyz[0] == 0 && xyz[1] == 1 && xyz[2] == 0, "ZYX: then Y");
        CHECK(hpm_torus_check(&bad) != 0, "XYX is no mapping");
        bad.mapping[2] = 'Z';
        bad.y = 0;
        CHECK(hpm_torus_check(&bad) != 0, "a zero dimension");
    }
    /* the shape of a job's torus: the most nearly cubic, largest first */
    {
        static const uint32_t want[][4] = {
            {1, 1, 1, 1},   {2, 2, 1, 1},   {3, 3, 1, 1},     {4, 2, 2, 1},  {6, 3, 2, 1},
            {8, 2, 2, 2},   {12, 3, 2, 2},  {16, 4, 2, 2},    {32, 4, 4, 2}, {64, 4, 4, 4},
            {128, 8, 4, 4}, {512, 8, 8, 8}, {1024, 16, 8, 8}, {7, 7, 1, 1},  {100000, 50, 50, 40},
        };
        struct hpm_torus_params sh = {0, 0, 0, "XYZ", 256, 1, 0, 1};
        for (i = 0; i < sizeof want / sizeof want[0]; i++) {
            CHECK(hpm_torus_shape(&sh, want[i][0]) == 0 && sh.x == want[i][1] &&
                      sh.y == want[i][2] && sh.z == want[i][3] && hpm_torus_check(&sh) == 0,
                  "%u nodes: %ux%ux%u, want %ux%ux%u", want[i][0], sh.x, sh.y, sh.z,
                  want[i][1], want[i][2], want[i][3]);
        }
        CHECK(hpm_torus_shape(&sh, 0) != 0 && hpm_torus_shape(&sh, (1u << 20) + 1) != 0,
              "0 nodes and more than 2^20 have no shape");
    }
    if (failures)
        return 1;
    printf("torus: ok\n");
    return 0;
}
