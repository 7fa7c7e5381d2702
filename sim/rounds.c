/* rounds.c - Gavel's round mechanism over the engine (rounds.h). */
#include "rounds.h"

#include <stdlib.h>
#include <string.h>

#include "../sched/alloc.h"
#include "engine.h"
#include "pick.h"

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
    /* The members: jobs that arrived and have not finished, in arrival
     * order, each with its state at the same place in the arrays below (a
     * round reads them in order, not scattered over every job that ever
     * came).  The nfinished that finished since the last round are dropped
     * when the next begins. */
    size_t nactive, cap, nfinished;
    size_t *active;                  /* the job */
    int32_t *need;                   /* its GPUs */
    int32_t *chosen;                 /* slot this round, -1 none */
    bool *allocated;                 /* in the current allocation */
    double *thr, *alloc, *time, *deficit, *prio; /* per slot (row-major) */
    double worker_time[GPU_MAX_TYPES];
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
    s->rounds = r;
}

void rounds_free(struct sim *s)
{
    struct round_run *r = s->rounds;
    if (!r)
        return;
    free(r->active);
    free(r->need);
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

/* Room for n members. */
static void reserve(struct round_run *r, size_t n)
{
    if (n <= r->cap)
        return;
    size_t cap = r->cap ? 2 * r->cap : 64, cells = cap * (size_t)(r->nt ? r->nt : 1);
    r->active = xrealloc(r->active, cap * sizeof *r->active);
    r->need = xrealloc(r->need, cap * sizeof *r->need);
    r->chosen = xrealloc(r->chosen, cap * sizeof *r->chosen);
    r->allocated = xrealloc(r->allocated, cap * sizeof *r->allocated);
    r->thr = xrealloc(r->thr, cells * sizeof *r->thr);
    r->alloc = xrealloc(r->alloc, cells * sizeof *r->alloc);
    r->time = xrealloc(r->time, cells * sizeof *r->time);
    r->deficit = xrealloc(r->deficit, cells * sizeof *r->deficit);
    r->prio = xrealloc(r->prio, cells * sizeof *r->prio);
    r->cap = cap;
}

/* Member a takes the place of member b (a > b). */
static void move_member(struct round_run *r, size_t b, size_t a)
{
    size_t nt = (size_t)r->nt;
    r->active[b] = r->active[a];
    r->need[b] = r->need[a];
    r->chosen[b] = r->chosen[a];
    r->allocated[b] = r->allocated[a];
    for (size_t k = 0; k < nt; k++) { /* a few types: no memcpy call */
        r->thr[b * nt + k] = r->thr[a * nt + k];
        r->alloc[b * nt + k] = r->alloc[a * nt + k];
        r->time[b * nt + k] = r->time[a * nt + k];
        r->deficit[b * nt + k] = r->deficit[a * nt + k];
        r->prio[b * nt + k] = r->prio[a * nt + k];
    }
}

void rounds_arrived(struct sim *s, size_t i)
{
    struct round_run *r = s->rounds;
    const struct job *j = &s->jobs[i];
    reserve(r, r->nactive + 1);
    size_t a = r->nactive++;
    r->active[a] = i;
    r->need[a] = j->gpus;
    r->chosen[a] = -1;
    r->allocated[a] = false;
    for (int k = 0; k < r->nt; k++) {
        size_t c = a * r->nt + k;
        r->thr[c] = sched_fits_type(s->cl, j, r->type[k])
                        ? perf_relative(s->sc->perf, j->workload, r->type[k], j->ref_type)
                        : 0;
        r->alloc[c] = r->deficit[c] = r->prio[c] = 0;
        r->time[c] = fs_to_seconds(r->len) / 2;
    }
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
            size_t c = a * nt + k;
            double should = r->allocated[a] ? r->alloc[c] * elapsed : 0;
            r->deficit[c] += should - (r->time[c] - half);
            r->time[c] = half;
            r->worker_time[k] += half;
        }
    }
    r->last_reset = s->now;
    size_t m = r->nactive;
    int32_t *sticky = xmalloc((m ? m : 1) * sizeof *sticky);
    for (size_t a = 0; a < m; a++) {
        sticky[a] = -1;
        for (int k = 0; r->allocated[a] && k < nt; k++)
            if (r->alloc[a * nt + k] > 0)
                sticky[a] = k;
    }
    struct alloc_problem p = {.njobs = (int32_t)m, .ntypes = nt, .thr = r->thr, .scale = r->need,
                              .gpus = r->gpus, .vertex = s->sc->lp_vertex};
    if (fifo(r)) {
        /* Agnostic FIFO takes a random type with room, as Gavel's does. */
        int32_t order[GPU_MAX_TYPES];
        shuffled(r, order);
        alloc_fifo(&p, order, aware(r), aware(r) ? NULL : sticky, r->alloc);
    } else if (alloc_max_min(&p, aware(r) ? ALLOC_GAVEL_LAS : ALLOC_LAS, r->alloc, NULL)) {
        fprintf(stderr, "fleetsim: internal error: GLPK failed on the allocation LP of %zu jobs at %.0f s\n",
                m, fs_to_seconds(s->now));
        abort();
    }
    for (size_t a = 0; a < m; a++)
        r->allocated[a] = true;
    free(sticky);
    r->need_alloc = false;
}

/* Step 2 of rounds.h: member a's priority on slot k. */
static double priority(const struct round_run *r, size_t a, int k)
{
    size_t c = a * r->nt + k;
    if (!r->allocated[a] || !(r->alloc[c] > 0) || !(r->thr[c] > 0))
        return 0;
    double frac = r->worker_time[k] > 0 ? r->time[c] / r->worker_time[k] : 0;
    return frac > 0 ? r->alloc[c] / frac : r->alloc[c] * 1e9;
}

/* Steps 3 and 4 of rounds.h: which slot each active job gets. */
static void assign(struct sim *s, struct pick_entry *e, struct pick_entry *tmp)
{
    struct round_run *r = s->rounds;
    int nt = r->nt;
    int32_t order[GPU_MAX_TYPES];
    for (int k = 0; k < nt; k++)
        order[k] = k;
    if (!aware(r))
        shuffled(r, order);
    for (size_t a = 0; a < r->nactive; a++)
        r->chosen[a] = -1;
    for (int o = 0; o < nt; o++) {
        int k = order[o];
        /* Every member's priority on this type; the candidates: not chosen
         * for an earlier type, able to run on this one, and under FIFO
         * with a share of it. */
        size_t n = 0;
        for (size_t a = 0; a < r->nactive; a++) {
            size_t c = a * nt + k;
            r->prio[c] = priority(r, a, k);
            if (r->chosen[a] >= 0 || r->thr[c] <= 0 || (fifo(r) && r->prio[c] <= 0))
                continue;
            e[n++] = (struct pick_entry){r->prio[c], r->deficit[c], r->allocated[a] ? r->alloc[c] : 0,
                                         (uint32_t)a, r->need[a]};
        }
        for (size_t m = pick_in_order(e, tmp, n, r->gpus[k]); m-- > 0;)
            r->chosen[e[m].pos] = k;
    }
}

/* Member a's job, with the job PREFETCH members on already on its way into the
 * cache: a round reads the state of every member, and their records lie
 * far apart. */
enum { PREFETCH = 8 };

static const struct job *member_job(const struct sim *s, size_t a)
{
    const struct round_run *r = s->rounds;
    if (a + PREFETCH < r->nactive)
        __builtin_prefetch(&s->jobs[r->active[a + PREFETCH]].state);
    return &s->jobs[r->active[a]];
}

/* Move jobs as assigned: leavers out first, then newcomers in, larger
 * jobs first so they find whole nodes. */
static void apply(struct sim *s, struct pick_entry *e, struct pick_entry *tmp)
{
    struct round_run *r = s->rounds;
    size_t n = 0;
    for (size_t a = 0; a < r->nactive; a++) {
        const struct job *j = member_job(s, a);
        if (j->state == JOB_RUNNING && r->chosen[a] != r->slot[j->type])
            sim_evict(s, r->active[a], true); /* it is queued now; nothing else changed */
        if (j->state == JOB_QUEUED && r->chosen[a] >= 0)
            e[n++] = (struct pick_entry){.prio = r->need[a], .pos = (uint32_t)a};
    }
    pick_sort(e, tmp, n);
    for (size_t a = 0; a < n; a++) {
        size_t m = e[a].pos;
        s->sched.now = s->now;
        if (sched_place(&s->sched, &s->jobs[r->active[m]], r->type[r->chosen[m]]))
            sim_start(s, &s->jobs[r->active[m]]);
    }
}

static void run_round(struct sim *s)
{
    struct round_run *r = s->rounds;
    /* Drop the members done since the last round, and count the round
     * that ends now for those still running. */
    size_t n = 0;
    double ran = fs_to_seconds(s->now - r->start);
    for (size_t a = 0; a < r->nactive; a++) {
        const struct job *j = member_job(s, a);
        if (j->state == JOB_DONE)
            continue;
        if (n < a)
            move_member(r, n, a);
        if (j->state == JOB_RUNNING) {
            r->time[n * r->nt + r->slot[j->type]] += ran;
            r->worker_time[r->slot[j->type]] += ran;
        }
        n++;
    }
    r->nactive = n;
    r->nfinished = 0;
    r->start = s->now;
    if (!r->nactive)
        return;
    r->rounds++;
    /* Gavel resets freely while its last reset was at time 0. */
    if (r->need_alloc && (r->last_reset == 0 || s->now - r->last_reset >= r->reallocate))
        reallocate(s);
    struct pick_entry *e = xmalloc((r->nactive + r->nactive / 2 + 1) * sizeof *e), *tmp = e + r->nactive;
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
    for (size_t a = 0; r && r->slot[t] >= 0 && a < r->nactive; a++)
        if (r->active[a] == i)
            return r->prio[a * r->nt + r->slot[t]];
    return 0;
}

unsigned long rounds_count(const struct sim *s)
{
    return s->rounds ? s->rounds->rounds : 0;
}
