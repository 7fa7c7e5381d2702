/* sched_util.c - helpers of tests/test_sched.c and tests/test_queue.c
 * (sched_util.h). */
#include "sched_util.h"

#include <stdlib.h>

struct gpu_catalog *su_cat;
int su_h100, su_a100, su_rtx;

int su_setup(void)
{
    struct fs_err err;
    if (gpu_catalog_load("models/data/gpus.json", &su_cat, &err))
        return 1;
    su_h100 = gpu_catalog_find(su_cat, "h100-sxm");
    su_a100 = gpu_catalog_find(su_cat, "a100-sxm-80");
    su_rtx = gpu_catalog_find(su_cat, "rtx4090");
    return su_h100 < 0 || su_a100 < 0 || su_rtx < 0;
}

int su_teardown(void)
{
    gpu_catalog_free(su_cat);
    return 0;
}

struct job su_job(int64_t id, int gpus)
{
    struct job j = {.id = id, .submit = id, .gpus = gpus, .milli = GPU_MILLI, .ref_type = (int16_t)su_a100,
                    .work = 100};
    j.gang = NULL;
    job_reset_placement(&j);
    return j;
}

void su_take(struct cluster *cl, int32_t n, int k)
{
    cluster_take(cl, n, cluster_whole_gpus(cl, n, k), GPU_MILLI, 0, 0);
}

void su_give(struct cluster *cl, int32_t n, int k)
{
    const struct node *nd = &cl->nodes[n];
    uint64_t mask = 0;
    for (int i = 0; i < nd->gpus && k > 0; i++)
        if (cl->milli[nd->gpu0 + i] == 0) {
            mask |= 1ULL << i;
            k--;
        }
    cluster_give(cl, n, mask, GPU_MILLI, 0, 0);
}

static void count_started(void *ctx, struct job *j)
{
    size_t *n = ctx;
    (void)j;
    (*n)++;
}

struct sched *su_sched(const char *name, int t, int n)
{
    struct fleet_group g = {.type = t, .nodes = n, .gpus_per_node = 8};
    struct sched *s = xcalloc(1, sizeof *s);
    sched_init(s, cluster_new(su_cat, &g, 1), sched_policy_find(name));
    return s;
}

void su_free(struct sched *s)
{
    cluster_free(s->cl);
    sched_fini(s);
    free(s);
}

size_t su_cycle(struct sched *s)
{
    size_t n = 0;
    sched_cycle(s, count_started, &n);
    return n;
}
