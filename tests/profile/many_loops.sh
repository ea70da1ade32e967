#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hpm annotate --loops on a profile of 90,000 loops (gen_loops.py): 30,000
# nested in one function, 60,000 one after another in another, within
# 512 MiB of address space (finding the loops is near linear in time and
# memory; a nest's bodies held one list per loop took 797 MB at 10,000).
#   many_loops.sh HPM SOURCE_DIR WORKDIR
set -u
hpm=$1 src=$2 work=$3 scenario=many_loops
dir=$work/$scenario
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1
. "$src/tests/common/scenario.sh"
nested=30000 seq=60000
python3 "$src/tests/profile/gen_loops.py" $nested $seq >many.cg || fail "gen_loops.py failed"
(ulimit -v 524288 && exec "$hpm" annotate --loops --top 100000 many.cg) >out 2>err
rc=$?
expect_rc 0
expect_out "($((nested + seq)) loops;"
# every loop listed: depth, entries, iterations and trip of each
awk -v n=$nested -v s=$seq '
    $0 ~ /^ *[0-9]+ +[0-9.]+% / {
        for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+:$/) { d = $i + 0; fn = $(i + 1); break }
        if (fn == "nest") {
            nest++
            if (d > deepest) deepest = d
            if (d == 1 && ($4 != n || $5 != n + 1)) bad = bad " outermost " $4 " " $5
            if (d == n && ($4 != n + 1 || $5 != n + 1)) bad = bad " innermost " $4 " " $5
        } else if (fn == "seq") {
            sq++
            if (d != 1 || $4 != 1 || $5 != 2 || $6 != "2.00") bad = bad " seq " $0
        }
    }
    END {
        if (nest != n || deepest != n || sq != s || bad != "") {
            printf "nest %d loops, deepest %d; seq %d loops;%s\n", nest, deepest, sq, substr(bad, 1, 300)
            exit 1
        }
    }' out >check 2>&1 || fail "the loops listed: $(cat check)"
echo "PASS $scenario"
