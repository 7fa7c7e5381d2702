/* gpu.h - the GPU catalog: every GPU type fleetsim knows, loaded at run time
 * from models/data/gpus.json.  Adding a GPU is a data change, not a code
 * change.
 *
 * The file is {"about": "...", "sources": {"ID": "citation", ...},
 * "gpus": [{"name": ..., "link": "nvlink"|"pcie", "memory_type": "hbm3"
 * (hbm2, hbm2e, hbm3, hbm3e, gddr5, gddr6, gddr6x), "has_bf16": true|false,
 * "memory_gb": ..., ...}]}.
 * Every number is an object {"value": V, "source": "ID"} (plus an optional
 * "notes" string) whose source ID names an entry of "sources": a citation,
 * or an explicit assumption, whose ID starts "ASSUMPTION" and whose text
 * starts "assumption:".  Names are 1..GPU_NAME_MAX-1 characters of [a-z0-9-]
 * and unique.  The loader (through base/json.h) checks that every field is
 * present, numeric, finite, in range (idle_w, link_gbs, fp8_tflops and int8_tops >= 0,
 * idle_w < tdp_w, 0 < mamf_bf16_tflops <= bf16_tflops, clock_mhz in
 * [100, 5000], the rest > 0) and sourced, rejects unknown and duplicate keys
 * (suggesting the closest known one), and reports the first problem as
 * "FILE: $.gpus[3].memory_gb.value: ..." (a JSON path) or
 * "FILE:LINE:COL: malformed JSON".
 *
 * The caller owns the returned catalog and frees it with gpu_catalog_free.
 */
#ifndef FS_MODELS_GPU_H
#define FS_MODELS_GPU_H

#include <stdbool.h>

#include "../base/base.h"

/* At most this many types, so a set of types fits one uint64_t mask. */
#define GPU_MAX_TYPES 64
#define GPU_NAME_MAX 32

struct gpu_type {
    char name[GPU_NAME_MAX];  /* "h100-sxm" */
    double memory_gb;         /* on-board memory, GB (1e9 bytes) */
    double bandwidth_gbs;     /* memory bandwidth, GB/s */
    double bf16_tflops;       /* dense BF16/FP16 tensor TFLOPS */
    double fp8_tflops;        /* dense FP8 tensor TFLOPS; 0 = no FP8 */
    double int8_tops;         /* dense INT8 tensor TOPS; 0 = no INT8 tensor cores */
    double tf32_tflops;       /* dense TF32 tensor TFLOPS */
    double fp32_tflops;       /* dense FP32 (non-tensor) TFLOPS */
    double mamf_bf16_tflops;  /* achievable BF16 matmul TFLOPS (measured
                                 MAMF where published, else derived or an
                                 assumption; see gpus.json) */
    double clock_mhz;         /* tensor boost clock, MHz */
    char link[16];            /* "nvlink" or "pcie" */
    char memory_type[8];      /* "hbm2", "hbm2e", "hbm3", "hbm3e", "gddr5", "gddr6", "gddr6x" */
    bool has_bf16;            /* BF16 tensor support; false: bf16_tflops is the
                                 FP16 rate (V100, T4) */
    double link_gbs;          /* GPU-GPU bandwidth, GB/s, one direction */
    double tdp_w;             /* board power limit, W */
    double idle_w;            /* power at 0 % utilization, W */
};

struct gpu_catalog {
    int n;
    struct gpu_type types[GPU_MAX_TYPES];
    const char *names[GPU_MAX_TYPES]; /* types[i].name, for fs_suggest */
};

/* Load the catalog from path.
 * OUT *out: a new catalog on success, NULL on failure.
 * RET: 0, FS_ENOINPUT (cannot read the file) or FS_EDATA (malformed JSON,
 *      missing/mistyped/out-of-range field, unknown key, unknown source,
 *      duplicate name, more than GPU_MAX_TYPES types), with err filled. */
int gpu_catalog_load(const char *path, struct gpu_catalog **out, struct fs_err *err);
void gpu_catalog_free(struct gpu_catalog *cat); /* NULL is fine */

/* Index of the type called name, or -1 (also when cat or name is NULL). */
int gpu_catalog_find(const struct gpu_catalog *cat, const char *name);

#endif
