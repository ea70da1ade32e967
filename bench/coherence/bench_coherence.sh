#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench_coherence.sh [BUILD] - what the coherent node costs: hpm count on
# bgp (coherence = wti) against the same machine with coherence = none,
# both in Valgrind's slices (--coherence=slices),
#   ratio coherence_4threads_vs_none   threads4.c, four pthreads (goal <= 1.3)
#   ratio coherence_1thread_vs_none    hpm-cg 600, single-threaded (<= 1.02)
# and what interleaving in turns costs (hpm count --interleave N against
# Valgrind's own slices, bgp; wall time: the turns' hand-overs wait):
#   ratio interleave_N_4threads_vs_slices   threads4.c, N = 10000 and 1000
#   ratio interleave_10000_xz_vs_slices      Debian's xz -T4 (if installed)
#   ratio interleave_1000_1thread_vs_slices  hpm-cg 600 (one thread: no
#                                            rounds, nothing to hand over)
# with, informative, the coherence misses of threads4 and of false sharing
# by free-running threads (tests/coherence/false_sharing.c) per setting;
# and what coherence in modeled time, hpm count's default, costs (hpm count
# against hpm count --coherence=slices, bgp; least wall time, and as
# *_cpu_* CPU time):
#   ratio cohtime_false_sharing_vs_slices   two free-running threads
#                                           incrementing adjacent counters,
#                                           10^6 increments each (goal <= 1.3)
#   ratio cohtime_padded_vs_slices          the same, padded: no line of
#                                           theirs shared (goal <= 1.02)
#   ratio cohtime_xz_vs_slices              Debian's xz -T4 (goal <= 1.3)
#   ratio cohtime_omp_vs_slices             an OpenMP reduction in four
#                                           threads (omp_reduce.c; <= 1.3)
# and each again with both settings on one host CPU (taskset, the last CPU
# this script may use), as cohtime_*_one_cpu_vs_slices: unpinned, a turn's
# hand-over wakes the next thread on another CPU, whose caches do not hold
# the tool's state, a cost of the host's that slices (which rarely hand
# over) do not pay (docs/vpmu.md, "Coherence in modeled time").
# Runs are paired (both configurations in turn each rep; the cohtime pairs
# alternate which runs first); a time is the
# least user time of $HPM_BENCH_REPS (5) reps: the machine is shared, and
# the least is the run the others disturbed least.
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
HPM=$BUILD/bin/hpm
REPS=${HPM_BENCH_REPS:-5}
[ -x "$BUILD/lib/valgrind/hpm-amd64-linux" ] || { echo "bench_coherence: the virtual PMU tool is not built" >&2; exit 2; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cc -O2 -pthread -o "$WORK/threads4" "$HERE/threads4.c"
grep -q '^coherence = wti' "$ROOT/machines/bgp.machine" || { echo "bench_coherence: bgp.machine is not wti" >&2; exit 2; }
sed 's/^name = bgp/name = bgp-none/; s/^coherence = wti/coherence = none/' "$ROOT/machines/bgp.machine" >"$WORK/none.machine"

# least user seconds of $REPS paired runs: least MACHINE_A MACHINE_B -- PROG ARGS
least() {
  local a=$1 b=$2 i t
  shift 3
  local ma=999999 mb=999999
  for ((i = 0; i < REPS; i++)); do
    for m in a b; do
      local f=$a
      [ $m = b ] && f=$b
      /usr/bin/time -f %U -o "$WORK/t" "$HPM" count --machine "$f" --coherence=slices -o /dev/null -- "$@" >/dev/null 2>&1
      t=$(cat "$WORK/t")
      if [ $m = a ]; then ma=$(awk -v x="$t" -v y="$ma" 'BEGIN { print (x < y) ? x : y }')
      else mb=$(awk -v x="$t" -v y="$mb" 'BEGIN { print (x < y) ? x : y }'); fi
    done
  done
  echo "$ma $mb"
}
read -r c n < <(least "$ROOT/machines/bgp.machine" "$WORK/none.machine" -- "$WORK/threads4" 100)
echo "threads4: wti ${c}s, none ${n}s (least user time of $REPS)"
echo "ratio coherence_4threads_vs_none $(awk -v a="$c" -v b="$n" 'BEGIN { printf "%.3f", a / b }')"
read -r c n < <(least "$ROOT/machines/bgp.machine" "$WORK/none.machine" -- "$BUILD/bin/hpm-cg" 600)
echo "hpm-cg 600: wti ${c}s, none ${n}s (least user time of $REPS)"
echo "ratio coherence_1thread_vs_none $(awk -v a="$c" -v b="$n" 'BEGIN { printf "%.3f", a / b }')"

# least wall seconds of $REPS paired runs of hpm count on bgp, with the
# options OPTS_A, then OPTS_B (words): least_wall OPTS_A OPTS_B PROG ARGS
least_wall() {
  local a=$1 b=$2 i t ma=999999 mb=999999
  shift 2
  for ((i = 0; i < REPS; i++)); do
    # shellcheck disable=SC2086 # the options are words
    /usr/bin/time -f %e -o "$WORK/t" "$HPM" count --machine bgp $a -o /dev/null -- "$@" >/dev/null 2>&1
    ma=$(awk -v x="$(cat "$WORK/t")" -v y="$ma" 'BEGIN { print (x < y) ? x : y }')
    # shellcheck disable=SC2086
    /usr/bin/time -f %e -o "$WORK/t" "$HPM" count --machine bgp $b -o /dev/null -- "$@" >/dev/null 2>&1
    mb=$(awk -v x="$(cat "$WORK/t")" -v y="$mb" 'BEGIN { print (x < y) ? x : y }')
  done
  echo "$ma $mb"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
for q in 10000 1000; do
  read -r t s < <(least_wall "--interleave $q" "--coherence=slices" "$WORK/threads4" 100)
  echo "threads4: turns of $q ${t}s, slices ${s}s (least wall time of $REPS)"
  echo "ratio interleave_${q}_4threads_vs_slices $(ratio "$t" "$s")"
done
if [ -x /usr/bin/xz ]; then
  awk 'BEGIN { srand(7); for (i = 0; i < 4000; i++) printf "line %d of text for xz in four threads %d %d\n", i, rand() * 1e6, rand() * 1e6 }' >"$WORK/xz.in"
  read -r t s < <(least_wall "--interleave 10000" "--coherence=slices" /usr/bin/xz -T4 --block-size=64KiB -c "$WORK/xz.in")
  echo "xz -T4: turns of 10000 ${t}s, slices ${s}s (least wall time of $REPS)"
  echo "ratio interleave_10000_xz_vs_slices $(ratio "$t" "$s")"
fi
read -r t s < <(least_wall "--interleave 1000" "--coherence=slices" "$BUILD/bin/hpm-cg" 600)
echo "hpm-cg 600: turns of 1000 ${t}s, slices ${s}s (least wall time of $REPS)"
echo "ratio interleave_1000_1thread_vs_slices $(ratio "$t" "$s")"

# coherence misses (node total) per setting
coh() {
  "$HPM" count --machine bgp --csv -e COH_L1D_MISSES "$@" 2>/dev/null |
    awk -F, '$1 == "event" && $2 == "COH_L1D_MISSES" && $3 == "" && $4 == "" && $5 == "" && $6 != "" { print $7 }'
}
cc -O2 -pthread -o "$WORK/false_sharing" "$ROOT/tests/coherence/false_sharing.c"
for prog in "threads4 100" "false_sharing false 100000 free"; do
  line="coherence misses of ${prog%% *}: slices $(coh --coherence=slices -- "$WORK"/$prog)"
  for q in 10000 1000 100; do
    line="$line, turns of $q $(coh --interleave $q -- "$WORK"/$prog)"
  done
  echo "$line"
done

# coherence in modeled time: "WALL CPU" seconds of one run, hpm count on bgp
# with the options OPTS (words): timed OPTS PROG ARGS
# (bash's time, to the millisecond: /usr/bin/time's CPU times are in
# hundredths, a tenth of the padded program's 0.05 s of work)
# PIN: empty, or a taskset command line that runs both settings on one CPU
PIN=()
timed() {
  local opts=$1 TIMEFORMAT='%3R %3U %3S'
  shift
  # shellcheck disable=SC2086 # the options are words
  { time "${PIN[@]}" "$HPM" count --machine bgp $opts -o /dev/null -- "$@" >/dev/null 2>&1; } 2>"$WORK/t"
  awk '{ printf "%s %.3f\n", $1, $2 + $3 }' "$WORK/t"
}
min() { awk -v x="$1" -v y="$2" 'BEGIN { print (x < y) ? x : y }'; }
# cohtime NAME PROG ARGS: $REPS paired runs, the least of each; the pair's
# order alternates, so that neither setting always runs first
cohtime() {
  local name=$1 i k w c tw=999999 tc=999999 sw=999999 sc=999999
  shift
  for ((i = 0; i < REPS; i++)); do
    for k in $((i % 2)) $((1 - i % 2)); do
      if [ "$k" = 0 ]; then
        read -r w c < <(timed "" "$@")
        tw=$(min "$w" "$tw")
        tc=$(min "$c" "$tc")
      else
        read -r w c < <(timed "--coherence=slices" "$@")
        sw=$(min "$w" "$sw")
        sc=$(min "$c" "$sc")
      fi
    done
  done
  if [ ${#PIN[@]} = 0 ]; then
    echo "$name: modeled time ${tw}s wall ${tc}s CPU, slices ${sw}s wall ${sc}s CPU (least of $REPS)"
    echo "ratio cohtime_${name}_vs_slices $(ratio "$tw" "$sw")"
    echo "ratio cohtime_${name}_cpu_vs_slices $(ratio "$tc" "$sc")"
  else
    echo "$name on one CPU (${PIN[*]}): modeled time ${tw}s wall ${tc}s CPU, slices ${sw}s wall ${sc}s CPU (least of $REPS)"
    echo "ratio cohtime_${name}_one_cpu_vs_slices $(ratio "$tw" "$sw")"
  fi
}
cc -O2 -fopenmp -o "$WORK/omp_reduce" "$HERE/omp_reduce.c" 2>/dev/null || rm -f "$WORK/omp_reduce"
one_cpu=$(taskset -pc $$ 2>/dev/null | awk -F': ' '{ n = split($2, r, ","); sub(/.*-/, "", r[n]); print r[n] }')
for pin in no ${one_cpu:+yes}; do
  PIN=()
  [ "$pin" = yes ] && PIN=(taskset -c "$one_cpu")
  cohtime false_sharing "$WORK/false_sharing" false 1000000 free
  cohtime padded "$WORK/false_sharing" padded 1000000 free
  if [ -x /usr/bin/xz ]; then
    cohtime xz /usr/bin/xz -T4 --block-size=64KiB -c "$WORK/xz.in"
  fi
  if [ -x "$WORK/omp_reduce" ]; then
    cohtime omp "$WORK/omp_reduce" 20
  fi
done
for mode in false padded; do
  echo "false_sharing.c $mode, 10^6 increments: coherence misses: slices" \
       "$(coh --coherence=slices -- "$WORK/false_sharing" $mode 1000000 free), modeled time" \
       "$(coh -- "$WORK/false_sharing" $mode 1000000 free)"
done
