/* gpu-packing.c - the FGD paper's GpuPacking: fill partly used GPUs first,
 * then partly used nodes, and open an idle node last.
 *
 * Scores (gpu_packing_score.go), for a job of k GPUs of d milli each:
 *   all the node's GPUs idle     max(33 - F, F), F its GPUs (8 -> 25,
 *                                4 -> 29, 2 -> 31, 1 -> 32: small idle
 *                                nodes first)
 *   the job needs u > 0 fully    max(50 - u, 33)
 *   free GPUs of a used node
 *   it fits on partly used GPUs  max(100 - r / 10, 50), r the sum over the
 *                                GPUs it takes of their free percent
 *                                (fuller GPUs score higher)
 * The GPUs it takes are the first k with room in increasing free share
 * (ties by number) - the tightest, as the GPU choice is.  A CPU-only job
 * scores 0 everywhere: the first node with room in the run's shuffled order
 * (SCHED_TIES_SHUFFLED, as for every tie). */
#include "policies.h"

static int gpu_packing_score(const struct sched_cycle *c, const struct job *j, int32_t node)
{
    const struct node *nd = &c->cl->nodes[node];
    if (j->gpus == 0)
        return SCHED_SCORE_MIN;
    if (nd->free == nd->gpus)
        return 33 - nd->gpus > nd->gpus ? 33 - nd->gpus : nd->gpus;
    /* The k GPUs with room in increasing free share, ties by number:
     * repeatedly take the smallest not yet taken. */
    const int16_t *free = &c->cl->milli[nd->gpu0];
    uint64_t taken = 0;
    int whole = 0, pct = 0;
    for (int k = 0; k < j->gpus; k++) {
        int pick = -1;
        for (int g = 0; g < nd->gpus; g++)
            if (!(taken >> g & 1) && free[g] >= j->milli && (pick < 0 || free[g] < free[pick]))
                pick = g;
        if (pick < 0)
            break;
        taken |= 1ULL << pick;
        whole += free[pick] == GPU_MILLI;
        pct += free[pick] * 100 / GPU_MILLI;
    }
    if (whole > 0)
        return 50 - whole > 33 ? 50 - whole : 33;
    return 100 - pct / 10 > 50 ? 100 - pct / 10 : 50;
}

const struct sched_policy sched_policy_gpu_packing = {
    .name = "gpu-packing",
    .summary = "FGD paper: partly used GPUs first, then used nodes, idle nodes last",
    .ties = SCHED_TIES_SHUFFLED,
    .one_node = true,
    .state_score = true,
    .score = gpu_packing_score,
};
