/* memory.h - does a job fit in GPU memory, and how much does it need per
 * GPU after sharding?  Pure functions over a model description; no state.
 * Sizes are GB of 1e9 bytes, as in the GPU catalog.
 *
 * Rules (each documented with its source in memory.c):
 * - full training, mixed precision with Adam: weights (2 B/param) + gradients
 *   (2 B/param) + optimizer state (fp32 master + m + v: 12 B/param), all
 *   sharded across the job's GPUs (ZeRO-3 / FSDP), plus activations with
 *   full activation checkpointing for the GPU's own micro-batch (not
 *   sharded): s x b x h x (2 L + 34) bytes;
 * - LoRA fine-tuning: frozen weights at the weight precision (sharded), plus
 *   the adapters trained with Adam (16 B per adapter parameter, sharded),
 *   plus activations as for training;
 * - QLoRA: LoRA over base weights stored at MEM_QLORA_BYTES_PER_PARAM;
 * - inference: weights at the weight precision (sharded by tensor
 *   parallelism) plus the KV cache (sharded);
 * - every method: MEM_OVERHEAD_GB per GPU for the runtime (CUDA context,
 *   library workspaces, allocator slack; for inference also the transient
 *   activations).
 *
 * When layers or hidden is 0 they are estimated from params (mem_shape).
 * Inputs are the caller's to check (the scenario loader does); the rules
 * read out-of-range counts leniently: gpus < 1 as 1, negative lengths as 0.
 */
#ifndef FS_MODELS_MEMORY_H
#define FS_MODELS_MEMORY_H

#include <stdbool.h>

/* Assumption: per-GPU runtime overhead, GB (see memory.c). */
#define MEM_OVERHEAD_GB 2.0
/* Assumption: LoRA adapter parameters / model parameters when the job does
 * not say (see memory.c). */
#define MEM_LORA_FRACTION_DEFAULT 0.01

/* Assumption: the KV cache (and activation) allowance of an inference
 * replica, as a share of its weight bytes (see memory.c). */
#define MEM_KV_FRACTION 0.4
/* QLoRA's frozen base weights: 4-bit NormalFloat with double-quantized
 * constants, 4.127 bits per parameter (see memory.c). */
#define MEM_QLORA_BYTES_PER_PARAM (4.127 / 8)

enum mem_method { MEM_TRAIN, MEM_LORA, MEM_QLORA, MEM_INFER };

struct mem_model {
    double params;          /* parameters, e.g. 70e9 */
    double bytes_per_param; /* weight precision for LoRA's frozen weights and
                               for inference: 2 (BF16), 1 (FP8), 0.5 (4-bit);
                               <= 0 means 2.  Full training always keeps
                               2 B BF16 weights plus fp32 state. */
    int layers;             /* transformer layers; 0 = estimated from params */
    int hidden;             /* model width; 0 = estimated from params */
    int kv_heads_ratio;     /* attention heads / KV heads (GQA); 1 (or 0) = MHA */
};

struct mem_job {
    enum mem_method method;
    int gpus;               /* GPUs the job is sharded over, >= 1 */
    int seq_len;            /* tokens per sequence (context for inference) */
    int micro_batch;        /* sequences per GPU (training) or in flight (inference) */
    double lora_fraction;   /* adapter parameters / model parameters (LoRA);
                               <= 0: MEM_LORA_FRACTION_DEFAULT */
    double kv_budget_gb;    /* inference: KV cache to reserve in all, GB;
                               < 0: seq_len x micro_batch tokens' worth */
};

struct mem_need {
    double weights_gb, grads_gb, optimizer_gb, activations_gb, kv_gb, overhead_gb;
    double per_gpu_gb;      /* the sum, per GPU */
};

/* Memory job j needs on each of its GPUs for model m: every component is
 * per GPU (kv_gb is this GPU's share of the cache).  Never increases when
 * j->gpus grows. */
struct mem_need mem_estimate(const struct mem_model *m, const struct mem_job *j);

/* RET: true when mem_estimate(m, j).per_gpu_gb <= gpu_memory_gb. */
bool mem_fits(const struct mem_model *m, const struct mem_job *j, double gpu_memory_gb);

/* Per-GPU GB that a model of params parameters (weights at bytes_per_param;
 * QLoRA's base is always 4-bit) needs for method on gpus GPUs: the one
 * answer jobs (io/scenario) and service replicas (models/service) share.
 * The shape is mem_shape's; training uses 4096-token sequences, LoRA and
 * QLoRA 2048, one sequence per GPU; inference reserves MEM_KV_FRACTION of
 * the weight bytes for KV cache. */
double mem_llm_gb(double params, enum mem_method method, double bytes_per_param, int gpus);

/* The same rule for a model whose shape m gives (layers, hidden and KV
 * heads where non-zero, else estimated as mem_llm_gb does): the per-GPU GB
 * of method on gpus GPUs.  mem_llm_gb(params, method, b, n) is
 * mem_llm_need(&(struct mem_model){params, b}, method, n). */
double mem_llm_need(const struct mem_model *m, enum mem_method method, int gpus);

/* KV-cache bytes per token for m (both K and V, all layers, at 2 bytes):
 * 2 x layers x (hidden / kv_heads_ratio) x 2. */
double mem_kv_bytes_per_token(const struct mem_model *m);

/* The layers and hidden size the rules use for m: m's own where non-zero,
 * else estimated from params with params = 12 x layers x hidden^2 and
 * hidden = 128 x layers (see memory.c).  OUT *layers, *hidden: >= 1. */
void mem_shape(const struct mem_model *m, int *layers, int *hidden);

#endif
