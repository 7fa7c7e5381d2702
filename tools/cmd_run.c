/* cmd_run.c - `fleetsim run SCENARIO`: simulate and write the results. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/signals.h"
#include "../reports/output.h"
#include "../reports/pdf.h"
#include "../run/run_dir.h"
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
    fprintf(f, "\n                      or an alias: a policy with parameters set (docs/policies.md):");
    for (size_t i = 0; sched_policy_aliases[i]; i++)
        fprintf(f, " %s", sched_policy_aliases[i]->name);
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
        rc = out_budget_error(run_dir(sc, dir, progress, quiet, check, &err), &err);
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
