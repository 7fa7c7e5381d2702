/* cluster.h - the fleet's nodes and a free-capacity index.
 *
 * A node holds GPUs of one catalog type.  The index keeps, for every GPU type
 * and every free-GPU count f, a bitset of the nodes of that type with exactly
 * f GPUs free, so "which nodes of type T can host k GPUs" walks the buckets
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

/* Largest node the index supports. */
#define CLUSTER_MAX_NODE_GPUS 64

/* Part of a fleet: nodes identical nodes of gpus_per_node GPUs of type. */
struct fleet_group {
    int32_t type;          /* catalog index */
    int32_t nodes;
    int32_t gpus_per_node; /* 1..CLUSTER_MAX_NODE_GPUS */
};

struct node {
    int32_t type;
    int16_t gpus;
    int16_t free;
};

/* Per-type part of the index. */
struct cluster_type {
    int32_t first_node, last_node; /* node ids of this type: [first, last] */
    int32_t max_gpus;              /* largest node of this type; 0 if absent */
    int64_t gpus;                  /* capacity */
    int64_t allocated;             /* GPUs allocated now */
    uint64_t **bucket;             /* bucket[f]: bitset over all node ids */
};

struct cluster {
    const struct gpu_catalog *cat;
    int32_t nnodes;
    struct node *nodes;
    size_t nwords;                 /* words per bitset */
    struct cluster_type types[GPU_MAX_TYPES];
    int64_t gpus, allocated;       /* whole fleet */
};

/* Build the fleet: groups in order, node ids assigned consecutively. */
struct cluster *cluster_new(const struct gpu_catalog *cat,
                            const struct fleet_group *groups, int ngroups);
void cluster_free(struct cluster *cl);

/* Take or give back gpus GPUs on node; keeps the index current.
 * The caller guarantees 0 < gpus <= free (take) or <= allocated (give). */
void cluster_take(struct cluster *cl, int32_t node, int gpus);
void cluster_give(struct cluster *cl, int32_t node, int gpus);

/* The first node of type with exactly free GPUs free and id > after (pass -1
 * to start), or -1 when there is none. */
int32_t cluster_next(const struct cluster *cl, int32_t type, int free, int32_t after);

/* Number of nodes of type with exactly free GPUs free. */
int32_t cluster_count(const struct cluster *cl, int32_t type, int free);

#endif
