/* plugin.c - policies from shared objects (plugin.h). */
#include "plugin.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../include/fleetsim/policy.h"

/* The ABI's opaque handles are the core's own structures. */
#define CL(x) ((const struct cluster *)(const void *)(x))
#define JOB(x) ((const struct job *)(const void *)(x))
#define CYC(x) ((const struct sched_cycle *)(const void *)(x))
#define H_CL(x) ((const struct fleetsim_cluster *)(const void *)(x))
#define H_JOB(x) ((const struct fleetsim_job *)(const void *)(x))
#define H_CYC(x) ((const struct fleetsim_cycle *)(const void *)(x))

static struct {
    const struct fleetsim_policy *p;
    struct sched_policy sp;
} slots[SCHED_PLUGIN_MAX];
static int nslots;
static const char *loading; /* the plugin being initialized, for messages */
static bool refused;        /* a registration of the plugin being loaded failed */

/* One set of trampolines per slot: the core's hooks carry no policy
 * pointer, so slot i's functions know their plugin policy by i. */
#define SLOT_HOOKS(i)                                                                                      \
    static bool queue_less_##i(const struct job *a, const struct job *b)                                  \
    {                                                                                                      \
        return slots[i].p->queue_less(H_JOB(a), H_JOB(b));                                                 \
    }                                                                                                      \
    static bool filter_##i(const struct sched_cycle *c, const struct job *j, int32_t node)                \
    {                                                                                                      \
        return slots[i].p->filter(c->ctx, H_CYC(c), H_JOB(j), node);                                       \
    }                                                                                                      \
    static int score_##i(const struct sched_cycle *c, const struct job *j, int32_t node)                  \
    {                                                                                                      \
        return slots[i].p->score(c->ctx, H_CYC(c), H_JOB(j), node);                                        \
    }                                                                                                      \
    static void *prepare_##i(const struct cluster *cl, const struct job *jobs, size_t n, uint64_t seed)    \
    {                                                                                                      \
        return slots[i].p->prepare(H_CL(cl), (const struct fleetsim_jobs *)(const void *)jobs, n, seed);   \
    }                                                                                                      \
    static void on_job_##i(void *ctx, const struct cluster *cl, const struct job *j, bool started)        \
    {                                                                                                      \
        slots[i].p->on_job(ctx, H_CL(cl), H_JOB(j), started);                                              \
    }
#define SLOT_TABLE(i) {queue_less_##i, filter_##i, score_##i, prepare_##i, on_job_##i},
#define SLOTS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)

SLOTS(SLOT_HOOKS)

static const struct {
    bool (*queue_less)(const struct job *a, const struct job *b);
    bool (*filter)(const struct sched_cycle *c, const struct job *j, int32_t node);
    int (*score)(const struct sched_cycle *c, const struct job *j, int32_t node);
    void *(*prepare)(const struct cluster *cl, const struct job *jobs, size_t n, uint64_t seed);
    void (*on_job)(void *ctx, const struct cluster *cl, const struct job *j, bool started);
} trampolines[SCHED_PLUGIN_MAX] = {SLOTS(SLOT_TABLE)};

_Static_assert(SCHED_PLUGIN_MAX == 16, "SLOTS() lists one set of trampolines per slot");
_Static_assert(FLEETSIM_NODE_MAX_GPUS == CLUSTER_MAX_NODE_GPUS, "the ABI's node size");
_Static_assert(FLEETSIM_SCORE_MAX == SCHED_SCORE_MAX && FLEETSIM_SCORE_MIN == SCHED_SCORE_MIN, "the ABI's scores");
_Static_assert((int)FLEETSIM_TIES_LOWEST_ID == SCHED_TIES_LOWEST_ID && (int)FLEETSIM_TIES_RANDOM == SCHED_TIES_RANDOM &&
                   (int)FLEETSIM_TIES_SHUFFLED == SCHED_TIES_SHUFFLED,
               "the ABI's tie rules");

static int register_policy(const struct fleetsim_policy *p)
{
    const char *why = NULL;
    if (!p || !p->name || !*p->name)
        why = "a policy without a name";
    else if (sched_policy_find(p->name))
        why = "a name already taken";
    else if (nslots == SCHED_PLUGIN_MAX)
        why = "more policies than fleetsim holds (16)";
    else if (p->ties < FLEETSIM_TIES_LOWEST_ID || p->ties > FLEETSIM_TIES_SHUFFLED)
        why = "an unknown ties rule";
    if (why) {
        fprintf(stderr, "fleetsim: %s: registers %s%s%s\n", loading, why, p && p->name ? ": " : "",
                p && p->name ? p->name : "");
        refused = true;
        return -1;
    }
    int i = nslots++;
    slots[i].p = p;
    slots[i].sp = (struct sched_policy){
        .name = p->name,
        .summary = p->summary ? p->summary : "a plugin policy",
        .strict_order = p->strict_order,
        .first_in_bucket_wins = p->first_in_bucket_wins,
        .ties = (uint8_t)p->ties,
        .one_node = p->one_node,
        .queue_less = p->queue_less ? trampolines[i].queue_less : NULL,
        .filter = p->filter ? trampolines[i].filter : NULL,
        .score = p->score ? trampolines[i].score : NULL,
        .prepare = p->prepare ? trampolines[i].prepare : NULL,
        .release = p->release,
        .on_job = p->on_job ? trampolines[i].on_job : NULL,
    };
    return 0;
}

static const struct fleetsim_cluster *cycle_cluster(const struct fleetsim_cycle *c) { return H_CL(CYC(c)->cl); }
static int32_t cycle_type(const struct fleetsim_cycle *c) { return CYC(c)->type; }
static double cycle_now_s(const struct fleetsim_cycle *c) { return fs_to_seconds(CYC(c)->now); }
static int32_t nodes(const struct fleetsim_cluster *cl) { return CL(cl)->nnodes; }
static int32_t node_type(const struct fleetsim_cluster *cl, int32_t n) { return CL(cl)->nodes[n].type; }
static int node_gpus(const struct fleetsim_cluster *cl, int32_t n) { return CL(cl)->nodes[n].gpus; }
static int node_free(const struct fleetsim_cluster *cl, int32_t n) { return CL(cl)->nodes[n].free; }
static int gpu_free_milli(const struct fleetsim_cluster *cl, int32_t n, int g)
{
    return CL(cl)->milli[CL(cl)->nodes[n].gpu0 + g];
}
static const char *type_name(const struct fleetsim_cluster *cl, int32_t t) { return CL(cl)->cat->types[t].name; }
static int64_t job_id(const struct fleetsim_job *j) { return JOB(j)->id; }
static double job_submit_s(const struct fleetsim_job *j) { return fs_to_seconds(JOB(j)->submit); }
static int job_gpus_(const struct fleetsim_job *j) { return JOB(j)->gpus; }
static int job_milli(const struct fleetsim_job *j) { return JOB(j)->milli; }
static int job_class(const struct fleetsim_job *j) { return JOB(j)->qos; }
static double job_work(const struct fleetsim_job *j) { return JOB(j)->work; }
static double job_gpu_mem(const struct fleetsim_job *j) { return JOB(j)->gpu_mem_gb; }
static const struct fleetsim_job *jobs_at(const struct fleetsim_jobs *jobs, size_t i)
{
    return H_JOB((const struct job *)(const void *)jobs + i);
}

static const struct fleetsim_host host = {
    .abi = FLEETSIM_POLICY_ABI,
    .size = sizeof(struct fleetsim_host),
    .register_policy = register_policy,
    .cycle_cluster = cycle_cluster,
    .cycle_type = cycle_type,
    .cycle_now_s = cycle_now_s,
    .nodes = nodes,
    .node_type = node_type,
    .node_gpus = node_gpus,
    .node_free = node_free,
    .gpu_free_milli = gpu_free_milli,
    .type_name = type_name,
    .job_id = job_id,
    .job_submit_s = job_submit_s,
    .job_gpus = job_gpus_,
    .job_milli = job_milli,
    .job_class = job_class,
    .job_work_gpu_s = job_work,
    .job_gpu_mem_gb = job_gpu_mem,
    .jobs_at = jobs_at,
};

int sched_plugin_load(const char *path, struct fs_err *err)
{
    if (access(path, R_OK) != 0)
        return fs_fail(err, FS_ENOINPUT, "%s: cannot open: no such policy plugin", path);
    /* dlopen searches the library path for a name without a '/'. */
    char local[4096];
    snprintf(local, sizeof local, "%s%s", strchr(path, '/') ? "" : "./", path);
    void *h = dlopen(local, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return fs_fail(err, FS_EDATA, "%s: not a loadable shared object: %s", path, dlerror());
    const uint32_t *abi = dlsym(h, "fleetsim_plugin_abi");
    int (*init)(const struct fleetsim_host *);
    *(void **)&init = dlsym(h, "fleetsim_plugin_init");
    if (!abi || !init) {
        dlclose(h);
        return fs_fail(err, FS_EDATA, "%s: not a fleetsim policy plugin: no fleetsim_plugin_abi or "
                       "fleetsim_plugin_init (include/fleetsim/policy.h)", path);
    }
    if (*abi != FLEETSIM_POLICY_ABI) {
        uint32_t v = *abi;
        dlclose(h);
        return fs_fail(err, FS_EDATA, "%s: built for policy ABI version %u; this fleetsim loads version %d "
                       "(rebuild the plugin against its include/fleetsim/policy.h)", path, v,
                       FLEETSIM_POLICY_ABI);
    }
    int before = nslots;
    loading = path;
    refused = false;
    int rc = init(&host);
    loading = NULL;
    if (rc != 0 || refused) {
        nslots = before; /* the plugin's policies go; it stays mapped (they may be referenced) */
        return fs_fail(err, FS_EDATA, "%s: its fleetsim_plugin_init %s", path,
                       refused ? "registered a policy fleetsim refused (above)" : "failed");
    }
    if (nslots == before)
        return fs_fail(err, FS_EDATA, "%s: registers no policy", path);
    return 0;
}

const struct sched_policy *sched_plugin_find(const char *name)
{
    for (int i = 0; i < nslots; i++)
        if (strcmp(slots[i].sp.name, name) == 0)
            return &slots[i].sp;
    return NULL;
}

size_t sched_plugin_names(const char **names)
{
    for (int i = 0; i < nslots; i++)
        names[i] = slots[i].sp.name;
    return (size_t)nslots;
}
