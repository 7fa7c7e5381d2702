/* models_report.c - what `fleetsim models` and `fleetsim calibrate` print
 * (models_report.h). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "../models/memory.h"
#include "models_report.h"

/* The reference models of the memory table: Llama-2 shapes. */
static const struct {
    const char *name;
    struct mem_model m;
} ref_models[] = {
    {"7b", {.params = 7e9, .bytes_per_param = 2, .layers = 32, .hidden = 4096, .kv_heads_ratio = 1}},
    {"13b", {.params = 13e9, .bytes_per_param = 2, .layers = 40, .hidden = 5120, .kv_heads_ratio = 1}},
    {"70b", {.params = 70e9, .bytes_per_param = 2, .layers = 80, .hidden = 8192, .kv_heads_ratio = 8}},
};

static const struct {
    const char *name;
    struct mem_job j;
} ref_jobs[] = {
    {"train", {.method = MEM_TRAIN, .gpus = 1, .seq_len = 4096, .micro_batch = 1}},
    {"lora", {.method = MEM_LORA, .gpus = 1, .seq_len = 2048, .micro_batch = 1, .lora_fraction = 0.005}},
    {"qlora", {.method = MEM_QLORA, .gpus = 1, .seq_len = 2048, .micro_batch = 1, .lora_fraction = 0.005}},
    {"infer", {.method = MEM_INFER, .gpus = 1}},
};

/* Reference model i doing reference job k: inference reserves the KV
 * allowance jobs and service replicas share (MEM_KV_FRACTION). */
static struct mem_need ref_need(size_t i, size_t k)
{
    struct mem_job j = ref_jobs[k].j;
    const struct mem_model *m = &ref_models[i].m;
    if (j.method == MEM_INFER)
        j.kv_budget_gb = MEM_KV_FRACTION * m->bytes_per_param * m->params / 1e9;
    return mem_estimate(m, &j);
}

static const double loads[] = {0, 0.25, 0.5, 0.75, 1};

cJSON *models_json(const struct model_set *ms)
{
    const struct gpu_catalog *cat = ms->cat;
    const struct perf_model *pm = ms->perf;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "reference_gpu", cat->types[pm->ref].name);

    cJSON *gpus = cJSON_AddArrayToObject(root, "gpus");
    for (int t = 0; t < cat->n; t++) {
        const struct gpu_type *g = &cat->types[t];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", g->name);
        cJSON_AddNumberToObject(o, "memory_gb", g->memory_gb);
        cJSON_AddNumberToObject(o, "bandwidth_gbs", g->bandwidth_gbs);
        cJSON_AddNumberToObject(o, "bf16_tflops", g->bf16_tflops);
        cJSON_AddNumberToObject(o, "mamf_bf16_tflops", g->mamf_bf16_tflops);
        cJSON_AddNumberToObject(o, "fp8_tflops", g->fp8_tflops);
        cJSON_AddStringToObject(o, "link", g->link);
        cJSON_AddNumberToObject(o, "tdp_w", g->tdp_w);
        cJSON_AddNumberToObject(o, "idle_w", g->idle_w);
        cJSON_AddItemToArray(gpus, o);
    }

    cJSON *rel = cJSON_AddObjectToObject(root, "relative_throughput");
    for (int w = 0; w < pm->n; w++) {
        cJSON *o = cJSON_AddObjectToObject(rel, pm->w[w].name);
        for (int t = 0; t < cat->n; t++)
            cJSON_AddNumberToObject(o, cat->types[t].name, perf_relative(pm, w, t, pm->ref));
    }

    cJSON *shares = cJSON_AddObjectToObject(root, "workload_shares");
    for (int w = 0; w < pm->n; w++) {
        cJSON *o = cJSON_AddObjectToObject(shares, pm->w[w].name);
        for (int k = 0; k < PERF_RESOURCES; k++)
            cJSON_AddNumberToObject(o, perf_resource_names[k], pm->w[w].share[k]);
        cJSON_AddNumberToObject(o, "comm_share", pm->w[w].comm_share);
    }

    cJSON *mem = cJSON_AddObjectToObject(root, "memory_fit");
    for (size_t i = 0; i < FS_ARRAY_LEN(ref_models); i++)
        for (size_t k = 0; k < FS_ARRAY_LEN(ref_jobs); k++) {
            char key[32];
            snprintf(key, sizeof key, "%s-%s", ref_models[i].name, ref_jobs[k].name);
            struct mem_need need = ref_need(i, k);
            cJSON *o = cJSON_AddObjectToObject(mem, key);
            cJSON_AddNumberToObject(o, "per_gpu_gb", need.per_gpu_gb);
            cJSON *fits = cJSON_AddObjectToObject(o, "fits_one_gpu");
            for (int t = 0; t < cat->n; t++)
                cJSON_AddBoolToObject(fits, cat->types[t].name, need.per_gpu_gb <= cat->types[t].memory_gb);
        }

    cJSON *power = cJSON_AddObjectToObject(root, "power_w_at_load");
    for (int t = 0; t < cat->n; t++) {
        double p[FS_ARRAY_LEN(loads)];
        for (size_t k = 0; k < FS_ARRAY_LEN(loads); k++)
            p[k] = power_gpu_w(&cat->types[t], loads[k]);
        cJSON_AddItemToObject(power, cat->types[t].name, cJSON_CreateDoubleArray(p, (int)FS_ARRAY_LEN(loads)));
    }

    cJSON *nodes = cJSON_AddArrayToObject(root, "nodes");
    for (int i = 0; i < ms->nodes->ntemplates; i++) {
        const struct node_template *nt = &ms->nodes->templates[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", nt->name);
        cJSON_AddStringToObject(o, "gpu", cat->types[nt->gpu_type].name);
        cJSON_AddNumberToObject(o, "gpus", nt->gpus);
        cJSON_AddNumberToObject(o, "max_w", nt->max_w);
        cJSON_AddNumberToObject(o, "psu_usable_w", nt->psu_usable * nt->psu_rating_w);
        cJSON *dc = cJSON_AddObjectToObject(o, "dc_power_w");
        cJSON_AddNumberToObject(dc, "idle", model_node_dc_w(ms, nt, 0));
        for (int k = 0; k < pm->nkinds; k++) {
            int w = perf_workload_find(pm, pm->kind_workload[k]);
            cJSON_AddNumberToObject(dc, pm->kind_names[k],
                                    model_node_dc_w(ms, nt, model_load_share(ms->power, cat, &pm->w[w])));
        }
        cJSON_AddNumberToObject(dc, "full", model_node_dc_w(ms, nt, 1));
        cJSON_AddItemToArray(nodes, o);
    }
    return root;
}

void models_print(FILE *f, const struct model_set *ms)
{
    const struct gpu_catalog *cat = ms->cat;
    const struct perf_model *pm = ms->perf;
    fprintf(f, "GPU catalog\n  %-14s %7s %8s %8s %7s %7s %-7s %6s %6s\n", "type", "mem GB", "BW GB/s",
           "BF16 TF", "MAMF", "FP8 TF", "link", "TDP W", "idle W");
    for (int t = 0; t < cat->n; t++) {
        const struct gpu_type *g = &cat->types[t];
        fprintf(f, "  %-14s %7.0f %8.0f %8.1f %7.1f %7.0f %-7s %6.0f %6.1f\n", g->name, g->memory_gb,
               g->bandwidth_gbs, g->bf16_tflops, g->mamf_bf16_tflops, g->fp8_tflops, g->link, g->tdp_w,
               g->idle_w);
    }
    fprintf(f, "\nRelative throughput per GPU (%s = 1.00)\n  %-16s", cat->types[pm->ref].name, "workload");
    for (int t = 0; t < cat->n; t++)
        fprintf(f, " %12s", cat->types[t].name);
    fprintf(f, "\n");
    for (int w = 0; w < pm->n; w++) {
        fprintf(f, "  %-16s", pm->w[w].name);
        for (int t = 0; t < cat->n; t++)
            fprintf(f, " %12.2f", perf_relative(pm, w, t, pm->ref));
        fprintf(f, "\n");
    }
    fprintf(f, "\nMemory per GPU on one GPU (GB; * = fits)\n  %-12s %8s", "model", "need");
    for (int t = 0; t < cat->n; t++)
        fprintf(f, " %12s", cat->types[t].name);
    fprintf(f, "\n");
    for (size_t i = 0; i < FS_ARRAY_LEN(ref_models); i++)
        for (size_t k = 0; k < FS_ARRAY_LEN(ref_jobs); k++) {
            struct mem_need need = ref_need(i, k);
            fprintf(f, "  %3s %-8s %8.1f", ref_models[i].name, ref_jobs[k].name, need.per_gpu_gb);
            for (int t = 0; t < cat->n; t++)
                fprintf(f, " %12s", need.per_gpu_gb <= cat->types[t].memory_gb ? "*" : "-");
            fprintf(f, "\n");
        }
    fprintf(f, "\nPower per GPU at load 0/25/50/75/100 %% (W)\n");
    for (int t = 0; t < cat->n; t++) {
        fprintf(f, "  %-14s", cat->types[t].name);
        for (size_t k = 0; k < FS_ARRAY_LEN(loads); k++)
            fprintf(f, " %7.1f", power_gpu_w(&cat->types[t], loads[k]));
        fprintf(f, "\n");
    }
    fprintf(f, "\nNode templates: DC power (W) idle, under each job kind's load, all GPUs at TDP;\n"
           "nameplate maximum and usable PSU capacity\n  %-14s %-16s %6s", "template", "GPUs", "idle");
    for (int k = 0; k < pm->nkinds; k++)
        fprintf(f, " %8s", pm->kind_names[k]);
    fprintf(f, " %6s %6s  PSUs\n", "full", "max");
    for (int i = 0; i < ms->nodes->ntemplates; i++) {
        const struct node_template *nt = &ms->nodes->templates[i];
        fprintf(f, "  %-14s %d x %-12s %6.0f", nt->name, nt->gpus, cat->types[nt->gpu_type].name,
               model_node_dc_w(ms, nt, 0));
        for (int k = 0; k < pm->nkinds; k++) {
            int w = perf_workload_find(pm, pm->kind_workload[k]);
            fprintf(f, " %8.0f", model_node_dc_w(ms, nt, model_load_share(ms->power, cat, &pm->w[w])));
        }
        fprintf(f, " %6.0f %6.0f  %d x %.0f W (%d usable: %.0f W)\n", model_node_dc_w(ms, nt, 1), nt->max_w,
               nt->psu_count, nt->psu_rating_w, nt->psu_usable, nt->psu_usable * nt->psu_rating_w);
    }
}

/* {"llm": {the inputs}, "gpus": {"<type>": {"fits", "gpus", "max_batch",
 * "tokens_per_s_per_gpu", "precision", "reason"}}}. */
cJSON *models_llm_json(const struct model_set *ms, const struct llm_query *q)
{
    struct llm_arch a = llm_arch_default(q->params);
    cJSON *root = cJSON_CreateObject(), *in = cJSON_AddObjectToObject(root, "llm");
    cJSON_AddNumberToObject(in, "params_b", q->params / 1e9);
    cJSON *arch = cJSON_AddObjectToObject(in, "architecture");
    cJSON_AddStringToObject(arch, "family", "llama3-style: hidden = 128 x layers, 8 KV heads of 128");
    cJSON_AddNumberToObject(arch, "layers", a.layers);
    cJSON_AddNumberToObject(arch, "hidden", a.hidden);
    cJSON_AddNumberToObject(arch, "kv_dim", a.kv_dim);
    cJSON_AddStringToObject(in, "precision", q->prec == LLM_PRECISIONS ? "default" : llm_precision_names[q->prec]);
    cJSON_AddStringToObject(in, "phase", llm_phase_names[q->phase]);
    if (q->batch > 0)
        cJSON_AddNumberToObject(in, "batch", q->batch);
    else
        cJSON_AddStringToObject(in, "batch", "max");
    cJSON_AddNumberToObject(in, "input_tokens", q->input_tokens);
    cJSON_AddNumberToObject(in, "output_tokens", q->output_tokens);
    if (q->kv_budget_gb >= 0)
        cJSON_AddNumberToObject(in, "kv_budget_gb", q->kv_budget_gb);
    else
        cJSON_AddNullToObject(in, "kv_budget_gb");
    cJSON *gpus = cJSON_AddObjectToObject(root, "gpus");
    for (int t = 0; t < ms->cat->n; t++) {
        struct llm_answer r = llm_serve(ms->llm, t, q);
        cJSON *o = cJSON_AddObjectToObject(gpus, ms->cat->types[t].name);
        cJSON_AddBoolToObject(o, "fits", r.fits);
        cJSON_AddNumberToObject(o, "gpus", r.gpus);
        cJSON_AddNumberToObject(o, "max_batch", r.max_batch);
        cJSON_AddNumberToObject(o, "tokens_per_s_per_gpu", r.tokens_per_s_per_gpu);
        cJSON_AddStringToObject(o, "precision", llm_precision_names[r.prec]);
        cJSON_AddStringToObject(o, "reason", r.reason);
    }
    return root;
}

void models_llm_print(FILE *f, const cJSON *root)
{
    const cJSON *in = cJSON_GetObjectItem(root, "llm"), *arch = cJSON_GetObjectItem(in, "architecture");
    fprintf(f, "%g B parameters (%d layers x %d, KV dim %d), precision %s, %s, batch %s, %d in / %d out tokens\n",
           cJSON_GetObjectItem(in, "params_b")->valuedouble, cJSON_GetObjectItem(arch, "layers")->valueint,
           cJSON_GetObjectItem(arch, "hidden")->valueint, cJSON_GetObjectItem(arch, "kv_dim")->valueint,
           cJSON_GetObjectItem(in, "precision")->valuestring, cJSON_GetObjectItem(in, "phase")->valuestring,
           cJSON_IsString(cJSON_GetObjectItem(in, "batch")) ? "max" : "fixed",
           cJSON_GetObjectItem(in, "input_tokens")->valueint, cJSON_GetObjectItem(in, "output_tokens")->valueint);
    fprintf(f, "  %-14s %-5s %4s %9s %12s  %s\n", "type", "prec", "GPUs", "max batch", "tok/s/GPU", "");
    for (const cJSON *g = cJSON_GetObjectItem(root, "gpus")->child; g; g = g->next) {
        if (cJSON_IsTrue(cJSON_GetObjectItem(g, "fits")))
            fprintf(f, "  %-14s %-5s %4d %9d %12.1f\n", g->string, cJSON_GetObjectItem(g, "precision")->valuestring,
                   cJSON_GetObjectItem(g, "gpus")->valueint, cJSON_GetObjectItem(g, "max_batch")->valueint,
                   cJSON_GetObjectItem(g, "tokens_per_s_per_gpu")->valuedouble);
        else
            fprintf(f, "  %-14s %-5s    -         -            -  %s\n", g->string,
                   cJSON_GetObjectItem(g, "precision")->valuestring, cJSON_GetObjectItem(g, "reason")->valuestring);
    }
}

static const char *point_unit(const struct llm_point *p)
{
    return p->kind == LLM_PT_STEP ? "ms" : p->kind == LLM_PT_THROUGHPUT ? "tok/s" : "x";
}

static double point_scale(const struct llm_point *p)
{
    return p->kind == LLM_PT_STEP ? 1e3 : 1;
}

cJSON *models_calibration_json(const struct llm_model *lm)
{
    cJSON *root = cJSON_CreateObject(), *f = cJSON_AddObjectToObject(root, "fitted");
    cJSON *eta = cJSON_AddObjectToObject(f, "bandwidth_efficiency");
    for (int k = 0; k < LLM_MEM_KINDS; k++)
        cJSON_AddNumberToObject(eta, llm_memory_kinds[k], lm->eta[k]);
    cJSON_AddNumberToObject(f, "tensor_efficiency", lm->mu);
    cJSON_AddNumberToObject(f, "link_efficiency", lm->link_eff);
    cJSON_AddStringToObject(f, "serving_stack", lm->stacks[lm->serving]);
    cJSON *st = cJSON_AddObjectToObject(f, "layer_overhead_us");
    for (int s = 0; s < lm->nstacks; s++) {
        cJSON *o = cJSON_AddObjectToObject(st, lm->stacks[s]);
        cJSON_AddNumberToObject(o, "base", lm->tau0[s] * 1e6);
        cJSON_AddNumberToObject(o, "per_tp_doubling", lm->tau1[s] * 1e6);
    }
    cJSON_AddNumberToObject(f, "fit_rms_error", lm->fit_rms);
    cJSON_AddNumberToObject(f, "fit_max_error", lm->fit_max);
    cJSON *pts = cJSON_AddArrayToObject(root, "points");
    for (int i = 0; i < lm->npoints; i++) {
        const struct llm_point *p = &lm->points[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", p->id);
        cJSON_AddStringToObject(o, "use", p->fit ? "fit" : "holdout");
        cJSON_AddStringToObject(o, "source", p->source);
        cJSON_AddStringToObject(o, "unit", point_unit(p));
        cJSON_AddNumberToObject(o, "measured", p->measured * point_scale(p));
        cJSON_AddNumberToObject(o, "model", p->model * point_scale(p));
        cJSON_AddNumberToObject(o, "error", p->model / p->measured - 1);
        cJSON_AddNumberToObject(o, "tolerance", p->tol);
        cJSON_AddStringToObject(o, "known_miss", p->known_miss);
        cJSON_AddItemToArray(pts, o);
    }
    return root;
}

void models_calibration_print(FILE *f, const struct llm_model *lm)
{
    fprintf(f, "LLM serving model, fitted on the \"fit\" points of llm.json\n  bandwidth efficiency:");
    for (int k = 0; k < LLM_MEM_KINDS; k++)
        fprintf(f, " %s %.3f", llm_memory_kinds[k], lm->eta[k]);
    fprintf(f, "\n  tensor efficiency %.3f, link efficiency %.3f\n  per-layer step overhead (us, + per doubling of TP):", lm->mu, lm->link_eff);
    for (int s = 0; s < lm->nstacks; s++)
        fprintf(f, " %s%s %.1f + %.1f", lm->stacks[s], s == lm->serving ? " (serving)" : "", lm->tau0[s] * 1e6,
               lm->tau1[s] * 1e6);
    fprintf(f, "\n");
    fprintf(f, "  fit: rms relative error %.3f, max %.3f\n\n", lm->fit_rms, lm->fit_max);
    fprintf(f, "  %-40s %-7s %-19s %13s %13s %7s %5s\n", "point", "use", "source", "measured", "model", "error", "tol");
    for (int i = 0; i < lm->npoints; i++) {
        const struct llm_point *p = &lm->points[i];
        double e = p->model / p->measured - 1;
        fprintf(f, "  %-40s %-7s %-19s %8.4g%-5s %8.4g%-5s %+6.1f%% %4.0f%%%s\n", p->id, p->fit ? "fit" : "holdout",
               p->source, p->measured * point_scale(p), point_unit(p), p->model * point_scale(p), point_unit(p),
               100 * e, 100 * p->tol, p->known_miss[0] ? "  known miss" : fabs(e) <= p->tol ? "" : "  OUT");
    }
}

void power_fit_print(FILE *f, const char *path, bool log2x, bool json, const struct power_logistic *c,
                     const struct power_fit_stats *st)
{
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "file", path);
        cJSON_AddStringToObject(o, "x", log2x ? "log2" : "linear");
        cJSON_AddNumberToObject(o, "n", (double)st->n);
        cJSON_AddNumberToObject(o, "lo", c->lo);
        cJSON_AddNumberToObject(o, "hi", c->hi);
        cJSON_AddNumberToObject(o, "k", c->k);
        cJSON_AddNumberToObject(o, "x0", c->x0);
        cJSON_AddNumberToObject(o, "max_rel_err", st->max_rel_err);
        cJSON_AddNumberToObject(o, "rms_rel_err", st->rms_rel_err);
        cJSON_AddBoolToObject(o, "converged", st->converged);
        char *s = cJSON_Print(o);
        fprintf(f, "%s\n", s);
        cJSON_free(s);
        cJSON_Delete(o);
        return;
    }
    fprintf(f, "%s: logistic fit of %zu points, x = %s\n"
           "  lo  %.6g W\n  hi  %.6g W\n  k   %.6g\n  x0  %.6g",
           path, st->n, log2x ? "log2(first column)" : "first column", c->lo, c->hi, c->k, c->x0);
    if (log2x)
        fprintf(f, " (at %.4g)", exp2(c->x0));
    fprintf(f, "\n  max relative error  %.2f %%\n  rms relative error  %.2f %%\n",
           100 * st->max_rel_err, 100 * st->rms_rel_err);
}
