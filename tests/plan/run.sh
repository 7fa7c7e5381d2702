#!/usr/bin/env bash
# tests/plan/run.sh - fleetsim plan on the shipped example
# (scenarios/plan-example.json: three GPU types, 0..3 nodes each, seeds 1
# and 2, p95 wait <= 1 h):
#   - the pruned search and --brute-force choose the same fleet at the same
#     cost (their "chosen" objects are identical), the pruned one with
#     strictly fewer simulations;
#   - the chosen fleet.json, run by `fleetsim run` from another folder,
#     meets the SLO, and its p95 wait (every submitted job, one still
#     queued counting its wait so far, computed here from jobs.csv) is the
#     one plan.json reports for that seed;
#   - one node fewer of the chosen fleet's most expensive type misses the
#     SLO on some seed, run the same way (or the test says why it cannot
#     try);
#   - a trace scenario under --growth 2 writes workload.csv beside
#     fleet.json, with the submit times halved, and fleet.json runs.
# jq is not needed: cJSON prints one key per line, which awk reads.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
root=$(pwd)
tl_tmp

limit=3600
plan=("$fleetsim" plan scenarios/plan-example.json --types h100-sxm,a100-sxm-80,rtx4090 --max-nodes 3
    --seeds 1,2 --slo "wait_p95_s<=$limit" -q)

# json_num FILE KEY: the first top-level-ish "KEY": number in FILE.
json_num() { awk -v k="\"$2\":" '$1 == k { v = $2; sub(/,$/, "", v); print v; exit }' "$1"; }
# chosen FILE: the "chosen" object of a plan.json, as printed.
chosen() { awk '/^\t"chosen":/ { on = 1 } on { print } on && /^\t}/ { exit }' "$1"; }

# censored_p95 DIR: the p95 wait of every submitted job of a run's
# jobs.csv (a job never started waits until the end of the window), with
# GSL's interpolation between order statistics.
censored_p95() {
    local window
    window=$(json_num "$1/summary.json" window_s)
    awk -F, -v end="$window" 'NR > 1 && $14 != "not_submitted" {
        print ($9 == "" ? end - $8 : $9 - $8) }' "$1/jobs.csv" | sort -g |
        awk '{ x[n++] = $1 } END {
            if (n == 0) { print 0; exit }
            i = 0.95 * (n - 1); lo = int(i); d = i - lo
            printf "%.3f\n", lo + 1 < n ? (1 - d) * x[lo] + d * x[lo + 1] : x[lo] }'
}

# ---- pruned vs brute force ------------------------------------------------------
"${plan[@]}" -j 1 -o "$tmp/pruned" 2>"$tmp/pruned.err"
rc1=$?
"${plan[@]}" --brute-force -j 3 -o "$tmp/brute" 2>"$tmp/brute.err"
rc2=$?

# ---- the executor: the same bytes for any -j ------------------------------------
# (-j 5: the search runs fleets ahead of where it is; they must not change
# its path, its simulation count or any output; plan.md quotes no timing.)
"${plan[@]}" -j 5 -o "$tmp/pruned5" 2>/dev/null
"${plan[@]}" --brute-force -j 1 -o "$tmp/brute1" 2>/dev/null
if diff -r "$tmp/pruned" "$tmp/pruned5" >/dev/null && diff -r "$tmp/brute" "$tmp/brute1" >/dev/null; then
    ok "-j 5 writes the bytes -j 1 writes (pruned), -j 1 those of -j 3 (brute force)"
else
    bad "-j changes the outputs"; diff -r "$tmp/pruned" "$tmp/pruned5" | head -5; diff -r "$tmp/brute" "$tmp/brute1" | head -5
fi
if [ $rc1 != 0 ] || [ $rc2 != 0 ]; then
    bad "plan exit $rc1 (pruned), $rc2 (brute force)"
    cat "$tmp/pruned.err" "$tmp/brute.err"
    echo "plan: $pass passed, $((fail + 1)) failed"
    exit 1
fi
chosen "$tmp/pruned/plan.json" >"$tmp/c1"
chosen "$tmp/brute/plan.json" >"$tmp/c2"
if [ -s "$tmp/c1" ] && diff "$tmp/c1" "$tmp/c2" >/dev/null; then
    ok "pruned and brute force choose the same fleet at the same cost"
else
    bad "the chosen fleets differ (brute force: $(json_num "$tmp/brute/plan.json" monotonicity_violations) passing fleets below a failure)"
    diff "$tmp/c1" "$tmp/c2" | head -20
fi
s1=$(json_num "$tmp/pruned/plan.json" simulations)
s2=$(json_num "$tmp/brute/plan.json" simulations)
if [ -n "$s1" ] && [ -n "$s2" ] && [ "$s1" -lt "$s2" ]; then
    ok "simulations: $s1 pruned < $s2 brute force"
else
    bad "simulations: ${s1:-?} pruned, ${s2:-?} brute force"
fi

# The chosen fleet: "gpu" then "nodes" lines of the chosen object.
read -r -a fleet <<<"$(awk '$1 == "\"gpu\":" { g = $2; gsub(/[",]/, "", g) }
    $1 == "\"nodes\":" { n = $2; sub(/,$/, "", n); printf "%s %s ", g, n }' "$tmp/c1")"
billing=$(awk '$1 == "\"billing\":" { b = $2; gsub(/[",]/, "", b); print b; exit }' "$tmp/c1")
echo "      chosen: ${fleet[*]} ($billing), $(json_num "$tmp/c1" cost_month_usd) USD per month"

# ---- the chosen fleet, run independently ----------------------------------------------
mkdir -p "$tmp/elsewhere"
(cd "$tmp/elsewhere" && "$fleetsim" run "$tmp/pruned/fleet.json" -o "$tmp/rerun" -q)
rc=$?
want=$(awk '$1 == "\"wait_p95_s\":" { v = $2; sub(/,$/, "", v); print v; exit }' "$tmp/c1") # seed 1
if [ $rc = 0 ] && [ -s "$tmp/rerun/summary.json" ]; then
    got=$(censored_p95 "$tmp/rerun")
    started=$(awk '/"wait_s":/ { on = 1 } on && $1 == "\"p95\":" { v = $2; sub(/,$/, "", v); print v; exit }' \
        "$tmp/rerun/summary.json")
    if awk -v a="$got" -v b="$want" -v s="$started" -v l="$limit" \
        'BEGIN { d = a - b; exit !(d < 1 && d > -1 && a <= l && s <= l) }'; then
        ok "fleetsim run fleet.json: p95 wait $got s (started jobs: $started s) <= $limit, as plan.json says ($want s)"
    else
        bad "fleetsim run fleet.json: p95 wait $got s (started jobs: $started s), plan.json $want s, limit $limit"
    fi
else
    bad "fleetsim run $tmp/pruned/fleet.json: exit $rc"
fi

# ---- one node fewer of the most expensive type ----------------------------------------
# Price per node: gpu_month_usd[billing] x gpus_per_node, from plan.json's "types".
dear=$(awk -v b="\"$billing\":" '
    /^\t"types":/ { on = 1 } /^\t"max_nodes":/ { on = 0 }
    on && $1 == "\"gpu\":" { g = $2; gsub(/[",]/, "", g) }
    on && $1 == "\"gpus_per_node\":" { n[g] = $2 + 0 }
    on && $1 == b { p[g] = $2 + 0 }
    END { for (g in p) print g, p[g] * n[g] }' "$tmp/pruned/plan.json")
best="" bestp=-1
for ((i = 0; i < ${#fleet[@]}; i += 2)); do
    t=${fleet[i]} n=${fleet[i + 1]}
    price=$(awk -v t="$t" '$1 == t { print $2 }' <<<"$dear")
    if [ "$n" -gt 0 ] && awk -v a="$price" -v b="$bestp" 'BEGIN { exit !(a > b) }'; then
        best=$t bestp=$price
    fi
done
count=0
for ((i = 0; i < ${#fleet[@]}; i += 2)); do [ "${fleet[i]}" = "$best" ] && count=${fleet[i + 1]}; done
if [ -z "$best" ]; then
    bad "no type with nodes in the chosen fleet"
elif [ "$count" -lt 2 ]; then
    echo "skip  one node fewer: $best, the most expensive type, has $count node; fewer would drop the group"
else
    awk -v t="\"$best\"," '$1 == "\"gpu\":" && $2 == t { hit = 1 }
        hit && $1 == "\"nodes\":" { sub(/[0-9]+/, $2 - 1); hit = 0 } { print }' \
        "$tmp/pruned/fleet.json" >"$tmp/elsewhere/minus.json"
    missed="" runs=""
    for seed in 1 2; do
        (cd "$tmp/elsewhere" && "$fleetsim" run minus.json --seed "$seed" -o "$tmp/minus$seed" -q) || {
            bad "fleetsim run minus.json --seed $seed failed"
            continue
        }
        w=$(censored_p95 "$tmp/minus$seed")
        runs="$runs seed $seed: $w s;"
        awk -v a="$w" -v l="$limit" 'BEGIN { exit !(a > l) }' && missed="$missed $seed"
    done
    if [ -n "$missed" ]; then
        ok "one $best node fewer ($((count - 1))) misses p95 wait <= $limit on seed(s)$missed:$runs"
    else
        bad "one $best node fewer still meets the SLO:$runs"
    fi
fi

# ---- a trace under --growth -------------------------------------------------------------------
"$fleetsim" plan tests/bad-input/valid.json --max-nodes 2 --growth 2 -q -o "$tmp/trace"
rc=$?
if [ $rc = 0 ] && grep -q '"trace":	"workload.csv"' "$tmp/trace/fleet.json" &&
    awk -F, 'NR == FNR { if (FNR > 1) s[$1] = $2; next }
        FNR > 1 { if (s[$1] / 2 != $2) bad = 1; n++ } END { exit bad || n == 0 }' \
        tests/bad-input/traces/ok.csv "$tmp/trace/workload.csv" &&
    (cd / && "$fleetsim" run "$tmp/trace/fleet.json" -o "$tmp/trace-run" -q); then
    ok "--growth 2 on a trace: workload.csv has the submit times halved and fleet.json runs"
else
    bad "--growth 2 on a trace (exit $rc)"
fi

echo "plan: $pass passed, $fail failed"
[ $fail = 0 ]
