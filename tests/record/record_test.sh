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
# perf script -h exits 129 (usage): ask for the version
have_perf() { command -v perf >/dev/null && perf version >/dev/null 2>&1; }
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
    # the load is at the global label rec_load_insn inside sweep: hpm
    # report's symbol table (src/profile) names the label, perf the function
    n=$(awk '/;main;rec_hot;(sweep|rec_load_insn) / {print $NF}' folded.txt)
    [ "${n:-0}" -ge 650 ] || fail "folded stacks: $(cat folded.txt)"
    "$HPM" report --flamegraph --event hpm:L1D_MISSES -o fg.svg rec.data
    if command -v xmllint >/dev/null; then xmllint --noout fg.svg || fail "SVG not well-formed"; fi
    grep -qE ">(sweep|rec_load_insn)" fg.svg || fail "no sweep in the flame graph"
    # a stripped copy: its functions are named by object and first address
    # (the unwind table's), so the hot stack keeps its three frames apart
    strip -o stripped_prog "$PROG"
    "$HPM" record -e L1D_MISSES:100 -o strip.data -- ./stripped_prog > /dev/null 2>&1 ||
        fail "hpm record of the stripped program"
    "$HPM" report --folded strip.data > sfolded.txt
    n=$(awk '{ k = split($1, f, ";")
        if (k >= 3 && f[k] ~ /^\[stripped_prog\]\+0x/ && f[k-1] ~ /^\[stripped_prog\]\+0x/ &&
            f[k-2] ~ /^\[stripped_prog\]\+0x/ && f[k] != f[k-1] && f[k-1] != f[k-2] &&
            $NF > max) max = $NF } END { print max + 0 }' sfolded.txt)
    [ "$n" -ge 650 ] || fail "stripped folded stacks: $(cat sfolded.txt)"
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
    # the kinds sampled per instruction: exact core events, the timing
    # model's cycles and stalls, the predictor's misses
    "$HPM" record -e INSTRUCTIONS:1000,CYCLES:10000,STALL_MEM_CYCLES:1000,BRANCHES:100,BR_COND_NOT_TAKEN:100,BR_RETURN_MISPREDICTS:1,INT_ADDSUB:1000,SYSCALLS:1 \
        -o k3.data -- "$PROG" > out3.txt 2> err3.txt || fail "hpm record: $(cat err3.txt)"
    $CHECK kinds out3.txt err3.txt
    "$HPM" record -e STALL_TLB_CYCLES:100,STALL_BRANCH_CYCLES:100,BR_CALLS:10,BR_COND_TAKEN:100,L1D_WRITEBACKS:10,L2_ACCESSES:100,STORE_BYTES:1000,INT_LOGIC:100 \
        -o k4.data -- "$PROG" > out4.txt 2> err4.txt || fail "hpm record: $(cat err4.txt)"
    $CHECK kinds out4.txt err4.txt
    ;;
insn)
    # INSTRUCTIONS every 997th (prime to the loop's 5 instructions): the
    # samples in the loop are 997 instructions apart in its disassembly
    "$HPM" record -e INSTRUCTIONS:997 --rate-limit 1000000000 -o rec.data -- "$PROG" insn \
        > out.txt 2> err.txt || fail "hpm record: $(cat err.txt)"
    have_perf || { echo "SKIP: no perf"; exit 0; }
    pscript rec.data > script.txt
    objdump -d --no-show-raw-insn "$PROG" > dis.txt
    nm "$PROG" > nm.txt
    $CHECK insn out.txt err.txt script.txt dis.txt nm.txt 997
    perf report -i rec.data --stdio --no-children --sort sym > rep.txt 2> perr.txt ||
        fail "perf report: $(cat perr.txt)"
    grep -q "of event 'hpm:INSTRUCTIONS'" rep.txt || fail "perf report's event: $(head -20 rep.txt)"
    top=$(grep -m1 -E '^ +[0-9.]+%' rep.txt)
    echo "$top" | grep -q "insn_loop" || fail "perf report's top symbol: $top"
    ;;
branch)
    # every conditional mispredict: in the random loop, at its branch
    "$HPM" record -e BR_COND_MISPREDICTS:1,BR_MISPREDICTS:7 --rate-limit 1000000000 \
        -o rec.data -- "$PROG" branch > out.txt 2> err.txt || fail "hpm record: $(cat err.txt)"
    $CHECK kinds out.txt err.txt
    have_perf || { echo "SKIP: no perf"; exit 0; }
    pscript rec.data > script.txt
    objdump -d --no-show-raw-insn "$PROG" > dis.txt
    nm "$PROG" > nm.txt
    $CHECK branch out.txt err.txt script.txt dis.txt nm.txt BR_COND_MISPREDICTS
    $CHECK branch out.txt err.txt script.txt dis.txt nm.txt BR_MISPREDICTS
    perf script -i rec.data > full.txt 2> perr.txt || fail "perf script: $(cat perr.txt)"
    grep -q "hpm:BR_COND_MISPREDICTS:" full.txt || fail "perf script: $(head full.txt)"
    ;;
fp)
    # the FP kinds, sampled per instruction: each sample at the instruction
    # that did the operation (the loop's packed add, its scalar multiply)
    "$HPM" record -e FP_DP_128:999,FP_DP_SCALAR:101,FP_OPS:1000,FP_INSTRUCTIONS:997 \
        --rate-limit 1000000000 -o rec.data -- "$PROG" fp > out.txt 2> err.txt ||
        fail "hpm record: $(cat err.txt)"
    $CHECK kinds out.txt err.txt
    have_perf || { echo "SKIP: no perf"; exit 0; }
    pscript rec.data > script.txt
    objdump -d --no-show-raw-insn "$PROG" > dis.txt
    nm "$PROG" > nm.txt
    $CHECK fp out.txt err.txt script.txt dis.txt nm.txt
    ;;
freq)
    # -F 10000 on bgp (850 MHz): a sample every 85000 cycles, 100 us apart
    "$HPM" record -F 10000 -o rec.data -- "$PROG" > out.txt 2> err.txt ||
        fail "hpm record: $(cat err.txt)"
    grep -q "a CYCLES sample every 85000 modeled cycles" err.txt || fail "$(cat err.txt)"
    have_perf || { echo "SKIP: no perf"; exit 0; }
    perf script -i rec.data -F time,event,ip --ns -G > times.txt 2> perr.txt ||
        fail "perf script: $(cat perr.txt)"
    $CHECK freq out.txt err.txt times.txt 85000 100000
    perf report -i rec.data --stdio --no-children --sort sym > rep.txt 2> perr.txt ||
        fail "perf report: $(cat perr.txt)"
    grep -q "of event 'hpm:CYCLES'" rep.txt || fail "perf report's event: $(head -20 rep.txt)"
    # without -e or -F, as perf record: CYCLES at 4000 Hz (850 MHz / 4000 = 212500)
    "$HPM" record -o def.data -- "$PROG" > out.txt 2> err.txt || fail "hpm record: $(cat err.txt)"
    grep -q "no -e or -F: sampling CYCLES 4000 times per modeled second" err.txt ||
        fail "$(cat err.txt)"
    grep -q "a CYCLES sample every 212500 modeled cycles" err.txt || fail "$(cat err.txt)"
    perf report -i def.data --stdio --no-children --sort sym > rep.txt 2> perr.txt ||
        fail "perf report: $(cat perr.txt)"
    grep -q "of event 'hpm:CYCLES'" rep.txt || fail "default perf report's event: $(head rep.txt)"
    ;;
throttle)
    "$HPM" record -e L1D_MISSES:10 --rate-limit 5 -o rec.data -- "$PROG" > out.txt 2> err.txt ||
        fail "hpm record: $(cat err.txt)"
    have_perf || { echo "SKIP: no perf"; exit 0; }
    pscript rec.data > script.txt
    $CHECK throttled out.txt err.txt script.txt L1D_MISSES 10 5
    "$HPM" record -e INSTRUCTIONS:100 --rate-limit 7 -o ins.data -- "$PROG" insn > out2.txt \
        2> err2.txt || fail "hpm record: $(cat err2.txt)"
    pscript ins.data > script2.txt
    $CHECK throttled out2.txt err2.txt script2.txt INSTRUCTIONS 100 7
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
    expect_err "NODE_CYCLES cannot be sampled precisely: it is a node-wide kind" \
        "$HPM" record -e NODE_CYCLES:1000 -- "$PROG"
    expect_err "the per-core kinds can: INSTRUCTIONS CYCLES" "$HPM" record -e DDR_READS:10 -- "$PROG"
    expect_err "is not combined with -e" "$HPM" record -F 1000 -e LOADS:10 -- "$PROG"
    expect_err "more than one sample per cycle" "$HPM" record -F 1000000000 -- "$PROG"
    sed -E -e 's/^(cpi_[a-z]+|l2_latency|l3_latency|memory_latency|tlb_miss|mispredict) = .*/\1 = 0/' \
        -e 's/^name = .*/name = notiming/' \
        "$SRC/../../machines/bgp.machine" > notiming.machine
    expect_err "-F needs a timing model: machine notiming has none" \
        "$HPM" record -F 1000 --machine ./notiming.machine -- "$PROG"
    expect_err "LOADS is named twice" "$HPM" record -e LOADS:5,LOADS:6 -- "$PROG"
    expect_err "no-such-dir" "$HPM" record -e LOADS:10 -o no-such-dir/x.data -- "$PROG"
    [ ! -e no-such-dir ] || fail "made a directory"
    printf 'not a perf file\n' > bad.data
    if "$HPM" report --folded bad.data > o.txt 2> e.txt; then fail "report of a bad file"; fi
    grep -q "cannot read bad.data: not a perf.data file" e.txt || fail "report's message: $(cat e.txt)"
    if "$HPM" report bad.data > o.txt 2> e.txt; then fail "report without a mode"; fi
    grep -q "one of --folded and --flamegraph" e.txt || fail "$(cat e.txt)"
    ;;
*)
    fail "unknown scenario $SCENARIO"
    ;;
esac
echo "ok: record.$SCENARIO"
