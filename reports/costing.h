/* costing.h - what a finished run's fleet costs, who used it, where demand
 * is heading, and, between two runs, where the difference comes from.
 *
 * Monthly figures are for a 730-h month (models/cost.h) at the rate the run
 * measured:
 *   capacity  sum over GPU types of GPUs x cost_gpu_month (the billing
 *             model's price of a GPU for a month: owned amortization and
 *             maintenance, the lease, or the cloud instance kept all month);
 *   energy    owned fleets only (leases and clouds include it): the
 *             servers' IT energy over the window, scaled to a month,
 *             x PUE x $/kWh;
 *   month     capacity + energy.
 * The window bill applies the billing rules to the run's window: a lease is
 * billed in whole months with a one-month minimum, the rest pro rata.
 * Cost per completed GPU-hour = month x window months / GPU-hours of work
 * the jobs that completed in the window did, each measured on its
 * reference GPU (the work the trace or generator states, in reference
 * GPU-seconds): a unit that does not depend on where the job ran, so work
 * done on faster GPUs, with less waste (lost to preemption), or on a
 * cheaper fleet shows as a lower price per unit of work.
 * Idle = the capacity cost of GPU time nobody was allocated: sum over types
 * of GPUs x price x (1 - utilization).
 *
 * Elastic and spot runs (sim/elastic.h) under cloud billing pay for the
 * GPU time they were billed, not for the pool: capacity = billed
 * GPU-hours x the hourly price (less the spot discount) over the window's
 * months; gpus is the mean billed, and idle what was billed and not
 * allocated.  Priced any other way (owned, leased, kept all month), an
 * elastic run's pool is priced as a fixed fleet.
 *
 * Teams: a team's use is the dollar-weighted GPU time its jobs held
 * (GPU-seconds on each type x that type's price), and the month is
 * attributed with cost_attribute under the scenario's idle rule.
 */
#ifndef FS_REPORTS_COSTING_H
#define FS_REPORTS_COSTING_H

#include "metrics.h"
#include "summary.h"

struct team_cost {
    const char *team;         /* the workload's name for it */
    double gpu_h;             /* GPU-hours its jobs were allocated */
    struct cost_share share;  /* USD per month */
};

struct fleet_cost {
    bool ok;                          /* false: why says what price is missing */
    char why[160];
    enum cost_billing billing;
    enum cost_commit commit;
    double gpu_month_usd[GPU_MAX_TYPES]; /* mean price per GPU-month by type */
    /* By type: GPUs paid for (mean over the window: an elastic pool's held
     * ones), allocated / paid-for GPU time, and the idle part of its bill. */
    double gpus_by_type[GPU_MAX_TYPES], util_by_type[GPU_MAX_TYPES], idle_by_type[GPU_MAX_TYPES];
    double capacity_month_usd, energy_month_usd, month_usd;
    double amortization_month_usd, maintenance_month_usd; /* owned only */
    double hosting_month_usd; /* owned only: colocation for the servers' nameplate kW */
    double idle_month_usd;
    double window_months, window_usd;
    double completed_gpu_h, usd_per_gpu_h; /* reference GPU-hours; 0 when nothing completed */
    double gpus;                      /* GPUs paid for (mean over the window) */
    double utilization;               /* allocated / paid-for GPU time */
};

/* The cost of run s (ended; m its metrics) under billing b and commitment
 * c (the scenario's own: s->sc->cost). */
void fleet_cost_compute(const struct sim *s, const struct metrics *m, enum cost_billing b,
                        enum cost_commit c, struct fleet_cost *out);

/* The month of fc attributed to the workload's teams, each charged for
 * the GPU time its jobs held on each type (m->team_us).  OUT teams[nteams of
 * the workload], *idle_line (USD per month not shared out).  RET: 0 or
 * FS_EDATA (cost_attribute's checks). */
int fleet_cost_teams(const struct sim *s, const struct metrics *m, const struct fleet_cost *fc,
                     struct team_cost *teams, double *idle_line, struct fs_err *err);

/* Demand: reference GPU-hours submitted per whole day of the window (the
 * jobs' work on their reference GPU), fitted and projected for months
 * 730-h months by the day-trend's midpoint at each month (exact for the
 * linear trend; never below zero).  The run report's forecast and
 * `fleetsim roadmap` without --growth both read it.
 * RET: the number of days fitted (0: fewer than 3 whole days, no
 * forecast); OUT proj_gpu_h[months], *today_gpu_h_month (the window's
 * average month), *unusable: NULL when the trend may be extrapolated, else
 * why not (a static sentence): no forecast, a closed workload (its
 * submissions stop a day or more before the window ends: its fall at the
 * end is the trace ending, not demand), or a weak fit (R^2 < 0.5). */
int demand_forecast(const struct sim *s, int months, struct cost_forecast *fc,
                    double *proj_gpu_h, double *today_gpu_h_month, const char **unusable);

/* --- savings ---------------------------------------------------------------- */

enum saving {
    SAVE_BILLING,   /* the same GPUs paid for another way */
    SAVE_TYPES,     /* a cheaper mix of GPU types per GPU */
    SAVE_GPU_TIME,  /* fewer GPU-hours for the same work (faster GPUs, less waste) */
    SAVE_UTIL,      /* a higher share of the fleet kept busy */
    SAVE_ENERGY,    /* the electricity an owned fleet pays */
    SAVE_COUNT
};
extern const char *const saving_reasons[SAVE_COUNT];   /* "billing model", ... */
extern const char *const saving_explained[SAVE_COUNT]; /* a sentence each */

/* Line k's wording for a saving of usd (positive: the alternative is
 * cheaper): "fewer GPU-hours for the work" for a saving, "more GPU-hours
 * for the work" for a cost. */
const char *saving_wording(enum saving k, double usd);

/* What a run's monthly cost is made of, for the decomposition. */
struct cost_factors {
    double month_usd, energy_month_usd;
    double gpus;            /* GPUs in the fleet */
    double gpu_h_per_h;     /* allocated GPU-hours per hour of the window */
    double utilization;     /* allocated / offered GPU time */
    double price;           /* capacity USD per GPU-month: its own billing */
    double price_as_base;   /* ... the same fleet under the baseline's billing */
};

/* Split base.month - alt.month into the SAVE_* lines, which add up to it.
 * Capacity cost is gpus x price = (gpu_h_per_h / utilization) x price, and
 * price = price_as_base (what the fleet costs billed like the baseline) x
 * price / price_as_base; the capacity difference is split over those four
 * factors by the logarithmic mean Divisia index (LMDI-I, Ang 2004): line k
 * = L(Ca, Cb) ln(xa_k / xb_k) with L the logarithmic mean, which adds up
 * exactly.  Energy is its own line.  A factor that is not positive in
 * either run (an idle fleet) cannot be split: its whole capacity
 * difference goes to the GPU-time line.  OUT line[SAVE_COUNT], positive =
 * the alternative is cheaper. */
void cost_savings(const struct cost_factors *base, const struct cost_factors *alt,
                  double line[SAVE_COUNT]);

#endif
