/* compare_run.c - the runs of a comparison, each priced every way, on the
 * executor (compare_run.h).  A run's result travels as its compare
 * entry's bytes followed by its sorted waits. */
#include "compare_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/json.h"

/* The scenario (tree, named path) run again with $.cost.billing set to
 * billing: commitments dropped, and the elastic terms unless the billing
 * is elastic or spot. */
static int run_as(const cJSON *tree, const char *path, const struct scenario_options *so,
                  const char *billing, struct run_result *r, struct fs_err *err)
{
    cJSON *t = cJSON_Duplicate(tree, 1), *cost = cJSON_GetObjectItemCaseSensitive(t, "cost");
    if (!cJSON_IsObject(cost)) {
        cJSON_DeleteItemFromObjectCaseSensitive(t, "cost");
        cost = cJSON_AddObjectToObject(t, "cost");
    }
    cJSON_DeleteItemFromObjectCaseSensitive(cost, "billing");
    cJSON_DeleteItemFromObjectCaseSensitive(cost, "commit");
    if (strncmp(billing, "cloud_", 6) != 0)
        cJSON_DeleteItemFromObjectCaseSensitive(cost, "elastic");
    cJSON_AddStringToObject(cost, "billing", billing);
    int rc = run_scenario(&(struct run_spec){.tree = t, .path = path, .so = *so}, r, err);
    cJSON_Delete(t);
    return rc;
}

/* e's work under every billing (reports/billing.h): the fixed lines from
 * r when it held its fleet all the time, else from a run that does; the
 * elastic and spot lines from r or runs as an elastic pool. */
static int price_all(const cJSON *tree, const char *path, const struct scenario_options *so,
                     const struct run_result *r, struct compare_entry *e, struct fs_err *err)
{
    static const char *const as[] = {[BILL_OWNED] = "owned", [BILL_ELASTIC] = "cloud_elastic",
                                     [BILL_SPOT] = "cloud_spot"};
    static const enum bill_line need[] = {BILL_OWNED, BILL_ELASTIC, BILL_SPOT};
    struct billing *b = &e->bill;
    billing_init(b);
    e->own = bill_own_line(r->sc);
    bool fixed = r->sc->cost.hold == COST_HOLD_FIXED, faults = r->sc->faults || r->sc->maint_every > 0;
    for (size_t k = 0; k < sizeof need / sizeof *need; k++) {
        enum bill_line l = need[k];
        const struct run_result *from = r;
        struct run_result v = {0};
        if (l == BILL_OWNED ? !fixed : (l != e->own)) {
            if (l != BILL_OWNED && faults) {
                billing_missing(b, l, "not simulated: the scenario has node faults, which elastic fleets "
                                      "are run without");
                continue;
            }
            int rc = run_as(tree, path, so, as[l], &v, err);
            if (rc)
                return rc;
            from = &v;
        }
        if (l == BILL_OWNED)
            billing_fixed(b, from);
        else
            billing_elastic(b, from);
        run_result_free(&v);
    }
    billing_break_evens(b);
    return 0;
}

/* Run the scenario at path with so into e (zeroed first), priced also
 * under the baseline's billing (bb, bc) and under every billing model, and
 * named by so->policy or the scenario's name.  RET: 0 or an FS_E* code. */
static int run_entry(const char *path, const struct scenario_options *so, enum cost_billing bb,
                     enum cost_commit bc, struct compare_entry *e, struct fs_err *err)
{
    struct run_result r = {0};
    cJSON *tree = NULL;
    int rc = scenario_read(path, so, &tree, err);
    if (rc == 0)
        rc = run_scenario(&(struct run_spec){.tree = tree, .path = path, .so = *so}, &r, err);
    if (rc == 0) {
        compare_entry_fill(e, &r, bb, bc);
        snprintf(e->name, sizeof e->name, "%s", so->policy ? so->policy : r.sc->name);
        rc = price_all(tree, path, so, &r, e, err);
    }
    run_result_free(&r);
    cJSON_Delete(tree);
    return rc;
}

struct ctx {
    const struct compare_runs *c;
    enum cost_billing bb;           /* the baseline's billing */
    enum cost_commit bc;
};

/* Run i (an executor task): its entry's bytes, then its sorted waits. */
static int run_one(void *vctx, size_t i, struct exec_out *out, struct fs_err *err)
{
    const struct ctx *x = vctx;
    struct scenario_options so = x->c->so;
    so.policy = x->c->policies[i];
    static struct compare_entry e; /* large; one task at a time per process */
    memset(&e, 0, sizeof e);
    int rc = run_entry(x->c->paths[i], &so, x->bb, x->bc, &e, err);
    if (rc == 0) {
        double *waits = e.waits;
        e.waits = NULL; /* the bytes carry no pointer */
        exec_put(out, &e, sizeof e);
        exec_put(out, waits, e.nwaits * sizeof *waits);
        e.waits = waits;
    }
    compare_entry_free(&e);
    return rc;
}

/* The entry of a result's bytes (its own copy of the waits). */
static void unpack(const struct exec_out *res, struct compare_entry *e)
{
    memcpy(e, res->data, sizeof *e);
    e->waits = xmalloc((e->nwaits + 1) * sizeof *e->waits);
    memcpy(e->waits, res->data + sizeof *e, e->nwaits * sizeof *e->waits);
}

static void progress(void *vctx, size_t i, const struct exec_out *res, size_t done)
{
    const struct ctx *x = vctx;
    const struct compare_entry *e = (const void *)res->data;
    const char *what = x->c->policies[i] ? x->c->policies[i] : x->c->paths[i];
    fprintf(stderr, "  [%zu/%d] %-24s utilization %.3f, p95 wait %.2f h, %.2f USD per month\n", done, x->c->n,
            what, e->st.utilization, e->st.wait_p95 / 3600, e->cost.month_usd);
}

/* Run i's name (its policy or its scenario's name) made fit for a CSV cell
 * and a chart title, and unique among e[0..i). */
static void set_name(struct compare_entry *e, int i)
{
    struct compare_entry *me = &e[i];
    for (char *p = me->name; *p; p++)
        if (*p == ',' || *p == '\'' || *p == '"' || (unsigned char)*p < ' ')
            *p = '_';
    for (int k = 0; k < i; k++)
        if (strcmp(e[k].name, me->name) == 0) {
            size_t len = strnlen(me->name, sizeof me->name - 8);
            snprintf(me->name + len, sizeof me->name - len, " #%d", i + 1);
            break;
        }
}

int compare_runs(const struct compare_runs *c, struct compare_entry *e, struct scenario **sc0,
                 struct fs_err *err)
{
    struct scenario_options so = c->so;
    so.policy = c->policies[0];
    *sc0 = NULL;
    int rc = scenario_load(c->paths[0], &so, sc0, err);
    if (rc)
        return rc;
    struct ctx x = {.c = c, .bb = (*sc0)->cost.billing, .bc = (*sc0)->cost.commit};
    struct exec_tasks t = {.n = (size_t)c->n, .ctx = &x, .run = run_one, .progress = c->quiet ? NULL : progress};
    struct exec_out res[COMPARE_MAX];
    size_t failed;
    rc = exec_run(&t, c->jobs, res, &failed, err);
    /* In order, as one after another would: the first failure or the first
     * workload that differs from the baseline's stops it. */
    size_t upto = rc && failed == t.n ? 0 : failed; /* a worker died: no results */
    for (size_t i = 0; i < upto; i++) {
        unpack(&res[i], &e[i]);
        set_name(e, (int)i);
        if (i > 0 && e[i].fingerprint != e[0].fingerprint) {
            rc = fs_fail(err, FS_EDATA, "%s: its workload (%zu jobs) differs from the baseline's, %s (%zu jobs); "
                         "compare runs one workload under each scenario", c->paths[i], e[i].njobs, e[0].scenario,
                         e[0].njobs);
            break;
        }
    }
    exec_results_free(res, (size_t)c->n);
    if (rc) {
        scenario_free(*sc0);
        *sc0 = NULL;
    }
    return rc;
}
