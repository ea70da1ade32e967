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
# the killed process $1 left no live view behind in /dev/shm
no_view() {
    for v in /dev/shm/hpm-live.*."$1"; do
        [ -e "$v" ] && fail "$v left behind"
    done
}
# the value of INSTRUCTIONS that the note gives for killed pid $1's live view
view_count() {
    sed -n "s/.*live view.*pid $1 INSTRUCTIONS \([0-9]*\).*/\1/p" out
}
# checks that killed pid $1 is in the table with its command $2, no counts,
# and in the notes, with what its live view showed last (the 2,000,000
# iterations of tree_prog's loop before it spun)
killed_with_view() {
    r=$(row "$1")
    [ -n "$r" ] || fail "killed child $1 is not in the process table"
    echo "$r" | grep -q "killed, signal 9 .* $2\$" || fail "killed child's row: $r"
    [ "$(echo "$r" | awk '{ print $6 }')" = 0 ] || fail "killed child's row has counts: $r"
    grep -q "note .*pid $1 by signal 9 (Killed)" out || fail "no note names the killed child"
    v=$(view_count "$1")
    [ -n "$v" ] && [ "$v" -ge 2000000 ] || fail "its live view's count: '$v'"
    no_view "$1"
}

# The process table of the last run as "pid ppid count" lines (the first
# event's count), and its total of that event.
rows() {
    awk '/^ processes / { t = 1; getline; next } t && NF { print $1, $2, $5 }' out
}
total() {
    awk '$1 == "INSTRUCTIONS" { print $2; exit }' out
}
# A child started from the program's second thread, by the command after
# "--": counted under count, profile and record, with and without turns.
# Its counts hold the WORK_ITERATIONS loop (tree_prog.c: at least 3
# instructions per iteration), the program's are there too, the table's
# rows add up to the totals, and the child's samples are its own (pid and
# thread id the child's: the forking thread became its only thread).
thread_child() {
    for il in "" "--interleave=1000"; do
        trun count $il -e INSTRUCTIONS "$@"
        expect_rc 0
        [ "$(rows | wc -l)" = 2 ] || fail "count $il: not 2 rows: $(rows)"
        set -- $(rows | tr '\n' ' ') "$@"
        parent=$1 child=$4
        [ "$5" = "$parent" ] || fail "count $il: the child's parent is $5, not $parent"
        [ "$3" -gt 0 ] || fail "count $il: no counts for the program"
        [ "$6" -ge 6000000 ] || fail "count $il: the child counted $6"
        [ $(($3 + $6)) = "$(total)" ] || fail "count $il: rows $3 + $6, total $(total)"
        printed=$(sed -n 's/^child //p' out)
        [ -z "$printed" ] || [ "$printed" = "$child" ] || fail "count $il: child $printed, row $child"
        shift 6
        trun profile $il -e INSTRUCTIONS -o p.out "$@"
        expect_rc 0
        w=$(callgrind_annotate p.out | awk '/:work / { gsub(",", "", $1); print $1; exit }')
        [ -n "$w" ] && [ "$w" -ge 6000000 ] || fail "profile $il: the child's work: '$w'"
        trun record $il -e INSTRUCTIONS:100000 -o r.data "$@"
        expect_rc 0
        child=$(rows | awk 'NR == 2 { print $1 }')
        n=$(perf script -i r.data -F pid,tid 2>/dev/null | awk -v c="$child" '$1 == c "/" c' | wc -l)
        [ "$n" -ge 60 ] || fail "record $il: $n samples of child $child"
    done
}

case $scenario in
thread_fork | thread_system | thread_spawn)
    thread_child -- "$prog" "$(echo "$scenario" | tr _ -)"
    ;;
thread_python)
    # Python's subprocess.run in a threading.Thread (Debian's python3)
    thread_child -- /usr/bin/python3 -c 'import subprocess, sys, threading
rc = []
t = threading.Thread(target=lambda: rc.append(subprocess.run([sys.argv[1], "work"]).returncode))
t.start()
t.join()
sys.exit(0 if rc == [0] else 1)' "$prog"
    ;;
killed)
    # the parent reaps the child that SIGKILL killed: hpm is not its reaper,
    # the parent's tool says it in its output
    trun count -e INSTRUCTIONS -- "$prog" kill9
    expect_rc 0
    child=$(sed -n 's/^child //p' out)
    [ -n "$child" ] || fail "the program printed no child pid"
    r=$(row "$child")
    [ -n "$r" ] || fail "child $child is not in the process table"
    echo "$r" | grep -q "killed, signal 9 .* $prog kill9\$" || fail "child's row: $r"
    # no counts for it: 0 in its row
    [ "$(echo "$r" | awk '{ print $6 }')" = 0 ] || fail "child's row has counts: $r"
    grep -q "note .*pid $child by signal 9 (Killed)): its counts are lost" out ||
        fail "no note names the killed child"
    # JSON: the same process, its exit a signal, counts lost
    trun count --json -e INSTRUCTIONS -- "$prog" kill9
    expect_rc 0
    child=$(sed -n 's/^child //p' out)
    grep -q "{\"pid\":$child,\"ppid\":[0-9]*,\"commands\":\[\"[^\"]*tree_prog kill9\"\],\"complete\":false,\"exit\":{\"signal\":9,\"counts_lost\":true}" out ||
        fail "JSON: child $child not killed by signal 9"
    no_view "$child"
    # --no-children: the program alone, no process table, no such note
    trun count --no-children -e INSTRUCTIONS -- "$prog" kill9
    expect_rc 0
    grep -q "killed before writing" out && fail "--no-children names the child"
    ;;
killed_work)
    # a child killed in the middle of its work: its live view's last
    # publication is what the report can give, labelled as such
    trun count -e INSTRUCTIONS -- "$prog" kill9work
    expect_rc 0
    child=$(sed -n 's/^child //p' out)
    [ -n "$child" ] || fail "the program printed no child pid"
    killed_with_view "$child" "$prog kill9work"
    grep -q "sum over 2 processes" out || fail "not 2 processes"
    # the totals are the program's alone: the note says the view's counts
    # are not in them
    grep -q "not in the totals" out || fail "the view's counts are not labelled"
    # a shell's background child, killed with SIGKILL
    trun count -e INSTRUCTIONS -- sh -c 'sleep 5 & echo child $!; kill -9 $!; wait'
    expect_rc 0
    child=$(sed -n 's/^child //p' out)
    r=$(row "$child")
    # killed before its exec: nothing counted; inside it, after the shell
    # part's counts were written at the exec but before the new image was
    # recorded: those counts, under the shell's command alone; after it:
    # those counts (-> sleep 5), and the image's lost
    echo "$r" | grep -Eq "killed, signal 9 +0 +(sh -c |[^ ]*sleep 5)" ||
        echo "$r" | grep -Eq "killed, signal 9 +[1-9][0-9]* +sh -c .* -> [^ ]*sleep 5" ||
        echo "$r" | grep -Eq "killed, signal 9 +[1-9][0-9]* +sh -c sleep 5 & echo child [^>]*wait\$" ||
        fail "the shell's killed child: $r"
    no_view "$child"
    ;;
valgrind_leftovers)
    # Valgrind copies /proc/self/cmdline and auxv into $TMPDIR as it starts
    # and unlinks them a moment later; a process killed in between leaves
    # them (a window too short to hit on purpose: the program plants them
    # as Valgrind names them). hpm removes those of the run's killed
    # processes, and nothing else: other pids', other names, links,
    # folders, other users' files
    tmp=$dir/tmp
    mkdir "$tmp" || fail "mkdir"
    TMPDIR=$tmp trun count -e INSTRUCTIONS -- sh -c 'sleep 30 & c=$!
for f in cmdline_0123abcd auxv_89abcdef cmdline_0123ABCD cmdline_0123abcd0 cmdline_0123abc \
    auxv_0123abcd.x; do : > "$TMPDIR/valgrind_proc_${c}_$f"; done
: > "$TMPDIR/valgrind_proc_$$_cmdline_0123abcd"
: > "$TMPDIR/valgrind_proc_1_cmdline_0123abcd"
ln -s /etc/hostname "$TMPDIR/valgrind_proc_${c}_auxv_00000000"
mkdir "$TMPDIR/valgrind_proc_${c}_auxv_11111111"
if [ "$(id -u)" = 0 ]; then
    : > "$TMPDIR/valgrind_proc_${c}_cmdline_22222222"
    chown 65534 "$TMPDIR/valgrind_proc_${c}_cmdline_22222222"
fi
kill -9 $c; wait; echo child $c'
    expect_rc 0
    child=$(sed -n 's/^child //p' out)
    [ -n "$child" ] || fail "the program printed no child pid"
    echo "$(row "$child")" | grep -q "killed, signal 9" || fail "the child was not killed"
    for f in cmdline_0123abcd auxv_89abcdef; do
        [ -e "$tmp/valgrind_proc_${child}_$f" ] && fail "valgrind_proc_${child}_$f left behind"
    done
    parent=$(rows | awk 'NR == 1 { print $1 }')
    left=$(cd "$tmp" && ls | sed "s/_${child}_/_CHILD_/; s/_${parent}_/_PARENT_/" | sort | tr '\n' ' ')
    want="valgrind_proc_1_cmdline_0123abcd valgrind_proc_CHILD_auxv_00000000 valgrind_proc_CHILD_auxv_0123abcd.x valgrind_proc_CHILD_auxv_11111111 valgrind_proc_CHILD_cmdline_0123ABCD valgrind_proc_CHILD_cmdline_0123abc valgrind_proc_CHILD_cmdline_0123abcd0 valgrind_proc_PARENT_cmdline_0123abcd "
    [ "$(id -u)" = 0 ] && want="valgrind_proc_1_cmdline_0123abcd valgrind_proc_CHILD_auxv_00000000 valgrind_proc_CHILD_auxv_0123abcd.x valgrind_proc_CHILD_auxv_11111111 valgrind_proc_CHILD_cmdline_0123ABCD valgrind_proc_CHILD_cmdline_0123abc valgrind_proc_CHILD_cmdline_0123abcd0 valgrind_proc_CHILD_cmdline_22222222 valgrind_proc_PARENT_cmdline_0123abcd "
    [ "$left" = "$want" ] || fail "left in TMPDIR: $left"
    # the program itself killed, under count and run
    for c in count run; do
        TMPDIR=$tmp trun $c -- sh -c ': > "$TMPDIR/valgrind_proc_$$_cmdline_0123abcd"
: > "$TMPDIR/valgrind_proc_$$_auxv_4567cdef"; echo main $$; kill -9 $$'
        expect_rc 137
        main=$(sed -n 's/^main //p' out)
        [ -n "$main" ] || fail "$c: the program printed no pid"
        ls "$tmp" | grep -q "_${main}_" && fail "$c: the program's copies left behind"
    done
    ;;
orphan)
    # the killed child is an orphan: its parent exited first, hpm (the
    # tree's subreaper) reaped it; the process that killed it is an orphan too
    trun count -e INSTRUCTIONS -- "$prog" orphan9
    expect_rc 0
    child=$(sed -n 's/^child //p' out)
    [ -n "$child" ] || fail "the program printed no child pid"
    killed_with_view "$child" "$prog orphan9"
    grep -q "sum over 3 processes" out || fail "the table claims fewer than 3 processes"
    [ "$(awk '/^ processes / { t = 1; getline; next } t && NF { n++ } END { print n }' out)" = 3 ] ||
        fail "not 3 rows in the process table"
    trun count --json -e INSTRUCTIONS -- "$prog" orphan9
    expect_rc 0
    child=$(sed -n 's/^child //p' out)
    grep -q "{\"pid\":$child,\"ppid\":[0-9]*,\"commands\":\[\"[^\"]*tree_prog orphan9\"\],\"complete\":false,\"exit\":{\"signal\":9,\"counts_lost\":true}" out ||
        fail "JSON: orphan $child not killed by signal 9"
    no_view "$child"
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
