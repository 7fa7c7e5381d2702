/* alloc.c - Gavel's allocation LPs, solved with GLPK (alloc.h). */
#include "alloc.h"

#include <glpk.h>
#include <stdlib.h>
#include <string.h>

#include "../base/base.h"
#include "../models/gpu.h"

static int32_t scale_of(const struct alloc_problem *p, int32_t i)
{
    return p->scale ? p->scale[i] : 1;
}

static double weight_of(const struct alloc_problem *p, int32_t i)
{
    return p->weight ? p->weight[i] : 1;
}

/* The coefficient of x[i][j] in job i's level row: its time share
 * (agnostic) or its throughput over its equal-share throughput (aware),
 * scaled by its GPUs and divided by its weight. */
static void coefficients(const struct alloc_problem *p, enum alloc_policy pol, double *c)
{
    double n = 0;
    for (int32_t j = 0; j < p->ntypes; j++)
        n += p->gpus[j];
    for (int32_t i = 0; i < p->njobs; i++) {
        const double *thr = &p->thr[(size_t)i * p->ntypes];
        double eq = 0;
        for (int32_t j = 0; j < p->ntypes; j++)
            eq += thr[j] * p->gpus[j] / n;
        for (int32_t j = 0; j < p->ntypes; j++) {
            double v = thr[j] <= 0 ? 0 : pol == ALLOC_LAS ? 1 : thr[j] / eq;
            c[(size_t)i * p->ntypes + j] = v * scale_of(p, i) / weight_of(p, i);
        }
    }
}

/* Jobs with the same coefficients and GPUs are one class: by symmetry
 * (the LPs are convex and treat such jobs alike) some optimum gives them
 * the same allocation, and the tie-break LP's unique choice does, so the
 * LP is solved over classes - one for all of LAS's single-GPU jobs of
 * equal weight, at most one per job type for Gavel-LAS. */
struct classes {
    int m;           /* classes */
    int32_t *of;     /* per job: its class */
    int32_t *rep;    /* per class: its first job */
    int32_t *count;  /* per class: jobs */
};

static void classify(const struct alloc_problem *p, const double *c, struct classes *k)
{
    int n = p->ntypes;
    k->m = 0;
    k->of = xmalloc(((size_t)p->njobs + 1) * sizeof *k->of);
    k->rep = xmalloc(((size_t)p->njobs + 1) * sizeof *k->rep);
    k->count = xmalloc(((size_t)p->njobs + 1) * sizeof *k->count);
    for (int32_t i = 0; i < p->njobs; i++) {
        int q = 0;
        for (; q < k->m; q++) {
            int32_t r = k->rep[q];
            if (scale_of(p, r) == scale_of(p, i) &&
                memcmp(&c[(size_t)r * n], &c[(size_t)i * n], (size_t)n * sizeof *c) == 0)
                break;
        }
        if (q == k->m) {
            k->rep[k->m] = i;
            k->count[k->m++] = 0;
        }
        k->of[i] = q;
        k->count[q]++;
    }
}

/* Column and row numbers of the LP (GLPK counts from 1).  Columns: x[q][j]
 * for class q (q * ntypes + j + 1), then d[q][j] (the L1 distance to the
 * equal split), then t.  Rows: per class its level (sum_j c x - t >= 0)
 * and its time (sum_j x <= 1), per type its GPUs (each class counting its
 * jobs), then two per x for |x - e| <= d. */
struct lp {
    glp_prob *g;
    int nx, t;
    int *ia, *ja;
    double *ar;
    int nz;
};

static void put(struct lp *l, int row, int col, double v)
{
    l->nz++;
    l->ia[l->nz] = row;
    l->ja[l->nz] = col;
    l->ar[l->nz] = v;
}

static void build(struct lp *l, const struct alloc_problem *p, const double *c, const struct classes *k)
{
    int m = k->m, n = p->ntypes;
    double gpus = 0, demand = 0;
    for (int32_t j = 0; j < n; j++)
        gpus += p->gpus[j];
    for (int32_t i = 0; i < p->njobs; i++)
        demand += scale_of(p, i);
    double share = demand > gpus ? demand : gpus;
    l->nx = m * n;
    l->t = 2 * l->nx + 1;
    int rows = 2 * m + n + 2 * l->nx;
    size_t cap = (size_t)(7 * l->nx + m) + 1;
    l->ia = xmalloc(cap * sizeof *l->ia);
    l->ja = xmalloc(cap * sizeof *l->ja);
    l->ar = xmalloc(cap * sizeof *l->ar);
    l->nz = 0;
    l->g = glp_create_prob();
    glp_set_obj_dir(l->g, GLP_MAX);
    glp_add_cols(l->g, l->t);
    glp_add_rows(l->g, rows);
    glp_set_col_bnds(l->g, l->t, GLP_LO, 0, 0);
    glp_set_obj_coef(l->g, l->t, 1);
    for (int q = 0; q < m; q++) {
        const double *cq = &c[(size_t)k->rep[q] * n];
        int level = q + 1, time = m + q + 1;
        bool runs = false;
        for (int32_t j = 0; j < n; j++) {
            int col = q * n + j + 1;
            runs |= cq[j] > 0;
            glp_set_col_bnds(l->g, col, cq[j] > 0 ? GLP_DB : GLP_FX, 0, 1);
            glp_set_col_bnds(l->g, l->nx + col, GLP_LO, 0, 0);
            put(l, level, col, cq[j]);
            put(l, time, col, 1);
            put(l, 2 * m + j + 1, col, (double)k->count[q] * scale_of(p, k->rep[q]));
            /* x - d <= e and x + d >= e (free rows for a plain vertex) */
            double e = cq[j] > 0 ? p->gpus[j] / share : 0;
            int r = 2 * m + n + 2 * (col - 1) + 1;
            put(l, r, col, 1);
            put(l, r, l->nx + col, -1);
            glp_set_row_bnds(l->g, r, p->vertex ? GLP_FR : GLP_UP, 0, e);
            put(l, r + 1, col, 1);
            put(l, r + 1, l->nx + col, 1);
            glp_set_row_bnds(l->g, r + 1, p->vertex ? GLP_FR : GLP_LO, e, 0);
        }
        /* A job that can run nowhere does not hold the level down. */
        if (runs)
            put(l, level, l->t, -1);
        glp_set_row_bnds(l->g, level, GLP_LO, 0, 0);
        glp_set_row_bnds(l->g, time, GLP_UP, 0, 1);
    }
    for (int32_t j = 0; j < n; j++)
        glp_set_row_bnds(l->g, 2 * m + j + 1, GLP_UP, 0, p->gpus[j]);
    glp_load_matrix(l->g, l->nz, l->ia, l->ja, l->ar);
}

static bool solve(glp_prob *g)
{
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    return glp_simplex(g, &parm) == 0 && glp_get_status(g) == GLP_OPT;
}

int alloc_max_min(const struct alloc_problem *p, enum alloc_policy pol, double *x, double *level)
{
    size_t nx = (size_t)p->njobs * p->ntypes;
    memset(x, 0, nx * sizeof *x);
    if (level)
        *level = 0;
    if (nx == 0)
        return 0;
    double *c = xmalloc(nx * sizeof *c);
    coefficients(p, pol, c);
    struct classes k;
    classify(p, c, &k);
    struct lp l;
    build(&l, p, c, &k);
    int rc = FS_EINTERNAL;
    if (!solve(l.g))
        goto out;
    /* Stage two: hold the level, then take the optimum nearest the equal
     * split, each class's distance counted once per job (warm-started
     * from stage one's basis, which stays feasible). */
    double t = glp_get_col_prim(l.g, l.t);
    if (p->vertex)
        goto done;
    glp_set_col_bnds(l.g, l.t, GLP_LO, t * (1 - ALLOC_LEVEL_TOL), 0);
    glp_set_obj_coef(l.g, l.t, 0);
    glp_set_obj_dir(l.g, GLP_MIN);
    for (int col = 1; col <= l.nx; col++)
        glp_set_obj_coef(l.g, l.nx + col, k.count[(col - 1) / p->ntypes]);
    if (!solve(l.g))
        goto out;
done:
    for (int32_t i = 0; i < p->njobs; i++)
        for (int32_t j = 0; j < p->ntypes; j++) {
            double v = glp_get_col_prim(l.g, k.of[i] * p->ntypes + j + 1);
            x[(size_t)i * p->ntypes + j] = v < 0 ? 0 : v > 1 ? 1 : v;
        }
    if (level)
        *level = t;
    rc = 0;
out:
    glp_delete_prob(l.g);
    free(l.ia);
    free(l.ja);
    free(l.ar);
    free(k.of);
    free(k.rep);
    free(k.count);
    free(c);
    return rc;
}

void alloc_fifo(const struct alloc_problem *p, const int32_t *order, bool fastest,
                const int32_t *sticky, double *x)
{
    int32_t n = p->ntypes, left[GPU_MAX_TYPES];
    memset(x, 0, (size_t)p->njobs * n * sizeof *x);
    for (int32_t j = 0; j < n; j++)
        left[j] = p->gpus[j];
    bool *placed = xcalloc((size_t)p->njobs + 1, sizeof *placed);
    for (int32_t i = 0; sticky && i < p->njobs; i++)
        if (sticky[i] >= 0 && left[sticky[i]] >= scale_of(p, i)) {
            x[(size_t)i * n + sticky[i]] = 1;
            left[sticky[i]] -= scale_of(p, i);
            placed[i] = true;
        }
    for (int32_t i = 0; i < p->njobs; i++) {
        if (placed[i])
            continue;
        const double *thr = &p->thr[(size_t)i * n];
        int32_t best = -1;
        for (int32_t k = 0; k < n; k++) {
            int32_t j = order[k];
            if (thr[j] <= 0 || left[j] < scale_of(p, i))
                continue;
            if (best < 0 || (fastest && thr[j] > thr[best]))
                best = j;
            if (!fastest)
                break;
        }
        if (best < 0)
            break; /* strict arrival order: nobody behind it starts */
        x[(size_t)i * n + best] = 1;
        left[best] -= scale_of(p, i);
    }
    free(placed);
}
