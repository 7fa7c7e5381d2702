/* check.c - the invariant checker (see check.h). */
#include "check.h"

#include <stdarg.h>
#include <stdio.h>

static void violated(struct check *c, const struct sim *s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void violated(struct check *c, const struct sim *s, const char *fmt, ...)
{
    if (c->violations++ == 0) {
        char what[200];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        char now[FS_SECONDS_LEN];
        fs_seconds_str(now, s->now);
        snprintf(c->first, sizeof c->first, "at t = %s s: %s", now, what);
    }
}

static void cluster_ok(struct check *c, const struct sim *s)
{
    const struct cluster *cl = s->cl;
    int64_t alloc = 0;
    for (int32_t n = 0; n < cl->nnodes; n++) {
        const struct node *nd = &cl->nodes[n];
        if (nd->free < 0 || nd->free > nd->gpus)
            violated(c, s, "node %d has %d fully free GPUs of %d", n, nd->free, nd->gpus);
        for (int g = 0; g < nd->gpus; g++) {
            int32_t milli = cl->milli[nd->gpu0 + g];
            if (milli < 0 || milli > GPU_MILLI)
                violated(c, s, "node %d GPU %d has a free share of %d", n, g, milli);
        }
        alloc += nd->gpus - nd->free;
    }
    if (alloc != cl->allocated)
        violated(c, s, "the cluster counts %lld GPUs allocated, its nodes %lld", (long long)cl->allocated,
                 (long long)alloc);
}

static void states_ok(struct check *c, const struct sim *s)
{
    size_t counts[JOB_DONE + 1] = {0};
    for (size_t i = 0; i < s->njobs; i++) {
        if (s->jobs[i].state > JOB_DONE) {
            violated(c, s, "job %lld is in state %d", (long long)s->jobs[i].id, s->jobs[i].state);
            return;
        }
        counts[s->jobs[i].state]++;
    }
    if (counts[JOB_QUEUED] != s->nqueued || counts[JOB_RUNNING] != s->nrunning ||
        counts[JOB_DONE] != s->ndone)
        violated(c, s, "jobs queued/running/done %zu/%zu/%zu, engine counters %zu/%zu/%zu",
                 counts[JOB_QUEUED], counts[JOB_RUNNING], counts[JOB_DONE], s->nqueued, s->nrunning,
                 s->ndone);
}

static void end_ok(struct check *c, const struct sim *s)
{
    const struct metrics *m = c->m;
    metrics_wide integral = 0, by_jobs = 0;
    for (int t = 0; t < s->sc->cat->n; t++)
        integral += m->alloc_us[t];
    for (size_t i = 0; i < s->njobs; i++)
        by_jobs += (metrics_wide)metrics_job_milli(&s->jobs[i]) * job_ran(&s->jobs[i], s->end);
    if (integral != by_jobs)
        violated(c, s, "allocated GPU time %.6g GPU-h, the jobs ran %.6g", (double)integral / 3.6e12,
                 (double)by_jobs / 3.6e12);
    const struct energy *e = &m->en;
    if (!(e->gpu_j <= e->dc_j * (1 + 1e-12) && e->dc_j <= e->wall_j * (1 + 1e-12)))
        violated(c, s, "energy out of order: GPU %.6g, node DC %.6g, wall %.6g J", e->gpu_j, e->dc_j,
                 e->wall_j);
}

static void notify(void *ctx, struct sim *s, enum sim_note note, const struct job *j)
{
    struct check *c = ctx;
    (void)j;
    c->notes++;
    if (s->now < c->last) {
        char last[FS_SECONDS_LEN];
        fs_seconds_str(last, c->last);
        violated(c, s, "the clock went back from %s s", last);
    }
    c->last = s->now;
    cluster_ok(c, s);
    states_ok(c, s);
    if (note == SIM_END && c->m)
        end_ok(c, s);
}

struct sim_observer check_observer(struct check *c)
{
    return (struct sim_observer){.ctx = c, .notify = notify};
}
