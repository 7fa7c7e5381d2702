/* llm_load.c - models/data/llm.json: the calibration points of the LLM
 * serving model, the fit (GSL weighted linear least squares) and each
 * point's model value.
 *
 * llm.json: {"about", "sources": {"ID": "text"}, "memory": {"KIND": {"like":
 * "KIND", "source": "ID"}}, "points": [POINT]}, POINT = {"id", "source",
 * "use": "fit"|"holdout", "kind": "step"|"ratio"|"throughput", "gpu", "precision",
 * "model": {"params_b"[, "layers", "hidden", "kv_dim"]}, "phase",
 * "batch", "input", "output", "tol", and for a step "tp", "measured_ms"
 * [, "weights_gb"], for a ratio "gpu2", "precision2", "measured", for a
 * throughput "tp", "measured" (output tokens/s of the whole tp-GPU
 * replica at that batch, prefills included: llm_tokens_per_s offline, the
 * formula the simulation's services run at).  A ratio
 * compares llm_serve's tokens/s per GPU of gpu over gpu2 (each at the
 * fewest GPUs that hold the model; batch 0 = each at its largest).  A
 * memory technology with no fitted step point takes another's efficiency
 * ("memory"), an assumption the file names.  IDs starting "ASSUMPTION"
 * have text starting "assumption:". */
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/json.h"
#include "llm.h"
#include "nnls.h"

struct loader {
    const char *file;
    const cJSON *sources;
    struct fs_err *err;
    struct llm_model *lm;
};

static int find_name(const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

static int read_enum(struct loader *L, const cJSON *o, const char *key, const char *path,
                     const char *const *names, int n, int *out)
{
    const char *s = NULL;
    int rc = json_string(o, key, true, &s, L->file, path, L->err);
    if (rc)
        return rc;
    if ((*out = find_name(s, names, n)) >= 0)
        return 0;
    const char *hint = fs_suggest(s, names, (size_t)n);
    return fs_fail(L->err, FS_EDATA, "%s: %s.%s: unknown value \"%s\"%s%s%s", L->file, path, key, s,
                   hint ? "; did you mean \"" : "", hint ? hint : "", hint ? "\"?" : "");
}

static int read_source(struct loader *L, const cJSON *o, const char *path, char *out, size_t n)
{
    const char *s = NULL;
    int rc = json_string(o, "source", true, &s, L->file, path, L->err);
    if (rc)
        return rc;
    if (!cJSON_GetObjectItemCaseSensitive(L->sources, s))
        return fs_fail(L->err, FS_EDATA, "%s: %s.source: unknown source \"%s\"", L->file, path, s);
    snprintf(out, n, "%s", s);
    return 0;
}

static int read_gpu(struct loader *L, const cJSON *o, const char *key, const char *path, int *out)
{
    const struct gpu_catalog *cat = L->lm->cat;
    return read_enum(L, o, key, path, cat->names, cat->n, out);
}

static int read_arch(struct loader *L, const cJSON *o, const char *path, struct llm_arch *a)
{
    static const char *const keys[] = {"params_b", "layers", "hidden", "kv_dim", NULL};
    const cJSON *m;
    char sub[96];
    double pb = 0;
    int64_t v;
    int rc = json_child(o, "model", true, cJSON_Object, &m, L->file, path, L->err);
    snprintf(sub, sizeof sub, "%s.model", path);
    if (rc || (rc = json_check_keys(m, keys, L->file, sub, L->err)) ||
        (rc = json_number(m, "params_b", true, 0.01, 1e5, &pb, L->file, sub, L->err)))
        return rc;
    *a = llm_arch_default(pb * 1e9);
    int *fields[] = {&a->layers, &a->hidden, &a->kv_dim};
    for (int i = 0; i < 3; i++) {
        v = *fields[i];
        if ((rc = json_int(m, keys[i + 1], false, 1, 1000000, &v, L->file, sub, L->err)))
            return rc;
        *fields[i] = (int)v;
    }
    return 0;
}

/* A stack name: a new one is added to lm->stacks. */
static int read_stack(struct loader *L, const cJSON *o, const char *key, const char *path, int *out)
{
    struct llm_model *lm = L->lm;
    const char *s = NULL;
    int rc = json_string(o, key, true, &s, L->file, path, L->err);
    if (rc)
        return rc;
    for (int i = 0; i < lm->nstacks; i++)
        if (strcmp(s, lm->stacks[i]) == 0)
            return *out = i, 0;
    if (lm->nstacks == LLM_MAX_STACKS || strlen(s) >= sizeof lm->stacks[0])
        return fs_fail(L->err, FS_EDATA, "%s: %s.%s: at most %d stacks of up to %zu characters", L->file,
                       path, key, LLM_MAX_STACKS, sizeof lm->stacks[0] - 1);
    snprintf(lm->stacks[lm->nstacks], sizeof lm->stacks[0], "%s", s);
    *out = lm->nstacks++;
    return 0;
}

static int read_point(struct loader *L, const cJSON *o, const char *path, struct llm_point *p)
{
    static const char *const keys[] = {"id", "source", "use", "kind", "gpu", "gpu2", "precision",
                                       "precision2", "model", "weights_gb", "tp", "phase", "batch",
                                       "input", "output", "measured_ms", "measured", "tol", "notes",
                                       "stack", "tp2", "known_miss", NULL};
    static const char *const uses[] = {"holdout", "fit"}, *const kinds[] = {"step", "ratio", "throughput"};
    const char *id = NULL;
    int use = 0, kind = 0, prec = 0, phase = 0;
    int64_t tp = 1;
    int rc = json_check_keys(o, keys, L->file, path, L->err);
    if (!rc)
        rc = json_string(o, "id", true, &id, L->file, path, L->err);
    if (rc || (rc = read_source(L, o, path, p->source, sizeof p->source)) ||
        (rc = read_enum(L, o, "use", path, uses, 2, &use)) ||
        (rc = read_enum(L, o, "kind", path, kinds, 3, &kind)) ||
        (rc = read_gpu(L, o, "gpu", path, &p->gpu)) ||
        (rc = read_enum(L, o, "precision", path, llm_precision_names, LLM_PRECISIONS, &prec)) ||
        (rc = read_enum(L, o, "phase", path, llm_phase_names, LLM_PHASES, &phase)) ||
        (rc = read_arch(L, o, path, &p->arch)) ||
        (rc = json_number(o, "batch", true, 0, 1e5, &p->batch, L->file, path, L->err)) ||
        (rc = json_number(o, "input", true, 1, 1e6, &p->input, L->file, path, L->err)) ||
        (rc = json_number(o, "output", true, 1, 1e6, &p->output, L->file, path, L->err)) ||
        (rc = json_number(o, "tol", true, 0.001, 1, &p->tol, L->file, path, L->err)))
        return rc;
    snprintf(p->id, sizeof p->id, "%s", id);
    const char *miss = NULL;
    if ((rc = json_string(o, "known_miss", false, &miss, L->file, path, L->err)))
        return rc;
    if (miss)
        snprintf(p->known_miss, sizeof p->known_miss, "%s", miss);
    p->fit = use == 1;
    p->kind = (enum llm_point_kind)kind;
    p->prec = (enum llm_precision)prec;
    p->phase = (enum llm_phase)phase;
    if (p->kind == LLM_PT_STEP) {
        if ((rc = json_int(o, "tp", true, 1, LLM_MAX_TP, &tp, L->file, path, L->err)) ||
            (rc = json_number(o, "weights_gb", false, 0.01, 1e5, &p->weights_gb, L->file, path, L->err)) ||
            (rc = json_number(o, "measured_ms", true, 1e-3, 1e7, &p->measured, L->file, path, L->err)))
            return rc;
        p->tp = (int)tp;
        p->measured /= 1e3;
        if (tp & (tp - 1))
            return fs_fail(L->err, FS_EDATA, "%s: %s.tp: %d is not 1, 2, 4 or 8", L->file, path, p->tp);
        if ((rc = read_stack(L, o, "stack", path, &p->stack)))
            return rc;
        if (p->phase == LLM_OFFLINE || !(p->batch >= 1))
            return fs_fail(L->err, FS_EDATA, "%s: %s: a step point is one prefill or decode step of "
                           "batch >= 1", L->file, path);
        return 0;
    }
    if (p->fit)
        return fs_fail(L->err, FS_EDATA, "%s: %s.use: %s points are held out, not fitted", L->file, path,
                       kinds[kind]);
    if (p->kind == LLM_PT_THROUGHPUT) {
        if ((rc = json_int(o, "tp", true, 1, LLM_MAX_TP, &tp, L->file, path, L->err)) ||
            (rc = json_number(o, "measured", true, 1e-3, 1e9, &p->measured, L->file, path, L->err)))
            return rc;
        p->tp = (int)tp;
        if (tp & (tp - 1))
            return fs_fail(L->err, FS_EDATA, "%s: %s.tp: %d is not 1, 2, 4 or 8", L->file, path, p->tp);
        if (!(p->batch >= 1))
            return fs_fail(L->err, FS_EDATA, "%s: %s.batch: a throughput point needs a batch >= 1",
                           L->file, path);
        return 0;
    }
    tp = 0;
    int64_t tp2 = 0;
    if ((rc = json_int(o, "tp", false, 0, LLM_MAX_TP, &tp, L->file, path, L->err)) ||
        (rc = json_int(o, "tp2", false, 0, LLM_MAX_TP, &tp2, L->file, path, L->err)))
        return rc;
    p->tp = (int)tp;
    p->tp2 = (int)tp2;
    if ((rc = read_gpu(L, o, "gpu2", path, &p->gpu2)) ||
        (rc = read_enum(L, o, "precision2", path, llm_precision_names, LLM_PRECISIONS, &prec)) ||
        (rc = json_number(o, "measured", true, 1e-3, 1e3, &p->measured, L->file, path, L->err)))
        return rc;
    p->prec2 = (enum llm_precision)prec;
    return 0;
}

/* Column layout: one per fitted memory kind (1/eta), 1/mu, 1/link_eff, then per
 * stack tau0 and, when it has multi-GPU fit points, tau1. */
#define MAX_COLS (LLM_MEM_KINDS + 2 + 2 * LLM_MAX_STACKS)

struct cols {
    int mem[LLM_MEM_KINDS], mu, link, tau0[LLM_MAX_STACKS], tau1[LLM_MAX_STACKS], n;
};

static void row(const struct llm_model *lm, const struct llm_point *p, const struct cols *c, double *x)
{
    const struct gpu_type *t = &lm->cat->types[p->gpu];
    struct llm_step st = llm_point_step(p);
    double terms[4];
    llm_step_terms(t, &p->arch, p->prec, p->weights_gb, p->tp, &st, terms);
    for (int i = 0; i < c->n; i++)
        x[i] = 0;
    x[c->mem[llm_memory_kind(t)]] = terms[0];
    x[c->mu] = terms[1];
    x[c->link] = terms[3];
    x[c->tau0[p->stack]] = p->arch.layers;
    if (c->tau1[p->stack] >= 0)
        x[c->tau1[p->stack]] = p->arch.layers * terms[2];
}

/* The columns of the fit for lm's fit points.  RET: the number of points. */
static int layout(const struct llm_model *lm, struct cols *c)
{
    int nfit = 0;
    memset(c, -1, sizeof *c);
    c->n = 0;
    for (int k = 0; k < LLM_MEM_KINDS; k++)
        for (int i = 0; i < lm->npoints && c->mem[k] < 0; i++)
            if (lm->points[i].fit && llm_memory_kind(&lm->cat->types[lm->points[i].gpu]) == k)
                c->mem[k] = c->n++;
    c->mu = c->n++;
    c->link = c->n++;
    for (int i = 0; i < lm->npoints; i++) {
        const struct llm_point *p = &lm->points[i];
        if (!p->fit)
            continue;
        nfit++;
        if (c->tau0[p->stack] < 0)
            c->tau0[p->stack] = c->n++;
        if (p->tp > 1 && c->tau1[p->stack] < 0)
            c->tau1[p->stack] = c->n++;
    }
    return nfit;
}

/* Every coefficient is physical only when >= 0, and 1/eta, 1/mu and
 * 1/link_eff only when >= 1 (no GPU beats its peak): the fit solves for
 * coefficient - floor >= 0 by non-negative least squares on rows divided
 * by the measured time (relative errors), so every efficiency lands in
 * (0, 1] and every overhead at or above 0 by construction. */
static int fit(struct loader *L)
{
    struct llm_model *lm = L->lm;
    struct cols c;
    int nfit = layout(lm, &c), ncol = c.n;
    if (c.tau0[lm->serving] < 0 || c.tau1[lm->serving] < 0)
        return fs_fail(L->err, FS_EDATA, "%s: $.serving_stack: \"%s\" needs fit points on one and on "
                       "several GPUs", L->file, lm->stacks[lm->serving]);
    if (nfit < ncol + 1)
        return fs_fail(L->err, FS_EDATA, "%s: $.points: %d fit points for %d unknowns", L->file, nfit, ncol);
    gsl_matrix *A = gsl_matrix_alloc((size_t)nfit, (size_t)ncol);
    gsl_vector *b = gsl_vector_alloc((size_t)nfit), *coef = gsl_vector_alloc((size_t)ncol);
    double x[MAX_COLS], floor_[MAX_COLS] = {0};
    for (int k = 0; k < LLM_MEM_KINDS; k++)
        if (c.mem[k] >= 0)
            floor_[c.mem[k]] = 1;
    floor_[c.mu] = floor_[c.link] = 1;
    size_t r = 0;
    for (int i = 0; i < lm->npoints; i++) {
        const struct llm_point *p = &lm->points[i];
        if (!p->fit)
            continue;
        row(lm, p, &c, x);
        double rest = p->measured;
        for (int j = 0; j < ncol; j++) {
            gsl_matrix_set(A, r, (size_t)j, x[j] / p->measured);
            rest -= floor_[j] * x[j];
        }
        gsl_vector_set(b, r++, rest / p->measured);
    }
    nnls(A, b, coef);
    for (int k = 0; k < LLM_MEM_KINDS; k++)
        if (c.mem[k] >= 0)
            lm->eta[k] = 1 / (1 + gsl_vector_get(coef, (size_t)c.mem[k]));
    lm->mu = 1 / (1 + gsl_vector_get(coef, (size_t)c.mu));
    lm->link_eff = 1 / (1 + gsl_vector_get(coef, (size_t)c.link));
    for (int s = 0; s < lm->nstacks; s++) {
        lm->tau0[s] = c.tau0[s] >= 0 ? gsl_vector_get(coef, (size_t)c.tau0[s]) : 0;
        lm->tau1[s] = c.tau1[s] >= 0 ? gsl_vector_get(coef, (size_t)c.tau1[s]) : 0;
    }
    gsl_matrix_free(A);
    gsl_vector_free(b);
    gsl_vector_free(coef);
    return 0;
}

/* "memory": {"hbm3e": {"like": "hbm3", "source": "ID"}}: unfitted kinds. */
static int read_memory(struct loader *L, const cJSON *root)
{
    static const char *const keys[] = {"like", "source", NULL};
    struct llm_model *lm = L->lm;
    const cJSON *mem;
    int rc = json_child(root, "memory", true, cJSON_Object, &mem, L->file, "$", L->err);
    for (const cJSON *m = mem ? mem->child : NULL; !rc && m; m = m->next) {
        char path[64], src[32];
        int k, like;
        snprintf(path, sizeof path, "$.memory.%s", m->string);
        if ((k = find_name(m->string, llm_memory_kinds, LLM_MEM_KINDS)) < 0)
            return fs_fail(L->err, FS_EDATA, "%s: %s: unknown memory type", L->file, path);
        if ((rc = json_check_keys(m, keys, L->file, path, L->err)) ||
            (rc = read_enum(L, m, "like", path, llm_memory_kinds, LLM_MEM_KINDS, &like)) ||
            (rc = read_source(L, m, path, src, sizeof src)))
            return rc;
        if (lm->eta[k] > 0)
            return fs_fail(L->err, FS_EDATA, "%s: %s: %s has fitted points", L->file, path, m->string);
        if (!(lm->eta[like] > 0))
            return fs_fail(L->err, FS_EDATA, "%s: %s.like: %s has no fitted points", L->file, path,
                           llm_memory_kinds[like]);
        lm->eta[k] = lm->eta[like];
    }
    for (int k = 0; !rc && k < LLM_MEM_KINDS; k++)
        if (!(lm->eta[k] > 0))
            rc = fs_fail(L->err, FS_EDATA, "%s: $.memory: %s has neither fitted points nor \"like\"",
                         L->file, llm_memory_kinds[k]);
    return rc;
}

static void evaluate(struct llm_model *lm)
{
    double sum = 0, worst = 0;
    int n = 0;
    for (int i = 0; i < lm->npoints; i++) {
        struct llm_point *p = &lm->points[i];
        if (p->kind == LLM_PT_STEP) {
            struct llm_step s = llm_point_step(p);
            p->model = llm_step_s(lm, p->stack, &lm->cat->types[p->gpu], &p->arch, p->prec, p->weights_gb,
                                  p->tp, &s);
        } else if (p->kind == LLM_PT_THROUGHPUT) {
            p->model = p->tp * llm_tokens_per_s(lm, &lm->cat->types[p->gpu], &p->arch, p->prec, p->tp, p->batch,
                                                p->input, p->output, LLM_OFFLINE);
        } else {
            struct llm_query q = {.params = p->arch.params, .prec = p->prec, .phase = p->phase,
                                  .batch = (int)p->batch, .input_tokens = (int)p->input,
                                  .output_tokens = (int)p->output, .kv_budget_gb = -1, .tp = p->tp};
            struct llm_answer a = llm_serve(lm, p->gpu, &q);
            q.prec = p->prec2;
            q.tp = p->tp2;
            struct llm_answer b = llm_serve(lm, p->gpu2, &q);
            p->model = b.tokens_per_s_per_gpu > 0 ? a.tokens_per_s_per_gpu / b.tokens_per_s_per_gpu : 0;
        }
        if (p->fit) {
            double e = fabs(p->model / p->measured - 1);
            sum += e * e;
            worst = fmax(worst, e);
            n++;
        }
    }
    lm->fit_rms = n ? sqrt(sum / n) : 0;
    lm->fit_max = worst;
}

static int read_all(struct loader *L, const cJSON *root)
{
    static const char *const top[] = {"about", "sources", "serving_stack", "memory", "points", NULL};
    const cJSON *pts;
    int rc = json_check_keys(root, top, L->file, "$", L->err);
    if (!rc)
        rc = json_child(root, "sources", true, cJSON_Object, &L->sources, L->file, "$", L->err);
    for (const cJSON *s = L->sources ? L->sources->child : NULL; !rc && s; s = s->next)
        if (!cJSON_IsString(s) ||
            (strncmp(s->string, "ASSUMPTION", 10) == 0) != (strncmp(s->valuestring, "assumption:", 11) == 0))
            rc = fs_fail(L->err, FS_EDATA, "%s: $.sources.%s: a string, starting \"assumption:\" exactly "
                         "when the ID starts \"ASSUMPTION\"", L->file, s->string);
    if (rc || (rc = json_child(root, "points", true, cJSON_Array, &pts, L->file, "$", L->err)))
        return rc;
    if (cJSON_GetArraySize(pts) > LLM_MAX_POINTS)
        return fs_fail(L->err, FS_EDATA, "%s: $.points: more than %d points", L->file, LLM_MAX_POINTS);
    for (const cJSON *p = pts->child; p; p = p->next) {
        char path[32];
        snprintf(path, sizeof path, "$.points[%d]", L->lm->npoints);
        if (!cJSON_IsObject(p))
            return fs_fail(L->err, FS_EDATA, "%s: %s: expected an object", L->file, path);
        if ((rc = read_point(L, p, path, &L->lm->points[L->lm->npoints++])))
            return rc;
    }
    if ((rc = read_stack(L, root, "serving_stack", "$", &L->lm->serving)) || (rc = fit(L)) ||
        (rc = read_memory(L, root)))
        return rc;
    evaluate(L->lm);
    return 0;
}

int llm_model_load(const char *path, const struct gpu_catalog *cat, const struct node_catalog *nodes,
                   struct llm_model **out, struct fs_err *err)
{
    cJSON *root = NULL;
    *out = NULL;
    int rc = json_load_file(path, &root, err);
    if (rc)
        return rc;
    struct llm_model *lm = xcalloc(1, sizeof *lm);
    lm->cat = cat;
    lm->nodes = nodes;
    struct loader L = {.file = path, .err = err, .lm = lm};
    if ((rc = read_all(&L, root)))
        llm_model_free(lm);
    else
        *out = lm;
    cJSON_Delete(root);
    return rc;
}
