/* cmd_compare.c - `fleetsim compare`: the same workload under several
 * scenarios or policies, side by side (reports/compare.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reports/compare_seeds.h"
#include "../reports/output.h"
#include "../reports/pdf.h"
#include "../study/compare_run.h"
#include "cli.h"

static int usage(int code)
{
    FILE *f = code ? stderr : stdout;
    fprintf(f, "usage: fleetsim compare A.json B.json [...] [-o DIR] [-j N] [--seed N | --seeds LIST]\n"
               "                       [--set PATH=VALUE]... [--catalog FILE] [--pdf] [--json] [--quiet]\n"
               "       fleetsim compare SCENARIO --policies P1,P2,... [-o DIR] [...]\n\n"
               "Run the same workload under each scenario (or SCENARIO under each policy) and write\n"
               "compare.json, report.md and report.html (self-contained, with charts) to DIR\n"
               "(default: out/compare-NAME).  The first run is the baseline: the report splits\n"
               "each other run's monthly cost difference into savings by reason.  Every run's work\n"
               "is also priced owned, leased, on demand, 1- and 3-year committed, and simulated\n"
               "again on an elastic and a spot cloud (the same scenario, instances held only\n"
               "while jobs need them): three runs per scenario.\n\n"
               "  -o, --output DIR      output folder (created if missing)\n"
               "      --max-output-mb N  write at most N MiB in all, else exit 73 (default 10240)\n"
               "  -P, --policies LIST   comma-separated policies, or all:");
    for (size_t i = 0; sched_policies[i]; i++)
        fprintf(f, "%s%s", i ? "," : " ", sched_policies[i]->name);
    fprintf(f, "\n                        or aliases (a policy with parameters set, docs/policies.md):");
    for (size_t i = 0; sched_policy_aliases[i]; i++)
        fprintf(f, "%s%s", i ? "," : " ", sched_policy_aliases[i]->name);
    fprintf(f, "\n"
               "  -j, --jobs N          run N scenarios at a time in worker processes (default: the\n"
               "                        CPUs); the outputs are the same bytes for any N\n"
               "  -s, --seed N          override every scenario's seed\n"
               "      --seeds LIST      the whole comparison at each seed (comma-separated), into\n"
               "                        DIR/seed-S/, and DIR/seeds.json: each run's metrics over the\n"
               "                        seeds (mean, min, max) and its difference from the baseline\n"
               "                        at the same seed\n"
               "      --set PATH=VALUE  edit every scenario as read: PATH a key path\n"
               "                        (fleet[0].nodes), VALUE JSON or else a string; repeatable\n"
               "      --policy-lib PATH.so  load the policies of a plugin first (docs/policy-plugins.md)\n"
               "      --catalog FILE    GPU catalog for scenarios that name none\n"
               "      --pdf             also write report.pdf, printed from report.html by headless\n"
               "                        Chromium\n"
               "      --json            also print compare.json (with --seeds: seeds.json) on stdout\n"
               "  -q, --quiet           print nothing but errors\n"
               "  -h, --help            this help\n\n"
               "Exit: 0 done, 64 usage, 65 bad data (including different workloads), 66 missing\n"
               "input, 69 --pdf without Chromium, 73 cannot write the output.\n");
    return code;
}

const struct option compare_opts[] = {
    {"output", required_argument, NULL, 'o'}, {"policies", required_argument, NULL, 'P'},
    {"seed", required_argument, NULL, 's'},   {"seeds", required_argument, NULL, 'S'},
    {"set", required_argument, NULL, 'E'},    {"catalog", required_argument, NULL, 'c'},
    {"quiet", no_argument, NULL, 'q'},        {"help", no_argument, NULL, 'h'},
    {"jobs", required_argument, NULL, 'j'},   {"pdf", no_argument, NULL, 'F'},
    {"json", no_argument, NULL, 'J'},
    /* main takes it out of argv first (cli_policy_libs); here for completion */
    {"policy-lib", required_argument, NULL, 'L'},
    CLI_OPT_MAX_OUTPUT,
    {NULL, 0, NULL, 0},
};

int cmd_compare(int argc, char **argv)
{
    const struct option *opts = compare_opts;
    struct scenario_options so = {.catalog = NULL};
    const char *dir = NULL;
    char *policies = NULL;
    uint64_t seeds[COMPARE_SEEDS_MAX];
    int nseeds = 0;
    bool quiet = false, pdf = false, json = false;
    int c, jobs = exec_cpus();
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:P:s:j:qh", opts, NULL)) != -1) {
        switch (c) {
        case CLI_MAX_OUTPUT:
            if (cli_parse_max_output("compare", optarg))
                return 64;
            break;
        case 'o':
            if (cli_parse_output("compare", optarg, &dir))
                return 64;
            break;
        case 'P': policies = optarg; break;
        case 's':
            if (cli_parse_seed(optarg, &so))
                return 64;
            break;
        case 'S':
            if (cli_parse_seeds("--seeds", optarg, seeds, COMPARE_SEEDS_MAX, &nseeds))
                return 64;
            break;
        case 'E':
            if (cli_parse_set(optarg, &so))
                return 64;
            break;
        case 'c': so.catalog = optarg; break;
        case 'j':
            if (cli_parse_jobs(optarg, "compare", false, &jobs))
                return 64;
            break;
        case 'q': quiet = true; break;
        case 'F': pdf = true; break;
        case 'J': json = true; break;
        case 'h': return usage(0);
        default:
            cli_bad_option("compare", c, argv[optind - 1], opts);
            return usage(64);
        }
    }
    if (nseeds && so.has_seed) {
        fprintf(stderr, "fleetsim: compare: --seed and --seeds exclude each other\n");
        return usage(64);
    }
    int nfiles = argc - optind;
    if (policies ? nfiles != 1 : nfiles < 2) {
        fprintf(stderr, "fleetsim: compare: expected %s, got %d scenario files\n",
                policies ? "one SCENARIO with --policies" : "two or more scenario files", nfiles);
        return usage(64);
    }
    if (!so.catalog)
        so.catalog = cli_default_catalog();

    /* The runs: one per file, or one per policy. */
    char *list = policies ? xstrdup(policies) : NULL, *save = NULL;
    const char *runs[COMPARE_MAX];
    int n = 0;
    if (list && strcmp(list, "all") == 0) {
        for (size_t i = 0; sched_policies[i] && n < COMPARE_MAX; i++)
            runs[n++] = sched_policies[i]->name;
    } else if (list) {
        for (char *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save))
            if (n < COMPARE_MAX)
                runs[n++] = p;
    } else {
        for (int i = 0; i < nfiles && n < COMPARE_MAX; i++)
            runs[n++] = argv[optind + i];
    }
    for (int i = 0; list && i < n; i++) {
        if (sched_policy_find(runs[i]))
            continue;
        size_t np;
        const char *const *names = sched_policy_names(&np);
        const char *hint = fs_suggest(runs[i], names, np);
        fprintf(stderr, "fleetsim: --policies: unknown policy \"%s\"%s%s%s\n", runs[i],
                hint ? "; did you mean \"" : "", hint ? hint : "", hint ? "\"?" : "");
        free(list);
        return 64;
    }
    if (n < 2 || n >= COMPARE_MAX) {
        fprintf(stderr, "fleetsim: compare: needs 2 to %d runs, got %d\n", COMPARE_MAX - 1, n);
        free(list);
        return usage(64);
    }

    static struct compare_runs cr;
    cr = (struct compare_runs){.n = n, .so = so, .jobs = jobs, .quiet = quiet};
    for (int i = 0; i < n; i++) {
        cr.paths[i] = list ? argv[optind] : runs[i];
        cr.policies[i] = list ? runs[i] : NULL;
    }
    struct fs_err err = {0};
    /* Without Chromium, say so before running anything. */
    const char *chromium = pdf ? pdf_chromium(&err) : NULL;
    if (pdf && !chromium) {
        free(list);
        return cli_fail(&err);
    }
    char fallback[512];
    int rc = compare_dir(&cr, seeds, nseeds, &dir, fallback, sizeof fallback, chromium, &err);
    free(list);
    if (rc)
        return cli_fail(&err);
    return json ? cli_print_file(dir, nseeds ? "seeds.json" : "compare.json") : 0;
}
