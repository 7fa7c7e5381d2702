/* test_faults.c - node failures: the rate the Llama 3 counts give, a gang
 * failing as one, repairs giving nodes back, and determinism. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reports/metrics.h"
#include "../reports/summary.h"
#include "../sim/faults_run.h"
#include "testutil.h"

static struct scenario *load(const char *text)
{
    return tu_scenario(tu_tmpfile(".json", text), NULL);
}

/* The model: rates from counts over the exposure, summed per scope. */
static void test_model(void)
{
    struct fault_model *m = NULL;
    struct fs_err err = {0};
    CU_ASSERT_EQUAL_FATAL(fault_model_load(tu_path("models/data/faults.json"), &m, &err), 0);
    /* 419 interruptions over 16,384 GPUs (2,048 nodes) x 1,296 h: a node
     * of 8 GPUs fails at 419 / (2048 x 1296) an hour. */
    CU_ASSERT_DOUBLE_EQUAL(fault_node_rate_h(m, 8, 1), 419.0 / (2048 * 1296), 1e-15);
    /* Picking by u walks the causes in order of their share. */
    CU_ASSERT_STRING_EQUAL(fault_pick(m, 8, 0.0)->name, "faulty-gpu");
    CU_ASSERT_STRING_EQUAL(fault_pick(m, 8, 147.9 / 419)->name, "faulty-gpu");
    CU_ASSERT_STRING_EQUAL(fault_pick(m, 8, 148.1 / 419)->name, "gpu-hbm3");
    CU_ASSERT_STRING_EQUAL(fault_pick(m, 8, 0.99999)->name, "system-memory");
    fault_model_free(m);
}

/* scenarios/llama3.json: one 16,384-GPU job for 54 days with spares.  The
 * interruptions it suffers are within 15 % of the 419 published (the
 * Poisson spread of 419 events is about 5 %), and more frequent
 * checkpoints lose less. */
static void test_llama3(void)
{
    struct scenario *sc = tu_scenario(tu_path("scenarios/llama3.json"), NULL);
    struct run_result r;
    tu_run_loaded(&r, sc, false);
    struct sim *s = r.s;
    uint64_t n = s->faults->interruptions;
    CU_ASSERT(n >= 419 * 0.85 && n <= 419 * 1.15);
    CU_ASSERT_EQUAL(s->evictions, n); /* the one job's (its own count stops at 255) */
    /* One job: every eviction was a fault's; its loss at least the
     * restarts (600 s of 16,384 GPUs each) and at most restarts plus a
     * whole checkpoint interval each. */
    double per = 16384.0 * 3600;
    CU_ASSERT(s->lost_gpu_s >= (double)n * 600 * 16384 - 1e-3);
    CU_ASSERT(s->lost_gpu_s <= (double)n * (600 + 1800) * 16384 + per);
    run_result_free(&r);
    scenario_free(sc);
}

/* Two 8-GPU nodes and a 16-GPU gang: any failure takes the whole job down
 * (it restarts on both nodes once the failed one is repaired); with no
 * jobs left the nodes all come back. */
static void test_gang_and_repair(void)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"name\": \"t\", \"seed\": 5, \"horizon_s\": 2592000, \"fleet\": [{\"gpu\": \"h100-sxm\", "
             "\"nodes\": 2, \"gpus_per_node\": 8}], \"workload\": {\"trace\": \"%s\"}, "
             "\"faults\": {\"scale\": 2000}}",
             tu_tmpfile(".csv", "id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type\n"
                                "1,0,train,a,16,0,,1e9,h100-sxm\n"));
    struct scenario *sc = load(text);
    struct sim *s = sim_new(sc);
    sim_run(s);
    const struct fault_run *f = s->faults;
    CU_ASSERT(f->failures > 10);
    /* Each failure of a node running the job interrupted it once; a node
     * that fails while down for repair cannot (it is not running). */
    CU_ASSERT_EQUAL(s->jobs[0].evicted, f->interruptions);
    CU_ASSERT(f->interruptions > 0 && f->interruptions <= f->failures);
    /* Down nodes hold their GPUs: free + running + down = all. */
    int64_t down = 0;
    for (int32_t n = 0; n < s->cl->nnodes; n++)
        down += f->down[n] ? s->cl->nodes[n].gpus : 0;
    int64_t running = s->jobs[0].state == JOB_RUNNING ? 16 : 0;
    CU_ASSERT_EQUAL(s->cl->nodes[0].free + s->cl->nodes[1].free + down + running, 16);
    sim_free(s);
    scenario_free(sc);
}

/* Power-supply faults only (a model of one cause, effect psu, about one an
 * hour, 48 h repairs): a DGX H100 (4 + 2 supplies) running eight GPUs
 * loses supplies one at a time and keeps its job; with too few left its
 * load exceeds them, which the PSU statistics record. */
static void test_psu_faults(void)
{
    const char *model = tu_tmpfile(".json",
        "{\"about\": \"test\", \"sources\": {\"S\": {\"text\": \"t\", \"date\": \"2026\"}},"
        " \"exposure\": {\"gpus\": 8, \"gpus_per_node\": 8, \"hours\": 1, \"source\": \"S\"},"
        " \"causes\": [{\"name\": \"power-supply\", \"scope\": \"node\", \"effect\": \"psu\","
        " \"count\": 1, \"repair_h\": 48, \"source\": \"S\", \"repair_source\": \"S\"}]}");
    char text[2048];
    snprintf(text, sizeof text,
             "{\"name\": \"t\", \"seed\": 9, \"horizon_s\": 86400, \"fleet\": [{\"gpu\": \"h100-sxm\", "
             "\"nodes\": 1, \"gpus_per_node\": 8}], \"workload\": {\"trace\": \"%s\"}, "
             "\"faults\": {\"model\": \"%s\"}}",
             tu_tmpfile(".csv", "id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type\n"
                                "1,0,train,a,8,0,,1e9,h100-sxm\n"),
             model);
    struct scenario *sc = load(text);
    struct run_result r;
    tu_run_loaded(&r, sc, false);
    struct sim *s = r.s;
    const struct metrics *m = r.m;
    const struct fault_run *f = s->faults;
    CU_ASSERT(f->psu_failures >= 3);
    /* A lost supply interrupts nothing; only a fault that finds one supply
     * left takes the node (and the job) down. */
    CU_ASSERT(f->interruptions <= f->failures - f->psu_failures);
    CU_ASSERT_EQUAL(s->jobs[0].evicted, f->interruptions);
    CU_ASSERT(s->psus_ok[0] >= 1 && s->psus_ok[0] <= 6);
    CU_ASSERT(m->en.psu[0].peak > 1.0);       /* overloaded once three were gone */
    CU_ASSERT(m->en.psu[0].overloads >= 1);
    run_result_free(&r);
    scenario_free(sc);
}

/* Maintenance alone (scale 0: no failures): a window every 6 h takes one
 * of two nodes out for 1 h, moving its training job, which checkpoints
 * first and so loses only its 300 s reload each time. */
static void test_maintenance(void)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"name\": \"t\", \"horizon_s\": 86400, \"fleet\": [{\"gpu\": \"h100-sxm\", \"nodes\": 2, "
             "\"gpus_per_node\": 8}], \"workload\": {\"trace\": \"%s\"}, \"faults\": {\"scale\": 0, "
             "\"maintenance\": {\"every_s\": 21600, \"duration_s\": 3600, \"nodes\": 1}}}",
             tu_tmpfile(".csv", "id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type\n"
                                "1,0,train,a,8,0,,1e9,h100-sxm\n"));
    struct scenario *sc = load(text);
    struct sim *s = sim_new(sc);
    sim_run(s);
    const struct fault_run *f = s->faults;
    CU_ASSERT_EQUAL(f->failures, 0);
    CU_ASSERT_EQUAL(f->windows, 4); /* at 6, 12, 18 and 24 h */
    CU_ASSERT_EQUAL(s->migrations, f->planned);
    CU_ASSERT(f->planned >= 1);
    CU_ASSERT_DOUBLE_EQUAL(s->lost_gpu_s, (double)f->planned * 300 * 8, 1e-6);
    sim_free(s);
    scenario_free(sc);
}

/* Same scenario and seed, same failures; another seed, others. */
static void test_deterministic(void)
{
    uint64_t got[3][FAULT_MAX_CAUSES + 2];
    int seeds[3] = {1, 1, 2};
    for (int k = 0; k < 3; k++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "{\"name\": \"t\", \"seed\": %d, \"horizon_s\": 8640000, \"fleet\": [{\"gpu\": "
                 "\"h100-sxm\", \"nodes\": 64, \"gpus_per_node\": 8}], \"workload\": {\"generator\": "
                 "{\"jobs\": 300, \"arrivals_per_hour\": 2, \"duration_median_s\": 36000, "
                 "\"duration_sigma\": 1, \"duration_max_s\": 360000, "
                 "\"gpus\": {\"8\": 0.5, \"16\": 0.5}, \"kinds\": {\"train\": 1}, "
                 "\"teams\": {\"a\": 1}, \"reference_gpu\": \"h100-sxm\"}}, "
                 "\"faults\": {\"scale\": 50, \"shape\": 0.7}}",
                 seeds[k]);
        struct scenario *sc = load(text);
        struct sim *s = sim_new(sc);
        sim_run(s);
        memcpy(got[k], s->faults->by_cause, sizeof s->faults->by_cause);
        got[k][FAULT_MAX_CAUSES] = s->faults->interruptions;
        got[k][FAULT_MAX_CAUSES + 1] = (uint64_t)llround(s->lost_gpu_s);
        sim_free(s);
        scenario_free(sc);
    }
    CU_ASSERT(memcmp(got[0], got[1], sizeof got[0]) == 0);
    CU_ASSERT(memcmp(got[0], got[2], sizeof got[0]) != 0);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"model: rates and picking", test_model},
        {"Llama 3 interruption rate", test_llama3},
        {"a gang fails together; repairs give nodes back", test_gang_and_repair},
        {"power-supply faults: the node runs on, overloaded", test_psu_faults},
        {"maintenance windows move jobs with a checkpoint", test_maintenance},
        {"deterministic by seed", test_deterministic},
        CU_TEST_INFO_NULL,
    };
    CU_SuiteInfo suites[] = {{"faults", NULL, NULL, NULL, NULL, tests}, CU_SUITE_INFO_NULL};
    return tu_run("test_faults", suites);
}
