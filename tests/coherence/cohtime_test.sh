#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# cohtime_test.sh BUILD PROG COUNT_PROG: hpm count --coherence=time (the
# accesses to contended lines replayed in the threads' modeled time,
# docs/vpmu.md "Coherence in modeled time") on bgp, free-running threads:
# - false sharing (adjacent counters) misses at least once per 10
#   increments and at least 100 times the padded program's L1D misses;
# - padded counters count what they count in Valgrind's slices (their
#   single-thread misses: nothing is shared);
# - under MESI each store takes the other core's modified copy;
# - one shared counter (true sharing) misses as false sharing does, and the
#   report names it TRUE sharing, the adjacent counters FALSE sharing;
# - two runs give the same modeled rows, bit for bit, and the default (no
#   --coherence) is coherence in modeled time; so do threads that hand
#   over through pipes, none of whose returns the host timed;
# - a single-threaded program counts what it counts in Valgrind's slices,
#   and its report says nothing of turns;
# - hpm profile's c2c view has the line's misses; --pmu=perf and a machine
#   without coherent L1Ds refuse it;
# - Debian's xz -T4 (four threads taking turns between jumps that Valgrind
#   chains: a turn that passed where a chain was pending crashed Valgrind)
#   compresses what xz compresses natively, in modeled time and in turns
#   of 1,000 and 10,000 (the one that crashed).
set -euo pipefail
BUILD=$1 PROG=$2 COUNT_PROG=$3
HPM=$BUILD/bin/hpm
N=200000
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "cohtime: FAIL: $*" >&2; exit 1; }
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
EV=COH_L1D_MISSES,COH_INVALIDATIONS,L1D_MISSES,L2_MISSES,CYCLES,INSTRUCTIONS

for mode in false padded true; do
  count $mode --coherence=time --keep-output="$WORK/$mode.out" -e $EV -- "$PROG" $mode $N free
done
count padded_slices --coherence=slices -e $EV -- "$PROG" padded $N free
cf=$(value COH_L1D_MISSES "$WORK/false.csv")
ct=$(value COH_L1D_MISSES "$WORK/true.csv")
cp=$(value COH_L1D_MISSES "$WORK/padded.csv")
mf=$(value L1D_MISSES "$WORK/false.csv")
mp=$(value L1D_MISSES "$WORK/padded.csv")
ms=$(value L1D_MISSES "$WORK/padded_slices.csv")
echo "cohtime: coherence misses false $cf, true $ct, padded $cp; L1D misses false $mf, padded $mp (slices $ms)"
[ "$cf" -ge $((2 * N / 10)) ] || fail "false sharing: $cf coherence misses for $((2 * N)) increments"
[ "$mf" -ge $((100 * mp)) ] || fail "false sharing: $mf L1D misses, not 100 times the padded program's $mp"
[ "$ct" -ge $((2 * N / 10)) ] || fail "true sharing: $ct coherence misses"
[ "$cp" -le 50 ] || fail "padded: $cp coherence misses"
d=$((mp > ms ? mp - ms : ms - mp))
[ "$d" -le 20 ] || fail "padded: $mp L1D misses in modeled time, $ms in slices"
grep -q "shared line 0x[0-9a-f]* (.*): FALSE sharing, written by 2 cores, [0-9]* coherence misses.*global shared + 0 (hpm-false-sharing)" "$WORK/false.csv" ||
  fail "the report does not name the counters' line FALSE sharing"
grep -q "shared line 0x[0-9a-f]* (.*): TRUE sharing, written by 2 cores.*global shared + 0 (hpm-false-sharing)" "$WORK/true.csv" ||
  fail "the report does not name the shared counter's line TRUE sharing"
grep -q "coherence in modeled time (--coherence=time, the default): threads took turns of up to 1000000 instructions" "$WORK/false.csv" ||
  fail "no note on the mode"
! grep -q "global shared + " "$WORK/padded.csv" || fail "padded counters reported shared"
# a report of the kept output file (--from-output) says the same
"$HPM" count --from-output "$WORK/false.out" >"$WORK/from.txt" 2>&1 || fail "--from-output"
grep -q "shared line 0x[0-9a-f]* (.*): FALSE sharing.*global shared + 0" "$WORK/from.txt" &&
  grep -q "coherence in modeled time (--coherence=time" "$WORK/from.txt" ||
  { cat "$WORK/from.txt" >&2; fail "--from-output's report lacks the shared line or the mode"; }

# MESI: each store takes the other core's modified copy (an intervention)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
sed "s/^name = bgp/name = bgp-mesi/; s/^coherence = wti/coherence = mesi/" \
  "$HERE/../../machines/bgp.machine" >"$WORK/mesi.machine"
"$HPM" count --machine "$WORK/mesi.machine" --coherence=time --csv -o "$WORK/mesi.csv" \
  -e COH_L1D_MISSES,COH_INTERVENTIONS -- "$PROG" false $N free >/dev/null 2>"$WORK/mesi.err" ||
  { cat "$WORK/mesi.err" >&2; fail "hpm count on mesi"; }
ci=$(value COH_INTERVENTIONS "$WORK/mesi.csv")
echo "cohtime: mesi: coherence misses $(value COH_L1D_MISSES "$WORK/mesi.csv"), interventions $ci"
[ "$ci" -ge $((2 * N / 10)) ] || fail "mesi: $ci interventions for $((2 * N)) increments"

# bit for bit: every modeled row of two runs, the second without the option
count false2 -e $EV -- "$PROG" false $N free
modeled "$WORK/false.csv" >"$WORK/a"
modeled "$WORK/false2.csv" >"$WORK/b"
[ -s "$WORK/a" ] || fail "no modeled rows"
cmp -s "$WORK/a" "$WORK/b" || { diff "$WORK/a" "$WORK/b" | head >&2; fail "two runs differ"; }
for i in 1 2; do
  count workers$i --coherence=time -e $EV -- "$COUNT_PROG" threads 4 100000
  modeled "$WORK/workers$i.csv" >"$WORK/workers$i"
done
cmp -s "$WORK/workers1" "$WORK/workers2" ||
  { diff "$WORK/workers1" "$WORK/workers2" | head >&2; fail "two runs of 4 workers differ"; }
# threads that hand over through pipes (a byte each way per increment):
# every read's return is kept in modeled time, none the host's, and two
# runs agree bit for bit
for i in 1 2; do
  count pipes$i -e $EV -- "$PROG" false 2000
  grep -q "no thread came back from a blocking call at a point the host chose" "$WORK/pipes$i.csv" ||
    fail "pipes: returns the host timed: $(grep -o '[0-9]* returns from blocking calls came when the host decided' "$WORK/pipes$i.csv")"
  modeled "$WORK/pipes$i.csv" >"$WORK/pipes$i"
done
cmp -s "$WORK/pipes1" "$WORK/pipes2" || { diff "$WORK/pipes1" "$WORK/pipes2" | head >&2; fail "two runs through pipes differ"; }
[ "$(value COH_L1D_MISSES "$WORK/pipes1.csv")" -ge 3990 ] || fail "pipes: $(value COH_L1D_MISSES "$WORK/pipes1.csv") coherence misses for 4000 alternating increments"

# one thread: the same counts with and without the option (every event)
count one --coherence=slices -- "$BUILD/bin/hpm-matmul" 40
count one_time -- "$BUILD/bin/hpm-matmul" 40
modeled "$WORK/one.csv" >"$WORK/a"
modeled "$WORK/one_time.csv" >"$WORK/b"
cmp -s "$WORK/a" "$WORK/b" || { diff "$WORK/a" "$WORK/b" | head >&2; fail "a single-threaded program's counts changed"; }
! grep -q "turns" "$WORK/one_time.csv" || fail "a single-threaded program's report speaks of turns"
# a program's threads never ran side by side in slices: the note says so
count false_slices --coherence=slices -e $EV -- "$PROG" false 2000 free
grep -q "Valgrind's slices (--coherence=slices)" "$WORK/false_slices.csv" || fail "slices: no note on the mode"

# the c2c view: the counters' line with its misses, in the profile too
"$HPM" profile --machine bgp --coherence=time -o "$WORK/prof" -- "$PROG" false $N free \
  >/dev/null 2>"$WORK/prof.err" || { cat "$WORK/prof.err" >&2; fail "hpm profile"; }
line=$(grep -m1 '^line ' "$WORK/prof.c2c")
case $line in *"FALSE sharing"*) ;; *) fail "c2c: the first line is not false sharing: $line" ;; esac
misses=$(sed -n 's/.*coherence misses \([0-9]*\).*/\1/p' <<<"$line")
[ "$misses" -ge $((2 * N / 10)) ] || fail "c2c: $misses coherence misses on the line"

# a machine whose L1Ds are not coherent shares no lines: refused, saying why
if "$HPM" count --machine bgl --coherence=time -- "$PROG" false 1 free >/dev/null 2>"$WORK/err"; then
  fail "--coherence=time accepted on bgl"
fi
grep -q "not coherent" "$WORK/err" || { cat "$WORK/err" >&2; fail "bgl: no reason given"; }
if "$HPM" count --pmu=perf --coherence=time -e TASK-CLOCK -- "$PROG" false 1 free >/dev/null 2>"$WORK/err"; then
  fail "--pmu=perf --coherence=time accepted"
fi
grep -q -- "--coherence=time is an option of the virtual PMU" "$WORK/err" || { cat "$WORK/err" >&2; fail "--pmu=perf: no reason"; }
if [ -x /usr/bin/xz ]; then
  awk 'BEGIN { srand(7); for (i = 0; i < 4000; i++) printf "line %d of text for xz in four threads %d %d\n", i, rand() * 1e6, rand() * 1e6 }' >"$WORK/xz.in"
  /usr/bin/xz -T4 --block-size=64KiB -c "$WORK/xz.in" >"$WORK/xz.native"
  for turns in "" "--interleave 1000" "--interleave 10000"; do
    # shellcheck disable=SC2086 # the options are words
    "$HPM" count --machine bgp $turns -o "$WORK/xz.csv" --csv -- /usr/bin/xz -T4 --block-size=64KiB -c "$WORK/xz.in" \
      >"$WORK/xz.out" 2>"$WORK/xz.err" || { tail -20 "$WORK/xz.err" >&2; fail "xz -T4 ${turns:-in modeled time} failed"; }
    cmp -s "$WORK/xz.out" "$WORK/xz.native" || fail "xz -T4 ${turns:-in modeled time}: not what xz makes natively"
  done
  echo "cohtime: xz -T4 in modeled time and in turns of 1000 and 10000: the native output"
fi
echo "cohtime: ok"
