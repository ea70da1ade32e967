#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# pipes_test.sh BUILD PROG: threads that hand over through pipes, under
# coherence in modeled time on bgp (docs/vpmu.md, "Interleaving"):
# - one worker fed through a pipe: every read's return is the tool's (a
#   write wakes the one reader at the writer's clock), none the host's, and
#   two runs agree in every modeled row;
# - four workers reading one pipe (the kernel picks the reader): the run
#   ends, the program's result is right, and the report says how many
#   returns the host timed and from which calls (the reads), adding up.
set -euo pipefail
BUILD=$1 PROG=$2 JOBS=1500
HPM=$BUILD/bin/hpm
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "pipes: FAIL: $*" >&2; exit 1; }
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# the workers' sums: job k sums 0..(100 + k % 1000)-1
want=$(awk -v j=$JOBS 'BEGIN { for (k = 0; k < j; k++) { n = 100 + k % 1000; s += n * (n - 1) / 2 } printf "%d\n", s }')

for i in 1 2; do
  count one$i -- "$PROG" 1 $JOBS
  [ "$(cat "$WORK/one$i.out")" = "$want" ] || fail "one worker: printed $(cat "$WORK/one$i.out"), not $want"
  grep -q "no thread came back from a blocking call at a point the host chose" "$WORK/one$i.csv" ||
    fail "one worker: returns the host timed: $(grep -o '[0-9]* returns from blocking calls came when the host decided' "$WORK/one$i.csv")"
  modeled "$WORK/one$i.csv" >"$WORK/one$i"
done
[ -s "$WORK/one1" ] || fail "no modeled rows"
cmp -s "$WORK/one1" "$WORK/one2" || { diff "$WORK/one1" "$WORK/one2" | head >&2; fail "two runs differ"; }
echo "pipes: one worker: $JOBS jobs, no return timed by the host, two runs equal"

count four -- "$PROG" 4 $JOBS
[ "$(cat "$WORK/four.out")" = "$want" ] || fail "four workers: printed $(cat "$WORK/four.out"), not $want"
note=$(grep -o -E '[0-9]+ returns from blocking calls came when the host decided( \([^)]*\))?|no thread came back from a blocking call at a point the host chose' "$WORK/four.csv") ||
  fail "four workers: the report does not say which returns the host timed"
echo "pipes: four workers: $note"
# the returns the host timed, by call: the workers' reads, adding up
case $note in
  [0-9]*) total=${note%% *}
    sum=$(sed -n 's/^[^(]*(\(.*\))$/\1/p' <<<"$note" | grep -o -E '[0-9]+' | awk '{ s += $1 } END { print s + 0 }')
    grep -q -E '[(,] ?read [0-9]+' <<<"$note" || fail "four workers: the note does not name the workers' reads: $note"
    [ "$sum" = "$total" ] || fail "four workers: the calls named add up to $sum, not $total" ;;
esac
echo "pipes: ok"
