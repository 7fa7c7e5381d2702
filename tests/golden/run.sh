#!/usr/bin/env bash
# tests/golden/run.sh - golden scenario tests.
#
# 1. tests/golden/small.json under every shipped policy: summary.json,
#    jobs.csv and timeseries.csv must equal the files kept in
#    tests/golden/small-POLICY/ byte for byte (summary.json's meta.commit,
#    the build's commit, is blanked first).
# 2. Determinism: scenarios/default.json run twice gives identical bytes.
#    Every run here has --check on: an invariant violated fails it.
#
# Usage: FLEETSIM=build/fleetsim tests/golden/run.sh [--update]
# --update rewrites the kept files from the current build (review the diff!).
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
fleetsim=${FLEETSIM:-build/fleetsim}
update=${1:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
files="summary.json jobs.csv timeseries.csv"
determinism_files="$files timeline.json"

check() { # name, command status
    if [ "$2" = 0 ]; then
        passed=$((passed + 1)); echo "ok    $1"
    else
        failed=$((failed + 1)); echo "FAIL  $1"
    fi
}

# Every shipped policy and alias, as `fleetsim run --help` lists them.
policies=$("$fleetsim" run --help | awk -F': ' '/override the scenario.s policy:|or an alias: / { print $NF }')
[ "$(echo $policies | wc -w)" -ge 18 ] || check "run --help lists the policies (got: $policies)" 1
for policy in $policies; do
    want=tests/golden/small-$policy
    got=$tmp/small-$policy
    if ! "$fleetsim" run --check tests/golden/small.json --policy "$policy" -q -o "$got"; then
        check "small.json under $policy: run" 1
        continue
    fi
    # The build's commit (summary.json's meta) is not part of the result.
    sed -i 's/^\(\t*"commit":\t\)"[^"]*"/\1"(ignored by tests\/golden)"/' "$got/summary.json"
    if [ "$update" = --update ]; then
        mkdir -p "$want" && for f in $files; do cp "$got/$f" "$want/$f"; done
    fi
    for f in $files; do
        cmp -s "$want/$f" "$got/$f"
        status=$?
        check "small.json under $policy: $f" $status
        [ $status = 0 ] || diff "$want/$f" "$got/$f" | head -5
    done
done

# The default scenario as shipped, then flux with preemption, services and
# faults (scenarios/failover.json): every random draw and every tie the
# same, twice.
for sc in default failover; do
    for run in 1 2; do
        "$fleetsim" run --check scenarios/$sc.json --policy "$([ $sc = default ] && echo best-fit || echo flux)" \
            -q -o "$tmp/$sc-$run" || check "$sc.json run $run" 1
    done
    for f in $determinism_files; do
        cmp -s "$tmp/$sc-1/$f" "$tmp/$sc-2/$f"
        check "$sc.json twice: identical $f" $?
    done
done

echo "golden: $passed passed, $failed failed"
[ "$failed" = 0 ]
