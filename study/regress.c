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
 * abs); see metrics[] for each one's direction and tolerance.
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
#include "../reports/output.h"
#include "regress.h"

/* Direction +1: higher is better; -1: lower is better.  Each is one of
 * run_metrics' figures, under its name. */
static const struct metric {
    enum run_metric id;
    int better;
    double rel, abs;  /* tolerance: max(rel x |baseline|, abs) */
} metrics[] = {
    {RUN_UTILIZATION, +1, 0.005, 1e-4},
    {RUN_JOBS_COMPLETED, +1, 0, 0.5},
    {RUN_WAIT_MEAN, -1, 0.02, 60},
    {RUN_WAIT_P95, -1, 0.02, 60},
    {RUN_JCT_MEAN, -1, 0.02, 60},
    {RUN_ENERGY_KWH, -1, 0.01, 0.1},
    {RUN_PSU_PEAK, -1, 0.01, 0.1},
    {RUN_COST_PER_GPU_H, -1, 0.01, 1e-4},
    {RUN_SLO, +1, 0.001, 1e-4},
};
enum { NMETRICS = sizeof metrics / sizeof *metrics };

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
        FILE *f = fopen(suite, "r");
        if (!f)
            return fs_fail(err, FS_ENOINPUT, "%s: cannot open", suite);
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

/* Run one scenario: its metrics, in metrics[] order. */
static int measure(const char *path, const struct scenario_options *so, double v[NMETRICS],
                   struct fs_err *err)
{
    struct run_result r;
    int rc = run_scenario(&(struct run_spec){.path = path, .so = *so}, &r, err);
    if (rc)
        return rc;
    double all[RUN_NMETRICS];
    run_metrics(&r, all);
    for (int k = 0; k < NMETRICS; k++)
        v[k] = all[metrics[k].id];
    run_result_free(&r);
    return 0;
}

static int write_baseline(const char *file, char **paths, size_t n, double (*v)[NMETRICS],
                          struct fs_err *err)
{
    cJSON *root = cJSON_CreateObject(), *all = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "fleetsim_regress", 1);
    cJSON_AddItemToObject(root, "scenarios", all);
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        for (int k = 0; k < NMETRICS; k++)
            cJSON_AddNumberToObject(o, run_metric_names[metrics[k].id], v[i][k]);
        cJSON_AddItemToObject(all, paths[i], o);
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", file);
    char *slash = strrchr(dir, '/');
    const char *name = slash ? slash + 1 : file;
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    struct outfile o = {0};
    int rc = out_open(&o, dir, name, err);
    if (rc == 0 && (fputs(text, o.f) < 0 || fputc('\n', o.f) == EOF))
        rc = fs_fail(err, FS_ECANTCREAT, "%s: cannot write", file);
    if (rc == 0 && (rc = out_close(&o, err)) == 0)
        rc = out_commit(&o, err);
    out_discard(&o);
    free(text);
    return rc;
}

/* Compare with the baseline and print the table.  RET: 0, 1 (worse or
 * missing), or an error code. */
static int judge(const char *file, char **paths, size_t n, double (*v)[NMETRICS], bool quiet,
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
        for (int k = 0; k < NMETRICS; k++) {
            const struct metric *mt = &metrics[k];
            const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, run_metric_names[mt->id]);
            if (!cJSON_IsNumber(b)) {
                printf("%-40s %-22s %14s %14.6g %9s  %s\n", paths[i], run_metric_names[mt->id], "-", v[i][k], "-", "new metric");
                continue;
            }
            double base = b->valuedouble, now = v[i][k], d = now - base;
            double tol = fmax(mt->rel * fabs(base), mt->abs);
            const char *verdict = "unchanged";
            if (fabs(d) > tol) {
                bool good = d * mt->better > 0;
                verdict = good ? "better" : "WORSE";
                good ? better++ : worse++;
            } else {
                same++;
            }
            if (!quiet || strcmp(verdict, "unchanged") != 0)
                printf("%-40s %-22s %14.6g %14.6g %+8.2f%%  %s\n", paths[i], run_metric_names[mt->id], base, now,
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
    cJSON_Delete(check);
    if (rc == 0)
        rc = suite_list(o->suite, &paths, &n, err);
    double (*v)[NMETRICS] = xcalloc(n + 1, sizeof *v);
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
