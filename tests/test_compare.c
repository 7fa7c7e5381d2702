/* test_compare.c - a run's cost under each billing model against hand
 * computations, team shares adding up, the savings decomposition adding up
 * and putting each change on its own line, and compare.json's shape. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../reports/compare.h"
#include "../sim/faults_run.h"
#include "../study/compare_run.h"
#include "testutil.h"

/* tests/golden/small.json's fleet and workload with a cost block and a
 * horizon: 16 H100 (DGX H100 servers), 8 A100 80 GB and 16 RTX 4090. */
static const char *scenario(const char *cost, double horizon_s, const char *policy)
{
    static char text[2048];
    snprintf(text, sizeof text,
             "{\"name\": \"t\", \"seed\": 2024, \"horizon_s\": %.0f,\n"
             " \"fleet\": [{\"gpu\": \"h100-sxm\", \"nodes\": 2, \"gpus_per_node\": 8},\n"
             "           {\"gpu\": \"a100-sxm-80\", \"nodes\": 2, \"gpus_per_node\": 4},\n"
             "           {\"gpu\": \"rtx4090\", \"nodes\": 2, \"gpus_per_node\": 8}],\n"
             " \"workload\": {\"generator\": {\"jobs\": 400, \"arrivals_per_hour\": 9,\n"
             "   \"duration_median_s\": 5400, \"duration_sigma\": 1.1, \"duration_max_s\": 86400,\n"
             "   \"gpus\": {\"1\": 0.5, \"2\": 0.2, \"4\": 0.2, \"8\": 0.07, \"16\": 0.03},\n"
             "   \"kinds\": {\"train\": 0.3, \"finetune\": 0.2, \"infer\": 0.3, \"batch\": 0.2},\n"
             "   \"teams\": {\"alpha\": 0.6, \"beta\": 0.4}, \"reference_gpu\": \"a100-sxm-80\"}},\n"
             " \"scheduler\": {\"policy\": \"%s\"}, \"cost\": %s}\n",
             horizon_s, policy, cost);
    return tu_tmpfile(".json", text);
}

static void run(struct run_result *r, const char *cost, double horizon_s, const char *policy)
{
    tu_sim_run(r, scenario(cost, horizon_s, policy), NULL);
}

static bool close_rel(double a, double b, double rel)
{
    return fabs(a - b) <= rel * fmax(fabs(a), fabs(b));
}

/* Monthly capacity prices by hand from models/data/prices.json:
 *   owned  capex x (1/60 + 10 %/12) a month: H100 270,000 / 8 (DGX H100),
 *          A100 80 GB 16,250 x 1.25, RTX 4090 2,000 x 1.25 (server overhead),
 *          plus hosting: 163.44 USD per kW-month of each GPU's share of its
 *          server's nameplate input (DGX H100 10.2 kW, DGX A100 6.5 kW,
 *          8 x RTX 4090 server 4.3 kW, each over 8 GPUs)
 *   leased cloud x 730 h x (1 - 0.37)
 *   cloud  6.88, 3.43 and 0.69 USD per GPU-hour x 730 h. */
static void test_billing_by_hand(void)
{
    const double capex = 16 * 33750 * 0.025 + 8 * 20312.5 * 0.025 + 16 * 2500 * 0.025;
    const double hosting = 163.44 * (16 * 10.2 / 8 + 8 * 6.5 / 8 + 16 * 4.3 / 8);
    const double owned = capex + hosting;
    const double leased = (16 * 6.88 + 8 * 3.43 + 16 * 0.69) * 730 * 0.63;
    const double cloud = (16 * 6.88 + 8 * 3.43 + 16 * 0.69) * 730;
    struct run_result r;
    run(&r, "{\"billing\": \"owned\"}", 2678400 /* 31 days */, "fifo");
    struct fleet_cost fc;
    fleet_cost_compute(r.s, r.m, COST_OWNED, COST_ON_DEMAND, &fc);
    CU_ASSERT_TRUE_FATAL(fc.ok);
    CU_ASSERT_TRUE(close_rel(fc.capacity_month_usd, owned, 1e-12));
    /* Energy: the wall energy over 31 days scaled to 730 h, x PUE x price. */
    double kwh_month = r.m->en.wall_j / 3.6e6 * 730 / (31 * 24);
    CU_ASSERT_TRUE(close_rel(fc.energy_month_usd, kwh_month * r.sc->pue * 0.0806, 1e-12));
    CU_ASSERT_TRUE(close_rel(fc.hosting_month_usd, hosting, 1e-12));
    CU_ASSERT_TRUE(close_rel(fc.amortization_month_usd, capex * (1.0 / 60) / 0.025, 1e-12));
    CU_ASSERT_TRUE(close_rel(fc.month_usd, owned + fc.energy_month_usd, 1e-12));
    fleet_cost_compute(r.s, r.m, COST_LEASED, COST_ON_DEMAND, &fc);
    CU_ASSERT_TRUE(close_rel(fc.month_usd, leased, 1e-12));
    CU_ASSERT_EQUAL(fc.energy_month_usd, 0);
    /* 31 days = 744 h: a lease bills two whole months. */
    CU_ASSERT_TRUE(close_rel(fc.window_usd, 2 * leased, 1e-12));
    fleet_cost_compute(r.s, r.m, COST_CLOUD, COST_ON_DEMAND, &fc);
    CU_ASSERT_TRUE(close_rel(fc.month_usd, cloud, 1e-12));
    CU_ASSERT_TRUE(close_rel(fc.window_usd, cloud * 744 / 730, 1e-12));
    fleet_cost_compute(r.s, r.m, COST_CLOUD, COST_COMMIT_3Y, &fc);
    CU_ASSERT_TRUE(close_rel(fc.month_usd, cloud * 0.35, 1e-12));
    /* Idle: each type's capacity cost x (1 - its utilization). */
    double idle = 0;
    for (int t = 0; t < r.sc->cat->n; t++)
        idle += fc.gpu_month_usd[t] * (double)r.m->capacity[t] *
                (1 - metrics_utilization(r.m, t, r.s->end));
    CU_ASSERT_TRUE(close_rel(fc.idle_month_usd, idle, 1e-12));
    CU_ASSERT_TRUE(fc.idle_month_usd > 0 && fc.idle_month_usd < fc.month_usd);
    run_result_free(&r);
}

/* Team shares plus the idle line add up to the month, under both rules. */
static void test_team_shares(void)
{
    static const char *const rules[2] = {"{\"idle\": \"proportional\"}", "{\"idle\": \"separate\"}"};
    for (int k = 0; k < 2; k++) {
        struct run_result r;
        run(&r, rules[k], 172800, "best-fit");
        struct fleet_cost fc;
        fleet_cost_compute(r.s, r.m, COST_OWNED, COST_ON_DEMAND, &fc);
        struct team_cost teams[4];
        double idle_line = -1, sum = 0, used = 0, gpu_h = 0;
        struct fs_err err = {0};
        CU_ASSERT_EQUAL_FATAL(r.sc->wl.nteams, 2);
        CU_ASSERT_EQUAL_FATAL(fleet_cost_teams(r.s, r.m, &fc, teams, &idle_line, &err), 0);
        for (int i = 0; i < 2; i++) {
            sum += teams[i].share.used_usd + teams[i].share.idle_usd;
            used += teams[i].share.used_usd;
            gpu_h += teams[i].gpu_h;
            CU_ASSERT_TRUE(teams[i].share.used_usd > 0);
        }
        CU_ASSERT_TRUE(close_rel(sum + idle_line, fc.month_usd, 1e-9));
        CU_ASSERT_TRUE(close_rel(gpu_h, r.st.alloc_gpu_h, 1e-9));
        if (k == 1) { /* separate: the idle line is what use did not pay */
            CU_ASSERT_TRUE(close_rel(idle_line, fc.month_usd - used, 1e-9) && idle_line > 0);
        } else {
            CU_ASSERT_EQUAL(idle_line, 0);
        }
        run_result_free(&r);
    }
}

static double sum_lines(const double line[SAVE_COUNT])
{
    double s = 0;
    for (int k = 0; k < SAVE_COUNT; k++)
        s += line[k];
    return s;
}

/* Every pair of factor sets: the lines add up; a change in one factor
 * lands on its line alone. */
/* With failures evicting and requeueing jobs (scenarios/failover.json),
 * each team is charged per type exactly the GPU time the metrics
 * integrated for that type (alloc_us, kept independently, event by
 * event), and the attribution stays finite. */
static void test_team_time_after_evictions(void)
{
    struct run_result r;
    tu_sim_run(&r, tu_path("scenarios/failover.json"), NULL);
    CU_ASSERT_TRUE_FATAL(r.s->faults && r.s->faults->interruptions > 0);
    for (int t = 0; t < r.m->ntypes; t++) {
        double teams = 0, alloc = (double)r.m->alloc_us[t] / GPU_MILLI;
        for (size_t k = 0; k < r.sc->wl.nteams; k++)
            teams += r.m->team_us[k * (size_t)r.m->ntypes + (size_t)t];
        CU_ASSERT_TRUE(close_rel(teams, alloc, 1e-9) || (teams == 0 && alloc == 0));
    }
    struct fleet_cost fc;
    fleet_cost_compute(r.s, r.m, r.sc->cost.billing, r.sc->cost.commit, &fc);
    struct team_cost *teams = calloc(r.sc->wl.nteams + 1, sizeof *teams);
    double idle_line = 0, sum = idle_line;
    struct fs_err err = {0};
    if (fc.ok) {
        CU_ASSERT_EQUAL(fleet_cost_teams(r.s, r.m, &fc, teams, &idle_line, &err), 0);
        sum = idle_line;
        for (size_t k = 0; k < r.sc->wl.nteams; k++)
            sum += teams[k].share.used_usd + teams[k].share.idle_usd;
        CU_ASSERT_TRUE(close_rel(sum, fc.month_usd, 1e-9));
    }
    free(teams);
    run_result_free(&r);
}

static void test_savings(void)
{
    const struct cost_factors base = {.month_usd = 1000, .energy_month_usd = 100, .gpus = 10,
                                      .gpu_h_per_h = 6, .utilization = 0.6, .price = 90,
                                      .price_as_base = 90};
    double line[SAVE_COUNT];
    cost_savings(&base, &base, line);
    for (int k = 0; k < SAVE_COUNT; k++)
        CU_ASSERT_EQUAL(line[k], 0);
    /* The same GPUs billed at 60 instead of 90: billing alone. */
    struct cost_factors alt = base;
    alt.price = 60;
    alt.month_usd = 10 * 60 + 100;
    cost_savings(&base, &alt, line);
    CU_ASSERT_TRUE(close_rel(line[SAVE_BILLING], 300, 1e-12));
    CU_ASSERT_TRUE(fabs(line[SAVE_TYPES]) + fabs(line[SAVE_GPU_TIME]) + fabs(line[SAVE_UTIL]) < 1e-9);
    /* Half the GPUs kept busy twice as much: utilization alone. */
    alt = base;
    alt.gpus = 5;
    alt.utilization = 1.2; /* the identity gpus = gpu_h_per_h / utilization */
    alt.month_usd = 5 * 90 + 100;
    cost_savings(&base, &alt, line);
    CU_ASSERT_TRUE(close_rel(line[SAVE_UTIL], 450, 1e-12));
    CU_ASSERT_TRUE(fabs(line[SAVE_BILLING]) + fabs(line[SAVE_TYPES]) + fabs(line[SAVE_GPU_TIME]) < 1e-9);
    /* Random mixes: the lines add up to the difference. */
    uint64_t x = 12345;
    for (int i = 0; i < 1000; i++) {
        double r[8];
        for (int k = 0; k < 8; k++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            r[k] = 0.05 + (double)(x >> 11) / 9007199254740992.0;
        }
        struct cost_factors b = {.gpus = 100 * r[0], .utilization = r[1], .price = 1000 * r[2],
                                 .energy_month_usd = 500 * r[3]};
        b.price_as_base = b.price;
        b.gpu_h_per_h = b.gpus * b.utilization;
        b.month_usd = b.gpus * b.price + b.energy_month_usd;
        struct cost_factors a = {.gpus = 100 * r[4], .utilization = r[5], .price = 1000 * r[6],
                                 .price_as_base = 1000 * r[7], .energy_month_usd = 0};
        a.gpu_h_per_h = a.gpus * a.utilization;
        a.month_usd = a.gpus * a.price;
        cost_savings(&b, &a, line);
        /* 1e-9 of the larger bill: the LMDI identity is exact, so only
         * rounding in logs and products separates the two sides. */
        CU_ASSERT_TRUE(fabs(sum_lines(line) - (b.month_usd - a.month_usd)) <=
                       1e-9 * fmax(b.month_usd, a.month_usd));
    }
}

/* compare.json: one object per run with the documented metrics, savings
 * lines adding up to the baseline's cost minus the run's. */
static void test_compare_json(void)
{
    static const char *const cost[2] = {"{\"billing\": \"cloud\"}", "{\"billing\": \"leased\"}"};
    static const char *const policy[2] = {"fifo", "best-fit"};
    struct compare_entry e[2];
    struct run_result r[2];
    for (int i = 0; i < 2; i++) {
        run(&r[i], cost[i], 172800, policy[i]);
        compare_entry_fill(&e[i], &r[i], COST_CLOUD, COST_ON_DEMAND);
        snprintf(e[i].name, sizeof e[i].name, "%s", policy[i]);
    }
    CU_ASSERT_EQUAL(e[0].fingerprint, e[1].fingerprint);
    char dir[] = "/tmp/fleetsim-compare-XXXXXX", path[600];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    setenv("FLEETSIM_GNUPLOT", "/nonexistent/gnuplot", 1); /* no charts: fast and certain */
    struct fs_err err = {0};
    CU_ASSERT_EQUAL_FATAL(compare_write(dir, e, 2, r[0].sc, &err), 0);
    unsetenv("FLEETSIM_GNUPLOT");
    snprintf(path, sizeof path, "%s/compare.json", dir);
    /* An array at the top: json_load_file takes objects only. */
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    static char text[1 << 16];
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
    cJSON *arr = cJSON_Parse(text);
    CU_ASSERT_TRUE_FATAL(cJSON_IsArray(arr) && cJSON_GetArraySize(arr) == 2);
    static const char *const keys[] = {"utilization", "wait_p95_s", "jct_mean_s", "energy_kwh",
                                       "psu_peak_pct", "cost_month_usd", "cost_per_gpu_hour_usd"};
    double base_cost = 0;
    for (int i = 0; i < 2; i++) {
        const cJSON *o = cJSON_GetArrayItem(arr, i), *mt = cJSON_GetObjectItem(o, "metrics");
        CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(o, "name")->valuestring, policy[i]);
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
            CU_ASSERT_TRUE(cJSON_IsNumber(cJSON_GetObjectItem(mt, keys[k])));
        double month = cJSON_GetObjectItem(mt, "cost_month_usd")->valuedouble, sum = 0;
        if (i == 0)
            base_cost = month;
        const cJSON *sv = cJSON_GetObjectItem(o, "savings"), *l;
        CU_ASSERT_EQUAL(cJSON_GetArraySize(sv), SAVE_COUNT);
        cJSON_ArrayForEach(l, sv)
        {
            CU_ASSERT_TRUE(cJSON_IsString(cJSON_GetObjectItem(l, "reason")));
            sum += cJSON_GetObjectItem(l, "usd_month")->valuedouble;
        }
        CU_ASSERT_TRUE(fabs(sum - (base_cost - month)) <= 1e-9 * base_cost);
        CU_ASSERT_TRUE(fabs(cJSON_GetObjectItem(o, "savings_total_usd_month")->valuedouble - sum) <=
                       1e-9 * base_cost);
    }
    /* Cloud on demand to a lease: the billing line saves money. */
    CU_ASSERT_TRUE(e[1].savings[SAVE_BILLING] > 0);
    cJSON_Delete(arr);
    static const char *const files[] = {"compare.json", "report.md", "report.html", "cost.csv", "cost.gp",
                                        "waits.csv", "waits.gp"};
    for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[k]);
        CU_ASSERT_EQUAL(access(path, F_OK), 0);
        unlink(path);
    }
    rmdir(dir);
    for (int i = 0; i < 2; i++) {
        compare_entry_free(&e[i]);
        run_result_free(&r[i]);
    }
}

static double jnum(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItem(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* compare.json's billing contract, through compare_runs as `fleetsim
 * compare` runs it (two workers): every run priced seven ways, the fixed lines against
 * hand computations from prices.json, the elastic line from the scenario
 * run as an elastic pool, the break-evens where the lines cross, and the
 * summary ahead of the first table. */
static void test_billing_contract(void)
{
    const char *paths[2] = {scenario("{\"billing\": \"cloud\"}", 172800, "fifo"),
                            scenario("{\"billing\": \"leased\"}", 172800, "best-fit")};
    struct compare_runs cr = {.n = 2, .paths = {paths[0], paths[1]}, .jobs = 2, .quiet = true,
                              .so = {.catalog = tu_path("models/data/gpus.json")}};
    static struct compare_entry e[COMPARE_MAX];
    struct scenario *sc0 = NULL;
    struct fs_err err = {0};
    memset(e, 0, sizeof e);
    CU_ASSERT_EQUAL_FATAL(compare_runs(&cr, e, &sc0, &err), 0);
    char dir[] = "/tmp/fleetsim-compare-XXXXXX", path[600];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    setenv("FLEETSIM_GNUPLOT", "/nonexistent/gnuplot", 1);
    CU_ASSERT_EQUAL_FATAL(compare_write(dir, e, 2, sc0, &err), 0);
    unsetenv("FLEETSIM_GNUPLOT");
    snprintf(path, sizeof path, "%s/compare.json", dir);
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    static char text[1 << 17];
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
    cJSON *arr = cJSON_Parse(text);
    CU_ASSERT_TRUE_FATAL(cJSON_IsArray(arr));
    static const char *const keys[] = {"owned", "leased", "cloud_on_demand", "cloud_elastic", "cloud_spot",
                                       "cloud_commit_1y", "cloud_commit_3y"};
    /* GPUs x USD per GPU-hour: 16 H100 x 6.88 + 8 A100 80 GB x 3.43 + 16
     * RTX 4090 x 0.69 = 148.56 (prices.json); x 730 h a month; leased at
     * 37 % off (lease_discount), committed at 37 % and 65 % off. */
    const double od = 148.56 * 730;
    for (int i = 0; i < 2; i++) {
        const cJSON *o = cJSON_GetArrayItem(arr, i), *cb = cJSON_GetObjectItem(o, "cost_by_billing_usd_month");
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
            CU_ASSERT_TRUE(cJSON_IsNumber(cJSON_GetObjectItem(cb, keys[k])));
        CU_ASSERT_TRUE(close_rel(jnum(cb, "cloud_on_demand"), od, 1e-12));
        CU_ASSERT_TRUE(close_rel(jnum(cb, "leased"), od * 0.63, 1e-12));
        CU_ASSERT_TRUE(close_rel(jnum(cb, "cloud_commit_3y"), od * 0.35, 1e-12));
        /* The elastic pool holds less than the whole fleet all month. */
        CU_ASSERT_TRUE(jnum(cb, "cloud_elastic") < od);
        CU_ASSERT_TRUE(close_rel(jnum(cb, "cloud_spot") / jnum(cb, "cloud_elastic"), 0.6, 0.2));
        /* Leasing and elastic cloud cross where u0 x leased / elastic
         * says (elastic grows in proportion to the work). */
        const cJSON *be = cJSON_GetObjectItem(o, "break_even_utilization");
        double u0 = jnum(o, "fleet_utilization"), x = u0 * jnum(cb, "leased") / jnum(cb, "cloud_elastic");
        const cJSON *le = cJSON_GetObjectItem(be, "leased_vs_cloud_elastic");
        CU_ASSERT_TRUE(x <= 1 ? cJSON_IsNumber(le) && close_rel(le->valuedouble, x, 1e-9) : cJSON_IsNull(le));
        const cJSON *ol = cJSON_GetObjectItem(be, "owned_vs_leased");
        CU_ASSERT_TRUE(cJSON_IsNull(ol) || (ol->valuedouble >= 0 && ol->valuedouble <= 1));
        CU_ASSERT_TRUE(cJSON_IsObject(cJSON_GetObjectItem(o, "vs_cheapest_alternative")));
    }
    /* The elastic line is the scenario run as an elastic pool. */
    struct run_result r;
    tu_sim_run(&r, scenario("{\"billing\": \"cloud_elastic\"}", 172800, "best-fit"), NULL);
    struct fleet_cost fc;
    fleet_cost_compute(r.s, r.m, COST_CLOUD, COST_ON_DEMAND, &fc);
    CU_ASSERT_TRUE(close_rel(e[1].bill.usd_month[BILL_ELASTIC], fc.month_usd, 1e-12));
    run_result_free(&r);
    /* The headline's alternative is the cheapest line without a long
     * commitment, none of which is cheaper. */
    int j = -1;
    enum bill_line l = BILL_OWNED;
    double alt = compare_cheapest_other(e, 2, 1, false, &j, &l);
    for (int k = 0; k < 2; k++)
        for (int m = 0; m < BILL_LINES; m++)
            if (!bill_long_term[m] && !(k == 1 && m == (int)e[1].own))
                CU_ASSERT_TRUE(e[k].bill.usd_month[m] >= alt);
    CU_ASSERT_FALSE(bill_long_term[l]);
    cJSON_Delete(arr);
    /* The summary comes before the first table. */
    snprintf(path, sizeof path, "%s/report.html", dir);
    f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
    const char *sum = strstr(text, "id=\"summary\""), *table = strstr(text, "<table");
    CU_ASSERT_TRUE(sum && table && sum < table);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CU_ASSERT_EQUAL(system(cmd), 0);
    for (int i = 0; i < 2; i++)
        compare_entry_free(&e[i]);
    scenario_free(sc0);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"billing models by hand", test_billing_by_hand},
        {"team shares add up", test_team_shares},
        {"team GPU time per type after evictions", test_team_time_after_evictions},
        {"savings add up, one line per change", test_savings},
        {"compare.json", test_compare_json},
        {"compare.json: every billing, break-evens, summary first", test_billing_contract},
        CU_TEST_INFO_NULL,
    };
    CU_SuiteInfo suites[] = {{"compare", NULL, NULL, NULL, NULL, tests}, CU_SUITE_INFO_NULL};
    return tu_run("test_compare", suites);
}
