/* flux.c - the flagship policy: kind-aware routing over a mixed fleet,
 * best-fit packing, power-aware placement, consolidation and preemption,
 * each a switch (a parameter, docs/policies.md) that can be turned off to
 * measure what it contributes; the flux-no-* names are flux with one
 * switch off.
 *
 * Routing.  Each job ranks the GPU types it can run on (sched_fits_type):
 * training, and fine-tuning on FLUX_BIG_FINETUNE GPUs or more, by
 * throughput (hetero_values per GPU-second: the fastest first, H100/H200
 * for most training); everything else (inference, small fine-tunes, batch)
 * by throughput per dollar (hetero's per-dollar value: the cheapest type
 * for the work that fits: the RTX 4090 for most batch work; a 7B inference
 * job is worth about as much per dollar on an H100, docs/models.md).  A
 * job takes any type it can run on at once, the better rank first (a
 * ladder that made a job wait for its best type was removed: its wait was
 * 0, and the engine wakes the queue only on events, so a wait could not
 * end on time).  Off (flux-no-route): every type ranked equal.
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
 * consolidate_every_s.  Off: flux-no-consolidate.
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
/* A node is avoided this long after it failed (failover). */
#define FLUX_FAULT_AVOID ((fs_time)6 * 3600 * FS_USEC)
#define FLUX_RANK_STEP (CLUSTER_MAX_NODE_GPUS + 1)
#define FLUX_MAX_RANK ((SCHED_SCORE_MAX - SCHED_SCORE_MIN - CLUSTER_MAX_NODE_GPUS) / FLUX_RANK_STEP)

/* The parameters, in the order of param[]. */
enum { FLUX_ROUTE, FLUX_PACK, FLUX_POWER, FLUX_CONSOLIDATE, FLUX_PREEMPT, FLUX_FAILOVER, FLUX_CONSOLIDATE_EVERY,
       FLUX_NPARAMS };
static const struct sched_param flux_params[FLUX_NPARAMS + 1] = {
    {"route", "kind-aware routing: training to the fastest types, the rest to the cheapest that fit", true, 0, 1},
    {"pack", "best-fit packing within the types allowed (off: the lowest node id)", true, 0, 1},
    {"power", "no placement pushes a PSU over its usable capacity", true, 0, 1},
    {"consolidate", "migrate small jobs off a node so a larger one fits", true, 0, 1},
    {"preempt", "a service's replica evicts best-effort and standard work", true, 0, 1},
    {"failover", "a hot spare per small latency-critical service; recently failed nodes last", true, 0, 1},
    {"consolidate_every_s", "least seconds between two consolidations", false, 1, 86400},
    {NULL, NULL, false, 0, 0},
};
_Static_assert((int)FLUX_NPARAMS <= (int)SCHED_MAX_PARAMS, "room for flux's parameters");

/* Parameter k of the cycle's policy (a cycle made by hand: the default). */
static double param(const struct sched_cycle *c, int k)
{
    return c->param ? c->param[k] : 1;
}

struct flux {
    const struct job *jobs;   /* the workload, from prepare */
    size_t n;
    uint8_t *rank;            /* per job and type: rank + 1; 0 unknown */
    int ntypes;
};

static void *flux_prepare(const struct cluster *cl, const struct job *jobs, size_t n, uint64_t seed)
{
    (void)seed;
    struct flux *f = xcalloc(1, sizeof *f);
    *f = (struct flux){.jobs = jobs, .n = n, .ntypes = cl->cat->n};
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
    if (!f || !param(c, FLUX_ROUTE))
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
    return !(param(c, FLUX_POWER) && c->power_ok && j->gpus > 0 && !c->power_ok(c->power_ctx, j, c->type, node));
}

/* Failed within FLUX_FAULT_AVOID: a node just repaired fails again sooner
 * when failures bunch (Weibull shape < 1), so it is the last choice. */
static bool recently_failed(const struct sched_cycle *c, int32_t node)
{
    return c->failed_at && c->failed_at[node] >= 0 && c->now - c->failed_at[node] < FLUX_FAULT_AVOID;
}

static int flux_score(const struct sched_cycle *c, const struct job *j, int32_t node)
{
    int left = c->cl->nodes[node].free - (j->milli < GPU_MILLI ? 0 : j->gpus);
    int fit = !param(c, FLUX_PACK) ? 0 : CLUSTER_MAX_NODE_GPUS - (left > 0 ? left : 0);
    if (param(c, FLUX_FAILOVER) && recently_failed(c, node))
        fit = 0; /* below every healthy node of its rank */
    return SCHED_SCORE_MAX - CLUSTER_MAX_NODE_GPUS - rank_of(c, j) * FLUX_RANK_STEP + fit;
}

/* The fields that follow from the parameters. */
static void flux_configure(struct sched_policy *p)
{
    p->consolidates = p->param[FLUX_CONSOLIDATE] != 0;
    p->preempts = p->param[FLUX_PREEMPT] != 0;
    p->hot_spares = p->param[FLUX_FAILOVER] != 0 ? 1 : 0;
    p->consolidate_every = fs_from_seconds(p->param[FLUX_CONSOLIDATE_EVERY]);
}

/* flux with the switches given (1 on, 0 off), every other parameter at its
 * default, and the fields flux_configure derives derived alike. */
#define FLUX_SET(ident, pname, summ, r, p, w, cons, pre, fo)                                      \
    const struct sched_policy sched_policy_##ident = {                                            \
        .name = pname, .summary = summ, .filter = flux_filter, .score = flux_score,               \
        .prepare = flux_prepare, .release = flux_release, .consolidates = cons,                   \
        .preempts = pre, .preempt_class = JOB_LATENCY, .hot_spares = fo,                         \
        .consolidate_every = 300 * FS_USEC, .params = flux_params,                                \
        .param = {r, p, w, cons, pre, fo, 300}, .configure = flux_configure,                  \
    };

FLUX_SET(flux, "flux",
         "routes training to the fastest GPUs and the rest to the cheapest that fit, packs, "
         "respects PSUs, consolidates, preempts for services, fails over",
         1, 1, 1, 1, 1, 1)
FLUX_SET(flux_no_route, "flux-no-route", "flux without kind-aware routing (ablation: route false)",
         0, 1, 1, 1, 1, 1)
FLUX_SET(flux_no_pack, "flux-no-pack", "flux without best-fit packing (ablation: pack false)",
         1, 0, 1, 1, 1, 1)
FLUX_SET(flux_no_power, "flux-no-power", "flux without the PSU limit (ablation: power false)",
         1, 1, 0, 1, 1, 1)
FLUX_SET(flux_no_consolidate, "flux-no-consolidate", "flux without consolidation (ablation: consolidate false)",
         1, 1, 1, 0, 1, 1)
FLUX_SET(flux_no_preempt, "flux-no-preempt", "flux without preemption (ablation: preempt false)",
         1, 1, 1, 1, 0, 1)
FLUX_SET(flux_no_failover, "flux-no-failover",
         "flux without failover: no hot spares, recently failed nodes not avoided (ablation: failover false)",
         1, 1, 1, 1, 1, 0)
