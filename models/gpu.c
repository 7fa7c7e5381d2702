/* gpu.c - load and check the GPU catalog (models/data/gpus.json). */
#include "gpu.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A numeric field of struct gpu_type: the value must be > min, or >= min
 * when inclusive.  idle_w < tdp_w is checked once all fields are read. */
struct num_field {
    const char *key;
    size_t off;
    double min;
    int inclusive;
};

static const struct num_field num_fields[] = {
    {"memory_gb", offsetof(struct gpu_type, memory_gb), 0, 0},
    {"bandwidth_gbs", offsetof(struct gpu_type, bandwidth_gbs), 0, 0},
    {"bf16_tflops", offsetof(struct gpu_type, bf16_tflops), 0, 0},
    {"fp32_tflops", offsetof(struct gpu_type, fp32_tflops), 0, 0},
    {"link_gbs", offsetof(struct gpu_type, link_gbs), 0, 1},
    {"tdp_w", offsetof(struct gpu_type, tdp_w), 0, 0},
    {"idle_w", offsetof(struct gpu_type, idle_w), 0, 1},
};

static const char *const top_keys[] = {"about", "sources", "gpus"};
static const char *const gpu_keys[] = {"name", "link", "memory_gb", "bandwidth_gbs",
                                       "bf16_tflops", "fp32_tflops", "link_gbs",
                                       "tdp_w", "idle_w"};
static const char *const value_keys[] = {"value", "source", "notes"};
static const char *const link_kinds[] = {"nvlink", "pcie"};

#define ASSUMPTION_PREFIX "ASSUMPTION"

/* What one load needs to report errors and resolve source IDs. */
struct ctx {
    const char *file;
    struct fs_err *err;
    const cJSON *sources;
    const char **src_ids; /* keys of "sources", for suggestions */
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

/* Every key of obj must be one of allowed[], and appear once. */
static int check_keys(const struct ctx *cx, const char *path, const cJSON *obj,
                      const char *const *allowed, size_t n)
{
    for (const cJSON *it = obj->child; it; it = it->next) {
        size_t i = 0;
        while (i < n && strcmp(it->string, allowed[i]) != 0)
            i++;
        if (i == n) {
            const char *hint = fs_suggest(it->string, allowed, n);
            return data_err(cx, "%s: unknown key \"%s\"%s%s%s", path, it->string,
                            hint ? "; did you mean \"" : "", hint ? hint : "",
                            hint ? "\"?" : "");
        }
        for (const cJSON *prev = obj->child; prev != it; prev = prev->next)
            if (strcmp(prev->string, it->string) == 0)
                return data_err(cx, "%s: duplicate key \"%s\"", path, it->string);
    }
    return 0;
}

/* The member key of obj, which must exist; path is obj's path. */
static int get_member(const struct ctx *cx, const char *path, const cJSON *obj,
                      const char *key, const cJSON **out)
{
    *out = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!*out)
        return data_err(cx, "%s.%s: missing required field", path, key);
    return 0;
}

static int check_source(const struct ctx *cx, const char *path, const cJSON *src)
{
    int rc = want_type(cx, path, src, cJSON_IsString(src), "a source ID string");
    if (rc)
        return rc;
    if (cJSON_GetObjectItemCaseSensitive(cx->sources, src->valuestring))
        return 0;
    const char *hint = fs_suggest(src->valuestring, cx->src_ids, cx->n_src);
    return data_err(cx, "%s: unknown source \"%s\" (not in $.sources)%s%s%s", path,
                    src->valuestring, hint ? "; did you mean \"" : "",
                    hint ? hint : "", hint ? "\"?" : "");
}

/* Read {"value": V, "source": "ID"[, "notes": "..."]} at gpu.<f->key>. */
static int read_number(const struct ctx *cx, const char *gpath, const cJSON *gpu,
                       const struct num_field *f, double *out)
{
    char path[96], sub[112];
    const cJSON *obj, *val, *src, *notes;
    snprintf(path, sizeof path, "%s.%s", gpath, f->key);
    int rc = get_member(cx, gpath, gpu, f->key, &obj);
    if (!rc)
        rc = want_type(cx, path, obj, cJSON_IsObject(obj),
                       "an object {\"value\": number, \"source\": \"ID\"}");
    if (!rc)
        rc = check_keys(cx, path, obj, value_keys, FS_ARRAY_LEN(value_keys));
    if (!rc)
        rc = get_member(cx, path, obj, "value", &val);
    if (!rc)
        rc = get_member(cx, path, obj, "source", &src);
    if (rc)
        return rc;
    snprintf(sub, sizeof sub, "%s.value", path);
    if ((rc = want_type(cx, sub, val, cJSON_IsNumber(val), "a number")))
        return rc;
    double v = val->valuedouble;
    if (!isfinite(v))
        return data_err(cx, "%s: must be finite", sub);
    if (f->inclusive ? !(v >= f->min) : !(v > f->min))
        return data_err(cx, "%s: must be %s %g, got %g", sub, f->inclusive ? ">=" : ">",
                        f->min, v);
    notes = cJSON_GetObjectItemCaseSensitive(obj, "notes");
    snprintf(sub, sizeof sub, "%s.notes", path);
    if (notes && (rc = want_type(cx, sub, notes, cJSON_IsString(notes), "a string")))
        return rc;
    snprintf(sub, sizeof sub, "%s.source", path);
    if ((rc = check_source(cx, sub, src)))
        return rc;
    *out = v;
    return 0;
}

/* "name": 1..GPU_NAME_MAX-1 characters of [a-z0-9-]. */
static int read_name(const struct ctx *cx, const char *gpath, const cJSON *gpu, char *name)
{
    char path[96];
    const cJSON *it;
    snprintf(path, sizeof path, "%s.name", gpath);
    int rc = get_member(cx, gpath, gpu, "name", &it);
    if (!rc)
        rc = want_type(cx, path, it, cJSON_IsString(it), "a string");
    if (rc)
        return rc;
    const char *s = it->valuestring;
    size_t n = strlen(s);
    if (n == 0 || n >= GPU_NAME_MAX)
        return data_err(cx, "%s: must be 1 to %d characters, got %zu", path,
                        GPU_NAME_MAX - 1, n);
    size_t bad = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-");
    if (bad != n)
        return data_err(cx, "%s: \"%s\": character %zu is not one of [a-z0-9-]", path,
                        s, bad + 1);
    memcpy(name, s, n + 1);
    return 0;
}

static int read_link(const struct ctx *cx, const char *gpath, const cJSON *gpu, char *link)
{
    char path[96];
    const cJSON *it;
    snprintf(path, sizeof path, "%s.link", gpath);
    int rc = get_member(cx, gpath, gpu, "link", &it);
    if (!rc)
        rc = want_type(cx, path, it, cJSON_IsString(it), "a string");
    if (rc)
        return rc;
    for (size_t i = 0; i < FS_ARRAY_LEN(link_kinds); i++)
        if (strcmp(it->valuestring, link_kinds[i]) == 0) {
            strcpy(link, link_kinds[i]);
            return 0;
        }
    return data_err(cx, "%s: must be \"nvlink\" or \"pcie\", got \"%s\"", path,
                    it->valuestring);
}

static int read_gpu(const struct ctx *cx, const cJSON *gpu, int idx, struct gpu_type *t)
{
    char path[32];
    snprintf(path, sizeof path, "$.gpus[%d]", idx);
    int rc = want_type(cx, path, gpu, cJSON_IsObject(gpu), "an object");
    if (!rc)
        rc = check_keys(cx, path, gpu, gpu_keys, FS_ARRAY_LEN(gpu_keys));
    if (!rc)
        rc = read_name(cx, path, gpu, t->name);
    if (!rc)
        rc = read_link(cx, path, gpu, t->link);
    for (size_t i = 0; !rc && i < FS_ARRAY_LEN(num_fields); i++)
        rc = read_number(cx, path, gpu, &num_fields[i],
                         (double *)((char *)t + num_fields[i].off));
    if (!rc && !(t->idle_w < t->tdp_w))
        rc = data_err(cx, "%s.idle_w.value: must be below tdp_w (%g), got %g", path,
                      t->tdp_w, t->idle_w);
    return rc;
}

/* "sources": {"ID": "citation", ...}; an ID starting ASSUMPTION must say so
 * in its text, so that a reader can tell guesses from citations. */
static int read_sources(struct ctx *cx, const cJSON *src)
{
    int rc = want_type(cx, "$.sources", src, cJSON_IsObject(src), "an object");
    if (rc)
        return rc;
    size_t n = (size_t)cJSON_GetArraySize(src);
    cx->src_ids = xcalloc(n, sizeof *cx->src_ids);
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
    return check_keys(cx, "$.sources", src, cx->src_ids, cx->n_src);
}

static int read_gpus(const struct ctx *cx, const cJSON *gpus, struct gpu_catalog *cat)
{
    int rc = want_type(cx, "$.gpus", gpus, cJSON_IsArray(gpus), "an array");
    if (rc)
        return rc;
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
    const cJSON *about, *sources, *gpus;
    int rc = want_type(cx, "$", root, cJSON_IsObject(root), "an object");
    if (!rc)
        rc = check_keys(cx, "$", root, top_keys, FS_ARRAY_LEN(top_keys));
    if (!rc)
        rc = get_member(cx, "$", root, "about", &about);
    if (!rc)
        rc = want_type(cx, "$.about", about, cJSON_IsString(about), "a string");
    if (!rc)
        rc = get_member(cx, "$", root, "sources", &sources);
    if (!rc)
        rc = read_sources(cx, sources);
    if (rc)
        return rc;
    cx->sources = sources;
    if ((rc = get_member(cx, "$", root, "gpus", &gpus)))
        return rc;
    return read_gpus(cx, gpus, cat);
}

/* Read the whole of path into a NUL-terminated buffer the caller frees. */
static int read_file(const char *path, char **out, size_t *len, struct fs_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return fs_fail(err, FS_ENOINPUT, "%s: cannot open: %s", path, strerror(errno));
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        xgrow(&buf, &cap, n + 4096, 1);
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    int failed = ferror(f), saved = errno;
    fclose(f);
    if (failed) {
        free(buf);
        return fs_fail(err, FS_ENOINPUT, "%s: cannot read: %s", path, strerror(saved));
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

/* Parse text (NUL-terminated at len, which cJSON wants counted in the
 * length); on failure report the 1-based line and column (in bytes) of the
 * error.  cJSON's return_parse_end is the offset cJSON_GetErrorPtr gives,
 * without the process-wide state. */
static int parse_json(const char *path, const char *text, size_t len, cJSON **out,
                      struct fs_err *err)
{
    const char *end = NULL;
    *out = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
    if (*out)
        return 0;
    size_t off = end && end >= text ? (size_t)(end - text) : 0, line = 1, col = 1;
    for (size_t i = 0; i < off && i < len; i++) {
        col = text[i] == '\n' ? 1 : col + 1;
        line += text[i] == '\n';
    }
    return fs_fail(err, FS_EDATA, "%s:%zu:%zu: malformed JSON", path, line, col);
}

int gpu_catalog_load(const char *path, struct gpu_catalog **out, struct fs_err *err)
{
    struct ctx cx = {.file = path, .err = err};
    struct gpu_catalog *cat = NULL;
    cJSON *root = NULL;
    char *text = NULL;
    size_t len = 0;

    *out = NULL;
    int rc = read_file(path, &text, &len, err);
    if (rc)
        goto done;
    if ((rc = parse_json(path, text, len, &root, err)))
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
    free(text);
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
