/* test_sacct.c - the Slurm sacct reader (io/read_sacct.c) on the
 * hand-written tests/sacct/sample.txt: job steps, array tasks, a pending
 * array, a heterogeneous job, GPU types through tests/sacct/gpu-map.csv,
 * pending, cancelled, failed, timed-out, running and requeued jobs, a job
 * without GPUs and one with two GPU types - every row kept or dropped by
 * reason, counted; then malformed files, each an error naming file and
 * line; the scenario reading sacct directly; and a hard limit killing a
 * job that runs past it. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/readers.h"
#include "testutil.h"

#define SAMPLE "tests/sacct/sample.txt"
#define MAP "tests/sacct/gpu-map.csv"
#define HDR "JobID|Submit|Start|End|Elapsed|Timelimit|AllocTRES|ReqTRES|Partition|Account|State|NNodes\n"

static int read_sacct(const char *path, const char *map, bool keep_cpu, struct workload *w,
                      struct reader_stats *st, struct fs_err *e)
{
    struct reader_options ro = {.ref_type = -1, .gpu_map = map ? tu_path(map) : NULL,
                                .keep_cpu = keep_cpu};
    return trace_reader_find("sacct")->read(path, &ro, tu_cat, w, st, e);
}

/* The count of drop reason why (0 when absent). */
static long long dropped(const struct reader_stats *st, const char *why)
{
    for (int i = 0; i < st->nreasons; i++)
        if (strcmp(st->reasons[i].why, why) == 0)
            return st->reasons[i].count;
    return 0;
}

static const struct job *by_id(const struct workload *w, int64_t id)
{
    for (size_t i = 0; i < w->n; i++)
        if (w->jobs[i].id == id)
            return &w->jobs[i];
    CU_FAIL("job id not found");
    return NULL;
}

static void test_counts(void)
{
    struct workload w;
    struct reader_stats st;
    struct fs_err e = {0};
    workload_init(&w);
    /* 18 data rows: 7 jobs kept, 11 dropped, each reason counted. */
    CU_ASSERT_EQUAL_FATAL(read_sacct(tu_path(SAMPLE), MAP, false, &w, &st, &e), 0);
    CU_ASSERT_EQUAL(st.rows, 18);
    CU_ASSERT_EQUAL(st.jobs, 7);
    CU_ASSERT_EQUAL(w.n, 7);
    CU_ASSERT_EQUAL(st.dropped, 11);
    CU_ASSERT_EQUAL(dropped(&st, "job step (its job's own row counts)"), 3);
    CU_ASSERT_EQUAL(dropped(&st, "never started (PENDING)"), 1);
    CU_ASSERT_EQUAL(dropped(&st, "never started (CANCELLED)"), 1);
    CU_ASSERT_EQUAL(dropped(&st, "no GPUs (kept with keep_cpu_jobs / --keep-cpu-jobs)"), 2);
    CU_ASSERT_EQUAL(dropped(&st, "still running (no end time)"), 1);
    CU_ASSERT_EQUAL(dropped(&st, "ran 0 s"), 1);
    CU_ASSERT_EQUAL(dropped(&st, "REQUEUED (the job's later record counts)"), 1);
    CU_ASSERT_EQUAL(dropped(&st, "GPUs of more than one type"), 1);
    long long sum = 0;
    for (int i = 0; i < st.nreasons; i++)
        sum += st.reasons[i].count;
    CU_ASSERT_EQUAL(sum, st.dropped);
    CU_ASSERT_EQUAL(st.rows, st.jobs + st.dropped);

    int a100 = gpu_catalog_find(tu_cat, "a100-sxm-80"), h100 = gpu_catalog_find(tu_cat, "h100-sxm");
    int l40s = gpu_catalog_find(tu_cat, "l40s");
    /* Job 100: 4 mapped A100s for 1 h, submitted 1 h after the earliest (108). */
    const struct job *j = by_id(&w, 100);
    CU_ASSERT(j->gpus == 4 && j->ref_type == a100 && j->allowed == 1ULL << a100);
    CU_ASSERT_DOUBLE_EQUAL(j->work, 4 * 3600.0, 1e-9);
    CU_ASSERT(j->submit == 3600 * FS_USEC && j->limit == 7200 * FS_USEC);
    CU_ASSERT(j->kill_at_limit == 1 && j->measured == 1 && j->kind == JOB_BATCH);
    CU_ASSERT_STRING_EQUAL(w.teams[j->team], "ml-research");
    /* Array tasks 101_1 and 101_2 (the failed one counts: it ran 5 min). */
    const int64_t hi = (int64_t)1 << 32;
    CU_ASSERT(by_id(&w, 101 * hi + 1)->ref_type == h100);
    CU_ASSERT_DOUBLE_EQUAL(by_id(&w, 101 * hi + 2)->work, 300.0, 1e-9);
    /* The heterogeneous job's GPU component; its CPU component is dropped. */
    j = by_id(&w, 102 * hi + ((int64_t)1 << 31));
    CU_ASSERT(j->gpus == 8 && j->limit == 86400 * FS_USEC);
    /* The TIMEOUT job ran its whole limit; L40S maps case-insensitively. */
    CU_ASSERT_DOUBLE_EQUAL(by_id(&w, 103)->work, 2 * 7200.0, 1e-9);
    j = by_id(&w, 108);
    CU_ASSERT(j->ref_type == l40s && j->submit == 0);
    /* No GPU type: the reference type, any type allowed, no limit (UNLIMITED),
     * team from the partition (no account). */
    j = by_id(&w, 111);
    CU_ASSERT(j->ref_type == a100 && j->allowed == 0 && j->limit == 0 && j->kill_at_limit == 0);
    CU_ASSERT_STRING_EQUAL(w.teams[j->team], "gpu");
    workload_free(&w);

    /* Kept CPU jobs: 102+1 and 105, work = run time. */
    workload_init(&w);
    CU_ASSERT_EQUAL_FATAL(read_sacct(tu_path(SAMPLE), MAP, true, &w, &st, &e), 0);
    CU_ASSERT(st.jobs == 9 && st.dropped == 9);
    j = by_id(&w, 105);
    CU_ASSERT(j->gpus == 0);
    CU_ASSERT_DOUBLE_EQUAL(j->work, 300.0, 1e-9);
    CU_ASSERT(by_id(&w, 102 * hi + ((int64_t)1 << 31) + 1)->gpus == 0);
    workload_free(&w);
}

/* A file of one header and rows fails naming file:line and sub. */
static void expect(const char *text, const char *map, const char *sub)
{
    const char *path = tu_tmpfile(".txt", text);
    struct workload w;
    struct reader_stats st;
    struct fs_err e = {0};
    workload_init(&w);
    CU_ASSERT_EQUAL(read_sacct(path, map, false, &w, &st, &e), FS_EDATA);
    CU_ASSERT_EQUAL(w.n, 0);
    bool ok = strstr(e.msg, sub) != NULL;
    CU_ASSERT(ok);
    if (!ok)
        fprintf(stderr, "\n  want \"%s\", got \"%s\"\n", sub, e.msg);
    workload_free(&w);
}

#define ROW_A "1|2024-03-01T10:00:00|2024-03-01T10:00:05|2024-03-01T11:00:05|01:00:00|02:00:00|"
#define ROW_Z "|gpu|acct|COMPLETED|1\n"

static void test_malformed(void)
{
    expect(HDR "1|2024-03-01T10:00:00|x\n", MAP, ":2: expected 12 '|'-separated fields");
    expect(HDR "1|2024-03-01 10:00|2024-03-01T10:00:05|2024-03-01T11:00:05|01:00:00|02:00:00|"
               "gres/gpu=1|" ROW_Z, MAP, ":2: column Submit: expected a date-time");
    expect(HDR "1|2024-03-01T10:00:00|2024-03-01T10:00:05|2024-03-01T11:00:05|01:00:00|2:x:00|"
               "gres/gpu=1|" ROW_Z, MAP, ":2: column Timelimit: expected [D-]HH:MM:SS");
    expect(HDR ROW_A "cpu=4,gres/gpu|" ROW_Z, MAP, ":2: column AllocTRES: expected NAME=VALUE");
    expect(HDR ROW_A "gres/gpu=two|" ROW_Z, MAP, ":2: column AllocTRES: expected an integer");
    expect(HDR ROW_A "gres/gpu:a100=1,gres/gpu=1|" ROW_Z, NULL,
           ":2: column AllocTRES: GPU type \"a100\" is not in the catalog");
    expect(HDR ROW_A "gres/gpu:b200=1|" ROW_Z, MAP, "GPU type \"b200\" is not in the catalog");
    expect(HDR "1|2024-03-01T10:00:00|2024-03-01T10:00:05|2024-03-01T09:00:05|01:00:00|02:00:00|"
               "gres/gpu=1|" ROW_Z, MAP, ":2: column End: 2024-03-01T09:00:05 is before Start");
    expect(HDR "x1|2024-03-01T10:00:00|2024-03-01T10:00:05|2024-03-01T11:00:05|01:00:00|02:00:00|"
               "gres/gpu=1|" ROW_Z, MAP, ":2: column JobID: expected a job id");
    expect(HDR ROW_A "gres/gpu=1||gpu|acct||1\n", MAP, ":2: column State: empty job state");
    expect(HDR ROW_A "gres/gpu=1|" "|gpu|acct|COMPLETED|-1\n", MAP, ":2: column NNodes: must be 0..");
    expect("JobID|Submit|Start|End|AllocTRES\n", MAP, ":1: no column State");
    expect("JobID|Submit|Start|State|AllocTRES\n", MAP, ":1: no column End or Elapsed");
    expect("", MAP, ":1: empty file");
    expect(HDR ROW_A "gres/gpu=1|" ROW_Z, "tests/sacct/sample.txt",
           "sample.txt:1: bad header; expected \"slurm_type,catalog_type\"");
    const char *bad_map = tu_tmpfile(".csv", "slurm_type,catalog_type\na100,a100-sxm-800\n");
    struct workload w;
    struct fs_err e = {0};
    workload_init(&w);
    struct reader_options ro = {.ref_type = -1, .gpu_map = bad_map};
    CU_ASSERT_EQUAL(trace_reader_find("sacct")->read(tu_path(SAMPLE), &ro, tu_cat, &w, NULL, &e), FS_EDATA);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, ":2: column catalog_type: unknown GPU type \"a100-sxm-800\""));
    CU_ASSERT_EQUAL(w.n, 0);
    workload_free(&w);
}

/* A scenario reads the sacct log directly, with its mapping file relative
 * to the scenario; a job that runs past its hard limit is killed there. */
static void test_scenario_and_limits(void)
{
    char text[2048], *sample = realpath(tu_path(SAMPLE), NULL), *map = realpath(tu_path(MAP), NULL);
    CU_ASSERT_FATAL(sample && map);
    snprintf(text, sizeof text, "{\"name\": \"s\", \"seed\": 1, \"fleet\": [{\"gpu\": \"a100-sxm-80\", "
             "\"nodes\": 2, \"gpus_per_node\": 8}, {\"gpu\": \"h100-sxm\", \"nodes\": 1, \"gpus_per_node\": 8}, "
             "{\"gpu\": \"l40s\", \"nodes\": 1, \"gpus_per_node\": 4}], \"workload\": {\"trace\": \"%s\", "
             "\"format\": \"sacct\", \"gpu_map\": \"%s\", \"keep_cpu_jobs\": true}, "
             "\"scheduler\": {\"policy\": \"backfill\"}}", sample, map);
    free(sample);
    free(map);
    struct run_result r;
    tu_sim_run(&r, tu_tmpfile(".json", text), NULL);
    CU_ASSERT_EQUAL(r.sc->wl.n, 9);
    CU_ASSERT_EQUAL(r.st.completed, 9);
    CU_ASSERT(r.st.limits && r.st.timed_out == 0);
    run_result_free(&r);

    /* Native CSV: job 1 runs 2 h of work on an RTX 4090 against a 1 h hard
     * limit; job 2 the same without kill_at_limit; job 3 has time to spare. */
    const char *trace = tu_tmpfile(".csv",
        "id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type,time_limit_s,kill_at_limit,measured\n"
        "1,0,batch,t,1,0,,7200,rtx4090,3600,1,1\n"
        "2,0,batch,t,1,0,,7200,rtx4090,3600,,1\n"
        "3,0,batch,t,1,0,,1800,rtx4090,3600,1,1\n");
    snprintf(text, sizeof text, "{\"name\": \"k\", \"seed\": 1, \"fleet\": [{\"gpu\": \"rtx4090\", "
             "\"nodes\": 1, \"gpus_per_node\": 8}], \"workload\": {\"trace\": \"%s\"}, "
             "\"scheduler\": {\"policy\": \"fifo\"}}", trace);
    tu_sim_run(&r, tu_tmpfile(".json", text), NULL);
    const struct job *j = r.sc->wl.jobs;
    CU_ASSERT(j[0].timed_out == 1 && j[0].end == 3600 * FS_USEC);
    CU_ASSERT(j[1].timed_out == 0 && j[1].end == 7200 * FS_USEC);
    CU_ASSERT(j[2].timed_out == 0 && j[2].end == 1800 * FS_USEC);
    CU_ASSERT(r.st.timed_out == 1 && r.st.completed == 3);
    run_result_free(&r);

    /* gpu_map belongs to a sacct trace only. */
    snprintf(text, sizeof text, "{\"name\": \"k\", \"seed\": 1, \"fleet\": [{\"gpu\": \"rtx4090\", "
             "\"nodes\": 1, \"gpus_per_node\": 8}], \"workload\": {\"trace\": \"%s\", \"gpu_map\": \"m.csv\"}, "
             "\"scheduler\": {\"policy\": \"fifo\"}}", trace);
    struct scenario *sc = NULL;
    struct fs_err e = {0};
    struct scenario_options so = {.catalog = tu_path("models/data/gpus.json")};
    CU_ASSERT_EQUAL(scenario_load(tu_tmpfile(".json", text), &so, &sc, &e), FS_EDATA);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "gpu_map and keep_cpu_jobs are for a sacct trace"));
    scenario_free(sc);
}

static CU_TestInfo tests[] = {
    {"sample: every row kept or dropped, counted", test_counts},
    {"malformed files: file:line errors", test_malformed},
    {"scenario reads sacct; hard limits kill", test_scenario_and_limits},
    CU_TEST_INFO_NULL,
};

int main(void)
{
    CU_SuiteInfo suites[] = {
        {"sacct", tu_cat_setup, tu_cat_teardown, NULL, NULL, tests},
        CU_SUITE_INFO_NULL,
    };
    return tu_run("test_sacct", suites);
}
