/* spread.c - place each job on the emptiest node.
 *
 * Queued jobs are tried in submit order with skipping, like best-fit, but
 * the score rises with the GPUs a node would have left over: load is spread
 * across the fleet (less contention per node, at the price of
 * fragmentation). */
#include "policies.h"

static int spread_score(const struct sched_cycle *c, const struct job *j, int32_t node)
{
    int left = c->cl->nodes[node].free - j->gpus;
    return SCHED_SCORE_MIN + left * (SCHED_SCORE_MAX / CLUSTER_MAX_NODE_GPUS);
}

const struct sched_policy sched_policy_spread = {
    .name = "spread",
    .summary = "submit order with skipping; the node left with the most free GPUs",
    .first_in_bucket_wins = true,
    .score = spread_score,
};
