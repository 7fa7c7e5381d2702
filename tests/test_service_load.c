/* test_service_load.c - the services spec loader: a full spec and the
 * defaults, and errors that name the file, the JSON path or the trace line
 * (models/service.h). */
#include "../models/service.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define S(x) ((fs_time)((x) * FS_USEC)) /* whole seconds to fs_time */

/* ---- loading ------------------------------------------------------------- */

/* Load {"services": SERVICES} as scenario "scen.json" in folder /tmp.
 * RET: the loader's code; *out / *n as it leaves them. */
static int load(const char *services, struct service_spec **out, int *n, struct fs_err *err)
{
    char text[4096];
    snprintf(text, sizeof text, "{\"services\": %s}", services);
    cJSON *root = cJSON_Parse(text);
    CU_ASSERT_FATAL(root != NULL);
    int rc = service_specs_load(cJSON_GetObjectItem(root, "services"), "scen.json", tu_cat, "/tmp",
                                out, n, err);
    cJSON_Delete(root);
    return rc;
}

/* A trace file in /tmp; RET: its name relative to /tmp. */
static const char *trace_file(const char *text)
{
    const char *p = tu_tmpfile(".csv", text);
    return strrchr(p, '/') + 1;
}

static void test_load_full(void)
{
    const char *tr = trace_file("time_s,prompt_tokens,output_tokens\n0,100,600\n60,0,600\n\n120,5,1200\n");
    char js[2048];
    snprintf(js, sizeof js,
             "[{\"name\": \"chat-7b\", \"team\": \"product\", \"model_params_b\": 7,"
             " \"priority\": \"standard\", \"allowed_types\": [\"rtx4090\", \"h100-sxm\"],"
             " \"request\": {\"prompt_tokens\": 500, \"output_tokens\": 100},"
             " \"demand\": {\"trace\": \"%s\", \"scale\": 2, \"repeat\": true},"
             " \"autoscaler\": {\"target_util\": 0.6, \"min_replicas\": 0, \"max_replicas\": 4,"
             "  \"up_delay_s\": 30, \"down_delay_s\": 90, \"cold_start_s\": 45, \"tick_s\": 10},"
             " \"slo\": {\"latency_s\": 2.5, \"tpot_s\": 0.1}},"
             " {\"name\": \"llm-70b\", \"model_params_b\": 70,"
             "  \"demand\": {\"diurnal\": {\"mean_tokens_s\": 5000}}},"
             " {\"name\": \"batch-8b\", \"model_params_b\": 8, \"priority\": \"standard\","
             "  \"demand\": {\"diurnal\": {\"mean_tokens_s\": 100}}}]", tr);
    struct service_spec *sp;
    int n;
    struct fs_err err = {0};
    int rc = load(js, &sp, &n, &err);
    if (rc)
        printf("\n%s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_STRING_EQUAL(sp[0].name, "chat-7b");
    CU_ASSERT_STRING_EQUAL(sp[0].team, "product");
    CU_ASSERT_DOUBLE_EQUAL(sp[0].params, 7e9, 1e-3);
    CU_ASSERT_EQUAL(sp[0].priority, SERVICE_STANDARD);
    CU_ASSERT_TRUE(service_allows(&sp[0], gpu_catalog_find(tu_cat, "rtx4090")));
    CU_ASSERT_FALSE(service_allows(&sp[0], gpu_catalog_find(tu_cat, "a100-sxm-80")));
    CU_ASSERT_EQUAL(sp[0].prompt_tokens, 500);
    CU_ASSERT_EQUAL(sp[0].output_tokens, 100);
    CU_ASSERT_EQUAL(sp[0].demand.kind, SERVICE_TRACE);
    CU_ASSERT_TRUE(sp[0].demand.repeat);
    CU_ASSERT_EQUAL(sp[0].demand.n, 3);
    CU_ASSERT_EQUAL(sp[0].demand.bin, S(60));
    CU_ASSERT_DOUBLE_EQUAL(sp[0].demand.rate[2], 1200 * 2 / 60.0, 1e-12);
    CU_ASSERT_EQUAL(sp[0].as.min_replicas, 0);
    CU_ASSERT_EQUAL(sp[0].as.max_replicas, 4);
    CU_ASSERT_EQUAL(sp[0].as.up_delay, S(30));
    CU_ASSERT_EQUAL(sp[0].as.down_delay, S(90));
    CU_ASSERT_EQUAL(sp[0].as.cold_start, S(45));
    CU_ASSERT_EQUAL(sp[0].as.tick, S(10));
    CU_ASSERT_DOUBLE_EQUAL(sp[0].as.target_util, 0.6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(sp[0].slo_latency_s, 2.5, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(sp[0].tpot_target_s, 0.1, 1e-15);
    /* TPOT targets by priority: MLPerf's Interactive 40 ms and Server 200 ms. */
    CU_ASSERT_DOUBLE_EQUAL(sp[1].tpot_target_s, 0.04, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(sp[2].tpot_target_s, 0.2, 1e-15);
    /* The defaults. */
    CU_ASSERT_STRING_EQUAL(sp[1].team, "llm-70b");
    CU_ASSERT_EQUAL(sp[1].priority, SERVICE_LATENCY);
    CU_ASSERT_EQUAL(sp[1].allowed, 0);
    CU_ASSERT_EQUAL(sp[1].prompt_tokens, SERVICE_PROMPT_TOKENS);
    CU_ASSERT_EQUAL(sp[1].output_tokens, SERVICE_OUTPUT_TOKENS);
    CU_ASSERT_EQUAL(sp[1].demand.kind, SERVICE_DIURNAL);
    CU_ASSERT_EQUAL(sp[1].demand.amplitude, 0);
    CU_ASSERT_EQUAL(sp[1].demand.peak, S(14 * 3600));
    CU_ASSERT_EQUAL(sp[1].demand.period, S(86400));
    CU_ASSERT_EQUAL(sp[1].demand.step, S(300));
    CU_ASSERT_DOUBLE_EQUAL(sp[1].as.target_util, 0.7, 1e-15);
    CU_ASSERT_EQUAL(sp[1].as.min_replicas, 1);
    CU_ASSERT_EQUAL(sp[1].as.max_replicas, 16);
    CU_ASSERT_EQUAL(sp[1].as.up_delay, 0);
    CU_ASSERT_EQUAL(sp[1].as.down_delay, S(300));
    CU_ASSERT_EQUAL(sp[1].as.cold_start, S(120));
    CU_ASSERT_EQUAL(sp[1].as.tick, S(15));
    CU_ASSERT_EQUAL(sp[1].slo_latency_s, 0);
    service_specs_free(sp, n);

    /* No services, and an empty array: nothing to free. */
    CU_ASSERT_EQUAL(service_specs_load(NULL, "scen.json", tu_cat, NULL, &sp, &n, &err), 0);
    CU_ASSERT_PTR_NULL(sp);
    CU_ASSERT_EQUAL(n, 0);
    CU_ASSERT_EQUAL(load("[]", &sp, &n, &err), 0);
    CU_ASSERT_PTR_NULL(sp);
    service_specs_free(NULL, 0);
}

/* The load fails with code and a message containing want. */
static void bad(const char *services, int code, const char *want)
{
    struct service_spec *sp = (struct service_spec *)&sp; /* must be reset */
    int n = -1;
    struct fs_err err = {0};
    int rc = load(services, &sp, &n, &err);
    CU_ASSERT_EQUAL(rc, code);
    CU_ASSERT_PTR_NULL(sp);
    CU_ASSERT_EQUAL(n, 0);
    if (!strstr(err.msg, want))
        printf("\n  wanted \"%s\" in: %s\n", want, err.msg);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
}

#define DIURNAL "\"demand\": {\"diurnal\": {\"mean_tokens_s\": 100}}"

static void test_load_errors(void)
{
    char js[1024];
    bad("{}", FS_EDATA, "scen.json: $.services: expected an array");
    bad("[3]", FS_EDATA, "$.services[0]: expected an object");
    bad("[{\"name\": \"a\", \"model_params_b\": 7, \"demnd\": {}}]", FS_EDATA,
        "scen.json: $.services[0]: unknown key \"demnd\"; did you mean \"demand\"?");
    bad("[{\"name\": \"a\", \"model_params_b\": 7}]", FS_EDATA, "$.services[0]: missing key \"demand\"");
    bad("[{\"name\": \"a\", " DIURNAL "}]", FS_EDATA, "missing key \"model_params_b\"");
    bad("[{\"name\": \"a\", \"model_params_b\": 0, " DIURNAL "}]", FS_EDATA,
        "$.services[0].model_params_b: 0 is out of range");
    bad("[{\"name\": \"a,b\", \"model_params_b\": 7, " DIURNAL "}]", FS_EDATA, "$.services[0].name:");
    bad("[{\"name\": \"a\", \"model_params_b\": 7, \"priority\": \"high\", " DIURNAL "}]", FS_EDATA,
        "$.services[0].priority: \"high\"");
    bad("[{\"name\": \"a\", \"model_params_b\": 7, \"allowed_types\": [\"h100\"], " DIURNAL "}]",
        FS_EDATA, "$.services[0].allowed_types[0]: unknown GPU type \"h100\"; did you mean");
    bad("[{\"name\": \"a\", \"model_params_b\": 7, \"allowed_types\": [], " DIURNAL "}]", FS_EDATA,
        "$.services[0].allowed_types: empty");
    bad("[{\"name\": \"a\", \"model_params_b\": 7, \"allowed_types\": [\"t4\", \"t4\"], " DIURNAL "}]",
        FS_EDATA, "allowed_types[1]: \"t4\" given twice");
    bad("[{\"name\": \"a\", \"model_params_b\": 7, " DIURNAL "}, {\"name\": \"a\", \"model_params_b\": 7, "
        DIURNAL "}]", FS_EDATA, "$.services[1].name: \"a\" is also $.services[0]'s name");
    bad("[{\"name\": \"a\", \"model_params_b\": 7, " DIURNAL ", \"autoscaler\": {\"min_replicas\": 5,"
        " \"max_replicas\": 2}}]", FS_EDATA, "$.services[0].autoscaler.max_replicas: 2 is less than");
    bad("[{\"name\": \"a\", \"model_params_b\": 7, " DIURNAL ", \"autoscaler\": {\"target_util\": 0}}]",
        FS_EDATA, "$.services[0].autoscaler.target_util: 0 is out of range");
    bad("[{\"name\": \"a\", \"model_params_b\": 7, " DIURNAL ", \"slo\": {\"latency\": 2}}]", FS_EDATA,
        "$.services[0].slo: unknown key \"latency\"");
    bad("[{\"name\": \"a\", \"model_params_b\": 7, \"demand\": {}}]", FS_EDATA,
        "$.services[0].demand: give exactly one of \"trace\" and \"diurnal\"");
    bad("[{\"name\": \"a\", \"model_params_b\": 7, \"demand\": {\"diurnal\": {\"mean_tokens_s\": 1},"
        " \"scale\": 2}}]", FS_EDATA, "$.services[0].demand.scale: only with \"trace\"");
    bad("[{\"name\": \"a\", \"model_params_b\": 7, \"demand\": {\"diurnal\": {\"mean_tokens_s\": 1,"
        " \"peak_hour\": 24}}}]", FS_EDATA, "$.services[0].demand.diurnal.peak_hour: 24 must be less than 24");
    bad("[{\"name\": \"a\", \"model_params_b\": 7, \"demand\": {\"diurnal\": {\"mean_tokens_s\": 1,"
        " \"amplitude\": 1.5}}}]", FS_EDATA, "$.services[0].demand.diurnal.amplitude: 1.5 is out of range");
    bad("[{\"name\": \"a\", \"model_params_b\": 7, \"demand\": {\"diurnal\": {\"mean_tokens_s\": 1,"
        " \"period_s\": 600, \"step_s\": 900}}}]", FS_EDATA, "$.services[0].demand.diurnal.step_s");
    bad("[{\"name\": \"a\", \"model_params_b\": 7, \"demand\": {\"trace\": \"no-such-file.csv\"}}]",
        FS_ENOINPUT, "/tmp/no-such-file.csv: cannot open");

    const char *tr = trace_file("time_s,prompt_tokens,output_tokens\n0,1,1\n60,1,1\n100,1,1\n");
    snprintf(js, sizeof js, "[{\"name\": \"a\", \"model_params_b\": 7, \"demand\": {\"trace\": \"%s\"}}]", tr);
    bad(js, FS_EDATA, ":4: column time_s: 100; expected 120");
    tr = trace_file("time_s,prompt_tokens,output_tokens\n0,1,-1\n");
    snprintf(js, sizeof js, "[{\"name\": \"a\", \"model_params_b\": 7, \"demand\": {\"trace\": \"%s\"}}]", tr);
    bad(js, FS_EDATA, ":2: column output_tokens: must be in");
    tr = trace_file("time,prompt_tokens,output_tokens\n0,1,1\n");
    snprintf(js, sizeof js, "[{\"name\": \"a\", \"model_params_b\": 7, \"demand\": {\"trace\": \"%s\"}}]", tr);
    bad(js, FS_EDATA, ":1: bad header");
    tr = trace_file("time_s,prompt_tokens,output_tokens\n");
    snprintf(js, sizeof js, "[{\"name\": \"a\", \"model_params_b\": 7, \"demand\": {\"trace\": \"%s\"}}]", tr);
    bad(js, FS_EDATA, ": no data rows");
    tr = trace_file("time_s,prompt_tokens,output_tokens\n0,1,1,1\n");
    snprintf(js, sizeof js, "[{\"name\": \"a\", \"model_params_b\": 7, \"demand\": {\"trace\": \"%s\"}}]", tr);
    bad(js, FS_EDATA, ":2: 4 fields; expected 3");
    /* One row: the width must be given, and then it is used. */
    tr = trace_file("time_s,prompt_tokens,output_tokens\n0,10,600\n");
    snprintf(js, sizeof js, "[{\"name\": \"a\", \"model_params_b\": 7, \"demand\": {\"trace\": \"%s\"}}]", tr);
    bad(js, FS_EDATA, "one row, so the bin width is unknown; give $.services[0].demand.bin_s");
    snprintf(js, sizeof js, "[{\"name\": \"a\", \"model_params_b\": 7, \"demand\": {\"trace\": \"%s\","
             " \"bin_s\": 30}}]", tr);
    struct service_spec *sp;
    int n;
    struct fs_err err = {0};
    CU_ASSERT_EQUAL_FATAL(load(js, &sp, &n, &err), 0);
    CU_ASSERT_DOUBLE_EQUAL(service_demand(sp, S(29)), 20, 1e-12);
    CU_ASSERT_EQUAL(service_demand(sp, S(30)), 0);
    service_specs_free(sp, n);
    /* A given width must match the rows'. */
    tr = trace_file("time_s,prompt_tokens,output_tokens\n0,1,1\n60,1,1\n");
    snprintf(js, sizeof js, "[{\"name\": \"a\", \"model_params_b\": 7, \"demand\": {\"trace\": \"%s\","
             " \"bin_s\": 30}}]", tr);
    bad(js, FS_EDATA, ":3: column time_s: 60; expected 30");
    /* The peak hour is taken modulo a period other than a day. */
    CU_ASSERT_EQUAL_FATAL(load("[{\"name\": \"a\", \"model_params_b\": 7, \"demand\": {\"diurnal\":"
                               " {\"mean_tokens_s\": 1, \"peak_hour\": 14.5, \"period_s\": 3600,"
                               " \"step_s\": 60}}}]", &sp, &n, &err), 0);
    CU_ASSERT_EQUAL(sp[0].demand.peak, S(1800));
    service_specs_free(sp, n);
}

int main(void)
{
    CU_TestInfo loading[] = {
        {"a full spec and the defaults", test_load_full},
        {"errors name file, JSON path or trace line", test_load_errors},
        CU_TEST_INFO_NULL};
    CU_SuiteInfo suites[] = {{"loading", tu_cat_setup, tu_cat_teardown, NULL, NULL, loading}, CU_SUITE_INFO_NULL};
    return tu_run("test_service_load", suites);
}
