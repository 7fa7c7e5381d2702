#!/usr/bin/env bash
# tests/signal/run.sh - SIGINT and SIGTERM during `fleetsim run` leave only
# complete files: the run stops, every temporary output is removed, a
# complete summary.json already in the folder is left as it was, and
# fleetsim says so and exits 128 + the signal (130 for SIGINT, 143 for
# SIGTERM).  Then every other command that can run long (compare, sweep
# with -j 1 and -j 2, plan, regress --update, import, fill when the openb
# trace is present), sent SIGINT a second in as a background job of this
# script (so with SIGINT ignored, as a script's `&` leaves it): it stops
# within 2 s (the issue asks 1 s; the margin is for a loaded machine, and
# the time is printed), exits 130, says "interrupted by SIGINT" and leaves
# nothing at its output path or beside it.
#
# The scenario is a generator of 2,000,000 jobs on 16 GPUs, minutes of work,
# so the signal sent after about a second always lands mid-run.
#
# Usage: FLEETSIM=build/fleetsim tests/signal/run.sh   (from anywhere)
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
tl_need signal
tmp=$(mktemp -d)
pid=
cleanup() {
    [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
cat >"$tmp/long.json" <<'JSON'
{
  "name": "signal-long",
  "description": "Minutes of work: 2M jobs arriving 1 a second on 16 GPUs.",
  "seed": 1,
  "fleet": [{"gpu": "h100-sxm", "nodes": 2, "gpus_per_node": 8}],
  "workload": {"generator": {"jobs": 2000000, "arrivals_per_hour": 3600,
    "duration_median_s": 600, "duration_sigma": 0.5, "gpus": {"1": 1, "2": 1},
    "kinds": {"train": 1}, "teams": {"a": 1}, "reference_gpu": "h100-sxm"}},
  "scheduler": {"policy": "fifo"}
}
JSON
passed=0 failed=0

# run_case SIGNAL EXIT DIR [KEPT]: start a run into DIR, send SIGNAL after a
# second, and check the exit status, the message and that DIR holds nothing
# (no temporary dot file, no output) but KEPT, a file that was there
# before, which must be unchanged.
run_case() {
    local sig=$1 want=$2 dir=$3 kept=${4:-} why=() status f
    "$fleetsim" run -q "$tmp/long.json" -o "$dir" >"$tmp/stdout" 2>"$tmp/stderr" </dev/null &
    pid=$!
    sleep 1
    kill -"$sig" "$pid"
    # A run that ignores the signal would go on for minutes: give it 30 s.
    for _ in $(seq 300); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid"
        why+=("still running 30 s after SIG$sig")
    fi
    wait "$pid"
    status=$?
    pid=
    [ "$status" = "$want" ] || why+=("exit $status, want $want")
    grep -qxF "fleetsim: interrupted by SIG$sig; no results written to $dir" "$tmp/stderr" ||
        why+=("stderr lacks \"fleetsim: interrupted by SIG$sig; no results written to $dir\"")
    # Nothing at all but KEPT: no hidden temporary, no output of this run.
    for f in $(ls -A "$dir" 2>/dev/null); do
        [ "$f" = "$kept" ] || why+=("left behind: $f")
    done
    if [ -n "$kept" ] && ! cmp -s "$tmp/$kept.before" "$dir/$kept"; then
        why+=("the earlier $kept was changed or removed")
    fi
    report "SIG$sig -> exit $want, nothing written${kept:+, the earlier $kept kept}" "${why[@]+"${why[@]}"}"
}

# report LABEL [WHY...]: one line, ok or FAIL with the reasons.
report() {
    local label=$1 w
    shift
    if [ $# = 0 ]; then
        passed=$((passed + 1))
        echo "ok    $label"
    else
        failed=$((failed + 1))
        echo "FAIL  $label"
        for w in "$@"; do echo "        $w"; done
        head -n 3 "$tmp/stderr" | sed 's/^/        stderr: /'
    fi
}

run_case INT 130 "$tmp/int"
run_case TERM 143 "$tmp/term"
# A complete result already in the folder stays byte for byte.
mkdir -p "$tmp/kept"
printf '{"complete": "an earlier run"}\n' >"$tmp/kept/summary.json"
cp "$tmp/kept/summary.json" "$tmp/summary.json.before"
run_case INT 130 "$tmp/kept" summary.json

# ---- every other long command ------------------------------------------------
# stop_case LABEL OUT COMMAND...: start COMMAND (writing OUT) in the
# background, SIGINT it after a second, and check as above.
stop_case() {
    local label=$1 out=$2 why=() status ms t0
    shift 2
    "$@" >"$tmp/stdout" 2>"$tmp/stderr" </dev/null &
    pid=$!
    sleep 1
    if ! kill -0 "$pid" 2>/dev/null; then
        wait "$pid"
        pid=
        report "$label: SIGINT -> 130 within 2 s" "it finished in under a second (exit $?): no signal tested"
        return
    fi
    t0=$(date +%s%N)
    kill -INT "$pid"
    for _ in $(seq 300); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.01
    done
    ms=$((($(date +%s%N) - t0) / 1000000))
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid"
        why+=("still running 3 s after SIGINT")
    fi
    wait "$pid"
    status=$?
    pid=
    [ "$ms" -le 2000 ] || why+=("stopped after $ms ms")
    [ "$status" = 130 ] || why+=("exit $status, want 130")
    grep -q "interrupted by SIGINT" "$tmp/stderr" || why+=("stderr does not say \"interrupted by SIGINT\"")
    local left
    left=$(find "$(dirname "$out")" -maxdepth 1 -name "$(basename "$out")*" -o -maxdepth 1 -name ".$(basename "$out")*")
    [ -z "$left" ] || why+=("left behind: $left")
    report "$label: SIGINT -> 130 in $ms ms, nothing written" "${why[@]+"${why[@]}"}"
}

mkdir -p "$tmp/suite" "$tmp/out"
cp "$tmp/long.json" "$tmp/suite/long.json"
sed 's/"signal-long"/"signal-long-b"/; s/"fifo"/"best-fit"/' "$tmp/long.json" >"$tmp/long-b.json"
printf '{"scenario": "long.json", "parameters": {"seed": [1, 2, 3, 4]}}\n' >"$tmp/grid.json"
stop_case compare "$tmp/out/compare" "$fleetsim" compare -q -j 1 "$tmp/long.json" "$tmp/long-b.json" -o "$tmp/out/compare"
stop_case "sweep -j 1" "$tmp/out/sweep1" "$fleetsim" sweep -q -j 1 "$tmp/grid.json" -o "$tmp/out/sweep1"
stop_case "sweep -j 2" "$tmp/out/sweep2" "$fleetsim" sweep -q -j 2 "$tmp/grid.json" -o "$tmp/out/sweep2"
stop_case plan "$tmp/out/plan" "$fleetsim" plan -q -j 1 "$tmp/long.json" --types h100-sxm --max-nodes 4 -o "$tmp/out/plan"
stop_case "regress --update" "$tmp/out/baseline.json" "$fleetsim" regress -q "$tmp/suite" --baseline "$tmp/out/baseline.json" --update
# import: two million rows of a native trace (about 100 MB, in a few seconds)
awk 'BEGIN { print "id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type";
             for (i = 1; i <= 2000000; i++) printf "%d,%d,train,a,1,0,,600,h100-sxm\n", i, i }' >"$tmp/big.csv"
stop_case import "$tmp/out/jobs.csv" "$fleetsim" import native "$tmp/big.csv" -o "$tmp/out/jobs.csv"
openb=$(cd "$(dirname "$0")/../.." && pwd)/../shared/traces/alibaba-openb
if [ -r "$openb/openb_pod_list_default.csv" ]; then
    stop_case fill "$tmp/out/fill" "$fleetsim" fill -q -j 1 --nodes "$openb/openb_node_list_gpu_node.csv" \
        --pods "$openb/openb_pod_list_default.csv" --seeds 1-20 -o "$tmp/out/fill"
else
    echo "      (fill skipped: $openb is absent)"
fi

echo "signal: $passed passed, $failed failed"
[ "$failed" = 0 ]
