/* roadmap.h - `fleetsim roadmap`: which GPUs to buy, lease or rent, month
 * by month, over a horizon of growing (or shrinking) demand, at the least
 * total cost that meets the SLOs in every month (docs/roadmap.md).
 *
 * The model.  Month m (1..M) runs the scenario's workload with its demand
 * x d_m: d_1 = 1 (the scenario as written), d_{m+1} = d_m x (1 + R_m), R
 * the --growth rates (M - 1 of them; or M, the first taking the scenario
 * to month 1: d_1 = 1 + R_1); demand scales as in `fleetsim plan --growth` (a
 * generator's arrivals_per_hour x d, a trace's submit times / d).  Each
 * month's fleet is a node count per planned type, paid three ways:
 *   owned   bought: ordered in month k >= 1, delivered --lead-months L
 *           later (usable from month k + L), then kept to the horizon's
 *           end (nothing is retired that is not paid off: the horizon is
 *           at most the amortization period).  From delivery it costs its
 *           installment (capex / amortization months) and maintenance a
 *           month, plus its share of the fleet's simulated energy (by
 *           full-load kW); installments past the horizon are reported
 *           (owned_installments_after_horizon_usd), not counted;
 *   leased  whole months, at least one (a month is the decision step): the
 *           lease price per GPU-month;
 *   cloud   rented by the month, as many as wanted, no lead time: the
 *           on-demand price x 730 h (the instance kept all month, the
 *           cost_gpu_month cloud rule).
 * Owned and leased nodes are hosted on site and count against the
 * facility's power (full-load kW x PUE) and rack space (nodes); cloud
 * nodes do not.  A simulation does not depend on how a node is paid for,
 * so month m's SLO check is a run of fleet n (owned + leased + cloud) at
 * demand d_m, on every seed.
 *
 * The search.  Owned capacity is the only state carried between months.
 * C_m(o), the cheapest month m with o owned, is the cheapest passing fleet
 * n >= o with the extra n - o split between leased and cloud under the
 * month's constraints; fleets are tried by capacity cost (a lower bound:
 * energy >= 0) until none left can beat the best, skipping those below a
 * down-closed failure of the same month (plan's dominance, study/plan.h).
 * Then dynamic programming over the owned vector: V_m(o) = C_m(o) +
 * min over o' >= o of V_{m+1}(o').
 *
 * Uncertain growth (--scenarios): K growth paths; one roadmap must meet the
 * SLOs on every path (a fleet passes month m when its runs at every path's
 * demand d^k_m pass), at the least expected cost (capacity is the same on
 * every path; energy is the mean over paths).  Each path's regret is the
 * roadmap's cost on that path less the cheapest roadmap for that path
 * alone (the same search with only its runs).  --brute-force simulates every fleet
 * in every month and enumerates every owned trajectory instead.
 */
#ifndef FS_STUDY_ROADMAP_H
#define FS_STUDY_ROADMAP_H

#include "plan.h"

#define RM_MAX_MONTHS 60
#define RM_MAX_STATES 4096          /* (max-nodes + 1) ^ types */
#define RM_MAX_PATHS 8              /* --scenarios */

enum rm_source { RM_OWNED, RM_LEASED, RM_CLOUD, RM_SOURCES };
extern const char *const rm_source_names[RM_SOURCES]; /* "owned", "leased", "cloud" */

enum rm_state { RS_NEW, RS_PASS, RS_FAIL, RS_INFEASIBLE, RS_PRUNED };

/* Fleet f in month m: its runs' figures, once simulated. */
struct rm_eval {
    uint8_t state;                    /* enum rm_state */
    bool down, up;                    /* its failure implies smaller / larger fleets fail */
    double energy;                    /* the fleet's energy, USD a month if owned (mean over seeds) */
    double *m;                        /* [seed][METRIC_MAX], when simulated */
};

/* A month's fleet: what it holds and costs. */
struct rm_month {
    int32_t fleet;                    /* the index of n; -1: none meets the SLOs */
    uint16_t n[RM_SOURCES][PLAN_MAX_TYPES];
    double cost[RM_SOURCES];          /* USD this month; owned includes its energy */
    double energy;                    /* of which energy */
    double total;
};

struct roadmap {
    struct plan p;                    /* scenario, types, SLOs, seeds, max_nodes;
                                         bill = owned, leased, cloud */
    int months, lead;
    int nrates;
    double rate[RM_MAX_MONTHS];       /* --growth as given */
    double demand[RM_MAX_MONTHS];     /* d_m, from the rates (the caller); with
                                         paths, the highest path's (month files) */
    int npaths;                       /* growth paths (--scenarios), >= 1 */
    char pname[RM_MAX_PATHS][32];
    double prate[RM_MAX_PATHS];
    double pdemand[RM_MAX_PATHS][RM_MAX_MONTHS];
    bool fitted;                      /* no --growth: demand from the workload's forecast */
    const char *unusable;             /* fitted: why the trend was not used (demand held
                                         flat); NULL: it was */
    char trend[128];                  /* fitted: the trend used, or "" */
    int only;                         /* judge on path k alone; -1: on every path */
    bool allow[RM_SOURCES];           /* --sources */
    double power_kw[RM_MAX_MONTHS];   /* 0: no limit */
    double racks[RM_MAX_MONTHS];      /* most nodes on site; 0: no limit */
    double budget[RM_MAX_MONTHS];     /* most USD a month; 0: no limit */
    double amort_months;              /* prices.json's */
    double node_usd[RM_SOURCES][PLAN_MAX_TYPES]; /* capacity per node-month; < 0: unpriced */
    bool brute;
    /* the search */
    size_t nstates;                   /* (max_nodes + 1) ^ ntypes */
    cJSON **trees;                    /* [path x months + month]: the scenario at its demand */
    struct rm_eval *ev;               /* [(path x months + month) x nstates] */
    size_t simulations, pruned, violations, trajectories;
    struct rm_month *cache;           /* [month x nstates]: C_m(o); fleet -2: not computed */
    double *value;                    /* [month x nstates]: V_m(o) */
    /* the answer */
    bool found;
    struct rm_month plan[RM_MAX_MONTHS];
    double total;
    bool static_found;
    int static_source;
    int32_t static_fleet;
    double static_total, static_month[RM_MAX_MONTHS];
    bool cloud_found;
    double cloud_month[RM_MAX_MONTHS];  /* the cheapest all-cloud fleet of each month */
    double after_horizon;               /* owned installments still due after month M */
    double path_cost[RM_MAX_PATHS];     /* the roadmap's total on each path */
    double path_best[RM_MAX_PATHS];     /* the cheapest roadmap for that path alone */
    bool path_found[RM_MAX_PATHS];
};

/* Node counts of state index i. */
void rm_counts(const struct roadmap *r, size_t i, uint16_t *n);

/* Without --growth: month m's demand from the forecast the run report
 * makes (reports/costing.h, demand_forecast), fitted to the scenario run
 * once as written: d_1 = 1 (the window itself), d_m = the projection
 * m - 1 months ahead over the window's average month.  When the trend is
 * not usable (fewer than 3 days, a closed workload, R^2 < 0.5, or a
 * projection outside [1e-6, 1e6] x today's) demand is held flat and
 * r->unusable says why: nothing is extrapolated from a weak fit.
 * RET: 0 or the run's FS_E* code. */
int roadmap_forecast(struct roadmap *r, struct fs_err *err);

/* Set up the states and the months' scenarios (after plan_load).
 * RET: 0 or FS_EUSAGE (too many states). */
int roadmap_setup(struct roadmap *r, struct fs_err *err);

/* Search (or brute-force).  RET: 0, PLAN_INTERRUPTED or an FS_E* code. */
int roadmap_search(struct roadmap *r, struct fs_err *err);

/* The index of fleet f in month m on path k in r->ev. */
size_t rm_cell(const struct roadmap *r, int k, int m, size_t f);

/* Is a <= b in every count? */
bool rm_below(const struct roadmap *r, const uint16_t *a, const uint16_t *b);

/* The simulations (roadmap_sim.c).  rm_simulate runs cells[0..n) on
 * every seed through the executor and judges them into r->ev.  RET: 0,
 * PLAN_INTERRUPTED or an FS_E* code. */
int rm_simulate(struct roadmap *r, const size_t *cells, size_t n, struct fs_err *err);

/* Is fleet n's failure in path-month pm implied by a failure simulated there? */
bool rm_implied(const struct roadmap *r, size_t pm, const uint16_t *n);

/* Does fleet f meet the SLOs in month m on every judged path?  Simulated
 * unless implied (not under --brute-force, where every cell was run
 * ahead), the paths' runs in one executor call.  RET: as rm_simulate. */
int rm_passes(struct roadmap *r, int m, size_t f, bool *ok, struct fs_err *err);

/* Fleet f's energy in month m (USD if owned): the mean over judged paths. */
double rm_energy(const struct roadmap *r, int m, size_t f);

/* The worst margin of SLO s over fleet f's seeds (and paths) in month m
 * (positive: within). */
double rm_margin(const struct roadmap *r, int m, size_t f, const struct plan_slo *s);

/* Write roadmap.json, roadmap.md and month-N.json (and month-N.csv for a
 * trace) into dir, atomically.  RET: 0 or FS_ECANTCREAT. */
int roadmap_write(const struct roadmap *r, const char *dir, struct fs_err *err);

void roadmap_free(struct roadmap *r);

/* --- the command line's values (study/roadmap_args.c) ------------------------ */

/* The options as given, before they are checked against each other. */
struct roadmap_args {
    const char *types, *slos, *sources, *growth, *power, *racks, *budget, *dir, *paths;
    char *seeds;
    double lead;
    bool json;
};

/* A comma-separated list of numbers in [lo, hi] for option opt.  OUT
 * v[*n] (at most max).  RET: 0 or FS_EUSAGE with err set. */
int rm_parse_list(const char *opt, const char *arg, double lo, double hi, double *v, int *n, int max,
                  struct fs_err *err);

/* The horizon, the demand month by month (one growth rate, one a month,
 * or growth paths), the sources allowed and the monthly limits from a,
 * into r, checked against each other.  RET: 0 or FS_EUSAGE with err set. */
int roadmap_settle(struct roadmap *r, const struct roadmap_args *a, struct fs_err *err);

/* Checks that need the planned types (after plan_load): a month whose
 * power or rack space hosts no node while the cloud is not allowed.
 * RET: 0 or FS_EUSAGE with err set. */
int roadmap_settle_site(const struct roadmap *r, struct fs_err *err);

/* The summary on stderr: the total, the best single fleet's, the search's
 * work, the files in dir; or, with no roadmap found, why (also when quiet). */
void roadmap_print(const struct roadmap *r, const char *dir);

#endif
