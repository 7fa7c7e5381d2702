/* cmd_fill.c - `fleetsim fill`: the options of the FGD paper's fill
 * experiment; study/fill_grid.c runs it and study/fill_write.c writes it. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../study/fill_grid.h"
#include "cli.h"

/* The paper's six policies, in its order (Fig. 9a). */
static const char *const paper_policies[] = {
    "random", "dotprod", "gpu-clustering", "gpu-packing", "best-fit-share", "fgd",
};

static int usage(int code)
{
    FILE *f = code ? stderr : stdout;
    fprintf(f, "usage: fleetsim fill --nodes NODES.csv --pods PODS.csv -o DIR\n"
               "                     [--policy NAME[,NAME...]|all] [--seeds 42-51]\n"
               "                     [--catalog FILE] [-j N] [--quiet]\n\n"
               "The FGD paper's fill experiment (Weng et al., USENIX ATC '23, Fig. 9a): the\n"
               "pods, shuffled and topped up with random clones until the arrived GPU demand\n"
               "is 130 %% of capacity, arrive one by one and never leave; each is placed by\n"
               "the policy at once or dropped.  Writes DIR/fill.csv (policy, seed, arrived %%\n"
               "0..130, allocated %%, fragmented %%, fragmentation ratio %%), DIR/fill-median.csv\n"
               "(median unallocated %% over the seeds, with the 25th and 75th percentiles) and\n"
               "DIR/fill.gp, run with gnuplot when present to draw DIR/fill.svg.\n\n"
               "  -n, --nodes FILE    openb node list (sn,cpu_milli,memory_mib,gpu,model)\n"
               "  -P, --pods FILE     openb pod list (name,cpu_milli,memory_mib,num_gpu,...)\n"
               "  -p, --policy LIST   comma-separated policies, or all (the default): the\n"
               "                      paper's six,");
    for (size_t i = 0; i < FS_ARRAY_LEN(paper_policies); i++)
        fprintf(f, "%s%s", i == 3 ? "\n                      " : " ", paper_policies[i]);
    fprintf(f, "\n"
               "                      (its BestFit is best-fit-share); any of:\n"
               "                     ");
    for (size_t i = 0; sched_policies[i]; i++)
        if (!sched_policies[i]->rounds) /* time-sharing never fills */
            fprintf(f, "%s%s", i == 5 ? "\n                      " : " ", sched_policies[i]->name);
    fprintf(f, "\n"
               "  -s, --seeds LIST    seeds: N, A-B or a comma-separated mix (default: 42-51)\n"
               "  -o, --output DIR    output folder (created if missing)\n"
               "      --max-output-mb N  write at most N MiB in all, else exit 73 (default 10240)\n"
               "      --catalog FILE  GPU catalog (default: $FLEETSIM_DATA/gpus.json or the\n"
               "                      shipped one)\n"
               "  -j, --jobs N        parallel runs (default: the number of CPUs)\n"
               "  -q, --quiet         print nothing but errors\n"
               "  -h, --help          this help\n");
    return code;
}

static int add_policy(struct fill_grid *g, const char *name)
{
    const struct sched_policy *p = sched_policy_find(name);
    if (!p) {
        size_t n;
        const char *const *names = sched_policy_names(&n);
        const char *near = fs_suggest(name, names, n);
        fprintf(stderr, "fleetsim: fill: unknown policy \"%s\"%s%s%s\n", name,
                near ? " (did you mean \"" : "", near ? near : "", near ? "\"?)" : "");
        return FS_EUSAGE;
    }
    if (p->rounds) {
        fprintf(stderr, "fleetsim: fill: policy \"%s\" time-shares GPUs in rounds; the fill "
                "experiment places jobs that never leave\n", name);
        return FS_EUSAGE;
    }
    if (g->npolicies == FILL_MAX_POLICIES) {
        fprintf(stderr, "fleetsim: fill: more than %d policies\n", FILL_MAX_POLICIES);
        return FS_EUSAGE;
    }
    g->policy[g->npolicies++] = p;
    return 0;
}

static int parse_policies(struct fill_grid *g, const char *arg)
{
    if (strcmp(arg, "all") == 0) {
        for (size_t i = 0; i < FS_ARRAY_LEN(paper_policies); i++)
            add_policy(g, paper_policies[i]);
        return 0;
    }
    char *copy = xstrdup(arg), *save = NULL;
    int rc = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save))
        rc = add_policy(g, tok);
    if (!rc && !g->npolicies) {
        fprintf(stderr, "fleetsim: fill: --policy: no policy given\n");
        rc = FS_EUSAGE;
    }
    free(copy);
    return rc;
}

static int parse_u64(const char *s, const char **end, uint64_t *out)
{
    char *e;
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &e, 10);
    if (errno)
        return -1;
    *out = v;
    *end = e;
    return 0;
}

/* "42-51", "7", "1,5-6": the seeds in the order given. */
static int parse_seeds(struct fill_grid *g, const char *arg)
{
    size_t cap = 0;
    const char *p = arg;
    g->nseeds = 0;
    for (;;) {
        uint64_t a, b;
        if (parse_u64(p, &p, &a))
            goto bad;
        b = a;
        if (*p == '-' && parse_u64(p + 1, &p, &b))
            goto bad;
        if (b < a || b - a >= FILL_MAX_SEEDS || (uint64_t)g->nseeds + (b - a) >= FILL_MAX_SEEDS)
            goto bad;
        for (uint64_t s = a;; s++) {
            xgrow(&g->seeds, &cap, (size_t)g->nseeds + 1, sizeof *g->seeds);
            g->seeds[g->nseeds++] = s;
            if (s == b)
                break;
        }
        if (*p == '\0')
            return 0;
        if (*p++ != ',')
            goto bad;
    }
bad:
    fprintf(stderr, "fleetsim: fill: --seeds: \"%s\" is not a list of seeds such as 42-51 or "
                    "1,5,9 (at most %d)\n", arg, FILL_MAX_SEEDS);
    return FS_EUSAGE;
}

const struct option fill_opts[] = {
    {"nodes", required_argument, NULL, 'n'},  {"pods", required_argument, NULL, 'P'},
    {"policy", required_argument, NULL, 'p'}, {"seeds", required_argument, NULL, 's'},
    {"output", required_argument, NULL, 'o'}, {"catalog", required_argument, NULL, 'c'},
    {"jobs", required_argument, NULL, 'j'},   {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},         CLI_OPT_MAX_OUTPUT, {NULL, 0, NULL, 0},
};

int cmd_fill(int argc, char **argv)
{
    const struct option *opts = fill_opts;
    const char *nodes = NULL, *pods = NULL, *dir = NULL, *catalog = NULL, *policies = "all";
    const char *seeds = "42-51";
    int jobs = exec_cpus(), c;
    bool quiet = false;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":n:P:p:s:o:j:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'n': nodes = optarg; break;
        case 'P': pods = optarg; break;
        case 'p': policies = optarg; break;
        case 's': seeds = optarg; break;
        case CLI_MAX_OUTPUT:
            if (cli_parse_max_output("fill", optarg))
                return 64;
            break;
        case 'o':
            if (cli_parse_output("fill", optarg, &dir))
                return 64;
            break;
        case 'c': catalog = optarg; break;
        case 'j':
            if (cli_parse_jobs(optarg, "fill", false, &jobs))
                return 64;
            break;
        case 'q': quiet = true; break;
        case 'h': return usage(0);
        default:
            cli_bad_option("fill", c, argv[optind - 1], opts);
            return usage(64);
        }
    }
    if (optind != argc) {
        fprintf(stderr, "fleetsim: fill: unexpected argument \"%s\"\n", argv[optind]);
        return usage(64);
    }
    if (!nodes || !pods || !dir) {
        fprintf(stderr, "fleetsim: fill: --nodes, --pods and -o are required\n");
        return usage(64);
    }
    struct fill_grid g = {.npolicies = 0};
    struct fs_err err = {0};
    int rc = parse_policies(&g, policies);
    if (!rc)
        rc = parse_seeds(&g, seeds);
    if (rc) {
        free(g.seeds);
        return 64;
    }
    rc = fill_grid_run(nodes, pods, catalog ? catalog : cli_default_catalog(), &g, dir, jobs, quiet,
              &err);
    free(g.seeds);
    return rc ? cli_fail(&err) : 0;
}
