#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Concurrent and hostile runs of hpm (tests/concurrency/CMakeLists.txt).
#   concurrency_test.sh HPM COUNT_PROG VALGRIND WORKDIR SCENARIO
# COUNT_PROG's `adds N` makes exactly N scalar double adds (FP_DP_SCALAR),
# whatever runs beside it, so every surviving run's count is known exactly.
set -u
hpm=$1 prog=$2 valgrind=$3 work=$4 scenario=$5
dir=$work/$scenario
rm -rf "$dir"
mkdir -p "$dir/tmp"
cd "$dir" || exit 1
ulimit -c 0
. "$(dirname "$0")/../common/scenario.sh"
# every hpm of a scenario shares this TMPDIR, as runs share /tmp
TMPDIR=$dir/tmp
export TMPDIR
# live views are named by pid namespace and pid (src/vpmu_iface/vpmu_live.h)
pidns=$(readlink /proc/self/ns/pid | tr -dc 0-9)
planted=

cleanup() {
    [ -n "$planted" ] && rm -f $planted
    # whatever a scenario started and left: never outlive the test
    for p in $(jobs -p); do kill -9 "$p" 2>/dev/null; done
}
trap cleanup EXIT

expect_eq() { # what actual expected
    [ "$2" = "$3" ] || fail "$1 = $2, expected $3"
}

# fp_total FILE: the FP_DP_SCALAR total of a CSV report
fp_total() {
    awk -F, '$1 == "event" && $2 == "FP_DP_SCALAR" && $5 == "" { print $7 }' "$1"
}

# wait_view HPM_PID: the pid of hpm's child once its live view exists
wait_view() {
    i=0 vpid=
    while [ $i -lt 300 ] && [ -z "$vpid" ]; do
        vpid=$(awk -v p="$1" '$4 == p { print $1 }' /proc/[0-9]*/stat 2>/dev/null | head -1)
        [ -n "$vpid" ] && [ -f /dev/shm/hpm-live.$pidns.$vpid ] || vpid=
        [ -z "$vpid" ] && sleep 0.1
        i=$((i + 1))
    done
    [ -n "$vpid" ] || fail "no live view of hpm $1's program appeared"
    echo "$vpid"
}

# nothing left: after one more hpm run (which removes what killed runs
# left), TMPDIR is empty and no process or live view of this scenario's
# marker argument remains
expect_clean() {
    "$hpm" count -e FP_DP_SCALAR -- true >/dev/null 2>&1
    [ -z "$(ls -A tmp)" ] || fail "left in TMPDIR: $(ls -A tmp)"
    i=0
    while pgrep -f "count_prog adds $1" >/dev/null && [ $i -lt 50 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    pgrep -f "count_prog adds $1" >/dev/null && fail "processes left running: $(pgrep -af "count_prog adds $1")"
    for v in /dev/shm/hpm-live.*; do
        [ -f "$v" ] && grep -aq "count_prog adds $1" "$v" 2>/dev/null &&
            fail "a live view left behind: $v"
    done
    return 0
}

# a stand-in for valgrind that plants FILE-MAKING COMMAND at the name its
# own tool's view will have (same pid: it execs valgrind), then runs it
plant_wrapper() {
    cat >vgwrap <<EOF
#!/bin/sh
$1 /dev/shm/hpm-live.$pidns.\$\$
echo /dev/shm/hpm-live.$pidns.\$\$ >>"$dir/planted"
exec "$valgrind" "\$@"
EOF
    chmod +x vgwrap
}

case $scenario in
view_link)
    # a link planted at the view's name (another user's trap, or a file of
    # another hpm): the tool never writes through it, and counts go on
    echo precious >victim
    plant_wrapper "ln -s $dir/victim"
    HPM_VALGRIND=$dir/vgwrap run count -e FP_DP_SCALAR --csv -o r.csv -- "$prog" adds 3000001
    planted=$(cat planted)
    expect_rc 0
    [ "$(cat victim)" = precious ] || fail "the tool wrote through the planted link"
    expect_eq "FP_DP_SCALAR" "$(fp_total r.csv)" 3000001
    [ -L "$planted" ] || fail "the planted link was replaced or removed"
    expect_clean 3000001
    ;;
view_fifo)
    # a FIFO at the view's name: the tool runs without a view, and a
    # reader asked for that process says so instead of blocking in open
    plant_wrapper "mkfifo"
    HPM_VALGRIND=$dir/vgwrap timeout 120 "$hpm" count -I 100 -e FP_DP_SCALAR --csv -o r.csv -- \
        "$prog" adds 3000002 >out 2>err
    rc=$?
    planted=$(cat planted)
    expect_rc 0
    expect_eq "FP_DP_SCALAR" "$(fp_total r.csv)" 3000002
    # a reader of a process whose name holds a FIFO (this shell's)
    mkfifo /dev/shm/hpm-live.$pidns.$$
    planted="$planted /dev/shm/hpm-live.$pidns.$$"
    timeout 20 "$hpm" stat -p $$ >out 2>err
    rc=$?
    [ $rc -eq 124 ] && fail "hpm stat blocked on a FIFO"
    expect_rc 1
    expect_err "not a live view"
    timeout 20 "$hpm" top -n 1 -I 100 >out 2>err
    rc=$?
    [ $rc -eq 124 ] && fail "hpm top blocked on a FIFO"
    [ -p /dev/shm/hpm-live.$pidns.$$ ] || fail "a reader removed the FIFO, not its file"
    expect_clean 3000002
    ;;
view_truncate)
    # the file of a running view is truncated again and again (its owner
    # may): the tool repairs it and counts on; readers get errors or
    # snapshots, never SIGBUS
    "$hpm" count -I 50 -e FP_DP_SCALAR --csv -o r.csv -- "$prog" slowadds 40 200003 >out 2>err &
    hpid=$!
    vpid=$(wait_view $hpid) || exit 1
    view=/dev/shm/hpm-live.$pidns.$vpid
    "$hpm" stat -p "$vpid" -I 50 -e FP_DP_SCALAR --csv >series.csv 2>stat.err &
    spid=$!
    n=0
    while kill -0 $hpid 2>/dev/null && [ $n -lt 400 ]; do
        [ -f "$view" ] && : >"$view"
        sleep 0.01
        n=$((n + 1))
    done
    wait $hpid
    rc=$?
    wait $spid
    src=$?
    expect_rc 0
    expect_eq "FP_DP_SCALAR" "$(fp_total r.csv)" $((40 * 200003))
    [ $src -lt 128 ] || fail "hpm stat died of signal $((src - 128)) ($(cat stat.err))"
    expect_clean 200003
    ;;
view_escape)
    # a command line with terminal escape sequences: printed escaped
    esc=$(printf '\033]0;pwned\007\033[2J')
    "$hpm" count -e FP_DP_SCALAR -- "$prog" slowadds 30 1000 "$esc" >/dev/null 2>&1 &
    hpid=$!
    vpid=$(wait_view $hpid) || exit 1
    "$hpm" stat -p "$vpid" >stat.out 2>&1
    "$hpm" top -n 1 -I 50 >top.out 2>&1
    wait $hpid
    grep -q "slowadds" stat.out top.out || fail "the command is not shown: $(cat stat.out top.out)"
    if grep -q "$(printf '\033')" stat.out top.out; then
        fail "an escape character reached the terminal"
    fi
    expect_clean 1000
    ;;
pidns)
    # a run in another pid namespace sharing TMPDIR and /dev/shm: this
    # namespace's runs (which remove what dead runs left) never take its
    # folder or view for a dead one's
    unshare --pid --fork --mount-proc true 2>/dev/null || { echo "SKIP: unshare --pid"; exit 77; }
    unshare --pid --fork --mount-proc \
        "$hpm" count -e FP_DP_SCALAR --csv -o ns.csv -- "$prog" slowadds 30 100004 >ns.out 2>ns.err &
    upid=$!
    i=0
    while [ $i -lt 200 ] && [ -z "$(ls tmp)" ]; do
        sleep 0.05
        i=$((i + 1))
    done
    [ -n "$(ls tmp)" ] || fail "the run in the other namespace made no folder"
    k=0
    while kill -0 $upid 2>/dev/null && [ $k -lt 20 ]; do
        run count -e FP_DP_SCALAR --csv -o here.csv -- "$prog" adds 1006
        expect_rc 0
        "$hpm" top -n 1 -I 10 >/dev/null 2>&1
        k=$((k + 1))
    done
    [ $k -ge 2 ] || fail "the other namespace's run ended before this one's runs"
    wait $upid
    rc=$?
    [ $rc -eq 0 ] || fail "the run in the other namespace failed ($rc): $(cat ns.err)"
    expect_eq "FP_DP_SCALAR in the other namespace" "$(fp_total ns.csv)" $((30 * 100004))
    expect_clean 100004
    ;;
stress)
    # rounds of concurrent process trees sharing TMPDIR and /dev/shm, one
    # in another pid namespace where root allows it, every third hpm
    # killed with SIGKILL at a random moment: every survivor's count is
    # exact, and nothing is left running or lying around
    ns=
    unshare --pid --fork --mount-proc true 2>/dev/null && ns="unshare --pid --fork --mount-proc"
    round=0 survivors=0 killed=0
    while [ $round -lt 3 ]; do
        j=0 pids=
        while [ $j -lt 6 ]; do
            a=$((2000000 + j)) b=1000005
            pre=
            [ $j -eq 0 ] && pre=$ns
            $pre "$hpm" count -e FP_DP_SCALAR --csv -o "r$round.$j.csv" -- \
                sh -c "'$prog' adds $a & '$prog' adds $b; wait" >/dev/null 2>"e$round.$j" &
            pids="$pids $!"
            j=$((j + 1))
        done
        j=0
        for p in $pids; do
            if [ $((j % 3)) -eq 2 ]; then
                sleep "0.$(awk -v s=$$$round$j 'BEGIN { srand(s); printf "%d", rand() * 9 + 1 }')"
                kill -9 $p 2>/dev/null
                killed=$((killed + 1))
            fi
            j=$((j + 1))
        done
        j=0
        for p in $pids; do
            wait $p
            rc=$?
            if [ $((j % 3)) -ne 2 ]; then
                [ $rc -eq 0 ] || fail "round $round run $j failed ($rc): $(cat e$round.$j)"
                expect_eq "round $round run $j FP_DP_SCALAR" "$(fp_total r$round.$j.csv)" \
                    $((2000000 + j + 1000005))
                survivors=$((survivors + 1))
            fi
            j=$((j + 1))
        done
        round=$((round + 1))
    done
    echo "survivors $survivors exact, $killed killed${ns:+, one per round in another pid namespace}"
    expect_clean 1000005
    ;;
*)
    echo "unknown scenario $scenario" >&2
    exit 2
    ;;
esac
echo "ok $scenario"
