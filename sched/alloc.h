/* alloc.h - heterogeneity-aware allocations: what share of its time each
 * job should spend on each GPU type, as Gavel computes them (Narayanan et
 * al., "Heterogeneity-Aware Cluster Scheduling Policies for Deep Learning
 * Workloads", OSDI 2020, section 4 and its artifact's policies/).
 *
 * An allocation is a matrix x[i][j] >= 0: job i should run on GPUs of type
 * j for x[i][j] of the time.  Every allocation here is feasible:
 *   sum_j x[i][j] <= 1                  (a job runs on one type at a time)
 *   sum_i scale[i] x[i][j] <= gpus[j]   (no type is over-subscribed)
 * and x[i][j] = 0 where thr[i][j] = 0 (the job cannot run there).
 *
 * Policies (enum alloc_policy):
 *
 *   ALLOC_LAS        least attained service, heterogeneity-agnostic:
 *                    maximize min_i (scale_i / w_i) sum_j x[i][j], the
 *                    smallest time share (Gavel's max_min_fairness);
 *   ALLOC_GAVEL_LAS  heterogeneity-aware: maximize
 *                    min_i (scale_i / w_i) sum_j thr[i][j] x[i][j] / eq_i,
 *                    the smallest effective throughput, each job's measured
 *                    against eq_i = sum_j thr[i][j] gpus[j] / N, its
 *                    throughput on an equal share of every type (N GPUs in
 *                    all; Gavel's max_min_fairness_perf).
 *
 * Both are linear programs (with the level t as one more variable), solved
 * with GLPK's simplex.  The agnostic LP has a whole face of optimal
 * solutions (any split of a job's time over the types is as good), and
 * which one is chosen changes the schedule, so ties are broken by a second
 * LP: among the allocations within ALLOC_LEVEL_TOL of the optimal level,
 * the one nearest (L1) to the equal split
 *   e[i][j] = gpus[j] / max(N, S)   (S = sum_i scale_i; 0 where thr = 0),
 * which spreads each job over the types in proportion to their size.  For
 * LAS with equal weights and one GPU per job this is the symmetric centre
 * of the optimal face, the point interior-point solvers (which Gavel calls
 * through cvxpy) head for; a simplex vertex would instead pin most jobs to
 * one type.  The same rule is applied to Gavel-LAS.  tests/test_alloc.c
 * checks the choice.
 *
 * The FIFO allocations (alloc_fifo) are greedy, as Gavel's are: jobs in
 * arrival order each take a whole type with room, the first type of a
 * caller-given order (agnostic) or the fastest (heterogeneity-aware).
 *
 * Nothing here allocates memory the caller must free.
 */
#ifndef FS_SCHED_ALLOC_H
#define FS_SCHED_ALLOC_H

#include <stdbool.h>
#include <stdint.h>

/* How far below the optimal level the tie-breaking LP may go (relative):
 * solver round-off, not a trade of fairness for anything. */
#define ALLOC_LEVEL_TOL 1e-7

enum alloc_policy { ALLOC_LAS, ALLOC_GAVEL_LAS };

struct alloc_problem {
    int32_t njobs, ntypes;
    const double *thr;      /* [njobs * ntypes], row-major: job i's
                               throughput on one GPU of type j, in any unit
                               of the job's own (only ratios within a row
                               matter); 0: cannot run there */
    const int32_t *scale;   /* [njobs]: GPUs the job runs on at once; NULL: 1 */
    const double *weight;   /* [njobs]: priority weight (> 0); NULL: 1 */
    const int32_t *gpus;    /* [ntypes]: GPUs of each type */
    bool vertex;            /* skip the tie-break: keep the optimal vertex
                               GLPK's simplex stops at (for measuring what
                               the tie-break changes) */
};

/* Solve policy pol for p into x ([njobs * ntypes], row-major).
 * OUT *level (may be NULL): the optimal min-level t.  A job that can run
 * nowhere gets a zero row and does not bound the level.
 * RET: 0, or FS_EINTERNAL when GLPK fails (x is then all zeros). */
int alloc_max_min(const struct alloc_problem *p, enum alloc_policy pol, double *x, double *level);

/* FIFO: job i (in index order, which is arrival order) gets x[i][j] = 1 on
 * one type j with scale_i GPUs left and thr > 0 - the first such type in
 * order[0..ntypes) when fastest is false, the one with the highest thr[i][j]
 * (ties: the earlier in order) when true - or a zero row when no type has
 * room, in which case no later job is placed either (strict order, as in
 * Gavel).  sticky (may be NULL): per job, a type it already holds (-1: none),
 * kept before anyone else is placed, as Gavel's agnostic FIFO keeps a
 * running job where it is. */
void alloc_fifo(const struct alloc_problem *p, const int32_t *order, bool fastest,
                const int32_t *sticky, double *x);

#endif
