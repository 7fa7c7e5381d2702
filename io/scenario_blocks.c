/* scenario_blocks.c - the scenario's optional blocks: $.cost (how the fleet
 * is paid for), $.kinds (what preemption costs each job kind, and its
 * class) and $.services (inference services and their replica slots).
 * scenarios/README.md documents the keys. */
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/json.h"
#include "scenario_int.h"

/* What every loader here reports against. */
struct blk {
    const char *file;
    struct scenario *sc;
    struct fs_err *err;
};

/* A string from names[n], by index; absent leaves *out unchanged. */
static int load_enum(struct blk *c, const cJSON *o, const char *key, const char *const *names,
                     int n, int *out)
{
    const char *v = NULL;
    int rc = json_string(o, key, false, &v, c->file, "$.cost", c->err);
    if (rc || !v)
        return rc;
    for (int i = 0; i < n; i++)
        if (strcmp(v, names[i]) == 0) {
            *out = i;
            return 0;
        }
    char list[128] = "";
    for (int i = 0; i < n; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", names[i]);
    return fs_fail(c->err, FS_EDATA, "%s: $.cost.%s: \"%s\" is not one of %s", c->file, key, v, list);
}

/* $.cost.billing: a cost_billing_names entry, or "cloud_elastic" or
 * "cloud_spot" (cloud billing, instances held only while needed). */
static int load_billing(struct blk *c, const cJSON *o, int *billing, enum cost_hold *hold)
{
    static const char *const names[] = {"owned", "leased", "cloud", "cloud_elastic", "cloud_spot"};
    int b = *billing;
    int rc = load_enum(c, o, "billing", names, 5, &b);
    *billing = b > COST_CLOUD ? COST_CLOUD : b;
    *hold = b == 3 ? COST_HOLD_ELASTIC : b == 4 ? COST_HOLD_SPOT : COST_HOLD_FIXED;
    return rc;
}

/* $.cost.elastic: overrides of prices.json's elastic terms. */
static int load_elastic(struct blk *c, const cJSON *o, struct scenario_cost *cost)
{
    static const char *const keys[] = {"provision_s", "billing_increment_s", "billing_minimum_s",
                                       "scale_down_s", "spot_interrupted_share_month", NULL};
    const cJSON *e = NULL;
    int rc = 0;
    double *out[] = {&cost->provision_s, &cost->increment_s, &cost->minimum_s, &cost->scale_down_s,
                     &cost->spot_share_month};
    const double lo[] = {0, 1, 0, 0, 0}, hi[] = {86400, 86400, 86400, 86400, 0.99};
    for (int k = 0; k < 5; k++)
        *out[k] = -1;
    if (!o || (rc = json_child(o, "elastic", false, cJSON_Object, &e, c->file, "$.cost", c->err)) || !e)
        return rc;
    if ((rc = json_check_keys(e, keys, c->file, "$.cost.elastic", c->err)))
        return rc;
    for (int k = 0; k < 5; k++)
        if ((rc = json_number(e, keys[k], false, lo[k], hi[k], out[k], c->file, "$.cost.elastic", c->err)))
            return rc;
    if (cost->hold == COST_HOLD_FIXED)
        return fs_fail(c->err, FS_EDATA, "%s: $.cost.elastic: applies to billing cloud_elastic or "
                       "cloud_spot only", c->file);
    return 0;
}

int scenario_load_cost(const cJSON *root, const char *file, struct scenario *sc, struct fs_err *err)
{
    struct blk b = {file, sc, err}, *c = &b;
    static const char *const keys[] = {"billing", "commit", "idle", "forecast_months", "elastic", NULL};
    const cJSON *o = NULL;
    int billing = COST_OWNED, commit = COST_ON_DEMAND, idle = COST_IDLE_PROPORTIONAL;
    int64_t months = 6;
    struct scenario_cost *cost = &c->sc->cost;
    int rc;
    *cost = (struct scenario_cost){.hold = COST_HOLD_FIXED};
    if ((rc = json_child(root, "cost", false, cJSON_Object, &o, c->file, "$", c->err)))
        return rc;
    if (o && ((rc = json_check_keys(o, keys, c->file, "$.cost", c->err)) ||
              (rc = load_billing(c, o, &billing, &cost->hold)) ||
              (rc = load_enum(c, o, "commit", cost_commit_names, 3, &commit)) ||
              (rc = load_enum(c, o, "idle", cost_idle_names, 2, &idle)) ||
              (rc = json_int(o, "forecast_months", false, 0, 120, &months, c->file, "$.cost", c->err))))
        return rc;
    if ((rc = load_elastic(c, o, cost)))
        return rc;
    if (commit != COST_ON_DEMAND && (billing != COST_CLOUD || cost->hold != COST_HOLD_FIXED))
        return fs_fail(c->err, FS_EDATA, "%s: $.cost.commit: a commitment applies to cloud billing only, "
                       "not %s", c->file, cost->hold != COST_HOLD_FIXED ? "elastic or spot" : cost_billing_names[billing]);
    cost->billing = (enum cost_billing)billing;
    cost->commit = (enum cost_commit)commit;
    cost->idle = (enum cost_idle_rule)idle;
    cost->forecast_months = (int)months;
    return 0;
}

/* Defaults (assumptions, stated in scenarios/README.md): training saves a
 * checkpoint every 30 min and reloads in 5 min; fine-tuning every 10 min,
 * 2 min; batch inference works in 1-min units and reloads its model in
 * 1 min; batch jobs keep no state, restart in 30 s and are best effort. */
static const struct kind_terms kind_defaults[JOB_KIND_COUNT] = {
    [JOB_TRAIN] = {1800, 300, JOB_STANDARD},
    [JOB_FINETUNE] = {600, 120, JOB_STANDARD},
    [JOB_INFER] = {60, 60, JOB_STANDARD},
    [JOB_BATCH] = {0, 30, JOB_BEST_EFFORT},
};

int scenario_load_kinds(const cJSON *root, const char *file, struct scenario *sc, struct fs_err *err)
{
    struct blk b = {file, sc, err}, *c = &b;
    static const char *const kinds[] = {"train", "finetune", "infer", "batch", NULL};
    static const char *const keys[] = {"checkpoint_s", "restart_s", "class", NULL};
    const cJSON *o = NULL;
    int rc;
    memcpy(c->sc->kinds, kind_defaults, sizeof kind_defaults);
    if ((rc = json_child(root, "kinds", false, cJSON_Object, &o, c->file, "$", c->err)) || !o ||
        (rc = json_check_keys(o, kinds, c->file, "$.kinds", c->err)))
        return rc;
    for (int k = 0; k < JOB_KIND_COUNT; k++) {
        const cJSON *e = NULL;
        char path[64];
        snprintf(path, sizeof path, "$.kinds.%s", kinds[k]);
        struct kind_terms *t = &c->sc->kinds[k];
        const char *cls = NULL;
        if ((rc = json_child(o, kinds[k], false, cJSON_Object, &e, c->file, "$.kinds", c->err)))
            return rc;
        if (!e)
            continue;
        if ((rc = json_check_keys(e, keys, c->file, path, c->err)) ||
            (rc = json_number(e, "checkpoint_s", false, 0, 1e9, &t->checkpoint_s, c->file, path, c->err)) ||
            (rc = json_number(e, "restart_s", false, 0, 1e9, &t->restart_s, c->file, path, c->err)) ||
            (rc = json_string(e, "class", false, &cls, c->file, path, c->err)))
            return rc;
        if (cls && job_class_parse(cls) < 0)
            return fs_fail(c->err, FS_EDATA, "%s: %s.class: \"%s\" is not one of best-effort, standard, "
                           "latency", c->file, path, cls);
        if (cls)
            t->qos = (enum job_class)job_class_parse(cls);
    }
    return rc;
}


/* The replica GPUs of service sp in this fleet: the largest count any
 * allowed type present needs; OUT *allowed: the types that can host one
 * replica in at most that many GPUs. */
static int replica_shape(const struct scenario *sc, const struct service_spec *sp, uint64_t *allowed)
{
    int gpus = 0;
    bool present[GPU_MAX_TYPES] = {false};
    for (int g = 0; g < sc->nfleet; g++)
        if (sc->fleet[g].gpus_per_node >= 1)
            present[sc->fleet[g].type] = true;
    for (int t = 0; t < sc->cat->n; t++) {
        int need = present[t] && service_allows(sp, t) ? service_replica_gpus(sp, &sc->cat->types[t]) : 0;
        int biggest = 0;
        for (int g = 0; g < sc->nfleet; g++)
            if (sc->fleet[g].type == t && sc->fleet[g].gpus_per_node > biggest)
                biggest = sc->fleet[g].gpus_per_node;
        if (need > 0 && need <= biggest && need > gpus)
            gpus = need;
    }
    *allowed = 0;
    for (int t = 0; t < sc->cat->n && gpus > 0; t++) {
        int need = present[t] && service_allows(sp, t) ? service_replica_gpus(sp, &sc->cat->types[t]) : 0;
        if (need > 0 && need <= gpus)
            *allowed |= 1ULL << t;
    }
    return gpus;
}

/* A step of width step (an autoscaler tick, a demand step or bin) over
 * the horizon: at most SCENARIO_MAX_STEPS of them.  RET: 0 or FS_EDATA. */
static int check_steps(const char *file, int k, const char *key, fs_time step, fs_time horizon,
                       struct fs_err *err)
{
    if (step > 0 && horizon / step <= SCENARIO_MAX_STEPS)
        return 0;
    return fs_fail(err, FS_EDATA, "%s: $.services[%d].%s: %g s over the horizon of %g s makes %lld steps, "
                   "more than %d", file, k, key, fs_to_seconds(step), fs_to_seconds(horizon),
                   (long long)(step > 0 ? horizon / step : 0), SCENARIO_MAX_STEPS);
}

int scenario_load_services(const cJSON *root, const char *file, struct scenario *sc, struct fs_err *err)
{
    const cJSON *arr = NULL;
    int rc = json_child(root, "services", false, cJSON_Array, &arr, file, "$", err);
    sc->nbatch = sc->wl.n;
    if (rc || !arr)
        return rc;
    char *copy = xstrdup(file);
    rc = service_specs_load(arr, file, sc->cat, dirname(copy), &sc->services, &sc->nservices, err);
    free(copy);
    if (rc)
        return rc;
    if (sc->nservices > 0 && sc->horizon == FS_TIME_MAX)
        return fs_fail(err, FS_EDATA, "%s: $.services: a scenario with services needs horizon_s "
                       "(services run until the end of the run)", file);
    int infer = perf_workload_for_kind(sc->perf, "infer");
    for (int k = 0; k < sc->nservices; k++) {
        const struct service_spec *sp = &sc->services[k];
        const struct service_demand *d = &sp->demand;
        if ((rc = check_steps(file, k, "autoscaler.tick_s", sp->as.tick, sc->horizon, err)) ||
            (d->kind == SERVICE_DIURNAL && (rc = check_steps(file, k, "demand.diurnal.step_s", d->step,
                                                             sc->horizon, err))) ||
            (d->kind == SERVICE_TRACE && d->repeat &&
             (rc = check_steps(file, k, "demand.bin_s", d->bin, sc->horizon, err))))
            return rc;
        uint64_t allowed;
        int gpus = replica_shape(sc, sp, &allowed);
        if (gpus == 0)
            return fs_fail(err, FS_EDATA, "%s: $.services[%d]: no GPU type of the fleet it may use holds "
                           "a replica of a %.3g B-parameter model on one node", file, k, sp->params / 1e9);
        int team = workload_team(&sc->wl, sp->team);
        if (team < 0)
            return fs_fail(err, FS_EDATA, "%s: $.services[%d].team: too many teams", file, k);
        for (int r = 0; r < sp->as.max_replicas; r++) {
            struct job j = {
                .id = -((int64_t)k * 100000 + r + 1), .submit = -1, .kind = JOB_INFER,
                .state = JOB_FUTURE, .team = (uint16_t)team, .gpus = gpus, .milli = GPU_MILLI,
                .allowed = allowed, .ref_type = (int16_t)__builtin_ctzll(allowed), .workload = (int16_t)infer,
                .work = INFINITY, .qos = sp->priority == SERVICE_LATENCY ? JOB_LATENCY : JOB_STANDARD,
                .svc = (uint16_t)(k + 1),
            };
            job_reset_placement(&j);
            workload_add(&sc->wl, &j);
        }
    }
    return 0;
}

int scenario_load_faults(const cJSON *root, const char *file, struct scenario *sc, struct fs_err *err)
{
    static const char *const keys[] = {"model", "scale", "shape", "maintenance", NULL};
    static const char *const mkeys[] = {"every_s", "duration_s", "nodes", NULL};
    const cJSON *o = NULL, *mt = NULL;
    double every = 0, duration = 0;
    int64_t nodes = 1;
    const char *model = NULL;
    sc->fault_scale = 1;
    sc->fault_shape = 1;
    int rc = json_child(root, "faults", false, cJSON_Object, &o, file, "$", err);
    if (rc || !o)
        return rc;
    if ((rc = json_check_keys(o, keys, file, "$.faults", err)) ||
        (rc = json_string(o, "model", false, &model, file, "$.faults", err)) ||
        (rc = json_number(o, "scale", false, 0, 1e6, &sc->fault_scale, file, "$.faults", err)) ||
        (rc = json_number(o, "shape", false, 0.1, 10, &sc->fault_shape, file, "$.faults", err)) ||
        (rc = json_child(o, "maintenance", false, cJSON_Object, &mt, file, "$.faults", err)))
        return rc;
    if (mt && ((rc = json_check_keys(mt, mkeys, file, "$.faults.maintenance", err)) ||
               (rc = json_number(mt, "every_s", true, 60, 3.2e9, &every, file, "$.faults.maintenance", err)) ||
               (rc = json_number(mt, "duration_s", true, 1, 3.2e9, &duration, file, "$.faults.maintenance", err)) ||
               (rc = json_int(mt, "nodes", false, 1, 1000000, &nodes, file, "$.faults.maintenance", err))))
        return rc;
    sc->maint_every = fs_from_seconds(every);
    sc->maint_duration = fs_from_seconds(duration);
    sc->maint_nodes = (int)nodes;
    if (sc->horizon == FS_TIME_MAX)
        return fs_fail(err, FS_EDATA, "%s: $.faults: a scenario with faults needs horizon_s (nodes "
                       "keep failing as long as the run goes on)", file);
    if (mt && sc->horizon / sc->maint_every > SCENARIO_MAX_STEPS)
        return fs_fail(err, FS_EDATA, "%s: $.faults.maintenance.every_s: %g s over the horizon of %g s makes "
                       "%lld maintenance windows, more than %d", file, every, fs_to_seconds(sc->horizon),
                       (long long)(sc->horizon / sc->maint_every), SCENARIO_MAX_STEPS);
    char path[4096], *copy = xstrdup(model ? file : sc->catalog_path);
    if (model && model[0] == '/')
        snprintf(path, sizeof path, "%s", model);
    else
        snprintf(path, sizeof path, "%s/%s", dirname(copy), model ? model : "faults.json");
    free(copy);
    return fault_model_load(path, &sc->faults, err);
}
