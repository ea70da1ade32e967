#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# floor_build.sh BUILD TOOL_LIBDIR FLOOR_LIBDIR HPM MACHINE PROG [ARGS...]
#
# The floor build of the tool (target hpm_vpmu_floor, timed by bench/vpmu)
# must stay what the bench takes it for: the same translations and calls
# with the models' work taken out. Builds it, runs PROG under both tools on
# MACHINE (cachegrind's geometry), and checks that the exact core events
# (instructions, loads, conditional branches) are equal, that the floor's
# modeled misses and mispredicts are 0 where the real tool's are not, and
# that the floor says what it is when it starts.
set -eu
BUILD=$1 REAL=$2 FLOOR=$3 HPM=$4 MACHINE=$5
shift 5
EVENTS=INSTRUCTIONS,LOADS,BR_COND,L1D_READ_MISSES,BR_COND_MISPREDICTS
WORK=$(mktemp -d "${TMPDIR:-/tmp}/vpmu_floor.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM

if ! cmake --build "$BUILD" --target hpm_vpmu_floor >"$WORK/build.log" 2>&1; then
  tail -n 20 "$WORK/build.log" >&2
  echo "floor_build: FAIL: the floor build did not build" >&2
  exit 1
fi
# The two tools through links of one length: the client's environment (the
# preload path under the library folder) is then the same size, and so are
# its stack and its exact counts.
ln -s "$(cd "$REAL" && pwd)" "$WORK/r"
ln -s "$(cd "$FLOOR" && pwd)" "$WORK/f"
for t in r f; do
  HPM_VALGRIND_LIB="$WORK/$t" "$HPM" count --machine "$MACHINE" -e "$EVENTS" --csv \
    -o "$WORK/$t.csv" -- "$@" >/dev/null 2>"$WORK/$t.err" || {
    cat "$WORK/$t.err" >&2
    echo "floor_build: FAIL: hpm count under tool $t failed" >&2
    exit 1
  }
done
value() { # FILE EVENT: the event's total
  awk -F, -v e="$2" '$1 == "event" && $2 == e && $5 == "" { print $7; exit }' "$1"
}
fail=0
for e in INSTRUCTIONS LOADS BR_COND; do
  r=$(value "$WORK/r.csv" "$e") f=$(value "$WORK/f.csv" "$e")
  echo "$e: tool $r, floor $f"
  if [ -z "$r" ] || [ "$r" != "$f" ] || [ "$r" -eq 0 ]; then
    echo "floor_build: FAIL: $e differs (the translations are not the same)" >&2
    fail=1
  fi
done
for e in L1D_READ_MISSES BR_COND_MISPREDICTS; do
  r=$(value "$WORK/r.csv" "$e") f=$(value "$WORK/f.csv" "$e")
  echo "$e: tool $r, floor $f"
  if [ -z "$r" ] || [ "$r" -eq 0 ] || [ "$f" != 0 ]; then
    echo "floor_build: FAIL: $e: the floor's models ran, or the tool's did not" >&2
    fail=1
  fi
done
if ! grep -q "the floor build" "$WORK/f.err"; then
  echo "floor_build: FAIL: the floor build does not say what it is" >&2
  fail=1
fi
exit $fail
