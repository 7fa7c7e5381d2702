/* compare_run.h - one scenario of `fleetsim compare`, run and priced under
 * every billing model (reports/billing.h): the fixed lines from a run of
 * its fleet held all the time, the cloud_elastic and cloud_spot lines from
 * runs of the same scenario with its fleet as an elastic pool
 * (sim/elastic.h).  A scenario with node faults gets no elastic or spot
 * line (elastic fleets are simulated without faults), and says so.
 */
#ifndef FS_STUDY_COMPARE_RUN_H
#define FS_STUDY_COMPARE_RUN_H

#include "../reports/compare.h"
#include "../run/run.h"

/* Run the scenario at path into e[i] (e[0] is the baseline, already
 * filled when i > 0: its billing prices the savings; a workload unlike its
 * is an error), named by so->policy or the scenario; keep (may be NULL)
 * receives the first scenario loaded (the caller frees it).
 * RET: 0 or the loader's FS_E* code with err filled. */
int compare_run(const char *path, const struct scenario_options *so, struct compare_entry *e, int i,
                struct scenario **keep, struct fs_err *err);

#endif
