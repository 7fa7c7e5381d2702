/* engine.c - the run loop, arrivals, completions and fluid progress. */
#include "engine.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "../base/signals.h"
#include "elastic.h"
#include "faults_run.h"
#include "rounds.h"
#include "service_run.h"


enum { EV_ARRIVAL, EV_FINISH };

static void evict_cb(void *ctx, struct job *j, bool migrate)
{
    struct sim *s = ctx;
    sim_evict(s, (size_t)(j - s->jobs), migrate);
}

/* Per-GPU watts of job j's work on GPUs of type t behind node n's power
 * cap, and the speed the cap leaves it (1 when uncapped): the fitted cap
 * curve (models/power) when the cap is below what the work would draw. */
static double job_gpu_w(const struct sim *s, const struct job *j, int32_t t, int32_t n, double *speed)
{
    const struct scenario *sc = s->sc;
    const struct perf_workload *w = &sc->perf->w[j->workload];
    double load = model_load_share(sc->power, sc->cat, w, t);
    double want = power_gpu_w(&sc->cat->types[t], load), cap = s->node_power[n]->cap_w;
    *speed = 1;
    if (cap > 0 && cap < want) {
        *speed = power_cap_speed(sc->power, cap, want);
        want = cap;
    }
    return want;
}

struct node_power sim_node_power(const struct sim *s, int32_t n, double extra_gpus, double extra_w,
                                 double *gpu_w)
{
    const struct node *nd = &s->cl->nodes[n];
    const struct gpu_type *t = &s->sc->cat->types[nd->type];
    const struct fleet_power *fp = s->node_power[n];
    if (!elastic_powered(s, n)) {
        if (gpu_w)
            *gpu_w = 0;
        return (struct node_power){0};
    }
    double busy = s->busy[n] + extra_gpus, idle = nd->gpus * t->idle_w;
    double w = s->busy_w[n] + extra_gpus * extra_w + (nd->gpus - busy) * t->idle_w;
    double span = nd->gpus * (t->tdp_w - t->idle_w);
    double activity = span > 0 ? (w - idle) / span : 0;
    if (gpu_w)
        *gpu_w = w;
    return node_power_eval(s->sc->nodes, fp->node, w, activity, s->psus_ok[n]);
}

double sim_psu_load(const struct sim *s, int32_t n, double extra_gpus, double extra_w)
{
    return sim_node_power(s, n, extra_gpus, extra_w, NULL).psu_load;
}

void sim_power_changed(struct sim *s, int32_t n)
{
    const struct node *nd = &s->cl->nodes[n];
    const struct gpu_type *t = &s->sc->cat->types[nd->type];
    double cap = s->node_power[n]->cap_w, w = cap > 0 && cap < t->tdp_w ? cap : t->tdp_w;
    const struct fleet_power *fp = s->node_power[n];
    s->full_ok[n] = node_power_eval(s->sc->nodes, fp->node, nd->gpus * w, 1, s->psus_ok[n]).psu_load <= 1;
    sched_node_changed(&s->sched, n); /* the power filter (flux) reads it */
}

static bool power_ok(void *ctx, const struct job *j, int32_t type, int32_t node)
{
    const struct sim *s = ctx;
    if (s->full_ok[node]) /* every GPU at full draw fits: any placement does */
        return true;
    const struct node *nd = &s->cl->nodes[node];
    double speed, w = job_gpu_w(s, j, type, node, &speed);
    double gpus = (j->gpus > nd->gpus ? nd->gpus : j->gpus) * (double)j->milli / GPU_MILLI;
    return sim_psu_load(s, node, gpus, w) <= 1;
}

/* Job i's progress record; it must have one (sim.h slot). */
static struct sim_progress *progress(const struct sim *s, size_t i)
{
    return &s->prog[s->slot[i]];
}

/* Give job i a progress record when it has none: a freed one, or a new one. */
static void take_progress(struct sim *s, size_t i)
{
    if (s->slot[i] >= 0)
        return;
    if (s->nfree) {
        s->slot[i] = s->free_slots[--s->nfree];
        return;
    }
    if (s->nprog == s->prog_cap) {
        xgrow(&s->prog, &s->prog_cap, s->nprog + 1, sizeof *s->prog);
        s->free_slots = xrealloc(s->free_slots, s->prog_cap * sizeof *s->free_slots);
    }
    s->slot[i] = (int32_t)s->nprog++;
}

/* Free every progress record and the slot map. */
static void drop_progress(struct sim *s)
{
    free(s->prog);
    free(s->slot);
    free(s->free_slots);
    s->prog = NULL;
    s->slot = NULL;
    s->free_slots = NULL;
    s->nprog = s->prog_cap = s->nfree = 0;
}

/* Job i's GPUs start (sign +1) or stop (-1) drawing its watts. */
static void node_draw(struct sim *s, size_t i, int sign)
{
    const struct job *j = &s->jobs[i];
    int size = s->cl->types[j->type].max_gpus;
    for (int32_t k = 0; k < j->nnodes; k++) {
        int32_t n = j->nnodes > 1 ? j->gang[k] : j->node;
        double gpus = (j->nnodes > 1 ? size : j->gpus) * ((double)j->milli / GPU_MILLI);
        s->busy[n] += sign * gpus;
        s->busy_w[n] += sign * gpus * progress(s, i)->gpu_w;
    }
}

struct sim *sim_new(const struct scenario *sc)
{
    struct sim *s = xcalloc(1, sizeof *s);
    s->sc = sc;
    s->cl = cluster_new(sc->cat, sc->fleet, sc->nfleet);
    sched_init(&s->sched, s->cl, sc->policy);
    s->sched.perf = sc->perf;
    s->sched.prices = sc->prices;
    s->sched.nodes = sc->nodes;
    s->sched.evict = evict_cb;
    s->sched.evict_ctx = s;
    sched_prepare(&s->sched, sc->wl.jobs, sc->wl.n, sc->seed);
    evq_init(&s->q);
    s->jobs = sc->wl.jobs;
    s->njobs = sc->wl.n;
    svc_init(s);
    faults_init(s);
    s->slot = xmalloc((s->njobs + 1) * sizeof *s->slot);
    for (size_t i = 0; i < s->njobs; i++)
        s->slot[i] = -1;
    s->node_power = xcalloc((size_t)s->cl->nnodes, sizeof *s->node_power);
    for (int g = 0, n = 0; g < sc->nfleet; g++)
        for (int32_t k = 0; k < sc->fleet[g].nodes; k++)
            s->node_power[n++] = &sc->fleet_power[g];
    s->end = -1;
    s->busy = xcalloc((size_t)(s->cl->nnodes > 0 ? s->cl->nnodes : 1), sizeof *s->busy);
    s->busy_w = xcalloc((size_t)(s->cl->nnodes > 0 ? s->cl->nnodes : 1), sizeof *s->busy_w);
    s->psus_ok = xmalloc((size_t)(s->cl->nnodes > 0 ? s->cl->nnodes : 1) * sizeof *s->psus_ok);
    s->full_ok = xmalloc((size_t)(s->cl->nnodes > 0 ? s->cl->nnodes : 1) * sizeof *s->full_ok);
    for (int32_t n = 0; n < s->cl->nnodes; n++) {
        s->psus_ok[n] = s->node_power[n]->psus_ok;
        sim_power_changed(s, n);
    }
    s->sched.power_ok = power_ok;
    s->sched.power_ctx = s;
    elastic_init(s);
    rounds_init(s);
    /* Rounds place jobs themselves; only an elastic pool's demand reads
     * the queue then. */
    s->sched.unkept = s->rounds && !s->elastic;
    return s;
}

void sim_free(struct sim *s)
{
    if (!s)
        return;
    evq_free(&s->q);
    sched_fini(&s->sched);
    cluster_free(s->cl);
    drop_progress(s);
    free(s->node_power);
    free(s->busy);
    free(s->busy_w);
    free(s->psus_ok);
    free(s->full_ok);
    svc_free(s);
    faults_free(s);
    elastic_free(s);
    rounds_free(s);
    free(s);
}

void sim_observe(struct sim *s, struct sim_observer o)
{
    if (s->nobs == SIM_MAX_OBSERVERS) {
        fprintf(stderr, "fleetsim: internal error: too many observers\n");
        abort();
    }
    s->obs[s->nobs++] = o;
}

void sim_publish(struct sim *s, enum sim_note note, const struct job *j)
{
    for (int k = 0; k < s->nobs; k++)
        s->obs[k].notify(s->obs[k].ctx, s, note, j);
}

double sim_remaining(const struct sim *s, size_t i)
{
    const struct sim_progress *p = progress(s, i);
    double left = p->remaining - p->rate * fs_to_seconds(s->now - p->settled);
    return left > 0 ? left : 0;
}

double sim_gpu_w(const struct sim *s, size_t i)
{
    return progress(s, i)->gpu_w;
}

/* When job i must end at its hard limit (job.h), or FS_TIME_MAX. */
static fs_time limit_at(const struct sim *s, size_t i)
{
    const struct job *j = &s->jobs[i];
    if (!j->kill_at_limit || j->limit <= 0 || j->svc)
        return FS_TIME_MAX;
    fs_time left = j->limit - j->ran;
    return left > FS_TIME_MAX - j->seg ? FS_TIME_MAX : j->seg + left;
}

void sim_set_rate(struct sim *s, size_t i, double rate)
{
    struct sim_progress *p = progress(s, i);
    p->remaining = sim_remaining(s, i);
    p->settled = s->now;
    p->rate = rate;
    evq_cancel(&s->q, p->done);
    p->done = 0;
    if (rate > 0) {
        /* Round up so the work is complete when the event fires; at least
         * one microsecond so a completion never lands in the past.  One
         * past the end of simulated time saturates there (never reached:
         * the scenario loader bounds every run time) rather than overflow. */
        double us = fmax(ceil(p->remaining / rate * (double)FS_USEC), 1);
        fs_time at = us < 4e18 && (fs_time)us < FS_TIME_MAX - s->now ? s->now + (fs_time)us
                                                                     : FS_TIME_MAX;
        fs_time kill = limit_at(s, i);
        p->timeout = kill < at;
        if (p->timeout)
            at = kill > s->now ? kill : s->now;
        p->done = evq_push(&s->q, at, EV_FINISH, (int32_t)i);
    }
}

/* Set job i's rate and per-GPU power for its placement: GPUs x per-GPU
 * speed x multi-GPU scaling (models/perf), slowed by a power cap along the
 * fitted cap curve (models/power) when the cap is below what the work would
 * draw. */
static void start_progress(struct sim *s, size_t i)
{
    const struct scenario *sc = s->sc;
    const struct job *j = &s->jobs[i];
    double speed, want = job_gpu_w(s, j, j->type, j->node, &speed);
    /* A CPU-only job's work is its run time in seconds. */
    double rate = j->gpus == 0 ? 1
                  : j->gpus * perf_relative(sc->perf, j->workload, j->type, j->ref_type) *
                        (j->measured ? 1 : perf_scaling(sc->perf, j->workload, j->type, j->gpus, j->nnodes)) *
                        speed;
    if (j->svc)
        rate = 0; /* a service replica runs until it is stopped */
    /* A resumed job keeps what it had saved and first reloads: restart_s
     * of running without progress, i.e. that much more work at this rate. */
    take_progress(s, i);
    double base = j->evicted ? progress(s, i)->remaining : j->work;
    double restart = s->rounds ? s->sc->migration_s : s->sc->kinds[j->kind].restart_s;
    double reload = j->evicted ? restart : 0;
    s->lost_gpu_s += reload * job_gpus(j);
    *progress(s, i) = (struct sim_progress){.remaining = base + reload * rate, .settled = s->now,
                                       .gpu_w = want, .base = base, .reload = reload};
    sim_set_rate(s, i, rate);
}



static void push_next_arrival(struct sim *s)
{
    if (s->next_arrival < s->sc->nbatch)
        evq_push(&s->q, s->jobs[s->next_arrival].submit, EV_ARRIVAL, (int32_t)s->next_arrival);
}

static void on_arrival(struct sim *s, size_t i)
{
    struct job *j = &s->jobs[i];
    s->next_arrival = i + 1;
    push_next_arrival(s);
    sched_submit(&s->sched, j);
    s->nqueued++;
    sim_publish(s, SIM_SUBMIT, j);
    if (s->rounds)
        rounds_arrived(s, i);
}

void sim_stop(struct sim *s, size_t i)
{
    struct job *j = &s->jobs[i];
    struct sim_progress *p = progress(s, i);
    evq_cancel(&s->q, p->done);
    p->rate = 0;
    p->settled = s->now;
    p->done = 0;
    j->end = s->now;
    j->ran += s->now - j->seg;
    node_draw(s, i, -1);
    sched_release(&s->sched, j);
    s->nrunning--;
    sim_publish(s, SIM_FINISH, j);
    s->free_slots[s->nfree++] = s->slot[i];
    s->slot[i] = -1;
}

static void on_finish(struct sim *s, size_t i)
{
    if (progress(s, i)->timeout) {
        s->jobs[i].timed_out = 1;
        s->ntimedout++;
    }
    progress(s, i)->remaining = 0;
    s->ndone++;
    sim_stop(s, i);
    if (s->rounds)
        rounds_finished(s, i);
}

static void started(void *ctx, struct job *j)
{
    struct sim *s = ctx;
    size_t i = (size_t)(j - s->jobs);
    if (!j->evicted)
        j->start = s->now;
    j->seg = s->now;
    s->nqueued--;
    s->nrunning++;
    start_progress(s, i);
    node_draw(s, i, +1);
    if (j->svc)
        svc_started(s, i);
    sim_publish(s, SIM_START, j);
}

void sim_start(struct sim *s, struct job *j)
{
    started(s, j);
}

void sim_evict(struct sim *s, size_t i, bool migrate)
{
    struct job *j = &s->jobs[i];
    struct sim_progress *p = progress(s, i);
    double ckpt = s->sc->kinds[j->kind].checkpoint_s;
    /* The segment ran tau seconds: reload first, then progress at the
     * rate, saved at every multiple c of the checkpoint interval (none
     * when ckpt is 0, so nothing is ever saved), or right now for a
     * migration, which checkpoints before it moves. */
    double tau = fs_to_seconds(s->now - j->seg), r = p->reload;
    double c = migrate ? tau : ckpt > 0 ? floor(tau / ckpt) * ckpt : 0;
    double saved = fmax(0, c - r), done = fmax(0, tau - r);
    p->remaining = ckpt > 0 || migrate ? p->base - saved * p->rate : j->work;
    /* Lost: progress since the checkpoint, and any of the reload that was
     * counted at the start but did not happen. */
    s->lost_gpu_s += (done - saved - fmax(0, r - tau)) * job_gpus(j);
    if (j->svc)
        svc_evicted(s, i);
    p->rate = 0;
    p->settled = s->now;
    evq_cancel(&s->q, p->done);
    p->done = 0;
    if (migrate)
        s->migrations++;
    else
        s->evictions++;
    node_draw(s, i, -1); /* before observers recompute the node's power */
    sim_publish(s, SIM_EVICT, j);
    j->ran += s->now - j->seg;
    if (j->evicted < UINT8_MAX)
        j->evicted++;
    sched_evict(&s->sched, j);
    s->nrunning--;
    s->nqueued++;
}

size_t sim_evict_node(struct sim *s, int32_t n, bool migrate)
{
    const struct node *nd = &s->cl->nodes[n];
    size_t count = 0;
    for (int g = 0; g < nd->gpus; g++) {
        struct job *j = s->sched.owner[nd->gpu0 + g];
        if (j && j->state == JOB_RUNNING) {
            sim_evict(s, (size_t)(j - s->jobs), migrate);
            count++;
        }
    }
    /* Jobs that share a GPU are not in owner[]: find them by placement. */
    for (size_t i = 0; i < s->njobs && s->cl->nodes[n].free < nd->gpus; i++) {
        const struct job *j = &s->jobs[i];
        if (j->state == JOB_RUNNING && j->nnodes == 1 && j->node == n) {
            sim_evict(s, i, migrate);
            count++;
        }
    }
    return count;
}

static void dispatch(struct sim *s, const struct event *ev)
{
    s->events++;
    if (svc_event(s, ev) || faults_event(s, ev) || elastic_event(s, ev) || rounds_event(s, ev))
        return;
    if (ev->kind == EV_ARRIVAL)
        on_arrival(s, (size_t)ev->arg);
    else
        on_finish(s, (size_t)ev->arg);
}

int sim_fail(struct sim *s, int code, const char *fmt, ...)
{
    if (s->stop.code)
        return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->stop.msg, sizeof s->stop.msg, fmt, ap);
    va_end(ap);
    s->stop.code = code;
    return code;
}

void sim_run(struct sim *s)
{
    fs_time horizon = s->sc->horizon;
    size_t cap = 64, n;
    uint64_t next_progress = 0;
    struct event *ready = xmalloc(cap * sizeof *ready);
    push_next_arrival(s);
    /* evq_peek_time is FS_TIME_MAX for an empty queue, which equals "no
     * horizon": test the size too. */
    while (evq_size(&s->q) > 0 && evq_peek_time(&s->q) <= horizon) {
        if ((s->interrupted = fs_interrupted()) || s->stop.code)
            break;
        s->now = evq_peek_time(&s->q);
        /* Phase one: take everything due now; phase two: run it. */
        for (n = 0; evq_size(&s->q) > 0 && evq_peek_time(&s->q) == s->now; n++) {
            xgrow(&ready, &cap, n + 1, sizeof *ready);
            evq_pop(&s->q, &ready[n]);
        }
        for (size_t k = 0; k < n; k++)
            dispatch(s, &ready[k]);
        if (!s->rounds && evq_peek_time(&s->q) != s->now) {
            s->sched.now = s->now;
            sched_cycle(&s->sched, started, s);
            elastic_cycle(s);
        }
        if (s->progress && s->events >= next_progress) {
            next_progress = s->events + 65536;
            s->progress(s->progress_ctx, s->now, horizon);
        }
    }
    free(ready);
    if (!s->interrupted) /* also a signal during the last batch */
        s->interrupted = fs_interrupted();
    if (s->interrupted || s->stop.code)
        return; /* unfinished: no SIM_END, and s->end stays -1 */
    s->end = horizon != FS_TIME_MAX ? horizon : s->now;
    s->now = s->end;
    svc_end(s);
    elastic_end(s);
    sim_publish(s, SIM_END, NULL);
    /* Nothing runs any more: the progress records go (the run's peak
     * memory comes after, when the figures are computed). */
    drop_progress(s);
}
