/* k8s.c - pod and node objects (see k8s.h). */
#include "k8s.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/readers.h"
#include "quantity.h"

#define ANNO_GPU_COUNT "alibabacloud.com/gpu-count"
#define ANNO_GPU_MILLI "alibabacloud.com/gpu-milli"
#define ANNO_GPU_MODEL "alibabacloud.com/gpu-card-model"
#define ANNO_NODE_SHARE "simon/node-gpu-share"

/* obj.a.b... (NULL-terminated keys), or NULL when any step is missing. */
static const cJSON *dig(const cJSON *obj, const char *const *keys)
{
    for (; obj && *keys; keys++)
        obj = cJSON_GetObjectItemCaseSensitive(obj, *keys);
    return obj;
}

/* The string at obj.keys..., or NULL when absent or not a string. */
static const char *dig_string(const cJSON *obj, const char *const *keys)
{
    const cJSON *v = dig(obj, keys);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A quantity field: absent -> 0; else a non-negative quantity no larger
 * than max once divided by div (milli-units per result unit), rounded up
 * (round_up) or down. */
static int quantity_field(const cJSON *obj, const char *key, int64_t div, bool round_up,
                          int64_t max, int64_t *out, const char *path, struct fs_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    int64_t milli;
    struct fs_err qe;
    *out = 0;
    if (!v)
        return 0;
    if (!cJSON_IsString(v))
        return fs_fail(err, FS_EDATA, "%s.%s: a quantity must be a string", path, key);
    if (quantity_milli(v->valuestring, &milli, &qe))
        return fs_fail(err, FS_EDATA, "%s.%s: %s", path, key, qe.msg);
    if (milli < 0)
        return fs_fail(err, FS_EDATA, "%s.%s: \"%.64s\" is negative", path, key, v->valuestring);
    *out = round_up ? milli / div + (milli % div != 0) : milli / div;
    if (*out > max)
        return fs_fail(err, FS_EDATA, "%s.%s: \"%.64s\" is too large (at most %lld)", path, key,
                       v->valuestring, (long long)max);
    return 0;
}

/* An annotation holding a whole number in [lo, hi]; absent -> dflt. */
static int int_annotation(const cJSON *annos, const char *key, long lo, long hi, long dflt,
                          int32_t *out, const char *path, struct fs_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(annos, key);
    *out = (int32_t)dflt;
    if (!v)
        return 0;
    char *end = NULL;
    long n = cJSON_IsString(v) && *v->valuestring ? strtol(v->valuestring, &end, 10) : lo - 1;
    if (!end || *end || n < lo || n > hi)
        return fs_fail(err, FS_EDATA, "%s.annotations.%s: must be a whole number in %ld..%ld",
                       path, key, lo, hi);
    *out = (int32_t)n;
    return 0;
}

/* A GPU model name: an openb name, else a catalog name.  RET: type or -1. */
static int model_type(const struct gpu_catalog *cat, const char *name)
{
    int t = openb_gpu_type(cat, name);
    return t >= 0 ? t : gpu_catalog_find(cat, name);
}

/* "V100M16|V100M32" as a set of catalog types. */
static int allowed_types(const char *list, const struct gpu_catalog *cat, uint64_t *out,
                         struct fs_err *err)
{
    char *copy = xstrdup(list), *save = NULL;
    int rc = 0;
    *out = 0;
    for (char *tok = strtok_r(copy, "|", &save); tok && !rc; tok = strtok_r(NULL, "|", &save)) {
        int t = model_type(cat, tok);
        if (t < 0)
            rc = fs_fail(err, FS_EDATA, "$.Pod.metadata.annotations." ANNO_GPU_MODEL
                         ": unknown GPU model \"%.64s\"", tok);
        else
            *out |= 1ULL << t;
    }
    free(copy);
    return rc;
}

/* Sum the containers' requests into out. */
static int pod_requests(const cJSON *pod, struct k8s_pod *out, struct fs_err *err)
{
    static const char *const containers_at[] = {"spec", "containers", NULL};
    const cJSON *cs = dig(pod, containers_at), *c;
    int64_t cpu = 0, mem = 0;
    int i = 0;
    if (cs && !cJSON_IsArray(cs))
        return fs_fail(err, FS_EDATA, "$.Pod.spec.containers: must be an array");
    cJSON_ArrayForEach(c, cs) {
        static const char *const req_at[] = {"resources", "requests", NULL};
        const cJSON *req = dig(c, req_at);
        char path[96];
        int64_t v;
        snprintf(path, sizeof path, "$.Pod.spec.containers[%d].resources.requests", i++);
        if (!req)
            continue;
        if (quantity_field(req, "cpu", 1, true, INT32_MAX, &v, path, err))
            return FS_EDATA;
        cpu += v;
        if (quantity_field(req, "memory", 1000LL << 20, true, INT32_MAX, &v, path, err))
            return FS_EDATA;
        mem += v;
        if (cpu > INT32_MAX || mem > INT32_MAX)
            return fs_fail(err, FS_EDATA, "%s: the pod's requests are too large", path);
    }
    out->cpu_milli = (int32_t)cpu;
    out->mem_mib = (int32_t)mem;
    return 0;
}

int k8s_pod_parse(const cJSON *pod, const struct gpu_catalog *cat, struct k8s_pod *out,
                  struct fs_err *err)
{
    static const char *const name_at[] = {"metadata", "name", NULL};
    static const char *const ns_at[] = {"metadata", "namespace", NULL};
    static const char *const annos_at[] = {"metadata", "annotations", NULL};
    memset(out, 0, sizeof *out);
    if (!cJSON_IsObject(pod))
        return fs_fail(err, FS_EDATA, "$.Pod: must be an object");
    const char *name = dig_string(pod, name_at), *ns = dig_string(pod, ns_at);
    if (!name || !*name)
        return fs_fail(err, FS_EDATA, "$.Pod.metadata.name: missing");
    if (strlen(name) + (ns ? strlen(ns) : 0) + 2 > sizeof out->key)
        return fs_fail(err, FS_EDATA, "$.Pod.metadata.name: too long");
    snprintf(out->key, sizeof out->key, "%s/%s", ns ? ns : "", name);
    const cJSON *annos = dig(pod, annos_at);
    const char *model = annos ? dig_string(annos, (const char *const[]){ANNO_GPU_MODEL, NULL}) : NULL;
    if (int_annotation(annos, ANNO_GPU_MILLI, 0, GPU_MILLI, 0, &out->milli, "$.Pod.metadata", err) ||
        int_annotation(annos, ANNO_GPU_COUNT, 0, CLUSTER_MAX_NODE_GPUS, out->milli > 0, &out->gpus,
                       "$.Pod.metadata", err) ||
        pod_requests(pod, out, err) || (model && *model && allowed_types(model, cat, &out->allowed, err)))
        return FS_EDATA;
    if (out->milli == 0 || out->gpus == 0) {
        out->gpus = 0;   /* the GPU-share plugin's test: no milli, no GPU */
        out->milli = GPU_MILLI;
    }
    if (out->gpus > 1 && out->milli < GPU_MILLI)
        return fs_fail(err, FS_EDATA, "$.Pod.metadata.annotations." ANNO_GPU_MILLI
                       ": a share below 1000 needs a GPU count of 1, not %d", (int)out->gpus);
    return 0;
}

/* The GPU-share annotation of n: per-GPU use into n->used. */
static int node_share(struct k8s_node *n, const char *text, const char *path, struct fs_err *err)
{
    n->share = cJSON_Parse(text);
    const cJSON *devs = cJSON_GetObjectItemCaseSensitive(n->share, "DevsBrief"), *d;
    if (!cJSON_IsObject(devs))
        return fs_fail(err, FS_EDATA, "%s.metadata.annotations." ANNO_NODE_SHARE
                       ": not a JSON object with DevsBrief", path);
    cJSON_ArrayForEach(d, devs) {
        char *end;
        long g = strtol(d->string, &end, 10);
        const cJSON *used = cJSON_GetObjectItemCaseSensitive(d, "GpuUsedMilli");
        if (*end || g < 0 || g >= n->gpus || !cJSON_IsNumber(used) || used->valuedouble < 0 ||
            used->valuedouble > GPU_MILLI || used->valuedouble != (int)used->valuedouble)
            return fs_fail(err, FS_EDATA, "%s.metadata.annotations." ANNO_NODE_SHARE
                           ".DevsBrief[\"%.16s\"]: needs a GPU index below %d and a "
                           "GpuUsedMilli in 0..1000", path, d->string, (int)n->gpus);
        n->used[g] = (int16_t)used->valueint;
    }
    n->shared = true;
    return 0;
}

int k8s_node_parse(const cJSON *node, const char *path, const struct gpu_catalog *cat,
                   struct k8s_node *out, struct fs_err *err)
{
    static const char *const name_at[] = {"metadata", "name", NULL};
    static const char *const model_at[] = {"metadata", "labels", ANNO_GPU_MODEL, NULL};
    static const char *const share_at[] = {"metadata", "annotations", ANNO_NODE_SHARE, NULL};
    static const char *const alloc_at[] = {"status", "allocatable", NULL};
    memset(out, 0, sizeof *out);
    out->type = -1;
    if (!cJSON_IsObject(node))
        return fs_fail(err, FS_EDATA, "%s: must be an object", path);
    out->name = dig_string(node, name_at);
    if (!out->name || !*out->name || strlen(out->name) >= K8S_KEY_MAX)
        return fs_fail(err, FS_EDATA, "%s.metadata.name: missing or too long", path);
    const cJSON *alloc = dig(node, alloc_at);
    char at[64];
    int64_t gpus, cpu, mem;
    snprintf(at, sizeof at, "%.40s.status.allocatable", path);
    if (quantity_field(alloc, ANNO_GPU_COUNT, 1000, false, CLUSTER_MAX_NODE_GPUS, &gpus, at, err) ||
        quantity_field(alloc, "cpu", 1, false, INT32_MAX, &cpu, at, err) ||
        quantity_field(alloc, "memory", 1000LL << 20, false, INT32_MAX, &mem, at, err))
        return FS_EDATA;
    out->gpus = (int32_t)gpus;
    out->cpu_milli = (int32_t)cpu;
    out->mem_mib = (int32_t)mem;
    const char *model = dig_string(node, model_at), *share = dig_string(node, share_at);
    if (!model || !gpus)
        return 0;
    if ((out->type = model_type(cat, model)) < 0)
        return fs_fail(err, FS_EDATA, "%s.metadata.labels." ANNO_GPU_MODEL
                       ": unknown GPU model \"%.64s\"", path, model);
    return share ? node_share(out, share, path, err) : 0;
}

bool k8s_node_holds(const struct k8s_node *n, const char *key)
{
    const cJSON *devs = cJSON_GetObjectItemCaseSensitive(n->share, "DevsBrief"), *d;
    cJSON_ArrayForEach(d, devs) {
        const cJSON *pods = cJSON_GetObjectItemCaseSensitive(d, "PodList"), *p;
        cJSON_ArrayForEach(p, pods)
            if (cJSON_IsString(p) && strcmp(p->valuestring, key) == 0)
                return true;
    }
    return false;
}

void k8s_node_fini(struct k8s_node *n)
{
    cJSON_Delete(n->share);
    n->share = NULL;
}
