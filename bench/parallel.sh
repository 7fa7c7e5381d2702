#!/usr/bin/env bash
# bench/parallel.sh - what the executor (run/exec.h) buys: fleetsim compare
# and fleetsim plan at -j 1 and -j N on grids of more than 8 runs, the
# median wall time of each over BENCH_REPS alternating repetitions, the
# speed-up, and a check that both wrote the same bytes.  Prints the commit,
# the CPUs and the load average, since a shared machine moves the figures.
#
# Usage: FLEETSIM=build/fleetsim bench/parallel.sh   (make bench-parallel)
# Knobs: BENCH_JOBS (N, default 2), BENCH_REPS (default 3).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fleetsim=${FLEETSIM:-build/fleetsim}
jobs=${BENCH_JOBS:-2}
reps=${BENCH_REPS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The workloads: a generated 64-GPU fleet with 4000 jobs (compare: eight
# policies, 8 runs) and one with 1500 jobs on 32 GPUs (plan: two types up to
# 4 nodes, 3 seeds, brute force: 24 fleets x 3 seeds = 72 runs, all known
# ahead; plan_search: the same without --brute-force, where the pruned
# search runs a fleet's seeds side by side and runs ahead only the fleets it
# may visit next, until each worker has one run).
"$fleetsim" gen --jobs 4000 --gpus 64 --seed 7 -o "$tmp/compare.json" >/dev/null
"$fleetsim" gen --jobs 1500 --gpus 32 --seed 11 -o "$tmp/plan.json" >/dev/null
compare=(compare -q "$tmp/compare.json" --policies fifo,best-fit,spread,dotprod,gpu-packing,fgd,hetero,flux)
plan_search=(plan -q "$tmp/plan.json" --types h100-sxm,a100-sxm-80 --max-nodes 4 --seeds 1,2,3
             --slo "wait_p95_s<=7200")
plan=("${plan_search[@]}" --brute-force)

. bench/lib.sh # median
seconds() { # OUT CMD...: run, print wall seconds
    local out=$1 t0 t1; shift
    rm -rf "$out"
    t0=$(date +%s.%N)
    "$fleetsim" "$@" -o "$out" >/dev/null 2>&1 || { echo "parallel: $* failed" >&2; exit 1; }
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}

echo "fleetsim $(git rev-parse --short HEAD 2>/dev/null || echo unknown): -j 1 vs -j $jobs, median of $reps," \
     "$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
printf '%-8s %6s %12s %12s %9s  %s\n' case runs "-j 1 (s)" "-j $jobs (s)" speed-up "same bytes"
for case in compare plan plan_search; do
    declare -n cmd=$case
    : >"$tmp/t1"; : >"$tmp/tn"
    for ((r = 0; r < reps; r++)); do
        seconds "$tmp/$case-1" "${cmd[@]}" -j 1 >>"$tmp/t1"
        seconds "$tmp/$case-n" "${cmd[@]}" -j "$jobs" >>"$tmp/tn"
    done
    m1=$(median <"$tmp/t1"); mn=$(median <"$tmp/tn")
    same=no; diff -r "$tmp/$case-1" "$tmp/$case-n" >/dev/null && same=yes
    runs=8; [ $case != compare ] && runs=$(awk '$1 == "\"simulations\":" { sub(/,$/, "", $2); print $2; exit }' "$tmp/$case-1/plan.json")
    printf '%-8s %6s %12.2f %12.2f %8.2fx  %s\n' "$case" "$runs" "$m1" "$mn" "$(awk -v a="$m1" -v b="$mn" 'BEGIN { print a / b }')" "$same"
    [ $same = yes ] || { echo "parallel: $case -j $jobs wrote different bytes" >&2; exit 1; }
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
