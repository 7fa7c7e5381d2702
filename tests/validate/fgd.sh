#!/usr/bin/env bash
# tests/validate/fgd.sh - reproduce the headline result of the FGD paper
# (Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads
# with Fragmentation Gradient Descent", USENIX ATC '23, Fig. 9a): the six
# policies x 10 seeds (42-51) filling the Alibaba openb cluster
# (openb_node_list_gpu_node.csv, 1213 nodes, 6212 GPUs) with
# openb_pod_list_default.csv until 130 % of its GPU capacity has arrived.
#
# Checks the median unallocated GPU % over the seeds:
#   at 100 % arrived, within 1.0 point of the published median;
#   at 90 % arrived, within 0.5 point of 10.0 (15.0 for random);
#   and the published order random > dotprod > gpu-clustering >
#   gpu-packing > best-fit > fgd at 100 %.
# Prints the table and the wall time; exits 1 on a miss, 0 when it passes
# or when the traces are absent (skipped, with a message).
#
# Usage: FLEETSIM=build/fleetsim tests/validate/fgd.sh [OUTDIR]
# TRACES (default ../shared/traces) names the traces folder.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
fleetsim=${FLEETSIM:-build/fleetsim}
traces=${TRACES:-../shared/traces}
openb=$traces/alibaba-openb
nodes=$openb/openb_node_list_gpu_node.csv
pods=$openb/openb_pod_list_default.csv

if [ ! -r "$nodes" ] || [ ! -r "$pods" ]; then
    echo "validate fgd: SKIPPED - $nodes or $pods not found (set TRACES to the traces folder)"
    [ "${FLEETSIM_REQUIRE_TRACES:-}" = 1 ] && { echo "validate fgd: FAILED - FLEETSIM_REQUIRE_TRACES=1 and the traces are missing"; exit 1; }
    exit 0
fi

out=${1:-}
if [ -z "$out" ]; then
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
fi

# policy, published median unallocated % at 100 % arrived, expected at 90 %.
# The paper's BestFit is fleetsim's best-fit-share (best-fit is the replay
# policy that counts whole GPUs only).
published="random 13.75 15.0
dotprod 9.45 10.0
gpu-clustering 8.42 10.0
gpu-packing 8.20 10.0
best-fit-share 7.09 10.0
fgd 4.77 10.0"

start=$(date +%s.%N)
if ! "$fleetsim" fill --nodes "$nodes" --pods "$pods" --policy all --seeds 42-51 -o "$out" -q; then
    echo "validate fgd: FAILED - fleetsim fill did not run"
    exit 1
fi
end=$(date +%s.%N)

awk -v published="$published" -v start="$start" -v end="$end" -F, '
BEGIN {
    n = split(published, rows, "\n")
    for (i = 1; i <= n; i++) {
        split(rows[i], f, " ")
        name[i] = f[1]; pub100[f[1]] = f[2]; pub90[f[1]] = f[3]
    }
}
NR > 1 && $2 == 100 { ours100[$1] = $3 }
NR > 1 && $2 == 90 { ours90[$1] = $3 }
END {
    fail = 0
    printf "FGD paper, Fig. 9a: median unallocated GPU %% over seeds 42-51 (openb default trace)\n\n"
    printf "%-16s %8s %9s %7s   %8s %9s %7s\n", "policy", "@100 %", "published", "diff", \
           "@90 %", "expected", "diff"
    for (i = 1; i <= n; i++) {
        p = name[i]
        if (!(p in ours100) || !(p in ours90)) {
            printf "%-16s missing from the output\n", p
            fail = 1
            continue
        }
        d100 = ours100[p] - pub100[p]; d90 = ours90[p] - pub90[p]
        m100 = (d100 > 1.0 || d100 < -1.0) ? " MISS" : ""
        m90 = (d90 > 0.5 || d90 < -0.5) ? " MISS" : ""
        if (m100 != "" || m90 != "")
            fail = 1
        printf "%-16s %8.2f %9.2f %+7.2f%s   %8.2f %9.2f %+7.2f%s\n", p, ours100[p], pub100[p], \
               d100, m100, ours90[p], pub90[p], d90, m90
    }
    order = "ok"
    for (i = 2; i <= n; i++)
        if (!(ours100[name[i - 1]] > ours100[name[i]])) {
            order = "MISS (" name[i - 1] " <= " name[i] ")"
            fail = 1
        }
    printf "\ntolerance: 1.0 point at 100 %%, 0.5 point at 90 %%; order at 100 %%: %s\n", order
    printf "wall time: %.1f s for %d policies x 10 seeds\n", end - start, n
    printf "validate fgd: %s\n", fail ? "FAILED" : "passed"
    exit fail
}' "$out/fill-median.csv"
