/* billing.h - one run's work priced under every way of paying for GPUs, the
 * utilizations at which two of them cost the same, and the side effects
 * each comes with.
 *
 * Lines (USD per 730-h month, reports/costing.h):
 *   owned, leased, cloud_on_demand (instances kept all month),
 *   cloud_commit_1y, cloud_commit_3y   the fixed fleet of the run, priced
 *                                      by fleet_cost_compute;
 *   cloud_elastic, cloud_spot          the same scenario simulated again
 *                                      with its fleet as an elastic pool
 *                                      (sim/elastic.h): instances held only
 *                                      while jobs need them, billed per
 *                                      increment; spot interrupted.
 * Elastic and spot runs wait for provisioning and spot runs lose work, so
 * each line keeps the waits, completion times, completed jobs and SLO
 * attainment of the run it was priced from.
 *
 * Cost against utilization u (the share of the fixed fleet's GPU time the
 * work allocates; the run measured u0):
 *   fixed lines     flat: capacity is paid whatever the use, except owned,
 *                   whose energy runs from the fleet's idle draw at u = 0
 *                   through the measured energy at u0;
 *   elastic, spot   measured cost x u / u0: billed time grows with the work.
 * Break-even utilizations solve line A(u) = line B(u) for u in [0, 1]:
 *   leased_vs_cloud_elastic  u0 x leased / elastic: leasing is cheaper
 *                            above it;
 *   owned_vs_leased          where owned (rising with energy) meets the
 *                            flat lease.
 * A break-even outside [0, 1] (one always wins) or not computable (a line
 * missing) is NAN, with a sentence saying which wins.
 */
#ifndef FS_REPORTS_BILLING_H
#define FS_REPORTS_BILLING_H

#include "result.h"

enum bill_line {
    BILL_OWNED, BILL_LEASED, BILL_ON_DEMAND, BILL_ELASTIC, BILL_SPOT, BILL_COMMIT_1Y, BILL_COMMIT_3Y,
    BILL_LINES
};
extern const char *const bill_keys[BILL_LINES];   /* "owned", ..., "cloud_commit_3y" */
extern const char *const bill_titles[BILL_LINES]; /* "owned", ..., "cloud, 3-year commitment" */
extern const bool bill_long_term[BILL_LINES];     /* binds for years: owned (amortization), 1y, 3y */

enum bill_break_even { BE_LEASED_ELASTIC, BE_OWNED_LEASED, BE_COUNT };
extern const char *const bill_be_keys[BE_COUNT];  /* "leased_vs_cloud_elastic", "owned_vs_leased" */

/* What the run a line was priced from did besides cost. */
struct bill_effects {
    double wait_p95_s, jct_mean_s, slo_attainment, latency_attainment, lost_gpu_h;
    size_t completed;
    uint64_t interruptions;       /* spot */
};

struct billing {
    double usd_month[BILL_LINES];       /* NAN: no price, or not simulated */
    char why[BILL_LINES][160];          /* why a line is NAN */
    struct bill_effects eff[BILL_LINES];
    double util;                        /* u0: the fixed fleet's utilization */
    double owned_capacity_usd, energy_idle_usd, energy_usd; /* the owned line's parts, per month */
    double break_even[BE_COUNT];        /* NAN: null */
    char be_why[BE_COUNT][160];         /* when null: which wins */
};

/* The line a scenario's own billing is. */
enum bill_line bill_own_line(const struct scenario *sc);

/* Start b: every line NAN, "not simulated". */
void billing_init(struct billing *b);

/* The five fixed lines, u0 and the owned line's parts from r, a run of
 * the fleet held all the time. */
void billing_fixed(struct billing *b, const struct run_result *r);

/* The cloud_elastic or cloud_spot line (by r's hold) from r. */
void billing_elastic(struct billing *b, const struct run_result *r);

/* Line l not simulated, and why (a sentence fragment). */
void billing_missing(struct billing *b, enum bill_line l, const char *why);

/* The break-evens of b's lines (after every line is in). */
void billing_break_evens(struct billing *b);

/* Line l's monthly cost at utilization u (the chart); NAN when missing. */
double billing_at(const struct billing *b, enum bill_line l, double u);

#endif
