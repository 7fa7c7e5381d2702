/* policies.h - the shipped policies, for the registry in sched/sched.c.
 * Each lives in its own file and is reached only through its ops table.
 *
 * The replay policies (fifo, best-fit, spread) count whole free GPUs.  The
 * policies of the FGD paper (Weng et al., USENIX ATC '23) - random,
 * dotprod, gpu-packing, gpu-clustering, best-fit-share and fgd - follow the
 * authors' simulator (hkust-adsl/kubernetes-scheduler-simulator): they see
 * GPU shares and CPU and score 0..100 in integers.  Ties go to the first
 * top-scoring node in a node order shuffled once per run
 * (SCHED_TIES_SHUFFLED): the simulator names its nodes in a random
 * permutation per seed, and the published results are reproduced only with
 * this rule - uniformly random ties spread pods over many nodes and strand
 * CPU and whole nodes (see sim/fill.h).  random draws uniformly.  The
 * helpers below give them a node the way that simulator does.
 */
#ifndef FS_SCHED_POLICIES_H
#define FS_SCHED_POLICIES_H

#include "../sched.h"

extern const struct sched_policy sched_policy_fifo;
extern const struct sched_policy sched_policy_backfill;
extern const struct sched_policy sched_policy_best_fit;
extern const struct sched_policy sched_policy_spread;
extern const struct sched_policy sched_policy_random;
extern const struct sched_policy sched_policy_dotprod;
extern const struct sched_policy sched_policy_gpu_packing;
extern const struct sched_policy sched_policy_gpu_clustering;
extern const struct sched_policy sched_policy_best_fit_share;
extern const struct sched_policy sched_policy_fgd;
/* Heterogeneity-aware (Gavel-style): the GPU type with the most throughput
 * per dollar (hetero) or per watt (hetero-watt); see hetero.c. */
extern const struct sched_policy sched_policy_hetero;
extern const struct sched_policy sched_policy_hetero_watt;
extern const struct sched_policy sched_policy_flux;
extern const struct sched_policy sched_policy_flux_no_route;
extern const struct sched_policy sched_policy_flux_no_pack;
extern const struct sched_policy sched_policy_flux_no_power;
extern const struct sched_policy sched_policy_flux_no_consolidate;
extern const struct sched_policy sched_policy_flux_no_preempt;
extern const struct sched_policy sched_policy_flux_no_failover;
extern const struct sched_policy sched_policy_las;
extern const struct sched_policy sched_policy_gavel_las;
extern const struct sched_policy sched_policy_ts_fifo;
extern const struct sched_policy sched_policy_gavel_fifo;

/* What a GPU type is worth to a job: its throughput (models/perf) per GPU
 * (PER_GPU), per owned dollar an hour (PER_DOLLAR) or per watt of TDP
 * (PER_WATT). */
enum hetero_per { HETERO_PER_DOLLAR, HETERO_PER_WATT, HETERO_PER_GPU };

/* The value of every type j can run on (sched_fits_type) into v, -1 for
 * the others; see hetero.c for the fallbacks without a model or prices.
 * RET: the best value. */
double hetero_values(const struct sched_cycle *c, const struct job *j, enum hetero_per per,
                     double v[GPU_MAX_TYPES]);

/* The node scale the authors' scores normalise by (MaxSpecCpu,
 * MaxSpecGpu in pkg/type/open-gpu-share/utils/const.go): 128 cores and
 * 8 GPUs, in milli. */
#define PAPER_MAX_CPU 128000.0
#define PAPER_MAX_GPU 8000.0
#define PAPER_MAX_SCORE 100

/* Free CPU millicores of node n; 0 when the node models no CPU. */
static inline int32_t pol_cpu_free(const struct cluster *cl, int32_t n)
{
    return cl->nodes[n].cpu ? cl->nodes[n].cpu_free : 0;
}

/* CPU millicores j takes on node n; 0 when the node models no CPU. */
static inline int32_t pol_cpu_ask(const struct cluster *cl, int32_t n, const struct job *j)
{
    return cl->nodes[n].cpu ? j->cpu_milli : 0;
}

/* Free GPU milli of node n, all GPUs together. */
static inline int32_t pol_gpu_free(const struct cluster *cl, int32_t n)
{
    const struct node *nd = &cl->nodes[n];
    int32_t sum = 0;
    for (int g = 0; g < nd->gpus; g++)
        sum += cl->milli[nd->gpu0 + g];
    return sum;
}

/* GPU milli j asks for in all: 0 for a CPU-only job. */
static inline int32_t pol_gpu_ask(const struct job *j)
{
    return j->gpus > 0 ? j->gpus * j->milli : 0;
}

/* Does j share one GPU (rather than take whole ones, or none)? */
static inline bool pol_is_share(const struct job *j)
{
    return j->gpus == 1 && j->milli < GPU_MILLI;
}

#endif
