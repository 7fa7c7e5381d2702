/* roadmap_write.c - the outputs of `fleetsim roadmap`: roadmap.json,
 * roadmap.md, and month-N.json (with month-N.csv for a trace), one
 * runnable scenario per month, all written as one set (reports/output.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/version.h"
#include "../reports/doc.h"
#include "../reports/output.h"
#include "../reports/report.h"
#include "roadmap.h"

static const char *gpu_name(const struct roadmap *r, int t)
{
    return r->p.base->cat->types[r->p.types[t].gpu].name;
}

/* Month m's nodes of type t from every source. */
static int held(const struct rm_month *x, int t)
{
    return x->n[RM_OWNED][t] + x->n[RM_LEASED][t] + x->n[RM_CLOUD][t];
}

static cJSON *number_or_null(bool ok, double v)
{
    return ok && isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

/* What changes in month m: orders placed (delivered lead months later),
 * deliveries, leases started and ended, cloud nodes rented and returned. */
static cJSON *actions_json(const struct roadmap *r, int m)
{
    static const char *const up[RM_SOURCES] = {"deliver", "lease_start", "cloud_rent"};
    static const char *const down[RM_SOURCES] = {NULL, "lease_end", "cloud_return"};
    cJSON *a = cJSON_CreateArray();
    for (int t = 0; t < r->p.ntypes; t++) {
        int d = m + r->lead;
        int order = d < r->months ? r->plan[d].n[RM_OWNED][t] - (d ? r->plan[d - 1].n[RM_OWNED][t] : 0) : 0;
        if (order > 0) {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "action", "order");
            cJSON_AddStringToObject(e, "gpu", gpu_name(r, t));
            cJSON_AddNumberToObject(e, "nodes", order);
            cJSON_AddNumberToObject(e, "delivered_month", d + 1);
            cJSON_AddItemToArray(a, e);
        }
        for (int s = 0; s < RM_SOURCES; s++) {
            int delta = r->plan[m].n[s][t] - (m ? r->plan[m - 1].n[s][t] : 0);
            const char *what = delta > 0 ? up[s] : delta < 0 ? down[s] : NULL;
            if (!what)
                continue;
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "action", what);
            cJSON_AddStringToObject(e, "gpu", gpu_name(r, t));
            cJSON_AddNumberToObject(e, "nodes", abs(delta));
            cJSON_AddItemToArray(a, e);
        }
    }
    return a;
}

static cJSON *month_json(const struct roadmap *r, int m)
{
    const struct plan *p = &r->p;
    const struct rm_month *x = &r->plan[m];
    cJSON *o = cJSON_CreateObject();
    char file[64];
    cJSON_AddNumberToObject(o, "month", m + 1);
    cJSON_AddNumberToObject(o, "demand", r->demand[m]);
    snprintf(file, sizeof file, "month-%d.json", m + 1);
    cJSON_AddStringToObject(o, "scenario", file);
    cJSON *fleet = cJSON_AddArrayToObject(o, "fleet");
    int g = 0;
    for (int t = 0; t < p->ntypes; t++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "gpu", gpu_name(r, t));
        cJSON_AddNumberToObject(e, "nodes", held(x, t));
        cJSON_AddNumberToObject(e, "gpus_per_node", p->types[t].gpn);
        for (int s = 0; s < RM_SOURCES; s++)
            cJSON_AddNumberToObject(e, rm_source_names[s], x->n[s][t]);
        cJSON_AddItemToArray(fleet, e);
        g += held(x, t) * p->types[t].gpn;
    }
    cJSON_AddNumberToObject(o, "gpus", g);
    cJSON_AddItemToObject(o, "actions", actions_json(r, m));
    cJSON *c = cJSON_AddObjectToObject(o, "cost_usd");
    for (int s = 0; s < RM_SOURCES; s++)
        cJSON_AddNumberToObject(c, rm_source_names[s], x->cost[s]);
    cJSON_AddNumberToObject(c, "owned_energy", x->energy);
    cJSON_AddNumberToObject(c, "total", x->total);
    cJSON *mg = cJSON_AddArrayToObject(o, "slo_margins");
    for (int s = 0; s < p->nslos; s++) {
        const struct plan_slo *slo = &p->slos[s];
        char label[128];
        plan_slo_label(slo, label, sizeof label);
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "slo", label);
        cJSON_AddNumberToObject(j, "margin", rm_margin(r, m, (size_t)x->fleet, slo));
        cJSON *ps = cJSON_AddArrayToObject(j, "per_seed");
        for (int i = 0; i < r->npaths * p->nseeds; i++) {
            int path = i / p->nseeds, k = i % p->nseeds;
            const struct rm_eval *e = &r->ev[rm_cell(r, path, m, (size_t)x->fleet)];
            double v = e->m[(size_t)k * METRIC_MAX + slo->metric];
            cJSON *q = cJSON_CreateObject();
            if (r->npaths > 1)
                cJSON_AddStringToObject(q, "scenario", r->pname[path]);
            cJSON_AddNumberToObject(q, "seed", (double)p->seeds[k]);
            cJSON_AddItemToObject(q, "value", number_or_null(true, v));
            cJSON_AddItemToObject(q, "margin", number_or_null(true, slo->op < 0 ? slo->limit - v : v - slo->limit));
            cJSON_AddItemToArray(ps, q);
        }
        cJSON_AddItemToArray(mg, j);
    }
    return o;
}

static cJSON *limits_json(const struct roadmap *r, const double *v)
{
    bool any = false;
    for (int m = 0; m < r->months; m++)
        any |= v[m] > 0;
    if (!any)
        return cJSON_CreateNull();
    cJSON *a = cJSON_CreateArray();
    for (int m = 0; m < r->months; m++)
        cJSON_AddItemToArray(a, number_or_null(v[m] > 0, v[m]));
    return a;
}

static char *roadmap_json(const struct roadmap *r)
{
    const struct plan *p = &r->p;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "fleetsim_roadmap", 1);
    cJSON_AddStringToObject(root, "scenario", p->path);
    cJSON_AddStringToObject(root, "name", p->base->name);
    cJSON_AddStringToObject(root, "search", r->brute ? "brute-force" : "dynamic-programming");
    cJSON_AddNumberToObject(root, "horizon_months", r->months);
    cJSON_AddNumberToObject(root, "lead_months", r->lead);
    cJSON_AddNumberToObject(root, "amortization_months", r->amort_months);
    cJSON *src = cJSON_AddArrayToObject(root, "sources");
    for (int s = 0; s < RM_SOURCES; s++)
        if (r->allow[s])
            cJSON_AddItemToArray(src, cJSON_CreateString(rm_source_names[s]));
    cJSON *types = cJSON_AddArrayToObject(root, "types");
    for (int t = 0; t < p->ntypes; t++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "gpu", gpu_name(r, t));
        cJSON_AddNumberToObject(e, "gpus_per_node", p->types[t].gpn);
        cJSON_AddStringToObject(e, "node", p->types[t].nt->name);
        cJSON_AddNumberToObject(e, "node_kw", p->types[t].node_kw);
        cJSON *pr = cJSON_AddObjectToObject(e, "node_month_usd");
        for (int s = 0; s < RM_SOURCES; s++)
            cJSON_AddItemToObject(pr, rm_source_names[s], number_or_null(r->node_usd[s][t] >= 0, r->node_usd[s][t]));
        cJSON_AddItemToArray(types, e);
    }
    cJSON_AddNumberToObject(root, "max_nodes", p->max_nodes);
    cJSON *seeds = cJSON_AddArrayToObject(root, "seeds");
    for (int s = 0; s < p->nseeds; s++)
        cJSON_AddItemToArray(seeds, cJSON_CreateNumber((double)p->seeds[s]));
    cJSON *slos = cJSON_AddArrayToObject(root, "slos");
    for (int s = 0; s < p->nslos; s++) {
        char label[128];
        plan_slo_label(&p->slos[s], label, sizeof label);
        cJSON_AddItemToArray(slos, cJSON_CreateString(label));
    }
    cJSON_AddStringToObject(root, "demand_from", r->npaths > 1 ? "scenarios" : !r->fitted ? "growth"
                                                 : r->unusable ? "flat: no usable trend" : "forecast");
    if (r->fitted)
        cJSON_AddStringToObject(root, "demand_note", r->unusable ? r->unusable : r->trend);
    cJSON *growth = cJSON_AddArrayToObject(root, "growth");
    for (int m = 0; m < r->nrates; m++)
        cJSON_AddItemToArray(growth, cJSON_CreateNumber(r->rate[m]));
    cJSON_AddItemToObject(root, "power_kw", limits_json(r, r->power_kw));
    cJSON_AddItemToObject(root, "rack_nodes", limits_json(r, r->racks));
    cJSON_AddItemToObject(root, "budget_usd", limits_json(r, r->budget));
    cJSON *months = cJSON_AddArrayToObject(root, "months");
    for (int m = 0; r->found && m < r->months; m++)
        cJSON_AddItemToArray(months, month_json(r, m));
    if (r->npaths > 1) {
        cJSON *sc = cJSON_AddArrayToObject(root, "scenarios");
        for (int k = 0; k < r->npaths; k++) {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "name", r->pname[k]);
            cJSON_AddNumberToObject(e, "growth", r->prate[k]);
            cJSON *dm = cJSON_AddArrayToObject(e, "demand");
            for (int m = 0; m < r->months; m++)
                cJSON_AddItemToArray(dm, cJSON_CreateNumber(r->pdemand[k][m]));
            cJSON_AddItemToObject(e, "total_cost_usd", number_or_null(r->found, r->path_cost[k]));
            cJSON_AddItemToObject(e, "own_best_total_cost_usd", number_or_null(r->path_found[k], r->path_best[k]));
            cJSON_AddItemToObject(e, "regret_usd", number_or_null(r->found && r->path_found[k],
                                                                   r->path_cost[k] - r->path_best[k]));
            cJSON_AddItemToArray(sc, e);
        }
    }
    cJSON_AddItemToObject(root, "total_cost_usd", number_or_null(r->found, r->total));
    cJSON_AddItemToObject(root, "best_static_total_cost_usd", number_or_null(r->static_found, r->static_total));
    if (r->static_found) {
        uint16_t n[PLAN_MAX_TYPES];
        rm_counts(r, (size_t)r->static_fleet, n);
        cJSON *st = cJSON_AddObjectToObject(root, "best_static");
        cJSON_AddStringToObject(st, "source", rm_source_names[r->static_source]);
        cJSON *fl = cJSON_AddArrayToObject(st, "fleet");
        for (int t = 0; t < p->ntypes; t++) {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "gpu", gpu_name(r, t));
            cJSON_AddNumberToObject(e, "nodes", n[t]);
            cJSON_AddItemToArray(fl, e);
        }
        cJSON *mo = cJSON_AddArrayToObject(st, "month_cost_usd");
        for (int m = 0; m < r->months; m++)
            cJSON_AddItemToArray(mo, cJSON_CreateNumber(r->static_month[m]));
    } else {
        cJSON_AddNullToObject(root, "best_static");
    }
    cJSON_AddItemToObject(root, "below_best_static_usd",
                          number_or_null(r->found && r->static_found, r->static_total - r->total));
    double cloud = 0;
    for (int m = 0; r->cloud_found && m < r->months; m++)
        cloud += r->cloud_month[m];
    cJSON_AddItemToObject(root, "all_cloud_total_cost_usd", number_or_null(r->cloud_found, cloud));
    cJSON_AddItemToObject(root, "owned_installments_after_horizon_usd", number_or_null(r->found, r->after_horizon));
    cJSON_AddNumberToObject(root, "simulations", (double)r->simulations);
    cJSON_AddNumberToObject(root, "brute_force_simulations",
                            (double)((size_t)r->npaths * (size_t)r->months * (r->nstates - 1) * (size_t)p->nseeds));
    cJSON_AddNumberToObject(root, "pruned", (double)r->pruned);
    if (r->brute) {
        cJSON_AddNumberToObject(root, "trajectories", (double)r->trajectories);
        cJSON_AddNumberToObject(root, "monotonicity_violations", (double)r->violations);
    }
    cJSON_AddItemToObject(root, "meta", version_json());
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    return text;
}

static void fleet_text(const struct roadmap *r, const uint16_t *n, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int t = 0; t < r->p.ntypes && len < size; t++)
        if (n[t])
            len += (size_t)snprintf(buf + len, size - len, "%s%d x %s", len ? ", " : "", n[t], gpu_name(r, t));
    if (!len)
        snprintf(buf, size, "-");
}

static double all_cloud_total(const struct roadmap *r)
{
    double v = 0;
    for (int m = 0; m < r->months; m++)
        v += r->cloud_month[m];
    return v;
}

/* roadmap.csv: per month the GPUs by source, the demand, and the
 * cumulative cost of the roadmap, the best static fleet and all-cloud
 * (empty where there is none). */
static void roadmap_csv(FILE *f, const struct roadmap *r)
{
    fputs("month,demand,owned_gpus,leased_gpus,cloud_gpus,cum_roadmap_usd,cum_best_static_usd,cum_all_cloud_usd\n", f);
    double cum[3] = {0, 0, 0};
    for (int m = 0; m < r->months; m++) {
        fprintf(f, "%d,%.6g", m + 1, r->demand[m]);
        for (int s = 0; s < RM_SOURCES; s++) {
            int g = 0;
            for (int t = 0; t < r->p.ntypes; t++)
                g += r->plan[m].n[s][t] * r->p.types[t].gpn;
            fprintf(f, ",%d", g);
        }
        cum[0] += r->plan[m].total;
        cum[1] += r->static_found ? r->static_month[m] : 0;
        cum[2] += r->cloud_found ? r->cloud_month[m] : 0;
        fprintf(f, ",%.2f,", cum[0]);
        if (r->static_found)
            fprintf(f, "%.2f", cum[1]);
        fputc(',', f);
        if (r->cloud_found)
            fprintf(f, "%.2f", cum[2]);
        fputc('\n', f);
    }
}

static void capacity_gp(FILE *f)
{
    charts_gp_head(f, "capacity", "fleetsim roadmap: GPUs by source each month, against demand");
    fputs("set key autotitle columnhead\nset style data histograms\nset style histogram rowstacked\nset style fill solid 0.8 border -1\n"
          "set boxwidth 0.7\nset xlabel 'month'\nset ylabel 'GPUs'\nset y2label 'demand (x the scenario)'\n"
          "set ytics nomirror\nset y2tics\nset yrange [0:*]\nset y2range [0:*]\n"
          "plot datafile using 3:xtic(1) title 'owned' lc rgb '#1e8449', \\\n"
          "     '' using 4 title 'leased' lc rgb '#2471a3', \\\n"
          "     '' using 5 title 'cloud' lc rgb '#e67e22', \\\n"
          "     '' using ($0):2 axes x1y2 with linespoints lw 2 pt 7 lc rgb '#7d3c98' title 'demand'\n",
          f);
}

static void cost_gp(FILE *f)
{
    charts_gp_head(f, "cost", "fleetsim roadmap: cumulative cost");
    fputs("set xlabel 'month'\nset ylabel 'USD, cumulative'\nset format y '%.0f'\nset xtics 1\n"
          "plot datafile using 1:6 with linespoints lw 2 pt 7 lc rgb '#1e8449' title 'roadmap', \\\n"
          "     '' using 1:7 with linespoints lw 2 pt 5 dt 2 lc rgb '#2471a3' title 'best static fleet', \\\n"
          "     '' using 1:8 with linespoints lw 2 pt 9 dt 3 lc rgb '#e67e22' title 'all cloud'\n",
          f);
}

static void roadmap_doc(const struct doc *d, const struct roadmap *r, const char *const png[2])
{
    const struct plan *p = &r->p;
    char a[256], b[256], c[256], text[1024] = "";
    snprintf(a, sizeof a, "fleetsim roadmap: %s", p->base->name);
    doc_heading(d, 1, a);
    for (int m = 0; m < r->months; m++)
        snprintf(text + strlen(text), sizeof text - strlen(text), " %.3g", r->demand[m]);
    char slos[512] = "";
    for (int s = 0; s < p->nslos; s++) {
        plan_slo_label(&p->slos[s], a, sizeof a);
        snprintf(slos + strlen(slos), sizeof slos - strlen(slos), "%s%s", s ? ", " : "", a);
    }
    doc_para(d, "Scenario %s over %d months; demand per month (x the scenario's):%s. Owned servers arrive %d month%s "
                "after the order and are paid over %g months; leases run in whole months; cloud nodes are rented "
                "by the month at the on-demand price. SLOs, met on every seed in every month: %s.",
             p->path, r->months, text, r->lead, r->lead == 1 ? "" : "s", r->amort_months, slos);
    if (r->fitted && r->unusable)
        doc_para(d, "No --growth, and the workload's demand forecast (the run report's) has no usable trend: %s. "
                    "Demand is held flat; give --growth if you know how it grows.", r->unusable);
    else if (r->fitted)
        doc_para(d, "No --growth: demand per month is the workload's own forecast (the run report's): the %s, "
                    "projected month by month from the scenario's window (month 1).", r->trend);
    doc_section(d, "summary");
    if (!r->found) {
        doc_para(d, "No roadmap meets the SLOs in every month within the node counts and constraints.");
        doc_section_end(d);
        return;
    }
    char u[4][32];
    if (r->static_found) {
        uint16_t n[PLAN_MAX_TYPES];
        rm_counts(r, (size_t)r->static_fleet, n);
        fleet_text(r, n, a, sizeof a);
        snprintf(text, sizeof text, "%s USD (%.1f %%) below the best single fleet held all horizon (%s, %s: %s USD)",
                 doc_usd(u[1], r->static_total - r->total), 100 * (r->static_total - r->total) / r->static_total, a,
                 rm_source_names[r->static_source], doc_usd(u[2], r->static_total));
    } else {
        snprintf(text, sizeof text, "no single fleet within the node counts meets the SLOs in every month");
    }
    if (r->cloud_found)
        snprintf(b, sizeof b, "; all-cloud (the cheapest cloud fleet each month) costs %s USD",
                 doc_usd(u[3], all_cloud_total(r)));
    else
        b[0] = '\0';
    doc_para(d, "Total %s USD over the horizon%s, %s%s. Owned installments still due after the horizon: %s USD "
                "(not in the total; the servers keep serving after it).",
             doc_usd(u[0], r->total), r->npaths > 1 ? " (expected over the growth paths, meeting the SLOs on each)" : "",
             text, b, doc_usd(u[2], r->after_horizon));
    for (int k = 0; r->npaths > 1 && k < r->npaths; k++) {
        if (r->path_found[k])
            doc_para(d, "Growth path %s (%+g a month): the roadmap costs %s USD on it; the cheapest roadmap for this "
                        "path alone %s USD; regret %s USD.",
                     r->pname[k], r->prate[k], doc_usd(u[0], r->path_cost[k]), doc_usd(u[1], r->path_best[k]),
                     doc_usd(u[2], r->path_cost[k] - r->path_best[k]));
    }
    doc_section_end(d);
    char cells[7][64];
    const char *head[7] = {"month", "demand", "owned", "leased", "cloud", "USD", "worst SLO margin"};
    for (int k = 0; k < 7; k++)
        snprintf(cells[k], sizeof cells[k], "%s", head[k]);
    doc_row(d, true, 7, cells);
    for (int m = 0; m < r->months; m++) {
        const struct rm_month *x = &r->plan[m];
        fleet_text(r, x->n[RM_OWNED], a, sizeof a);
        fleet_text(r, x->n[RM_LEASED], b, sizeof b);
        fleet_text(r, x->n[RM_CLOUD], c, sizeof c);
        snprintf(cells[0], sizeof cells[0], "%d", m + 1);
        snprintf(cells[1], sizeof cells[1], "%.3g", r->demand[m]);
        snprintf(cells[2], sizeof cells[2], "%.63s", a);
        snprintf(cells[3], sizeof cells[3], "%.63s", b);
        snprintf(cells[4], sizeof cells[4], "%.63s", c);
        snprintf(cells[5], sizeof cells[5], "%.2f", x->total);
        cells[6][0] = '\0';
        for (int s = 0; s < p->nslos; s++)
            snprintf(cells[6] + strlen(cells[6]), sizeof cells[6] - strlen(cells[6]), "%s%+.6g", s ? "; " : "",
                     rm_margin(r, m, (size_t)x->fleet, &p->slos[s]));
        doc_row(d, false, 7, cells);
    }
    doc_table_end(d);
    if (png[0])
        doc_image(d, "GPUs by source each month, against demand", "capacity", png[0]);
    if (png[1])
        doc_image(d, "Cumulative cost: the roadmap, the best static fleet, all cloud", "cost", png[1]);
    if (!png[0] || !png[1])
        doc_para(d, "Charts not rendered: gnuplot was not found or failed. Render them with: gnuplot capacity.gp "
                    "cost.gp");
    doc_para(d, "Search: %s, %zu simulations (every fleet in every month: %zu), %zu fleets pruned by dominance.",
             r->brute ? "brute force over every owned trajectory" : "dynamic programming over owned capacity",
             r->simulations, (size_t)r->npaths * (size_t)r->months * (r->nstates - 1) * (size_t)p->nseeds, r->pruned);
}

enum { F_JSON, F_CSV, F_CAP_GP, F_COST_GP, F_CAP_PNG, F_COST_PNG, F_MD, F_HTML, F_FIXED };
static const char *const f_names[F_FIXED] = {"roadmap.json", "roadmap.csv", "capacity.gp", "cost.gp",
                                             "capacity.png", "cost.png", "roadmap.md", "roadmap.html"};

/* month-N.json (and month-N.csv for a trace) into out from k on. */
static int write_months(const struct roadmap *r, struct outset *set, struct outfile *out, int k, const char *dir,
                        struct fs_err *err)
{
    int rc = 0;
    for (int m = 0; rc == 0 && m < r->months; m++) {
        struct plan q = r->p;
        q.tree = r->trees[m];
        q.growth = q.trace ? r->demand[m] : 1;
        uint16_t n[PLAN_MAX_TYPES];
        for (int t = 0; t < r->p.ntypes; t++)
            n[t] = (uint16_t)held(&r->plan[m], t);
        char name[128], csv[64], text[1024], fl[3][256];
        snprintf(name, sizeof name, "%s-month-%d", r->p.base->name, m + 1);
        snprintf(csv, sizeof csv, "month-%d.csv", m + 1);
        for (int s = 0; s < RM_SOURCES; s++)
            fleet_text(r, r->plan[m].n[s], fl[s], sizeof fl[s]);
        snprintf(text, sizeof text, "Month %d of the fleetsim roadmap for %s (%s): demand x %.6g; owned %s; "
                 "leased %s; cloud %s.", m + 1, r->p.base->name, r->p.path, r->demand[m], fl[0], fl[1], fl[2]);
        char *sc = plan_scenario_file(&q, n, -1, name, text, r->p.trace ? csv : NULL);
        snprintf(name, sizeof name, "month-%d.json", m + 1);
        if ((rc = out_set_open(set, &out[k], name, err)) == 0) {
            fprintf(out[k].f, "%s\n", sc);
            rc = out_close(&out[k], err);
        }
        free(sc);
        k++;
        if (rc == 0 && r->p.trace && (rc = out_set_open(set, &out[k], csv, err)) == 0) {
            if (plan_write_workload(out[k].f, &q))
                rc = fs_fail(err, FS_ECANTCREAT, "%s: cannot write %s", dir, csv);
            else
                rc = out_close(&out[k], err);
            k++;
        }
    }
    return rc;
}

int roadmap_write(const struct roadmap *r, const char *dir, struct fs_err *err)
{
    struct outset set;
    int nfiles = F_FIXED + (r->found ? r->months * (r->p.trace ? 2 : 1) : 0);
    struct outfile *out = xcalloc((size_t)nfiles, sizeof *out);
    char *json = roadmap_json(r);
    int rc = out_set_begin(&set, dir, err);
    for (int k = 0; rc == 0 && k < F_FIXED; k++)
        if (r->found || k == F_JSON || k == F_MD || k == F_HTML)
            rc = out_set_open(&set, &out[k], f_names[k], err);
    if (rc)
        goto done;
    fprintf(out[F_JSON].f, "%s\n", json);
    if (r->found) {
        roadmap_csv(out[F_CSV].f, r);
        capacity_gp(out[F_CAP_GP].f);
        cost_gp(out[F_COST_GP].f);
    }
    for (int k = 0; rc == 0 && k < F_CAP_PNG; k++)
        if (out[k].f)
            rc = out_close(&out[k], err);
    if (rc)
        goto done;
    const char *png[2] = {NULL, NULL};
    const char *gnuplot = r->found ? charts_gnuplot() : NULL;
    for (int c = 0; c < 2; c++) {
        struct outfile *o = &out[F_CAP_PNG + c];
        if (gnuplot && charts_render(gnuplot, out_set_path(&set), c ? "cost" : "capacity", out[F_CAP_GP + c].tmp,
                                     out[F_CSV].tmp, o->tmp) == 0)
            png[c] = o->tmp;
        else
            out_discard(o);
    }
    for (int k = F_MD; rc == 0 && k <= F_HTML; k++) {
        struct doc d = {out[k].f, k == F_HTML};
        char title[300];
        snprintf(title, sizeof title, "%s - fleetsim roadmap", r->p.base->name);
        doc_begin(&d, title);
        roadmap_doc(&d, r, png);
        doc_end(&d);
        rc = out_close(&out[k], err);
    }
    if (rc == 0 && r->found)
        rc = write_months(r, &set, out, F_FIXED, dir, err);
    if (rc == 0)
        rc = out_set_commit(&set, err);
done:
    for (int k = 0; k < nfiles; k++)
        out_discard(&out[k]);
    out_set_end(&set);
    free(out);
    free(json);
    return rc;
}

void roadmap_print(const struct roadmap *r, const char *dir)
{
    if (!r->found) {
        fprintf(stderr, "fleetsim: %s: no roadmap of up to %d nodes of each type meets the SLOs in every month; "
                        "wrote %s/roadmap.json with \"total_cost_usd\": null\n", r->p.path, r->p.max_nodes, dir);
        return;
    }
    if (r->p.quiet)
        return;
    fprintf(stderr, "  total      %.2f USD over %d months\n", r->total, r->months);
    if (r->static_found)
        fprintf(stderr, "  static     best single fleet (%s) %.2f USD: the roadmap is %.2f USD (%.1f %%) below\n",
                rm_source_names[r->static_source], r->static_total, r->static_total - r->total,
                100 * (r->static_total - r->total) / r->static_total);
    else
        fputs("  static     no single fleet meets the SLOs in every month\n", stderr);
    fprintf(stderr, "  search     %zu simulations; every fleet in every month would be %zu\n", r->simulations,
            (size_t)r->npaths * (size_t)r->months * (r->nstates - 1) * (size_t)r->p.nseeds);
    fprintf(stderr, "  wrote      %s/{roadmap.json,roadmap.md,month-1..%d.json}\n", dir, r->months);
}
