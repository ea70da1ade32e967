#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hpm_man.sh HPM VERSION SRCDIR OUTDIR: writes hpm's man pages into OUTDIR.
#   man1/hpm.1, man1/hpm-COMMAND.1  help2man, from `hpm --help` and
#                                   `hpm COMMAND --help`, for every command
#                                   that `hpm --help` lists
#   man3/libhpm.3                   scdoc, from SRCDIR/libhpm.3.scd
# help2man writes a page from a command's own --help, so the page cannot
# drift from the options; SRCDIR/hpm.h2m adds what --help does not say.
set -eu
hpm=$1 version=$2 srcdir=$3 out=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/hpm-man.XXXXXX")
trap 'rm -rf "$work"' EXIT
rm -rf "$out/man1" "$out/man3"
mkdir -p "$out/man1" "$out/man3"

# help2man runs $work/hpm: hpm, its usage paragraph put in GNU's form, which
# help2man reads as the SYNOPSIS ("Usage:" first, each further form of the
# command on an "or:" line, wrapped lines joined).
cat > "$work/usage.awk" <<'AWK'
NR == 1 && /^usage: / { line = "Usage: " substr($0, 8); usage = 1; next }
usage && /^ +hpm / { print line; sub(/^ +/, ""); line = "  or: " $0; next }
usage && /^ +[^ ]/ { sub(/^ +/, " "); line = line $0; next }
usage { print line; usage = 0 }
{ print }
END { if (usage) print line }
AWK
printf '#!/bin/sh\n"%s" "$@" | awk -f "%s"\n' "$hpm" "$work/usage.awk" > "$work/hpm"
chmod +x "$work/hpm"

page() { # NAME DESCRIPTION INCLUDE HELP-OPTION
    help2man --no-info --section=1 --manual="hpm manual" --source="hpm $version" \
        --version-string="$1 $version" --name="$2" --include="$3" \
        --help-option="$4" --output="$out/man1/$1.1" "$work/hpm"
}

"$hpm" --help | sed -n '/^commands:/,$p' | tail -n +2 > "$work/commands"
[ -s "$work/commands" ] || { echo "hpm_man.sh: hpm --help lists no commands" >&2; exit 1; }
cp "$srcdir/hpm.h2m" "$work/hpm.h2m"
printf '[SEE ALSO]\n' >> "$work/hpm.h2m"
while read -r cmd summary; do
    printf '.BR hpm\\-%s (1),\n' "$cmd" >> "$work/hpm.h2m"
    printf '[SEE ALSO]\n.BR hpm (1)\n' > "$work/see-also"
    page "hpm-$cmd" "$summary" "$work/see-also" "$cmd --help"
done < "$work/commands"
printf '.BR libhpm (3)\n' >> "$work/hpm.h2m"
page hpm "hardware performance monitoring, with or without a PMU" "$work/hpm.h2m" --help
scdoc < "$srcdir/libhpm.3.scd" > "$out/man3/libhpm.3"
