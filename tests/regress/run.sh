#!/usr/bin/env bash
# tests/regress/run.sh - fleetsim regress as a CI gate: the shipped suite
# passes against the shipped baseline; a suite whose scenario got a worse
# policy (fifo instead of best-fit: strict order queues more) fails
# with exit 1 and names the metric; a scenario missing from the baseline
# fails; --update writes a baseline that then passes.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
fleetsim=${FLEETSIM:-build/fleetsim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { echo "ok    $*"; pass=$((pass + 1)); }
bad() { echo "FAIL  $*"; fail=$((fail + 1)); }

"$fleetsim" regress -q scenarios/suite --baseline scenarios/regress-baseline.json >"$tmp/out" 2>&1
rc=$?
[ $rc = 0 ] && ok "shipped suite vs shipped baseline: exit 0" || { bad "shipped suite: exit $rc"; cat "$tmp/out"; }
# CI sets FLEETSIM_REQUIRE_TRACES=1 where ../shared/traces is present: a
# suite scenario skipped for a missing trace is then a failure.
if [ "${FLEETSIM_REQUIRE_TRACES:-}" = 1 ] && grep -q SKIPPED "$tmp/out"; then
    bad "FLEETSIM_REQUIRE_TRACES=1 but the suite skipped: $(grep SKIPPED "$tmp/out" | head -1)"
fi

mkdir "$tmp/suite"
cp scenarios/suite/mixed-best-fit.json "$tmp/suite/a.json"
"$fleetsim" regress -q "$tmp/suite" --baseline "$tmp/base.json" --update 2>/dev/null
rc=$?
[ $rc = 0 ] && [ -s "$tmp/base.json" ] && ok "--update writes the baseline" || bad "--update: exit $rc"
"$fleetsim" regress -q "$tmp/suite" --baseline "$tmp/base.json" >"$tmp/out" 2>&1
rc=$?
[ $rc = 0 ] && grep -q "0 metrics worse" "$tmp/out" && ok "unchanged suite: exit 0" || bad "unchanged suite: exit $rc"

# The deliberate regression: the same scenario under a worse policy.
sed 's/"policy": "best-fit"/"policy": "fifo"/' scenarios/suite/mixed-best-fit.json >"$tmp/suite/a.json"
"$fleetsim" regress "$tmp/suite" --baseline "$tmp/base.json" >"$tmp/out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q "wait_p95_s.*WORSE" "$tmp/out"; then
    ok "worse policy: exit 1, wait_p95_s WORSE"
else
    bad "worse policy: exit $rc"
    cat "$tmp/out"
fi

cp scenarios/suite/mixed-fifo.json "$tmp/suite/b.json"
"$fleetsim" regress -q "$tmp/suite" --baseline "$tmp/base.json" >"$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "NOT IN BASELINE" "$tmp/out" && ok "scenario not in the baseline: exit 1" || bad "missing scenario: exit $rc"

echo "regress: $pass passed, $fail failed"
[ $fail = 0 ]
