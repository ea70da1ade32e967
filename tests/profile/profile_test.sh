#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# profile_test.sh HPM PROF_PROG SRC_DIR WORK SCENARIO - hpm profile and hpm
# annotate as a user runs them (tests/profile/CMakeLists.txt lists the
# scenarios). Profiles are checked by check_profile.py, which reads the
# callgrind format on its own, and by callgrind_annotate.
set -euo pipefail
HPM=$1 PROG=$2 SRC=$3 WORK=$4 SCENARIO=$5
PY=${PYTHON:-python3}
CHECK="$PY $SRC/check_profile.py"
rm -rf "$WORK/$SCENARIO"
mkdir -p "$WORK/$SCENARIO"
cd "$WORK/$SCENARIO"
EVENTS=INSTRUCTIONS,LOADS,STORES,L1D_MISSES,DTLB_MISSES,BR_COND,BR_MISPREDICTS,CYCLES,L3_READS
hot_load=$(grep -n '/\* HOT_LOAD \*/' "$SRC/prof_prog.c" | cut -d: -f1)
hot_int=$(grep -n '/\* HOT_INT \*/' "$SRC/prof_prog.c" | cut -d: -f1)

fail() { echo "FAIL: $*"; exit 1; }

case $SCENARIO in
totals)
    # the profile's summary is the UPC's totals (the report of the same run),
    # and every event's per-instruction shares add up to it exactly
    "$HPM" profile --json -e "$EVENTS" -o p.out -- "$PROG" 3 > same.json 2> err.txt
    grep -q "hpm annotate p.out" err.txt || fail "no summary line: $(cat err.txt)"
    $CHECK sums p.out same.json
    # hpm annotate -o FILE writes what it prints; --quiet drops the summary
    "$HPM" annotate p.out > ann.txt || fail "hpm annotate"
    "$HPM" annotate -o ann2.txt p.out > ann.out || fail "hpm annotate -o"
    cmp -s ann.txt ann2.txt && [ ! -s ann.out ] || fail "annotate -o ann2.txt differs"
    "$HPM" profile --quiet -e "$EVENTS" -o q.out -- "$PROG" 3 > /dev/null 2> qerr.txt
    [ -s q.out ] || fail "profile --quiet wrote no profile"
    grep -q "hpm annotate\|written to\|counting on" qerr.txt && fail "--quiet: $(cat qerr.txt)"
    # ... and equal hpm count's totals for a separate run (deterministic)
    "$HPM" count --json -e "$EVENTS" -- "$PROG" 3 > count.json 2>/dev/null
    $CHECK sums p.out count.json
    # every event of the machine, with the timing model's (apportioned) cycles
    "$HPM" profile --json -o all.out -- "$PROG" 1 > all.json 2> err.txt
    grep -q "apportioned to add up to their totals: CYCLES" err.txt || fail "$(cat err.txt)"
    $CHECK sums all.out all.json
    # the I/O and kernel units' kinds are per system call instruction (exact:
    # not apportioned); only the host-measured ones stay in (unattributed)
    grep -q "not per instruction, in (unattributed): IO_HOST_NS" err.txt || fail "$(cat err.txt)"
    for k in $(sed -n 's/.*not per instruction, in (unattributed):\([^;]*\).*/\1/p' err.txt); do
        [[ $k == *HOST* ]] || fail "$k is not per instruction: $(cat err.txt)"
    done
    if command -v callgrind_annotate >/dev/null; then
        callgrind_annotate --sort=IO_WRITES all.out > io.txt 2>&1 || fail "callgrind_annotate: $(cat io.txt)"
        grep -A3 "file:function" io.txt | grep -q ":__write " || fail "IO_WRITES: $(cat io.txt)"
    fi
    ;;
workers)
    # threads' calls are per thread: two workers in leaf_work at once each
    # count their own call (its inclusive cost is the callee's own, the sum
    # of both threads'), and a thread still in wait_forever at the exit
    # closes its calls on its own core's counts, not on the exiting one's
    # (a few hundred instructions, not the main thread's millions)
    "$HPM" profile -e "$EVENTS" -o p.out -- "$PROG" 1 workers > /dev/null 2>&1 || fail "hpm profile"
    $CHECK calls p.out worker_main leaf_work 2
    $CHECK inclusive p.out worker_main leaf_work INSTRUCTIONS 1000000 10000000
    $CHECK inclusive p.out sleeper_main wait_forever INSTRUCTIONS 1 20000
    ;;
hotspots)
    "$HPM" profile -e "$EVENTS" -o p.out -- "$PROG" 3 > /dev/null 2>&1
    # the misses are on the strided load's line, the integer work on its own
    # (the rest are main's first touch of the array)
    $CHECK topline p.out L1D_MISSES prof_prog.c "$hot_load" 0.6
    $CHECK line p.out prof_prog.c "$hot_load" L1D_MISSES 393216
    $CHECK topline p.out LOADS prof_prog.c "$hot_load" 0.5
    $CHECK calls p.out main stride_sum 3
    $CHECK calls p.out main int_loop 1
    # depth_sum(50): 51 calls, 50 of them recursive
    $CHECK recursive p.out depth_sum 51
    # 3 calls x 2 passes x 65536 lines: one load each, and each ret's load
    # of its return address
    $CHECK self p.out stride_sum LOADS 393219
    # hpm annotate: the top function by misses and its line in the source
    "$HPM" annotate --sort=L1D_MISSES --top=3 p.out > ann.txt
    awk '/^-- top functions/ {getline; getline; print $NF, $(NF-1); exit}' ann.txt | grep -q stride_sum ||
        fail "hpm annotate's top function: $(cat ann.txt)"
    grep -q "L1D miss ratio" ann.txt || fail "no metrics per function"
    grep -Eq "^ +[0-9]+ +[0-9.]+% +$hot_load +.*HOT_LOAD" ann.txt || fail "annotated source: $(cat ann.txt)"
    "$HPM" annotate --sort=INSTRUCTIONS p.out > ins.txt
    grep -q "prof_prog.c:$hot_int\$" ins.txt || fail "int loop line: $(cat ins.txt)"
    # callgrind's own reader takes the file as it is
    if command -v callgrind_annotate >/dev/null; then
        callgrind_annotate --sort=L1D_MISSES p.out > cga.txt 2>&1 || fail "callgrind_annotate: $(cat cga.txt)"
        grep -A3 "file:function" cga.txt | grep -q "stride_sum" || fail "callgrind_annotate top: $(cat cga.txt)"
    fi
    ;;
data)
    # data objects: the misses of a global array and of a heap block, by
    # variable and by allocation site (PROFILE.data)
    "$HPM" profile -e "$EVENTS" -o p.out -- "$PROG" 1 heap > /dev/null 2> err.txt
    grep -q "data objects in p.out.data" err.txt || fail "no data file: $(cat err.txt)"
    $CHECK sums p.out.data
    # big: main's first touch, then 2 passes of one load per line
    $CHECK self p.out.data big L1D_MISSES 196608
    heap=$(grep -o 'fn=([0-9]*) heap from main <- [^ ]*' p.out.data | sed 's/^fn=([0-9]*) //')
    [ -n "$heap" ] || fail "no heap object from main: $(grep heap p.out.data)"
    $CHECK self p.out.data "$heap" BLOCKS 1
    $CHECK self p.out.data "$heap" BYTES 4194304
    heap_miss=$($CHECK selfof p.out.data "$heap" L1D_MISSES)
    # at least heap_sum's one miss per line (memset's stores miss too)
    [ "$heap_miss" -ge 65536 ] || fail "heap block: $heap_miss L1D misses"
    alloc_line=$(grep -n '/\* HEAP_ALLOC \*/' "$SRC/prof_prog.c" | cut -d: -f1)
    "$HPM" annotate --sort=L1D_MISSES p.out > ann.txt
    grep -q "^-- top data objects by L1D_MISSES" ann.txt || fail "no data objects: $(cat ann.txt)"
    grep -Eq "heap from main <- .* \(\[heap\], .*prof_prog.c:$alloc_line\)" ann.txt || fail "allocation site: $(cat ann.txt)"
    grep -Eq "^ +196608 .* big " ann.txt || fail "big: $(cat ann.txt)"
    ;;
plt)
    # a call through a PLT stub is a call of the function the stub jumps
    # to, as callgrind shows it: main calls rand 5 times, not the stub
    # (bound at start: a lazily bound first call goes through ld.so's
    # resolver, which then jumps to rand: a call of the resolver)
    LD_BIND_NOW=1 "$HPM" profile -e "$EVENTS" -o p.out -- "$PROG" 1 plt > /dev/null 2> err.txt || fail "$(cat err.txt)"
    $CHECK sums p.out
    $CHECK calls p.out main rand 5
    ;;
reuse)
    # two heap blocks at one address, one after the other, from two call
    # sites: the second block's misses are its own, not the first's (what
    # the tool remembers of a line is forgotten when a block comes or goes)
    "$HPM" profile -e "$EVENTS" -o p.out -- "$PROG" 1 reuse > /dev/null 2> err.txt || fail "$(cat err.txt)"
    $CHECK sums p.out.data
    for site in REUSE_FIRST REUSE_SECOND; do
        line=$(grep -n "/\* $site \*/" "$SRC/prof_prog.c" | cut -d: -f1)
        obj=$(grep -o "fn=([0-9]*) heap from reuse_block <- main:$line\b" p.out.data | sed 's/^fn=([0-9]*) //')
        [ -n "$obj" ] || fail "no heap object from main:$line: $(grep heap p.out.data)"
        $CHECK self p.out.data "$obj" BLOCKS 1
        miss=$($CHECK selfof p.out.data "$obj" L1D_MISSES)
        # 2048 32-byte lines written, then read: a 32 KiB L1D misses each
        # at least once
        [ "$miss" -ge 2048 ] || fail "$obj: $miss L1D misses"
    done
    ;;
anon)
    # anonymous memory right after a file mapping is other memory, not
    # that file's data (only its .bss continues past its mapping)
    "$HPM" profile -e "$EVENTS" -o p.out -- "$PROG" 1 anon > /dev/null 2> err.txt
    grep -q "data objects in p.out.data" err.txt || fail "no data file: $(cat err.txt)"
    $CHECK sums p.out.data
    other=$($CHECK selfof p.out.data "[other]" L1D_MISSES)
    [ "$other" -ge 65536 ] || fail "[other]: $other L1D misses: $(grep -A3 other p.out.data)"
    $CHECK self p.out.data big L1D_MISSES 196608
    ;;
gaps)
    # other memory between heap blocks: a freed block's memory between two
    # live ones. Each live block's misses are its own, exactly: 2048 loads
    # per read, one per 32-byte line (bgp's L1D), all missing; the first
    # block is read 4 times, the third twice. The freed one's misses, and
    # those of the bytes before the third block on its first 64-byte line,
    # are [other] (a line shared by a block and other memory is no range's)
    "$HPM" profile -e "$EVENTS" -o p.out -- "$PROG" 1 gaps > /dev/null 2> err.txt
    grep -q "data objects in p.out.data" err.txt || fail "no data file: $(cat err.txt)"
    $CHECK sums p.out.data
    for f in gaps_a:8192 gaps_c:4096; do
        obj=$(grep -o "fn=([0-9]*) heap from ${f%:*} <- [^ ]*" p.out.data | sed 's/^fn=([0-9]*) //')
        [ -n "$obj" ] || fail "no heap object from ${f%:*}: $(grep heap p.out.data)"
        $CHECK self p.out.data "$obj" BYTES 65536
        $CHECK self p.out.data "$obj" L1D_MISSES "${f#*:}"
    done
    other=$($CHECK selfof p.out.data "[other]" L1D_MISSES)
    [ "$other" -ge 4096 ] || fail "[other]: $other L1D misses"
    ;;
gated)
    # what runs with the counters stopped is in neither the totals nor the profile
    "$HPM" profile --json -e "$EVENTS" -o p.out -- "$PROG" 1 gated > g.json 2>/dev/null
    $CHECK sums p.out g.json
    $CHECK self p.out int_loop INSTRUCTIONS 0
    # --start=no: nothing before the program's own HPM_VPMU_START
    "$HPM" profile --json --start=no -e "$EVENTS" -o s.out -- "$PROG" 1 gated > s.json 2>/dev/null
    $CHECK sums s.out s.json
    $CHECK self s.out stride_sum INSTRUCTIONS 0
    ;;
gates)
    # counting gated by where the program is: the counts equal the gated
    # code's own costs in a profile of the whole run
    "$HPM" profile -e "$EVENTS" -o all.out -- "$PROG" 1 > /dev/null 2>&1
    count() { # EVENT GATE...: the count of EVENT with the gates
        local ev=$1
        shift
        "$HPM" count --json -e "$EVENTS" "$@" -- "$PROG" 1 2>/dev/null |
            $PY -c "import json, sys; print({r['name']: r['count'] for r in json.load(sys.stdin)['events']}['$ev'])"
    }
    for ev in INSTRUCTIONS LOADS L1D_MISSES BR_COND; do
        want=$($CHECK selfof all.out stride_sum $ev)
        got=$(count $ev --only=stride_sum)
        [ "$got" = "$want" ] || fail "--only=stride_sum: $ev $got, its profile says $want"
    done
    want=$($CHECK selfof all.out depth_sum INSTRUCTIONS)
    got=$(count INSTRUCTIONS --only=depth_sum)
    [ "$got" = "$want" ] || fail "--only=depth_sum (recursive): $got, its profile says $want"
    # from int_loop's first instruction to depth_sum's: int_loop and the few
    # instructions of main between the two calls
    lo=$($CHECK selfof all.out int_loop INSTRUCTIONS)
    got=$(count INSTRUCTIONS --start-at=int_loop --stop-at=depth_sum)
    [ "$got" -ge "$lo" ] && [ "$got" -le $((lo + 20)) ] || fail "--start-at/--stop-at: $got, int_loop alone $lo"
    # a trigger: counting starts within one superblock after the N-th event
    total=$(count INSTRUCTIONS)
    got=$(count INSTRUCTIONS --trigger=INSTRUCTIONS:1000000)
    [ "$got" -le $((total - 1000000)) ] && [ "$got" -ge $((total - 1000000 - 200)) ] ||
        fail "--trigger: $got of $total after 1000000"
    # a trigger on an event no counted kind needs (only what the programmed
    # kinds are made of is counted): the trigger's event is counted for it
    t_all=$("$HPM" count --json -e INSTRUCTIONS -- "$PROG" 1 2>/dev/null |
        $PY -c "import json, sys; print(json.load(sys.stdin)['events'][0]['count'])")
    t_got=$("$HPM" count --json -e INSTRUCTIONS --trigger=STORES:1000 -- "$PROG" 1 2>/dev/null |
        $PY -c "import json, sys; print(json.load(sys.stdin)['events'][0]['count'])")
    [ "$t_got" -gt 0 ] && [ "$t_got" -lt "$t_all" ] ||
        fail "--trigger=STORES:1000 with -e INSTRUCTIONS: $t_got of $t_all"
    # the same gate set by the program itself (HPM_VPMU_GATE; from the
    # start: --start=no, else its start-up before the request counts too)
    for ev in INSTRUCTIONS LOADS; do
        want=$($CHECK selfof all.out stride_sum $ev)
        got=$("$HPM" count --start=no --json -e "$EVENTS" -- "$PROG" 1 only_req 2>/dev/null |
            $PY -c "import json, sys; print({r['name']: r['count'] for r in json.load(sys.stdin)['events']}['$ev'])")
        [ "$got" = "$want" ] || fail "HPM_VPMU_GATE(ONLY): $ev $got, its profile says $want"
    done
    "$HPM" count -e INSTRUCTIONS -- "$PROG" 1 bad_gates > out.txt 2>&1 || fail "bad gates: $(cat out.txt)"
    # and through libhpm (hpm_gate)
    want=$($CHECK selfof all.out stride_sum INSTRUCTIONS)
    got=$("$HPM" count --start=no --json -e "$EVENTS" -- "$PROG" 1 hpm_only 2>/dev/null |
        $PY -c "import json, sys; print({r['name']: r['count'] for r in json.load(sys.stdin)['events']}['INSTRUCTIONS'])")
    [ "$got" = "$want" ] || fail "hpm_gate(HPM_GATE_ONLY): $got, its profile says $want"
    # a profile of a gated run holds only the gated code, adding up to its totals
    "$HPM" profile --json -e "$EVENTS" --only=stride_sum -o only.out -- "$PROG" 1 > only.json 2>/dev/null
    $CHECK sums only.out only.json
    $CHECK self only.out main INSTRUCTIONS 0
    $CHECK calls only.out main stride_sum 1
    # bad gates: clear errors before anything runs
    set +e
    "$HPM" count --trigger=L1D_MISSES:5 -- "$PROG" > out.txt 2>&1
    [ $? -eq 2 ] && grep -q "exact core event" out.txt || fail "modeled trigger: $(cat out.txt)"
    "$HPM" count --trigger=INSTRUCTIONS:0 -- "$PROG" > out.txt 2>&1
    [ $? -eq 2 ] && grep -q "KIND:N with N > 0" out.txt || fail "trigger 0: $(cat out.txt)"
    set -e
    ;;
processes)
    # a shell running the program twice: one profile of the whole tree,
    # the sum of both, equal to hpm count's
    "$HPM" profile --json -e "$EVENTS" -o p.out -- sh -c "'$PROG' 1; '$PROG' 2" > t.json 2>/dev/null
    $CHECK sums p.out t.json
    $CHECK calls p.out main stride_sum 3
    # threads: the second thread's calls are counted too
    "$HPM" profile --json -e "$EVENTS" -o th.out -- "$PROG" 1 threads > th.json 2>/dev/null
    $CHECK sums th.out th.json
    $CHECK self th.out stride_sum LOADS 196610
    ;;
unmapped)
    # PROG is dl_prog: liba's fa (2 * 1000 + 3 instructions) is dlclose'd and
    # libb's fb (2 * 3000 + 3) runs at the same address, from the same call
    # site; each must be its own library's, with its own count and call
    "$HPM" profile -e INSTRUCTIONS -o p.out -- "$PROG" "$DL_LIBA" fa "$DL_LIBB" fb > out.txt 2> err.txt ||
        fail "$(cat err.txt)"
    fa_at=$(sed -n 's/^fa at //p' out.txt) fb_at=$(sed -n 's/^fb at //p' out.txt)
    [ -n "$fa_at" ] && [ "$fa_at" = "$fb_at" ] ||
        fail "the loader did not map libb where liba was (fa $fa_at, fb $fb_at): nothing tested"
    $CHECK sums p.out
    $CHECK self p.out fa INSTRUCTIONS 2003
    $CHECK self p.out fb INSTRUCTIONS 6003
    $CHECK calls p.out main fa 1
    $CHECK calls p.out main fb 1
    "$HPM" annotate p.out > ann.txt
    grep -Eq "^ +2003 .* fa \($DL_LIBA\)\$" ann.txt || fail "fa not liba's: $(cat ann.txt)"
    grep -Eq "^ +6003 .* fb \($DL_LIBB\)\$" ann.txt || fail "fb not libb's: $(cat ann.txt)"
    if command -v callgrind_annotate >/dev/null; then
        callgrind_annotate p.out > cga.txt 2>&1 || fail "callgrind_annotate: $(cat cga.txt)"
        grep -Eq "^ *2,003 .*:fa \[$DL_LIBA\]" cga.txt || fail "callgrind_annotate fa: $(cat cga.txt)"
        grep -Eq "^ *6,003 .*:fb \[$DL_LIBB\]" cga.txt || fail "callgrind_annotate fb: $(cat cga.txt)"
    fi
    ;;
stripped)
    # a program without symbols (as Debian ships its binaries): code no
    # symbol covers is named by its function's first address, found in the
    # unwind table, as callgrind names it: one function each, not one per
    # instruction. The same program with symbols gives each function's
    # costs: the exact events agree (the modeled ones may move a little, as
    # the smaller file maps the heap elsewhere).
    "$HPM" profile -e "$EVENTS" -o named.out -- "$PROG" 3 > /dev/null 2>&1
    strip -o stripped_prog "$PROG"
    nm stripped_prog 2>&1 | grep -q "no symbols" || fail "strip left a symbol table"
    "$HPM" profile -e "$EVENTS" -o p.out -- ./stripped_prog 3 > /dev/null 2>&1
    $CHECK sums p.out
    exact=INSTRUCTIONS,LOADS,STORES,BR_COND
    for fn in main stride_sum int_loop depth_sum; do
        entry=$($CHECK entry named.out $fn)
        grep -q "^fn=([0-9]*) $entry\$" p.out || fail "no function $entry ($fn)"
        $CHECK sameself p.out "$entry" named.out $fn $exact
        eval "at_$fn=$entry"
    done
    $CHECK calls p.out "$at_main" "$at_stride_sum" 3
    $CHECK recursive p.out "$at_depth_sum" 51
    ;;
debugcache)
    # Debian's separate debug files (libc6-dbg's) have compressed DWARF,
    # which libdw inflates whole at every open: the front end reads a
    # decompressed copy instead, made once, named by the build-id. The
    # profile is the same either way (cacheB is a file, not a directory: no
    # cache, with an environment of the same size, so the same counts).
    libc=$(ldd "$PROG" | awk '/libc\.so\.6/ { print $3 }')
    id=$(readelf -n "$libc" | awk '/Build ID/ { print $3 }')
    dbg=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
    if [ -z "$id" ] || [ ! -f "$dbg" ] || ! readelf -SW "$dbg" | grep '\.debug_info' | grep -q ' C '; then
        echo "skip: no compressed debug file for $libc ($dbg)"
        exit 0
    fi
    mkdir cacheA
    : > cacheB
    HPM_DEBUG_CACHE=$PWD/cacheB "$HPM" profile -e "$EVENTS" -o plain.out -- "$PROG" 1 > /dev/null 2>&1
    [ -z "$(ls cacheA)" ] || fail "a copy without the cache"
    HPM_DEBUG_CACHE=$PWD/cacheA "$HPM" profile -e "$EVENTS" -o first.out -- "$PROG" 1 > /dev/null 2>&1
    copy=cacheA/$id.debug
    [ -f "$copy" ] || fail "no decompressed copy: $(ls cacheA)"
    ! readelf -SW "$copy" | grep '\.debug_info' | grep -q ' C ' || fail "the copy is compressed"
    cmp plain.out first.out || fail "the copy's profile differs"
    grep -q "^fn=.*__libc_start_main\|^fn=.*exit" first.out || fail "no libc function named"
    grep -q "^fl=.*\.c$" first.out || fail "no source file named"
    # used, not made again (the same inode), and the same profile
    inode=$(stat -c %i "$copy")
    HPM_DEBUG_CACHE=$PWD/cacheA "$HPM" profile -e "$EVENTS" -o second.out -- "$PROG" 1 > /dev/null 2>&1
    [ "$(stat -c %i "$copy")" = "$inode" ] || fail "the copy was made again"
    cmp plain.out second.out || fail "the cached profile differs"
    # a use renews a copy's time (at most once a day)
    touch -d '10 days ago' "$copy"
    HPM_DEBUG_CACHE=$PWD/cacheA "$HPM" profile -e "$EVENTS" -o second.out -- "$PROG" 1 > /dev/null 2>&1
    [ $(( $(date +%s) - $(stat -c %Y "$copy") )) -lt 3600 ] || fail "a use did not renew the copy"
    # a damaged copy is made again; making one removes a copy a killed hpm
    # left half made (its pid gone) and copies unused for 90 days
    echo damaged > "$copy"
    : > "cacheA/$id.debug.4194305.tmp"
    : > cacheA/00aa.debug
    : > cacheA/00bb.debug
    touch -d '100 days ago' cacheA/00aa.debug
    touch -d '80 days ago' cacheA/00bb.debug
    HPM_DEBUG_CACHE=$PWD/cacheA "$HPM" profile -e "$EVENTS" -o third.out -- "$PROG" 1 > /dev/null 2>&1
    readelf -h "$copy" > /dev/null 2>&1 || fail "the damaged copy was kept"
    [ ! -e "cacheA/$id.debug.4194305.tmp" ] || fail "a stale temporary copy was kept"
    [ ! -e cacheA/00aa.debug ] || fail "a copy unused for 100 days was kept"
    [ -e cacheA/00bb.debug ] || fail "a copy used 80 days ago was removed"
    cmp plain.out third.out || fail "the remade copy's profile differs"
    ls cacheA | grep -q '\.tmp$' && fail "a temporary copy was left: $(ls cacheA)"
    # HPM_DEBUG_CACHE=off: none
    HPM_DEBUG_CACHE=off "$HPM" profile -e "$EVENTS" -o off.out -- "$PROG" 1 > /dev/null 2>&1
    $CHECK sums off.out
    ;;
errors)
    set +e
    "$HPM" annotate /nonexistent/profile > out.txt 2>&1
    [ $? -eq 1 ] && grep -q "cannot read /nonexistent/profile" out.txt || fail "missing file: $(cat out.txt)"
    printf 'events: A B\nfn=(1)\n12 3\n' > bad.out
    "$HPM" annotate bad.out > out.txt 2>&1
    [ $? -eq 1 ] && grep -q "line 2: a malformed or undefined compressed name" out.txt || fail "bad name: $(cat out.txt)"
    printf 'events: A B\nfn=f\n12 3 4 5\n' > bad2.out
    "$HPM" annotate bad2.out > out.txt 2>&1
    [ $? -eq 1 ] && grep -q "line 3: malformed costs" out.txt || fail "bad costs: $(cat out.txt)"
    printf 'events: A B\nfn=f\n12 3 4\n' > ok.out
    "$HPM" annotate --sort=NOPE ok.out > out.txt 2>&1
    [ $? -eq 2 ] && grep -q "no event 'NOPE'" out.txt || fail "bad sort: $(cat out.txt)"
    "$HPM" annotate --sort=B ok.out > out.txt 2>&1 || fail "good file: $(cat out.txt)"
    "$HPM" profile -o /nonexistent/dir/p.out -- "$PROG" 1 > out.txt 2>&1
    [ $? -eq 2 ] || fail "unwritable -o: $(cat out.txt)"
    "$HPM" profile --from-output x > out.txt 2>&1
    [ $? -eq 2 ] || fail "--from-output: $(cat out.txt)"
    # the tool itself, given bad codes or gates after start-up: a message
    # and status 1, not an assertion
    lib=$(cd "$(dirname "$HPM")/../lib/valgrind" && pwd)
    for bad in --hpm-events=991 --hpm-trigger=L1D_MISSES:4 --hpm-trigger=INSTRUCTIONS:x; do
        VALGRIND_LIB=$lib valgrind -q --tool=hpm --hpm-out=/dev/null "$bad" "$PROG" 1 > out.txt 2>&1
        rc=$?
        [ $rc -eq 1 ] && grep -q "Bad option" out.txt && ! grep -q Assertion out.txt ||
            fail "tool $bad: status $rc: $(cat out.txt)"
    done
    set -e
    ;;
*)
    fail "unknown scenario $SCENARIO"
    ;;
esac
echo "ok: $SCENARIO"
