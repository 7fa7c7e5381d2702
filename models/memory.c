/* memory.c - per-GPU memory a training, LoRA or inference job needs.
 *
 * Where each rule comes from:
 *
 * - Model states in mixed-precision Adam training: 16 bytes per parameter,
 *   2 (fp16/bf16 weights) + 2 (gradients) + 12 (fp32 master weights,
 *   momentum and variance).  Rajbhandari et al., "ZeRO: Memory Optimizations
 *   Toward Training Trillion Parameter Models", SC'20, sec. 3.1 ("2Ψ + 2Ψ +
 *   KΨ" with K = 12).  With ZeRO stage 3 (or PyTorch FSDP full sharding)
 *   every one of the three is partitioned over the data-parallel GPUs, so
 *   each holds 16 Ψ / N (their Figure 1, "P_os+g+p").
 *
 * - Activations with full activation recomputation: Korthikanti et al.,
 *   "Reducing Activation Recomputation in Large Transformer Models",
 *   MLSys'23 (arXiv 2205.05198).  One layer stores s·b·h·(34 + 5·a·s/h)
 *   bytes at 16-bit precision (their activations-per-layer analysis); with
 *   full recomputation only each layer's input is kept, 2·s·b·h·L bytes for
 *   L layers (s sequence length, b micro-batch, h hidden, a heads).  The
 *   peak adds the one layer being recomputed for its backward pass,
 *   34·s·b·h: the 5·a·s/h attention-score term is dropped because
 *   FlashAttention (Dao et al., NeurIPS'22) never materializes the s x s
 *   scores.  So we use
 *   s·b·h·(2·L + 34) bytes per GPU, for that GPU's own micro-batch; data
 *   parallelism does not shard it.  The logits (s·b·vocab·4 bytes, about
 *   0.26 GB for s = 2048, b = 1 and a 32k vocabulary) are left to the
 *   runtime overhead.
 *
 * - LoRA (Hu et al., ICLR'22): the base weights are frozen, so they need
 *   only their own precision and no gradients or optimizer state; the
 *   adapters are trained like any parameters, 16 bytes each as above.
 *   Default adapter fraction, an assumption: 1 %.  Rank 16 on every linear
 *   layer of Llama-2-7B (32 layers; q, k, v, o are 4096 x 4096, gate, up,
 *   down are 4096 x 11008) is 32 x 16 x (4 x 8192 + 3 x 15104) = 40.0 M
 *   parameters, 0.6 % of 6.74 B; the LoRA paper's own GPT-3 settings train
 *   far fewer (4.7 M and 37.7 M of 175 B, Table 4).  1 % covers the common
 *   configurations without being tight.
 *
 * - QLoRA (Dettmers et al., "QLoRA: Efficient Finetuning of Quantized
 *   LLMs", NeurIPS'23, sec. 3): the frozen base is stored as 4-bit
 *   NormalFloat with one fp32 constant per 64 weights, themselves quantized
 *   to 8 bits with one fp32 per 256 ("double quantization"): 4 + 8/64 +
 *   32/(64 x 256) = 4.127 bits per parameter.  Adapters, their gradients
 *   and Adam state are those of LoRA (16 bytes per adapter parameter; the
 *   paper's paged 32-bit Adam and bf16 adapters come to 2 + 2 + 8 = 12,
 *   so 16 is on the safe side).  The paper fine-tunes a 65B model on one
 *   48 GB GPU.
 *
 * - Inference allowance, an assumption: MEM_KV_FRACTION = 0.4 of the
 *   weight bytes for KV cache and activations, enough for tens of
 *   sequences (models/service.h works it through for 7B and 70B).
 *
 * - KV cache: for every token, each layer keeps a key and a value vector of
 *   hidden / kv_heads_ratio elements (grouped-query attention, Ainslie et
 *   al., EMNLP'23, shares each K/V head among kv_heads_ratio query heads) at
 *   2 bytes (FP16/BF16 cache): 2 x layers x hidden / ratio x 2 bytes.  For
 *   Llama-2-70B (80 layers, 8192 wide, 64 query and 8 KV heads) that is
 *   2 x 80 x 1024 x 2 = 327,680 bytes per token.  Tensor parallelism splits
 *   the heads, so the cache is sharded over the GPUs.
 *
 * - Runtime overhead per GPU, an assumption: MEM_OVERHEAD_GB = 2 GB for
 *   the CUDA context (a few hundred MB), cuBLAS/NCCL workspaces and
 *   communication buffers, and caching-allocator slack; for inference it
 *   also stands for the transient activations of the forward pass.
 *
 * - Model shape when layers or hidden is not given: a decoder layer has
 *   about 12·h² parameters (4·h² attention, 8·h² MLP), so params ≈
 *   12 · layers · hidden² (Kaplan et al., "Scaling Laws for Neural Language
 *   Models", 2020, sec. 2.1).  For the aspect we use hidden = 128 · layers,
 *   which published decoders follow: GPT-3 6.7B 32 x 4096, 175B 96 x 12288
 *   (Brown et al. 2020, Table 2.1); Llama-2-7B 32 x 4096, 13B 40 x 5120
 *   (Touvron et al. 2023).  Llama-2-70B (80 x 8192) is wider-than-deep at
 *   102 per layer: the rule gives 71 x 9088 for 70e9, whose layers x hidden
 *   (what KV and activation sizes depend on) is within 2 % of the real one.
 *   Pass the real dimensions when they are known.
 */
#include "memory.h"

#include <math.h>

#define GB 1e9
#define ASPECT 128.0 /* hidden / layers */
#define SHAPE_MAX 1000000

/* The rules' reading of m's precision and attention grouping. */
static double weight_bytes(const struct mem_model *m)
{
    return m->bytes_per_param > 0 ? m->bytes_per_param : 2.0;
}

static int kv_ratio(const struct mem_model *m)
{
    return m->kv_heads_ratio > 0 ? m->kv_heads_ratio : 1;
}

static int clamp_shape(double x)
{
    if (!(x >= 1))
        return 1;
    if (x > SHAPE_MAX)
        return SHAPE_MAX;
    return (int)lround(x);
}

void mem_shape(const struct mem_model *m, int *layers, int *hidden)
{
    double p = m->params > 0 ? m->params : 0;
    int l = m->layers, h = m->hidden;
    if (l <= 0 && h <= 0) {
        /* p = 12 L (128 L)^2 = 12 * 128^2 * L^3. */
        l = clamp_shape(cbrt(p / (12 * ASPECT * ASPECT)));
        h = (int)ASPECT * l;
    } else if (l <= 0) {
        l = clamp_shape(p / (12.0 * h * h));
    } else if (h <= 0) {
        h = clamp_shape(sqrt(p / (12.0 * l)));
    }
    *layers = l;
    *hidden = h;
}

double mem_kv_bytes_per_token(const struct mem_model *m)
{
    int l, h;
    mem_shape(m, &l, &h);
    return 2.0 * l * ((double)h / kv_ratio(m)) * 2.0;
}

/* Bytes of activations one GPU holds for its micro-batch with full
 * activation checkpointing: s b h (2 L + 34). */
static double activation_bytes(const struct mem_model *m, const struct mem_job *j)
{
    int l, h;
    mem_shape(m, &l, &h);
    double s = j->seq_len > 0 ? j->seq_len : 0;
    double b = j->micro_batch > 0 ? j->micro_batch : 0;
    return s * b * h * (2.0 * l + 34.0);
}

struct mem_need mem_estimate(const struct mem_model *m, const struct mem_job *j)
{
    struct mem_need r = {0};
    double n = j->gpus > 1 ? j->gpus : 1;
    double p = m->params > 0 ? m->params : 0;

    switch (j->method) {
    case MEM_TRAIN:
        r.weights_gb = 2 * p / n / GB;
        r.grads_gb = 2 * p / n / GB;
        r.optimizer_gb = 12 * p / n / GB;
        r.activations_gb = activation_bytes(m, j) / GB;
        break;
    case MEM_LORA:
    case MEM_QLORA: {
        double f = j->lora_fraction > 0 ? j->lora_fraction : MEM_LORA_FRACTION_DEFAULT;
        double adapters = f * p;
        double base = j->method == MEM_QLORA ? MEM_QLORA_BYTES_PER_PARAM : weight_bytes(m);
        r.weights_gb = (base * p + 2 * adapters) / n / GB;
        r.grads_gb = 2 * adapters / n / GB;
        r.optimizer_gb = 12 * adapters / n / GB;
        r.activations_gb = activation_bytes(m, j) / GB;
        break;
    }
    case MEM_INFER: {
        double kv = j->kv_budget_gb;
        if (kv < 0) {
            double tokens = (j->seq_len > 0 ? j->seq_len : 0) *
                            (double)(j->micro_batch > 0 ? j->micro_batch : 0);
            kv = tokens * mem_kv_bytes_per_token(m) / GB;
        }
        r.weights_gb = weight_bytes(m) * p / n / GB;
        r.kv_gb = kv / n;
        break;
    }
    }
    r.overhead_gb = MEM_OVERHEAD_GB;
    r.per_gpu_gb = r.weights_gb + r.grads_gb + r.optimizer_gb + r.activations_gb + r.kv_gb +
                   r.overhead_gb;
    return r;
}

bool mem_fits(const struct mem_model *m, const struct mem_job *j, double gpu_memory_gb)
{
    return mem_estimate(m, j).per_gpu_gb <= gpu_memory_gb;
}

double mem_llm_need(const struct mem_model *m, enum mem_method method, int gpus)
{
    struct mem_job j = {.method = method, .gpus = gpus, .micro_batch = 1,
                        .seq_len = method == MEM_TRAIN ? 4096 : 2048,
                        .kv_budget_gb = MEM_KV_FRACTION * weight_bytes(m) * m->params / GB};
    return mem_estimate(m, &j).per_gpu_gb;
}

double mem_llm_gb(double params, enum mem_method method, double bytes_per_param, int gpus)
{
    struct mem_model m = {.params = params, .bytes_per_param = bytes_per_param};
    return mem_llm_need(&m, method, gpus);
}
