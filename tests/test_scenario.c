/* test_scenario.c - the scenario loader: the shipped default scenario, the
 * command-line overrides, relative paths, the defaults, and errors that name
 * the file and the JSON path. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../sim/engine.h"
#include "testutil.h"

#define CATALOG "models/data/gpus.json"
#define HDR "id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type\n"

/* A fleet and a generated workload that load; error cases break one part. */
#define FLEET "\"fleet\": [{\"gpu\": \"h100-sxm\", \"nodes\": 2, \"gpus_per_node\": 8}]"
#define GEN_BODY                                                                   \
    "\"jobs\": 5, \"arrivals_per_hour\": 10, \"duration_median_s\": 600, "         \
    "\"duration_sigma\": 0.5, \"gpus\": {\"1\": 1, \"8\": 1}, \"kinds\": {\"train\": 1}, " \
    "\"teams\": {\"a\": 1}, \"reference_gpu\": \"h100-sxm\""
#define GEN "\"workload\": {\"generator\": {" GEN_BODY "}}"

static const struct scenario_options defaults = {.catalog = CATALOG};

static const char *type_name(const struct scenario *sc, int group)
{
    return sc->cat->types[sc->fleet[group].type].name;
}

/* Jobs differing between a and b (field by field), or the larger count when
 * the counts differ. */
static size_t job_diffs(const struct scenario *a, const struct scenario *b)
{
    if (a->wl.n != b->wl.n)
        return a->wl.n > b->wl.n ? a->wl.n : b->wl.n;
    size_t d = 0;
    for (size_t i = 0; i < a->wl.n; i++) {
        const struct job *x = &a->wl.jobs[i], *y = &b->wl.jobs[i];
        d += x->id != y->id || x->submit != y->submit || x->kind != y->kind ||
             x->gpus != y->gpus || x->work != y->work || x->ref_type != y->ref_type ||
             strcmp(a->wl.teams[x->team], b->wl.teams[y->team]) != 0;
    }
    return d;
}

/* ---- the shipped scenario ---------------------------------------------------- */

static void test_default(void)
{
    struct fs_err err = {0};
    struct scenario *sc = NULL;
    int rc = scenario_load(tu_path("scenarios/default.json"), &defaults, &sc, &err);
    if (rc)
        printf("\n    %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sc);
    CU_ASSERT_STRING_EQUAL(sc->name, "default");
    CU_ASSERT_STRING_EQUAL(sc->path, tu_path("scenarios/default.json"));
    CU_ASSERT_STRING_EQUAL(sc->catalog_path, CATALOG);
    CU_ASSERT_EQUAL(sc->seed, 42);
    CU_ASSERT_EQUAL(sc->horizon, 604800 * FS_USEC);
    CU_ASSERT_EQUAL(sc->ts_interval, 3600 * FS_USEC);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sc->policy);
    CU_ASSERT_STRING_EQUAL(sc->policy->name, "best-fit");

    static const struct {
        const char *gpu;
        int nodes, per;
    } want[] = {{"h100-sxm", 4, 8}, {"h200-sxm", 2, 8}, {"a100-sxm-80", 4, 8}, {"rtx4090", 4, 8}};
    CU_ASSERT_EQUAL_FATAL(sc->nfleet, (int)FS_ARRAY_LEN(want));
    for (int g = 0; g < sc->nfleet; g++) {
        CU_ASSERT_STRING_EQUAL(type_name(sc, g), want[g].gpu);
        CU_ASSERT_EQUAL(sc->fleet[g].nodes, want[g].nodes);
        CU_ASSERT_EQUAL(sc->fleet[g].gpus_per_node, want[g].per);
    }

    CU_ASSERT_EQUAL_FATAL(sc->wl.n, 1600);
    CU_ASSERT_STRING_EQUAL(sc->workload_source, "scenarios/default.json: $.workload.generator");
    size_t unsorted = 0, bad = 0;
    for (size_t i = 0; i < sc->wl.n; i++) {
        const struct job *j = &sc->wl.jobs[i];
        if (i > 0) {
            const struct job *p = &sc->wl.jobs[i - 1];
            unsorted += p->submit > j->submit || (p->submit == j->submit && p->id >= j->id);
        }
        /* Only what the generator spec allows: the listed counts, kinds and
         * teams, work on the reference type, within the week's arrivals. */
        bad += !(j->gpus == 1 || j->gpus == 2 || j->gpus == 4 || j->gpus == 8 ||
                 j->gpus == 16) ||
               j->kind >= JOB_KIND_COUNT || j->team >= sc->wl.nteams || !(j->work > 0) ||
               j->ref_type != gpu_catalog_find(sc->cat, "a100-sxm-80") || j->submit < 0 ||
               j->id < 1 || j->id > 1600;
    }
    CU_ASSERT_EQUAL(unsorted, 0);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(sc->wl.nteams, 4);
    scenario_free(sc);
}

static void test_overrides(void)
{
    struct fs_err err = {0};
    struct scenario *base = NULL, *same = NULL, *other = NULL;
    struct scenario_options o42 = {.catalog = CATALOG, .has_seed = true, .seed = 42,
                                   .policy = "spread"};
    struct scenario_options o7 = {.catalog = CATALOG, .has_seed = true, .seed = 7};
    CU_ASSERT_EQUAL_FATAL(scenario_load(tu_path("scenarios/default.json"), &defaults, &base, &err), 0);
    CU_ASSERT_EQUAL_FATAL(scenario_load(tu_path("scenarios/default.json"), &o42, &same, &err), 0);
    CU_ASSERT_EQUAL_FATAL(scenario_load(tu_path("scenarios/default.json"), &o7, &other, &err), 0);

    /* The policy option wins over the file's; the seed option too. */
    CU_ASSERT_STRING_EQUAL(same->policy->name, "spread");
    CU_ASSERT_STRING_EQUAL(other->policy->name, "best-fit");
    CU_ASSERT_EQUAL(same->seed, 42);
    CU_ASSERT_EQUAL(other->seed, 7);
    /* The seed drives the generator: 42 again gives the very same jobs, 7
     * gives other ones (as many, but at other times). */
    CU_ASSERT_EQUAL(job_diffs(base, same), 0);
    CU_ASSERT_EQUAL(other->wl.n, 1600);
    CU_ASSERT(job_diffs(base, other) > 1500);

    /* Seed 0 is a seed like any other, not "no override". */
    struct scenario *zero = NULL;
    struct scenario_options o0 = {.catalog = CATALOG, .has_seed = true, .seed = 0};
    CU_ASSERT_EQUAL_FATAL(scenario_load(tu_path("scenarios/default.json"), &o0, &zero, &err), 0);
    CU_ASSERT_EQUAL(zero->seed, 0);
    CU_ASSERT(job_diffs(base, zero) > 1500);

    scenario_free(zero);
    scenario_free(base);
    scenario_free(same);
    scenario_free(other);
}

/* ---- paths and defaults ----------------------------------------------------------- */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
}

/* A scenario in DIR/sub/ names "traces/t.csv" and "cat.json": both are read
 * from DIR/sub/, whatever the working directory (make check runs from the
 * repository root, where neither exists). */
static void test_relative_paths(void)
{
    char dir[] = "/tmp/fleetsim-test-scenario-XXXXXX";
    char sub[64], traces[96], scen[128], trace[128], cat[128], want[128];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(sub, sizeof sub, "%s/sub", dir);
    snprintf(traces, sizeof traces, "%s/traces", sub);
    snprintf(scen, sizeof scen, "%s/scen.json", sub);
    snprintf(trace, sizeof trace, "%s/t.csv", traces);
    snprintf(cat, sizeof cat, "%s/cat.json", sub);
    CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0700), 0);
    CU_ASSERT_EQUAL_FATAL(mkdir(traces, 0700), 0);
    CU_ASSERT_EQUAL_FATAL(access("traces/t.csv", F_OK), -1);
    CU_ASSERT_EQUAL_FATAL(access("cat.json", F_OK), -1);

    char *catalog = slurp(CATALOG);
    CU_ASSERT_PTR_NOT_NULL_FATAL(catalog);
    put(cat, catalog);
    free(catalog);
    /* The other model files are read from beside the catalog. */
    static const char *const beside[] = {"workloads.json", "nodes.json", "power.json",
                                         "prices.json", "llm.json"};
    for (size_t k = 0; k < FS_ARRAY_LEN(beside); k++) {
        char from[128], to[160];
        snprintf(from, sizeof from, "models/data/%s", beside[k]);
        snprintf(to, sizeof to, "%s/%s", sub, beside[k]);
        char *text = slurp(from);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        put(to, text);
        free(text);
    }
    /* Unsorted rows, with a tie on submit time broken by id. */
    put(trace, HDR "3,10,train,x,8,0,,100,h100-sxm\n"
                   "1,10,infer,y,1,0,,50,h100-sxm\n"
                   "2,0,batch,x,2,0,,70,h100-sxm\n");
    put(scen, "{\"name\": \"rel\", \"catalog\": \"cat.json\", " FLEET ", "
              "\"workload\": {\"trace\": \"traces/t.csv\", \"format\": \"native\"}}");

    struct fs_err err = {0};
    struct scenario *sc = NULL;
    struct scenario_options none = {.catalog = NULL};
    int rc = scenario_load(scen, &none, &sc, &err);
    if (rc)
        printf("\n    %s\n", err.msg);
    CU_ASSERT_EQUAL(rc, 0);
    if (sc) {
        snprintf(want, sizeof want, "%s/traces/t.csv", sub);
        CU_ASSERT_STRING_EQUAL(sc->workload_source, want);
        snprintf(want, sizeof want, "%s/cat.json", sub);
        CU_ASSERT_STRING_EQUAL(sc->catalog_path, want);
        CU_ASSERT_EQUAL_FATAL(sc->wl.n, 3);
        CU_ASSERT_EQUAL(sc->wl.jobs[0].id, 2);
        CU_ASSERT_EQUAL(sc->wl.jobs[1].id, 1);
        CU_ASSERT_EQUAL(sc->wl.jobs[2].id, 3);
        CU_ASSERT_EQUAL(sc->wl.jobs[2].submit, 10 * FS_USEC);
        CU_ASSERT_EQUAL(sc->wl.jobs[2].gpus, 8);
    }
    scenario_free(sc);

    /* The scenario's "catalog" wins over the command line's. */
    struct scenario_options other = {.catalog = "/nonexistent/gpus.json"};
    sc = NULL;
    CU_ASSERT_EQUAL(scenario_load(scen, &other, &sc, &err), 0);
    scenario_free(sc);

    unlink(scen);
    unlink(trace);
    unlink(cat);
    for (size_t k = 0; k < FS_ARRAY_LEN(beside); k++) {
        char to[160];
        snprintf(to, sizeof to, "%s/%s", sub, beside[k]);
        unlink(to);
    }
    rmdir(traces);
    rmdir(sub);
    rmdir(dir);
}

static void test_defaults(void)
{
    struct fs_err err = {0};
    struct scenario *sc = NULL;
    const char *path = tu_tmpfile(".json", "{\"name\": \"min\", " FLEET ", " GEN "}");
    int rc = scenario_load(path, &defaults, &sc, &err);
    if (rc)
        printf("\n    %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_EQUAL(sc->horizon, FS_TIME_MAX);
    CU_ASSERT_STRING_EQUAL(sc->policy->name, "fifo");
    CU_ASSERT_EQUAL(sc->ts_interval, 3600 * FS_USEC);
    CU_ASSERT_EQUAL(sc->seed, 1);
    CU_ASSERT_EQUAL(sc->nfleet, 1);
    CU_ASSERT_EQUAL(sc->wl.n, 5);
    scenario_free(sc);

    /* Present but empty optional blocks keep the defaults too. */
    sc = NULL;
    path = tu_tmpfile(".json", "{\"name\": \"min\", " FLEET ", " GEN
                               ", \"scheduler\": {}, \"output\": {}}");
    CU_ASSERT_EQUAL_FATAL(scenario_load(path, &defaults, &sc, &err), 0);
    CU_ASSERT_STRING_EQUAL(sc->policy->name, "fifo");
    CU_ASSERT_EQUAL(sc->ts_interval, 3600 * FS_USEC);
    scenario_free(sc);
}

/* ---- errors --------------------------------------------------------------------------- */

/* Load text as a scenario file and expect code and a message that starts
 * with prefix (NULL: the scenario file's path) and contains sub. */
static void expect_err(const char *text, const struct scenario_options *opt, int code,
                       const char *prefix, const char *sub)
{
    const char *path = tu_tmpfile(".json", text);
    struct fs_err err = {0};
    struct scenario *sc = (struct scenario *)&err; /* must be reset to NULL */
    int rc = scenario_load(path, opt ? opt : &defaults, &sc, &err);
    CU_ASSERT_EQUAL(rc, code);
    CU_ASSERT_EQUAL(err.code, code);
    CU_ASSERT_PTR_NULL(sc);
    if (!prefix)
        prefix = path;
    if (strncmp(err.msg, prefix, strlen(prefix)) != 0 || !strstr(err.msg, sub))
        printf("\n    got:  %s\n    want: %s...%s\n", err.msg, prefix, sub);
    CU_ASSERT_EQUAL(strncmp(err.msg, prefix, strlen(prefix)), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, sub));
    if (sc && sc != (struct scenario *)&err)
        scenario_free(sc);
}

static void test_json_errors(void)
{
    /* The comma after "x" is missing: the parser stops at line 2, column 3. */
    expect_err("{\"name\": \"x\"\n  " FLEET ",\n  " GEN "\n}", NULL, FS_EDATA, NULL, ":2:3: malformed JSON");
    expect_err("", NULL, FS_EDATA, NULL, ":1:1: malformed JSON");
    expect_err("[{\"name\": \"x\", " FLEET ", " GEN "}]", NULL, FS_EDATA, NULL,
               ": top level must be an object");
    expect_err("{\"name\": \"x\", \"seeds\": 3, " FLEET ", " GEN "}", NULL, FS_EDATA, NULL,
               ": $: unknown key \"seeds\"; did you mean \"seed\"?");
    expect_err("{\"name\": \"x\", \"zzzzzzzz\": 3, " FLEET ", " GEN "}", NULL, FS_EDATA, NULL,
               ": $: unknown key \"zzzzzzzz\" (valid keys: name, description, seed,");
    expect_err("{\"name\": \"x\", \"seed\": 1, \"seed\": 2, " FLEET ", " GEN "}", NULL, FS_EDATA, NULL,
               ": $: duplicate key \"seed\"");
    expect_err("{" FLEET ", " GEN "}", NULL, FS_EDATA, NULL, ": $: missing key \"name\"");
    expect_err("{\"name\": \"x\", \"seed\": 1.5, " FLEET ", " GEN "}", NULL, FS_EDATA, NULL,
               ": $.seed: expected an integer");
    expect_err("{\"name\": \"x\", \"seed\": -1, " FLEET ", " GEN "}", NULL, FS_EDATA, NULL,
               ": $.seed: -1 is out of range");
    expect_err("{\"name\": \"x\", \"horizon_s\": \"1d\", " FLEET ", " GEN "}", NULL, FS_EDATA, NULL,
               ": $.horizon_s: expected a number");
    expect_err("{\"name\": \"x\", " FLEET ", " GEN ", \"output\": {\"timeseries_interval_s\": 0.5}}",
               NULL, FS_EDATA, NULL, ": $.output.timeseries_interval_s: 0.5 is out of range [1, 1e+09]");
    expect_err("{\"name\": \"x\", " FLEET ", " GEN ", \"output\": {\"interval\": 60}}",
               NULL, FS_EDATA, NULL, ": $.output: unknown key \"interval\"");
}

static void test_fleet_errors(void)
{
    expect_err("{\"name\": \"x\", \"fleet\": [{\"gpu\": \"h100-sxm\", \"nodes\": 1, \"gpus_per_node\": 8},"
               " {\"gpu\": \"h300\", \"nodes\": 1, \"gpus_per_node\": 8}], " GEN "}",
               NULL, FS_EDATA, NULL, ": $.fleet[1].gpu: unknown GPU type \"h300\"");
    expect_err("{\"name\": \"x\", \"fleet\": [{\"gpu\": \"h100-sxm\", \"nodes\": 1, \"gpus_per_node\": 8},"
               " {\"gpu\": \"h200-sx\", \"nodes\": 1, \"gpus_per_node\": 8}], " GEN "}",
               NULL, FS_EDATA, NULL, ": $.fleet[1].gpu: unknown GPU type \"h200-sx\"; did you mean \"h200-sxm\"?");
    expect_err("{\"name\": \"x\", \"fleet\": [{\"gpu\": \"h100-sxm\", \"nodes\": \"2\", \"gpus_per_node\": 8}], "
               GEN "}", NULL, FS_EDATA, NULL, ": $.fleet[0].nodes: expected an integer");
    expect_err("{\"name\": \"x\", \"fleet\": [{\"gpu\": \"h100-sxm\", \"nodes\": -3, \"gpus_per_node\": 8}], "
               GEN "}", NULL, FS_EDATA, NULL, ": $.fleet[0].nodes: -3 is out of range [1, 1e+06]");
    expect_err("{\"name\": \"x\", \"fleet\": [{\"gpu\": \"h100-sxm\", \"nodes\": 1, \"gpus_per_node\": 0}], "
               GEN "}", NULL, FS_EDATA, NULL, ": $.fleet[0].gpus_per_node: 0 is out of range [1, 64]");
    expect_err("{\"name\": \"x\", \"fleet\": [{\"gpu\": \"h100-sxm\", \"nodes\": 1, \"gpus_per_node\": 65}], "
               GEN "}", NULL, FS_EDATA, NULL, ": $.fleet[0].gpus_per_node: 65 is out of range [1, 64]");
    expect_err("{\"name\": \"x\", \"fleet\": [{\"gpu\": \"h100-sxm\", \"nodes\": 1, \"gpu_per_node\": 8}], "
               GEN "}", NULL, FS_EDATA, NULL, ": $.fleet[0]: unknown key \"gpu_per_node\"; did you mean \"gpus_per_node\"?");
    expect_err("{\"name\": \"x\", \"fleet\": [{\"gpu\": \"h100-sxm\", \"nodes\": 1, \"nodes\": 2, "
               "\"gpus_per_node\": 8}], " GEN "}", NULL, FS_EDATA, NULL, ": $.fleet[0]: duplicate key \"nodes\"");
    expect_err("{\"name\": \"x\", \"fleet\": [{\"gpu\": \"h100-sxm\", \"nodes\": 1}], " GEN "}",
               NULL, FS_EDATA, NULL, ": $.fleet[0]: missing key \"gpus_per_node\"");
    expect_err("{\"name\": \"x\", \"fleet\": [], " GEN "}", NULL, FS_EDATA, NULL, ": $.fleet: the fleet is empty");
    expect_err("{\"name\": \"x\", \"fleet\": {\"gpu\": \"h100-sxm\"}, " GEN "}", NULL, FS_EDATA, NULL,
               ": $.fleet: expected an array");
    expect_err("{\"name\": \"x\", \"fleet\": [8], " GEN "}", NULL, FS_EDATA, NULL, ": $.fleet[0]: expected an object");
    expect_err("{\"name\": \"x\", \"fleet\": [{\"gpu\": \"h100-sxm\", \"nodes\": 600000, \"gpus_per_node\": 8},"
               " {\"gpu\": \"rtx4090\", \"nodes\": 600000, \"gpus_per_node\": 8}], " GEN "}",
               NULL, FS_EDATA, NULL, ": $.fleet: 1200000 nodes in all; at most 1000000");
}

static void test_policy_errors(void)
{
    struct scenario_options bad = {.catalog = CATALOG, .policy = "fifoo"};
    expect_err("{\"name\": \"x\", " FLEET ", " GEN ", \"scheduler\": {\"policy\": \"bestfit\"}}", NULL,
               FS_EDATA, NULL, ": $.scheduler.policy: unknown policy \"bestfit\"; did you mean \"best-fit\"?");
    expect_err("{\"name\": \"x\", " FLEET ", " GEN ", \"scheduler\": {\"policy\": \"qqqqqqqq\"}}", NULL,
               FS_EDATA, NULL, ": $.scheduler.policy: unknown policy \"qqqqqqqq\" (policies: fifo, ");
    expect_err("{\"name\": \"x\", " FLEET ", " GEN ", \"scheduler\": {\"polcy\": \"fifo\"}}", NULL,
               FS_EDATA, NULL, ": $.scheduler: unknown key \"polcy\"; did you mean \"policy\"?");
    expect_err("{\"name\": \"x\", " FLEET ", " GEN "}", &bad, FS_EUSAGE, "--policy: ",
               "--policy: unknown policy \"fifoo\"; did you mean \"fifo\"?");
    expect_err("{\"name\": \"x\", " FLEET ", " GEN ", \"scheduler\": {\"policy\": \"flux\", \"params\": {\"rout\": false}}}",
               NULL, FS_EDATA, NULL, ": $.scheduler.params.rout: policy \"flux\" has no parameter \"rout\" (its "
               "parameters: route, pack, power, consolidate, preempt, failover, consolidate_every_s)");
    expect_err("{\"name\": \"x\", " FLEET ", " GEN ", \"scheduler\": {\"params\": {\"route\": false}}}", NULL,
               FS_EDATA, NULL, ": $.scheduler.params.route: policy \"fifo\" has no parameter \"route\" (it takes none)");
    expect_err("{\"name\": \"x\", " FLEET ", " GEN ", \"scheduler\": {\"policy\": \"flux\", \"params\": {\"route\": 0}}}",
               NULL, FS_EDATA, NULL, ": $.scheduler.params.route: expected true or false");
    expect_err("{\"name\": \"x\", " FLEET ", " GEN ", \"scheduler\": {\"policy\": \"flux-no-pack\", "
               "\"params\": {\"consolidate_every_s\": 0}}}",
               NULL, FS_EDATA, NULL, ": $.scheduler.params.consolidate_every_s: 0 is out of range [1, 86400]");
    expect_err("{\"name\": \"x\", " FLEET ", " GEN ", \"scheduler\": {\"policy\": \"flux\", \"params\": [1]}}",
               NULL, FS_EDATA, NULL, ": $.scheduler.params: expected an object");
}

/* The params set values in the scenario's own copy of its policy, on top
 * of an alias's; --policy naming another policy drops them. */
static void test_policy_params(void)
{
    const char *path = tu_tmpfile(".json", "{\"name\": \"x\", " FLEET ", " GEN ", \"scheduler\": {\"policy\": "
                                           "\"flux-no-pack\", \"params\": {\"preempt\": false, \"consolidate_every_s\": 60}}}");
    struct fs_err err = {0};
    struct scenario *sc = NULL;
    CU_ASSERT_EQUAL_FATAL(scenario_load(path, &defaults, &sc, &err), 0);
    const struct sched_policy *p = sc->policy, *alias = sched_policy_find("flux-no-pack");
    CU_ASSERT_PTR_EQUAL(p, sc->own_policy);
    CU_ASSERT_STRING_EQUAL(p->name, "flux-no-pack");
    CU_ASSERT_EQUAL(p->param[sched_param_find(p, "pack")], 0);
    CU_ASSERT_EQUAL(p->param[sched_param_find(p, "preempt")], 0);
    CU_ASSERT_EQUAL(p->param[sched_param_find(p, "route")], 1);
    CU_ASSERT(!p->preempts && alias->preempts);
    CU_ASSERT(p->consolidates);
    CU_ASSERT_EQUAL(p->consolidate_every, 60 * FS_USEC);
    CU_ASSERT_EQUAL(alias->consolidate_every, 300 * FS_USEC);
    scenario_free(sc);
    struct scenario_options fifo = {.catalog = CATALOG, .policy = "fifo"};
    CU_ASSERT_EQUAL_FATAL(scenario_load(path, &fifo, &sc, &err), 0);
    CU_ASSERT_PTR_EQUAL(sc->policy, sched_policy_find("fifo"));
    CU_ASSERT_PTR_NULL(sc->own_policy);
    scenario_free(sc);
}

static void test_workload_errors(void)
{
    /* tu_tmpfile reuses its buffers: keep copies of the trace paths. */
    char text[1024], trace[256], bad_row[256];
    snprintf(trace, sizeof trace, "%s", tu_tmpfile(".csv", HDR "1,0,train,x,12,0,,100,h100-sxm\n"));
    snprintf(bad_row, sizeof bad_row, "%s",
             tu_tmpfile(".csv", HDR "1,0,train,x,1,0,,100,h100-sxm\n2,0,serve,x,1,0,,1,h100-sxm\n"));
    expect_err("{\"name\": \"x\", " FLEET "}", NULL, FS_EDATA, NULL, ": $: missing key \"workload\"");
    expect_err("{\"name\": \"x\", " FLEET ", \"workload\": {}}", NULL, FS_EDATA, NULL,
               ": $.workload: give exactly one of \"trace\" and \"generator\"");
    snprintf(text, sizeof text, "{\"name\": \"x\", " FLEET ", \"workload\": {\"trace\": \"%s\", "
             "\"generator\": {" GEN_BODY "}}}", trace);
    expect_err(text, NULL, FS_EDATA, NULL, ": $.workload: give exactly one of \"trace\" and \"generator\"");
    snprintf(text, sizeof text, "{\"name\": \"x\", " FLEET ", \"workload\": {\"trace\": \"%s\", "
             "\"format\": \"alibaba\"}}", trace);
    expect_err(text, NULL, FS_EDATA, NULL, ": $.workload.format: unknown trace format \"alibaba\"");
    expect_err("{\"name\": \"x\", " FLEET ", \"workload\": {\"trace\": \"/nonexistent/t.csv\"}}", NULL,
               FS_ENOINPUT, "/nonexistent/t.csv: ", "cannot open: No such file or directory");

    /* A trace's own errors name the trace and the line. */
    snprintf(text, sizeof text, "{\"name\": \"x\", " FLEET ", \"workload\": {\"trace\": \"%s\"}}", bad_row);
    expect_err(text, NULL, FS_EDATA, bad_row, ":3: column kind: unknown kind \"serve\"");

    /* 12 GPUs on 8-GPU nodes can never run: the trace is named. */
    snprintf(text, sizeof text, "{\"name\": \"x\", " FLEET ", \"workload\": {\"trace\": \"%s\"}}", trace);
    expect_err(text, NULL, FS_EDATA, trace, ": job 1 can never run on this fleet: it needs 12 GPUs, more than a node has (at most 8)");

    /* No catalog anywhere; a catalog that cannot be read. */
    struct scenario_options none = {.catalog = NULL};
    expect_err("{\"name\": \"x\", " FLEET ", " GEN "}", &none, FS_ENOINPUT, NULL, ": no GPU catalog");
    expect_err("{\"name\": \"x\", \"catalog\": \"/nonexistent/gpus.json\", " FLEET ", " GEN "}", NULL,
               FS_ENOINPUT, "/nonexistent/gpus.json: ", "cannot open: No such file or directory");
}

static void test_generator_errors(void)
{
#define G(body) "{\"name\": \"x\", " FLEET ", \"workload\": {\"generator\": {" body "}}}"
#define REST "\"duration_median_s\": 600, \"duration_sigma\": 0.5, \"reference_gpu\": \"h100-sxm\""
    expect_err(G("\"jobs\": 5, \"arrivals_per_hour\": -1, " REST ", \"gpus\": {\"1\": 1}, "
                 "\"kinds\": {\"train\": 1}, \"teams\": {\"a\": 1}"),
               NULL, FS_EDATA, NULL, ": $.workload.generator.arrivals_per_hour: -1 is out of range");
    expect_err(G("\"jobs\": 0, \"arrivals_per_hour\": 1, " REST ", \"gpus\": {\"1\": 1}, "
                 "\"kinds\": {\"train\": 1}, \"teams\": {\"a\": 1}"),
               NULL, FS_EDATA, NULL, ": $.workload.generator.jobs: 0 is out of range");
    expect_err(G("\"jobs\": 5, \"arrivals_per_hour\": 1, " REST ", \"gpus\": {\"1\": 0, \"2\": 0}, "
                 "\"kinds\": {\"train\": 1}, \"teams\": {\"a\": 1}"),
               NULL, FS_EDATA, NULL, ": $.workload.generator.gpus: needs at least one positive weight");
    expect_err(G("\"jobs\": 5, \"arrivals_per_hour\": 1, " REST ", \"gpus\": {\"1\": -1}, "
                 "\"kinds\": {\"train\": 1}, \"teams\": {\"a\": 1}"),
               NULL, FS_EDATA, NULL, ": $.workload.generator.gpus.1: weight must be a number >= 0");
    expect_err(G("\"jobs\": 5, \"arrivals_per_hour\": 1, " REST ", \"gpus\": {\"two\": 1}, "
                 "\"kinds\": {\"train\": 1}, \"teams\": {\"a\": 1}"),
               NULL, FS_EDATA, NULL, ": $.workload.generator.gpus: key \"two\" is not a GPU count");
    expect_err(G("\"jobs\": 5, \"arrivals_per_hour\": 1, " REST ", \"gpus\": {\"1\": 1}, "
                 "\"kinds\": {\"serve\": 1}, \"teams\": {\"a\": 1}"),
               NULL, FS_EDATA, NULL, ": $.workload.generator.kinds: unknown job kind \"serve\"");
    expect_err(G("\"jobs\": 5, \"arrivals_per_hour\": 1, " REST ", \"gpus\": {\"1\": 1}, "
                 "\"kinds\": {\"train\": 1}, \"teams\": {\"a,b\": 1}"),
               NULL, FS_EDATA, NULL, ": $.workload.generator.teams: team name \"a,b\" must be");
    expect_err(G("\"jobs\": 5, \"arrivals_per_hour\": 1, " REST ", \"gpus\": {\"1\": 1}, "
                 "\"kinds\": {\"train\": 1}"),
               NULL, FS_EDATA, NULL, ": $.workload.generator: missing key \"teams\"");
    expect_err(G("\"jobs\": 5, \"arrivals_per_hour\": 1, \"duration_median_s\": 600, "
                 "\"duration_sigma\": 0.5, \"reference_gpu\": \"a100-sxm80\", \"gpus\": {\"1\": 1}, "
                 "\"kinds\": {\"train\": 1}, \"teams\": {\"a\": 1}"),
               NULL, FS_EDATA, NULL, ": $.workload.generator.reference_gpu: unknown GPU type \"a100-sxm80\"; "
               "did you mean \"a100-sxm-80\"?");
    expect_err(G("\"jobs\": 5, \"arrivals_per_hour\": 1, " REST ", \"gpus\": {\"1\": 1}, "
                 "\"kinds\": {\"train\": 1}, \"teams\": {\"a\": 1}, \"job\": 3"),
               NULL, FS_EDATA, NULL, ": $.workload.generator: unknown key \"job\"; did you mean \"jobs\"?");
    expect_err(G("\"jobs\": 5, \"arrivals_per_hour\": 1, " REST ", \"gpus\": {\"12\": 1}, "
                 "\"kinds\": {\"train\": 1}, \"teams\": {\"a\": 1}"),
               NULL, FS_EDATA, NULL, ": $.workload.generator: job 1 can never run on this fleet: it needs 12 GPUs");
#undef REST
#undef G
}

static void test_cannot_open(void)
{
    struct fs_err err = {0};
    struct scenario *sc = (struct scenario *)&err;
    CU_ASSERT_EQUAL(scenario_load("/nonexistent/scen.json", &defaults, &sc, &err), FS_ENOINPUT);
    CU_ASSERT_PTR_NULL(sc);
    CU_ASSERT_STRING_EQUAL(err.msg, "/nonexistent/scen.json: cannot open: No such file or directory");
}

#define SPEC_HDR "id,submit_s,kind,team,gpus,gpu_mem_gb,allowed_types,work_gpu_s,ref_type," \
                 "model_params_b,tokens,method\n"

/* A scenario over a fleet (JSON text) running the jobs of csv. */
static struct scenario *load_spec(const char *fleet, const char *csv, struct fs_err *err, int *rc)
{
    char text[1024];
    snprintf(text, sizeof text, "{\"name\": \"spec\", %s, \"workload\": {\"trace\": \"%s\"}}", fleet,
             tu_tmpfile(".csv", csv));
    struct scenario *sc = NULL;
    *rc = scenario_load(tu_tmpfile(".json", text), &defaults, &sc, err);
    return sc;
}

/* Model-spec jobs get their memory from models/memory (the rule service
 * replicas use), and the scheduler's filter keeps them off GPUs too small:
 * a 13B model served in BF16 (26 GB of weights) never lands on a 24 GB RTX
 * 4090, even under first fit with the 4090s first; a 7B LoRA job (about
 * 18 GB), a 7B BF16 inference job (14 GB of weights and a KV allowance)
 * and a 13B QLoRA job (4-bit base, about 7 GB of weights) may; and a 70B
 * BF16 model on one GPU can never run on a fleet of 4090s. */
static void test_model_spec(void)
{
    struct fs_err err = {0};
    int rc;
    const char *fleet = "\"fleet\": [{\"gpu\": \"rtx4090\", \"nodes\": 1, \"gpus_per_node\": 8},"
                        "{\"gpu\": \"a100-sxm-80\", \"nodes\": 1, \"gpus_per_node\": 8}]";
    struct scenario *sc = load_spec(fleet, SPEC_HDR "1,0,infer,a,1,0,,600,a100-sxm-80,13,,infer\n"
                                                    "2,0,finetune,a,1,0,,,a100-sxm-80,7,1e7,lora\n"
                                                    "3,0,infer,a,1,0,,600,a100-sxm-80,7,,infer\n"
                                                    "4,0,finetune,a,1,0,,600,a100-sxm-80,13,,qlora\n",
                                    &err, &rc);
    if (rc)
        printf("\n    %s", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    const struct job *infer = &sc->wl.jobs[0], *lora = &sc->wl.jobs[1];
    CU_ASSERT(infer->gpu_mem_gb > 24 && infer->gpu_mem_gb < 80);
    CU_ASSERT(lora->gpu_mem_gb > 14 && lora->gpu_mem_gb < 24);
    CU_ASSERT(sc->wl.jobs[2].gpu_mem_gb > 14 && sc->wl.jobs[2].gpu_mem_gb < 24);
    CU_ASSERT(sc->wl.jobs[3].gpu_mem_gb > 6.7 && sc->wl.jobs[3].gpu_mem_gb < 24);
    CU_ASSERT_EQUAL(workload_spec(&sc->wl, &sc->wl.jobs[3])->method, JOB_METHOD_QLORA);
    /* 4 x 7e9 x 1e7 LoRA FLOPs on the reference A100 at its tensor share. */
    const struct perf_workload *w = &sc->perf->w[lora->workload];
    double want = 4 * 7e9 * 1e7 / (sc->cat->types[sc->perf->ref].mamf_bf16_tflops * 1e12) / w->share[PERF_TENSOR];
    CU_ASSERT_DOUBLE_EQUAL(lora->work, want, 1e-9 * want);
    struct sim *s = sim_new(sc);
    sim_run(s);
    int rtx = gpu_catalog_find(sc->cat, "rtx4090");
    CU_ASSERT_NOT_EQUAL(s->jobs[0].type, rtx);
    CU_ASSERT_EQUAL(s->jobs[1].type, rtx);
    CU_ASSERT_EQUAL(s->jobs[2].type, rtx);
    CU_ASSERT_EQUAL(s->jobs[3].type, rtx);
    sim_free(s);
    scenario_free(sc);

    const char *rtx_only = "\"fleet\": [{\"gpu\": \"rtx4090\", \"nodes\": 2, \"gpus_per_node\": 8}]";
    sc = load_spec(rtx_only, SPEC_HDR "9,0,infer,a,1,0,,600,a100-sxm-80,70,,infer\n", &err, &rc);
    CU_ASSERT_EQUAL(rc, FS_EDATA);
    CU_ASSERT_PTR_NULL(sc);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "job 9 can never run on this fleet: it needs"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "the allowed GPUs in the fleet have at most 24 GB"));
}

static CU_TestInfo load_tests[] = {
    {"model-spec jobs: memory and work from the models", test_model_spec},
    {"default.json: fleet, seed, horizon, policy, 1600 sorted jobs", test_default},
    {"options override seed and policy", test_overrides},
    {"trace and catalog paths are relative to the scenario", test_relative_paths},
    {"defaults: no horizon, fifo, 3600 s, seed 1", test_defaults},
    {"policy params on the scenario's own copy", test_policy_params},
    CU_TEST_INFO_NULL,
};

static CU_TestInfo error_tests[] = {
    {"JSON, keys and header fields", test_json_errors},
    {"fleet", test_fleet_errors},
    {"policy in the file and on the command line", test_policy_errors},
    {"workload, trace and catalog", test_workload_errors},
    {"generator", test_generator_errors},
    {"scenario file cannot be opened", test_cannot_open},
    CU_TEST_INFO_NULL,
};

int main(void)
{
    CU_SuiteInfo suites[] = {
        {"scenario", NULL, NULL, NULL, NULL, load_tests},
        {"scenario errors", NULL, NULL, NULL, NULL, error_tests},
        CU_SUITE_INFO_NULL,
    };
    return tu_run("test_scenario", suites);
}
