/* cmd_plan.c - `fleetsim plan SCENARIO`: the cheapest fleet of the given
 * GPU types, node counts and billing models whose runs of the scenario's
 * workload meet every SLO on every seed (README "Capacity planning").
 * This file reads the options and the scenario; plan_search.c searches and
 * plan_write.c writes (plan_int.h).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/json.h"
#include "../base/signals.h"
#include "../study/plan.h"
#include "cli.h"

static int usage(int code)
{
    FILE *f = code ? stderr : stdout;
    fprintf(f, "usage: fleetsim plan SCENARIO [--types T1,T2,...] [--max-nodes N]\n"
               "                     [--billing owned,leased,cloud] [--slo KEY<=V,...] [--power-kw KW]\n"
               "                     [--growth G] [--seeds 1,2,3] [--brute-force] [--set PATH=VALUE]...\n"
               "                     [-j N] [-o DIR] [--json] [-q]\n\n"
               "Find the cheapest fleet - 0..N nodes of each GPU type, under each billing model -\n"
               "whose runs of SCENARIO's workload meet every SLO on every seed.  Candidates are\n"
               "tried best-first by capacity cost; a fleet that misses an SLO rules out, unrun,\n"
               "every fleet it dominates.  Writes plan.json, plan.md, fleet.json (the scenario\n"
               "with the chosen fleet, runnable by `fleetsim run`), frontier.csv and frontier.gp\n"
               "(and frontier.png with gnuplot) to DIR (default: out/plan-NAME).\n\n"
               "  -t, --types LIST      GPU types to plan (default: the scenario's fleet's)\n"
               "  -n, --max-nodes N     most nodes of each type, 1..%d (default 8)\n"
               "  -b, --billing LIST    owned, leased, cloud (default: the scenario's)\n"
               "  -S, --slo LIST        METRIC<=V or METRIC>=V, comma-separated (default\n"
               "                        wait_p95_s<=3600), each met on every seed; METRIC is one of\n"
               "                       ",
            PLAN_MAX_NODES);
    for (int k = 0; k < metric_count; k++)
        if (plan_metric(k))
            fprintf(f, " %s", metric_table[k].name);
    fprintf(f, "\n"
               "  -P, --power-kw KW     facility power budget: nodes at full load x PUE <= KW\n"
               "  -g, --growth G        demand x G: a generator's arrivals_per_hour x G, a\n"
               "                        trace's submit times / G (default 1)\n"
               "  -s, --seeds LIST      seeds, each candidate runs with all (default: the scenario's)\n"
               "      --brute-force     simulate every candidate (no pruning, no early stop)\n"
               "  -j, --jobs N          run N simulations at a time in worker processes (default:\n"
               "                        the CPUs): a fleet's seeds, and fleets the search may\n"
               "                        visit next; the outputs are the same bytes for any N\n"
               "      --set PATH=VALUE  edit the scenario as read: PATH a key path (fleet[0].nodes),\n"
               "                        VALUE JSON or else a string; repeatable\n"
               "      --policy-lib PATH.so  load the policies of a plugin first (docs/policy-plugins.md)\n"
               "      --catalog FILE    GPU catalog when the scenario names none\n"
               "  -o, --output DIR      output folder (created if missing)\n"
               "      --max-output-mb N  write at most N MiB in all, else exit 73 (default 10240)\n"
               "      --json            also print plan.json on stdout (also with exit 1)\n"
               "  -q, --quiet           print nothing but errors\n"
               "  -h, --help            this help\n\n"
               "Exit: 0 a fleet was found, 1 no candidate meets the SLOs (plan.json is written\n"
               "with \"chosen\": null), 64 usage, 65 bad data, 66 missing input, 73 cannot write.\n");
    return code;
}

/* "fleetsim: OPT: MESSAGE" on stderr.  RET: 64. */
__attribute__((format(printf, 2, 3))) static int bad(const char *opt, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fleetsim: %s: ", opt);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 64;
}

/* A number in [lo, hi] (integer when whole).  RET: 0 or 64. */
static int parse_num(const char *opt, const char *arg, double lo, double hi, bool whole, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (errno || end == arg || *end || !isfinite(v) || (whole && v != floor(v)))
        return bad(opt, whole ? "\"%s\" is not an integer" : "\"%s\" is not a number", arg);
    if (v < lo || v > hi) {
        fprintf(stderr, "fleetsim: %s: %s is out of range [%g, %g]\n", opt, arg, lo, hi);
        return 64;
    }
    *out = v;
    return 0;
}

static int parse_billing(struct plan *p, char *list)
{
    char *save = NULL;
    for (char *s = strtok_r(list, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
        int b = 0;
        while (b < COST_BILLINGS && strcmp(cost_billing_names[b], s) != 0)
            b++;
        if (b == COST_BILLINGS)
            return bad("--billing", "unknown billing model \"%s\" (owned, leased, cloud)", s);
        for (int i = 0; i < p->nbill; i++)
            if (p->bill[i] == (enum cost_billing)b)
                return bad("--billing", "\"%s\" given twice", s);
        p->bill[p->nbill++] = (enum cost_billing)b;
    }
    return p->nbill ? 0 : bad("--billing", "no billing model given");
}

const struct option plan_opts[] = {
    {"types", required_argument, NULL, 't'},   {"max-nodes", required_argument, NULL, 'n'},
    {"billing", required_argument, NULL, 'b'}, {"slo", required_argument, NULL, 'S'},
    {"power-kw", required_argument, NULL, 'P'}, {"growth", required_argument, NULL, 'g'},
    {"seeds", required_argument, NULL, 's'},   {"brute-force", no_argument, NULL, 'B'},
    {"catalog", required_argument, NULL, 'c'}, {"output", required_argument, NULL, 'o'},
    {"quiet", no_argument, NULL, 'q'},         {"help", no_argument, NULL, 'h'},
    {"jobs", required_argument, NULL, 'j'},    {"set", required_argument, NULL, 'E'},
    {"json", no_argument, NULL, 'J'},
    /* main takes it out of argv first (cli_policy_libs); here for completion */
    {"policy-lib", required_argument, NULL, 'L'},
    CLI_OPT_MAX_OUTPUT,
    {NULL, 0, NULL, 0},
};

/* The options into p.  RET: -1 to go on, or the exit status (0 after --help). */
static int parse_args(int argc, char **argv, struct plan *p, char **types, const char **dir, bool *json)
{
    const struct option *opts = plan_opts;
    char *slos = NULL, *billing = NULL, *seeds = NULL;
    double v;
    int c, rc = 0;
    opterr = 0;
    while (rc == 0 && (c = getopt_long(argc, argv, ":t:n:b:S:P:g:s:o:j:qh", opts, NULL)) != -1) {
        switch (c) {
        case 't': *types = optarg; break;
        case 'n':
            rc = parse_num("--max-nodes", optarg, 1, PLAN_MAX_NODES, true, &v);
            if (rc == 0)
                p->max_nodes = (int)v;
            break;
        case 'b': billing = optarg; break;
        case 'S': slos = optarg; break;
        case 'P': rc = parse_num("--power-kw", optarg, 1e-3, 1e9, false, &p->power_kw); break;
        case 'g': rc = parse_num("--growth", optarg, 1e-3, 1e3, false, &p->growth); break;
        case 's': seeds = optarg; break;
        case 'B': p->brute = true; break;
        case 'c': p->catalog_opt = optarg; break;
        case CLI_MAX_OUTPUT:
            if (cli_parse_max_output("plan", optarg))
                return 64;
            break;
        case 'o':
            if (cli_parse_output("plan", optarg, dir))
                return 64;
            break;
        case 'j':
            if (cli_parse_jobs(optarg, "plan", false, &p->jobs))
                return 64;
            break;
        case 'q': p->quiet = true; break;
        case 'E':
            if (cli_parse_set(optarg, &p->so))
                return 64;
            break;
        case 'J': *json = true; break;
        case 'h': return usage(0);
        default:
            cli_bad_option("plan", c, argv[optind - 1], opts);
            return usage(64);
        }
    }
    if (rc)
        return rc;
    if (optind != argc - 1) {
        fprintf(stderr, "fleetsim: plan: expected one SCENARIO file, got %d\n", argc - optind);
        return usage(64);
    }
    p->path = argv[optind];
    p->so.catalog = p->catalog_opt ? p->catalog_opt : cli_default_catalog();
    struct fs_err err = {0};
    if (plan_parse_slos(p, slos ? slos : "wait_p95_s<=3600", &err))
        return cli_fail(&err);
    if ((billing && (rc = parse_billing(p, billing))) ||
        (seeds && (rc = cli_parse_seeds("--seeds", seeds, p->seeds, PLAN_MAX_SEEDS, &p->nseeds))))
        return rc;
    return -1;
}

int cmd_plan(int argc, char **argv)
{
    static struct plan p; /* large; one per process */
    memset(&p, 0, sizeof p);
    p.max_nodes = 8;
    p.jobs = exec_cpus();
    p.growth = 1;
    char *types = NULL;
    const char *dir = NULL;
    bool json = false;
    int rc = parse_args(argc, argv, &p, &types, &dir, &json);
    if (rc >= 0)
        return rc;
    struct fs_err err = {0};
    rc = plan_load(&p, types, &err);
    if (rc == 0)
        rc = plan_setup(&p, &err);
    if (rc == 0 && !p.quiet) {
        char slo[128];
        plan_slo_label(&p.slos[0], slo, sizeof slo);
        fprintf(stderr, "%s: %d types x 0..%d nodes x %d billing = %zu candidates, %d seeds, %s%s; %s search\n",
                p.base->name, p.ntypes, p.max_nodes, p.nbill, p.ncands, p.nseeds, slo,
                p.nslos > 1 ? " and more" : "", p.brute ? "brute-force" : "pruned best-first");
    }
    if (rc == 0)
        rc = plan_search(&p, &err);
    if (rc == PLAN_INTERRUPTED || fs_interrupted()) {
        fprintf(stderr, "fleetsim: interrupted by %s; nothing written\n", fs_signal_name(fs_interrupted()));
        plan_free(&p);
        return 128 + fs_interrupted();
    }
    char fallback[512];
    bool drawn = false;
    if (rc == 0 && !dir) {
        snprintf(fallback, sizeof fallback, "out/plan-%s", p.base->name);
        for (char *q = fallback + 4; *q; q++)
            if (*q == '/')
                *q = '_';
        dir = fallback;
    }
    if (rc == 0)
        rc = plan_write(&p, dir, &drawn, &err);
    if (rc == 0 && !p.quiet)
        plan_print(&p, dir, drawn);
    if (rc == 0 && p.chosen < 0) {
        plan_print_none(&p, dir);
        rc = 1;
    }
    if ((rc == 0 || rc == 1) && json && cli_print_file(dir, "plan.json"))
        rc = 73;
    plan_free(&p);
    return rc < 0 ? cli_fail(&err) : rc;
}
