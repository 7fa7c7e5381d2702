/* test_sched.c - the cluster index, the queue and each policy's placements. */
#include <stdlib.h>
#include <string.h>

#include "../sched/queue.h"
#include "../sched/sched.h"
#include "sched_util.h"
#include "testutil.h"

static void test_registry(void)
{
    CU_ASSERT_PTR_NOT_NULL(sched_policy_find("fifo"));
    CU_ASSERT_PTR_NOT_NULL(sched_policy_find("best-fit"));
    CU_ASSERT_PTR_NOT_NULL(sched_policy_find("spread"));
    CU_ASSERT_PTR_NULL(sched_policy_find("fiffo"));
    static const char *const want[] = {
        "fifo", "backfill", "best-fit", "spread", "random", "dotprod", "gpu-packing", "gpu-clustering",
        "best-fit-share", "fgd", "hetero", "hetero-watt", "flux", "las", "gavel-las", "ts-fifo", "gavel-fifo",
        /* the aliases */
        "flux-no-route", "flux-no-pack", "flux-no-power", "flux-no-consolidate", "flux-no-preempt",
        "flux-no-failover"};
    size_t n, nreg = 0;
    while (sched_policies[nreg])
        nreg++;
    const char *const *names = sched_policy_names(&n);
    CU_ASSERT_EQUAL_FATAL(n, sizeof want / sizeof *want);
    for (size_t i = 0; i < n; i++) {
        CU_ASSERT_STRING_EQUAL(names[i], want[i]);
        CU_ASSERT_PTR_EQUAL(sched_policy_find(want[i]), i < nreg ? sched_policies[i] : sched_policy_aliases[i - nreg]);
    }
    CU_ASSERT_PTR_NULL(names[n]);
}

/* Each alias is its base policy's hooks with a parameter set: flux-no-X
 * is flux with X false and every other value flux's, and the fields that
 * follow from the values are what configure derives from them. */
static void test_aliases_are_parameter_sets(void)
{
    const struct sched_policy *flux = sched_policy_find("flux");
    CU_ASSERT_PTR_NOT_NULL_FATAL(flux);
    CU_ASSERT_PTR_NOT_NULL_FATAL(flux->params);
    for (size_t i = 0; sched_policy_aliases[i]; i++) {
        const struct sched_policy *a = sched_policy_aliases[i];
        CU_ASSERT_EQUAL_FATAL(strncmp(a->name, "flux-no-", 8), 0);
        int off = sched_param_find(flux, a->name + 8);
        CU_ASSERT_FATAL(off >= 0);
        CU_ASSERT(flux->params[off].flag);
        CU_ASSERT(a->filter == flux->filter && a->score == flux->score && a->prepare == flux->prepare);
        CU_ASSERT_PTR_EQUAL(a->params, flux->params);
        for (int k = 0; flux->params[k].name; k++)
            CU_ASSERT_EQUAL(a->param[k], k == off ? 0 : flux->param[k]);
        struct sched_policy derived = *a;
        derived.configure(&derived);
        CU_ASSERT_EQUAL(derived.preempts, a->preempts);
        CU_ASSERT_EQUAL(derived.consolidates, a->consolidates);
        CU_ASSERT_EQUAL(derived.hot_spares, a->hot_spares);
        CU_ASSERT_EQUAL(derived.consolidate_every, a->consolidate_every);
    }
    struct sched_policy derived = *flux;
    derived.configure(&derived);
    CU_ASSERT(derived.preempts && derived.consolidates && derived.hot_spares == 1);
    CU_ASSERT_EQUAL(derived.consolidate_every, flux->consolidate_every);
    CU_ASSERT_EQUAL(sched_param_find(flux, "no-such"), -1);
    CU_ASSERT_EQUAL(sched_param_find(sched_policy_find("fifo"), "route"), -1);
}

/* Random take/give against a brute-force view of the nodes. */
static void test_index_matches_scan(void)
{
    struct fleet_group g[] = {{su_h100, 30, 8, 0, 0}, {su_a100, 41, 4, 0, 0}, {su_h100, 9, 2, 0, 0}, {su_rtx, 50, 8, 0, 0}};
    struct cluster *cl = cluster_new(su_cat, g, 4);
    CU_ASSERT_EQUAL(cl->nnodes, 130);
    CU_ASSERT_EQUAL(cl->gpus, 30 * 8 + 41 * 4 + 9 * 2 + 50 * 8);
    unsigned x = 12345;
    for (int op = 0; op < 4000; op++) {
        x = x * 1103515245u + 12345u;
        int32_t n = (int32_t)((x >> 8) % 130);
        struct node *nd = &cl->nodes[n];
        int k = 1 + (int)((x >> 20) % 4);
        if ((x >> 4) & 1) {
            if (k <= nd->free)
                su_take(cl, n, k);
        } else if (k <= nd->gpus - nd->free) {
            su_give(cl, n, k);
        }
        int32_t t = cl->nodes[(x >> 12) % 130].type;
        int f = (int)((x >> 24) % 9);
        int32_t want = -1, count = 0;
        int64_t alloc = 0;
        for (int32_t i = 0; i < cl->nnodes; i++) {
            if (cl->nodes[i].type == t && cl->nodes[i].free == f) {
                if (want < 0)
                    want = i;
                count++;
            }
            if (cl->nodes[i].type == t)
                alloc += cl->nodes[i].gpus - cl->nodes[i].free;
        }
        CU_ASSERT_EQUAL_FATAL(cluster_next(cl, t, f, -1), want);
        CU_ASSERT_EQUAL_FATAL(cluster_count(cl, t, f), count);
        CU_ASSERT_EQUAL_FATAL(cl->types[t].allocated, alloc);
    }
    cluster_free(cl);
}

/* Plainness and the ranked order against a brute-force view, under whole
 * GPUs and shares taken and given back at random. */
static void test_index_uniform_ranked(void)
{
    struct fleet_group g[] = {{su_h100, 70, 8, 0, 0}, {su_a100, 41, 4, 0, 0}, {su_a100, 9, 8, 0, 0},
                              {su_rtx, 20, 8, 64000, 0}};
    struct cluster *cl = cluster_new(su_cat, g, 4);
    int32_t rank[140];
    uint64_t st = 7;
    for (int32_t i = 0; i < 140; i++)
        rank[i] = i;
    for (int32_t i = 139; i > 0; i--) {
        int32_t k = (int32_t)(sched_splitmix64(&st) % (uint64_t)(i + 1)), tmp = rank[i];
        rank[i] = rank[k];
        rank[k] = tmp;
    }
    cluster_order(cl, rank);
    int uniform = 0, mixed = 0;
    for (int op = 0; op < 6000; op++) {
        uint64_t x = sched_splitmix64(&st);
        int32_t n = (int32_t)(x % 140);
        const struct node *nd = &cl->nodes[n];
        int g0 = (int)((x >> 12) % (uint64_t)nd->gpus), milli = 100 * (1 + (int)((x >> 20) % 10));
        int16_t have = cl->milli[nd->gpu0 + g0];
        if ((x >> 8) & 1) {
            if (have >= milli)
                cluster_take(cl, n, 1ULL << g0, milli, 0, 0);
        } else if (GPU_MILLI - have >= milli) {
            cluster_give(cl, n, 1ULL << g0, milli, 0, 0);
        }
        int32_t t = cl->nodes[(x >> 32) % 140].type;
        int f = (int)((x >> 40) % 9);
        bool all_plain = true;
        int32_t first = -1;
        for (int32_t i = 0; i < cl->nnodes; i++) {
            const struct node *m = &cl->nodes[i];
            if (m->type != t || m->free != f)
                continue;
            bool plain = m->gpus == cl->types[t].max_gpus && !m->cpu && !m->mem;
            for (int k = 0; k < m->gpus; k++)
                plain &= cl->milli[m->gpu0 + k] == 0 || cl->milli[m->gpu0 + k] == GPU_MILLI;
            all_plain &= plain;
            if (first < 0 || rank[i] < rank[first])
                first = i;
        }
        CU_ASSERT_EQUAL_FATAL(cluster_uniform(cl, t, f), all_plain);
        CU_ASSERT_EQUAL_FATAL(cluster_first_ranked(cl, t, f), first);
        uniform += all_plain && first >= 0;
        mixed += !all_plain;
    }
    CU_ASSERT(uniform > 100 && mixed > 100);  /* both kinds were met */
    cluster_order(cl, NULL);
    CU_ASSERT_EQUAL(cluster_first_ranked(cl, su_h100, 8), -1);
    cluster_free(cl);
}

/* The best node of s for j by brute force: every node with room scored by
 * the policy, ties to the lowest rank (or id without a shuffled order). */
static int32_t brute_choice(const struct sched *s, const struct job *j)
{
    int32_t best = -1;
    int best_sc = 0;
    for (int32_t n = 0; n < s->cl->nnodes; n++) {
        const struct node *nd = &s->cl->nodes[n];
        if (!cluster_host_fits(s->cl, n, j->cpu_milli, j->mem_mib) ||
            (j->milli < GPU_MILLI ? cluster_share_gpu(s->cl, n, j->milli) < 0 : nd->free < j->gpus))
            continue;
        struct sched_cycle c = {.cl = s->cl, .type = nd->type, .ctx = s->ctx};
        int sc = s->policy->score(&c, j, n);
        if (best < 0 || sc > best_sc || (sc == best_sc && (s->rank ? s->rank[n] < s->rank[best] : n < best))) {
            best = n;
            best_sc = sc;
        }
    }
    return best;
}

/* A random job: 1, 2, 4 or 8 whole GPUs or a share of one, CPU with cpu. */
static struct job random_job(uint64_t *st, int64_t id, bool cpu)
{
    uint64_t x = sched_splitmix64(st);
    struct job j = su_job(id, 1 << (x % 4));
    if ((x >> 4) % 4 == 0) {
        j.gpus = 1;
        j.milli = (int16_t)(100 * (1 + (int)((x >> 8) % 9)));
    }
    j.cpu_milli = cpu ? 1000 * (int32_t)((x >> 16) % 16) : 0;
    return j;
}

/* Policies whose score depends only on the node's state decide as if
 * every node were scored (the core scores one node per bucket whose nodes
 * are all in one state), on random states with and without GPU sharing
 * and CPU. */
static void test_state_score_same_choice(void)
{
    static const char *const pols[] = {"fgd", "dotprod", "best-fit-share", "gpu-packing"};
    enum { WL = 300, OPS = 1500 };
    for (size_t pi = 0; pi < FS_ARRAY_LEN(pols); pi++)
        for (int cpu = 0; cpu < 2; cpu++) {
            struct fleet_group g[] = {{su_h100, 60, 8, cpu ? 96000 : 0, 0}, {su_a100, 30, 4, 0, 0},
                                      {su_a100, 10, 8, 0, 0}, {su_rtx, 25, 8, 0, 0}};
            struct sched *s = xcalloc(1, sizeof *s);
            sched_init(s, cluster_new(su_cat, g, 4), sched_policy_find(pols[pi]));
            CU_ASSERT_TRUE_FATAL(s->policy->state_score);
            uint64_t st = 1000 + pi * 2 + (uint64_t)cpu;
            struct job *wl = xcalloc(WL, sizeof *wl), *jobs = xcalloc(OPS, sizeof *jobs);
            for (int i = 0; i < WL; i++)
                wl[i] = random_job(&st, i, cpu);
            sched_prepare(s, wl, WL, st);
            struct job *running[OPS];
            size_t nrun = 0, placed = 0;
            for (int op = 0; op < OPS; op++) {
                if (nrun && sched_splitmix64(&st) % 3 == 0) {
                    size_t k = sched_splitmix64(&st) % nrun;
                    sched_release(s, running[k]);
                    running[k] = running[--nrun];
                    continue;
                }
                jobs[op] = random_job(&st, WL + op, cpu);
                int32_t want = brute_choice(s, &jobs[op]);
                bool ok = sched_try(s, &jobs[op]);
                CU_ASSERT_EQUAL_FATAL(ok ? jobs[op].node : -1, want);
                if (ok) {
                    running[nrun++] = &jobs[op];
                    placed++;
                }
            }
            CU_ASSERT(placed > OPS / 3);
            for (size_t k = 0; k < nrun; k++)
                job_drop_gang(running[k]);
            free(wl);
            free(jobs);
            su_free(s);
        }
}

/* Nodes left with 8, 3 and 5 free GPUs; a 3-GPU job goes to a different node
 * under each policy. */
static int32_t place_three(const char *policy)
{
    struct sched *s = su_sched(policy, su_h100, 3);
    su_take(s->cl, 1, 5);
    su_take(s->cl, 2, 3);
    struct job j = su_job(1, 3);
    sched_submit(s, &j);
    CU_ASSERT_EQUAL(su_cycle(s), 1);
    CU_ASSERT_EQUAL(j.state, JOB_RUNNING);
    CU_ASSERT_EQUAL(j.type, su_h100);
    int32_t node = j.node;
    su_free(s);
    return node;
}

static void test_choice_per_policy(void)
{
    CU_ASSERT_EQUAL(place_three("fifo"), 0);     /* lowest id with room */
    CU_ASSERT_EQUAL(place_three("best-fit"), 1); /* leaves 0 free */
    CU_ASSERT_EQUAL(place_three("spread"), 0);   /* leaves 5 free */
}

static void test_gang(void)
{
    struct sched *s = su_sched("best-fit", su_h100, 4);
    su_take(s->cl, 0, 1);
    struct job big = su_job(1, 16), odd = su_job(2, 12), huge = su_job(3, 40);
    CU_ASSERT_TRUE(sched_fits_fleet(s->cl, &big));
    CU_ASSERT_FALSE(sched_fits_fleet(s->cl, &odd));  /* not whole nodes */
    CU_ASSERT_FALSE(sched_fits_fleet(s->cl, &huge)); /* more than the fleet */
    sched_submit(s, &big);
    CU_ASSERT_EQUAL(su_cycle(s), 1);
    CU_ASSERT_EQUAL(big.nnodes, 2);
    CU_ASSERT_EQUAL(big.gang[0], 1); /* node 0 is not fully free */
    CU_ASSERT_EQUAL(big.gang[1], 2);
    CU_ASSERT_EQUAL(s->cl->nodes[1].free, 0);
    CU_ASSERT_EQUAL(s->cl->nodes[2].free, 0);
    CU_ASSERT_EQUAL(s->cl->allocated, 17);
    sched_release(s, &big);
    CU_ASSERT_EQUAL(s->cl->allocated, 1);
    CU_ASSERT_EQUAL(big.state, JOB_DONE);
    job_drop_gang(&big);
    su_free(s);
}

static void test_types_and_memory(void)
{
    struct fleet_group g[] = {{su_rtx, 1, 8, 0, 0}, {su_a100, 1, 8, 0, 0}, {su_h100, 1, 8, 0, 0}};
    struct sched s;
    sched_init(&s, cluster_new(su_cat, g, 3), sched_policy_find("fifo"));
    struct job only_a100 = su_job(1, 2), big_mem = su_job(2, 1), any = su_job(3, 1);
    only_a100.allowed = 1ULL << su_a100;
    big_mem.gpu_mem_gb = 40; /* more than an RTX 4090's 24 GB */
    sched_submit(&s, &only_a100);
    sched_submit(&s, &big_mem);
    sched_submit(&s, &any);
    CU_ASSERT_EQUAL(su_cycle(&s), 3);
    CU_ASSERT_EQUAL(only_a100.type, su_a100);
    CU_ASSERT_EQUAL(only_a100.node, 1);
    CU_ASSERT_NOT_EQUAL(big_mem.type, su_rtx);
    CU_ASSERT_EQUAL(any.node, 0); /* first fit: the lowest id */
    struct job huge_mem = su_job(4, 1);
    huge_mem.gpu_mem_gb = 500;
    CU_ASSERT_FALSE(sched_fits_fleet(s.cl, &huge_mem));
    cluster_free(s.cl);
    sched_fini(&s);
}

/* GPU sharing: shares go to the best-fitting GPU; a whole-GPU job needs a
 * fully free one; CPU and host memory bound what a node takes; a CPU-only
 * job needs no GPU at all. */
static void test_sharing(void)
{
    struct fleet_group g = {.type = su_h100, .nodes = 1, .gpus_per_node = 2, .cpu_milli = 4000, .mem_mib = 8192};
    struct sched s;
    sched_init(&s, cluster_new(su_cat, &g, 1), sched_policy_find("best-fit"));
    struct job a = su_job(1, 1), b = su_job(2, 1), c = su_job(3, 1), whole = su_job(4, 1), cpu = su_job(5, 0);
    a.milli = 600;
    b.milli = 300;
    c.milli = 500;
    cpu.cpu_milli = 3500;
    sched_submit(&s, &a);
    sched_submit(&s, &b);
    sched_submit(&s, &c);
    sched_submit(&s, &whole);
    CU_ASSERT_EQUAL(su_cycle(&s), 3);
    CU_ASSERT_EQUAL(a.gpu_mask, 1);     /* GPU 0 */
    CU_ASSERT_EQUAL(b.gpu_mask, 1);     /* GPU 0 again: 400 left, the tightest fit */
    CU_ASSERT_EQUAL(c.gpu_mask, 2);     /* GPU 1 */
    CU_ASSERT_EQUAL(whole.state, JOB_QUEUED);
    CU_ASSERT_EQUAL(s.cl->milli[0], 100);
    CU_ASSERT_EQUAL(s.cl->milli[1], 500);
    CU_ASSERT_EQUAL(s.cl->free_milli, 600);
    CU_ASSERT_EQUAL(s.cl->nodes[0].free, 0);
    sched_release(&s, &c);
    CU_ASSERT_EQUAL(su_cycle(&s), 1);
    CU_ASSERT_EQUAL(whole.gpu_mask, 2);
    /* CPU: 4000 millicores, none used yet; the CPU-only job takes 3500. */
    sched_submit(&s, &cpu);
    CU_ASSERT_EQUAL(su_cycle(&s), 1);
    CU_ASSERT_EQUAL(cpu.state, JOB_RUNNING);
    CU_ASSERT_EQUAL(s.cl->nodes[0].cpu_free, 500);
    struct job more = su_job(6, 0);
    more.cpu_milli = 1000;
    sched_submit(&s, &more);
    CU_ASSERT_EQUAL(su_cycle(&s), 0);
    sched_release(&s, &cpu);
    CU_ASSERT_EQUAL(su_cycle(&s), 1);
    struct job hog = su_job(7, 0);
    hog.mem_mib = 9000; /* more than the node has */
    CU_ASSERT_FALSE(sched_fits_fleet(s.cl, &hog));
    cluster_free(s.cl);
    sched_fini(&s);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"aliases are parameter sets of their policy", test_aliases_are_parameter_sets},
        {"registry", test_registry},
        {"index matches a scan", test_index_matches_scan},
        {"plain buckets and the ranked order match a scan", test_index_uniform_ranked},
        {"state-only scores: one node per uniform bucket, same choice", test_state_score_same_choice},
        {"fifo / best-fit / spread choices", test_choice_per_policy},
        {"gangs of whole nodes", test_gang},
        {"allowed types and memory", test_types_and_memory},
        {"GPU sharing, CPU and host memory", test_sharing},
        CU_TEST_INFO_NULL,
    };
    CU_SuiteInfo suites[] = {
        {"sched", su_setup, su_teardown, NULL, NULL, tests},
        CU_SUITE_INFO_NULL,
    };
    return tu_run("test_sched", suites);
}
