#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Counting modes on the virtual PMU (docs/events.md, "Counting modes"):
# modes_test.sh HPM MODES_PROG WORKDIR
#   a memory-stall signal's rising edges are its episodes (one per access the
#   L1 missed), level high plus level low is every cycle of the core, an event
#   pulses once per event, the busy cycles are one run; the counts repeat;
#   each mode's count is its definition's, worked out from the same run's
#   counts and by hand from a loop's cost, alone as beside other events and
#   whenever live views flush; a report of the output file shows every
#   mode's rows; bad modes are refused.
hpm=$1 prog=$2 work=$3
scenario=modes
set -u
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
. "$(dirname "$0")/../common/scenario.sh"
py=/usr/bin/python3

events=PU0_STALL_MEM_CYCLES,PU0_STALL_MEM_CYCLES:level-low,PU0_STALL_MEM_CYCLES:edge-rise
events=$events,PU0_STALL_MEM_CYCLES:edge-fall,PU0_CYCLES,PU0_CYCLES:edge-rise
events=$events,PU0_L1D_MISSES,PU0_L1I_MISSES,PU0_LOADS,PU0_LOADS:edge-rise
events=$events,PU0_STALL_BRANCH_CYCLES:edge-rise,PU0_BR_MISPREDICTS
lines=20000

# count FILE NAME: the count of row NAME in a --json report
count() {
    $py -c 'import json,sys
r=json.load(open(sys.argv[1]))
print([e["count"] for e in r["events"] if e["name"]==sys.argv[2]][0])' "$1" "$2" ||
        fail "no row $2 in $1"
}

for m in bgp host; do
    run count --machine $m --json -o r1.json -e "$events" -- "$prog" $lines
    expect_rc 0
    lh=$(count r1.json PU0_STALL_MEM_CYCLES)
    ll=$(count r1.json PU0_STALL_MEM_CYCLES:level-low)
    rise=$(count r1.json PU0_STALL_MEM_CYCLES:edge-rise)
    fall=$(count r1.json PU0_STALL_MEM_CYCLES:edge-fall)
    cyc=$(count r1.json PU0_CYCLES)
    busy=$(count r1.json PU0_CYCLES:edge-rise)
    l1d=$(count r1.json PU0_L1D_MISSES)
    l1i=$(count r1.json PU0_L1I_MISSES)
    loads=$(count r1.json PU0_LOADS)
    load_edges=$(count r1.json PU0_LOADS:edge-rise)
    br=$(count r1.json PU0_STALL_BRANCH_CYCLES:edge-rise)
    mispred=$(count r1.json PU0_BR_MISPREDICTS)
    echo "$m: stall $lh + low $ll = $((lh + ll)), cycles $cyc; episodes $rise (falls $fall)," \
         "L1 misses $l1d + $l1i; loads $loads, pulses $load_edges; mispredict episodes $br of $mispred"
    [ $((lh + ll)) -eq "$cyc" ] || fail "$m: level high $lh + level low $ll != CYCLES $cyc"
    # every L1 miss is served by a level with a latency: one episode each
    [ "$rise" -eq $((l1d + l1i)) ] || fail "$m: $rise rising edges, $((l1d + l1i)) L1 misses"
    [ "$rise" -ge $lines ] || fail "$m: $rise episodes, the program misses $lines lines"
    [ "$fall" -eq "$rise" ] || fail "$m: $fall falling edges, $rise rising"
    [ "$busy" -eq 1 ] || fail "$m: CYCLES rose $busy times (one busy run)"
    [ "$load_edges" -eq "$loads" ] || fail "$m: loads $loads pulsed $load_edges times"
    [ "$br" -eq "$mispred" ] || fail "$m: $br branch-stall episodes, $mispred mispredicts"
    [ "$lh" -gt 0 ] && [ "$ll" -gt 0 ] || fail "$m: a level count is 0"
    # bit for bit again
    run count --machine $m --json -o r2.json --keep-output=r2.out -e "$events" -- "$prog" $lines
    expect_rc 0
    for e in $(echo "$events" | tr , ' '); do
        [ "$(count r1.json $e)" = "$(count r2.json $e)" ] || fail "$m: $e differs between runs"
    done
    # the output file holds every mode's counts: reported without -e, each
    # row as counted
    run count --json -o r3.json --from-output r2.out
    expect_rc 0
    for e in $(echo "$events" | tr , ' '); do
        [ "$(count r2.json $e)" = "$(count r3.json $e)" ] || fail "$m: --from-output: $e differs"
    done
done

# A mode's count is its definition's (docs/events.md, "Counting modes"): on
# bgp, worked out from the level-high counts of the same run; the same
# counted alone as beside other events, and with live views every 5 ms (-I
# 10: host time decides where those flush)
defs=PU0_INSTRUCTIONS,PU0_INSTRUCTIONS:edge-rise,PU0_INSTRUCTIONS:level-low
defs=$defs,PU0_L1D_MISSES:level-low,PU0_CYCLES:edge-fall,PU0_CYCLES:level-low
defs=$defs,PU1_CYCLES:level-low,PU1_CYCLES:edge-rise,NODE_CYCLES,NODE_CYCLES:level-low
run count --json -o d.json -e "$events,$defs" -- "$prog" $lines
expect_rc 0
cyc=$(count d.json PU0_CYCLES) insn=$(count d.json PU0_INSTRUCTIONS)
l1d=$(count d.json PU0_L1D_MISSES) node=$(count d.json NODE_CYCLES)
echo "bgp: cycles $cyc, instructions $insn, L1D misses $l1d, node cycles $node"
[ "$node" -eq "$cyc" ] || fail "one core: node cycles $node, core 0's $cyc"
for want in "PU0_INSTRUCTIONS:edge-rise $insn" "PU0_INSTRUCTIONS:level-low $((cyc - insn))" \
    "PU0_L1D_MISSES:level-low $((cyc - l1d))" "PU0_CYCLES:edge-fall 1" \
    "PU0_CYCLES:level-low 0" "PU1_CYCLES:level-low $node" "PU1_CYCLES:edge-rise 0" \
    "NODE_CYCLES:level-low 0"; do
    set -- $want
    [ "$(count d.json $1)" = "$2" ] || fail "$1 is $(count d.json $1), by its definition $2"
done
for e in PU0_INSTRUCTIONS:edge-rise PU0_INSTRUCTIONS:level-low PU0_L1D_MISSES:level-low; do
    run count -I 10 --json -o alone.json -e $e -- "$prog" $lines
    expect_rc 0
    [ "$(count alone.json $e)" = "$(count d.json $e)" ] ||
        fail "$e alone, live views every 5 ms: $(count alone.json $e), beside others $(count d.json $e)"
done
# by hand: a million more iterations of the integer loop (ADD and DEC half
# a cycle each, JNZ one) are 3,000,000 instructions in 2,000,000 cycles, so
# the cycles without an instruction are 1,000,000 fewer
spin_run() {
    run count -I 10 --json -o "$1" -e PU0_INSTRUCTIONS,PU0_CYCLES,PU0_INSTRUCTIONS:level-low \
        -- "$prog" 300000 "$2"
    expect_rc 0
}
spin_run s1.json 1000000
spin_run s2.json 2000000
[ $(($(count s2.json PU0_INSTRUCTIONS) - $(count s1.json PU0_INSTRUCTIONS))) -eq 3000000 ] &&
    [ $(($(count s2.json PU0_CYCLES) - $(count s1.json PU0_CYCLES))) -eq 2000000 ] ||
    fail "the loop's million iterations: not 3,000,000 instructions in 2,000,000 cycles"
low1=$(count s1.json PU0_INSTRUCTIONS:level-low) low2=$(count s2.json PU0_INSTRUCTIONS:level-low)
[ $((low1 - low2)) -eq 1000000 ] || fail "level low $low1, then $low2: not 1,000,000 fewer"
# 30,000,000 instructions in 20,000,000 cycles: the instructions end ahead of
# the clock, and the count is where it was highest where the program's
# counts were taken (its start, its end: the live views do not take it)
for r in 1 2; do
    spin_run s3.json 10000000
    [ "$(count s3.json PU0_INSTRUCTIONS)" -gt "$(count s3.json PU0_CYCLES)" ] ||
        fail "the loop did not run ahead of the clock"
    [ "$(count s3.json PU0_INSTRUCTIONS:level-low)" = 0 ] ||
        fail "run $r: instructions ahead of the clock, level low $(count s3.json PU0_INSTRUCTIONS:level-low)"
done

# the level-high spelling is the plain event; text reports name the mode
run count -e 'l1d_misses:LEVEL-HIGH,PU0_L1D_MISSES:Edge-Rise' -- "$prog" 100
expect_rc 0
expect_out '^ L1D_MISSES '
expect_out '^ PU0_L1D_MISSES:edge-rise .*(rising edges: one per event or episode)$'
# JSON names a mode row's mode and what its count is in; a level-high row has neither
run count --json -o r4.json -e 'STALL_MEM_CYCLES,STALL_MEM_CYCLES:level-low' -- "$prog" 100
expect_rc 0
$py -c 'import json,sys
e={x["name"]:x for x in json.load(open(sys.argv[1]))["events"]}
lo=e["STALL_MEM_CYCLES:level-low"]; hi=e["STALL_MEM_CYCLES"]
assert lo["mode"]=="level-low" and lo["units"]=="cycles", lo
assert "mode" not in hi and "units" not in hi, hi' r4.json || fail "a mode row in JSON"

# bad modes
run count -e L1D_MISSES:edge -- "$prog" 1
expect_rc 2
expect_err "unknown counting mode 'edge' in 'L1D_MISSES:edge' (level-high, level-low, edge-rise, edge-fall)"
run count -e L1D_MISSES: -- "$prog" 1
expect_rc 2
expect_err "unknown counting mode '' in"
run count -e NO_SUCH:edge-rise -- "$prog" 1
expect_rc 2
expect_err "unknown event 'NO_SUCH:edge-rise'"
run count --pmu=perf -e L1D_MISSES:edge-rise -- "$prog" 1
expect_rc 2
expect_err "no perf_event equivalent"
echo "PASS modes"
