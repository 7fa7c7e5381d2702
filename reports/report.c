/* report.c - report.md and report.html (see report.h). */
#include "report.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doc.h"
#include "report_cost.h"
#include "../sim/service_run.h"

int report_open(struct report *r, const char *dir, struct fs_err *err)
{
    static const char *const fixed[2] = {"report.md", "report.html"};
    static const char *const ext[3] = {".csv", ".gp", ".png"};
    char name[64];
    *r = (struct report){.dir = xstrdup(dir)};
    for (int k = 0; k < REPORT_NFILES; k++) {
        if (k < REPORT_DATA0) {
            snprintf(name, sizeof name, "%s", fixed[k]);
        } else {
            int c = (k - REPORT_DATA0) % REPORT_CHARTS, e = (k - REPORT_DATA0) / REPORT_CHARTS;
            snprintf(name, sizeof name, "%s%s", report_chart_names[c], ext[e]);
        }
        int rc = out_open(&r->out[k], dir, name, err);
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

static double psu_peak(const struct energy *e, double *p99)
{
    double peak = 0;
    *p99 = 0;
    for (int32_t n = 0; n < e->nnodes; n++) {
        peak = fmax(peak, e->psu[n].peak);
        *p99 = fmax(*p99, energy_psu_p99(e, n));
    }
    return peak;
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
    doc_kv(d, "Window (s)", "%.6g", st->window_s);
    doc_kv(d, "Makespan (s)", "%.6g", st->makespan_s);
    doc_table_end(d);

    doc_heading(d, 2, "Utilization");
    snprintf(h[0], 64, "GPU type");
    snprintf(h[1], 64, "GPUs");
    snprintf(h[2], 64, "Utilization");
    doc_row(d, true, 3, h);
    for (int t = 0; t < cat->n; t++)
        if (m->capacity[t])
            doc_kv(d, cat->types[t].name, "%lld | %.6g", (long long)m->capacity[t],
               metrics_utilization(m, t, s->end));
    doc_kv(d, "all", "%lld | %.6g", (long long)s->cl->gpus, st->utilization);
    doc_table_end(d);
    doc_para(d, "Allocated GPU-hours: %.6g.", st->alloc_gpu_h);
    chart(d, r, 0);

    doc_heading(d, 2, "Queue, waits and completion times");
    const char *hw[6] = {"Seconds", "mean", "p50", "p95", "p99", "max"};
    for (int i = 0; i < 6; i++)
        snprintf(h[i], 64, "%s", hw[i]);
    doc_row(d, true, 6, h);
    doc_kv(d, "Wait", "%.6g | %.6g | %.6g | %.6g | %.6g", st->wait_mean, st->wait_p50, st->wait_p95,
       st->wait_p99, st->wait_max);
    doc_kv(d, "JCT", "%.6g | %.6g | %.6g | - | %.6g", st->jct_mean, st->jct_p50, st->jct_p95, st->jct_max);
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
    double p99, peak = psu_peak(e, &p99);
    doc_para(d, "PSU peak load: %.6g (%.1f %% of usable PSU capacity); highest node p99: %.6g.", peak,
         100 * peak, p99);
    chart(d, r, 2);

    if (st->evictions || st->migrations)
        doc_para(d, "Preemption: %llu evictions and %llu migrations cost %.1f GPU-hours (work since the "
                    "last checkpoint, and reloads).", (unsigned long long)st->evictions,
                 (unsigned long long)st->migrations, st->lost_gpu_h);
    if (s->sc->nservices) {
        doc_heading(d, 2, "Inference services");
        char sh[7][64] = {"Service", "demand served", "mean latency (s)", "SLO met (of demand)",
                          "down (s)", "replicas mean", "replicas max"};
        doc_row(d, true, 7, sh);
        for (int k = 0; k < s->sc->nservices; k++) {
            const struct svc_run *v = &s->svc[k];
            const struct service_spec *sp = &s->sc->services[k];
            doc_kv(d, sp->name, "%.5f | %.3f | %.4f | %.0f | %.2f | %d", service_attainment(&v->st),
                   v->st.served_tokens > 0 ? v->latency_tokens / v->st.served_tokens : 0,
                   v->demand_tokens > 0 && sp->slo_latency_s > 0 ? v->slo_tokens / v->demand_tokens : 1,
                   v->down_s, s->end > 0 ? v->replica_s / fs_to_seconds(s->end) : 0, v->max_live);
        }
        doc_table_end(d);
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
        doc_esc(&(struct doc){d->f, d->html}, r->dir);
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
    for (int k = 0; k < REPORT_CHARTS; k++) {
        struct outfile *png = &r->out[REPORT_PNG0 + k];
        r->drawn[k] = gnuplot && charts_render(gnuplot, r->dir, report_chart_names[k], r->out[REPORT_GP0 + k].tmp,
                                               r->out[REPORT_DATA0 + k].tmp, png->tmp) == 0;
        if (!r->drawn[k])
            out_discard(png); /* no image: nothing to commit */
    }

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

int report_commit(struct report *r, struct fs_err *err)
{
    return out_commit_all(r->out, REPORT_NFILES, err);
}

void report_discard(struct report *r)
{
    for (int k = 0; k < REPORT_NFILES; k++)
        out_discard(&r->out[k]);
    free(r->dir);
    r->dir = NULL;
}
