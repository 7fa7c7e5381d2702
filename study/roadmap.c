/* roadmap.c - the search of `fleetsim roadmap` (roadmap.h): the months'
 * scenarios, the cheapest fleet of a month given what is owned, the
 * dynamic programme over owned capacity, the brute force that checks it,
 * the best static fleet and all-cloud.  The simulations and their
 * judgement are roadmap_sim.c's.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../run/run.h"
#include "roadmap.h"

const char *const rm_source_names[RM_SOURCES] = {"owned", "leased", "cloud"};

static long long cents(double usd)
{
    return usd < 9e16 ? llround(usd * 100) : LLONG_MAX;
}

size_t rm_cell(const struct roadmap *r, int k, int m, size_t f)
{
    return ((size_t)k * (size_t)r->months + (size_t)m) * r->nstates + f;
}

void rm_counts(const struct roadmap *r, size_t i, uint16_t *n)
{
    for (int t = 0; t < r->p.ntypes; t++) {
        n[t] = (uint16_t)(i % ((size_t)r->p.max_nodes + 1));
        i /= (size_t)r->p.max_nodes + 1;
    }
}

bool rm_below(const struct roadmap *r, const uint16_t *a, const uint16_t *b)
{
    for (int t = 0; t < r->p.ntypes; t++)
        if (a[t] > b[t])
            return false;
    return true;
}

static double kw(const struct roadmap *r, const uint16_t *n)
{
    double v = 0;
    for (int t = 0; t < r->p.ntypes; t++)
        v += n[t] * r->p.types[t].node_kw;
    return v;
}

static int nodes(const struct roadmap *r, const uint16_t *n)
{
    int v = 0;
    for (int t = 0; t < r->p.ntypes; t++)
        v += n[t];
    return v;
}

/* Does on-site capacity n fit month m's power and rack space? */
static bool fits(const struct roadmap *r, int m, const uint16_t *n)
{
    return (r->power_kw[m] <= 0 || kw(r, n) <= r->power_kw[m] * (1 + 1e-12)) &&
           (r->racks[m] <= 0 || nodes(r, n) <= r->racks[m]);
}

/* Capacity of n paid by source s a month; < 0: a type with nodes unpriced
 * or the source not allowed. */
static double capacity(const struct roadmap *r, int s, const uint16_t *n)
{
    double v = 0;
    for (int t = 0; t < r->p.ntypes; t++) {
        if (!n[t])
            continue;
        if (!r->allow[s] || r->node_usd[s][t] < 0)
            return -1;
        v += n[t] * r->node_usd[s][t];
    }
    return v;
}

int roadmap_forecast(struct roadmap *r, struct fs_err *err)
{
    struct run_spec spec = {.sc = r->p.base};
    struct run_result res = {0};
    int rc = run_scenario(&spec, &res, err);
    if (rc) {
        run_result_free(&res);
        return rc;
    }
    struct cost_forecast f;
    double proj[RM_MAX_MONTHS], today;
    int days = demand_forecast(res.s, r->months - 1, &f, proj, &today, &r->unusable);
    run_result_free(&res);
    for (int m = 1; !r->unusable && m < r->months; m++)
        if (!(proj[m - 1] > 1e-6 * today && proj[m - 1] < 1e6 * today))
            r->unusable = "the fitted trend leaves [1e-6, 1e6] x today's demand within the horizon";
    if (!r->unusable)
        snprintf(r->trend, sizeof r->trend, "%s trend fitted to %d days of submitted reference GPU-hours, R^2 %.4f",
                 cost_trend_names[f.pick], days, f.fit[f.pick].r2);
    r->demand[0] = 1;
    for (int m = 1; m < r->months; m++)
        r->demand[m] = r->unusable ? 1 : proj[m - 1] / today;
    r->nrates = r->months > 1 ? r->months - 1 : 1;
    r->rate[0] = 0;
    for (int m = 1; m < r->months; m++)
        r->rate[m - 1] = r->demand[m] / r->demand[m - 1] - 1;
    memcpy(r->pdemand[0], r->demand, sizeof r->demand);
    r->prate[0] = r->rate[0];
    return 0;
}

int roadmap_setup(struct roadmap *r, struct fs_err *err)
{
    struct plan *p = &r->p;
    double size = 1;
    for (int t = 0; t < p->ntypes; t++)
        size *= p->max_nodes + 1;
    if (size > RM_MAX_STATES)
        return fs_fail(err, FS_EUSAGE, "roadmap: %d types x 0..%d nodes is %.0f fleets a month; at most %d "
                       "(fewer --types or a smaller --max-nodes)", p->ntypes, p->max_nodes, size, RM_MAX_STATES);
    r->nstates = (size_t)size;
    const struct cost_prices *pr = p->base->prices;
    r->amort_months = pr ? pr->amortization_months.value : 0;
    for (int s = 0; s < RM_SOURCES; s++)
        for (int t = 0; t < p->ntypes; t++)
            r->node_usd[s][t] = p->types[t].gpu_month[s] < 0 ? -1 : p->types[t].gpu_month[s] * p->types[t].gpn;
    if (r->allow[RM_OWNED] && r->amort_months > 0 && r->months > r->amort_months)
        return fs_fail(err, FS_EUSAGE, "--months: %d months is longer than the amortization period (%g months, "
                       "prices.json): servers paid off within the horizon are not modelled", r->months,
                       r->amort_months);
    size_t pm = (size_t)r->npaths * (size_t)r->months, cells = (size_t)r->months * r->nstates;
    r->only = -1;
    r->trees = xcalloc(pm, sizeof *r->trees);
    for (size_t i = 0; i < pm; i++) {
        r->trees[i] = cJSON_Duplicate(p->tree, true);
        cJSON *gen = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r->trees[i], "workload"),
                                                      "generator");
        cJSON *rate = cJSON_GetObjectItemCaseSensitive(gen, "arrivals_per_hour");
        if (cJSON_IsNumber(rate))
            cJSON_SetNumberValue(rate, rate->valuedouble * r->pdemand[i / (size_t)r->months][i % (size_t)r->months]);
    }
    r->ev = xcalloc(pm * r->nstates, sizeof *r->ev);
    r->cache = xcalloc(cells, sizeof *r->cache);
    for (size_t i = 0; i < cells; i++)
        r->cache[i].fleet = -2;
    r->value = xcalloc(cells, sizeof *r->value);
    return 0;
}

/* --- one month ----------------------------------------------------------------------- */

/* The cheapest split of the extra n - o between leased and cloud in month
 * m (leased nodes are on site with o).  OUT lease, cloud.  RET: its cost,
 * or < 0 when none is allowed. */
static double split(const struct roadmap *r, int m, const uint16_t *o, const uint16_t *n, bool cloud_only,
                    uint16_t *lease, uint16_t *cloud)
{
    int T = r->p.ntypes;
    uint16_t e[PLAN_MAX_TYPES], l[PLAN_MAX_TYPES], site[PLAN_MAX_TYPES];
    size_t combos = 1;
    for (int t = 0; t < T; t++) {
        e[t] = (uint16_t)(n[t] - o[t]);
        combos *= (size_t)e[t] + 1;
    }
    if (r->power_kw[m] <= 0 && r->racks[m] <= 0) { /* no limit on site: each type its cheaper way */
        double cost = 0;
        for (int t = 0; t < T; t++) {
            bool lok = !cloud_only && r->allow[RM_LEASED] && r->node_usd[RM_LEASED][t] >= 0;
            bool cok = r->allow[RM_CLOUD] && r->node_usd[RM_CLOUD][t] >= 0;
            if (e[t] && !lok && !cok)
                return -1;
            bool lease_it = lok && (!cok || r->node_usd[RM_LEASED][t] < r->node_usd[RM_CLOUD][t]);
            lease[t] = lease_it ? e[t] : 0;
            cloud[t] = lease_it ? 0 : e[t];
            cost += e[t] * (lease_it ? r->node_usd[RM_LEASED][t] : fmax(r->node_usd[RM_CLOUD][t], 0));
        }
        return cost;
    }
    double best = -1;
    for (size_t c = 0; c < combos; c++) {
        size_t rest = c;
        double cost = 0;
        for (int t = 0; t < T && cost >= 0; t++) {
            l[t] = (uint16_t)(rest % ((size_t)e[t] + 1));
            rest /= (size_t)e[t] + 1;
            site[t] = (uint16_t)(o[t] + l[t]);
            int nc = e[t] - l[t];
            bool lok = l[t] == 0 || (!cloud_only && r->allow[RM_LEASED] && r->node_usd[RM_LEASED][t] >= 0);
            bool cok = nc == 0 || (r->allow[RM_CLOUD] && r->node_usd[RM_CLOUD][t] >= 0);
            cost = lok && cok ? cost + l[t] * fmax(r->node_usd[RM_LEASED][t], 0) + nc * fmax(r->node_usd[RM_CLOUD][t], 0)
                              : -1;
        }
        if (cost < 0 || !fits(r, m, site) || (best >= 0 && cents(cost) >= cents(best)))
            continue;
        best = cost;
        for (int t = 0; t < T; t++) {
            lease[t] = l[t];
            cloud[t] = (uint16_t)(e[t] - l[t]);
        }
    }
    return best;
}

struct cand {
    size_t f;
    double cap;
    int gpus;
};

static int cand_cmp(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    long long cx = cents(x->cap), cy = cents(y->cap);
    if (cx != cy)
        return cx < cy ? -1 : 1;
    if (x->gpus != y->gpus)
        return x->gpus < y->gpus ? -1 : 1;
    return x->f < y->f ? -1 : x->f > y->f;
}

static int gpus(const struct roadmap *r, const uint16_t *n)
{
    int v = 0;
    for (int t = 0; t < r->p.ntypes; t++)
        v += n[t] * r->p.types[t].gpn;
    return v;
}

/* The cheapest month m with owned capacity oi: the passing fleet n >= o,
 * the extra leased or rented (cloud_only: rented, o empty), within the
 * month's budget.  Fleets are tried by capacity cost; the search stops
 * once none left can beat the best (not under --brute-force).
 * OUT *out (fleet -1: none).  RET: as simulate. */
static int best_month(struct roadmap *r, int m, size_t oi, bool cloud_only, struct rm_month *out, struct fs_err *err)
{
    uint16_t o[PLAN_MAX_TYPES], n[PLAN_MAX_TYPES], l[PLAN_MAX_TYPES], c[PLAN_MAX_TYPES];
    rm_counts(r, oi, o);
    *out = (struct rm_month){.fleet = -1};
    double owned = capacity(r, RM_OWNED, o);
    if (owned < 0 || !fits(r, m, o))
        return 0;
    struct cand *cs = xcalloc(r->nstates, sizeof *cs);
    size_t nc = 0;
    for (size_t f = 1; f < r->nstates; f++) {
        rm_counts(r, f, n);
        if (!rm_below(r, o, n))
            continue;
        double x = split(r, m, o, n, cloud_only, l, c);
        if (x >= 0)
            cs[nc++] = (struct cand){f, owned + x, gpus(r, n)};
    }
    qsort(cs, nc, sizeof *cs, cand_cmp);
    int rc = 0;
    for (size_t i = 0; i < nc; i++) {
        if (out->fleet >= 0 && !r->brute && cents(cs[i].cap) > cents(out->total))
            break;
        bool ok;
        if ((rc = rm_passes(r, m, cs[i].f, &ok, err)))
            break;
        if (!ok)
            continue;
        rm_counts(r, cs[i].f, n);
        double energy = nodes(r, o) ? rm_energy(r, m, cs[i].f) * kw(r, o) / kw(r, n) : 0;
        double total = cs[i].cap + energy;
        if ((r->budget[m] > 0 && total > r->budget[m] * (1 + 1e-12)) ||
            (out->fleet >= 0 && cents(total) >= cents(out->total)))
            continue;
        struct rm_month *b = out;
        *b = (struct rm_month){.fleet = (int32_t)cs[i].f, .energy = energy, .total = total};
        split(r, m, o, n, cloud_only, l, c);
        memcpy(b->n[RM_OWNED], o, sizeof o);
        memcpy(b->n[RM_LEASED], l, sizeof l);
        memcpy(b->n[RM_CLOUD], c, sizeof c);
        b->cost[RM_OWNED] = owned + energy;
        b->cost[RM_LEASED] = capacity(r, RM_LEASED, l) > 0 ? capacity(r, RM_LEASED, l) : 0;
        b->cost[RM_CLOUD] = capacity(r, RM_CLOUD, c) > 0 ? capacity(r, RM_CLOUD, c) : 0;
    }
    free(cs);
    return rc;
}

/* C_m(o), computed once.  RET: as simulate. */
static int month_cost(struct roadmap *r, int m, size_t o, const struct rm_month **out, struct fs_err *err)
{
    struct rm_month *c = &r->cache[(size_t)m * r->nstates + o];
    int rc = c->fleet == -2 ? best_month(r, m, o, false, c, err) : 0;
    *out = c;
    return rc;
}

/* May the roadmap own o in month m?  Nothing arrives before month lead + 1. */
static bool may_own(const struct roadmap *r, int m, size_t o)
{
    return o == 0 || (r->allow[RM_OWNED] && m >= r->lead);
}

/* --- the dynamic programme ------------------------------------------------------------ */

/* OUT plan[months], *found, *total. */
static int dp(struct roadmap *r, struct rm_month *plan, bool *found, double *total, struct fs_err *err)
{
    size_t S = r->nstates;
    uint16_t a[PLAN_MAX_TYPES], b[PLAN_MAX_TYPES];
    size_t *next = xcalloc((size_t)r->months * S, sizeof *next);
    int rc = 0;
    for (int m = r->months - 1; rc == 0 && m >= 0; m--) {
        for (size_t o = 0; rc == 0 && o < S; o++) {
            double *v = &r->value[(size_t)m * S + o];
            *v = HUGE_VAL;
            if (!may_own(r, m, o))
                continue;
            double rest = 0;
            if (m + 1 < r->months) {
                rest = HUGE_VAL;
                rm_counts(r, o, a);
                for (size_t q = o; q < S; q++) {
                    rm_counts(r, q, b);
                    double w = r->value[(size_t)(m + 1) * S + q];
                    if (rm_below(r, a, b) && w < 9e16 && (rest > 9e16 || cents(w) < cents(rest))) {
                        rest = w;
                        next[(size_t)m * S + o] = q;
                    }
                }
                if (rest > 9e16)
                    continue;
            }
            const struct rm_month *c;
            if ((rc = month_cost(r, m, o, &c, err)) || c->fleet < 0)
                continue;
            *v = c->total + rest;
        }
    }
    if (rc == 0) {
        size_t o = 0;
        for (size_t q = 1; q < S; q++)
            if (r->value[q] < 9e16 && (r->value[o] > 9e16 || cents(r->value[q]) < cents(r->value[o])))
                o = q;
        *found = r->value[o] < 9e16;
        *total = r->value[o];
        for (int m = 0; *found && m < r->months; m++) {
            plan[m] = r->cache[(size_t)m * S + o];
            o = next[(size_t)m * S + o];
        }
    }
    free(next);
    return rc;
}

/* --- brute force ---------------------------------------------------------------------- */

/* Every owned trajectory from month m on, owning prev in month m - 1. */
static int trajectories(struct roadmap *r, int m, size_t prev, double sofar, size_t *path, size_t *best_path,
                        double *best, struct fs_err *err)
{
    if (m == r->months) {
        r->trajectories++;
        if (*best > 9e16 || cents(sofar) < cents(*best)) {
            *best = sofar;
            memcpy(best_path, path, (size_t)r->months * sizeof *path);
        }
        return 0;
    }
    uint16_t a[PLAN_MAX_TYPES], b[PLAN_MAX_TYPES];
    rm_counts(r, prev, a);
    for (size_t o = prev; o < r->nstates; o++) {
        rm_counts(r, o, b);
        if (!rm_below(r, a, b) || !may_own(r, m, o))
            continue;
        const struct rm_month *c;
        int rc = month_cost(r, m, o, &c, err);
        if (rc)
            return rc;
        if (c->fleet < 0)
            continue;
        path[m] = o;
        if ((rc = trajectories(r, m + 1, o, sofar + c->total, path, best_path, best, err)))
            return rc;
    }
    return 0;
}

/* Every fleet in every month on every path, ahead: once. */
static int simulate_all(struct roadmap *r, struct fs_err *err)
{
    size_t cells = (size_t)r->npaths * (size_t)r->months * r->nstates, n = 0;
    size_t *all = xcalloc(cells, sizeof *all);
    for (size_t i = 0; i < cells; i++)
        if (i % r->nstates && r->ev[i].state == RS_NEW)
            all[n++] = i;
    int rc = n ? rm_simulate(r, all, n, err) : 0;
    free(all);
    for (size_t i = 0; rc == 0 && n && i < cells; i++) {
        uint16_t g[PLAN_MAX_TYPES];
        rm_counts(r, i % r->nstates, g);
        if (r->ev[i].state == RS_PASS && rm_implied(r, i / r->nstates, g))
            r->violations++;
    }
    return rc;
}

/* OUT plan[months], *found, *total. */
static int brute(struct roadmap *r, struct rm_month *plan, bool *found, double *total, struct fs_err *err)
{
    int rc = simulate_all(r, err);
    size_t path[RM_MAX_MONTHS], best_path[RM_MAX_MONTHS];
    double best = HUGE_VAL;
    if (rc == 0)
        rc = trajectories(r, 0, 0, 0, path, best_path, &best, err);
    *found = rc == 0 && best < 9e16;
    *total = best;
    for (int m = 0; *found && m < r->months; m++)
        plan[m] = r->cache[(size_t)m * r->nstates + best_path[m]];
    return rc;
}

/* --- the alternatives ------------------------------------------------------------------ */

/* The cheapest fleet held all horizon under one source that meets the
 * SLOs every month (owned only when nothing must wait for delivery). */
static int best_static(struct roadmap *r, struct fs_err *err)
{
    struct cand *cs = xcalloc(r->nstates * RM_SOURCES, sizeof *cs);
    uint16_t n[PLAN_MAX_TYPES];
    size_t nc = 0;
    for (int s = 0; s < RM_SOURCES; s++) {
        if (s == RM_OWNED && r->lead > 0)
            continue;
        for (size_t f = 1; f < r->nstates; f++) {
            rm_counts(r, f, n);
            double cap = capacity(r, s, n);
            bool ok = cap >= 0;
            for (int m = 0; ok && m < r->months && s != RM_CLOUD; m++)
                ok = fits(r, m, n);
            if (ok) /* the source in the f's place: ties go to owned, leased, cloud */
                cs[nc++] = (struct cand){f * RM_SOURCES + (size_t)s, cap * r->months, gpus(r, n)};
        }
    }
    qsort(cs, nc, sizeof *cs, cand_cmp);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < nc; i++) {
        if (r->static_found && !r->brute && cents(cs[i].cap) > cents(r->static_total))
            break;
        size_t f = cs[i].f / RM_SOURCES;
        int s = (int)(cs[i].f % RM_SOURCES);
        rm_counts(r, f, n);
        double total = 0, month[RM_MAX_MONTHS];
        bool ok = true;
        for (int m = 0; ok && rc == 0 && m < r->months; m++) {
            rc = rm_passes(r, m, f, &ok, err);
            month[m] = cs[i].cap / r->months + (s == RM_OWNED ? rm_energy(r, m, f) : 0);
            ok &= r->budget[m] <= 0 || month[m] <= r->budget[m] * (1 + 1e-12);
            total += month[m];
        }
        if (rc || !ok || (r->static_found && cents(total) >= cents(r->static_total)))
            continue;
        r->static_found = true;
        r->static_source = s;
        r->static_fleet = (int32_t)f;
        r->static_total = total;
        memcpy(r->static_month, month, sizeof month);
    }
    free(cs);
    return rc;
}

static int all_cloud(struct roadmap *r, struct fs_err *err)
{
    r->cloud_found = r->allow[RM_CLOUD];
    for (int m = 0; r->cloud_found && m < r->months; m++) {
        struct rm_month c;
        int rc = best_month(r, m, 0, true, &c, err);
        if (rc)
            return rc;
        r->cloud_found = c.fleet >= 0;
        r->cloud_month[m] = c.total;
    }
    return 0;
}

/* Installments of the owned servers still due after month M. */
static void after_horizon(struct roadmap *r)
{
    const struct plan *p = &r->p;
    const struct cost_prices *pr = p->base->prices;
    for (int t = 0; pr && r->found && t < p->ntypes; t++) {
        const struct node_template *nt = p->types[t].nt;
        double capex = nt->gpus > 0 ? cost_node_capex(pr, p->base->nodes, nt) / nt->gpus * p->types[t].gpn : -1;
        if (capex < 0)
            continue;
        for (int m = 0; m < r->months; m++) {
            int bought = r->plan[m].n[RM_OWNED][t] - (m ? r->plan[m - 1].n[RM_OWNED][t] : 0);
            double paid = r->months - m;
            if (bought > 0 && paid < r->amort_months)
                r->after_horizon += bought * capex * (r->amort_months - paid) / r->amort_months;
        }
    }
}

/* Each path's cheapest roadmap alone, and the roadmap's cost on it. */
static int regrets(struct roadmap *r, struct fs_err *err)
{
    static struct rm_month own[RM_MAX_MONTHS];
    int rc = 0;
    for (int k = 0; rc == 0 && k < r->npaths; k++) {
        r->only = k;
        for (size_t i = 0; i < (size_t)r->months * r->nstates; i++)
            r->cache[i].fleet = -2;
        rc = r->brute ? brute(r, own, &r->path_found[k], &r->path_best[k], err)
                      : dp(r, own, &r->path_found[k], &r->path_best[k], err);
        r->path_cost[k] = 0;
        for (int m = 0; rc == 0 && r->found && m < r->months; m++) {
            const struct rm_month *x = &r->plan[m];
            uint16_t n[PLAN_MAX_TYPES];
            rm_counts(r, (size_t)x->fleet, n);
            double e = nodes(r, x->n[RM_OWNED]) ? r->ev[rm_cell(r, k, m, (size_t)x->fleet)].energy *
                                                      kw(r, x->n[RM_OWNED]) / kw(r, n)
                                                : 0;
            r->path_cost[k] += x->total - x->energy + e;
        }
        if (fabs(r->path_cost[k] - r->path_best[k]) < 0.005) /* the same roadmap, summed in another order */
            r->path_cost[k] = r->path_best[k];
    }
    r->only = -1;
    return rc;
}

int roadmap_search(struct roadmap *r, struct fs_err *err)
{
    int rc = r->brute ? brute(r, r->plan, &r->found, &r->total, err) : dp(r, r->plan, &r->found, &r->total, err);
    if (rc == 0 && r->npaths > 1)
        rc = regrets(r, err);
    if (rc == 0)
        rc = best_static(r, err);
    if (rc == 0)
        rc = all_cloud(r, err);
    if (rc == 0)
        after_horizon(r);
    return rc;
}

double rm_margin(const struct roadmap *r, int m, size_t f, const struct plan_slo *s)
{
    double worst = HUGE_VAL;
    for (int k = 0; k < r->npaths; k++) {
        const struct rm_eval *e = &r->ev[rm_cell(r, k, m, f)];
        for (int j = 0; e->m && j < r->p.nseeds; j++) {
            double v = e->m[(size_t)j * METRIC_MAX + s->metric];
            worst = fmin(worst, s->op < 0 ? s->limit - v : v - s->limit);
        }
    }
    return worst;
}

void roadmap_free(struct roadmap *r)
{
    size_t pm = (size_t)r->npaths * (size_t)r->months;
    for (size_t i = 0; r->ev && i < pm * r->nstates; i++)
        free(r->ev[i].m);
    for (size_t i = 0; r->trees && i < pm; i++)
        cJSON_Delete(r->trees[i]);
    free(r->trees);
    free(r->ev);
    free(r->cache);
    free(r->value);
    plan_free(&r->p);
}
