/* cmd_models.c - `fleetsim models [--json]`: the catalog and the curves
 * derived from it, so anyone can check the calibrated figures. */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reports/models_report.h"
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
    if (rc == 0) {
        cJSON *root = llm_arg ? models_llm_json(&ms, &q) : calibration ? models_calibration_json(ms.llm) : models_json(&ms);
        if (json) {
            char *text = cJSON_Print(root);
            puts(text);
            cJSON_free(text);
        } else if (llm_arg) {
            models_llm_print(stdout, root);
        } else if (calibration) {
            models_calibration_print(stdout, ms.llm);
        } else {
            models_print(stdout, &ms);
        }
        cJSON_Delete(root);
    }
    model_set_free(&ms);
    return rc ? cli_fail(&err) : 0;
}
