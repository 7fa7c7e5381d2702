/* best-fit-share.c - the FGD paper's BestFit: the node left with the least
 * free CPU and GPU, GPU shares counted.
 *
 * raw = 0.5 (C - c) / 128 cores + 0.5 (G_free - G) / 8 GPUs, with C, c the
 * node's free and the job's CPU and G_free, G the node's free and the job's
 * GPU milli; score = trunc(100 (1 - raw)) (best_fit_score.go).  The authors'
 * min-max normalisation over the nodes keeps order and ties (the range is
 * at most 100 points), so it is left out.  Ties: SCHED_TIES_SHUFFLED.  GPU
 * choice: the tightest GPU for a share.
 *
 * The replay policy best-fit (best-fit.c) counts whole free GPUs and breaks
 * ties by lowest node id; this one is its counterpart for jobs that share
 * GPUs and ask for CPU, as the FGD experiments need. */
#include "policies.h"

static int best_fit_share_score(const struct sched_cycle *c, const struct job *j, int32_t node)
{
    /* The floating-point steps in the authors' order (getBestFitScore). */
    double cpu = pol_cpu_free(c->cl, node) - pol_cpu_ask(c->cl, node, j);
    double gpu = pol_gpu_free(c->cl, node) - pol_gpu_ask(j);
    double raw = 0;
    raw += cpu / PAPER_MAX_CPU * 0.5;
    raw += gpu / PAPER_MAX_GPU * 0.5;
    int score = (int)((1.0 - raw) * (double)PAPER_MAX_SCORE);
    return score < 0 ? 0 : score > PAPER_MAX_SCORE ? PAPER_MAX_SCORE : score;
}

const struct sched_policy sched_policy_best_fit_share = {
    .name = "best-fit-share",
    .summary = "FGD paper's BestFit: least free CPU and GPU share left",
    .ties = SCHED_TIES_SHUFFLED,
    .one_node = true,
    .state_score = true,
    .score = best_fit_share_score,
};
