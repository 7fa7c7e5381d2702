/* flux.c - the flagship policy: kind-aware routing over a mixed fleet,
 * best-fit packing, power-aware placement, consolidation and preemption,
 * each a switch that can be turned off to measure what it contributes
 * (the flux-no-* variants).
 *
 * Routing.  Each job ranks the GPU types it can run on (sched_fits_type):
 * training, and fine-tuning on FLUX_BIG_FINETUNE GPUs or more, by
 * throughput (hetero_values per GPU-second: the fastest first, H100/H200
 * for most training); everything else (inference, small fine-tunes, batch)
 * by throughput per dollar (hetero's per-dollar value: the cheapest type
 * for the work that fits, the RTX 4090 where its memory holds the job).  A
 * job may take the type of rank r only once it has waited r x
 * FLUX_FALLBACK_WAIT: it goes to its best type when that has room, and
 * falls back along its ladder as its wait grows.  Latency-critical work
 * (service replicas) takes any type at once, the better rank first.  Off
 * (flux-no-route): every type at once, ranked equal.
 *
 * Packing.  Within the types allowed, the better rank wins, then the node
 * left with the fewest free GPUs (best-fit).  Off (flux-no-pack): the
 * lowest node id of the best rank.
 *
 * Power.  A node takes a job only if the job's draw (the power model's,
 * for its work on that GPU type, capped as the node is) added to what the
 * node draws now keeps its PSU load, on its healthy PSUs, at or under 1
 * (struct sched's power_ok, from the engine), so no placement pushes a
 * PSU over its usable capacity.  Off (flux-no-power): GPU count alone.
 *
 * Consolidation (sched/preempt.c).  When a job fits nowhere although its
 * type has enough free GPUs in all, small jobs are migrated (checkpoint,
 * move, reload) off one node so it fits; at most once every
 * FLUX_CONSOLIDATE_EVERY.  Off: flux-no-consolidate.
 *
 * Preemption (sched/preempt.c).  A latency-class job (an inference
 * service's replica) that cannot start while its service is short of
 * capacity evicts best-effort and standard work from one node, the fewest
 * GPUs it can.  Off: flux-no-preempt.
 *
 * Failover.  Each latency-critical service whose replica takes one or two
 * GPUs keeps one replica beyond what its autoscaler asks for (a hot
 * spare), ready for a burst or a failed replica (a new one needs its cold
 * start); and a node that failed in the last FLUX_FAULT_AVOID is the last
 * choice among its rank's nodes.  Off: flux-no-failover.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policies.h"

/* A fine-tune this large is treated like training. */
#define FLUX_BIG_FINETUNE 8
/* Seconds of waiting per step down a job's ladder of GPU types. */
#define FLUX_FALLBACK_WAIT 0
#define FLUX_CONSOLIDATE_EVERY (300 * FS_USEC)
/* A node is avoided this long after it failed (failover). */
#define FLUX_FAULT_AVOID ((fs_time)6 * 3600 * FS_USEC)
#define FLUX_RANK_STEP (CLUSTER_MAX_NODE_GPUS + 1)
#define FLUX_MAX_RANK ((SCHED_SCORE_MAX - SCHED_SCORE_MIN - CLUSTER_MAX_NODE_GPUS) / FLUX_RANK_STEP)

struct flux {
    bool route, pack, power, failover;
    const struct job *jobs;   /* the workload, from prepare */
    size_t n;
    uint8_t *rank;            /* per job and type: rank + 1; 0 unknown */
    int ntypes;
};

static struct flux *flux_new(const struct cluster *cl, const struct job *jobs, size_t n, bool route,
                             bool pack, bool power, bool failover)
{
    struct flux *f = xcalloc(1, sizeof *f);
    *f = (struct flux){.route = route, .pack = pack, .power = power, .failover = failover,
                       .jobs = jobs, .n = n, .ntypes = cl->cat->n};
    f->rank = xcalloc((n ? n : 1) * (size_t)f->ntypes, 1);
    return f;
}

static void flux_release(void *ctx)
{
    struct flux *f = ctx;
    if (f)
        free(f->rank);
    free(f);
}

static bool big(const struct job *j)
{
    return j->kind == JOB_TRAIN || (j->kind == JOB_FINETUNE && j->gpus >= FLUX_BIG_FINETUNE);
}

/* j's rank on the cycle's type: how many distinct better values. */
static int rank_now(const struct sched_cycle *c, const struct job *j)
{
    double v[GPU_MAX_TYPES], seen[GPU_MAX_TYPES];
    hetero_values(c, j, big(j) ? HETERO_PER_GPU : HETERO_PER_DOLLAR, v);
    int rank = 0;
    for (int32_t t = 0; t < c->cl->cat->n; t++) {
        bool dup = false;
        if (!(v[t] > v[c->type] * (1 + 1e-12)))
            continue;
        for (int k = 0; k < rank && !dup; k++)
            dup = seen[k] == v[t];
        if (!dup)
            seen[rank++] = v[t];
    }
    return rank < FLUX_MAX_RANK ? rank : FLUX_MAX_RANK;
}

static int rank_of(const struct sched_cycle *c, const struct job *j)
{
    struct flux *f = c->ctx;
    if (!f || !f->route)
        return 0;
    uintptr_t off = (uintptr_t)j - (uintptr_t)f->jobs;
    if (off >= f->n * sizeof *j || off % sizeof *j)
        return rank_now(c, j);
    uint8_t *r = &f->rank[off / sizeof *j * (size_t)f->ntypes + (size_t)c->type];
    if (!*r)
        *r = (uint8_t)(rank_now(c, j) + 1);
    return *r - 1;
}

static bool flux_filter(const struct sched_cycle *c, const struct job *j, int32_t node)
{
    struct flux *f = c->ctx;
    if (f && f->power && c->power_ok && j->gpus > 0 && !c->power_ok(c->power_ctx, j, c->type, node))
        return false;
    /* Latency-critical work never waits for its best type. */
    int rank = j->qos >= JOB_LATENCY ? 0 : rank_of(c, j);
    return rank == 0 || c->now - j->submit >= (fs_time)rank * FLUX_FALLBACK_WAIT * FS_USEC;
}

/* Failed within FLUX_FAULT_AVOID: a node just repaired fails again sooner
 * when failures bunch (Weibull shape < 1), so it is the last choice. */
static bool recently_failed(const struct sched_cycle *c, int32_t node)
{
    return c->failed_at && c->failed_at[node] >= 0 && c->now - c->failed_at[node] < FLUX_FAULT_AVOID;
}

static int flux_score(const struct sched_cycle *c, const struct job *j, int32_t node)
{
    struct flux *f = c->ctx;
    int left = c->cl->nodes[node].free - (j->milli < GPU_MILLI ? 0 : j->gpus);
    int fit = f && !f->pack ? 0 : CLUSTER_MAX_NODE_GPUS - (left > 0 ? left : 0);
    if (f && f->failover && recently_failed(c, node))
        fit = 0; /* below every healthy node of its rank */
    return SCHED_SCORE_MAX - CLUSTER_MAX_NODE_GPUS - rank_of(c, j) * FLUX_RANK_STEP + fit;
}

#define FLUX_VARIANT(ident, pname, summ, r, p, w, cons, pre, fo)                                  \
    static void *ident##_prepare(const struct cluster *cl, const struct job *jobs, size_t n,      \
                                 uint64_t seed)                                                  \
    {                                                                                             \
        (void)seed;                                                                               \
        return flux_new(cl, jobs, n, r, p, w, fo);                                                \
    }                                                                                             \
    const struct sched_policy sched_policy_##ident = {                                            \
        .name = pname, .summary = summ, .filter = flux_filter, .score = flux_score,               \
        .prepare = ident##_prepare, .release = flux_release, .consolidates = cons,               \
        .preempts = pre, .preempt_class = JOB_LATENCY, .hot_spares = fo ? 1 : 0,                 \
        .consolidate_every = FLUX_CONSOLIDATE_EVERY,                                              \
    };

FLUX_VARIANT(flux, "flux",
             "routes training to the fastest GPUs and the rest to the cheapest that fit, packs, "
             "respects PSUs, consolidates, preempts for services, fails over",
             true, true, true, true, true, true)
FLUX_VARIANT(flux_no_route, "flux-no-route", "flux without kind-aware routing (ablation)",
             false, true, true, true, true, true)
FLUX_VARIANT(flux_no_pack, "flux-no-pack", "flux without best-fit packing (ablation)",
             true, false, true, true, true, true)
FLUX_VARIANT(flux_no_power, "flux-no-power", "flux without the PSU limit (ablation)",
             true, true, false, true, true, true)
FLUX_VARIANT(flux_no_consolidate, "flux-no-consolidate", "flux without consolidation (ablation)",
             true, true, true, false, true, true)
FLUX_VARIANT(flux_no_preempt, "flux-no-preempt", "flux without preemption (ablation)",
             true, true, true, true, false, true)
FLUX_VARIANT(flux_no_failover, "flux-no-failover",
             "flux without failover: no hot spares, recently failed nodes not avoided (ablation)",
             true, true, true, true, true, false)
