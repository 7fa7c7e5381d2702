/* test_report.c - report.md and report.html of a small run, with and
 * without gnuplot. */
#include <cjson/cJSON.h>
#include <gsl/gsl_sort.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../reports/report.h"
#include "testutil.h"

static const struct scenario_options opts = {.catalog = "models/data/gpus.json"};

static char *slurp(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = xmalloc((size_t)n + 1);
    s[fread(s, 1, (size_t)n, f)] = '\0';
    fclose(f);
    return s;
}

/* Run the golden small scenario into a fresh folder, as `fleetsim run`. */
static void run_into(char *dir)
{
    struct scenario *sc = NULL;
    struct fs_err err = {0};
    CU_ASSERT_EQUAL_FATAL(scenario_load(tu_path("tests/golden/small.json"), &opts, &sc, &err), 0);
    strcpy(dir, "/tmp/fleetsim-report-XXXXXX");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    struct outset set;
    struct outfile ts = {0}, sum = {0};
    struct report rep = {0};
    CU_ASSERT_EQUAL_FATAL(out_set_begin(&set, dir, &err), 0);
    CU_ASSERT_EQUAL_FATAL(out_set_open(&set, &ts, "timeseries.csv", &err), 0);
    CU_ASSERT_EQUAL_FATAL(out_set_open(&set, &sum, "summary.json", &err), 0);
    CU_ASSERT_EQUAL_FATAL(report_open(&rep, &set, &err), 0);
    struct run_result r;
    CU_ASSERT_EQUAL_FATAL(run_scenario(&(struct run_spec){.sc = sc, .timeseries = ts.f}, &r, &err), 0);
    summary_write_json(sum.f, &r);
    CU_ASSERT_EQUAL(out_close(&ts, &err), 0);
    CU_ASSERT_EQUAL(out_close(&sum, &err), 0);
    CU_ASSERT_EQUAL(report_write(&rep, r.s, r.m, &r.st, ts.tmp, &err), 0);
    CU_ASSERT_EQUAL(out_set_commit(&set, &err), 0);
    out_set_end(&set);
    out_discard(&ts);
    out_discard(&sum);
    report_discard(&rep);
    run_result_free(&r);
    scenario_free(sc);
}

static void rmdir_all(const char *dir)
{
    static const char *const names[] = {"timeseries.csv", "summary.json", "report.md", "report.html",
                                        ".fleetsim-set"};
    char path[512];
    for (size_t i = 0; i < FS_ARRAY_LEN(names); i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    for (int k = 0; k < REPORT_CHARTS; k++) {
        const char *ext[] = {".csv", ".gp", ".png"};
        for (int e = 0; e < 3; e++) {
            snprintf(path, sizeof path, "%s/%s%s", dir, report_chart_names[k], ext[e]);
            unlink(path);
        }
    }
    rmdir(dir);
}

/* The table row "| KEY | VALUE ..." of md: its n-th value cell. */
static double md_cell(const char *md, const char *key, int n)
{
    char pat[128];
    snprintf(pat, sizeof pat, "\n| %s |", key);
    const char *p = strstr(md, pat);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    p += strlen(pat);
    for (int i = 0; i < n; i++)
        p = strchr(p, '|') + 1;
    return strtod(p, NULL);
}

static double jnum(const cJSON *root, const char *a, const char *b)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, a);
    if (b)
        o = cJSON_GetObjectItemCaseSensitive(o, b);
    CU_ASSERT_FATAL(cJSON_IsNumber(o));
    return o->valuedouble;
}

static void near(double got, double want)
{
    CU_ASSERT(fabs(got - want) <= 5e-6 * fabs(want) + 1e-9);
    if (!(fabs(got - want) <= 5e-6 * fabs(want) + 1e-9))
        fprintf(stderr, "report %.9g != summary %.9g\n", got, want);
}

/* got, a figure the report rounds for people, within half its last shown
 * digit (tol) of want. */
static void near_shown(double got, double want, double tol)
{
    CU_ASSERT(fabs(got - want) <= tol + 1e-12);
    if (!(fabs(got - want) <= tol + 1e-12))
        fprintf(stderr, "report %.9g != summary %.9g (shown to %g)\n", got, want, tol);
}

static void test_report_gnuplot(void)
{
    char dir[64];
    unsetenv("FLEETSIM_GNUPLOT");
    run_into(dir);
    char *md = slurp(dir, "report.md"), *html = slurp(dir, "report.html");
    char *json = slurp(dir, "summary.json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(md);
    CU_ASSERT_PTR_NOT_NULL_FATAL(html);
    cJSON *sum = cJSON_Parse(json);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sum);
    const char *sections[] = {"## Fleet and workload", "## Utilization",
                              "## Queue, waits and completion times", "## Energy and power", "## Cost"};
    for (size_t i = 0; i < 5; i++)
        CU_ASSERT_PTR_NOT_NULL(strstr(md, sections[i]));
    near(md_cell(md, "Nodes", 0), jnum(sum, "fleet", "nodes"));
    near(md_cell(md, "GPUs", 0), jnum(sum, "fleet", "gpus"));
    near(md_cell(md, "Jobs completed", 0), jnum(sum, "jobs", "completed"));
    /* Utilization in % to 0.1; waits and completion times in hours to 0.01. */
    near_shown(md_cell(md, "all", 1) / 100, jnum(sum, "utilization", "allocated"), 0.0005);
    const char *q[] = {"mean", "p50", "p95", "p99", "max"};
    for (int i = 0; i < 5; i++)
        near_shown(md_cell(md, "Wait", i) * 3600, jnum(sum, "wait_s", q[i]), 18);
    near_shown(md_cell(md, "JCT", 2) * 3600, jnum(sum, "jct_s", "p95"), 18);
    near(md_cell(md, "Node DC", 0), jnum(sum, "energy_kwh", "node_dc"));
    const char *pk = strstr(md, "PSU peak load: ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(pk);
    near(strtod(pk + 15, NULL), jnum(sum, "psu", "peak_load"));
    const char *cost[] = {"### Cost per team", "### Forecast", "### Assumptions", "Billing: owned."};
    for (size_t i = 0; i < 4; i++)
        CU_ASSERT_PTR_NOT_NULL(strstr(md, cost[i]));
    CU_ASSERT_TRUE(md_cell(md, "total", 0) > 0); /* the month's bill */
    /* Self-contained: no external images, styles or scripts (the sources
     * cite web pages in text, which is fine). */
    CU_ASSERT_PTR_NULL(strstr(html, "src=\"http"));
    CU_ASSERT_PTR_NULL(strstr(html, "<link"));
    CU_ASSERT_PTR_NULL(strstr(html, "<script"));
    CU_ASSERT_PTR_NULL(strstr(html, "src=\"/"));
    /* wait.csv: one row per distinct wait, both columns increasing, up to
     * the longest wait and the fraction 1. */
    char *wait = slurp(dir, "wait.csv");
    CU_ASSERT_PTR_NOT_NULL_FATAL(wait);
    CU_ASSERT_EQUAL(strncmp(wait, "wait_s,fraction\n", 16), 0);
    double last_w = -1, last_f = 0;
    int rows = 0;
    for (const char *p = strchr(wait, '\n'); p && p[1]; p = strchr(p + 1, '\n'), rows++) {
        char *end;
        double w = strtod(p + 1, &end), f = strtod(end + 1, NULL);
        CU_ASSERT(*end == ',' && w > last_w && f > last_f);
        last_w = w;
        last_f = f;
    }
    CU_ASSERT(rows > 1 && rows < jnum(sum, "wait_s", "jobs"));  /* the small scenario has equal waits */
    CU_ASSERT_DOUBLE_EQUAL(last_w, jnum(sum, "wait_s", "max"), 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(last_f, 1, 1e-12);
    free(wait);
    const char *gnuplot = charts_gnuplot();
    if (!gnuplot) {
        printf("\n  (gnuplot not found: skipping the embedded-chart assertions)\n");
    } else {
        size_t n = 0;
        for (const char *p = html; (p = strstr(p, "src=\"data:image/png;base64,iVBOR")); p++)
            n++;
        CU_ASSERT_EQUAL(n, REPORT_CHARTS);
        for (int k = 0; k < REPORT_CHARTS; k++) {
            char link[64];
            snprintf(link, sizeof link, "](%s.png)", report_chart_names[k]);
            CU_ASSERT_PTR_NOT_NULL(strstr(md, link));
        }
        CU_ASSERT_PTR_NULL(strstr(md, "Charts not rendered"));
    }
    cJSON_Delete(sum);
    free(md);
    free(html);
    free(json);
    rmdir_all(dir);
}

static void test_report_no_gnuplot(void)
{
    char dir[64], path[600];
    setenv("FLEETSIM_GNUPLOT", "/nonexistent", 1);
    run_into(dir);
    unsetenv("FLEETSIM_GNUPLOT");
    char *md = slurp(dir, "report.md"), *html = slurp(dir, "report.html");
    CU_ASSERT_PTR_NOT_NULL_FATAL(md);
    CU_ASSERT_PTR_NOT_NULL_FATAL(html);
    CU_ASSERT_PTR_NOT_NULL(strstr(md, "## Charts not rendered"));
    CU_ASSERT_PTR_NOT_NULL(strstr(html, "Charts not rendered"));
    snprintf(path, sizeof path, "run `cd %s && gnuplot *.gp`", dir);
    CU_ASSERT_PTR_NOT_NULL(strstr(md, path));
    CU_ASSERT_PTR_NULL(strstr(html, "data:image"));
    for (int k = 0; k < REPORT_CHARTS; k++) {
        char item[64];
        snprintf(item, sizeof item, "- %s.png: ", report_chart_names[k]);
        CU_ASSERT_PTR_NOT_NULL(strstr(md, item));
        snprintf(path, sizeof path, "%s/%s.gp", dir, report_chart_names[k]);
        CU_ASSERT_EQUAL(access(path, R_OK), 0);
        snprintf(path, sizeof path, "%s/%s.csv", dir, report_chart_names[k]);
        CU_ASSERT_EQUAL(access(path, R_OK), 0);
        snprintf(path, sizeof path, "%s/%s.png", dir, report_chart_names[k]);
        CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
    }
    free(md);
    free(html);
    rmdir_all(dir);
}

/* Times are written from their integer microseconds (fs_seconds_str):
 * the bytes must be printf's "%.6f" of the seconds, which the outputs
 * wrote before, on edge values and on a spread of times up to a century. */
static void test_seconds_str(void)
{
    fs_time edge[] = {0, 1, 9, 10, 999999, 1000000, 1000001, 59999999, -1, -999999, -1000000,
                      -1234567, (fs_time)100 * 365 * 86400 * FS_USEC};
    uint64_t st = 42;
    for (size_t i = 0; i < FS_ARRAY_LEN(edge) + 100000; i++) {
        fs_time t = i < FS_ARRAY_LEN(edge) ? edge[i]
                    : (fs_time)(sched_splitmix64(&st) % ((uint64_t)1 << (i % 52 + 1)));
        char want[64], got[FS_SECONDS_LEN];
        snprintf(want, sizeof want, "%.6f", fs_to_seconds(t));
        int n = fs_seconds_str(got, t);
        CU_ASSERT_STRING_EQUAL(got, want);
        CU_ASSERT_EQUAL((size_t)n, strlen(want));
        if (strcmp(got, want) != 0) {
            printf("t = %lld: got %s, printf %s\n", (long long)t, got, want);
            break;
        }
    }
    char buf[FS_SECONDS_LEN];
    CU_ASSERT_EQUAL(fs_seconds_str(buf, INT64_MIN), 21);
    CU_ASSERT_STRING_EQUAL(buf, "-9223372036854.775808");
}

/* Integers in the timeline are written without printf (fs_int_str): the
 * bytes must be printf's "%lld", on the extremes and a spread of values. */
static void test_int_str(void)
{
    long long edge[] = {0, 1, -1, 9, 10, -10, 99, 100, LLONG_MAX, LLONG_MIN, LLONG_MIN + 1};
    uint64_t st = 7;
    for (size_t i = 0; i < FS_ARRAY_LEN(edge) + 100000; i++) {
        uint64_t u = sched_splitmix64(&st) % ((uint64_t)1 << (i % 63 + 1));
        long long v = i < FS_ARRAY_LEN(edge) ? edge[i] : i % 2 ? (long long)u : -(long long)u;
        char want[32], got[FS_INT_LEN];
        snprintf(want, sizeof want, "%lld", v);
        int n = fs_int_str(got, v);
        CU_ASSERT_EQUAL((size_t)n, strlen(want));
        if (strcmp(got, want) != 0) {
            CU_FAIL("fs_int_str differs from printf");
            printf("v = %s: got %s\n", want, got);
            break;
        }
    }
}

/* fs_sort against gsl_sort on the shapes waits take: all equal (no
 * queueing), a few distinct values, random, sorted, reversed, organ pipe. */
static void test_sort(void)
{
    size_t sizes[] = {0, 1, 2, 16, 17, 1000, 100003};
    uint64_t st = 11;
    for (size_t z = 0; z < FS_ARRAY_LEN(sizes); z++)
        for (int shape = 0; shape < 6; shape++) {
            size_t n = sizes[z];
            double *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b);
            for (size_t i = 0; i < n; i++) {
                uint64_t u = sched_splitmix64(&st);
                a[i] = shape == 0   ? 0
                       : shape == 1 ? (double)(u % 4)
                       : shape == 2 ? (double)(u % 1000000) / 7
                       : shape == 3 ? (double)i
                       : shape == 4 ? (double)(n - i)
                                    : (double)(i < n / 2 ? i : n - i);
                b[i] = a[i];
            }
            fs_sort(a, n);
            gsl_sort(b, 1, n);
            if (n && memcmp(a, b, n * sizeof *a) != 0) {
                CU_FAIL("fs_sort differs from gsl_sort");
                printf("n = %zu, shape %d\n", n, shape);
            }
            free(a);
            free(b);
        }
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"times from integer microseconds", test_seconds_str},
        {"integers without printf", test_int_str},
        {"sorting waits", test_sort},
        {"report with gnuplot (when present)", test_report_gnuplot},
        {"report without gnuplot", test_report_no_gnuplot},
        CU_TEST_INFO_NULL,
    };
    CU_SuiteInfo suites[] = {
        {"report", NULL, NULL, NULL, NULL, tests},
        CU_SUITE_INFO_NULL,
    };
    return tu_run("test_report", suites);
}
