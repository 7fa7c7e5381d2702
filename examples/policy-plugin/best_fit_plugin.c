/* best_fit_plugin.c - fleetsim's best-fit policy as a plugin: an example of
 * the policy plugin ABI (fleetsim/policy.h, docs/policy-plugins.md) that
 * makes the same decisions as the built-in best-fit, so a run under
 * plugin-best-fit writes the same jobs.csv (tests/plugin/run.sh).
 *
 * Queued jobs are tried in submit order (no queue_less), a job that does
 * not fit is skipped, and each goes to the node it fills most tightly:
 * the score falls with the GPUs the node would have left over. */
#include <fleetsim/policy.h>

const uint32_t fleetsim_plugin_abi = FLEETSIM_POLICY_ABI;

static const struct fleetsim_host *host;

static int score(void *state, const struct fleetsim_cycle *c, const struct fleetsim_job *j, int32_t node)
{
    (void)state;
    int left = host->node_free(host->cycle_cluster(c), node) - host->job_gpus(j);
    return FLEETSIM_SCORE_MAX - left * (FLEETSIM_SCORE_MAX / FLEETSIM_NODE_MAX_GPUS);
}

static const struct fleetsim_policy best_fit = {
    .name = "plugin-best-fit",
    .summary = "best-fit, from a plugin: submit order with skipping; the node left with the fewest free GPUs",
    /* Within a bucket of nodes with the same free GPUs every node scores
     * the same, so the lowest id (the tie rule) wins. */
    .first_in_bucket_wins = true,
    .ties = FLEETSIM_TIES_LOWEST_ID,
    .score = score,
};

int fleetsim_plugin_init(const struct fleetsim_host *h)
{
    host = h;
    return host->register_policy(&best_fit);
}
