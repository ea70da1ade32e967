#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Loops and the roofline (tests/roofline/CMakeLists.txt).
#   roofline_test.sh HPM LOOP_PROG STREAM SOURCE_DIR WORKDIR SCENARIO
set -u
hpm=$1 loop_prog=$2 stream=$3 kernels=$4 src=$5 work=$6 scenario=$7
dir=$work/$scenario
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1
. "$src/tests/common/scenario.sh"
py=/usr/bin/python3
# the model's measured ceilings: measured here, not taken from a cache
export HPM_ROOFLINE_CACHE="$dir/cache"

# loop_row FUNCTION DEPTH: "entries iterations trip" of that loop in out
loop_row() {
    awk -v fn="$1" -v d="$2:" '$0 ~ " " d " " fn " " { print $4, $5, $6 }' out
}

case $scenario in
loops)
    run profile -o p.cg -- "$loop_prog" 13 7
    expect_rc 0
    run annotate --loops --top 1000 p.cg
    expect_rc 0
    [ "$(loop_row work 1)" = "1 13 13.00" ] || fail "work's outer loop: '$(loop_row work 1)', expected 1 entry, 13 iterations"
    [ "$(loop_row work 2)" = "13 91 7.00" ] || fail "work's inner loop: '$(loop_row work 2)', expected 13 entries, 91 iterations"
    [ "$(loop_row deep 1)" = "1 2 2.00" ] || fail "deep's outer loop: '$(loop_row deep 1)'"
    [ "$(loop_row deep 2)" = "2 6 3.00" ] || fail "deep's middle loop: '$(loop_row deep 2)'"
    [ "$(loop_row deep 3)" = "6 24 4.00" ] || fail "deep's inner loop: '$(loop_row deep 3)'"
    # the profile's jump lines are callgrind's: its annotator reads them
    callgrind_annotate p.cg >ca.out 2>ca.err || fail "callgrind_annotate failed"
    ! grep -q WARNING ca.err || fail "callgrind_annotate warned: $(head -3 ca.err)"
    grep -q 'loop_prog.c:work' ca.out || fail "callgrind_annotate lacks work"
    # an empty loop count: n = 0 enters the outer loop never
    run profile -o z.cg -- "$loop_prog" 0 7
    expect_rc 0
    run annotate --loops --top 1000 z.cg
    expect_rc 0
    [ -z "$(loop_row work 1)" ] || fail "work has a loop with n = 0: $(loop_row work 1)"
    ;;
stream)
    # one run: hpm profile's report (hpm count's table) and its profile
    run profile -o p.cg -- "$stream"
    expect_rc 0
    cp out count.txt
    "$hpm" roofline --json --profile p.cg >r.json 2>rerr || fail "hpm roofline failed: $(cat rerr)"
    ls "$dir/cache/"* >/dev/null 2>&1 || fail "the measured ceilings were not kept"
    $py - r.json count.txt <<'PY' || fail "the roofline's numbers"
import json, sys
d = json.load(open(sys.argv[1]))
c = {}
for line in open(sys.argv[2]):
    w = line.split()
    if len(w) >= 2 and w[0].isupper() and w[1].isdigit():
        c.setdefault(w[0], int(w[1]))
t = d["totals"]
assert t["flops"] == c["FP_OPS"], (t["flops"], c["FP_OPS"])
assert t["bytes"]["L1"] == c["LOAD_BYTES"] + c["STORE_BYTES"], t["bytes"]
assert t["bytes"]["DDR"] == c["DDR_READ_BYTES"] + c["DDR_WRITE_BYTES"], t["bytes"]
triad = [i for i in d["items"] if i["kind"] == "loop" and "stream.c:46" in i["name"]]
assert len(triad) == 1, [i["name"] for i in d["items"]]
tr = triad[0]
# a[j] = b[j] + s * c[j]: 2 flops per 16 bytes loaded and 8 stored
assert abs(tr["intensity"]["L1"] - 2 / 24) < 1e-9, tr["intensity"]
# DDR: b and c read, a read for ownership and written back: 32 bytes
assert abs(tr["intensity"]["DDR"] - 2 / 32) / (2 / 32) < 0.02, tr["intensity"]
assert tr["bound"] in ("L2", "L3", "DDR"), tr["bound"]
assert tr["entries"] == 5 and abs(tr["trip"] - 1e6) < 1e-6, (tr["entries"], tr["trip"])
# on the DDR roof the model's own kernels measured (within 10%)
roof = tr["intensity"]["DDR"] * d["measured"]["bytes_per_s"]["DDR"] / 1e9
assert abs(tr["gflops"] - roof) / roof < 0.10, (tr["gflops"], roof)
PY
    ;;
matmul)
    # n = 128, 16 x 16 tiles: 2 n^3 flops each. L1: the inner loop loads
    # a and b (16 bytes per 2 flops), and c is loaded and stored once per
    # inner loop: 2 / (16 + 16 / n) naive, 2 / (16 + 16 / B) blocked. L2:
    # naive b walks a column, 1 KB apart, all in one set of the 64-way L1:
    # a 32-byte line per multiply-add, 2 / 32; blocked tiles stay in L1.
    run profile -o mm.cg -- "$kernels" matmul 128 16
    expect_rc 0
    "$hpm" roofline --no-measure --json --top 50 --profile mm.cg >r.json 2>rerr ||
        fail "hpm roofline failed: $(cat rerr)"
    $py - r.json <<'PY' || fail "matmul's intensities"
import json, sys
d = json.load(open(sys.argv[1]))
f = {i["name"]: i for i in d["items"] if i["kind"] == "function"}
nv, bl = f["matmul_naive"], f["matmul_blocked"]
assert nv["flops"] == bl["flops"] == 2 * 128 ** 3, (nv["flops"], bl["flops"])
def near(got, want, tol):
    assert abs(got - want) / want < tol, (got, want)
near(nv["intensity"]["L1"], 2 / (16 + 16 / 128), 0.01)
near(bl["intensity"]["L1"], 2 / (16 + 16 / 16), 0.02)
near(nv["intensity"]["L2"], 2 / 32, 0.05)
assert bl["intensity"]["L2"] > 10 * nv["intensity"]["L2"], (bl["intensity"], nv["intensity"])
assert "model_bound" not in nv  # --no-measure: the file's ceilings only
PY
    ;;
svg)
    run roofline -o r.svg -- "$stream"
    expect_rc 0
    expect_err "drew r.svg"
    xmllint --noout r.svg || fail "r.svg is not well-formed"
    grep -q "DDR measured on the model" r.svg || fail "r.svg does not draw the measured roofs"
    cp out table.txt
    # -o names the table's file in every format; --svg draws beside it
    run roofline --json -o r.json --svg r2.svg -- "$stream"
    expect_rc 0
    [ -s r.json ] && [ ! -s out ] || fail "--json -o r.json did not write r.json alone"
    # the picture against the table: every item a numbered point and key
    # line, labels apart, each ceiling once, roofs in order, notes
    $py "$src/tests/roofline/check_svg.py" r2.svg r.json table.txt >check.txt 2>&1 ||
        fail "$(cat check.txt)"
    cmp -s r.svg r2.svg || fail "-o r.svg and --svg r2.svg drew different pictures"
    head -20 table.txt | grep -q "^  # kind " || fail "the table has no number column"
    # the scratch profile stays under TMPDIR and is gone after
    mkdir tmp
    TMPDIR=$dir/tmp "$hpm" roofline --no-measure -- "$stream" >out 2>err || fail "TMPDIR run"
    grep -q "hpm-roofline\|read it with" err && fail "a note names the scratch profile: $(cat err)"
    [ -z "$(ls -A tmp)" ] || fail "left in TMPDIR: $(ls -A tmp)"
    # text and CSV name the same loops
    run roofline --csv --profile /dev/null
    [ "$rc" -ne 0 ] || fail "a profile that is not one was read"
    ;;
errors)
    grep -v '^l2_bytes_per_cycle' "$src/machines/bgp.machine" >nol2.machine
    run roofline --machine ./nol2.machine -- "$loop_prog" 1 1
    expect_rc 2
    expect_err "nol2.machine: \[roofline\] l2_bytes_per_cycle is missing"
    run roofline -- 
    [ "$rc" -ne 0 ] || fail "no program and no profile was accepted"
    run roofline -o 'a
b.svg' -- "$loop_prog" 1 1
    expect_rc 2
    ;;
*)
    fail "unknown scenario"
    ;;
esac
echo "ok $scenario"
