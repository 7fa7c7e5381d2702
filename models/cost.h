/* cost.h - what GPUs cost: owned, leased or rented from a cloud; who used
 * what the fleet cost; and where demand and cost are heading.
 *
 * Prices come from models/data/prices.json (read by cost_prices_load): per
 * GPU type a purchase price, an on-demand cloud price per GPU-hour (with
 * the provider named) and a monthly lease price; whole-server prices for
 * the node templates that have one; and the global terms: amortization
 * months, maintenance % per year, electricity $/kWh, committed-use
 * discounts, the lease discount and the server overhead.  Every number
 * keeps the index of its source, and every source a date, so a report can
 * print each figure with where it came from; assumptions are sources whose
 * ID starts "ASSUMPTION" and whose text starts "assumption:".
 *
 * Billing rules, one per way of paying:
 *   owned   capex amortized linearly over amortization_months, plus
 *           maintenance_pct_per_year % of capex a year, both prorated over
 *           the period, plus hosting: colocation_usd_per_kw_month x each
 *           server's nameplate input in kW (reserved whether drawn or not),
 *           plus energy: the IT energy the servers drew x PUE x $/kWh.  No
 *           resale value.
 *   leased  per GPU per month, billed in whole months: a period is rounded
 *           up to the next whole month, and every lease is billed at least
 *           one month (the minimum term), even a zero-length one; no hourly
 *           billing.  The lessor hosts and powers the GPUs: no energy line.
 *   cloud   per GPU-hour actually billed (providers bill by the second, so
 *           fractional hours count exactly), on demand or with a 1- or
 *           3-year committed-use discount; energy and hosting are in the
 *           price.  A commitment's cost over a period is that period's
 *           share of a commitment assumed to continue.
 * A month is COST_MONTH_HOURS = 730 h (8,760 h / 12), the convention cloud
 * providers quote monthly prices in: 30 d 10 h.  A 31-day lease is two
 * months.
 *
 * Every function here but the loader is pure: no files, no globals.
 *
 * The caller owns the prices and frees them with cost_prices_free; the
 * catalogs they were loaded against must outlive them.
 */
#ifndef FS_MODELS_COST_H
#define FS_MODELS_COST_H

#include <stdbool.h>

#include "gpu.h"
#include "node.h"

#define COST_MONTH_HOURS 730.0
#define COST_MONTH_USEC ((fs_time)730 * 3600 * FS_USEC)

/* A price and where it came from. */
struct cost_value {
    double value;
    int source;               /* index into cost_prices.sources; -1: absent */
};

struct cost_source {
    char *id;                 /* "AWS_P5" */
    char *text;               /* a citation, or "assumption: ..." */
    char date[11];            /* "2026-11-09", "2026-05" or "2023" */
    bool assumption;          /* the ID starts "ASSUMPTION" */
};

struct cost_gpu_price {
    int gpu;                      /* catalog index */
    struct cost_value purchase;   /* USD per GPU (the GPU alone) */
    char provider[64];            /* who rents it at cloud_hour; "" when absent */
    struct cost_value cloud_hour; /* on-demand USD per GPU-hour; source -1: absent */
    struct cost_value lease_month;/* USD per GPU per month; source -1: absent */
    bool lease_derived;           /* lease_month = cloud_hour x 730 x (1 - lease_discount),
                                     with lease_discount's source */
};

struct cost_server_price {
    int node;                     /* index into node_catalog.templates */
    struct cost_value purchase;   /* USD for the whole server */
};

struct cost_prices {
    int nsources;
    struct cost_source *sources;
    struct cost_value amortization_months;  /* months, > 0 */
    struct cost_value maintenance_pct_year; /* % of capex per year */
    struct cost_value usd_per_kwh;          /* electricity at the meter */
    struct cost_value commit_1y, commit_3y; /* discounts in [0, 1) */
    struct cost_value lease_discount;       /* off cloud x 730 h, for derived leases */
    struct cost_value server_overhead;      /* non-GPU server cost / GPUs' cost */
    struct cost_value colocation_kw_month;  /* hosting an owned server, USD per kW of
                                               its nameplate input per month */
    struct cost_elastic_terms {             /* cloud instances held only while needed */
        struct cost_value spot_discount;        /* off on demand, in [0, 1) */
        struct cost_value spot_share_month;     /* share of spot instances interrupted
                                                   in a 730-h month, in [0, 1) */
        struct cost_value provision_s;          /* request to usable, billed */
        struct cost_value increment_s;          /* billed per started increment */
        struct cost_value minimum_s;            /* billed at least this */
        struct cost_value scale_down_s;         /* idle this long: released */
    } elastic;
    int ngpus;
    struct cost_gpu_price gpus[GPU_MAX_TYPES];
    int nservers;
    struct cost_server_price servers[NODE_MAX_TEMPLATES];
};

/* Load path (prices.json), resolving GPU names through cat and server
 * (node template) names through nodes.
 * RET: 0, FS_ENOINPUT or FS_EDATA with a message naming the file and the
 * JSON path ("prices.json: $.gpus[2].purchase_usd.value: -1 is out of
 * range ..."): missing, mistyped, negative or out-of-range numbers, unknown
 * keys, unknown or duplicate GPU and server names, unknown source IDs,
 * sources without a valid date, and assumptions not marked as such. */
int cost_prices_load(const char *path, const struct gpu_catalog *cat,
                     const struct node_catalog *nodes, struct cost_prices **out,
                     struct fs_err *err);
void cost_prices_free(struct cost_prices *p); /* NULL is fine */

/* The prices of GPU type gpu (a catalog index), or NULL when unpriced. */
const struct cost_gpu_price *cost_gpu_price(const struct cost_prices *p, int gpu);

/* Purchase price of one server of template nt (an element of
 * nodes->templates): its own price when prices.json lists one, else
 * gpus x the GPU's purchase price x (1 + server_overhead).
 * RET: USD, or -1 when neither is known. */
double cost_node_capex(const struct cost_prices *p, const struct node_catalog *nodes,
                       const struct node_template *nt);

/* Hosting one server of template nt in colocation for a 730-h month:
 * colocation_usd_per_kw_month x its nameplate maximum input in kW. */
double cost_hosting_month(const struct cost_prices *p, const struct node_template *nt);

/* A period as a fraction of a 730-hour month (exact, not rounded). */
double cost_months(fs_time period);

/* --- owned --------------------------------------------------------------- */

struct cost_owned_terms {
    double amortization_months;   /* > 0 */
    double maintenance_pct_year;  /* >= 0 */
    double usd_per_kwh;           /* >= 0 */
    double pue;                   /* >= 1 */
};

struct cost_owned {
    double amortization_usd;  /* capex x months / amortization_months */
    double maintenance_usd;   /* capex x pct / 100 x months / 12 */
    double energy_usd;        /* it_kwh x pue x usd_per_kwh */
    double total_usd;         /* the sum of the three */
};

/* The owned terms of p with the given PUE (nodes.json's, or a scenario's). */
struct cost_owned_terms cost_owned_terms(const struct cost_prices *p, double pue);

/* What owning hardware bought for capex_usd costs over period, during
 * which its servers drew it_kwh of IT energy (measured at their inputs,
 * before PUE).  A month with period COST_MONTH_USEC is the monthly cost. */
struct cost_owned cost_owned(double capex_usd, fs_time period, double it_kwh,
                             const struct cost_owned_terms *t);

/* --- leased -------------------------------------------------------------- */

/* Whole months billed for a lease of length period (>= 0): the period
 * divided by 730 h, rounded up, and at least 1.  Exact integer arithmetic:
 * 1 us over a month is two months. */
int64_t cost_lease_months(fs_time period);

/* usd_per_gpu_month x gpus x cost_lease_months(period). */
double cost_leased(double usd_per_gpu_month, int gpus, fs_time period);

/* --- cloud --------------------------------------------------------------- */

enum cost_commit { COST_ON_DEMAND, COST_COMMIT_1Y, COST_COMMIT_3Y };


/* The discount p gives commitment c: 0 on demand, commit_1y or commit_3y. */
double cost_commit_discount(const struct cost_prices *p, enum cost_commit c);

/* gpu_hours x usd_per_gpu_hour x (1 - discount). */
double cost_cloud(double usd_per_gpu_hour, double discount, double gpu_hours);

/* --- elastic and spot cloud ---------------------------------------------- */

/* The time an instance held for held (>= 0) is billed for: held rounded up
 * to a whole number of increments (> 0), and at least minimum.  Exact
 * integer arithmetic, like cost_lease_months. */
fs_time cost_elastic_billed(fs_time held, fs_time increment, fs_time minimum);

/* Interruptions per instance-second of a Poisson process that interrupts
 * a share (in [0, 1)) of instances within a 730-h month:
 * -ln(1 - share) / (730 x 3600). */
double cost_spot_rate(double share_month);

/* --- how a fleet is paid for --------------------------------------------- */

enum cost_billing { COST_OWNED, COST_LEASED, COST_CLOUD, COST_BILLINGS };
extern const char *const cost_billing_names[COST_BILLINGS]; /* "owned", "leased", "cloud" */
extern const char *const cost_commit_names[3];              /* "none", "1y", "3y" */
extern const char *const cost_idle_names[2];                /* "proportional", "separate" */

/* How long cloud instances are held: the whole run (COST_HOLD_FIXED, the
 * way owned, leased and committed fleets are), or only while jobs need
 * them (elastic, on demand or spot; sim/elastic.h grows and shrinks the
 * fleet in the run). */
enum cost_hold { COST_HOLD_FIXED, COST_HOLD_ELASTIC, COST_HOLD_SPOT, COST_HOLDS };

/* What one GPU of type gpu costs per 730-h month of capacity under billing
 * b (energy excluded: owned fleets pay it by use, see cost_owned):
 *   owned   the capex of the server template nt per GPU, amortized, plus
 *           maintenance (cost_owned over one month with no energy), plus
 *           hosting (cost_hosting_month of nt per GPU; none when nt is NULL);
 *   leased  the lease price per GPU-month;
 *   cloud   the hourly price x 730 h x (1 - the commitment's discount),
 *           the instance kept for the whole month.
 * RET: USD, or -1 when p has no such price. */
double cost_gpu_month(const struct cost_prices *p, const struct node_catalog *nodes,
                      const struct node_template *nt, int gpu, enum cost_billing b,
                      enum cost_commit c);

/* --- attribution ----------------------------------------------------------- */

/* How the cost of capacity nobody used is shown:
 *   PROPORTIONAL  shared out over the parties in proportion to their use
 *                 (nothing left on the idle line, unless nobody used
 *                 anything, when all of it stays there);
 *   SEPARATE      kept whole on its own "idle" line. */
enum cost_idle_rule { COST_IDLE_PROPORTIONAL, COST_IDLE_SEPARATE };

struct cost_share {
    double used_usd;          /* the cost of the capacity this party used */
    double idle_usd;          /* its share of the idle cost (0 when SEPARATE) */
};

/* Attribute total_usd, the cost of capacity, to n parties (teams or
 * projects) by their use.
 * IN  used[n]: each party's use, >= 0, in any unit capacity is in:
 *     GPU-hours of one GPU type, or dollar-seconds (GPU-seconds x each
 *     GPU's price per second) for a mixed fleet, with capacity then the
 *     whole fleet's dollar-seconds;
 *     capacity > 0, what the fleet offered (sum(used) <= capacity, to
 *     1e-9 relative for rounding);  total_usd >= 0.
 * OUT out[n]: used_usd = total_usd x used[i] / capacity, and idle_usd by
 *     rule; *idle_line_usd: the idle cost not shared out.
 * Invariant: sum(used_usd + idle_usd) + *idle_line_usd = total_usd, to
 * rounding (about n x 1e-16 relative).
 * RET: 0, or FS_EDATA (negative or non-finite input, capacity <= 0, more
 * use than capacity) with err filled and the outputs untouched. */
int cost_attribute(const double *used, int n, double capacity, double total_usd,
                   enum cost_idle_rule rule, struct cost_share *out,
                   double *idle_line_usd, struct fs_err *err);

/* --- forecast ------------------------------------------------------------ */

#define COST_FORECAST_MAX 1e12

enum cost_trend { COST_TREND_LINEAR, COST_TREND_EXP, COST_TRENDS };
extern const char *const cost_trend_names[COST_TRENDS]; /* "linear", "exponential" */

struct cost_fit {
    bool ok;                  /* fitted: the exponential needs every y > 0 */
    double a, b;              /* linear y = a + b t; exponential y = a e^(b t) */
    double r2;                /* 1 - SSE / SST, in y's own units */
    double rmse;              /* sqrt(SSE / n) */
};

struct cost_forecast {
    struct cost_fit fit[COST_TRENDS];
    enum cost_trend pick;     /* the model the projection uses */
};

/* Fit demand y[n] (GPU-hours in consecutive equal periods, t = 0..n-1:
 * months, or days) with both trends by least squares in y, and project it.
 *   linear       gsl_fit_linear on (t, y);
 *   exponential  gsl_fit_linear on (t, ln y) for a start, refined by
 *                gsl_multifit_nlinear (Levenberg-Marquardt) to least
 *                squares in y itself, so both models are judged alike
 *                (the start is kept where the solver does no better).
 * Pick: both models have two parameters, so the one with the higher R^2
 * (equivalently the lower SSE) fits better; the exponential must beat the
 * linear by more than 1e-9 x SST, so exact ties (a constant series) go to
 * the linear trend, the more conservative extrapolation of growth.
 * IN  n >= 3; y in [0, COST_FORECAST_MAX] (a trillion GPU-hours a period:
 *     far beyond any fleet, and small enough that sums of squares cannot
 *     overflow); ahead >= 0; usd_per_gpu_hour >= 0, the price a projected
 *     GPU-hour costs.
 * OUT *fc; proj_gpu_h[ahead] and proj_usd[ahead] for t = n .. n+ahead-1 by
 *     the picked model (a falling linear trend is clamped at 0); either
 *     array may be NULL when ahead is 0.
 * RET: 0 or FS_EDATA with err filled. */
int cost_forecast(const double *y, int n, int ahead, double usd_per_gpu_hour,
                  struct cost_forecast *fc, double *proj_gpu_h, double *proj_usd,
                  struct fs_err *err);

/* Fit f of kind k evaluated at t. */
double cost_trend_eval(const struct cost_fit *f, enum cost_trend k, double t);

#endif
