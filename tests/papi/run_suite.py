#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Build and run PAPI's own test suite (Debian's papi-examples) against a PAPI.

  run_suite.py build --source DIR --dir BUILD [--label L] [--jobs N] -- CMAKE_ARGS...
      Configure (when the arguments changed) and build the suite project
      tests/papi/suite into BUILD, keeping going past tests that do not
      compile or link, and delete what failed, so that no stale binary runs.
      Prints one summary line; exits 0 unless --strict (a PAPI under
      construction must not break hpm's build: its gaps show up as NOTBUILT).

  run_suite.py run --dir BUILD --results FILE [options]
      Run every test in BUILD/manifest.tsv as PAPI's run_tests.sh does
      (./ctests/NAME TESTS_QUIET from a folder laid out like PAPI's tree,
      TESTS_QUIET set, PATH=./ctests:$PATH), each under the run prefix with a
      timeout; classify each as PASSED, FAILED, SKIPPED, CRASHED, TIMEOUT or
      NOTBUILT; print one line per test and the totals; write FILE (TSV) and
      each test's output under FILE's folder in logs-LABEL/.

  run_suite.py compare OURS.tsv REFERENCE.tsv
      Print the totals side by side and the tests whose status differs.

Classification (testlib/test_utils.c and ftests_util.F): test_pass prints
PASSED (or "PASSED with WARNING") and exits 0; test_skip prints SKIPPED and
exits 0; test_fail prints FAILED and exits 1; the Fortran ftest_fail prints
"FILE  FAILED" and stops with status 0, so the output decides before the
status does. A test killed by a signal (or, under a prefix that reports a
signal death as 128+N, exiting so) CRASHED; one still running at the timeout
(its whole process group is killed) is TIMEOUT; any other non-zero status, or
status 0 with no PASSED/SKIPPED line, is FAILED.
"""

import argparse
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

STATUSES = ["PASSED", "FAILED", "SKIPPED", "CRASHED", "TIMEOUT", "NOTBUILT"]
# Leading boundary only: the Fortran verdict is written with format
# (a,t41,a), so after a source path longer than 40 columns (CMake compiles
# absolute paths) " PASSED" lands inside the path: "/.../ftest PASSEDst.F".
MARKER = re.compile(r"\b(PASSED|FAILED|SKIPPED)")
# Some tests (the SDE ones) colour their verdict whatever stdout is.
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# The folders of PAPI's tree a test may reach by relative path (exec_overflow
# runs ./ctests/child_overflow, attach2 puts ./ on PATH and runs attach_target
# from ./ctests, system_overflow runs ./ctests/burn).
TREE_DIRS = ["ctests", "validation_tests", "ftests", "components", "testlib"]
BOILERPLATE = ("Some tests require special hardware", "or library versions.",
               "system without the particular feature")


# --------------------------------------------------------------------------
# manifest

def read_manifest(build_dir):
    """[(name, path or None, target, note)] in manifest order; helpers left out."""
    path = os.path.join(build_dir, "manifest.tsv")
    tests = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            while len(fields) < 5:
                fields.append("")
            name, exe, target, note, deps = fields[:5]
            tests.append({"name": name, "path": None if exe == "-" else exe,
                          "target": target, "note": note,
                          "deps": [d for d in deps.split(",") if d]})
    return tests


# --------------------------------------------------------------------------
# build

def cmd_build(args):
    os.makedirs(args.dir, exist_ok=True)
    cmake = args.cmake
    cfg_args = [a for a in args.cmake_args if a != "--"]
    stamp = os.path.join(args.dir, "configure-args.json")
    want = {"source": os.path.abspath(args.source), "args": cfg_args}
    have = None
    if os.path.exists(stamp) and os.path.exists(os.path.join(args.dir, "CMakeCache.txt")):
        with open(stamp) as f:
            try:
                have = json.load(f)
            except ValueError:
                have = None
    log_path = os.path.join(args.dir, "build.log")
    env = dict(os.environ)
    # The outer make's jobserver is not passed down to a custom command; a
    # nested make that inherits MAKEFLAGS would fall back to -j1 with a
    # warning. The nested build gets its own -j.
    for k in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):
        env.pop(k, None)
    with open(log_path, "w") as log:
        if have != want:
            # A changed generator needs a fresh folder; anything else reconfigures.
            cache = os.path.join(args.dir, "CMakeCache.txt")
            if have is None or have.get("args") != cfg_args:
                if os.path.exists(cache):
                    os.remove(cache)
                shutil.rmtree(os.path.join(args.dir, "CMakeFiles"), ignore_errors=True)
            r = subprocess.run([cmake, "-S", args.source, "-B", args.dir] + cfg_args,
                               stdout=log, stderr=subprocess.STDOUT, env=env)
            if r.returncode != 0:
                print("papi suite [%s]: configure FAILED (see %s)" % (args.label, log_path))
                if os.path.exists(stamp):
                    os.remove(stamp)
                return 1 if args.strict else 0
            with open(stamp, "w") as f:
                json.dump(want, f)
        gen = ""
        with open(os.path.join(args.dir, "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith("CMAKE_GENERATOR:"):
                    gen = line.split("=", 1)[1].strip()
        keep_going = ["-k", "0"] if gen.startswith("Ninja") else ["-k"]
        start = len(open(log_path).read())
        log.flush()
        r = subprocess.run([cmake, "--build", args.dir, "-j", str(args.jobs), "--"] + keep_going,
                           stdout=log, stderr=subprocess.STDOUT, env=env)
    with open(log_path) as f:
        out = f.read()[start:]
    failed = set()
    if r.returncode != 0:
        for line in out.splitlines():
            if line.startswith("FAILED:") or (line.startswith("make") and "***" in line):
                m = re.search(r"CMakeFiles/([^/\s]+)\.dir/", line)
                if m:
                    failed.add(m.group(1))
    tests = read_manifest(args.dir)
    # A test fails to build when its own target, or a helper it links (testlib,
    # an object set, an SDE library), failed: delete its binary either way.
    broken = []
    for t in tests:
        if not t["path"]:
            continue
        if t["target"] in failed or failed.intersection(t["deps"]):
            broken.append(t)
            if os.path.exists(t["path"]):
                os.remove(t["path"])
    # Helpers (burn, attach_target) that failed go too.
    for t in tests:
        if t["note"] == "HELPER" and t["target"] in failed and t["path"] and os.path.exists(t["path"]):
            os.remove(t["path"])
    real = [t for t in tests if t["note"] != "HELPER"]
    built = [t for t in real if t["path"] and os.path.exists(t["path"])]
    unbuildable = [t for t in real if not t["path"]]
    msg = "papi suite [%s]: %d of %d tests built" % (args.label, len(built), len(real))
    if unbuildable:
        msg += ", %d not buildable here" % len(unbuildable)
    if r.returncode != 0:
        msg += ", %d failed to build (see %s)" % (len(real) - len(built) - len(unbuildable), log_path)
    print(msg)
    if broken and args.verbose:
        for t in broken:
            print("  not built: %s" % t["name"])
    if r.returncode != 0 and not failed:
        # The build failed but no target could be named: say so loudly.
        print("papi suite [%s]: build FAILED outside any test (see %s)" % (args.label, log_path))
        return 1 if args.strict else 0
    return 1 if (args.strict and r.returncode != 0) else 0


# --------------------------------------------------------------------------
# run

def resolve_prefix(spec, hpm):
    """The run prefix as an argv list, and a description of it."""
    spec = (spec or "").strip()
    if spec in ("", "none"):
        return [], "none (native)"
    if spec == "auto":
        # the tests run in folders of their own: a relative path would not hold
        hpm = os.path.abspath(hpm) if hpm else hpm
        if hpm and os.access(hpm, os.X_OK):
            probe = [hpm, "run", "--", "/bin/true"]
            try:
                r = subprocess.run(probe, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   timeout=300)
                if r.returncode == 0:
                    return [hpm, "run", "--"], "%s run -- (auto)" % hpm
            except (OSError, subprocess.TimeoutExpired):
                pass
            return [], "none (auto: '%s run' not working yet)" % hpm
        return [], "none (auto: no hpm)"
    argv = shlex.split(spec)
    return argv, " ".join(argv)


def make_workdir(root, suite_dir, name):
    """A fresh folder laid out like PAPI's tree (links to the built folders)."""
    wd = os.path.join(root, name.replace("/", "__"))
    shutil.rmtree(wd, ignore_errors=True)
    os.makedirs(wd)
    for d in TREE_DIRS:
        src = os.path.join(suite_dir, d)
        if os.path.isdir(src):
            os.symlink(src, os.path.join(wd, d))
    return wd


def first_lines(text, n=3):
    return [l.strip() for l in text.splitlines() if l.strip()][:n]


def skip_context(lines):
    """The line before a SKIPPED verdict, and the one after (ftest_skip and
    timer_overflow print their reason after it), less the "Line #" lines."""
    useful = [l.strip() for l in lines
              if l.strip() and not l.strip().startswith("Line #")]
    for i, l in enumerate(useful):
        if "SKIPPED" in l:
            # (the Fortran verdict line names the source file: not a reason)
            return useful[max(0, i - 1):i] + useful[i + 1:i + 2]
    return []


def reason_for(status, out, err, rc, timeout):
    lines = [l.rstrip() for l in out.splitlines()]
    errs = [l.strip() for l in err.splitlines() if l.strip()]
    papi_errs = [l for l in errs if "PAPI Error" in l or "Error" in l or "error" in l]
    if status == "FAILED":
        for i, l in enumerate(lines):
            if MARKER.search(l) and "FAILED" in l:
                rest = [x.strip() for x in lines[i + 1:i + 6]
                        if x.strip() and not x.strip().startswith(BOILERPLATE)]
                # the Fortran ftest_fail prints the file name with FAILED
                head = l.replace("FAILED!!!", "").replace("FAILED", "").strip()
                if head.startswith("/"):
                    head = ""  # the Fortran verdict's source path
                parts = ([head] if head else []) + rest[:3]
                if papi_errs:
                    parts.append(papi_errs[-1])
                return "; ".join(parts) or "FAILED"
        tail = [l.strip() for l in lines if l.strip()] + errs
        return "exit status %d%s" % (rc, (": " + tail[-1]) if tail else " without PASSED/SKIPPED")
    if status == "SKIPPED":
        return "; ".join(skip_context(lines) + papi_errs[-1:])
    if status == "CRASHED":
        sig = -rc if rc < 0 else rc - 128
        try:
            signame = signal.Signals(sig).name
        except ValueError:
            signame = "signal %d" % sig
        tail = [l.strip() for l in lines if l.strip()] + errs
        return "%s%s" % (signame, (": " + tail[-1]) if tail else "")
    if status == "TIMEOUT":
        tail = [l.strip() for l in lines if l.strip()] + errs
        return "still running after %ds%s" % (timeout, (": " + tail[-1]) if tail else "")
    return ""


def classify(rc, out, timed_out, prefixed):
    if timed_out:
        return "TIMEOUT"
    if rc < 0 or (prefixed and 128 < rc <= 128 + 64):
        return "CRASHED"
    markers = MARKER.findall(out)
    if "FAILED" in markers:
        return "FAILED"
    if rc != 0:
        return "FAILED"
    if markers:
        return markers[-1]
    return "FAILED"


# The process groups of the tests running now, and whether the run is
# being stopped: a run stopped by a signal (ctest's interrupt, a user's ^C,
# a kill) ends its tests' groups, starts no more and removes its TMPDIR, so
# that nothing of it is left running or lying in /tmp (stop_on_signal).
RUNNING_GROUPS = set()
GROUPS_LOCK = threading.Lock()
STOPPING = threading.Event()


def kill_groups(sig):
    with GROUPS_LOCK:
        pids = list(RUNNING_GROUPS)
    for pid in pids:
        try:
            os.killpg(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def stop_on_signal(signum, _frame):
    """SIGTERM to every test's group (hpm, given it, writes what it counted
    and removes its files), SIGKILL to what is left 10 s later; the run then
    ends as the signal would have ended it (128 + N) once the groups are
    gone, through cmd_run's cleanup."""
    STOPPING.set()
    kill_groups(signal.SIGTERM)
    later = threading.Timer(10, kill_groups, args=(signal.SIGKILL,))
    later.daemon = True
    later.start()
    raise SystemExit(128 + signum)


def run_group(argv, cwd, env, out_path, err_path, timeout):
    """Run argv in a session of its own; (exit status, timed out). At the
    timeout the whole group gets SIGTERM, then SIGKILL; whatever the program
    left running in its group (forked children, attach targets) goes too.
    Once the run is stopping, nothing more starts (-SIGTERM, as if killed)."""
    if STOPPING.is_set():
        return -signal.SIGTERM, False
    with open(out_path, "wb") as fo, open(err_path, "wb") as fe:
        with GROUPS_LOCK:
            p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                 stdout=fo, stderr=fe, start_new_session=True)
            RUNNING_GROUPS.add(p.pid)
        try:
            return run_group_wait(p, timeout)
        finally:
            with GROUPS_LOCK:
                RUNNING_GROUPS.discard(p.pid)


def run_group_wait(p, timeout):
    """run_group's wait for p, the leader of its group."""
    timed_out = False
    try:
        rc = p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            rc = p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            rc = p.wait()
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    return rc, timed_out


def run_one(test, opts):
    name = test["name"]
    if not test["path"] or not os.path.exists(test["path"]):
        why = test["note"].replace("NOTBUILT: ", "") if test["note"] else \
            "did not build (see build.log)"
        return {"name": name, "status": "NOTBUILT", "seconds": 0.0, "reason": why}
    wd = make_workdir(opts.work_root, opts.suite_dir, name)
    rel = "./" + os.path.relpath(test["path"], opts.suite_dir)
    argv = opts.prefix + [rel, "TESTS_QUIET"]
    env = dict(os.environ)
    env["TESTS_QUIET"] = "TESTS_QUIET"
    env["TESTS_COLOR"] = "n"
    env["PATH"] = "./ctests:" + env.get("PATH", "/usr/bin:/bin")
    env["TMPDIR"] = opts.tmp
    out_path = os.path.join(wd, "stdout.txt")
    err_path = os.path.join(wd, "stderr.txt")
    t0 = time.monotonic()
    rc, timed_out = run_group(argv, wd, env, out_path, err_path, opts.timeout)
    secs = time.monotonic() - t0
    with open(out_path, errors="replace") as f:
        out = ANSI.sub("", f.read())
    with open(err_path, errors="replace") as f:
        err = ANSI.sub("", f.read())
    status = classify(rc, out, timed_out, bool(opts.prefix))
    reason = "" if status == "PASSED" else reason_for(status, out, err, rc, opts.timeout)
    if status == "SKIPPED" and not reason and opts.explain:
        # Quiet, test_skip says only SKIPPED: run it once more without
        # TESTS_QUIET for the line that says why.
        reason = explain_skip(opts, wd, rel, env)
    reason = re.sub(r"\s+", " ", reason)[:200]
    log = os.path.join(opts.log_dir, name.replace("/", "__") + ".log")
    with open(log, "w") as f:
        f.write("# %s\n# argv: %s\n# cwd: %s\n# exit: %s%s\n# status: %s  %s\n" % (
            name, " ".join(argv), wd, rc, " (timeout)" if timed_out else "", status, reason))
        f.write("== stdout\n%s\n== stderr\n%s" % (out, err))
    return {"name": name, "status": status, "seconds": secs, "reason": reason, "rc": rc}


def explain_skip(opts, wd, rel, env):
    env = dict(env)
    env.pop("TESTS_QUIET", None)
    limit = min(opts.timeout, 60)
    out_path = os.path.join(wd, "explain.stdout.txt")
    err_path = os.path.join(wd, "explain.stderr.txt")
    rc, timed_out = run_group(opts.prefix + [rel], wd, env, out_path, err_path, limit)
    if timed_out:
        return "(not quiet: still running after %ds)" % limit
    with open(out_path, errors="replace") as f:
        out = ANSI.sub("", f.read())
    with open(err_path, errors="replace") as f:
        err = ANSI.sub("", f.read())
    lines = [l.rstrip() for l in out.splitlines()]
    errs = [l.strip() for l in err.splitlines() if "PAPI Error" in l]
    parts = skip_context(lines) + errs[-1:]
    return ("(not quiet) " + "; ".join(parts)) if parts else ""


def write_results(path, header, results):
    with open(path, "w") as f:
        for k, v in header.items():
            f.write("# %s: %s\n" % (k, v))
        f.write("name\tstatus\tseconds\treason\n")
        for r in results:
            f.write("%s\t%s\t%.2f\t%s\n" % (r["name"], r["status"], r["seconds"], r["reason"]))


def read_results(path):
    res = {}
    order = []
    meta = {}
    with open(path) as f:
        for line in f:
            if line.startswith("# "):
                k, _, v = line[2:].rstrip("\n").partition(": ")
                meta[k] = v
                continue
            if line.startswith("name\t") or not line.strip():
                continue
            name, status, secs, reason = (line.rstrip("\n").split("\t") + ["", "", ""])[:4]
            res[name] = (status, reason)
            order.append(name)
    return res, order, meta


def read_costs(path):
    """{name: seconds} from a results file (or any TSV of name, status,
    seconds); a missing file gives none."""
    costs = {}
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("#") or line.startswith("name\t") or not line.strip():
                    continue
                cols = line.rstrip("\n").split("\t")
                try:
                    costs[cols[0]] = float(cols[2])
                except (IndexError, ValueError):
                    continue
    except OSError:
        pass
    return costs


def totals(statuses):
    t = {s: 0 for s in STATUSES}
    for s in statuses:
        t[s] = t.get(s, 0) + 1
    return t


def print_compare(a_path, b_path, a_label=None, b_label=None):
    a, a_order, a_meta = read_results(a_path)
    b, b_order, b_meta = read_results(b_path)
    a_label = a_label or a_meta.get("label", "A")
    b_label = b_label or b_meta.get("label", "B")
    ta = totals(s for s, _ in a.values())
    tb = totals(s for s, _ in b.values())
    print("%-10s %10s %10s" % ("status", a_label, b_label))
    for s in STATUSES:
        print("%-10s %10d %10d" % (s, ta[s], tb[s]))
    print("%-10s %10d %10d" % ("total", len(a), len(b)))
    names = a_order + [n for n in b_order if n not in a]
    diff = [n for n in names if a.get(n, ("-", ""))[0] != b.get(n, ("-", ""))[0]]
    if diff:
        print("tests whose status differs (%s / %s):" % (a_label, b_label))
        for n in diff:
            print("  %-52s %-8s %-8s %s" % (n, a.get(n, ("-", ""))[0], b.get(n, ("-", ""))[0],
                                          a.get(n, ("", ""))[1]))


def cmd_run(args):
    suite_dir = os.path.abspath(args.dir)
    try:
        tests = read_manifest(suite_dir)
    except OSError as e:
        print("papi suite: no manifest in %s (%s): was the suite built?" % (suite_dir, e))
        return 1
    tests = [t for t in tests if t["note"] != "HELPER"]
    if args.only:
        rx = re.compile(args.only)
        tests = [t for t in tests if rx.search(t["name"])]
    if args.exclude:
        rx = re.compile(args.exclude)
        tests = [t for t in tests if not rx.search(t["name"])]
    if args.exclude_file:
        # PAPI's run_tests_exclude.txt: one name a line, # comments.
        with open(args.exclude_file) as f:
            names = {l.strip() for l in f if l.strip() and not l.startswith("#")}
        tests = [t for t in tests if t["name"] not in names]
    if args.costs:
        # Longest first, as ctest orders by its cost data: with N at a time,
        # a long test started last would run alone at the end. Tests the
        # file does not know go first (they may be long).
        costs = read_costs(args.costs)
        pos = {t["name"]: i for i, t in enumerate(tests)}
        tests.sort(key=lambda t: (t["name"] in costs, -costs.get(t["name"], 0.0), pos[t["name"]]))
    results_path = os.path.abspath(args.results)
    base = os.path.dirname(results_path)
    label = args.label
    prefix, prefix_desc = resolve_prefix(
        args.prefix if args.prefix is not None else os.environ.get("HPM_PAPI_RUN_PREFIX", "none"),
        args.hpm)

    class Opts:
        pass
    opts = Opts()
    opts.suite_dir = suite_dir
    opts.prefix = prefix
    opts.timeout = args.timeout
    opts.explain = args.explain
    opts.work_root = os.path.join(base, "work-" + label)
    opts.log_dir = os.path.join(base, "logs-" + label)
    shutil.rmtree(opts.work_root, ignore_errors=True)
    shutil.rmtree(opts.log_dir, ignore_errors=True)
    os.makedirs(opts.work_root)
    os.makedirs(opts.log_dir)
    # The tests' TMPDIR, removed at the end: what they leave there goes
    # with it (an MPI test run alone that ends before MPI_Finalize, such as
    # query_device_mpi, leaves Open MPI's session folder behind)
    opts.tmp = tempfile.mkdtemp(prefix="hpm-papi-suite.")

    print("papi suite [%s]: %d tests from %s" % (label, len(tests), suite_dir))
    print("papi suite [%s]: run prefix: %s; timeout %ds per test; %d at a time"
          % (label, prefix_desc, args.timeout, args.jobs))
    sys.stdout.flush()
    t0 = time.monotonic()
    results = {}
    lock = threading.Lock()

    def report(r):
        with lock:
            line = "%-56s %-8s %7.2fs" % (r["name"], r["status"], r["seconds"])
            if r["status"] != "PASSED" and r["reason"]:
                line += "  " + r["reason"]
            print(line)
            sys.stdout.flush()

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, stop_on_signal)
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
            futs = {ex.submit(run_one, t, opts): t for t in tests}
            for fut in concurrent.futures.as_completed(futs):
                r = fut.result()
                results[r["name"]] = r
                report(r)
    finally:
        shutil.rmtree(opts.tmp, ignore_errors=True)
    wall = time.monotonic() - t0
    ordered = [results[t["name"]] for t in tests]
    tot = totals(r["status"] for r in ordered)
    header = {"label": label, "suite": suite_dir, "prefix": prefix_desc,
              "timeout": args.timeout, "wall_seconds": "%.1f" % wall,
              "totals": " ".join("%s=%d" % (s, tot[s]) for s in STATUSES)}
    with open(os.path.join(suite_dir, "manifest.tsv")) as f:
        first = f.readline().lstrip("# ").strip()
    header["build"] = first
    write_results(results_path, header, ordered)
    print("papi suite [%s]: %s; %d tests in %.1fs; results in %s" % (
        label, ", ".join("%d %s" % (tot[s], s) for s in STATUSES), len(ordered), wall,
        results_path))
    if args.compare and os.path.exists(args.compare):
        print()
        print_compare(results_path, args.compare)
    elif args.compare:
        print("papi suite: no reference results at %s to compare with" % args.compare)
    if not args.check:
        return 0
    problems = []
    if tot["CRASHED"]:
        problems.append("%d CRASHED" % tot["CRASHED"])
    if tot["TIMEOUT"] and not args.timeouts_ok:
        problems.append("%d TIMEOUT" % tot["TIMEOUT"])
    if tot["PASSED"] < args.min_pass:
        problems.append("%d PASSED, below the threshold %d" % (tot["PASSED"], args.min_pass))
    if problems:
        print("papi suite [%s]: FAIL: %s" % (label, "; ".join(problems)))
        return 1
    print("papi suite [%s]: OK (%d PASSED, threshold %d, none crashed%s)"
          % (label, tot["PASSED"], args.min_pass,
             "" if not tot["TIMEOUT"] else
             "; %d over the %ds budget" % (tot["TIMEOUT"], args.timeout)))
    return 0


def cmd_compare(args):
    print_compare(args.ours, args.reference, args.ours_label, args.reference_label)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)

    b = sub.add_parser("build", help="configure and build the suite project")
    b.add_argument("--source", required=True, help="tests/papi/suite")
    b.add_argument("--dir", required=True, help="its build folder")
    b.add_argument("--label", default="papi")
    b.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    b.add_argument("--cmake", default="cmake")
    b.add_argument("--strict", action="store_true", help="fail when anything fails to build")
    b.add_argument("--verbose", action="store_true", help="name the tests that failed to build")
    b.add_argument("cmake_args", nargs=argparse.REMAINDER)

    r = sub.add_parser("run", help="run the built suite")
    r.add_argument("--dir", required=True, help="the suite's build folder (manifest.tsv)")
    r.add_argument("--results", required=True, help="results file (TSV)")
    r.add_argument("--label", default="papi")
    r.add_argument("--prefix", default=None,
                   help="command to run each test under: 'none', 'auto' (hpm run when it "
                        "works), or a command line; default $HPM_PAPI_RUN_PREFIX or none")
    r.add_argument("--hpm", default=None, help="the hpm command, for --prefix auto")
    r.add_argument("--timeout", type=int, default=300, help="seconds per test")
    r.add_argument("--jobs", type=int, default=1, help="tests run at once")
    r.add_argument("--only", help="regex: run only the tests whose name matches")
    r.add_argument("--exclude", help="regex: leave out the tests whose name matches")
    r.add_argument("--exclude-file",
                   help="leave out the tests a file names (PAPI's run_tests_exclude.txt)")
    r.add_argument("--explain", action="store_true",
                   help="re-run each SKIPPED test without TESTS_QUIET for its reason")
    r.add_argument("--check", action="store_true",
                   help="exit 1 if any test CRASHED or TIMEOUT, or fewer than --min-pass PASSED")
    r.add_argument("--min-pass", type=int, default=0)
    r.add_argument("--timeouts-ok", action="store_true",
                   help="with --check: a test still running at --timeout is reported, not a "
                        "failure (the budgeted run of make check: under the simulator some "
                        "tests need minutes)")
    r.add_argument("--compare", help="reference results file to print side by side")
    r.add_argument("--costs", help="a results file of an earlier full run: the tests start "
                                   "longest first by its seconds")

    c = sub.add_parser("compare", help="print two results files side by side")
    c.add_argument("ours")
    c.add_argument("reference")
    c.add_argument("--ours-label")
    c.add_argument("--reference-label")

    args = ap.parse_args()
    if args.cmd == "build":
        if args.cmake_args and args.cmake_args[0] == "--":
            args.cmake_args = args.cmake_args[1:]
        return cmd_build(args)
    if args.cmd == "run":
        return cmd_run(args)
    return cmd_compare(args)


if __name__ == "__main__":
    sys.exit(main())
