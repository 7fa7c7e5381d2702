/* gen.c - the synthetic workload generator (workload_generate). */
#include "workload.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/rng.h"
#include "../base/signals.h"
#include "../models/llm.h"
#include "../models/memory.h"

const char *const gen_class_kind_names[GEN_CLASS_KINDS] = {
    "train", "finetune-full", "lora", "qlora", "infer-batch", "service",
};

/* Each class kind's job kind and method. */
static const struct {
    enum job_kind kind;
    enum job_method method;
} class_kind[GEN_CLASS_KINDS] = {
    [GEN_TRAIN] = {JOB_TRAIN, JOB_METHOD_TRAIN},
    [GEN_FINETUNE_FULL] = {JOB_FINETUNE, JOB_METHOD_TRAIN},
    [GEN_LORA] = {JOB_FINETUNE, JOB_METHOD_LORA},
    [GEN_QLORA] = {JOB_FINETUNE, JOB_METHOD_QLORA},
    [GEN_INFER_BATCH] = {JOB_INFER, JOB_METHOD_INFER},
    [GEN_SERVICE] = {JOB_INFER, JOB_METHOD_INFER},
};

static const enum mem_method mem_method_of[] = {
    [JOB_METHOD_NONE] = MEM_TRAIN, [JOB_METHOD_TRAIN] = MEM_TRAIN, [JOB_METHOD_LORA] = MEM_LORA,
    [JOB_METHOD_QLORA] = MEM_QLORA, [JOB_METHOD_INFER] = MEM_INFER,
};

double workload_mem_gb(const struct job_spec *sp, int32_t gpus)
{
    if (!sp || !(sp->params_b > 0))
        return 0;
    struct mem_model m = {
        .params = sp->params_b * 1e9,
        .bytes_per_param = sp->precision ? llm_weight_bytes((enum llm_precision)(sp->precision - 1)) : 2,
        .layers = sp->layers,
        .hidden = sp->hidden,
    };
    return mem_llm_need(&m, mem_method_of[sp->method < FS_ARRAY_LEN(mem_method_of) ? sp->method : 0], gpus);
}

static void invalid(const char *what)
{
    fprintf(stderr, "fleetsim: workload_generate: invalid spec: %s\n", what);
    abort();
}

static void check_weights(const double *wt, int n, const char *what)
{
    double sum = 0;
    for (int i = 0; i < n; i++) {
        if (!(wt[i] >= 0) || !isfinite(wt[i]))
            invalid(what);
        sum += wt[i];
    }
    if (!(sum > 0))
        invalid(what);
}

static void check_durations(double median, double sigma, double max)
{
    if (!(median > 0) || !isfinite(median))
        invalid("duration_median_s must be > 0");
    if (!(sigma >= 0) || !isfinite(sigma))
        invalid("duration_sigma must be >= 0");
    if (!(max >= 0) || !isfinite(max))
        invalid("duration_max_s must be >= 0");
}

static void check_counts(const int32_t *counts, const double *weights, int n)
{
    if (n < 1 || n > GEN_MAX_CHOICES)
        invalid("ncounts out of range");
    for (int i = 0; i < n; i++)
        if (counts[i] < 1)
            invalid("gpu count < 1");
    check_weights(weights, n, "gpu_weights");
}

/* The spec's contract (workload.h); the scenario loader reports violations
 * to the user, so here they are programming errors. */
static void check_spec(const struct gen_spec *s)
{
    if (s->jobs < 0)
        invalid("jobs < 0");
    if (!(s->arrivals_per_hour > 0) || !isfinite(s->arrivals_per_hour))
        invalid("arrivals_per_hour must be > 0");
    if (!(s->diurnal_amplitude >= 0 && s->diurnal_amplitude <= 1) ||
        !(s->diurnal_peak_h >= 0 && s->diurnal_peak_h < 24))
        invalid("diurnal amplitude or peak out of range");
    if (s->nclasses < 0 || s->nclasses > GEN_MAX_CLASSES)
        invalid("nclasses out of range");
    if (s->nteams < 1 || s->nteams > GEN_MAX_CHOICES)
        invalid("nteams out of range");
    for (int i = 0; i < s->nteams; i++)
        if (!s->team_names[i][0] || !memchr(s->team_names[i], '\0', WORKLOAD_TEAM_MAX))
            invalid("team name empty or too long");
    check_weights(s->team_weights, s->nteams, "team_weights");
    if (!s->nclasses) {
        check_durations(s->duration_median_s, s->duration_sigma, s->duration_max_s);
        check_counts(s->gpu_counts, s->gpu_weights, s->ncounts);
        check_weights(s->kind_weights, JOB_KIND_COUNT, "kind_weights");
        return;
    }
    double weights[GEN_MAX_CLASSES];
    for (int k = 0; k < s->nclasses; k++) {
        const struct gen_class *c = &s->classes[k];
        if (c->kind < 0 || c->kind >= GEN_CLASS_KINDS || !(c->params_b > 0) ||
            c->precision < 0 || c->precision >= LLM_PRECISIONS || c->layers < 0 || c->layers > 65535 ||
            c->hidden < 0 || c->hidden > 65535 || !memchr(c->model, '\0', WORKLOAD_TEAM_MAX))
            invalid("class kind, model or shape out of range");
        check_durations(c->duration_median_s, c->duration_sigma, c->duration_max_s);
        check_counts(c->gpu_counts, c->gpu_weights, c->ncounts);
        weights[k] = c->weight;
    }
    check_weights(weights, s->nclasses, "class weights");
}

/* The next arrival after t: exponential gaps at the mean rate, or, with a
 * diurnal amplitude, at the peak rate thinned to the rate of the moment.
 * Saturates at the end of time rather than overflowing: a spec whose
 * arrivals get there is absurd, and the scenario loader refuses any whose
 * mean span exceeds 100 years. */
static fs_time next_arrival(const struct gen_spec *spec, gsl_rng *r, fs_time t)
{
    double a = spec->diurnal_amplitude;
    double mean_gap = 3600.0 / (spec->arrivals_per_hour * (1 + a));
    for (;;) {
        double gap = gsl_ran_exponential(r, mean_gap);
        fs_time dt = fs_seconds_ok(gap) ? fs_from_seconds(gap) : FS_TIME_MAX;
        t = dt < FS_TIME_MAX - t ? t + dt : FS_TIME_MAX;
        if (a == 0 || t == FS_TIME_MAX)
            return t;
        double hours = fs_to_seconds(t) / 3600 - spec->diurnal_peak_h;
        double keep = (1 + a * cos(2 * M_PI * hours / 24)) / (1 + a);
        if (gsl_rng_uniform(r) < keep)
            return t;
    }
}

static double draw_duration(gsl_rng *r, double median, double sigma, double max)
{
    double d = gsl_ran_lognormal(r, log(median), sigma);
    if (max > 0 && d > max)
        d = max;
    return d < 1 ? 1 : d;
}

struct job_spec gen_class_spec(const struct gen_class *c, int model)
{
    return (struct job_spec){.params_b = c->params_b, .model = (uint16_t)model, .layers = (uint16_t)c->layers,
                             .hidden = (uint16_t)c->hidden, .method = (uint8_t)class_kind[c->kind].method,
                             .precision = (uint8_t)(c->precision + 1)};
}

void gen_class_job(const struct gen_class *c, int32_t gpus, const struct job_spec *sp, struct job *j)
{
    j->gpus = gpus;
    j->kind = (uint8_t)class_kind[c->kind].kind;
    j->allowed = c->allowed;
    j->milli = GPU_MILLI;
    j->gpu_mem_gb = workload_mem_gb(sp, gpus);
}

void workload_generate(const struct gen_spec *spec, uint64_t seed, struct workload *w)
{
    check_spec(spec);
    /* One stream per purpose, so (say) a different size mix never moves an
     * arrival time. */
    gsl_rng *arrivals = rng_stream(seed, RNG_ARRIVALS);
    gsl_rng *durations = rng_stream(seed, RNG_DURATIONS);
    gsl_rng *sizes = rng_stream(seed, RNG_SIZES);
    gsl_rng *mix = rng_stream(seed, RNG_MIX);
    int nc = spec->nclasses;
    double class_w[GEN_MAX_CLASSES];
    gsl_ran_discrete_t *count_d[GEN_MAX_CLASSES + 1] = {0}, *kind_d = NULL, *class_d = NULL;
    uint32_t specs[GEN_MAX_CLASSES]; /* one model spec per class, its jobs share it */
    for (int k = 0; k < nc; k++) {
        class_w[k] = spec->classes[k].weight;
        count_d[k] = gsl_ran_discrete_preproc((size_t)spec->classes[k].ncounts, spec->classes[k].gpu_weights);
        int model = workload_model(w, spec->classes[k].model);
        if (model < 0)
            invalid("the workload's model table is full");
        struct job_spec sp = gen_class_spec(&spec->classes[k], model);
        specs[k] = workload_add_spec(w, &sp);
    }
    if (nc)
        class_d = gsl_ran_discrete_preproc((size_t)nc, class_w);
    else {
        count_d[0] = gsl_ran_discrete_preproc((size_t)spec->ncounts, spec->gpu_weights);
        kind_d = gsl_ran_discrete_preproc(JOB_KIND_COUNT, spec->kind_weights);
    }
    gsl_ran_discrete_t *team_d = gsl_ran_discrete_preproc((size_t)spec->nteams, spec->team_weights);
    int team_index[GEN_MAX_CHOICES];
    for (int k = 0; k < spec->nteams; k++)
        if ((team_index[k] = workload_team(w, spec->team_names[k])) < 0)
            invalid("the workload's team table is full");

    fs_time t = 0; /* exact: each gap is rounded once, then added */
    /* A signal cuts the list short: the run that follows stops before its
     * first event, and nothing is written. */
    for (int64_t i = 1; i <= spec->jobs && !fs_poll((uint64_t)i); i++) {
        t = next_arrival(spec, arrivals, t);
        struct job j = {.id = i, .submit = t, .ref_type = (int16_t)spec->ref_type};
        if (nc) {
            const struct gen_class *c = &spec->classes[gsl_ran_discrete(mix, class_d)];
            size_t k = (size_t)(c - spec->classes);
            gen_class_job(c, c->gpu_counts[gsl_ran_discrete(sizes, count_d[k])], &w->specs[specs[k] - 1], &j);
            j.spec = specs[k];
            j.work = j.gpus * draw_duration(durations, c->duration_median_s, c->duration_sigma,
                                            c->duration_max_s);
        } else {
            double d = draw_duration(durations, spec->duration_median_s, spec->duration_sigma,
                                     spec->duration_max_s);
            j.gpus = spec->gpu_counts[gsl_ran_discrete(sizes, count_d[0])];
            j.kind = (uint8_t)gsl_ran_discrete(mix, kind_d);
            j.work = j.gpus * d;
        }
        j.team = (uint16_t)team_index[gsl_ran_discrete(mix, team_d)];
        workload_add(w, &j);
    }
    for (int k = 0; k <= nc; k++)
        gsl_ran_discrete_free(count_d[k]);
    gsl_ran_discrete_free(class_d);
    gsl_ran_discrete_free(kind_d);
    gsl_ran_discrete_free(team_d);
    gsl_rng_free(arrivals);
    gsl_rng_free(durations);
    gsl_rng_free(sizes);
    gsl_rng_free(mix);
}

static double normal_cdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

/* Mean of min(X, M) for X lognormal with parameters mu = ln median and
 * sigma:
 *
 *   E[min(X, M)] = exp(mu + sigma^2/2) * Phi((ln M - mu - sigma^2) / sigma)
 *                  + M * (1 - Phi((ln M - mu) / sigma))
 *
 * (the untruncated mean times the share of it below M, plus M times the
 * chance of being cut).  The floor of 1 s is ignored: with medians of
 * minutes or more it moves nothing. */
double gen_duration_mean(double median, double sigma, double max)
{
    double mu = log(median);
    if (sigma == 0)
        return max > 0 && max < median ? max : median;
    if (!(max > 0))
        return exp(mu + sigma * sigma / 2);
    double lm = log(max);
    return exp(mu + sigma * sigma / 2) * normal_cdf((lm - mu - sigma * sigma) / sigma) +
           max * (1 - normal_cdf((lm - mu) / sigma));
}
