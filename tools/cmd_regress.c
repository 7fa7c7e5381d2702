/* cmd_regress.c - `fleetsim regress SUITE --baseline FILE [--update]`: the
 * options, one call into study/regress.h, the exit status. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "../study/regress.h"
#include "cli.h"

static bool mute; /* MPI ranks other than 0 print nothing */

static int usage(int code)
{
    if (mute)
        return code;
    FILE *f = code ? stderr : stdout;
    fprintf(f, "usage: fleetsim regress SUITE --baseline FILE [--update] [--seeds N] [--first-seed S]\n"
               "                        [--allow-skip] [--junit FILE] [--json] [-j N] [--policy NAME]\n"
               "                        [--policy-lib PATH.so] [--catalog FILE] [--quiet]\n\n"
               "Run every scenario of SUITE (a folder of *.json, or a file listing scenarios) on\n"
               "N seeds and compare each gated metric with FILE: the change of the mean, its 95%%\n"
               "interval (Welch's t) and the verdict.  A metric is WORSE when the whole interval\n"
               "lies beyond its tolerance in its bad direction (docs/regress.md).\n\n"
               "  -b, --baseline FILE  the baseline (scenarios keyed by their path relative to SUITE)\n"
               "  -u, --update         write FILE from this run instead (keeps its tolerance overrides)\n"
               "      --seeds N        seeds per scenario (default: the baseline's; --update: %d)\n"
               "      --first-seed S   the seeds are S, S+1, ... (default: the baseline's; --update: 1)\n"
               "      --allow-skip     a scenario skipped (its trace absent) or only in the baseline\n"
               "                       does not fail the gate\n"
               "      --junit FILE     also write the verdicts as JUnit XML (a testcase per scenario\n"
               "                       and metric)\n"
               "      --json           the verdicts as JSON on stdout instead of the table\n"
               "  -j, --jobs N         worker processes (default: the CPUs online); under mpirun\n"
               "                       (a build with make MPI=1) the MPI ranks share the runs\n"
               "  -p, --policy NAME    run every scenario under this policy\n"
               "      --policy-lib PATH.so  load the policies of a plugin first (docs/policy-plugins.md)\n"
               "      --catalog FILE   GPU catalog when a scenario names none\n"
               "  -q, --quiet          only what changed, no progress\n"
               "  -h, --help           this help\n\n"
               "Exit: 0 nothing worse, 1 a metric got worse, a scenario is not in the baseline\n"
               "(or only in it), or was skipped without --allow-skip; 64 usage, 65 bad data (a\n"
               "malformed or empty baseline), 66 missing input, 73 cannot write FILE.\n",
            REGRESS_DEFAULT_SEEDS);
    return code;
}

/* A whole number in [lo, hi] for option name.  RET: 0 or 64. */
static int parse_count(const char *name, const char *arg, unsigned long long lo, unsigned long long hi,
                       unsigned long long *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 10);
    if (errno || *end || arg[0] < '0' || arg[0] > '9' || v < lo || v > hi) {
        if (!mute)
            fprintf(stderr, "fleetsim: regress: %s: \"%s\" is not a whole number from %llu to %llu\n", name, arg,
                    lo, hi);
        return 64;
    }
    *out = v;
    return 0;
}

enum { OPT_SEEDS = 256, OPT_FIRST, OPT_ALLOW_SKIP, OPT_JUNIT, OPT_JSON, OPT_POLICY_LIB };

const struct option regress_opts[] = {
    {"baseline", required_argument, NULL, 'b'},    {"update", no_argument, NULL, 'u'},
    {"catalog", required_argument, NULL, 'c'},     {"quiet", no_argument, NULL, 'q'},
    {"seeds", required_argument, NULL, OPT_SEEDS}, {"first-seed", required_argument, NULL, OPT_FIRST},
    {"allow-skip", no_argument, NULL, OPT_ALLOW_SKIP}, {"junit", required_argument, NULL, OPT_JUNIT},
    {"json", no_argument, NULL, OPT_JSON},         {"jobs", required_argument, NULL, 'j'},
    {"policy", required_argument, NULL, 'p'},      {"help", no_argument, NULL, 'h'},
    /* main takes it out of argv first (cli_policy_libs); here for completion */
    {"policy-lib", required_argument, NULL, OPT_POLICY_LIB},
    {NULL, 0, NULL, 0},
};

static int regress_main(int argc, char **argv, int rank, int nranks)
{
    const struct option *opts = regress_opts;
    struct regress_opts o = {.jobs = exec_cpus(), .rank = rank, .nranks = nranks, .quiet = mute};
    unsigned long long v;
    int c, rc = 0;
    opterr = 0;
    while (rc == 0 && (c = getopt_long(argc, argv, ":b:uc:qj:p:h", opts, NULL)) != -1) {
        switch (c) {
        case 'b': o.baseline = optarg; break;
        case 'u': o.update = true; break;
        case 'c': o.so.catalog = optarg; break;
        case 'q': o.quiet = true; break;
        case 'p': o.so.policy = optarg; break;
        case 'j': rc = cli_parse_jobs(optarg, "regress", mute, &o.jobs); break;
        case OPT_SEEDS:
            if ((rc = parse_count("--seeds", optarg, 1, REGRESS_MAX_SEEDS, &v)) == 0)
                o.seeds = (int)v;
            break;
        case OPT_FIRST:
            if ((rc = parse_count("--first-seed", optarg, 0, FS_SEED_MAX, &v)) == 0) {
                o.has_first_seed = true;
                o.first_seed = v;
            }
            break;
        case OPT_ALLOW_SKIP: o.allow_skip = true; break;
        case OPT_JUNIT: o.junit = optarg; break;
        case OPT_JSON: o.json = true; break;
        case 'h': return usage(0);
        default:
            if (!mute)
                cli_bad_option("regress", c, argv[optind - 1], opts);
            return usage(64);
        }
    }
    if (rc)
        return usage(rc);
    if (optind != argc - 1 || !o.baseline) {
        if (!mute)
            fprintf(stderr, "fleetsim: regress: expected one SUITE and --baseline FILE\n");
        return usage(64);
    }
    if (o.update && (o.json || o.junit)) {
        if (!mute)
            fprintf(stderr, "fleetsim: regress: --update writes the baseline and judges nothing: no --json or --junit\n");
        return usage(64);
    }
    if (!o.so.catalog)
        o.so.catalog = cli_default_catalog();
    o.suite = argv[optind];
    struct fs_err err = {0};
    rc = regress_run(&o, &err);
    if (rc < 0 && !mute)
        return cli_fail(&err);
    return rc < 0 ? fs_exit_code(rc) : rc;
}

int cmd_regress(int argc, char **argv)
{
    int rank, nranks;
    exec_mpi_begin(&argc, &argv, &rank, &nranks);
    mute = rank > 0;
    int rc = regress_main(argc, argv, rank, nranks);
    exec_mpi_end();
    return rc;
}
