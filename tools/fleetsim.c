/* fleetsim.c - the command-line front end: a table of subcommands. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../sched/plugin.h"
#include "cli.h"
#include "../base/signals.h"
#include "../reports/output.h"

const struct cli_command cli_commands[] = {
    {"run", cmd_run, run_opts, "simulate a scenario and write its summary, jobs and timeseries", true},
    {"compare", cmd_compare, compare_opts, "the same workload under several scenarios or policies: costs, savings, report", true},
    {"sweep", cmd_sweep, sweep_opts, "run a scenario at every point of a parameter grid (-j N workers, or MPI ranks)", false},
    {"regress", cmd_regress, regress_opts, "run a suite of scenarios and compare each metric with a baseline (CI gate)", true},
    {"calibrate", cmd_calibrate, calibrate_opts, "fit the power model to measured points (calibrate power CSV)", false},
    {"import", cmd_import, import_opts, "convert a trace (openb, philly, swf, sacct, gavel, azure-llm) to the native job CSV or a demand curve", false},
    {"models", cmd_models, models_opts, "print the GPU catalog and the calibrated throughput, memory and power curves", false},
    {"gen", cmd_gen, gen_opts, "write a synthetic scenario: a mixed fleet of G GPUs and N jobs that keep it busy", false},
    {"plan", cmd_plan, plan_opts, "the cheapest fleet (GPU types, node counts, billing) that meets SLOs on the workload", true},
    {"roadmap", cmd_roadmap, roadmap_opts, "which GPUs to buy, lease or rent month by month as demand changes, at least cost", true},
    {"fill", cmd_fill, fill_opts, "the FGD paper's fill experiment: policies x seeds on an openb trace", false},
    {"serve", cmd_serve, serve_opts, "the scheduling core as a Kubernetes scheduler extender (HTTP)", false},
    {"validate", cmd_validate, validate_opts, "check scenarios: their structure by the JSON Schema, their meaning by the loader", false},
    {"completion", cmd_completion, completion_opts, "print the bash or zsh completion script (completion bash|zsh)", false},
    {NULL, NULL, NULL, NULL, false},
};

static int usage(int code)
{
    FILE *f = code ? stderr : stdout;
    fprintf(f, "usage: fleetsim COMMAND [OPTIONS]\n"
               "       fleetsim --help | --version\n\n"
               "Deterministic discrete-event simulator and capacity planner for GPU clusters.\n\n"
               "Commands:\n");
    for (const struct cli_command *c = cli_commands; c->name; c++)
        fprintf(f, "  %-10s %s\n", c->name, c->summary);
    fprintf(f, "\nRun 'fleetsim COMMAND --help' for a command's options.\n"
               "Exit status: 0 ok, 1 a checked condition failed, 64 usage, 65 bad input data,\n"
               "66 cannot open input, 69 cannot listen (serve), 70 internal error,\n"
               "73 cannot create output, 75 output folder busy (another fleetsim writes it),\n"
               "130/143 stopped by SIGINT/SIGTERM (nothing written).  --max-output-mb N\n"
               "(every command that writes files) caps what it writes: exit 73 past it.\n");
    return code;
}

int cli_policy_libs(int *argc, char **argv)
{
    int kept = 1;
    for (int i = 1; i < *argc; i++) {
        const char *path = NULL;
        if (strcmp(argv[i], "--") == 0) { /* operands from here on */
            while (i < *argc)
                argv[kept++] = argv[i++];
            break;
        }
        if (strcmp(argv[i], "--policy-lib") == 0) {
            if (i + 1 == *argc) {
                fprintf(stderr, "fleetsim: %s: option --policy-lib needs a value\n", argv[1]);
                return 64;
            }
            path = argv[++i];
        } else if (strncmp(argv[i], "--policy-lib=", 13) == 0) {
            path = argv[i] + 13;
        } else {
            argv[kept++] = argv[i];
            continue;
        }
        struct fs_err err = {0};
        if (sched_plugin_load(path, &err))
            return cli_fail(&err);
    }
    argv[kept] = NULL;
    *argc = kept;
    return 0;
}

int cli_fail(const struct fs_err *err)
{
    fprintf(stderr, "fleetsim: %s\n", err->msg);
    return fs_exit_code(err->code);
}

int cli_parse_output(const char *cmd, const char *arg, const char **out)
{
    if (!*arg) {
        fprintf(stderr, "fleetsim: %s: -o \"\": the output path is empty\n", cmd);
        return 64;
    }
    *out = arg;
    return 0;
}

int cli_parse_jobs(const char *arg, const char *cmd, bool mute, int *jobs)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (errno || *end || end == arg || v < 1 || v > EXEC_MAX_JOBS) {
        if (!mute)
            fprintf(stderr, "fleetsim: %s: -j: \"%s\" is not a number of workers from 1 to %d\n", cmd, arg,
                    EXEC_MAX_JOBS);
        return 64;
    }
    *jobs = (int)v;
    return 0;
}

int cli_parse_max_output(const char *cmd, const char *arg)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 10);
    if (errno || *end || arg[0] < '1' || arg[0] > '9' || v > (1ULL << 40)) {
        fprintf(stderr, "fleetsim: %s: --max-output-mb: \"%s\" is not a number of MiB from 1 to 2^40\n", cmd, arg);
        return 64;
    }
    out_set_max_mb(v);
    return 0;
}

int cli_parse_seed(const char *arg, struct scenario_options *so)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 10);
    if (errno || *end || arg[0] < '0' || arg[0] > '9') {
        fprintf(stderr, "fleetsim: --seed: \"%s\" is not a non-negative integer\n", arg);
        return 64;
    }
    if (v > FS_SEED_MAX) {
        fprintf(stderr, "fleetsim: --seed: %s is out of range [0, 2^53 = %llu]\n", arg,
                (unsigned long long)FS_SEED_MAX);
        return 64;
    }
    so->has_seed = true;
    so->seed = v;
    return 0;
}

int cli_parse_seeds(const char *opt, char *list, uint64_t *seeds, int max, int *n)
{
    char *save = NULL;
    for (char *s = strtok_r(list, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        const char *why = errno || *end || s[0] < '0' || s[0] > '9' ? "is not a non-negative integer"
                          : v > FS_SEED_MAX                         ? "is out of range [0, 2^53]"
                          : *n == max                               ? "is one too many"
                                                                    : NULL;
        for (int k = 0; !why && k < *n; k++)
            if (seeds[k] == v)
                why = "is given twice";
        if (why) {
            fprintf(stderr, "fleetsim: %s: \"%s\" %s (at most %d seeds)\n", opt, s, why, max);
            return 64;
        }
        seeds[(*n)++] = v;
    }
    if (*n == 0) {
        fprintf(stderr, "fleetsim: %s: no seed given\n", opt);
        return 64;
    }
    return 0;
}

int cli_parse_set(const char *arg, struct scenario_options *so)
{
    static const char *sets[64]; /* one command per process */
    if (so->nsets >= (int)FS_ARRAY_LEN(sets)) {
        fprintf(stderr, "fleetsim: --set: more than %d edits\n", (int)FS_ARRAY_LEN(sets));
        return 64;
    }
    sets[so->nsets++] = arg;
    so->sets = sets;
    return 0;
}

void cli_bad_option(const char *cmd, int c, const char *arg, const struct option *opts)
{
    if (c == ':') {
        fprintf(stderr, "fleetsim: %s: option %s needs a value\n", cmd, arg);
        return;
    }
    const char *names[64];
    size_t n = 0;
    for (const struct option *o = opts; o->name && n < FS_ARRAY_LEN(names); o++)
        names[n++] = o->name;
    const char *name = arg + strspn(arg, "-");
    size_t len = strcspn(name, "=");
    char bare[64];
    snprintf(bare, sizeof bare, "%.*s", (int)len, name);
    const char *hint = arg[0] == '-' && arg[1] == '-' ? fs_suggest(bare, names, n) : NULL;
    fprintf(stderr, "fleetsim: %s: unknown option %s%s%s%s\n", cmd, arg, hint ? "; did you mean --" : "",
            hint ? hint : "", hint ? "?" : "");
}

int cli_print_file(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    char buf[65536];
    size_t n;
    while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
        if (fwrite(buf, 1, n, stdout) != n)
            break;
    bool ok = f && !ferror(f) && fflush(stdout) == 0 && !ferror(stdout);
    if (f)
        fclose(f);
    if (!ok) {
        fprintf(stderr, "fleetsim: --json: cannot copy %s to stdout\n", path);
        return 73;
    }
    return 0;
}

/* The first readable of exe's folder + each of rel (n), into path[size].
 * RET: path, or NULL. */
static const char *beside_exe(const char *const *rel, size_t n, char *path, size_t size)
{
    char exe[4000];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return NULL;
    exe[len] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    for (size_t i = 0; i < n; i++) {
        snprintf(path, size, "%s%s", exe, rel[i]);
        if (access(path, R_OK) == 0)
            return path;
    }
    return NULL;
}

const char *cli_default_catalog(void)
{
    static char path[4096];
    static const char *const rel[] = {"/../models/data/gpus.json", "/../share/fleetsim/gpus.json"};
    const char *env = getenv("FLEETSIM_DATA");
    if (env && *env) {
        snprintf(path, sizeof path, "%s/gpus.json", env);
        return path;
    }
    const char *p = beside_exe(rel, FS_ARRAY_LEN(rel), path, sizeof path);
    return p ? p : "models/data/gpus.json";
}

const char *cli_default_schema(void)
{
    static char path[4096];
    static const char *const rel[] = {"/../schema/scenario.schema.json", "/../share/fleetsim/scenario.schema.json"};
    const char *p = beside_exe(rel, FS_ARRAY_LEN(rel), path, sizeof path);
    return p ? p : "schema/scenario.schema.json";
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "fleetsim: no command given\n");
        return usage(64);
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
        return usage(0);
    if (strcmp(argv[1], "--version") == 0) {
        printf("fleetsim %s (commit %s)\n", FLEETSIM_VERSION, fleetsim_commit);
        return 0;
    }
    /* SIGINT and SIGTERM only set a flag that every long loop polls: the
     * command stops within a second and replaces nothing (exit 128 + the
     * signal); also where the signal came in ignored (a background job of
     * a script). */
    if (fs_signals_install() != 0) {
        fprintf(stderr, "fleetsim: cannot catch SIGINT and SIGTERM\n");
        return 70;
    }
    for (const struct cli_command *c = cli_commands; c->name; c++) {
        if (strcmp(argv[1], c->name) != 0)
            continue;
        int rc = c->plugins ? cli_policy_libs(&argc, argv) : 0;
        return rc ? rc : c->run(argc - 1, argv + 1);
    }
    const char *names[FS_ARRAY_LEN(cli_commands)];
    size_t n = 0;
    for (const struct cli_command *c = cli_commands; c->name; c++)
        names[n++] = c->name;
    const char *hint = fs_suggest(argv[1], names, n);
    fprintf(stderr, "fleetsim: unknown command \"%s\"%s%s%s\n", argv[1], hint ? "; did you mean \"" : "",
            hint ? hint : "", hint ? "\"?" : "");
    return usage(64);
}
