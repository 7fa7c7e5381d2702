/* job_types.c - Gavel's throughput matrix into the throughput model. */
#include "job_types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/json.h"

int job_type_name(const char *model, char *out)
{
    const char *bs = strstr(model, " (batch size ");
    int n;
    if (bs && bs[strlen(bs) - 1] == ')')
        n = snprintf(out, JOB_TYPE_NAME_MAX, "%.*s bs%.*s", (int)(bs - model), model,
                     (int)strlen(bs) - 14, bs + 13);
    else
        n = snprintf(out, JOB_TYPE_NAME_MAX, "%s", model);
    return n > 0 && n < JOB_TYPE_NAME_MAX ? 0 : -1;
}

/* "('MODEL', 1)" -> MODEL into out (JOB_TYPE_NAME_MAX bytes) by
 * job_type_name.  RET: 1 for a single-GPU entry, 0 for another scale
 * factor, -1 when the key is not of that form. */
static int single_gpu_key(const char *key, char *out)
{
    size_t len = strlen(key);
    const char *tail = strstr(key, "', ");
    if (len < 8 || strncmp(key, "('", 2) != 0 || key[len - 1] != ')' || !tail)
        return -1;
    while (strstr(tail + 1, "', "))
        tail = strstr(tail + 1, "', ");
    if (strcmp(tail, "', 1)") != 0)
        return 0;
    char model[256];
    if ((size_t)(tail - key - 2) >= sizeof model)
        return -1;
    snprintf(model, sizeof model, "%.*s", (int)(tail - key - 2), key + 2);
    return job_type_name(model, out) ? -1 : 1;
}

long job_types_find(const struct job_types *jt, const char *name)
{
    for (size_t i = 0; i < jt->n; i++)
        if (strcmp(jt->name[i], name) == 0)
            return (long)i;
    return -1;
}

static size_t entry(struct job_types *tb, const char *name)
{
    long found = job_types_find(tb, name);
    if (found >= 0)
        return (size_t)found;
    xgrow(&tb->name, &tb->cap_name, tb->n + 1, sizeof *tb->name);
    xgrow(&tb->thr, &tb->cap_thr, tb->n + 1, sizeof *tb->thr);
    snprintf(tb->name[tb->n], JOB_TYPE_NAME_MAX, "%s", name);
    memset(tb->thr[tb->n], 0, sizeof tb->thr[tb->n]);
    return tb->n++;
}

static int read_worker(const cJSON *root, const char *path, const char *worker, int32_t type,
                       struct job_types *tb, struct fs_err *err)
{
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(root, worker), *e;
    if (!cJSON_IsObject(w))
        return fs_fail(err, FS_EDATA, "%s: $.%s: no such worker (an object of job types)", path, worker);
    cJSON_ArrayForEach(e, w) {
        char name[JOB_TYPE_NAME_MAX];
        int k = single_gpu_key(e->string, name);
        if (k < 0)
            return fs_fail(err, FS_EDATA, "%s: $.%s: key \"%.60s\" is not \"('MODEL', SCALE)\" with a "
                           "model name under %d characters", path, worker, e->string, JOB_TYPE_NAME_MAX);
        if (k == 0)
            continue;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, "null");
        if (!cJSON_IsNumber(v) || !(v->valuedouble > 0) || v->valuedouble > 1e12)
            return fs_fail(err, FS_EDATA, "%s: $.%s[\"%.60s\"].null: want a positive throughput",
                           path, worker, e->string);
        size_t i = entry(tb, name); /* may move tb->thr */
        tb->thr[i][type] = v->valuedouble;
    }
    return 0;
}

void job_types_free(struct job_types *jt)
{
    free(jt->name);
    free(jt->thr);
    memset(jt, 0, sizeof *jt);
}

int job_types_read_gavel(const char *path, const char *const *workers, const int32_t *types, int n,
                         struct job_types *jt, struct fs_err *err)
{
    cJSON *root = NULL;
    memset(jt, 0, sizeof *jt);
    int rc = json_load_file(path, &root, err);
    for (int k = 0; !rc && k < n; k++)
        rc = read_worker(root, path, workers[k], types[k], jt, err);
    cJSON_Delete(root);
    if (rc)
        job_types_free(jt);
    return rc;
}

int job_types_load_gavel(const char *path, const char *const *workers, const int32_t *types, int n,
                         struct perf_model *pm, int like, struct fs_err *err)
{
    struct job_types tb;
    int rc = job_types_read_gavel(path, workers, types, n, &tb, err);
    for (size_t i = 0; !rc && i < tb.n; i++)
        if (perf_add_measured(pm, tb.name[i], tb.thr[i], like) < 0)
            rc = fs_fail(err, FS_EDATA, "%s: job type \"%s\": the throughput model is full (%d "
                         "workloads) or already has a workload of that name", path, tb.name[i],
                         PERF_MAX_WORKLOADS);
    job_types_free(&tb);
    return rc;
}
int job_types_steps_to_seconds(const char *path, const char *trace, const struct gpu_catalog *cat,
                               const char *catalog, struct workload *w, struct fs_err *err)
{
    static const char *const workers[] = JOB_TYPES_GAVEL_WORKERS, *const gpus[] = JOB_TYPES_GAVEL_GPUS;
    int32_t types[FS_ARRAY_LEN(gpus)];
    for (size_t k = 0; k < FS_ARRAY_LEN(gpus); k++)
        if ((types[k] = gpu_catalog_find(cat, gpus[k])) < 0)
            return fs_fail(err, FS_EDATA, "%s: the catalog has no GPU type \"%s\" for Gavel's "
                           "worker \"%s\"", catalog, gpus[k], workers[k]);
    struct job_types jt;
    int rc = job_types_read_gavel(path, workers, types, (int)FS_ARRAY_LEN(gpus), &jt, err);
    for (size_t i = 0; rc == 0 && i < w->n; i++) {
        struct job *j = &w->jobs[i];
        long t = job_types_find(&jt, w->teams[j->team]);
        if (t < 0 || !(jt.thr[t][j->ref_type] > 0))
            rc = fs_fail(err, FS_EDATA, "%s: job %lld: job type \"%s\" has no throughput on %s in %s", trace,
                         (long long)j->id, w->teams[j->team], cat->types[j->ref_type].name, path);
        else
            j->work /= jt.thr[t][j->ref_type];
    }
    job_types_free(&jt);
    return rc;
}
