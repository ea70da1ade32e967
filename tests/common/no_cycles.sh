#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# no_cycles.sh [--calls-only] FOLDER OBJECT... [--folder FOLDER OBJECT...]...
# - fail if files depend on each other in a loop.
#
# The graph is read from the object files, not the sources, so it is what
# the compiler made: file A depends on file B when one of A's undefined
# symbols (nm: U) is a function (T, W) or a piece of data (D, B, C, R, V)
# that B defines. Data counts as a call does: a file that reads or writes
# another's global depends on it as surely as one that calls it, and a loop
# through globals is a loop. --calls-only counts functions alone. Static
# functions and data stay inside a file and are not edges. A cycle
# (A -> ... -> A) fails the test, naming every symbol of the edges in a
# cycle, so that what the files share can be moved into a leaf file (one
# that depends on nothing else of the graph).
#
# Each --folder starts another folder's objects: the graph is then every
# folder's files together (named FOLDER/file), and a loop that runs through
# several folders fails as one within a folder does. FOLDER is otherwise
# only a label for the messages. NM may name another nm.
set -eu
usage() {
    echo "usage: $0 [--calls-only] FOLDER OBJECT... [--folder FOLDER OBJECT...]..." >&2
    exit 2
}
kinds="TWDBCRV"
if [ "${1:-}" = "--calls-only" ]; then
    kinds="TW"
    shift
fi
[ $# -ge 2 ] || usage
nm=${NM:-nm}

# Pass 1: check the arguments (an object that is not there, a list passed
# as one argument, a stale path, would make an empty graph that passes) and
# count the folders, which decides how files are named.
folders=0
label=
expect_folder=1
for a in "$@"; do
    if [ "$expect_folder" = 1 ]; then
        label=$a
        folders=$((folders + 1))
        expect_folder=0
        seen=0
    elif [ "$a" = "--folder" ]; then
        [ "$seen" -gt 0 ] || usage
        expect_folder=1
    elif [ ! -f "$a" ]; then
        echo "$label: no object file $a" >&2
        exit 2
    else
        seen=$((seen + 1))
    fi
done
if [ "$expect_folder" = 1 ] || [ "$seen" = 0 ]; then
    usage
fi
if [ "$folders" -gt 1 ]; then
    title=$(printf '%s\n' "$@" | awk 'NR == 1 || prev == "--folder" { l = l (l ? "+" : "") $0 } { prev = $0 } END { print l }')
else
    title=$1
fi

# Pass 2: one line per symbol: "D file symbol" (defined) or "U file symbol".
prefix=
expect_folder=1
for a in "$@"; do
    if [ "$expect_folder" = 1 ]; then
        [ "$folders" -gt 1 ] && prefix="$a/"
        expect_folder=0
        continue
    fi
    if [ "$a" = "--folder" ]; then
        expect_folder=1
        continue
    fi
    f=$(basename "$a")
    f=${f%.o}
    f=${f%.obj}
    f=${f%.c}
    "$nm" "$a" | awk -v f="$prefix$f" -v kinds="$kinds" '
        NF >= 3 && length($2) == 1 && index(kinds, $2) > 0 { print "D", f, $3 }
        NF == 2 && $1 == "U"                                { print "U", f, $2 }'
done | awk -v folder="$title" '
    $1 == "D" { def[$3] = $2; files[$2] = 1; next }
    $1 == "U" { use[++nu] = $2 " " $3; files[$2] = 1 }
    END {
        n = 0
        for (f in files) name[++n] = f
        for (i = 1; i <= nu; i++) {
            split(use[i], p, " ")
            if (!(p[2] in def) || def[p[2]] == p[1])
                continue
            e = p[1] SUBSEP def[p[2]]
            if (!(e in edge))
                edge[e] = p[2]
            else if (index(" " edge[e] " ", " " p[2] " ") == 0)
                edge[e] = edge[e] " " p[2]
            reach[p[1], def[p[2]]] = 1
        }
        # transitive closure (a few dozen files)
        for (k = 1; k <= n; k++)
            for (i = 1; i <= n; i++)
                if ((name[i], name[k]) in reach)
                    for (j = 1; j <= n; j++)
                        if ((name[k], name[j]) in reach)
                            reach[name[i], name[j]] = 1
        bad = 0
        for (e in edge) {
            split(e, p, SUBSEP)
            if ((p[2], p[1]) in reach) {
                printf "%s: %s uses %s (%s), which depends back on %s\n", folder, p[1], p[2],
                       edge[e], p[1] | "sort"
                bad = 1
            }
        }
        close("sort")
        if (bad) {
            printf "%s: the files above depend on each other in a loop: move what they share into a leaf file\n", folder
            exit 1
        }
        printf "%s: %d files, no dependency cycle\n", folder, n
    }'
