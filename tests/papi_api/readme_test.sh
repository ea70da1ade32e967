#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The README's PAPI example as it is written there: examples/papi_flops.c
# compiled against include/papi and libpapi, run under hpm run, counts
# its loop's floating-point additions exactly.
#   readme_test.sh HPM LIBDIR SRCDIR WORKDIR
set -u
hpm=$1 libdir=$2 src=$3 work=$4
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL papi_api.readme: $*" >&2; exit 1; }
# the README shows these commands (from the source folder, build/ its build)
grep -qF '$ cc -Iinclude/papi examples/papi_flops.c -Lbuild/lib -lpapi -o papi_flops' \
    "$src/README.md" || fail "the README no longer compiles examples/papi_flops.c"
grep -qF '$ LD_LIBRARY_PATH=build/lib build/bin/hpm run -- ./papi_flops' "$src/README.md" ||
    fail "the README no longer runs ./papi_flops"
cc -I"$src/include/papi" "$src/examples/papi_flops.c" -L"$libdir" -lpapi -o papi_flops ||
    fail "the example does not compile"
LD_LIBRARY_PATH=$libdir "$hpm" run -- ./papi_flops >out 2>err || fail "hpm run: $(cat err)"
grep -q "^1000000 iterations: PAPI_TOT_INS [1-9][0-9]*, PAPI_FP_OPS 1000000 (x = 500000)$" out ||
    fail "output: $(cat out) $(cat err)"
echo "ok: $(cat out)"
