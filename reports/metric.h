/* metric.h - the one table of the figures a run is judged by: its name
 * (the key in every output), unit, direction, default regress tolerance,
 * how it moves as nodes are added (the planner's pruning), a one-line
 * definition and its getter from struct run_result.
 *
 * summary.json ("metrics"), compare.json, sweep's results.csv and
 * results.json, regress and its baseline, plan's SLOs and plan.json all
 * read this table, so a new metric is one row of METRIC_ROWS; its getter
 * is the row's last field, an expression over r (const struct run_result *).
 *
 * A getter returns NAN where the figure is undefined (a cost without a
 * price): JSON writes null, CSV an empty cell, regress compares null with
 * null as unchanged.
 */
#ifndef FS_REPORTS_METRIC_H
#define FS_REPORTS_METRIC_H

#include "result.h"

/* X(ID, name, unit, better, rel, abs, trend, definition, getter)
 *   better  +1 higher is better, -1 lower is better, 0 neither (a count of
 *           the input);
 *   rel, abs  regress tolerance max(rel x |baseline|, abs); both 0: not
 *           gated by regress (reported in the other outputs only);
 *   trend   how it moves, in expectation, as nodes are added: -1 falls,
 *           +1 rises, 0 either way (the planner does not prune on it). */
#define METRIC_ROWS(X) \
    X(UTILIZATION, "utilization", "fraction", +1, 0.005, 1e-4, -1, \
      "GPU time allocated / (fleet GPUs x window)", \
      r->st.utilization) \
    X(JOBS_COMPLETED, "jobs_completed", "jobs", +1, 0, 0.5, 0, \
      "batch jobs finished within the window", \
      (double)r->st.completed) \
    X(WAIT_MEAN, "wait_mean_s", "s", -1, 0.02, 60, -1, \
      "mean wait over every submitted job: start - submit, or end - submit (a lower bound) for one not started", \
      r->st.wait_mean) \
    X(WAIT_P95, "wait_p95_s", "s", -1, 0.02, 60, -1, \
      "95th percentile of the same waits (linear between order statistics)", \
      r->st.wait_p95) \
    X(JCT_MEAN, "jct_mean_s", "s", -1, 0.02, 60, 0, \
      "mean end - submit over completed jobs", \
      r->st.jct_mean) \
    X(ENERGY_KWH, "energy_kwh", "kWh", -1, 0.01, 0.1, 0, \
      "facility energy over the window: wall energy x PUE", \
      r->st.energy_kwh) \
    X(PSU_PEAK, "psu_peak_pct", "%", -1, 0.01, 0.1, 0, \
      "highest load of any node's usable PSU capacity", \
      100 * r->st.psu_peak) \
    X(COST_MONTH, "cost_month_usd", "USD", -1, 0, 0, 0, \
      "cost per 730-h month under the scenario's billing (capacity and energy)", \
      r->cost.ok ? r->cost.month_usd : NAN) \
    X(COST_PER_GPU_H, "cost_per_gpu_hour_usd", "USD", -1, 0.01, 1e-4, 0, \
      "cost of the window per completed reference GPU-hour", \
      r->cost.ok && r->cost.usd_per_gpu_h > 0 ? r->cost.usd_per_gpu_h : NAN) \
    X(SLO, "slo_attainment", "fraction", +1, 0.001, 1e-4, +1, \
      "inference services' tokens served / demanded; 1 without services", \
      r->st.slo_attainment) \
    X(LATENCY, "latency_attainment", "fraction", +1, 0.001, 1e-4, +1, \
      "inference services' seconds their latency objective held / seconds with demand (each stretch of constant demand and replicas: p-th percentile TTFT from the M/M/c wait, TPOT and mean latency against the service's slo targets; models/service.h); 1 without services", \
      r->st.latency_attainment) \
    X(JOBS_NOT_STARTED, "jobs_not_started", "jobs", -1, 0, 0, -1, \
      "submitted jobs that never started within the window", \
      (double)r->st.not_started) \
    X(COST_WINDOW, "cost_window_usd", "USD", -1, 0, 0, 0, \
      "cost of the simulated window under the scenario's billing", \
      r->cost.ok ? r->cost.window_usd : NAN) \
    X(IDLE_MONTH, "idle_month_usd", "USD", -1, 0, 0, 0, \
      "the part of the monthly capacity cost paid for unallocated GPU time", \
      r->cost.ok ? r->cost.idle_month_usd : NAN) \
    X(GPUS, "gpus", "GPUs", 0, 0, 0, 0, \
      "GPUs in the fleet", \
      (double)r->s->cl->gpus) \
    X(JOBS, "jobs", "jobs", 0, 0, 0, 0, \
      "batch jobs in the workload, submitted within the window or not; services' replica slots are not jobs (each service is reported on its own)", \
      (double)r->s->sc->nbatch) \
    X(COMPLETED_GPU_H, "completed_gpu_hours", "GPU-h", +1, 0, 0, 0, \
      "reference GPU-hours of the jobs completed", \
      r->cost.completed_gpu_h) \
    X(SERVICE_DOWNTIME, "service_downtime_s", "s", -1, 0, 0, 0, \
      "seconds a service had demand and no replica ready, summed over services", \
      r->st.svc_down_s) \
    X(EVICTIONS, "evictions", "jobs", -1, 0, 0, 0, \
      "preemptions and fault interruptions", \
      (double)r->st.evictions) \
    X(MIGRATIONS, "migrations", "jobs", -1, 0, 0, 0, \
      "moves for consolidation or maintenance", \
      (double)r->st.migrations) \
    X(LOST_GPU_H, "lost_gpu_hours", "GPU-h", -1, 0, 0, 0, \
      "GPU-hours of work lost to evictions and restarts", \
      r->st.lost_gpu_h)

enum metric_id {
#define METRIC_ID(id, ...) METRIC_##id,
    METRIC_ROWS(METRIC_ID)
#undef METRIC_ID
    METRIC_SHIPPED  /* the rows above; metric_count may hold more */
};

/* Room for every row, in fixed-size records (sweep results go through
 * pipes and MPI as bytes). */
enum { METRIC_MAX = 32 };

struct metric_def {
    const char *name, *unit;
    int better;
    double rel, abs;
    int trend;
    const char *definition;
    double (*get)(const struct run_result *r);
};

/* The table, metric_count rows: the shipped ones in enum metric_id order,
 * then (in the test build, FS_METRIC_TEST_ROW) a test-only row. */
extern const struct metric_def metric_table[];
extern const int metric_count;

/* RET: the row named name, its index in *k; NULL when none. */
const struct metric_def *metric_find(const char *name, int *k);

/* Every row's value for r into v (metric_count of them). */
void metric_values(const struct run_result *r, double v[METRIC_MAX]);

/* Whether regress gates on row k (a tolerance is set). */
static inline int metric_gated(const struct metric_def *d) { return d->rel > 0 || d->abs > 0; }

#endif
