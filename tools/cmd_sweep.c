/* cmd_sweep.c - `fleetsim sweep GRID.json [-j N] [-o DIR]`: run a scenario
 * at every point of a parameter grid and tabulate each point's metrics.
 *
 * The grid (JSON):
 *   {"scenario": "PATH",            relative to the grid file
 *    "parameters": {"KEY.PATH": [v1, v2, ...], ...},
 *    "seeds": [1, 2]}               optional: the scenario's seed otherwise
 * A key path addresses the scenario's JSON: object keys joined by dots and
 * array indexes in brackets ("fleet[0].nodes", "scheduler.policy").  A key
 * that is not there is created (with the objects on its way); an index out
 * of range is an error.  The points are the cross product of the values in
 * the order the parameters are listed (the last varies fastest), times the
 * seeds (fastest of all).
 *
 * Each point is a copy of the scenario tree with the values applied, loaded
 * with scenario_load_tree and run in memory (study/sweep_grid.c) on the
 * executor (run/exec.h): with -j N, N forked workers ask the parent for
 * points over pipes; under mpirun, ranks ask rank 0.  study/sweep_write.c
 * writes results.csv, results.json and the charts from the records in point
 * order, so they are byte-identical for any N and any number of ranks.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reports/output.h"
#include "../study/sweep.h"
#include "cli.h"

static bool mute; /* MPI ranks other than 0 print nothing */

static int usage(int code)
{
    if (mute)
        return code;
    FILE *f = code ? stderr : stdout;
    fprintf(f, "usage: fleetsim sweep GRID.json [-j N] [-o DIR] [--set PATH=VALUE]... [--catalog FILE]\n"
               "                      [--json] [--quiet]\n\n"
               "Run GRID's scenario at every point of its parameter grid and write results.csv,\n"
               "results.json and charts of the p95 wait, the monthly cost and the utilization\n"
               "per point to DIR (default: out/sweep-GRIDNAME).  GRID (JSON):\n"
               "  {\"scenario\": \"PATH (relative to GRID)\",\n"
               "   \"parameters\": {\"fleet[0].nodes\": [2, 4], \"scheduler.policy\": [\"fifo\", \"flux\"]},\n"
               "   \"seeds\": [1, 2]}   (optional)\n"
               "The points: the cross product of the values (the last parameter varies fastest),\n"
               "times the seeds.  The outputs are the same bytes for any -j and any number of\n"
               "MPI ranks (an MPI build, `make MPI=1`, under mpirun: rank 0 hands out points).\n\n"
               "  -j, --jobs N        run N points at a time in worker processes (default: the CPUs)\n"
               "  -o, --output DIR    output folder (created if missing)\n"
               "      --max-output-mb N  write at most N MiB in all, else exit 73 (default 10240)\n"
               "      --set PATH=VALUE\n"
               "                      edit the scenario as read, before the grid's values: PATH a\n"
               "                      key path, VALUE JSON or else a string; repeatable\n"
               "      --catalog FILE  GPU catalog for a scenario that names none\n"
               "      --json          also print results.json on stdout\n"
               "  -q, --quiet         print nothing but errors\n"
               "  -h, --help          this help\n\n"
               "Exit: 0 done, 64 usage, 65 bad grid or a point's scenario is invalid, 66 missing\n"
               "input, 70 a worker died, 73 cannot write the output.\n");
    return code;
}

/* --- the command ------------------------------------------------------------- */

struct args {
    const char *grid, *dir;
    struct scenario_options so; /* --catalog, --set */
    int jobs;
    bool quiet, json;
};

const struct option sweep_opts[] = {
    {"jobs", required_argument, NULL, 'j'},    {"output", required_argument, NULL, 'o'},
    {"catalog", required_argument, NULL, 'c'}, {"quiet", no_argument, NULL, 'q'},
    {"set", required_argument, NULL, 'S'},     {"json", no_argument, NULL, 'J'},
    {"help", no_argument, NULL, 'h'},          CLI_OPT_MAX_OUTPUT, {NULL, 0, NULL, 0},
};

/* The command line into *a.  RET: -1 to go on, or the exit status (0
 * after --help, 64 after a usage error). */
static int parse_args(int argc, char **argv, struct args *a)
{
    const struct option *opts = sweep_opts;
    int c;
    *a = (struct args){.jobs = exec_cpus()};
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":j:o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'j':
            if (cli_parse_jobs(optarg, "sweep", mute, &a->jobs))
                return 64;
            break;
        case CLI_MAX_OUTPUT:
            if (cli_parse_max_output("sweep", optarg))
                return 64;
            break;
        case 'o':
            if (cli_parse_output("sweep", optarg, &a->dir))
                return 64;
            break;
        case 'c': a->so.catalog = optarg; break;
        case 'S':
            if (cli_parse_set(optarg, &a->so))
                return 64;
            break;
        case 'q': a->quiet = true; break;
        case 'J': a->json = true; break;
        case 'h': return usage(0);
        default:
            if (!mute)
                cli_bad_option("sweep", c, argv[optind - 1], opts);
            return usage(64);
        }
    }
    if (optind != argc - 1) {
        if (!mute)
            fprintf(stderr, "fleetsim: sweep: expected one GRID file, got %d arguments\n", argc - optind);
        return usage(64);
    }
    a->grid = argv[optind];
    return -1;
}

static int sweep_main(int argc, char **argv, int rank, int nranks)
{
    struct args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    struct sweep sw = {.so = a.so};
    if (!sw.so.catalog)
        sw.so.catalog = cli_default_catalog();
    char fallback[512];
    if (!a.dir) { /* out/sweep-GRIDNAME */
        const char *b = strrchr(a.grid, '/');
        b = b ? b + 1 : a.grid;
        int len = (int)strlen(b);
        if (len > 5 && strcmp(b + len - 5, ".json") == 0)
            len -= 5;
        snprintf(fallback, sizeof fallback, "out/sweep-%.*s", len, b);
        a.dir = fallback;
    }
    struct fs_err err = {0};
    struct outset set = {.lock = -1};
    rc = sweep_load(&sw, a.grid, &err);
    if (rc == 0 && rank == 0) /* the folder locked for the whole sweep */
        rc = out_set_begin(&set, a.dir, &err);
    if (!exec_mpi_agree(rc == 0) && rc == 0)
        rc = fs_fail(&err, FS_EINTERNAL, "%s: another MPI rank could not load the grid", a.grid);
    if (rc == 0)
        rc = sweep_run(&sw, a.jobs, rank, nranks, a.quiet, &err);
    exec_mpi_end(); /* before gnuplot is forked */
    if (rc == 0 && rank == 0) {
        rc = sweep_write(&sw, &set, &err);
        if (rc == 0 && !a.quiet)
            fprintf(stderr, "  wrote %s/{results.csv,results.json} and %d charts (%zu points)\n", a.dir,
                    (int)SWEEP_CHARTS, sw.npoints);
    }
    out_set_end(&set);
    sweep_free(&sw);
    if (rc == 0 && rank == 0 && a.json)
        return cli_print_file(a.dir, "results.json");
    if (rc == 0 || mute)
        return fs_exit_code(rc);
    return cli_fail(&err);
}

int cmd_sweep(int argc, char **argv)
{
    int rank, nranks;
    exec_mpi_begin(&argc, &argv, &rank, &nranks);
    mute = rank > 0;
    int rc = sweep_main(argc, argv, rank, nranks);
    exec_mpi_end();
    return rc;
}
