#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Integration tests of `hpm count` and `hpm list`, one scenario per CTest test.
#
#   count_test.sh HPM COUNT_PROG SRCDIR WORKDIR SCENARIO
#
# Scenarios that run the virtual PMU (valgrind) need COUNT_PROG; the others
# (errors, list, reports of hand-written tool output files) run without it.
# Assertions read `hpm count --csv` (section,name,region,thread,core,code,
# value,source) with awk; the rows queried never hold quoted commas.
# PYTHON (default python3) checks that JSON parses and CSV rows are even.
set -u
hpm=$1 prog=$2 src=$3 work=$4 scenario=$5
py=${PYTHON:-python3}
dir=$work/$scenario
rm -rf "$dir" && mkdir -p "$dir" || exit 1
cd "$dir" || exit 1
# a crashing program must not leave a Valgrind core file behind
ulimit -c 0 2>/dev/null

. "$src/../common/scenario.sh"
# live views are named by pid namespace and pid (src/vpmu_iface/vpmu_live.h)
pidns=$(readlink /proc/self/ns/pid | tr -dc 0-9)

# csv_val SECTION NAME REGION THREAD CORE CODE: the value column of that row
csv_val() {
    awk -F, -v s="$1" -v n="$2" -v r="$3" -v t="$4" -v c="$5" -v k="$6" '
        $1 == s && $2 == n && $3 == r && $4 == t && $5 == c && $6 == k { print $7; f = 1; exit }
        END { if (!f) print "MISSING" }' out
}

expect_eq() { # what actual expected
    [ "$2" = "$3" ] || fail "$1 = $2, expected $3"
}

expect_range() { # what actual lo hi
    case $2 in '' | *[!0-9]*) fail "$1 = '$2', expected a number in $3..$4" ;; esac
    [ "$2" -ge "$3" ] && [ "$2" -le "$4" ] || fail "$1 = $2, expected $3..$4"
}

json_ok() {
    "$py" -m json.tool "$1" >/dev/null || fail "$1 is not valid JSON"
}

# every CSV row has as many fields as the header
csv_ok() {
    "$py" -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
n = {len(r) for r in rows}
sys.exit(0 if len(rows) > 1 and n == {8} else "columns: %s" % sorted(n))' "$1" ||
        fail "$1: uneven CSV"
}

case $scenario in
# ---------------------------------------------------------------- virtual PMU
fp)
    # N scalar double adds in region "adds": FP_DP_SCALAR there is exactly N
    run count --machine bgp -e FP_DP_SCALAR,FP_OPS,INSTRUCTIONS --csv -- "$prog" adds 100000
    expect_rc 0
    expect_err "virtual PMU, machine bgp (modeled)"
    expect_eq "region adds entries" "$(csv_val region entries adds 1 '' '')" 1
    expect_eq "region adds FP_DP_SCALAR" "$(csv_val region FP_DP_SCALAR adds 1 '' '')" 100000
    expect_eq "region adds FP_OPS" "$(csv_val region FP_OPS adds 1 '' '')" 100000
    expect_range "FP_DP_SCALAR" "$(csv_val event FP_DP_SCALAR '' '' '' '')" 100000 100100
    expect_range "PU0_FP_DP_SCALAR" "$(csv_val event FP_DP_SCALAR '' '' 0 29)" 100000 100100
    expect_eq "PU1_FP_DP_SCALAR" "$(csv_val event FP_DP_SCALAR '' '' 1 85)" 0
    ;;
cold)
    # N loads of N cold 32-byte lines: exactly N read misses, on nol3.machine
    # (L1D 32 KB, 32-byte lines, LRU; it says why not bgl's FIFO L1D). N = 500
    # fills half of the L1D, so the program's hot lines stay.
    for n in 1 500; do
        run count --machine "$src/nol3.machine" -e L1D_READ_MISSES,LOADS --csv -- "$prog" cold $n 32
        expect_rc 0
        expect_eq "region cold entries" "$(csv_val region entries cold 1 '' '')" 1
        expect_eq "region cold L1D_READ_MISSES (N = $n)" \
            "$(csv_val region L1D_READ_MISSES cold 1 '' '')" $n
        # + the function's return and the region request's result (stack, hot)
        expect_range "region cold LOADS" "$(csv_val region LOADS cold 1 '' '')" $n $((n + 4))
    done
    ;;
branch)
    # a dec/jnz loop of N iterations: N conditional branches, N - 1 taken
    run count --machine bgp -e BR_COND,BR_COND_TAKEN,BR_COND_NOT_TAKEN --csv -- "$prog" branch 50000
    expect_rc 0
    expect_eq "region branch BR_COND" "$(csv_val region BR_COND branch 1 '' '')" 50000
    expect_eq "region branch BR_COND_TAKEN" "$(csv_val region BR_COND_TAKEN branch 1 '' '')" 49999
    expect_eq "region branch BR_COND_NOT_TAKEN" "$(csv_val region BR_COND_NOT_TAKEN branch 1 '' '')" 1
    expect_range "BR_COND" "$(csv_val event BR_COND '' '' '' '')" 50000 100000000
    ;;
x87)
    # an instruction that leaves its superblock with an emulation warning
    # (fldcw to single precision) has retired: it counts
    run count --machine bgp -e INSTRUCTIONS,BR_COND --csv -- "$prog" x87 20000
    expect_rc 0
    expect_eq "region x87 BR_COND" "$(csv_val region BR_COND x87 1 '' '')" 20000
    expect_range "region x87 INSTRUCTIONS" "$(csv_val region INSTRUCTIONS x87 1 '' '')" 80000 80040
    ;;
manythreads)
    # a thousand threads alive at once (Valgrind's default is 500 slots)
    run count -e FP_DP_SCALAR --csv -- "$prog" threads 1000 100
    expect_rc 0
    expect_eq "threads" "$(csv_val info threads '' '' '' '')" 1001
    expect_eq "FP_DP_SCALAR" "$(csv_val event FP_DP_SCALAR '' '' '' '')" 100000
    ;;
slots)
    # more threads at once (100: the program's barrier keeps them alive)
    # than --max-threads' slots hold: the tool stops the program at the
    # next creation, hpm reports the counts so far with Valgrind's status
    # for a panic (1) and a note that says why
    run count -e INSTRUCTIONS --max-threads 64 --csv -- "$prog" threads 100 10
    expect_rc 1
    expect_eq "threads" "$(csv_val info threads '' '' '' '')" 63
    expect_range "INSTRUCTIONS" "$(csv_val event INSTRUCTIONS '' '' '' '')" 10000 100000000
    run count -e INSTRUCTIONS --max-threads=64 -- "$prog" threads 100 10
    expect_rc 1
    expect_out "the most the simulator's thread slots hold (--max-threads=64)"
    expect_err "it was stopped there; the counts up to that point are kept"
    run count -e FP_DP_SCALAR --max-threads 128 --csv -- "$prog" threads 100 10
    expect_rc 0
    expect_eq "FP_DP_SCALAR" "$(csv_val event FP_DP_SCALAR '' '' '' '')" 1000
    run count -e INSTRUCTIONS --max-threads 8 -- "$prog" threads 2 10
    expect_rc 2
    expect_err "--max-threads"
    ;;
debugcache)
    # Valgrind reads libc6-dbg's debug file at every process's start and
    # inflates its compressed DWARF each time: the tool reads hpm's
    # decompressed copy instead (src/debugcache, src/vpmu/vpmu_debugcopy.c),
    # which hpm makes after the first run that wanted it. The counts are the
    # same with it, without it and with no cache (the environment keeps its
    # size: where the stack starts moves a count).
    libc=$(ldd "$prog" | awk '/libc\.so\.6/ { print $3 }')
    id=$(readelf -n "$libc" 2>/dev/null | awk '/Build ID/ { print $3 }')
    dbg=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
    if [ -z "$id" ] || [ ! -f "$dbg" ] || ! readelf -SW "$dbg" 2>/dev/null | grep '\.debug_info' | grep -q ' C '; then
        echo "skip: no compressed debug file for $libc ($dbg)"
        exit 0
    fi
    counts() { grep -v '^info,host\|,measured$' out; }
    : > cacheB # a file, not a directory: no cache
    mkdir cacheA
    export HPM_DEBUG_CACHE="$PWD/cacheB"
    run count -e INSTRUCTIONS,LOADS,L1D_MISSES --csv -- "$prog" adds 1000
    expect_rc 0
    counts > plain.csv
    expect_range "INSTRUCTIONS" "$(csv_val event INSTRUCTIONS '' '' '' '')" 1000 10000000
    export HPM_DEBUG_CACHE="$PWD/cacheA"
    run count -e INSTRUCTIONS,LOADS,L1D_MISSES --csv -- "$prog" adds 1000
    expect_rc 0
    counts | cmp -s - plain.csv || fail "the counts differ with the cache: $(counts | diff - plain.csv)"
    copy=cacheA/$id.debug
    [ -f "$copy" ] || fail "no copy made after the run: $(ls cacheA)"
    ! readelf -SW "$copy" 2>/dev/null | grep '\.debug_info' | grep -q ' C ' || fail "the copy is compressed"
    ls cacheA | grep -q '\.want$\|\.tmp$' && fail "a want or a temporary copy was left: $(ls cacheA)"
    # the next run's tool reads the copy, not the original (strace, where
    # this machine lets it trace), with the same counts
    inode=$(stat -c %i "$copy")
    if strace -f -o /dev/null true 2>/dev/null; then
        strace -f -e trace=open,openat -o trace.txt "$hpm" count -e INSTRUCTIONS,LOADS,L1D_MISSES \
            --csv -- "$prog" adds 1000 >out 2>err || fail "hpm count under strace failed"
        grep -q "\"$PWD/$copy\", O_RDONLY) = [0-9]" trace.txt || fail "the tool did not read the copy"
        grep -q "\"$dbg\", O_RDONLY) = [0-9]" trace.txt && fail "the tool read the compressed original"
    else
        run count -e INSTRUCTIONS,LOADS,L1D_MISSES --csv -- "$prog" adds 1000
        echo "note: strace cannot trace here: which file the tool read is not checked"
    fi
    counts | cmp -s - plain.csv || fail "the counts differ with the copy: $(counts | diff - plain.csv)"
    [ "$(stat -c %i "$copy")" = "$inode" ] || fail "the copy was made again"
    # a damaged copy is not given to the tool (the original is read), and
    # is made again after the run; wants with names of no build-id go
    echo damaged > "$copy"
    : > cacheA/zz.want
    : > "cacheA/$id.want.want"
    run count -e INSTRUCTIONS,LOADS,L1D_MISSES --csv -- "$prog" adds 1000
    expect_rc 0
    counts | cmp -s - plain.csv || fail "the counts differ with a damaged copy"
    readelf -h "$copy" > /dev/null 2>&1 || fail "the damaged copy was not made again"
    ls cacheA | grep -q '\.want' && fail "a want was left: $(ls cacheA)"
    # a FIFO in a copy's place or a want's is neither waited for nor read
    rm -f "$copy"
    mkfifo "$copy" "cacheA/0123abcd.want"
    run count -e INSTRUCTIONS,LOADS,L1D_MISSES --csv -- "$prog" adds 1000
    expect_rc 0
    counts | cmp -s - plain.csv || fail "the counts differ with a FIFO in the cache"
    [ -f "$copy" ] || fail "the FIFO in the copy's place was not replaced by a copy"
    # off: no cache, and nothing made
    rm -f cacheA/*
    export HPM_DEBUG_CACHE=off
    run count -e INSTRUCTIONS,LOADS,L1D_MISSES --csv -- "$prog" adds 1000
    expect_rc 0
    [ -z "$(ls cacheA)" ] || fail "a copy made with HPM_DEBUG_CACHE=off: $(ls cacheA)"
    unset HPM_DEBUG_CACHE
    ;;
threads)
    # main + 4 workers on 4 cores, round robin: thread s on core (s - 1) mod 4
    run count --machine bgp -e FP_DP_SCALAR,INSTRUCTIONS --per-thread --csv -- "$prog" threads 4 20000
    expect_rc 0
    expect_eq "threads" "$(csv_val info threads '' '' '' '')" 5
    for t in 2 3 4 5; do
        c=$(((t - 1) % 4))
        expect_eq "thread $t FP_DP_SCALAR" "$(csv_val thread FP_DP_SCALAR '' $t $c '')" 20000
        expect_eq "region worker thread $t FP_DP_SCALAR" \
            "$(csv_val region FP_DP_SCALAR worker $t '' '')" 20000
        expect_eq "region worker thread $t entries" "$(csv_val region entries worker $t '' '')" 1
    done
    expect_range "FP_DP_SCALAR" "$(csv_val event FP_DP_SCALAR '' '' '' '')" 80000 80100
    csv_ok out
    run count --machine bgp -e FP_DP_SCALAR --per-thread -- "$prog" threads 4 20000
    expect_rc 0
    expect_out "per thread"
    expect_out "T5/PU0"
    expect_out "region worker"
    ;;
crash)
    # SIGSEGV after some work: hpm exits 128 + 11 and still reports
    run count --machine bgp -e FP_DP_SCALAR,INSTRUCTIONS -- "$prog" crash 5000
    expect_rc 139
    expect_out "program killed by signal 11 (Segmentation fault); counts up to that point"
    expect_err "program killed by signal 11"
    expect_out "FP_DP_SCALAR"
    run count --machine bgp -e FP_DP_SCALAR --csv -- "$prog" crash 5000
    expect_rc 139
    expect_eq "exit_signal" "$(csv_val info exit_signal '' '' '' '')" 11
    expect_range "FP_DP_SCALAR" "$(csv_val event FP_DP_SCALAR '' '' '' '')" 5000 5100
    ;;
exit3)
    run count -e INSTRUCTIONS -- "$prog" exit 3
    expect_rc 3
    expect_out "status 3"
    ;;
json)
    # every event the machine provides, as JSON, written atomically with -o
    run count --json -o report.json -- "$prog" adds 1000
    expect_rc 0
    [ -s report.json ] || fail "no report.json"
    [ -e report.json.tmp ] && fail "report.json.tmp left behind"
    json_ok report.json
    n=$("$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["events"]))' report.json)
    expect_range "events in the default set" "$n" 64 1000
    "$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["source"] == "modeled" and d["exit"]["status"] == 0, d["exit"]
assert d["host"]["source"] == "measured" and d["host"]["user_time_s"] >= 0
names = {m["name"] for m in d["derived"]}
assert {"ipc", "l1d_miss_ratio", "mispredict_ratio"} <= names, names
r = [x for x in d["regions"] if x["name"] == "adds"]
assert r and r[0]["counts"]["FP_DP_SCALAR"] == 1000, r' report.json || fail "JSON content"
    ;;
csv)
    run count --csv --per-core --per-thread -- "$prog" adds 1000
    expect_rc 0
    csv_ok out
    expect_eq "source" "$(csv_val info source '' '' '' '')" modeled
    ;;
text)
    run count --per-core -- "$prog" adds 1000
    expect_rc 0
    for s in "virtual PMU (modeled)" "Counter" "INSTRUCTIONS" "PU3" "host (measured, kernel)" \
        "includes Valgrind's own work" "IPC" "MFLOP/s" "L3 miss ratio" "region adds"; do
        expect_out "$s"
    done
    ;;
run)
    # hpm run: no report, the program's status, fork/exec children traced
    run run -- "$prog" probe 7
    expect_rc 7
    expect_out "parent tool=yes"
    expect_out "child tool=yes"
    [ "$(grep -c . out)" -eq 2 ] || fail "hpm run printed more than the program"
    run run --json -- "$prog" probe 0
    expect_rc 2
    expect_err "prints no report"
    ;;
run_model)
    # hpm run starts the models when the program asks (cold), --model=always
    # and hpm count from the start; a miss needs the cache model running
    run run -- "$prog" model 200
    expect_rc 0
    expect_out "before=0 request=1 after=200"
    run run --model=always -- "$prog" model 200
    expect_rc 0
    expect_out "before=200 request=0 after=200"
    run run --model=sometimes -- "$prog" model 200
    expect_rc 2
    expect_err "--model takes on-demand or always"
    run count --model=always -- "$prog" model 200
    expect_rc 2
    expect_err "hpm run option"
    # one model at a time: each starts cold when asked for, cycles last,
    # and the caches (with the TLBs) miss the same whether the predictor
    # runs beside them or waits (every round's misses as when both started
    # together); a request with an unknown model is refused
    run run --model=always -- "$prog" model_parts 200 separate
    expect_rc 0
    grep -q "request=1" out && fail "--model=always: a model waited"
    run run -- "$prog" model_parts 200 together
    expect_rc 0
    cp out together
    run run -- "$prog" model_parts 200 separate
    expect_rc 0
    expect_out "bad=-"
    expect_out "round=0 request=0 misses=0 mispredicts=0 cycles=0$"
    expect_out "round=1 request=1 misses=[0-9]* mispredicts=0 cycles=0$"
    expect_out "round=2 request=0 misses=[0-9]* mispredicts=0 cycles=0$"
    expect_out "round=3 request=1 misses=[0-9]* mispredicts=[1-9][0-9]* cycles=0$"
    expect_out "round=4 request=1 misses=[0-9]* mispredicts=[1-9][0-9]* cycles=[1-9][0-9]*"
    misses() { sed -n "s/^round=$2 .*misses=\\([0-9]*\\) .*/\\1/p" "$1"; }
    for r in 1 2 3 4; do
        # round 1 also misses the lines the program's own code touches
        # first after the caches' cold start
        if [ "$r" = 1 ]; then hi=300; else hi=210; fi
        expect_range "round $r's misses" "$(misses out $r)" 200 "$hi"
        expect_eq "round $r's misses, the predictor waiting" "$(misses out $r)" \
            "$(misses together $r)"
    done
    grep -q "^round=1 request=1 .*mispredicts=[1-9]" together ||
        fail "together: the predictor did not start with the caches"
    ;;
exec)
    # counts before and after an exec are summed, in one report that names
    # the new program; the exit status is the last program's
    run count -e FP_DP_SCALAR --csv -- "$prog" execadds 1000 2000
    expect_rc 0
    expect_eq "FP_DP_SCALAR over the exec" "$(csv_val event FP_DP_SCALAR '' '' '' '')" 3000
    grep -q "^note,.*exec'd 1 time (.*execadds 1000 2000 -> .*adds 2000)" out ||
        fail "no note naming the exec'd program"
    printf '#!/bin/sh\nexec "%s" exit 3\n' "$prog" >w.sh && chmod +x w.sh
    run count -e INSTRUCTIONS -- ./w.sh
    expect_rc 3
    expect_out "exit      status 3"
    grep -q "wrote no output" err && fail "the exec lost the counts"
    ;;
children)
    # the process tree is counted by default: a shell running two children
    run count -e FP_DP_SCALAR --csv -- sh -c "\"$prog\" adds 1000; \"$prog\" adds 2000"
    expect_rc 0
    expect_eq "FP_DP_SCALAR of the tree" "$(csv_val event FP_DP_SCALAR '' '' '' '')" 3000
    grep -q '^note,.*sum over 3 processes' out || fail "no note on the processes summed"
    [ "$(grep -c '^process,FP_DP_SCALAR,' out)" -eq 3 ] || fail "not 3 process rows"
    # each process row says where its count comes from, as the event's
    # row does: the host's clock measured, the node's count modeled (CSV's
    # last column; JSON's measured_counts beside a process's "modeled")
    run count -e FP_DP_SCALAR,KERNEL_HOST_SYSCALL_NS --csv -- sh -c "\"$prog\" adds 1000; \"$prog\" adds 2000"
    expect_rc 0
    grep -q '^event,KERNEL_HOST_SYSCALL_NS,,,,,[0-9]*,measured$' out || fail "event row not measured"
    [ "$(grep -c '^process,KERNEL_HOST_SYSCALL_NS,[0-9]*,,,,[0-9]*,measured$' out)" -eq 3 ] ||
        fail "the processes' host rows are not 3 measured rows"
    [ "$(grep -c '^process,FP_DP_SCALAR,[0-9]*,,,,[0-9]*,modeled$' out)" -eq 3 ] ||
        fail "the processes' modeled rows are not 3 modeled rows"
    run count -e FP_DP_SCALAR,KERNEL_HOST_SYSCALL_NS --json -o tree.json -- sh -c "\"$prog\" adds 1000"
    expect_rc 0
    json_ok tree.json
    "$py" -c 'import json,sys
d = json.load(open(sys.argv[1]))
for p in d["processes"]:
    assert p["source"] == "modeled" and p["measured_counts"] == ["KERNEL_HOST_SYSCALL_NS"], p
    assert set(p["counts"]) == {"FP_DP_SCALAR", "KERNEL_HOST_SYSCALL_NS"}, p
print(len(d["processes"]))' tree.json >n.txt || fail "processes' measured_counts wrong in JSON"
    [ "$(cat n.txt)" -ge 1 ] || fail "no processes in the JSON report"
    # a child that outlives the program is waited for and counted
    run count -e FP_DP_SCALAR --csv -- "$prog" orphan 1000 3000
    expect_rc 0
    expect_eq "FP_DP_SCALAR with the orphan" "$(csv_val event FP_DP_SCALAR '' '' '' '')" 4000
    # --no-children: the program alone, said so; the orphan that outlives hpm
    # must not complain about the folder hpm removed
    run count -e FP_DP_SCALAR --no-children --csv -- "$prog" orphan 1000 3000
    expect_rc 0
    expect_eq "FP_DP_SCALAR, --no-children" "$(csv_val event FP_DP_SCALAR '' '' '' '')" 1000
    grep -q '^note,.*started 1 more process; --no-children' out || fail "no --no-children note"
    sleep 4 # the orphan: 1 s for its parent, then its run under the tool
    grep -q "cannot open output file" err && fail "a child that outlived hpm complained"
    ;;
kill9)
    # kill -9 of hpm: the simulator dies with it (PR_SET_PDEATHSIG), and the
    # next run removes the folder the dead hpm left (its owner is provably
    # dead); a folder whose owner lives is kept. Checked by pid, not name.
    mkdir tmp
    TMPDIR=$dir/tmp "$hpm" count -e INSTRUCTIONS -- sleep 60 >out 2>err &
    hpid=$!
    i=0 vg=
    while [ $i -lt 200 ]; do
        vg=$(awk -v p=$hpid '$4 == p { print $1 }' /proc/[0-9]*/stat 2>/dev/null | head -1)
        [ -n "$vg" ] && [ -n "$(ls tmp)" ] && break
        sleep 0.1
        i=$((i + 1))
    done
    [ -n "$vg" ] || fail "no simulator process under hpm $hpid"
    sleep 1 # valgrind has exec'd the tool
    kill -9 $hpid
    wait $hpid 2>/dev/null
    i=0
    while kill -0 "$vg" 2>/dev/null && [ $i -lt 50 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    kill -0 "$vg" 2>/dev/null && { kill -9 "$vg"; fail "simulator $vg outlived hpm"; }
    stale=$(ls tmp)
    [ -n "$stale" ] || fail "hpm left no folder (expected one to reap)"
    # a folder whose owner is alive (this shell) is not touched
    mkdir tmp/hpm-count.live01
    echo "$$ $(awk '{ sub(/.*\) /, ""); print $20 }' /proc/$$/stat)" >tmp/hpm-count.live01/owner
    TMPDIR=$dir/tmp run count -e INSTRUCTIONS -- true
    expect_rc 0
    [ -e "tmp/$stale" ] && fail "the dead hpm's folder $stale was not removed"
    [ -e /dev/shm/hpm-live.$pidns.$vg ] && fail "the killed simulator's live view was not removed"
    # and no gdbserver FIFOs of the killed simulator (hpm runs it --vgdb=no)
    ls tmp/vgdb-pipe-*-"$vg"-* /tmp/vgdb-pipe-*-"$vg"-* >/dev/null 2>&1 &&
        fail "the killed simulator left Valgrind's gdbserver FIFOs"
    [ -d tmp/hpm-count.live01 ] || fail "a live owner's folder was removed"
    ;;
live)
    # another process reads the live view while the program runs: counts
    # only grow, and a reader that follows it to its end gets its final
    # counts (the report's) and a clear end
    "$hpm" count -e FP_DP_SCALAR --csv -o r.csv -- "$prog" adds 150000000 >/dev/null 2>err &
    hpid=$!
    i=0 pid=
    while [ $i -lt 300 ] && [ -z "$pid" ]; do
        pid=$(awk -v p=$hpid '$4 == p { print $1 }' /proc/[0-9]*/stat 2>/dev/null | head -1)
        [ -n "$pid" ] && [ -e /dev/shm/hpm-live.$pidns.$pid ] || pid=
        sleep 0.1
        i=$((i + 1))
    done
    [ -n "$pid" ] || fail "no live view of the program appeared"
    "$hpm" stat -p $pid -I 100 -e FP_DP_SCALAR --csv >series.csv 2>stat.err &
    spid=$!
    last=0 n=0
    while kill -0 $hpid 2>/dev/null; do
        v=$("$hpm" stat -p $pid -e FP_DP_SCALAR --csv 2>/dev/null | awk -F, '$3 == "FP_DP_SCALAR" { print $4 }')
        if [ -n "$v" ]; then
            [ "$v" -ge "$last" ] || fail "live count went down: $last then $v"
            last=$v n=$((n + 1))
        fi
        sleep 0.2
    done
    wait $hpid || fail "hpm count failed: $(cat err)"
    wait $spid
    [ $n -ge 2 ] || fail "only $n live readings while the program ran"
    total=$(awk -F, '$1 == "event" && $2 == "FP_DP_SCALAR" && $5 == "" { print $7 }' r.csv)
    final=$(tail -1 series.csv | awk -F, '{ print $5 }')
    expect_eq "the reader's last total" "$final" "$total"
    grep -q "process $pid ended (status 0)" stat.err || fail "no clear end: $(cat stat.err)"
    [ -e /dev/shm/hpm-live.$pidns.$pid ] && fail "the live view outlived the process"
    # a process that is not under hpm, and a bad pid
    run stat -p 1
    expect_rc 1
    expect_err "process 1 does not run under hpm"
    run stat -p abc
    expect_rc 2
    ;;
interval)
    # hpm count -I: the series' deltas sum to the report's totals
    run count -I 50 -e FP_DP_SCALAR,INSTRUCTIONS --csv -o r.csv -- "$prog" adds 30000000
    expect_rc 0
    for e in FP_DP_SCALAR INSTRUCTIONS; do
        sum=$(awk -F, -v e=$e '$2 == e && $1 ~ /^[0-9]/ { s += $3 } END { printf "%d", s }' err)
        total=$(awk -F, -v e=$e '$1 == "event" && $2 == e && $5 == "" { print $7 }' r.csv)
        expect_eq "sum of $e deltas" "$sum" "$total"
    done
    [ "$(grep -c '^[0-9].*,FP_DP_SCALAR,' err)" -ge 2 ] || fail "fewer than 2 intervals"
    # JSON lines parse, one object per line
    # (a host clock's lines say measured, as the report's row does)
    run count -I 50 -e FP_DP_SCALAR,KERNEL_HOST_SYSCALL_NS --json -o r.json -- "$prog" adds 3000000
    expect_rc 0
    grep '^{' err | "$py" -c '
import json, sys
n = {"FP_DP_SCALAR": 0, "KERNEL_HOST_SYSCALL_NS": 0}
want = {"FP_DP_SCALAR": "modeled", "KERNEL_HOST_SYSCALL_NS": "measured"}
for line in sys.stdin:
    d = json.loads(line); n[d["event"]] += 1
    assert d["source"] == want[d["event"]], line
assert min(n.values()) >= 1, n' || fail "interval JSON lines do not parse or say the wrong source"
    # the series plots (gnuplot) into a well-formed SVG and a PNG
    run count -I 50 -e FP_DP_SCALAR,INSTRUCTIONS --csv -o r.csv -- "$prog" adds 30000000
    cp err series.csv
    run plot series.csv -o s.svg
    expect_rc 0
    xmllint --noout s.svg || fail "s.svg is not well-formed XML"
    grep -q "FP_DP_SCALAR" s.svg || fail "s.svg lacks the event"
    run plot series.csv -o s.png -e INSTRUCTIONS --total
    expect_rc 0
    [ "$(head -c 4 s.png | od -An -c | tr -d ' ')" = "211PNG" ] || fail "s.png is not a PNG"
    # with cycles counted, the series has modeled time: its last point is
    # the report's cycles at the clock, and the plot's axis and rates are
    # in it, titled with the program and events
    run count -I 50 -e FP_DP_SCALAR,CYCLES --csv -o m.csv -- "$prog" adds 3000000
    expect_rc 0
    cp err mseries.csv
    grep -q "^time_s,event,delta,rate_per_s,total,modeled_s,rate_per_modeled_s$" mseries.csv ||
        fail "no modeled columns: $(head -3 mseries.csv)"
    last=$(awk -F, '$2 == "CYCLES" && $1 ~ /^[0-9]/ { m = $6 } END { printf "%.0f", m * 850000000 }' mseries.csv)
    cyc=$(awk -F, '$1 == "event" && $2 == "CYCLES" && $5 == "" { print $7 }' m.csv)
    [ "$(( last - cyc ))" -le 1 ] && [ "$(( cyc - last ))" -le 1 ] ||
        fail "modeled time $last cycles, the report $cyc"
    run plot mseries.csv -o m.svg
    expect_rc 0
    grep -q "modeled time (s)" m.svg || fail "m.svg's axis is not modeled time"
    grep -q "count_prog adds 3000000: FP_DP_SCALAR, CYCLES" m.svg || fail "m.svg's title"
    grep -q "host time (s): the series has no cycles" s.svg || fail "s.svg does not say host time"
    printf 'no series here\n' >bad.csv
    run plot bad.csv
    expect_rc 1
    expect_err "bad.csv:1: not an interval series line"
    run count -I 5 -- "$prog" adds 10
    expect_rc 2
    expect_err "--interval takes a number from 10 to 3600000"
    ;;
progress)
    # a run of over 2 s on a terminal (script's pseudo-terminal) shows the
    # progress line, updated in place and erased before the report; into a
    # pipe it shows none, unless --progress asks; --quiet silences it
    command -v script >/dev/null || fail "script (bsdutils) is missing"
    TERM=dumb script -qec "'$hpm' count -e INSTRUCTIONS -- /bin/sleep 3" /dev/null >tty.txt
    grep -q "elapsed, .* instructions (.*/s), 1 process, 1 thread" tty.txt ||
        fail "no progress line on a terminal: $(head -c 600 tty.txt)"
    # every line is erased (CR, erase to the end): the report starts clean
    tr '\r' '\n' <tty.txt >lines.txt
    grep -q "^$(printf '\033')\[Khpm count: /bin/sleep" lines.txt ||
        fail "the report does not start on an erased line: $(od -c tty.txt | tail -20)"
    grep -q "elapsed.*hpm count: /bin/sleep" lines.txt && fail "the report follows the line"
    grep -q "^ INSTRUCTIONS" lines.txt || fail "no report on the terminal"
    run count -e INSTRUCTIONS -- /bin/sleep 3
    expect_rc 0
    grep -q "elapsed" err && fail "a progress line into a pipe"
    run count --progress -e INSTRUCTIONS -- /bin/sleep 3
    expect_rc 0
    expect_err "^hpm: 0:0[2-9] elapsed, .* instructions"
    grep -q "$(printf '\033')" err && fail "terminal codes into a pipe"
    TERM=dumb script -qec "'$hpm' count --quiet -e INSTRUCTIONS -- /bin/sleep 3" /dev/null >tty.txt
    grep -q "elapsed\|counting on the virtual PMU" tty.txt && fail "--quiet printed progress"
    grep -q "^ INSTRUCTIONS" tty.txt || fail "--quiet lost the report"
    ;;
serve_prometheus)
    # Debian's Prometheus scrapes hpm serve (OpenMetrics, as it asks) while
    # hpm count runs a program: after the program ended, Prometheus has its
    # final counts, the report's exactly, and hpm_process_running 0;
    # promtool checks the Prometheus text format, asked for with Accept
    command -v prometheus >/dev/null && command -v promtool >/dev/null ||
        fail "prometheus and promtool are missing (scripts/install-deps.sh)"
    "$hpm" serve --port 0 --keep 10 >serve.out 2>serve.err &
    sv=$!
    i=0
    while [ $i -lt 50 ] && ! grep -q http serve.out; do sleep 0.1; i=$((i + 1)); done
    url=$(awk '{ print $3 }' serve.out)
    [ -n "$url" ] || { kill $sv; fail "hpm serve did not start: $(cat serve.err)"; }
    target=${url#http://}
    target=${target%/metrics}
    printf 'global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: hpm\n    static_configs:\n      - targets: ["%s"]\n' \
        "$target" >prom.yml
    port=$((20000 + $$ % 20000))
    prometheus --config.file=prom.yml --storage.tsdb.path=tsdb \
        --web.listen-address=127.0.0.1:$port >prom.log 2>&1 &
    pm=$!
    q() { # q PROMQL: the values of an instant query, one a line
        curl -sf --data-urlencode "query=$1" "http://127.0.0.1:$port/api/v1/query" |
            "$py" -c 'import json, sys
for r in json.load(sys.stdin)["data"]["result"]:
    print(r["value"][1])'
    }
    i=0
    while [ $i -lt 100 ] && [ "$(q 'up{job="hpm"}' 2>/dev/null)" != 1 ]; do
        sleep 0.2
        i=$((i + 1))
    done
    [ "$(q 'up{job="hpm"}')" = 1 ] ||
        { kill $sv $pm; fail "Prometheus does not scrape hpm serve: $(tail -5 prom.log)"; }
    run count -e FP_DP_SCALAR --csv -o r.csv -- "$prog" slowadds 41 2000000
    total=$(awk -F, '$1 == "event" && $2 == "FP_DP_SCALAR" && $5 == "" { print $7 }' r.csv)
    sel='{kind="FP_DP_SCALAR",core="0"} * on(pid) group_left hpm_process_info{command=~".*count_prog slowadds 41 2000000"}'
    i=0
    while [ $i -lt 50 ] && [ "$(q "hpm_events_total$sel")" != "$total" ]; do
        sleep 0.2
        i=$((i + 1))
    done
    got=$(q "hpm_events_total$sel")
    ended=$(q "hpm_process_running * on(pid) group_left hpm_process_info{command=~\".*count_prog slowadds 41 2000000\"}")
    curl -sf -H 'Accept: text/plain; version=0.0.4' -D headers.txt "$url" >text.txt
    kill $pm $sv
    wait $pm $sv
    expect_eq "Prometheus' final FP_DP_SCALAR" "$got" "$total"
    expect_eq "Prometheus' hpm_process_running at the end" "$ended" 0
    grep -qi "^Content-Type: text/plain; version=0.0.4" headers.txt || fail "$(cat headers.txt)"
    grep -q "# EOF" text.txt && fail "the text format ends with # EOF"
    promtool check metrics <text.txt >lint.txt 2>&1 || fail "promtool: $(cat lint.txt)"
    ;;
serve)
    # the OpenMetrics endpoint, scraped with curl and parsed
    "$hpm" serve --port 0 >serve.out 2>serve.err &
    sv=$!
    i=0
    while [ $i -lt 50 ] && ! grep -q http serve.out; do sleep 0.1; i=$((i + 1)); done
    url=$(awk '{ print $3 }' serve.out)
    [ -n "$url" ] || { kill $sv; fail "hpm serve did not start: $(cat serve.err)"; }
    "$hpm" run -- "$prog" slowadds 40 2000000 >/dev/null 2>&1 &
    rp=$!
    i=0 found=
    while [ $i -lt 100 ] && [ -z "$found" ]; do
        curl -sf "$url" >metrics.txt || true
        grep -q 'kind="FP_DP_SCALAR",core="0"} [1-9]' metrics.txt && found=1
        sleep 0.1
        i=$((i + 1))
    done
    wait $rp
    curl -s -o /dev/null -w '%{http_code}' "${url%/metrics}/nope" >code.txt
    kill $sv
    wait $sv
    [ -n "$found" ] || fail "no FP_DP_SCALAR count scraped: $(head -30 metrics.txt)"
    expect_eq "status of another path" "$(cat code.txt)" 404
    # each count says where it comes from, as the reports do: the host's
    # clocks measured, the node's counts modeled
    grep -q 'source="modeled",kind="FP_DP_SCALAR",core="0"} [1-9]' metrics.txt ||
        fail "FP_DP_SCALAR not modeled: $(grep FP_DP_SCALAR metrics.txt | head -3)"
    grep -q 'source="measured",kind="KERNEL_HOST_SYSCALL_NS",core="node"} [0-9]' metrics.txt ||
        fail "KERNEL_HOST_SYSCALL_NS not measured: $(grep HOST metrics.txt | head -3)"
    grep 'source="measured"' metrics.txt | grep -qv '_HOST_' &&
        fail "a count other than the host's said measured: $(grep 'source="measured"' metrics.txt | grep -v _HOST_ | head -3)"
    "$py" -c '
import re, sys
types = {}
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if line == "# EOF":
        break
    m = re.match(r"# TYPE (\w+) (counter|gauge)$", line)
    if m:
        types[m.group(1)] = m.group(2); continue
    if line.startswith("#"):
        continue
    m = re.match(r"(\w+)(\{(\w+=\"([^\"\\]|\\.)*\",?)*\})? (\d+)$", line)
    assert m, "bad sample line: " + line
    base = re.sub("_total$", "", m.group(1))
    assert base in types or m.group(1) in types, "no TYPE for " + line
else:
    sys.exit("no # EOF")' metrics.txt || fail "the exposition does not parse"
    ;;
upcwrite)
    run count -e INSTRUCTIONS -- "$prog" upcwrite
    expect_rc 0
    expect_out "the program wrote UPC registers itself (1 HPM_VPMU_UPC_WRITE request)"
    ;;
start_no)
    # counting never started (the program does not call HPM_VPMU_START)
    run count -e FP_DP_SCALAR --start=no --csv -- "$prog" adds 1000
    expect_rc 0
    expect_eq "FP_DP_SCALAR" "$(csv_val event FP_DP_SCALAR '' '' '' '')" 0
    ;;
pmu_auto)
    # --pmu=auto (the default) with catalog events: perf_event where it has
    # them all, else the virtual PMU with a note; the counts are the virtual
    # PMU's exactly then
    run count --pmu=virtual -e FP_DP_SCALAR,INSTRUCTIONS --csv -- "$prog" adds 100000
    expect_rc 0
    grep -q -- "--pmu=auto" err && fail "--pmu=virtual gave auto's note"
    cp out virtual.csv
    run count -e FP_DP_SCALAR,INSTRUCTIONS --csv -- "$prog" adds 100000
    expect_rc 0
    csv_ok out
    if [ "$(csv_val info source '' '' '' '')" = measured ]; then
        # a hardware PMU counted both (not this project's machine)
        expect_eq "pmu" "$(csv_val info pmu '' '' '' '')" perf
    else
        # the note says why auto chose the virtual PMU where a hardware PMU
        # could have counted; without one that is no news
        if [ "$(csv_val info host_pmu '' '' '' '')" = absent ]; then
            grep -q -- "--pmu=auto" err && fail "auto's note without a hardware PMU"
        else
            expect_err "hpm: note: --pmu=auto: event 'FP_DP_SCALAR' has no perf_event equivalent"
        fi
        expect_err "counting on the virtual PMU"
        expect_eq "source" "$(csv_val info source '' '' '' '')" modeled
        expect_eq "FP_DP_SCALAR" "$(csv_val event FP_DP_SCALAR '' '' '' '')" \
            "$(awk -F, '$1 == "event" && $2 == "FP_DP_SCALAR" && $6 == "" { print $7 }' virtual.csv)"
        expect_range "FP_DP_SCALAR" "$(csv_val event FP_DP_SCALAR '' '' '' '')" 100000 100000
    fi
    run count -e INSTRUCTIONS -- "$prog" adds 1000
    expect_rc 0
    if grep -q "^ host PMU  no hardware PMU here" out; then
        # no PMU at all: the report's line says so, once in the run
        [ "$(cat out err | grep -c "perf_event_open")" -eq 1 ] ||
            fail "the missing PMU is said more than once"
        grep -q -- "--pmu=auto" err && fail "auto's note without a hardware PMU"
        expect_err "^hpm: counting on the virtual PMU, machine bgp (modeled)$"
    elif grep -q "^ source    virtual PMU (modeled)" out; then
        expect_err "hpm: note: --pmu=auto: INSTRUCTIONS (perf::INSTRUCTIONS) is not available here"
        expect_err "counting on the virtual PMU instead"
    fi
    # without -e: every kind of the machine, on the virtual PMU, no note
    run count --csv -- "$prog" adds 1000
    expect_rc 0
    grep -q -- "--pmu=auto" err && fail "a run without -e gave auto's note"
    expect_eq "source" "$(csv_val info source '' '' '' '')" modeled
    # a virtual PMU option keeps auto on the virtual PMU
    run count -e TASK-CLOCK --per-core -- "$prog" adds 1000
    expect_rc 2
    expect_err "event 'TASK-CLOCK' is a perf_event event: the virtual PMU does not count it"
    ;;
pmu_perf)
    # hpm count on perf_event with its software events (no hardware PMU
    # needed); nothing of the virtual PMU runs
    mkdir tmp && TMPDIR=$dir/tmp && export TMPDIR
    work='i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done'
    run count --pmu=perf -e TASK-CLOCK,PAGE-FAULTS,CONTEXT-SWITCHES --csv -- sh -c "$work"
    expect_rc 0
    csv_ok out
    expect_err "hpm: counting TASK-CLOCK,PAGE-FAULTS,CONTEXT-SWITCHES on perf_event (measured)"
    expect_eq "source" "$(csv_val info source '' '' '' '')" measured
    expect_eq "pmu" "$(csv_val info pmu '' '' '' '')" perf
    expect_eq "event source" "$(awk -F, '$1 == "event" && $2 == "TASK-CLOCK" { print $8 }' out)" measured
    # the task clock is the CPU time the kernel measured for the program
    # (wait4's rusage, the same process): within 30% and a few ms
    tc=$(csv_val event TASK-CLOCK '' '' '' '')
    cpu_ns=$(awk -F, '$1 == "host" && ($2 == "user_time_s" || $2 == "system_time_s") { s += $7 }
                      END { printf "%d", s * 1e9 }' out)
    lo=$(( cpu_ns * 7 / 10 - 5000000 )) hi=$(( cpu_ns * 13 / 10 + 5000000 ))
    [ $lo -lt 0 ] && lo=0
    expect_range "TASK-CLOCK (CPU time $cpu_ns ns)" "$tc" $lo $hi
    expect_range "TASK-CLOCK" "$tc" 1000000 100000000000
    pf=$(csv_val event PAGE-FAULTS '' '' '' '')
    minflt=$(csv_val host minor_faults '' '' '' '')
    expect_range "PAGE-FAULTS (rusage $minflt)" "$pf" $(( minflt / 2 )) $(( minflt + 50 ))
    # the program's children are counted (inherited counters) unless
    # --no-children: here all the work is the children's
    kids="for k in 1 2 3; do sh -c '$work'; done"
    run count --pmu=perf -e TASK-CLOCK --csv -- sh -c "$kids"
    expect_rc 0
    expect_eq "inherit" "$(csv_val info inherit '' '' '' '')" yes
    tree=$(csv_val event TASK-CLOCK '' '' '' '')
    run count --pmu=perf -e TASK-CLOCK --no-children --csv -- sh -c "$kids"
    expect_rc 0
    expect_eq "inherit" "$(csv_val info inherit '' '' '' '')" no
    alone=$(csv_val event TASK-CLOCK '' '' '' '')
    [ "$tree" -gt $(( 3 * alone )) ] || fail "the tree's TASK-CLOCK $tree is not well above the shell's alone ($alone)"
    # names: perf's, its PERF_COUNT_SW_ name, the perf:: prefix, any case
    run count --pmu=perf -e perf::task-clock,PERF_COUNT_SW_PAGE_FAULTS --json -o r.json -- true
    expect_rc 0
    json_ok r.json
    grep -q '"name":"TASK-CLOCK","kind":null,"perf_event":"perf::TASK-CLOCK"' r.json ||
        fail "no TASK-CLOCK in r.json"
    grep -q '"name":"PAGE-FAULTS"' r.json || fail "no PAGE-FAULTS in r.json"
    # auto picks perf_event for its own names
    run count -e TASK-CLOCK -- true
    expect_rc 0
    expect_out "source    perf_event (measured)"
    # perf stat's default events where no -e is given
    run count --pmu=perf -- true
    expect_rc 0
    expect_out "TASK-CLOCK"
    expect_out "PAGE-FAULTS"
    # the program's status and fatal signal are hpm's
    run count --pmu=perf -e TASK-CLOCK -- sh -c 'exit 3'
    expect_rc 3
    run count --pmu=perf -e TASK-CLOCK -- sh -c 'kill -SEGV $$'
    expect_rc 139
    expect_out "program killed by signal 11 (Segmentation fault); counts up to that point"
    # hardware events: counted where the PMU has them, else a clear error
    run count --pmu=perf -e INSTRUCTIONS,CYCLES --csv -- true
    if [ $rc -eq 0 ]; then
        expect_range "INSTRUCTIONS" "$(csv_val event INSTRUCTIONS '' '' '' '')" 1 100000000000
    else
        expect_rc 2
        expect_err "hpm count: --pmu=perf: INSTRUCTIONS (perf::INSTRUCTIONS) is not available here"
        expect_err "no hardware PMU"
    fi
    # what perf_event cannot count at all
    run count --pmu=perf -e L2_MISSES -- true
    expect_rc 2
    expect_err "event 'L2_MISSES' has no perf_event equivalent"
    run count --pmu=perf -e PU0_INSTRUCTIONS -- true
    expect_rc 2
    expect_err "belongs to the modeled machine"
    run count --pmu=perf -e NOSUCH_EVENT -- true
    expect_rc 2
    expect_err "unknown event 'NOSUCH_EVENT'"
    run count --pmu=perf --machine bgl -e TASK-CLOCK -- true
    expect_rc 2
    expect_err "--machine is an option of the virtual PMU"
    run count --pmu=perf -I 100 -e TASK-CLOCK -- true
    expect_rc 2
    expect_err "-I is an option of the virtual PMU"
    run count --pmu=bogus -e TASK-CLOCK -- true
    expect_rc 2
    run run --pmu=perf -- true
    expect_rc 2
    expect_err "hpm run: counts on the virtual PMU only"
    run count --pmu=perf -e TASK-CLOCK -- ./no-such-program
    expect_rc 127
    expect_err "command not found"
    [ -z "$(ls -A tmp)" ] || fail "left in TMPDIR: $(ls -A tmp)"
    ;;
# ---------------------------------------------------------------- the runner, on a fake tool
fake_*)
    # fake_valgrind.sh stands in for the tool; TMPDIR must be left empty
    mkdir -p lib "tmp%dir" && : >lib/hpm-amd64-linux && chmod +x lib/hpm-amd64-linux
    HPM_VALGRIND=$src/fake_valgrind.sh HPM_VALGRIND_LIB=$dir/lib TMPDIR="$dir/tmp%dir"
    export HPM_VALGRIND HPM_VALGRIND_LIB TMPDIR
    case $scenario in
    fake_env)
        # OpenMP programs (libgomp) wait passively unless the user chose a
        # policy; any other program's environment is left as it is
        # (docs/vpmu.md)
        run count -e INSTRUCTIONS -o r.txt -- "$prog"
        expect_rc 0
        expect_out "policy=passive threads=1"
        OMP_WAIT_POLICY=active run count -e INSTRUCTIONS -o r.txt -- "$prog"
        expect_rc 0
        expect_out "policy=active threads=1"
        run count -e INSTRUCTIONS -o r.txt -- sh -c 'echo "policy=$OMP_WAIT_POLICY."'
        expect_rc 0
        expect_out "policy=."
        ;;
    fake_exit)
        run count -e INSTRUCTIONS -o r.txt -- sh -c 'echo program-output; exit 5'
        expect_rc 5
        expect_out "program-output"
        grep -q "status 5" r.txt || fail "r.txt lacks the status"
        grep -q "^ INSTRUCTIONS  *4336 " r.txt || fail "r.txt lacks INSTRUCTIONS = 4 x 1000 + 0 + 56 + 112 + 168"
        [ -e r.txt.tmp ] && fail "r.txt.tmp left behind"
        # -o onto something that is not a regular file (a symbolic link here;
        # /dev/null likewise) is written in place, never renamed over
        ln -s real.txt link.txt
        run count -e INSTRUCTIONS -o link.txt -- true
        expect_rc 0
        [ -L link.txt ] || fail "link.txt replaced: -o renamed over a non-regular file"
        grep -q "status 0" real.txt || fail "real.txt lacks the report"
        # --note: the user's texts are in a run's report, text and JSON
        run count --note "build 1234" --note=second -e INSTRUCTIONS -- true
        expect_rc 0
        expect_out "^ note      build 1234$"
        expect_out "^ note      second$"
        run count --json --note "build 1234" -e INSTRUCTIONS -- true
        expect_rc 0
        expect_out '"notes":\["build 1234"\]'
        ;;
    fake_signal)
        run count -e PU2_INSTRUCTIONS --csv -- sh -c 'kill -SEGV $$'
        expect_rc 139
        expect_err "program killed by signal 11 (Segmentation fault); counts up to that point"
        expect_eq "PU2_INSTRUCTIONS" "$(csv_val event PU2_INSTRUCTIONS '' '' 2 112)" 1112
        expect_eq "exit_signal" "$(csv_val info exit_signal '' '' '' '')" 11
        grep -q '^note,.*program killed by signal 11' out || fail "no note row"
        ;;
    fake_term)
        # SIGTERM sent to hpm reaches the program; the counts are still reported
        # (hpm blocks SIGTERM from before its fork until the forwarder is in
        # place, so once the program runs the signal is forwarded for sure)
        # signal_hpm SIG: run the program under hpm, send SIG to hpm once
        # it runs, wait; rc is hpm's status
        signal_hpm() {
            rm -f ready
            FAKE_READY=$dir/ready "$hpm" count -e INSTRUCTIONS -- sleep 30 >out 2>err &
            pid=$!
            i=0
            while [ ! -e ready ] && [ $i -lt 300 ]; do
                sleep 0.1
                i=$((i + 1))
            done
            [ -e ready ] || fail "the program did not start"
            kill -$1 $pid
            wait $pid
            rc=$?
        }
        signal_hpm TERM
        expect_rc 143
        expect_out "killed by signal 15 (Terminated)"
        # SIGHUP (the terminal went away) likewise: hpm reports and cleans up
        signal_hpm HUP
        expect_rc 129
        expect_out "killed by signal 1 (Hangup)"
        ;;
    fake_fork)
        FAKE_FORK=1 run count -e INSTRUCTIONS -- true
        expect_rc 0
        expect_out "counts are the sum over 2 processes"
        expect_out "^ INSTRUCTIONS  *8672 "
        FAKE_FORK=1 run count --no-children -e INSTRUCTIONS -- true
        expect_rc 0
        expect_out "the program started 1 more process; --no-children"
        expect_out "^ INSTRUCTIONS  *4336 "
        # the program's arguments (the header) and the argv it gives a
        # child (the process table) reach the terminal without their
        # control characters: an escape sequence would retitle or clear it
        esc=$(printf '\033') bel=$(printf '\007')
        FAKE_FORK=1 FAKE_CHILD_COMMAND="child ${esc}]0;TITLE$bel" \
            run count -e INSTRUCTIONS -- true "x${esc}[2Jy"
        expect_rc 0
        grep -q "$esc" out && fail "an escape character reached the report"
        grep -q "$bel" out && fail "a bell character reached the report"
        expect_out "^hpm count: true 'x?\[2Jy'$"
        expect_out " child ?\]0;TITLE?$"
        ;;
    fake_output)
        # -o is checked before the program runs: a folder is refused
        mkdir adir
        run count -e INSTRUCTIONS -o adir -- touch ran
        expect_rc 2
        expect_err "adir: it is a directory"
        [ -e ran ] && fail "the program ran though -o could not be written"
        # the temporary file is new and unique: a link where FILE.tmp used
        # to be is never followed, and FILE ends up a regular file
        echo precious >victim
        ln -s victim r.txt.tmp
        run count -e INSTRUCTIONS -o r.txt -- true
        expect_rc 0
        [ "$(cat victim)" = precious ] || fail "a link beside -o was followed"
        [ -f r.txt ] && [ ! -L r.txt ] || fail "r.txt is not a regular file"
        rm -f r.txt.tmp victim
        # concurrent runs with the same -o: every one succeeds, the file is
        # one whole report, no temporary is left
        i=0
        while [ $i -lt 20 ]; do
            "$hpm" count -e INSTRUCTIONS -o same.txt -- true >/dev/null 2>>cerr &
            "$hpm" count -e INSTRUCTIONS -o same.txt -- true >/dev/null 2>>cerr &
            wait || true
            i=$((i + 1))
        done
        grep -q "cannot" cerr && fail "a concurrent run failed: $(head -3 cerr)"
        grep -q "status 0" same.txt || fail "same.txt is not a report"
        [ "$(ls | grep -c '^same\.txt')" -eq 1 ] || fail "temporary files left: $(ls)"
        ;;
    fake_owner)
        # a running hpm's folder whose owner file names a pid that is dead
        # here (as a pid of another pid namespace is): another hpm leaves
        # it, since its owner holds the folder's lock
        FAKE_READY=$dir/ready "$hpm" count -e INSTRUCTIONS -o a.txt -- sleep 2 >aout 2>aerr &
        apid=$!
        i=0
        while [ ! -e ready ] && [ $i -lt 300 ]; do
            sleep 0.1
            i=$((i + 1))
        done
        [ -e ready ] || fail "the program did not start"
        a=$(ls "tmp%dir")
        echo "999999999 1" >"tmp%dir/$a/owner"
        run count -e INSTRUCTIONS -- true
        expect_rc 0
        [ -d "tmp%dir/$a" ] || fail "a running hpm's folder was removed"
        wait $apid
        rc=$?
        expect_rc 0
        grep -q "status 0" a.txt || fail "the first run's report is missing: $(cat aerr)"
        # the folder of a dead owner that nobody holds goes
        mkdir "tmp%dir/hpm-count.dead01"
        echo "999999999 1" >"tmp%dir/hpm-count.dead01/owner"
        run count -e INSTRUCTIONS -- true
        expect_rc 0
        [ -d "tmp%dir/hpm-count.dead01" ] && fail "a dead owner's folder was left"
        ;;
    fake_no_output)
        # the output folder gone (another process removed it): a clear
        # error, no abort (this scenario also runs under ASan)
        FAKE_RM_DIR=1 run count -e INSTRUCTIONS -o r.txt -- true
        expect_rc 1
        expect_err "the virtual PMU's output is unusable"
        [ -e r.txt ] && fail "r.txt written"
        FAKE_RM_DIR=1 run profile -e INSTRUCTIONS -o p.out -- true
        [ "$rc" -lt 128 ] || fail "hpm profile died of signal $((rc - 128))"
        FAKE_NO_OUTPUT=1 run count -e INSTRUCTIONS -o r.txt -- true
        expect_rc 1
        expect_err "the virtual PMU wrote no output"
        [ -e r.txt ] && fail "r.txt written"
        ;;
    *)
        echo "unknown scenario $scenario" >&2
        exit 2
        ;;
    esac
    [ -z "$(ls -A "tmp%dir")" ] || fail "temporary files left in TMPDIR: $(ls -A "tmp%dir")"
    ;;
# ---------------------------------------------------------------- without the tool
bad_machine)
    run count --machine "$src/bad.machine" -o r.txt -- true
    expect_rc 2
    expect_err "bad.machine:8: unknown key 'sise'"
    [ -e r.txt ] && fail "r.txt written"
    run count --machine nosuch -- true
    expect_rc 2
    expect_err "no machine 'nosuch'; the machines are bgl, bgp, host"
    grep -q "did you mean" err && fail "a suggestion for nosuch"
    run count --machine bgq -- true
    expect_rc 2
    expect_err "no machine 'bgq' (did you mean bgl or bgp?); the machines are bgl, bgp, host"
    run count --machine /dev/zero -- true
    expect_rc 2
    expect_err "/dev/zero: not a regular file"
    # sizes the model cannot hold: a clear error naming file and line, before
    # anything runs (not Valgrind crashing at start-up)
    for lvl in l1i l3; do
        printf '# too big\n[%s]\nsize = 1024G\n' $lvl >big.machine
        run count --machine ./big.machine -- touch ran
        expect_rc 2
        expect_err "big.machine:3: the node model would need .* MiB of state .*\\[$lvl\\] is the largest); the limit is 512 MiB"
        [ -e ran ] && fail "the program ran"
    done
    ;;
bad_events)
    run count -e NOSUCH_EVENT -o r.txt -- true
    expect_rc 2
    expect_err "unknown event 'NOSUCH_EVENT'"
    # a slip gets the closest names (prefix and mode kept), a stranger none
    run count -e INSTRUCTONS -o r.txt -- true
    expect_rc 2
    expect_err "unknown event 'INSTRUCTONS' (did you mean INSTRUCTIONS?"
    run count -e pu1_l1d_mises:edge-rsie -o r.txt -- true
    expect_rc 2
    expect_err "did you mean pu1_L1D_MISSES:edge-rise?"
    run count -e NOSUCH_EVENT -o r.txt -- true
    grep -q "did you mean" err && fail "a suggestion for NOSUCH_EVENT"
    run list INSTRUCTONS
    expect_rc 1
    expect_err "no event matches 'INSTRUCTONS' (did you mean INSTRUCTIONS?)"
    run count -e INSTRUCTIONS,PU9_INSTRUCTIONS -o r.txt -- true
    expect_rc 2
    expect_err "event 'PU9_INSTRUCTIONS': machine bgp has 4 cores"
    run count --machine "$src/nol3.machine" -e L3_READS -o r.txt -- true
    expect_rc 2
    expect_err "event 'L3_READS' is not provided by machine nol3: it has no L3"
    run count --machine bgl -e pu0_l2_prefetch_hits_in_stream -o r.txt -- true
    expect_rc 2
    expect_err "no L2 stream prefetcher"
    run count -e INSTRUCTIONS,,LOADS -o r.txt -- true
    expect_rc 2
    expect_err "empty event name"
    # a trailing or leading comma is an empty name too
    for list in INSTRUCTIONS, ,INSTRUCTIONS; do
        run count -e "$list" -o r.txt -- true
        expect_rc 2
        expect_err "empty event name in '$list'"
    done
    [ -e r.txt ] && fail "r.txt written"
    [ -e r.txt.tmp ] && fail "r.txt.tmp written"
    ;;
usage)
    run count
    expect_rc 2
    expect_err "no program"
    run count --bogus -- true
    expect_rc 2
    expect_err "unknown option '--bogus'"
    grep -q "did you mean" err && fail "a suggestion for --bogus"
    run count --machin=bgp -- true
    expect_rc 2
    expect_err "unknown option '--machin=bgp' (did you mean --machine?)"
    run coutn
    expect_rc 2
    expect_err "unknown command 'coutn' (did you mean count?)"
    run count --json --csv -- true
    expect_rc 2
    run count --start=maybe -- true
    expect_rc 2
    run count -- /no/such/program
    expect_rc 127
    expect_err "command not found"
    run count -- no-such-program-hpm-test
    expect_rc 127
    # a script whose interpreter is missing: 127 as a shell says; one that
    # is not executable: 126
    printf '#!/no/such/interpreter\necho\n' >nointerp.sh && chmod +x nointerp.sh
    run count -- ./nointerp.sh
    expect_rc 127
    expect_err "bad interpreter /no/such/interpreter"
    printf '#!/etc/passwd\necho\n' >badinterp.sh && chmod +x badinterp.sh
    run count -- ./badinterp.sh
    expect_rc 126
    ;;
no_tool)
    HPM_VALGRIND=/bin/true HPM_VALGRIND_LIB=/nonexistent/hpm "$hpm" count -- true >out 2>err
    rc=$?
    expect_rc 1
    expect_err "virtual PMU tool /nonexistent/hpm/hpm-amd64-linux is missing"
    ;;
list)
    run list L1D
    expect_rc 0
    for e in L1D_READ_MISSES L1D_WRITE_MISSES L1D_MISSES L1D_WRITEBACKS; do expect_out "$e"; done
    grep -q L2_HITS out && fail "L1D lists L2_HITS"
    run list --machine "$src/nol3.machine" 'l3_*'
    expect_rc 0
    expect_out "L3_READS .* no "
    run list PU1_INSTRUCTIONS
    expect_rc 0
    expect_out "PU1_INSTRUCTIONS *56 "
    run list nosuch
    expect_rc 1
    expect_err "no event matches 'nosuch'"
    run list -o l.txt L1D
    expect_rc 0
    grep -q L1D_MISSES l.txt && [ ! -s out ] || fail "list -o l.txt"
    run list -o l2.txt nosuch
    [ ! -e l2.txt ] || fail "a list that matched nothing wrote l2.txt"
    run list
    expect_rc 0
    n=$(grep -c ' yes ' out)
    expect_range "events bgp provides" "$n" 64 1000
    expect_out "NAME:edge-rise"
    ;;
from_output)
    # reports of a hand-written tool output file (format 2): text, JSON, CSV
    run count --from-output "$src/sample_v2.out" --per-core --per-thread
    expect_rc 0
    for s in "machine   bgp: 4 cores, 850 MHz" "IPC  *1.25" "MFLOP/s of modeled time  *318.75" \
        "bytes per flop (DDR)  *2.56" "region main loop" "T2/PU1"; do
        expect_out "$s"
    done
    grep -q "L3 miss ratio" out && fail "L3 miss ratio shown without L3 counts"
    run count --from-output "$src/sample_v2.out" --json -o r.json
    expect_rc 0
    json_ok r.json
    run count --from-output "$src/sample_v2.out" --csv
    expect_rc 0
    csv_ok out
    expect_eq "INSTRUCTIONS" "$(csv_val event INSTRUCTIONS '' '' '' '')" 1500000
    expect_eq "PU1_INSTRUCTIONS" "$(csv_val event INSTRUCTIONS '' '' 1 56)" 500000
    expect_eq "region 'main loop' T1 FP" "$(csv_val region FP_DP_SCALAR 'main loop' 1 '' '')" 300000
    expect_eq "derived ipc" "$(csv_val derived ipc '' '' '' '')" 1.25
    run count --from-output "$src/sample_v2.out" -e PU0_CYCLES,NODE_CYCLES --csv
    expect_rc 0
    expect_eq "PU0_CYCLES" "$(csv_val event PU0_CYCLES '' '' 0 1)" 800000
    run count --from-output "$src/sample_v2.out" -e L1I_MISSES
    expect_rc 2
    expect_err "no count for PU0_L1I_MISSES"
    # a truncated file is an error, not a report
    head -c 500 "$src/sample_v2.out" >trunc.out
    run count --from-output trunc.out
    expect_rc 1
    expect_err "trunc.out: line"
    # a killed program's file: exit code 128 + signal, and the note
    sed 's/^exit status 0$/exit signal 11/' "$src/sample_v2.out" >sig.out
    run count --from-output sig.out --json -o sig.json
    expect_rc 139
    json_ok sig.json
    ;;
*)
    echo "unknown scenario $scenario" >&2
    exit 2
    ;;
esac
echo "ok $scenario"
