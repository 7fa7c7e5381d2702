/* service_run.c - inference services in the engine: the autoscaler's ticks,
 * replicas submitted and stopped, cold starts, and the accounting of demand,
 * capacity and latency between events (models/service.h has the model). */
#include "service_run.h"

#include <math.h>
#include <stdlib.h>

enum { EV_TICK = 2, EV_READY = 3 }; /* after engine.c's EV_ARRIVAL, EV_FINISH */

/* A hot spare is kept only for replicas of at most this many GPUs. */
#define SVC_SPARE_MAX_GPUS 2

static const struct service_spec *spec_of(const struct sim *s, int k)
{
    return &s->sc->services[k];
}

/* The operating point of replica job j where it runs. */
static const struct llm_operating *replica_op(const struct sim *s, const struct job *j)
{
    return &s->svc[j->svc - 1].op[j->type];
}

static double replica_rate(const struct sim *s, const struct job *j)
{
    return replica_op(s, j)->tokens_s;
}

/* Replica j starts (sign +1) or stops (-1) serving. */
static void serve(struct sim *s, const struct job *j, int sign)
{
    struct svc_run *r = &s->svc[j->svc - 1];
    const struct llm_operating *op = replica_op(s, j);
    r->capacity += sign * op->tokens_s;
    r->slots += sign * op->batch;
    r->ttft_slots += sign * op->batch * op->ttft_s;
    r->ready += sign;
}

/* The timeseries row being accounted is closed: keep it for svc_row_take
 * and start the next. */
static void close_row(struct svc_run *r, fs_time width)
{
    if (r->ndone == r->done_cap) { /* grow, unwrapping the ring */
        size_t cap = r->done_cap ? 2 * r->done_cap : 4;
        struct svc_row *d = xcalloc(cap, sizeof *d);
        for (size_t i = 0; i < r->ndone; i++)
            d[i] = r->done[(r->done_head + i) % r->done_cap];
        free(r->done);
        r->done = d;
        r->done_cap = cap;
        r->done_head = 0;
    }
    r->done[(r->done_head + r->ndone++) % r->done_cap] = r->row;
    r->row = (struct svc_row){0};
    r->row_end = r->row_end > FS_TIME_MAX - width ? FS_TIME_MAX : r->row_end + width;
}

/* Account service k from its last accounting to t: demand is piecewise
 * constant (split where it changes, and at timeseries row ends), capacity
 * constant (the engine accounts before every change). */
static void account(struct sim *s, int k, fs_time t)
{
    struct svc_run *r = &s->svc[k];
    const struct service_spec *sp = spec_of(s, k);
    while (r->last < t) {
        fs_time next = service_demand_next(sp, r->last);
        fs_time to = next < t ? next : t;
        if (r->row_end < to)
            to = r->row_end;
        double dt = fs_to_seconds(to - r->last), demand = service_demand(sp, r->last);
        service_account(&r->st, dt, demand, r->capacity);
        r->row.capacity_s += r->capacity * dt;
        r->row.slots_s += r->slots * dt;
        if (demand > 0) {
            double lat = service_response_s(sp, demand, r->capacity, r->slots);
            double tokens = demand * dt;
            r->row.demand_tokens += tokens;
            r->demand_s += dt;
            r->row.demand_s += dt;
            if (isfinite(lat))
                r->latency_tokens += lat * fmin(demand, r->capacity) * dt;
            if (service_latency_met(sp, demand, r->capacity, r->slots,
                                    r->slots > 0 ? r->ttft_slots / r->slots : 0)) {
                r->met_s += dt;
                r->row.met_s += dt;
                r->within_tokens += tokens; /* met: demand < capacity, all served */
                r->row.within_tokens += tokens;
            }
            if (r->capacity <= 0)
                r->down_s += dt;
        }
        r->replica_s += r->running * dt;
        r->last = to;
        if (to == r->row_end)
            close_row(r, s->sc->ts_interval);
    }
}

void svc_row_take(struct sim *s, int k, fs_time end, struct svc_row *row)
{
    struct svc_run *r = &s->svc[k];
    if (r->last < end)
        account(s, k, end);
    if (r->ndone == 0) { /* the last row, shorter than the interval */
        *row = r->row;
        r->row = (struct svc_row){0};
        return;
    }
    *row = r->done[r->done_head];
    r->done_head = (r->done_head + 1) % r->done_cap;
    r->ndone--;
}

/* The replica slots of service k: [first, first + max_replicas). */
static size_t first_slot(const struct sim *s, int k)
{
    size_t i = s->sc->nbatch;
    for (int m = 0; m < k; m++)
        i += (size_t)spec_of(s, m)->as.max_replicas;
    return i;
}

void svc_init(struct sim *s)
{
    int n = s->sc->nservices;
    const struct gpu_catalog *cat = s->sc->cat;
    s->svc = xcalloc((size_t)(n > 0 ? n : 1), sizeof *s->svc);
    s->svc_ready = xcalloc(s->njobs > 0 ? s->njobs : 1, 1);
    for (int k = 0; k < n; k++) {
        const struct service_spec *sp = spec_of(s, k);
        int gpus = s->jobs[first_slot(s, k)].gpus;
        s->svc[k].op = xcalloc((size_t)cat->n, sizeof *s->svc[k].op);
        s->svc[k].row_end = s->sc->ts_interval;
        s->svc[k].gpus = gpus;
        for (int t = 0; t < cat->n; t++) {
            int need = service_replica_gpus(sp, &cat->types[t]);
            if (need > 0 && need <= gpus)
                s->svc[k].op[t] = service_replica(s->sc->llm, sp, &cat->types[t], gpus);
        }
        evq_push(&s->q, 0, EV_TICK, k);
    }
}

void svc_free(struct sim *s)
{
    for (int k = 0; k < s->sc->nservices; k++) {
        free(s->svc[k].op);
        free(s->svc[k].done);
    }
    free(s->svc);
    free(s->svc_ready);
}

/* Stop replica i of service k now (scale-down): its GPUs go back and its
 * slot is free again, keeping the time it ran. */
static void stop(struct sim *s, int k, size_t i)
{
    struct job *j = &s->jobs[i];
    struct svc_run *r = &s->svc[k];
    if (j->state == JOB_QUEUED) {
        sched_withdraw(&s->sched, j);
        s->nqueued--;
        r->live--;
        sim_publish(s, SIM_WITHDRAW, j);
    } else {
        if (s->svc_ready[i]) {
            serve(s, j, -1);
            s->svc_ready[i] = 0;
        }
        r->live--;
        r->running--;
        s->ndone++; /* done while the observers hear of it, then free again */
        sim_stop(s, i);
        s->ndone--;
    }
    fs_time ran = j->ran;
    job_reset_placement(j);
    j->ran = ran;
    j->state = JOB_FUTURE;
}

static void svc_tick(struct sim *s, int k)
{
    const struct service_spec *sp = spec_of(s, k);
    struct svc_run *r = &s->svc[k];
    account(s, k, s->now);
    double demand = service_demand(sp, s->now), per = r->ready ? r->capacity / r->ready : 0;
    if (per <= 0) { /* nothing ready: the slowest type it may get, to be safe */
        for (int t = 0; t < s->sc->cat->n; t++) {
            double rate = service_allows(sp, t) && s->cl->types[t].max_gpus ? r->op[t].tokens_s : 0;
            if (rate > 0 && (per <= 0 || rate < per))
                per = rate;
        }
    }
    /* At the start the service is already deployed for its demand (a
     * simulation starts in the middle of its life, not at its launch). */
    /* Hot spares (the policy's), for latency-critical services whose
     * replica is small enough to hold idle: a GPU or two. */
    size_t first = first_slot(s, k), end = first + (size_t)sp->as.max_replicas;
    int spares = sp->priority == SERVICE_LATENCY && s->jobs[first].gpus <= SVC_SPARE_MAX_GPUS
                     ? s->sc->policy->hot_spares : 0;
    int want = s->now == 0 ? service_desired_replicas(sp, demand, per) + spares
                           : service_autoscale(sp, &r->st, s->now, demand, per, r->live - spares) + spares;
    if (want > sp->as.max_replicas)
        want = sp->as.max_replicas;
    /* Scale up into free slots; scale down the newest queued first, then
     * the newest not yet serving. */
    for (size_t i = first; i < end && r->live < want; i++) {
        struct job *j = &s->jobs[i];
        if (j->state != JOB_FUTURE)
            continue;
        j->submit = s->now;
        j->urgent = r->capacity < demand; /* needed now, not only as headroom */
        sched_submit(&s->sched, j);
        s->nqueued++;
        r->live++;
        sim_publish(s, SIM_SUBMIT, j);
    }
    for (int pass = 0; pass < 2 && r->live > want; pass++)
        for (size_t i = end; i-- > first && r->live > want;) {
            const struct job *j = &s->jobs[i];
            if (pass == 0 ? j->state == JOB_QUEUED : j->state == JOB_RUNNING && !s->svc_ready[i])
                stop(s, k, i);
        }
    /* Then serving replicas, the slowest first (on a mixed fleet the
     * count alone would drop a fast one as readily as a slow one). */
    while (r->live > want) {
        size_t slow = end;
        for (size_t i = end; i-- > first;)
            if (s->jobs[i].state == JOB_RUNNING &&
                (slow == end || replica_rate(s, &s->jobs[i]) < replica_rate(s, &s->jobs[slow])))
                slow = i;
        if (slow == end)
            break;
        stop(s, k, slow);
    }
    if (s->now + sp->as.tick <= s->sc->horizon)
        evq_push(&s->q, s->now + sp->as.tick, EV_TICK, k);
}

void svc_started(struct sim *s, size_t i)
{
    const struct job *j = &s->jobs[i];
    int k = j->svc - 1;
    struct svc_run *r = &s->svc[k];
    account(s, k, s->now);
    if (++r->running > r->max_running)
        r->max_running = r->running;
    /* Replicas deployed at the start are warm: they serve at once. */
    evq_push(&s->q, s->now == 0 ? 0 : s->now + spec_of(s, k)->as.cold_start, EV_READY, (int32_t)i);
}

static void svc_ready(struct sim *s, size_t i)
{
    const struct job *j = &s->jobs[i];
    int k = j->svc - 1;
    /* Stale when the replica stopped or moved since. */
    if (j->state != JOB_RUNNING || s->svc_ready[i] ||
        (j->seg + spec_of(s, k)->as.cold_start != s->now && s->now != 0))
        return;
    account(s, k, s->now);
    s->svc_ready[i] = 1;
    serve(s, j, +1);
}

void svc_evicted(struct sim *s, size_t i)
{
    const struct job *j = &s->jobs[i];
    int k = j->svc - 1;
    account(s, k, s->now);
    s->svc[k].running--;
    if (s->svc_ready[i]) {
        serve(s, j, -1);
        s->svc_ready[i] = 0;
    }
}

void svc_end(struct sim *s)
{
    for (int k = 0; k < s->sc->nservices; k++)
        account(s, k, s->now);
}

bool svc_event(struct sim *s, const struct event *ev)
{
    if (ev->kind == EV_TICK)
        svc_tick(s, (int)ev->arg);
    else if (ev->kind == EV_READY)
        svc_ready(s, (size_t)ev->arg);
    else
        return false;
    return true;
}

double svc_attainment(const struct sim *s)
{
    double demand = 0, served = 0;
    for (int k = 0; k < s->sc->nservices; k++) {
        demand += s->svc[k].st.demand_tokens;
        served += s->svc[k].st.served_tokens;
    }
    return demand > 0 ? served / demand : 1;
}

double svc_latency_attainment(const struct sim *s)
{
    double demand_s = 0, met_s = 0;
    for (int k = 0; k < s->sc->nservices; k++) {
        demand_s += s->svc[k].demand_s;
        met_s += s->svc[k].met_s;
    }
    return demand_s > 0 ? met_s / demand_s : 1;
}

void sim_service(const struct sim *s, int k, struct svc_figures *out)
{
    const struct svc_run *r = &s->svc[k];
    *out = (struct svc_figures){
        .demand_tokens = r->st.demand_tokens,
        .served_tokens = r->st.served_tokens,
        .attainment = service_attainment(&r->st),
        .short_s = r->st.short_s,
        .scale_ups = r->st.scale_ups,
        .scale_downs = r->st.scale_downs,
        .mean_latency_s = r->st.served_tokens > 0 ? r->latency_tokens / r->st.served_tokens : 0,
        .demand_s = r->demand_s,
        .met_s = r->met_s,
        .latency_attainment = r->demand_s > 0 ? r->met_s / r->demand_s : 1,
        .within_tokens = r->within_tokens,
        .within_share = r->st.demand_tokens > 0 ? r->within_tokens / r->st.demand_tokens : 1,
        .down_s = r->down_s,
        .replicas_mean = s->end > 0 ? r->replica_s / fs_to_seconds(s->end) : 0,
        .max_running = r->max_running,
        .gpus = r->gpus,
        .op = r->op,
    };
}
