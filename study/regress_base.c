/* regress_base.c - the regress baseline file (regress_impl.h):
 *
 *   {"fleetsim_regress": 2,
 *    "test": "...",                        (what the gate does; informational)
 *    "seeds": [1, 2, 3, 4, 5],
 *    "tolerances": {"METRIC": {"rel": R, "abs": A, "better": -1|1}},  (optional)
 *    "scenarios": {"KEY": {"name": "...",
 *                          "tolerances": {...},                     (optional)
 *                          "metrics": {"METRIC": [one value per seed], ...}}},
 *    "meta": {...}}                        (the build that wrote it)
 *
 * A value is null where the figure is undefined (a cost without a price).
 * Each override may give any of rel, abs and better; what it leaves out
 * comes from the level above (the file's, then the metric table's), and
 * rel = abs = 0 stops gating the metric.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/json.h"
#include "../base/version.h"
#include "../reports/output.h"
#include "regress_impl.h"

static const char test_text[] =
    "each metric's change is the mean over this run's seeds minus the mean over the baseline's, with "
    "Welch's t interval at 95 %; a metric is WORSE when the whole interval lies beyond its tolerance "
    "in its bad direction";

/* Apply the overrides object o (may be NULL) onto tol[], checking it.
 * RET: 0 or FS_EDATA. */
static int apply_overrides(const cJSON *o, struct rg_tol tol[METRIC_MAX], const char *file,
                           const char *where, struct fs_err *err)
{
    if (!o)
        return 0;
    if (!cJSON_IsObject(o))
        return fs_fail(err, FS_EDATA, "%s: %s: expected an object of metric names", file, where);
    static const char *const keys[] = {"rel", "abs", "better", NULL};
    const cJSON *m;
    cJSON_ArrayForEach(m, o) {
        int k;
        char path[300];
        snprintf(path, sizeof path, "%s.%s", where, m->string);
        if (!metric_find(m->string, &k))
            return fs_fail(err, FS_EDATA, "%s: %s: no such metric (docs/metrics.md lists them)", file, path);
        if (!cJSON_IsObject(m))
            return fs_fail(err, FS_EDATA, "%s: %s: expected {\"rel\": R, \"abs\": A, \"better\": -1 or 1}",
                           file, path);
        int64_t better = tol[k].better;
        int rc = json_check_keys(m, keys, file, path, err);
        if (!rc)
            rc = json_number(m, "rel", false, 0, 1e6, &tol[k].rel, file, path, err);
        if (!rc)
            rc = json_number(m, "abs", false, 0, 1e300, &tol[k].abs, file, path, err);
        if (!rc)
            rc = json_int(m, "better", false, -1, 1, &better, file, path, err);
        if (rc)
            return rc;
        if (better == 0)
            return fs_fail(err, FS_EDATA, "%s: %s.better: expected -1 (lower is better) or 1", file, path);
        tol[k].better = (int)better;
    }
    return 0;
}

static void table_tols(struct rg_tol tol[METRIC_MAX])
{
    for (int k = 0; k < metric_count; k++)
        tol[k] = (struct rg_tol){metric_table[k].rel, metric_table[k].abs, metric_table[k].better};
}

struct rg_tol rg_base_tol(const struct rg_base *b, const cJSON *e, int k)
{
    struct rg_tol tol[METRIC_MAX];
    memcpy(tol, b->tol, sizeof tol);
    struct fs_err ignored;
    if (e)
        apply_overrides(cJSON_GetObjectItemCaseSensitive(e, "tolerances"), tol, "", "", &ignored);
    return tol[k];
}

/* Check one scenario entry e against the seeds.  RET: 0 or FS_EDATA. */
static int check_entry(const struct rg_base *b, const cJSON *e, const char *file, struct fs_err *err)
{
    static const char *const keys[] = {"name", "tolerances", "metrics", NULL};
    char where[300];
    snprintf(where, sizeof where, "$.scenarios[\"%s\"]", e->string);
    if (!cJSON_IsObject(e))
        return fs_fail(err, FS_EDATA, "%s: %s: expected {\"name\", \"metrics\"}", file, where);
    const char *name;
    const cJSON *metrics;
    struct rg_tol tol[METRIC_MAX];
    memcpy(tol, b->tol, sizeof tol);
    char tw[320];
    snprintf(tw, sizeof tw, "%s.tolerances", where);
    int rc = json_check_keys(e, keys, file, where, err);
    if (!rc)
        rc = json_string(e, "name", true, &name, file, where, err);
    if (!rc)
        rc = apply_overrides(cJSON_GetObjectItemCaseSensitive(e, "tolerances"), tol, file, tw, err);
    if (!rc)
        rc = json_child(e, "metrics", true, cJSON_Object, &metrics, file, where, err);
    for (int k = 0; rc == 0 && k < metric_count; k++) {
        if (!rg_gated(&tol[k]))
            continue;
        const char *m = metric_table[k].name;
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(metrics, m), *x;
        if (!a)
            return fs_fail(err, FS_EDATA, "%s: %s.metrics.%s: missing (regenerate the baseline with --update)",
                           file, where, m);
        if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != b->nseeds)
            return fs_fail(err, FS_EDATA, "%s: %s.metrics.%s: expected an array of %d values, one per seed",
                           file, where, m, b->nseeds);
        cJSON_ArrayForEach(x, a) {
            if (!cJSON_IsNull(x) && (!cJSON_IsNumber(x) || !isfinite(x->valuedouble)))
                return fs_fail(err, FS_EDATA, "%s: %s.metrics.%s: expected finite numbers, or null "
                               "(undefined: a cost without a price)", file, where, m);
        }
    }
    return rc;
}

/* The seeds array.  RET: 0 or FS_EDATA. */
static int load_seeds(struct rg_base *b, const char *file, struct fs_err *err)
{
    const cJSON *a, *x;
    int rc = json_child(b->root, "seeds", true, cJSON_Array, &a, file, "$", err);
    if (rc)
        return rc;
    int n = cJSON_GetArraySize(a);
    if (n < 1 || n > REGRESS_MAX_SEEDS)
        return fs_fail(err, FS_EDATA, "%s: $.seeds: expected 1 to %d seeds, found %d", file, REGRESS_MAX_SEEDS, n);
    b->seeds = xcalloc((size_t)n, sizeof *b->seeds);
    cJSON_ArrayForEach(x, a) {
        double s = cJSON_IsNumber(x) ? x->valuedouble : -1;
        if (s < 0 || s > 9007199254740992.0 || s != floor(s))
            return fs_fail(err, FS_EDATA, "%s: $.seeds[%d]: expected a whole number >= 0", file, b->nseeds);
        b->seeds[b->nseeds++] = (uint64_t)s;
    }
    return 0;
}

int rg_base_load(const char *file, struct rg_base *b, struct fs_err *err)
{
    static const char *const keys[] = {"fleetsim_regress", "test", "seeds", "tolerances", "scenarios", "meta", NULL};
    memset(b, 0, sizeof *b);
    table_tols(b->tol);
    int64_t format = 0;
    int rc = json_load_file(file, &b->root, err);
    if (!rc)
        rc = json_check_keys(b->root, keys, file, "$", err);
    if (!rc)
        rc = json_int(b->root, "fleetsim_regress", true, 0, INT32_MAX, &format, file, "$", err);
    if (!rc && format != REGRESS_FORMAT)
        rc = fs_fail(err, FS_EDATA, "%s: $.fleetsim_regress: format %lld, this fleetsim reads format %d "
                     "(write the baseline again with --update)", file, (long long)format, REGRESS_FORMAT);
    if (!rc)
        rc = load_seeds(b, file, err);
    if (!rc)
        rc = apply_overrides(cJSON_GetObjectItemCaseSensitive(b->root, "tolerances"), b->tol, file,
                             "$.tolerances", err);
    if (!rc)
        rc = json_child(b->root, "scenarios", true, cJSON_Object, &b->scenarios, file, "$", err);
    if (!rc && !b->scenarios->child)
        rc = fs_fail(err, FS_EDATA, "%s: $.scenarios: empty: a baseline that gates nothing "
                     "(write it with --update)", file);
    const cJSON *e;
    if (!rc)
        cJSON_ArrayForEach(e, b->scenarios) {
            if ((rc = check_entry(b, e, file, err)))
                break;
        }
    if (rc)
        rg_base_free(b);
    return rc;
}

void rg_base_free(struct rg_base *b)
{
    cJSON_Delete(b->root);
    free(b->seeds);
    memset(b, 0, sizeof *b);
}

int rg_base_write(const char *file, const struct rg_scen *sc, size_t n, const uint64_t *seeds,
                  int nseeds, const struct rg_base *old, struct fs_err *err)
{
    cJSON *root = cJSON_CreateObject(), *all = cJSON_CreateObject(), *sa = cJSON_CreateArray();
    cJSON_AddNumberToObject(root, "fleetsim_regress", REGRESS_FORMAT);
    cJSON_AddStringToObject(root, "test", test_text);
    for (int s = 0; s < nseeds; s++)
        cJSON_AddItemToArray(sa, cJSON_CreateNumber((double)seeds[s]));
    cJSON_AddItemToObject(root, "seeds", sa);
    const cJSON *keep = old ? cJSON_GetObjectItemCaseSensitive(old->root, "tolerances") : NULL;
    if (keep)
        cJSON_AddItemToObject(root, "tolerances", cJSON_Duplicate(keep, true));
    cJSON_AddItemToObject(root, "scenarios", all);
    cJSON_AddItemToObject(root, "meta", version_json());
    for (size_t i = 0; i < n; i++) {
        if (sc[i].skipped)
            continue;
        const cJSON *oe = old ? cJSON_GetObjectItemCaseSensitive(old->scenarios, sc[i].key) : NULL;
        cJSON *o = cJSON_CreateObject(), *m = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", sc[i].name);
        keep = oe ? cJSON_GetObjectItemCaseSensitive(oe, "tolerances") : NULL;
        if (keep)
            cJSON_AddItemToObject(o, "tolerances", cJSON_Duplicate(keep, true));
        for (int k = 0; k < metric_count; k++) {
            struct rg_tol t = old ? rg_base_tol(old, oe, k)
                                  : (struct rg_tol){metric_table[k].rel, metric_table[k].abs, metric_table[k].better};
            if (!rg_gated(&t))
                continue;
            cJSON *a = cJSON_CreateArray();
            for (int s = 0; s < nseeds; s++) {
                double v = sc[i].v[s][k];
                cJSON_AddItemToArray(a, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
            }
            cJSON_AddItemToObject(m, metric_table[k].name, a);
        }
        cJSON_AddItemToObject(o, "metrics", m);
        cJSON_AddItemToObject(all, sc[i].key, o);
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    struct outfile of = {0};
    int rc = out_open_path(&of, file, err);
    if (rc == 0 && (fputs(text, of.f) < 0 || fputc('\n', of.f) == EOF))
        rc = fs_fail(err, FS_ECANTCREAT, "%s: cannot write", file);
    if (rc == 0 && (rc = out_close(&of, err)) == 0)
        rc = out_commit(&of, err);
    out_discard(&of);
    free(text);
    return rc;
}
