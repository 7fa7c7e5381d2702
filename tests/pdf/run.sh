#!/usr/bin/env bash
# tests/pdf/run.sh - --pdf on fleetsim run and compare: without Chromium
# (FLEETSIM_CHROMIUM naming nothing, or a PATH without it) the command says
# so, exits 69 and writes nothing; with Chromium, report.pdf is a PDF
# ("%PDF-" header, more than 10 kB: charts included) beside report.html.
# The second half skips, saying so, when Chromium is not installed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
fleetsim=${FLEETSIM:-build/fleetsim}
case $fleetsim in */*) fleetsim=$(cd "$(dirname "$fleetsim")" && pwd)/$(basename "$fleetsim") ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

sc=scenarios/compare/philly-cloud.json
sc2=scenarios/compare/philly-leased.json
# PATH with the tools the run needs but no Chromium: a folder of links.
mkdir "$tmp/bin"
for t in gnuplot; do p=$(command -v $t) && ln -s "$p" "$tmp/bin/$t"; done
for how in env path; do
    for cmd in run compare; do
        out="$tmp/$how-$cmd"
        args=(run -q --pdf "$sc" -o "$out")
        [ $cmd = compare ] && args=(compare -q --pdf "$sc" "$sc2" -o "$out")
        if [ $how = env ]; then
            FLEETSIM_CHROMIUM=/nonexistent/chromium "$fleetsim" "${args[@]}" 2>"$tmp/err"
        else
            env -u FLEETSIM_CHROMIUM PATH="$tmp/bin" "$fleetsim" "${args[@]}" 2>"$tmp/err"
        fi
        rc=$?
        if [ $rc != 69 ]; then bad "$cmd --pdf without Chromium ($how): exit $rc, expected 69"
        elif ! grep -q '^fleetsim: --pdf: .*Chromium' "$tmp/err"; then bad "$cmd --pdf ($how): message: $(head -1 "$tmp/err")"
        elif [ -e "$out" ]; then bad "$cmd --pdf ($how): $out was created"
        else ok "$cmd --pdf without Chromium ($how): exit 69, nothing written: $(head -1 "$tmp/err")"
        fi
    done
done

chromium=
for b in chromium chromium-browser google-chrome; do
    if command -v "$b" >/dev/null; then chromium=$b; break; fi
done
if [ -z "$chromium" ]; then
    echo "pdf: $pass passed, $fail failed; SKIPPED the PDFs themselves: Chromium is not installed"
    [ $fail = 0 ]; exit
fi
"$fleetsim" run -q --pdf "$sc" -o "$tmp/run"
"$fleetsim" compare -q --pdf "$sc" "$sc2" -o "$tmp/compare"
for d in run compare; do
    f="$tmp/$d/report.pdf"
    if [ "$(head -c 5 "$f" 2>/dev/null)" = "%PDF-" ] && [ "$(wc -c <"$f")" -gt 10000 ]; then
        ok "$d --pdf: report.pdf, $(wc -c <"$f") bytes"
    else
        bad "$d --pdf: no report.pdf, or not a PDF"
    fi
    if ls -A "$tmp/$d" | grep -q '^\.'; then bad "$d --pdf: temporary files left: $(ls -A "$tmp/$d" | grep '^\.')"; fi
done
echo "pdf: $pass passed, $fail failed"
[ $fail = 0 ]
