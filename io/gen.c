/* gen.c - the synthetic workload generator (workload_generate). */
#include "workload.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/rng.h"
#include "../base/signals.h"

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

/* The spec's contract (workload.h); the scenario loader reports violations
 * to the user, so here they are programming errors. */
static void check_spec(const struct gen_spec *s)
{
    if (s->jobs < 0)
        invalid("jobs < 0");
    if (!(s->arrivals_per_hour > 0) || !isfinite(s->arrivals_per_hour))
        invalid("arrivals_per_hour must be > 0");
    if (!(s->duration_median_s > 0) || !isfinite(s->duration_median_s))
        invalid("duration_median_s must be > 0");
    if (!(s->duration_sigma >= 0) || !isfinite(s->duration_sigma))
        invalid("duration_sigma must be >= 0");
    if (!(s->duration_max_s >= 0) || !isfinite(s->duration_max_s))
        invalid("duration_max_s must be >= 0");
    if (s->ncounts < 1 || s->ncounts > GEN_MAX_CHOICES)
        invalid("ncounts out of range");
    if (s->nteams < 1 || s->nteams > GEN_MAX_CHOICES)
        invalid("nteams out of range");
    for (int i = 0; i < s->ncounts; i++)
        if (s->gpu_counts[i] < 1)
            invalid("gpu count < 1");
    for (int i = 0; i < s->nteams; i++)
        if (!s->team_names[i][0] || !memchr(s->team_names[i], '\0', WORKLOAD_TEAM_MAX))
            invalid("team name empty or too long");
    check_weights(s->gpu_weights, s->ncounts, "gpu_weights");
    check_weights(s->kind_weights, JOB_KIND_COUNT, "kind_weights");
    check_weights(s->team_weights, s->nteams, "team_weights");
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
    gsl_ran_discrete_t *count_d =
        gsl_ran_discrete_preproc((size_t)spec->ncounts, spec->gpu_weights);
    gsl_ran_discrete_t *kind_d = gsl_ran_discrete_preproc(JOB_KIND_COUNT, spec->kind_weights);
    gsl_ran_discrete_t *team_d =
        gsl_ran_discrete_preproc((size_t)spec->nteams, spec->team_weights);
    int team_index[GEN_MAX_CHOICES];
    for (int k = 0; k < spec->nteams; k++)
        if ((team_index[k] = workload_team(w, spec->team_names[k])) < 0)
            invalid("the workload's team table is full");

    double mean_gap = 3600.0 / spec->arrivals_per_hour;
    double zeta = log(spec->duration_median_s);
    fs_time t = 0; /* exact: each gap is rounded once, then added */
    /* A signal cuts the list short: the run that follows stops before its
     * first event, and nothing is written. */
    for (int64_t i = 1; i <= spec->jobs && !fs_poll((uint64_t)i); i++) {
        /* Saturating at the end of time rather than overflowing: a spec
         * whose arrivals get there is absurd, and the scenario loader
         * refuses any whose mean span exceeds 100 years. */
        double gap = gsl_ran_exponential(arrivals, mean_gap);
        fs_time dt = fs_seconds_ok(gap) ? fs_from_seconds(gap) : FS_TIME_MAX;
        t = dt < FS_TIME_MAX - t ? t + dt : FS_TIME_MAX;
        double d = gsl_ran_lognormal(durations, zeta, spec->duration_sigma);
        if (spec->duration_max_s > 0 && d > spec->duration_max_s)
            d = spec->duration_max_s;
        if (d < 1)
            d = 1;
        int32_t gpus = spec->gpu_counts[gsl_ran_discrete(sizes, count_d)];
        size_t kind = gsl_ran_discrete(mix, kind_d);
        size_t team = gsl_ran_discrete(mix, team_d);
        struct job j = {
            .id = i,
            .submit = t,
            .kind = (uint8_t)kind,
            .team = (uint16_t)team_index[team],
            .gpus = gpus,
            .gpu_mem_gb = 0,
            .allowed = 0,
            .ref_type = spec->ref_type,
            .work = gpus * d,
        };
        workload_add(w, &j);
    }
    gsl_ran_discrete_free(count_d);
    gsl_ran_discrete_free(kind_d);
    gsl_ran_discrete_free(team_d);
    gsl_rng_free(arrivals);
    gsl_rng_free(durations);
    gsl_rng_free(sizes);
    gsl_rng_free(mix);
}
