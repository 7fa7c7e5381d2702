/* report_cost.c - the cost sections of the reports: a run's bill, its teams,
 * the demand forecast and every assumption behind the prices. */
#include "report_cost.h"

#include "billing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "costing.h"
#include "../sim/observe.h"

static void cost_table(const struct doc *d, const struct fleet_cost *fc)
{
    char h[3][64] = {"Cost (USD)", "per 730-h month", "run window"};
    double w = fc->window_months;
    doc_row(d, true, 3, h);
    switch (fc->billing) {
    case COST_OWNED:
        doc_kv(d, "amortization", "%.2f | %.2f", fc->amortization_month_usd, fc->amortization_month_usd * w);
        doc_kv(d, "maintenance", "%.2f | %.2f", fc->maintenance_month_usd, fc->maintenance_month_usd * w);
        doc_kv(d, "hosting (colocation)", "%.2f | %.2f", fc->hosting_month_usd, fc->hosting_month_usd * w);
        doc_kv(d, "energy", "%.2f | %.2f", fc->energy_month_usd, fc->energy_month_usd * w);
        break;
    case COST_LEASED:
        doc_kv(d, "lease (whole months, 1-month minimum)", "%.2f | %.2f", fc->capacity_month_usd,
               fc->window_usd);
        break;
    case COST_CLOUD:
    case COST_BILLINGS:
        doc_kv(d, "cloud instances", "%.2f | %.2f", fc->capacity_month_usd, fc->window_usd);
        break;
    }
    doc_kv(d, "total", "%.2f | %.2f", fc->month_usd, fc->window_usd);
    doc_kv(d, "of which idle GPU capacity", "%.2f | %.2f", fc->idle_month_usd, fc->idle_month_usd * w);
    doc_table_end(d);
}

static void type_table(const struct doc *d, const struct sim *s, const struct metrics *m,
                       const struct fleet_cost *fc)
{
    char h[5][64] = {"GPU type", "GPUs", "USD per GPU-month", "utilization", "idle USD per month"};
    doc_row(d, true, 5, h);
    for (int t = 0; t < s->sc->cat->n; t++) {
        if (!m->capacity[t])
            continue;
        doc_kv(d, s->sc->cat->types[t].name, "%.4g | %.2f | %.4f | %.2f", fc->gpus_by_type[t],
               fc->gpu_month_usd[t], fc->util_by_type[t], fc->idle_by_type[t]);
    }
    doc_table_end(d);
}

/* The same fleet under every way of paying; an elastic run's pool, for
 * every way but its own, kept all month. */
static void billing_table(const struct doc *d, const struct sim *s, const struct metrics *m)
{
    struct elastic_figures el;
    bool elastic = sim_elastic(s, &el);
    const char *kept = elastic ? " (the pool kept all month)" : "";
    char h[3][64] = {"Billed as", "USD per month", "energy included"};
    doc_row(d, true, 3, h);
    for (int b = 0; b < COST_BILLINGS; b++) {
        for (int c = 0; c < (b == COST_CLOUD ? 3 : 1); c++) {
            struct fleet_cost fc;
            fleet_cost_compute(s, m, (enum cost_billing)b, (enum cost_commit)c, &fc);
            char key[96];
            if (elastic && b == COST_CLOUD && c == COST_ON_DEMAND)
                snprintf(key, sizeof key, "cloud %s, held while needed (this run)",
                         el.hold == COST_HOLD_SPOT ? "spot" : "on demand");
            else
                snprintf(key, sizeof key, "%s%s%s%s", cost_billing_names[b], b == COST_CLOUD ? ", commit " : "",
                         b == COST_CLOUD ? cost_commit_names[c] : "", kept);
            if (fc.ok)
                doc_kv(d, key, "%.2f | %s", fc.month_usd, b == COST_OWNED ? "no: at the meter" : "yes");
            else
                doc_kv(d, key, "n/a | %s", fc.why);
        }
    }
    doc_table_end(d);
}

static void team_table(const struct doc *d, const struct sim *s, const struct metrics *m,
                       const struct fleet_cost *fc)
{
    size_t n = s->sc->wl.nteams;
    struct team_cost *teams = xcalloc(n + 1, sizeof *teams);
    double idle_line = 0;
    struct fs_err err = {0};
    doc_heading(d, 3, "Cost per team");
    if (fleet_cost_teams(s, m, fc, teams, &idle_line, &err)) {
        doc_para(d, "Not attributed: %s.", err.msg);
        free(teams);
        return;
    }
    doc_para(d, "Each team pays for the GPU time its jobs held, weighted by the GPU type's price; idle "
                "capacity is %s.",
             s->sc->cost.idle == COST_IDLE_SEPARATE ? "kept on its own line"
                                                    : "shared out in proportion to use");
    char h[5][64] = {"Team", "GPU-hours", "used USD/month", "idle share USD/month", "total USD/month"};
    doc_row(d, true, 5, h);
    double total = idle_line;
    for (size_t k = 0; k < n; k++) {
        const struct cost_share *c = &teams[k].share;
        doc_kv(d, teams[k].team, "%.1f | %.2f | %.2f | %.2f", teams[k].gpu_h, c->used_usd, c->idle_usd,
               c->used_usd + c->idle_usd);
        total += c->used_usd + c->idle_usd;
    }
    if (idle_line > 0)
        doc_kv(d, "idle", "- | - | %.2f | %.2f", idle_line, idle_line);
    doc_kv(d, "total", "- | - | - | %.2f", total);
    doc_table_end(d);
    free(teams);
}

static void forecast(const struct doc *d, const struct sim *s, const struct fleet_cost *fc)
{
    int months = s->sc->cost.forecast_months;
    doc_heading(d, 3, "Forecast");
    if (months <= 0) {
        doc_para(d, "No forecast: $.cost.forecast_months is 0.");
        return;
    }
    struct cost_forecast f;
    double *proj = xcalloc((size_t)months, sizeof *proj), today;
    const char *unusable;
    int days = demand_forecast(s, months, &f, proj, &today, &unusable);
    if (!days) {
        doc_para(d, "No forecast: %s.", unusable);
        free(proj);
        return;
    }
    doc_para(d, "Demand: reference GPU-hours submitted per day over %d whole days, fitted by least "
                "squares with a linear and an exponential trend; the better fit (higher R^2) "
                "projects each 730-h month. Cost assumes the fleet grows with demand at today's cost "
                "per unit of work: %.4f USD per reference GPU-hour (%.2f USD per month for %.1f "
                "GPU-hours a month).",
             days, fc->month_usd / today, fc->month_usd, today);
    char h[6][64] = {"Trend", "a", "b (per day)", "R^2", "RMSE", "picked"};
    doc_row(d, true, 6, h);
    for (int k = 0; k < COST_TRENDS; k++) {
        if (!f.fit[k].ok)
            doc_kv(d, cost_trend_names[k], "- | - | - | - | no (needs every day > 0)");
        else
            doc_kv(d, cost_trend_names[k], "%.6g | %.6g | %.4f | %.6g | %s", f.fit[k].a, f.fit[k].b,
                   f.fit[k].r2, f.fit[k].rmse, (int)f.pick == k ? "yes" : "no");
    }
    doc_table_end(d);
    /* A closed workload or a weak fit says nothing about next month. */
    if (unusable) {
        char a[32];
        doc_para(d, "No usable trend: %s. Demand averaged %.1f reference GPU-hours a month (%s USD a month at "
                    "today's cost); plan on that, flat, unless you know how it grows.",
                 unusable, today, doc_usd(a, fc->month_usd));
        free(proj);
        return;
    }
    char p[4][64] = {"Month ahead", "reference GPU-hours", "vs today", "USD"};
    doc_row(d, true, 4, p);
    for (int k = 0; k < months; k++) {
        char key[16];
        snprintf(key, sizeof key, "%d", k + 1);
        doc_kv(d, key, "%.1f | %.3f | %.2f", proj[k], proj[k] / today, fc->month_usd * proj[k] / today);
    }
    doc_table_end(d);
    free(proj);
}

void report_cost(const struct doc *d, const struct sim *s, const struct metrics *m)
{
    const struct scenario *sc = s->sc;
    struct fleet_cost fc;
    doc_heading(d, 2, "Cost");
    fleet_cost_compute(s, m, sc->cost.billing, sc->cost.commit, &fc);
    if (!fc.ok) {
        doc_para(d, "No cost: %s.", fc.why);
        return;
    }
    doc_para(d, "Billing: %s. Monthly figures are for a 730-h month at the rate this run measured; "
                "the run window is %.3f months.",
             bill_titles[bill_own_line(sc)], fc.window_months);
    cost_table(d, &fc);
    doc_para(d, "Cost per completed GPU-hour: %.4f USD (%.1f GPU-hours of work, measured on each job's "
                "reference GPU, done by the jobs that completed in the window).", fc.usd_per_gpu_h,
             fc.completed_gpu_h);
    type_table(d, s, m, &fc);
    doc_para(d, "The same fleet billed each way:");
    billing_table(d, s, m);
    team_table(d, s, m, &fc);
    forecast(d, s, &fc);
    report_assumptions(d, sc);
}

void report_assumptions(const struct doc *d, const struct scenario *sc)
{
    const struct cost_prices *p = sc->prices;
    doc_heading(d, 3, "Assumptions");
    if (!p) {
        doc_para(d, "No prices were loaded.");
        return;
    }
    doc_para(d, "A month is 730 h (8,760 h / 12). PUE %g. Owned servers: amortized linearly over %g "
                "months with no resale value, maintenance %g %% of capex a year, hosting %g USD per kW of "
                "nameplate input a month (colocation), electricity %g USD per kWh at the meter x PUE. Leases: billed in whole months, one-month minimum. Cloud: "
                "per GPU-hour, instances kept for the whole month; commitments 1 y %g %%, 3 y %g %% off.",
             sc->pue, p->amortization_months.value, p->maintenance_pct_year.value,
             p->colocation_kw_month.value, p->usd_per_kwh.value, 100 * p->commit_1y.value, 100 * p->commit_3y.value);
    char h[5][64] = {"GPU", "purchase USD", "cloud USD/GPU-h", "lease USD/GPU-month", "source dates"};
    doc_row(d, true, 5, h);
    for (int i = 0; i < p->ngpus; i++) {
        const struct cost_gpu_price *g = &p->gpus[i];
        const struct cost_value *v[3] = {&g->purchase, &g->cloud_hour, &g->lease_month};
        char dates[64] = "";
        for (int k = 0; k < 3; k++)
            if (v[k]->source >= 0)
                snprintf(dates + strlen(dates), sizeof dates - strlen(dates), "%s%s", k ? " " : "",
                         p->sources[v[k]->source].date);
        doc_kv(d, sc->cat->types[g->gpu].name, "%.2f | %.3f | %.2f%s | %s", g->purchase.value,
               g->cloud_hour.value, g->lease_month.value, g->lease_derived ? " (derived)" : "", dates);
    }
    doc_table_end(d);
    doc_para(d, "Sources (an ID starting ASSUMPTION is an assumption, not a citation):");
    for (int i = 0; i < p->nsources; i++)
        doc_para(d, "%s (%s): %s", p->sources[i].id, p->sources[i].date, p->sources[i].text);
}
