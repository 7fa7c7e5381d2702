/* report.c - report.md and report.html (see report.h). */
#include "report.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doc.h"
#include "billing.h"
#include "costing.h"
#include "report_cost.h"
#include "../sim/observe.h"

int report_open(struct report *r, struct outset *set, struct fs_err *err)
{
    static const char *const fixed[2] = {"report.md", "report.html"};
    static const char *const ext[3] = {".csv", ".gp", ".png"};
    char name[64];
    *r = (struct report){.dir = xstrdup(out_set_path(set)), .shown = xstrdup(set->shown)};
    for (int k = 0; k < REPORT_NFILES; k++) {
        if (k < REPORT_DATA0) {
            snprintf(name, sizeof name, "%s", fixed[k]);
        } else {
            int c = (k - REPORT_DATA0) % REPORT_CHARTS, e = (k - REPORT_DATA0) / REPORT_CHARTS;
            snprintf(name, sizeof name, "%s%s", report_chart_names[c], ext[e]);
        }
        int rc = out_set_open(set, &r->out[k], name, err);
        if (rc)
            return rc;
    }
    return 0;
}

static void chart(const struct doc *d, const struct report *r, int k)
{
    if (!r->drawn[k]) {
        doc_para(d, "[chart not rendered: %s.png, see \"Charts not rendered\" below]",
             report_chart_names[k]);
        return;
    }
    doc_image(d, chart_titles[k], report_chart_names[k], r->out[REPORT_PNG0 + k].tmp);
}

/* --- the content ----------------------------------------------------------- */

/* What a reader needs in one screen: what ran, how busy, how long jobs
 * waited, what it cost and what would change that, and one chart. */
static void summary(const struct doc *d, const struct report *r, const struct sim *s,
                    const struct metrics *m, const struct run_stats *st)
{
    const struct scenario *sc = s->sc;
    char fleet[256] = "";
    for (int t = 0; t < sc->cat->n; t++)
        if (m->capacity[t])
            snprintf(fleet + strlen(fleet), sizeof fleet - strlen(fleet), "%s%lld %s", fleet[0] ? ", " : "",
                     (long long)m->capacity[t], sc->cat->types[t].name);
    doc_section(d, "summary");
    doc_heading(d, 2, "Summary");
    doc_para(d, "%s over %.1f days ran %zu of %zu jobs to completion (%zu still queued, %zu running at the "
                "end). GPUs were allocated %.0f %% of the time. Jobs waited %.2f h at the 95th percentile "
                "(mean %.2f h); the mean completion time was %.2f h.",
             fleet, st->window_s / 86400, st->completed, st->submitted, st->queued, st->running,
             100 * st->utilization, st->wait_p95 / 3600, st->wait_mean / 3600, st->jct_mean / 3600);
    struct fleet_cost fc;
    fleet_cost_compute(s, m, sc->cost.billing, sc->cost.commit, &fc);
    if (fc.ok) {
        char a[32], b[32];
        bool fixed = sc->cost.hold == COST_HOLD_FIXED;
        doc_para(d, "Cost: %s USD a month (%s), of which %s USD (%.0f %%) pays for GPU time nobody used. "
                    "Energy: %.2f MWh at the facility. What would change this: %s (fleetsim compare prices "
                    "the same work every way).",
                 doc_usd(a, fc.month_usd), bill_titles[bill_own_line(sc)], doc_usd(b, fc.idle_month_usd),
                 fc.month_usd > 0 ? 100 * fc.idle_month_usd / fc.month_usd : 0.0, st->energy_kwh / 1e3,
                 fixed ? "more work on the same GPUs, fewer GPUs where waits allow, or paying only for the "
                         "hours in use"
                       : "more work (an hourly bill grows with it), or a fixed fleet once it would be busy enough");
    } else {
        doc_para(d, "No cost: %s. Energy: %.2f MWh at the facility.", fc.why, st->energy_kwh / 1e3);
    }
    chart(d, r, 0);
    doc_section_end(d);
}

static void body(const struct doc *d, const struct report *r, const struct sim *s,
                 const struct metrics *m, const struct run_stats *st)
{
    const struct scenario *sc = s->sc;
    const struct gpu_catalog *cat = sc->cat;
    char h[6][64];
    char title[256];
    snprintf(title, sizeof title, "fleetsim report: %s", sc->name);
    doc_heading(d, 1, title);
    summary(d, r, s, m, st);
    doc_para(d, "Scenario %s, policy %s, seed %llu.", sc->path, sc->policy->name,
         (unsigned long long)sc->seed);

    doc_heading(d, 2, "Fleet and workload");
    snprintf(h[0], 64, "Item");
    snprintf(h[1], 64, "Value");
    doc_row(d, true, 2, h);
    doc_kv(d, "Nodes", "%d", s->cl->nnodes);
    doc_kv(d, "GPUs", "%lld", (long long)s->cl->gpus);
    for (int t = 0; t < cat->n; t++)
        if (m->capacity[t]) {
            char key[64];
            snprintf(key, sizeof key, "GPUs %s", cat->types[t].name);
            doc_kv(d, key, "%lld", (long long)m->capacity[t]);
        }
    doc_kv(d, "Jobs", "%zu", s->njobs);
    doc_kv(d, "Jobs submitted", "%zu", st->submitted);
    doc_kv(d, "Jobs completed", "%zu", st->completed);
    doc_kv(d, "Jobs running at the end", "%zu", st->running);
    doc_kv(d, "Jobs queued at the end", "%zu", st->queued);
    doc_kv(d, "Window (days)", "%.2f", st->window_s / 86400);
    doc_kv(d, "Makespan (days)", "%.2f", st->makespan_s / 86400);
    doc_table_end(d);

    doc_heading(d, 2, "Utilization");
    snprintf(h[0], 64, "GPU type");
    snprintf(h[1], 64, "GPUs");
    snprintf(h[2], 64, "%s", "Utilization (%)");
    doc_row(d, true, 3, h);
    struct fleet_cost fc; /* an elastic pool: the GPUs held, and the use of them */
    fleet_cost_compute(s, m, sc->cost.billing, sc->cost.commit, &fc);
    struct elastic_figures el;
    bool elastic = sim_elastic(s, &el);
    for (int t = 0; t < cat->n; t++)
        if (m->capacity[t] && elastic && fc.ok)
            doc_kv(d, cat->types[t].name, "%.1f of %lld | %.1f", fc.gpus_by_type[t], (long long)m->capacity[t],
                   100 * fc.util_by_type[t]);
        else if (m->capacity[t])
            doc_kv(d, cat->types[t].name, "%lld | %.1f", (long long)m->capacity[t],
                   100 * metrics_utilization(m, t, s->end));
    if (elastic && fc.ok)
        doc_kv(d, "all", "%.1f of %lld | %.1f", fc.gpus, (long long)s->cl->gpus, 100 * st->utilization);
    else
        doc_kv(d, "all", "%lld | %.1f", (long long)s->cl->gpus, 100 * st->utilization);
    doc_table_end(d);
    if (elastic)
        doc_para(d, "An elastic pool: GPUs are those held on average over the window, of the pool's; "
                    "utilization is of the GPU time held.");
    doc_para(d, "Allocated GPU-hours: %.1f. The chart of GPUs allocated by type is in the summary above.",
             st->alloc_gpu_h);

    doc_heading(d, 2, "Queue, waits and completion times");
    const char *hw[6] = {"Hours", "mean", "p50", "p95", "p99", "max"};
    for (int i = 0; i < 6; i++)
        snprintf(h[i], 64, "%s", hw[i]);
    doc_row(d, true, 6, h);
    doc_kv(d, "Wait", "%.2f | %.2f | %.2f | %.2f | %.2f", st->wait_mean / 3600, st->wait_p50 / 3600,
           st->wait_p95 / 3600, st->wait_p99 / 3600, st->wait_max / 3600);
    doc_kv(d, "JCT", "%.2f | %.2f | %.2f | - | %.2f", st->jct_mean / 3600, st->jct_p50 / 3600, st->jct_p95 / 3600,
           st->jct_max / 3600);
    doc_table_end(d);
    doc_para(d, "Waits over %zu submitted jobs (one not started by the end counts its wait so far, a lower "
                "bound), completion times over %zu completed jobs. Queue length: "
            "mean %.6g, max %lld.", st->nwait, st->njct, st->queue_mean, (long long)m->queue_max);
    chart(d, r, 1);
    chart(d, r, 3);

    doc_heading(d, 2, "Energy and power");
    const struct energy *e = &m->en;
    snprintf(h[0], 64, "Energy");
    snprintf(h[1], 64, "kWh");
    doc_row(d, true, 2, h);
    doc_kv(d, "GPUs", "%.6g", e->gpu_j / 3.6e6);
    doc_kv(d, "Node DC", "%.6g", e->dc_j / 3.6e6);
    doc_kv(d, "Wall", "%.6g", e->wall_j / 3.6e6);
    char key[64];
    snprintf(key, sizeof key, "Facility (PUE %g)", sc->pue);
    doc_kv(d, key, "%.6g", st->energy_kwh);
    doc_table_end(d);
    doc_para(d, "PSU peak load: %.6g (%.1f %% of usable PSU capacity); highest node p99: %.6g.",
             e->fleet.peak, 100 * e->fleet.peak, e->fleet.p99);
    chart(d, r, 2);

    if (st->evictions || st->migrations)
        doc_para(d, "Preemption: %llu evictions and %llu migrations cost %.1f GPU-hours (work since the "
                    "last checkpoint, and reloads).", (unsigned long long)st->evictions,
                 (unsigned long long)st->migrations, st->lost_gpu_h);
    if (s->sc->nservices) {
        doc_heading(d, 2, "Inference services");
        char sh[9][64] = {"Service", "demand served", "latency objective", "latency SLO met (of time)",
                          "tokens within it", "mean latency (s)", "down (s)", "replicas mean", "replicas max"};
        doc_row(d, true, 9, sh);
        for (int k = 0; k < s->sc->nservices; k++) {
            struct svc_figures v;
            sim_service(s, k, &v);
            const struct service_spec *sp = &s->sc->services[k];
            char slo[160];
            service_objective_str(slo, sizeof slo, sp);
            doc_kv(d, sp->name, "%.5f | %s | %.4f | %.4f | %.3f | %.0f | %.2f | %d", v.attainment, slo,
                   v.latency_attainment, v.within_share, v.mean_latency_s, v.down_s, v.replicas_mean,
                   v.max_running);
        }
        doc_table_end(d);
        doc_para(d, "Latency SLO met: the share of the time with demand in which every target of the "
                    "service's objective held, on each stretch of constant demand and ready replicas (the "
                    "TTFT percentile from the M/M/c wait of the replicas' batch slots; docs/models.md). "
                    "Tokens within it: of the tokens demanded, those served while it held.");
    }
    report_cost(d, s, m);

    bool missing = false;
    for (int k = 0; k < REPORT_CHARTS; k++)
        missing |= !r->drawn[k];
    if (missing) {
        doc_heading(d, 2, "Charts not rendered");
        doc_para(d, "%s The scripts and their data are in the output folder; render the charts with:",
             r->have_gnuplot ? "gnuplot failed on some charts." : "gnuplot was not found.");
        fputs(d->html ? "<ul>\n" : "", d->f);
        for (int k = 0; k < REPORT_CHARTS; k++) {
            if (r->drawn[k])
                continue;
            fprintf(d->f, d->html ? "<li>%s.png: %s (%s.gp, %s.csv)</li>\n" : "- %s.png: %s (%s.gp, %s.csv)\n",
                    report_chart_names[k], chart_titles[k], report_chart_names[k], report_chart_names[k]);
        }
        fputs(d->html ? "</ul>\n<p>run <code>cd " : "\nrun `cd ", d->f);
        doc_esc(&(struct doc){d->f, d->html}, r->shown);
        fputs(d->html ? " &amp;&amp; gnuplot *.gp</code></p>\n" : " && gnuplot *.gp`\n", d->f);
    }
}

int report_write(struct report *r, const struct sim *s, const struct metrics *m,
                 const struct run_stats *st, const char *ts_path, struct fs_err *err)
{
    int ntypes = 0, rc;
    FILE *ts = fopen(ts_path, "r");
    int bad = !ts || charts_data(ts, r->out[REPORT_DATA0].f, r->out[REPORT_DATA0 + 1].f,
                                 r->out[REPORT_DATA0 + 2].f, &ntypes);
    if (ts)
        fclose(ts);
    if (bad)
        return fs_fail(err, FS_ECANTCREAT, "%s: cannot read the timeseries back", ts_path);
    charts_wait(r->out[REPORT_DATA0 + 3].f, s);
    FILE *gp[REPORT_CHARTS];
    for (int k = 0; k < REPORT_CHARTS; k++)
        gp[k] = r->out[REPORT_GP0 + k].f;
    charts_scripts(gp, ntypes);
    for (int k = REPORT_DATA0; k < REPORT_NFILES; k++)
        if ((rc = out_close(&r->out[k], err)))
            return rc;

    const char *gnuplot = charts_gnuplot();
    r->have_gnuplot = gnuplot != NULL;
    struct chart_render c[REPORT_CHARTS];
    for (int k = 0; k < REPORT_CHARTS; k++) {
        c[k] = (struct chart_render){report_chart_names[k], r->out[REPORT_GP0 + k].tmp, r->out[REPORT_DATA0 + k].tmp,
                                     r->out[REPORT_PNG0 + k].tmp};
        r->drawn[k] = false;
    }
    if (gnuplot)
        charts_render_all(gnuplot, r->dir, c, REPORT_CHARTS, r->drawn);
    for (int k = 0; k < REPORT_CHARTS; k++)
        if (!r->drawn[k])
            out_discard(&r->out[REPORT_PNG0 + k]); /* no image: nothing to commit */

    char title[300];
    snprintf(title, sizeof title, "%s - fleetsim report", s->sc->name);
    for (int k = REPORT_MD; k <= REPORT_HTML; k++) {
        struct doc d = {r->out[k].f, k == REPORT_HTML};
        doc_begin(&d, title);
        body(&d, r, s, m, st);
        doc_end(&d);
    }
    for (int k = REPORT_MD; k <= REPORT_HTML; k++)
        if ((rc = out_close(&r->out[k], err)))
            return rc;
    return 0;
}

void report_discard(struct report *r)
{
    for (int k = 0; k < REPORT_NFILES; k++)
        out_discard(&r->out[k]);
    free(r->dir);
    free(r->shown);
    r->dir = r->shown = NULL;
}
