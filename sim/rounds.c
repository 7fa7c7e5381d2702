/* rounds.c - Gavel's round mechanism over the engine (rounds.h). */
#include "rounds.h"

#include <stdlib.h>
#include <string.h>

#include "../sched/alloc.h"
#include "engine.h"

enum { EV_ROUND = 11 }; /* after elastic.c's kinds */

struct round_run {
    enum sched_rounds kind;
    fs_time len, reallocate;
    int nt;                          /* GPU types in the fleet */
    int32_t type[GPU_MAX_TYPES];     /* slot -> catalog index, fastest first */
    int32_t gpus[GPU_MAX_TYPES];     /* slot -> GPUs */
    int slot[GPU_MAX_TYPES];         /* catalog index -> slot, -1 if absent */
    evq_handle next;                 /* the pending round, 0 when none */
    fs_time start, last_reset;
    bool need_alloc;
    unsigned long rounds;
    uint64_t rng;                    /* type shuffles (agnostic policies) */
    /* Arrived and not finished, in arrival order; the nfinished that
     * finished since the last round are dropped when the next begins. */
    size_t *active, nactive, cap, nfinished;
    /* Per job index, per slot (row-major). */
    double *thr, *alloc, *time, *deficit, *prio;
    bool *allocated;                 /* per job: in the current allocation */
    int32_t *chosen;                 /* per job: slot this round, -1 none */
    double worker_time[GPU_MAX_TYPES];
};

/* One (job, type) candidate of a round. */
struct entry {
    double prio, deficit, alloc;
    size_t pos;                      /* in the active list */
};

static bool aware(const struct round_run *r)
{
    return r->kind == SCHED_ROUNDS_GAVEL_LAS || r->kind == SCHED_ROUNDS_GAVEL_FIFO;
}

static bool fifo(const struct round_run *r)
{
    return r->kind == SCHED_ROUNDS_FIFO || r->kind == SCHED_ROUNDS_GAVEL_FIFO;
}

/* Fastest first: dense 16-bit tensor TFLOPS, ties by catalog order. */
static void order_types(struct round_run *r, const struct gpu_catalog *cat)
{
    for (int a = 1; a < r->nt; a++)
        for (int b = a; b > 0 && cat->types[r->type[b]].bf16_tflops > cat->types[r->type[b - 1]].bf16_tflops;
             b--) {
            int32_t t = r->type[b];
            r->type[b] = r->type[b - 1];
            r->type[b - 1] = t;
            t = r->gpus[b];
            r->gpus[b] = r->gpus[b - 1];
            r->gpus[b - 1] = t;
        }
    for (int t = 0; t < GPU_MAX_TYPES; t++)
        r->slot[t] = -1;
    for (int k = 0; k < r->nt; k++)
        r->slot[r->type[k]] = k;
}

void rounds_init(struct sim *s)
{
    const struct scenario *sc = s->sc;
    if (!sc->policy->rounds)
        return;
    struct round_run *r = xcalloc(1, sizeof *r);
    r->kind = (enum sched_rounds)sc->policy->rounds;
    r->len = sc->round;
    r->reallocate = sc->reallocate;
    r->rng = sc->seed ^ 0x726f756e64735eULL;
    for (int t = 0; t < s->cl->cat->n; t++)
        if (s->cl->types[t].gpus > 0) {
            r->type[r->nt] = t;
            r->gpus[r->nt++] = (int32_t)s->cl->types[t].gpus;
        }
    order_types(r, s->cl->cat);
    size_t cells = (s->njobs ? s->njobs : 1) * (size_t)r->nt;
    r->thr = xcalloc(cells, sizeof *r->thr);
    r->alloc = xcalloc(cells, sizeof *r->alloc);
    r->time = xcalloc(cells, sizeof *r->time);
    r->deficit = xcalloc(cells, sizeof *r->deficit);
    r->prio = xcalloc(cells, sizeof *r->prio);
    r->allocated = xcalloc(s->njobs + 1, sizeof *r->allocated);
    r->chosen = xcalloc(s->njobs + 1, sizeof *r->chosen);
    for (size_t i = 0; i < s->njobs; i++) {
        const struct job *j = &s->jobs[i];
        for (int k = 0; k < r->nt; k++)
            if (sched_fits_type(s->cl, j, r->type[k]))
                r->thr[i * r->nt + k] = perf_relative(sc->perf, j->workload, r->type[k], j->ref_type);
    }
    s->rounds = r;
}

void rounds_free(struct sim *s)
{
    struct round_run *r = s->rounds;
    if (!r)
        return;
    free(r->active);
    free(r->thr);
    free(r->alloc);
    free(r->time);
    free(r->deficit);
    free(r->prio);
    free(r->allocated);
    free(r->chosen);
    free(r);
    s->rounds = NULL;
}

static void schedule_round(struct sim *s, fs_time at)
{
    struct round_run *r = s->rounds;
    evq_cancel(&s->q, r->next);
    r->next = evq_push(&s->q, at, EV_ROUND, 0);
}

void rounds_arrived(struct sim *s, size_t i)
{
    struct round_run *r = s->rounds;
    xgrow(&r->active, &r->cap, r->nactive + 1, sizeof *r->active);
    r->active[r->nactive++] = i;
    for (int k = 0; k < r->nt; k++)
        r->time[i * r->nt + k] = fs_to_seconds(r->len) / 2;
    r->need_alloc = true;
    if (!r->next) /* an idle cluster starts a round now */
        schedule_round(s, s->now);
}

void rounds_finished(struct sim *s, size_t i)
{
    struct round_run *r = s->rounds;
    r->worker_time[r->slot[s->jobs[i].type]] += fs_to_seconds(s->now - r->start);
    r->nfinished++; /* it stays in active, done, until the next round */
    r->need_alloc = true;
    /* The round ends when its last job does. */
    if (s->nrunning == 0 && r->next) {
        evq_cancel(&s->q, r->next);
        r->next = 0;
        if (r->nactive > r->nfinished)
            schedule_round(s, s->now);
    }
}

/* The slots in an order shuffled from the run's stream (Fisher-Yates). */
static void shuffled(struct round_run *r, int32_t *order)
{
    for (int k = 0; k < r->nt; k++)
        order[k] = k;
    for (int k = r->nt - 1; k > 0; k--) {
        int o = (int)(sched_splitmix64(&r->rng) % (uint64_t)(k + 1));
        int32_t t = order[k];
        order[k] = order[o];
        order[o] = t;
    }
}

/* Settle the deficits against the old allocation and restart the time
 * counts (Gavel's _reset_time_run_so_far), then solve the new one. */
static void reallocate(struct sim *s)
{
    struct round_run *r = s->rounds;
    double half = fs_to_seconds(r->len) / 2, elapsed = fs_to_seconds(s->now - r->last_reset);
    int nt = r->nt;
    for (int k = 0; k < nt; k++) {
        r->worker_time[k] = 0;
        for (size_t a = 0; a < r->nactive; a++) {
            size_t c = r->active[a] * nt + k;
            double should = r->allocated[r->active[a]] ? r->alloc[c] * elapsed : 0;
            r->deficit[c] += should - (r->time[c] - half);
            r->time[c] = half;
            r->worker_time[k] += half;
        }
    }
    r->last_reset = s->now;
    size_t m = r->nactive;
    double *thr = xmalloc((m ? m : 1) * nt * sizeof *thr), *x = xmalloc((m ? m : 1) * nt * sizeof *x);
    int32_t *scale = xmalloc((m ? m : 1) * sizeof *scale), *sticky = xmalloc((m ? m : 1) * sizeof *sticky);
    for (size_t a = 0; a < m; a++) {
        size_t i = r->active[a];
        memcpy(&thr[a * nt], &r->thr[i * nt], nt * sizeof *thr);
        scale[a] = s->jobs[i].gpus;
        sticky[a] = -1;
        for (int k = 0; r->allocated[i] && k < nt; k++)
            if (r->alloc[i * nt + k] > 0)
                sticky[a] = k;
    }
    struct alloc_problem p = {.njobs = (int32_t)m, .ntypes = nt, .thr = thr, .scale = scale, .gpus = r->gpus,
                              .vertex = s->sc->lp_vertex};
    if (fifo(r)) {
        /* Agnostic FIFO takes a random type with room, as Gavel's does. */
        int32_t order[GPU_MAX_TYPES];
        shuffled(r, order);
        alloc_fifo(&p, order, aware(r), aware(r) ? NULL : sticky, x);
    } else if (alloc_max_min(&p, aware(r) ? ALLOC_GAVEL_LAS : ALLOC_LAS, x, NULL)) {
        fprintf(stderr, "fleetsim: internal error: GLPK failed on the allocation LP of %zu jobs at %.0f s\n",
                m, fs_to_seconds(s->now));
        abort();
    }
    for (size_t a = 0; a < m; a++) {
        memcpy(&r->alloc[r->active[a] * nt], &x[a * nt], nt * sizeof *x);
        r->allocated[r->active[a]] = true;
    }
    free(thr);
    free(x);
    free(scale);
    free(sticky);
    r->need_alloc = false;
}

static void update_priorities(struct round_run *r)
{
    for (size_t a = 0; a < r->nactive; a++) {
        size_t i = r->active[a];
        for (int k = 0; k < r->nt; k++) {
            size_t c = i * r->nt + k;
            double v = 0;
            if (r->allocated[i] && r->alloc[c] > 0 && r->thr[c] > 0) {
                double frac = r->worker_time[k] > 0 ? r->time[c] / r->worker_time[k] : 0;
                v = frac > 0 ? r->alloc[c] / frac : r->alloc[c] * 1e9;
            }
            r->prio[c] = v;
        }
    }
}

/* The candidates' order: priority, deficit, allocation (each highest
 * first), then the place in the active list: a total order. */
static bool entry_before(const struct entry *a, const struct entry *b)
{
    if (a->prio != b->prio)
        return a->prio > b->prio;
    if (a->deficit != b->deficit)
        return a->deficit > b->deficit;
    if (a->alloc != b->alloc)
        return a->alloc > b->alloc;
    return a->pos < b->pos;
}

/* Sort e[0..n) by entry_before, through tmp (room for n / 2 + 1): a merge
 * sort with the comparison inlined (qsort's calls through a pointer were
 * a fifth of a deep queue's rounds).  The order is total, so any correct
 * sort gives the same result. */
static void sort_entries(struct entry *e, struct entry *tmp, size_t n)
{
    if (n <= 16) {
        for (size_t a = 1; a < n; a++) {
            struct entry x = e[a];
            size_t b = a;
            for (; b > 0 && entry_before(&x, &e[b - 1]); b--)
                e[b] = e[b - 1];
            e[b] = x;
        }
        return;
    }
    size_t h = n / 2;
    sort_entries(e, tmp, h);
    sort_entries(e + h, tmp, n - h);
    if (!entry_before(&e[h], &e[h - 1]))
        return; /* already in order */
    memcpy(tmp, e, h * sizeof *e);
    size_t a = 0, b = h, k = 0;
    while (a < h && b < n)
        e[k++] = entry_before(&e[b], &tmp[a]) ? e[b++] : tmp[a++];
    while (a < h)
        e[k++] = tmp[a++];
}

/* Steps 3 and 4 of rounds.h: which slot each active job gets. */
static void assign(struct sim *s, struct entry *e, struct entry *tmp)
{
    struct round_run *r = s->rounds;
    int nt = r->nt;
    int32_t left[GPU_MAX_TYPES], order[GPU_MAX_TYPES];
    for (int k = 0; k < nt; k++) {
        order[k] = k;
        left[k] = r->gpus[k];
    }
    if (!aware(r))
        shuffled(r, order);
    for (size_t a = 0; a < r->nactive; a++)
        r->chosen[r->active[a]] = -1;
    for (int o = 0; o < nt; o++) {
        int k = order[o];
        /* The candidates: not chosen for an earlier type, able to run on
         * this one, and under FIFO with a share of it.  Those with a
         * priority come first (priorities are >= 0, the order puts the
         * highest first): they are sorted and taken before the rest, which
         * is sorted only when the type still has room after them. */
        size_t n = 0, top = 0;
        for (size_t a = 0; a < r->nactive; a++) {
            size_t c = r->active[a] * nt + k;
            if (r->chosen[r->active[a]] >= 0 || r->thr[c] <= 0 || (fifo(r) && r->prio[c] <= 0))
                continue;
            e[n] = (struct entry){r->prio[c], r->deficit[c], r->allocated[r->active[a]] ? r->alloc[c] : 0, a};
            if (e[n].prio > 0) {
                struct entry x = e[top];
                e[top++] = e[n];
                e[n] = x;
            }
            n++;
        }
        sort_entries(e, tmp, top);
        for (size_t a = 0; a < n && left[k] > 0; a++) {
            if (a == top)
                sort_entries(e + top, tmp, n - top);
            size_t i = r->active[e[a].pos];
            if (s->jobs[i].gpus > left[k])
                continue;
            left[k] -= s->jobs[i].gpus;
            r->chosen[i] = k;
        }
    }
}

/* Move jobs as assigned: leavers out first, then newcomers in, larger
 * jobs first so they find whole nodes. */
static void apply(struct sim *s, struct entry *e, struct entry *tmp)
{
    struct round_run *r = s->rounds;
    for (size_t a = 0; a < r->nactive; a++) {
        size_t i = r->active[a];
        struct job *j = &s->jobs[i];
        if (j->state == JOB_RUNNING && r->chosen[i] != r->slot[j->type])
            sim_evict(s, i, true);
    }
    size_t n = 0;
    for (size_t a = 0; a < r->nactive; a++) {
        const struct job *j = &s->jobs[r->active[a]];
        if (j->state == JOB_QUEUED && r->chosen[r->active[a]] >= 0)
            e[n++] = (struct entry){.prio = j->gpus, .pos = a};
    }
    sort_entries(e, tmp, n);
    for (size_t a = 0; a < n; a++) {
        struct job *j = &s->jobs[r->active[e[a].pos]];
        s->sched.now = s->now;
        if (sched_place(&s->sched, j, r->type[r->chosen[r->active[e[a].pos]]]))
            sim_start(s, j);
    }
}

static void run_round(struct sim *s)
{
    struct round_run *r = s->rounds;
    if (r->nfinished) { /* drop the jobs done since the last round */
        size_t n = 0;
        for (size_t a = 0; a < r->nactive; a++)
            if (s->jobs[r->active[a]].state != JOB_DONE)
                r->active[n++] = r->active[a];
        r->nactive = n;
        r->nfinished = 0;
    }
    /* Count the round that ends now for the jobs still running. */
    for (size_t a = 0; a < r->nactive; a++) {
        const struct job *j = &s->jobs[r->active[a]];
        if (j->state == JOB_RUNNING) {
            double ran = fs_to_seconds(s->now - r->start);
            r->time[r->active[a] * r->nt + r->slot[j->type]] += ran;
            r->worker_time[r->slot[j->type]] += ran;
        }
    }
    r->start = s->now;
    if (!r->nactive)
        return;
    r->rounds++;
    /* Gavel resets freely while its last reset was at time 0. */
    if (r->need_alloc && (r->last_reset == 0 || s->now - r->last_reset >= r->reallocate))
        reallocate(s);
    update_priorities(r);
    struct entry *e = xmalloc((r->nactive + r->nactive / 2 + 1) * sizeof *e), *tmp = e + r->nactive;
    assign(s, e, tmp);
    apply(s, e, tmp);
    free(e);
    schedule_round(s, s->now + r->len);
}

bool rounds_event(struct sim *s, const struct event *ev)
{
    if (!s->rounds || ev->kind != EV_ROUND)
        return false;
    s->rounds->next = 0;
    run_round(s);
    return true;
}

double rounds_priority(const struct sim *s, size_t i, int t)
{
    const struct round_run *r = s->rounds;
    return r && r->slot[t] >= 0 ? r->prio[i * r->nt + r->slot[t]] : 0;
}

unsigned long rounds_count(const struct sim *s)
{
    return s->rounds ? s->rounds->rounds : 0;
}
