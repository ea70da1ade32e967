#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Run a program that uses PAPI's high-level API and check the report it
leaves (src/papi_hl/papi_hl_output.c describes the format).

  hl_test.py --prog PROG --scenario S --work DIR [--events E1,E2]
             [--expect-events] [--arg A] [--runner 'CMD ARGS'] [--writer PATH]
             [--fortran]

--events sets PAPI_EVENTS (unset: the library's defaults); with
--expect-events every one of them must be in the report and counted in
every region. --runner runs PROG under a command (hpm run --). --writer
also feeds the report to PAPI's own papi_hl_output_writer, which must read
it. Exits 0 when everything holds, 1 with the reasons otherwise.
"""
import argparse
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

problems = []


def check(cond, msg):
    if not cond:
        problems.append(msg)
    return cond


def num(v):
    """A report value: a decimal string, or a dict of them (reads,
    instant statistics) whose total is region_value / avg."""
    if isinstance(v, dict):
        v = v.get("region_value", v.get("avg"))
    return int(v)


def reads(v):
    if not isinstance(v, dict):
        return []
    return [int(v["read_%d" % k]) for k in range(1, len(v)) if "read_%d" % k in v]


def load_report(work):
    files = glob.glob(os.path.join(work, "papi_hl_output", "*"))
    if not check(len(files) == 1, "expected one report file, found %s" % files):
        return None, None
    name = os.path.basename(files[0])
    check(re.fullmatch(r"rank_\d{6,}\.json", name), "report file name %s" % name)
    with open(files[0]) as f:
        text = f.read()
    try:
        return json.loads(text), int(name[5:-5])
    except ValueError as e:
        problems.append("report is not JSON (%s):\n%s" % (e, text[:2000]))
        return None, None


def check_structure(rep, expected, expect_events):
    for k in ("papi_version", "cpu_info", "max_cpu_rate_mhz", "min_cpu_rate_mhz",
              "event_definitions", "threads"):
        check(k in rep, "report lacks %s" % k)
    check(re.fullmatch(r"\d+\.\d+\.\d+\.\d+", rep.get("papi_version", "")),
          "papi_version %r" % rep.get("papi_version"))
    defs = rep.get("event_definitions", {})
    for name, d in defs.items():
        check(d.get("type") in ("delta", "instant"), "%s: type %r" % (name, d.get("type")))
        check(isinstance(d.get("component"), str) and d["component"],
              "%s: component %r" % (name, d.get("component")))
    if expect_events:
        for e in expected:
            check(e in defs, "event %s missing from event_definitions %s" % (e, list(defs)))
    regions = {}
    for tid, t in rep.get("threads", {}).items():
        check(re.fullmatch(r"\d+", tid), "thread key %r" % tid)
        ids = set(t.get("regions", {}))
        for rid, r in t.get("regions", {}).items():
            where = "thread %s region %s (%s)" % (tid, rid, r.get("name"))
            for k in ("name", "parent_region_id", "region_count", "cycles", "real_time_nsec"):
                check(k in r, "%s lacks %s" % (where, k))
            p = r.get("parent_region_id", "-1")
            check(p == "-1" or p in ids, "%s: parent %s not in the thread" % (where, p))
            check(num(r.get("region_count", 0)) >= 1, "%s: region_count" % where)
            check(num(r.get("cycles", 0)) > 0, "%s: cycles" % where)
            check(num(r.get("real_time_nsec", 0)) > 0, "%s: real_time_nsec" % where)
            for e in defs:
                if expect_events:
                    check(e in r, "%s lacks event %s" % (where, e))
                if e in r and defs[e]["type"] == "delta":
                    check(num(r[e]) >= 0, "%s: %s = %s" % (where, e, r[e]))
            for k, v in r.items():
                if isinstance(v, dict) and "region_value" in v:
                    rs = reads(v)
                    check(rs == sorted(rs) and (not rs or rs[-1] <= num(v)),
                          "%s: reads of %s not increasing up to the total: %s" % (where, k, v))
            regions.setdefault(tid, {})[rid] = r
    return regions


def by_name(tregions, name, parent=None):
    """The region of that name (and parent name) in one thread's regions."""
    for rid, r in tregions.items():
        if r["name"] != name:
            continue
        pid = r["parent_region_id"]
        pname = tregions[pid]["name"] if pid in tregions else None
        if parent is None and pid == "-1" or parent is not None and pname == parent:
            return r
    return None


def not_less(big, small, keys, what):
    for k in keys:
        if k in big and k in small:
            check(num(big[k]) >= num(small[k]),
                  "%s: %s %s < %s" % (what, k, big[k], small[k]))


def check_nested(regions, pid, defs):
    if not check(len(regions) == 1, "nested: expected 1 thread, got %d" % len(regions)):
        return
    tid, t = next(iter(regions.items()))
    check(int(tid) == pid, "nested: the main thread's key %s is not the pid %d" % (tid, pid))
    outer = by_name(t, "outer")
    inner = by_name(t, "inner", "outer")
    top_inner = by_name(t, "inner")
    a, b = by_name(t, "a"), by_name(t, "b", "a")
    esc = by_name(t, 'quote"back\\slash')
    for n, r in (("outer", outer), ("outer/inner", inner), ("inner", top_inner), ("a", a),
                 ("a/b", b), ("escaped name", esc)):
        check(r is not None, "nested: region %s missing" % n)
    if None in (outer, inner, top_inner, a, b):
        return
    check(num(outer["region_count"]) == 3, "outer count %s" % outer["region_count"])
    check(num(inner["region_count"]) == 6, "outer/inner count %s" % inner["region_count"])
    check(num(top_inner["region_count"]) == 1, "inner count %s" % top_inner["region_count"])
    keys = ["cycles", "real_time_nsec"] + [e for e in defs if defs[e]["type"] == "delta"]
    not_less(outer, inner, keys, "outer vs its inner regions")
    # Two reads per instance, each the time since the instance began.
    for k in keys:
        if k in outer:
            check(isinstance(outer[k], dict) and len(reads(outer[k])) == 2,
                  "outer %s should carry 2 reads: %s" % (k, outer[k]))
            check(not isinstance(inner.get(k), dict), "inner %s has reads" % k)


def check_threads(regions, pid):
    check(len(regions) == 5, "threads: expected 5 threads, got %d" % len(regions))
    workers = 0
    for tid, t in regions.items():
        if int(tid) == pid:
            m = by_name(t, "main")
            check(m is not None and num(m["region_count"]) == 1, "main thread's region main")
        else:
            w = by_name(t, "work")
            if check(w is not None, "thread %s has no region work" % tid):
                check(num(w["region_count"]) == 3, "thread %s: work count %s"
                      % (tid, w["region_count"]))
                workers += 1
    check(workers == 4, "threads: %d workers reported" % workers)


def check_stop(regions, defs, expect_events):
    t = next(iter(regions.values()), {})
    for n in ("before", "after"):
        r = by_name(t, n)
        if check(r is not None, "stop: region %s missing" % n):
            check(num(r["region_count"]) == 1, "stop: %s count" % n)
            if expect_events:
                for e in defs:
                    check(e in r and num(r[e]) > 0, "stop: %s not counted in %s" % (e, n))


def check_finalize(regions, out):
    t = next(iter(regions.values()), {})
    check("finalized" in out, "finalize: the program did not get past PAPI_hl_finalize")
    check(by_name(t, "only") is not None, "finalize: region only missing")
    check(by_name(t, "late") is None, "finalize: region late recorded after finalize")


def check_exact(regions, rep):
    """hl_prog's exact scenario on the virtual PMU: the two regions differ
    by the loop's 2 x 100000 instructions per instance, exactly, whatever
    the region calls themselves add; and each region's cycles are its
    nanoseconds at the report's clock rate (one clock reading per begin
    and per end: at most one cycle of rounding per reading)."""
    t = next(iter(regions.values()), {})
    short, long_ = by_name(t, "short"), by_name(t, "long")
    if not check(short is not None and long_ is not None, "exact: regions short and long"):
        return
    for r in (short, long_):
        check(num(r["region_count"]) == 3, "exact: %s count %s" % (r["name"], r["region_count"]))
    d = num(long_.get("PAPI_TOT_INS", 0)) - num(short.get("PAPI_TOT_INS", 0))
    check(d == 600000, "exact: PAPI_TOT_INS long - short = %d, not 600000 (%s, %s)"
          % (d, long_.get("PAPI_TOT_INS"), short.get("PAPI_TOT_INS")))
    check(num(short.get("perf::TASK-CLOCK", 0)) > 0, "exact: perf::TASK-CLOCK not counted")
    mhz = num(rep.get("max_cpu_rate_mhz", 0))
    for r in (short, long_):
        want = num(r["real_time_nsec"]) * mhz / 1000.0
        check(abs(num(r["cycles"]) - want) <= 2 * num(r["region_count"]),
              "exact: %s: %s cycles for %s ns at %s MHz"
              % (r["name"], r["cycles"], r["real_time_nsec"], mhz))


def check_shutdown(regions):
    t = next(iter(regions.values()), {})
    b = by_name(t, "before")
    check(b is not None and num(b["region_count"]) == 1, "shutdown: region before x1")
    check(by_name(t, "after") is None, "shutdown: region after recorded after PAPI_shutdown")


def check_fortran(regions):
    t = next(iter(regions.values()), {})
    r = by_name(t, "fortran_region")
    check(r is not None and num(r["region_count"]) == 2, "fortran: region fortran_region x2")


def run_writer(writer, work):
    # PAPI's writer assumes perf::TASK-CLOCK comes from PAPI's component
    # "perf_event" (it sums only that component's events over instances,
    # then reads the sum); a library whose perf component has another name
    # writes a valid report the writer cannot summarise. Feed it a copy
    # where that name is PAPI's, so that what is checked is the format.
    src = os.path.join(work, "papi_hl_output")
    copy = os.path.join(work, "writer_input")
    shutil.rmtree(copy, ignore_errors=True)
    os.makedirs(copy)
    for f in os.listdir(src):
        with open(os.path.join(src, f)) as fh:
            rep = json.load(fh)
        for name, d in rep.get("event_definitions", {}).items():
            if name.startswith("perf::"):
                d["component"] = "perf_event"
        with open(os.path.join(copy, f), "w") as fh:
            json.dump(rep, fh)
    for typ in ("summary", "detail"):
        p = subprocess.run([sys.executable, writer, "--source", copy, "--type", typ],
                           cwd=work, capture_output=True, text=True, timeout=120)
        if not check(p.returncode == 0, "papi_hl_output_writer --type %s failed:\n%s%s"
                     % (typ, p.stdout, p.stderr)):
            continue
        try:
            json.loads(p.stdout)
        except ValueError:
            problems.append("papi_hl_output_writer --type %s printed no JSON:\n%s"
                            % (typ, p.stdout[:2000]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prog", required=True)
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--events")
    ap.add_argument("--expect-events", action="store_true")
    ap.add_argument("--arg", default="")
    ap.add_argument("--runner", default="", help="command prefix, one string")
    ap.add_argument("--writer")
    ap.add_argument("--fortran", action="store_true")
    a = ap.parse_args()

    work = os.path.abspath(a.work)
    prog = os.path.abspath(a.prog) if os.sep in a.prog else a.prog
    shutil.rmtree(work, ignore_errors=True)
    # A measurement left by an earlier run: it must be kept, renamed.
    old = os.path.join(work, "papi_hl_output")
    os.makedirs(old)
    open(os.path.join(old, "old_marker"), "w").close()
    two_days_ago = time.time() - 2 * 86400
    os.utime(old, (two_days_ago, two_days_ago))

    env = dict(os.environ)
    env["PAPI_OUTPUT_DIRECTORY"] = work
    env.pop("PAPI_EVENTS", None)
    env.pop("PAPI_HL_VERBOSE", None)
    for v in ("OMPI_COMM_WORLD_RANK", "ALPS_APP_PE", "PMI_RANK", "SLURM_PROCID"):
        env.pop(v, None)
    if a.events is not None:
        env["PAPI_EVENTS"] = a.events
    report = a.scenario == "nested"
    if report:
        env["PAPI_REPORT"] = "1"
    cmd = shlex.split(a.runner) + [prog] + ([] if a.fortran else [a.scenario]) + ([a.arg] if a.arg else [])
    p = subprocess.run(cmd, env=env, cwd=work, capture_output=True, text=True, timeout=600)
    out = p.stdout
    if not check(p.returncode == 0 and "PASSED" in out,
                 "%s exited %d:\n%s%s" % (" ".join(cmd), p.returncode, out, p.stderr)):
        print("\n".join(problems))
        return 1

    moved = glob.glob(old + "-*")
    if check(len(moved) == 1, "the old papi_hl_output was not renamed once: %s" % moved):
        check(re.fullmatch(r"papi_hl_output-\d{8}-\d{6}", os.path.basename(moved[0])),
              "renamed to %s" % moved[0])
        check(os.path.exists(os.path.join(moved[0], "old_marker")), "old measurement lost")

    rep, pid = load_report(work)
    if rep is not None:
        expected = [e for e in (a.events or "").split(",") if e]
        defs = rep.get("event_definitions", {})
        regions = check_structure(rep, expected, a.expect_events)
        if a.fortran:
            check_fortran(regions)
        elif a.scenario == "nested":
            check_nested(regions, pid, defs)
        elif a.scenario == "threads":
            check_threads(regions, pid)
        elif a.scenario == "stop":
            check_stop(regions, defs, a.expect_events)
        elif a.scenario == "finalize":
            check_finalize(regions, out)
        elif a.scenario == "shutdown":
            check_shutdown(regions)
        elif a.scenario == "exact":
            check_exact(regions, rep)
        elif a.scenario == "utf8":
            # the bytes ff fe come back as U+00FF U+00FE: valid JSON, and
            # the name still tells which region it was
            names = [r.get("name") for t in regions.values() for r in t.values()]
            check('bad\u00ff\u00fe"name' in names, "utf8: region names %s" % names)
        if report:
            i = out.find("PAPI-HL Output:\n")
            if check(i >= 0, "PAPI_REPORT=1 printed no report"):
                try:
                    check(json.loads(out[i + 16:]) == rep, "PAPI_REPORT differs from the file")
                except ValueError:
                    problems.append("PAPI_REPORT output is not JSON")
        if a.writer and os.path.exists(a.writer):
            run_writer(a.writer, work)

    if problems:
        print("\n".join(problems))
        print("--- program output:\n" + out + p.stderr)
        return 1
    print("ok: %s" % a.scenario)
    return 0


if __name__ == "__main__":
    sys.exit(main())
