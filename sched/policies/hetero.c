/* hetero.c - heterogeneity-aware placement: each job on the GPU type that
 * gives it the most throughput per dollar (hetero) or per watt
 * (hetero-watt), after Gavel (Narayanan et al., "Heterogeneity-Aware
 * Cluster Scheduling Policies for Deep Learning Workloads", OSDI 2020),
 * which schedules from a matrix of each job type's throughput on each GPU
 * type rather than one speed factor per GPU: a recommendation model that
 * runs twice as fast on a P100 as on a V100 should get the P100.
 *
 * The value of type t for job j is
 *   throughput(t) / cost(t)
 *     = perf_relative(w, t, ref) x perf_scaling(w, t, gpus, nodes) / cost(t),
 * the job's throughput per GPU over one GPU's cost (the job's GPU count
 * cancels: the job takes as many GPUs on every type).  perf_relative uses
 * the workload's measured throughputs where workloads.json has them
 * (models/perf.h), else the roofline.  cost(t) is
 *   hetero       the owned price of one GPU per hour: cost_gpu_month of
 *                the type's default server template (node_template_for_gpu)
 *                under COST_OWNED, over 730 h - amortized capex plus
 *                maintenance, energy excluded, the price a fleet owner
 *                pays whether the GPU is busy or not (owned is also the
 *                scenarios' default billing);
 *   hetero-watt  the GPU's TDP from the catalog.
 *
 * Placement: among the types the job can ever run on (sched_fits_type:
 * allowed mask, GPU memory, node size), the types are ranked by value.  The
 * job takes the best-ranked type with room now and, within it, the node
 * left with the fewest free GPUs (best-fit packing).  A type may stand in
 * for a better one that is full only if its value is at least
 * HETERO_FALLBACK (half) of the best type's; a job whose good types are all
 * full waits, and jobs behind it may start (not strict order).
 *
 * The types outside that band are turned away whole by the type_filter
 * hook (the set is kept per job, see struct hetero_state).  Rank and
 * packing are one integer score: SCHED_SCORE_MAX -
 * rank x (CLUSTER_MAX_NODE_GPUS + 1) - GPUs left free, where rank counts
 * the distinct better values, so the core's "best score over every type
 * wins" picks the best type with room, then the tightest node, then the
 * lowest node id; types of equal value compete on packing alone.  Ranks
 * past HETERO_MAX_RANK (14: a 16th distinct value in the band) share it.
 *
 * Degraded inputs fall back to what can still be compared: without a
 * throughput model, for a job with no GPUs, or (hetero) when some type the
 * job may use has no price, the value is the throughput alone (or, without
 * a model, equal for every type: plain best-fit across types).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/cost.h"
#include "../../models/node.h"
#include "../../models/perf.h"
#include "policies.h"

/* A type may stand in for a full better one when its value is at least
 * this share of the best type's: Gavel's own trade-off is continuous; a
 * half keeps jobs moving when the best type is busy without sending them
 * where they would take twice the resources for the same work. */
#define HETERO_FALLBACK 0.5

#define HETERO_RANK_STEP (CLUSTER_MAX_NODE_GPUS + 1)
#define HETERO_MAX_RANK ((SCHED_SCORE_MAX - SCHED_SCORE_MIN - CLUSTER_MAX_NODE_GPUS) / HETERO_RANK_STEP)


/* Owned USD per GPU-hour of type t, or -1 when unpriced. */
static double usd_per_hour(const struct sched_cycle *c, int32_t t)
{
    if (!c->prices)
        return -1;
    const struct node_template *nt = c->nodes ? node_template_for_gpu(c->nodes, t) : NULL;
    double month = cost_gpu_month(c->prices, c->nodes, nt, t, COST_OWNED, COST_ON_DEMAND);
    return month > 0 ? month / COST_MONTH_HOURS : -1;
}

/* Per-GPU throughput of j on type t, relative to its reference type. */
static double throughput(const struct sched_cycle *c, const struct job *j, int32_t t)
{
    const struct perf_model *pm = c->perf;
    int32_t size = c->cl->types[t].max_gpus, ref = j->ref_type >= 0 ? j->ref_type : pm->ref;
    int nnodes = j->gpus <= size ? 1 : j->gpus / size;
    return perf_relative(pm, j->workload, t, ref) * perf_scaling(pm, j->workload, t, j->gpus, nnodes);
}

double hetero_values(const struct sched_cycle *c, const struct job *j, enum hetero_per per,
                     double v[GPU_MAX_TYPES])
{
    const struct cluster *cl = c->cl;
    bool model = c->perf && j->gpus > 0 && j->workload >= 0 && j->workload < c->perf->n;
    bool priced = true; /* every type j may use has a cost */
    double cost[GPU_MAX_TYPES], best = -1;
    for (int32_t t = 0; t < cl->cat->n; t++) {
        v[t] = -1;
        if (!cl->types[t].max_gpus || !sched_fits_type(cl, j, t))
            continue;
        cost[t] = per == HETERO_PER_WATT ? cl->cat->types[t].tdp_w
                  : per == HETERO_PER_GPU ? 1
                                          : usd_per_hour(c, t);
        priced = priced && cost[t] > 0;
        v[t] = model ? throughput(c, j, t) : 1;
    }
    for (int32_t t = 0; t < cl->cat->n; t++) {
        if (v[t] < 0)
            continue;
        if (model && priced)
            v[t] /= cost[t];
        best = fmax(best, v[t]);
    }
    return best;
}

/* The types j may take: those it can run on with a value of at least
 * HETERO_FALLBACK of the best one's. */
static uint64_t band_of(const struct sched_cycle *c, const struct job *j, enum hetero_per per)
{
    double v[GPU_MAX_TYPES], best = hetero_values(c, j, per, v);
    uint64_t band = 0;
    for (int32_t t = 0; t < c->cl->cat->n; t++)
        if (v[t] >= 0 && v[t] >= HETERO_FALLBACK * best)
            band |= 1ULL << t;
    return band;
}

/* A job's band depends only on the job, the models and the fleet's shape,
 * so it is computed once per job of the workload given to prepare and kept:
 * a long queue is rescanned whenever GPUs are freed, and most of its jobs
 * are turned away by type. */
struct hetero_state {
    const struct job *jobs;           /* the workload, from prepare */
    size_t n;
    uint64_t *band;                   /* per job: band_of, once known[i] */
    uint8_t *known;
    /* The models the bands were computed with; new ones clear them. */
    const struct perf_model *perf;
    const struct cost_prices *prices;
    const struct node_catalog *nodes;
};

static void *hetero_prepare(const struct cluster *cl, const struct job *jobs, size_t n, uint64_t seed)
{
    (void)cl;
    (void)seed;
    struct hetero_state *st = xcalloc(1, sizeof *st);
    st->jobs = jobs;
    st->n = n;
    st->band = xcalloc(n ? n : 1, sizeof *st->band);
    st->known = xcalloc(n ? n : 1, sizeof *st->known);
    return st;
}

static void hetero_release(void *ctx)
{
    struct hetero_state *st = ctx;
    if (!st)
        return;
    free(st->band);
    free(st->known);
    free(st);
}

/* j's place in the prepared workload, or -1 for a job from elsewhere. */
static ptrdiff_t job_index(const struct hetero_state *st, const struct job *j)
{
    uintptr_t off = (uintptr_t)j - (uintptr_t)st->jobs;
    if (!st->jobs || off >= st->n * sizeof *st->jobs || off % sizeof *st->jobs)
        return -1;
    return (ptrdiff_t)(off / sizeof *st->jobs);
}

static bool hetero_type_filter_per(const struct sched_cycle *c, const struct job *j, enum hetero_per per)
{
    struct hetero_state *st = c->ctx;
    ptrdiff_t i = st ? job_index(st, j) : -1;
    if (i < 0)
        return band_of(c, j, per) >> c->type & 1;
    if (st->perf != c->perf || st->prices != c->prices || st->nodes != c->nodes) {
        memset(st->known, 0, st->n);
        st->perf = c->perf;
        st->prices = c->prices;
        st->nodes = c->nodes;
    }
    if (!st->known[i]) {
        st->band[i] = band_of(c, j, per);
        st->known[i] = 1;
    }
    return st->band[i] >> c->type & 1;
}

static int hetero_score_per(const struct sched_cycle *c, const struct job *j, int32_t node,
                            enum hetero_per per)
{
    double v[GPU_MAX_TYPES];
    hetero_values(c, j, per, v);
    /* Rank: how many distinct better values there are. */
    double seen[GPU_MAX_TYPES];
    int rank = 0;
    for (int32_t t = 0; t < c->cl->cat->n; t++) {
        if (!(v[t] > v[c->type]))
            continue;
        bool dup = false;
        for (int k = 0; k < rank && !dup; k++)
            dup = seen[k] == v[t];
        if (!dup)
            seen[rank++] = v[t];
    }
    if (rank > HETERO_MAX_RANK)
        rank = HETERO_MAX_RANK;
    int left = c->cl->nodes[node].free - j->gpus;
    if (left < 0)
        left = 0; /* a gang of whole nodes, or a share of a busy GPU */
    return SCHED_SCORE_MAX - rank * HETERO_RANK_STEP - left;
}

static bool hetero_type_filter(const struct sched_cycle *c, const struct job *j)
{
    return hetero_type_filter_per(c, j, HETERO_PER_DOLLAR);
}

static int hetero_score(const struct sched_cycle *c, const struct job *j, int32_t node)
{
    return hetero_score_per(c, j, node, HETERO_PER_DOLLAR);
}

static bool hetero_watt_type_filter(const struct sched_cycle *c, const struct job *j)
{
    return hetero_type_filter_per(c, j, HETERO_PER_WATT);
}

static int hetero_watt_score(const struct sched_cycle *c, const struct job *j, int32_t node)
{
    return hetero_score_per(c, j, node, HETERO_PER_WATT);
}

/* The score depends on the node's type and free count alone, so the first
 * node of a bucket is its best. */
const struct sched_policy sched_policy_hetero = {
    .name = "hetero",
    .summary = "heterogeneity-aware: the GPU type with the most throughput per dollar, best-fit within it",
    .first_in_bucket_wins = true,
    .type_filter = hetero_type_filter,
    .score = hetero_score,
    .prepare = hetero_prepare,
    .release = hetero_release,
};

const struct sched_policy sched_policy_hetero_watt = {
    .name = "hetero-watt",
    .summary = "heterogeneity-aware: the GPU type with the most throughput per watt, best-fit within it",
    .first_in_bucket_wins = true,
    .type_filter = hetero_watt_type_filter,
    .score = hetero_watt_score,
    .prepare = hetero_prepare,
    .release = hetero_release,
};
