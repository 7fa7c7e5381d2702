/* test_memory.c - the memory model: component values worked by hand, the
 * fit questions a planner asks (does a 70B model serve from one GPU? does a
 * 7B LoRA fit a 4090?), and the invariants (more GPUs never need more). */
#include "../models/memory.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>

/* memory_gb of the catalog types these questions are about (gpus.json). */
#define RTX4090_GB 24.0
#define A100_80_GB 80.0
#define H100_GB 80.0

/* Llama-2-70B-like: 80 layers, 8192 wide, 64 query heads over 8 KV heads. */
static const struct mem_model llama70 = {
    .params = 70e9, .bytes_per_param = 2, .layers = 80, .hidden = 8192, .kv_heads_ratio = 8};
/* Llama-2-7B-like: 32 layers, 4096 wide, full multi-head attention. */
static const struct mem_model llama7 = {
    .params = 7e9, .bytes_per_param = 2, .layers = 32, .hidden = 4096, .kv_heads_ratio = 1};
/* Llama-2-13B-like. */
static const struct mem_model llama13 = {
    .params = 13e9, .bytes_per_param = 2, .layers = 40, .hidden = 5120, .kv_heads_ratio = 1};

static struct mem_job infer(int gpus, int seq, int batch, double kv_budget_gb)
{
    return (struct mem_job){.method = MEM_INFER, .gpus = gpus, .seq_len = seq,
                            .micro_batch = batch, .kv_budget_gb = kv_budget_gb};
}

static struct mem_job train(enum mem_method method, int gpus, int seq, int batch)
{
    return (struct mem_job){.method = method, .gpus = gpus, .seq_len = seq, .micro_batch = batch};
}

static void check_sum(const struct mem_need *n)
{
    CU_ASSERT_DOUBLE_EQUAL(n->per_gpu_gb, n->weights_gb + n->grads_gb + n->optimizer_gb +
                                              n->activations_gb + n->kv_gb + n->overhead_gb,
                           1e-9);
}

/* ---- KV cache --------------------------------------------------------- */

static void test_kv_bytes_per_token(void)
{
    /* K and V, 80 layers, 8192 / 8 = 1024 values each, 2 bytes:
     * 2 x 80 x 1024 x 2 = 327,680 bytes. */
    CU_ASSERT_DOUBLE_EQUAL(mem_kv_bytes_per_token(&llama70), 327680, 1e-9);
    /* Multi-head attention keeps all 4096: 2 x 32 x 4096 x 2 = 524,288. */
    CU_ASSERT_DOUBLE_EQUAL(mem_kv_bytes_per_token(&llama7), 524288, 1e-9);
    /* A ratio of 0 reads as 1 (MHA); the weight precision does not change
     * the 2-byte cache. */
    struct mem_model m = llama7;
    m.kv_heads_ratio = 0;
    m.bytes_per_param = 0.5;
    CU_ASSERT_DOUBLE_EQUAL(mem_kv_bytes_per_token(&m), 524288, 1e-9);
}

/* ---- the fit questions ------------------------------------------------ */

static void test_70b_inference_one_gpu(void)
{
    /* BF16 weights alone are 2 x 70e9 = 140 GB: more than a 4090's 24 GB
     * and more than an A100's 80 GB, whatever the cache. */
    struct mem_job j = infer(1, 4096, 1, -1);
    struct mem_need n = mem_estimate(&llama70, &j);
    CU_ASSERT_DOUBLE_EQUAL(n.weights_gb, 140, 1e-9);
    CU_ASSERT_FALSE(mem_fits(&llama70, &j, RTX4090_GB));
    CU_ASSERT_FALSE(mem_fits(&llama70, &j, A100_80_GB));
    j.kv_budget_gb = 0;
    CU_ASSERT_FALSE(mem_fits(&llama70, &j, A100_80_GB));

    /* FP8 weights halve that to 70 GB; with one 4096-token sequence's
     * cache (4096 x 327,680 B = 1.34 GB) and 2 GB overhead, 73.3 GB fits
     * one 80 GB A100. */
    struct mem_model fp8 = llama70;
    fp8.bytes_per_param = 1;
    j.kv_budget_gb = -1;
    CU_ASSERT_DOUBLE_EQUAL(mem_estimate(&fp8, &j).per_gpu_gb, 70 + 4096 * 327680e-9 + 2, 1e-9);
    CU_ASSERT_TRUE(mem_fits(&fp8, &j, A100_80_GB));
}

static void test_70b_inference_two_h100(void)
{
    /* Two 80 GB H100s hold 160 GB.  Weights take 140 (70 per GPU, tensor
     * parallel) and the runtime 2 per GPU, so 16 GB are left for the KV
     * cache in all: 16e9 / 327,680 B = 48,828 tokens.  A budget of 8 GB
     * (24,414 tokens, e.g. six 4096-token sequences) fits at 76 GB per GPU;
     * 40 GB (122,070 tokens) needs 92 GB per GPU and does not. */
    struct mem_job j = infer(2, 4096, 1, 8);
    struct mem_need n = mem_estimate(&llama70, &j);
    CU_ASSERT_DOUBLE_EQUAL(n.weights_gb, 70, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(n.kv_gb, 4, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(n.per_gpu_gb, 76, 1e-9);
    CU_ASSERT_TRUE(mem_fits(&llama70, &j, H100_GB));

    j.kv_budget_gb = 40;
    CU_ASSERT_DOUBLE_EQUAL(mem_estimate(&llama70, &j).per_gpu_gb, 92, 1e-9);
    CU_ASSERT_FALSE(mem_fits(&llama70, &j, H100_GB));

    /* Either side of the 16 GB that is left. */
    j.kv_budget_gb = 15.9;
    CU_ASSERT_TRUE(mem_fits(&llama70, &j, H100_GB));
    j.kv_budget_gb = 16.1;
    CU_ASSERT_FALSE(mem_fits(&llama70, &j, H100_GB));

    /* With no budget the cache is seq_len x micro_batch tokens: 4 x 4096 =
     * 16,384 tokens = 5.4 GB fits; 16 x 4096 = 65,536 tokens = 21.5 GB
     * does not. */
    j = infer(2, 4096, 4, -1);
    CU_ASSERT_TRUE(mem_fits(&llama70, &j, H100_GB));
    j.micro_batch = 16;
    CU_ASSERT_FALSE(mem_fits(&llama70, &j, H100_GB));

    /* And not on one H100 at any budget: 140 GB of weights. */
    j = infer(1, 4096, 1, 0);
    CU_ASSERT_FALSE(mem_fits(&llama70, &j, H100_GB));
}

static void test_7b_lora_fits_4090(void)
{
    /* Frozen BF16 weights 14 GB, 1 % adapters trained with Adam (70 M x
     * 16 B = 1.12 GB), checkpointed activations for one 2048-token
     * sequence (0.82 GB) and 2 GB overhead: 17.9 GB of the 4090's 24. */
    struct mem_job j = train(MEM_LORA, 1, 2048, 1);
    struct mem_need n = mem_estimate(&llama7, &j);
    CU_ASSERT(n.per_gpu_gb > 17.5 && n.per_gpu_gb < 18.5);
    CU_ASSERT_TRUE(mem_fits(&llama7, &j, RTX4090_GB));

    /* Still fits when the shape is estimated from the parameter count. */
    struct mem_model est = llama7;
    est.layers = est.hidden = 0;
    CU_ASSERT_TRUE(mem_fits(&est, &j, RTX4090_GB));

    /* The 6 GB of headroom is for activations: a 4 x longer sequence at
     * micro-batch 4 (16 x the activations, 13.2 GB) does not fit. */
    j.seq_len = 8192;
    j.micro_batch = 4;
    CU_ASSERT_FALSE(mem_fits(&llama7, &j, RTX4090_GB));
}

static void test_7b_full_training(void)
{
    /* 16 B/param x 7e9 = 112 GB of model states: neither a 4090 nor one
     * A100-80 holds them. */
    struct mem_job j = train(MEM_TRAIN, 1, 2048, 1);
    CU_ASSERT_FALSE(mem_fits(&llama7, &j, RTX4090_GB));
    CU_ASSERT_FALSE(mem_fits(&llama7, &j, A100_80_GB));

    /* Sharded over 8 A100-80s (ZeRO-3/FSDP): 14 GB of states per GPU, plus
     * 0.82 GB of activations and 2 GB overhead = 16.8 GB. */
    j.gpus = 8;
    struct mem_need n = mem_estimate(&llama7, &j);
    CU_ASSERT_DOUBLE_EQUAL(n.weights_gb + n.grads_gb + n.optimizer_gb, 14, 1e-9);
    CU_ASSERT_TRUE(mem_fits(&llama7, &j, A100_80_GB));
    /* Eight 4090s hold 14 + 0.82 + 2 = 16.8 GB each too: sharding, not the
     * GPU, was what a single card lacked. */
    CU_ASSERT_TRUE(mem_fits(&llama7, &j, RTX4090_GB));
}

/* ---- component values worked by hand ---------------------------------- */

static void test_components_by_hand(void)
{
    /* 13B full training on 4 GPUs, 4096-token sequences, micro-batch 2:
     * weights 2 x 13e9 / 4 = 6.5 GB, gradients 6.5 GB, optimizer
     * 12 x 13e9 / 4 = 39 GB; activations s b h (2 L + 34) =
     * 4096 x 2 x 5120 x (80 + 34) = 4,781,506,560 B; overhead 2 GB. */
    struct mem_job j = train(MEM_TRAIN, 4, 4096, 2);
    struct mem_need n = mem_estimate(&llama13, &j);
    CU_ASSERT_DOUBLE_EQUAL(n.weights_gb, 6.5, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(n.grads_gb, 6.5, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(n.optimizer_gb, 39, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(n.activations_gb, 4.78150656, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(n.kv_gb, 0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(n.overhead_gb, 2, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(n.per_gpu_gb, 58.78150656, 1e-9);
    check_sum(&n);
    /* Full training keeps 16 B/param whatever the serving precision. */
    struct mem_model fp8 = llama13;
    fp8.bytes_per_param = 1;
    CU_ASSERT_DOUBLE_EQUAL(mem_estimate(&fp8, &j).per_gpu_gb, n.per_gpu_gb, 1e-12);

    /* 7B LoRA, one GPU, 2048 x 1, default 1 % adapters (70e6 params):
     * weights 2 x 7e9 + 2 x 70e6 B = 14.14 GB, gradients 2 x 70e6 = 0.14,
     * optimizer 12 x 70e6 = 0.84, activations 2048 x 4096 x (64 + 34) =
     * 822,083,584 B, overhead 2. */
    j = train(MEM_LORA, 1, 2048, 1);
    n = mem_estimate(&llama7, &j);
    CU_ASSERT_DOUBLE_EQUAL(n.weights_gb, 14.14, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(n.grads_gb, 0.14, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(n.optimizer_gb, 0.84, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(n.activations_gb, 0.822083584, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(n.per_gpu_gb, 17.942083584, 1e-9);
    check_sum(&n);
    /* An explicit fraction: 0.5 % halves the adapter terms.  4-bit frozen
     * weights (QLoRA-style) are 0.5 x 7e9 = 3.5 GB. */
    j.lora_fraction = 0.005;
    struct mem_model q4 = llama7;
    q4.bytes_per_param = 0.5;
    n = mem_estimate(&q4, &j);
    CU_ASSERT_DOUBLE_EQUAL(n.weights_gb, 3.5 + 0.07, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(n.grads_gb, 0.07, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(n.optimizer_gb, 0.42, 1e-9);

    /* 70B inference on 2 GPUs, 4 x 4096 tokens in flight: cache
     * 16,384 x 327,680 B = 5,368,709,120 B in all, half per GPU. */
    j = infer(2, 4096, 4, -1);
    n = mem_estimate(&llama70, &j);
    CU_ASSERT_DOUBLE_EQUAL(n.weights_gb, 70, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(n.kv_gb, 2.68435456, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(n.grads_gb + n.optimizer_gb + n.activations_gb, 0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(n.per_gpu_gb, 74.68435456, 1e-9);
    check_sum(&n);
}

/* ---- shape estimate and lenient inputs -------------------------------- */

static void test_shape_estimate(void)
{
    static const struct {
        double params;
        int layers, hidden; /* given */
        int want_layers, want_hidden;
    } cases[] = {
        /* params = 12 L h^2 with h = 128 L reproduces published shapes. */
        {6.74e9, 0, 0, 32, 4096},   /* Llama-2-7B */
        {13.0e9, 0, 0, 40, 5120},   /* Llama-2-13B */
        {175e9, 0, 0, 96, 12288},   /* GPT-3 */
        {70e9, 0, 0, 71, 9088},     /* Llama-2-70B is really 80 x 8192 */
        {70e9, 80, 0, 80, 8539},    /* h = sqrt(70e9 / (12 x 80)) */
        {70e9, 0, 8192, 87, 8192},  /* L = 70e9 / (12 x 8192^2) = 86.9 */
        {70e9, 80, 8192, 80, 8192}, /* given: unchanged */
        {0, 0, 0, 1, 128},          /* nothing to go on: the smallest shape */
        {1e3, 0, 4096, 1, 4096},    /* at least one layer */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct mem_model m = {.params = cases[i].params, .layers = cases[i].layers,
                              .hidden = cases[i].hidden};
        int l = -1, h = -1;
        mem_shape(&m, &l, &h);
        if (l != cases[i].want_layers || h != cases[i].want_hidden)
            printf("\n    case %zu: got %d x %d\n", i, l, h);
        CU_ASSERT_EQUAL(l, cases[i].want_layers);
        CU_ASSERT_EQUAL(h, cases[i].want_hidden);
    }
    /* The estimated 70B's layers x hidden, what KV and activation sizes
     * scale with, is within 2 % of the real 80 x 8192. */
    struct mem_model est = llama70;
    est.layers = est.hidden = 0;
    est.kv_heads_ratio = 1;
    struct mem_model real = llama70;
    real.kv_heads_ratio = 1;
    double ratio = mem_kv_bytes_per_token(&est) / mem_kv_bytes_per_token(&real);
    CU_ASSERT(fabs(ratio - 1) < 0.02);
}

static void test_lenient_inputs(void)
{
    /* gpus 0 counts as 1, bytes_per_param 0 as BF16, lora_fraction 0 as
     * the 1 % default. */
    struct mem_model m = llama7;
    m.bytes_per_param = 0;
    struct mem_job j = train(MEM_LORA, 0, 2048, 1);
    struct mem_job one = train(MEM_LORA, 1, 2048, 1);
    one.lora_fraction = MEM_LORA_FRACTION_DEFAULT;
    CU_ASSERT_DOUBLE_EQUAL(mem_estimate(&m, &j).per_gpu_gb,
                           mem_estimate(&llama7, &one).per_gpu_gb, 1e-12);
    /* Negative lengths count as 0: no activations, no cache. */
    j = train(MEM_TRAIN, 1, -5, 3);
    CU_ASSERT_DOUBLE_EQUAL(mem_estimate(&llama7, &j).activations_gb, 0, 1e-12);
    j = infer(1, 4096, -1, -1);
    CU_ASSERT_DOUBLE_EQUAL(mem_estimate(&llama7, &j).kv_gb, 0, 1e-12);
    /* Overhead is there for every method. */
    CU_ASSERT_DOUBLE_EQUAL(mem_estimate(&llama7, &j).overhead_gb, MEM_OVERHEAD_GB, 1e-12);
}

/* ---- invariants ------------------------------------------------------- */

static void test_more_gpus_never_need_more(void)
{
    const struct mem_model *models[] = {&llama7, &llama13, &llama70};
    const enum mem_method methods[] = {MEM_TRAIN, MEM_LORA, MEM_INFER};
    const double budgets[] = {-1, 0, 8, 40};
    for (size_t mi = 0; mi < 3; mi++)
        for (size_t k = 0; k < 3; k++)
            for (size_t b = 0; b < 4; b++) {
                struct mem_job j = {.method = methods[k], .seq_len = 4096, .micro_batch = 2,
                                    .kv_budget_gb = budgets[b]};
                double prev = HUGE_VAL;
                int fitted = 0;
                for (int g = 1; g <= 128; g++) {
                    j.gpus = g;
                    struct mem_need n = mem_estimate(models[mi], &j);
                    check_sum(&n);
                    CU_ASSERT(n.per_gpu_gb <= prev);
                    CU_ASSERT(n.per_gpu_gb >= MEM_OVERHEAD_GB);
                    /* Once it fits an 80 GB GPU it keeps fitting. */
                    int fits = mem_fits(models[mi], &j, 80);
                    CU_ASSERT(fits || !fitted);
                    fitted |= fits;
                    prev = n.per_gpu_gb;
                }
            }
}

static void test_more_work_needs_more(void)
{
    /* Longer sequences, bigger batches and bigger budgets never need less. */
    struct mem_job t = train(MEM_TRAIN, 8, 1024, 1);
    double a = mem_estimate(&llama13, &t).per_gpu_gb;
    t.seq_len = 2048;
    double b = mem_estimate(&llama13, &t).per_gpu_gb;
    t.micro_batch = 2;
    double c = mem_estimate(&llama13, &t).per_gpu_gb;
    CU_ASSERT(a < b && b < c);
    struct mem_job i = infer(2, 4096, 1, 4);
    double d = mem_estimate(&llama70, &i).per_gpu_gb;
    i.kv_budget_gb = 8;
    CU_ASSERT(mem_estimate(&llama70, &i).per_gpu_gb > d);
}

/* QLoRA (Dettmers et al. 2023): the 13B base at 4.127 bits is 6.71 GB;
 * with 1 % adapters (0.13 B parameters: 0.26 GB of weights, 0.26 GB of
 * gradients, 1.56 GB of Adam state), activations for one 2048-token
 * sequence (40 layers of 5120: 2048 x 5120 x 114 B = 1.195 GB) and 2 GB of
 * runtime it needs 11.99 GB: one RTX 4090; the same job with a BF16 base
 * (LoRA) needs 26 GB of weights alone. */
static void test_13b_qlora_fits_4090(void)
{
    double q = mem_llm_gb(13e9, MEM_QLORA, 2, 1);
    CU_ASSERT_DOUBLE_EQUAL(q, 13 * 4.127 / 8 + 0.26 + 0.26 + 1.56 + 2048 * 5120 * 114e-9 + 2, 1e-6);
    CU_ASSERT(q <= RTX4090_GB);
    CU_ASSERT(mem_llm_gb(13e9, MEM_LORA, 2, 1) > RTX4090_GB);
}

/* One rule for inference jobs and service replicas: weights + 0.4 of the
 * weight bytes of KV allowance + 2 GB: 7B BF16 21.6 GB (one RTX 4090),
 * 70B BF16 198 GB (never one H200 of 141 GB). */
static void test_inference_rule(void)
{
    CU_ASSERT_DOUBLE_EQUAL(mem_llm_gb(7e9, MEM_INFER, 2, 1), 14 * 1.4 + 2, 1e-9);
    CU_ASSERT(mem_llm_gb(7e9, MEM_INFER, 2, 1) <= RTX4090_GB);
    CU_ASSERT_DOUBLE_EQUAL(mem_llm_gb(70e9, MEM_INFER, 2, 1), 140 * 1.4 + 2, 1e-9);
    CU_ASSERT(mem_llm_gb(70e9, MEM_INFER, 2, 1) > 141);
    CU_ASSERT_DOUBLE_EQUAL(mem_llm_gb(70e9, MEM_INFER, 2, 2), 140 * 1.4 / 2 + 2, 1e-9);
}

static CU_TestInfo memory_tests[] = {
    {"13B QLoRA fits one RTX 4090, 13B LoRA does not", test_13b_qlora_fits_4090},
    {"the inference rule jobs and services share", test_inference_rule},
    {"KV bytes per token (GQA and MHA)", test_kv_bytes_per_token},
    {"70B BF16 inference does not fit one GPU", test_70b_inference_one_gpu},
    {"70B on 2 x H100 fits only with a small KV budget", test_70b_inference_two_h100},
    {"7B LoRA fits one RTX 4090", test_7b_lora_fits_4090},
    {"7B full training needs sharding", test_7b_full_training},
    {"component values worked by hand", test_components_by_hand},
    {"layers and hidden estimated from params", test_shape_estimate},
    {"lenient reading of zero and negative inputs", test_lenient_inputs},
    {"more GPUs never need more per GPU", test_more_gpus_never_need_more},
    {"more tokens never need less", test_more_work_needs_more},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"memory", NULL, NULL, NULL, NULL, memory_tests},
    CU_SUITE_INFO_NULL,
};

int main(void)
{
    return tu_run("test_memory", suites);
}
