/* regress.c - the scheduler regression gate (regress.h): run a
 * suite of scenarios, compare each metric with a baseline under per-metric
 * tolerances and directions, print what got better, worse or stayed, and
 * exit 1 when anything got worse (a CI gate for scheduler changes).
 *
 * SUITE is a folder (its *.json files, by name) or a text file listing
 * scenario paths, one a line, relative to the list ('#' starts a comment).
 *
 * The baseline (JSON, written by --update):
 *   {"fleetsim_regress": 1,
 *    "scenarios": {"FILE": {"utilization": 0.82, "wait_p95_s": 6731, ...}}}
 * keyed by the scenario's path as the suite names it.  A metric is worse
 * when it moved in its bad direction by more than max(rel x |baseline|,
 * abs): each gated row of the metric table (reports/metric.h) gives its
 * direction and tolerance.  A figure that is undefined (a cost without a
 * price) is null in the baseline; null against null is unchanged.
 */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/json.h"
#include "../base/version.h"
#include "../reports/output.h"
#include "regress.h"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The suite's scenario paths.  RET: 0 or an error code with err filled. */
static int suite_list(const char *suite, char ***out, size_t *n, struct fs_err *err)
{
    struct stat sb;
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    if (stat(suite, &sb) != 0)
        return fs_fail(err, FS_ENOINPUT, "%s: cannot open: no such file or folder", suite);
    if (S_ISDIR(sb.st_mode)) {
        DIR *d = opendir(suite);
        if (!d)
            return fs_fail(err, FS_ENOINPUT, "%s: cannot open the folder", suite);
        for (struct dirent *e; (e = readdir(d));) {
            size_t len = strlen(e->d_name);
            if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0 || e->d_name[0] == '.')
                continue;
            xgrow(out, &cap, *n + 1, sizeof **out);
            (*out)[*n] = xmalloc(strlen(suite) + len + 2);
            sprintf((*out)[(*n)++], "%s/%s", suite, e->d_name);
        }
        closedir(d);
        qsort(*out, *n, sizeof **out, cmp_str);
    } else {
        FILE *f;
        int rc = fs_open_input(suite, &f, err);
        if (rc)
            return rc;
        char line[1024], base[1024];
        snprintf(base, sizeof base, "%s", suite);
        char *slash = strrchr(base, '/');
        if (slash)
            slash[1] = '\0';
        else
            base[0] = '\0';
        while (fgets(line, sizeof line, f)) {
            line[strcspn(line, "#\r\n")] = '\0';
            char *p = line + strspn(line, " \t");
            if (!*p)
                continue;
            xgrow(out, &cap, *n + 1, sizeof **out);
            (*out)[*n] = xmalloc(strlen(base) + strlen(p) + 1);
            sprintf((*out)[(*n)++], "%s%s", p[0] == '/' ? "" : base, p);
        }
        fclose(f);
    }
    if (*n == 0)
        return fs_fail(err, FS_EDATA, "%s: the suite holds no scenarios", suite);
    return 0;
}

/* Run one scenario: every row of the metric table. */
static int measure(const char *path, const struct scenario_options *so, double v[METRIC_MAX],
                   struct fs_err *err)
{
    struct run_result r;
    int rc = run_scenario(&(struct run_spec){.path = path, .so = *so}, &r, err);
    if (rc)
        return rc;
    metric_values(&r, v);
    run_result_free(&r);
    return 0;
}

static int write_baseline(const char *file, char **paths, size_t n, double (*v)[METRIC_MAX],
                          struct fs_err *err)
{
    cJSON *root = cJSON_CreateObject(), *all = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "fleetsim_regress", 1);
    cJSON_AddItemToObject(root, "scenarios", all);
    cJSON_AddItemToObject(root, "meta", version_json());
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        for (int k = 0; k < metric_count; k++)
            if (metric_gated(&metric_table[k]))
                cJSON_AddItemToObject(o, metric_table[k].name,
                                      isfinite(v[i][k]) ? cJSON_CreateNumber(v[i][k]) : cJSON_CreateNull());
        cJSON_AddItemToObject(all, paths[i], o);
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    struct outfile o = {0};
    int rc = out_open_path(&o, file, err);
    if (rc == 0 && (fputs(text, o.f) < 0 || fputc('\n', o.f) == EOF))
        rc = fs_fail(err, FS_ECANTCREAT, "%s: cannot write", file);
    if (rc == 0 && (rc = out_close(&o, err)) == 0)
        rc = out_commit(&o, err);
    out_discard(&o);
    free(text);
    return rc;
}

/* Fail closed: every scenario of the baseline must be an object holding
 * every gated metric as a finite number, or null where it is undefined (a
 * cost without a price), so a gutted, string-valued or infinite
 * entry is an error naming the scenario and the metric, never a metric
 * that silently passes.  RET: 0 or FS_EDATA. */
static int check_baseline(const cJSON *root, const char *file, struct fs_err *err)
{
    const cJSON *all = NULL, *o;
    int rc = json_child(root, "scenarios", true, cJSON_Object, &all, file, "$", err);
    if (rc)
        return rc;
    cJSON_ArrayForEach(o, all) {
        if (!cJSON_IsObject(o))
            return fs_fail(err, FS_EDATA, "%s: $.scenarios[\"%s\"]: expected an object of metrics", file,
                           o->string);
        for (int k = 0; k < metric_count; k++) {
            if (!metric_gated(&metric_table[k]))
                continue;
            const char *name = metric_table[k].name;
            const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, name);
            if (!b)
                return fs_fail(err, FS_EDATA, "%s: $.scenarios[\"%s\"].%s: missing (regenerate the baseline "
                                              "with --update)", file, o->string, name);
            if (!cJSON_IsNull(b) && (!cJSON_IsNumber(b) || !isfinite(b->valuedouble)))
                return fs_fail(err, FS_EDATA, "%s: $.scenarios[\"%s\"].%s: expected a finite number, or null "
                                              "(undefined: a cost without a price)", file, o->string, name);
        }
    }
    return 0;
}

/* Compare with the baseline and print the table.  RET: 0, 1 (worse or
 * missing), or an error code. */
static int judge(const char *file, char **paths, size_t n, double (*v)[METRIC_MAX], bool quiet,
                 struct fs_err *err)
{
    cJSON *root = NULL;
    const cJSON *all = NULL;
    int rc = json_load_file(file, &root, err);
    if (rc || (rc = json_child(root, "scenarios", true, cJSON_Object, &all, file, "$", err))) {
        cJSON_Delete(root);
        return rc;
    }
    int worse = 0, better = 0, same = 0, missing = 0;
    printf("%-40s %-22s %14s %14s %9s  %s\n", "scenario", "metric", "baseline", "now", "change", "verdict");
    for (size_t i = 0; i < n; i++) {
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(all, paths[i]);
        if (!cJSON_IsObject(o)) {
            printf("%-40s %-22s %14s %14s %9s  %s\n", paths[i], "-", "-", "-", "-", "NOT IN BASELINE");
            missing++;
            continue;
        }
        for (int k = 0; k < metric_count; k++) {
            const struct metric_def *mt = &metric_table[k];
            if (!metric_gated(mt))
                continue;
            const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, mt->name);
            double now = v[i][k];
            if (cJSON_IsNull(b)) { /* undefined in the baseline (check_baseline) */
                const char *verdict = isfinite(now) ? "defined now" : "unchanged";
                same++;
                if (!quiet || isfinite(now))
                    printf("%-40s %-22s %14s %14.6g %9s  %s\n", paths[i], mt->name, "null", now, "-", verdict);
                continue;
            }
            double base = b->valuedouble, d = now - base; /* check_baseline: finite */
            double tol = fmax(mt->rel * fabs(base), mt->abs);
            const char *verdict = "unchanged";
            if (!isfinite(now)) { /* not a number is never within tolerance */
                verdict = "WORSE";
                worse++;
            } else if (fabs(d) > tol) {
                bool good = d * mt->better > 0;
                verdict = good ? "better" : "WORSE";
                good ? better++ : worse++;
            } else {
                same++;
            }
            if (!quiet || strcmp(verdict, "unchanged") != 0)
                printf("%-40s %-22s %14.6g %14.6g %+8.2f%%  %s\n", paths[i], mt->name, base, now,
                       base != 0 ? 100 * d / fabs(base) : 0.0, verdict);
        }
    }
    cJSON_Delete(root);
    printf("regress: %zu scenarios, %d metrics worse, %d better, %d unchanged%s%s\n", n, worse, better,
           same, missing ? ", scenarios not in the baseline: " : "", missing ? "see above" : "");
    return worse || missing ? 1 : 0;
}

int regress_run(const struct regress_opts *o, struct fs_err *err)
{
    const char *baseline = o->baseline;
    bool update = o->update, quiet = o->quiet;
    char **paths = NULL;
    size_t n = 0;
    cJSON *check = NULL;
    /* A baseline that cannot be read fails now, not after the suite ran. */
    int rc = update ? 0 : json_load_file(baseline, &check, err);
    if (rc == 0 && !update)
        rc = check_baseline(check, baseline, err);
    cJSON_Delete(check);
    if (rc == 0)
        rc = suite_list(o->suite, &paths, &n, err);
    double (*v)[METRIC_MAX] = xcalloc(n + 1, sizeof *v);
    size_t kept = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        rc = measure(paths[i], &o->so, v[kept], err);
        /* The scenario is there but its trace is not (../shared/traces
         * is absent): skip it, saying so. */
        if (rc == FS_ENOINPUT && access(paths[i], R_OK) == 0) {
            fprintf(stderr, "  [%zu/%zu] %s: SKIPPED: %s\n", i + 1, n, paths[i], err->msg);
            free(paths[i]);
            paths[i] = NULL;
            rc = 0;
            continue;
        }
        if (rc == 0 && !quiet)
            fprintf(stderr, "  [%zu/%zu] %s\n", i + 1, n, paths[i]);
        char *p = paths[i];
        paths[i] = NULL;
        paths[kept++] = p;
    }
    size_t total = n;
    n = kept;
    if (rc == 0)
        rc = update ? write_baseline(baseline, paths, n, v, err) : judge(baseline, paths, n, v, quiet, err);
    if (rc == 0 && update && !quiet)
        fprintf(stderr, "  wrote %s (%zu scenarios)\n", baseline, n);
    for (size_t i = 0; i < total; i++)
        free(paths[i]);
    free(paths);
    free(v);
    return rc;
}
