/* roadmap_sim.c - the simulations of `fleetsim roadmap` (roadmap.h): each
 * path-month's scenario, its fleets run through the executor on every
 * seed, and their judgement against the SLOs, kept in r->ev for the
 * search (roadmap.c) and the writers. */
#include <stdlib.h>
#include <string.h>

#include "../run/run.h"
#include "roadmap.h"

/* Is path k judged? */
static bool judged(const struct roadmap *r, int k)
{
    return r->only < 0 || r->only == k;
}

/* Path-month pm's plan: the base with its tree and demand. */
static void month_plan(const struct roadmap *r, size_t pm, struct plan *q)
{
    *q = r->p;
    q->tree = r->trees[pm];
    q->growth = q->trace ? r->pdemand[pm / (size_t)r->months][pm % (size_t)r->months] : 1;
}

/* Cells (month x nstates + fleet) whose seeds one executor call runs. */
struct batch {
    const struct roadmap *r;
    const size_t *cell;
};

static int seed_task(void *ctx, size_t i, struct exec_out *out, struct fs_err *err)
{
    (void)err;
    const struct batch *b = ctx;
    const struct roadmap *r = b->r;
    size_t cell = b->cell[i / (size_t)r->p.nseeds];
    struct plan q;
    month_plan(r, cell / r->nstates, &q);
    uint16_t n[PLAN_MAX_TYPES];
    rm_counts(r, cell % r->nstates, n);
    struct plan_seedrun sr;
    plan_run_seed(&q, n, (int)(i % (size_t)r->p.nseeds), &sr);
    exec_put(out, &sr, sizeof sr);
    return 0;
}

static bool slo_ok(const struct plan_slo *s, double v)
{
    return s->op < 0 ? v <= s->limit : v >= s->limit;
}

/* Judge one cell from its seeds' runs.  RET: 0, PLAN_INTERRUPTED or a
 * load error that is not the fleet's fault. */
static int judge(struct roadmap *r, size_t cell, const struct plan_seedrun *runs, struct fs_err *err)
{
    const struct plan *p = &r->p;
    struct rm_eval *e = &r->ev[cell];
    uint16_t n[PLAN_MAX_TYPES];
    rm_counts(r, cell % r->nstates, n);
    e->m = xcalloc((size_t)p->nseeds * METRIC_MAX, sizeof *e->m);
    e->state = RS_PASS;
    double owned = 0;
    for (int t = 0; t < p->ntypes; t++)
        owned += n[t] * (p->types[t].gpu_month[COST_OWNED] < 0 ? 0 : p->types[t].gpu_month[COST_OWNED] * p->types[t].gpn);
    for (int k = 0; k < p->nseeds; k++) {
        const struct plan_seedrun *sr = &runs[k];
        if (sr->rc == FS_EDATA) {
            e->state = RS_INFEASIBLE;
            e->down = true;
            return 0;
        }
        if (sr->rc && sr->rc != PLAN_INTERRUPTED)
            return fs_fail(err, sr->rc, "%s", sr->why);
        r->simulations++;
        if (sr->rc)
            return PLAN_INTERRUPTED;
        memcpy(e->m + (size_t)k * METRIC_MAX, sr->m, sizeof sr->m);
        e->energy += sr->month[COST_OWNED] < 0 ? 0 : (sr->month[COST_OWNED] - owned) / p->nseeds;
        for (int s = 0; s < p->nslos; s++) {
            const struct plan_slo *slo = &p->slos[s];
            if (slo_ok(slo, sr->m[slo->metric]))
                continue;
            e->state = RS_FAIL;
            int closure = slo->op * metric_table[slo->metric].trend;
            e->down |= closure > 0;
            e->up |= closure < 0;
        }
    }
    if (e->energy < 0) /* rounding of a fleet that drew nothing */
        e->energy = 0;
    return 0;
}

int rm_simulate(struct roadmap *r, const size_t *cells, size_t n, struct fs_err *err)
{
    size_t tasks = n * (size_t)r->p.nseeds, failed;
    struct batch b = {r, cells};
    struct exec_out *res = xcalloc(tasks + 1, sizeof *res);
    struct exec_tasks t = {.n = tasks, .ctx = &b, .run = seed_task};
    int rc = exec_run(&t, r->p.jobs, res, &failed, err);
    struct plan_seedrun *runs = xcalloc((size_t)r->p.nseeds, sizeof *runs);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        for (int k = 0; k < r->p.nseeds; k++)
            memcpy(&runs[k], res[i * (size_t)r->p.nseeds + (size_t)k].data, sizeof runs[k]);
        rc = judge(r, cells[i], runs, err);
    }
    free(runs);
    exec_results_free(res, tasks);
    free(res);
    return rc;
}

bool rm_implied(const struct roadmap *r, size_t pm, const uint16_t *n)
{
    const struct rm_eval *e = &r->ev[pm * r->nstates];
    uint16_t g[PLAN_MAX_TYPES];
    for (size_t i = 1; i < r->nstates; i++) {
        if (e[i].state != RS_FAIL && e[i].state != RS_INFEASIBLE)
            continue;
        rm_counts(r, i, g);
        if ((e[i].down && rm_below(r, n, g)) || (e[i].up && rm_below(r, g, n)))
            return true;
    }
    return false;
}

int rm_passes(struct roadmap *r, int m, size_t f, bool *ok, struct fs_err *err)
{
    size_t run[RM_MAX_PATHS], n = 0;
    uint16_t c[PLAN_MAX_TYPES];
    rm_counts(r, f, c);
    for (int k = 0; k < r->npaths; k++) {
        size_t cell = rm_cell(r, k, m, f);
        struct rm_eval *e = &r->ev[cell];
        if (!judged(r, k) || e->state != RS_NEW)
            continue;
        if (rm_implied(r, cell / r->nstates, c)) {
            e->state = RS_PRUNED;
            r->pruned++;
        } else {
            run[n++] = cell;
        }
    }
    int rc = n ? rm_simulate(r, run, n, err) : 0;
    *ok = true;
    for (int k = 0; k < r->npaths; k++)
        if (judged(r, k))
            *ok &= r->ev[rm_cell(r, k, m, f)].state == RS_PASS;
    return rc;
}

double rm_energy(const struct roadmap *r, int m, size_t f)
{
    double v = 0;
    int n = 0;
    for (int k = 0; k < r->npaths; k++)
        if (judged(r, k)) {
            v += r->ev[rm_cell(r, k, m, f)].energy;
            n++;
        }
    return v / n;
}
