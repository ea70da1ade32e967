#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tree_test.sh HPM TREE_PROG SRCDIR WORKDIR SCENARIO - hpm count on process
# trees (tests/process_tree/CMakeLists.txt lists the scenarios). Every run is
# bounded by timeout; everything is written under WORKDIR.
set -u
hpm=$1 prog=$2 src=$3 work=$4 scenario=$5
dir=$work/$scenario
rm -rf "$dir" && mkdir -p "$dir" || exit 1
cd "$dir" || exit 1
ulimit -c 0 2>/dev/null
. "$src/../common/scenario.sh"
# hpm ARGS with a time limit: stdout in out, stderr in err, status in rc
trun() {
    timeout 240 "$hpm" "$@" >out 2>err
    rc=$?
}
# the process table's row of pid $1 (text report)
row() {
    awk -v p="$1" '/^ processes / { t = 1; next } t && $1 == p { print; exit }' out
}

case $scenario in
killed)
    # the parent reaps the child that SIGKILL killed: hpm is not its reaper,
    # the parent's tool says it in its output
    trun count -e INSTRUCTIONS -- "$prog" kill9
    expect_rc 0
    child=$(sed -n 's/^child //p' out)
    [ -n "$child" ] || fail "the program printed no child pid"
    r=$(row "$child")
    [ -n "$r" ] || fail "child $child is not in the process table"
    echo "$r" | grep -q "killed, signal 9 " || fail "child's row: $r"
    # no counts for it: 0 in its row
    [ "$(echo "$r" | awk '{ print $6 }')" = 0 ] || fail "child's row has counts: $r"
    grep -q "note .*pid $child by signal 9 (Killed)): its counts are lost" out ||
        fail "no note names the killed child"
    # JSON: the same process, its exit a signal, counts lost
    trun count --json -e INSTRUCTIONS -- "$prog" kill9
    expect_rc 0
    child=$(sed -n 's/^child //p' out)
    grep -q "{\"pid\":$child,\"ppid\":[0-9]*,\"commands\":\[\],\"complete\":false,\"exit\":{\"signal\":9,\"counts_lost\":true}" out ||
        fail "JSON: child $child not killed by signal 9"
    # --no-children: the program alone, no process table, no such note
    trun count --no-children -e INSTRUCTIONS -- "$prog" kill9
    expect_rc 0
    grep -q "killed before writing" out && fail "--no-children names the child"
    ;;
skip)
    # a shell script: /bin/true (skipped: native) and a counted child
    cat > script.sh <<EOS
#!/bin/sh
/bin/true
/bin/true
"$prog" probe
EOS
    chmod +x script.sh
    trun count -e INSTRUCTIONS -- ./script.sh
    expect_rc 0
    grep -q " -> /bin/true\$" out || fail "without the option /bin/true is counted"
    trun count -e INSTRUCTIONS --trace-children-skip='*/true' -- ./script.sh
    expect_rc 0
    grep -q "note .*--trace-children-skip: 2 programs ran natively, not counted and not in the process table (/bin/true x2)" out ||
        fail "no note names /bin/true"
    grep -q "/bin/true\$" out && fail "/bin/true is in the process table"
    grep -q "probe simulated" out || fail "the counted child did not run on the tool"
    grep -q " -> $prog probe\$" out || fail "the counted child is not in the table"
    grep -q "sum over 2 processes" out || fail "not the script and its one counted child"
    # a pattern that matches nothing changes nothing
    trun count -e INSTRUCTIONS --trace-children-skip='*/nothing,*/none' -- ./script.sh
    expect_rc 0
    grep -q "ran natively" out && fail "a pattern that matches nothing skipped something"
    [ "$(grep -c ' -> /bin/true$' out)" = 2 ] || fail "/bin/true not counted twice"
    # the other commands take it too
    timeout 240 "$hpm" run --trace-children-skip='*/true' -- ./script.sh >out 2>err ||
        fail "hpm run: $(cat err)"
    timeout 240 "$hpm" profile -e INSTRUCTIONS -o p.out --trace-children-skip='*/true' \
        -- ./script.sh >out 2>err || fail "hpm profile: $(cat err)"
    grep -q "(/bin/true x2)" out || fail "hpm profile: no note"
    timeout 240 "$hpm" record -e INSTRUCTIONS:100000 -o rec.data --trace-children-skip='*/true' \
        -- ./script.sh >out 2>err || fail "hpm record: $(cat err)"
    grep -q "(/bin/true x2)" out || fail "hpm record: no note"
    ;;
no_children)
    # the child's exec runs natively, the program's own exec on the tool
    trun count -e INSTRUCTIONS --no-children -- "$prog" spawn
    expect_rc 0
    [ "$(grep '^probe' out | tr '\n' ' ')" = "probe native probe simulated " ] ||
        fail "--no-children: $(grep '^probe' out)"
    grep -q "the program started 1 more process; --no-children" out || fail "no note"
    nc=$(awk '$1 == "INSTRUCTIONS" { print $2; exit }' out)
    # the program's counts are those of its row in a run of the whole tree
    trun count -e INSTRUCTIONS -- "$prog" spawn
    expect_rc 0
    [ "$(grep '^probe' out | tr '\n' ' ')" = "probe simulated probe simulated " ] ||
        fail "children: $(grep '^probe' out)"
    # the table's first row is the program's: pid ppid status N count command
    main=$(awk '/^ processes / { t = 1; getline; next } t { print $5; exit }' out)
    [ -n "$nc" ] && [ "$nc" = "$main" ] || fail "--no-children counted $nc, the program's row $main"
    ;;
*)
    fail "unknown scenario"
    ;;
esac
echo "ok: $scenario"
