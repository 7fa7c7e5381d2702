/* compare_run.h - the runs behind `fleetsim compare`: one workload under
 * several scenarios, or one scenario under several policies, each run and
 * priced under every billing model (reports/billing.h): the fixed lines
 * from a run of its fleet held all the time, the cloud_elastic and
 * cloud_spot lines from runs of the same scenario with its fleet as an
 * elastic pool (sim/elastic.h).  A scenario with node faults gets no
 * elastic or spot line (elastic fleets are simulated without faults), and
 * says so.  The runs go through the executor (run/exec.h) and are gathered
 * in the order given, whatever the number of workers.
 */
#ifndef FS_STUDY_COMPARE_RUN_H
#define FS_STUDY_COMPARE_RUN_H

#include <stdbool.h>

#include "../reports/compare.h"
#include "../run/exec.h"
#include "../run/run.h"

enum { COMPARE_MAX = 64 };

struct compare_runs {
    int n;                          /* 2 .. COMPARE_MAX - 1 */
    const char *paths[COMPARE_MAX]; /* run i's scenario file */
    const char *policies[COMPARE_MAX]; /* run i's policy, or NULL: the scenario's */
    struct scenario_options so;     /* seed, catalog (policy: from policies[]) */
    int jobs;                       /* executor workers */
    bool quiet;                     /* no progress on stderr */
};

/* Run every run, each priced also under the first run's billing (the
 * baseline's), fill e[0..n) and check that all ran one workload.
 * OUT *sc0: the baseline's scenario, for the report's assumptions (caller
 * frees).  RET: 0, the first failing run's error (a load error, or FS_EDATA:
 * its workload differs from the baseline's), or FS_EINTERNAL. */
int compare_runs(const struct compare_runs *c, struct compare_entry *e, struct scenario **sc0,
                 struct fs_err *err);

/* The comparison written into *dir (compare.json, report.md, report.html
 * and, with chromium, report.pdf; reports/compare.h), or with nseeds one
 * comparison a seed into *dir/seed-S and their summary *dir/seeds.json
 * (reports/compare_seeds.h).  *dir NULL: out/compare-NAME, NAME the first
 * run's scenario, made in fallback (fsize bytes).  cr->so's seed is set
 * for each seed.  RET: 0 or an FS_E* code with err filled. */
int compare_dir(struct compare_runs *cr, const uint64_t *seeds, int nseeds, const char **dir, char *fallback,
                size_t fsize, const char *chromium, struct fs_err *err);

#endif
