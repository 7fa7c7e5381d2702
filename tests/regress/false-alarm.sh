#!/usr/bin/env bash
# tests/regress/false-alarm.sh - how often the gate fails when nothing
# changed, and whether it catches a worse policy (docs/regress.md).
#
# The shipped suite is judged against the shipped baseline (seeds 1..N)
# REPEATS times, each on a fresh seed set (--first-seed 1000, 2000, ...):
# nothing changed but the seeds, so every failing rerun is a false alarm.
# Then the whole suite runs again on the same fresh seed sets with
# mixed-best-fit under fifo: every rerun where none of that scenario's
# metrics is WORSE is a missed regression.  Prints one line per rerun and
# the two rates.  Many minutes (REPEATS x 2 suite runs of 10 seeds);
# `make regress-false-alarm`.
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

# The whole suite again with one scenario under a worse policy: its 162
# tests keep the Bonferroni correction the gate applies in CI.
mkdir "$tmp/suite"
for f in scenarios/suite/*.json; do
    sed "s|\"trace\": \"\\.\\./|\"trace\": \"$PWD/scenarios/suite/../|" "$f" >"$tmp/suite/${f##*/}"
done
sed -i 's/"policy": "best-fit"/"policy": "fifo"/' "$tmp/suite/mixed-best-fit.json"
caught=0
for i in $(seq 1 "$repeats"); do
    "$fleetsim" regress -q -j"$jobs" "${allow[@]}" --first-seed $((i * 1000)) "$tmp/suite" \
        --baseline scenarios/regress-baseline.json >"$tmp/out" 2>/dev/null
    rc=$?
    echo "suite with fifo for mixed-best-fit, seeds from $((i * 1000)): exit $rc:" \
        "$(grep -c '^mixed-best-fit.json .*WORSE' "$tmp/out") of its metrics WORSE," \
        "$(grep -v '^mixed-best-fit.json' "$tmp/out" | grep -c WORSE) elsewhere"
    [ $rc = 1 ] && grep -q '^mixed-best-fit.json .*WORSE' "$tmp/out" && caught=$((caught + 1))
done
[ -n "$worst" ] && printf 'false alarms:\n%s' "$worst"
echo "false alarms: $alarms of $repeats unchanged reruns; fifo for best-fit caught: $caught of $repeats"
