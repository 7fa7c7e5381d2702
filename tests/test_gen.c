/* test_gen.c - the synthetic workload generator: determinism, separate
 * random streams, and the laws it draws from. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "../base/rng.h"
#include "testutil.h"
#include "wl_util.h"

/* ---- the generator ------------------------------------------------------ */

static const struct gen_spec base_spec = {
    .jobs = 20000,
    .arrivals_per_hour = 120, /* a mean gap of 30 s */
    .duration_median_s = 3600,
    .duration_sigma = 1.0,
    .duration_max_s = 3600 * 100, /* above the 99.999th percentile: no effect */
    .ncounts = 4,
    .gpu_counts = {1, 2, 4, 8},
    .gpu_weights = {4, 3, 2, 1},
    .kind_weights = {0.5, 0.2, 0.2, 0.1},
    .nteams = 3,
    .team_names = {"alpha", "beta", "gamma"},
    .team_weights = {6, 3, 1},
    .ref_type = 1,
};

static void test_gen_deterministic(void)
{
    struct workload a, b, c;
    workload_init(&a);
    workload_init(&b);
    workload_init(&c);
    struct gen_spec s = base_spec;
    s.jobs = 1000;
    workload_generate(&s, 42, &a);
    workload_generate(&s, 42, &b);
    workload_generate(&s, 43, &c);
    CU_ASSERT_EQUAL(a.n, 1000);
    CU_ASSERT_EQUAL(count_diffs(&a, &b), 0);
    CU_ASSERT(count_diffs(&a, &c) > 990);
    /* Separate streams: a different size mix moves no arrival, kind or team. */
    workload_free(&b);
    s.gpu_weights[0] = 0;
    workload_generate(&s, 42, &b);
    size_t moved = 0;
    for (size_t i = 0; i < a.n; i++)
        moved += a.jobs[i].submit != b.jobs[i].submit || a.jobs[i].kind != b.jobs[i].kind ||
                 a.jobs[i].team != b.jobs[i].team ||
                 fabs(a.jobs[i].work / a.jobs[i].gpus - b.jobs[i].work / b.jobs[i].gpus) >
                     1e-9 * a.jobs[i].work;
    CU_ASSERT_EQUAL(moved, 0);
    /* Arrivals and durations come from their own streams, draw for draw. */
    gsl_rng *ra = rng_stream(42, RNG_ARRIVALS), *rd = rng_stream(42, RNG_DURATIONS);
    fs_time t = 0;
    moved = 0;
    for (size_t i = 0; i < a.n; i++) {
        t += fs_from_seconds(gsl_ran_exponential(ra, 30.0));
        double d = fmax(1, fmin(gsl_ran_lognormal(rd, log(3600), 1.0), 3600 * 100));
        moved += a.jobs[i].submit != t || a.jobs[i].work != a.jobs[i].gpus * d;
    }
    CU_ASSERT_EQUAL(moved, 0);
    gsl_rng_free(ra);
    gsl_rng_free(rd);
    workload_free(&a);
    workload_free(&b);
    workload_free(&c);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Per-GPU durations of w, sorted. */
static double *durations(const struct workload *w)
{
    double *d = malloc(w->n * sizeof *d);
    for (size_t i = 0; i < w->n; i++)
        d[i] = w->jobs[i].work / w->jobs[i].gpus;
    qsort(d, w->n, sizeof *d, cmp_double);
    return d;
}

/* Tolerances, for n = 20000 draws (a fixed seed makes the run repeatable; the
 * bounds are chosen so that a correct generator passes for ~any seed while a
 * wrong parameter, e.g. a rate per second taken for one per hour, fails):
 * - mean gap: exponential, sd = mean, so the standard error is
 *   mean / sqrt(n) = 0.71 %; 3 % is 4.2 standard errors (p ~ 2e-5).
 * - median of a lognormal: standard error m * sigma * sqrt(pi / 2) / sqrt(n)
 *   = 0.89 % at sigma 1; 5 % is 5.6 standard errors.
 * - a category frequency: standard error sqrt(p (1 - p) / n) <= 0.0036;
 *   0.02 is at least 5.6 standard errors. */
static void test_gen_distributions(void)
{
    struct workload w;
    workload_init(&w);
    workload_generate(&base_spec, 2024, &w);
    CU_ASSERT_EQUAL_FATAL(w.n, 20000);
    double n = (double)w.n;
    double mean_gap = fs_to_seconds(w.jobs[w.n - 1].submit) / n; /* the first gap starts at 0 */
    CU_ASSERT(fabs(mean_gap / 30.0 - 1) < 0.03);
    double *d = durations(&w);
    double median = (d[w.n / 2 - 1] + d[w.n / 2]) / 2;
    CU_ASSERT(fabs(median / 3600.0 - 1) < 0.05);
    free(d);

    double counts[9] = {0}, kinds[JOB_KIND_COUNT] = {0}, teams[3] = {0};
    size_t bad = 0;
    for (size_t i = 0; i < w.n; i++) {
        const struct job *j = &w.jobs[i];
        bad += j->id != (int64_t)i + 1 || (i && j->submit < w.jobs[i - 1].submit) ||
               j->ref_type != 1 || j->allowed != 0 || j->gpu_mem_gb != 0 ||
               j->state != JOB_FUTURE || j->gpus < 1 || j->gpus > 8 || j->team > 2;
        if (j->gpus >= 1 && j->gpus <= 8 && j->team <= 2) {
            counts[j->gpus]++;
            kinds[j->kind]++;
            teams[j->team]++;
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(w.nteams == 3 && strcmp(w.teams[2], "gamma") == 0);
    static const double pc[4] = {0.4, 0.3, 0.2, 0.1}, pt[3] = {0.6, 0.3, 0.1};
    for (int k = 0; k < 4; k++) {
        CU_ASSERT(fabs(counts[1 << k] / n - pc[k]) < 0.02);
        CU_ASSERT(fabs(kinds[k] / n - base_spec.kind_weights[k]) < 0.02);
    }
    for (int k = 0; k < 3; k++)
        CU_ASSERT(fabs(teams[k] / n - pt[k]) < 0.02);
    workload_free(&w);
}

/* The cap and the 1 s floor: with the cap at the median about half the draws
 * sit on it; with a median of 0.5 s and sigma 2, P(draw < 1 s) =
 * Phi(ln 2 / 2) = 0.6356 of them sit on the floor.  Standard errors <= 0.0036
 * (see above). */
static void test_gen_bounds(void)
{
    struct workload w;
    workload_init(&w);
    struct gen_spec s = base_spec;
    s.duration_max_s = 3600;
    workload_generate(&s, 5, &w);
    double *d = durations(&w);
    size_t at_cap = 0;
    for (size_t i = 0; i < w.n; i++)
        at_cap += fabs(d[i] - 3600) < 1e-9;
    CU_ASSERT(d[w.n - 1] <= 3600 * (1 + 1e-12));
    CU_ASSERT(fabs((double)at_cap / (double)w.n - 0.5) < 0.02);
    free(d);
    workload_free(&w);

    s = base_spec;
    s.duration_median_s = 0.5;
    s.duration_sigma = 2;
    workload_generate(&s, 5, &w);
    d = durations(&w);
    size_t at_floor = 0;
    for (size_t i = 0; i < w.n; i++)
        at_floor += fabs(d[i] - 1) < 1e-12;
    CU_ASSERT(d[0] >= 1 - 1e-12);
    CU_ASSERT(fabs((double)at_floor / (double)w.n - 0.6356) < 0.02);
    free(d);
    workload_free(&w);

    /* The spread: ln(q75 / q25) = 2 * 0.67449 sigma for a lognormal.  By the
     * asymptotic (co)variance of sample quantiles this estimate of sigma has
     * a standard error of 0.83 % at n = 20000, so 5 % is 6 of them (and
     * sigma 0.5 tells sigma from sigma^2 or 1 / sigma). */
    s = base_spec;
    s.duration_sigma = 0.5;
    workload_generate(&s, 5, &w);
    d = durations(&w);
    double sigma = log(d[3 * w.n / 4] / d[w.n / 4]) / (2 * 0.67449);
    CU_ASSERT(fabs(sigma / 0.5 - 1) < 0.05);
    free(d);
    workload_free(&w);
}

/* Job classes: each job carries its class's model, a GPU count of its
 * class, and the memory the rule gives for them.  The 70B full-training
 * figure is worked by hand from the rule of models/memory.h: 16 B per
 * parameter over 16 GPUs (weights 2 + gradients 2 + Adam state 12) =
 * 70.6 GB, activations 4096 x 8192 x (2 x 80 + 34) B = 6.5103 GB, and
 * 2 GB overhead: 79.1103 GB, under an H100's 80 (so the class's layers
 * and hidden are used: the size-only estimate gives a different figure).
 * The fp8 8B inference replica on one GPU: 8.03 GB of weights x 1.4 (the
 * KV allowance) + 2 = 13.242 GB. */
static void test_gen_classes(void)
{
    struct gen_spec s = base_spec;
    s.nclasses = 2;
    s.classes[0] = (struct gen_class){
        .name = "pretrain-70b", .kind = GEN_TRAIN, .weight = 1, .model = "llama-3-70b", .params_b = 70.6,
        .precision = 1 /* bf16 */, .layers = 80, .hidden = 8192, .ncounts = 2, .gpu_counts = {16, 32},
        .gpu_weights = {1, 1}, .duration_median_s = 36000, .duration_sigma = 1, .duration_max_s = 1e6};
    s.classes[1] = (struct gen_class){
        .name = "infer-8b", .kind = GEN_INFER_BATCH, .weight = 3, .model = "llama-3-8b", .params_b = 8.03,
        .precision = 2 /* fp8 */, .ncounts = 1, .gpu_counts = {1}, .gpu_weights = {1},
        .duration_median_s = 600, .duration_sigma = 0.5, .duration_max_s = 0, .allowed = 1u << 3};
    struct workload w;
    workload_init(&w);
    workload_generate(&s, 9, &w);
    CU_ASSERT_EQUAL_FATAL(w.nmodels, 2);
    size_t bad = 0, n70 = 0, n16 = 0;
    for (size_t i = 0; i < w.n; i++) {
        const struct job *j = &w.jobs[i];
        const struct job_spec *sp = workload_spec(&w, j);
        CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
        if (sp->model == 1) {
            n70++;
            n16 += j->gpus == 16;
            double want = j->gpus == 16 ? 79.1103 : 70.6 / 2 + 6.5103 + 2;
            bad += strcmp(w.models[0], "llama-3-70b") || j->kind != JOB_TRAIN || sp->method != JOB_METHOD_TRAIN ||
                   (j->gpus != 16 && j->gpus != 32) || fabs(j->gpu_mem_gb - want) > 1e-3 || j->allowed;
        } else {
            bad += sp->model != 2 || strcmp(w.models[1], "llama-3-8b") || j->kind != JOB_INFER ||
                   sp->method != JOB_METHOD_INFER || j->gpus != 1 || fabs(j->gpu_mem_gb - 13.242) > 1e-3 ||
                   j->allowed != 1u << 3;
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    /* Shares: 1/4 of the jobs in the 70B class, half of those on 16 GPUs
     * (standard errors 0.0031 and 0.0071: 0.02 and 0.04 are > 5 of them). */
    CU_ASSERT(fabs((double)n70 / (double)w.n - 0.25) < 0.02);
    CU_ASSERT(fabs((double)n16 / (double)n70 - 0.5) < 0.04);
    workload_free(&w);
}

/* Diurnal arrivals: the rate is mean x (1 + a cos(2 pi (t - peak) / 24 h)),
 * so the 6 hours around the peak get mean x (1 + a sinc) and the 6 around
 * the trough mean x (1 - a sinc), sinc = sin(pi/4) / (pi/4) = 0.9003: with
 * a = 0.5 a ratio of 1.4502 / 0.5498 = 2.6374.  20,000 jobs put about 5,000
 * and 1,900 in the two windows: the ratio's standard error is about 2.7 %,
 * so 12 % is 4.4 of them.  The mean rate stays the one asked for (3 %, as
 * in test_gen_distributions; 20,000 jobs are ~167 whole days, so the
 * cosine averages out). */
static void test_gen_diurnal(void)
{
    struct gen_spec s = base_spec;
    s.diurnal_amplitude = 0.5;
    s.diurnal_peak_h = 14;
    struct workload w;
    workload_init(&w);
    workload_generate(&s, 11, &w);
    double peak = 0, trough = 0;
    for (size_t i = 0; i < w.n; i++) {
        double h = fmod(fs_to_seconds(w.jobs[i].submit) / 3600, 24);
        peak += h >= 11 && h < 17;
        trough += h < 5 || h >= 23;
    }
    CU_ASSERT(fabs(peak / trough / 2.6374 - 1) < 0.12);
    double mean_gap = fs_to_seconds(w.jobs[w.n - 1].submit) / (double)w.n;
    CU_ASSERT(fabs(mean_gap / 30.0 - 1) < 0.03);
    workload_free(&w);
}

static CU_TestInfo gen_tests[] = {
    {"same seed same jobs, separate streams", test_gen_deterministic},
    {"arrival, duration, size, kind, team laws", test_gen_distributions},
    {"duration cap and 1 s floor", test_gen_bounds},
    {"job classes: model, GPU count and memory together", test_gen_classes},
    {"diurnal arrivals: peak over trough, mean rate", test_gen_diurnal},
    CU_TEST_INFO_NULL,
};

int main(void)
{
    CU_SuiteInfo suites[] = {
        {"generator", wl_setup, NULL, NULL, NULL, gen_tests},
        CU_SUITE_INFO_NULL,
    };
    return tu_run("test_gen", suites);
}
