#!/usr/bin/env bash
# tests/gen/run.sh - `fleetsim gen` writes a usable synthetic scenario.
#
# 1. Determinism: the same arguments twice give the same bytes, and no
#    temporary file is left beside the result.
# 2. The fleet: 256 GPUs become 32 nodes of 8 with every GPU type present;
#    8 GPUs become one node.
# 3. The scenario runs as is, and its arrival rate keeps the fleet busy:
#    20,000 jobs on 256 GPUs under the default best-fit complete, with
#    utilization.allocated in summary.json between 0.5 and 1.0.  (With
#    20,000 jobs the arrivals span about 12 simulated days, so the drain of
#    the last long jobs, which no arrivals refill, weighs little; with 2,000
#    the figure swings with the one job that ends last.)
# 4. --load scales the arrival rate, and its default changes nothing.
#
# Usage: FLEETSIM=build/fleetsim tests/gen/run.sh   (from anywhere)
set -uo pipefail

fleetsim=${FLEETSIM:-build/fleetsim}
case $fleetsim in
*/*) fleetsim=$(cd "$(dirname "$fleetsim")" && pwd)/$(basename "$fleetsim") ;;
esac
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

check() { # name, status, [why]
    if [ "$2" = 0 ]; then
        passed=$((passed + 1)); echo "ok    $1"
    else
        failed=$((failed + 1)); echo "FAIL  $1${3:+: $3}"
    fi
}

# 1. Same arguments, same bytes.
args=(--jobs 2000 --gpus 256 --seed 7)
"$fleetsim" gen "${args[@]}" -o "$tmp/a/gen.json" &&
    "$fleetsim" gen "${args[@]}" -o "$tmp/b/gen.json"
check "gen writes two files" $?
cmp -s "$tmp/a/gen.json" "$tmp/b/gen.json"
check "gen ${args[*]} twice: identical bytes" $?
left=$(find "$tmp/a" "$tmp/b" -name '*.tmp')
[ -z "$left" ]
check "gen leaves no temporary file" $? "$left"

# 2. The fleet.  nodes(FILE) prints "TYPE NODES" per group.
nodes() { sed -n 's/.*"gpu": "\([^"]*\)", "nodes": \([0-9]*\), "gpus_per_node": 8.*/\1 \2/p' "$1"; }
got=$(nodes "$tmp/a/gen.json" | awk '{n += $2; t++} END {print n, t}')
[ "$got" = "32 4" ]
check "256 GPUs: 32 nodes of 4 types" $? "got nodes, types = $got"
"$fleetsim" gen --jobs 10 --gpus 8 -o "$tmp/one.json" &&
    got=$(nodes "$tmp/one.json" | awk '{n += $2; t++} END {print n, t}') &&
    [ "$got" = "1 1" ]
check "8 GPUs: one node" $? "got nodes, types = ${got:-none}"

# 3. Run it: every job completes and the fleet is busy.
if "$fleetsim" gen --jobs 20000 --gpus 256 -o "$tmp/busy.json" &&
    "$fleetsim" run "$tmp/busy.json" -q -o "$tmp/out"; then
    check "gen --jobs 20000 --gpus 256: fleetsim run accepts it" 0
    completed=$(awk '/"completed":/ {gsub(/[^0-9]/, ""); print; exit}' "$tmp/out/summary.json")
    [ "$completed" = 20000 ]
    check "all 20000 jobs complete" $? "completed = ${completed:-none}"
    util=$(awk '/"allocated":/ {gsub(/[",]/, ""); print $2; exit}' "$tmp/out/summary.json")
    awk -v u="${util:-x}" 'BEGIN {exit !(u + 0 == u && u >= 0.5 && u <= 1.0)}'
    check "utilization $util is within [0.5, 1.0]" $?
else
    check "gen --jobs 20000 --gpus 256: fleetsim run accepts it" 1
fi

# 4. --load: the arrival rate is proportional to the offered load (175 %
#    is twice the default 87.5 %, to the 6 digits the file keeps); the
#    default written explicitly changes no byte; out of range is a usage
#    error that writes nothing.
"$fleetsim" gen --jobs 100 --gpus 64 -o "$tmp/l1.json" &&
    "$fleetsim" gen --jobs 100 --gpus 64 --load 175 -o "$tmp/l2.json" &&
    "$fleetsim" gen --jobs 100 --gpus 64 --load 87.5 -o "$tmp/l3.json"
check "gen --load 175 and --load 87.5 write" $?
r1=$(awk -F': ' '/arrivals_per_hour/ {gsub(/,/, "", $2); print $2}' "$tmp/l1.json")
r2=$(awk -F': ' '/arrivals_per_hour/ {gsub(/,/, "", $2); print $2}' "$tmp/l2.json")
awk -v a="${r1:-0}" -v b="${r2:-0}" 'BEGIN {d = b / a - 2; exit !(a > 0 && d < 2e-5 && d > -2e-5)}' # two 6-digit roundings
check "--load 175: $r2 arrivals/h is twice the default's $r1" $?
cmp -s "$tmp/l1.json" "$tmp/l3.json"
check "--load 87.5 (the default): the same bytes as without --load" $?
"$fleetsim" gen --jobs 100 --gpus 64 --load 0.5 -o "$tmp/l4.json" 2>/dev/null
st=$?
[ "$st" = 64 ] && ! [ -e "$tmp/l4.json" ]
check "--load 0.5: exit 64 (got $st), nothing written" $?

echo "gen: $passed passed, $failed failed"
[ "$failed" = 0 ]
