/* scenario.c - loading a scenario file (schema in scenarios/README.md). */
#include "scenario.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/jpath.h"
#include "../base/json.h"
#include "../base/signals.h"
#include "../models/memory.h"
#include "job_types.h"
#include "readers.h"
#include "scenario_int.h"

/* A path relative to the scenario file's folder (absolute paths kept). */
char *scenario_relative_to(const char *file, const char *rel)
{
    if (rel[0] == '/')
        return xstrdup(rel);
    char *copy = xstrdup(file);
    const char *dir = dirname(copy);
    size_t n = strlen(dir) + strlen(rel) + 2;
    char *out = xmalloc(n);
    snprintf(out, n, "%s/%s", dir, rel);
    free(copy);
    return out;
}

int scenario_unknown_gpu(struct ctx *c, const char *path, const char *name)
{
    const char *hint = fs_suggest(name, c->sc->cat->names, (size_t)c->sc->cat->n);
    return fs_fail(c->err, FS_EDATA, "%s: %s: unknown GPU type \"%s\"%s%s%s", c->file, path, name,
                   hint ? "; did you mean \"" : "", hint ? hint : "", hint ? "\"?" : "");
}

/* The catalog and the model files beside it. */
static int load_models(struct ctx *c, const cJSON *root)
{
    struct scenario *sc = c->sc;
    struct model_set ms;
    const char *rel = NULL;
    int rc = json_string(root, "catalog", false, &rel, c->file, "$", c->err);
    if (rc)
        return rc;
    if (rel)
        sc->catalog_path = scenario_relative_to(c->file, rel);
    else if (c->opt && c->opt->catalog)
        sc->catalog_path = xstrdup(c->opt->catalog);
    else
        return fs_fail(c->err, FS_ENOINPUT, "%s: no GPU catalog: set \"catalog\" or FLEETSIM_DATA", c->file);
    rc = model_set_load(sc->catalog_path, &ms, c->err);
    sc->cat = ms.cat;
    sc->perf = ms.perf;
    sc->nodes = ms.nodes;
    sc->power = ms.power;
    sc->prices = ms.prices;
    sc->llm = ms.llm;
    if (!rc)
        sc->pue = sc->nodes->pue;
    return rc;
}

/* The optional electrical keys of a fleet group. */
static int load_fleet_power(struct ctx *c, const cJSON *g, const char *path, int type, int per,
                            struct fleet_power *out)
{
    const char *name = NULL;
    int64_t failed = 0;
    int rc;
    out->cap_w = 0;
    if ((rc = json_string(g, "node", false, &name, c->file, path, c->err)) ||
        (rc = json_number(g, "power_cap_w", false, 1, 1e5, &out->cap_w, c->file, path, c->err)) ||
        (rc = json_int(g, "psus_failed", false, 0, 64, &failed, c->file, path, c->err)))
        return rc;
    const struct node_template *nt = name ? node_template_find(c->sc->nodes, name)
                                          : node_template_for_gpu(c->sc->nodes, type);
    if (!nt && name)
        return fs_fail(c->err, FS_EDATA, "%s: %s.node: unknown node template \"%s\"", c->file, path, name);
    if (!nt)
        return fs_fail(c->err, FS_EDATA, "%s: %s: no node template for GPU type \"%s\" in nodes.json; "
                       "name one with \"node\"", c->file, path, c->sc->cat->types[type].name);
    if (nt->gpu_type != type || nt->gpus < per)
        return fs_fail(c->err, FS_EDATA, "%s: %s.node: template \"%s\" holds %d x %s, not %d x %s", c->file,
                       path, nt->name, nt->gpus, c->sc->cat->types[nt->gpu_type].name, per,
                       c->sc->cat->types[type].name);
    if (failed >= nt->psu_count)
        return fs_fail(c->err, FS_EDATA, "%s: %s.psus_failed: %lld of the node's %d PSUs leaves none",
                       c->file, path, (long long)failed, nt->psu_count);
    out->node = nt;
    out->psus_ok = nt->psu_count - (int)failed;
    return 0;
}

static int load_fleet_group(struct ctx *c, const cJSON *g, const char *path, struct fleet_group *out,
                            struct fleet_power *power)
{
    static const char *const keys[] = {"gpu", "nodes", "gpus_per_node", "node", "power_cap_w",
                                       "psus_failed", NULL};
    const char *gpu = NULL;
    int64_t nodes = 0, per = 0;
    int rc;
    if (!cJSON_IsObject(g))
        return fs_fail(c->err, FS_EDATA, "%s: %s: expected an object", c->file, path);
    if ((rc = json_check_keys(g, keys, c->file, path, c->err)) ||
        (rc = json_string(g, "gpu", true, &gpu, c->file, path, c->err)) ||
        (rc = json_int(g, "nodes", true, 1, SCEN_MAX_NODES, &nodes, c->file, path, c->err)) ||
        (rc = json_int(g, "gpus_per_node", true, 1, CLUSTER_MAX_NODE_GPUS, &per, c->file, path, c->err)))
        return rc;
    int t = gpu_catalog_find(c->sc->cat, gpu);
    if (t < 0) {
        char p[64];
        snprintf(p, sizeof p, "%s.gpu", path);
        return scenario_unknown_gpu(c, p, gpu);
    }
    *out = (struct fleet_group){.type = t, .nodes = (int32_t)nodes, .gpus_per_node = (int32_t)per};
    return load_fleet_power(c, g, path, t, (int)per, power);
}

static int load_fleet(struct ctx *c, const cJSON *root)
{
    const cJSON *fleet = NULL;
    int rc = json_child(root, "fleet", true, cJSON_Array, &fleet, c->file, "$", c->err);
    if (rc)
        return rc;
    int n = cJSON_GetArraySize(fleet);
    if (n == 0)
        return fs_fail(c->err, FS_EDATA, "%s: $.fleet: the fleet is empty", c->file);
    c->sc->fleet = xcalloc((size_t)n, sizeof *c->sc->fleet);
    c->sc->fleet_power = xcalloc((size_t)n, sizeof *c->sc->fleet_power);
    int64_t nodes = 0;
    const cJSON *g;
    cJSON_ArrayForEach(g, fleet) {
        char path[48];
        snprintf(path, sizeof path, "$.fleet[%d]", c->sc->nfleet);
        if ((rc = load_fleet_group(c, g, path, &c->sc->fleet[c->sc->nfleet], &c->sc->fleet_power[c->sc->nfleet])))
            return rc;
        nodes += c->sc->fleet[c->sc->nfleet++].nodes;
    }
    if (nodes > SCEN_MAX_NODES)
        return fs_fail(c->err, FS_EDATA, "%s: $.fleet: %lld nodes in all; at most %d",
                       c->file, (long long)nodes, SCEN_MAX_NODES);
    return 0;
}

/* "reference_gpu" of a trace's workload block: the catalog type its work is
 * stated on, for formats whose trace names none.  OUT *ref: -1 when absent. */
static int load_reference_gpu(struct ctx *c, const cJSON *wl, const struct trace_reader *rd,
                              int32_t *ref)
{
    const char *name = NULL;
    int rc = json_string(wl, "reference_gpu", false, &name, c->file, "$.workload", c->err);
    *ref = -1;
    if (rc || !name)
        return rc;
    if (!rd->default_ref)
        return fs_fail(c->err, FS_EDATA, "%s: $.workload.reference_gpu: a %s trace names the "
                       "reference type on every row; remove this key", c->file, rd->name);
    if ((*ref = gpu_catalog_find(c->sc->cat, name)) < 0)
        return scenario_unknown_gpu(c, "$.workload.reference_gpu", name);
    return 0;
}

/* $.workload.job_types: {"gavel": FILE, "gpus": {WORKER: GPU, ...}}, the
 * throughput matrix (io/job_types.h) added to the throughput model. */
static int load_job_types(struct ctx *c, const cJSON *jt)
{
    static const char *const keys[] = {"gavel", "gpus", NULL};
    const char *p = "$.workload.job_types", *file = NULL, *workers[GPU_MAX_TYPES];
    const cJSON *gpus = NULL, *g;
    int32_t types[GPU_MAX_TYPES];
    int n = 0, rc;
    if ((rc = json_check_keys(jt, keys, c->file, p, c->err)) ||
        (rc = json_string(jt, "gavel", true, &file, c->file, p, c->err)) ||
        (rc = json_child(jt, "gpus", true, cJSON_Object, &gpus, c->file, p, c->err)))
        return rc;
    cJSON_ArrayForEach(g, gpus) {
        if (!cJSON_IsString(g) || n == GPU_MAX_TYPES)
            return fs_fail(c->err, FS_EDATA, "%s: %s.gpus.%s: want a catalog GPU name (at most %d)",
                           c->file, p, g->string, GPU_MAX_TYPES);
        if ((types[n] = gpu_catalog_find(c->sc->cat, g->valuestring)) < 0)
            return scenario_unknown_gpu(c, "$.workload.job_types.gpus", g->valuestring);
        workers[n++] = g->string;
    }
    int like = perf_workload_for_kind(c->sc->perf, "train");
    char *path = scenario_relative_to(c->file, file);
    rc = like < 0 ? fs_fail(c->err, FS_EDATA, "%s: %s: workloads.json has no train workload to "
                            "shape the job types on", c->file, p)
                  : job_types_load_gavel(path, workers, types, n, c->sc->perf, like, c->err);
    free(path);
    c->job_types = true;
    return rc;
}

static int load_workload(struct ctx *c, const cJSON *root)
{
    static const char *const keys[] = {"trace", "format", "reference_gpu", "generator", "job_types",
                                       "gpu_map", "keep_cpu_jobs", NULL};
    const cJSON *wl = NULL, *gen = NULL;
    const char *trace = NULL, *format = "native";
    int rc;
    if ((rc = json_child(root, "workload", true, cJSON_Object, &wl, c->file, "$", c->err)) ||
        (rc = json_check_keys(wl, keys, c->file, "$.workload", c->err)) ||
        (rc = json_child(wl, "generator", false, cJSON_Object, &gen, c->file, "$.workload", c->err)) ||
        (rc = json_string(wl, "trace", false, &trace, c->file, "$.workload", c->err)) ||
        (rc = json_string(wl, "format", false, &format, c->file, "$.workload", c->err)))
        return rc;
    if (!gen == !trace)
        return fs_fail(c->err, FS_EDATA, "%s: $.workload: give exactly one of \"trace\" and \"generator\"", c->file);
    if (gen && cJSON_GetObjectItemCaseSensitive(wl, "format"))
        return fs_fail(c->err, FS_EDATA, "%s: $.workload.format: only a trace has a format", c->file);
    if (gen && cJSON_GetObjectItemCaseSensitive(wl, "reference_gpu"))
        return fs_fail(c->err, FS_EDATA, "%s: $.workload.reference_gpu: only a trace takes it here; "
                       "a generator names its own ($.workload.generator.reference_gpu)", c->file);
    const cJSON *jt = cJSON_GetObjectItemCaseSensitive(wl, "job_types");
    if (jt && (rc = cJSON_IsObject(jt) ? load_job_types(c, jt)
                                       : fs_fail(c->err, FS_EDATA, "%s: $.workload.job_types: want an "
                                                 "object", c->file)))
        return rc;
    if (gen)
        return scenario_load_generator(c, gen);
    const struct trace_reader *rd = trace_reader_find(format);
    if (!rd) {
        char names[128];
        return fs_fail(c->err, FS_EDATA, "%s: $.workload.format: unknown trace format \"%s\" (%s)",
                       c->file, format, trace_reader_names(names, sizeof names));
    }
    struct reader_options ro = {.ref_type = -1};
    const char *gpu_map = NULL;
    const cJSON *keep = cJSON_GetObjectItemCaseSensitive(wl, "keep_cpu_jobs");
    if ((rc = load_reference_gpu(c, wl, rd, &ro.ref_type)) ||
        (rc = json_string(wl, "gpu_map", false, &gpu_map, c->file, "$.workload", c->err)))
        return rc;
    if (keep && !cJSON_IsBool(keep))
        return fs_fail(c->err, FS_EDATA, "%s: $.workload.keep_cpu_jobs: want true or false", c->file);
    ro.keep_cpu = cJSON_IsTrue(keep);
    if ((gpu_map || keep) && strcmp(rd->name, "sacct"))
        return fs_fail(c->err, FS_EDATA, "%s: $.workload: gpu_map and keep_cpu_jobs are for a "
                       "sacct trace, not %s", c->file, rd->name);
    if (rd->steps && !jt)
        return fs_fail(c->err, FS_EDATA, "%s: $.workload: a %s trace counts work in steps of each "
                       "job's type; give $.workload.job_types, the table of their throughputs",
                       c->file, rd->name);
    c->steps = rd->steps;
    c->sc->workload_source = scenario_relative_to(c->file, trace);
    char *map = gpu_map ? scenario_relative_to(c->file, gpu_map) : NULL;
    ro.gpu_map = map;
    rc = rd->read(c->sc->workload_source, &ro, c->sc->cat, &c->sc->wl, NULL, c->err);
    free(map);
    return rc;
}

static int load_output(struct ctx *c, const cJSON *root)
{
    static const char *const keys[] = {"timeseries_interval_s", NULL};
    const cJSON *o = NULL;
    double interval = 3600;
    int rc;
    if ((rc = json_child(root, "output", false, cJSON_Object, &o, c->file, "$", c->err)))
        return rc;
    if (o && ((rc = json_check_keys(o, keys, c->file, "$.output", c->err)) ||
              (rc = json_number(o, "timeseries_interval_s", false, 1, 1e9, &interval, c->file, "$.output", c->err))))
        return rc;
    c->sc->ts_interval = fs_from_seconds(interval);
    /* Only a given interval can exceed it: 100 years / 3600 s is 876,600. */
    if (c->sc->horizon != FS_TIME_MAX && c->sc->horizon / c->sc->ts_interval > SCENARIO_MAX_TS_ROWS)
        return fs_fail(c->err, FS_EDATA, "%s: $.output.timeseries_interval_s: %g s over the horizon "
                       "of %g s makes %lld rows, more than %d", c->file, interval,
                       fs_to_seconds(c->sc->horizon), (long long)(c->sc->horizon / c->sc->ts_interval),
                       SCENARIO_MAX_TS_ROWS);
    return 0;
}

static int load_header(struct ctx *c, const cJSON *root)
{
    static const char *const keys[] = {"name", "description", "seed", "horizon_s", "catalog",
                                       "fleet", "workload", "scheduler", "output", "pue", "cost", "kinds",
                                       "services", "faults", NULL};
    const char *name = NULL, *desc = NULL;
    int64_t seed = 1;
    double horizon = -1;
    int rc;
    if ((rc = json_check_keys(root, keys, c->file, "$", c->err)) ||
        (rc = json_string(root, "name", true, &name, c->file, "$", c->err)) ||
        (rc = json_string(root, "description", false, &desc, c->file, "$", c->err)) ||
        (rc = json_int(root, "seed", false, 0, (int64_t)FS_SEED_MAX, &seed, c->file, "$", c->err)) ||
        (rc = json_number(root, "horizon_s", false, 1, SCEN_MAX_SPAN_S, &horizon, c->file, "$", c->err)))
        return rc;
    c->sc->name = xstrdup(name);
    c->sc->seed = c->opt && c->opt->has_seed ? c->opt->seed : (uint64_t)seed;
    c->sc->horizon = horizon > 0 ? fs_from_seconds(horizon) : FS_TIME_MAX;
    return 0;
}

/* Each job's throughput profile: its kind's default, or with job types the
 * workload its team names, its work turned from steps into reference
 * GPU-seconds when the trace counts steps. */
static int assign_workloads(struct ctx *c)
{
    int by_kind[JOB_KIND_COUNT];
    for (int k = 0; k < JOB_KIND_COUNT; k++)
        if ((by_kind[k] = perf_workload_for_kind(c->sc->perf, job_kind_name((enum job_kind)k))) < 0)
            return fs_fail(c->err, FS_EDATA, "workloads.json beside %s: $.kinds: no workload for job kind \"%s\"",
                           c->sc->catalog_path, job_kind_name((enum job_kind)k));
    for (size_t i = 0; i < c->sc->wl.n; i++) {
        struct job *j = &c->sc->wl.jobs[i];
        j->workload = (int16_t)by_kind[j->kind];
        j->qos = (uint8_t)c->sc->kinds[j->kind].qos;
        if (!c->job_types)
            continue;
        const char *type = c->sc->wl.teams[j->team];
        if ((j->workload = (int16_t)perf_workload_find(c->sc->perf, type)) < 0)
            return fs_fail(c->err, FS_EDATA, "%s: job %lld: job type (team) \"%s\" is not in "
                           "$.workload.job_types", c->sc->workload_source, (long long)j->id, type);
        double per_s = c->sc->perf->w[j->workload].measured[j->ref_type];
        if (c->steps && !(per_s > 0))
            return fs_fail(c->err, FS_EDATA, "%s: job %lld: job type \"%s\" has no throughput on "
                           "its reference type %s to count its steps in", c->sc->workload_source,
                           (long long)j->id, type, c->sc->cat->types[j->ref_type].name);
        if (c->steps)
            j->work /= per_s;
    }
    return 0;
}

/* Training FLOPs per parameter per token: forward 2 + backward 4 for full
 * training (Kaplan et al. 2020, C ~ 6 N D); LoRA and QLoRA skip the weight
 * gradients of the frozen weights (forward 2 + activation gradients 2);
 * inference is the forward pass alone. */
static const double flops_per_param_token[] = {
    [JOB_METHOD_TRAIN] = 6, [JOB_METHOD_LORA] = 4, [JOB_METHOD_QLORA] = 4, [JOB_METHOD_INFER] = 2,
};

/* A job given as a model spec: its memory per GPU from models/memory (so
 * the scheduler's memory filter keeps it off GPUs too small for it), and,
 * when work_gpu_s is empty, its work from the tokens through the throughput
 * model: FLOPs at the workload's achievable tensor rate, divided by the
 * tensor share of its run time, on the model's reference GPU, then expressed
 * on the job's reference type. */
static int apply_spec(struct ctx *c, struct job *j)
{
    const struct perf_model *pm = c->sc->perf;
    const struct perf_workload *w = &pm->w[j->workload];
    struct job_spec *sp = workload_spec(&c->sc->wl, j);
    int method = sp->method ? sp->method
                 : j->kind == JOB_FINETUNE ? JOB_METHOD_LORA
                 : j->kind == JOB_INFER ? JOB_METHOD_INFER : JOB_METHOD_TRAIN;
    double params = sp->params_b * 1e9;
    sp->method = (uint8_t)method;
    double need = workload_mem_gb(sp, j->gpus);
    if (need > j->gpu_mem_gb)
        j->gpu_mem_gb = need;
    if (j->work > 0)
        return 0;
    if (!(w->share[PERF_TENSOR] > 0))
        return fs_fail(c->err, FS_EDATA, "%s: job %lld: workload %s has no compute share to turn tokens "
                       "into work; give work_gpu_s", c->sc->workload_source, (long long)j->id, w->name);
    double flops = flops_per_param_token[method] * params * sp->tokens;
    double on_ref = flops / perf_capacity(&c->sc->cat->types[pm->ref], PERF_TENSOR, w->precision) /
                    w->share[PERF_TENSOR];
    j->work = on_ref / perf_relative(pm, j->workload, j->ref_type, pm->ref);
    return 0;
}

static int apply_specs(struct ctx *c)
{
    int rc = 0;
    for (size_t i = 0; i < c->sc->wl.n && !rc; i++)
        if (c->sc->wl.jobs[i].spec)
            rc = apply_spec(c, &c->sc->wl.jobs[i]);
    return rc;
}

/* Every job submitted and run within SCEN_MAX_SPAN_S (its run time per GPU
 * on its reference type), so no simulated time comes near fs_time's end. */
static int check_spans(struct ctx *c)
{
    for (size_t i = 0; i < c->sc->wl.n; i++) {
        const struct job *j = &c->sc->wl.jobs[i];
        double submit = fs_to_seconds(j->submit), per_gpu = j->work / (j->gpus > 1 ? j->gpus : 1);
        if (submit > SCEN_MAX_SPAN_S)
            return fs_fail(c->err, FS_EDATA, "%s: job %lld is submitted at %.6g s, later than %s",
                           c->sc->workload_source, (long long)j->id, submit, SCEN_SPAN_TEXT);
        if (!(per_gpu <= SCEN_MAX_SPAN_S))
            return fs_fail(c->err, FS_EDATA, "%s: job %lld runs %.6g s per GPU on %s, longer than %s",
                           c->sc->workload_source, (long long)j->id, per_gpu,
                           c->sc->cat->types[j->ref_type].name, SCEN_SPAN_TEXT);
    }
    /* Without a horizon the run lasts at least to the last arrival. */
    fs_time last = c->sc->wl.n ? c->sc->wl.jobs[c->sc->wl.n - 1].submit : 0;
    if (c->sc->horizon == FS_TIME_MAX && last / c->sc->ts_interval > SCENARIO_MAX_TS_ROWS)
        return fs_fail(c->err, FS_EDATA, "%s: $.output.timeseries_interval_s: %g s up to the last arrival, "
                       "at %.6g s, makes %lld rows, more than %d; give a longer interval or a horizon_s",
                       c->file, fs_to_seconds(c->sc->ts_interval), fs_to_seconds(last),
                       (long long)(last / c->sc->ts_interval), SCENARIO_MAX_TS_ROWS);
    return 0;
}

/* Why job j can never run on cl, into buf. */
static void unfit_reason(const struct cluster *cl, const struct job *j, char *buf, size_t n)
{
    bool in_fleet = false;
    double max_mem = 0;
    int max_node = 0;
    for (int t = 0; t < cl->cat->n; t++) {
        if (!cl->types[t].max_gpus || (j->allowed && !(j->allowed >> t & 1)))
            continue;
        in_fleet = true;
        double mem = cl->cat->types[t].memory_gb;
        max_mem = mem > max_mem ? mem : max_mem;
        if (mem >= j->gpu_mem_gb && cl->types[t].max_gpus > max_node)
            max_node = cl->types[t].max_gpus;
    }
    if (!in_fleet)
        snprintf(buf, n, "none of its allowed GPU types is in the fleet");
    else if (!max_node)
        snprintf(buf, n, "it needs %g GB per GPU and the allowed GPUs in the fleet have at most %g GB",
                 j->gpu_mem_gb, max_mem);
    else
        snprintf(buf, n, "it needs %d GPUs, more than a node has (at most %d), and no allowed type "
                 "has enough whole nodes of a size that divides it", j->gpus, max_node);
}

/* A job no node of the fleet can ever host would wait forever: refuse it. */
static int check_fits(struct ctx *c)
{
    struct cluster *cl = cluster_new(c->sc->cat, c->sc->fleet, c->sc->nfleet);
    int rc = 0;
    for (size_t i = 0; i < c->sc->wl.n && !rc; i++) {
        const struct job *j = &c->sc->wl.jobs[i];
        char why[256];
        bool fits = sched_fits_fleet(cl, j);
        if (fits)
            continue;
        unfit_reason(cl, j, why, sizeof why);
        rc = fs_fail(c->err, FS_EDATA, "%s: job %lld can never run on this fleet: %s",
                     c->sc->workload_source, (long long)j->id, why);
    }
    cluster_free(cl);
    return rc;
}

/* FS_EINTERRUPTED once a signal was caught (base/signals.h), else 0. */
static int interrupted(struct fs_err *err)
{
    return fs_interrupted() ? fs_fail_interrupted(err) : 0;
}

int scenario_load_tree(const cJSON *root, const char *path, const struct scenario_options *opt,
                       struct scenario **out, struct fs_err *err)
{
    struct scenario *sc = xcalloc(1, sizeof *sc);
    struct ctx c = {.file = path, .sc = sc, .opt = opt, .err = err};
    sc->path = xstrdup(path);
    workload_init(&sc->wl);
    int rc = 0;
    if (!cJSON_IsObject(root))
        rc = fs_fail(err, FS_EDATA, "%s: top level must be an object", path);
    if (rc || (rc = load_header(&c, root)) || (rc = load_models(&c, root)) ||
        (rc = json_number(root, "pue", false, 1, 5, &sc->pue, path, "$", err)) ||
        (rc = load_fleet(&c, root)) || (rc = scenario_load_scheduler(&c, root)) ||
        (rc = load_output(&c, root)) || (rc = scenario_load_cost(root, path, sc, err)) ||
        (rc = scenario_load_kinds(root, path, sc, err)) ||
        (rc = load_workload(&c, root)) || (rc = interrupted(err)))
        goto err;
    workload_sort(&sc->wl);
    /* Each step is a pass over up to ten million jobs: look for a signal
     * between them. */
    if ((rc = interrupted(err)) || (rc = assign_workloads(&c)) || (rc = apply_specs(&c)) ||
        (rc = check_spans(&c)) || (rc = interrupted(err)) || (rc = check_fits(&c)) ||
        (rc = interrupted(err)) || (rc = scenario_load_services(root, path, sc, err)) ||
        (rc = scenario_load_faults(root, path, sc, err)))
        goto err;
    /* Elastic instances come and go with the work; failures of instances
     * nobody holds are not modelled (spot interruptions are). */
    if (sc->cost.hold != COST_HOLD_FIXED && (sc->faults || sc->maint_every > 0)) {
        rc = fs_fail(err, FS_EDATA, "%s: $.faults: node faults are not simulated with billing "
                     "cloud_elastic or cloud_spot", path);
        goto err;
    }
    if (sc->cost.hold != COST_HOLD_FIXED && !sc->prices) {
        rc = fs_fail(err, FS_EDATA, "%s: $.cost.billing: elastic and spot clouds need prices.json", path);
        goto err;
    }
    *out = sc;
    return 0;
err:
    scenario_free(sc);
    *out = NULL;
    return rc;
}

/* Apply "PATH=VALUE" to root.  RET: 0 or FS_EUSAGE with err filled. */
static int apply_set(cJSON *root, const char *file, const char *set, struct fs_err *err)
{
    const char *eq = strchr(set, '=');
    if (!eq || eq == set)
        return fs_fail(err, FS_EUSAGE, "%s: --set %s: expected PATH=VALUE, e.g. fleet[0].nodes=4", file, set);
    char *path = xstrdup(set);
    path[eq - set] = '\0';
    cJSON *value = cJSON_Parse(eq + 1);
    if (!value)
        value = cJSON_CreateString(eq + 1);
    struct jpath jp = {0};
    char why[384];
    const char *bad = jpath_parse(path, &jp);
    int rc = 0;
    if (bad)
        rc = fs_fail(err, FS_EUSAGE, "%s: --set %s: \"%s\" is not a key path (%s), e.g. fleet[0].nodes", file, set, path,
                     bad);
    else if (jpath_set(root, &jp, value, why, sizeof why))
        rc = fs_fail(err, FS_EUSAGE, "%s: --set %s: %s", file, set, why);
    jpath_free(&jp);
    cJSON_Delete(value);
    free(path);
    return rc;
}

int scenario_read(const char *path, const struct scenario_options *opt, cJSON **out, struct fs_err *err)
{
    int rc = json_load_file(path, out, err);
    for (int i = 0; rc == 0 && opt && i < opt->nsets; i++)
        rc = apply_set(*out, path, opt->sets[i], err);
    if (rc) {
        cJSON_Delete(*out);
        *out = NULL;
    }
    return rc;
}

int scenario_load(const char *path, const struct scenario_options *opt,
                  struct scenario **out, struct fs_err *err)
{
    cJSON *root = NULL;
    int rc = scenario_read(path, opt, &root, err);
    if (rc == 0)
        rc = scenario_load_tree(root, path, opt, out, err);
    else
        *out = NULL;
    cJSON_Delete(root);
    return rc;
}

void scenario_free(struct scenario *sc)
{
    if (!sc)
        return;
    workload_free(&sc->wl);
    service_specs_free(sc->services, sc->nservices);
    fault_model_free(sc->faults);
    perf_model_free(sc->perf);
    node_catalog_free(sc->nodes);
    power_model_free(sc->power);
    cost_prices_free(sc->prices);
    llm_model_free(sc->llm);
    gpu_catalog_free(sc->cat);
    free(sc->fleet);
    free(sc->fleet_power);
    free(sc->own_policy);
    free(sc->catalog_path);
    free(sc->workload_source);
    free(sc->name);
    free(sc->path);
    free(sc);
}
