/* costing.c - a run's cost, its teams, its demand forecast and the savings
 * between two runs (see costing.h). */
#include "costing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/observe.h"

const char *const saving_reasons[SAVE_COUNT] = {
    "billing model", "cheaper GPU types", "fewer GPUs needed", "higher utilization", "energy",
};

const char *const saving_explained[SAVE_COUNT] = {
    "the same GPUs paid for another way (owned, leased, cloud, commitment)",
    "a lower price per GPU for the mix of types the work runs on",
    "the work took fewer GPU-hours an hour: faster GPUs for it, or less of it done",
    "a larger share of the fleet kept busy, so fewer GPUs for the same GPU-hours",
    "electricity an owned fleet pays for (leases and clouds include it)",
};

const char *saving_wording(enum saving k, double usd)
{
    static const char *const words[SAVE_COUNT][2] = {
        {"a cheaper billing model", "a dearer billing model"},
        {"cheaper GPU types", "dearer GPU types"},
        {"fewer GPU-hours for the work", "more GPU-hours for the work"},
        {"higher utilization", "lower utilization"},
        {"less energy", "more energy"},
    };
    return words[k][usd < 0];
}

void fleet_cost_compute(const struct sim *s, const struct metrics *m, enum cost_billing b,
                        enum cost_commit c, struct fleet_cost *out)
{
    const struct scenario *sc = s->sc;
    *out = (struct fleet_cost){.billing = b, .commit = c};
    if (!sc->prices) {
        snprintf(out->why, sizeof out->why, "the scenario has no prices");
        return;
    }
    if (s->end <= 0) {
        snprintf(out->why, sizeof out->why, "the run window is empty");
        return;
    }
    /* Sum each node's price; a type's mean price follows. */
    double type_usd[GPU_MAX_TYPES] = {0}, hosting_usd = 0;
    for (int32_t n = 0; n < s->cl->nnodes; n++) {
        const struct node_template *nt = s->node_power[n]->node;
        int t = s->cl->nodes[n].type;
        double p = cost_gpu_month(sc->prices, sc->nodes, nt, t, b, c);
        if (p < 0) {
            snprintf(out->why, sizeof out->why, "%s has no %s price", sc->cat->types[t].name,
                     cost_billing_names[b]);
            return;
        }
        type_usd[t] += p * s->cl->nodes[n].gpus;
        if (b == COST_OWNED) /* per GPU, as cost_gpu_month charges it */
            hosting_usd += cost_hosting_month(sc->prices, nt) / nt->gpus * s->cl->nodes[n].gpus;
    }
    out->window_months = cost_months(s->end);
    double alloc_gpu_s = 0, paid_gpu_s = 0;
    struct elastic_figures el;
    bool elastic = sim_elastic(s, &el);
    for (int t = 0; t < sc->cat->n; t++) {
        if (!m->capacity[t])
            continue;
        double util = metrics_utilization(m, t, s->end), window_s = fs_to_seconds(s->end);
        out->gpu_month_usd[t] = type_usd[t] / (double)m->capacity[t];
        alloc_gpu_s += util * (double)m->capacity[t] * window_s;
        if (elastic && b == COST_CLOUD && c == COST_ON_DEMAND) { /* commitments: the pool kept */
            double billed = el.billed_gpu_s[t];
            if (el.hold == COST_HOLD_SPOT)
                out->gpu_month_usd[t] *= 1 - sc->prices->elastic.spot_discount.value;
            double usd = out->gpu_month_usd[t] * billed / 3600 / COST_MONTH_HOURS / out->window_months;
            out->capacity_month_usd += usd;
            out->util_by_type[t] = billed > 0 ? util * (double)m->capacity[t] * window_s / billed : 0;
            out->idle_by_type[t] = billed > 0 ? usd * (1 - out->util_by_type[t]) : 0;
            out->gpus_by_type[t] = billed / window_s;
        } else {
            out->capacity_month_usd += type_usd[t];
            out->util_by_type[t] = util;
            out->idle_by_type[t] = type_usd[t] * (1 - util);
            out->gpus_by_type[t] = (double)m->capacity[t];
        }
        out->idle_month_usd += out->idle_by_type[t];
        paid_gpu_s += out->gpus_by_type[t] * window_s;
    }
    out->gpus = paid_gpu_s / fs_to_seconds(s->end);
    out->utilization = paid_gpu_s > 0 ? alloc_gpu_s / paid_gpu_s : 0;
    if (b == COST_OWNED) {
        struct cost_owned_terms terms = cost_owned_terms(sc->prices, sc->pue);
        /* At the wall; an elastic pool owned would also idle while not held. */
        double month_kwh = (m->en.wall_j + elastic_unheld_idle_j(s)) / 3.6e6 / out->window_months;
        out->energy_month_usd = cost_owned(0, 0, month_kwh, &terms).energy_usd;
        double per_month = 1 / terms.amortization_months + terms.maintenance_pct_year / 1200;
        double capex_part = out->capacity_month_usd - hosting_usd;
        out->hosting_month_usd = hosting_usd;
        out->amortization_month_usd = capex_part / terms.amortization_months / per_month;
        out->maintenance_month_usd = capex_part - out->amortization_month_usd;
    }
    out->month_usd = out->capacity_month_usd + out->energy_month_usd;
    /* The window's bill: leases in whole months, the rest pro rata. */
    out->window_usd = b == COST_LEASED
                          ? out->capacity_month_usd * (double)cost_lease_months(s->end)
                          : out->month_usd * out->window_months;
    out->completed_gpu_h = m->done_gpu_h;
    if (out->completed_gpu_h > 0)
        out->usd_per_gpu_h = out->month_usd * out->window_months / out->completed_gpu_h;
    out->ok = true;
}

int fleet_cost_teams(const struct sim *s, const struct metrics *m, const struct fleet_cost *fc,
                     struct team_cost *teams, double *idle_line, struct fs_err *err)
{
    const struct workload *wl = &s->sc->wl;
    size_t n = wl->nteams;
    double *used = xcalloc(n + 1, sizeof *used);
    for (size_t k = 0; k < n; k++)
        teams[k] = (struct team_cost){.team = wl->teams[k]};
    for (size_t k = 0; k < n; k++)
        for (int t = 0; t < m->ntypes; t++) {
            double us = m->team_us[k * (size_t)m->ntypes + (size_t)t];
            teams[k].gpu_h += us / 3.6e9;
            used[k] += us * fc->gpu_month_usd[t];
        }
    /* Capacity in the same dollar-microseconds: every GPU over the window. */
    double capacity = fc->capacity_month_usd * (double)s->end;
    struct cost_share *shares = xcalloc(n + 1, sizeof *shares);
    int rc = cost_attribute(used, (int)n, capacity, fc->month_usd, s->sc->cost.idle, shares,
                            idle_line, err);
    for (size_t k = 0; rc == 0 && k < n; k++)
        teams[k].share = shares[k];
    free(shares);
    free(used);
    return rc;
}

int demand_forecast(const struct sim *s, int months, struct cost_forecast *fc,
                    double *proj_gpu_h, double *today_gpu_h_month, const char **unusable)
{
    const fs_time day = (fs_time)86400 * FS_USEC;
    int days = (int)(s->end / day);
    *today_gpu_h_month = 0;
    *unusable = "the window holds fewer than 3 whole days of submitted GPU work";
    if (days < 3)
        return 0;
    double *y = xcalloc((size_t)days, sizeof *y);
    for (size_t i = 0; i < s->njobs; i++) {
        const struct job *j = &s->jobs[i];
        fs_time d = j->submit / day;
        if (j->gpus > 0 && d < days)
            y[d] += j->work * j->milli / GPU_MILLI / 3600;
    }
    const double per_month = COST_MONTH_HOURS / 24; /* days in a 730-h month */
    for (int d = 0; d < days; d++)
        *today_gpu_h_month += y[d] * per_month / days;
    struct fs_err err = {0};
    int rc = cost_forecast(y, days, 0, 0, fc, NULL, NULL, &err);
    for (int k = 0; rc == 0 && k < months; k++) {
        double mid = days - 0.5 + (k + 0.5) * per_month;
        proj_gpu_h[k] = fmax(0, cost_trend_eval(&fc->fit[fc->pick], fc->pick, mid)) * per_month;
    }
    free(y);
    if (rc == 0 && *today_gpu_h_month <= 0)
        *unusable = "the window holds no submitted GPU work";
    if (rc || *today_gpu_h_month <= 0)
        return 0;
    fs_time last = 0;
    for (size_t i = 0; i < s->sc->nbatch; i++)
        if (s->jobs[i].submit > last && s->jobs[i].submit < s->end)
            last = s->jobs[i].submit;
    if (fs_to_seconds(last) < (days - 1) * 86400.0)
        *unusable = "the workload is closed (its submissions stop a day or more before the window ends), "
                    "so its fall at the end is the trace ending, not demand";
    else if (fc->fit[fc->pick].r2 < 0.5)
        *unusable = "the best fit explains less than half of the day-to-day variation";
    else
        *unusable = NULL;
    return days;
}

/* The logarithmic mean of two positive numbers. */
static double logmean(double a, double b)
{
    return fabs(a - b) < 1e-12 * fmax(a, b) ? a : (a - b) / (log(a) - log(b));
}

void cost_savings(const struct cost_factors *base, const struct cost_factors *alt,
                  double line[SAVE_COUNT])
{
    double ca = base->month_usd - base->energy_month_usd;
    double cb = alt->month_usd - alt->energy_month_usd;
    memset(line, 0, SAVE_COUNT * sizeof *line);
    line[SAVE_ENERGY] = base->energy_month_usd - alt->energy_month_usd;
    /* base is billed its own way: price_as_base = price. */
    double xa[4] = {base->price / base->price_as_base, base->price_as_base, base->gpu_h_per_h,
                    1 / base->utilization};
    double xb[4] = {alt->price / alt->price_as_base, alt->price_as_base, alt->gpu_h_per_h,
                    1 / alt->utilization};
    bool positive = ca > 0 && cb > 0;
    for (int k = 0; k < 4; k++)
        positive = positive && isfinite(xa[k]) && isfinite(xb[k]) && xa[k] > 0 && xb[k] > 0;
    if (!positive) {
        line[SAVE_GPU_TIME] = ca - cb;
        return;
    }
    double l = logmean(ca, cb);
    static const enum saving order[4] = {SAVE_BILLING, SAVE_TYPES, SAVE_GPU_TIME, SAVE_UTIL};
    for (int k = 0; k < 4; k++)
        line[order[k]] = l * log(xa[k] / xb[k]);
}
