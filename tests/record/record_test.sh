#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# record_test.sh HPM PROG SRC_DIR WORK SCENARIO - hpm record and hpm report as
# a user runs them (tests/record/CMakeLists.txt lists the scenarios); the
# files are read by Debian's perf (perf script, perf report).
set -euo pipefail
HPM=$1 PROG=$2 SRC=$3 WORK=$4 SCENARIO=$5
PY=${PYTHON:-python3}
CHECK="$PY $SRC/check_record.py"
rm -rf "$WORK/$SCENARIO"
mkdir -p "$WORK/$SCENARIO"
cd "$WORK/$SCENARIO"

fail() { echo "FAIL: $*"; exit 1; }
have_perf() { command -v perf >/dev/null && perf script -h >/dev/null 2>&1; }
pscript() { perf script -i "$1" -F event,ip,addr -G 2>/dev/null; }

case $SCENARIO in
exact)
    # every L1D miss (period 1) and every 7th load; the loop's 2 x 32768
    # lines all miss the L1 (2 MiB array)
    "$HPM" record -e L1D_MISSES:1,LOADS:7 --rate-limit 1000000000 -o rec.data -- "$PROG" \
        > out.txt 2> err.txt || fail "hpm record: $(cat err.txt)"
    [ -s rec.data ] || fail "no rec.data"
    have_perf || { echo "SKIP: no perf"; exit 0; }
    pscript rec.data > script.txt
    $CHECK exact out.txt err.txt script.txt L1D_MISSES 1 65536
    $CHECK exact out.txt err.txt script.txt LOADS 7
    ;;
perf)
    "$HPM" record -e L1D_MISSES:100 -o rec.data -- "$PROG" > out.txt 2> err.txt ||
        fail "hpm record: $(cat err.txt)"
    have_perf || { echo "SKIP: no perf"; exit 0; }
    perf script -i rec.data > script.txt 2> perr.txt || fail "perf script: $(cat perr.txt)"
    grep -q "hpm:L1D_MISSES:" script.txt || fail "perf script: $(head script.txt)"
    grep -q " sweep+0x" script.txt || fail "perf script shows no sweep: $(head -20 script.txt)"
    perf report -i rec.data --stdio --no-children --sort sym > rep.txt 2> perr.txt ||
        fail "perf report: $(cat perr.txt)"
    grep -q "of event 'hpm:L1D_MISSES'" rep.txt || fail "perf report's event: $(head -20 rep.txt)"
    top=$(grep -m1 -E '^ +[0-9.]+%' rep.txt)
    echo "$top" | grep -q "sweep" || fail "perf report's top symbol: $top"
    # hpm report: collapsed stacks and the flame graph of the same file
    "$HPM" report --folded rec.data > folded.txt
    n=$(awk '/;main;rec_hot;sweep / {print $NF}' folded.txt)
    [ "${n:-0}" -ge 650 ] || fail "folded stacks: $(cat folded.txt)"
    "$HPM" report --flamegraph --event hpm:L1D_MISSES -o fg.svg rec.data
    if command -v xmllint >/dev/null; then xmllint --noout fg.svg || fail "SVG not well-formed"; fi
    grep -q ">sweep" fg.svg || fail "no sweep in the flame graph"
    ;;
kinds)
    # every kind the sampler knows counts what the UPC counts (the loads,
    # stores, fetches and misses of a program with calls, the heap, libc)
    "$HPM" record -e STORES:100,L1D_WRITE_MISSES:100,L1I_MISSES:10,L2_MISSES:100,L3_HITS:100,MEM_ACCESSES:100,ITLB_MISSES:10,L2_HITS:100 \
        -o k1.data -- "$PROG" > out1.txt 2> err1.txt || fail "hpm record: $(cat err1.txt)"
    $CHECK kinds out1.txt err1.txt
    "$HPM" record -e LOADS:1000,L1D_MISSES:100,L1D_READ_MISSES:100,DTLB_MISSES:10 \
        -o k2.data -- "$PROG" > out2.txt 2> err2.txt || fail "hpm record: $(cat err2.txt)"
    $CHECK kinds out2.txt err2.txt
    ;;
throttle)
    "$HPM" record -e L1D_MISSES:10 --rate-limit 5 -o rec.data -- "$PROG" > out.txt 2> err.txt ||
        fail "hpm record: $(cat err.txt)"
    have_perf || { echo "SKIP: no perf"; exit 0; }
    pscript rec.data > script.txt
    $CHECK throttled out.txt err.txt script.txt L1D_MISSES 10 5
    ;;
errors)
    expect_err() { # expect_err PATTERN CMD...: exit 2, the message, no file
        local pat=$1
        shift
        if "$@" > o.txt 2> e.txt; then fail "$* succeeded"; fi
        grep -q -- "$pat" e.txt || fail "$*: message $(cat e.txt)"
        [ ! -e perf.data ] || fail "$*: left perf.data"
    }
    expect_err "'BOGUS': unknown event kind" "$HPM" record -e BOGUS:10 -- "$PROG"
    expect_err "PERIOD '0' must be a whole number of at least 1" "$HPM" record -e LOADS:0 -- "$PROG"
    expect_err "PERIOD 'x' must be" "$HPM" record -e LOADS:x -- "$PROG"
    expect_err "expected KIND:PERIOD" "$HPM" record -e LOADS -- "$PROG"
    expect_err "CYCLES cannot be sampled precisely" "$HPM" record -e CYCLES:1000 -- "$PROG"
    expect_err "LOADS is named twice" "$HPM" record -e LOADS:5,LOADS:6 -- "$PROG"
    expect_err "-e KIND:PERIOD is required" "$HPM" record -- "$PROG"
    expect_err "no-such-dir" "$HPM" record -e LOADS:10 -o no-such-dir/x.data -- "$PROG"
    [ ! -e no-such-dir ] || fail "made a directory"
    printf 'not a perf file\n' > bad.data
    if "$HPM" report --folded bad.data > o.txt 2> e.txt; then fail "report of a bad file"; fi
    grep -q "bad.data: .*perf.data header" e.txt || fail "report's message: $(cat e.txt)"
    if "$HPM" report bad.data > o.txt 2> e.txt; then fail "report without a mode"; fi
    grep -q "one of --folded and --flamegraph" e.txt || fail "$(cat e.txt)"
    ;;
*)
    fail "unknown scenario $SCENARIO"
    ;;
esac
echo "ok: record.$SCENARIO"
