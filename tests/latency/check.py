"""tests/latency/check.py SCENARIO TMP - recompute the latency SLO
attainment of tests/latency/diurnal.json from its timeseries and compare it
with every output (tests/latency/run.sh wrote them under TMP).

The definition (docs/models.md, "Latency objective"): on each stretch of
constant demand and ready replicas, the replicas' batch slots are an M/M/c
queue with c = slots, mu = capacity / (slots x output_tokens) requests/s per
slot, lambda = demand / output_tokens; the objective holds when the queue
is stable, the p-th percentile TTFT (the wait quantile ln(C / (1 - p)) /
(c mu - lambda), 0 when C <= 1 - p, plus the replica's no-queue TTFT) is
at most ttft_s, and TPOT = slots / capacity is at most tpot_s.
latency_attainment = seconds met / seconds with demand.

Tolerances: the timeseries prints demand, capacity and slots to 1e-6;
a row is only judged when its TTFT is not within 1e-6 relative of the
target (none of this scenario's rows is), so rounding cannot flip it.
Seconds compare to 1e-6 s (printed to the microsecond), fractions to 1e-9,
token sums to 1e-6 relative (rows printed to 1e-3 tokens); the CLI prints
percentages to 2 decimals, so it is compared to 0.005 percentage points.
"""
import csv
import json
import math
import re
import sys

scen_path, tmp = sys.argv[1], sys.argv[2]
scen = json.load(open(scen_path))
fails = []


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        fails.append(what)


def log_erlang_c(a, c):
    """log P(wait > 0) of M/M/c at offered load a < c, from the textbook
    formula with every term a^k / k! in log space (log-sum-exp)."""
    terms = [k * math.log(a) - math.lgamma(k + 1) for k in range(c)]
    last = c * math.log(a) - math.lgamma(c + 1) + math.log(c / (c - a))
    top = max(terms + [last])
    denom = sum(math.exp(t - top) for t in terms) + math.exp(last - top)
    return last - top - math.log(denom)


def met_row(spec, out_tokens, ttft0, demand, capacity, slots, percentile=None):
    """(met, ttft_p) for one constant stretch (at the spec's percentile
    unless one is given)."""
    slo = spec["slo"]
    c = round(slots)
    if c < 1 or demand >= capacity:
        return False, math.inf
    lam = demand / out_tokens
    mu = capacity / (slots * out_tokens)
    p = (percentile or slo.get("ttft_percentile", 99)) / 100
    logc = log_erlang_c(lam / mu, c)
    wait = 0.0 if logc <= math.log(1 - p) else (logc - math.log(1 - p)) / (c * mu - lam)
    ttft = wait + ttft0
    ok = ttft <= slo["ttft_s"] and slots / capacity <= slo["tpot_s"] * (1 + 1e-9)
    return ok, ttft


summary = json.load(open(f"{tmp}/run/summary.json"))
rows = list(csv.DictReader(open(f"{tmp}/run/timeseries.csv")))
fixed = scen["services"][0]
assert fixed["name"] == "fixed"
svc = {s["name"]: s for s in summary["services"]}
ttft0 = svc["fixed"]["replica_by_type"]["h100-sxm"]["ttft_s"]
out_tokens = fixed.get("request", {}).get("output_tokens", 211)

met_s = active_s = within = 0.0
row_errors = 0
kinds = {"met": 0, "ttft": 0, "overload": 0, "p90 would meet": 0}
for r in rows:
    d = float(r["svc_demand_fixed"])
    cap = float(r["svc_capacity_fixed"])
    slots = float(r["svc_slots_fixed"])
    width = float(r["interval_s"])
    # Every row of "fixed" is one constant stretch: two replicas throughout
    # (min = max) and demand steps of 15 minutes, the row width.
    assert abs(slots - round(slots)) < 1e-6 and d > 0
    ok, ttft = met_row(fixed, out_tokens, ttft0, d, cap, slots)
    assert not math.isfinite(ttft) or abs(ttft - fixed["slo"]["ttft_s"]) > 1e-6 * fixed["slo"]["ttft_s"]
    want = width if ok else 0.0
    if abs(want - float(r["svc_met_s_fixed"])) > 1e-6:
        row_errors += 1
        print(f"      row {r['time_s']}: recomputed met {want} s (p99 TTFT {ttft:.4g} s), "
              f"timeseries {r['svc_met_s_fixed']}")
    kinds["met" if ok else "overload" if d >= cap else "ttft"] += 1
    # Rows where the percentile decides: the p90 TTFT would meet the target.
    kinds["p90 would meet"] += not ok and met_row(fixed, out_tokens, ttft0, d, cap, slots, 90)[0]
    active_s += width
    met_s += want
    within += d * width if ok else 0.0

check(row_errors == 0, f"fixed: every one of {len(rows)} rows recomputed ({kinds})")
check(kinds["met"] > 0 and kinds["ttft"] > 0 and kinds["overload"] > 0 and kinds["p90 would meet"] > 0,
      "fixed: met part of the time, missed both on the TTFT percentile with a stable queue (some rows only "
      "at p99: the percentile matters) and in overload")
att = met_s / active_s
check(abs(svc["fixed"]["latency_attainment"] - att) < 1e-9,
      f"fixed: summary.json latency_attainment {svc['fixed']['latency_attainment']} = recomputed {att}")
check(abs(svc["fixed"]["tokens_within_slo"] - within) <= 1e-6 * within,
      f"fixed: summary.json tokens_within_slo {svc['fixed']['tokens_within_slo']:.6g} = recomputed {within:.6g}")

# Over both services, from the timeseries columns (the "scaled" service
# autoscales, so its rows are sums over several stretches).
met_all = active_all = 0.0
for name in svc:
    m = sum(float(r[f"svc_met_s_{name}"]) for r in rows)
    a = sum(float(r[f"svc_active_s_{name}"]) for r in rows)
    check(abs(m - svc[name]["latency_met_s"]) < 1e-6 * len(rows) and abs(a - svc[name]["demand_s"]) < 1e-6 * len(rows),
          f"{name}: timeseries met {m:.6f} s of {a:.6f} s = summary.json's")
    met_all += m
    active_all += a
total = met_all / active_all
check(0 < total < 1, f"latency_attainment over both services {total:.6f}: missed part of the time")

got = summary["metrics"]["latency_attainment"]
check(abs(got - total) < 1e-9, f"summary.json metrics.latency_attainment {got} = timeseries {total}")

cmp = json.load(open(f"{tmp}/cmp/compare.json"))
fifo = [x for x in cmp if x["policy"] == "fifo"][0]
check(abs(fifo["metrics"]["latency_attainment"] - total) < 1e-9,
      f"compare.json fifo metrics.latency_attainment {fifo['metrics']['latency_attainment']}")
report = open(f"{tmp}/cmp/report.md").read()
header = [l for l in report.splitlines() if l.startswith("| Run | GPUs |")][0].split("|")
col = [c.strip() for c in header].index("latency SLO met (%)")
fifo_row = [l for l in report.splitlines() if l.startswith("| fifo |")][0].split("|")
check(abs(float(fifo_row[col]) - 100 * total) <= 0.005,
      f"compare report: its own column 'latency SLO met (%)' = {fifo_row[col].strip()}")

plan = json.load(open(f"{tmp}/plan/plan.json"))
pv = plan["chosen"]["metrics"]["per_seed"][0]["latency_attainment"]
check(abs(pv - total) < 1e-9, f"plan.json chosen per_seed latency_attainment {pv}")
check(plan["chosen"]["slo_margins"][0]["slo"] == "latency_attainment>=0.8", "plan.json names the SLO")

cli = open(f"{tmp}/cli.txt").read()
m = re.search(r"latency SLOs met ([0-9.]+) % of the time", cli)
check(m is not None and abs(float(m.group(1)) - 100 * total) <= 0.005,
      f"CLI: latency SLOs met {m.group(1) if m else '?'} % of the time")
m = re.search(r"service +fixed: .*met ([0-9.]+) % of the time, ([0-9.]+) % of tokens served within it", cli)
check(m is not None and abs(float(m.group(1)) - 100 * att) <= 0.005,
      f"CLI: fixed met {m.group(1) if m else '?'} % of the time")

sys.exit(1 if fails else 0)
