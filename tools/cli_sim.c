/* cli_sim.c - what several subcommands do alike: read --seed, and run a
 * scenario in memory for its figures (compare, regress, sweep). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../base/json.h"
#include "../reports/costing.h"
#include "cli.h"

const char *const cli_metric_names[CLI_NMETRICS] = {
    [CLI_UTILIZATION] = "utilization",
    [CLI_JOBS_COMPLETED] = "jobs_completed",
    [CLI_WAIT_MEAN] = "wait_mean_s",
    [CLI_WAIT_P95] = "wait_p95_s",
    [CLI_JCT_MEAN] = "jct_mean_s",
    [CLI_ENERGY_KWH] = "energy_kwh",
    [CLI_PSU_PEAK] = "psu_peak_pct",
    [CLI_COST_MONTH] = "cost_month_usd",
    [CLI_COST_PER_GPU_H] = "cost_per_gpu_hour_usd",
    [CLI_SLO] = "slo_attainment",
};

int cli_parse_output(const char *cmd, const char *arg, const char **out)
{
    if (!*arg) {
        fprintf(stderr, "fleetsim: %s: -o \"\": the output path is empty\n", cmd);
        return 64;
    }
    *out = arg;
    return 0;
}

int cli_parse_seed(const char *arg, struct scenario_options *so)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 10);
    if (errno || *end || arg[0] < '0' || arg[0] > '9') {
        fprintf(stderr, "fleetsim: --seed: \"%s\" is not a non-negative integer\n", arg);
        return 64;
    }
    if (v > FS_SEED_MAX) {
        fprintf(stderr, "fleetsim: --seed: %s is out of range [0, 2^53 = %llu]\n", arg,
                (unsigned long long)FS_SEED_MAX);
        return 64;
    }
    so->has_seed = true;
    so->seed = v;
    return 0;
}

int cli_sim_run_tree(const cJSON *root, const char *path, const struct scenario_options *so,
                     struct cli_sim *r, struct fs_err *err)
{
    *r = (struct cli_sim){0};
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

int cli_sim_run(const char *path, const struct scenario_options *so, struct cli_sim *r,
                struct fs_err *err)
{
    cJSON *root = NULL;
    *r = (struct cli_sim){0};
    int rc = json_load_file(path, &root, err);
    if (rc == 0)
        rc = cli_sim_run_tree(root, path, so, r, err);
    cJSON_Delete(root);
    return rc;
}

void cli_sim_metrics(const struct cli_sim *r, double v[CLI_NMETRICS])
{
    const struct metrics *m = r->m;
    const struct run_stats *st = &r->st;
    struct fleet_cost fc;
    fleet_cost_compute(r->s, m, r->sc->cost.billing, r->sc->cost.commit, &fc);
    double peak = 0;
    for (int32_t n = 0; n < m->en.nnodes; n++)
        peak = fmax(peak, 100 * m->en.psu[n].peak);
    v[CLI_UTILIZATION] = st->utilization;
    v[CLI_JOBS_COMPLETED] = (double)st->completed;
    v[CLI_WAIT_MEAN] = st->wait_mean;
    v[CLI_WAIT_P95] = st->wait_p95;
    v[CLI_JCT_MEAN] = st->jct_mean;
    v[CLI_ENERGY_KWH] = m->en.wall_j * r->sc->pue / 3.6e6;
    v[CLI_PSU_PEAK] = peak;
    v[CLI_COST_MONTH] = fc.ok ? fc.month_usd : 0;
    v[CLI_COST_PER_GPU_H] = fc.ok ? fc.usd_per_gpu_h : 0;
    v[CLI_SLO] = st->slo_attainment;
}

void cli_sim_free(struct cli_sim *r)
{
    metrics_free(r->m);
    sim_free(r->s);
    scenario_free(r->sc);
    *r = (struct cli_sim){0};
}
