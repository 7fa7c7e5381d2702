/* faults_run.c - node failures and repairs in the engine (faults_run.h). */
#include "faults_run.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <stdlib.h>

#include "../base/rng.h"

/* After engine.c's and service_run.c's. */
enum { EV_FAIL = 4, EV_REPAIR = 5, EV_PSU_REPAIR = 6, EV_MAINT = 7 };

/* Push node n's next failure, a Weibull draw from now. */
static void next_failure(struct sim *s, int32_t n)
{
    const struct scenario *sc = s->sc;
    double rate = fault_node_rate_h(sc->faults, s->cl->nodes[n].gpus, sc->fault_scale);
    if (rate <= 0)
        return;
    double k = sc->fault_shape, eta = 1 / rate / gsl_sf_gamma(1 + 1 / k); /* mean 1/rate */
    double h = gsl_ran_weibull(s->faults->rng, eta, k);
    double us = h * 3600 * FS_USEC;
    if (us < FS_TIME_MAX / 2 && s->now + (fs_time)us <= sc->horizon)
        s->faults->next_fail[n] = evq_push(&s->q, s->now + (fs_time)us + 1, EV_FAIL, n);
}

void faults_init(struct sim *s)
{
    if (!s->sc->faults)
        return;
    s->faults = xcalloc(1, sizeof *s->faults);
    s->faults->rng = rng_stream(s->sc->seed, RNG_FAULTS);
    s->faults->down = xcalloc((size_t)(s->cl->nnodes > 0 ? s->cl->nnodes : 1), 1);
    s->faults->failed_at = xmalloc((size_t)(s->cl->nnodes > 0 ? s->cl->nnodes : 1) * sizeof (fs_time));
    s->faults->next_fail = xcalloc((size_t)(s->cl->nnodes > 0 ? s->cl->nnodes : 1), sizeof (evq_handle));
    for (int32_t n = 0; n < s->cl->nnodes; n++)
        s->faults->failed_at[n] = -1;
    s->sched.failed_at = s->faults->failed_at;
    for (int32_t n = 0; n < s->cl->nnodes; n++)
        next_failure(s, n);
    if (s->sc->maint_every > 0 && s->sc->maint_every <= s->sc->horizon)
        evq_push(&s->q, s->sc->maint_every, EV_MAINT, 0);
}

void faults_free(struct sim *s)
{
    if (!s->faults)
        return;
    gsl_rng_free(s->faults->rng);
    free(s->faults->down);
    free(s->faults->failed_at);
    free(s->faults->next_fail);
    free(s->faults);
}

/* Every job with a GPU on node n; planned (maintenance): checkpointed
 * first, as a migration. */
static void evict_node(struct sim *s, int32_t n, bool planned)
{
    *(planned ? &s->faults->planned : &s->faults->interruptions) += sim_evict_node(s, n, planned);
}

/* Out of service for `for`: its (now free) GPUs are held until then. */
static void take_down(struct sim *s, int32_t n, fs_time span)
{
    const struct node *nd = &s->cl->nodes[n];
    uint64_t all = nd->gpus == 64 ? ~0ULL : (1ULL << nd->gpus) - 1;
    cluster_take(s->cl, n, all, GPU_MILLI, 0, 0);
    s->faults->down[n] = 1;
    evq_push(&s->q, s->now + span, EV_REPAIR, n);
}

static void on_fail(struct sim *s, int32_t n)
{
    struct fault_run *f = s->faults;
    f->next_fail[n] = 0;
    const struct node *nd = &s->cl->nodes[n];
    const struct fault_cause *c = fault_pick(s->sc->faults, nd->gpus, gsl_rng_uniform(f->rng));
    f->failures++;
    f->by_cause[c - s->sc->faults->causes]++;
    f->failed_at[n] = s->now;
    if (c->psu && s->psus_ok[n] > 1) {
        /* One supply out: the node runs on the others until the repair. */
        s->psus_ok[n]--;
        sim_power_changed(s, n);
        f->psu_failures++;
        s->node_changed = n;
        sim_publish(s, SIM_NODE, NULL);
        evq_push(&s->q, s->now + c->repair, EV_PSU_REPAIR, n);
        next_failure(s, n);
        return;
    }
    evict_node(s, n, false);
    if (c->repair <= 0) {
        next_failure(s, n);
        return;
    }
    f->repair_h += fs_to_seconds(c->repair) / 3600;
    take_down(s, n, c->repair);
}

/* A rolling maintenance window: the next maint_nodes nodes, in id order,
 * drained (their jobs checkpoint and move) and out for maint_duration. */
static void on_maint(struct sim *s)
{
    struct fault_run *f = s->faults;
    f->windows++;
    for (int k = 0; k < s->sc->maint_nodes && k < s->cl->nnodes; k++) {
        int32_t n = f->maint_next;
        f->maint_next = (f->maint_next + 1) % s->cl->nnodes;
        if (f->down[n])
            continue;
        /* Its failure clock starts again when it comes back. */
        evq_cancel(&s->q, f->next_fail[n]);
        f->next_fail[n] = 0;
        evict_node(s, n, true);
        take_down(s, n, s->sc->maint_duration);
    }
    if (s->now + s->sc->maint_every <= s->sc->horizon)
        evq_push(&s->q, s->now + s->sc->maint_every, EV_MAINT, 0);
}

static void on_repair(struct sim *s, int32_t n)
{
    const struct node *nd = &s->cl->nodes[n];
    uint64_t all = nd->gpus == 64 ? ~0ULL : (1ULL << nd->gpus) - 1;
    cluster_give(s->cl, n, all, GPU_MILLI, 0, 0);
    sched_node_freed(&s->sched, n);
    s->faults->down[n] = 0;
    s->faults->repairs++;
    next_failure(s, n);
}

static void on_psu_repair(struct sim *s, int32_t n)
{
    s->psus_ok[n]++;
    sim_power_changed(s, n);
    s->faults->repairs++;
    s->node_changed = n;
    sim_publish(s, SIM_NODE, NULL);
}

bool faults_event(struct sim *s, const struct event *ev)
{
    if (ev->kind == EV_FAIL)
        on_fail(s, ev->arg);
    else if (ev->kind == EV_REPAIR)
        on_repair(s, ev->arg);
    else if (ev->kind == EV_PSU_REPAIR)
        on_psu_repair(s, ev->arg);
    else if (ev->kind == EV_MAINT)
        on_maint(s);
    else
        return false;
    return true;
}

bool sim_faults(const struct sim *s, struct fault_figures *out)
{
    const struct fault_run *f = s->faults;
    if (!f)
        return false;
    *out = (struct fault_figures){
        .failures = f->failures,
        .interruptions = f->interruptions,
        .repairs = f->repairs,
        .psu_failures = f->psu_failures,
        .windows = f->windows,
        .planned = f->planned,
        .repair_h = f->repair_h,
        .by_cause = f->by_cause,
    };
    return true;
}
