/* cost_load.c - reading models/data/prices.json (format: models/cost.h and
 * the file's own "about"). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/json.h"
#include "cost.h"

struct loader {
    const char *file;
    const cJSON *sources;
    const struct gpu_catalog *cat;
    const struct node_catalog *nodes;
    struct cost_prices *p;
    struct fs_err *err;
};

static const char *const top_keys[] = {
    "about", "sources", "amortization_months", "maintenance_pct_per_year",
    "electricity_usd_per_kwh", "commit_discount_1y", "commit_discount_3y",
    "lease_discount", "server_overhead", "colocation_usd_per_kw_month", "spot_discount", "spot_interrupted_share_month",
    "elastic_provision_s", "elastic_billing_increment_s", "elastic_billing_minimum_s",
    "elastic_scale_down_s", "gpus", "servers", NULL};
static const char *const source_keys[] = {"text", "date", NULL};
static const char *const gpu_keys[] = {"gpu", "purchase_usd", "cloud_provider",
                                       "cloud_usd_per_gpu_hour", "lease_usd_per_gpu_month", NULL};
static const char *const server_keys[] = {"node", "purchase_usd", NULL};

/* "YYYY", "YYYY-MM" or "YYYY-MM-DD" with a plausible year, month and day. */
static bool date_ok(const char *s)
{
    size_t n = strlen(s);
    if (n != 4 && n != 7 && n != 10)
        return false;
    for (size_t i = 0; i < n; i++)
        if (i == 4 || i == 7 ? s[i] != '-' : !isdigit((unsigned char)s[i]))
            return false;
    int year = atoi(s), month = n >= 7 ? atoi(s + 5) : 1, day = n == 10 ? atoi(s + 8) : 1;
    return year >= 1990 && year <= 2100 && month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

/* "sources": {"ID": {"text", "date"}}; an ID starts "ASSUMPTION" exactly
 * when its text starts "assumption:", so assumptions cannot hide. */
static int load_sources(struct loader *L)
{
    struct cost_prices *p = L->p;
    int n = cJSON_GetArraySize(L->sources), rc;
    p->sources = xcalloc((size_t)(n ? n : 1), sizeof *p->sources);
    for (const cJSON *s = L->sources->child; s; s = s->next) {
        char path[160];
        const char *text = NULL, *date = NULL;
        snprintf(path, sizeof path, "$.sources.%s", s->string);
        if (!cJSON_IsObject(s))
            return fs_fail(L->err, FS_EDATA, "%s: %s: expected an object {\"text\", \"date\"}", L->file, path);
        for (int i = 0; i < p->nsources; i++)
            if (strcmp(p->sources[i].id, s->string) == 0)
                return fs_fail(L->err, FS_EDATA, "%s: $.sources: duplicate key \"%s\"", L->file, s->string);
        if ((rc = json_check_keys(s, source_keys, L->file, path, L->err)) ||
            (rc = json_string(s, "text", true, &text, L->file, path, L->err)) ||
            (rc = json_string(s, "date", true, &date, L->file, path, L->err)))
            return rc;
        if (!date_ok(date))
            return fs_fail(L->err, FS_EDATA, "%s: %s.date: \"%s\" is not YYYY, YYYY-MM or YYYY-MM-DD",
                           L->file, path, date);
        bool id = strncmp(s->string, "ASSUMPTION", 10) == 0;
        if (id != (strncmp(text, "assumption:", 11) == 0))
            return fs_fail(L->err, FS_EDATA, "%s: %s: an ID starts \"ASSUMPTION\" exactly when its "
                           "text starts \"assumption:\"", L->file, path);
        struct cost_source *cs = &p->sources[p->nsources++];
        cs->id = xstrdup(s->string);
        cs->text = xstrdup(text);
        snprintf(cs->date, sizeof cs->date, "%s", date);
        cs->assumption = id;
    }
    return 0;
}

/* obj[key] as a sourced number in [lo, hi] (json_sourced), keeping the
 * index of its source.  Absent and optional: out->source is -1. */
static int get(struct loader *L, const cJSON *obj, const char *key, bool required, double lo,
               double hi, struct cost_value *out, const char *path)
{
    *out = (struct cost_value){.value = 0, .source = -1};
    int rc = json_sourced(obj, key, required, lo, hi, L->sources, &out->value, L->file, path, L->err);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (rc || !v)
        return rc;
    const char *id = cJSON_GetObjectItemCaseSensitive(v, "source")->valuestring;
    for (int i = 0; i < L->p->nsources; i++)
        if (strcmp(L->p->sources[i].id, id) == 0)
            out->source = i;
    return 0;
}

static int find_gpu(struct loader *L, const char *name, const char *path, int *out)
{
    if ((*out = gpu_catalog_find(L->cat, name)) >= 0)
        return 0;
    const char *hint = fs_suggest(name, L->cat->names, (size_t)L->cat->n);
    return fs_fail(L->err, FS_EDATA, "%s: %s.gpu: unknown GPU type \"%s\"%s%s%s", L->file, path, name,
                   hint ? "; did you mean \"" : "", hint ? hint : "", hint ? "\"?" : "");
}

static int load_gpu(struct loader *L, const cJSON *item, const char *path)
{
    struct cost_prices *p = L->p;
    struct cost_gpu_price *g = &p->gpus[p->ngpus];
    const char *name = NULL, *provider = NULL;
    int rc;
    if (!cJSON_IsObject(item))
        return fs_fail(L->err, FS_EDATA, "%s: %s: expected an object", L->file, path);
    if ((rc = json_check_keys(item, gpu_keys, L->file, path, L->err)) ||
        (rc = json_string(item, "gpu", true, &name, L->file, path, L->err)) ||
        (rc = find_gpu(L, name, path, &g->gpu)) ||
        (rc = get(L, item, "purchase_usd", true, 1, 1e7, &g->purchase, path)) ||
        (rc = json_string(item, "cloud_provider", false, &provider, L->file, path, L->err)) ||
        (rc = get(L, item, "cloud_usd_per_gpu_hour", false, 1e-3, 1e3, &g->cloud_hour, path)) ||
        (rc = get(L, item, "lease_usd_per_gpu_month", false, 1, 1e6, &g->lease_month, path)))
        return rc;
    if (cost_gpu_price(p, g->gpu))
        return fs_fail(L->err, FS_EDATA, "%s: %s.gpu: \"%s\" is priced twice", L->file, path, name);
    if ((provider != NULL) != (g->cloud_hour.source >= 0))
        return fs_fail(L->err, FS_EDATA, "%s: %s: give \"cloud_provider\" exactly when "
                       "\"cloud_usd_per_gpu_hour\" is given", L->file, path);
    if (provider && strlen(provider) >= sizeof g->provider)
        return fs_fail(L->err, FS_EDATA, "%s: %s.cloud_provider: longer than %zu characters",
                       L->file, path, sizeof g->provider - 1);
    snprintf(g->provider, sizeof g->provider, "%s", provider ? provider : "");
    if (g->lease_month.source < 0 && g->cloud_hour.source >= 0) {
        g->lease_month.value = g->cloud_hour.value * COST_MONTH_HOURS * (1 - p->lease_discount.value);
        g->lease_month.source = p->lease_discount.source;
        g->lease_derived = true;
    }
    p->ngpus++;
    return 0;
}

static int load_server(struct loader *L, const cJSON *item, const char *path)
{
    struct cost_prices *p = L->p;
    struct cost_server_price *s = &p->servers[p->nservers];
    const char *name = NULL;
    int rc;
    if (!cJSON_IsObject(item))
        return fs_fail(L->err, FS_EDATA, "%s: %s: expected an object", L->file, path);
    if ((rc = json_check_keys(item, server_keys, L->file, path, L->err)) ||
        (rc = json_string(item, "node", true, &name, L->file, path, L->err)) ||
        (rc = get(L, item, "purchase_usd", true, 1, 1e8, &s->purchase, path)))
        return rc;
    const struct node_template *nt = node_template_find(L->nodes, name);
    if (!nt) {
        const char *names[NODE_MAX_TEMPLATES];
        for (int i = 0; i < L->nodes->ntemplates; i++)
            names[i] = L->nodes->templates[i].name;
        const char *hint = fs_suggest(name, names, (size_t)L->nodes->ntemplates);
        return fs_fail(L->err, FS_EDATA, "%s: %s.node: unknown node template \"%s\"%s%s%s", L->file, path,
                       name, hint ? "; did you mean \"" : "", hint ? hint : "", hint ? "\"?" : "");
    }
    s->node = (int)(nt - L->nodes->templates);
    for (int i = 0; i < p->nservers; i++)
        if (p->servers[i].node == s->node)
            return fs_fail(L->err, FS_EDATA, "%s: %s.node: \"%s\" is priced twice", L->file, path, name);
    p->nservers++;
    return 0;
}

/* Each element of the array obj[key] through one (gpus or servers). */
static int load_list(struct loader *L, const cJSON *root, const char *key, int max, const int *count,
                     int (*one)(struct loader *, const cJSON *, const char *))
{
    const cJSON *arr = NULL, *item;
    int rc = json_child(root, key, true, cJSON_Array, &arr, L->file, "$", L->err);
    if (rc)
        return rc;
    cJSON_ArrayForEach(item, arr) {
        char path[64];
        snprintf(path, sizeof path, "$.%s[%d]", key, *count);
        if (*count == max)
            return fs_fail(L->err, FS_EDATA, "%s: $.%s: at most %d entries", L->file, key, max);
        if ((rc = one(L, item, path)))
            return rc;
    }
    return 0;
}

/* The elastic and spot terms: times in seconds, up to a day. */
static int load_elastic(struct loader *L, const cJSON *root)
{
    struct cost_elastic_terms *e = &L->p->elastic;
    int rc;
    (void)((rc = get(L, root, "spot_discount", true, 0, 0.99, &e->spot_discount, "$")) ||
           (rc = get(L, root, "spot_interrupted_share_month", true, 0, 0.99, &e->spot_share_month, "$")) ||
           (rc = get(L, root, "elastic_provision_s", true, 0, 86400, &e->provision_s, "$")) ||
           (rc = get(L, root, "elastic_billing_increment_s", true, 1, 86400, &e->increment_s, "$")) ||
           (rc = get(L, root, "elastic_billing_minimum_s", true, 0, 86400, &e->minimum_s, "$")) ||
           (rc = get(L, root, "elastic_scale_down_s", true, 0, 86400, &e->scale_down_s, "$")));
    return rc;
}

static int load_root(struct loader *L, const cJSON *root)
{
    struct cost_prices *p = L->p;
    int rc;
    if ((rc = json_check_keys(root, top_keys, L->file, "$", L->err)) ||
        (rc = json_child(root, "sources", true, cJSON_Object, &L->sources, L->file, "$", L->err)) ||
        (rc = load_sources(L)) ||
        (rc = get(L, root, "amortization_months", true, 1, 600, &p->amortization_months, "$")) ||
        (rc = get(L, root, "maintenance_pct_per_year", true, 0, 100, &p->maintenance_pct_year, "$")) ||
        (rc = get(L, root, "electricity_usd_per_kwh", true, 0, 10, &p->usd_per_kwh, "$")) ||
        (rc = get(L, root, "commit_discount_1y", true, 0, 0.99, &p->commit_1y, "$")) ||
        (rc = get(L, root, "commit_discount_3y", true, 0, 0.99, &p->commit_3y, "$")) ||
        (rc = get(L, root, "lease_discount", true, 0, 0.99, &p->lease_discount, "$")) ||
        (rc = get(L, root, "server_overhead", true, 0, 10, &p->server_overhead, "$")) ||
        (rc = get(L, root, "colocation_usd_per_kw_month", true, 0, 10000, &p->colocation_kw_month, "$")))
        return rc;
    if (p->commit_3y.value < p->commit_1y.value)
        return fs_fail(L->err, FS_EDATA, "%s: $.commit_discount_3y: %g is less than the 1-year "
                       "discount %g", L->file, p->commit_3y.value, p->commit_1y.value);
    if ((rc = load_elastic(L, root)) || (rc = load_list(L, root, "gpus", GPU_MAX_TYPES, &p->ngpus, load_gpu)))
        return rc;
    return load_list(L, root, "servers", NODE_MAX_TEMPLATES, &p->nservers, load_server);
}

int cost_prices_load(const char *path, const struct gpu_catalog *cat,
                     const struct node_catalog *nodes, struct cost_prices **out,
                     struct fs_err *err)
{
    cJSON *root = NULL;
    struct cost_prices *p = xcalloc(1, sizeof *p);
    struct loader L = {.file = path, .cat = cat, .nodes = nodes, .p = p, .err = err};
    int rc = json_load_file(path, &root, err);
    if (!rc)
        rc = load_root(&L, root);
    cJSON_Delete(root);
    if (rc) {
        cost_prices_free(p);
        p = NULL;
    }
    *out = p;
    return rc;
}

void cost_prices_free(struct cost_prices *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->nsources; i++) {
        free(p->sources[i].id);
        free(p->sources[i].text);
    }
    free(p->sources);
    free(p);
}
