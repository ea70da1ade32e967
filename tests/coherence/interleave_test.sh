#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# interleave_test.sh BUILD PROG COUNT_PROG: hpm count --interleave N (threads
# take turns of N instructions, docs/vpmu.md "Interleaving") on bgp:
# - two free-running threads incrementing adjacent counters of one line get
#   a coherence miss per turn that passes between them (Valgrind's own
#   slices give a handful), padded counters almost none, one shared counter
#   as many as false sharing; hpm count's report and hpm profile's c2c view
#   name the line FALSE sharing with those misses;
# - the counts repeat bit for bit for free-running threads (4 workers
#   created and joined, two incrementing counters), for 100 threads meeting
#   at a barrier and for 4 threads contending one mutex (futex waits and
#   wakes, several waiters on one word: the kernel wakes the one the tool
#   does);
# - a single-threaded program counts exactly what it counts without turns;
# - a bad N is refused, and so is --interleave with --pmu=perf.
set -euo pipefail
BUILD=$1 PROG=$2 COUNT_PROG=$3 MUTEX_PROG=$4
HPM=$BUILD/bin/hpm
N=20000 Q=200
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "interleave: FAIL: $*" >&2; exit 1; }
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# same A B WHY: the modeled rows of runs A and B are the same, unless a
# report says the tool gave up waiting for a thread (a host too loaded to
# bring it back within the tool's bound: docs/vpmu.md "Interleaving"),
# which then is said here
same() {
  if grep -q 'came when the host decided' "$WORK/$1.csv" "$WORK/$2.csv"; then
    echo "interleave: $1/$2: the tool gave up a wait; not compared: $(grep -ho '[0-9]* returns from system calls came when the host decided' "$WORK/$1.csv" "$WORK/$2.csv" | tr '\n' ' ')"
    return 0
  fi
  cmp -s "$WORK/$1" "$WORK/$2" || { diff "$WORK/$1" "$WORK/$2" | head >&2; fail "$3"; }
}
EV=COH_L1D_MISSES,COH_INVALIDATIONS,L1D_MISSES,L2_MISSES,CYCLES,INSTRUCTIONS

count slices --coherence=slices -e $EV -- "$PROG" false $N free
for mode in false padded true; do
  count $mode --interleave $Q -e $EV -- "$PROG" $mode $N free
done
s=$(value COH_L1D_MISSES "$WORK/slices.csv")
f=$(value COH_L1D_MISSES "$WORK/false.csv")
p=$(value COH_L1D_MISSES "$WORK/padded.csv")
t=$(value COH_L1D_MISSES "$WORK/true.csv")
# the turns that passed between threads, from the report's note
turns=$(grep -o '[0-9]* turns passed between threads' "$WORK/false.csv" | cut -d' ' -f1)
echo "interleave: coherence misses: slices $s; turns of $Q: false $f, padded $p, true $t; $turns turns passed"
[ -n "$turns" ] || fail "no note on the turns: $(grep -i note "$WORK/false.csv" | head -3)"
grep -q "threads took turns of $Q instructions" "$WORK/false.csv" || fail "the note does not give the turn's length"
# each thread runs about 9 instructions per increment: 2N increments make
# about 18N/Q turns, and each turn that passes from one worker to the other
# costs it one miss
[ "$f" -ge $((18 * N / Q / 2)) ] || fail "false sharing: $f coherence misses, not of the order of the $((18 * N / Q)) turns"
[ "$f" -ge $((turns / 2)) ] && [ "$f" -le "$turns" ] || fail "false sharing: $f misses for $turns turns"
[ "$f" -ge $((20 * s)) ] || fail "turns ($f) hardly differ from Valgrind's slices ($s)"
[ "$p" -le 50 ] || fail "padded: $p coherence misses, not almost none"
# the report names the counters' line with turns as with slices (where
# the note says how little the slices show)
grep -q "shared line 0x[0-9a-f]* (.*): FALSE sharing, written by 2 cores.*global shared + 0" "$WORK/false.csv" ||
  fail "turns: the report does not name the counters' line FALSE sharing"
grep -q "threads wrote [0-9]* cache lines together.*--interleave they met once per turn" "$WORK/false.csv" ||
  fail "turns: no sharing summary"
grep -q "threads wrote [0-9]* cache lines together.*Valgrind's slices" "$WORK/slices.csv" ||
  fail "slices: no sharing summary"
[ "$t" -ge $((18 * N / Q / 2)) ] || fail "true sharing: $t"

# the c2c view: the counters' line, false sharing, with the misses
"$HPM" profile --machine bgp --interleave $Q -o "$WORK/prof" -- "$PROG" false $N free \
  >/dev/null 2>"$WORK/prof.err" || { cat "$WORK/prof.err" >&2; fail "hpm profile"; }
head -8 "$WORK/prof.c2c"
line=$(grep -m1 '^line ' "$WORK/prof.c2c")
case $line in *"FALSE sharing"*) ;; *) fail "the first line is not false sharing: $line" ;; esac
misses=$(sed -n 's/.*coherence misses \([0-9]*\).*/\1/p' <<<"$line")
[ "$misses" -ge $((18 * N / Q / 2)) ] || fail "c2c: $misses coherence misses on the line"
grep -A1 -m1 '^line ' "$WORK/prof.c2c" | grep -q 'global: shared' || fail "c2c: the line is not named 'shared'"

# hpm record: the misses of the turns are sampled too
for a in "" "--interleave $Q"; do
  # shellcheck disable=SC2086 # the option is words
  "$HPM" record $a -e L1D_MISSES:10 -o "$WORK/perf.data" -- "$PROG" false $N free \
    >/dev/null 2>"$WORK/rec.err" || { cat "$WORK/rec.err" >&2; fail "hpm record $a"; }
  sed -n 's/.*L1D_MISSES .* events \([0-9]*\) .*/\1/p' "$WORK/rec.err" >>"$WORK/rec.events"
done
r0=$(sed -n 1p "$WORK/rec.events")
r1=$(sed -n 2p "$WORK/rec.events")
echo "interleave: hpm record: L1D_MISSES events $r0 with slices, $r1 with turns of $Q"
[ -n "$r1" ] && [ "$r1" -ge $((r0 + 18 * N / Q / 2)) ] || fail "hpm record --interleave: $r1 L1D misses against $r0"

# bit for bit: every modeled row of two runs
count false2 --interleave $Q -e $EV -- "$PROG" false $N free
modeled "$WORK/false.csv" >"$WORK/a"
modeled "$WORK/false2.csv" >"$WORK/b"
[ -s "$WORK/a" ] || fail "no modeled rows"
cmp -s "$WORK/a" "$WORK/b" || { diff "$WORK/a" "$WORK/b" | head >&2; fail "two runs of free-running threads differ"; }
for i in 1 2; do
  count workers$i --interleave 1000 -e $EV -- "$COUNT_PROG" threads 4 100000
  modeled "$WORK/workers$i.csv" >"$WORK/workers$i"
done
same workers1 workers2 "two runs of 4 workers differ"
for i in 1 2; do
  count barrier$i --interleave 1000 -e $EV -- "$COUNT_PROG" threads 100 1000
  modeled "$WORK/barrier$i.csv" >"$WORK/barrier$i"
done
b=$(grep -o '[0-9]* turns passed between threads' "$WORK/barrier1.csv" | cut -d' ' -f1)
echo "interleave: 100 threads at a barrier: instructions $(value INSTRUCTIONS "$WORK/barrier1.csv"), $b turns passed"
[ "${b:-0}" -ge 100 ] || fail "100 threads at a barrier: $b turns passed"
same barrier1 barrier2 "two runs of 100 threads at a barrier differ"
for i in 1 2 3; do
  count mutex$i --interleave 1000 -e $EV,SYSCALLS -- "$MUTEX_PROG" 4 20000
  modeled "$WORK/mutex$i.csv" >"$WORK/mutex$i"
  grep -q 'turns passed' "$WORK/mutex$i.csv" && grep -o '[0-9]* turns passed' "$WORK/mutex$i.csv" >>"$WORK/mutex$i"
done
sys=$(value SYSCALLS "$WORK/mutex1.csv")
echo "interleave: 4 threads on one mutex: $sys system calls, $(tail -1 "$WORK/mutex1")"
[ "$sys" -ge 1000 ] || fail "the mutex was hardly contended: $sys system calls"
for i in 2 3; do
  same mutex1 mutex$i "runs 1 and $i of 4 threads on one mutex differ"
done
# threads that take the slots of threads gone (8 rounds of 4): their
# waits are ordered as the first round's (no return the host timed)
count rounds --interleave 1000 -e $EV,SYSCALLS -- "$MUTEX_PROG" 4 2000 8
h=$(grep -o '[0-9]* returns from system calls came when the host decided' "$WORK/rounds.csv" | cut -d' ' -f1 || true)
echo "interleave: 8 rounds of 4 threads on one mutex: $(value SYSCALLS "$WORK/rounds.csv") system calls, ${h:-0} returns the host timed"
[ "${h:-0}" -le 2 ] || fail "threads in reused slots: ${h} returns from system calls the host timed"

# one thread: the same counts with and without turns
count one -- "$BUILD/bin/hpm-matmul" 40
count one_turns --interleave 1000 -- "$BUILD/bin/hpm-matmul" 40
modeled "$WORK/one.csv" >"$WORK/a"
modeled "$WORK/one_turns.csv" >"$WORK/b"
cmp -s "$WORK/a" "$WORK/b" || { diff "$WORK/a" "$WORK/b" | head >&2; fail "turns changed a single-threaded program's counts"; }

# bad N
for bad in 0 -5 abc; do
  if "$HPM" count --machine bgp --interleave "$bad" -- "$PROG" false 1 free >/dev/null 2>"$WORK/err"; then
    fail "--interleave $bad accepted"
  fi
  grep -q -- "--interleave" "$WORK/err" || { cat "$WORK/err" >&2; fail "--interleave $bad: no message naming it"; }
done
# the real PMU has no turns
if "$HPM" count --pmu=perf --interleave 100 -e TASK-CLOCK -- "$PROG" false 1 free >/dev/null 2>"$WORK/err"; then
  fail "--pmu=perf --interleave accepted"
fi
grep -q -- "--interleave is an option of the virtual PMU" "$WORK/err" || { cat "$WORK/err" >&2; fail "--pmu=perf --interleave: no reason"; }
echo "interleave: ok"
