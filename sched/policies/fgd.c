/* fgd.c - Fragmentation Gradient Descent (Weng et al., "Beware of
 * Fragmentation", USENIX ATC '23): the node, and the GPU on it, whose
 * fragmentation grows least when the job lands there.
 *
 * Fragmentation F_n(M) is measured against the target workload M, the most
 * popular task classes of the jobs sched_prepare is given (sched/frag.h,
 * 95 % coverage as in the paper).  For each node the policy computes F
 * before (Fb) and after (Fa) placing the job, in milli-GPU, and scores
 * trunc(100 sigmoid((Fb - Fa) / 1000)) as the authors' code does
 * (fgd_score.go): placing a job usually raises F, so scores sit below 50,
 * and one point is roughly 40 milli-GPU of growth, so ties are common; they
 * go to the first tied node in the run's shuffled node order
 * (SCHED_TIES_SHUFFLED).
 *
 * GPU choice: a job sharing one GPU is tried on each GPU with room, and the
 * GPU with the highest truncated score wins (the lowest-numbered on ties);
 * whole GPUs are the lowest-numbered fully free ones.  For the score of
 * whole GPUs, the job takes the first GPUs with room in increasing free
 * share (F does not depend on which GPUs of equal share those are).
 *
 * Speed: a node's score for a job depends only on the node's state and the
 * job's class (CPU, share, GPU count, allowed types), so scores are cached
 * per (class, node) and a node's cache is invalidated, through the on_job
 * hook, only when a job starts or ends there.  Fb is cached per node the
 * same way.  GPUs of equal free share give equal scores, so only distinct
 * shares are tried.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../frag.h"
#include "policies.h"

struct fgd_entry {
    uint32_t epoch;  /* the node's epoch it was computed at; 0 = never */
    int8_t score;
    int8_t gpu;      /* the GPU for a share, else -1 */
};

struct fgd {
    struct frag_target m;
    int32_t nnodes;
    uint32_t *epoch;      /* per node, bumped whenever the node changes */
    int64_t *fb;          /* per node: scaled F_n(M) at fb_epoch */
    uint32_t *fb_epoch;
    struct frag_class *cls;   /* job classes seen, in order of first sight */
    size_t ncls, cls_cap;
    struct fgd_entry *cache;  /* [class][node] */
    size_t last;              /* class of the last job scored */
};

static void *fgd_prepare(const struct cluster *cl, const struct job *jobs, size_t n, uint64_t seed)
{
    (void)seed;
    struct fgd *st = xcalloc(1, sizeof *st);
    frag_target_build(&st->m, jobs, n, FRAG_COVERAGE);
    st->nnodes = cl->nnodes;
    st->epoch = xmalloc((size_t)cl->nnodes * sizeof *st->epoch);
    for (int32_t i = 0; i < cl->nnodes; i++)
        st->epoch[i] = 1;
    st->fb = xcalloc((size_t)cl->nnodes, sizeof *st->fb);
    st->fb_epoch = xcalloc((size_t)cl->nnodes, sizeof *st->fb_epoch);
    return st;
}

static void fgd_release(void *ctx)
{
    struct fgd *st = ctx;
    if (!st)
        return;
    frag_target_free(&st->m);
    free(st->epoch);
    free(st->fb);
    free(st->fb_epoch);
    free(st->cls);
    free(st->cache);
    free(st);
}

static void fgd_on_job(void *ctx, const struct cluster *cl, const struct job *j, bool started)
{
    (void)cl, (void)started;
    struct fgd *st = ctx;
    for (int32_t k = 0; st && k < j->nnodes; k++)
        st->epoch[j->nnodes > 1 ? j->gang[k] : j->node]++;
}

/* The index of j's class, added (with an empty cache row) when new. */
static size_t class_index(struct fgd *st, const struct job *j)
{
    struct frag_class q = frag_class_of(j);
    if (st->last < st->ncls && frag_class_same(&st->cls[st->last], &q))
        return st->last;
    for (size_t i = 0; i < st->ncls; i++)
        if (frag_class_same(&st->cls[i], &q))
            return st->last = i;
    size_t rows = st->cls_cap;
    xgrow(&st->cls, &st->cls_cap, st->ncls + 1, sizeof *st->cls);
    if (st->cls_cap != rows) {
        size_t row = (size_t)st->nnodes * sizeof *st->cache;
        st->cache = xrealloc(st->cache, st->cls_cap * row);
        memset((char *)st->cache + rows * row, 0, (st->cls_cap - rows) * row);
    }
    st->cls[st->ncls] = q;
    return st->last = st->ncls++;
}

/* trunc(sigmoid((Fb - Fa) / 1000) x 100), with F scaled by total; the
 * floating-point steps in the authors' order. */
static int8_t fgd_points(int64_t fb, int64_t fa, int64_t total)
{
    double x = (double)(fb - fa) / (double)total / 1000.0;
    double sigmoid = 1.0 / (1.0 + exp(-x));
    return (int8_t)(int)(sigmoid * (double)PAPER_MAX_SCORE);
}

/* Score and GPU of node n (state as in fn, Fb scaled fb) for class q. */
static struct fgd_entry evaluate(const struct fgd *st, const struct frag_class *q,
                                 const struct frag_node *fn, int64_t fb)
{
    int16_t after[CLUSTER_MAX_NODE_GPUS];
    struct frag_node an = *fn;
    struct fgd_entry e = {.score = -1, .gpu = -1};
    memcpy(after, fn->free, (size_t)fn->ngpus * sizeof *after);
    an.free = after;
    if (an.cpu_free != INT32_MAX)
        an.cpu_free -= q->cpu;
    if (q->gpus == 1 && q->milli < GPU_MILLI) {
        for (int g = 0; g < fn->ngpus; g++) {
            int16_t r = fn->free[g];
            bool seen = false;
            for (int h = 0; h < g && !seen; h++)
                seen = fn->free[h] == r;
            if (r < q->milli || seen)
                continue;  /* no room, or a GPU of the same share came first */
            after[g] = (int16_t)(r - q->milli);
            int8_t sc = fgd_points(fb, frag_node_scaled(&st->m, &an), st->m.total);
            after[g] = r;
            if (sc > e.score)
                e = (struct fgd_entry){.score = sc, .gpu = (int8_t)g};
        }
        return e;
    }
    /* Whole GPUs (or none): the first gpus GPUs with room in increasing
     * free share. */
    uint64_t taken = 0;
    for (int k = 0; k < q->gpus; k++) {
        int pick = -1;
        for (int g = 0; g < fn->ngpus; g++)
            if (!(taken >> g & 1) && fn->free[g] >= q->milli && (pick < 0 || fn->free[g] < fn->free[pick]))
                pick = g;
        if (pick < 0)
            break;
        taken |= 1ULL << pick;
        after[pick] = (int16_t)(after[pick] - q->milli);
    }
    e.score = fgd_points(fb, frag_node_scaled(&st->m, &an), st->m.total);
    return e;
}

/* The cached entry of (class of j, node), brought up to date. */
static const struct fgd_entry *entry(struct fgd *st, const struct cluster *cl, const struct job *j,
                                     int32_t n)
{
    size_t q = class_index(st, j);
    struct fgd_entry *e = &st->cache[q * (size_t)st->nnodes + (size_t)n];
    if (e->epoch == st->epoch[n])
        return e;
    struct frag_node fn = frag_node_of(cl, n);
    if (st->fb_epoch[n] != st->epoch[n]) {
        st->fb[n] = frag_node_scaled(&st->m, &fn);
        st->fb_epoch[n] = st->epoch[n];
    }
    *e = evaluate(st, &st->cls[q], &fn, st->fb[n]);
    e->epoch = st->epoch[n];
    return e;
}

static int fgd_score(const struct sched_cycle *c, const struct job *j, int32_t node)
{
    struct fgd *st = c->ctx;
    if (!st || !st->m.total)
        return SCHED_SCORE_MIN;
    int sc = entry(st, c->cl, j, node)->score;
    return sc < 0 ? SCHED_SCORE_MIN : sc;
}

static uint64_t fgd_gpus(const struct sched_cycle *c, const struct job *j, int32_t node)
{
    struct fgd *st = c->ctx;
    if (!pol_is_share(j))
        return cluster_whole_gpus(c->cl, node, j->gpus);
    if (!st || !st->m.total)
        return 1ULL << cluster_share_gpu(c->cl, node, j->milli);
    return 1ULL << entry(st, c->cl, j, node)->gpu;
}

const struct sched_policy sched_policy_fgd = {
    .name = "fgd",
    .summary = "FGD paper: the node and GPU where fragmentation grows least",
    .ties = SCHED_TIES_SHUFFLED,
    .one_node = true,
    .state_score = true,
    .score = fgd_score,
    .pick_gpus = fgd_gpus,
    .prepare = fgd_prepare,
    .release = fgd_release,
    .on_job = fgd_on_job,
};
