/* cmd_gen.c - `fleetsim gen`: write a synthetic scenario of a given size (a
 * mixed fleet and a generator workload that keeps it busy), for benchmarks
 * and scale tests.  The file is plain scenario JSON that `fleetsim run`
 * accepts as is; the same arguments always give the same bytes. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reports/output.h"
#include "../models/models.h"
#include "../sched/sched.h"
#include "cli.h"

#define GEN_GPUS_PER_NODE 8
#define GEN_MAX_JOBS 10000000LL                    /* the generator's limit */
#define GEN_MAX_GPUS (1000000LL * GEN_GPUS_PER_NODE) /* the fleet's node limit */

/* The fleet mix, in whole percent of the nodes, in fleet order (under the
 * lowest-id tie-break of fifo and best-fit, the H100s fill first). */
static const struct {
    const char *gpu;
    int percent;
} fleet_mix[] = {
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

/* Run time per GPU on the reference type: lognormal, truncated. */
#define GEN_REFERENCE_GPU "a100-sxm-80"
#define GEN_DURATION_MEDIAN_S 3600.0
#define GEN_DURATION_SIGMA 1.0
#define GEN_DURATION_MAX_S 43200.0
/* Offered load as a share of the fleet's throughput capacity. */
#define GEN_TARGET_LOAD 0.875

static int usage(int code)
{
    FILE *f = code ? stderr : stdout;
    fprintf(f, "usage: fleetsim gen --jobs N --gpus G -o FILE.json [--seed S] [--policy NAME]\n"
               "                    [--catalog FILE]\n\n"
               "Write a synthetic scenario: about G GPUs in 8-GPU nodes, %d %% H100 SXM,\n"
               "%d %% H200 SXM, %d %% A100 SXM 80GB and %d %% RTX 4090 (whole nodes, at least\n"
               "one of each type from 32 GPUs), and a generated workload of N jobs of 1, 2,\n"
               "4 or 8 GPUs arriving at a rate that offers %.1f %% of the fleet's throughput\n"
               "capacity (from the catalog's throughput model).  The run has no horizon: it\n"
               "ends when the last job does.  The same arguments always write the same file.\n\n"
               "  -n, --jobs N        number of jobs, 1..%lld\n"
               "  -g, --gpus G        fleet size in GPUs, 8..%lld (rounded to whole nodes)\n"
               "  -s, --seed S        the scenario's seed (default 1)\n"
               "  -p, --policy NAME   the scenario's policy (default best-fit), one of:\n"
               "                     ",
            fleet_mix[0].percent, fleet_mix[1].percent, fleet_mix[2].percent,
            fleet_mix[3].percent, 100 * GEN_TARGET_LOAD, GEN_MAX_JOBS, GEN_MAX_GPUS);
    for (size_t i = 0; sched_policies[i]; i++)
        fprintf(f, "%s%s", i && i % 6 == 0 ? "\n                      " : " ", sched_policies[i]->name);
    fprintf(f, "\n"
               "  -o, --output FILE   the scenario file to write (its folder is created)\n"
               "      --max-output-mb N  write at most N MiB in all, else exit 73 (default 10240)\n"
               "      --catalog FILE  GPU catalog whose throughput model sizes the rate\n"
               "                      (default: $FLEETSIM_DATA/gpus.json or the shipped one)\n"
               "  -h, --help          this help\n");
    return code;
}

/* A decimal integer in [lo, hi] into *v.  RET: 0, or 64 after a message. */
static int parse_int(const char *opt, const char *s, long long lo, long long hi, long long *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno == ERANGE || *end || !((s[0] >= '0' && s[0] <= '9') || s[0] == '-')) {
        fprintf(stderr, "fleetsim: gen: %s: \"%s\" is not an integer\n", opt, s);
        return 64;
    }
    if (x < lo || x > hi) {
        fprintf(stderr, "fleetsim: gen: %s: %lld is out of range [%lld, %lld]\n", opt, x, lo, hi);
        return 64;
    }
    *v = x;
    return 0;
}

/* Split nodes over fleet_mix by largest remainder, in integers so the result
 * never depends on floating-point rounding; equal remainders go to the type
 * listed first.  From 4 nodes on, every type gets at least one, taken from
 * the type with the most. */
static void split_nodes(long long nodes, long long count[FS_ARRAY_LEN(fleet_mix)])
{
    enum { N = FS_ARRAY_LEN(fleet_mix) };
    long long rem[N], given = 0;
    for (int i = 0; i < N; i++) {
        long long quota = nodes * fleet_mix[i].percent;
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
    for (size_t i = 0; i < FS_ARRAY_LEN(fleet_mix); i++) {
        int t = gpu_catalog_find(pm->cat, fleet_mix[i].gpu);
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

/* The arrival rate that offers GEN_TARGET_LOAD of capacity C.
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
static double arrivals_per_hour(double capacity)
{
    double wsum = 0, gsum = 0;
    for (size_t i = 0; i < FS_ARRAY_LEN(size_mix); i++) {
        wsum += size_mix[i].weight;
        gsum += size_mix[i].weight * size_mix[i].gpus;
    }
    double mean_gpus = gsum / wsum;
    double mean_s = truncated_lognormal_mean(GEN_DURATION_MEDIAN_S, GEN_DURATION_SIGMA,
                                             GEN_DURATION_MAX_S);
    return 3600.0 * GEN_TARGET_LOAD * capacity / (mean_gpus * mean_s);
}

/* The catalog's throughput model must know every type of the mix and have a
 * workload for every kind.  RET: 0 or FS_EDATA. */
static int check_models(const struct perf_model *pm, const char *catalog, int *ref,
                        struct fs_err *err)
{
    for (size_t i = 0; i < FS_ARRAY_LEN(fleet_mix); i++)
        if (gpu_catalog_find(pm->cat, fleet_mix[i].gpu) < 0)
            return fs_fail(err, FS_EDATA, "%s: no GPU type \"%s\"", catalog, fleet_mix[i].gpu);
    if ((*ref = gpu_catalog_find(pm->cat, GEN_REFERENCE_GPU)) < 0)
        return fs_fail(err, FS_EDATA, "%s: no GPU type \"%s\"", catalog, GEN_REFERENCE_GPU);
    for (size_t k = 0; k < FS_ARRAY_LEN(kind_mix); k++)
        if (perf_workload_for_kind(pm, job_kind_name(kind_mix[k].kind)) < 0)
            return fs_fail(err, FS_EDATA, "workloads.json beside %s: no workload for job kind \"%s\"",
                           catalog, job_kind_name(kind_mix[k].kind));
    return 0;
}

struct gen_opts {
    long long jobs, gpus;
    unsigned long long seed;
    const char *policy, *out, *catalog;
};

static void write_scenario(FILE *f, const struct gen_opts *o, const long long count[],
                           long long nodes, double rate)
{
    fprintf(f, "{\n"
               "  \"name\": \"gen-j%lld-g%lld-s%llu\",\n"
               "  \"description\": \"Synthetic: %lld jobs on %lld GPUs (%lld 8-GPU nodes), offered load "
               "%.1f %% of the fleet's throughput capacity. Written by fleetsim gen --jobs %lld "
               "--gpus %lld --seed %llu.\",\n"
               "  \"seed\": %llu,\n"
               "  \"fleet\": [",
            o->jobs, o->gpus, o->seed, o->jobs, nodes * GEN_GPUS_PER_NODE, nodes,
            100 * GEN_TARGET_LOAD, o->jobs, o->gpus, o->seed, o->seed);
    const char *sep = "\n";
    for (size_t i = 0; i < FS_ARRAY_LEN(fleet_mix); i++) {
        if (!count[i])
            continue;
        fprintf(f, "%s    {\"gpu\": \"%s\", \"nodes\": %lld, \"gpus_per_node\": %d}", sep,
                fleet_mix[i].gpu, count[i], GEN_GPUS_PER_NODE);
        sep = ",\n";
    }
    fprintf(f, "\n  ],\n"
               "  \"workload\": {\n"
               "    \"generator\": {\n"
               "      \"jobs\": %lld,\n"
               "      \"arrivals_per_hour\": %.6g,\n"
               "      \"duration_median_s\": %g,\n"
               "      \"duration_sigma\": %g,\n"
               "      \"duration_max_s\": %g,\n"
               "      \"gpus\": {",
            o->jobs, rate, GEN_DURATION_MEDIAN_S, GEN_DURATION_SIGMA, GEN_DURATION_MAX_S);
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

/* Size the fleet and the arrival rate, then write the file atomically. */
static int generate(const struct gen_opts *o, struct fs_err *err)
{
    struct model_set ms = {0};
    struct outfile out = {0};
    long long nodes = (o->gpus + GEN_GPUS_PER_NODE / 2) / GEN_GPUS_PER_NODE;
    long long count[FS_ARRAY_LEN(fleet_mix)];
    int ref = -1, rc;
    split_nodes(nodes, count);
    if ((rc = model_set_load(o->catalog, &ms, err)) || (rc = check_models(ms.perf, o->catalog, &ref, err)))
        goto done;
    double rate = arrivals_per_hour(fleet_capacity(ms.perf, count, ref));
    if ((rc = out_open_path(&out, o->out, err)))
        goto done;
    write_scenario(out.f, o, count, nodes, rate);
    if (!(rc = out_close(&out, err)))
        rc = out_commit(&out, err);
done:
    out_discard(&out);
    model_set_free(&ms);
    return rc;
}

const struct option gen_opts[] = {
    {"jobs", required_argument, NULL, 'n'},   {"gpus", required_argument, NULL, 'g'},
    {"seed", required_argument, NULL, 's'},   {"policy", required_argument, NULL, 'p'},
    {"output", required_argument, NULL, 'o'}, {"catalog", required_argument, NULL, 'c'},
    {"help", no_argument, NULL, 'h'},         CLI_OPT_MAX_OUTPUT, {NULL, 0, NULL, 0},
};

int cmd_gen(int argc, char **argv)
{
    const struct option *opts = gen_opts;
    struct gen_opts o = {.seed = 1, .policy = "best-fit"};
    long long v;
    int c, rc;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":n:g:s:p:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if ((rc = parse_int("--jobs", optarg, 1, GEN_MAX_JOBS, &o.jobs)))
                return rc;
            break;
        case 'g':
            if ((rc = parse_int("--gpus", optarg, GEN_GPUS_PER_NODE, GEN_MAX_GPUS, &o.gpus)))
                return rc;
            break;
        case 's':
            /* The scenario's seed range, 0 ... 2^53. */
            if ((rc = parse_int("--seed", optarg, 0, 1LL << 53, &v)))
                return rc;
            o.seed = (unsigned long long)v;
            break;
        case 'p': o.policy = optarg; break;
        case CLI_MAX_OUTPUT:
            if (cli_parse_max_output("gen", optarg))
                return 64;
            break;
        case 'o':
            if (cli_parse_output("gen", optarg, &o.out))
                return 64;
            break;
        case 'c': o.catalog = optarg; break;
        case 'h': return usage(0);
        default:
            cli_bad_option("gen", c, argv[optind - 1], opts);
            return usage(64);
        }
    }
    if (optind != argc) {
        fprintf(stderr, "fleetsim: gen: unexpected argument \"%s\"\n", argv[optind]);
        return usage(64);
    }
    const char *missing = !o.jobs ? "--jobs N" : !o.gpus ? "--gpus G" : !o.out ? "-o FILE" : NULL;
    if (missing) {
        fprintf(stderr, "fleetsim: gen: missing %s\n", missing);
        return usage(64);
    }
    if (!sched_policy_find(o.policy)) {
        size_t n;
        const char *const *names = sched_policy_names(&n);
        const char *near = fs_suggest(o.policy, names, n);
        fprintf(stderr, "fleetsim: gen: --policy: unknown policy \"%s\"%s%s%s\n", o.policy,
                near ? "; did you mean \"" : "", near ? near : "", near ? "\"?" : "");
        return 64;
    }
    if (!o.catalog)
        o.catalog = cli_default_catalog();
    struct fs_err err = {0};
    return generate(&o, &err) ? cli_fail(&err) : 0;
}
