#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# PAPI native events in a counting mode: modes_papi.sh HPM PAPI_MODES WORKDIR
# hpm run programs the spec (hpm run -e NAME:edge-rise,...); the program's set
# reads its node-wide count: the stall's episodes in the loop are its L1
# misses; a bare kind in a mode (a thread's count) is refused.
hpm=$1 prog=$2 work=$3
scenario=modes.papi
set -u
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
. "$(dirname "$0")/../common/scenario.sh"
run run -e PU0_STALL_MEM_CYCLES:edge-rise,PU0_STALL_MEM_CYCLES,PU0_L1D_MISSES,PU0_L1I_MISSES \
    -- "$prog" 20000
expect_rc 0
expect_out 'bare kind in a mode: refused'
expect_out 'units events'
set -- $(sed -n 's/^edges \([0-9]*\) stall \([0-9]*\) l1d \([0-9]*\) l1i \([0-9]*\).*/\1 \2 \3 \4/p' out)
[ $# -eq 4 ] || fail "no counts printed"
echo "edges $1 stall $2 L1D misses $3 L1I misses $4"
[ "$1" -eq $(($3 + $4)) ] || fail "$1 episodes, $(($3 + $4)) L1 misses"
[ "$3" -ge 20000 ] || fail "$3 L1D misses, the loop misses 20000 lines"
[ "$2" -gt "$1" ] || fail "stall cycles $2 not above the episodes $1"
# not programmed: the native event is not there
run run -e PU0_STALL_MEM_CYCLES -- "$prog" 10
expect_rc 1
expect_out 'add sim::PU0_STALL_MEM_CYCLES:edge-rise'
echo "PASS modes.papi"
