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
# 5. Job classes: no job on a GPU whose memory cannot hold it.
# 6. --diurnal: the arrivals' hour-of-day profile follows the amplitude
#    and peak asked for; bad values are usage errors.
# 7. --classes: the fleet sized to the job classes keeps every GPU type in
#    it busy, holds every job in memory, queues at 200 % load; a type no
#    class fits is left out (said on stderr); bad class files are refused.
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

# 5. Job classes: no job runs on a GPU type whose memory cannot hold it.
#    100,000 jobs of the default class mix (models/data/job_classes.json)
#    on H100, H200, A100-80GB and RTX 4090 nodes, checked from jobs.csv and
#    the catalog as `fleetsim models` prints it: every placed job's
#    gpu_mem_gb is at most its type's memory.  So that gpu_mem_gb cannot
#    pass by being understated, each row must also need at least its
#    weights per GPU plus the 2 GB runtime allowance, worked here from the
#    class file's parameter counts: 16 B per parameter for train jobs
#    (BF16 weights and gradients, FP32 Adam state), the precision's bytes
#    (bf16 2, fp8 1, int4 0.5) for the others.  And the check must bite:
#    some jobs need more than a 4090's 24 GB, and 4090s still run jobs.
catalog=$PWD/models/data/gpus.json
cat >"$tmp/classes.json" <<EOF
{"name": "classes-100k", "seed": 19, "catalog": "$catalog",
 "fleet": [{"gpu": "h100-sxm", "nodes": 8, "gpus_per_node": 8}, {"gpu": "h200-sxm", "nodes": 4, "gpus_per_node": 8},
           {"gpu": "a100-sxm-80", "nodes": 8, "gpus_per_node": 8}, {"gpu": "rtx4090", "nodes": 8, "gpus_per_node": 8}],
 "workload": {"generator": {"jobs": 100000, "arrivals_per_hour": 100, "classes": "default", "teams": {"a": 1},
                            "reference_gpu": "a100-sxm-80"}},
 "scheduler": {"policy": "best-fit"}}
EOF
if "$fleetsim" run "$tmp/classes.json" -q -o "$tmp/cls"; then
    "$fleetsim" models --catalog "$catalog" | awk '/^GPU catalog/ {on = 1; next} on && NF == 0 {exit}
        on && $2 ~ /^[0-9.]+$/ {print $1, $2}' >"$tmp/mem.txt"
    sed -n 's/.*"name": "\([^"]*\)", "params_b": \([0-9.]*\).*/\1 \2/p' models/data/job_classes.json |
        sort -u >"$tmp/params.txt"
    out=$(awk -F, 'FILENAME ~ /mem.txt$/ {split($0, a, " "); mem[a[1]] = a[2]; next}
        FILENAME ~ /params.txt$/ {split($0, a, " "); par[a[1]] = a[2]; next}
        FNR == 1 {for (i = 1; i <= NF; i++) col[$i] = i; next}
        {
            rows++; type = $col["gpu_type"]; need = $col["gpu_mem_gb"] + 0; m = $col["model"]
            b = $col["precision"] == "bf16" ? 2 : $col["precision"] == "fp8" ? 1 : $col["precision"] == "int4" ? 0.5 : -1
            if ($col["kind"] == "train") b = 16
            if (!(m in par) || b < 0 || need < par[m] * b / $col["gpus"] + 2 - 1e-6) under++
            if (need > 24) big++
            if (type == "") { unplaced++; next }
            if (!(type in mem)) unknown++
            else if (need > mem[type] + 0) over++
            if (type == "rtx4090") small++
        }
        END {printf "%d %d %d %d %d %d %d\n", rows, over, unknown, under, unplaced, big, small}' \
        "$tmp/mem.txt" "$tmp/params.txt" "$tmp/cls/jobs.csv")
    read -r rows over unknown under unplaced big small <<<"$out"
    [ "$rows" = 100000 ] && [ "$over" = 0 ] && [ "$unknown" = 0 ] && [ "$unplaced" = 0 ]
    check "100,000 class jobs: none on a GPU whose memory cannot hold it" $? \
        "rows $rows, over memory $over, unknown type $unknown, never placed $unplaced"
    [ "$under" = 0 ]
    check "every job's gpu_mem_gb holds at least its weights per GPU + 2 GB" $? "$under rows below"
    [ "${big:-0}" -gt 1000 ] && [ "${small:-0}" -gt 1000 ]
    check "the check bites: $big jobs need > 24 GB, $small ran on RTX 4090s" $?
else
    check "the 100,000-job class scenario runs" 1
fi

# A class that fits no GPU of the fleet is refused, naming it.
sed 's/"nodes": [0-9]*/"nodes": 1/g' "$tmp/classes.json" >"$tmp/small.json"
"$fleetsim" run "$tmp/small.json" -q -o "$tmp/small" 2>"$tmp/small.err"
rc=$?
[ "$rc" = 65 ] && grep -q 'classes\[6\].gpus: a pretrain-70b job of 16 GPUs' "$tmp/small.err"
check "a class too big for the fleet: exit 65, named" $? "rc $rc: $(cat "$tmp/small.err")"

# 6. --diurnal A@H.  The rate at hour h is the mean times 1 + A cos(2 pi
#    (h - H) / 24), so with A = 0.8 and H = 14 the four hours around the
#    peak (12-16 h) get 1 + 0.8 x 0.955 = 1.76 times the mean and the four
#    around the trough (0-4 h) 0.24 times: a ratio of 7.4.  Measured from
#    jobs.csv's submit times of 4,000 jobs on 64 GPUs (about 17 an hour:
#    some 10 days, about 650 jobs per window without diurnal, so Poisson
#    noise is ~4 %), the test wants the peak window at least 3 times the
#    trough (under half the expected ratio, far outside the noise); without
#    --diurnal the same windows must be within 1.3x of each other (a
#    window can gain at most the last, partial day: ~1.1x on 10 days, plus
#    the noise).
hours() { # jobs.csv -> "PEAK TROUGH": jobs submitted in hours [12,16) and [0,4)
    awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) col[$i] = i; next}
        {h = ($col["submit_s"] / 3600) % 24; if (h >= 12 && h < 16) p++; if (h < 4) t++}
        END {print p + 0, t + 0}' "$1"
}
for d in flat diurnal; do
    extra=(); [ $d = diurnal ] && extra=(--diurnal 0.8@14)
    "$fleetsim" gen --jobs 4000 --gpus 64 "${extra[@]}" -o "$tmp/$d.json" &&
        "$fleetsim" run "$tmp/$d.json" -q -o "$tmp/$d" || check "gen ${extra[*]} runs" 1
done
read -r fp ft <<<"$(hours "$tmp/flat/jobs.csv")"
read -r dp dt <<<"$(hours "$tmp/diurnal/jobs.csv")"
awk -v p="$dp" -v t="$dt" 'BEGIN {exit !(p >= 3 * t && p > 0)}'
check "--diurnal 0.8@14: $dp arrivals in 12-16 h vs $dt in 0-4 h (want >= 3x)" $?
awk -v p="$fp" -v t="$ft" 'BEGIN {exit !(p > 0 && t > 0 && p <= 1.3 * t && t <= 1.3 * p)}'
check "without --diurnal: $fp vs $ft (want within 1.3x)" $?
r1=$(awk -F': ' '/arrivals_per_hour/ {sub(/,/, "", $2); print $2}' "$tmp/flat.json")
r2=$(awk -F': ' '/arrivals_per_hour/ {sub(/,/, "", $2); print $2}' "$tmp/diurnal.json")
[ -n "$r1" ] && [ "$r1" = "$r2" ]
check "--diurnal keeps the mean rate ($r2 vs $r1)" $?
"$fleetsim" gen --jobs 4000 --gpus 64 --diurnal 0.8@14 -o "$tmp/diurnal2.json" &&
    cmp -s "$tmp/diurnal.json" "$tmp/diurnal2.json"
check "--diurnal: the same arguments give the same bytes" $?
for bad in 1.5 -0.1 0.5@24 0.5@ x; do
    "$fleetsim" gen --jobs 10 --gpus 64 --diurnal "$bad" -o "$tmp/bad.json" 2>"$tmp/bad.err"
    st=$?
    [ "$st" = 64 ] && ! [ -e "$tmp/bad.json" ] && grep -q -- '--diurnal' "$tmp/bad.err"
    check "--diurnal $bad: exit 64 (got $st) naming the option, nothing written" $?
done

# 7. --classes default.  busy(SCENARIO, OUT) prints "TYPE SHARE" per fleet
#    type: the GPU time jobs.csv's jobs held on it while jobs were still
#    arriving (0 .. the last submit), over its GPUs x that span.  Not
#    summary.json's utilization: that runs to the last job's end, and the
#    default classes' 7-day training jobs on slow cards end weeks after the
#    last arrival, an idle drain that says nothing about the sizing.  The
#    threshold, 30 % of every type's GPU time, is what "does real work"
#    means here: issue 19 found a gen fleet's RTX 4090s 0.2 % busy, and a type
#    sized for jobs it never gets under best-fit would sit near 0 again;
#    the figures measured at 87.5 % load are 47-92 % (docs/benchmarks.md),
#    below 87.5 % because best-fit puts jobs on faster types than the plan
#    spreads them to and the heavy-tailed durations rarely reach their mean.
busy() {
    awk -F, 'FILENAME ~ /json$/ {
            if (match($0, /"gpu": "[^"]*", "nodes": [0-9]*/)) {
                split(substr($0, RSTART, RLENGTH), a, "\""); n = substr($0, RSTART, RLENGTH); sub(/.*: /, "", n)
                gpus[a[4]] = n * 8
            }
            next
        }
        FNR == 1 {for (i = 1; i <= NF; i++) col[$i] = i; next}
        {rows[FNR] = $0; if ($col["submit_s"] > last) last = $col["submit_s"]}
        END {
            for (r in rows) {
                split(rows[r], f, ","); t = f[col["gpu_type"]]; e = f[col["end_s"]]
                if (e > last) e = last
                if (t != "" && e > f[col["start_s"]]) held[t] += f[col["gpus"]] * (e - f[col["start_s"]])
            }
            for (t in gpus) printf "%s %.3f\n", t, held[t] / (gpus[t] * last)
        }' "$1" "$2/jobs.csv" | sort
}
for size in "20000 256" "4000 128"; do
    set -- $size
    cls=(--jobs "$1" --gpus "$2" --classes default)
    if "$fleetsim" gen "${cls[@]}" --load 87.5 -o "$tmp/c$2.json" 2>"$tmp/c$2.err" &&
        "$fleetsim" run "$tmp/c$2.json" -q -o "$tmp/c$2"; then
        shares=$(busy "$tmp/c$2.json" "$tmp/c$2")
        types=$(echo "$shares" | wc -l)
        low=$(echo "$shares" | awk '$2 < 0.30')
        [ "$types" = 4 ] && [ -z "$low" ]
        check "--classes default, $1 jobs on $2 GPUs: all 4 types >= 30 % busy: $(echo $shares)" $?
    else
        check "gen ${cls[*]} runs" 1 "$(cat "$tmp/c$2.err")"
    fi
done
# No job on a type whose memory cannot hold it (jobs.csv's gpu_mem_gb
# against the catalog's memory, as `fleetsim models` prints it); and the
# check bites: jobs of more than 24 GB exist, and RTX 4090s (24 GB) ran jobs.
"$fleetsim" models --catalog "$catalog" | awk '/^GPU catalog/ {on = 1; next} on && NF == 0 {exit}
    on && $2 ~ /^[0-9.]+$/ {print $1, $2}' >"$tmp/mem.txt"
out=$(awk -F, 'FILENAME ~ /mem.txt$/ {split($0, a, " "); mem[a[1]] = a[2]; next}
    FNR == 1 {for (i = 1; i <= NF; i++) col[$i] = i; next}
    {t = $col["gpu_type"]; need = $col["gpu_mem_gb"] + 0; rows++
     if (!(t in mem) || need > mem[t] + 0) over++
     if (need > 24) big++
     if (t == "rtx4090") small++}
    END {print rows + 0, over + 0, big + 0, small + 0}' "$tmp/mem.txt" "$tmp/c256/jobs.csv")
read -r rows over big small <<<"$out"
[ "$rows" = 20000 ] && [ "$over" = 0 ] && [ "$big" -gt 1000 ] && [ "$small" -gt 1000 ]
check "--classes: $rows jobs, $over beyond their type's memory ($big need > 24 GB, $small ran on RTX 4090s)" $?
# Same arguments, same bytes; --load 175 is twice the rate.
"$fleetsim" gen --jobs 20000 --gpus 256 --classes default -o "$tmp/c256b.json" 2>/dev/null &&
    cmp -s "$tmp/c256.json" "$tmp/c256b.json"
check "--classes: the same arguments give the same bytes" $?
"$fleetsim" gen --jobs 20000 --gpus 256 --classes default --load 175 -o "$tmp/c175.json" 2>/dev/null
r1=$(awk -F': ' '/arrivals_per_hour/ {sub(/,/, "", $2); print $2}' "$tmp/c256.json")
r2=$(awk -F': ' '/arrivals_per_hour/ {sub(/,/, "", $2); print $2}' "$tmp/c175.json")
awk -v a="${r1:-0}" -v b="${r2:-0}" 'BEGIN {d = b / a - 2; exit !(a > 0 && d < 2e-5 && d > -2e-5)}'
check "--classes --load 175: $r2 arrivals/h is twice $r1" $?
# Overload: at --load 200 the queue grows: the p95 wait exceeds an hour and
# the 87.5 % run's (under an hour), and at some moment more than 100
# jobs wait (4,000 arrivals at twice the capacity).
"$fleetsim" gen --jobs 4000 --gpus 128 --classes default --load 200 -o "$tmp/c200.json" 2>/dev/null &&
    "$fleetsim" run "$tmp/c200.json" -q -o "$tmp/c200"
p95() { awk '/"wait_s"/ {on = 1} on && /"p95"/ {gsub(/[^0-9.e+-]/, "", $2); print $2; exit}' "$1"; }
qmax() { awk '/"queue_length"/ {on = 1} on && /"max"/ {gsub(/[^0-9]/, "", $2); print $2; exit}' "$1"; }
w1=$(p95 "$tmp/c128/summary.json") w2=$(p95 "$tmp/c200/summary.json") q2=$(qmax "$tmp/c200/summary.json")
awk -v a="${w1:-x}" -v b="${w2:-x}" -v q="${q2:-0}" 'BEGIN {exit !(b + 0 == b && b > 3600 && b > a && q > 100)}'
check "--classes --load 200 queues: p95 wait $w2 s (87.5 %: $w1 s), up to $q2 jobs queued" $?
# A type no class fits is left out, said on stderr: classes of 70B models
# in BF16 on 4 GPUs need 43 GB per GPU, more than an RTX 4090's 24 GB.
cat >"$tmp/big.json" <<EOF
{"classes": [{"name": "lora-70b", "kind": "lora", "weight": 1,
  "model": {"name": "llama-3-70b", "params_b": 70.6, "precision": "bf16", "layers": 80, "hidden": 8192},
  "gpus": {"4": 1}, "duration": {"median_s": 3600, "sigma": 1}}]}
EOF
"$fleetsim" gen --jobs 2000 --gpus 256 --classes "$tmp/big.json" -o "$tmp/big/gen.json" 2>"$tmp/big.err" &&
    ! grep -q '"rtx4090"' "$tmp/big/gen.json" && grep -q 'rtx4090 left out of the fleet: no class fits it' "$tmp/big.err" &&
    "$fleetsim" run "$tmp/big/gen.json" -q -o "$tmp/big/out"
check "--classes FILE: rtx4090 left out, said on stderr, and the scenario runs" $? "$(cat "$tmp/big.err")"
# Bad class files: missing (66, as every missing input), malformed (65),
# a class no type holds (65); each names --classes and writes nothing.
echo '{"classes": [' >"$tmp/broken.json"
sed 's/"4": 1/"1": 1/; s/"bf16"/"fp16"/; s/70.6/700/' "$tmp/big.json" >"$tmp/huge.json"
for case in "66 $tmp/missing.json" "65 $tmp/broken.json" "65 $tmp/huge.json"; do
    set -- $case
    "$fleetsim" gen --jobs 10 --gpus 64 --classes "$2" -o "$tmp/bad.json" 2>"$tmp/bad.err"
    st=$?
    [ "$st" = "$1" ] && ! [ -e "$tmp/bad.json" ] && grep -q -- '--classes' "$tmp/bad.err"
    check "--classes $(basename "$2"): exit $1 (got $st) naming the option, nothing written" $? "$(cat "$tmp/bad.err")"
done
# Too few GPUs for the default classes' 64-GPU jobs (8 whole nodes of one
# type): exit 65 (the data cannot be met), naming --gpus.
"$fleetsim" gen --jobs 10 --gpus 56 --classes default -o "$tmp/bad.json" 2>"$tmp/bad.err"
st=$?
[ "$st" = 65 ] && grep -q -- '--gpus 56: too few GPUs for class pretrain-70b' "$tmp/bad.err"
check "--classes default --gpus 56: exit 65 (got $st), names --gpus" $? "$(cat "$tmp/bad.err")"

echo "gen: $passed passed, $failed failed"
[ "$failed" = 0 ]
