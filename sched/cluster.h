/* cluster.h - the fleet's nodes and a free-capacity index.
 *
 * A node holds GPUs of one catalog type, and optionally CPU millicores and
 * host memory.  Each GPU has a free share in thousandths (1000 = fully
 * free), so jobs may share a GPU (GPU sharing, milli < 1000) or take whole
 * GPUs.  The index keeps, for every GPU type and every count f of *fully*
 * free GPUs, a bitset of the nodes of that type with exactly f, so "which nodes of type T can host k GPUs" walks the buckets
 * f >= k and finds members with find-first-set instead of scanning every
 * node.  Within a bucket nodes come out in increasing id order, so every
 * search is deterministic.
 *
 * A node is *plain* when it has its type's largest GPU count, models no CPU
 * or host memory, and has no GPU partly taken: the plain nodes of a bucket
 * are all in the same state, so a policy whose score depends only on the
 * node's state needs to look at one of them (cluster_uniform).  The index
 * may also keep each bucket in a second order of the nodes (cluster_order),
 * such as a run's shuffled tie-break order, to find the first node of a
 * bucket in that order at once.
 *
 * The caller owns the cluster and frees it with cluster_free.  The catalog
 * must outlive it.
 */
#ifndef FS_SCHED_CLUSTER_H
#define FS_SCHED_CLUSTER_H

#include <stdbool.h>

#include "../models/gpu.h"
#include "job.h"

/* Largest node the index supports. */
#define CLUSTER_MAX_NODE_GPUS 64

/* Part of a fleet: nodes identical nodes of gpus_per_node GPUs of type. */
struct fleet_group {
    int32_t type;          /* catalog index */
    int32_t nodes;
    int32_t gpus_per_node; /* 1..CLUSTER_MAX_NODE_GPUS */
    int32_t cpu_milli;     /* CPU millicores per node; 0 = not modelled */
    int32_t mem_mib;       /* host memory per node, MiB; 0 = not modelled */
};

struct node {
    int32_t type;
    int16_t gpus;
    int16_t free;          /* fully free GPUs */
    int32_t gpu0;          /* index of its first GPU in cluster.milli */
    int32_t cpu, mem;      /* capacity (0 = not modelled) */
    int32_t cpu_free, mem_free;
    int16_t partial;       /* GPUs partly taken (0 < free share < 1000) */
};

/* Per-type part of the index. */
struct cluster_type {
    int32_t first_node, last_node; /* node ids of this type: [first, last] */
    int32_t max_gpus;              /* largest node of this type; 0 if absent */
    int64_t gpus;                  /* capacity */
    int64_t allocated;             /* GPUs not fully free now */
    int32_t max_cpu, max_mem;      /* largest node of this type */
    uint64_t **bucket;             /* bucket[f]: bitset over all node ids */
    int32_t *mixed;                /* mixed[f]: nodes in bucket[f] not plain */
    int32_t *count;                /* count[f]: nodes in bucket[f] */
    /* With an order (cluster_order): bucket[f] as a bitset over ranks, and
     * which of its words are not zero. */
    uint64_t **ranked, **ranked_any;
};

struct cluster {
    const struct gpu_catalog *cat;
    int32_t nnodes;
    struct node *nodes;
    size_t nwords;                 /* words per bitset */
    struct cluster_type types[GPU_MAX_TYPES];
    int64_t gpus, allocated;       /* whole fleet: GPUs, GPUs not fully free */
    int64_t free_milli;            /* sum of every GPU's free share */
    int16_t *milli;                /* free share of each GPU, by node.gpu0 + i */
    int32_t *rank, *by_rank;       /* cluster_order's: node -> rank -> node */
};

/* Build the fleet: groups in order, node ids assigned consecutively. */
struct cluster *cluster_new(const struct gpu_catalog *cat,
                            const struct fleet_group *groups, int ngroups);
void cluster_free(struct cluster *cl);

/* Take (or give back) milli thousandths of each GPU in mask (bit i: the
 * node's GPU i), and cpu millicores and mem MiB, on node; keeps the index
 * current.  The caller guarantees the room (take) or that it was taken
 * (give). */
void cluster_take(struct cluster *cl, int32_t node, uint64_t mask, int milli, int cpu, int mem);
void cluster_give(struct cluster *cl, int32_t node, uint64_t mask, int milli, int cpu, int mem);

/* The k lowest-numbered fully free GPUs of node, as a mask (0 if fewer). */
uint64_t cluster_whole_gpus(const struct cluster *cl, int32_t node, int k);

/* For a share of milli < 1000: the node's GPU with the least free share
 * that still holds milli (ties: lowest number), or -1. */
int cluster_share_gpu(const struct cluster *cl, int32_t node, int milli);

/* Does node have the CPU and host memory a job asks for? */
bool cluster_host_fits(const struct cluster *cl, int32_t node, int cpu, int mem);

/* The first node of type with exactly free GPUs free and id > after (pass -1
 * to start), or -1 when there is none. */
int32_t cluster_next(const struct cluster *cl, int32_t type, int free, int32_t after);

/* Number of nodes of type with exactly free GPUs free. */
int32_t cluster_count(const struct cluster *cl, int32_t type, int free);

/* Are the nodes of type with exactly free GPUs free all plain (so all in
 * one state)?  True for an empty bucket. */
bool cluster_uniform(const struct cluster *cl, int32_t type, int free);

/* Keep the buckets also in the order rank gives (rank[n]: node n's place,
 * a permutation of 0..nnodes-1; copied), or, with NULL, in none. */
void cluster_order(struct cluster *cl, const int32_t *rank);

/* The node of type with exactly free GPUs free that comes first in the
 * cluster_order order, or -1 when there is none (or no order). */
int32_t cluster_first_ranked(const struct cluster *cl, int32_t type, int free);

#endif
