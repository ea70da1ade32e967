#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Hostile input, second round (tests/hostile_input/CMakeLists.txt).
#   hostile_test.sh HPM MKPERF WORKDIR SCENARIO
set -u
hpm=$1 mkperf=$2 work=$3 scenario=$4
dir=$work/$scenario
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1
. "$(dirname "$0")/../common/scenario.sh"

# within HPM ARGS...: run hpm for at most 20 s; a hang or a crash fails
within() {
    timeout 20 "$hpm" "$@" >out 2>err
    rc=$?
    [ $rc -eq 124 ] && fail "hpm $* hung"
    [ $rc -ge 128 ] && fail "hpm $* died of signal $((rc - 128))"
    return 0
}

case $scenario in
plot)
    # gnuplot opens an output named '|CMD' as a pipe to a shell running
    # CMD: hpm plot -o '|touch PWNED #.svg' ran touch (and so would a
    # series named '|touch PWNED #.csv', whose picture is named after it)
    printf 'time_s,event,delta,rate_per_s,total\n0.1,INSTRUCTIONS,100,1000,100\n0.2,INSTRUCTIONS,100,2000,300\n' >s.csv
    within plot s.csv -o ok.svg
    expect_rc 0
    xmllint --noout ok.svg || fail "ok.svg is not well-formed"
    within plot s.csv -o '|touch PWNED #.svg'
    expect_rc 0
    [ -e PWNED ] && fail "-o '|touch PWNED #.svg' ran a shell command"
    xmllint --noout '|touch PWNED #.svg' || fail "the picture is not the file named by -o"
    cp s.csv '|touch PWNED2 #.csv'
    within plot '|touch PWNED2 #.csv'
    expect_rc 0
    [ -e PWNED2 ] && fail "a series named '|touch PWNED2 #.csv' ran a shell command"
    [ -s '|touch PWNED2 #.svg' ] || fail "the picture named after the series is missing"
    # a name with a newline is refused, and the message names it escaped
    within plot s.csv -o "$(printf 'x\nsystem "touch PWNED3"\n.svg')"
    expect_rc 2
    expect_err "'x\\\\nsystem \"touch PWNED3\"\\\\n.svg': a file name with control characters"
    [ -e PWNED3 ] && fail "a newline in -o ran a command"
    # an output hpm cannot write is said before gnuplot runs, and nothing
    # (not gnuplot's drawing onto its standard output) is printed
    within plot s.csv -o nodir/x.svg
    expect_rc 2
    expect_err "cannot write the output into nodir"
    [ -s out ] && fail "hpm plot printed a drawing: $(head -c 200 out)"
    # gnuplot need not wait for the shell it started: looked for once more
    # at the end
    for p in PWNED PWNED2 PWNED3; do
        [ -e $p ] && fail "a name made gnuplot run a shell command ($p)"
    done
    ;;
report)
    # a recording names the objects its samples lie in (MMAP records);
    # hpm report opens them for symbols: a FIFO there blocked it forever
    mkfifo fifo
    "$mkperf" fifo.data "$dir/fifo" || fail "mkperf"
    within report --folded fifo.data
    expect_rc 0
    expect_out "^\[fifo\];\[fifo\] 1$"
    expect_err "$dir/fifo: not a regular file; its frames are named by the object"
    "$mkperf" zero.data /dev/zero || fail "mkperf"
    within report --folded zero.data
    expect_rc 0
    expect_out "^\[zero\];\[zero\] 1$"
    expect_err "/dev/zero: not a regular file"
    within report --flamegraph -o f.svg fifo.data
    expect_rc 0
    xmllint --noout f.svg || fail "f.svg is not well-formed"
    # hpm diff of two recordings goes through the same loader
    within diff fifo.data zero.data
    expect_rc 0
    expect_out "\[fifo\] (gone)"
    # an object that is a regular file still gets its name, with no note
    cp "$mkperf" obj
    "$mkperf" obj.data "$dir/obj" || fail "mkperf"
    within report --folded obj.data
    expect_rc 0
    [ -s err ] && fail "a regular object gave a note: $(cat err)"
    ;;
merge)
    # one rank of four cores with 5e18 instructions each: every code fits
    # (JSON integers stop at 2^63-1), their sum over the cores (2e19) does
    # not; the INSTRUCTIONS row stood at 2^64-1 without a word
    codes=
    for c in 0 1 2 3; do
        codes="$codes${codes:+,}{\"code\":$((c * 56)),\"core\":$c,\"name\":\"PU${c}_INSTRUCTIONS\",\"count\":5000000000000000000}"
    done
    cat >rank.0.json <<EOT
{
  "source":"modeled",
  "command":"./prog",
  "machine":{"name":"bgp","cores":4,"frequency_hz":850000000,"file":null},
  "level":"core",
  "models":"hier",
  "upcs":1,
  "threads_count":1,
  "exit":{"status":0,"hpm_exit_code":0},
  "events":[{"name":"INSTRUCTIONS","codes":[$codes]}],
  "mpi_rank":{"rank":0,"size":1,"job":"t1","host":"node0"}
}
EOT
    within merge rank.0.json
    expect_rc 0
    expect_out "INSTRUCTIONS  *18446744073709551615"
    expect_out "note .*the sum of INSTRUCTIONS over its cores exceeds 2^64-1"
    within merge --json rank.0.json
    expect_rc 0
    grep -q '"notes":\[[^]]*INSTRUCTIONS over its cores exceeds 2^64-1' out ||
        fail "the JSON report lacks the note"
    # sums that fit have no such note
    sed 's/5000000000000000000/4000000000000000000/g' rank.0.json >r1.json
    within merge r1.json
    expect_rc 0
    expect_out "INSTRUCTIONS  *16000000000000000000"
    grep -q "exceeds 2^64-1" out && fail "a sum that fits is said to exceed 2^64-1"
    ;;
*)
    echo "unknown scenario $scenario" >&2
    exit 2
    ;;
esac
echo "ok $scenario"
