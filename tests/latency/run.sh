#!/usr/bin/env bash
# tests/latency/run.sh - latency SLOs that count (issue 19).  On
# tests/latency/diurnal.json, whose service "fixed" runs exactly two
# replicas while its demand peaks above their throughput, the latency
# objective is missed part of the time, and:
#   - check.py recomputes every hourly row of "fixed" from the timeseries
#     alone (demand, capacity, slots) and the replica's no-queue TTFT in
#     summary.json: the M/M/c p99 wait by its own Erlang C (log-space
#     a^k/k! sums, not fleetsim's Erlang B recurrence), TPOT = slots /
#     capacity, against the scenario's targets; each row's met seconds must
#     equal the timeseries', and the time-weighted attainment and the
#     tokens served within it what summary.json says;
#   - the same latency_attainment (over both services, from the
#     timeseries) is in the CLI summary (to its 2 printed decimals of a
#     percent), summary.json's metrics, compare.json's metrics (the fifo
#     run) with its own column in the compare report, and plan.json;
#   - `plan --slo latency_attainment>=0.99` finds no fleet (exit 1), and
#     `>=0.8` chooses the scenario's fleet.
#
# Usage: FLEETSIM=build/fleetsim tests/latency/run.sh
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
fleetsim=${FLEETSIM:-build/fleetsim}
scen=tests/latency/diurnal.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() { failed=$((failed + 1)); echo "FAIL  $1"; }

"$fleetsim" run "$scen" -o "$tmp/run" >"$tmp/cli.txt" 2>&1 || bad "run: exit $?"
"$fleetsim" compare -q "$scen" --policies fifo,best-fit -o "$tmp/cmp" || bad "compare: exit $?"
"$fleetsim" plan -q "$scen" --types h100-sxm --max-nodes 1 --slo 'latency_attainment>=0.8' -o "$tmp/plan" ||
    bad "plan >=0.8: exit $?"
"$fleetsim" plan -q "$scen" --types h100-sxm --max-nodes 1 --slo 'latency_attainment>=0.99' -o "$tmp/plan99" 2>"$tmp/plan99.err"
rc=$?
[ $rc = 1 ] && ok "plan --slo latency_attainment>=0.99: no fleet meets it (exit 1)" ||
    bad "plan --slo latency_attainment>=0.99: exit $rc, expected 1"

python3 tests/latency/check.py "$scen" "$tmp" && ok "latency attainment recomputed from timeseries.csv" ||
    bad "latency attainment (check.py above)"

echo "latency: $passed passed, $failed failed"
[ "$failed" = 0 ]
