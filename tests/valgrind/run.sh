#!/usr/bin/env bash
# tests/valgrind/run.sh - the unit tests and every command on small inputs
# under valgrind's memcheck (make valgrind): an invalid read or
# write, a use of an uninitialized value, a bad free or a definite leak
# fails the case (--error-exitcode), as does a timeout.  The sanitizers
# (make SANITIZE=address,undefined check) cover the whole suite; this is the
# second opinion on the plain -O2 build they do not instrument.
#
# Bounded in time: each case has VG_TIMEOUT seconds (default 600), and the
# inputs are small (the unit tests as they are, the default scenario cut
# to a day, a 300-job generated scenario).  The unit tests that read the
# whole public traces (test_traces) are left to the sanitizers: under
# valgrind they take tens of minutes.
#
# Usage: FLEETSIM=build/fleetsim TESTS="build/tests/test_..." tests/valgrind/run.sh
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
fleetsim=${FLEETSIM:-build/fleetsim}
limit=${VG_TIMEOUT:-600}
if ! command -v valgrind >/dev/null 2>&1; then
    echo "valgrind: SKIPPED - valgrind is not installed (tools/install-deps.sh --with-valgrind)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export FLEETSIM_GNUPLOT=/nonexistent
vg=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
    --show-leak-kinds=definite --track-origins=yes)
pass=0 fail=0

# check LABEL COMMAND...: the command under memcheck; it must exit 0 (or the
# status in WANT) with no memcheck error.
check() {
    local label=$1 want=${WANT:-0} start status
    shift
    start=$(date +%s)
    timeout "$limit" "${vg[@]}" --log-file="$tmp/vg.log" "$@" >"$tmp/out" 2>&1
    status=$?
    if [ "$status" = "$want" ] && [ ! -s "$tmp/vg.log" ]; then
        pass=$((pass + 1))
        echo "ok    $label ($(($(date +%s) - start)) s)"
    else
        fail=$((fail + 1))
        echo "FAIL  $label: exit $status (want $want)$([ "$status" = 124 ] && echo ", timed out after $limit s")"
        head -n 30 "$tmp/vg.log" "$tmp/out" | sed 's/^/        /'
    fi
}

for t in ${TESTS:-}; do
    case $t in */test_traces) continue ;; esac
    check "$(basename "$t")" "$t"
done

"$fleetsim" gen --jobs 300 --gpus 64 --seed 5 -o "$tmp/g.json" || exit 1
printf '{"scenario": "g.json", "parameters": {"scheduler.policy": ["fifo", "flux"]}}\n' >"$tmp/grid.json"
mkdir -p "$tmp/suite" && cp "$tmp/g.json" "$tmp/suite/"
check "run (default scenario, one day)" "$fleetsim" run -q scenarios/default.json --set horizon_s=86400 -o "$tmp/run"
check "run --check (inference scenario, one day)" "$fleetsim" run -q --check scenarios/inference.json \
    --set horizon_s=86400 -o "$tmp/inf"
check "compare (two policies)" "$fleetsim" compare -q -j 1 "$tmp/g.json" --policies fifo,flux -o "$tmp/cmp"
check "sweep" "$fleetsim" sweep -q -j 1 "$tmp/grid.json" -o "$tmp/sweep"
check "plan" "$fleetsim" plan -q -j 1 "$tmp/g.json" --types h100-sxm --max-nodes 4 -o "$tmp/plan"
check "regress --update" "$fleetsim" regress -q "$tmp/suite" --baseline "$tmp/base.json" --update
check "regress" "$fleetsim" regress -q "$tmp/suite" --baseline "$tmp/base.json"
check "import" "$fleetsim" import native tests/bad-input/traces/ok.csv -o "$tmp/jobs.csv" -q
check "models --llm" "$fleetsim" models --json --llm 70
WANT=65 check "bad input (exit 65)" "$fleetsim" run tests/bad-input/gpu-unknown.json -o "$tmp/bad"
WANT=73 check "--max-output-mb past it (exit 73)" "$fleetsim" run -q "$tmp/g.json" --max-output-mb 1 -o "$tmp/big"

echo "valgrind: $pass passed, $fail failed"
[ "$fail" = 0 ]
