#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# no_cycles.sh FOLDER OBJECT... - fail if the files of one folder call each
# other in a loop.
#
# The graph is read from the object files, not the sources, so it is what
# the compiler made: file A calls file B when one of A's undefined symbols
# (nm: U) is a function B defines (T, W). Calls to static functions stay
# inside a file and are not edges. A cycle (A -> ... -> A through files of
# the folder) fails the test, naming every call of the files in a cycle, so
# the shared helpers can be moved into a leaf file (one that calls nothing
# else of its folder).
#
# FOLDER is only a label for the messages. NM may name another nm.
set -eu
if [ $# -lt 2 ]; then
    echo "usage: $0 FOLDER OBJECT..." >&2
    exit 2
fi
folder=$1
shift
nm=${NM:-nm}

# An object that is not there (a list passed as one argument, a stale path)
# would make an empty graph that passes: refuse it.
for o in "$@"; do
    if [ ! -f "$o" ]; then
        echo "$folder: no object file $o" >&2
        exit 2
    fi
done

# One line per symbol: "D file symbol" (defined function) or "U file symbol".
for o in "$@"; do
    f=$(basename "$o")
    f=${f%.o}
    f=${f%.obj}
    "$nm" "$o" | awk -v f="$f" '
        NF >= 3 && ($2 == "T" || $2 == "W") { print "D", f, $3 }
        NF == 2 && $1 == "U"                { print "U", f, $2 }'
done | awk -v folder="$folder" '
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
        # transitive closure (a folder has a dozen files)
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
                printf "%s: %s calls %s (%s), which calls back into %s\n", folder, p[1], p[2],
                       edge[e], p[1] | "sort"
                bad = 1
            }
        }
        close("sort")
        if (bad) {
            printf "%s: the files above call each other in a loop: move what they share into a leaf file\n", folder
            exit 1
        }
        printf "%s: %d files, no call cycle\n", folder, n
    }'
