/* test_traces.c - the readers on the real public traces, when
 * ../shared/traces is present (skipped, saying so, when it is not): job and
 * node counts, SWF MaxProcs, and Azure token totals against an independent
 * scan of the files. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../io/readers.h"
#include "testutil.h"

#define TRACES "../shared/traces"

/* ---- the real traces ---------------------------------------------------------------------- */

static int have_traces(void)
{
    if (access(TRACES, R_OK) == 0)
        return 1;
    tu_skip(TRACES " not present");
    return 0;
}

/* Data lines of a CSV (not the header, not blank) by a plain scan. */
static long long csv_rows(const char *path, long long sum_col[2])
{
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char line[1024];
    long long n = -1;
    while (fgets(line, sizeof line, f)) {
        if (line[strspn(line, " \t\r\n")] == '\0')
            continue;
        if (++n == 0 || !sum_col)
            continue;
        char *c2 = strrchr(line, ','), *c1;
        *c2 = '\0';
        c1 = strrchr(line, ',');
        sum_col[0] += atoll(c1 + 1);
        sum_col[1] += atoll(c2 + 1);
    }
    fclose(f);
    return n;
}

static void test_real_traces(void)
{
    if (!have_traces())
        return;
    struct workload w;
    struct reader_stats st;
    struct fs_err e = {0};

    const char *philly = TRACES "/philly/philly.csv";
    workload_init(&w);
    CU_ASSERT_EQUAL_FATAL(philly_read(philly, NULL, tu_cat, &w, &st, &e), 0);
    CU_ASSERT_EQUAL(w.n, 82247);
    CU_ASSERT(st.rows == csv_rows(philly, NULL) && st.rows == st.jobs + st.dropped);
    CU_ASSERT(st.dropped == 0 && w.jobs[0].submit == 0);
    workload_free(&w);

    const char *pods = TRACES "/alibaba-openb/openb_pod_list_default.csv";
    workload_init(&w);
    CU_ASSERT_EQUAL_FATAL(openb_read_pods(pods, NULL, tu_cat, &w, &st, &e), 0);
    CU_ASSERT(w.n == 8152 && st.dropped == 0 && csv_rows(pods, NULL) == 8152);
    workload_free(&w);
    workload_init(&w);
    CU_ASSERT_EQUAL(openb_read_pods(TRACES "/alibaba-openb/openb_pod_list_multigpu50.csv", NULL,
                                    tu_cat, &w, &st, &e), 0);
    CU_ASSERT_EQUAL(w.n, 9061);
    workload_free(&w);

    struct fleet_group *g = NULL;
    int n = 0, skipped = 0;
    long long nodes = 0, gpus = 0;
    CU_ASSERT_EQUAL_FATAL(openb_read_nodes(TRACES "/alibaba-openb/openb_node_list_gpu_node.csv",
                                           tu_cat, &g, &n, &skipped, &e), 0);
    for (int i = 0; i < n; i++)
        nodes += g[i].nodes, gpus += (long long)g[i].nodes * g[i].gpus_per_node;
    CU_ASSERT(nodes == 1213 && gpus == 6212 && skipped == 0);
    free(g);
    CU_ASSERT_EQUAL_FATAL(openb_read_nodes(TRACES "/alibaba-openb/openb_node_list_all_node.csv",
                                           tu_cat, &g, &n, &skipped, &e), 0);
    CU_ASSERT_EQUAL(skipped, 1523 - 1213);
    free(g);

    /* SWF: every job within the header's MaxProcs, read by a plain scan. */
    const char *swf = TRACES "/swf/hpc2n_alea_first3171.swf";
    FILE *f = fopen(swf, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char line[512];
    int max_procs = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "; MaxProcs: %d", &max_procs) == 1)
            break;
    fclose(f);
    CU_ASSERT_EQUAL(max_procs, 240);
    workload_init(&w);
    CU_ASSERT_EQUAL_FATAL(swf_read(swf, NULL, tu_cat, &w, &st, &e), 0);
    CU_ASSERT(st.rows == 3170 && st.rows == st.jobs + st.dropped && w.n == (size_t)st.jobs);
    for (size_t i = 0; i < w.n; i++)
        CU_ASSERT(w.jobs[i].gpus >= 1 && w.jobs[i].gpus <= max_procs);
    printf("(philly 82247, openb 8152, hpc2n %lld of %lld, %lld dropped: %s) ", st.jobs, st.rows,
           st.dropped, st.nreasons ? st.reasons[0].why : "-");
    workload_free(&w);

    /* Azure: the totals equal the columns' sums. */
    const char *az[] = {TRACES "/azure-llm-2023/AzureLLMInferenceTrace_code.csv",
                        TRACES "/azure-llm-2023/AzureLLMInferenceTrace_conv.csv"};
    for (size_t i = 0; i < FS_ARRAY_LEN(az); i++) {
        long long sums[2] = {0, 0};
        long long rows = csv_rows(az[i], sums);
        struct demand_curve d;
        CU_ASSERT_EQUAL_FATAL(azure_read_demand(az[i], 60, &d, &e), 0);
        CU_ASSERT((long long)d.requests == rows);
        CU_ASSERT(d.total_prompt == (double)sums[0] && d.total_output == (double)sums[1]);
        double p = 0, o = 0;
        for (size_t b = 0; b < d.n; b++)
            p += d.prompt_tokens[b], o += d.output_tokens[b];
        CU_ASSERT(p == (double)sums[0] && o == (double)sums[1]);
        demand_curve_free(&d);
    }
}

static CU_TestInfo tests[] = {
    {"the real traces (skipped without ../shared/traces)", test_real_traces},
    CU_TEST_INFO_NULL,
};

int main(void)
{
    CU_SuiteInfo suites[] = {
        {"traces", tu_cat_setup, tu_cat_teardown, NULL, NULL, tests},
        CU_SUITE_INFO_NULL,
    };
    return tu_run("test_traces", suites);
}
