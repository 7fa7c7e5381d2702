/* gen_scenario.c - a synthetic scenario of a given size (gen_scenario.h):
 * the fleet split over a mix of GPU types and a generator workload whose
 * arrival rate offers a chosen share of the fleet's throughput capacity. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../models/models.h"
#include "../sched/job.h"
#include "gen_scenario.h"

/* The fleet mix, in whole percent of the nodes, in fleet order (under the
 * lowest-id tie-break of fifo and best-fit, the H100s fill first). */
const struct gen_fleet_share gen_fleet_mix[GEN_FLEET_TYPES] = {
    {"h100-sxm", 30},
    {"h200-sxm", 15},
    {"a100-sxm-80", 30},
    {"rtx4090", 25},
};

/* Job sizes and their weights.  Every size fits one 8-GPU node, so the
 * scenario also runs under the policies that never place a job across nodes
 * (fgd and the other FGD-paper policies refuse larger jobs at load). */
static const struct {
    int gpus;
    double weight;
} size_mix[] = {{1, 0.50}, {2, 0.20}, {4, 0.15}, {8, 0.15}};

/* Job kinds (each runs its throughput profile from workloads.json) and
 * teams, as in scenarios/default.json. */
static const struct {
    enum job_kind kind;
    double weight;
} kind_mix[] = {{JOB_TRAIN, 0.25}, {JOB_FINETUNE, 0.25}, {JOB_INFER, 0.30}, {JOB_BATCH, 0.20}};
static const struct {
    const char *team;
    double weight;
} team_mix[] = {{"research", 0.35}, {"product", 0.30}, {"platform", 0.20}, {"vision", 0.15}};

/* Split nodes over gen_fleet_mix by largest remainder, in integers so the result
 * never depends on floating-point rounding; equal remainders go to the type
 * listed first.  From 4 nodes on, every type gets at least one, taken from
 * the type with the most. */
static void split_nodes(long long nodes, long long count[GEN_FLEET_TYPES])
{
    enum { N = GEN_FLEET_TYPES };
    long long rem[N], given = 0;
    for (int i = 0; i < N; i++) {
        long long quota = nodes * gen_fleet_mix[i].percent;
        count[i] = quota / 100;
        rem[i] = quota % 100;
        given += count[i];
    }
    for (; given < nodes; given++) {
        int best = 0;
        for (int i = 1; i < N; i++)
            if (rem[i] > rem[best])
                best = i;
        count[best]++;
        rem[best] = -1;
    }
    if (nodes < N)
        return;
    for (int i = 0; i < N; i++) {
        if (count[i])
            continue;
        int most = 0;
        for (int k = 1; k < N; k++)
            if (count[k] > count[most])
                most = k;
        count[most]--;
        count[i]++;
    }
}

static double normal_cdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

/* Mean of min(X, max) for X lognormal with median m and log-sd sigma, X's
 * parameters mu = ln m and sigma:
 *
 *   E[min(X, M)] = exp(mu + sigma^2/2) * Phi((ln M - mu - sigma^2) / sigma)
 *                  + M * (1 - Phi((ln M - mu) / sigma))
 *
 * (the untruncated mean m * exp(sigma^2/2) times the share of it below M,
 * plus M times the chance of being cut).  The generator's floor of 1 s is
 * ignored: with a median of an hour it moves nothing. */
static double truncated_lognormal_mean(double median, double sigma, double max)
{
    double mu = log(median);
    if (sigma == 0)
        return median < max ? median : max;
    double lm = log(max);
    return exp(mu + sigma * sigma / 2) * normal_cdf((lm - mu - sigma * sigma) / sigma) +
           max * (1 - normal_cdf((lm - mu) / sigma));
}

/* The fleet's throughput capacity, in reference GPU-seconds of work per
 * second, when every GPU is busy with the job mix.
 *
 * A job of kind k on g GPUs of type t with drawn duration d holds its GPUs
 * for d / (r(k,t) x e(k,t,g)) seconds, where r is the type's per-GPU speed
 * relative to the reference (perf_relative) and e the multi-GPU scaling
 * efficiency on one node (perf_scaling).  Each GPU-second of type t
 * therefore does, over the mix, 1 / h(t) reference GPU-seconds of work with
 *
 *   h(t) = sum over k, g of  w(k) x q(g) / (r(k,t) x e(k,t,g)),
 *
 * w(k) the kind weights, q(g) = p(g) x g / E[gpus] the share of the work in
 * jobs of g GPUs (p the size weights).  The fleet's capacity is
 *
 *   C = sum over t of  gpus(t) / h(t).
 *
 * On the shipped data an H100 or H200 GPU does about twice the reference
 * A100's work and an RTX 4090 about half, so C comes to roughly 1.3 G for
 * this mix (G the fleet's GPUs). */
static double fleet_capacity(const struct perf_model *pm, const long long count[], int ref)
{
    double wsum = 0, kwsum = 0, gsum = 0;
    for (size_t i = 0; i < FS_ARRAY_LEN(size_mix); i++) {
        wsum += size_mix[i].weight;
        gsum += size_mix[i].weight * size_mix[i].gpus;
    }
    for (size_t k = 0; k < FS_ARRAY_LEN(kind_mix); k++)
        kwsum += kind_mix[k].weight;
    double cap = 0;
    for (size_t i = 0; i < GEN_FLEET_TYPES; i++) {
        int t = gpu_catalog_find(pm->cat, gen_fleet_mix[i].gpu);
        double h = 0;
        for (size_t k = 0; k < FS_ARRAY_LEN(kind_mix); k++) {
            int w = perf_workload_for_kind(pm, job_kind_name(kind_mix[k].kind));
            for (size_t g = 0; g < FS_ARRAY_LEN(size_mix); g++) {
                double q = size_mix[g].weight * size_mix[g].gpus / gsum;
                h += kind_mix[k].weight / kwsum * q /
                     (perf_relative(pm, w, t, ref) * perf_scaling(pm, w, t, size_mix[g].gpus, 1));
            }
        }
        cap += (double)(count[i] * GEN_GPUS_PER_NODE) / h;
    }
    return cap;
}

/* The arrival rate that offers load (a share) of capacity C.
 *
 * A job's work is gpus x duration reference GPU-seconds, so on average
 * E[gpus] x E[duration], with E[gpus] the weighted mean of size_mix and
 * E[duration] the truncated lognormal mean above (drawn independently).
 * Jobs arriving at lambda per second offer lambda x E[gpus] x E[duration]
 * reference GPU-seconds per second, hence
 *
 *   arrivals_per_hour = 3600 x load x C / (E[gpus] x E[duration]).
 *
 * How busy the GPUs then are depends on the policy: one that fills the fast
 * types first holds less GPU time for the same work, and fifo's
 * head-of-line blocking leaves GPUs idle while a large job waits. */
static double arrivals_per_hour(double capacity, double load)
{
    double wsum = 0, gsum = 0;
    for (size_t i = 0; i < FS_ARRAY_LEN(size_mix); i++) {
        wsum += size_mix[i].weight;
        gsum += size_mix[i].weight * size_mix[i].gpus;
    }
    double mean_gpus = gsum / wsum;
    double mean_s = truncated_lognormal_mean(GEN_DURATION_MEDIAN_S, GEN_DURATION_SIGMA,
                                             GEN_DURATION_MAX_S);
    return 3600.0 * load * capacity / (mean_gpus * mean_s);
}

/* The catalog's throughput model must know every type of the mix and have a
 * workload for every kind.  RET: 0 or FS_EDATA. */
static int check_models(const struct perf_model *pm, const char *catalog, int *ref,
                        struct fs_err *err)
{
    for (size_t i = 0; i < GEN_FLEET_TYPES; i++)
        if (gpu_catalog_find(pm->cat, gen_fleet_mix[i].gpu) < 0)
            return fs_fail(err, FS_EDATA, "%s: no GPU type \"%s\"", catalog, gen_fleet_mix[i].gpu);
    if ((*ref = gpu_catalog_find(pm->cat, GEN_REFERENCE_GPU)) < 0)
        return fs_fail(err, FS_EDATA, "%s: no GPU type \"%s\"", catalog, GEN_REFERENCE_GPU);
    for (size_t k = 0; k < FS_ARRAY_LEN(kind_mix); k++)
        if (perf_workload_for_kind(pm, job_kind_name(kind_mix[k].kind)) < 0)
            return fs_fail(err, FS_EDATA, "workloads.json beside %s: no workload for job kind \"%s\"",
                           catalog, job_kind_name(kind_mix[k].kind));
    return 0;
}

void gen_scenario_write(FILE *f, const struct gen_scenario *o, const struct gen_sizing *z)
{
    const long long *count = z->count;
    long long nodes = z->nodes;
    double rate = z->arrivals_per_hour;
    /* The default load is left out of the name and the command, so those
     * read as they did before --load. */
    char load[80] = "", arg[96] = "", diurnal[80] = "";
    if (o->load != GEN_TARGET_LOAD) {
        snprintf(load, sizeof load, "-l%g", 100 * o->load);
        snprintf(arg, sizeof arg, " --load %g", 100 * o->load);
    }
    if (o->diurnal_amplitude > 0) {
        size_t n = strlen(load), m = strlen(arg);
        snprintf(load + n, sizeof load - n, "-d%.9g@%.9g", o->diurnal_amplitude, o->diurnal_peak_h);
        snprintf(arg + m, sizeof arg - m, " --diurnal %.9g@%.9g", o->diurnal_amplitude, o->diurnal_peak_h);
        snprintf(diurnal, sizeof diurnal, "      \"diurnal\": {\"amplitude\": %.9g, \"peak_hour\": %.9g},\n",
                 o->diurnal_amplitude, o->diurnal_peak_h);
    }
    fprintf(f, "{\n"
               "  \"name\": \"gen-j%lld-g%lld-s%llu%s\",\n"
               "  \"description\": \"Synthetic: %lld jobs on %lld GPUs (%lld 8-GPU nodes), offered load "
               "%.1f %% of the fleet's throughput capacity. Written by fleetsim gen --jobs %lld "
               "--gpus %lld --seed %llu%s.\",\n"
               "  \"seed\": %llu,\n"
               "  \"fleet\": [",
            o->jobs, o->gpus, o->seed, load, o->jobs, nodes * GEN_GPUS_PER_NODE, nodes,
            100 * o->load, o->jobs, o->gpus, o->seed, arg, o->seed);
    const char *sep = "\n";
    for (size_t i = 0; i < GEN_FLEET_TYPES; i++) {
        if (!count[i])
            continue;
        fprintf(f, "%s    {\"gpu\": \"%s\", \"nodes\": %lld, \"gpus_per_node\": %d}", sep,
                gen_fleet_mix[i].gpu, count[i], GEN_GPUS_PER_NODE);
        sep = ",\n";
    }
    fprintf(f, "\n  ],\n"
               "  \"workload\": {\n"
               "    \"generator\": {\n"
               "      \"jobs\": %lld,\n"
               "      \"arrivals_per_hour\": %.6g,\n"
               "%s"
               "      \"duration_median_s\": %g,\n"
               "      \"duration_sigma\": %g,\n"
               "      \"duration_max_s\": %g,\n"
               "      \"gpus\": {",
            o->jobs, rate, diurnal, GEN_DURATION_MEDIAN_S, GEN_DURATION_SIGMA, GEN_DURATION_MAX_S);
    for (size_t i = 0; i < FS_ARRAY_LEN(size_mix); i++)
        fprintf(f, "%s\"%d\": %g", i ? ", " : "", size_mix[i].gpus, size_mix[i].weight);
    fprintf(f, "},\n      \"kinds\": {");
    for (size_t i = 0; i < FS_ARRAY_LEN(kind_mix); i++)
        fprintf(f, "%s\"%s\": %g", i ? ", " : "", job_kind_name(kind_mix[i].kind), kind_mix[i].weight);
    fprintf(f, "},\n      \"teams\": {");
    for (size_t i = 0; i < FS_ARRAY_LEN(team_mix); i++)
        fprintf(f, "%s\"%s\": %g", i ? ", " : "", team_mix[i].team, team_mix[i].weight);
    fprintf(f, "},\n"
               "      \"reference_gpu\": \"%s\"\n"
               "    }\n"
               "  },\n"
               "  \"scheduler\": {\"policy\": \"%s\"}\n"
               "}\n",
            GEN_REFERENCE_GPU, o->policy);
}

int gen_scenario_size(const struct gen_scenario *o, struct gen_sizing *z, struct fs_err *err)
{
    struct model_set ms = {0};
    int ref = -1;
    z->nodes = (o->gpus + GEN_GPUS_PER_NODE / 2) / GEN_GPUS_PER_NODE;
    split_nodes(z->nodes, z->count);
    int rc = model_set_load(o->catalog, &ms, err);
    if (rc == 0 && (rc = check_models(ms.perf, o->catalog, &ref, err)) == 0)
        z->arrivals_per_hour = arrivals_per_hour(fleet_capacity(ms.perf, z->count, ref), o->load);
    model_set_free(&ms);
    return rc;
}
