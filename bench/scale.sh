#!/usr/bin/env bash
# bench/scale.sh - the overload and scale figures of docs/benchmarks.md,
# each against its target:
#   - 175 % offered load, 100k jobs x 10k GPUs, every policy, each as a
#     ratio to fifo (target <= 3x; best-fit <= 1.5 s, flux <= 2 s); the
#     round-based policies in BENCH_PASSES passes (default 5), each pass
#     alternating with fifo, since a machine drifts between passes;
#   - growth from 50k to 200k jobs at 175 % (k of wall ~ jobs^k, <= 1.1);
#   - hetero at the default load, 200k and 1M jobs (<= 3 s, <= 20 s);
#   - 1M jobs x 10k GPUs under best-fit (<= 3 s, <= 160 bytes per job of
#     peak RSS, >= 1M events per second), fgd on 1M jobs x 100k GPUs
#     (<= 8 s), 10M jobs x 100k GPUs under best-fit (<= 30 s, <= 2 GiB).
# Each figure is the median wall time of BENCH_RUNS runs (default 3; 5 for
# 1M best-fit) of the whole `fleetsim run`: loading, simulating, every
# output file and, when gnuplot is installed, the charts; a run past
# BENCH_TIMEOUT seconds (default 300) stops the bench.  It takes about ten
# minutes on a 2-core machine; nothing else should run meanwhile.
#
# Usage: FLEETSIM=build/fleetsim bench/scale.sh    (or make bench-scale)
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
fleetsim=$(realpath "${FLEETSIM:-build/fleetsim}")
runs=${BENCH_RUNS:-3}
passes=${BENCH_PASSES:-5}
limit_s=${BENCH_TIMEOUT:-300}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. bench/lib.sh # median, machine, measure
export FLEETSIM_DATA=${FLEETSIM_DATA:-$PWD/models/data}

# run NAME POLICY SCENARIO: one timed run, its line appended to $tmp/rows.
run() {
    local quiet=-q
    [ "$1" = 1m ] && quiet= # its event count is in the summary on stdout
    rm -rf "$tmp/out"
    measure "$tmp/log" "$fleetsim" run "$3" --policy "$2" $quiet -o "$tmp/out"
    if [ "$status" = 124 ]; then
        echo "bench scale: $1 $2 timed out after $limit_s s (BENCH_TIMEOUT)" >&2
        exit 1
    elif [ "$status" != 0 ]; then
        echo "bench scale: $1 $2 failed:" >&2
        tail -3 "$tmp/log" >&2
        exit 1
    fi
    local events
    events=$(grep -o '([0-9]* events' "$tmp/log" | tr -dc 0-9)
    echo "$1 $2 $wall $rss_kib ${events:-0}" >> "$tmp/rows"
}
gen() { "$fleetsim" gen --jobs "$1" --gpus "$2" --seed 1 ${3:+--load "$3"} -o "$tmp/$1-$2-${3:-n}.json" > /dev/null; }
scen() { echo "$tmp/$1-$2-${3:-n}.json"; }
# stat NAME POLICY FIELD: the median of a field of its rows (3 wall, 4 KiB, 5 events).
stat() { awk -v n="$1" -v p="$2" -v f="$3" '$1 == n && $2 == p && $f != "n/a" { print $f }' "$tmp/rows" | median; }
# verdict V T: whether V <= T ("not measured" when V is n/a).
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v == "n/a" ? "not measured" : v <= t ? "met" : "**missed**") }'; }

echo "# fleetsim under overload and at scale"
echo
machine
for n in 50000 100000 200000; do gen $n 10000 175; done
gen 200000 10000; gen 1000 10000; gen 1000000 10000; gen 1000000 100000; gen 10000000 100000

for ((k = 0; k < passes; k++)); do
    for p in fifo las gavel-las ts-fifo gavel-fifo; do run ov100000 $p "$(scen 100000 10000 175)"; done
done
for p in best-fit spread fgd flux hetero; do
    for ((k = 0; k < runs; k++)); do run ov100000 $p "$(scen 100000 10000 175)"; done
done
for n in 50000 200000; do
    for p in fifo best-fit spread fgd flux hetero; do
        for ((k = 0; k < runs; k++)); do run ov$n $p "$(scen $n 10000 175)"; done
    done
done
for n in 200000 1000000; do
    for ((k = 0; k < runs; k++)); do run normal$n hetero "$(scen $n 10000)"; done
done
for ((k = 0; k < runs; k++)); do run 1k best-fit "$(scen 1000 10000)"; done
for ((k = 0; k < 5; k++)); do run 1m best-fit "$(scen 1000000 10000)"; done
for ((k = 0; k < runs; k++)); do run 1m100k fgd "$(scen 1000000 100000)"; done
for ((k = 0; k < runs; k++)); do run 10m best-fit "$(scen 10000000 100000)"; done

echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "## 175 % offered load, 100k jobs x 10k GPUs (median wall s; ratio to fifo)"
echo
echo "| policy | wall s | / fifo | per pass / fifo | target |"
echo "|---|---:|---:|---|---|"
fifo=$(stat ov100000 fifo 3)
for p in fifo best-fit spread fgd flux hetero las gavel-las ts-fifo gavel-fifo; do
    w=$(stat ov100000 $p 3)
    r=$(awk -v a="$w" -v b="$fifo" 'BEGIN { printf "%.2f", a / b }')
    case $p in
    las | gavel-las | ts-fifo | gavel-fifo)
        per=$(awk -v p=$p '$1 == "ov100000" && $2 == "fifo" { f[++nf] = $3 } $1 == "ov100000" && $2 == p { w[++nw] = $3 }
            END { for (i = 1; i <= nw; i++) printf "%s%.2f", (i > 1 ? ", " : ""), w[i] / f[i] }' "$tmp/rows") ;;
    *) per="" ;;
    esac
    target="<= 3x: $(verdict "$r" 3)"
    [ $p = best-fit ] && target="$target; <= 1.5 s: $(verdict "$w" 1.5)"
    [ $p = flux ] && target="$target; <= 2 s: $(verdict "$w" 2)"
    [ $p = fifo ] && target=""
    echo "| $p | $w | $r | $per | $target |"
done
echo
echo "## Growth from 50k to 200k jobs at 175 % (k of wall ~ jobs^k; target <= 1.1)"
echo
echo "| policy | 50k s | 200k s | k |"
echo "|---|---:|---:|---:|"
for p in fifo best-fit spread fgd flux hetero; do
    a=$(stat ov50000 $p 3) b=$(stat ov200000 $p 3)
    k=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", log(b / a) / log(4) }')
    echo "| $p | $a | $b | $k ($(verdict "$k" 1.1)) |"
done
echo
echo "## Scale"
echo
echo "| figure | measured | target |"
echo "|---|---:|---|"
h2=$(stat normal200000 hetero 3) h1=$(stat normal1000000 hetero 3)
echo "| hetero, default load, 200k jobs x 10k GPUs | $h2 s | <= 3 s: $(verdict "$h2" 3) |"
echo "| hetero, default load, 1M jobs x 10k GPUs | $h1 s | <= 20 s: $(verdict "$h1" 20) |"
w=$(stat 1m best-fit 3) kib=$(stat 1m best-fit 4) ev=$(stat 1m best-fit 5) small=$(stat 1k best-fit 4)
bpj=$(awk -v k="$kib" 'BEGIN { if (k == "n/a") print k; else printf "%.0f", k * 1024 / 1e6 }')
eps=$(awk -v e="$ev" -v w="$w" 'BEGIN { printf "%.2f", e / w / 1e6 }')
echo "| best-fit, 1M jobs x 10k GPUs (5 runs) | $w s | <= 3 s: $(verdict "$w" 3) |"
echo "| ... peak RSS per job | $bpj bytes ($kib KiB; a 1k-job run: $small KiB) | <= 160: $(verdict "$bpj" 160) |"
echo "| ... events per second ($ev events / wall) | ${eps}M | >= 1M: $(verdict 1 "$eps") |"
f=$(stat 1m100k fgd 3)
echo "| fgd, 1M jobs x 100k GPUs | $f s | <= 8 s: $(verdict "$f" 8) |"
w=$(stat 10m best-fit 3) kib=$(stat 10m best-fit 4)
gib=$(awk -v k="$kib" 'BEGIN { if (k == "n/a") print k; else printf "%.2f", k / 1048576 }')
echo "| best-fit, 10M jobs x 100k GPUs | $w s, $gib GiB | <= 30 s: $(verdict "$w" 30); <= 2 GiB: $(verdict "$gib" 2) |"
