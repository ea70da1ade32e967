#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# papi_tools.sh HPM LIBDIR - Debian's papi-tools, unmodified binaries linked
# against the system's libpapi.so.7.0, run under `hpm run` with our library
# in front (LD_LIBRARY_PATH=LIBDIR: the build provides libpapi.so.7.0). Each
# of the 14 programs must exit 0, print what it exists to print, and print
# no "PAPI Error" (the tools turn on PAPI's error messages: a call of ours
# failing where Debian's succeeds shows there). Exit 77 (skipped) without
# papi-tools. papi_cost and papi_multiplex_cost run with fewer iterations
# than their defaults (-t): the whole test stays under a minute or two;
# docs/papi.md gives their times at the defaults.
set -uo pipefail
HPM=$1
LIBDIR=$2
BIN=${PAPI_TOOLS_BIN:-/usr/bin}
if [ ! -x "$BIN/papi_avail" ]; then
  echo "papi_tools: no $BIN/papi_avail (Debian package papi-tools): skipped"
  exit 77
fi
[ -e "$LIBDIR/libpapi.so.7.0" ] || { echo "papi_tools: no $LIBDIR/libpapi.so.7.0"; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
failures=0

# run NAME PATTERN [ARGS...]: exit 0, PATTERN (grep -E) in the output, no
# "PAPI Error", and our library the one loaded
run() {
  local name=$1 pattern=$2 out rc
  shift 2
  out=$(LD_LIBRARY_PATH="$LIBDIR" "$HPM" run -- "$BIN/$name" "$@" 2>&1)
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL $name $*: exit $rc"
  elif ! grep -Eq -- "$pattern" <<<"$out"; then
    echo "FAIL $name $*: no /$pattern/ in its output"
  elif [ -z "${ALLOW_ERRORS:-}" ] && grep -q "PAPI Error" <<<"$out"; then
    echo "FAIL $name $*: $(grep -m1 "PAPI Error" <<<"$out")"
  else
    echo "ok   $name $*"
    return 0
  fi
  sed 's/^/    /' <<<"$out" | tail -15
  failures=$((failures + 1))
}

# the binaries find ours: libpapi.so.7.0 resolves into LIBDIR
# (ldd's output is taken whole first: under pipefail, grep -q stopping early
# can fail the pipeline through ldd's SIGPIPE)
ldd_out=$(LD_LIBRARY_PATH="$LIBDIR" ldd "$BIN/papi_avail")
if ! grep -q "libpapi.so.7.0 => $LIBDIR/" <<<"$ldd_out"; then
  echo "FAIL papi_avail does not load $LIBDIR/libpapi.so.7.0"
  failures=$((failures + 1))
fi
# the virtual PMU's machine and presets (Debian's libpapi knows neither)
run papi_avail 'PAPI_TOT_INS +0x80000032 +Yes'
run papi_clockres 'PAPI_get_real_cyc'
run papi_command_line 'PAPI_TOT_INS :[[:space:]]+[1-9][0-9]*' PAPI_TOT_INS PAPI_L1_DCM
run papi_component_avail 'Name: +sysdetect'
run papi_cost 'Total cost for PAPI_read' -t 20000
run papi_decode 'PAPI_TOT_INS,NOT_DERIVED,.*sim::INSTRUCTIONS' -a
run papi_error_codes 'Error code +-1: Invalid argument'
# its job is trying events that may not fit beside the given one: PAPI's
# messages of those refusals are its output
ALLOW_ERRORS=1 run papi_event_chooser 'Total events reported: [1-9]' PRESET PAPI_TOT_INS
run papi_hardware_avail 'Name +: bgp'
run papi_mem_info 'L1 Data Cache'
run papi_multiplex_cost 'papi_startstop|multiplex' -t 2000
[ -s papi_startstop.dat ] && [ "$(grep -vc '^#' papi_startstop.dat)" -ge 1 ] ||
  { echo "FAIL papi_multiplex_cost: no papi_startstop.dat rows"; failures=$((failures + 1)); }
run papi_native_avail 'sim::INSTRUCTIONS'
run papi_version 'PAPI Version: 7\.0'
run papi_xml_event_info '<event index="[0-9]+" name="sim::INSTRUCTIONS"'
echo "papi_tools: $((14 - failures)) of 14 passed"
[ $failures -eq 0 ]
