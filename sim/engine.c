/* engine.c - the run loop, arrivals, completions and fluid progress. */
#include "engine.h"

#include <math.h>
#include <stdlib.h>

#include "../base/signals.h"
#include "service_run.h"


enum { EV_ARRIVAL, EV_FINISH };

static void evict_cb(void *ctx, struct job *j, bool migrate)
{
    struct sim *s = ctx;
    sim_evict(s, (size_t)(j - s->jobs), migrate);
}

/* Per node, the GPUs its healthy PSUs can feed at full draw (the TDP, or
 * the power cap): the most that keep its PSU load at or under 1. */
static int16_t *power_gpus_of(const struct sim *s)
{
    const struct scenario *sc = s->sc;
    int16_t *out = xmalloc((size_t)(s->cl->nnodes > 0 ? s->cl->nnodes : 1) * sizeof *out);
    for (int32_t n = 0; n < s->cl->nnodes; n++) {
        const struct fleet_power *fp = s->node_power[n];
        const struct node *nd = &s->cl->nodes[n];
        double w = sc->cat->types[nd->type].tdp_w;
        if (fp->cap_w > 0 && fp->cap_w < w)
            w = fp->cap_w;
        int k = nd->gpus;
        while (k > 0 && node_power_eval(sc->nodes, fp->node, k * w, (double)k / nd->gpus, fp->psus_ok).psu_load > 1)
            k--;
        out[n] = (int16_t)k;
    }
    return out;
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
    s->prog = xcalloc(s->njobs, sizeof *s->prog);
    s->node_power = xcalloc((size_t)s->cl->nnodes, sizeof *s->node_power);
    for (int g = 0, n = 0; g < sc->nfleet; g++)
        for (int32_t k = 0; k < sc->fleet[g].nodes; k++)
            s->node_power[n++] = &sc->fleet_power[g];
    s->end = -1;
    s->power_gpus = power_gpus_of(s);
    s->sched.power_gpus = s->power_gpus;
    return s;
}

void sim_free(struct sim *s)
{
    if (!s)
        return;
    evq_free(&s->q);
    sched_fini(&s->sched);
    cluster_free(s->cl);
    free(s->prog);
    free(s->node_power);
    free(s->power_gpus);
    svc_free(s);
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
    const struct sim_progress *p = &s->prog[i];
    double left = p->remaining - p->rate * fs_to_seconds(s->now - p->settled);
    return left > 0 ? left : 0;
}

void sim_set_rate(struct sim *s, size_t i, double rate)
{
    struct sim_progress *p = &s->prog[i];
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
    const struct perf_workload *w = &sc->perf->w[j->workload];
    double load = w->batch > 0 ? power_load_infer(sc->power, sc->cat, w->batch) : sc->power->train_load;
    double want = power_gpu_w(&sc->cat->types[j->type], load), cap = s->node_power[j->node]->cap_w;
    /* A CPU-only job's work is its run time in seconds. */
    double rate = j->gpus == 0 ? 1
                  : j->gpus * perf_relative(sc->perf, j->workload, j->type, j->ref_type) *
                        perf_scaling(sc->perf, j->workload, j->type, j->gpus, j->nnodes);
    if (cap > 0 && cap < want) {
        rate *= power_cap_speed(sc->power, cap, want);
        want = cap;
    }
    if (j->svc)
        rate = 0; /* a service replica runs until it is stopped */
    /* A resumed job keeps what it had saved and first reloads: restart_s
     * of running without progress, i.e. that much more work at this rate. */
    double base = j->evicted ? s->prog[i].remaining : j->work;
    double reload = j->evicted ? s->sc->kinds[j->kind].restart_s : 0;
    s->lost_gpu_s += reload * job_gpus(j);
    s->prog[i] = (struct sim_progress){.remaining = base + reload * rate, .settled = s->now,
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
}

static void on_finish(struct sim *s, size_t i)
{
    struct job *j = &s->jobs[i];
    struct sim_progress *p = &s->prog[i];
    p->remaining = 0;
    p->rate = 0;
    p->settled = s->now;
    p->done = 0;
    j->end = s->now;
    j->ran += s->now - j->seg;
    sched_release(&s->sched, j);
    s->nrunning--;
    s->ndone++;
    sim_publish(s, SIM_FINISH, j);
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
    if (j->svc)
        svc_started(s, i);
    sim_publish(s, SIM_START, j);
}

void sim_evict(struct sim *s, size_t i, bool migrate)
{
    struct job *j = &s->jobs[i];
    struct sim_progress *p = &s->prog[i];
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
    sim_publish(s, SIM_EVICT, j);
    j->ran += s->now - j->seg;
    j->evicted++;
    sched_evict(&s->sched, j);
    s->nrunning--;
    s->nqueued++;
}

static void dispatch(struct sim *s, const struct event *ev)
{
    s->events++;
    if (svc_event(s, ev))
        return;
    if (ev->kind == EV_ARRIVAL)
        on_arrival(s, (size_t)ev->arg);
    else
        on_finish(s, (size_t)ev->arg);
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
        if ((s->interrupted = fs_interrupted()))
            break;
        s->now = evq_peek_time(&s->q);
        /* Phase one: take everything due now; phase two: run it. */
        for (n = 0; evq_size(&s->q) > 0 && evq_peek_time(&s->q) == s->now; n++) {
            xgrow(&ready, &cap, n + 1, sizeof *ready);
            evq_pop(&s->q, &ready[n]);
        }
        for (size_t k = 0; k < n; k++)
            dispatch(s, &ready[k]);
        if (evq_peek_time(&s->q) != s->now) {
            s->sched.now = s->now;
            sched_cycle(&s->sched, started, s);
        }
        if (s->progress && s->events >= next_progress) {
            next_progress = s->events + 65536;
            s->progress(s->progress_ctx, s->now, horizon);
        }
    }
    free(ready);
    if (s->interrupted)
        return; /* unfinished: no SIM_END, and s->end stays -1 */
    s->end = horizon != FS_TIME_MAX ? horizon : s->now;
    s->now = s->end;
    svc_end(s);
    sim_publish(s, SIM_END, NULL);
}
