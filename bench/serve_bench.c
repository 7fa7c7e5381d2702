/* serve_bench.c - fleetsim serve's decision latency at full scale: the
 * whole openb GPU cluster (1,213 nodes) sent as full node objects, as
 * kube-scheduler sends them with nodeCacheCapable false, one filter call
 * per pod, timed from the raw body to the reply text (parse, reconcile,
 * decide, reply), as the extender's /metrics histogram times it.
 *
 * The pods are the openb pod list in a seeded shuffle; after each
 * placement the bench writes the chosen node's GPU-share annotation as
 * the FGD authors' simulator would (the pod on the node's fullest GPU with
 * room), so later requests carry a cluster filling up, and every node that
 * could host the pod is a candidate (kube-scheduler's own filters).
 *
 * Usage: serve_bench NODES.csv PODS.csv [CALLS] [POLICY]
 * Prints calls, nodes, and the p50/p90/p99/max latency in milliseconds,
 * wall-clock and this thread's CPU time (they differ on a busy machine).
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../io/readers.h"
#include "../serve/extender.h"
#include "../serve/jscan.h"

struct bnode {
    char name[64];
    const char *model;
    int gpus, cpu, mem, cpu_used;
    int used[CLUSTER_MAX_NODE_GPUS];
    char *pods[CLUSTER_MAX_NODE_GPUS];  /* "\"ns/a\",\"ns/b\"" per GPU */
    cJSON *obj;
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Milliseconds on clock (wall: CLOCK_MONOTONIC; CPU: this thread's). */
static double now_ms(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void print_pcts(const char *what, double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    printf("%s ms: p50 %.3f  p90 %.3f  p99 %.3f  max %.3f\n", what, v[n / 2], v[(int)(n * 0.9)],
           v[(int)(n * 0.99)], v[n - 1]);
}


/* A full node object, as simon's fake API server holds it. */
static cJSON *node_object(const struct bnode *n)
{
    char buf[64];
    cJSON *o = cJSON_CreateObject(), *md, *st, *cap, *alloc, *ni;
    cJSON_AddStringToObject(o, "kind", "Node");
    cJSON_AddStringToObject(o, "apiVersion", "v1");
    md = cJSON_AddObjectToObject(o, "metadata");
    cJSON_AddStringToObject(md, "name", n->name);
    cJSON_AddNullToObject(md, "creationTimestamp");
    cJSON *labels = cJSON_AddObjectToObject(md, "labels");
    cJSON_AddStringToObject(labels, "alibabacloud.com/gpu-card-model", n->model);
    cJSON_AddStringToObject(labels, "beta.kubernetes.io/os", "linux");
    cJSON_AddStringToObject(labels, "kubernetes.io/hostname", n->name + 5);
    cJSON_AddStringToObject(labels, "kubernetes.io/os", "linux");
    cJSON_AddObjectToObject(o, "spec");
    st = cJSON_AddObjectToObject(o, "status");
    for (int k = 0; k < 2; k++) {
        cap = alloc = cJSON_AddObjectToObject(st, k ? "allocatable" : "capacity");
        snprintf(buf, sizeof buf, "%d", n->gpus);
        cJSON_AddStringToObject(alloc, "alibabacloud.com/gpu-count", buf);
        snprintf(buf, sizeof buf, "%dk", n->gpus);
        cJSON_AddStringToObject(alloc, "alibabacloud.com/gpu-milli", buf);
        snprintf(buf, sizeof buf, "%dm", n->cpu);
        cJSON_AddStringToObject(cap, "cpu", buf);
        snprintf(buf, sizeof buf, "%dMi", n->mem);
        cJSON_AddStringToObject(cap, "memory", buf);
        cJSON_AddStringToObject(cap, "pods", "1001");
    }
    cJSON_AddObjectToObject(cJSON_AddObjectToObject(st, "daemonEndpoints"), "kubeletEndpoint");
    ni = cJSON_AddObjectToObject(st, "nodeInfo");
    static const char *const info[] = {"machineID", "systemUUID", "bootID", "kernelVersion", "osImage",
                                       "containerRuntimeVersion", "kubeletVersion", "kubeProxyVersion",
                                       "operatingSystem", "architecture"};
    for (size_t i = 0; i < FS_ARRAY_LEN(info); i++)
        cJSON_AddStringToObject(ni, info[i], "");
    return o;
}

/* The GPU-share annotation of n, as simon writes it. */
static void annotate(struct bnode *n)
{
    size_t cap = 256, len = 0;
    char *s = xmalloc(cap);
    int total = 0;
    len += (size_t)snprintf(s + len, cap - len, "{\"DevsBrief\":{");
    for (int g = 0; g < n->gpus; g++) {
        const char *pods = n->pods[g] ? n->pods[g] : "";
        xgrow(&s, &cap, len + strlen(pods) + 160, 1);
        len += (size_t)snprintf(s + len, cap - len, "%s\"%d\":{\"Idx\":%d,\"Model\":\"%s\",\"PodList\":[%s],"
                                "\"GpuUsedMilli\":%d}", g ? "," : "", g, g, n->model, pods, n->used[g]);
        total += n->used[g];
    }
    xgrow(&s, &cap, len + 128, 1);
    snprintf(s + len, cap - len, "},\"GpuCount\":%d,\"GpuModel\":\"%s\",\"GpuUsedMilli\":%d}", n->gpus,
             n->model, total);
    cJSON *md = cJSON_GetObjectItem(n->obj, "metadata"), *annos = cJSON_GetObjectItem(md, "annotations");
    if (!annos)
        annos = cJSON_AddObjectToObject(md, "annotations");
    cJSON_DeleteItemFromObject(annos, "simon/node-gpu-share");
    cJSON_AddStringToObject(annos, "simon/node-gpu-share", s);
    free(s);
}

/* Could n host j now (what kube-scheduler's filters check)? */
static int fits(const struct bnode *n, const struct job *j, int type)
{
    if (j->allowed && !(j->allowed >> type & 1))
        return 0;
    if (n->cpu - n->cpu_used < j->cpu_milli)
        return 0;
    int room = 0;
    for (int g = 0; g < n->gpus; g++)
        room += GPU_MILLI - n->used[g] >= j->milli;
    return j->gpus == 0 || room >= j->gpus;
}

/* Put j on n's fullest GPUs with room (the share goes to the fullest). */
static void place(struct bnode *n, const struct job *j, const char *key)
{
    n->cpu_used += j->cpu_milli;
    for (int k = 0; k < j->gpus; k++) {
        int best = -1;
        for (int g = 0; g < n->gpus; g++)
            if (GPU_MILLI - n->used[g] >= j->milli && (best < 0 || n->used[g] > n->used[best]))
                best = g;
        if (best < 0)
            return;
        n->used[best] += j->milli;
        size_t old = n->pods[best] ? strlen(n->pods[best]) : 0;
        n->pods[best] = xrealloc(n->pods[best], old + strlen(key) + 4);
        snprintf(n->pods[best] + old, strlen(key) + 4, "%s\"%s\"", old ? "," : "", key);
    }
    annotate(n);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: serve_bench NODES.csv PODS.csv [CALLS] [POLICY]\n");
        return 64;
    }
    int calls = argc > 3 ? atoi(argv[3]) : 2000;
    const char *policy = argc > 4 ? argv[4] : "fgd";
    struct fs_err err = {0};
    struct gpu_catalog *cat = NULL;
    struct fleet_group *g = NULL;
    struct workload wl;
    int ng = 0;
    workload_init(&wl);
    if (gpu_catalog_load("models/data/gpus.json", &cat, &err) ||
        openb_read_nodes(argv[1], cat, &g, &ng, NULL, &err) ||
        openb_read_pods(argv[2], NULL, cat, &wl, NULL, &err)) {
        fprintf(stderr, "serve_bench: %s\n", err.msg);
        return 1;
    }
    int nn = 0;
    for (int i = 0; i < ng; i++)
        nn += g[i].nodes;
    struct bnode *nodes = xcalloc((size_t)nn, sizeof *nodes);
    int *types = xcalloc((size_t)nn, sizeof *types);
    for (int i = 0, k = 0; i < ng; i++)
        for (int m = 0; m < g[i].nodes; m++, k++) {
            struct bnode *n = &nodes[k];
            snprintf(n->name, sizeof n->name, "%04d-node-%04d", (k * 7919) % nn, k);
            n->model = cat->types[g[i].type].name;
            n->gpus = g[i].gpus_per_node;
            n->cpu = g[i].cpu_milli;
            n->mem = g[i].mem_mib;
            n->obj = node_object(n);
            types[k] = g[i].type;
        }
    struct extender_options o = {.cat = cat, .policy = sched_policy_find(policy),
                                 .workload = wl.jobs, .nworkload = wl.n, .seed = 42};
    if (!o.policy) {
        fprintf(stderr, "serve_bench: unknown policy %s\n", policy);
        return 64;
    }
    struct extender *x = extender_new(&o);
    double *ms = xmalloc((size_t)calls * sizeof *ms), *cpu = xmalloc((size_t)calls * sizeof *cpu);
    uint64_t rng = 42;
    int done = 0, placed = 0;
    long long bytes = 0;
    double parse_ms = 0;
    for (int c = 0; c < calls; c++) {
        const struct job *j = &wl.jobs[sched_splitmix64(&rng) % wl.n];
        char key[64];
        snprintf(key, sizeof key, "openb-pod-%lld-%d", (long long)j->id, c);
        cJSON *req = cJSON_CreateObject(), *pod = cJSON_AddObjectToObject(req, "Pod");
        cJSON *md = cJSON_AddObjectToObject(pod, "metadata"), *annos = cJSON_AddObjectToObject(md, "annotations");
        char buf[32];
        cJSON_AddStringToObject(md, "name", key);
        cJSON_AddStringToObject(md, "namespace", "paib-gpu");
        if (j->gpus) {
            snprintf(buf, sizeof buf, "%d", j->gpus);
            cJSON_AddStringToObject(annos, "alibabacloud.com/gpu-count", buf);
            snprintf(buf, sizeof buf, "%d", j->milli);
            cJSON_AddStringToObject(annos, "alibabacloud.com/gpu-milli", buf);
        }
        cJSON *req_res = cJSON_CreateObject(), *ct = cJSON_CreateObject();
        snprintf(buf, sizeof buf, "%dm", j->cpu_milli);
        cJSON_AddStringToObject(req_res, "cpu", buf);
        snprintf(buf, sizeof buf, "%dMi", j->mem_mib);
        cJSON_AddStringToObject(req_res, "memory", buf);
        cJSON_AddItemToObject(cJSON_AddObjectToObject(ct, "resources"), "requests", req_res);
        cJSON_AddItemToArray(cJSON_AddArrayToObject(cJSON_AddObjectToObject(pod, "spec"), "containers"), ct);
        cJSON *items = cJSON_AddArrayToObject(cJSON_AddObjectToObject(req, "Nodes"), "items");
        int cands = 0;
        for (int k = 0; k < nn; k++)
            if (fits(&nodes[k], j, types[k])) {
                cJSON_AddItemReferenceToArray(items, nodes[k].obj);
                cands++;
            }
        cJSON_AddNullToObject(req, "NodeNames");
        char *body = cJSON_PrintUnformatted(req);
        cJSON_Delete(req);
        if (!cands) {
            free(body);
            continue;
        }
        char *reply;
        enum extender_outcome out;
        size_t len = strlen(body);
        double tp = now_ms(CLOCK_THREAD_CPUTIME_ID);
        {
            struct jscan js = {0};
            struct jspan root;
            size_t at;
            jscan_check(&js, body, len, &root, &at);
            jscan_free(&js);
        }
        parse_ms += now_ms(CLOCK_THREAD_CPUTIME_ID) - tp;
        double t0 = now_ms(CLOCK_MONOTONIC), c0 = now_ms(CLOCK_THREAD_CPUTIME_ID);
        extender_handle(x, EXT_FILTER, body, len, &reply, &out);
        cpu[done] = now_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
        ms[done++] = now_ms(CLOCK_MONOTONIC) - t0;
        bytes += (long long)len;
        free(body);
        const char *chosen = extender_last_node(x);
        for (int k = 0; *chosen && k < nn; k++)
            if (strcmp(nodes[k].name, chosen) == 0) {
                char full[80];
                snprintf(full, sizeof full, "paib-gpu/%s", key);
                place(&nodes[k], j, full);
                placed++;
            }
        free(reply);
    }
    if (done) {
        printf("serve_bench: policy %s, %d nodes (full objects), %d filter calls (%d placed), "
               "mean body %.0f KiB\n", policy, nn, done, placed, (double)bytes / done / 1024);
        print_pcts("decision latency, wall", ms, done);
        print_pcts("decision latency, CPU ", cpu, done);
        printf("of which reading the body (jscan_check, CPU): mean %.3f ms\n", parse_ms / done);
    }
    extender_free(x);
    for (int k = 0; k < nn; k++) {
        cJSON_Delete(nodes[k].obj);
        for (int gi = 0; gi < nodes[k].gpus; gi++)
            free(nodes[k].pods[gi]);
    }
    free(nodes);
    free(types);
    free(ms);
    free(cpu);
    free(g);
    workload_free(&wl);
    gpu_catalog_free(cat);
    return 0;
}
