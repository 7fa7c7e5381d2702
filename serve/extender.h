/* extender.h - the scheduling core behind the Kubernetes scheduler-extender
 * protocol v1 (k8s.io/kube-scheduler/extender/v1): each request is answered
 * by the same policy code `fleetsim run` and `fleetsim fill` use (sched/).
 *
 * The extender keeps a cluster view in sched/'s own structures.  Nodes are
 * learnt from the node objects requests carry (nodeCacheCapable false);
 * node ids follow the node names' order, so a policy's ties go to the first
 * node by name, whatever order nodes were learnt in (with the FGD authors'
 * simulator, whose node names begin with a per-seed permutation, that is
 * its shuffled node order).  A new node rebuilds the view and the policy's
 * state.  Requests that carry only names (nodeCacheCapable true) may use
 * the nodes learnt so far.
 *
 * What each GPU holds comes from the node's GPU-share annotation (k8s.h)
 * when it has one, plus the extender's own decisions that the annotation
 * does not list yet (bindings still under way).  Kubernetes sends no CPU or
 * memory use, so those are the extender's own decisions; pods that leave
 * are not seen (nor, as in fill mode, needed).
 *
 * filter answers with exactly the chosen node (kube-scheduler then skips
 * scoring) and every other candidate in FailedNodes with the reason;
 * prioritize gives the chosen node the top score, 10, and the others 0.
 * Both decide when the pod has no decision yet; a pod asked about again
 * keeps its decision while its node is still a candidate.
 *
 * Same requests in the same order give byte-identical replies.  Not
 * thread-safe: one request at a time.  The caller owns the extender and
 * frees it with extender_free; the catalog, policy and workload outlive it.
 */
#ifndef FS_SERVE_EXTENDER_H
#define FS_SERVE_EXTENDER_H

#include "../sched/sched.h"

struct extender_options {
    const struct gpu_catalog *cat;
    const struct sched_policy *policy;
    /* The workload the policy prepares for (e.g. FGD's typical pods), or
     * NULL and 0: prepared with no workload. */
    const struct job *workload;
    size_t nworkload;
    uint64_t seed;       /* for policies that draw at random */
};

enum extender_verb { EXT_FILTER, EXT_PRIORITIZE, EXT_NVERBS };

/* What one call did (for /metrics). */
enum extender_outcome {
    EXT_PLACED,      /* a new decision: the pod has a node */
    EXT_KEPT,        /* the pod's earlier decision, answered again */
    EXT_NO_ROOM,     /* no candidate can host the pod */
    EXT_BAD_REQUEST, /* malformed request: answered 400 */
    EXT_NOUTCOMES
};

/* Counts since the start. */
struct extender_stats {
    uint64_t outcomes[EXT_NOUTCOMES];
    uint64_t rebuilds;   /* times new nodes rebuilt the view */
    int64_t nodes;       /* nodes known */
    int64_t pods;        /* pods with a decision */
};

struct extender;

struct extender *extender_new(const struct extender_options *o);
void extender_free(struct extender *x); /* NULL is fine */

/* Answer one request: body[0..len) is the JSON ExtenderArgs.
 * OUT *reply: the JSON reply (caller frees), also for errors
 * ({"Error": "..."}); *outcome.  RET: the HTTP status, 200 or 400. */
int extender_handle(struct extender *x, enum extender_verb verb, const char *body, size_t len,
                    char **reply, enum extender_outcome *outcome);

const struct extender_stats *extender_stats(const struct extender *x);
/* The last call's pod ("namespace/name", "" when unreadable) and chosen
 * node ("" when none); valid until the next call. */
const char *extender_last_pod(const struct extender *x);
const char *extender_last_node(const struct extender *x);
/* The policy's name. */
const char *extender_policy(const struct extender *x);

#endif
