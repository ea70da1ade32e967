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
    # a limit on an event one side did not count is not comparable (exit 2),
    # never met and never a regression "from 0" (docs/ci.md)
    grep -v '"L1D_MISSES"' new.json >part.json
    run diff --limit L1D_MISSES:+1% --limit INSTRUCTIONS:+60% old.json part.json
    expect_rc 2
    expect_err "not comparable: L1D_MISSES:+1%: part.json did not count L1D_MISSES (old.json did)"
    grep -q "^ L1D_MISSES .* gone$" out || fail "the table does not say L1D_MISSES is gone"
    run diff --limit L1D_MISSES:+1% part.json old.json
    expect_rc 2
    expect_err "not comparable: L1D_MISSES:+1%: part.json did not count L1D_MISSES"
    grep -q "^ L1D_MISSES .* new$" out || fail "an event only NEW counted is not marked new"
    run diff --limit L1D_MISSES:40 part.json old.json
    expect_rc 0
    run diff --limit L1D_MISSES:40 old.json part.json
    expect_rc 2
    # a regression elsewhere is still one
    run diff --limit L1D_MISSES:+1% --limit INSTRUCTIONS:+10% old.json part.json
    expect_rc 3
    run diff --limit '*:~0%' old.json part.json
    expect_rc 3
    expect_err "not comparable: \*:~0%: 1 event counted by one side only: L1D_MISSES"
    run diff --limit '*:+60%' old.json part.json
    expect_rc 2
    # a scope on one side only, or on neither
    sed 's/"name": "solve"/"name": "setup"/' new.json >moved.json
    run diff --limit INSTRUCTIONS@solve:+60% old.json moved.json
    expect_rc 2
    expect_err "not comparable: INSTRUCTIONS@solve:+60%: moved.json has no region 'solve'"
    run diff --limit '*@nosuch:+1%' old.json new.json
    expect_rc 2
    expect_err "no region 'nosuch' in either run"
    # +N without '%' is not the hard limit N
    run diff --limit INSTRUCTIONS:+1 old.json new.json
    expect_rc 2
    expect_err "'+1' has a sign but no '%'"
    run diff --limit INSTRUCTIONS:~5 old.json new.json
    expect_rc 2
    # counts that are not counts: a corrupt report, not data
    sed 's/"count": 40/"count": -40/' new.json >neg.json
    run diff --limit L1D_MISSES:+1% old.json neg.json
    expect_rc 2
    expect_err "neg.json: event L1D_MISSES: -40 is not a count"
    sed 's/"count": 40/"count": "40"/' new.json >str.json
    run diff old.json str.json
    expect_rc 2
    expect_err 'str.json: event L1D_MISSES: "40" is not a count'
    sed 's/"INSTRUCTIONS": 1200/"INSTRUCTIONS": 1.5e3/' new.json >real.json
    run diff old.json real.json
    expect_rc 2
    expect_err "real.json: region solve, event INSTRUCTIONS: 1500.0 is not a count"
    # two machine models: a warning in the table, no gate
    sed 's/"name": "bgp", "cores": 4, "frequency_hz": 850000000/"name": "bgl", "cores": 2, "frequency_hz": 700000000/' \
        new.json >bgl.json
    run diff old.json bgl.json
    expect_rc 0
    expect_out "warning: not comparable: old.json was counted on machine model bgp"
    expect_err "warning: not comparable"
    run diff --limit INSTRUCTIONS:+60% old.json bgl.json
    expect_rc 2
    expect_err "the limits are not applied to counts of two machine models"
    run diff --json old.json bgl.json
    /usr/bin/python3 -c '
import json
d = json.load(open("out"))
assert "bgl" in d["not_comparable"], d["not_comparable"]
' || fail "the JSON does not say the machines differ"
    # the same name, cores and clock, another model (an edited machine
    # file, another host): the models' hashes tell them apart
    sed 's/"frequency_hz": 850000000/&, "hash": "00000000000000aa"/' old.json >h1.json
    sed 's/"frequency_hz": 850000000/&, "hash": "00000000000000bb"/' new.json >h2.json
    run diff --limit INSTRUCTIONS:+60% h1.json h2.json
    expect_rc 2
    expect_err "hash 00000000000000aa"
    sed 's/"frequency_hz": 850000000/&, "hash": "00000000000000aa"/' new.json >h3.json
    run diff --limit INSTRUCTIONS:+60% h1.json h3.json
    expect_rc 0
    # a file of another kind is refused after its first 4 KiB: a sparse
    # 512 MiB file is not read whole (its resident size stays small)
    truncate -s 512M big
    /usr/bin/python3 - "$hpm" <<'PY' || fail "hpm diff read the whole file before checking it"
import resource, subprocess, sys
p = subprocess.run([sys.argv[1], "diff", "big", "new.json"], capture_output=True, text=True)
kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
assert p.returncode == 2 and "big: not a count report" in p.stderr, (p.returncode, p.stderr)
assert kib < 200 * 1024, "%d KiB resident" % kib
PY
    rm -f big
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
    # one build under two names and folders: every global, stub and data
    # object matches (no gone and new pair for the same thing)
    cp "$prog_a" progX
    mkdir -p sub && cp "$prog_a" sub/progY
    run profile -e INSTRUCTIONS,L1D_MISSES -o x.prof -- ./progX
    expect_rc 0
    run profile -e INSTRUCTIONS,L1D_MISSES -o y.prof -- ./sub/progY
    expect_rc 0
    run diff --top 1000 x.prof y.prof
    expect_rc 0
    grep -q "(gone)\|(new)" out && fail "one build under two names: $(grep '(gone)\|(new)' out)"
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
    # the colours are relative to the largest change (main's +25% is the
    # deepest red), or to --scale: then a change of +10% is the deepest
    python3 "$(dirname "$0")/check_flame.py" d.svg >check.txt 2>&1 || fail "$(cat check.txt)"
    run report --diff --flamegraph --scale 10 -o d10.svg a.data b.data
    expect_rc 0
    python3 "$(dirname "$0")/check_flame.py" d10.svg 10 >check.txt 2>&1 || fail "$(cat check.txt)"
    grep -q "+10.0% or more (--scale)" d10.svg || fail "the legend does not name --scale"
    run report --diff --flamegraph --scale 0 a.data b.data
    expect_rc 2
    expect_err "--scale takes a change in percent above 0"
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
    # profiles of two machine models (named in their creator lines)
    run profile --machine bgl -e INSTRUCTIONS,L1D_MISSES -o bgl.prof -- ./prog
    expect_rc 0
    run diff --limit INSTRUCTIONS:+50% a.prof bgl.prof
    expect_rc 2
    expect_err "a.prof was counted on machine model bgp, bgl.prof on bgl$"
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
    # saving a failed run keeps the program's status, with a warning; a
    # gated run's status is the gate's: a failed program is 4, whatever
    # status it chose (3 would pass for a regression, 2 for not comparable)
    cp "$prog_a" prog
    run count -e INSTRUCTIONS --save-baseline fails -- sh -c './prog; exit 7'
    expect_rc 7
    expect_err "warning: baseline fails is of a failed run (exit status 7)"
    cp "$prog_b" prog
    run count -e INSTRUCTIONS --baseline fails -- sh -c './prog; exit 7'
    expect_rc 4
    expect_err "regression: INSTRUCTIONS:+1%"
    expect_err "warning: baseline fails is of a failed run"
    expect_err "the program failed (exit status 7): exit status 4"
    cp "$prog_a" prog
    for st in 2 3; do
        run count -e INSTRUCTIONS,CYCLES --baseline main --limit 'INSTRUCTIONS:+50%' \
            -- sh -c "./prog; exit $st"
        expect_rc 4
    done
    run count -e INSTRUCTIONS,CYCLES --baseline main --limit 'INSTRUCTIONS:+50%' -- sh -c 'kill -9 $$'
    expect_rc 4
    expect_err "killed by signal 9"
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
    # what can be refused before the run is: the program never starts
    cp "$prog_a" prog
    run count --save-baseline all -- ./prog
    expect_rc 0
    for args in "--machine bgl -e INSTRUCTIONS,CYCLES --baseline main" \
        "-e INSTRUCTIONS --baseline nosuch" "-e INSTRUCTIONS --baseline bad" \
        "-e INSTRUCTIONS,CYCLES --baseline main --limit NOSUCH:+1%" \
        "-e INSTRUCTIONS,CYCLES --baseline main --limit INSTRUCTIONS@nosuch:+1%" \
        "-e INSTRUCTIONS,CYCLES --baseline main --limit CYCLES:+1% --limit L1D_MISSES:+1%" \
        "-e INSTRUCTIONS --baseline all --limit L1D_MISSES:+1% --limit CYCLES:+1%" \
        "-e INSTRUCTIONS --baseline all --limit *:~0%" \
        "-e L1D_MISSES --baseline all" "--save-baseline ." "--save-baseline .." \
        "--save-baseline store/.." "--baseline main --limit INSTRUCTIONS:+1"; do
        rm -f ran
        # shellcheck disable=SC2086
        run count $args -- sh -c 'touch ran; ./prog'
        expect_rc 2
        [ ! -e ran ] || fail "hpm count $args ran the program before refusing"
    done
    run count -e INSTRUCTIONS --baseline all --limit L1D_MISSES:+1% --limit CYCLES:+1% -- ./prog
    expect_err "limit 'L1D_MISSES:+1%': this run does not count L1D_MISSES (add it to -e)"
    run count -e INSTRUCTIONS,CYCLES,L1D_MISSES --baseline main --limit L1D_MISSES:+1% -- ./prog
    expect_rc 2
    expect_err "baseline main did not count L1D_MISSES: not comparable"
    [ ! -e store/report.json ] && [ ! -e .hpm/meta.json ] || fail "a baseline escaped its folder"
    # an event this run counted and the baseline did not, after the run
    run count -e INSTRUCTIONS,CYCLES,L1D_MISSES --baseline main --limit '*:~0%' -- ./prog
    expect_rc 2
    expect_err "not comparable: \*:~0%: 1 event counted by one side only: L1D_MISSES"
    # --repeat's unstable events are not gated by a '*' limit either
    run count --save-baseline clockall -- ./prog clock
    expect_rc 0
    run count --repeat 2 --baseline clockall --limit '*:~0%' -- ./prog clock
    expect_rc 0
    expect_err "\*:~0% not gated for [0-9]* events\{0,1\} that differ between identical runs"
    # a link planted where the save writes is not followed
    echo precious >victim
    ln -s "$dir/victim" store/main/meta.json.tmp
    ln -s "$dir/victim" store/main/report.json.tmp
    run count -e INSTRUCTIONS,CYCLES --save-baseline main -- ./prog
    expect_rc 0
    [ "$(cat victim)" = precious ] || fail "the planted link's target was overwritten"
    [ -f store/main/meta.json ] && [ ! -L store/main/meta.json ] || fail "meta.json not saved"
    # a count baseline over a profile one: the folder is replaced whole
    run count -e INSTRUCTIONS --save-baseline prof -- ./prog
    expect_rc 0
    [ ! -e store/prof/profile ] || fail "a stale profile is left in the baseline"
    # a full disk (a small tmpfs in a mount namespace of our own): nothing
    # is left, an existing baseline is as it was
    if unshare -rm true 2>/dev/null; then
        mkdir small
        unshare -rm sh -c '
            mount -t tmpfs -o size=256k tmpfs small || exit 99
            "$0" count -e INSTRUCTIONS,CYCLES --save-baseline small/b -- ./prog >/dev/null 2>&1 ||
                exit 98
            cp small/b/report.json b.before
            head -c 1M /dev/zero >small/fill 2>/dev/null
            "$0" count -e INSTRUCTIONS,CYCLES,L1D_MISSES --save-baseline small/new -- ./prog >out 2>err
            echo $? >rc.new
            "$0" count -e INSTRUCTIONS,CYCLES,L1D_MISSES --save-baseline small/b -- ./prog >/dev/null 2>err.b
            echo $? >rc.b
            ls -A small >ls.after
            cmp -s small/b/report.json b.before || echo changed >b.changed' "$hpm"
        [ "$(cat rc.new)" = 1 ] && [ "$(cat rc.b)" = 1 ] || fail "a full disk: exit $(cat rc.new) $(cat rc.b), expected 1"
        expect_err "baseline small/new: cannot write .*No space left on device"
        [ "$(tr '\n' ' ' <ls.after)" = "b fill " ] || fail "a full disk left: $(cat ls.after)"
        [ ! -e b.changed ] || fail "a failed save changed the old baseline"
    else
        echo "skipped: no mount namespace for a small tmpfs (unshare -rm)"
    fi
    # a gate is the virtual PMU's: measured counts are never gated (auto
    # with -e and --baseline counts on the virtual PMU)
    run count --pmu=perf -e TASK-CLOCK --baseline main --limit TASK-CLOCK:+1% -- ./prog
    expect_rc 2
    expect_err "--baseline is an option of the virtual PMU"
    run count --pmu=perf -e TASK-CLOCK --save-baseline perf -- ./prog
    expect_rc 2
    [ ! -e store/perf ] || fail "a baseline of measured counts was saved"
    # nor are counts of several runs (--passes) or scaled ones (--multiplex)
    { cat "$(dirname "$0")/../../machines/bgp.machine"; printf '\n[counters]\nunits = 1\ncounters = 16\n'; } \
        >small.machine
    for opt in --passes=auto --multiplex=1000; do
        run count --machine ./small.machine $opt -e LOADS,STORES,BR_RETURNS,CYCLES,FP_SQRT \
            --save-baseline passes -- ./prog
        expect_rc 2
        expect_err "not with --passes or --multiplex"
        [ ! -e store/passes ] || fail "a baseline of $opt was saved"
    done
    # a series of baselines of two machine models is not plotted
    run count --machine bgl -e INSTRUCTIONS --save-baseline onbgl -- ./prog
    expect_rc 0
    run plot --baselines -e INSTRUCTIONS -o mixed.svg main onbgl
    expect_rc 2
    expect_err "baseline onbgl was counted on machine model bgl"
    [ ! -e mixed.svg ] || fail "a plot of two machine models was drawn"
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
markdown)
    # the pull-request comment: the gate's verdict first, the N largest
    # changes of the exact and modeled events with the rest counted, the
    # host-measured ones apart (or left out), CommonMark that cmark-gfm
    # reads into tables
    {
        printf '{"source": "modeled", "machine": {"name": "bgp", "cores": 4, "frequency_hz": 850000000},\n "events": [\n'
        for i in $(seq 1 12); do
            printf '  {"name": "%s", "source": "modeled", "count": %d},\n' \
                "$(sed -n "${i}p" <<EOT
INSTRUCTIONS
CYCLES
LOADS
STORES
L1D_MISSES
L2_MISSES
BRANCHES
BR_MISPREDICTS
FP_OPS
DTLB_MISSES
ITLB_MISSES
SYSCALLS
EOT
)" "$((1000 + i))"
        done
        printf '  {"name": "KERNEL_HOST_SYSTEM_NS", "source": "measured", "count": 5000}]}\n'
    } >old.json
    # each modeled event of NEW 2% and more up (1% more than the one before), the
    # measured one down 26%
    python3 -c '
import json, sys
d = json.load(open("old.json"))
for i, e in enumerate(d["events"]):
    e["count"] = 3700 if e["source"] == "measured" else e["count"] * (102 + i) // 100
json.dump(d, open("new.json", "w"))'
    run diff --markdown --rows 3 --limit INSTRUCTIONS:+1% --limit CYCLES:+50% old.json new.json
    expect_rc 3
    cp out c.md
    [ "$(grep -v '^#\|^$' c.md | head -1 | cut -c1-22)" = "**Gate: regression**: " ] ||
        fail "the comment does not lead with the verdict: $(head -5 c.md)"
    grep -q "^\*\*Gate: regression\*\*: 1 of 2 limits exceeded" c.md || fail "$(head -5 c.md)"
    grep -q "^- \`regression: INSTRUCTIONS:+1%: INSTRUCTIONS went from 1001 to 1021 (+2.00%)" c.md ||
        fail "the exceeded limit is not named"
    [ "$(awk '/^\| event \|/ { t++ } t == 1 && /^\| [A-Z]/ { n++ } /^$/ && t { t = t == 1 ? 2 : t } END { print n }' c.md)" = 3 ] ||
        fail "not 3 rows in the events table: $(cat c.md)"
    grep -q "^9 more events changed" c.md || fail "the rest is not counted"
    grep -q "^Measured on the host, not exact" c.md || fail "no table of measured events"
    awk '/^Measured on the host/ { m = 1 } /KERNEL_HOST_SYSTEM_NS/ && !m { exit 1 }' c.md ||
        fail "a measured event in the ranking"
    cmark-gfm --extension table c.md >c.html || fail "cmark-gfm rejects the comment"
    [ "$(grep -c '<table>' c.html)" -ge 2 ] || fail "cmark-gfm found no tables: $(head c.html)"
    run diff --markdown --no-measured old.json new.json
    expect_rc 0
    grep -q KERNEL_HOST out && fail "--no-measured kept KERNEL_HOST_SYSTEM_NS"
    # 0 -> 0 is no change: a function only one profile has, with none of
    # the sorted event, is not listed as gone
    for side in old new; do
        {
            printf '# callgrind format\nversion: 1\ncreator: hpm profile: the virtual PMU, machine bgp (counts modeled, not measured)\n'
            printf 'cmd: ./prog\nevents: INSTRUCTIONS L1D_MISSES\nob=/tmp/b/prog\nfl=prog.c\nfn=main\n10 100 %s\n' \
                "$([ $side = old ] && echo 5 || echo 7)"
            [ $side = old ] && printf 'fn=quiet\n20 50 0\n'
        } >$side.cg
    done
    run diff --sort L1D_MISSES old.cg new.cg
    expect_rc 0
    grep -q "quiet" out && fail "a function with 0 -> 0 misses is listed: $(cat out)"
    run diff --sort INSTRUCTIONS old.cg new.cg
    grep -q "quiet (gone)" out || fail "quiet's instructions did go: $(cat out)"
    ;;
recipe)
    # docs/ci.md's CI recipe, run as written there: a baseline of one build,
    # then the pipeline on a build that got slower (the program's name and
    # input stand for ./myprog input)
    sed -n '/^## A CI recipe/,/^Run the program/p' "$(dirname "$0")/../../docs/ci.md" |
        sed -n 's/^    //p' >recipe.sh
    grep -q "hpm diff --markdown" recipe.sh || fail "no recipe found in docs/ci.md"
    sed -i -e "s#^hpm #\"\$HPM\" #; s#^\( *\)hpm #\1\"\$HPM\" #" -e 's#\./myprog input#./myprog#' recipe.sh
    # the recipe's two halves: the save once, then the pipeline
    head -2 recipe.sh >save.sh
    tail -n +3 recipe.sh >pipeline.sh
    cp "$prog_a" myprog
    HPM=$hpm sh save.sh >save.out 2>&1 || fail "the recipe's save: $(cat save.out)"
    cp "$prog_b" myprog
    HPM=$hpm sh pipeline.sh >pipe.out 2>&1
    rc=$?
    expect_rc 3
    [ -s new.json ] || fail "the pipeline wrote no new.json"
    grep -v '^#\|^$' comment.md | head -1 | grep -q "^\*\*Gate: regression\*\*" ||
        fail "comment.md does not lead with the verdict: $(head -5 comment.md)"
    cmark-gfm --extension table comment.md >comment.html || fail "cmark-gfm rejects comment.md"
    grep -q "<table>" comment.html || fail "no table in comment.md"
    ;;
*)
    echo "unknown scenario $scenario" >&2
    exit 2
    ;;
esac
echo "ok $scenario"
