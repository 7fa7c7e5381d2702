#!/usr/bin/env bash
# tests/plugin/run.sh - the policy plugin ABI (docs/policy-plugins.md):
#  - `make install-headers` into a scratch prefix, then the example plugin
#    built by its own Makefile against that installed header;
#  - run, compare, regress and plan load it with --policy-lib, and
#    plugin-best-fit writes the same jobs.csv and timeseries.csv as the
#    built-in best-fit on the default scenario;
#  - a plugin built for another ABI version, a shared object that is no
#    plugin, one that registers a taken name and a missing file are
#    refused with a message naming the file (exit 65, 65, 65, 66).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
fleetsim=${FLEETSIM:-build/fleetsim}
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { echo "ok    $*"; pass=$((pass + 1)); }
bad() { echo "FAIL  $*"; fail=$((fail + 1)); }
plugin=examples/policy-plugin/best_fit_plugin.so

make -s install-headers DESTDIR="$tmp/inst" PREFIX=/usr >/dev/null &&
    [ -r "$tmp/inst/usr/include/fleetsim/policy.h" ] && ok "make install-headers: include/fleetsim/policy.h" ||
    bad "make install-headers"
rm -f "$plugin"
make -s -C examples/policy-plugin INCLUDEDIR="$tmp/inst/usr/include" >"$tmp/build.out" 2>&1 && [ -r "$plugin" ] &&
    ok "make -C examples/policy-plugin against the installed header" || { bad "the example plugin: $(cat "$tmp/build.out")"; }

"$fleetsim" run -q scenarios/default.json -o "$tmp/builtin" --policy best-fit
"$fleetsim" run -q --policy-lib "$plugin" scenarios/default.json -o "$tmp/plugin" --policy plugin-best-fit
rc=$?
if [ $rc = 0 ] && cmp -s "$tmp/builtin/jobs.csv" "$tmp/plugin/jobs.csv" &&
    cmp -s "$tmp/builtin/timeseries.csv" "$tmp/plugin/timeseries.csv" &&
    grep -q '"policy":.*"plugin-best-fit"' "$tmp/plugin/summary.json"; then
    ok "run --policy-lib: plugin-best-fit's jobs.csv ($(wc -l <"$tmp/plugin/jobs.csv") lines) and timeseries.csv are best-fit's, byte for byte"
else
    bad "run with the plugin: exit $rc, or outputs differ from best-fit's"
fi
# The policy's name in a scenario file works as well as --policy.
sed 's/"policy": "best-fit"/"policy": "plugin-best-fit"/' scenarios/default.json >"$tmp/scen.json"
"$fleetsim" run -q "$tmp/scen.json" --policy-lib="$plugin" -o "$tmp/byname" 2>"$tmp/err"
rc=$?
[ $rc = 0 ] && cmp -s "$tmp/builtin/jobs.csv" "$tmp/byname/jobs.csv" && ok "a scenario naming plugin-best-fit, --policy-lib=PATH" ||
    bad "scenario naming the plugin policy: exit $rc $(cat "$tmp/err")"

"$fleetsim" compare -q --policy-lib "$plugin" scenarios/default.json --policies best-fit,plugin-best-fit -o "$tmp/cmp" \
    >"$tmp/out" 2>&1
rc=$?
[ $rc = 0 ] && grep -q "plugin-best-fit" "$tmp/cmp/compare.json" && ok "compare --policy-lib: both policies compared" ||
    { bad "compare with the plugin: exit $rc"; tail -3 "$tmp/out"; }

mkdir "$tmp/suite"
cp scenarios/suite/mixed-best-fit.json "$tmp/suite/a.json"
"$fleetsim" regress -q --seeds 2 "$tmp/suite" --baseline "$tmp/base.json" --update 2>/dev/null
"$fleetsim" regress -q --policy-lib "$plugin" --policy plugin-best-fit "$tmp/suite" --baseline "$tmp/base.json" >"$tmp/out" 2>&1
rc=$?
[ $rc = 0 ] && grep -q "0 metrics worse, 0 better, 10 unchanged" "$tmp/out" &&
    ok "regress --policy-lib --policy plugin-best-fit against a best-fit baseline: every metric unchanged" ||
    { bad "regress with the plugin: exit $rc"; cat "$tmp/out"; }

"$fleetsim" plan --help | grep -q -- "--policy-lib" && ok "plan --help names --policy-lib" || bad "plan --help lacks --policy-lib"

# roadmap: the plugin's best-fit clone gives best-fit's roadmap, cost for cost.
rm_args=(roadmap -q scenarios/plan-example.json --types h100-sxm,a100-sxm-80 --max-nodes 3 --months 2 --growth 0.2 -j 2)
"$fleetsim" "${rm_args[@]}" -o "$tmp/rm-builtin" 2>"$tmp/err"
"$fleetsim" "${rm_args[@]}" --policy-lib "$plugin" --set scheduler.policy=plugin-best-fit -o "$tmp/rm-plugin" 2>>"$tmp/err"
rc=$?
cost() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["total_cost_usd"], [(m["cost_usd"]["total"], m["slo_margins"]) for m in d["months"]])' "$1" 2>&1; }
[ $rc = 0 ] && [ "$(cost "$tmp/rm-plugin/roadmap.json")" = "$(cost "$tmp/rm-builtin/roadmap.json")" ] &&
    ok "roadmap --policy-lib, the plugin's best-fit: the built-in best-fit's roadmap, costs and SLO margins" ||
    bad "roadmap with the plugin: exit $rc, $(cost "$tmp/rm-plugin/roadmap.json") vs $(cost "$tmp/rm-builtin/roadmap.json"); $(head -c 300 "$tmp/err")"

# Refusals.
cat >"$tmp/abi2.c" <<'EOF'
#include <fleetsim/policy.h>
const uint32_t fleetsim_plugin_abi = FLEETSIM_POLICY_ABI + 1;
int fleetsim_plugin_init(const struct fleetsim_host *h) { (void)h; return 0; }
EOF
cat >"$tmp/none.c" <<'EOF'
int not_a_plugin(void);
int not_a_plugin(void) { return 0; }
EOF
cat >"$tmp/taken.c" <<'EOF'
#include <fleetsim/policy.h>
const uint32_t fleetsim_plugin_abi = FLEETSIM_POLICY_ABI;
static const struct fleetsim_policy p = {.name = "best-fit"};
int fleetsim_plugin_init(const struct fleetsim_host *h) { return h->register_policy(&p); }
EOF
for f in abi2 none taken; do
    "$cc" -std=c11 -fPIC -shared -I"$tmp/inst/usr/include" -o "$tmp/$f.so" "$tmp/$f.c" || bad "cannot build $f.so"
done
refused() { # NAME EXIT MESSAGE ARGS...
    local name=$1 want=$2 msg=$3
    shift 3
    "$fleetsim" "$@" >"$tmp/out" 2>&1
    local rc=$?
    [ $rc = "$want" ] && grep -q -- "$msg" "$tmp/out" && ok "$name: exit $want, $(head -c 150 "$tmp/out")" ||
        { bad "$name: exit $rc"; cat "$tmp/out"; }
}
refused "another ABI version" 65 "abi2.so: built for policy ABI version 2; this fleetsim loads version 1" \
    run -q --policy-lib "$tmp/abi2.so" scenarios/default.json -o "$tmp/x"
refused "no plugin symbols" 65 "none.so: not a fleetsim policy plugin" \
    regress --policy-lib "$tmp/none.so" scenarios/suite --baseline scenarios/regress-baseline.json
refused "a taken name" 65 "taken.so: registers a name already taken: best-fit" \
    compare --policy-lib "$tmp/taken.so" scenarios/default.json -o "$tmp/x"
refused "a missing plugin" 66 "no-such.so: cannot open" plan --policy-lib "$tmp/no-such.so" scenarios/plan-example.json
refused "no value" 64 "option --policy-lib needs a value" run scenarios/default.json --policy-lib
[ ! -e "$tmp/x" ] && ok "nothing written by a refused run" || bad "a refused run wrote $tmp/x"

echo "plugin: $pass passed, $fail failed"
[ $fail = 0 ]
