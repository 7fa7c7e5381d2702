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
#include "../reports/output.h"
#include "../study/roadmap.h"
#include "cli.h"

static int usage(int code)
{
    FILE *f = code ? stderr : stdout;
    fprintf(f, "usage: fleetsim roadmap SCENARIO --months M [--growth R | --growth R1,R2,... | --scenarios N=R,...]\n"
               "                        [--lead-months L] [--sources owned,leased,cloud] [--types T1,T2,...]\n"
               "                        [--max-nodes N] [--slo KEY<=V,...] [--power-kw KW[,KW...]]\n"
               "                        [--rack-nodes N[,N...]] [--budget USD[,USD...]] [--seeds 1,2,3]\n"
               "                        [--brute-force] [--set PATH=VALUE]... [--policy-lib PATH.so]\n"
               "                        [-j N] [-o DIR] [--max-output-mb N] [--json] [-q]\n\n"
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
               "                        or M, the first from the scenario to month 1 (default: the\n"
               "                        forecast fitted to the scenario's workload, as in the run\n"
               "                        report; flat when it has no usable trend)\n"
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
               "      --policy-lib PATH.so  load the policies of a plugin first (docs/policy-plugins.md)\n"
               "      --catalog FILE    GPU catalog when the scenario names none\n"
               "  -o, --output DIR      output folder (created if missing)\n"
               "      --max-output-mb N  write at most N MiB in all, else exit 73 (default 10240)\n"
               "      --json            also print roadmap.json on stdout\n"
               "  -q, --quiet           print nothing but errors\n"
               "  -h, --help            this help\n\n"
               "Exit: 0 a roadmap was found, 1 none meets the SLOs every month (roadmap.json is\n"
               "written with \"total_cost_usd\": null), 64 usage or contradictory constraints,\n"
               "65 bad data, 66 missing input, 73 cannot write.\n",
            RM_MAX_MONTHS, RM_MAX_STATES);
    return code;
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
    /* main takes it out of argv first (cli_policy_libs); here for completion */
    {"policy-lib", required_argument, NULL, 'Y'},
    CLI_OPT_MAX_OUTPUT,
    {NULL, 0, NULL, 0},
};

/* A whole number in [lo, hi] for opt.  RET: 0, or 64 with the message
 * printed. */
static int whole(const char *opt, const char *arg, double lo, double hi, double *v)
{
    struct fs_err err = {0};
    int n;
    if (rm_parse_list(opt, arg, lo, hi, v, &n, 1, &err) == 0 && *v != floor(*v))
        fs_fail(&err, FS_EUSAGE, "roadmap: %s: \"%s\" is not a whole number", opt, arg);
    return err.code ? cli_fail(&err) : 0;
}

static int parse_args(int argc, char **argv, struct roadmap *r, struct roadmap_args *a)
{
    const struct option *opts = roadmap_opts;
    double v;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":m:g:L:t:n:S:P:R:U:s:j:o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'm':
            if (whole("--months", optarg, 1, RM_MAX_MONTHS, &v))
                return 64;
            r->months = (int)v;
            break;
        case 'g': a->growth = optarg; break;
        case 'K': a->paths = optarg; break;
        case 'L':
            if (whole("--lead-months", optarg, 0, RM_MAX_MONTHS, &a->lead))
                return 64;
            break;
        case 'W': a->sources = optarg; break;
        case 't': a->types = optarg; break;
        case 'n':
            if (whole("--max-nodes", optarg, 1, PLAN_MAX_NODES, &v))
                return 64;
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
        case CLI_MAX_OUTPUT:
            if (cli_parse_max_output("roadmap", optarg))
                return 64;
            break;
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
    struct roadmap_args a = {.lead = 1};
    int rc = parse_args(argc, argv, &r, &a);
    if (rc >= 0)
        return rc;
    struct fs_err err = {0};
    if (roadmap_settle(&r, &a, &err))
        return cli_fail(&err);
    if (plan_parse_slos(&r.p, a.slos ? a.slos : "wait_p95_s<=3600", &err))
        return cli_fail(&err);
    if (a.seeds && (rc = cli_parse_seeds("--seeds", a.seeds, r.p.seeds, PLAN_MAX_SEEDS, &r.p.nseeds)))
        return rc;
    rc = plan_load(&r.p, a.types, &err);
    if (rc == 0 && roadmap_settle_site(&r, &err)) {
        roadmap_free(&r);
        return cli_fail(&err);
    }
    if (rc == 0 && r.fitted)
        rc = roadmap_forecast(&r, &err);
    if (rc == 0)
        rc = roadmap_setup(&r, &err);
    if (rc == 0 && !r.p.quiet)
        fprintf(stderr, "%s: %d months, %d types x 0..%d nodes (%zu fleets a month), lead %d month%s, %d seed%s; %s\n",
                r.p.base->name, r.months, r.p.ntypes, r.p.max_nodes, r.nstates, r.lead, r.lead == 1 ? "" : "s",
                r.p.nseeds, r.p.nseeds == 1 ? "" : "s", r.brute ? "brute force" : "dynamic programming");
    if (rc == 0 && !r.p.quiet && r.fitted)
        fprintf(stderr, "  demand     %s%s\n", r.unusable ? "held flat: no usable trend: " : r.trend,
                r.unusable ? r.unusable : "");
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
        rc = out_budget_error(roadmap_write(&r, a.dir, &err), &err);
    if (rc == 0)
        roadmap_print(&r, a.dir);
    if (rc == 0 && !r.found)
        rc = 1;
    if ((rc == 0 || rc == 1) && a.json && cli_print_file(a.dir, "roadmap.json"))
        rc = 73;
    roadmap_free(&r);
    return rc < 0 ? cli_fail(&err) : rc;
}
