/* testutil.h - shared by the CUnit suites. */
#ifndef FS_TESTS_TESTUTIL_H
#define FS_TESTS_TESTUTIL_H

#include <CUnit/CUnit.h>

#include "../reports/summary.h"

/* Register suites (a CU_SuiteInfo array ending in CU_SUITE_INFO_NULL), run
 * them verbosely and return the process exit status: 0 only when every
 * assertion passed and no suite failed to set up.  The failure count is read
 * before the registry is cleaned up. */
int tu_run(const char *name, CU_SuiteInfo *suites);

/* Load the shipped GPU catalog (models/data/gpus.json) into *out, printing
 * the error.  RET: 0, or 1 for a CUnit suite setup to fail with. */
struct gpu_catalog;
int tu_load_catalog(struct gpu_catalog **out);

/* Path of a file in the source tree, made from the test binary's working
 * directory (make check runs from the repository root). */
const char *tu_path(const char *rel);

/* Write text to a fresh temporary file; RET: its path (static buffer, one
 * per call slot 0..7, reused round-robin). */
const char *tu_tmpfile(const char *suffix, const char *text);

/* Load the scenario file at path (a tu_tmpfile, say) with the shipped
 * catalog and policy (NULL: the scenario's own).  A load error prints its
 * message and fails the test (fatal).  RET: the scenario (caller frees). */
struct scenario *tu_scenario(const char *path, const char *policy);

/* A scenario run to its end with a metrics collector, and its stats. */
struct tu_sim {
    struct scenario *sc;
    struct sim *s;
    struct metrics *m;
    struct run_stats st;
};

/* tu_scenario(path, policy), run with a metrics collector (no timeseries). */
void tu_sim_run(struct tu_sim *r, const char *path, const char *policy);
void tu_sim_free(struct tu_sim *r);

#endif
