/* llm.c - the LLM serving model: step time, throughput and what fits
 * (llm.h).  Loading and fitting are in llm_load.c.
 *
 * Bytes per value (weights; KV cache):
 * - fp16, bf16: 2; 2.
 * - fp8 (W8A8, FP8 tensor cores): 1; 1 (FP8 KV cache, as NVIDIA's MLPerf
 *   Llama-2-70B submissions and vLLM's fp8 kv_cache_dtype).
 * - int8 (W8A8, SmoothQuant-style, INT8 tensor cores): 1; 2.
 * - int4 (weight-only W4A16, AWQ/GPTQ): 4 bits plus an fp16 scale and zero
 *   per group of 128 weights, 4.25 bits = 0.53125 B; KV 2; the matmuls run
 *   at the 16-bit rate after dequantization.
 * Tensor rate by precision: bf16_tflops for fp16, bf16 and int4 (on GPUs
 * without BF16 the catalog's bf16_tflops is the FP16 rate, so bf16 is
 * refused there and the default falls back to fp16); fp8_tflops; int8_tops.
 */
#include "llm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"

#define GB 1e9

const char *const llm_precision_names[LLM_PRECISIONS] = {"fp16", "bf16", "fp8", "int8", "int4"};
const char *const llm_phase_names[LLM_PHASES] = {"prefill", "decode", "offline"};
const char *const llm_memory_kinds[LLM_MEM_KINDS] = {"hbm2", "hbm2e", "hbm3", "hbm3e", "gddr5", "gddr6", "gddr6x"};

static const double weight_bytes[LLM_PRECISIONS] = {2, 2, 1, 1, 0.53125};
static const double kv_bytes[LLM_PRECISIONS] = {2, 2, 1, 2, 2};

double llm_weight_bytes(enum llm_precision p)
{
    return weight_bytes[p];
}

double llm_kv_bytes(enum llm_precision p)
{
    return kv_bytes[p];
}

struct llm_arch llm_arch_default(double params)
{
    struct mem_model m = {.params = params};
    struct llm_arch a = {.params = params, .kv_dim = 1024};
    mem_shape(&m, &a.layers, &a.hidden);
    return a;
}

int llm_memory_kind(const struct gpu_type *t)
{
    for (int i = 0; i < LLM_MEM_KINDS; i++)
        if (strcmp(t->memory_type, llm_memory_kinds[i]) == 0)
            return i;
    return 0; /* the catalog loader admits only the kinds above */
}

/* Dense tensor FLOP/s of t at p; 0 when t lacks it. */
static double tensor_rate(const struct gpu_type *t, enum llm_precision p)
{
    switch (p) {
    case LLM_FP8: return t->fp8_tflops * 1e12;
    case LLM_INT8: return t->int8_tops * 1e12;
    case LLM_BF16: return t->has_bf16 ? t->bf16_tflops * 1e12 : 0;
    default: return t->bf16_tflops * 1e12;
    }
}

static double kv_per_token(const struct llm_arch *a, enum llm_precision p)
{
    return 2.0 * a->layers * a->kv_dim * kv_bytes[p];
}

void llm_step_terms(const struct gpu_type *t, const struct llm_arch *a, enum llm_precision p,
                    double weights_gb, int tp, const struct llm_step *s, double terms[4])
{
    double n = tp > 1 ? tp : 1;
    double w = weights_gb > 0 ? weights_gb * GB : a->params * weight_bytes[p];
    double rate = tensor_rate(t, p);
    terms[0] = (w + s->context * kv_per_token(a, p)) / n / (t->bandwidth_gbs * GB);
    terms[1] = rate > 0 ? (2 * a->params * s->tokens + s->attn_flops) / n / rate : HUGE_VAL;
    terms[2] = log2(n);
    /* Two all-reduces per layer of tokens x hidden 16-bit activations; a
     * ring moves 2 (n - 1) / n of them through each GPU's link. */
    terms[3] = n > 1 && t->link_gbs > 0
                   ? 2 * a->layers * s->tokens * a->hidden * 2.0 * 2 * (n - 1) / n / (t->link_gbs * GB)
                   : 0;
}

double llm_step_s(const struct llm_model *lm, int stack, const struct gpu_type *t, const struct llm_arch *a,
                  enum llm_precision p, double weights_gb, int tp, const struct llm_step *s)
{
    double x[4];
    llm_step_terms(t, a, p, weights_gb, tp, s, x);
    return x[0] / lm->eta[llm_memory_kind(t)] + x[1] / lm->mu + x[3] / lm->link_eff +
           a->layers * (lm->tau0[stack] + lm->tau1[stack] * x[2]);
}

static struct llm_step decode_step(double batch, double input, double output)
{
    return (struct llm_step){.tokens = batch, .context = batch * (input + output / 2)};
}

static struct llm_step prefill_step(const struct llm_arch *a, double batch, double input)
{
    return (struct llm_step){.tokens = batch * input,
                             .attn_flops = batch * 2.0 * a->layers * a->hidden * input * input};
}

struct llm_step llm_point_step(const struct llm_point *p)
{
    return p->phase == LLM_DECODE ? decode_step(p->batch, p->input, p->output)
                                  : prefill_step(&p->arch, p->batch, p->input);
}

double llm_tokens_per_s(const struct llm_model *lm, const struct gpu_type *t, const struct llm_arch *a,
                        enum llm_precision p, int tp, double batch, double input, double output,
                        enum llm_phase phase)
{
    double n = tp > 1 ? tp : 1;
    struct llm_step d = decode_step(batch, input, output), f = prefill_step(a, batch, input);
    switch (phase) {
    case LLM_PREFILL: return batch * input / llm_step_s(lm, lm->serving, t, a, p, 0, tp, &f) / n;
    case LLM_DECODE: return batch / llm_step_s(lm, lm->serving, t, a, p, 0, tp, &d) / n;
    default:
        return batch * output /
               (llm_step_s(lm, lm->serving, t, a, p, 0, tp, &f) + output * llm_step_s(lm, lm->serving, t, a, p, 0, tp, &d)) / n;
    }
}

/* Why t cannot run precision p, or NULL. */
static const char *precision_refusal(const struct gpu_type *t, enum llm_precision p)
{
    if (p == LLM_BF16 && !t->has_bf16)
        return "no BF16 tensor support";
    if (p == LLM_FP8 && !(t->fp8_tflops > 0))
        return "no FP8 tensor cores";
    if (p == LLM_INT8 && !(t->int8_tops > 0))
        return "no INT8 tensor cores";
    return NULL;
}

/* GB per GPU a tp-way replica leaves for KV cache: LLM_MEM_UTIL of the
 * memory less the inference rule's weights and overhead (models/memory). */
static double kv_room_gb(const struct gpu_type *t, const struct llm_arch *a, enum llm_precision p, int tp)
{
    struct mem_model m = {.params = a->params, .bytes_per_param = weight_bytes[p],
                          .layers = a->layers, .hidden = a->hidden};
    struct mem_job j = {.method = MEM_INFER, .gpus = tp, .kv_budget_gb = 0};
    return LLM_MEM_UTIL * t->memory_gb - mem_estimate(&m, &j).per_gpu_gb;
}

static int tp_limit(const struct llm_model *lm, int t)
{
    const struct node_template *nt = node_template_for_gpu(lm->nodes, t);
    int n = nt ? nt->gpus : LLM_MAX_TP;
    return n < LLM_MAX_TP ? n : LLM_MAX_TP;
}

struct llm_answer llm_serve(const struct llm_model *lm, int ti, const struct llm_query *q)
{
    const struct gpu_type *t = &lm->cat->types[ti];
    struct llm_answer r = {0};
    struct llm_arch a = llm_arch_default(q->params);
    enum llm_precision p = q->prec;
    if (p == LLM_PRECISIONS)
        p = t->has_bf16 ? LLM_BF16 : LLM_FP16;
    r.prec = p;
    const char *no = precision_refusal(t, p);
    if (no) {
        snprintf(r.reason, sizeof r.reason, "%s: %s", llm_precision_names[p], no);
        return r;
    }
    double seq_kv_gb = kv_per_token(&a, p) * (q->input_tokens + q->output_tokens) / GB;
    int limit = tp_limit(lm, ti);
    double room = 0;
    int tp, last = 1;
    if (q->tp > limit) {
        snprintf(r.reason, sizeof r.reason, "%d GPUs: a %s node holds %d", q->tp, t->name, limit);
        return r;
    }
    for (tp = q->tp > 0 ? q->tp : 1; tp <= (q->tp > 0 ? q->tp : limit); tp *= 2) {
        last = tp;
        room = kv_room_gb(t, &a, p, tp);
        double budget = q->kv_budget_gb >= 0 ? q->kv_budget_gb / tp : room;
        if (budget > room || !(budget > 0))
            continue;
        double mb = floor(budget / (seq_kv_gb / tp));
        int need = q->batch > 0 ? q->batch : 1;
        if (mb < need)
            continue;
        r.fits = true;
        r.gpus = tp;
        r.max_batch = mb > LLM_MAX_BATCH ? LLM_MAX_BATCH : (int)mb;
        r.batch = q->batch > 0 ? q->batch : r.max_batch;
        r.tokens_per_s_per_gpu = llm_tokens_per_s(lm, t, &a, p, tp, r.batch, q->input_tokens,
                                                  q->output_tokens, q->phase);
        return r;
    }
    double weights = a.params * weight_bytes[p] / GB;
    int seqs = q->batch > 0 ? q->batch : 1;
    if (q->kv_budget_gb >= 0 && room > 0 && q->kv_budget_gb / last > room)
        snprintf(r.reason, sizeof r.reason, "a KV budget of %.4g GB over %d GPUs exceeds the %.4g GB per GPU "
                 "the weights leave", q->kv_budget_gb, last, room);
    else if (room > 0 && q->kv_budget_gb >= 0)
        snprintf(r.reason, sizeof r.reason, "%d sequence(s) of %d tokens need %.4g GB of KV cache; the KV "
                 "budget is %.4g GB", seqs, q->input_tokens + q->output_tokens, seq_kv_gb * seqs, q->kv_budget_gb);
    else if (room > 0)
        snprintf(r.reason, sizeof r.reason, "%d sequence(s) of %d tokens need %.4g GB of KV cache; %d GPUs "
                 "leave %.4g GB", seqs, q->input_tokens + q->output_tokens, seq_kv_gb * seqs, last, room * last);
    else
        snprintf(r.reason, sizeof r.reason, "%.4g GB of %s weights do not fit %d x %.4g GB (%.0f %% usable, "
                 "%.4g GB runtime overhead per GPU)", weights, llm_precision_names[p], last, t->memory_gb,
                 100 * LLM_MEM_UTIL, MEM_OVERHEAD_GB);
    return r;
}

/* The replica's cycle at batch b: t_prefill(b) + output x t_decode(b). */
static double cycle_s(const struct llm_model *lm, const struct gpu_type *t, const struct llm_arch *a,
                      enum llm_precision p, int tp, double b, double input, double output)
{
    struct llm_step d = decode_step(b, input, output), f = prefill_step(a, b, input);
    return llm_step_s(lm, lm->serving, t, a, p, 0, tp, &f) + output * llm_step_s(lm, lm->serving, t, a, p, 0, tp, &d);
}

struct llm_operating llm_operate(const struct llm_model *lm, const struct gpu_type *t, double params, int tp,
                                 double input, double output, double tpot_target_s)
{
    struct llm_operating r = {0};
    struct llm_arch a = llm_arch_default(params);
    enum llm_precision p = t->has_bf16 ? LLM_BF16 : LLM_FP16;
    tp = tp > 1 ? tp : 1;
    double mb = floor(kv_room_gb(t, &a, p, tp) * tp * GB / (kv_per_token(&a, p) * (input + output)));
    r.max_batch = !(mb >= 1) ? 1 : mb > LLM_MAX_BATCH ? LLM_MAX_BATCH : (int)mb;
    int lo = 1, hi = r.max_batch; /* the answer is in [lo, hi] */
    if (tpot_target_s > 0)
        while (lo < hi) {
            int mid = lo + (hi - lo + 1) / 2;
            if (cycle_s(lm, t, &a, p, tp, mid, input, output) / output <= tpot_target_s)
                lo = mid;
            else
                hi = mid - 1;
        }
    else
        lo = hi;
    r.batch = lo;
    double cycle = cycle_s(lm, t, &a, p, tp, r.batch, input, output);
    struct llm_step d = decode_step(r.batch, input, output), f1 = prefill_step(&a, 1, input);
    r.tokens_s = r.batch * output / cycle;
    r.tpot_s = cycle / output;
    r.ttft_s = llm_step_s(lm, lm->serving, t, &a, p, 0, tp, &d) / 2 + llm_step_s(lm, lm->serving, t, &a, p, 0, tp, &f1);
    return r;
}

void llm_model_free(struct llm_model *lm)
{
    free(lm);
}
