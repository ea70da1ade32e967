#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench_papi.sh [BUILD] - latency of PAPI_read, PAPI_start+PAPI_stop,
# PAPI_accum and PAPI_reset on perf::TASK-CLOCK, our libpapi against
# Debian's, in the same run: the median over 10^6 calls each
# (papi_latency.c; $BENCH_PAPI_CALLS for fewer, $BENCH_PAPI_EVENT for
# another event). Both run natively: this times the library's own path
# (ours: libhpm's perf_event software counter), not the virtual PMU.
#
# Prints each library's raw medians, then, ours over Debian's (lower is
# better; goal for papi_read: <= 0.5):
#   ratio papi_read VALUE
#   ratio papi_start_stop VALUE
#   ratio papi_accum VALUE
#   ratio papi_reset VALUE
#
# Debian's libpapi cannot add perf::TASK-CLOCK on a CPU that its libpfm4
# does not know (its perf_event component then disables itself); the run is
# then repeated with papi_pfm_core_shim.so (pfm_core_shim.c) preloaded, which changes only that
# start-up check, and the script says so.
#
# Without our library built, it prints that and Debian's numbers only. It
# fails when a run fails or Debian's benchmark is missing; a missed goal is
# a result, not a failure.
set -euo pipefail

BUILD=${1:-build}
D="$BUILD/bench/papi"
DEB="$D/papi_latency_debian"
OURS="$D/papi_latency_ours"
SHIM="$D/papi_pfm_core_shim.so"
OPS=(papi_read papi_start_stop papi_accum papi_reset)

if [ ! -x "$DEB" ]; then
  echo "bench_papi: $DEB not built (needs libpapi-dev)" >&2
  exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run NAME BINARY: NAME's output in $tmp/NAME; 0 when it measured.
run() {
  local name=$1 bin=$2 rc=0
  "$bin" >"$tmp/$name" 2>"$tmp/$name.err" || rc=$?
  if [ $rc -eq 2 ] && [ "$name" = debian ] && [ -f "$SHIM" ]; then
    echo "bench_papi: debian: $(sed -n 's/^cannot_count //p' "$tmp/$name")"
    echo "bench_papi: debian: libpfm4 knows no core PMU for this CPU, so Debian's perf_event"
    echo "  component is disabled; repeating with $SHIM preloaded (start-up only;"
    echo "  the timed calls are Debian's unchanged)"
    rc=0
    LD_PRELOAD="$SHIM" "$bin" >"$tmp/$name" 2>"$tmp/$name.err" || rc=$?
  fi
  if [ $rc -ne 0 ]; then
    echo "bench_papi: $name failed (exit $rc):" >&2
    cat "$tmp/$name" "$tmp/$name.err" >&2
    return 1
  fi
}

median() { # FILE OP
  awk -v op="$2" '$1 == "median_ns" && $2 == op { print $3 }' "$1"
}

status=0
run debian "$DEB" || exit 1
have_ours=0
if [ -x "$OURS" ]; then
  if run ours "$OURS"; then have_ours=1; else status=1; fi
else
  echo "bench_papi: our libpapi is not built ($OURS missing): Debian's numbers only"
fi

printf '%-18s %12s %12s   (median ns per call; p10-p90 in the raw lines below)\n' \
  "call" "debian" "ours"
for op in "${OPS[@]}"; do
  d=$(median "$tmp/debian" "$op")
  o="-"
  [ $have_ours -eq 1 ] && o=$(median "$tmp/ours" "$op")
  printf '%-18s %12s %12s\n' "$op" "$d" "$o"
done
echo "raw debian: $(tr '\n' ' ' <"$tmp/debian")"
[ $have_ours -eq 1 ] && echo "raw ours:   $(tr '\n' ' ' <"$tmp/ours")"

if [ $have_ours -eq 1 ]; then
  for op in "${OPS[@]}"; do
    d=$(median "$tmp/debian" "$op")
    o=$(median "$tmp/ours" "$op")
    awk -v op="$op" -v o="$o" -v d="$d" 'BEGIN {
      if (d > 0) printf "ratio %s %.3f\n", op, o / d
      else printf "ratio %s nan\n", op }'
  done
  r=$(awk -v o="$(median "$tmp/ours" papi_read)" -v d="$(median "$tmp/debian" papi_read)" \
      'BEGIN { if (d > 0 && o / d <= 0.5) print "met"; else print "missed" }')
  echo "goal papi_read <= 0.5 of Debian's: $r"
fi
exit $status
