#!/usr/bin/env bash
# bench/gavel.sh - how long fleetsim takes to run Gavel's Figure 8
# experiment (scenarios/gavel-fig8.json: 5,365 jobs on 108 GPUs in 360-s
# rounds, an allocation LP at most every 1920 s) under each round-based
# policy.  Issue 22's target: under 10 s per policy; Gavel's own simulator
# takes about 3 minutes per policy on the same job list.
#
# Each run is the whole `fleetsim run` - loading, simulating, writing every
# output file - with gnuplot kept off PATH (chart rendering is gnuplot's
# time, not fleetsim's).  Prints, per policy, the median over BENCH_RUNS
# runs (default 3) of wall and CPU (user + system) seconds.
#
# Usage: FLEETSIM=build/fleetsim bench/gavel.sh    (or make bench-gavel)
# TRACES (default ../shared/traces) names the traces folder.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
fleetsim=$(realpath "${FLEETSIM:-build/fleetsim}")
runs=${BENCH_RUNS:-3}
traces=${TRACES:-../shared/traces}
if [ ! -r "$traces/gavel/gavel-fig8-rate2.0-seed0.trace" ]; then
    echo "bench gavel: SKIPPED - $traces/gavel not found (set TRACES to the traces folder)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
abs=$(cd "$traces" && pwd)
sed "s|\.\./\.\./shared/traces|$abs|g" scenarios/gavel-fig8.json > "$tmp/fig8.json"
. bench/lib.sh # median, machine

echo "# fleetsim on Gavel's Figure 8 job list (5,365 jobs, 108 GPUs)"
echo
machine
echo
echo "| policy | runs | wall s (median) | CPU s (median) |"
echo "|---|---|---|---|"
for policy in las gavel-las ts-fifo gavel-fifo; do
    : > "$tmp/wall"
    : > "$tmp/cpu"
    for r in $(seq "$runs"); do
        if ! env PATH="$tmp/no-gnuplot" /usr/bin/time -f "%e %U %S" -o "$tmp/t" \
            "$fleetsim" run "$tmp/fig8.json" --policy "$policy" -q -o "$tmp/out-$policy-$r"; then
            echo "bench gavel: $policy failed"
            exit 1
        fi
        awk '{ print $1 }' "$tmp/t" >> "$tmp/wall"
        awk '{ print $2 + $3 }' "$tmp/t" >> "$tmp/cpu"
    done
    printf '| %s | %d | %.2f | %.2f |\n' "$policy" "$runs" "$(median < "$tmp/wall")" "$(median < "$tmp/cpu")"
done
