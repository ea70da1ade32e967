#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""check_record.py - checks of hpm record's samples against the program's
own addresses and the same run's counts (tests/record/record_test.sh).

  exact OUT ERR SCRIPT KIND PERIOD
    OUT: the program's stdout with hpm's report; ERR: hpm's stderr;
    SCRIPT: perf script -F event,ip,addr -G of the file.
    Every sample of KIND whose data address is in the array has the load's
    address as IP and vice versa; samples = floor(total / PERIOD) with the
    report's total; hpm's summary says the same.
  kinds OUT ERR
    every kind of hpm's summary: the sampler saw the report's total and
    took floor(total / PERIOD) samples (one thread).
  throttled OUT ERR SCRIPT KIND PERIOD LIMIT
    LIMIT samples kept, the others counted as throttled.
  insn OUT ERR SCRIPT DIS NM PERIOD
    INSTRUCTIONS samples (record_prog insn): every one in the loop is at
    one of its instructions (objdump's DIS, placed by NM), each PERIOD
    instructions after the one before it, and the loop holds
    K * ITERS / PERIOD of them (within one); floor(total / PERIOD) in all.
  branch OUT ERR SCRIPT DIS NM KIND
    mispredict samples (record_prog branch): in the loop, only at its
    conditional branch (a conditional jump in DIS) or its back edge (at
    most twice: the loop's end), and at the random branch at least a
    quarter of the iterations when KIND's period is 1.
  freq OUT ERR TIMES PERIOD NS
    -F samples (perf script -F time,event,ip --ns): CYCLES samples at
    exactly NS, 2 NS, ... (PERIOD cycles apart, from the first cycle),
    floor(CYCLES / PERIOD) of them.
"""
import re
import sys


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def prog_addrs(out):
    load = int(re.search(r"^rec_load_insn 0x([0-9a-f]+)$", out, re.M).group(1), 16)
    m = re.search(r"^array 0x([0-9a-f]+) 0x([0-9a-f]+)$", out, re.M)
    return load, int(m.group(1), 16), int(m.group(2), 16)


def report_total(out, kind):
    m = re.search(r"^ %s +(\d+) " % re.escape(kind), out, re.M)
    if not m:
        fail("no %s in the report:\n%s" % (kind, out))
    return int(m.group(1))


def summary(err, kind):
    m = re.search(r"^hpm:   %s +period (\d+) +events (\d+) +samples (\d+) +throttled (\d+)$"
                  % re.escape(kind), err, re.M)
    if not m:
        fail("no summary line for %s:\n%s" % (kind, err))
    return [int(x) for x in m.groups()]


def samples(script, kind):
    out = []
    for line in script.splitlines():
        f = line.split()
        if len(f) == 3 and f[0] == "hpm:%s:" % kind:
            out.append((int(f[2], 16), int(f[1], 16)))  # ip, addr
    return out


def exact(out_path, err_path, script_path, kind, period, in_array=None):
    out = open(out_path).read()
    err = open(err_path).read()
    script = open(script_path).read()
    period = int(period)
    load, lo, hi = prog_addrs(out)
    total = report_total(out, kind)
    p, seen, taken, thr = summary(err, kind)
    if p != period or seen != total:
        fail("%s: the sampler saw %d events, the report counts %d" % (kind, seen, total))
    if taken + thr != total // period or thr != 0:
        fail("%s: %d samples + %d throttled, expected floor(%d / %d) = %d"
             % (kind, taken, thr, total, period, total // period))
    s = samples(script, kind)
    if len(s) != taken:
        fail("%s: perf script shows %d samples, hpm wrote %d" % (kind, len(s), taken))
    at_load = [x for x in s if x[0] == load]
    in_arr = [x for x in s if lo <= x[1] < hi]
    if not at_load:
        fail("%s: no sample at the load %#x" % (kind, load))
    for ip, addr in at_load:
        if not lo <= addr < hi:
            fail("%s: sample at the load with data address %#x outside [%#x, %#x)"
                 % (kind, addr, lo, hi))
    for ip, addr in in_arr:
        if ip != load:
            fail("%s: sample in the array at IP %#x, not the load %#x" % (kind, ip, load))
    if in_array is not None and len(in_arr) != int(in_array):
        fail("%s: %d samples in the array, expected %s" % (kind, len(in_arr), in_array))
    print("ok: %s: %d samples (floor(%d/%d)), %d at the load %#x, all in the array"
          % (kind, taken, total, period, len(at_load), load))


def throttled(out_path, err_path, script_path, kind, period, limit):
    out = open(out_path).read()
    err = open(err_path).read()
    total = report_total(out, kind)
    p, seen, taken, thr = summary(err, kind)
    period, limit = int(period), int(limit)
    n = len(samples(open(script_path).read(), kind))
    if seen != total or taken + thr != total // period:
        fail("%s: %d + %d throttled != floor(%d / %d)" % (kind, taken, thr, total, period))
    if taken != limit or n != limit or thr == 0:
        fail("%s: %d samples written (%d in the file), %d throttled, limit %d"
             % (kind, taken, n, thr, limit))
    print("ok: %s: %d kept by the limit, %d throttled and counted" % (kind, taken, thr))


def kinds(out_path, err_path):
    out = open(out_path).read()
    err = open(err_path).read()
    lines = re.findall(r"^hpm:   (\w+) +period (\d+) +events (\d+) +samples (\d+) +throttled (\d+)$",
                       err, re.M)
    if not lines:
        fail("no summary:\n" + err)
    for kind, period, seen, taken, thr in lines:
        period, seen, taken, thr = int(period), int(seen), int(taken), int(thr)
        total = report_total(out, kind)
        if seen != total or total == 0:
            fail("%s: the sampler saw %d, the report counts %d" % (kind, seen, total))
        if taken + thr != total // period:
            fail("%s: %d samples + %d throttled != floor(%d / %d)" % (kind, taken, thr, total, period))
        print("ok: %s: %d events, %d samples" % (kind, total, taken))


def placed(out, nm_path, dis_path, label, start_label, end_label):
    """The program's runtime address of start_label (printed by it as
    label), and the instructions of [start_label, end_label) at runtime."""
    syms = {}
    for line in open(nm_path):
        f = line.split()
        if len(f) == 3:
            syms[f[2]] = int(f[0], 16)
    m = re.search(r"^%s (0x[0-9a-f]+)" % re.escape(label), out, re.M)
    if not m:
        fail("the program printed no %s:\n%s" % (label, out))
    base = int(m.group(1), 16) - syms[start_label]
    lo, hi = syms[start_label], syms[end_label]
    insns = []
    for line in open(dis_path):
        m = re.match(r"^ +([0-9a-f]+):\s+(\S+)", line)
        if m and lo <= int(m.group(1), 16) < hi:
            insns.append((int(m.group(1), 16) + base, m.group(2)))
    return base, syms, insns


def insn(out_path, err_path, script_path, dis_path, nm_path, period):
    out = open(out_path).read()
    err = open(err_path).read()
    period = int(period)
    total = report_total(out, "INSTRUCTIONS")
    p, seen, taken, thr = summary(err, "INSTRUCTIONS")
    if seen != total or taken != total // period or thr != 0:
        fail("INSTRUCTIONS: %d events, %d samples (%d throttled); report %d, floor = %d"
             % (seen, taken, thr, total, total // period))
    s = samples(open(script_path).read(), "INSTRUCTIONS")
    if len(s) != taken:
        fail("perf script shows %d samples, hpm wrote %d" % (len(s), taken))
    base, syms, insns = placed(out, nm_path, dis_path, "rec_insn_loop", "rec_insn_loop",
                               "rec_insn_end")
    iters = int(re.search(r"^rec_insn_loop \S+ \S+ (\d+)$", out, re.M).group(1))
    addrs = [a for a, _ in insns]
    k = len(addrs)
    if k != 5:
        fail("the loop has %d instructions in the disassembly, expected 5" % k)
    lo, hi = syms["rec_insn_loop"] + base, syms["rec_insn_end"] + base
    inloop = [i for i, (ip, _) in enumerate(s) if lo <= ip < hi]
    for i in inloop:
        if s[i][0] not in addrs:
            fail("sample at %#x: not an instruction of the loop %s" % (s[i][0], addrs))
    pairs = 0
    for i in inloop:
        if i + 1 in inloop:
            a, b = addrs.index(s[i][0]), addrs.index(s[i + 1][0])
            if b != (a + period) % k:
                fail("consecutive samples at loop instructions %d then %d, expected %d "
                     "(%d instructions later)" % (a, b, (a + period) % k, period))
            pairs += 1
    expect = k * iters / period
    if abs(len(inloop) - expect) >= 1:
        fail("%d samples in the loop, expected %.1f (%d x %d / %d)"
             % (len(inloop), expect, k, iters, period))
    seenpos = set(addrs.index(s[i][0]) for i in inloop)
    if len(seenpos) != k:
        fail("samples at only %d of the loop's %d instructions" % (len(seenpos), k))
    print("ok: INSTRUCTIONS: %d samples (floor(%d/%d)), %d in the loop (%.1f expected), "
          "%d consecutive pairs each %d instructions apart" % (taken, total, period,
                                                               len(inloop), expect, pairs, period))


def branch(out_path, err_path, script_path, dis_path, nm_path, kind):
    out = open(out_path).read()
    err = open(err_path).read()
    p, seen, taken, thr = summary(err, kind)
    s = samples(open(script_path).read(), kind)
    if len(s) != taken or thr != 0:
        fail("%s: perf script shows %d samples, hpm wrote %d (%d throttled)"
             % (kind, len(s), taken, thr))
    base, syms, insns = placed(out, nm_path, dis_path, "rec_br", "rec_br_loop", "rec_br_end")
    iters = int(re.search(r"^rec_br \S+ \S+ \S+ \S+ (\d+)$", out, re.M).group(1))
    lo, hi = syms["rec_br_loop"] + base, syms["rec_br_end"] + base
    br, back = syms["rec_br_insn"] + base, syms["rec_br_back"] + base
    mnem = dict(insns)
    if not (mnem.get(br, "").startswith("j") and mnem[br] != "jmp"):
        fail("rec_br_insn is %r in the disassembly, not a conditional jump" % mnem.get(br))
    at_br = at_back = 0
    for ip, _ in s:
        if not lo <= ip < hi:
            continue
        if ip == br:
            at_br += 1
        elif ip == back:
            at_back += 1
        else:
            fail("%s: sample at %#x (%s) in the loop, not at its branches %#x, %#x"
                 % (kind, ip, mnem.get(ip), br, back))
    if at_back > 2:
        fail("%s: %d samples at the back edge (it mispredicts at the loop's end only)"
             % (kind, at_back))
    if at_br * p < iters // 4:
        fail("%s: %d samples at the random branch, period %d, %d iterations"
             % (kind, at_br, p, iters))
    print("ok: %s: %d samples at the random branch %#x (%s), %d at the back edge"
          % (kind, at_br, br, mnem[br], at_back))


def fp(out_path, err_path, script_path, dis_path, nm_path):
    """Every FP sample in the fp loop is at the instruction that did the
    kind's work: FP_DP_128 at the packed add, FP_DP_SCALAR at the scalar
    multiply, FP_OPS and FP_INSTRUCTIONS at either; and the loop gets its
    share of each kind's samples (it does nearly all of the program's FP)."""
    out = open(out_path).read()
    err = open(err_path).read()
    script = open(script_path).read()
    base, syms, insns = placed(out, nm_path, dis_path, "rec_fp", "rec_fp_loop", "rec_fp_end")
    iters = int(re.search(r"^rec_fp \S+ \S+ \S+ \S+ (\d+)$", out, re.M).group(1))
    lo, hi = syms["rec_fp_loop"] + base, syms["rec_fp_end"] + base
    vec, mul = syms["rec_fp_vec"] + base, syms["rec_fp_mul"] + base
    mnem = dict(insns)
    if mnem.get(vec) != "addpd" or mnem.get(mul) != "mulsd":
        fail("rec_fp_vec / rec_fp_mul are %r / %r in the disassembly" % (mnem.get(vec), mnem.get(mul)))
    # kind: (the instructions it may be sampled at, its events per iteration)
    want = {"FP_DP_128": ({vec}, 2), "FP_DP_SCALAR": ({mul}, 1),
            "FP_OPS": ({vec, mul}, 3), "FP_INSTRUCTIONS": ({vec, mul}, 2)}
    for kind, (at, per_iter) in sorted(want.items()):
        p, seen, taken, thr = summary(err, kind)
        s = samples(script, kind)
        if len(s) != taken or thr != 0:
            fail("%s: perf script shows %d samples, hpm wrote %d (%d throttled)"
                 % (kind, len(s), taken, thr))
        inloop = [ip for ip, _ in s if lo <= ip < hi]
        for ip in inloop:
            if ip not in at:
                fail("%s: sample at %#x (%s) in the loop, not at %s"
                     % (kind, ip, mnem.get(ip), ", ".join("%#x" % a for a in sorted(at))))
        expect = iters * per_iter // p
        if len(inloop) < expect - 1:
            fail("%s: %d samples in the loop, expected at least %d (%d iterations x %d / %d)"
                 % (kind, len(inloop), expect - 1, iters, per_iter, p))
        print("ok: %s: %d samples, %d in the loop at %s" % (kind, taken, len(inloop),
                                                          ", ".join(mnem[a] for a in sorted(at))))


def freq(out_path, err_path, times_path, period, ns):
    out = open(out_path).read()
    err = open(err_path).read()
    period, ns = int(period), int(ns)
    total = report_total(out, "CYCLES")
    p, seen, taken, thr = summary(err, "CYCLES")
    if p != period or seen != total or taken + thr != total // period or thr != 0:
        fail("CYCLES: period %d, %d events, %d samples, %d throttled; report %d"
             % (p, seen, taken, thr, total))
    times = []
    for line in open(times_path):
        m = re.match(r"^\s*(\d+)\.(\d{9}):\s+hpm:CYCLES:", line)
        if m:
            times.append(int(m.group(1)) * 1000000000 + int(m.group(2)))
    if len(times) != taken:
        fail("perf script shows %d CYCLES samples, hpm wrote %d" % (len(times), taken))
    for i, t in enumerate(times):
        if t != (i + 1) * ns:
            fail("sample %d at %d ns, expected %d (every %d cycles)" % (i, t, (i + 1) * ns, period))
    print("ok: CYCLES: %d samples at exactly %d ns apart (%d cycles), floor(%d/%d)"
          % (taken, ns, period, total, period))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "exact":
        exact(*sys.argv[2:])
    elif cmd == "kinds":
        kinds(*sys.argv[2:])
    elif cmd == "throttled":
        throttled(*sys.argv[2:])
    elif cmd == "insn":
        insn(*sys.argv[2:])
    elif cmd == "branch":
        branch(*sys.argv[2:])
    elif cmd == "fp":
        fp(*sys.argv[2:])
    elif cmd == "freq":
        freq(*sys.argv[2:])
    else:
        fail("unknown check " + cmd)
