#!/usr/bin/env bash
# tests/cli/run.sh - the command-line conventions (docs/cli.md): --json
# prints on stdout exactly the file the command wrote, and nothing else
# goes to stdout; --set edits the scenario as read; compare --seeds writes
# one comparison per seed and a summary whose figures are those of the
# per-seed comparisons.  Usage: FLEETSIM=build/fleetsim tests/cli/run.sh
set -uo pipefail
fleetsim=${FLEETSIM:-build/fleetsim}
case $fleetsim in */*) fleetsim=$(cd "$(dirname "$fleetsim")" && pwd)/$(basename "$fleetsim") ;; esac
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok    $*"; }
bad() { echo "FAIL  $*"; fail=1; }

# --json: stdout is the written file, byte for byte; without it stdout is empty.
check_json() { # NAME FILE ARGS...: run with --json, compare stdout with DIR/FILE
    local name=$1 file=$2
    shift 2
    if "$fleetsim" "$@" --json -q -o "$tmp/$name" >"$tmp/$name.out" 2>"$tmp/$name.err" &&
        cmp -s "$tmp/$name.out" "$tmp/$name/$file" && python3 -m json.tool "$tmp/$name.out" >/dev/null; then
        ok "$name --json prints $file ($(wc -c <"$tmp/$name.out") bytes of JSON)"
    else
        bad "$name --json: stdout differs from $file or is not JSON: $(head -c 300 "$tmp/$name.err")"
    fi
}
check_json run summary.json run tests/bad-input/valid.json
check_json plan plan.json plan tests/bad-input/valid.json --max-nodes 2
check_json sweep results.json sweep scenarios/sweep-example.json -j 2
"$fleetsim" run tests/bad-input/valid.json -q -o "$tmp/plain" >"$tmp/plain.out" 2>&1
[ ! -s "$tmp/plain.out" ] && ok "run without --json prints nothing on stdout" || bad "run printed on stdout without --json"

# --set: a number, a bare word (a string) and a JSON string, as if the file said them.
"$fleetsim" run tests/bad-input/valid.json --set 'fleet[0].nodes=1' --set scheduler.policy=fifo \
    --set 'name="edited"' --json -q -o "$tmp/set" >"$tmp/set.json" 2>"$tmp/set.err"
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["fleet"]["gpus"], d["policy"], d["scenario"])' "$tmp/set.json" 2>&1)
# valid.json: 2 nodes of 8 h100-sxm and 1 of 8 a100-sxm-80; one h100 node left: 16 GPUs.
[ "$got" = "16 fifo edited" ] && ok "--set edits nodes, policy and name ($got)" || bad "--set: got \"$got\", want \"16 fifo edited\""

# compare --seeds: seeds.json's per-seed figures are the per-seed compare.json's,
# and vs_baseline is the difference at the same seed.
if "$fleetsim" compare scenarios/default.json --policies fifo,flux --seeds 3,4 -j 2 -q --json \
    -o "$tmp/seeds" >"$tmp/seeds.out" 2>"$tmp/seeds.err"; then
    python3 - "$tmp/seeds" <<'PY' && ok "compare --seeds: seeds.json agrees with seed-3/ and seed-4/" || bad "compare --seeds: seeds.json disagrees"
import json, sys
d = sys.argv[1]
s = json.load(open(d + "/seeds.json"))
assert s["seeds"] == [3, 4], s["seeds"]
per = {seed: json.load(open(f"{d}/seed-{seed}/compare.json")) for seed in (3, 4)}
def runs(c):
    return c["runs"] if isinstance(c, dict) else c
for i, run in enumerate(s["runs"]):
    assert run["name"] == runs(per[3])[i]["name"], run["name"]
    for m in ("cost_month_usd", "wait_p95_s", "utilization", "jobs_completed"):
        want = [runs(per[seed])[i]["metrics"][m] for seed in (3, 4)]
        got = run["metrics"][m]["per_seed"]
        assert got == want, (run["name"], m, got, want)
        if i:
            base = [runs(per[seed])[0]["metrics"][m] for seed in (3, 4)]
            diff = run["metrics"][m]["vs_baseline"]["per_seed"]
            assert all(abs(g - (w - b)) <= 1e-9 * max(1, abs(w)) for g, w, b in zip(diff, want, base)), (m, diff)
PY
    cmp -s "$tmp/seeds.out" "$tmp/seeds/seeds.json" && ok "compare --seeds --json prints seeds.json" || bad "compare --seeds --json"
else
    bad "compare --seeds failed: $(head -c 300 "$tmp/seeds.err")"
fi

[ $fail = 0 ] && echo "cli: all passed" || echo "cli: FAILED"
exit $fail
