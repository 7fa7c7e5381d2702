#!/usr/bin/env bash
# tests/metric/run.sh - a metric is one row of the table (reports/metric.h).
# METRIC_FLEETSIM is fleetsim built with reports/metric.c compiled with
# -DFS_METRIC_TEST_ROW, which adds one row, "test_jobs_started", there and
# nowhere else; every output must show it:
#   summary.json "metrics", with the value jobs.csv gives independently
#   (rows with a start time); compare.json, each run; regress --update
#   writes it to the baseline, and a baseline where it was higher makes
#   regress exit 1 naming it WORSE.  The shipped build does not have it.
#
# Usage: FLEETSIM=build/fleetsim METRIC_FLEETSIM=build/metric-test/fleetsim tests/metric/run.sh
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
fleetsim=${FLEETSIM:-build/fleetsim}
mfs=${METRIC_FLEETSIM:-build/metric-test/fleetsim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() { failed=$((failed + 1)); echo "FAIL  $1"; }

"$mfs" run -q tests/golden/small.json -o "$tmp/run" || bad "run: exit $?"
got=$(awk '$1 == "\"test_jobs_started\":" { sub(/,$/, "", $2); print $2 }' "$tmp/run/summary.json")
# jobs.csv: start_s is the 9th column; a job that never started has it empty.
want=$(awk -F, 'NR > 1 && $9 != "" { n++ } END { print n + 0 }' "$tmp/run/jobs.csv")
[ -n "$got" ] && [ "$got" = "$want" ] && ok "summary.json: test_jobs_started $got = jobs.csv's started jobs" ||
    bad "summary.json: test_jobs_started \"$got\", jobs.csv says $want"

"$fleetsim" run -q tests/golden/small.json -o "$tmp/shipped" || bad "shipped run: exit $?"
grep -q test_jobs_started "$tmp/shipped/summary.json" && bad "the shipped build has the test row" ||
    ok "the shipped build has no test row"

# docs/metrics.md documents every shipped row (the names summary.json lists).
missing=$(awk '$1 == "\"metrics\":" { inside = 1; next } inside && /^\t}/ { inside = 0 }
    inside { gsub(/[":]/, "", $1); print $1 }' "$tmp/shipped/summary.json" |
    while read -r name; do grep -q "^| \`$name\` |" docs/metrics.md || echo "$name"; done)
rows=$(awk '$1 == "\"metrics\":" { inside = 1; next } inside && /^\t}/ { inside = 0 } inside { n++ } END { print n + 0 }' "$tmp/shipped/summary.json")
[ "$rows" -ge 20 ] && [ -z "$missing" ] && ok "docs/metrics.md has all $rows rows" ||
    bad "docs/metrics.md lacks: ${missing:-?} ($rows rows in summary.json)"

"$mfs" compare -q tests/golden/small.json --policies fifo,best-fit -o "$tmp/cmp" || bad "compare: exit $?"
n=$(grep -c '"test_jobs_started":' "$tmp/cmp/compare.json")
[ "$n" = 2 ] && ok "compare.json: test_jobs_started in both runs" || bad "compare.json: $n runs have test_jobs_started"

echo "$PWD/tests/golden/small.json" >"$tmp/suite.txt"
"$mfs" regress -q --seeds 1 "$tmp/suite.txt" --baseline "$tmp/base.json" --update || bad "regress --update: exit $?"
grep -q '"test_jobs_started":' "$tmp/base.json" && ok "regress --update: the baseline has test_jobs_started" ||
    bad "regress --update: no test_jobs_started in the baseline"
# The row is gated (abs 0.5, higher is better): a baseline 10 jobs higher is
# a regression (one seed: no noise, the plain tolerance).
python3 -c 'import json, sys
b = json.load(open(sys.argv[1]))
for e in b["scenarios"].values():
    e["metrics"]["test_jobs_started"] = [v + 10 for v in e["metrics"]["test_jobs_started"]]
json.dump(b, open(sys.argv[2], "w"))' "$tmp/base.json" "$tmp/higher.json"
"$mfs" regress -q "$tmp/suite.txt" --baseline "$tmp/higher.json" >"$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q 'test_jobs_started.*WORSE' "$tmp/out" && ok "regress: test_jobs_started 10 lower than the baseline: exit 1, WORSE" ||
    { bad "regress against a higher baseline: exit $rc"; cat "$tmp/out"; }

echo "metric: $passed passed, $failed failed"
[ "$failed" = 0 ]
