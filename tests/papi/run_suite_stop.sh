#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run_suite_stop.sh PYTHON - run_suite.py stopped by SIGTERM while its tests
# run (ctest's interrupt, a user's kill) leaves nothing behind: a fake suite
# of three tests that sleep with a child each, two at a time; once two run,
# the runner gets SIGTERM. It must exit 143, leave no test or child running,
# start no more tests and remove the tests' TMPDIR.
set -euo pipefail
PY=${1:-python3}
HERE=$(cd "$(dirname "$0")" && pwd)
D=$(mktemp -d)
RUNNER=
cleanup() {
  [ -n "$RUNNER" ] && kill -KILL "$RUNNER" 2>/dev/null || true
  # each test leads a process group of its own (run_group's session)
  for f in "$D"/pids.*; do
    [ -e "$f" ] && kill -KILL -- "-${f##*.}" 2>/dev/null || true
  done
  rm -rf "$D"
}
trap cleanup EXIT
fail() { echo "run_suite_stop: FAIL: $*" >&2; exit 1; }

mkdir -p "$D/suite/ctests" "$D/tmp"
cat >"$D/suite/ctests/sleeper" <<SH
#!/bin/sh
# marks its start and its TMPDIR, then sleeps with a child of its own
echo "\$TMPDIR" >"$D/tmpdir.\$\$"
touch "$D/started.\$(basename "\$PWD")"
sleep 300 &
echo "\$\$ \$!" >"$D/pids.\$\$"
sleep 300
SH
chmod +x "$D/suite/ctests/sleeper"
for n in 1 2 3; do
  ln -s sleeper "$D/suite/ctests/sleeper$n"
  printf 'ctests/sleeper%s\t%s\tt%s\t\t\n' "$n" "$D/suite/ctests/sleeper$n" "$n"
done >"$D/suite/manifest.tsv"

TMPDIR="$D/tmp" "$PY" "$HERE/run_suite.py" run --dir "$D/suite" --results "$D/results.tsv" \
  --jobs 2 --timeout 600 --prefix none >"$D/out.txt" 2>&1 &
RUNNER=$!
for _ in $(seq 200); do
  [ "$(ls "$D" | grep -c '^pids\.')" -ge 2 ] && break
  sleep 0.1
done
[ "$(ls "$D" | grep -c '^started\.')" -eq 2 ] || fail "two tests did not start: $(ls "$D")"
marks=("$D"/tmpdir.*)
suite_tmp=$(<"${marks[0]}")
[ -d "$suite_tmp" ] || fail "no TMPDIR $suite_tmp while the tests run"
case "$suite_tmp" in "$D/tmp/hpm-papi-suite."*) ;; *) fail "TMPDIR $suite_tmp not under \$TMPDIR" ;; esac

kill -TERM "$RUNNER"
rc=0
for _ in $(seq 300); do
  kill -0 "$RUNNER" 2>/dev/null || break
  sleep 0.1
done
kill -0 "$RUNNER" 2>/dev/null && fail "the runner still runs 30 s after SIGTERM"
wait "$RUNNER" || rc=$?
RUNNER=
[ "$rc" -eq 143 ] || { cat "$D/out.txt" >&2; fail "exit status $rc, not 143"; }
# gone, or a zombie that its new parent has not reaped yet
alive() { local st; st=$(ps -o stat= -p "$1" 2>/dev/null) && [ "${st#Z}" = "$st" ]; }
for pid in $(cat "$D"/pids.*); do
  ! alive "$pid" || fail "still running: $(ps -o pid=,args= -p "$pid")"
done
[ ! -e "$suite_tmp" ] || fail "the tests' TMPDIR $suite_tmp is still there"
[ ! -e "$D/started.ctests__sleeper3" ] || fail "a test started after the SIGTERM"
echo "run_suite_stop: exit 143, both tests and their children gone, TMPDIR removed, the third never started"
