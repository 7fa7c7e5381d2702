/* test_engine.c - fluid progress, event order, and run-wide invariants. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reports/check.h"
#include "../reports/metrics.h"
#include "testutil.h"

/* Load a scenario from JSON text. */
static struct scenario *load(const char *text)
{
    return tu_scenario(tu_tmpfile(".json", text), NULL);
}

/* One 8-GPU A100 node running the jobs of a native CSV. */
static struct scenario *load_one_node(const char *csv)
{
    char text[1024];
    snprintf(text, sizeof text, "{\"name\": \"t\", \"fleet\": [{\"gpu\": \"a100-sxm-80\", \"nodes\": 1, "
             "\"gpus_per_node\": 8}], \"workload\": {\"trace\": \"%s\"}}", tu_tmpfile(".csv", csv));
    return load(text);
}
static const char *header = "id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type\n";

/* At job 2's arrival (t = 300 s) job 1's rate doubles. */
static void double_rate(void *ctx, struct sim *s, enum sim_note note, const struct job *j)
{
    double *left = ctx;
    if (note == SIM_SUBMIT && j->id == 2) {
        *left = sim_remaining(s, 0);
        sim_set_rate(s, 0, 2.0);
    }
}

static void test_settle_on_rate_change(void)
{
    char csv[512];
    snprintf(csv, sizeof csv, "%s1,0,train,a,1,0,,1000,a100-sxm-80\n"
                              "2,300,train,a,1,0,,100,h100-sxm\n", header);
    struct scenario *sc = load_one_node(csv);
    struct sim *s = sim_new(sc);
    double left = -1;
    sim_observe(s, (struct sim_observer){.ctx = &left, .notify = double_rate});
    sim_run(s);
    /* 1000 GPU-s at rate 1 for 300 s leaves 700; at rate 2 that takes 350 s. */
    CU_ASSERT_DOUBLE_EQUAL(left, 700.0, 1e-9);
    CU_ASSERT_EQUAL(s->jobs[0].end, 650 * FS_USEC);
    /* Job 2's 100 H100-seconds of training on an A100 take 100 s times the
     * model's H100/A100 training ratio (between 1.9 and 2.6, test_perf),
     * rounded up to the microsecond. */
    double r = perf_relative(sc->perf, s->jobs[1].workload, gpu_catalog_find(sc->cat, "h100-sxm"),
                             gpu_catalog_find(sc->cat, "a100-sxm-80"));
    CU_ASSERT(r > 1.9 && r < 2.6);
    fs_time want = 300 * FS_USEC + (fs_time)ceil(100.0 * r * 1e6);
    CU_ASSERT_EQUAL(s->jobs[1].end, want);
    CU_ASSERT_EQUAL(s->end, 650 * FS_USEC); /* the later of the two */
    sim_free(s);
    scenario_free(sc);
}

struct order_log {
    int64_t ids[16];
    int notes[16];
    int n;
};

static void log_notes(void *ctx, struct sim *s, enum sim_note note, const struct job *j)
{
    struct order_log *log = ctx;
    (void)s;
    if (j && log->n < 16) {
        log->ids[log->n] = j->id;
        log->notes[log->n++] = (int)note;
    }
}

/* Equal submit times are taken in id order; all arrivals at one instant are
 * submitted before the one scheduling cycle of that instant starts them. */
static void test_equal_time_order(void)
{
    char csv[512];
    snprintf(csv, sizeof csv, "%s7,10,train,a,1,0,,50,a100-sxm-80\n3,10,infer,a,1,0,,50,a100-sxm-80\n"
                              "5,10,batch,a,1,0,,50,a100-sxm-80\n", header);
    struct scenario *sc = load_one_node(csv);
    struct sim *s = sim_new(sc);
    struct order_log log = {0};
    sim_observe(s, (struct sim_observer){.ctx = &log, .notify = log_notes});
    sim_run(s);
    int64_t ids[] = {3, 5, 7, 3, 5, 7, 3, 5, 7};
    int notes[] = {SIM_SUBMIT, SIM_SUBMIT, SIM_SUBMIT, SIM_START, SIM_START, SIM_START,
                   SIM_FINISH, SIM_FINISH, SIM_FINISH};
    CU_ASSERT_EQUAL_FATAL(log.n, 9);
    for (int k = 0; k < 9; k++) {
        CU_ASSERT_EQUAL(log.ids[k], ids[k]);
        CU_ASSERT_EQUAL(log.notes[k], notes[k]);
    }
    sim_free(s);
    scenario_free(sc);
}

#define MIXED(policy) \
    "{\"name\": \"inv\", \"seed\": 7, \"horizon_s\": 200000, \"fleet\": [" \
    "{\"gpu\": \"h100-sxm\", \"nodes\": 3, \"gpus_per_node\": 8}," \
    "{\"gpu\": \"a100-sxm-80\", \"nodes\": 2, \"gpus_per_node\": 4}," \
    "{\"gpu\": \"rtx4090\", \"nodes\": 3, \"gpus_per_node\": 8}]," \
    "\"workload\": {\"generator\": {\"jobs\": 1500, \"arrivals_per_hour\": 30," \
    "\"duration_median_s\": 3600, \"duration_sigma\": 1.2," \
    "\"gpus\": {\"1\": 0.5, \"2\": 0.2, \"4\": 0.2, \"16\": 0.1}," \
    "\"kinds\": {\"train\": 1, \"infer\": 1}, \"teams\": {\"a\": 1, \"b\": 2}," \
    "\"reference_gpu\": \"a100-sxm-80\"}}, \"scheduler\": {\"policy\": \"" policy "\"}," \
    "\"output\": {\"timeseries_interval_s\": 1800}}"

static void run_invariants(const char *json)
{
    struct scenario *sc = load(json);
    struct run_result r;
    tu_run_loaded(&r, sc, true);
    const struct sim *s = r.s;
    const struct metrics *m = r.m;
    const struct check c = r.ck;
    CU_ASSERT_EQUAL(c.violations, 0);
    if (c.violations)
        fprintf(stderr, "check: %s\n", c.first);
    /* One note per submission, start and finish, and the end. */
    int64_t expect = 1;
    for (size_t i = 0; i < s->njobs; i++)
        expect += (s->jobs[i].state != JOB_FUTURE) + (s->jobs[i].start >= 0) + (s->jobs[i].end >= 0);
    CU_ASSERT_EQUAL(c.notes, expect);
    CU_ASSERT(s->ndone > 100);
    /* Allocated GPU-time: the integral equals the sum over jobs of GPUs x
     * run time (clipped at the horizon), exactly, in milli-GPU-microseconds. */
    metrics_wide integral = 0, by_jobs = 0;
    for (int t = 0; t < sc->cat->n; t++)
        integral += m->alloc_us[t];
    for (size_t i = 0; i < s->njobs; i++) {
        const struct job *j = &s->jobs[i];
        if (j->start >= 0)
            by_jobs += (metrics_wide)j->gpus * GPU_MILLI * ((j->end >= 0 ? j->end : s->end) - j->start);
    }
    CU_ASSERT(integral == by_jobs);
    CU_ASSERT(integral > 0);
    CU_ASSERT_EQUAL(s->end, 200000 * FS_USEC);
    run_result_free(&r);
    scenario_free(sc);
}

static void test_invariants_fifo(void) { run_invariants(MIXED("fifo")); }
static void test_invariants_best_fit(void) { run_invariants(MIXED("best-fit")); }
static void test_invariants_spread(void) { run_invariants(MIXED("spread")); }

/* The same scenario twice: identical starts, ends and placements. */
static void test_deterministic(void)
{
    struct scenario *a = load(MIXED("best-fit")), *b = load(MIXED("best-fit"));
    struct sim *sa = sim_new(a), *sb = sim_new(b);
    sim_run(sa);
    sim_run(sb);
    int diff = 0;
    for (size_t i = 0; i < sa->njobs; i++)
        diff += sa->jobs[i].start != sb->jobs[i].start || sa->jobs[i].end != sb->jobs[i].end ||
                sa->jobs[i].node != sb->jobs[i].node;
    CU_ASSERT_EQUAL(diff, 0);
    CU_ASSERT_EQUAL(sa->events, sb->events);
    sim_free(sa);
    sim_free(sb);
    scenario_free(a);
    scenario_free(b);
}

/* Records the per-GPU watts of jobs 0 and 1 as they start. */
static void record_watts(void *ctx, struct sim *s, enum sim_note note, const struct job *j)
{
    double *w = ctx;
    size_t i = (size_t)(j ? j - s->jobs : 0);
    if (note == SIM_START && i < 2)
        w[i] = sim_gpu_w(s, i);
}

/* Energy conservation on a hand-checkable run: one A100 node, a 2-GPU
 * training job from 0 to T and a 1-GPU inference job from 100 s to T2.
 * GPU joules must equal idle power on every GPU for the window plus each
 * job's (power - idle) x GPUs x run time; node DC joules the node model
 * evaluated on each of the three constant stretches. */
static void test_energy_conservation(void)
{
    char csv[512];
    snprintf(csv, sizeof csv, "%s1,0,train,a,2,0,,2000,a100-sxm-80\n"
                              "2,100,infer,a,1,0,,500,a100-sxm-80\n", header);
    struct scenario *sc = load_one_node(csv);
    struct sim *s = sim_new(sc);
    struct metrics *m = metrics_new(s, NULL);
    double w[2] = {0, 0};
    sim_observe(s, metrics_observer(m));
    sim_observe(s, (struct sim_observer){.ctx = w, .notify = record_watts});
    sim_run(s);
    const struct gpu_type *t = &sc->cat->types[s->cl->nodes[0].type];
    const struct job *a = &s->jobs[0], *b = &s->jobs[1];
    double wa = w[0], wb = w[1], end = fs_to_seconds(s->end);
    CU_ASSERT(wa > t->idle_w && wa <= t->tdp_w && wb > t->idle_w && wb <= t->tdp_w);
    double ra = fs_to_seconds(a->end - a->start), rb = fs_to_seconds(b->end - b->start);
    double want = 8 * t->idle_w * end + 2 * (wa - t->idle_w) * ra + (wb - t->idle_w) * rb;
    CU_ASSERT_DOUBLE_EQUAL(m->en.gpu_j, want, 1e-9 * want);

    /* Node DC: piecewise over the stretches between the four events. */
    fs_time cuts[] = {0, b->start, a->end < b->end ? a->end : b->end, s->end};
    double dc = 0;
    for (int k = 0; k < 3; k++) {
        fs_time mid = (cuts[k] + cuts[k + 1]) / 2;
        double gw = 8 * t->idle_w;
        if (a->start <= mid && mid < a->end)
            gw += 2 * (wa - t->idle_w);
        if (b->start <= mid && mid < b->end)
            gw += wb - t->idle_w;
        double act = (gw - 8 * t->idle_w) / (8 * (t->tdp_w - t->idle_w));
        struct node_power np = node_power_eval(sc->nodes, sc->fleet_power[0].node, gw, act, sc->fleet_power[0].psus_ok);
        dc += np.dc_w * fs_to_seconds(cuts[k + 1] - cuts[k]);
    }
    CU_ASSERT_DOUBLE_EQUAL(m->en.dc_j, dc, 1e-9 * dc);
    CU_ASSERT(m->en.wall_j > m->en.dc_j); /* PSUs lose some */
    metrics_free(m);
    sim_free(s);
    scenario_free(sc);
}

/* A per-GPU power cap below what the work draws slows it along the fitted
 * cap curve, and the GPUs draw the cap. */
static void test_power_cap(void)
{
    char csv[256], text[1024];
    snprintf(csv, sizeof csv, "%s1,0,train,a,1,0,,1000,a100-sxm-80\n", header);
    const char *trace = tu_tmpfile(".csv", csv);
    fs_time ends[2];
    double watts[2];
    for (int capped = 0; capped < 2; capped++) {
        snprintf(text, sizeof text, "{\"name\": \"cap\", \"fleet\": [{\"gpu\": \"a100-sxm-80\", \"nodes\": 1, "
                 "\"gpus_per_node\": 8%s}], \"workload\": {\"trace\": \"%s\"}}",
                 capped ? ", \"power_cap_w\": 250" : "", trace);
        struct scenario *sc = load(text);
        struct sim *s = sim_new(sc);
        double w[2] = {0, 0};
        sim_observe(s, (struct sim_observer){.ctx = w, .notify = record_watts});
        sim_run(s);
        ends[capped] = s->jobs[0].end;
        watts[capped] = w[0];
        if (capped) {
            double speed = power_cap_speed(sc->power, 250, watts[0]);
            CU_ASSERT(speed > 0.3 && speed < 1);
            /* 1000 A100-seconds at rate 1 take 1000 s; at the capped speed,
             * 1000 / speed, rounded up to the microsecond. */
            CU_ASSERT_EQUAL(ends[1], (fs_time)ceil(1000.0 / speed * 1e6));
        }
        sim_free(s);
        scenario_free(sc);
    }
    CU_ASSERT(watts[0] > 250);
    CU_ASSERT_DOUBLE_EQUAL(watts[1], 250, 0);
    CU_ASSERT_EQUAL(ends[0], 1000 * FS_USEC);
}

/* At job 2's arrival the engine miscounts its completed jobs (a counter
 * nothing else reads, so the run goes on): the checker must see it. */
static void corrupt(void *ctx, struct sim *s, enum sim_note note, const struct job *j)
{
    (void)ctx;
    if (note == SIM_SUBMIT && j->id == 2)
        s->ndone += 5;
}

static void test_check_catches(void)
{
    char csv[512];
    snprintf(csv, sizeof csv, "%s1,0,train,a,1,0,,1000,a100-sxm-80\n2,300,train,a,1,0,,100,a100-sxm-80\n", header);
    struct scenario *sc = load_one_node(csv);
    struct sim *s = sim_new(sc);
    struct metrics *m = metrics_new(s, NULL);
    struct check c = {.m = m};
    sim_observe(s, metrics_observer(m));
    sim_observe(s, (struct sim_observer){.notify = corrupt});
    sim_observe(s, check_observer(&c));
    sim_run(s);
    CU_ASSERT(c.violations > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(c.first, "engine counters 1/1/5"));
    CU_ASSERT_PTR_NOT_NULL(strstr(c.first, "at t = 300.000000 s"));
    metrics_free(m);
    sim_free(s);
    scenario_free(sc);
}

/* Evict job 1 when job 2 arrives (t = 4000 s) and again when job 3 does
 * (t = 4100 s, while it is still reloading). */
static void evict_on_arrival(void *ctx, struct sim *s, enum sim_note note, const struct job *j)
{
    (void)ctx;
    if (note == SIM_SUBMIT && j->id >= 2 && s->jobs[0].state == JOB_RUNNING)
        sim_evict(s, 0, false);
}

/* A training job (checkpoint every 1800 s, 300 s to reload: the defaults)
 * of 10,000 GPU-s at rate 1.  At 4000 s it has saved 3600 s (two
 * checkpoints) and loses 400; it restarts at once: 300 s reloading, then
 * 6400 s.  Evicted again at 4100 s, 100 s into the reload, it saved
 * nothing more and loses those 100 s; it restarts at once and ends at
 * 4100 + 300 + 6400 = 10800 s.  Lost: 400 + 100 + 300 (the last reload). */
static void test_preemption(void)
{
    char csv[512];
    snprintf(csv, sizeof csv, "%s1,0,train,a,1,0,,10000,a100-sxm-80\n"
                              "2,4000,batch,b,1,0,,10,a100-sxm-80\n"
                              "3,4100,batch,b,1,0,,10,a100-sxm-80\n", header);
    struct scenario *sc = load_one_node(csv);
    struct sim *s = sim_new(sc);
    struct metrics *m = metrics_new(s, NULL);
    sim_observe(s, metrics_observer(m));
    sim_observe(s, (struct sim_observer){.notify = evict_on_arrival});
    sim_run(s);
    const struct job *j = &s->jobs[0];
    CU_ASSERT_EQUAL(s->evictions, 2);
    CU_ASSERT_EQUAL(j->evicted, 2);
    CU_ASSERT_EQUAL(j->start, 0);
    CU_ASSERT_EQUAL(j->end, 10800 * FS_USEC);
    CU_ASSERT_DOUBLE_EQUAL(s->lost_gpu_s, 800.0, 1e-9);
    CU_ASSERT_EQUAL(job_ran(j, s->end), 10800 * FS_USEC);
    /* The allocation integral counts every segment, exactly. */
    metrics_wide want = 0;
    for (size_t i = 0; i < s->njobs; i++)
        want += (metrics_wide)metrics_job_milli(&s->jobs[i]) * job_ran(&s->jobs[i], s->end);
    CU_ASSERT(m->alloc_us[s->jobs[0].type] == want);
    metrics_free(m);
    sim_free(s);
    scenario_free(sc);
}

/* A job that keeps no checkpoints (batch) starts over. */
static void test_preemption_no_checkpoint(void)
{
    char csv[512];
    snprintf(csv, sizeof csv, "%s1,0,batch,a,1,0,,10000,a100-sxm-80\n"
                              "2,4000,batch,b,1,0,,10,a100-sxm-80\n", header);
    struct scenario *sc = load_one_node(csv);
    struct sim *s = sim_new(sc);
    sim_observe(s, (struct sim_observer){.notify = evict_on_arrival});
    sim_run(s);
    /* 4000 s lost, 30 s reload (the batch default), then all 10,000 s. */
    CU_ASSERT_EQUAL(s->jobs[0].end, (4000 + 30 + 10000) * FS_USEC);
    CU_ASSERT_DOUBLE_EQUAL(s->lost_gpu_s, 4030.0, 1e-9);
    sim_free(s);
    scenario_free(sc);
}

/* The timeseries row bound as the run goes: one job submitted at 0 runs
 * 1000 s on one GPU and the scenario has no horizon, so the loader's check
 * (rows up to the last arrival: none) passes and the run itself crosses the
 * bound.  With 1-s rows the run closes 1000 intervals: a limit of 100 ends
 * it at the 101st with exit code 65's FS_EDATA and the message naming the
 * key; a limit of 1000 lets it finish.  The shipped bound (10,000,000)
 * takes about 30 s of work to reach, so the test lowers it (run_spec's
 * timeseries_limit, which no option sets). */
static void test_timeseries_row_bound(void)
{
    char text[1024];
    snprintf(text, sizeof text, "{\"name\": \"t\", \"fleet\": [{\"gpu\": \"a100-sxm-80\", \"nodes\": 1, "
             "\"gpus_per_node\": 8}], \"output\": {\"timeseries_interval_s\": 1}, \"workload\": "
             "{\"trace\": \"%s\"}}", tu_tmpfile(".csv", "id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,"
                                              "work_gpu_s,ref_type\n1,0,train,a,1,0,,1000,a100-sxm-80\n"));
    struct scenario *sc = load(text);
    struct run_result r;
    struct fs_err err = {0};
    int rc = run_scenario(&(struct run_spec){.sc = sc, .timeseries_limit = 100}, &r, &err);
    CU_ASSERT_EQUAL(rc, FS_EDATA);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "$.output.timeseries_interval_s: 1 s makes more than 100 "
                                           "timeseries rows before the run ends (it had reached 100 s)"));
    run_result_free(&r);
    err = (struct fs_err){0};
    CU_ASSERT_EQUAL(run_scenario(&(struct run_spec){.sc = sc, .timeseries_limit = 1000}, &r, &err), 0);
    CU_ASSERT_EQUAL(r.s->jobs[0].end, 1000 * FS_USEC);
    run_result_free(&r);
    scenario_free(sc);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"settle on rate change", test_settle_on_rate_change},
        {"equal-time order", test_equal_time_order},
        {"invariants under fifo", test_invariants_fifo},
        {"invariants under best-fit", test_invariants_best_fit},
        {"invariants under spread", test_invariants_spread},
        {"deterministic", test_deterministic},
        {"energy conservation", test_energy_conservation},
        {"power cap slows along the fitted curve", test_power_cap},
        {"preemption resumes from the checkpoint", test_preemption},
        {"the invariant checker catches a miscount", test_check_catches},
        {"preemption without checkpoints starts over", test_preemption_no_checkpoint},
        {"the timeseries row bound ends a run that outlasts its arrivals", test_timeseries_row_bound},
        CU_TEST_INFO_NULL,
    };
    CU_SuiteInfo suites[] = {
        {"engine", NULL, NULL, NULL, NULL, tests},
        CU_SUITE_INFO_NULL,
    };
    return tu_run("test_engine", suites);
}
