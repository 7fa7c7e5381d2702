#!/usr/bin/env bash
# bench/run.sh - the throughput figures the README quotes (bench/README.md
# explains each one).  Prints one Markdown report on stdout and writes every
# row to bench/out/results.csv; progress goes to stderr.
#
#   1. the machine: nproc and the CPU model;
#   2. the event queue alone (bench/evq_bench.c);
#   3. synthetic replays: `fleetsim gen` scenarios of 10k, 100k and 1M jobs on
#      fleets of 1k, 10k and 100k GPUs, under fifo, best-fit, fgd and flux
#      (a policy `fleetsim run --help` does not list is skipped with a note);
#      then every policy at twice the offered load (175 %) on 10k GPUs, with
#      each one's ratio to fifo and its growth with the job count, and hetero
#      at the default load;
#   4. the openb fill grid (the FGD paper's six policies x 10 seeds) and the
#      full Philly replay (82k jobs), when ../shared/traces is there.
#
# Environment:
#   FLEETSIM        fleetsim binary (default build/fleetsim)
#   EVQ_BENCH       event-queue benchmark binary (default build/bench/evq_bench)
#   BENCH_RUNS      runs per figure, the median is reported (default 3)
#   BENCH_MAX_JOBS  skip synthetic replays of more jobs than this (default:
#                   none skipped; e.g. 100000 leaves out the 1M-job rows)
#   BENCH_TIMEOUT   seconds before one replay is stopped and reported as timed
#                   out (default 1800)
#   BENCH_OVERLOAD_TIMEOUT  the same for the overload rows (default 300)
#   BENCH_OVERLOAD_JOBS     job counts of the overload rows, on 10k GPUs
#                   (default "50000 100000 200000")
#   BENCH_HETERO_JOBS       job counts of the hetero rows (default
#                   "200000 1000000"; BENCH_MAX_JOBS applies)
#   BENCH_EVQ_SIZES steady queue sizes for the event-queue table
#                   (default "1000 100000 10000000")
#   BENCH_NO_BUILD  set to 1 to use the binaries as they are (make bench
#                   builds them first)
#   TRACES          traces folder (default ../shared/traces)
#
# Usage: bench/run.sh   (or make bench)
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
fleetsim=${FLEETSIM:-build/fleetsim}
evq_bench=${EVQ_BENCH:-build/bench/evq_bench}
runs=${BENCH_RUNS:-3}
max_jobs=${BENCH_MAX_JOBS:-}
limit_s=${BENCH_TIMEOUT:-1800}
overload_limit=${BENCH_OVERLOAD_TIMEOUT:-300}
overload_jobs=${BENCH_OVERLOAD_JOBS:-50000 100000 200000}
overload_gpus=10000
hetero_jobs=${BENCH_HETERO_JOBS:-200000 1000000}
evq_sizes=${BENCH_EVQ_SIZES:-1000 100000 10000000}
traces=${TRACES:-../shared/traces}
out=bench/out
csv=$out/results.csv

log() { echo "bench: $*" >&2; }

if [ "${BENCH_NO_BUILD:-}" != 1 ]; then
    log "building $fleetsim and $evq_bench (CFLAGS=-O2)"
    ${MAKE:-make} --no-print-directory CFLAGS=-O2 "$fleetsim" "$evq_bench" >&2 || exit 1
fi
for b in "$fleetsim" "$evq_bench"; do
    [ -x "$b" ] || { echo "bench: $b is not an executable" >&2; exit 2; }
done
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Run private copies, so a rebuild or `make clean` while the bench runs
# cannot change or remove the binaries under measurement.  A copy finds no
# catalog beside itself: point it at the source tree's.
cp "$fleetsim" "$tmp/fleetsim" && cp "$evq_bench" "$tmp/evq_bench" || exit 2
built=$fleetsim fleetsim=$tmp/fleetsim evq_bench=$tmp/evq_bench
export FLEETSIM_DATA=${FLEETSIM_DATA:-$PWD/models/data}

echo "section,case,policy,jobs,gpus,runs,wall_s,sim_s,jobs_per_s,events,events_per_s,peak_rss_mib,bytes_per_job,note" >"$csv"
row() { # the columns of results.csv, in order (commas in a value become ';')
    local f line=""
    for f in "$@"; do line+="${line:+,}${f//,/;}"; done
    echo "$line" >>"$csv"
}

# ---- helpers -------------------------------------------------------------

. bench/lib.sh # median, measure

fmt_rate() { # N: 1234567 -> 1.23M
    awk -v v="$1" 'BEGIN {
        if (v == "n/a" || v == "") { print "n/a"; exit }
        if (v >= 1e6) printf "%.2fM\n", v / 1e6
        else if (v >= 1e3) printf "%.1fk\n", v / 1e3
        else printf "%.1f\n", v }'
}

# ---- 1. the machine -------------------------------------------------------

cpu=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null)
[ -n "$cpu" ] || cpu=$(lscpu 2>/dev/null | awk -F': *' '/Model name/ {print $2; exit}')
echo "# fleetsim benchmark"
echo
echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "- nproc: $(nproc)"
echo "- CPU: ${cpu:-unknown}"
echo "- memory: $(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
echo "- fleetsim: $("$fleetsim" --version), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (modified)')"
echo "- runs per figure: $runs (median); timeout per run: ${limit_s} s"
echo

# ---- 2. the event queue ----------------------------------------------------

log "event queue: sizes $evq_sizes"
echo "## Event queue (sim/evq), steady size, median of 5"
echo
# shellcheck disable=SC2086 # the sizes are words
"$evq_bench" $evq_sizes --csv >"$tmp/evq.csv" 2>/dev/null || log "evq_bench failed"
echo "| workload | queue size | Mops/s | Mevents/s | ns/op |"
echo "|---|---:|---:|---:|---:|"
tail -n +2 "$tmp/evq.csv" | while IFS=, read -r w size ops mops mev ns; do
    printf '| %s | %s | %.2f | %.2f | %.1f |\n' "$w" "$size" "$mops" "$mev" "$ns"
    row evq "$w size=$size" "" "" "" 5 "" "" "" "" "$(awk -v m="$mev" 'BEGIN {printf "%.0f", m * 1e6}')" "" "" "$ops ops per run; $ns ns/op"
done
echo

# ---- 3. synthetic replays ----------------------------------------------------

policies=()
skipped=()
help=$("$fleetsim" run --help 2>&1)
for p in fifo best-fit fgd flux; do
    if tr -s ' \t' '\n\n' <<<"$help" | grep -qx -- "$p"; then
        policies+=("$p")
    else
        skipped+=("$p")
    fi
done

# replay LABEL SCENARIO JOBS|auto GPUS POLICY|"" : R runs of fleetsim run;
# one table row and one CSV row (its section: $section).  auto takes the job
# count from summary.json.
section=replay
replay() {
    local label=$1 scen=$2 jobs=$3 gpus=$4 policy=$5 i walls sims rss_max=0 note="" events=n/a
    local args=(run "$scen" -o "$tmp/run")
    [ -n "$policy" ] && args+=(--policy "$policy")
    walls="" sims=""
    for ((i = 1; i <= runs; i++)); do
        log "$label ${policy:+$policy }run $i/$runs"
        rm -rf "$tmp/run"
        measure "$tmp/log" "$fleetsim" "${args[@]}"
        if [ "$status" != 0 ]; then
            if [ "$status" = 124 ]; then note="timed out after ${limit_s} s"; else
                note="failed (exit $status): $(head -n 1 "$tmp/log")"
            fi
            log "$label $policy: $note"
            break
        fi
        walls+="$wall"$'\n'
        # "(N events, X s wall)": X is the simulation and output writing,
        # without loading the scenario.
        sims+="$(sed -n 's/.*(\([0-9]*\) events, \([0-9.]*\) s wall).*/\2/p' "$tmp/log")"$'\n'
        events=$(sed -n 's/.*(\([0-9]*\) events, [0-9.]* s wall).*/\1/p' "$tmp/log")
        [ "$jobs" = auto ] && jobs=$(awk '/"total":/ {gsub(/[^0-9]/, ""); print; exit}' "$tmp/run/summary.json")
        [ "$rss_kib" != n/a ] && [ "$rss_kib" -gt "$rss_max" ] && rss_max=$rss_kib
    done
    if [ -n "$note" ]; then
        [ "$jobs" = auto ] && jobs=n/a
        echo "| $label | ${policy:--} | $jobs | $gpus | $note | | | | | |"
        row "$section" "$label" "$policy" "$jobs" "$gpus" "$runs" "" "" "" "" "" "" "" "$note"
        return
    fi
    local w s jps eps rss_mib bpj
    w=$(median <<<"$walls")
    s=$(median <<<"$sims")
    jps=$(awk -v n="$jobs" -v w="$w" 'BEGIN {printf "%.0f", n / w}')
    eps=$(awk -v n="$events" -v w="$w" 'BEGIN {if (n == "") print "n/a"; else printf "%.0f", n / w}')
    if [ "$rss_max" -gt 0 ]; then
        rss_mib=$(awk -v k="$rss_max" 'BEGIN {printf "%.1f", k / 1024}')
        bpj=$(awk -v k="$rss_max" -v n="$jobs" 'BEGIN {printf "%.0f", k * 1024 / n}')
    else
        rss_mib=n/a bpj=n/a
    fi
    echo "| $label | ${policy:--} | $jobs | $gpus | $w | $s | $(fmt_rate "$jps") | $(fmt_rate "$eps") | $rss_mib | $bpj |"
    row "$section" "$label" "$policy" "$jobs" "$gpus" "$runs" "$w" "$s" "$jps" "$events" "$eps" "$rss_mib" "$bpj" ""
}

table_head() {
    echo "| case | policy | jobs | GPUs | wall s | run s | jobs/s | events/s | peak RSS MiB | bytes/job |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
}

echo "## Synthetic replays (fleetsim gen, fleetsim run)"
echo
for p in "${skipped[@]+"${skipped[@]}"}"; do
    echo "- $p: skipped, \`fleetsim run --help\` does not list it"
done
[ -n "$max_jobs" ] && echo "- BENCH_MAX_JOBS=$max_jobs: larger workloads skipped"
echo
table_head
for jobs in 10000 100000 1000000; do
    if [ -n "$max_jobs" ] && [ "$jobs" -gt "$max_jobs" ]; then
        log "skipping $jobs jobs (BENCH_MAX_JOBS=$max_jobs)"
        continue
    fi
    for gpus in 1000 10000 100000; do
        scen=$out/gen-j$jobs-g$gpus.json
        # Cached; rewritten when fleetsim or the throughput data is newer.
        if ! [ -s "$scen" ] || [ "$built" -nt "$scen" ] || [ models/data/workloads.json -nt "$scen" ]; then
            "$fleetsim" gen --jobs "$jobs" --gpus "$gpus" --seed 1 -o "$scen" || exit 1
        fi
        for p in "${policies[@]}"; do
            replay "gen ${jobs} jobs / ${gpus} GPUs" "$scen" "$jobs" "$gpus" "$p"
        done
    done
done
echo

# ---- 3b. overload and hetero ----------------------------------------------------

# gen_scen JOBS GPUS [LOAD%]: the cached `fleetsim gen` scenario, its path on
# stdout; rewritten when fleetsim or the throughput data is newer.
gen_scen() {
    local scen=$out/gen-j$1-g$2${3:+-l$3}.json
    if ! [ -s "$scen" ] || [ "$built" -nt "$scen" ] || [ models/data/workloads.json -nt "$scen" ]; then
        "$fleetsim" gen --jobs "$1" --gpus "$2" --seed 1 ${3:+--load "$3"} -o "$scen" >&2 || exit 1
    fi
    echo "$scen"
}

# Twice the default offered load (175 % of the fleet's throughput
# capacity): the queue grows all run long, as on the under-provisioned
# fleets the planner visits.  Every policy, each run under its own timeout.
all_policies=$(awk -F': ' '/override the scenario.s policy:/ { print $2 }' <<<"$help")
section=overload
saved_limit=$limit_s
limit_s=$overload_limit
echo "## Overload: offered load 175 % (fleetsim gen --load 175), every policy"
echo
echo "Timeout per run: ${limit_s} s (BENCH_OVERLOAD_TIMEOUT)."
echo
table_head
for jobs in $overload_jobs; do
    scen=$(gen_scen "$jobs" "$overload_gpus" 175)
    for p in $all_policies; do
        replay "gen ${jobs} jobs / ${overload_gpus} GPUs, load 175 %" "$scen" "$jobs" "$overload_gpus" "$p"
    done
done
echo
# Each policy against fifo on the same scenario (a ratio cancels much of
# the machine's load), and the growth from the smallest to the largest size
# as an exponent: wall ~ jobs^k.
awk -F, -v sizes="$overload_jobs" '$1 == "overload" && $7 != "" { w[$3 "," $4] = $7; pol[$3] = 1 }
    END {
        n = split(sizes, z, " ")
        printf "| policy |"; for (i = 1; i <= n; i++) printf " %s jobs: / fifo |", z[i]; printf " growth k (wall ~ jobs^k) |\n"
        printf "|---|"; for (i = 1; i <= n; i++) printf "---:|"; printf "---:|\n"
        for (p in pol) {
            printf "| %s |", p
            for (i = 1; i <= n; i++) {
                a = w[p "," z[i]]; f = w["fifo," z[i]]
                if (a != "" && f > 0) printf " %.2f |", a / f; else printf " n/a |"
            }
            a = w[p "," z[1]]; b = w[p "," z[n]]
            if (n > 1 && a > 0 && b > 0) printf " %.2f |\n", log(b / a) / log(z[n] / z[1]); else printf " n/a |\n"
        }
    }' "$csv" | { read -r h1; read -r h2; echo "$h1"; echo "$h2"; sort; }
echo
limit_s=$saved_limit

# hetero at the default load: it used to queue most jobs for one type.
section=hetero
echo "## hetero at the default load (87.5 %)"
echo
table_head
for jobs in $hetero_jobs; do
    if [ -n "$max_jobs" ] && [ "$jobs" -gt "$max_jobs" ]; then
        log "skipping hetero $jobs jobs (BENCH_MAX_JOBS=$max_jobs)"
        continue
    fi
    replay "gen ${jobs} jobs / ${overload_gpus} GPUs" "$(gen_scen "$jobs" "$overload_gpus")" "$jobs" "$overload_gpus" hetero
done
echo
section=replay

# ---- 4. real traces ----------------------------------------------------------

echo "## Real traces"
echo
openb=$traces/alibaba-openb
philly=$traces/philly/philly.csv
if [ -r "$openb/openb_node_list_gpu_node.csv" ] && [ -r "$openb/openb_pod_list_default.csv" ]; then
    walls=""
    for ((i = 1; i <= runs; i++)); do
        log "openb fill grid run $i/$runs"
        rm -rf "$tmp/fill"
        measure "$tmp/log" "$fleetsim" fill --nodes "$openb/openb_node_list_gpu_node.csv" \
            --pods "$openb/openb_pod_list_default.csv" --policy all --seeds 42-51 -o "$tmp/fill" -q
        [ "$status" = 0 ] || { log "fill failed: $(head -n 1 "$tmp/log")"; walls=""; break; }
        walls+="$wall"$'\n'
    done
    w=$(median <<<"$walls")
    echo "| case | wall s | note |"
    echo "|---|---:|---|"
    echo "| openb fill grid | $w | 6 policies x 10 seeds, 8,152 pods on 1,213 nodes, $(nproc) threads (fleetsim fill -j default) |"
    row fill "openb fill grid" all 8152 6212 "$runs" "$w" "" "" "" "" "" "" "6 policies x 10 seeds"
else
    echo "- openb fill grid: skipped, $openb not found (set TRACES)"
fi
if [ -r "$philly" ]; then
    # scenarios/philly.json names the trace relative to itself; this copy
    # names it by absolute path, so TRACES may point anywhere.
    abs=$(cd "$(dirname "$philly")" && pwd)/$(basename "$philly")
    sed "s|\"trace\": \"[^\"]*\"|\"trace\": \"$abs\"|" scenarios/philly.json >"$out/philly.json"
    echo
    table_head
    replay "Philly (full trace)" "$out/philly.json" auto 1600 ""
else
    echo "- Philly replay: skipped, $philly not found (set TRACES)"
fi
echo
echo "Rows also in $csv."
bench/scaling.sh "$out" || true # scaling.png: wall and RSS against jobs
