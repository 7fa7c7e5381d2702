/* plan.h - what the four files of `fleetsim plan` share:
^ *   tools/cmd_plan.c the options, the base scenario, the flow;
 *   plan_search.c  the candidates and the search;
 *   plan_fleet.c   one candidate: its scenario, its runs, its figures;
 *   plan_write.c   plan.json, plan.md, fleet.json, the frontier chart and
 *                  the summary on stderr.
 *
 *   plan_load.c    the --slo list and the base scenario's planned types
 *                  (shared with `fleetsim roadmap`, study/roadmap.h);
 *
 * A *fleet* is a vector of node counts, one per planned GPU type; a
 * *candidate* is a fleet with a billing model.  A simulation does not
 * depend on the billing (no policy reads it), so each fleet is simulated
 * once per seed and costed under every billing from the same run.
 *
 * struct plan owns everything it points to but the option strings (argv:
 * path, catalog_opt); plan_free releases it.
 */
#ifndef FS_STUDY_PLAN_H
#define FS_STUDY_PLAN_H

#include <cjson/cJSON.h>
#include <string.h>

#include "../reports/costing.h"
#include "../run/exec.h"
#include "../run/run.h"

#define PLAN_MAX_TYPES 8
#define PLAN_MAX_SEEDS 32
#define PLAN_MAX_SLOS 16
#define PLAN_MAX_NODES 1000            /* --max-nodes */
#define PLAN_MAX_CANDIDATES 1000000    /* fleets x billings */

/* What a run is judged by: the rows of the metric table (reports/metric.h)
 * but those in USD, which depend on the billing (the plan costs each
 * candidate under its own).  Any of them may be an --slo; the search prunes
 * on a row's trend. */
static inline bool plan_metric(int k) { return strcmp(metric_table[k].unit, "USD") != 0; }

/* metric <= limit (op -1) or metric >= limit (op +1). */
struct plan_slo {
    int metric;
    int op;
    double limit;
};

/* A planned GPU type. */
struct plan_type {
    int gpu;                          /* catalog index */
    int gpn;                          /* GPUs per node */
    const cJSON *group;               /* the scenario's first group of the type, or NULL */
    const struct node_template *nt;
    double node_kw;                   /* one node's most facility power, kW */
    double gpu_month[COST_BILLINGS];  /* capacity USD per GPU-month; < 0: unpriced */
};

enum plan_state {
    FL_NEW,          /* not looked at yet */
    FL_EMPTY,        /* no nodes at all */
    FL_POWER,        /* over --power-kw (static) */
    FL_PRUNED,       /* dominated by a failure: fails without a run */
    FL_INFEASIBLE,   /* the loader refused it: some job can never run */
    FL_FAIL,         /* simulated, missed an SLO on some seed */
    FL_PASS          /* simulated, met every SLO on every seed */
};

/* One seed's run of a fleet, as the executor hands it back. */
struct plan_seedrun {
    int32_t rc;                       /* 0, PLAN_INTERRUPTED or the loader's code */
    double m[METRIC_MAX];             /* metric_values */
    double month[COST_BILLINGS];      /* simulated USD per month; < 0: no price */
    char why[sizeof ((struct fs_err *)0)->msg]; /* rc != 0: the message */
};

/* One fleet's runs, seed by seed. */
struct plan_result {
    double m[PLAN_MAX_SEEDS][METRIC_MAX];      /* metric_values */
    double month[PLAN_MAX_SEEDS][COST_BILLINGS]; /* simulated USD per month; < 0: no price */
};

struct plan_fleet {
    uint16_t n[PLAN_MAX_TYPES];
    enum plan_state state;
    int gpus;
    double kw;                        /* facility power at full load */
    bool down_fail;                   /* failed a down-closed SLO, or infeasible */
    struct plan_result *r;            /* when simulated */
    struct plan_seedrun *runs;        /* every seed's run, once computed (ahead of
                                         the search, too: plan_search.c) */
    char *why;                        /* FL_INFEASIBLE: the loader's message */
};

/* Why a candidate was not, or was, simulated. */
enum plan_fate {
    CF_SIMULATED, CF_PRUNED, CF_INFEASIBLE, CF_EMPTY, CF_POWER, CF_UNPRICED, CF_BEYOND,
    CF_COUNT
};
extern const char *const plan_fate_names[CF_COUNT];

struct plan_cand {
    uint32_t fleet;
    uint8_t billing;                  /* index into plan.bill */
    uint8_t fate;                     /* enum plan_fate */
    double capacity;                  /* USD per month, without energy */
};

struct plan {
    /* inputs */
    const char *path;                 /* the scenario file */
    cJSON *tree;                      /* its tree, --growth applied to a generator */
    struct scenario *base;            /* loaded as given: catalogs, prices, seed */
    struct scenario_options so;
    const char *catalog_opt;          /* --catalog, or NULL */
    bool trace;                       /* the workload is a trace */
    int ntypes;
    struct plan_type types[PLAN_MAX_TYPES];
    int max_nodes;
    int nbill;
    enum cost_billing bill[COST_BILLINGS];
    enum cost_commit commit;          /* for cloud: the scenario's */
    int nslos;
    struct plan_slo slos[PLAN_MAX_SLOS];
    double power_kw;                  /* 0: no budget */
    double growth;
    int nseeds;
    uint64_t seeds[PLAN_MAX_SEEDS];
    bool brute, quiet;
    int jobs;                         /* executor workers (-j) */
    /* the search */
    size_t nfleets, ncands;
    struct plan_fleet *fleets;
    struct plan_cand *cands;          /* in search order */
    size_t *cand_at;                  /* [fleet x nbill + billing]: its index in cands */
    size_t simulations;               /* seed runs the search used */
    size_t ahead;                     /* cands before it are not worth running ahead */
    size_t brute_bound;               /* fleets a brute force would run x seeds */
    size_t fate[CF_COUNT];
    size_t violations;                /* --brute-force: passes a pruned search would skip */
    long chosen;                      /* index into cands; -1: none */
    size_t nfront;
    size_t *front;                    /* cands indices, by cost */
};

/* --- plan_load.c ------------------------------------------------------------ */

/* Append the SLOs of text ("wait_p95_s<=3600,utilization>=0.5") to p.
 * RET: 0 or FS_EUSAGE with a message naming --slo. */
int plan_parse_slos(struct plan *p, const char *text, struct fs_err *err);

/* Read p->path (p->so: catalog, --set edits), apply p->growth to a
 * generator's arrivals_per_hour, load it, and settle the planned types
 * (types: "T1,T2", or NULL for the scenario's fleet's), the default
 * billing and seeds.  RET: 0, FS_EUSAGE (a --types problem), or the
 * loader's FS_E* code. */
int plan_load(struct plan *p, const char *types, struct fs_err *err);

/* --- plan_search.c ---------------------------------------------------------- */

/* Enumerate the fleets and candidates, with their static checks, and sort
 * the candidates into search order.  RET: 0 or FS_EUSAGE (too many). */
int plan_setup(struct plan *p, struct fs_err *err);

/* Run the search (pruned, or every fleet with p->brute), then the
 * frontier.  RET: 0, PLAN_INTERRUPTED, or an FS_E* code from a
 * candidate's load that is not the fleet's fault. */
int plan_search(struct plan *p, struct fs_err *err);

/* --- plan_fleet.c ------------------------------------------------------------ */

/* The scenario tree with fleet n (and billing b, or -1 to keep the
 * scenario's cost block).  Caller frees. */
cJSON *plan_tree(const struct plan *p, const uint16_t *n, int b);

enum { PLAN_INTERRUPTED = 1 };

/* Load the fleet of node counts n under seed k, with --growth applied to a
 * trace, run it and record its metrics and its cost under every billing
 * in out (out->rc: 0, PLAN_INTERRUPTED when a signal stopped the run, or
 * the loader's error, FS_EDATA when the fleet cannot host the workload). */
void plan_run_seed(const struct plan *p, const uint16_t *n, int k, struct plan_seedrun *out);

/* Candidate c's simulated monthly cost: mean over seeds, and min and max
 * (either may be NULL). */
double plan_cost(const struct plan *p, const struct plan_cand *c, double *min, double *max);

/* The least and the greatest of metric k over fleet f's seeds. */
double plan_metric_min(const struct plan *p, const struct plan_fleet *f, int k);
double plan_metric_max(const struct plan *p, const struct plan_fleet *f, int k);

/* The worst margin of SLO s over fleet f's seeds (limit - value for <=,
 * value - limit for >=: positive is within). */
double plan_margin(const struct plan *p, const struct plan_fleet *f, const struct plan_slo *s);

/* "h100-sxm:3 a100-sxm-80:0" into buf. */
void plan_fleet_label(const struct plan *p, const struct plan_fleet *f, char *buf, size_t size);

/* "wait_p95_s<=3600" into buf. */
void plan_slo_label(const struct plan_slo *s, char *buf, size_t size);

void plan_free(struct plan *p);

/* --- plan_write.c ----------------------------------------------------------- */

/* Write every output into dir, atomically (all or none); *drawn: the
 * chart was rendered.  RET: 0 or FS_ECANTCREAT with err filled. */
int plan_write(const struct plan *p, const char *dir, bool *drawn, struct fs_err *err);

/* The scenario with fleet n (billing b, or -1: the scenario's), every path
 * absolute, named name, described, run with the first planned seed; csv:
 * the workload becomes that trace file (beside it), NULL: kept.  Caller
 * frees. */
char *plan_scenario_file(const struct plan *p, const uint16_t *n, int b, const char *name, const char *description,
                         const char *csv);

/* The trace's jobs with their submit times / p->growth, as a native CSV.
 * RET: 0 or the writer's error. */
int plan_write_workload(FILE *f, const struct plan *p);

/* The summary on stderr. */
void plan_print(const struct plan *p, const char *dir, bool drawn);

/* "no fleet of up to ... meets ...", the SLOs and types named, on stderr. */
void plan_print_none(const struct plan *p, const char *dir);

#endif
