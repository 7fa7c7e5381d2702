/* report.c - report.md and report.html (see report.h). */
#include "report.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../models/cost.h"

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

/* --- a document written both as Markdown and as HTML ---------------------- */

struct doc {
    FILE *f;
    bool html;
};

static void esc(const struct doc *d, const char *s)
{
    for (; *s; s++) {
        if (d->html && *s == '<')
            fputs("&lt;", d->f);
        else if (d->html && *s == '>')
            fputs("&gt;", d->f);
        else if (d->html && *s == '&')
            fputs("&amp;", d->f);
        else if (!d->html && (*s == '|' || *s == '*' || *s == '_' || *s == '`' || *s == '\\'))
            fprintf(d->f, "\\%c", *s);
        else if (*s == '\n')
            fputc(' ', d->f);
        else
            fputc(*s, d->f);
    }
}

static void heading(const struct doc *d, int level, const char *text)
{
    if (d->html) {
        fprintf(d->f, "<h%d>", level);
        esc(d, text);
        fprintf(d->f, "</h%d>\n", level);
    } else {
        fprintf(d->f, "\n%.*s ", level, "######");
        esc(d, text);
        fputs("\n\n", d->f);
    }
}

static void para(const struct doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void para(const struct doc *d, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fputs(d->html ? "<p>" : "", d->f);
    esc(d, buf);
    fputs(d->html ? "</p>\n" : "\n\n", d->f);
}

/* A table row of n cells; header rows start the table (and in Markdown get
 * the rule under them). */
static void row(const struct doc *d, bool header, int n, char cells[][64])
{
    if (d->html) {
        fputs(header ? "<table>\n<tr>" : "<tr>", d->f);
        for (int i = 0; i < n; i++) {
            fputs(header ? "<th>" : "<td>", d->f);
            esc(d, cells[i]);
            fputs(header ? "</th>" : "</td>", d->f);
        }
        fputs("</tr>\n", d->f);
        return;
    }
    for (int i = 0; i < n; i++) {
        fputs("| ", d->f);
        esc(d, cells[i]);
        fputc(' ', d->f);
    }
    fputs("|\n", d->f);
    if (header) {
        for (int i = 0; i < n; i++)
            fputs(i ? "|---:" : "|---", d->f);
        fputs("|\n", d->f);
    }
}

static void table_end(const struct doc *d)
{
    fputs(d->html ? "</table>\n" : "\n", d->f);
}

/* A row: a key, then the cells of the formatted text, split at " | ". */
static void kv(const struct doc *d, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void kv(const struct doc *d, const char *key, const char *fmt, ...)
{
    char cells[8][64], buf[512];
    va_list ap;
    snprintf(cells[0], sizeof cells[0], "%s", key);
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    int n = 1;
    for (char *p = buf; n < 8;) {
        char *bar = strstr(p, " | ");
        if (bar)
            *bar = '\0';
        snprintf(cells[n++], sizeof cells[0], "%.63s", p);
        if (!bar)
            break;
        p = bar + 3;
    }
    row(d, false, n, cells);
}

static void base64(FILE *out, FILE *in)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    unsigned char b[3];
    size_t n;
    while ((n = fread(b, 1, 3, in)) > 0) {
        unsigned v = (unsigned)b[0] << 16 | (n > 1 ? (unsigned)b[1] << 8 : 0) | (n > 2 ? b[2] : 0);
        fputc(tab[v >> 18 & 63], out);
        fputc(tab[v >> 12 & 63], out);
        fputc(n > 1 ? tab[v >> 6 & 63] : '=', out);
        fputc(n > 2 ? tab[v & 63] : '=', out);
    }
}

static void chart(const struct doc *d, const struct report *r, int k)
{
    if (!r->drawn[k]) {
        para(d, "[chart not rendered: %s.png, see \"Charts not rendered\" below]",
             report_chart_names[k]);
        return;
    }
    if (!d->html) {
        fprintf(d->f, "![%s](%s.png)\n\n", chart_titles[k], report_chart_names[k]);
        return;
    }
    FILE *in = fopen(r->out[REPORT_PNG0 + k].tmp, "rb");
    if (!in)
        return;
    fprintf(d->f, "<figure><img alt=\"%s\" src=\"data:image/png;base64,", chart_titles[k]);
    base64(d->f, in);
    fclose(in);
    fprintf(d->f, "\"><figcaption>%s</figcaption></figure>\n", chart_titles[k]);
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

static void cost_section(const struct doc *d, const struct sim *s, const struct metrics *m)
{
    const struct scenario *sc = s->sc;
    heading(d, 2, "Cost");
    if (!sc->prices || s->end <= 0) {
        para(d, "No cost: %s.", !sc->prices ? "the scenario has no prices" : "the run window is empty");
        return;
    }
    double capex = 0;
    for (int32_t n = 0; n < m->en.nnodes; n++) {
        double c = cost_node_capex(sc->prices, sc->nodes, s->node_power[n]->node);
        if (c < 0) {
            para(d, "No cost: server %s has no purchase price.", s->node_power[n]->node->name);
            return;
        }
        capex += c;
    }
    struct cost_owned_terms t = cost_owned_terms(sc->prices, sc->pue);
    double kwh = m->en.dc_j / 3.6e6;
    struct cost_owned run = cost_owned(capex, s->end, kwh, &t);
    double months = cost_months(s->end);
    para(d, "Owned fleet: capex %.2f USD for %d servers, amortized over %g months, maintenance "
            "%g %% a year, energy at %g USD/kWh x PUE %g on the run's %.3f kWh node DC energy.",
         capex, m->en.nnodes, t.amortization_months, t.maintenance_pct_year, t.usd_per_kwh, t.pue, kwh);
    char h[4][64] = {"Owned cost (USD)", "run window", "per 730-h month"};
    row(d, true, 3, h);
    kv(d, "amortization", "%.2f | %.2f", run.amortization_usd, run.amortization_usd / months);
    kv(d, "maintenance", "%.2f | %.2f", run.maintenance_usd, run.maintenance_usd / months);
    kv(d, "energy", "%.2f | %.2f", run.energy_usd, run.energy_usd / months);
    kv(d, "total", "%.2f | %.2f", run.total_usd, run.total_usd / months);
    table_end(d);
    para(d, "Owned monthly cost: %.2f USD per month.", run.total_usd / months);
}

static void body(const struct doc *d, const struct report *r, const struct sim *s,
                 const struct metrics *m, const struct run_stats *st)
{
    const struct scenario *sc = s->sc;
    const struct gpu_catalog *cat = sc->cat;
    char h[6][64];
    char title[256];
    snprintf(title, sizeof title, "fleetsim report: %s", sc->name);
    heading(d, 1, title);
    para(d, "Scenario %s, policy %s, seed %llu.", sc->path, sc->policy->name,
         (unsigned long long)sc->seed);

    heading(d, 2, "Fleet and workload");
    snprintf(h[0], 64, "Item");
    snprintf(h[1], 64, "Value");
    row(d, true, 2, h);
    kv(d, "Nodes", "%d", s->cl->nnodes);
    kv(d, "GPUs", "%lld", (long long)s->cl->gpus);
    for (int t = 0; t < cat->n; t++)
        if (m->capacity[t]) {
            char key[64];
            snprintf(key, sizeof key, "GPUs %s", cat->types[t].name);
            kv(d, key, "%lld", (long long)m->capacity[t]);
        }
    kv(d, "Jobs", "%zu", s->njobs);
    kv(d, "Jobs submitted", "%zu", st->submitted);
    kv(d, "Jobs completed", "%zu", st->completed);
    kv(d, "Jobs running at the end", "%zu", st->running);
    kv(d, "Jobs queued at the end", "%zu", st->queued);
    kv(d, "Window (s)", "%.6g", st->window_s);
    kv(d, "Makespan (s)", "%.6g", st->makespan_s);
    table_end(d);

    heading(d, 2, "Utilization");
    snprintf(h[0], 64, "GPU type");
    snprintf(h[1], 64, "GPUs");
    snprintf(h[2], 64, "Utilization");
    row(d, true, 3, h);
    for (int t = 0; t < cat->n; t++)
        if (m->capacity[t])
            kv(d, cat->types[t].name, "%lld | %.6g", (long long)m->capacity[t],
               metrics_utilization(m, t, s->end));
    kv(d, "all", "%lld | %.6g", (long long)s->cl->gpus, st->utilization);
    table_end(d);
    para(d, "Allocated GPU-hours: %.6g.", st->alloc_gpu_h);
    chart(d, r, 0);

    heading(d, 2, "Queue, waits and completion times");
    const char *hw[6] = {"Seconds", "mean", "p50", "p95", "p99", "max"};
    for (int i = 0; i < 6; i++)
        snprintf(h[i], 64, "%s", hw[i]);
    row(d, true, 6, h);
    kv(d, "Wait", "%.6g | %.6g | %.6g | %.6g | %.6g", st->wait_mean, st->wait_p50, st->wait_p95,
       st->wait_p99, st->wait_max);
    kv(d, "JCT", "%.6g | %.6g | %.6g | - | %.6g", st->jct_mean, st->jct_p50, st->jct_p95, st->jct_max);
    table_end(d);
    para(d, "Waits over %zu started jobs, completion times over %zu completed jobs. Queue length: "
            "mean %.6g, max %lld.", st->nwait, st->njct, st->queue_mean, (long long)m->queue_max);
    chart(d, r, 1);
    chart(d, r, 3);

    heading(d, 2, "Energy and power");
    const struct energy *e = &m->en;
    snprintf(h[0], 64, "Energy");
    snprintf(h[1], 64, "kWh");
    row(d, true, 2, h);
    kv(d, "GPUs", "%.6g", e->gpu_j / 3.6e6);
    kv(d, "Node DC", "%.6g", e->dc_j / 3.6e6);
    kv(d, "Wall", "%.6g", e->wall_j / 3.6e6);
    char key[64];
    snprintf(key, sizeof key, "Facility (PUE %g)", sc->pue);
    kv(d, key, "%.6g", e->wall_j * sc->pue / 3.6e6);
    table_end(d);
    double p99, peak = psu_peak(e, &p99);
    para(d, "PSU peak load: %.6g (%.1f %% of usable PSU capacity); highest node p99: %.6g.", peak,
         100 * peak, p99);
    chart(d, r, 2);

    cost_section(d, s, m);

    bool missing = false;
    for (int k = 0; k < REPORT_CHARTS; k++)
        missing |= !r->drawn[k];
    if (missing) {
        heading(d, 2, "Charts not rendered");
        para(d, "%s The scripts and their data are in the output folder; render the charts with:",
             r->have_gnuplot ? "gnuplot failed on some charts." : "gnuplot was not found.");
        fputs(d->html ? "<ul>\n" : "", d->f);
        for (int k = 0; k < REPORT_CHARTS; k++) {
            if (r->drawn[k])
                continue;
            fprintf(d->f, d->html ? "<li>%s.png: %s (%s.gp, %s.csv)</li>\n" : "- %s.png: %s (%s.gp, %s.csv)\n",
                    report_chart_names[k], chart_titles[k], report_chart_names[k], report_chart_names[k]);
        }
        fputs(d->html ? "</ul>\n<p>run <code>cd " : "\nrun `cd ", d->f);
        esc(&(struct doc){d->f, d->html}, r->dir);
        fputs(d->html ? " &amp;&amp; gnuplot *.gp</code></p>\n" : " && gnuplot *.gp`\n", d->f);
    }
}

static const char css[] =
    "body{font-family:sans-serif;max-width:960px;margin:2em auto;color:#222}"
    "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.25em .6em}"
    "td{text-align:right}td:first-child{text-align:left}figure{margin:1em 0}img{max-width:100%}";

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
        r->drawn[k] = gnuplot && charts_render(gnuplot, r->dir, k, r->out[REPORT_GP0 + k].tmp,
                                               r->out[REPORT_DATA0 + k].tmp, png->tmp) == 0;
        if (!r->drawn[k])
            out_discard(png); /* no image: nothing to commit */
    }

    body(&(struct doc){r->out[REPORT_MD].f, false}, r, s, m, st);
    FILE *html = r->out[REPORT_HTML].f;
    fprintf(html, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
    esc(&(struct doc){html, true}, s->sc->name);
    fprintf(html, " - fleetsim report</title>\n<style>%s</style>\n</head>\n<body>\n", css);
    body(&(struct doc){html, true}, r, s, m, st);
    fputs("</body>\n</html>\n", html);
    for (int k = REPORT_MD; k <= REPORT_HTML; k++)
        if ((rc = out_close(&r->out[k], err)))
            return rc;
    return 0;
}

int report_commit(struct report *r, struct fs_err *err)
{
    for (int k = 0; k < REPORT_NFILES; k++) {
        if (!r->out[k].final)
            continue;
        int rc = out_commit(&r->out[k], err);
        if (rc) {
            while (k-- > 0)
                if (r->out[k].final)
                    unlink(r->out[k].final);
            return rc;
        }
    }
    return 0;
}

void report_discard(struct report *r)
{
    for (int k = 0; k < REPORT_NFILES; k++)
        out_discard(&r->out[k]);
    free(r->dir);
    r->dir = NULL;
}
