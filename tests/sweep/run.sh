#!/usr/bin/env bash
# tests/sweep/run.sh - fleetsim sweep: the shipped example writes the same
# bytes with -j 1, 2 and 8 workers, one row per point in point order; a
# point's figures are those of `fleetsim run` on the scenario edited by
# hand; seeds vary fastest and set the run's seed; a key the scenario lacks
# is created; CSV cells with commas are quoted; a failing point is reported
# the same way for any -j, with exit 65 and no results written.
#
# Usage: FLEETSIM=build/fleetsim tests/sweep/run.sh   (from anywhere)
set -uo pipefail

fleetsim=${FLEETSIM:-build/fleetsim}
case $fleetsim in
*/*) fleetsim=$(cd "$(dirname "$fleetsim")" && pwd)/$(basename "$fleetsim") ;;
esac
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
if [ ! -x "$fleetsim" ]; then
    echo "sweep: $fleetsim is not an executable (set FLEETSIM)" >&2
    exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { echo "ok    $*"; pass=$((pass + 1)); }
bad() { echo "FAIL  $*"; fail=$((fail + 1)); }

# same A B LABEL: results.csv and results.json of folders A and B are equal.
same() {
    if cmp -s "$1/results.csv" "$2/results.csv" && cmp -s "$1/results.json" "$2/results.json"; then
        ok "$3"
    else
        bad "$3"
        diff "$1/results.csv" "$2/results.csv" | head -5
    fi
}

# col FILE POINT NAME: the cell of column NAME in POINT's row of results.csv
# (cells without commas).
col() {
    awk -F, -v p="$2" -v name="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $1 == p { print $c[name] }' "$1"
}

# summary FILE BLOCK KEY: a number of summary.json's BLOCK object.
summary() {
    awk -v block="\"$2\":" -v key="\"$3\":" '$1 == block { inside = 1; next }
        inside && $1 == key { sub(/,$/, "", $2); print $2; exit }' "$1"
}

# close A B: |A - B| <= 1e-12 x max(1, |B|).
close() {
    awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; if (m < 1) m = 1;
        exit !(a != "" && b != "" && d <= 1e-12 * m) }'
}

# --- the example: byte-identical for any -j --------------------------------------
for j in 1 2 8; do
    "$fleetsim" sweep -q scenarios/sweep-example.json -j $j -o "$tmp/j$j" 2>"$tmp/err$j" ||
        { bad "sweep -j $j: exit $?"; cat "$tmp/err$j"; }
done
same "$tmp/j1" "$tmp/j2" "example: -j 2 writes the bytes -j 1 writes"
same "$tmp/j1" "$tmp/j8" "example: -j 8 (more workers than points) writes the same bytes"
rows=$(($(wc -l <"$tmp/j1/results.csv") - 1))
points=$(awk -F, 'NR > 1 { printf "%s%s", sep, $1; sep = " " }' "$tmp/j1/results.csv")
[ "$rows" = 6 ] && [ "$points" = "0 1 2 3 4 5" ] && ok "example: 6 rows in point order" ||
    bad "example: $rows rows, points $points"
head -1 "$tmp/j1/results.csv" | grep -q '^point,fleet\[0\]\.nodes,scheduler\.policy,seed,utilization,' &&
    ok "example: header names the parameters, the seed and the metrics" || bad "example: header"
n=$(grep -c '"point":' "$tmp/j1/results.json")
[ "$n" = 6 ] && ok "example: results.json has 6 points" || bad "example: results.json has $n points"
for c in wait_p95 cost_month utilization; do
    [ -s "$tmp/j1/$c.gp" ] && [ -s "$tmp/j1/$c.csv" ] || bad "example: chart $c.gp/.csv missing"
done
ok "example: chart scripts and data written"

# --- point 5 (6 H100 servers under flux) is `fleetsim run` of that scenario -------
sed -e 's/"gpu": "h100-sxm", "nodes": 4/"gpu": "h100-sxm", "nodes": 6/' \
    -e 's/"policy": "best-fit"/"policy": "flux"/' scenarios/default.json >"$tmp/p5.json"
"$fleetsim" run -q "$tmp/p5.json" -o "$tmp/run5" 2>/dev/null || bad "run of point 5's scenario: exit $?"
s="$tmp/run5/summary.json" r="$tmp/j1/results.csv"
[ "$(col "$r" 5 fleet[0].nodes),$(col "$r" 5 scheduler.policy)" = "6,flux" ] || bad "point 5 is not 6,flux"
why=()
close "$(col "$r" 5 utilization)" "$(summary "$s" utilization allocated)" || why+=(utilization)
close "$(col "$r" 5 jobs_completed)" "$(summary "$s" jobs completed)" || why+=(jobs_completed)
close "$(col "$r" 5 wait_p95_s)" "$(summary "$s" wait_s p95)" || why+=(wait_p95_s)
close "$(col "$r" 5 jct_mean_s)" "$(summary "$s" jct_s mean)" || why+=(jct_mean_s)
close "$(col "$r" 5 energy_kwh)" "$(summary "$s" energy_kwh facility)" || why+=(energy_kwh)
[ ${#why[@]} = 0 ] && ok "point 5 equals fleetsim run of the edited scenario" ||
    bad "point 5 differs from fleetsim run in: ${why[*]}"

# --- seeds, a created key, CSV quoting -------------------------------------------
cp scenarios/default.json "$tmp/default.json"
cat >"$tmp/seeds.json" <<'JSON'
{"scenario": "default.json",
 "parameters": {"workload.generator.arrivals_per_hour": [8, 11],
                "faults.scale": [1],
                "description": ["a, with a comma", "a \"quote\""]},
 "seeds": [3, 4]}
JSON
"$fleetsim" sweep -q "$tmp/seeds.json" -o "$tmp/s1" 2>"$tmp/err" || { bad "seeds grid: exit $?"; cat "$tmp/err"; }
"$fleetsim" sweep -q "$tmp/seeds.json" -j 3 -o "$tmp/s3" 2>/dev/null || bad "seeds grid -j 3: exit $?"
same "$tmp/s1" "$tmp/s3" "seeds grid: -j 3 writes the bytes -j 1 writes"
# Cells of the seed column and the first metric, counted from the end of
# the row (the quoted parameter cells hold commas); the header says where.
from_end() { # FILE ROW NAME
    awk -F, -v row="$2" -v name="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) k = NF - i; next }
        row == "all" || NR == row { printf "%s", $(NF - k) }' "$1"
}
seeds=$(from_end "$tmp/s1/results.csv" all seed)
[ "$seeds" = 34343434 ] && ok "seeds vary fastest (8 points)" || bad "seed column: $seeds"
grep -q '^2,8,1,"a ""quote""",3,' "$tmp/s1/results.csv" && grep -q '^1,8,1,"a, with a comma",4,' "$tmp/s1/results.csv" &&
    ok "CSV cells with commas or quotes are quoted" || { bad "CSV quoting"; head -4 "$tmp/s1/results.csv"; }
sed -e 's/"arrivals_per_hour": 9.5/"arrivals_per_hour": 11/' -e 's/"seed": 42,/"seed": 42, "faults": {"scale": 1},/' \
    scenarios/default.json >"$tmp/p7.json"
"$fleetsim" run -q "$tmp/p7.json" --seed 4 -o "$tmp/run7" 2>/dev/null || bad "run of point 7: exit $?"
close "$(from_end "$tmp/s1/results.csv" 9 utilization)" \
    "$(summary "$tmp/run7/summary.json" utilization allocated)" &&
    ok "point 7 (seed 4, faults.scale created) equals fleetsim run --seed 4" || bad "point 7 differs from fleetsim run"

# --- a failing point: the same message for any -j, nothing written ---------------
cat >"$tmp/badpoint.json" <<'JSON'
{"scenario": "default.json", "parameters": {"fleet[0].nodes": [2, 4, 0, 6, -1]}}
JSON
for j in 1 3; do
    "$fleetsim" sweep -q "$tmp/badpoint.json" -j $j -o "$tmp/b$j" 2>"$tmp/berr$j"
    echo $? >"$tmp/brc$j"
done
if [ "$(cat "$tmp/brc1")" = 65 ] && [ "$(cat "$tmp/brc3")" = 65 ] && cmp -s "$tmp/berr1" "$tmp/berr3" &&
    grep -q "badpoint.json: point 2 (fleet\[0\].nodes=0): .*default.json: \$.fleet\[0\].nodes: 0 is out of range" "$tmp/berr1" &&
    [ -z "$(find "$tmp/b1" "$tmp/b3" -type f 2>/dev/null)" ]; then
    ok "failing point: exit 65, the lowest failing point named, the same for -j 1 and -j 3, nothing written"
else
    bad "failing point: exit $(cat "$tmp/brc1")/$(cat "$tmp/brc3")"
    cat "$tmp/berr1" "$tmp/berr3"
fi

echo "sweep: $pass passed, $fail failed"
[ $fail = 0 ]
