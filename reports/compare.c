/* compare.c - runs side by side: compare.json and the comparison report
 * (see compare.h). */
#include "compare.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "../base/version.h"
#include "doc.h"
#include "output.h"
#include "report.h"
#include "report_cost.h"

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

uint64_t compare_fingerprint(const struct sim *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < s->sc->nbatch; i++) { /* the jobs, not the replica slots */
        const struct job *j = &s->jobs[i];
        int64_t f[7] = {j->id, j->submit, j->kind, j->team, j->gpus, j->milli,
                        (int64_t)llround(j->work * 1e3)};
        h = fnv(h, f, sizeof f);
    }
    for (int k = 0; k < s->sc->nservices; k++) {
        const struct service_spec *sp = &s->sc->services[k];
        h = fnv(h, sp->name, strlen(sp->name));
        h = fnv(h, &sp->params, sizeof sp->params);
    }
    return h;
}

static void describe_fleet(char *buf, size_t n, const struct sim *s, const struct metrics *m)
{
    buf[0] = '\0';
    for (int t = 0; t < s->sc->cat->n; t++)
        if (m->capacity[t])
            snprintf(buf + strlen(buf), n - strlen(buf), "%s%lld %s", buf[0] ? ", " : "",
                     (long long)m->capacity[t], s->sc->cat->types[t].name);
}

void compare_entry_fill(struct compare_entry *e, const struct run_result *r,
                        enum cost_billing base_billing, enum cost_commit base_commit)
{
    const struct sim *s = r->s;
    const struct metrics *m = r->m;
    const struct run_stats *st = &r->st;
    const struct scenario *sc = s->sc;
    memset(e, 0, sizeof *e);
    snprintf(e->scenario, sizeof e->scenario, "%s", sc->path);
    snprintf(e->policy, sizeof e->policy, "%s", sc->policy->name);
    describe_fleet(e->fleet, sizeof e->fleet, s, m);
    e->fingerprint = compare_fingerprint(s);
    e->njobs = s->sc->nbatch; /* the metric table's "jobs": replica slots are not jobs */
    e->st = *st;
    metric_values(r, e->v);
    e->cost = r->cost;
    struct fleet_cost as_base;
    fleet_cost_compute(s, m, base_billing, base_commit, &as_base);
    /* GPUs paid for (an elastic fleet's mean) x their utilization is the
     * GPU-hours allocated an hour, so the factors multiply to the capacity
     * cost exactly. */
    double gpus = e->cost.gpus;
    e->f = (struct cost_factors){
        .month_usd = e->cost.month_usd,
        .energy_month_usd = e->cost.energy_month_usd,
        .gpus = gpus,
        .gpu_h_per_h = gpus * e->cost.utilization,
        .utilization = e->cost.utilization,
        .price = e->cost.capacity_month_usd / gpus,
        .price_as_base = as_base.ok ? as_base.capacity_month_usd / as_base.gpus : NAN,
    };
    e->waits = xmalloc((s->njobs + 1) * sizeof *e->waits);
    e->nwaits = summary_waits(s, e->waits);
    fs_sort(e->waits, e->nwaits);
}

void compare_entry_free(struct compare_entry *e)
{
    free(e->waits);
    e->waits = NULL;
}

/* --- compare.json ----------------------------------------------------------- */

static void num(cJSON *o, const char *k, double v)
{
    cJSON_AddItemToObject(o, k, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

double compare_cheapest_other(const struct compare_entry *e, int n, int i, bool long_terms, int *run,
                              enum bill_line *line)
{
    double best = NAN;
    for (int j = 0; j < n; j++)
        for (int l = 0; l < BILL_LINES; l++) {
            double v = e[j].bill.usd_month[l];
            if ((j == i && l == (int)e[i].own) || !isfinite(v) || (isfinite(best) && v >= best) ||
                (!long_terms && bill_long_term[l]))
                continue;
            best = v;
            *run = j;
            *line = (enum bill_line)l;
        }
    return best;
}

static void effects_json(cJSON *o, const struct bill_effects *x)
{
    num(o, "wait_p95_s", x->wait_p95_s);
    num(o, "jct_mean_s", x->jct_mean_s);
    num(o, "jobs_completed", (double)x->completed);
    num(o, "slo_attainment", x->slo_attainment);
    num(o, "latency_attainment", x->latency_attainment);
    num(o, "lost_gpu_hours", x->lost_gpu_h);
    num(o, "interruptions", (double)x->interruptions);
}

/* Run i's lines under every billing, the break-evens, the side effects of
 * the elastic and spot runs, and its own bill against the cheapest other
 * way to pay for the same work. */
static void json_billing(cJSON *o, const struct compare_entry *e, int n, int i)
{
    const struct billing *b = &e[i].bill;
    cJSON_AddStringToObject(o, "own_billing", bill_keys[e[i].own]);
    cJSON *cb = cJSON_AddObjectToObject(o, "cost_by_billing_usd_month");
    for (int l = 0; l < BILL_LINES; l++)
        num(cb, bill_keys[l], b->usd_month[l]);
    cJSON *why = cJSON_AddObjectToObject(o, "cost_by_billing_missing");
    for (int l = 0; l < BILL_LINES; l++)
        if (!isfinite(b->usd_month[l]))
            cJSON_AddStringToObject(why, bill_keys[l], b->why[l]);
    cJSON *se = cJSON_AddObjectToObject(o, "side_effects_by_billing");
    effects_json(cJSON_AddObjectToObject(se, "fixed"), &b->eff[BILL_OWNED]);
    effects_json(cJSON_AddObjectToObject(se, bill_keys[BILL_ELASTIC]), &b->eff[BILL_ELASTIC]);
    effects_json(cJSON_AddObjectToObject(se, bill_keys[BILL_SPOT]), &b->eff[BILL_SPOT]);
    cJSON *be = cJSON_AddObjectToObject(o, "break_even_utilization");
    cJSON *bn = cJSON_AddObjectToObject(o, "break_even_note");
    for (int k = 0; k < BE_COUNT; k++) {
        num(be, bill_be_keys[k], b->break_even[k]);
        cJSON_AddStringToObject(bn, bill_be_keys[k], b->be_why[k]);
    }
    num(o, "fleet_utilization", b->util);
    for (int lt = 0; lt < 2; lt++) {
        int j = 0;
        enum bill_line l = BILL_OWNED;
        double alt = compare_cheapest_other(e, n, i, lt, &j, &l), own = e[i].cost.month_usd;
        cJSON *h = cJSON_AddObjectToObject(o, lt ? "vs_cheapest_committed" : "vs_cheapest_alternative");
        cJSON_AddStringToObject(h, "run", isfinite(alt) ? e[j].name : "");
        cJSON_AddStringToObject(h, "billing", isfinite(alt) ? bill_keys[l] : "");
        num(h, "usd_month", alt);
        num(h, "saving_usd_month", alt - own);
        num(h, "saving_pct", alt > 0 ? 100 * (alt - own) / alt : NAN);
    }
}

static int write_json(FILE *f, const struct compare_entry *e, int n)
{
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject(), *mt = cJSON_CreateObject(), *sv = cJSON_CreateArray();
        cJSON_AddItemToArray(arr, o);
        cJSON_AddStringToObject(o, "name", e[i].name);
        cJSON_AddStringToObject(o, "scenario", e[i].scenario);
        cJSON_AddStringToObject(o, "policy", e[i].policy);
        cJSON_AddStringToObject(o, "fleet", e[i].fleet);
        cJSON_AddStringToObject(o, "billing", cost_billing_names[e[i].cost.billing]);
        cJSON_AddStringToObject(o, "commit", cost_commit_names[e[i].cost.commit]);
        cJSON_AddItemToObject(o, "metrics", mt);
        for (int k = 0; k < metric_count; k++)
            num(mt, metric_table[k].name, e[i].v[k]);
        cJSON_AddItemToObject(o, "savings", sv);
        for (int k = 0; k < SAVE_COUNT; k++) {
            cJSON *l = cJSON_CreateObject();
            cJSON_AddStringToObject(l, "reason", saving_reasons[k]);
            cJSON_AddStringToObject(l, "wording", saving_wording((enum saving)k, e[i].savings[k]));
            num(l, "usd_month", e[i].savings[k]);
            cJSON_AddItemToArray(sv, l);
        }
        num(o, "savings_total_usd_month", e[i].savings_total);
        json_billing(o, e, n, i);
        cJSON_AddItemToObject(o, "meta", version_json());
    }
    char *text = cJSON_Print(arr);
    int bad = fputs(text, f) < 0 || fputc('\n', f) == EOF;
    free(text);
    cJSON_Delete(arr);
    return bad;
}

/* --- charts ------------------------------------------------------------------ */

enum { CH_BILLING, CH_COST, CH_WAITS, CH_COUNT };
static const char *const ch_names[CH_COUNT] = {"billing", "cost", "waits"};
static const char *const ch_titles[CH_COUNT] = {"Monthly cost against utilization, each billing model",
                                                "Cost per 730-h month (USD), each run as billed",
                                                "Job waits: fraction of submitted jobs waiting at most x"};

static void chart_data(FILE *csv[CH_COUNT], FILE *gp[CH_COUNT], const struct compare_entry *e, int n)
{
    compare_billing_chart(csv[CH_BILLING], gp[CH_BILLING], e, n);
    fputs("name,capacity_usd_month,energy_usd_month\n", csv[CH_COST]);
    for (int i = 0; i < n; i++)
        fprintf(csv[CH_COST], "%s,%.2f,%.2f\n", e[i].name, e[i].cost.capacity_month_usd,
                e[i].cost.energy_month_usd);
    /* One block per run, two blank lines apart: gnuplot's "index". */
    for (int i = 0; i < n; i++) {
        fprintf(csv[CH_WAITS], "%s%s,fraction\n", i ? "\n\n" : "", e[i].name);
        fprintf(csv[CH_WAITS], "0,0\n");
        for (size_t k = 0; k < e[i].nwaits; k++)
            fprintf(csv[CH_WAITS], "%.6f,%.6f\n", e[i].waits[k] / 3600,
                    (double)(k + 1) / (double)e[i].nwaits);
    }
    charts_gp_head(gp[CH_COST], ch_names[CH_COST], ch_titles[CH_COST]);
    fputs("set style data histograms\nset style histogram rowstacked\nset style fill solid 0.8 border -1\n"
          "set boxwidth 0.6\nset xlabel 'run'\nset ylabel 'USD per month'\nset yrange [0:*]\nset xtics rotate by -20\n"
          "plot datafile using 2:xtic(1) title 'GPU capacity', '' using 3 title 'energy'\n",
          gp[CH_COST]);
    charts_gp_head(gp[CH_WAITS], ch_names[CH_WAITS], ch_titles[CH_WAITS]);
    fprintf(gp[CH_WAITS], "set xlabel 'wait (h)'\nset ylabel 'fraction of submitted jobs'\n"
                          "set yrange [0:1]\nset logscale x\nset xrange [0.01:*]\n"
                          "plot for [i=0:%d] datafile index i using ($1 < 0.01 ? 0.01 : $1):2 "
                          "with steps lw 2 title columnhead(1)\n",
            n - 1);
}

/* --- the report ------------------------------------------------------------- */

static void side_by_side(const struct doc *d, const struct compare_entry *e, int n)
{
    char h[12][64] = {"Run", "GPUs", "billing", "utilization (%)", "p95 wait (h)", "mean JCT (h)",
                      "energy (MWh)", "PSU peak (%)", "USD per month", "USD per completed GPU-h",
                      "SLO attainment (%)", "latency SLO met (%)"};
    doc_row(d, true, 12, h);
    for (int i = 0; i < n; i++) {
        const struct compare_entry *x = &e[i];
        char bill[64];
        snprintf(bill, sizeof bill, "%s", bill_keys[x->own]);
        char usd[32], slo[2][16] = {"-", "-"}; /* "-": no services, nothing to attain */
        if (x->st.services) {
            snprintf(slo[0], sizeof slo[0], "%.2f", 100 * x->st.slo_attainment);
            snprintf(slo[1], sizeof slo[1], "%.2f", 100 * x->st.latency_attainment);
        }
        doc_kv(d, x->name, "%.0f | %s | %.1f | %.2f | %.2f | %.2f | %.1f | %s | %.2f | %s | %s", x->f.gpus,
               bill, 100 * x->st.utilization, x->st.wait_p95 / 3600, x->st.jct_mean / 3600,
               x->st.energy_kwh / 1e3, 100 * x->st.psu_peak, doc_usd(usd, x->cost.month_usd), x->cost.usd_per_gpu_h,
               slo[0], slo[1]);
    }
    doc_table_end(d);
    char f[4][64] = {"Run", "policy", "jobs completed", "fleet"};
    doc_row(d, true, 4, f);
    for (int i = 0; i < n; i++)
        doc_kv(d, e[i].name, "%s | %zu of %zu | %.63s", e[i].policy, e[i].st.completed, e[i].njobs,
               e[i].fleet);
    doc_table_end(d);
}

static void savings(const struct doc *d, const struct compare_entry *e, int n)
{
    doc_heading(d, 2, "Savings against the baseline");
    doc_para(d, "Each line is what the run saves per 730-h month against the baseline, %s, for one "
                "reason; the lines add up to the total difference in monthly cost. A negative line "
                "costs more. The capacity cost, GPUs x price per GPU, is GPU-hours needed per hour / "
                "utilization x price; its difference is split over the billing model, the mix of GPU "
                "types, the GPU-hours the work took and the utilization by the logarithmic mean Divisia "
                "index (LMDI-I), which adds up exactly. Energy is its own line.",
             e[0].name);
    for (int k = 0; k < SAVE_COUNT; k++)
        doc_para(d, "%s: %s.", saving_reasons[k], saving_explained[k]);
    doc_para(d, "On one fleet, a better policy changes what the money buys more than the bill: compare "
                "the USD per completed GPU-hour above.");
    for (int i = 1; i < n; i++) {
        char title[160];
        snprintf(title, sizeof title, "%s vs %s", e[i].name, e[0].name);
        doc_heading(d, 3, title);
        char h[2][64] = {"Reason", "USD per month saved"};
        char v[32];
        doc_row(d, true, 2, h);
        for (int k = 0; k < SAVE_COUNT; k++)
            doc_kv(d, saving_wording((enum saving)k, e[i].savings[k]), "%s", doc_usd(v, e[i].savings[k]));
        doc_kv(d, "total", "%s", doc_usd(v, e[i].savings_total));
        doc_table_end(d);
        double base = e[0].cost.month_usd;
        char slo[160];
        const struct run_stats *a = &e[0].st, *b = &e[i].st;
        doc_para(d, "%s costs %.0f USD a month against %.0f: %s %.1f %%. With it: p95 wait %.2f h to %.2f h, "
                    "mean completion time %.2f h to %.2f h, jobs completed %zu to %zu%s.",
                 e[i].name, e[i].cost.month_usd, base, e[i].savings_total >= 0 ? "a saving of" : "an increase of",
                 base > 0 ? 100 * fabs(e[i].savings_total) / base : 0.0, a->wait_p95 / 3600, b->wait_p95 / 3600,
                 a->jct_mean / 3600, b->jct_mean / 3600, a->completed, b->completed,
                 compare_slo_clause(slo, sizeof slo, a, b));
    }
}

static void body(const struct doc *d, const struct compare_entry *e, int n, const struct scenario *sc0,
                 const bool drawn[CH_COUNT], const char *tmp_png[CH_COUNT])
{
    doc_heading(d, 1, "fleetsim comparison");
    compare_summary(d, e, n, drawn[CH_BILLING], tmp_png[CH_BILLING]);
    doc_para(d, "The same workload (%zu jobs) run %d ways; the baseline is %s. USD per 730-h month at the "
                "rate each run measured.",
             e[0].njobs, n, e[0].name);
    doc_heading(d, 2, "Side by side");
    side_by_side(d, e, n);
    compare_billing_tables(d, e, n);
    bool costed = true;
    for (int i = 0; i < n; i++)
        if (!e[i].cost.ok) {
            doc_para(d, "%s has no cost: %s.", e[i].name, e[i].cost.why);
            costed = false;
        }
    if (costed)
        savings(d, e, n);
    doc_heading(d, 2, "Charts");
    for (int k = CH_BILLING + 1; k < CH_COUNT; k++) {
        if (drawn[k])
            doc_image(d, ch_titles[k], ch_names[k], tmp_png[k]);
        else
            doc_para(d, "[chart not rendered: %s.png; gnuplot was not found or failed. Render it "
                        "with: gnuplot %s.gp]", ch_names[k], ch_names[k]);
    }
    doc_para(d, "Definitions: utilization = allocated GPU-seconds / (GPUs x window); wait = start - "
                "submit; JCT = end - submit; energy at the facility = wall energy x PUE; PSU peak = "
                "highest load of any node's usable PSU capacity; USD per completed GPU-hour = monthly "
                "cost x window months / GPU-hours of work the completed jobs did, each measured on its "
                "reference GPU; SLO attainment = output tokens served / demanded over every service; "
                "latency SLO met = seconds each service's latency objective (TTFT percentile, TPOT, mean "
                "latency) held / seconds with demand, over every service.");
    report_assumptions(d, sc0);
}

int compare_write(const char *dir, struct compare_entry *e, int n, const struct scenario *sc0,
                  struct fs_err *err)
{
    for (int i = 0; i < n; i++) {
        e[i].savings_total = e[0].cost.month_usd - e[i].cost.month_usd;
        cost_savings(&e[0].f, &e[i].f, e[i].savings);
    }
    enum { F_JSON, F_MD, F_HTML, F_CSV, F_GP = F_CSV + CH_COUNT, F_PNG = F_GP + CH_COUNT,
           F_COUNT = F_PNG + CH_COUNT };
    struct outset set;
    struct outfile out[F_COUNT] = {0};
    char name[64];
    int rc = out_set_begin(&set, dir, err);
    for (int k = 0; rc == 0 && k < F_COUNT; k++) {
        if (k < F_CSV)
            snprintf(name, sizeof name, "%s", (const char *[]){"compare.json", "report.md", "report.html"}[k]);
        else
            snprintf(name, sizeof name, "%s.%s", ch_names[(k - F_CSV) % CH_COUNT],
                     (const char *[]){"csv", "gp", "png"}[(k - F_CSV) / CH_COUNT]);
        rc = out_set_open(&set, &out[k], name, err);
    }
    if (rc)
        goto done;
    if (write_json(out[F_JSON].f, e, n)) {
        rc = fs_fail(err, FS_ECANTCREAT, "%s: cannot write compare.json", dir);
        goto done;
    }
    FILE *csv[CH_COUNT], *gp[CH_COUNT];
    for (int k = 0; k < CH_COUNT; k++) {
        csv[k] = out[F_CSV + k].f;
        gp[k] = out[F_GP + k].f;
    }
    chart_data(csv, gp, e, n);
    for (int k = F_CSV; k < F_COUNT; k++)
        if ((rc = out_close(&out[k], err)))
            goto done;
    const char *gnuplot = charts_gnuplot();
    bool drawn[CH_COUNT];
    const char *png[CH_COUNT];
    struct chart_render c[CH_COUNT];
    for (int k = 0; k < CH_COUNT; k++) {
        png[k] = out[F_PNG + k].tmp;
        c[k] = (struct chart_render){ch_names[k], out[F_GP + k].tmp, out[F_CSV + k].tmp, png[k]};
        drawn[k] = false;
    }
    if (gnuplot)
        charts_render_all(gnuplot, out_set_path(&set), c, CH_COUNT, drawn);
    for (int k = 0; k < CH_COUNT; k++)
        if (!drawn[k])
            out_discard(&out[F_PNG + k]);
    for (int k = F_MD; k <= F_HTML; k++) {
        struct doc d = {out[k].f, k == F_HTML};
        doc_begin(&d, "fleetsim comparison");
        body(&d, e, n, sc0, drawn, png);
        doc_end(&d);
    }
    for (int k = 0; k < F_CSV; k++)
        if ((rc = out_close(&out[k], err)))
            goto done;
    rc = out_set_commit(&set, err);
done:
    for (int k = 0; k < F_COUNT; k++)
        out_discard(&out[k]);
    out_set_end(&set);
    return rc;
}
