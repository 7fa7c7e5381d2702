/* json.c - cJSON input with file- and path-naming errors. */
#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAX_BYTES (256u << 20)

static char *read_all(const char *path, size_t *len, struct fs_err *err, int *rc)
{
    FILE *f;
    if ((*rc = fs_open_input(path, &f, err)))
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1 || n >= JSON_MAX_BYTES)
            break;
        buf = xrealloc(buf, cap *= 2);
    }
    int bad = ferror(f) ? errno : 0;
    fclose(f);
    if (bad || n >= JSON_MAX_BYTES) {
        *rc = bad ? fs_fail(err, FS_ENOINPUT, "%s: cannot read: %s", path, strerror(bad))
                  : fs_fail(err, FS_EDATA, "%s: file larger than 256 MiB", path);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

int json_load_file(const char *path, cJSON **out, struct fs_err *err)
{
    int rc = 0;
    size_t len = 0;
    *out = NULL;
    char *text = read_all(path, &len, err, &rc);
    if (!text)
        return rc;
    const char *end = NULL;
    /* The length includes the terminating NUL, which cJSON requires to see. */
    cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, &end, true);
    if (!root || memchr(text, '\0', len)) {
        size_t at = end && end >= text ? (size_t)(end - text) : 0;
        int line = 1, col = 1;
        for (size_t i = 0; i < at && i < len; i++, col++)
            if (text[i] == '\n')
                line++, col = 0;
        rc = fs_fail(err, FS_EDATA, "%s:%d:%d: malformed JSON", path, line, col);
    } else if (!cJSON_IsObject(root)) {
        rc = fs_fail(err, FS_EDATA, "%s: top level must be an object", path);
    }
    free(text);
    if (rc)
        cJSON_Delete(root);
    else
        *out = root;
    return rc;
}

int json_check_keys(const cJSON *obj, const char *const *keys,
                    const char *file, const char *path, struct fs_err *err)
{
    size_t nkeys = 0;
    while (keys[nkeys])
        nkeys++;
    for (const cJSON *c = obj->child; c; c = c->next) {
        for (const cJSON *d = obj->child; d != c; d = d->next)
            if (strcmp(d->string, c->string) == 0)
                return fs_fail(err, FS_EDATA, "%s: %s: duplicate key \"%s\"", file, path, c->string);
        size_t k = 0;
        while (k < nkeys && strcmp(c->string, keys[k]) != 0)
            k++;
        if (k < nkeys)
            continue;
        const char *hint = fs_suggest(c->string, keys, nkeys);
        if (hint)
            return fs_fail(err, FS_EDATA, "%s: %s: unknown key \"%s\"; did you mean \"%s\"?",
                           file, path, c->string, hint);
        char list[512] = "";
        for (k = 0; k < nkeys; k++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", keys[k]);
        return fs_fail(err, FS_EDATA, "%s: %s: unknown key \"%s\" (valid keys: %s)",
                       file, path, c->string, list);
    }
    return 0;
}

static const cJSON *member(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

int json_number(const cJSON *obj, const char *key, bool required, double lo, double hi,
                double *out, const char *file, const char *path, struct fs_err *err)
{
    const cJSON *v = member(obj, key);
    if (!v)
        return required ? fs_fail(err, FS_EDATA, "%s: %s: missing key \"%s\"", file, path, key) : 0;
    if (!cJSON_IsNumber(v))
        return fs_fail(err, FS_EDATA, "%s: %s.%s: expected a number", file, path, key);
    double d = v->valuedouble;
    if (!isfinite(d) || d < lo || d > hi)
        return fs_fail(err, FS_EDATA, "%s: %s.%s: %g is out of range [%g, %g]",
                       file, path, key, d, lo, hi);
    *out = d;
    return 0;
}

int json_int(const cJSON *obj, const char *key, bool required, int64_t lo, int64_t hi,
             int64_t *out, const char *file, const char *path, struct fs_err *err)
{
    double d = 0;
    const cJSON *v = member(obj, key);
    if (!v)
        return required ? fs_fail(err, FS_EDATA, "%s: %s: missing key \"%s\"", file, path, key) : 0;
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble))
        return fs_fail(err, FS_EDATA, "%s: %s.%s: expected an integer", file, path, key);
    int rc = json_number(obj, key, required, (double)lo, (double)hi, &d, file, path, err);
    if (rc == 0)
        *out = (int64_t)d;
    return rc;
}

int json_string(const cJSON *obj, const char *key, bool required,
                const char **out, const char *file, const char *path, struct fs_err *err)
{
    const cJSON *v = member(obj, key);
    if (!v)
        return required ? fs_fail(err, FS_EDATA, "%s: %s: missing key \"%s\"", file, path, key) : 0;
    if (!cJSON_IsString(v) || !v->valuestring[0])
        return fs_fail(err, FS_EDATA, "%s: %s.%s: expected a non-empty string", file, path, key);
    *out = v->valuestring;
    return 0;
}

int json_child(const cJSON *obj, const char *key, bool required, int type,
               const cJSON **out, const char *file, const char *path, struct fs_err *err)
{
    const cJSON *v = member(obj, key);
    if (!v)
        return required ? fs_fail(err, FS_EDATA, "%s: %s: missing key \"%s\"", file, path, key) : 0;
    if ((v->type & 0xff) != type)
        return fs_fail(err, FS_EDATA, "%s: %s.%s: expected an %s", file, path, key,
                       type == cJSON_Array ? "array" : "object");
    *out = v;
    return 0;
}

int json_sourced(const cJSON *obj, const char *key, bool required, double lo, double hi,
                 const cJSON *sources, double *out, const char *file, const char *path,
                 struct fs_err *err)
{
    static const char *const keys[] = {"value", "source", "notes", NULL};
    const cJSON *v = NULL;
    const char *src = NULL;
    char sub[256];
    int rc = json_child(obj, key, required, cJSON_Object, &v, file, path, err);
    if (rc || !v)
        return rc;
    snprintf(sub, sizeof sub, "%s.%s", path, key);
    if ((rc = json_check_keys(v, keys, file, sub, err)) ||
        (rc = json_number(v, "value", true, lo, hi, out, file, sub, err)) ||
        (rc = json_string(v, "source", true, &src, file, sub, err)))
        return rc;
    if (!cJSON_GetObjectItemCaseSensitive(sources, src))
        return fs_fail(err, FS_EDATA, "%s: %s.source: unknown source \"%s\"", file, sub, src);
    return 0;
}
