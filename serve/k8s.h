/* k8s.h - the parts of Kubernetes pod and node objects (API v1, as JSON)
 * that a GPU scheduler needs, in the conventions of the Alibaba GPU-share
 * scheduler and the FGD authors' simulator (../shared/peers/README.md):
 *
 *   pod   metadata.annotations "alibabacloud.com/gpu-count" (GPUs),
 *         "alibabacloud.com/gpu-milli" (share of each GPU, 1000 = whole),
 *         "alibabacloud.com/gpu-card-model" ('|'-separated models it may
 *         use); spec.containers[].resources.requests cpu and memory,
 *         summed over the containers.
 *   node  metadata.labels "alibabacloud.com/gpu-card-model";
 *         status.allocatable "alibabacloud.com/gpu-count", cpu, memory;
 *         metadata.annotations "simon/node-gpu-share", a JSON string
 *         {"DevsBrief": {"0": {"GpuUsedMilli": N, "PodList": ["ns/name"]},
 *         ...}} with what each GPU holds now.
 *
 * GPU models are openb names ("V100M32", sim/readers.h) or catalog names
 * ("h100-sxm").  Objects are read in place (jscan.h).  Every error names
 * the JSON path of the bad field.
 */
#ifndef FS_SERVE_K8S_H
#define FS_SERVE_K8S_H

#include <stdbool.h>

#include "../sched/cluster.h"
#include "jscan.h"

#define K8S_KEY_MAX 512  /* "namespace/name": 63 + 1 + 253, with room */

struct k8s_pod {
    char key[K8S_KEY_MAX];  /* "namespace/name", the simulator's pod key */
    int32_t gpus;           /* 0: asks for no GPU */
    int32_t milli;          /* per GPU, 1..1000 (1000 when gpus is 0) */
    int32_t cpu_milli;      /* summed requests */
    int32_t mem_mib;        /* summed requests, rounded up */
    uint64_t allowed;       /* bit i: catalog type i; 0 = any */
};

/* pod (the request's "Pod" object, in s) into out.  RET: 0 or FS_EDATA
 * ("$.Pod.metadata.annotations.alibabacloud.com/gpu-milli: ..."). */
int k8s_pod_parse(const struct jscan *s, struct jspan pod, const struct gpu_catalog *cat,
                  struct k8s_pod *out, struct fs_err *err);

struct k8s_node {
    char name[K8S_KEY_MAX];
    int32_t type;           /* catalog type; -1 for a node without GPUs */
    int32_t gpus;
    int32_t cpu_milli;      /* allocatable */
    int32_t mem_mib;        /* allocatable, rounded down */
    bool shared;            /* carries the GPU-share annotation */
    int16_t used[CLUSTER_MAX_NODE_GPUS];  /* milli in use per GPU (shared) */
    /* The annotation's text, unescaped, and its scan: buffers kept from
     * one k8s_node_parse to the next on the same struct (k8s_node_fini
     * frees them). */
    char *share_text;
    size_t share_cap;
    struct jscan share;
    struct jspan share_root;
};

/* node (one of "Nodes".items, in s) into out (zeroed, or used by an
 * earlier call); path names it in messages.  A node with no GPU label or a
 * GPU count of 0 has type -1.  RET: 0 or FS_EDATA (an unknown GPU model, a
 * malformed quantity or annotation); out needs k8s_node_fini in the end. */
int k8s_node_parse(const struct jscan *s, struct jspan node, const char *path,
                   const struct gpu_catalog *cat, struct k8s_node *out, struct fs_err *err);

/* Does n's GPU-share annotation list the pod called key on any GPU? */
bool k8s_node_holds(const struct k8s_node *n, const char *key);

void k8s_node_fini(struct k8s_node *n);

#endif
