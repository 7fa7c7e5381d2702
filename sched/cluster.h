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
};

/* Per-type part of the index. */
struct cluster_type {
    int32_t first_node, last_node; /* node ids of this type: [first, last] */
    int32_t max_gpus;              /* largest node of this type; 0 if absent */
    int64_t gpus;                  /* capacity */
    int64_t allocated;             /* GPUs not fully free now */
    int32_t max_cpu, max_mem;      /* largest node of this type */
    uint64_t **bucket;             /* bucket[f]: bitset over all node ids */
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

#endif
