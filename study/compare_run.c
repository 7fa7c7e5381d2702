/* compare_run.c - one run of a comparison, priced every way (compare_run.h). */
#include "compare_run.h"

#include <math.h>
#include <string.h>

#include "../base/json.h"

/* A run's name fit for a CSV cell and a chart title. */
static void set_name(struct compare_entry *e, const char *name, int i, const struct compare_entry *prev)
{
    snprintf(e->name, sizeof e->name, "%s", name);
    for (char *p = e->name; *p; p++)
        if (*p == ',' || *p == '\'' || *p == '"' || (unsigned char)*p < ' ')
            *p = '_';
    for (int k = 0; k < i; k++)
        if (strcmp(prev[k].name, e->name) == 0) {
            size_t len = strnlen(e->name, sizeof e->name - 8);
            snprintf(e->name + len, sizeof e->name - len, " #%d", i + 1);
            break;
        }
}

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

int compare_run(const char *path, const struct scenario_options *so, struct compare_entry *e, int i,
                struct scenario **keep, struct fs_err *err)
{
    struct run_result r = {0};
    cJSON *tree = NULL;
    int rc = json_load_file(path, &tree, err);
    if (rc == 0)
        rc = run_scenario(&(struct run_spec){.tree = tree, .path = path, .so = *so}, &r, err);
    if (rc) {
        cJSON_Delete(tree);
        return rc;
    }
    enum cost_billing bb = i ? e[0].cost.billing : r.sc->cost.billing;
    enum cost_commit bc = i ? e[0].cost.commit : r.sc->cost.commit;
    compare_entry_fill(&e[i], &r, bb, bc);
    set_name(&e[i], so->policy ? so->policy : r.sc->name, i, e);
    if (i > 0 && e[i].fingerprint != e[0].fingerprint)
        rc = fs_fail(err, FS_EDATA, "%s: its workload (%zu jobs) differs from the baseline's, %s (%zu jobs); "
                     "compare runs one workload under each scenario", path, e[i].njobs, e[0].scenario,
                     e[0].njobs);
    if (rc == 0)
        rc = price_all(tree, path, so, &r, &e[i], err);
    if (rc == 0 && keep && !*keep) {
        *keep = (struct scenario *)r.sc;
        r.own_sc = false;
    }
    run_result_free(&r);
    cJSON_Delete(tree);
    return rc;
}

