/* random.c - a uniformly random feasible node (the FGD paper's Random).
 *
 * Every node scores the same and ties are broken uniformly at random, so
 * the node is uniform over the nodes with room.  A shared-GPU job then
 * takes a uniformly random GPU among those with enough free share (fully
 * free ones included); whole GPUs are the lowest-numbered free ones.  The
 * GPU draws come from the policy's own stream, seeded by sched_prepare. */
#include <stdlib.h>

#include "policies.h"

#define RANDOM_SALT 0x72616e646f6d2d67ULL /* "random-g" */

static void *random_prepare(const struct cluster *cl, const struct job *jobs, size_t n,
                            uint64_t seed)
{
    (void)cl, (void)jobs, (void)n;
    uint64_t *state = xmalloc(sizeof *state);
    *state = seed ^ RANDOM_SALT;
    return state;
}

static void random_release(void *ctx)
{
    free(ctx);
}

static int random_score(const struct sched_cycle *c, const struct job *j, int32_t node)
{
    (void)c, (void)j, (void)node;
    return SCHED_SCORE_MIN;
}

/* Reservoir sampling over the GPUs with room: the k-th of them replaces
 * the pick with probability 1/k.  Without sched_prepare (no stream) the
 * first GPU with room. */
static uint64_t random_gpus(const struct sched_cycle *c, const struct job *j, int32_t node)
{
    if (!pol_is_share(j))
        return cluster_whole_gpus(c->cl, node, j->gpus);
    uint64_t *state = c->ctx;
    const struct node *nd = &c->cl->nodes[node];
    int pick = -1;
    uint64_t seen = 0;
    for (int g = 0; g < nd->gpus; g++) {
        if (c->cl->milli[nd->gpu0 + g] < j->milli)
            continue;
        seen++;
        if (pick < 0 || (state && sched_splitmix64(state) % seen == 0))
            pick = g;
    }
    return pick < 0 ? 0 : 1ULL << pick;
}

const struct sched_policy sched_policy_random = {
    .name = "random",
    .summary = "FGD paper: a uniformly random node with room, a random GPU for a share",
    .ties = SCHED_TIES_RANDOM,
    .one_node = true,
    .score = random_score,
    .pick_gpus = random_gpus,
    .prepare = random_prepare,
    .release = random_release,
};
