/* cmd_gen.c - `fleetsim gen`: write a synthetic scenario of a given size (a
 * mixed fleet and a generator workload that keeps it busy), for benchmarks
 * and scale tests.  The file is plain scenario JSON that `fleetsim run`
 * accepts as is; the same arguments always give the same bytes. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/gen_scenario.h"
#include "../reports/output.h"
#include "../sched/sched.h"
#include "cli.h"

static int usage(int code)
{
    FILE *f = code ? stderr : stdout;
    fprintf(f, "usage: fleetsim gen --jobs N --gpus G -o FILE.json [--seed S] [--policy NAME]\n"
               "                    [--load PCT] [--classes default|FILE] [--diurnal A[@H]]\n"
               "                    [--catalog FILE]\n\n"
               "Write a synthetic scenario: about G GPUs in 8-GPU nodes, %d %% H100 SXM,\n"
               "%d %% H200 SXM, %d %% A100 SXM 80GB and %d %% RTX 4090 (whole nodes, at least\n"
               "one of each type from 32 GPUs), and a generated workload of N jobs of 1, 2,\n"
               "4 or 8 GPUs arriving at a rate that offers %.1f %% (--load) of the fleet's throughput\n"
               "capacity (from the catalog's throughput model); with --classes, jobs of the\n"
               "classes on a fleet of the same types sized to them.  The run has no horizon:\n"
               "it ends when the last job does.  The same arguments always write the same\n"
               "file.\n\n"
               "  -n, --jobs N        number of jobs, 1..%lld\n"
               "  -g, --gpus G        fleet size in GPUs, 8..%lld (rounded to whole nodes)\n"
               "  -s, --seed S        the scenario's seed (default 1)\n"
               "  -p, --policy NAME   the scenario's policy (default best-fit), one of:\n"
               "                     ",
            gen_fleet_mix[0].percent, gen_fleet_mix[1].percent, gen_fleet_mix[2].percent,
            gen_fleet_mix[3].percent, 100 * GEN_TARGET_LOAD, GEN_MAX_JOBS, GEN_MAX_GPUS);
    for (size_t i = 0; sched_policies[i]; i++)
        fprintf(f, "%s%s", i && i % 6 == 0 ? "\n                      " : " ", sched_policies[i]->name);
    fprintf(f, "\n"
               "  -l, --load PCT      offered load in %% of the fleet's throughput capacity,\n"
               "                      %g..%g (default %g; over 100 the queue grows: overload)\n"
               "      --classes default|FILE  draw the jobs from job classes (a kind, a model\n"
               "                      and its memory need, GPU counts, durations; default:\n"
               "                      job_classes.json beside the catalog) and size the\n"
               "                      fleet to them: each class's jobs spread over the types\n"
               "                      that hold them, each type given nodes for the GPU time\n"
               "                      it is offered, so every type is offered about --load;\n"
               "                      a type no class fits is left out (said on stderr)\n"
               "      --diurnal A[@H] bursty arrivals: the rate swings by the share A (0..1)\n"
               "                      around its mean over each day, peaking at hour H\n"
               "                      (0..%.8g, default %g); the mean rate is unchanged\n"
               "  -o, --output FILE   the scenario file to write (its folder is created)\n"
               "      --max-output-mb N  write at most N MiB in all, else exit 73 (default 10240)\n"
               "      --catalog FILE  GPU catalog whose throughput model sizes the rate\n"
               "                      (default: $FLEETSIM_DATA/gpus.json or the shipped one)\n"
               "  -h, --help          this help\n", GEN_MIN_LOAD, GEN_MAX_LOAD, 100 * GEN_TARGET_LOAD,
            GEN_DIURNAL_MAX_H, GEN_DIURNAL_PEAK_H);
    return code;
}

/* A decimal integer in [lo, hi] into *v.  RET: 0, or 64 after a message. */
static int parse_int(const char *opt, const char *s, long long lo, long long hi, long long *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno == ERANGE || *end || !((s[0] >= '0' && s[0] <= '9') || s[0] == '-')) {
        fprintf(stderr, "fleetsim: gen: %s: \"%s\" is not an integer\n", opt, s);
        return 64;
    }
    if (x < lo || x > hi) {
        fprintf(stderr, "fleetsim: gen: %s: %lld is out of range [%lld, %lld]\n", opt, x, lo, hi);
        return 64;
    }
    *v = x;
    return 0;
}

/* --diurnal A[@H] into o.  RET: 0, or 64 after a message. */
static int parse_diurnal(const char *s, struct gen_scenario *o)
{
    char *end, *hend = NULL;
    double a = strtod(s, &end), h = GEN_DIURNAL_PEAK_H;
    if (end != s && *end == '@')
        h = strtod(end + 1, &hend);
    if (end == s || (*end && (*end != '@' || hend == end + 1 || *hend)) || !(a >= 0 && a <= 1) ||
        !(h >= 0 && h <= GEN_DIURNAL_MAX_H)) {
        fprintf(stderr, "fleetsim: gen: --diurnal: \"%s\" is not AMPLITUDE[@PEAK_HOUR] with an amplitude "
                "from 0 to 1 and an hour from 0 to %.8g\n", s,
                GEN_DIURNAL_MAX_H);
        return 64;
    }
    o->diurnal_amplitude = a;
    o->diurnal_peak_h = h;
    return 0;
}

/* Size the fleet and the arrival rate, then write the file atomically. */
static int generate(const struct gen_scenario *o, const char *path, struct fs_err *err)
{
    struct gen_sizing z;
    struct outfile out = {0};
    int rc = gen_scenario_size(o, &z, err);
    for (int i = 0; rc == 0 && i < GEN_FLEET_TYPES; i++)
        if ((z.unused | z.crowded) >> i & 1)
            fprintf(stderr, "fleetsim: gen: --classes %s: %s left out of the fleet: %s\n", o->classes,
                    gen_fleet_mix[i].gpu, z.unused >> i & 1 ? "no class fits it"
                    : "its nodes went to the largest jobs, which need whole nodes of one type");
    if (rc == 0 && (rc = out_open_path(&out, path, err)) == 0) {
        gen_scenario_write(out.f, o, &z);
        if (!(rc = out_close(&out, err)))
            rc = out_commit(&out, err);
    }
    out_discard(&out);
    return rc;
}

enum { OPT_DIURNAL = CLI_MAX_OUTPUT + 1, OPT_CLASSES };

const struct option gen_opts[] = {
    {"jobs", required_argument, NULL, 'n'},   {"gpus", required_argument, NULL, 'g'},
    {"seed", required_argument, NULL, 's'},   {"policy", required_argument, NULL, 'p'},
    {"output", required_argument, NULL, 'o'}, {"catalog", required_argument, NULL, 'c'},
    {"load", required_argument, NULL, 'l'},   {"help", no_argument, NULL, 'h'},
    {"diurnal", required_argument, NULL, OPT_DIURNAL}, {"classes", required_argument, NULL, OPT_CLASSES},
    CLI_OPT_MAX_OUTPUT,
    {NULL, 0, NULL, 0},
};

int cmd_gen(int argc, char **argv)
{
    const struct option *opts = gen_opts;
    struct gen_scenario o = {.seed = 1, .policy = "best-fit", .load = GEN_TARGET_LOAD};
    const char *out = NULL;
    long long v;
    int c, rc;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":n:g:s:p:o:l:h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if ((rc = parse_int("--jobs", optarg, 1, GEN_MAX_JOBS, &o.jobs)))
                return rc;
            break;
        case 'g':
            if ((rc = parse_int("--gpus", optarg, GEN_GPUS_PER_NODE, GEN_MAX_GPUS, &o.gpus)))
                return rc;
            break;
        case 's':
            /* The scenario's seed range, 0 ... 2^53. */
            if ((rc = parse_int("--seed", optarg, 0, 1LL << 53, &v)))
                return rc;
            o.seed = (unsigned long long)v;
            break;
        case 'p': o.policy = optarg; break;
        case 'l': {
            char *end;
            double pct = strtod(optarg, &end);
            if (end == optarg || *end || !(pct >= GEN_MIN_LOAD && pct <= GEN_MAX_LOAD)) {
                fprintf(stderr, "fleetsim: gen: --load: \"%s\" is not a percentage from %g to %g\n",
                        optarg, GEN_MIN_LOAD, GEN_MAX_LOAD);
                return 64;
            }
            o.load = pct / 100;
            break;
        }
        case OPT_CLASSES: o.classes = optarg; break;
        case OPT_DIURNAL:
            if ((rc = parse_diurnal(optarg, &o)))
                return rc;
            break;
        case CLI_MAX_OUTPUT:
            if (cli_parse_max_output("gen", optarg))
                return 64;
            break;
        case 'o':
            if (cli_parse_output("gen", optarg, &out))
                return 64;
            break;
        case 'c': o.catalog = optarg; break;
        case 'h': return usage(0);
        default:
            cli_bad_option("gen", c, argv[optind - 1], opts);
            return usage(64);
        }
    }
    if (optind != argc) {
        fprintf(stderr, "fleetsim: gen: unexpected argument \"%s\"\n", argv[optind]);
        return usage(64);
    }
    const char *missing = !o.jobs ? "--jobs N" : !o.gpus ? "--gpus G" : !out ? "-o FILE" : NULL;
    if (missing) {
        fprintf(stderr, "fleetsim: gen: missing %s\n", missing);
        return usage(64);
    }
    if (!sched_policy_find(o.policy)) {
        size_t n;
        const char *const *names = sched_policy_names(&n);
        const char *near = fs_suggest(o.policy, names, n);
        fprintf(stderr, "fleetsim: gen: --policy: unknown policy \"%s\"%s%s%s\n", o.policy,
                near ? "; did you mean \"" : "", near ? near : "", near ? "\"?" : "");
        return 64;
    }
    if (!o.catalog)
        o.catalog = cli_default_catalog();
    /* A class file goes into the scenario as an absolute path: the
     * scenario reads relative paths from its own folder. */
    char *classes = NULL;
    if (o.classes && strcmp(o.classes, "default") != 0) {
        if (!(classes = realpath(o.classes, NULL))) {
            fprintf(stderr, "fleetsim: gen: --classes: %s: %s\n", o.classes, strerror(errno));
            return 66;
        }
        o.classes = classes;
    }
    struct fs_err err = {0};
    rc = generate(&o, out, &err) ? cli_fail(&err) : 0;
    free(classes);
    return rc;
}
