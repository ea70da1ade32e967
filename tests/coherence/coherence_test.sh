#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# coherence_test.sh BUILD PROG: hpm count of false_sharing.c on bgp
# (coherence = wti, then mesi): false sharing costs about one coherence miss per
# increment, padding removes them, true sharing is counted like false; the
# report names the counters' line FALSE (TRUE) sharing, the padded ones not.
set -euo pipefail
BUILD=$1 PROG=$2 N=2000
HPM=$BUILD/bin/hpm
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "coherence: FAIL: $*" >&2; exit 1; }

# value KIND CSV: the node total of KIND
value() { awk -F, -v k="$1" '$1 == "event" && $2 == k && $3 == "" && $4 == "" && $5 == "" && $6 != "" { print $7 }' "$2"; }

for proto in wti mesi; do
  # bgp.machine says coherence = wti; the same node under each protocol
  sed "s/^name = bgp/name = bgp-$proto/; s/^coherence = wti/coherence = $proto/" \
    "$HERE/../../machines/bgp.machine" >"$WORK/m.machine"
  grep -q "^coherence = $proto" "$WORK/m.machine" || fail "bgp.machine has no coherence = wti"
  for mode in false padded true; do
    "$HPM" count --machine "$WORK/m.machine" --csv -o "$WORK/$mode.csv" \
      -e COH_L1D_MISSES,COH_INVALIDATIONS,COH_INTERVENTIONS,L1D_MISSES -- "$PROG" "$mode" "$N" \
      >"$WORK/out" 2>"$WORK/err" || { cat "$WORK/err" >&2; fail "hpm count $mode ($proto)"; }
  done
  f=$(value COH_L1D_MISSES "$WORK/false.csv")
  p=$(value COH_L1D_MISSES "$WORK/padded.csv")
  t=$(value COH_L1D_MISSES "$WORK/true.csv")
  fi=$(value COH_INTERVENTIONS "$WORK/false.csv")
  echo "coherence: $proto: coherence misses false $f, padded $p, true $t; interventions (false) $fi"
  # 2N increments, each after the other thread's: one miss each (the
  # threads' start-up adds a few of its own)
  [ "$f" -ge $((2 * N - 10)) ] && [ "$f" -le $((2 * N + 200)) ] || fail "$proto: false sharing $f, not about $((2 * N))"
  [ "$p" -le 100 ] || fail "$proto: padded $p, not almost none"
  [ "$t" -ge $((2 * N - 10)) ] || fail "$proto: true sharing $t"
  # the report names the counters' line and its verdict, whatever else was shared
  grep -q "shared line 0x[0-9a-f]* (.*): FALSE sharing, written by 2 cores, [0-9]* coherence misses.*global shared + 0 (hpm-false-sharing)" "$WORK/false.csv" ||
    fail "$proto: the report does not name the counters' line FALSE sharing"
  grep -q "shared line 0x[0-9a-f]* (.*): TRUE sharing, written by 2 cores.*global shared + 0 (hpm-false-sharing)" "$WORK/true.csv" ||
    fail "$proto: the report does not name the shared counter's line TRUE sharing"
  ! grep -q "global shared + " "$WORK/padded.csv" || fail "$proto: padded counters reported shared"
  grep -q "threads wrote [0-9]* cache lines together" "$WORK/padded.csv" || fail "$proto: no sharing summary"
  if [ "$proto" = mesi ]; then
    [ "$fi" -ge $((2 * N - 10)) ] || fail "mesi: interventions $fi"
  else
    [ "$fi" = 0 ] || fail "wti: interventions $fi"
  fi
done
# a machine without coherence does not provide the kinds
if "$HPM" count --machine bgl -e COH_L1D_MISSES -- "$PROG" padded 1 >/dev/null 2>"$WORK/err"; then
  fail "bgl provides COH_L1D_MISSES"
fi
grep -q "not coherent" "$WORK/err" || { cat "$WORK/err" >&2; fail "bgl: no reason given"; }
echo "coherence: ok"
