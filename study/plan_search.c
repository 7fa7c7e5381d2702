/* plan_search.c - the search of `fleetsim plan` (README "Capacity
 * planning"): the candidates and their order, dominance pruning, the chain
 * bisection, the stop rule and the Pareto frontier.
 *
 * Order: candidates are visited by capacity cost per month (GPUs x
 * cost_gpu_month, known without a run), then fewer GPUs, then the billing's
 * place in --billing, then the node counts type by type in --types order.
 * A candidate's cost is its simulated monthly cost (fleet_cost_compute,
 * mean over the seeds); capacity is a lower bound of it (energy, which
 * only owned fleets pay, is >= 0), so once the capacity of the next
 * candidate exceeds the best passing cost (in cents) nothing later can be
 * cheaper and the search stops.  Ties in cents go to the earlier candidate
 * in visiting order.
 *
 * Pruning: a metric has a trend as nodes are added (the trend column of reports/metric.h).  A
 * fleet that misses "wait_p95_s <= V" on some seed makes every fleet with
 * no more nodes of any type miss it too (down-closed); one that misses
 * "utilization >= V" makes every fleet with no fewer nodes miss it
 * (up-closed).  A fleet the loader refuses (a job no node can host) is
 * down-closed as well.  Such fleets are skipped without a run.
 *
 * Bisection: in cost order alone, a down-closed failure would rule out
 * only cheaper fleets, all visited already, and the search would run every
 * failing fleet cheaper than the answer.  So the cheapest unresolved fleet
 * F is resolved by bisecting the chain F, F+1, F+2, ... (one more node of
 * every type per step, each capped at --max-nodes) for the first fleet
 * that meets every down-closed SLO: a failure high on the chain rules out
 * its whole down-set at once.
 *
 * Exactness: nothing is inferred but the closures of observed failures; a
 * pass is never assumed.  Where the metrics are monotone the answer is the
 * brute force's; --brute-force counts the passing fleets that lie in the
 * closure of a failure (monotonicity_violations), where they are not.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

static const struct plan *sort_plan; /* qsort has no context argument */

static int cand_cmp(const void *a, const void *b)
{
    const struct plan_cand *x = a, *y = b;
    const struct plan *p = sort_plan;
    if (x->capacity != y->capacity)
        return x->capacity < y->capacity ? -1 : 1;
    const struct plan_fleet *fx = &p->fleets[x->fleet], *fy = &p->fleets[y->fleet];
    if (fx->gpus != fy->gpus)
        return fx->gpus < fy->gpus ? -1 : 1;
    if (x->billing != y->billing)
        return x->billing < y->billing ? -1 : 1;
    for (int t = 0; t < p->ntypes; t++)
        if (fx->n[t] != fy->n[t])
            return fx->n[t] < fy->n[t] ? -1 : 1;
    return 0;
}

int plan_setup(struct plan *p, struct fs_err *err)
{
    double size = p->nbill;
    for (int t = 0; t < p->ntypes; t++)
        size *= p->max_nodes + 1;
    if (size > PLAN_MAX_CANDIDATES)
        return fs_fail(err, FS_EUSAGE, "plan: %d types x 0..%d nodes x %d billing models is %.0f candidates; "
                       "at most %d (fewer --types or a smaller --max-nodes)", p->ntypes, p->max_nodes, p->nbill,
                       size, PLAN_MAX_CANDIDATES);
    size_t nf = (size_t)size / (size_t)p->nbill;
    p->nfleets = nf;
    p->fleets = xcalloc(nf, sizeof *p->fleets);
    p->cands = xcalloc(nf * (size_t)p->nbill, sizeof *p->cands);
    for (size_t i = 0; i < nf; i++) {
        struct plan_fleet *f = &p->fleets[i];
        size_t rest = i;
        for (int t = 0; t < p->ntypes; t++) {
            f->n[t] = (uint16_t)(rest % ((size_t)p->max_nodes + 1));
            rest /= (size_t)p->max_nodes + 1;
            f->gpus += f->n[t] * p->types[t].gpn;
            f->kw += f->n[t] * p->types[t].node_kw;
        }
        if (f->gpus == 0)
            f->state = FL_EMPTY;
        else if (p->power_kw > 0 && f->kw > p->power_kw * (1 + 1e-12))
            f->state = FL_POWER;
        bool priced = false;
        for (int b = 0; b < p->nbill; b++) {
            struct plan_cand *c = &p->cands[p->ncands++];
            *c = (struct plan_cand){.fleet = (uint32_t)i, .billing = (uint8_t)b, .fate = CF_BEYOND};
            for (int t = 0; t < p->ntypes; t++) {
                double price = p->types[t].gpu_month[p->bill[b]];
                if (f->n[t] && price < 0)
                    c->fate = CF_UNPRICED;
                else if (f->n[t])
                    c->capacity += price * f->n[t] * p->types[t].gpn;
            }
            if (f->state == FL_EMPTY)
                c->fate = CF_EMPTY;
            else if (f->state == FL_POWER)
                c->fate = CF_POWER;
            priced |= c->fate == CF_BEYOND;
        }
        if (priced) /* a brute force runs it */
            p->brute_bound += (size_t)p->nseeds;
    }
    sort_plan = p;
    qsort(p->cands, p->ncands, sizeof *p->cands, cand_cmp);
    sort_plan = NULL;
    p->cand_at = xcalloc(p->ncands + 1, sizeof *p->cand_at);
    for (size_t i = 0; i < p->ncands; i++)
        p->cand_at[(size_t)p->cands[i].fleet * (size_t)p->nbill + p->cands[i].billing] = i;
    p->chosen = -1;
    return 0;
}

static bool slo_ok(const struct plan_slo *s, double v)
{
    return s->op < 0 ? v <= s->limit : v >= s->limit;
}

/* The closure of a failure of s: +1 every fleet with fewer nodes fails
 * too, -1 every fleet with more, 0 nothing follows. */
static int closure(const struct plan_slo *s)
{
    return s->op * metric_table[s->metric].trend;
}

/* Is a <= b in every count? */
static bool below(const struct plan *p, const uint16_t *a, const uint16_t *b)
{
    for (int t = 0; t < p->ntypes; t++)
        if (a[t] > b[t])
            return false;
    return true;
}

/* Failures that imply others: down[] (fewer nodes fail too), up[]. */
struct fails {
    uint32_t *down, *up;
    size_t ndown, nup, capdown, capup;
};

/* Is f below a down-closed failure? */
static bool below_failure(const struct plan *p, const struct fails *fl, const struct plan_fleet *f)
{
    for (size_t i = 0; i < fl->ndown; i++)
        if (below(p, f->n, p->fleets[fl->down[i]].n))
            return true;
    return false;
}

static bool dominated(const struct plan *p, const struct fails *fl, const struct plan_fleet *f)
{
    if (below_failure(p, fl, f))
        return true;
    for (size_t i = 0; i < fl->nup; i++)
        if (below(p, p->fleets[fl->up[i]].n, f->n))
            return true;
    return false;
}

/* --- running ahead ------------------------------------------------------------ */

/* The fleets whose seeds one executor call runs: task i is fleet
 * id[i / nseeds] under seed i % nseeds. */
struct batch {
    const struct plan *p;
    uint32_t id[EXEC_MAX_JOBS];
    int n;
};

static int seed_task(void *ctx, size_t i, struct exec_out *out, struct fs_err *err)
{
    (void)err;
    const struct batch *b = ctx;
    const struct plan *p = b->p;
    struct plan_seedrun sr;
    plan_run_seed(p, p->fleets[b->id[i / (size_t)p->nseeds]].n, (int)(i % (size_t)p->nseeds), &sr);
    exec_put(out, &sr, sizeof sr);
    return 0; /* a seed's failure travels in sr.rc: evaluate judges it */
}

static bool in_batch(const struct batch *b, uint32_t id)
{
    for (int k = 0; k < b->n; k++)
        if (b->id[k] == id)
            return true;
    return false;
}

/* Run every seed of fleet f, and with more than one worker, ahead of the
 * search, the seeds of the next fleets in search order that it may visit
 * (new, undominated now), only until every worker has one run: the
 * search is sequential and most fleets run ahead are pruned before it
 * gets to them (four runs a worker made -j 2 slower than -j 1, bench/
 * parallel.sh's plan_search row: 0.82x, against 1.05x now); under
 * --brute-force, which visits every fleet, the seeds of all of them (up to
 * EXEC_MAX_JOBS fleets) in one call, so the workers are forked once.  A
 * fleet's runs do not depend on when they are made, so the search takes the
 * same path and counts the same simulations for any -j; runs ahead that it
 * never uses cost only time.  RET: 0 or FS_EINTERNAL (a worker died). */
static int run_ahead(struct plan *p, struct plan_fleet *f, const struct fails *fl, struct fs_err *err)
{
    static struct batch b;
    b = (struct batch){.p = p, .n = 1};
    b.id[0] = (uint32_t)(f - p->fleets);
    int want = p->jobs <= 1 ? 0 : p->brute ? INT_MAX : p->jobs;
    for (; p->ahead < p->ncands && b.n * p->nseeds < want && b.n < EXEC_MAX_JOBS; p->ahead++) {
        const struct plan_cand *c = &p->cands[p->ahead];
        struct plan_fleet *g = &p->fleets[c->fleet];
        if (c->fate == CF_BEYOND && !g->runs && g->state == FL_NEW && !in_batch(&b, c->fleet) &&
            (p->brute || !dominated(p, fl, g)))
            b.id[b.n++] = c->fleet;
    }
    size_t n = (size_t)b.n * (size_t)p->nseeds, failed;
    struct exec_out *res = xcalloc(n, sizeof *res);
    struct exec_tasks t = {.n = n, .ctx = &b, .run = seed_task};
    int rc = exec_run(&t, p->jobs, res, &failed, err);
    for (int k = 0; rc == 0 && k < b.n; k++) {
        struct plan_fleet *g = &p->fleets[b.id[k]];
        g->runs = xcalloc((size_t)p->nseeds, sizeof *g->runs);
        for (int s = 0; s < p->nseeds; s++)
            memcpy(&g->runs[s], res[(size_t)k * (size_t)p->nseeds + (size_t)s].data, sizeof g->runs[s]);
    }
    exec_results_free(res, n);
    free(res);
    return rc;
}

/* Simulate fleet f on every seed (or take the runs made ahead) and judge
 * it; record what its failure implies.  RET: 0, PLAN_INTERRUPTED, or a
 * seed's load error that is not the fleet's fault (FS_EDATA makes the
 * fleet FL_INFEASIBLE). */
static int evaluate(struct plan *p, struct plan_fleet *f, struct fails *fl, struct fs_err *err)
{
    int rc = f->runs ? 0 : run_ahead(p, f, fl, err);
    if (rc)
        return rc;
    f->r = xcalloc(1, sizeof *f->r);
    int down = 0, up = 0;
    for (int k = 0; k < p->nseeds; k++) {
        const struct plan_seedrun *sr = &f->runs[k];
        if (sr->rc == FS_EDATA) {
            f->state = FL_INFEASIBLE;
            f->why = xstrdup(sr->why);
            down = 1;
            break;
        }
        if (sr->rc && sr->rc != PLAN_INTERRUPTED)
            return fs_fail(err, sr->rc, "%s", sr->why);
        p->simulations++;
        if (sr->rc)
            return PLAN_INTERRUPTED;
        memcpy(f->r->m[k], sr->m, sizeof sr->m);
        memcpy(f->r->month[k], sr->month, sizeof sr->month);
        for (int s = 0; s < p->nslos; s++) {
            if (slo_ok(&p->slos[s], f->r->m[k][p->slos[s].metric]))
                continue;
            f->state = FL_FAIL;
            down |= closure(&p->slos[s]) > 0;
            up |= closure(&p->slos[s]) < 0;
        }
    }
    if (f->state == FL_NEW)
        f->state = FL_PASS;
    uint32_t id = (uint32_t)(f - p->fleets);
    f->down_fail = down;
    if (down) {
        xgrow(&fl->down, &fl->capdown, fl->ndown + 1, sizeof *fl->down);
        fl->down[fl->ndown++] = id;
    }
    if (up) {
        xgrow(&fl->up, &fl->capup, fl->nup + 1, sizeof *fl->up);
        fl->up[fl->nup++] = id;
    }
    if (!p->quiet) {
        char label[256];
        plan_fleet_label(p, f, label, sizeof label);
        if (f->state == FL_INFEASIBLE)
            fprintf(stderr, "  [%zu] %-44s cannot host the workload: %s\n", p->simulations, label, f->why);
        else
            fprintf(stderr, "  [%zu] %-44s p95 wait %.2f h (worst seed)  %s\n", p->simulations, label,
                    plan_metric_max(p, f, METRIC_WAIT_P95) / 3600, f->state == FL_PASS ? "meets" : "misses");
    }
    return 0;
}

static long long cents(double usd)
{
    return usd < 9e16 ? llround(usd * 100) : LLONG_MAX; /* HUGE_VAL: unpriced */
}

/* Is candidate i (passing) better than the best so far? */
static void consider(struct plan *p, size_t i)
{
    const struct plan_cand *c = &p->cands[i];
    if (p->fleets[c->fleet].state != FL_PASS)
        return;
    double cost = plan_cost(p, c, NULL, NULL);
    if (cost < 0)
        return;
    long long best = p->chosen < 0 ? 0 : cents(plan_cost(p, &p->cands[p->chosen], NULL, NULL));
    if (p->chosen < 0 || cents(cost) < best || (cents(cost) == best && (long)i < p->chosen))
        p->chosen = (long)i;
}

/* Fleet f simulated: it may hold the best candidate. */
static void consider_fleet(struct plan *p, uint32_t f)
{
    for (int b = 0; b < p->nbill; b++) {
        size_t i = p->cand_at[(size_t)f * (size_t)p->nbill + (size_t)b];
        if (p->cands[i].fate != CF_UNPRICED)
            consider(p, i);
    }
}

static long long best_cents(const struct plan *p)
{
    return p->chosen < 0 ? LLONG_MAX : cents(plan_cost(p, &p->cands[p->chosen], NULL, NULL));
}

/* The cheapest capacity of fleet f over the billing models. */
static double cheapest(const struct plan *p, uint32_t f)
{
    double lo = HUGE_VAL;
    for (int b = 0; b < p->nbill; b++) {
        const struct plan_cand *c = &p->cands[p->cand_at[(size_t)f * (size_t)p->nbill + (size_t)b]];
        if (c->fate != CF_UNPRICED)
            lo = fmin(lo, c->capacity);
    }
    return lo;
}

/* Point j of the chain up from fleet `from`: one more node of every type
 * per step, each type stopping at --max-nodes.  RET: its index. */
static uint32_t chain_at(const struct plan *p, uint32_t from, int j)
{
    size_t idx = 0, mul = 1;
    for (int t = 0; t < p->ntypes; t++) {
        int n = p->fleets[from].n[t] + j;
        idx += (size_t)(n < p->max_nodes ? n : p->max_nodes) * mul;
        mul *= (size_t)p->max_nodes + 1;
    }
    return (uint32_t)idx;
}

/* Resolve fleet `from` by bisecting the chain up from it for the first
 * fleet that meets every down-closed SLO (wait_p95_s <= V, ...; that is
 * monotone along the chain): each such failure rules out all the fleets
 * below it, so a failing probe high on the chain prunes far more than
 * `from` itself.  Only fleets within the power budget that could still
 * beat the best cost are probed; a fleet known to fail an up-closed SLO
 * (above such a failure) is not run and counts as meeting them, which
 * only makes the bisection look lower.  Nothing is inferred from a pass,
 * so the result is what simulating `from` would give.  RET: as evaluate. */
static int bisect(struct plan *p, struct fails *fl, uint32_t from, struct fs_err *err)
{
    int top = 0;
    for (int t = 0; t < p->ntypes; t++)
        top = top > p->max_nodes - p->fleets[from].n[t] ? top : p->max_nodes - p->fleets[from].n[t];
    long long best = best_cents(p);
    while (top > 0) {
        uint32_t id = chain_at(p, from, top);
        enum plan_state st = p->fleets[id].state;
        if (st != FL_POWER && st != FL_EMPTY && cents(cheapest(p, id)) <= best)
            break;
        top--;
    }
    int lo = 0, hi = top + 1; /* below lo: fail a down-closed SLO; hi: meets them */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        uint32_t id = chain_at(p, from, mid);
        struct plan_fleet *f = &p->fleets[id];
        /* A pruned fleet may lie above an up-closed failure instead. */
        bool down = f->down_fail || ((f->state == FL_NEW || f->state == FL_PRUNED) && below_failure(p, fl, f));
        if (f->state == FL_NEW && !down && !dominated(p, fl, f)) {
            int rc = evaluate(p, f, fl, err);
            if (rc)
                return rc;
            if (f->state == FL_PASS)
                consider_fleet(p, id);
            down = f->down_fail;
        }
        if (down)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

struct point {
    size_t i;
    long long cents;
};

static int point_cmp(const void *a, const void *b)
{
    const struct point *x = a, *y = b;
    if (x->cents != y->cents)
        return x->cents < y->cents ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* The simulated candidates by cost (then search order); a point is on the
 * frontier when its worst-seed p95 wait is below every cheaper point's. */
static void frontier(struct plan *p)
{
    struct point *pt = xcalloc(p->ncands + 1, sizeof *pt);
    size_t n = 0;
    for (size_t i = 0; i < p->ncands; i++) {
        const struct plan_cand *c = &p->cands[i];
        enum plan_state st = p->fleets[c->fleet].state;
        double cost = c->fate == CF_SIMULATED && (st == FL_PASS || st == FL_FAIL) ? plan_cost(p, c, NULL, NULL) : -1;
        if (cost >= 0)
            pt[n++] = (struct point){i, cents(cost)};
    }
    qsort(pt, n, sizeof *pt, point_cmp);
    p->front = xcalloc(n + 1, sizeof *p->front);
    double best = HUGE_VAL;
    for (size_t a = 0; a < n; a++) {
        double w = plan_metric_max(p, &p->fleets[p->cands[pt[a].i].fleet], METRIC_WAIT_P95);
        if (w < best) {
            best = w;
            p->front[p->nfront++] = pt[a].i;
        }
    }
    free(pt);
}

/* --brute-force: every fleet that passes the static checks, then the
 * cheapest passing candidate; count the passes a pruned search would have
 * skipped (the monotonicity it assumes, violated). */
static int search_all(struct plan *p, struct fails *fl, struct fs_err *err)
{
    for (size_t i = 0; i < p->ncands; i++) {
        struct plan_cand *c = &p->cands[i];
        struct plan_fleet *f = &p->fleets[c->fleet];
        if (c->fate != CF_BEYOND)
            continue;
        int rc = f->state == FL_NEW ? evaluate(p, f, fl, err) : 0;
        if (rc)
            return rc;
        c->fate = f->state == FL_INFEASIBLE ? CF_INFEASIBLE : CF_SIMULATED;
    }
    for (size_t i = 0; i < p->ncands; i++)
        if (p->cands[i].fate == CF_SIMULATED)
            consider(p, i);
    for (size_t i = 0; i < p->nfleets; i++)
        if (p->fleets[i].state == FL_PASS && dominated(p, fl, &p->fleets[i]))
            p->violations++;
    return 0;
}

/* Best-first by capacity cost, skipping dominated fleets, until nothing
 * left can beat the best passing candidate. */
static int search_pruned(struct plan *p, struct fails *fl, struct fs_err *err)
{
    bool chains = false; /* bisect when some failure implies the fleets below fail */
    for (int s = 0; s < p->nslos; s++)
        chains |= closure(&p->slos[s]) > 0;
    for (size_t i = 0; i < p->ncands; i++) {
        struct plan_cand *c = &p->cands[i];
        struct plan_fleet *f = &p->fleets[c->fleet];
        if (c->fate != CF_BEYOND)
            continue;
        if (p->chosen >= 0 && cents(c->capacity) > cents(plan_cost(p, &p->cands[p->chosen], NULL, NULL)))
            break;
        if (f->state == FL_NEW && dominated(p, fl, f))
            f->state = FL_PRUNED;
        int rc = f->state != FL_NEW ? 0 : chains ? bisect(p, fl, c->fleet, err) : evaluate(p, f, fl, err);
        if (rc)
            return rc;
        if (f->state == FL_NEW) /* bisect ruled it out */
            f->state = FL_PRUNED;
        c->fate = f->state == FL_PRUNED ? CF_PRUNED : f->state == FL_INFEASIBLE ? CF_INFEASIBLE : CF_SIMULATED;
        if (c->fate == CF_SIMULATED)
            consider(p, i);
    }
    /* Fleets a bisection ran beyond where the search stopped. */
    for (size_t i = 0; i < p->ncands; i++) {
        struct plan_cand *c = &p->cands[i];
        enum plan_state st = p->fleets[c->fleet].state;
        if (c->fate == CF_BEYOND && (st == FL_PASS || st == FL_FAIL || st == FL_INFEASIBLE))
            c->fate = st == FL_INFEASIBLE ? CF_INFEASIBLE : CF_SIMULATED;
    }
    return 0;
}

int plan_search(struct plan *p, struct fs_err *err)
{
    struct fails fl = {0};
    int rc = p->brute ? search_all(p, &fl, err) : search_pruned(p, &fl, err);
    free(fl.down);
    free(fl.up);
    if (rc)
        return rc;
    for (size_t i = 0; i < p->ncands; i++)
        p->fate[p->cands[i].fate]++;
    frontier(p);
    return 0;
}

