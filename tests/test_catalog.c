/* test_catalog.c - the GPU catalog: the shipped file, lookups, and the
 * loader's answer to each kind of bad file. */
#include "../models/gpu.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- building catalogs to load ---------------------------------------- */

/* The keys of a valid GPU object and the text of each member's value. */
static const char *const gpu_keys[] = {"name", "link", "memory_gb", "bandwidth_gbs",
                                       "bf16_tflops", "fp8_tflops", "tf32_tflops",
                                       "fp32_tflops", "mamf_bf16_tflops", "clock_mhz",
                                       "link_gbs", "tdp_w", "idle_w", "memory_type",
                                       "has_bf16", "int8_tops"};
static const char *const gpu_vals[] = {
    NULL, /* the name argument */
    "\"nvlink\"",
    "{\"value\": 80, \"source\": \"S\"}",
    "{\"value\": 3350, \"source\": \"S\"}",
    "{\"value\": 989, \"source\": \"S\", \"notes\": \"dense\"}",
    "{\"value\": 1979, \"source\": \"S\"}",
    "{\"value\": 494.5, \"source\": \"S\"}",
    "{\"value\": 67, \"source\": \"S\"}",
    "{\"value\": 794.5, \"source\": \"S\", \"notes\": \"measured\"}",
    "{\"value\": 1830, \"source\": \"S\", \"notes\": \"derived\"}",
    "{\"value\": 450, \"source\": \"S\"}",
    "{\"value\": 700, \"source\": \"S\"}",
    "{\"value\": 70, \"source\": \"A\"}",
    "\"hbm3\"",
    "true",
    "{\"value\": 1979, \"source\": \"S\"}",
};

/* A valid GPU object called name, except that key's value text is repl:
 * repl NULL drops key, and a key not among gpu_keys is added.  key NULL
 * changes nothing.  RET: a static buffer, one of four used in turn. */
static const char *gpu_obj(const char *name, const char *key, const char *repl)
{
    static char bufs[4][2048];
    static int next;
    char *b = bufs[next++ % 4];
    int found = 0;
    size_t n = (size_t)snprintf(b, 2048, "{");
    for (size_t i = 0; i < FS_ARRAY_LEN(gpu_keys); i++) {
        const char *v = gpu_vals[i];
        char quoted[64];
        if (i == 0) {
            snprintf(quoted, sizeof quoted, "\"%s\"", name);
            v = quoted;
        }
        if (key && strcmp(key, gpu_keys[i]) == 0) {
            found = 1;
            v = repl;
        }
        if (v)
            n += (size_t)snprintf(b + n, 2048 - n, "%s\"%s\": %s", n > 1 ? ", " : "",
                                  gpu_keys[i], v);
    }
    if (key && !found)
        n += (size_t)snprintf(b + n, 2048 - n, ", \"%s\": %s", key, repl);
    snprintf(b + n, 2048 - n, "}");
    return b;
}

#define SOURCES "{\"S\": \"a citation\", \"ASSUMPTION_X\": \"assumption: a guess\", " \
                "\"A\": \"another citation\"}"

/* A catalog of a valid GPU "a" followed by gpu (a JSON object text). */
static const char *catalog(const char *gpu)
{
    static char b[4096];
    snprintf(b, sizeof b, "{\"about\": \"test\", \"sources\": " SOURCES
             ", \"gpus\": [%s, %s]}", gpu_obj("a", NULL, NULL), gpu);
    return b;
}

static const char *last_path;

/* Write json to a temporary file, load it, and remove the file. */
static int load_text(const char *json, struct gpu_catalog **cat, struct fs_err *err)
{
    last_path = tu_tmpfile(".json", json);
    int rc = gpu_catalog_load(last_path, cat, err);
    unlink(last_path);
    return rc;
}

/* Loading json fails with code want, and the message names the file and
 * contains sub. */
#define EXPECT_ERR(json, want, sub)                                              \
    do {                                                                         \
        struct fs_err e_ = {0};                                                  \
        struct gpu_catalog *c_ = (struct gpu_catalog *)&e_;                      \
        int rc_ = load_text((json), &c_, &e_);                                   \
        CU_ASSERT_EQUAL(rc_, (want));                                            \
        CU_ASSERT_EQUAL(e_.code, (want));                                        \
        CU_ASSERT_PTR_NULL(c_);                                                  \
        CU_ASSERT_EQUAL(strncmp(e_.msg, last_path, strlen(last_path)), 0);       \
        if (!strstr(e_.msg, (sub)))                                              \
            printf("\n    got:  %s\n    want: %s\n", e_.msg, (sub));             \
        CU_ASSERT_PTR_NOT_NULL(strstr(e_.msg, (sub)));                           \
        if (c_ != (struct gpu_catalog *)&e_)                                     \
            gpu_catalog_free(c_);                                                \
    } while (0)

/* ---- the shipped catalog ---------------------------------------------- */

static const struct gpu_type *shipped(const struct gpu_catalog *cat, const char *name)
{
    int i = gpu_catalog_find(cat, name);
    CU_ASSERT_FATAL(i >= 0);
    return &cat->types[i];
}

static void test_shipped_loads(void)
{
    struct gpu_catalog *cat = NULL;
    struct fs_err err = {0};
    int rc = gpu_catalog_load(tu_path("models/data/gpus.json"), &cat, &err);
    if (rc)
        printf("\n    %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cat);
    CU_ASSERT(cat->n >= 6 && cat->n <= GPU_MAX_TYPES);
    for (int i = 0; i < cat->n; i++)
        CU_ASSERT_PTR_EQUAL(cat->names[i], cat->types[i].name);

    const struct gpu_type *t = shipped(cat, "h100-sxm");
    CU_ASSERT_DOUBLE_EQUAL(t->memory_gb, 80, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t->bandwidth_gbs, 3350, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t->bf16_tflops, 989, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t->fp32_tflops, 67, 1e-9);
    CU_ASSERT_STRING_EQUAL(t->link, "nvlink");
    CU_ASSERT_DOUBLE_EQUAL(t->link_gbs, 450, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t->tdp_w, 700, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t->idle_w, 70, 1e-9);

    t = shipped(cat, "h200-sxm");
    CU_ASSERT_DOUBLE_EQUAL(t->memory_gb, 141, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t->bandwidth_gbs, 4800, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t->bf16_tflops, 989, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t->tdp_w, 700, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t->idle_w, 78, 1e-9);

    t = shipped(cat, "a100-sxm-80");
    CU_ASSERT_DOUBLE_EQUAL(t->memory_gb, 80, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t->bandwidth_gbs, 2039, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t->bf16_tflops, 312, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t->fp32_tflops, 19.5, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t->link_gbs, 300, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t->tdp_w, 400, 1e-9);

    t = shipped(cat, "a100-sxm-40");
    CU_ASSERT_DOUBLE_EQUAL(t->memory_gb, 40, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t->bandwidth_gbs, 1555, 1e-9);
    CU_ASSERT_STRING_EQUAL(t->link, "nvlink");

    t = shipped(cat, "a100-pcie-80");
    CU_ASSERT_DOUBLE_EQUAL(t->memory_gb, 80, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t->bandwidth_gbs, 1935, 1e-9);
    CU_ASSERT_STRING_EQUAL(t->link, "pcie");
    CU_ASSERT_DOUBLE_EQUAL(t->tdp_w, 300, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t->idle_w, 45, 1e-9);

    t = shipped(cat, "rtx4090");
    CU_ASSERT_DOUBLE_EQUAL(t->memory_gb, 24, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t->bandwidth_gbs, 1008, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t->bf16_tflops, 165.2, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t->fp32_tflops, 82.6, 1e-9);
    CU_ASSERT_STRING_EQUAL(t->link, "pcie");
    CU_ASSERT_DOUBLE_EQUAL(t->tdp_w, 450, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t->idle_w, 20, 1e-9);
    gpu_catalog_free(cat);
}

/* The fields added for the throughput model: FP8, TF32, measured achievable
 * BF16 matmul (MAMF) and the tensor clock, as gpus.json sources them. */
static void test_shipped_compute_fields(void)
{
    static const struct {
        const char *name;
        double fp8, tf32, mamf, clock;
    } want[] = {
        /* Measured MAMF: H100 SXM 794.5, A100 SXM 271.2, A100 PCIe 252.9. */
        {"h100-sxm", 1979, 494.5, 794.5, 1830},
        {"a100-sxm-80", 0, 156, 271.2, 1410},
        {"a100-pcie-80", 0, 156, 252.9, 1410},
        /* Derived from a measured sibling with the same die and clocks. */
        {"h200-sxm", 1979, 494.5, 794.5, 1830},
        {"a100-sxm-40", 0, 156, 271.2, 1410},
        /* No measurement: 80 % of the dense peak (ASSUMPTION_MAMF). */
        {"h100-pcie", 1513, 378, 756 * 0.8, 1620},
        {"rtx4090", 330.3, 82.6, 132.2, 2520},
        {"l40s", 733, 183, 362 * 0.8, 2520},
    };
    struct gpu_catalog *cat = NULL;
    struct fs_err err = {0};
    CU_ASSERT_EQUAL_FATAL(gpu_catalog_load(tu_path("models/data/gpus.json"), &cat, &err), 0);
    for (size_t i = 0; i < FS_ARRAY_LEN(want); i++) {
        const struct gpu_type *t = shipped(cat, want[i].name);
        CU_ASSERT_DOUBLE_EQUAL(t->fp8_tflops, want[i].fp8, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(t->tf32_tflops, want[i].tf32, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(t->mamf_bf16_tflops, want[i].mamf, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(t->clock_mhz, want[i].clock, 1e-9);
    }
    /* Every type: achievable below peak, TF32 at half the BF16 rate or less
     * (tensor cores run TF32 at half rate; GeForce FP32-accumulate BF16 is
     * itself halved, so the 4090's ratio is 0.5 too) - or, on a GPU without
     * fast 16-bit math (the K80), 16-bit, TF32 and FP32 rates all equal -
     * FP8 zero or above BF16, clocks from the K80's 875 MHz up. */
    for (int i = 0; i < cat->n; i++) {
        const struct gpu_type *t = &cat->types[i];
        CU_ASSERT(t->mamf_bf16_tflops > 0.7 * t->bf16_tflops);
        CU_ASSERT(t->mamf_bf16_tflops <= t->bf16_tflops);
        CU_ASSERT(t->tf32_tflops <= 0.51 * t->bf16_tflops ||
                  (t->bf16_tflops == t->fp32_tflops && t->tf32_tflops == t->fp32_tflops));
        CU_ASSERT(t->fp8_tflops == 0 || t->fp8_tflops >= t->bf16_tflops);
        CU_ASSERT(t->clock_mhz >= 800 && t->clock_mhz <= 3000);
    }
    /* The clocks reproduce the datasheet peaks: tensor cores x dense FMA per
     * core per clock x 2 FLOP x clock (the notes in gpus.json), within 0.5 %. */
    static const struct {
        const char *name;
        double cores, fma, tflops;
    } formula[] = {
        {"h100-sxm", 528, 512, 989},
        {"h100-pcie", 456, 512, 756},
        {"a100-sxm-80", 432, 256, 312},
        {"rtx4090", 512, 64, 165.2}, /* FP32 accumulate on GeForce */
        {"l40s", 568, 256, 733},     /* the FP8 peak; see the l40s notes */
    };
    for (size_t i = 0; i < FS_ARRAY_LEN(formula); i++) {
        const struct gpu_type *t = shipped(cat, formula[i].name);
        double peak = formula[i].cores * formula[i].fma * 2 * t->clock_mhz * 1e6 / 1e12;
        CU_ASSERT_DOUBLE_EQUAL(peak / formula[i].tflops, 1, 0.005);
    }
    gpu_catalog_free(cat);
}

static void test_find(void)
{
    struct gpu_catalog *cat = NULL;
    struct fs_err err = {0};
    CU_ASSERT_EQUAL_FATAL(load_text(catalog(gpu_obj("b-2", NULL, NULL)), &cat, &err), 0);
    CU_ASSERT_EQUAL(cat->n, 2);
    CU_ASSERT_EQUAL(gpu_catalog_find(cat, "a"), 0);
    CU_ASSERT_EQUAL(gpu_catalog_find(cat, "b-2"), 1);
    CU_ASSERT_EQUAL(gpu_catalog_find(cat, "b"), -1);
    CU_ASSERT_EQUAL(gpu_catalog_find(cat, "no-such-gpu"), -1);
    CU_ASSERT_EQUAL(gpu_catalog_find(cat, NULL), -1);
    CU_ASSERT_EQUAL(gpu_catalog_find(NULL, "a"), -1);
    gpu_catalog_free(cat);
    gpu_catalog_free(NULL);
}

/* The template is valid, so each bad catalog below fails for its own reason;
 * boundary values that are allowed load. */
static void test_valid_edges(void)
{
    static const struct {
        const char *name, *key, *repl;
    } ok[] = {
        {"b", "link_gbs", "{\"value\": 0, \"source\": \"S\"}"},
        {"b", "idle_w", "{\"value\": 0, \"source\": \"ASSUMPTION_X\"}"},
        {"b", "idle_w", "{\"value\": 699.5, \"source\": \"S\"}"},
        {"b", "link", "\"pcie\""},
        {"b", "fp8_tflops", "{\"value\": 0, \"source\": \"S\", \"notes\": \"none\"}"},
        {"b", "mamf_bf16_tflops", "{\"value\": 989, \"source\": \"S\"}"}, /* = peak */
        {"b", "clock_mhz", "{\"value\": 100, \"source\": \"S\"}"},
        {"b", "clock_mhz", "{\"value\": 5000, \"source\": \"S\"}"},
        {"abcdefghijklmnopqrstuvwxyz-0123", NULL, NULL}, /* 31 characters */
    };
    for (size_t i = 0; i < FS_ARRAY_LEN(ok); i++) {
        struct gpu_catalog *cat = NULL;
        struct fs_err err = {0};
        int rc = load_text(catalog(gpu_obj(ok[i].name, ok[i].key, ok[i].repl)), &cat, &err);
        if (rc)
            printf("\n    case %zu: %s\n", i, err.msg);
        CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(cat);
        CU_ASSERT_EQUAL(cat->n, 2);
        CU_ASSERT_EQUAL(gpu_catalog_find(cat, ok[i].name), 1);
        gpu_catalog_free(cat);
    }
}

/* ---- bad catalogs ----------------------------------------------------- */

static void test_missing_file(void)
{
    struct gpu_catalog *cat = (struct gpu_catalog *)&cat;
    struct fs_err err = {0};
    int rc = gpu_catalog_load("/nonexistent/gpus.json", &cat, &err);
    CU_ASSERT_EQUAL(rc, FS_ENOINPUT);
    CU_ASSERT_EQUAL(err.code, FS_ENOINPUT);
    CU_ASSERT_PTR_NULL(cat);
    CU_ASSERT_STRING_EQUAL(err.msg,
                           "/nonexistent/gpus.json: cannot open: No such file or directory");

    /* A directory opens but cannot be read. */
    cat = (struct gpu_catalog *)&cat;
    CU_ASSERT_EQUAL(gpu_catalog_load("/tmp", &cat, &err), FS_ENOINPUT);
    CU_ASSERT_PTR_NULL(cat);
    CU_ASSERT_STRING_EQUAL(err.msg, "/tmp: cannot open: Is a directory");
}

static void test_malformed_json(void)
{
    /* The missing value: the '}' on line 4, column 27. */
    EXPECT_ERR("{\n  \"about\": \"x\",\n  \"gpus\": [\n    {\"name\": \"a\", \"link\": }\n  ]\n}\n",
               FS_EDATA, ":4:27: malformed JSON");
    EXPECT_ERR("", FS_EDATA, ":1:1: malformed JSON");
    EXPECT_ERR("{\"about\": \"x\"} trailing", FS_EDATA, ":1:16: malformed JSON");

    /* The file is read whole: what follows a NUL byte is still parsed. */
    const char *path = tu_tmpfile(".json", "");
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fwrite("{}\n\0{", 1, 5, f);
    fclose(f);
    struct gpu_catalog *cat = NULL;
    struct fs_err err = {0};
    CU_ASSERT_EQUAL(gpu_catalog_load(path, &cat, &err), FS_EDATA);
    CU_ASSERT_PTR_NULL(cat);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, ":2:2: malformed JSON"));
    unlink(path);
}

static void test_unknown_key(void)
{
    EXPECT_ERR(catalog(gpu_obj("b", "memroy_gb", "{\"value\": 1, \"source\": \"S\"}")),
               FS_EDATA, "$.gpus[1]: unknown key \"memroy_gb\"; did you mean \"memory_gb\"?");
    EXPECT_ERR(catalog(gpu_obj("b", "tdp_w", "{\"value\": 700, \"sorce\": \"S\"}")),
               FS_EDATA, "$.gpus[1].tdp_w: unknown key \"sorce\"; did you mean \"source\"?");
    EXPECT_ERR("{\"about\": \"x\", \"sources\": {}, \"gpus\": [], \"zzzzzz\": 1}", FS_EDATA,
               "$: unknown key \"zzzzzz\" (valid keys: about, sources, gpus)");
    EXPECT_ERR(catalog(gpu_obj("b", "name", "\"b\", \"name\": \"c\"")), FS_EDATA,
               "$.gpus[1]: duplicate key \"name\"");
}

static void test_missing_field(void)
{
    EXPECT_ERR(catalog(gpu_obj("b", "memory_type", "\"hbm-3\"")), FS_EDATA,
               "$.gpus[1].memory_type: unknown memory type \"hbm-3\"; did you mean \"hbm3\"?");
    EXPECT_ERR(catalog(gpu_obj("b", "has_bf16", "1")), FS_EDATA,
               "$.gpus[1].has_bf16: expected true or false");
    EXPECT_ERR(catalog(gpu_obj("b", "int8_tops", "{\"value\": -1, \"source\": \"S\"}")), FS_EDATA,
               "$.gpus[1].int8_tops.value: must be >= 0, got -1");
    EXPECT_ERR(catalog(gpu_obj("b", "tdp_w", NULL)), FS_EDATA,
               "$.gpus[1]: missing key \"tdp_w\"");
    EXPECT_ERR(catalog(gpu_obj("b", "memory_gb", "{\"value\": 80}")), FS_EDATA,
               "$.gpus[1].memory_gb: missing key \"source\"");
    EXPECT_ERR(catalog(gpu_obj("b", "memory_gb", "{\"source\": \"S\"}")), FS_EDATA,
               "$.gpus[1].memory_gb: missing key \"value\"");
    EXPECT_ERR("{\"about\": \"x\", \"sources\": {}}", FS_EDATA,
               "$: missing key \"gpus\"");
    EXPECT_ERR("{\"about\": \"x\", \"gpus\": []}", FS_EDATA, "$: missing key \"sources\"");
    EXPECT_ERR(catalog(gpu_obj("b", "clock_mhz", NULL)), FS_EDATA,
               "$.gpus[1]: missing key \"clock_mhz\"");
    EXPECT_ERR(catalog(gpu_obj("b", "mamf_bf16_tflops", NULL)), FS_EDATA,
               "$.gpus[1]: missing key \"mamf_bf16_tflops\"");
    EXPECT_ERR(catalog(gpu_obj("b", "fp8_tflops", NULL)), FS_EDATA,
               "$.gpus[1]: missing key \"fp8_tflops\"");
    EXPECT_ERR(catalog(gpu_obj("b", "tf32_tflops", NULL)), FS_EDATA,
               "$.gpus[1]: missing key \"tf32_tflops\"");
}

static void test_wrong_type(void)
{
    EXPECT_ERR(catalog(gpu_obj("b", "memory_gb", "{\"value\": \"80\", \"source\": \"S\"}")),
               FS_EDATA, "$.gpus[1].memory_gb.value: expected a number, got a string");
    EXPECT_ERR(catalog(gpu_obj("b", "memory_gb", "80")), FS_EDATA,
               "$.gpus[1].memory_gb: expected an object");
    EXPECT_ERR(catalog(gpu_obj("b", "name", "7")), FS_EDATA,
               "$.gpus[1].name: expected a non-empty string");
    EXPECT_ERR(catalog(gpu_obj("b", "tdp_w", "{\"value\": 700, \"source\": \"S\", \"notes\": 1}")),
               FS_EDATA, "$.gpus[1].tdp_w.notes: expected a non-empty string");
    EXPECT_ERR(catalog(gpu_obj("b", "tdp_w", "{\"value\": 700, \"source\": 7}")),
               FS_EDATA, "$.gpus[1].tdp_w.source: expected a source ID string, got a number");
    EXPECT_ERR(catalog(gpu_obj("b", "clock_mhz", "{\"value\": \"1830 MHz\", \"source\": \"S\"}")),
               FS_EDATA, "$.gpus[1].clock_mhz.value: expected a number, got a string");
    EXPECT_ERR("[]", FS_EDATA, ": top level must be an object");
    EXPECT_ERR("{\"about\": null, \"sources\": {}, \"gpus\": []}", FS_EDATA,
               "$.about: expected a non-empty string");
    EXPECT_ERR("{\"about\": \"x\", \"sources\": [], \"gpus\": []}", FS_EDATA,
               "$.sources: expected an object");
    EXPECT_ERR("{\"about\": \"x\", \"sources\": {}, \"gpus\": {}}", FS_EDATA,
               "$.gpus: expected an array");
    EXPECT_ERR("{\"about\": \"x\", \"sources\": {}, \"gpus\": [7]}", FS_EDATA,
               "$.gpus[0]: expected an object, got a number");
    EXPECT_ERR("{\"about\": \"x\", \"sources\": {\"S\": 1}, \"gpus\": []}", FS_EDATA,
               "$.sources.S: expected a citation string, got a number");
}

static void test_out_of_range(void)
{
    EXPECT_ERR(catalog(gpu_obj("b", "memory_gb", "{\"value\": -80, \"source\": \"S\"}")),
               FS_EDATA, "$.gpus[1].memory_gb.value: must be > 0, got -80");
    EXPECT_ERR(catalog(gpu_obj("b", "bf16_tflops", "{\"value\": 0, \"source\": \"S\"}")),
               FS_EDATA, "$.gpus[1].bf16_tflops.value: must be > 0");
    EXPECT_ERR(catalog(gpu_obj("b", "link_gbs", "{\"value\": -1, \"source\": \"S\"}")),
               FS_EDATA, "$.gpus[1].link_gbs.value: must be >= 0");
    EXPECT_ERR(catalog(gpu_obj("b", "bandwidth_gbs", "{\"value\": 1e999, \"source\": \"S\"}")),
               FS_EDATA, "$.gpus[1].bandwidth_gbs.value: must be finite");
}

/* FP8 may be 0 (no FP8 unit) but not negative; TF32 and MAMF must be
 * positive, and MAMF, an achievable rate, cannot beat the BF16 peak; the
 * clock is in MHz, so a value in GHz or Hz is caught. */
static void test_compute_field_ranges(void)
{
    EXPECT_ERR(catalog(gpu_obj("b", "fp8_tflops", "{\"value\": -1, \"source\": \"S\"}")),
               FS_EDATA, "$.gpus[1].fp8_tflops.value: must be >= 0, got -1");
    EXPECT_ERR(catalog(gpu_obj("b", "tf32_tflops", "{\"value\": 0, \"source\": \"S\"}")),
               FS_EDATA, "$.gpus[1].tf32_tflops.value: must be > 0, got 0");
    EXPECT_ERR(catalog(gpu_obj("b", "mamf_bf16_tflops", "{\"value\": 0, \"source\": \"S\"}")),
               FS_EDATA, "$.gpus[1].mamf_bf16_tflops.value: must be > 0, got 0");
    EXPECT_ERR(catalog(gpu_obj("b", "mamf_bf16_tflops", "{\"value\": 1000, \"source\": \"S\"}")),
               FS_EDATA,
               "$.gpus[1].mamf_bf16_tflops.value: must not exceed bf16_tflops (989), got 1000");
    EXPECT_ERR(catalog(gpu_obj("b", "clock_mhz", "{\"value\": 1.83, \"source\": \"S\"}")),
               FS_EDATA, "$.gpus[1].clock_mhz.value: must be in [100, 5000], got 1.83");
    EXPECT_ERR(catalog(gpu_obj("b", "clock_mhz", "{\"value\": 99.9, \"source\": \"S\"}")),
               FS_EDATA, "$.gpus[1].clock_mhz.value: must be in [100, 5000], got 99.9");
    EXPECT_ERR(catalog(gpu_obj("b", "clock_mhz", "{\"value\": 1830000000, \"source\": \"S\"}")),
               FS_EDATA, "$.gpus[1].clock_mhz.value: must be in [100, 5000], got 1.83e+09");
    EXPECT_ERR(catalog(gpu_obj("b", "clock_mhz", "{\"value\": 5000.5, \"source\": \"S\"}")),
               FS_EDATA, "must be in [100, 5000], got 5000.5");
    EXPECT_ERR(catalog(gpu_obj("b", "clock_mhz", "{\"value\": 1e999, \"source\": \"S\"}")),
               FS_EDATA, "$.gpus[1].clock_mhz.value: must be finite");
    EXPECT_ERR(catalog(gpu_obj("b", "mamf_bf16_tflops", "{\"value\": 700, \"source\": \"NOPE\"}")),
               FS_EDATA, "$.gpus[1].mamf_bf16_tflops.source: unknown source \"NOPE\"");
}

static void test_idle_not_below_tdp(void)
{
    EXPECT_ERR(catalog(gpu_obj("b", "idle_w", "{\"value\": 700, \"source\": \"S\"}")),
               FS_EDATA, "$.gpus[1].idle_w.value: must be below tdp_w (700), got 700");
    EXPECT_ERR(catalog(gpu_obj("b", "idle_w", "{\"value\": -1, \"source\": \"S\"}")),
               FS_EDATA, "$.gpus[1].idle_w.value: must be >= 0");
}

static void test_unknown_source(void)
{
    EXPECT_ERR(catalog(gpu_obj("b", "tdp_w", "{\"value\": 700, \"source\": \"NOPE\"}")),
               FS_EDATA, "$.gpus[1].tdp_w.source: unknown source \"NOPE\"");
    EXPECT_ERR(catalog(gpu_obj("b", "tdp_w", "{\"value\": 700, \"source\": \"ASSUMPTION_Y\"}")),
               FS_EDATA, "did you mean \"ASSUMPTION_X\"?");
    EXPECT_ERR("{\"about\": \"x\", \"sources\": {\"ASSUMPTION_Z\": \"a guess\"}, \"gpus\": []}",
               FS_EDATA, "$.sources.ASSUMPTION_Z: an assumption's text must start with");
}

static void test_duplicate_name(void)
{
    EXPECT_ERR(catalog(gpu_obj("a", NULL, NULL)), FS_EDATA,
               "$.gpus[1].name: duplicate name \"a\" (also $.gpus[0])");
}

static void test_bad_link(void)
{
    EXPECT_ERR(catalog(gpu_obj("b", "link", "\"infiniband\"")), FS_EDATA,
               "$.gpus[1].link: must be \"nvlink\" or \"pcie\", got \"infiniband\"");
    EXPECT_ERR(catalog(gpu_obj("b", "link", "\"NVLink\"")), FS_EDATA,
               "$.gpus[1].link: must be \"nvlink\" or \"pcie\"");
}

static void test_bad_name(void)
{
    EXPECT_ERR(catalog(gpu_obj("H100_SXM", NULL, NULL)), FS_EDATA,
               "$.gpus[1].name: \"H100_SXM\": character 1 is not one of [a-z0-9-]");
    EXPECT_ERR(catalog(gpu_obj("h100 sxm", NULL, NULL)), FS_EDATA,
               "character 5 is not one of [a-z0-9-]");
    EXPECT_ERR(catalog(gpu_obj("", NULL, NULL)), FS_EDATA,
               "$.gpus[1].name: expected a non-empty string");
    EXPECT_ERR(catalog(gpu_obj("abcdefghijklmnopqrstuvwxyz-01234", NULL, NULL)), FS_EDATA,
               "must be 1 to 31 characters, got 32");
}

static void test_type_count(void)
{
    EXPECT_ERR("{\"about\": \"x\", \"sources\": {}, \"gpus\": []}", FS_EDATA,
               "$.gpus: must list at least one GPU type");

    size_t cap = (GPU_MAX_TYPES + 1) * 2048 + 4096, n = 0;
    char *big = malloc(cap);
    CU_ASSERT_PTR_NOT_NULL_FATAL(big);
    n += (size_t)snprintf(big + n, cap - n,
                          "{\"about\": \"x\", \"sources\": " SOURCES ", \"gpus\": [");
    for (int i = 0; i <= GPU_MAX_TYPES; i++) {
        char name[16];
        snprintf(name, sizeof name, "g%d", i);
        n += (size_t)snprintf(big + n, cap - n, "%s%s", i ? ", " : "",
                              gpu_obj(name, NULL, NULL));
    }
    snprintf(big + n, cap - n, "]}");
    EXPECT_ERR(big, FS_EDATA, "$.gpus: 65 types, at most 64");
    free(big);
}

static CU_TestInfo catalog_tests[] = {
    {"shipped gpus.json loads with calibrated values", test_shipped_loads},
    {"shipped FP8, TF32, MAMF and clock values", test_shipped_compute_fields},
    {"find returns the index or -1", test_find},
    {"boundary values that are allowed load", test_valid_edges},
    {"missing file is FS_ENOINPUT", test_missing_file},
    {"malformed JSON names line:col", test_malformed_json},
    {"unknown and duplicate keys, with suggestions", test_unknown_key},
    {"missing fields", test_missing_field},
    {"wrong types", test_wrong_type},
    {"out-of-range and non-finite numbers", test_out_of_range},
    {"FP8, TF32, MAMF and clock ranges", test_compute_field_ranges},
    {"idle power must be below TDP", test_idle_not_below_tdp},
    {"unknown source IDs and unmarked assumptions", test_unknown_source},
    {"duplicate GPU names", test_duplicate_name},
    {"link must be nvlink or pcie", test_bad_link},
    {"names are 1..31 characters of [a-z0-9-]", test_bad_name},
    {"between 1 and GPU_MAX_TYPES types", test_type_count},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"catalog", NULL, NULL, NULL, NULL, catalog_tests},
    CU_SUITE_INFO_NULL,
};

int main(void)
{
    return tu_run("test_catalog", suites);
}
