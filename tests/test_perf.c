/* test_perf.c - the throughput model against published relative throughput.
 *
 * Tolerances are the acceptance bands of issue 3, chosen from the spread of
 * the published figures themselves (vendor runs, different software): the
 * model is a roofline over three resources, not a kernel simulator. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../models/models.h"
#include "testutil.h"

static struct model_set ms;
static const struct gpu_catalog *cat;
static const struct perf_model *pm;
static int A100, H100, H200, RTX;

static int setup(void)
{
    struct fs_err err;
    if (model_set_load("models/data/gpus.json", &ms, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    cat = ms.cat;
    pm = ms.perf;
    A100 = gpu_catalog_find(cat, "a100-sxm-80");
    H100 = gpu_catalog_find(cat, "h100-sxm");
    H200 = gpu_catalog_find(cat, "h200-sxm");
    RTX = gpu_catalog_find(cat, "rtx4090");
    return A100 < 0 || H100 < 0 || H200 < 0 || RTX < 0;
}

static int teardown(void)
{
    model_set_free(&ms);
    return 0;
}

static double ratio(const char *workload, int t, int ref)
{
    int w = perf_workload_find(pm, workload);
    CU_ASSERT_FATAL(w >= 0);
    double r = perf_relative(pm, w, t, ref);
    printf("\n    %s %s/%s = %.3f", workload, cat->types[t].name, cat->types[ref].name, r);
    return r;
}

static void within(double got, double want, double rel)
{
    CU_ASSERT(fabs(got - want) <= rel * want);
}

/* MLPerf Inference v4.1 Llama-2-70B server: 29,228 / 21,606 tok/s = 1.353
 * (held out: llm.json holds it out of the LLM model's fit too).  The
 * workload runs at each GPU's largest batch on that model: H200 fp8 on one
 * GPU, H100 fp8 on two. */
static void test_llm_infer_70b(void) { within(ratio("llm-infer-70b", H200, H100), 29228.22 / 21605.8, 0.10); }

/* MLPerf Inference v4.1 SDXL offline: 17.42 / 16.35 samples/s = 1.065. */
static void test_sdxl(void) { within(ratio("sdxl-infer", H200, H100), 17.4186 / 16.3484, 0.05); }

/* MosaicML MPT: H100/A100-80GB BF16 tokens/s per GPU between 1.95 and 2.53;
 * the band asked for is 1.9-2.6. */
static void test_llm_train(void)
{
    double r = ratio("llm-train", H100, A100);
    CU_ASSERT(r >= 1.9 && r <= 2.6);
}

/* Lambda fp16 training geomean: RTX 4090 0.717 of an A100 SXM4 80GB.  The
 * 4090 is held out: the shares are fitted on the H100 SXM, H100 PCIe and A100
 * PCIe points only. */
static void test_cnn_train_4090_held_out(void)
{
    int w = perf_workload_find(pm, "cnn-train-fp16");
    CU_ASSERT_FATAL(w >= 0);
    CU_ASSERT_EQUAL_FATAL(pm->w[w].nholdout, 1);
    CU_ASSERT_EQUAL(pm->w[w].holdout[0].gpu, RTX);
    within(ratio("cnn-train-fp16", RTX, A100), 0.717, 0.15);
    /* The fit reproduces the points it was fitted on to 2 %. */
    within(ratio("cnn-train-fp16", H100, A100), 1.674, 0.02);
    within(ratio("cnn-train-fp16", gpu_catalog_find(cat, "a100-pcie-80"), A100), 0.953, 0.02);
    double sum = 0;
    for (int k = 0; k < PERF_RESOURCES; k++) {
        CU_ASSERT(pm->w[w].share[k] >= 0);
        sum += pm->w[w].share[k];
    }
    CU_ASSERT_DOUBLE_EQUAL(sum, 1, 1e-9);
}

/* Decode is bandwidth-bound: 1,008 / 2,039 GB/s = 0.494. */
static void test_decode(void) { within(ratio("llm-decode", RTX, A100), 0.49, 0.10); }

/* Batch inference runs at the largest batch memory allows, so a GPU with
 * more memory runs a larger batch.  By hand, for llm-infer-7b (7e9
 * parameters, bf16, 512 + 256 tokens per sequence) on the Llama-3-style
 * architecture the LLM model assumes for 7B (33 layers, 8 KV heads of 128):
 * KV per token 2 x 33 x 1024 x 2 B = 135,168 B, per sequence x 768 =
 * 103.81 MB; per GPU 90 % of memory less 14 GB of weights and 2 GB of
 * runtime: H100 (80 GB) 56 GB -> 539 sequences, H200 (141 GB) 110.9 GB ->
 * 1,068; RTX 4090 (24 GB) 5.6 GB -> 53, tens of sequences as paged-KV
 * servers hold on a 24 GB card, not hundreds.  Its offline throughput is then higher: 11,184 against 9,178
 * output tokens/s per GPU when this test was written (a 1.22 ratio; the
 * test asserts only that the H200 is faster, the size of the gain being
 * the model's, not a measurement).  For llm-infer-70b (fp8, 300 + 294
 * tokens, 71 layers) the H200 holds it on one GPU and the H100 on two:
 * per GPU 126.9 - 70 - 2 = 54.9 GB over 594 x 145,408 B = 86.37 MB per
 * sequence -> 635 on the H200, and (72 - 35 - 2) x 2 = 70 GB -> 810 over
 * two H100s, 405 per GPU. */
static void test_batch_max(void)
{
    int w7 = perf_workload_find(pm, "llm-infer-7b"), w70 = perf_workload_find(pm, "llm-infer-70b");
    CU_ASSERT_FATAL(w7 >= 0 && w70 >= 0);
    const struct perf_workload *a = &pm->w[w7], *b = &pm->w[w70];
    printf("\n    llm-infer-7b max batch h100 %d h200 %d, tokens/s/GPU %.0f %.0f", a->max_batch[H100],
           a->max_batch[H200], a->offline[H100], a->offline[H200]);
    CU_ASSERT(a->batch_max && b->batch_max);
    CU_ASSERT_EQUAL(a->max_batch[H100], 539);
    CU_ASSERT_EQUAL(a->max_batch[H200], 1068);
    CU_ASSERT_EQUAL(a->max_batch[RTX], 53);
    CU_ASSERT(a->offline[H200] > a->offline[H100]);
    CU_ASSERT_EQUAL(b->max_batch[H200], 635);
    CU_ASSERT_EQUAL(b->max_batch[H100], 810);
    /* The speed ratio is the throughputs' ratio, the power load the batch's. */
    CU_ASSERT_DOUBLE_EQUAL(perf_relative(pm, w7, H200, H100), a->offline[H200] / a->offline[H100], 1e-12);
    CU_ASSERT_EQUAL(perf_batch(a, H200), 1068);
    /* The A100 has no FP8: the 70B runs there in bf16 (four GPUs), as the
     * roofline falls back. */
    CU_ASSERT(b->offline[A100] > 0 && b->offline[A100] < b->offline[H100]);
    /* A fixed-batch spec keeps its batch: llm-decode is single-stream. */
    int d = perf_workload_find(pm, "llm-decode");
    CU_ASSERT(!pm->w[d].batch_max);
    CU_ASSERT_EQUAL(perf_batch(&pm->w[d], H200), 1);
}

static void test_ratio_algebra(void)
{
    for (int w = 0; w < pm->n; w++) {
        CU_ASSERT_DOUBLE_EQUAL(perf_relative(pm, w, H100, H100), 1, 1e-12);
        double ab = perf_relative(pm, w, H100, RTX), ba = perf_relative(pm, w, RTX, H100);
        CU_ASSERT_DOUBLE_EQUAL(ab * ba, 1, 1e-12);
        /* Relative to any reference: the ratio of the ratios. */
        double via = perf_relative(pm, w, H200, A100) / perf_relative(pm, w, H100, A100);
        CU_ASSERT_DOUBLE_EQUAL(perf_relative(pm, w, H200, H100), via, 1e-12);
    }
}

static void test_scaling(void)
{
    int w = perf_workload_find(pm, "llm-train");
    CU_ASSERT_DOUBLE_EQUAL(perf_scaling(pm, w, H100, 1, 1), 1, 0);
    double prev = 1;
    for (int g = 2; g <= 8; g *= 2) {
        double e = perf_scaling(pm, w, H100, g, 1);
        CU_ASSERT(e < prev && e > 0.8);
        prev = e;
    }
    /* 16 GPUs over two nodes talk over the network, slower than NVLink. */
    CU_ASSERT(perf_scaling(pm, w, H100, 16, 2) < perf_scaling(pm, w, H100, 8, 1));
    /* PCIe-only GPUs lose more than NVLink ones at the same count. */
    CU_ASSERT(perf_scaling(pm, w, RTX, 8, 1) < perf_scaling(pm, w, H100, 8, 1));
    /* Work that does not communicate does not lose anything. */
    int d = perf_workload_find(pm, "llm-decode");
    CU_ASSERT_DOUBLE_EQUAL(perf_scaling(pm, d, RTX, 8, 1), 1, 0);
}

static void test_llm_shares(void)
{
    const struct gpu_type *ref = &cat->types[A100];
    double share[PERF_RESOURCES];
    /* Batch-1 decode of a 7B model: weights dominate, bandwidth-bound. */
    struct perf_llm decode = {.params = 7e9, .bytes_per_param = 2, .kv_bytes_per_token = 524288,
                              .prompt_tokens = 0, .output_tokens = 512, .batch = 1};
    perf_llm_shares(&decode, PERF_BF16, ref, share);
    CU_ASSERT_DOUBLE_EQUAL(share[PERF_BANDWIDTH], 1, 1e-12);
    /* Long prompts, one output token: prefill dominates, compute-bound.
     * Prefill 2 x 7e9 x 8000 flop at ~271 TFLOPS = 0.413 s; the one decode
     * step reads 14 GB + 8000 x 0.5 MB = 18.2 GB at ~2039 GB/s = 8.9 ms. */
    struct perf_llm prefill = {.params = 7e9, .bytes_per_param = 2, .kv_bytes_per_token = 524288,
                               .prompt_tokens = 8000, .output_tokens = 1, .batch = 1};
    perf_llm_shares(&prefill, PERF_BF16, ref, share);
    double c = 2 * 7e9 * 8000 / (ref->mamf_bf16_tflops * 1e12);
    double m = (14e9 + 8000.5 * 524288) / (ref->bandwidth_gbs * 1e9);
    CU_ASSERT(c > 0.4 && c < 0.42 && m > 0.0085 && m < 0.0095);
    CU_ASSERT_DOUBLE_EQUAL(share[PERF_TENSOR], c / (c + m), 1e-9);
    /* Bigger batches amortize the weights: the bandwidth share falls. */
    struct perf_llm small = decode, big = decode;
    small.prompt_tokens = big.prompt_tokens = 300;
    small.batch = 8;
    big.batch = 128;
    double s_small[PERF_RESOURCES], s_big[PERF_RESOURCES];
    perf_llm_shares(&small, PERF_BF16, ref, s_small);
    perf_llm_shares(&big, PERF_BF16, ref, s_big);
    CU_ASSERT(s_big[PERF_BANDWIDTH] < s_small[PERF_BANDWIDTH]);
}

static void expect_bad(const char *text, const char *sub)
{
    struct perf_model *bad = NULL;
    struct fs_err err = {0};
    int rc = perf_model_load(tu_tmpfile(".json", text), cat, ms.llm, &bad, &err);
    CU_ASSERT_EQUAL(rc, FS_EDATA);
    CU_ASSERT_PTR_NULL(bad);
    if (!strstr(err.msg, sub))
        printf("\n    got:  %s\n    want: %s", err.msg, sub);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, sub));
}

#define HEAD "{\"sources\": {\"S\": \"x\"}, \"reference_gpu\": \"a100-sxm-80\", " \
             "\"network_gbs_per_gpu\": {\"value\": 50, \"source\": \"S\"}, \"kinds\": {}, \"workloads\": ["
#define COMM "\"comm_share\": {\"value\": 0, \"source\": \"S\"}"

static void test_bad_files(void)
{
    expect_bad(HEAD "{\"name\": \"a\", " COMM ", \"shares\": {\"tensor\": {\"value\": 0.5, \"source\": \"S\"}}}]}",
               "$.workloads[0].shares: shares add up to 0.5, not 1");
    expect_bad(HEAD "{\"name\": \"a\", " COMM "}]}", "$.workloads[0]: give exactly one of");
    expect_bad(HEAD "{\"name\": \"a\", " COMM ", \"fit\": [{\"gpu\": \"h100\", \"ratio\": {\"value\": 2, \"source\": \"S\"}}]}]}",
               "$.workloads[0].fit[0].gpu: unknown GPU type \"h100\"; did you mean");
    expect_bad(HEAD "{\"name\": \"a\", " COMM ", \"fit\": [{\"gpu\": \"h100-sxm\", \"ratio\": {\"value\": 2, \"source\": \"S\"}}]}]}",
               "at least 2 points");
    expect_bad(HEAD "{\"name\": \"a\", \"shares\": {\"tensor\": {\"value\": 1, \"source\": \"S\"}}}]}",
               "$.workloads[0]: missing key \"comm_share\"");
    expect_bad(HEAD "{\"name\": \"a\", " COMM ", \"shares\": {\"tensor\": {\"value\": 1, \"source\": \"T\"}}}]}",
               "$.workloads[0].shares.tensor.source: unknown source \"T\"");
    expect_bad(HEAD "{\"name\": \"a\", \"precision\": \"fp4\", " COMM ", \"shares\": {\"tensor\": {\"value\": 1, \"source\": \"S\"}}}]}",
               "\"fp4\" is not bf16 or fp8");
    /* Ratios no mix of shares can reach: a GPU twice as fast as the
     * reference on every resource cannot be 10 times faster. */
    expect_bad(HEAD "{\"name\": \"a\", " COMM ", \"fit\": [{\"gpu\": \"h100-sxm\", \"ratio\": {\"value\": 10, \"source\": \"S\"}},"
                    "{\"gpu\": \"h200-sxm\", \"ratio\": {\"value\": 0.5, \"source\": \"S\"}}]}]}",
               "negative");
    /* An LLM spec without a batch needs the LLM model and takes no byte counts. */
#define LLM_SPEC "\"params\": {\"value\": 7e9, \"source\": \"S\"}, \"prompt_tokens\": {\"value\": 512, " \
                 "\"source\": \"S\"}, \"output_tokens\": {\"value\": 256, \"source\": \"S\"}"
    expect_bad(HEAD "{\"name\": \"a\", " COMM ", \"llm\": {" LLM_SPEC ", \"bytes_per_param\": {\"value\": 2, "
                    "\"source\": \"S\"}}}]}",
               "$.workloads[0].llm.bytes_per_param: without a batch the LLM model gives it");
    struct perf_model *bad = NULL;
    struct fs_err err = {0};
    CU_ASSERT_EQUAL(perf_model_load(tu_tmpfile(".json", HEAD "{\"name\": \"a\", " COMM ", \"llm\": {" LLM_SPEC "}}]}"),
                                    cat, NULL, &bad, &err), FS_EDATA);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no LLM model was loaded"));
    /* A 1e13-parameter model fits no reference GPU node. */
    expect_bad(HEAD "{\"name\": \"a\", " COMM ", \"llm\": {\"params\": {\"value\": 1e13, \"source\": \"S\"}, "
                    "\"prompt_tokens\": {\"value\": 512, \"source\": \"S\"}, \"output_tokens\": {\"value\": 256, "
                    "\"source\": \"S\"}}}]}",
               "$.workloads[0].llm: the reference GPU a100-sxm-80 cannot run it");
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"H200/H100 Llama-2-70B inference ~1.35 (+-10 %)", test_llm_infer_70b},
        {"H200/H100 SDXL ~1.065 (+-5 %)", test_sdxl},
        {"H100/A100 LLM training in 1.9-2.6", test_llm_train},
        {"RTX 4090/A100 fp16 training ~0.72 (+-15 %, held out)", test_cnn_train_4090_held_out},
        {"RTX 4090/A100 decode ~0.49 (+-10 %)", test_decode},
        {"batch inference at the largest batch memory allows", test_batch_max},
        {"ratio algebra", test_ratio_algebra},
        {"multi-GPU scaling", test_scaling},
        {"LLM shares from the spec", test_llm_shares},
        {"bad workload files", test_bad_files},
        CU_TEST_INFO_NULL,
    };
    CU_SuiteInfo suites[] = {
        {"perf", setup, teardown, NULL, NULL, tests},
        CU_SUITE_INFO_NULL,
    };
    return tu_run("test_perf", suites);
}
