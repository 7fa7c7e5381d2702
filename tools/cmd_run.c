/* cmd_run.c - `fleetsim run SCENARIO`: simulate and write the results. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../base/signals.h"
#include "../reports/output.h"
#include "../reports/pdf.h"
#include "../reports/report.h"
#include "../reports/summary.h"
#include "cli.h"

static int usage(int code)
{
    FILE *f = code ? stderr : stdout;
    fprintf(f, "usage: fleetsim run SCENARIO [-o DIR] [--seed N] [--policy NAME] [--set PATH=VALUE]...\n"
               "                    [--catalog FILE] [--check] [--pdf] [--json] [--progress] [--quiet]\n\n"
               "Simulate SCENARIO (JSON, see scenarios/README.md) and write summary.json,\n"
               "jobs.csv, timeseries.csv and timeline.json (Chrome trace, opens in\n"
               "ui.perfetto.dev) to DIR (default: out/SCENARIO-NAME).\n\n"
               "  -o, --output DIR    output folder (created if missing)\n"
               "      --max-output-mb N  write at most N MiB in all, else exit 73 (default 10240)\n"
               "  -s, --seed N        override the scenario's seed\n"
               "  -p, --policy NAME   override the scenario's policy:");
    for (size_t i = 0; sched_policies[i]; i++)
        fprintf(f, " %s", sched_policies[i]->name);
    fprintf(f, "\n"
               "      --set PATH=VALUE\n"
               "                      edit the scenario as read: PATH a key path (fleet[0].nodes,\n"
               "                      scheduler.policy), VALUE JSON or else a string; repeatable\n"
               "      --policy-lib PATH.so  load the policies of a plugin first (docs/policy-plugins.md)\n"
               "      --catalog FILE  GPU catalog when the scenario names none\n"
               "                      (default: $FLEETSIM_DATA/gpus.json or the shipped one)\n"
               "      --check         assert the engine's invariants after every event (check.h);\n"
               "                      a violation exits 70 and writes nothing\n"
               "      --pdf           also write report.pdf, printed from report.html by headless\n"
               "                      Chromium (exit 69 when Chromium is not installed)\n"
               "      --json          also print summary.json on stdout (the summary stays on stderr)\n"
               "      --progress      show a progress bar even when stderr is not a terminal\n"
               "  -q, --quiet         print nothing but errors\n"
               "  -h, --help          this help\n");
    return code;
}

static void progress_bar(void *ctx, fs_time now, fs_time horizon)
{
    (void)ctx;
    if (horizon == FS_TIME_MAX) {
        fprintf(stderr, "\r  simulated %.2f days", fs_to_seconds(now) / 86400);
        return;
    }
    int width = 40, done = (int)((double)width * (double)now / (double)horizon);
    fprintf(stderr, "\r  [%.*s%*s] %3d %%", done, "########################################",
            width - done, "", (int)(100.0 * (double)now / (double)horizon));
}

enum { OUT_SUMMARY, OUT_JOBS, OUT_TIMESERIES, OUT_TIMELINE, OUT_COUNT };
static const char *const out_names[OUT_COUNT] = {"summary.json", "jobs.csv", "timeseries.csv",
                                                 "timeline.json"};

/* Simulate and write every output into the set's private folder, then
 * swap it in for dir (reports/output.h); on any error, or a signal caught
 * before the swap (out_set_commit refuses), dir keeps what it held.
 * RET: 0 or an FS_E* code. */
static int simulate(const struct scenario *sc, const char *dir, bool progress, bool quiet, bool check,
                    struct fs_err *err)
{
    struct outset set = {.lock = -1};
    struct outfile out[OUT_COUNT] = {0};
    struct run_result r = {0};
    struct report rep = {0};
    struct timespec t0, t1;
    int rc;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if ((rc = out_set_begin(&set, dir, err)))
        goto done;
    for (int k = 0; k < OUT_COUNT; k++)
        if ((rc = out_set_open(&set, &out[k], out_names[k], err)))
            goto done;
    if ((rc = report_open(&rep, &set, err)))
        goto done;

    struct run_spec spec = {.sc = sc, .timeseries = out[OUT_TIMESERIES].f, .timeline = out[OUT_TIMELINE].f,
                            .check = check, .progress = progress ? progress_bar : NULL};
    rc = run_scenario(&spec, &r, err);
    if (progress)
        fprintf(stderr, "\r%60s\r", "");
    if (rc)
        goto done;
    if (r.ck.violations) {
        rc = fs_fail(err, FS_EINTERNAL, "%s: --check: %llu invariant violations; the first %s", sc->path,
                     (unsigned long long)r.ck.violations, r.ck.first);
        goto done;
    }

    summary_write_json(out[OUT_SUMMARY].f, &r);
    summary_write_jobs(out[OUT_JOBS].f, r.s);
    for (int k = 0; k < OUT_COUNT; k++)
        if ((rc = out_close(&out[k], err)))
            goto done;
    if ((rc = report_write(&rep, r.s, r.m, &r.st, out[OUT_TIMESERIES].tmp, err)))
        goto done;
    if ((rc = out_set_commit(&set, err)))
        goto done;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (!quiet) {
        summary_print(stderr, r.s, r.m, &r.st);
        if (check)
            fprintf(stderr, "  check        %llu state changes checked, no invariant violated\n",
                    (unsigned long long)r.ck.notes);
        fprintf(stderr, "  wrote        %s/{summary.json,jobs.csv,timeseries.csv,timeline.json,report.md,report.html} "
                        "(%llu events, %.2f s wall)\n", dir, (unsigned long long)r.s->events,
                (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    }
done:
    for (int k = 0; k < OUT_COUNT; k++)
        out_discard(&out[k]);
    report_discard(&rep);
    out_set_end(&set);
    run_result_free(&r);
    return rc;
}

const struct option run_opts[] = {
    {"output", required_argument, NULL, 'o'}, {"seed", required_argument, NULL, 's'},
    {"policy", required_argument, NULL, 'p'}, {"catalog", required_argument, NULL, 'c'},
    {"progress", no_argument, NULL, 'P'},     {"quiet", no_argument, NULL, 'q'},
    {"check", no_argument, NULL, 'C'},        {"pdf", no_argument, NULL, 'F'},
    {"set", required_argument, NULL, 'S'},    {"json", no_argument, NULL, 'J'},
    {"help", no_argument, NULL, 'h'},
    /* main takes it out of argv first (cli_policy_libs); here for completion */
    {"policy-lib", required_argument, NULL, 'L'},
    CLI_OPT_MAX_OUTPUT,
    {NULL, 0, NULL, 0},
};

int cmd_run(int argc, char **argv)
{
    const struct option *opts = run_opts;
    struct scenario_options so = {.catalog = NULL};
    const char *dir = NULL;
    bool progress = isatty(STDERR_FILENO), quiet = false, check = false, pdf = false, json = false;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:s:p:qh", opts, NULL)) != -1) {
        switch (c) {
        case CLI_MAX_OUTPUT:
            if (cli_parse_max_output("run", optarg))
                return 64;
            break;
        case 'o':
            if (cli_parse_output("run", optarg, &dir))
                return 64;
            break;
        case 's':
            if (cli_parse_seed(optarg, &so))
                return 64;
            break;
        case 'p': so.policy = optarg; break;
        case 'c': so.catalog = optarg; break;
        case 'P': progress = true; break;
        case 'C': check = true; break;
        case 'F': pdf = true; break;
        case 'J': json = true; break;
        case 'S':
            if (cli_parse_set(optarg, &so))
                return 64;
            break;
        case 'q': quiet = true; break;
        case 'h': return usage(0);
        default:
            cli_bad_option("run", c, argv[optind - 1], opts);
            return usage(64);
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "fleetsim: run: expected one SCENARIO file, got %d arguments\n", argc - optind);
        return usage(64);
    }
    if (!so.catalog)
        so.catalog = cli_default_catalog();
    if (quiet)
        progress = false;

    struct fs_err err = {0};
    struct scenario *sc = NULL;
    char fallback[512];
    /* Without Chromium, say so before simulating anything. */
    const char *chromium = pdf ? pdf_chromium(&err) : NULL;
    if (pdf && !chromium)
        return cli_fail(&err);
    int rc = scenario_load(argv[optind], &so, &sc, &err);
    if (rc == 0) {
        if (!dir) {
            /* The name may hold anything: keep the folder inside out/. */
            snprintf(fallback, sizeof fallback, "out/%s", sc->name);
            for (char *p = fallback + 4; *p; p++)
                if (*p == '/' || (p == fallback + 4 && *p == '.'))
                    *p = '_';
            dir = fallback;
        }
        rc = out_budget_error(simulate(sc, dir, progress, quiet, check, &err), &err);
        if (rc == 0 && pdf && (rc = pdf_write(chromium, dir, &err)) == 0 && !quiet)
            fprintf(stderr, "  wrote        %s/report.pdf\n", dir);
        if (rc == 0 && json) {
            scenario_free(sc);
            return cli_print_file(dir, "summary.json");
        }
    }
    scenario_free(sc);
    if (rc && fs_interrupted()) { /* also an error the signal caused */
        fprintf(stderr, "fleetsim: interrupted by %s; no results written to %s\n",
                fs_signal_name(fs_interrupted()), dir ? dir : "out/");
        return 128 + fs_interrupted();
    }
    return rc ? cli_fail(&err) : 0;
}
