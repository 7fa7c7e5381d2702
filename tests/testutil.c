/* testutil.c - CUnit runner and temporary files for the suites. */
#include "testutil.h"

#include "../base/base.h"
#include "../models/gpu.h"

#include <CUnit/Basic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int tu_run(const char *name, CU_SuiteInfo *suites)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 70;
    if (CU_register_suites(suites) != CUE_SUCCESS) {
        fprintf(stderr, "%s: %s\n", name, CU_get_error_msg());
        CU_cleanup_registry();
        return 70;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed() +
                      CU_get_number_of_tests_failed();
    unsigned ran = CU_get_number_of_tests_run();
    CU_cleanup_registry();
    printf("%s: %u tests run, %s\n", name, ran, failed ? "FAILED" : "ok");
    return failed || ran == 0 ? 1 : 0;
}

int tu_load_catalog(struct gpu_catalog **out)
{
    struct fs_err e = {0};
    if (gpu_catalog_load(tu_path("models/data/gpus.json"), out, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        return 1;
    }
    return 0;
}

struct gpu_catalog *tu_cat;

int tu_cat_setup(void)
{
    return tu_load_catalog(&tu_cat);
}

int tu_cat_teardown(void)
{
    gpu_catalog_free(tu_cat);
    tu_cat = NULL;
    return 0;
}

void tu_skip(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("\n    skipped: ");
    vprintf(fmt, ap);
    va_end(ap);
    const char *req = getenv("FLEETSIM_REQUIRE_TRACES");
    if (req && strcmp(req, "1") == 0) {
        printf(" - FAILED: FLEETSIM_REQUIRE_TRACES=1");
        CU_FAIL("skipped although FLEETSIM_REQUIRE_TRACES=1: the data should be there");
    }
}

struct scenario *tu_scenario(const char *path, const char *policy)
{
    struct scenario_options o = {.catalog = "models/data/gpus.json", .policy = policy};
    struct scenario *sc = NULL;
    struct fs_err err = {0};
    int rc = scenario_load(path, &o, &sc, &err);
    if (rc)
        fprintf(stderr, "load: %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    return sc;
}

void tu_sim_run(struct run_result *r, const char *path, const char *policy)
{
    struct fs_err err = {0};
    CU_ASSERT_EQUAL_FATAL(run_scenario(&(struct run_spec){.sc = tu_scenario(path, policy)}, r, &err), 0);
    r->own_sc = true;
}

void tu_run_loaded(struct run_result *r, const struct scenario *sc, bool check)
{
    struct fs_err err = {0};
    CU_ASSERT_EQUAL_FATAL(run_scenario(&(struct run_spec){.sc = sc, .check = check}, r, &err), 0);
}

const char *tu_path(const char *rel)
{
    return rel;
}

/* Every temporary file made, removed at exit. */
static char **made;
static size_t nmade, made_cap;

static void remove_made(void)
{
    for (size_t i = 0; i < nmade; i++) {
        unlink(made[i]);
        free(made[i]);
    }
    free(made);
}

const char *tu_tmpfile(const char *suffix, const char *text)
{
    static char paths[8][256];
    static int next;
    char *p = paths[next++ % 8];
    if (!made)
        atexit(remove_made);
    snprintf(p, 256, "/tmp/fleetsim-test-XXXXXX%s", suffix);
    int fd = mkstemps(p, (int)strlen(suffix));
    if (fd < 0) {
        perror("mkstemps");
        abort();
    }
    size_t n = strlen(text);
    if (write(fd, text, n) != (ssize_t)n) {
        perror("write");
        abort();
    }
    close(fd);
    xgrow(&made, &made_cap, nmade + 1, sizeof *made);
    made[nmade++] = xstrdup(p);
    return p;
}
