#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# memsample_test.sh HPM MEM_PROG SRC_DIR WORK SCENARIO - memory samples
# (data source, weight, latency thresholds, data objects) and the objects
# that samples and profiles name, as a user runs them (CMakeLists.txt lists
# the scenarios). perf (Debian's linux-perf) reads the recordings where it
# is installed; the machine is bgp, its latencies read from MACHINE_FILE.
hpm=$1 PROG=$2 SRC=$3 WORK=$4 scenario=$5
rm -rf "$WORK/$scenario"
mkdir -p "$WORK/$scenario"
cd "$WORK/$scenario" || exit 1
. "$SRC/../common/scenario.sh"

have_perf() { command -v perf >/dev/null && perf version >/dev/null 2>&1; }
# a [timing] key of the machine file
timing() { sed -n "s/^$1 *= *\([0-9]*\).*/\1/p" "$MACHINE_FILE" | head -1; }
# perf script's lines of one function: "... |OP LOAD|LVL ...|BLK  N/A  WEIGHT  IP FN"
pscript() { perf script -i "$1" -G -F ip,sym,addr,data_src,weight 2>/dev/null; }

case $scenario in
record.mem.chase)
    mlat=$(timing memory_latency)
    [ -n "$mlat" ] && [ "$mlat" -gt 0 ] || fail "no memory_latency in $MACHINE_FILE"
    # 32 MiB of nodes, four times bgp's 8 MiB L3, in one random cycle
    run record -e LOADS:50 --machine bgp -o rec.data -- "$PROG" chase 32 100000
    expect_rc 0
    expect_err "LOADS"
    # hpm report --mem: the nodes' allocation site carries the DRAM trips
    # (the shuffle's index array, sampled more, stays in the L3 mostly)
    line=$(grep -n '/\* NODES \*/' "$SRC/mem_prog.c" | cut -d: -f1)
    "$hpm" report --mem --top 5 rec.data > mem.txt 2> err || fail "hpm report --mem: $(cat err)"
    most=$(awk 'NR > 3 && $8 > m {m = $8; o = $0} END {print o}' mem.txt)
    echo "$most" | grep -q " heap from main:$line <- " || fail "most DRAM samples: $(cat mem.txt)"
    ram=$(echo "$most" | awk '{print $8}')
    [ "${ram:-0}" -ge 1000 ] || fail "the nodes' DRAM samples: $most"
    have_perf || { echo "SKIP: no perf"; exit 0; }
    pscript rec.data > script.txt
    grep ' chase_loop$' script.txt > chase.txt
    n=$(wc -l < chase.txt)
    # 100000 dependent loads, every 50th (the countdown runs on from main's)
    [ "$n" -ge 1999 ] && [ "$n" -le 2001 ] || fail "chase_loop samples: $n"
    nram=$(grep -c '|LVL Local RAM or RAM hit|' chase.txt)
    [ $((nram * 100)) -ge $((n * 60)) ] || fail "DRAM served $nram of $n: $(head -3 chase.txt)"
    # every DRAM load's weight: the load's cycle + the memory latency (+ a TLB miss)
    low=$(grep '|LVL Local RAM or RAM hit|' chase.txt |
        awk -v m="$mlat" '{ for (i = 1; i < NF; i++) if ($i ~ /^N\/A$/ && $(i+1) ~ /^[0-9]+$/) w = $(i+1)
                            if (w < m) print }' | head -3)
    [ -z "$low" ] || fail "DRAM loads under $mlat cycles: $low"
    perf mem report -i rec.data --stdio > pmem.txt 2> perr.txt || fail "perf mem report: $(cat perr.txt)"
    grep -q "of event 'hpm:LOADS'" pmem.txt || fail "perf mem report: $(head -20 pmem.txt)"
    grep -E 'RAM hit .*chase_loop' pmem.txt | head -1 | grep -q . ||
        fail "perf mem report shows no DRAM load of chase_loop: $(head -20 pmem.txt)"
    perf report --mem-mode --sort symbol_daddr,mem -i rec.data --stdio > prep.txt 2> perr.txt ||
        fail "perf report --mem-mode: $(cat perr.txt)"
    grep -q 'RAM hit' prep.txt || fail "perf report --mem-mode: $(head -20 prep.txt)"
    ;;
record.mem.stream)
    # 2048 doubles (16 KiB, half of bgp's L1D) summed 200 times
    run record -e LOADS:97 --machine bgp -o rec.data -- "$PROG" stream 200
    expect_rc 0
    "$hpm" report --mem rec.data > mem.txt 2> err || fail "hpm report --mem: $(cat err)"
    row=$(grep ' stream_buf (mem_prog)$' mem.txt) || fail "no stream_buf: $(cat mem.txt)"
    set -- $row
    # samples $1, L1 $5: the first sweep misses, the 199 others hit
    [ "$1" -ge 4000 ] && [ $(($5 * 100)) -ge $(($1 * 95)) ] || fail "stream_buf: $row"
    have_perf || { echo "SKIP: no perf"; exit 0; }
    pscript rec.data | grep ' stream_loop$' > loop.txt
    n=$(wc -l < loop.txt)
    l1=$(grep -c '|LVL L1 or L1 hit|' loop.txt)
    [ "$n" -ge 4000 ] && [ $((l1 * 100)) -ge $((n * 95)) ] || fail "stream_loop: $l1 L1 hits of $n"
    ;;
record.mem.ldlat)
    # the loads at or above the memory latency: the DRAM ones
    n=$(timing memory_latency)
    # every such load a sample: each weighs at least N, and their number is
    # the exact histogram's count at or above N
    run record -e LOADS:1 --ldlat "$n" --rate-limit 1000000000 --machine bgp -o all.data -- \
        "$PROG" chase 32 20000
    expect_rc 0
    above=$(sed -n "s/^hpm: *loads at or above $n cycles: \([0-9]*\)$/\1/p" err)
    taken=$(sed -n 's/^hpm: *LOADS .* samples \([0-9]*\) .*/\1/p' err)
    [ -n "$above" ] && [ "$above" -ge 10000 ] || fail "loads at or above $n: '$above'"
    [ "$taken" = "$above" ] || fail "LOADS:1 --ldlat $n: $taken samples, $above loads at or above"
    if have_perf; then
        low=$(perf script -i all.data -F weight 2>/dev/null | awk -v n="$n" '$1 < n' | head -3)
        [ -z "$low" ] || fail "samples under $n cycles: $low"
        [ "$(perf script -i all.data -F weight 2>/dev/null | wc -l)" = "$above" ] ||
            fail "perf script's samples"
    fi
    # a period: floor(loads at or above N / period) samples
    p=37
    run record -e LOADS:$p --ldlat "$n" --machine bgp -o rec.data -- "$PROG" chase 32 20000
    expect_rc 0
    above=$(sed -n "s/^hpm: *loads at or above $n cycles: \([0-9]*\)$/\1/p" err)
    taken=$(sed -n 's/^hpm: *LOADS .* samples \([0-9]*\) .*/\1/p' err)
    events=$(sed -n 's/^hpm: *LOADS .* events \([0-9]*\) .*/\1/p' err)
    [ "$events" = "$above" ] || fail "events $events, loads at or above $n: $above"
    [ "$taken" = $((above / p)) ] || fail "LOADS:$p --ldlat $n: $taken samples of $above loads"
    # without a threshold every load is an event: the histogram's total
    total=$(awk '/^hpm: load latency/ {on = 1; next} on && /cycles/ {s += $4} /^hpm: store/ {on = 0} END {print s}' err)
    run record -e LOADS:$p --machine bgp -o rec0.data -- "$PROG" chase 32 20000
    events=$(sed -n 's/^hpm: *LOADS .* events \([0-9]*\) .*/\1/p' err)
    [ "$events" = "$total" ] || fail "LOADS events $events, the histogram's loads $total"
    ;;
record.mem.count)
    # hpm count's thresholds: at 0 every load (store) is one, so the count
    # is the LOADS (STORES) row exactly; at the memory latency the DRAM
    # loads, fewer than at the L3's
    n=$(timing memory_latency) l3=$(timing l3_latency)
    run count --machine bgp -e "LOADS:ldlat=0,LOADS:ldlat=$l3,LOADS:ldlat=$n,STORES:stlat=0" -- \
        "$PROG" chase 32 20000
    expect_rc 0
    loads=$(awk '$1 == "LOADS" {print $2}' out) stores=$(awk '$1 == "STORES" {print $2}' out)
    note=$(grep ' note .*at or above a modeled latency' out) || fail "no latency note"
    at() { echo "$note" | sed -n "s/.*$1 \([0-9]*\).*/\1/p"; }
    [ -n "$loads" ] && [ "$(at LOADS:ldlat=0)" = "$loads" ] || fail "ldlat=0 $(at LOADS:ldlat=0), LOADS $loads"
    [ -n "$stores" ] && [ "$(at STORES:stlat=0)" = "$stores" ] || fail "stlat=0: $note, STORES $stores"
    a=$(at LOADS:ldlat=$l3) b=$(at LOADS:ldlat=$n)
    [ "$b" -ge 10000 ] && [ "$a" -gt "$b" ] && [ "$loads" -gt "$a" ] || fail "thresholds: $note"
    # a malformed threshold is refused before anything runs
    run count -e LOADS:ldlat=x -- "$PROG" stream 1
    expect_rc 2
    expect_err "ldlat=N needs a whole number"
    ;;
record.mem.dlclose)
    [ -n "${DL_PROG:-}" ] || { echo "SKIP: no dl_prog (tests/profile)"; exit 0; }
    # liba's fa (2003 instructions) is dlclose'd and libb's fb (6003) runs at
    # the same address: every instruction a sample, each credited to its
    # own library (perf reads the MMAP records at their times)
    run record -e INSTRUCTIONS:1 --rate-limit 1000000000 -o rec.data -- \
        "$DL_PROG" "$DL_LIBA" fa "$DL_LIBB" fb
    expect_rc 0
    fa_at=$(sed -n 's/^fa at //p' out) fb_at=$(sed -n 's/^fb at //p' out)
    [ -n "$fa_at" ] && [ "$fa_at" = "$fb_at" ] ||
        fail "the loader did not map libb where liba was (fa $fa_at, fb $fb_at): nothing tested"
    "$hpm" report --folded rec.data > folded.txt 2> err || fail "hpm report: $(cat err)"
    fa=$(awk '$1 ~ /;fa$/ {s += $2} END {print s + 0}' folded.txt)
    fb=$(awk '$1 ~ /;fb$/ {s += $2} END {print s + 0}' folded.txt)
    [ "$fa" = 2003 ] && [ "$fb" = 6003 ] || fail "hpm report: fa $fa, fb $fb samples"
    have_perf || { echo "SKIP: no perf"; exit 0; }
    perf report -i rec.data --stdio -n --no-children --sort dso,sym > rep.txt 2> perr.txt ||
        fail "perf report: $(cat perr.txt)"
    grep -Eq " 2003 +$(basename "$DL_LIBA") +\[\.\] fa *$" rep.txt || fail "perf: fa $(grep -E ' f[ab] *$' rep.txt)"
    grep -Eq " 6003 +$(basename "$DL_LIBB") +\[\.\] fb *$" rep.txt || fail "perf: fb $(grep -E ' f[ab] *$' rep.txt)"
    ;;
profile.plt_objects)
    # each library calls strtol through its own PLT stub, 100 and 300 times
    # (bound at start: each call one pass through the stub)
    LD_BIND_NOW=1 "$hpm" profile -e INSTRUCTIONS -o p.out -- "$PLT_PROG" 7 > out 2> err ||
        fail "hpm profile: $(cat err)"
    command -v callgrind_annotate >/dev/null || { echo "SKIP: no callgrind_annotate"; exit 0; }
    callgrind_annotate p.out > cga.txt 2>&1 || fail "callgrind_annotate: $(cat cga.txt)"
    a=$(grep -F "$PLT_LIBA:strtol@plt " cga.txt | awk '{gsub(/,/, "", $1); print $1}')
    b=$(grep -F "$PLT_LIBB:strtol@plt " cga.txt | awk '{gsub(/,/, "", $1); print $1}')
    [ -n "$a" ] && [ -n "$b" ] || fail "the stubs: $(grep plt cga.txt)"
    [ "$a" -ge 100 ] && [ "$b" = $((3 * a)) ] || fail "liba's stub $a, libb's $b instructions"
    ;;
*)
    fail "unknown scenario"
    ;;
esac
echo "PASS $scenario"
