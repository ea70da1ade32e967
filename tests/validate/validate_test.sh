#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Tests of `hpm validate` (seed 001 Table 1) and of count determinism, one
# scenario per CTest test.
#
#   validate_test.sh HPM SRCDIR MACHINES_DIR WORKDIR SCENARIO [KERNELS]
#
# Scenarios without the virtual PMU (judging a saved CSV report, usage
# errors) run in every build; the others run programs under valgrind.
set -u
hpm=$1 src=$2 machines=$3 work=$4 scenario=$5 kernels=${6:-}
dir=$work/$scenario
rm -rf "$dir" && mkdir -p "$dir" || exit 1
cd "$dir" || exit 1

. "$src/../common/scenario.sh"

# bgl with one key of one section changed: derived from machines/bgl.machine
# so that the test follows the real model in everything else.
# variant NAME SECTION KEY VALUE
variant() {
    awk -v sec="[$2]" -v key="$3" -v val="$4" -v name="$1" '
        /^\[/ { cur = $1 }
        $1 == "name" && $2 == "=" { print "name = " name; next }
        cur == sec && $1 == key && $2 == "=" { print key " = " val; next }
        { print }' "$machines/bgl.machine" >"$1.machine" || fail "cannot write $1.machine"
}

# bgl with several keys changed: machine NAME SECTION.KEY=VALUE...
machine() {
    name=$1
    shift
    awk -v name="$name" -v sets="$*" '
        BEGIN { n = split(sets, a, " ")
                for (i = 1; i <= n; i++) { split(a[i], kv, "="); val["[" kv[1]] = kv[2] } }
        /^\[/ { cur = $1 }
        $1 == "name" && $2 == "=" { print "name = " name; next }
        { k = substr(cur, 1, length(cur) - 1) "." $1 }
        (k in val) && $2 == "=" { print $1 " = " val[k]; next }
        { print }' "$machines/bgl.machine" >"$name.machine" || fail "cannot write $name.machine"
}

# set_region_count CSV REGION EVENT VALUE: a copy of CSV with that count replaced
set_region_count() {
    awk -F, -v OFS=, -v r="$2" -v e="$3" -v v="$4" '
        $1 == "region" && $2 == e && $3 == r { $7 = v } { print }' "$1"
}

case $scenario in
# ---------------------------------------------------------------- no valgrind
from_csv)
    # The judging rule on a saved report of the full table (bgl): all pass;
    # then the random loads' TLB bound (1026 + slack 16) is met at 1042 and
    # broken at 1043; a count 2% and one event off an expectation fails.
    csv=$src/table_bgl.csv
    run validate --from-csv "$csv"
    expect_rc 0
    expect_out "validate: ok: all 63 counts in 9 rows"
    expect_out "seq stores"
    expect_out "matrix mult"
    # -o FILE: the table there, in full, as on standard output; a table
    # that judges counts off is written too, an error writes nothing
    cp out table.txt
    run validate --from-csv "$csv" -o t.txt
    expect_rc 0
    cmp -s t.txt table.txt || fail "-o t.txt differs from standard output"
    [ -s out ] && fail "-o t.txt printed the table too"
    run validate --from-csv /nonexistent.csv -o e.txt
    [ "$rc" -ne 0 ] && [ ! -e e.txt ] || fail "a failed validate left e.txt"
    set_region_count "$csv" rnd_ld_D DTLB_MISSES 1042 >edge.csv
    run validate --from-csv edge.csv --only rnd_ld_D
    expect_rc 0
    set_region_count "$csv" rnd_ld_D DTLB_MISSES 1043 >broken.csv
    run validate --from-csv broken.csv --only rnd_ld_D
    expect_rc 1
    expect_out "+17!"
    expect_out "validate: FAIL: 1 of 7 counts in 1 rows"
    # seq loads' 1M FP loads: LOADS and LOAD_BYTES of 21000 more 8-byte loads
    loads=$(awk -F, '$1 == "region" && $2 == "LOADS" && $3 == "seq_loads" { print $7 }' "$csv")
    set_region_count "$csv" seq_loads LOADS $((loads + 21000)) >a.csv
    set_region_count a.csv seq_loads LOAD_BYTES $(((loads + 21000) * 8)) >more.csv
    run validate --from-csv more.csv --only seq_loads
    expect_rc 1
    expect_out "FAIL"
    ;;
usage)
    run validate --bogus
    expect_rc 2
    expect_err "unknown option '--bogus'"
    run validate --only seq_loads,nope --from-csv "$src/table_bgl.csv"
    expect_rc 2
    expect_err "unknown row 'nope'"
    run validate --from-csv no-such-file.csv
    expect_rc 2
    expect_err "cannot read no-such-file.csv"
    run validate --machine no-such-machine
    expect_rc 2
    run validate --help
    expect_rc 0
    expect_out "usage: hpm validate"
    # a report whose loads are not 4- and 8-byte loads cannot be split
    set_region_count "$src/table_bgl.csv" transpose LOAD_BYTES 3 >odd.csv
    run validate --from-csv odd.csv --only transpose
    expect_rc 2
    expect_err "cannot split them"
    ;;
# ---------------------------------------------------------------- virtual PMU
table)
    # The whole of Table 1 on bgl (all rows take a few seconds): every count
    # within 2% (or the 16-event slack) or at or below its bound.
    run validate --kernels "$kernels"
    expect_rc 0
    expect_out "validate: ok: all 63 counts in 9 rows"
    ;;
geometry)
    # BG/P with a 16 KB 8-way L1D and a 2 MB L2 behind its prefetcher: the
    # seed's counts assume a matrix that fits the L1D and an L2 that keeps
    # no prefetched line, so those cells have no analytic expectation here
    # (said, with why), and every other count still passes: never a false
    # FAIL
    sed -e '/^\[l1d\]/,/^\[/{s/^size = 32K/size = 16K/;s/^assoc = 64/assoc = 8/}' \
        -e '/^\[l2\]/,/^\[/{s/^size = 2K/size = 2M/;s/^assoc = 0 .*/assoc = 8/}' \
        -e 's/^name = bgp/name = bgp_alt/' "$machines/bgp.machine" >alt.machine
    grep -q "^size = 16K" alt.machine && grep -q "^size = 2M" alt.machine || fail "alt.machine not made"
    run validate --machine ./alt.machine --kernels "$kernels"
    expect_rc 0
    expect_out "validate: ok: all 53 counts in 9 rows"
    expect_out "transpose L1 ld miss: the matrix does not fit the L1D"
    expect_out "matrix mult L2 miss: a stream prefetcher runs in front of the L2"
    # the random rows give a stream nothing to follow: still judged
    grep -q "random ld D L2 miss:" out && fail "random ld D's L2 misses were left unjudged"
    ;;
small_fifo)
    # A small FIFO L1D (16 KB, 8 ways, 64-byte lines), a 2 MB L2, 32 DTLB
    # entries: the multiple random loads evict I's lines between their uses,
    # and the bound, derived from the geometry, counts those fetches (32768 +
    # 4 x 64); the seed's 32768 + 64 was broken by +89 and +71
    run validate --machine "$src/small_fifo.machine" --kernels "$kernels"
    expect_rc 0
    expect_out "machine small_fifo"
    expect_out "validate: ok: all 60 counts in 9 rows"
    expect_out "transpose L1 st miss: the line an element is loaded from can go before its store"
    [ "$(awk '$1 == "mult" && $5 == "exp" { print $10 }' out | sort -u)" = "<=33024" ] ||
        fail "the multiple random loads' L1 bound is not 32768 + 4 x 64"
    ;;
sweep)
    # Expectations and bounds follow any geometry the model accepts: L1Ds,
    # L2s and DTLBs far from the seed's, and bgp; each count judged or n/a
    # with why, never a false FAIL (docs/validation.md, "Machines outside the seed's
    # assumptions", has the whole sweep)
    for v in "l1a l1d.size=8K l1d.line=256 l1d.assoc=8" \
        "l1b l1d.size=64K l1d.assoc=2 l1d.policy=lru" \
        "l1c l1d.size=16K l1d.line=64 l1d.assoc=8 l1d.policy=random" \
        "l2a l2.size=1M l2.assoc=4" "l2b l2.size=2M l2.line=256 l2.assoc=16" \
        "l2c l2.size=8M l2.line=64" "tlba dtlb.entries=1" "tlbb dtlb.entries=4 dtlb.assoc=2" \
        "tlbc dtlb.entries=1 dtlb.page_size=64K itlb.page_size=64K"; do
        machine $v
        set -- $v
        run validate --machine "./$1.machine" --kernels "$kernels"
        [ "$rc" = 0 ] || fail "$v: exit status $rc"
        grep -q "^validate: ok: all [0-9]* counts in 9 rows" out || fail "$v: not every row judged"
    done
    # and bgp, whose stream prefetcher serves its loops' lines before they miss
    run validate --machine bgp --kernels "$kernels"
    expect_rc 0
    expect_out "seq loads L2 miss: a stream prefetcher runs in front of the L2"
    ;;
bound_broken)
    # The bounds follow the machine, and a count past one fails. A one-entry
    # DTLB: each random load's page evicts I's, so the bound has a miss for
    # every load of I as well (1K + 1K), which the model meets; the saved
    # report with one TLB miss more than the bound and its slack fails. Four
    # entries cannot hold the transposed matrix's nine pages: the seed's 9
    # does not apply there (n/a, and why), and the row passes.
    variant bgl_tlb1 dtlb entries 1
    run validate --machine ./bgl_tlb1.machine --kernels "$kernels" --only rnd_ld_D \
        --save-csv tlb1.csv
    expect_rc 0
    expect_out "machine bgl_tlb1"
    bound=$(awk '$1 == "random" && $4 == "exp" { sub("<=", "", $11); print $11 }' out)
    [ "$bound" = 2048 ] || fail "the one-entry DTLB's bound is '$bound', not 1024 + 1024"
    tlb=$(awk -F, '$1 == "region" && $2 == "DTLB_MISSES" && $3 == "rnd_ld_D" { print $7 }' tlb1.csv)
    itlb=$(awk -F, '$1 == "region" && $2 == "ITLB_MISSES" && $3 == "rnd_ld_D" { print $7 }' tlb1.csv)
    set_region_count tlb1.csv rnd_ld_D DTLB_MISSES $((2048 + 16 - itlb)) >edge.csv
    run validate --machine ./bgl_tlb1.machine --from-csv edge.csv --only rnd_ld_D
    expect_rc 0
    set_region_count tlb1.csv rnd_ld_D DTLB_MISSES $((2048 + 17 - itlb)) >broken.csv
    run validate --machine ./bgl_tlb1.machine --from-csv broken.csv --only rnd_ld_D
    expect_rc 1
    expect_out "validate: FAIL: 1 of 7 counts in 1 rows"
    grep '^ *err ' out | grep -q '+17!' || fail "no cell marked +17!"
    [ "$tlb" -gt 1500 ] || fail "the one-entry DTLB missed only $tlb times"
    variant bgl_tlb4 dtlb entries 4
    run validate --machine ./bgl_tlb4.machine --kernels "$kernels" --only transpose
    expect_rc 0
    expect_out "transpose TLB miss: the matrix's pages do not fit the DTLB"
    ;;
determinism)
    # Two runs of the same single-threaded program, same inputs, same machine
    # model: every count bit-identical (every event bgl provides, totals,
    # per core, per thread, per region). The host's own measurement of the
    # simulator process (section "host", and the I/O and kernel units' rows
    # of source "measured": host clocks, getrusage) is the one thing that may
    # differ.
    # Programs: the validation kernels, and Debian binaries on a generated
    # input where installed (a compressor and an interpreter).
    awk 'BEGIN { s = 7; for (i = 0; i < 20000; i++) {
        s = (s * 1103515245 + 12345) % 2147483648; print i, s % 1000, "lorem ipsum" } }' \
        >input.txt
    n=0
    one() { # NAME PROGRAM ARGS...
        name=$1
        shift
        for k in 1 2; do
            "$hpm" count --machine bgl --csv -o "$name.$k.csv" -- "$@" >"$name.$k.stdout" \
                2>err || fail "hpm count $* failed"
            grep -v -e '^host,' -e ',measured$' "$name.$k.csv" >"$name.$k.counts"
        done
        cmp -s "$name.1.counts" "$name.2.counts" || {
            diff "$name.1.counts" "$name.2.counts" | head -20 >&2
            fail "$name: two runs differ"
        }
        rows=$(grep -c '^event,' "$name.1.counts")
        [ "$rows" -gt 50 ] || fail "$name: only $rows event rows"
        n=$((n + 1))
    }
    one kernels "$kernels" seq_loads rnd_ld_D mrnd_ld_D transpose matmult
    if command -v gzip >/dev/null; then one gzip gzip -9 -c input.txt; fi
    # Perl seeds its hash function from the OS at every start: its own input
    # then differs run to run, and so do its counts. Fixing the seed makes the
    # inputs the same (docs/validation.md, "Determinism").
    if command -v perl >/dev/null; then
        PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0 \
            one perl perl -e 'my %h; $h{$_ % 977} += $_ for 1 .. 20000; print scalar(keys %h), "\n"'
    fi
    echo "determinism: $n programs bit-identical over two runs"
    ;;
*)
    fail "unknown scenario"
    ;;
esac
exit 0
