/* plan_fleet.c - one candidate fleet of `fleetsim plan`: its scenario tree,
 * one seed's run and what is measured of it, and the figures over its
 * seeds (plan_int.h).
 */
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reports/metrics.h"
#include "../reports/summary.h"
#include "plan.h"

const char *const plan_fate_names[CF_COUNT] = {
    "simulated", "pruned", "infeasible", "empty", "over_power", "unpriced", "beyond_cost_bound",
};

static cJSON *group_json(const struct plan *p, int t, int nodes)
{
    const struct plan_type *pt = &p->types[t];
    cJSON *g;
    if (pt->group) {
        g = cJSON_Duplicate(pt->group, true);
        cJSON_ReplaceItemInObjectCaseSensitive(g, "nodes", cJSON_CreateNumber(nodes));
    } else {
        g = cJSON_CreateObject();
        cJSON_AddStringToObject(g, "gpu", p->base->cat->types[pt->gpu].name);
        cJSON_AddNumberToObject(g, "nodes", nodes);
        cJSON_AddNumberToObject(g, "gpus_per_node", pt->gpn);
    }
    return g;
}

cJSON *plan_tree(const struct plan *p, const uint16_t *n, int b)
{
    cJSON *root = cJSON_Duplicate(p->tree, true);
    cJSON *fleet = cJSON_CreateArray();
    for (int t = 0; t < p->ntypes; t++)
        if (n[t])
            cJSON_AddItemToArray(fleet, group_json(p, t, n[t]));
    cJSON_ReplaceItemInObjectCaseSensitive(root, "fleet", fleet);
    if (b >= 0) {
        cJSON *cost = cJSON_GetObjectItemCaseSensitive(root, "cost");
        if (!cJSON_IsObject(cost)) {
            cJSON_DeleteItemFromObjectCaseSensitive(root, "cost");
            cost = cJSON_AddObjectToObject(root, "cost");
        }
        enum cost_billing bill = p->bill[b];
        cJSON_DeleteItemFromObjectCaseSensitive(cost, "billing");
        cJSON_AddStringToObject(cost, "billing", cost_billing_names[bill]);
        cJSON_DeleteItemFromObjectCaseSensitive(cost, "commit");
        if (bill == COST_CLOUD && p->commit != COST_ON_DEMAND)
            cJSON_AddStringToObject(cost, "commit", cost_commit_names[p->commit]);
    }
    return root;
}

/* A trace under --growth G: every submit time / G (the order is kept). */
static void scale_trace(struct scenario *sc, double growth)
{
    for (size_t i = 0; i < sc->nbatch; i++)
        sc->wl.jobs[i].submit = (fs_time)llround((double)sc->wl.jobs[i].submit / growth);
}

void plan_run_seed(const struct plan *p, const uint16_t *n, int k, struct plan_seedrun *out)
{
    memset(out, 0, sizeof *out);
    struct fs_err err = {0};
    struct scenario_options so = p->so;
    so.has_seed = true;
    so.seed = p->seeds[k];
    cJSON *tree = plan_tree(p, n, -1);
    struct scenario *sc = NULL;
    out->rc = scenario_load_tree(tree, p->path, &so, &sc, &err);
    cJSON_Delete(tree);
    if (out->rc) {
        snprintf(out->why, sizeof out->why, "%s", err.msg);
        return;
    }
    if (p->trace && p->growth != 1)
        scale_trace(sc, p->growth);
    struct run_result r;
    int rc = run_scenario(&(struct run_spec){.sc = sc}, &r, &err);
    if (r.interrupted) {
        out->rc = PLAN_INTERRUPTED;
    } else if (rc) {
        out->rc = rc;
        snprintf(out->why, sizeof out->why, "%s", err.msg);
    } else {
        metric_values(&r, out->m);
        for (int b = 0; b < p->nbill; b++) {
            struct fleet_cost fc;
            enum cost_billing bill = p->bill[b];
            fleet_cost_compute(r.s, r.m, bill, bill == COST_CLOUD ? p->commit : COST_ON_DEMAND, &fc);
            out->month[b] = fc.ok ? fc.month_usd : -1;
        }
    }
    run_result_free(&r);
    scenario_free(sc);
}

double plan_cost(const struct plan *p, const struct plan_cand *c, double *min, double *max)
{
    const struct plan_result *r = p->fleets[c->fleet].r;
    double sum = 0, lo = HUGE_VAL, hi = -HUGE_VAL;
    for (int k = 0; k < p->nseeds; k++) {
        double v = r->month[k][c->billing];
        if (v < 0)
            return -1;
        sum += v;
        lo = fmin(lo, v);
        hi = fmax(hi, v);
    }
    if (min)
        *min = lo;
    if (max)
        *max = hi;
    return sum / p->nseeds;
}

double plan_metric_min(const struct plan *p, const struct plan_fleet *f, int k)
{
    double v = HUGE_VAL;
    for (int s = 0; s < p->nseeds; s++)
        v = fmin(v, f->r->m[s][k]);
    return v;
}

double plan_metric_max(const struct plan *p, const struct plan_fleet *f, int k)
{
    double v = -HUGE_VAL;
    for (int s = 0; s < p->nseeds; s++)
        v = fmax(v, f->r->m[s][k]);
    return v;
}

double plan_margin(const struct plan *p, const struct plan_fleet *f, const struct plan_slo *s)
{
    return s->op < 0 ? s->limit - plan_metric_max(p, f, s->metric) : plan_metric_min(p, f, s->metric) - s->limit;
}

void plan_fleet_label(const struct plan *p, const struct plan_fleet *f, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int t = 0; t < p->ntypes && len < size; t++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s:%d", t ? " " : "",
                                p->base->cat->types[p->types[t].gpu].name, f->n[t]);
}

void plan_slo_label(const struct plan_slo *s, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s%g", metric_table[s->metric].name, s->op < 0 ? "<=" : ">=", s->limit);
}

void plan_free(struct plan *p)
{
    for (size_t i = 0; p->fleets && i < p->nfleets; i++) {
        free(p->fleets[i].r);
        free(p->fleets[i].runs);
        free(p->fleets[i].why);
    }
    free(p->fleets);
    free(p->cands);
    free(p->cand_at);
    free(p->front);
    cJSON_Delete(p->tree);
    scenario_free(p->base);
}
