#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hpm count --passes (tests/encode/CMakeLists.txt).
#   passes_test.sh HPM PROGRAM SOURCE_DIR WORKDIR
set -u
hpm=$1 prog=$2 src=$3 dir=$4/passes
scenario=passes
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1
. "$src/tests/common/scenario.sh"
# hpm's folders go here: nothing may be left in it
mkdir -p tmp
export TMPDIR="$dir/tmp"
# bgp with one core, its counter unit as it is (as many units as needed)
# and cut to one unit of 16 counters: LOADS (2), BR_RETURNS (18) and
# FP_SQRT (34) share counter 2, CYCLES (1) and BR_CALLS_INDIRECT (17)
# counter 1, INSTRUCTIONS (0, the correlate) holds counter 0: three passes
sed 's/^cores = 4/cores = 1/' "$src/machines/bgp.machine" >one.machine
{ cat one.machine; printf '\n[counters]\nunits = 1\ncounters = 16\n'; } >small.machine
ev=LOADS,STORES,BR_RETURNS,CYCLES,BR_CALLS_INDIRECT,FP_SQRT,INSTRUCTIONS
run count --machine ./small.machine -e $ev -- "$prog" 20000
expect_rc 2
expect_err "they take 3 passes: --passes=auto"
run count --machine ./small.machine --passes=2 -e $ev -- "$prog" 20000
expect_rc 2
expect_err "these events take 3 passes"
# the same totals as one run on a unit large enough for all of them
"$hpm" count --machine ./small.machine --passes=auto --note "kept through the passes" --csv \
    -o passes.csv -e $ev -- "$prog" 20000 >prog3.out 2>err || fail "three passes failed: $(tail -3 err)"
grep -q '^note,.*kept through the passes' passes.csv || fail "--note is not in the passes' report"
grep -q "hpm count: pass 3 of 3" err || fail "no third pass"
[ "$(grep -c 'hpm-stream n=20000' prog3.out)" = 3 ] || fail "the program did not run three times"
"$hpm" count --machine ./one.machine --csv -o one.csv -e $ev -- "$prog" 20000 >prog1.out 2>err ||
    fail "one run failed"
grep '^event,' passes.csv | grep -v ',host' | cut -d, -f2-7 | sort >p.rows
grep '^event,' one.csv | grep -v ',host' | cut -d, -f2-7 | sort >o.rows
[ -s p.rows ] || fail "no event rows in the passes' report"
cmp -s p.rows o.rows || fail "the passes' counts differ from one run's: $(diff p.rows o.rows | head -5)"
grep -q 'counted in 3 passes' passes.csv || fail "the report does not say it took 3 passes"
grep -q 'correlate INSTRUCTIONS counted on every pass is the same' passes.csv ||
    fail "no correlate verdict"
# a program that is not repeatable (its loop runs as often as /dev/urandom
# says): the correlate tells, the report says so, exit 3
cat >rand.sh <<'EOT'
n=$(od -An -N2 -tu2 /dev/urandom)
i=0
while [ $i -lt $((n % 4000 + 100)) ]; do i=$((i + 1)); done
EOT
run count --machine ./small.machine --passes=auto -e $ev -- /bin/sh ./rand.sh
expect_rc 3
expect_out "NOT REPEATABLE: the correlate differs between passes"
expect_out "count it in one run with --multiplex=N"
# a program that reads standard input: from a file every pass reads the
# same lines (hpm starts each at the same place); from a pipe only the
# first pass has them, and the report says so and what to do
seq 1 3000 >lines.txt
run count --machine ./small.machine --passes=auto -e $ev -- wc -l <lines.txt
expect_rc 0
[ "$(grep -c '^3000$' out)" = 3 ] || fail "the passes did not each read the file: $(head -3 out)"
expect_out "is the same in each: the passes describe one run"
seq 1 3000 | "$hpm" count --machine ./small.machine --passes=auto -e $ev -- wc -l >out 2>err
rc=$?
expect_rc 3
expect_out "NOT REPEATABLE: .*standard input is a pipe: .*give it a file (< FILE"
# --multiplex: one run cycling the three sets every 20000 instructions; the
# correlate is exact (the one run's), the others estimates near the one
# run's, the report says so
"$hpm" count --machine ./small.machine --multiplex=20000 --csv -o mpx.csv -e $ev -- "$prog" 20000 \
    >progm.out 2>err || fail "the multiplexed run failed: $(tail -3 err)"
[ "$(grep -c 'hpm-stream n=20000' progm.out)" = 1 ] || fail "the program did not run once"
grep -q '3 sets of events cycled in one run every 20000 INSTRUCTIONS' err ||
    fail "no multiplexing said: $(head -3 err)"
grep -q 'multiplexed (estimated): 3 sets' mpx.csv || fail "the report does not say multiplexed"
grep -q 'estimated (6 event codes: ' mpx.csv || fail "the estimated events are not named"
grep -q 'INSTRUCTIONS per set: set 1 ' mpx.csv || fail "no per-set correlate"
# value EVENT FILE: the count of row EVENT in a CSV report
value() { grep "^event,$1,,,,," "$2" | cut -d, -f7; }
[ "$(value INSTRUCTIONS mpx.csv)" = "$(value INSTRUCTIONS one.csv)" ] ||
    fail "the correlate is not exact: $(value INSTRUCTIONS mpx.csv) vs $(value INSTRUCTIONS one.csv)"
for e in LOADS STORES CYCLES; do
    m=$(value $e mpx.csv) o=$(value $e one.csv)
    [ -n "$m" ] && [ -n "$o" ] || fail "no $e row"
    echo "$e: multiplexed $m, one run $o"
    # within 5% (the sets take turns on a loop of the same work)
    [ $((m * 100)) -ge $((o * 95)) ] && [ $((m * 100)) -le $((o * 105)) ] ||
        fail "$e estimated $m, the one run's $o"
done
# a run too short for every set's turn: the sets that ran are reported,
# those that never got an interval named, their events left out (no count)
run count --machine ./small.machine --multiplex=1000000 --csv -o short.csv -e $ev -- "$prog" 100
expect_rc 0
grep -q '2 of the 3 multiplexed sets never got an interval' short.csv ||
    fail "the sets without an interval are not named: $(grep note short.csv)"
grep 'never got an interval' short.csv | grep -q 'set 3 (PU0_FP_SQRT)' ||
    fail "FP_SQRT's set is not named: $(grep 'never got' short.csv)"
[ "$(value INSTRUCTIONS short.csv)" -gt 0 ] || fail "no correlate in the short run"
[ "$(value LOADS short.csv)" -gt 0 ] || fail "no estimate of LOADS (set 1 ran)"
[ -z "$(value FP_SQRT short.csv)" ] || fail "FP_SQRT has a count though its set never ran"
run count --machine ./small.machine --passes=auto --multiplex=100 -e $ev -- "$prog" 100
expect_rc 2
expect_err "one of them"
# events that fit one configuration: nothing to cycle, an ordinary report
run count --machine ./small.machine --multiplex=100 -e LOADS,INSTRUCTIONS -- "$prog" 100
expect_rc 0
grep -q multiplexed out && fail "multiplexed one set"
[ -z "$(ls -A tmp)" ] || fail "left in TMPDIR: $(ls -A tmp)"
echo "ok passes"
