/* cmd_calibrate.c - `fleetsim calibrate power CSV`: fit the power model's
 * logistic to measured points (from bench/gpu-power.sh, or any "x,watts"
 * table) and print the parameters to put in models/data/power.json's
 * place, with the fit error. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "../models/power.h"
#include "cli.h"

#define CAL_MAX_POINTS 512
/* Input beyond this is refused, not read: 512 points need a few kB. */
#define CAL_MAX_BYTES (1L << 20)

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

/* A number at s, then only blanks up to the end or to a comma.  OUT *end:
 * where it stopped.  RET: 0, or -1 when there is no finite number. */
static int parse_field(const char *s, double *out, const char **end)
{
    char *e;
    errno = 0;
    *out = strtod(s, &e);
    if (e == s || errno == ERANGE || !isfinite(*out))
        return -1;
    *end = e + strspn(e, " \t\r");
    return **end && **end != ',' ? -1 : 0;
}

/* "x,watts": two numbers and nothing else.  RET: 0 or -1. */
static int parse_row(const char *s, double *x, double *w)
{
    const char *end;
    if (parse_field(s, x, &end) || *end != ',' || parse_field(end + 1, w, &end))
        return -1;
    return *end ? -1 : 0;
}

/* Read the points of path into x[], y[].  RET: 0 or FS_E* with err set. */
static int read_points(const char *path, bool log2x, double *x, double *y, size_t *n,
                       struct fs_err *err)
{
    FILE *f;
    int rc = fs_open_input(path, &f, err);
    if (rc)
        return rc;
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && st.st_size > CAL_MAX_BYTES) {
        fclose(f);
        return fs_fail(err, FS_EDATA, "%s: %lld bytes, more than the %ld a calibration input may hold (%d points)",
                       path, (long long)st.st_size, CAL_MAX_BYTES, CAL_MAX_POINTS);
    }
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    bool seen = false; /* a data or header line was read */
    *n = 0;
    long bytes = 0;
    for (ssize_t len; !rc && (len = getline(&line, &cap, f)) != -1;) {
        lineno++;
        if ((bytes += len) > CAL_MAX_BYTES) {
            rc = fs_fail(err, FS_EDATA, "%s:%ld: input larger than %ld bytes (at most %d points)", path,
                         lineno, CAL_MAX_BYTES, CAL_MAX_POINTS);
            break;
        }
        line[strcspn(line, "#\n")] = '\0';
        char *s = line + strspn(line, " \t\r");
        if (!*s)
            continue;
        double a, b;
        const char *end;
        bool ok = parse_row(s, &a, &b) == 0;
        if (!ok && !seen && parse_field(s, &a, &end)) {
            seen = true; /* a header: the first line, whose first field is no number */
            continue;
        }
        seen = true;
        if (!ok)
            rc = fs_fail(err, FS_EDATA, "%s:%ld: expected two numbers \"x,watts\", got \"%s\"",
                         path, lineno, s);
        else if (!(b > 0))
            rc = fs_fail(err, FS_EDATA, "%s:%ld: watts must be > 0, got %g", path, lineno, b);
        else if (log2x && !(a > 0))
            rc = fs_fail(err, FS_EDATA, "%s:%ld: x must be > 0 with --log2, got %g", path,
                         lineno, a);
        else if (*n == CAL_MAX_POINTS)
            rc = fs_fail(err, FS_EDATA, "%s:%ld: more than %d points", path, lineno,
                         CAL_MAX_POINTS);
        else {
            x[*n] = log2x ? log2(a) : a;
            y[(*n)++] = b;
        }
    }
    if (!rc && ferror(f))
        rc = fs_fail(err, FS_ENOINPUT, "%s: cannot read: %s", path, strerror(errno));
    free(line);
    fclose(f);
    return rc;
}

static void print_fit(const char *path, bool log2x, bool json, const struct power_logistic *c,
                      const struct power_fit_stats *st)
{
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "file", path);
        cJSON_AddStringToObject(o, "x", log2x ? "log2" : "linear");
        cJSON_AddNumberToObject(o, "n", (double)st->n);
        cJSON_AddNumberToObject(o, "lo", c->lo);
        cJSON_AddNumberToObject(o, "hi", c->hi);
        cJSON_AddNumberToObject(o, "k", c->k);
        cJSON_AddNumberToObject(o, "x0", c->x0);
        cJSON_AddNumberToObject(o, "max_rel_err", st->max_rel_err);
        cJSON_AddNumberToObject(o, "rms_rel_err", st->rms_rel_err);
        cJSON_AddBoolToObject(o, "converged", st->converged);
        char *s = cJSON_Print(o);
        printf("%s\n", s);
        cJSON_free(s);
        cJSON_Delete(o);
        return;
    }
    printf("%s: logistic fit of %zu points, x = %s\n"
           "  lo  %.6g W\n  hi  %.6g W\n  k   %.6g\n  x0  %.6g",
           path, st->n, log2x ? "log2(first column)" : "first column", c->lo, c->hi, c->k, c->x0);
    if (log2x)
        printf(" (at %.4g)", exp2(c->x0));
    printf("\n  max relative error  %.2f %%\n  rms relative error  %.2f %%\n",
           100 * st->max_rel_err, 100 * st->rms_rel_err);
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
    int rc = read_points(path, log2x, x, y, &n, &err);
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
    print_fit(path, log2x, json, &fit, &st);
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
