/* fleetsim/policy.h - the policy plugin ABI: a shared object that adds
 * scheduling policies to fleetsim without rebuilding it
 * (`fleetsim run --policy-lib PATH.so --policy NAME`; docs/policy-plugins.md).
 *
 * A plugin defines two symbols, with C linkage:
 *
 *   const uint32_t fleetsim_plugin_abi = FLEETSIM_POLICY_ABI;
 *   int fleetsim_plugin_init(const struct fleetsim_host *host);
 *
 * fleetsim refuses a plugin whose fleetsim_plugin_abi is not its own
 * FLEETSIM_POLICY_ABI (exit 65), then calls fleetsim_plugin_init once,
 * which registers each policy with host->register_policy and returns 0
 * (anything else: refused).  The plugin keeps host for its hooks' calls;
 * fleetsim keeps every struct fleetsim_policy registered and the strings it
 * points to, so they must be static.
 *
 * A policy is the same table of hooks the built-in ones are (sched/sched.h):
 * a placement decision runs queue_less (which queued job first), filter
 * (may this node host it?) and score (how good is this node,
 * FLEETSIM_SCORE_MIN..MAX, higher better; ties broken as `ties` says).
 * Every hook is optional.  A hook sees the simulator only through opaque
 * handles and the host's accessors, so fleetsim's own structures can change
 * without breaking a plugin.
 *
 * Stability: within one FLEETSIM_POLICY_ABI, struct fleetsim_policy and the
 * members of struct fleetsim_host never change meaning or place; new
 * accessors are only appended to struct fleetsim_host (a plugin that uses
 * one checks host->size covers it).  Anything else is a new
 * FLEETSIM_POLICY_ABI, and plugins are rebuilt against the new header.
 * Determinism is the plugin's duty: same inputs (and seed) must give the
 * same decisions, or fleetsim's outputs stop being reproducible.
 */
#ifndef FLEETSIM_POLICY_H
#define FLEETSIM_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FLEETSIM_POLICY_ABI 1

#define FLEETSIM_SCORE_MIN 0
#define FLEETSIM_SCORE_MAX 1000
/* The most GPUs a node has. */
#define FLEETSIM_NODE_MAX_GPUS 64

/* Opaque handles, valid only during the hook call that receives them. */
struct fleetsim_cluster;   /* the fleet: nodes, their GPUs and what is free */
struct fleetsim_cycle;     /* one placement decision */
struct fleetsim_job;       /* a job (or an inference service's replica) */
struct fleetsim_jobs;      /* the workload, in prepare */

/* How ties between the best-scoring nodes are broken. */
enum fleetsim_ties {
    FLEETSIM_TIES_LOWEST_ID = 0,  /* the lowest node id */
    FLEETSIM_TIES_RANDOM = 1,     /* a random one, drawn from the run's seed */
    FLEETSIM_TIES_SHUFFLED = 2    /* the first in a per-run shuffled node order */
};

struct fleetsim_policy {
    const char *name;              /* as --policy and a scenario's "policy" name it */
    const char *summary;           /* one line for messages */
    bool strict_order;             /* when the first queued job cannot start, none behind it may */
    bool first_in_bucket_wins;     /* a promise: among nodes with the same free GPUs, the
                                      lowest-id one passing filter always scores best; fleetsim
                                      then scores only those (faster, same decisions) */
    bool one_node;                 /* filter and score judge single-node placements only */
    int ties;                      /* enum fleetsim_ties */
    /* Whether a queues before b (NULL: submit time, then id). */
    bool (*queue_less)(const struct fleetsim_job *a, const struct fleetsim_job *b);
    /* May node host j now?  (NULL: any node with room.)  c's type is the
     * node's.  state: what prepare returned (NULL without prepare). */
    bool (*filter)(void *state, const struct fleetsim_cycle *c, const struct fleetsim_job *j, int32_t node);
    /* How good is node for j, FLEETSIM_SCORE_MIN..MAX (NULL: all equal). */
    int (*score)(void *state, const struct fleetsim_cycle *c, const struct fleetsim_job *j, int32_t node);
    /* Build the policy's state once per run from the fleet, the workload
     * (n jobs) and the run's seed; release frees it.  Both optional. */
    void *(*prepare)(const struct fleetsim_cluster *cl, const struct fleetsim_jobs *jobs, size_t n, uint64_t seed);
    void (*release)(void *state);
    /* Told of every start (started true) and every release or eviction,
     * after the fleet changed (optional). */
    void (*on_job)(void *state, const struct fleetsim_cluster *cl, const struct fleetsim_job *j, bool started);
};

struct fleetsim_host {
    uint32_t abi;                  /* FLEETSIM_POLICY_ABI of the fleetsim that loaded the plugin */
    uint32_t size;                 /* sizeof (struct fleetsim_host) in that fleetsim */
    /* Register p (kept, not copied: static storage).  RET: 0, or -1 when
     * the name is taken or too many policies are registered (a message
     * went to stderr). */
    int (*register_policy)(const struct fleetsim_policy *p);

    /* The decision's fleet, the GPU type being considered, and the
     * simulated time in seconds. */
    const struct fleetsim_cluster *(*cycle_cluster)(const struct fleetsim_cycle *c);
    int32_t (*cycle_type)(const struct fleetsim_cycle *c);
    double (*cycle_now_s)(const struct fleetsim_cycle *c);

    /* The fleet: nodes numbered 0..nodes-1; GPU types by catalog index. */
    int32_t (*nodes)(const struct fleetsim_cluster *cl);
    int32_t (*node_type)(const struct fleetsim_cluster *cl, int32_t node);
    int (*node_gpus)(const struct fleetsim_cluster *cl, int32_t node);
    int (*node_free)(const struct fleetsim_cluster *cl, int32_t node);      /* fully free GPUs */
    /* The free share of the node's GPU gpu, in thousandths (1000: free). */
    int (*gpu_free_milli)(const struct fleetsim_cluster *cl, int32_t node, int gpu);
    const char *(*type_name)(const struct fleetsim_cluster *cl, int32_t type); /* "h100-sxm" */

    /* A job.  milli: the share of each GPU it asks, in thousandths (1000:
     * whole GPUs; less only with gpus 1); class: 0 best effort, 1
     * standard, 2 latency-critical. */
    int64_t (*job_id)(const struct fleetsim_job *j);
    double (*job_submit_s)(const struct fleetsim_job *j);
    int (*job_gpus)(const struct fleetsim_job *j);
    int (*job_milli)(const struct fleetsim_job *j);
    int (*job_class)(const struct fleetsim_job *j);
    double (*job_work_gpu_s)(const struct fleetsim_job *j);   /* reference GPU-seconds */
    double (*job_gpu_mem_gb)(const struct fleetsim_job *j);   /* per GPU; 0: any */
    /* Job i (0..n-1) of prepare's workload. */
    const struct fleetsim_job *(*jobs_at)(const struct fleetsim_jobs *jobs, size_t i);
};

/* What a plugin defines (see the top of this file). */
extern const uint32_t fleetsim_plugin_abi;
int fleetsim_plugin_init(const struct fleetsim_host *host);

#ifdef __cplusplus
}
#endif

#endif
