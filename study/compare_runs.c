/* compare_runs.c - the runs of a comparison on the executor
 * (compare_runs.h).  A run's result travels as its compare entry's bytes
 * followed by its sorted waits. */
#include "compare_runs.h"

#include <stdlib.h>
#include <string.h>

struct ctx {
    const struct compare_runs *c;
    enum cost_billing bb;           /* the baseline's billing */
    enum cost_commit bc;
};

static int run_one(void *vctx, size_t i, struct exec_out *out, struct fs_err *err)
{
    const struct ctx *x = vctx;
    struct run_spec spec = {.path = x->c->paths[i], .so = x->c->so};
    spec.so.policy = x->c->policies[i];
    struct run_result r;
    int rc = run_scenario(&spec, &r, err);
    if (rc)
        return rc;
    struct compare_entry e;
    compare_entry_fill(&e, &r, x->bb, x->bc);
    snprintf(e.name, sizeof e.name, "%s", spec.so.policy ? spec.so.policy : r.sc->name);
    run_result_free(&r);
    double *waits = e.waits;
    e.waits = NULL;
    exec_put(out, &e, sizeof e);
    exec_put(out, waits, e.nwaits * sizeof *waits);
    free(waits);
    return 0;
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
