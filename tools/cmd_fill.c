/* cmd_fill.c - `fleetsim fill`: the FGD paper's fill experiment (sim/fill.h)
 * for policies x seeds on an openb node list and pod list, run on the
 * executor (run/exec.h, -j worker processes), written as fill.csv,
 * fill-median.csv and a gnuplot chart. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../reports/output.h"
#include "../reports/report.h"
#include "../sim/fill.h"
#include "../io/readers.h"
#include "cli.h"

#define FILL_MAX_SEEDS 10000
#define FILL_MAX_POLICIES 32

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

struct grid {
    const struct sched_policy *policy[FILL_MAX_POLICIES];
    int npolicies;
    uint64_t *seeds;
    int nseeds;
};

static int add_policy(struct grid *g, const char *name)
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

static int parse_policies(struct grid *g, const char *arg)
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
static int parse_seeds(struct grid *g, const char *arg)
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

/* ---- the runs ------------------------------------------------------------ */

struct work {
    const struct grid *g;
    struct fill_spec base;
    struct fill_result *res;   /* [policy * nseeds + seed] */
};

/* Run k of the grid (an executor task): its fill_result's bytes. */
static int fill_task(void *ctx, size_t k, struct exec_out *out, struct fs_err *err)
{
    const struct work *w = ctx;
    struct fill_spec spec = w->base;
    spec.policy = w->g->policy[k / (size_t)w->g->nseeds];
    spec.seed = w->g->seeds[k % (size_t)w->g->nseeds];
    static struct fill_result r; /* large; one task at a time per process */
    memset(&r, 0, sizeof r);
    int rc = fill_run(&spec, &r, err);
    if (rc == 0)
        exec_put(out, &r, sizeof r);
    return rc;
}

/* Run the grid on the executor (run/exec.h) with jobs workers.
 * RET: 0 or the lowest failing run's error. */
static int run_grid(struct work *w, int jobs, struct fs_err *err)
{
    size_t total = (size_t)w->g->npolicies * (size_t)w->g->nseeds, failed;
    struct exec_out *res = xcalloc(total, sizeof *res);
    struct exec_tasks t = {.n = total, .ctx = w, .run = fill_task};
    int rc = exec_run(&t, jobs, res, &failed, err);
    for (size_t k = 0; rc == 0 && k < total; k++)
        memcpy(&w->res[k], res[k].data, sizeof w->res[k]);
    exec_results_free(res, total);
    free(res);
    return rc;
}

/* ---- outputs ------------------------------------------------------------- */

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

/* The q-quantile of sorted v[0..n), interpolated linearly (numpy's
 * default, which the paper's plots use). */
static double quantile(const double *v, int n, double q)
{
    double pos = q * (n - 1);
    int lo = (int)floor(pos);
    if (lo >= n - 1)
        return v[n - 1];
    return v[lo] + (pos - lo) * (v[lo + 1] - v[lo]);
}

/* Unallocated % of policy p at x % arrived over the seeds, sorted. */
static void unallocated(const struct work *w, int p, int x, double *v)
{
    for (int s = 0; s < w->g->nseeds; s++)
        v[s] = 100 - w->res[p * w->g->nseeds + s].bin[x].allocated_pct;
    qsort(v, (size_t)w->g->nseeds, sizeof *v, cmp_double);
}

static void write_curves(FILE *f, const struct work *w)
{
    fprintf(f, "policy,seed,arrived_pct,allocated_pct,fragmented_pct,frag_ratio_pct\n");
    for (int p = 0; p < w->g->npolicies; p++)
        for (int s = 0; s < w->g->nseeds; s++) {
            const struct fill_result *r = &w->res[p * w->g->nseeds + s];
            for (int x = 0; x <= FILL_MAX_PCT; x++)
                fprintf(f, "%s,%llu,%d,%.2f,%.2f,%.2f\n", w->g->policy[p]->name,
                        (unsigned long long)w->g->seeds[s], x, r->bin[x].allocated_pct,
                        r->bin[x].fragmented_pct, r->bin[x].frag_ratio_pct);
        }
}

static void write_medians(FILE *f, const struct work *w)
{
    double *v = xmalloc((size_t)w->g->nseeds * sizeof *v);
    fprintf(f, "policy,arrived_pct,unallocated_median,unallocated_p25,unallocated_p75\n");
    for (int p = 0; p < w->g->npolicies; p++)
        for (int x = 0; x <= FILL_MAX_PCT; x++) {
            unallocated(w, p, x, v);
            fprintf(f, "%s,%d,%.3f,%.3f,%.3f\n", w->g->policy[p]->name, x,
                    quantile(v, w->g->nseeds, 0.5), quantile(v, w->g->nseeds, 0.25),
                    quantile(v, w->g->nseeds, 0.75));
        }
    free(v);
}

/* One panel of the chart: every policy's median and 25-75 % band. */
static void write_panel(FILE *f, const struct work *w)
{
    fprintf(f, "plot \\\n");
    for (int p = 0; p < w->g->npolicies; p++) {
        const char *name = w->g->policy[p]->name;
        fprintf(f, "  \"fill-median.csv\" skip 1 using 2:(strcol(1) eq \"%s\" ? $4 : NaN):"
                   "(strcol(1) eq \"%s\" ? $5 : NaN) with filledcurves fs transparent solid 0.15 "
                   "noborder lc %d notitle, \\\n"
                   "  \"fill-median.csv\" skip 1 using 2:(strcol(1) eq \"%s\" ? $3 : NaN) "
                   "with lines lw 2 lc %d title \"%s\"%s\n",
                name, name, p + 1, name, p + 1, name, p + 1 < w->g->npolicies ? ", \\" : "");
    }
}

/* A gnuplot script drawing fill-median.csv like the paper's Fig. 9a, the
 * whole run and the saturated end; run in DIR it writes fill.svg (or the
 * file named by -e 'out="..."'). */
static void write_script(FILE *f, const struct work *w)
{
    fprintf(f, "# fill.gp - written by fleetsim fill.  Run in this folder: gnuplot fill.gp\n"
               "# Median over %d seeds of the unallocated GPU share (100 - allocated %%)\n"
               "# against the arrived GPU demand, with the 25-75 %% band (the FGD paper's\n"
               "# Fig. 9a): the whole run, and the end where the policies part.\n"
               "if (!exists(\"out\")) out = \"fill.svg\"\n"
               "set terminal svg size 1200,520 dynamic background rgb \"white\"\n"
               "set output out\n"
               "set datafile separator \",\"\n"
               "set xlabel \"Arrived workload (%% of cluster GPU capacity)\"\n"
               "set ylabel \"Unallocated GPU (%%)\"\n"
               "set grid\n"
               "set multiplot layout 1,2\n"
               "set key top right\n"
               "set xrange [0:%d]\n"
               "set yrange [0:100]\n",
            w->g->nseeds, FILL_MAX_PCT);
    write_panel(f, w);
    fprintf(f, "set xrange [80:%d]\n"
               "set yrange [0:25]\n"
               "set key top right\n", FILL_MAX_PCT);
    write_panel(f, w);
    fprintf(f, "unset multiplot\n");
}

enum { OUT_CURVES, OUT_MEDIANS, OUT_SCRIPT, OUT_COUNT };
static const char *const out_names[OUT_COUNT] = {"fill.csv", "fill-median.csv", "fill.gp"};

/* Write the three files and, with gnuplot, the chart fill.svg into a set
 * committed whole or not at all (reports/output.h).  *drawn: the chart was
 * rendered. */
static int write_outputs(const struct work *w, const char *dir, bool *drawn, struct fs_err *err)
{
    struct outset set;
    struct outfile out[OUT_COUNT] = {0}, svg = {0};
    int rc = out_set_begin(&set, dir, err);
    for (int k = 0; !rc && k < OUT_COUNT; k++)
        rc = out_set_open(&set, &out[k], out_names[k], err);
    if (!rc) {
        write_curves(out[OUT_CURVES].f, w);
        write_medians(out[OUT_MEDIANS].f, w);
        write_script(out[OUT_SCRIPT].f, w);
    }
    for (int k = 0; !rc && k < OUT_COUNT; k++)
        rc = out_close(&out[k], err);
    if (!rc && !(rc = out_set_open(&set, &svg, "fill.svg", err)) && !(rc = out_close(&svg, err))) {
        const char *gnuplot = charts_gnuplot();
        *drawn = gnuplot && charts_exec(gnuplot, out_set_path(&set), "out='fill.svg'", "fill.gp", svg.tmp) == 0;
        if (!*drawn)
            out_discard(&svg);
    }
    if (!rc)
        rc = out_set_commit(&set, err);
    for (int k = 0; k < OUT_COUNT; k++)
        out_discard(&out[k]);
    out_discard(&svg);
    out_set_end(&set);
    return rc;
}

static void print_summary(const struct work *w, int nnodes, double wall, int jobs)
{
    const struct grid *g = w->g;
    const struct fill_result *r0 = &w->res[0];
    double *v = xmalloc((size_t)g->nseeds * sizeof *v);
    fprintf(stderr, "fill: %d policies x %d seeds on %d nodes, %lld GPUs; %zu pods "
                    "(%zu clones) for seed %llu; %.2f s wall on %d workers\n",
            g->npolicies, g->nseeds, nnodes, (long long)(r0->capacity_milli / GPU_MILLI),
            r0->pods, r0->clones, (unsigned long long)g->seeds[0], wall, jobs);
    fprintf(stderr, "  %-16s %22s %22s\n", "policy", "unallocated @ 90 %", "unallocated @ 100 %");
    for (int p = 0; p < g->npolicies; p++) {
        unallocated(w, p, 90, v);
        double u90 = quantile(v, g->nseeds, 0.5);
        unallocated(w, p, 100, v);
        double u100 = quantile(v, g->nseeds, 0.5);
        fprintf(stderr, "  %-16s %22.2f %22.2f\n", g->policy[p]->name, u90, u100);
    }
    fprintf(stderr, "  (median over seeds, %% of GPU capacity)\n");
    free(v);
}

/* Read the inputs, run the grid, write the outputs. */
static int fill(const char *nodes, const char *pods, const char *catalog, const struct grid *g,
                const char *dir, int jobs, bool quiet, struct fs_err *err)
{
    struct gpu_catalog *cat = NULL;
    struct fleet_group *fleet = NULL;
    struct workload wl;
    struct work w = {.g = g};
    struct timespec t0, t1;
    int nfleet = 0, nnodes = 0, total = g->npolicies * g->nseeds;
    workload_init(&wl);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = gpu_catalog_load(catalog, &cat, err);
    if (!rc)
        rc = openb_read_nodes(nodes, cat, &fleet, &nfleet, NULL, err);
    if (!rc)
        rc = openb_read_pods(pods, NULL, cat, &wl, NULL, err);
    if (rc)
        goto done;
    for (int k = 0; k < nfleet; k++)
        nnodes += fleet[k].nodes;
    w.base = (struct fill_spec){.cat = cat, .fleet = fleet, .nfleet = nfleet,
                                .pods = wl.jobs, .npods = wl.n};
    w.res = xcalloc((size_t)total, sizeof *w.res);
    bool drawn = false;
    if ((rc = run_grid(&w, jobs, err)) || (rc = write_outputs(&w, dir, &drawn, err)))
        goto done;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (!quiet)
        print_summary(&w, nnodes,
                      (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
                      jobs < total ? jobs : total);
    if (!quiet)
        fprintf(stderr, "  wrote %s/{fill.csv,fill-median.csv,fill.gp%s}%s%s%s\n", dir, drawn ? ",fill.svg" : "",
                drawn ? "" : "; no chart (gnuplot was not found or failed): cd ", drawn ? "" : dir,
                drawn ? "" : " && gnuplot fill.gp");
done:
    free(w.res);
    workload_free(&wl);
    free(fleet);
    gpu_catalog_free(cat);
    return rc;
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
    struct grid g = {.npolicies = 0};
    struct fs_err err = {0};
    int rc = parse_policies(&g, policies);
    if (!rc)
        rc = parse_seeds(&g, seeds);
    if (rc) {
        free(g.seeds);
        return 64;
    }
    rc = fill(nodes, pods, catalog ? catalog : cli_default_catalog(), &g, dir, jobs, quiet,
              &err);
    free(g.seeds);
    return rc ? cli_fail(&err) : 0;
}
