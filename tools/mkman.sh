#!/usr/bin/env bash
# mkman.sh - the man pages, made from the text `--help` prints (the one
# source): fleetsim(1) from `fleetsim --help` and fleetsim-CMD(1) from
# `fleetsim CMD --help` for every command that `fleetsim --help` lists.
# The usage lines become the SYNOPSIS, the rest the DESCRIPTION: flowed
# paragraphs, and indented blocks (options, lists, examples) kept as
# printed.  tests/cli/man.sh renders every page and checks it says what
# --help says.
#
# Usage: tools/mkman.sh FLEETSIM OUTDIR
set -euo pipefail
fleetsim=$1 outdir=$2
mkdir -p "$outdir"
version=$("$fleetsim" --version | awk '{print $2}')

# stdin: a --help text; $1 the page (fleetsim-run), $2 its one-line summary,
# $3 the SEE ALSO line.  stdout: the page in man(7) roff.
to_roff() {
    awk -v page="$1" -v summary="$2" -v see="$3" -v version="$version" '
    function esc(s) {
        gsub(/\\/, "\\e", s)
        gsub(/-/, "\\-", s)
        if (s ~ /^[.\047]/) s = "\\&" s
        return s
    }
    BEGIN {
        up = toupper(page)
        print ".TH " up " 1 \"\" \"fleetsim " version "\" \"fleetsim manual\""
        print ".nh"
        print ".ad l"
        print ".SH NAME"
        print esc(page) " \\- " esc(summary)
        print ".SH SYNOPSIS"
        print ".nf"
        part = "synopsis"
    }
    part == "synopsis" {
        if ($0 == "") { print ".fi"; print ".SH DESCRIPTION"; part = "body"; mode = ""; next }
        sub(/^usage: /, ""); sub(/^       /, "")
        print esc($0)
        next
    }
    $0 == "" { if (mode == "pre") print ".fi"; mode = ""; next }
    /^ / {
        if (mode != "pre") { print ".PP"; print ".nf"; mode = "pre" }
        print esc($0)
        next
    }
    {
        if (mode == "pre") print ".fi"
        if (mode != "text") print ".PP"
        mode = "text"
        print esc($0)
    }
    END {
        if (part == "synopsis" || mode == "pre") print ".fi"
        print ".SH SEE ALSO"
        print esc(see)
    }'
}

"$fleetsim" --help | to_roff fleetsim "simulate GPU clusters, compare fleets and plan capacity" \
    "$("$fleetsim" --help | awk '/^Commands:/ {on = 1; next} on && /^  [a-z]/ {printf "%sfleetsim-%s(1)", n++ ? ", " : "", $1} on && /^$/ {on = 0}'); the documentation in docs/ (installed under share/doc/fleetsim)" \
    >"$outdir/fleetsim.1"
"$fleetsim" --help | awk '/^Commands:/ {on = 1; next} on && /^  [a-z]/ {c = $1; $1 = ""; sub(/^ +/, ""); print c "\t" $0} on && /^$/ {on = 0}' |
    while IFS=$'\t' read -r cmd summary; do
        "$fleetsim" "$cmd" --help | to_roff "fleetsim-$cmd" "$summary" \
            "fleetsim(1); docs/cli.md (installed as share/doc/fleetsim/cli.md)" >"$outdir/fleetsim-$cmd.1"
    done
