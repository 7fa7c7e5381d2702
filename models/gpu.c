/* gpu.c - load and check the GPU catalog (models/data/gpus.json).
 *
 * Reading the file, parsing it, unknown and duplicate keys and the plain
 * string and container members go through base/json.h, the project's one
 * JSON-reading path.  What stays here is what the catalog adds: the sourced
 * {"value", "source", "notes"} number objects, with exclusive lower bounds,
 * "expected X, got Y" messages and suggested source IDs (json_sourced takes
 * inclusive ranges only and suggests nothing), and the source-ID table. */
#include "gpu.h"

#include "../base/json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A numeric field of struct gpu_type: the value must be > lo, or >= lo when
 * lo_incl, and <= hi.  Cross-field rules (idle_w < tdp_w, mamf_bf16_tflops <=
 * bf16_tflops) are checked once all fields are read. */
struct num_field {
    const char *key;
    size_t off;
    double lo;
    int lo_incl;
    double hi;
};

#define NUM(key, lo, lo_incl, hi) {#key, offsetof(struct gpu_type, key), lo, lo_incl, hi}
static const struct num_field num_fields[] = {
    NUM(memory_gb, 0, 0, HUGE_VAL),
    NUM(bandwidth_gbs, 0, 0, HUGE_VAL),
    NUM(bf16_tflops, 0, 0, HUGE_VAL),
    NUM(fp8_tflops, 0, 1, HUGE_VAL), /* 0: the GPU has no FP8 (A100) */
    NUM(int8_tops, 0, 1, HUGE_VAL), /* 0: no INT8 tensor cores (V100) */
    NUM(tf32_tflops, 0, 0, HUGE_VAL),
    NUM(fp32_tflops, 0, 0, HUGE_VAL),
    NUM(mamf_bf16_tflops, 0, 0, HUGE_VAL),
    NUM(clock_mhz, 100, 1, 5000), /* a real GPU clock, not Hz or GHz */
    NUM(link_gbs, 0, 1, HUGE_VAL),
    NUM(tdp_w, 0, 0, HUGE_VAL),
    NUM(idle_w, 0, 1, HUGE_VAL),
};
/* Every value's ceiling: about 20 times the largest figure the catalog
 * holds today (H200's 4800 GB/s), there so that an absurd value (1e308)
 * is refused rather than overflowing the models into inf or NaN. */
#define GPU_VALUE_MAX 1e5
#undef NUM

static const char *const top_keys[] = {"about", "sources", "gpus", NULL};
static const char *const gpu_keys[] = {
    "name", "link", "memory_type", "has_bf16", "int8_tops", "memory_gb", "bandwidth_gbs", "bf16_tflops", "fp8_tflops",
    "tf32_tflops", "fp32_tflops", "mamf_bf16_tflops", "clock_mhz", "link_gbs",
    "tdp_w", "idle_w", NULL};
static const char *const value_keys[] = {"value", "source", "notes", NULL};
static const char *const link_kinds[] = {"nvlink", "pcie"};
static const char *const memory_kinds[] = {"hbm2", "hbm2e", "hbm3", "hbm3e", "gddr5", "gddr6", "gddr6x"};

#define ASSUMPTION_PREFIX "ASSUMPTION"

/* What one load needs to report errors and resolve source IDs. */
struct ctx {
    const char *file;
    struct fs_err *err;
    const cJSON *sources;
    const char **src_ids; /* keys of "sources", NULL-terminated, for suggestions */
    size_t n_src;
};

/* Report "FILE: <formatted>" as FS_EDATA. */
__attribute__((format(printf, 2, 3)))
static int data_err(const struct ctx *cx, const char *fmt, ...)
{
    char msg[sizeof cx->err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fs_fail(cx->err, FS_EDATA, "%s: %s", cx->file, msg);
}

static const char *type_name(const cJSON *item)
{
    if (cJSON_IsNumber(item))
        return "a number";
    if (cJSON_IsString(item))
        return "a string";
    if (cJSON_IsBool(item))
        return "a boolean";
    if (cJSON_IsNull(item))
        return "null";
    if (cJSON_IsArray(item))
        return "an array";
    return "an object";
}

static int want_type(const struct ctx *cx, const char *path, const cJSON *item,
                     cJSON_bool ok, const char *want)
{
    if (ok)
        return 0;
    return data_err(cx, "%s: expected %s, got %s", path, want, type_name(item));
}

/* The member key of obj, which must exist; path is obj's path.  The message
 * reads as json.h's do. */
static int get_member(const struct ctx *cx, const char *path, const cJSON *obj,
                      const char *key, const cJSON **out)
{
    *out = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!*out)
        return data_err(cx, "%s: missing key \"%s\"", path, key);
    return 0;
}

static int check_source(const struct ctx *cx, const char *path, const cJSON *src)
{
    int rc = want_type(cx, path, src, cJSON_IsString(src), "a source ID string");
    if (rc)
        return rc;
    const char *id = src->valuestring;
    if (cJSON_GetObjectItemCaseSensitive(cx->sources, id))
        return 0;
    const char *hint = fs_suggest(id, cx->src_ids, cx->n_src);
    return data_err(cx, "%s: unknown source \"%s\" (not in $.sources)%s%s%s", path, id,
                    hint ? "; did you mean \"" : "", hint ? hint : "", hint ? "\"?" : "");
}

static int check_range(const struct ctx *cx, const char *path, const struct num_field *f,
                       double v)
{
    if (!isfinite(v))
        return data_err(cx, "%s: must be finite", path);
    if (isfinite(f->hi) && (v < f->lo || v > f->hi))
        return data_err(cx, "%s: must be in [%g, %g], got %g", path, f->lo, f->hi, v);
    if (f->lo_incl ? !(v >= f->lo) : !(v > f->lo))
        return data_err(cx, "%s: must be %s %g, got %g", path, f->lo_incl ? ">=" : ">",
                        f->lo, v);
    if (v > GPU_VALUE_MAX)
        return data_err(cx, "%s: must be <= %g (no GPU comes near), got %g", path, GPU_VALUE_MAX, v);
    return 0;
}

/* Read {"value": V, "source": "ID"[, "notes": "..."]} at gpu.<f->key>. */
static int read_number(const struct ctx *cx, const char *gpath, const cJSON *gpu,
                       const struct num_field *f, double *out)
{
    char path[96], sub[112];
    const cJSON *obj, *val, *src;
    const char *notes = NULL;
    snprintf(path, sizeof path, "%s.%s", gpath, f->key);
    int rc = get_member(cx, gpath, gpu, f->key, &obj);
    if (!rc)
        rc = want_type(cx, path, obj, cJSON_IsObject(obj),
                       "an object {\"value\": number, \"source\": \"ID\"}");
    if (!rc)
        rc = json_check_keys(obj, value_keys, cx->file, path, cx->err);
    if (!rc)
        rc = get_member(cx, path, obj, "value", &val);
    if (!rc)
        rc = get_member(cx, path, obj, "source", &src);
    if (!rc)
        rc = json_string(obj, "notes", false, &notes, cx->file, path, cx->err);
    if (rc)
        return rc;
    snprintf(sub, sizeof sub, "%s.value", path);
    if ((rc = want_type(cx, sub, val, cJSON_IsNumber(val), "a number")) ||
        (rc = check_range(cx, sub, f, val->valuedouble)))
        return rc;
    snprintf(sub, sizeof sub, "%s.source", path);
    if ((rc = check_source(cx, sub, src)))
        return rc;
    *out = val->valuedouble;
    return 0;
}

/* "name": 1..GPU_NAME_MAX-1 characters of [a-z0-9-]. */
static int read_name(const struct ctx *cx, const char *gpath, const cJSON *gpu, char *name)
{
    const char *s = NULL;
    int rc = json_string(gpu, "name", true, &s, cx->file, gpath, cx->err);
    if (rc)
        return rc;
    size_t n = strlen(s);
    if (n >= GPU_NAME_MAX)
        return data_err(cx, "%s.name: must be 1 to %d characters, got %zu", gpath,
                        GPU_NAME_MAX - 1, n);
    size_t bad = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-");
    if (bad != n)
        return data_err(cx, "%s.name: \"%s\": character %zu is not one of [a-z0-9-]", gpath,
                        s, bad + 1);
    memcpy(name, s, n + 1);
    return 0;
}

static int read_link(const struct ctx *cx, const char *gpath, const cJSON *gpu, char *link)
{
    const char *s = NULL;
    int rc = json_string(gpu, "link", true, &s, cx->file, gpath, cx->err);
    if (rc)
        return rc;
    for (size_t i = 0; i < FS_ARRAY_LEN(link_kinds); i++)
        if (strcmp(s, link_kinds[i]) == 0) {
            strcpy(link, link_kinds[i]);
            return 0;
        }
    return data_err(cx, "%s.link: must be \"nvlink\" or \"pcie\", got \"%s\"", gpath, s);
}

static int read_memory_type(const struct ctx *cx, const char *gpath, const cJSON *gpu,
                            char *out)
{
    const char *s = NULL;
    int rc = json_string(gpu, "memory_type", true, &s, cx->file, gpath, cx->err);
    if (rc)
        return rc;
    for (size_t i = 0; i < FS_ARRAY_LEN(memory_kinds); i++)
        if (strcmp(s, memory_kinds[i]) == 0) {
            strcpy(out, memory_kinds[i]);
            return 0;
        }
    const char *hint = fs_suggest(s, memory_kinds, FS_ARRAY_LEN(memory_kinds));
    return data_err(cx, "%s.memory_type: unknown memory type \"%s\"%s%s%s", gpath, s,
                    hint ? "; did you mean \"" : "", hint ? hint : "", hint ? "\"?" : "");
}

static int read_gpu(const struct ctx *cx, const cJSON *gpu, int idx, struct gpu_type *t)
{
    char path[32];
    snprintf(path, sizeof path, "$.gpus[%d]", idx);
    int rc = want_type(cx, path, gpu, cJSON_IsObject(gpu), "an object");
    if (!rc)
        rc = json_check_keys(gpu, gpu_keys, cx->file, path, cx->err);
    if (!rc)
        rc = read_name(cx, path, gpu, t->name);
    if (!rc)
        rc = read_link(cx, path, gpu, t->link);
    if (!rc)
        rc = read_memory_type(cx, path, gpu, t->memory_type);
    if (!rc) {
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(gpu, "has_bf16");
        if (!b)
            rc = data_err(cx, "%s: missing key \"has_bf16\"", path);
        else if (!cJSON_IsBool(b))
            rc = data_err(cx, "%s.has_bf16: expected true or false", path);
        else
            t->has_bf16 = cJSON_IsTrue(b);
    }
    for (size_t i = 0; !rc && i < FS_ARRAY_LEN(num_fields); i++)
        rc = read_number(cx, path, gpu, &num_fields[i],
                         (double *)((char *)t + num_fields[i].off));
    if (rc)
        return rc;
    if (!(t->idle_w < t->tdp_w))
        return data_err(cx, "%s.idle_w.value: must be below tdp_w (%g), got %g", path,
                        t->tdp_w, t->idle_w);
    /* An achievable rate above the peak is a typo or a sparse figure. */
    if (t->mamf_bf16_tflops > t->bf16_tflops)
        return data_err(cx, "%s.mamf_bf16_tflops.value: must not exceed bf16_tflops (%g), got %g",
                        path, t->bf16_tflops, t->mamf_bf16_tflops);
    return 0;
}

/* "sources": {"ID": "citation", ...}; an ID starting ASSUMPTION must say so
 * in its text, so that a reader can tell guesses from citations. */
static int read_sources(struct ctx *cx, const cJSON *src)
{
    int rc = 0;
    size_t n = (size_t)cJSON_GetArraySize(src);
    cx->src_ids = xcalloc(n + 1, sizeof *cx->src_ids);
    for (const cJSON *it = src->child; it; it = it->next) {
        char path[96];
        snprintf(path, sizeof path, "$.sources.%s", it->string);
        if (!*it->string)
            return data_err(cx, "$.sources: empty source ID");
        if ((rc = want_type(cx, path, it, cJSON_IsString(it), "a citation string")))
            return rc;
        if (!*it->valuestring)
            return data_err(cx, "%s: empty citation", path);
        if (strncmp(it->string, ASSUMPTION_PREFIX, strlen(ASSUMPTION_PREFIX)) == 0 &&
            strncmp(it->valuestring, "assumption:", 11) != 0)
            return data_err(cx, "%s: an assumption's text must start with \"assumption:\"",
                            path);
        cx->src_ids[cx->n_src++] = it->string;
    }
    /* Every key is allowed, so this only rejects a repeated ID. */
    return json_check_keys(src, cx->src_ids, cx->file, "$.sources", cx->err);
}

static int read_gpus(const struct ctx *cx, const cJSON *gpus, struct gpu_catalog *cat)
{
    int rc = 0;
    int n = cJSON_GetArraySize(gpus);
    if (n == 0)
        return data_err(cx, "$.gpus: must list at least one GPU type");
    if (n > GPU_MAX_TYPES)
        return data_err(cx, "$.gpus: %d types, at most %d", n, GPU_MAX_TYPES);
    const cJSON *it = gpus->child;
    for (int i = 0; i < n; i++, it = it->next) {
        struct gpu_type *t = &cat->types[i];
        if ((rc = read_gpu(cx, it, i, t)))
            return rc;
        int dup = gpu_catalog_find(cat, t->name);
        if (dup >= 0)
            return data_err(cx, "$.gpus[%d].name: duplicate name \"%s\" (also $.gpus[%d])",
                            i, t->name, dup);
        cat->names[i] = t->name;
        cat->n = i + 1;
    }
    return 0;
}

static int read_root(struct ctx *cx, const cJSON *root, struct gpu_catalog *cat)
{
    const char *about = NULL;
    const cJSON *sources = NULL, *gpus = NULL;
    int rc = json_check_keys(root, top_keys, cx->file, "$", cx->err);
    if (!rc)
        rc = json_string(root, "about", true, &about, cx->file, "$", cx->err);
    if (!rc)
        rc = json_child(root, "sources", true, cJSON_Object, &sources, cx->file, "$", cx->err);
    if (!rc)
        rc = read_sources(cx, sources);
    if (!rc)
        rc = json_child(root, "gpus", true, cJSON_Array, &gpus, cx->file, "$", cx->err);
    if (rc)
        return rc;
    cx->sources = sources;
    return read_gpus(cx, gpus, cat);
}

int gpu_catalog_load(const char *path, struct gpu_catalog **out, struct fs_err *err)
{
    struct ctx cx = {.file = path, .err = err};
    struct gpu_catalog *cat = NULL;
    cJSON *root = NULL;

    *out = NULL;
    int rc = json_load_file(path, &root, err);
    if (rc)
        goto done;
    cat = xcalloc(1, sizeof *cat);
    rc = read_root(&cx, root, cat);
done:
    if (rc) {
        gpu_catalog_free(cat);
        cat = NULL;
    }
    free(cx.src_ids);
    cJSON_Delete(root);
    *out = cat;
    return rc;
}

void gpu_catalog_free(struct gpu_catalog *cat)
{
    free(cat);
}

int gpu_catalog_find(const struct gpu_catalog *cat, const char *name)
{
    if (!cat || !name)
        return -1;
    for (int i = 0; i < cat->n; i++)
        if (strcmp(cat->types[i].name, name) == 0)
            return i;
    return -1;
}
