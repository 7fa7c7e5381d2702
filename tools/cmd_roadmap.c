/* cmd_roadmap.c - `fleetsim roadmap SCENARIO --months M`: which GPUs to
 * buy, lease or rent, month by month (study/roadmap.h, docs/roadmap.md).
 * This file reads the options; study/roadmap.c searches and
 * study/roadmap_write.c writes.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/signals.h"
#include "../study/roadmap.h"
#include "cli.h"

static int usage(int code)
{
    FILE *f = code ? stderr : stdout;
    fprintf(f, "usage: fleetsim roadmap SCENARIO --months M [--growth R | --growth R1,R2,... | --scenarios N=R,...]\n"
               "                        [--lead-months L] [--sources owned,leased,cloud] [--types T1,T2,...]\n"
               "                        [--max-nodes N] [--slo KEY<=V,...] [--power-kw KW[,KW...]]\n"
               "                        [--rack-nodes N[,N...]] [--budget USD[,USD...]] [--seeds 1,2,3]\n"
               "                        [--brute-force] [--set PATH=VALUE]... [-j N] [-o DIR] [--json] [-q]\n\n"
               "Plan a fleet month by month over M months of changing demand: which nodes of each\n"
               "GPU type to buy (delivered L months after the order, then kept), lease (whole\n"
               "months) or rent from a cloud (by the month), so that every month's fleet meets\n"
               "every SLO on every seed at the least total cost.  Each month is simulated at its\n"
               "demand.  Writes roadmap.json, roadmap.md and month-N.json (N from 1, each a\n"
               "scenario `fleetsim run` runs; month-N.csv beside it for a trace) to DIR (default:\n"
               "out/roadmap-NAME).\n\n"
               "  -m, --months M        the horizon, 1..%d months (required)\n"
               "  -g, --growth R        demand growth a month as a fraction (0.25: +25 %% a month;\n"
               "                        > -1), or a list: M-1 rates from each month to the next,\n"
               "                        or M, the first from the scenario to month 1 (default 0)\n"
               "      --scenarios LIST  uncertain growth: NAME=RATE,... (or RATE,...), two or more\n"
               "                        paths; one roadmap meets the SLOs on every path at the least\n"
               "                        expected cost, with each path's regret (instead of --growth)\n"
               "  -L, --lead-months L   months from ordering a server to using it, 0..M (default 1)\n"
               "      --sources LIST    owned, leased, cloud: the ways to pay allowed (default all)\n"
               "  -t, --types LIST      GPU types to plan (default: the scenario's fleet's)\n"
               "  -n, --max-nodes N     most nodes of each type a month (default 8; at most %d\n"
               "                        fleets a month: (N+1)^types)\n"
               "  -S, --slo LIST        METRIC<=V or METRIC>=V, comma-separated (default\n"
               "                        wait_p95_s<=3600), each met on every seed in every month\n"
               "  -P, --power-kw LIST   facility power for owned and leased nodes at full load x PUE:\n"
               "                        one value, or one a month\n"
               "  -R, --rack-nodes LIST most owned and leased nodes on site: one value, or one a month\n"
               "  -U, --budget LIST     most USD a month: one value, or one a month\n"
               "  -s, --seeds LIST      seeds, each fleet runs with all (default: the scenario's)\n"
               "      --brute-force     simulate every fleet in every month and try every owned\n"
               "                        trajectory (checks the search; small cases only)\n"
               "  -j, --jobs N          simulations at a time in worker processes (default: the CPUs)\n"
               "      --set PATH=VALUE  edit the scenario as read; repeatable\n"
               "      --catalog FILE    GPU catalog when the scenario names none\n"
               "  -o, --output DIR      output folder (created if missing)\n"
               "      --json            also print roadmap.json on stdout\n"
               "  -q, --quiet           print nothing but errors\n"
               "  -h, --help            this help\n\n"
               "Exit: 0 a roadmap was found, 1 none meets the SLOs every month (roadmap.json is\n"
               "written with \"total_cost_usd\": null), 64 usage or contradictory constraints,\n"
               "65 bad data, 66 missing input, 73 cannot write.\n",
            RM_MAX_MONTHS, RM_MAX_STATES);
    return code;
}

/* "fleetsim: roadmap: MESSAGE" on stderr.  RET: 64. */
__attribute__((format(printf, 1, 2))) static int bad(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fleetsim: roadmap: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 64;
}

/* A comma-separated list of numbers in [lo, hi].  OUT v[*n] (at most max).
 * RET: 0 or 64. */
static int parse_list(const char *opt, const char *arg, double lo, double hi, double *v, int *n, int max)
{
    *n = 0;
    const char *s = arg;
    for (;;) {
        char *end;
        errno = 0;
        double x = strtod(s, &end);
        if (errno || end == s || (*end && *end != ',') || !isfinite(x))
            return bad("%s: \"%s\" is not a number or a list of numbers", opt, arg);
        if (x < lo || x > hi)
            return bad("%s: %g is out of range [%g, %g]", opt, x, lo, hi);
        if (*n == max)
            return bad("%s: more than %d values", opt, max);
        v[(*n)++] = x;
        if (!*end)
            return 0;
        s = end + 1;
    }
}

/* A per-month limit: one value for every month, or one a month. */
static int month_values(const char *opt, const char *arg, int months, double *v)
{
    double x[RM_MAX_MONTHS];
    int n;
    if (parse_list(opt, arg, 1e-9, 1e15, x, &n, RM_MAX_MONTHS))
        return 64;
    if (n != 1 && n != months)
        return bad("%s: %d values for %d months (give one, or one a month)", opt, n, months);
    for (int m = 0; m < months; m++)
        v[m] = x[n == 1 ? 0 : m];
    return 0;
}

const struct option roadmap_opts[] = {
    {"months", required_argument, NULL, 'm'},   {"growth", required_argument, NULL, 'g'},
    {"lead-months", required_argument, NULL, 'L'}, {"sources", required_argument, NULL, 'W'},
    {"types", required_argument, NULL, 't'},    {"max-nodes", required_argument, NULL, 'n'},
    {"slo", required_argument, NULL, 'S'},      {"power-kw", required_argument, NULL, 'P'},
    {"rack-nodes", required_argument, NULL, 'R'}, {"budget", required_argument, NULL, 'U'},
    {"seeds", required_argument, NULL, 's'},    {"brute-force", no_argument, NULL, 'B'},
    {"jobs", required_argument, NULL, 'j'},     {"set", required_argument, NULL, 'E'},
    {"catalog", required_argument, NULL, 'c'},  {"output", required_argument, NULL, 'o'},
    {"json", no_argument, NULL, 'J'},           {"quiet", no_argument, NULL, 'q'},
    {"scenarios", required_argument, NULL, 'K'}, {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

struct args {
    const char *types, *slos, *sources, *growth, *power, *racks, *budget, *dir, *paths;
    char *seeds;
    double lead;
    bool json;
};

static int parse_args(int argc, char **argv, struct roadmap *r, struct args *a)
{
    const struct option *opts = roadmap_opts;
    double v;
    int c, n;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":m:g:L:t:n:S:P:R:U:s:j:o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'm':
            if (parse_list("--months", optarg, 1, RM_MAX_MONTHS, &v, &n, 1) || v != floor(v))
                return v != floor(v) ? bad("--months: \"%s\" is not a whole number", optarg) : 64;
            r->months = (int)v;
            break;
        case 'g': a->growth = optarg; break;
        case 'K': a->paths = optarg; break;
        case 'L':
            if (parse_list("--lead-months", optarg, 0, RM_MAX_MONTHS, &a->lead, &n, 1) || a->lead != floor(a->lead))
                return a->lead != floor(a->lead) ? bad("--lead-months: \"%s\" is not a whole number", optarg) : 64;
            break;
        case 'W': a->sources = optarg; break;
        case 't': a->types = optarg; break;
        case 'n':
            if (parse_list("--max-nodes", optarg, 1, PLAN_MAX_NODES, &v, &n, 1) || v != floor(v))
                return v != floor(v) ? bad("--max-nodes: \"%s\" is not a whole number", optarg) : 64;
            r->p.max_nodes = (int)v;
            break;
        case 'S': a->slos = optarg; break;
        case 'P': a->power = optarg; break;
        case 'R': a->racks = optarg; break;
        case 'U': a->budget = optarg; break;
        case 's': a->seeds = optarg; break;
        case 'B': r->brute = true; break;
        case 'c': r->p.catalog_opt = optarg; break;
        case 'o':
            if (cli_parse_output("roadmap", optarg, &a->dir))
                return 64;
            break;
        case 'j':
            if (cli_parse_jobs(optarg, "roadmap", false, &r->p.jobs))
                return 64;
            break;
        case 'E':
            if (cli_parse_set(optarg, &r->p.so))
                return 64;
            break;
        case 'J': a->json = true; break;
        case 'q': r->p.quiet = true; break;
        case 'h': return usage(0);
        default:
            cli_bad_option("roadmap", c, argv[optind - 1], opts);
            return usage(64);
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "fleetsim: roadmap: expected one SCENARIO file, got %d\n", argc - optind);
        return usage(64);
    }
    r->p.path = argv[optind];
    r->p.so.catalog = r->p.catalog_opt ? r->p.catalog_opt : cli_default_catalog();
    return -1;
}

/* --scenarios NAME=R,...: growth paths, each a monthly rate (a bare R is
 * named by itself); month m's demand on a path is (1 + R)^(m-1), and the
 * demand the month files carry is the highest path's.  RET: 0 or 64. */
static int parse_paths(struct roadmap *r, const char *arg, bool growth)
{
    if (growth)
        return bad("contradictory options: --growth and --scenarios both give the growth (use one)");
    char *list = xstrdup(arg), *save = NULL;
    int rc = 0, n = 0;
    for (char *s = strtok_r(list, ",", &save); rc == 0 && s; s = strtok_r(NULL, ",", &save)) {
        if (n == RM_MAX_PATHS) {
            rc = bad("--scenarios: at most %d growth paths", RM_MAX_PATHS);
            break;
        }
        char *eq = strchr(s, '='), *num = eq ? eq + 1 : s, *end;
        snprintf(r->pname[n], sizeof r->pname[n], "%.*s", eq ? (int)(eq - s) : (int)strlen(s), s);
        errno = 0;
        double v = strtod(num, &end);
        if (errno || end == num || *end || !isfinite(v) || v > 1e3 || (eq && eq == s))
            rc = bad("--scenarios: \"%s\": expected NAME=RATE or RATE (a monthly growth, 0.1 = +10 %%)", s);
        else if (v <= -1)
            rc = bad("--scenarios: %g is a fall of %g %%: demand can fall by less than 100 %% a month", v, -100 * v);
        for (int k = 0; rc == 0 && k < n; k++)
            if (strcmp(r->pname[k], r->pname[n]) == 0)
                rc = bad("--scenarios: \"%s\" given twice", r->pname[n]);
        if (rc)
            break;
        r->prate[n] = v;
        for (int m = 0; m < r->months; m++)
            r->pdemand[n][m] = m ? r->pdemand[n][m - 1] * (1 + v) : 1;
        n++;
    }
    free(list);
    if (rc == 0 && n < 2)
        rc = bad("--scenarios: give at least two growth paths (one is --growth)");
    if (rc)
        return rc;
    r->npaths = n;
    for (int m = 0; m < r->months; m++) {
        r->demand[m] = 0;
        for (int k = 0; k < n; k++) {
            if (!(r->pdemand[k][m] > 1e-6 && r->pdemand[k][m] < 1e6))
                return bad("--scenarios: month %d's demand on %s is x %g the scenario's, outside [1e-6, 1e6]", m + 1,
                           r->pname[k], r->pdemand[k][m]);
            r->demand[m] = fmax(r->demand[m], r->pdemand[k][m]);
        }
    }
    return 0;
}

/* The horizon, the demand and the constraints, checked against each
 * other before anything is simulated.  RET: -1 to go on, or 64. */
static int settle(struct roadmap *r, const struct args *a)
{
    if (r->months == 0)
        return bad("--months M is required (the horizon, 1..%d months)", RM_MAX_MONTHS);
    int M = r->months;
    r->lead = (int)a->lead;
    if (r->lead > M)
        return bad("--lead-months: a lead time of %d months is longer than the %d-month horizon: "
                   "nothing ordered would arrive", r->lead, M);
    if (a->growth) {
        if (parse_list("--growth", a->growth, -1e300, 1e3, r->rate, &r->nrates, RM_MAX_MONTHS))
            return 64;
        for (int i = 0; i < r->nrates; i++)
            if (r->rate[i] <= -1)
                return bad("--growth: %g is a fall of %g %%: demand can fall by less than 100 %% a month",
                           r->rate[i], -100 * r->rate[i]);
        if (r->nrates > 1 && r->nrates != M - 1 && r->nrates != M)
            return bad("--growth: %d rates for %d months (give one, M-1 = %d from month to month, or M = %d)",
                       r->nrates, M, M - 1, M);
    } else {
        r->nrates = 1;
        r->rate[0] = 0;
    }
    bool first = r->nrates == M && M > 1;
    r->demand[0] = first ? 1 + r->rate[0] : 1;
    for (int m = 1; m < M; m++)
        r->demand[m] = r->demand[m - 1] * (1 + r->rate[r->nrates == 1 ? 0 : first ? m : m - 1]);
    for (int m = 0; m < M; m++)
        if (!(r->demand[m] > 1e-6 && r->demand[m] < 1e6))
            return bad("--growth: month %d's demand is x %g the scenario's, outside [1e-6, 1e6]", m + 1,
                       r->demand[m]);
    r->npaths = 1;
    memcpy(r->pdemand[0], r->demand, sizeof r->demand);
    r->prate[0] = r->rate[0];
    if (a->paths && parse_paths(r, a->paths, a->growth != NULL))
        return 64;
    if (a->sources) {
        char *list = xstrdup(a->sources), *save = NULL;
        int rc = 0;
        for (char *s = strtok_r(list, ",", &save); rc == 0 && s; s = strtok_r(NULL, ",", &save)) {
            int k = 0;
            while (k < RM_SOURCES && strcmp(rm_source_names[k], s) != 0)
                k++;
            if (k == RM_SOURCES)
                rc = bad("--sources: unknown source \"%s\" (owned, leased, cloud)", s);
            else if (r->allow[k])
                rc = bad("--sources: \"%s\" given twice", s);
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
    if (a->power && month_values("--power-kw", a->power, M, r->power_kw))
        return 64;
    if (a->racks && month_values("--rack-nodes", a->racks, M, r->racks))
        return 64;
    if (a->budget && month_values("--budget", a->budget, M, r->budget))
        return 64;
    for (int m = 0; m < M; m++)
        if (r->racks[m] > 0 && r->racks[m] != floor(r->racks[m]))
            return bad("--rack-nodes: %g is not a whole number of nodes", r->racks[m]);
    if (!r->allow[RM_LEASED] && !r->allow[RM_CLOUD] && r->lead > 0)
        return bad("contradictory constraints: with --sources owned only and a lead time of %d month%s, month 1 "
                   "can have no node at all", r->lead, r->lead == 1 ? "" : "s");
    return -1;
}

/* Checks that need the planned types: a facility that can host no node,
 * with the cloud not allowed.  RET: -1 or 64. */
static int settle_site(const struct roadmap *r)
{
    if (r->allow[RM_CLOUD])
        return -1;
    double smallest = HUGE_VAL;
    for (int t = 0; t < r->p.ntypes; t++)
        smallest = fmin(smallest, r->p.types[t].node_kw);
    for (int m = 0; m < r->months; m++) {
        if (r->power_kw[m] > 0 && r->power_kw[m] < smallest)
            return bad("contradictory constraints: month %d's --power-kw %g is below one node's %.2f kW and the "
                       "cloud is not among --sources", m + 1, r->power_kw[m], smallest);
        if (r->racks[m] > 0 && r->racks[m] < 1)
            return bad("contradictory constraints: month %d has no rack space and the cloud is not among --sources",
                       m + 1);
    }
    return -1;
}

int cmd_roadmap(int argc, char **argv)
{
    static struct roadmap r; /* large; one per process */
    memset(&r, 0, sizeof r);
    r.p.max_nodes = 8;
    r.p.jobs = exec_cpus();
    r.p.growth = 1;
    r.p.nbill = RM_SOURCES;
    for (int s = 0; s < RM_SOURCES; s++)
        r.p.bill[s] = (enum cost_billing)s;
    struct args a = {.lead = 1};
    int rc = parse_args(argc, argv, &r, &a);
    if (rc >= 0)
        return rc;
    if ((rc = settle(&r, &a)) >= 0)
        return rc;
    struct fs_err err = {0};
    if (plan_parse_slos(&r.p, a.slos ? a.slos : "wait_p95_s<=3600", &err))
        return cli_fail(&err);
    if (a.seeds && (rc = cli_parse_seeds("--seeds", a.seeds, r.p.seeds, PLAN_MAX_SEEDS, &r.p.nseeds)))
        return rc;
    rc = plan_load(&r.p, a.types, &err);
    int site = rc == 0 ? settle_site(&r) : -1;
    if (site >= 0) {
        roadmap_free(&r);
        return site;
    }
    if (rc == 0)
        rc = roadmap_setup(&r, &err);
    if (rc == 0 && !r.p.quiet)
        fprintf(stderr, "%s: %d months, %d types x 0..%d nodes (%zu fleets a month), lead %d month%s, %d seed%s; %s\n",
                r.p.base->name, r.months, r.p.ntypes, r.p.max_nodes, r.nstates, r.lead, r.lead == 1 ? "" : "s",
                r.p.nseeds, r.p.nseeds == 1 ? "" : "s", r.brute ? "brute force" : "dynamic programming");
    if (rc == 0)
        rc = roadmap_search(&r, &err);
    if (rc == PLAN_INTERRUPTED || fs_interrupted()) {
        fprintf(stderr, "fleetsim: interrupted by %s; nothing written\n", fs_signal_name(fs_interrupted()));
        roadmap_free(&r);
        return 128 + fs_interrupted();
    }
    char fallback[512];
    if (rc == 0 && !a.dir) {
        snprintf(fallback, sizeof fallback, "out/roadmap-%s", r.p.base->name);
        for (char *q = fallback + 4; *q; q++)
            if (*q == '/')
                *q = '_';
        a.dir = fallback;
    }
    if (rc == 0)
        rc = roadmap_write(&r, a.dir, &err);
    if (rc == 0)
        roadmap_print(&r, a.dir);
    if (rc == 0 && !r.found)
        rc = 1;
    if ((rc == 0 || rc == 1) && a.json && cli_print_file(a.dir, "roadmap.json"))
        rc = 73;
    roadmap_free(&r);
    return rc < 0 ? cli_fail(&err) : rc;
}
