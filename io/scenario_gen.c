/* scenario_gen.c - $.workload.generator of a scenario: the independent
 * draws, or job classes (scenarios/README.md, "generator"). */
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/json.h"
#include "../models/llm.h"
#include "../sched/sched.h"
#include "scenario_int.h"

#define GEN_PATH "$.workload.generator"

/* A JSON object of name -> weight into parallel arrays; RET 0 or FS_EDATA. */
static int load_weights(struct ctx *c, const char *file, const cJSON *obj, const char *path,
                        const char **names, double *weights, int *n)
{
    const cJSON *w;
    double sum = 0;
    *n = 0;
    cJSON_ArrayForEach(w, obj) {
        if (*n == GEN_MAX_CHOICES)
            return fs_fail(c->err, FS_EDATA, "%s: %s: at most %d entries", file, path, GEN_MAX_CHOICES);
        if (!cJSON_IsNumber(w) || !(w->valuedouble >= 0) || w->valuedouble > 1e9)
            return fs_fail(c->err, FS_EDATA, "%s: %s.%s: weight must be a number >= 0", file, path, w->string);
        for (int k = 0; k < *n; k++)
            if (strcmp(names[k], w->string) == 0)
                return fs_fail(c->err, FS_EDATA, "%s: %s: duplicate key \"%s\"", file, path, w->string);
        names[*n] = w->string;
        weights[(*n)++] = w->valuedouble;
        sum += w->valuedouble;
    }
    if (!(sum > 0))
        return fs_fail(c->err, FS_EDATA, "%s: %s: needs at least one positive weight", file, path);
    return 0;
}

/* obj.gpus (count -> weight) into counts, weights, *n. */
static int load_counts(struct ctx *c, const char *file, const cJSON *obj, const char *path,
                       int32_t *counts, double *weights, int *n)
{
    const char *names[GEN_MAX_CHOICES];
    char at[160];
    const cJSON *gpus = NULL;
    snprintf(at, sizeof at, "%s.gpus", path);
    int rc = json_child(obj, "gpus", true, cJSON_Object, &gpus, file, path, c->err);
    if (!rc)
        rc = load_weights(c, file, gpus, at, names, weights, n);
    for (int k = 0; !rc && k < *n; k++) {
        char *end;
        long v = strtol(names[k], &end, 10);
        if (*end || end == names[k] || v < 1 || v > 100000)
            return fs_fail(c->err, FS_EDATA, "%s: %s: key \"%s\" is not a GPU count (1..100000)",
                           file, at, names[k]);
        counts[k] = (int32_t)v;
        for (int i = 0; i < k; i++)
            if (counts[i] == v)
                return fs_fail(c->err, FS_EDATA, "%s: %s: GPU count %ld given twice", file, at, v);
    }
    return rc;
}

/* The independent draws: gpus, kinds and one duration distribution. */
static int load_draws(struct ctx *c, const cJSON *gen, struct gen_spec *g)
{
    const char *names[GEN_MAX_CHOICES], *p = GEN_PATH;
    double weights[GEN_MAX_CHOICES];
    const cJSON *obj = NULL;
    int n, rc;
    if ((rc = json_number(gen, "duration_median_s", true, 1, 1e9, &g->duration_median_s, c->file, p, c->err)) ||
        (rc = json_number(gen, "duration_sigma", true, 0, 10, &g->duration_sigma, c->file, p, c->err)) ||
        (rc = json_number(gen, "duration_max_s", false, 1, SCEN_MAX_SPAN_S, &g->duration_max_s, c->file, p,
                          c->err)) ||
        (rc = load_counts(c, c->file, gen, p, g->gpu_counts, g->gpu_weights, &g->ncounts)) ||
        (rc = json_child(gen, "kinds", true, cJSON_Object, &obj, c->file, p, c->err)) ||
        (rc = load_weights(c, c->file, obj, GEN_PATH ".kinds", names, weights, &n)))
        return rc;
    for (int k = 0; k < n; k++) {
        int kind = job_kind_parse(names[k]);
        if (kind < 0)
            return fs_fail(c->err, FS_EDATA, "%s: %s.kinds: unknown job kind \"%s\" "
                           "(train, finetune, infer, batch)", c->file, p, names[k]);
        g->kind_weights[kind] = weights[k];
    }
    if (g->duration_max_s == 0) /* no cap given: still no run time past the limit */
        g->duration_max_s = SCEN_MAX_SPAN_S;
    return 0;
}

static int load_teams(struct ctx *c, const cJSON *gen, struct gen_spec *g)
{
    const char *names[GEN_MAX_CHOICES], *p = GEN_PATH;
    const cJSON *obj = NULL;
    int rc;
    if ((rc = json_child(gen, "teams", true, cJSON_Object, &obj, c->file, p, c->err)) ||
        (rc = load_weights(c, c->file, obj, GEN_PATH ".teams", names, g->team_weights, &g->nteams)))
        return rc;
    for (int k = 0; k < g->nteams; k++) {
        if (strlen(names[k]) >= WORKLOAD_TEAM_MAX || strchr(names[k], ',') || !names[k][0])
            return fs_fail(c->err, FS_EDATA, "%s: %s.teams: team name \"%s\" must be 1-%d characters, no comma",
                           c->file, p, names[k], WORKLOAD_TEAM_MAX - 1);
        strcpy(g->team_names[k], names[k]);
    }
    return 0;
}

/* A name of 1..31 characters without a comma (it goes into jobs.csv). */
static int load_name(struct ctx *c, const char *file, const cJSON *o, const char *key, const char *path,
                     char out[WORKLOAD_TEAM_MAX])
{
    const char *s = NULL;
    int rc = json_string(o, key, true, &s, file, path, c->err);
    if (rc)
        return rc;
    if (!s[0] || strlen(s) >= WORKLOAD_TEAM_MAX || strchr(s, ','))
        return fs_fail(c->err, FS_EDATA, "%s: %s.%s: \"%s\" must be 1-%d characters, no comma", file, path,
                       key, s, WORKLOAD_TEAM_MAX - 1);
    strcpy(out, s);
    return 0;
}

/* A class's "model": {"name", "params_b", "precision", "layers", "hidden"}. */
static int load_model(struct ctx *c, const char *file, const cJSON *cls, const char *path,
                      struct gen_class *k)
{
    static const char *const keys[] = {"name", "params_b", "precision", "layers", "hidden", NULL};
    const cJSON *m = NULL;
    const char *prec = "bf16";
    char at[160];
    int64_t layers = 0, hidden = 0;
    snprintf(at, sizeof at, "%s.model", path);
    int rc;
    if ((rc = json_child(cls, "model", true, cJSON_Object, &m, file, path, c->err)) ||
        (rc = json_check_keys(m, keys, file, at, c->err)) || (rc = load_name(c, file, m, "name", at, k->model)) ||
        (rc = json_number(m, "params_b", true, 1e-3, 1e5, &k->params_b, file, at, c->err)) ||
        (rc = json_string(m, "precision", false, &prec, file, at, c->err)) ||
        (rc = json_int(m, "layers", false, 1, 65535, &layers, file, at, c->err)) ||
        (rc = json_int(m, "hidden", false, 1, 65535, &hidden, file, at, c->err)))
        return rc;
    k->layers = (int)layers;
    k->hidden = (int)hidden;
    for (k->precision = 0; k->precision < LLM_PRECISIONS; k->precision++)
        if (strcmp(prec, llm_precision_names[k->precision]) == 0)
            return 0;
    return fs_fail(c->err, FS_EDATA, "%s: %s.precision: unknown precision \"%s\" (fp16, bf16, fp8, int8, int4)",
                   file, at, prec);
}

static int load_allowed(struct ctx *c, const char *file, const cJSON *cls, const char *path, uint64_t *allowed)
{
    const cJSON *arr = NULL, *t;
    int rc = json_child(cls, "gpu_types", false, cJSON_Array, &arr, file, path, c->err);
    *allowed = 0;
    cJSON_ArrayForEach(t, arr) {
        int type = cJSON_IsString(t) ? gpu_catalog_find(c->sc->cat, t->valuestring) : -1;
        if (type < 0 && !cJSON_IsString(t))
            return fs_fail(c->err, FS_EDATA, "%s: %s.gpu_types: want GPU type names", file, path);
        if (type < 0)
            return scenario_unknown_gpu(c, path, t->valuestring);
        *allowed |= 1ULL << type;
    }
    return rc;
}

static int load_class(struct ctx *c, const char *file, const cJSON *cls, const char *path,
                      struct gen_class *k)
{
    static const char *const keys[] = {"name", "kind", "weight", "model", "gpus", "duration", "gpu_types",
                                       "source", NULL};
    static const char *const dkeys[] = {"median_s", "sigma", "max_s", NULL};
    const cJSON *d = NULL;
    const char *kind = NULL;
    char at[160];
    snprintf(at, sizeof at, "%s.duration", path);
    int rc;
    if (!cJSON_IsObject(cls))
        return fs_fail(c->err, FS_EDATA, "%s: %s: want an object", file, path);
    if ((rc = json_check_keys(cls, keys, file, path, c->err)) || (rc = load_name(c, file, cls, "name", path, k->name)) ||
        (rc = json_string(cls, "kind", true, &kind, file, path, c->err)) ||
        (rc = json_number(cls, "weight", true, 0, 1e9, &k->weight, file, path, c->err)) ||
        (rc = load_model(c, file, cls, path, k)) ||
        (rc = load_counts(c, file, cls, path, k->gpu_counts, k->gpu_weights, &k->ncounts)) ||
        (rc = json_child(cls, "duration", true, cJSON_Object, &d, file, path, c->err)) ||
        (rc = json_check_keys(d, dkeys, file, at, c->err)) ||
        (rc = json_number(d, "median_s", true, 1, 1e9, &k->duration_median_s, file, at, c->err)) ||
        (rc = json_number(d, "sigma", true, 0, 10, &k->duration_sigma, file, at, c->err)) ||
        (rc = json_number(d, "max_s", false, 1, SCEN_MAX_SPAN_S, &k->duration_max_s, file, at, c->err)) ||
        (rc = load_allowed(c, file, cls, path, &k->allowed)))
        return rc;
    if (k->duration_max_s == 0)
        k->duration_max_s = SCEN_MAX_SPAN_S;
    for (k->kind = 0; k->kind < GEN_CLASS_KINDS; k->kind++)
        if (strcmp(kind, gen_class_kind_names[k->kind]) == 0)
            return 0;
    return fs_fail(c->err, FS_EDATA, "%s: %s.kind: unknown class kind \"%s\" (train, finetune-full, lora, "
                   "qlora, infer-batch, service)", file, path, kind);
}

/* Every GPU count a class may draw must fit some allowed type of the fleet
 * (memory per GPU by the one rule, and node sizes): a job that could never
 * run would wait forever. */
static int check_class_fits(struct ctx *c, const char *file, const char *path, const struct gen_class *k,
                            const struct cluster *cl)
{
    for (int i = 0; i < k->ncounts; i++) {
        if (!(k->gpu_weights[i] > 0))
            continue;
        struct job j = {0};
        struct job_spec sp = gen_class_spec(k, 0);
        gen_class_job(k, k->gpu_counts[i], &sp, &j);
        if (!sched_fits_fleet(cl, &j))
            return fs_fail(c->err, FS_EDATA, "%s: %s.gpus: a %s job of %d GPUs on %s (%g B, %s) needs %.1f GB "
                           "per GPU and no allowed GPU type in the fleet can hold it (memory, or whole nodes "
                           "for a count above a node)", file, path, k->name, j.gpus, k->model, k->params_b * 1e9,
                           llm_precision_names[k->precision], j.gpu_mem_gb);
    }
    return 0;
}

/* The classes of list (an array; file and at name its place) into g; each
 * checked against cluster cl when cl is not NULL. */
static int load_class_list(struct ctx *c, const char *file, const char *at, const cJSON *list,
                           const struct cluster *cl, struct gen_spec *g)
{
    int rc = 0;
    if (cJSON_GetArraySize(list) < 1 || cJSON_GetArraySize(list) > GEN_MAX_CLASSES)
        return fs_fail(c->err, FS_EDATA, "%s: %s: 1 to %d classes", file, at, GEN_MAX_CLASSES);
    double sum = 0;
    const cJSON *cls;
    cJSON_ArrayForEach(cls, list) {
        char p[96];
        snprintf(p, sizeof p, "%s[%d]", at, g->nclasses);
        struct gen_class *k = &g->classes[g->nclasses];
        if ((rc = load_class(c, file, cls, p, k)) || (cl && (rc = check_class_fits(c, file, p, k, cl))))
            return rc;
        for (int i = 0; i < g->nclasses; i++)
            if (strcmp(g->classes[i].name, k->name) == 0)
                return fs_fail(c->err, FS_EDATA, "%s: %s.name: class \"%s\" given twice", file, p, k->name);
        sum += k->weight;
        g->nclasses++;
    }
    if (!(sum > 0))
        return fs_fail(c->err, FS_EDATA, "%s: %s: needs a class of positive weight", file, at);
    return 0;
}

/* A class file, {"classes": [...]}, into g (see load_class_list). */
static int load_class_file(struct ctx *c, const char *path, const struct cluster *cl, struct gen_spec *g)
{
    cJSON *root = NULL;
    const cJSON *list = NULL;
    int rc = json_load_file(path, &root, c->err);
    if (!rc && !(rc = json_child(root, "classes", true, cJSON_Array, &list, path, "$", c->err)))
        rc = load_class_list(c, path, "$.classes", list, cl, g);
    cJSON_Delete(root);
    return rc;
}

/* "default"'s file: job_classes.json beside the catalog; the caller frees it. */
static char *default_classes(const char *catalog_path)
{
    char *dir = xstrdup(catalog_path);
    size_t n = strlen(dir) + 32;
    char *path = xmalloc(n);
    snprintf(path, n, "%s/job_classes.json", dirname(dir));
    free(dir);
    return path;
}

/* $.workload.generator.classes: an array, a file holding {"classes":
 * [...]} (relative to the scenario), or "default": job_classes.json beside
 * the catalog. */
static int load_classes(struct ctx *c, const cJSON *v, struct gen_spec *g)
{
    const char *at = GEN_PATH ".classes";
    if (!cJSON_IsString(v) && !cJSON_IsArray(v))
        return fs_fail(c->err, FS_EDATA, "%s: %s: want an array of classes, a file name or \"default\"",
                       c->file, at);
    struct cluster *cl = cluster_new(c->sc->cat, c->sc->fleet, c->sc->nfleet);
    int rc;
    if (cJSON_IsString(v)) {
        char *path = strcmp(v->valuestring, "default") == 0 ? default_classes(c->sc->catalog_path)
                                                             : scenario_relative_to(c->file, v->valuestring);
        rc = load_class_file(c, path, cl, g);
        free(path);
    } else
        rc = load_class_list(c, c->file, at, v, cl, g);
    cluster_free(cl);
    return rc;
}

int gen_classes_load(const char *arg, const struct gpu_catalog *cat, const char *catalog_path,
                     struct gen_spec *g, struct fs_err *err)
{
    struct scenario sc = {.cat = (struct gpu_catalog *)cat};
    struct ctx c = {.sc = &sc, .err = err};
    char *path = strcmp(arg, "default") == 0 ? default_classes(catalog_path) : xstrdup(arg);
    c.file = path;
    int rc = load_class_file(&c, path, NULL, g);
    free(path);
    return rc;
}

static int load_diurnal(struct ctx *c, const cJSON *gen, struct gen_spec *g)
{
    static const char *const keys[] = {"amplitude", "peak_hour", NULL};
    const char *p = GEN_PATH ".diurnal";
    const cJSON *d = NULL;
    int rc = json_child(gen, "diurnal", false, cJSON_Object, &d, c->file, GEN_PATH, c->err);
    if (rc || !d)
        return rc;
    g->diurnal_peak_h = 14;
    if ((rc = json_check_keys(d, keys, c->file, p, c->err)) ||
        (rc = json_number(d, "amplitude", true, 0, 1, &g->diurnal_amplitude, c->file, p, c->err)) ||
        (rc = json_number(d, "peak_hour", false, 0, 23.999999, &g->diurnal_peak_h, c->file, p, c->err)))
        return rc;
    return 0;
}

int scenario_load_generator(struct ctx *c, const cJSON *gen)
{
    static const char *const keys[] = {"jobs", "arrivals_per_hour", "diurnal", "classes", "duration_median_s",
                                       "duration_sigma", "duration_max_s", "gpus", "kinds", "teams",
                                       "reference_gpu", NULL};
    static const char *const draws[] = {"duration_median_s", "duration_sigma", "duration_max_s", "gpus",
                                        "kinds", NULL};
    const char *p = GEN_PATH, *ref = NULL;
    const cJSON *classes = cJSON_GetObjectItemCaseSensitive(gen, "classes");
    struct gen_spec *g = xcalloc(1, sizeof *g);
    int rc;
    for (int i = 0; classes && draws[i]; i++)
        if (cJSON_GetObjectItemCaseSensitive(gen, draws[i])) {
            rc = fs_fail(c->err, FS_EDATA, "%s: %s.%s: job classes carry their own GPU counts, kinds and "
                         "durations; remove this key", c->file, p, draws[i]);
            goto done;
        }
    if ((rc = json_check_keys(gen, keys, c->file, p, c->err)) ||
        (rc = json_int(gen, "jobs", true, 1, SCEN_MAX_GEN_JOBS, &g->jobs, c->file, p, c->err)) ||
        (rc = json_number(gen, "arrivals_per_hour", true, 1e-6, 1e9, &g->arrivals_per_hour, c->file, p, c->err)) ||
        (rc = load_diurnal(c, gen, g)) ||
        (rc = json_string(gen, "reference_gpu", true, &ref, c->file, p, c->err)) ||
        (rc = classes ? load_classes(c, classes, g) : load_draws(c, gen, g)) || (rc = load_teams(c, gen, g)))
        goto done;
    if ((g->ref_type = gpu_catalog_find(c->sc->cat, ref)) < 0) {
        rc = scenario_unknown_gpu(c, GEN_PATH ".reference_gpu", ref);
        goto done;
    }
    /* Arrivals come on average 3600 / rate s apart; exceeding the span by
     * the ~2900 times that would reach fs_time's end is impossible in
     * practice. */
    double span = (double)g->jobs * 3600 / g->arrivals_per_hour;
    if (span > SCEN_MAX_SPAN_S) {
        rc = fs_fail(c->err, FS_EDATA, "%s: %s.arrivals_per_hour: %lld jobs at %g an hour arrive "
                     "over %.3g s on average, more than %s", c->file, p, (long long)g->jobs,
                     g->arrivals_per_hour, span, SCEN_SPAN_TEXT);
        goto done;
    }
    workload_generate(g, c->sc->seed, &c->sc->wl);
    size_t n = strlen(c->file) + strlen(p) + 3;
    c->sc->workload_source = xmalloc(n);
    snprintf(c->sc->workload_source, n, "%s: %s", c->file, p);
done:
    free(g);
    return rc;
}
