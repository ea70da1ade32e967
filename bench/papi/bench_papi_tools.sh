#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench_papi_tools.sh [BUILD] - Debian's papi_cost and papi_multiplex_cost
# (papi-tools, unmodified binaries) under `hpm run` with our libpapi, each
# against its floor measured in the same run: papi_read_vpmu floor:R:C,
# what the tool's timed calls need at least, made directly (per loop
# iteration R count requests of the thread's kinds and C reads of the
# clock: one rdtsc each where the tool syncs the program's clock to the
# TSC, as libhpm reads it, else a clock request; the models on, as the
# tools' sets hold modeled events), as many times as the tool's loops run. Neither tool runs natively here with either
# library (no PMU: papi_cost needs PAPI_TOT_CYC, papi_multiplex_cost ten
# events of component 0), and Debian's libpapi counts nothing under
# Valgrind, so the floor is the peer: the ratio is what the library costs
# beyond them.
#
# Times are CPU seconds of the whole run (user + system of hpm, Valgrind
# and the program; on a shared machine wall time moves by half with the
# others' work, and on an idle one it is the CPU time: Valgrind runs one
# thread at a time), wall seconds beside them, each the least of
# BENCH_PAPI_TOOLS_REPS (3) runs, the tools' runs and their floors' taken
# in turn (a shared machine moves a single run's CPU time by 10-30%).
# Prints (lower is better):
#   ratio papi_cost_vs_floor VALUE
#   ratio papi_multiplex_cost_vs_floor VALUE
# and the goals at the tools' defaults, judged on CPU time (papi_cost
# <= 15 s, papi_multiplex_cost <= 120 s). papi_cost runs at its defaults
# (8 timed loops of 10^6 iterations; its -t cannot lower them: it sets 1).
# papi_multiplex_cost runs at -t BENCH_PAPI_TOOLS_MPX_ITERS (20000; its
# default is 10^6: 5 loops for each of 1 to 9 events on 2 sets, 90 x 10^6
# iterations), and at -t 1 for its start-up; its time at the defaults is
# estimated from the two (start-up + the per-iteration time x 10^6), or
# measured with BENCH_PAPI_TOOLS_MPX_ITERS=1000000.
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
HPM="$BUILD/bin/hpm"
FLOOR="$BUILD/bench/papi/papi_read_vpmu_ours"
BIN=${PAPI_TOOLS_BIN:-/usr/bin}
N=${BENCH_PAPI_TOOLS_MPX_ITERS:-20000}
REPS=${BENCH_PAPI_TOOLS_REPS:-3}
for t in papi_cost papi_multiplex_cost; do
  if [ ! -x "$BIN/$t" ]; then
    echo "bench_papi_tools: no $BIN/$t (Debian package papi-tools): skipped"
    exit 0
  fi
done
for f in "$HPM" "$FLOOR"; do
  [ -x "$f" ] || { echo "bench_papi_tools: $f not built" >&2; exit 1; }
done
[ -e "$BUILD/lib/libpapi.so.7.0" ] || { echo "bench_papi_tools: no $BUILD/lib/libpapi.so.7.0" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# timed COMMAND...: "CPU_SECONDS WALL_SECONDS" of the command and its
# children; its output goes to $WORK/out, and a failure stops the script
timed() {
  local t
  t=$( { TIMEFORMAT='%U %S %R'; time (cd "$WORK" && "$@" >"$WORK/out" 2>&1); } 2>&1) || {
    echo "bench_papi_tools: $* failed:" >&2
    tail -5 "$WORK/out" >&2
    exit 1
  }
  awk '{ printf "%.2f %.2f\n", $1 + $2, $3 }' <<<"$t"
}
ours() { timed env LD_LIBRARY_PATH="$BUILD/lib" "$HPM" run -- "$BIN/$1" "${@:2}"; }
floor() { timed "$HPM" run -- "$FLOOR" "floor:$1" "$2"; }

# least NAME CPU WALL: keeps in NAME_cpu and NAME_wall the run of least CPU
# time so far (the run the machine's other work disturbed least)
least() {
  local c=${1}_cpu w=${1}_wall
  if [ -z "${!c:-}" ] || awk -v a="$2" -v b="${!c}" 'BEGIN { exit !(a < b) }'; then
    printf -v "$c" '%s' "$2"
    printf -v "$w" '%s' "$3"
  fi
}

for ((rep = 0; rep < REPS; rep++)); do
  # papi_cost: loop latency (2 clock reads per iteration), then start+stop
  # (2 count reads), read, read_ts (1 clock), accum, reset, a derived
  # postfix read and a derived sum read (1 count read each): 8 reads, 15
  # clocks
  least cost $(ours papi_cost)
  grep -q "Total cost for PAPI_read" "$WORK/out" || { echo "bench_papi_tools: papi_cost printed no costs" >&2; exit 1; }
  least costf $(floor 8:15 1000000)

  # papi_multiplex_cost -t N: for each of 1 to 9 events, on the kernel- and
  # the software-multiplexed set, start+stop (2 count reads, 2 clocks), read
  # (1, 2), read_ts (1, 1), accum (1, 2), reset (1, 2): 6 reads and 9
  # clocks 18 N times
  least mpx1 $(ours papi_multiplex_cost -t 1)
  rm -f "$WORK/papi_startstop.dat"
  least mpx $(ours papi_multiplex_cost -t "$N")
  [ -s "$WORK/papi_startstop.dat" ] || { echo "bench_papi_tools: papi_multiplex_cost wrote no papi_startstop.dat" >&2; exit 1; }
  least mpxf $(floor 6:9 $((18 * N)))
done

printf '%-46s %10s %10s\n' "under hpm run" "CPU s" "wall s"
printf '%-46s %10s %10s\n' "papi_cost (defaults)" "$cost_cpu" "$cost_wall"
printf '%-46s %10s %10s\n' "  floor: 8 reads + 15 clocks, 10^6 times" "$costf_cpu" "$costf_wall"
printf '%-46s %10s %10s\n' "papi_multiplex_cost -t $N" "$mpx_cpu" "$mpx_wall"
printf '%-46s %10s %10s\n' "  floor: 6 reads + 9 clocks, 18 x $N times" "$mpxf_cpu" "$mpxf_wall"
printf '%-46s %10s %10s\n' "papi_multiplex_cost -t 1 (its start-up)" "$mpx1_cpu" "$mpx1_wall"
awk -v c="$cost_cpu" -v cf="$costf_cpu" -v m="$mpx_cpu" -v mf="$mpxf_cpu" -v m1="$mpx1_cpu" \
    -v n="$N" 'BEGIN {
  printf "ratio papi_cost_vs_floor %.3f\n", c / cf
  printf "ratio papi_multiplex_cost_vs_floor %.3f\n", m / mf
  measured = (n >= 1000000)
  est = measured ? m : m1 + (m - m1) * (1000000 - 1) / (n - 1)
  how = measured ? "measured" : ("estimated from -t " n)
  printf "goal papi_cost <= 15 s: %s (%.1f s of CPU)\n", (c <= 15) ? "met" : "missed", c
  printf "goal papi_multiplex_cost <= 120 s at its defaults: %s (%.0f s of CPU, %s)\n",
         (est <= 120) ? "met" : "missed", est, how }'
