/* cmd_models.c - `fleetsim models [--json]`: the catalog and the curves
 * derived from it, so anyone can check the calibrated figures. */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../models/memory.h"
#include "../models/models.h"
#include "cli.h"

static int usage(int code)
{
    fprintf(code ? stderr : stdout,
            "usage: fleetsim models [--json] [--catalog FILE]\n\n"
            "Print the GPU catalog and what the models derive from it: per-GPU throughput\n"
            "of each workload relative to the reference GPU, memory fit of reference models\n"
            "(7B, 13B, 70B; train, LoRA, inference on one GPU), power at 0-100 %% load, and\n"
            "the node templates.  --json prints the same as one JSON object on stdout.\n");
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
    {"infer", {.method = MEM_INFER, .gpus = 1, .seq_len = 4096, .micro_batch = 8, .kv_budget_gb = -1}},
};

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
            struct mem_need need = mem_estimate(&ref_models[i].m, &ref_jobs[k].j);
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
            struct mem_need need = mem_estimate(&ref_models[i].m, &ref_jobs[k].j);
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

int cmd_models(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"catalog", required_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *catalog = NULL;
    bool json = false;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = true; break;
        case 'c': catalog = optarg; break;
        case 'h': return usage(0);
        default:
            fprintf(stderr, "fleetsim: models: unknown or incomplete option %s\n", argv[optind - 1]);
            return usage(64);
        }
    }
    if (optind != argc) {
        fprintf(stderr, "fleetsim: models: unexpected argument \"%s\"\n", argv[optind]);
        return usage(64);
    }
    struct model_set ms;
    struct fs_err err = {0};
    int rc = model_set_load(catalog ? catalog : cli_default_catalog(), &ms, &err);
    if (rc == 0 && json) {
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
