/* regress_judge.c - the gate's judgement (regress_impl.h): match the suite's
 * scenarios with the baseline's entries (by key, else by the scenario's
 * name: a renamed file), and judge every gated metric by the test of
 * regress.h. */
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "regress_impl.h"

const char *rg_verdict_name(enum rg_verdict v)
{
    static const char *const names[] = {"unchanged", "better", "WORSE", "inconclusive", "defined now"};
    return names[v];
}

static void mean_var(const double *x, int n, double *mean, double *var)
{
    double m = 0, s = 0;
    for (int i = 0; i < n; i++)
        m += x[i];
    m /= n;
    for (int i = 0; i < n; i++)
        s += (x[i] - m) * (x[i] - m);
    *mean = m;
    *var = n > 1 ? s / (n - 1) : 0;
}

void rg_interval(const double *b, int nb, const double *x, int nx, double level, double *mb, double *mx,
                 double *lo, double *hi)
{
    double vb, vx;
    mean_var(b, nb, mb, &vb);
    mean_var(x, nx, mx, &vx);
    double d = *mx - *mb, eb = vb / nb, ex = vx / nx, se2 = eb + ex;
    *lo = *hi = d;
    if (!(se2 > 0))
        return; /* no seed moved it: the change is exact */
    /* Welch-Satterthwaite degrees of freedom; a side with one sample (or
     * no spread) adds no variance and no term. */
    double den = (eb > 0 ? eb * eb / (nb - 1) : 0) + (ex > 0 ? ex * ex / (nx - 1) : 0);
    double t = gsl_cdf_tdist_Pinv(1 - (1 - level) / 2, se2 * se2 / den);
    *lo = d - t * sqrt(se2);
    *hi = d + t * sqrt(se2);
}

/* Judge metric k of entry e against the now-values of s. */
static void judge_row(const struct rg_base *b, const cJSON *e, const struct rg_scen *s, int nseeds, int k,
                      double level, struct rg_row *r)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(e, "metrics"),
                                                      metric_table[k].name), *x;
    double *bv = xcalloc((size_t)b->nseeds, sizeof *bv), *nv = xcalloc((size_t)nseeds, sizeof *nv);
    int nb = 0;
    *r = (struct rg_row){.k = k, .tol = rg_base_tol(b, e, k)};
    cJSON_ArrayForEach(x, a) {
        r->base_null |= cJSON_IsNull(x);
        bv[nb++] = x->valuedouble;
    }
    for (int i = 0; i < nseeds; i++) {
        nv[i] = s->v[i][k];
        r->now_null |= !isfinite(nv[i]);
    }
    if (r->base_null || r->now_null) {
        r->base = r->base_null ? NAN : bv[0];
        r->now = r->now_null ? NAN : nv[0];
        r->change = r->lo = r->hi = NAN;
        r->verdict = r->base_null ? (r->now_null ? RG_UNCHANGED : RG_DEFINED_NOW) : RG_WORSE;
    } else {
        rg_interval(bv, nb, nv, nseeds, level, &r->base, &r->now, &r->lo, &r->hi);
        r->change = r->now - r->base;
        r->tolerance = fmax(r->tol.rel * fabs(r->base), r->tol.abs);
        /* In the good direction: positive is better. */
        double g = r->tol.better * r->change, glo = r->tol.better > 0 ? r->lo : -r->hi,
               ghi = r->tol.better > 0 ? r->hi : -r->lo;
        if (ghi < -r->tolerance)
            r->verdict = RG_WORSE;
        else if (glo > r->tolerance)
            r->verdict = RG_BETTER;
        else if (fabs(g) <= r->tolerance)
            r->verdict = RG_UNCHANGED;
        else
            r->verdict = RG_INCONCLUSIVE;
    }
    free(bv);
    free(nv);
}

static void judge_case(const struct rg_base *b, const cJSON *e, const struct rg_scen *s, int nseeds,
                       struct rg_case *c, struct rg_judgement *j)
{
    c->rows = xcalloc((size_t)metric_count, sizeof *c->rows);
    for (int k = 0; k < metric_count; k++) {
        struct rg_tol t = rg_base_tol(b, e, k);
        if (!rg_gated(&t))
            continue;
        struct rg_row *r = &c->rows[c->nrows++];
        judge_row(b, e, s, nseeds, k, j->level, r);
        switch (r->verdict) {
        case RG_WORSE: j->worse++; break;
        case RG_BETTER: j->better++; break;
        case RG_INCONCLUSIVE: j->inconclusive++; break;
        case RG_UNCHANGED:
        case RG_DEFINED_NOW: j->same++; break;
        }
    }
}

static bool in_suite(const struct rg_scen *sc, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(sc[i].key, key) == 0)
            return true;
    return false;
}

/* The baseline entry for a scenario not under its key: one not in the
 * suite, of the same name, not claimed yet.  RET: it, or NULL. */
static const cJSON *renamed(const struct rg_base *b, const struct rg_scen *sc, size_t n, const struct rg_scen *s,
                            const bool *claimed)
{
    const cJSON *e;
    int i = 0;
    cJSON_ArrayForEach(e, b->scenarios) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");
        if (!claimed[i++] && !s->skipped && strcmp(name->valuestring, s->name) == 0 && !in_suite(sc, n, e->string))
            return e;
    }
    return NULL;
}

static int index_of(const struct rg_base *b, const cJSON *want)
{
    int i = 0;
    for (const cJSON *e = b->scenarios->child; e; e = e->next, i++)
        if (e == want)
            return i;
    return -1;
}

/* The gated metrics of entry e: each is one test. */
static int tests_of(const struct rg_base *b, const cJSON *e)
{
    int m = 0;
    for (int k = 0; k < metric_count; k++) {
        struct rg_tol t = rg_base_tol(b, e, k);
        m += rg_gated(&t);
    }
    return m;
}

int rg_judge(const struct rg_base *b, const struct rg_scen *sc, size_t n, int nseeds,
             const uint64_t *seeds, bool allow_skip, struct rg_judgement *j)
{
    int nb = cJSON_GetArraySize(b->scenarios);
    bool *claimed = xcalloc((size_t)nb + 1, sizeof *claimed);
    const cJSON **entry = xcalloc(n + 1, sizeof *entry);
    *j = (struct rg_judgement){.cases = xcalloc(n + (size_t)nb, sizeof *j->cases), .seeds = seeds,
                               .nseeds = nseeds, .base_seeds = b->seeds, .base_nseeds = b->nseeds,
                               .allow_skip = allow_skip};
    for (size_t i = 0; i < n; i++) {
        const struct rg_scen *s = &sc[i];
        struct rg_case *c = &j->cases[j->ncases++];
        *c = (struct rg_case){.key = s->key, .name = s->name, .status = RG_RAN};
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(b->scenarios, s->key);
        if (!e && (e = renamed(b, sc, n, s, claimed))) {
            c->renamed_from = e->string;
            j->renamed++;
        }
        if (e)
            claimed[index_of(b, e)] = true;
        if (s->skipped) {
            c->status = RG_SKIPPED;
            c->why = s->why;
            j->skipped++;
        } else if (!e) {
            c->status = RG_NOT_IN_BASELINE;
            j->missing++;
        } else {
            entry[i] = e;
            j->tests += tests_of(b, e);
        }
    }
    /* Bonferroni: the suite's tests together keep the confidence. */
    j->level = 1 - (1 - REGRESS_CONFIDENCE) / (j->tests > 0 ? j->tests : 1);
    for (size_t i = 0; i < n; i++)
        if (entry[i])
            judge_case(b, entry[i], &sc[i], nseeds, &j->cases[i], j);
    int i = 0;
    for (const cJSON *e = b->scenarios->child; e; e = e->next, i++)
        if (!claimed[i]) {
            j->cases[j->ncases++] = (struct rg_case){
                .key = e->string, .name = cJSON_GetObjectItemCaseSensitive(e, "name")->valuestring,
                .status = RG_NOT_IN_SUITE};
            j->gone++;
        }
    free(claimed);
    free(entry);
    j->rc = j->worse || j->missing || (!allow_skip && (j->skipped || j->gone)) ? 1 : 0;
    return j->rc;
}

void rg_judgement_free(struct rg_judgement *j)
{
    for (size_t i = 0; i < j->ncases; i++)
        free(j->cases[i].rows);
    free(j->cases);
}
