/* sched.c - the job queue and the one dispatch site for policy hooks. */
#include "sched.h"

#include <stdlib.h>
#include <string.h>

#include "backfill.h"
#include "plugin.h"
#include "policies/policies.h"
#include "queue.h"

static void remove_queued(struct sched *s, struct job *j);

const struct sched_policy *const sched_policies[] = {
    &sched_policy_fifo,
    &sched_policy_backfill,
    &sched_policy_best_fit,
    &sched_policy_spread,
    &sched_policy_random,
    &sched_policy_dotprod,
    &sched_policy_gpu_packing,
    &sched_policy_gpu_clustering,
    &sched_policy_best_fit_share,
    &sched_policy_fgd,
    &sched_policy_hetero,
    &sched_policy_hetero_watt,
    &sched_policy_flux,
    &sched_policy_las,
    &sched_policy_gavel_las,
    &sched_policy_ts_fifo,
    &sched_policy_gavel_fifo,
    NULL,
};

/* The flux ablations (make ablation, docs/policies.md): flux with one of
 * its switches off. */
const struct sched_policy *const sched_policy_aliases[] = {
    &sched_policy_flux_no_route,
    &sched_policy_flux_no_pack,
    &sched_policy_flux_no_power,
    &sched_policy_flux_no_consolidate,
    &sched_policy_flux_no_preempt,
    &sched_policy_flux_no_failover,
    NULL,
};

const struct sched_policy *sched_policy_find(const char *name)
{
    for (size_t i = 0; sched_policies[i]; i++)
        if (strcmp(sched_policies[i]->name, name) == 0)
            return sched_policies[i];
    for (size_t i = 0; sched_policy_aliases[i]; i++)
        if (strcmp(sched_policy_aliases[i]->name, name) == 0)
            return sched_policy_aliases[i];
    return sched_plugin_find(name);
}

const char *const *sched_policy_names(size_t *n)
{
    static const char *names[FS_ARRAY_LEN(sched_policies) + FS_ARRAY_LEN(sched_policy_aliases) + SCHED_PLUGIN_MAX];
    size_t i = 0;
    for (; sched_policies[i]; i++)
        names[i] = sched_policies[i]->name;
    for (size_t k = 0; sched_policy_aliases[k]; k++)
        names[i++] = sched_policy_aliases[k]->name;
    i += sched_plugin_names(names + i);
    names[i] = NULL;
    if (n)
        *n = i;
    return names;
}

int sched_param_find(const struct sched_policy *p, const char *name)
{
    for (int k = 0; p->params && p->params[k].name; k++)
        if (strcmp(p->params[k].name, name) == 0)
            return k;
    return -1;
}

/* Steele, Lea and Flood, "Fast splittable pseudorandom number generators"
 * (OOPSLA 2014). */
uint64_t sched_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Salt so the tie-break streams differ from streams a policy derives from
 * the same seed. */
#define SCHED_TIES_SALT 0x7469652d62726b73ULL /* "tie-brks" */

void sched_init(struct sched *s, struct cluster *cl, const struct sched_policy *p)
{
    *s = (struct sched){.cl = cl, .policy = p, .tie_rng = SCHED_TIES_SALT, .q = squeue_new(),
                        .is_dirty = xcalloc((size_t)(cl->nnodes > 0 ? cl->nnodes : 1), 1),
                        .owner = xcalloc((size_t)(cl->gpus > 0 ? cl->gpus : 1), sizeof *s->owner),
                        .last_consolidation = -FS_TIME_MAX / 2};
}

/* A uniformly random order of the nodes (Fisher-Yates), as ranks. */
static int32_t *shuffled_ranks(int32_t n, uint64_t seed)
{
    int32_t *rank = xmalloc((size_t)(n > 0 ? n : 1) * sizeof *rank);
    uint64_t st = seed ^ (SCHED_TIES_SALT << 1);
    for (int32_t i = 0; i < n; i++)
        rank[i] = i;
    for (int32_t i = n - 1; i > 0; i--) {
        int32_t k = (int32_t)(sched_splitmix64(&st) % (uint64_t)(i + 1)), t = rank[i];
        rank[i] = rank[k];
        rank[k] = t;
    }
    return rank;
}

void sched_prepare(struct sched *s, const struct job *jobs, size_t n, uint64_t seed)
{
    s->tie_rng = seed ^ SCHED_TIES_SALT;
    if (s->policy->ties == SCHED_TIES_SHUFFLED) {
        free(s->rank);
        s->rank = shuffled_ranks(s->cl->nnodes, seed);
        if (s->policy->state_score)
            cluster_order(s->cl, s->rank);
    }
    if (s->policy->prepare)
        s->ctx = s->policy->prepare(s->cl, jobs, n, seed);
}

void sched_fini(struct sched *s)
{
    if (s->policy && s->policy->release)
        s->policy->release(s->ctx);
    squeue_free(s->q);
    free(s->fresh);
    free(s->dirty);
    free(s->is_dirty);
    free(s->rank);
    free(s->owner);
    free(s->pending);
    backfill_free(&s->bf);
    *s = (struct sched){0};
}

void sched_submit(struct sched *s, struct job *j)
{
    j->state = JOB_QUEUED;
    squeue_add(s, j);
    s->nqueue++;
    xgrow(&s->fresh, &s->fresh_cap, s->nfresh + 1, sizeof *s->fresh);
    s->fresh[s->nfresh++] = j;
}

void sched_each_queued(struct sched *s, bool (*fn)(void *ctx, const struct job *j), void *ctx)
{
    squeue_each(s, fn, ctx);
}

void sched_node_changed(struct sched *s, int32_t n)
{
    if (!s->is_dirty[n]) {
        s->is_dirty[n] = 1;
        xgrow(&s->dirty, &s->dirty_cap, s->ndirty + 1, sizeof *s->dirty);
        s->dirty[s->ndirty++] = n;
    }
}

void sched_node_freed(struct sched *s, int32_t n)
{
    s->freed = true;
    sched_node_changed(s, n);
}

static bool type_ok(const struct cluster *cl, const struct job *j, int32_t t)
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
static bool room(const struct cluster *cl, const struct job *j, int32_t n)
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
    if (!type_ok(cl, j, t))
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
static struct sched_cycle cycle_for(const struct sched *s, int32_t t)
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
    struct sched_cycle c = cycle_for(s, t);
    int from = j->milli < GPU_MILLI ? 0 : j->gpus;
    for (int f = from; f <= s->cl->types[t].max_gpus; f++) {
        int32_t one = stand_in(s, t, f);
        if (one != SCHED_WALK) {
            if (one >= 0 && room(s->cl, j, one) && !filtered(p, &c, j, one)) {
                int sc = score_of(p, &c, j, one);
                if (better(s, best, sc, one))
                    keep(best, sc, one, t);
            }
            continue;
        }
        for (int32_t n = cluster_next(s->cl, t, f, -1); n >= 0; n = cluster_next(s->cl, t, f, n)) {
            if ((s->only && !(s->only[n / 64] >> (n % 64) & 1)) || !room(s->cl, j, n) ||
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
    struct sched_cycle c = cycle_for(s, t);
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
    struct sched_cycle c = cycle_for(s, t);
    int sc = s->policy->one_node ? 0 : score_of(s->policy, &c, j, first);
    if (better(s, best, sc, first))
        keep(best, sc, first, t);
}

/* Which GPUs of the chosen node: the policy's choice when it has the hook,
 * else the best-fitting GPU for a share and the lowest-numbered fully free
 * ones for whole GPUs. */
static uint64_t pick_gpus(const struct sched *s, const struct job *j, const struct choice *ch)
{
    struct sched_cycle c = cycle_for(s, ch->type);
    if (j->gpus == 0)
        return 0;
    if (s->policy->pick_gpus)
        return s->policy->pick_gpus(&c, j, ch->node);
    if (j->milli < GPU_MILLI)
        return 1ULL << cluster_share_gpu(s->cl, ch->node, j->milli);
    return cluster_whole_gpus(s->cl, ch->node, j->gpus);
}

/* Record (who = j) or clear (who = NULL) j's whole GPUs in s->owner. */
static void set_owner(struct sched *s, const struct job *j, struct job *who)
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
    j->type = ch->type;
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
    set_owner(s, j, j);
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

/* Place j now if the policy finds room.  RET: true if placed. */
static bool try_place(struct sched *s, struct job *j)
{
    struct choice best = {.node = -1, .type = -1};
    for (int32_t t = 0; t < s->cl->cat->n; t++) {
        const struct cluster_type *ct = &s->cl->types[t];
        if (!type_ok(s->cl, j, t) || (j->milli == GPU_MILLI && ct->gpus - ct->allocated < j->gpus))
            continue;
        if (s->policy->type_filter) {
            struct sched_cycle c = cycle_for(s, t);
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
                if (room(s->cl, j, n)) {
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
    remove_queued(s, j);
    take(s, j, &best);
    j->state = JOB_RUNNING;
    return true;
}

bool sched_try(struct sched *s, struct job *j)
{
    return try_place(s, j);
}

/* No job asking for GPUs can start when no GPU has any room left. */
static bool out_of_gpus(const struct sched *s, const struct job *j)
{
    return j->gpus > 0 && s->cl->free_milli == 0;
}

static void remove_queued(struct sched *s, struct job *j)
{
    squeue_remove(s, j);
    s->nqueue--;
}

/* May the policy evict (and has the engine given the sched a way to)? */
static bool evicts(const struct sched *s)
{
    return s->evict && (s->policy->preempts || s->policy->consolidates);
}

/* Room for j by evicting, as the policy allows, each kind of attempt
 * throttled per placement class: a failed preemption is not retried
 * until the cluster changed, a consolidation (failed or not) not within
 * consolidate_every.  RET: true when jobs were evicted. */
static bool make_room(struct sched *s, const struct job *j)
{
    if (s->rescan || !evicts(s))
        return false;
    struct squeue_room *r = squeue_room(s, j);
    if (r->preempted != s->changes && sched_may_preempt(s, j)) {
        if (sched_preempt(s, j))
            return true;
        r->preempted = s->changes;
    }
    if (s->now - r->consolidated >= s->policy->consolidate_every && sched_may_consolidate(s, j)) {
        r->consolidated = s->now;
        return sched_consolidate(s, j);
    }
    return false;
}

/* Start queued j now if the policy finds room, making room if need be. */
static bool start(struct sched *s, struct job *j)
{
    return (!out_of_gpus(s, j) && try_place(s, j)) || (make_room(s, j) && try_place(s, j));
}

/* Could node n host j (its type allowed, room on it or, for a gang, n a
 * fully free whole node)?  The policy's node filter is not asked: this
 * only decides whether j is worth a try. */
static bool could_host(const struct sched *s, const struct job *j, int32_t n)
{
    const struct node *nd = &s->cl->nodes[n];
    const struct cluster_type *ct = &s->cl->types[nd->type];
    if (!type_ok(s->cl, j, nd->type))
        return false;
    if (s->policy->type_filter) {
        struct sched_cycle c = cycle_for(s, nd->type);
        if (!s->policy->type_filter(&c, j))
            return false;
    }
    if (j->gpus <= ct->max_gpus)
        return room(s->cl, j, n);
    return !s->pods && nd->gpus == ct->max_gpus && nd->free == nd->gpus &&
           cluster_host_fits(s->cl, n, j->cpu_milli, j->mem_mib);
}

/* Wake j's sleeping class: a node given back since could host it, or
 * the policy may make room for it now (evicting policies' own trigger). */
static bool can_wake(struct sched *s, const struct job *j)
{
    for (size_t k = 0; k < s->ndirty; k++)
        if (could_host(s, j, s->dirty[k]))
            return true;
    if (!evicts(s))
        return false;
    const struct squeue_room *r = squeue_room(s, j);
    return (r->preempted != s->changes && sched_may_preempt(s, j)) ||
           (s->now - r->consolidated >= s->policy->consolidate_every && sched_may_consolidate(s, j));
}

/* Wake the classes worth a try, forget the nodes given back.  RET: how
 * many woke. */
static size_t wake_classes(struct sched *s)
{
    size_t woken = s->ndirty || evicts(s) ? squeue_wake(s, can_wake) : 0;
    for (size_t k = 0; k < s->ndirty; k++)
        s->is_dirty[s->dirty[k]] = 0;
    s->ndirty = 0;
    return woken;
}

/* Try the awake classes (every class, under strict order) in queue
 * order, each until its first job that cannot start; under strict order,
 * stop there. */
static size_t scan_classes(struct sched *s, void (*started)(void *, struct job *), void *ctx)
{
    bool strict = s->policy->strict_order;
    size_t nstarted = 0;
    squeue_begin(s, strict);
    for (struct job *j; (j = squeue_next(s));) {
        if (start(s, j)) {
            squeue_started(s);
            s->nqueue--;
            nstarted++;
            started(ctx, j);
        } else if (strict) {
            break;
        } else {
            squeue_failed(s);
        }
    }
    squeue_end(s);
    return nstarted;
}

static bool collect(void *ctx, const struct job *j)
{
    struct sched *s = ctx;
    xgrow(&s->bf.queued, &s->bf.queued_cap, s->bf.nqueued + 1, sizeof *s->bf.queued);
    s->bf.queued[s->bf.nqueued++] = (struct job *)j;
    return true;
}

/* EASY backfilling (sched/backfill.c): every queued job in queue order,
 * each judged on its own (its estimate decides, not only its class); the
 * first that cannot start gets the reservation. */
static size_t scan_backfill(struct sched *s, void (*started)(void *, struct job *), void *ctx)
{
    size_t nstarted = 0;
    s->bf.nqueued = 0;
    squeue_each(s, collect, s);
    for (size_t k = 0; k < s->bf.nqueued; k++) {
        struct job *j = s->bf.queued[k];
        if (start(s, j)) {
            remove_queued(s, j);
            nstarted++;
            started(ctx, j);
        } else if (!s->bf.head) {
            backfill_reserve(s, &s->bf, j);
        }
    }
    s->bf.active = false;
    s->bf.head = NULL;
    squeue_end(s);
    return nstarted;
}

/* Nothing was freed since the last cycle, so only the fresh jobs can start
 * (every older job already failed against at least this much room), in
 * the order they came; a class whose job fails sleeps, so the rest of it
 * is not tried. */
static size_t scan_fresh(struct sched *s, void (*started)(void *, struct job *), void *ctx)
{
    size_t nstarted = 0;
    for (size_t k = 0; k < s->nfresh; k++) {
        struct job *j = s->fresh[k];
        if (j->state != JOB_QUEUED || squeue_asleep(s, j))
            continue;
        if (start(s, j)) {
            remove_queued(s, j);
            nstarted++;
            started(ctx, j);
        } else {
            squeue_sleep(s, j);
        }
    }
    squeue_end(s);
    return nstarted;
}

size_t sched_cycle(struct sched *s, void (*started)(void *ctx, struct job *j), void *ctx)
{
    /* A strict-order scan stops at the first job that cannot start, so it
     * is cheap however long the queue; otherwise, with no room freed and
     * no class woken, only the fresh jobs need a look. */
    s->scanning = true;
    bool woke = wake_classes(s) > 0;
    size_t n = s->policy->backfill ? scan_backfill(s, started, ctx)
               : s->freed || woke || s->policy->strict_order ? scan_classes(s, started, ctx)
                                                           : scan_fresh(s, started, ctx);
    s->scanning = false;
    s->freed = false;
    s->nfresh = 0;
    /* Evicted jobs go back in the queue and get one more scan now, which
     * makes no room for anyone (so a cycle always ends). */
    if (s->npending) {
        for (size_t k = 0; k < s->npending; k++)
            sched_submit(s, s->pending[k]);
        s->npending = 0;
        s->rescan = true;
        wake_classes(s);
        n += scan_classes(s, started, ctx);
        s->rescan = false;
        s->freed = false;
        s->nfresh = 0;
    }
    return n;
}

/* Give j's GPUs back and tell the policy. */
static void give_back(struct sched *s, struct job *j)
{
    set_owner(s, j, NULL);
    if (j->nnodes > 1) {
        int size = s->cl->types[j->type].max_gpus;
        uint64_t all = size == 64 ? ~0ULL : (1ULL << size) - 1;
        for (int32_t k = 0; k < j->nnodes; k++)
            cluster_give(s->cl, j->gang[k], all, GPU_MILLI, j->cpu_milli, j->mem_mib);
    } else {
        cluster_give(s->cl, j->node, j->gpu_mask, j->milli, j->cpu_milli, j->mem_mib);
    }
    if (s->policy->on_job)
        s->policy->on_job(s->ctx, s->cl, j, false);
    for (int32_t k = 0; k < j->nnodes; k++)
        sched_node_freed(s, j->nnodes > 1 ? j->gang[k] : j->node);
    s->changes++;
}

void sched_release(struct sched *s, struct job *j)
{
    give_back(s, j);
    j->state = JOB_DONE;
}

void sched_evict(struct sched *s, struct job *j)
{
    give_back(s, j);
    free(j->gang);
    j->gang = NULL;
    j->nnodes = 0;
    j->node = -1;
    j->type = -1;
    if (!s->scanning) {
        sched_submit(s, j);
        return;
    }
    /* Mid-scan the queue is being compacted: queue it after the scan. */
    j->state = JOB_QUEUED;
    xgrow(&s->pending, &s->pending_cap, s->npending + 1, sizeof *s->pending);
    s->pending[s->npending++] = j;
}

void sched_withdraw(struct sched *s, struct job *j)
{
    remove_queued(s, j);
    j->state = JOB_FUTURE;
}
