/* gen_scenario.c - a synthetic scenario of a given size (gen_scenario.h):
 * the fleet split over a mix of GPU types and a generator workload whose
 * arrival rate offers a chosen share of the fleet's throughput capacity. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <stdlib.h>

#include "../models/models.h"
#include "../sched/sched.h"
#include "gen_scenario.h"
#include "scenario.h"

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

/* Sizing to job classes (--classes).
 *
 * The rule.  The jobs of each class and GPU count (a "job shape") are
 * spread over the types of gen_fleet_mix that hold them (memory per GPU
 * by the one rule, the class's gpu_types, whole nodes: sched_fits_type)
 * in proportion to the mix's percents, and each type gets nodes in
 * proportion to the GPU time its share of the jobs holds on it.  A job of
 * shape (k, g) whose run time on the reference type is d holds
 * g x d / (r x e) GPU-seconds of type t (r = perf_relative, e =
 * perf_scaling for its kind on g GPUs over ceil(g / 8) nodes), so per
 * arriving job type t is offered
 *
 *   D(t) = sum over shapes (k, g) held by t of  p(k) q(k,g) s(t) g E[d_k] / (r e),
 *
 * p(k) the class's share of the jobs, q(k,g) its GPU count's, s(t) t's
 * percent over those of the types that hold the shape, E[d_k] the class's
 * mean run time (gen_duration_mean).  Nodes go to the types in proportion
 * to D(t) (largest remainder, ties to the type listed first), and
 *
 *   arrivals_per_hour = 3600 x load x GPUs / sum over t of D(t)
 *
 * offers every type --load of its GPU time, up to whole nodes and two
 * floors: a type with D(t) > 0 gets a node when there are enough; and a
 * shape spanning several nodes that no type holding it has enough nodes
 * for raises the holding type with the most nodes to its span (nodes taken
 * from the types with the most above their floors, the spans before).  A
 * type with D(t) = 0 (no class fits it) is left out, and so is one whose
 * nodes all went to such a span (a small fleet for its largest jobs).  A type only small jobs fit (the RTX
 * 4090 under the default classes) is so sized by its share of the small
 * jobs alone.
 *
 * The order.  The spread is the plan; the policy places the jobs.  Under
 * the lowest-id tie-breaks of best-fit and fifo the type listed first fills
 * first and the last one only takes the overflow, so the fleet lists the
 * most restricted types first: those that hold the fewest job shapes, then
 * those with the fewest nodes.  Small jobs fill the small cards, and the
 * small pools fill before the large ones, which take what is left. */
struct shape {
    int span;          /* nodes a job spans */
    unsigned holds;    /* bit t: type t of gen_fleet_mix holds it */
    const char *name;  /* its class */
    int gpus;
};

/* The demand D(t) of every type and the shapes.  RET: 0 or FS_EDATA (a
 * shape no type holds). */
static int class_demand(const struct perf_model *pm, const struct gen_spec *g, int ref, double demand[],
                        struct shape *shapes, int *nshapes, struct fs_err *err)
{
    enum { N = GEN_FLEET_TYPES };
    int type[N];
    int32_t most = 1;
    double wsum = 0;
    for (int k = 0; k < g->nclasses; k++) {
        wsum += g->classes[k].weight;
        for (int i = 0; i < g->classes[k].ncounts; i++)
            if (g->classes[k].gpu_counts[i] / GEN_GPUS_PER_NODE > most)
                most = g->classes[k].gpu_counts[i] / GEN_GPUS_PER_NODE;
    }
    /* A fleet of every type with nodes enough for any shape: what holds a
     * shape there is memory, gpu_types and node sizes alone. */
    struct fleet_group probe[N];
    for (int t = 0; t < N; t++) {
        type[t] = gpu_catalog_find(pm->cat, gen_fleet_mix[t].gpu);
        probe[t] = (struct fleet_group){.type = type[t], .nodes = most, .gpus_per_node = GEN_GPUS_PER_NODE};
        demand[t] = 0;
    }
    struct cluster *cl = cluster_new(pm->cat, probe, N);
    int rc = 0;
    *nshapes = 0;
    for (int k = 0; k < g->nclasses && !rc; k++) {
        const struct gen_class *c = &g->classes[k];
        double csum = 0;
        for (int i = 0; i < c->ncounts; i++)
            csum += c->gpu_weights[i];
        double mean_s = gen_duration_mean(c->duration_median_s, c->duration_sigma, c->duration_max_s);
        for (int i = 0; i < c->ncounts && c->weight > 0 && !rc; i++) {
            if (!(c->gpu_weights[i] > 0))
                continue;
            struct job j = {0};
            struct job_spec sp = gen_class_spec(c, 0);
            gen_class_job(c, c->gpu_counts[i], &sp, &j);
            struct shape *sh = &shapes[(*nshapes)++];
            *sh = (struct shape){.span = (j.gpus + GEN_GPUS_PER_NODE - 1) / GEN_GPUS_PER_NODE,
                                 .name = c->name, .gpus = j.gpus};
            int pct = 0;
            for (int t = 0; t < N; t++)
                if (sched_fits_type(cl, &j, type[t])) {
                    sh->holds |= 1u << t;
                    pct += gen_fleet_mix[t].percent;
                }
            if (!pct) {
                rc = fs_fail(err, FS_EDATA, "gen: --classes: class %s's %d-GPU jobs (%.1f GB per GPU) fit none of "
                             "%s, %s, %s, %s", c->name, j.gpus, j.gpu_mem_gb, gen_fleet_mix[0].gpu,
                             gen_fleet_mix[1].gpu, gen_fleet_mix[2].gpu, gen_fleet_mix[3].gpu);
                break;
            }
            int w = perf_workload_for_kind(pm, job_kind_name(j.kind));
            double share = c->weight / wsum * c->gpu_weights[i] / csum;
            for (int t = 0; t < N; t++)
                if (sh->holds >> t & 1)
                    demand[t] += share * gen_fleet_mix[t].percent / pct * j.gpus * mean_s /
                                 (perf_relative(pm, w, type[t], ref) *
                                  perf_scaling(pm, w, type[t], j.gpus, sh->span));
        }
    }
    cluster_free(cl);
    return rc;
}

/* Move one node to type t from the type with the most nodes above its
 * floor.  RET: false when no type has one to spare. */
static bool take_node(long long count[], const long long floor[], int t)
{
    int donor = -1;
    for (int u = 0; u < GEN_FLEET_TYPES; u++)
        if (u != t && count[u] > floor[u] && (donor < 0 || count[u] - floor[u] > count[donor] - floor[donor]))
            donor = u;
    if (donor < 0)
        return false;
    count[donor]--;
    count[t]++;
    return true;
}

/* Split nodes in proportion to demand, then apply the floors (above).
 * RET: 0 or FS_EDATA (too few nodes for a shape). */
static int split_by_demand(long long nodes, const double demand[], const struct shape *shapes, int nshapes,
                           long long count[], struct fs_err *err)
{
    enum { N = GEN_FLEET_TYPES };
    double total = 0, rem[N];
    long long given = 0, floor[N] = {0}, used = 0;
    for (int t = 0; t < N; t++) {
        total += demand[t];
        used += demand[t] > 0;
    }
    for (int t = 0; t < N; t++) {
        double q = (double)nodes * demand[t] / total;
        count[t] = (long long)q;
        rem[t] = q - (double)count[t];
        given += count[t];
    }
    for (; given < nodes; given++) {
        int best = 0;
        for (int t = 1; t < N; t++)
            if (rem[t] > rem[best])
                best = t;
        count[best]++;
        rem[best] = -1;
    }
    for (int t = 0; t < N && nodes >= used; t++)
        if (demand[t] > 0 && !count[t])
            take_node(count, floor, t);
    for (int s = 0; s < nshapes; s++) {
        const struct shape *sh = &shapes[s];
        int host = -1;
        for (int t = 0; t < N; t++)
            if (sh->holds >> t & 1 && (host < 0 || count[t] > count[host]))
                host = t;
        while (count[host] < sh->span)
            if (!take_node(count, floor, host))
                return fs_fail(err, FS_EDATA, "gen: --gpus %lld: too few GPUs for class %s's %d-GPU jobs, which "
                               "need %d whole nodes of one type", nodes * GEN_GPUS_PER_NODE, sh->name,
                               sh->gpus, sh->span);
        if (floor[host] < sh->span)
            floor[host] = sh->span;
    }
    return 0;
}

/* The fleet's order (above): types holding fewer shapes first, then fewer
 * nodes, then the mix's order. */
static void order_restricted_first(const struct shape *shapes, int nshapes, const long long count[], int order[])
{
    int held[GEN_FLEET_TYPES] = {0};
    for (int s = 0; s < nshapes; s++)
        for (int t = 0; t < GEN_FLEET_TYPES; t++)
            held[t] += shapes[s].holds >> t & 1;
    for (int i = 0; i < GEN_FLEET_TYPES; i++) {
        int at = i;
        while (at > 0 && (held[order[at - 1]] > held[i] ||
                          (held[order[at - 1]] == held[i] && count[order[at - 1]] > count[i]))) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = i;
    }
}

static int size_to_classes(const struct gen_scenario *o, const struct perf_model *pm, int ref,
                           struct gen_sizing *z, struct fs_err *err)
{
    struct gen_spec *g = xcalloc(1, sizeof *g);
    struct shape *shapes = xcalloc(GEN_MAX_CLASSES * GEN_MAX_CHOICES, sizeof *shapes);
    double demand[GEN_FLEET_TYPES], total = 0;
    int nshapes = 0;
    int rc = gen_classes_load(o->classes, pm->cat, o->catalog, g, err);
    if (rc) { /* name the option */
        char msg[sizeof err->msg + 64];
        snprintf(msg, sizeof msg, "gen: --classes %s: %s", o->classes, err->msg);
        memcpy(err->msg, msg, sizeof err->msg - 1);
        err->msg[sizeof err->msg - 1] = '\0';
    }
    if (!rc)
        rc = class_demand(pm, g, ref, demand, shapes, &nshapes, err);
    if (!rc)
        rc = split_by_demand(z->nodes, demand, shapes, nshapes, z->count, err);
    if (!rc) {
        for (int t = 0; t < GEN_FLEET_TYPES; t++) {
            total += demand[t];
            if (!(demand[t] > 0))
                z->unused |= 1u << t;
            else if (!z->count[t])
                z->crowded |= 1u << t;
        }
        order_restricted_first(shapes, nshapes, z->count, z->order);
        z->arrivals_per_hour = 3600.0 * o->load * (double)(z->nodes * GEN_GPUS_PER_NODE) / total;
    }
    free(shapes);
    free(g);
    return rc;
}

void gen_scenario_write(FILE *f, const struct gen_scenario *o, const struct gen_sizing *z)
{
    const long long *count = z->count;
    long long nodes = z->nodes;
    double rate = z->arrivals_per_hour;
    /* The name's and the command's suffixes for the options given; the
     * defaults are left out, so those read as they did before the options. */
    char name[64] = "", diurnal[96] = "";
    char *classes = NULL; /* --classes as a JSON string, quotes and all */
    if (o->classes) {
        cJSON *str = cJSON_CreateString(o->classes);
        classes = str ? cJSON_PrintUnformatted(str) : NULL;
        cJSON_Delete(str);
        if (!classes)
            classes = xstrdup("\"default\""); /* out of memory: cJSON returned NULL */
    }
    size_t argn = 96 + (classes ? strlen(classes) : 0), n = 0;
    char *arg = xmalloc(argn);
    arg[0] = '\0';
    if (o->load != GEN_TARGET_LOAD) {
        n = strlen(name);
        snprintf(name + n, sizeof name - n, "-l%g", 100 * o->load);
        n = strlen(arg);
        snprintf(arg + n, argn - n, " --load %g", 100 * o->load);
    }
    if (classes) {
        n = strlen(name);
        snprintf(name + n, sizeof name - n, "-classes");
        n = strlen(arg);
        snprintf(arg + n, argn - n, " --classes %.*s", (int)strlen(classes) - 2, classes + 1);
    }
    if (o->diurnal_amplitude > 0) {
        n = strlen(name);
        snprintf(name + n, sizeof name - n, "-d%.9g@%.9g", o->diurnal_amplitude, o->diurnal_peak_h);
        n = strlen(arg);
        snprintf(arg + n, argn - n, " --diurnal %.9g@%.9g", o->diurnal_amplitude, o->diurnal_peak_h);
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
            o->jobs, o->gpus, o->seed, name, o->jobs, nodes * GEN_GPUS_PER_NODE, nodes,
            100 * o->load, o->jobs, o->gpus, o->seed, arg, o->seed);
    const char *sep = "\n";
    for (size_t k = 0; k < GEN_FLEET_TYPES; k++) {
        int i = z->order[k];
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
               "%s",
            o->jobs, rate, diurnal);
    if (classes)
        fprintf(f, "      \"classes\": %s,\n", classes);
    else {
        fprintf(f, "      \"duration_median_s\": %g,\n"
                   "      \"duration_sigma\": %g,\n"
                   "      \"duration_max_s\": %g,\n"
                   "      \"gpus\": {",
                GEN_DURATION_MEDIAN_S, GEN_DURATION_SIGMA, GEN_DURATION_MAX_S);
        for (size_t i = 0; i < FS_ARRAY_LEN(size_mix); i++)
            fprintf(f, "%s\"%d\": %g", i ? ", " : "", size_mix[i].gpus, size_mix[i].weight);
        fprintf(f, "},\n      \"kinds\": {");
        for (size_t i = 0; i < FS_ARRAY_LEN(kind_mix); i++)
            fprintf(f, "%s\"%s\": %g", i ? ", " : "", job_kind_name(kind_mix[i].kind), kind_mix[i].weight);
        fprintf(f, "},\n");
    }
    fprintf(f, "      \"teams\": {");
    for (size_t i = 0; i < FS_ARRAY_LEN(team_mix); i++)
        fprintf(f, "%s\"%s\": %g", i ? ", " : "", team_mix[i].team, team_mix[i].weight);
    fprintf(f, "},\n"
               "      \"reference_gpu\": \"%s\"\n"
               "    }\n"
               "  },\n"
               "  \"scheduler\": {\"policy\": \"%s\"}\n"
               "}\n",
            GEN_REFERENCE_GPU, o->policy);
    free(arg);
    cJSON_free(classes);
}

int gen_scenario_size(const struct gen_scenario *o, struct gen_sizing *z, struct fs_err *err)
{
    struct model_set ms = {0};
    int ref = -1;
    z->nodes = (o->gpus + GEN_GPUS_PER_NODE / 2) / GEN_GPUS_PER_NODE;
    z->unused = z->crowded = 0;
    for (int i = 0; i < GEN_FLEET_TYPES; i++)
        z->order[i] = i;
    int rc = model_set_load(o->catalog, &ms, err);
    if (rc == 0 && (rc = check_models(ms.perf, o->catalog, &ref, err)) == 0) {
        if (o->classes)
            rc = size_to_classes(o, ms.perf, ref, z, err);
        else {
            split_nodes(z->nodes, z->count);
            z->arrivals_per_hour = arrivals_per_hour(fleet_capacity(ms.perf, z->count, ref), o->load);
        }
    }
    model_set_free(&ms);
    return rc;
}
