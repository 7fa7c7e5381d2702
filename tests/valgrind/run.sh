#!/usr/bin/env bash
# tests/valgrind/run.sh - the unit tests and every command on small inputs
# under valgrind's memcheck (make valgrind; a CI step of .ci/run): an
# invalid read or write, a use of an uninitialized value, a bad free or a
# definite leak fails the case (--error-exitcode), as does a timeout or an
# exit status other than the one expected.  The sanitizers (make
# SANITIZE=address,undefined check) cover the whole suite; this is the
# second opinion on the plain -O2 build they do not instrument.
#
# Covered: every unit test binary but test_traces (under valgrind it reads
# the whole public traces for tens of minutes; the sanitizers run it), and
# each command once on a small input: run (the default, inference and
# failover scenarios cut to a day, a 300-job generated one at 10-s rows),
# compare, sweep, plan, roadmap, regress, import, models, gen, validate,
# calibrate, fill, a bad-input refusal and the --max-output-mb refusal.
# Not covered under valgrind: the shell suites of make check (golden
# files, CLI, signals, output safety, serve over HTTP, plugins), which run
# the same code paths on the same kinds of input under the sanitizers.
#
# Bounded in time: each case has VG_TIMEOUT seconds (default 600); the
# whole script took 7 min 22 s (2 min 20 s of user CPU) on a 2-core
# machine shared with other builds.
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
check "run (failover scenario, one day)" "$fleetsim" run -q scenarios/failover.json --set horizon_s=86400 \
    -o "$tmp/fail"
check "run (300 generated jobs, 10-s timeseries rows)" "$fleetsim" run -q "$tmp/g.json" \
    --set output.timeseries_interval_s=10 -o "$tmp/g10"
check "compare (two policies)" "$fleetsim" compare -q -j 1 "$tmp/g.json" --policies fifo,flux -o "$tmp/cmp"
check "sweep" "$fleetsim" sweep -q -j 1 "$tmp/grid.json" -o "$tmp/sweep"
check "plan" "$fleetsim" plan -q -j 1 "$tmp/g.json" --types h100-sxm --max-nodes 8 -o "$tmp/plan"
check "roadmap" "$fleetsim" roadmap -q -j 1 scenarios/plan-example.json --types h100-sxm,a100-sxm-80 \
    --max-nodes 5 --months 2 -o "$tmp/roadmap"
check "regress --update" "$fleetsim" regress -q "$tmp/suite" --baseline "$tmp/base.json" --update
check "regress" "$fleetsim" regress -q "$tmp/suite" --baseline "$tmp/base.json"
check "import" "$fleetsim" import native tests/bad-input/traces/ok.csv -o "$tmp/jobs.csv" -q
check "models --llm" "$fleetsim" models --json --llm 70
check "models" "$fleetsim" models --json
check "gen" "$fleetsim" gen --jobs 50 --gpus 16 --seed 9 -o "$tmp/g2.json"
check "validate" "$fleetsim" validate -q scenarios/default.json
printf 'load,watts\n0,100\n0.25,300\n0.5,500\n0.75,650\n1,700\n' >"$tmp/power.csv"
check "calibrate power" "$fleetsim" calibrate power "$tmp/power.csv" --json
printf 'sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,8,V100M16\nn1,96000,393216,8,G2\nn2,32000,131072,2,T4\n' \
    >"$tmp/nodes.csv"
{
    echo "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time"
    for i in $(seq 0 39); do
        echo "p$i,$((4000 + i * 100)),8192,$((i % 3)),$((i % 3 == 1 ? 300 + i * 10 : 1000)),,BE,Running,$i,$((i + 100)),$i"
    done
} >"$tmp/pods.csv"
check "fill" "$fleetsim" fill -q -j 1 --nodes "$tmp/nodes.csv" --pods "$tmp/pods.csv" --policy fgd,best-fit \
    --seeds 1-2 -o "$tmp/fill"
WANT=65 check "bad input (exit 65)" "$fleetsim" run tests/bad-input/gpu-unknown.json -o "$tmp/bad"
WANT=73 check "--max-output-mb past it (exit 73)" "$fleetsim" run -q "$tmp/g.json" \
    --set output.timeseries_interval_s=10 --max-output-mb 1 -o "$tmp/big"

echo "valgrind: $pass passed, $fail failed"
[ "$fail" = 0 ]
