#!/usr/bin/env bash
# tests/roadmap/run.sh - fleetsim roadmap on the planning example
# (scenarios/plan-example.json, H100 and A100 servers, 0..5 nodes each):
#   - on 4 months of +15 % a month the dynamic programme and --brute-force
#     (every fleet simulated in every month, every owned trajectory tried)
#     give the same roadmap at the same total; both simulation counts are
#     printed;
#   - every month-N.json, run by `fleetsim run` from another folder, meets
#     the SLO, with the p95 wait roadmap.json reports for that month;
#   - the total is never above best_static_total_cost_usd (three cases),
#     and roadmap.md says by how much it is below;
#   - a one-month peak is leased, not bought, and that is cheaper than the
#     same months with buying as the only way to add capacity;
#   - flat demand is bought once delivery allows, and that is cheaper than
#     the same months leased or rented;
#   - the same bytes for -j 1 and -j 3;
#   - --help and docs/roadmap.md list the same options.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
root=$(pwd)
tl_tmp

base=("$fleetsim" roadmap scenarios/plan-example.json --types h100-sxm,a100-sxm-80 --max-nodes 5 -q)
# get FILE EXPR: a Python expression over the JSON document d.
get() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# ---- dynamic programming vs brute force ----------------------------------------
small=(--months 4 --growth 0.15)
"${base[@]}" "${small[@]}" -j 1 -o "$tmp/dp" || bad "roadmap exit $?"
"${base[@]}" "${small[@]}" -j 3 -o "$tmp/dp3" || bad "roadmap -j 3 exit $?"
"${base[@]}" "${small[@]}" --brute-force -j 3 -o "$tmp/bf" || bad "roadmap --brute-force exit $?"
if diff -r -x roadmap.md "$tmp/dp" "$tmp/dp3" >/dev/null && diff "$tmp/dp/roadmap.md" "$tmp/dp3/roadmap.md" >/dev/null; then
    ok "-j 3 writes the bytes -j 1 writes"
else
    bad "-j changes the outputs"
fi
plan='[(m["fleet"], round(m["cost_usd"]["total"], 2)) for m in d["months"]]'
dp_plan=$(get "$tmp/dp/roadmap.json" "$plan")
bf_plan=$(get "$tmp/bf/roadmap.json" "$plan")
dp_total=$(get "$tmp/dp/roadmap.json" 'round(d["total_cost_usd"], 2)')
bf_total=$(get "$tmp/bf/roadmap.json" 'round(d["total_cost_usd"], 2)')
dp_sims=$(get "$tmp/dp/roadmap.json" 'd["simulations"]')
bf_sims=$(get "$tmp/bf/roadmap.json" 'd["simulations"]')
traj=$(get "$tmp/bf/roadmap.json" 'd["trajectories"]')
viol=$(get "$tmp/bf/roadmap.json" 'd["monotonicity_violations"]')
echo "      search $dp_sims simulations, brute force $bf_sims over $traj owned trajectories (total $dp_total vs $bf_total USD)"
if [ -n "$dp_plan" ] && [ "$dp_plan" = "$bf_plan" ] && [ "$dp_total" = "$bf_total" ] && [ "$dp_total" != None ]; then
    ok "the search's roadmap is the brute force's: $dp_total USD"
else
    bad "search $dp_total USD vs brute force $bf_total USD"; echo "$dp_plan"; echo "$bf_plan"
fi
[ "$dp_sims" -le "$bf_sims" ] && ok "search $dp_sims simulations <= brute force $bf_sims" ||
    bad "search ran $dp_sims simulations, brute force $bf_sims"
[ "$viol" = 0 ] && ok "no passing fleet lies below a failing one (monotonicity holds here)" ||
    bad "$viol monotonicity violations"

# ---- every month re-run by fleetsim run ------------------------------------------
months=$(get "$tmp/dp/roadmap.json" 'len(d["months"])')
mkdir -p "$tmp/elsewhere"
for n in $(seq 1 "$months"); do
    (cd "$tmp/elsewhere" && "$fleetsim" run "$tmp/dp/month-$n.json" -q -o "run-$n") || { bad "month $n: fleetsim run exit $?"; continue; }
    got=$(get "$tmp/elsewhere/run-$n/summary.json" 'd["metrics"]["wait_p95_s"]')
    want=$(get "$tmp/dp/roadmap.json" "3600 - d['months'][$n - 1]['slo_margins'][0]['margin']")
    if python3 -c 'import sys; g, w = map(float, sys.argv[1:]); sys.exit(not (g <= 3600 and abs(g - w) <= 1e-6 * max(1, w)))' "$got" "$want"; then
        ok "month $n re-run: p95 wait $got s <= 3600 s, as roadmap.json says ($want)"
    else
        bad "month $n re-run: p95 wait $got s (roadmap.json: $want, SLO 3600)"
    fi
done

# ---- leasing through a peak vs buying -------------------------------------------------
peak=(--months 6 --growth 0.5,-0.3333,0,0,0 --lead-months 0)
"${base[@]}" "${peak[@]}" -j 2 -o "$tmp/peak" || bad "peak exit $?"
"${base[@]}" "${peak[@]}" --sources owned -j 2 -o "$tmp/peak-buy" || bad "peak, owned only: exit $?"
leased=$(get "$tmp/peak/roadmap.json" 'sum(f["leased"] + f["cloud"] for f in d["months"][1]["fleet"])')
bought=$(get "$tmp/peak/roadmap.json" 'sum(f["owned"] for f in d["months"][1]["fleet"]) - sum(f["owned"] for f in d["months"][0]["fleet"])')
t_lease=$(get "$tmp/peak/roadmap.json" 'round(d["total_cost_usd"], 2)')
t_buy=$(get "$tmp/peak-buy/roadmap.json" 'round(d["total_cost_usd"], 2)')
if [ "$leased" -gt 0 ] && [ "$bought" = 0 ] && python3 -c 'import sys; sys.exit(not float(sys.argv[1]) < float(sys.argv[2]))' "$t_lease" "$t_buy"; then
    ok "a one-month peak (demand x1.5) is covered by $leased leased or rented nodes, none bought: $t_lease USD < $t_buy USD buying for it"
else
    bad "peak: $leased nodes leased or rented, $bought bought; $t_lease USD vs $t_buy USD owned only"
fi

# ---- buying for flat demand vs leasing ---------------------------------------------
flat=(--months 6 --lead-months 1)
"${base[@]}" "${flat[@]}" -j 2 -o "$tmp/flat" || bad "flat exit $?"
"${base[@]}" "${flat[@]}" --sources leased,cloud -j 2 -o "$tmp/flat-lease" || bad "flat, leased and cloud: exit $?"
owned=$(get "$tmp/flat/roadmap.json" 'min(sum(f["owned"] for f in m["fleet"]) for m in d["months"][1:])')
others=$(get "$tmp/flat/roadmap.json" 'sum(f["leased"] + f["cloud"] for m in d["months"][1:] for f in m["fleet"])')
t_buy=$(get "$tmp/flat/roadmap.json" 'round(d["total_cost_usd"], 2)')
t_lease=$(get "$tmp/flat-lease/roadmap.json" 'round(d["total_cost_usd"], 2)')
if [ "$owned" -gt 0 ] && [ "$others" = 0 ] && python3 -c 'import sys; sys.exit(not float(sys.argv[1]) < float(sys.argv[2]))' "$t_buy" "$t_lease"; then
    ok "flat demand is bought from month 2 (delivery after 1 month), nothing leased after: $t_buy USD < $t_lease USD leasing or renting"
else
    bad "flat: at least $owned owned from month 2, $others leased or rented; $t_buy USD vs $t_lease USD"
fi

# ---- never above the best static fleet -----------------------------------------------
for d in dp peak flat; do
    total=$(get "$tmp/$d/roadmap.json" 'd["total_cost_usd"]')
    static=$(get "$tmp/$d/roadmap.json" 'd["best_static_total_cost_usd"]')
    if python3 -c 'import sys; t, s = sys.argv[1:]; sys.exit(not (s == "None" or float(t) <= float(s) + 0.005))' "$total" "$static" &&
        grep -q "below the best single fleet" "$tmp/$d/roadmap.md"; then
        ok "$d: total $total USD <= best static $static USD, and roadmap.md says by how much"
    else
        bad "$d: total $total USD, best static $static USD"
    fi
done

# ---- constraints ----------------------------------------------------------------------
"${base[@]}" "${flat[@]}" --power-kw 30 -j 2 -o "$tmp/power" || bad "--power-kw 30: exit $?"
site=$(get "$tmp/power/roadmap.json" 'max(sum((f["owned"] + f["leased"]) * t["node_kw"] for f, t in zip(m["fleet"], d["types"])) for m in d["months"])')
t_pow=$(get "$tmp/power/roadmap.json" 'round(d["total_cost_usd"], 2)')
if python3 -c 'import sys; s, t, f = map(float, sys.argv[1:]); sys.exit(not (s <= 30 and t >= f))' "$site" "$t_pow" "$t_buy"; then
    ok "--power-kw 30: at most $site kW on site in any month; $t_pow USD >= $t_buy USD unconstrained"
else
    bad "--power-kw 30: $site kW on site, $t_pow USD (unconstrained $t_buy USD)"
fi
month1=$(get "$tmp/flat/roadmap.json" 'd["months"][0]["cost_usd"]["total"]')
low=$(python3 -c 'import sys; print(round(float(sys.argv[1]) / 2, 2))' "$month1")
"${base[@]}" --months 3 --budget "$low" -j 2 -o "$tmp/budget" 2>/dev/null
rc=$?
if [ $rc = 1 ] && [ "$(get "$tmp/budget/roadmap.json" 'd["total_cost_usd"]')" = None ]; then
    ok "--budget $low (half the cheapest month 1): exit 1, total_cost_usd null"
else
    bad "--budget $low: exit $rc"
fi

# ---- uncertain growth: one roadmap for every path -----------------------------------
paths=(--months 4 --scenarios low=0,mid=0.1,high=0.2)
"${base[@]}" "${paths[@]}" -j 2 -o "$tmp/paths" || bad "--scenarios: exit $?"
"${base[@]}" "${paths[@]}" --brute-force -j 2 -o "$tmp/paths-bf" || bad "--scenarios --brute-force: exit $?"
worst=$(get "$tmp/paths/roadmap.json" 'min(q["margin"] for m in d["months"] for s in m["slo_margins"] for q in s["per_seed"])')
nruns=$(get "$tmp/paths/roadmap.json" 'len(d["months"][0]["slo_margins"][0]["per_seed"])')
regrets=$(get "$tmp/paths/roadmap.json" '" ".join("%s:%.2f" % (p["name"], p["regret_usd"]) for p in d["scenarios"])')
expect=$(get "$tmp/paths/roadmap.json" 'abs(sum(p["total_cost_usd"] for p in d["scenarios"]) / 3 - d["total_cost_usd"]) < 0.01 and min(p["regret_usd"] for p in d["scenarios"]) >= 0')
if python3 -c 'import sys; sys.exit(not float(sys.argv[1]) >= 0)' "$worst" && [ "$nruns" = 3 ] && [ "$expect" = True ]; then
    ok "--scenarios: every month meets the SLO on all 3 paths (worst margin $worst s); total = mean of the paths' costs; regrets $regrets USD, none negative"
else
    bad "--scenarios: worst margin $worst over $nruns runs a month; expected-cost and regret check: $expect ($regrets)"
fi
p1=$(get "$tmp/paths/roadmap.json" '(round(d["total_cost_usd"], 2), [round(p["regret_usd"], 2) for p in d["scenarios"]])')
p2=$(get "$tmp/paths-bf/roadmap.json" '(round(d["total_cost_usd"], 2), [round(p["regret_usd"], 2) for p in d["scenarios"]])')
[ "$p1" = "$p2" ] && ok "--scenarios: search and brute force agree: $p1" || bad "--scenarios: search $p1, brute force $p2"

# ---- no --growth: the demand forecast fitted to the workload ----------------------------
# A trace of 10 days whose day d holds 20 + 4d one-GPU jobs of one GPU-hour
# (on the reference GPU): reference GPU-hours a day y(t) = 20 + 4t exactly,
# so the linear trend fits with R^2 = 1 and month m >= 2's demand is
# y(9.5 + (m - 1.5) x 730/24) / mean(y), mean(y) = 38, computed here from the
# trace's definition, not from fleetsim's code (tolerance 1e-9: rounding
# only).  The same trace with one 12-day job (submissions stop two days
# before the window ends: a closed workload) and one whose days alternate
# 60 and 20 jobs (R^2 near 0) must say "no usable trend" and hold demand
# flat rather than extrapolate.
mktrace() { # KIND: linear, closed or noisy
    python3 - "$tmp/$1.csv" "$1" <<'PY'
import sys
out, kind = sys.argv[1], sys.argv[2]
rows, i = [], 0
for d in range(10):
    n = 20 + 4 * d if kind != 'noisy' else (20 if d % 2 else 60)
    for k in range(n):
        i += 1
        rows.append(f"{i},{d * 86400 + (k + 0.5) * 86400 / n:.3f},batch,t,1,10,,3600,a100-sxm-80")
if kind == 'closed':
    i += 1
    rows.insert(0, f"{i},0,batch,t,1,10,,{12 * 86400},a100-sxm-80")
open(out, 'w').write("id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type\n" + "\n".join(rows) + "\n")
PY
    printf '{"name": "%s", "seed": 1, "fleet": [{"gpu": "a100-sxm-80", "nodes": 3, "gpus_per_node": 8}],
 "workload": {"trace": "%s.csv"}, "scheduler": {"policy": "best-fit"}}\n' "$1" "$1" >"$tmp/$1.json"
}
for k in linear closed noisy; do
    mktrace "$k"
    "$fleetsim" roadmap "$tmp/$k.json" --months 3 --max-nodes 3 -j 2 -o "$tmp/fc-$k" 2>"$tmp/fc-$k.err" ||
        bad "roadmap without --growth on the $k trace: exit $? $(cat "$tmp/fc-$k.err")"
done
got=$(get "$tmp/fc-linear/roadmap.json" '(d["demand_from"], [m["demand"] for m in d["months"]])' 2>&1)
want=$(python3 -c 'y = lambda t: 20 + 4 * t; print(("forecast", [1] + [y(9.5 + (m - 1.5) * 730 / 24) / 38 for m in (2, 3)]))')
close=$(python3 -c 'import sys; a, b = eval(sys.argv[1]), eval(sys.argv[2]); print(a[0] == b[0] and len(a[1]) == 3 and all(abs(x - w) <= 1e-9 * w for x, w in zip(a[1], b[1])))' "$got" "$want" 2>&1)
if [ "$close" = True ] && grep -q "linear trend fitted to 10 days" "$tmp/fc-linear.err"; then
    ok "no --growth, a linear trace: demand per month $got, the trend's projection (want $want)"
else
    bad "no --growth, a linear trace: got $got, want $want; stderr: $(cat "$tmp/fc-linear.err")"
fi
for k in "closed:closed" "noisy:less than half"; do
    name=${k%%:*} why=${k#*:}
    got=$(get "$tmp/fc-$name/roadmap.json" '(d["demand_from"], [m["demand"] for m in d["months"]], d["demand_note"])' 2>&1)
    case $got in
    "('flat: no usable trend', [1, 1, 1], "*"$why"*) ok "no --growth, a $name trace: no usable trend, demand held flat ($got)" ;;
    *) bad "no --growth, a $name trace: want flat demand and a note naming '$why', got $got" ;;
    esac
done
grep -qi "no usable trend" "$tmp/fc-noisy/roadmap.md" && ok "roadmap.md says there was no usable trend" ||
    bad "roadmap.md does not say there was no usable trend"

# ---- --max-output-mb: the month files of a large trace pass the budget ----------------
python3 - "$tmp/big.csv" <<'PY'
import sys
rows = [f"{i},{i * 30.0:.1f},batch,team-{i % 7},1,10,,60,a100-sxm-80" for i in range(1, 25001)]
open(sys.argv[1], 'w').write("id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type\n" + "\n".join(rows) + "\n")
PY
printf '{"name": "big", "seed": 1, "fleet": [{"gpu": "a100-sxm-80", "nodes": 1, "gpus_per_node": 8}], "workload": {"trace": "big.csv"}}\n' >"$tmp/big.json"
big=("$fleetsim" roadmap "$tmp/big.json" --months 2 --growth 0 --max-nodes 1 -q -j 2)
"${big[@]}" -o "$tmp/big-ok" 2>"$tmp/big.err"
rc_ok=$? size=$(du -sk "$tmp/big-ok" 2>/dev/null | cut -f1)
"${big[@]}" --max-output-mb 1 -o "$tmp/big-cut" 2>"$tmp/big.err"
rc=$?
if [ $rc_ok = 0 ] && [ "${size:-0}" -gt 1100 ] && [ $rc = 73 ] && [ ! -e "$tmp/big-cut" ] &&
    grep -q "max-output-mb 1" "$tmp/big.err"; then
    ok "--max-output-mb 1 on a roadmap of $size KiB: exit 73 naming the limit, nothing written"
else
    bad "--max-output-mb 1: exit $rc (without it $rc_ok, $size KiB), folder $(ls "$tmp/big-cut" 2>&1 | head -2); $(head -c 300 "$tmp/big.err")"
fi

# ---- --help and docs/roadmap.md list the same options ----------------------------------
help=$("$fleetsim" roadmap --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
doc=$(grep -o -- '^| `--[a-z][a-z-]*' docs/roadmap.md | sed 's/^| `//' | sort -u)
if [ -n "$help" ] && [ "$help" = "$doc" ]; then
    ok "--help and docs/roadmap.md list the same $(echo "$help" | wc -l) options"
else
    bad "--help and docs/roadmap.md differ:"; diff <(echo "$help") <(echo "$doc")
fi

echo "roadmap: $pass passed, $fail failed"
[ "$fail" = 0 ]
