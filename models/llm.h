/* llm.h - LLM serving throughput per GPU type: batch, precision, memory
 * capacity and tensor parallelism, calibrated on public measurements kept
 * in models/data/llm.json.
 *
 * One forward step of a replica of n GPUs (tensor parallel, in one node)
 * that processes T tokens and reads the KV cache of C context tokens takes
 *
 *   t = (W + C x kv) / n / (eta[m] x BW)                memory: weights, KV
 *     + (2 P T + A) / n / (mu x F[p])                   tensor: matmuls
 *     + 4 L T h (n - 1) / n x 2 B / (link_eff x link)   tensor-parallel all-reduces
 *     + L x (tau0[s] + tau1[s] x log2 n)                per-layer overhead
 *
 * W weight bytes (P parameters x the precision's bytes), kv the KV bytes per
 * token (2 x L x kv_dim x the KV precision's bytes), A the attention FLOPs
 * of a prefill (2 L h s^2 per sequence of s tokens, causal), L layers, BW
 * the GPU's memory bandwidth and F[p] its dense tensor rate at the
 * precision.  A decode step of batch B has T = B and C = B x (input +
 * output / 2); a prefill of B prompts has T = B x input and C = 0.  eta[m]
 * is the achievable share of peak bandwidth per memory technology (HBM2e,
 * HBM3, GDDR6X are fitted; the others take a fitted one's value, each an
 * assumption named in llm.json), mu the achievable share of the tensor
 * peak, link_eff the achievable share of the GPU-GPU link (two ring
 * all-reduces of the step's activations per layer): properties of the
 * hardware, shared by every measurement.  tau0[s]
 * and tau1[s] are the per-layer cost of a step in software stack s (kernel
 * launches, scheduling, tensor-parallel all-reduce latency), which differs
 * by an order of magnitude between stacks and releases: each stack that
 * measured points gets its own, and the model answers for the serving
 * stack llm.json names ("serving_stack", vLLM).  All are fitted at once
 * with GSL weighted linear least squares (relative errors) to the "fit"
 * points of llm.json; "holdout" points are only compared (tests/test_llm.c,
 * the README's calibration table, `fleetsim models --calibration`).
 *
 * Throughput per GPU: decode B / t_decode / n output tokens/s; prefill
 * B x input / t_prefill / n input tokens/s; offline (continuous batching of
 * whole requests) B x output / (t_prefill + output x t_decode) / n output
 * tokens/s.
 *
 * Memory (models/memory.h, the inference rule every job and service uses):
 * weights / n + MEM_OVERHEAD_GB per GPU; the paged KV cache gets what is
 * left of LLM_MEM_UTIL of the GPU's memory (vLLM's default
 * gpu_memory_utilization), or the budget asked for.  The largest batch is
 * the KV budget over (input + output) tokens' KV; a GPU count fits when that
 * batch is at least 1 (or the batch asked for).
 *
 * Default architecture for a size (llm_arch_default): Llama-3 style, layers
 * and hidden from mem_shape (params = 12 L h^2, h = 128 L: 7B 33 x 4224,
 * 70B 71 x 9088) and grouped-query attention with 8 KV heads of 128
 * (kv_dim 1024), as every Llama 3 size, Llama-2-70B and Mistral-7B.
 *
 * The caller owns an llm_model and frees it with llm_model_free.
 */
#ifndef FS_MODELS_LLM_H
#define FS_MODELS_LLM_H

#include <stdbool.h>

#include "gpu.h"
#include "node.h"

enum llm_precision { LLM_FP16, LLM_BF16, LLM_FP8, LLM_INT8, LLM_INT4, LLM_PRECISIONS };
enum llm_phase { LLM_PREFILL, LLM_DECODE, LLM_OFFLINE, LLM_PHASES };

#define LLM_MEM_UTIL 0.90      /* share of GPU memory a serving stack uses */
#define LLM_MAX_TP 8           /* tensor-parallel degrees 1, 2, 4, 8 */
#define LLM_MAX_BATCH 4096     /* the largest batch "max" reports */
#define LLM_MAX_POINTS 96
#define LLM_MEM_KINDS 7
#define LLM_MAX_STACKS 8

extern const char *const llm_precision_names[LLM_PRECISIONS];
extern const char *const llm_phase_names[LLM_PHASES];

struct llm_arch {
    double params;  /* parameters */
    int layers, hidden;
    int kv_dim;     /* K (or V) values per token per layer: KV heads x head dim */
};

/* The Llama-3-style architecture assumed for a model of params parameters. */
struct llm_arch llm_arch_default(double params);

/* Bytes per weight and per KV value at precision p. */
double llm_weight_bytes(enum llm_precision p);
double llm_kv_bytes(enum llm_precision p);

/* One step's work: tokens computed, context tokens whose KV is read, and
 * prefill attention FLOPs. */
struct llm_step {
    double tokens, context, attn_flops;
};

/* A measured figure of llm.json.  kind "step": a step time in seconds;
 * "throughput": offline output tokens/s of the tp-GPU replica; "ratio": one GPU's
 * throughput over another's (gpu2) for the same request. */
enum llm_point_kind { LLM_PT_STEP, LLM_PT_RATIO, LLM_PT_THROUGHPUT };

struct llm_point {
    char id[48];
    char source[32];
    bool fit;                 /* fitted, or held out */
    int stack;                /* index into llm_model.stacks (steps) */
    enum llm_point_kind kind;
    int gpu, gpu2;            /* catalog indexes (gpu2 for ratios) */
    enum llm_precision prec, prec2;
    struct llm_arch arch;
    double weights_gb;        /* > 0: bytes read per step as measured (GGUF size) */
    int tp, tp2;
    enum llm_phase phase;     /* ratio: the phase compared */
    double batch;             /* sequences in the step */
    double input, output;     /* tokens per sequence */
    double measured;          /* s (step) or the ratio */
    char known_miss[160];     /* why the model misses it, when llm.json says so */
    double tol;               /* relative tolerance the tests hold it to */
    double model;             /* what the fitted model gives */
};

struct llm_model {
    const struct gpu_catalog *cat;
    const struct node_catalog *nodes;
    double eta[LLM_MEM_KINDS];  /* by memory technology, gpu_memory_kind order */
    double mu, link_eff;
    int nstacks, serving;       /* serving: the stack llm_serve answers for */
    char stacks[LLM_MAX_STACKS][16];
    double tau0[LLM_MAX_STACKS], tau1[LLM_MAX_STACKS];
    int npoints;
    struct llm_point points[LLM_MAX_POINTS];
    double fit_rms, fit_max;    /* relative errors over the fit points */
};

/* Load path (llm.json), fit, and fill every point's model value.
 * RET: 0, FS_ENOINPUT, or FS_EDATA (bad file, unknown GPU or source, a fit
 * whose efficiencies are not in (0, 1]) with err naming the file. */
int llm_model_load(const char *path, const struct gpu_catalog *cat, const struct node_catalog *nodes,
                   struct llm_model **out, struct fs_err *err);
void llm_model_free(struct llm_model *lm);

/* Seconds one step of a tp-GPU replica of type t takes in stack (the
 * formula above); weights_gb > 0 overrides the weights' bytes. */
double llm_step_s(const struct llm_model *lm, int stack, const struct gpu_type *t, const struct llm_arch *a,
                  enum llm_precision p, double weights_gb, int tp, const struct llm_step *s);

/* The terms of a step's time before the fitted factors: memory seconds at
 * peak bandwidth, tensor seconds at peak rate, log2 tp, all-reduce seconds
 * at the link's peak. */
void llm_step_terms(const struct gpu_type *t, const struct llm_arch *a, enum llm_precision p,
                    double weights_gb, int tp, const struct llm_step *s, double terms[4]);

/* The step a point measured. */
struct llm_step llm_point_step(const struct llm_point *p);

/* What to serve. */
struct llm_query {
    double params;             /* parameters, > 0 */
    enum llm_precision prec;   /* LLM_PRECISIONS: bf16, or fp16 on GPUs without BF16 */
    enum llm_phase phase;
    int batch;                 /* sequences; 0 = the largest memory allows */
    int input_tokens, output_tokens;
    double kv_budget_gb;       /* KV cache per replica, GB; < 0: what memory leaves */
    int tp;                    /* 0: the fewest GPUs that hold it; else exactly this many */
};

struct llm_answer {
    bool fits;
    int gpus;                  /* fewest tensor-parallel GPUs that hold it; 0 if none */
    int max_batch;             /* at that GPU count */
    int batch;                 /* the batch the throughput is for */
    double tokens_per_s_per_gpu;
    enum llm_precision prec;   /* the precision used */
    char reason[200];          /* why not, when !fits */
};

/* Answer q for GPU type t (tensor parallel up to its node's GPU count). */
struct llm_answer llm_serve(const struct llm_model *lm, int t, const struct llm_query *q);

/* Throughput per GPU of a tp-GPU replica of type t at batch b (no memory
 * check): output tokens/s (decode, offline) or input tokens/s (prefill). */
double llm_tokens_per_s(const struct llm_model *lm, const struct gpu_type *t, const struct llm_arch *a,
                        enum llm_precision p, int tp, double batch, double input, double output,
                        enum llm_phase phase);

/* A serving replica's operating point (llm_operate): what the simulation's
 * services run at (models/service.h).  The replica serves requests of
 * `input` prompt and `output` generated tokens by continuous batching of
 * whole requests, `batch` sequences in flight, each replaced by a new one
 * when it finishes, so per `output` decode steps of the batch it also
 * prefills `batch` prompts (the offline formula above):
 *
 *   tokens_s = batch x output / (t_prefill(batch) + output x t_decode(batch))
 *   tpot_s   = batch / tokens_s = t_decode(batch) + t_prefill(batch) / output
 *              (the mean time between two tokens of one sequence, the
 *              prefill stalls of the others' prompts included: what MLPerf's
 *              TPOT, (latency - TTFT) / (tokens - 1), measures)
 *   ttft_s   = t_decode(batch) / 2 + t_prefill(1)
 *              (no queue: a new request waits on average half the decode
 *              step in progress, then its own prompt's prefill produces its
 *              first token)
 *
 * max_batch is the KV cache's capacity: what is left of LLM_MEM_UTIL of the
 * replica's memory after the weights and MEM_OVERHEAD_GB per GPU (models/
 * memory.h's inference rule), over one sequence's (input + output) tokens of
 * KV, at most LLM_MAX_BATCH and at least 1 (the caller admitted the replica
 * by the memory rule, which reserves KV room).  batch is the largest batch
 * <= max_batch whose tpot_s meets tpot_target_s (tpot_s grows with the
 * batch), 1 when none does (then tpot_s > tpot_target_s shows it), max_batch
 * when tpot_target_s <= 0.  Precision: bf16, fp16 on GPUs without BF16. */
struct llm_operating {
    int max_batch, batch;
    double tokens_s;           /* output tokens/s of the whole replica */
    double ttft_s, tpot_s;     /* seconds */
};

struct llm_operating llm_operate(const struct llm_model *lm, const struct gpu_type *t, double params, int tp,
                                 double input, double output, double tpot_target_s);

/* Index of t's memory technology in eta[]. */
int llm_memory_kind(const struct gpu_type *t);
extern const char *const llm_memory_kinds[LLM_MEM_KINDS];

#endif
