/* cmd_models.c - `fleetsim models [--json]`: the catalog and the curves
 * derived from it, so anyone can check the calibrated figures. */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../models/memory.h"
#include "../models/models.h"
#include "cli.h"

static int usage(int code)
{
    fprintf(code ? stderr : stdout,
            "usage: fleetsim models [--json] [--catalog FILE]\n"
            "       fleetsim models [--json] --calibration\n"
            "       fleetsim models [--json] --llm PARAMS_B [--precision fp16|bf16|fp8|int8|int4]\n"
            "                       [--phase prefill|decode|offline] [--batch N|max]\n"
            "                       [--input-tokens N] [--output-tokens N] [--kv-budget-gb X]\n\n"
            "Print the GPU catalog and what the models derive from it: per-GPU throughput\n"
            "of each workload relative to the reference GPU, memory fit of reference models\n"
            "(7B, 13B, 70B; train, LoRA, QLoRA, inference on one GPU), power at 0-100 %% load, and\n"
            "the node templates with their DC power.  --json prints the same as one JSON\n"
            "object on stdout.\n\n"
            "--calibration prints the LLM serving model's fitted parameters and every\n"
            "calibration point of llm.json: fitted or held out, measured, model, error.\n\n"
            "--llm answers, for every GPU type, whether a PARAMS_B-billion-parameter model\n"
            "(Llama-3-style architecture) fits, on how few GPUs (tensor parallel, one node),\n"
            "the largest batch memory allows and the tokens/s per GPU.  Defaults: bf16 (fp16\n"
            "where the GPU has no BF16), offline, batch max, 512 input and 128 output tokens,\n"
            "KV cache = what the weights leave of 90 %% of memory.\n");
    return code;
}

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

static cJSON *build(const struct model_set *ms)
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

static void print_text(const struct model_set *ms)
{
    const struct gpu_catalog *cat = ms->cat;
    const struct perf_model *pm = ms->perf;
    printf("GPU catalog\n  %-14s %7s %8s %8s %7s %7s %-7s %6s %6s\n", "type", "mem GB", "BW GB/s",
           "BF16 TF", "MAMF", "FP8 TF", "link", "TDP W", "idle W");
    for (int t = 0; t < cat->n; t++) {
        const struct gpu_type *g = &cat->types[t];
        printf("  %-14s %7.0f %8.0f %8.1f %7.1f %7.0f %-7s %6.0f %6.1f\n", g->name, g->memory_gb,
               g->bandwidth_gbs, g->bf16_tflops, g->mamf_bf16_tflops, g->fp8_tflops, g->link, g->tdp_w,
               g->idle_w);
    }
    printf("\nRelative throughput per GPU (%s = 1.00)\n  %-16s", cat->types[pm->ref].name, "workload");
    for (int t = 0; t < cat->n; t++)
        printf(" %12s", cat->types[t].name);
    printf("\n");
    for (int w = 0; w < pm->n; w++) {
        printf("  %-16s", pm->w[w].name);
        for (int t = 0; t < cat->n; t++)
            printf(" %12.2f", perf_relative(pm, w, t, pm->ref));
        printf("\n");
    }
    printf("\nMemory per GPU on one GPU (GB; * = fits)\n  %-12s %8s", "model", "need");
    for (int t = 0; t < cat->n; t++)
        printf(" %12s", cat->types[t].name);
    printf("\n");
    for (size_t i = 0; i < FS_ARRAY_LEN(ref_models); i++)
        for (size_t k = 0; k < FS_ARRAY_LEN(ref_jobs); k++) {
            struct mem_need need = ref_need(i, k);
            printf("  %3s %-8s %8.1f", ref_models[i].name, ref_jobs[k].name, need.per_gpu_gb);
            for (int t = 0; t < cat->n; t++)
                printf(" %12s", need.per_gpu_gb <= cat->types[t].memory_gb ? "*" : "-");
            printf("\n");
        }
    printf("\nPower per GPU at load 0/25/50/75/100 %% (W)\n");
    for (int t = 0; t < cat->n; t++) {
        printf("  %-14s", cat->types[t].name);
        for (size_t k = 0; k < FS_ARRAY_LEN(loads); k++)
            printf(" %7.1f", power_gpu_w(&cat->types[t], loads[k]));
        printf("\n");
    }
    printf("\nNode templates: DC power (W) idle, under each job kind's load, all GPUs at TDP;\n"
           "nameplate maximum and usable PSU capacity\n  %-14s %-16s %6s", "template", "GPUs", "idle");
    for (int k = 0; k < pm->nkinds; k++)
        printf(" %8s", pm->kind_names[k]);
    printf(" %6s %6s  PSUs\n", "full", "max");
    for (int i = 0; i < ms->nodes->ntemplates; i++) {
        const struct node_template *nt = &ms->nodes->templates[i];
        printf("  %-14s %d x %-12s %6.0f", nt->name, nt->gpus, cat->types[nt->gpu_type].name,
               model_node_dc_w(ms, nt, 0));
        for (int k = 0; k < pm->nkinds; k++) {
            int w = perf_workload_find(pm, pm->kind_workload[k]);
            printf(" %8.0f", model_node_dc_w(ms, nt, model_load_share(ms->power, cat, &pm->w[w])));
        }
        printf(" %6.0f %6.0f  %d x %.0f W (%d usable: %.0f W)\n", model_node_dc_w(ms, nt, 1), nt->max_w,
               nt->psu_count, nt->psu_rating_w, nt->psu_usable, nt->psu_usable * nt->psu_rating_w);
    }
}

#define LLM_MAX_PARAMS_B 10000  /* 10 T parameters: beyond any model built */
#define LLM_MAX_TOKENS 1048576

/* Option values: a usage error (64) names the option and the value. */
static int bad_value(const char *opt, const char *arg, const char *want)
{
    fprintf(stderr, "fleetsim: models: %s \"%s\": %s\n", opt, arg, want);
    return 64;
}

static int parse_real(const char *opt, const char *arg, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || *end || !isfinite(v) || v < lo || v > hi) {
        char want[96];
        snprintf(want, sizeof want, "expected a number in [%g, %g]", lo, hi);
        return bad_value(opt, arg, want);
    }
    *out = v;
    return 0;
}

static int parse_int(const char *opt, const char *arg, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(arg, &end, 10);
    if (end == arg || *end || v < lo || v > hi) {
        char want[96];
        snprintf(want, sizeof want, "expected an integer in [%d, %d]", lo, hi);
        return bad_value(opt, arg, want);
    }
    *out = (int)v;
    return 0;
}

static int parse_name(const char *opt, const char *arg, const char *const *names, int n, int *out)
{
    char want[96];
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(arg, names[i]) == 0)
            return *out = i, 0;
        k += snprintf(want + k, sizeof want - (size_t)k, "%s%s", i ? ", " : "expected one of ", names[i]);
    }
    return bad_value(opt, arg, want);
}

/* {"llm": {the inputs}, "gpus": {"<type>": {"fits", "gpus", "max_batch",
 * "tokens_per_s_per_gpu", "precision", "reason"}}}. */
static cJSON *llm_json(const struct model_set *ms, const struct llm_query *q)
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

static void print_llm(const cJSON *root)
{
    const cJSON *in = cJSON_GetObjectItem(root, "llm"), *arch = cJSON_GetObjectItem(in, "architecture");
    printf("%g B parameters (%d layers x %d, KV dim %d), precision %s, %s, batch %s, %d in / %d out tokens\n",
           cJSON_GetObjectItem(in, "params_b")->valuedouble, cJSON_GetObjectItem(arch, "layers")->valueint,
           cJSON_GetObjectItem(arch, "hidden")->valueint, cJSON_GetObjectItem(arch, "kv_dim")->valueint,
           cJSON_GetObjectItem(in, "precision")->valuestring, cJSON_GetObjectItem(in, "phase")->valuestring,
           cJSON_IsString(cJSON_GetObjectItem(in, "batch")) ? "max" : "fixed",
           cJSON_GetObjectItem(in, "input_tokens")->valueint, cJSON_GetObjectItem(in, "output_tokens")->valueint);
    printf("  %-14s %-5s %4s %9s %12s  %s\n", "type", "prec", "GPUs", "max batch", "tok/s/GPU", "");
    for (const cJSON *g = cJSON_GetObjectItem(root, "gpus")->child; g; g = g->next) {
        if (cJSON_IsTrue(cJSON_GetObjectItem(g, "fits")))
            printf("  %-14s %-5s %4d %9d %12.1f\n", g->string, cJSON_GetObjectItem(g, "precision")->valuestring,
                   cJSON_GetObjectItem(g, "gpus")->valueint, cJSON_GetObjectItem(g, "max_batch")->valueint,
                   cJSON_GetObjectItem(g, "tokens_per_s_per_gpu")->valuedouble);
        else
            printf("  %-14s %-5s    -         -            -  %s\n", g->string,
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

static cJSON *calibration_json(const struct llm_model *lm)
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

static void print_calibration(const struct llm_model *lm)
{
    printf("LLM serving model, fitted on the \"fit\" points of llm.json\n  bandwidth efficiency:");
    for (int k = 0; k < LLM_MEM_KINDS; k++)
        printf(" %s %.3f", llm_memory_kinds[k], lm->eta[k]);
    printf("\n  tensor efficiency %.3f, link efficiency %.3f\n  per-layer step overhead (us, + per doubling of TP):", lm->mu, lm->link_eff);
    for (int s = 0; s < lm->nstacks; s++)
        printf(" %s%s %.1f + %.1f", lm->stacks[s], s == lm->serving ? " (serving)" : "", lm->tau0[s] * 1e6,
               lm->tau1[s] * 1e6);
    printf("\n");
    printf("  fit: rms relative error %.3f, max %.3f\n\n", lm->fit_rms, lm->fit_max);
    printf("  %-40s %-7s %-19s %13s %13s %7s %5s\n", "point", "use", "source", "measured", "model", "error", "tol");
    for (int i = 0; i < lm->npoints; i++) {
        const struct llm_point *p = &lm->points[i];
        double e = p->model / p->measured - 1;
        printf("  %-40s %-7s %-19s %8.4g%-5s %8.4g%-5s %+6.1f%% %4.0f%%%s\n", p->id, p->fit ? "fit" : "holdout",
               p->source, p->measured * point_scale(p), point_unit(p), p->model * point_scale(p), point_unit(p),
               100 * e, 100 * p->tol, p->known_miss[0] ? "  known miss" : fabs(e) <= p->tol ? "" : "  OUT");
    }
}

const struct option models_opts[] = {
    {"json", no_argument, NULL, 'j'},
    {"catalog", required_argument, NULL, 'c'},
    {"calibration", no_argument, NULL, 'C'},
    {"llm", required_argument, NULL, 'L'},
    {"precision", required_argument, NULL, 'p'},
    {"phase", required_argument, NULL, 'P'},
    {"batch", required_argument, NULL, 'b'},
    {"input-tokens", required_argument, NULL, 'i'},
    {"output-tokens", required_argument, NULL, 'o'},
    {"kv-budget-gb", required_argument, NULL, 'k'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

int cmd_models(int argc, char **argv)
{
    const struct option *opts = models_opts;
    const char *catalog = NULL, *llm_arg = NULL;
    bool json = false, calibration = false;
    struct llm_query q = {.prec = LLM_PRECISIONS, .phase = LLM_OFFLINE, .input_tokens = 512,
                          .output_tokens = 128, .kv_budget_gb = -1};
    int c, v = 0, nllm = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        int rc = 0;
        switch (c) {
        case 'j': json = true; break;
        case 'c': catalog = optarg; break;
        case 'C': calibration = true; break;
        case 'L': llm_arg = optarg; break;
        case 'p': rc = parse_name("--precision", optarg, llm_precision_names, LLM_PRECISIONS, &v); q.prec = (enum llm_precision)v; nllm++; break;
        case 'P': rc = parse_name("--phase", optarg, llm_phase_names, LLM_PHASES, &v); q.phase = (enum llm_phase)v; nllm++; break;
        case 'b': rc = strcmp(optarg, "max") == 0 ? 0 : parse_int("--batch", optarg, 1, LLM_MAX_BATCH, &q.batch); nllm++; break;
        case 'i': rc = parse_int("--input-tokens", optarg, 1, LLM_MAX_TOKENS, &q.input_tokens); nllm++; break;
        case 'o': rc = parse_int("--output-tokens", optarg, 1, LLM_MAX_TOKENS, &q.output_tokens); nllm++; break;
        case 'k': rc = parse_real("--kv-budget-gb", optarg, 0, 1e6, &q.kv_budget_gb); nllm++; break;
        case 'h': return usage(0);
        default:
            fprintf(stderr, "fleetsim: models: unknown or incomplete option %s\n", argv[optind - 1]);
            return usage(64);
        }
        if (rc)
            return rc;
    }
    if (llm_arg && parse_real("--llm", llm_arg, 0.01, LLM_MAX_PARAMS_B, &q.params))
        return 64;
    q.params *= 1e9;
    if (nllm && !llm_arg) {
        fprintf(stderr, "fleetsim: models: --precision, --phase, --batch, --input-tokens, --output-tokens "
                "and --kv-budget-gb go with --llm\n");
        return usage(64);
    }
    if (llm_arg && calibration) {
        fprintf(stderr, "fleetsim: models: --llm and --calibration are separate queries\n");
        return usage(64);
    }
    if (optind != argc) {
        fprintf(stderr, "fleetsim: models: unexpected argument \"%s\"\n", argv[optind]);
        return usage(64);
    }
    struct model_set ms;
    struct fs_err err = {0};
    int rc = model_set_load(catalog ? catalog : cli_default_catalog(), &ms, &err);
    if (rc == 0 && (llm_arg || calibration)) {
        cJSON *root = llm_arg ? llm_json(&ms, &q) : calibration_json(ms.llm);
        if (json) {
            char *text = cJSON_Print(root);
            puts(text);
            cJSON_free(text);
        } else if (llm_arg) {
            print_llm(root);
        } else {
            print_calibration(ms.llm);
        }
        cJSON_Delete(root);
    } else if (rc == 0 && json) {
        cJSON *root = build(&ms);
        char *text = cJSON_Print(root);
        puts(text);
        cJSON_free(text);
        cJSON_Delete(root);
    } else if (rc == 0) {
        print_text(&ms);
    }
    model_set_free(&ms);
    return rc ? cli_fail(&err) : 0;
}
