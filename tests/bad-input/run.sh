#!/usr/bin/env bash
# tests/bad-input/run.sh - every kind of bad input gets a clear message that
# names the file and the place, the documented exit status, and no output
# file left behind as if complete.
#
# The cases are data: tests/bad-input/cases.txt has one line per case,
#
#   ARGS | EXIT | MESSAGE-SUBSTRING
#
# (its header says more), and the broken scenarios and traces it runs live
# next to it.  For each case this script runs `fleetsim ARGS`, with the token
# OUT replaced by a fresh empty folder, and checks that
#   - the exit status is EXIT;
#   - stderr contains MESSAGE-SUBSTRING (a fixed string);
#   - stderr's first line starts with "fleetsim: " and then names the place:
#     "PLACE:" where PLACE is one of the arguments, or a path in the folder of
#     a .json argument (a trace or catalog the scenario names); or, for a
#     command word, the argument in double quotes;
#   - no summary.json, jobs.csv, timeseries.csv or *.tmp file is left in OUT
#     or in the folder given with -o/--output.
# The token EMPTY becomes an empty argument and FIFO a fresh named pipe.
# It prints one line per case and ends with "bad-input: N passed, M failed".
#
# Usage: FLEETSIM=build/fleetsim tests/bad-input/run.sh   (from anywhere)
set -uo pipefail

fleetsim=${FLEETSIM:-build/fleetsim}
case $fleetsim in
*/*) fleetsim=$(cd "$(dirname "$fleetsim")" && pwd)/$(basename "$fleetsim") ;;
esac
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
manifest=tests/bad-input/cases.txt
if [ ! -x "$fleetsim" ] && ! command -v "$fleetsim" >/dev/null; then
    echo "bad-input: $fleetsim is not an executable (set FLEETSIM)" >&2
    exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A hung case must not hang make check.
limit=()
command -v timeout >/dev/null && limit=(timeout 60)
outputs="summary.json jobs.csv timeseries.csv compare.json report.md report.html"
passed=0 failed=0 n=0

trim() { # the argument without leading and trailing blanks
    local s=$1
    s=${s#"${s%%[![:space:]]*}"}
    printf '%s' "${s%"${s##*[![:space:]]}"}"
}

# names_place LINE WORD... : does the rest of stderr's first line (after
# "fleetsim: ") begin with a place the case's arguments make?
names_place() {
    local rest=$1 w
    shift
    [ $# = 0 ] && return 0 # no arguments, no place to name
    for w in "$@"; do
        case $rest in "$w:"* | *"\"$w\""*) return 0 ;; esac
        case $w in
        *.json) case $rest in "$(dirname "$w")/"*) return 0 ;; esac ;;
        esac
    done
    return 1
}

# leftovers DIR... : complete-looking outputs and temporary files in DIRs.
leftovers() {
    local d f
    for d in "$@"; do
        [ -d "$d" ] || continue
        for f in $outputs; do
            [ -e "$d/$f" ] && printf ' %s' "$d/$f"
        done
        find "$d" -maxdepth 1 -name '*.tmp' -printf ' %p'
    done
}

while IFS= read -r raw || [ -n "$raw" ]; do
    line=$(trim "$raw")
    case $line in '' | '#'*) continue ;; esac
    n=$((n + 1))
    case $line in
    *'|'*'|'*) ;;
    *)
        failed=$((failed + 1))
        echo "FAIL  case $n: malformed manifest line (want ARGS | EXIT | MESSAGE): $line"
        continue
        ;;
    esac
    args=$(trim "${line%%|*}")
    rest=${line#*|}
    want=$(trim "${rest%%|*}")
    msg=$(trim "${rest#*|}")
    dir=$tmp/$n
    out=$dir/out
    mkdir -p "$out"
    read -r -a words <<<"$args"
    outdirs=("$out")
    for i in "${!words[@]}"; do
        [ "${words[i]}" = OUT ] && words[i]=$out
        [ "${words[i]}" = EMPTY ] && words[i]=
        if [ "${words[i]}" = FIFO ]; then
            mkfifo "$dir/fifo"
            words[i]=$dir/fifo
        fi
        case ${words[i]} in -o | --output) outdirs+=("${words[i + 1]:-}") ;; esac
    done

    ${limit[@]+"${limit[@]}"} "$fleetsim" ${words[@]+"${words[@]}"} \
        >"$dir/stdout" 2>"$dir/stderr" </dev/null
    status=$?

    why=()
    if [ "$status" != "$want" ]; then
        if [ "$status" = 124 ] && [ ${#limit[@]} -gt 0 ]; then
            why+=("timed out")
        elif [ "$status" -ge 128 ]; then
            why+=("killed by signal $((status - 128)), want exit $want")
        else
            why+=("exit $status, want $want")
        fi
    fi
    [ -n "$msg" ] || why+=("the manifest gives no message substring")
    grep -qF -- "$msg" "$dir/stderr" || why+=("stderr lacks \"$msg\"")
    first=$(head -n 1 "$dir/stderr")
    case $first in
    "fleetsim: "*)
        names_place "${first#fleetsim: }" "${words[@]+"${words[@]}"}" ||
            why+=("stderr's first line names no file or place from the arguments")
        ;;
    *) why+=("stderr does not start with \"fleetsim: \"") ;;
    esac
    left=$(leftovers "${outdirs[@]}")
    [ -z "$left" ] || why+=("left behind:$left")

    label="fleetsim${args:+ $args}"
    if [ ${#why[@]} = 0 ]; then
        passed=$((passed + 1))
        echo "ok    $label"
    else
        failed=$((failed + 1))
        echo "FAIL  $label"
        for w in "${why[@]}"; do echo "        $w"; done
        head -n 3 "$dir/stderr" | sed 's/^/        stderr: /'
    fi
done <"$manifest"

echo "bad-input: $passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$n" -gt 0 ]
