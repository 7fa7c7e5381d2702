/* test_rounds.c - the round mechanism of the time-sharing policies
 * (sim/rounds.h): priorities and choices over a few rounds, worked by
 * hand, and what heterogeneity awareness changes on Gavel's matrix.
 *
 * Tolerances: priorities 1e-9 (they are ratios of exact sums of seconds);
 * completion times 1e-3 s (the engine rounds completions up to the next
 * microsecond). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../io/scenario.h"
#include "../sim/engine.h"
#include "../sim/rounds.h"
#include "testutil.h"

#define GAVEL_FILE "../shared/traces/gavel/simulation_throughputs.json"

/* Load a scenario of the jobs in csv (native CSV) on fleet (fleet groups)
 * with extra workload keys, run it under policy to horizon (0: to the
 * end).  OUT *sc: the scenario.  RET: the sim, after its run. */
static struct sim *run_until(const char *csv, const char *fleet, const char *extra, const char *policy,
                             double horizon, struct scenario **sc)
{
    char text[2048], hz[64] = "";
    if (horizon > 0)
        snprintf(hz, sizeof hz, "\"horizon_s\": %.0f, ", horizon);
    snprintf(text, sizeof text,
             "{\"name\": \"rounds\", \"seed\": 1, %s\"fleet\": [%s],"
             " \"workload\": {\"trace\": \"%s\"%s}, \"scheduler\": {\"policy\": \"%s\"}}",
             hz, fleet, tu_tmpfile(".csv", csv), extra, policy);
    *sc = tu_scenario(tu_tmpfile(".json", text), NULL);
    struct sim *s = sim_new(*sc);
    sim_run(s);
    return s;
}

/* Two equal jobs on one GPU under LAS: each is allocated half of it.  At a
 * reset every job's time is half a round (180 s) and the type's time their
 * sum (360 s).  Round 1 (t = 0): both 0.5 / (180 / 360) = 1, the tie goes
 * to the earlier job, A.  Round 2 (t = 360): A has 540 of 720 s, priority
 * 0.5 / 0.75 = 2/3; B 180 of 720, 0.5 / 0.25 = 2: B runs.  Round 3
 * (t = 720): 540 and 540 of 1080, both 1 again: A.  Round 4 (t = 1080):
 * A 900 of 1440 s, 0.8; B 540 of 1440, 4/3: B. */
static void test_alternation(void)
{
    static const char csv[] = "id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type\n"
                              "0,0,train,t,1,0,,1e6,v100m16\n"
                              "1,0,train,t,1,0,,1e6,v100m16\n";
    static const char fleet[] = "{\"gpu\": \"v100m16\", \"nodes\": 1, \"gpus_per_node\": 1}";
    static const struct {
        double at, pa, pb;
        int running;
    } want[] = {{100, 1, 1, 0}, {400, 2.0 / 3, 2, 1}, {800, 1, 1, 0}, {1100, 0.8, 4.0 / 3, 1}};
    int v100 = -1;
    for (size_t k = 0; k < FS_ARRAY_LEN(want); k++) {
        struct scenario *sc;
        struct sim *s = run_until(csv, fleet, "", "las", want[k].at, &sc);
        v100 = gpu_catalog_find(sc->cat, "v100m16");
        CU_ASSERT_DOUBLE_EQUAL(rounds_priority(s, 0, v100), want[k].pa, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(rounds_priority(s, 1, v100), want[k].pb, 1e-9);
        CU_ASSERT_EQUAL(s->jobs[want[k].running].state, JOB_RUNNING);
        CU_ASSERT_EQUAL(s->jobs[1 - want[k].running].state, JOB_QUEUED);
        CU_ASSERT_EQUAL(rounds_count(s), k + 1);
        sim_free(s);
        scenario_free(sc);
    }
}

/* A job that arrives mid-round waits for the next round; one that finishes
 * mid-round leaves its GPU idle until the round ends, unless it was the
 * last one running, when the next round starts at once. */
static void test_round_edges(void)
{
    static const char csv[] = "id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type\n"
                              "0,0,train,t,1,0,,100,v100m16\n"
                              "1,50,train,t,1,0,,1000,v100m16\n";
    static const char fleet[] = "{\"gpu\": \"v100m16\", \"nodes\": 2, \"gpus_per_node\": 1}";
    struct scenario *sc;
    struct sim *s = run_until(csv, fleet, "", "las", 0, &sc);
    /* Job 0 ends at 100 s, the last one running: job 1 (arrived at 50 s)
     * starts then, and runs 1000 s alone. */
    CU_ASSERT_DOUBLE_EQUAL(fs_to_seconds(s->jobs[0].end), 100, 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(fs_to_seconds(s->jobs[1].start), 100, 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(fs_to_seconds(s->jobs[1].end), 1100, 1e-3);
    CU_ASSERT_EQUAL(s->migrations, 0);
    sim_free(s);
    scenario_free(sc);
}

/* On one V100 and one P100 of Gavel's matrix, Recommendation (batch size
 * 512) runs 2.1x faster on the P100 and CycleGAN 1.8x faster on the V100.
 * Gavel-LAS gives each its fast GPU for good: no job ever moves, and each
 * ends at its work over its speed there.  LAS splits both GPUs evenly, so
 * jobs trade GPUs round after round and both end later. */
static void test_matrix(void)
{
    if (access(GAVEL_FILE, R_OK) != 0) {
        tu_skip("%s is absent", GAVEL_FILE);
        return;
    }
    static const char csv[] = "id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type\n"
                              "0,0,train,Recommendation bs512,1,0,,36000,v100m16\n"
                              "1,0,train,CycleGAN,1,0,,36000,v100m16\n";
    static const char fleet[] = "{\"gpu\": \"v100m16\", \"nodes\": 1, \"gpus_per_node\": 1},"
                                " {\"gpu\": \"p100\", \"nodes\": 1, \"gpus_per_node\": 1}";
    char types[PATH_MAX + 128], abs[PATH_MAX];
    CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(GAVEL_FILE, abs));
    snprintf(types, sizeof types, ", \"job_types\": {\"gavel\": \"%s\", \"gpus\":"
             " {\"v100\": \"v100m16\", \"p100\": \"p100\"}}", abs);
    /* Gavel's figures for Recommendation, steps per second on V100 and
     * P100, to 6 digits (each off by up to 2e-6 of itself: 0.1 s below). */
    const double rec_v = 23.3176, rec_p = 48.8824;
    struct scenario *sc;
    struct sim *s = run_until(csv, fleet, types, "gavel-las", 0, &sc);
    int p100 = gpu_catalog_find(sc->cat, "p100"), v100 = gpu_catalog_find(sc->cat, "v100m16");
    CU_ASSERT_EQUAL(s->migrations, 0);
    CU_ASSERT_EQUAL(s->jobs[0].type, p100);
    CU_ASSERT_EQUAL(s->jobs[1].type, v100);
    CU_ASSERT_DOUBLE_EQUAL(fs_to_seconds(s->jobs[0].end), 36000 / (rec_p / rec_v), 0.1);
    CU_ASSERT_DOUBLE_EQUAL(fs_to_seconds(s->jobs[1].end), 36000, 1e-3);
    double aware = fs_to_seconds(s->jobs[0].end + s->jobs[1].end);
    sim_free(s);
    scenario_free(sc);
    s = run_until(csv, fleet, types, "las", 0, &sc);
    CU_ASSERT(s->migrations > 10);
    double agnostic = fs_to_seconds(s->jobs[0].end + s->jobs[1].end);
    printf("\n    sum of completion times: gavel-las %.0f s, las %.0f s", aware, agnostic);
    CU_ASSERT(agnostic > 1.2 * aware);
    sim_free(s);
    scenario_free(sc);
}

static CU_TestInfo tests[] = {
    {"LAS on one GPU: priorities over four rounds, by hand", test_alternation},
    {"arrivals wait for a round; the last finish ends it", test_round_edges},
    {"Gavel's matrix: Gavel-LAS keeps each job on its fast GPU", test_matrix},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"rounds", NULL, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};

int main(void)
{
    return tu_run("rounds", suites);
}
