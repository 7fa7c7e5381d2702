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

/* Longest quantity or annotation value read as text. */
#define K8S_VALUE_MAX 256

/* The string member key of obj into buf.  RET: 1 when present, 0 when
 * absent, -1 when not a string or too long. */
static int string_at(const struct jscan *s, struct jspan obj, const char *key, char *buf, size_t size)
{
    struct jspan v = jscan_get(s, obj, key);
    if (!v.p)
        return 0;
    return jscan_string(v, buf, size) < 0 ? -1 : 1;
}

/* A quantity field: absent -> 0; else a non-negative quantity no larger
 * than max once divided by div (milli-units per result unit), rounded up
 * (round_up) or down. */
static int quantity_field(const struct jscan *s, struct jspan obj, const char *key, int64_t div,
                          bool round_up, int64_t max, int64_t *out, const char *path, struct fs_err *err)
{
    char buf[K8S_VALUE_MAX];
    int64_t milli;
    struct fs_err qe;
    *out = 0;
    int got = string_at(s, obj, key, buf, sizeof buf);
    if (!got)
        return 0;
    if (got < 0)
        return fs_fail(err, FS_EDATA, "%s.%s: a quantity must be a string (of at most %d bytes)",
                       path, key, K8S_VALUE_MAX - 1);
    if (quantity_milli(buf, &milli, &qe))
        return fs_fail(err, FS_EDATA, "%s.%s: %s", path, key, qe.msg);
    if (milli < 0)
        return fs_fail(err, FS_EDATA, "%s.%s: \"%.64s\" is negative", path, key, buf);
    *out = round_up ? milli / div + (milli % div != 0) : milli / div;
    if (*out > max)
        return fs_fail(err, FS_EDATA, "%s.%s: \"%.64s\" is too large (at most %lld)", path, key, buf,
                       (long long)max);
    return 0;
}

/* An annotation holding a whole number in [lo, hi]; absent -> dflt. */
static int int_annotation(const struct jscan *s, struct jspan annos, const char *key, long lo, long hi,
                          long dflt, int32_t *out, const char *path, struct fs_err *err)
{
    char buf[K8S_VALUE_MAX], *end = NULL;
    *out = (int32_t)dflt;
    int got = string_at(s, annos, key, buf, sizeof buf);
    if (!got)
        return 0;
    long n = got > 0 && *buf ? strtol(buf, &end, 10) : lo - 1;
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
static int allowed_types(char *list, const struct gpu_catalog *cat, uint64_t *out, struct fs_err *err)
{
    char *save = NULL;
    *out = 0;
    for (char *tok = strtok_r(list, "|", &save); tok; tok = strtok_r(NULL, "|", &save)) {
        int t = model_type(cat, tok);
        if (t < 0)
            return fs_fail(err, FS_EDATA, "$.Pod.metadata.annotations." ANNO_GPU_MODEL
                           ": unknown GPU model \"%.64s\"", tok);
        *out |= 1ULL << t;
    }
    return 0;
}

/* Sum the containers' requests into out. */
static int pod_requests(const struct jscan *s, struct jspan pod, struct k8s_pod *out, struct fs_err *err)
{
    static const char *const containers_at[] = {"spec", "containers", NULL};
    static const char *const req_at[] = {"resources", "requests", NULL};
    struct jspan cs = jscan_path(s, pod, containers_at), c;
    int64_t cpu = 0, mem = 0;
    size_t it = 0;
    if (cs.p && !jspan_is(cs, '[') && !jspan_is(cs, 'n'))
        return fs_fail(err, FS_EDATA, "$.Pod.spec.containers: must be an array");
    for (int i = 0; jscan_next(s, cs, &it, NULL, &c); i++) {
        struct jspan req = jscan_path(s, c, req_at);
        char path[96];
        int64_t v;
        snprintf(path, sizeof path, "$.Pod.spec.containers[%d].resources.requests", i);
        if (!jspan_is(req, '{'))
            continue;
        if (quantity_field(s, req, "cpu", 1, true, INT32_MAX, &v, path, err))
            return FS_EDATA;
        cpu += v;
        if (quantity_field(s, req, "memory", 1000LL << 20, true, INT32_MAX, &v, path, err))
            return FS_EDATA;
        mem += v;
        if (cpu > INT32_MAX || mem > INT32_MAX)
            return fs_fail(err, FS_EDATA, "%s: the pod's requests are too large", path);
    }
    out->cpu_milli = (int32_t)cpu;
    out->mem_mib = (int32_t)mem;
    return 0;
}

int k8s_pod_parse(const struct jscan *s, struct jspan pod, const struct gpu_catalog *cat,
                  struct k8s_pod *out, struct fs_err *err)
{
    memset(out, 0, sizeof *out);
    if (!jspan_is(pod, '{'))
        return fs_fail(err, FS_EDATA, "$.Pod: must be an object");
    struct jspan md = jscan_get(s, pod, "metadata");
    char name[K8S_KEY_MAX], ns[K8S_KEY_MAX] = "", model[K8S_VALUE_MAX] = "";
    if (string_at(s, md, "name", name, sizeof name) <= 0 || !*name)
        return fs_fail(err, FS_EDATA, "$.Pod.metadata.name: missing, not a string or too long");
    if (string_at(s, md, "namespace", ns, sizeof ns) < 0)
        return fs_fail(err, FS_EDATA, "$.Pod.metadata.namespace: not a string or too long");
    if (strlen(name) + strlen(ns) + 2 > sizeof out->key)
        return fs_fail(err, FS_EDATA, "$.Pod.metadata.name: too long");
    size_t nl = strlen(ns);
    memcpy(out->key, ns, nl);
    out->key[nl] = '/';
    memcpy(out->key + nl + 1, name, strlen(name) + 1);
    struct jspan annos = jscan_get(s, md, "annotations");
    if (string_at(s, annos, ANNO_GPU_MODEL, model, sizeof model) < 0)
        return fs_fail(err, FS_EDATA, "$.Pod.metadata.annotations." ANNO_GPU_MODEL
                       ": not a string or too long");
    if (int_annotation(s, annos, ANNO_GPU_MILLI, 0, GPU_MILLI, 0, &out->milli, "$.Pod.metadata", err) ||
        int_annotation(s, annos, ANNO_GPU_COUNT, 0, CLUSTER_MAX_NODE_GPUS, out->milli > 0, &out->gpus,
                       "$.Pod.metadata", err) ||
        pod_requests(s, pod, out, err) || (*model && allowed_types(model, cat, &out->allowed, err)))
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

/* The GPU-share annotation of n (the string value v): per-GPU use into
 * n->used. */
static int node_share(struct k8s_node *n, struct jspan v, const char *path, struct fs_err *err)
{
    size_t at;
    xgrow(&n->share_text, &n->share_cap, v.n + 1, 1);
    if (jscan_string(v, n->share_text, v.n + 1) < 0 ||
        jscan_check(&n->share, n->share_text, strlen(n->share_text), &n->share_root, &at))
        return fs_fail(err, FS_EDATA, "%s.metadata.annotations." ANNO_NODE_SHARE
                       ": not a string holding JSON", path);
    struct jspan devs = jscan_get(&n->share, n->share_root, "DevsBrief"), k, d;
    if (!jspan_is(devs, '{'))
        return fs_fail(err, FS_EDATA, "%s.metadata.annotations." ANNO_NODE_SHARE
                       ": no DevsBrief object", path);
    size_t it = 0;
    while (jscan_next(&n->share, devs, &it, &k, &d)) {
        char idx[16], num[32], *end = NULL;
        struct jspan used = jscan_get(&n->share, d, "GpuUsedMilli");
        long g = jscan_string(k, idx, sizeof idx) > 0 ? strtol(idx, &end, 10) : -1;
        long u = -1;
        if (jspan_is(used, '-') || (used.p && used.p[0] >= '0' && used.p[0] <= '9' && used.n < sizeof num)) {
            memcpy(num, used.p, used.n);
            num[used.n] = '\0';
            char *e;
            u = strtol(num, &e, 10);
            if (*e)
                u = -1;
        }
        if (!end || *end || g < 0 || g >= n->gpus || u < 0 || u > GPU_MILLI)
            return fs_fail(err, FS_EDATA, "%s.metadata.annotations." ANNO_NODE_SHARE
                           ".DevsBrief: each key must be a GPU index below %d with a whole "
                           "GpuUsedMilli in 0..1000", path, (int)n->gpus);
        n->used[g] = (int16_t)u;
    }
    n->shared = true;
    return 0;
}

int k8s_node_parse(const struct jscan *s, struct jspan node, const char *path,
                   const struct gpu_catalog *cat, struct k8s_node *out, struct fs_err *err)
{
    static const char *const labels_at[] = {"metadata", "labels", NULL};
    static const char *const annos_at[] = {"metadata", "annotations", NULL};
    static const char *const alloc_at[] = {"status", "allocatable", NULL};
    out->name[0] = '\0';
    out->type = -1;
    out->gpus = out->cpu_milli = out->mem_mib = 0;
    out->shared = false;
    memset(out->used, 0, sizeof out->used);
    if (!jspan_is(node, '{'))
        return fs_fail(err, FS_EDATA, "%s: must be an object", path);
    if (string_at(s, jscan_get(s, node, "metadata"), "name", out->name, sizeof out->name) <= 0 ||
        !*out->name)
        return fs_fail(err, FS_EDATA, "%s.metadata.name: missing, not a string or too long", path);
    struct jspan alloc = jscan_path(s, node, alloc_at);
    char at[64], model[K8S_VALUE_MAX];
    int64_t gpus, cpu, mem;
    snprintf(at, sizeof at, "%.40s.status.allocatable", path);
    if (quantity_field(s, alloc, ANNO_GPU_COUNT, 1000, false, CLUSTER_MAX_NODE_GPUS, &gpus, at, err) ||
        quantity_field(s, alloc, "cpu", 1, false, INT32_MAX, &cpu, at, err) ||
        quantity_field(s, alloc, "memory", 1000LL << 20, false, INT32_MAX, &mem, at, err))
        return FS_EDATA;
    out->gpus = (int32_t)gpus;
    out->cpu_milli = (int32_t)cpu;
    out->mem_mib = (int32_t)mem;
    int got = string_at(s, jscan_path(s, node, labels_at), ANNO_GPU_MODEL, model, sizeof model);
    if (got < 0)
        return fs_fail(err, FS_EDATA, "%s.metadata.labels." ANNO_GPU_MODEL ": not a string or too long", path);
    if (!got || !gpus)
        return 0;
    if ((out->type = model_type(cat, model)) < 0)
        return fs_fail(err, FS_EDATA, "%s.metadata.labels." ANNO_GPU_MODEL
                       ": unknown GPU model \"%.64s\"", path, model);
    struct jspan share = jscan_get(s, jscan_path(s, node, annos_at), ANNO_NODE_SHARE);
    if (share.p && !jspan_is(share, '"'))
        return fs_fail(err, FS_EDATA, "%s.metadata.annotations." ANNO_NODE_SHARE ": must be a string", path);
    return share.p ? node_share(out, share, path, err) : 0;
}

bool k8s_node_holds(const struct k8s_node *n, const char *key)
{
    struct jspan devs = jscan_get(&n->share, n->share_root, "DevsBrief"), d, pods, p;
    size_t it = 0;
    while (jscan_next(&n->share, devs, &it, NULL, &d)) {
        pods = jscan_get(&n->share, d, "PodList");
        size_t jt = 0;
        while (jscan_next(&n->share, pods, &jt, NULL, &p))
            if (jspan_eq(p, key))
                return true;
    }
    return false;
}

void k8s_node_fini(struct k8s_node *n)
{
    jscan_free(&n->share);
    free(n->share_text);
    n->share_text = NULL;
    n->share_cap = 0;
    n->share_root = (struct jspan){0};
}
