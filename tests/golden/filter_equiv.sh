#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# filter_equiv.sh BUILD [FILTER_THREADS] - the shortcuts that answer sure L1 and TLB hits
# without the models (the sure-hit filter, the L1/TLB probe, a superblock's
# skipped fetches; docs/vpmu.md, "Speed") change no count: every simulated
# count of Debian programs we did not write (sqlite3, xz; bzip2 when those
# are absent) with them (--hpm-sure-hit-filter=yes) equals the count
# without them (=no), on bgp and bgl (FIFO L1s: fetches skipped), on
# cachegrind's geometry (LRU: fetch calls guarded by way 0, way-0 data hits
# in the helpers) and on host (LRU L1s with TLBs: the same with the MRU page
# checks), and sqlite3's profile on bgp and on host (hpm profile: every
# instruction's costs and the call graph's), and with FILTER_THREADS (the
# program filter_threads.c) two threads on bgp in turns and in modeled time.
# Both runs see the same
# environment: the option reaches the tool through VALGRIND_OPTS, padded to
# one length.
set -euo pipefail
BUILD=$(cd "${1:?usage: filter_equiv.sh BUILD [FILTER_THREADS]}" && pwd)
THREADS=${2:-}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HPM=$BUILD/bin/hpm
WORK=$(mktemp -d /tmp/hpm-filter.XXXXXXXX)
trap 'rm -rf "$WORK"' EXIT
export PYTHONHASHSEED=0

# (not python3: its counts differ between two identical runs here)
progs=()
awk 'BEGIN { s = 7; for (i = 0; i < 6000; i++) { s = (s * 1103515245 + 12345) % 2147483648
  print i, s % 10007, substr("alpha beta gamma delta epsilon", 1 + s % 20, 9) } }' >"$WORK/in.txt"
[ -x /usr/bin/sqlite3 ] && progs+=(sqlite3)
[ -x /usr/bin/xz ] && progs+=(xz)
[ -x /bin/bzip2 ] && [ ${#progs[@]} -eq 0 ] && progs+=(bzip2)
[ ${#progs[@]} -gt 0 ] || { echo "filter_equiv: none of sqlite3, xz, bzip2 installed"; exit 1; }
run() { # PROG MACHINE FILTER OUT
  local cmd
  case $1 in
  xz) cmd=(/usr/bin/xz -9 -c "$WORK/in.txt") ;;
  sqlite3) cmd=(/usr/bin/sqlite3 :memory: "CREATE TABLE t(a, b); INSERT INTO t SELECT value, value * 31 % 977 FROM generate_series(1, 3000); CREATE INDEX tb ON t(b); SELECT count(*), sum(a) FROM t WHERE b > 500;") ;;
  bzip2) cmd=(/bin/bzip2 -9 -c "$WORK/in.txt") ;;
  esac
  # "yes" and "no " have one length: the client's environment is the same
  VALGRIND_OPTS="--hpm-sure-hit-filter=$3" "$HPM" count --machine "$2" --csv -o "$4" -- "${cmd[@]}" \
    >/dev/null 2>"$4.err" || { echo "filter_equiv: $1 on $2 failed:"; tail -n 5 "$4.err"; exit 1; }
  # the simulated counts only (the host's measurements differ run to run)
  grep -v ',measured$' "$4" | grep -v '^#' >"$4.sim"
}
fail=0
for p in "${progs[@]}"; do
  for m in bgp bgl "$ROOT/bench/vpmu/cachegrind.machine" host; do
    run "$p" "$m" yes "$WORK/y.csv"
    run "$p" "$m" "no " "$WORK/n.csv"
    rows=$(grep -c '^event' "$WORK/y.csv.sim")
    if ! cmp -s "$WORK/y.csv.sim" "$WORK/n.csv.sim"; then
      echo "filter_equiv: $p on $(basename "$m"): counts differ with the filter"
      diff "$WORK/n.csv.sim" "$WORK/y.csv.sim" | head -n 20 || true
      fail=1
    else
      echo "filter_equiv: $p on $(basename "$m"): $rows rows identical"
    fi
  done
done
# threads on coherent L1Ds, in an order that repeats (turns, modeled
# time): filter_threads.c's loops touch one line alone, which the other
# core's stores take from the L1D while the filter still holds it
if [ -n "$THREADS" ]; then
  # the loop's bound a local (the counter alone), or a global read at every
  # increment (the filter's two lines taking turns: coherence in modeled time)
  for opts in "--interleave=1000 local" "--coherence=time local" "--coherence=time bound"; do
    read -r opt loop <<<"$opts"
    arg=()
    [ "$loop" = bound ] && arg=(bound)
    for f in yes "no "; do
      VALGRIND_OPTS="--hpm-sure-hit-filter=$f" "$HPM" count --machine bgp --csv -o "$WORK/t_${f% }.csv" \
        "$opt" -- "$THREADS" 20000 "${arg[@]}" >/dev/null 2>"$WORK/t.err" ||
        { echo "filter_equiv: filter_threads.c ($opts) failed:"; tail -n 5 "$WORK/t.err"; exit 1; }
      # the counts (the notes name the pid and where the heap lies)
      grep '^event' "$WORK/t_${f% }.csv" | grep -v ',measured$' >"$WORK/t_${f% }.sim"
    done
    if ! cmp -s "$WORK/t_yes.sim" "$WORK/t_no.sim"; then
      echo "filter_equiv: filter_threads.c $opts on bgp: counts differ with the filter"
      diff "$WORK/t_no.sim" "$WORK/t_yes.sim" | head -n 20 || true
      fail=1
    else
      echo "filter_equiv: filter_threads.c $opts on bgp: $(grep -c '^event' "$WORK/t_yes.sim") rows identical," \
        "$(awk -F, '$2 == "COH_L1D_MISSES" && $3 == "" && $4 == "" && $5 == "" { print $7; exit }' "$WORK/t_yes.sim") coherence misses"
    fi
  done
fi
# a profile too (hpm profile: every instruction's costs, the call graph):
# simulated kinds only, so that no column measures the host
if [ -x /usr/bin/sqlite3 ]; then
  ev=INSTRUCTIONS,CYCLES,L1I_MISSES,L1D_MISSES,ITLB_MISSES,DTLB_MISSES,BR_MISPREDICTS,L2_MISSES,L3_READ_MISSES
  for m in bgp host; do
    for f in yes "no "; do
      VALGRIND_OPTS="--hpm-sure-hit-filter=$f" "$HPM" profile --machine "$m" -e "$ev" -o "$WORK/p_${f% }.cg" \
        -- /usr/bin/sqlite3 :memory: "CREATE TABLE t(a, b); INSERT INTO t SELECT value, value % 97 FROM generate_series(1, 2000); SELECT b, count(*) FROM t GROUP BY b ORDER BY 2 DESC LIMIT 3;" \
        >/dev/null 2>"$WORK/p.err" || { echo "filter_equiv: hpm profile on $m failed:"; tail -n 5 "$WORK/p.err"; exit 1; }
    done
    # the header names the run (command line, pid); the costs follow it
    if ! cmp -s <(grep -v '^#\|^cmd:\|^pid:\|^desc:' "$WORK/p_yes.cg") <(grep -v '^#\|^cmd:\|^pid:\|^desc:' "$WORK/p_no.cg"); then
      echo "filter_equiv: sqlite3's profile on $m differs with the filter"
      diff <(grep -v '^#\|^cmd:\|^pid:\|^desc:' "$WORK/p_no.cg") <(grep -v '^#\|^cmd:\|^pid:\|^desc:' "$WORK/p_yes.cg") | head -n 20 || true
      fail=1
    else
      echo "filter_equiv: sqlite3's profile on $m: $(wc -l <"$WORK/p_yes.cg") lines identical"
    fi
  done
fi
exit $fail
