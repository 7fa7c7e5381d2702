/* elastic.c - an elastic or spot cloud fleet in the engine (elastic.h). */
#include "elastic.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>

#include "../base/rng.h"

/* After engine.c's, service_run.c's and faults_run.c's. */
enum { EV_UP = 8, EV_IDLE = 9, EV_SPOT = 10 };

static fs_time term_us(double override_s, const struct cost_value *v)
{
    return (fs_time)llround((override_s >= 0 ? override_s : v->value) * FS_USEC);
}

static void mark_dirty(struct elastic_run *e, int32_t n)
{
    if (!e->is_dirty[n]) {
        e->is_dirty[n] = 1;
        e->dirty[e->ndirty++] = n;
    }
}

/* Every node of job j, through fn. */
static void each_node(struct sim *s, const struct job *j, void (*fn)(struct sim *, int32_t))
{
    for (int32_t k = 0; k < j->nnodes; k++)
        fn(s, j->nnodes > 1 ? j->gang[k] : j->node);
}

static void node_left(struct sim *s, int32_t n)
{
    mark_dirty(s->elastic, n);
}

static void node_busy(struct sim *s, int32_t n)
{
    struct elastic_run *e = s->elastic;
    e->idle_since[n] = -1;
    evq_cancel(&s->q, e->idle_ev[n]);
    e->idle_ev[n] = 0;
}

static void notify(void *ctx, struct sim *s, enum sim_note note, const struct job *j)
{
    (void)ctx;
    if (!j || j->gpus == 0)
        return;
    if (note == SIM_START)
        each_node(s, j, node_busy);
    else if (note == SIM_FINISH || note == SIM_EVICT)
        each_node(s, j, node_left);
}

static uint64_t all_gpus(const struct node *nd)
{
    return nd->gpus == 64 ? ~0ULL : (1ULL << nd->gpus) - 1;
}

void elastic_init(struct sim *s)
{
    const struct scenario *sc = s->sc;
    if (sc->cost.hold == COST_HOLD_FIXED)
        return;
    const struct cost_elastic_terms *t = &sc->prices->elastic;
    size_t nn = (size_t)(s->cl->nnodes > 0 ? s->cl->nnodes : 1);
    struct elastic_run *e = s->elastic = xcalloc(1, sizeof *e);
    e->hold = sc->cost.hold;
    e->provision = term_us(sc->cost.provision_s, &t->provision_s);
    e->increment = term_us(sc->cost.increment_s, &t->increment_s);
    e->minimum = term_us(sc->cost.minimum_s, &t->minimum_s);
    e->scale_down = term_us(sc->cost.scale_down_s, &t->scale_down_s);
    if (e->hold == COST_HOLD_SPOT) {
        double share = sc->cost.spot_share_month >= 0 ? sc->cost.spot_share_month : t->spot_share_month.value;
        e->spot_rate = cost_spot_rate(share);
        e->rng = rng_stream(sc->seed, RNG_SPOT);
    }
    e->state = xcalloc(nn, 1);
    e->since = xcalloc(nn, sizeof *e->since);
    e->held_s = xcalloc(nn, sizeof *e->held_s);
    e->idle_since = xcalloc(nn, sizeof *e->idle_since);
    e->idle_ev = xcalloc(nn, sizeof *e->idle_ev);
    e->spot_ev = xcalloc(nn, sizeof *e->spot_ev);
    e->dirty = xcalloc(nn, sizeof *e->dirty);
    e->is_dirty = xcalloc(nn, 1);
    for (int32_t n = 0; n < s->cl->nnodes; n++)
        cluster_take(s->cl, n, all_gpus(&s->cl->nodes[n]), GPU_MILLI, 0, 0);
    sim_observe(s, (struct sim_observer){.ctx = NULL, .notify = notify});
}

bool elastic_powered(const struct sim *s, int32_t n)
{
    return !s->elastic || s->elastic->state[n] != ELASTIC_OFF;
}

double elastic_unheld_idle_j(const struct sim *s)
{
    const struct scenario *sc = s->sc;
    double j = 0;
    for (int32_t n = 0; s->elastic && n < s->cl->nnodes; n++) {
        const struct node *nd = &s->cl->nodes[n];
        const struct fleet_power *fp = s->node_power[n];
        double idle_w = node_power_eval(sc->nodes, fp->node, nd->gpus * sc->cat->types[nd->type].idle_w, 0,
                                        s->psus_ok[n]).wall_w;
        j += idle_w * (fs_to_seconds(s->end) - s->elastic->held_s[n]);
    }
    return j;
}

/* Tell the observers that instance n's power changed (requested or released). */
static void power_changed(struct sim *s, int32_t n)
{
    s->node_changed = n;
    sim_publish(s, SIM_NODE, NULL);
}

void elastic_free(struct sim *s)
{
    struct elastic_run *e = s->elastic;
    if (!e)
        return;
    if (e->rng)
        gsl_rng_free(e->rng);
    free(e->state);
    free(e->since);
    free(e->held_s);
    free(e->idle_since);
    free(e->idle_ev);
    free(e->spot_ev);
    free(e->dirty);
    free(e->is_dirty);
    free(e);
}

static void request(struct sim *s, int32_t n)
{
    struct elastic_run *e = s->elastic;
    e->state[n] = ELASTIC_PENDING;
    e->since[n] = s->now;
    e->requests++;
    if (++e->held > e->peak)
        e->peak = e->held;
    evq_push(&s->q, s->now + e->provision, EV_UP, n);
    power_changed(s, n);
}

/* Give instance n back now and bill it (its GPUs are free). */
static void release(struct sim *s, int32_t n)
{
    struct elastic_run *e = s->elastic;
    const struct node *nd = &s->cl->nodes[n];
    fs_time held = s->now - e->since[n];
    e->held_s[n] += fs_to_seconds(held);
    e->held_gpu_s[nd->type] += nd->gpus * fs_to_seconds(held);
    e->billed_gpu_s[nd->type] += nd->gpus * fs_to_seconds(cost_elastic_billed(held, e->increment, e->minimum));
    if (e->state[n] == ELASTIC_ON)
        cluster_take(s->cl, n, all_gpus(nd), GPU_MILLI, 0, 0);
    e->state[n] = ELASTIC_OFF;
    e->held--;
    e->releases++;
    evq_cancel(&s->q, e->idle_ev[n]);
    evq_cancel(&s->q, e->spot_ev[n]);
    e->idle_ev[n] = e->spot_ev[n] = 0;
    power_changed(s, n);
}

static void on_up(struct sim *s, int32_t n)
{
    struct elastic_run *e = s->elastic;
    e->state[n] = ELASTIC_ON;
    e->idle_since[n] = -1;
    cluster_give(s->cl, n, all_gpus(&s->cl->nodes[n]), GPU_MILLI, 0, 0);
    sched_node_freed(&s->sched, n);
    mark_dirty(e, n); /* idle until a job lands on it */
    if (e->rng) {
        double us = gsl_ran_exponential(e->rng, 1 / e->spot_rate) * FS_USEC;
        if (us < (double)(s->sc->horizon - s->now))
            e->spot_ev[n] = evq_push(&s->q, s->now + (fs_time)us + 1, EV_SPOT, n);
    }
}

static void on_idle(struct sim *s, int32_t n)
{
    struct elastic_run *e = s->elastic;
    e->idle_ev[n] = 0;
    if (e->state[n] == ELASTIC_ON && e->idle_since[n] >= 0)
        release(s, n);
}

static void on_spot(struct sim *s, int32_t n)
{
    struct elastic_run *e = s->elastic;
    e->spot_ev[n] = 0;
    e->interruptions++;
    sim_evict_node(s, n, false);
    release(s, n);
    s->sched.freed = true;
}

bool elastic_event(struct sim *s, const struct event *ev)
{
    if (!s->elastic)
        return false;
    if (ev->kind == EV_UP)
        on_up(s, ev->arg);
    else if (ev->kind == EV_IDLE)
        on_idle(s, ev->arg);
    else if (ev->kind == EV_SPOT)
        on_spot(s, ev->arg);
    else
        return false;
    return true;
}

/* GPUs job j needs: a share of one GPU counts as one. */
static int job_need(const struct job *j)
{
    return j->gpus > 0 ? j->gpus : 0;
}

/* Request instances of type t until cover[t] >= need; false when the pool
 * has too few. */
static bool provision(struct sim *s, int32_t t, int need, int64_t cover[GPU_MAX_TYPES])
{
    struct elastic_run *e = s->elastic;
    const struct cluster_type *ct = &s->cl->types[t];
    for (int32_t n = ct->first_node; n <= ct->last_node && cover[t] < need; n++)
        if (e->state[n] == ELASTIC_OFF) {
            request(s, n);
            cover[t] += s->cl->nodes[n].gpus;
        }
    return cover[t] >= need;
}

struct scale_up {
    struct sim *s;
    int64_t cover[GPU_MAX_TYPES]; /* GPUs on their way, per type, not yet spoken for */
};

/* An instance for queued job j unless those on their way cover it.  RET:
 * false when every instance is held (nothing more to do). */
static bool scale_for(void *ctx, const struct job *j)
{
    struct scale_up *u = ctx;
    struct sim *s = u->s;
    int need = job_need(j);
    if (s->elastic->held >= s->cl->nnodes)
        return false;
    if (need == 0)
        return true;
    for (int32_t t = 0; t < s->sc->cat->n; t++) {
        if (s->cl->types[t].gpus == 0 || (j->allowed && !(j->allowed >> t & 1)) ||
            s->cl->types[t].max_gpus * (int64_t)(s->cl->types[t].last_node - s->cl->types[t].first_node + 1) < need)
            continue;
        if (u->cover[t] >= need || provision(s, t, need, u->cover)) {
            u->cover[t] -= need;
            break;
        }
    }
    return true;
}

/* Instances for the queued jobs that those on their way do not cover. */
static void scale_up(struct sim *s)
{
    struct scale_up u = {.s = s};
    for (int32_t n = 0; n < s->cl->nnodes; n++)
        if (s->elastic->state[n] == ELASTIC_PENDING)
            u.cover[s->cl->nodes[n].type] += s->cl->nodes[n].gpus;
    sched_each_queued(&s->sched, scale_for, &u);
}

void elastic_cycle(struct sim *s)
{
    struct elastic_run *e = s->elastic;
    if (!e)
        return;
    scale_up(s);
    /* Instances a job left, now without work: released after scale_down. */
    for (int32_t k = 0; k < e->ndirty; k++) {
        int32_t n = e->dirty[k];
        e->is_dirty[n] = 0;
        if (e->state[n] == ELASTIC_ON && s->busy[n] <= 0 && e->idle_since[n] < 0) {
            e->idle_since[n] = s->now;
            if (e->scale_down == 0)
                release(s, n);
            else
                e->idle_ev[n] = evq_push(&s->q, s->now + e->scale_down, EV_IDLE, n);
        }
    }
    e->ndirty = 0;
}

void elastic_end(struct sim *s)
{
    struct elastic_run *e = s->elastic;
    if (!e)
        return;
    for (int32_t n = 0; n < s->cl->nnodes; n++)
        if (e->state[n] != ELASTIC_OFF)
            release(s, n);
}

bool sim_elastic(const struct sim *s, struct elastic_figures *out)
{
    const struct elastic_run *e = s->elastic;
    if (!e)
        return false;
    *out = (struct elastic_figures){
        .hold = e->hold,
        .held_gpu_s = e->held_gpu_s,
        .billed_gpu_s = e->billed_gpu_s,
        .interruptions = e->interruptions,
    };
    return true;
}
