/* power.c - GPU power over load and the cost of a power cap, fitted with
 * gsl_multifit_nlinear to the points in models/data/power.json (the curves
 * and why they have these forms: power.h). */
#include "power.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/json.h"

#define POWER_MAX_POINTS 512
#define POWER_CAP_SPEED_MIN 0.05

/* Points to fit: y measured at x (borrowed arrays), and the model. */
struct pts {
    size_t n;
    const double *x, *y;
    double (*eval)(const double *p, double x);
};

/* Points being read from the file. */
struct buf {
    size_t n;
    double x[POWER_MAX_POINTS], y[POWER_MAX_POINTS];
};

struct ctx {
    const char *file;
    const cJSON *sources;
    struct fs_err *err;
};

static const char *const top_keys[] = {"about", "sources", "infer", "train_load", "cap", NULL};
static const char *const infer_keys[] = {"gpu", "fit", "holdout", NULL}; /* $.cap: + 1 */
static const char *const iset_keys[] = {"source", "model", "task", "num_gpus", "points", NULL};
static const char *const cset_keys[] = {"source", "gpu", "dataset", "network", "batch_size",
                                        "optimizer", "rows", NULL};
static const char *const value_keys[] = {"value", "source", "notes", NULL};

double power_logistic_eval(const struct power_logistic *c, double x)
{
    return c->lo + (c->hi - c->lo) / (1 + exp(-c->k * (x - c->x0)));
}

static double logistic_at(const double *p, double x)
{
    return power_logistic_eval(&(struct power_logistic){p[0], p[1], p[2], p[3]}, x);
}

/* The cap curve below the uncapped draw, unclamped (what is fitted). */
static double cap_at(const double *p, double r)
{
    return 1 - p[0] * pow(1 - r, p[1]);
}

/* Residuals f_i = model(x_i) - y_i and their Jacobians, for GSL. */
static int resid_f(const gsl_vector *p, void *data, gsl_vector *f)
{
    const struct pts *d = data;
    double q[4];
    for (size_t j = 0; j < p->size && j < 4; j++)
        q[j] = gsl_vector_get(p, j);
    for (size_t i = 0; i < d->n; i++)
        gsl_vector_set(f, i, d->eval(q, d->x[i]) - d->y[i]);
    return GSL_SUCCESS;
}

static int logistic_df(const gsl_vector *p, void *data, gsl_matrix *J)
{
    const struct pts *d = data;
    double lo = gsl_vector_get(p, 0), hi = gsl_vector_get(p, 1);
    double k = gsl_vector_get(p, 2), x0 = gsl_vector_get(p, 3);
    for (size_t i = 0; i < d->n; i++) {
        double s = 1 / (1 + exp(-k * (d->x[i] - x0))), ds = (hi - lo) * s * (1 - s);
        gsl_matrix_set(J, i, 0, 1 - s);
        gsl_matrix_set(J, i, 1, s);
        gsl_matrix_set(J, i, 2, ds * (d->x[i] - x0));
        gsl_matrix_set(J, i, 3, -ds * k);
    }
    return GSL_SUCCESS;
}

static int cap_df(const gsl_vector *p, void *data, gsl_matrix *J)
{
    const struct pts *d = data;
    double a = gsl_vector_get(p, 0), b = gsl_vector_get(p, 1);
    for (size_t i = 0; i < d->n; i++) {
        double u = 1 - d->x[i], ub = pow(u, b);
        gsl_matrix_set(J, i, 0, -ub);
        gsl_matrix_set(J, i, 1, -a * ub * log(u));
    }
    return GSL_SUCCESS;
}

/* Least squares by GSL's trust-region method (Levenberg-Marquardt steps)
 * from p[np], updated in place, with weights w[n] (NULL: all 1).  RET: 0
 * converged (a convergence test holds at the end, as for a start that fits
 * exactly), 1 stopped at the iteration limit with finite values, -1 failed. */
static int nl_fit(struct pts *d, int (*df)(const gsl_vector *, void *, gsl_matrix *),
                  double *p, size_t np, const double *w)
{
    gsl_multifit_nlinear_fdf fdf = {.f = resid_f, .df = df, .n = d->n, .p = np, .params = d};
    gsl_multifit_nlinear_parameters par = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *ws =
        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, d->n, np);
    gsl_vector_view pv = gsl_vector_view_array(p, np);
    int info = 0, status, rc = -1;
    /* A singular step must come back as a status, not abort the process.
     * (The handler is global: fits are not meant to run on two threads.) */
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    if (w) {
        gsl_vector_const_view wv = gsl_vector_const_view_array(w, d->n);
        status = gsl_multifit_nlinear_winit(&pv.vector, &wv.vector, &fdf, ws);
    } else {
        status = gsl_multifit_nlinear_init(&pv.vector, &fdf, ws);
    }
    if (status == GSL_SUCCESS)
        status = gsl_multifit_nlinear_driver(500, 1e-12, 1e-12, 0, NULL, NULL, &info, ws);
    if (status == GSL_SUCCESS)
        rc = 0;
    else if (status == GSL_EMAXITER)
        rc = gsl_multifit_nlinear_test(1e-8, 1e-8, 0, &info, ws) == GSL_SUCCESS ? 0 : 1;
    gsl_set_error_handler(old);
    const gsl_vector *x = gsl_multifit_nlinear_position(ws);
    for (size_t i = 0; i < np; i++)
        if (!isfinite(p[i] = gsl_vector_get(x, i)))
            rc = -1;
    gsl_multifit_nlinear_free(ws);
    return rc;
}

/* Relative errors |fit - y| / y of a fitted model over d. */
static void fit_stats(const struct pts *d, const double *p, struct power_fit_stats *st)
{
    double sum = 0;
    *st = (struct power_fit_stats){.n = d->n};
    for (size_t i = 0; i < d->n; i++) {
        double e = fabs(d->eval(p, d->x[i]) - d->y[i]) / fabs(d->y[i]);
        st->max_rel_err = fmax(st->max_rel_err, e);
        sum += e * e;
    }
    st->rms_rel_err = d->n ? sqrt(sum / (double)d->n) : 0;
}

int power_fit_logistic(const double *x, const double *watts, size_t n,
                       struct power_logistic *out, struct power_fit_stats *stats,
                       struct fs_err *err)
{
    if (n < 4 || n > POWER_MAX_POINTS)
        return fs_fail(err, FS_EDATA, "logistic fit: %zu points; need 4 to %d", n, POWER_MAX_POINTS);
    double w[POWER_MAX_POINTS], xmin = x[0], xmax = x[0];
    size_t imin = 0, imax = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(watts[i]) || !(watts[i] > 0))
            return fs_fail(err, FS_EDATA, "logistic fit: point %zu (%g, %g): x must be finite "
                           "and y finite and > 0", i + 1, x[i], watts[i]);
        /* Weights 1/y^2: the fit minimizes the squared relative error. */
        w[i] = 1 / (watts[i] * watts[i]);
        xmin = fmin(xmin, x[i]), xmax = fmax(xmax, x[i]);
        imin = watts[i] < watts[imin] ? i : imin;
        imax = watts[i] > watts[imax] ? i : imax;
    }
    /* Start from the data's range, rising or falling as its lowest and
     * highest points do, with a slope that spans the x range around its
     * middle. */
    double span = xmax > xmin ? xmax - xmin : 1;
    double p[4] = {watts[imin], watts[imax], (x[imax] >= x[imin] ? 8 : -8) / span,
                   (xmin + xmax) / 2};
    struct pts d = {n, x, watts, logistic_at};
    int fit = nl_fit(&d, logistic_df, p, 4, w);
    if (fit < 0)
        return fs_fail(err, FS_EDATA, "logistic fit of %zu points failed", n);
    int flip = p[2] < 0; /* then write the same curve with k > 0 */
    *out = (struct power_logistic){p[flip], p[!flip], fabs(p[2]), p[3]};
    if (stats) {
        fit_stats(&d, p, stats);
        stats->converged = fit == 0;
    }
    return 0;
}

double power_gpu_w(const struct gpu_type *t, double load)
{
    return t->idle_w + (t->tdp_w - t->idle_w) * fmin(1, fmax(0, load));
}

double power_load_infer(const struct power_model *pm, const struct gpu_catalog *cat, double batch)
{
    const struct gpu_type *t = &cat->types[pm->infer_gpu];
    double w = power_logistic_eval(&pm->infer, log2(batch > 1 ? batch : 1));
    return fmin(1, fmax(0, (w - t->idle_w) / (t->tdp_w - t->idle_w)));
}

double power_cap_speed(const struct power_model *pm, double cap_w, double want_w)
{
    double p[2] = {pm->cap_a, pm->cap_b};
    return !(want_w > 0) || cap_w >= want_w
               ? 1 : fmax(cap_at(p, fmax(cap_w, 0) / want_w), POWER_CAP_SPEED_MIN);
}

/* ---- reading power.json ---- */

static int check_source(const struct ctx *cx, const cJSON *obj, const char *path)
{
    const char *id = NULL;
    int rc = json_string(obj, "source", true, &id, cx->file, path, cx->err);
    if (rc || cJSON_GetObjectItemCaseSensitive(cx->sources, id))
        return rc;
    return fs_fail(cx->err, FS_EDATA, "%s: %s.source: unknown source \"%s\" (not in $.sources)",
                   cx->file, path, id);
}

/* set.key: an array of rows of width numbers, each finite and > 0. */
static int read_rows(const struct ctx *cx, const cJSON *set, const char *path, const char *key,
                     int width, double (*rows)[3], size_t *n)
{
    const cJSON *arr = NULL;
    char rpath[160];
    int rc = json_child(set, key, true, cJSON_Array, &arr, cx->file, path, cx->err);
    *n = 0;
    for (const cJSON *r = arr ? arr->child : NULL; !rc && r; r = r->next, ++*n) {
        snprintf(rpath, sizeof rpath, "%s.%s[%zu]", path, key, *n);
        if (*n == POWER_MAX_POINTS || !cJSON_IsArray(r) || cJSON_GetArraySize(r) != width)
            return fs_fail(cx->err, FS_EDATA, "%s: %s: expected an array of %d numbers "
                           "(at most %d rows)", cx->file, rpath, width, POWER_MAX_POINTS);
        for (int i = 0; i < width; i++) {
            const cJSON *v = cJSON_GetArrayItem(r, i);
            if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || !(v->valuedouble > 0))
                return fs_fail(cx->err, FS_EDATA, "%s: %s[%d]: expected a number > 0",
                               cx->file, rpath, i);
            rows[*n][i] = v->valuedouble;
        }
    }
    return rc;
}

/* An inference set: rows [batch, watts over num_gpus GPUs], appended to b
 * (when not NULL) as (log2 batch, watts per GPU). */
static int read_infer_set(const struct ctx *cx, const cJSON *set, const char *path, struct buf *b)
{
    double rows[POWER_MAX_POINTS][3];
    int64_t gpus = 1;
    const char *s;
    size_t n = 0;
    int rc = json_check_keys(set, iset_keys, cx->file, path, cx->err);
    if (rc || (rc = check_source(cx, set, path)) ||
        (rc = json_string(set, "model", true, &s, cx->file, path, cx->err)) ||
        (rc = json_string(set, "task", false, &s, cx->file, path, cx->err)) ||
        (rc = json_int(set, "num_gpus", true, 1, 1024, &gpus, cx->file, path, cx->err)) ||
        (rc = read_rows(cx, set, path, "points", 2, rows, &n)))
        return rc;
    for (size_t i = 0; b && i < n && b->n < POWER_MAX_POINTS; i++, b->n++) {
        b->x[b->n] = log2(rows[i][0]);
        b->y[b->n] = rows[i][1] / (double)gpus;
    }
    return 0;
}

/* A Zeus set: rows [limit, time_per_epoch, average_power].  Appends to b
 * (when not NULL) a point (limit / uncapped draw, min time / time) for
 * every limit below the uncapped draw, the average power at the highest
 * limit. */
static int read_cap_set(const struct ctx *cx, const cJSON *set, const char *path, struct buf *b)
{
    double rows[POWER_MAX_POINTS][3];
    int64_t batch;
    const char *s;
    size_t n = 0, top = 0;
    int rc = json_check_keys(set, cset_keys, cx->file, path, cx->err);
    for (size_t i = 1; i < 6 && !rc; i++) /* the run's labels */
        rc = i == 4 ? json_int(set, cset_keys[i], true, 1, 1 << 30, &batch, cx->file, path, cx->err)
                    : json_string(set, cset_keys[i], true, &s, cx->file, path, cx->err);
    if (rc || (rc = check_source(cx, set, path)) ||
        (rc = read_rows(cx, set, path, "rows", 3, rows, &n)))
        return rc;
    if (n < 2)
        return fs_fail(cx->err, FS_EDATA, "%s: %s.rows: need at least 2 power limits",
                       cx->file, path);
    double tmin = rows[0][1];
    for (size_t i = 1; i < n; i++) {
        top = rows[i][0] > rows[top][0] ? i : top;
        tmin = fmin(tmin, rows[i][1]);
    }
    for (size_t i = 0; b && i < n && b->n < POWER_MAX_POINTS; i++) {
        if (rows[i][0] < rows[top][2]) {
            b->x[b->n] = rows[i][0] / rows[top][2];
            b->y[b->n++] = tmin / rows[i][1];
        }
    }
    return 0;
}

/* The sets of parent.fit into b; those of parent.holdout checked only. */
static int read_sets(const struct ctx *cx, const cJSON *parent, const char *path,
                     int (*read)(const struct ctx *, const cJSON *, const char *, struct buf *),
                     struct buf *b)
{
    static const char *const lists[] = {"fit", "holdout"};
    char spath[128];
    int rc = 0;
    b->n = 0;
    for (int l = 0; l < 2 && !rc; l++) {
        const cJSON *arr = NULL;
        rc = json_child(parent, lists[l], l == 0, cJSON_Array, &arr, cx->file, path, cx->err);
        int i = 0;
        for (const cJSON *s = arr ? arr->child : NULL; s && !rc; s = s->next, i++) {
            snprintf(spath, sizeof spath, "%s.%s[%d]", path, lists[l], i);
            rc = cJSON_IsObject(s) ? read(cx, s, spath, l == 0 ? b : NULL)
                                   : fs_fail(cx->err, FS_EDATA, "%s: %s: expected an object",
                                             cx->file, spath);
        }
    }
    return rc;
}

static int read_model(const struct ctx *cx, const cJSON *root, const struct gpu_catalog *cat,
                      struct power_model *pm, struct buf *b)
{
    const cJSON *infer = NULL, *cap = NULL, *tl = NULL;
    const char *gpu = NULL, *s;
    struct fs_err ferr = {0};
    int rc = json_check_keys(root, top_keys, cx->file, "$", cx->err);
    if (rc || (rc = json_string(root, "about", false, &s, cx->file, "$", cx->err)) ||
        (rc = json_child(root, "infer", true, cJSON_Object, &infer, cx->file, "$", cx->err)) ||
        (rc = json_check_keys(infer, infer_keys, cx->file, "$.infer", cx->err)) ||
        (rc = json_string(infer, "gpu", true, &gpu, cx->file, "$.infer", cx->err)))
        return rc;
    if ((pm->infer_gpu = gpu_catalog_find(cat, gpu)) < 0)
        return fs_fail(cx->err, FS_EDATA, "%s: $.infer.gpu: unknown GPU type \"%s\"", cx->file, gpu);
    if ((rc = read_sets(cx, infer, "$.infer", read_infer_set, b)))
        return rc;
    if (!(rc = power_fit_logistic(b->x, b->y, b->n, &pm->infer, &pm->infer_fit, &ferr)) &&
        !pm->infer_fit.converged)
        rc = fs_fail(&ferr, FS_EDATA, "the fit did not converge in 500 iterations");
    if (rc)
        return fs_fail(cx->err, FS_EDATA, "%s: $.infer.fit: %s", cx->file, ferr.msg);
    if (!(pm->infer.hi > pm->infer.lo))
        return fs_fail(cx->err, FS_EDATA, "%s: $.infer.fit: the fitted power falls with batch",
                       cx->file);
    if ((rc = json_child(root, "train_load", true, cJSON_Object, &tl, cx->file, "$", cx->err)) ||
        (rc = json_check_keys(tl, value_keys, cx->file, "$.train_load", cx->err)) ||
        (rc = check_source(cx, tl, "$.train_load")) ||
        (rc = json_string(tl, "notes", false, &s, cx->file, "$.train_load", cx->err)) ||
        (rc = json_number(tl, "value", true, 0, 1, &pm->train_load, cx->file, "$.train_load",
                          cx->err)) ||
        (rc = json_child(root, "cap", true, cJSON_Object, &cap, cx->file, "$", cx->err)) ||
        (rc = json_check_keys(cap, infer_keys + 1, cx->file, "$.cap", cx->err)) ||
        (rc = read_sets(cx, cap, "$.cap", read_cap_set, b)))
        return rc;
    if (b->n < 3)
        return fs_fail(cx->err, FS_EDATA, "%s: $.cap.fit: %zu points below the uncapped draw; "
                       "need 3", cx->file, b->n);
    double p[2] = {1, 2};
    struct pts d = {b->n, b->x, b->y, cap_at};
    if (nl_fit(&d, cap_df, p, 2, NULL) != 0 || !(p[0] > 0) || !(p[1] > 0))
        return fs_fail(cx->err, FS_EDATA, "%s: $.cap.fit: the cap curve fit did not converge "
                       "to a > 0, b > 0", cx->file);
    pm->cap_a = p[0];
    pm->cap_b = p[1];
    fit_stats(&d, p, &pm->cap_fit);
    pm->cap_fit.converged = true;
    return 0;
}

int power_model_load(const char *path, const struct gpu_catalog *cat,
                     struct power_model **out, struct fs_err *err)
{
    cJSON *root = NULL;
    struct power_model *pm = xcalloc(1, sizeof *pm);
    struct buf b;
    struct ctx cx = {.file = path, .err = err};
    *out = NULL;
    int rc = json_load_file(path, &root, err);
    if (!rc)
        rc = json_child(root, "sources", true, cJSON_Object, &cx.sources, path, "$", err);
    /* An ID starts "ASSUMPTION" exactly when its text starts "assumption:". */
    for (const cJSON *s = cx.sources ? cx.sources->child : NULL; !rc && s; s = s->next)
        if (!cJSON_IsString(s) || (strncmp(s->string, "ASSUMPTION", 10) == 0) !=
                                      (strncmp(s->valuestring, "assumption:", 11) == 0))
            rc = fs_fail(err, FS_EDATA, "%s: $.sources.%s: expected a string that starts "
                         "\"assumption:\" exactly when the ID starts \"ASSUMPTION\"", path,
                         s->string);
    if (!rc && !(rc = read_model(&cx, root, cat, pm, &b))) {
        *out = pm;
        pm = NULL;
    }
    power_model_free(pm);
    cJSON_Delete(root);
    return rc;
}

void power_model_free(struct power_model *pm)
{
    free(pm);
}
