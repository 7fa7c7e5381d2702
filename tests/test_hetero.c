/* test_hetero.c - the hetero policies and the measured throughputs they
 * read.
 *
 * The Gavel test takes the per-job-type throughput matrix Gavel's authors
 * measured (../shared/traces/gavel/simulation_throughputs.json, from
 * stanford-futuredata/gavel; skipped when absent) and checks that hetero
 * sends every single-GPU job type to the GPU type it runs fastest on, which
 * one speed factor per GPU type cannot do.  Only the P100 and V100 columns
 * are used here (tests/test_rounds.c runs the whole matrix). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../base/json.h"
#include "../models/models.h"
#include "../sched/sched.h"
#include "testutil.h"

#define GAVEL_FILE "../shared/traces/gavel/simulation_throughputs.json"
#define GAVEL_MAX 32

static struct gpu_catalog *cat;
static int P100, V100, T4;

static int setup(void)
{
    if (tu_load_catalog(&cat))
        return 1;
    P100 = gpu_catalog_find(cat, "p100");
    V100 = gpu_catalog_find(cat, "v100m16");
    T4 = gpu_catalog_find(cat, "t4");
    return P100 < 0 || V100 < 0 || T4 < 0;
}

static int teardown(void)
{
    gpu_catalog_free(cat);
    return 0;
}

/* --- a workloads.json written by the test -------------------------------- */

struct measured {
    int gpu;
    double value;
};

/* A workloads.json (reference p100) whose workload k is named w<k>, all
 * tensor-bound, with the m[k][0..nm) measured throughputs (entries with a
 * value of 0 left out). */
static const char *workloads_file(int n, const struct measured m[][3], int nm)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fprintf(f, "{\"about\": \"test\", \"sources\": {\"T\": \"a test figure\"},\n"
               " \"reference_gpu\": \"p100\",\n"
               " \"network_gbs_per_gpu\": {\"value\": 50, \"source\": \"T\"},\n"
               " \"workloads\": [\n");
    for (int k = 0; k < n; k++) {
        fprintf(f, "  {\"name\": \"w%d\", \"shares\": {\"tensor\": {\"value\": 1, \"source\": \"T\"}},\n"
                   "   \"comm_share\": {\"value\": 0, \"source\": \"T\"}, \"measured\": {",
                k);
        for (int i = 0, first = 1; i < nm; i++) {
            if (m[k][i].value <= 0)
                continue; /* an unused slot */
            fprintf(f, "%s\"%s\": {\"value\": %.17g, \"source\": \"T\"}", first ? "" : ", ",
                    cat->types[m[k][i].gpu].name, m[k][i].value);
            first = 0;
        }
        fprintf(f, "}}%s\n", k + 1 < n ? "," : "");
    }
    fprintf(f, " ],\n \"kinds\": {}}\n");
    fclose(f);
    const char *path = tu_tmpfile(".json", text);
    free(text);
    return path;
}

static struct perf_model *load_ok(const char *path)
{
    struct perf_model *pm = NULL;
    struct fs_err err = {0};
    if (perf_model_load(path, cat, NULL, &pm, &err))
        fprintf(stderr, "\n    %s\n", err.msg);
    return pm;
}

/* Equal owned prices for every type in gpus[0..n), unless usd says
 * otherwise (usd[i] < 0: unpriced). */
static struct cost_prices *prices_for(const int *gpus, const double *usd, int n)
{
    struct cost_prices *p = xcalloc(1, sizeof *p);
    p->amortization_months = (struct cost_value){60, 0};
    p->maintenance_pct_year = (struct cost_value){10, 0};
    p->server_overhead = (struct cost_value){0.25, 0};
    for (int i = 0; i < n; i++) {
        if (usd && usd[i] < 0)
            continue;
        p->gpus[p->ngpus++] = (struct cost_gpu_price){
            .gpu = gpus[i],
            .purchase = {usd ? usd[i] : 10000, 0},
            .cloud_hour = {0, -1},
            .lease_month = {0, -1},
        };
    }
    return p;
}

static struct job mk(int64_t id, int gpus, int workload, int ref)
{
    struct job j = {.id = id, .submit = id, .gpus = gpus, .milli = GPU_MILLI, .ref_type = (int16_t)ref,
                    .workload = (int16_t)workload, .work = 100};
    job_reset_placement(&j);
    return j;
}

static struct sched *mk_sched(const char *policy, const struct fleet_group *g, int ng,
                              const struct perf_model *pm, const struct cost_prices *p)
{
    struct sched *s = xcalloc(1, sizeof *s);
    sched_init(s, cluster_new(cat, g, ng), sched_policy_find(policy));
    s->perf = pm;
    s->prices = p;
    return s;
}

static void free_sched(struct sched *s)
{
    cluster_free(s->cl);
    sched_fini(s);
    free(s);
}

static void count_started(void *ctx, struct job *j)
{
    (void)j;
    (*(size_t *)ctx)++;
}

static size_t cycle(struct sched *s)
{
    size_t n = 0;
    sched_cycle(s, count_started, &n);
    return n;
}

/* --- measured throughputs in the perf model ------------------------------- */

static void test_measured_ratio(void)
{
    const struct measured m[2][3] = {{{P100, 10}, {V100, 15}}, {{P100, 1}}};
    struct perf_model *pm = load_ok(workloads_file(2, m, 2)), *plain = load_ok(workloads_file(2, m, 0));
    CU_ASSERT_PTR_NOT_NULL_FATAL(pm);
    CU_ASSERT_PTR_NOT_NULL_FATAL(plain);
    CU_ASSERT_DOUBLE_EQUAL(pm->w[0].measured[V100], 15, 0);
    CU_ASSERT_DOUBLE_EQUAL(pm->w[0].measured[T4], 0, 0);
    /* Both measured: their ratio, either way round. */
    CU_ASSERT_DOUBLE_EQUAL(perf_relative(pm, 0, V100, P100), 1.5, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(perf_relative(pm, 0, P100, V100), 1 / 1.5, 1e-15);
    /* One side unmeasured: the roofline, as if nothing were measured. */
    CU_ASSERT_DOUBLE_EQUAL(perf_relative(pm, 0, T4, P100), perf_relative(plain, 0, T4, P100), 0);
    CU_ASSERT_DOUBLE_EQUAL(perf_relative(pm, 1, V100, P100), perf_relative(plain, 1, V100, P100), 0);
    CU_ASSERT(fabs(perf_relative(plain, 0, V100, P100) - 1.5) > 0.01);
    perf_model_free(pm);
    perf_model_free(plain);
}

/* Load text and expect an error whose message holds every string in want. */
static void bad_measured(const char *measured, const char *want1, const char *want2)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"sources\": {\"T\": \"t\"}, \"reference_gpu\": \"p100\","
             " \"network_gbs_per_gpu\": {\"value\": 50, \"source\": \"T\"},"
             " \"workloads\": [{\"name\": \"w\", \"shares\": {\"tensor\": {\"value\": 1, \"source\": \"T\"}},"
             " \"comm_share\": {\"value\": 0, \"source\": \"T\"}, \"measured\": %s}], \"kinds\": {}}",
             measured);
    const char *path = tu_tmpfile(".json", text);
    struct perf_model *pm = NULL;
    struct fs_err err = {0};
    CU_ASSERT_EQUAL(perf_model_load(path, cat, NULL, &pm, &err), FS_EDATA);
    CU_ASSERT_PTR_NULL(pm);
    printf("\n    %s", err.msg);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want1));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want2));
}

static void test_measured_errors(void)
{
    bad_measured("{\"m60\": {\"value\": 3, \"source\": \"T\"}}", "$.workloads[0].measured.m60",
                 "unknown GPU type \"m60\"");
    bad_measured("{\"v100m61\": {\"value\": 3, \"source\": \"T\"}}", "$.workloads[0].measured.v100m61",
                 "did you mean \"v100m16\"");
    bad_measured("{\"p100\": {\"value\": 0, \"source\": \"T\"}}", "$.workloads[0].measured.p100", "> 0");
    bad_measured("{\"p100\": {\"value\": -2, \"source\": \"T\"}}", "$.workloads[0].measured.p100", "-2");
    bad_measured("{\"p100\": 3}", "$.workloads[0].measured", "p100");
    bad_measured("{\"p100\": {\"value\": 3, \"source\": \"NOPE\"}}", "$.workloads[0].measured", "NOPE");
    bad_measured("{\"p100\": {\"value\": 3, \"source\": \"T\"}, \"p100\": {\"value\": 4, \"source\": \"T\"}}",
                 "$.workloads[0].measured", "duplicate GPU type \"p100\"");
    bad_measured("[3]", "$.workloads[0].measured", "expected an object");
}

/* --- the Gavel throughput matrix ----------------------------------------- */

struct gavel {
    int n;
    char name[GAVEL_MAX][64];
    double p100[GAVEL_MAX], v100[GAVEL_MAX];
};

/* The isolated ("null") single-GPU throughputs of every "('NAME', 1)" job
 * type on p100 and v100.  RET: 0, or -1 when the file is absent or not as
 * expected. */
static int gavel_load(struct gavel *g)
{
    cJSON *root = NULL;
    struct fs_err err = {0};
    if (json_load_file(GAVEL_FILE, &root, &err))
        return -1;
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(root, "p100");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "v100"), *item;
    g->n = 0;
    cJSON_ArrayForEach(item, p) {
        size_t len = strlen(item->string);
        if (len < 8 || strcmp(item->string + len - 4, ", 1)") != 0 || g->n == GAVEL_MAX)
            continue;
        const cJSON *pn = cJSON_GetObjectItemCaseSensitive(item, "null");
        const cJSON *vn = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(v, item->string), "null");
        if (!cJSON_IsNumber(pn) || !cJSON_IsNumber(vn) || pn->valuedouble <= 0 || vn->valuedouble <= 0)
            continue;
        /* "('ResNet-18 (batch size 16)', 1)" -> "ResNet-18 (batch size 16)" */
        snprintf(g->name[g->n], sizeof g->name[0], "%.*s", (int)(len - 7), item->string + 2);
        g->p100[g->n] = pn->valuedouble;
        g->v100[g->n] = vn->valuedouble;
        g->n++;
    }
    cJSON_Delete(root);
    return g->n > 0 ? 0 : -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Where hetero puts one single-GPU job of each workload of pm on a fleet of
 * one 8-GPU P100 node and one 8-GPU V100 node, equally priced. */
static void place_each(const struct perf_model *pm, int n, int *type)
{
    const struct fleet_group g[] = {{P100, 1, 8, 0, 0}, {V100, 1, 8, 0, 0}};
    const int gpus[] = {P100, V100};
    struct cost_prices *p = prices_for(gpus, NULL, 2);
    struct sched *s = mk_sched("hetero", g, 2, pm, p);
    for (int k = 0; k < n; k++) {
        struct job j = mk(k, 1, k, P100);
        type[k] = sched_try(s, &j) ? j.type : -1;
        if (type[k] >= 0)
            sched_release(s, &j);
    }
    free_sched(s);
    cost_prices_free(p);
}

static void test_gavel(void)
{
    struct gavel g;
    if (gavel_load(&g)) {
        tu_skip("%s is absent or holds no single-GPU job types", GAVEL_FILE);
        return;
    }
    /* The measured matrix, and one speed factor per GPU: V100/P100 = the
     * median of the job types' ratios. */
    struct measured (*m)[3] = xcalloc((size_t)g.n, sizeof *m);
    double ratio[GAVEL_MAX];
    for (int k = 0; k < g.n; k++)
        ratio[k] = g.v100[k] / g.p100[k];
    qsort(ratio, (size_t)g.n, sizeof *ratio, cmp_double);
    double median = g.n % 2 ? ratio[g.n / 2] : (ratio[g.n / 2 - 1] + ratio[g.n / 2]) / 2;
    for (int k = 0; k < g.n; k++) {
        m[k][0] = (struct measured){P100, g.p100[k]};
        m[k][1] = (struct measured){V100, g.v100[k]};
    }
    struct perf_model *matrix = load_ok(workloads_file(g.n, (const struct measured (*)[3])m, 2));
    for (int k = 0; k < g.n; k++) {
        m[k][0].value = 1;
        m[k][1].value = median;
    }
    struct perf_model *factor = load_ok(workloads_file(g.n, (const struct measured (*)[3])m, 2));
    free(m);
    CU_ASSERT_PTR_NOT_NULL_FATAL(matrix);
    CU_ASSERT_PTR_NOT_NULL_FATAL(factor);

    int by_matrix[GAVEL_MAX], by_factor[GAVEL_MAX], wrong_matrix = 0, wrong_factor = 0, on_p100 = 0;
    place_each(matrix, g.n, by_matrix);
    place_each(factor, g.n, by_factor);
    printf("\n    %d single-GPU job types; one speed factor V100/P100 = %.3f (median)", g.n, median);
    for (int k = 0; k < g.n; k++) {
        int best = g.p100[k] > g.v100[k] ? P100 : V100;
        on_p100 += best == P100;
        wrong_matrix += by_matrix[k] != best;
        wrong_factor += by_factor[k] != best;
        printf("\n    %-34s P100 %8.3f  V100 %8.3f  best %-7s hetero %-7s one factor %s", g.name[k],
               g.p100[k], g.v100[k], cat->types[best].name,
               by_matrix[k] >= 0 ? cat->types[by_matrix[k]].name : "-",
               by_factor[k] >= 0 ? cat->types[by_factor[k]].name : "-");
        /* The job types the paper singles out run faster on the P100. */
        if (strncmp(g.name[k], "Recommendation", 14) == 0 ||
            strcmp(g.name[k], "ResNet-18 (batch size 16)") == 0 ||
            strcmp(g.name[k], "ResNet-18 (batch size 32)") == 0 ||
            strcmp(g.name[k], "Transformer (batch size 256)") == 0) {
            CU_ASSERT_EQUAL(best, P100);
            CU_ASSERT_EQUAL(by_matrix[k], P100);
        }
        CU_ASSERT_EQUAL(by_factor[k], V100);
    }
    printf("\n    faster on P100: %d; misplaced by hetero: %d, by one speed factor: %d", on_p100,
           wrong_matrix, wrong_factor);
    CU_ASSERT_EQUAL(g.n, 26);
    CU_ASSERT(on_p100 > 0);
    CU_ASSERT_EQUAL(wrong_matrix, 0);
    CU_ASSERT(wrong_factor > 0);
    CU_ASSERT_EQUAL(wrong_factor, on_p100);
    perf_model_free(matrix);
    perf_model_free(factor);
}

/* --- per dollar and per watt on the shipped models ------------------------ */

static void test_dollar_vs_watt(void)
{
    struct model_set ms = {0};
    struct fs_err err = {0};
    if (model_set_load(tu_path("models/data/gpus.json"), &ms, &err)) {
        fprintf(stderr, "\n    %s\n", err.msg);
        CU_FAIL_FATAL("model_set_load");
    }
    int w = perf_workload_find(ms.perf, "llm-infer-7b");
    int h100 = gpu_catalog_find(ms.cat, "h100-sxm"), rtx = gpu_catalog_find(ms.cat, "rtx4090");
    int a100 = gpu_catalog_find(ms.cat, "a100-sxm-80");
    CU_ASSERT_FATAL(w >= 0);
    const struct fleet_group g[] = {{h100, 1, 8, 0, 0}, {rtx, 1, 8, 0, 0}};
    /* By hand: the model's speed over the catalog's TDP (per watt) and over
     * the owned price of one GPU-hour on the type's default server (per
     * dollar: the price catalog's capex, maintenance and hosting). */
    double h_s = perf_relative(ms.perf, w, h100, a100), r_s = perf_relative(ms.perf, w, rtx, a100);
    double h_usd = cost_gpu_month(ms.prices, ms.nodes, node_template_for_gpu(ms.nodes, h100), h100,
                                  COST_OWNED, COST_ON_DEMAND) / COST_MONTH_HOURS;
    double r_usd = cost_gpu_month(ms.prices, ms.nodes, node_template_for_gpu(ms.nodes, rtx), rtx,
                                  COST_OWNED, COST_ON_DEMAND) / COST_MONTH_HOURS;
    CU_ASSERT_FATAL(h_usd > 0 && r_usd > 0);
    double h_w = h_s / ms.cat->types[h100].tdp_w, r_w = r_s / ms.cat->types[rtx].tdp_w;
    int want_watt = h_w > r_w ? h100 : rtx, want_dollar = h_s / h_usd > r_s / r_usd ? h100 : rtx;
    printf("\n    llm-infer-7b speed over A100: h100-sxm %.3f, rtx4090 %.3f", h_s, r_s);
    printf("\n    per owned USD/GPU-h: h100-sxm %.3f (%.3f $/h), rtx4090 %.3f (%.3f $/h)", h_s / h_usd,
           h_usd, r_s / r_usd, r_usd);
    printf("\n    per kW: h100-sxm %.3f, rtx4090 %.3f", h_w * 1000, r_w * 1000);
    const char *policies[] = {"hetero", "hetero-watt"};
    int want[] = {want_dollar, want_watt};
    for (int i = 0; i < 2; i++) {
        struct sched s;
        sched_init(&s, cluster_new(ms.cat, g, 2), sched_policy_find(policies[i]));
        s.perf = ms.perf;
        s.prices = ms.prices;
        s.nodes = ms.nodes;
        struct job j = mk(1, 1, w, a100);
        j.gpu_mem_gb = 16;
        CU_ASSERT_TRUE(sched_try(&s, &j));
        CU_ASSERT_EQUAL(j.type, want[i]);
        printf("\n    %s -> %s", policies[i], ms.cat->types[j.type].name);
        cluster_free(s.cl);
        sched_fini(&s);
    }
    model_set_free(&ms);
}

/* --- fallback, packing and order ---------------------------------------- */

/* Measured P100 10, V100 6, T4 4 (equal prices). */
static struct perf_model *three_types(void)
{
    const struct measured m[1][3] = {{{P100, 10}, {V100, 6}, {T4, 4}}};
    return load_ok(workloads_file(1, m, 3));
}

static void test_fallback(void)
{
    struct perf_model *pm = three_types();
    CU_ASSERT_PTR_NOT_NULL_FATAL(pm);
    const struct fleet_group g[] = {{T4, 1, 2, 0, 0}, {V100, 1, 2, 0, 0}, {P100, 1, 2, 0, 0}};
    const int gpus[] = {P100, V100, T4};
    struct cost_prices *p = prices_for(gpus, NULL, 3);
    struct sched *s = mk_sched("hetero", g, 3, pm, p);
    struct job j[6];
    for (int k = 0; k < 6; k++)
        j[k] = mk(k + 1, 1, 0, P100);
    j[5].allowed = 1ULL << T4;
    sched_prepare(s, j, 6, 1);
    for (int k = 0; k < 6; k++)
        sched_submit(s, &j[k]);
    /* Down the ladder as the better types fill: P100, then V100, then T4
     * (0.4 of the best, but idle otherwise); the T4-only job finds the
     * T4's other GPU. */
    CU_ASSERT_EQUAL(cycle(s), 6);
    CU_ASSERT_EQUAL(j[0].type, P100);
    CU_ASSERT_EQUAL(j[1].type, P100);
    CU_ASSERT_EQUAL(j[2].type, V100);
    CU_ASSERT_EQUAL(j[3].type, V100);
    CU_ASSERT_EQUAL(j[4].type, T4);
    CU_ASSERT_EQUAL(j[5].type, T4);
    CU_ASSERT_EQUAL(s->nqueue, 0);
    /* A P100 given back goes to the next job, not to a worse type. */
    sched_release(s, &j[0]);
    struct job late = mk(7, 1, 0, P100);
    sched_submit(s, &late);
    CU_ASSERT_EQUAL(cycle(s), 1);
    CU_ASSERT_EQUAL(late.type, P100);
    free_sched(s);
    cost_prices_free(p);
    perf_model_free(pm);
}

/* Within the best type, the tightest node; a tighter node of a worse type
 * does not win. */
static void test_packing(void)
{
    struct perf_model *pm = three_types();
    CU_ASSERT_PTR_NOT_NULL_FATAL(pm);
    const struct fleet_group g[] = {{V100, 1, 8, 0, 0}, {P100, 4, 8, 0, 0}};
    const int gpus[] = {P100, V100};
    struct cost_prices *p = prices_for(gpus, NULL, 2);
    struct sched *s = mk_sched("hetero", g, 2, pm, p);
    cluster_take(s->cl, 0, cluster_whole_gpus(s->cl, 0, 6), GPU_MILLI, 0, 0); /* V100: 2 free */
    cluster_take(s->cl, 2, cluster_whole_gpus(s->cl, 2, 3), GPU_MILLI, 0, 0); /* P100: 5 free */
    cluster_take(s->cl, 3, cluster_whole_gpus(s->cl, 3, 5), GPU_MILLI, 0, 0); /* P100: 3 free */
    struct job j = mk(1, 2, 0, P100);
    CU_ASSERT_TRUE(sched_try(s, &j));
    CU_ASSERT_EQUAL(j.type, P100);
    CU_ASSERT_EQUAL(j.node, 3);
    /* A 4-GPU job: node 3 has 1 left now, node 2 has 5; node 1 is empty. */
    struct job k = mk(2, 4, 0, P100);
    CU_ASSERT_TRUE(sched_try(s, &k));
    CU_ASSERT_EQUAL(k.node, 2);
    /* A gang of two whole nodes: only P100 nodes 1 and 4 are fully free. */
    struct job gang = mk(3, 16, 0, P100);
    CU_ASSERT_TRUE(sched_fits_type(s->cl, &gang, P100));
    CU_ASSERT_FALSE(sched_fits_type(s->cl, &gang, V100)); /* one V100 node */
    CU_ASSERT_TRUE(sched_try(s, &gang));
    CU_ASSERT_EQUAL(gang.type, P100);
    CU_ASSERT_EQUAL(gang.nnodes, 2);
    CU_ASSERT_EQUAL(gang.gang[0], 1);
    CU_ASSERT_EQUAL(gang.gang[1], 4);
    job_drop_gang(&gang);
    free_sched(s);
    cost_prices_free(p);
    perf_model_free(pm);
}

/* Prices change the choice; without them (or with a type unpriced) the
 * throughput alone decides; without a model every type is equal and the
 * tightest node wins, as under best-fit. */
static void test_prices_and_fallbacks(void)
{
    struct perf_model *pm = three_types();
    CU_ASSERT_PTR_NOT_NULL_FATAL(pm);
    const struct fleet_group g[] = {{P100, 1, 8, 0, 0}, {V100, 1, 4, 0, 0}};
    const int gpus[] = {P100, V100};
    const double dear_p100[] = {30000, 10000}, v100_unpriced[] = {30000, -1};
    struct cost_prices *dear = prices_for(gpus, dear_p100, 2), *partial = prices_for(gpus, v100_unpriced, 2);
    const struct {
        const struct perf_model *pm;
        const struct cost_prices *p;
        int want;
    } cases[] = {
        {pm, dear, V100},     /* 6 / 1 beats 10 / 3 */
        {pm, NULL, P100},     /* no prices: throughput */
        {pm, partial, P100},  /* V100 unpriced: throughput */
        {NULL, dear, V100},   /* no model: the tighter node (4 GPUs) */
    };
    /* One prepared sched whose models change between the cases: the
     * policy's per-job cache must notice. */
    struct sched *s = mk_sched("hetero", g, 2, NULL, NULL);
    struct job j = mk(1, 1, 0, P100);
    sched_prepare(s, &j, 1, 1);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        s->perf = cases[i].pm;
        s->prices = cases[i].p;
        CU_ASSERT_TRUE(sched_try(s, &j));
        CU_ASSERT_EQUAL(j.type, cases[i].want);
        sched_release(s, &j);
    }
    free_sched(s);
    cost_prices_free(dear);
    cost_prices_free(partial);
    perf_model_free(pm);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"measured throughputs override the roofline", test_measured_ratio},
        {"measured: errors name the file and path", test_measured_errors},
        {"Gavel matrix: every job type on its fastest GPU", test_gavel},
        {"per dollar vs per watt (H100, RTX 4090)", test_dollar_vs_watt},
        {"fallback down the ladder as types fill", test_fallback},
        {"best-fit packing within the best type", test_packing},
        {"prices, missing prices, no model", test_prices_and_fallbacks},
        CU_TEST_INFO_NULL,
    };
    CU_SuiteInfo suites[] = {
        {"hetero", setup, teardown, NULL, NULL, tests},
        CU_SUITE_INFO_NULL,
    };
    return tu_run("test_hetero", suites);
}
