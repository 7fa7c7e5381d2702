/* sweep_grid.c - a sweep's grid (sweep.h): the grid file, its key paths,
 * and each point's scenario, run in memory.
 *
 * A parameter is a key path (base/jpath.h).  Point i's values: i written
 * in the mixed radix of the seeds (fastest) and the parameters' value
 * counts, the last parameter fastest.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/json.h"
#include "../base/jpath.h"
#include "sweep.h"

void sweep_free(struct sweep *sw)
{
    for (int k = 0; k < sw->nparams; k++)
        jpath_free(&sw->params[k].steps);
    free(sw->params);
    free(sw->seeds);
    free(sw->rows);
    free(sw->scenario);
    cJSON_Delete(sw->root);
    cJSON_Delete(sw->base);
}

/* Set p's path in root to a copy of value.  RET: 0, or FS_EDATA with err
 * filled. */
static int apply(cJSON *root, const struct sweep_param *p, const cJSON *value, const char *grid, size_t point,
                 struct fs_err *err)
{
    char why[384];
    if (jpath_set(root, &p->steps, value, why, sizeof why))
        return fs_fail(err, FS_EDATA, "%s: parameter \"%s\": %s (point %zu)", grid, p->path, why, point);
    return 0;
}

void sweep_indexes(const struct sweep *sw, size_t i, int vi[SWEEP_MAX_PARAMS], int *si)
{
    size_t nseeds = sw->nseeds ? (size_t)sw->nseeds : 1;
    *si = (int)(i % nseeds);
    i /= nseeds;
    for (int k = sw->nparams - 1; k >= 0; k--) {
        vi[k] = (int)(i % (size_t)sw->params[k].nvalues);
        i /= (size_t)sw->params[k].nvalues;
    }
}

/* Point i's scenario tree.  RET: 0 or FS_EDATA; the caller frees *out. */
static int point_tree(const struct sweep *sw, size_t i, cJSON **out, struct fs_err *err)
{
    int vi[SWEEP_MAX_PARAMS], si;
    sweep_indexes(sw, i, vi, &si);
    *out = cJSON_Duplicate(sw->base, true);
    for (int k = 0; k < sw->nparams; k++) {
        int rc = apply(*out, &sw->params[k], cJSON_GetArrayItem(sw->params[k].values, vi[k]), sw->grid, i,
                       err);
        if (rc)
            return rc;
    }
    return 0;
}

void sweep_describe(const struct sweep *sw, size_t i, char *buf, size_t size)
{
    int vi[SWEEP_MAX_PARAMS], si;
    sweep_indexes(sw, i, vi, &si);
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < sw->nparams && len < size; k++) {
        char *v = cJSON_PrintUnformatted(cJSON_GetArrayItem(sw->params[k].values, vi[k]));
        int w = snprintf(buf + len, size - len, "%s%s=%s", k ? ", " : "", sw->params[k].path, v);
        len += w > 0 ? (size_t)w : 0;
        free(v);
    }
    if (sw->nseeds && len < size)
        snprintf(buf + len, size - len, "%sseed %llu", len ? ", " : "", (unsigned long long)sw->seeds[si]);
}

/* Compute point i (an executor task): apply its values to a copy of the
 * scenario, run it in memory and append its row.  RET: 0 or the run's
 * code, with a message naming the grid, the point and its values. */
static int sweep_point(void *ctx, size_t i, struct exec_out *out, struct fs_err *err)
{
    const struct sweep *sw = ctx;
    struct scenario_options so = sw->so;
    if (sw->nseeds) {
        int vi[SWEEP_MAX_PARAMS], si;
        sweep_indexes(sw, i, vi, &si);
        so.has_seed = true;
        so.seed = sw->seeds[si];
    }
    cJSON *tree = NULL;
    struct run_result r = {0};
    int rc = point_tree(sw, i, &tree, err);
    if (rc == 0 &&
        (rc = run_scenario(&(struct run_spec){.tree = tree, .path = sw->scenario, .so = so}, &r, err)) != 0) {
        char what[512];
        sweep_describe(sw, i, what, sizeof what);
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        fs_fail(err, rc, "%s: point %zu (%s): %s", sw->grid, i, what, msg);
    }
    if (rc == 0) {
        struct sweep_row row = {.seed = r.sc->seed};
        metric_values(&r, row.v);
        exec_put(out, &row, sizeof row);
    }
    run_result_free(&r);
    cJSON_Delete(tree);
    return rc;
}

static void progress(void *ctx, size_t i, const struct exec_out *res, size_t done)
{
    const struct sweep *sw = ctx;
    const struct sweep_row *row = (const void *)res->data;
    char what[512];
    sweep_describe(sw, i, what, sizeof what);
    fprintf(stderr, "  [%zu/%zu] point %zu%s%s%s: utilization %.3f, p95 wait %.2f h, %.2f USD per month\n", done,
            sw->npoints, i, what[0] ? " (" : "", what, what[0] ? ")" : "", row->v[METRIC_UTILIZATION],
            row->v[METRIC_WAIT_P95] / 3600, row->v[METRIC_COST_MONTH]);
}

int sweep_run(struct sweep *sw, int jobs, int rank, int nranks, bool quiet, struct fs_err *err)
{
    struct exec_tasks t = {.n = sw->npoints, .ctx = sw, .run = sweep_point, .progress = quiet ? NULL : progress};
    struct exec_out *res = xcalloc(sw->npoints + 1, sizeof *res);
    size_t failed;
    int rc = nranks > 1 ? exec_mpi_run(&t, rank, res, &failed, err) : exec_run(&t, jobs, res, &failed, err);
    for (size_t i = 0; rc == 0 && rank == 0 && i < sw->npoints; i++)
        memcpy(&sw->rows[i], res[i].data, sizeof sw->rows[i]);
    exec_results_free(res, sw->npoints);
    free(res);
    return rc;
}

static int load_seeds(struct sweep *sw, struct fs_err *err)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(sw->root, "seeds");
    if (!a)
        return 0;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) == 0)
        return fs_fail(err, FS_EDATA, "%s: $.seeds: expected a non-empty array of seeds", sw->grid);
    sw->seeds = xcalloc((size_t)cJSON_GetArraySize(a), sizeof *sw->seeds);
    const cJSON *s;
    cJSON_ArrayForEach(s, a) {
        double v = cJSON_IsNumber(s) ? s->valuedouble : -1;
        if (!(v >= 0 && v <= 9007199254740992.0 && v == floor(v)))
            return fs_fail(err, FS_EDATA, "%s: $.seeds[%d]: expected a non-negative integer (at most 2^53)",
                           sw->grid, sw->nseeds);
        sw->seeds[sw->nseeds++] = (uint64_t)v;
    }
    return 0;
}

int sweep_load(struct sweep *sw, const char *grid, struct fs_err *err)
{
    static const char *const keys[] = {"scenario", "parameters", "seeds", "description", NULL};
    const char *scen;
    const cJSON *params, *p;
    sw->grid = grid;
    int rc = json_load_file(grid, &sw->root, err);
    if (rc || (rc = json_check_keys(sw->root, keys, grid, "$", err)) ||
        (rc = json_string(sw->root, "scenario", true, &scen, grid, "$", err)) ||
        (rc = json_child(sw->root, "parameters", true, cJSON_Object, &params, grid, "$", err)) ||
        (rc = load_seeds(sw, err)))
        return rc;
    sw->npoints = sw->nseeds ? (size_t)sw->nseeds : 1;
    sw->params = xcalloc((size_t)cJSON_GetArraySize(params) + 1, sizeof *sw->params);
    if (cJSON_GetArraySize(params) > SWEEP_MAX_PARAMS)
        return fs_fail(err, FS_EDATA, "%s: $.parameters: more than %d parameters", grid, SWEEP_MAX_PARAMS);
    cJSON_ArrayForEach(p, params) {
        struct sweep_param *pm = &sw->params[sw->nparams++];
        pm->path = p->string;
        for (int k = 0; k < sw->nparams - 1; k++)
            if (strcmp(sw->params[k].path, pm->path) == 0)
                return fs_fail(err, FS_EDATA, "%s: $.parameters: duplicate parameter \"%s\"", grid, pm->path);
        const char *why = jpath_parse(pm->path, &pm->steps);
        if (why)
            return fs_fail(err, FS_EDATA, "%s: $.parameters: \"%s\" is not a key path (%s), e.g. "
                           "\"fleet[0].nodes\"", grid, pm->path, why);
        pm->values = p;
        pm->nvalues = cJSON_IsArray(p) ? cJSON_GetArraySize(p) : 0;
        if (pm->nvalues == 0)
            return fs_fail(err, FS_EDATA, "%s: $.parameters[\"%s\"]: expected a non-empty array of values",
                           grid, pm->path);
        if (sw->npoints * (size_t)pm->nvalues > SWEEP_MAX_POINTS)
            return fs_fail(err, FS_EDATA, "%s: $.parameters: the grid has more than %d points", grid,
                           SWEEP_MAX_POINTS);
        sw->npoints *= (size_t)pm->nvalues;
    }
    const char *slash = strrchr(grid, '/');
    int dirlen = scen[0] == '/' || !slash ? 0 : (int)(slash - grid + 1);
    sw->scenario = xmalloc((size_t)dirlen + strlen(scen) + 1);
    sprintf(sw->scenario, "%.*s%s", dirlen, grid, scen);
    if ((rc = scenario_read(sw->scenario, &sw->so, &sw->base, err)))
        return rc;
    /* Every point's paths now, before any simulation: cheap next to a run. */
    for (size_t i = 0; i < sw->npoints; i++) {
        cJSON *tree = NULL;
        rc = point_tree(sw, i, &tree, err);
        cJSON_Delete(tree);
        if (rc)
            return rc;
    }
    sw->rows = xcalloc(sw->npoints, sizeof *sw->rows);
    return 0;
}
