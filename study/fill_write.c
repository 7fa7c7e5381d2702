/* fill_write.c - the fill experiment's outputs (fill_grid.h): fill.csv,
 * fill-median.csv, the gnuplot script fill.gp and its chart fill.svg, and
 * the summary on stderr. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../reports/output.h"
#include "../reports/report.h"
#include "fill_grid.h"


static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

/* The q-quantile of sorted v[0..n), interpolated linearly (numpy's
 * default, which the paper's plots use). */
static double quantile(const double *v, int n, double q)
{
    double pos = q * (n - 1);
    int lo = (int)floor(pos);
    if (lo >= n - 1)
        return v[n - 1];
    return v[lo] + (pos - lo) * (v[lo + 1] - v[lo]);
}

/* Unallocated % of policy p at x % arrived over the seeds, sorted. */
static void unallocated(const struct fill_runs *w, int p, int x, double *v)
{
    for (int s = 0; s < w->g->nseeds; s++)
        v[s] = 100 - w->res[p * w->g->nseeds + s].bin[x].allocated_pct;
    qsort(v, (size_t)w->g->nseeds, sizeof *v, cmp_double);
}

static void write_curves(FILE *f, const struct fill_runs *w)
{
    fprintf(f, "policy,seed,arrived_pct,allocated_pct,fragmented_pct,frag_ratio_pct\n");
    for (int p = 0; p < w->g->npolicies; p++)
        for (int s = 0; s < w->g->nseeds; s++) {
            const struct fill_result *r = &w->res[p * w->g->nseeds + s];
            for (int x = 0; x <= FILL_MAX_PCT; x++)
                fprintf(f, "%s,%llu,%d,%.2f,%.2f,%.2f\n", w->g->policy[p]->name,
                        (unsigned long long)w->g->seeds[s], x, r->bin[x].allocated_pct,
                        r->bin[x].fragmented_pct, r->bin[x].frag_ratio_pct);
        }
}

static void write_medians(FILE *f, const struct fill_runs *w)
{
    double *v = xmalloc((size_t)w->g->nseeds * sizeof *v);
    fprintf(f, "policy,arrived_pct,unallocated_median,unallocated_p25,unallocated_p75\n");
    for (int p = 0; p < w->g->npolicies; p++)
        for (int x = 0; x <= FILL_MAX_PCT; x++) {
            unallocated(w, p, x, v);
            fprintf(f, "%s,%d,%.3f,%.3f,%.3f\n", w->g->policy[p]->name, x,
                    quantile(v, w->g->nseeds, 0.5), quantile(v, w->g->nseeds, 0.25),
                    quantile(v, w->g->nseeds, 0.75));
        }
    free(v);
}

/* One panel of the chart: every policy's median and 25-75 % band. */
static void write_panel(FILE *f, const struct fill_runs *w)
{
    fprintf(f, "plot \\\n");
    for (int p = 0; p < w->g->npolicies; p++) {
        const char *name = w->g->policy[p]->name;
        fprintf(f, "  \"fill-median.csv\" skip 1 using 2:(strcol(1) eq \"%s\" ? $4 : NaN):"
                   "(strcol(1) eq \"%s\" ? $5 : NaN) with filledcurves fs transparent solid 0.15 "
                   "noborder lc %d notitle, \\\n"
                   "  \"fill-median.csv\" skip 1 using 2:(strcol(1) eq \"%s\" ? $3 : NaN) "
                   "with lines lw 2 lc %d title \"%s\"%s\n",
                name, name, p + 1, name, p + 1, name, p + 1 < w->g->npolicies ? ", \\" : "");
    }
}

/* A gnuplot script drawing fill-median.csv like the paper's Fig. 9a, the
 * whole run and the saturated end; run in DIR it writes fill.svg (or the
 * file named by -e 'out="..."'). */
static void write_script(FILE *f, const struct fill_runs *w)
{
    fprintf(f, "# fill.gp - written by fleetsim fill.  Run in this folder: gnuplot fill.gp\n"
               "# Median over %d seeds of the unallocated GPU share (100 - allocated %%)\n"
               "# against the arrived GPU demand, with the 25-75 %% band (the FGD paper's\n"
               "# Fig. 9a): the whole run, and the end where the policies part.\n"
               "if (!exists(\"out\")) out = \"fill.svg\"\n"
               "set terminal svg size 1200,520 dynamic background rgb \"white\"\n"
               "set output out\n"
               "set datafile separator \",\"\n"
               "set xlabel \"Arrived workload (%% of cluster GPU capacity)\"\n"
               "set ylabel \"Unallocated GPU (%%)\"\n"
               "set grid\n"
               "set multiplot layout 1,2\n"
               "set key top right\n"
               "set xrange [0:%d]\n"
               "set yrange [0:100]\n",
            w->g->nseeds, FILL_MAX_PCT);
    write_panel(f, w);
    fprintf(f, "set xrange [80:%d]\n"
               "set yrange [0:25]\n"
               "set key top right\n", FILL_MAX_PCT);
    write_panel(f, w);
    fprintf(f, "unset multiplot\n");
}

enum { OUT_CURVES, OUT_MEDIANS, OUT_SCRIPT, OUT_COUNT };
static const char *const out_names[OUT_COUNT] = {"fill.csv", "fill-median.csv", "fill.gp"};

/* Write the three files and, with gnuplot, the chart fill.svg into a set
 * committed whole or not at all (reports/output.h).  *drawn: the chart was
 * rendered. */
int fill_write(const struct fill_runs *w, const char *dir, bool *drawn, struct fs_err *err)
{
    struct outset set;
    struct outfile out[OUT_COUNT] = {0}, svg = {0};
    int rc = out_set_begin(&set, dir, err);
    for (int k = 0; !rc && k < OUT_COUNT; k++)
        rc = out_set_open(&set, &out[k], out_names[k], err);
    if (!rc) {
        write_curves(out[OUT_CURVES].f, w);
        write_medians(out[OUT_MEDIANS].f, w);
        write_script(out[OUT_SCRIPT].f, w);
    }
    for (int k = 0; !rc && k < OUT_COUNT; k++)
        rc = out_close(&out[k], err);
    if (!rc && !(rc = out_set_open(&set, &svg, "fill.svg", err)) && !(rc = out_close(&svg, err))) {
        const char *gnuplot = charts_gnuplot();
        *drawn = gnuplot && charts_exec(gnuplot, out_set_path(&set), "out='fill.svg'", "fill.gp", svg.tmp) == 0;
        if (!*drawn)
            out_discard(&svg);
    }
    if (!rc)
        rc = out_set_commit(&set, err);
    for (int k = 0; k < OUT_COUNT; k++)
        out_discard(&out[k]);
    out_discard(&svg);
    out_set_end(&set);
    return rc;
}

void fill_print(FILE *out, const struct fill_runs *w, int nnodes, double wall, int jobs)
{
    const struct fill_grid *g = w->g;
    const struct fill_result *r0 = &w->res[0];
    double *v = xmalloc((size_t)g->nseeds * sizeof *v);
    fprintf(out, "fill: %d policies x %d seeds on %d nodes, %lld GPUs; %zu pods "
                    "(%zu clones) for seed %llu; %.2f s wall on %d workers\n",
            g->npolicies, g->nseeds, nnodes, (long long)(r0->capacity_milli / GPU_MILLI),
            r0->pods, r0->clones, (unsigned long long)g->seeds[0], wall, jobs);
    fprintf(out, "  %-16s %22s %22s\n", "policy", "unallocated @ 90 %", "unallocated @ 100 %");
    for (int p = 0; p < g->npolicies; p++) {
        unallocated(w, p, 90, v);
        double u90 = quantile(v, g->nseeds, 0.5);
        unallocated(w, p, 100, v);
        double u100 = quantile(v, g->nseeds, 0.5);
        fprintf(out, "  %-16s %22.2f %22.2f\n", g->policy[p]->name, u90, u100);
    }
    fprintf(out, "  (median over seeds, %% of GPU capacity)\n");
    free(v);
}
