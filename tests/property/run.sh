#!/usr/bin/env bash
# tests/property/run.sh - properties every run must have, on random small
# scenarios, read from jobs.csv alone (never from --check or the engine):
#
#   - no over-allocation: at every instant the GPUs of the jobs running on
#     each GPU type sum to at most the fleet's GPUs of that type (a sweep
#     over the jobs' [start, end) intervals; a job still running at the end
#     runs to the window's end);
#   - submit <= start <= end, and wait_s = start - submit >= 0,
#     jct_s = end - submit, run_s = end - start (these policies never
#     preempt, so a job runs in one piece);
#   - the counts in summary.json (submitted, completed, running, queued,
#     not submitted) are the counts of jobs.csv's states, and its mean and
#     max wait are jobs.csv's (a job never started waits until the window
#     ends, as docs/architecture.md defines waits).
#
# Scenario k (k = 1..CASES, default 30) is drawn from a seeded generator:
# `fleetsim gen` with 10..400 jobs on 8..160 GPUs, one of ten policies that
# never preempt, and every third case cut by a horizon inside the arrivals
# (so some jobs are left running, queued or not submitted).  The same k
# always gives the same scenario; a failure names it, with the command that
# reproduces it.
#
# Tolerance: times in jobs.csv have 6 decimals, so sums and differences of
# them are compared to 2e-6 s (mean wait: 2e-6 s relative to the largest).
#
# Usage: FLEETSIM=build/fleetsim [CASES=30] tests/property/run.sh
set -uo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
tl_need property
cases=${CASES:-30}
export FLEETSIM_GNUPLOT=/nonexistent
tl_tmp shm

policies=(fifo best-fit spread random dotprod gpu-packing gpu-clustering fgd hetero hetero-watt)
RANDOM=17 # bash's generator, seeded: the same cases every time
# Run every case, then check them all in one python3 (its start-up is
# most of the time a case would take).
: >"$tmp/cases"
for k in $(seq "$cases"); do
    jobs=$((10 + RANDOM % 391)) gpus=$((8 + RANDOM % 153)) seed=$((1 + RANDOM))
    policy=${policies[$((RANDOM % ${#policies[@]}))]}
    set_horizon=()
    [ $((k % 3)) = 0 ] && set_horizon=(--set "horizon_s=$((600 + RANDOM * 4))")
    what="case $k: gen --jobs $jobs --gpus $gpus --seed $seed --policy $policy; run ${set_horizon[*]}"
    d=$tmp/c$k
    if "$fleetsim" gen --jobs "$jobs" --gpus "$gpus" --seed "$seed" --policy "$policy" -o "$d.json" 2>"$tmp/err" &&
        "$fleetsim" run -q "$d.json" "${set_horizon[@]}" -o "$d" 2>>"$tmp/err"; then
        printf '%s\t%s\n' "$what" "$d" >>"$tmp/cases"
    else
        printf '%s\t\n' "$what: fleetsim failed: $(head -c 300 "$tmp/err" | tr '\n\t' '  ')" >>"$tmp/cases"
    fi
done
python3 - "$tmp/cases" "$cases" <<'PY'
import csv, json, sys

def check(what, scen, jobs_csv, summary):
    fleet = json.load(open(scen))["fleet"]
    cap = {}
    for g in fleet:
        cap[g["gpu"]] = cap.get(g["gpu"], 0) + g["nodes"] * g["gpus_per_node"]
    s = json.load(open(summary))
    window = s["window_s"]
    rows = list(csv.DictReader(open(jobs_csv)))
    bad = []
    num = lambda v: float(v) if v != "" else None
    counts = {"completed": 0, "running": 0, "queued": 0, "not_submitted": 0}
    events = []
    waits = []
    for r in rows:
        st = r["state"]
        counts[st] = counts.get(st, 0) + 1
        sub, start, end = num(r["submit_s"]), num(r["start_s"]), num(r["end_s"])
        if st == "not_submitted":
            if start is not None:
                bad.append(f"job {r['id']}: not submitted but started")
            continue
        if start is None:
            waits.append(window - sub)
            continue
        if start < sub - 2e-6:
            bad.append(f"job {r['id']}: starts at {start} before its submit {sub}")
        if abs(num(r["wait_s"]) - (start - sub)) > 2e-6 or num(r["wait_s"]) < 0:
            bad.append(f"job {r['id']}: wait_s {r['wait_s']} is not start - submit = {start - sub}")
        waits.append(start - sub)
        if end is None:
            if st != "running":
                bad.append(f"job {r['id']}: no end, state {st}")
            end = window
        else:
            if end < start - 2e-6:
                bad.append(f"job {r['id']}: ends at {end} before its start {start}")
            if abs(num(r["run_s"]) - (end - start)) > 2e-6:
                bad.append(f"job {r['id']}: run_s {r['run_s']} is not end - start = {end - start} (preempted?)")
            if abs(num(r["jct_s"]) - (end - sub)) > 2e-6:
                bad.append(f"job {r['id']}: jct_s {r['jct_s']} is not end - submit = {end - sub}")
        t = r["gpu_type"]
        if t not in cap:
            bad.append(f"job {r['id']}: gpu_type {t!r} is not in the fleet")
            continue
        g = int(r["gpus"])
        events.append((end, 0, t, -g))   # at equal times a release comes first
        events.append((start, 1, t, g))
    use = {t: 0 for t in cap}
    peak = {t: 0 for t in cap}
    for time, _, t, g in sorted(events):
        use[t] += g
        peak[t] = max(peak[t], use[t])
        if use[t] > cap[t]:
            bad.append(f"{t}: {use[t]} GPUs in use at {time} s, the fleet has {cap[t]}")
            break
    j = s["jobs"]
    for key in ("completed", "running", "queued", "not_submitted"):
        if j[key] != counts.get(key, 0):
            bad.append(f"summary.json jobs.{key} = {j[key]}, jobs.csv has {counts.get(key, 0)}")
    if j["total"] != len(rows) or j["submitted"] != len(rows) - counts["not_submitted"]:
        bad.append(f"summary.json jobs.total/submitted = {j['total']}/{j['submitted']}, jobs.csv has {len(rows)} rows")
    w = s["wait_s"]
    if waits:
        mean, mx = sum(waits) / len(waits), max(waits)
        if w["jobs"] != len(waits) or abs(w["mean"] - mean) > 2e-6 * max(1, mx) or abs(w["max"] - mx) > 2e-6:
            bad.append(f"summary.json wait_s {w} vs jobs.csv: {len(waits)} jobs, mean {mean}, max {mx}")
    if bad:
        print(f"FAIL  {what}: " + "; ".join(bad[:3]))
        return False
    print(f"ok    {what}: {len(rows)} jobs, peak " + ", ".join(f"{peak[t]}/{cap[t]} {t}" for t in cap if peak[t]))
    return True


ok = 0
for line in open(sys.argv[1]):
    what, d = line.rstrip("\n").split("\t")
    if not d:
        print(f"FAIL  {what}")
        continue
    ok += check(what, d + ".json", d + "/jobs.csv", d + "/summary.json")
n = int(sys.argv[2])
print(f"property: {ok} passed, {n - ok} failed")
sys.exit(ok != n)
PY
