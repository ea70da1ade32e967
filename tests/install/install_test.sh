#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/install/install_test.sh SCENARIO BUILD SRC
#
# Installs the build tree BUILD as a user would (cmake --install, DESTDIR
# staging), moves the staged tree to a prefix it was not installed for, and
# checks the moved tree from another folder with a bare environment, so
# that nothing of the build tree or the source tree can be reached:
#   relocated   the installed hpm count counts exactly what the build tree's
#               counts; PAPI and libhpm programs built against the install with
#               pkg-config and find_package(hpm) count under the installed
#               hpm run; nothing installed names the build tree or a prefix;
#               without its tool's folder the installed hpm says where it looked
#   plain       cmake --install --prefix P (no DESTDIR) installs the same files
#   man         a page for hpm and for every command hpm --help lists, and
#               libhpm(3) naming every function of the installed hpm/hpm.h;
#               each renders with man -l without a warning and man finds it
#   completion  the installed completion loads in bash (bash-completion) and
#               completes commands, options, their choices, event names and
#               machine names from the installed hpm
#   deb         the Debian package (CPack) holds under /opt/hpm exactly the
#               files an install has, declares its dependencies and maintainer
#               scripts, and its hpm, unpacked elsewhere, counts
# Every temporary folder is removed on exit.
set -euo pipefail

scenario=$1
build=$(cd "$2" && pwd -P)
src=$(cd "$3" && pwd -P)
work=$(mktemp -d "${TMPDIR:-/tmp}/hpm-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
work=$(cd "$work" && pwd -P)
cd "$work"

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# grep's status for a pipeline's output, read to its end: grep -q stops at
# the first match, and a writer still writing then fails the pipeline
# (pipefail).
has() {
    grep -c "$@" > /dev/null
}

# The staged tree, moved from the prefix it was installed for to $work/moved.
staged_prefix=/opt/hpm-install-test
DESTDIR=$work/stage cmake --install "$build" --prefix "$staged_prefix" > install.log
mv "$work/stage$staged_prefix" "$work/moved"
rm -rf "$work/stage"
P=$work/moved

# Runs a command with a bare environment: no HPM_* variable, no path into
# the build tree.
bare() {
    env -i PATH=/usr/bin:/bin HOME="$work" TMPDIR="$work" "$@"
}

# The modeled counts of papi_loop's loop() (hpm count --only=loop: no path
# or environment size of the run changes them) as "event,NAME,...,value".
modeled_counts() {
    bare LD_LIBRARY_PATH="$P/lib" "$1" count --only=loop -e INSTRUCTIONS,LOADS,STORES,L1D_MISSES \
        --csv -- ./papi_loop 2> "$2.err" | grep '^event,' > "$2" ||
        fail "$1 count failed: $(cat "$2.err")"
}

check_counts() {
    modeled_counts "$build/bin/hpm" build.csv
    modeled_counts "$P/bin/hpm" installed.csv
    grep -q '^event,INSTRUCTIONS,,,,,[1-9][0-9]*,modeled$' installed.csv ||
        fail "the installed hpm count counted no instructions: $(cat installed.csv)"
    cmp -s build.csv installed.csv ||
        fail "the installed hpm counts differently: $(diff build.csv installed.csv)"
    # the machine file came from the installed tree
    bare "$P/bin/hpm" count -e INSTRUCTIONS -- /bin/true 2>&1 |
        has "machine   bgp: .*($P/share/hpm/machines/bgp.machine)" ||
        fail "the installed hpm did not read its own machine file"
    echo "installed hpm count: $(grep '^event,INSTRUCTIONS,,,,,' installed.csv), as the build tree's"
}

# "loop N NAME COUNT" from PROGRAM run under the installed hpm run: at least
# one instruction per iteration, counted by the library the program linked.
check_loop() {
    local out
    out=$(bare LD_LIBRARY_PATH="$P/lib" "$P/bin/hpm" run -- "$@") ||
        fail "$* failed under the installed hpm run"
    [[ $out =~ ^loop\ ([0-9]+)\ [^\ ]+\ ([0-9]+)$ ]] || fail "$*: unexpected output: $out"
    ((BASH_REMATCH[2] >= BASH_REMATCH[1])) || fail "$*: too few instructions: $out"
    echo "$(basename "$1") under hpm run: $out"
}

check_pkg_config() {
    local flags
    flags=$(PKG_CONFIG_PATH="$P/lib/pkgconfig" pkg-config --cflags --libs papi)
    [[ $flags == *"-I$P/"* && $flags == *"-L$P/"* ]] || fail "papi.pc does not point at the tree: $flags"
    # shellcheck disable=SC2086
    cc -o papi_loop "$src/tests/install/papi_loop.c" $flags
    # linked against hpm's libpapi (soname libpapi.so.7), not Debian's (libpapi.so.7.0)
    readelf -d papi_loop | has 'NEEDED.*\[libpapi\.so\.7\]' || fail "papi_loop is not linked to hpm's libpapi"
    check_loop ./papi_loop
    check_counts
    PKG_CONFIG_PATH="$P/lib/pkgconfig" pkg-config --exists 'hpm >= 0.1' || fail "hpm.pc not found"
}

check_find_package() {
    cmake -S "$src/tests/install/consumer" -B consumer -DCMAKE_PREFIX_PATH="$P" > consumer.log ||
        fail "find_package(hpm): $(cat consumer.log)"
    cmake --build consumer >> consumer.log || fail "the consumer did not build: $(cat consumer.log)"
    check_loop consumer/hpm_loop
    check_loop consumer/papi_loop
}

# No installed text file names the build or source tree or the prefix it was
# staged for; no installed ELF has them in its read-only data or an RPATH
# that is not relative to itself.
check_no_absolute_paths() {
    local f found
    found=$(grep -rIl -e "$build" -e "$src" -e "$staged_prefix" "$P" || true)
    [[ -z $found ]] || fail "installed files name the build tree or prefix: $found"
    find "$P" -type f -exec sh -c 'head -c4 "$1" | grep -q ELF' _ {} \; -print > elf.list
    while IFS= read -r f; do
        objcopy -O binary --only-section=.rodata "$f" rodata.bin 2> /dev/null || continue
        ! grep -qa -e "$build" -e "$src" rodata.bin || fail "$f has the build tree compiled in"
        ! readelf -d "$f" | grep -E 'R(UN)?PATH' | grep -v '\[\$ORIGIN' ||
            fail "$f has an RPATH not relative to itself"
    done < elf.list
    rm -f rodata.bin
    echo "no installed file names the build tree or the prefix ($(wc -l < elf.list) ELF files)"
}

check_man_pages() {
    local man=$P/share/man want=hpm.1 page err fn
    want+=" $(bare "$P/bin/hpm" --help | sed -n '/^commands:/,$p' | tail -n +2 |
        awk '{printf "hpm-%s.1 ", $1}')"
    [[ $(cd "$man/man1" && echo *) == "$(tr ' ' '\n' <<< "$want" | sort | xargs)" ]] ||
        fail "man1 holds $(cd "$man/man1" && echo *), not $want"
    for page in "$man"/man1/*.1 "$man"/man3/libhpm.3; do
        err=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 > "$work/page.txt") ||
            fail "man -l $page failed: $err"
        [[ -z $err ]] || fail "man -l $page: $err"
        grep -q '^NAME' "$work/page.txt" || fail "$page has no NAME section"
        # man finds the page by name in the installed tree
        page=$(basename "$page")
        [[ $(MANPATH=$man man -w "${page%.*}") == "$man/"* ]] || fail "man does not find ${page%.*}"
    done
    MANWIDTH=200 man -l "$man/man3/libhpm.3" > "$work/libhpm.txt" 2> /dev/null
    for fn in $(grep -oE '\bhpm_[a-z0-9_]+\(' "$P/include/hpm/hpm.h" | tr -d '(' | sort -u); do
        grep -q "\b$fn()" "$work/libhpm.txt" || fail "libhpm(3) does not name $fn"
    done
    echo "$(wc -w <<< "$want") command pages and libhpm(3) render; libhpm(3) names every function of hpm.h"
}

# "WORDS -> REPLY" for each line of words, completed by the installed
# completion in a bash that has only bash-completion loaded (the reply's
# words sorted, as readline shows them).
complete_lines() {
    env -i PATH="$P/bin:/usr/bin:/bin" HOME="$work" TMPDIR="$work" bash --norc --noprofile -c '
        source /usr/share/bash-completion/bash_completion
        source "$1"
        complete -p hpm
        while read -r line; do
            read -r -a COMP_WORDS <<< "$line"
            COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
            COMP_LINE="${COMP_WORDS[*]}"
            COMP_POINT=${#COMP_LINE}
            COMPREPLY=()
            _hpm 2> /dev/null
            echo "$line -> $(printf "%s\n" "${COMPREPLY[@]}" | sort | xargs)"
        done' _ "$P/share/bash-completion/completions/hpm"
}

check_completion() {
    local got want
    got=$(complete_lines <<'EOF'
hpm co
hpm upc-e
hpm count --mach
hpm count --pmu=v
hpm count --machine bg
hpm count -e INSTRUC
hpm count -e INSTRUCTIONS,L1D_MI
hpm record -e L1D_MIS
hpm count -- /bin/tru
EOF
)
    want='complete -F _hpm hpm
hpm co -> count
hpm upc-e -> upc-explore
hpm count --mach -> --machine=
hpm count --pmu=v -> virtual
hpm count --machine bg -> bgl bgp
hpm count -e INSTRUC -> INSTRUCTIONS
hpm count -e INSTRUCTIONS,L1D_MI -> INSTRUCTIONS,L1D_MISSES
hpm record -e L1D_MIS -> L1D_MISSES
hpm count -- /bin/tru -> /bin/true /bin/truncate'
    [[ $got == "$want" ]] || fail "completion: got
$got
want
$want"
    echo "the completion loads and completes: $(tail -n +2 <<< "$got" | tr '\n' ';')"
}

check_deb() {
    local deb field
    cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/deb" > deb.log ||
        fail "cpack failed: $(tail deb.log)"
    deb=$(echo "$work"/deb/hpm_*_amd64.deb)
    [[ -f $deb ]] || fail "no hpm_VERSION_amd64.deb in $(ls "$work/deb")"
    [[ $(dpkg-deb -f "$deb" Package) == hpm ]] || fail "the package is not named hpm"
    field=$(dpkg-deb -f "$deb" Depends)
    [[ $field == *"valgrind (>= "* && $field == *libc6* && $field == *libdw1* &&
        $field == *libmicrohttpd12* ]] ||
        fail "Depends lacks valgrind or the libraries: $field"
    dpkg-deb --ctrl-tarfile "$deb" | tar -t > control.files
    grep -qx './postinst' control.files || fail "no postinst"
    grep -qx './prerm' control.files || fail "no prerm"
    # the package's files are exactly an install's, under /opt/hpm
    dpkg-deb -c "$deb" | awk '{ print $6 }' | sed -n 's|^\./opt/hpm/\(.\)|\1|p' | sed 's|/$||' |
        sort > deb.files
    (cd "$P" && find . -mindepth 1 | sed 's|^\./||' | sort) > install.files
    diff install.files deb.files > deb.diff || fail "the package differs from an install: $(cat deb.diff)"
    for field in bin/hpm libexec/hpm/hpm-amd64-linux libexec/hpm/vgpreload_core-amd64-linux.so \
        lib/libpapi.so.7 lib/libpapi.so.7.0 lib/libhpm.so.0 include/papi.h include/hpm/hpm.h \
        lib/pkgconfig/papi.pc share/man/man1/hpm-count.1 share/bash-completion/completions/hpm \
        share/hpm/machines/bgp.machine lib/cmake/hpm/hpmConfig.cmake; do
        grep -qx "$field" deb.files || fail "the package lacks $field"
    done
    # unpacked somewhere else, its hpm counts
    dpkg-deb -x "$deb" "$work/root"
    bare "$work/root/opt/hpm/bin/hpm" count -e INSTRUCTIONS --csv -- /bin/true 2> deb.err |
        has '^event,INSTRUCTIONS,,,,,[1-9][0-9]*,modeled$' ||
        fail "the unpacked package's hpm did not count: $(cat deb.err)"
    echo "$(basename "$deb"): $(wc -l < deb.files) files as an install's; Depends: $(dpkg-deb -f "$deb" Depends)"
}

# A tree whose tool's folder is gone: hpm count says where it looked, and
# counts nothing.
check_missing_tool() {
    local out
    rm -rf "$P/libexec/hpm"
    if out=$(bare "$P/bin/hpm" count -- /bin/true 2>&1); then
        fail "hpm count ran without its tool: $out"
    fi
    [[ $out == *"the virtual PMU tool $P/libexec/hpm/hpm-amd64-linux is missing"* ]] ||
        fail "no clear error without the tool: $out"
    echo "without libexec/hpm: $out"
}

case $scenario in
relocated)
    check_pkg_config
    check_find_package
    check_no_absolute_paths
    check_missing_tool
    ;;
plain)
    cmake --install "$build" --prefix "$work/plain" > plain.log
    diff <(cd "$P" && find . | sort) <(cd "$work/plain" && find . | sort) ||
        fail "cmake --install --prefix and DESTDIR staging installed different files"
    echo "--prefix and DESTDIR install the same $(cd "$P" && find . -type f | wc -l) files"
    ;;
man)
    check_man_pages
    ;;
completion)
    check_completion
    ;;
deb)
    check_deb
    ;;
*)
    fail "unknown scenario $scenario"
    ;;
esac
