/* cli.h - what the subcommands of tools/fleetsim share. */
#ifndef FS_TOOLS_CLI_H
#define FS_TOOLS_CLI_H

#include <cjson/cJSON.h>

#include "../base/base.h"
#include "../reports/summary.h"

#define FLEETSIM_VERSION "0.1.0"

/* Each subcommand: argv[0] is the subcommand's name.  RET: exit status. */
int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_regress(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_models(int argc, char **argv);
int cmd_fill(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_serve(int argc, char **argv);

/* Report err on stderr as "fleetsim: MESSAGE" and return its exit status. */
int cli_fail(const struct fs_err *err);

/* The GPU catalog to use when a scenario names none: $FLEETSIM_DATA/gpus.json,
 * else the build tree's models/data/gpus.json or the installed
 * share/fleetsim/gpus.json next to the executable.  RET: a path (static). */
const char *cli_default_catalog(void);

/* --seed N into so.  RET: 0, or 64 with the message printed. */
int cli_parse_seed(const char *arg, struct scenario_options *so);

/* A scenario run in memory, with its metrics (no timeseries) and stats. */
struct cli_sim {
    struct scenario *sc;
    struct sim *s;
    struct metrics *m;
    struct run_stats st;
};

/* Load path with so and run it.  RET: 0 or scenario_load's error. */
int cli_sim_run(const char *path, const struct scenario_options *so, struct cli_sim *r,
                struct fs_err *err);
/* The same from a parsed scenario tree (the caller keeps it): path names
 * the scenario in messages and anchors its relative paths
 * (scenario_load_tree).  RET: 0 or scenario_load_tree's error. */
int cli_sim_run_tree(const cJSON *root, const char *path, const struct scenario_options *so,
                     struct cli_sim *r, struct fs_err *err);
void cli_sim_free(struct cli_sim *r); /* a zeroed one is fine */

/* The figures regress and sweep record for a run, in this order. */
enum cli_metric {
    CLI_UTILIZATION,      /* allocated / offered GPU time */
    CLI_JOBS_COMPLETED,
    CLI_WAIT_MEAN,        /* seconds */
    CLI_WAIT_P95,
    CLI_JCT_MEAN,
    CLI_ENERGY_KWH,       /* at the facility: wall energy x PUE */
    CLI_PSU_PEAK,         /* highest load of any node's usable PSU capacity, % */
    CLI_COST_MONTH,       /* USD per 730-h month (reports/costing.h) */
    CLI_COST_PER_GPU_H,   /* USD per completed reference GPU-hour */
    CLI_SLO,              /* services' SLO attainment; 1 without services */
    CLI_NMETRICS
};
/* "utilization", "jobs_completed", "wait_mean_s", ... */
extern const char *const cli_metric_names[CLI_NMETRICS];

/* r's figures into v.  The two costs are 0 when a price is missing. */
void cli_sim_metrics(const struct cli_sim *r, double v[CLI_NMETRICS]);

/* fleetsim plan (tools/cmd_plan.c).  RET: exit status. */
int cmd_plan(int argc, char **argv);

#endif
