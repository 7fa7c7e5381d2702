/* cmd_regress.c - `fleetsim regress SUITE --baseline FILE [--update]`: the
 * options, one call into study/regress.h, the exit status. */
#include <getopt.h>
#include <stdio.h>

#include "../study/regress.h"
#include "cli.h"

static int usage(int code)
{
    FILE *f = code ? stderr : stdout;
    fprintf(f, "usage: fleetsim regress SUITE --baseline FILE [--update] [--catalog FILE] [--quiet]\n\n"
               "Run every scenario of SUITE (a folder of *.json, or a file listing scenarios)\n"
               "and compare its metrics with FILE.  Prints a table of what got better, worse\n"
               "and stayed within tolerance.  --update writes FILE from this run instead.\n\n"
               "Exit: 0 nothing worse, 1 a metric got worse or a scenario is not in the\n"
               "baseline, 64 usage, 65 bad data, 66 missing input, 73 cannot write FILE.\n");
    return code;
}

const struct option regress_opts[] = {
    {"baseline", required_argument, NULL, 'b'}, {"update", no_argument, NULL, 'u'},
    {"catalog", required_argument, NULL, 'c'},  {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0},
};

int cmd_regress(int argc, char **argv)
{
    const struct option *opts = regress_opts;
    struct scenario_options so = {.catalog = NULL};
    const char *baseline = NULL;
    bool update = false, quiet = false;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":b:uqh", opts, NULL)) != -1) {
        switch (c) {
        case 'b': baseline = optarg; break;
        case 'u': update = true; break;
        case 'c': so.catalog = optarg; break;
        case 'q': quiet = true; break;
        case 'h': return usage(0);
        default:
            cli_bad_option("regress", c, argv[optind - 1], opts);
            return usage(64);
        }
    }
    if (optind != argc - 1 || !baseline) {
        fprintf(stderr, "fleetsim: regress: expected one SUITE and --baseline FILE\n");
        return usage(64);
    }
    if (!so.catalog)
        so.catalog = cli_default_catalog();
    struct fs_err err = {0};
    struct regress_opts o = {.suite = argv[optind], .baseline = baseline, .update = update, .quiet = quiet, .so = so};
    int rc = regress_run(&o, &err);
    return rc < 0 ? cli_fail(&err) : rc;
}
