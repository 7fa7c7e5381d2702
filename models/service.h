/* service.h - LLM inference services: long-running deployments whose work is
 * a demand curve rather than a fixed amount, served by replicas that an
 * autoscaler adds and removes.  A pure model for the engine to drive: no
 * engine types, no clock, no placement.  The engine asks how many GPUs of a
 * type one replica needs and how fast it serves, feeds the demand and its
 * ready capacity through service_autoscale and service_account at its own
 * event times, and owns cold starts (a replica it starts serves only
 * cold_start after it started).
 *
 * Units: demand and capacity are OUTPUT (generated) tokens per second.
 * Prompt tokens are not counted as demand: they are processed in one
 * compute-bound prefill pass per request, and enter the model through the
 * context each decode step reads (below) and through the calibration, which
 * is against measured output-token throughput of a serving stack that does
 * the prefills too.  MLPerf and ML.ENERGY report throughput the same way.
 * Times are fs_time (microseconds); rates are per second of simulated time.
 *
 * A service ($.services[i] of a scenario; scenarios/README.md documents the
 * keys) is a model of model_params_b billion parameters served in BF16
 * (FP16 on GPUs without BF16), each replica a group of 1, 2, 4 or 8 GPUs of
 * one type (tensor parallel, in one node).
 *
 * Replica size: the fewest GPUs n of type T such that mem_llm_gb (models/
 * memory.h, the rule inference jobs use too: weights at 2 B/param and a KV
 * cache allowance of MEM_KV_FRACTION = 0.4 of the weight bytes, an
 * assumption, sharded over the n GPUs, plus MEM_OVERHEAD_GB per GPU) fits
 * T's memory.  The rule gives the deployments used in practice: 7B on one
 * GPU of 24 GB or more (14 x 1.4 + 2 = 21.6 GB per GPU; an 8B model needs
 * 24.4 GB, so two 4090s); 70B on 2 H200, 4 H100 or A100-80GB, 8 A100-40GB
 * or L40S; 70B never on RTX 4090s (196 / 8 + 2 = 26.5 GB > 24 GB).  The
 * engine gives every replica of a service the same GPU count, the largest
 * any type present needs (io/scenario_blocks.c), so a type that needs fewer
 * runs the replica on more GPUs than it must, with a larger KV cache.
 *
 * Operating point, throughput and latency: models/llm.h's llm_operate, the
 * serving model calibrated on measured step times (models/data/llm.json),
 * on the replica's GPUs: the KV cache gets what the weights and overhead
 * leave of LLM_MEM_UTIL of the memory (as vLLM does), which bounds the
 * batch (max_batch, from the request's prompt + output tokens of KV per
 * sequence); the batch is the largest within that bound whose time per
 * output token meets the service's target tpot_target_s; tokens/s, TTFT
 * and TPOT are the model's at that batch (prefills of the prompts
 * included).  So a GPU with more memory runs a larger batch where the
 * latency target leaves room: a 70B replica on 2 H200s holds 276 sequences
 * of the default request where 4 H100s hold 352, 138 against 88 per GPU,
 * and at the 200 ms target runs 217 against 334 (108 against 84 per GPU).
 * The throughput formula is tested against measured replica throughputs it
 * was not fitted on (llm.json's mlenergy-tput-* points: Llama-3.1-70B on 4
 * H100s within 5 % from batch 8 to 512; Llama-3.1-8B on one H100 +11 % at
 * batch 64, +23 % at 128, +29 % at 256, optimistic for small models at
 * large batches).
 *
 * Per-token latency target: tpot_target_s ($.services[i].slo.tpot_s; 0 =
 * none).  The defaults are MLPerf Inference's limits for Llama-2-70B (a
 * 99th-percentile TPOT there; here it bounds the mean, the looser reading):
 * SERVICE_TPOT_LATENCY_S = 40 ms for latency-critical services, the
 * Interactive scenario's (added in v5.0; TTFT 450 ms), and
 * SERVICE_TPOT_STANDARD_S = 200 ms for standard ones, the Server
 * scenario's (TTFT 2 s).  A tight target caps the batch below what memory
 * allows: a 70B replica on 4 H100s holds 352 sequences of the default
 * request but meets 200 ms at 334 and 40 ms at 42.
 *
 * Request shape: SERVICE_PROMPT_TOKENS = 1155 and SERVICE_OUTPUT_TOKENS =
 * 211 per request unless the spec says ("request"), the means of the Azure
 * LLM inference trace 2023, conversation service (19,366 requests;
 * Azure/AzurePublicDataset, ../shared/traces/azure-llm-2023).  The code
 * trace's means are 2,048 and 28.
 *
 * Latency under load: each ready replica is `batch` servers (batch slots),
 * the replicas of a service pooled: c = the sum of their batches, mu =
 * capacity / (c x output_tokens) requests/s per slot (so 1/mu is
 * output_tokens x TPOT at the operating point), arrivals lambda = demand /
 * output_tokens requests/s; the mean response time is the M/M/c one
 * (service_response_s) and the mean wait before a slot is free the Erlang C
 * wait (service_wait_s), so a request's TTFT under load is the wait plus
 * the replica's ttft_s.  With fixed mu this is conservative: a batch that
 * is not full decodes faster.
 *
 * Latency objective (`$.services[i].slo`): a service's latency is met in a
 * stretch of time when every target it has holds there:
 *   - TTFT: the ttft_percentile-th percentile of the time to first token,
 *     the M/M/c wait's quantile plus the replicas' ttft_s, at most
 *     ttft_target_s.  The wait of M/M/c is 0 with probability 1 - C and
 *     exponential with rate c mu - lambda with probability C (C the
 *     Erlang C probability above), so P(wait > t) = C e^{-(c mu - lambda)
 *     t} and its p-quantile is ln(C / (1 - p)) / (c mu - lambda) when C >
 *     1 - p, else 0.  The replicas' ttft_s is their slot-weighted mean (a
 *     request is as likely to get any slot); one type: exactly its ttft_s.
 *     Defaults SERVICE_TTFT_LATENCY_S = 450 ms and SERVICE_TTFT_STANDARD_S
 *     = 2 s at the 99th percentile, MLPerf Inference's TTFT limits for
 *     Llama-2-70B (Interactive and Server), which are 99th percentiles.
 *   - TPOT: the pool's time per output token at its operating point,
 *     slots / capacity (one replica: batch / tokens_s), at most
 *     tpot_target_s (1e-9 relative slack for rounding: the batch was
 *     chosen to meet it).  Every request decodes at that step time in the
 *     model (a batch that is not full decodes faster; fixed mu ignores it,
 *     so this is an upper bound), so its percentiles are this value.
 *   - mean response time (service_response_s) at most slo_latency_s.
 * Load degrades it in two ways: as demand approaches capacity the queue's
 * C rises towards 1 and c mu - lambda falls towards 0, so the TTFT
 * percentile grows without bound; at demand >= capacity (and with no ready
 * replica) the queue is unstable and no target is met.  A service with no
 * target at all (ttft_s 0, tpot_s 0, no latency_s) meets it whenever its
 * queue is stable.  The engine evaluates it on every stretch where demand
 * and the ready replicas are constant (sim/service_run.h):
 * latency_attainment = time met / time with demand, and the tokens served
 * within it are those served while it is met.
 *
 * Autoscaler (Kubernetes HPA semantics, kubernetes.io "Horizontal Pod
 * Autoscaling": desiredReplicas = ceil(currentMetric / target); the
 * stabilization window of a direction picks the most conservative
 * recommendation seen during it): desired = ceil(demand / (replica_tokens_s
 * x target_util)), clamped to [min_replicas, max_replicas].  A scale-up
 * happens once desired > current has held at every call for up_delay (to
 * the smallest desired seen while it held), a scale-down once desired <
 * current has held for down_delay (to the largest).  Defaults
 * (scenarios/README.md): tick 15 s, up 0 s, down 300 s are HPA's defaults
 * (sync period, scaleUp and scaleDown stabilization windows); target 0.7,
 * replicas 1..16 and a 120 s cold start are assumptions.
 *
 * Ownership: service_specs_load allocates the array and everything in it;
 * the caller frees it with service_specs_free.  A struct service_state is
 * plain data: a zeroed one ({0}) is a fresh state.
 */
#ifndef FS_SIM_SERVICE_H
#define FS_SIM_SERVICE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "../base/base.h"
#include "gpu.h"
#include "llm.h"

#define SERVICE_BYTES_PER_PARAM 2.0  /* BF16 weights */
#define SERVICE_TPOT_LATENCY_S 0.04  /* MLPerf Llama-2-70B Interactive TPOT limit */
#define SERVICE_TPOT_STANDARD_S 0.2  /* MLPerf Llama-2-70B Server TPOT limit */
#define SERVICE_TTFT_LATENCY_S 0.45  /* MLPerf Llama-2-70B Interactive TTFT limit (p99) */
#define SERVICE_TTFT_STANDARD_S 2.0  /* MLPerf Llama-2-70B Server TTFT limit (p99) */
#define SERVICE_TTFT_PERCENTILE 99.0 /* the percentile those limits are at */
#define SERVICE_PROMPT_TOKENS 1155.0 /* per request, Azure conv 2023 mean */
#define SERVICE_OUTPUT_TOKENS 211.0  /* per request, Azure conv 2023 mean */
#define SERVICE_MAX_GPUS 8           /* a replica is 1, 2, 4 or 8 GPUs */
#define SERVICE_MAX 4096             /* services in one scenario */
#define SERVICE_NAME_MAX 32          /* name and team: 1..31 characters */

enum service_priority { SERVICE_LATENCY, SERVICE_STANDARD };
enum service_demand_kind { SERVICE_TRACE, SERVICE_DIURNAL };

/* Demand over time, piecewise constant. */
struct service_demand {
    enum service_demand_kind kind;
    /* SERVICE_TRACE: bin i covers [start + i x bin, start + (i+1) x bin)
     * at rate[i] = output_tokens_i x scale / (bin in seconds), so the
     * tokens of a bin integrate exactly to its output_tokens x scale.
     * Before start and after the last bin the demand is 0, unless repeat:
     * then the curve repeats with period n x bin from start. */
    char *trace;            /* the CSV's path as opened */
    double scale;
    bool repeat;
    fs_time start, bin;
    size_t n;
    double *rate;           /* tokens/s per bin */
    uint32_t *run_end;      /* first bin after i whose rate differs, n if none */
    /* SERVICE_DIURNAL: step k covers [k x step, (k+1) x step) at
     * mean x (1 + amplitude x cos(2 pi (m_k - peak) / period)), m_k the
     * step's midpoint: a cosine day, highest at peak (peak_hour x 3600 s
     * modulo the period, into every period), never negative (amplitude
     * <= 1). */
    double mean_tokens_s, amplitude;
    fs_time peak, period, step;
};

struct service_autoscaler {
    double target_util;     /* (0, 1] */
    int min_replicas;       /* >= 0 */
    int max_replicas;       /* >= max(1, min_replicas) */
    fs_time up_delay, down_delay, cold_start, tick;
};

struct service_spec {
    char name[SERVICE_NAME_MAX];
    char team[SERVICE_NAME_MAX];  /* default: the service's name */
    double params;                /* model parameters (model_params_b x 1e9) */
    enum service_priority priority;
    uint64_t allowed;             /* bit i: catalog type i; 0 = any type */
    double prompt_tokens, output_tokens;  /* per request */
    struct service_demand demand;
    struct service_autoscaler as;
    double slo_latency_s;         /* mean response time target; 0 = none */
    double tpot_target_s;         /* per-token latency target bounding the batch;
                                     0 = none (the batch memory allows) */
    double ttft_target_s;         /* TTFT target at ttft_percentile; 0 = none */
    double ttft_percentile;       /* (0, 100) */
};

/* Load a scenario's "services" array.  arr may be NULL (no services: *out
 * NULL, *n 0).  file names the scenario in messages, whose JSON paths are
 * "$.services[i]...."; trace paths are relative to base_dir (NULL or "":
 * the current folder) unless absolute.  Unknown keys, out-of-range numbers,
 * unknown GPU types (with a suggestion), duplicate service names and a
 * malformed trace ("TRACE:LINE: column NAME: ...") are errors.
 * OUT *out (caller frees with service_specs_free), *n.
 * RET: 0, FS_EDATA, or FS_ENOINPUT (a trace cannot be read); on failure
 * *out is NULL and *n 0. */
int service_specs_load(const cJSON *arr, const char *file, const struct gpu_catalog *cat,
                       const char *base_dir, struct service_spec **out, int *n,
                       struct fs_err *err);
void service_specs_free(struct service_spec *specs, int n); /* NULL is fine */

/* Demand at time t, output tokens/s (>= 0). */
double service_demand(const struct service_spec *sp, fs_time t);
/* RET: a time next > t such that the demand is constant on [t, next): the
 * time it next changes (for the diurnal curve, rarely, a step boundary
 * where it keeps its value), or FS_TIME_MAX when it never changes again. */
fs_time service_demand_next(const struct service_spec *sp, fs_time t);

/* True when the spec allows catalog type index type. */
bool service_allows(const struct service_spec *sp, int type);
/* RET: the fewest GPUs (1, 2, 4, 8) of type t that hold one replica (the
 * memory rule above), or 0 when 8 are not enough.  Ignores allowed types. */
int service_replica_gpus(const struct service_spec *sp, const struct gpu_type *t);
/* The operating point of one replica of sp on gpus GPUs of type t (the
 * rules above; llm.h's llm_operate documents each field): max_batch and
 * batch, the replica's output tokens/s, and its latency with no queue,
 * ttft_s (time to first token) and tpot_s (time per output token).  This is
 * the one answer for a replica's throughput and latency.  Does not check
 * that the replica fits (service_replica_gpus does). */
struct llm_operating service_replica(const struct llm_model *lm, const struct service_spec *sp,
                                     const struct gpu_type *t, int gpus);

/* What the autoscaler and the accounting keep between calls. */
struct service_state {
    int wanted;             /* the last answer of service_autoscale */
    int pending;            /* +1 a scale-up is pending, -1 down, 0 none */
    int pending_to;         /* the count it would scale to (most conservative
                               desired seen while pending) */
    fs_time pending_since;  /* the call that first saw it */
    fs_time last_change;    /* time of the last scale decision */
    long scale_ups, scale_downs;
    /* service_account's integrals */
    double demand_tokens, served_tokens;
    double seconds, short_s; /* accounted time; time with demand > capacity */
};

/* ceil(demand / (replica_tokens_s x target_util)) clamped to [min, max]; a
 * quotient within 1e-9 above an integer counts as that integer, so that a
 * demand of exactly k replicas' worth wants k.  RET: the clamped count;
 * when replica_tokens_s <= 0 (nothing can serve it): min_replicas when
 * demand is 0, else max_replicas. */
int service_desired_replicas(const struct service_spec *sp, double demand_tokens_s,
                             double replica_tokens_s);

/* One autoscaler evaluation at now (calls in non-decreasing time; the
 * engine calls it every as.tick and may call it in between).  current =
 * replicas_now, the replicas the engine has (starting or ready).  A current
 * below min or above max is corrected at once; otherwise see the rules
 * above: a direction's condition must hold at every call from the first
 * that saw it until one at least up_delay / down_delay later.
 * RET: the replicas wanted now (current when nothing is decided); also
 * stored in st->wanted. */
int service_autoscale(const struct service_spec *sp, struct service_state *st, fs_time now,
                      double demand_tokens_s, double replica_tokens_s, int replicas_now);

/* Account dt_s seconds (<= 0: nothing) at a constant demand and a constant
 * capacity of the ready replicas (tokens/s): demand x dt tokens demanded,
 * min(demand, capacity) x dt served, dt short when demand > capacity. */
void service_account(struct service_state *st, double dt_s, double demand_tokens_s,
                     double served_capacity_tokens_s);
/* served / demanded tokens; 1 when nothing was demanded. */
double service_attainment(const struct service_state *st);

/* M/M/c mean wait before service, seconds: C(c, lambda/mu) / (c mu -
 * lambda), C the Erlang C probability of waiting, computed from the Erlang
 * B recurrence B(0) = 1, B(k) = a B(k-1) / (k + a B(k-1)), a = lambda/mu,
 * and C = c B / (c - a (1 - B)), which stays in [0, 1] for any c (no
 * factorials or powers).  RET: +INFINITY when lambda >= c mu, servers < 1 or
 * mu <= 0; NAN when lambda is negative or NaN. */
double service_queue_wait_s(double lambda_req_s, double mu_req_s_per_server, int servers);
/* M/M/c mean response time, seconds: 1/mu + service_queue_wait_s (its
 * answers for the same bad inputs). */
double service_latency_s(double lambda_req_s, double mu_req_s_per_server, int servers);

/* A service's mean response time and mean wait for a batch slot (the TTFT
 * under load is this wait plus the replica's ttft_s) with ready replicas of
 * capacity_tokens_s output tokens/s in all and `slots` batch slots in all
 * (the sum of their batches), at the given demand: lambda = demand /
 * output_tokens, mu = capacity / (slots x output_tokens), c = slots.
 * RET: +INFINITY for slots < 1 or capacity <= 0. */
double service_response_s(const struct service_spec *sp, double demand_tokens_s,
                          double capacity_tokens_s, int slots);
double service_wait_s(const struct service_spec *sp, double demand_tokens_s,
                      double capacity_tokens_s, int slots);

/* M/M/c wait quantile, seconds: the smallest t with P(wait > t) <= 1 - p,
 * ln(C / (1 - p)) / (c mu - lambda), or 0 when C <= 1 - p (0 < p < 1).
 * RET: +INFINITY when lambda >= c mu, servers < 1 or mu <= 0; NAN for a
 * negative or NaN lambda. */
double service_queue_wait_quantile_s(double lambda_req_s, double mu_req_s_per_server, int servers,
                                     double p);
/* The ttft_percentile-th percentile TTFT of sp's requests: the pooled
 * slots' wait quantile plus ttft0_s, the ready replicas' no-queue TTFT.
 * RET: +INFINITY where service_wait_s is. */
double service_ttft_s(const struct service_spec *sp, double demand_tokens_s,
                      double capacity_tokens_s, int slots, double ttft0_s);
/* Whether sp's latency objective (above) holds at this demand (> 0) with
 * ready replicas of capacity_tokens_s in all, `slots` batch slots in all
 * and a no-queue TTFT of ttft0_s. */
bool service_latency_met(const struct service_spec *sp, double demand_tokens_s,
                         double capacity_tokens_s, int slots, double ttft0_s);
/* sp's latency objective in words ("p99 TTFT <= 0.45 s, TPOT <= 0.04 s"),
 * "stable queue" when it has no target; into buf. */
void service_objective_str(char *buf, size_t size, const struct service_spec *sp);

#endif
