#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Golden reports: hpm count's text, JSON and CSV reports of fixed tool output
# files must stay byte-identical (refactorings of the report code change
# nothing users see). Every case is `hpm count --from-output FILE ARGS`.
#
#   golden_reports.sh HPM SRCDIR WORKDIR          compare with SRCDIR/golden/
#   golden_reports.sh HPM SRCDIR WORKDIR regen    rewrite SRCDIR/golden/
#
# A change that is meant to change a report regenerates the files and the
# commit shows the difference.
set -u
hpm=$(realpath "$1") src=$(realpath "$2") work=$3 mode=${4:-check}
gold=$src/golden
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
# the inputs under fixed relative names (names can appear in reports): the
# sample, a killed program's file, and one whose region name holds invalid
# UTF-8 and a quote (JSON and CSV must escape it, text shows it)
cp "$src/sample_v2.out" sample.out
sed 's/^exit status 0$/exit signal 11/' sample.out >signal.out
bad=$(printf 'm\377\376"')
sed "s/^region main loop /region ${bad}ain loop /" sample.out >utf8.out
mkdir -p out
failed=0
n=0
# case NAME FILE ARGS...
case_() {
    name=$1 file=$2
    shift 2
    n=$((n + 1))
    "$hpm" count --from-output "$file" "$@" >"out/$name" 2>"out/$name.err"
    echo "exit $?" >>"out/$name"
    cat "out/$name.err" >>"out/$name"
    if [ "$mode" = regen ]; then
        cp "out/$name" "$gold/$name"
    elif ! cmp -s "out/$name" "$gold/$name"; then
        echo "FAIL golden $name: hpm count --from-output $file $*" >&2
        diff "$gold/$name" "out/$name" | head -20 >&2
        failed=$((failed + 1))
    fi
}
s=sample.out
case_ text.txt "$s"
case_ text_split.txt "$s" --per-core --per-thread
case_ json.json "$s" --json
case_ json_split.json "$s" --json --per-core --per-thread
case_ csv.csv "$s" --csv
case_ csv_split.csv "$s" --csv --per-core --per-thread
case_ events.txt "$s" -e PU0_CYCLES,NODE_CYCLES,L1D_MISSES,INSTRUCTIONS
case_ events.json "$s" -e PU0_CYCLES,NODE_CYCLES,L1D_MISSES,INSTRUCTIONS --json
case_ events.csv "$s" -e PU0_CYCLES,NODE_CYCLES,L1D_MISSES,INSTRUCTIONS --csv
case_ signal.txt signal.out
case_ signal.json signal.out --json
case_ signal.csv signal.out --csv
case_ utf8.txt utf8.out
case_ utf8.json utf8.out --json
case_ utf8.csv utf8.out --csv
if [ "$mode" = regen ]; then
    echo "golden: wrote $n reports to $gold"
    exit 0
fi
[ $failed -eq 0 ] || { echo "$failed of $n golden reports differ" >&2; exit 1; }
echo "golden: $n reports identical"
