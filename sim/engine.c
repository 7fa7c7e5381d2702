/* engine.c - the run loop, arrivals, completions and fluid progress. */
#include "engine.h"

#include <math.h>
#include <stdlib.h>


enum { EV_ARRIVAL, EV_FINISH };

struct sim *sim_new(const struct scenario *sc)
{
    struct sim *s = xcalloc(1, sizeof *s);
    s->sc = sc;
    s->cl = cluster_new(sc->cat, sc->fleet, sc->nfleet);
    sched_init(&s->sched, s->cl, sc->policy);
    sched_prepare(&s->sched, sc->wl.jobs, sc->wl.n, sc->seed);
    evq_init(&s->q);
    s->jobs = sc->wl.jobs;
    s->njobs = sc->wl.n;
    s->prog = xcalloc(s->njobs, sizeof *s->prog);
    s->node_power = xcalloc((size_t)s->cl->nnodes, sizeof *s->node_power);
    for (int g = 0, n = 0; g < sc->nfleet; g++)
        for (int32_t k = 0; k < sc->fleet[g].nodes; k++)
            s->node_power[n++] = &sc->fleet_power[g];
    s->end = -1;
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

static void publish(struct sim *s, enum sim_note note, const struct job *j)
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
         * one microsecond so a completion never lands in the past. */
        double us = ceil(p->remaining / rate * (double)FS_USEC);
        fs_time at = s->now + (us < 1 ? 1 : (fs_time)us);
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
    s->prog[i] = (struct sim_progress){.remaining = j->work, .settled = s->now, .gpu_w = want};
    sim_set_rate(s, i, rate);
}



static void push_next_arrival(struct sim *s)
{
    if (s->next_arrival < s->njobs)
        evq_push(&s->q, s->jobs[s->next_arrival].submit, EV_ARRIVAL, (int32_t)s->next_arrival);
}

static void on_arrival(struct sim *s, size_t i)
{
    struct job *j = &s->jobs[i];
    s->next_arrival = i + 1;
    push_next_arrival(s);
    sched_submit(&s->sched, j);
    s->nqueued++;
    publish(s, SIM_SUBMIT, j);
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
    sched_release(&s->sched, j);
    s->nrunning--;
    s->ndone++;
    publish(s, SIM_FINISH, j);
}

static void started(void *ctx, struct job *j)
{
    struct sim *s = ctx;
    size_t i = (size_t)(j - s->jobs);
    j->start = s->now;
    s->nqueued--;
    s->nrunning++;
    start_progress(s, i);
    publish(s, SIM_START, j);
}

static void dispatch(struct sim *s, const struct event *ev)
{
    s->events++;
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
        s->now = evq_peek_time(&s->q);
        /* Phase one: take everything due now; phase two: run it. */
        for (n = 0; evq_size(&s->q) > 0 && evq_peek_time(&s->q) == s->now; n++) {
            xgrow(&ready, &cap, n + 1, sizeof *ready);
            evq_pop(&s->q, &ready[n]);
        }
        for (size_t k = 0; k < n; k++)
            dispatch(s, &ready[k]);
        if (evq_peek_time(&s->q) != s->now)
            sched_cycle(&s->sched, started, s);
        if (s->progress && s->events >= next_progress) {
            next_progress = s->events + 65536;
            s->progress(s->progress_ctx, s->now, horizon);
        }
    }
    free(ready);
    s->end = horizon != FS_TIME_MAX ? horizon : s->now;
    s->now = s->end;
    publish(s, SIM_END, NULL);
}
