/* place.c - where one job goes (place.h): whether a type or node can hold
 * it, the policy's choice among nodes (filter, score, ties), its GPUs
 * taken on one node or a gang of whole nodes, and the backfill
 * reservation kept. */
#include "place.h"

#include <stdlib.h>

#include "backfill.h"

bool place_type_ok(const struct cluster *cl, const struct job *j, int32_t t)
{
    const struct cluster_type *ct = &cl->types[t];
    if (!ct->max_gpus || j->cpu_milli > ct->max_cpu || j->mem_mib > ct->max_mem)
        return false;
    if (j->gpus == 0)
        return true;
    if (j->allowed && !(j->allowed >> t & 1))
        return false;
    return j->gpu_mem_gb * j->milli / GPU_MILLI <= cl->cat->types[t].memory_gb;
}

/* Can node n host single-node job j now (GPUs, CPU, memory)? */
bool place_room(const struct cluster *cl, const struct job *j, int32_t n)
{
    if (!cluster_host_fits(cl, n, j->cpu_milli, j->mem_mib))
        return false;
    if (j->gpus == 0)
        return true;
    if (j->milli < GPU_MILLI)
        return cluster_share_gpu(cl, n, j->milli) >= 0;
    return cl->nodes[n].free >= j->gpus;
}

/* Nodes of type t with exactly t's largest size: the only gang members. */
static int32_t whole_nodes(const struct cluster *cl, int32_t t)
{
    const struct cluster_type *ct = &cl->types[t];
    int32_t count = 0;
    for (int32_t n = ct->first_node; n >= 0 && n <= ct->last_node; n++)
        count += cl->nodes[n].type == t && cl->nodes[n].gpus == ct->max_gpus;
    return count;
}

bool sched_fits_type(const struct cluster *cl, const struct job *j, int32_t t)
{
    if (!place_type_ok(cl, j, t))
        return false;
    int32_t size = cl->types[t].max_gpus;
    return j->gpus <= size || (j->gpus % size == 0 && j->gpus / size <= whole_nodes(cl, t));
}

bool sched_fits_fleet(const struct cluster *cl, const struct job *j)
{
    for (int32_t t = 0; t < cl->cat->n; t++)
        if (sched_fits_type(cl, j, t))
            return true;
    return false;
}

struct choice {
    int score;
    int32_t node, type;
    uint32_t ties;   /* nodes seen with the best score (SCHED_TIES_RANDOM) */
};

/* Should (score, node) replace best?  Ties as the policy's ties field
 * says; SCHED_TIES_RANDOM takes the k-th of k equal nodes with probability
 * 1/k (reservoir sampling), which leaves each of them equally likely. */
static bool better(struct sched *s, struct choice *best, int score, int32_t node)
{
    if (best->node < 0 || score > best->score) {
        best->ties = 1;
        return true;
    }
    if (score < best->score)
        return false;
    switch (s->policy->ties) {
    case SCHED_TIES_RANDOM:
        best->ties++;
        return sched_splitmix64(&s->tie_rng) % best->ties == 0;
    case SCHED_TIES_SHUFFLED:
        if (s->rank)
            return s->rank[node] < s->rank[best->node];
        return node < best->node;
    default:
        return node < best->node;
    }
}

static void keep(struct choice *best, int score, int32_t node, int32_t type)
{
    best->score = score;
    best->node = node;
    best->type = type;
}

/* The scratch state for deciding on type t. */
struct sched_cycle place_cycle(const struct sched *s, int32_t t)
{
    return (struct sched_cycle){.cl = s->cl, .type = t, .ctx = s->ctx, .perf = s->perf,
                                .prices = s->prices, .nodes = s->nodes, .now = s->now,
                                .power_ok = s->power_ok, .power_ctx = s->power_ctx,
                                .failed_at = s->failed_at, .param = s->policy->param};
}

static int score_of(const struct sched_policy *p, const struct sched_cycle *c,
                    const struct job *j, int32_t node)
{
    return p->score ? p->score(c, j, node) : SCHED_SCORE_MIN;
}

static bool filtered(const struct sched_policy *p, const struct sched_cycle *c,
                     const struct job *j, int32_t node)
{
    return p->filter && !p->filter(c, j, node);
}

/* Bucket f of type t must be walked node by node. */
#define SCHED_WALK (-2)

/* The node that stands for every node of bucket f of type t, when one
 * can: the policy's filter and score depend only on a node's state
 * (state_score), the bucket's nodes are all in one state
 * (cluster_uniform), no candidate set limits them, and the policy's ties
 * pick a fixed one among equals (the lowest id, or the first in the run's
 * shuffled order, which the cluster keeps too).  Every other node of the
 * bucket scores the same and loses the tie to it.  RET: that node, -1 for
 * an empty bucket, or SCHED_WALK. */
static int32_t stand_in(const struct sched *s, int32_t t, int f)
{
    const struct sched_policy *p = s->policy;
    if (!p->state_score || s->only || p->ties == SCHED_TIES_RANDOM || !cluster_uniform(s->cl, t, f))
        return SCHED_WALK;
    if (p->ties == SCHED_TIES_SHUFFLED && s->rank)
        return s->cl->rank ? cluster_first_ranked(s->cl, t, f) : SCHED_WALK;
    return cluster_next(s->cl, t, f, -1);
}

/* Best node of type t for a job that fits on one node.  A share of a GPU
 * may fit a node with no fully free GPU, so shares look at every bucket. */
static void choose_single(struct sched *s, const struct job *j, int32_t t,
                          struct choice *best)
{
    const struct sched_policy *p = s->policy;
    struct sched_cycle c = place_cycle(s, t);
    int from = j->milli < GPU_MILLI ? 0 : j->gpus;
    for (int f = from; f <= s->cl->types[t].max_gpus; f++) {
        int32_t one = stand_in(s, t, f);
        if (one != SCHED_WALK) {
            if (one >= 0 && place_room(s->cl, j, one) && !filtered(p, &c, j, one)) {
                int sc = score_of(p, &c, j, one);
                if (better(s, best, sc, one))
                    keep(best, sc, one, t);
            }
            continue;
        }
        for (int32_t n = cluster_next(s->cl, t, f, -1); n >= 0; n = cluster_next(s->cl, t, f, n)) {
            if ((s->only && !(s->only[n / 64] >> (n % 64) & 1)) || !place_room(s->cl, j, n) ||
                filtered(p, &c, j, n))
                continue;
            int sc = score_of(p, &c, j, n);
            if (better(s, best, sc, n))
                keep(best, sc, n, t);
            if (p->first_in_bucket_wins)
                break;
        }
    }
}

/* The first m fully free whole nodes of type t that pass the filter, into
 * out.  RET: true when there are m. */
static bool gang_nodes(const struct sched *s, const struct job *j, int32_t t, int32_t *out, int32_t m)
{
    struct sched_cycle c = place_cycle(s, t);
    int size = s->cl->types[t].max_gpus;
    int32_t k = 0;
    for (int32_t n = cluster_next(s->cl, t, size, -1); n >= 0 && k < m; n = cluster_next(s->cl, t, size, n))
        if (cluster_host_fits(s->cl, n, j->cpu_milli, j->mem_mib) &&
            (s->policy->one_node || !filtered(s->policy, &c, j, n)))
            out[k++] = n;
    return k == m;
}

static void choose_gang(struct sched *s, const struct job *j, int32_t t, struct choice *best)
{
    int size = s->cl->types[t].max_gpus;
    if (j->gpus % size || cluster_count(s->cl, t, size) < j->gpus / size)
        return;
    /* Every member must pass (host room, filter), not only the first. */
    int32_t m = j->gpus / size, *nodes = xmalloc((size_t)m * sizeof *nodes);
    bool found = gang_nodes(s, j, t, nodes, m);
    int32_t first = found ? nodes[0] : -1;
    free(nodes);
    if (!found)
        return;
    struct sched_cycle c = place_cycle(s, t);
    int sc = s->policy->one_node ? 0 : score_of(s->policy, &c, j, first);
    if (better(s, best, sc, first))
        keep(best, sc, first, t);
}

/* Which GPUs of the chosen node: the policy's choice when it has the hook,
 * else the best-fitting GPU for a share and the lowest-numbered fully free
 * ones for whole GPUs. */
static uint64_t pick_gpus(const struct sched *s, const struct job *j, const struct choice *ch)
{
    struct sched_cycle c = place_cycle(s, ch->type);
    if (j->gpus == 0)
        return 0;
    if (s->policy->pick_gpus)
        return s->policy->pick_gpus(&c, j, ch->node);
    if (j->milli < GPU_MILLI)
        return 1ULL << cluster_share_gpu(s->cl, ch->node, j->milli);
    return cluster_whole_gpus(s->cl, ch->node, j->gpus);
}

/* Record (who = j) or clear (who = NULL) j's whole GPUs in s->owner. */
void place_set_owner(struct sched *s, const struct job *j, struct job *who)
{
    if (j->milli < GPU_MILLI || j->gpus == 0)
        return;
    for (int32_t k = 0; k < j->nnodes; k++) {
        const struct node *nd = &s->cl->nodes[j->nnodes > 1 ? j->gang[k] : j->node];
        for (int g = 0; g < nd->gpus; g++)
            if (j->nnodes > 1 || (j->gpu_mask >> g & 1))
                s->owner[nd->gpu0 + g] = who;
    }
}

static void take(struct sched *s, struct job *j, const struct choice *ch)
{
    int size = s->cl->types[ch->type].max_gpus;
    j->type = (int16_t)ch->type;
    j->node = ch->node;
    if (j->gpus <= size) {
        j->nnodes = 1;
        j->gpu_mask = pick_gpus(s, j, ch);
        cluster_take(s->cl, ch->node, j->gpu_mask, j->milli, j->cpu_milli, j->mem_mib);
    } else {
        j->nnodes = j->gpus / size;
        j->gang = xmalloc((size_t)j->nnodes * sizeof *j->gang);
        gang_nodes(s, j, ch->type, j->gang, j->nnodes);
        j->node = j->gang[0];
        uint64_t all = size == 64 ? ~0ULL : (1ULL << size) - 1;
        for (int32_t k = 0; k < j->nnodes; k++)
            cluster_take(s->cl, j->gang[k], all, GPU_MILLI, j->cpu_milli, j->mem_mib);
    }
    place_set_owner(s, j, j);
    s->changes++;
    if (s->policy->on_job)
        s->policy->on_job(s->ctx, s->cl, j, true);
}

/* Does placing j at ch keep the backfill reservation (when one holds)? */
static bool keeps_reservation(struct sched *s, const struct job *j, const struct choice *ch)
{
    if (!s->bf.active || j == s->bf.head)
        return true;
    int32_t size = s->cl->types[ch->type].max_gpus;
    if (j->gpus <= size)
        return backfill_allows(s, &s->bf, j, ch->type, &ch->node, 1);
    int32_t m = j->gpus / size, *nodes = xmalloc((size_t)m * sizeof *nodes);
    gang_nodes(s, j, ch->type, nodes, m); /* the nodes take() will use */
    bool ok = backfill_allows(s, &s->bf, j, ch->type, nodes, m);
    free(nodes);
    return ok;
}

bool sched_try(struct sched *s, struct job *j)
{
    struct choice best = {.node = -1, .type = -1};
    for (int32_t t = 0; t < s->cl->cat->n; t++) {
        const struct cluster_type *ct = &s->cl->types[t];
        if (!place_type_ok(s->cl, j, t) || (j->milli == GPU_MILLI && ct->gpus - ct->allocated < j->gpus))
            continue;
        if (s->policy->type_filter) {
            struct sched_cycle c = place_cycle(s, t);
            if (!s->policy->type_filter(&c, j))
                continue;
        }
        if (j->gpus <= ct->max_gpus)
            choose_single(s, j, t, &best);
        else if (!s->pods)
            choose_gang(s, j, t, &best);
    }
    if (best.node < 0 || !keeps_reservation(s, j, &best))
        return false;
    take(s, j, &best);
    j->state = JOB_RUNNING;
    return true;
}

bool sched_place(struct sched *s, struct job *j, int32_t t)
{
    struct choice best = {.node = -1, .type = -1};
    const struct cluster_type *ct = &s->cl->types[t];
    if (!sched_fits_type(s->cl, j, t) || ct->gpus - ct->allocated < j->gpus)
        return false;
    if (j->gpus <= ct->max_gpus) {
        for (int f = j->gpus; f <= ct->max_gpus && best.node < 0; f++)
            for (int32_t n = cluster_next(s->cl, t, f, -1); n >= 0; n = cluster_next(s->cl, t, f, n))
                if (place_room(s->cl, j, n)) {
                    keep(&best, 0, n, t);
                    break;
                }
    } else {
        int32_t m = j->gpus / ct->max_gpus, *nodes = xmalloc((size_t)m * sizeof *nodes);
        if (cluster_count(s->cl, t, ct->max_gpus) >= m && gang_nodes(s, j, t, nodes, m))
            keep(&best, 0, nodes[0], t);
        free(nodes);
    }
    if (best.node < 0)
        return false;
    sched_remove_queued(s, j);
    take(s, j, &best);
    j->state = JOB_RUNNING;
    return true;
}
