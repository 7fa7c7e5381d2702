/* dotprod.c - the FGD paper's DotProd: the node whose free resources line
 * up least with the job's request.
 *
 * Free CPU and free GPU milli of the node, and the job's CPU and GPU
 * request, each divided by the authors' node scale (128 cores, 8 GPUs),
 * make two vectors; the score is trunc(100 (1 - dot / 2)), so the highest
 * score is the *smallest* dot product: a node with little room left wins,
 * weighted by what the job asks for.  This is what the authors' code does
 * (dot_product_score.go, the "merge" dimension method), the opposite of
 * Tetris's max alignment.  The truncation to whole points makes many ties,
 * which go to the first tied node in the run's shuffled node order
 * (SCHED_TIES_SHUFFLED).  GPU choice: the tightest GPU for a share. */
#include "policies.h"

static int dotprod_score(const struct sched_cycle *c, const struct job *j, int32_t node)
{
    int32_t cpu = pol_cpu_free(c->cl, node), ask = pol_cpu_ask(c->cl, node, j);
    if (cpu < ask)
        return SCHED_SCORE_MIN;
    double node0 = (double)cpu / PAPER_MAX_CPU, node1 = (double)pol_gpu_free(c->cl, node) / PAPER_MAX_GPU;
    double pod0 = (double)ask / PAPER_MAX_CPU, pod1 = (double)pol_gpu_ask(j) / PAPER_MAX_GPU;
    double s = node0 * pod0 + node1 * pod1;
    s = s / 2;
    s = 1 - s;
    int score = (int)(100.0 * s);
    return score < 0 ? 0 : score;
}

const struct sched_policy sched_policy_dotprod = {
    .name = "dotprod",
    .summary = "FGD paper: smallest dot product of free CPU/GPU and the request",
    .ties = SCHED_TIES_SHUFFLED,
    .one_node = true,
    .state_score = true,
    .score = dotprod_score,
};
