/* test_elastic.c - elastic and spot cloud fleets (sim/elastic.h) and their
 * bills (models/cost.h, reports/costing.h), against hand computations. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reports/costing.h"
#include "../run/run.h"
#include "../sim/elastic.h"
#include "testutil.h"

static const char *header = "id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type\n";

static int pool_nodes = 4;

/* A pool of pool_nodes (4) 8-GPU H100 instances billed `billing`, with
 * $.cost.elastic `terms` and $.kinds `kinds`, running the jobs of csv
 * (after the header). */
static void run(struct run_result *r, const char *billing, const char *terms, const char *kinds,
                const char *csv)
{
    static char text[2048], trace[4096];
    snprintf(trace, sizeof trace, "%s%s", header, csv);
    snprintf(text, sizeof text,
             "{\"name\": \"elastic\", \"seed\": 3, \"fleet\": [{\"gpu\": \"h100-sxm\", \"nodes\": %d, "
             "\"gpus_per_node\": 8}], \"workload\": {\"trace\": \"%s\"}, \"scheduler\": {\"policy\": \"fifo\"}, "
             "\"kinds\": {%s}, \"cost\": {\"billing\": \"%s\"%s%s%s}}",
             pool_nodes, tu_tmpfile(".csv", trace), kinds, billing, *terms ? ", \"elastic\": {" : "", terms,
             *terms ? "}" : "");
    tu_sim_run(r, tu_tmpfile(".json", text), NULL);
}

static double billed_h(const struct sim *s)
{
    double gpu_s = 0;
    for (int t = 0; t < GPU_MAX_TYPES; t++)
        gpu_s += s->elastic->billed_gpu_s[t];
    return gpu_s / 3600;
}

/* Sixteen 1-GPU jobs of 10 h at t = 0 fill exactly two 8-GPU instances,
 * which are requested at 0, usable at once (no provisioning delay) and
 * released when their jobs end at 10 h: 2 x 10 = 20 instance-hours, 160
 * GPU-hours.  At $6.88 per H100-hour (AWS p5, prices.json) that is
 * 160 x 6.88 = $1,100.80 for the 10-h window. */
static void test_twenty_instance_hours(void)
{
    char csv[2048] = "";
    for (int i = 1; i <= 16; i++)
        snprintf(csv + strlen(csv), sizeof csv - strlen(csv), "%d,0,train,a,1,0,,36000,h100-sxm\n", i);
    struct run_result r;
    run(&r, "cloud_elastic", "\"provision_s\": 0, \"scale_down_s\": 0", "", csv);
    const struct elastic_run *e = r.s->elastic;
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(e->requests, 2);
    CU_ASSERT_EQUAL(e->peak, 2);
    CU_ASSERT_EQUAL(r.st.completed, 16);
    CU_ASSERT_DOUBLE_EQUAL(billed_h(r.s), 20 * 8, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(e->held_gpu_s[r.s->jobs[0].type], 20 * 8 * 3600.0, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(r.st.utilization, 1, 1e-12);
    struct fleet_cost fc;
    fleet_cost_compute(r.s, r.m, COST_CLOUD, COST_ON_DEMAND, &fc);
    CU_ASSERT_TRUE_FATAL(fc.ok);
    CU_ASSERT_DOUBLE_EQUAL(fc.capacity_month_usd * fc.window_months, 1100.80, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(fc.gpus, 16, 1e-12); /* 160 GPU-hours billed over 10 h */
    int t = r.s->jobs[0].type;
    CU_ASSERT_DOUBLE_EQUAL(fc.gpus_by_type[t], 16, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(fc.util_by_type[t], 1, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(fc.idle_by_type[t], 0, 1e-9);
    /* The same pool kept all month is billed for all 32 GPUs; so is a
     * commitment, which buys capacity kept, not hours held: 32 x 6.88 x
     * 730 h x (1 - 0.37) a month. */
    fleet_cost_compute(r.s, r.m, COST_LEASED, COST_ON_DEMAND, &fc);
    CU_ASSERT_DOUBLE_EQUAL(fc.gpus, 32, 1e-12);
    fleet_cost_compute(r.s, r.m, COST_CLOUD, COST_COMMIT_1Y, &fc);
    CU_ASSERT_DOUBLE_EQUAL(fc.gpus, 32, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(fc.month_usd, 32 * 6.88 * 730 * 0.63, 1e-6);
    /* Owned, the pool would idle while not held: its energy is the fixed
     * pool's (below). */
    fleet_cost_compute(r.s, r.m, COST_OWNED, COST_ON_DEMAND, &fc);
    double owned_energy = fc.energy_month_usd;
    /* Energy: only held instances draw power.  The same jobs on a fixed
     * fleet of exactly the two instances held draw the same; the fixed
     * pool of four draws more (two idle servers for 10 h). */
    double elastic_j = r.m->en.wall_j;
    run_result_free(&r);
    pool_nodes = 2;
    run(&r, "leased", "", "", csv);
    pool_nodes = 4;
    CU_ASSERT_DOUBLE_EQUAL(elastic_j, r.m->en.wall_j, 1e-9 * r.m->en.wall_j);
    CU_ASSERT_TRUE(r.m->en.wall_j > 0);
    run_result_free(&r);
    run(&r, "leased", "", "", csv);
    CU_ASSERT_TRUE(r.m->en.wall_j > elastic_j * 1.1);
    fleet_cost_compute(r.s, r.m, COST_OWNED, COST_ON_DEMAND, &fc);
    CU_ASSERT_DOUBLE_EQUAL(owned_energy, fc.energy_month_usd, 1e-9 * fc.energy_month_usd);
    run_result_free(&r);
}

/* Hourly increments: jobs of 9.5 h hold each instance 9.5 h, billed as 10
 * started hours: 20 instance-hours again; per second it is 19. */
static void test_started_increments(void)
{
    char csv[2048] = "";
    for (int i = 1; i <= 16; i++)
        snprintf(csv + strlen(csv), sizeof csv - strlen(csv), "%d,0,train,a,1,0,,34200,h100-sxm\n", i);
    struct run_result r;
    run(&r, "cloud_elastic", "\"provision_s\": 0, \"scale_down_s\": 0, \"billing_increment_s\": 3600", "", csv);
    CU_ASSERT_DOUBLE_EQUAL(billed_h(r.s), 20 * 8, 1e-9);
    run_result_free(&r);
    run(&r, "cloud_elastic", "\"provision_s\": 0, \"scale_down_s\": 0, \"billing_increment_s\": 1", "", csv);
    CU_ASSERT_DOUBLE_EQUAL(billed_h(r.s), 19 * 8, 1e-9);
    run_result_free(&r);
    CU_ASSERT_EQUAL(cost_elastic_billed(0, 1, 60), 60);
    CU_ASSERT_EQUAL(cost_elastic_billed(3601, 3600, 60), 7200);
    CU_ASSERT_EQUAL(cost_elastic_billed(3600, 3600, 60), 3600);
}

/* A job submitted at 100 s with nothing held waits for its instance:
 * requested at 100 s, usable 300 s later, so it starts at 400 s, a wait of
 * exactly the delay.  A second job at 200 s fits the instance on its way:
 * no second request, and it starts at 400 s too (a 200-s wait).  The
 * instance, idle from the jobs' end at 400 + 3600 s, is released 600 s
 * later: billed 100 s .. 4600 s, 4,500 s of 8 GPUs. */
static void test_provisioning_wait(void)
{
    struct run_result r;
    run(&r, "cloud_elastic", "\"provision_s\": 300, \"scale_down_s\": 600", "",
        "1,100,train,a,1,0,,3600,h100-sxm\n2,200,train,a,1,0,,3600,h100-sxm\n");
    CU_ASSERT_EQUAL(r.s->elastic->requests, 1);
    CU_ASSERT_EQUAL(r.s->jobs[0].start, 400 * FS_USEC);
    CU_ASSERT_EQUAL(r.s->jobs[1].start, 400 * FS_USEC);
    CU_ASSERT_DOUBLE_EQUAL(r.st.wait_max, 300, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(billed_h(r.s) * 3600, 8 * 4500.0, 1e-6);
    run_result_free(&r);
}

/* What a spot job saw: per eviction, the segment's length and the work
 * left when it began and right after it was evicted. */
struct spot_log {
    double seg_left, lost, checks;
    int evictions, restarts_after_delay;
    fs_time evicted_at;
};

static void spot_notify(void *ctx, struct sim *s, enum sim_note note, const struct job *j)
{
    struct spot_log *l = ctx;
    if (!j)
        return;
    if (note == SIM_START) {
        l->seg_left = sim_remaining(s, 0);
        if (l->evictions && s->now - l->evicted_at == 300 * FS_USEC)
            l->restarts_after_delay++;
    } else if (note == SIM_EVICT) {
        /* Checkpoints every 1,800 s of running, no reload (restart_s 0),
         * rate 1 GPU-second a second: the work since the last checkpoint,
         * tau mod 1800, is lost and the rest is kept. */
        double tau = fs_to_seconds(s->now - j->seg);
        double kept = floor(tau / 1800) * 1800;
        l->lost += tau - kept;
        if (fabs(sim_remaining(s, 0) - (l->seg_left - kept)) < 1e-6)
            l->checks++;
        l->evictions++;
        l->evicted_at = s->now;
    }
}

/* One 1-GPU job of 2,000 h on spot instances that are interrupted 99 % a
 * month (mean time to interruption 730 / ln 100 = 158.5 h): about a dozen
 * interruptions, each losing exactly the work since the last checkpoint,
 * and each followed by a new instance after the 300-s delay. */
static void test_spot_loses_since_checkpoint(void)
{
    struct run_result r = {0};
    struct spot_log l = {0};
    char text[2048], trace[512];
    snprintf(trace, sizeof trace, "%s1,0,train,a,1,0,,7200000,h100-sxm\n", header);
    snprintf(text, sizeof text,
             "{\"name\": \"spot\", \"seed\": 5, \"fleet\": [{\"gpu\": \"h100-sxm\", \"nodes\": 1, "
             "\"gpus_per_node\": 8}], \"workload\": {\"trace\": \"%s\"}, "
             "\"kinds\": {\"train\": {\"checkpoint_s\": 1800, \"restart_s\": 0}}, "
             "\"cost\": {\"billing\": \"cloud_spot\", \"elastic\": {\"provision_s\": 300, "
             "\"spot_interrupted_share_month\": 0.99}}}",
             tu_tmpfile(".csv", trace));
    struct scenario *sc = tu_scenario(tu_tmpfile(".json", text), NULL);
    r.s = sim_new(sc);
    r.m = metrics_new(r.s, NULL);
    sim_observe(r.s, metrics_observer(r.m));
    sim_observe(r.s, (struct sim_observer){.ctx = &l, .notify = spot_notify});
    sim_run(r.s);
    const struct elastic_run *e = r.s->elastic;
    CU_ASSERT_TRUE(l.evictions >= 3);
    CU_ASSERT_EQUAL(e->interruptions, (uint64_t)l.evictions);
    CU_ASSERT_EQUAL(l.checks, l.evictions);
    CU_ASSERT_EQUAL(l.restarts_after_delay, l.evictions);
    CU_ASSERT_DOUBLE_EQUAL(r.s->lost_gpu_s, l.lost, 1e-6);
    CU_ASSERT_EQUAL(r.s->jobs[0].state, JOB_DONE);
    /* The job ran its 2,000 h plus what it lost, after 300 s waits. */
    double ran = fs_to_seconds(r.s->jobs[0].ran);
    CU_ASSERT_DOUBLE_EQUAL(ran, 7200000 + l.lost, 1e-3);
    printf("\n    spot: %d interruptions, %.1f GPU-hours lost\n", l.evictions, l.lost / 3600);
    /* Spot is billed at on demand less 40 % (prices.json). */
    struct fleet_cost fc;
    fleet_cost_compute(r.s, r.m, COST_CLOUD, COST_ON_DEMAND, &fc);
    CU_ASSERT_DOUBLE_EQUAL(fc.capacity_month_usd * fc.window_months, billed_h(r.s) * 6.88 * 0.6, 1e-6);
    metrics_free(r.m);
    sim_free(r.s);
    scenario_free(sc);
}

/* Bad input: elastic terms without elastic billing, commitments on an
 * elastic fleet, faults with one. */
static void test_bad_elastic(void)
{
    static const char *const bad[] = {
        "\"cost\": {\"billing\": \"cloud\", \"elastic\": {\"provision_s\": 1}}",
        "\"cost\": {\"billing\": \"cloud_elastic\", \"commit\": \"1y\"}",
        "\"cost\": {\"billing\": \"cloud_spot\", \"elastic\": {\"spot_interrupted_share_month\": 1}}",
        "\"cost\": {\"billing\": \"cloud_elastic\"}, \"horizon_s\": 86400, \"faults\": {\"scale\": 50}",
        "\"cost\": {\"billing\": \"cloud_flexible\"}",
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char text[1024];
        snprintf(text, sizeof text, "{\"name\": \"b\", \"fleet\": [{\"gpu\": \"h100-sxm\", \"nodes\": 1, "
                 "\"gpus_per_node\": 8}], \"workload\": {\"trace\": \"%s\"}, %s}",
                 tu_tmpfile(".csv", "id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type\n"
                                    "1,0,train,a,1,0,,60,h100-sxm\n"), bad[k]);
        struct scenario_options so = {.catalog = tu_path("models/data/gpus.json")};
        struct scenario *sc = NULL;
        struct fs_err err = {0};
        int rc = scenario_load(tu_tmpfile(".json", text), &so, &sc, &err);
        CU_ASSERT_EQUAL(rc, FS_EDATA);
        CU_ASSERT_PTR_NULL(sc);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "$.cost") ? err.msg : strstr(err.msg, "$.faults: node faults are not"));
        scenario_free(sc);
    }
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"two instances for 10 h bill 20 instance-hours", test_twenty_instance_hours},
        {"billed per started increment", test_started_increments},
        {"a job waits exactly the provisioning delay", test_provisioning_wait},
        {"a spot interruption loses the work since the checkpoint", test_spot_loses_since_checkpoint},
        {"bad elastic settings", test_bad_elastic},
        CU_TEST_INFO_NULL,
    };
    CU_SuiteInfo suites[] = {{"elastic", NULL, NULL, NULL, NULL, tests}, CU_SUITE_INFO_NULL};
    return tu_run("elastic", suites);
}
