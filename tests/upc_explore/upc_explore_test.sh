#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Scenario tests of `hpm upc-explore`, one per CTest test.
#
#   upc_explore_test.sh HPM PROG SRCDIR WORKDIR SCENARIO
#
# Assertions read the CSV table (--format csv) by column name.
set -u
hpm=$1 prog=$2 src=$3 work=$4 scenario=$5
py=${PYTHON:-/usr/bin/python3}
dir=$work/$scenario
rm -rf "$dir" && mkdir -p "$dir" || exit 1
cd "$dir" || exit 1
. "$src/../common/scenario.sh"

# col LOW SLOT COUNTERS PORTS COLUMN: that design's COLUMN in the CSV table `out`
col() {
    awk -F, -v l="$1" -v s="$2" -v c="$3" -v p="$4" -v want="$5" '
        NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next }
        $1 == l && $2 == s && $3 == c && $4 == p { print $(idx[want]); f = 1; exit }
        END { if (!f) print "MISSING" }' out
}

expect_eq() { # what actual expected
    [ "$2" = "$3" ] || fail "$1 = $2, expected $3"
}

expect_pos() { # what actual: a number > 0
    case $2 in '' | *[!0-9]*) fail "$1 = '$2', expected a number" ;; esac
    [ "$2" -gt 0 ] || fail "$1 = $2, expected > 0"
}

cycles=262144
case $scenario in
seed)
    # one event per cycle on each of 256 counters: 2^12 = 256 x 16, every
    # entry is visited before a low-order counter can roll over twice
    run upc-explore --stress --stress-cycles $cycles --low-bits 12 --slot 16 --counters 256 \
        --format csv
    expect_rc 0
    expect_eq events "$(col 12 16 256 1 events)" $((cycles * 256))
    expect_eq lost_carries "$(col 12 16 256 1 lost_carries)" 0
    expect_eq service_ok "$(col 12 16 256 1 service_ok)" yes
    expect_eq irq_set "$(col 12 16 256 1 irq_set)" 256
    expect_eq irq_missed "$(col 12 16 256 1 irq_missed)" 0
    expect_eq irq_worst "$(col 12 16 256 1 irq_worst_cycles)" 0
    expect_eq latch_bits "$(col 12 16 256 1 latch_bits)" $((256 * 14))
    expect_eq sram_bits "$(col 12 16 256 1 sram_bits)" $((256 * 53))
    ;;
narrow)
    # the designs on either side of the seed's: narrower counters or a
    # longer slot than 2^12 / 256 lose carries; two ports halve the service
    # time (11 bits then hold)
    run upc-explore --stress --stress-cycles $cycles --low-bits 8,11,12 --slot 16,17 \
        --counters 256 --ports 1,2 --format csv
    expect_rc 0
    expect_pos "8 bits lost_carries" "$(col 8 16 256 1 lost_carries)"
    expect_pos "8 bits counters_losing" "$(col 8 16 256 1 counters_losing)"
    expect_pos "8 bits irq_missed" "$(col 8 16 256 1 irq_missed)"
    expect_eq "8 bits service_ok" "$(col 8 16 256 1 service_ok)" no
    expect_pos "11 bits lost_carries" "$(col 11 16 256 1 lost_carries)"
    expect_pos "17-cycle slot lost_carries" "$(col 12 17 256 1 lost_carries)"
    expect_eq "12 bits lost_carries" "$(col 12 16 256 1 lost_carries)" 0
    expect_eq "11 bits, 2 ports lost_carries" "$(col 11 16 256 2 lost_carries)" 0
    expect_eq "11 bits, 2 ports service" "$(col 11 16 256 2 service_cycles)" 2048
    # 8 bits at one event per cycle: the state machine comes every 4096
    # cycles, the counter rolls over every 256: 15 of 16 carries are lost
    lost=$(col 8 16 256 1 lost_carries)
    expected=$((256 * (cycles / 256) * 15 / 16))
    [ "$lost" -ge $((expected - 256 * 2)) ] && [ "$lost" -le $((expected + 256 * 2)) ] ||
        fail "8 bits lost $lost carries, expected about $expected"
    ;;
plot)
    run upc-explore --stress --stress-cycles 65536 --low-bits 8-16 --slot 8,16,32 --plot x.svg
    expect_rc 0
    expect_out "lost_carr"
    [ -s x.svg ] || fail "no x.svg"
    xmllint --noout x.svg 2>err || fail "x.svg is not well-formed XML"
    grep -q "events lost" x.svg || fail "x.svg lacks the lost-events panel"
    run upc-explore --stress --stress-cycles 65536 --low-bits 10-12 --format json -o t.json
    expect_rc 0
    "$py" -c '
import json, sys
d = json.load(open("t.json"))
r = {x["low_bits"]: x for x in d["designs"]}
assert sorted(r) == [10, 11, 12], r.keys()
assert r[12]["lost_carries"] == 0 and r[10]["lost_carries"] > 0
assert r[12]["service_ok"] is True and r[10]["service_ok"] is False' || fail "t.json"
    run upc-explore --stress --stress-cycles 65536 --low-bits 12 --slot 2 --format csv
    expect_rc 0
    expect_eq "read_worst at a 2-cycle slot" "$(col 12 2 256 1 read_worst_cycles)" ""
    ;;
usage)
    run upc-explore --low-bits 12
    expect_rc 2
    expect_err "give one stream"
    run upc-explore --stress --trace x
    expect_rc 2
    run upc-explore --stress --low-bits 40
    expect_rc 2
    expect_err "LIST"
    run upc-explore --stress --counters 256 --ports 3
    expect_rc 2
    expect_err "divide"
    printf 'not a trace\n' >bad.trace
    run upc-explore --trace bad.trace
    expect_rc 1
    expect_err "not an hpm UPC trace"
    # --trace goes through the reader of every named file: a regular file
    # of at most 16 GiB (/dev/zero grew to 5 GB, a FIFO hung)
    mkfifo fifo
    truncate -s 20G sparse
    for t in /dev/zero fifo sparse; do
        timeout 20 "$hpm" upc-explore --trace $t >out 2>err
        rc=$?
        [ $rc -eq 124 ] && fail "--trace $t hung"
        expect_rc 1
    done
    expect_err "sparse: .*more than"
    timeout 20 "$hpm" upc-explore --trace fifo >out 2>err
    expect_err "fifo: not a regular file"
    printf 'hpm-upc-trace 1\ne 0 1\nb 10 1 0:10 1:20\n' >over.trace
    run upc-explore --trace over.trace
    expect_rc 1
    expect_err "over.trace: line 3: malformed trace line"
    ;;
program)
    ev=INSTRUCTIONS,CYCLES,LOADS,L1D_MISSES,FP_OPS,NODE_CYCLES,DDR_READ_BYTES
    run upc-explore -e $ev --low-bits 8,12 --record m.trace --totals tot.csv --format csv -- \
        "$prog"
    expect_rc 0
    cp out table1.csv
    expect_eq "12 bits lost_carries" "$(col 12 16 256 1 lost_carries)" 0
    # CYCLES moves in every cycle of a batch: 8 bits lose its carries
    expect_pos "8 bits lost_carries" "$(col 8 16 256 1 lost_carries)"
    # the totals the 12-bit unit reads are hpm count's, event by event
    # (--totals is the first design's: 8 bits, short by its lost carries)
    run upc-explore -e $ev --low-bits 12 --totals tot.csv --format csv -- "$prog"
    expect_rc 0
    "$hpm" count -e $ev --csv -- "$prog" >count.csv 2>/dev/null || fail "hpm count failed"
    "$py" -c '
import csv, sys
count = {}
for r in csv.reader(open("count.csv")):
    if r[0] == "event" and r[2] == "" and r[3] == "" and r[5] != "":
        count[int(r[5])] = int(r[6])
rows = list(csv.DictReader(open("tot.csv")))
names = {r["event"] for r in rows}
for want in ("PU0_INSTRUCTIONS", "PU0_CYCLES", "PU0_L1D_MISSES", "NODE_CYCLES"):
    assert want in names, want
bad = [(r["event"], r["count"], count.get(int(r["code"])))
       for r in rows if count.get(int(r["code"])) != int(r["count"])]
assert not bad, bad
assert sum(int(r["count"]) for r in rows) > 10**8' || fail "replayed totals differ from hpm count's"
    # the kept trace replays to the same table
    run upc-explore --trace m.trace --low-bits 8,12 --format csv
    expect_rc 0
    cmp -s out table1.csv || fail "--trace m.trace gives another table"
    head -1 m.trace | grep -q "^hpm-upc-trace 1" || fail "m.trace has no header"
    ;;
*)
    fail "unknown scenario"
    ;;
esac
echo "PASS $scenario"
