/* best-fit.c - place each job on the node it fills most tightly.
 *
 * Queued jobs are tried in submit order, and a job that does not fit is
 * skipped so smaller jobs behind it can use the room (greedy, as the
 * Kubernetes default scheduler does).  The score falls with the GPUs a node
 * would have left over, so whole nodes stay free for large jobs. */
#include "policies.h"

static int best_fit_score(const struct sched_cycle *c, const struct job *j, int32_t node)
{
    int left = c->cl->nodes[node].free - j->gpus;
    return SCHED_SCORE_MAX - left * (SCHED_SCORE_MAX / CLUSTER_MAX_NODE_GPUS);
}

const struct sched_policy sched_policy_best_fit = {
    .name = "best-fit",
    .summary = "submit order with skipping; the node left with the fewest free GPUs",
    .first_in_bucket_wins = true,
    .score = best_fit_score,
};
