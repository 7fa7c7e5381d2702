#!/usr/bin/env bash
# bench/scaling.sh - the scaling curve from make bench's results.csv: wall
# seconds and peak RSS against jobs, one line per (policy, fleet size,
# offered load: the default 87.5 % or the overload rows' 175 %).
# Writes DIR/scaling.dat (gnuplot blocks) and DIR/scaling.png when gnuplot
# exists.  Usage: bench/scaling.sh [bench/out]
set -euo pipefail
dir=${1:-bench/out}
csv=$dir/results.csv
[ -r "$csv" ] || { echo "scaling: $csv not found (run make bench)" >&2; exit 1; }
# One block per (policy, GPUs, load), sorted by jobs; blocks two blank lines
# apart.  The overload rows (175 % offered load) are their own curves.
awk -F, '($1 == "replay" || $1 == "overload") && $2 ~ /^gen / && $7 != "" {
             print $3, $5, ($1 == "overload" ? "175%" : "87.5%"), $4, $7, $12 }' "$csv" |
    sort -k1,1 -k2,2n -k3,3 -k4,4n |
    awk 'BEGIN { key = "" }
         { k = $1 " " $2 " " $3
           if (k != key) { if (key != "") printf "\n\n"; printf "\"%s, %s GPUs, load %s\" wall rss\n", $1, $2, $3; key = k }
           print $4, $5, $6 }' >"$dir/scaling.dat"
blocks=$(grep -c '^"' "$dir/scaling.dat")
if ! command -v gnuplot >/dev/null; then
    echo "scaling: gnuplot not found; data in $dir/scaling.dat" >&2
    exit 0
fi
gnuplot <<GP
set terminal pngcairo size 1100,800 font 'sans,10' noenhanced
set output '$dir/scaling.png'
set key outside right top
set logscale xy
set grid
set xlabel 'jobs'
set multiplot layout 2,1 title 'fleetsim scaling (make bench, medians)'
set ylabel 'wall seconds'
plot for [i=0:$((blocks - 1))] '$dir/scaling.dat' index i using 1:2 with linespoints title columnhead(1)
set ylabel 'peak RSS (MiB)'
plot for [i=0:$((blocks - 1))] '$dir/scaling.dat' index i using 1:3 with linespoints title columnhead(1)
unset multiplot
GP
echo "scaling: wrote $dir/scaling.png" >&2
