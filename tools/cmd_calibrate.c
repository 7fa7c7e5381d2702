/* cmd_calibrate.c - `fleetsim calibrate power CSV`: fit the power model's
 * logistic to measured points (from bench/gpu-power.sh, or any "x,watts"
 * table) and print the parameters to put in models/data/power.json's
 * place, with the fit error. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/read_points.h"
#include "../reports/models_report.h"
#include "cli.h"

#define CAL_MAX_POINTS 512

static int usage(int code)
{
    FILE *f = code ? stderr : stdout;
    fprintf(f, "usage: fleetsim calibrate power CSV [--log2] [--json]\n\n"
               "Fit P(x) = lo + (hi - lo) / (1 + exp(-k (x - x0))) to the rows \"x,watts\" of\n"
               "CSV (x: a load share, or a batch size with --log2; a header line, blank lines\n"
               "and '#' comments are allowed) and print lo, hi, k, x0 and the fit's maximum\n"
               "and RMS relative error.\n\n"
               "      --log2   fit in log2(x) instead of x (x must be > 0)\n"
               "      --json   print one JSON object on stdout instead of text\n"
               "  -h, --help   this help\n");
    return code;
}

const struct option calibrate_opts[] = {
    {"log2", no_argument, NULL, 'l'},
    {"json", no_argument, NULL, 'j'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int calibrate_power(int argc, char **argv)
{
    const struct option *opts = calibrate_opts;
    bool log2x = false, json = false;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'l': log2x = true; break;
        case 'j': json = true; break;
        case 'h': return usage(0);
        default:
            fprintf(stderr, "fleetsim: calibrate power: unknown option %s\n", argv[optind - 1]);
            return usage(64);
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "fleetsim: calibrate power: expected one CSV file, got %d arguments\n",
                argc - optind);
        return usage(64);
    }
    const char *path = argv[optind];
    double *x = xmalloc(2 * CAL_MAX_POINTS * sizeof *x), *y = x + CAL_MAX_POINTS;
    size_t n = 0;
    struct fs_err err = {0};
    struct power_logistic fit;
    struct power_fit_stats st;
    int rc = read_points(path, log2x, x, y, CAL_MAX_POINTS, &n, &err);
    if (!rc && (rc = power_fit_logistic(x, y, n, &fit, &st, &err))) {
        char why[sizeof err.msg];
        snprintf(why, sizeof why, "%s", err.msg);
        rc = fs_fail(&err, rc, "%s: %s", path, why);
    }
    free(x);
    if (rc)
        return cli_fail(&err);
    if (!st.converged)
        fprintf(stderr, "fleetsim: %s: warning: the fit did not converge in 500 iterations; the "
                        "points may lie on a line, which a logistic only approaches as k -> 0 "
                        "(these are the last parameters)\n", path);
    power_fit_print(stdout, path, log2x, json, &fit, &st);
    return 0;
}

int cmd_calibrate(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(int argc, char **argv);
    } subjects[] = {
        {"power", calibrate_power},
    };
    if (argc < 2) {
        fprintf(stderr, "fleetsim: calibrate: no subject given\n");
        return usage(64);
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
        return usage(0);
    for (size_t i = 0; i < FS_ARRAY_LEN(subjects); i++)
        if (strcmp(argv[1], subjects[i].name) == 0)
            return subjects[i].run(argc - 1, argv + 1);
    fprintf(stderr, "fleetsim: calibrate: unknown subject \"%s\" (known: power)\n", argv[1]);
    return usage(64);
}
