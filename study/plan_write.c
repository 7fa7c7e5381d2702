/* plan_write.c - the outputs of `fleetsim plan`: plan.json, plan.md,
 * fleet.json (and workload.csv for a trace under --growth), frontier.csv,
 * frontier.gp and frontier.png, all written under temporary names and
 * renamed together (reports/output.h); and the summary on stderr.
 */
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/version.h"
#include "../base/signals.h"
#include "../reports/output.h"
#include "../reports/report.h"
#include "plan.h"

/* --- plan.json ------------------------------------------------------------------ */

static cJSON *fleet_json(const struct plan *p, const struct plan_fleet *f)
{
    cJSON *a = cJSON_CreateArray();
    for (int t = 0; t < p->ntypes; t++) {
        cJSON *g = cJSON_CreateObject();
        cJSON_AddStringToObject(g, "gpu", p->base->cat->types[p->types[t].gpu].name);
        cJSON_AddNumberToObject(g, "nodes", f->n[t]);
        cJSON_AddNumberToObject(g, "gpus_per_node", p->types[t].gpn);
        cJSON_AddItemToArray(a, g);
    }
    return a;
}

static cJSON *metrics_json(const double *v, double cost)
{
    cJSON *o = cJSON_CreateObject();
    for (int k = 0; k < metric_count; k++)
        if (plan_metric(k))
            cJSON_AddItemToObject(o, metric_table[k].name, isfinite(v[k]) ? cJSON_CreateNumber(v[k]) : cJSON_CreateNull());
    cJSON_AddNumberToObject(o, "cost_month_usd", cost);
    return o;
}

static cJSON *chosen_json(const struct plan *p)
{
    const struct plan_cand *c = &p->cands[p->chosen];
    const struct plan_fleet *f = &p->fleets[c->fleet];
    enum cost_billing bill = p->bill[c->billing];
    double lo, hi, mean = plan_cost(p, c, &lo, &hi);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "fleet", fleet_json(p, f));
    cJSON_AddStringToObject(o, "billing", cost_billing_names[bill]);
    cJSON_AddStringToObject(o, "commit", cost_commit_names[bill == COST_CLOUD ? p->commit : COST_ON_DEMAND]);
    cJSON_AddNumberToObject(o, "gpus", f->gpus);
    cJSON_AddNumberToObject(o, "power_kw", f->kw);
    cJSON_AddNumberToObject(o, "capacity_month_usd", c->capacity);
    cJSON_AddNumberToObject(o, "cost_month_usd", mean);
    cJSON_AddNumberToObject(o, "cost_month_usd_min", lo);
    cJSON_AddNumberToObject(o, "cost_month_usd_max", hi);
    cJSON *m = cJSON_AddObjectToObject(o, "metrics");
    cJSON *seeds = cJSON_AddArrayToObject(m, "per_seed");
    double vmin[METRIC_MAX], vmax[METRIC_MAX];
    for (int k = 0; k < metric_count; k++) {
        vmin[k] = plan_metric_min(p, f, k);
        vmax[k] = plan_metric_max(p, f, k);
    }
    for (int s = 0; s < p->nseeds; s++) {
        cJSON *e = metrics_json(f->r->m[s], f->r->month[s][c->billing]);
        cJSON_AddItemToObject(e, "seed", cJSON_CreateNumber((double)p->seeds[s]));
        cJSON_AddItemToArray(seeds, e);
    }
    cJSON_AddItemToObject(m, "min", metrics_json(vmin, lo));
    cJSON_AddItemToObject(m, "max", metrics_json(vmax, hi));
    cJSON *mg = cJSON_AddArrayToObject(o, "slo_margins");
    for (int s = 0; s < p->nslos; s++) {
        const struct plan_slo *slo = &p->slos[s];
        char label[128];
        plan_slo_label(slo, label, sizeof label);
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "slo", label);
        cJSON_AddNumberToObject(e, "worst", slo->op < 0 ? vmax[slo->metric] : vmin[slo->metric]);
        cJSON_AddNumberToObject(e, "margin", plan_margin(p, f, slo));
        cJSON_AddItemToArray(mg, e);
    }
    return o;
}

/* The planned types: size, template, full-load power, prices. */
static cJSON *types_json(const struct plan *p)
{
    cJSON *types = cJSON_CreateArray();
    for (int t = 0; t < p->ntypes; t++) {
        const struct plan_type *pt = &p->types[t];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "gpu", p->base->cat->types[pt->gpu].name);
        cJSON_AddNumberToObject(e, "gpus_per_node", pt->gpn);
        cJSON_AddStringToObject(e, "node", pt->nt->name);
        cJSON_AddNumberToObject(e, "node_kw", pt->node_kw);
        cJSON *pr = cJSON_AddObjectToObject(e, "gpu_month_usd");
        for (int b = 0; b < p->nbill; b++)
            cJSON_AddNumberToObject(pr, cost_billing_names[p->bill[b]], pt->gpu_month[p->bill[b]]);
        cJSON_AddItemToArray(types, e);
    }
    return types;
}

static char *plan_json(const struct plan *p)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "fleetsim_plan", 1);
    cJSON_AddStringToObject(root, "scenario", p->path);
    cJSON_AddStringToObject(root, "name", p->base->name);
    cJSON_AddStringToObject(root, "search", p->brute ? "brute-force" : "pruned");
    cJSON_AddItemToObject(root, "types", types_json(p));
    cJSON_AddNumberToObject(root, "max_nodes", p->max_nodes);
    cJSON *bill = cJSON_AddArrayToObject(root, "billing");
    for (int b = 0; b < p->nbill; b++)
        cJSON_AddItemToArray(bill, cJSON_CreateString(cost_billing_names[p->bill[b]]));
    cJSON *seeds = cJSON_AddArrayToObject(root, "seeds");
    for (int s = 0; s < p->nseeds; s++)
        cJSON_AddItemToArray(seeds, cJSON_CreateNumber((double)p->seeds[s]));
    cJSON_AddNumberToObject(root, "growth", p->growth);
    if (p->power_kw > 0)
        cJSON_AddNumberToObject(root, "power_kw", p->power_kw);
    else
        cJSON_AddNullToObject(root, "power_kw");
    cJSON *slos = cJSON_AddArrayToObject(root, "slos");
    for (int s = 0; s < p->nslos; s++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "metric", metric_table[p->slos[s].metric].name);
        cJSON_AddStringToObject(e, "op", p->slos[s].op < 0 ? "<=" : ">=");
        cJSON_AddNumberToObject(e, "limit", p->slos[s].limit);
        cJSON_AddItemToArray(slos, e);
    }
    if (p->chosen >= 0)
        cJSON_AddItemToObject(root, "chosen", chosen_json(p));
    else
        cJSON_AddNullToObject(root, "chosen");
    cJSON_AddNumberToObject(root, "simulations", (double)p->simulations);
    cJSON_AddNumberToObject(root, "brute_force_simulations_at_most", (double)p->brute_bound);
    cJSON_AddNumberToObject(root, "candidates_total", (double)p->ncands);
    cJSON_AddNumberToObject(root, "candidates_pruned", (double)p->fate[CF_PRUNED]);
    cJSON *fates = cJSON_AddObjectToObject(root, "candidates");
    for (int k = 0; k < CF_COUNT; k++)
        cJSON_AddNumberToObject(fates, plan_fate_names[k], (double)p->fate[k]);
    if (p->brute)
        cJSON_AddNumberToObject(root, "monotonicity_violations", (double)p->violations);
    cJSON *front = cJSON_AddArrayToObject(root, "frontier");
    for (size_t i = 0; i < p->nfront; i++) {
        const struct plan_cand *c = &p->cands[p->front[i]];
        const struct plan_fleet *f = &p->fleets[c->fleet];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddItemToObject(e, "fleet", fleet_json(p, f));
        cJSON_AddStringToObject(e, "billing", cost_billing_names[p->bill[c->billing]]);
        cJSON_AddNumberToObject(e, "cost_month_usd", plan_cost(p, c, NULL, NULL));
        cJSON_AddNumberToObject(e, "wait_p95_s", plan_metric_max(p, f, METRIC_WAIT_P95));
        cJSON_AddBoolToObject(e, "meets_slos", f->state == FL_PASS);
        cJSON_AddItemToArray(front, e);
    }
    cJSON_AddItemToObject(root, "meta", version_json());
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    return text;
}

/* --- fleet.json ----------------------------------------------------------------- */

/* rel (a path in the scenario) as the scenario resolves it, made absolute. */
static char *absolute(const char *scenario, const char *rel)
{
    char *copy = xstrdup(scenario), *joined;
    if (rel[0] == '/') {
        joined = xstrdup(rel);
    } else {
        const char *d = dirname(copy);
        joined = xmalloc(strlen(d) + strlen(rel) + 2);
        sprintf(joined, "%s/%s", d, rel);
    }
    free(copy);
    char buf[PATH_MAX];
    if (realpath(joined, buf)) {
        free(joined);
        return xstrdup(buf);
    }
    if (joined[0] != '/' && getcwd(buf, sizeof buf)) {
        char *out = xmalloc(strlen(buf) + strlen(joined) + 2);
        sprintf(out, "%s/%s", buf, joined);
        free(joined);
        return out;
    }
    return joined;
}

static void make_absolute(const struct plan *p, cJSON *obj, const char *key)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsString(v))
        return;
    char *abs = absolute(p->path, v->valuestring);
    cJSON_ReplaceItemInObjectCaseSensitive(obj, key, cJSON_CreateString(abs));
    free(abs);
}

/* root[key] = item, replacing a value there or adding the key. */
static void put(cJSON *root, const char *key, cJSON *item)
{
    if (!cJSON_ReplaceItemInObjectCaseSensitive(root, key, item))
        cJSON_AddItemToObject(root, key, item);
}

char *plan_scenario_file(const struct plan *p, const uint16_t *n, int b, const char *name, const char *description,
                         const char *csv)
{
    cJSON *root = plan_tree(p, n, b);
    put(root, "name", cJSON_CreateString(name));
    put(root, "description", cJSON_CreateString(description));
    put(root, "seed", cJSON_CreateNumber((double)p->seeds[0]));
    make_absolute(p, root, "catalog");
    if (!cJSON_HasObjectItem(root, "catalog") && p->catalog_opt) {
        char *abs = absolute(".", p->catalog_opt);
        cJSON_AddStringToObject(root, "catalog", abs);
        free(abs);
    }
    if (csv) {
        cJSON *wl = cJSON_CreateObject();
        cJSON_AddStringToObject(wl, "trace", csv);
        cJSON_ReplaceItemInObjectCaseSensitive(root, "workload", wl);
    } else {
        make_absolute(p, cJSON_GetObjectItemCaseSensitive(root, "workload"), "trace");
    }
    make_absolute(p, cJSON_GetObjectItemCaseSensitive(root, "faults"), "model");
    cJSON *svc;
    cJSON_ArrayForEach(svc, cJSON_GetObjectItemCaseSensitive(root, "services"))
        make_absolute(p, cJSON_GetObjectItemCaseSensitive(svc, "demand"), "trace");
    char *out = cJSON_Print(root);
    cJSON_Delete(root);
    return out;
}

/* The scenario with the chosen fleet and billing (a trace under --growth
 * becomes workload.csv beside it). */
static char *fleet_file(const struct plan *p, bool workload_csv)
{
    const struct plan_cand *c = &p->cands[p->chosen];
    char name[512], text[512];
    snprintf(name, sizeof name, "%s-plan", p->base->name);
    snprintf(text, sizeof text, "The fleet fleetsim plan chose for %s (%s), run with the first planned seed%s.",
             p->base->name, p->path,
             p->growth != 1 ? (p->trace ? " and the trace's submit times divided by the growth"
                                        : " and arrivals_per_hour multiplied by the growth")
                            : "");
    return plan_scenario_file(p, p->fleets[c->fleet].n, c->billing, name, text, workload_csv ? "workload.csv" : NULL);
}

/* The trace's jobs with their submit times / growth, as a native CSV. */
int plan_write_workload(FILE *f, const struct plan *p)
{
    const struct scenario *sc = p->base;
    struct workload w = sc->wl;
    w.n = sc->nbatch;
    w.jobs = xmalloc((w.n + 1) * sizeof *w.jobs);
    memcpy(w.jobs, sc->wl.jobs, w.n * sizeof *w.jobs);
    for (size_t i = 0; i < w.n; i++)
        w.jobs[i].submit = (fs_time)llround((double)w.jobs[i].submit / p->growth);
    int rc = workload_write_native(f, &w, sc->cat);
    free(w.jobs);
    return rc;
}

/* --- frontier.csv, frontier.gp, plan.md ------------------------------------------ */

static bool on_front(const struct plan *p, size_t i)
{
    for (size_t k = 0; k < p->nfront; k++)
        if (p->front[k] == i)
            return true;
    return false;
}

struct row {
    size_t i;
    double cost;
};

static int row_cmp(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    long long cx = llround(x->cost * 100), cy = llround(y->cost * 100);
    if (cx != cy)
        return cx < cy ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Every simulated candidate by cost; frontier_wait_h is empty off the
 * frontier, so gnuplot draws the frontier as one line through the rest. */
static void frontier_csv(FILE *f, const struct plan *p)
{
    struct row *rows = xcalloc(p->ncands + 1, sizeof *rows);
    size_t n = 0;
    for (size_t i = 0; i < p->ncands; i++) {
        const struct plan_cand *c = &p->cands[i];
        const struct plan_fleet *fl = &p->fleets[c->fleet];
        double cost = c->fate == CF_SIMULATED && fl->state != FL_INFEASIBLE ? plan_cost(p, c, NULL, NULL) : -1;
        if (cost >= 0)
            rows[n++] = (struct row){i, cost};
    }
    qsort(rows, n, sizeof *rows, row_cmp);
    fputs("fleet,billing,gpus,cost_month_usd,wait_p95_s,wait_p95_h,meets_slos,chosen,frontier_wait_h\n", f);
    for (size_t k = 0; k < n; k++) {
        size_t i = rows[k].i;
        const struct plan_fleet *fl = &p->fleets[p->cands[i].fleet];
        char label[256], front[32] = "";
        plan_fleet_label(p, fl, label, sizeof label);
        double w = plan_metric_max(p, fl, METRIC_WAIT_P95);
        if (on_front(p, i))
            snprintf(front, sizeof front, "%.4f", w / 3600);
        fprintf(f, "%s,%s,%d,%.2f,%.1f,%.4f,%d,%d,%s\n", label, cost_billing_names[p->bill[p->cands[i].billing]],
                fl->gpus, rows[k].cost, w, w / 3600, fl->state == FL_PASS, (long)i == p->chosen, front);
    }
    free(rows);
}

static void frontier_gp(FILE *f, const struct plan *p)
{
    charts_gp_head(f, "frontier", "fleetsim plan: monthly cost vs p95 wait (worst seed)");
    for (int s = 0; s < p->nslos; s++)
        if (p->slos[s].metric == METRIC_WAIT_P95)
            fprintf(f, "set arrow from graph 0, first %g to graph 1, first %g nohead dt 2 lc rgb '#555555'\n"
                       "set label 'SLO %s %g h' at graph 0.01, first %g offset 0,0.6 tc rgb '#555555'\n",
                    p->slos[s].limit / 3600, p->slos[s].limit / 3600, p->slos[s].op < 0 ? "<=" : ">=",
                    p->slos[s].limit / 3600, p->slos[s].limit / 3600);
    fputs("set xlabel 'USD per 730-h month'\nset ylabel 'p95 wait, worst seed (h)'\n"
          "set format x '%.0f'\n"
          "plot datafile using 4:($7==0 ? $6 : 1/0) with points pt 2 ps 1.2 lc rgb '#c0392b' title 'misses an SLO', \\\n"
          "     datafile using 4:($7==1 ? $6 : 1/0) with points pt 6 ps 1.2 lc rgb '#2471a3' title 'meets every SLO', \\\n"
          "     datafile using 4:9 with lines lw 2 lc rgb '#7d3c98' title 'Pareto frontier', \\\n"
          "     datafile using 4:($8==1 ? $6 : 1/0) with points pt 7 ps 2.2 lc rgb '#1e8449' title 'chosen'\n",
          f);
}

static void md_fleet_table(FILE *f, const struct plan *p, const struct plan_fleet *fl)
{
    fputs("| GPU | nodes | GPUs per node | node template |\n|---|---|---|---|\n", f);
    for (int t = 0; t < p->ntypes; t++)
        fprintf(f, "| %s | %d | %d | %s |\n", p->base->cat->types[p->types[t].gpu].name, fl->n[t], p->types[t].gpn,
                p->types[t].nt->name);
}

static void md_chosen(FILE *f, const struct plan *p)
{
    char label[256];
    const struct plan_cand *c = &p->cands[p->chosen];
    const struct plan_fleet *fl = &p->fleets[c->fleet];
    double lo, hi, mean = plan_cost(p, c, &lo, &hi);
    md_fleet_table(f, p, fl);
    fprintf(f, "\n%d GPUs, %s: **%.2f USD per month** (mean over seeds; %.2f to %.2f), of which %.2f capacity; "
               "%.1f kW at full load (facility).\n\n",
            fl->gpus, cost_billing_names[p->bill[c->billing]], mean, lo, hi, c->capacity, fl->kw);
    fputs("| SLO | worst seed | margin |\n|---|---|---|\n", f);
    for (int s = 0; s < p->nslos; s++) {
        const struct plan_slo *slo = &p->slos[s];
        plan_slo_label(slo, label, sizeof label);
        fprintf(f, "| `%s` | %.6g | %+.6g |\n", label,
                slo->op < 0 ? plan_metric_max(p, fl, slo->metric) : plan_metric_min(p, fl, slo->metric),
                plan_margin(p, fl, slo));
    }
    fputs("\n| seed | p95 wait (h) | mean wait (h) | utilization | PSU peak (%) | SLO attainment | "
          "latency attainment | not started | USD per month |\n|---|---|---|---|---|---|---|---|---|\n", f);
    for (int s = 0; s < p->nseeds; s++) {
        const double *v = fl->r->m[s];
        fprintf(f, "| %llu | %.3f | %.3f | %.4f | %.1f | %.4f | %.4f | %.0f | %.2f |\n", (unsigned long long)p->seeds[s],
                v[METRIC_WAIT_P95] / 3600, v[METRIC_WAIT_MEAN] / 3600, v[METRIC_UTILIZATION], v[METRIC_PSU_PEAK], v[METRIC_SLO],
                v[METRIC_LATENCY], v[METRIC_JOBS_NOT_STARTED], fl->r->month[s][c->billing]);
    }
    fputc('\n', f);
}

static void plan_md(FILE *f, const struct plan *p, bool drawn)
{
    char label[256];
    fprintf(f, "# fleetsim plan: %s\n\n", p->base->name);
    fprintf(f, "Scenario `%s`, demand x %g, seeds", p->path, p->growth);
    for (int s = 0; s < p->nseeds; s++)
        fprintf(f, "%s %llu", s ? "," : "", (unsigned long long)p->seeds[s]);
    fprintf(f, "; 0..%d nodes of each type; billing", p->max_nodes);
    for (int b = 0; b < p->nbill; b++)
        fprintf(f, "%s %s", b ? "," : "", cost_billing_names[p->bill[b]]);
    fputs(". SLOs, met on every seed:", f);
    for (int s = 0; s < p->nslos; s++) {
        plan_slo_label(&p->slos[s], label, sizeof label);
        fprintf(f, "%s `%s`", s ? "," : "", label);
    }
    if (p->power_kw > 0)
        fprintf(f, "; facility power at full load <= %g kW", p->power_kw);
    fputs(".\n\n## Chosen fleet\n\n", f);
    if (p->chosen < 0)
        fputs("None: no candidate meets every SLO on every seed.\n\n", f);
    else
        md_chosen(f, p);
    fprintf(f, "## Search\n\n%s: %zu simulations (a brute force runs at most %zu). Of %zu candidates:",
            p->brute ? "Brute force" : "Best-first by capacity cost with dominance pruning", p->simulations,
            p->brute_bound, p->ncands);
    for (int k = 0; k < CF_COUNT; k++)
        fprintf(f, "%s %zu %s", k ? "," : "", p->fate[k], plan_fate_names[k]);
    fputs(".\n\n## Pareto frontier: monthly cost vs p95 wait (worst seed)\n\n"
          "| fleet | billing | USD per month | p95 wait (h) | meets SLOs |\n|---|---|---|---|---|\n", f);
    for (size_t i = 0; i < p->nfront; i++) {
        const struct plan_cand *c = &p->cands[p->front[i]];
        const struct plan_fleet *fl = &p->fleets[c->fleet];
        plan_fleet_label(p, fl, label, sizeof label);
        fprintf(f, "| %s | %s | %.2f | %.3f | %s |\n", label, cost_billing_names[p->bill[c->billing]],
                plan_cost(p, c, NULL, NULL), plan_metric_max(p, fl, METRIC_WAIT_P95) / 3600,
                fl->state == FL_PASS ? "yes" : "no");
    }
    if (drawn)
        fputs("\n![frontier](frontier.png)\n", f);
    else
        fputs("\n[chart not rendered: gnuplot was not found or failed. Render it with: gnuplot frontier.gp]\n", f);
}

/* --- all of them ---------------------------------------------------------------- */

enum { F_JSON, F_MD, F_CSV, F_GP, F_PNG, F_FLEET, F_WORKLOAD, F_COUNT };
static const char *const f_names[F_COUNT] = {"plan.json", "plan.md", "frontier.csv", "frontier.gp",
                                             "frontier.png", "fleet.json", "workload.csv"};

int plan_write(const struct plan *p, const char *dir, bool *drawn, struct fs_err *err)
{
    struct outset set;
    struct outfile out[F_COUNT] = {0};
    bool csv = p->chosen >= 0 && p->trace && p->growth != 1;
    char *json = plan_json(p), *fleet = p->chosen >= 0 ? fleet_file(p, csv) : NULL;
    int rc = out_set_begin(&set, dir, err);
    for (int k = 0; rc == 0 && k < F_COUNT; k++)
        if ((k != F_FLEET || fleet) && (k != F_WORKLOAD || csv))
            rc = out_set_open(&set, &out[k], f_names[k], err);
    if (rc)
        goto done;
    fprintf(out[F_JSON].f, "%s\n", json);
    frontier_csv(out[F_CSV].f, p);
    frontier_gp(out[F_GP].f, p);
    if (fleet)
        fprintf(out[F_FLEET].f, "%s\n", fleet);
    if (csv && (rc = plan_write_workload(out[F_WORKLOAD].f, p)))
        rc = rc == FS_EINTERRUPTED ? fs_fail_interrupted(err)
                                   : out_budget_error(fs_fail(err, FS_ECANTCREAT, "%s: cannot write workload.csv",
                                                              dir), err);
    for (int k = 0; rc == 0 && k < F_COUNT; k++)
        if (k != F_MD && out[k].f)
            rc = out_close(&out[k], err);
    if (rc)
        goto done;
    const char *gnuplot = charts_gnuplot();
    *drawn = gnuplot && charts_render(gnuplot, out_set_path(&set), "frontier", out[F_GP].tmp, out[F_CSV].tmp, out[F_PNG].tmp) == 0;
    if (!*drawn)
        out_discard(&out[F_PNG]);
    plan_md(out[F_MD].f, p, *drawn);
    if ((rc = out_close(&out[F_MD], err)))
        goto done;
    rc = out_set_commit(&set, err);
done:
    for (int k = 0; k < F_COUNT; k++)
        out_discard(&out[k]);
    out_set_end(&set);
    free(json);
    free(fleet);
    return rc;
}

/* --- stderr ----------------------------------------------------------------------- */

void plan_print(const struct plan *p, const char *dir, bool drawn)
{
    char label[256];
    if (p->chosen >= 0) {
        const struct plan_cand *c = &p->cands[p->chosen];
        const struct plan_fleet *fl = &p->fleets[c->fleet];
        double lo, hi, mean = plan_cost(p, c, &lo, &hi);
        plan_fleet_label(p, fl, label, sizeof label);
        fprintf(stderr, "  chosen     %s (%d GPUs), %s: %.2f USD per month (seeds %.2f .. %.2f)\n", label, fl->gpus,
                cost_billing_names[p->bill[c->billing]], mean, lo, hi);
        for (int s = 0; s < p->nslos; s++) {
            const struct plan_slo *slo = &p->slos[s];
            plan_slo_label(slo, label, sizeof label);
            fprintf(stderr, "  margin     %-24s worst seed %.6g, margin %+.6g\n", label,
                    slo->op < 0 ? plan_metric_max(p, fl, slo->metric) : plan_metric_min(p, fl, slo->metric),
                    plan_margin(p, fl, slo));
        }
    } else {
        fputs("  chosen     none: no candidate meets every SLO on every seed\n", stderr);
    }
    if (p->brute)
        fprintf(stderr, "  search     %zu simulations, every fleet (brute force; %zu candidates: %zu cannot host the "
                        "workload, %zu over the power budget)\n",
                p->simulations, p->ncands, p->fate[CF_INFEASIBLE], p->fate[CF_POWER]);
    else
        fprintf(stderr, "  search     %zu simulations; a brute force runs up to %zu (%zu candidates: %zu pruned, %zu "
                        "beyond the cost bound, %zu cannot host the workload, %zu over the power budget)\n",
                p->simulations, p->brute_bound, p->ncands, p->fate[CF_PRUNED], p->fate[CF_BEYOND],
                p->fate[CF_INFEASIBLE], p->fate[CF_POWER]);
    if (p->brute)
        fprintf(stderr, "  monotone   %zu passing fleets dominated by a failure (a pruned search would skip them)\n",
                p->violations);
    fprintf(stderr, "  frontier   %zu points\n  wrote      %s/{plan.json,plan.md,%sfrontier.csv,frontier.gp%s}\n",
            p->nfront, dir, p->chosen >= 0 ? (p->trace && p->growth != 1 ? "fleet.json,workload.csv," : "fleet.json,")
                                            : "",
            drawn ? ",frontier.png" : "");
}

void plan_print_none(const struct plan *p, const char *dir)
{
    char slo[512] = "", one[128], names[512] = "";
    for (int s = 0; s < p->nslos; s++) {
        plan_slo_label(&p->slos[s], one, sizeof one);
        snprintf(slo + strlen(slo), sizeof slo - strlen(slo), "%s%s", s ? ", " : "", one);
    }
    for (int t = 0; t < p->ntypes; t++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", t ? ", " : "",
                 p->base->cat->types[p->types[t].gpu].name);
    fprintf(stderr, "fleetsim: %s: no fleet of up to %d nodes of each of %s meets %s on every seed%s; "
                    "wrote %s/plan.json with \"chosen\": null\n",
            p->path, p->max_nodes, names, slo, p->power_kw > 0 ? " within the power budget" : "", dir);
}
