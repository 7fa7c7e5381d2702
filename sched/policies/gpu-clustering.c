/* gpu-clustering.c - the FGD paper's GpuClustering: put jobs of the same
 * GPU shape together.
 *
 * A job's tag is "share" (one GPU, a share of it), "k-gpu" (k whole GPUs)
 * or none (CPU only).  A node's tags are those of the GPU jobs on it.  With
 * base = 25 (8000 - G_free) / 8000 in integers (G_free the node's free GPU
 * milli, so fuller nodes score a little higher), a GPU job scores
 *   base + 75  the node holds jobs of its tag and no other tag
 *   base + 50  it holds jobs of its tag and of others
 *   base + 25  it holds no GPU job
 *   base       it holds only other tags
 * (gpu_clustering_score.go).  A CPU-only job scores 0 everywhere: the first
 * node with room in the run's shuffled order (SCHED_TIES_SHUFFLED, as for
 * every tie).  GPU choice: the tightest GPU for a share.  The policy counts each node's jobs per tag through the
 * on_job hook. */
#include <stdlib.h>

#include "policies.h"

/* Tag 0: share; k: k whole GPUs; the last one: more than a node's worth. */
#define CLUSTERING_TAGS (CLUSTER_MAX_NODE_GPUS + 2)

struct clustering {
    int32_t nnodes;
    int32_t (*count)[CLUSTERING_TAGS]; /* jobs per node and tag */
    int16_t *tags;                     /* tags present per node */
};

/* RET: j's tag, or -1 for a CPU-only job. */
static int tag_of(const struct job *j)
{
    if (j->gpus == 0)
        return -1;
    if (pol_is_share(j))
        return 0;
    return j->gpus <= CLUSTER_MAX_NODE_GPUS ? j->gpus : CLUSTERING_TAGS - 1;
}

static void *clustering_prepare(const struct cluster *cl, const struct job *jobs, size_t n,
                                uint64_t seed)
{
    (void)jobs, (void)n, (void)seed;
    struct clustering *st = xmalloc(sizeof *st);
    st->nnodes = cl->nnodes;
    st->count = xcalloc((size_t)cl->nnodes, sizeof *st->count);
    st->tags = xcalloc((size_t)cl->nnodes, sizeof *st->tags);
    return st;
}

static void clustering_release(void *ctx)
{
    struct clustering *st = ctx;
    if (!st)
        return;
    free(st->count);
    free(st->tags);
    free(st);
}

static void count_on(struct clustering *st, int32_t n, int tag, int delta)
{
    int32_t *cnt = &st->count[n][tag];
    st->tags[n] = (int16_t)(st->tags[n] - (*cnt > 0));
    *cnt += delta;
    st->tags[n] = (int16_t)(st->tags[n] + (*cnt > 0));
}

static void clustering_on_job(void *ctx, const struct cluster *cl, const struct job *j, bool started)
{
    (void)cl;
    struct clustering *st = ctx;
    int tag = tag_of(j);
    if (!st || tag < 0)
        return;
    for (int32_t k = 0; k < j->nnodes; k++)
        count_on(st, j->nnodes > 1 ? j->gang[k] : j->node, tag, started ? 1 : -1);
}

static int clustering_score(const struct sched_cycle *c, const struct job *j, int32_t node)
{
    const struct clustering *st = c->ctx;
    int tag = tag_of(j);
    if (tag < 0)
        return SCHED_SCORE_MIN;
    int base = 25 * ((int)PAPER_MAX_GPU - pol_gpu_free(c->cl, node)) / (int)PAPER_MAX_GPU;
    if (base < 0)
        base = 0;  /* a node of more than 8 GPUs: as an 8-GPU one */
    if (!st)
        return base + 25;
    if (st->count[node][tag] > 0)
        return base + (st->tags[node] == 1 ? 75 : 50);
    return base + (st->tags[node] == 0 ? 25 : 0);
}

const struct sched_policy sched_policy_gpu_clustering = {
    .name = "gpu-clustering",
    .summary = "FGD paper: jobs of the same GPU shape together, fuller nodes first",
    .ties = SCHED_TIES_SHUFFLED,
    .one_node = true,
    .score = clustering_score,
    .prepare = clustering_prepare,
    .release = clustering_release,
    .on_job = clustering_on_job,
};
