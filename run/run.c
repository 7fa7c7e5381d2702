/* run.c - a scenario run in memory for its figures (run.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../base/json.h"
#include "../reports/costing.h"
#include "run.h"

const char *const run_metric_names[RUN_NMETRICS] = {
    [RUN_UTILIZATION] = "utilization",
    [RUN_JOBS_COMPLETED] = "jobs_completed",
    [RUN_WAIT_MEAN] = "wait_mean_s",
    [RUN_WAIT_P95] = "wait_p95_s",
    [RUN_JCT_MEAN] = "jct_mean_s",
    [RUN_ENERGY_KWH] = "energy_kwh",
    [RUN_PSU_PEAK] = "psu_peak_pct",
    [RUN_COST_MONTH] = "cost_month_usd",
    [RUN_COST_PER_GPU_H] = "cost_per_gpu_hour_usd",
    [RUN_SLO] = "slo_attainment",
};

int run_sim_run_tree(const cJSON *root, const char *path, const struct scenario_options *so,
                     struct run_sim *r, struct fs_err *err)
{
    *r = (struct run_sim){0};
    int rc = scenario_load_tree(root, path, so, &r->sc, err);
    if (rc)
        return rc;
    r->s = sim_new(r->sc);
    r->m = metrics_new(r->s, NULL);
    sim_observe(r->s, metrics_observer(r->m));
    sim_run(r->s);
    run_stats_compute(r->s, r->m, &r->st);
    return 0;
}

int run_sim_run(const char *path, const struct scenario_options *so, struct run_sim *r,
                struct fs_err *err)
{
    cJSON *root = NULL;
    *r = (struct run_sim){0};
    int rc = json_load_file(path, &root, err);
    if (rc == 0)
        rc = run_sim_run_tree(root, path, so, r, err);
    cJSON_Delete(root);
    return rc;
}

void run_sim_metrics(const struct run_sim *r, double v[RUN_NMETRICS])
{
    const struct metrics *m = r->m;
    const struct run_stats *st = &r->st;
    struct fleet_cost fc;
    fleet_cost_compute(r->s, m, r->sc->cost.billing, r->sc->cost.commit, &fc);
    double peak = 0;
    for (int32_t n = 0; n < m->en.nnodes; n++)
        peak = fmax(peak, 100 * m->en.psu[n].peak);
    v[RUN_UTILIZATION] = st->utilization;
    v[RUN_JOBS_COMPLETED] = (double)st->completed;
    v[RUN_WAIT_MEAN] = st->wait_mean;
    v[RUN_WAIT_P95] = st->wait_p95;
    v[RUN_JCT_MEAN] = st->jct_mean;
    v[RUN_ENERGY_KWH] = m->en.wall_j * r->sc->pue / 3.6e6;
    v[RUN_PSU_PEAK] = peak;
    v[RUN_COST_MONTH] = fc.ok ? fc.month_usd : 0;
    v[RUN_COST_PER_GPU_H] = fc.ok ? fc.usd_per_gpu_h : 0;
    v[RUN_SLO] = st->slo_attainment;
}

void run_sim_free(struct run_sim *r)
{
    metrics_free(r->m);
    sim_free(r->s);
    scenario_free(r->sc);
    *r = (struct run_sim){0};
}
