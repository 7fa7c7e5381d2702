#!/usr/bin/env bash
# tests/live/run.sh - `make live-check`: fleetsim's FGD behind a real
# kube-scheduler, side by side with the FGD authors' own plugins.
#
# The peer (../shared/peers/kubernetes-scheduler-simulator-8f3d641.tar.gz,
# "simon") runs the upstream kube-scheduler v1.20 scheduling cycle in
# process.  For each slice of the Alibaba openb trace - every 6th GPU node
# (203 nodes, 1016 GPUs) with every 8th pod (1019 pods) of
# openb_pod_list_default.csv, and of the GPU-share-heavy
# openb_pod_list_gpushare100.csv - converted with the peer's own tools
# (data/pod_csv_to_yaml.py, scripts/generate_config_and_run.py: FGD 1000,
# GPU selection FGD, share dimension, max norm, workload tuned to 130 % of
# capacity with seed 42, shuffled pods), this runs
#   (a) simon with its FGD score plugin, and
#   (b) the same with `fleetsim serve --policy fgd` as its scheduler
#       extender (filter and prioritize; the extender filters to its one
#       chosen node, so kube-scheduler's own scoring does not decide),
# then `fleetsim fill --policy fgd --seeds 42-51` on the same slice, and
# checks:
#   - every pod that reached the extender got exactly one filter decision,
#     no call failed (no "Error selecting node"), and each pod the
#     extender placed is the one simon bound, on the node it chose;
#   - the allocation at 100 % arrived (allocated % of GPU capacity, the
#     fill experiment's bin) of (a) and (b) differ by no more than the
#     seed-to-seed spread (max - min) of fill over seeds 42-51, and fill's
#     median lies within that spread of both.
# It prints the three figures per slice, the call counts and the
# extender's latency per call (p50/p99, body read to reply built).
#
# Needs Go (golang-go), python3 with pandas and PyYAML, the peer tarball
# and ../shared/traces/alibaba-openb; skips, saying so, when any is
# missing (tools/install-deps.sh --with-live installs the packages).
#
# Usage: FLEETSIM=build/fleetsim tests/live/run.sh [WORKDIR]  (default
# build/live; the peer is built once per tarball and Go version, and its
# binary kept in ~/.cache/fleetsim, or FLEETSIM_CACHE, for the next clone)
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
fleetsim=${FLEETSIM:-build/fleetsim}
case $fleetsim in
*/*) fleetsim=$(cd "$(dirname "$fleetsim")" && pwd)/$(basename "$fleetsim") ;;
esac
work=${1:-$root/build/live}
peer_tar=${PEER_TAR:-$root/../shared/peers/kubernetes-scheduler-simulator-8f3d641.tar.gz}
traces=${TRACES:-$root/../shared/traces/alibaba-openb}
seed=${LIVE_SEED:-42}
# Debian's python3 (a python3 earlier on PATH may lack pandas).
python=${PYTHON:-$( [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || command -v python3)}

skip() {
    echo "live-check: SKIPPED - $*"
    exit 0
}
[ -x "$fleetsim" ] || { echo "live-check: $fleetsim is not an executable (set FLEETSIM)" >&2; exit 2; }
command -v go >/dev/null 2>&1 || skip "no Go toolchain (tools/install-deps.sh --with-live installs golang-go)"
[ -r "$peer_tar" ] || skip "the peer simulator $peer_tar is absent"
[ -r "$traces/openb_node_list_gpu_node.csv" ] || skip "the openb trace is absent from $traces"
[ -n "$python" ] && "$python" -c 'import pandas, yaml' 2>/dev/null ||
    skip "no python3 with pandas and PyYAML (tools/install-deps.sh --with-live installs them)"

mkdir -p "$work"
work=$(cd "$work" && pwd)   # the steps below run in other folders
peer=$work/kubernetes-scheduler-simulator
simon=$peer/bin/simon
# Build the peer once per tarball and Go version (offline: its Go modules
# are vendored).  The binary is also kept in a cache outside the checkout
# (FLEETSIM_CACHE, default ~/.cache/fleetsim), so a fresh clone on the same
# machine - CI's - does not spend minutes rebuilding it.
stamp="$(cksum <"$peer_tar" | cut -d' ' -f1)-$(go env GOVERSION 2>/dev/null)"
cache=${FLEETSIM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/fleetsim}/live/simon-$stamp
if [ ! -x "$simon" ] || [ "$(cat "$work/peer.stamp" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$peer"
    tar xzf "$peer_tar" -C "$work" || skip "cannot unpack $peer_tar"
    mkdir -p "$peer/bin"
    if [ -x "$cache" ] && cp "$cache" "$simon"; then
        echo "live-check: the peer simulator from the cache $cache"
    else
        echo "live-check: building the peer simulator (a few minutes) ..."
        if ! (cd "$peer" && GOFLAGS=-mod=vendor GOPROXY=off go build -o bin/simon ./cmd) \
            >"$work/peer-build.log" 2>&1; then
            tail -5 "$work/peer-build.log"
            skip "the peer simulator does not build with this Go ($(go version)); see $work/peer-build.log"
        fi
        mkdir -p "$(dirname "$cache")" && cp "$simon" "$cache.tmp" && mv "$cache.tmp" "$cache" ||
            echo "live-check: could not keep the peer in the cache $cache (it will be rebuilt next time)"
    fi
    echo "$stamp" >"$work/peer.stamp"
fi

fail=0
bad() {
    echo "live-check: FAIL: $*"
    fail=1
}
srv=
cleanup() { [ -n "$srv" ] && kill -KILL "$srv" 2>/dev/null; }
trap cleanup EXIT

# alloc_at_100 LOG: allocated % of GPU capacity at 100 % arrived, from
# simon's per-pod "[Alloc]" lines, binned as fleetsim fill bins (the mean
# over the pods whose arrived % rounds to 100).
alloc_at_100() {
    sed -n 's/.*Used GPU Milli: \([0-9]*\); Total GPUs: \([0-9]*\); Arrived GPU Milli: \([0-9]*\).*/\1 \2 \3/p' "$1" |
        awk '{ a = $3 / ($2 * 10); x = int(a + 0.5); if (x == 100) { s += $1 / ($2 * 10); n++ } }
             END { if (n) printf "%.2f\n", s / n; else print "nan" }'
}

# The p-th percentile of column micros of the call log.
pct() {
    awk -F, 'NR > 1 { print $7 }' "$1" | sort -n | awk -v p="$2" '{ v[NR] = $1 } END { i = int((NR - 1) * p / 100 + 0.5) + 1; print v[i] }'
}

summary=$work/summary.txt
: >"$summary"
for name in default gpushare100; do
    dir=$work/$name
    rm -rf "$dir"
    mkdir -p "$dir"
    # The slice: every 6th GPU node, every 8th pod.
    awk -F, 'NR == 1 || (NR - 2) % 6 == 0' "$traces/openb_node_list_gpu_node.csv" >"$dir/nodes.csv"
    awk -F, 'NR == 1 || (NR - 2) % 8 == 0' "$traces/openb_pod_list_$name.csv" >"$dir/pods.csv"
    mkdir -p "$dir/cluster"
    (cd "$dir/cluster" && "$python" "$peer/data/pod_csv_to_yaml.py" ../pods.csv >/dev/null) || { bad "$name: pod_csv_to_yaml.py failed"; continue; }
    mv "$dir/cluster/pods/pods.yaml" "$dir/cluster/pods.yaml" && rmdir "$dir/cluster/pods"
    "$python" - "$dir/nodes.csv" "$peer/data/node_yaml/openb_node_list_gpu_node.yaml" "$dir/cluster/nodes.yaml" <<'PY' || { bad "$name: node slice failed"; continue; }
import sys, yaml
names = {l.split(',')[0] for l in open(sys.argv[1]).read().splitlines()[1:] if l}
docs = [d for d in yaml.safe_load_all(open(sys.argv[2])) if d and d['metadata']['name'] in names]
assert len(docs) == len(names), (len(docs), len(names))
yaml.dump_all(docs, open(sys.argv[3], 'w'))
PY
    (cd "$peer" && "$python" scripts/generate_config_and_run.py -d "$dir/a" -f "$dir/cluster" -FGD 1000 -gpusel FGD \
        -dimext share -norm max -tune 1.3 -tuneseed "$seed" --shuffle-pod=true >/dev/null) || { bad "$name: config"; continue; }
    mkdir -p "$dir/b"
    cp "$dir"/a/cc_*.yaml "$dir/b/cc.yaml"
    mv "$dir"/a/cc_*.yaml "$dir/a/cc.yaml"
    mv "$dir"/a/sc_*.yaml "$dir/a/sc.yaml"

    "$fleetsim" serve --listen 127.0.0.1:0 --policy fgd --workload "$dir/pods.csv" --log "$dir/b/calls.csv" 2>"$dir/b/serve.err" &
    srv=$!
    port=
    for _ in $(seq 200); do
        port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$dir/b/serve.err")
        [ -n "$port" ] && break
        sleep 0.05
    done
    [ -n "$port" ] || { bad "$name: fleetsim serve did not start: $(cat "$dir/b/serve.err")"; continue; }
    "$python" - "$dir/a/sc.yaml" "$dir/b/sc.yaml" "$port" <<'PY'
import sys, yaml
sc = yaml.safe_load(open(sys.argv[1]))
sc['extenders'] = [{'urlPrefix': 'http://127.0.0.1:%s' % sys.argv[3], 'filterVerb': 'filter',
                    'prioritizeVerb': 'prioritize', 'weight': 100000, 'nodeCacheCapable': False,
                    'httpTimeout': '5s', 'ignorable': False}]
yaml.dump(sc, open(sys.argv[2], 'w'))
PY
    echo "live-check: $name: $(($(wc -l <"$dir/pods.csv") - 1)) pods on $(($(wc -l <"$dir/nodes.csv") - 1)) nodes: simon (a) FGD and (b) fleetsim serve, in parallel ..."
    pids=()
    for run in a b; do
        (cd "$peer" && exec ./bin/simon apply --extended-resources gpu -f "$dir/$run/cc.yaml" \
            --default-scheduler-config "$dir/$run/sc.yaml" >"$dir/$run/simon.log" 2>&1) &
        pids+=($!)
    done
    wait "${pids[@]}"   # simon exits 0 even when pods fail; the logs say
    kill -TERM "$srv"
    wait "$srv" || bad "$name: fleetsim serve exited $? on SIGTERM"
    srv=

    "$fleetsim" fill --nodes "$dir/nodes.csv" --pods "$dir/pods.csv" --policy fgd --seeds 42-51 -o "$dir/fill" -q ||
        { bad "$name: fleetsim fill failed"; continue; }
    fa=$(alloc_at_100 "$dir/a/simon.log")
    fb=$(alloc_at_100 "$dir/b/simon.log")
    read -r fmed fmin fmax < <(awk -F, '$1 == "fgd" && $3 == 100 { print $4 }' "$dir/fill/fill.csv" | sort -g |
        awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f %.2f %.2f\n", m, v[1], v[NR] }')
    spread=$(awk -v a="$fmin" -v b="$fmax" 'BEGIN { printf "%.2f", b - a }')

    # Calls against pods.
    attempted=$(grep -c 'attempt to create pod' "$dir/b/simon.log")
    bound=$(grep -c 'is scheduled to node' "$dir/b/simon.log")
    failed=$(grep -c 'failed to schedule pod' "$dir/b/simon.log")
    errors=$(grep -c 'Error selecting node' "$dir/b/simon.log")
    filters=$(awk -F, '$2 == "filter"' "$dir/b/calls.csv" | wc -l)
    prios=$(awk -F, '$2 == "prioritize"' "$dir/b/calls.csv" | wc -l)
    placed=$(awk -F, '$2 == "filter" && $4 == "placed"' "$dir/b/calls.csv" | wc -l)
    noroom=$(awk -F, '$2 == "filter" && $4 == "no_room"' "$dir/b/calls.csv" | wc -l)
    twice=$(awk -F, '$2 == "filter" { n[$3]++ } END { for (p in n) if (n[p] > 1) c++; print c + 0 }' "$dir/b/calls.csv")
    badreq=$(awk -F, 'NR > 1 && $5 != 200' "$dir/b/calls.csv" | wc -l)
    # Each binding simon made is the extender's choice: pod -> node pairs.
    sed -n 's/.*pod(\([^)]*\)) is scheduled to node(\([^)]*\)).*/\1,\2/p' "$dir/b/simon.log" | sort >"$dir/b/bound.txt"
    awk -F, '$2 == "filter" && $4 == "placed" { print $3 "," $6 }' "$dir/b/calls.csv" | sort >"$dir/b/placed.txt"
    differ=$(comm -3 "$dir/b/bound.txt" "$dir/b/placed.txt" | wc -l)
    p50=$(pct "$dir/b/calls.csv" 50)
    p99=$(pct "$dir/b/calls.csv" 99)

    [ "$attempted" -gt 0 ] || bad "$name: (b) attempted no pod"
    [ "$errors" = 0 ] || bad "$name: $errors extender calls failed (Error selecting node)"
    [ "$twice" = 0 ] || bad "$name: $twice pods got more than one filter decision"
    [ "$badreq" = 0 ] || bad "$name: $badreq calls were answered with an error status"
    [ "$differ" = 0 ] || bad "$name: $differ bindings differ from the extender's decisions"
    [ $((bound + failed)) = "$attempted" ] || bad "$name: $attempted pods attempted but $bound bound + $failed failed"
    awk -v a="$fa" -v b="$fb" -v s="$spread" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= s) }' ||
        bad "$name: (a) $fa % and (b) $fb % differ by more than fill's seed spread $spread"
    for x in "$fa" "$fb"; do
        awk -v a="$x" -v m="$fmed" -v s="$spread" 'BEGIN { d = a - m; if (d < 0) d = -d; exit !(d <= s) }' ||
            bad "$name: fill's median $fmed % is more than the spread $spread from $x %"
    done
    {
        echo "$name: $(($(wc -l <"$dir/pods.csv") - 1)) pods (+ clones to 130 %: $attempted arrived) on $(($(wc -l <"$dir/nodes.csv") - 1)) nodes"
        echo "  allocated % at 100 % arrived: (a) simon FGD $fa | (b) simon + fleetsim serve $fb | fleetsim fill median $fmed (seeds 42-51: $fmin..$fmax, spread $spread)"
        echo "  calls: $filters filter + $prios prioritize for $attempted pods ($placed placed, $noroom no room; $((attempted - filters)) never reached the extender); $bound bound, $failed failed, $errors call errors"
        echo "  extender latency per call (body read to reply built): p50 $p50 us, p99 $p99 us"
    } | tee -a "$summary"
done
if [ "$fail" = 0 ]; then echo "live-check: passed (summary in $summary)"; else echo "live-check: FAILED"; fi
exit "$fail"
