#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# selftest.sh CC NO_CYCLES_SH - no_cycles.sh fails on loops made on purpose
# and passes their loop-free halves: a loop through a global (a.c reads
# b.c's data, b.c calls a.c), which --calls-only does not see, and a loop
# of calls that runs through two folders (x/f -> y/g -> x/h -> x/f), which
# neither folder alone holds.
set -eu
cc=$1
script=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT INT TERM
mkdir "$dir/x" "$dir/y"
cat > "$dir/a.c" <<'C'
extern int b_count;
int a_get(void) { return b_count; }
C
cat > "$dir/b.c" <<'C'
int a_get(void);
int b_count;
int b_next(void) { return a_get() + 1; }
C
printf 'int y_g(void);\nint x_f(void) { return y_g(); }\n' > "$dir/x/f.c"
printf 'int x_h(void);\nint y_g(void) { return x_h(); }\n' > "$dir/y/g.c"
printf 'int x_f(void);\nint x_h(void) { return x_f(); }\n' > "$dir/x/h.c"
for c in a b x/f y/g x/h; do
    "$cc" -c -o "$dir/$c.o" "$dir/$c.c"
done

fails() { # NAME ARGS...: the script must exit 1 and say why
    name=$1
    shift
    if sh "$script" "$@" > "$dir/out" 2>&1; then
        echo "FAIL $name: passed"; cat "$dir/out"; exit 1
    fi
    grep -q "depend on each other in a loop" "$dir/out" || { echo "FAIL $name"; cat "$dir/out"; exit 1; }
    echo "ok $name: $(head -n 1 "$dir/out")"
}
passes() {
    name=$1
    shift
    sh "$script" "$@" > "$dir/out" 2>&1 || { echo "FAIL $name"; cat "$dir/out"; exit 1; }
    echo "ok $name: $(cat "$dir/out")"
}
fails data_loop t "$dir/a.o" "$dir/b.o"
passes calls_only --calls-only t "$dir/a.o" "$dir/b.o"
passes folder_x x "$dir/x/f.o" "$dir/x/h.o"
passes folder_y y "$dir/y/g.o"
fails across_folders x "$dir/x/f.o" "$dir/x/h.o" --folder y "$dir/y/g.o"
# a missing object is an error, not an empty graph
if sh "$script" t "$dir/none.o" > "$dir/out" 2>&1; then
    echo "FAIL missing object accepted"; exit 1
fi
echo "ok missing_object: $(cat "$dir/out")"
