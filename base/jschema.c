/* jschema.c - a validator for a subset of JSON Schema 2020-12 (jschema.h). */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base.h"
#include "jschema.h"

struct ctx {
    const cJSON *root;
    const char *file;
    FILE *out;
    int max, n;       /* violations allowed to print, found */
    bool quiet;       /* inside oneOf: count, print nothing */
    bool broken;      /* the schema is outside the subset */
};

__attribute__((format(printf, 3, 4))) static void violation(struct ctx *c, const char *path, const char *fmt, ...)
{
    c->n++;
    if (c->quiet || c->n > c->max)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(c->out, "%s: %s: ", c->file, path);
    vfprintf(c->out, fmt, ap);
    fputc('\n', c->out);
    va_end(ap);
}

static void schema_error(struct ctx *c, const char *what, const char *name)
{
    if (!c->broken)
        fprintf(c->out, "schema: %s \"%s\"\n", what, name);
    c->broken = true;
}

static const char *type_of(const cJSON *v)
{
    if (cJSON_IsObject(v))
        return "object";
    if (cJSON_IsArray(v))
        return "array";
    if (cJSON_IsString(v))
        return "string";
    if (cJSON_IsBool(v))
        return "boolean";
    if (cJSON_IsNull(v))
        return "null";
    return "number";
}

static bool type_is(const cJSON *v, const char *t)
{
    if (strcmp(t, "integer") == 0)
        return cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) && isfinite(v->valuedouble);
    return strcmp(t, type_of(v)) == 0;
}

static bool json_equal(const cJSON *a, const cJSON *b) { return cJSON_Compare(a, b, true); }

static void check(struct ctx *c, const cJSON *s, const cJSON *v, const char *path);

/* "unknown key "K"; did you mean "KEY"?" from the keys props allows. */
static void unknown_key(struct ctx *c, const cJSON *props, const char *key, const char *path)
{
    const char *names[128];
    size_t n = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, props) if (n < sizeof names / sizeof *names) names[n++] = p->string;
    const char *hint = fs_suggest(key, names, n);
    violation(c, path, "unknown key \"%s\"%s%s%s", key, hint ? "; did you mean \"" : "", hint ? hint : "",
              hint ? "\"?" : "");
}

static void check_object(struct ctx *c, const cJSON *s, const cJSON *v, const char *path)
{
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(s, "properties");
    const cJSON *extra = cJSON_GetObjectItemCaseSensitive(s, "additionalProperties");
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(s, "required"), *k;
    char sub[512];
    cJSON_ArrayForEach(k, req)
        if (cJSON_IsString(k) && !cJSON_HasObjectItem(v, k->valuestring))
            violation(c, path, "missing key \"%s\"", k->valuestring);
    int n = 0;
    cJSON_ArrayForEach(k, v) {
        n++;
        snprintf(sub, sizeof sub, "%s.%s", path, k->string);
        const cJSON *ps = cJSON_GetObjectItemCaseSensitive(props, k->string);
        if (ps)
            check(c, ps, k, sub);
        else if (cJSON_IsFalse(extra))
            unknown_key(c, props, k->string, path);
        else if (cJSON_IsObject(extra))
            check(c, extra, k, sub);
    }
    const cJSON *lo = cJSON_GetObjectItemCaseSensitive(s, "minProperties");
    const cJSON *hi = cJSON_GetObjectItemCaseSensitive(s, "maxProperties");
    if (lo && n < lo->valuedouble)
        violation(c, path, "%d keys, fewer than the minimum %g", n, lo->valuedouble);
    if (hi && n > hi->valuedouble)
        violation(c, path, "%d keys, more than the maximum %g", n, hi->valuedouble);
}

static void check_array(struct ctx *c, const cJSON *s, const cJSON *v, const char *path)
{
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(s, "items");
    const cJSON *lo = cJSON_GetObjectItemCaseSensitive(s, "minItems"), *e;
    char sub[512];
    int i = 0;
    cJSON_ArrayForEach(e, v) {
        snprintf(sub, sizeof sub, "%s[%d]", path, i++);
        if (items)
            check(c, items, e, sub);
    }
    if (lo && i < lo->valuedouble)
        violation(c, path, "%d items, fewer than the minimum %g", i, lo->valuedouble);
}

static void check_number(struct ctx *c, const cJSON *s, const cJSON *v, const char *path)
{
    static const struct {
        const char *key, *what;
        int sign; /* the violation: x < bound (-1) or x > bound (+1); +-2: or equal */
    } bounds[] = {{"minimum", "less than the minimum", -1},
                  {"maximum", "greater than the maximum", +1},
                  {"exclusiveMinimum", "not greater than the exclusive minimum", -2},
                  {"exclusiveMaximum", "not less than the exclusive maximum", +2}};
    double x = v->valuedouble;
    for (size_t i = 0; i < sizeof bounds / sizeof *bounds; i++) {
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(s, bounds[i].key);
        double y = b ? b->valuedouble : 0;
        int sg = bounds[i].sign;
        if (b && (sg == -1 ? x < y : sg == +1 ? x > y : sg == -2 ? x <= y : x >= y))
            violation(c, path, "%.17g is %s %g", x, bounds[i].what, y);
    }
}

static void check(struct ctx *c, const cJSON *s, const cJSON *v, const char *path)
{
    static const char *const known[] = {"$schema", "$id", "title", "description", "$defs", "$ref", "type",
                                        "enum", "properties", "required", "additionalProperties",
                                        "minProperties", "maxProperties", "items", "minItems", "minLength",
                                        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "oneOf",
                                        NULL};
    const cJSON *k;
    cJSON_ArrayForEach(k, s) {
        size_t i = 0;
        while (known[i] && strcmp(known[i], k->string) != 0)
            i++;
        if (!known[i])
            return schema_error(c, "keyword outside the subset fleetsim checks:", k->string);
    }
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(s, "$ref");
    if (ref) {
        const char *r = cJSON_GetStringValue(ref);
        const cJSON *to = r && strncmp(r, "#/$defs/", 8) == 0
                              ? cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(c->root, "$defs"),
                                                                 r + 8)
                              : NULL;
        if (!to)
            return schema_error(c, "$ref that does not resolve:", r ? r : "?");
        check(c, to, v, path);
    }
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(s, "type");
    if (cJSON_IsString(type) && !type_is(v, type->valuestring))
        return violation(c, path, "expected %s %s, got %s", strchr("aeiou", type->valuestring[0]) ? "an" : "a",
                         type->valuestring, type_of(v));
    const cJSON *en = cJSON_GetObjectItemCaseSensitive(s, "enum"), *e;
    if (en) {
        bool found = false;
        cJSON_ArrayForEach(e, en) found |= json_equal(e, v);
        if (!found) {
            char list[512] = "";
            cJSON_ArrayForEach(e, en) {
                char *t = cJSON_PrintUnformatted(e);
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? ", " : "", t);
                cJSON_free(t);
            }
            violation(c, path, "not one of %s", list);
        }
    }
    const cJSON *one = cJSON_GetObjectItemCaseSensitive(s, "oneOf");
    if (one) {
        int matched = 0;
        cJSON_ArrayForEach(e, one) {
            struct ctx q = *c;
            q.quiet = true;
            q.n = 0;
            check(&q, e, v, path);
            c->broken |= q.broken;
            matched += q.n == 0;
        }
        if (matched != 1)
            violation(c, path, "matches %d of the %d alternatives (oneOf), not exactly one", matched,
                      cJSON_GetArraySize(one));
    }
    if (cJSON_IsObject(v))
        check_object(c, s, v, path);
    else if (cJSON_IsArray(v))
        check_array(c, s, v, path);
    else if (cJSON_IsNumber(v))
        check_number(c, s, v, path);
    else if (cJSON_IsString(v)) {
        const cJSON *lo = cJSON_GetObjectItemCaseSensitive(s, "minLength");
        if (lo && (double)strlen(v->valuestring) < lo->valuedouble)
            violation(c, path, "a string shorter than %g characters", lo->valuedouble);
    }
}

int jschema_check(const cJSON *schema, const cJSON *doc, const char *label, FILE *out, int max)
{
    struct ctx c = {.root = schema, .file = label, .out = out, .max = max};
    check(&c, schema, doc, "$");
    return c.broken ? -1 : c.n;
}
