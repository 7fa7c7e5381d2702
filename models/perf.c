/* perf.c - the resource-share throughput model and its data file. */
#include "perf.h"

#include <gsl/gsl_multifit.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "../base/json.h"

const char *const perf_resource_names[PERF_RESOURCES] = {"tensor", "bandwidth", "clock"};

double perf_capacity(const struct gpu_type *t, int k, enum perf_precision p)
{
    switch (k) {
    case PERF_TENSOR: {
        double flops = t->mamf_bf16_tflops * 1e12;
        if (p == PERF_FP8 && t->fp8_tflops > 0)
            flops *= t->fp8_tflops / t->bf16_tflops;
        return flops;
    }
    case PERF_BANDWIDTH: return t->bandwidth_gbs * 1e9;
    default: return t->clock_mhz;
    }
}

/* Run time on t of work that takes 1 s on the model's reference GPU. */
static double time_on(const struct perf_model *pm, const struct perf_workload *w, int t)
{
    const struct gpu_type *r = &pm->cat->types[pm->ref], *g = &pm->cat->types[t];
    double sum = 0;
    for (int k = 0; k < PERF_RESOURCES; k++)
        if (w->share[k] > 0)
            sum += w->share[k] * perf_capacity(r, k, w->precision) / perf_capacity(g, k, w->precision);
    return sum;
}

double perf_relative(const struct perf_model *pm, int w, int t, int ref)
{
    const double *m = pm->w[w].measured, *o = pm->w[w].offline;
    if (m[t] > 0 && m[ref] > 0)
        return m[t] / m[ref];
    if (o[t] > 0 && o[ref] > 0)
        return o[t] / o[ref];
    return time_on(pm, &pm->w[w], ref) / time_on(pm, &pm->w[w], t);
}

double perf_scaling(const struct perf_model *pm, int w, int t, int gpus, int nnodes)
{
    if (gpus <= 1)
        return 1;
    const struct gpu_type *g = &pm->cat->types[t], *r = &pm->cat->types[pm->ref];
    double path = g->link_gbs;
    if (nnodes > 1 && pm->network_gbs < path)
        path = pm->network_gbs;
    if (path <= 0)
        path = pm->network_gbs;
    /* A ring all-reduce moves 2 (n-1)/n of the data per GPU: normalize so
     * the share is the stated one at 8 GPUs on the reference link. */
    double volume = ((double)(gpus - 1) / gpus) / (7.0 / 8.0);
    double comm = pm->w[w].comm_share * volume * r->link_gbs / path;
    return 1 / (1 + comm);
}

double perf_batch(const struct perf_workload *w, int t)
{
    return w->max_batch[t] > 0 ? w->max_batch[t] : w->batch;
}

void perf_llm_shares(const struct perf_llm *llm, enum perf_precision p,
                     const struct gpu_type *ref, double share[PERF_RESOURCES])
{
    double flops = perf_capacity(ref, PERF_TENSOR, p), bw = perf_capacity(ref, PERF_BANDWIDTH, p);
    double compute = 2 * llm->params * llm->prompt_tokens / flops; /* prefill */
    double memory = 0;
    double context = llm->prompt_tokens + llm->output_tokens / 2;
    double step_bw = (llm->params * llm->bytes_per_param + llm->batch * llm->kv_bytes_per_token * context) / bw;
    double step_c = 2 * llm->params * llm->batch / flops;
    /* Each decode step serves batch requests; it is bound by the slower of
     * reading the weights and KV cache, and the matmuls. */
    double per_request = llm->output_tokens * fmax(step_bw, step_c) / llm->batch;
    if (step_bw >= step_c)
        memory += per_request;
    else
        compute += per_request;
    share[PERF_TENSOR] = compute / (compute + memory);
    share[PERF_BANDWIDTH] = memory / (compute + memory);
    share[PERF_CLOCK] = 0;
}

int perf_add_measured(struct perf_model *pm, const char *name, const double *measured, int like)
{
    if (pm->n == PERF_MAX_WORKLOADS || perf_workload_find(pm, name) >= 0 ||
        strlen(name) >= sizeof pm->w[0].name)
        return -1;
    struct perf_workload *w = &pm->w[pm->n];
    *w = pm->w[like];
    snprintf(w->name, sizeof w->name, "%s", name);
    w->nholdout = 0;
    for (int t = 0; t < GPU_MAX_TYPES; t++)
        w->measured[t] = measured[t];
    return pm->n++;
}

int perf_workload_find(const struct perf_model *pm, const char *name)
{
    for (int i = 0; i < pm->n; i++)
        if (strcmp(pm->w[i].name, name) == 0)
            return i;
    return -1;
}

int perf_workload_for_kind(const struct perf_model *pm, const char *kind)
{
    for (int i = 0; i < pm->nkinds; i++)
        if (strcmp(pm->kind_names[i], kind) == 0)
            return perf_workload_find(pm, pm->kind_workload[i]);
    return -1;
}

void perf_model_free(struct perf_model *pm)
{
    free(pm);
}
