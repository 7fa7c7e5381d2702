/* sched.c - the job queue and the one dispatch site for policy hooks; where
 * one job goes is place.c's. */
#include "sched.h"

#include <stdlib.h>
#include <string.h>

#include "backfill.h"
#include "plugin.h"
#include "policies/policies.h"
#include "place.h"
#include "queue.h"

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
    s->nqueue++;
    if (!s->unkept)
        squeue_add(s, j);
    if (s->policy->rounds)
        return; /* rounds place jobs themselves: no scan reads the fresh ones */
    xgrow(&s->fresh, &s->fresh_cap, s->nfresh + 1, sizeof *s->fresh);
    s->fresh[s->nfresh++] = j;
}

void sched_each_queued(struct sched *s, bool (*fn)(void *ctx, const struct job *j), void *ctx)
{
    if (!s->unkept)
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

/* No job asking for GPUs can start when no GPU has any room left. */
static bool out_of_gpus(const struct sched *s, const struct job *j)
{
    return j->gpus > 0 && s->cl->free_milli == 0;
}

void sched_remove_queued(struct sched *s, struct job *j)
{
    if (!s->unkept)
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
    return (!out_of_gpus(s, j) && sched_try(s, j)) || (make_room(s, j) && sched_try(s, j));
}

/* Could node n host j (its type allowed, room on it or, for a gang, n a
 * fully free whole node)?  The policy's node filter is not asked: this
 * only decides whether j is worth a try. */
static bool could_host(const struct sched *s, const struct job *j, int32_t n)
{
    const struct node *nd = &s->cl->nodes[n];
    const struct cluster_type *ct = &s->cl->types[nd->type];
    if (!place_type_ok(s->cl, j, nd->type))
        return false;
    if (s->policy->type_filter) {
        struct sched_cycle c = place_cycle(s, nd->type);
        if (!s->policy->type_filter(&c, j))
            return false;
    }
    if (j->gpus <= ct->max_gpus)
        return place_room(s->cl, j, n);
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
            sched_remove_queued(s, j);
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
            sched_remove_queued(s, j);
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
    place_set_owner(s, j, NULL);
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
    job_drop_gang(j);
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
    sched_remove_queued(s, j);
    j->state = JOB_FUTURE;
}
