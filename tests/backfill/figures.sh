#!/usr/bin/env bash
# tests/backfill/figures.sh - the figures of docs/backfill.md: the HPC2N and
# NASA iPSC/860 SWF logs of ../shared/traces/swf replayed under fifo and
# backfill on their own machines (240 and 128 processors, as one-GPU
# nodes), with wait and bounded slowdown per policy, and the commit and
# command that made them.  Prints a Markdown table; about a minute.
#
# Usage: FLEETSIM=build/fleetsim tests/backfill/figures.sh   (make backfill-figures)
# TRACES (default ../shared/traces) names the traces folder.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
fleetsim=${FLEETSIM:-build/fleetsim}
traces=${TRACES:-../shared/traces}
hpc2n=$traces/swf/hpc2n_alea_first3171.swf
nasa_zip=$traces/swf/NASA-iPSC-1993-3.1-cln.swf.zip
if [ ! -r "$hpc2n" ] || [ ! -r "$nasa_zip" ] || ! command -v python3 >/dev/null; then
    echo "backfill figures: SKIPPED - $hpc2n, $nasa_zip or python3 not found"; exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$nasa_zip" "$tmp"

echo "Commit $(git describe --always --dirty 2>/dev/null || echo unknown), \`make backfill-figures\`."
echo
echo "| log | policy | jobs | mean wait (h) | p50 wait (h) | p95 wait (h) | mean bounded slowdown | p95 bounded slowdown | makespan (days) |"
echo "|---|---|---|---|---|---|---|---|---|"
hpc2n=$(realpath "$hpc2n")
# The NASA log's submit times are its start times (its header says so): it
# holds no queueing.  Halving them (twice the load) makes a queue.
awk '/^;/ { print; next } { $2 = int($2 / 2); print }' "$tmp/NASA-iPSC-1993-3.1-cln.swf" > "$tmp/nasa-x2.swf"
for spec in "HPC2N:$hpc2n:240" "NASA iPSC/860:$tmp/NASA-iPSC-1993-3.1-cln.swf:128" \
            "NASA iPSC/860, submit times halved:$tmp/nasa-x2.swf:128"; do
    IFS=: read -r name log procs <<< "$spec"
    for policy in fifo backfill; do
        cat > "$tmp/s.json" <<JSON
{"name": "swf", "seed": 1,
 "fleet": [{"gpu": "a100-sxm-80", "nodes": $procs, "gpus_per_node": 1}],
 "workload": {"trace": "$log", "format": "swf"},
 "scheduler": {"policy": "$policy"}}
JSON
        "$fleetsim" run "$tmp/s.json" -q -o "$tmp/out"
        # Bounded slowdown (Feitelson et al. 1997): (wait + run) / max(run,
        # 10 s), at least 1.
        python3 - "$name" "$policy" "$tmp/out/jobs.csv" <<'PY'
import csv, sys
name, policy, path = sys.argv[1:4]
rows = list(csv.DictReader(open(path)))
wait = sorted(float(r["wait_s"]) / 3600 for r in rows)
bsld = sorted(max(1.0, (float(r["wait_s"]) + float(r["run_s"])) / max(float(r["run_s"]), 10.0))
              for r in rows)
q = lambda x, p: x[min(len(x) - 1, int(p * (len(x) - 1) + 0.5))]
span = max(float(r["end_s"]) for r in rows) / 86400
print("| %s | `%s` | %d | %.3f | %.2f | %.2f | %.2f | %.2f | %.2f |" % (
    name, policy, len(rows), sum(wait) / len(wait), q(wait, 0.5), q(wait, 0.95),
    sum(bsld) / len(bsld), q(bsld, 0.95), span))
PY
    done
done
# What the HPC2N log itself records (its field 3, under its Maui
# scheduler), over the jobs fleetsim replays (run time and processors
# known, at most MaxProcs 240).
python3 - "$hpc2n" <<'PY'
import sys
w, b = [], []
for line in open(sys.argv[1]):
    v = line.split()
    if not v or v[0].startswith(";"):
        continue
    run, procs = float(v[3]), int(v[4]) if int(v[4]) > 0 else int(v[7])
    if float(v[1]) < 0 or run <= 0 or procs <= 0 or procs > 240 or float(v[2]) < 0:
        continue
    w.append(float(v[2]) / 3600)
    b.append(max(1.0, (float(v[2]) + run) / max(run, 10.0)))
w.sort(); b.sort()
q = lambda x, p: x[min(len(x) - 1, int(p * (len(x) - 1) + 0.5))]
print("| HPC2N | as logged (Maui) | %d | %.3f | %.2f | %.2f | %.2f | %.2f | |" % (
    len(w), sum(w) / len(w), q(w, 0.5), q(w, 0.95), sum(b) / len(b), q(b, 0.95)))
PY
