/* roadmap_args.c - the roadmap's horizon, demand and constraints from the
 * command line's values, checked against each other before anything is
 * simulated (roadmap.h).  Every refusal is FS_EUSAGE, "roadmap: ..." */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roadmap.h"

/* err: "roadmap: MESSAGE".  RET: FS_EUSAGE. */
__attribute__((format(printf, 2, 3))) static int bad(struct fs_err *err, const char *fmt, ...)
{
    char msg[sizeof err->msg - 16];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fs_fail(err, FS_EUSAGE, "roadmap: %s", msg);
}

int rm_parse_list(const char *opt, const char *arg, double lo, double hi, double *v, int *n, int max,
                  struct fs_err *err)
{
    *n = 0;
    const char *s = arg;
    for (;;) {
        char *end;
        errno = 0;
        double x = strtod(s, &end);
        if (errno || end == s || (*end && *end != ',') || !isfinite(x))
            return bad(err, "%s: \"%s\" is not a number or a list of numbers", opt, arg);
        if (x < lo || x > hi)
            return bad(err, "%s: %g is out of range [%g, %g]", opt, x, lo, hi);
        if (*n == max)
            return bad(err, "%s: more than %d values", opt, max);
        v[(*n)++] = x;
        if (!*end)
            return 0;
        s = end + 1;
    }
}

/* A per-month limit: one value for every month, or one a month. */
static int month_values(const char *opt, const char *arg, int months, double *v, struct fs_err *err)
{
    double x[RM_MAX_MONTHS];
    int n;
    if (rm_parse_list(opt, arg, 1e-9, 1e15, x, &n, RM_MAX_MONTHS, err))
        return FS_EUSAGE;
    if (n != 1 && n != months)
        return bad(err, "%s: %d values for %d months (give one, or one a month)", opt, n, months);
    for (int m = 0; m < months; m++)
        v[m] = x[n == 1 ? 0 : m];
    return 0;
}

/* --scenarios NAME=R,...: growth paths, each a monthly rate (a bare R is
 * named by itself); month m's demand on a path is (1 + R)^(m-1), and the
 * demand the month files carry is the highest path's.  RET: 0 or 64. */
static int parse_paths(struct roadmap *r, const char *arg, bool growth, struct fs_err *err)
{
    if (growth)
        return bad(err, "contradictory options: --growth and --scenarios both give the growth (use one)");
    char *list = xstrdup(arg), *save = NULL;
    int rc = 0, n = 0;
    for (char *s = strtok_r(list, ",", &save); rc == 0 && s; s = strtok_r(NULL, ",", &save)) {
        if (n == RM_MAX_PATHS) {
            rc = bad(err, "--scenarios: at most %d growth paths", RM_MAX_PATHS);
            break;
        }
        char *eq = strchr(s, '='), *num = eq ? eq + 1 : s, *end;
        snprintf(r->pname[n], sizeof r->pname[n], "%.*s", eq ? (int)(eq - s) : (int)strlen(s), s);
        errno = 0;
        double v = strtod(num, &end);
        if (errno || end == num || *end || !isfinite(v) || v > 1e3 || (eq && eq == s))
            rc = bad(err, "--scenarios: \"%s\": expected NAME=RATE or RATE (a monthly growth, 0.1 = +10 %%)", s);
        else if (v <= -1)
            rc = bad(err, "--scenarios: %g is a fall of %g %%: demand can fall by less than 100 %% a month", v, -100 * v);
        for (int k = 0; rc == 0 && k < n; k++)
            if (strcmp(r->pname[k], r->pname[n]) == 0)
                rc = bad(err, "--scenarios: \"%s\" given twice", r->pname[n]);
        if (rc)
            break;
        r->prate[n] = v;
        for (int m = 0; m < r->months; m++)
            r->pdemand[n][m] = m ? r->pdemand[n][m - 1] * (1 + v) : 1;
        n++;
    }
    free(list);
    if (rc == 0 && n < 2)
        rc = bad(err, "--scenarios: give at least two growth paths (one is --growth)");
    if (rc)
        return rc;
    r->npaths = n;
    for (int m = 0; m < r->months; m++) {
        r->demand[m] = 0;
        for (int k = 0; k < n; k++) {
            if (!(r->pdemand[k][m] > 1e-6 && r->pdemand[k][m] < 1e6))
                return bad(err, "--scenarios: month %d's demand on %s is x %g the scenario's, outside [1e-6, 1e6]", m + 1,
                           r->pname[k], r->pdemand[k][m]);
            r->demand[m] = fmax(r->demand[m], r->pdemand[k][m]);
        }
    }
    return 0;
}

int roadmap_settle(struct roadmap *r, const struct roadmap_args *a, struct fs_err *err)
{
    if (r->months == 0)
        return bad(err, "--months M is required (the horizon, 1..%d months)", RM_MAX_MONTHS);
    int M = r->months;
    r->lead = (int)a->lead;
    if (r->lead > M)
        return bad(err, "--lead-months: a lead time of %d months is longer than the %d-month horizon: "
                   "nothing ordered would arrive", r->lead, M);
    if (a->growth) {
        if (rm_parse_list("--growth", a->growth, -1e300, 1e3, r->rate, &r->nrates, RM_MAX_MONTHS, err))
            return FS_EUSAGE;
        for (int i = 0; i < r->nrates; i++)
            if (r->rate[i] <= -1)
                return bad(err, "--growth: %g is a fall of %g %%: demand can fall by less than 100 %% a month",
                           r->rate[i], -100 * r->rate[i]);
        if (r->nrates > 1 && r->nrates != M - 1 && r->nrates != M)
            return bad(err, "--growth: %d rates for %d months (give one, M-1 = %d from month to month, or M = %d)",
                       r->nrates, M, M - 1, M);
    } else {
        r->nrates = 1;
        r->rate[0] = 0;
        r->fitted = a->paths == NULL; /* roadmap_forecast sets the demand */
    }
    bool first = r->nrates == M && M > 1;
    r->demand[0] = first ? 1 + r->rate[0] : 1;
    for (int m = 1; m < M; m++)
        r->demand[m] = r->demand[m - 1] * (1 + r->rate[r->nrates == 1 ? 0 : first ? m : m - 1]);
    for (int m = 0; m < M; m++)
        if (!(r->demand[m] > 1e-6 && r->demand[m] < 1e6))
            return bad(err, "--growth: month %d's demand is x %g the scenario's, outside [1e-6, 1e6]", m + 1,
                       r->demand[m]);
    r->npaths = 1;
    memcpy(r->pdemand[0], r->demand, sizeof r->demand);
    r->prate[0] = r->rate[0];
    if (a->paths && parse_paths(r, a->paths, a->growth != NULL, err))
        return FS_EUSAGE;
    if (a->sources) {
        char *list = xstrdup(a->sources), *save = NULL;
        int rc = 0;
        for (char *s = strtok_r(list, ",", &save); rc == 0 && s; s = strtok_r(NULL, ",", &save)) {
            int k = 0;
            while (k < RM_SOURCES && strcmp(rm_source_names[k], s) != 0)
                k++;
            if (k == RM_SOURCES)
                rc = bad(err, "--sources: unknown source \"%s\" (owned, leased, cloud)", s);
            else if (r->allow[k])
                rc = bad(err, "--sources: \"%s\" given twice", s);
            else
                r->allow[k] = true;
        }
        free(list);
        if (rc)
            return rc;
    } else {
        for (int s = 0; s < RM_SOURCES; s++)
            r->allow[s] = true;
    }
    if (a->power && month_values("--power-kw", a->power, M, r->power_kw, err))
        return FS_EUSAGE;
    if (a->racks && month_values("--rack-nodes", a->racks, M, r->racks, err))
        return FS_EUSAGE;
    if (a->budget && month_values("--budget", a->budget, M, r->budget, err))
        return FS_EUSAGE;
    for (int m = 0; m < M; m++)
        if (r->racks[m] > 0 && r->racks[m] != floor(r->racks[m]))
            return bad(err, "--rack-nodes: %g is not a whole number of nodes", r->racks[m]);
    if (!r->allow[RM_LEASED] && !r->allow[RM_CLOUD] && r->lead > 0)
        return bad(err, "contradictory constraints: with --sources owned only and a lead time of %d month%s, month 1 "
                   "can have no node at all", r->lead, r->lead == 1 ? "" : "s");
    return 0;
}

int roadmap_settle_site(const struct roadmap *r, struct fs_err *err)
{
    if (r->allow[RM_CLOUD])
        return 0;
    double smallest = HUGE_VAL;
    for (int t = 0; t < r->p.ntypes; t++)
        smallest = fmin(smallest, r->p.types[t].node_kw);
    for (int m = 0; m < r->months; m++) {
        if (r->power_kw[m] > 0 && r->power_kw[m] < smallest)
            return bad(err, "contradictory constraints: month %d's --power-kw %g is below one node's %.2f kW and the "
                       "cloud is not among --sources", m + 1, r->power_kw[m], smallest);
        if (r->racks[m] > 0 && r->racks[m] < 1)
            return bad(err, "contradictory constraints: month %d has no rack space and the cloud is not among --sources",
                       m + 1);
    }
    return 0;
}
