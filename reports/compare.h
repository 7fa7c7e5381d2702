/* compare.h - the same workload run under several scenarios (fleets,
 * billing, policies) side by side: compare.json, report.md and a
 * self-contained report.html with charts, and the savings of each against
 * the first, the baseline, split by reason (reports/costing.h).
 *
 * Files written to the output folder (each under a temporary name until
 * every one is complete, then renamed; on error none is left):
 *   compare.json           one object per run: name, scenario, policy,
 *                          billing, metrics{every row of the metric
 *                          table, metric.h}, savings[{reason, wording,
 *                          usd_month}], savings_total_usd_month, and its
 *                          work priced every way (reports/billing.h):
 *                          own_billing, cost_by_billing_usd_month{owned,
 *                          leased, cloud_on_demand, cloud_elastic,
 *                          cloud_spot, cloud_commit_1y, cloud_commit_3y}
 *                          (null: no price; cost_by_billing_missing says
 *                          why), side_effects_by_billing, fleet_utilization,
 *                          break_even_utilization{leased_vs_cloud_elastic,
 *                          owned_vs_leased} (a fraction, or null when one
 *                          always wins: break_even_note says which), and
 *                          vs_cheapest_alternative / vs_cheapest_committed
 *                          {run, billing, usd_month, saving_usd_month,
 *                          saving_pct} (compare_cheapest_other)
 *   report.md, report.html the summary (id="summary", before any table),
 *                          the side-by-side table, every way to pay, the
 *                          savings with their side effects, the charts,
 *                          the assumptions
 *   billing.gp + .csv      cost against utilization, each billing model
 *   cost.gp + cost.csv     monthly cost by run (capacity and energy)
 *   waits.gp + waits.csv   the wait CDF of every run
 *   cost.png, waits.png    when gnuplot runs (report.h says how it is found)
 */
#ifndef FS_REPORTS_COMPARE_H
#define FS_REPORTS_COMPARE_H

#include "billing.h"
#include "costing.h"
#include "metric.h"

struct compare_entry {
    char name[96];
    char scenario[256];            /* the scenario file */
    char policy[32];
    char fleet[256];               /* "32 h100-sxm, 16 h200-sxm" */
    uint64_t fingerprint;          /* of the workload (compare_fingerprint) */
    size_t njobs;
    struct run_stats st;
    double v[METRIC_MAX];          /* the metric table's rows (metric_values) */
    struct fleet_cost cost;        /* under the scenario's billing */
    struct cost_factors f;
    double *waits;                 /* sorted, seconds (summary_waits); nwaits of them */
    size_t nwaits;
    double savings[SAVE_COUNT];    /* against the baseline, USD per month */
    double savings_total;
    /* The work under every billing model (the caller fills it: the fixed
     * lines from a run of the fleet held all the time, the elastic and spot
     * lines from runs as an elastic pool), and which line is the run's own. */
    struct billing bill;
    enum bill_line own;
};

/* The cheapest way to pay for run i's work other than its own: the lowest
 * line of any run (i's own other lines included); long_terms false leaves
 * out the lines that bind the customer for years (owned, 1- and 3-year
 * commitments: bill_long_term).  OUT *run, *line.  RET: its USD per
 * month, NAN when no other line has a cost. */
double compare_cheapest_other(const struct compare_entry *e, int n, int i, bool long_terms, int *run,
                              enum bill_line *line);

/* A hash of the jobs as submitted (id, submit, kind, team, GPUs, share,
 * work): equal for the same workload, whatever the fleet. */
uint64_t compare_fingerprint(const struct sim *s);

/* Fill e from the finished run r; base_billing/base_commit: the baseline's
 * billing (the run's own for the baseline), to price this fleet as the
 * baseline is paid for. */
void compare_entry_fill(struct compare_entry *e, const struct run_result *r,
                        enum cost_billing base_billing, enum cost_commit base_commit);
void compare_entry_free(struct compare_entry *e);

/* Compute every entry's savings against e[0], then write the files to dir.
 * sc0: the baseline's scenario (for the assumptions).
 * RET: 0, FS_ECANTCREAT with err filled. */
int compare_write(const char *dir, struct compare_entry *e, int n, const struct scenario *sc0,
                  struct fs_err *err);

#endif
