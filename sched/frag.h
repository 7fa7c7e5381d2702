/* frag.h - GPU fragmentation as the FGD paper measures it (Weng et al.,
 * "Beware of Fragmentation", USENIX ATC '23, section 3, and the authors'
 * simulator, pkg/utils/frag.go).
 *
 * A node's free GPU capacity is fragmented *for a task class m* when m
 * could not use it:
 *
 *   F_n(m) = idle(n)                   m asks for no GPU (CPU only), may
 *                                      not run on n's GPU model, lacks CPU
 *                                      on n, or finds fewer than k_m GPUs
 *                                      with d_m free;
 *          = sum of R[g] over the GPUs   otherwise (m fits): only the GPUs
 *            with R[g] < d_m             too small for m are fragments.
 *
 * R[g] is GPU g's free share in milli-GPU, idle(n) = sum of R[g], d_m the
 * class's per-GPU share, k_m its GPU count.  Host memory plays no part.
 *
 * The target workload M is the set of the most popular task classes of a
 * pod list, kept in decreasing popularity until they cover a fraction
 * (95 % in the paper) of the pods, each weighted by its share p_m of the
 * kept pods; F_n(M) = sum over m of p_m F_n(m), and the cluster's
 * fragmentation is the sum over its nodes.
 *
 * Amounts are kept exact: frag_node_scaled gives total(M) x F_n(M) as an
 * integer (sum of count_m x F_n(m)), so equal states give equal values and
 * a difference of zero is exactly zero.
 *
 * The caller owns a frag_target and a frag_tracker and frees them with
 * frag_target_free and frag_tracker_free (both accept zeroed structs).
 */
#ifndef FS_SCHED_FRAG_H
#define FS_SCHED_FRAG_H

#include "cluster.h"
#include "job.h"

/* A task class: what one pod asks of a node.  Memory is not part of it. */
struct frag_class {
    int32_t cpu;       /* CPU millicores */
    int32_t milli;     /* per-GPU share, 1..1000; 0 for a CPU-only task */
    int32_t gpus;      /* GPU count; 0 for a CPU-only task */
    uint64_t allowed;  /* allowed GPU types (bit i: catalog type i), 0 = any */
    int64_t count;     /* pods of this class in the workload */
};

/* The class of job j (a CPU-only job has milli 0 whatever j->milli says). */
struct frag_class frag_class_of(const struct job *j);
/* Same request (count aside)? */
bool frag_class_same(const struct frag_class *a, const struct frag_class *b);

/* The share of the pods M covers in the paper and the authors' runs
 * (podPopularityThreshold = 95). */
#define FRAG_COVERAGE 0.95

/* The typical-pod set M. */
struct frag_target {
    struct frag_class *cls;  /* in decreasing count (ties: larger cpu, then
                                milli, gpus, allowed first) */
    size_t n;
    int64_t total;           /* pods in the kept classes: p_m = count/total */
};

/* M from jobs[0..n): classes in decreasing count, kept one by one until
 * they hold at least coverage (0 < coverage <= 1) of the jobs.  An empty
 * job list gives an empty M (every F is 0). */
void frag_target_build(struct frag_target *m, const struct job *jobs, size_t n, double coverage);
void frag_target_free(struct frag_target *m);

/* A node as F sees it: free CPU, GPU model and the free share of each GPU. */
struct frag_node {
    int32_t type;
    int32_t cpu_free;        /* INT32_MAX when the node models no CPU */
    int ngpus;
    const int16_t *free;     /* free[0..ngpus) in milli-GPU */
};

/* node n of cl as F sees it (free points into cl). */
struct frag_node frag_node_of(const struct cluster *cl, int32_t n);

/* F_n(m) in milli-GPU. */
int64_t frag_class_amount(const struct frag_class *m, const struct frag_node *nd);

/* m->total x F_n(M), exactly.  Divide by m->total for milli-GPU. */
int64_t frag_node_scaled(const struct frag_target *m, const struct frag_node *nd);

/* Cluster totals kept current one node at a time: after a node changes,
 * frag_tracker_update recomputes that node only. */
struct frag_tracker {
    const struct frag_target *m;   /* not owned; must outlive the tracker */
    int64_t *node;                 /* scaled F per node */
    int64_t sum;                   /* scaled F over the cluster */
};

void frag_tracker_init(struct frag_tracker *t, const struct frag_target *m, const struct cluster *cl);
void frag_tracker_update(struct frag_tracker *t, const struct cluster *cl, int32_t n);
void frag_tracker_free(struct frag_tracker *t);
/* The cluster's fragmentation, sum of F_n(M), in milli-GPU. */
double frag_tracker_milli(const struct frag_tracker *t);

#endif
