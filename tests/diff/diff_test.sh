#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hpm diff's tests (tests/diff/CMakeLists.txt).
#   diff_test.sh HPM PROG_A PROG_B WORKDIR SCENARIO
set -u
hpm=$1 prog_a=$2 prog_b=$3 work=$4 scenario=$5
dir=$work/$scenario
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1
. "$(dirname "$0")/../common/scenario.sh"

# report NAME INSTRUCTIONS L1D_MISSES [REGION_INSTRUCTIONS]: a count report
# as hpm count --json writes one (the fields hpm diff reads)
report() {
    cat >"$1" <<EOT
{"source": "modeled", "machine": {"name": "bgp", "cores": 4, "frequency_hz": 850000000},
 "events": [
  {"name": "INSTRUCTIONS", "source": "modeled", "count": $2},
  {"name": "CYCLES", "source": "modeled", "count": 2000},
  {"name": "L1D_MISSES", "source": "modeled", "count": $3},
  {"name": "LOADS", "source": "modeled", "count": 300},
  {"name": "STORES", "source": "modeled", "count": 100},
  {"name": "KERNEL_HOST_SYSTEM_NS", "source": "measured", "count": $4}],
 "regions": [{"name": "solve", "thread": 1, "counts": {"INSTRUCTIONS": $5}}]}
EOT
}

case $scenario in
inputs)
    report old.json 1000 40 5 700
    report new.json 1500 40 9 1200
    run diff old.json new.json
    expect_rc 0
    expect_out "sorted by INSTRUCTIONS"
    grep -q "^ INSTRUCTIONS  *1000  *1500  *+500  *+50.00%" out || fail "no INSTRUCTIONS row"
    grep -q "KERNEL_HOST_SYSTEM_NS.*measured on the host" out || fail "measured event not marked"
    grep -q "^ IPC  *0.5  *0.75 " out || fail "no IPC old -> new"
    grep -q "+500 .*solve$" out || fail "the region's change is missing"
    expect_out "4 events unchanged"
    # JSON: the same figures, parsed by a JSON reader
    run diff --json old.json new.json
    expect_rc 0
    /usr/bin/python3 -c '
import json, sys
d = json.load(open("out"))
e = {x["name"]: x for x in d["events"]}
assert e["INSTRUCTIONS"]["delta"] == 500 and e["INSTRUCTIONS"]["percent"] == 50.0, e
assert e["KERNEL_HOST_SYSTEM_NS"]["source"] == "measured"
assert d["changes"]["regions"]["rows"][0]["name"] == "solve"
' || fail "the JSON does not say what the text says"
    # identical inputs: nothing changed anywhere
    run diff old.json old.json
    expect_rc 0
    expect_out "6 events unchanged"
    expect_out "no regions changed"
    # Markdown for a pull request: CommonMark with GitHub's tables
    run diff --markdown -o d.md old.json new.json
    expect_rc 0
    cmark-gfm -e table d.md >d.html || fail "cmark-gfm cannot read the Markdown"
    grep -q "<table>" d.html || fail "no table rendered"
    grep -q "<td>INSTRUCTIONS</td>" d.html || fail "no INSTRUCTIONS cell"
    # bad inputs: clear errors naming the file, never a hang
    mkfifo pipe
    timeout 10 "$hpm" diff pipe new.json >out 2>err
    rc=$?
    expect_rc 2
    expect_err "pipe: not a regular file"
    head -c 150 new.json >cut.json
    run diff old.json cut.json
    expect_rc 2
    expect_err "cut.json:"
    printf 'events: INSTRUCTIONS\nfn=main\n1 5\n' >p.prof
    run diff old.json p.prof
    expect_rc 2
    expect_err "compare two of a kind"
    echo hello >junk
    run diff old.json junk
    expect_rc 2
    expect_err "junk: not a count report"
    run diff --sort NOSUCH old.json new.json
    expect_rc 2
    expect_err "no event 'NOSUCH'"
    run diff old.json
    expect_rc 2
    # the gate on count reports: soft, hard, per region
    run diff --limit INSTRUCTIONS:+10% old.json new.json
    expect_rc 3
    expect_err "INSTRUCTIONS went from 1000 to 1500 (+50.00%), more than +10%"
    run diff --limit INSTRUCTIONS:+50% old.json new.json
    expect_rc 0
    run diff --limit INSTRUCTIONS:1499 old.json new.json
    expect_rc 3
    expect_err "INSTRUCTIONS is 1500, over the limit 1499"
    run diff --limit INSTRUCTIONS@solve:+60% --limit L1D_MISSES:+0% old.json new.json
    expect_rc 3
    expect_err "INSTRUCTIONS in solve went from 700 to 1200"
    run diff --limit INSTRUCTIONS@nosuch:+1% old.json new.json
    expect_rc 2
    expect_err "no region 'nosuch'"
    run diff --limit INSTRUCTIONS:+x% old.json new.json
    expect_rc 2
    ;;
profiles)
    # the same path for both builds: the loader's work is the same
    cp "$prog_a" prog
    run profile -e INSTRUCTIONS,L1D_MISSES -o a.prof -- ./prog
    expect_rc 0
    cp "$prog_b" prog
    run profile -e INSTRUCTIONS,L1D_MISSES -o b.prof -- ./prog
    expect_rc 0
    run diff a.prof b.prof
    expect_rc 0
    expect_out "sorted by INSTRUCTIONS"
    first=$(awk '/-- functions \(self\)/ { getline; getline; print; exit }' out)
    echo "$first" | grep -q "+100001 .* hot$" || fail "hot is not first with +100001: $first"
    grep -q "diff_prog.c:[0-9]* (new)$" out || fail "the new loop's line is not listed as new"
    grep -q "+100001 .*main > hot$" out || fail "the call path main > hot lacks +100001"
    # the gate: the extra loop is about 19% of the run
    run diff --limit INSTRUCTIONS:+1% a.prof b.prof
    expect_rc 3
    expect_err "regression: INSTRUCTIONS:+1%: INSTRUCTIONS went from"
    expect_err "hpm:   hot +100001"
    run diff --limit INSTRUCTIONS:+50% a.prof b.prof
    expect_rc 0
    run diff --limit INSTRUCTIONS@cold:+0% a.prof b.prof
    expect_rc 0
    run diff --limit INSTRUCTIONS@hot:+0% a.prof b.prof
    expect_rc 3
    # a differential flame graph of two recordings: hot's frame is red
    # (more instructions), its change the extra loop's, within one sampling
    # period per stack (the samples fall elsewhere once code moves)
    cp "$prog_a" prog
    run record -e INSTRUCTIONS:1000 -o a.data -- ./prog
    expect_rc 0
    cp "$prog_b" prog
    run record -e INSTRUCTIONS:1000 -o b.data -- ./prog
    expect_rc 0
    run report --diff --flamegraph -o d.svg a.data b.data
    expect_rc 0
    xmllint --noout d.svg || fail "d.svg is not well-formed XML"
    grep -q '<title>hot ([0-9]* events, was [0-9]*, +' d.svg || fail "no hot frame that grew"
    grep -A0 '<title>hot (' d.svg | grep -q 'fill="rgb(255,' || fail "hot's frame is not red"
    run report --diff --folded a.data b.data
    expect_rc 0
    awk '$1 ~ /;main;hot(;spin)?$/ { d += $3 - $2 } END { exit !(d >= 98000 && d <= 102000) }' out ||
        fail "hot's stacks did not grow by about 100001: $(grep ';hot' out)"
    run report --diff --flamegraph a.data
    expect_rc 2
    # two recordings of two events: never set side by side
    run record -e LOADS:1000 -o c.data -- ./prog
    expect_rc 0
    run report --diff --folded a.data c.data
    expect_rc 2
    expect_err "a.data's stacks are of hpm:INSTRUCTIONS, c.data's of hpm:LOADS: two events are not compared"
    run report --diff --flamegraph -o dc.svg a.data c.data
    expect_rc 2
    [ ! -e dc.svg ] || fail "a flame graph of two events was drawn"
    # hpm diff of two recordings: sampled, hot named first, the gate fires
    run diff a.data b.data
    expect_rc 0
    expect_out "recordings: sampled events"
    first=$(awk '/-- functions \(self\)/ { getline; getline; print; exit }' out)
    echo "$first" | grep -q " hot$" || fail "hot is not first: $first"
    run diff --limit INSTRUCTIONS:+1% a.data b.data
    expect_rc 3
    run diff a.data a.prof
    expect_rc 2
    expect_err "compare two of a kind"
    # a profile against itself: nothing changed
    run diff a.prof a.prof
    expect_rc 0
    expect_out "no functions (self) changed"
    expect_out "no source lines changed"
    ;;
baseline)
    # named baselines and the gate in hpm count and hpm profile
    HPM_BASELINE_DIR=$dir/store
    export HPM_BASELINE_DIR
    cp "$prog_a" prog
    run count -e INSTRUCTIONS,CYCLES --save-baseline main -- ./prog
    expect_rc 0
    expect_err "baseline main saved in $dir/store/main"
    [ -f store/main/report.json ] && [ -f store/main/meta.json ] || fail "baseline files missing"
    cp "$prog_b" prog
    # the defaults gate INSTRUCTIONS and CYCLES at +1%: the extra loop is 19%
    run count -e INSTRUCTIONS,CYCLES --baseline main -- ./prog
    expect_rc 3
    expect_err "no --limit given; gating on INSTRUCTIONS:+1% CYCLES:+1%"
    expect_err "regression: INSTRUCTIONS:+1%: INSTRUCTIONS went from"
    expect_err "the program is another build"
    run count -e INSTRUCTIONS,CYCLES --baseline main --limit INSTRUCTIONS:+50% -- ./prog
    expect_rc 0
    expect_err "within 1 limit"
    # another machine model: refused
    run count --machine bgl -e INSTRUCTIONS,CYCLES --baseline main -- ./prog
    expect_rc 2
    expect_err "another machine model"
    # no such baseline, a corrupt one, a truncated report
    run count -e INSTRUCTIONS --baseline nosuch -- ./prog
    expect_rc 2
    expect_err "no baseline nosuch"
    cp -r store/main store/bad
    echo '{"hpm_baseline": 1, "machine_ha' >store/bad/meta.json
    run count -e INSTRUCTIONS --baseline bad -- ./prog
    expect_rc 2
    expect_err "baseline bad: .*meta.json is corrupt"
    cp store/main/meta.json store/bad/meta.json
    head -c 100 store/main/report.json >store/bad/report.json
    run count -e INSTRUCTIONS --baseline bad -- ./prog
    expect_rc 2
    expect_err "baseline bad: .*report.json"
    run count -e INSTRUCTIONS --limit INSTRUCTIONS:+1% -- ./prog
    expect_rc 2
    expect_err "give --baseline NAME"
    # the program's own failure keeps its own status
    cp "$prog_a" prog
    run count -e INSTRUCTIONS --save-baseline fails -- sh -c './prog; exit 7'
    expect_rc 7
    cp "$prog_b" prog
    run count -e INSTRUCTIONS --baseline fails -- sh -c './prog; exit 7'
    expect_rc 7
    expect_err "regression: INSTRUCTIONS:+1%"
    # profiles: a per-function limit names the function
    cp "$prog_a" prog
    run profile -e INSTRUCTIONS -o a.prof --save-baseline prof -- ./prog
    expect_rc 0
    [ -f store/prof/profile ] || fail "the profile is not in the baseline"
    cp "$prog_b" prog
    run profile -e INSTRUCTIONS -o b.prof --baseline prof --limit INSTRUCTIONS@hot:+1% -- ./prog
    expect_rc 3
    expect_err "INSTRUCTIONS in hot went from"
    run profile -e INSTRUCTIONS -o b.prof --baseline prof --limit INSTRUCTIONS@cold:+1% -- ./prog
    expect_rc 0
    run count -e INSTRUCTIONS --baseline prof -- ./prog
    expect_rc 3
    # --repeat: a deterministic program repeats exactly; one that reads the
    # clock is named, and the gate leaves its unstable events alone
    run count -e INSTRUCTIONS,CYCLES --repeat 2 -- ./prog
    expect_rc 0
    expect_err "every modeled count is the same in each run"
    run count -e INSTRUCTIONS,CYCLES --save-baseline clock -- ./prog clock
    expect_rc 0
    run count -e INSTRUCTIONS,CYCLES --repeat 2 --baseline clock --limit INSTRUCTIONS:+0% -- ./prog clock
    expect_rc 0
    expect_err "differ between identical runs (the program is not deterministic; not gated):.*INSTRUCTIONS"
    expect_err "INSTRUCTIONS:+0% not gated"
    # a metric across a series of baselines, in the order given
    run plot --baselines -e INSTRUCTIONS -o series.svg main prof main
    expect_rc 0
    xmllint --noout series.svg || fail "series.svg is not well-formed XML"
    grep -q ">prof<" series.svg || fail "the baselines' names are not on the axis"
    run plot --baselines -e NOSUCH -o x.svg main
    expect_rc 1
    expect_err "baseline main has no event or metric NOSUCH"
    # address-space randomization changes no count (setarch -R turns it
    # off); the environment's size does (docs/ci.md)
    cp "$prog_a" prog
    env -i PATH=/usr/bin:/bin "$hpm" count --json -o r1.json -- ./prog >/dev/null 2>&1
    env -i PATH=/usr/bin:/bin setarch -R "$hpm" count --json -o r2.json -- ./prog >/dev/null 2>&1
    run diff --limit '*:~0%' r1.json r2.json
    expect_rc 0
    env -i PATH=/usr/bin:/bin PADDING=0123456789012345678901234567890123456789 \
        "$hpm" count --json -o r3.json -- ./prog >/dev/null 2>&1
    run diff --limit '*:~0%' r1.json r3.json
    expect_rc 3
    ;;
*)
    echo "unknown scenario $scenario" >&2
    exit 2
    ;;
esac
echo "ok $scenario"
