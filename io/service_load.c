/* service_load.c - reading a scenario's "services" array and the demand
 * traces it names (service.h; scenarios/README.md documents the keys). */
#include "../models/service.h"

#include "readers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/json.h"
#include "../models/memory.h"
#include "readers_int.h"

#define SVC_SPAN_S 3155760000.0  /* 100 years: times, bins, periods, delays
                                    (as SCEN_MAX_SPAN_S in scenario.c) */
#define SVC_TOKENS_MAX 1e15      /* output tokens in one bin of a trace */
#define SVC_TRACE_HEADER "time_s,prompt_tokens,output_tokens"

/* ---- loading ------------------------------------------------------------ */

struct ctx {
    const char *file, *base_dir;
    const struct gpu_catalog *cat;
    struct fs_err *err;
};

static char *join_path(const char *dir, const char *rel)
{
    if (rel[0] == '/' || !dir || !dir[0])
        return xstrdup(rel);
    size_t n = strlen(dir) + strlen(rel) + 2;
    char *out = xmalloc(n);
    snprintf(out, n, "%s/%s", dir, rel);
    return out;
}

/* A name or team: 1..SERVICE_NAME_MAX-1 printable ASCII characters other
 * than ',' and '"', so it can stand in a CSV field as it is. */
static int copy_name(struct ctx *c, const char *path, const char *key, const char *s, char *out)
{
    size_t len = strlen(s);
    if (len >= SERVICE_NAME_MAX || s[strcspn(s, ",\"")] != '\0')
        return fs_fail(c->err, FS_EDATA, "%s: %s.%s: must be 1-%d characters without ',' or '\"'",
                       c->file, path, key, SERVICE_NAME_MAX - 1);
    for (size_t i = 0; i < len; i++)
        if (s[i] < 0x20 || s[i] > 0x7e)
            return fs_fail(c->err, FS_EDATA, "%s: %s.%s: only printable ASCII characters",
                           c->file, path, key);
    memcpy(out, s, len + 1);
    return 0;
}

/* seconds -> fs_time for a key already checked to lie in [0, SVC_SPAN_S]. */
static fs_time usec(double s)
{
    return fs_from_seconds(s);
}

static void compute_runs(struct service_demand *d)
{
    d->run_end = xmalloc(d->n * sizeof *d->run_end);
    d->run_end[d->n - 1] = (uint32_t)d->n;
    for (size_t i = d->n - 1; i-- > 0;)
        d->run_end[i] = d->rate[i + 1] != d->rate[i] ? (uint32_t)(i + 1) : d->run_end[i + 1];
}

/* One data row of a trace: its time, checked against the bins so far, and
 * its output tokens appended to d->rate (converted to rates later). */
static int trace_row(struct rd_lines *in, char **f, int nf, struct service_demand *d, size_t *cap,
                     struct fs_err *err)
{
    struct rd_row r = {in->path, in->record, err};
    double t, prompt, output;
    int rc;
    if (nf != 3)
        return fs_fail(err, FS_EDATA, "%s:%lld: %d fields; expected 3 (%s)", in->path,
                       in->record, nf, SVC_TRACE_HEADER);
    if ((rc = rd_num(&r, "time_s", f[0], 0, SVC_SPAN_S, &t)) ||
        (rc = rd_num(&r, "prompt_tokens", f[1], 0, SVC_TOKENS_MAX, &prompt)) ||
        (rc = rd_num(&r, "output_tokens", f[2], 0, SVC_TOKENS_MAX, &output)))
        return rc;
    fs_time at = usec(t);
    if (d->n == 0)
        d->start = at;
    else if (d->n == 1 && d->bin == 0 && at <= d->start)
        return rd_fail(&r, "time_s", "%s is not after the first row's time", f[0]);
    else if (d->n == 1 && d->bin == 0)
        d->bin = at - d->start;
    fs_time want = d->start + (fs_time)d->n * d->bin; /* <= 2 x 100 years: no overflow */
    if (d->n > 0 && at != want)
        return rd_fail(&r, "time_s", "%s; expected %.17g: rows are bins of %.17g s from %.17g s, "
                       "equally spaced by a whole number of microseconds", f[0],
                       fs_to_seconds(want), fs_to_seconds(d->bin), fs_to_seconds(d->start));
    xgrow(&d->rate, cap, d->n + 1, sizeof *d->rate);
    d->rate[d->n++] = output;
    return 0;
}

/* Read a demand curve CSV (as `fleetsim import azure-llm` writes it) into
 * d's bins.  d->bin is the width when the spec gives it, else 0. */
static int trace_read(struct service_demand *d, const char *where, struct fs_err *err)
{
    struct rd_lines in;
    char *f[3];
    size_t cap = 0;
    int nf, rc = rd_open(&in, d->trace, err);
    if (rc == 0)
        rc = rd_header(&in, SVC_TRACE_HEADER, err);
    while (rc == 0 && (rc = rd_csv_next(&in, f, 3, &nf, err)) > 0)
        if ((rc = rd_count_row(&in, err)) == 0)
            rc = trace_row(&in, f, nf, d, &cap, err);
    rd_close(&in);
    if (rc < 0)
        return rc;
    if (d->n == 0)
        return fs_fail(err, FS_EDATA, "%s: no data rows", d->trace);
    if (d->bin == 0)
        return fs_fail(err, FS_EDATA, "%s: one row, so the bin width is unknown; give %s.bin_s",
                       d->trace, where);
    double width = fs_to_seconds(d->bin);
    for (size_t i = 0; i < d->n; i++)
        d->rate[i] = d->rate[i] * d->scale / width;
    compute_runs(d);
    return 0;
}

/* An Azure LLM request trace read directly, binned by bin_s seconds from
 * its first request (io/readers.h: azure_read_demand). */
static int azure_read(struct service_demand *d, double bin_s, struct fs_err *err)
{
    struct demand_curve curve = {0};
    int rc = azure_read_demand(d->trace, bin_s, &curve, err);
    if (rc == 0 && curve.n == 0)
        rc = fs_fail(err, FS_EDATA, "%s: no requests", d->trace);
    if (rc == 0) {
        d->bin = usec(curve.bin_s);
        d->n = curve.n;
        d->rate = xmalloc(curve.n * sizeof *d->rate);
        for (size_t i = 0; i < curve.n; i++)
            d->rate[i] = curve.output_tokens[i] * d->scale / curve.bin_s;
        compute_runs(d);
    }
    demand_curve_free(&curve);
    return rc;
}

static int load_diurnal(struct ctx *c, const cJSON *o, const char *path, struct service_demand *d)
{
    static const char *const keys[] = {"mean_tokens_s", "amplitude", "peak_hour", "period_s",
                                       "step_s", NULL};
    double peak_h = 14, period = 86400, step = 300;
    int rc;
    d->kind = SERVICE_DIURNAL;
    if ((rc = json_check_keys(o, keys, c->file, path, c->err)) ||
        (rc = json_number(o, "mean_tokens_s", true, 0, 1e12, &d->mean_tokens_s, c->file, path, c->err)) ||
        (rc = json_number(o, "amplitude", false, 0, 1, &d->amplitude, c->file, path, c->err)) ||
        (rc = json_number(o, "peak_hour", false, 0, 24, &peak_h, c->file, path, c->err)) ||
        (rc = json_number(o, "period_s", false, 1, SVC_SPAN_S, &period, c->file, path, c->err)) ||
        (rc = json_number(o, "step_s", false, 1e-6, SVC_SPAN_S, &step, c->file, path, c->err)))
        return rc;
    d->period = usec(period);
    d->peak = usec(peak_h * 3600) % d->period;
    d->step = usec(step);
    if (peak_h >= 24)
        return fs_fail(c->err, FS_EDATA, "%s: %s.peak_hour: %g must be less than 24", c->file,
                       path, peak_h);
    if (d->step < 1 || d->step > d->period)
        return fs_fail(c->err, FS_EDATA, "%s: %s.step_s: %g s must be at least 1 us and at most "
                       "period_s (%g s)", c->file, path, step, period);
    return 0;
}

static int load_demand(struct ctx *c, const cJSON *o, const char *path, struct service_demand *d)
{
    static const char *const keys[] = {"trace", "format", "scale", "bin_s", "repeat", "diurnal", NULL};
    const char *trace = NULL, *format = "demand";
    const cJSON *di = NULL, *rep = cJSON_GetObjectItemCaseSensitive(o, "repeat");
    double bin_s = 0;
    char p[80];
    int rc;
    d->scale = 1;
    if ((rc = json_check_keys(o, keys, c->file, path, c->err)) ||
        (rc = json_string(o, "trace", false, &trace, c->file, path, c->err)) ||
        (rc = json_string(o, "format", false, &format, c->file, path, c->err)) ||
        (rc = json_child(o, "diurnal", false, cJSON_Object, &di, c->file, path, c->err)))
        return rc;
    if (!trace == !di)
        return fs_fail(c->err, FS_EDATA, "%s: %s: give exactly one of \"trace\" and \"diurnal\"",
                       c->file, path);
    if (di) {
        const char *only = cJSON_GetObjectItemCaseSensitive(o, "scale") ? "scale"
                         : cJSON_GetObjectItemCaseSensitive(o, "bin_s") ? "bin_s"
                         : rep ? "repeat" : NULL;
        if (only)
            return fs_fail(c->err, FS_EDATA, "%s: %s.%s: only with \"trace\"", c->file, path, only);
        snprintf(p, sizeof p, "%s.diurnal", path);
        return load_diurnal(c, di, p, d);
    }
    if (rep && !cJSON_IsBool(rep))
        return fs_fail(c->err, FS_EDATA, "%s: %s.repeat: expected true or false", c->file, path);
    if ((rc = json_number(o, "scale", false, 0, 1e6, &d->scale, c->file, path, c->err)) ||
        (rc = json_number(o, "bin_s", false, 1e-6, SVC_SPAN_S, &bin_s, c->file, path, c->err)))
        return rc;
    d->kind = SERVICE_TRACE;
    d->repeat = rep && cJSON_IsTrue(rep);
    d->bin = usec(bin_s);
    if (bin_s > 0 && d->bin < 1)
        return fs_fail(c->err, FS_EDATA, "%s: %s.bin_s: %g s is less than 1 us", c->file, path, bin_s);
    d->trace = join_path(c->base_dir, trace);
    if (strcmp(format, "azure-llm") == 0)
        return azure_read(d, bin_s > 0 ? bin_s : 60, c->err);
    if (strcmp(format, "demand") != 0)
        return fs_fail(c->err, FS_EDATA, "%s: %s.format: \"%s\" is not one of demand, azure-llm",
                       c->file, path, format);
    return trace_read(d, path, c->err);
}

static int load_autoscaler(struct ctx *c, const cJSON *o, const char *path, struct service_autoscaler *as)
{
    static const char *const keys[] = {"target_util", "min_replicas", "max_replicas", "up_delay_s",
                                       "down_delay_s", "cold_start_s", "tick_s", NULL};
    double up = 0, down = 300, cold = 120, tick = 15;
    int64_t lo = 1, hi = 16;
    int rc;
    as->target_util = 0.7;
    if (o && ((rc = json_check_keys(o, keys, c->file, path, c->err)) ||
              (rc = json_number(o, "target_util", false, 1e-3, 1, &as->target_util, c->file, path, c->err)) ||
              (rc = json_int(o, "min_replicas", false, 0, 10000, &lo, c->file, path, c->err)) ||
              (rc = json_int(o, "max_replicas", false, 1, 10000, &hi, c->file, path, c->err)) ||
              (rc = json_number(o, "up_delay_s", false, 0, SVC_SPAN_S, &up, c->file, path, c->err)) ||
              (rc = json_number(o, "down_delay_s", false, 0, SVC_SPAN_S, &down, c->file, path, c->err)) ||
              (rc = json_number(o, "cold_start_s", false, 0, SVC_SPAN_S, &cold, c->file, path, c->err)) ||
              (rc = json_number(o, "tick_s", false, 1e-3, 86400, &tick, c->file, path, c->err))))
        return rc;
    if (hi < lo)
        return fs_fail(c->err, FS_EDATA, "%s: %s.max_replicas: %lld is less than min_replicas (%lld)",
                       c->file, path, (long long)hi, (long long)lo);
    as->min_replicas = (int)lo;
    as->max_replicas = (int)hi;
    as->up_delay = usec(up);
    as->down_delay = usec(down);
    as->cold_start = usec(cold);
    as->tick = usec(tick);
    return 0;
}

static int load_allowed(struct ctx *c, const cJSON *arr, const char *path, uint64_t *mask)
{
    int i = 0;
    if (cJSON_GetArraySize(arr) == 0)
        return fs_fail(c->err, FS_EDATA, "%s: %s: empty; leave the key out to allow any type",
                       c->file, path);
    for (const cJSON *e = arr->child; e; e = e->next, i++) {
        int t = cJSON_IsString(e) ? gpu_catalog_find(c->cat, e->valuestring) : -1;
        if (!cJSON_IsString(e))
            return fs_fail(c->err, FS_EDATA, "%s: %s[%d]: expected a GPU type name", c->file, path, i);
        if (t < 0) {
            const char *hint = fs_suggest(e->valuestring, c->cat->names, (size_t)c->cat->n);
            return fs_fail(c->err, FS_EDATA, "%s: %s[%d]: unknown GPU type \"%s\"%s%s%s", c->file,
                           path, i, e->valuestring, hint ? "; did you mean \"" : "",
                           hint ? hint : "", hint ? "\"?" : "");
        }
        if (*mask & (UINT64_C(1) << t))
            return fs_fail(c->err, FS_EDATA, "%s: %s[%d]: \"%s\" given twice", c->file, path, i,
                           e->valuestring);
        *mask |= UINT64_C(1) << t;
    }
    return 0;
}

/* The optional small objects: priority, allowed_types, request, slo. */
static int load_options(struct ctx *c, const cJSON *o, const char *path, struct service_spec *sp)
{
    static const char *const req_keys[] = {"prompt_tokens", "output_tokens", NULL};
    static const char *const slo_keys[] = {"latency_s", "tpot_s", "ttft_s", "ttft_percentile", NULL};
    const char *prio = NULL;
    const cJSON *allowed = NULL, *req = NULL, *slo = NULL;
    char p[80];
    int rc;
    if ((rc = json_string(o, "priority", false, &prio, c->file, path, c->err)) ||
        (rc = json_child(o, "allowed_types", false, cJSON_Array, &allowed, c->file, path, c->err)) ||
        (rc = json_child(o, "request", false, cJSON_Object, &req, c->file, path, c->err)) ||
        (rc = json_child(o, "slo", false, cJSON_Object, &slo, c->file, path, c->err)))
        return rc;
    if (prio && strcmp(prio, "latency") != 0 && strcmp(prio, "standard") != 0)
        return fs_fail(c->err, FS_EDATA, "%s: %s.priority: \"%s\"; expected \"latency\" or "
                       "\"standard\"", c->file, path, prio);
    sp->priority = prio && strcmp(prio, "standard") == 0 ? SERVICE_STANDARD : SERVICE_LATENCY;
    snprintf(p, sizeof p, "%s.allowed_types", path);
    if (allowed && (rc = load_allowed(c, allowed, p, &sp->allowed)))
        return rc;
    snprintf(p, sizeof p, "%s.request", path);
    if (req && ((rc = json_check_keys(req, req_keys, c->file, p, c->err)) ||
                (rc = json_number(req, "prompt_tokens", false, 0, 1e7, &sp->prompt_tokens, c->file, p, c->err)) ||
                (rc = json_number(req, "output_tokens", false, 1, 1e7, &sp->output_tokens, c->file, p, c->err))))
        return rc;
    snprintf(p, sizeof p, "%s.slo", path);
    if (slo && ((rc = json_check_keys(slo, slo_keys, c->file, p, c->err)) ||
                (rc = json_number(slo, "latency_s", false, 1e-6, 1e6, &sp->slo_latency_s, c->file, p, c->err)) ||
                (rc = json_number(slo, "tpot_s", false, 0, 1e6, &sp->tpot_target_s, c->file, p, c->err)) ||
                (rc = json_number(slo, "ttft_s", false, 0, 1e6, &sp->ttft_target_s, c->file, p, c->err)) ||
                (rc = json_number(slo, "ttft_percentile", false, 1, 99.99, &sp->ttft_percentile, c->file, p,
                                  c->err))))
        return rc;
    return 0;
}

static int load_one(struct ctx *c, const cJSON *o, const char *path, struct service_spec *sp)
{
    static const char *const keys[] = {"name", "team", "model_params_b", "priority", "allowed_types",
                                       "request", "demand", "autoscaler", "slo", NULL};
    const char *name = NULL, *team = NULL;
    const cJSON *demand = NULL, *as = NULL;
    double params_b = 0;
    char p[64];
    int rc;
    if (!cJSON_IsObject(o))
        return fs_fail(c->err, FS_EDATA, "%s: %s: expected an object", c->file, path);
    sp->prompt_tokens = SERVICE_PROMPT_TOKENS;
    sp->output_tokens = SERVICE_OUTPUT_TOKENS;
    sp->tpot_target_s = -1; /* by priority when the spec gives none */
    sp->ttft_target_s = -1;
    sp->ttft_percentile = SERVICE_TTFT_PERCENTILE;
    if ((rc = json_check_keys(o, keys, c->file, path, c->err)) ||
        (rc = json_string(o, "name", true, &name, c->file, path, c->err)) ||
        (rc = copy_name(c, path, "name", name, sp->name)) ||
        (rc = json_string(o, "team", false, &team, c->file, path, c->err)) ||
        (rc = copy_name(c, path, "team", team ? team : name, sp->team)) ||
        (rc = json_number(o, "model_params_b", true, 1e-3, 1e5, &params_b, c->file, path, c->err)) ||
        (rc = load_options(c, o, path, sp)) ||
        (rc = json_child(o, "demand", true, cJSON_Object, &demand, c->file, path, c->err)) ||
        (rc = json_child(o, "autoscaler", false, cJSON_Object, &as, c->file, path, c->err)))
        return rc;
    sp->params = params_b * 1e9;
    if (sp->tpot_target_s < 0)
        sp->tpot_target_s = sp->priority == SERVICE_LATENCY ? SERVICE_TPOT_LATENCY_S : SERVICE_TPOT_STANDARD_S;
    if (sp->ttft_target_s < 0)
        sp->ttft_target_s = sp->priority == SERVICE_LATENCY ? SERVICE_TTFT_LATENCY_S : SERVICE_TTFT_STANDARD_S;
    snprintf(p, sizeof p, "%s.autoscaler", path);
    if ((rc = load_autoscaler(c, as, p, &sp->as)))
        return rc;
    snprintf(p, sizeof p, "%s.demand", path);
    return load_demand(c, demand, p, &sp->demand);
}

int service_specs_load(const cJSON *arr, const char *file, const struct gpu_catalog *cat,
                       const char *base_dir, struct service_spec **out, int *n, struct fs_err *err)
{
    struct ctx c = {file, base_dir, cat, err};
    *out = NULL;
    *n = 0;
    if (!arr)
        return 0;
    if (!cJSON_IsArray(arr))
        return fs_fail(err, FS_EDATA, "%s: $.services: expected an array", file);
    int count = cJSON_GetArraySize(arr), i = 0, rc = 0;
    if (count > SERVICE_MAX)
        return fs_fail(err, FS_EDATA, "%s: $.services: %d services; at most %d", file, count,
                       SERVICE_MAX);
    struct service_spec *specs = xcalloc((size_t)(count > 0 ? count : 1), sizeof *specs);
    for (const cJSON *e = arr->child; e && rc == 0; e = e->next, i++) {
        char path[48];
        snprintf(path, sizeof path, "$.services[%d]", i);
        rc = load_one(&c, e, path, &specs[i]);
        for (int j = 0; rc == 0 && j < i; j++)
            if (strcmp(specs[j].name, specs[i].name) == 0)
                rc = fs_fail(err, FS_EDATA, "%s: %s.name: \"%s\" is also $.services[%d]'s name",
                             file, path, specs[i].name, j);
    }
    if (rc || count == 0) {
        service_specs_free(specs, count);
        return rc;
    }
    *out = specs;
    *n = count;
    return 0;
}

void service_specs_free(struct service_spec *specs, int n)
{
    if (!specs)
        return;
    for (int i = 0; i < n; i++) {
        free(specs[i].demand.trace);
        free(specs[i].demand.rate);
        free(specs[i].demand.run_end);
    }
    free(specs);
}

/* ---- demand ------------------------------------------------------------- */

