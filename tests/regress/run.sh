#!/usr/bin/env bash
# tests/regress/run.sh - fleetsim regress as a CI gate (docs/regress.md):
#  - the shipped suite passes against the shipped baseline, with the same
#    verdicts however the suite's path is spelled;
#  - a worse policy (fifo for best-fit: strict order queues more) fails
#    with significant regressions, also on a fresh seed set; best-fit on
#    that seed set passes;
#  - a scenario not in the baseline, one only in it, and one skipped
#    (its trace absent) fail, the skipped one not with --allow-skip; a
#    renamed file is judged against its old entry and said so;
#  - tolerance overrides in the baseline take effect and survive --update;
#  - a malformed or gutted baseline exits 65 naming the place;
#  - --json is one JSON document and --junit a JUnit XML file whose
#    structure python3's XML parser checks: counts, and each failing
#    metric with its baseline, now and interval.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
fleetsim=${FLEETSIM:-build/fleetsim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { echo "ok    $*"; pass=$((pass + 1)); }
bad() { echo "FAIL  $*"; fail=$((fail + 1)); }
# The suite has scenarios over ../shared/traces: without it they skip.
# CI sets FLEETSIM_REQUIRE_TRACES=1 where it is present: a skip then fails.
allow=(--allow-skip)
[ "${FLEETSIM_REQUIRE_TRACES:-}" = 1 ] && allow=()
[ -d ../shared/traces ] || echo "note: ../shared/traces is absent: the suite's trace scenarios are skipped"

# One verdict per scenario and metric, from --json, for comparing runs.
verdicts() {
    python3 -c 'import json, sys
d = json.load(sys.stdin)
print(d["verdict"], d["exit"])
for c in d["scenarios"]:
    print(c["key"], c["status"], *[m["metric"] + "=" + m["verdict"] for m in c["metrics"]])'
}

i=0
for spelling in ./scenarios/suite scenarios/suite/ "$(pwd)/scenarios/suite"; do
    i=$((i + 1))
    "$fleetsim" regress -q -j2 "${allow[@]}" --json "$spelling" --baseline scenarios/regress-baseline.json \
        >"$tmp/spell$i.json" 2>"$tmp/err"
    rc=$?
    verdicts <"$tmp/spell$i.json" >"$tmp/spell$i" || bad "--json of $spelling does not parse"
    [ $rc = 0 ] && ok "shipped suite as $spelling: exit 0" || { bad "shipped suite as $spelling: exit $rc"; cat "$tmp/err" "$tmp/spell$i"; }
done
n=$(grep -c " ran " "$tmp/spell1")
if cmp -s "$tmp/spell1" "$tmp/spell2" && cmp -s "$tmp/spell1" "$tmp/spell3" && [ "$n" -ge 18 ] &&
    ! grep -q "not in" "$tmp/spell1"; then
    ok "three spellings of the suite: identical verdicts on $n scenarios, none missing"
else
    bad "the spellings disagree or miss scenarios"; diff "$tmp/spell1" "$tmp/spell3" | head
fi
# The JSON always carries "skipped" as a count: read it, not the word.
if [ "${FLEETSIM_REQUIRE_TRACES:-}" = 1 ] &&
    ! python3 -c 'import json, sys; sys.exit(json.load(sys.stdin)["counts"]["skipped"] != 0)' <"$tmp/spell1.json"; then
    bad "FLEETSIM_REQUIRE_TRACES=1 but the suite skipped a scenario"
fi

mkdir "$tmp/suite"
cp scenarios/suite/mixed-best-fit.json "$tmp/suite/a.json"
"$fleetsim" regress -q -j2 "$tmp/suite" --baseline "$tmp/base.json" --update 2>/dev/null
rc=$?
[ $rc = 0 ] && [ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["seeds"])' "$tmp/base.json")" = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]" ] &&
    ok "--update writes a baseline of seeds 1..10" || bad "--update: exit $rc"
"$fleetsim" regress -q "$tmp/suite" --baseline "$tmp/base.json" >"$tmp/out" 2>&1
rc=$?
[ $rc = 0 ] && grep -q "0 metrics worse, 0 better, 10 unchanged" "$tmp/out" && ok "same seeds: exit 0, every metric unchanged" ||
    { bad "unchanged suite: exit $rc"; cat "$tmp/out"; }
"$fleetsim" regress -q --first-seed 500 "$tmp/suite" --baseline "$tmp/base.json" >"$tmp/out" 2>&1
rc=$?
[ $rc = 0 ] && grep -q "seeds 500..509 against the baseline's 1..10" "$tmp/out" &&
    ok "best-fit on fresh seeds 500..509: exit 0" || { bad "fresh seeds: exit $rc"; cat "$tmp/out"; }

# The deliberate regression: the same scenario under a worse policy, on
# the baseline's seeds and on a fresh set.
sed 's/"policy": "best-fit"/"policy": "fifo"/' scenarios/suite/mixed-best-fit.json >"$tmp/suite/a.json"
for first in "" 500; do
    "$fleetsim" regress -j2 "$tmp/suite" --baseline "$tmp/base.json" ${first:+--first-seed $first} \
        --junit "$tmp/junit.xml" >"$tmp/out" 2>&1
    rc=$?
    if [ $rc = 1 ] && grep -Eq "^a.json +wait_mean_s .*\[\+[0-9.]+%, \+[0-9.]+%\] .* WORSE" "$tmp/out"; then
        ok "fifo for best-fit${first:+ on seeds from $first}: exit 1, wait_mean_s WORSE with an interval above 0"
    else
        bad "worse policy${first:+ on seeds from $first}: exit $rc"
        cat "$tmp/out"
    fi
done

# The JUnit file of the last run, against the common JUnit XML structure
# (testsuites > testsuite > testcase, with failure/skipped children).
if python3 - "$tmp/junit.xml" >"$tmp/junit.out" 2>&1 <<'EOF'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
total = fails = 0
for ts in root:
    assert ts.tag == "testsuite", ts.tag
    for a in ("name", "tests", "failures", "errors", "skipped"):
        assert a in ts.attrib, "testsuite lacks " + a
    cases = ts.findall("testcase")
    assert [c.tag for c in ts] == ["properties"] + ["testcase"] * len(cases)
    f = sum(len(c.findall("failure")) for c in cases)
    assert int(ts.get("tests")) == len(cases) and int(ts.get("failures")) == f, ts.attrib
    total += len(cases); fails += f
    for c in cases:
        assert c.get("classname") and c.get("name")
        for x in c:
            assert x.tag in ("failure", "skipped", "system-out"), x.tag
            if x.tag == "failure":
                m = x.get("message")
                for word in ("baseline", "now", "interval", "tolerance"):
                    assert word in m, (word, m)
assert int(root.get("tests")) == total and int(root.get("failures")) == fails
wait = [c for c in root.iter("testcase") if c.get("name") == "wait_mean_s"][0]
assert wait.find("failure") is not None, "wait_mean_s is not a failure"
print(total, "testcases,", fails, "failures:", wait.find("failure").get("message"))
EOF
then
    ok "--junit: valid structure, counts agree, failures name baseline, now, interval: $(cat "$tmp/junit.out")"
else
    bad "--junit: $(cat "$tmp/junit.out")"
fi

# Per-scenario tolerance override: waits may grow 100-fold in a.json.
python3 - "$tmp/base.json" <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))
b["scenarios"]["a.json"]["tolerances"] = {m: {"rel": 100} for m in
    ("wait_mean_s", "wait_p95_s", "jct_mean_s", "utilization", "jobs_completed", "cost_per_gpu_hour_usd")}
json.dump(b, open(sys.argv[1], "w"))
EOF
"$fleetsim" regress -q "$tmp/suite" --baseline "$tmp/base.json" >"$tmp/out" 2>&1
rc=$?
[ $rc = 0 ] && grep -q "0 metrics worse" "$tmp/out" && ok "a per-scenario tolerance override lets fifo pass" ||
    { bad "override: exit $rc"; cat "$tmp/out"; }
cp scenarios/suite/mixed-best-fit.json "$tmp/suite/a.json"
"$fleetsim" regress -q -j2 "$tmp/suite" --baseline "$tmp/base.json" --update 2>/dev/null
grep -q '"rel":	100' "$tmp/base.json" && ok "--update keeps the tolerance overrides" || bad "--update dropped the overrides"

# A renamed file is judged against its old entry; a new one and a gone
# one fail.
mv "$tmp/suite/a.json" "$tmp/suite/renamed.json"
"$fleetsim" regress -q "$tmp/suite" --baseline "$tmp/base.json" >"$tmp/out" 2>&1
rc=$?
[ $rc = 0 ] && grep -q "renamed.json .*RENAMED from a.json" "$tmp/out" && ok "renamed scenario: reported, judged, exit 0" ||
    { bad "renamed: exit $rc"; cat "$tmp/out"; }
cp scenarios/suite/mixed-fifo.json "$tmp/suite/b.json"
"$fleetsim" regress -q "$tmp/suite" --baseline "$tmp/base.json" >"$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "b.json .*NOT IN BASELINE" "$tmp/out" && ok "scenario not in the baseline: exit 1" ||
    bad "missing scenario: exit $rc"
rm "$tmp/suite/b.json" "$tmp/suite/renamed.json"
cp scenarios/suite/mixed-fifo.json "$tmp/suite/b.json"
"$fleetsim" regress -q "$tmp/suite" --baseline "$tmp/base.json" >"$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "a.json .*NOT IN SUITE" "$tmp/out" && ok "scenario only in the baseline: exit 1" ||
    { bad "gone scenario: exit $rc"; cat "$tmp/out"; }

# A skipped scenario (its trace absent) fails unless --allow-skip.
mkdir "$tmp/skip"
cp scenarios/suite/mixed-best-fit.json "$tmp/skip/a.json"
sed 's|"trace": "[^"]*"|"trace": "no-such-trace.csv"|' scenarios/suite/philly-trace.json >"$tmp/skip/t.json"
"$fleetsim" regress -q --seeds 2 --allow-skip "$tmp/skip" --baseline "$tmp/skip.json" --update 2>/dev/null
"$fleetsim" regress -q "$tmp/skip" --baseline "$tmp/skip.json" >"$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "t.json .*SKIPPED: .*no-such-trace.csv" "$tmp/out" && ok "skipped scenario: exit 1, names the trace" ||
    { bad "skipped: exit $rc"; cat "$tmp/out"; }
"$fleetsim" regress -q --allow-skip "$tmp/skip" --baseline "$tmp/skip.json" >"$tmp/out" 2>&1
rc=$?
[ $rc = 0 ] && ok "skipped scenario with --allow-skip: exit 0" || { bad "--allow-skip: exit $rc"; cat "$tmp/out"; }

# Malformed or gutted baselines: exit 65, naming the place.
check65() { # NAME PYTHON-EDIT EXPECTED-MESSAGE
    python3 -c "import json, sys
b = json.load(open(sys.argv[1]))
$2
json.dump(b, open(sys.argv[2], 'w'))" "$tmp/skip.json" "$tmp/broken.json"
    "$fleetsim" regress -q "$tmp/skip" --baseline "$tmp/broken.json" >"$tmp/out" 2>&1
    local rc=$?
    [ $rc = 65 ] && grep -q -- "$3" "$tmp/out" && ok "$1: exit 65, \"$(grep -o -- "$3.*" "$tmp/out" | head -c 90)\"" ||
        { bad "$1: exit $rc"; cat "$tmp/out"; }
}
check65 "gutted baseline" 'b["scenarios"] = {}' 'scenarios: empty'
check65 "metric removed" 'del b["scenarios"]["a.json"]["metrics"]["wait_p95_s"]' 'metrics.wait_p95_s: missing'
check65 "one seed short" 'b["scenarios"]["a.json"]["metrics"]["utilization"].pop()' 'an array of 2 values'
check65 "a string value" 'b["scenarios"]["a.json"]["metrics"]["energy_kwh"][0] = "7"' 'expected finite numbers'
check65 "no seeds" 'b["seeds"] = []' 'seeds: expected 1 to'
check65 "format 1" 'b["fleetsim_regress"] = 1' 'format 1, this fleetsim reads format 2'
check65 "unknown metric override" 'b["tolerances"] = {"wait_p96_s": {"rel": 0.1}}' 'wait_p96_s: no such metric'
check65 "bad direction" 'b["tolerances"] = {"gpus": {"abs": 1, "better": 0}}' 'better: expected -1'
check65 "gated without a direction" 'b["tolerances"] = {"gpus": {"abs": 1}}' 'gating gpus needs "better"'
head -c 300 "$tmp/skip.json" >"$tmp/broken.json"
"$fleetsim" regress -q "$tmp/skip" --baseline "$tmp/broken.json" >"$tmp/out" 2>&1
rc=$?
[ $rc = 65 ] && grep -q "malformed JSON" "$tmp/out" && ok "truncated baseline: exit 65" || bad "truncated: exit $rc"

# The CI examples parse as YAML, run the gate with --junit and publish it.
if python3 -c 'import yaml' 2>/dev/null; then
    if python3 - >"$tmp/ci.out" 2>&1 <<'EOF'
import yaml
gh = yaml.safe_load(open("examples/ci/github-actions.yml"))
steps = gh["jobs"]["regress"]["steps"]
run = " ".join(s.get("run", "") for s in steps)
assert "fleetsim regress" in run and "--junit regress.xml" in run, run
assert any(s.get("with", {}).get("report_paths") == "regress.xml" for s in steps)
gl = yaml.safe_load(open("examples/ci/gitlab-ci.yml"))["regress"]
assert any("--junit regress.xml" in l for l in gl["script"]), gl["script"]
assert gl["artifacts"]["reports"]["junit"] == "regress.xml" and gl["artifacts"]["when"] == "always"
EOF
    then ok "examples/ci: both parse, run the gate with --junit and publish regress.xml"
    else bad "examples/ci: $(cat "$tmp/ci.out")"; fi
else
    echo "skip  examples/ci: no PyYAML to parse them"
fi

# docs/regress.md quotes --help verbatim.
if diff <("$fleetsim" regress --help) <(sed -n '/^\$ fleetsim regress --help$/,/^```$/p' docs/regress.md | sed '1d;$d') \
    >"$tmp/help.diff"; then
    ok "docs/regress.md quotes regress --help as it is"
else
    bad "docs/regress.md's --help block differs: $(cat "$tmp/help.diff")"
fi

echo "regress: $pass passed, $fail failed"
[ $fail = 0 ]
