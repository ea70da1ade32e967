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


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "exact":
        exact(*sys.argv[2:])
    elif cmd == "kinds":
        kinds(*sys.argv[2:])
    elif cmd == "throttled":
        throttled(*sys.argv[2:])
    else:
        fail("unknown check " + cmd)
