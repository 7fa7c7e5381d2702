/* scenario.h - a scenario file (JSON) loaded into everything a run needs:
 * the catalog, the fleet, the jobs and the policy.  scenarios/README.md
 * documents every key.
 *
 * Errors name the file and the place: "FILE:LINE:COL: malformed JSON",
 * "FILE: $.fleet[1].gpu: unknown GPU type "h300"; did you mean ...", or for
 * a trace "TRACE:LINE: column NAME: ...".  Unknown keys are errors.
 *
 * The caller owns the scenario and frees it with scenario_free.
 */
#ifndef FS_SIM_SCENARIO_H
#define FS_SIM_SCENARIO_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "../models/models.h"
#include "../sched/sched.h"
#include "../models/faults.h"
#include "../models/service.h"
#include "workload.h"

/* The most timeseries.csv rows a run may make ($.output.timeseries_interval_s
 * over the horizon, or without one over the run): checked when loading
 * and, for a run that outlasts its last arrival, as it runs. */
#define SCENARIO_MAX_TS_ROWS 10000000
/* The most steps of any periodic thing over the horizon: a service's
 * autoscaler ticks, diurnal demand steps or repeated trace bins, and
 * maintenance windows. */
#define SCENARIO_MAX_STEPS 10000000

/* The electrical side of a fleet group (parallel to scenario.fleet). */
struct fleet_power {
    const struct node_template *node; /* server model: base power, PSUs */
    double cap_w;                     /* per-GPU power cap, 0 = none */
    int psus_ok;                      /* healthy PSUs per node */
};

/* How the fleet is paid for and its cost shown ($.cost). */
struct scenario_cost {
    enum cost_billing billing;    /* default owned */
    enum cost_commit commit;      /* cloud only; default none (on demand) */
    enum cost_idle_rule idle;     /* default proportional */
    int forecast_months;          /* default 6 */
    /* billing "cloud_elastic" or "cloud_spot": billing is COST_CLOUD,
     * on demand, and hold says how (sim/elastic.h); the terms are
     * prices.json's (cost_elastic_terms) unless $.cost.elastic overrides
     * them (< 0: not overridden). */
    enum cost_hold hold;
    double provision_s, increment_s, minimum_s, scale_down_s, spot_share_month;
};

/* What preemption costs a job of a kind, and its class ($.kinds). */
struct kind_terms {
    double checkpoint_s;          /* state saved every so many seconds of running;
                                     0: never (an evicted job starts over) */
    double restart_s;             /* reload before progress resumes */
    enum job_class qos;
};

struct scenario {
    char *path;                   /* the scenario file */
    char *name;
    uint64_t seed;
    fs_time horizon;              /* FS_TIME_MAX: run until every job ends */
    fs_time ts_interval;          /* timeseries.csv row width */
    char *catalog_path;           /* the other data files sit beside it */
    struct gpu_catalog *cat;
    struct perf_model *perf;      /* workloads.json */
    struct node_catalog *nodes;   /* nodes.json */
    struct power_model *power;    /* power.json */
    struct cost_prices *prices;   /* prices.json */
    struct llm_model *llm;        /* llm.json: the services' serving model */
    double pue;
    struct scenario_cost cost;
    struct kind_terms kinds[JOB_KIND_COUNT];
    struct fleet_group *fleet;
    struct fleet_power *fleet_power;
    int nfleet;
    struct workload wl;           /* the jobs, then the services' replica slots */
    size_t nbatch;                /* jobs of the workload: wl.jobs[0..nbatch) */
    struct service_spec *services;/* $.services: long-running inference */
    int nservices;
    struct fault_model *faults;   /* $.faults: NULL when the run has none */
    double fault_scale, fault_shape;
    fs_time maint_every, maint_duration; /* $.faults.maintenance; every 0: none */
    int maint_nodes;
    char *workload_source;        /* the trace path, or "FILE: $.workload.generator" */
    const struct sched_policy *policy;
    /* The policy with $.scheduler.params applied (policy points here), or
     * NULL when the scenario sets none. */
    struct sched_policy *own_policy;
    /* Round-based policies ($.scheduler, sim/rounds.h): the round, the
     * least time between allocation recomputes, and the reload a job pays
     * each time it starts again after a round away or on another type. */
    fs_time round, reallocate;
    double migration_s;
    bool lp_vertex;               /* $.scheduler.lp_ties "vertex" (sched/alloc.h) */
};

/* What the command line overrides. */
struct scenario_options {
    const char *catalog;  /* used when the scenario names none; required then */
    bool has_seed;
    uint64_t seed;
    const char *policy;   /* NULL: the scenario's */
    /* --set PATH=VALUE edits, applied in order to the file as read
     * (scenario_read): PATH a key path (base/jpath.h), VALUE JSON, or a
     * string when it does not parse as JSON ("policy=flux"). */
    const char *const *sets;
    int nsets;
};

/* Read the scenario file at path as a tree with opt's --set edits applied
 * (the caller frees it with cJSON_Delete).  RET: 0, FS_ENOINPUT, FS_EDATA
 * (malformed JSON) or FS_EUSAGE (a --set that is not PATH=VALUE or whose
 * path does not fit the file: "--set fleet[5].nodes=2: index 5 is out of
 * range: fleet has 2 items"), with err filled. */
int scenario_read(const char *path, const struct scenario_options *opt, cJSON **out, struct fs_err *err);

/* Load path (read by scenario_read).  RET: 0, FS_ENOINPUT (the scenario, its trace or catalog cannot
 * be read), FS_EDATA (anything malformed or inconsistent, including a job
 * that no node of the fleet can ever host) or FS_EUSAGE (an unknown policy
 * in opt), with err filled. */
int scenario_load(const char *path, const struct scenario_options *opt,
                  struct scenario **out, struct fs_err *err);
/* The same from a parsed tree (which the caller keeps and frees): path
 * names the scenario in messages and anchors its relative paths, as if the
 * tree had been read from it (fleetsim sweep and plan load edited copies
 * of a scenario this way). */
int scenario_load_tree(const cJSON *root, const char *path, const struct scenario_options *opt,
                       struct scenario **out, struct fs_err *err);

void scenario_free(struct scenario *sc);

/* The job classes arg names, read as a scenario's generator "classes" is
 * (scenarios/README.md, "Job classes"): "default" (job_classes.json beside
 * catalog_path) or a file holding {"classes": [...]}, into g->classes and
 * g->nclasses (g zeroed by the caller), with cat naming the GPU types.
 * No fleet check: the caller sizes the fleet to them (io/gen_scenario.c).
 * RET: 0, or FS_ENOINPUT / FS_EDATA with err naming the file and place. */
int gen_classes_load(const char *arg, const struct gpu_catalog *cat, const char *catalog_path,
                     struct gen_spec *g, struct fs_err *err);

#endif
