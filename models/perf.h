/* perf.h - throughput: how fast a job's work runs on a placement.
 *
 * A roofline-style resource model.  Each workload profile says what share
 * of its run time on the reference GPU is bound by each resource:
 *   tensor     achievable matrix throughput at the profile's precision
 *              (measured BF16 MAMF; FP8 scales it by the datasheet FP8/BF16
 *              ratio on GPUs that have FP8, and falls back to BF16 on GPUs
 *              that do not);
 *   bandwidth  memory bandwidth;
 *   clock      latency-bound work (small kernels, launches) that scales
 *              with the tensor boost clock.
 * Time on GPU G relative to the reference R is
 *   t_G / t_R = sum_k share_k x capacity_k(R) / capacity_k(G),
 * and G's per-GPU speed relative to R is the inverse.
 *
 * Shares come from one of three places in models/data/workloads.json:
 * given with a source; fitted with GSL least squares to published relative
 * throughputs ("fit" points; "holdout" points are kept for tests); or
 * derived from an LLM inference spec (parameters, precision, prompt and
 * output tokens, batch): prefill is compute-bound, and each decode step
 * reads the weights once per batch plus every sequence's KV cache, bound by
 * whichever of compute and bandwidth takes longer on the reference GPU.
 *
 * An LLM inference spec without a "batch" is batch inference at the
 * largest batch memory allows, on the calibrated LLM model (models/llm.h)
 * that services also run on: per GPU type, llm_serve's offline output
 * tokens/s per GPU at batch max, on the fewest GPUs of a node that hold the
 * model (tensor parallel), in the workload's precision, or bf16 (fp16 where
 * BF16 is absent) on a type without FP8, as the roofline falls back.  The
 * per-GPU speed of such a workload on t over ref is the ratio of those
 * throughputs; a GPU with more memory gets a larger batch and, where that
 * lifts its throughput, a higher speed.  The weight and KV bytes and the
 * batch its shares are derived at come from the same model (Llama-3-style
 * architecture for the size, llm_arch_default; the reference GPU's largest
 * batch); the shares only serve the types the model cannot run it on, and
 * turning a job's tokens into work.  A spec with a "batch" keeps the
 * roofline at that fixed batch (llm-decode: single-stream decode, batch 1
 * by definition).
 *
 * Multi-GPU jobs lose a communication share that grows with the GPU count
 * and with the ratio of the reference NVLink bandwidth to the path's
 * bandwidth (NVLink or PCIe inside a node, the network between nodes).
 *
 * Measured throughputs override the roofline where they exist.  A workload
 * may carry "measured": {"GPU-TYPE": {"value": X, "source": "ID"}, ...},
 * X > 0 the workload's throughput on one GPU of that type in any unit
 * (samples/s, iterations/s), the same unit for every type of the workload
 * (e.g. the per-job-type throughput matrix of Gavel, Narayanan et al.,
 * OSDI 2020).  When both the target and the reference type of a
 * perf_relative call are measured, the answer is their ratio; otherwise
 * the roofline estimate.  The workload still needs shares (given, fitted
 * or derived) for the types it was not measured on.  Unknown GPU names and
 * values <= 0 are errors naming the file and the JSON path.
 *
 * The caller owns the model and frees it with perf_model_free; the catalog
 * must outlive it.
 */
#ifndef FS_MODELS_PERF_H
#define FS_MODELS_PERF_H

#include "gpu.h"
#include "llm.h"

enum perf_resource { PERF_TENSOR, PERF_BANDWIDTH, PERF_CLOCK, PERF_RESOURCES };
enum perf_precision { PERF_BF16, PERF_FP8 };

#define PERF_MAX_WORKLOADS 64
#define PERF_MAX_POINTS 8

/* A published relative throughput: gpu's speed over the reference's. */
struct perf_point {
    int gpu;
    double ratio;
};

/* An LLM inference spec (per request). */
struct perf_llm {
    double params, bytes_per_param, kv_bytes_per_token;
    double prompt_tokens, output_tokens, batch;
};

struct perf_workload {
    char name[32];
    enum perf_precision precision;
    double share[PERF_RESOURCES];   /* sums to 1 */
    double comm_share;              /* at 8 GPUs on the reference's NVLink */
    int nholdout;
    struct perf_point holdout[PERF_MAX_POINTS];
    double power_load;              /* load share for the power model; < 0: by kind */
    double batch;                   /* LLM inference: the batch the shares are
                                       derived at (the spec's, or the reference
                                       GPU's largest); 0 for others */
    bool batch_max;                 /* LLM inference at the largest batch: */
    double offline[GPU_MAX_TYPES];  /* output tokens/s per GPU at it, by
                                       catalog index; 0: the type cannot run it */
    int max_batch[GPU_MAX_TYPES];   /* sequences per replica at it; 0: as offline */
    double measured[GPU_MAX_TYPES]; /* throughput per GPU by catalog index,
                                       any one unit; 0 = not measured */
};

struct perf_model {
    const struct gpu_catalog *cat;
    int ref;                        /* reference GPU (catalog index) */
    double network_gbs;             /* per GPU, between nodes, one direction */
    int n;
    struct perf_workload w[PERF_MAX_WORKLOADS];
    char kind_workload[8][32];      /* default workload per job kind name */
    char kind_names[8][16];
    int nkinds;
};

/* Load path (workloads.json), fitting what needs fitting; llm (loaded with
 * the same catalog) answers the LLM specs without a batch, and may be NULL
 * when the file has none.
 * RET: 0, FS_ENOINPUT or FS_EDATA (bad file, unknown GPU or workload, a fit
 * with negative shares, a batch-max spec the reference GPU cannot run or
 * without an LLM model), with err filled. */
int perf_model_load(const char *path, const struct gpu_catalog *cat, const struct llm_model *llm,
                    struct perf_model **out, struct fs_err *err);
void perf_model_free(struct perf_model *pm);

/* Append a workload called name (at most 31 characters) that runs like
 * workload like except where measured[t] > 0 (per catalog type, any one
 * unit), as a workload's "measured" block does.  RET: its index; -1 when
 * the model is full or name is taken. */
int perf_add_measured(struct perf_model *pm, const char *name, const double *measured, int like);

/* Index of the workload called name, or -1. */
int perf_workload_find(const struct perf_model *pm, const char *name);
/* The default workload for a job kind name ("train"), or -1. */
int perf_workload_for_kind(const struct perf_model *pm, const char *kind);

/* Per-GPU speed of workload w on type t relative to type ref (> 0): the
 * ratio of the measured throughputs when both types are measured, else of
 * the LLM model's batch-max throughputs when both types run it, else the
 * roofline estimate. */
double perf_relative(const struct perf_model *pm, int w, int t, int ref);

/* Scaling efficiency (0,1] of workload w on gpus GPUs of type t spread over
 * nnodes nodes; 1 for a single GPU. */
double perf_scaling(const struct perf_model *pm, int w, int t, int gpus, int nnodes);

/* What type t offers of resource k for work at precision p: FLOP/s, bytes/s
 * or MHz. */
double perf_capacity(const struct gpu_type *t, int k, enum perf_precision p);
extern const char *const perf_resource_names[PERF_RESOURCES];

/* The batch LLM inference workload w runs at on type t: its largest batch
 * there, else the batch its shares are derived at; 0 for other work. */
double perf_batch(const struct perf_workload *w, int t);

/* Derive shares from an LLM spec on GPU type ref (exposed for tests). */
void perf_llm_shares(const struct perf_llm *llm, enum perf_precision p,
                     const struct gpu_type *ref, double share[PERF_RESOURCES]);

#endif
