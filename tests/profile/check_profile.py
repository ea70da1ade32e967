#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""check_profile.py - reads a callgrind-format profile as callgrind's own
tools do (independently of hpm's reader) for profile_test.sh.

  check_profile.py sums PROFILE [COUNT_JSON]
      every event's cost lines add up to the summary line exactly, and
      (with COUNT_JSON, an hpm count --json report) the summary equals the
      report's totals
  check_profile.py topline PROFILE EVENT FILE_SUFFIX LINE MIN_SHARE
      the source line with the most EVENT is FILE_SUFFIX:LINE and holds at
      least MIN_SHARE of the total
  check_profile.py calls PROFILE CALLER CALLEE COUNT
      the calls from CALLER to CALLEE add up to COUNT, and their inclusive
      INSTRUCTIONS equal CALLEE's own when CALLEE calls nothing
  check_profile.py self PROFILE FUNCTION EVENT VALUE
      FUNCTION's self cost of EVENT is VALUE
  check_profile.py line PROFILE FILE_SUFFIX LINE EVENT VALUE
      the cost of EVENT on source line FILE_SUFFIX:LINE is VALUE
  check_profile.py selfof PROFILE FUNCTION EVENT
      prints FUNCTION's self cost of EVENT
  check_profile.py recursive PROFILE FUNCTION CALLS
      FUNCTION, which calls only itself, is called CALLS times in all, and
      the costs of the calls to it add up to its self cost (each outermost
      call counted once, the recursive ones inside it)
  check_profile.py entry PROFILE FUNCTION
      prints FUNCTION's first address as callgrind names code without a
      symbol (0x and 16 hex digits)
  check_profile.py sameself PROFILE FUNCTION PROFILE2 FUNCTION2 EVENTS
      FUNCTION's self costs in PROFILE are FUNCTION2's in PROFILE2 in each
      of EVENTS (a comma-separated list)
"""
import json
import sys


def parse(path):
    names = {"ob": {}, "fl": {}, "fn": {}}
    space = {"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl",
             "cfl": "fl", "fn": "fn", "cfn": "fn", "jfi": "fl", "jfn": "fn"}
    events, summary = [], None
    fn, file_, cfn = None, None, None
    self_cost, line_cost, calls, entry = {}, {}, [], {}
    pending = None
    npos = 1
    for raw in open(path):
        line = raw.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        if line[0].isdigit() or line[0] in "+-*":
            f = line.split()
            pos, vals = f[:npos], [int(x) for x in f[npos:]]
            vals += [0] * (len(events) - len(vals))
            lineno = int(pos[-1], 0)
            if pending is not None:
                calls.append((fn, cfn, pending, vals))
                pending = None
                continue
            if npos == 2 and pos[0].startswith("0x"):
                a = int(pos[0], 16)
                entry[fn] = min(entry.get(fn, a), a)
            acc = self_cost.setdefault(fn, [0] * len(events))
            lc = line_cost.setdefault((file_, lineno), [0] * len(events))
            for i, v in enumerate(vals):
                acc[i] += v
                lc[i] += v
            continue
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("positions:"):
            npos = len(line.split()) - 1
        elif line.startswith("summary:"):
            summary = [int(x) for x in line.split()[1:]]
            summary += [0] * (len(events) - len(summary))
        elif line.startswith("calls="):
            pending = int(line[6:].split()[0])
        elif "=" in line.split()[0]:
            key, rest = line.split("=", 1)
            if key not in space:
                continue
            ns = names[space[key]]
            if rest.startswith("("):
                ident, _, name = rest.partition(")")
                name = name.strip()
                if name:
                    ns[ident] = name
                else:
                    name = ns[ident]
            else:
                name = rest
            if key == "fn":
                fn = name
            elif key == "cfn":
                cfn = name
            elif key in ("fl", "fi", "fe"):
                file_ = name
    return events, summary, self_cost, line_cost, calls, entry


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    events, summary, self_cost, line_cost, calls, entry = parse(path)
    if cmd == "sums":
        total = [0] * len(events)
        for v in self_cost.values():
            for i, x in enumerate(v):
                total[i] += x
        for i, e in enumerate(events):
            if total[i] != summary[i] and summary[i] is not None:
                fail("%s: cost lines add up to %d, the summary says %d" % (e, total[i], summary[i]))
        if len(sys.argv) > 3:
            rep = json.load(open(sys.argv[3]))
            counts = {r["name"]: r["count"] for r in rep["events"]}
            for i, e in enumerate(events):
                if e not in counts:
                    fail("%s is not in hpm count's report" % e)
                if counts[e] != summary[i]:
                    fail("%s: profile total %d, hpm count %d" % (e, summary[i], counts[e]))
        print("ok: %d events add up exactly" % len(events))
    elif cmd == "topline":
        ev, suffix, want, share = sys.argv[3], sys.argv[4], int(sys.argv[5]), float(sys.argv[6])
        k = events.index(ev)
        (f, l), v = max(line_cost.items(), key=lambda kv: kv[1][k])
        if not (f or "").endswith(suffix) or l != want:
            fail("top %s line is %s:%d, expected %s:%d" % (ev, f, l, suffix, want))
        if v[k] < share * summary[k]:
            fail("%s:%d has %d of %d %s" % (f, l, v[k], summary[k], ev))
        print("ok: %s:%d has %d of %d %s" % (f, l, v[k], summary[k], ev))
    elif cmd == "calls":
        caller, callee, want = sys.argv[3], sys.argv[4], int(sys.argv[5])
        got = sum(c[2] for c in calls if c[0] == caller and c[1] == callee)
        if got != want:
            fail("%s -> %s: %d calls, expected %d" % (caller, callee, got, want))
        k = events.index("INSTRUCTIONS")
        incl = sum(c[3][k] for c in calls if c[0] == caller and c[1] == callee)
        if not any(c[0] == callee for c in calls) and incl != self_cost[callee][k]:
            fail("%s -> %s: inclusive %d instructions, the callee's own %d"
                 % (caller, callee, incl, self_cost[callee][k]))
        print("ok: %s -> %s: %d calls, inclusive %d instructions" % (caller, callee, got, incl))
    elif cmd == "inclusive":
        # the inclusive EVENT of the calls from caller to callee is within
        # [lo, hi], and no call's inclusive cost exceeds the summary
        caller, callee, ev, lo, hi = sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]), int(sys.argv[7])
        k = events.index(ev)
        for c in calls:
            for i, e in enumerate(events):
                if c[3][i] > summary[i]:
                    fail("%s -> %s: inclusive %s %d, more than the total %d" % (c[0], c[1], e, c[3][i], summary[i]))
        sel = [c for c in calls if c[0] == caller and c[1] == callee]
        if not sel:
            fail("no call %s -> %s" % (caller, callee))
        incl = sum(c[3][k] for c in sel)
        if not lo <= incl <= hi:
            fail("%s -> %s: inclusive %s %d, expected %d to %d" % (caller, callee, ev, incl, lo, hi))
        print("ok: %s -> %s: inclusive %s %d" % (caller, callee, ev, incl))
    elif cmd == "self":
        fn, ev, want = sys.argv[3], sys.argv[4], int(sys.argv[5])
        got = self_cost.get(fn, [0] * len(events))[events.index(ev)]
        if got != want:
            fail("%s: self %s %d, expected %d" % (fn, ev, got, want))
        print("ok: %s self %s = %d" % (fn, ev, got))
    elif cmd == "line":
        suffix, want_line, ev, want = sys.argv[3], int(sys.argv[4]), sys.argv[5], int(sys.argv[6])
        k = events.index(ev)
        got = sum(v[k] for (f, l), v in line_cost.items() if (f or "").endswith(suffix) and l == want_line)
        if got != want:
            fail("%s:%d: %s %d, expected %d" % (suffix, want_line, ev, got, want))
        print("ok: %s:%d %s = %d" % (suffix, want_line, ev, got))
    elif cmd == "selfof":
        fn, ev = sys.argv[3], sys.argv[4]
        print(self_cost.get(fn, [0] * len(events))[events.index(ev)])
    elif cmd == "recursive":
        fn, want = sys.argv[3], int(sys.argv[4])
        got = sum(c[2] for c in calls if c[1] == fn)
        if got != want:
            fail("%s: %d calls, expected %d" % (fn, got, want))
        for k, e in enumerate(events):
            incl = sum(c[3][k] for c in calls if c[1] == fn)
            if incl != self_cost[fn][k] and e not in ("CYCLES", "NODE_CYCLES"):
                fail("%s: calls to it cost %d %s, its self cost is %d" % (fn, incl, e, self_cost[fn][k]))
        print("ok: %s: %d calls, inclusive = self" % (fn, got))
    elif cmd == "entry":
        # the name callgrind's format gives code without a symbol: its
        # function's first address (the lowest of its cost lines: a
        # function's entry runs whenever it is called)
        print("0x%016x" % entry[sys.argv[3]])
    elif cmd == "sameself":
        # fn of this file costs what fn2 of file2 does in the events given
        fn, path2, fn2, evs = sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6].split(",")
        ev2, _, self2, _, _, _ = parse(path2)
        if fn not in self_cost or fn2 not in self2:
            fail("no function %s in %s or %s in %s" % (fn, path, fn2, path2))
        for e in evs:
            a, b = self_cost[fn][events.index(e)], self2[fn2][ev2.index(e)]
            if a != b:
                fail("%s: %s %d, %s %d" % (e, fn, a, fn2, b))
        print("ok: %s and %s cost the same %s" % (fn, fn2, ",".join(evs)))
    else:
        fail("unknown check " + cmd)


main()
