/* preempt.c - room for a job that cannot start, for policies that ask for
 * it (sched.h: preempts, consolidates): evicting lower-class work, or
 * moving small jobs off one node so a larger one fits there. */
#include <stdlib.h>

#include "sched.h"

/* Running whole-GPU jobs on node n (each once), into out[]; RET: count. */
static int jobs_on(const struct sched *s, int32_t n, struct job **out, int max)
{
    const struct node *nd = &s->cl->nodes[n];
    int k = 0;
    for (int g = 0; g < nd->gpus; g++) {
        struct job *j = s->owner[nd->gpu0 + g];
        bool seen = false;
        for (int i = 0; i < k && !seen; i++)
            seen = out[i] == j;
        if (j && !seen && k < max)
            out[k++] = j;
    }
    return k;
}

/* Victims in the order to evict them: lower class first, then the most
 * recently (re)started, which has the least progress to lose. */
static int victim_order(const void *a, const void *b)
{
    const struct job *x = *(struct job *const *)a, *y = *(struct job *const *)b;
    if (x->qos != y->qos)
        return x->qos < y->qos ? -1 : 1;
    if (x->seg != y->seg)
        return x->seg > y->seg ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Evict each of v[0..k) (all on node n) and say how. */
static void evict_all(struct sched *s, struct job **v, int k, bool migrate)
{
    for (int i = 0; i < k; i++)
        s->evict(s->evict_ctx, v[i], migrate);
}

/* GPUs the victims picked so far take on other nodes (at most one
 * entry per victim), on top of what the cluster says is free. */
struct overlay {
    int32_t node[CLUSTER_MAX_NODE_GPUS];
    int16_t used[CLUSTER_MAX_NODE_GPUS];
    int n;
};

static int room_left(const struct cluster *cl, const struct overlay *o, int32_t n)
{
    int r = cl->nodes[n].free;
    for (int k = 0; k < o->n; k++)
        if (o->node[k] == n)
            r -= o->used[k];
    return r;
}

/* Is a job of this type and size placeable on some node other than skip,
 * with the victims placed so far (o, which takes it on success)?  The
 * tightest node first, through the free-capacity index. */
static bool fits_elsewhere(const struct cluster *cl, const struct job *v, int32_t skip, struct overlay *o)
{
    if (v->nnodes > 1)
        return false;
    for (int f = v->gpus; f <= cl->types[v->type].max_gpus; f++)
        for (int32_t n = cluster_next(cl, v->type, f, -1); n >= 0; n = cluster_next(cl, v->type, f, n))
            if (n != skip && room_left(cl, o, n) >= v->gpus) {
                o->node[o->n] = n;
                o->used[o->n++] = (int16_t)v->gpus;
                return true;
            }
    return false;
}

bool sched_may_preempt(const struct sched *s, const struct job *j)
{
    return s->evict && s->policy->preempts && j->gpus > 0 && j->qos >= s->policy->preempt_class &&
           j->qos > JOB_BEST_EFFORT && (j->urgent || !j->svc);
}

/* Preemption: the node of an allowed type where evicting the fewest GPUs
 * of lower-class work (in victim_order) frees room. */
bool sched_preempt(struct sched *s, const struct job *j)
{
    if (!sched_may_preempt(s, j))
        return false;
    int32_t best = -1, best_gpus = 0;
    struct job *v[64];
    for (int32_t t = 0; t < s->cl->cat->n; t++) {
        const struct cluster_type *ct = &s->cl->types[t];
        if (!sched_fits_type(s->cl, j, t) || j->gpus > ct->max_gpus || j->milli < GPU_MILLI)
            continue;
        for (int32_t n = ct->first_node; n >= 0 && n <= ct->last_node; n++) {
            const struct node *nd = &s->cl->nodes[n];
            if (nd->type != t || nd->gpus < j->gpus)
                continue;
            int k = jobs_on(s, n, v, 64), freed = nd->free, used = 0;
            qsort(v, (size_t)k, sizeof *v, victim_order);
            for (int i = 0; i < k && freed < j->gpus; i++)
                if (v[i]->qos < j->qos && v[i]->nnodes == 1) {
                    freed += v[i]->gpus;
                    used += v[i]->gpus;
                }
            if (freed >= j->gpus && (best < 0 || used < best_gpus)) {
                best = n;
                best_gpus = used;
            }
        }
    }
    if (best < 0)
        return false;
    int k = jobs_on(s, best, v, 64), freed = s->cl->nodes[best].free, n = 0;
    struct job *chosen[64];
    qsort(v, (size_t)k, sizeof *v, victim_order);
    for (int i = 0; i < k && freed < j->gpus; i++)
        if (v[i]->qos < j->qos && v[i]->nnodes == 1) {
            freed += v[i]->gpus;
            chosen[n++] = v[i];
        }
    evict_all(s, chosen, n, false);
    s->preemptions += (uint64_t)n;
    return true;
}

/* Can type t ever host j on one node, and has it j's GPUs free in all? */
static bool consolidation_type(const struct cluster *cl, const struct job *j, int32_t t)
{
    const struct cluster_type *ct = &cl->types[t];
    return j->gpus <= ct->max_gpus && ct->gpus - ct->allocated >= j->gpus && sched_fits_type(cl, j, t);
}

bool sched_may_consolidate(const struct sched *s, const struct job *j)
{
    if (!s->evict || !s->policy->consolidates || j->gpus == 0 || j->milli < GPU_MILLI ||
        s->now - s->last_consolidation < s->policy->consolidate_every)
        return false;
    for (int32_t t = 0; t < s->cl->cat->n; t++)
        if (consolidation_type(s->cl, j, t))
            return true;
    return false;
}

/* Consolidation: a type whose free GPUs add up to j's request, spread over
 * nodes none of which has room.  Move the fewest GPUs of j's class or
 * lower off one node, each to room elsewhere, so j fits there.  Latency-
 * critical work (a serving replica) is never moved: it would stop serving
 * through a cold start.  At most once per consolidate_every. */
bool sched_consolidate(struct sched *s, const struct job *j)
{
    const struct cluster *cl = s->cl;
    struct job *v[64], *chosen[64];
    int32_t best = -1;
    int best_gpus = 0, nbest = 0;
    if (!sched_may_consolidate(s, j))
        return false;
    for (int32_t t = 0; t < cl->cat->n; t++) {
        const struct cluster_type *ct = &cl->types[t];
        if (!consolidation_type(cl, j, t))
            continue;
        for (int32_t n = ct->first_node; n >= 0 && n <= ct->last_node; n++) {
            const struct node *nd = &cl->nodes[n];
            if (nd->type != t || nd->gpus < j->gpus || nd->free >= j->gpus)
                continue;
            struct overlay o = {.n = 0};
            int k = jobs_on(s, n, v, 64), freed = nd->free, used = 0, nv = 0;
            struct job *pick[64];
            /* Smallest first: they find room elsewhere most easily. */
            for (int size = 1; size <= nd->gpus && freed < j->gpus; size++)
                for (int i = 0; i < k && freed < j->gpus; i++)
                    if (v[i]->gpus == size && v[i]->qos <= j->qos && v[i]->qos < JOB_LATENCY &&
                        fits_elsewhere(cl, v[i], n, &o)) {
                        freed += size;
                        used += size;
                        pick[nv++] = v[i];
                    }
            if (freed >= j->gpus && (best < 0 || used < best_gpus)) {
                best = n;
                best_gpus = used;
                nbest = nv;
                for (int i = 0; i < nv; i++)
                    chosen[i] = pick[i];
            }
        }
    }
    if (best < 0)
        return false;
    evict_all(s, chosen, nbest, true);
    s->migrations += (uint64_t)nbest;
    s->last_consolidation = s->now;
    return true;
}
