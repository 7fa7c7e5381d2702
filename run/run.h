/* run.h - the library layer every command and test runs scenarios
 * through: load a scenario, simulate it with the metrics collector and
 * return its figures.  Below study/ and tools/, above reports/.
 *
 * The caller owns a filled struct run_sim and releases it with
 * run_sim_free.
 */
#ifndef FS_RUN_RUN_H
#define FS_RUN_RUN_H

#include <cjson/cJSON.h>

#include "../base/base.h"
#include "../reports/summary.h"

/* A scenario run in memory, with its metrics (no timeseries) and stats. */
struct run_sim {
    struct scenario *sc;
    struct sim *s;
    struct metrics *m;
    struct run_stats st;
};

/* Load path with so and run it.  RET: 0 or scenario_load's error. */
int run_sim_run(const char *path, const struct scenario_options *so, struct run_sim *r,
                struct fs_err *err);
/* The same from a parsed scenario tree (the caller keeps it): path names
 * the scenario in messages and anchors its relative paths
 * (scenario_load_tree).  RET: 0 or scenario_load_tree's error. */
int run_sim_run_tree(const cJSON *root, const char *path, const struct scenario_options *so,
                     struct run_sim *r, struct fs_err *err);
void run_sim_free(struct run_sim *r); /* a zeroed one is fine */

/* The figures regress and sweep record for a run, in this order. */
enum run_metric {
    RUN_UTILIZATION,      /* allocated / offered GPU time */
    RUN_JOBS_COMPLETED,
    RUN_WAIT_MEAN,        /* seconds */
    RUN_WAIT_P95,
    RUN_JCT_MEAN,
    RUN_ENERGY_KWH,       /* at the facility: wall energy x PUE */
    RUN_PSU_PEAK,         /* highest load of any node's usable PSU capacity, % */
    RUN_COST_MONTH,       /* USD per 730-h month (reports/costing.h) */
    RUN_COST_PER_GPU_H,   /* USD per completed reference GPU-hour */
    RUN_SLO,              /* services' SLO attainment; 1 without services */
    RUN_NMETRICS
};
/* "utilization", "jobs_completed", "wait_mean_s", ... */
extern const char *const run_metric_names[RUN_NMETRICS];

/* r's figures into v.  The two costs are 0 when a price is missing. */
void run_sim_metrics(const struct run_sim *r, double v[RUN_NMETRICS]);

#endif
