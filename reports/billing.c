/* billing.c - a run's work under every billing model, and the break-even
 * utilizations (billing.h). */
#include "billing.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../sim/observe.h"
#include "costing.h"

const char *const bill_keys[BILL_LINES] = {
    "owned", "leased", "cloud_on_demand", "cloud_elastic", "cloud_spot", "cloud_commit_1y", "cloud_commit_3y",
};
const char *const bill_titles[BILL_LINES] = {
    "owned", "leased", "cloud on demand, kept all month", "cloud elastic (held while needed)",
    "cloud spot (held while needed, interrupted)", "cloud, 1-year commitment", "cloud, 3-year commitment",
};
const bool bill_long_term[BILL_LINES] = {[BILL_OWNED] = true, [BILL_COMMIT_1Y] = true, [BILL_COMMIT_3Y] = true};
const char *const bill_be_keys[BE_COUNT] = {"leased_vs_cloud_elastic", "owned_vs_leased"};

enum bill_line bill_own_line(const struct scenario *sc)
{
    if (sc->cost.hold == COST_HOLD_ELASTIC)
        return BILL_ELASTIC;
    if (sc->cost.hold == COST_HOLD_SPOT)
        return BILL_SPOT;
    if (sc->cost.billing != COST_CLOUD)
        return sc->cost.billing == COST_OWNED ? BILL_OWNED : BILL_LEASED;
    return sc->cost.commit == COST_COMMIT_1Y ? BILL_COMMIT_1Y
           : sc->cost.commit == COST_COMMIT_3Y ? BILL_COMMIT_3Y : BILL_ON_DEMAND;
}

void billing_init(struct billing *b)
{
    memset(b, 0, sizeof *b);
    for (int l = 0; l < BILL_LINES; l++) {
        b->usd_month[l] = NAN;
        snprintf(b->why[l], sizeof b->why[l], "not simulated");
    }
    for (int k = 0; k < BE_COUNT; k++)
        b->break_even[k] = NAN;
    b->util = NAN;
}

static void effects(struct bill_effects *e, const struct run_result *r)
{
    struct elastic_figures el;
    bool elastic = sim_elastic(r->s, &el);
    *e = (struct bill_effects){
        .wait_p95_s = r->st.wait_p95,
        .jct_mean_s = r->st.jct_mean,
        .slo_attainment = r->st.slo_attainment,
        .latency_attainment = r->st.latency_attainment,
        .lost_gpu_h = r->st.lost_gpu_h,
        .completed = r->st.completed,
        .interruptions = elastic ? el.interruptions : 0,
    };
}

static void put(struct billing *b, enum bill_line l, const struct fleet_cost *fc, const struct run_result *r)
{
    effects(&b->eff[l], r);
    b->usd_month[l] = fc->ok ? fc->month_usd : NAN;
    snprintf(b->why[l], sizeof b->why[l], "%s", fc->ok ? "" : fc->why);
}

/* The fleet's energy bill per month if it stood idle the whole month. */
static double idle_energy_month(const struct sim *s)
{
    const struct scenario *sc = s->sc;
    double w = 0;
    for (int32_t n = 0; n < s->cl->nnodes; n++) {
        const struct node *nd = &s->cl->nodes[n];
        const struct fleet_power *fp = s->node_power[n];
        w += node_power_eval(sc->nodes, fp->node, nd->gpus * sc->cat->types[nd->type].idle_w, 0,
                             fp->psus_ok).wall_w;
    }
    return w / 1000 * COST_MONTH_HOURS * sc->pue * sc->prices->usd_per_kwh.value;
}

void billing_fixed(struct billing *b, const struct run_result *r)
{
    static const struct { enum bill_line l; enum cost_billing b; enum cost_commit c; } fixed[] = {
        {BILL_OWNED, COST_OWNED, COST_ON_DEMAND},     {BILL_LEASED, COST_LEASED, COST_ON_DEMAND},
        {BILL_ON_DEMAND, COST_CLOUD, COST_ON_DEMAND}, {BILL_COMMIT_1Y, COST_CLOUD, COST_COMMIT_1Y},
        {BILL_COMMIT_3Y, COST_CLOUD, COST_COMMIT_3Y},
    };
    for (size_t k = 0; k < sizeof fixed / sizeof *fixed; k++) {
        struct fleet_cost fc;
        fleet_cost_compute(r->s, r->m, fixed[k].b, fixed[k].c, &fc);
        put(b, fixed[k].l, &fc, r);
        if (fixed[k].l == BILL_OWNED && fc.ok) {
            b->owned_capacity_usd = fc.capacity_month_usd;
            b->energy_usd = fc.energy_month_usd;
            b->energy_idle_usd = idle_energy_month(r->s);
        }
    }
    b->util = r->st.utilization;
}

void billing_elastic(struct billing *b, const struct run_result *r)
{
    struct fleet_cost fc;
    fleet_cost_compute(r->s, r->m, COST_CLOUD, COST_ON_DEMAND, &fc);
    struct elastic_figures el;
    bool spot = sim_elastic(r->s, &el) && el.hold == COST_HOLD_SPOT;
    put(b, spot ? BILL_SPOT : BILL_ELASTIC, &fc, r);
}

void billing_missing(struct billing *b, enum bill_line l, const char *why)
{
    b->usd_month[l] = NAN;
    snprintf(b->why[l], sizeof b->why[l], "%s", why);
}

double billing_at(const struct billing *b, enum bill_line l, double u)
{
    double v = b->usd_month[l];
    if (!isfinite(v) || !(b->util > 0))
        return NAN;
    if (l == BILL_ELASTIC || l == BILL_SPOT)
        return v * u / b->util;
    if (l == BILL_OWNED)
        return b->owned_capacity_usd + b->energy_idle_usd + (b->energy_usd - b->energy_idle_usd) * u / b->util;
    return v;
}

/* Where a(u) = b(u) for lines that are straight in u, from their values at
 * 0 and 1; NAN and a sentence when they do not cross in [0, 1]. */
static void cross(struct billing *b, enum bill_break_even k, enum bill_line la, enum bill_line lb)
{
    double a0 = billing_at(b, la, 0), a1 = billing_at(b, la, 1);
    double b0 = billing_at(b, lb, 0), b1 = billing_at(b, lb, 1);
    if (!isfinite(a0 + a1 + b0 + b1)) {
        snprintf(b->be_why[k], sizeof b->be_why[k], "not computed: %s or %s has no cost", bill_keys[la],
                 bill_keys[lb]);
        return;
    }
    double d0 = a0 - b0, d1 = a1 - b1; /* a - b at u = 0 and 1 */
    if (d0 * d1 <= 0 && d0 != d1) {
        b->break_even[k] = d0 / (d0 - d1);
        snprintf(b->be_why[k], sizeof b->be_why[k], "%s is cheaper below %.0f %% utilization, %s above",
                 d0 < 0 ? bill_keys[la] : bill_keys[lb], 100 * b->break_even[k], d0 < 0 ? bill_keys[lb] : bill_keys[la]);
        return;
    }
    snprintf(b->be_why[k], sizeof b->be_why[k], "%s is cheaper at every utilization",
             d0 < 0 || (d0 == 0 && d1 < 0) ? bill_keys[la] : bill_keys[lb]);
}

void billing_break_evens(struct billing *b)
{
    cross(b, BE_LEASED_ELASTIC, BILL_LEASED, BILL_ELASTIC);
    cross(b, BE_OWNED_LEASED, BILL_OWNED, BILL_LEASED);
}
