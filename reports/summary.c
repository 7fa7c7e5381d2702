/* summary.c - summary.json, jobs.csv and the human summary. */
#include "summary.h"

#include <cjson/cJSON.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/observe.h"
#include "../base/signals.h"
#include "../base/csv.h"
#include "../base/version.h"
#include "../models/llm.h"
#include "metric.h"

static void count_states(const struct sim *s, struct run_stats *st)
{
    for (size_t i = 0; i < s->sc->nbatch; i++) {
        switch (s->jobs[i].state) {
        case JOB_FUTURE: st->future++; break;
        case JOB_QUEUED: st->queued++; break;
        case JOB_RUNNING: st->running++; break;
        case JOB_DONE: st->completed++; break;
        }
        st->timed_out += s->jobs[i].timed_out;
        st->limits |= s->jobs[i].kill_at_limit && s->jobs[i].limit > 0;
    }
    st->submitted = s->sc->nbatch - st->future;
}

/* Mean and quantiles of x[0..n) (sorted in place); all 0 when n == 0. */
static void describe(double *x, size_t n, double *mean, double *p50, double *p95,
                     double *p99, double *max)
{
    if (!n) {
        *mean = *p50 = *p95 = *max = 0;
        if (p99)
            *p99 = 0;
        return;
    }
    fs_sort(x, n);
    *mean = gsl_stats_mean(x, 1, n);
    *p50 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.50);
    *p95 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.95);
    if (p99)
        *p99 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.99);
    *max = x[n - 1];
}

size_t summary_waits(const struct sim *s, double *w)
{
    size_t n = 0;
    for (size_t i = 0; i < s->sc->nbatch; i++) {
        const struct job *j = &s->jobs[i];
        if (j->state != JOB_FUTURE)
            w[n++] = fs_to_seconds((j->start >= 0 ? j->start : s->end) - j->submit);
    }
    return n;
}

void run_stats_compute(const struct sim *s, const struct metrics *m, struct run_stats *st)
{
    *st = (struct run_stats){0};
    count_states(s, st);
    /* One buffer: the waits, then the completion times. */
    double *x = xmalloc((s->sc->nbatch + 1) * sizeof *x);
    st->nwait = summary_waits(s, x);
    describe(x, st->nwait, &st->wait_mean, &st->wait_p50, &st->wait_p95, &st->wait_p99, &st->wait_max);
    fs_time last_end = 0;
    for (size_t i = 0; i < s->sc->nbatch; i++) {
        const struct job *j = &s->jobs[i];
        if (j->state != JOB_FUTURE && j->start < 0)
            st->not_started++;
        if (j->state == JOB_DONE) {
            x[st->njct++] = fs_to_seconds(j->end - j->submit);
            if (j->end > last_end)
                last_end = j->end;
        }
    }
    describe(x, st->njct, &st->jct_mean, &st->jct_p50, &st->jct_p95, NULL, &st->jct_max);
    free(x);

    metrics_wide alloc_us = 0;
    int64_t cap = 0;
    for (int t = 0; t < s->sc->cat->n; t++) {
        alloc_us += m->alloc_us[t];
        cap += m->capacity[t];
    }
    st->makespan_s = fs_to_seconds(last_end);
    st->window_s = fs_to_seconds(s->end);
    st->alloc_gpu_h = (double)alloc_us / GPU_MILLI / 3.6e9;
    st->utilization = s->end > 0 ? (double)alloc_us / ((double)cap * GPU_MILLI * (double)s->end) : 0;
    struct elastic_figures el;
    if (sim_elastic(s, &el)) { /* of the GPU time held, not of the whole pool's */
        double held = 0;
        for (int t = 0; t < GPU_MAX_TYPES; t++)
            held += el.held_gpu_s[t];
        st->utilization = held > 0 ? st->alloc_gpu_h * 3600 / held : 0;
    }
    st->queue_mean = s->end > 0 ? (double)m->queue_us / (double)s->end : 0;
    st->evictions = s->evictions;
    st->migrations = s->migrations;
    st->lost_gpu_h = s->lost_gpu_s / 3600;
    st->slo_attainment = svc_attainment(s);
    st->latency_attainment = svc_latency_attainment(s);
    st->services = s->sc->nservices;
    for (int k = 0; k < s->sc->nservices; k++) {
        struct svc_figures v;
        sim_service(s, k, &v);
        st->svc_down_s += v.down_s;
    }
    st->energy_kwh = m->en.wall_j * s->sc->pue / 3.6e6;
    st->psu_peak = m->en.fleet.peak;
}

static cJSON *add_obj(cJSON *parent, const char *key)
{
    return cJSON_AddObjectToObject(parent, key);
}

static void add_num(cJSON *o, const char *key, double v)
{
    cJSON_AddNumberToObject(o, key, v);
}

static void add_by_type(cJSON *parent, const char *key, const struct sim *s,
                        const struct metrics *m, bool utilization)
{
    cJSON *o = add_obj(parent, key);
    for (int t = 0; t < s->sc->cat->n; t++) {
        if (!m->capacity[t])
            continue;
        double v = utilization ? metrics_utilization(m, t, s->end) : (double)m->capacity[t];
        add_num(o, s->sc->cat->types[t].name, v);
    }
}

static void add_psu_node(cJSON *arr, const struct sim *s, const struct energy *e, int32_t n)
{
    const struct psu_stat *p = &e->psu[n];
    cJSON *o = cJSON_CreateObject();
    add_num(o, "node", n);
    cJSON_AddStringToObject(o, "template", s->node_power[n]->node->name);
    add_num(o, "peak_load", p->peak);
    add_num(o, "p99_load", energy_psu_p99(e, n));
    add_num(o, "seconds_above_80pct", fs_to_seconds(p->above80_us));
    add_num(o, "seconds_above_100pct", fs_to_seconds(p->above100_us));
    add_num(o, "overload_events", p->overloads);
    cJSON_AddItemToArray(arr, o);
}

/* A replica's operating point on each type of the fleet that can hold one
 * (service_replica): what the latency objective is evaluated with. */
static void add_replicas(cJSON *o, const struct sim *s, const struct svc_figures *v)
{
    cJSON *by = add_obj(o, "replica_by_type");
    for (int t = 0; t < s->sc->cat->n; t++) {
        const struct llm_operating *op = &v->op[t];
        if (!(op->tokens_s > 0) || !s->cl->types[t].max_gpus)
            continue;
        cJSON *x = add_obj(by, s->sc->cat->types[t].name);
        add_num(x, "gpus", v->gpus);
        add_num(x, "batch", op->batch);
        add_num(x, "tokens_s", op->tokens_s);
        add_num(x, "ttft_s", op->ttft_s);
        add_num(x, "tpot_s", op->tpot_s);
    }
}

/* Per service: demand, attainment, latency, downtime, replicas. */
static void add_services(cJSON *root, const struct sim *s)
{
    cJSON *arr = cJSON_AddArrayToObject(root, "services");
    for (int k = 0; k < s->sc->nservices; k++) {
        struct svc_figures r;
        sim_service(s, k, &r);
        const struct service_spec *sp = &s->sc->services[k];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToArray(arr, o);
        cJSON_AddStringToObject(o, "name", sp->name);
        add_num(o, "demand_tokens", r.demand_tokens);
        add_num(o, "served_tokens", r.served_tokens);
        add_num(o, "attainment", r.attainment);
        add_num(o, "mean_latency_s", r.mean_latency_s);
        cJSON *slo = add_obj(o, "slo");
        add_num(slo, "ttft_s", sp->ttft_target_s);
        add_num(slo, "ttft_percentile", sp->ttft_percentile);
        add_num(slo, "tpot_s", sp->tpot_target_s);
        add_num(slo, "latency_s", sp->slo_latency_s);
        add_num(o, "latency_attainment", r.latency_attainment);
        add_num(o, "demand_s", r.demand_s);
        add_num(o, "latency_met_s", r.met_s);
        add_num(o, "tokens_within_slo", r.within_tokens);
        add_replicas(o, s, &r);
        add_num(o, "short_s", r.short_s);
        add_num(o, "downtime_s", r.down_s);
        add_num(o, "replicas_mean", r.replicas_mean);
        add_num(o, "replicas_max", r.max_running);
        add_num(o, "scale_ups", (double)r.scale_ups);
        add_num(o, "scale_downs", (double)r.scale_downs);
    }
}

/* Failures, what they interrupted and cost, and the repairs. */
static void add_faults(cJSON *root, const struct sim *s, const struct fault_figures *f,
                       const struct run_stats *st)
{
    cJSON *o = add_obj(root, "faults");
    double node_days = s->cl->nnodes * fs_to_seconds(s->end) / 86400;
    add_num(o, "failures", (double)f->failures);
    add_num(o, "interruptions", (double)f->interruptions);
    add_num(o, "interruptions_per_1000_node_days", node_days > 0 ? 1000 * (double)f->interruptions / node_days : 0);
    add_num(o, "repairs", (double)f->repairs);
    add_num(o, "power_supply_failures", (double)f->psu_failures);
    add_num(o, "maintenance_windows", (double)f->windows);
    add_num(o, "maintenance_moves", (double)f->planned);
    add_num(o, "mttr_h", f->failures ? f->repair_h / (double)f->failures : 0);
    add_num(o, "lost_gpu_hours", st->lost_gpu_h);
    add_num(o, "goodput", st->alloc_gpu_h > 0 ? 1 - st->lost_gpu_h / st->alloc_gpu_h : 1);
    cJSON *by = add_obj(o, "by_cause");
    for (int c = 0; c < s->sc->faults->n; c++)
        add_num(by, s->sc->faults->causes[c].name, (double)f->by_cause[c]);
}

static void add_energy(cJSON *root, const struct sim *s, const struct energy *e, const struct run_stats *st)
{
    cJSON *en = add_obj(root, "energy_kwh");
    add_num(en, "gpu", e->gpu_j / 3.6e6);
    add_num(en, "node_dc", e->dc_j / 3.6e6);
    add_num(en, "wall", e->wall_j / 3.6e6);
    add_num(en, "facility", st->energy_kwh);
    add_num(en, "pue", s->sc->pue);

    cJSON *psu = add_obj(root, "psu");
    cJSON *nodes = cJSON_CreateArray();
    for (int32_t n = 0; n < e->nnodes; n++)
        add_psu_node(nodes, s, e, n);
    add_num(psu, "peak_load", e->fleet.peak);
    add_num(psu, "p99_load_max", e->fleet.p99);
    add_num(psu, "node_seconds_above_80pct", e->fleet.above80_s);
    add_num(psu, "node_seconds_above_100pct", e->fleet.above100_s);
    add_num(psu, "overload_events", (double)e->fleet.overloads);
    cJSON_AddItemToObject(psu, "nodes", nodes);
}

static cJSON *build_json(const struct sim *s, const struct metrics *m, const struct run_stats *st)
{
    const struct scenario *sc = s->sc;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "scenario", sc->name);
    cJSON_AddStringToObject(root, "policy", sc->policy->name);
    if (sc->own_policy) { /* every parameter's value the run used */
        cJSON *params = add_obj(root, "policy_params");
        for (int k = 0; sc->policy->params && sc->policy->params[k].name; k++) {
            const struct sched_param *d = &sc->policy->params[k];
            if (d->flag)
                cJSON_AddBoolToObject(params, d->name, sc->policy->param[k] != 0);
            else
                add_num(params, d->name, sc->policy->param[k]);
        }
    }
    add_num(root, "seed", (double)sc->seed);
    add_num(root, "window_s", st->window_s);

    cJSON *fleet = add_obj(root, "fleet");
    add_num(fleet, "gpus", (double)s->cl->gpus);
    add_num(fleet, "nodes", s->cl->nnodes);
    add_by_type(fleet, "gpus_by_type", s, m, false);

    cJSON *jobs = add_obj(root, "jobs");
    add_num(jobs, "total", (double)s->sc->nbatch);
    add_num(jobs, "submitted", (double)st->submitted);
    add_num(jobs, "completed", (double)st->completed);
    if (st->limits) /* only where the trace gives hard limits */
        add_num(jobs, "timed_out", (double)st->timed_out);
    add_num(jobs, "queued", (double)st->queued);
    add_num(jobs, "running", (double)st->running);
    add_num(jobs, "not_submitted", (double)st->future);

    cJSON *util = add_obj(root, "utilization");
    add_num(util, "allocated", st->utilization);
    add_by_type(util, "allocated_by_type", s, m, true);
    add_num(util, "allocated_gpu_hours", st->alloc_gpu_h);

    cJSON *wait = add_obj(root, "wait_s");
    add_num(wait, "jobs", (double)st->nwait);
    add_num(wait, "mean", st->wait_mean);
    add_num(wait, "p50", st->wait_p50);
    add_num(wait, "p95", st->wait_p95);
    add_num(wait, "p99", st->wait_p99);
    add_num(wait, "max", st->wait_max);

    cJSON *jct = add_obj(root, "jct_s");
    add_num(jct, "jobs", (double)st->njct);
    add_num(jct, "mean", st->jct_mean);
    add_num(jct, "p50", st->jct_p50);
    add_num(jct, "p95", st->jct_p95);
    add_num(jct, "max", st->jct_max);

    add_num(root, "makespan_s", st->makespan_s);
    cJSON *q = add_obj(root, "queue_length");
    add_num(q, "mean", st->queue_mean);
    add_num(q, "max", (double)m->queue_max);
    add_energy(root, s, &m->en, st);
    cJSON *pre = add_obj(root, "preemption");
    add_num(pre, "evictions", (double)st->evictions);
    add_num(pre, "migrations", (double)st->migrations);
    add_num(pre, "lost_gpu_hours", st->lost_gpu_h);
    if (s->sc->nservices)
        add_services(root, s);
    struct fault_figures f;
    if (sim_faults(s, &f))
        add_faults(root, s, &f, st);
    add_num(root, "events", (double)s->events);
    return root;
}

int summary_write_json(FILE *f, const struct run_result *r)
{
    cJSON *root = build_json(r->s, r->m, &r->st);
    cJSON *mt = add_obj(root, "metrics");
    double v[METRIC_MAX];
    metric_values(r, v);
    for (int k = 0; k < metric_count; k++)
        cJSON_AddItemToObject(mt, metric_table[k].name, isfinite(v[k]) ? cJSON_CreateNumber(v[k]) : cJSON_CreateNull());
    cJSON_AddItemToObject(root, "meta", version_json());
    char *text = cJSON_Print(root);
    int bad = fputs(text, f) < 0 || fputc('\n', f) == EOF;
    cJSON_free(text);
    cJSON_Delete(root);
    return bad ? FS_ECANTCREAT : 0;
}

static const char *const state_names[] = {"not_submitted", "queued", "running", "completed"};

/* names[0..n) as csv_put writes them, and the longest one's length. */
static char **csv_fields(char *const *names, size_t n, size_t *longest)
{
    char **out = xcalloc(n + 1, sizeof *out);
    for (size_t i = 0; i < n; i++) {
        out[i] = csv_field(names[i]);
        size_t len = strlen(out[i]);
        if (len > *longest)
            *longest = len;
    }
    return out;
}

static void free_fields(char **f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(f[i]);
    free(f);
}

/* ",v" without printf. */
static char *put_int(char *p, long long v)
{
    *p++ = ',';
    return p + fs_int_str(p, v);
}

/* ",t" in seconds with six decimals, or "," for t < 0. */
static char *put_time(char *p, fs_time t)
{
    *p++ = ',';
    return t >= 0 ? p + fs_seconds_str(p, t) : p;
}

void summary_write_jobs(FILE *f, const struct sim *s)
{
    /* The batch jobs; service replicas are summarized per service. */
    const struct scenario *sc = s->sc;
    size_t n = sc->nbatch, longest = 0;
    fprintf(f, "id,kind,team,gpus,gpu_type,nodes,first_node,submit_s,start_s,end_s,"
               "wait_s,run_s,jct_s,state,model,precision,gpu_mem_gb\n");
    /* The names as fields once (a million rows repeat a few), and each row
     * built in one buffer: printf and per-field stdio calls were a sixth
     * of a million-job run. */
    char *types[GPU_MAX_TYPES];
    for (int t = 0; t < sc->cat->n; t++)
        types[t] = (char *)sc->cat->types[t].name;
    char **team = csv_fields(sc->wl.teams, sc->wl.nteams, &longest);
    char **type = csv_fields(types, (size_t)sc->cat->n, &longest);
    char **model = csv_fields(sc->wl.models, sc->wl.nmodels, &longest);
    char *line = xmalloc(512 + 3 * longest); /* three names, the rest < 400 */
    for (size_t i = 0; i < n && !fs_poll(i); i++) { /* a signal: the caller keeps nothing */
        const struct job *j = &s->jobs[i];
        char *p = line + fs_int_str(line, j->id);
        *p++ = ',';
        p = fs_put(p, job_kind_name(j->kind));
        *p++ = ',';
        p = fs_put(p, team[j->team]);
        p = put_int(p, j->gpus);
        *p++ = ',';
        if (j->type >= 0) {
            p = fs_put(p, type[j->type]);
            p = put_int(p, j->nnodes);
            p = put_int(p, j->node);
        } else {
            p = fs_put(p, ",,");
        }
        p = put_time(p, j->submit);
        p = put_time(p, j->start);
        p = put_time(p, j->end);
        p = put_time(p, j->start >= 0 ? j->start - j->submit : -1);
        p = put_time(p, j->end >= 0 ? job_ran(j, j->end) : -1); /* all segments */
        p = put_time(p, j->end >= 0 ? j->end - j->submit : -1);
        *p++ = ',';
        p = fs_put(p, j->timed_out ? "timed_out" : state_names[j->state]);
        *p++ = ',';
        const struct job_spec *sp = workload_spec(&sc->wl, j);
        p = fs_put(p, sp && sp->model ? model[sp->model - 1] : "");
        *p++ = ',';
        p = fs_put(p, sp ? llm_precision_names[sp->precision ? sp->precision - 1 : LLM_BF16] : "");
        double gb = j->gpu_mem_gb;
        if (gb >= 0 && gb < 1e6 && gb == floor(gb) && !signbit(gb)) /* what %.6g prints of it */
            p = put_int(p, (long long)gb);
        else
            p += snprintf(p, 32, ",%.6g", gb);
        *p++ = '\n';
        fwrite(line, 1, (size_t)(p - line), f);
    }
    free(line);
    free_fields(team, sc->wl.nteams);
    free_fields(type, (size_t)sc->cat->n);
    free_fields(model, sc->wl.nmodels);
}

void summary_print(FILE *f, const struct sim *s, const struct metrics *m,
                   const struct run_stats *st)
{
    const struct scenario *sc = s->sc;
    fprintf(f, "%s: policy %s, seed %llu, %lld GPUs on %d nodes, %.2f days simulated\n",
            sc->name, sc->policy->name, (unsigned long long)sc->seed, (long long)s->cl->gpus,
            s->cl->nnodes, st->window_s / 86400);
    fprintf(f, "  jobs         %zu in the workload, %zu submitted: %zu completed, %zu running, %zu queued at "
               "the end\n", sc->nbatch, st->submitted, st->completed, st->running, st->queued);
    if (st->limits)
        fprintf(f, "               %zu of the completed ended at their time limit (killed)\n",
                st->timed_out);
    fprintf(f, "  utilization  %.1f %% of GPU time allocated (", 100 * st->utilization);
    const char *sep = "";
    for (int t = 0; t < sc->cat->n; t++) {
        if (!m->capacity[t])
            continue;
        fprintf(f, "%s%s %.1f %%", sep, sc->cat->types[t].name, 100 * metrics_utilization(m, t, s->end));
        sep = ", ";
    }
    fprintf(f, ")\n");
    fprintf(f, "  wait         mean %.2f h, p50 %.2f h, p95 %.2f h, p99 %.2f h\n",
            st->wait_mean / 3600, st->wait_p50 / 3600, st->wait_p95 / 3600, st->wait_p99 / 3600);
    fprintf(f, "  completion   mean %.2f h, p95 %.2f h; makespan %.2f days\n",
            st->jct_mean / 3600, st->jct_p95 / 3600, st->makespan_s / 86400);
    const struct energy *e = &m->en;
    if (st->evictions || st->migrations)
        fprintf(f, "  preemption   %llu evictions, %llu migrations, %.1f GPU-hours lost\n",
                (unsigned long long)st->evictions, (unsigned long long)st->migrations, st->lost_gpu_h);
    struct fault_figures fa;
    if (sim_faults(s, &fa))
        fprintf(f, "  faults       %llu failures, %llu jobs interrupted, %.1f GPU-hours lost, "
                   "goodput %.4f\n", (unsigned long long)fa.failures, (unsigned long long)fa.interruptions,
                st->lost_gpu_h, st->alloc_gpu_h > 0 ? 1 - st->lost_gpu_h / st->alloc_gpu_h : 1);
    for (int k = 0; k < s->sc->nservices; k++) {
        struct svc_figures r;
        sim_service(s, k, &r);
        const struct service_spec *sp = &s->sc->services[k];
        char slo[160];
        service_objective_str(slo, sizeof slo, sp);
        fprintf(f, "  service      %s: %.2f %% of demand served; latency SLO (%s) met %.2f %% of the time, "
                   "%.2f %% of tokens served within it; mean latency %.2f s, %.0f s down, replicas mean %.1f "
                   "max %d\n", sp->name, 100 * r.attainment, slo,
                100 * r.latency_attainment, 100 * r.within_share, r.mean_latency_s, r.down_s, r.replicas_mean,
                r.max_running);
    }
    if (s->sc->nservices > 1)
        fprintf(f, "  services     %.2f %% of demand served; latency SLOs met %.2f %% of the time\n",
                100 * st->slo_attainment, 100 * st->latency_attainment);
    fprintf(f, "  energy       %.1f MWh at the GPUs, %.1f MWh node DC, %.1f MWh wall, %.1f MWh facility (PUE %.2f)\n",
            e->gpu_j / 3.6e9, e->dc_j / 3.6e9, e->wall_j / 3.6e9, st->energy_kwh / 1e3, sc->pue);
    fprintf(f, "  PSU load     peak %.0f %% of usable capacity; %llu overload events\n", 100 * st->psu_peak,
            (unsigned long long)e->fleet.overloads);
}
