/* perf_load.c - reading models/data/workloads.json and fitting shares. */
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/json.h"
#include "perf.h"

struct loader {
    const char *file;
    const cJSON *sources;
    struct perf_model *pm;
    const struct llm_model *llm;
    struct fs_err *err;
};

static int find_gpu(struct loader *L, const cJSON *obj, const char *path, int *out)
{
    const char *name = NULL;
    int rc = json_string(obj, "gpu", true, &name, L->file, path, L->err);
    if (rc)
        return rc;
    if ((*out = gpu_catalog_find(L->pm->cat, name)) >= 0)
        return 0;
    const char *hint = fs_suggest(name, L->pm->cat->names, (size_t)L->pm->cat->n);
    return fs_fail(L->err, FS_EDATA, "%s: %s.gpu: unknown GPU type \"%s\"%s%s%s", L->file, path, name,
                   hint ? "; did you mean \"" : "", hint ? hint : "", hint ? "\"?" : "");
}

static int load_points(struct loader *L, const cJSON *arr, const char *path,
                       struct perf_point *pts, int *n)
{
    static const char *const keys[] = {"gpu", "ratio", NULL};
    const cJSON *p;
    char sub[128];
    int rc;
    if (!cJSON_IsArray(arr))
        return fs_fail(L->err, FS_EDATA, "%s: %s: expected an array", L->file, path);
    *n = 0;
    cJSON_ArrayForEach(p, arr) {
        snprintf(sub, sizeof sub, "%s[%d]", path, *n);
        if (*n == PERF_MAX_POINTS)
            return fs_fail(L->err, FS_EDATA, "%s: %s: at most %d points", L->file, path, PERF_MAX_POINTS);
        if (!cJSON_IsObject(p))
            return fs_fail(L->err, FS_EDATA, "%s: %s: expected an object", L->file, sub);
        if ((rc = json_check_keys(p, keys, L->file, sub, L->err)) ||
            (rc = find_gpu(L, p, sub, &pts[*n].gpu)) ||
            (rc = json_sourced(p, "ratio", true, 1e-3, 1e3, L->sources, &pts[*n].ratio, L->file, sub, L->err)))
            return rc;
        (*n)++;
    }
    return 0;
}

/* Least squares (GSL) for the shares that best reproduce the points, with
 * the three shares summing to one: eliminate the clock share and solve for
 * the other two. */
static int fit_shares(struct loader *L, struct perf_workload *w, const struct perf_point *pts,
                      int n, const char *path)
{
    if (n < 2)
        return fs_fail(L->err, FS_EDATA, "%s: %s.fit: at least 2 points are needed", L->file, path);
    const struct gpu_type *ref = &L->pm->cat->types[L->pm->ref];
    gsl_matrix *X = gsl_matrix_alloc((size_t)n, 2), *cov = gsl_matrix_alloc(2, 2);
    gsl_vector *y = gsl_vector_alloc((size_t)n), *c = gsl_vector_alloc(2);
    gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc((size_t)n, 2);
    for (int i = 0; i < n; i++) {
        const struct gpu_type *g = &L->pm->cat->types[pts[i].gpu];
        double r[PERF_RESOURCES];
        for (int k = 0; k < PERF_RESOURCES; k++)
            r[k] = perf_capacity(ref, k, w->precision) / perf_capacity(g, k, w->precision);
        gsl_matrix_set(X, (size_t)i, 0, r[PERF_TENSOR] - r[PERF_CLOCK]);
        gsl_matrix_set(X, (size_t)i, 1, r[PERF_BANDWIDTH] - r[PERF_CLOCK]);
        gsl_vector_set(y, (size_t)i, 1 / pts[i].ratio - r[PERF_CLOCK]);
    }
    double chisq;
    gsl_multifit_linear(X, y, c, cov, &chisq, ws);
    w->share[PERF_TENSOR] = gsl_vector_get(c, 0);
    w->share[PERF_BANDWIDTH] = gsl_vector_get(c, 1);
    w->share[PERF_CLOCK] = 1 - w->share[PERF_TENSOR] - w->share[PERF_BANDWIDTH];
    gsl_multifit_linear_free(ws);
    gsl_matrix_free(X);
    gsl_matrix_free(cov);
    gsl_vector_free(y);
    gsl_vector_free(c);
    for (int k = 0; k < PERF_RESOURCES; k++)
        if (w->share[k] < 0)
            return fs_fail(L->err, FS_EDATA, "%s: %s.fit: the fit gives a negative %s share (%g)",
                           L->file, path, perf_resource_names[k], w->share[k]);
    return 0;
}

static int load_shares(struct loader *L, const cJSON *obj, struct perf_workload *w, const char *path)
{
    static const char *const keys[] = {"tensor", "bandwidth", "clock", NULL};
    char sub[128];
    double sum = 0;
    int rc;
    snprintf(sub, sizeof sub, "%s.shares", path);
    if ((rc = json_check_keys(obj, keys, L->file, sub, L->err)))
        return rc;
    for (int k = 0; k < PERF_RESOURCES; k++) {
        if ((rc = json_sourced(obj, perf_resource_names[k], false, 0, 1, L->sources, &w->share[k], L->file, sub, L->err)))
            return rc;
        sum += w->share[k];
    }
    if (fabs(sum - 1) > 1e-6)
        return fs_fail(L->err, FS_EDATA, "%s: %s: shares add up to %g, not 1", L->file, sub, sum);
    return 0;
}

/* A batch-max spec on the LLM model: every type's offline throughput per
 * GPU and largest batch (perf.h), then the weight and KV bytes and the
 * batch (the reference GPU's) the shares are derived at. */
static int llm_batch_max(struct loader *L, struct perf_workload *w, struct perf_llm *llm, const char *path)
{
    const struct perf_model *pm = L->pm;
    if (!L->llm)
        return fs_fail(L->err, FS_EDATA, "%s: %s.llm: no batch, so it runs at the largest batch the LLM "
                       "model allows, and no LLM model was loaded", L->file, path);
    struct llm_query q = {.params = llm->params, .prec = w->precision == PERF_FP8 ? LLM_FP8 : LLM_PRECISIONS,
                          .phase = LLM_OFFLINE, .input_tokens = (int)llm->prompt_tokens,
                          .output_tokens = (int)llm->output_tokens, .kv_budget_gb = -1};
    enum llm_precision ref_prec = LLM_BF16;
    for (int t = 0; t < pm->cat->n; t++) {
        struct llm_answer a = llm_serve(L->llm, t, &q);
        if (!a.fits && q.prec == LLM_FP8 && !(pm->cat->types[t].fp8_tflops > 0)) {
            struct llm_query q16 = q;
            q16.prec = LLM_PRECISIONS;
            a = llm_serve(L->llm, t, &q16);
        }
        if (a.fits) {
            w->offline[t] = a.tokens_per_s_per_gpu;
            w->max_batch[t] = a.max_batch;
        }
        if (t == pm->ref)
            ref_prec = a.prec;
    }
    if (!(w->offline[pm->ref] > 0))
        return fs_fail(L->err, FS_EDATA, "%s: %s.llm: the reference GPU %s cannot run it (LLM model)",
                       L->file, path, pm->cat->types[pm->ref].name);
    struct llm_arch a = llm_arch_default(llm->params);
    llm->bytes_per_param = llm_weight_bytes(ref_prec);
    llm->kv_bytes_per_token = 2.0 * a.layers * a.kv_dim * llm_kv_bytes(ref_prec);
    llm->batch = w->max_batch[pm->ref];
    w->batch_max = true;
    return 0;
}

/* "llm": {"params", "prompt_tokens", "output_tokens"} and either "batch",
 * "bytes_per_param" and "kv_bytes_per_token" (the roofline at that batch) or
 * none of them (the largest batch, llm_batch_max). */
static int load_llm(struct loader *L, const cJSON *obj, struct perf_workload *w, const char *path)
{
    static const char *const keys[] = {"params", "bytes_per_param", "kv_bytes_per_token",
                                       "prompt_tokens", "output_tokens", "batch", NULL};
    struct perf_llm llm = {0};
    char sub[128];
    int rc;
    snprintf(sub, sizeof sub, "%s.llm", path);
    bool fixed = cJSON_GetObjectItemCaseSensitive(obj, "batch") != NULL;
    if ((rc = json_check_keys(obj, keys, L->file, sub, L->err)) ||
        (rc = json_sourced(obj, "params", true, 1e6, 1e14, L->sources, &llm.params, L->file, sub, L->err)) ||
        (rc = json_sourced(obj, "prompt_tokens", true, 0, 1e7, L->sources, &llm.prompt_tokens, L->file, sub, L->err)) ||
        (rc = json_sourced(obj, "output_tokens", true, 1, 1e7, L->sources, &llm.output_tokens, L->file, sub, L->err)))
        return rc;
    if (!fixed) {
        for (int i = 1; i < 3; i++)
            if (cJSON_GetObjectItemCaseSensitive(obj, keys[i]))
                return fs_fail(L->err, FS_EDATA, "%s: %s.%s: without a batch the LLM model gives it (give "
                               "both or neither)", L->file, sub, keys[i]);
        rc = llm_batch_max(L, w, &llm, path);
    } else if (!(rc = json_sourced(obj, "bytes_per_param", true, 0.125, 8, L->sources, &llm.bytes_per_param, L->file, sub, L->err)) &&
               !(rc = json_sourced(obj, "kv_bytes_per_token", true, 0, 1e9, L->sources, &llm.kv_bytes_per_token, L->file, sub, L->err)))
        rc = json_sourced(obj, "batch", true, 1, 1e6, L->sources, &llm.batch, L->file, sub, L->err);
    if (rc)
        return rc;
    perf_llm_shares(&llm, w->precision, &L->pm->cat->types[L->pm->ref], w->share);
    w->batch = llm.batch;
    return 0;
}

/* "measured": {"GPU": {"value": X, "source": "ID"}, ...}: throughputs on
 * one GPU of each type, X > 0, in one unit of the file's choosing. */
static int load_measured(struct loader *L, const cJSON *obj, struct perf_workload *w, const char *path)
{
    const struct gpu_catalog *cat = L->pm->cat;
    const cJSON *m;
    char sub[128];
    int rc;
    snprintf(sub, sizeof sub, "%s.measured", path);
    if (!cJSON_IsObject(obj))
        return fs_fail(L->err, FS_EDATA, "%s: %s: expected an object", L->file, sub);
    cJSON_ArrayForEach(m, obj) {
        int g = gpu_catalog_find(cat, m->string);
        if (g < 0) {
            const char *hint = fs_suggest(m->string, cat->names, (size_t)cat->n);
            return fs_fail(L->err, FS_EDATA, "%s: %s.%s: unknown GPU type \"%s\"%s%s%s", L->file, sub,
                           m->string, m->string, hint ? "; did you mean \"" : "", hint ? hint : "",
                           hint ? "\"?" : "");
        }
        if (w->measured[g] > 0)
            return fs_fail(L->err, FS_EDATA, "%s: %s: duplicate GPU type \"%s\"", L->file, sub, m->string);
        double v = 0;
        if ((rc = json_sourced(obj, m->string, true, -HUGE_VAL, HUGE_VAL, L->sources, &v, L->file, sub, L->err)))
            return rc;
        if (!(v > 0))
            return fs_fail(L->err, FS_EDATA, "%s: %s.%s.value: a throughput must be > 0, not %g",
                           L->file, sub, m->string, v);
        w->measured[g] = v;
    }
    return 0;
}

static int load_workload(struct loader *L, const cJSON *item, struct perf_workload *w, const char *path)
{
    static const char *const keys[] = {"name", "precision", "shares", "fit", "holdout", "llm",
                                       "comm_share", "measured", NULL};
    const char *name = NULL, *precision = "bf16";
    const cJSON *shares = NULL, *fit = NULL, *llm = NULL, *holdout = NULL;
    int rc;
    if (!cJSON_IsObject(item))
        return fs_fail(L->err, FS_EDATA, "%s: %s: expected an object", L->file, path);
    if ((rc = json_check_keys(item, keys, L->file, path, L->err)) ||
        (rc = json_string(item, "name", true, &name, L->file, path, L->err)) ||
        (rc = json_string(item, "precision", false, &precision, L->file, path, L->err)) ||
        (rc = json_sourced(item, "comm_share", true, 0, 10, L->sources, &w->comm_share, L->file, path, L->err)))
        return rc;
    if (strlen(name) >= sizeof w->name)
        return fs_fail(L->err, FS_EDATA, "%s: %s.name: longer than %zu characters", L->file, path, sizeof w->name - 1);
    strcpy(w->name, name);
    if (strcmp(precision, "bf16") != 0 && strcmp(precision, "fp8") != 0)
        return fs_fail(L->err, FS_EDATA, "%s: %s.precision: \"%s\" is not bf16 or fp8", L->file, path, precision);
    w->precision = strcmp(precision, "fp8") == 0 ? PERF_FP8 : PERF_BF16;
    shares = cJSON_GetObjectItemCaseSensitive(item, "shares");
    fit = cJSON_GetObjectItemCaseSensitive(item, "fit");
    llm = cJSON_GetObjectItemCaseSensitive(item, "llm");
    holdout = cJSON_GetObjectItemCaseSensitive(item, "holdout");
    const cJSON *measured = cJSON_GetObjectItemCaseSensitive(item, "measured");
    if (measured && (rc = load_measured(L, measured, w, path)))
        return rc;
    if ((shares != NULL) + (fit != NULL) + (llm != NULL) != 1)
        return fs_fail(L->err, FS_EDATA, "%s: %s: give exactly one of \"shares\", \"fit\" and \"llm\"", L->file, path);
    if (holdout) {
        char sub[128];
        snprintf(sub, sizeof sub, "%s.holdout", path);
        if ((rc = load_points(L, holdout, sub, w->holdout, &w->nholdout)))
            return rc;
    }
    if (shares)
        return cJSON_IsObject(shares) ? load_shares(L, shares, w, path)
                                      : fs_fail(L->err, FS_EDATA, "%s: %s.shares: expected an object", L->file, path);
    if (llm)
        return cJSON_IsObject(llm) ? load_llm(L, llm, w, path)
                                   : fs_fail(L->err, FS_EDATA, "%s: %s.llm: expected an object", L->file, path);
    struct perf_point pts[PERF_MAX_POINTS];
    int n = 0;
    char sub[128];
    snprintf(sub, sizeof sub, "%s.fit", path);
    if ((rc = load_points(L, fit, sub, pts, &n)))
        return rc;
    return fit_shares(L, w, pts, n, path);
}

static int load_kinds(struct loader *L, const cJSON *kinds)
{
    const cJSON *k;
    cJSON_ArrayForEach(k, kinds) {
        if (L->pm->nkinds == 8)
            return fs_fail(L->err, FS_EDATA, "%s: $.kinds: at most 8 kinds", L->file);
        if (!cJSON_IsString(k) || perf_workload_find(L->pm, k->valuestring) < 0)
            return fs_fail(L->err, FS_EDATA, "%s: $.kinds.%s: not the name of a workload in this file",
                           L->file, k->string);
        snprintf(L->pm->kind_names[L->pm->nkinds], sizeof L->pm->kind_names[0], "%s", k->string);
        snprintf(L->pm->kind_workload[L->pm->nkinds++], sizeof L->pm->kind_workload[0], "%s", k->valuestring);
    }
    return 0;
}

static int load_root(struct loader *L, const cJSON *root)
{
    static const char *const keys[] = {"about", "sources", "reference_gpu", "network_gbs_per_gpu",
                                       "workloads", "kinds", NULL};
    const cJSON *workloads = NULL, *kinds = NULL, *item;
    const char *ref = NULL;
    int rc;
    if ((rc = json_check_keys(root, keys, L->file, "$", L->err)) ||
        (rc = json_child(root, "sources", true, cJSON_Object, &L->sources, L->file, "$", L->err)) ||
        (rc = json_string(root, "reference_gpu", true, &ref, L->file, "$", L->err)) ||
        (rc = json_sourced(root, "network_gbs_per_gpu", true, 0.1, 1e4, L->sources, &L->pm->network_gbs, L->file, "$", L->err)) ||
        (rc = json_child(root, "workloads", true, cJSON_Array, &workloads, L->file, "$", L->err)) ||
        (rc = json_child(root, "kinds", true, cJSON_Object, &kinds, L->file, "$", L->err)))
        return rc;
    if ((L->pm->ref = gpu_catalog_find(L->pm->cat, ref)) < 0)
        return fs_fail(L->err, FS_EDATA, "%s: $.reference_gpu: unknown GPU type \"%s\"", L->file, ref);
    cJSON_ArrayForEach(item, workloads) {
        char path[64];
        snprintf(path, sizeof path, "$.workloads[%d]", L->pm->n);
        if (L->pm->n == PERF_MAX_WORKLOADS)
            return fs_fail(L->err, FS_EDATA, "%s: $.workloads: at most %d", L->file, PERF_MAX_WORKLOADS);
        if ((rc = load_workload(L, item, &L->pm->w[L->pm->n], path)))
            return rc;
        if (perf_workload_find(L->pm, L->pm->w[L->pm->n].name) >= 0)
            return fs_fail(L->err, FS_EDATA, "%s: %s.name: duplicate workload \"%s\"", L->file, path,
                           L->pm->w[L->pm->n].name);
        L->pm->n++;
    }
    return load_kinds(L, kinds);
}

int perf_model_load(const char *path, const struct gpu_catalog *cat, const struct llm_model *llm,
                    struct perf_model **out, struct fs_err *err)
{
    cJSON *root = NULL;
    struct perf_model *pm = xcalloc(1, sizeof *pm);
    struct loader L = {.file = path, .pm = pm, .llm = llm, .err = err};
    pm->cat = cat;
    int rc = json_load_file(path, &root, err);
    if (!rc)
        rc = load_root(&L, root);
    cJSON_Delete(root);
    if (rc) {
        free(pm);
        pm = NULL;
    }
    *out = pm;
    return rc;
}
