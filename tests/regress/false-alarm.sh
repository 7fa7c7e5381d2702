#!/usr/bin/env bash
# tests/regress/false-alarm.sh - how often the gate fails when nothing
# changed, and whether it catches a worse policy (docs/regress.md).
#
# The shipped suite is judged against the shipped baseline (seeds 1..N)
# REPEATS times, each on a fresh seed set (--first-seed 1000, 2000, ...):
# nothing changed but the seeds, so every failing rerun is a false alarm.
# Then the one-scenario suite of mixed-best-fit, baselined under best-fit,
# is run under fifo on the same fresh seed sets: every passing rerun is a
# missed regression.  Prints one line per rerun and the two rates.
# Several minutes (REPEATS x 2 suite runs); `make regress-false-alarm`.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
fleetsim=${FLEETSIM:-build/fleetsim}
repeats=${REPEATS:-20}
jobs=${JOBS:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
allow=(); [ -d ../shared/traces ] || allow=(--allow-skip)

echo "commit $(git describe --always --dirty 2>/dev/null), $repeats reruns, $(nproc) CPUs (shared machine)"
alarms=0 worst=""
for i in $(seq 1 "$repeats"); do
    "$fleetsim" regress -q -j"$jobs" "${allow[@]}" --first-seed $((i * 1000)) scenarios/suite \
        --baseline scenarios/regress-baseline.json >"$tmp/out" 2>/dev/null
    rc=$?
    summary=$(tail -1 "$tmp/out")
    echo "unchanged, seeds from $((i * 1000)): exit $rc: $summary"
    [ $rc = 0 ] || { alarms=$((alarms + 1)); worst="$worst$(grep -E 'WORSE' "$tmp/out")"$'\n'; }
done

mkdir "$tmp/suite"
cp scenarios/suite/mixed-best-fit.json "$tmp/suite/mixed.json"
"$fleetsim" regress -q -j"$jobs" "$tmp/suite" --baseline "$tmp/base.json" --update 2>/dev/null || exit 2
sed 's/"policy": "best-fit"/"policy": "fifo"/' scenarios/suite/mixed-best-fit.json >"$tmp/suite/mixed.json"
caught=0
for i in $(seq 1 "$repeats"); do
    "$fleetsim" regress -q -j"$jobs" --first-seed $((i * 1000)) "$tmp/suite" --baseline "$tmp/base.json" \
        >"$tmp/out" 2>/dev/null
    rc=$?
    echo "fifo for best-fit, seeds from $((i * 1000)): exit $rc: $(grep -c WORSE "$tmp/out") metrics WORSE"
    [ $rc = 1 ] && caught=$((caught + 1))
done
[ -n "$worst" ] && printf 'false alarms:\n%s' "$worst"
echo "false alarms: $alarms of $repeats unchanged reruns; fifo caught: $caught of $repeats"
