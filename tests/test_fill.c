/* test_fill.c - the FGD paper's fragmentation measure (sched/frag.h), its
 * policies (random, dotprod, gpu-packing, gpu-clustering, best-fit-share,
 * fgd) on hand-built clusters whose choices are worked out by hand, the
 * shuffled tie order, and fill mode (sim/fill.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../sched/frag.h"
#include "../sched/sched.h"
#include "../sim/fill.h"
#include "testutil.h"

static struct gpu_catalog *cat;
static int G2, T4;

static int setup(void)
{
    struct fs_err err;
    if (gpu_catalog_load("models/data/gpus.json", &cat, &err))
        return 1;
    G2 = gpu_catalog_find(cat, "g2");
    T4 = gpu_catalog_find(cat, "t4");
    return G2 < 0 || T4 < 0;
}

static int teardown(void)
{
    gpu_catalog_free(cat);
    return 0;
}

/* A pod: gpus GPUs of milli each (gpus 0: CPU only), cpu millicores. */
static struct job pod(int64_t id, int gpus, int milli, int cpu)
{
    struct job j = {.id = id, .gpus = gpus, .milli = (int16_t)(gpus ? milli : GPU_MILLI),
                    .cpu_milli = cpu, .mem_mib = 1024, .ref_type = (int16_t)G2, .work = 1};
    job_reset_placement(&j);
    return j;
}

static struct frag_class cls(int cpu, int milli, int gpus, int64_t count)
{
    return (struct frag_class){.cpu = cpu, .milli = milli, .gpus = gpus, .count = count};
}

/* ---- F_n(m) ------------------------------------------------------------- */

/* Node: GPUs with free 1000, 300, 600, 0 (idle 1900), 10 cores free. */
static void test_frag_cases(void)
{
    int16_t free[4] = {1000, 300, 600, 0};
    struct frag_node n = {.type = G2, .cpu_free = 10000, .ngpus = 4, .free = free};
    /* CPU-only task: every idle GPU is a fragment, whatever the CPU. */
    struct frag_class m = cls(2000, 0, 0, 1);
    CU_ASSERT_EQUAL(frag_class_amount(&m, &n), 1900);
    /* Fits (Q3), share 500: GPUs 0 and 2 hold it; 300 + 0 are too small. */
    m = cls(4000, 500, 1, 1);
    CU_ASSERT_EQUAL(frag_class_amount(&m, &n), 300);
    /* Share 700: only GPU 0 holds it; 300 + 600 + 0 = 900 too small. */
    m = cls(4000, 700, 1, 1);
    CU_ASSERT_EQUAL(frag_class_amount(&m, &n), 900);
    /* Lacks CPU (Q4): 20 cores > 10 free, so all 1900 idle. */
    m = cls(20000, 500, 1, 1);
    CU_ASSERT_EQUAL(frag_class_amount(&m, &n), 1900);
    /* Lacks GPU (Q2): 2 whole GPUs, only GPU 0 is fully free. */
    m = cls(1000, 1000, 2, 1);
    CU_ASSERT_EQUAL(frag_class_amount(&m, &n), 1900);
    /* One whole GPU fits: the partly used 300 + 600 are fragments. */
    m = cls(1000, 1000, 1, 1);
    CU_ASSERT_EQUAL(frag_class_amount(&m, &n), 900);
    /* Another GPU model only (NoAccess): all idle. */
    m = cls(1000, 100, 1, 1);
    m.allowed = 1ULL << T4;
    CU_ASSERT_EQUAL(frag_class_amount(&m, &n), 1900);
    m.allowed |= 1ULL << G2;
    CU_ASSERT_EQUAL(frag_class_amount(&m, &n), 0);  /* 100 fits every GPU but the empty one */
    /* Exactly the CPU left still fits. */
    m = cls(10000, 500, 1, 1);
    CU_ASSERT_EQUAL(frag_class_amount(&m, &n), 300);
    /* A node without GPUs has nothing to fragment. */
    struct frag_node none = {.type = G2, .cpu_free = 10000, .ngpus = 0, .free = free};
    CU_ASSERT_EQUAL(frag_class_amount(&m, &none), 0);
}

/* M = {3 x (cpu 1000, share 500), 1 x (cpu 1000, 1 GPU)}: p = 3/4, 1/4. */
static void test_frag_target(void)
{
    struct job jobs[] = {pod(1, 1, 500, 1000), pod(2, 1, 1000, 1000), pod(3, 1, 500, 1000),
                         pod(4, 1, 500, 1000), pod(5, 0, 0, 1000)};
    struct frag_target m;
    /* 95 % of 4 pods is 3.8: the share class (3) is not enough, the whole
     * GPU class (1) makes 4. */
    frag_target_build(&m, jobs, 4, FRAG_COVERAGE);
    CU_ASSERT_EQUAL_FATAL(m.n, 2);
    CU_ASSERT_EQUAL(m.total, 4);
    CU_ASSERT_EQUAL(m.cls[0].milli, 500);
    CU_ASSERT_EQUAL(m.cls[0].count, 3);
    CU_ASSERT_EQUAL(m.cls[1].milli, 1000);
    /* R = [500, 1000]: share fits everywhere (0); whole fits GPU 1 and the
     * 500 is a fragment: F = 1/4 x 500 = 125, scaled by total 4: 500. */
    int16_t free[2] = {500, 1000};
    struct frag_node n = {.type = G2, .cpu_free = 64000, .ngpus = 2, .free = free};
    CU_ASSERT_EQUAL(frag_node_scaled(&m, &n), 500);
    frag_target_free(&m);
    /* 50 % coverage: the top class alone (3 of 5 pods). */
    frag_target_build(&m, jobs, 5, 0.5);
    CU_ASSERT_EQUAL(m.n, 1);
    CU_ASSERT_EQUAL(m.total, 3);
    frag_target_free(&m);
    /* The CPU-only pod's class has milli 0 although the job says 1000;
     * ties in count go to the larger request first (cpu, then milli). */
    frag_target_build(&m, &jobs[4], 1, 1.0);
    CU_ASSERT_EQUAL(m.cls[0].milli, 0);
    CU_ASSERT_EQUAL(m.cls[0].gpus, 0);
    frag_target_free(&m);
    frag_target_build(&m, jobs, 0, 0.95);
    CU_ASSERT_EQUAL(m.n, 0);
    frag_target_free(&m);
}

/* ---- the policies -------------------------------------------------------- */

static struct sched *new_sched(const char *policy, const struct fleet_group *g, int ng,
                               const struct job *jobs, size_t njobs, uint64_t seed)
{
    struct sched *s = xcalloc(1, sizeof *s);
    const struct sched_policy *p = sched_policy_find(policy);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    sched_init(s, cluster_new(cat, g, ng), p);
    sched_prepare(s, jobs, njobs, seed);
    return s;
}

static void free_sched(struct sched *s)
{
    cluster_free(s->cl);
    sched_fini(s);
    free(s);
}

/* Node 0: 8 GPUs, 96 cores; node 1: 2 GPUs, 64 cores. */
static const struct fleet_group two[] = {
    {.nodes = 1, .gpus_per_node = 8, .cpu_milli = 96000, .mem_mib = 393216},
    {.nodes = 1, .gpus_per_node = 2, .cpu_milli = 64000, .mem_mib = 262144},
};

static void fleet_two(struct fleet_group g[2])
{
    memcpy(g, two, sizeof two);
    g[0].type = g[1].type = G2;
}

static void test_dotprod(void)
{
    struct fleet_group g[2];
    fleet_two(g);
    struct job j = pod(1, 1, 1000, 64000);
    struct sched *s = new_sched("dotprod", g, 2, &j, 1, 1);
    /* Pod vector (64000/128000, 1000/8000) = (0.5, 0.125).
     * Node 0: (96000/128000, 8000/8000) = (0.75, 1): dot 0.375 + 0.125 = 0.5,
     *   score trunc(100 (1 - 0.25)) = 75.
     * Node 1: (0.5, 2000/8000 = 0.25): dot 0.25 + 0.03125 = 0.28125,
     *   score trunc(100 (1 - 0.140625)) = 85: node 1 wins. */
    CU_ASSERT_EQUAL(sched_policy_find("dotprod")->score(&(struct sched_cycle){.cl = s->cl}, &j, 0), 75);
    CU_ASSERT_EQUAL(sched_policy_find("dotprod")->score(&(struct sched_cycle){.cl = s->cl}, &j, 1), 85);
    CU_ASSERT_TRUE(sched_try(s, &j));
    CU_ASSERT_EQUAL(j.node, 1);
    CU_ASSERT_EQUAL(j.gpu_mask, 1);
    free_sched(s);
}

static void test_best_fit_share(void)
{
    struct fleet_group g[2];
    fleet_two(g);
    struct job a = pod(1, 1, 500, 8000), b = pod(2, 1, 400, 8000);
    struct sched *s = new_sched("best-fit-share", g, 2, &a, 1, 1);
    /* Node 0: raw = 0.5 x 88000/128000 + 0.5 x 7500/8000 = 0.34375 + 0.46875
     *   = 0.8125, score trunc(18.75) = 18.
     * Node 1: raw = 0.5 x 56000/128000 + 0.5 x 1500/8000 = 0.21875 + 0.09375
     *   = 0.3125, score trunc(68.75) = 68: node 1, its GPU 0. */
    struct sched_cycle c = {.cl = s->cl};
    CU_ASSERT_EQUAL(s->policy->score(&c, &a, 0), 18);
    CU_ASSERT_EQUAL(s->policy->score(&c, &a, 1), 68);
    CU_ASSERT_TRUE(sched_try(s, &a));
    CU_ASSERT_EQUAL(a.node, 1);
    CU_ASSERT_EQUAL(a.gpu_mask, 1);
    /* 400 more: node 1 again (tighter still); GPU 0 (500 left) is the
     * tightest that holds it, not the idle GPU 1. */
    CU_ASSERT_TRUE(sched_try(s, &b));
    CU_ASSERT_EQUAL(b.node, 1);
    CU_ASSERT_EQUAL(b.gpu_mask, 1);
    CU_ASSERT_EQUAL(s->cl->milli[s->cl->nodes[1].gpu0], 100);
    free_sched(s);
}

static void test_gpu_packing(void)
{
    struct fleet_group g[2];
    fleet_two(g);
    struct job pre = pod(1, 1, 400, 1000), share = pod(2, 1, 500, 1000), whole = pod(3, 1, 1000, 1000);
    struct job cpu = pod(4, 0, 0, 1000);
    struct sched *s = new_sched("gpu-packing", g, 2, &share, 1, 1);
    struct sched_cycle c = {.cl = s->cl};
    /* Fresh nodes: all GPUs idle, max(33 - 8, 8) = 25 and max(33 - 2, 2) = 31:
     * the small idle node first. */
    CU_ASSERT_EQUAL(s->policy->score(&c, &pre, 0), 25);
    CU_ASSERT_EQUAL(s->policy->score(&c, &pre, 1), 31);
    cluster_take(s->cl, 0, 1, 400, 1000, 1024);  /* node 0 GPU 0: 600 left */
    /* share 500 on node 0: GPU 0 (600) is the tightest with room, free
     * 60 %, so 100 - 60 / 10 = 94; node 1 still 31. */
    CU_ASSERT_EQUAL(s->policy->score(&c, &share, 0), 94);
    CU_ASSERT_TRUE(sched_try(s, &share));
    CU_ASSERT_EQUAL(share.node, 0);
    CU_ASSERT_EQUAL(share.gpu_mask, 1);
    /* A whole GPU on used node 0 opens one idle GPU: max(50 - 1, 33) = 49,
     * more than node 1's 31; the lowest fully free GPU is GPU 1. */
    CU_ASSERT_EQUAL(s->policy->score(&c, &whole, 0), 49);
    CU_ASSERT_TRUE(sched_try(s, &whole));
    CU_ASSERT_EQUAL(whole.node, 0);
    CU_ASSERT_EQUAL(whole.gpu_mask, 2);
    /* CPU-only pods score 0 everywhere. */
    CU_ASSERT_EQUAL(s->policy->score(&c, &cpu, 0), 0);
    CU_ASSERT_EQUAL(s->policy->score(&c, &cpu, 1), 0);
    free_sched(s);
}

/* The node of the lowest rank among ids[0..n): the shuffled tie winner. */
static int32_t first_in_order(const struct sched *s, const int32_t *ids, int n)
{
    int32_t best = ids[0];
    for (int i = 1; i < n; i++)
        if (s->rank[ids[i]] < s->rank[best])
            best = ids[i];
    return best;
}

static void test_gpu_clustering(void)
{
    struct fleet_group g = {.type = G2, .nodes = 3, .gpus_per_node = 2, .cpu_milli = 64000,
                            .mem_mib = 262144};
    struct job a = pod(1, 1, 500, 1000), b = pod(2, 1, 500, 1000), w = pod(3, 1, 1000, 1000);
    struct sched *s = new_sched("gpu-clustering", &g, 1, &a, 1, 7);
    struct sched_cycle c = {.cl = s->cl, .ctx = s->ctx};
    /* Fresh 2-GPU nodes: base 25 x (8000 - 2000) / 8000 = 18, no GPU pods
     * +25 = 43 each: a three-way tie, to the first in the shuffled order. */
    CU_ASSERT_EQUAL(s->policy->score(&c, &a, 0), 43);
    CU_ASSERT_TRUE(sched_try(s, &a));
    int32_t all[] = {0, 1, 2};
    CU_ASSERT_EQUAL(a.node, first_in_order(s, all, 3));
    /* A second share: that node has 1500 free, base 25 x 6500 / 8000 = 20,
     * and only share pods: 20 + 75 = 95 beats 43. */
    CU_ASSERT_EQUAL(s->policy->score(&c, &b, a.node), 95);
    CU_ASSERT_TRUE(sched_try(s, &b));
    CU_ASSERT_EQUAL(b.node, a.node);
    /* A whole GPU: that node holds only another tag, base 25 x 7000 / 8000
     * = 21, score 21; the fresh ones 43: the first fresh one in order. */
    CU_ASSERT_EQUAL(s->policy->score(&c, &w, a.node), 21);
    CU_ASSERT_TRUE(sched_try(s, &w));
    int32_t fresh[2], k = 0;
    for (int32_t n = 0; n < 3; n++)
        if (n != a.node)
            fresh[k++] = n;
    CU_ASSERT_EQUAL(w.node, first_in_order(s, fresh, 2));
    /* Its tags are kept through on_job; after release the node is fresh. */
    sched_release(s, &w);
    CU_ASSERT_EQUAL(s->policy->score(&c, &w, fresh[0]), 43);
    free_sched(s);
}

static void test_fgd(void)
{
    /* M: 3 x share 500, 1 x whole GPU (p = 3/4, 1/4), all with 1 core. */
    struct job m[] = {pod(1, 1, 500, 1000), pod(2, 1, 500, 1000), pod(3, 1, 500, 1000),
                      pod(4, 1, 1000, 1000)};
    struct fleet_group g = {.type = G2, .nodes = 2, .gpus_per_node = 2, .cpu_milli = 64000,
                            .mem_mib = 262144};
    struct sched *s = new_sched("fgd", &g, 1, m, 4, 3);
    cluster_take(s->cl, 1, 1, 500, 0, 0);  /* node 1: R = [500, 1000] */
    struct job j = pod(5, 1, 500, 1000);
    struct sched_cycle c = {.cl = s->cl, .ctx = s->ctx};
    /* Node 0, R = [1000, 1000]: F = 0 (every class fits, no small GPU).
     *   On GPU 0 (GPU 1 is the same share): R = [500, 1000], F = 1/4 x 500
     *   = 125; score trunc(100 sigmoid(-0.125)) = trunc(46.88) = 46.
     * Node 1, R = [500, 1000]: F = 125.
     *   On GPU 0: R = [0, 1000], F = 0: trunc(100 sigmoid(0.125)) = 53.
     *   On GPU 1: R = [500, 500]: the whole-GPU class finds no GPU, so all
     *   1000 idle count: F = 250, score 46.  GPU 0 wins, node 1 wins. */
    CU_ASSERT_EQUAL(s->policy->score(&c, &j, 0), 46);
    CU_ASSERT_EQUAL(s->policy->score(&c, &j, 1), 53);
    CU_ASSERT_TRUE(sched_try(s, &j));
    CU_ASSERT_EQUAL(j.node, 1);
    CU_ASSERT_EQUAL(j.gpu_mask, 1);
    /* The cache follows the change: node 1 is now R = [0, 1000], F = 0;
     * a share there goes to GPU 1: R = [0, 500], F = 125, score 46 - the
     * same as node 0, a tie. */
    struct job k = pod(6, 1, 500, 1000);
    CU_ASSERT_EQUAL(s->policy->score(&c, &k, 1), 46);
    CU_ASSERT_EQUAL(s->policy->pick_gpus(&c, &k, 1), 2);
    free_sched(s);
}

static void test_random(void)
{
    struct fleet_group g = {.type = G2, .nodes = 4, .gpus_per_node = 2, .cpu_milli = 64000,
                            .mem_mib = 262144};
    int nodes[4] = {0}, gpus[2] = {0};
    for (uint64_t seed = 1; seed <= 400; seed++) {
        struct job j = pod(1, 1, 300, 1000);
        struct sched *s = new_sched("random", &g, 1, &j, 1, seed);
        CU_ASSERT_TRUE(sched_try(s, &j));
        nodes[j.node]++;
        gpus[j.gpu_mask == 2]++;
        free_sched(s);
    }
    /* Uniform: 100 per node, 200 per GPU expected; far from any of them
     * being starved (binomial sd about 9 and 10). */
    for (int n = 0; n < 4; n++)
        CU_ASSERT_TRUE(nodes[n] > 60 && nodes[n] < 140);
    CU_ASSERT_TRUE(gpus[0] > 150 && gpus[1] > 150);
}

/* SCHED_TIES_SHUFFLED: equal scores go to the lowest rank; the order is a
 * permutation that depends on the seed. */
static void test_shuffled_ties(void)
{
    struct fleet_group g = {.type = G2, .nodes = 64, .gpus_per_node = 8, .cpu_milli = 96000,
                            .mem_mib = 393216};
    struct job j = pod(1, 0, 0, 1000);
    struct sched *a = new_sched("gpu-packing", &g, 1, &j, 1, 1);
    struct sched *b = new_sched("gpu-packing", &g, 1, &j, 1, 2);
    int seen[64] = {0}, same = 0;
    for (int32_t n = 0; n < 64; n++) {
        seen[a->rank[n]]++;
        same += a->rank[n] == b->rank[n];
    }
    for (int32_t r = 0; r < 64; r++)
        CU_ASSERT_EQUAL(seen[r], 1);
    CU_ASSERT_TRUE(same < 16);
    /* A CPU-only pod scores 0 everywhere: the node ranked first. */
    int32_t first = 0;
    for (int32_t n = 0; n < 64; n++)
        if (a->rank[n] == 0)
            first = n;
    CU_ASSERT_TRUE(sched_try(a, &j));
    CU_ASSERT_EQUAL(j.node, first);
    free_sched(a);
    free_sched(b);
}

/* A paper policy never splits a pod over nodes (no gangs). */
static void test_one_node(void)
{
    struct fleet_group g = {.type = G2, .nodes = 4, .gpus_per_node = 2, .cpu_milli = 64000,
                            .mem_mib = 262144};
    struct job j = pod(1, 4, 1000, 1000);
    struct sched *s = new_sched("fgd", &g, 1, &j, 1, 1);
    s->pods = true;
    CU_ASSERT_FALSE(sched_try(s, &j));
    s->pods = false; /* outside fill mode: a gang of two whole nodes */
    CU_ASSERT_TRUE(sched_try(s, &j));
    CU_ASSERT_EQUAL(j.nnodes, 2);
    job_drop_gang(&j);
    free_sched(s);
}

/* ---- fill mode ------------------------------------------------------------ */

/* One 1-GPU node, two pods of 500 each: 1000 of 1000 milli arrive
 * (100 %), and a clone would bring 1500 > 1.3 x 1000, so there is none. */
static void test_fill_bins(void)
{
    struct fleet_group g = {.type = G2, .nodes = 1, .gpus_per_node = 1, .cpu_milli = 8000,
                            .mem_mib = 65536};
    struct job pods[] = {pod(1, 1, 500, 1000), pod(2, 1, 500, 1000)};
    struct fill_spec spec = {.cat = cat, .fleet = &g, .nfleet = 1, .pods = pods, .npods = 2,
                             .policy = sched_policy_find("fgd"), .seed = 42};
    struct fill_result r;
    CU_ASSERT_EQUAL_FATAL(fill_run(&spec, &r, NULL), 0);
    CU_ASSERT_EQUAL(r.capacity_milli, 1000);
    CU_ASSERT_EQUAL(r.pods, 2);
    CU_ASSERT_EQUAL(r.clones, 0);
    CU_ASSERT_EQUAL(r.placed, 2);
    CU_ASSERT_EQUAL(r.arrived_milli, 1000);
    /* Events: 50 % arrived -> 50 % allocated; 100 % -> 100 %.  Bins 49, 51,
     * 99 and 101 have no event of their own and take their neighbours'
     * mean (the authors' post-processing); the rest carry the last state. */
    CU_ASSERT_DOUBLE_EQUAL(r.bin[0].allocated_pct, 0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.bin[48].allocated_pct, 0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.bin[49].allocated_pct, 50, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.bin[50].allocated_pct, 50, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.bin[51].allocated_pct, 50, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.bin[52].allocated_pct, 50, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.bin[99].allocated_pct, 100, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.bin[100].allocated_pct, 100, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.bin[130].allocated_pct, 100, 1e-9);
    /* After the first pod the GPU has 500 left, which the only class (500)
     * can use: no fragment, ratio 0. */
    CU_ASSERT_DOUBLE_EQUAL(r.bin[50].fragmented_pct, 0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.bin[50].frag_ratio_pct, 0, 1e-9);
}

/* Two 8-GPU nodes; the pool is 10 share pods of 300 (3000 milli) and a
 * CPU-only pod.  Clones are added while the total stays within 1.3 x
 * 16000 = 20800: (20800 - 3000) / 300 = 59.3, so 59 share clones and any
 * number of CPU-only ones. */
static void test_fill_determinism(void)
{
    struct fleet_group g = {.type = G2, .nodes = 2, .gpus_per_node = 8, .cpu_milli = 96000,
                            .mem_mib = 393216};
    struct job pods[11];
    for (int i = 0; i < 10; i++)
        pods[i] = pod(i, 1, 300, 1000);
    pods[10] = pod(10, 0, 0, 500);
    struct fill_spec spec = {.cat = cat, .fleet = &g, .nfleet = 1, .pods = pods, .npods = 11,
                             .policy = sched_policy_find("fgd"), .seed = 7};
    struct fill_result r1, r2, r3;
    CU_ASSERT_EQUAL_FATAL(fill_run(&spec, &r1, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(fill_run(&spec, &r2, NULL), 0);
    CU_ASSERT_EQUAL(memcmp(&r1, &r2, sizeof r1), 0);
    CU_ASSERT_EQUAL(r1.arrived_milli, 3000 + 59 * 300);
    CU_ASSERT_TRUE(r1.clones >= 59);
    /* 1.3 x 16000 cannot all be placed: 16000 of 20700 at most. */
    CU_ASSERT_TRUE(r1.bin[130].allocated_pct <= 100);
    spec.seed = 8;
    CU_ASSERT_EQUAL_FATAL(fill_run(&spec, &r3, NULL), 0);
    CU_ASSERT_EQUAL(r3.arrived_milli, r1.arrived_milli);
    for (int x = 0; x <= FILL_MAX_PCT; x++) {
        CU_ASSERT_TRUE(r1.bin[x].allocated_pct >= 0 && r1.bin[x].allocated_pct <= 100);
        CU_ASSERT_TRUE(r1.bin[x].frag_ratio_pct >= 0 && r1.bin[x].frag_ratio_pct <= 100);
    }
    /* Bad input: no pods, or none asking for a GPU. */
    struct fs_err err = {0};
    spec.npods = 0;
    CU_ASSERT_EQUAL(fill_run(&spec, &r3, &err), FS_EDATA);
    spec.pods = &pods[10];
    spec.npods = 1;
    CU_ASSERT_EQUAL(fill_run(&spec, &r3, &err), FS_EDATA);
}

/* Python's round(x, 2) as the post-processing uses it. */
static void test_round2(void)
{
    CU_ASSERT_DOUBLE_EQUAL(fill_round2(86.174), 86.17, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(fill_round2(86.176), 86.18, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(fill_round2(100.0), 100.0, 1e-9);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"F_n(m) cases", test_frag_cases},
        {"typical-pod set M and F_n(M)", test_frag_target},
        {"dotprod", test_dotprod},
        {"best-fit-share", test_best_fit_share},
        {"gpu-packing", test_gpu_packing},
        {"gpu-clustering", test_gpu_clustering},
        {"fgd", test_fgd},
        {"random", test_random},
        {"shuffled tie order", test_shuffled_ties},
        {"one node per pod", test_one_node},
        {"fill bins", test_fill_bins},
        {"fill determinism and limits", test_fill_determinism},
        {"round to 2 decimals", test_round2},
        CU_TEST_INFO_NULL,
    };
    CU_SuiteInfo suites[] = {
        {"fill", setup, teardown, NULL, NULL, tests},
        CU_SUITE_INFO_NULL,
    };
    return tu_run("test_fill", suites);
}
