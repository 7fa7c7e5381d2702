/* test_backfill.c - the backfill policy's reservation at node level, on a
 * hand-made trace (the check against an independent scheduler on a real
 * log is tests/backfill/run.sh).  Two 8-GPU nodes; every job's run time
 * equals its limit (measured work, exact estimates):
 *
 *   A  t=0  8 GPUs  1000 s   node 0
 *   B  t=0  2 GPUs  2000 s   node 1 (6 free)
 *   C  t=1 16 GPUs  1000 s   the head: both nodes whole, not before 2000
 *   D  t=2  4 GPUs   500 s   fits now on node 1 and ends by 2000: backfills
 *   E  t=3  2 GPUs  5000 s   fits now on node 1 but would hold it at 2000:
 *                            refused, waits for C
 *   F  t=3  2 GPUs  5000 s   as E (listed before it in the file, id after
 *                            it): refused too, both start when C ends
 */
#include <CUnit/CUnit.h>
#include <stdio.h>

#include "testutil.h"

#define HDR "id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type," \
            "time_limit_s,kill_at_limit,measured\n"

static void run_policy(const char *policy, fs_time start[6])
{
    const char *trace = tu_tmpfile(".csv", HDR
        "1,0,batch,t,8,0,,8000,h100-sxm,1000,,1\n"
        "2,0,batch,t,2,0,,4000,h100-sxm,2000,,1\n"
        "3,1,batch,t,16,0,,16000,h100-sxm,1000,,1\n"
        "4,2,batch,t,4,0,,2000,h100-sxm,500,,1\n"
        "6,3,batch,t,2,0,,10000,h100-sxm,5000,,1\n"
        "5,3,batch,t,2,0,,10000,h100-sxm,5000,,1\n");
    char text[512];
    snprintf(text, sizeof text, "{\"name\": \"bf\", \"seed\": 1, \"fleet\": [{\"gpu\": \"h100-sxm\", "
             "\"nodes\": 2, \"gpus_per_node\": 8}], \"workload\": {\"trace\": \"%s\"}, "
             "\"scheduler\": {\"policy\": \"%s\"}}", trace, policy);
    struct run_result r;
    tu_sim_run(&r, tu_tmpfile(".json", text), NULL);
    CU_ASSERT_EQUAL_FATAL(r.sc->wl.n, 6);
    for (size_t i = 0; i < 6; i++) /* sorted by (submit, id): ids 1..6 */
        start[r.sc->wl.jobs[i].id - 1] = r.sc->wl.jobs[i].start;
    CU_ASSERT_EQUAL(r.st.completed, 6);
    run_result_free(&r);
}

static void test_reservation(void)
{
    const fs_time s = FS_USEC;
    fs_time bf[6], fifo[6];
    run_policy("backfill", bf);
    CU_ASSERT_EQUAL(bf[0], 0);
    CU_ASSERT_EQUAL(bf[1], 0);
    CU_ASSERT_EQUAL(bf[2], 2000 * s);    /* the head, when B ends */
    CU_ASSERT_EQUAL(bf[3], 2 * s);       /* backfilled */
    CU_ASSERT_EQUAL(bf[4], 3000 * s);    /* E (id 5): after C */
    CU_ASSERT_EQUAL(bf[5], 3000 * s);    /* F (id 6) */
    run_policy("fifo", fifo);
    CU_ASSERT_EQUAL(fifo[2], 2000 * s);
    CU_ASSERT_EQUAL(fifo[3], 3000 * s);  /* fifo: D waits behind C */
}

static CU_TestInfo tests[] = {
    {"node-level reservation: backfill, refusal, order", test_reservation},
    CU_TEST_INFO_NULL,
};

int main(void)
{
    CU_SuiteInfo suites[] = {
        {"backfill", NULL, NULL, NULL, NULL, tests},
        CU_SUITE_INFO_NULL,
    };
    return tu_run("test_backfill", suites);
}
