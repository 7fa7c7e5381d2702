/* test_cost.c - the cost model (models/cost.h) against hand computations,
 * and prices.json.
 *
 * Tolerances: billing arithmetic is a few multiplications of exact inputs,
 * so hand-computed dollars are compared to 1e-9 relative (a million times
 * the rounding error of a handful of double operations, far below a cent
 * on any fleet).  Attribution must add up to 1e-9 relative, the issue's
 * acceptance figure.  Forecast fits of exact series recover parameters to
 * 1e-6 relative (the solvers stop at 1e-12 steps); noisy ones to bands
 * worked out in the tests. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../models/models.h"
#include "testutil.h"

static struct model_set ms;
static int H100, A100_40, RTX;

static int setup(void)
{
    struct fs_err err;
    if (model_set_load("models/data/gpus.json", &ms, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    H100 = gpu_catalog_find(ms.cat, "h100-sxm");
    A100_40 = gpu_catalog_find(ms.cat, "a100-sxm-40");
    RTX = gpu_catalog_find(ms.cat, "rtx4090");
    return H100 < 0 || A100_40 < 0 || RTX < 0 || !ms.prices;
}

static int teardown(void)
{
    model_set_free(&ms);
    return 0;
}

static void near(double got, double want, double rel)
{
    if (!(fabs(got - want) <= rel * fabs(want)))
        printf("\n    got %.12g, want %.12g", got, want);
    CU_ASSERT(fabs(got - want) <= rel * fabs(want));
}

#define DAY ((fs_time)86400 * FS_USEC)
#define HOUR ((fs_time)3600 * FS_USEC)

/* A month is 730 h = 30 d 10 h.  1 day -> 1 month (the minimum term); 30 d
 * -> 1; 30 d 10 h exactly -> 1; 1 us more -> 2; 31 d -> 2; 61 d (1464 h,
 * over 2 x 730 = 1460) -> 3; a year (8760 h = 12 x 730) -> exactly 12. */
static void test_lease_months(void)
{
    CU_ASSERT_EQUAL(COST_MONTH_USEC, 730 * HOUR);
    CU_ASSERT_EQUAL(cost_lease_months(0), 1);
    CU_ASSERT_EQUAL(cost_lease_months(1), 1);
    CU_ASSERT_EQUAL(cost_lease_months(DAY), 1);
    CU_ASSERT_EQUAL(cost_lease_months(30 * DAY), 1);
    CU_ASSERT_EQUAL(cost_lease_months(30 * DAY + 10 * HOUR), 1);
    CU_ASSERT_EQUAL(cost_lease_months(30 * DAY + 10 * HOUR + 1), 2);
    CU_ASSERT_EQUAL(cost_lease_months(31 * DAY), 2);
    CU_ASSERT_EQUAL(cost_lease_months(61 * DAY), 3);
    CU_ASSERT_EQUAL(cost_lease_months(365 * DAY), 12);
    CU_ASSERT_EQUAL(cost_lease_months(365 * DAY + 1), 13);
    /* No overflow near the top of the time range. */
    CU_ASSERT_EQUAL(cost_lease_months(FS_TIME_MAX), FS_TIME_MAX / COST_MONTH_USEC + 1);
}

/* 16 GPUs at $3,000/GPU-month: 1 day bills $48,000, 31 days $96,000. */
static void test_leased_cost(void)
{
    near(cost_leased(3000, 16, DAY), 48000, 1e-12);
    near(cost_leased(3000, 16, 31 * DAY), 96000, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(cost_leased(3000, 0, DAY), 0, 0);
    /* The shipped H100 lease is derived: $6.88 x 730 h x (1 - 0.37)
     * = $3,164.112 per GPU-month. */
    const struct cost_gpu_price *g = cost_gpu_price(ms.prices, H100);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_TRUE(g->lease_derived);
    near(g->lease_month.value, 3164.112, 1e-12);
    CU_ASSERT_STRING_EQUAL(ms.prices->sources[g->lease_month.source].id, "ASSUMPTION_LEASE");
    CU_ASSERT_TRUE(ms.prices->sources[g->lease_month.source].assumption);
}

/* Hand computation, one DGX H100 for one month: capex $270,000 over 60
 * months = $4,500; maintenance 10 %/year = $27,000/year = $2,250/month;
 * energy: 10.2 kW for 730 h = 7,446 kWh, x PUE 1.56 = 11,615.76 kWh at
 * the meter, x $0.0806 = $936.230256.  Total $7,686.230256. */
static void test_owned_month(void)
{
    const struct node_template *nt = node_template_find(ms.nodes, "dgx-h100");
    CU_ASSERT_PTR_NOT_NULL_FATAL(nt);
    double capex = cost_node_capex(ms.prices, ms.nodes, nt);
    near(capex, 270000, 1e-12);
    struct cost_owned_terms t = cost_owned_terms(ms.prices, 1.56);
    struct cost_owned c = cost_owned(capex, COST_MONTH_USEC, 10.2 * 730, &t);
    near(c.amortization_usd, 4500, 1e-9);
    near(c.maintenance_usd, 2250, 1e-9);
    near(c.energy_usd, 7446 * 1.56 * 0.0806, 1e-9);
    near(c.energy_usd, 936.230256, 1e-9);
    near(c.total_usd, 7686.230256, 1e-9);
    /* A week is 168/730 of a month; energy comes from the kWh given. */
    struct cost_owned w = cost_owned(capex, 7 * DAY, 0, &t);
    near(w.amortization_usd, 4500 * 168.0 / 730, 1e-9);
    near(w.maintenance_usd, 2250 * 168.0 / 730, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(w.energy_usd, 0, 0);
}

/* Hosting, by hand: the DGX H100's nameplate input is 10.2 kW; colocation
 * at $163.44 per kW-month is $1,667.088 a month, $208.386 per GPU.  One
 * owned H100 of it per month: ($4,500 + $2,250) / 8 + $208.386 = $1,052.136
 * (energy excluded: it is billed by use). */
static void test_owned_hosting(void)
{
    const struct node_template *nt = node_template_find(ms.nodes, "dgx-h100");
    CU_ASSERT_PTR_NOT_NULL_FATAL(nt);
    near(ms.prices->colocation_kw_month.value, 163.44, 1e-12);
    near(cost_hosting_month(ms.prices, nt), 1667.088, 1e-9);
    near(cost_gpu_month(ms.prices, ms.nodes, nt, nt->gpu_type, COST_OWNED, COST_ON_DEMAND), 1052.136, 1e-9);
    CU_ASSERT_STRING_EQUAL(ms.prices->sources[ms.prices->colocation_kw_month.source].id, "ASSUMPTION_COLO_KW");
}

/* Templates without a server price: GPUs x price x 1.25.  The 8 x RTX 4090
 * server: 8 x $2,000 x 1.25 = $20,000.  The DGX A100 320 GB has its own
 * launch price, $199,000. */
static void test_node_capex(void)
{
    const struct node_template *rtx = node_template_find(ms.nodes, "pcie8-rtx4090");
    const struct node_template *dgx = node_template_find(ms.nodes, "dgx-a100-40");
    const struct node_template *l40s = node_template_find(ms.nodes, "pcie8-l40s");
    CU_ASSERT_PTR_NOT_NULL_FATAL(rtx);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dgx);
    CU_ASSERT_PTR_NOT_NULL_FATAL(l40s);
    near(cost_node_capex(ms.prices, ms.nodes, rtx), 20000, 1e-12);
    near(cost_node_capex(ms.prices, ms.nodes, dgx), 199000, 1e-12);
    /* The L40S has no price in prices.json. */
    CU_ASSERT_EQUAL(cost_node_capex(ms.prices, ms.nodes, l40s), -1);
}

/* 1,000 H100 GPU-hours on AWS p5 at $6.88: on demand $6,880; 1-year
 * commitment 37 % off = $4,334.40; 3-year 65 % off = $2,408. */
static void test_cloud(void)
{
    const struct cost_gpu_price *g = cost_gpu_price(ms.prices, H100);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_PTR_NOT_NULL(strstr(g->provider, "AWS"));
    double r = g->cloud_hour.value;
    near(cost_cloud(r, cost_commit_discount(ms.prices, COST_ON_DEMAND), 1000), 6880, 1e-12);
    near(cost_cloud(r, cost_commit_discount(ms.prices, COST_COMMIT_1Y), 1000), 4334.4, 1e-12);
    near(cost_cloud(r, cost_commit_discount(ms.prices, COST_COMMIT_3Y), 1000), 2408, 1e-12);
    /* Billing is by the second: 30 minutes cost half an hour. */
    near(cost_cloud(r, 0, 0.5), 3.44, 1e-12);
}

/* Every priced GPU of the issue has all three prices, each with a dated
 * source, and every number in the file points at a source. */
static void test_shipped_prices(void)
{
    static const char *const need[] = {"h100-sxm", "h200-sxm", "a100-sxm-80",
                                       "a100-sxm-40", "a100-pcie-80", "rtx4090"};
    const struct cost_prices *p = ms.prices;
    for (size_t i = 0; i < FS_ARRAY_LEN(need); i++) {
        const struct cost_gpu_price *g = cost_gpu_price(p, gpu_catalog_find(ms.cat, need[i]));
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        CU_ASSERT(g->purchase.source >= 0 && g->cloud_hour.source >= 0 && g->lease_month.source >= 0);
        CU_ASSERT(g->provider[0] != '\0');
        CU_ASSERT(g->purchase.value > 0 && g->cloud_hour.value > 0 && g->lease_month.value > 0);
    }
    CU_ASSERT_EQUAL(p->amortization_months.value, 60);
    CU_ASSERT_EQUAL(p->usd_per_kwh.value, 0.0806);
    CU_ASSERT_STRING_EQUAL(p->sources[p->usd_per_kwh.source].date, "2023");
    CU_ASSERT_TRUE(p->sources[p->commit_1y.source].assumption);
    CU_ASSERT_TRUE(p->sources[p->maintenance_pct_year.source].assumption);
    for (int i = 0; i < p->nsources; i++)
        CU_ASSERT(strlen(p->sources[i].date) >= 4);
}

/* Shares plus idle add up to the total in both modes.  Hand check: 1,000
 * GPU-hours of capacity for $10,000 ($10/GPU-h), teams using 500, 200, 0
 * and 100 h: used $5,000, $2,000, $0, $1,000; idle $2,000, which shared
 * in proportion to use (500:200:0:100 of 800) is $1,250, $500, $0, $250. */
static void test_attribution(void)
{
    const double used[] = {500, 200, 0, 100};
    struct cost_share s[4];
    double idle = -1;
    CU_ASSERT_EQUAL_FATAL(cost_attribute(used, 4, 1000, 10000, COST_IDLE_SEPARATE, s, &idle, NULL), 0);
    near(s[0].used_usd, 5000, 1e-12);
    near(s[3].used_usd, 1000, 1e-12);
    CU_ASSERT_EQUAL(s[2].used_usd, 0);
    CU_ASSERT_EQUAL(s[0].idle_usd, 0);
    near(idle, 2000, 1e-12);
    CU_ASSERT_EQUAL_FATAL(cost_attribute(used, 4, 1000, 10000, COST_IDLE_PROPORTIONAL, s, &idle, NULL), 0);
    near(s[0].idle_usd, 1250, 1e-12);
    near(s[1].idle_usd, 500, 1e-12);
    CU_ASSERT_EQUAL(s[2].idle_usd, 0);
    near(s[3].idle_usd, 250, 1e-12);
    CU_ASSERT(fabs(idle) <= 1e-9 * 10000);
    /* Awkward numbers in dollar-seconds, many parties: the sum holds. */
    enum { N = 57 };
    double u[N], cap = 0;
    struct cost_share sh[N];
    for (int i = 0; i < N; i++)
        cap += u[i] = fmod(i * 7919.123456789, 1013.0) * (i % 5 ? 1 : 1e-7);
    cap *= 1.3371;
    for (int rule = COST_IDLE_PROPORTIONAL; rule <= COST_IDLE_SEPARATE; rule++) {
        double total = 987654.3210987, sum;
        CU_ASSERT_EQUAL_FATAL(cost_attribute(u, N, cap, total, (enum cost_idle_rule)rule, sh, &idle, NULL), 0);
        sum = idle;
        for (int i = 0; i < N; i++)
            sum += sh[i].used_usd + sh[i].idle_usd;
        CU_ASSERT(fabs(sum - total) <= 1e-9 * total);
        CU_ASSERT(rule == COST_IDLE_SEPARATE ? idle > 0.2 * total : fabs(idle) < 1e-9 * total);
    }
    /* Nobody used anything: all of it is idle, on the idle line. */
    const double none[] = {0, 0};
    CU_ASSERT_EQUAL(cost_attribute(none, 2, 100, 500, COST_IDLE_PROPORTIONAL, s, &idle, NULL), 0);
    near(idle, 500, 1e-12);
}

static void test_attribution_bad(void)
{
    const double used[] = {60, 50}, neg[] = {10, -1};
    struct cost_share s[2];
    struct fs_err err = {0};
    double idle = 0;
    CU_ASSERT_EQUAL(cost_attribute(used, 2, 100, 10, COST_IDLE_SEPARATE, s, &idle, &err), FS_EDATA);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "110 used of a capacity of 100"));
    CU_ASSERT_EQUAL(cost_attribute(neg, 2, 100, 10, COST_IDLE_SEPARATE, s, &idle, &err), FS_EDATA);
    CU_ASSERT_EQUAL(cost_attribute(used, 2, 0, 10, COST_IDLE_SEPARATE, s, &idle, &err), FS_EDATA);
}

/* y = 120 + 35 t exactly: the linear fit recovers it with R^2 = 1 and is
 * picked; the exponential fits worse. */
static void test_forecast_linear(void)
{
    double y[12], proj[3], usd[3];
    struct cost_forecast fc;
    for (int i = 0; i < 12; i++)
        y[i] = 120 + 35 * i;
    CU_ASSERT_EQUAL_FATAL(cost_forecast(y, 12, 3, 2.5, &fc, proj, usd, NULL), 0);
    const struct cost_fit *l = &fc.fit[COST_TREND_LINEAR], *e = &fc.fit[COST_TREND_EXP];
    CU_ASSERT_EQUAL(fc.pick, COST_TREND_LINEAR);
    near(l->a, 120, 1e-9);
    near(l->b, 35, 1e-9);
    CU_ASSERT(l->r2 > 1 - 1e-12 && l->rmse < 1e-9);
    CU_ASSERT(e->ok && e->r2 < l->r2 && e->r2 > 0.8);
    /* t = 12, 13, 14: 540, 575, 610 GPU-hours at $2.50. */
    near(proj[0], 540, 1e-9);
    near(proj[2], 610, 1e-9);
    near(usd[1], 575 * 2.5, 1e-9);
}

/* y = 400 x 1.08^t exactly: the exponential is recovered (b = ln 1.08)
 * and picked. */
static void test_forecast_exponential(void)
{
    double y[24], proj[6], usd[6];
    struct cost_forecast fc;
    for (int i = 0; i < 24; i++)
        y[i] = 400 * pow(1.08, i);
    CU_ASSERT_EQUAL_FATAL(cost_forecast(y, 24, 6, 1, &fc, proj, usd, NULL), 0);
    const struct cost_fit *e = &fc.fit[COST_TREND_EXP];
    CU_ASSERT_EQUAL(fc.pick, COST_TREND_EXP);
    near(e->a, 400, 1e-6);
    near(e->b, log(1.08), 1e-6);
    CU_ASSERT(e->r2 > 1 - 1e-9);
    CU_ASSERT(fc.fit[COST_TREND_LINEAR].r2 < e->r2);
    near(proj[5], 400 * pow(1.08, 29), 1e-6);
}

static double sse_exp(const double *y, int n, double a, double b)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += (a * exp(b * i) - y[i]) * (a * exp(b * i) - y[i]);
    return s;
}

/* Noisy series: a deterministic +-5 % zig-zag on top of each trend.  The
 * right model still wins, and the parameters land within bands: for the
 * exponential, alternating +-5 % noise shifts the fitted level by at most
 * about 5 % and the rate by well under 0.01 per period over 24 points. */
static void test_forecast_noisy(void)
{
    double y[24];
    struct cost_forecast fc;
    for (int i = 0; i < 24; i++)
        y[i] = 400 * pow(1.08, i) * (i % 2 ? 0.95 : 1.05);
    CU_ASSERT_EQUAL_FATAL(cost_forecast(y, 24, 0, 1, &fc, NULL, NULL, NULL), 0);
    CU_ASSERT_EQUAL(fc.pick, COST_TREND_EXP);
    const struct cost_fit *e = &fc.fit[COST_TREND_EXP];
    near(e->a, 400, 0.05);
    CU_ASSERT(fabs(e->b - log(1.08)) < 0.01);
    /* Least squares in y, not in ln y: any nearby (a, b) has a larger SSE
     * (the log-linear start alone fails this). */
    double best = sse_exp(y, 24, e->a, e->b);
    CU_ASSERT(fabs(sqrt(best / 24) - e->rmse) <= 1e-9 * e->rmse);
    for (int da = -1; da <= 1; da++)
        for (int db = -1; db <= 1; db++)
            if (da || db)
                CU_ASSERT(sse_exp(y, 24, e->a * (1 + 1e-4 * da), e->b + 1e-5 * db) > best);
    for (int i = 0; i < 24; i++)
        y[i] = (1000 + 50 * i) * (i % 2 ? 0.95 : 1.05);
    CU_ASSERT_EQUAL_FATAL(cost_forecast(y, 24, 0, 1, &fc, NULL, NULL, NULL), 0);
    CU_ASSERT_EQUAL(fc.pick, COST_TREND_LINEAR);
    near(fc.fit[COST_TREND_LINEAR].b, 50, 0.1);
}

/* Falling demand projects to 0, not below; zeros rule the exponential out;
 * a constant series is a tie, which goes to linear; bad input is refused. */
static void test_forecast_edges(void)
{
    double y[4] = {300, 200, 100, 0}, proj[2], usd[2];
    struct cost_forecast fc;
    struct fs_err err = {0};
    CU_ASSERT_EQUAL_FATAL(cost_forecast(y, 4, 2, 3, &fc, proj, usd, NULL), 0);
    CU_ASSERT_FALSE(fc.fit[COST_TREND_EXP].ok);
    CU_ASSERT_EQUAL(fc.pick, COST_TREND_LINEAR);
    CU_ASSERT_EQUAL(proj[0], 0);
    CU_ASSERT_EQUAL(usd[1], 0);
    double flat[5] = {7, 7, 7, 7, 7};
    CU_ASSERT_EQUAL_FATAL(cost_forecast(flat, 5, 0, 1, &fc, NULL, NULL, NULL), 0);
    CU_ASSERT_EQUAL(fc.pick, COST_TREND_LINEAR);
    CU_ASSERT_EQUAL(fc.fit[COST_TREND_LINEAR].r2, 1);
    /* A jump the log-linear start fits badly (R^2 < 0); the solver stops
     * short of its tolerances, and where it stopped is still kept. */
    double jump[3] = {1, 2, 1e6};
    CU_ASSERT_EQUAL_FATAL(cost_forecast(jump, 3, 0, 1, &fc, NULL, NULL, NULL), 0);
    CU_ASSERT_EQUAL(fc.pick, COST_TREND_EXP);
    CU_ASSERT(fc.fit[COST_TREND_EXP].r2 > 0.999);
    CU_ASSERT_EQUAL(cost_forecast(y, 2, 0, 1, &fc, NULL, NULL, &err), FS_EDATA);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "at least 3"));
    y[1] = -5;
    CU_ASSERT_EQUAL(cost_forecast(y, 4, 0, 1, &fc, NULL, NULL, &err), FS_EDATA);
    y[1] = 1e13;
    CU_ASSERT_EQUAL(cost_forecast(y, 4, 0, 1, &fc, NULL, NULL, &err), FS_EDATA);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "demand point 1 is 1e+13"));
}

static void expect_bad(const char *text, const char *sub)
{
    struct cost_prices *bad = NULL;
    struct fs_err err = {0};
    const char *file = tu_tmpfile(".json", text);
    int rc = cost_prices_load(file, ms.cat, ms.nodes, &bad, &err);
    CU_ASSERT_EQUAL(rc, FS_EDATA);
    CU_ASSERT_PTR_NULL(bad);
    if (!strstr(err.msg, sub) || strncmp(err.msg, file, strlen(file)) != 0)
        printf("\n    got:  %s\n    want: %s: ...%s", err.msg, file, sub);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, sub));
    CU_ASSERT_EQUAL(strncmp(err.msg, file, strlen(file)), 0);
}

#define V(x) "{\"value\": " #x ", \"source\": \"S\"}"
#define SRC "\"sources\": {\"S\": {\"text\": \"x\", \"date\": \"2026-11-09\"}}, "
#define TERMS "\"amortization_months\": " V(60) ", \"maintenance_pct_per_year\": " V(10) \
              ", \"electricity_usd_per_kwh\": " V(0.08) ", \"commit_discount_1y\": " V(0.37) \
              ", \"commit_discount_3y\": " V(0.65) ", \"lease_discount\": " V(0.37) \
              ", \"server_overhead\": " V(0.25) ", \"colocation_usd_per_kw_month\": " V(163.44) \
              ", \"spot_discount\": " V(0.4) \
              ", \"spot_interrupted_share_month\": " V(0.2) ", \"elastic_provision_s\": " V(300) \
              ", \"elastic_billing_increment_s\": " V(1) ", \"elastic_billing_minimum_s\": " V(60) \
              ", \"elastic_scale_down_s\": " V(600) ", "
#define OK_GPU "{\"gpu\": \"h100-sxm\", \"purchase_usd\": " V(27500) "}"

static void test_bad_files(void)
{
    /* A minimal good file loads: the macros below are right. */
    struct cost_prices *good = NULL;
    struct fs_err err = {0};
    CU_ASSERT_EQUAL(cost_prices_load(tu_tmpfile(".json", "{" SRC TERMS "\"gpus\": [" OK_GPU "], \"servers\": []}"),
                                     ms.cat, ms.nodes, &good, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(good);
    cost_prices_free(good);

    expect_bad("{" SRC TERMS "\"gpus\": [{\"gpu\": \"h100-sxm\"}], \"servers\": []}",
               ": $.gpus[0]: missing key \"purchase_usd\"");
    expect_bad("{" SRC TERMS "\"gpus\": [{\"gpu\": \"h100-sxm\", \"purchase_usd\": {\"value\": 1, \"source\": \"T\"}}], "
               "\"servers\": []}", ": $.gpus[0].purchase_usd.source: unknown source \"T\"");
    expect_bad("{" SRC TERMS "\"gpus\": [{\"gpu\": \"h100-sxm\", \"purchase_usd\": " V(-27500) "}], \"servers\": []}",
               ": $.gpus[0].purchase_usd.value: -27500 is out of range");
    expect_bad("{" SRC TERMS "\"gpus\": [" OK_GPU "], \"servers\": [{\"node\": \"dgx-h100\", \"purchase_usd\": "
               V(-1) "}]}", ": $.servers[0].purchase_usd.value: -1 is out of range");
    expect_bad("{" SRC "\"amortization_months\": " V(60) ", \"gpus\": [], \"servers\": []}",
               ": $: missing key \"maintenance_pct_per_year\"");
    expect_bad("{" SRC TERMS "\"gpus\": [{\"gpu\": \"h100\", \"purchase_usd\": " V(1) "}], \"servers\": []}",
               ": $.gpus[0].gpu: unknown GPU type \"h100\"; did you mean");
    expect_bad("{" SRC TERMS "\"gpus\": [" OK_GPU ", " OK_GPU "], \"servers\": []}",
               ": $.gpus[1].gpu: \"h100-sxm\" is priced twice");
    expect_bad("{" SRC TERMS "\"gpus\": [], \"servers\": [{\"node\": \"dgx-h10\", \"purchase_usd\": " V(1) "}]}",
               ": $.servers[0].node: unknown node template \"dgx-h10\"; did you mean \"dgx-h100\"?");
    expect_bad("{" SRC TERMS "\"gpus\": [{\"gpu\": \"h100-sxm\", \"purchase_usd\": " V(1) ", "
               "\"cloud_usd_per_gpu_hour\": " V(6.88) "}], \"servers\": []}",
               ": $.gpus[0]: give \"cloud_provider\" exactly when");
    expect_bad("{\"sources\": {\"S\": {\"text\": \"x\", \"date\": \"Nov 2026\"}}, " TERMS "\"gpus\": [], \"servers\": []}",
               ": $.sources.S.date: \"Nov 2026\" is not YYYY");
    expect_bad("{\"sources\": {\"S\": {\"text\": \"x\", \"date\": \"2026\"}, \"S\": {\"text\": \"y\", \"date\": \"2026\"}}, "
               TERMS "\"gpus\": [], \"servers\": []}", ": $.sources: duplicate key \"S\"");
    expect_bad("{\"sources\": {\"S\": {\"text\": \"x\"}}, " TERMS "\"gpus\": [], \"servers\": []}",
               ": $.sources.S: missing key \"date\"");
    expect_bad("{\"sources\": {\"S\": {\"text\": \"x\", \"date\": \"2026\"}, \"ASSUMPTION_X\": {\"text\": \"a guess\", "
               "\"date\": \"2026\"}}, " TERMS "\"gpus\": [], \"servers\": []}",
               ": $.sources.ASSUMPTION_X: an ID starts \"ASSUMPTION\" exactly when");
    expect_bad("{" SRC TERMS "\"gpus\": [], \"servers\": [], \"currency\": \"EUR\"}", ": $: unknown key \"currency\"");
    expect_bad("{" SRC "\"amortization_months\": " V(60) ", \"maintenance_pct_per_year\": " V(10)
               ", \"electricity_usd_per_kwh\": " V(0.08) ", \"commit_discount_1y\": " V(0.65)
               ", \"commit_discount_3y\": " V(0.37) ", \"lease_discount\": " V(0.37)
               ", \"server_overhead\": " V(0.25) ", \"colocation_usd_per_kw_month\": " V(163.44)
               ", \"gpus\": [], \"servers\": []}",
               ": $.commit_discount_3y: 0.37 is less than the 1-year discount 0.65");
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"lease months: rounded up, one-month minimum", test_lease_months},
        {"leased cost and the derived H100 lease", test_leased_cost},
        {"owned month: amortization, maintenance, energy x PUE", test_owned_month},
        {"owned hosting: colocation per kW of nameplate input", test_owned_hosting},
        {"server capex: sourced or GPUs x (1 + overhead)", test_node_capex},
        {"cloud on demand and committed", test_cloud},
        {"shipped prices.json: every price sourced and dated", test_shipped_prices},
        {"attribution adds up (both idle rules)", test_attribution},
        {"attribution rejects bad input", test_attribution_bad},
        {"forecast: linear series", test_forecast_linear},
        {"forecast: exponential series", test_forecast_exponential},
        {"forecast: noisy series", test_forecast_noisy},
        {"forecast: edges", test_forecast_edges},
        {"bad prices files", test_bad_files},
        CU_TEST_INFO_NULL,
    };
    CU_SuiteInfo suites[] = {
        {"cost", setup, teardown, NULL, NULL, tests},
        CU_SUITE_INFO_NULL,
    };
    return tu_run("test_cost", suites);
}
