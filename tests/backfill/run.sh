#!/usr/bin/env bash
# tests/backfill/run.sh - fleetsim's `backfill` policy (EASY backfilling)
# against an independent reimplementation, tests/backfill/easy_ref.py, on a
# 200-job slice of a real SWF log: the first 200 job lines of the HPC2N log
# (../shared/traces/swf/hpc2n_alea_first3171.swf) on its 240 processors,
# run by fleetsim as 240 one-GPU nodes.
#
# Checks, job for job, that both start every job at the same microsecond,
# and that the slice exercises backfilling at all: at least 10 jobs start
# ahead of a job submitted before them (fleetsim's fifo starts none).
# Skips, saying so, when the log or python3 is absent; with
# FLEETSIM_REQUIRE_TRACES=1 a missing log fails instead.
#
# Usage: FLEETSIM=build/fleetsim tests/backfill/run.sh
# TRACES (default ../shared/traces) names the traces folder.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
fleetsim=${FLEETSIM:-build/fleetsim}
traces=${TRACES:-../shared/traces}
log=$traces/swf/hpc2n_alea_first3171.swf

if [ ! -r "$log" ] || ! command -v python3 >/dev/null; then
    echo "backfill: SKIPPED - $log or python3 not found (set TRACES to the traces folder)"
    [ "${FLEETSIM_REQUIRE_TRACES:-}" = 1 ] && { echo "backfill: FAILED - FLEETSIM_REQUIRE_TRACES=1 and the check could not run"; exit 1; }
    exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL  $*"; fail=1; }

awk '/^;/ { print; next } n < 200 { print; n++ }' "$log" > "$tmp/slice.swf"
cat > "$tmp/slice.json" <<JSON
{"name": "hpc2n-slice", "seed": 1,
 "fleet": [{"gpu": "a100-sxm-80", "nodes": 240, "gpus_per_node": 1}],
 "workload": {"trace": "$tmp/slice.swf", "format": "swf"},
 "scheduler": {"policy": "backfill"}}
JSON
"$fleetsim" run --check "$tmp/slice.json" -q -o "$tmp/bf" || bad "fleetsim run (backfill)"
"$fleetsim" run --check "$tmp/slice.json" --policy fifo -q -o "$tmp/fifo" || bad "fleetsim run (fifo)"
python3 tests/backfill/easy_ref.py "$tmp/slice.swf" 240 | sort -n > "$tmp/ref.txt" || bad "easy_ref.py"

# id and start, seconds with 6 decimals: the same text means the same
# microsecond.
starts() { awk -F, 'NR > 1 { print $1, $9 }' "$1" | sort -n; }
starts "$tmp/bf/jobs.csv" > "$tmp/fs.txt"
jobs=$(wc -l < "$tmp/ref.txt")
differ=$(diff "$tmp/fs.txt" "$tmp/ref.txt" | grep -c '^>')
[ "$jobs" -ge 190 ] || bad "the reference scheduled $jobs jobs of the 200-job slice"
if [ "$differ" = 0 ] && [ "$(wc -l < "$tmp/fs.txt")" = "$jobs" ]; then
    echo "ok    backfill: fleetsim and easy_ref.py start all $jobs jobs at the same microsecond"
else
    bad "backfill: $differ of $jobs jobs start at other times than easy_ref.py's"
    diff "$tmp/fs.txt" "$tmp/ref.txt" | head -6
fi

# Jobs that start before some job submitted ahead of them (jobs.csv lists
# jobs by submit time, then id).
ahead() { awk -F, 'NR > 1 { if ($9 + 0 < max) n++; if ($9 + 0 > max) max = $9 + 0 } END { print n + 0 }' "$1"; }
bf_ahead=$(ahead "$tmp/bf/jobs.csv") fifo_ahead=$(ahead "$tmp/fifo/jobs.csv")
if [ "$bf_ahead" -ge 10 ] && [ "$fifo_ahead" = 0 ]; then
    echo "ok    backfill: $bf_ahead jobs start ahead of an earlier job (fifo: $fifo_ahead)"
else
    bad "backfill: $bf_ahead jobs backfilled (want >= 10), fifo $fifo_ahead (want 0)"
fi
[ $fail = 0 ] && echo "backfill: passed" || echo "backfill: FAILED"
exit $fail
