#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hpm list --encode (tests/encode/CMakeLists.txt).
#   encode_test.sh HPM WORKDIR
set -u
hpm=$1 dir=$2/list
scenario=list
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1
. "$(dirname "$0")/../common/scenario.sh"
# bgp, as many units as needed: everything placed, decoded back
run list --encode INSTRUCTIONS,NODE_CYCLES
expect_rc 0
expect_out "all 5 events in one configuration"
grep -q '^PU3_INSTRUCTIONS *168 *0 *168 *0  PU3_INSTRUCTIONS$' out || fail "PU3_INSTRUCTIONS not on counter 168"
# one unit of 8 counters in groups of 4: passes, the reasons named
cat >small.machine <<'EOT'
name = small
cores = 2
[counters]
units = 1
counters = 8
group = 4
EOT
run list --machine ./small.machine --encode PU0_INSTRUCTIONS,PU1_INSTRUCTIONS,PU0_CYCLES
expect_rc 1
expect_out "2 of 3 events in one configuration; all of them in 2 passes"
expect_out "PU1_INSTRUCTIONS .*not placed: it needs counter 0 in block 7; .* by PU0_INSTRUCTIONS PU0_CYCLES"
# counting modes (docs/events.md's example): the mode is the counter's, the
# input the code's own, PU0's (code 53); one code in two modes takes two
# counters: two units on bgp, two passes on one unit
run list --encode PU0_STALL_MEM_CYCLES:edge-rise
expect_rc 0
grep -q '^PU0_STALL_MEM_CYCLES:edge-rise *53 *0 *53 *0  PU0_STALL_MEM_CYCLES:edge-rise$' out ||
    fail "PU0_STALL_MEM_CYCLES:edge-rise not on PU0's counter 53"
run list --encode PU0_STALL_MEM_CYCLES:edge-rise,PU0_STALL_MEM_CYCLES
expect_rc 0
expect_out "2 units (as many as these events need)"
expect_out "all 2 events in one configuration"
run list --machine ./small.machine --encode PU0_STALL_MEM_CYCLES:edge-rise,PU0_STALL_MEM_CYCLES
expect_rc 1
expect_out "1 of 2 events in one configuration; all of them in 2 passes"
run list --encode NO_SUCH_EVENT
expect_rc 2
expect_err "'NO_SUCH_EVENT' is not an event of machine bgp"
# a group larger than the unit: the file and key named
printf 'name = bad\n[counters]\ncounters = 4\ngroup = 8\n' >bad.machine
run list --machine ./bad.machine --encode INSTRUCTIONS
expect_rc 2
expect_err "bad.machine:4: \[counters\] group 8 is larger than counters 4"
echo "ok list"
