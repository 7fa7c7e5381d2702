#!/usr/bin/env bash
# tests/signal/run.sh - SIGINT and SIGTERM during `fleetsim run` leave only
# complete files: the run stops, every temporary output is removed, a
# complete summary.json already in the folder is left as it was, and
# fleetsim says so and exits 128 + the signal (130 for SIGINT, 143 for
# SIGTERM).
#
# The scenario is a generator of 2,000,000 jobs on 16 GPUs, minutes of work,
# so the signal sent after about a second always lands mid-run.
#
# Usage: FLEETSIM=build/fleetsim tests/signal/run.sh   (from anywhere)
set -uo pipefail

fleetsim=${FLEETSIM:-build/fleetsim}
case $fleetsim in
*/*) fleetsim=$(cd "$(dirname "$fleetsim")" && pwd)/$(basename "$fleetsim") ;;
esac
if [ ! -x "$fleetsim" ]; then
    echo "signal: $fleetsim is not an executable (set FLEETSIM)" >&2
    exit 2
fi
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
    for f in $(ls -A "$dir"); do
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

echo "signal: $passed passed, $failed failed"
[ "$failed" = 0 ]
