/* plan_load.c - what `fleetsim plan` and `fleetsim roadmap` read the same
 * way: the --slo list, and the base scenario with its planned GPU types
 * (their groups, node templates, full-load power and prices).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

int plan_parse_slos(struct plan *p, const char *text, struct fs_err *err)
{
    char *list = xstrdup(text), *save = NULL;
    int rc = 0;
    for (char *s = strtok_r(list, ",", &save); rc == 0 && s; s = strtok_r(NULL, ",", &save)) {
        char *op = strstr(s, "<=");
        if (!op)
            op = strstr(s, ">=");
        if (!op || op == s) {
            rc = fs_fail(err, FS_EUSAGE, "--slo: \"%s\": expected METRIC<=VALUE or METRIC>=VALUE", s);
            break;
        }
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(op - s), s);
        int k = 0;
        while (k < metric_count && !(plan_metric(k) && strcmp(metric_table[k].name, name) == 0))
            k++;
        if (k == metric_count) {
            const char *names[METRIC_MAX];
            size_t n = 0;
            for (int i = 0; i < metric_count; i++)
                if (plan_metric(i))
                    names[n++] = metric_table[i].name;
            const char *hint = fs_suggest(name, names, n);
            char all[sizeof err->msg] = "";
            for (size_t i = 0; i < n; i++)
                snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", i ? ", " : "", names[i]);
            rc = fs_fail(err, FS_EUSAGE, "--slo: unknown metric \"%s\"%s%s%s (%s)", name,
                         hint ? "; did you mean \"" : "", hint ? hint : "", hint ? "\"?" : "", all);
            break;
        }
        if (p->nslos == PLAN_MAX_SLOS) {
            rc = fs_fail(err, FS_EUSAGE, "--slo: at most %d SLOs", PLAN_MAX_SLOS);
            break;
        }
        char *end;
        errno = 0;
        double v = strtod(op + 2, &end);
        if (errno || end == op + 2 || *end || !isfinite(v) || fabs(v) > 1e18) {
            rc = fs_fail(err, FS_EUSAGE, "--slo: \"%s\" is not a number", op + 2);
            break;
        }
        p->slos[p->nslos++] = (struct plan_slo){k, op[0] == '<' ? -1 : +1, v};
    }
    free(list);
    if (rc == 0 && p->nslos == 0)
        rc = fs_fail(err, FS_EUSAGE, "--slo: no SLO given");
    return rc;
}

/* One planned type: its group in the scenario, template, size, power and
 * prices.  RET: 0 or FS_EUSAGE. */
static int add_type(struct plan *p, const char *name, struct fs_err *err)
{
    const struct scenario *sc = p->base;
    int g = gpu_catalog_find(sc->cat, name);
    if (g < 0) {
        const char *hint = fs_suggest(name, sc->cat->names, (size_t)sc->cat->n);
        return fs_fail(err, FS_EUSAGE, "--types: unknown GPU type \"%s\"%s%s%s", name,
                       hint ? "; did you mean \"" : "", hint ? hint : "", hint ? "\"?" : "");
    }
    for (int t = 0; t < p->ntypes; t++)
        if (p->types[t].gpu == g)
            return fs_fail(err, FS_EUSAGE, "--types: \"%s\" given twice", name);
    if (p->ntypes == PLAN_MAX_TYPES)
        return fs_fail(err, FS_EUSAGE, "--types: at most %d types", PLAN_MAX_TYPES);
    struct plan_type *pt = &p->types[p->ntypes];
    *pt = (struct plan_type){.gpu = g};
    const cJSON *fleet = cJSON_GetObjectItemCaseSensitive(p->tree, "fleet");
    double cap_w = 0;
    int psus_ok = 0;
    for (int i = 0; i < sc->nfleet; i++) {
        if (sc->fleet[i].type != g)
            continue;
        pt->group = cJSON_GetArrayItem(fleet, i);
        pt->gpn = sc->fleet[i].gpus_per_node;
        pt->nt = sc->fleet_power[i].node;
        cap_w = sc->fleet_power[i].cap_w;
        psus_ok = sc->fleet_power[i].psus_ok;
        break;
    }
    if (!pt->group) {
        pt->nt = node_template_for_gpu(sc->nodes, g);
        if (!pt->nt)
            return fs_fail(err, FS_EUSAGE, "--types: no node template for GPU type \"%s\" in nodes.json", name);
        pt->gpn = pt->nt->gpus < 8 ? pt->nt->gpus : 8;
        psus_ok = pt->nt->psu_count;
    }
    const struct gpu_type *gt = &sc->cat->types[g];
    double gpu_w = cap_w > 0 && cap_w < gt->tdp_w ? cap_w : gt->tdp_w;
    struct node_power np = node_power_eval(sc->nodes, pt->nt, pt->gpn * gpu_w, 1, psus_ok);
    pt->node_kw = np.wall_w * sc->pue / 1000;
    for (int b = 0; b < COST_BILLINGS; b++)
        pt->gpu_month[b] = sc->prices ? cost_gpu_month(sc->prices, sc->nodes, pt->nt, g, (enum cost_billing)b,
                                                       b == COST_CLOUD ? p->commit : COST_ON_DEMAND)
                                      : -1;
    p->ntypes++;
    return 0;
}

int plan_load(struct plan *p, const char *types, struct fs_err *err)
{
    int rc = scenario_read(p->path, &p->so, &p->tree, err);
    if (rc)
        return rc;
    const cJSON *wl = cJSON_GetObjectItemCaseSensitive(p->tree, "workload");
    cJSON *gen = cJSON_GetObjectItemCaseSensitive(wl, "generator");
    cJSON *rate = cJSON_GetObjectItemCaseSensitive(gen, "arrivals_per_hour");
    p->trace = cJSON_IsObject(wl) && cJSON_HasObjectItem(wl, "trace");
    if (p->growth != 1 && cJSON_IsNumber(rate))
        cJSON_SetNumberValue(rate, rate->valuedouble * p->growth);
    if ((rc = scenario_load_tree(p->tree, p->path, &p->so, &p->base, err)))
        return rc;
    const struct scenario *sc = p->base;
    p->commit = sc->cost.billing == COST_CLOUD ? sc->cost.commit : COST_ON_DEMAND;
    if (p->nbill == 0)
        p->bill[p->nbill++] = sc->cost.billing;
    if (p->nseeds == 0)
        p->seeds[p->nseeds++] = sc->seed;
    if (types) {
        char *list = xstrdup(types), *save = NULL;
        for (char *s = strtok_r(list, ",", &save); rc == 0 && s; s = strtok_r(NULL, ",", &save))
            rc = add_type(p, s, err);
        free(list);
        if (rc == 0 && p->ntypes == 0)
            rc = fs_fail(err, FS_EUSAGE, "--types: no GPU type given");
        return rc;
    }
    for (int i = 0; rc == 0 && i < sc->nfleet; i++) {
        bool seen = false;
        for (int t = 0; t < p->ntypes; t++)
            seen |= p->types[t].gpu == sc->fleet[i].type;
        if (!seen)
            rc = add_type(p, sc->cat->types[sc->fleet[i].type].name, err);
    }
    return rc;
}
