/* run.c - one scenario run (run.h). */
#include <math.h>

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

/* spec's scenario into r->sc.  RET: 0 or the loader's error. */
static int load(const struct run_spec *spec, struct run_result *r, struct fs_err *err)
{
    if (spec->sc) {
        r->sc = spec->sc;
        return 0;
    }
    struct scenario *sc = NULL;
    int rc = spec->tree ? scenario_load_tree(spec->tree, spec->path, &spec->so, &sc, err)
                        : scenario_load(spec->path, &spec->so, &sc, err);
    r->sc = sc;
    r->own_sc = true;
    return rc;
}

int run_scenario(const struct run_spec *spec, struct run_result *r, struct fs_err *err)
{
    *r = (struct run_result){0};
    int rc = load(spec, r, err);
    if (rc) {
        run_result_free(r);
        return rc;
    }
    r->s = sim_new(r->sc);
    r->m = metrics_new(r->s, spec->timeseries);
    sim_observe(r->s, metrics_observer(r->m));
    if (spec->timeline) { /* after the metrics: the timeline reads the power they keep */
        r->tl = timeline_new(r->s, spec->timeline, &r->m->en, spec->timeline_limit);
        sim_observe(r->s, timeline_observer(r->tl));
    }
    if (spec->check) {
        r->ck.m = r->m;
        sim_observe(r->s, check_observer(&r->ck));
    }
    r->s->progress = spec->progress;
    sim_run(r->s);
    r->interrupted = r->s->interrupted;
    if (!r->interrupted)
        run_stats_compute(r->s, r->m, &r->st);
    return 0;
}

void run_result_free(struct run_result *r)
{
    timeline_free(r->tl);
    metrics_free(r->m);
    sim_free(r->s);
    if (r->own_sc)
        scenario_free((struct scenario *)r->sc);
    *r = (struct run_result){0};
}

void run_metrics(const struct run_result *r, double v[RUN_NMETRICS])
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
