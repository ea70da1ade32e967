#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A callgrind-format profile with many loops (tests/profile/many_loops.sh,
fuzz/callgrind's corpus): function nest holds NESTED loops nested in one
another, function seq SEQ loops one after the other.

nest: headers 0..NESTED-1, one body instruction, then the latches from the
innermost out, each branching back to its header once and falling through
to the next latch out. seq: per loop a header, a body instruction and a
latch taken once of its two executions (trip 2).

    gen_loops.py NESTED SEQ > FILE
"""
import sys


def main():
    nested, seq = int(sys.argv[1]), int(sys.argv[2])
    out = sys.stdout.write
    out("# callgrind format\nversion: 1\ncreator: tests/profile/gen_loops.py\n"
        "positions: instr line\nevents: INSTRUCTIONS\n\nfl=(1) loops.c\n")
    if nested:
        out("fn=(1) nest\n")
        n, base = nested, 0x1000
        for i in range(n):
            out("0x%x %d %d\n" % (base + 4 * i, i + 1, n + 1))
        body = base + 4 * n
        out("0x%x %d %d\n" % (body, n + 1, n + 1))
        for j in range(n):
            site, header = body + 4 * (j + 1), base + 4 * (n - 1 - j)
            out("0x%x %d %d\n" % (site, n + 2 + j, n + 1 - j))
            out("jcnd=1/%d 0x%x %d\n0x%x %d\n" % (n + 1 - j, header, n - j, site, n + 2 + j))
    if seq:
        out("fn=(2) seq\n")
        base = 0x10000000
        for i in range(seq):
            h, line = base + 12 * i, 3 * i + 1
            out("0x%x %d 2\n0x%x %d 2\n0x%x %d 2\n" % (h, line, h + 4, line + 1, h + 8, line + 2))
            out("jcnd=1/2 0x%x %d\n0x%x %d\n" % (h, line, h + 8, line + 2))


main()
