#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench_coherence.sh [BUILD] - what the coherent node costs: hpm count on
# bgp (coherence = wti) against the same machine with coherence = none,
#   ratio coherence_4threads_vs_none   threads4.c, four pthreads (goal <= 1.3)
#   ratio coherence_1thread_vs_none    hpm-cg 600, single-threaded (<= 1.02)
# Runs are paired (both configurations in turn each rep); a time is the
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
      /usr/bin/time -f %U -o "$WORK/t" "$HPM" count --machine "$f" -o /dev/null -- "$@" >/dev/null 2>&1
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
