/* test_alloc.c - Gavel's allocation LPs (sched/alloc) against cases solved
 * by hand, and the tie-break rule the agnostic LP needs.
 *
 * Tolerance: 1e-6 on allocations and levels - GLPK's simplex is exact up to
 * its feasibility tolerance (1e-7) and the tie-break LP may give up
 * ALLOC_LEVEL_TOL (1e-7, relative) of the level. */
#include <math.h>

#include "../sched/alloc.h"
#include "testutil.h"

#define EPS 1e-6

/* Job i's level under x: its time share (agnostic) or its throughput over
 * its equal-share throughput (aware), times scale over weight. */
static double level_of(const struct alloc_problem *p, const double *x, int i, bool aware)
{
    double n = 0, eq = 0, v = 0;
    for (int j = 0; j < p->ntypes; j++)
        n += p->gpus[j];
    for (int j = 0; j < p->ntypes; j++)
        eq += p->thr[i * p->ntypes + j] * p->gpus[j] / n;
    for (int j = 0; j < p->ntypes; j++)
        v += x[i * p->ntypes + j] * (aware ? p->thr[i * p->ntypes + j] / eq : 1);
    return v * (p->scale ? p->scale[i] : 1) / (p->weight ? p->weight[i] : 1);
}

/* Every allocation must fit: rows <= 1, columns <= GPUs, 0 where thr = 0. */
static void assert_feasible(const struct alloc_problem *p, const double *x)
{
    for (int i = 0; i < p->njobs; i++) {
        double row = 0;
        for (int j = 0; j < p->ntypes; j++) {
            CU_ASSERT(x[i * p->ntypes + j] >= 0);
            if (p->thr[i * p->ntypes + j] <= 0)
                CU_ASSERT_EQUAL(x[i * p->ntypes + j], 0);
            row += x[i * p->ntypes + j];
        }
        CU_ASSERT(row <= 1 + EPS);
    }
    for (int j = 0; j < p->ntypes; j++) {
        double col = 0;
        for (int i = 0; i < p->njobs; i++)
            col += x[i * p->ntypes + j] * (p->scale ? p->scale[i] : 1);
        CU_ASSERT(col <= p->gpus[j] + EPS);
    }
}

/* Two jobs, one GPU each of types A and B; job 0 runs 3x faster on A, job
 * 1 3x faster on B.  Equal shares: eq = (3 + 1) / 2 = 2 for both.
 * Gavel-LAS: job 0 all on A, job 1 all on B, each at 3 / 2 = 1.5 of its
 * equal-share throughput - the only optimum (any time moved loses 3:1).
 * LAS: every job can have a whole GPU, level 1; the tie-break takes the
 * equal split, half of each type for each job. */
static const double opposite_thr[] = {3, 1, 1, 3};
static const int32_t one_each[] = {1, 1};

static void test_opposite_aware(void)
{
    struct alloc_problem p = {.njobs = 2, .ntypes = 2, .thr = opposite_thr, .gpus = one_each};
    double x[4], level;
    CU_ASSERT_EQUAL_FATAL(alloc_max_min(&p, ALLOC_GAVEL_LAS, x, &level), 0);
    CU_ASSERT_DOUBLE_EQUAL(level, 1.5, EPS);
    CU_ASSERT_DOUBLE_EQUAL(x[0], 1, EPS);
    CU_ASSERT_DOUBLE_EQUAL(x[1], 0, EPS);
    CU_ASSERT_DOUBLE_EQUAL(x[2], 0, EPS);
    CU_ASSERT_DOUBLE_EQUAL(x[3], 1, EPS);
    assert_feasible(&p, x);
}

static void test_opposite_agnostic(void)
{
    struct alloc_problem p = {.njobs = 2, .ntypes = 2, .thr = opposite_thr, .gpus = one_each};
    double x[4], level;
    CU_ASSERT_EQUAL_FATAL(alloc_max_min(&p, ALLOC_LAS, x, &level), 0);
    CU_ASSERT_DOUBLE_EQUAL(level, 1, EPS);
    for (int k = 0; k < 4; k++)
        CU_ASSERT_DOUBLE_EQUAL(x[k], 0.5, EPS);
    assert_feasible(&p, &x[0]);
}

/* Contention: three jobs on one A and one B.  Jobs 0 and 1 run 4x faster
 * on A (eq = 2.5, coefficients 1.6 and 0.4), job 2 the same on both (eq 1).
 * By hand: A goes to jobs 0 and 1 (0.8 each); job 2 takes b of B and gives
 * the rest to them: 0.8 + 0.4 (1 - b) / 2 = b, so b = 5/6, the level.
 * LAS gives everyone 2/3 of a GPU, split 1/3 + 1/3 by the tie-break. */
static const double three_thr[] = {4, 1, 4, 1, 1, 1};

static void test_contention_aware(void)
{
    struct alloc_problem p = {.njobs = 3, .ntypes = 2, .thr = three_thr, .gpus = one_each};
    double x[6], level;
    CU_ASSERT_EQUAL_FATAL(alloc_max_min(&p, ALLOC_GAVEL_LAS, x, &level), 0);
    CU_ASSERT_DOUBLE_EQUAL(level, 5.0 / 6, EPS);
    for (int i = 0; i < 3; i++)
        CU_ASSERT_DOUBLE_EQUAL(level_of(&p, x, i, true), 5.0 / 6, EPS);
    CU_ASSERT_DOUBLE_EQUAL(x[4], 0, EPS);
    CU_ASSERT_DOUBLE_EQUAL(x[5], 5.0 / 6, EPS);
    CU_ASSERT_DOUBLE_EQUAL(x[0] + x[2], 1, EPS);
    assert_feasible(&p, x);
}

static void test_contention_agnostic(void)
{
    struct alloc_problem p = {.njobs = 3, .ntypes = 2, .thr = three_thr, .gpus = one_each};
    double x[6], level;
    CU_ASSERT_EQUAL_FATAL(alloc_max_min(&p, ALLOC_LAS, x, &level), 0);
    CU_ASSERT_DOUBLE_EQUAL(level, 2.0 / 3, EPS);
    for (int k = 0; k < 6; k++)
        CU_ASSERT_DOUBLE_EQUAL(x[k], 1.0 / 3, EPS);
}

/* Weights and scale factors: on one type of 2 GPUs, job 0 (1 GPU, weight
 * 1) and job 1 (2 GPUs, weight 4), coefficients 1 and 2 / 4.  At the
 * optimum the levels are equal, x0 = x1 / 2, and the GPUs are full,
 * x0 + 2 x1 = 2: x0 = 0.4, x1 = 0.8, level 0.4. */
static void test_weights_scale(void)
{
    static const double thr[] = {1, 1};
    static const int32_t scale[] = {1, 2}, gpus[] = {2};
    static const double weight[] = {1, 4};
    struct alloc_problem p = {.njobs = 2, .ntypes = 1, .thr = thr, .gpus = gpus, .scale = scale,
                              .weight = weight};
    double x[2], level;
    CU_ASSERT_EQUAL_FATAL(alloc_max_min(&p, ALLOC_LAS, x, &level), 0);
    CU_ASSERT_DOUBLE_EQUAL(x[0], 0.4, EPS);
    CU_ASSERT_DOUBLE_EQUAL(x[1], 0.8, EPS);
    CU_ASSERT_DOUBLE_EQUAL(level, 0.4, EPS);
    assert_feasible(&p, x);
}

/* A job that can run nowhere gets nothing and does not pull the level to
 * zero; an empty problem is fine. */
static void test_unrunnable(void)
{
    static const double thr[] = {1, 1, 0, 0};
    struct alloc_problem p = {.njobs = 2, .ntypes = 2, .thr = thr, .gpus = one_each};
    double x[4], level;
    CU_ASSERT_EQUAL_FATAL(alloc_max_min(&p, ALLOC_GAVEL_LAS, x, &level), 0);
    CU_ASSERT_DOUBLE_EQUAL(level, 1, EPS);
    CU_ASSERT_EQUAL(x[2], 0);
    CU_ASSERT_EQUAL(x[3], 0);
    struct alloc_problem none = {.njobs = 0, .ntypes = 2, .thr = thr, .gpus = one_each};
    CU_ASSERT_EQUAL(alloc_max_min(&none, ALLOC_LAS, x, &level), 0);
    CU_ASSERT_EQUAL(level, 0);
}

/* The tie-break is a property of the jobs, not their order: reversing the
 * jobs reverses the rows, for a problem of 20 jobs of mixed speeds on
 * 3 + 2 + 1 GPUs under both policies. */
static void test_order_stable(void)
{
    enum { M = 20, N = 3 };
    static const int32_t gpus[N] = {3, 2, 1};
    double thr[M * N], rev[M * N], x[M * N], y[M * N];
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            thr[i * N + j] = rev[(M - 1 - i) * N + j] = 1 + (double)((i * 7 + j * 3) % 5) / (1 + j);
    for (int pol = ALLOC_LAS; pol <= ALLOC_GAVEL_LAS; pol++) {
        struct alloc_problem p = {.njobs = M, .ntypes = N, .thr = thr, .gpus = gpus};
        struct alloc_problem q = {.njobs = M, .ntypes = N, .thr = rev, .gpus = gpus};
        double lp, lq;
        CU_ASSERT_EQUAL_FATAL(alloc_max_min(&p, pol, x, &lp), 0);
        CU_ASSERT_EQUAL_FATAL(alloc_max_min(&q, pol, y, &lq), 0);
        CU_ASSERT_DOUBLE_EQUAL(lp, lq, EPS);
        double worst = 0;
        for (int i = 0; i < M; i++) {
            CU_ASSERT(level_of(&p, x, i, pol == ALLOC_GAVEL_LAS) >= lp - EPS);
            if (pol == ALLOC_LAS)
                for (int j = 0; j < N; j++)
                    worst = fmax(worst, fabs(x[i * N + j] - y[(M - 1 - i) * N + j]));
        }
        /* LAS's optimum nearest the equal split is unique: the split. */
        CU_ASSERT(worst < EPS);
        assert_feasible(&p, x);
    }
}

/* FIFO: in order, the first type with room (agnostic) or the fastest
 * (aware); a job that finds no room stops the queue; sticky jobs keep
 * their type first. */
static void test_fifo(void)
{
    static const double thr[] = {1, 3, 2, 1, 5, 1, 1, 1};
    static const int32_t gpus[] = {1, 2}, order[] = {0, 1};
    struct alloc_problem p = {.njobs = 4, .ntypes = 2, .thr = thr, .gpus = gpus};
    double x[8];
    alloc_fifo(&p, order, false, NULL, x);
    /* job 0 -> A, job 1 -> B, job 2 -> B, job 3: no room */
    static const double agnostic[] = {1, 0, 0, 1, 0, 1, 0, 0};
    for (int k = 0; k < 8; k++)
        CU_ASSERT_EQUAL(x[k], agnostic[k]);
    alloc_fifo(&p, order, true, NULL, x);
    /* job 0 -> B (3 > 1), job 1 -> A (2 > 1), job 2 -> B (A full), job 3 waits */
    static const double aware[] = {0, 1, 1, 0, 0, 1, 0, 0};
    for (int k = 0; k < 8; k++)
        CU_ASSERT_EQUAL(x[k], aware[k]);
    static const int32_t sticky[] = {-1, -1, -1, 0};
    alloc_fifo(&p, order, false, sticky, x);
    /* job 3 keeps A; then job 0 -> B, job 1 -> B, job 2 finds no room */
    static const double kept[] = {0, 1, 0, 1, 0, 0, 1, 0};
    for (int k = 0; k < 8; k++)
        CU_ASSERT_EQUAL(x[k], kept[k]);
}

static CU_TestInfo tests[] = {
    {"Gavel-LAS: opposite preferences, by hand", test_opposite_aware},
    {"LAS: opposite preferences, equal split", test_opposite_agnostic},
    {"Gavel-LAS: three jobs on two GPUs, by hand", test_contention_aware},
    {"LAS: three jobs on two GPUs", test_contention_agnostic},
    {"weights and scale factors", test_weights_scale},
    {"a job that can run nowhere", test_unrunnable},
    {"ties broken the same in any job order", test_order_stable},
    {"FIFO, agnostic and aware", test_fifo},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"alloc", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};

int main(void)
{
    return tu_run("alloc", suites);
}
