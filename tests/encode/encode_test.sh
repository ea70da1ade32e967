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
run list --encode NO_SUCH_EVENT
expect_rc 2
expect_err "'NO_SUCH_EVENT' is not an event of machine bgp"
# a group larger than the unit: the file and key named
printf 'name = bad\n[counters]\ncounters = 4\ngroup = 8\n' >bad.machine
run list --machine ./bad.machine --encode INSTRUCTIONS
expect_rc 2
expect_err "bad.machine:4: \[counters\] group 8 is larger than counters 4"
echo "ok list"
