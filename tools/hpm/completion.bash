# SPDX-License-Identifier: BSD-3-Clause
# bash completion for hpm (installed as share/bash-completion/completions/hpm;
# bash-completion loads it on first use). Everything is asked of the hpm
# being completed, so that it cannot drift from it: the commands from
# `hpm --help`, each command's options and their values' kinds from
# `hpm COMMAND --help`, event names from the catalog (`hpm list`), machine
# names from `hpm list --machines`.

# The commands that `hpm --help` lists.
_hpm_commands()
{
    "$1" --help 2> /dev/null | sed -n '/^commands:/,$p' | awk 'NR > 1 { print $1 }'
}

# The value name that `hpm COMMAND --help` gives OPTION ("FILE", "EVENTS",
# "auto|perf|virtual"), empty for a flag: an option's head is the line's
# text up to two spaces ("-e, --events EVENTS", "--machine=M").
_hpm_value_name()
{
    "$1" "$2" --help 2> /dev/null | awk -v opt="$3" '
        /^  -/ {
            head = substr($0, 3)
            if ((i = index(head, "  ")) > 0)
                head = substr(head, 1, i - 1)
            n = split(head, w, /, | |=/)
            for (k = 1; k <= n; k++)
                if (w[k] == opt) {
                    print (w[n] ~ /^-/ ? "" : w[n])
                    exit
                }
        }'
}

# Event names for the last element of a comma-separated list.
_hpm_events()
{
    local hpm=$1 prefix=
    [[ $cur == *,* ]] && prefix=${cur%,*},
    local IFS=$'\n'
    COMPREPLY=($(compgen -P "$prefix" -W "$("$hpm" list 2> /dev/null |
        awk '$2 ~ /^[0-9]/ { print $1 }')" -- "${cur##*,}"))
}

_hpm()
{
    local cur prev words cword split
    _init_completion -s || return

    local hpm=${words[0]} cmd=${words[1]-} i value
    if ((cword == 1)); then
        COMPREPLY=($(compgen -W "$(_hpm_commands "$hpm") --help --version" -- "$cur"))
        return
    fi
    # after "--": the program and its arguments, as bash completes them
    for ((i = 2; i < cword; i++)); do
        if [[ ${words[i]} == -- ]]; then
            _command_offset $((i + 1))
            return
        fi
    done

    if [[ $prev == -* ]]; then
        value=$(_hpm_value_name "$hpm" "$cmd" "$prev")
        if [[ $prev == --machine ]]; then
            COMPREPLY=($(compgen -W "$("$hpm" list --machines 2> /dev/null)" -- "$cur"))
            _filedir machine
            return
        fi
        case $value in
        '') ;;
        EVENT | EVENTS | KIND*)
            _hpm_events "$hpm"
            return
            ;;
        PID)
            _pids
            return
            ;;
        DIR)
            _filedir -d
            return
            ;;
        FILE* | OUT | PATH | PROFILE | F | *_FILE | *.csv)
            _filedir
            return
            ;;
        *)
            # a choice (auto|perf|virtual), or a number or name of the user's
            [[ $value =~ ^[a-z0-9-]+(\|[a-z0-9-]+)+$ ]] &&
                COMPREPLY=($(compgen -W "${value//|/ }" -- "$cur"))
            return
            ;;
        esac
    fi
    $split && return

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W '$(_parse_help "$hpm" "$cmd --help" | sort -u)' -- "$cur"))
        [[ ${COMPREPLY-} == *= ]] && compopt -o nospace
        return
    fi
    _filedir
} &&
    complete -F _hpm hpm
