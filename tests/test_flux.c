/* test_flux.c - flux's mechanisms one at a time: routing by kind (and a
 * 7B service's replicas to the type with the most work per dollar, never a
 * 70B one's to the RTX 4090), consolidation
 * on a constructed fragmented case, power-aware placement against a node
 * with failed PSUs, and preemption for a service that is short. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reports/metrics.h"
#include "../sim/service_run.h"
#include "testutil.h"

static const char *header = "id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type\n";

/* Load the scenario text (with TRACE where the trace's path goes) and run
 * it under policy. */
static void run(struct run_result *r, const char *fmt, const char *csv, const char *policy)
{
    static char text[4096];
    const char *at = strstr(fmt, "TRACE");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - fmt), fmt, tu_tmpfile(".csv", csv), at + 5);
    tu_sim_run(r, tu_tmpfile(".json", text), policy);
}

static int type_of(const struct run_result *r, const char *name)
{
    return gpu_catalog_find(r->sc->cat, name);
}

/* Of the H100 and the RTX 4090, the type with the most llm-infer-7b work
 * per owned dollar, by hand: the model's speed over the price catalog's
 * owned price of one GPU-hour on the type's default server. */
static int per_dollar_best(const struct run_result *r)
{
    const struct scenario *sc = r->sc;
    int w = perf_workload_find(sc->perf, "llm-infer-7b"), ref = sc->perf->ref;
    int types[2] = {type_of(r, "h100-sxm"), type_of(r, "rtx4090")};
    double v[2];
    for (int k = 0; k < 2; k++) {
        int t = types[k];
        double usd = cost_gpu_month(sc->prices, sc->nodes, node_template_for_gpu(sc->nodes, t), t, COST_OWNED,
                                    COST_ON_DEMAND) / COST_MONTH_HOURS;
        CU_ASSERT_FATAL(w >= 0 && usd > 0);
        v[k] = perf_relative(sc->perf, w, t, ref) / usd;
        printf("\n    llm-infer-7b on %s: %.3f x %s per %.3f USD/GPU-h = %.3f", sc->cat->types[t].name,
               perf_relative(sc->perf, w, t, ref), sc->cat->types[ref].name, usd, v[k]);
    }
    return v[0] > v[1] ? types[0] : types[1];
}

/* An H100 server and an RTX 4090 server, both idle: training goes to the
 * H100 (fastest), inference to the type with the most work per dollar. */
static void test_routing_by_kind(void)
{
    char csv[512];
    snprintf(csv, sizeof csv, "%s1,0,train,a,1,0,,3600,h100-sxm\n2,0,infer,a,1,0,,3600,h100-sxm\n", header);
    const char *fmt = "{\"name\": \"t\", \"horizon_s\": 86400, \"fleet\": ["
                      "{\"gpu\": \"rtx4090\", \"nodes\": 1, \"gpus_per_node\": 8},"
                      "{\"gpu\": \"h100-sxm\", \"nodes\": 1, \"gpus_per_node\": 8}],"
                      " \"workload\": {\"trace\": \"TRACE\"}}";
    struct run_result r;
    run(&r, fmt, csv, "flux");
    CU_ASSERT_EQUAL(r.s->jobs[0].type, type_of(&r, "h100-sxm"));
    CU_ASSERT_EQUAL(r.s->jobs[1].type, per_dollar_best(&r));
    run_result_free(&r);
    /* Without routing both take the tightest node, the first: the 4090s. */
    run(&r, fmt, csv, "flux-no-route");
    CU_ASSERT_EQUAL(r.s->jobs[0].type, type_of(&r, "rtx4090"));
    run_result_free(&r);
}

/* Services on the same two servers: a 7B model's replicas may run on the
 * RTX 4090 and take the type with the most work per dollar (replicas are
 * inference); a 70B model's may not (24 GB cannot hold a replica) and run
 * on the H100. */
static void test_routing_services(void)
{
    char csv[256];
    snprintf(csv, sizeof csv, "%s1,0,batch,a,1,0,,60,h100-sxm\n", header);
    static const char *const params[2] = {"7", "70"};
    for (int k = 0; k < 2; k++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "{\"name\": \"t\", \"horizon_s\": 7200, \"fleet\": ["
                 "{\"gpu\": \"rtx4090\", \"nodes\": 1, \"gpus_per_node\": 8},"
                 "{\"gpu\": \"h100-sxm\", \"nodes\": 1, \"gpus_per_node\": 8}],"
                 " \"workload\": {\"trace\": \"TRACE\"}, \"services\": [{\"name\": \"s\","
                 " \"model_params_b\": %s, \"demand\": {\"diurnal\": {\"mean_tokens_s\": 500,"
                 " \"amplitude\": 0}}, \"autoscaler\": {\"max_replicas\": 2}}]}",
                 params[k]);
        struct run_result r;
        run(&r, text, csv, "flux");
        const struct job *slot = &r.s->jobs[r.sc->nbatch];
        int rtx = type_of(&r, "rtx4090");
        CU_ASSERT_EQUAL(slot->allowed >> rtx & 1, k == 0); /* a 70B replica never fits a 4090 */
        /* The first replica runs the whole time; its placement is kept. */
        CU_ASSERT_EQUAL_FATAL(slot->state, JOB_RUNNING);
        CU_ASSERT_EQUAL(slot->type, k == 0 ? per_dollar_best(&r) : type_of(&r, "h100-sxm"));
        CU_ASSERT_DOUBLE_EQUAL(svc_attainment(r.s), 1.0, 1e-12);
        run_result_free(&r);
    }
}

/* Two 8-GPU H100 servers, each left with four long one-GPU jobs and four
 * free GPUs once the short jobs end at 100 s; an 8-GPU job arrives at
 * 200 s.  flux migrates the four jobs of one server to the other (no work
 * lost: a migration checkpoints first) so the big job starts at once;
 * without consolidation it waits for the long jobs (10 h). */
static void test_consolidation(void)
{
    char csv[2048] = "", row[128];
    strcat(csv, header);
    for (int i = 0; i < 16; i++) {
        snprintf(row, sizeof row, "%d,0,train,a,1,0,,%d,h100-sxm\n", i + 1, i % 2 ? 100 : 36000);
        strcat(csv, row);
    }
    strcat(csv, "17,200,train,a,8,0,,8000,h100-sxm\n");
    const char *fmt = "{\"name\": \"t\", \"horizon_s\": 86400, \"fleet\": ["
                      "{\"gpu\": \"h100-sxm\", \"nodes\": 2, \"gpus_per_node\": 8}],"
                      " \"workload\": {\"trace\": \"TRACE\"}}";
    struct run_result r;
    run(&r, fmt, csv, "flux");
    const struct job *big = &r.s->jobs[16];
    CU_ASSERT_EQUAL(big->start, 200 * FS_USEC);
    CU_ASSERT_EQUAL(r.s->migrations, 4);
    CU_ASSERT_EQUAL(r.s->evictions, 0);
    /* Each moved job lost only its 300 s reload (a training job's). */
    CU_ASSERT_DOUBLE_EQUAL(r.s->lost_gpu_s, 4 * 300.0, 1e-6);
    run_result_free(&r);
    run(&r, fmt, csv, "flux-no-consolidate");
    CU_ASSERT(r.s->jobs[16].start >= 36000 * FS_USEC);
    CU_ASSERT_EQUAL(r.s->migrations, 0);
    run_result_free(&r);
}

/* One DGX H100 with four of its six PSUs failed: eight busy GPUs would
 * overload the two left.  Power-aware flux never lets its PSU load pass
 * 1; without the switch the load goes over. */
static void test_power_aware(void)
{
    char csv[1024] = "", row[128];
    strcat(csv, header);
    for (int i = 0; i < 16; i++) {
        snprintf(row, sizeof row, "%d,%d,train,a,1,0,,7200,h100-sxm\n", i + 1, i * 60);
        strcat(csv, row);
    }
    const char *fmt = "{\"name\": \"t\", \"fleet\": [{\"gpu\": \"h100-sxm\", \"nodes\": 1, "
                      "\"gpus_per_node\": 8, \"psus_failed\": 4}], \"workload\": {\"trace\": \"TRACE\"}}";
    struct run_result r;
    run(&r, fmt, csv, "flux");
    CU_ASSERT(r.m->en.psu[0].peak <= 1.0);
    CU_ASSERT(r.m->en.psu[0].peak > 0.5);
    CU_ASSERT_EQUAL(r.m->en.psu[0].overloads, 0);
    CU_ASSERT_EQUAL(r.s->ndone, 16); /* all of it still runs, fewer at a time */
    run_result_free(&r);
    run(&r, fmt, csv, "flux-no-power");
    CU_ASSERT(r.m->en.psu[0].peak > 1.0);
    run_result_free(&r);
}

/* scenarios/preempt-demo.json: a fleet kept full by best-effort batch work
 * and a chat service that needs room every morning.  flux evicts batch
 * work for it and serves more of the demand than without preemption. */
static void test_preemption_for_service(void)
{
    double attain[2];
    uint64_t evictions[2];
    static const char *const policy[2] = {"flux", "flux-no-preempt"};
    for (int k = 0; k < 2; k++) {
        struct run_result r;
        tu_sim_run(&r, tu_path("scenarios/preempt-demo.json"), policy[k]);
        attain[k] = svc_attainment(r.s);
        evictions[k] = r.s->evictions;
        run_result_free(&r);
    }
    CU_ASSERT(evictions[0] > 0);
    CU_ASSERT_EQUAL(evictions[1], 0);
    CU_ASSERT(attain[0] > attain[1] + 0.01);
}

#define PARAMS_FMT "{\"name\": \"t\", \"horizon_s\": 86400, \"fleet\": [" \
    "{\"gpu\": \"rtx4090\", \"nodes\": 1, \"gpus_per_node\": 8}," \
    "{\"gpu\": \"h100-sxm\", \"nodes\": 1, \"gpus_per_node\": 8}]," \
    " \"workload\": {\"trace\": \"TRACE\"}, \"scheduler\": {\"policy\": \"flux\", %s}}"

/* The scenario's "params": route false places as the flux-no-route alias
 * does, job for job (the 8-GPU training job on the first node, the
 * 4090s), where flux itself sends it to the H100s. */
static void test_params(void)
{
    char csv[512];
    snprintf(csv, sizeof csv, "%s1,0,train,a,8,0,,28800,h100-sxm\n2,10,train,a,1,0,,3600,h100-sxm\n"
             "3,20,infer,a,1,0,,3600,h100-sxm\n", header);
    char text[1024];
    struct run_result a, b;
    snprintf(text, sizeof text, PARAMS_FMT, "\"params\": {\"route\": false}");
    run(&a, text, csv, "flux");
    snprintf(text, sizeof text, PARAMS_FMT, "\"round_s\": 360");
    run(&b, text, csv, "flux-no-route");
    CU_ASSERT_STRING_EQUAL(a.sc->policy->name, "flux");
    CU_ASSERT_EQUAL(a.sc->policy->param[sched_param_find(a.sc->policy, "route")], 0);
    for (size_t i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(a.s->jobs[i].type, b.s->jobs[i].type);
        CU_ASSERT_EQUAL(a.s->jobs[i].start, b.s->jobs[i].start);
    }
    CU_ASSERT_EQUAL(a.s->jobs[0].type, type_of(&a, "rtx4090")); /* unrouted: the first node */
    run_result_free(&a);
    run_result_free(&b);
    snprintf(text, sizeof text, PARAMS_FMT, "\"round_s\": 360");
    run(&a, text, csv, "flux");
    CU_ASSERT_EQUAL(a.s->jobs[0].type, type_of(&a, "h100-sxm"));
    run_result_free(&a);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"routing by kind", test_routing_by_kind},
        {"routing service replicas by model size", test_routing_services},
        {"consolidation on a fragmented pair of nodes", test_consolidation},
        {"power-aware placement keeps PSU load <= 1", test_power_aware},
        {"preemption for a short service", test_preemption_for_service},
        {"parameters from the scenario", test_params},
        CU_TEST_INFO_NULL,
    };
    CU_SuiteInfo suites[] = {{"flux", NULL, NULL, NULL, NULL, tests}, CU_SUITE_INFO_NULL};
    return tu_run("test_flux", suites);
}
