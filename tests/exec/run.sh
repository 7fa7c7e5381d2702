#!/usr/bin/env bash
# tests/exec/run.sh - compare on the executor (run/exec.h): -j 1, -j 3 and
# -j 8 (more workers than runs) write the same bytes, in the order given;
# a failing run is reported the same way for any -j, with nothing written.
# (sweep and plan check the same in tests/sweep and tests/plan.)
#
# Usage: FLEETSIM=build/fleetsim tests/exec/run.sh
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
fleetsim=${FLEETSIM:-build/fleetsim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() { failed=$((failed + 1)); echo "FAIL  $1"; }

pols=fifo,best-fit,spread,flux,fgd
for j in 1 3 8; do
    "$fleetsim" compare -q tests/golden/small.json --policies $pols -j $j -o "$tmp/j$j" || bad "compare -j $j: exit $?"
done
diff -r "$tmp/j1" "$tmp/j3" >/dev/null && diff -r "$tmp/j1" "$tmp/j8" >/dev/null &&
    ok "compare: -j 3 and -j 8 write the bytes -j 1 writes" || { bad "compare: -j changes the outputs"; diff -r "$tmp/j1" "$tmp/j3" | head; }
names=$(awk -F'"' '$2 == "name" { printf "%s,", $4 }' "$tmp/j3/compare.json")
[ "$names" = "$pols," ] && ok "compare.json lists the runs in the order given" || bad "compare.json order: $names"

# A missing second scenario: the same message and exit for any -j, nothing written.
for j in 1 3; do
    "$fleetsim" compare -q tests/golden/small.json "$tmp/missing.json" tests/golden/small.json -j $j \
        -o "$tmp/bad$j" 2>"$tmp/err$j"
    echo $? >"$tmp/rc$j"
done
[ "$(cat "$tmp/rc1")" = 66 ] && [ "$(cat "$tmp/rc3")" = 66 ] && cmp -s "$tmp/err1" "$tmp/err3" &&
    [ ! -e "$tmp/bad1/compare.json" ] && [ ! -e "$tmp/bad3/compare.json" ] &&
    ok "a missing scenario: exit 66, the same message for -j 1 and -j 3, nothing written" ||
    { bad "a missing scenario: exit $(cat "$tmp/rc1") / $(cat "$tmp/rc3")"; cat "$tmp/err1" "$tmp/err3"; }

echo "exec: $passed passed, $failed failed"
[ "$failed" = 0 ]
