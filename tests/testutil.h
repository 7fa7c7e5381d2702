/* testutil.h - shared by the CUnit suites. */
#ifndef FS_TESTS_TESTUTIL_H
#define FS_TESTS_TESTUTIL_H

#include <CUnit/CUnit.h>

#include "../run/run.h"

/* Register suites (a CU_SuiteInfo array ending in CU_SUITE_INFO_NULL), run
 * them verbosely and return the process exit status: 0 only when every
 * assertion passed and no suite failed to set up.  The failure count is read
 * before the registry is cleaned up. */
int tu_run(const char *name, CU_SuiteInfo *suites);

/* Load the shipped GPU catalog (models/data/gpus.json) into *out, printing
 * the error.  RET: 0, or 1 for a CUnit suite setup to fail with. */
struct gpu_catalog;
int tu_load_catalog(struct gpu_catalog **out);

/* The shipped catalog for a suite: tu_cat_setup loads it into tu_cat
 * (a CUnit suite's init: 1 on failure), tu_cat_teardown frees it. */
extern struct gpu_catalog *tu_cat;
int tu_cat_setup(void);
int tu_cat_teardown(void);

/* Path of a file in the source tree, made from the test binary's working
 * directory (make check runs from the repository root). */
const char *tu_path(const char *rel);

/* Write text to a fresh temporary file; RET: its path (static buffer, one
 * per call slot 0..7, reused round-robin). */
const char *tu_tmpfile(const char *suffix, const char *text);

/* A test that needs data it cannot find (../shared/traces) skips, saying
 * why (printf-style); with FLEETSIM_REQUIRE_TRACES=1 in the environment
 * (CI sets it where ../shared/traces is present) the skip fails the test
 * instead. */
void tu_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Load the scenario file at path (a tu_tmpfile, say) with the shipped
 * catalog and policy (NULL: the scenario's own).  A load error prints its
 * message and fails the test (fatal).  RET: the scenario (caller frees). */
struct scenario *tu_scenario(const char *path, const char *policy);

/* tu_scenario(path, policy), run to its end by run_scenario (no
 * timeseries); r owns the scenario (run_result_free). */
void tu_sim_run(struct run_result *r, const char *path, const char *policy);

/* sc (borrowed: the caller frees it after r) run to its end by
 * run_scenario, with the invariant checker when check. */
void tu_run_loaded(struct run_result *r, const struct scenario *sc, bool check);

#endif
