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
 * the workload's measured throughputs where workloads.json has them, the
 * LLM model's at each type's largest batch for batch LLM inference
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
 * left with the fewest free GPUs (best-fit packing): when its favourite
 * type is full it goes down its ladder to the next best type with room,
 * and jobs behind it may start (not strict order).  A fleet's GPUs are
 * paid for whether busy or not, so a job that waits for the cheapest type
 * while a dearer one idles saves nothing; it only waits.  (An earlier rule
 * let a type stand in only when worth half the best's: on `fleetsim gen`'s
 * fleet it sent four jobs in five to the RTX 4090s, a quarter of the GPUs,
 * and left the rest idle: README, "Scheduling policies".)
 *
 * Rank and packing are one integer score: SCHED_SCORE_MAX -
 * rank x (CLUSTER_MAX_NODE_GPUS + 1) - GPUs left free, where rank counts
 * the distinct better values, so the core's "best score over every type
 * wins" picks the best type with room, then the tightest node, then the
 * lowest node id; types of equal value compete on packing alone.  Ranks
 * past HETERO_MAX_RANK (14: a 16th distinct value) share it.  A job's
 * ranks depend on its request and the models alone: they are computed
 * once per decision, not once per node.
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

/* What a job's ranks depend on (compared as bytes: it has no padding). */
struct rank_key {
    int32_t gpus, milli, cpu_milli, mem_mib, workload, ref_type;
    double gpu_mem_gb;
    uint64_t allowed;
};

/* The ranks of the last job scored: a decision scores one job on many
 * nodes.  Kept per models, so new ones (another sched) recompute. */
struct hetero_memo {
    struct rank_key key;
    const struct perf_model *perf;
    const struct cost_prices *prices;
    const struct node_catalog *nodes;
    bool valid;
    int8_t rank[GPU_MAX_TYPES];
};

static void *hetero_prepare(const struct cluster *cl, const struct job *jobs, size_t n, uint64_t seed)
{
    (void)cl, (void)jobs, (void)n, (void)seed;
    return xcalloc(1, sizeof(struct hetero_memo));
}

static void hetero_release(void *ctx)
{
    free(ctx);
}

/* Rank of each type for j: how many distinct better values there are. */
static void ranks_of(const struct sched_cycle *c, const struct job *j, enum hetero_per per,
                     int8_t rank[GPU_MAX_TYPES])
{
    double v[GPU_MAX_TYPES];
    hetero_values(c, j, per, v);
    for (int32_t u = 0; u < c->cl->cat->n; u++) {
        double seen[GPU_MAX_TYPES];
        int r = 0;
        for (int32_t t = 0; t < c->cl->cat->n; t++) {
            if (!(v[t] > v[u]))
                continue;
            bool dup = false;
            for (int k = 0; k < r && !dup; k++)
                dup = seen[k] == v[t];
            if (!dup)
                seen[r++] = v[t];
        }
        rank[u] = (int8_t)(r > HETERO_MAX_RANK ? HETERO_MAX_RANK : r);
    }
}

static int rank_on(const struct sched_cycle *c, const struct job *j, enum hetero_per per)
{
    struct hetero_memo none = {.valid = false}, *m = c->ctx ? c->ctx : &none;
    struct rank_key k = {.gpus = j->gpus, .milli = j->milli, .cpu_milli = j->cpu_milli,
                         .mem_mib = j->mem_mib, .workload = j->workload, .ref_type = j->ref_type,
                         .gpu_mem_gb = j->gpu_mem_gb, .allowed = j->allowed}; /* no padding */
    if (!m->valid || memcmp(&m->key, &k, sizeof k) != 0 || m->perf != c->perf ||
        m->prices != c->prices || m->nodes != c->nodes) {
        *m = (struct hetero_memo){.key = k, .perf = c->perf, .prices = c->prices, .nodes = c->nodes,
                                  .valid = true};
        ranks_of(c, j, per, m->rank);
    }
    return m->rank[c->type];
}

static int hetero_score_per(const struct sched_cycle *c, const struct job *j, int32_t node,
                            enum hetero_per per)
{
    int left = c->cl->nodes[node].free - j->gpus;
    if (left < 0)
        left = 0; /* a gang of whole nodes, or a share of a busy GPU */
    return SCHED_SCORE_MAX - rank_on(c, j, per) * HETERO_RANK_STEP - left;
}

static int hetero_score(const struct sched_cycle *c, const struct job *j, int32_t node)
{
    return hetero_score_per(c, j, node, HETERO_PER_DOLLAR);
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
    .score = hetero_score,
    .prepare = hetero_prepare,
    .release = hetero_release,
};

const struct sched_policy sched_policy_hetero_watt = {
    .name = "hetero-watt",
    .summary = "heterogeneity-aware: the GPU type with the most throughput per watt, best-fit within it",
    .first_in_bucket_wins = true,
    .score = hetero_watt_score,
    .prepare = hetero_prepare,
    .release = hetero_release,
};
