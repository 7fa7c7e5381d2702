/* scenario_sched.c - the scenario's $.scheduler: the policy, its
 * parameters and the round-based policies' settings (scenario_int.h).
 * scenarios/README.md and docs/policies.md document the keys. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/json.h"
#include "scenario_int.h"

/* An unknown policy: a usage error when it came from the command line. */
static int unknown_policy(struct ctx *c, int code, const char *where, const char *name)
{
    size_t n;
    const char *const *names = sched_policy_names(&n);
    const char *hint = fs_suggest(name, names, n);
    char list[256] = "";
    for (size_t k = 0; k < n; k++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", names[k]);
    if (hint)
        return fs_fail(c->err, code, "%s: unknown policy \"%s\"; did you mean \"%s\"?", where, name, hint);
    return fs_fail(c->err, code, "%s: unknown policy \"%s\" (policies: %s)", where, name, list);
}

/* Gavel's round (360 s) and least time between allocation recomputes
 * (1920 s, its scheduler's minimum_time_between_allocation_resets). */
#define SCEN_ROUND_S 360
#define SCEN_REALLOCATE_S 1920

/* $.scheduler.params into the scenario's own copy of its policy. */
static int load_params(struct ctx *c, const cJSON *params)
{
    const struct sched_policy *p = c->sc->policy;
    struct sched_policy *own = c->sc->own_policy = xmalloc(sizeof *own);
    *own = *p;
    for (const cJSON *v = params->child; v; v = v->next) {
        int k = sched_param_find(p, v->string);
        if (k < 0) {
            char list[256] = "";
            for (int i = 0; p->params && p->params[i].name; i++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", p->params[i].name);
            return fs_fail(c->err, FS_EDATA, "%s: $.scheduler.params.%s: policy \"%s\" has no parameter \"%s\" (%s%s)",
                           c->file, v->string, p->name, v->string, list[0] ? "its parameters: " : "it takes none",
                           list);
        }
        const struct sched_param *d = &p->params[k];
        if (d->flag && !cJSON_IsBool(v))
            return fs_fail(c->err, FS_EDATA, "%s: $.scheduler.params.%s: expected true or false", c->file, v->string);
        int rc = d->flag ? 0 : json_number(params, v->string, true, d->min, d->max, &own->param[k], c->file,
                                           "$.scheduler.params", c->err);
        if (rc)
            return rc;
        if (d->flag)
            own->param[k] = cJSON_IsTrue(v);
    }
    if (own->configure)
        own->configure(own);
    c->sc->policy = own;
    return 0;
}

int scenario_load_scheduler(struct ctx *c, const cJSON *root)
{
    static const char *const keys[] = {"policy", "params", "round_s", "reallocate_s", "migration_s", "lp_ties", NULL};
    const cJSON *s = NULL, *params = NULL;
    const char *name = "fifo", *ties = "equal-split";
    double round = SCEN_ROUND_S, realloc = SCEN_REALLOCATE_S;
    int rc;
    c->sc->migration_s = 0;
    if ((rc = json_child(root, "scheduler", false, cJSON_Object, &s, c->file, "$", c->err)))
        return rc;
    if (s && ((rc = json_check_keys(s, keys, c->file, "$.scheduler", c->err)) ||
              (rc = json_string(s, "policy", false, &name, c->file, "$.scheduler", c->err)) ||
              (rc = json_number(s, "round_s", false, 1, 86400, &round, c->file, "$.scheduler", c->err)) ||
              (rc = json_number(s, "reallocate_s", false, 0, SCEN_MAX_SPAN_S, &realloc, c->file,
                                "$.scheduler", c->err)) ||
              (rc = json_number(s, "migration_s", false, 0, 86400, &c->sc->migration_s, c->file,
                                "$.scheduler", c->err)) ||
              (rc = json_string(s, "lp_ties", false, &ties, c->file, "$.scheduler", c->err)) ||
              (rc = json_child(s, "params", false, cJSON_Object, &params, c->file, "$.scheduler", c->err))))
        return rc;
    if (strcmp(ties, "equal-split") && strcmp(ties, "vertex"))
        return fs_fail(c->err, FS_EDATA, "%s: $.scheduler.lp_ties: \"%s\" is not equal-split or vertex",
                       c->file, ties);
    c->sc->lp_vertex = strcmp(ties, "vertex") == 0;
    c->sc->round = fs_from_seconds(round);
    c->sc->reallocate = fs_from_seconds(realloc);
    /* The params are the scenario's policy's: --policy naming another one
     * runs that with its own defaults. */
    if (c->opt && c->opt->policy && strcmp(c->opt->policy, name) != 0) {
        name = c->opt->policy;
        params = NULL;
    }
    if ((c->sc->policy = sched_policy_find(name)))
        return params ? load_params(c, params) : 0;
    if (c->opt && c->opt->policy)
        return unknown_policy(c, FS_EUSAGE, "--policy", name);
    char where[512];
    snprintf(where, sizeof where, "%s: $.scheduler.policy", c->file);
    return unknown_policy(c, FS_EDATA, where, name);
}
