/* test_queue.c - the sched's queue (sched/queue.h): strict order and
 * skipping, fresh-only cycles, classes that sleep and wake, and the order
 * kept through withdrawals and re-queues. */
#include <stdlib.h>
#include <string.h>

#include "../sched/queue.h"
#include "sched_util.h"
#include "testutil.h"

static bool keep_first(void *ctx, const struct job *j)
{
    *(const struct job **)ctx = j;
    return false;
}

/* The first queued job in queue order, or NULL. */
static const struct job *first_queued(struct sched *s)
{
    const struct job *j = NULL;
    sched_each_queued(s, keep_first, &j);
    return j;
}

/* 2 nodes: j1 (6) and j2 (8) fill them but 2 GPUs; j3 (4) cannot start and
 * j4 (2) could.  fifo keeps strict order; best-fit and spread skip ahead. */
static void head_of_line(const char *policy, bool j4_starts)
{
    struct sched *s = su_sched(policy, su_h100, 2);
    struct job j[4] = {su_job(1, 6), su_job(2, 8), su_job(3, 4), su_job(4, 2)};
    for (int k = 0; k < 4; k++)
        sched_submit(s, &j[k]);
    CU_ASSERT_EQUAL(su_cycle(s), j4_starts ? 3 : 2);
    CU_ASSERT_EQUAL(j[2].state, JOB_QUEUED);
    CU_ASSERT_EQUAL(j[3].state, j4_starts ? JOB_RUNNING : JOB_QUEUED);
    CU_ASSERT_EQUAL(s->nqueue, j4_starts ? 1 : 2);
    CU_ASSERT_PTR_EQUAL(first_queued(s), &j[2]);
    /* Freeing j2's node lets the blocked job start. */
    sched_release(s, &j[1]);
    CU_ASSERT_EQUAL(su_cycle(s), j4_starts ? 1 : 2);
    CU_ASSERT_EQUAL(j[2].state, JOB_RUNNING);
    CU_ASSERT_EQUAL(j[2].node, 1);
    CU_ASSERT_EQUAL(s->nqueue, 0);
    su_free(s);
}

static void test_strict_order(void)
{
    head_of_line("fifo", false);
    head_of_line("best-fit", true);
    head_of_line("spread", true);
}

/* With nothing freed, a later arrival is tried but older blocked jobs stay. */
static void test_fresh_only_cycle(void)
{
    struct sched *s = su_sched("best-fit", su_h100, 1);
    struct job j[3] = {su_job(1, 6), su_job(2, 4), su_job(3, 2)};
    sched_submit(s, &j[0]);
    sched_submit(s, &j[1]);
    CU_ASSERT_EQUAL(su_cycle(s), 1);
    sched_submit(s, &j[2]);
    CU_ASSERT_EQUAL(su_cycle(s), 1);
    CU_ASSERT_EQUAL(j[2].state, JOB_RUNNING);
    CU_ASSERT_EQUAL(j[1].state, JOB_QUEUED);
    CU_ASSERT_EQUAL(s->nqueue, 1);
    CU_ASSERT_EQUAL(s->cl->allocated, 8);
    su_free(s);
}

/* The queue by placement class (sched/queue.h): jobs of one request that
 * cannot start sleep together; a release wakes only the classes the freed
 * node could host, and a woken class starts in queue order. */
static void test_classes_wake(void)
{
    struct sched *s = su_sched("best-fit", su_h100, 2);
    struct job fill[2] = {su_job(1, 6), su_job(2, 8)}, big[2] = {su_job(3, 4), su_job(5, 4)}, small = su_job(4, 3);
    sched_submit(s, &fill[0]);
    sched_submit(s, &fill[1]);
    sched_submit(s, &big[0]);
    sched_submit(s, &small);
    sched_submit(s, &big[1]);
    CU_ASSERT_EQUAL(su_cycle(s), 2);             /* 2 GPUs left: neither class fits */
    CU_ASSERT_TRUE(squeue_asleep(s, &big[0]));
    CU_ASSERT_TRUE(squeue_asleep(s, &big[1])); /* one class, one state */
    CU_ASSERT_TRUE(squeue_asleep(s, &small));
    /* 1 more GPU on node 0 (3 free): it hosts the 3-GPU class, not the
     * 4-GPU one, which stays asleep. */
    su_give(s->cl, 0, 1);
    sched_node_freed(s, 0);
    CU_ASSERT_EQUAL(su_cycle(s), 1);
    CU_ASSERT_EQUAL(small.state, JOB_RUNNING);
    CU_ASSERT_EQUAL(small.node, 0);
    CU_ASSERT_TRUE(squeue_asleep(s, &big[0]));
    /* The 8-GPU job ends: both 4-GPU jobs start, the older first. */
    sched_release(s, &fill[1]);
    CU_ASSERT_EQUAL(su_cycle(s), 2);
    CU_ASSERT_EQUAL(big[0].state, JOB_RUNNING);
    CU_ASSERT_EQUAL(big[1].state, JOB_RUNNING);
    CU_ASSERT_EQUAL(big[0].node, 1);
    CU_ASSERT_EQUAL(s->nqueue, 0);
    su_free(s);
}

/* Collects the queue in order. */
struct queued {
    const struct job *j[512];
    size_t n;
};

static bool collect_queued(void *ctx, const struct job *j)
{
    struct queued *q = ctx;
    q->j[q->n++] = j;
    return true;
}

static int by_submit_id(const void *a, const void *b)
{
    const struct job *x = *(const struct job *const *)a, *y = *(const struct job *const *)b;
    return x->submit != y->submit ? (x->submit < y->submit ? -1 : 1) : (x->id > y->id) - (x->id < y->id);
}

/* Withdrawals leave gaps in a class that queueing again fills (queue.c):
 * through thousands of random withdrawals and re-queues over two classes,
 * the queue stays every queued job once, in (submit, id) order. */
static void test_queue_gaps(void)
{
    enum { N = 400 };
    struct sched *s = su_sched("fifo", su_h100, 1);
    struct job *j = xcalloc(N, sizeof *j);
    uint64_t st = 5;
    for (int k = 0; k < N; k++) {
        j[k] = su_job(k + 1, 1 + (int)(sched_splitmix64(&st) % 2));
        j[k].submit = (fs_time)(sched_splitmix64(&st) % 50); /* ties broken by id */
    }
    size_t bad = 0;
    for (int step = 0; step < 20000; step++) {
        struct job *x = &j[sched_splitmix64(&st) % N];
        if (x->state == JOB_QUEUED)
            sched_withdraw(s, x);
        else
            sched_submit(s, x);
        if (step % 97)
            continue;
        struct queued got = {.n = 0}, want = {.n = 0};
        sched_each_queued(s, collect_queued, &got);
        for (int k = 0; k < N; k++)
            if (j[k].state == JOB_QUEUED)
                want.j[want.n++] = &j[k];
        qsort(want.j, want.n, sizeof *want.j, by_submit_id);
        bad += got.n != want.n || s->nqueue != want.n ||
               memcmp(got.j, want.j, want.n * sizeof *want.j) != 0;
    }
    CU_ASSERT_EQUAL(bad, 0);
    free(j);
    su_free(s);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"strict order vs skipping", test_strict_order},
        {"fresh-only cycle", test_fresh_only_cycle},
        {"queue classes sleep and wake", test_classes_wake},
        {"queue order through withdrawals and re-queues", test_queue_gaps},
        CU_TEST_INFO_NULL,
    };
    CU_SuiteInfo suites[] = {
        {"queue", su_setup, su_teardown, NULL, NULL, tests},
        CU_SUITE_INFO_NULL,
    };
    return tu_run("test_queue", suites);
}
