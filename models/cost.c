/* cost.c - the billing rules, cost attribution and the demand forecast
 * (contracts in cost.h). */
#include <gsl/gsl_fit.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <math.h>
#include <stdlib.h>

#include "cost.h"

const char *const cost_trend_names[COST_TRENDS] = {"linear", "exponential"};

const struct cost_gpu_price *cost_gpu_price(const struct cost_prices *p, int gpu)
{
    for (int i = 0; p && i < p->ngpus; i++)
        if (p->gpus[i].gpu == gpu)
            return &p->gpus[i];
    return NULL;
}

double cost_node_capex(const struct cost_prices *p, const struct node_catalog *nodes,
                       const struct node_template *nt)
{
    int node = (int)(nt - nodes->templates);
    for (int i = 0; i < p->nservers; i++)
        if (p->servers[i].node == node)
            return p->servers[i].purchase.value;
    const struct cost_gpu_price *g = cost_gpu_price(p, nt->gpu_type);
    if (!g)
        return -1;
    return nt->gpus * g->purchase.value * (1 + p->server_overhead.value);
}

double cost_hosting_month(const struct cost_prices *p, const struct node_template *nt)
{
    return p->colocation_kw_month.value * nt->max_w / 1000;
}

double cost_months(fs_time period)
{
    return (double)period / (double)COST_MONTH_USEC;
}

struct cost_owned_terms cost_owned_terms(const struct cost_prices *p, double pue)
{
    return (struct cost_owned_terms){
        .amortization_months = p->amortization_months.value,
        .maintenance_pct_year = p->maintenance_pct_year.value,
        .usd_per_kwh = p->usd_per_kwh.value,
        .pue = pue,
    };
}

struct cost_owned cost_owned(double capex_usd, fs_time period, double it_kwh,
                             const struct cost_owned_terms *t)
{
    double months = cost_months(period);
    struct cost_owned c = {
        .amortization_usd = capex_usd * months / t->amortization_months,
        .maintenance_usd = capex_usd * t->maintenance_pct_year / 100 * months / 12,
        .energy_usd = it_kwh * t->pue * t->usd_per_kwh,
    };
    c.total_usd = c.amortization_usd + c.maintenance_usd + c.energy_usd;
    return c;
}

int64_t cost_lease_months(fs_time period)
{
    if (period <= COST_MONTH_USEC)
        return 1;
    /* Rounded up without overflow: whole months plus one for any rest. */
    return period / COST_MONTH_USEC + (period % COST_MONTH_USEC != 0);
}

double cost_leased(double usd_per_gpu_month, int gpus, fs_time period)
{
    return usd_per_gpu_month * gpus * (double)cost_lease_months(period);
}

fs_time cost_elastic_billed(fs_time held, fs_time increment, fs_time minimum)
{
    fs_time billed = (held / increment + (held % increment != 0)) * increment;
    return billed > minimum ? billed : minimum;
}

double cost_spot_rate(double share_month)
{
    return -log1p(-share_month) / (COST_MONTH_HOURS * 3600);
}

double cost_commit_discount(const struct cost_prices *p, enum cost_commit c)
{
    switch (c) {
    case COST_COMMIT_1Y:
        return p->commit_1y.value;
    case COST_COMMIT_3Y:
        return p->commit_3y.value;
    case COST_ON_DEMAND:
        break;
    }
    return 0;
}

const char *const cost_billing_names[COST_BILLINGS] = {"owned", "leased", "cloud"};
const char *const cost_commit_names[3] = {"none", "1y", "3y"};
const char *const cost_idle_names[2] = {"proportional", "separate"};

double cost_gpu_month(const struct cost_prices *p, const struct node_catalog *nodes,
                      const struct node_template *nt, int gpu, enum cost_billing b,
                      enum cost_commit c)
{
    const struct cost_gpu_price *g = cost_gpu_price(p, gpu);
    switch (b) {
    case COST_OWNED: {
        double capex = nt && nt->gpus > 0 ? cost_node_capex(p, nodes, nt) / nt->gpus
                       : g ? g->purchase.value * (1 + p->server_overhead.value) : -1;
        if (capex < 0)
            return -1;
        struct cost_owned_terms t = cost_owned_terms(p, 1);
        double hosting = nt && nt->gpus > 0 ? cost_hosting_month(p, nt) / nt->gpus : 0;
        return cost_owned(capex, COST_MONTH_USEC, 0, &t).total_usd + hosting;
    }
    case COST_LEASED:
        return g && g->lease_month.source >= 0 ? g->lease_month.value : -1;
    case COST_CLOUD:
        return g && g->cloud_hour.source >= 0
                   ? cost_cloud(g->cloud_hour.value, cost_commit_discount(p, c), COST_MONTH_HOURS)
                   : -1;
    case COST_BILLINGS:
        break;
    }
    return -1;
}

double cost_cloud(double usd_per_gpu_hour, double discount, double gpu_hours)
{
    return gpu_hours * usd_per_gpu_hour * (1 - discount);
}

/* --- attribution ----------------------------------------------------------- */

int cost_attribute(const double *used, int n, double capacity, double total_usd,
                   enum cost_idle_rule rule, struct cost_share *out,
                   double *idle_line_usd, struct fs_err *err)
{
    double sum = 0;
    if (n < 0 || !isfinite(capacity) || capacity <= 0 || !isfinite(total_usd) || total_usd < 0)
        return fs_fail(err, FS_EDATA, "cost attribution: need n >= 0, capacity > 0 and total >= 0 "
                       "(n %d, capacity %g, total %g)", n, capacity, total_usd);
    for (int i = 0; i < n; i++) {
        if (!isfinite(used[i]) || used[i] < 0)
            return fs_fail(err, FS_EDATA, "cost attribution: party %d used %g", i, used[i]);
        sum += used[i];
    }
    if (sum > capacity * (1 + 1e-9))
        return fs_fail(err, FS_EDATA, "cost attribution: %g used of a capacity of %g", sum, capacity);
    double used_usd = 0;
    for (int i = 0; i < n; i++) {
        out[i].used_usd = total_usd * (used[i] / capacity);
        out[i].idle_usd = 0;
        used_usd += out[i].used_usd;
    }
    /* Whatever was not used is idle; computed as the remainder, so the
     * lines add up to the total whatever the rounding above. */
    double idle = total_usd - used_usd;
    if (rule == COST_IDLE_SEPARATE || sum == 0) {
        *idle_line_usd = idle;
        return 0;
    }
    double shared = 0;
    for (int i = 0; i < n; i++) {
        out[i].idle_usd = idle * (used[i] / sum);
        shared += out[i].idle_usd;
    }
    *idle_line_usd = idle - shared; /* rounding only: ~1e-16 x total */
    return 0;
}

/* --- forecast ------------------------------------------------------------ */

double cost_trend_eval(const struct cost_fit *f, enum cost_trend k, double t)
{
    return k == COST_TREND_EXP ? f->a * exp(f->b * t) : f->a + f->b * t;
}

/* R^2 and RMSE of fit f (kind k) on y[n] at t = 0..n-1.  A constant series
 * has SST 0: R^2 is 1 when the fit is exact, else 0. */
static void fit_quality(struct cost_fit *f, enum cost_trend k, const double *y, int n)
{
    double mean = 0, sse = 0, sst = 0;
    for (int i = 0; i < n; i++)
        mean += y[i] / n;
    for (int i = 0; i < n; i++) {
        double r = y[i] - cost_trend_eval(f, k, i);
        sse += r * r;
        sst += (y[i] - mean) * (y[i] - mean);
    }
    f->rmse = sqrt(sse / n);
    f->r2 = sst > 0 ? 1 - sse / sst : (sse == 0 ? 1 : 0);
}

struct exp_data {
    const double *y;
    size_t n;
};

/* Residuals a e^(b t_i) - y_i and their Jacobian, for gsl_multifit_nlinear. */
static int exp_f(const gsl_vector *x, void *data, gsl_vector *f)
{
    const struct exp_data *d = data;
    double a = gsl_vector_get(x, 0), b = gsl_vector_get(x, 1);
    for (size_t i = 0; i < d->n; i++)
        gsl_vector_set(f, i, a * exp(b * (double)i) - d->y[i]);
    return GSL_SUCCESS;
}

static int exp_df(const gsl_vector *x, void *data, gsl_matrix *J)
{
    const struct exp_data *d = data;
    double a = gsl_vector_get(x, 0), b = gsl_vector_get(x, 1);
    for (size_t i = 0; i < d->n; i++) {
        double e = exp(b * (double)i);
        gsl_matrix_set(J, i, 0, e);
        gsl_matrix_set(J, i, 1, a * (double)i * e);
    }
    return GSL_SUCCESS;
}

static double exp_sse(const double *y, int n, double a, double b)
{
    double sse = 0;
    for (int i = 0; i < n; i++) {
        double r = a * exp(b * i) - y[i];
        sse += r * r;
    }
    return sse;
}

/* Refine the log-linear start (f->a, f->b) to least squares in y.  The
 * solver only takes steps that lower the SSE, so where it stops is kept
 * whatever its status (it may stop for lack of progress short of its
 * tolerances), unless it is not finite or not better than the start. */
static void exp_refine(struct cost_fit *f, const double *y, int n)
{
    struct exp_data d = {y, (size_t)n};
    gsl_multifit_nlinear_fdf fdf = {.f = exp_f, .df = exp_df, .n = (size_t)n, .p = 2, .params = &d};
    gsl_multifit_nlinear_parameters par = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *w =
        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, (size_t)n, 2);
    double x0[2] = {f->a, f->b};
    gsl_vector_view x = gsl_vector_view_array(x0, 2);
    int info = 0;
    if (gsl_multifit_nlinear_init(&x.vector, &fdf, w) == GSL_SUCCESS) {
        gsl_multifit_nlinear_driver(500, 1e-12, 1e-12, 1e-12, NULL, NULL, &info, w);
        double a = gsl_vector_get(w->x, 0), b = gsl_vector_get(w->x, 1);
        if (isfinite(a) && isfinite(b) && a > 0 && exp_sse(y, n, a, b) <= exp_sse(y, n, f->a, f->b)) {
            f->a = a;
            f->b = b;
        }
    }
    gsl_multifit_nlinear_free(w);
}

/* Both fits of y[n] (n >= 3, y >= 0) into fc, and the pick. */
static void fit_trends(const double *y, int n, struct cost_forecast *fc)
{
    double *t = xmalloc(2 * (size_t)n * sizeof *t), *ly = t + n;
    double c0, c1, cov00, cov01, cov11, sumsq;
    bool positive = true;
    for (int i = 0; i < n; i++) {
        t[i] = i;
        positive = positive && y[i] > 0;
        ly[i] = positive ? log(y[i]) : 0;
    }
    struct cost_fit *lin = &fc->fit[COST_TREND_LINEAR], *ex = &fc->fit[COST_TREND_EXP];
    *ex = (struct cost_fit){0};
    gsl_fit_linear(t, 1, y, 1, (size_t)n, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
    *lin = (struct cost_fit){.ok = true, .a = c0, .b = c1};
    fit_quality(lin, COST_TREND_LINEAR, y, n);
    if (positive) {
        gsl_fit_linear(t, 1, ly, 1, (size_t)n, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
        *ex = (struct cost_fit){.ok = true, .a = exp(c0), .b = c1};
        exp_refine(ex, y, n);
        fit_quality(ex, COST_TREND_EXP, y, n);
    }
    free(t);
    /* R^2 = 1 - SSE/SST, so "more than 1e-9 x SST lower SSE" is "R^2
     * higher by more than 1e-9". */
    fc->pick = ex->ok && ex->r2 > lin->r2 + 1e-9 ? COST_TREND_EXP : COST_TREND_LINEAR;
}

int cost_forecast(const double *y, int n, int ahead, double usd_per_gpu_hour,
                  struct cost_forecast *fc, double *proj_gpu_h, double *proj_usd,
                  struct fs_err *err)
{
    if (n < 3)
        return fs_fail(err, FS_EDATA, "forecast: %d demand points; at least 3 are needed", n);
    if (ahead < 0 || !isfinite(usd_per_gpu_hour) || usd_per_gpu_hour < 0)
        return fs_fail(err, FS_EDATA, "forecast: need ahead >= 0 and a price >= 0 (ahead %d, price %g)",
                       ahead, usd_per_gpu_hour);
    for (int i = 0; i < n; i++)
        if (!isfinite(y[i]) || y[i] < 0 || y[i] > COST_FORECAST_MAX)
            return fs_fail(err, FS_EDATA, "forecast: demand point %d is %g, not in [0, %g]", i, y[i],
                           COST_FORECAST_MAX);
    fit_trends(y, n, fc);
    for (int k = 0; k < ahead; k++) {
        double v = cost_trend_eval(&fc->fit[fc->pick], fc->pick, n + k);
        proj_gpu_h[k] = v > 0 ? v : 0;
        proj_usd[k] = proj_gpu_h[k] * usd_per_gpu_hour;
    }
    return 0;
}
