/* sched.h - the scheduling core: a job queue, a cluster, and a policy that
 * decides which queued job goes where.  It knows nothing of the engine, the
 * clock or files; a live orchestrator could link it unchanged.
 *
 * A policy is a const table of hooks (struct sched_policy) registered by name
 * in sched_policies[].  A placement decision runs through fixed extension
 * points, in this order, at one dispatch site (place.c; queue_less in
 * queue.c):
 *
 *   queue_less  the order queued jobs are considered in (NULL: submit time,
 *               then id - FIFO);
 *   type_filter may the job use this GPU type now? asked once per type
 *               with room, before any node of it (NULL: every type);
 *   filter      may this node host the job? (NULL: any node with room);
 *   score       how good is this node, SCHED_SCORE_MIN..SCHED_SCORE_MAX,
 *               higher is better; ties are broken as the policy's ties
 *               field says (enum sched_ties): by lowest node id unless
 *               the policy asks otherwise.
 *
 * Candidates come from the cluster's free-capacity index, never a scan of
 * every node.  A policy whose best node in each free-count bucket is always
 * that bucket's first (lowest-id) node that passes the filter sets
 * first_in_bucket_wins, and the core scores only those.  A policy whose
 * filter and score depend only on the node's state (its type, GPU count,
 * each GPU's free share, free CPU and memory) and the job sets
 * state_score: where a bucket's nodes are all in one state (without GPU
 * sharing, CPU or memory, a type has at most nine: 0..8 GPUs free), the
 * core scores the one its ties would pick and skips the rest.
 *
 * A job larger than a node of a type runs as a gang of whole nodes of that
 * type (gpus must be a multiple of the node size); the gang takes the
 * lowest-id fully free nodes.
 *
 * The sched owns its queue array, not the jobs: the caller owns every job
 * and keeps it alive while it is queued or running.
 */
#ifndef FS_SCHED_SCHED_H
#define FS_SCHED_SCHED_H

#include <stdbool.h>

#include "cluster.h"
#include "job.h"

#define SCHED_SCORE_MIN 0
#define SCHED_SCORE_MAX 1000

/* The models a policy may consult (models/perf.h, models/cost.h,
 * models/node.h); the core itself never reads them. */
struct perf_model;
struct cost_prices;
struct node_catalog;

/* Scratch state for one placement decision.  Policies must not keep
 * pointers into it. */
struct sched_cycle {
    const struct cluster *cl;
    int32_t type;  /* the catalog type being considered */
    void *ctx;     /* the policy's own state (see prepare), or NULL */
    /* The sched's models (struct sched), each NULL when unknown. */
    const struct perf_model *perf;
    const struct cost_prices *prices;
    const struct node_catalog *nodes;
    fs_time now;                     /* the sched's clock (engine time) */
    /* NULL, or: would j on node (of type) keep the node's PSU load at or
     * under 1, with what already runs there? (struct sched) */
    bool (*power_ok)(void *ctx, const struct job *j, int32_t type, int32_t node);
    void *power_ctx;
    const fs_time *failed_at;        /* NULL, or per node: its last failure (-1: none) */
    const double *param;             /* the policy's parameter values (struct sched_policy) */
};

/* How a policy's score ties are broken.  The random orders come from the
 * seed given to sched_prepare; without it, ties go to the lowest id. */
enum sched_ties {
    SCHED_TIES_LOWEST_ID,  /* the lowest node id (the default) */
    SCHED_TIES_RANDOM,     /* a uniformly random one of the top-scoring
                              nodes, drawn afresh for every decision */
    SCHED_TIES_SHUFFLED,   /* the first top-scoring node in an order of
                              the nodes shuffled once per run.  The FGD
                              authors' simulator names its nodes in a
                              random permutation per seed; its published
                              results are reproduced with this rule, not
                              with uniformly random ties (tests/validate/
                              fgd.sh, sched/policies/policies.h) */
};

/* EASY backfilling's reservation for the head of the queue
 * (sched/backfill.c), made afresh in each queue scan. */
struct backfill {
    bool active;             /* a reservation holds during this scan */
    const struct job *head;  /* the job it is for */
    int32_t type;            /* the GPU type reserved */
    fs_time shadow;          /* when the head is expected to start */
    int32_t *future;         /* per node: whole GPUs free at the shadow
                                time, less what backfilled jobs keep */
    bool usable[GPU_MAX_TYPES]; /* types the head may run on */
    struct job **queued;     /* the scan's jobs, in queue order */
    size_t nqueued, queued_cap;
};

/* The allocations of the round-based policies (sched/alloc.h). */
enum sched_rounds { SCHED_ROUNDS_NONE, SCHED_ROUNDS_LAS, SCHED_ROUNDS_GAVEL_LAS, SCHED_ROUNDS_FIFO,
                    SCHED_ROUNDS_GAVEL_FIFO };

/* A policy's parameter (docs/policies.md): a scenario sets it in
 * "scheduler": {"policy": NAME, "params": {PARAM: VALUE}} (io/scenario.c).
 * A switch takes true or false, held as 1 or 0; a number, min..max. */
enum { SCHED_MAX_PARAMS = 8 };
struct sched_param {
    const char *name;
    const char *doc;     /* one line: what it does, its unit */
    bool flag;           /* a switch */
    double min, max;     /* a number's range */
};

struct sched_policy {
    const char *name;
    const char *summary;     /* one line for --help and the README */
    /* Strict order: when the first job in queue order cannot start, nothing
     * behind it may start (no skipping ahead). */
    bool strict_order;
    /* EASY backfilling (sched/backfill.c): when the first job in queue
     * order cannot start it gets a reservation, and a job behind it starts
     * only where that does not delay it. */
    bool backfill;
    bool first_in_bucket_wins;
    bool state_score;        /* see the top of this file */
    uint8_t ties;            /* enum sched_ties */
    /* The filter and score judge single-node placements only (the FGD
     * paper's policies): a job larger than a node takes the first fully
     * free whole nodes of a type, lowest ids first, unjudged. */
    bool one_node;
    /* Room for a job that cannot start (sched/preempt.c), when the engine
     * gives the sched an evict callback: preempts evicts lower-class work
     * (job.h) for a job of a higher class; consolidates moves small jobs
     * off one node so a larger one fits, at most once per
     * consolidate_every. */
    bool preempts, consolidates;
    uint8_t preempt_class;   /* jobs of this class (job.h) or higher preempt */
    fs_time consolidate_every;
    /* Replicas each latency-critical inference service keeps beyond what
     * its autoscaler asks for (sim/service_run.c), ready for a burst. */
    uint8_t hot_spares;
    /* Round-based time-sharing (sim/rounds.h): 0 for a policy that places
     * each job once; else the allocation its rounds follow (enum
     * sched_rounds), and the hooks below go unused. */
    uint8_t rounds;
    bool (*queue_less)(const struct job *a, const struct job *b);
    /* Optional: judges a whole type (c->type) at once, so a policy that
     * rules types out (hetero) does not reject their nodes one by one. */
    bool (*type_filter)(const struct sched_cycle *c, const struct job *j);
    bool (*filter)(const struct sched_cycle *c, const struct job *j, int32_t node);
    int (*score)(const struct sched_cycle *c, const struct job *j, int32_t node);
    /* Optional: which GPUs of the chosen node (bit i: GPU i); NULL: the
     * best-fitting GPU for a share, the lowest-numbered free ones for whole
     * GPUs. */
    uint64_t (*pick_gpus)(const struct sched_cycle *c, const struct job *j, int32_t node);
    /* Optional: build the policy's state from the workload it will see
     * (e.g. the distribution of GPU requests for fragmentation) and a seed
     * for its tie-breaks; freed with release.  RET: the state. */
    void *(*prepare)(const struct cluster *cl, const struct job *jobs, size_t n, uint64_t seed);
    void (*release)(void *ctx);
    /* Optional: told of every placement (started) and every release the
     * sched makes, after the cluster has changed, so a policy can keep
     * per-node state (which pods a node holds, cached scores) current. */
    void (*on_job)(void *ctx, const struct cluster *cl, const struct job *j, bool started);
    /* Parameters: their definitions (ended by a NULL name; NULL: none) and
     * values, param[k] for params[k], which filter and score read as
     * c->param.  A scenario's "params" replace values in its own copy of
     * the policy (io/scenario.c); configure, when set, then derives the
     * fields above that follow from them (flux: preempts, consolidates,
     * hot_spares).  A policy's static definition holds its defaults, with
     * those fields already derived. */
    const struct sched_param *params;
    double param[SCHED_MAX_PARAMS];
    void (*configure)(struct sched_policy *p);
};

/* NULL-terminated registry of every shipped policy. */
extern const struct sched_policy *const sched_policies[];
/* NULL-terminated: names that stand for a shipped policy with some of its
 * parameters set (flux-no-route is flux with route false), each a policy
 * of its own name and summary whose hooks are its base policy's. */
extern const struct sched_policy *const sched_policy_aliases[];
/* RET: the policy called name (a shipped one, an alias, else one a plugin
 * registered: sched/plugin.h), or NULL. */
const struct sched_policy *sched_policy_find(const char *name);
/* Names of all policies, shipped, aliases, then plugins, NULL-terminated
 * (for messages and completion). */
const char *const *sched_policy_names(size_t *n);
/* The index of parameter name in p->params, or -1. */
int sched_param_find(const struct sched_policy *p, const char *name);

struct sched {
    struct cluster *cl;                 /* not owned */
    const struct sched_policy *policy;
    /* The queue, by placement class (sched/queue.h): a cycle tries only
     * the classes that capacity given back since their last failure could
     * host, in queue order (queue_less, then FIFO). */
    struct squeue *q;
    size_t nqueue;                      /* queued jobs */
    /* Queued jobs are counted but not kept in q: set by the engine for a
     * round-based policy without an elastic pool, which places jobs itself
     * and reads no queue (a deep queue's insertions were a tenth of its
     * rounds). */
    bool unkept;
    /* Jobs queued since the last cycle.  When no capacity was given back
     * since then (freed is false), only these can have become placeable. */
    struct job **fresh;
    size_t nfresh, fresh_cap;
    bool freed;
    /* Nodes given back or changed since the last cycle: the classes
     * they could host wake. */
    int32_t *dirty;
    size_t ndirty, dirty_cap;
    uint8_t *is_dirty;                  /* per node */
    uint64_t changes;                   /* placements and releases so far */
    bool pods;        /* every job on one node, as Kubernetes pods: no gangs
                         (fill mode); set after sched_init */
    /* NULL, or a bitset over node ids (bit n of word n / 64): the only
     * nodes a placement may use, such as the candidates a live scheduler
     * offers (serve/).  Set before sched_try. */
    const uint64_t *only;
    void *ctx;        /* the policy's state, from sched_prepare */
    uint64_t tie_rng; /* stream state for SCHED_TIES_RANDOM */
    int32_t *rank;    /* node id -> place in the run's shuffled order
                         (SCHED_TIES_SHUFFLED, after sched_prepare) */
    /* Models for policies that weigh throughput and cost (hetero), passed
     * to every hook through struct sched_cycle; not owned, NULL when
     * unknown.  Set after sched_init, before the first cycle. */
    const struct perf_model *perf;
    const struct cost_prices *prices;
    const struct node_catalog *nodes;
    /* Preemption and migration (sched/preempt.c).  The engine sets evict
     * (NULL: no policy may evict) and now before each cycle; power_ok,
     * when set, answers for power-aware policies whether a placement keeps
     * a node's PSUs within their usable capacity. */
    void (*evict)(void *ctx, struct job *j, bool migrate);
    void *evict_ctx;
    fs_time now;
    bool (*power_ok)(void *ctx, const struct job *j, int32_t type, int32_t node);
    void *power_ctx;
    const fs_time *failed_at;        /* set by the engine when faults are on */
    struct job **owner;              /* per GPU (cluster order): its whole-GPU job */
    struct job **pending;            /* evicted during a scan, queued after it */
    size_t npending, pending_cap;
    bool scanning, rescan;
    fs_time last_consolidation;
    uint64_t preemptions, migrations;
    struct backfill bf;              /* policy->backfill only */
};

void sched_init(struct sched *s, struct cluster *cl, const struct sched_policy *p);
void sched_fini(struct sched *s);

/* Give the policy its view of the workload (jobs[0..n)) and seed, when it
 * has a prepare hook, and seed the tie-break stream.  Call once, before the
 * first cycle. */
void sched_prepare(struct sched *s, const struct job *jobs, size_t n, uint64_t seed);

/* Place j now if the policy finds room, without queuing it (fill mode).
 * RET: true if placed (state JOB_RUNNING). */
bool sched_try(struct sched *s, struct job *j);

/* Place queued job j on GPUs of type t now, ignoring the policy's hooks
 * (round-based time-sharing decides the type itself): the smallest count
 * of fully free GPUs that holds it, lowest node id first, or a gang of the
 * lowest-id free whole nodes.  RET: true if placed (state JOB_RUNNING, out
 * of the queue); false, changing nothing, when type t has no room for it. */
bool sched_place(struct sched *s, struct job *j, int32_t t);

/* Queue j (state becomes JOB_QUEUED). */
void sched_submit(struct sched *s, struct job *j);

/* Call fn(ctx, j) for every queued job in queue order, until it returns
 * false (none when s->unkept). */
void sched_each_queued(struct sched *s, bool (*fn)(void *ctx, const struct job *j), void *ctx);

/* Node n gained room outside the sched (a repair, a cloud instance up):
 * queued jobs it could host are tried at the next cycle. */
void sched_node_freed(struct sched *s, int32_t n);

/* Something a policy's filter reads changed on node n (its PSUs): queued
 * jobs it could host are tried at the next cycle. */
void sched_node_changed(struct sched *s, int32_t n);

/* Can j ever run on this cluster (some allowed type with enough memory and
 * a node size that fits it)?  RET: true if so. */
bool sched_fits_fleet(const struct cluster *cl, const struct job *j);

/* Can j ever run on GPUs of type t of this cluster: allowed, enough GPU
 * memory, CPU and host memory on its largest node, and either one node
 * large enough or enough whole nodes for a gang?  Linear in the nodes of
 * type t for a gang.  RET: true if so. */
bool sched_fits_type(const struct cluster *cl, const struct job *j, int32_t t);

/* Place every queued job the policy allows, now.  For each job started,
 * sets its placement, takes its GPUs, sets state JOB_RUNNING and calls
 * started(ctx, job).  RET: the number of jobs started. */
size_t sched_cycle(struct sched *s, void (*started)(void *ctx, struct job *j), void *ctx);

/* Give back a running job's GPUs (state becomes JOB_DONE). */
void sched_release(struct sched *s, struct job *j);

/* splitmix64: the next number of a small deterministic stream (state is
 * any 64-bit value, advanced in place), for tie-breaks and policies' own
 * random choices; GSL stays out of the core. */
uint64_t sched_splitmix64(uint64_t *state);

/* Stop running job j and queue it again (preemption): its GPUs go back,
 * the policy hears of it (on_job, started false), its placement is cleared
 * and it takes its place in queue order as JOB_QUEUED. */
void sched_evict(struct sched *s, struct job *j);

/* Room for j, which cannot start now, by evicting through s->evict
 * (sched/preempt.c).  The cycle throttles the attempts per placement
 * class, failed ones included.
 *
 * sched_may_preempt: may j preempt (the policy preempts, j's class and
 * kind allow it)?  sched_preempt: evict lower-class work from the node
 * where that takes the fewest GPUs.  RET: true when jobs were evicted. */
bool sched_may_preempt(const struct sched *s, const struct job *j);
bool sched_preempt(struct sched *s, const struct job *j);
/* sched_may_consolidate: may a consolidation for j help now (the policy
 * consolidates, none did in the last consolidate_every, some type j can
 * use has j's GPUs free in all)?  sched_consolidate: move small jobs off
 * one node so j fits there.  RET: true when jobs were moved. */
bool sched_may_consolidate(const struct sched *s, const struct job *j);
bool sched_consolidate(struct sched *s, const struct job *j);

/* Take queued job j out of the queue (state JOB_FUTURE): a service
 * replica its autoscaler no longer wants. */
void sched_withdraw(struct sched *s, struct job *j);

#endif
